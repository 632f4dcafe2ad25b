/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Records of a fixed size found by a 64-bit key; their addresses never move.
 * A dropped record's memory is reused for the next one added.
 */
#ifndef GTRACE_TABLE_H
#define GTRACE_TABLE_H

#include "map.h"

#define GT_TABLE_DIRECT	64		/* keys below are also found without hashing */

struct gt_table {
	struct gt_map index;		/* key -> record address */
	void *direct[GT_TABLE_DIRECT];	/* the records of small keys (Ps, goroutine 0) */
	size_t size;			/* bytes per record */
	char **chunks;
	size_t nr_chunks;
	size_t used;			/* records taken in the last chunk */
	void *free;			/* dropped records, linked through their first bytes */
};

void gt_table_init(struct gt_table *tab, size_t size);
void gt_table_free(struct gt_table *tab);
/* gt_table_get() and gt_table_add() of a key not found directly. */
void *gt_table_find(const struct gt_table *tab, uint64_t key);
void *gt_table_insert(struct gt_table *tab, uint64_t key);

/* The record of @key or NULL; gt_table_add() creates it zeroed (NULL: no memory). */
static inline void *gt_table_get(const struct gt_table *tab, uint64_t key)
{
	if (key < GT_TABLE_DIRECT && tab->direct[key])
		return tab->direct[key];
	return gt_table_find(tab, key);
}

static inline void *gt_table_add(struct gt_table *tab, uint64_t key)
{
	if (key < GT_TABLE_DIRECT && tab->direct[key])
		return tab->direct[key];
	return gt_table_insert(tab, key);
}
/* Removes @key and frees its record @rec (of at least 8 bytes). */
void gt_table_drop(struct gt_table *tab, uint64_t key, void *rec);
/* The number of records. */
size_t gt_table_len(const struct gt_table *tab);
/* Calls @fn on every record (in no particular order). */
void gt_table_each(const struct gt_table *tab, void (*fn)(void *rec, uint64_t key, void *ctx),
		   void *ctx);

#endif /* GTRACE_TABLE_H */
