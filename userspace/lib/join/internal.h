/* SPDX-License-Identifier: GPL-2.0 */
/* libgtrace's join (join.h): what its files share. */
#ifndef GTRACE_JOIN_INTERNAL_H
#define GTRACE_JOIN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "common/map.h"
#include "join.h"
#include "tracev2.h"

/*
 * The strings the join adds, interned: index i is the (i + 1)-th string
 * added. splice.c gives each generation that uses them a Strings batch of
 * its own, with ids above the generation's highest.
 */
struct jn_strings {
	char **s;
	size_t len, cap;
	struct gt_map index;	/* a string's hash (probed on collisions) -> its index + 1 */
};

/* The index of @s (copied in), -1 if out of memory. */
int64_t jn_string(struct jn_strings *t, const char *s);
void jn_strings_free(struct jn_strings *t);

/*
 * An event to insert into APP: a user region's begin or end, or a log, on
 * the goroutine M runs. It goes right after the event of M's batch at
 * offset @after (after the inserts before it in the array with the same
 * @after), at @ts in APP's ticks: not before that event's time, not after
 * the next event of M's. Task 0, stack 0.
 */
struct jn_insert {
	uint64_t after;
	uint64_t ts;
	uint8_t type;		/* GT2_EV_USER_REGION_BEGIN, _END or GT2_EV_USER_LOG */
	uint32_t str;		/* region: its type; log: its key (category) */
	uint32_t str2;		/* log: its message */
};

/*
 * splice.c: writes @app to @fd with @ins (sorted by @after, stable)
 * inserted: every byte of APP kept except the batches that get events,
 * which are re-encoded (the next event's time delta, the length) and cut
 * where they would pass Go's 64 KiB, and a Strings batch per generation
 * that needs @strs. 0, or -1 with @err set.
 */
int jn_splice(const struct gt2_trace *app, int fd, const struct jn_insert *ins, size_t n,
	      const struct jn_strings *strs, struct gt_error *err);

/*
 * splice.c, the same a generation at a time: jn_splice_gen() writes what is
 * before generation @sp and it, with @ins (all inside it, sorted) and the
 * strings they name, @strs. jn_splice_close() writes the rest if @finish
 * (0, or -1) and frees @s. NULL (with @err set) or -1 with @err set on
 * errors.
 */
struct jn_splice;
struct jn_splice *jn_splice_open(const struct gt2_trace *t, int fd, struct gt_error *err);
int jn_splice_gen(struct jn_splice *s, const struct gt2_span *sp, const struct jn_insert *ins,
		  size_t n, const struct jn_strings *strs);
int jn_splice_close(struct jn_splice *s, bool finish);
/* Where @s's errors go from now on. */
void jn_splice_set_err(struct jn_splice *s, struct gt_error *err);

/*
 * writer.c: jn_splice_gen() in a thread of its own, a generation behind the
 * one planned. jn_writer_put() waits for the generation before to be
 * written, then hands over @sp, @ins and @strs, which the writer frees (and
 * *@strs is left empty): 0, or -1 with @err set if that one failed.
 * jn_writer_stop() waits for the last one and ends the thread: 0 or -1.
 */
struct jn_writer;
struct jn_writer *jn_writer_start(struct jn_splice *out, struct gt_error *err);
int jn_writer_put(struct jn_writer *w, const struct gt2_span *sp, struct jn_insert *ins, size_t n,
		  struct jn_strings *strs);
int jn_writer_stop(struct jn_writer *w);

/* MACHINE's goroutine ids: a thread id, + this for each later thread of that id. */
#define JN_TID_STRIDE	4194304

/*
 * machine.c: a span in which MACHINE had one of APP's threads off its CPU,
 * times in CLOCK_MONOTONIC ns. Programs and reasons are jn_strings indices.
 */
struct jn_span {
	int64_t out, in;
	int64_t idle_ns;	/* its CPU ran nothing, during the span */
	int64_t other_ns;	/* the longest run of another thread there, during it */
	int64_t other_tid;	/* that thread, -1 if none ran */
	int64_t waker_tid;	/* who woke it: -1 for none seen, -2 for interrupt context */
	uint32_t other_prog, waker_prog, waker_reason, reason;
	int32_t cpu;		/* where it was switched out */
	int32_t waker_cpu;
	bool runnable;		/* switched out runnable (preempted, yield), not blocked */
};

struct gt2_base;

/* The trace's next generation, as gt2_spans_next() reads them: 1, 0 after the last, -1. */
struct gt2_gens;
int jn_gen_next(struct gt2_gens *gens, struct gt2_gen *g, struct gt_error *err);

/* One of APP's threads, and MACHINE's spans of it, by time. */
struct jn_thread {
	int64_t tid;
	bool seen;		/* MACHINE has it */
	struct jn_span *spans;
	size_t nspans, cap;
	size_t next;		/* app.c: the first span not yet joined */
	bool busy;		/* app.c: M ran a goroutine at its last event so far */
	int64_t open;		/* machine.c: the span it is in now, -1 if on a CPU */
};

/* APP's threads, by thread id. */
struct jn_threads {
	struct jn_thread *v;
	size_t len, cap;
	struct gt_map by_tid;	/* tid -> index in v */
};

struct jn_thread *jn_thread_get(const struct jn_threads *th, int64_t tid);

/*
 * A generation's map from its own time (ns, as the cursor reads it) to
 * CLOCK_MONOTONIC: add @off. Go's own clock on Linux is CLOCK_MONOTONIC/64,
 * so an APP generation whose snapshot says so within 1 ms, or that has none,
 * gets 0.
 */
int64_t jn_mono_off(const struct gt2_gen *g, bool app);

/*
 * machine.c: MACHINE read a generation at a time, keeping the spans of
 * @th's threads (their ids already in) with the strings of @strs:
 * jn_machine_until() reads generations until one has an event at @t or
 * later, or none is left (0, or -1 with @err set); jn_machine_range() says
 * MACHINE's first and last event read (mono ns) and whether all is read;
 * jn_machine_drop() forgets @t's first @n spans, but for its open one, which
 * then comes first.
 */
struct jn_machine;
struct jn_machine *jn_machine_open(const struct gt2_trace *machine, struct jn_threads *th,
				   struct jn_strings *strs, struct gt_error *err);
int jn_machine_until(struct jn_machine *s, int64_t t);
void jn_machine_range(const struct jn_machine *s, int64_t *first, int64_t *last, bool *done);
void jn_machine_drop(struct jn_machine *s, struct jn_thread *t, size_t n);
void jn_machine_close(struct jn_machine *s);
/* Whether the last jn_machine_until() failed. */
bool jn_machine_failed(const struct jn_machine *s);

/*
 * app.c: M @self's goroutine (-1 for none) and whether it is in a system
 * call, after event @ev of M's own batches.
 */
void jn_m_step(int64_t *g, bool *syscall, int64_t self, const struct gt2_base *ev);

/*
 * app.c: writes APP to @fd a generation at a time with the regions that put
 * MACHINE's spans of @th on its goroutines (MACHINE read as far as needed,
 * its names in @names), and says APP's first and last event (mono ns).
 * @strs holds a generation's strings at a time. 0, or -1 with @err set.
 */
int jn_app_join(const struct gt2_trace *app, struct jn_threads *th, struct jn_machine *mc,
		const struct jn_strings *names, struct jn_strings *strs, int fd,
		struct gt_join_stats *st, int64_t *first, int64_t *last, struct gt_error *err);

/* join.c: the two traces open, APP's threads, MACHINE ready to be read. */
struct jn_pair {
	const char *app_path, *machine_path;
	struct gt2_trace *app, *machine;
	struct jn_threads th;
	struct jn_strings names;	/* MACHINE's programs and reasons */
	struct jn_strings strs;		/* what OUT gets */
	struct jn_machine *mc;
};

/*
 * join.c: opens both and finds APP's threads; refuses an APP before Go
 * 1.22 and a MACHINE before format 1.25. 0, or -1 with @err set;
 * jn_pair_free() @p either way.
 */
int jn_prepare(struct jn_pair *p, const char *app_path, const char *machine_path,
	       struct gt_join_stats *st, struct gt_error *err);
/*
 * join.c: once joined, fills @st's threads and times from APP's first and
 * last event and the part of MACHINE read, and refuses traces that do not
 * overlap and a MACHINE without APP's threads: 0, or -1 with @err set.
 */
int jn_finish(struct jn_pair *p, int64_t app_first, int64_t app_last, struct gt_join_stats *st,
	      struct gt_error *err);
/* join.c: @err's message after a failure, named for the trace it is about; -1. */
int jn_failed(const struct jn_pair *p, struct gt_error *err);
void jn_pair_free(struct jn_pair *p);

/* join.c: the inserts to sort, and which go first among those at one event and time. */
struct jn_sort {
	const struct jn_insert *ins;
	const bool *early;	/* may be NULL */
};

/* join.c: sorts *@ins for jn_splice(): by event, time, early first, then as made. */
int jn_sort_inserts(struct jn_insert **ins, size_t n, const bool *early);

/*
 * join.c: OUT is written to a file beside it, *@tmp (its fd, or -1 with
 * @err set), and jn_out_close() renames it over OUT if @keep, or removes
 * it; it frees *@tmp. 0, or -1 with @err set.
 */
int jn_out_open(const char *out, char **tmp, struct gt_error *err);
int jn_out_close(int fd, char *tmp, const char *out, bool keep, struct gt_error *err);

#endif /* GTRACE_JOIN_INTERNAL_H */
