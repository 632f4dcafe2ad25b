// SPDX-License-Identifier: GPL-2.0
/*
 * Go 1.22+ traces, the order level: Go's ordering (internal/trace/order.go).
 * Each event advances the state machines of goroutines, Ps, Ms, the GC and
 * tasks, or waits (its sequence number or state is not there yet), or breaks
 * a rule; advanced events are queued, with what Go smuggles into their
 * spare arguments, and the events Go makes up around them.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define NONE	(-1)	/* Go's NoGoroutine, NoProc, NoThread */

/* tracev2.GoStatus and ProcStatus. */
enum { GO_BAD, GO_RUNNABLE, GO_RUNNING, GO_SYSCALL, GO_WAITING };
enum { PROC_BAD, PROC_RUNNING, PROC_IDLE, PROC_SYSCALL, PROC_SYSCALL_ABANDONED };
/* trace.GoState and ProcState (what StateTransition shows). */
enum { ST_UNDETERMINED, ST_NOT_EXIST, ST_RUNNABLE, ST_RUNNING, ST_WAITING, ST_SYSCALL };
enum { PST_UNDETERMINED, PST_NOT_EXIST, PST_RUNNING, PST_IDLE };
enum gc_state { GC_UNDETERMINED, GC_NOT_RUNNING, GC_RUNNING };

static const uint8_t go_status_state[] = { 0, ST_RUNNABLE, ST_RUNNING, ST_SYSCALL, ST_WAITING };
static const uint8_t proc_status_state[] = { 0, PST_RUNNING, PST_IDLE, PST_RUNNING, PST_IDLE };

struct seq {
	uint64_t gen, seq;
};

struct range {
	uint8_t type;		/* the Begin event */
	uint64_t desc;
};

struct ranges {
	struct range *v;
	size_t n, cap;
};

struct region {
	uint64_t task;
	struct gt2_str name;
};

struct gstate {
	int64_t id;
	uint8_t status;
	struct seq seq;
	struct region *regions;
	size_t nregions, cap_regions;
	struct ranges ranges;
};

struct pstate {
	int64_t id;
	uint8_t status;
	struct seq seq;
	struct ranges ranges;
};

struct mstate {
	int64_t g, p;
};

struct task {
	struct gt2_str name;
	uint64_t parent;
};

struct ctx {
	int64_t g, p, m;
};

struct gt2_order {
	int ver;
	struct gt_map gs, ps, ms, tasks;	/* id -> the state's pointer */
	struct gt2_intern names;		/* of tasks and regions: they outlive generations */
	uint64_t gc_seq;
	enum gc_state gc;
	uint64_t initial_gen;
	struct gt2_event *q;		/* ring buffer */
	size_t q_start, q_len, q_cap;
	/* The event being advanced. */
	struct gt2_base *ev;
	const struct gt2_gen *g;
	uint64_t gen;
	struct gt_error *err;
};

enum req { MUST_NOT, MAY, MUST };

static const char *go_status(uint64_t s)
{
	static const char *const n[] = { "Bad", "Runnable", "Running", "Syscall", "Waiting" };

	return s < 5 ? n[s] : "Bad";
}

static const char *proc_status(uint64_t s)
{
	static const char *const n[] = { "Bad", "Running", "Idle", "Syscall", "SyscallAbandoned" };

	return s < 5 ? n[s] : "Bad";
}

/* Go's version.EventName(). */
static const char *ev_name(const struct gt2_order *o, uint8_t type, char buf[16])
{
	const struct gt2_spec *s = gt2_spec(type);

	if (type <= gt2_max_type(o->ver) && s->name && s->name[0])
		return s->name;
	snprintf(buf, 16, "Invalid(%u)", type);
	return buf;
}

static int fail(struct gt2_order *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct gt2_order *o, const char *fmt, ...)
{
	va_list ap;

	o->err->phase = GT_ERR_STATE;
	o->err->off = o->ev->off;
	va_start(ap, fmt);
	vsnprintf(o->err->msg, sizeof(o->err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

static int oom(struct gt2_order *o)
{
	gt_fail(o->err, GT_OK, 0, "out of memory");
	return -1;
}

static void *state_get(const struct gt_map *m, int64_t id)
{
	uint64_t *v = gt_map_get(m, (uint64_t)id);

	return v ? (void *)(uintptr_t)*v : NULL;
}

/* A new zeroed state of @size for @id in @m; NULL if out of memory. */
static void *state_new(struct gt_map *m, int64_t id, size_t size)
{
	void *s = calloc(1, size);
	uint64_t *v;
	bool added;

	if (!s)
		return NULL;
	v = gt_map_put(m, (uint64_t)id, &added);
	if (!v) {
		free(s);
		return NULL;
	}
	*v = (uintptr_t)s;
	return s;
}

static void gstate_free(struct gstate *s)
{
	free(s->regions);
	free(s->ranges.v);
	free(s);
}

static void g_delete(struct gt2_order *o, int64_t id)
{
	gstate_free(state_get(&o->gs, id));
	gt_map_del(&o->gs, (uint64_t)id);
}

static bool succeeds(struct seq a, struct seq b)
{
	return a.gen == b.gen && a.seq == b.seq + 1;
}

static int validate(struct gt2_order *o, struct ctx c, enum req m, enum req p, enum req g)
{
	if (m == MUST && c.m == NONE)
		return fail(o, "expected a thread but didn't have one");
	if (p == MUST && c.p == NONE)
		return fail(o, "expected a proc but didn't have one");
	if (p == MUST_NOT && c.p != NONE)
		return fail(o, "expected no proc but had one");
	if (g == MUST && c.g == NONE)
		return fail(o, "expected a goroutine but didn't have one");
	if (g == MUST_NOT && c.g != NONE)
		return fail(o, "expected no goroutine but had one");
	return 0;
}

static int user_go(struct gt2_order *o, struct ctx c)
{
	return validate(o, c, MUST, MUST, MUST);
}

static int push(struct gt2_order *o, struct ctx c, uint8_t type, int64_t time,
		const uint64_t args[4], uint64_t off)
{
	struct gt2_event *e;

	if (o->q_len == o->q_cap) {
		size_t n = o->q_cap ? o->q_cap * 2 : 8, i;
		struct gt2_event *q = malloc(n * sizeof(*q));

		if (!q)
			return oom(o);
		for (i = 0; i < o->q_len; i++)
			q[i] = o->q[(o->q_start + i) % o->q_cap];
		free(o->q);
		o->q = q;
		o->q_cap = n;
		o->q_start = 0;
	}
	e = &o->q[(o->q_start + o->q_len++) % o->q_cap];
	memset(e, 0, sizeof(*e));
	e->type = type;
	e->time = time;
	e->m = c.m;
	e->p = c.p;
	e->g = c.g;
	memcpy(e->args, args, sizeof(e->args));
	e->off = off;
	e->gen = o->g;
	return 0;
}

/* Queues the event being advanced, in context @c. */
static int queue(struct gt2_order *o, struct ctx c)
{
	return push(o, c, o->ev->type, o->ev->time, o->ev->args, o->ev->off);
}

/* An event Go makes up, at the time of the one being advanced. */
static int make(struct gt2_order *o, struct ctx c, uint8_t type, uint64_t a0, uint64_t a1,
		uint64_t a3)
{
	uint64_t args[4] = { a0, a1, 0, a3 };

	return push(o, c, type, o->ev->time, args, 0);
}

bool gt2_order_next(struct gt2_order *o, struct gt2_event *ev)
{
	if (!o->q_len)
		return false;
	*ev = o->q[o->q_start];
	o->q_start = (o->q_start + 1) % o->q_cap;
	o->q_len--;
	return true;
}

/* Ranges (Go's rangeState). */

static uint8_t range_type(uint8_t type)
{
	uint8_t start = gt2_spec(type)->start_ev;

	return start ? start : type;
}

static bool has_range(const struct ranges *r, struct range x)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->v[i].type == x.type && r->v[i].desc == x.desc)
			return true;
	return false;
}

static int add_range(struct gt2_order *o, struct ranges *r, struct range x)
{
	if (!gt2_grow(&r->v, &r->cap, r->n, sizeof(*r->v)))
		return oom(o);
	r->v[r->n++] = x;
	return 0;
}

static int begin_range(struct gt2_order *o, struct ranges *r, struct range x)
{
	if (has_range(r, x))
		return fail(o, "discovered event already in-flight for when starting event %s",
			    gt2_spec(x.type)->name);
	return add_range(o, r, x);
}

/* Go's %v of the in-flight ranges: [{type desc} ...]. */
static void ranges_text(const struct ranges *r, char *buf, size_t size)
{
	size_t len = 0, i;

	len += snprintf(buf, size, "[");
	for (i = 0; i < r->n && len < size; i++)
		len += snprintf(buf + len, size - len, "%s{%u %" PRIu64 "}", i ? " " : "",
				r->v[i].type, r->v[i].desc);
	if (len < size)
		snprintf(buf + len, size - len, "]");
}

static int active_range(struct gt2_order *o, struct ranges *r, struct range x)
{
	char buf[160];

	if (o->gen == o->initial_gen) {
		if (has_range(r, x))
			return fail(o, "found named active range already in first gen: {%u %" PRIu64
				    "}", x.type, x.desc);
		return add_range(o, r, x);
	}
	if (has_range(r, x))
		return 0;
	ranges_text(r, buf, sizeof(buf));
	return fail(o, "resource is missing active range: %s %s", gt2_spec(x.type)->name, buf);
}

/* Ends the range @type ends; its desc in *@desc. */
static int end_range(struct gt2_order *o, struct ranges *r, uint8_t type, uint64_t *desc)
{
	uint8_t start = gt2_spec(type)->start_ev;
	size_t i;

	for (i = 0; i < r->n; i++) {
		if (r->v[i].type != start)
			continue;
		*desc = r->v[i].desc;
		r->v[i] = r->v[--r->n];
		return 0;
	}
	return fail(o, "tried to end event %s, but not in-flight", gt2_spec(start)->name);
}

/* The handlers: Go's advance* functions; *@c is curCtx in, newCtx out. */

typedef int (*advance_fn)(struct gt2_order *o, struct ctx *c);

static int proc_status_abandoned_ctx(struct gt2_order *o, struct ctx *cur, int64_t pid)
{
	const struct gt_map *m = &o->ms;
	bool found = false;
	size_t i;

	for (i = 0; i < m->cap; i++) {
		struct mstate *ms = (void *)(uintptr_t)m->slots[i].val;

		if (!m->used[i] || ms->p != pid)
			continue;
		cur->m = (int64_t)m->slots[i].key;
		cur->p = pid;
		cur->g = ms->g;
		found = true;
	}
	if (!found)
		return fail(o, "failed to find sched context for proc %" PRId64 " that's about to "
			    "be stolen", pid);
	return 0;
}

static int advance_proc_status(struct gt2_order *o, struct ctx *c)
{
	struct gt2_base *ev = o->ev;
	int64_t pid = (int64_t)ev->args[0];
	uint64_t status = ev->args[1];
	struct ctx cur = *c;
	struct pstate *s;
	uint8_t old;

	if (status >= 5)
		return fail(o, "invalid status for proc %" PRId64 ": %" PRIu64, pid, status);
	old = proc_status_state[status];
	s = state_get(&o->ps, pid);
	if (s) {
		if (status == PROC_SYSCALL_ABANDONED && s->status == PROC_SYSCALL) {
			old = PST_RUNNING;
			ev->args[1] = PROC_SYSCALL;
		} else if (status == PROC_SYSCALL_ABANDONED &&
			   s->status == PROC_SYSCALL_ABANDONED) {
			old = PST_IDLE;
			ev->args[1] = PROC_SYSCALL_ABANDONED;
		} else if (s->status != status) {
			return fail(o, "inconsistent status for proc %" PRId64 ": old %s vs. new %s",
				    pid, proc_status(s->status), proc_status(status));
		}
		s->seq = (struct seq){ o->gen, 0 };
	} else {
		s = state_new(&o->ps, pid, sizeof(*s));
		if (!s)
			return oom(o);
		*s = (struct pstate){ .id = pid, .status = status, .seq = { o->gen, 0 } };
		old = o->gen == o->initial_gen ? PST_UNDETERMINED : PST_NOT_EXIST;
	}
	ev->args[2] = old;	/* extra()[0] */
	if (status == PROC_RUNNING || status == PROC_SYSCALL)
		c->p = pid;
	if (status == PROC_SYSCALL_ABANDONED && old == PST_RUNNING &&
	    proc_status_abandoned_ctx(o, &cur, pid))
		return -1;
	return queue(o, cur) ? -1 : 1;
}

static int advance_proc_start(struct gt2_order *o, struct ctx *c)
{
	int64_t pid = (int64_t)o->ev->args[0];
	struct seq seq = { o->gen, o->ev->args[1] };
	struct pstate *s = state_get(&o->ps, pid);
	struct ctx cur = *c;

	if (!s || s->status != PROC_IDLE || !succeeds(seq, s->seq) || c->p != NONE)
		return 0;
	if (validate(o, cur, MUST, MUST_NOT, MAY))
		return -1;
	s->status = PROC_RUNNING;
	s->seq = seq;
	c->p = pid;
	return queue(o, cur) ? -1 : 1;
}

static int advance_proc_stop(struct gt2_order *o, struct ctx *c)
{
	struct pstate *s = state_get(&o->ps, c->p);
	struct ctx cur = *c;
	char buf[16];

	if (!s)
		return fail(o, "event %s for proc (%" PRId64 ") that doesn't exist",
			    ev_name(o, o->ev->type, buf), c->p);
	if (s->status != PROC_RUNNING && s->status != PROC_SYSCALL)
		return fail(o, "%s event for proc that's not Running or Syscall",
			    ev_name(o, o->ev->type, buf));
	if (validate(o, cur, MUST, MUST, MAY))
		return -1;
	s->status = PROC_IDLE;
	c->p = NONE;
	return queue(o, cur) ? -1 : 1;
}

static int advance_proc_steal(struct gt2_order *o, struct ctx *c)
{
	struct gt2_base *ev = o->ev;
	int64_t pid = (int64_t)ev->args[0], mid = (int64_t)ev->args[2];
	struct seq seq = { o->gen, ev->args[1] };
	struct pstate *s = state_get(&o->ps, pid);
	struct ctx cur = *c;
	struct mstate *ms;
	uint8_t old;

	if (!s || (s->status != PROC_SYSCALL && s->status != PROC_SYSCALL_ABANDONED) ||
	    !succeeds(seq, s->seq))
		return 0;
	if (validate(o, cur, MUST, MAY, MAY))
		return -1;
	old = s->status;
	ev->args[3] = old;	/* extra()[0] */
	s->status = PROC_IDLE;
	s->seq = seq;
	if (old == PROC_SYSCALL_ABANDONED)
		return queue(o, cur) ? -1 : 1;
	if (mid == cur.m) {
		if (cur.p != pid)
			return fail(o, "tried to self-steal proc %" PRId64 " (thread %" PRId64 "), but "
				    "got proc %" PRId64 " instead", pid, mid, cur.p);
		c->p = NONE;
		return queue(o, cur) ? -1 : 1;
	}
	ms = state_get(&o->ms, mid);
	if (!ms)
		return fail(o, "stole proc from non-existent thread %" PRId64, mid);
	if (ms->p != pid)
		return fail(o, "tried to steal proc %" PRId64 " from thread %" PRId64 ", but got "
			    "proc %" PRId64 " instead", pid, mid, ms->p);
	ms->p = NONE;
	return queue(o, cur) ? -1 : 1;
}

/* A goroutine in a syscall on another M than the event's (GoStatus). */
static int status_syscall_elsewhere(struct gt2_order *o, struct ctx *cur, int64_t gid,
				    int64_t mid)
{
	struct mstate *ms = state_get(&o->ms, mid);

	if (ms) {
		if (ms->g != gid)
			return fail(o, "inconsistent thread for syscalling goroutine %" PRId64
				    ": thread has goroutine %" PRId64, gid, ms->g);
		cur->g = ms->g;
	} else {
		ms = state_new(&o->ms, mid, sizeof(*ms));
		if (!ms)
			return oom(o);
		*ms = (struct mstate){ gid, NONE };
	}
	cur->m = mid;
	return 0;
}

static int advance_go_status(struct gt2_order *o, struct ctx *c)
{
	struct gt2_base *ev = o->ev;
	int64_t gid = (int64_t)ev->args[0], mid = (int64_t)ev->args[1];
	uint64_t status = ev->args[2];
	struct ctx cur = *c;
	struct gstate *s;
	uint8_t old;

	if (status >= 5)
		return fail(o, "invalid status for goroutine %" PRId64 ": %" PRIu64, gid, status);
	old = go_status_state[status];
	s = state_get(&o->gs, gid);
	if (s) {
		if (s->status != status)
			return fail(o, "inconsistent status for goroutine %" PRId64 ": old %s vs. "
				    "new %s", gid, go_status(s->status), go_status(status));
		s->seq = (struct seq){ o->gen, 0 };
	} else if (o->gen == o->initial_gen) {
		s = state_new(&o->gs, gid, sizeof(*s));
		if (!s)
			return oom(o);
		*s = (struct gstate){ .id = gid, .status = status, .seq = { o->gen, 0 } };
		old = ST_UNDETERMINED;
	} else {
		return fail(o, "found goroutine status for new goroutine after the first "
			    "generation: id=%" PRId64 " status=%s", gid, go_status(status));
	}
	ev->args[2] = (uint64_t)old << 32 | status;
	if (status == GO_RUNNING) {
		c->g = gid;
	} else if (status == GO_SYSCALL) {
		if (mid == NONE)
			return fail(o, "found goroutine %" PRId64 " in syscall without a thread", gid);
		if (mid == cur.m) {
			if (o->gen != o->initial_gen && cur.g != gid)
				return fail(o, "inconsistent thread for syscalling goroutine %" PRId64
					    ": thread has goroutine %" PRId64, gid, cur.g);
			c->g = gid;
		} else if (status_syscall_elsewhere(o, &cur, gid, mid)) {
			return -1;
		}
	}
	return queue(o, cur) ? -1 : 1;
}

/* The running goroutine of @c, which the event needs (Go's shared preconditions). */
static struct gstate *running_g(struct gt2_order *o, struct ctx c, uint8_t status,
				const char *state)
{
	struct gstate *s = state_get(&o->gs, c.g);
	char buf[16];

	if (!s)
		fail(o, "event %s for goroutine (%" PRId64 ") that doesn't exist",
		     ev_name(o, o->ev->type, buf), c.g);
	else if (s->status != status)
		fail(o, "%s event for goroutine that's not %s", ev_name(o, o->ev->type, buf), state);
	else
		return s;
	return NULL;
}

static int advance_go_create(struct gt2_order *o, struct ctx *c)
{
	int64_t gid = (int64_t)o->ev->args[0];
	struct gstate *s;
	char buf[16];

	if (validate(o, *c, MUST, MUST, MAY))
		return -1;
	s = state_get(&o->gs, c->g);
	if (s && s->status != GO_RUNNING)
		return fail(o, "%s event for goroutine that's not Running",
			    ev_name(o, o->ev->type, buf));
	if (state_get(&o->gs, gid))
		return fail(o, "tried to create goroutine (%" PRId64 ") that already exists", gid);
	s = state_new(&o->gs, gid, sizeof(*s));
	if (!s)
		return oom(o);
	s->id = gid;
	s->status = o->ev->type == GT2_EV_GO_CREATE_BLOCKED ? GO_WAITING : GO_RUNNABLE;
	s->seq = (struct seq){ o->gen, 0 };
	return queue(o, *c) ? -1 : 1;
}

static int advance_go_stop_exec(struct gt2_order *o, struct ctx *c)
{
	struct ctx cur = *c;
	struct gstate *s;

	if (user_go(o, cur))
		return -1;
	s = running_g(o, cur, GO_RUNNING, "Running");
	if (!s)
		return -1;
	if (o->ev->type == GT2_EV_GO_DESTROY)
		g_delete(o, cur.g);
	else
		s->status = o->ev->type == GT2_EV_GO_STOP ? GO_RUNNABLE : GO_WAITING;
	c->g = NONE;
	return queue(o, cur) ? -1 : 1;
}

static int advance_go_start(struct gt2_order *o, struct ctx *c)
{
	int64_t gid = (int64_t)o->ev->args[0];
	struct seq seq = { o->gen, o->ev->args[1] };
	struct gstate *s = state_get(&o->gs, gid);
	struct ctx cur = *c;

	if (!s || s->status != GO_RUNNABLE || !succeeds(seq, s->seq))
		return 0;
	if (validate(o, cur, MUST, MUST, MUST_NOT))
		return -1;
	s->status = GO_RUNNING;
	s->seq = seq;
	c->g = gid;
	return queue(o, cur) ? -1 : 1;
}

static int advance_go_unblock(struct gt2_order *o, struct ctx *c)
{
	struct seq seq = { o->gen, o->ev->args[1] };
	struct gstate *s = state_get(&o->gs, (int64_t)o->ev->args[0]);

	if (!s || s->status != GO_WAITING || !succeeds(seq, s->seq))
		return 0;
	s->status = GO_RUNNABLE;
	s->seq = seq;
	return queue(o, *c) ? -1 : 1;
}

static int advance_go_switch(struct gt2_order *o, struct ctx *c)
{
	int64_t next = (int64_t)o->ev->args[0];
	struct seq seq = { o->gen, o->ev->args[1] };
	struct gstate *cur_s, *next_s;
	struct ctx cur = *c, start;
	int r;

	if (user_go(o, cur))
		return -1;
	cur_s = running_g(o, cur, GO_RUNNING, "Running");
	if (!cur_s)
		return -1;
	next_s = state_get(&o->gs, next);
	if (!next_s || next_s->status != GO_WAITING || !succeeds(seq, next_s->seq))
		return 0;
	if (queue(o, cur))
		return -1;
	if (o->ev->type == GT2_EV_GO_SWITCH) {
		cur_s->status = GO_WAITING;
		r = make(o, cur, GT2_EV_GO_BLOCK, 0, 0, 0);
	} else {
		g_delete(o, cur.g);
		r = make(o, cur, GT2_EV_GO_DESTROY, 0, 0, 0);
	}
	if (r)
		return -1;
	next_s->status = GO_RUNNING;
	next_s->seq = seq;
	c->g = next;
	start = cur;
	start.g = NONE;
	return make(o, start, GT2_EV_GO_START, (uint64_t)next, o->ev->args[1], 0) ? -1 : 1;
}

static int advance_go_syscall_begin(struct gt2_order *o, struct ctx *c)
{
	struct seq pseq = { o->gen, o->ev->args[0] };
	struct gstate *s;
	struct pstate *p;
	char buf[16];

	if (user_go(o, *c))
		return -1;
	s = running_g(o, *c, GO_RUNNING, "Running");
	if (!s)
		return -1;
	s->status = GO_SYSCALL;
	p = state_get(&o->ps, c->p);
	if (!p)
		return fail(o, "uninitialized proc %" PRId64 " found during %s", c->p,
			    ev_name(o, o->ev->type, buf));
	p->status = PROC_SYSCALL;
	if (!succeeds(pseq, p->seq))
		return fail(o, "failed to advance %s: can't make sequence: %" PRIu64 " (gen=%" PRIu64
			    ") -> %" PRIu64 " (gen=%" PRIu64 ")", ev_name(o, o->ev->type, buf),
			    p->seq.seq, p->seq.gen, pseq.seq, pseq.gen);
	p->seq = pseq;
	return queue(o, *c) ? -1 : 1;
}

static int advance_go_syscall_end(struct gt2_order *o, struct ctx *c)
{
	struct gstate *s;
	struct pstate *p;
	char buf[16];

	if (user_go(o, *c))
		return -1;
	s = running_g(o, *c, GO_SYSCALL, "Running");
	if (!s)
		return -1;
	s->status = GO_RUNNING;
	p = state_get(&o->ps, c->p);
	if (!p)
		return fail(o, "uninitialized proc %" PRId64 " found during %s", c->p,
			    ev_name(o, o->ev->type, buf));
	if (p->status != PROC_SYSCALL)
		return fail(o, "expected proc %" PRId64 " in state Syscall, but got %s instead",
			    c->p, proc_status(p->status));
	p->status = PROC_RUNNING;
	return queue(o, *c) ? -1 : 1;
}

static int advance_go_syscall_end_blocked(struct gt2_order *o, struct ctx *c)
{
	struct ctx cur = *c;
	struct gstate *s;
	struct pstate *p;
	char buf[16];

	if (cur.p != NONE) {
		p = state_get(&o->ps, cur.p);
		if (!p)
			return fail(o, "uninitialized proc %" PRId64 " found during %s", cur.p,
				    ev_name(o, o->ev->type, buf));
		if (p->status == PROC_SYSCALL)
			return 0;
	}
	if (validate(o, cur, MUST, MAY, MUST))
		return -1;
	s = running_g(o, cur, GO_SYSCALL, "Running");
	if (!s)
		return -1;
	c->g = NONE;
	s->status = GO_RUNNABLE;
	return queue(o, cur) ? -1 : 1;
}

static int advance_go_create_syscall(struct gt2_order *o, struct ctx *c)
{
	int64_t gid = (int64_t)o->ev->args[0];
	struct ctx cur = *c;
	struct gstate *s;

	if (validate(o, cur, MUST, MAY, MUST_NOT))
		return -1;
	if (state_get(&o->gs, gid))
		return fail(o, "tried to create goroutine (%" PRId64 ") in syscall that already "
			    "exists", gid);
	s = state_new(&o->gs, gid, sizeof(*s));
	if (!s)
		return oom(o);
	*s = (struct gstate){ .id = gid, .status = GO_SYSCALL, .seq = { o->gen, 0 } };
	c->g = gid;
	return queue(o, cur) ? -1 : 1;
}

static int advance_go_destroy_syscall(struct gt2_order *o, struct ctx *c)
{
	struct ctx cur = *c;
	struct pstate *p;
	char buf[16];

	if (validate(o, cur, MUST, MAY, MUST) || !running_g(o, cur, GO_SYSCALL, "Syscall"))
		return -1;
	g_delete(o, cur.g);
	c->g = NONE;
	if (cur.p != NONE) {
		p = state_get(&o->ps, cur.p);
		if (!p)
			return fail(o, "found invalid proc %" PRId64 " during %s", cur.p,
				    ev_name(o, o->ev->type, buf));
		if (p->status != PROC_SYSCALL)
			return fail(o, "proc %" PRId64 " in unexpected state %s during %s", cur.p,
				    proc_status(p->status), ev_name(o, o->ev->type, buf));
		p->status = PROC_SYSCALL_ABANDONED;
		c->p = NONE;
		if (make(o, cur, GT2_EV_PROC_STEAL, (uint64_t)cur.p, 0, PROC_SYSCALL))
			return -1;
	}
	return queue(o, cur) ? -1 : 1;
}

/* Name @s kept past its generation: false if out of memory. */
static bool keep_name(struct gt2_order *o, struct gt2_str *s)
{
	uint64_t id;

	if (!s->len)
		return true;
	id = gt2_intern(&o->names, *s);
	if (id)
		*s = o->names.strs[id - 1];
	return id;
}

static int advance_user_task_begin(struct gt2_order *o, struct ctx *c)
{
	struct gt2_base *ev = o->ev;
	struct gt2_str name;
	struct task *t;

	if (state_get(&o->tasks, (int64_t)ev->args[0]))
		return fail(o, "task ID conflict: %" PRIu64, ev->args[0]);
	/* A parent 0 is no parent (NoTask), not the background task. */
	if (!ev->args[1])
		ev->args[1] = UINT64_MAX;
	if (!gt2_gen_string(o->g, ev->args[2], &name))
		return fail(o, "invalid string ID %" PRIu64 " for %u event", ev->args[2], ev->type);
	if (!keep_name(o, &name))
		return oom(o);
	t = state_new(&o->tasks, (int64_t)ev->args[0], sizeof(*t));
	if (!t)
		return oom(o);
	*t = (struct task){ name, ev->args[1] };
	if (user_go(o, *c))
		return -1;
	return queue(o, *c) ? -1 : 1;
}

static int advance_user_task_end(struct gt2_order *o, struct ctx *c)
{
	struct gt2_base *ev = o->ev;
	struct task *t = state_get(&o->tasks, (int64_t)ev->args[0]);
	struct gt2_str name = { NULL, 0 };

	ev->args[2] = UINT64_MAX;	/* extra()[0]: the parent, NoTask */
	if (t) {
		ev->args[2] = t->parent;
		name = t->name;
		free(t);
		gt_map_del(&o->tasks, ev->args[0]);
	}
	if (user_go(o, *c) || queue(o, *c))
		return -1;
	/* Go's extra string: the type, which may be another generation's. */
	o->q[(o->q_start + o->q_len - 1) % o->q_cap].task_type = name.s;
	o->q[(o->q_start + o->q_len - 1) % o->q_cap].task_type_len = name.len;
	return 1;
}

static int advance_user_region(struct gt2_order *o, struct ctx *c)
{
	struct gt2_base *ev = o->ev;
	struct region r = { ev->args[0], { NULL, 0 } }, *top;
	struct gstate *s;

	if (user_go(o, *c))
		return -1;
	if (!gt2_gen_string(o->g, ev->args[1], &r.name))
		return fail(o, "invalid string ID %" PRIu64 " for %u event", ev->args[1], ev->type);
	s = state_get(&o->gs, c->g);
	if (!s)
		return fail(o, "encountered %s without known state for current goroutine %" PRId64,
			    ev->type == GT2_EV_USER_REGION_BEGIN ? "EvUserRegionBegin" :
			    "EvUserRegionEnd", c->g);
	if (ev->type == GT2_EV_USER_REGION_BEGIN) {
		if (!gt2_grow(&s->regions, &s->cap_regions, s->nregions, sizeof(*s->regions)) ||
		    !keep_name(o, &r.name))
			return oom(o);
		s->regions[s->nregions++] = r;
	} else if (s->nregions) {
		top = &s->regions[s->nregions - 1];
		if (top->task != r.task || top->name.len != r.name.len ||
		    (r.name.len && memcmp(top->name.s, r.name.s, r.name.len)))
			return fail(o, "misuse of region in goroutine %" PRId64 ": region end {%"
				    PRIu64 " %.*s} when the inner-most active region start event "
				    "is {%" PRIu64 " %.*s}", s->id, r.task, (int)r.name.len,
				    (const char *)r.name.s, top->task, (int)top->name.len,
				    (const char *)top->name.s);
		s->nregions--;
	}
	return queue(o, *c) ? -1 : 1;
}

static int advance_gc_active(struct gt2_order *o, struct ctx *c)
{
	uint64_t seq = o->ev->args[0];

	if (o->gen == o->initial_gen) {
		if (o->gc != GC_UNDETERMINED)
			return fail(o, "GCActive in the first generation isn't first GC event");
		o->gc_seq = seq;
		o->gc = GC_RUNNING;
		return queue(o, *c) ? -1 : 1;
	}
	if (seq != o->gc_seq + 1)
		return 0;
	if (o->gc != GC_RUNNING)
		return fail(o, "encountered GCActive while GC was not in progress");
	o->gc_seq = seq;
	if (user_go(o, *c))
		return -1;
	return queue(o, *c) ? -1 : 1;
}

static int advance_gc_begin(struct gt2_order *o, struct ctx *c)
{
	uint64_t seq = o->ev->args[0];

	if (o->gc == GC_UNDETERMINED) {
		o->gc_seq = seq;
		o->gc = GC_RUNNING;
		return queue(o, *c) ? -1 : 1;
	}
	if (seq != o->gc_seq + 1)
		return 0;
	if (o->gc == GC_RUNNING)
		return fail(o, "encountered GCBegin while GC was already in progress");
	o->gc_seq = seq;
	o->gc = GC_RUNNING;
	if (user_go(o, *c))
		return -1;
	return queue(o, *c) ? -1 : 1;
}

static int advance_gc_end(struct gt2_order *o, struct ctx *c)
{
	uint64_t seq = o->ev->args[0];

	if (seq != o->gc_seq + 1)
		return 0;
	if (o->gc == GC_NOT_RUNNING)
		return fail(o, "encountered GCEnd when GC was not in progress");
	if (o->gc == GC_UNDETERMINED)
		return fail(o, "encountered GCEnd when GC was in an undetermined state");
	o->gc_seq = seq;
	o->gc = GC_NOT_RUNNING;
	if (user_go(o, *c))
		return -1;
	return queue(o, *c) ? -1 : 1;
}

static int advance_annotation(struct gt2_order *o, struct ctx *c)
{
	if (user_go(o, *c))
		return -1;
	return queue(o, *c) ? -1 : 1;
}

/* HeapAlloc, HeapGoal: a P, maybe a G. */
static int advance_heap_metric(struct gt2_order *o, struct ctx *c)
{
	if (validate(o, *c, MUST, MUST, MAY))
		return -1;
	return queue(o, *c) ? -1 : 1;
}

static int advance_gc_sweep_begin(struct gt2_order *o, struct ctx *c)
{
	struct range r = { range_type(o->ev->type), 0 };

	if (validate(o, *c, MUST, MUST, MAY))
		return -1;
	if (begin_range(o, &((struct pstate *)state_get(&o->ps, c->p))->ranges, r))
		return -1;
	return queue(o, *c) ? -1 : 1;
}

static int advance_gc_sweep_active(struct gt2_order *o, struct ctx *c)
{
	int64_t pid = (int64_t)o->ev->args[0];
	struct pstate *p = state_get(&o->ps, pid);
	struct range r = { range_type(o->ev->type), 0 };

	if (!p)
		return fail(o, "encountered GCSweepActive for unknown proc %" PRId64, pid);
	if (active_range(o, &p->ranges, r))
		return -1;
	return queue(o, *c) ? -1 : 1;
}

static int advance_gc_sweep_end(struct gt2_order *o, struct ctx *c)
{
	uint64_t desc;

	if (validate(o, *c, MUST, MUST, MAY))
		return -1;
	if (end_range(o, &((struct pstate *)state_get(&o->ps, c->p))->ranges, o->ev->type, &desc))
		return -1;
	return queue(o, *c) ? -1 : 1;
}

static struct gstate *range_g(struct gt2_order *o, struct ctx c)
{
	struct gstate *s = state_get(&o->gs, c.g);

	if (!s)
		fail(o, "encountered event of type %u without known state for current goroutine %"
		     PRId64, o->ev->type, c.g);
	return s;
}

static int advance_go_range_begin(struct gt2_order *o, struct ctx *c)
{
	struct range r = { range_type(o->ev->type), 0 };
	struct gstate *s;

	if (user_go(o, *c))
		return -1;
	if (o->ev->type == GT2_EV_STW_BEGIN)
		r.desc = o->ev->args[0];
	s = range_g(o, *c);
	if (!s || begin_range(o, &s->ranges, r))
		return -1;
	return queue(o, *c) ? -1 : 1;
}

static int advance_go_range_active(struct gt2_order *o, struct ctx *c)
{
	int64_t gid = (int64_t)o->ev->args[0];
	struct gstate *s = state_get(&o->gs, gid);
	struct range r = { range_type(o->ev->type), 0 };
	char buf[16];

	if (!s)
		return fail(o, "uninitialized goroutine %" PRId64 " found during %s", gid,
			    ev_name(o, o->ev->type, buf));
	if (active_range(o, &s->ranges, r))
		return -1;
	return queue(o, *c) ? -1 : 1;
}

static int advance_go_range_end(struct gt2_order *o, struct ctx *c)
{
	struct gstate *s;
	uint64_t desc;

	if (user_go(o, *c))
		return -1;
	s = range_g(o, *c);
	if (!s || end_range(o, &s->ranges, o->ev->type, &desc))
		return -1;
	if (o->ev->type == GT2_EV_STW_END)
		o->ev->args[0] = desc;
	return queue(o, *c) ? -1 : 1;
}

static int advance_alloc_free(struct gt2_order *o, struct ctx *c)
{
	if (validate(o, *c, MUST, MAY, MAY))
		return -1;
	return queue(o, *c) ? -1 : 1;
}

static const advance_fn dispatch[GT2_EV_COUNT] = {
	[GT2_EV_PROCS_CHANGE] = advance_annotation,
	[GT2_EV_PROC_START] = advance_proc_start,
	[GT2_EV_PROC_STOP] = advance_proc_stop,
	[GT2_EV_PROC_STEAL] = advance_proc_steal,
	[GT2_EV_PROC_STATUS] = advance_proc_status,
	[GT2_EV_GO_CREATE] = advance_go_create,
	[GT2_EV_GO_CREATE_SYSCALL] = advance_go_create_syscall,
	[GT2_EV_GO_START] = advance_go_start,
	[GT2_EV_GO_DESTROY] = advance_go_stop_exec,
	[GT2_EV_GO_DESTROY_SYSCALL] = advance_go_destroy_syscall,
	[GT2_EV_GO_STOP] = advance_go_stop_exec,
	[GT2_EV_GO_BLOCK] = advance_go_stop_exec,
	[GT2_EV_GO_UNBLOCK] = advance_go_unblock,
	[GT2_EV_GO_SYSCALL_BEGIN] = advance_go_syscall_begin,
	[GT2_EV_GO_SYSCALL_END] = advance_go_syscall_end,
	[GT2_EV_GO_SYSCALL_END_BLOCKED] = advance_go_syscall_end_blocked,
	[GT2_EV_GO_STATUS] = advance_go_status,
	[GT2_EV_STW_BEGIN] = advance_go_range_begin,
	[GT2_EV_STW_END] = advance_go_range_end,
	[GT2_EV_GC_ACTIVE] = advance_gc_active,
	[GT2_EV_GC_BEGIN] = advance_gc_begin,
	[GT2_EV_GC_END] = advance_gc_end,
	[GT2_EV_GC_SWEEP_ACTIVE] = advance_gc_sweep_active,
	[GT2_EV_GC_SWEEP_BEGIN] = advance_gc_sweep_begin,
	[GT2_EV_GC_SWEEP_END] = advance_gc_sweep_end,
	[GT2_EV_GC_MARK_ASSIST_ACTIVE] = advance_go_range_active,
	[GT2_EV_GC_MARK_ASSIST_BEGIN] = advance_go_range_begin,
	[GT2_EV_GC_MARK_ASSIST_END] = advance_go_range_end,
	[GT2_EV_HEAP_ALLOC] = advance_heap_metric,
	[GT2_EV_HEAP_GOAL] = advance_heap_metric,
	[GT2_EV_GO_LABEL] = advance_annotation,
	[GT2_EV_USER_TASK_BEGIN] = advance_user_task_begin,
	[GT2_EV_USER_TASK_END] = advance_user_task_end,
	[GT2_EV_USER_REGION_BEGIN] = advance_user_region,
	[GT2_EV_USER_REGION_END] = advance_user_region,
	[GT2_EV_USER_LOG] = advance_annotation,
	[GT2_EV_GO_SWITCH] = advance_go_switch,
	[GT2_EV_GO_SWITCH_DESTROY] = advance_go_switch,
	[GT2_EV_GO_CREATE_BLOCKED] = advance_go_create,
	[GT2_EV_GO_STATUS_STACK] = advance_go_status,
	[GT2_EV_SPAN ... GT2_EV_GOROUTINE_STACK_FREE] = advance_alloc_free,
};

int gt2_order_advance(struct gt2_order *o, struct gt2_base *ev, const struct gt2_gen *g,
		      int64_t m, uint64_t gen, struct gt_error *err)
{
	struct ctx c = { NONE, NONE, m };
	struct mstate *ms = NULL;
	int r;

	if (!o->initial_gen)
		o->initial_gen = gen;
	if (m != NONE) {
		ms = state_get(&o->ms, m);
		if (!ms) {
			ms = state_new(&o->ms, m, sizeof(*ms));
			if (!ms) {
				gt_fail(err, GT_OK, 0, "out of memory");
				return -1;
			}
			*ms = (struct mstate){ NONE, NONE };
		}
		c.g = ms->g;
		c.p = ms->p;
	}
	o->ev = ev;
	o->g = g;
	o->gen = gen;
	o->err = err;
	if (!dispatch[ev->type]) {
		gt_fail(err, GT_ERR_STATE, ev->off, "bad event type found while ordering: %u",
			ev->type);
		return -1;
	}
	r = dispatch[ev->type](o, &c);
	if (r > 0 && ms) {
		ms->p = c.p;
		ms->g = c.g;
	}
	return r;
}

struct gt2_order *gt2_order_new(int ver)
{
	struct gt2_order *o = calloc(1, sizeof(*o));

	if (o)
		o->ver = ver;
	return o;
}

static void free_states(struct gt_map *m, void (*fn)(void *))
{
	size_t i;

	for (i = 0; i < m->cap; i++)
		if (m->used[i])
			fn((void *)(uintptr_t)m->slots[i].val);
	gt_map_free(m);
}

static void pstate_free(void *p)
{
	struct pstate *s = p;

	free(s->ranges.v);
	free(s);
}

static void gstate_free_any(void *p)
{
	gstate_free(p);
}

void gt2_order_free(struct gt2_order *o)
{
	if (!o)
		return;
	free_states(&o->gs, gstate_free_any);
	free_states(&o->ps, pstate_free);
	free_states(&o->ms, free);
	free_states(&o->tasks, free);
	gt2_intern_free(&o->names);
	free(o->q);
	free(o);
}

void gt2_order_dump(FILE *f, const struct gt2_order *o)
{
	static const char *const gc[] = { "Undetermined", "NotRunning", "Running" };
	size_t i;

	for (i = 0; i < o->gs.cap; i++) {
		const struct gstate *s = (void *)(uintptr_t)o->gs.slots[i].val;

		if (o->gs.used[i])
			fprintf(f, "G %" PRId64 " [status=%s seq=%" PRIu64 " (gen=%" PRIu64 ")]\n",
				s->id, go_status(s->status), s->seq.seq, s->seq.gen);
	}
	fputc('\n', f);
	for (i = 0; i < o->ps.cap; i++) {
		const struct pstate *s = (void *)(uintptr_t)o->ps.slots[i].val;

		if (o->ps.used[i])
			fprintf(f, "P %" PRId64 " [status=%s seq=%" PRIu64 " (gen=%" PRIu64 ")]\n",
				s->id, proc_status(s->status), s->seq.seq, s->seq.gen);
	}
	fputc('\n', f);
	for (i = 0; i < o->ms.cap; i++) {
		const struct mstate *s = (void *)(uintptr_t)o->ms.slots[i].val;

		if (o->ms.used[i])
			fprintf(f, "M %" PRId64 " [g=%" PRId64 " p=%" PRId64 "]\n",
				(int64_t)o->ms.slots[i].key, s->g, s->p);
	}
	fprintf(f, "\nGC %" PRIu64 " %s\n", o->gc_seq, gc[o->gc]);
}
