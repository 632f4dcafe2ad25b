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
 * machine.c: reads MACHINE's spans of @th's threads (their ids already in),
 * with the string tables of @strs. 0, or -1 with @err set.
 */
int jn_machine_read(const struct gt2_trace *machine, struct jn_threads *th,
		    struct jn_strings *strs, int64_t *first, int64_t *last,
		    struct gt_error *err);

/*
 * app.c: M @self's goroutine (-1 for none) and whether it is in a system
 * call, after event @ev of M's own batches.
 */
void jn_m_step(int64_t *g, bool *syscall, int64_t self, const struct gt2_base *ev);

/*
 * app.c: the inserts that put MACHINE's spans of @th on APP's goroutines,
 * sorted for jn_splice(), and APP's first and last event (mono ns; *@first
 * is its first batch's time on the way in). 0, or -1 with @err set.
 */
int jn_app_plan(const struct gt2_trace *app, struct jn_threads *th, struct jn_strings *strs,
		struct gt_join_stats *st, int64_t *first, int64_t *last,
		struct jn_insert **ins, size_t *nins, struct gt_error *err);

/* join.c: the two traces open, APP's threads and MACHINE's spans of them. */
struct jn_pair {
	struct gt2_trace *app, *machine;
	struct jn_threads th;
	struct jn_strings strs;
	int64_t app_first, app_last;	/* APP's first and last batch, mono ns */
};

/*
 * join.c: opens and reads both, and refuses what cannot be joined (see
 * gt_join()). 0, or -1 with @err set; jn_pair_free() @p either way.
 */
int jn_prepare(struct jn_pair *p, const char *app_path, const char *machine_path,
	       struct gt_join_stats *st, struct gt_error *err);
void jn_pair_free(struct jn_pair *p);

/* join.c: the inserts to sort, and which go first among those at one event and time. */
struct jn_sort {
	const struct jn_insert *ins;
	const bool *early;	/* may be NULL */
};

/* join.c: sorts *@ins for jn_splice(): by event, time, early first, then as made. */
int jn_sort_inserts(struct jn_insert **ins, size_t n, const bool *early);

/* join.c: @t with @ins written beside @out, renamed over it once whole. */
int jn_write(const struct gt2_trace *t, const char *out, const struct jn_insert *ins,
	     size_t n, const struct jn_strings *strs, struct gt_error *err);

#endif /* GTRACE_JOIN_INTERNAL_H */
