// SPDX-License-Identifier: GPL-2.0
/*
 * Reading one P's events back from the mapped file: its batches in file
 * order, each time stamp the sum of deltas since the batch header, and the
 * goroutine of each event as Go's parseEvents() assigns it (the last one
 * started on that P).
 */
#include <string.h>

#include "internal.h"

void gt_cursor_init(struct gt_cursor *c, const struct gt_trace *t, const struct gt_proc *proc)
{
	memset(c, 0, sizeof(*c));
	c->t = t;
	c->proc = proc;
}

/*
 * A varint of an event the index checked: it ends within the data, in at
 * most 10 bytes. Most are one byte (small deltas, Ps, sequence numbers).
 */
static inline uint64_t read_uvarint(const uint8_t **p)
{
	const uint8_t *q = *p;
	uint64_t x = *q++;
	unsigned int shift = 7;

	if (x & 0x80) {
		x &= 0x7f;
		do {
			x |= (uint64_t)(*q & 0x7f) << shift;
			shift += 7;
		} while (*q++ & 0x80);
	}
	*p = q;
	return x;
}

/*
 * The timed event at @off into @ev, all but its time, P and goroutine, which
 * the caller sets: the index decoded it once with every check, so this
 * reads it straight into the event, knowing from its type's GT_READ_* how
 * (a stack id, if any, is the last argument). Returns its time stamp's
 * delta; *@end is past it. Inlined: it is the merge's every event.
 */
static inline __attribute__((always_inline)) uint64_t
read_event(const struct gt_trace *t, uint64_t off, struct gt_event *ev, uint64_t *end)
{
	const uint8_t *p = t->data + off;
	unsigned int type = *p & 0x3f, how = t->read_as[type], n = how & GT_READ_ARGS;
	uint64_t delta;

	if (*p++ >> 6 == 3)
		read_uvarint(&p);	/* the arguments' length in bytes */
	ev->off = off;
	ev->type = (uint8_t)type;
	delta = read_uvarint(&p);
	ev->args[0] = n > 0 ? read_uvarint(&p) : 0;
	ev->args[1] = n > 1 ? read_uvarint(&p) : 0;
	ev->args[2] = n > 2 ? read_uvarint(&p) : 0;
	ev->stk = how & GT_READ_STACK ? read_uvarint(&p) : 0;
	ev->str_off = 0;
	ev->str_len = 0;
	if (how & GT_READ_LOG) {
		ev->str_len = read_uvarint(&p);
		ev->str_off = (uint64_t)(p - t->data);
		p += ev->str_len;
	}
	*end = (uint64_t)(p - t->data);
	return delta;
}

void gt_event_at(const struct gt_trace *t, uint64_t off, struct gt_event *ev)
{
	uint64_t end;

	memset(ev, 0, sizeof(*ev));
	read_event(t, off, ev, &end);
}

/* Go's rules for the goroutine of an event and of the events after it. */
static void assign_g(struct gt_cursor *c, struct gt_event *ev)
{
	ev->g = c->last_g;
	switch (ev->type) {
	case GT_EV_GO_START:
	case GT_EV_GO_START_LOCAL:
	case GT_EV_GO_START_LABEL:
		ev->g = c->last_g = ev->args[0];
		break;
	case GT_EV_STW_START:
	case GT_EV_STW_DONE:
	case GT_EV_GC_START:
	case GT_EV_GC_DONE:
		ev->g = 0;
		break;
	case GT_EV_GO_END:
	case GT_EV_GO_STOP:
	case GT_EV_GO_SCHED:
	case GT_EV_GO_PREEMPT:
		c->last_g = 0;
		break;
	case GT_EV_GO_SYSEXIT:
	case GT_EV_GO_WAITING:
	case GT_EV_GO_IN_SYSCALL:
		ev->g = ev->args[0];
		break;
	default:
		if (gt_descs[ev->type].block)
			c->last_g = 0;
	}
}

/* CPU samples carry their own time, P and goroutine. */
static bool sample_next(struct gt_cursor *c, struct gt_event *ev)
{
	if (c->next == c->t->nr_samples)
		return false;
	gt_event_at(c->t, c->t->samples[c->next++].off, ev);
	ev->ts = (int64_t)ev->args[0];
	ev->p = (int64_t)ev->args[1];
	ev->g = ev->args[2];
	ev->args[0] = 0;
	ev->wire_ts = ev->ts;
	ev->wire_p = ev->p;
	return true;
}

/* Moves to the next batch of the P; false after the last. */
static bool batch_next(struct gt_cursor *c)
{
	const struct gt_batch *b;

	if (c->next == c->proc->nr_batches)
		return false;
	b = &c->proc->batches[c->next++];
	c->off = b->off;
	c->last_ts = b->ts;
	return true;
}

bool gt_cursor_next(struct gt_cursor *c, struct gt_event *ev)
{
	const struct gt_trace *t = c->t;
	struct gt_error err;
	struct gt_raw raw;
	unsigned int type;
	uint64_t delta;

	if (!c->proc)
		return sample_next(c, ev);
	for (;;) {
		if (!c->off && !batch_next(c))
			return false;
		if (c->off >= t->size) {
			c->off = 0;
			continue;
		}
		type = t->data[c->off] & 0x3f;
		if (t->read_as[type] & GT_READ_SKIP) {
			/* A Batch ends this one; a String, Stack, ... in it is skipped. */
			if (type == GT_EV_BATCH) {
				c->off = 0;
				continue;
			}
			gt_wire_next(t->data, t->size, c->off, t->ver, &raw, &err);
			c->off = raw.end;
			continue;
		}
		delta = read_event(t, c->off, ev, &c->off);
		c->last_ts = (int64_t)((uint64_t)c->last_ts + delta);
		if (ev->type == GT_EV_CPU_SAMPLE)
			continue;
		ev->ts = ev->wire_ts = c->last_ts;
		ev->p = ev->wire_p = c->proc->id;
		assign_g(c, ev);
		return true;
	}
}
