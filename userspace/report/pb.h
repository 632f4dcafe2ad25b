/* SPDX-License-Identifier: GPL-2.0 */
/* A protocol buffer encoder: varints and length-delimited fields into a growing buffer (pb.c). */
#ifndef GOTRACE_PB_H
#define GOTRACE_PB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The encoded bytes so far. Out of memory, it stops growing and sets @oom;
 * the calls after that do nothing, so a caller checks once at the end.
 */
struct pb {
	uint8_t *buf;
	size_t len, cap;
	bool oom;
};

void pb_init(struct pb *b);
void pb_free(struct pb *b);
/* Field @field as a varint (wire type 0): uint64, and int64 as its two's complement. */
void pb_varint(struct pb *b, uint32_t field, uint64_t v);
/* Field @field as @n bytes (wire type 2): a string, or bytes. */
void pb_bytes(struct pb *b, uint32_t field, const void *p, size_t n);
/* Repeated field @field of @n varints, packed (one length-delimited field). */
void pb_packed(struct pb *b, uint32_t field, const uint64_t *v, size_t n);
/*
 * An embedded message @field: pb_begin() before its fields, then pb_end() with its
 * return value after them. They nest.
 */
size_t pb_begin(struct pb *b, uint32_t field);
void pb_end(struct pb *b, size_t mark);

#endif /* GOTRACE_PB_H */
