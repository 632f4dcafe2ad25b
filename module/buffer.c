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
 * GOTRACE_READ_LATENCY anyway (read.c). The wakeup goes through an irq_work,
 * never from the writer's context, to whatever wait queue the ring's owner
 * gave it. The ring knows nothing of the scheduler: the P's state around it
 * is struct gotrace_cpu's (cpu.h).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/irq_work.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "buffer.h"
#include "compat.h"
#include "encode_oldtrace.h"
#include "encode_tracev2.h"
#include "gfp.h"

static void gotrace_buf_wake(struct irq_work *work)
{
	struct gotrace_ring *r = container_of(work, struct gotrace_ring, wake);

	wake_up_interruptible(r->wq);
}

/**
 * gotrace_buf_alloc - allocate one CPU's ring
 * @r: the ring, zeroed
 * @cpu: the CPU, whose memory node it takes and whose P its batches name
 * @size: bytes, a multiple of GOTRACE_CHUNK_SIZE, at least two chunks
 * @wq: where its reader waits
 *
 * Return: 0 or -ENOMEM.
 */
int gotrace_buf_alloc(struct gotrace_ring *r, int cpu, u64 size,
		      wait_queue_head_t *wq)
{
	init_irq_work(&r->wake, gotrace_buf_wake);
	seqcount_init(&r->bytes_seq);
	r->wq = wq;
	r->nr_chunks = size / GOTRACE_CHUNK_SIZE;
	r->wake_at = max(r->nr_chunks / GOTRACE_WAKE_DIV, 1U);
	r->pid = cpu;
	r->mem = kvmalloc_node(size, GOTRACE_GFP, cpu_to_node(cpu));
	if (!r->mem)
		return -ENOMEM;
	r->lens = kvcalloc(r->nr_chunks, sizeof(*r->lens), GOTRACE_GFP);
	if (!r->lens) {
		kvfree(r->mem);
		r->mem = NULL;
		return -ENOMEM;
	}
	return 0;
}

/**
 * gotrace_buf_free - free one CPU's ring; freeing it again does nothing
 * @r: the ring; no writer, reader or irq_work may still use it
 */
void gotrace_buf_free(struct gotrace_ring *r)
{
	kvfree(r->lens);
	r->lens = NULL;
	kvfree(r->mem);
	r->mem = NULL;
}

static u8 *gotrace_buf_chunk(struct gotrace_ring *r, u32 idx)
{
	return r->mem + (size_t)(idx % r->nr_chunks) * GOTRACE_CHUNK_SIZE;
}

/**
 * gotrace_buf_set_overwrite - make a new ring a flight recorder's
 * @r: the ring, allocated, before any probe writes into it
 *
 * When it is full, its writer drops the oldest chunk instead of failing;
 * nobody reads it but snapshots, so nobody is woken.
 */
void gotrace_buf_set_overwrite(struct gotrace_ring *r)
{
	r->overwrite = true;
	r->wake_at = U32_MAX;
}

static void gotrace_buf_commit(struct gotrace_ring *r)
{
	/* A batch with generations says its length (tracev2's header). */
	if (r->gen)
		gotrace_put_len(r->chunk + r->len_off, r->chunk + r->pos,
				GOTRACE_LEN_2);
	r->lens[r->head % r->nr_chunks] = r->pos;
	/* gotrace_buf_bytes() reads @bytes and @pos as a pair. */
	raw_write_seqcount_begin(&r->bytes_seq);
	r->bytes += r->pos;
	WRITE_ONCE(r->pos, 0);
	raw_write_seqcount_end(&r->bytes_seq);
	/* Pairs with the acquire in gotrace_buf_peek(): bytes and length first. */
	smp_store_release(&r->head, r->head + 1);
}

static void gotrace_buf_batch(struct gotrace_ring *r, u64 ts)
{
	u8 *p, *lenp;

	/* A chunk's batch is shorter than its length field can say. */
	BUILD_BUG_ON(GOTRACE_LEN_LIMIT(GOTRACE_LEN_2) < GOTRACE_CHUNK_SIZE);
	r->chunk = gotrace_buf_chunk(r, r->head);
	/* Each format's batch header. */
	if (r->gen) {
		p = gotrace2_put_batch(r->chunk, r->gen, r->pid, ts, &lenp);
		r->len_off = lenp - r->chunk;
	} else {
		p = gotrace_put_batch(r->chunk, r->pid, ts);
	}
	WRITE_ONCE(r->pos, p - r->chunk);
	r->last_ts = ts;
}

/*
 * An overwriting ring is full: drop its oldest chunk, whose slot the next
 * batch takes, and remember its generation for snapshots (flight.c).
 */
static void gotrace_buf_drop(struct gotrace_ring *r, u32 tail)
{
	WRITE_ONCE(r->dropped_gen, gotrace2_batch_gen(gotrace_buf_chunk(r, tail)));
	WRITE_ONCE(r->dropped, r->dropped + 1);
	/* Pairs with the acquire in gotrace_buf_snap_dropped(): gen first. */
	smp_store_release(&r->tail, tail + 1);
	/*
	 * Pairs with the smp_rmb() in gotrace_buf_snap_valid(): a snapshot
	 * that read any byte the next batch writes into the slot sees @tail
	 * moved past the chunk it copied.
	 */
	smp_wmb();
}

/*
 * Commit the chunk being filled if the next one is free (or, overwriting,
 * once the oldest is dropped); false if not.
 */
static bool gotrace_buf_next(struct gotrace_ring *r)
{
	/* Pairs with the release in gotrace_buf_release(): slot is free. */
	u32 tail = smp_load_acquire(&r->tail);

	if (r->head + 1 - tail >= r->nr_chunks) {
		if (!r->overwrite)
			return false;
		gotrace_buf_drop(r, tail++);
	}
	gotrace_buf_commit(r);
	if (r->head - tail >= r->wake_at)
		irq_work_queue(&r->wake);
	if (++r->gen_chunks == r->gen_limit)
		irq_work_queue(r->gen_kick);
	return true;
}

/**
 * gotrace_buf_reserve_slow - gotrace_buf_reserve() at a chunk's end or start
 * @r: this CPU's ring (interrupts off, or no probe can run)
 * @ts: the event's time stamp, the new batch's
 * @need: bytes wanted; with a batch header before them, less than @limit
 * @limit: where they must end in a chunk
 *
 * Commits the chunk being filled if @need bytes do not fit in it before
 * @limit, and starts a batch in the next one.
 *
 * Return: as gotrace_buf_reserve().
 */
u8 *gotrace_buf_reserve_slow(struct gotrace_ring *r, u64 ts, size_t need,
			     size_t limit)
{
	if (r->pos && r->pos + need > limit && !gotrace_buf_next(r))
		return NULL;
	if (!r->pos)
		gotrace_buf_batch(r, ts);
	return r->chunk + r->pos;
}

/**
 * gotrace_buf_flush - commit the partly filled chunk at the end of a trace
 * @r: the ring; no probe may run anymore
 */
void gotrace_buf_flush(struct gotrace_ring *r)
{
	if (r->pos)
		gotrace_buf_commit(r);
}

/**
 * gotrace_buf_new_gen - formats 1.22 and later: end the batch being filled;
 * the next one is of generation @gen
 * @r: this CPU's ring (interrupts off, or no probe can run on it)
 * @gen: the generation
 *
 * Return: false if no chunk is free for the next batch (the ring is full);
 * the ring is then as it was.
 */
bool gotrace_buf_new_gen(struct gotrace_ring *r, u32 gen)
{
	if (r->pos && !gotrace_buf_next(r))
		return false;
	r->gen = gen;
	r->gen_chunks = 0;
	return true;
}

/**
 * gotrace_buf_peek - the oldest committed chunk not yet consumed
 * @r: the ring
 * @len: its length
 *
 * Return: the chunk, or NULL if none is committed.
 */
const u8 *gotrace_buf_peek(struct gotrace_ring *r, u32 *len)
{
	/* Pairs with the release in gotrace_buf_commit(). */
	u32 head = smp_load_acquire(&r->head);

	if (r->tail == head)
		return NULL;
	*len = r->lens[r->tail % r->nr_chunks];
	return gotrace_buf_chunk(r, r->tail);
}

/**
 * gotrace_buf_release - hand the chunk from gotrace_buf_peek() back
 * @r: the ring
 */
void gotrace_buf_release(struct gotrace_ring *r)
{
	/* Pairs with the acquire in gotrace_buf_reserve_slow(): copy done first. */
	smp_store_release(&r->tail, r->tail + 1);
}

/**
 * gotrace_buf_bytes - bytes written: the committed chunks and the current one
 * @r: the ring, which its writer may be filling
 *
 * The writer keeps only @pos up to date per event; a commit moves it into
 * @bytes inside @bytes_seq's write section, so the sum never goes back.
 *
 * Return: @bytes + @pos, the two read as one value.
 */
u64 gotrace_buf_bytes(struct gotrace_ring *r)
{
	unsigned int seq;
	u64 bytes;
	u32 pos;

	do {
		seq = raw_read_seqcount_begin(&r->bytes_seq);
		bytes = r->bytes;
		pos = READ_ONCE(r->pos);
	} while (read_seqcount_retry(&r->bytes_seq, seq));
	return bytes + pos;
}

/**
 * gotrace_buf_full - chunks committed and waiting for the reader
 * @r: the ring
 *
 * Return: the number of chunks committed and not yet released by the reader
 * (@head - @tail); 0 if there are none.
 */
u32 gotrace_buf_full(struct gotrace_ring *r)
{
	return READ_ONCE(r->head) - READ_ONCE(r->tail);
}

/*
 * After a copy of chunk @idx of the overwriting ring @r: whether its writer
 * had not dropped it yet, so the copy is whole.
 */
static bool gotrace_buf_snap_valid(struct gotrace_ring *r, u32 idx)
{
	/* Pairs with the smp_wmb() in gotrace_buf_drop(): the copy first. */
	smp_rmb();
	return (s32)(idx - READ_ONCE(r->tail)) >= 0;
}

/**
 * gotrace_buf_snap_head - generation and time stamp of a committed chunk of
 * an overwriting ring that its writer may be dropping
 * @r: the ring
 * @idx: the chunk, between the tail and the head (read with acquire) that
 *	 the caller saw
 * @gen: set to the generation of its batch
 * @ts: set to the batch's time stamp
 *
 * Return: false if the writer dropped the chunk meanwhile (@gen and @ts
 * then mean nothing).
 */
bool gotrace_buf_snap_head(struct gotrace_ring *r, u32 idx, u32 *gen, u64 *ts)
{
	u8 head[GOTRACE2_BATCH_MAX];

	/* A copy that races with the writer, checked below as a seqcount's. */
	data_race(memcpy(head, gotrace_buf_chunk(r, idx), sizeof(head)));
	if (!gotrace_buf_snap_valid(r, idx))
		return false;
	*gen = gotrace2_batch_head(head, ts);
	return true;
}

/**
 * gotrace_buf_snap_chunk - append a copy of a committed chunk of an
 * overwriting ring to a snapshot's ring
 * @dst: the snapshot's ring, with a free chunk; nobody reads it yet
 * @r: the ring, whose writer may be dropping chunks meanwhile
 * @idx: the chunk, as for gotrace_buf_snap_head()
 *
 * Return: false if the writer dropped the chunk meanwhile: @dst is as it
 * was.
 */
bool gotrace_buf_snap_chunk(struct gotrace_ring *dst, struct gotrace_ring *r,
			    u32 idx)
{
	u32 len = min_t(u32, READ_ONCE(r->lens[idx % r->nr_chunks]),
			GOTRACE_CHUNK_SIZE);

	/* As in gotrace_buf_snap_head(). */
	data_race(memcpy(gotrace_buf_chunk(dst, dst->head),
			 gotrace_buf_chunk(r, idx), len));
	if (!gotrace_buf_snap_valid(r, idx))
		return false;
	dst->lens[dst->head % dst->nr_chunks] = len;
	dst->bytes += len;
	dst->head++;
	return true;
}

/**
 * gotrace_buf_snap_trim - drop a snapshot ring's chunks older than @gen
 * @r: the snapshot's ring; nobody reads it yet
 * @gen: its first generation
 */
void gotrace_buf_snap_trim(struct gotrace_ring *r, u32 gen)
{
	while (r->tail != r->head &&
	       gotrace2_batch_gen(gotrace_buf_chunk(r, r->tail)) < gen) {
		r->bytes -= r->lens[r->tail % r->nr_chunks];
		r->tail++;
	}
}
