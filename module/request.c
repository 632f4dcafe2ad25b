// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace snapshot requests: a program that sees something slow asks the
 * reader of a flight recorder for a snapshot, with a reason, through
 * /dev/gotrace-annotate (GOTRACE_REQUEST). One request waits at a time,
 * and one is taken in per GOTRACE_REQUEST_INTERVAL_NS at most; the reader
 * gets it from GOTRACE_TRIGGER (trigger.c) and decides. The reason is also
 * a log message on the asking thread, so the trace says who asked, when.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/lockdep.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uidgid.h>
#include <linux/wait.h>

#include "annotate_events.h"
#include "dev.h"
#include "request.h"
#include "session.h"

/* The category of a request's log message. */
static const u8 gotrace_req_category[] = "gotrace.snapshot";

/**
 * gotrace_req_open - whether @s takes requests: a flight recorder recording
 * @s: the session or NULL, under RCU or gotrace_dev.lock
 *
 * Return: true if it does.
 */
bool gotrace_req_open(struct gotrace_session *s)
{
	return s && READ_ONCE(s->state) == GOTRACE_SESS_TRACING && s->flight.on;
}

/* Under gotrace_dev.lock: take the calling thread's request into @s. */
static int gotrace_req_accept(struct gotrace_dev *dev, const u8 *reason,
			      u32 len)
{
	struct gotrace_session *s = gotrace_dev_sess(dev);
	u64 now = ktime_get_mono_fast_ns();
	struct gotrace_req *req;

	lockdep_assert_held(&dev->lock);
	if (!gotrace_req_open(s) || !s->req.listening)
		return -ENODATA;
	req = &s->req;
	if (req->pending ||
	    (req->accepted && now - req->last_ns < GOTRACE_REQUEST_INTERVAL_NS))
		return -EBUSY;
	req->tid = current->pid;
	req->tgid = current->tgid;
	req->uid = from_kuid_munged(&init_user_ns, current_uid());
	get_task_comm(req->comm, current);
	req->time_ns = now;
	memcpy(req->reason, reason, len);
	req->reason[len] = '\0';
	req->last_ns = now;
	req->accepted++;
	WRITE_ONCE(req->pending, true);
	return 0;
}

/**
 * gotrace_req_post - GOTRACE_REQUEST: ask the reader for a snapshot
 * @dev: the device, not locked
 * @reason: the reason
 * @len: its bytes, 1 to GOTRACE_REQUEST_REASON_MAX
 *
 * Return: 0; -ENODATA if no flight recorder records, or its reader takes no
 * requests; -EBUSY while a request waits, or within
 * GOTRACE_REQUEST_INTERVAL_NS of the last.
 */
int gotrace_req_post(struct gotrace_dev *dev, const u8 *reason, u32 len)
{
	struct gotrace_ann_str category, message;
	int ret;

	mutex_lock(&dev->lock);
	ret = gotrace_req_accept(dev, reason, len);
	mutex_unlock(&dev->lock);
	if (ret)
		return ret;
	wake_up_interruptible(&dev->wq);
	/* The trace may not record this thread (-ENODATA): the request stands. */
	gotrace_ann_escape(&category, gotrace_req_category,
			   sizeof(gotrace_req_category) - 1);
	gotrace_ann_escape(&message, reason, len);
	gotrace_ann_log(0, &category, &message);
	return 0;
}

/**
 * gotrace_req_listen - a reader takes requests from now on
 * @s: the session, under gotrace_dev.lock; it takes requests
 */
void gotrace_req_listen(struct gotrace_session *s)
{
	lockdep_assert_held(&s->dev->lock);
	s->req.listening = true;
}

/**
 * gotrace_req_take - hand a waiting request out to GOTRACE_TRIGGER
 * @s: the session, under gotrace_dev.lock; it takes requests
 * @out: filled in with the request (GOTRACE_CAUSE_REQUEST)
 *
 * Return: true if a request waited.
 */
bool gotrace_req_take(struct gotrace_session *s, struct gotrace_trigger *out)
{
	struct gotrace_req *req = &s->req;

	lockdep_assert_held(&s->dev->lock);
	if (!req->pending)
		return false;
	out->cause = GOTRACE_CAUSE_REQUEST;
	out->tid = req->tid;
	out->tgid = req->tgid;
	out->uid = req->uid;
	memcpy(out->comm, req->comm, sizeof(out->comm));
	out->wait_ns = 0;
	out->time_ns = req->time_ns;
	memcpy(out->reason, req->reason, sizeof(out->reason));
	WRITE_ONCE(req->pending, false);
	return true;
}

/**
 * gotrace_req_pending - whether a request waits for GOTRACE_TRIGGER
 * @s: the session or NULL, under RCU or gotrace_dev.lock
 *
 * Return: true if one does.
 */
bool gotrace_req_pending(struct gotrace_session *s)
{
	return gotrace_req_open(s) && READ_ONCE(s->req.pending);
}
