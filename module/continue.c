// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace's GOTRACE_START_CONTINUE chains: a full buffer ends the trace at
 * once, and a new trace starts when the reader has read it to its end.
 * This file keeps the chain's accounting; session.c, above it, runs the
 * chain (its cut work and the resume) and calls these helpers.
 *
 * A streaming trace is cut when a buffer runs full: from then on the probes
 * only count what they do not record (GOTRACE_MODE_CUT). Without the flag
 * the trace then waits for GOTRACE_STOP. With it, the probe that cut queues
 * an irq_work (it may hold a runqueue lock), which queues a work item that
 * ends the trace at the cut as a stop would, but leaves the session the
 * probes' one, so that they go on counting. The reader gets the rest of the
 * trace and its end of file; the read() that reaches it starts the next
 * session with the same arguments. Its start snapshot replaces the cut
 * session in the probes at one instant (under stop_machine()), so the cut
 * session's count of lost events covers exactly the gap between the two
 * traces, which the new session reports.
 *
 * The new trace cannot go on from the old one: its first generation (or,
 * in the older formats, its start snapshot) would have to say every
 * thread's state after a gap, and Go's readers reject a state that changed
 * between generations without an event. So each trace is a file of its own.
 *
 * The next session takes the memory the cut one frees: its buffers are
 * freed first, so a chain never holds two sessions' buffers. If the new
 * session cannot start (-ENOMEM), the chain ends and the cut session's
 * status says why.
 */

#include <linux/cpumask.h>
#include <linux/lockdep.h>
#include <linux/percpu.h>

#include "buffer.h"
#include "continue.h"
#include "cpu.h"
#include "dev.h"
#include "record.h"
#include "session.h"

/* The events @s did not record, final once no probe sees it. */
static u64 gotrace_cont_lost(struct gotrace_session *s)
{
	u64 lost = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		lost += READ_ONCE(per_cpu_ptr(s->cpus, cpu)->lost);
	return lost;
}

/**
 * gotrace_cont_make_room - free a chain's cut session's buffers for the next
 * @s: the session, stopped, read to its end, seen by no probe's writes
 *
 * The next session takes the memory they held: a chain never holds two
 * sessions' buffers.
 */
void gotrace_cont_make_room(struct gotrace_session *s)
{
	int cpu;

	for_each_possible_cpu(cpu)
		gotrace_buf_free(&per_cpu_ptr(s->cpus, cpu)->ring);
}

/**
 * gotrace_cont_cancel - end a chain whose cut trace has not been read out
 * @dev: the device, locked
 * @s: its session, stopped: the probes stop counting its losses
 */
void gotrace_cont_cancel(struct gotrace_dev *dev, struct gotrace_session *s)
{
	lockdep_assert_held(&dev->lock);
	s->chain.on = false;
	gotrace_record_publish(NULL);
}

/**
 * gotrace_cont_gap - a chain's new session @s follows the cut @old
 * @s: the new session, published
 * @old: the cut one, which no probe sees any more
 */
void gotrace_cont_gap(struct gotrace_session *s, struct gotrace_session *old)
{
	s->chain.gap_start_ns = old->cut_ns;
	s->chain.gap_end_ns = s->start_ns;
	s->chain.gap_events = gotrace_cont_lost(old);
	s->chain.resumes = old->chain.resumes + 1;
}

/**
 * gotrace_cont_status - a chain's part of GOTRACE_STATUS
 * @s: a session started with GOTRACE_START_CONTINUE
 * @st: its status
 */
void gotrace_cont_status(struct gotrace_session *s, struct gotrace_status *st)
{
	st->flags |= GOTRACE_STATUS_CONTINUE;
	st->gap_start_ns = s->chain.gap_start_ns;
	st->gap_end_ns = s->chain.gap_end_ns;
	st->gap_events = s->chain.gap_events;
	st->resumes = s->chain.resumes;
	st->resume_error = s->chain.resume_err;
}
