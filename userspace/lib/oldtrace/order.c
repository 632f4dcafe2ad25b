// SPDX-License-Identifier: GPL-2.0
/*
 * The merge of per-P event streams into one, as Go's order1007() does it:
 * the frontier holds the first unmerged event of each P whose goroutine is
 * in the state the event needs (status and sequence number); the earliest
 * event of the frontier is merged next. If the frontier is empty while
 * events remain, no consistent order exists.
 *
 * Go rescans every P after each merged event. Here a P whose first event
 * is not ready waits on its goroutine's list, and only a change of that
 * goroutine's state looks at it again: the same frontier, without the
 * O(P) scan. The frontier is kept sorted as Go's is, events of equal time
 * in the places its stable sort keeps them, so ties come out in Go's
 * order. (Go sorts frontiers of over 12 events with an unstable sort; ties
 * there may differ.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

enum { G_DEAD, G_RUNNABLE, G_RUNNING, G_WAITING };

#define UNORDERED	(~0ULL)		/* event without ordering needs */
#define GARBAGE	(~0ULL - 1)	/* pseudo goroutine ordering GCStart */
#define NOSEQ		(~0ULL)		/* any sequence number */
#define SEQINC		(~0ULL - 1)	/* the current sequence number + 1 */

/* What an event needs of its goroutine and what it leaves (stateTransition). */
struct trans {
	uint64_t g;
	uint64_t init_seq, next_seq;
	uint32_t init, next;
};

struct gt_source {
	struct gt_cursor cur;
	struct gt_event *head;		/* one of evs */
	struct gt_event *next;		/* the other: read ahead, the head after this one */
	struct gt_event evs[2];
	bool has_next;
	struct trans tr;		/* the head's */
	struct gt_order_g *g;		/* the head's goroutine, NULL if unordered */
	/*
	 * The goroutine of its latest ordered head: a P's events are mostly
	 * its running goroutine's, found again without a lookup. Cleared
	 * when gt_merge_end() drops the record.
	 */
	struct gt_order_g *last_g;
	uint64_t last_g_id;
	bool has_head;
	uint32_t next_waiter;		/* next source waiting + 1, or 0 */
};

static const char *const status_names[] = { "dead", "runnable", "running", "waiting" };

/*
 * What @ev needs of its goroutine and leaves it, into @tr: written in place
 * (returned, the struct went through the stack, read back before its stores
 * had landed).
 */
static void transition_of(const struct gt_event *ev, struct trans *tr)
{
	const uint64_t *a = ev->args;

	switch (ev->type) {
	case GT_EV_GO_CREATE:
		*tr = (struct trans){ a[0], 0, 1, G_DEAD, G_RUNNABLE };
		return;
	case GT_EV_GO_WAITING:
	case GT_EV_GO_IN_SYSCALL:
		*tr = (struct trans){ ev->g, 1, 2, G_RUNNABLE, G_WAITING };
		return;
	case GT_EV_GO_START:
	case GT_EV_GO_START_LABEL:
		*tr = (struct trans){ ev->g, a[1], a[1] + 1, G_RUNNABLE, G_RUNNING };
		return;
	case GT_EV_GO_START_LOCAL:
		*tr = (struct trans){ ev->g, NOSEQ, SEQINC, G_RUNNABLE, G_RUNNING };
		return;
	case GT_EV_GO_SCHED:
	case GT_EV_GO_PREEMPT:
		*tr = (struct trans){ ev->g, NOSEQ, NOSEQ, G_RUNNING, G_RUNNABLE };
		return;
	case GT_EV_GO_UNBLOCK:
	case GT_EV_GO_SYSEXIT:
		*tr = (struct trans){ a[0], a[1], a[1] + 1, G_WAITING, G_RUNNABLE };
		return;
	case GT_EV_GO_UNBLOCK_LOCAL:
	case GT_EV_GO_SYSEXIT_LOCAL:
		*tr = (struct trans){ a[0], NOSEQ, SEQINC, G_WAITING, G_RUNNABLE };
		return;
	case GT_EV_GC_START:
		*tr = (struct trans){ GARBAGE, a[0], a[0] + 1, G_DEAD, G_DEAD };
		return;
	}
	if (gt_descs[ev->type].block) {
		*tr = (struct trans){ ev->g, NOSEQ, NOSEQ, G_RUNNING, G_WAITING };
		return;
	}
	*tr = (struct trans){ .g = UNORDERED };
}

static bool ready(const struct trans *tr, const struct gt_order_g *g)
{
	uint64_t seq = g ? g->seq : 0;
	uint32_t status = g ? g->status : G_DEAD;

	return tr->g == UNORDERED ||
	       ((tr->init_seq == NOSEQ || tr->init_seq == seq) && tr->init == status);
}

static bool before(const struct gt_event *a, const struct gt_event *b)
{
	return a->ts < b->ts;
}

/*
 * The frontier is Go's sorted frontier array reversed: its first event
 * last. Go takes its first event and moves its last to the front, where
 * its stable sort keeps it before every other event of the same time; an
 * event that becomes ready is appended, so after every event of its time.
 */
static int64_t front_ts(const struct gt_merge *m, size_t i)
{
	return m->src[m->front[i]].head->ts;
}

static uint32_t frontier_pop(struct gt_merge *m)
{
	uint32_t first = m->front[--m->nr_front], last = m->front[0];
	int64_t ts = m->src[last].head->ts;
	size_t i;

	if (!m->nr_front)
		return first;
	for (i = 0; i + 1 < m->nr_front && front_ts(m, i + 1) == ts; i++)
		m->front[i] = m->front[i + 1];
	m->front[i] = last;
	return first;
}

static void frontier_add(struct gt_merge *m, uint32_t s)
{
	int64_t ts = m->src[s].head->ts;
	size_t lo = 0, hi = m->nr_front, mid;

	/* The first event of the same time or earlier: @s goes before it. */
	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (front_ts(m, mid) <= ts)
			hi = mid;
		else
			lo = mid + 1;
	}
	/* With few Ps there is often nothing to move: no call then. */
	if (lo < m->nr_front)
		memmove(&m->front[lo + 1], &m->front[lo], (m->nr_front - lo) * sizeof(*m->front));
	m->front[lo] = s;
	m->nr_front++;
}

static int ready_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Events that became ready join the frontier in P order, as Go's scan. */
static void frontier_join(struct gt_merge *m)
{
	size_t i;

	if (m->nr_ready > 1)
		qsort(m->ready, m->nr_ready, sizeof(*m->ready), ready_cmp);
	for (i = 0; i < m->nr_ready; i++)
		frontier_add(m, m->ready[i]);
	m->nr_ready = 0;
}

/* The record of goroutine @id, made again (running, as it ended) if it ended. */
static struct gt_order_g *g_rec(struct gt_merge *m, uint64_t id)
{
	struct gt_order_g *g = gt_table_get(&m->gs, id);

	if (g)
		return g;
	g = gt_table_add(&m->gs, id);
	if (g && gt_idset_take(&m->ended, id)) {
		g->status = G_RUNNING;
		g->ended = true;
	}
	return g;
}

/* Puts source @s's head into the frontier, or on its goroutine's wait list. */
static int offer(struct gt_merge *m, uint32_t s, struct gt_error *err)
{
	struct gt_source *src = &m->src[s];
	struct gt_order_g *g = NULL;

	transition_of(src->head, &src->tr);
	if (src->tr.g != UNORDERED) {
		g = src->last_g && src->last_g_id == src->tr.g ? src->last_g : g_rec(m, src->tr.g);
		if (!g) {
			gt_fail(err, GT_ERR_ORDER, src->head->off, "out of memory while merging");
			return -1;
		}
		src->last_g = g;
		src->last_g_id = src->tr.g;
	}
	src->g = g;
	if (ready(&src->tr, g)) {
		m->ready[m->nr_ready++] = s;
		return 0;
	}
	src->next_waiter = g->waiters;
	g->waiters = s + 1;
	m->nr_waiting++;
	return 0;
}

/*
 * The source's next event becomes its head. The one after it is read now:
 * a GoCreate looks its goroutine up among the ended ones (in a set too
 * large for the cache) when it becomes the head, so the lookup is started
 * one event ahead. Traces that make and end many threads do that for
 * each of them.
 */
static int advance(struct gt_merge *m, uint32_t s, struct gt_error *err)
{
	struct gt_source *src = &m->src[s];
	struct gt_event *ev = src->head;

	src->has_head = src->has_next;
	if (!src->has_head)
		return 0;
	src->head = src->next;
	src->next = ev;
	src->has_next = gt_cursor_next(&src->cur, ev);
	if (src->has_next && ev->type == GT_EV_GO_CREATE)
		gt_idset_prefetch(&m->ended, ev->args[0]);
	return offer(m, s, err);
}

int gt_merge_init(struct gt_merge *m, const struct gt_trace *t, size_t g_size,
		  struct gt_error *err)
{
	size_t i;

	memset(m, 0, sizeof(*m));
	m->t = t;
	gt_table_init(&m->gs, g_size);
	gt_idset_init(&m->ended);
	m->nr_src = t->nr_procs + (t->nr_samples > 0);
	m->src = calloc(m->nr_src, sizeof(*m->src));
	m->front = calloc(m->nr_src, sizeof(*m->front));
	m->ready = calloc(m->nr_src, sizeof(*m->ready));
	if (!m->src || !m->front || !m->ready) {
		gt_fail(err, GT_ERR_ORDER, 0, "out of memory for %zu Ps", m->nr_src);
		return -1;
	}
	for (i = 0; i < m->nr_src; i++) {
		gt_cursor_init(&m->src[i].cur, t, i < t->nr_procs ? &t->procs[i] : NULL);
		m->src[i].head = &m->src[i].evs[0];
		m->src[i].next = &m->src[i].evs[1];
		m->src[i].has_next = gt_cursor_next(&m->src[i].cur, m->src[i].next);
		if (advance(m, (uint32_t)i, err))
			return -1;
	}
	frontier_join(m);
	return 0;
}

void gt_merge_free(struct gt_merge *m)
{
	free(m->src);
	free(m->front);
	free(m->ready);
	gt_table_free(&m->gs);
	gt_idset_free(&m->ended);
}

/* Gives the sources waiting for @g another look after its state changed. */
static int wake(struct gt_merge *m, struct gt_order_g *g, struct gt_error *err)
{
	uint32_t s = g->waiters, next;

	g->waiters = 0;
	for (; s; s = next) {
		next = m->src[s - 1].next_waiter;
		m->nr_waiting--;
		if (offer(m, s - 1, err))
			return -1;
	}
	return 0;
}

static const char *seq_str(uint64_t seq, char *buf, size_t size)
{
	if (seq == NOSEQ)
		return "any";
	snprintf(buf, size, "%llu", (unsigned long long)seq);
	return buf;
}

/* Explains why nothing can be merged, from the earliest waiting event. */
static int stuck(struct gt_merge *m, struct gt_error *err)
{
	const struct gt_event *ev = NULL;
	const struct gt_order_g *g;
	char want[24], have[64];
	struct trans tr;
	size_t i;

	for (i = 0; i < m->nr_src; i++)
		if (m->src[i].has_head && (!ev || before(m->src[i].head, ev)))
			ev = m->src[i].head;
	transition_of(ev, &tr);
	g = gt_table_get(&m->gs, tr.g);
	if (g && g->ended)
		snprintf(have, sizeof(have), "has ended (running for good, its seq not kept)");
	else
		snprintf(have, sizeof(have), "is %s with seq %llu", status_names[g ? g->status :
			 G_DEAD], (unsigned long long)(g ? g->seq : 0));
	gt_fail(err, GT_ERR_ORDER, ev->off, "no consistent ordering of events possible: %s at "
		"offset %llu (P %lld) needs g %llu %s with seq %s, but g %llu %s and no other "
		"P's next event can change that", gt_event_name(m->t, ev->type),
		(unsigned long long)ev->off, (long long)ev->p, (unsigned long long)tr.g,
		status_names[tr.init], seq_str(tr.init_seq, want, sizeof(want)),
		(unsigned long long)tr.g, have);
	return -1;
}

/* Go's transition(): the new state of the goroutine @g of source @src's head @ev. */
static int apply(struct gt_merge *m, const struct gt_source *src, const struct gt_event *ev,
		 struct gt_order_g *g, struct gt_error *err)
{
	struct trans tr = src->tr;

	if (tr.g == UNORDERED)
		return 0;
	if (!ready(&tr, g)) {
		gt_fail(err, GT_ERR_ORDER, ev->off, "event sequences are broken: %s at offset %llu "
			"needs g %llu %s, but another event took that state first (two events "
			"claim the same goroutine transition)", gt_event_name(m->t, ev->type),
			(unsigned long long)ev->off, (unsigned long long)tr.g,
			status_names[tr.init]);
		return -1;
	}
	if (tr.next_seq == NOSEQ)
		tr.next_seq = g->seq;
	else if (tr.next_seq == SEQINC)
		tr.next_seq = g->seq + 1;
	g->seq = tr.next_seq;
	g->status = tr.next;
	return wake(m, g, err);
}

/* "Local" events only help the merge; Go renames them afterwards. */
static void unlocal(struct gt_event *ev)
{
	switch (ev->type) {
	case GT_EV_GO_START_LOCAL:
		ev->type = GT_EV_GO_START;
		break;
	case GT_EV_GO_UNBLOCK_LOCAL:
		ev->type = GT_EV_GO_UNBLOCK;
		break;
	case GT_EV_GO_SYSEXIT_LOCAL:
		ev->type = GT_EV_GO_SYSEXIT;
		break;
	}
}

int gt_merge_next(struct gt_merge *m, struct gt_event *ev, struct gt_error *err)
{
	struct gt_source *src;
	uint32_t s;

	if (!m->nr_front)
		return m->nr_waiting ? stuck(m, err) : 0;
	s = frontier_pop(m);
	src = &m->src[s];
	*ev = *src->head;
	m->g = src->g;
	m->g_id = src->tr.g;
	/* An unordered event is mostly its P's running goroutine's: the source has its record. */
	if (!m->g && src->last_g && src->last_g_id == ev->g) {
		m->g = src->last_g;
		m->g_id = ev->g;
	}
	if (apply(m, src, ev, src->g, err) || advance(m, s, err))
		return -1;
	frontier_join(m);
	unlocal(ev);
	return 1;
}

void *gt_merge_g_find(struct gt_merge *m, uint64_t id)
{
	m->other = g_rec(m, id);
	m->other_id = id;
	return m->other;
}

/*
 * GoEnd and GoStop leave a goroutine running for the merge (Go orders
 * neither) and clear it as the goroutine of its P's later events. From
 * then on no event can be merged that needs it or changes it: one that
 * starts, blocks, wakes or creates it waits for ever (and the merge fails).
 * So once none waits for it, only its id is kept, in the set of ended
 * ones; its sequence number goes. Its record is made again if an event asks.
 */
void gt_merge_end(struct gt_merge *m, uint64_t id, struct gt_order_g *g)
{
	size_t i;

	if (g->status != G_RUNNING || g->waiters || !gt_idset_add(&m->ended, id))
		return;
	if (m->g == g)
		m->g = NULL;
	if (m->other == g)
		m->other = NULL;
	for (i = 0; i < m->nr_src; i++)
		if (m->src[i].last_g == g)
			m->src[i].last_g = NULL;
	gt_table_drop(&m->gs, id, g);
}
