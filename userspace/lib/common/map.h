/* SPDX-License-Identifier: GPL-2.0 */
/* Hash map from 64-bit keys to 64-bit values (open addressing). */
#ifndef GTRACE_MAP_H
#define GTRACE_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gt_slot {
	uint64_t key;
	uint64_t val;
};

struct gt_map {
	struct gt_slot *slots;
	uint8_t *used;
	size_t cap;		/* a power of two, or 0 */
	size_t len;
};

void gt_map_init(struct gt_map *m);
void gt_map_free(struct gt_map *m);
/* The value of @key, or NULL. Valid until the next gt_map_put/del. */
uint64_t *gt_map_get(const struct gt_map *m, uint64_t key);
/* The value of @key, added as 0 if absent (*@added tells); NULL if no memory. */
uint64_t *gt_map_put(struct gt_map *m, uint64_t key, bool *added);
void gt_map_del(struct gt_map *m, uint64_t key);
/* Starts loading where @key is or would be: a lookup soon after finds it in the cache. */
void gt_map_prefetch(const struct gt_map *m, uint64_t key);

#endif /* GTRACE_MAP_H */
