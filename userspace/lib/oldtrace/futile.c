// SPDX-License-Identifier: GPL-2.0
/*
 * Futile wakeups, as Go's removeFutile() finds them: a goroutine woken,
 * started (maybe preempted and started again), marked FutileWakeup, then
 * blocked again. Go drops the whole sequence, the block included. Go
 * runtimes since 1.7 never write FutileWakeup, so this pass runs only for
 * traces that have one; it remembers the offsets of the events to drop.
 */
#include <stdlib.h>

#include "internal.h"

struct futile_g {
	bool futile;
	uint64_t *wakeup;		/* offsets of the wakeup sequence */
	size_t len, cap;
};

static bool seq_add(struct futile_g *g, uint64_t off)
{
	uint64_t *w;

	if (g->len == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 4;
		w = realloc(g->wakeup, g->cap * sizeof(*w));
		if (!w)
			return false;
		g->wakeup = w;
	}
	g->wakeup[g->len++] = off;
	return true;
}

/* A block ends the sequence; if it was futile, all of it goes. */
static bool seq_end(struct gt_map *drop, struct futile_g *g, uint64_t off)
{
	bool added;
	size_t i;

	if (g->futile) {
		for (i = 0; i < g->len; i++)
			if (!gt_map_put(drop, g->wakeup[i], &added))
				return false;
		if (!gt_map_put(drop, off, &added))
			return false;
	}
	g->futile = false;
	g->len = 0;
	return true;
}

static bool futile_event(struct gt_table *gs, struct gt_map *drop, const struct gt_event *ev)
{
	struct futile_g *g;

	switch (ev->type) {
	case GT_EV_GO_UNBLOCK:
		g = gt_table_add(gs, ev->args[0]);
		if (!g)
			return false;
		g->len = 0;
		return seq_add(g, ev->off);
	case GT_EV_GO_START:
	case GT_EV_GO_PREEMPT:
	case GT_EV_FUTILE_WAKEUP:
		g = gt_table_add(gs, ev->g);
		if (!g)
			return false;
		g->futile |= ev->type == GT_EV_FUTILE_WAKEUP;
		return seq_add(g, ev->off);
	}
	if (gt_descs[ev->type].block == GT_BLOCK_SYNC) {
		g = gt_table_add(gs, ev->g);
		return g && seq_end(drop, g, ev->off);
	}
	return true;
}

static void free_seq(void *rec, uint64_t key, void *ctx)
{
	(void)key;
	(void)ctx;
	free(((struct futile_g *)rec)->wakeup);
}

/*
 * Fills @drop with the offsets of futile events. Merge errors are left for
 * the checking pass to report; -1 only when memory runs out.
 */
int gt_futile_scan(const struct gt_trace *t, struct gt_map *drop, struct gt_error *err)
{
	struct gt_table gs;
	struct gt_merge m;
	struct gt_event ev;
	int r = 0;

	gt_table_init(&gs, sizeof(struct futile_g));
	if (gt_merge_init(&m, t, sizeof(struct gt_order_g), err))
		r = -1;
	while (!r && gt_merge_next(&m, &ev, err) > 0) {
		if (!futile_event(&gs, drop, &ev)) {
			gt_fail(err, GT_ERR_ORDER, ev.off, "out of memory for futile wakeups");
			r = -1;
		}
	}
	gt_merge_free(&m);
	gt_table_each(&gs, free_seq, NULL);
	gt_table_free(&gs);
	return r;
}
