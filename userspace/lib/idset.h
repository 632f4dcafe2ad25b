/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A set of 64-bit ids as 64-bit bitmap words found by id / 64: ids that
 * cluster cost a few bits each (a word's slot is 17 bytes for 64 ids).
 */
#ifndef GTRACE_IDSET_H
#define GTRACE_IDSET_H

#include "map.h"

struct gt_idset {
	struct gt_map words;		/* id / 64 -> the bits of its 64 ids */
};

void gt_idset_init(struct gt_idset *s);
void gt_idset_free(struct gt_idset *s);
/* Adds @id; false if out of memory (the set is unchanged). */
bool gt_idset_add(struct gt_idset *s, uint64_t id);
/* Removes @id; true if it was in the set. */
bool gt_idset_take(struct gt_idset *s, uint64_t id);
/* Starts loading the word of @id, for a gt_idset_take() soon after. */
void gt_idset_prefetch(const struct gt_idset *s, uint64_t id);

#endif /* GTRACE_IDSET_H */
