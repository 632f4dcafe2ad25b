// SPDX-License-Identifier: GPL-2.0
/* Building Go traces byte by byte: varints, events, strings, stacks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gtrace.h"
#include "tracev2.h"
#include "tracebuf.h"

void tb_free(struct tbuf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

void tb_bytes(struct tbuf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = 2 * (b->len + n) + 64;
		b->data = realloc(b->data, b->cap);
		if (!b->data) {
			perror("tracebuf");
			exit(EXIT_FAILURE);
		}
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

void tb_varint(struct tbuf *b, uint64_t v)
{
	uint8_t buf[10];
	size_t n = 0;

	while (v >= 0x80) {
		buf[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	buf[n++] = (uint8_t)v;
	tb_bytes(b, buf, n);
}

void tb_header(struct tbuf *b, int minor)
{
	char h[17];

	memset(h, 0, sizeof(h));
	snprintf(h, sizeof(h), "go 1.%d trace", minor);
	tb_bytes(b, h, 16);
}

void tb_event(struct tbuf *b, unsigned int type, unsigned int n, const uint64_t *v)
{
	struct tbuf args = { 0 };
	uint8_t c;
	unsigned int i;

	if (n && n <= 3) {
		c = (uint8_t)(type | (n - 1) << 6);
		tb_bytes(b, &c, 1);
		for (i = 0; i < n; i++)
			tb_varint(b, v[i]);
		return;
	}
	c = (uint8_t)(type | 3 << 6);
	tb_bytes(b, &c, 1);
	for (i = 0; i < n; i++)
		tb_varint(&args, v[i]);
	tb_varint(b, args.len);
	tb_bytes(b, args.data, args.len);
	tb_free(&args);
}

void tb_event2(struct tbuf *b, unsigned int type, unsigned int n, const uint64_t *v)
{
	uint8_t c = (uint8_t)type;
	unsigned int i;

	tb_bytes(b, &c, 1);
	for (i = 0; i < n; i++)
		tb_varint(b, v[i]);
}

void tb_string(struct tbuf *b, uint64_t id, const char *s)
{
	uint8_t c = GT_EV_STRING;

	tb_bytes(b, &c, 1);
	tb_varint(b, id);
	tb_varint(b, strlen(s));
	tb_bytes(b, s, strlen(s));
}

void tb_string2(struct tbuf *b, uint64_t id, const char *s)
{
	tb_event2(b, GT2_EV_STRING, 2, (uint64_t[]){ id, strlen(s) });
	tb_bytes(b, s, strlen(s));
}

void tb_stack(struct tbuf *b, uint64_t id, unsigned int n, const uint64_t (*frames)[4])
{
	uint64_t *v = calloc(2 + 4 * (size_t)n, sizeof(*v));
	unsigned int i;

	v[0] = id;
	v[1] = n;
	for (i = 0; i < n; i++)
		memcpy(&v[2 + 4 * i], frames[i], sizeof(frames[i]));
	tb_event(b, GT_EV_STACK, 2 + 4 * n, v);
	free(v);
}
