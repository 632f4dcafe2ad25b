/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libgtrace for Go 1.22 and later traces ("go 1.22 trace", 1.23, 1.25 and
 * 1.26; Go 1.27 writes 1.26), Go's internal/trace/tracev2 format.
 *
 * This is its wire level: the header and every event of every batch with
 * its arguments, exactly as Go's internal/trace/raw reader decodes them (what
 * 'go tool trace -d=wire' prints), without any further check. A batch
 * header (EventBatch) is one event and the events inside it follow it;
 * string, stack and experimental data are events of their own. Decoding
 * walks the mapped file and keeps nothing per event. The pre-1.22 formats
 * are gtrace.h's.
 *
 * Errors (phase GT_ERR_WIRE, offset of the event's first byte): an event
 * type outside the version's table, a varint over 64 bits, and a file that
 * ends inside an event, which Go's reader takes for the end of the trace
 * when the cut falls between two values or inside a string.
 *
 * Above it, the parsed level (gt2_reader_*): the events Go's trace.Reader
 * returns, in its order, with its checks and its error messages. It reads
 * one generation at a time, and of it, into buffers of its own (pread(), not
 * the mapping): the batch headers, the tables (strings, stacks, CPU samples,
 * sync), and for each M the one batch its cursor is in. Its memory is bounded
 * by the Ms of a generation (64 KiB each at most) and its tables, neither by
 * the file nor by how the page cache holds it.
 */
#ifndef GTRACE_TRACEV2_H
#define GTRACE_TRACEV2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gtrace.h"

/* Event types of the wire format, as in Go's tracev2/events.go. */
enum {
	GT2_EV_NONE, GT2_EV_EVENT_BATCH, GT2_EV_STACKS, GT2_EV_STACK, GT2_EV_STRINGS,
	GT2_EV_STRING, GT2_EV_CPU_SAMPLES, GT2_EV_CPU_SAMPLE, GT2_EV_FREQUENCY,
	GT2_EV_PROCS_CHANGE, GT2_EV_PROC_START, GT2_EV_PROC_STOP, GT2_EV_PROC_STEAL,
	GT2_EV_PROC_STATUS, GT2_EV_GO_CREATE, GT2_EV_GO_CREATE_SYSCALL, GT2_EV_GO_START,
	GT2_EV_GO_DESTROY, GT2_EV_GO_DESTROY_SYSCALL, GT2_EV_GO_STOP, GT2_EV_GO_BLOCK,
	GT2_EV_GO_UNBLOCK, GT2_EV_GO_SYSCALL_BEGIN, GT2_EV_GO_SYSCALL_END,
	GT2_EV_GO_SYSCALL_END_BLOCKED, GT2_EV_GO_STATUS, GT2_EV_STW_BEGIN, GT2_EV_STW_END,
	GT2_EV_GC_ACTIVE, GT2_EV_GC_BEGIN, GT2_EV_GC_END, GT2_EV_GC_SWEEP_ACTIVE,
	GT2_EV_GC_SWEEP_BEGIN, GT2_EV_GC_SWEEP_END, GT2_EV_GC_MARK_ASSIST_ACTIVE,
	GT2_EV_GC_MARK_ASSIST_BEGIN, GT2_EV_GC_MARK_ASSIST_END, GT2_EV_HEAP_ALLOC,
	GT2_EV_HEAP_GOAL, GT2_EV_GO_LABEL, GT2_EV_USER_TASK_BEGIN, GT2_EV_USER_TASK_END,
	GT2_EV_USER_REGION_BEGIN, GT2_EV_USER_REGION_END, GT2_EV_USER_LOG,
	/* Go 1.23 */
	GT2_EV_GO_SWITCH, GT2_EV_GO_SWITCH_DESTROY, GT2_EV_GO_CREATE_BLOCKED,
	GT2_EV_GO_STATUS_STACK, GT2_EV_EXPERIMENTAL_BATCH,
	/* Go 1.25 */
	GT2_EV_SYNC, GT2_EV_CLOCK_SNAPSHOT,
	/* Go 1.26 */
	GT2_EV_END_OF_GENERATION,
	/* Experimental events (AllocFree), in the wire table of 1.26 traces. */
	GT2_EV_SPAN = 128, GT2_EV_SPAN_ALLOC, GT2_EV_SPAN_FREE, GT2_EV_HEAP_OBJECT,
	GT2_EV_HEAP_OBJECT_ALLOC, GT2_EV_HEAP_OBJECT_FREE, GT2_EV_GOROUTINE_STACK,
	GT2_EV_GOROUTINE_STACK_ALLOC, GT2_EV_GOROUTINE_STACK_FREE,
	GT2_EV_COUNT
};

#define GT2_MAX_ARGS	5	/* arguments of any event type, before frames or data */

struct gt2_trace;

/*
 * Opens a trace file (the wire level reads its mapping, the parsed level
 * pread()s it) or takes one in memory, and reads its header as Go does.
 * Returns 0 with *t set, or -1 with @err set: phase GT_OK for I/O errors,
 * GT_ERR_WIRE for a header Go refuses (with Go's message) or a pre-1.22 trace.
 */
int gt2_open(const char *path, struct gt2_trace **t, struct gt_error *err);
int gt2_open_mem(const void *data, size_t size, struct gt2_trace **t, struct gt_error *err);
void gt2_close(struct gt2_trace *t);

int gt2_version(const struct gt2_trace *t);		/* e.g. 1026 */
uint64_t gt2_size(const struct gt2_trace *t);

/* One event as encoded; pointers into the trace, valid until gt2_close(). */
struct gt2_wire_event {
	uint64_t off;		/* its type byte */
	uint64_t end;		/* the first byte after it */
	uint8_t type;
	const char *name;	/* "" for the unnamed types 53-127 of 1.26 traces */
	const char *const *arg_names;	/* nargs names */
	unsigned int nargs;
	uint64_t args[GT2_MAX_ARGS];
	/* Stack: the frames after the arguments (see gt2_wire_frame()). */
	uint64_t nframes;
	uint64_t frames_off;
	/* String and ExperimentalBatch: the bytes; NULL when there are none. */
	const uint8_t *data;
	uint64_t data_len;
};

/* Where the next event is: after the header, then after each event. */
struct gt2_wire {
	const struct gt2_trace *t;
	uint64_t off;
};

void gt2_wire_init(struct gt2_wire *w, const struct gt2_trace *t);
/* 1 with @ev the next event, 0 at the end of the file, -1 with @err set. */
int gt2_wire_next(struct gt2_wire *w, struct gt2_wire_event *ev, struct gt_error *err);
/*
 * The frame at *@pos of a Stack event: {PC, func, file, line}; *@pos then is
 * the next one's. The first is at ev->frames_off, there are ev->nframes.
 */
void gt2_wire_frame(const struct gt2_trace *t, uint64_t *pos, uint64_t frame[4]);
/*
 * Prints @ev to @f as Go's raw.Event.String() does, and a newline: the name
 * and NAME=VALUE arguments, each frame on a tab-indented line, the data as
 * a tab-indented data="..." Go-quoted string. Returns -1 if @f has an error.
 */
int gt2_wire_print(FILE *f, const struct gt2_trace *t, const struct gt2_wire_event *ev);

/*
 * The generations of @t in file order, as Go's reader gathers them (with its
 * checks of each one's batches and tables) but without ordering their
 * events: where each one is in the file and when it ran. Go reads a trace
 * that starts at any of them, so the header and a run of whole generations
 * make a trace of their own. Memory is one generation's tables.
 */
struct gt2_span {
	uint64_t gen;		/* its number, as its batch headers have it */
	uint64_t off, end;	/* its bytes, [off, end): batches and EndOfGeneration */
	int64_t first, last;	/* its earliest and latest batch header's time, in ns */
};

struct gt2_spans;

/* -1 with @err set if out of memory. */
int gt2_spans_open(const struct gt2_trace *t, struct gt2_spans **s, struct gt_error *err);
/* 1 with @sp the next generation, 0 after the last one, -1 with @err set (Go's error). */
int gt2_spans_next(struct gt2_spans *s, struct gt2_span *sp, struct gt_error *err);
void gt2_spans_close(struct gt2_spans *s);

/* The parsed level. */

/* A Sync event's type (Go's evSync); the others are wire types. */
#define GT2_EV_PARSED_SYNC	255

struct gt2_gen;
struct gt2_reader;

/*
 * One event as Go's trace.Reader returns it (Go's Event): the wire type, the
 * time in ns, the context (M, P, G; -1 for none) and the arguments after the
 * time stamp, with what Go's ordering adds in the spare ones. @gen is its
 * generation's tables (NULL for the Sync events without); it and the
 * pointers are valid until the next gt2_reader_next().
 */
struct gt2_event {
	uint8_t type;
	int64_t time;
	int64_t m, p, g;
	uint64_t args[4];
	uint64_t off;		/* the event's first byte; 0 for those Go makes up */
	const struct gt2_gen *gen;
	const uint8_t *task_type;	/* UserTaskEnd: its task's type, or NULL */
	uint64_t task_type_len;
};

/* A reader of @t's events (@t must outlive it); -1 with @err set if out of memory. */
int gt2_reader_open(const struct gt2_trace *t, struct gt2_reader **r, struct gt_error *err);
void gt2_reader_close(struct gt2_reader *r);
/*
 * The next event: 1 with @ev set, 0 after the last one, -1 with @err set:
 * GT_ERR_WIRE for batches and events that do not decode, GT_ERR_PARSE for a
 * generation's tables, GT_ERR_TRACE for its structure, GT_ERR_STATE for an
 * event the state machines refuse, GT_ERR_ORDER when no M can advance (then
 * gt2_reader_dump() prints the rest of Go's message). After an error, it
 * returns that error again.
 */
int gt2_reader_next(struct gt2_reader *r, struct gt2_event *ev, struct gt_error *err);
/* What Go's "failed to advance" error prints after its first line: the frontier and states. */
void gt2_reader_dump(FILE *f, const struct gt2_reader *r);
uint64_t gt2_reader_generations(const struct gt2_reader *r);

/* @ev as Go's Event.String() writes it, and a newline; -1 if @f has an error. */
int gt2_event_print(FILE *f, const struct gt2_event *ev);

#endif /* GTRACE_TRACEV2_H */
