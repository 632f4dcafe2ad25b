// SPDX-License-Identifier: GPL-2.0
/*
 * gt_join_threads(): the join the other way round. MACHINE, whose rows are
 * threads, gets a region on each of APP's threads for every run of a
 * goroutine there ("go: FUNCTION", a log naming the goroutine), so that
 * Go's pages show which Go code ran on which thread beside what the kernel
 * did to the thread.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "tracev2/internal.h"

/* A goroutine's run on an APP thread, and where its region goes in MACHINE. */
struct th_run {
	int64_t g;
	int64_t start, end;		/* mono ns */
	uint64_t begin_after, end_after;	/* MACHINE events; 0: not placed yet */
	uint64_t begin_ts, end_ts;	/* MACHINE ticks */
};

/* One of APP's threads: its runs by time. */
struct th_thread {
	struct th_run *runs;
	size_t len, cap;
	int64_t g;			/* the goroutine it runs at its last event, -1 none */
	bool syscall;
	int64_t last;			/* that event's time */
};

struct th_state {
	const struct gt2_trace *t;
	struct gt2_gen gen;
	struct gt2_cursor c;
	int64_t off;
	int64_t prev_last;		/* MACHINE: the last event of the generations before */
	int64_t last;			/* MACHINE: the last event so far */
	int64_t app_first, app_last;	/* APP's first and last event */
	const struct jn_threads *th;
	struct th_thread *v;		/* by index in th->v */
	struct gt_map names;		/* goroutine -> its region type (jn_strings index + 1) */
	struct jn_strings *strs;
	struct gt_error *err;
};

static int th_nomem(struct th_state *s)
{
	gt_fail(s->err, GT_OK, 0, "out of memory");
	return -1;
}

/* The function of frame @outer (0: innermost, 1: outermost) of stack @id, or NULL. */
static bool th_frame(const struct gt2_gen *g, uint64_t id, bool outer, struct gt2_str *fn)
{
	const struct gt2_stack *st;
	const struct gt2_frame *f;
	bool ok;

	st = id ? gt2_gen_stack(g, id, &ok) : NULL;
	if (!st || !st->n)
		return false;
	f = gt2_gen_frame(g, g->pcs[st->first + (outer ? st->n - 1 : 0)]);
	return f && gt2_gen_string(g, f->func, fn) && fn->len;
}

/* Names goroutine @g after function @fn, unless it has a name. */
static int th_name(struct th_state *s, int64_t g, const struct gt2_str *fn)
{
	char buf[300];
	uint64_t *v;
	bool added;
	int64_t i;

	v = gt_map_put(&s->names, (uint64_t)g, &added);
	if (!v)
		return th_nomem(s);
	if (!added)
		return 0;
	snprintf(buf, sizeof(buf), "go: %.*s", (int)(fn->len < 250 ? fn->len : 250),
		 (const char *)fn->s);
	i = jn_string(s->strs, buf);
	if (i < 0)
		return th_nomem(s);
	*v = (uint64_t)i + 1;
	return 0;
}

/*
 * A goroutine's name, as Go's goroutine page has it: the function its
 * GoCreate's start stack begins in, else the outermost frame of the first
 * stack of its blocking (a preemption's stack ends in the signal handler).
 */
static int th_learn(struct th_state *s, int64_t g, const struct gt2_base *ev)
{
	struct gt2_str fn;

	switch (ev->type) {
	case GT2_EV_GO_CREATE:
	case GT2_EV_GO_CREATE_BLOCKED:
		if (th_frame(&s->gen, ev->args[1], false, &fn))
			return th_name(s, (int64_t)ev->args[0], &fn);
		return 0;
	case GT2_EV_GO_STATUS_STACK:
		if (th_frame(&s->gen, ev->args[3], true, &fn))
			return th_name(s, (int64_t)ev->args[0], &fn);
		return 0;
	case GT2_EV_GO_BLOCK:
	case GT2_EV_GO_SYSCALL_BEGIN:
		if (g >= 0 && th_frame(&s->gen, ev->args[1], true, &fn))
			return th_name(s, g, &fn);
		return 0;
	}
	return 0;
}

static int th_open(struct th_state *s, struct th_thread *t, int64_t g, int64_t now)
{
	struct th_run *r;

	if (!gt2_grow(&t->runs, &t->cap, t->len, sizeof(*t->runs)))
		return th_nomem(s);
	r = &t->runs[t->len++];
	memset(r, 0, sizeof(*r));
	r->g = g;
	r->start = now;
	r->end = -1;
	return 0;
}

/* APP's M @i of the generation: its runs, carried on from its last generation. */
static int th_app_m(struct th_state *s, size_t i)
{
	int64_t self = s->gen.ms[i].m, before, now;
	const struct jn_thread *jt = jn_thread_get(s->th, self);
	struct th_thread *t;
	int k;

	if (!jt)
		return 0;
	t = &s->v[jt - s->th->v];
	if (gt2_cursor_enter(s->t, &s->gen, &s->c, s->gen.ms[i].first, s->err))
		return -1;
	while ((k = gt2_cursor_next(s->t, &s->gen, &s->c, s->err)) > 0) {
		now = s->c.ev.time + s->off;
		if (now < s->app_first)
			s->app_first = now;
		if (now > s->app_last)
			s->app_last = now;
		before = t->g;
		if (th_learn(s, before, &s->c.ev))
			return -1;
		jn_m_step(&t->g, &t->syscall, self, &s->c.ev);
		if (before != t->g && before >= 0)
			t->runs[t->len - 1].end = now;
		if (before != t->g && t->g >= 0 && th_open(s, t, t->g, now))
			return -1;
		t->last = now;
	}
	return k;
}

/* Every run of a goroutine on each of APP's threads. */
static int th_app_runs(struct th_state *s)
{
	struct gt2_gens gens = { .t = s->t, .pos = s->t->start };
	size_t i;
	int k;

	for (i = 0; i < s->th->len; i++)
		s->v[i].g = -1;
	while ((k = jn_gen_next(&gens, &s->gen, s->err)) > 0) {
		s->off = jn_mono_off(&s->gen, true);
		for (i = 0; i < s->gen.nms; i++)
			if (th_app_m(s, i) < 0)
				return -1;
	}
	/* A run still going at APP's end ends at its thread's last event. */
	for (i = 0; i < s->th->len; i++)
		if (s->v[i].len && s->v[i].runs[s->v[i].len - 1].end < 0)
			s->v[i].runs[s->v[i].len - 1].end = s->v[i].last;
	return k;
}

/* MACHINE's ticks of @mono, between those of @lo and @hi (mono ns). */
static uint64_t th_ticks(const struct th_state *s, int64_t mono, int64_t lo, int64_t hi)
{
	uint64_t t = (uint64_t)((double)(mono - s->off) / s->gen.freq + 0.5);
	uint64_t a = (uint64_t)((double)(lo - s->off) / s->gen.freq + 0.5);
	uint64_t b = (uint64_t)((double)(hi - s->off) / s->gen.freq + 0.5);

	return t < a ? a : t > b ? b : t;
}

/* The runs of @t with an edge in [@from, @to], MACHINE's @after event of a CPU running it. */
static void th_place(struct th_state *s, struct th_thread *t, int64_t from, int64_t to,
		     uint64_t after)
{
	size_t lo = 0, hi = t->len, mid;
	struct th_run *r;

	/* The first run that ends at @from or later. */
	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (t->runs[mid].end < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < t->len && t->runs[lo].start <= to; lo++) {
		r = &t->runs[lo];
		/* Go would move what is before the last generation's last event. */
		if (r->start < s->prev_last)
			continue;
		if (!r->begin_after && r->start >= from) {
			r->begin_after = after;
			r->begin_ts = th_ticks(s, r->start, from, to);
		}
		if (!r->end_after && r->end >= from && r->end <= to) {
			r->end_after = after;
			r->end_ts = th_ticks(s, r->end, from, to);
		}
	}
}

/* MACHINE's CPU @i of the generation: where APP's runs fall while it runs their thread. */
static int th_machine_cpu(struct th_state *s, size_t i)
{
	const struct jn_thread *jt = NULL;
	int64_t from = 0, now;
	uint64_t after = 0;
	int k;

	if (gt2_cursor_enter(s->t, &s->gen, &s->c, s->gen.ms[i].first, s->err))
		return -1;
	while ((k = gt2_cursor_next(s->t, &s->gen, &s->c, s->err)) > 0) {
		now = s->c.ev.time + s->off;
		if (now > s->last)
			s->last = now;
		if (jt)
			th_place(s, &s->v[jt - s->th->v], from, now, after);
		switch (s->c.ev.type) {
		case GT2_EV_GO_START:
			jt = jn_thread_get(s->th, (int64_t)(s->c.ev.args[0] % JN_TID_STRIDE));
			break;
		case GT2_EV_GO_STATUS:
		case GT2_EV_GO_STATUS_STACK:
			if (s->c.ev.args[2] == 2 && (int64_t)s->c.ev.args[1] == s->gen.ms[i].m)
				jt = jn_thread_get(s->th,
						   (int64_t)(s->c.ev.args[0] % JN_TID_STRIDE));
			break;
		case GT2_EV_GO_STOP:
		case GT2_EV_GO_BLOCK:
		case GT2_EV_GO_DESTROY:
			jt = NULL;
			break;
		}
		from = now;
		after = s->c.ev.off;
	}
	return k;
}

static int th_machine_place(struct th_state *s)
{
	struct gt2_gens gens = { .t = s->t, .pos = s->t->start };
	size_t i;
	int k;

	while ((k = jn_gen_next(&gens, &s->gen, s->err)) > 0) {
		s->off = jn_mono_off(&s->gen, false);
		s->prev_last = s->last;
		for (i = 0; i < s->gen.nms; i++)
			if (th_machine_cpu(s, i) < 0)
				return -1;
	}
	return k;
}

/* The inserts for the runs placed whole: a region and its log each. */
static int th_inserts(struct th_state *s, struct jn_insert **ins, size_t *n,
		      struct gt_join_stats *st)
{
	uint32_t key, type, msg;
	const uint64_t *name;
	struct th_run *r;
	size_t i, j, cap = 0;
	char buf[64];
	int64_t k;

	k = jn_string(s->strs, "go");
	if (k < 0)
		return th_nomem(s);
	key = (uint32_t)k;
	for (i = 0; i < s->th->len; i++) {
		for (j = 0; j < s->v[i].len; j++) {
			r = &s->v[i].runs[j];
			if (!r->begin_after || !r->end_after || r->end <= r->start) {
				st->unjoined++;
				continue;
			}
			name = gt_map_get(&s->names, (uint64_t)r->g);
			k = jn_string(s->strs, name ? s->strs->s[*name - 1] : "go: goroutine");
			snprintf(buf, sizeof(buf), "goroutine %" PRId64, r->g);
			if (k < 0 || jn_string(s->strs, buf) < 0)
				return th_nomem(s);
			type = (uint32_t)k;
			msg = (uint32_t)jn_string(s->strs, buf);
			if (!gt2_grow(ins, &cap, *n + 2, sizeof(**ins)))
				return th_nomem(s);
			(*ins)[(*n)++] = (struct jn_insert){ r->begin_after, r->begin_ts,
				GT2_EV_USER_REGION_BEGIN, type, 0 };
			(*ins)[(*n)++] = (struct jn_insert){ r->begin_after, r->begin_ts,
				GT2_EV_USER_LOG, key, msg };
			(*ins)[(*n)++] = (struct jn_insert){ r->end_after, r->end_ts,
				GT2_EV_USER_REGION_END, type, 0 };
			st->go_regions++;
		}
	}
	return 0;
}

/* MACHINE with APP's runs, written to @out; 0, or -1 with @err set. */
static int th_write(struct th_state *s, struct jn_pair *p, const char *out,
		    struct gt_join_stats *st)
{
	struct jn_insert *ins = NULL;
	char *tmp = NULL;
	size_t n = 0;
	int fd, rc = -1;

	if (th_inserts(s, &ins, &n, st) || jn_sort_inserts(&ins, n, NULL)) {
		free(ins);
		return th_nomem(s);
	}
	fd = jn_out_open(out, &tmp, s->err);
	if (fd >= 0) {
		rc = jn_splice(p->machine, fd, ins, n, &p->strs, s->err);
		if (jn_out_close(fd, tmp, out, !rc, s->err))
			rc = -1;
	}
	free(ins);
	return rc;
}

int gt_join_threads(const char *app_path, const char *machine_path, const char *out,
		    struct gt_join_stats *st, struct gt_error *err)
{
	struct th_state s = { .err = err, .last = INT64_MIN, .prev_last = INT64_MIN,
			      .app_first = INT64_MAX, .app_last = INT64_MIN };
	struct jn_pair p;
	size_t i;
	int rc = -1;

	gt_map_init(&s.names);
	if (jn_prepare(&p, app_path, machine_path, st, err))
		goto out;
	if (jn_machine_until(p.mc, INT64_MAX)) {
		jn_failed(&p, err);
		goto out;
	}
	s.th = &p.th;
	s.strs = &p.strs;
	s.v = calloc(p.th.len + 1, sizeof(*s.v));
	if (!s.v) {
		th_nomem(&s);
		goto out;
	}
	s.t = p.app;
	if (th_app_runs(&s) < 0) {
		jn_failed(&p, err);
		goto out;
	}
	if (jn_finish(&p, s.app_first, s.app_last, st, err))
		goto out;
	gt2_gen_free(&s.gen);
	memset(&s.gen, 0, sizeof(s.gen));
	s.t = p.machine;
	if (th_machine_place(&s) < 0)
		goto out;
	rc = th_write(&s, &p, out, st);
out:
	for (i = 0; s.v && i < p.th.len; i++)
		free(s.v[i].runs);
	free(s.v);
	free(s.c.buf);
	gt2_gen_free(&s.gen);
	gt_map_free(&s.names);
	jn_pair_free(&p);
	return rc;
}
