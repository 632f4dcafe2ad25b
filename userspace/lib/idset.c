// SPDX-License-Identifier: GPL-2.0
/* A set of ids kept as bitmap words in a hash map, one word per 64 ids. */
#include "idset.h"

void gt_idset_init(struct gt_idset *s)
{
	gt_map_init(&s->words);
}

void gt_idset_free(struct gt_idset *s)
{
	gt_map_free(&s->words);
}

bool gt_idset_add(struct gt_idset *s, uint64_t id)
{
	bool added;
	uint64_t *w = gt_map_put(&s->words, id >> 6, &added);

	if (!w)
		return false;
	*w |= 1ULL << (id & 63);
	return true;
}

bool gt_idset_take(struct gt_idset *s, uint64_t id)
{
	uint64_t *w = gt_map_get(&s->words, id >> 6);
	uint64_t bit = 1ULL << (id & 63);

	if (!w || !(*w & bit))
		return false;
	*w &= ~bit;
	if (!*w)
		gt_map_del(&s->words, id >> 6);
	return true;
}

void gt_idset_prefetch(const struct gt_idset *s, uint64_t id)
{
	gt_map_prefetch(&s->words, id >> 6);
}
