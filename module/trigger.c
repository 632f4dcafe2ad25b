// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace latency trigger (flight recorders): a thread that waits longer
 * than a threshold between becoming runnable and running - the quantity of
 * Go's scheduler-latency profile - fires it, once armed, so that user space
 * can take a snapshot of what led to the stall.
 *
 * The probes stamp a thread's entry (@ready) when it becomes runnable (a
 * wakeup, a fork, a preemption or a yield) and compare at its next switch
 * in: a subtraction and a test, only in sessions that have a trigger. A
 * firing moves the trigger from ARMED to FIRING with cmpxchg, so one probe
 * alone fills the details in, and wakes the waiter through an irq_work, as
 * the ring wakes its reader (buffer.c). GOTRACE_TRIGGER arms the trigger
 * and waits, or hands out the details of one that fired and leaves it
 * unarmed: user space decides how often it may fire.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/irq_work.h>
#include <linux/lockdep.h>
#include <linux/math64.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/wait.h>
#include <linux/gotrace.h>

#include "compat.h"
#include "dev.h"
#include "gfp.h"
#include "request.h"
#include "session.h"
#include "threads.h"
#include "trigger.h"

static void gotrace_trig_wake(struct irq_work *work)
{
	struct gotrace_trig *trig = container_of(work, struct gotrace_trig, work);

	wake_up_interruptible(trig->wq);
}

/**
 * gotrace_trig_alloc - a latency trigger for a new session
 * @s: the session, its clock set up
 * @latency_ns: the threshold
 *
 * Return: the trigger, unarmed, or NULL.
 */
struct gotrace_trig *gotrace_trig_alloc(struct gotrace_session *s,
					u64 latency_ns)
{
	struct gotrace_trig *trig;

	trig = kzalloc(sizeof(*trig), GOTRACE_GFP);
	if (!trig)
		return NULL;
	trig->freq = s->ts_freq;
	trig->ticks = mul_u64_u64_div_u64(latency_ns, s->ts_freq, NSEC_PER_SEC);
	trig->wq = s->wq;
	init_irq_work(&trig->work, gotrace_trig_wake);
	return trig;
}

/**
 * gotrace_trig_free - free a trigger with its session
 * @trig: the trigger or NULL; nobody waits on it any more
 */
void gotrace_trig_free(struct gotrace_trig *trig)
{
	kfree(trig);
}

/**
 * gotrace_trig_stop - recording is off: no probe fires any more
 * @trig: the trigger or NULL
 */
void gotrace_trig_stop(struct gotrace_trig *trig)
{
	if (trig)
		irq_work_sync(&trig->work);
}

/**
 * gotrace_trig_fire - a thread waited longer than the threshold: fire if armed
 * @trig: the session's trigger
 * @p: the thread, being switched in
 * @ticks: how long it waited, in trace ticks
 */
void gotrace_trig_fire(struct gotrace_trig *trig, struct task_struct *p,
		       u32 ticks)
{
	if (cmpxchg(&trig->state, GOTRACE_TRIG_ARMED, GOTRACE_TRIG_FIRING) !=
	    GOTRACE_TRIG_ARMED)
		return;
	trig->tid = p->pid;
	trig->tgid = p->tgid;
	/* A rename by another thread may race: the name is a hint. */
	data_race(memcpy(trig->comm, p->comm, sizeof(trig->comm)));
	trig->comm[sizeof(trig->comm) - 1] = '\0';
	trig->wait_ns = mul_u64_u64_div_u64(ticks, NSEC_PER_SEC, trig->freq);
	trig->time_ns = ktime_get_mono_fast_ns();
	WRITE_ONCE(trig->fired, trig->fired + 1);
	/* Pairs with the acquire in gotrace_trig_take(): details first. */
	smp_store_release(&trig->state, GOTRACE_TRIG_FIRED);
	irq_work_queue(&trig->work);
}

/*
 * The trigger of @dev's recording session, under RCU or gotrace_dev.lock;
 * NULL if there is none.
 */
static struct gotrace_trig *gotrace_trig_of(struct gotrace_session *s)
{
	return s && READ_ONCE(s->state) == GOTRACE_SESS_TRACING ? s->trig : NULL;
}

/*
 * Whether a waiting GOTRACE_TRIGGER should look again; @requests: it takes
 * requests too (GOTRACE_TRIGGER_SIZE_VER1).
 */
static bool gotrace_trig_wakes(struct gotrace_dev *dev, bool requests)
{
	struct gotrace_session *s;
	struct gotrace_trig *trig;
	bool ret;

	rcu_read_lock();
	s = rcu_dereference(dev->sess);
	trig = gotrace_trig_of(s);
	if (requests)
		ret = !gotrace_req_open(s) || gotrace_req_pending(s) ||
		      (trig && READ_ONCE(trig->state) == GOTRACE_TRIG_FIRED);
	else
		ret = !trig || READ_ONCE(trig->state) == GOTRACE_TRIG_FIRED;
	rcu_read_unlock();
	return ret;
}

/**
 * gotrace_trig_pollpri - whether a firing or a request waits for
 * GOTRACE_TRIGGER
 * @dev: the device
 *
 * Return: true if the recording session's trigger fired and nobody has
 * taken its details yet, or a snapshot request waits.
 */
bool gotrace_trig_pollpri(struct gotrace_dev *dev)
{
	struct gotrace_session *s;
	struct gotrace_trig *trig;
	bool ret;

	rcu_read_lock();
	s = rcu_dereference(dev->sess);
	trig = gotrace_trig_of(s);
	ret = (trig && READ_ONCE(trig->state) == GOTRACE_TRIG_FIRED) ||
	      gotrace_req_pending(s);
	rcu_read_unlock();
	return ret;
}

/*
 * Under gotrace_dev.lock: a waiting request into @out (with @requests),
 * else the details of a fired trigger, the trigger then unarmed; else the
 * trigger armed (unless @noarm) and -EAGAIN. -EINVAL if no session records
 * with a trigger (with @requests: no flight recorder records).
 */
static int gotrace_trig_take(struct gotrace_dev *dev, bool requests,
			     bool noarm, struct gotrace_trigger *out)
{
	struct gotrace_session *s = gotrace_dev_sess(dev);
	struct gotrace_trig *trig;

	lockdep_assert_held(&dev->lock);
	if (requests && gotrace_req_open(s)) {
		gotrace_req_listen(s);
		if (gotrace_req_take(s, out))
			return 0;
	}
	trig = gotrace_trig_of(s);
	if (!trig)
		return requests && gotrace_req_open(s) ? -EAGAIN : -EINVAL;
	/* Pairs with the release in gotrace_trig_fire(): details first. */
	if (smp_load_acquire(&trig->state) != GOTRACE_TRIG_FIRED) {
		if (!noarm)
			cmpxchg(&trig->state, GOTRACE_TRIG_IDLE,
				GOTRACE_TRIG_ARMED);
		return -EAGAIN;
	}
	out->cause = GOTRACE_CAUSE_LATENCY;
	out->uid = 0;
	memset(out->reason, 0, sizeof(out->reason));
	out->tid = trig->tid;
	out->tgid = trig->tgid;
	memcpy(out->comm, trig->comm, sizeof(out->comm));
	out->wait_ns = trig->wait_ns;
	out->time_ns = trig->time_ns;
	WRITE_ONCE(trig->state, GOTRACE_TRIG_IDLE);
	return 0;
}

/**
 * gotrace_trig_wait - GOTRACE_TRIGGER: arm the latency trigger and wait
 * for it, or take a firing (or a request) that waits
 * @dev: the device, not locked
 * @flags: GOTRACE_TRIGGER_NOWAIT: do not wait: -EAGAIN if none fired (the
 *	trigger is armed); GOTRACE_TRIGGER_NOARM: do not arm it
 * @requests: the caller takes snapshot requests too, first
 * @out: the firing's or the request's details are filled in
 *
 * Return: 0; -EINVAL if no session records with a trigger (with
 * @requests, no flight recorder; or it stopped meanwhile); -EAGAIN;
 * -ERESTARTSYS on a signal.
 */
int gotrace_trig_wait(struct gotrace_dev *dev, u32 flags, bool requests,
		      struct gotrace_trigger *out)
{
	int ret;

	for (;;) {
		mutex_lock(&dev->lock);
		ret = gotrace_trig_take(dev, requests,
					flags & GOTRACE_TRIGGER_NOARM, out);
		mutex_unlock(&dev->lock);
		if (ret != -EAGAIN || (flags & GOTRACE_TRIGGER_NOWAIT))
			return ret;
		ret = wait_event_interruptible(dev->wq,
					       gotrace_trig_wakes(dev, requests));
		if (ret)
			return ret;
	}
}
