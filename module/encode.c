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

/* Strings and the one stack of the footer. */
static const char *const gotrace_strings[] = {
	[1] = "linux.thread",
	[2] = "gotrace",
};

static u8 *gotrace_put_string(u8 *p, u64 id, const char *s)
{
	size_t len = strlen(s);

	*p++ = GO_EV_STRING;
	p = gotrace_put_uvarint(p, id);
	p = gotrace_put_uvarint(p, len);
	memcpy(p, s, len);
	return p + len;
}

static u8 *gotrace_put_stack(u8 *p, u64 id, u64 pc, u64 func, u64 file)
{
	u8 *lenp, *body;

	*p++ = GO_EV_STACK | 3 << 6;
	lenp = p++;
	body = p;
	p = gotrace_put_uvarint(p, id);
	p = gotrace_put_uvarint(p, 1);		/* frames */
	p = gotrace_put_uvarint(p, pc);
	p = gotrace_put_uvarint(p, func);
	p = gotrace_put_uvarint(p, file);
	p = gotrace_put_uvarint(p, 0);		/* line */
	*lenp = p - body;
	return p;
}

/**
 * gotrace_footer_size - an upper bound of the footer's size
 */
size_t gotrace_footer_size(void)
{
	size_t size = 64;
	int i;

	for (i = 1; i < ARRAY_SIZE(gotrace_strings); i++)
		size += 24 + strlen(gotrace_strings[i]);
	return size;
}

/**
 * gotrace_footer_write - the footer: frequency, strings, stacks
 * @buf: gotrace_footer_size() bytes
 * @ts: time stamp of the footer's batch
 *
 * As Go's ReadTrace does, the footer opens a batch (P 0, no events), so that
 * readers that decode strings only inside batches see them.
 *
 * Return: the footer's length.
 */
size_t gotrace_footer_write(u8 *buf, u64 ts)
{
	u8 *p = buf;
	int i;

	*p++ = GO_EV_BATCH | 1 << 6;
	p = gotrace_put_uvarint(p, 0);
	p = gotrace_put_uvarint(p, ts);
	*p++ = GO_EV_FREQUENCY;
	p = gotrace_put_uvarint(p, GOTRACE_TS_FREQ);
	for (i = 1; i < ARRAY_SIZE(gotrace_strings); i++)
		p = gotrace_put_string(p, i, gotrace_strings[i]);
	p = gotrace_put_stack(p, GOTRACE_STACK_THREAD, 1, 1, 2);
	return p - buf;
}
