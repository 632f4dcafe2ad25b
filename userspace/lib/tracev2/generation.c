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

#include "internal.h"

#define MAX_BATCH	(64 << 10)	/* Go's tracev2.MaxBatchSize */

int64_t gt2_gen_ns(const struct gt2_gen *g, uint64_t ts)
{
	double ns = (double)ts * g->freq;

	/* Go's float to int conversion on amd64: out of range is the minimum. */
	if (!(ns >= -9223372036854775808.0 && ns < 9223372036854775808.0))
		return INT64_MIN;
	return (int64_t)ns;
}

/* What the generation's tables allocate per entry. */
static void free_table_data(struct gt2_gen *g)
{
	size_t i;

	for (i = 0; i < g->nstks; i++)
		free(g->stks[i].text);
	for (i = 0; i < g->nstr_batches; i++)
		free(g->str_batches[i]);
}

void gt2_gen_free(struct gt2_gen *g)
{
	free_table_data(g);
	free(g->str_batches);
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

	free_table_data(g);
	memset(g, 0, sizeof(*g));
	g->batches = keep.batches;
	g->cap_batches = keep.cap_batches;
	g->ms = keep.ms;
	g->cap_ms = keep.cap_ms;
	g->samples = keep.samples;
	g->cap_samples = keep.cap_samples;
	g->strs = keep.strs;
	g->cap_strs = keep.cap_strs;
	g->str_batches = keep.str_batches;
	g->cap_str_batches = keep.cap_str_batches;
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

/* A batch header's varint in @h: Go wraps its error with what it was reading. */
static int header_uvarint(const uint8_t *h, size_t n, uint64_t *pos, uint64_t at,
			  const char *what, uint64_t *v, struct gt_error *err)
{
	const char *e = gt2_read_uvarint(h, n, pos, v);

	if (!e)
		return 0;
	gt_fail(err, GT_ERR_WIRE, at, "error reading batch %s: %s", what, e);
	return -1;
}

/*
 * A batch header at most: the type, the experiment, 4 varints of 10 bytes at
 * most (Go's binary.ReadUvarint() fails on the 10th) and the first data byte.
 * Read from the file up to its end, it decodes as the whole file would.
 */
#define MAX_HEADER	(2 + 4 * 10 + 1)

/* The rest of readBatch(), from the varints of the header @h (*@pos in it, @n long) on. */
static int read_header(struct gt2_gens *s, const uint8_t *h, size_t n, uint64_t pos,
		       struct gt2_batch *b, uint64_t *gen, struct gt_error *err)
{
	const struct gt2_trace *t = s->t;
	uint64_t at = b->off, m, size;

	if (header_uvarint(h, n, &pos, at, "gen", gen, err) ||
	    header_uvarint(h, n, &pos, at, "M ID", &m, err) ||
	    header_uvarint(h, n, &pos, at, "timestamp", &b->time, err) ||
	    header_uvarint(h, n, &pos, at, "size", &size, err))
		return -1;
	if (size > MAX_BATCH) {
		gt_fail(err, GT_ERR_WIRE, at, "invalid batch size %" PRIu64 ", maximum is %d",
			size, MAX_BATCH);
		return -1;
	}
	b->data_off = at + pos;
	if (size > t->size - b->data_off) {
		gt_fail(err, GT_ERR_WIRE, at, "failed to read full batch: read %" PRIu64
			" but wanted %" PRIu64, (uint64_t)(t->size - b->data_off), size);
		return -1;
	}
	b->m = (int64_t)m;
	b->len = size;
	b->kind = size ? h[pos] : 0;
	s->pos = b->data_off + size;
	return 1;
}

/* Go's readBatch(): 1 with @b and @gen, 0 at the end of the file, -1 with @err set. */
static int read_batch(struct gt2_gens *s, struct gt2_batch *b, uint64_t *gen,
		      struct gt_error *err)
{
	const struct gt2_trace *t = s->t;
	uint8_t h[MAX_HEADER];
	uint64_t at = s->pos;
	size_t n = t->size - at < MAX_HEADER ? t->size - at : MAX_HEADER;

	if (at >= t->size)
		return 0;
	if (gt2_read(t, at, h, n, err))
		return -1;
	memset(b, 0, sizeof(*b));
	b->off = at;
	b->next = SIZE_MAX;
	*gen = 0;
	if (h[0] == GT2_EV_END_OF_GENERATION) {
		b->m = -1;
		b->data_off = at;
		b->len = 1;
		b->kind = h[0];
		s->pos = at + 1;
		return 1;
	}
	if (h[0] != GT2_EV_EVENT_BATCH && h[0] != GT2_EV_EXPERIMENTAL_BATCH) {
		gt_fail(err, GT_ERR_WIRE, at, "expected batch event, got event %u", h[0]);
		return -1;
	}
	if (h[0] == GT2_EV_EVENT_BATCH)
		return read_header(s, h, n, 1, b, gen, err);
	if (n < 2) {
		s->pos = t->size;
		return 0;	/* Go's plain io.EOF: the end of the trace */
	}
	b->exp = h[1];
	return read_header(s, h, n, 2, b, gen, err);
}

static bool batch_is(const struct gt2_batch *b, uint8_t type)
{
	return !b->exp && b->len && b->kind == type;
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

/* A table batch of @g, one of gt2_add_strings() and the others, on its bytes. */
static int add_table(struct gt2_gen *g, const struct gt2_batch *b, int ver, struct gt_error *err)
{
	if (batch_is(b, GT2_EV_STRINGS))
		return gt2_add_strings(g, b, err);
	if (batch_is(b, GT2_EV_STACKS))
		return gt2_add_stacks(g, b, err);
	if (batch_is(b, GT2_EV_CPU_SAMPLES))
		return gt2_add_samples(g, b, err);
	return gt2_set_sync(g, b, ver, err);
}

/* Reads a table batch and adds it to @g: a string batch's bytes stay, its strings point there. */
static int process_table(const struct gt2_trace *t, struct gt2_gen *g, const struct gt2_batch *b,
			 struct gt_error *err)
{
	struct gt2_batch tb = *b;
	uint8_t *data;
	int r;

	if (!gt2_grow(&g->str_batches, &g->cap_str_batches, g->nstr_batches,
		      sizeof(*g->str_batches)) || !(data = malloc(b->len))) {
		gt_fail(err, GT_OK, 0, "out of memory");
		return -1;
	}
	if (gt2_read(t, b->data_off, data, b->len, err)) {
		free(data);
		return -1;
	}
	if (batch_is(b, GT2_EV_STRINGS))
		g->str_batches[g->nstr_batches++] = data;
	tb.data = data;
	r = add_table(g, &tb, t->ver, err);
	if (!batch_is(b, GT2_EV_STRINGS))
		free(data);
	return r;
}

/* Go's processBatch(). */
static int process_batch(const struct gt2_trace *t, struct gt2_gen *g, const struct gt2_batch *b,
			 struct gt_error *err)
{
	if (batch_is(b, GT2_EV_STRINGS) || batch_is(b, GT2_EV_STACKS) ||
	    batch_is(b, GT2_EV_CPU_SAMPLES) || is_sync_batch(b, t->ver))
		return process_table(t, g, b, err);
	if (b->exp)
		return 0;	/* experimental data: Go keeps it aside, unchecked */
	if (batch_is(b, GT2_EV_END_OF_GENERATION)) {
		gt_fail(err, GT_ERR_TRACE, b->off, "internal error: unexpectedly processing "
			"EndOfGeneration; broken trace?");
		return -1;
	}
	return add_event_batch(g, b, err);
}

static int add_batch(const struct gt2_trace *t, struct gt2_gen *g, const struct gt2_batch *b,
		     struct gt_error *err)
{
	if (!g->min_ts || b->time < g->min_ts)
		g->min_ts = b->time;
	return process_batch(t, g, b, err);
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
		if (add_batch(s->t, g, &b, err))
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
		if (process_batch(s->t, g, &s->spill, err))
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
		if (add_batch(s->t, g, &b, err))
			return -1;
	}
	return gen_done(g, s->t->ver, err) ? -1 : 1;
}

int gt2_gen_read(struct gt2_gens *s, struct gt2_gen *g, struct gt_error *err)
{
	gen_reset(g);
	g->off = s->spilled ? s->spill.off : s->pos;
	if (s->t->ver >= GT_VER(26))
		return read_gen(s, g, err);
	return read_gen_spill(s, g, err);
}
