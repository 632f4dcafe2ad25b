// SPDX-License-Identifier: GPL-2.0
/*
 * Go 1.22+ traces, the parsed level: Go's trace.Reader (reader.go) and its
 * batch cursors (batchcursor.go). One generation at a time: a Sync event,
 * then its events merged from the per-M cursors, always the earliest one
 * that can advance, with the CPU samples at their times; time stamps that
 * do not grow are moved to the last one plus 1 ns.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct gt2_reader {
	const struct gt2_trace *t;
	struct gt2_gens gens;
	struct gt2_gen gen;
	bool have_gen;
	uint64_t ngens;
	struct gt2_cursor *front;	/* a min-heap by time (Go's frontier) */
	size_t nfront, cap_front;
	size_t nslots;		/* the front[] that have been used, with their buf */
	size_t next_sample;
	struct gt2_order *order;
	int64_t last_ts;
	uint64_t syncs;
	bool done;
	bool gen_failed;	/* Go's readGenErr or spillErr */
	bool err_synced;	/* its Sync event is out */
	struct gt_error gen_err;
	bool failed;		/* an error was returned: return it again */
	struct gt_error err;
};

/* The frontier, a min-heap by time, as Go's heapInsert/Update/Remove. */

static void swap(struct gt2_cursor *h, size_t i, size_t j)
{
	struct gt2_cursor c = h[i];

	h[i] = h[j];
	h[j] = c;
}

static size_t sift_up(struct gt2_cursor *h, size_t i)
{
	while (i > 0 && h[(i - 1) / 2].ev.time > h[i].ev.time) {
		swap(h, (i - 1) / 2, i);
		i = (i - 1) / 2;
	}
	return i;
}

static void sift_down(struct gt2_cursor *h, size_t n, size_t i)
{
	for (;;) {
		size_t m = i, k;

		for (k = 2 * i + 1; k <= 2 * i + 2; k++)
			if (k < n && h[k].ev.time < h[m].ev.time)
				m = k;
		if (m == i)
			return;
		swap(h, i, m);
		i = m;
	}
}

static void heap_update(struct gt2_reader *r, size_t i)
{
	if (sift_up(r->front, i) == i)
		sift_down(r->front, r->nfront, i);
}

static void heap_remove(struct gt2_reader *r, size_t i)
{
	for (; i > 0; i = (i - 1) / 2)
		swap(r->front, (i - 1) / 2, i);
	swap(r->front, 0, --r->nfront);
	sift_down(r->front, r->nfront, 0);
}

/* slices.SortFunc() by time: on up to 12 cursors, Go's insertion sort, stable. */
static void sort_frontier(struct gt2_reader *r)
{
	size_t i, j;

	for (i = 1; i < r->nfront; i++)
		for (j = i; j > 0 && r->front[j].ev.time < r->front[j - 1].ev.time; j--)
			swap(r->front, j, j - 1);
}

static void sync_event(struct gt2_reader *r, const struct gt2_gen *g, int64_t time,
		       struct gt2_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->type = GT2_EV_PARSED_SYNC;
	ev->time = time;
	ev->m = ev->p = ev->g = -1;
	ev->args[0] = ++r->syncs;
	ev->gen = g;
}

/* The next free front[], for M @m: its buffer (from another generation) is kept. */
static struct gt2_cursor *new_cursor(struct gt2_reader *r, int64_t m)
{
	struct gt2_cursor *c = &r->front[r->nfront];
	uint8_t *buf = NULL;
	size_t cap = 0;

	if (r->nfront < r->nslots) {
		buf = c->buf;
		cap = c->cap;
	} else {
		r->nslots++;
	}
	memset(c, 0, sizeof(*c));
	c->m = m;
	c->buf = buf;
	c->cap = cap;
	return c;
}

/* Go's installGen(): the frontier of the generation just read, and its Sync event. */
static int install_gen(struct gt2_reader *r, struct gt2_event *ev, struct gt_error *err)
{
	const struct gt2_gen *g = &r->gen;
	struct gt2_cursor *c;
	size_t i;
	int k;

	r->have_gen = true;
	r->ngens++;
	r->next_sample = 0;
	for (i = 0; i < g->nms; i++) {
		if (!gt2_grow(&r->front, &r->cap_front, r->nfront, sizeof(*r->front))) {
			gt_fail(err, GT_OK, 0, "out of memory");
			return -1;
		}
		c = new_cursor(r, g->ms[i].m);
		if (gt2_cursor_enter(r->t, &r->gen, c, g->ms[i].first, err))
			return -1;
		k = gt2_cursor_next(r->t, &r->gen, c, err);
		if (k < 0)
			return -1;
		if (k)
			sift_up(r->front, r->nfront++);
	}
	sync_event(r, g, gt2_gen_ns(g, g->min_ts), ev);
	return 1;
}

/* The Sync event that ends the trace (or comes before a generation's error). */
static int last_sync(struct gt2_reader *r, bool done, struct gt2_event *ev)
{
	r->have_gen = false;
	r->done = done;
	sync_event(r, NULL, r->last_ts, ev);
	return 1;
}

/* Go's nextGenWithSpill() (before 1.26) and the 1.26 part of ReadEvent(). */
static int next_gen(struct gt2_reader *r, struct gt2_event *ev, struct gt_error *err)
{
	int k;

	if (r->gen_failed) {
		if (r->err_synced) {
			*err = r->gen_err;
			return -1;
		}
		r->err_synced = true;
		return last_sync(r, false, ev);
	}
	if (r->t->ver < GT_VER(26) && r->have_gen && !r->gens.spilled)
		return last_sync(r, true, ev);
	k = gt2_gen_read(&r->gens, &r->gen, &r->gen_err);
	if (k < 0) {
		r->gen_failed = r->err_synced = true;
		return last_sync(r, false, ev);
	}
	if (!k)
		return last_sync(r, true, ev);
	if (r->gens.spill_failed) {
		r->gen_failed = true;
		r->gen_err = r->gens.spill_err;
	}
	return install_gen(r, ev, err);
}

/* Go's tryAdvance(): 1 advanced, 0 not, -1 with @err set. */
static int try_advance(struct gt2_reader *r, size_t i, struct gt_error *err)
{
	struct gt2_cursor *c = &r->front[i];
	int k;

	k = gt2_order_advance(r->order, &c->ev, &r->gen, c->m, r->gen.gen, err);
	if (k <= 0)
		return k;
	k = gt2_cursor_next(r->t, &r->gen, c, err);
	if (k < 0)
		return -1;
	if (k)
		heap_update(r, i);
	else
		heap_remove(r, i);
	return 1;
}

static int advance(struct gt2_reader *r, struct gt_error *err)
{
	size_t i;
	int k;

	k = try_advance(r, 0, err);
	if (k)
		return k;
	sort_frontier(r);
	for (i = 1; i < r->nfront; i++) {
		k = try_advance(r, i, err);
		if (k)
			return k;
	}
	gt_fail(err, GT_ERR_ORDER, r->front[0].ev.off, "broken trace: failed to advance: frontier:");
	return -1;
}

static bool sample_next(struct gt2_reader *r, struct gt2_event *ev)
{
	const struct gt2_sample *s;

	if (r->next_sample == r->gen.nsamples ||
	    (r->nfront && r->gen.samples[r->next_sample].time >= r->front[0].ev.time))
		return false;
	s = &r->gen.samples[r->next_sample++];
	memset(ev, 0, sizeof(*ev));
	ev->type = GT2_EV_CPU_SAMPLE;
	ev->time = s->time;
	ev->m = s->m;
	ev->p = s->p;
	ev->g = s->g;
	ev->args[0] = s->stack;
	ev->gen = &r->gen;
	return true;
}

/* The event before Go's checks on the way out. */
static int read_event(struct gt2_reader *r, struct gt2_event *ev, struct gt_error *err)
{
	int k;

	if (gt2_order_next(r->order, ev))
		return 1;
	if (!r->nfront && r->next_sample == r->gen.nsamples)
		return next_gen(r, ev, err);
	if (sample_next(r, ev))
		return 1;
	k = advance(r, err);
	if (k < 0)
		return -1;
	gt2_order_next(r->order, ev);
	return 1;
}

/* Go's validateTableIDs(). */
static int check_ids(const struct gt2_event *ev, struct gt_error *err)
{
	const struct gt2_spec *spec;
	struct gt2_str s;
	uint64_t id;
	bool ok;
	int i;

	if (ev->type == GT2_EV_PARSED_SYNC)
		return 0;
	spec = gt2_spec(ev->type);
	for (i = 0; i < 2 && spec->stack_ids[i]; i++) {
		id = ev->args[spec->stack_ids[i] - 1];
		gt2_gen_stack(ev->gen, id, &ok);
		if (!ok) {
			gt_fail(err, GT_ERR_PARSE, ev->off, "found invalid stack ID %" PRIu64
				" for event %s", id, spec->name);
			return -1;
		}
	}
	for (i = 0; i < 2 && spec->string_ids[i]; i++) {
		id = ev->args[spec->string_ids[i] - 1];
		if (!gt2_gen_string(ev->gen, id, &s)) {
			gt_fail(err, GT_ERR_PARSE, ev->off, "found invalid string ID %" PRIu64
				" for event %s", id, spec->name);
			return -1;
		}
	}
	return 0;
}

int gt2_reader_next(struct gt2_reader *r, struct gt2_event *ev, struct gt_error *err)
{
	if (r->failed) {
		*err = r->err;
		return -1;
	}
	if (r->done)
		return 0;
	if (read_event(r, ev, err) < 0 || check_ids(ev, err)) {
		r->failed = true;
		r->err = *err;
		return -1;
	}
	if (ev->time <= r->last_ts)
		ev->time = r->last_ts + 1;
	r->last_ts = ev->time;
	return 1;
}

int gt2_reader_open(const struct gt2_trace *t, struct gt2_reader **rp, struct gt_error *err)
{
	struct gt2_reader *r = calloc(1, sizeof(*r));

	if (r)
		r->order = gt2_order_new(t->ver);
	if (!r || !r->order) {
		free(r);
		gt_fail(err, GT_OK, 0, "out of memory");
		return -1;
	}
	r->t = t;
	r->gens.t = t;
	r->gens.pos = t->start;
	*rp = r;
	return 0;
}

void gt2_reader_close(struct gt2_reader *r)
{
	size_t i;

	if (!r)
		return;
	gt2_gen_free(&r->gen);
	gt2_order_free(r->order);
	for (i = 0; i < r->nslots; i++)
		free(r->front[i].buf);
	free(r->front);
	free(r);
}

uint64_t gt2_reader_generations(const struct gt2_reader *r)
{
	return r->ngens;
}

/* Go's dumpFrontier(). */
static void dump_frontier(FILE *f, const struct gt2_reader *r)
{
	const struct gt2_spec *spec;
	size_t i;
	unsigned int j;

	for (i = 0; i < r->nfront; i++) {
		const struct gt2_cursor *c = &r->front[i];

		spec = gt2_spec(c->ev.type);
		fprintf(f, "M %" PRId64 " [%s time=%" PRId64, c->m, spec->name, c->ev.time);
		for (j = 0; spec->args[j] && spec->args[j + 1]; j++)
			fprintf(f, " %s=%" PRIu64, spec->args[j + 1], c->ev.args[j]);
		fputs("]\n", f);
	}
}

void gt2_reader_dump(FILE *f, const struct gt2_reader *r)
{
	fprintf(f, "[gen=%" PRIu64 "]\n\n", r->gen.gen);
	dump_frontier(f, r);
	fputc('\n', f);
	gt2_order_dump(f, r->order);
	fputc('\n', f);
}
