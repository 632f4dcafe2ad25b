// SPDX-License-Identifier: GPL-2.0
/*
 * The set of ended goroutine ids (lib/idset.h): ids in one word and in
 * many, the extremes of the id space, a word freed when its last id goes,
 * and ids spread as the module numbers a thread's incarnations.
 */
#include <stdint.h>

#include "idset.h"
#include "tap.h"

#define INCARNATION	4194304ULL	/* goroutine id of a thread's next life: + this */

static void test_words(void)
{
	struct gt_idset s;

	gt_idset_init(&s);
	tap_ok(!gt_idset_take(&s, 5), "an empty set has no id");
	tap_ok(gt_idset_add(&s, 0) && gt_idset_add(&s, 63) && gt_idset_add(&s, 64) &&
	       gt_idset_add(&s, UINT64_MAX), "ids 0, 63, 64 and 2^64-1 added");
	tap_ok(s.words.len == 3, "in 3 words (%zu)", s.words.len);
	tap_ok(gt_idset_add(&s, 63) && s.words.len == 3, "adding an id twice changes nothing");
	tap_ok(!gt_idset_take(&s, 1) && !gt_idset_take(&s, 65) && !gt_idset_take(&s, 128),
	       "ids next to them are not in it");
	tap_ok(gt_idset_take(&s, 63) && !gt_idset_take(&s, 63), "an id taken is gone");
	tap_ok(s.words.len == 3 && gt_idset_take(&s, 0) && s.words.len == 2,
	       "a word goes with its last id");
	tap_ok(gt_idset_take(&s, 64) && gt_idset_take(&s, UINT64_MAX) && !s.words.len,
	       "the rest taken: no word left");
	gt_idset_free(&s);
}

/* Threads 1..@tids, each @lives times: one word per 64 ids, whatever the order. */
static void test_incarnations(uint64_t tids, uint64_t lives)
{
	struct gt_idset s;
	uint64_t t, k, bad = 0;

	gt_idset_init(&s);
	for (t = 1; t <= tids; t++)
		for (k = 0; k < lives; k++)
			bad += !gt_idset_add(&s, t + INCARNATION * k);
	tap_ok(!bad && s.words.len == lives * (tids / 64 + 1),
	       "%llu threads, %llu lives each: %zu words", (unsigned long long)tids,
	       (unsigned long long)lives, s.words.len);
	for (k = lives; k-- > 0;)
		for (t = tids; t >= 1; t--)
			bad += !gt_idset_take(&s, t + INCARNATION * k) ||
			       gt_idset_take(&s, t + INCARNATION * k);
	tap_ok(!bad && !s.words.len, "all taken back in the other order, each once");
	gt_idset_free(&s);
}

int main(void)
{
	test_words();
	test_incarnations(32767, 3);
	test_incarnations(100000, 20);
	return tap_done();
}
