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

/* How far past an APP event MACHINE is read: its spans until then are closed. */
#define AP_AHEAD_NS	10000000

/* Go's GoStatus values of a goroutine on an M. */
enum { AP_GO_RUNNING = 2, AP_GO_SYSCALL = 3 };

struct ap_state {
	const struct gt2_trace *t;
	struct gt2_gen gen;
	int64_t off;		/* the generation's time to CLOCK_MONOTONIC */
	struct gt2_cursor c;
	struct jn_threads *th;
	const struct jn_strings *names;	/* MACHINE's programs and reasons, the spans' */
	struct jn_strings *strs;	/* the generation's regions' and logs' */
	struct jn_insert *ins;
	size_t nins, cap;
	bool *early;		/* ins[i] goes first among those at its event and time */
	size_t cap_early;
	struct gt_join_stats *st;
	struct jn_machine *mc;	/* read up to where APP is */
	int64_t from;		/* APP's first batch, mono ns */
	int64_t prev_last;	/* the last event of the generations before (Go's floor) */
	int64_t first, last;	/* APP's first and last event, mono ns */
	uint32_t key;		/* "kernel", the logs' category */
	struct ap_call *waits;	/* the generation's calls that end at a GoStart */
	size_t nwaits, cap_waits;
	struct ap_start *starts;	/* the generation's GoStarts */
	size_t nstarts, cap_starts;
	struct gt_error *err;
};

/*
 * A system call of a goroutine: a region from its GoSyscallBegin (where M
 * still has a P) to where the goroutine has one again: its GoSyscallEnd,
 * or after GoSyscallEndBlocked the goroutine's next GoStart. Go takes user
 * events only from a goroutine with a P, so the spans inside get logs.
 */
struct ap_call {
	int64_t g;
	uint64_t after;		/* its GoSyscallBegin */
	int64_t begin;		/* and that event's time */
	int64_t blocked;	/* its EndBlocked's time, when it needs a GoStart */
	struct jn_thread *t;
	size_t first, n;	/* its spans, in t->spans */
};

/* What M is doing after an event. */
struct ap_m {
	int64_t g;		/* -1: none */
	bool syscall;
	bool in_call;		/* call is the system call M's goroutine is in */
	struct ap_call call;
	uint64_t off;		/* the event */
	int64_t time;		/* its time, mono ns */
	bool have;		/* an event of M's in this generation is behind */
};

/* A GoStart of the generation, for the calls that end in one. */
struct ap_start {
	int64_t g, time;
	uint64_t off;
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

static int ap_insert(struct ap_state *s, uint64_t after, uint64_t ts, uint8_t type,
		     uint32_t str, uint32_t str2)
{
	struct jn_insert *in;

	if (!gt2_grow(&s->ins, &s->cap, s->nins, sizeof(*s->ins)) ||
	    !gt2_grow(&s->early, &s->cap_early, s->nins, sizeof(*s->early)))
		return ap_nomem(s);
	s->early[s->nins] = false;
	in = &s->ins[s->nins++];
	in->after = after;
	in->ts = ts;
	in->type = type;
	in->str = str;
	in->str2 = str2;
	return 0;
}

/* The kind of span @sp, for a goroutine in a system call or not. */
static enum gt_join_kind ap_kind(const struct jn_span *sp, bool syscall)
{
	if (!sp->runnable)
		return syscall ? GT_JOIN_SYSCALL : GT_JOIN_BLOCKED;
	/* Its CPU idled most of the wait: the cgroup's quota kept it off. */
	if (sp->idle_ns * 2 > sp->in - sp->out)
		return GT_JOIN_THROTTLED;
	return GT_JOIN_CPU_WAIT;
}

/* The region type of a span of @kind, as a jn_strings index. */
static int ap_type(struct ap_state *s, const struct jn_span *sp, enum gt_join_kind kind,
		   uint32_t *type)
{
	char buf[256];

	if (kind == GT_JOIN_BLOCKED || kind == GT_JOIN_SYSCALL)
		snprintf(buf, sizeof(buf), "%s %s", gt_join_kind_name(kind),
			 s->names->s[sp->reason]);
	else
		snprintf(buf, sizeof(buf), "%s", gt_join_kind_name(kind));
	return ap_intern(s, buf, type);
}

/* What ran instead of @sp's thread, or who woke it, into @buf. */
static void ap_who(const struct ap_state *s, const struct jn_span *sp, char *buf, size_t size)
{
	char *const *str = s->names->s;

	if (sp->runnable && sp->other_tid >= 0)
		snprintf(buf, size, "ran instead on CPU %d: %s [%" PRId64 "]", sp->cpu,
			 str[sp->other_prog], sp->other_tid);
	else if (sp->runnable)
		snprintf(buf, size, "nothing ran instead on CPU %d", sp->cpu);
	else if (sp->waker_tid == -2)
		snprintf(buf, size, "woken in %s context on CPU %d", str[sp->waker_reason],
			 sp->waker_cpu);
	else if (sp->waker_tid >= 0)
		snprintf(buf, size, "woken by %s [%" PRId64 "] (%s) on CPU %d",
			 str[sp->waker_prog], sp->waker_tid, str[sp->waker_reason],
			 sp->waker_cpu);
	else
		snprintf(buf, size, "woken: not seen in MACHINE");
}

static void ap_count(struct ap_state *s, enum gt_join_kind kind, int64_t ns)
{
	s->st->regions[kind]++;
	s->st->region_ns[kind] += ns;
}

/* The region for span @sp of a running goroutine, before M's next event at @next. */
static int ap_region(struct ap_state *s, const struct ap_m *m, const struct jn_span *sp,
		     int64_t next)
{
	enum gt_join_kind kind = ap_kind(sp, false);
	int64_t end = sp->in < next ? sp->in : next;
	int64_t begin = sp->out;
	uint32_t type, msg;
	char buf[256];
	uint64_t b;

	/* Go moves what is before the last generation's last event up to it. */
	if (begin < s->prev_last) {
		begin = s->prev_last;
		s->st->unjoined += end <= begin;
	}
	if (end <= begin)
		return 0;
	ap_who(s, sp, buf, sizeof(buf));
	if (ap_type(s, sp, kind, &type) || ap_intern(s, buf, &msg))
		return -1;
	ap_count(s, kind, end - begin);
	b = ap_ticks(s, begin, m->time, next);
	return ap_insert(s, m->off, b, GT2_EV_USER_REGION_BEGIN, type, 0) ||
	       ap_insert(s, m->off, b, GT2_EV_USER_LOG, s->key, msg) ||
	       ap_insert(s, m->off, ap_ticks(s, end, m->time, next),
			 GT2_EV_USER_REGION_END, type, 0);
}

/* The region of system call @c, ending after the event at @off and @end (mono ns). */
static int ap_call_region(struct ap_state *s, const struct ap_call *c, uint64_t off, int64_t end)
{
	const struct jn_span *sp, *longest = NULL;
	enum gt_join_kind kind;
	uint64_t b = ap_ticks(s, c->begin, c->begin, c->begin);
	uint32_t type, msg;
	char who[256], buf[320];
	size_t i;

	for (i = c->first; i < c->first + c->n; i++) {
		sp = &c->t->spans[i];
		if (!longest || sp->in - sp->out > longest->in - longest->out)
			longest = sp;
	}
	if (!longest)
		return 0;
	if (c->begin < s->prev_last) {
		s->st->unjoined += c->n;	/* Go would move its begin up */
		return 0;
	}
	kind = ap_kind(longest, true);
	if (ap_type(s, longest, kind, &type))
		return -1;
	ap_count(s, kind, end - c->begin);
	if (ap_insert(s, c->after, b, GT2_EV_USER_REGION_BEGIN, type, 0))
		return -1;
	for (i = c->first; i < c->first + c->n; i++) {
		sp = &c->t->spans[i];
		ap_who(s, sp, who, sizeof(who));
		if (sp->runnable)
			snprintf(buf, sizeof(buf), "waited for a CPU for %.3f ms: %s",
				 (sp->in - sp->out) / 1e6, who);
		else
			snprintf(buf, sizeof(buf), "blocked in %s for %.3f ms: %s",
				 s->names->s[sp->reason], (sp->in - sp->out) / 1e6, who);
		if (ap_intern(s, buf, &msg) || ap_insert(s, c->after, b, GT2_EV_USER_LOG, s->key, msg))
			return -1;
	}
	if (ap_insert(s, off, ap_ticks(s, end, end, end), GT2_EV_USER_REGION_END, type, 0))
		return -1;
	/* After a GoStart, before the regions of that run made already. */
	s->early[s->nins - 1] = c->blocked != 0;
	return 0;
}

/* The spans of @t that start before M's event at @next: regions, or counted out. */
static int ap_gap(struct ap_state *s, struct ap_m *m, struct jn_thread *t, int64_t next)
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
		if (m->in_call) {
			if (!m->call.n)
				m->call.first = t->next;
			m->call.n++;
			continue;
		}
		if (m->syscall) {
			s->st->unjoined++;	/* a call begun in an earlier generation */
			continue;
		}
		if (ap_region(s, m, sp, next))
			return -1;
	}
	return 0;
}

void jn_m_step(int64_t *g, bool *syscall, int64_t self, const struct gt2_base *ev)
{
	switch (ev->type) {
	case GT2_EV_GO_STATUS:
	case GT2_EV_GO_STATUS_STACK:
		if ((int64_t)ev->args[1] == self &&
		    (ev->args[2] == AP_GO_RUNNING || ev->args[2] == AP_GO_SYSCALL)) {
			*g = (int64_t)ev->args[0];
			*syscall = ev->args[2] == AP_GO_SYSCALL;
		}
		break;
	case GT2_EV_GO_START:
	case GT2_EV_GO_SWITCH:
	case GT2_EV_GO_SWITCH_DESTROY:
		*g = (int64_t)ev->args[0];
		*syscall = false;
		break;
	case GT2_EV_GO_CREATE_SYSCALL:
		*g = (int64_t)ev->args[0];
		*syscall = true;
		break;
	case GT2_EV_GO_STOP:
	case GT2_EV_GO_BLOCK:
	case GT2_EV_GO_DESTROY:
	case GT2_EV_GO_DESTROY_SYSCALL:
	case GT2_EV_GO_SYSCALL_END_BLOCKED:
		*g = -1;
		*syscall = false;
		break;
	case GT2_EV_GO_SYSCALL_BEGIN:
		*syscall = true;
		break;
	case GT2_EV_GO_SYSCALL_END:
		*syscall = false;
		break;
	}
}

/* A call that needs its goroutine's next GoStart, kept for the generation's end. */
static int ap_call_wait(struct ap_state *s, const struct ap_call *c)
{
	if (!gt2_grow(&s->waits, &s->cap_waits, s->nwaits, sizeof(*s->waits)))
		return ap_nomem(s);
	s->waits[s->nwaits++] = *c;
	return 0;
}

/* Event @ev of M at @now ends M's call: its region, now or at a GoStart, or none. */
static int ap_call_end(struct ap_state *s, struct ap_m *m, const struct gt2_base *ev, int64_t now)
{
	switch (ev->type) {
	case GT2_EV_GO_SYSCALL_END:
		m->in_call = false;
		return ap_call_region(s, &m->call, ev->off, now);
	case GT2_EV_GO_SYSCALL_END_BLOCKED:
		m->in_call = false;
		m->call.blocked = now;
		return m->call.n ? ap_call_wait(s, &m->call) : 0;
	case GT2_EV_GO_DESTROY_SYSCALL:
	case GT2_EV_GO_START:
	case GT2_EV_GO_STATUS:
	case GT2_EV_GO_STATUS_STACK:
	case GT2_EV_GO_SYSCALL_BEGIN:
		m->in_call = false;
		s->st->unjoined += m->call.n;	/* the goroutine left the call unseen */
		return 0;
	}
	return 0;
}

/* Event @ev of M at @now as it bears on system calls: one begins, or ends. */
static int ap_call_step(struct ap_state *s, struct ap_m *m, struct jn_thread *t,
			const struct gt2_base *ev, int64_t now)
{
	struct ap_start *st;

	if (ev->type == GT2_EV_GO_START) {
		if (!gt2_grow(&s->starts, &s->cap_starts, s->nstarts, sizeof(*s->starts)))
			return ap_nomem(s);
		st = &s->starts[s->nstarts++];
		st->g = (int64_t)ev->args[0];
		st->time = now;
		st->off = ev->off;
	}
	if (m->in_call && ap_call_end(s, m, ev, now))
		return -1;
	if (ev->type == GT2_EV_GO_SYSCALL_BEGIN && m->g >= 0 && t) {
		m->in_call = true;
		memset(&m->call, 0, sizeof(m->call));
		m->call.g = m->g;
		m->call.after = ev->off;
		m->call.begin = now;
		m->call.t = t;
	}
	return 0;
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
		/* The spans before @now are all read once MACHINE has later events. */
		if (t && jn_machine_until(s->mc, now + AP_AHEAD_NS))
			return -1;
		if (t && ap_gap(s, m, t, now))
			return -1;
		jn_m_step(&m->g, &m->syscall, self, &s->c.ev);
		if (ap_call_step(s, m, t, &s->c.ev, now))
			return -1;
		m->off = s->c.ev.off;
		m->time = now;
		m->have = true;
		if (t)
			t->busy = m->g >= 0;
	}
	if (k >= 0 && m->in_call && m->call.n)
		s->st->unjoined += m->call.n;	/* it goes on in the next generation */
	return k;
}

/* Calls by goroutine, then by when they ended blocked (qsort_r over indices into @arg). */
static int ap_wait_cmp(const void *a, const void *b, void *arg)
{
	const struct ap_call *w = arg, *x = &w[*(const size_t *)a], *y = &w[*(const size_t *)b];

	if (x->g != y->g)
		return x->g < y->g ? -1 : 1;
	return (x->blocked > y->blocked) - (x->blocked < y->blocked);
}

/* A call that ended blocked, as ap_calls_done() looks it up: its goroutine and the time. */
struct ap_wait_key {
	int64_t g, blocked;
};

/*
 * Start @st, if it is the first after the last call of its goroutine that
 * ended blocked by then (@keys: the calls, sorted; @idx: their index in
 * s->waits). Between a call that ends blocked and the goroutine's next call
 * it must start again: no earlier call can take this start.
 */
static void ap_start_match(const struct ap_state *s, const size_t *idx,
			   const struct ap_wait_key *keys, size_t *next, const struct ap_start *st)
{
	size_t lo = 0, hi = s->nwaits, mid, *n;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (keys[mid].g < st->g || (keys[mid].g == st->g && keys[mid].blocked <= st->time))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || keys[lo - 1].g != st->g)
		return;
	n = &next[idx[lo - 1]];
	if (*n == SIZE_MAX || st->time < s->starts[*n].time)
		*n = (size_t)(st - s->starts);
}

/*
 * The calls that ended blocked end at their goroutine's next GoStart of the
 * generation: the few calls sorted, each GoStart looked up among them.
 */
static int ap_calls_done(struct ap_state *s)
{
	size_t i, *idx, *next;
	struct ap_wait_key *keys;
	int ret = 0;

	if (!s->nwaits) {
		s->nstarts = 0;
		return 0;
	}
	idx = malloc(2 * s->nwaits * sizeof(*idx));
	keys = malloc(s->nwaits * sizeof(*keys));
	if (!idx || !keys) {
		free(idx);
		free(keys);
		return ap_nomem(s);
	}
	next = idx + s->nwaits;
	for (i = 0; i < s->nwaits; i++) {
		idx[i] = i;
		next[i] = SIZE_MAX;
	}
	qsort_r(idx, s->nwaits, sizeof(*idx), ap_wait_cmp, s->waits);
	for (i = 0; i < s->nwaits; i++) {
		keys[i].g = s->waits[idx[i]].g;
		keys[i].blocked = s->waits[idx[i]].blocked;
	}
	for (i = 0; i < s->nstarts; i++)
		ap_start_match(s, idx, keys, next, &s->starts[i]);
	for (i = 0; i < s->nwaits; i++) {
		if (next[i] == SIZE_MAX) {
			s->st->unjoined += s->waits[i].n;	/* it runs again in a later generation */
			continue;
		}
		ret = ap_call_region(s, &s->waits[i], s->starts[next[i]].off,
				     s->starts[next[i]].time);
		if (ret)
			break;
	}
	free(idx);
	free(keys);
	s->nwaits = 0;
	s->nstarts = 0;
	return ret;
}

/* The spans the generation's Ms went past: forgotten, but for what MACHINE still has open. */
static void ap_forget(struct ap_state *s)
{
	struct jn_thread *t;
	size_t i, n;

	for (i = 0; i < s->th->len; i++) {
		t = &s->th->v[i];
		n = t->nspans;
		jn_machine_drop(s->mc, t, t->next);
		t->next -= n - t->nspans;
	}
}

/* One generation of APP: its regions planned, sorted and written with it. */
static int ap_gen(struct ap_state *s, struct jn_writer *out, const struct gt2_span *sp)
{
	struct ap_m m;
	size_t i;
	int rc;

	s->off = jn_mono_off(&s->gen, true);
	if (s->from == INT64_MIN)
		s->from = gt2_gen_ns(&s->gen, s->gen.min_ts) + s->off;
	s->prev_last = s->last;
	s->nins = 0;
	for (i = 0; i < s->gen.nms; i++) {
		memset(&m, 0, sizeof(m));
		m.g = -1;
		if (ap_m(s, i, &m) < 0)
			return -1;
	}
	if (ap_calls_done(s))
		return -1;
	if (jn_sort_inserts(&s->ins, s->nins, s->early))
		return ap_nomem(s);
	/* The writer takes the inserts and the strings: the next generation's are new. */
	rc = jn_writer_put(out, sp, s->ins, s->nins, s->strs);
	s->ins = NULL;
	s->cap = 0;
	if (rc)
		return -1;
	ap_forget(s);
	return ap_intern(s, "kernel", &s->key);
}

int jn_app_join(const struct gt2_trace *app, struct jn_threads *th, struct jn_machine *mc,
		const struct jn_strings *names, struct jn_strings *strs, int fd,
		struct gt_join_stats *st, int64_t *first, int64_t *last, struct gt_error *err)
{
	struct gt2_gens gens = { .t = app, .pos = app->start };
	struct ap_state s = { .t = app, .th = th, .mc = mc, .names = names, .strs = strs,
			      .st = st, .err = err, .from = INT64_MIN, .first = INT64_MAX,
			      .last = INT64_MIN };
	struct jn_splice *out = jn_splice_open(app, fd, err);
	struct jn_writer *w = out ? jn_writer_start(out, err) : NULL;
	struct gt2_span sp;
	int k = -1;

	if (!w || ap_intern(&s, "kernel", &s.key))
		goto out;
	while ((k = jn_gen_next(&gens, &s.gen, err)) > 0) {
		sp.gen = s.gen.gen;
		sp.off = s.gen.off;
		sp.end = gens.spilled ? gens.spill.off : gens.pos;
		sp.first = gt2_gen_ns(&s.gen, s.gen.min_ts);
		sp.last = sp.first;	/* not known before its events are read; not needed */
		if (ap_gen(&s, w, &sp)) {
			k = -1;
			break;
		}
	}
out:
	if (w && jn_writer_stop(w))
		k = -1;
	if (out && jn_splice_close(out, k == 0))
		k = -1;
	free(s.c.buf);
	free(s.waits);
	free(s.starts);
	free(s.early);
	free(s.ins);
	gt2_gen_free(&s.gen);
	*first = s.first;
	*last = s.last;
	return k;
}
