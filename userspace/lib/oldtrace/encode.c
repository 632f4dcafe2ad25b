// SPDX-License-Identifier: GPL-2.0
/* Encoding events, strings and stacks as Go's runtime writes them (the reverse of wire.c). */
#include <string.h>

#include "internal.h"

/* The type byte, then @n values: inline for up to 3, else after their byte length. */
static size_t put_values(uint8_t *buf, unsigned int type, const uint64_t *v, unsigned int n)
{
	uint8_t tmp[GT_RAW_ARGS * 10];
	size_t len = 0, i;

	if (n < 4) {
		buf[len++] = (uint8_t)(type | (n ? n - 1 : 0) << 6);
		for (i = 0; i < n; i++)
			len += gt_put_uvarint(buf + len, v[i]);
		return len;
	}
	for (i = 0; i < n; i++)
		len += gt_put_uvarint(tmp + len, v[i]);
	buf[0] = (uint8_t)(type | 3 << 6);
	i = 1 + gt_put_uvarint(buf + 1, len);
	memcpy(buf + i, tmp, len);
	return i + len;
}

size_t gt_encode_event(const struct gt_trace *t, const struct gt_event *ev, uint64_t delta,
		       uint8_t *buf)
{
	uint64_t v[GT_RAW_ARGS];
	unsigned int n = 0, nargs = t->nr_args[ev->type], i;
	bool timed = ev->type != GT_EV_BATCH && ev->type != GT_EV_FREQUENCY &&
		     ev->type != GT_EV_TIMER_GOROUTINE;
	bool stack = gt_descs[ev->type].stack;
	size_t len;

	if (timed)
		v[n++] = delta;
	for (i = 0; n < nargs - stack; i++)
		v[n++] = ev->args[i];
	if (stack)
		v[n++] = ev->stk;
	len = put_values(buf, ev->type, v, n);
	if (ev->type != GT_EV_USER_LOG)
		return len;
	len += gt_put_uvarint(buf + len, ev->str_len);
	memcpy(buf + len, t->data + ev->str_off, ev->str_len);
	return len + ev->str_len;
}

size_t gt_encode_string(uint64_t id, size_t len, uint8_t *buf)
{
	size_t n = 1;

	buf[0] = GT_EV_STRING;
	n += gt_put_uvarint(buf + n, id);
	return n + gt_put_uvarint(buf + n, len);
}

const uint8_t *gt_stack_wire(const struct gt_trace *t, uint64_t id, size_t *len)
{
	const uint64_t *off = id ? gt_map_get(&t->stacks, id) : NULL;
	struct gt_error err;
	struct gt_raw raw;

	if (!off)
		return NULL;
	gt_wire_next(t->data, t->size, *off, t->ver, &raw, &err);
	*len = raw.end - raw.off;
	return t->data + raw.off;
}
