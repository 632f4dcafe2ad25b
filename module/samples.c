// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace CPU samples: when a start asks for cpu_sample_hz, one perf event
 * per online CPU, the software CPU clock (which needs no hardware PMU, as
 * in a TCG guest), interrupts it that often. Its overflow handler runs from
 * an hrtimer in hard interrupt context (HRTIMER_MODE_REL_PINNED_HARD, not
 * an NMI), so it never interrupts a probe writing into the CPU's buffer
 * (they do so with interrupts off) and writes the CPUSample itself
 * (gotrace_sample_take()).
 *
 * Formats 1.19 and 1.21 write it into the CPU's buffer, among its events.
 * From 1.22 on, Go's reader takes samples only from batches of their own,
 * one kind per batch: the handler keeps each sample in its CPU's sample
 * ring (gotrace_samples_keep()), tagged with the CPU's generation, and the
 * reader writes a closed generation's samples as its CPU-sample batches,
 * before its tables (gotrace_samples_batch()). The handler is the ring's
 * only writer, the reader its only reader. A sample that finds the ring
 * full is dropped, as Go's runtime drops those its profile buffer has no
 * room for; a ring half full starts the next generation, so that the
 * reader drains it.
 *
 * A flight recorder's rings are read by nobody: they keep each CPU's
 * newest GOTRACE_SRING_SIZE samples, overwriting the oldest as its
 * buffers overwrite their oldest chunks, and a snapshot copies those of
 * its generations (gotrace_samples_copy()) for its reader's batches.
 *
 * The events are created before the start snapshot publishes the session
 * and released once it is unpublished, or cut short, in process context
 * under gotrace_dev.lock. A CPU that comes online later is not sampled;
 * one that goes offline stops being sampled (perf turns its event off).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/err.h>
#include <linux/irq_work.h>
#include <linux/perf_event.h>
#include <linux/slab.h>

#include "buffer.h"
#include "clock.h"
#include "cpu.h"
#include "dev.h"
#include "encode_oldtrace.h"
#include "encode_tracev2.h"
#include "gfp.h"
#include "kstacks.h"
#include "programs.h"
#include "record.h"
#include "samples.h"
#include "session.h"
#include "threads.h"

/* Samples a CPU's ring keeps: a power of two. */
#define GOTRACE_SRING_SIZE	2048
/* A CPUSample event at most: the type and five values. */
#define GOTRACE_SAMPLE_MAX	(1 + 5 * 10)

/**
 * struct gotrace_sample - a CPU sample kept for its generation's batch
 * @ts:		its time stamp.
 * @g:		the goroutine, 0 for none.
 * @gen:	the generation of its CPU when it was taken.
 * @stack:	its stack id (kstacks.c).
 */
struct gotrace_sample {
	u64 ts;
	u64 g;
	u32 gen;
	u32 stack;
};

/**
 * struct gotrace_sring - one CPU's samples not read yet
 * @head:	samples written; only the CPU's sample handler writes it.
 * @tail:	samples read; only the reader writes it.
 * @ent:	the samples, at @head and @tail modulo GOTRACE_SRING_SIZE.
 */
struct gotrace_sring {
	u32 head;
	u32 tail;
	struct gotrace_sample ent[GOTRACE_SRING_SIZE];
};

/**
 * gotrace_srings_alloc - empty sample rings for every possible CPU
 *
 * Return: the rings, by CPU number, or NULL if they cannot be allocated.
 */
struct gotrace_sring *gotrace_srings_alloc(void)
{
	return kvcalloc(nr_cpu_ids, sizeof(struct gotrace_sring), GOTRACE_GFP);
}

/**
 * gotrace_srings_free - free sample rings
 * @sr: the rings, or NULL
 */
void gotrace_srings_free(struct gotrace_sring *sr)
{
	kvfree(sr);
}

/*
 * gotrace_samples_keep - keep a sample for its generation's batch
 * @s: the session being recorded, with generations and samples
 * @c: this CPU's state
 * @ts: the sample's time stamp
 * @stack: its stack id
 *
 * Called by gotrace_sample_take() in hard interrupt context: it does not
 * interrupt itself, nor the generation work's function call on this CPU
 * that moves @c to the next generation.
 *
 * Return: true; false if the ring is full and the sample dropped.
 */
static bool gotrace_samples_keep(struct gotrace_session *s,
				 struct gotrace_cpu *c, u64 ts, u32 stack)
{
	struct gotrace_sring *r = &s->samples.rings[c->cpu];
	struct gotrace_sample *e;
	u32 head = r->head, used = 0;

	if (s->flight.on) {
		/*
		 * A flight recorder overwrites its oldest sample; nobody reads
		 * @tail. Pairs with the smp_rmb() in gotrace_sring_copy(): the
		 * head before the entry it lets this store overwrite, as a
		 * seqcount's writer does.
		 */
		smp_wmb();
	} else {
		/* Pairs with the release in gotrace_sring_next(): the entry is free. */
		used = head - smp_load_acquire(&r->tail);
		if (used >= GOTRACE_SRING_SIZE)
			return false;
	}
	e = &r->ent[head % GOTRACE_SRING_SIZE];
	e->ts = ts;
	e->g = c->cur_g;
	e->gen = c->ring.gen;
	e->stack = stack;
	/*
	 * Pairs with the acquire in gotrace_sring_next() and in
	 * gotrace_samples_copy(): the entry first.
	 */
	smp_store_release(&r->head, head + 1);
	if (!s->flight.on && used + 1 == GOTRACE_SRING_SIZE / 2)
		irq_work_queue(&s->gen.kick);
	return true;
}

/*
 * One CPU's part of gotrace_samples_copy(): the entries of @r, which its
 * handler may be overwriting meanwhile, whose generation is @first to
 * @last, into @dst at the same indices.
 */
static void gotrace_sring_copy(struct gotrace_sring *dst,
			       const struct gotrace_sring *r, u32 first,
			       u32 last)
{
	u32 head, lo, idx, valid;

	/* Pairs with the release in gotrace_samples_keep(): entries first. */
	head = smp_load_acquire(&r->head);
	lo = head - min_t(u32, head, GOTRACE_SRING_SIZE);
	for (idx = lo; idx != head; idx++)
		dst->ent[idx % GOTRACE_SRING_SIZE] = r->ent[idx % GOTRACE_SRING_SIZE];
	/*
	 * The copies before the head read again, as a seqcount's reader
	 * does (pairs with the smp_wmb() in gotrace_samples_keep()): while
	 * the head is h, the handler may be writing entry h over entry
	 * h - GOTRACE_SRING_SIZE, so the entries copied from then on, after
	 * h - GOTRACE_SRING_SIZE, are whole.
	 */
	smp_rmb();
	valid = READ_ONCE(r->head) - GOTRACE_SRING_SIZE + 1;
	if ((s32)(valid - lo) > 0)
		lo = valid;
	/* Generations only grow along the ring: skip the older, stop at newer. */
	while (lo != head && dst->ent[lo % GOTRACE_SRING_SIZE].gen < first)
		lo++;
	for (idx = lo; idx != head && dst->ent[idx % GOTRACE_SRING_SIZE].gen <= last; idx++)
		;
	dst->tail = lo;
	dst->head = idx;
}

/**
 * gotrace_samples_copy - a flight recorder's samples of a snapshot
 * @s: the session, a flight recorder
 * @first: the snapshot's first generation
 * @last: its last, closed: no CPU takes a sample of it any more
 *
 * Runs in process context while the handlers may overwrite the oldest
 * samples: a sample of the snapshot's generations that was overwritten
 * before it was copied is not in the copy (its oldest generations may
 * have none when the rings hold less time than the buffers).
 *
 * Return: the copy, by CPU, for gotrace_samples_batch(); NULL without
 * samples; an ERR_PTR(-ENOMEM).
 */
struct gotrace_sring *gotrace_samples_copy(struct gotrace_session *s,
					   u32 first, u32 last)
{
	struct gotrace_sring *copy;
	int cpu;

	if (!s->samples.rings)
		return NULL;
	copy = gotrace_srings_alloc();
	if (!copy)
		return ERR_PTR(-ENOMEM);
	for_each_possible_cpu(cpu)
		gotrace_sring_copy(&copy[cpu], &s->samples.rings[cpu], first, last);
	return copy;
}

/* The next sample of @r in generation @gen or before, into @e; false if none. */
static bool gotrace_sring_next(struct gotrace_sring *r, u32 gen,
			       struct gotrace_sample *e)
{
	u32 tail = r->tail;

	/* Pairs with the release in gotrace_samples_keep(). */
	if (tail == smp_load_acquire(&r->head))
		return false;
	*e = r->ent[tail % GOTRACE_SRING_SIZE];
	if (e->gen > gen)
		return false;
	/* Pairs with the acquire in gotrace_samples_keep(): read first. */
	smp_store_release(&r->tail, tail + 1);
	return true;
}

/**
 * gotrace_samples_batch - the next CPU-sample batch of the generation read
 * @s: the session; its reader is writing the tables of s->rd.gen, closed
 * @rings: the samples' rings: the session's, or a flight recorder's
 *         snapshot's copy (gotrace_samples_copy()); NULL: none
 * @buf: where
 * @size: room at @buf
 *
 * Its samples: those of the CPUs from s->footer.pos on, the generation's
 * and (none are left) earlier ones; s->footer.pos is then the CPU to go on
 * with. Every stack they name was interned before the generation closed,
 * so its tables, set up after that, have it.
 *
 * Return: the batch's bytes, 0 once no sample of the generation is left.
 */
size_t gotrace_samples_batch(struct gotrace_session *s,
			     struct gotrace_sring *rings, u8 *buf, size_t size)
{
	u8 *p, *body, *lenp, *end = buf + size - GOTRACE_SAMPLE_MAX;
	struct gotrace_sample e;
	u32 cpu;
	u64 args[5];

	if (!rings)
		return 0;
	p = gotrace2_put_batch(buf, s->rd.gen, GO2_NO_THREAD, s->end_ts, &lenp);
	*p++ = GO2_EV_CPU_SAMPLES;
	body = p;
	for (cpu = s->footer.pos; cpu < nr_cpu_ids && p <= end; cpu++) {
		while (p <= end &&
		       gotrace_sring_next(&rings[cpu], s->rd.gen, &e)) {
			/* The time stamp, then M and P (both the CPU), G, stack. */
			args[0] = e.ts;
			args[1] = cpu;
			args[2] = cpu;
			args[3] = e.g;
			args[4] = e.stack;
			*p++ = GO2_EV_CPU_SAMPLE;
			p = gotrace_put_args(p, ARRAY_SIZE(args), args);
		}
		if (p > end)
			break;
	}
	s->footer.pos = cpu;
	if (p == body)
		return 0;
	gotrace_put_len(lenp, p, GOTRACE_LEN_2);
	return p - buf;
}

/* The program a CPU sample names: its thread's, as the trace knows it. */
static u32 gotrace_sample_prog(struct gotrace_session *s, struct gotrace_cpu *c)
{
	if (c->cur_g)
		return READ_ONCE(c->cur_t->prog);
	/* A thread the filter leaves out keeps its name out of the trace. */
	if (s->filter)
		return GOTRACE_PROG_UNTRACED;
	return gotrace_prog_id(s->progs, current->comm);
}

/*
 * gotrace_sample_take - a CPU sample: CPUSample [time, P, G, kernel stack]
 * @want: the session whose perf event took it
 * @regs: the registers of the code it interrupted
 *
 * Runs in hard interrupt context (the perf event's hrtimer), so no probe
 * runs on this CPU meanwhile. Writes only while @want is the session being
 * recorded: the goroutine is what this CPU's P runs in the trace (0 for an
 * untraced thread); the stack, the interrupted kernel code's (only the
 * program's frame if it was user code). A sample taken after a cut is not
 * counted; one that finds the buffer full cuts the trace and counts as
 * dropped. With generations, the sample goes to its CPU's sample ring
 * instead, for its generation's CPU-sample batch, or is dropped if the
 * ring is full.
 */
static void gotrace_sample_take(struct gotrace_session *want,
				struct pt_regs *regs)
{
	struct gotrace_session *s = rcu_dereference_sched(gotrace_live);
	struct gotrace_cpu *c;
	u64 args[4], ts;
	u8 *p;

	lockdep_assert_irqs_disabled();
	if (s != want || READ_ONCE(s->mode) != GOTRACE_MODE_ON)
		return;
	c = this_cpu_ptr(s->cpus);
	ts = gotrace_clock(s);
	args[0] = ts;
	args[1] = c->cpu;
	args[2] = c->cur_g;
	args[3] = gotrace_kstack_regs(s, gotrace_sample_prog(s, c), regs);
	/* Go 1.22+ reads samples only from batches of their own. */
	if (s->v2) {
		if (gotrace_samples_keep(s, c, ts, args[3]))
			c->samples++;
		else
			c->samples_dropped++;
		return;
	}
	if (!gotrace_buf_reserve(&c->ring, &ts, 1, false, &p)) {
		c->samples_dropped++;
		gotrace_cut(s, c, ts);
		return;
	}
	c->samples++;
	/*
	 * Time stamp delta 0, as Go's runtime writes it: the time is the
	 * argument, and Go 1.22+'s reader of these formats skips the event
	 * without adding its delta to the batch's time.
	 */
	p = gotrace_put_event(p, GO_EV_CPU_SAMPLE, 0, ARRAY_SIZE(args), args);
	gotrace_buf_advance(&c->ring, p, c->ring.last_ts, 1);
}

static void gotrace_sample_overflow(struct perf_event *event,
				    struct perf_sample_data *data,
				    struct pt_regs *regs)
{
	gotrace_sample_take(event->overflow_handler_context, regs);
}

/**
 * gotrace_samples_start - sample every online CPU at @s's cpu_sample_hz
 * @s: the new session, not published yet
 *
 * Return: 0 (nothing to do when @s asks for no samples), -ENOMEM, or the
 * error of perf_event_create_kernel_counter() for some CPU (-EOPNOTSUPP,
 * -ENOENT, -ENODEV, -EINVAL...); then no event is left.
 */
int gotrace_samples_start(struct gotrace_session *s)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.pinned = 1,
		/* An idle CPU runs no thread of the trace: nothing to sample. */
		.exclude_idle = 1,
	};
	struct perf_event *ev;
	int cpu, ret = 0;

	lockdep_assert_held(&s->dev->lock);
	if (!s->args.cpu_sample_hz)
		return 0;
	/* The CPU clock counts nanoseconds: a sample every period of them. */
	attr.sample_period = NSEC_PER_SEC / s->args.cpu_sample_hz;
	s->samples.events = kcalloc(nr_cpu_ids, sizeof(*s->samples.events), GOTRACE_GFP);
	if (!s->samples.events)
		return -ENOMEM;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		ev = perf_event_create_kernel_counter(&attr, cpu, NULL,
						      gotrace_sample_overflow, s);
		if (IS_ERR(ev)) {
			ret = PTR_ERR(ev);
			pr_warn("cannot sample CPU %d: error %d\n", cpu, ret);
			break;
		}
		s->samples.events[cpu] = ev;
	}
	cpus_read_unlock();
	if (ret)
		gotrace_samples_stop(s);
	return ret;
}

/**
 * gotrace_samples_stop - release @s's perf events, if any
 * @s: the session; unpublished or cut short, so that a sample still
 *     taken writes nothing
 *
 * Once perf_event_release_kernel() returns, its event's handler has
 * returned and does not run again (the hrtimer is cancelled). Sleeps.
 */
void gotrace_samples_stop(struct gotrace_session *s)
{
	int cpu;

	lockdep_assert_held(&s->dev->lock);
	if (!s->samples.events)
		return;
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (s->samples.events[cpu])
			perf_event_release_kernel(s->samples.events[cpu]);
	kfree(s->samples.events);
	s->samples.events = NULL;
}
