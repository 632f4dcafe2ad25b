/* SPDX-License-Identifier: GPL-2.0 */
/* Go's pre-1.22 trace wire format: event types and their encoders (encode.c). */
#ifndef _GOTRACE_ENCODE_H
#define _GOTRACE_ENCODE_H

#include <linux/build_bug.h>
#include <linux/minmax.h>
#include <linux/types.h>

/* Largest single event we write, a batch header included. */
#define GOTRACE_EV_MAX		64

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

/* Longest string a String record carries. */
#define GOTRACE_STRING_MAX	255

/*
 * Wire format (Go's runtime/trace.go before 1.22): an event is one byte
 * (type in the low 6 bits, number of arguments after the time stamp in the
 * top 2 bits, 3 meaning "length-prefixed"), then unsigned LEB128 values: the
 * time stamp as a delta from the previous event of the batch, then the
 * arguments, a stack id last for events that carry one.
 */
#define GOTRACE_ARGS_SHIFT	6
#define GOTRACE_ARGS_LEN	3	/* a length, then the body */

/*
 * A length-prefixed event's length is written after its body, into room
 * kept for it: an unsigned LEB128 varint padded to GOTRACE_LEN_1 or
 * GOTRACE_LEN_2 bytes (Go reads a varint's redundant high groups), so bodies
 * must be shorter than 128 or 16384 bytes.
 */
#define GOTRACE_LEN_1		1
#define GOTRACE_LEN_2		2
#define GOTRACE_LEN_LIMIT(w)	(1U << (7 * (w)))

/**
 * gotrace_put_uvarint - write @v as an unsigned LEB128 varint
 * @p: destination, room for 10 bytes
 * @v: value
 *
 * Return: one past the last byte written.
 */
static __always_inline u8 *gotrace_put_uvarint(u8 *p, u64 v)
{
	while (v >= 0x80) {
		*p++ = (u8)v | 0x80;
		v >>= 7;
	}
	*p++ = (u8)v;
	return p;
}

/**
 * gotrace_put_args - write an event's arguments, unsigned LEB128 each
 * @p: where
 * @nargs: how many
 * @args: the arguments
 *
 * Unrolled for the first four, so that a call site's constant @nargs keeps
 * them in registers (the formats' events on the probes' path have at most
 * four).
 *
 * Return: one past the last byte written.
 */
static __always_inline u8 *gotrace_put_args(u8 *p, unsigned int nargs,
					    const u64 *args)
{
	unsigned int i;

	if (nargs > 0)
		p = gotrace_put_uvarint(p, args[0]);
	if (nargs > 1)
		p = gotrace_put_uvarint(p, args[1]);
	if (nargs > 2)
		p = gotrace_put_uvarint(p, args[2]);
	if (nargs > 3)
		p = gotrace_put_uvarint(p, args[3]);
	for (i = 4; i < nargs; i++)
		p = gotrace_put_uvarint(p, args[i]);
	return p;
}

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

/**
 * gotrace_put_len - end a length-prefixed event: write its body's length
 * @lenp: from gotrace_put_len_start()
 * @end: one past the body's last byte
 * @width: as given to gotrace_put_len_start()
 *
 * The caller's bound on the body, checked at build time where it can be,
 * keeps it below GOTRACE_LEN_LIMIT(@width).
 */
static __always_inline void gotrace_put_len(u8 *lenp, const u8 *end,
					    unsigned int width)
{
	size_t len = end - (lenp + width);

	if (width == GOTRACE_LEN_2) {
		lenp[0] = (len & 0x7f) | 0x80;
		lenp[1] = len >> 7;
	} else {
		lenp[0] = len;
	}
}

/* Footer records (encode.c). */
u8 *gotrace_put_string(u8 *p, u64 id, const char *str, bool v2);
/* A frame of a Stack event: four varints of at most 10, 10, 10 and 1 bytes. */
#define GOTRACE_FRAME_MAX	31
u8 *gotrace_put_frame(u8 *p, u64 pc, u64 func, u64 file);
/* A Stack event's body before its frames: id and frame count varints. */
#define GOTRACE_STACK_HEAD_MAX	(5 + 5)

#endif /* _GOTRACE_ENCODE_H */
