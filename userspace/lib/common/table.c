// SPDX-License-Identifier: GPL-2.0
/* Records found by a 64-bit key, allocated in chunks so their addresses stay put. */
#include <stdlib.h>
#include <string.h>

#include "table.h"

#define CHUNK_RECORDS 1024

void gt_table_init(struct gt_table *tab, size_t size)
{
	memset(tab, 0, sizeof(*tab));
	gt_map_init(&tab->index);
	tab->size = size;
	tab->used = CHUNK_RECORDS;
}

void gt_table_free(struct gt_table *tab)
{
	size_t i;

	for (i = 0; i < tab->nr_chunks; i++)
		free(tab->chunks[i]);
	free(tab->chunks);
	gt_map_free(&tab->index);
	gt_table_init(tab, tab->size);
}

void *gt_table_find(const struct gt_table *tab, uint64_t key)
{
	uint64_t *v = gt_map_get(&tab->index, key);

	return v ? (void *)(uintptr_t)*v : NULL;
}

static void *table_alloc(struct gt_table *tab)
{
	char **chunks;
	void *rec = tab->free;

	if (rec) {
		memcpy(&tab->free, rec, sizeof(tab->free));
		return memset(rec, 0, tab->size);
	}
	if (tab->used == CHUNK_RECORDS) {
		chunks = realloc(tab->chunks, (tab->nr_chunks + 1) * sizeof(*chunks));
		if (!chunks)
			return NULL;
		tab->chunks = chunks;
		chunks[tab->nr_chunks] = calloc(CHUNK_RECORDS, tab->size);
		if (!chunks[tab->nr_chunks])
			return NULL;
		tab->nr_chunks++;
		tab->used = 0;
	}
	return tab->chunks[tab->nr_chunks - 1] + tab->size * tab->used++;
}

void *gt_table_insert(struct gt_table *tab, uint64_t key)
{
	bool added;
	uint64_t *v;
	void *rec;

	v = gt_map_put(&tab->index, key, &added);
	if (!v)
		return NULL;
	if (!added)
		return (void *)(uintptr_t)*v;	/* a large key */
	rec = table_alloc(tab);
	if (!rec) {
		gt_map_del(&tab->index, key);
		return NULL;
	}
	*v = (uintptr_t)rec;
	if (key < GT_TABLE_DIRECT)
		tab->direct[key] = rec;
	return rec;
}

void gt_table_drop(struct gt_table *tab, uint64_t key, void *rec)
{
	gt_map_del(&tab->index, key);
	if (key < GT_TABLE_DIRECT)
		tab->direct[key] = NULL;
	memcpy(rec, &tab->free, sizeof(tab->free));
	tab->free = rec;
}

void gt_table_each(const struct gt_table *tab, void (*fn)(void *rec, uint64_t key, void *ctx),
		   void *ctx)
{
	const struct gt_map *m = &tab->index;
	size_t i;

	for (i = 0; i < m->cap; i++)
		if (m->used[i])
			fn((void *)(uintptr_t)m->slots[i].val, m->slots[i].key, ctx);
}

size_t gt_table_len(const struct gt_table *tab)
{
	return tab->index.len;
}
