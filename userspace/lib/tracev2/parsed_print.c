// SPDX-License-Identifier: GPL-2.0
/* Go 1.22+ trace events as text, as Go's trace.Event.String() writes them. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

enum kind {
	K_BAD, K_SYNC, K_METRIC, K_LABEL, K_STACK_SAMPLE, K_RANGE_BEGIN, K_RANGE_ACTIVE,
	K_RANGE_END, K_TASK_BEGIN, K_TASK_END, K_REGION_BEGIN, K_REGION_END, K_LOG,
	K_STATE_TRANSITION, K_EXPERIMENTAL,
};

static const char *const kind_names[] = {
	"Bad", "Sync", "Metric", "Label", "StackSample", "RangeBegin", "RangeActive", "RangeEnd",
	"TaskBegin", "TaskEnd", "RegionBegin", "RegionEnd", "Log", "StateTransition",
	"Experimental",
};

/* Go's tracev2Type2Kind. */
static enum kind kind(uint8_t type)
{
	static const uint8_t kinds[GT2_EV_COUNT] = {
		[GT2_EV_CPU_SAMPLE] = K_STACK_SAMPLE,
		[GT2_EV_PROCS_CHANGE] = K_METRIC,
		[GT2_EV_PROC_START ... GT2_EV_GO_STATUS] = K_STATE_TRANSITION,
		[GT2_EV_STW_BEGIN] = K_RANGE_BEGIN,
		[GT2_EV_STW_END] = K_RANGE_END,
		[GT2_EV_GC_ACTIVE] = K_RANGE_ACTIVE,
		[GT2_EV_GC_BEGIN] = K_RANGE_BEGIN,
		[GT2_EV_GC_END] = K_RANGE_END,
		[GT2_EV_GC_SWEEP_ACTIVE] = K_RANGE_ACTIVE,
		[GT2_EV_GC_SWEEP_BEGIN] = K_RANGE_BEGIN,
		[GT2_EV_GC_SWEEP_END] = K_RANGE_END,
		[GT2_EV_GC_MARK_ASSIST_ACTIVE] = K_RANGE_ACTIVE,
		[GT2_EV_GC_MARK_ASSIST_BEGIN] = K_RANGE_BEGIN,
		[GT2_EV_GC_MARK_ASSIST_END] = K_RANGE_END,
		[GT2_EV_HEAP_ALLOC] = K_METRIC,
		[GT2_EV_HEAP_GOAL] = K_METRIC,
		[GT2_EV_GO_LABEL] = K_LABEL,
		[GT2_EV_USER_TASK_BEGIN] = K_TASK_BEGIN,
		[GT2_EV_USER_TASK_END] = K_TASK_END,
		[GT2_EV_USER_REGION_BEGIN] = K_REGION_BEGIN,
		[GT2_EV_USER_REGION_END] = K_REGION_END,
		[GT2_EV_USER_LOG] = K_LOG,
		[GT2_EV_GO_SWITCH ... GT2_EV_GO_STATUS_STACK] = K_STATE_TRANSITION,
		[GT2_EV_SPAN ... GT2_EV_GOROUTINE_STACK_FREE] = K_EXPERIMENTAL,
	};

	return type == GT2_EV_PARSED_SYNC ? K_SYNC : type < GT2_EV_COUNT ? kinds[type] : K_BAD;
}

/* Decimal and hexadecimal numbers without printf's parsing of a format: most of dump's time. */
static void put_uint(FILE *f, uint64_t v, unsigned int base)
{
	char buf[24], *p = buf + sizeof(buf);

	do {
		*--p = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	fwrite(p, 1, (size_t)(buf + sizeof(buf) - p), f);
}

static void put_int(FILE *f, int64_t v)
{
	if (v < 0)
		putc('-', f);
	put_uint(f, v < 0 ? -(uint64_t)v : (uint64_t)v, 10);
}

/* @name, then @v. */
static void put_named(FILE *f, const char *name, int64_t v)
{
	fputs(name, f);
	put_int(f, v);
}

/* A string of the event's generation (Go's strings.mustGet()), %q-quoted. */
static void quote_id(FILE *f, const struct gt2_event *ev, uint64_t id)
{
	struct gt2_str s;

	gt2_gen_string(ev->gen, id, &s);
	gt2_quote(f, s.s, s.len);
}

static void print_string(FILE *f, const struct gt2_gen *g, uint64_t id)
{
	struct gt2_str s;

	if (gt2_gen_string(g, id, &s) && s.len)
		fwrite(s.s, 1, s.len, f);
}

/* Go's printStack() with a tab as prefix. */
static void write_stack(FILE *f, const struct gt2_gen *g, const struct gt2_stack *st)
{
	const struct gt2_frame *fr;
	uint64_t i;

	for (i = 0; i < st->n; i++) {
		fr = gt2_gen_frame(g, g->pcs[st->first + i]);
		putc('\t', f);
		print_string(f, g, fr->func);
		fputs(" @ 0x", f);
		put_uint(f, fr->pc, 16);
		fputs("\n\t\t", f);
		print_string(f, g, fr->file);
		putc(':', f);
		put_uint(f, fr->line, 10);
		putc('\n', f);
	}
}

/*
 * Stacks are most of dump's text and a generation has few: each is written
 * once into its text, then copied (if out of memory, written each time).
 */
static void print_stack(FILE *f, const struct gt2_gen *g, uint64_t id)
{
	struct gt2_stack *st;
	FILE *m;
	bool ok;

	st = (struct gt2_stack *)gt2_gen_stack(g, id, &ok);
	if (!st->n)
		return;
	if (!st->text && (m = open_memstream(&st->text, &st->text_len))) {
		write_stack(m, g, st);
		if (fclose(m)) {
			free(st->text);
			st->text = NULL;
		}
	}
	if (st->text)
		fwrite(st->text, 1, st->text_len, f);
	else
		write_stack(f, g, st);
}

static void print_metric(FILE *f, const struct gt2_event *ev)
{
	const char *name = ev->type == GT2_EV_PROCS_CHANGE ? "/sched/gomaxprocs:threads" :
			   ev->type == GT2_EV_HEAP_ALLOC ? "/memory/classes/heap/objects:bytes" :
			   "/gc/heap/goal:bytes";

	fprintf(f, " Name=\"%s\" Value=Value{Uint64(%" PRIu64 ")}", name, ev->args[0]);
}

static void print_range(FILE *f, const struct gt2_event *ev, enum kind k)
{
	switch (ev->type) {
	case GT2_EV_STW_BEGIN:
	case GT2_EV_STW_END: {
		struct gt2_str s;

		gt2_gen_string(ev->gen, ev->args[0], &s);
		fputs(" Name=\"stop-the-world (", f);
		gt2_quote_runes(f, s.s, s.len);
		fprintf(f, ")\" Scope=Goroutine(%" PRId64 ")", ev->g);
		break;
	}
	case GT2_EV_GC_BEGIN:
	case GT2_EV_GC_ACTIVE:
	case GT2_EV_GC_END:
		fputs(" Name=\"GC concurrent mark phase\" Scope=None", f);
		break;
	case GT2_EV_GC_SWEEP_BEGIN:
	case GT2_EV_GC_SWEEP_ACTIVE:
	case GT2_EV_GC_SWEEP_END:
		fprintf(f, " Name=\"GC incremental sweep\" Scope=Proc(%" PRId64 ")",
			ev->type == GT2_EV_GC_SWEEP_ACTIVE ? (int64_t)ev->args[0] : ev->p);
		break;
	default:
		fprintf(f, " Name=\"GC mark assist\" Scope=Goroutine(%" PRId64 ")",
			ev->type == GT2_EV_GC_MARK_ASSIST_ACTIVE ? (int64_t)ev->args[0] : ev->g);
	}
	if (k != K_RANGE_END)
		return;
	fputs(" Attributes=[", f);
	if (ev->type == GT2_EV_GC_SWEEP_END)
		fprintf(f, "\"bytes swept\"=Value{Uint64(%" PRIu64 ")} \"bytes reclaimed\"="
			"Value{Uint64(%" PRIu64 ")}", ev->args[0], ev->args[1]);
	putc(']', f);
}

/* A state transition: Go's StateTransition(). */
struct transition {
	bool proc;
	int64_t id;
	uint8_t from, to;	/* GoState or ProcState */
	bool reason;		/* args[0] is its string */
	bool has_stack;
	uint64_t stack;
};

static const char *const go_states[] = {
	"Undetermined", "NotExist", "Runnable", "Running", "Waiting", "Syscall",
};
static const char *const proc_states[] = { "Undetermined", "NotExist", "Running", "Idle" };

enum { UND, NOT_EXIST, RUNNABLE, RUNNING, WAITING, SYSCALL };	/* GoState */
enum { P_RUNNING = 2, P_IDLE };					/* ProcState */

/* Go's Event.Stack(): the main stack of the event, when it has one. */
static bool event_stack(const struct gt2_event *ev, uint64_t *id)
{
	const struct gt2_spec *spec;

	if (ev->type == GT2_EV_PARSED_SYNC)
		return false;
	if (ev->type == GT2_EV_CPU_SAMPLE) {
		*id = ev->args[0];
		return true;
	}
	spec = gt2_spec(ev->type);
	if (!spec->stack_ids[0])
		return false;
	*id = ev->args[spec->stack_ids[0] - 1];
	return *id != 0;
}

static void go_transition(struct transition *t, int64_t id, uint8_t from, uint8_t to)
{
	t->id = id;
	t->from = from;
	t->to = to;
}

static void proc_transition(struct transition *t, int64_t id, uint8_t from, uint8_t to)
{
	t->proc = true;
	go_transition(t, id, from, to);
}

static void transition(const struct gt2_event *ev, struct transition *t)
{
	static const uint8_t go_state[] = { 0, RUNNABLE, RUNNING, SYSCALL, WAITING };
	static const uint8_t proc_state[] = { 0, P_RUNNING, P_IDLE, P_RUNNING, P_IDLE };
	const uint64_t *a = ev->args;

	memset(t, 0, sizeof(*t));
	switch (ev->type) {
	case GT2_EV_PROC_START:
		return proc_transition(t, (int64_t)a[0], P_IDLE, P_RUNNING);
	case GT2_EV_PROC_STOP:
		return proc_transition(t, ev->p, P_RUNNING, P_IDLE);
	case GT2_EV_PROC_STEAL:
		return proc_transition(t, (int64_t)a[0], a[3] == 4 ? P_IDLE : P_RUNNING, P_IDLE);
	case GT2_EV_PROC_STATUS:
		return proc_transition(t, (int64_t)a[0], (uint8_t)a[2], proc_state[a[1]]);
	case GT2_EV_GO_CREATE:
	case GT2_EV_GO_CREATE_BLOCKED:
		go_transition(t, (int64_t)a[0], NOT_EXIST,
			      ev->type == GT2_EV_GO_CREATE ? RUNNABLE : WAITING);
		t->has_stack = true;	/* Go's Stack{table, id} even for id 0 */
		t->stack = a[1];
		return;
	case GT2_EV_GO_CREATE_SYSCALL:
		return go_transition(t, (int64_t)a[0], NOT_EXIST, SYSCALL);
	case GT2_EV_GO_START:
		return go_transition(t, (int64_t)a[0], RUNNABLE, RUNNING);
	case GT2_EV_GO_DESTROY:
		return go_transition(t, ev->g, RUNNING, NOT_EXIST);
	case GT2_EV_GO_DESTROY_SYSCALL:
		return go_transition(t, ev->g, SYSCALL, NOT_EXIST);
	case GT2_EV_GO_STOP:
	case GT2_EV_GO_BLOCK:
		go_transition(t, ev->g, RUNNING, ev->type == GT2_EV_GO_STOP ? RUNNABLE : WAITING);
		t->reason = true;
		break;
	case GT2_EV_GO_UNBLOCK:
	case GT2_EV_GO_SWITCH:
	case GT2_EV_GO_SWITCH_DESTROY:
		return go_transition(t, (int64_t)a[0], WAITING, RUNNABLE);
	case GT2_EV_GO_SYSCALL_BEGIN:
		go_transition(t, ev->g, RUNNING, SYSCALL);
		break;
	case GT2_EV_GO_SYSCALL_END:
		return go_transition(t, ev->g, SYSCALL, RUNNING);
	case GT2_EV_GO_SYSCALL_END_BLOCKED:
		return go_transition(t, ev->g, SYSCALL, RUNNABLE);
	default:	/* GoStatus, GoStatusStack: the old state smuggled in */
		go_transition(t, (int64_t)a[0], (uint8_t)(a[2] >> 32), go_state[a[2] & 0xffffffff]);
	}
	t->has_stack = event_stack(ev, &t->stack);
}

static void print_transition(FILE *f, const struct gt2_event *ev)
{
	struct transition t;

	transition(ev, &t);
	put_named(f, t.proc ? " ProcID=" : " GoID=", t.id);
	putc(' ', f);
	fputs(t.proc ? proc_states[t.from] : go_states[t.from], f);
	fputs("->", f);
	fputs(t.proc ? proc_states[t.to] : go_states[t.to], f);
	fputs(" Reason=", f);
	quote_id(f, ev, t.reason ? ev->args[0] : 0);
	if (!t.has_stack)
		return;
	fputs("\nTransitionStack=\n", f);
	print_stack(f, ev->gen, t.stack);
}

static void print_experimental(FILE *f, const struct gt2_event *ev)
{
	const struct gt2_spec *spec = gt2_spec(ev->type);
	unsigned int i;

	fprintf(f, " Name=%s Args=[", spec->name);
	for (i = 1; spec->args[i]; i++)
		fprintf(f, "%s%s=Value{Uint64(%" PRIu64 ")}", i > 1 ? ", " : "", spec->args[i],
			ev->args[i - 1]);
	putc(']', f);
}

/* time.Unix(sec, nsec).Format(time.RFC3339Nano), in the local time zone. */
static void print_wall(FILE *f, int64_t sec, int64_t nsec)
{
	char frac[12] = "";
	time_t t;
	struct tm tm;
	long off;
	int n;

	if (nsec < 0 || nsec >= 1000000000) {
		sec += nsec / 1000000000;
		nsec %= 1000000000;
		if (nsec < 0) {
			nsec += 1000000000;
			sec--;
		}
	}
	t = (time_t)sec;
	if (!localtime_r(&t, &tm))
		return;
	if (nsec) {
		n = snprintf(frac, sizeof(frac), ".%09" PRId64, nsec);
		while (frac[n - 1] == '0')
			frac[--n] = 0;
	}
	fprintf(f, "%04lld-%02d-%02dT%02d:%02d:%02d%s", (long long)tm.tm_year + 1900,
		tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, frac);
	off = tm.tm_gmtoff / 60;
	if (!off)
		putc('Z', f);
	else
		fprintf(f, "%c%02ld:%02ld", off < 0 ? '-' : '+', labs(off) / 60, labs(off) % 60);
}

static void print_sync(FILE *f, const struct gt2_event *ev)
{
	const struct gt2_gen *g = ev->gen;

	fprintf(f, " N=%" PRIu64, ev->args[0]);
	if (!g || !g->has_snap)
		return;
	fprintf(f, " Trace=%" PRId64 " Mono=%" PRIu64 " Wall=", gt2_gen_ns(g, g->snap_time),
		g->snap_mono);
	print_wall(f, (int64_t)g->snap_sec, (int64_t)g->snap_nsec);
}

static void print_kind(FILE *f, const struct gt2_event *ev, enum kind k)
{
	switch (k) {
	case K_METRIC:
		return print_metric(f, ev);
	case K_LABEL:
		fputs(" Label=", f);
		quote_id(f, ev, ev->args[0]);
		fprintf(f, " Resource=Goroutine(%" PRId64 ")", ev->g);
		return;
	case K_RANGE_BEGIN:
	case K_RANGE_ACTIVE:
	case K_RANGE_END:
		return print_range(f, ev, k);
	case K_TASK_BEGIN:
		fprintf(f, " ID=%" PRIu64 " Parent=%" PRIu64 " Type=", ev->args[0], ev->args[1]);
		return quote_id(f, ev, ev->args[2]);
	case K_TASK_END:
		fprintf(f, " ID=%" PRIu64 " Parent=%" PRIu64 " Type=", ev->args[0], ev->args[2]);
		return gt2_quote(f, ev->task_type, ev->task_type_len);
	case K_REGION_BEGIN:
	case K_REGION_END:
		fprintf(f, " Task=%" PRIu64 " Type=", ev->args[0]);
		return quote_id(f, ev, ev->args[1]);
	case K_LOG:
		fprintf(f, " Task=%" PRIu64 " Category=", ev->args[0]);
		quote_id(f, ev, ev->args[1]);
		fputs(" Message=", f);
		return quote_id(f, ev, ev->args[2]);
	case K_STATE_TRANSITION:
		return print_transition(f, ev);
	case K_EXPERIMENTAL:
		return print_experimental(f, ev);
	case K_SYNC:
		return print_sync(f, ev);
	default:
		return;
	}
}

int gt2_event_print(FILE *f, const struct gt2_event *ev)
{
	enum kind k = kind(ev->type);
	uint64_t stack;

	put_named(f, "M=", ev->m);
	put_named(f, " P=", ev->p);
	put_named(f, " G=", ev->g);
	putc(' ', f);
	fputs(kind_names[k], f);
	put_named(f, " Time=", ev->time);
	print_kind(f, ev, k);
	if (event_stack(ev, &stack)) {
		fputs("\nStack=\n", f);
		print_stack(f, ev->gen, stack);
	}
	putc('\n', f);
	return ferror(f) ? -1 : 0;
}
