/* SPDX-License-Identifier: GPL-2.0 */
/* libgtrace internals for Go's format before 1.22 (gtrace.h), shared between its files. */
#ifndef GTRACE_OLDTRACE_INTERNAL_H
#define GTRACE_OLDTRACE_INTERNAL_H

#include <stdio.h>

#include "common/common.h"

#define GT_HEADER_SIZE	16
#define GT_RAW_ARGS	5	/* time stamp + 3 arguments + stack id */
#define GT_MAX_FRAMES	1000
#define GT_MAX_STRING	1000000

/* One event as encoded: what Go's readTrace() produces. */
struct gt_raw {
	uint64_t off;		/* first byte */
	uint64_t end;		/* first byte after the event */
	uint64_t args_off;	/* first argument byte */
	uint64_t args[GT_RAW_ARGS];	/* the first GT_RAW_ARGS arguments */
	uint64_t str_off;	/* String: the bytes; UserLog: the value */
	uint64_t str_len;
	uint32_t nargs;		/* all arguments, also those not kept */
	uint8_t type;
};

/*
 * Whether an event blocks its goroutine: it stops running and waits (Go's
 * parser: the goroutine's next event on its P has none, the merge moves it
 * from running to waiting, the state machine checks it ran). Of those, the
 * ones Go's removeFutile() ends a run of wakeups at: GoBlock and the blocks
 * on a channel, select, sync or cond.
 */
enum gt_block {
	GT_BLOCK_NONE,
	GT_BLOCK_WAIT,		/* sleep, network, syscall, GC */
	GT_BLOCK_SYNC,		/* GoBlock, Send, Recv, Select, Sync, Cond */
};

/* Per event type: the table of Go's EventDescriptions, plus merge facts. */
struct gt_desc {
	const char *name;
	const char *args[4];	/* NULL-terminated */
	const char *sargs[3];
	uint16_t min_ver;
	bool stack;		/* last argument is a stack id */
	uint8_t block;		/* enum gt_block */
};

extern const struct gt_desc gt_descs[GT_EV_COUNT];

/* Arguments Go's parser requires for @type (Stack: any number). */
int gt_nr_args(unsigned int type, int ver);

/* wire.c */
int gt_parse_header(const uint8_t *buf, size_t size, int *ver, struct gt_error *err);
/* 1 with @raw filled, 0 at the end of the data, -1 with @err set. */
int gt_wire_next(const uint8_t *buf, size_t size, uint64_t off, int ver,
		 struct gt_raw *raw, struct gt_error *err);
/* A varint at *off; false when the data ends or it has over 10 bytes. */
bool gt_uvarint(const uint8_t *buf, size_t size, uint64_t *off, uint64_t *v);

/* A P's events: the batches (Batch headers) of that P, in file order. */
struct gt_batch {
	uint64_t off;		/* first event after the Batch header */
	int64_t ts;		/* the header's time stamp */
};

struct gt_proc {
	int64_t id;
	struct gt_batch *batches;
	size_t nr_batches, cap;
};

struct gt_sample {
	int64_t ts;
	uint64_t off;
};

/* How the cursor reads an event of a type, looked up once per event. */
#define GT_READ_ARGS	0x03	/* the number of arguments between time stamp and stack */
#define GT_READ_STACK	0x04	/* a stack id ends the arguments */
#define GT_READ_LOG	0x08	/* a value string follows (UserLog) */
#define GT_READ_SKIP	0x10	/* not in a P's stream of timed events: Batch, String, ... */

struct gt_trace {
	const uint8_t *data;
	size_t size;
	bool mapped;
	int ver;
	uint8_t nr_args[GT_EV_COUNT];	/* gt_nr_args() of each type in this version */
	uint8_t read_as[GT_EV_COUNT];	/* GT_READ_* of each type in this version */
	int64_t ticks_per_sec;
	int64_t min_ts;		/* earliest time stamp after the merge */
	double ns_per_tick;
	uint64_t nr_events;
	uint64_t nr_batches;
	uint64_t nr_futile;	/* FutileWakeup events */
	struct gt_proc *procs;
	size_t nr_procs;
	struct gt_map proc_ids;		/* P id -> index + 1 in procs */
	struct gt_sample *samples;	/* CPU samples, sorted as Go sorts them */
	size_t nr_samples;
	struct gt_map strings;		/* id -> offset << 20 | length */
	struct gt_map stacks;		/* id -> offset of the Stack event */
	struct gt_map timer_gs;		/* goroutines that are Go timer goroutines */
	bool halves;			/* the index read two halves at once */
};

/*
 * pipeline.c: gt_check() with the merge putting each event where @slot says
 * (the sink's @ctx), so that a sink that keeps events (gt_check_apart())
 * need not copy them; @fn gets that pointer, or another for an event the
 * checks made up.
 */
typedef struct gt_event *(*gt_slot_fn)(void *ctx);
int gt_check_slots(struct gt_trace *t, gt_sink_fn fn, gt_slot_fn slot, void *ctx,
		   struct gt_error *err);

/*
 * index.c: the first pass over the file. With @half 0, a large trace is
 * read in two halves on two threads, the second from a Batch past the
 * middle; otherwise the second half starts at offset @half (a test of the
 * two halves' join), or there is none if @half is past the header's end.
 */
int gt_index(struct gt_trace *t, uint64_t half, struct gt_error *err);
/* gt_open_mem() with gt_index()'s @half. */
int gt_open_mem_at(const void *data, size_t size, uint64_t half, struct gt_trace **t,
		   struct gt_error *err);
void gt_index_free(struct gt_trace *t);

/* cursor.c: one P's events in file order, as Go's parseEvents() sees them. */
struct gt_cursor {
	const struct gt_trace *t;
	const struct gt_proc *proc;	/* NULL: the CPU samples */
	size_t next;			/* next batch, or next sample */
	uint64_t off;			/* next event; 0 between batches */
	int64_t last_ts;
	uint64_t last_g;
};

void gt_cursor_init(struct gt_cursor *c, const struct gt_trace *t, const struct gt_proc *proc);
bool gt_cursor_next(struct gt_cursor *c, struct gt_event *ev);
/* Decodes the event at @off on its own (no time stamp): syscall exits. */
void gt_event_at(const struct gt_trace *t, uint64_t off, struct gt_event *ev);

/* order.c: the merge of all Ps into one stream (Go's order1007). */
struct gt_source;

/* A goroutine as the merge sees it: the first member of the merge's records. */
struct gt_order_g {
	uint64_t seq;
	uint8_t status;
	bool ended;			/* made again after gt_merge_end(): seq is lost */
	uint32_t waiters;		/* first source waiting + 1, or 0 */
};

struct gt_merge {
	const struct gt_trace *t;
	struct gt_source *src;
	size_t nr_src;
	uint32_t *front;		/* the frontier: ready sources, in Go's order reversed */
	size_t nr_front;
	uint32_t *ready;		/* sources about to join the frontier */
	size_t nr_ready;
	size_t nr_waiting;		/* sources whose head waits for a goroutine */
	struct gt_table gs;		/* goroutine -> record, a struct gt_order_g first */
	struct gt_idset ended;		/* goroutines whose record gt_merge_end() dropped */
	struct gt_order_g *g;		/* the record of the last event's goroutine, */
	uint64_t g_id;			/* if at hand (NULL: looked up when asked) */
	struct gt_order_g *other;	/* the last other record gt_merge_g() found */
	uint64_t other_id;
};

/* Records of @g_size bytes per goroutine, for the caller's state after the merge's. */
int gt_merge_init(struct gt_merge *m, const struct gt_trace *t, size_t g_size,
		  struct gt_error *err);
/* 1 with @ev the next event, 0 at the end, -1 with @err set. */
int gt_merge_next(struct gt_merge *m, struct gt_event *ev, struct gt_error *err);
/* gt_merge_g() of a goroutine other than the last two found. */
void *gt_merge_g_find(struct gt_merge *m, uint64_t id);

/*
 * The record of goroutine @id, created zeroed if new, NULL if out of memory;
 * running with ended set if gt_merge_end() had dropped it. The event's
 * goroutine is the merge's; a GoCreate's or GoUnblock's other goroutine is
 * asked for several times (the checks, then the state machines): both are
 * found here, inline, without a call.
 */
static inline void *gt_merge_g(struct gt_merge *m, uint64_t id)
{
	if (m->g && m->g_id == id)
		return m->g;
	if (m->other && m->other_id == id)
		return m->other;
	return gt_merge_g_find(m, id);
}
/* Goroutine @id (record @g) ended: its record goes if no event can change it. */
void gt_merge_end(struct gt_merge *m, uint64_t id, struct gt_order_g *g);
void gt_merge_free(struct gt_merge *m);

/* futile.c: offsets of the events Go's removeFutile() drops. */
int gt_futile_scan(const struct gt_trace *t, struct gt_map *drop, struct gt_error *err);

/* state.c: goroutine, P, GC, task and region rules (Go's postProcessTrace). */
struct gt_region;

/* A goroutine's state, kept by the caller (in the merge's records). */
struct gt_state_g {
	uint8_t state;
	uint8_t ev_type;		/* type of Go's g.ev, 0 = none */
	bool exists;			/* a key in Go's gs map */
	bool has_create;		/* not started since its GoCreate */
	bool mark_assist;
	uint64_t create_stk;
	struct gt_region *regions;
	uint32_t nr_regions, cap_regions;
};

struct gt_state {
	const struct gt_trace *t;
	struct gt_table ps;		/* P -> struct state_p */
	struct gt_map tasks;		/* live user task ids */
	bool gc, stw;			/* a GC, a global STW is in progress */
};

/* @g0 is the record of goroutine 0, "no goroutine", always running. */
void gt_state_init(struct gt_state *s, const struct gt_trace *t, struct gt_state_g *g0);
/*
 * Checks @ev and applies it; may move it to a pseudo P and give it a stack.
 * @g is the record of its goroutine; @arg that of the goroutine a GoCreate
 * creates or a GoUnblock wakes (else unused).
 */
int gt_state_event(struct gt_state *s, struct gt_event *ev, struct gt_state_g *g,
		   struct gt_state_g *arg, struct gt_error *err);
void gt_state_free(struct gt_state *s);
void gt_state_g_free(struct gt_state_g *g);
/*
 * Dead with nothing open: the state machines reject whatever later event
 * names it, and remember of it only that it existed.
 */
bool gt_state_g_gone(const struct gt_state_g *g);

#endif /* GTRACE_OLDTRACE_INTERNAL_H */
