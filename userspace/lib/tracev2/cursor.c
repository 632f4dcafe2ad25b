// SPDX-License-Identifier: GPL-2.0
/*
 * Go 1.22+ traces: one M's events of a generation in its batches' order,
 * time stamps in ns (Go's batchCursor, batchcursor.go). The parsed reader
 * merges them; the join reads them on their own.
 */
#include <stdlib.h>

#include "internal.h"

/* Go's readTimedBaseEvent() at @pos of @data: the event's length, or 0 with @err set. */
static uint64_t cursor_read_timed(const uint8_t *data, uint64_t len, uint64_t pos,
				  struct gt2_base *e, uint64_t *dt, struct gt_error *err)
{
	const struct gt2_spec *spec = gt2_spec(data[pos]);
	uint64_t off = pos + 1;
	unsigned int i, n;

	if (!spec) {
		gt_fail(err, GT_ERR_WIRE, 0, "found invalid event type: %u", data[pos]);
		return 0;
	}
	e->type = data[pos];
	if (!spec->args[0] || !spec->timed) {
		gt_fail(err, GT_ERR_WIRE, 0, "found event without a timestamp: type=%u", e->type);
		return 0;
	}
	if (!gt2_uvarint(data, len, &off, dt)) {
		gt_fail(err, GT_ERR_WIRE, 0, "found invalid uvarint for timestamp");
		return 0;
	}
	n = gt2_timed_args(e->type);
	for (i = 0; i < n; i++) {
		if (!gt2_uvarint(data, len, &off, &e->args[i])) {
			gt_fail(err, GT_ERR_WIRE, 0, "found invalid uvarint");
			return 0;
		}
	}
	return off - pos;
}

int gt2_cursor_enter(const struct gt2_trace *t, const struct gt2_gen *g, struct gt2_cursor *c,
		     size_t i, struct gt_error *err)
{
	const struct gt2_batch *b;
	uint8_t *buf;

	c->batch = i;
	c->pos = 0;
	c->last_ts = 0;
	if (i == SIZE_MAX)
		return 0;
	b = &g->batches[i];
	if (b->len > c->cap) {
		buf = realloc(c->buf, b->len);
		if (!buf) {
			gt_fail(err, GT_OK, 0, "out of memory");
			return -1;
		}
		c->buf = buf;
		c->cap = b->len;
	}
	return gt2_read(t, b->data_off, c->buf, b->len, err);
}

int gt2_cursor_next(const struct gt2_trace *t, const struct gt2_gen *g, struct gt2_cursor *c,
		    struct gt_error *err)
{
	const struct gt2_batch *b;
	uint64_t dt, n;

	while (c->batch != SIZE_MAX && g->batches[c->batch].len == c->pos)
		if (gt2_cursor_enter(t, g, c, g->batches[c->batch].next, err))
			return -1;
	if (c->batch == SIZE_MAX)
		return 0;
	b = &g->batches[c->batch];
	if (!c->last_ts)
		c->last_ts = gt2_gen_ns(g, b->time);
	n = cursor_read_timed(c->buf, b->len, c->pos, &c->ev, &dt, err);
	if (!n) {
		err->off = b->data_off + c->pos;
		return -1;
	}
	c->ev.off = b->data_off + c->pos;
	c->ev.time = (int64_t)((uint64_t)gt2_gen_ns(g, dt) + (uint64_t)c->last_ts);
	c->last_ts = c->ev.time;
	c->pos += n;
	return 1;
}
