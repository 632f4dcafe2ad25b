// SPDX-License-Identifier: GPL-2.0
/* A set of ids: runs per bucket of id % 2^22, the other ids as bitmap words in a hash map. */
#include <stdlib.h>

#include "idset.h"

#define BUCKETS		(1U << GT_IDSET_BUCKET_BITS)
#define RUN_MAX		UINT32_MAX	/* ids / 2^22 from here on: words only */

void gt_idset_init(struct gt_idset *s)
{
	s->runs = NULL;
	gt_map_init(&s->words);
}

void gt_idset_free(struct gt_idset *s)
{
	free(s->runs);
	gt_map_free(&s->words);
	gt_idset_init(s);
}

static uint32_t *idset_run(const struct gt_idset *s, uint64_t id)
{
	return &s->runs[id & (BUCKETS - 1)];
}

static bool words_add(struct gt_idset *s, uint64_t id)
{
	bool added;
	uint64_t *w = gt_map_put(&s->words, id >> 6, &added);

	if (!w)
		return false;
	*w |= 1ULL << (id & 63);
	return true;
}

static bool words_take(struct gt_idset *s, uint64_t id)
{
	uint64_t *w, bit = 1ULL << (id & 63);

	if (!s->words.len)
		return false;
	w = gt_map_get(&s->words, id >> 6);
	if (!w || !(*w & bit))
		return false;
	*w &= ~bit;
	if (!*w)
		gt_map_del(&s->words, id >> 6);
	return true;
}

/* The run of @id's bucket grew to @id: ids of the words next in line join it. */
static void run_grow(struct gt_idset *s, uint64_t id, uint32_t *run)
{
	uint64_t bucket = id & (BUCKETS - 1);

	++*run;
	while (*run < RUN_MAX &&
	       words_take(s, (uint64_t)*run << GT_IDSET_BUCKET_BITS | bucket))
		++*run;
}

bool gt_idset_add(struct gt_idset *s, uint64_t id)
{
	uint64_t high = id >> GT_IDSET_BUCKET_BITS;
	uint32_t *run;

	if (!s->runs) {
		/* Buckets never used stay unallocated zero pages. */
		s->runs = calloc(BUCKETS, sizeof(*s->runs));
		if (!s->runs)
			return false;
	}
	run = idset_run(s, id);
	if (high < *run)
		return true;
	if (high != *run || high >= RUN_MAX)
		return words_add(s, id);
	run_grow(s, id, run);
	return true;
}

bool gt_idset_take(struct gt_idset *s, uint64_t id)
{
	if (!s->runs)
		return false;
	if ((id >> GT_IDSET_BUCKET_BITS) < *idset_run(s, id))
		return true;
	return words_take(s, id);
}

void gt_idset_prefetch(const struct gt_idset *s, uint64_t id)
{
	if (s->runs)
		__builtin_prefetch(idset_run(s, id));
	if (s->words.len)
		gt_map_prefetch(&s->words, id >> 6);
}
