// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace encoder: Go execution trace events, strings and stacks on the wire.
 *
 * Wire format (Go's runtime/trace.go before 1.22): an event is one byte
 * (type in the low 6 bits, number of arguments after the time stamp in the
 * top 2 bits, 3 meaning "length-prefixed"), then unsigned LEB128 values: the
 * time stamp as a delta from the previous event of the batch, then the
 * arguments, a stack id last for events that carry one.
 */

#include <linux/kernel.h>
#include <linux/string.h>

#include "gotrace.h"

/**
 * gotrace_put_uvarint - write @v as an unsigned LEB128 varint
 * @p: destination, room for 10 bytes
 * @v: value
 *
 * Return: one past the last byte written.
 */
u8 *gotrace_put_uvarint(u8 *p, u64 v)
{
	while (v >= 0x80) {
		*p++ = (u8)v | 0x80;
		v >>= 7;
	}
	*p++ = (u8)v;
	return p;
}

/**
 * gotrace_emit - append one event to a CPU's current batch
 * @c: the CPU's buffer (interrupts off, or no probe can run)
 * @ts: time stamp in trace ticks; raised to the batch's last one if earlier
 * @type: event type
 * @nargs: number of @args (a stack id, when the event has one, included)
 * @args: arguments after the time stamp
 * @closing: the event closes the trace (see gotrace_buf_reserve())
 *
 * Return: false if the buffer is full and nothing was written.
 */
bool gotrace_emit(struct gotrace_cpu *c, u64 ts, enum gotrace_ev type,
		  unsigned int nargs, const u64 *args, bool closing)
{
	u8 *p, *lenp = NULL, *body;
	unsigned int i;

	if (ts < c->last_ts)
		ts = c->last_ts;
	p = gotrace_buf_reserve(c, ts, closing);
	if (unlikely(!p))
		return false;

	*p++ = type | min(nargs, 3U) << 6;
	if (nargs >= 3)
		lenp = p++;	/* every body we write is shorter than 128 bytes */
	body = p;
	p = gotrace_put_uvarint(p, ts - c->last_ts);
	for (i = 0; i < nargs; i++)
		p = gotrace_put_uvarint(p, args[i]);
	if (lenp)
		*lenp = p - body;

	c->last_ts = ts;
	gotrace_buf_advance(c, p);
	return true;
}

/**
 * gotrace_put_string - write a String event
 * @p: destination, room for GOTRACE_STRING_MAX + 21 bytes
 * @id: string id
 * @str: the string, cut at GOTRACE_STRING_MAX bytes
 *
 * Return: one past the last byte written.
 */
u8 *gotrace_put_string(u8 *p, u64 id, const char *str)
{
	size_t len = strnlen(str, GOTRACE_STRING_MAX);

	*p++ = GO_EV_STRING;
	p = gotrace_put_uvarint(p, id);
	p = gotrace_put_uvarint(p, len);
	memcpy(p, str, len);
	return p + len;
}

/**
 * gotrace_put_frame - write one frame of a Stack event
 * @p: destination, room for 31 bytes
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
