// SPDX-License-Identifier: GPL-2.0
/*
 * The set of ended goroutine ids (lib/common/idset.h): ids in runs and in words,
 * the extremes of the id space, a word freed when its last id goes, a run
 * taking in the words next in line, and ids spread as the module numbers a
 * thread's incarnations.
 */
#include <stdint.h>

#include "common/idset.h"
#include "tap.h"

#define INCARNATION	4194304ULL	/* goroutine id of a thread's next life: + this */

static void test_words(void)
{
	struct gt_idset s;

	gt_idset_init(&s);
	tap_ok(!gt_idset_take(&s, 5), "an empty set has no id");
	tap_ok(gt_idset_add(&s, 0) && gt_idset_add(&s, 63) && gt_idset_add(&s, 64) &&
	       gt_idset_add(&s, UINT64_MAX), "ids 0, 63, 64 and 2^64-1 added");
	tap_ok(s.words.len == 1, "only 2^64-1 in a word");
	tap_ok(gt_idset_add(&s, 63 + INCARNATION * 2) && gt_idset_add(&s, 64 + INCARNATION * 3) &&
	       s.words.len == 3, "ids out of their bucket's run in words");
	tap_ok(gt_idset_add(&s, 63) && gt_idset_add(&s, 63 + INCARNATION * 2) &&
	       s.words.len == 3, "adding an id twice changes nothing");
	tap_ok(!gt_idset_take(&s, 1) && !gt_idset_take(&s, 65) && !gt_idset_take(&s, 128) &&
	       !gt_idset_take(&s, 63 + INCARNATION) && !gt_idset_take(&s, 64 + INCARNATION),
	       "ids next to them are not in it");
	tap_ok(gt_idset_take(&s, 63 + INCARNATION * 2) && !gt_idset_take(&s, 63 + INCARNATION * 2),
	       "an id taken from a word is gone");
	tap_ok(s.words.len == 2, "a word goes with its last id");
	tap_ok(gt_idset_take(&s, 63) && gt_idset_take(&s, 63),
	       "an id of a run stays, taken or not");
	tap_ok(gt_idset_add(&s, 64 + INCARNATION) && gt_idset_add(&s, 64 + INCARNATION * 2) &&
	       s.words.len == 1 && gt_idset_take(&s, 64 + INCARNATION * 3),
	       "a run that reaches a word's id takes it in");
	tap_ok(gt_idset_take(&s, UINT64_MAX) && !gt_idset_take(&s, UINT64_MAX) && !s.words.len,
	       "the rest taken: no word left");
	gt_idset_free(&s);
}

/* A run starts at a bucket's first id, wherever, and grows down as well as up. */
static void test_runs(void)
{
	struct gt_idset s;

	gt_idset_init(&s);
	tap_ok(gt_idset_add(&s, 7 + INCARNATION * 5) && !s.words.len &&
	       gt_idset_take(&s, 7 + INCARNATION * 5), "a bucket's first id starts its run");
	tap_ok(gt_idset_add(&s, 7 + INCARNATION * 3) && s.words.len == 1,
	       "an id apart from the run goes in a word");
	tap_ok(gt_idset_add(&s, 7 + INCARNATION * 4) && !s.words.len,
	       "the run grown down takes the word's id in");
	tap_ok(gt_idset_take(&s, 7 + INCARNATION * 3) && gt_idset_take(&s, 7 + INCARNATION * 4) &&
	       !gt_idset_take(&s, 7 + INCARNATION * 2) && !gt_idset_take(&s, 7 + INCARNATION * 6) &&
	       !gt_idset_take(&s, 8 + INCARNATION * 4), "ids 3 to 5 of the bucket in it, no other");
	gt_idset_free(&s);
}

/* Threads 1..@tids, each @lives times: in order (@in_order), or the last lives first. */
static void test_incarnations(uint64_t tids, uint64_t lives, bool in_order)
{
	uint64_t t, k, l, bad = 0;
	struct gt_idset s;

	gt_idset_init(&s);
	for (k = 0; k < lives; k++) {
		l = in_order ? k : lives - 1 - k;
		for (t = 1; t <= tids; t++)
			bad += !gt_idset_add(&s, t + INCARNATION * l);
	}
	tap_ok(!bad && !s.words.len, "%llu threads, %llu lives each, %s: %zu words, all in runs",
	       (unsigned long long)tids,
	       (unsigned long long)lives, in_order ? "in order" : "the last first",
	       s.words.len);
	for (k = lives; k-- > 0;)
		for (t = tids; t >= 1; t--)
			bad += !gt_idset_take(&s, t + INCARNATION * k);
	tap_ok(!bad && !s.words.len && !gt_idset_take(&s, tids + 1) &&
	       !gt_idset_take(&s, 1 + INCARNATION * lives), "all found, no other");
	gt_idset_free(&s);
}

int main(void)
{
	test_words();
	test_runs();
	test_incarnations(32767, 3, true);
	test_incarnations(32767, 3, false);
	test_incarnations(100000, 20, true);
	return tap_done();
}
