// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace split for Go's trace format before 1.22. The events, merged and
 * checked as Go's parser does it (gt_check), are re-encoded into pieces:
 * each piece opens with the state at its cut made up from the events before
 * it (every live goroutine created and put in its state, Ps started, a GC,
 * sweep or stop-the-world under way), renumbers the sequence numbers from
 * there, and closes with its running goroutines and Ps stopped. A CPU
 * sample, placed by the merge at its own time, goes into the piece of that
 * time. One pass: the pieces are written under temporary names and renamed
 * once the whole trace proved valid. Memory: per live goroutine, P and
 * piece, and the used strings and stacks of the piece being written.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/map.h"
#include "common/table.h"
#include "report/split.h"
#include "util/msg.h"
#include "util/trace_file.h"

enum { G_DEAD, G_RUNNABLE, G_RUNNING, G_WAITING };

#define BATCH_FLUSH	(32 << 10)	/* a P's batch goes out at this size */
#define OUT_BUFFER	(1 << 20)
#define BATCH_HEAD_MAX	21		/* type, P and time stamp varints */
#define CLOSE_RESERVE	(2 * 12 + BATCH_HEAD_MAX)	/* per P: GoSched, ProcStop */
#define MAX_FRAMES	1000
#define KNOWN_STACKS	1024		/* stack ids remembered as in the piece's footer */

/* A goroutine as the events so far left it. */
struct s1_g {
	uint64_t seq;			/* its sequence number in the piece */
	uint64_t new_stk, stk;		/* its GoCreate's stacks */
	int64_t sys_ts;			/* its syscall's start in the piece */
	uint8_t status;
	bool syscall;			/* waiting in a syscall */
};

/* A P as the events so far left it, and its batch in the piece. */
struct s1_p {
	int64_t id;
	uint64_t thread, g;
	bool running, sweep;
	bool stw;			/* before go 1.10 a stop-the-world is per P */
	uint8_t *buf;			/* the batch's events, its header not yet */
	size_t len, cap;
	int64_t batch_ts, last_ts;
};

struct piece1 {
	char *tmp;			/* its name until the trace proved valid */
	uint64_t events, synth, bytes;
	int64_t first, last;		/* ns since the trace's first event */
};

struct split_oldtrace {
	const struct split_opts *o;
	struct gt_trace *t;
	struct stat in;
	struct gt_table gs;		/* goroutine -> struct s1_g */
	struct gt_table ps;		/* P id -> struct s1_p */
	struct s1_p **plist, *last_p;
	size_t nr_ps;
	bool gc, stw;
	uint64_t stw_kind, procs;
	int64_t stw_p;
	uint64_t *timer_gs;
	size_t nr_timer_gs;
	uint64_t seen;			/* the trace's events so far */
	int64_t end;			/* the latest event's ns */
	struct gt_frame *frames;
	/* The piece being written, if out. */
	FILE *out;
	struct piece1 *cur;
	uint64_t bytes;			/* header, batches (with their headers to come) */
	uint64_t footer;		/* its strings, stacks, frequency, timer goroutines */
	uint64_t gc_seq;
	int64_t synth_ts, last_ts;	/* its opening state's time, its latest event's */
	struct gt_map stacks, strings;	/* those its events use */
	/* Some of its stacks, at id % KNOWN_STACKS: found without a lookup in stacks. */
	uint64_t known[KNOWN_STACKS];
	struct piece1 *pieces;
	size_t nr_pieces, cap_pieces;
};

static int oom(void)
{
	msg_err(SPLIT_CMD, "out of memory");
	return -1;
}

/* The P of id @id, created as not running. */
static struct s1_p *p_get(struct split_oldtrace *sp, int64_t id)
{
	struct s1_p *p, **list;

	if (sp->last_p && sp->last_p->id == id)
		return sp->last_p;
	p = gt_table_get(&sp->ps, (uint64_t)id);
	if (!p) {
		list = realloc(sp->plist, (sp->nr_ps + 1) * sizeof(*list));
		if (!list)
			return NULL;
		sp->plist = list;
		p = gt_table_add(&sp->ps, (uint64_t)id);
		if (!p)
			return NULL;
		p->id = id;
		sp->plist[sp->nr_ps++] = p;
	}
	sp->last_p = p;
	return p;
}

/* Bytes of string @id in the piece's footer if it is not there yet; @add puts it there. */
static uint64_t need_string(struct split_oldtrace *sp, uint64_t id, bool add)
{
	uint8_t head[GT_ENCODE_MAX];
	size_t len;
	bool added;

	if (!id || gt_map_get(&sp->strings, id))
		return 0;
	if (add && !gt_map_put(&sp->strings, id, &added))
		return UINT64_MAX / 2;	/* out of memory: reported at the footer */
	gt_string(sp->t, id, &len);
	return gt_encode_string(id, len, head) + len;
}

/* As need_string(), for stack @id and the strings of its frames. */
static uint64_t need_stack(struct split_oldtrace *sp, uint64_t id, bool add)
{
	unsigned int n, i;
	uint64_t bytes;
	size_t len;
	bool added;

	if (!id || sp->known[id % KNOWN_STACKS] == id)
		return 0;
	if (gt_map_get(&sp->stacks, id)) {
		sp->known[id % KNOWN_STACKS] = id;
		return 0;
	}
	if (!gt_stack_wire(sp->t, id, &len))
		return 0;
	if (add && !gt_map_put(&sp->stacks, id, &added))
		return UINT64_MAX / 2;
	if (add)
		sp->known[id % KNOWN_STACKS] = id;
	bytes = len;
	n = gt_stack(sp->t, id, sp->frames, MAX_FRAMES);
	for (i = 0; i < n && i < MAX_FRAMES; i++)
		bytes += need_string(sp, sp->frames[i].fn, add) +
			 need_string(sp, sp->frames[i].file, add);
	return bytes;
}

/* What @e adds to the piece's footer: its stacks and strings not there yet. */
static uint64_t need_footer(struct split_oldtrace *sp, const struct gt_event *e, bool add)
{
	uint64_t bytes = need_stack(sp, e->stk, add);

	switch (e->type) {
	case GT_EV_GO_CREATE:
		return bytes + need_stack(sp, e->args[1], add);
	case GT_EV_GO_START_LABEL:
	case GT_EV_USER_TASK_CREATE:
	case GT_EV_USER_REGION:
		return bytes + need_string(sp, e->args[2], add);
	case GT_EV_USER_LOG:
		return bytes + need_string(sp, e->args[1], add);
	}
	return bytes;
}

static size_t batch_head(const struct split_oldtrace *sp, const struct s1_p *p, uint8_t *buf)
{
	struct gt_event b = { .type = GT_EV_BATCH, .args = { (uint64_t)p->id,
							      (uint64_t)p->batch_ts } };

	return gt_encode_event(sp->t, &b, 0, buf);
}

/* P @p's batch into the piece's file. */
static void flush(struct split_oldtrace *sp, struct s1_p *p)
{
	uint8_t head[GT_ENCODE_MAX];

	if (!p->len)
		return;
	fwrite(head, 1, batch_head(sp, p, head), sp->out);
	fwrite(p->buf, 1, p->len, sp->out);
	p->len = 0;
}

/*
 * @e's time stamp delta at @ts in P @p's batch. A CPU sample's is 0: its time is its first
 * argument, and Go's parser leaves the batch's time where it was (as the module writes it).
 */
static uint64_t delta(const struct s1_p *p, const struct gt_event *e, int64_t ts)
{
	return e->type == GT_EV_CPU_SAMPLE ? 0 : (uint64_t)(ts - p->last_ts);
}

/* Event @e at @ts into P @p's batch of the piece; -1 if out of memory. */
static int put(struct split_oldtrace *sp, struct s1_p *p, const struct gt_event *e, int64_t ts)
{
	uint8_t head[GT_ENCODE_MAX];
	size_t need = p->len + GT_ENCODE_MAX + e->str_len, cap;
	uint8_t *buf;

	if (need > p->cap) {
		cap = need > 2 * p->cap ? need : 2 * p->cap;
		buf = realloc(p->buf, cap);
		if (!buf)
			return oom();
		p->buf = buf;
		p->cap = cap;
	}
	if (!p->len) {
		p->batch_ts = p->last_ts = ts;
		sp->bytes += batch_head(sp, p, head);
	}
	need = gt_encode_event(sp->t, e, delta(p, e, ts), p->buf + p->len);
	p->len += need;
	sp->bytes += need;
	if (e->type != GT_EV_CPU_SAMPLE)
		p->last_ts = ts;
	sp->footer += need_footer(sp, e, true);
	sp->cur->events++;
	if (p->len >= BATCH_FLUSH)
		flush(sp, p);
	return 0;
}

/* A made-up event on @p at @ts: the piece's opening or closing state. */
static int synth(struct split_oldtrace *sp, struct s1_p *p, int64_t ts, uint8_t type, uint64_t a0,
		 uint64_t a1, uint64_t stk)
{
	struct gt_event e = { .type = type, .args = { a0, a1 }, .stk = stk };

	sp->cur->synth++;
	return put(sp, p, &e, ts);
}

/* A live goroutine of the opening state. */
struct snap_g {
	uint64_t id;
	struct s1_g *g;
};

static void snap_add(void *rec, uint64_t id, void *ctx)
{
	struct snap_g **next = ctx;

	*(*next)++ = (struct snap_g){ id, rec };
}

static int snap_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct snap_g *)a)->id, y = ((const struct snap_g *)b)->id;

	return x < y ? -1 : x > y;
}

/* A live goroutine created, and waiting if it is (not in a syscall: snap_syscalls()). */
static int snap_g(struct split_oldtrace *sp, struct s1_p *p, uint64_t id, struct s1_g *g)
{
	g->seq = 1;
	if (synth(sp, p, sp->synth_ts, GT_EV_GO_CREATE, id, g->new_stk, g->stk))
		return -1;
	if (g->status != G_WAITING || g->syscall)
		return 0;
	g->seq = 2;
	return synth(sp, p, sp->synth_ts, GT_EV_GO_WAITING, id, 0, 0);
}

/*
 * The goroutines in a system call, each started on @p and blocked there in
 * its call as the module writes a blocking call: ProcStart, GoStart,
 * GoSysCall, GoSysBlock, ProcStop (snap_ps() then starts @p if it was
 * running). A GoInSyscall would be shorter, but Go 1.22+'s reader gives its
 * goroutine no thread, and Go 1.27's thread view then crashes on its exit
 * ("non-executing goroutine stopped").
 */
static int snap_syscalls(struct split_oldtrace *sp, struct s1_p *p, const struct snap_g *gs,
			 size_t n)
{
	int64_t ts = sp->synth_ts;
	struct s1_g *g;
	size_t i;

	for (i = 0; i < n; i++) {
		g = gs[i].g;
		if (g->status != G_WAITING || !g->syscall)
			continue;
		g->seq = 2;
		g->sys_ts = ts;
		if (synth(sp, p, ts, GT_EV_PROC_START, p->thread, 0, 0) ||
		    synth(sp, p, ts, GT_EV_GO_START, gs[i].id, 1, 0) ||
		    synth(sp, p, ts, GT_EV_GO_SYSCALL, 0, 0, 0) ||
		    synth(sp, p, ts, GT_EV_GO_SYSBLOCK, 0, 0, 0) ||
		    synth(sp, p, ts, GT_EV_PROC_STOP, 0, 0, 0))
			return -1;
	}
	return 0;
}

/* The live goroutines, by id (the same order whatever the table's history), on @p. */
static int snap_gs(struct split_oldtrace *sp, struct s1_p *p)
{
	size_t i, n = gt_table_len(&sp->gs);
	struct snap_g *gs = malloc((n ? n : 1) * sizeof(*gs)), *next = gs;
	int ret = 0;

	if (!gs)
		return oom();
	gt_table_each(&sp->gs, snap_add, &next);
	qsort(gs, n, sizeof(*gs), snap_cmp);
	for (i = 0; i < n && !ret; i++)
		ret = snap_g(sp, p, gs[i].id, gs[i].g);
	if (!ret)
		ret = snap_syscalls(sp, p, gs, n);
	free(gs);
	return ret;
}

/* Each P started, sweeping and running its goroutine, if it was. */
static int snap_ps(struct split_oldtrace *sp)
{
	int64_t ts = sp->synth_ts;
	struct s1_p *p;
	struct s1_g *g;
	size_t i;

	for (i = 0; i < sp->nr_ps; i++) {
		p = sp->plist[i];
		if (p->running && synth(sp, p, ts, GT_EV_PROC_START, p->thread, 0, 0))
			return -1;
		if (p->sweep && synth(sp, p, ts, GT_EV_GC_SWEEP_START, 0, 0, 0))
			return -1;
		if (p->stw && synth(sp, p, ts, GT_EV_STW_START, 0, 0, 0))
			return -1;
		if (!p->g)
			continue;
		g = gt_table_get(&sp->gs, p->g);
		g->seq = 2;
		if (synth(sp, p, ts, GT_EV_GO_START, p->g, 1, 0))
			return -1;
	}
	return 0;
}

/* The piece's opening state, on P @p (that of its first event) but for what is per P. */
static int snapshot(struct split_oldtrace *sp, struct s1_p *p)
{
	int64_t ts = sp->synth_ts;

	if (snap_gs(sp, p) || snap_ps(sp))
		return -1;
	if (sp->gc && synth(sp, p, ts, GT_EV_GC_START, sp->gc_seq++, 0, 0))
		return -1;
	if (sp->stw && synth(sp, p_get(sp, sp->stw_p), ts, GT_EV_STW_START, sp->stw_kind, 0, 0))
		return -1;
	/*
	 * Go 1.22+'s reader takes what comes before the first Gomaxprocs as the state; a
	 * second one, as the module writes, keeps Go's MMU page from crashing (golang/go#74146).
	 */
	if (sp->procs && (synth(sp, p, ts, GT_EV_GOMAXPROCS, sp->procs, 0, 0) ||
			  synth(sp, p, ts, GT_EV_GOMAXPROCS, sp->procs, 0, 0)))
		return -1;
	return 0;
}

static int64_t ns(const struct split_oldtrace *sp, int64_t ts)
{
	return gt_ns(sp->t, ts);
}

/* The next piece's record and its file under a temporary name. */
static int piece_create(struct split_oldtrace *sp)
{
	char path[PATH_MAX];
	struct piece1 *v;
	size_t cap;
	int fd;

	if (!split_piece_path(sp->o, sp->nr_pieces, path, sizeof(path)) ||
	    !split_path_free(sp->o, path, &sp->in))
		return -1;
	if (sp->nr_pieces == sp->cap_pieces) {
		cap = sp->cap_pieces ? 2 * sp->cap_pieces : 16;
		v = realloc(sp->pieces, cap * sizeof(*v));
		if (!v)
			return oom();
		sp->pieces = v;
		sp->cap_pieces = cap;
	}
	sp->cur = &sp->pieces[sp->nr_pieces];
	memset(sp->cur, 0, sizeof(*sp->cur));
	if (asprintf(&sp->cur->tmp, "%s.XXXXXX", path) < 0)
		return oom();
	sp->nr_pieces++;
	fd = mkstemp(sp->cur->tmp);	/* 0600, as record's: the trace shows every program */
	sp->out = fd < 0 ? NULL : fdopen(fd, "w");
	if (!sp->out) {
		msg_err(SPLIT_CMD, "cannot create %s: %s", sp->cur->tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	setvbuf(sp->out, NULL, _IOFBF, OUT_BUFFER);
	return 0;
}

/* Starts a piece with event @ev: its header and opening state. */
static int piece_open(struct split_oldtrace *sp, const struct gt_event *ev, struct s1_p *p)
{
	char head[32] = "";
	size_t i;

	if (piece_create(sp))
		return -1;
	snprintf(head, sizeof(head), "go 1.%d trace", gt_version(sp->t) - 1000);
	fwrite(head, 1, 16, sp->out);	/* NUL padded */
	sp->bytes = 16;
	sp->footer = 0;
	for (i = 0; i < sp->nr_timer_gs; i++) {
		uint8_t buf[GT_ENCODE_MAX];
		struct gt_event e = { .type = GT_EV_TIMER_GOROUTINE, .args = { sp->timer_gs[i] } };

		sp->footer += gt_encode_event(sp->t, &e, 0, buf);
	}
	sp->footer += 1 + 10;		/* Frequency */
	gt_map_free(&sp->stacks);
	gt_map_free(&sp->strings);
	memset(sp->known, 0, sizeof(sp->known));
	sp->gc_seq = 0;
	sp->cur->first = ns(sp, ev->wire_ts);
	sp->synth_ts = ev->wire_ts - 1;
	return snapshot(sp, p);
}

static void write_strings(struct split_oldtrace *sp)
{
	uint8_t head[GT_ENCODE_MAX];
	const struct gt_map *m = &sp->strings;
	const char *s;
	size_t i, len;

	for (i = 0; i < m->cap; i++) {
		if (!m->used[i])
			continue;
		s = gt_string(sp->t, m->slots[i].key, &len);
		fwrite(head, 1, gt_encode_string(m->slots[i].key, len, head), sp->out);
		fwrite(s, 1, len, sp->out);
	}
}

/* Strings before the stacks that name them (Go 1.19 looks them up as it reads a stack). */
static void write_footer(struct split_oldtrace *sp)
{
	uint8_t buf[GT_ENCODE_MAX];
	const struct gt_map *m = &sp->stacks;
	struct gt_event e = { .type = GT_EV_FREQUENCY };
	const uint8_t *stk;
	size_t i, len;

	write_strings(sp);
	for (i = 0; i < m->cap; i++) {
		if (m->used[i] && (stk = gt_stack_wire(sp->t, m->slots[i].key, &len)))
			fwrite(stk, 1, len, sp->out);
	}
	e.args[0] = (uint64_t)gt_ticks_per_sec(sp->t);
	fwrite(buf, 1, gt_encode_event(sp->t, &e, 0, buf), sp->out);
	e.type = GT_EV_TIMER_GOROUTINE;
	for (i = 0; i < sp->nr_timer_gs; i++) {
		e.args[0] = sp->timer_gs[i];
		fwrite(buf, 1, gt_encode_event(sp->t, &e, 0, buf), sp->out);
	}
}

/* Running goroutines stopped and Ps stopped, as Go's StopTrace leaves them. */
static int close_state(struct split_oldtrace *sp)
{
	struct s1_p *p;
	size_t i;

	for (i = 0; i < sp->nr_ps; i++) {
		p = sp->plist[i];
		if (p->g && synth(sp, p, sp->last_ts, GT_EV_GO_SCHED, 0, 0, 0))
			return -1;
		if (p->running && synth(sp, p, sp->last_ts, GT_EV_PROC_STOP, 0, 0, 0))
			return -1;
	}
	return 0;
}

/* Ends the piece being written: closing state, batches, footer. */
static int piece_close(struct split_oldtrace *sp)
{
	char path[PATH_MAX];
	FILE *out = sp->out;
	size_t i;
	int r;

	if (!out)
		return 0;
	sp->cur->last = ns(sp, sp->last_ts);
	r = close_state(sp);
	for (i = 0; i < sp->nr_ps; i++)
		flush(sp, sp->plist[i]);
	write_footer(sp);
	sp->out = NULL;
	sp->cur->bytes = (uint64_t)ftello(out);
	if (ferror(out) | fclose(out)) {
		msg_err(SPLIT_CMD, "cannot write %s: %s", sp->cur->tmp, strerror(errno));
		return -1;
	}
	if (sp->o->mode == MAX_SIZE && sp->cur->bytes > sp->o->max_size &&
	    split_piece_path(sp->o, sp->nr_pieces - 1, path, sizeof(path)))
		msg_err(SPLIT_CMD, "warning: %s is %" PRIu64 " bytes, over --max-size %" PRIu64
			": its opening state (%" PRIu64 " events made up) and first event take "
			"that much", path, sp->cur->bytes, sp->o->max_size, sp->cur->synth);
	return r;
}

/* --max-size: whether @ev makes the piece too large, so that it starts the next. */
static bool too_large(struct split_oldtrace *sp, const struct gt_event *ev, const struct s1_p *p)
{
	uint8_t buf[GT_ENCODE_MAX + 8];
	uint64_t size;

	size = sp->bytes + sp->footer + need_footer(sp, ev, false) + BATCH_HEAD_MAX +
	       sp->nr_ps * CLOSE_RESERVE;
	if (ev->type == GT_EV_USER_LOG)
		return size + GT_ENCODE_MAX + ev->str_len > sp->o->max_size;
	/* Far enough from the limit, the event's exact size does not matter. */
	if (size + GT_ENCODE_MAX + 8 <= sp->o->max_size)
		return false;
	size += gt_encode_event(sp->t, ev, delta(p, ev, ev->wire_ts), buf) + 8;
	return size > sp->o->max_size;
}

/* --from/--to: whether @ev (at @t ns) is in the piece, which it may start or end. */
static int place_range(struct split_oldtrace *sp, const struct gt_event *ev, struct s1_p *p,
		       int64_t t)
{
	if (t > sp->end)
		sp->end = t;
	if (t < sp->o->from || t > sp->o->to)
		return piece_close(sp) ? -1 : 0;
	return sp->out ? 1 : piece_open(sp, ev, p) ? -1 : 1;
}

/* Whether @ev belongs in a piece (1), and in a new one; -1 after a message. */
static int place(struct split_oldtrace *sp, const struct gt_event *ev, struct s1_p *p)
{
	const struct split_opts *o = sp->o;
	bool cut;

	if (o->mode == RANGE)
		return place_range(sp, ev, p, ns(sp, ev->wire_ts));
	if (!sp->out)
		return piece_open(sp, ev, p) ? -1 : 1;
	if (o->mode == EVERY)
		cut = ns(sp, ev->wire_ts) - sp->cur->first >= o->every;
	else
		cut = sp->cur->events > sp->cur->synth && too_large(sp, ev, p);
	if (cut && (piece_close(sp) || piece_open(sp, ev, p)))
		return -1;
	return 1;
}

static struct s1_g *g_get(struct split_oldtrace *sp, uint64_t id)
{
	return gt_table_get(&sp->gs, id);
}

/* A goroutine's new status; a running one's P is cleared. */
static void g_status(struct s1_g *g, struct s1_p *p, uint8_t status)
{
	if (g->status == G_RUNNING)
		p->g = 0;
	g->status = status;
}

/* Goroutine events: @e's sequence numbers renumbered for the piece, the state tracked. */
static int go_event(struct split_oldtrace *sp, struct gt_event *e, struct s1_p *p)
{
	struct s1_g *g;

	switch (e->type) {
	case GT_EV_GO_CREATE:
		g = gt_table_add(&sp->gs, e->args[0]);
		if (!g)
			return oom();
		*g = (struct s1_g){ .seq = 1, .new_stk = e->args[1], .stk = e->stk,
				    .status = G_RUNNABLE };
		return 0;
	case GT_EV_GO_START:
	case GT_EV_GO_START_LABEL:
		g = g_get(sp, e->args[0]);
		e->args[1] = g->seq++;
		g->status = G_RUNNING;
		p->g = e->args[0];
		return 0;
	case GT_EV_GO_END:
	case GT_EV_GO_STOP:
		/* Nothing names it again in a valid trace. */
		g = g_get(sp, e->g);
		g_status(g, p, G_DEAD);
		gt_table_drop(&sp->gs, e->g, g);
		return 0;
	case GT_EV_GO_SCHED:
	case GT_EV_GO_PREEMPT:
		g_status(g_get(sp, e->g), p, G_RUNNABLE);
		return 0;
	case GT_EV_GO_UNBLOCK:
		g = g_get(sp, e->args[0]);
		e->args[1] = g->seq++;
		g->status = G_RUNNABLE;
		return 0;
	case GT_EV_GO_SYSEXIT:
		g = g_get(sp, e->args[0]);
		e->args[1] = g->seq++;
		/* An exit before the piece's start: at its start, after its GoSysBlock. */
		if (e->args[2] && (int64_t)e->args[2] < g->sys_ts)
			e->args[2] = (uint64_t)g->sys_ts;
		g->status = G_RUNNABLE;
		g->syscall = false;
		return 0;
	case GT_EV_GO_WAITING:
	case GT_EV_GO_IN_SYSCALL:
		g = g_get(sp, e->args[0]);
		g->seq = 2;
		g->status = G_WAITING;
		g->syscall = e->type == GT_EV_GO_IN_SYSCALL;
		g->sys_ts = e->ts;
		return 0;
	case GT_EV_GO_SYSBLOCK:
		g = g_get(sp, e->g);
		g_status(g, p, G_WAITING);
		g->syscall = true;
		g->sys_ts = e->ts;
		return 0;
	case GT_EV_GO_SLEEP:
	case GT_EV_GO_BLOCK:
	case GT_EV_GO_BLOCK_SEND ... GT_EV_GO_BLOCK_NET:
	case GT_EV_GO_BLOCK_GC:
		g_status(g_get(sp, e->g), p, G_WAITING);
		return 0;
	}
	return 1;
}

/* A stop-the-world starts or ends: one at a time, or one per P before go 1.10 (as Go). */
static void stw_event(struct split_oldtrace *sp, const struct gt_event *e, struct s1_p *p)
{
	bool start = e->type == GT_EV_STW_START;

	if (gt_version(sp->t) < 1010) {
		p->stw = start;
		return;
	}
	sp->stw = start;
	sp->stw_kind = e->args[0];
	sp->stw_p = p->id;
}

/* P, GC and stop-the-world events: the state tracked, GCStart's sequence renumbered. */
static void proc_event(struct split_oldtrace *sp, struct gt_event *e, struct s1_p *p)
{
	switch (e->type) {
	case GT_EV_PROC_START:
		p->running = true;
		p->thread = e->args[0];
		break;
	case GT_EV_PROC_STOP:
		p->running = false;
		break;
	case GT_EV_GC_START:
		sp->gc = true;
		e->args[0] = sp->gc_seq++;
		break;
	case GT_EV_GC_DONE:
		sp->gc = false;
		break;
	case GT_EV_STW_START:
	case GT_EV_STW_DONE:
		stw_event(sp, e, p);
		break;
	case GT_EV_GC_SWEEP_START:
	case GT_EV_GC_SWEEP_DONE:
		p->sweep = e->type == GT_EV_GC_SWEEP_START;
		break;
	case GT_EV_GOMAXPROCS:
		sp->procs = e->args[0];
		break;
	}
}

/*
 * A CPU sample @e, which the merge places by its own time: into the piece that time falls
 * in, which it may start or end as any event, in the batch of its P (P 0 if the trace has
 * no such P), its time again its first argument. It changes no state.
 */
static int sample(struct split_oldtrace *sp, struct gt_event *e)
{
	struct s1_p *p = gt_table_get(&sp->ps, (uint64_t)e->wire_p);
	int in;

	if (!p)
		p = p_get(sp, 0);
	if (!p)
		return oom(), 1;
	e->args[0] = (uint64_t)e->wire_ts;
	in = place(sp, e, p);
	if (in <= 0)
		return in < 0;
	sp->last_ts = e->wire_ts;
	return put(sp, p, e, e->wire_ts) ? 1 : 0;
}

/* gt_check's sink: each event of the trace, in Go's merge order. */
static int sink(void *ctx, const struct gt_trace *t, const struct gt_event *ev)
{
	struct split_oldtrace *sp = ctx;
	struct gt_event e = *ev;
	struct s1_p *p;
	int in;

	(void)t;
	sp->seen++;
	if (ev->type == GT_EV_CPU_SAMPLE)
		return sample(sp, &e);
	p = p_get(sp, ev->wire_p);
	if (!p)
		return oom(), 1;
	in = place(sp, ev, p);
	if (in < 0)
		return 1;
	e.ts = ev->wire_ts;
	e.p = ev->wire_p;
	if (go_event(sp, &e, p) < 0)
		return 1;
	proc_event(sp, &e, p);
	if (!in)
		return 0;
	sp->last_ts = e.ts;
	return put(sp, p, &e, e.ts) ? 1 : 0;
}

/* After a valid trace: every piece under its name, and its line. */
static int finish(struct split_oldtrace *sp)
{
	char path[PATH_MAX];
	const struct piece1 *pc;
	size_t i;

	if (!sp->nr_pieces) {
		msg_err(SPLIT_CMD, "%s: no event within --from/--to: the trace's events span 0 s "
			"to %.6f s, give times within them", sp->o->path, sp->end / 1e9);
		return -1;
	}
	if (sp->seen != gt_nr_events(sp->t)) {
		msg_err(SPLIT_CMD, "%s: %" PRIu64 " of its events are FutileWakeups or events "
			"they void, which Go's parser drops and split cannot keep: split a trace "
			"without them", sp->o->path, gt_nr_events(sp->t) - sp->seen);
		return -1;
	}
	for (i = 0; i < sp->nr_pieces; i++) {
		pc = &sp->pieces[i];
		if (!split_piece_path(sp->o, i, path, sizeof(path)))
			return -1;
		if (rename(pc->tmp, path)) {
			msg_err(SPLIT_CMD, "cannot rename %s to %s: %s", pc->tmp, path,
				strerror(errno));
			return -1;
		}
		free(pc->tmp);
		sp->pieces[i].tmp = NULL;
		printf("%s: %" PRIu64 " events (%" PRIu64 " synthesised), %" PRIu64 " bytes, "
		       "%.6f s to %.6f s\n", path, pc->events, pc->synth, pc->bytes,
		       pc->first / 1e9, pc->last / 1e9);
	}
	return 0;
}

static int split_oldtrace_init(struct split_oldtrace *sp)
{
	if (stat(sp->o->path, &sp->in)) {
		msg_err(SPLIT_CMD, "%s: cannot open: %s", sp->o->path, strerror(errno));
		return -1;
	}
	gt_table_init(&sp->gs, sizeof(struct s1_g));
	gt_table_init(&sp->ps, sizeof(struct s1_p));
	gt_map_init(&sp->stacks);
	gt_map_init(&sp->strings);
	sp->frames = malloc(MAX_FRAMES * sizeof(*sp->frames));
	sp->nr_timer_gs = gt_timer_gs(sp->t, NULL, 0);
	sp->timer_gs = calloc(sp->nr_timer_gs + 1, sizeof(*sp->timer_gs));
	if (!sp->frames || !sp->timer_gs)
		return oom();
	gt_timer_gs(sp->t, sp->timer_gs, sp->nr_timer_gs);
	return 0;
}

/* Removes what is left of the pieces: their temporary files after a failure. */
static void split_oldtrace_free(struct split_oldtrace *sp)
{
	size_t i;

	if (sp->out)
		fclose(sp->out);
	for (i = 0; i < sp->nr_pieces; i++) {
		if (sp->pieces[i].tmp)
			unlink(sp->pieces[i].tmp);
		free(sp->pieces[i].tmp);
	}
	for (i = 0; i < sp->nr_ps; i++)
		free(sp->plist[i]->buf);
	free(sp->pieces);
	free(sp->plist);
	free(sp->frames);
	free(sp->timer_gs);
	gt_table_free(&sp->gs);
	gt_table_free(&sp->ps);
	gt_map_free(&sp->stacks);
	gt_map_free(&sp->strings);
}

int split_oldtrace(const struct split_opts *o, struct gt_trace *t)
{
	struct split_oldtrace sp = { .o = o, .t = t };
	struct gt_error err;
	int r, ret = EXIT_FAILURE;

	if (split_oldtrace_init(&sp))
		goto out;
	r = gt_check_apart(t, sink, &sp, &err);
	if (r < 0)
		trace_error(SPLIT_CMD, o->path, &err);
	else if (!r && !piece_close(&sp) && !finish(&sp))
		ret = EXIT_SUCCESS;
out:
	split_oldtrace_free(&sp);
	return ret;
}
