// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace flight recorder (formats 1.22 and later): snapshots of the newest
 * whole generations, taken while recording goes on.
 *
 * A flight recorder's rings overwrite their oldest chunks (buffer.c) and
 * nobody reads them: recording costs what streaming costs, and nothing is
 * copied until GOTRACE_SNAPSHOT asks for it (Go's FlightRecorder.WriteTo is
 * the model):
 *
 * 1. It starts a generation (generations.c) and waits until the ones before
 *    it are closed: their batches are committed on every CPU, and no chunk
 *    of them is written any more.
 * 2. Of those, the ones no ring has dropped a chunk of are whole. It reads
 *    the chunks' batch headers for when each started, and keeps the newest
 *    that cover the duration asked for.
 * 3. It copies their chunks into a ring per CPU of the snapshot's own,
 *    checking each copy against the writer, which may drop that chunk
 *    meanwhile (as a seqcount's reader does), and then leaves out every
 *    generation some ring dropped part of meanwhile.
 *    With CPU samples, it copies those of the generations it keeps
 *    (samples.c), which their reader writes as the generations' batches.
 * 4. It publishes the copy: read() serves it as a stopped trace is served
 *    (read.c): the header, each generation's batches and tables, then end
 *    of file. Then the copy is freed and another snapshot may be taken.
 *
 * A snapshot holds at most a copy of the rings, for as long as its reader
 * takes; a trace starting at any generation is valid because each one
 * starts with every P's and every goroutine's status.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/lockdep.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/gotrace.h>

#include "buffer.h"
#include "clock.h"
#include "compat.h"
#include "cpu.h"
#include "dev.h"
#include "flight.h"
#include "gfp.h"
#include "samples.h"
#include "session.h"

/* The generations a snapshot chooses from, [lo, hi], and their starts. */
struct gotrace_flight_win {
	u32 lo;
	u32 hi;
	u64 *start;	/* trace ticks, start[g - lo]; U64_MAX: no chunk seen */
};

static struct gotrace_ring *gotrace_flight_live(struct gotrace_session *s,
						int cpu)
{
	return &per_cpu_ptr(s->cpus, cpu)->ring;
}

/* The committed chunks of a live ring: [*@tail, return value). */
static u32 gotrace_flight_span(struct gotrace_ring *r, u32 *tail)
{
	/* The tail first: it never passes the head read after it. */
	*tail = READ_ONCE(r->tail);
	/* Pairs with the release in gotrace_buf_commit(): lengths first. */
	return smp_load_acquire(&r->head);
}

/*
 * Step 1: start a generation and wait until the ones before it are closed.
 * Return: the last closed one; 0 if recording was cut before one closed.
 */
static u32 gotrace_flight_close(struct gotrace_session *s)
{
	u32 gen = READ_ONCE(s->gen.cur), closed;

	for (;;) {
		mod_delayed_work(system_unbound_wq, &s->gen.work, 0);
		flush_delayed_work(&s->gen.work);
		/* Pairs with the release in gotrace_gens_next(): chunks first. */
		closed = smp_load_acquire(&s->gen.closed);
		if (closed >= gen || READ_ONCE(s->mode) != GOTRACE_MODE_ON)
			return closed;
	}
}

/* The oldest generation of which no ring has dropped a chunk so far. */
static u32 gotrace_flight_whole(struct gotrace_session *s)
{
	u32 lo = 1;
	int cpu;

	/*
	 * Pairs with the release in gotrace_buf_drop(): a chunk this CPU saw
	 * dropped (the tail moved past it) has its generation in dropped_gen.
	 */
	smp_rmb();
	for_each_possible_cpu(cpu)
		lo = max(lo, READ_ONCE(gotrace_flight_live(s, cpu)->dropped_gen) + 1);
	return lo;
}

/* Step 2: when each generation of @w started, from its batches' headers. */
static void gotrace_flight_starts(struct gotrace_session *s,
				  struct gotrace_flight_win *w)
{
	u32 idx, tail, head, gen;
	int cpu;
	u64 ts;

	for_each_possible_cpu(cpu) {
		struct gotrace_ring *r = gotrace_flight_live(s, cpu);

		head = gotrace_flight_span(r, &tail);
		for (idx = tail; idx != head; idx++) {
			if (!gotrace_buf_snap_head(r, idx, &gen, &ts) || gen < w->lo)
				continue;
			if (gen > w->hi)
				break;
			w->start[gen - w->lo] = min(w->start[gen - w->lo], ts);
		}
	}
}

/*
 * Step 2: the newest generation that started @duration_ns or more before
 * @now, or the oldest of @w if none did; @w's oldest for 0.
 */
static u32 gotrace_flight_first(struct gotrace_session *s,
				const struct gotrace_flight_win *w, u64 now,
				u64 duration_ns)
{
	u64 ticks = mul_u64_u64_div_u64(duration_ns, s->ts_freq, NSEC_PER_SEC);
	u32 gen;

	if (!duration_ns)
		return w->lo;
	for (gen = w->hi; gen > w->lo; gen--) {
		u64 start = w->start[gen - w->lo];

		if (start != U64_MAX && start + ticks <= now)
			break;
	}
	return gen;
}

/* Chunks of @r in generations @lo to @hi, some of which may be dropped. */
static u32 gotrace_flight_count(struct gotrace_ring *r, u32 lo, u32 hi)
{
	u32 idx, tail, head, gen, n = 0;
	u64 ts;

	head = gotrace_flight_span(r, &tail);
	for (idx = tail; idx != head; idx++) {
		if (!gotrace_buf_snap_head(r, idx, &gen, &ts) || gen < lo)
			continue;
		if (gen > hi)
			break;
		n++;
	}
	return n;
}

/*
 * Step 3 for one CPU: copy its chunks of the snapshot's generations. No
 * chunk of them is committed any more, so there are at most as many as
 * counted before.
 */
static int gotrace_flight_copy_cpu(struct gotrace_session *s,
				   struct gotrace_flight_snap *snap, int cpu)
{
	struct gotrace_ring *dst = &snap->rings[cpu];
	struct gotrace_ring *r = gotrace_flight_live(s, cpu);
	u32 n, idx, tail, head, gen;
	u64 ts;
	int ret;

	n = gotrace_flight_count(r, snap->first_gen, snap->last_gen);
	if (!n)
		return 0;
	ret = gotrace_buf_alloc(dst, cpu, (u64)n * GOTRACE_CHUNK_SIZE, s->wq);
	if (ret)
		return ret;
	head = gotrace_flight_span(r, &tail);
	for (idx = tail; idx != head && dst->head < n; idx++) {
		if (!gotrace_buf_snap_head(r, idx, &gen, &ts) ||
		    gen < snap->first_gen)
			continue;
		if (gen > snap->last_gen)
			break;
		gotrace_buf_snap_chunk(dst, r, idx);
	}
	return 0;
}

/* Step 3: the copy, with only generations still whole after it. */
static int gotrace_flight_copy(struct gotrace_session *s,
			       struct gotrace_flight_snap *snap, u64 *bytes)
{
	int cpu, ret;

	for_each_possible_cpu(cpu) {
		ret = gotrace_flight_copy_cpu(s, snap, cpu);
		if (ret)
			return ret;
	}
	snap->first_gen = max(snap->first_gen, gotrace_flight_whole(s));
	if (snap->first_gen > snap->last_gen)
		return -ENODATA;
	*bytes = 0;
	for_each_possible_cpu(cpu) {
		gotrace_buf_snap_trim(&snap->rings[cpu], snap->first_gen);
		*bytes += snap->rings[cpu].bytes;
	}
	return 0;
}

/**
 * gotrace_flight_free - free a snapshot; NULL does nothing
 * @snap: the snapshot, which nobody reads any more
 */
void gotrace_flight_free(struct gotrace_flight_snap *snap)
{
	int cpu;

	if (!snap)
		return;
	if (snap->rings)
		for_each_possible_cpu(cpu)
			gotrace_buf_free(&snap->rings[cpu]);
	kfree(snap->rings);
	gotrace_srings_free(snap->samples);
	kfree(snap);
}

/* Steps 2 and 3 for the generations @w holds; fills @args' outputs. */
static struct gotrace_flight_snap *
gotrace_flight_take(struct gotrace_session *s, struct gotrace_flight_win *w,
		    u64 now, struct gotrace_snapshot *args)
{
	struct gotrace_flight_snap *snap;
	u64 start;
	int ret;

	snap = kzalloc(sizeof(*snap), GOTRACE_GFP);
	if (!snap)
		return ERR_PTR(-ENOMEM);
	snap->rings = kcalloc(nr_cpu_ids, sizeof(*snap->rings), GOTRACE_GFP);
	if (!snap->rings) {
		ret = -ENOMEM;
		goto err_free;
	}
	gotrace_flight_starts(s, w);
	snap->first_gen = gotrace_flight_first(s, w, now, args->duration_ns);
	snap->last_gen = w->hi;
	ret = gotrace_flight_copy(s, snap, &args->bytes);
	if (ret)
		goto err_free;
	snap->samples = gotrace_samples_copy(s, snap->first_gen, snap->last_gen);
	if (IS_ERR(snap->samples)) {
		ret = PTR_ERR(snap->samples);
		snap->samples = NULL;
		goto err_free;
	}

	start = w->start[snap->first_gen - w->lo];
	args->first_gen = snap->first_gen;
	args->generations = snap->last_gen - snap->first_gen + 1;
	args->span_ns = start < now ?
		mul_u64_u64_div_u64(now - start, NSEC_PER_SEC, s->ts_freq) : 0;
	return snap;

err_free:
	gotrace_flight_free(snap);
	return ERR_PTR(ret);
}

/**
 * gotrace_flight_snapshot - GOTRACE_SNAPSHOT: copy the newest whole
 * generations out of a flight recorder's rings for read() to serve
 * @dev: the device, locked
 * @args: the request, checked; its outputs are filled in
 *
 * Return: 0; -EINVAL if no flight recorder is recording; -EBUSY if the
 * last snapshot is not read to its end yet; -ENODATA if the rings hold no
 * whole generation; -ENOMEM.
 */
int gotrace_flight_snapshot(struct gotrace_dev *dev,
			    struct gotrace_snapshot *args)
{
	struct gotrace_session *s = gotrace_dev_sess(dev);
	struct gotrace_flight_snap *snap;
	struct gotrace_flight_win w;
	u64 now;

	lockdep_assert_held(&dev->lock);
	if (!s || s->state != GOTRACE_SESS_TRACING || !s->flight.on)
		return -EINVAL;
	if (s->flight.snap)
		return -EBUSY;
	/* The duration is counted back from the call, not from its work. */
	now = gotrace_clock(s);
	w.hi = gotrace_flight_close(s);
	w.lo = gotrace_flight_whole(s);
	if (w.lo > w.hi)
		return -ENODATA;
	w.start = kvmalloc_array(w.hi - w.lo + 1, sizeof(*w.start), GOTRACE_GFP);
	if (!w.start)
		return -ENOMEM;
	memset(w.start, 0xff, (w.hi - w.lo + 1) * sizeof(*w.start));
	snap = gotrace_flight_take(s, &w, now, args);
	kvfree(w.start);
	if (IS_ERR(snap))
		return PTR_ERR(snap);

	/* The reader sets itself up for the snapshot it has not read. */
	s->flight.snapshots++;
	/* Pairs with the acquire in the reader: the copy and its fields first. */
	smp_store_release(&s->flight.snap, snap);
	wake_up_interruptible(s->wq);
	return 0;
}

/**
 * gotrace_flight_read_done - the reader read a snapshot to its end: free it
 * @dev: the device, locked
 * @s: its session
 *
 * Also when a reader closes the device in the middle of a snapshot: the
 * rest of it would not make a trace file. The session records on.
 */
void gotrace_flight_read_done(struct gotrace_dev *dev, struct gotrace_session *s)
{
	struct gotrace_flight_snap *snap = s->flight.snap;

	lockdep_assert_held(&dev->lock);
	WRITE_ONCE(s->flight.snap, NULL);
	gotrace_flight_free(snap);
}
