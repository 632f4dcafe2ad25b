// SPDX-License-Identifier: GPL-2.0
/*
 * The index read in two halves against the index read on one thread, on
 * the traces given (valid and not): the second half started at every
 * Batch event, near each, and at offsets all over the file (at every one
 * of a small trace), the same index or the same error. A start at a Batch
 * joins the halves; any other is thrown away.
 * Usage: test_index TRACE...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "oldtrace/internal.h"
#include "tap.h"

#define EVERY_OFFSET	(8 << 10)	/* smaller traces: a start at every offset */
#define STARTS		1000		/* larger: this many spread over the file */
#define NEAR		3		/* and these many bytes each side of a Batch */

static bool map_same(const struct gt_map *a, const struct gt_map *b)
{
	const uint64_t *v;
	size_t i;

	if (a->len != b->len)
		return false;
	for (i = 0; i < a->cap; i++) {
		if (!a->used[i])
			continue;
		v = gt_map_get(b, a->slots[i].key);
		if (!v || *v != a->slots[i].val)
			return false;
	}
	return true;
}

static bool procs_same(const struct gt_trace *a, const struct gt_trace *b)
{
	const struct gt_proc *p, *q;
	size_t i;

	if (a->nr_procs != b->nr_procs)
		return false;
	for (i = 0; i < a->nr_procs; i++) {
		p = &a->procs[i];
		q = &b->procs[i];
		if (p->id != q->id || p->nr_batches != q->nr_batches ||
		    (p->nr_batches &&
		     memcmp(p->batches, q->batches, p->nr_batches * sizeof(*p->batches))))
			return false;
	}
	return true;
}

static bool index_same(const struct gt_trace *a, const struct gt_trace *b)
{
	return a->nr_events == b->nr_events && a->nr_batches == b->nr_batches &&
	       a->nr_futile == b->nr_futile && a->min_ts == b->min_ts &&
	       a->ticks_per_sec == b->ticks_per_sec && procs_same(a, b) &&
	       a->nr_samples == b->nr_samples && (!a->nr_samples ||
	       !memcmp(a->samples, b->samples, a->nr_samples * sizeof(*a->samples))) &&
	       map_same(&a->strings, &b->strings) && map_same(&a->stacks, &b->stacks) &&
	       map_same(&a->timer_gs, &b->timer_gs);
}

/* The counts of one trace's starts. */
struct tally {
	size_t starts, joined, differ;
	uint64_t first_bad;
};

/* The second half from @half: the index or error of one thread? */
static void try_start(const void *data, size_t size, uint64_t half, const struct gt_trace *one,
		      const struct gt_error *one_err, struct tally *n)
{
	struct gt_error err = { 0 };
	struct gt_trace *t = NULL;
	bool same;

	if (gt_open_mem_at(data, size, half, &t, &err))
		same = !one && err.phase == one_err->phase && err.off == one_err->off &&
		       !strcmp(err.msg, one_err->msg);
	else
		same = one && index_same(one, t);
	n->starts++;
	n->joined += t && t->halves;
	if (!same && !n->differ++)
		n->first_bad = half;
	if (t)
		gt_close(t);
}

/* The offsets of the trace's Batch events, as one pass decodes them; their number. */
static size_t batch_offsets(const uint8_t *data, size_t size, uint64_t **offs)
{
	struct gt_error err;
	struct gt_raw raw;
	uint64_t off = GT_HEADER_SIZE, *v;
	size_t n = 0, cap = 0;
	int ver;

	*offs = NULL;
	if (gt_parse_header(data, size, &ver, &err))
		return 0;
	while (gt_wire_next(data, size, off, ver, &raw, &err) > 0) {
		if (raw.type == GT_EV_BATCH) {
			if (n == cap) {
				cap = cap ? 2 * cap : 64;
				v = realloc(*offs, cap * sizeof(*v));
				if (!v)
					break;
				*offs = v;
			}
			(*offs)[n++] = raw.off;
		}
		off = raw.end;
	}
	return n;
}

static void test_trace(const char *path, const void *data, size_t size)
{
	struct gt_error one_err = { 0 };
	struct gt_trace *one = NULL;
	struct tally n = { 0 };
	uint64_t *batches, off, step;
	size_t nr, i;
	int d;

	if (gt_open_mem_at(data, size, size, &one, &one_err))
		one = NULL;
	nr = batch_offsets(data, size, &batches);
	for (i = 0; i < nr; i++)
		for (d = -NEAR; d <= NEAR; d++)
			if (batches[i] + d >= GT_HEADER_SIZE && batches[i] + d < size)
				try_start(data, size, batches[i] + d, one, &one_err, &n);
	step = size <= EVERY_OFFSET ? 1 : size / STARTS;
	for (off = GT_HEADER_SIZE; off < size; off += step)
		try_start(data, size, off, one, &one_err, &n);
	/* In a valid trace a start at each Batch joins the halves. */
	tap_ok(!n.differ && (!one || n.joined >= nr),
	       "%s: %s, %zu Batches, %zu second-half starts (%zu joined): the same as one "
	       "thread's", path, one ? "valid" : "invalid", nr, n.starts, n.joined);
	if (n.differ)
		tap_diag("%zu starts differ, the first at offset %llu", n.differ,
			 (unsigned long long)n.first_bad);
	free(batches);
	if (one)
		gt_close(one);
}

int main(int argc, char *argv[])
{
	const void *data;
	struct gt_error err;
	size_t size;
	int i, fd;

	for (i = 1; i < argc; i++) {
		if (gt_map_file(argv[i], &data, &size, &fd, &err)) {
			tap_ok(false, "%s: %s", argv[i], err.msg);
			continue;
		}
		test_trace(argv[i], data, size);
		if (data)
			munmap((void *)data, size);
		close(fd);
	}
	return tap_done();
}
