/* SPDX-License-Identifier: GPL-2.0 */
/* Go's trace format before 1.22 (Go's internal/trace/internal/oldtrace): event types, encoders. */
#ifndef _GOTRACE_ENCODE_OLDTRACE_H
#define _GOTRACE_ENCODE_OLDTRACE_H

#include <linux/build_bug.h>
#include <linux/minmax.h>
#include <linux/types.h>
#include "encode.h"

/* Go execution tracer event types (runtime/trace.go, pre-1.22). */
enum gotrace_ev {
	GO_EV_BATCH		= 1,
	GO_EV_FREQUENCY		= 2,
	GO_EV_STACK		= 3,
	GO_EV_GOMAXPROCS	= 4,
	GO_EV_PROC_START	= 5,
	GO_EV_PROC_STOP		= 6,
	GO_EV_GO_CREATE		= 13,
	GO_EV_GO_START		= 14,
	GO_EV_GO_END		= 15,
	GO_EV_GO_SCHED		= 17,
	GO_EV_GO_PREEMPT	= 18,
	GO_EV_GO_SLEEP		= 19,
	GO_EV_GO_BLOCK		= 20,
	GO_EV_GO_UNBLOCK	= 21,
	GO_EV_GO_BLOCK_SYNC	= 25,
	GO_EV_GO_BLOCK_NET	= 27,
	GO_EV_GO_SYSCALL	= 28,
	GO_EV_GO_SYSEXIT	= 29,
	GO_EV_GO_SYSBLOCK	= 30,
	GO_EV_GO_WAITING	= 31,
	GO_EV_STRING		= 37,
	GO_EV_GO_START_LOCAL	= 38,
	GO_EV_GO_UNBLOCK_LOCAL	= 39,
	GO_EV_CPU_SAMPLE	= 49,	/* Go 1.19 */
};

/*
 * Wire format (Go's runtime/trace.go before 1.22): an event is one byte
 * (type in the low 6 bits, number of arguments after the time stamp in the
 * top 2 bits, 3 meaning "length-prefixed"), then unsigned LEB128 values: the
 * time stamp as a delta from the previous event of the batch, then the
 * arguments, a stack id last for events that carry one.
 */
#define GOTRACE_ARGS_SHIFT	6
#define GOTRACE_ARGS_LEN	3	/* a length, then the body */

/**
 * gotrace_put_event - write one event
 * @p: where, from gotrace_buf_reserve()
 * @type: event type
 * @dt: time stamp delta from the batch's previous event
 * @nargs: number of @args (a stack id, when the event has one, included)
 * @args: arguments after the time stamp
 *
 * Inline, so that each call site writes its event with a constant number
 * of arguments, which then stay in registers: it is on every event's path.
 *
 * Return: one past the last byte written.
 */
static __always_inline u8 *gotrace_put_event(u8 *p, enum gotrace_ev type,
					     u64 dt, unsigned int nargs,
					     const u64 *args)
{
	u8 *lenp = p + 1, *body;

	/* No event is longer than GOTRACE_EV_MAX: a one-byte length fits. */
	BUILD_BUG_ON(GOTRACE_LEN_LIMIT(GOTRACE_LEN_1) < GOTRACE_EV_MAX);
	*p++ = type | min(nargs, GOTRACE_ARGS_LEN) << GOTRACE_ARGS_SHIFT;
	if (nargs >= GOTRACE_ARGS_LEN)
		p += GOTRACE_LEN_1;
	body = p;
	p = gotrace_put_uvarint(p, dt);
	p = gotrace_put_args(p, nargs, args);
	if (nargs >= GOTRACE_ARGS_LEN)
		*lenp = p - body;
	return p;
}

/**
 * gotrace_put_batch - write a batch header: the events after it are @pid's
 * @p: where, at least 21 bytes
 * @pid: the P, or 0 for the footer's batch
 * @ts: time stamp the batch's first event's delta is taken from
 *
 * Return: one past the last byte written.
 */
static __always_inline u8 *gotrace_put_batch(u8 *p, u64 pid, u64 ts)
{
	*p++ = GO_EV_BATCH | 1 << GOTRACE_ARGS_SHIFT;
	p = gotrace_put_uvarint(p, pid);
	return gotrace_put_uvarint(p, ts);
}

/**
 * gotrace_put_len_start - start a length-prefixed event
 * @p: where
 * @type: event type
 * @width: bytes of its length, GOTRACE_LEN_1 or GOTRACE_LEN_2
 * @lenp: set to where the length goes, for gotrace_put_len()
 *
 * Return: where the body starts.
 */
static __always_inline u8 *gotrace_put_len_start(u8 *p, enum gotrace_ev type,
						 unsigned int width, u8 **lenp)
{
	*p++ = type | GOTRACE_ARGS_LEN << GOTRACE_ARGS_SHIFT;
	*lenp = p;
	return p + width;
}

#endif /* _GOTRACE_ENCODE_OLDTRACE_H */
