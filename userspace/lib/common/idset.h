/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A set of 64-bit ids, made for the ids of ended goroutines. Ids are put in
 * buckets by id % 2^22; per bucket an array keeps a run: the ids of the
 * bucket from lo * 2^22 up to below hi * 2^22 are in the set. The module
 * numbers a thread's goroutine by its thread id plus 2^22 (PID_MAX_LIMIT)
 * per earlier holder of that thread id, and holders end in turn: the ids of
 * a bucket end in the run's order, from wherever the trace (or a piece of
 * it) starts, and cost nothing beyond the bucket's 8 bytes. Go numbers
 * goroutines from 1 up: a bucket per goroutine, each run one id. Any other
 * id is kept as a bit of a 64-bit word in a hash map found by id / 64 (a
 * word's slot is 17 bytes for 64 ids). The array has 2^22 buckets, each
 * allocated when first used: at most 32 MiB.
 */
#ifndef GTRACE_IDSET_H
#define GTRACE_IDSET_H

#include "map.h"

#define GT_IDSET_BUCKET_BITS	22

/* The ids of a bucket with lo <= id / 2^22 < hi; none if lo == hi. */
struct gt_idrun {
	uint32_t lo, hi;
};

struct gt_idset {
	struct gt_idrun *runs;		/* per id % 2^22 */
	struct gt_map words;		/* id / 64 -> the bits of its 64 ids, the others */
};

void gt_idset_init(struct gt_idset *s);
void gt_idset_free(struct gt_idset *s);
/* Adds @id; false if out of memory (the set is unchanged). */
bool gt_idset_add(struct gt_idset *s, uint64_t id);
/*
 * Whether @id is in the set, taken out of it unless it is in its bucket's
 * run (where it stays: the caller keeps its record until it adds it again).
 */
bool gt_idset_take(struct gt_idset *s, uint64_t id);
/* Starts loading what gt_idset_take() of @id soon after reads. */
void gt_idset_prefetch(const struct gt_idset *s, uint64_t id);

#endif /* GTRACE_IDSET_H */
