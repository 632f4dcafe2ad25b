/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A session, one trace from start to end of file; how gotrace's objects live
 * and lock.
 *
 * Object lifetime and locking
 * ---------------------------
 * A session lives from GOTRACE_START until its trace has been read to the
 * end of file (or it is discarded by the next start when no reader holds the
 * device open, or by module unload). gotrace_dev.lock (a mutex) serialises
 * every state change of the device: starting, stopping, freeing a session,
 * opening and closing the reader. The reader itself runs under
 * gotrace_dev.read_lock and never blocks a writer.
 *
 * Writers are the scheduler tracepoint probes. Each CPU writes only its own
 * struct gotrace_cpu, with interrupts disabled; no lock is shared between
 * CPUs. The controller (start snapshot, stop) writes into a CPU's buffer only
 * when no probe can run there: inside stop_machine() or after an RCU grace
 * period that follows switching recording off.
 *
 * Per-thread state (struct gotrace_thread) is indexed by thread id. The
 * scheduler itself serialises every event of one thread (runqueue lock,
 * p->pi_lock, p->on_cpu release/acquire), so the probes touch an entry
 * without further locking.
 *
 * Ownership of a session's state
 * -------------------------------
 * struct gotrace_session keeps what every part reads (mode, buffers,
 * thread table, clock, format) flat, and each feature's state in a struct
 * of its own that one file writes; other files only read it, as its
 * comments say:
 *
 *   struct gotrace_reader	read.c (under gotrace_dev.read_lock)
 *   struct gotrace_footer	footer.c, for the reader (read_lock)
 *   struct gotrace_gens	generations.c (formats 1.22 and later)
 *   struct gotrace_chain	continue.c, run by session.c (gotrace_dev.lock)
 *   struct gotrace_flight	flight.c (gotrace_dev.lock), read by read.c
 *   struct gotrace_samples	samples.c
 *
 * A latency trigger (struct gotrace_trig, trigger.c) and a thread filter
 * (struct gotrace_filter, filter.c) are objects of their own that the
 * session points to; a cut and its notification are record.c's.
 */
#ifndef _GOTRACE_SESSION_H
#define _GOTRACE_SESSION_H

#include <linux/atomic.h>
#include <linux/bitmap.h>
#include <linux/irq_work.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/gotrace.h>
#include "reasons.h"
#include "request.h"
#include "thread_table.h"

struct gotrace_alias;
struct gotrace_ann;
struct gotrace_cpu;
struct gotrace_dev;
struct gotrace_filter;
struct gotrace_flight_snap;
struct gotrace_kstacks;
struct gotrace_sring;
struct perf_event;
struct gotrace_progs;
struct gotrace_stacks;
struct gotrace_thread;
struct gotrace_trig;

/* Recording modes, read by every probe. */
enum gotrace_mode {
	GOTRACE_MODE_OFF,	/* probes do nothing */
	GOTRACE_MODE_ON,	/* probes record */
	GOTRACE_MODE_CUT,	/* out of space: probes only count lost events */
};

/* Life of a session as the device sees it. */
enum gotrace_sess_state {
	GOTRACE_SESS_TRACING = 1,
	GOTRACE_SESS_STOPPED,
	GOTRACE_SESS_DONE,	/* read to the end; buffers freed */
};

/**
 * struct gotrace_start_args - what a start asks for, checked (main.c)
 * @flags:	GOTRACE_START_* flags.
 * @format:	GOTRACE_FORMAT_*, not the default.
 * @max_tid:	thread table size.
 * @buffer_size: bytes per CPU, whole chunks.
 * @gen_period_ns: formats 1.22 and later: nanoseconds between generations.
 * @gen_bytes:	formats 1.22 and later: a CPU's bytes that start the next.
 * @latency_ns:	flight recorders: the latency trigger's threshold, 0 for none.
 * @filter:	the threads to trace (filter.c), or NULL: every thread. Each
 *		session holds a reference.
 * @cpu_sample_hz: CPU samples a second per CPU (samples.c), 0 for none.
 */
struct gotrace_start_args {
	struct gotrace_filter *filter;
	u32 flags;
	u32 format;
	u32 max_tid;
	u64 buffer_size;
	u64 gen_period_ns;
	u64 gen_bytes;
	u64 latency_ns;
	u32 cpu_sample_hz;
};

/**
 * struct gotrace_reader - where the reader is in the trace (read.c)
 * @hdr:	header bytes read.
 * @cpu:	CPU whose chunk is being read.
 * @off:	bytes of that chunk read.
 * @footer:	footer bytes read.
 * @gen:	formats 1.22 and later: the generation being read; read
 *		locklessly by poll(), footer.c and samples.c.
 * @bytes:	trace bytes returned by read().
 * @snapshot:	a flight recorder's: the number (as gotrace_flight.snapshots
 *		counts) of the snapshot the reader is set up for; read
 *		locklessly by gotrace_session_reader_gone().
 * @broken:	a reader closed the device after part of the trace: the
 *		rest is not served. Written under gotrace_dev.lock; poll()
 *		reads it locklessly.
 *
 * Under gotrace_dev.read_lock, except where said.
 */
struct gotrace_reader {
	size_t hdr;
	int cpu;
	u32 off;
	size_t footer;
	u32 gen;
	u64 bytes;
	u64 snapshot;
	bool broken;
};

/**
 * struct gotrace_footer - the footer (formats 1.21 and older) or a
 * generation's tables, generated a page at a time for the reader (footer.c)
 * @page:	the page the footer is generated into.
 * @len:	bytes in it.
 * @phase:	footer generation state (enum in footer.h).
 * @pos:	its position within the phase (samples.c's batch keeps its
 *		CPU there).
 * @bytes:	footer bytes generated so far; read by status.
 * @tbl_progs:	programs the footer's strings name (kstacks.c reads it).
 * @tbl_stacks:	stack ids the footer looks at.
 * @tbl_ustrs:	user annotations' strings the footer writes.
 *
 * Written by the reader (gotrace_dev.read_lock), or by a stop before the
 * reader may read it (formats 1.21 and older).
 */
struct gotrace_footer {
	u8 *page;
	size_t len;
	u32 phase;
	u32 pos;
	u64 bytes;
	u32 tbl_progs;
	u32 tbl_stacks;
	u32 tbl_ustrs;
};

/**
 * struct gotrace_gens - formats 1.22 and later: generations (generations.c)
 * @cur:	the current generation, from 1; read by every probe, written
 *		by the generation work. 0 in the older formats.
 * @closed:	the last generation whose batches are all committed: the
 *		reader may write its tables. Written with release.
 * @period:	jiffies between generations.
 * @work:	starts the next generation.
 * @kick:	a CPU's request for a new generation: its batches in the
 *		current one reached the start's gen_bytes.
 * @procs:	the last generation with its ProcsChange (gotrace_procs_set(),
 *		transitions.c); claimed with cmpxchg.
 */
struct gotrace_gens {
	u32 cur;
	u32 closed;
	unsigned long period;
	struct delayed_work work;
	struct irq_work kick;
	u32 procs;
};

/**
 * struct gotrace_chain - GOTRACE_START_CONTINUE (continue.c; session.c
 * runs the chain). Under gotrace_dev.lock.
 * @on:		a cut ends the trace at once, and a new one follows it once
 *		it is read to its end; cleared by a stop.
 * @gap_start_ns: a chain's session after the first: the previous one's
 *		cut_ns...
 * @gap_end_ns:	...this one's start_ns...
 * @gap_events:	...and the events the previous one counted as lost.
 * @resumes:	sessions of its chain that followed a cut, this one included.
 * @resume_err:	the errno of the start that should have followed this cut
 *		trace (the chain ended), or 0.
 */
struct gotrace_chain {
	bool on;
	u64 gap_start_ns;
	u64 gap_end_ns;
	u64 gap_events;
	u32 resumes;
	int resume_err;
};

/**
 * struct gotrace_flight - a flight recorder's snapshots (flight.c)
 * @on:		a flight recorder: rings overwrite, read() serves snapshots.
 * @snap:	the snapshot for read() to serve, or NULL. Set under
 *		gotrace_dev.lock while NULL (release), read by the reader
 *		(acquire), freed and set to NULL by the reader under
 *		gotrace_dev.lock; poll() tests it locklessly.
 * @snapshots:	snapshots taken; under gotrace_dev.lock, read by the reader
 *		while @snap is set (it changes only while @snap is NULL).
 */
struct gotrace_flight {
	bool on;
	struct gotrace_flight_snap *snap;
	u64 snapshots;
};

/**
 * struct gotrace_samples - CPU samples (samples.c)
 * @events:	the perf event sampling each CPU, by CPU number (nr_cpu_ids
 *		of them, NULL where none), or NULL. Under gotrace_dev.lock.
 * @rings:	with generations, samples kept until the reader writes their
 *		generation's batches, by CPU number, or NULL.
 */
struct gotrace_samples {
	struct perf_event **events;
	struct gotrace_sring *rings;
};

/**
 * struct gotrace_session - one trace, from start to its end of file
 * @mode:	enum gotrace_mode; written with cmpxchg/xchg, read by probes.
 * @state:	enum gotrace_sess_state; written under gotrace_dev.lock,
 *		read locklessly by the reader (acquire).
 * @cpus:	per-CPU buffers.
 * @table:	thread table: an entry per thread id below @max_tid, in
 *		leaves made as ids come into use (thread_table.c).
 * @aliases:	entries of threads whose id's entry another thread holds.
 * @nr_aliases:	aliases in use; written with atomics.
 * @max_tid:	thread ids the table covers.
 * @format:	GOTRACE_FORMAT_*, never the default.
 * @v2:		@format is 1.22 or later: generations, encode_tracev2.h's events.
 * @trig:	a flight recorder's latency trigger (trigger.c), or NULL; read
 *		by every probe.
 * @gen:	generations (generations.c); @gen.cur is read by every probe.
 * @word_ids:	the string id of each reason's word, 0 until an event
 *		uses it (gotrace_word()); set with cmpxchg.
 * @nr_words:	word string ids handed out; written with atomics.
 * @wq:		the reader's wait queue, the device's.
 * @buffer_size: bytes per CPU.
 * @cut_ts:	when recording was cut short (valid in GOTRACE_MODE_CUT).
 * @cut_notify:	queued by the cut (record.c), or NULL: a chain's
 *		gotrace_dev.cut_kick (session.c). Set at start, read by
 *		the probe that cuts.
 * @snapshot_ns: how long the start snapshot held every CPU.
 * @snapshot_threads: threads it recorded.
 * @clock:	GOTRACE_CLOCK_* of its time stamps (clock.c).
 * @ts_shift:	clock units >> @ts_shift = trace ticks.
 * @ts_freq:	trace ticks per second.
 * @header:	the 16-byte trace header.
 * @progs:	program names.
 * @kstacks:	kernel stacks, or NULL when neither block events
 *		(GOTRACE_START_KSTACKS) nor CPU samples write them.
 * @stacks:	the cheap stacks used.
 * @ann:	user annotations (annotate_events.c).
 * @reasons_used: reasons in those stacks (computed at stop).
 * @footer:	the footer or a generation's tables being generated (footer.c).
 * @end_ts:	when recording stopped.
 * @rd:		the reader's position (read.c).
 * @flight:	a flight recorder's state (flight.c).
 * @req:	a flight recorder's snapshot request (request.c).
 * @args:	what its start asked for: a GOTRACE_START_CONTINUE chain
 *		starts the next session with them.
 * @dev:	the device.
 * @chain:	a GOTRACE_START_CONTINUE chain (continue.c, session.c).
 * @cut_ns:	CLOCK_MONOTONIC ns of the cut (with @cut_ts).
 * @start_ns:	CLOCK_MONOTONIC ns of the start snapshot.
 * @filter:	@args.filter, read by the probes: the threads it traces, or
 *		NULL for every thread (filter.c).
 * @samples:	CPU samples (samples.c).
 */
struct gotrace_session {
	int mode;
	int state;
	struct gotrace_cpu __percpu *cpus;
	struct gotrace_table table;
	struct gotrace_alias *aliases;
	atomic_t nr_aliases;
	u32 max_tid;
	u32 format;
	bool v2;
	struct gotrace_trig *trig;
	struct gotrace_gens gen;
	u16 word_ids[GOTRACE_R_NR];
	atomic_t nr_words;
	wait_queue_head_t *wq;
	u64 buffer_size;
	u64 cut_ts;
	struct irq_work *cut_notify;
	u64 snapshot_ns;
	u32 snapshot_threads;
	u32 clock;
	u32 ts_shift;
	u64 ts_freq;
	char header[16];
	struct gotrace_progs *progs;
	struct gotrace_kstacks *kstacks;
	struct gotrace_stacks *stacks;
	struct gotrace_ann *ann;
	DECLARE_BITMAP(reasons_used, GOTRACE_R_NR);
	struct gotrace_footer footer;
	u64 end_ts;
	struct gotrace_reader rd;
	struct gotrace_flight flight;
	struct gotrace_req req;

	struct gotrace_start_args args;
	struct gotrace_dev *dev;
	struct gotrace_chain chain;
	u64 cut_ns;
	u64 start_ns;
	struct gotrace_filter *filter;
	struct gotrace_samples samples;
};

void gotrace_session_init(struct gotrace_dev *dev);
void gotrace_session_exit(struct gotrace_dev *dev);
int gotrace_session_start(struct gotrace_dev *dev,
			  const struct gotrace_start_args *args);
int gotrace_session_stop(struct gotrace_dev *dev);
void gotrace_session_done(struct gotrace_dev *dev, struct gotrace_session *s);
void gotrace_session_reader_gone(struct gotrace_dev *dev);
void gotrace_session_destroy(struct gotrace_dev *dev);
void gotrace_session_status(struct gotrace_dev *dev,
			    struct gotrace_status *st);

#endif /* _GOTRACE_SESSION_H */
