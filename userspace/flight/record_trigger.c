// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace record --flight D --trigger-latency L: the latency trigger armed
 * without waiting (GOTRACE_TRIGGER_NOWAIT); poll() says POLLPRI when it fires.
 * The firing is taken and told, recording goes on for --after, and then a
 * snapshot of D plus the time since the firing is written as the next file,
 * so that it holds D before the stall and what came after. The trigger is
 * re-armed --trigger-every after the firing (and not before its snapshot):
 * in between nothing fires. With or without a trigger, record --flight takes
 * the snapshot requests of programs (GOTRACE_REQUEST, gotrace snapshot
 * --reason): poll() says POLLPRI for them too, and each is a snapshot of D,
 * as SIGUSR1's.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "flight/flight.h"
#include "record/record.h"
#include "util/msg.h"

#define CMD	"record"
#define NO_STEP	86400.0		/* trigger_wait() with nothing to wait for */

/* The firing's CLOCK_MONOTONIC time in seconds, as now_seconds(). */
static double fired_at(const struct record *r)
{
	return r->fired.time_ns / 1e9;
}

/*
 * Takes what waits, a request or a firing, and arms the trigger (unless
 * @noarm) if nothing did. A request becomes a snapshot as SIGUSR1's.
 */
static void trigger_take_one(struct record *r, bool noarm)
{
	__u32 flags = GOTRACE_TRIGGER_NOWAIT | (noarm ? GOTRACE_TRIGGER_NOARM : 0);
	struct gotrace_trigger t;
	char what[192];
	int err = trigger_take(r->ctl_fd, flags, true, &t);

	if (err == EAGAIN) {
		if (!noarm)
			r->trig = TRIG_ARMED;
		return;
	}
	if (err) {
		r->trig = TRIG_OFF;
		r->listening = false;
		if (err != EINVAL) {	/* EINVAL: stopped by someone else, read() says */
			trigger_explain(CMD, err);
			progress_note(r, "the trigger is off; recording goes on");
		}
		return;
	}
	trigger_describe(&t, what, sizeof(what));
	if (t.cause == GOTRACE_CAUSE_REQUEST) {
		r->requests++;
		r->snap_wanted = true;
		progress_note(r, "request %u: %s", r->requests, what);
		return;
	}
	r->fired = t;
	r->triggers++;
	r->trig = TRIG_AFTER;
	progress_note(r, "trigger %u: %s", r->triggers, what);
}

/* Arms the trigger, or takes what happened since it was armed. */
static void trigger_arm(struct record *r)
{
	trigger_take_one(r, false);
}

void trigger_begin(struct record *r)
{
	if (!r->start.flight_ns)
		return;
	/* The first call tells the kernel that requests are taken. */
	r->listening = true;
	trigger_take_one(r, !r->start.args.latency_ns);
}

bool trigger_armed(const struct record *r)
{
	return r->listening;
}

/* The duration of the firing's snapshot taken @now: D and the time since the firing. */
static uint64_t since_fired(const struct record *r, double now)
{
	double since = now > fired_at(r) ? now - fired_at(r) : 0;

	return (uint64_t)r->start.flight_ns + (uint64_t)(since * 1e9);
}

void trigger_step(struct record *r, bool pri)
{
	double now = now_seconds();

	if (r->done)
		return;
	if (pri)
		trigger_take_one(r, r->trig != TRIG_ARMED);
	if (r->trig == TRIG_REST && now >= fired_at(r) + r->every_ns / 1e9)
		trigger_arm(r);
	/* Another snapshot being read goes first; this one follows it. */
	if (r->trig == TRIG_AFTER && !r->in_snap && now >= fired_at(r) + r->after_ns / 1e9) {
		flight_snapshot(r, since_fired(r, now), r->triggers);
		r->trig = TRIG_REST;
	}
}

double trigger_wait(const struct record *r, double now)
{
	if (r->trig == TRIG_AFTER && !r->in_snap)
		return fired_at(r) + r->after_ns / 1e9 - now;
	if (r->trig == TRIG_REST)
		return fired_at(r) + r->every_ns / 1e9 - now;
	return NO_STEP;
}

unsigned int trigger_pending(struct record *r, uint64_t *duration_ns)
{
	*duration_ns = (uint64_t)r->start.flight_ns;
	if (r->trig != TRIG_AFTER)
		return 0;
	*duration_ns = since_fired(r, now_seconds());
	r->trig = TRIG_OFF;
	return r->triggers;
}
