// SPDX-License-Identifier: GPL-2.0
/* Hash map from 64-bit keys to 64-bit values: linear probing, backward-shift delete. */
#include <stdlib.h>
#include <string.h>

#include "map.h"

void gt_map_init(struct gt_map *m)
{
	memset(m, 0, sizeof(*m));
}

void gt_map_free(struct gt_map *m)
{
	free(m->slots);
	free(m->used);
	gt_map_init(m);
}

static size_t map_hash(uint64_t key)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	key *= 0xc4ceb9fe1a85ec53ULL;
	key ^= key >> 33;
	return (size_t)key;
}

/* The slot holding @key, or the empty slot where it would go. */
static size_t map_find(const struct gt_map *m, uint64_t key)
{
	size_t mask = m->cap - 1;
	size_t i = map_hash(key) & mask;

	/* In a large map both are cache misses: wait for them together. */
	__builtin_prefetch(&m->slots[i]);
	while (m->used[i] && m->slots[i].key != key)
		i = (i + 1) & mask;
	return i;
}

void gt_map_prefetch(const struct gt_map *m, uint64_t key)
{
	size_t i;

	if (!m->cap)
		return;
	i = map_hash(key) & (m->cap - 1);
	__builtin_prefetch(&m->used[i]);
	__builtin_prefetch(&m->slots[i]);
}

uint64_t *gt_map_get(const struct gt_map *m, uint64_t key)
{
	size_t i;

	if (!m->cap)
		return NULL;
	i = map_find(m, key);
	return m->used[i] ? &m->slots[i].val : NULL;
}

static bool map_grow(struct gt_map *m)
{
	struct gt_map n;
	size_t i, j;

	n.cap = m->cap ? 2 * m->cap : 16;
	n.len = m->len;
	n.slots = malloc(n.cap * sizeof(*n.slots));
	n.used = calloc(n.cap, 1);
	if (!n.slots || !n.used) {
		free(n.slots);
		free(n.used);
		return false;
	}
	for (i = 0; i < m->cap; i++) {
		if (!m->used[i])
			continue;
		j = map_find(&n, m->slots[i].key);
		n.used[j] = 1;
		n.slots[j] = m->slots[i];
	}
	free(m->slots);
	free(m->used);
	*m = n;
	return true;
}

uint64_t *gt_map_put(struct gt_map *m, uint64_t key, bool *added)
{
	size_t i;

	if (4 * (m->len + 1) > 3 * m->cap && !map_grow(m))
		return NULL;
	i = map_find(m, key);
	*added = !m->used[i];
	if (*added) {
		m->used[i] = 1;
		m->slots[i].key = key;
		m->slots[i].val = 0;
		m->len++;
	}
	return &m->slots[i].val;
}

void gt_map_del(struct gt_map *m, uint64_t key)
{
	size_t mask = m->cap - 1;
	size_t i, j, home;

	if (!m->cap)
		return;
	i = map_find(m, key);
	if (!m->used[i])
		return;
	/* Shift later members of the probe run back into the hole. */
	for (j = (i + 1) & mask; m->used[j]; j = (j + 1) & mask) {
		home = map_hash(m->slots[j].key) & mask;
		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->slots[i] = m->slots[j];
			i = j;
		}
	}
	m->used[i] = 0;
	m->len--;
}
