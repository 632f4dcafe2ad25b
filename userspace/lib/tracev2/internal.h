/* SPDX-License-Identifier: GPL-2.0 */
/* libgtrace internals for Go 1.22+ traces (tracev2.h), shared between its files. */
#ifndef GTRACE_TRACEV2_INTERNAL_H
#define GTRACE_TRACEV2_INTERNAL_H

#include "common/common.h"
#include "tracev2.h"

struct gt2_trace {
	const uint8_t *data;	/* the trace (gt2_open_mem()) or, for the wire level, its mapping */
	size_t size;
	int fd;			/* gt2_open()'s file, for gt2_read(); -1: a trace in memory */
	int ver;
	uint64_t start;		/* the first event: the header's length */
};

/*
 * open.c: the trace's bytes [@off, @off + @len) (inside it) into @buf, read
 * from the file (pread) or copied from memory: 0, or -1 with @err set. The
 * parsed level reads all it needs this way, into buffers of its own: the
 * memory it takes does not depend on the page cache's folios.
 */
int gt2_read(const struct gt2_trace *t, uint64_t off, void *buf, size_t len,
	     struct gt_error *err);

/* An event type's table entry: Go's tracev2.EventSpec. */
struct gt2_spec {
	const char *name;
	const char *args[GT2_MAX_ARGS + 1];	/* NULL-terminated; timed ones start with dt */
	bool stack;		/* frames follow: args[1] of them, 4 varints each */
	bool data;		/* a length and that many bytes follow */
	bool timed;		/* Go's IsTimedEvent */
	uint8_t stack_ids[2];	/* StackIDs: 1-based, after dt; 0 ends */
	uint8_t string_ids[2];	/* StringIDs, the same way */
	uint8_t start_ev;	/* StartEv: the Begin of an End or Active event */
	uint8_t exp;		/* Experiment (1: AllocFree) */
};

/* wire.c: Go's tracev2.Specs()[type], NULL past its end. */
const struct gt2_spec *gt2_spec(unsigned int type);
/* wire.c: the highest event type of @ver's table (Go's version.Specs()). */
unsigned int gt2_max_type(int ver);
/* wire.c: Go's binary.Uvarint() on @buf[*@off..@size): false (and *@off kept) if invalid. */
bool gt2_uvarint(const uint8_t *buf, size_t size, uint64_t *off, uint64_t *v);
/*
 * wire.c: Go's binary.ReadUvarint() at *@off: NULL, or its error's text ("EOF" when
 * no byte is left, "unexpected EOF" when the file ends inside the varint).
 */
const char *gt2_read_uvarint(const uint8_t *buf, size_t size, uint64_t *off, uint64_t *v);
/* wire_print.c: @s as Go's strconv.Quote() (and so %q) writes it. */
void gt2_quote(FILE *f, const uint8_t *s, uint64_t n);
/* The same without the quotes around. */
void gt2_quote_runes(FILE *f, const uint8_t *s, uint64_t n);

/* Growable arrays: room for one more element of @size at *@v (*@cap of them now). */
bool gt2_grow(void *v, size_t *cap, size_t len, size_t size);

struct gt2_str {
	const uint8_t *s;	/* in gen->str_batches */
	uint64_t len;
};

/* Strings by content, each a copy of its own: what outlives its generation's table. */
struct gt2_intern {
	struct gt2_str *strs;	/* id - 1 */
	size_t nstrs, cap_strs;
	struct gt_map ids;	/* content hash (probed) -> id */
};

/* strings.c: FNV-1a of @n bytes at @p, from @h (GT2_HASH_SEED to start). */
#define GT2_HASH_SEED	0xcbf29ce484222325ULL
uint64_t gt2_hash(uint64_t h, const void *p, size_t n);
/* strings.c: the id (from 1) of the copy of @s (not empty) in @x, 0 if out of memory. */
uint64_t gt2_intern(struct gt2_intern *x, struct gt2_str s);
void gt2_intern_free(struct gt2_intern *x);

struct gt2_frame {
	uint64_t pc, func, file, line;
};

struct gt2_stack {
	uint64_t id;
	size_t first;		/* in gen->pcs */
	uint64_t n;
	/* A cache parsed_print.c fills through the const gen: its frames as printed. */
	char *text;
	size_t text_len;
};

/*
 * An event batch: what Go's readBatch() returns. Its bytes stay in the trace;
 * the generation's tables are read when it is processed, an M's batch when
 * that M's cursor gets to it.
 */
struct gt2_batch {
	uint64_t off;		/* its header */
	uint64_t data_off;	/* its first byte after the header */
	uint64_t len;
	int64_t m;
	uint64_t time;
	size_t next;		/* the M's next batch in gen->batches, or SIZE_MAX */
	uint8_t exp;
	uint8_t kind;		/* its first byte (0 if none): the type of its first event */
	const uint8_t *data;	/* a table's bytes while they are processed */
};

/* One M's batches in file order, a list through gt2_batch.next. */
struct gt2_mbatches {
	int64_t m;
	size_t first, last;
};

struct gt2_sample {
	int64_t time;
	int64_t m, p, g;
	uint64_t stack;
};

/* A generation (Go's generation and evTable): its tables and batches. */
struct gt2_gen {
	uint64_t gen;
	uint64_t min_ts;
	uint64_t off;			/* its first batch */
	struct gt2_batch *batches;
	size_t nbatches, cap_batches;
	struct gt2_mbatches *ms;	/* in the order Go's batchMs has them */
	size_t nms, cap_ms;
	struct gt_map m_index;		/* M -> index in ms */
	struct gt2_sample *samples;	/* sorted by time as Go sorts them */
	size_t nsamples, cap_samples;
	struct gt2_str *strs;
	size_t nstrs, cap_strs;
	uint8_t **str_batches;		/* the bytes of the string batches, which strs point into */
	size_t nstr_batches, cap_str_batches;
	struct gt_map strings;		/* id -> index in strs */
	struct gt2_stack *stks;
	size_t nstks, cap_stks;
	struct gt_map stacks;		/* id -> index in stks */
	uint64_t *pcs;
	size_t npcs, cap_pcs;
	struct gt2_frame *frames;
	size_t nframes, cap_frames;
	struct gt_map frame_index;	/* pc -> index in frames */
	double freq;			/* ns per tick; 0: no Frequency event */
	bool has_snap;
	uint64_t snap_time, snap_mono, snap_sec, snap_nsec;
};

/* tables.c: Go's dataTable.get(): id 0 is always there (empty). */
bool gt2_gen_string(const struct gt2_gen *g, uint64_t id, struct gt2_str *s);
const struct gt2_stack *gt2_gen_stack(const struct gt2_gen *g, uint64_t id, bool *ok);
const struct gt2_frame *gt2_gen_frame(const struct gt2_gen *g, uint64_t pc);
/* tables.c: the batches of strings, stacks, CPU samples and the sync batch. */
int gt2_add_strings(struct gt2_gen *g, const struct gt2_batch *b, struct gt_error *err);
int gt2_add_stacks(struct gt2_gen *g, const struct gt2_batch *b, struct gt_error *err);
int gt2_add_samples(struct gt2_gen *g, const struct gt2_batch *b, struct gt_error *err);
int gt2_set_sync(struct gt2_gen *g, const struct gt2_batch *b, int ver, struct gt_error *err);
int gt2_validate_stacks(const struct gt2_gen *g, struct gt_error *err);
void gt2_fix_samples(struct gt2_gen *g);

/* generation.c: reading generations as Go's readGeneration(WithSpill)(). */
struct gt2_gens {
	const struct gt2_trace *t;
	uint64_t pos;			/* the next batch */
	bool spilled;			/* < 1.26: the next generation's first batch, read */
	uint64_t spill_gen;
	struct gt2_batch spill;
	bool spill_failed;		/* < 1.26: reading the next generation failed */
	struct gt_error spill_err;
};

/*
 * The next generation into @g (emptied first): 1, or 0 at the end of the trace,
 * or -1 with @err set. Before 1.26, the error reading the batch after a
 * generation is kept for later in spill_err (Go's spillErr).
 */
int gt2_gen_read(struct gt2_gens *s, struct gt2_gen *g, struct gt_error *err);
void gt2_gen_free(struct gt2_gen *g);
/* Go's frequency.mul(). */
int64_t gt2_gen_ns(const struct gt2_gen *g, uint64_t ts);

/* An event as its M's batch holds it (Go's baseEvent), its time in ns. */
struct gt2_base {
	uint8_t type;
	int64_t time;
	uint64_t args[4];
	uint64_t off;
};

/* The arguments of a timed event after dt; Go's extra() are the ones after them. */
unsigned int gt2_timed_args(uint8_t type);

/*
 * cursor.c: one M's events of a generation (Go's batchCursor): its batch in
 * @buf (read when the cursor gets to it), the next event in @ev.
 */
struct gt2_cursor {
	int64_t m;
	int64_t last_ts;
	size_t batch;		/* in gen.batches, SIZE_MAX after the last */
	uint64_t pos;		/* in that batch's data */
	uint8_t *buf;
	size_t cap;
	struct gt2_base ev;
};

/* The cursor gets to batch @i of @g (SIZE_MAX: past the last): 0, or -1 with @err set. */
int gt2_cursor_enter(const struct gt2_trace *t, const struct gt2_gen *g, struct gt2_cursor *c,
		     size_t i, struct gt_error *err);
/* Go's batchCursor.nextEvent() into c->ev: 1, 0 after the M's last event, -1 with @err set. */
int gt2_cursor_next(const struct gt2_trace *t, const struct gt2_gen *g, struct gt2_cursor *c,
		    struct gt_error *err);

/* order.c: Go's ordering, the state machines of goroutines, Ps, Ms, GC and tasks. */
struct gt2_order;

struct gt2_order *gt2_order_new(int ver);
void gt2_order_free(struct gt2_order *o);
/* Go's Advance(): 1 (events queued), 0 (not yet), -1 with @err set. */
int gt2_order_advance(struct gt2_order *o, struct gt2_base *ev, const struct gt2_gen *g,
		      int64_t m, uint64_t gen, struct gt_error *err);
/* Go's Next(): the next queued event, false if none. */
bool gt2_order_next(struct gt2_order *o, struct gt2_event *ev);
/* Go's dumpOrdering(). */
void gt2_order_dump(FILE *f, const struct gt2_order *o);

#endif /* GTRACE_TRACEV2_INTERNAL_H */
