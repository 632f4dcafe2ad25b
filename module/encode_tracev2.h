/* SPDX-License-Identifier: GPL-2.0 */
/* Go's trace format since 1.22 (Go's internal/trace/tracev2): event types, encoders. */
#ifndef _GOTRACE_ENCODE_TRACEV2_H
#define _GOTRACE_ENCODE_TRACEV2_H

#include <linux/minmax.h>
#include <linux/types.h>
#include "encode.h"

/* Event types of Go's internal/trace/tracev2/events.go used here. */
enum gotrace2_ev {
	GO2_EV_EVENT_BATCH	= 1,
	GO2_EV_STACKS		= 2,
	GO2_EV_STACK		= 3,
	GO2_EV_STRINGS		= 4,
	GO2_EV_STRING		= 5,
	GO2_EV_CPU_SAMPLES	= 6,
	GO2_EV_CPU_SAMPLE	= 7,
	GO2_EV_FREQUENCY	= 8,
	GO2_EV_PROCS_CHANGE	= 9,
	GO2_EV_PROC_STATUS	= 13,
	GO2_EV_GO_CREATE	= 14,
	GO2_EV_GO_START		= 16,
	GO2_EV_GO_DESTROY	= 17,
	GO2_EV_GO_STOP		= 19,
	GO2_EV_GO_BLOCK		= 20,
	GO2_EV_GO_UNBLOCK	= 21,
	GO2_EV_GO_STATUS	= 25,
	GO2_EV_GO_STATUS_STACK	= 48,	/* Go 1.23 */
	GO2_EV_SYNC		= 50,	/* Go 1.25 */
	GO2_EV_CLOCK_SNAPSHOT	= 51,	/* Go 1.25 */
	GO2_EV_END_OF_GENERATION = 52,	/* Go 1.26 */
};

/* tracev2.GoStatus and tracev2.ProcStatus values. */
#define GO2_G_RUNNABLE		1
#define GO2_G_RUNNING		2
#define GO2_G_WAITING		4
#define GO2_P_RUNNING		1

/* The M of events not bound to a thread: Go's NoThread, -1. */
#define GO2_NO_THREAD		((u64)-1)

/*
 * A batch header: EventBatch, generation, M, time stamp, then the batch's
 * length in GOTRACE_LEN_2 bytes (a padded varint, written when the batch is
 * complete; Go limits batches to 64 KiB, a chunk is a page).
 */
#define GOTRACE2_BATCH_MAX	(1 + 10 + 10 + 10 + GOTRACE_LEN_2)

/**
 * gotrace2_put_event - write one event of the Go 1.22+ format
 * @p: where, from gotrace_buf_reserve()
 * @type: event type
 * @dt: time stamp delta from the batch's previous event
 * @nargs: number of @args
 * @args: arguments after the time stamp
 *
 * The type byte, then unsigned LEB128 values: no argument count, no length.
 * Inline for the same reason as gotrace_put_event() (encode_oldtrace.h).
 *
 * Return: one past the last byte written.
 */
static __always_inline u8 *gotrace2_put_event(u8 *p, enum gotrace2_ev type,
					      u64 dt, unsigned int nargs,
					      const u64 *args)
{
	*p++ = type;
	p = gotrace_put_uvarint(p, dt);
	return gotrace_put_args(p, nargs, args);
}

/**
 * gotrace2_put_batch - start a batch: its header, length to be written
 * @p: where, GOTRACE2_BATCH_MAX bytes
 * @gen: generation
 * @m: the M (here a CPU) whose events follow
 * @ts: time stamp the first event's delta is taken from
 * @lenp: set to where gotrace_put_len() writes the length of what follows
 *
 * Return: one past the header.
 */
static inline u8 *gotrace2_put_batch(u8 *p, u64 gen, u64 m, u64 ts, u8 **lenp)
{
	*p++ = GO2_EV_EVENT_BATCH;
	p = gotrace_put_uvarint(p, gen);
	p = gotrace_put_uvarint(p, m);
	p = gotrace_put_uvarint(p, ts);
	*lenp = p;
	return p + GOTRACE_LEN_2;
}

/* An unsigned LEB128 value of at most 10 bytes at *@p; moves *@p past it. */
static inline u64 gotrace2_get_uvarint(const u8 **p)
{
	unsigned int i;
	u64 v = 0;

	for (i = 0; i < 10; i++) {
		u8 b = (*p)[i];

		v |= (u64)(b & 0x7f) << (7 * i);
		if (!(b & 0x80))
			break;
	}
	*p += min(i + 1, 10U);
	return v;
}

/**
 * gotrace2_batch_head - the generation and time stamp of a batch
 * @p: GOTRACE2_BATCH_MAX bytes, a batch header that gotrace2_put_batch()
 *     wrote; other bytes give other numbers, but are never read past
 * @ts: set to its time stamp
 *
 * Return: its generation.
 */
static inline u64 gotrace2_batch_head(const u8 *p, u64 *ts)
{
	u64 gen;

	p++;
	gen = gotrace2_get_uvarint(&p);
	gotrace2_get_uvarint(&p);	/* the M */
	*ts = gotrace2_get_uvarint(&p);
	return gen;
}

/**
 * gotrace2_batch_gen - the generation of a batch, from its header
 * @p: a batch header that gotrace2_put_batch() wrote
 *
 * Return: its generation.
 */
static inline u64 gotrace2_batch_gen(const u8 *p)
{
	u64 ts;

	return gotrace2_batch_head(p, &ts);
}

#endif /* _GOTRACE_ENCODE_TRACEV2_H */
