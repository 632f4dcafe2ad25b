// SPDX-License-Identifier: GPL-2.0
/*
 * The checks after the merge, in the order Go's parser makes them: time
 * stamps non-decreasing in merge order; syscall exits moved to their real
 * time stamp; futile wakeups dropped; then the state machines (state.c).
 *
 * Go re-sorts the events by time after moving syscall exits, which needs
 * every event in memory. A moved exit changes the outcome of the state
 * checks only if it changes places with another event that reads or sets
 * its goroutine's state (its own GoStart, say), and then Go always fails.
 * So gt_check() keeps the merge order and instead requires that the
 * events touching each goroutine stay in time order: same verdict, one
 * pass, memory per goroutine. gt_replay() needs Go's exact order: its
 * first pass checks and lists the moved exits (24 bytes each), the second
 * merges again and puts them in their place.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* A syscall exit that Go moves to its real time stamp. */
struct moved {
	int64_t ts;
	uint64_t idx;			/* position in the merge */
	uint64_t off;
};

/* Per goroutine: the merge's state, the state machines', then the pipeline's. */
struct pipe_g {
	struct gt_order_g order;
	struct gt_state_g state;
	int64_t last_sysblock;		/* Go's lastSysBlock */
	int64_t touch_ts;		/* the latest event setting or reading the state */
	uint64_t touch_off;
	bool touched;
};

enum pipe_mode {
	PIPE_CHECK,			/* merge order, moved exits checked in place */
	PIPE_COLLECT,			/* as PIPE_CHECK, and list the moved exits */
	PIPE_REPLAY,			/* Go's order, using the list */
};

struct pipe {
	struct gt_trace *t;
	enum pipe_mode mode;
	gt_sink_fn fn;
	gt_slot_fn slot;		/* where the merge puts each event, or NULL */
	void *ctx;
	int ret;			/* the sink's */
	struct gt_merge merge;		/* its records are struct pipe_g */
	struct gt_state state;
	struct gt_map drop;		/* offsets of futile events */
	struct gt_error err;		/* the error of the earliest phase */
	enum gt_phase live_below;	/* checks of earlier phases still matter: err's */
	uint64_t idx;
	int64_t prev_ts;
	uint64_t prev_off;
	struct moved *moved;
	size_t nr_moved, cap_moved, next_moved;
};

/* Keeps the error Go would report: the one of the earliest phase. */
static void record(struct pipe *p, const struct gt_error *err)
{
	if (err->phase < p->live_below) {
		p->err = *err;
		p->live_below = err->phase;
	}
}

/* Checks of @phase still matter: no error of the same or an earlier phase. */
static bool live(const struct pipe *p, enum gt_phase phase)
{
	return phase < p->live_below;
}

static void fail(struct pipe *p, enum gt_phase phase, const struct gt_event *ev,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void fail(struct pipe *p, enum gt_phase phase, const struct gt_event *ev,
		 const char *fmt, ...)
{
	char msg[sizeof(p->err.msg) - 64];
	struct gt_error err;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	gt_fail(&err, phase, ev->off, "%s at offset %llu: %s", gt_event_name(p->t, ev->type),
		(unsigned long long)ev->off, msg);
	record(p, &err);
}

static inline struct pipe_g *pipe_g(struct pipe *p, uint64_t g, const struct gt_event *ev)
{
	struct pipe_g *rec = gt_merge_g(&p->merge, g);

	if (!rec) {
		fail(p, GT_ERR_ORDER, ev, "out of memory for goroutines");
	} else if (rec->order.ended) {
		/* All that was left of it: it existed (and is dead). */
		rec->state.exists = true;
	}
	return rec;
}

static void time_order(struct pipe *p, const struct gt_event *ev)
{
	if (live(p, GT_ERR_TIME) && p->idx && ev->ts < p->prev_ts)
		fail(p, GT_ERR_TIME, ev, "time stamps out of order: time %lld is before time %lld "
		     "of the event merged before it (offset %llu); all Ps must share one clock "
		     "that agrees with the order of events", (long long)ev->ts,
		     (long long)p->prev_ts, (unsigned long long)p->prev_off);
	p->prev_ts = ev->ts;
	p->prev_off = ev->off;
}

/* Go's order1007() tail: a syscall exit takes its real time stamp. */
static void syscall_time(struct pipe *p, struct gt_event *ev)
{
	int64_t real = (int64_t)ev->args[2];
	struct pipe_g *g;

	if (!live(p, GT_ERR_SYSCALL))
		return;
	if (ev->type == GT_EV_GO_SYSBLOCK || ev->type == GT_EV_GO_IN_SYSCALL) {
		g = pipe_g(p, ev->g, ev);
		if (g)
			g->last_sysblock = ev->ts;
		return;
	}
	if (ev->type != GT_EV_GO_SYSEXIT || !real)
		return;
	g = pipe_g(p, ev->g, ev);
	if (!g)
		return;
	if (!g->last_sysblock)
		fail(p, GT_ERR_SYSCALL, ev, "stray syscall exit: g %llu has a real exit time but "
		     "no GoSysBlock or GoInSyscall before it", (unsigned long long)ev->g);
	else if (real < g->last_sysblock)
		fail(p, GT_ERR_SYSCALL, ev, "time stamps out of order: real exit time %lld is "
		     "before g %llu's GoSysBlock at time %lld", (long long)real,
		     (unsigned long long)ev->g, (long long)g->last_sysblock);
	else
		ev->ts = real;
}

/* Go moves some events to pseudo Ps after the merge. */
static void pseudo_p(const struct pipe *p, struct gt_event *ev)
{
	if (ev->type == GT_EV_GO_UNBLOCK && gt_map_get(&p->t->timer_gs, ev->g))
		ev->p = GT_P_TIMER;
	else if (ev->type == GT_EV_GO_SYSEXIT)
		ev->p = GT_P_SYSCALL;
}

/* Does the event create or wake the goroutine of args[0]? */
static bool has_arg_g(unsigned int type)
{
	return type == GT_EV_GO_CREATE || type == GT_EV_GO_UNBLOCK;
}

/* Does the event read or set the state of its goroutine, of args[0]? */
static bool touches_g(unsigned int type)
{
	switch (type) {
	case GT_EV_GO_CREATE ... GT_EV_GO_IN_SYSCALL:
	case GT_EV_GO_START_LABEL:
	case GT_EV_GO_BLOCK_GC:
		return true;
	}
	return false;
}

static bool touch(struct pipe *p, uint64_t g, const struct gt_event *ev)
{
	struct pipe_g *rec = pipe_g(p, g, ev);

	if (!rec)
		return false;
	if (rec->touched && ev->ts < rec->touch_ts) {
		fail(p, GT_ERR_STATE, ev, "g %llu's events change order when syscall exits move to "
		     "their real time stamps: time %lld comes before time %lld of offset %llu, "
		     "which leaves g %llu in the wrong state", (unsigned long long)g,
		     (long long)ev->ts, (long long)rec->touch_ts,
		     (unsigned long long)rec->touch_off, (unsigned long long)g);
		return false;
	}
	rec->touched = true;
	rec->touch_ts = ev->ts;
	rec->touch_off = ev->off;
	return true;
}

static bool state_order(struct pipe *p, const struct gt_event *ev)
{
	if (!touches_g(ev->type))
		return true;
	if (!touch(p, ev->g, ev))
		return false;
	if (has_arg_g(ev->type))
		return touch(p, ev->args[0], ev);
	return true;
}

static void emit(struct pipe *p, struct gt_event *ev)
{
	struct pipe_g *g = pipe_g(p, ev->g, ev), *arg = NULL;
	struct gt_error err;

	if (!g)
		return;
	if (has_arg_g(ev->type)) {
		arg = pipe_g(p, ev->args[0], ev);
		if (!arg)
			return;
	}
	if (gt_state_event(&p->state, ev, &g->state, arg ? &arg->state : NULL, &err)) {
		record(p, &err);
		return;
	}
	if (p->fn)
		p->ret = p->fn(p->ctx, p->t, ev);
	/* An ended goroutine's events are errors now: its record can go. */
	if ((ev->type == GT_EV_GO_END || ev->type == GT_EV_GO_STOP) &&
	    gt_state_g_gone(&g->state)) {
		gt_state_g_free(&g->state);
		gt_merge_end(&p->merge, ev->g, &g->order);
	}
}

static bool moved_add(struct pipe *p, const struct gt_event *ev)
{
	struct moved *v;

	if (p->nr_moved == p->cap_moved) {
		p->cap_moved = p->cap_moved ? 2 * p->cap_moved : 64;
		v = realloc(p->moved, p->cap_moved * sizeof(*v));
		if (!v) {
			fail(p, GT_ERR_ORDER, ev, "out of memory for syscall exits");
			return false;
		}
		p->moved = v;
	}
	p->moved[p->nr_moved++] = (struct moved){ ev->ts, p->idx, ev->off };
	return true;
}

/* Emits the moved syscall exits that Go's sort puts before (@ts, @idx). */
static void moved_flush(struct pipe *p, int64_t ts, uint64_t idx)
{
	const struct moved *mv;
	struct gt_event ev;

	while (p->next_moved < p->nr_moved && live(p, GT_ERR_STATE) && !p->ret) {
		mv = &p->moved[p->next_moved];
		if (mv->ts > ts || (mv->ts == ts && mv->idx > idx))
			return;
		p->next_moved++;
		gt_event_at(p->t, mv->off, &ev);
		ev.ts = mv->ts;
		ev.g = ev.args[0];
		ev.p = GT_P_SYSCALL;
		emit(p, &ev);
	}
}

static void process(struct pipe *p, struct gt_event *ev)
{
	int64_t merged_ts = ev->ts;

	time_order(p, ev);
	pseudo_p(p, ev);
	syscall_time(p, ev);
	if ((p->drop.len && gt_map_get(&p->drop, ev->off)) || !live(p, GT_ERR_STATE))
		return;
	if (p->mode == PIPE_REPLAY) {
		if (ev->ts != merged_ts)
			return;		/* emitted from the list, in its place */
		moved_flush(p, ev->ts, p->idx);
	} else {
		if (!state_order(p, ev))
			return;
		if (ev->ts != merged_ts && p->mode == PIPE_COLLECT && !moved_add(p, ev))
			return;
	}
	if (live(p, GT_ERR_STATE) && !p->ret)
		emit(p, ev);
}

static int pipe_init(struct pipe *p, struct gt_trace *t, struct gt_error *err)
{
	struct pipe_g *g0;

	gt_map_init(&p->drop);
	p->t = t;
	p->live_below = GT_ERR_STATE + 1;	/* no error yet: every check matters */
	if (t->nr_futile && gt_futile_scan(t, &p->drop, err))
		return -1;
	if (gt_merge_init(&p->merge, t, sizeof(struct pipe_g), err))
		return -1;
	g0 = gt_merge_g(&p->merge, 0);
	if (!g0) {
		gt_fail(err, GT_ERR_STATE, 0, "out of memory");
		return -1;
	}
	gt_state_init(&p->state, t, &g0->state);
	return 0;
}

static void free_g(void *rec, uint64_t key, void *ctx)
{
	(void)key;
	(void)ctx;
	gt_state_g_free(&((struct pipe_g *)rec)->state);
}

static void pipe_free(struct pipe *p)
{
	gt_table_each(&p->merge.gs, free_g, NULL);
	gt_merge_free(&p->merge);
	gt_state_free(&p->state);
	gt_map_free(&p->drop);
}

static int pipe_run(struct pipe *p, struct gt_error *err)
{
	struct gt_event local, *ev = &local;
	int r = 0;

	if (pipe_init(p, p->t, err))
		return -1;
	while (!p->ret) {
		if (p->slot)
			ev = p->slot(p->ctx);
		r = gt_merge_next(&p->merge, ev, err);
		if (r <= 0)
			break;
		process(p, ev);
		p->idx++;
	}
	if (!p->ret && r < 0)
		record(p, err);
	if (p->mode == PIPE_REPLAY)
		moved_flush(p, INT64_MAX, UINT64_MAX);
	if (p->err.phase) {
		*err = p->err;
		return -1;
	}
	return p->ret;
}

int gt_check_slots(struct gt_trace *t, gt_sink_fn fn, gt_slot_fn slot, void *ctx,
		   struct gt_error *err)
{
	struct pipe p = { .t = t, .mode = PIPE_CHECK, .fn = fn, .slot = slot, .ctx = ctx };
	int r = pipe_run(&p, err);

	pipe_free(&p);
	return r;
}

int gt_check(struct gt_trace *t, gt_sink_fn fn, void *ctx, struct gt_error *err)
{
	return gt_check_slots(t, fn, NULL, ctx, err);
}

static int moved_cmp(const void *a, const void *b)
{
	const struct moved *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

int gt_replay(struct gt_trace *t, gt_sink_fn fn, void *ctx, struct gt_error *err)
{
	struct pipe p = { .t = t, .mode = PIPE_COLLECT };
	struct pipe q = { .t = t, .mode = PIPE_REPLAY, .fn = fn, .ctx = ctx };
	int r = pipe_run(&p, err);

	pipe_free(&p);
	if (!r && p.nr_moved)
		qsort(p.moved, p.nr_moved, sizeof(*p.moved), moved_cmp);
	if (!r) {
		q.moved = p.moved;
		q.nr_moved = p.nr_moved;
		r = pipe_run(&q, err);
		pipe_free(&q);
	}
	free(p.moved);
	return r;
}
