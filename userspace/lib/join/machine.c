// SPDX-License-Identifier: GPL-2.0
/*
 * The join's reading of MACHINE: each CPU's events merged by time, and for
 * each of APP's threads the spans it spent off its CPU, with what ran on
 * that CPU meanwhile, how long it idled, and who woke the thread.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "tracev2/internal.h"

/* The program gotrace names for a wakeup from interrupt context (Documentation/gotrace.rst). */
#define MC_INTERRUPT	"(interrupt context)"

/* Go's GoStatus and ProcStatus values. */
enum { JN_GO_RUNNING = 2, JN_PROC_RUNNING = 1, JN_PROC_SYSCALL = 3 };

/* One M (a CPU) of MACHINE's generation: its cursor and what it runs. */
struct mc_cpu {
	struct gt2_cursor c;
	int64_t p;		/* its P, the CPU's number; -1 before it has one */
	int64_t g;		/* the goroutine (thread) running, -1 for none */
	int64_t since;		/* when that run, or the idling, began (mono ns) */
	int64_t charged;	/* its open spans have been charged up to then */
};

/* A CPU in the heap, by its next event's key (mc_key()). */
struct mc_slot {
	int64_t key;
	size_t cpu;
};

/* The spans of APP's threads switched out on a P and still open, over generations. */
struct mc_popen {
	size_t *open;		/* thread index << 32 | span index */
	size_t nopen, cap;
};

struct jn_machine {
	const struct gt2_trace *t;
	struct gt2_gens gens;
	bool done;		/* its last generation is read */
	bool failed;		/* reading it failed */
	struct gt2_gen gen;
	int64_t off;		/* the generation's time to CLOCK_MONOTONIC */
	struct mc_cpu *cpus;
	size_t ncpus, cap_cpus;
	struct mc_slot *heap;	/* cpus by their next event's key */
	size_t nheap;
	struct mc_popen *popen;	/* by P */
	size_t npopen;
	struct jn_threads *th;
	struct jn_strings *strs;
	struct gt_map progs;	/* goroutine -> program (jn_strings index + 1) */
	struct gt_map gen_strs;	/* the generation's string id -> jn_strings index + 1 */
	struct gt_map gen_frames;	/* its stack id << 1 | frame -> index, UINT64_MAX none */
	int64_t first, last;	/* MACHINE's first and last event, mono ns */
	struct gt_error *err;
};

/* Which thread a MACHINE goroutine is. */
static int64_t mc_tid(uint64_t g)
{
	return (int64_t)(g % JN_TID_STRIDE);
}

/* The heap's key: time, and at one time a switch-out before a switch-in. */
static int64_t mc_key(const struct mc_cpu *c)
{
	return c->c.ev.time * 2 + (c->c.ev.type == GT2_EV_GO_START);
}

static void mc_sift_down(struct jn_machine *s, size_t i)
{
	struct mc_slot t;
	size_t l, m;

	for (;;) {
		l = 2 * i + 1;
		m = i;
		if (l < s->nheap && s->heap[l].key < s->heap[m].key)
			m = l;
		if (l + 1 < s->nheap && s->heap[l + 1].key < s->heap[m].key)
			m = l + 1;
		if (m == i)
			return;
		t = s->heap[i];
		s->heap[i] = s->heap[m];
		s->heap[m] = t;
		i = m;
	}
}

/* The jn_strings index of the generation's string @id ("" if it has none). */
static int mc_string(struct jn_machine *s, uint64_t id, uint32_t *idx)
{
	struct gt2_str str;
	uint64_t *v;
	bool added;
	char *copy;
	int64_t i;

	v = gt_map_put(&s->gen_strs, id, &added);
	if (!v)
		goto nomem;
	if (!added) {
		*idx = (uint32_t)(*v - 1);
		return 0;
	}
	if (!gt2_gen_string(&s->gen, id, &str))
		str.len = 0;
	copy = strndup(str.len ? (const char *)str.s : "", str.len);
	if (!copy)
		goto nomem;
	i = jn_string(s->strs, copy);
	free(copy);
	if (i < 0)
		goto nomem;
	*v = (uint64_t)i + 1;
	*idx = (uint32_t)i;
	return 0;
nomem:
	gt_fail(s->err, GT_OK, 0, "out of memory");
	return -1;
}

/* Frame @n (0 or 1) of stack @id, uncached: its function's jn_strings index, or none. */
static int mc_frame_read(struct jn_machine *s, uint64_t id, uint64_t n, uint64_t *v)
{
	const struct gt2_stack *st;
	const struct gt2_frame *f;
	uint32_t idx;
	bool ok;

	*v = UINT64_MAX;
	st = id ? gt2_gen_stack(&s->gen, id, &ok) : NULL;
	if (!st || n >= st->n)
		return 0;
	f = gt2_gen_frame(&s->gen, s->gen.pcs[st->first + n]);
	if (!f || mc_string(s, f->func, &idx))
		return f ? -1 : 0;
	*v = idx;
	return 0;
}

/* Frame @n's function of stack @id, as a jn_strings index; false if there is none. */
static int mc_frame(struct jn_machine *s, uint64_t id, uint64_t n, uint32_t *idx, bool *found)
{
	uint64_t *v;
	bool added;

	/* A generation's stacks are few, its switches many: each frame looked up once. */
	v = gt_map_put(&s->gen_frames, id << 1 | n, &added);
	if (!v) {
		gt_fail(s->err, GT_OK, 0, "out of memory");
		return -1;
	}
	if (added && mc_frame_read(s, id, n, v))
		return -1;
	*found = *v != UINT64_MAX;
	if (*found)
		*idx = (uint32_t)*v;
	return 0;
}

/* Remembers goroutine @g's program: frame @n of stack @id. */
static int mc_set_prog(struct jn_machine *s, uint64_t g, uint64_t id, uint64_t n)
{
	uint32_t prog;
	uint64_t *v;
	bool found;

	if (mc_frame(s, id, n, &prog, &found))
		return -1;
	if (!found)
		return 0;
	v = gt_map_put(&s->progs, g, &found);
	if (!v) {
		gt_fail(s->err, GT_OK, 0, "out of memory");
		return -1;
	}
	*v = (uint64_t)prog + 1;
	return 0;
}

static uint32_t mc_prog(const struct jn_machine *s, uint64_t g)
{
	const uint64_t *v = gt_map_get(&s->progs, g);

	return v ? (uint32_t)(*v - 1) : 0;
}

/* The span an open list's entry @k names. */
static struct jn_span *mc_open_span(struct jn_machine *s, size_t k)
{
	return &s->th->v[k >> 32].spans[k & 0xffffffff];
}

/* The open spans of @c's P (NULL if it has none yet). */
static struct mc_popen *mc_popen(struct jn_machine *s, const struct mc_cpu *c)
{
	return c->p >= 0 && (size_t)c->p < s->npopen ? &s->popen[c->p] : NULL;
}

/*
 * Charges @c's time up to @now to the spans open on its P: idling adds to
 * their idle time; a run is their longest other run if it is, so far.
 */
static void mc_charge(struct jn_machine *s, struct mc_cpu *c, int64_t now)
{
	struct mc_popen *po = mc_popen(s, c);
	struct jn_span *sp;
	int64_t from, d;
	size_t i;

	/* A generation's first event: nothing is known of the time before it. */
	for (i = 0; po && c->charged != INT64_MAX && i < po->nopen; i++) {
		sp = mc_open_span(s, po->open[i]);
		if (c->g < 0) {
			from = c->charged > sp->out ? c->charged : sp->out;
			if (now > from)
				sp->idle_ns += now - from;
			continue;
		}
		d = now - (c->since > sp->out ? c->since : sp->out);
		if (d > sp->other_ns) {
			sp->other_ns = d;
			sp->other_tid = mc_tid((uint64_t)c->g);
			sp->other_prog = mc_prog(s, (uint64_t)c->g);
		}
	}
	c->charged = now;
}

/* @c runs @g (-1: nothing) from @now on. */
static void mc_run(struct jn_machine *s, struct mc_cpu *c, int64_t g, int64_t now)
{
	mc_charge(s, c, now);
	c->g = g;
	c->since = now;
}

static struct mc_cpu *mc_cpu_of(struct jn_machine *s, int64_t cpu)
{
	size_t i;

	for (i = 0; i < s->ncpus; i++)
		if (s->cpus[i].p == cpu)
			return &s->cpus[i];
	return NULL;
}

/* Thread @g switched back in at @now: its span ends. */
static void mc_switch_in(struct jn_machine *s, uint64_t g, int64_t now)
{
	struct jn_thread *t = jn_thread_get(s->th, mc_tid(g));
	struct mc_popen *po;
	struct jn_span *sp;
	struct mc_cpu *c;
	size_t i, k;

	if (!t)
		return;
	t->seen = true;
	if (t->open < 0)
		return;
	sp = &t->spans[t->open];
	sp->in = now;
	c = mc_cpu_of(s, sp->cpu);
	if (c)
		mc_charge(s, c, now);
	k = ((size_t)(t - s->th->v) << 32) | (size_t)t->open;
	t->open = -1;
	if (sp->cpu < 0 || (size_t)sp->cpu >= s->npopen)
		return;
	po = &s->popen[sp->cpu];
	for (i = 0; i < po->nopen; i++) {
		if (po->open[i] == k) {
			po->open[i] = po->open[--po->nopen];
			break;
		}
	}
}

/* Room in s->popen for P @p. */
static bool mc_popen_grow(struct jn_machine *s, int64_t p)
{
	struct mc_popen *v;

	if ((size_t)p < s->npopen)
		return true;
	v = realloc(s->popen, (p + 1) * sizeof(*v));
	if (!v)
		return false;
	memset(v + s->npopen, 0, (p + 1 - s->npopen) * sizeof(*v));
	s->popen = v;
	s->npopen = p + 1;
	return true;
}

/* The running thread of @c switched out at @now: runnable, or blocked for @reason. */
static int mc_switch_out(struct jn_machine *s, struct mc_cpu *c, int64_t now, bool runnable,
			 uint64_t reason, uint64_t stack)
{
	struct mc_popen *po;
	int64_t g = c->g;
	struct jn_thread *t;
	struct jn_span *sp;

	if (g < 0)
		return 0;
	if (stack && mc_set_prog(s, (uint64_t)g, stack, 1))
		return -1;
	mc_run(s, c, -1, now);
	t = jn_thread_get(s->th, mc_tid((uint64_t)g));
	if (!t)
		return 0;
	t->seen = true;
	if (!gt2_grow(&t->spans, &t->cap, t->nspans, sizeof(*t->spans)))
		goto nomem;
	sp = &t->spans[t->nspans];
	memset(sp, 0, sizeof(*sp));
	sp->out = now;
	sp->in = -1;
	sp->cpu = (int32_t)c->p;
	sp->runnable = runnable;
	sp->other_tid = -1;
	sp->waker_tid = -1;
	sp->waker_cpu = -1;
	if (mc_string(s, reason, &sp->reason))
		return -1;
	t->open = (int64_t)t->nspans++;
	if (c->p < 0)
		return 0;
	if (!mc_popen_grow(s, c->p))
		goto nomem;
	po = &s->popen[c->p];
	if (!gt2_grow(&po->open, &po->cap, po->nopen, sizeof(*po->open)))
		goto nomem;
	po->open[po->nopen++] = ((size_t)(t - s->th->v) << 32) | (size_t)t->open;
	return 0;
nomem:
	gt_fail(s->err, GT_OK, 0, "out of memory");
	return -1;
}

/* @c's GoUnblock of @g with the waker's stack [reason, program]. */
static int mc_unblock(struct jn_machine *s, struct mc_cpu *c, uint64_t g, uint64_t stack)
{
	struct jn_thread *t = jn_thread_get(s->th, mc_tid(g));
	struct jn_span *sp;
	bool found;

	if (!t || t->open < 0)
		return 0;
	sp = &t->spans[t->open];
	sp->waker_cpu = (int32_t)c->p;
	if (mc_frame(s, stack, 0, &sp->waker_reason, &found) ||
	    mc_frame(s, stack, 1, &sp->waker_prog, &found))
		return -1;
	/* From interrupt context the thread that ran is not the waker. */
	if (c->g < 0 || (found && !strcmp(s->strs->s[sp->waker_prog], MC_INTERRUPT)))
		sp->waker_tid = -2;
	else
		sp->waker_tid = mc_tid((uint64_t)c->g);
	return 0;
}

/* One event of CPU @c, at @now (mono ns). */
static int mc_event(struct jn_machine *s, struct mc_cpu *c, const struct gt2_base *ev, int64_t now)
{
	switch (ev->type) {
	case GT2_EV_PROC_START:
		c->p = (int64_t)ev->args[0];
		return 0;
	case GT2_EV_PROC_STATUS:
		if (ev->args[1] == JN_PROC_RUNNING || ev->args[1] == JN_PROC_SYSCALL)
			c->p = (int64_t)ev->args[0];
		return 0;
	case GT2_EV_GO_STATUS:
	case GT2_EV_GO_STATUS_STACK:
		if (ev->type == GT2_EV_GO_STATUS_STACK && mc_set_prog(s, ev->args[0], ev->args[3], 0))
			return -1;
		if (ev->args[2] == JN_GO_RUNNING && c->g < 0)
			mc_run(s, c, (int64_t)ev->args[0], now);
		return 0;
	case GT2_EV_GO_CREATE:
		return mc_set_prog(s, ev->args[0], ev->args[1], 0);
	case GT2_EV_GO_START:
		mc_switch_in(s, ev->args[0], now);
		mc_run(s, c, (int64_t)ev->args[0], now);
		return 0;
	case GT2_EV_GO_STOP:
	case GT2_EV_GO_BLOCK:
		return mc_switch_out(s, c, now, ev->type == GT2_EV_GO_STOP, ev->args[0],
				     ev->args[1]);
	case GT2_EV_GO_DESTROY:
		mc_run(s, c, -1, now);
		return 0;
	case GT2_EV_GO_UNBLOCK:
		return mc_unblock(s, c, ev->args[0], ev->args[2]);
	}
	return 0;
}

/* The generation's CPUs, each at its first event, in the heap. */
static int mc_gen_start(struct jn_machine *s)
{
	struct mc_cpu *c;
	size_t i;
	int k;

	for (i = 0; i < s->gen.nms; i++) {
		if (i == s->ncpus) {
			if (!gt2_grow(&s->cpus, &s->cap_cpus, s->ncpus, sizeof(*s->cpus)))
				goto nomem;
			memset(&s->cpus[s->ncpus++], 0, sizeof(*s->cpus));
		}
		c = &s->cpus[i];
		c->c.m = s->gen.ms[i].m;
		c->p = -1;
		c->g = -1;
		c->since = INT64_MAX;
		c->charged = INT64_MAX;
		if (gt2_cursor_enter(s->t, &s->gen, &c->c, s->gen.ms[i].first, s->err))
			return -1;
		k = gt2_cursor_next(s->t, &s->gen, &c->c, s->err);
		if (k < 0)
			return -1;
		if (k)
			s->heap[s->nheap++] = (struct mc_slot){ mc_key(c), i };
	}
	for (i = s->nheap / 2; i-- > 0;)
		mc_sift_down(s, i);
	return 0;
nomem:
	gt_fail(s->err, GT_OK, 0, "out of memory");
	return -1;
}

/* Every event of the generation, by time. */
static int mc_gen(struct jn_machine *s)
{
	struct mc_cpu *c;
	int64_t now;
	int k;

	s->off = jn_mono_off(&s->gen, false);
	gt_map_free(&s->gen_strs);
	gt_map_init(&s->gen_strs);
	gt_map_free(&s->gen_frames);
	gt_map_init(&s->gen_frames);
	free(s->heap);
	s->heap = calloc(s->gen.nms + 1, sizeof(*s->heap));
	s->nheap = 0;
	if (!s->heap) {
		gt_fail(s->err, GT_OK, 0, "out of memory");
		return -1;
	}
	if (mc_gen_start(s))
		return -1;
	while (s->nheap) {
		c = &s->cpus[s->heap[0].cpu];
		now = c->c.ev.time + s->off;
		if (now < s->first)
			s->first = now;
		s->last = now;
		if (mc_event(s, c, &c->c.ev, now))
			return -1;
		k = gt2_cursor_next(s->t, &s->gen, &c->c, s->err);
		if (k < 0)
			return -1;
		if (!k)
			s->heap[0] = s->heap[--s->nheap];
		else
			s->heap[0].key = mc_key(c);
		mc_sift_down(s, 0);
	}
	return 0;
}

struct jn_machine *jn_machine_open(const struct gt2_trace *machine, struct jn_threads *th,
				   struct jn_strings *strs, struct gt_error *err)
{
	struct jn_machine *s = calloc(1, sizeof(*s));
	size_t i;

	if (!s) {
		gt_fail(err, GT_OK, 0, "out of memory");
		return NULL;
	}
	s->t = machine;
	s->gens.t = machine;
	s->gens.pos = machine->start;
	s->th = th;
	s->strs = strs;
	s->err = err;
	s->first = INT64_MAX;
	s->last = INT64_MIN;
	gt_map_init(&s->progs);
	gt_map_init(&s->gen_strs);
	gt_map_init(&s->gen_frames);
	for (i = 0; i < th->len; i++)
		th->v[i].open = -1;
	/* Index 0, what a span names when MACHINE did not say: "?". */
	if (jn_string(strs, "?") != 0) {
		jn_machine_close(s);
		gt_fail(err, GT_OK, 0, "out of memory");
		return NULL;
	}
	return s;
}

int jn_machine_until(struct jn_machine *s, int64_t t)
{
	int k;

	while (!s->done && s->last < t) {
		s->failed = true;
		k = jn_gen_next(&s->gens, &s->gen, s->err);
		if (k < 0)
			return -1;
		if (!k) {
			s->done = true;
			break;
		}
		if (!s->gen.has_snap) {
			gt_fail(s->err, GT_ERR_PARSE, s->gen.off,
				"its generation %llu has no clock snapshot to map its time to CLOCK_MONOTONIC: record it with gotrace record --format 1.26 --clock mono",
				(unsigned long long)s->gen.gen);
			return -1;
		}
		if (mc_gen(s))
			return -1;
		s->failed = false;
	}
	s->failed = false;
	return 0;
}

bool jn_machine_failed(const struct jn_machine *s)
{
	return s && s->failed;
}

void jn_machine_range(const struct jn_machine *s, int64_t *first, int64_t *last, bool *done)
{
	*first = s->first;
	*last = s->last;
	*done = s->done;
}

void jn_machine_drop(struct jn_machine *s, struct jn_thread *t, size_t n)
{
	size_t ti = (size_t)(t - s->th->v), i, j;
	struct mc_popen *po;
	size_t keep = 0;

	if (!n)
		return;
	/* An open span among them stays, first: MACHINE charges it still. */
	if (t->open >= 0 && (size_t)t->open < n) {
		t->spans[0] = t->spans[t->open];
		keep = 1;
	}
	memmove(t->spans + keep, t->spans + n, (t->nspans - n) * sizeof(*t->spans));
	t->nspans -= n - keep;
	if (t->open < 0)
		return;
	t->open = keep ? 0 : t->open - (int64_t)n;
	/* Its entry in its P's list names it by index. */
	for (i = 0; i < s->npopen; i++) {
		po = &s->popen[i];
		for (j = 0; j < po->nopen; j++)
			if (po->open[j] >> 32 == ti)
				po->open[j] = (ti << 32) | (size_t)t->open;
	}
}

void jn_machine_close(struct jn_machine *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->ncpus; i++)
		free(s->cpus[i].c.buf);
	for (i = 0; i < s->npopen; i++)
		free(s->popen[i].open);
	free(s->popen);
	free(s->cpus);
	free(s->heap);
	gt_map_free(&s->progs);
	gt_map_free(&s->gen_strs);
	gt_map_free(&s->gen_frames);
	gt2_gen_free(&s->gen);
	free(s);
}
