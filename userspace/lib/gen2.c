// SPDX-License-Identifier: GPL-2.0
/*
 * Go 1.22+ traces, the generation level: batches as Go's readBatch() reads
 * them, gathered into generations as readGeneration() (1.26: up to an
 * EndOfGeneration) and readGenerationWithSpill() (before: up to the first
 * batch of the next generation number) do, with Go's errors.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "internal2.h"

#define MAX_BATCH	(64 << 10)	/* Go's tracev2.MaxBatchSize */

int64_t gt2_gen_ns(const struct gt2_gen *g, uint64_t ts)
{
	double ns = (double)ts * g->freq;

	/* Go's float to int conversion on amd64: out of range is the minimum. */
	if (!(ns >= -9223372036854775808.0 && ns < 9223372036854775808.0))
		return INT64_MIN;
	return (int64_t)ns;
}

static void free_stack_texts(struct gt2_gen *g)
{
	size_t i;

	for (i = 0; i < g->nstks; i++)
		free(g->stks[i].text);
}

void gt2_gen_free(struct gt2_gen *g)
{
	free_stack_texts(g);
	free(g->batches);
	free(g->ms);
	free(g->samples);
	free(g->strs);
	free(g->stks);
	free(g->pcs);
	free(g->frames);
	gt_map_free(&g->m_index);
	gt_map_free(&g->strings);
	gt_map_free(&g->stacks);
	gt_map_free(&g->frame_index);
	memset(g, 0, sizeof(*g));
}

/* Empties @g, keeping its memory. */
static void gen_reset(struct gt2_gen *g)
{
	struct gt2_gen keep = *g;

	free_stack_texts(g);
	memset(g, 0, sizeof(*g));
	g->batches = keep.batches;
	g->cap_batches = keep.cap_batches;
	g->ms = keep.ms;
	g->cap_ms = keep.cap_ms;
	g->samples = keep.samples;
	g->cap_samples = keep.cap_samples;
	g->strs = keep.strs;
	g->cap_strs = keep.cap_strs;
	g->stks = keep.stks;
	g->cap_stks = keep.cap_stks;
	g->pcs = keep.pcs;
	g->cap_pcs = keep.cap_pcs;
	g->frames = keep.frames;
	g->cap_frames = keep.cap_frames;
	gt_map_free(&keep.m_index);
	gt_map_free(&keep.strings);
	gt_map_free(&keep.stacks);
	gt_map_free(&keep.frame_index);
}

/* A batch header's varint: Go wraps its error with what it was reading. */
static int header_uvarint(struct gt2_gens *s, uint64_t at, const char *what, uint64_t *v,
			  struct gt_error *err)
{
	const char *e = gt2_read_uvarint(s->t->data, s->t->size, &s->pos, v);

	if (!e)
		return 0;
	gt_fail(err, GT_ERR_WIRE, at, "error reading batch %s: %s", what, e);
	return -1;
}

/* Go's readBatch(): 1 with @b and @gen, 0 at the end of the file, -1 with @err set. */
static int read_batch(struct gt2_gens *s, struct gt2_batch *b, uint64_t *gen,
		      struct gt_error *err)
{
	const struct gt2_trace *t = s->t;
	uint64_t at = s->pos, m, size;
	uint8_t type;

	if (s->pos >= t->size)
		return 0;
	gt2_release(t, s->from, at);	/* read again when the cursors get there */
	memset(b, 0, sizeof(*b));
	b->off = at;
	b->next = SIZE_MAX;
	*gen = 0;
	type = t->data[s->pos++];
	if (type == GT2_EV_END_OF_GENERATION) {
		b->m = -1;
		b->data = t->data + at;
		b->len = 1;
		return 1;
	}
	if (type != GT2_EV_EVENT_BATCH && type != GT2_EV_EXPERIMENTAL_BATCH) {
		gt_fail(err, GT_ERR_WIRE, at, "expected batch event, got event %u", type);
		return -1;
	}
	if (type == GT2_EV_EXPERIMENTAL_BATCH) {
		if (s->pos >= t->size)
			return 0;	/* Go's plain io.EOF: the end of the trace */
		b->exp = t->data[s->pos++];
	}
	if (header_uvarint(s, at, "gen", gen, err) || header_uvarint(s, at, "M ID", &m, err) ||
	    header_uvarint(s, at, "timestamp", &b->time, err) ||
	    header_uvarint(s, at, "size", &size, err))
		return -1;
	if (size > MAX_BATCH) {
		gt_fail(err, GT_ERR_WIRE, at, "invalid batch size %" PRIu64 ", maximum is %d",
			size, MAX_BATCH);
		return -1;
	}
	if (size > t->size - s->pos) {
		gt_fail(err, GT_ERR_WIRE, at, "failed to read full batch: read %" PRIu64
			" but wanted %" PRIu64, (uint64_t)(t->size - s->pos), size);
		return -1;
	}
	b->m = (int64_t)m;
	b->data = t->data + s->pos;
	b->len = size;
	s->pos += size;
	return 1;
}

static bool batch_is(const struct gt2_batch *b, uint8_t type)
{
	return !b->exp && b->len && b->data[0] == type;
}

static bool is_sync_batch(const struct gt2_batch *b, int ver)
{
	return ver >= GT_VER(25) ? batch_is(b, GT2_EV_SYNC) : batch_is(b, GT2_EV_FREQUENCY);
}

/* An event batch joins its M's list, the M the list of Ms if it is new. */
static int add_event_batch(struct gt2_gen *g, const struct gt2_batch *b, struct gt_error *err)
{
	uint64_t *i;
	bool added;

	if (!gt2_grow(&g->batches, &g->cap_batches, g->nbatches, sizeof(*g->batches)) ||
	    !gt2_grow(&g->ms, &g->cap_ms, g->nms, sizeof(*g->ms)) ||
	    !(i = gt_map_put(&g->m_index, (uint64_t)b->m, &added))) {
		gt_fail(err, GT_OK, 0, "out of memory");
		return -1;
	}
	if (added) {
		*i = g->nms;
		g->ms[g->nms++] = (struct gt2_mbatches){ b->m, g->nbatches, g->nbatches };
	} else {
		g->batches[g->ms[*i].last].next = g->nbatches;
		g->ms[*i].last = g->nbatches;
	}
	g->batches[g->nbatches++] = *b;
	return 0;
}

/* Go's processBatch(). */
static int process_batch(struct gt2_gen *g, const struct gt2_batch *b, int ver,
			 struct gt_error *err)
{
	if (batch_is(b, GT2_EV_STRINGS))
		return gt2_add_strings(g, b, err);
	if (batch_is(b, GT2_EV_STACKS))
		return gt2_add_stacks(g, b, err);
	if (batch_is(b, GT2_EV_CPU_SAMPLES))
		return gt2_add_samples(g, b, err);
	if (is_sync_batch(b, ver))
		return gt2_set_sync(g, b, ver, err);
	if (b->exp)
		return 0;	/* experimental data: Go keeps it aside, unchecked */
	if (batch_is(b, GT2_EV_END_OF_GENERATION)) {
		gt_fail(err, GT_ERR_TRACE, b->off, "internal error: unexpectedly processing "
			"EndOfGeneration; broken trace?");
		return -1;
	}
	return add_event_batch(g, b, err);
}

static int add_batch(struct gt2_gen *g, const struct gt2_batch *b, int ver, struct gt_error *err)
{
	if (!g->min_ts || b->time < g->min_ts)
		g->min_ts = b->time;
	return process_batch(g, b, ver, err);
}

/* The checks after the last batch, then the CPU samples' times. */
static int gen_done(struct gt2_gen *g, int ver, struct gt_error *err)
{
	if (g->freq == 0) {
		gt_fail(err, GT_ERR_TRACE, g->off, "no frequency event found");
		return -1;
	}
	if (ver >= GT_VER(25) && !g->has_snap) {
		gt_fail(err, GT_ERR_TRACE, g->off, "no clock snapshot event found");
		return -1;
	}
	if (gt2_validate_stacks(g, err))
		return -1;
	gt2_fix_samples(g);
	return 0;
}

/* Go's readGeneration(), for 1.26 traces. */
static int read_gen(struct gt2_gens *s, struct gt2_gen *g, struct gt_error *err)
{
	struct gt2_batch b;
	uint64_t gen;
	int r;

	for (;;) {
		r = read_batch(s, &b, &gen, err);
		if (r < 0)
			return -1;
		if (!r) {
			if (!g->nms)
				return 0;
			gt_fail(err, GT_ERR_TRACE, s->pos, "incomplete generation found; trace "
				"likely truncated");
			return -1;
		}
		if (!g->gen)
			g->gen = gen;
		if (batch_is(&b, GT2_EV_END_OF_GENERATION))
			break;
		if (!gen || gen != g->gen) {
			gt_fail(err, GT_ERR_TRACE, b.off, gen ? "broken trace: missing "
				"end-of-generation event, or generations are interleaved" :
				"invalid generation number 0");
			return -1;
		}
		if (add_batch(g, &b, s->t->ver, err))
			return -1;
	}
	return gen_done(g, s->t->ver, err) ? -1 : 1;
}

/* Go's readGenerationWithSpill(), for 1.22-1.25 traces. */
static int read_gen_spill(struct gt2_gens *s, struct gt2_gen *g, struct gt_error *err)
{
	struct gt2_batch b;
	uint64_t gen;
	int r;

	if (s->spilled) {
		s->spilled = false;
		g->gen = s->spill_gen;
		g->min_ts = s->spill.time;
		if (process_batch(g, &s->spill, s->t->ver, err))
			return -1;
	}
	for (;;) {
		r = read_batch(s, &b, &gen, g->gen ? &s->spill_err : err);
		if (!r)
			break;
		if (r < 0) {
			if (!g->gen)
				return -1;
			s->spill_failed = true;
			break;
		}
		if (!gen) {
			gt_fail(err, GT_ERR_TRACE, b.off, "invalid generation number 0");
			return -1;
		}
		if (!g->gen)
			g->gen = gen;
		if (gen == g->gen + 1) {
			s->spilled = true;
			s->spill_gen = gen;
			s->spill = b;
			break;
		}
		if (gen != g->gen) {
			gt_fail(err, GT_ERR_TRACE, b.off, "generations out of order");
			return -1;
		}
		if (add_batch(g, &b, s->t->ver, err))
			return -1;
	}
	return gen_done(g, s->t->ver, err) ? -1 : 1;
}

int gt2_gen_read(struct gt2_gens *s, struct gt2_gen *g, struct gt_error *err)
{
	s->from = s->spilled ? s->spill.off : s->pos;
	gt2_release(s->t, g->off, s->from);	/* the generation before */
	gen_reset(g);
	g->off = s->from;
	if (s->t->ver >= GT_VER(26))
		return read_gen(s, g, err);
	return read_gen_spill(s, g, err);
}
