// SPDX-License-Identifier: GPL-2.0
/*
 * The state machines Go's postProcessTrace() enforces on the merged
 * events: each goroutine dead -> runnable -> running -> waiting, each P
 * started and stopped, one GC and one stop-the-world at a time, unique
 * user tasks and properly nested user regions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

enum { G_DEAD, G_RUNNABLE, G_RUNNING, G_WAITING };

static const char *const state_names[] = { "dead", "runnable", "running", "waiting" };

struct gt_region {
	uint64_t task;
	uint64_t name;			/* string id; compared by content */
};

struct state_p {
	bool running, stw, sweep;
	uint64_t g;
};

static void fail(struct gt_state *s, const struct gt_event *ev, struct gt_error *err,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void fail(struct gt_state *s, const struct gt_event *ev, struct gt_error *err,
		 const char *fmt, ...)
{
	char msg[sizeof(err->msg) - 80];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	gt_fail(err, GT_ERR_STATE, ev->off, "%s at offset %llu (P %lld, g %llu): %s",
		gt_event_name(s->t, ev->type), (unsigned long long)ev->off, (long long)ev->p,
		(unsigned long long)ev->g, msg);
}

void gt_state_init(struct gt_state *s, const struct gt_trace *t, struct gt_state_g *g0)
{
	memset(s, 0, sizeof(*s));
	s->t = t;
	gt_table_init(&s->ps, sizeof(struct state_p));
	gt_map_init(&s->tasks);
	g0->state = G_RUNNING;
	g0->exists = true;
}

void gt_state_g_free(struct gt_state_g *g)
{
	free(g->regions);
}

bool gt_state_g_gone(const struct gt_state_g *g)
{
	return g->state == G_DEAD && !g->nr_regions && !g->mark_assist;
}

void gt_state_free(struct gt_state *s)
{
	gt_table_free(&s->ps);
	gt_map_free(&s->tasks);
}

/* Go's checkRunning(): the event's goroutine runs, on the event's P. */
static int check_running(struct gt_state *s, const struct state_p *p, const struct gt_state_g *g,
			 const struct gt_event *ev, bool allow_g0, struct gt_error *err)
{
	if (g->state != G_RUNNING)
		fail(s, ev, err, "g %llu is not running (it is %s): only a running goroutine "
		     "can do this", (unsigned long long)ev->g, state_names[g->state]);
	else if (p->g != ev->g)
		fail(s, ev, err, "p %lld is not running g %llu (it runs g %llu)", (long long)ev->p,
		     (unsigned long long)ev->g, (unsigned long long)p->g);
	else if (!allow_g0 && !ev->g)
		fail(s, ev, err, "g 0 did this: it needs a goroutine, and none runs on P %lld",
		     (long long)ev->p);
	else
		return 0;
	return -1;
}

static bool strings_equal(const struct gt_trace *t, uint64_t a, uint64_t b)
{
	size_t la, lb;
	const char *sa = gt_string(t, a, &la), *sb = gt_string(t, b, &lb);

	return la == lb && !memcmp(sa, sb, la);
}

static int region_push(struct gt_state *s, struct gt_state_g *g, const struct gt_event *ev,
		       struct gt_error *err)
{
	struct gt_region *r;

	if (g->nr_regions == g->cap_regions) {
		g->cap_regions = g->cap_regions ? 2 * g->cap_regions : 4;
		r = realloc(g->regions, g->cap_regions * sizeof(*r));
		if (!r) {
			fail(s, ev, err, "out of memory for user regions");
			return -1;
		}
		g->regions = r;
	}
	g->regions[g->nr_regions++] = (struct gt_region){ ev->args[0], ev->args[2] };
	return 0;
}

static int user_region(struct gt_state *s, struct gt_state_g *g, const struct gt_event *ev,
		       struct gt_error *err)
{
	const struct gt_region *top;

	if (ev->args[1] == 0)
		return region_push(s, g, ev, err);
	if (ev->args[1] != 1) {
		fail(s, ev, err, "invalid user region mode %llu: 0 starts a region, 1 ends it",
		     (unsigned long long)ev->args[1]);
		return -1;
	}
	if (!g->nr_regions)
		return 0;	/* its start was before the trace */
	top = &g->regions[g->nr_regions - 1];
	if (top->task != ev->args[0] || !strings_equal(s->t, top->name, ev->args[2])) {
		fail(s, ev, err, "misuse of region in goroutine %llu: the end (task %llu) does not "
		     "match the innermost open region (task %llu)", (unsigned long long)ev->g,
		     (unsigned long long)ev->args[0], (unsigned long long)top->task);
		return -1;
	}
	g->nr_regions--;
	return 0;
}

static int user_task(struct gt_state *s, const struct gt_event *ev, struct gt_error *err)
{
	bool added;

	if (ev->type == GT_EV_USER_TASK_END) {
		gt_map_del(&s->tasks, ev->args[0]);
		return 0;
	}
	if (!gt_map_put(&s->tasks, ev->args[0], &added)) {
		fail(s, ev, err, "out of memory for user tasks");
		return -1;
	}
	if (added)
		return 0;
	fail(s, ev, err, "task id conflicts (id:%llu): a task with this id is still open",
	     (unsigned long long)ev->args[0]);
	return -1;
}

/* GC and stop-the-world: one at a time (per P before go 1.10). */
static int gc_event(struct gt_state *s, struct state_p *p, struct gt_event *ev,
		    struct gt_error *err)
{
	bool *stw = s->t->ver < GT_VER(10) ? &p->stw : &s->stw;

	switch (ev->type) {
	case GT_EV_GC_START:
		if (s->gc)
			goto nested;
		s->gc = true;
		ev->p = GT_P_GC;
		return 0;
	case GT_EV_GC_DONE:
		if (!s->gc)
			goto bogus;
		s->gc = false;
		return 0;
	case GT_EV_STW_START:
		if (*stw)
			goto nested;
		*stw = true;
		return 0;
	case GT_EV_STW_DONE:
		if (!*stw)
			goto bogus;
		*stw = false;
		return 0;
	case GT_EV_GC_SWEEP_START:
		if (p->sweep)
			goto nested;
		p->sweep = true;
		return 0;
	case GT_EV_GC_SWEEP_DONE:
		if (!p->sweep)
			goto bogus;
		p->sweep = false;
		return 0;
	}
	return 0;
nested:
	fail(s, ev, err, "the previous one has not ended: it cannot start again before its end");
	return -1;
bogus:
	fail(s, ev, err, "bogus end: nothing of this kind was started");
	return -1;
}

static int proc_event(struct gt_state *s, struct state_p *p, const struct gt_event *ev,
		      struct gt_error *err)
{
	if (ev->type == GT_EV_PROC_START) {
		if (p->running) {
			fail(s, ev, err, "p %lld is running before start", (long long)ev->p);
			return -1;
		}
		p->running = true;
		return 0;
	}
	if (!p->running) {
		fail(s, ev, err, "p %lld is not running before stop", (long long)ev->p);
		return -1;
	}
	if (p->g) {
		fail(s, ev, err, "p %lld is running a goroutine %llu during stop: stop it first",
		     (long long)ev->p, (unsigned long long)p->g);
		return -1;
	}
	p->running = false;
	return 0;
}

static int go_create(struct gt_state *s, const struct state_p *p, const struct gt_state_g *g,
		     struct gt_state_g *ng, const struct gt_event *ev, struct gt_error *err)
{
	if (check_running(s, p, g, ev, true, err))
		return -1;
	if (ng->exists) {
		fail(s, ev, err, "g %llu already exists: a goroutine id can be created only once "
		     "in a trace", (unsigned long long)ev->args[0]);
		return -1;
	}
	ng->state = G_RUNNABLE;
	ng->ev_type = GT_EV_GO_CREATE;
	ng->has_create = true;
	ng->create_stk = ev->args[1];
	ng->mark_assist = false;
	ng->exists = true;
	return 0;
}

static int go_start(struct gt_state *s, struct state_p *p, struct gt_state_g *g,
		    struct gt_event *ev, struct gt_error *err)
{
	if (g->state != G_RUNNABLE) {
		fail(s, ev, err, "g %llu is not runnable before start (it is %s)",
		     (unsigned long long)ev->g, state_names[g->state]);
		return -1;
	}
	if (p->g) {
		fail(s, ev, err, "p %lld is already running g %llu while start g %llu",
		     (long long)ev->p, (unsigned long long)p->g, (unsigned long long)ev->g);
		return -1;
	}
	g->state = G_RUNNING;
	g->ev_type = 0;
	p->g = ev->g;
	/* Go gives the first start the stack the goroutine was created with. */
	if (g->has_create) {
		ev->stk = g->create_stk;
		g->has_create = false;
	}
	return 0;
}

static int go_unblock(struct gt_state *s, const struct state_p *p, const struct gt_state_g *g,
		      struct gt_state_g *target, struct gt_event *ev, struct gt_error *err)
{
	if (g->state != G_RUNNING) {
		fail(s, ev, err, "g %llu is not running while unpark (it is %s)",
		     (unsigned long long)ev->g, state_names[g->state]);
		return -1;
	}
	if (ev->p != GT_P_TIMER && p->g != ev->g) {
		fail(s, ev, err, "p %lld is not running g %llu while unpark",
		     (long long)ev->p, (unsigned long long)ev->g);
		return -1;
	}
	if (target->state != G_WAITING) {
		fail(s, ev, err, "g %llu is not waiting before unpark (it is %s)",
		     (unsigned long long)ev->args[0], state_names[target->state]);
		return -1;
	}
	if (target->ev_type == GT_EV_GO_BLOCK_NET && ev->p != GT_P_TIMER)
		ev->p = GT_P_NETPOLL;
	target->state = G_RUNNABLE;
	target->ev_type = GT_EV_GO_UNBLOCK;
	target->exists = true;
	return 0;
}

/* A running goroutine stops running on its P: to @state. */
static int go_stop(struct gt_state *s, struct state_p *p, struct gt_state_g *g,
		   const struct gt_event *ev, uint8_t state, struct gt_error *err)
{
	if (check_running(s, p, g, ev, false, err))
		return -1;
	g->state = state;
	p->g = 0;
	if (ev->type == GT_EV_GO_END)
		g->nr_regions = 0;
	if (ev->type != GT_EV_GO_END && ev->type != GT_EV_GO_STOP &&
	    ev->type != GT_EV_GO_SYSBLOCK)
		g->ev_type = ev->type;
	return 0;
}

/* Before tracing started: the goroutine waits, or is in a syscall. */
static int go_status(struct gt_state *s, struct gt_state_g *g, const struct gt_event *ev,
		     struct gt_error *err)
{
	if (g->state != G_RUNNABLE) {
		fail(s, ev, err, "g %llu is not runnable before %s (it is %s): it must be created "
		     "first", (unsigned long long)ev->g, gt_event_name(s->t, ev->type),
		     state_names[g->state]);
		return -1;
	}
	g->state = G_WAITING;
	g->ev_type = ev->type;
	return 0;
}

static int go_sysexit(struct gt_state *s, struct gt_state_g *g, const struct gt_event *ev,
		      struct gt_error *err)
{
	if (g->state != G_WAITING) {
		fail(s, ev, err, "g %llu is not waiting during syscall exit (it is %s)",
		     (unsigned long long)ev->g, state_names[g->state]);
		return -1;
	}
	g->state = G_RUNNABLE;
	g->ev_type = GT_EV_GO_SYSEXIT;
	return 0;
}

static int mark_assist(struct gt_state *s, struct gt_state_g *g, const struct gt_event *ev,
		       struct gt_error *err)
{
	if (ev->type == GT_EV_GC_MARK_ASSIST_DONE) {
		/* It may have started before the trace did. */
		g->mark_assist = false;
		return 0;
	}
	if (g->mark_assist) {
		fail(s, ev, err, "previous mark assist is not ended before a new one");
		return -1;
	}
	g->mark_assist = true;
	return 0;
}

static int go_event(struct gt_state *s, struct state_p *p, struct gt_state_g *g,
		    struct gt_state_g *arg, struct gt_event *ev, struct gt_error *err)
{
	switch (ev->type) {
	case GT_EV_GO_CREATE:
		return go_create(s, p, g, arg, ev, err);
	case GT_EV_GO_START:
	case GT_EV_GO_START_LABEL:
		return go_start(s, p, g, ev, err);
	case GT_EV_GO_END:
	case GT_EV_GO_STOP:
		return go_stop(s, p, g, ev, G_DEAD, err);
	case GT_EV_GO_SCHED:
	case GT_EV_GO_PREEMPT:
		return go_stop(s, p, g, ev, G_RUNNABLE, err);
	case GT_EV_GO_UNBLOCK:
		return go_unblock(s, p, g, arg, ev, err);
	case GT_EV_GO_SYSCALL:
		if (check_running(s, p, g, ev, false, err))
			return -1;
		g->ev_type = ev->type;
		return 0;
	case GT_EV_GO_SYSEXIT:
		return go_sysexit(s, g, ev, err);
	case GT_EV_GO_WAITING:
	case GT_EV_GO_IN_SYSCALL:
		return go_status(s, g, ev, err);
	case GT_EV_GC_MARK_ASSIST_START:
	case GT_EV_GC_MARK_ASSIST_DONE:
		return mark_assist(s, g, ev, err);
	case GT_EV_USER_REGION:
		return user_region(s, g, ev, err);
	case GT_EV_USER_TASK_CREATE:
	case GT_EV_USER_TASK_END:
		return user_task(s, ev, err);
	case GT_EV_PROC_START:
	case GT_EV_PROC_STOP:
		return proc_event(s, p, ev, err);
	}
	if (gt_descs[ev->type].block)
		return go_stop(s, p, g, ev, G_WAITING, err);
	return gc_event(s, p, ev, err);
}

int gt_state_event(struct gt_state *s, struct gt_event *ev, struct gt_state_g *g,
		   struct gt_state_g *arg, struct gt_error *err)
{
	int64_t p_id = ev->p;
	struct state_p *p = gt_table_add(&s->ps, (uint64_t)p_id), *moved;

	if (!p) {
		fail(s, ev, err, "out of memory for Ps");
		return -1;
	}
	if (go_event(s, p, g, arg, ev, err))
		return -1;
	g->exists = true;
	if (ev->p == p_id)
		return 0;
	/* Go stores the P's state under the pseudo P the event moved to. */
	moved = gt_table_add(&s->ps, (uint64_t)ev->p);
	if (!moved) {
		fail(s, ev, err, "out of memory for Ps");
		return -1;
	}
	*moved = *p;
	return 0;
}
