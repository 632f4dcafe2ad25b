/* SPDX-License-Identifier: GPL-2.0 */
/* Trace buffers: rings of chunks, each chunk one Go batch (buffer.c). */
#ifndef _GOTRACE_BUFFER_H
#define _GOTRACE_BUFFER_H

#include <linux/compiler.h>
#include <linux/irq_work.h>
#include <linux/seqlock.h>
#include <linux/sizes.h>
#include <linux/types.h>
#include <linux/wait.h>
#include "encode_oldtrace.h"
#include "encode_tracev2.h"

/* Trace buffers are cut into chunks; a chunk holds one Go batch. */
#define GOTRACE_CHUNK_SIZE	PAGE_SIZE
#define GOTRACE_BUF_MIN		SZ_16K
#define GOTRACE_BUF_MAX		SZ_1G
/* The reader is woken when 1/GOTRACE_WAKE_DIV of a ring waits for it. */
#define GOTRACE_WAKE_DIV	4

/*
 * Bytes every chunk keeps free for the two events that close the trace
 * (GoSched and ProcStop), each at most GOTRACE_CLOSE_MAX bytes.
 */
#define GOTRACE_CLOSE_MAX	24
#define GOTRACE_RESERVE		(2 * GOTRACE_CLOSE_MAX)

/**
 * struct gotrace_ring - a trace buffer: a single-writer, single-reader ring of chunks
 * @mem:	nr_chunks chunks of GOTRACE_CHUNK_SIZE bytes (kvmalloc).
 * @lens:	committed length of each chunk.
 * @nr_chunks:	ring size.
 * @wake_at:	committed chunks waiting for the reader that wake it.
 * @head:	chunks committed. Written by the writer (release), read by
 *		the reader (acquire).
 * @tail:	chunks consumed. Written by the reader (release), read by the
 *		writer (acquire).
 * @chunk:	the chunk being filled (slot head % nr_chunks), once @pos.
 * @pos:	bytes used in it; 0 before its batch header is written.
 * @last_ts:	time stamp of the last event written in that chunk.
 * @pid:	the P (the M, in formats 1.22 and later) its batch headers name.
 * @gen:	formats 1.22 and later: the generation of the batch being
 *		filled, and of the next one; 0 for the older formats.
 * @len_off:	formats 1.22 and later: where the batch's length goes.
 * @gen_chunks:	chunks committed in the current generation.
 * @gen_limit:	formats 1.22 and later: at this many, @gen_kick is queued
 *		to start the next generation; 0 for the older formats.
 * @gen_kick:	the owner's request for a new generation.
 * @events:	Go events written.
 * @bytes:	bytes of the committed chunks (the one being filled has @pos
 *		more); written with @pos in @bytes_seq's write section.
 * @bytes_seq:	makes @bytes and @pos one value for gotrace_buf_bytes().
 * @wake:	wakes the reader from outside the writer's context (the
 *		scheduler's locks, for a probe).
 * @wq:		where the reader waits, the owner's.
 * @overwrite:	a flight recorder's ring (formats 1.22 and later): when it
 *		is full the writer drops its oldest chunk instead of failing,
 *		and moves @tail itself; nobody releases chunks.
 * @dropped_gen: with @overwrite, the generation of the last chunk dropped,
 *		0 for none. Written before @tail (release).
 * @dropped:	with @overwrite, chunks dropped.
 *
 * Every field but @tail is owned by the writer: the owning CPU's probes
 * with interrupts off, or the controller while no probe can run. @tail is
 * the reader's, or with @overwrite the writer's too: a snapshot only reads
 * it (gotrace_buf_snap_chunk()).
 */
struct gotrace_ring {
	u8 *mem;
	u32 *lens;
	u32 nr_chunks;
	u32 wake_at;
	u32 head;
	u32 tail;
	u32 pos;
	u8 *chunk;
	u64 last_ts;
	u32 pid;
	u32 gen;
	u32 len_off;
	u32 gen_chunks;
	u32 gen_limit;
	struct irq_work *gen_kick;
	u64 events;
	u64 bytes;
	seqcount_t bytes_seq;
	struct irq_work wake;
	wait_queue_head_t *wq;
	bool overwrite;
	u32 dropped_gen;
	u64 dropped;
};

int gotrace_buf_alloc(struct gotrace_ring *r, int cpu, u64 size,
		      wait_queue_head_t *wq);
void gotrace_buf_free(struct gotrace_ring *r);
void gotrace_buf_set_overwrite(struct gotrace_ring *r);
u8 *gotrace_buf_reserve_slow(struct gotrace_ring *r, u64 ts, size_t need,
			     size_t limit);
void gotrace_buf_flush(struct gotrace_ring *r);
bool gotrace_buf_new_gen(struct gotrace_ring *r, u32 gen);
const u8 *gotrace_buf_peek(struct gotrace_ring *r, u32 *len);
void gotrace_buf_release(struct gotrace_ring *r);
u32 gotrace_buf_full(struct gotrace_ring *r);
u64 gotrace_buf_bytes(struct gotrace_ring *r);
bool gotrace_buf_snap_head(struct gotrace_ring *r, u32 idx, u32 *gen, u64 *ts);
bool gotrace_buf_snap_chunk(struct gotrace_ring *dst, struct gotrace_ring *r,
			    u32 idx);
void gotrace_buf_snap_trim(struct gotrace_ring *r, u32 gen);

/**
 * gotrace_buf_reserve - room for @n events at one time stamp
 * @r: this CPU's ring (interrupts off, or no probe can run)
 * @ts: the events' time stamp in trace ticks; raised to the batch's last
 *	one if earlier; starts a new batch there if needed
 * @n: number of events
 * @closing: they close the trace: at most GOTRACE_CLOSE_MAX bytes each,
 *	     which may come from the reserve. Otherwise GOTRACE_EV_MAX each.
 * @p: set to where to write them with gotrace_put_event(), the first with
 *     the delta @ts - @r->last_ts and the others with 0, before calling
 *     gotrace_buf_advance()
 *
 * For a transition written as several events, which the trace must hold
 * all or none of: they all fit in the chunk being filled. The common case,
 * room there, is inline: it is on every event's path, and returns true
 * without a test of @p (see gotrace_thread_find()).
 *
 * Return: false when the ring is full (every chunk is waiting for the
 * reader).
 */
static __always_inline bool gotrace_buf_reserve(struct gotrace_ring *r,
						u64 *ts, unsigned int n,
						bool closing, u8 **p)
{
	size_t need = n * (closing ? GOTRACE_CLOSE_MAX : GOTRACE_EV_MAX);
	size_t limit = GOTRACE_CHUNK_SIZE - (closing ? 0 : GOTRACE_RESERVE);

	if (*ts < r->last_ts)
		*ts = r->last_ts;
	if (likely(r->pos && r->pos + need <= limit)) {
		*p = r->chunk + r->pos;
		return true;
	}
	*p = gotrace_buf_reserve_slow(r, *ts, need, limit);
	return *p;
}

/**
 * gotrace_buf_advance - account the events written after gotrace_buf_reserve()
 * @r: this CPU's ring
 * @end: one past the last byte written
 * @ts: their time stamp, as gotrace_buf_reserve() left it
 * @n: how many
 */
static __always_inline void gotrace_buf_advance(struct gotrace_ring *r, u8 *end,
						u64 ts, unsigned int n)
{
	r->events += n;
	WRITE_ONCE(r->pos, end - r->chunk);
	r->last_ts = ts;
}

/**
 * gotrace_emit - append one event to a CPU's current batch
 * @r: the CPU's ring (interrupts off, or no probe can run)
 * @ts: time stamp in trace ticks; raised to the batch's last one if earlier
 * @type: event type
 * @nargs: number of @args (a stack id, when the event has one, included)
 * @args: arguments after the time stamp
 * @closing: the event closes the trace (see gotrace_buf_reserve())
 *
 * Return: false if the buffer is full and nothing was written.
 */
static __always_inline bool gotrace_emit(struct gotrace_ring *r, u64 ts,
					 enum gotrace_ev type,
					 unsigned int nargs, const u64 *args,
					 bool closing)
{
	u8 *p;

	if (unlikely(!gotrace_buf_reserve(r, &ts, 1, closing, &p)))
		return false;
	p = gotrace_put_event(p, type, ts - r->last_ts, nargs, args);
	gotrace_buf_advance(r, p, ts, 1);
	return true;
}

/**
 * gotrace_emit2 - gotrace_emit() for a ring with generations (encode_tracev2.h)
 * @r: the CPU's ring (interrupts off, or no probe can run)
 * @ts: time stamp in trace ticks; raised to the batch's last one if earlier
 * @type: event type
 * @nargs: number of @args
 * @args: arguments after the time stamp
 *
 * Return: false if the buffer is full and nothing was written.
 */
static __always_inline bool gotrace_emit2(struct gotrace_ring *r, u64 ts,
					  enum gotrace2_ev type,
					  unsigned int nargs, const u64 *args)
{
	u8 *p;

	if (unlikely(!gotrace_buf_reserve(r, &ts, 1, false, &p)))
		return false;
	p = gotrace2_put_event(p, type, ts - r->last_ts, nargs, args);
	gotrace_buf_advance(r, p, ts, 1);
	return true;
}

#endif /* _GOTRACE_BUFFER_H */
