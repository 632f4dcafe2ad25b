/* SPDX-License-Identifier: GPL-2.0 */
/* What both of Go's trace formats write alike: varints, lengths, strings, frames (encode.c). */
#ifndef _GOTRACE_ENCODE_H
#define _GOTRACE_ENCODE_H

#include <linux/build_bug.h>
#include <linux/minmax.h>
#include <linux/types.h>

/* Largest single event we write, a batch header included. */
#define GOTRACE_EV_MAX		64

/* Longest string a String record carries. */
#define GOTRACE_STRING_MAX	255

/*
 * A length-prefixed event's length is written after its body, into room
 * kept for it: an unsigned LEB128 varint padded to GOTRACE_LEN_1 or
 * GOTRACE_LEN_2 bytes (Go reads a varint's redundant high groups), so bodies
 * must be shorter than 128 or 16384 bytes.
 */
#define GOTRACE_LEN_1		1
#define GOTRACE_LEN_2		2
#define GOTRACE_LEN_LIMIT(w)	(1U << (7 * (w)))

/**
 * gotrace_put_uvarint - write @v as an unsigned LEB128 varint
 * @p: destination, room for 10 bytes
 * @v: value
 *
 * Return: one past the last byte written.
 */
static __always_inline u8 *gotrace_put_uvarint(u8 *p, u64 v)
{
	while (v >= 0x80) {
		*p++ = (u8)v | 0x80;
		v >>= 7;
	}
	*p++ = (u8)v;
	return p;
}

/**
 * gotrace_put_args - write an event's arguments, unsigned LEB128 each
 * @p: where
 * @nargs: how many
 * @args: the arguments
 *
 * Unrolled for the first four, so that a call site's constant @nargs keeps
 * them in registers (the formats' events on the probes' path have at most
 * four).
 *
 * Return: one past the last byte written.
 */
static __always_inline u8 *gotrace_put_args(u8 *p, unsigned int nargs,
					    const u64 *args)
{
	unsigned int i;

	if (nargs > 0)
		p = gotrace_put_uvarint(p, args[0]);
	if (nargs > 1)
		p = gotrace_put_uvarint(p, args[1]);
	if (nargs > 2)
		p = gotrace_put_uvarint(p, args[2]);
	if (nargs > 3)
		p = gotrace_put_uvarint(p, args[3]);
	for (i = 4; i < nargs; i++)
		p = gotrace_put_uvarint(p, args[i]);
	return p;
}

/**
 * gotrace_put_len - end a length-prefixed event: write its body's length
 * @lenp: from gotrace_put_len_start()
 * @end: one past the body's last byte
 * @width: as given to gotrace_put_len_start()
 *
 * The caller's bound on the body, checked at build time where it can be,
 * keeps it below GOTRACE_LEN_LIMIT(@width).
 */
static __always_inline void gotrace_put_len(u8 *lenp, const u8 *end,
					    unsigned int width)
{
	size_t len = end - (lenp + width);

	if (width == GOTRACE_LEN_2) {
		lenp[0] = (len & 0x7f) | 0x80;
		lenp[1] = len >> 7;
	} else {
		lenp[0] = len;
	}
}

/* Footer records (encode.c). */
u8 *gotrace_put_string(u8 *p, u64 id, const char *str, bool v2);
/* A frame of a Stack event: four varints of at most 10, 10, 10 and 1 bytes. */
#define GOTRACE_FRAME_MAX	31
u8 *gotrace_put_frame(u8 *p, u64 pc, u64 func, u64 file);
/* A Stack event's body before its frames: id and frame count varints. */
#define GOTRACE_STACK_HEAD_MAX	(5 + 5)
u8 *gotrace_put_stack_head(u8 *p, u64 id, u64 nframes, unsigned int width,
			   bool v2, u8 **lenp);

#endif /* _GOTRACE_ENCODE_H */
