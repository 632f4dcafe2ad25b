/* SPDX-License-Identifier: GPL-2.0 */
/* Scheduler statistics of a trace: per thread, per program, per CPU, per stack. */
#ifndef GOTRACE_STATS_H
#define GOTRACE_STATS_H

#include "common/table.h"
#include "gtrace.h"
#include "tracev2.h"

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

/*
 * Where the names of programs and the frames of block stacks are: the trace
 * (formats before 1.22) or a copy the reader keeps (1.22 and later, whose
 * tables last one generation).
 */
struct stats_names {
	const void *src;
	const char *(*string)(const void *src, uint64_t id, size_t *len);
	unsigned int (*stack)(const void *src, uint64_t stk, struct gt_frame *f, unsigned int max);
	void (*free)(void *src);
};

struct stats_joined;

struct stats {
	struct stats_names names;
	struct stats_joined *joined;	/* Go 1.22+: per goroutine function (stats_joined.h) */
	double ns_per_tick;
	int version;			/* e.g. 1021 */
	struct gt_table threads, progs, stacks, cpus;
	struct hist latency;
	int64_t first, last;		/* ticks */
	uint64_t events;
	bool seen;
};

/* A goroutine's state in Go 1.22+ traces (Go's GoState). */
enum { G_UND, G_NOT_EXIST, G_RUNNABLE, G_RUNNING, G_WAITING, G_SYSCALL };

/* A goroutine's transition (Go's StateTransition()): state ids, Reason string, stack. */
struct go_move {
	uint64_t g;
	uint8_t from, to;
	uint64_t reason, stk;
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
/* Takes names, clock and version from @t (formats before 1.22), then stats_event() each event. */
void stats_use_trace(struct stats *s, const struct gt_trace *t);
int stats_event(void *ctx, const struct gt_trace *t, const struct gt_event *ev);
/*
 * Reads a Go 1.22+ trace (stats_tracev2.c) as Go's trace.Reader returns it: 0, 1 when
 * out of memory, -1 with @err set for an invalid trace. @t must outlive @s.
 */
int stats_read2(struct stats *s, const struct gt2_trace *t, struct gt_error *err);

/*
 * The accounting every format feeds, at time @ts in ticks, on P @p: thread
 * @g is created runnable in program @prog (a string id), starts running (a
 * switch), stops running (runnable again, or gone: @gone), blocks for
 * @reason on stack @stk (0: none), or is woken. Each returns non-zero when
 * out of memory.
 */
struct stats_thread *stats_thread_of(struct stats *s, uint64_t g);
void stats_time(struct stats *s, int64_t ts);
int stats_create(struct stats *s, struct stats_thread *th, int64_t ts, uint64_t prog);
int stats_start(struct stats *s, struct stats_thread *th, int64_t ts, int64_t p);
int stats_stop(struct stats *s, struct stats_thread *th, int64_t ts, int64_t p, bool gone);
int stats_block(struct stats *s, struct stats_thread *th, int64_t ts, int64_t p,
		enum stats_reason reason, uint64_t stk);
int stats_wake(struct stats *s, struct stats_thread *th, int64_t ts);

/* The names and the clock, for printing. */
const char *stats_string(const struct stats *s, uint64_t id, size_t *len);
unsigned int stats_frames(const struct stats *s, uint64_t stk, struct gt_frame *f,
			  unsigned int max);
double stats_ns(const struct stats *s, int64_t ticks);

/* Closes what is still running at the end and adds threads into programs. */
int stats_finish(struct stats *s);
void stats_free(struct stats *s);
/* The @q quantile (0..1) in ns, from the bucket's lower bound. */
uint64_t hist_quantile(const struct hist *h, double q);
/* Records of @tab in an array sorted by @cmp (free() it). */
void **stats_sorted(const struct gt_table *tab, int (*cmp)(const void *, const void *),
		    size_t *n);

#endif /* GOTRACE_STATS_H */
