/* SPDX-License-Identifier: GPL-2.0 */
/* Records of a fixed size found by a 64-bit key; their addresses never move. */
#ifndef GTRACE_TABLE_H
#define GTRACE_TABLE_H

#include "map.h"

struct gt_table {
	struct gt_map index;		/* key -> record address */
	size_t size;			/* bytes per record */
	char **chunks;
	size_t nr_chunks;
	size_t used;			/* records taken in the last chunk */
};

void gt_table_init(struct gt_table *tab, size_t size);
void gt_table_free(struct gt_table *tab);
/* The record of @key or NULL; gt_table_add() creates it zeroed (NULL: no memory). */
void *gt_table_get(const struct gt_table *tab, uint64_t key);
void *gt_table_add(struct gt_table *tab, uint64_t key);
/* Calls @fn on every record (in no particular order). */
void gt_table_each(const struct gt_table *tab, void (*fn)(void *rec, uint64_t key, void *ctx),
		   void *ctx);

#endif /* GTRACE_TABLE_H */
