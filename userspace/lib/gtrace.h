/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libgtrace: a reader for Go's pre-1.22 execution trace format (1.7-1.11,
 * 1.19, 1.21), with the rules and the merge order of Go's own parser
 * (internal/trace parser.go and order.go of Go 1.19 and 1.21).
 *
 * gt_open() maps the file and indexes it: where each P's batches are, the
 * string and stack tables. Memory grows with batches, goroutines, strings
 * and stacks, never with the number of events. gt_check() then merges the
 * batches and checks every event; gt_replay() delivers the events in
 * exactly the order Go's parser returns them.
 *
 * Go 1.22 and later traces are another format: see tracev2.h.
 */
#ifndef GTRACE_H
#define GTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Event types, as in Go's runtime/trace.go. */
enum {
	GT_EV_NONE, GT_EV_BATCH, GT_EV_FREQUENCY, GT_EV_STACK, GT_EV_GOMAXPROCS,
	GT_EV_PROC_START, GT_EV_PROC_STOP, GT_EV_GC_START, GT_EV_GC_DONE,
	GT_EV_STW_START, GT_EV_STW_DONE, GT_EV_GC_SWEEP_START,
	GT_EV_GC_SWEEP_DONE, GT_EV_GO_CREATE, GT_EV_GO_START, GT_EV_GO_END,
	GT_EV_GO_STOP, GT_EV_GO_SCHED, GT_EV_GO_PREEMPT, GT_EV_GO_SLEEP,
	GT_EV_GO_BLOCK, GT_EV_GO_UNBLOCK, GT_EV_GO_BLOCK_SEND,
	GT_EV_GO_BLOCK_RECV, GT_EV_GO_BLOCK_SELECT, GT_EV_GO_BLOCK_SYNC,
	GT_EV_GO_BLOCK_COND, GT_EV_GO_BLOCK_NET, GT_EV_GO_SYSCALL,
	GT_EV_GO_SYSEXIT, GT_EV_GO_SYSBLOCK, GT_EV_GO_WAITING,
	GT_EV_GO_IN_SYSCALL, GT_EV_HEAP_ALLOC, GT_EV_HEAP_GOAL,
	GT_EV_TIMER_GOROUTINE, GT_EV_FUTILE_WAKEUP, GT_EV_STRING,
	GT_EV_GO_START_LOCAL, GT_EV_GO_UNBLOCK_LOCAL, GT_EV_GO_SYSEXIT_LOCAL,
	GT_EV_GO_START_LABEL, GT_EV_GO_BLOCK_GC, GT_EV_GC_MARK_ASSIST_START,
	GT_EV_GC_MARK_ASSIST_DONE, GT_EV_USER_TASK_CREATE, GT_EV_USER_TASK_END,
	GT_EV_USER_REGION, GT_EV_USER_LOG, GT_EV_CPU_SAMPLE,
	GT_EV_COUNT
};

/* Pseudo Ps Go's parser moves some events to. */
#define GT_P_FAKE	1000000
#define GT_P_TIMER	1000001
#define GT_P_NETPOLL	1000002
#define GT_P_SYSCALL	1000003
#define GT_P_GC		1000004
#define GT_P_PROFILE	1000005

/* Which rule an error broke, in the order Go's parser checks them. */
enum gt_phase {
	GT_OK,
	GT_ERR_WIRE,	/* encoding: header, event bytes, strings */
	GT_ERR_PARSE,	/* event arguments, stacks, frequency */
	GT_ERR_TRACE,	/* empty trace, no frequency */
	GT_ERR_ORDER,	/* no consistent merge order */
	GT_ERR_TIME,	/* time stamps out of order after the merge */
	GT_ERR_SYSCALL,	/* syscall exit time stamps */
	GT_ERR_STATE,	/* goroutine, P, GC and region state machines */
};

struct gt_error {
	enum gt_phase phase;
	uint64_t off;		/* byte offset of the offending event */
	char msg[320];
};

/* One event as Go's parser returns it (Local variants already renamed). */
struct gt_event {
	uint64_t off;		/* byte offset in the file */
	int64_t ts;		/* ticks; gt_ns() converts */
	int64_t p;
	uint64_t g;
	uint64_t stk;		/* stack id, 0 = none */
	uint64_t args[3];
	uint64_t str_off;	/* UserLog: the value string in the file */
	uint64_t str_len;
	int64_t wire_ts;	/* ts and p as the batch has them, before Go moves the */
	int64_t wire_p;		/* event (gt_check's events; 0 for gt_replay's moved exits) */
	uint8_t type;
};

struct gt_trace;

/* Returns 0 with *t set, or -1 with @err set (phase 0 for I/O errors). */
int gt_open(const char *path, struct gt_trace **t, struct gt_error *err);
int gt_open_mem(const void *data, size_t size, struct gt_trace **t, struct gt_error *err);
void gt_close(struct gt_trace *t);

/* Called for each event; a positive return stops the walk and is returned. */
typedef int (*gt_sink_fn)(void *ctx, const struct gt_trace *t, const struct gt_event *ev);

/*
 * Checks the whole trace; @fn (may be NULL) sees each event in merge order,
 * syscall exits carrying their real time stamp. Returns 0 when the trace is
 * valid, -1 with @err set, or @fn's non-zero return.
 */
int gt_check(struct gt_trace *t, gt_sink_fn fn, void *ctx, struct gt_error *err);
/*
 * As gt_check(), @fn called on a thread of its own (the checks go on beside
 * it, a few thousand events ahead): the same events in the same order, the
 * same result. For a sink with much work of its own.
 */
int gt_check_apart(struct gt_trace *t, gt_sink_fn fn, void *ctx, struct gt_error *err);
/* As gt_check(), but @fn sees events in Go's final order (two passes). */
int gt_replay(struct gt_trace *t, gt_sink_fn fn, void *ctx, struct gt_error *err);

/* The version (e.g. 1019) of the pre-1.22 trace header @data starts with, else 0. */
int gt_header_version(const void *data, size_t size);

int gt_version(const struct gt_trace *t);		/* e.g. 1019 */
uint64_t gt_size(const struct gt_trace *t);
uint64_t gt_nr_events(const struct gt_trace *t);	/* excluding dictionary events */
uint64_t gt_nr_batches(const struct gt_trace *t);
int64_t gt_ticks_per_sec(const struct gt_trace *t);
/* Nanoseconds since the first event, computed as Go does (float64). */
int64_t gt_ns(const struct gt_trace *t, int64_t ts);
/* Duration of @ticks in nanoseconds. */
double gt_ticks_ns(const struct gt_trace *t, int64_t ticks);

const char *gt_event_name(const struct gt_trace *t, unsigned int type);
/* Names of the event's arguments and string arguments, NULL-terminated. */
const char *const *gt_event_args(unsigned int type);
const char *const *gt_event_sargs(unsigned int type);

/* A string from the dictionary; "" (len 0) when the id is not defined. */
const char *gt_string(const struct gt_trace *t, uint64_t id, size_t *len);
/* The string arguments Go's parser attaches to @ev (see gt_event_sargs). */
unsigned int gt_event_strings(const struct gt_trace *t, const struct gt_event *ev,
			      const char **s, size_t *len);

struct gt_frame {
	uint64_t pc;
	uint64_t fn;		/* string ids */
	uint64_t file;
	uint64_t line;
};

/* Frames of stack @id: returns its depth (0 if undefined), fills up to @max. */
unsigned int gt_stack(const struct gt_trace *t, uint64_t id, struct gt_frame *frames,
		      unsigned int max);
/*
 * Ids of every stack the trace defines, used or not, in no order: returns
 * their number, fills up to @max (gt_stack_ids(t, NULL, 0) counts them).
 */
size_t gt_stack_ids(const struct gt_trace *t, uint64_t *ids, size_t max);
/* Ids of the goroutines TimerGoroutine events name, as gt_stack_ids() returns them. */
size_t gt_timer_gs(const struct gt_trace *t, uint64_t *ids, size_t max);

/* @v as an unsigned varint (LEB128, as Go writes it) at @buf, which has room for 10 bytes. */
size_t gt_put_uvarint(uint8_t *buf, uint64_t v);

/* Room gt_encode_event() needs, beyond a UserLog's value; gt_encode_string()'s too. */
#define GT_ENCODE_MAX	80

/*
 * Encodes @ev as Go writes it into @buf: its type, @delta (the time since the
 * batch's previous event; none for Batch, Frequency, TimerGoroutine), its
 * arguments and stack, and a UserLog's value (at @ev->str_off in the trace).
 * Returns the bytes written.
 */
size_t gt_encode_event(const struct gt_trace *t, const struct gt_event *ev, uint64_t delta,
		       uint8_t *buf);
/* A String event's head (type, @id, @len), to be followed by the @len bytes. */
size_t gt_encode_string(uint64_t id, size_t len, uint8_t *buf);
/* Stack @id's event as the trace holds it (*@len bytes), or NULL if undefined. */
const uint8_t *gt_stack_wire(const struct gt_trace *t, uint64_t id, size_t *len);

#endif /* GTRACE_H */
