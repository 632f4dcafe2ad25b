// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace stats of a joined trace: per goroutine function, its goroutines'
 * running time and, from gotrace merge's regions, the part of it their
 * thread was off its CPU, by kind (join.h).
 *
 * A goroutine's function is Go's name for it on its goroutine analysis page:
 * the root frame of the first stack of one of its own transitions, which is
 * the start function for those created in the trace (GoCreate's start
 * stack), and for those there at the start (no create stack) the root of
 * the first stack they stop, block or enter a system call on (main.main
 * for the main goroutine: Go's stacks end there). Goroutines that never
 * show a stack go under "(unknown)", as the stats' programs without a name.
 *
 * Running is the time in Go's Running and Syscall states: the goroutine has
 * its thread. The syscall column is the part in system calls (Go's
 * "syscall" time; running minus it is Go's "execution" time). A region's
 * time counts only while its goroutine runs, so the four kinds and the time
 * on a CPU add up to running exactly.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "join.h"
#include "report/stats_joined.h"
#include "tracev2/internal.h"

struct times {
	int64_t run, sys, kind[GT_JOIN_KINDS];	/* ns */
};

struct jgo {
	uint64_t fn;		/* the function's name in names, 0: none yet */
	struct times t;
	int64_t since;		/* its last transition or region edge */
	uint8_t state;		/* G_* */
	int8_t kind;		/* the region of the join's it is in, -1: none */
};

struct jfn {
	uint64_t fn;
	uint64_t goroutines;
	struct times t;
};

struct stats_joined {
	struct gt_table gs, fns;	/* goroutine id -> jgo; name id -> jfn */
	struct gt2_intern names;	/* the functions' names, copied */
	bool seen;			/* a region of the join's */
	int err;
	void **sorted;			/* the jfns by running time, after finishing */
	size_t nr_sorted;
};

struct stats_joined *stats_joined_new(void)
{
	struct stats_joined *jd = calloc(1, sizeof(*jd));

	if (!jd)
		return NULL;
	gt_table_init(&jd->gs, sizeof(struct jgo));
	gt_table_init(&jd->fns, sizeof(struct jfn));
	return jd;
}

void stats_joined_free(struct stats_joined *jd)
{
	if (!jd)
		return;
	gt_table_free(&jd->gs);
	gt_table_free(&jd->fns);
	gt2_intern_free(&jd->names);
	free(jd->sorted);
	free(jd);
}

/* Adds @g's time since its last edge, up to @ts, to what it was doing. */
static void flush(struct jgo *g, int64_t ts)
{
	int64_t d = ts - g->since;

	g->since = ts;
	if (g->state != G_RUNNING && g->state != G_SYSCALL)
		return;
	g->t.run += d;
	if (g->state == G_SYSCALL)
		g->t.sys += d;
	if (g->kind >= 0)
		g->t.kind[g->kind] += d;
}

static void add_times(struct times *to, const struct times *t)
{
	int k;

	to->run += t->run;
	to->sys += t->sys;
	for (k = 0; k < GT_JOIN_KINDS; k++)
		to->kind[k] += t->kind[k];
}

/* Adds goroutine @g (its times so far) to its function; non-zero when out of memory. */
static int fold(struct stats_joined *jd, const struct jgo *g)
{
	struct jfn *f = gt_table_add(&jd->fns, g->fn);

	if (!f)
		return 1;
	f->fn = g->fn;
	f->goroutines++;
	add_times(&f->t, &g->t);
	return 0;
}

/* fold() and forget @g. */
static int retire(struct stats_joined *jd, uint64_t id, struct jgo *g)
{
	if (fold(jd, g))
		return 1;
	gt_table_drop(&jd->gs, id, g);
	return 0;
}

/*
 * Names @g, if it has no name yet, by the root frame of stack @stk of @gen
 * (Go's stacks list the leaf first). Non-zero when out of memory.
 */
static int name(struct stats_joined *jd, struct jgo *g, const struct gt2_gen *gen, uint64_t stk)
{
	const struct gt2_stack *st;
	const struct gt2_frame *fr;
	struct gt2_str fn;
	bool ok;

	if (g->fn || !stk)
		return 0;
	st = gt2_gen_stack(gen, stk, &ok);
	if (!st->n)
		return 0;
	fr = gt2_gen_frame(gen, gen->pcs[st->first + st->n - 1]);
	if (!fr || !gt2_gen_string(gen, fr->func, &fn) || !fn.len)
		return 0;
	g->fn = gt2_intern(&jd->names, fn);
	return !g->fn;
}

/* A new goroutine (or one first seen) at @ts; NULL when out of memory. */
static struct jgo *appear(struct stats_joined *jd, uint64_t id, int64_t ts)
{
	struct jgo *g = gt_table_get(&jd->gs, id);

	if (g && retire(jd, id, g))
		return NULL;
	g = gt_table_add(&jd->gs, id);
	if (g) {
		g->since = ts;
		g->kind = -1;
	}
	return g;
}

static int move(struct stats_joined *jd, const struct gt2_event *ev, const struct go_move *m)
{
	struct jgo *g = gt_table_get(&jd->gs, m->g);

	if (!g || m->from == G_NOT_EXIST)
		g = appear(jd, m->g, ev->time);
	if (!g)
		return 1;
	flush(g, ev->time);
	g->state = m->to;
	/* Go names a goroutine by its own stacks: an unblock's is its waker's. */
	if (ev->type != GT2_EV_GO_UNBLOCK && name(jd, g, ev->gen, m->stk))
		return 1;
	return m->to == G_NOT_EXIST ? retire(jd, m->g, g) : 0;
}

static int region(struct stats_joined *jd, const struct gt2_event *ev)
{
	struct gt2_str type;
	struct jgo *g;
	int kind;

	if (!gt2_gen_string(ev->gen, ev->args[1], &type))
		return 0;
	kind = gt_join_kind_of((const char *)type.s, type.len);
	if (kind < 0)
		return 0;
	jd->seen = true;
	g = gt_table_get(&jd->gs, (uint64_t)ev->g);
	if (!g)
		g = appear(jd, (uint64_t)ev->g, ev->time);
	if (!g)
		return 1;
	flush(g, ev->time);
	if (ev->type == GT2_EV_USER_REGION_BEGIN)
		g->kind = (int8_t)kind;
	else if (g->kind == kind)
		g->kind = -1;
	return 0;
}

int stats_joined_event(struct stats_joined *jd, const struct gt2_event *ev,
		       const struct go_move *m)
{
	if (m)
		return move(jd, ev, m);
	if (ev->type == GT2_EV_USER_REGION_BEGIN || ev->type == GT2_EV_USER_REGION_END)
		return region(jd, ev);
	return 0;
}

#define FN_WIDTH	40	/* the text's function column */

/* The column of each kind, in join.h's order. */
static const char *const kind_cols[GT_JOIN_KINDS] = {
	"CPU wait", "throttled", "blocked", "sys.blocked",
};
static const char *const kind_keys[GT_JOIN_KINDS] = {
	"cpu_wait_ns", "throttled_ns", "blocked_ns", "syscall_blocked_ns",
};

static int64_t on_cpu(const struct times *t)
{
	int64_t ns = t->run;
	int k;

	for (k = 0; k < GT_JOIN_KINDS; k++)
		ns -= t->kind[k];
	return ns;
}

static const char *fn_name(const struct stats_joined *jd, uint64_t fn, int *len)
{
	if (!fn || fn > jd->names.nstrs) {
		*len = 9;
		return "(unknown)";
	}
	*len = (int)jd->names.strs[fn - 1].len;
	return (const char *)jd->names.strs[fn - 1].s;
}

static int fn_by_run(const void *a, const void *b)
{
	const struct jfn *x = *(void *const *)a, *y = *(void *const *)b;

	return x->t.run != y->t.run ? (x->t.run < y->t.run ? 1 : -1) :
	       (x->fn > y->fn) - (x->fn < y->fn);
}

struct finish {
	struct stats_joined *jd;
	int64_t last;
};

static void finish_go(void *rec, uint64_t key, void *ctx)
{
	struct finish *f = ctx;

	(void)key;
	flush(rec, f->last);
	if (fold(f->jd, rec))
		f->jd->err = 1;
}

int stats_joined_finish(struct stats_joined *jd, int64_t last)
{
	struct finish f = { jd, last };

	gt_table_each(&jd->gs, finish_go, &f);
	if (!jd->err)
		jd->sorted = stats_sorted(&jd->fns, fn_by_run, &jd->nr_sorted);
	return jd->err || !jd->sorted;
}

static void text_row(const struct stats_joined *jd, const struct jfn *f)
{
	const char *nm;
	int len, k;

	nm = fn_name(jd, f->fn, &len);
	printf("%-*.*s %10" PRIu64 " %9.3f %9.3f", FN_WIDTH, len > FN_WIDTH ? FN_WIDTH : len, nm,
	       f->goroutines, (double)f->t.run / 1e6, (double)on_cpu(&f->t) / 1e6);
	for (k = 0; k < GT_JOIN_KINDS; k++)
		printf(" %11.3f", (double)f->t.kind[k] / 1e6);
	printf(" %9.3f\n", (double)f->t.sys / 1e6);
}

void stats_joined_text(const struct stats_joined *jd, bool all)
{
	size_t i, idle = 0;
	const struct jfn *f;
	int k;

	if (!jd || !jd->seen)
		return;
	printf("\nGoroutine functions (by running time, in ms; a joined trace: the kernel columns "
	       "are gotrace merge's regions):\n%-*s %10s %9s %9s", FN_WIDTH, "function",
	       "goroutines", "running", "on a CPU");
	for (k = 0; k < GT_JOIN_KINDS; k++)
		printf(" %11s", kind_cols[k]);
	printf(" %9s\n", "syscall");
	for (i = 0; i < jd->nr_sorted; i++) {
		f = jd->sorted[i];
		if (!all && !f->t.run)
			idle++;
		else
			text_row(jd, f);
	}
	if (idle)
		printf("  + %zu function%s whose goroutines never ran (--all lists them)\n", idle,
		       idle == 1 ? "" : "s");
	printf("Running: in Go's Running or Syscall state; on a CPU: running minus the four "
	       "kernel columns; syscall: the part in system calls.\n");
}

void stats_joined_json(struct json *j, const struct stats_joined *jd)
{
	const struct jfn *f;
	const char *nm;
	int len, k;
	size_t i;

	if (!jd || !jd->seen)
		return;
	json_begin(j, "go_functions", '[');
	for (i = 0; i < jd->nr_sorted; i++) {
		f = jd->sorted[i];
		nm = fn_name(jd, f->fn, &len);
		json_begin(j, NULL, '{');
		json_strn(j, "function", nm, (size_t)len);
		json_u64(j, "goroutines", f->goroutines);
		json_i64(j, "running_ns", f->t.run);
		json_i64(j, "on_cpu_ns", on_cpu(&f->t));
		for (k = 0; k < GT_JOIN_KINDS; k++)
			json_i64(j, kind_keys[k], f->t.kind[k]);
		json_i64(j, "syscall_ns", f->t.sys);
		json_end(j, '}');
	}
	json_end(j, ']');
}
