// SPDX-License-Identifier: GPL-2.0
/* A set of ids: a run per bucket of id % 2^22, the other ids as bitmap words in a hash map. */
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

static struct gt_idrun *idset_run(const struct gt_idset *s, uint64_t id)
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

/* The id of @id's bucket with @high as its id / 2^22. */
static uint64_t bucket_id(uint64_t id, uint64_t high)
{
	return high << GT_IDSET_BUCKET_BITS | (id & (BUCKETS - 1));
}

/* Run @r of @id's bucket took @id in (at either end): the ids in words next in line join. */
static void run_grow(struct gt_idset *s, uint64_t id, struct gt_idrun *r)
{
	while (r->hi < RUN_MAX && words_take(s, bucket_id(id, r->hi)))
		r->hi++;
	while (r->lo && words_take(s, bucket_id(id, r->lo - 1)))
		r->lo--;
}

bool gt_idset_add(struct gt_idset *s, uint64_t id)
{
	uint64_t high = id >> GT_IDSET_BUCKET_BITS;
	struct gt_idrun *r;

	if (!s->runs) {
		/* Buckets never used stay unallocated zero pages. */
		s->runs = calloc(BUCKETS, sizeof(*s->runs));
		if (!s->runs)
			return false;
	}
	r = idset_run(s, id);
	if (high >= r->lo && high < r->hi)
		return true;
	if (high >= RUN_MAX)
		return words_add(s, id);
	if (r->lo == r->hi) {
		/* A bucket's first id: its run starts there (words hold none of it). */
		r->lo = (uint32_t)high;
		r->hi = (uint32_t)high + 1;
	} else if (high == r->hi) {
		r->hi++;
	} else if (high + 1 == r->lo) {
		r->lo--;
	} else {
		return words_add(s, id);
	}
	run_grow(s, id, r);
	return true;
}

bool gt_idset_take(struct gt_idset *s, uint64_t id)
{
	uint64_t high = id >> GT_IDSET_BUCKET_BITS;
	const struct gt_idrun *r;

	if (!s->runs)
		return false;
	r = idset_run(s, id);
	if (high >= r->lo && high < r->hi)
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
