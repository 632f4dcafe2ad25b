/* SPDX-License-Identifier: GPL-2.0 */
/* A minimal reader of pre-1.22 Go traces, to check them inside the guest. */
#ifndef TRACE_PARSE_H
#define TRACE_PARSE_H

#include <stddef.h>
#include <linux/types.h>

/* Event types of Go's internal/trace that the checks count. */
enum {
	GT_EV_BATCH		= 1,
	GT_EV_FREQUENCY		= 2,
	GT_EV_STACK		= 3,
	GT_EV_GO_CREATE		= 13,
	GT_EV_GO_START		= 14,
	GT_EV_GO_UNBLOCK	= 21,
	GT_EV_GO_SYS_EXIT	= 29,
	GT_EV_STRING		= 37,
	GT_EV_GO_START_LOCAL	= 38,
	GT_EV_GO_UNBLOCK_LOCAL	= 39,
	GT_EV_GO_SYS_EXIT_LOCAL	= 40,
	GT_EV_GO_START_LABEL	= 41,
	GT_EV_COUNT		= 50,
};

struct gt_stats {
	unsigned int version;			/* 11, 19 or 21 */
	unsigned long count[GT_EV_COUNT];	/* events by type */
	unsigned long nr_ps;			/* Ps with batches */
	__u64 frequency;			/* ticks per second */
	__u64 first_ts, last_ts;		/* earliest and latest time stamps */
	char error[160];			/* why the trace is malformed */
};

/* What one goroutine did in a trace: see gt_parse_goroutine(). */
struct gt_gstats {
	unsigned long starts;	/* put on a P: GoStart, GoStartLocal, GoStartLabel */
	unsigned long blocks;	/* off its P, waiting: GoSleep, GoBlock*, GoSysBlock */
	unsigned long preempts;	/* off its P, runnable: GoPreempt, GoSched */
	unsigned long ends;	/* off its P for good: GoEnd, GoStop */
	unsigned long unblocks;	/* made runnable: GoUnblock*, GoSysExit* */
	unsigned long creates;	/* GoCreate of it */
};

int gt_parse(const void *data, size_t len, unsigned int nr_cpus,
	     struct gt_stats *st);
int gt_parse_goroutine(const void *data, size_t len, unsigned int nr_cpus,
		       __u64 goid, struct gt_gstats *gs, struct gt_stats *st);
unsigned long gt_starts(const struct gt_stats *st);
unsigned long gt_wakeups(const struct gt_stats *st);

#endif /* TRACE_PARSE_H */
