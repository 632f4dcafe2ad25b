/* SPDX-License-Identifier: GPL-2.0 */
/* The latency trigger: a thread kept runnable too long (trigger.c). */
#ifndef _GOTRACE_TRIGGER_H
#define _GOTRACE_TRIGGER_H

#include <linux/compiler.h>
#include <linux/irq_work.h>
#include <linux/sched.h>
#include <linux/types.h>
#include <linux/wait.h>
#include "threads.h"

struct gotrace_dev;
struct gotrace_session;
struct gotrace_thread;
struct gotrace_trigger;

/* States of a latency trigger. */
enum gotrace_trig_state {
	GOTRACE_TRIG_IDLE,	/* not armed: nobody asked for the next one */
	GOTRACE_TRIG_ARMED,	/* GOTRACE_TRIGGER asked: the next wait fires */
	GOTRACE_TRIG_FIRING,	/* a probe fills the details in */
	GOTRACE_TRIG_FIRED,	/* details ready for GOTRACE_TRIGGER */
};

/**
 * struct gotrace_trig - a session's latency trigger
 * @ticks:	the threshold, in trace ticks.
 * @freq:	trace ticks per second.
 * @state:	enum gotrace_trig_state; ARMED by GOTRACE_TRIGGER under
 *		gotrace_dev.lock, FIRING by a probe (cmpxchg), FIRED by it
 *		(release), IDLE again by GOTRACE_TRIGGER.
 * @work:	wakes GOTRACE_TRIGGER and poll() from outside the scheduler.
 * @wq:		where they wait, the device's.
 * @tid:	the thread that waited.
 * @tgid:	its process.
 * @comm:	its name.
 * @wait_ns:	how long it was runnable before it ran.
 * @time_ns:	CLOCK_MONOTONIC when it ran.
 * @fired:	triggers fired; written by the firing probe.
 *
 * @tid to @time_ns are written by the probe that moved @state to FIRING,
 * and read by GOTRACE_TRIGGER once it sees FIRED.
 */
struct gotrace_trig {
	u32 ticks;
	u64 freq;
	int state;
	struct irq_work work;
	wait_queue_head_t *wq;
	u32 tid;
	u32 tgid;
	char comm[TASK_COMM_LEN];
	u64 wait_ns;
	u64 time_ns;
	u64 fired;
};

struct gotrace_trig *gotrace_trig_alloc(struct gotrace_session *s,
					u64 latency_ns);
void gotrace_trig_free(struct gotrace_trig *trig);
void gotrace_trig_stop(struct gotrace_trig *trig);
bool gotrace_trig_pollpri(struct gotrace_dev *dev);
void gotrace_trig_fire(struct gotrace_trig *trig, struct task_struct *p,
		       u32 ticks);
int gotrace_trig_wait(struct gotrace_dev *dev, u32 flags, bool requests,
		      struct gotrace_trigger *out);

/*
 * The probes' part is inline: it runs at every switch and wakeup of a
 * session with a trigger, and is a few loads, stores and a comparison.
 */

/**
 * gotrace_trig_ready - a thread became runnable: stamp its entry
 * @t: the thread's entry (struct gotrace_thread's @ready)
 * @ts: when, in trace ticks
 */
static __always_inline void gotrace_trig_ready(struct gotrace_thread *t, u64 ts)
{
	WRITE_ONCE(t->ready, (u32)ts ?: 1);
}

/**
 * gotrace_trig_switch - a switch was written: stamp and check
 * @trig: the session's trigger
 * @stop: the entry of the thread switched out, or NULL
 * @run: the entry of the thread switched in, or NULL
 * @next: that thread
 * @ts: when, in trace ticks
 */
static __always_inline void gotrace_trig_switch(struct gotrace_trig *trig,
						struct gotrace_thread *stop,
						struct gotrace_thread *run,
						struct task_struct *next,
						u64 ts)
{
	u32 then;

	if (stop && stop->state == GOTRACE_T_RUNNABLE)
		gotrace_trig_ready(stop, ts);
	if (!run)
		return;
	then = READ_ONCE(run->ready);
	if (!then)
		return;
	WRITE_ONCE(run->ready, 0);
	if (unlikely((u32)ts - then > trig->ticks))
		gotrace_trig_fire(trig, next, (u32)ts - then);
}

#endif /* _GOTRACE_TRIGGER_H */
