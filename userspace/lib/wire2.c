// SPDX-License-Identifier: GPL-2.0
/* Go 1.22+ traces, the wire level: events one at a time, as Go's raw.Reader reads them. */
#include <string.h>

#include "internal2.h"

/* An event type's table entry (Go's tracev2.EventSpec, what raw reads). */
struct spec {
	const char *name;
	const char *args[GT2_MAX_ARGS + 1];	/* NULL-terminated */
	bool stack;		/* frames follow: args[1] of them, 4 varints each */
	bool data;		/* a length and that many bytes follow */
};

#define EV(n, ...)	{ .name = n, .args = { __VA_ARGS__ } }
#define TIMED(n, ...)	EV(n, "dt", __VA_ARGS__)

static const struct spec specs[GT2_EV_COUNT] = {
	[GT2_EV_EVENT_BATCH] = EV("EventBatch", "gen", "m", "time", "size"),
	[GT2_EV_STACKS] = EV("Stacks"),
	[GT2_EV_STACK] = { .name = "Stack", .args = { "id", "nframes" }, .stack = true },
	[GT2_EV_STRINGS] = EV("Strings"),
	[GT2_EV_STRING] = { .name = "String", .args = { "id" }, .data = true },
	[GT2_EV_CPU_SAMPLES] = EV("CPUSamples"),
	[GT2_EV_CPU_SAMPLE] = EV("CPUSample", "time", "m", "p", "g", "stack"),
	[GT2_EV_FREQUENCY] = EV("Frequency", "freq"),
	[GT2_EV_PROCS_CHANGE] = TIMED("ProcsChange", "procs_value", "stack"),
	[GT2_EV_PROC_START] = TIMED("ProcStart", "p", "p_seq"),
	[GT2_EV_PROC_STOP] = TIMED("ProcStop"),
	[GT2_EV_PROC_STEAL] = TIMED("ProcSteal", "p", "p_seq", "m"),
	[GT2_EV_PROC_STATUS] = TIMED("ProcStatus", "p", "pstatus"),
	[GT2_EV_GO_CREATE] = TIMED("GoCreate", "new_g", "new_stack", "stack"),
	[GT2_EV_GO_CREATE_SYSCALL] = TIMED("GoCreateSyscall", "new_g"),
	[GT2_EV_GO_START] = TIMED("GoStart", "g", "g_seq"),
	[GT2_EV_GO_DESTROY] = TIMED("GoDestroy"),
	[GT2_EV_GO_DESTROY_SYSCALL] = TIMED("GoDestroySyscall"),
	[GT2_EV_GO_STOP] = TIMED("GoStop", "reason_string", "stack"),
	[GT2_EV_GO_BLOCK] = TIMED("GoBlock", "reason_string", "stack"),
	[GT2_EV_GO_UNBLOCK] = TIMED("GoUnblock", "g", "g_seq", "stack"),
	[GT2_EV_GO_SYSCALL_BEGIN] = TIMED("GoSyscallBegin", "p_seq", "stack"),
	[GT2_EV_GO_SYSCALL_END] = TIMED("GoSyscallEnd"),
	[GT2_EV_GO_SYSCALL_END_BLOCKED] = TIMED("GoSyscallEndBlocked"),
	[GT2_EV_GO_STATUS] = TIMED("GoStatus", "g", "m", "gstatus"),
	[GT2_EV_STW_BEGIN] = TIMED("STWBegin", "kind_string", "stack"),
	[GT2_EV_STW_END] = TIMED("STWEnd"),
	[GT2_EV_GC_ACTIVE] = TIMED("GCActive", "gc_seq"),
	[GT2_EV_GC_BEGIN] = TIMED("GCBegin", "gc_seq", "stack"),
	[GT2_EV_GC_END] = TIMED("GCEnd", "gc_seq"),
	[GT2_EV_GC_SWEEP_ACTIVE] = TIMED("GCSweepActive", "p"),
	[GT2_EV_GC_SWEEP_BEGIN] = TIMED("GCSweepBegin", "stack"),
	[GT2_EV_GC_SWEEP_END] = TIMED("GCSweepEnd", "swept_value", "reclaimed_value"),
	[GT2_EV_GC_MARK_ASSIST_ACTIVE] = TIMED("GCMarkAssistActive", "g"),
	[GT2_EV_GC_MARK_ASSIST_BEGIN] = TIMED("GCMarkAssistBegin", "stack"),
	[GT2_EV_GC_MARK_ASSIST_END] = TIMED("GCMarkAssistEnd"),
	[GT2_EV_HEAP_ALLOC] = TIMED("HeapAlloc", "heapalloc_value"),
	[GT2_EV_HEAP_GOAL] = TIMED("HeapGoal", "heapgoal_value"),
	[GT2_EV_GO_LABEL] = TIMED("GoLabel", "label_string"),
	[GT2_EV_USER_TASK_BEGIN] = TIMED("UserTaskBegin", "task", "parent_task",
					 "name_string", "stack"),
	[GT2_EV_USER_TASK_END] = TIMED("UserTaskEnd", "task", "stack"),
	[GT2_EV_USER_REGION_BEGIN] = TIMED("UserRegionBegin", "task", "name_string", "stack"),
	[GT2_EV_USER_REGION_END] = TIMED("UserRegionEnd", "task", "name_string", "stack"),
	[GT2_EV_USER_LOG] = TIMED("UserLog", "task", "key_string", "value_string", "stack"),
	[GT2_EV_GO_SWITCH] = TIMED("GoSwitch", "g", "g_seq"),
	[GT2_EV_GO_SWITCH_DESTROY] = TIMED("GoSwitchDestroy", "g", "g_seq"),
	[GT2_EV_GO_CREATE_BLOCKED] = TIMED("GoCreateBlocked", "new_g", "new_stack", "stack"),
	[GT2_EV_GO_STATUS_STACK] = TIMED("GoStatusStack", "g", "m", "gstatus", "stack"),
	[GT2_EV_EXPERIMENTAL_BATCH] = { .name = "ExperimentalBatch",
					.args = { "exp", "gen", "m", "time" }, .data = true },
	[GT2_EV_SYNC] = EV("Sync"),
	[GT2_EV_CLOCK_SNAPSHOT] = TIMED("ClockSnapshot", "mono", "sec", "nsec"),
	[GT2_EV_END_OF_GENERATION] = EV("EndOfGeneration"),
	/* 53-127: no entry; Go's table has them, unnamed and without arguments. */
	[GT2_EV_SPAN] = TIMED("Span", "id", "npages_value", "kindclass"),
	[GT2_EV_SPAN_ALLOC] = TIMED("SpanAlloc", "id", "npages_value", "kindclass"),
	[GT2_EV_SPAN_FREE] = TIMED("SpanFree", "id"),
	[GT2_EV_HEAP_OBJECT] = TIMED("HeapObject", "id", "type"),
	[GT2_EV_HEAP_OBJECT_ALLOC] = TIMED("HeapObjectAlloc", "id", "type"),
	[GT2_EV_HEAP_OBJECT_FREE] = TIMED("HeapObjectFree", "id"),
	[GT2_EV_GOROUTINE_STACK] = TIMED("GoroutineStack", "id", "order"),
	[GT2_EV_GOROUTINE_STACK_ALLOC] = TIMED("GoroutineStackAlloc", "id", "order"),
	[GT2_EV_GOROUTINE_STACK_FREE] = TIMED("GoroutineStackFree", "id"),
};

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
	const struct spec *spec;
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
