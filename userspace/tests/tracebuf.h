/* SPDX-License-Identifier: GPL-2.0 */
/* Building Go traces byte by byte, for tests, fuzz seeds and benchmarks. */
#ifndef GOTRACE_TRACEBUF_H
#define GOTRACE_TRACEBUF_H

#include <stddef.h>
#include <stdint.h>

struct tbuf {
	uint8_t *data;
	size_t len, cap;
};

void tb_free(struct tbuf *b);
void tb_bytes(struct tbuf *b, const void *p, size_t n);
void tb_varint(struct tbuf *b, uint64_t v);
/* "go 1.@minor trace" and NUL padding. */
void tb_header(struct tbuf *b, int minor);
/* An event with @n values (time delta first for timed events). */
void tb_event(struct tbuf *b, unsigned int type, unsigned int n, const uint64_t *v);
void tb_string(struct tbuf *b, uint64_t id, const char *s);
/* A stack of @n frames {pc, func id, file id, line}. */
void tb_stack(struct tbuf *b, uint64_t id, unsigned int n, const uint64_t (*frames)[4]);

/* A Go 1.22+ event: its type byte, then @n varints. */
void tb_event2(struct tbuf *b, unsigned int type, unsigned int n, const uint64_t *v);
/* A Go 1.22+ String event: its id, then @s. */
void tb_string2(struct tbuf *b, uint64_t id, const char *s);

#define TB_NARGS(...) (sizeof((uint64_t[]){ __VA_ARGS__ }) / sizeof(uint64_t))
#define TB_EV(b, type, ...) tb_event(b, type, TB_NARGS(__VA_ARGS__), (uint64_t[]){ __VA_ARGS__ })

#define TB_EV2(b, type, ...) tb_event2(b, type, TB_NARGS(__VA_ARGS__), (uint64_t[]){ __VA_ARGS__ })

#endif /* GOTRACE_TRACEBUF_H */
