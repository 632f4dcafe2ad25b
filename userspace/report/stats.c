// SPDX-License-Identifier: GPL-2.0
/*
 * Scheduler statistics from the events of a valid trace: for each thread
 * (goroutine) the time running, runnable and blocked by reason, and its
 * switches; wakeup-to-run latency; busy time per CPU (P); blocked time per
 * blocking stack. Memory grows with threads, programs, stacks and CPUs.
 */
#include <stdlib.h>
#include <string.h>

#include "report/stats.h"
#include "report/stats_joined.h"

const char *const stats_reasons[NR_REASONS] = { "sync", "net", "syscall", "sleep", "other" };

enum { T_NONE, T_RUNNABLE, T_RUNNING, T_BLOCKED };

void stats_init(struct stats *s)
{
	memset(s, 0, sizeof(*s));
	gt_table_init(&s->threads, sizeof(struct stats_thread));
	gt_table_init(&s->progs, sizeof(struct stats_prog));
	gt_table_init(&s->stacks, sizeof(struct stats_stack));
	gt_table_init(&s->cpus, sizeof(struct stats_cpu));
}

void stats_free(struct stats *s)
{
	if (s->names.free)
		s->names.free((void *)s->names.src);
	stats_joined_free(s->joined);
	gt_table_free(&s->threads);
	gt_table_free(&s->progs);
	gt_table_free(&s->stacks);
	gt_table_free(&s->cpus);
}

static unsigned int hist_index(uint64_t v)
{
	unsigned int e;

	if (v < 64)
		return (unsigned int)v;
	e = 63 - (unsigned int)__builtin_clzll(v);
	return 64 + (e - 6) * 32 + (unsigned int)((v >> (e - 5)) & 31);
}

static uint64_t hist_value(unsigned int i)
{
	unsigned int e;

	if (i < 64)
		return i;
	e = (i - 64) / 32 + 6;
	return (1ULL << e) | (uint64_t)((i - 64) % 32) << (e - 5);
}

static void hist_add(struct hist *h, uint64_t v)
{
	h->bucket[hist_index(v)]++;
	h->count++;
	if (v > h->max)
		h->max = v;
}

uint64_t hist_quantile(const struct hist *h, double q)
{
	uint64_t want = (uint64_t)(q * (double)h->count), seen = 0;
	unsigned int i;

	for (i = 0; i < HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen > want)
			return hist_value(i) < h->max ? hist_value(i) : h->max;
	}
	return h->max;
}

const char *stats_string(const struct stats *s, uint64_t id, size_t *len)
{
	return s->names.string(s->names.src, id, len);
}

unsigned int stats_frames(const struct stats *s, uint64_t stk, struct gt_frame *f,
			  unsigned int max)
{
	return s->names.stack(s->names.src, stk, f, max);
}

double stats_ns(const struct stats *s, int64_t ticks)
{
	return (double)ticks * s->ns_per_tick;
}

static const char *trace_string(const void *src, uint64_t id, size_t *len)
{
	return gt_string(src, id, len);
}

static unsigned int trace_stack(const void *src, uint64_t stk, struct gt_frame *f,
				unsigned int max)
{
	return gt_stack(src, stk, f, max);
}

void stats_use_trace(struct stats *s, const struct gt_trace *t)
{
	s->names.src = t;
	s->names.string = trace_string;
	s->names.stack = trace_stack;
	s->ns_per_tick = gt_ticks_ns(t, 1);
	s->version = gt_version(t);
}

/*
 * Whether @stk's first frame is one gotrace writes for a wait outside any
 * system call, which it records as GoSleep (Go's viewers then say "sleep").
 */
static bool kernel_wait(const struct stats *s, uint64_t stk)
{
	struct gt_frame f;
	const char *fn;
	size_t len;

	if (!stats_frames(s, stk, &f, 1))
		return false;
	fn = stats_string(s, f.fn, &len);
	return fn && ((len == 11 && !memcmp(fn, "kernel wait", 11)) ||
		      (len == 25 && !memcmp(fn, "page fault or kernel wait", 25)));
}

static enum stats_reason reason_of(const struct stats *s, unsigned int type, uint64_t stk)
{
	switch (type) {
	case GT_EV_GO_BLOCK_SEND:
	case GT_EV_GO_BLOCK_RECV:
	case GT_EV_GO_BLOCK_SELECT:
	case GT_EV_GO_BLOCK_SYNC:
	case GT_EV_GO_BLOCK_COND:
		return R_SYNC;
	case GT_EV_GO_BLOCK_NET:
		return R_NET;
	case GT_EV_GO_SYSBLOCK:
	case GT_EV_GO_IN_SYSCALL:
		return R_SYSCALL;
	case GT_EV_GO_SLEEP:
		return kernel_wait(s, stk) ? R_OTHER : R_SLEEP;
	}
	return R_OTHER;
}

/* The program of a new thread: the function of its create stack's first frame. */
static uint64_t program_of(const struct gt_trace *t, uint64_t stk)
{
	struct gt_frame f;

	return gt_stack(t, stk, &f, 1) ? f.fn : 0;
}

struct stats_thread *stats_thread_of(struct stats *s, uint64_t g)
{
	struct stats_thread *th = gt_table_add(&s->threads, g);

	if (th)
		th->g = g;
	return th;
}

void stats_time(struct stats *s, int64_t ts)
{
	s->events++;
	if (!s->seen || ts < s->first)
		s->first = ts;
	if (!s->seen || ts > s->last)
		s->last = ts;
	s->seen = true;
}

/* Ends the thread's current interval at @ts and starts @state. */
static int move(struct stats *s, struct stats_thread *th, int64_t ts, uint8_t state)
{
	int64_t d = ts - th->since;
	struct stats_stack *st;

	if (th->state == T_RUNNING)
		th->run += d;
	else if (th->state == T_RUNNABLE)
		th->runnable += d;
	else if (th->state == T_BLOCKED)
		th->blocked[th->reason] += d;
	if (th->state == T_BLOCKED && th->block_stk) {
		st = gt_table_add(&s->stacks, th->block_stk);
		if (!st)
			return 1;
		st->stk = th->block_stk;
		st->blocked += d;
		st->count++;
		st->reason = th->reason;
	}
	th->state = state;
	th->since = ts;
	return 0;
}

/* P @p runs thread @g from @ts on, or (@g 0) nothing. */
static int cpu_switch(struct stats *s, int64_t p, int64_t ts, uint64_t g)
{
	struct stats_cpu *c = gt_table_add(&s->cpus, (uint64_t)p);

	if (!c)
		return 1;
	c->p = p;
	if (c->g)
		c->busy += ts - c->since;
	c->g = g;
	c->since = ts;
	return 0;
}

int stats_create(struct stats *s, struct stats_thread *th, int64_t ts, uint64_t prog)
{
	th->prog = prog;
	return move(s, th, ts, T_RUNNABLE);
}

int stats_start(struct stats *s, struct stats_thread *th, int64_t ts, int64_t p)
{
	struct stats_prog *pr;
	uint64_t ns;

	if (th->woken) {
		pr = gt_table_add(&s->progs, th->prog);
		if (!pr)
			return 1;
		pr->prog = th->prog;
		ns = (uint64_t)stats_ns(s, ts - th->wake);
		hist_add(&s->latency, ns);
		hist_add(&pr->latency, ns);
		th->woken = false;
	}
	th->switches++;
	return move(s, th, ts, T_RUNNING) || cpu_switch(s, p, ts, th->g);
}

int stats_stop(struct stats *s, struct stats_thread *th, int64_t ts, int64_t p, bool gone)
{
	return cpu_switch(s, p, ts, 0) || move(s, th, ts, gone ? T_NONE : T_RUNNABLE);
}

int stats_wake(struct stats *s, struct stats_thread *th, int64_t ts)
{
	th->woken = true;
	th->wake = ts;
	return move(s, th, ts, T_RUNNABLE);
}

int stats_block(struct stats *s, struct stats_thread *th, int64_t ts, int64_t p,
		enum stats_reason reason, uint64_t stk)
{
	int r = th->state == T_RUNNING && cpu_switch(s, p, ts, 0);

	th->reason = (uint8_t)reason;
	th->block_stk = stk;
	return r || move(s, th, ts, T_BLOCKED);
}

static int block(struct stats *s, struct stats_thread *th, const struct gt_event *ev,
		 uint64_t stk)
{
	return stats_block(s, th, ev->ts, ev->p, reason_of(s, ev->type, stk), stk);
}

static int thread_event(struct stats *s, struct stats_thread *th, const struct gt_event *ev)
{
	switch (ev->type) {
	case GT_EV_GO_START:
	case GT_EV_GO_START_LABEL:
		return stats_start(s, th, ev->ts, ev->p);
	case GT_EV_GO_SCHED:
	case GT_EV_GO_PREEMPT:
		return stats_stop(s, th, ev->ts, ev->p, false);
	case GT_EV_GO_END:
	case GT_EV_GO_STOP:
		return stats_stop(s, th, ev->ts, ev->p, true);
	case GT_EV_GO_SYSCALL:
		th->sys_stk = ev->stk;
		return 0;
	case GT_EV_GO_SYSBLOCK:
		return block(s, th, ev, th->sys_stk);
	case GT_EV_GO_WAITING:
	case GT_EV_GO_IN_SYSCALL:
	case GT_EV_GO_SLEEP:
	case GT_EV_GO_BLOCK:
	case GT_EV_GO_BLOCK_SEND ... GT_EV_GO_BLOCK_NET:
	case GT_EV_GO_BLOCK_GC:
		return block(s, th, ev, ev->stk);
	case GT_EV_GO_SYSEXIT:
		return stats_wake(s, th, ev->ts);
	}
	return 0;
}

int stats_event(void *ctx, const struct gt_trace *t, const struct gt_event *ev)
{
	struct stats *s = ctx;
	struct stats_thread *th;

	stats_time(s, ev->ts);
	if (ev->type == GT_EV_GO_CREATE || ev->type == GT_EV_GO_UNBLOCK) {
		th = stats_thread_of(s, ev->args[0]);
		if (!th)
			return 1;
		if (ev->type == GT_EV_GO_UNBLOCK)
			return stats_wake(s, th, ev->ts);
		return stats_create(s, th, ev->ts, program_of(t, ev->args[1]));
	}
	if (!ev->g)
		return 0;
	th = stats_thread_of(s, ev->g);
	return th ? thread_event(s, th, ev) : 1;
}

struct finish {
	struct stats *s;
	int err;
};

static void finish_thread(void *rec, uint64_t key, void *ctx)
{
	struct finish *f = ctx;
	struct stats_thread *th = rec;
	struct stats_prog *p;
	int i;

	(void)key;
	if (move(f->s, th, f->s->last, T_NONE))
		f->err = 1;
	p = gt_table_add(&f->s->progs, th->prog);
	if (!p) {
		f->err = 1;
		return;
	}
	p->prog = th->prog;
	p->threads++;
	p->run += th->run;
	p->runnable += th->runnable;
	for (i = 0; i < NR_REASONS; i++)
		p->blocked[i] += th->blocked[i];
	p->switches += th->switches;
}

static void finish_cpu(void *rec, uint64_t key, void *ctx)
{
	struct stats_cpu *c = rec;
	struct stats *s = ctx;

	(void)key;
	if (c->g)
		c->busy += s->last - c->since;
	c->g = 0;
}

int stats_finish(struct stats *s)
{
	struct finish f = { s, 0 };

	gt_table_each(&s->threads, finish_thread, &f);
	gt_table_each(&s->cpus, finish_cpu, s);
	if (s->joined && stats_joined_finish(s->joined, s->last))
		f.err = 1;
	return f.err;
}

struct collect {
	void **v;
	size_t n;
};

static void collect(void *rec, uint64_t key, void *ctx)
{
	struct collect *c = ctx;

	(void)key;
	c->v[c->n++] = rec;
}

void **stats_sorted(const struct gt_table *tab, int (*cmp)(const void *, const void *),
		    size_t *n)
{
	struct collect c = { calloc(tab->index.len + 1, sizeof(void *)), 0 };

	if (!c.v)
		return NULL;
	gt_table_each(tab, collect, &c);
	qsort(c.v, c.n, sizeof(*c.v), cmp);
	*n = c.n;
	return c.v;
}
