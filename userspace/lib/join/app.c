// SPDX-License-Identifier: GPL-2.0
/*
 * The join's reading of APP: each M's events in its batches' order, the
 * goroutine it runs after each, and for each span MACHINE had the thread
 * off its CPU while it ran one, the region (and its log) to insert between
 * the two events of M around the span.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "tracev2/internal.h"

/* Go's GoStatus values of a goroutine on an M. */
enum { AP_GO_RUNNING = 2, AP_GO_SYSCALL = 3 };

struct ap_state {
	const struct gt2_trace *t;
	struct gt2_gen gen;
	int64_t off;		/* the generation's time to CLOCK_MONOTONIC */
	struct gt2_cursor c;
	struct jn_threads *th;
	struct jn_strings *strs;
	struct jn_insert *ins;
	size_t nins, cap;
	struct gt_join_stats *st;
	int64_t from;		/* APP's first batch, mono ns */
	int64_t first, last;	/* APP's first and last event, mono ns */
	uint32_t key;		/* "kernel", the logs' category */
	struct gt_error *err;
};

/* What M is doing after an event: the goroutine it runs, and whether in a system call. */
struct ap_m {
	int64_t g;		/* -1: none */
	bool syscall;
	uint64_t off;		/* the event */
	int64_t time;		/* its time, mono ns */
	bool have;		/* an event of M's in this generation is behind */
};

static int ap_nomem(struct ap_state *s)
{
	gt_fail(s->err, GT_OK, 0, "out of memory");
	return -1;
}

static int ap_intern(struct ap_state *s, const char *str, uint32_t *idx)
{
	int64_t i = jn_string(s->strs, str);

	if (i < 0)
		return ap_nomem(s);
	*idx = (uint32_t)i;
	return 0;
}

/* APP's ticks of @mono, between @lo and @hi (mono ns). */
static uint64_t ap_ticks(const struct ap_state *s, int64_t mono, int64_t lo, int64_t hi)
{
	if (mono < lo)
		mono = lo;
	if (mono > hi)
		mono = hi;
	return (uint64_t)((double)(mono - s->off) / s->gen.freq + 0.5);
}

static int ap_insert(struct ap_state *s, const struct ap_m *m, uint64_t ts, uint8_t type,
		     uint32_t str, uint32_t str2)
{
	struct jn_insert *in;

	if (!gt2_grow(&s->ins, &s->cap, s->nins, sizeof(*s->ins)))
		return ap_nomem(s);
	in = &s->ins[s->nins++];
	in->after = m->off;
	in->ts = ts;
	in->type = type;
	in->str = str;
	in->str2 = str2;
	return 0;
}

/* The kind of region span @sp is, for a goroutine in a system call or not. */
static enum gt_join_kind ap_kind(const struct jn_span *sp, bool syscall)
{
	if (!sp->runnable)
		return syscall ? GT_JOIN_SYSCALL : GT_JOIN_BLOCKED;
	/* Its CPU idled most of the wait: the cgroup's quota kept it off. */
	if (sp->idle_ns * 2 > sp->in - sp->out)
		return GT_JOIN_THROTTLED;
	return GT_JOIN_CPU_WAIT;
}

/* The region's type and its log's message for @sp, as jn_strings indices. */
static int ap_texts(struct ap_state *s, const struct jn_span *sp, enum gt_join_kind kind,
		    uint32_t *type, uint32_t *msg)
{
	const char *const *str = (const char *const *)s->strs->s;
	char buf[256];

	if (kind == GT_JOIN_BLOCKED || kind == GT_JOIN_SYSCALL)
		snprintf(buf, sizeof(buf), "%s %s", gt_join_kind_name(kind), str[sp->reason]);
	else
		snprintf(buf, sizeof(buf), "%s", gt_join_kind_name(kind));
	if (ap_intern(s, buf, type))
		return -1;
	if (sp->runnable && sp->other_tid >= 0)
		snprintf(buf, sizeof(buf), "ran instead on CPU %d: %s [%" PRId64 "]", sp->cpu,
			 str[sp->other_prog], sp->other_tid);
	else if (sp->runnable)
		snprintf(buf, sizeof(buf), "nothing ran instead on CPU %d", sp->cpu);
	else if (sp->waker_tid == -2)
		snprintf(buf, sizeof(buf), "woken by an interrupt (%s) on CPU %d",
			 str[sp->waker_reason], sp->waker_cpu);
	else if (sp->waker_tid >= 0)
		snprintf(buf, sizeof(buf), "woken by %s [%" PRId64 "] (%s) on CPU %d",
			 str[sp->waker_prog], sp->waker_tid, str[sp->waker_reason],
			 sp->waker_cpu);
	else
		snprintf(buf, sizeof(buf), "woken: not seen in MACHINE");
	return ap_intern(s, buf, msg);
}

/* The region for span @sp, clipped to before M's next event at @next. */
static int ap_region(struct ap_state *s, const struct ap_m *m, const struct jn_span *sp,
		     int64_t next)
{
	enum gt_join_kind kind = ap_kind(sp, m->syscall);
	int64_t end = sp->in < next ? sp->in : next;
	uint64_t b, e;
	uint32_t type, msg;

	if (end <= sp->out)
		return 0;
	if (ap_texts(s, sp, kind, &type, &msg))
		return -1;
	b = ap_ticks(s, sp->out, m->time, next);
	e = ap_ticks(s, end, m->time, next);
	s->st->regions[kind]++;
	s->st->region_ns[kind] += end - sp->out;
	return ap_insert(s, m, b, GT2_EV_USER_REGION_BEGIN, type, 0) ||
	       ap_insert(s, m, b, GT2_EV_USER_LOG, s->key, msg) ||
	       ap_insert(s, m, e, GT2_EV_USER_REGION_END, type, 0);
}

/* The spans of @t that start before M's event at @next: regions, or counted out. */
static int ap_gap(struct ap_state *s, const struct ap_m *m, struct jn_thread *t, int64_t next)
{
	const struct jn_span *sp;

	for (; t->next < t->nspans && t->spans[t->next].out < next; t->next++) {
		sp = &t->spans[t->next];
		if (sp->out < s->from)
			continue;	/* before APP's time */
		if (!m->have && !t->busy)
			continue;	/* M ran nothing since its last generation */
		if (!m->have || sp->in < 0) {
			/* Between generations with a goroutine, or it never came back. */
			s->st->unjoined++;
			continue;
		}
		if (m->g < 0)
			continue;	/* M ran no goroutine: Go's own idling */
		if (ap_region(s, m, sp, next))
			return -1;
	}
	return 0;
}

/* M's state after event @ev of its own batches. */
static void ap_step(struct ap_m *m, int64_t self, const struct gt2_base *ev)
{
	switch (ev->type) {
	case GT2_EV_GO_STATUS:
	case GT2_EV_GO_STATUS_STACK:
		if ((int64_t)ev->args[1] == self &&
		    (ev->args[2] == AP_GO_RUNNING || ev->args[2] == AP_GO_SYSCALL)) {
			m->g = (int64_t)ev->args[0];
			m->syscall = ev->args[2] == AP_GO_SYSCALL;
		}
		break;
	case GT2_EV_GO_START:
	case GT2_EV_GO_SWITCH:
	case GT2_EV_GO_SWITCH_DESTROY:
		m->g = (int64_t)ev->args[0];
		m->syscall = false;
		break;
	case GT2_EV_GO_CREATE_SYSCALL:
		m->g = (int64_t)ev->args[0];
		m->syscall = true;
		break;
	case GT2_EV_GO_STOP:
	case GT2_EV_GO_BLOCK:
	case GT2_EV_GO_DESTROY:
	case GT2_EV_GO_DESTROY_SYSCALL:
	case GT2_EV_GO_SYSCALL_END_BLOCKED:
		m->g = -1;
		m->syscall = false;
		break;
	case GT2_EV_GO_SYSCALL_BEGIN:
		m->syscall = true;
		break;
	case GT2_EV_GO_SYSCALL_END:
		m->syscall = false;
		break;
	}
}

/* Every event of the generation's M @i, and the regions between them. */
static int ap_m(struct ap_state *s, size_t i, struct ap_m *m)
{
	int64_t self = s->gen.ms[i].m, now;
	struct jn_thread *t = jn_thread_get(s->th, self);
	int k;

	m->have = false;
	if (gt2_cursor_enter(s->t, &s->gen, &s->c, s->gen.ms[i].first, s->err))
		return -1;
	while ((k = gt2_cursor_next(s->t, &s->gen, &s->c, s->err)) > 0) {
		now = s->c.ev.time + s->off;
		if (now < s->first)
			s->first = now;
		if (now > s->last)
			s->last = now;
		if (t && ap_gap(s, m, t, now))
			return -1;
		ap_step(m, self, &s->c.ev);
		m->off = s->c.ev.off;
		m->time = now;
		m->have = true;
		if (t)
			t->busy = m->g >= 0;
	}
	return k;
}

/* Inserts in file order; those after one event in the order they were made. */
static int ap_sort(struct ap_state *s)
{
	struct jn_insert *sorted;
	size_t *idx, i;

	idx = malloc((s->nins + 1) * sizeof(*idx));
	sorted = malloc((s->nins + 1) * sizeof(*sorted));
	if (!idx || !sorted) {
		free(idx);
		free(sorted);
		return ap_nomem(s);
	}
	for (i = 0; i < s->nins; i++)
		idx[i] = i;
	jn_sort_inserts(s->ins, idx, s->nins);
	for (i = 0; i < s->nins; i++)
		sorted[i] = s->ins[idx[i]];
	free(idx);
	free(s->ins);
	s->ins = sorted;
	return 0;
}

int jn_app_plan(const struct gt2_trace *app, struct jn_threads *th, struct jn_strings *strs,
		struct gt_join_stats *st, int64_t *first, int64_t *last,
		struct jn_insert **ins, size_t *nins, struct gt_error *err)
{
	struct gt2_gens gens = { .t = app, .pos = app->start };
	struct ap_state s = { .t = app, .th = th, .strs = strs, .st = st, .err = err,
			      .from = *first, .first = INT64_MAX, .last = INT64_MIN };
	struct ap_m m;
	size_t i;
	int k;

	if (ap_intern(&s, "kernel", &s.key))
		return -1;
	while ((k = jn_gen_next(&gens, &s.gen, err)) > 0) {
		s.off = jn_mono_off(&s.gen, true);
		for (i = 0; i < s.gen.nms; i++) {
			memset(&m, 0, sizeof(m));
			m.g = -1;
			if (ap_m(&s, i, &m) < 0) {
				k = -1;
				break;
			}
		}
		if (k < 0)
			break;
	}
	free(s.c.buf);
	gt2_gen_free(&s.gen);
	if (k < 0 || ap_sort(&s)) {
		free(s.ins);
		return -1;
	}
	*first = s.first;
	*last = s.last;
	*ins = s.ins;
	*nins = s.nins;
	return 0;
}
