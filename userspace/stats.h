/* SPDX-License-Identifier: GPL-2.0 */
/* Scheduler statistics of a trace: per thread, per program, per CPU, per stack. */
#ifndef GOTRACE_STATS_H
#define GOTRACE_STATS_H

#include "gtrace.h"
#include "table.h"

enum stats_reason { R_SYNC, R_NET, R_SYSCALL, R_SLEEP, R_OTHER, NR_REASONS };

extern const char *const stats_reasons[NR_REASONS];

/* Latencies in log-linear buckets: exact below 64 ns, then 32 per power of 2. */
#define HIST_BUCKETS (64 + 58 * 32)

struct hist {
	uint64_t count, max;
	uint32_t bucket[HIST_BUCKETS];
};

struct stats_thread {
	uint64_t g;
	uint64_t prog;			/* string id of the program (create stack's first function) */
	int64_t run, runnable, blocked[NR_REASONS];	/* ticks */
	uint64_t switches;
	/* while reading */
	int64_t since, wake;
	uint64_t block_stk, sys_stk;
	uint8_t state, reason;
	bool woken;
};

struct stats_prog {
	uint64_t prog;
	uint64_t threads;
	int64_t run, runnable, blocked[NR_REASONS];
	uint64_t switches;
	struct hist latency;
};

struct stats_stack {
	uint64_t stk;
	int64_t blocked;
	uint64_t count;
	uint8_t reason;
};

struct stats_cpu {
	int64_t p;
	int64_t busy, since;
	uint64_t g;
};

struct stats {
	const struct gt_trace *t;
	struct gt_table threads, progs, stacks, cpus;
	struct hist latency;
	int64_t first, last;		/* ticks */
	uint64_t events;
	bool seen;
};

/*
 * Goroutine ids in gotrace's traces: thread id + STATS_GEN_STRIDE x the number of earlier
 * holders of that thread id in the trace (after an exec or a reused id), so no id repeats.
 */
#define STATS_GEN_STRIDE	4194304

/* Whether a thread, or every thread of a program, never ran. */
static inline bool stats_never_ran(int64_t run, uint64_t switches)
{
	return !run && !switches;
}

void stats_init(struct stats *s);
int stats_event(void *ctx, const struct gt_trace *t, const struct gt_event *ev);
/* Closes what is still running at the end and adds threads into programs. */
int stats_finish(struct stats *s);
void stats_free(struct stats *s);
/* The @q quantile (0..1) in ns, from the bucket's lower bound. */
uint64_t hist_quantile(const struct hist *h, double q);
/* Records of @tab in an array sorted by @cmp (free() it). */
void **stats_sorted(const struct gt_table *tab, int (*cmp)(const void *, const void *),
		    size_t *n);

#endif /* GOTRACE_STATS_H */
