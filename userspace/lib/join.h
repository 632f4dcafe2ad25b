/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libgtrace's join: a Go program's own trace (APP, Go 1.22+) with gotrace's
 * recording of the same machine (MACHINE, format 1.25+) over the same time.
 *
 * APP's M of a batch is a thread id (Go's mp.procid, gettid() on Linux) and
 * its clock is CLOCK_MONOTONIC / 64; MACHINE's threads are its goroutines
 * (thread id + 4194304 x n) and its clock snapshots map its time to
 * CLOCK_MONOTONIC. gt_join() writes APP with every event kept, plus a user
 * region (and logs) on the goroutine an APP thread was running whenever
 * MACHINE had that thread off its CPU.
 */
#ifndef GTRACE_JOIN_H
#define GTRACE_JOIN_H

#include <stdbool.h>
#include <stdint.h>

#include "gtrace.h"

/* What the kernel did to a thread while it ran a goroutine: a region's kind. */
enum gt_join_kind {
	GT_JOIN_CPU_WAIT,	/* "kernel: waiting for a CPU": preempted, its CPU ran others */
	GT_JOIN_THROTTLED,	/* "kernel: throttled": runnable, its CPU idled most of the wait */
	GT_JOIN_BLOCKED,	/* "kernel: blocked in REASON": a page fault or kernel wait */
	GT_JOIN_SYSCALL,	/* "kernel: syscall blocked in REASON": inside a system call */
	GT_JOIN_KINDS
};

/* The region type's prefix of @kind: "kernel: waiting for a CPU", ... */
const char *gt_join_kind_name(enum gt_join_kind kind);
/* The kind of a region type, or -1 if it is not one of the join's. */
int gt_join_kind_of(const char *type, size_t len);

struct gt_join_stats {
	uint64_t app_threads;		/* Ms in APP */
	uint64_t threads_found;		/* of them, threads MACHINE saw */
	int64_t app_ns;			/* APP's time, first to last event */
	int64_t covered_ns;		/* of it, the part MACHINE recorded */
	uint64_t regions[GT_JOIN_KINDS];
	int64_t region_ns[GT_JOIN_KINDS];
	uint64_t unjoined;		/* off-CPU spans (runs, for threads) that got no region */
	uint64_t go_regions;		/* gt_join_threads(): the runs of goroutines added */
};

/*
 * Writes the join of @app and @machine to @out (created 0644, or replaced
 * whole: written beside it and renamed). Returns 0 with @st filled, or -1
 * with @err set: its message names the cause and the fix (no overlap in
 * time, MACHINE without clock snapshots, APP before Go 1.22, no APP thread
 * in MACHINE).
 */
int gt_join(const char *app, const char *machine, const char *out,
	    struct gt_join_stats *st, struct gt_error *err);

/*
 * The other way round: writes MACHINE to @out with a region on each of
 * APP's threads for every run of a goroutine there, typed "go: FUNCTION"
 * (the goroutine's start function) with a log "goroutine N". Refuses what
 * gt_join() refuses.
 */
int gt_join_threads(const char *app, const char *machine, const char *out,
		    struct gt_join_stats *st, struct gt_error *err);

#endif /* GTRACE_JOIN_H */
