// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace record --flight D --trigger-latency L: the latency trigger armed
 * without waiting (GOTRACE_TRIGGER_NOWAIT); poll() says POLLPRI when it fires.
 * The firing is taken and told, recording goes on for --after, and then a
 * snapshot of D plus the time since the firing is written as the next file,
 * so that it holds D before the stall and what came after. The trigger is
 * re-armed --trigger-every after the firing (and not before its snapshot):
 * in between nothing fires.
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

/* Arms the trigger, or takes the firing that happened since it was armed. */
static void trigger_arm(struct record *r)
{
	struct gotrace_trigger t;
	char what[128];
	int err = trigger_take(r->ctl_fd, GOTRACE_TRIGGER_NOWAIT, &t);

	if (err == EAGAIN) {
		r->trig = TRIG_ARMED;
		return;
	}
	if (err) {
		r->trig = TRIG_OFF;
		if (err != EINVAL) {	/* EINVAL: stopped by someone else, read() says */
			trigger_explain(CMD, err);
			progress_note(r, "the trigger is off; recording goes on");
		}
		return;
	}
	r->fired = t;
	r->triggers++;
	r->trig = TRIG_AFTER;
	trigger_describe(&t, what, sizeof(what));
	progress_note(r, "trigger %u: %s", r->triggers, what);
}

void trigger_begin(struct record *r)
{
	if (r->start.args.latency_ns)
		trigger_arm(r);
}

bool trigger_armed(const struct record *r)
{
	return r->trig == TRIG_ARMED;
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
	if ((r->trig == TRIG_ARMED && pri) ||
	    (r->trig == TRIG_REST && now >= fired_at(r) + r->every_ns / 1e9))
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
