// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace stats on Go 1.22+ traces: the goroutine state transitions of Go's
 * parsed events, fed to the accounting of stats.c. Runnable->Running starts
 * a run, Running->Waiting blocks (the category from the Reason word),
 * Waiting->Runnable wakes, Running->Runnable stops, NotExist->X creates (the
 * program is the root frame of the create stack), X->NotExist ends and
 * Undetermined->X sets the state a goroutine had at the start. The Syscall
 * state counts as running (gotrace writes none; Go's runtime does).
 *
 * Every event and its transition also go to stats_joined.c, whose table of
 * goroutine functions joined traces get.
 *
 * Strings and stacks last one generation, so programs and block stacks get
 * ids of their own here, by content; the names stay in the trace, which
 * must outlive the stats.
 */
#include <stdlib.h>
#include <string.h>

#include "report/stats.h"
#include "report/stats_joined.h"
#include "tracev2/internal.h"

/* What the stats keep of a trace: names and stacks by content, thread id generations. */
struct names2 {
	struct gt2_intern strs;		/* copies: the generations' tables go */
	struct gt_frame *frames;	/* of every stack, fn and file are ids of strs */
	size_t nr_frames, cap_frames;
	struct { size_t first, n; } *stks;	/* id - 1 */
	size_t nr_stks, cap_stks;
	struct gt_map stk_ids;		/* hash (probed) -> id */
	struct gt_map gens;		/* goroutine id -> earlier holders of it */
};

static const char *names_string(const void *src, uint64_t id, size_t *len)
{
	const struct names2 *x = src;

	if (!id || id > x->strs.nstrs) {
		*len = 0;
		return NULL;
	}
	*len = x->strs.strs[id - 1].len;
	return (const char *)x->strs.strs[id - 1].s;
}

static unsigned int names_stack(const void *src, uint64_t stk, struct gt_frame *f,
				unsigned int max)
{
	const struct names2 *x = src;
	size_t n, i;

	if (!stk || stk > x->nr_stks)
		return 0;
	n = x->stks[stk - 1].n;
	for (i = 0; i < n && i < max; i++)
		f[i] = x->frames[x->stks[stk - 1].first + i];
	return (unsigned int)n;
}

static void names_free(void *src)
{
	struct names2 *x = src;

	gt2_intern_free(&x->strs);
	free(x->frames);
	free(x->stks);
	gt_map_free(&x->stk_ids);
	gt_map_free(&x->gens);
	free(x);
}

/* The id of string @id of @g's table (0 for the empty one); *@id 0 when out of memory. */
static uint64_t intern_string(struct names2 *x, const struct gt2_gen *g, uint64_t id)
{
	struct gt2_str str;

	if (!gt2_gen_string(g, id, &str) || !str.len)
		return 0;
	return gt2_intern(&x->strs, str);
}

/* Appends stack @id of @g to the frames (not yet a stack); false when out of memory. */
static bool add_frames(struct names2 *x, const struct gt2_gen *g, uint64_t id, size_t *n)
{
	const struct gt2_stack *st;
	const struct gt2_frame *fr;
	struct gt_frame *f;
	bool ok;

	st = gt2_gen_stack(g, id, &ok);
	for (*n = 0; *n < st->n; (*n)++) {
		fr = gt2_gen_frame(g, g->pcs[st->first + *n]);
		if (!fr || !gt2_grow(&x->frames, &x->cap_frames, x->nr_frames, sizeof(*f)))
			return false;
		f = &x->frames[x->nr_frames++];
		f->pc = fr->pc;
		f->fn = intern_string(x, g, fr->func);
		f->file = intern_string(x, g, fr->file);
		f->line = fr->line;
	}
	return true;
}

/* The id of the stack of the @n frames at @first (just added): an earlier one's, or a new one. */
static uint64_t stack_id(struct names2 *x, size_t first, size_t n)
{
	size_t sz = n * sizeof(*x->frames);
	uint64_t key, *v;
	bool added;

	for (key = gt2_hash(GT2_HASH_SEED, &x->frames[first], sz);; key++) {
		v = gt_map_put(&x->stk_ids, key, &added);
		if (!v || added)
			break;
		if (x->stks[*v - 1].n == n &&
		    !memcmp(&x->frames[x->stks[*v - 1].first], &x->frames[first], sz)) {
			x->nr_frames = first;
			return *v;
		}
	}
	if (!v || !gt2_grow(&x->stks, &x->cap_stks, x->nr_stks, sizeof(*x->stks))) {
		if (v)
			gt_map_del(&x->stk_ids, key);
		x->nr_frames = first;
		return 0;
	}
	x->stks[x->nr_stks].first = first;
	x->stks[x->nr_stks++].n = n;
	*v = x->nr_stks;
	return *v;
}

/* The id of stack @id of @g by its frames (0 for an empty one) in *@out; 1 when out of memory. */
static int intern_stack(struct names2 *x, const struct gt2_gen *g, uint64_t id, uint64_t *out)
{
	size_t first = x->nr_frames, n;

	*out = 0;
	if (!add_frames(x, g, id, &n)) {
		x->nr_frames = first;
		return 1;
	}
	if (!n)
		return 0;
	*out = stack_id(x, first, n);
	return !*out;
}

/* The program of a stack [..., program]: the function of its root (last) frame. */
static uint64_t program_of(const struct names2 *x, uint64_t stk)
{
	return stk ? x->frames[x->stks[stk - 1].first + x->stks[stk - 1].n - 1].fn : 0;
}

static bool word_is(const char *w, size_t n, const char *want)
{
	return n == strlen(want) && !memcmp(w, want, n);
}

/*
 * The category of a block's Reason: gotrace writes "network", "sync: CALL",
 * a sleeping call's name, "kernel wait" or "page fault or kernel wait" (a
 * wait outside a call), else the call's name; Go's runtime writes "chan
 * send", "chan receive", "select", "sync", "sync.(*Cond).Wait", "sleep" and
 * others about itself.
 */
static enum stats_reason reason_of(const struct stats *s, uint64_t word)
{
	static const char *const other[] = {
		"kernel wait", "page fault or kernel wait", "forever", "system goroutine wait",
		"GC mark assist wait for work", "GC background sweeper wait",
		"wait for debug call", "wait until GC ends", "preempted",
	};
	size_t n, i;
	const char *w = stats_string(s, word, &n);

	if (!n)
		return R_OTHER;
	if ((n >= 4 && !memcmp(w, "sync", 4)) || (n >= 5 && !memcmp(w, "chan ", 5)) ||
	    word_is(w, n, "select"))
		return R_SYNC;
	if (word_is(w, n, "network"))
		return R_NET;
	if (word_is(w, n, "sleep") || word_is(w, n, "nanosleep") ||
	    word_is(w, n, "clock_nanosleep"))
		return R_SLEEP;
	for (i = 0; i < sizeof(other) / sizeof(other[0]); i++)
		if (word_is(w, n, other[i]))
			return R_OTHER;
	return R_SYSCALL;
}

/* The event's own stack (Go's Event.Stack()), 0 if none. */
static uint64_t event_stack(const struct gt2_event *ev)
{
	const struct gt2_spec *spec = gt2_spec(ev->type);

	return spec && spec->stack_ids[0] ? ev->args[spec->stack_ids[0] - 1] : 0;
}

static void set_move(struct go_move *m, uint64_t g, uint8_t from, uint8_t to)
{
	m->g = g;
	m->from = from;
	m->to = to;
}

/* Go's StateTransition() for goroutines; false for other events. */
static bool go_move(const struct gt2_event *ev, struct go_move *m)
{
	static const uint8_t status[] = { G_UND, G_RUNNABLE, G_RUNNING, G_SYSCALL, G_WAITING };
	const uint64_t *a = ev->args;
	uint64_t g = (uint64_t)ev->g;

	memset(m, 0, sizeof(*m));
	m->stk = event_stack(ev);
	switch (ev->type) {
	case GT2_EV_GO_CREATE:
	case GT2_EV_GO_CREATE_BLOCKED:
		set_move(m, a[0], G_NOT_EXIST,
			 ev->type == GT2_EV_GO_CREATE ? G_RUNNABLE : G_WAITING);
		m->stk = a[1];
		break;
	case GT2_EV_GO_CREATE_SYSCALL:
		set_move(m, a[0], G_NOT_EXIST, G_SYSCALL);
		break;
	case GT2_EV_GO_START:
		set_move(m, a[0], G_RUNNABLE, G_RUNNING);
		break;
	case GT2_EV_GO_DESTROY:
	case GT2_EV_GO_DESTROY_SYSCALL:
		set_move(m, g, ev->type == GT2_EV_GO_DESTROY ? G_RUNNING : G_SYSCALL,
			 G_NOT_EXIST);
		break;
	case GT2_EV_GO_STOP:
	case GT2_EV_GO_BLOCK:
		set_move(m, g, G_RUNNING, ev->type == GT2_EV_GO_STOP ? G_RUNNABLE : G_WAITING);
		m->reason = a[0];
		break;
	case GT2_EV_GO_UNBLOCK:
	case GT2_EV_GO_SWITCH:
	case GT2_EV_GO_SWITCH_DESTROY:
		set_move(m, a[0], G_WAITING, G_RUNNABLE);
		break;
	case GT2_EV_GO_SYSCALL_BEGIN:
	case GT2_EV_GO_SYSCALL_END:
	case GT2_EV_GO_SYSCALL_END_BLOCKED:
		set_move(m, g, ev->type == GT2_EV_GO_SYSCALL_BEGIN ? G_RUNNING : G_SYSCALL,
			 ev->type == GT2_EV_GO_SYSCALL_BEGIN ? G_SYSCALL :
			 ev->type == GT2_EV_GO_SYSCALL_END ? G_RUNNING : G_RUNNABLE);
		break;
	case GT2_EV_GO_STATUS:
	case GT2_EV_GO_STATUS_STACK:
		/* the old state, smuggled in by Go's ordering */
		set_move(m, a[0], (uint8_t)(a[2] >> 32),
			 (a[2] & 0xffffffff) < 5 ? status[a[2] & 0xffffffff] : G_UND);
		break;
	default:
		return false;
	}
	return true;
}

/*
 * The thread of goroutine @g: a new one (its id past the last by
 * STATS_GEN_STRIDE, as gotrace numbers them in older formats) when @born
 * and the id had one already.
 */
static struct stats_thread *thread_of(struct stats *s, struct names2 *x, uint64_t g, bool born)
{
	uint64_t *k;
	bool added;

	k = gt_map_put(&x->gens, g, &added);
	if (!k)
		return NULL;
	if (born && gt_table_get(&s->threads, g + *k * STATS_GEN_STRIDE))
		(*k)++;
	return stats_thread_of(s, g + *k * STATS_GEN_STRIDE);
}

/* A goroutine that appears: created, or already there at the start, in state @to. */
static int appear(struct stats *s, struct stats_thread *th, const struct go_move *m,
		  const struct gt2_event *ev, uint64_t stk, uint64_t prog)
{
	if (stats_create(s, th, ev->time, prog))
		return 1;
	switch (m->to) {
	case G_RUNNING:
		return stats_start(s, th, ev->time, ev->p);
	case G_WAITING:
		return stats_block(s, th, ev->time, ev->p, R_OTHER, stk);
	case G_SYSCALL:
		return stats_block(s, th, ev->time, ev->p, R_SYSCALL, stk);
	}
	return 0;
}

static int feed(struct stats *s, struct names2 *x, const struct gt2_event *ev,
		const struct go_move *m)
{
	bool born = m->from == G_NOT_EXIST;
	struct stats_thread *th;
	uint64_t stk;

	if (m->from == m->to || (m->from == G_SYSCALL && m->to == G_RUNNING) ||
	    (m->from == G_RUNNING && m->to == G_SYSCALL))
		return 0;
	th = thread_of(s, x, m->g, born);
	if (!th || intern_stack(x, ev->gen, m->stk, &stk))
		return 1;
	if (m->from == G_NOT_EXIST || m->from == G_UND)
		return appear(s, th, m, ev, stk, program_of(x, stk));
	switch (m->to) {
	case G_RUNNING:
		return stats_start(s, th, ev->time, ev->p);
	case G_RUNNABLE:
		if (m->from == G_RUNNING)
			return stats_stop(s, th, ev->time, ev->p, false);
		return stats_wake(s, th, ev->time);
	case G_WAITING:
		return stats_block(s, th, ev->time, ev->p,
				   reason_of(s, intern_string(x, ev->gen, m->reason)), stk);
	case G_NOT_EXIST:
		return stats_stop(s, th, ev->time, ev->p, true);
	}
	return 0;
}

static struct names2 *use_names(struct stats *s, const struct gt2_trace *t)
{
	struct names2 *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	gt_map_init(&x->stk_ids);
	gt_map_init(&x->gens);
	s->names.src = x;
	s->names.string = names_string;
	s->names.stack = names_stack;
	s->names.free = names_free;
	s->ns_per_tick = 1;	/* Go's parsed times are in ns */
	s->version = gt2_version(t);
	return x;
}

int stats_read2(struct stats *s, const struct gt2_trace *t, struct gt_error *err)
{
	struct gt2_reader *r;
	struct gt2_event ev;
	struct go_move m;
	struct names2 *x;
	bool moved;
	int k;

	x = use_names(s, t);
	s->joined = stats_joined_new();
	if (!x || !s->joined)
		return 1;
	if (gt2_reader_open(t, &r, err))
		return -1;
	while ((k = gt2_reader_next(r, &ev, err)) > 0) {
		stats_time(s, ev.time);
		moved = go_move(&ev, &m);
		if ((moved && feed(s, x, &ev, &m)) ||
		    stats_joined_event(s->joined, &ev, moved ? &m : NULL)) {
			k = 1;
			break;
		}
	}
	gt2_reader_close(r);
	return k;
}
