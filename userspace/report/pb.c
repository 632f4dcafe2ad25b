// SPDX-License-Identifier: GPL-2.0
/*
 * A protocol buffer encoder, enough for profile.proto: varint fields (wire
 * type 0) and length-delimited ones (wire type 2: strings, packed repeated
 * varints, embedded messages). An embedded message's length is not known
 * before its fields are: pb_begin() leaves one byte for it and pb_end()
 * moves the fields up when the length takes more.
 */
#include <stdlib.h>
#include <string.h>

#include "gtrace.h"
#include "report/pb.h"

enum { PB_VARINT = 0, PB_LEN = 2 };

void pb_init(struct pb *b)
{
	memset(b, 0, sizeof(*b));
}

void pb_free(struct pb *b)
{
	free(b->buf);
	pb_init(b);
}

/* Room for @n more bytes: false (and b->oom set) if there is none. */
static bool pb_room(struct pb *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 256;
	uint8_t *p;

	if (b->oom)
		return false;
	if (b->len + n <= b->cap)
		return true;
	while (cap < b->len + n)
		cap *= 2;
	p = realloc(b->buf, cap);
	if (!p) {
		b->oom = true;
		return false;
	}
	b->buf = p;
	b->cap = cap;
	return true;
}

static size_t pb_varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static void pb_raw_varint(struct pb *b, uint64_t v)
{
	if (pb_room(b, 10))
		b->len += gt_put_uvarint(b->buf + b->len, v);
}

static void pb_tag(struct pb *b, uint32_t field, unsigned int type)
{
	pb_raw_varint(b, (uint64_t)field << 3 | type);
}

void pb_varint(struct pb *b, uint32_t field, uint64_t v)
{
	pb_tag(b, field, PB_VARINT);
	pb_raw_varint(b, v);
}

void pb_bytes(struct pb *b, uint32_t field, const void *p, size_t n)
{
	pb_tag(b, field, PB_LEN);
	pb_raw_varint(b, n);
	if (n && pb_room(b, n)) {
		memcpy(b->buf + b->len, p, n);
		b->len += n;
	}
}

void pb_packed(struct pb *b, uint32_t field, const uint64_t *v, size_t n)
{
	size_t len = 0, i;

	if (!n)
		return;
	for (i = 0; i < n; i++)
		len += pb_varint_len(v[i]);
	pb_tag(b, field, PB_LEN);
	pb_raw_varint(b, len);
	if (!pb_room(b, len))
		return;
	for (i = 0; i < n; i++)
		b->len += gt_put_uvarint(b->buf + b->len, v[i]);
}

size_t pb_begin(struct pb *b, uint32_t field)
{
	pb_tag(b, field, PB_LEN);
	if (!pb_room(b, 1))
		return 0;
	b->buf[b->len] = 0;
	return b->len++;
}

void pb_end(struct pb *b, size_t mark)
{
	size_t n, k;

	if (b->oom)
		return;
	n = b->len - mark - 1;
	k = pb_varint_len(n);
	if (k > 1) {
		if (!pb_room(b, k - 1))
			return;
		memmove(b->buf + mark + k, b->buf + mark + 1, n);
		b->len += k - 1;
	}
	gt_put_uvarint(b->buf + mark, n);
}
