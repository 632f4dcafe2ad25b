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
 * struct gotrace_session - one trace, from start to its end of file
 * @mode:	enum gotrace_mode; written with cmpxchg/xchg, read by probes.
 * @state:	enum gotrace_sess_state; written under gotrace_dev.lock,
 *		read locklessly by the reader (acquire).
 * @cpus:	per-CPU buffers.
 * @threads:	thread table, max_tid entries (vmalloc).
 * @aliases:	entries of threads whose id's entry another thread holds.
 * @nr_aliases:	aliases in use; written with atomics.
 * @max_tid:	thread ids the table covers.
 * @format:	GOTRACE_FORMAT_*, never the default.
 * @v2:		@format is 1.22 or later: generations, encode2.h's events.
 * @flight:	a flight recorder (flight.c): rings overwrite, read() serves
 *		snapshots.
 * @snap:	a flight recorder's snapshot for read() to serve, or NULL. Set
 *		under gotrace_dev.lock while NULL (release), read by the
 *		reader (acquire), freed and set to NULL by the reader under
 *		gotrace_dev.lock; poll() tests it locklessly.
 * @snapshots:	snapshots taken; under gotrace_dev.lock, read by the reader
 *		while @snap is set (it changes only while @snap is NULL).
 * @trig:	a flight recorder's latency trigger (trigger.c), or NULL; read
 *		by every probe.
 * @gen:	formats 1.22 and later: the current generation, from 1; read
 *		by every probe, written by the generation work. 0 otherwise.
 * @gen_closed:	the last generation whose batches are all committed: the
 *		reader may write its tables. Written with release.
 * @gen_period:	jiffies between generations.
 * @gen_work:	starts the next generation (generations.c).
 * @gen_kick:	a CPU's request for a new generation: its batches in the
 *		current one reached the start's gen_bytes.
 * @procs_gen:	formats 1.22 and later: the last generation with its
 *		ProcsChange (gotrace_procs_set()); claimed with cmpxchg.
 * @tids_seen:	formats 1.22 and later: a bitmap of the thread ids that held
 *		a goroutine in this trace, which the generation walk visits;
 *		set with set_bit() by creations.
 * @word_ids:	the string id of each reason's word, 0 until an event
 *		uses it (gotrace_word()); set with cmpxchg.
 * @nr_words:	word string ids handed out; written with atomics.
 * @wq:		the reader's wait queue, the device's.
 * @buffer_size: bytes per CPU.
 * @cut_ts:	when recording was cut short (valid in GOTRACE_MODE_CUT).
 * @cut_notify:	queued by the cut (record.c), or NULL: a GOTRACE_START_CONTINUE
 *		chain's gotrace_dev.cut_kick. Set at start, read by the
 *		probe that cuts.
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
 * @ann:	user annotations (annotations.c).
 * @reasons_used: reasons in those stacks (computed at stop).
 * @footer:	the page the footer is generated into.
 * @footer_len:	bytes in it.
 * @footer_phase: footer generation state (footer.c).
 * @footer_pos:	its position within the phase.
 * @footer_bytes: footer bytes generated so far.
 * @tbl_progs:	programs the footer's strings name.
 * @tbl_stacks:	stack ids the footer looks at.
 * @tbl_ustrs:	user annotations' strings the footer writes.
 * @end_ts:	when recording stopped.
 * @rd_hdr:	header bytes read.        Reader fields: gotrace_dev.read_lock.
 * @rd_cpu:	CPU whose chunk is being read.
 * @rd_off:	bytes of that chunk read.
 * @rd_footer:	footer bytes read.
 * @rd_gen:	formats 1.22 and later: the generation being read; read
 *		locklessly by poll().
 * @bytes_read:	trace bytes returned by read().
 * @rd_snapshot: a flight recorder's: the number (as @snapshots counts) of
 *		the snapshot the reader fields are set up for; read
 *		locklessly by gotrace_session_reader_gone().
 * @rd_broken:	a reader closed the device after part of the trace: the
 *		rest is not served. Written under gotrace_dev.lock; poll()
 *		reads it locklessly.
 * @args:	what its start asked for: a GOTRACE_START_CONTINUE chain
 *		starts the next session with them.
 * @dev:	the device.
 * @cont:	GOTRACE_START_CONTINUE: a cut ends the trace at once, and a new
 *		one follows it once it is read to its end (continue.c);
 *		cleared by a stop. Under gotrace_dev.lock.
 * @cut_ns:	CLOCK_MONOTONIC ns of the cut (with @cut_ts).
 * @start_ns:	CLOCK_MONOTONIC ns of the start snapshot.
 * @gap_start_ns: a chain's session after the first: the previous one's
 *		@cut_ns...
 * @gap_end_ns:	...this one's @start_ns...
 * @gap_events:	...and the events the previous one counted as lost.
 * @resumes:	sessions of its chain that followed a cut, this one included.
 * @resume_err:	the errno of the start that should have followed this cut
 *		trace (the chain ended), or 0.
 * @filter:	@args.filter, read by the probes: the threads it traces, or
 *		NULL for every thread.
 * @samplers:	CPU samples: the perf event sampling each CPU, by CPU number
 *		(nr_cpu_ids of them, NULL where none), or NULL (samples.c).
 *		Under gotrace_dev.lock.
 * @srings:	with generations, CPU samples kept until the reader writes
 *		their generation's batches, by CPU number (samples.c), or NULL.
 */
struct gotrace_session {
	int mode;
	int state;
	struct gotrace_cpu __percpu *cpus;
	struct gotrace_thread *threads;
	struct gotrace_alias *aliases;
	atomic_t nr_aliases;
	u32 max_tid;
	u32 format;
	bool v2;
	bool flight;
	struct gotrace_flight_snap *snap;
	u64 snapshots;
	struct gotrace_trig *trig;
	u32 gen;
	u32 gen_closed;
	unsigned long gen_period;
	struct delayed_work gen_work;
	struct irq_work gen_kick;
	u32 procs_gen;
	unsigned long *tids_seen;
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
	u8 *footer;
	size_t footer_len;
	u32 footer_phase;
	u32 footer_pos;
	u64 footer_bytes;
	u32 tbl_progs;
	u32 tbl_stacks;
	u32 tbl_ustrs;
	u64 end_ts;

	size_t rd_hdr;
	int rd_cpu;
	u32 rd_off;
	size_t rd_footer;
	u32 rd_gen;
	u64 bytes_read;
	u64 rd_snapshot;
	bool rd_broken;

	struct gotrace_start_args args;
	struct gotrace_dev *dev;
	bool cont;
	u64 cut_ns;
	u64 start_ns;
	u64 gap_start_ns;
	u64 gap_end_ns;
	u64 gap_events;
	u32 resumes;
	int resume_err;
	struct gotrace_filter *filter;
	struct perf_event **samplers;
	struct gotrace_sring *srings;
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
