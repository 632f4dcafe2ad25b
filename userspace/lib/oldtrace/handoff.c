// SPDX-License-Identifier: GPL-2.0
/*
 * gt_check_apart(): gt_check() on the calling thread, its sink on a thread
 * of its own, so that a sink with work of its own (split's encoding and
 * writing) runs beside the merge and the checks on a second core. Events
 * are handed over in blocks through a ring: memory is fixed, and the sink
 * sees the events gt_check() would give it, in the same order. The sink's
 * thread sleeps until half the ring is filled, then empties it, so that
 * sleeps and wakeups (system calls) are a few per thousands of events. The
 * ring (64 blocks of 512 events, 3.4 MB) lets either side run ahead of the
 * other for some 30,000 events: with 16 blocks the two threads waited for
 * each other so often that split of a 1 GiB trace took 17.9 s, not 13.5 s. A
 * sink that stops (a non-zero return) stops the checks at their next
 * event, and its return is the result, whatever the checks found after:
 * gt_check() would have returned it before checking further.
 */
#include <pthread.h>
#include <stdlib.h>

#include "internal.h"

#define BLOCK_EVENTS	512
#define RING_BLOCKS	64

struct block {
	struct gt_event evs[BLOCK_EVENTS];
	size_t n;
};

/* Blocks [tail, head) are the sink's, block head % RING_BLOCKS is being filled. */
struct handoff {
	const struct gt_trace *t;
	gt_sink_fn fn;
	void *ctx;
	struct block *ring;
	pthread_mutex_t lock;		/* protects head, tail, done, asleep */
	pthread_cond_t filled;		/* half the ring filled, or done */
	pthread_cond_t freed;		/* tail or ret changed */
	size_t head, tail;
	bool done;			/* no block after head */
	bool asleep;			/* the sink's thread waits on filled */
	int ret;			/* the sink's non-zero return (atomic) */
};

static int handoff_ret(struct handoff *h)
{
	return __atomic_load_n(&h->ret, __ATOMIC_RELAXED);
}

/* The sink on the blocks handed over, until none is left; with h->lock held. */
static void handoff_drain(struct handoff *h, int *ret)
{
	const struct block *b;
	size_t i;

	while (h->tail != h->head) {
		b = &h->ring[h->tail % RING_BLOCKS];
		pthread_mutex_unlock(&h->lock);
		for (i = 0; i < b->n && !*ret; i++)
			*ret = h->fn(h->ctx, h->t, &b->evs[i]);
		pthread_mutex_lock(&h->lock);
		if (*ret)
			__atomic_store_n(&h->ret, *ret, __ATOMIC_RELAXED);
		h->tail++;
		pthread_cond_signal(&h->freed);
	}
}

/* The sink's thread. */
static void *handoff_sink(void *arg)
{
	struct handoff *h = arg;
	int ret = 0;

	pthread_mutex_lock(&h->lock);
	for (;;) {
		handoff_drain(h, &ret);
		if (h->done)
			break;
		h->asleep = true;
		pthread_cond_wait(&h->filled, &h->lock);
		h->asleep = false;
	}
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

/* The block being filled goes to the sink; waits for room for the next one. */
static void handoff_publish(struct handoff *h, bool last)
{
	pthread_mutex_lock(&h->lock);
	h->head++;
	h->done = last;
	if (h->asleep && (last || h->head - h->tail >= RING_BLOCKS / 2))
		pthread_cond_signal(&h->filled);
	while (!last && h->head - h->tail == RING_BLOCKS && !handoff_ret(h))
		pthread_cond_wait(&h->freed, &h->lock);
	pthread_mutex_unlock(&h->lock);
	/* Free, or the sink stopped and reads no more; after the last, it may read it. */
	if (!last)
		h->ring[h->head % RING_BLOCKS].n = 0;
}

/* Where the merge puts its next event: the next place in the block being filled. */
static struct gt_event *handoff_slot(void *ctx)
{
	struct handoff *h = ctx;
	struct block *b = &h->ring[h->head % RING_BLOCKS];

	return &b->evs[b->n];
}

/* gt_check()'s sink on the calling thread: the event joins the block being filled. */
static int handoff_put(void *ctx, const struct gt_trace *t, const struct gt_event *ev)
{
	struct handoff *h = ctx;
	struct block *b = &h->ring[h->head % RING_BLOCKS];
	int ret = handoff_ret(h);

	(void)t;
	if (ret)
		return ret;
	if (ev != &b->evs[b->n])
		b->evs[b->n] = *ev;
	b->n++;
	if (b->n == BLOCK_EVENTS)
		handoff_publish(h, false);
	return 0;
}

int gt_check_apart(struct gt_trace *t, gt_sink_fn fn, void *ctx, struct gt_error *err)
{
	struct handoff h = { .t = t, .fn = fn, .ctx = ctx };
	pthread_t sink;
	int r;

	h.ring = calloc(RING_BLOCKS, sizeof(*h.ring));
	if (!h.ring)
		return gt_check(t, fn, ctx, err);
	pthread_mutex_init(&h.lock, NULL);
	pthread_cond_init(&h.filled, NULL);
	pthread_cond_init(&h.freed, NULL);
	if (pthread_create(&sink, NULL, handoff_sink, &h)) {
		r = gt_check(t, fn, ctx, err);
		goto out;
	}
	r = gt_check_slots(t, handoff_put, handoff_slot, &h, err);
	handoff_publish(&h, true);
	pthread_join(sink, NULL);
	if (h.ret)
		r = h.ret;
out:
	pthread_cond_destroy(&h.freed);
	pthread_cond_destroy(&h.filled);
	pthread_mutex_destroy(&h.lock);
	free(h.ring);
	return r;
}
