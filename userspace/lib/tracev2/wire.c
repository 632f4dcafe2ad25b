// SPDX-License-Identifier: GPL-2.0
/* Go 1.22+ traces, the wire level: events one at a time, as Go's raw.Reader reads them. */
#include <string.h>

#include "internal.h"

#define EV(n, ...)	{ .name = n, .args = { __VA_ARGS__ } }
/* A timed event: its arguments (after dt), then Go's other facts about it. */
#define TIMED(n, a, ...)	{ .name = n, .args = { "dt", ARGS a }, .timed = true, __VA_ARGS__ }
#define ARGS(...)	__VA_ARGS__
#define STK(...)	.stack_ids = { __VA_ARGS__ }	/* Go's StackIDs */
#define STR(...)	.string_ids = { __VA_ARGS__ }	/* Go's StringIDs */
#define START(t)	.start_ev = GT2_EV_##t		/* Go's StartEv */
#define ALLOCFREE	.exp = 1			/* Go's Experiment */

static const struct gt2_spec specs[GT2_EV_COUNT] = {
	[GT2_EV_EVENT_BATCH] = EV("EventBatch", "gen", "m", "time", "size"),
	[GT2_EV_STACKS] = EV("Stacks"),
	[GT2_EV_STACK] = { .name = "Stack", .args = { "id", "nframes" }, .stack = true },
	[GT2_EV_STRINGS] = EV("Strings"),
	[GT2_EV_STRING] = { .name = "String", .args = { "id" }, .data = true },
	[GT2_EV_CPU_SAMPLES] = EV("CPUSamples"),
	[GT2_EV_CPU_SAMPLE] = { .name = "CPUSample", .args = { "time", "m", "p", "g", "stack" },
			       STK(4) },
	[GT2_EV_FREQUENCY] = EV("Frequency", "freq"),
	[GT2_EV_PROCS_CHANGE] = TIMED("ProcsChange", ("procs_value", "stack"), STK(2)),
	[GT2_EV_PROC_START] = TIMED("ProcStart", ("p", "p_seq")),
	[GT2_EV_PROC_STOP] = TIMED("ProcStop", ()),
	[GT2_EV_PROC_STEAL] = TIMED("ProcSteal", ("p", "p_seq", "m")),
	[GT2_EV_PROC_STATUS] = TIMED("ProcStatus", ("p", "pstatus")),
	[GT2_EV_GO_CREATE] = TIMED("GoCreate", ("new_g", "new_stack", "stack"), STK(3, 2)),
	[GT2_EV_GO_CREATE_SYSCALL] = TIMED("GoCreateSyscall", ("new_g")),
	[GT2_EV_GO_START] = TIMED("GoStart", ("g", "g_seq")),
	[GT2_EV_GO_DESTROY] = TIMED("GoDestroy", ()),
	[GT2_EV_GO_DESTROY_SYSCALL] = TIMED("GoDestroySyscall", ()),
	[GT2_EV_GO_STOP] = TIMED("GoStop", ("reason_string", "stack"), STK(2), STR(1)),
	[GT2_EV_GO_BLOCK] = TIMED("GoBlock", ("reason_string", "stack"), STK(2), STR(1)),
	[GT2_EV_GO_UNBLOCK] = TIMED("GoUnblock", ("g", "g_seq", "stack"), STK(3)),
	[GT2_EV_GO_SYSCALL_BEGIN] = TIMED("GoSyscallBegin", ("p_seq", "stack"), STK(2)),
	[GT2_EV_GO_SYSCALL_END] = TIMED("GoSyscallEnd", (), START(GO_SYSCALL_BEGIN)),
	[GT2_EV_GO_SYSCALL_END_BLOCKED] = TIMED("GoSyscallEndBlocked", (), START(GO_SYSCALL_BEGIN)),
	[GT2_EV_GO_STATUS] = TIMED("GoStatus", ("g", "m", "gstatus")),
	[GT2_EV_STW_BEGIN] = TIMED("STWBegin", ("kind_string", "stack"), STK(2), STR(1)),
	[GT2_EV_STW_END] = TIMED("STWEnd", (), START(STW_BEGIN)),
	[GT2_EV_GC_ACTIVE] = TIMED("GCActive", ("gc_seq"), START(GC_BEGIN)),
	[GT2_EV_GC_BEGIN] = TIMED("GCBegin", ("gc_seq", "stack"), STK(2)),
	[GT2_EV_GC_END] = TIMED("GCEnd", ("gc_seq"), START(GC_BEGIN)),
	[GT2_EV_GC_SWEEP_ACTIVE] = TIMED("GCSweepActive", ("p"), START(GC_SWEEP_BEGIN)),
	[GT2_EV_GC_SWEEP_BEGIN] = TIMED("GCSweepBegin", ("stack"), STK(1)),
	[GT2_EV_GC_SWEEP_END] = TIMED("GCSweepEnd", ("swept_value", "reclaimed_value"),
				      START(GC_SWEEP_BEGIN)),
	[GT2_EV_GC_MARK_ASSIST_ACTIVE] = TIMED("GCMarkAssistActive", ("g"),
					       START(GC_MARK_ASSIST_BEGIN)),
	[GT2_EV_GC_MARK_ASSIST_BEGIN] = TIMED("GCMarkAssistBegin", ("stack"), STK(1)),
	[GT2_EV_GC_MARK_ASSIST_END] = TIMED("GCMarkAssistEnd", (), START(GC_MARK_ASSIST_BEGIN)),
	[GT2_EV_HEAP_ALLOC] = TIMED("HeapAlloc", ("heapalloc_value")),
	[GT2_EV_HEAP_GOAL] = TIMED("HeapGoal", ("heapgoal_value")),
	[GT2_EV_GO_LABEL] = TIMED("GoLabel", ("label_string"), STR(1)),
	[GT2_EV_USER_TASK_BEGIN] = TIMED("UserTaskBegin", ("task", "parent_task",
					 "name_string", "stack"), STK(4), STR(3)),
	[GT2_EV_USER_TASK_END] = TIMED("UserTaskEnd", ("task", "stack"), STK(2)),
	[GT2_EV_USER_REGION_BEGIN] = TIMED("UserRegionBegin", ("task", "name_string", "stack"),
					   STK(3), STR(2)),
	[GT2_EV_USER_REGION_END] = TIMED("UserRegionEnd", ("task", "name_string", "stack"),
					 STK(3), STR(2), START(USER_REGION_BEGIN)),
	[GT2_EV_USER_LOG] = TIMED("UserLog", ("task", "key_string", "value_string", "stack"),
				  STK(4), STR(2, 3)),
	[GT2_EV_GO_SWITCH] = TIMED("GoSwitch", ("g", "g_seq")),
	[GT2_EV_GO_SWITCH_DESTROY] = TIMED("GoSwitchDestroy", ("g", "g_seq")),
	[GT2_EV_GO_CREATE_BLOCKED] = TIMED("GoCreateBlocked", ("new_g", "new_stack", "stack"),
					   STK(3, 2)),
	[GT2_EV_GO_STATUS_STACK] = TIMED("GoStatusStack", ("g", "m", "gstatus", "stack"), STK(4)),
	[GT2_EV_EXPERIMENTAL_BATCH] = { .name = "ExperimentalBatch",
					.args = { "exp", "gen", "m", "time" }, .data = true },
	[GT2_EV_SYNC] = EV("Sync"),
	[GT2_EV_CLOCK_SNAPSHOT] = TIMED("ClockSnapshot", ("mono", "sec", "nsec")),
	[GT2_EV_END_OF_GENERATION] = EV("EndOfGeneration"),
	/* 53-127: no entry; Go's table has them, unnamed and without arguments. */
	[GT2_EV_SPAN] = TIMED("Span", ("id", "npages_value", "kindclass"), ALLOCFREE),
	[GT2_EV_SPAN_ALLOC] = TIMED("SpanAlloc", ("id", "npages_value", "kindclass"), ALLOCFREE),
	[GT2_EV_SPAN_FREE] = TIMED("SpanFree", ("id"), ALLOCFREE),
	[GT2_EV_HEAP_OBJECT] = TIMED("HeapObject", ("id", "type"), ALLOCFREE),
	[GT2_EV_HEAP_OBJECT_ALLOC] = TIMED("HeapObjectAlloc", ("id", "type"), ALLOCFREE),
	[GT2_EV_HEAP_OBJECT_FREE] = TIMED("HeapObjectFree", ("id"), ALLOCFREE),
	[GT2_EV_GOROUTINE_STACK] = TIMED("GoroutineStack", ("id", "order"), ALLOCFREE),
	[GT2_EV_GOROUTINE_STACK_ALLOC] = TIMED("GoroutineStackAlloc", ("id", "order"), ALLOCFREE),
	[GT2_EV_GOROUTINE_STACK_FREE] = TIMED("GoroutineStackFree", ("id"), ALLOCFREE),
};

const struct gt2_spec *gt2_spec(unsigned int type)
{
	return type < GT2_EV_COUNT ? &specs[type] : NULL;
}

unsigned int gt2_timed_args(uint8_t type)
{
	unsigned int n = 0;

	while (specs[type].args[n])
		n++;
	return n ? n - 1 : 0;
}

unsigned int gt2_max_type(int ver)
{
	switch (ver) {
	case GT_VER(22):
		return GT2_EV_USER_LOG;
	case GT_VER(23):
		return GT2_EV_EXPERIMENTAL_BATCH;
	case GT_VER(25):
		return GT2_EV_CLOCK_SNAPSHOT;
	}
	return GT2_EV_COUNT - 1;
}

enum varint { VARINT_OK, VARINT_END, VARINT_OVERFLOW };

/* Go's binary.ReadUvarint(): at most 10 bytes, the 10th at most 1. */
static enum varint uvarint(const uint8_t *buf, size_t size, uint64_t *off, uint64_t *v)
{
	uint64_t o = *off, x = 0;
	unsigned int i;

	for (i = 0; i < 10; i++) {
		uint8_t b;

		if (o >= size)
			return VARINT_END;
		b = buf[o++];
		if (b < 0x80) {
			if (i == 9 && b > 1)
				return VARINT_OVERFLOW;
			*off = o;
			*v = x | (uint64_t)b << (7 * i);
			return VARINT_OK;
		}
		x |= (uint64_t)(b & 0x7f) << (7 * i);
	}
	return VARINT_OVERFLOW;
}

bool gt2_uvarint(const uint8_t *buf, size_t size, uint64_t *off, uint64_t *v)
{
	return uvarint(buf, size, off, v) == VARINT_OK;
}

const char *gt2_read_uvarint(const uint8_t *buf, size_t size, uint64_t *off, uint64_t *v)
{
	switch (uvarint(buf, size, off, v)) {
	case VARINT_OK:
		return NULL;
	case VARINT_OVERFLOW:
		return "binary: varint overflows a 64-bit integer";
	default:
		return *off < size ? "unexpected EOF" : "EOF";
	}
}

static int varint_fail(enum varint r, const struct gt2_wire_event *ev, uint64_t at,
		       struct gt_error *err)
{
	if (r == VARINT_OVERFLOW)
		gt_fail(err, GT_ERR_WIRE, ev->off, "%s at offset %llu: bad varint at offset %llu: "
			"it overflows 64 bits", ev->name, (unsigned long long)ev->off,
			(unsigned long long)at);
	else
		gt_fail(err, GT_ERR_WIRE, ev->off, "%s at offset %llu: the file ends inside the "
			"event: the trace is cut short", ev->name, (unsigned long long)ev->off);
	return -1;
}

/* The frames of a Stack event: as Go, none when their count is negative as an int. */
static int wire_frames(const struct gt2_trace *t, uint64_t *off, struct gt2_wire_event *ev,
		       struct gt_error *err)
{
	uint64_t i, v, at;
	unsigned int j;
	enum varint r;

	ev->frames_off = *off;
	ev->nframes = (int64_t)ev->args[1] > 0 ? ev->args[1] : 0;
	/* Each varint takes a byte at least: the file's end bounds the loop. */
	for (i = 0; i < ev->nframes; i++) {
		for (j = 0; j < 4; j++) {
			at = *off;
			r = uvarint(t->data, t->size, off, &v);
			if (r != VARINT_OK)
				return varint_fail(r, ev, at, err);
		}
	}
	return 0;
}

/* A length and that many bytes: as Go, none when the length is negative as an int. */
static int wire_data(const struct gt2_trace *t, uint64_t *off, struct gt2_wire_event *ev,
		     struct gt_error *err)
{
	uint64_t at = *off, len;
	enum varint r;

	r = uvarint(t->data, t->size, off, &len);
	if (r != VARINT_OK)
		return varint_fail(r, ev, at, err);
	if ((int64_t)len <= 0)
		return 0;
	if (len > t->size - *off) {
		gt_fail(err, GT_ERR_WIRE, ev->off, "%s at offset %llu: the file ends inside its "
			"%llu bytes of data: the trace is cut short", ev->name,
			(unsigned long long)ev->off, (unsigned long long)len);
		return -1;
	}
	ev->data = t->data + *off;
	ev->data_len = len;
	*off += len;
	return 0;
}

void gt2_wire_init(struct gt2_wire *w, const struct gt2_trace *t)
{
	w->t = t;
	w->off = t->start;
}

int gt2_wire_next(struct gt2_wire *w, struct gt2_wire_event *ev, struct gt_error *err)
{
	const struct gt2_trace *t = w->t;
	const struct gt2_spec *spec;
	uint64_t off = w->off, at;
	enum varint r;

	if (off >= t->size)
		return 0;
	memset(ev, 0, sizeof(*ev));
	ev->off = off;
	ev->type = t->data[off++];
	if (!ev->type || ev->type > gt2_max_type(t->ver)) {
		gt_fail(err, GT_ERR_WIRE, ev->off, "invalid event type %u at offset %llu: go 1.%d "
			"traces have types 1 to %u", ev->type, (unsigned long long)ev->off,
			t->ver - 1000, gt2_max_type(t->ver));
		return -1;
	}
	spec = &specs[ev->type];
	ev->name = spec->name ? spec->name : "";
	ev->arg_names = spec->args;
	for (; spec->args[ev->nargs]; ev->nargs++) {
		at = off;
		r = uvarint(t->data, t->size, &off, &ev->args[ev->nargs]);
		if (r != VARINT_OK)
			return varint_fail(r, ev, at, err);
	}
	if (spec->stack && wire_frames(t, &off, ev, err))
		return -1;
	if (spec->data && wire_data(t, &off, ev, err))
		return -1;
	ev->end = off;
	w->off = off;
	return 1;
}

void gt2_wire_frame(const struct gt2_trace *t, uint64_t *pos, uint64_t frame[4])
{
	unsigned int i;

	for (i = 0; i < 4; i++)
		uvarint(t->data, t->size, pos, &frame[i]);
}
