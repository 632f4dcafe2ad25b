// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace encoder: the String and Stack records of the footer (and of the
 * tables of each generation). Events, on
 * the probes' path, are written inline by gotrace_emit() (buffer.h).
 */

#include <linux/kernel.h>
#include <linux/string.h>

#include "encode_oldtrace.h"
#include "encode_tracev2.h"

/**
 * gotrace_put_string - write a String event
 * @p: destination, room for GOTRACE_STRING_MAX + 21 bytes
 * @id: string id
 * @str: the string, cut at GOTRACE_STRING_MAX bytes
 * @v2: in the format of Go 1.22 and later (the same but for its type)
 *
 * Return: one past the last byte written.
 */
u8 *gotrace_put_string(u8 *p, u64 id, const char *str, bool v2)
{
	size_t len = strnlen(str, GOTRACE_STRING_MAX);

	*p++ = v2 ? GO2_EV_STRING : GO_EV_STRING;
	p = gotrace_put_uvarint(p, id);
	p = gotrace_put_uvarint(p, len);
	memcpy(p, str, len);
	return p + len;
}

/**
 * gotrace_put_stack_head - start a Stack event: its type, id, frame count
 * @p: destination, room for GOTRACE_STACK_HEAD_MAX + 1 + @width bytes
 * @id: stack id
 * @nframes: frames that follow (gotrace_put_frame())
 * @width: before Go 1.22, bytes of the event's length, GOTRACE_LEN_1 or
 *	GOTRACE_LEN_2, by the longest stack the caller writes
 * @v2: in the format of Go 1.22 and later, which has no length
 * @lenp: set to where gotrace_put_len() writes the length once the frames
 *	are written, or NULL when the format has none
 *
 * Return: where the first frame goes.
 */
u8 *gotrace_put_stack_head(u8 *p, u64 id, u64 nframes, unsigned int width,
			   bool v2, u8 **lenp)
{
	*lenp = NULL;
	if (v2)
		*p++ = GO2_EV_STACK;
	else
		p = gotrace_put_len_start(p, GO_EV_STACK, width, lenp);
	p = gotrace_put_uvarint(p, id);
	return gotrace_put_uvarint(p, nframes);
}

/**
 * gotrace_put_frame - write one frame of a Stack event
 * @p: destination, room for GOTRACE_FRAME_MAX bytes
 * @pc: the frame's key
 * @func: string id of its function
 * @file: string id of its file
 *
 * Return: one past the last byte written.
 */
u8 *gotrace_put_frame(u8 *p, u64 pc, u64 func, u64 file)
{
	p = gotrace_put_uvarint(p, pc);
	p = gotrace_put_uvarint(p, func);
	p = gotrace_put_uvarint(p, file);
	return gotrace_put_uvarint(p, 0);	/* line */
}
