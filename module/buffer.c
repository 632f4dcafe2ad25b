// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace per-CPU trace buffers: a single-writer, single-reader ring of chunks.
 *
 * The writer (its CPU's probes) fills the chunk at slot head % nr_chunks and
 * commits it by advancing head; the reader copies committed chunks out and
 * frees them by advancing tail. A chunk is committed only when the next slot
 * is free, so the chunk being filled always keeps GOTRACE_RESERVE bytes for
 * the events that close the trace, even when the reader has stalled.
 *
 * The reader is woken once a quarter of the ring waits for it, not at every
 * chunk: a wakeup costs the traced machine a context switch, a read() and
 * the reader's own events. A blocked read() returns what is committed after
 * GOTRACE_READ_LATENCY anyway (read.c).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/irq_work.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "buffer.h"
#include "encode.h"
#include "gfp.h"

/**
 * gotrace_buf_alloc - allocate one CPU's ring
 * @c: the CPU's buffer, zeroed
 * @cpu: the CPU
 * @size: bytes, a multiple of GOTRACE_CHUNK_SIZE, at least two chunks
 *
 * Return: 0 or -ENOMEM.
 */
int gotrace_buf_alloc(struct gotrace_cpu *c, int cpu, u64 size)
{
	c->nr_chunks = size / GOTRACE_CHUNK_SIZE;
	c->wake_at = max(c->nr_chunks / GOTRACE_WAKE_DIV, 1U);
	c->cpu = cpu;
	c->mem = kvmalloc_node(size, GOTRACE_GFP, cpu_to_node(cpu));
	if (!c->mem)
		return -ENOMEM;
	c->lens = kvcalloc(c->nr_chunks, sizeof(*c->lens), GOTRACE_GFP);
	if (!c->lens) {
		kvfree(c->mem);
		c->mem = NULL;
		return -ENOMEM;
	}
	return 0;
}

/**
 * gotrace_buf_free - free one CPU's ring; freeing it again does nothing
 * @c: the CPU's buffer; no writer, reader or irq_work may still use it
 */
void gotrace_buf_free(struct gotrace_cpu *c)
{
	kvfree(c->lens);
	c->lens = NULL;
	kvfree(c->mem);
	c->mem = NULL;
}

static u8 *gotrace_buf_chunk(struct gotrace_cpu *c, u32 idx)
{
	return c->mem + (size_t)(idx % c->nr_chunks) * GOTRACE_CHUNK_SIZE;
}

static void gotrace_buf_commit(struct gotrace_cpu *c)
{
	c->lens[c->head % c->nr_chunks] = c->pos;
	/* gotrace_buf_bytes() reads @bytes and @pos as a pair. */
	raw_write_seqcount_begin(&c->bytes_seq);
	c->bytes += c->pos;
	WRITE_ONCE(c->pos, 0);
	raw_write_seqcount_end(&c->bytes_seq);
	/* Pairs with the acquire in gotrace_buf_peek(): bytes and length first. */
	smp_store_release(&c->head, c->head + 1);
}

static void gotrace_buf_batch(struct gotrace_cpu *c, u64 ts)
{
	u8 *p;

	c->chunk = gotrace_buf_chunk(c, c->head);
	p = gotrace_put_batch(c->chunk, c->cpu, ts);
	WRITE_ONCE(c->pos, p - c->chunk);
	c->last_ts = ts;
}

/**
 * gotrace_buf_reserve_slow - gotrace_buf_reserve() at a chunk's end or start
 * @c: this CPU's buffer (interrupts off, or no probe can run)
 * @ts: the event's time stamp, the new batch's
 * @need: bytes wanted; with a batch header before them, less than @limit
 * @limit: where they must end in a chunk
 *
 * Commits the chunk being filled if @need bytes do not fit in it before
 * @limit, and starts a batch in the next one.
 *
 * Return: as gotrace_buf_reserve().
 */
u8 *gotrace_buf_reserve_slow(struct gotrace_cpu *c, u64 ts, size_t need,
			     size_t limit)
{
	if (c->pos && c->pos + need > limit) {
		/* Pairs with the release in gotrace_buf_release(): slot is free. */
		u32 tail = smp_load_acquire(&c->tail);

		if (c->head + 1 - tail >= c->nr_chunks)
			return NULL;
		gotrace_buf_commit(c);
		if (c->head - tail >= c->wake_at)
			irq_work_queue(&c->wake);
	}
	if (!c->pos)
		gotrace_buf_batch(c, ts);
	return c->chunk + c->pos;
}

/**
 * gotrace_buf_flush - commit the partly filled chunk at the end of a trace
 * @c: the CPU's buffer; no probe may run anymore
 */
void gotrace_buf_flush(struct gotrace_cpu *c)
{
	if (c->pos)
		gotrace_buf_commit(c);
}

/**
 * gotrace_buf_peek - the oldest committed chunk not yet consumed
 * @c: the CPU's buffer
 * @len: its length
 *
 * Return: the chunk, or NULL if none is committed.
 */
const u8 *gotrace_buf_peek(struct gotrace_cpu *c, u32 *len)
{
	/* Pairs with the release in gotrace_buf_commit(). */
	u32 head = smp_load_acquire(&c->head);

	if (c->tail == head)
		return NULL;
	*len = c->lens[c->tail % c->nr_chunks];
	return gotrace_buf_chunk(c, c->tail);
}

/**
 * gotrace_buf_release - hand the chunk from gotrace_buf_peek() back
 * @c: the CPU's buffer
 */
void gotrace_buf_release(struct gotrace_cpu *c)
{
	/* Pairs with the acquire in gotrace_buf_reserve(): copy done first. */
	smp_store_release(&c->tail, c->tail + 1);
}

/**
 * gotrace_buf_bytes - bytes written: the committed chunks and the current one
 * @c: the CPU's buffer, which its writer may be filling
 *
 * The writer keeps only @pos up to date per event; a commit moves it into
 * @bytes inside @bytes_seq's write section, so the sum never goes back.
 *
 * Return: @bytes + @pos, the two read as one value.
 */
u64 gotrace_buf_bytes(struct gotrace_cpu *c)
{
	unsigned int seq;
	u64 bytes;
	u32 pos;

	do {
		seq = raw_read_seqcount_begin(&c->bytes_seq);
		bytes = c->bytes;
		pos = READ_ONCE(c->pos);
	} while (read_seqcount_retry(&c->bytes_seq, seq));
	return bytes + pos;
}

/**
 * gotrace_buf_full - chunks committed and waiting for the reader
 * @c: the CPU's buffer
 *
 * Return: the number of chunks committed and not yet released by the reader
 * (@head - @tail); 0 if there are none.
 */
u32 gotrace_buf_full(struct gotrace_cpu *c)
{
	return READ_ONCE(c->head) - READ_ONCE(c->tail);
}
