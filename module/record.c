// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace recording state: the session the event sources write into, and
 * the cut that ends its recording when a buffer is full.
 *
 * Below every event source (probes.c, samples.c, annotate_events.c,
 * generations.c): they look the session up here and cut it here. A cut
 * only switches the session's mode and notifies whoever the session layer
 * asked to be told (the session's cut_notify): it calls nothing above.
 */

#include <linux/atomic.h>
#include <linux/irq_work.h>
#include <linux/ktime.h>
#include <linux/rcupdate.h>
#include <linux/timekeeping.h>

#include "record.h"
#include "session.h"

struct gotrace_session __rcu *gotrace_live;

/**
 * gotrace_record_publish - make @s the session the probes record into
 * @s: the session, or NULL to stop recording
 *
 * Unpublishing waits until no probe uses the old session anymore.
 */
void gotrace_record_publish(struct gotrace_session *s)
{
	rcu_assign_pointer(gotrace_live, s);
	if (!s)
		synchronize_rcu();
}

/**
 * gotrace_cut - end recording at a consistent point: a buffer is full
 * @s: session
 * @c: this CPU's buffer
 * @ts: when
 *
 * Every event a probe records after this depends only on events recorded
 * before it: a probe on another CPU that would depend on the event not
 * written here runs after this CPU released the scheduler lock or on_cpu
 * flag that orders the two, so it sees GOTRACE_MODE_CUT and records nothing.
 *
 * The first cut queues @s->cut_notify, if the session layer set one (a
 * GOTRACE_START_CONTINUE chain ends the trace at once): an irq_work, as
 * the probe may hold a runqueue lock.
 */
void gotrace_cut(struct gotrace_session *s, struct gotrace_cpu *c, u64 ts)
{
	if (cmpxchg(&s->mode, GOTRACE_MODE_ON, GOTRACE_MODE_CUT) == GOTRACE_MODE_ON) {
		WRITE_ONCE(s->cut_ts, ts);
		WRITE_ONCE(s->cut_ns, ktime_get_mono_fast_ns());
		/* Set at start, cleared only once no probe sees @s. */
		if (s->cut_notify)
			irq_work_queue(s->cut_notify);
	}
	c->lost++;
}
