// SPDX-License-Identifier: GPL-2.0
/*
 * A Go 1.22+ generation's tables, as Go's generation.go fills them: the string
 * and stack batches, the CPU samples and the sync batch (frequency and clock
 * snapshot), with Go's errors.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define MAX_FRAMES	128	/* Go's tracev2.MaxFramesPerStack */
#define MAX_STRING	1024	/* tracev2.MaxEventTrailerDataSize */

bool gt2_grow(void *v, size_t *cap, size_t len, size_t size)
{
	void **p = v;
	size_t n = *cap ? *cap * 2 : 16;
	void *q;

	if (len < *cap)
		return true;
	q = realloc(*p, n * size);
	if (!q)
		return false;
	*p = q;
	*cap = n;
	return true;
}

bool gt2_gen_string(const struct gt2_gen *g, uint64_t id, struct gt2_str *s)
{
	uint64_t *i;

	s->s = NULL;
	s->len = 0;
	if (!id)
		return true;
	i = gt_map_get(&g->strings, id);
	if (i)
		*s = g->strs[*i];
	return i;
}

const struct gt2_stack *gt2_gen_stack(const struct gt2_gen *g, uint64_t id, bool *ok)
{
	static const struct gt2_stack none;
	uint64_t *i = id ? gt_map_get(&g->stacks, id) : NULL;

	*ok = !id || i;
	return i ? &g->stks[*i] : &none;
}

const struct gt2_frame *gt2_gen_frame(const struct gt2_gen *g, uint64_t pc)
{
	uint64_t *i = gt_map_get(&g->frame_index, pc);

	return i ? &g->frames[*i] : NULL;
}

static int oom(struct gt_error *err)
{
	gt_fail(err, GT_OK, 0, "out of memory");
	return -1;
}

/* A varint of a string, stack or sample batch; Go returns its error as it is. */
static int batch_uvarint(const struct gt2_batch *b, uint64_t *pos, uint64_t *v,
			 struct gt_error *err)
{
	const char *e = gt2_read_uvarint(b->data, b->len, pos, v);

	if (!e)
		return 0;
	gt_fail(err, GT_ERR_PARSE, b->off, "%s", e);
	return -1;
}

/* The event type at *@pos must be @want (Go's "expected ... event, got N"). */
static int batch_event(const struct gt2_batch *b, uint64_t *pos, uint8_t want, const char *what,
		       struct gt_error *err)
{
	uint8_t type = b->data[(*pos)++];

	if (type == want)
		return 0;
	gt_fail(err, GT_ERR_PARSE, b->off, "expected %s event, got %u", what, type);
	return -1;
}

static int add_string(struct gt2_gen *g, const struct gt2_batch *b, uint64_t *pos,
		      struct gt_error *err)
{
	struct gt2_str old;
	uint64_t id, len, *i;
	bool added;

	if (batch_event(b, pos, GT2_EV_STRING, "string", err) ||
	    batch_uvarint(b, pos, &id, err) || batch_uvarint(b, pos, &len, err))
		return -1;
	if (len > MAX_STRING) {
		gt_fail(err, GT_ERR_PARSE, b->off, "invalid string size %" PRIu64 ", maximum is %d",
			len, MAX_STRING);
		return -1;
	}
	if (len > b->len - *pos) {
		gt_fail(err, GT_ERR_PARSE, b->off, "failed to read full string: read %" PRIu64
			" but wanted %" PRIu64, b->len - *pos, len);
		return -1;
	}
	if (gt2_gen_string(g, id, &old)) {
		gt_fail(err, GT_ERR_PARSE, b->off, "multiple strings with the same ID: id=%" PRIu64
			", new=%.*s, existing=%.*s", id, (int)len, (const char *)b->data + *pos,
			(int)old.len, (const char *)old.s);
		return -1;
	}
	if (!gt2_grow(&g->strs, &g->cap_strs, g->nstrs, sizeof(*g->strs)) ||
	    !(i = gt_map_put(&g->strings, id, &added)))
		return oom(err);
	*i = g->nstrs;
	g->strs[g->nstrs++] = (struct gt2_str){ b->data + *pos, len };
	*pos += len;
	return 0;
}

int gt2_add_strings(struct gt2_gen *g, const struct gt2_batch *b, struct gt_error *err)
{
	uint64_t pos = 1;

	while (pos < b->len)
		if (add_string(g, b, &pos, err))
			return -1;
	return 0;
}

/* Go's %v of a stack: "\t0x<pc>\n" per frame. */
static void stack_text(const struct gt2_gen *g, size_t first, uint64_t n, char *buf,
		       size_t size)
{
	size_t len = 0;
	uint64_t i;

	buf[0] = 0;
	for (i = 0; i < n && len < size; i++)
		len += snprintf(buf + len, size - len, "\t0x%" PRIx64 "\n", g->pcs[first + i]);
}

static int stack_conflict(struct gt2_gen *g, const struct gt2_batch *b, uint64_t id,
			  size_t first, uint64_t n, struct gt_error *err)
{
	const struct gt2_stack *old;
	char new_s[128], old_s[128];
	bool ok;

	old = gt2_gen_stack(g, id, &ok);
	stack_text(g, first, n, new_s, sizeof(new_s));
	stack_text(g, old->first, old->n, old_s, sizeof(old_s));
	gt_fail(err, GT_ERR_PARSE, b->off, "multiple trace.stacks with the same ID: id=%" PRIu64
		", new=%s, existing=%s", id, new_s, old_s);
	return -1;
}

static int add_frame(struct gt2_gen *g, const struct gt2_batch *b, uint64_t *pos, uint64_t id,
		     uint64_t nr, struct gt_error *err)
{
	static const char *const what[4] = { "PC", "funcID", "fileID", "line" };
	uint64_t f[4], *i;
	const char *e;
	bool added;
	int j;

	for (j = 0; j < 4; j++) {
		e = gt2_read_uvarint(b->data, b->len, pos, &f[j]);
		if (e) {
			gt_fail(err, GT_ERR_PARSE, b->off, "reading frame %" PRIu64 "'s %s for stack %"
				PRIu64 ": %s", nr, what[j], id, e);
			return -1;
		}
	}
	if (!gt2_grow(&g->pcs, &g->cap_pcs, g->npcs, sizeof(*g->pcs)) ||
	    !gt2_grow(&g->frames, &g->cap_frames, g->nframes, sizeof(*g->frames)) ||
	    !(i = gt_map_put(&g->frame_index, f[0], &added)))
		return oom(err);
	g->pcs[g->npcs++] = f[0];
	if (added) {
		*i = g->nframes;
		g->frames[g->nframes++] = (struct gt2_frame){ f[0], f[1], f[2], f[3] };
	}
	return 0;
}

static int add_stack(struct gt2_gen *g, const struct gt2_batch *b, uint64_t *pos,
		     struct gt_error *err)
{
	uint64_t id, n, k, *i;
	size_t first = g->npcs;
	bool ok, added;

	if (batch_event(b, pos, GT2_EV_STACK, "stack", err) ||
	    batch_uvarint(b, pos, &id, err) || batch_uvarint(b, pos, &n, err))
		return -1;
	if (n > MAX_FRAMES) {
		gt_fail(err, GT_ERR_PARSE, b->off, "invalid stack size %" PRIu64 ", maximum is %d",
			n, MAX_FRAMES);
		return -1;
	}
	for (k = 0; k < n; k++)
		if (add_frame(g, b, pos, id, k + 1, err))
			return -1;
	gt2_gen_stack(g, id, &ok);
	if (ok)
		return stack_conflict(g, b, id, first, n, err);
	if (!gt2_grow(&g->stks, &g->cap_stks, g->nstks, sizeof(*g->stks)) ||
	    !(i = gt_map_put(&g->stacks, id, &added)))
		return oom(err);
	*i = g->nstks;
	g->stks[g->nstks++] = (struct gt2_stack){ .id = id, .first = first, .n = n };
	return 0;
}

int gt2_add_stacks(struct gt2_gen *g, const struct gt2_batch *b, struct gt_error *err)
{
	uint64_t pos = 1;

	while (pos < b->len)
		if (add_stack(g, b, &pos, err))
			return -1;
	return 0;
}

static int add_sample(struct gt2_gen *g, const struct gt2_batch *b, uint64_t *pos,
		      struct gt_error *err)
{
	uint64_t v[5];
	int j;

	if (batch_event(b, pos, GT2_EV_CPU_SAMPLE, "CPU sample", err))
		return -1;
	for (j = 0; j < 5; j++)
		if (batch_uvarint(b, pos, &v[j], err))
			return -1;
	if (!gt2_grow(&g->samples, &g->cap_samples, g->nsamples, sizeof(*g->samples)))
		return oom(err);
	g->samples[g->nsamples++] = (struct gt2_sample){
		.time = (int64_t)v[0], .m = (int64_t)v[1], .p = (int64_t)v[2],
		.g = v[3] ? (int64_t)v[3] : -1, .stack = v[4],
	};
	return 0;
}

int gt2_add_samples(struct gt2_gen *g, const struct gt2_batch *b, struct gt_error *err)
{
	uint64_t pos = 1;

	while (pos < b->len)
		if (add_sample(g, b, &pos, err))
			return -1;
	return 0;
}

static int set_snapshot(struct gt2_gen *g, const struct gt2_batch *b, uint64_t *pos,
			uint64_t *last, struct gt_error *err)
{
	uint64_t dt;

	if (g->has_snap) {
		gt_fail(err, GT_ERR_PARSE, b->off, "found multiple clock snapshot events");
		return -1;
	}
	g->has_snap = true;
	if (batch_uvarint(b, pos, &dt, err))
		return -1;
	*last += dt;
	g->snap_time = *last;
	return batch_uvarint(b, pos, &g->snap_mono, err) ||
	       batch_uvarint(b, pos, &g->snap_sec, err) ||
	       batch_uvarint(b, pos, &g->snap_nsec, err) ? -1 : 0;
}

static int set_frequency(struct gt2_gen *g, const struct gt2_batch *b, uint64_t *pos,
			 struct gt_error *err)
{
	uint64_t f;

	if (g->freq != 0) {
		gt_fail(err, GT_ERR_PARSE, b->off, "found multiple frequency events");
		return -1;
	}
	if (batch_uvarint(b, pos, &f, err))
		return -1;
	g->freq = 1.0 / ((double)f / 1e9);
	return 0;
}

int gt2_set_sync(struct gt2_gen *g, const struct gt2_batch *b, int ver, struct gt_error *err)
{
	uint64_t pos = ver >= GT_VER(25), last = b->time;
	uint8_t type;
	int r;

	while (pos < b->len) {
		type = b->data[pos++];
		if (type == GT2_EV_FREQUENCY) {
			r = set_frequency(g, b, &pos, err);
		} else if (type == GT2_EV_CLOCK_SNAPSHOT && ver >= GT_VER(25)) {
			r = set_snapshot(g, b, &pos, &last, err);
		} else {
			gt_fail(err, GT_ERR_PARSE, b->off, "expected frequency or clock snapshot "
				"event, got %u", type);
			r = -1;
		}
		if (r)
			return -1;
	}
	return 0;
}

int gt2_validate_stacks(const struct gt2_gen *g, struct gt_error *err)
{
	const struct gt2_frame *f;
	struct gt2_str s;
	size_t i;

	/* Every PC of a stack has its frame: add_frame() adds them together. */
	for (i = 0; i < g->nframes; i++) {
		f = &g->frames[i];
		if (!gt2_gen_string(g, f->func, &s) || !gt2_gen_string(g, f->file, &s))
			break;
	}
	if (i == g->nframes)
		return 0;
	/* Go names the stack: the first one with a bad frame. */
	for (i = 0; i < g->nstks; i++) {
		const struct gt2_stack *st = &g->stks[i];
		uint64_t k;

		for (k = 0; k < st->n; k++) {
			f = gt2_gen_frame(g, g->pcs[st->first + k]);
			if (gt2_gen_string(g, f->func, &s) && gt2_gen_string(g, f->file, &s))
				continue;
			if (!gt2_gen_string(g, f->func, &s))
				gt_fail(err, GT_ERR_PARSE, 0, "found invalid func string ID %" PRIu64
					" for stack %" PRIu64, f->func, st->id);
			else
				gt_fail(err, GT_ERR_PARSE, 0, "found invalid file string ID %" PRIu64
					" for stack %" PRIu64, f->file, st->id);
			return -1;
		}
	}
	return 0;
}

static int cmp_sample(const void *a, const void *b)
{
	const struct gt2_sample *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time;
}

void gt2_fix_samples(struct gt2_gen *g)
{
	size_t i;

	for (i = 0; i < g->nsamples; i++)
		g->samples[i].time = gt2_gen_ns(g, (uint64_t)g->samples[i].time);
	if (g->nsamples)
		qsort(g->samples, g->nsamples, sizeof(*g->samples), cmp_sample);
}
