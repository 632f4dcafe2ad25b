/* SPDX-License-Identifier: GPL-2.0 */
/* A CPU profile in pprof's format (profile.proto), built from sampled stacks (pprof.c). */
#ifndef GOTRACE_PPROF_H
#define GOTRACE_PPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/map.h"
#include "report/pb.h"
#include "tracev2/internal.h"

/* A function: its name and file, string ids. */
struct pprof_func {
	uint64_t name, file;
};

/* A location: one frame, with the function (id from 1) it is in and its line. */
struct pprof_loc {
	uint64_t pc, func, line;
};

/* The samples of one stack and goroutine: @n location ids at @first in stacks. */
struct pprof_sample {
	size_t first, n;
	uint64_t g;
	uint64_t count;
};

/*
 * Functions, locations and samples by content, each with an id from 1 (its
 * index + 1). Out of memory, @oom is set and the calls after that do
 * nothing; pprof_encode() then fails.
 */
struct pprof {
	struct gt2_intern strs;		/* the string table: string id i is index i, 0 is "" */
	struct pprof_func *funcs;
	size_t nfuncs, cap_funcs;
	struct gt_map func_ids;		/* content hash (probed) -> id */
	struct pprof_loc *locs;
	size_t nlocs, cap_locs;
	struct gt_map loc_ids;
	uint64_t *stacks;		/* the samples' location ids, innermost first */
	size_t nstacks, cap_stacks;
	struct pprof_sample *samples;
	size_t nsamples, cap_samples;
	struct gt_map sample_ids;
	uint64_t total;			/* samples added */
	bool oom;
};

/* What the profile says besides the samples. */
struct pprof_info {
	uint64_t period_ns;	/* between two samples of a CPU; 0: unknown (counts only) */
	int64_t duration_ns;	/* of the trace */
};

void pprof_init(struct pprof *p);
void pprof_free(struct pprof *p);
/* The id of string @s (@len bytes), 0 for the empty one. */
uint64_t pprof_string(struct pprof *p, const void *s, size_t len);
/* The id of the location of a frame: @pc, function @fn in @file (string ids), @line. */
uint64_t pprof_location(struct pprof *p, uint64_t pc, uint64_t fn, uint64_t file, uint64_t line);
/* One sample of goroutine @g (0: none) with the @n locations at @locs, innermost first. */
void pprof_add(struct pprof *p, const uint64_t *locs, size_t n, uint64_t g);
/*
 * The profile as profile.proto's Profile message, appended to @out: sample types
 * samples/count, and cpu/nanoseconds (@info's period a sample) when the period is
 * known; each goroutine's samples labelled "goroutine". False if out of memory.
 */
bool pprof_encode(struct pprof *p, const struct pprof_info *info, struct pb *out);

#endif /* GOTRACE_PPROF_H */
