// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace generations (formats 1.22 and later), started without stopping
 * the world.
 *
 * Go's runtime cuts its trace into generations, each a valid trace with
 * its own tables; a run of whole ones is a trace too. Here the generation
 * work starts one every gen.period, or sooner when a CPU's batches in the
 * current one reach gen_bytes (its ring kicks s->gen.kick):
 *
 * 1. It raises s->gen. A probe compares its CPU's generation with it at
 *    every event and moves the CPU to it first (gotrace_proc_gen(): the
 *    batch of the old generation is committed, the new one starts with the
 *    P's status and its running goroutine's). An event that depends on an
 *    event of the new generation sees it too: the scheduler's locks that
 *    order the two events order the loads of s->gen.
 * 2. A function call on every online CPU (an IPI: with interrupts off, as
 *    a probe runs) moves the CPUs that had no event; the work waits for
 *    them. An offline CPU runs no probe while the work holds
 *    cpus_read_lock(): its batch is committed here, and its first event once
 *    online writes its P's status. Then no event of the old generation can
 *    be written any more.
 * 3. It walks the thread ids of the table's leaves (thread_table.c: not
 *    the id space, which may be PID_MAX_LIMIT ids) and the aliases: a
 *    goroutine not running whose status no event has given in the new
 *    generation gets it (gotrace_g_walk()), so that a trace starting at this
 *    generation knows every goroutine.
 * 4. It marks the old generation closed: the reader writes its tables
 *    (footer.c) once it has read its batches, then goes on with the new one.
 *
 * A generation costs the P statuses, one GoStatus per live thread, and the
 * string and stack tables.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/workqueue.h>

#include "buffer.h"
#include "clock.h"
#include "cpu.h"
#include "generations.h"
#include "record.h"
#include "session.h"
#include "threads.h"
#include "transitions.h"

/* Entries the walk looks at with interrupts off, at a time. */
#define GOTRACE_WALK_BATCH	256

/* Step 2 on one CPU, in its hard interrupt context (or interrupts off). */
static void gotrace_gens_cpu(void *info)
{
	struct gotrace_session *s = info;
	struct gotrace_cpu *c = this_cpu_ptr(s->cpus);
	u64 ts;

	if (READ_ONCE(s->mode) != GOTRACE_MODE_ON ||
	    c->ring.gen == READ_ONCE(s->gen.cur))
		return;
	ts = gotrace_clock(s);
	if (!gotrace_proc_gen(s, c, ts))
		gotrace_cut(s, c, ts);
}

static void gotrace_gens_kick(struct irq_work *work)
{
	struct gotrace_session *s = container_of(work, struct gotrace_session,
						 gen.kick);

	if (READ_ONCE(s->mode) == GOTRACE_MODE_ON)
		mod_delayed_work(system_unbound_wq, &s->gen.work, 0);
}

/* Steps 1 and 2. */
static void gotrace_gens_enter(struct gotrace_session *s, u32 gen)
{
	int cpu;

	cpus_read_lock();
	WRITE_ONCE(s->gen.cur, gen);
	on_each_cpu(gotrace_gens_cpu, s, true);
	for_each_possible_cpu(cpu) {
		struct gotrace_cpu *c = per_cpu_ptr(s->cpus, cpu);

		if (cpu_online(cpu))
			continue;
		if (!gotrace_buf_new_gen(&c->ring, gen)) {
			gotrace_cut(s, c, gotrace_clock(s));
			continue;
		}
		c->proc_started = false;
	}
	cpus_read_unlock();
}

/*
 * This CPU's buffer for the walk, in the current generation, with
 * interrupts off (saved in @flags) and the time in @ts; NULL once
 * recording is off or cut, interrupts as they were.
 */
static struct gotrace_cpu *gotrace_gens_walk_begin(struct gotrace_session *s,
						   unsigned long *flags, u64 *ts)
{
	struct gotrace_cpu *c;

	local_irq_save(*flags);
	if (READ_ONCE(s->mode) != GOTRACE_MODE_ON)
		goto out;
	c = this_cpu_ptr(s->cpus);
	*ts = gotrace_clock(s);
	if (c->ring.gen == READ_ONCE(s->gen.cur) || gotrace_proc_gen(s, c, *ts))
		return c;
	gotrace_cut(s, c, *ts);
out:
	local_irq_restore(*flags);
	return NULL;
}

/*
 * Step 3 for the thread ids of the leaves from directory slot *@slot on,
 * up to GOTRACE_WALK_BATCH entries and the first slot without a leaf;
 * *@slot is then the slot after them. The first batch also writes the
 * generation's ProcsChange. False once recording is off or cut.
 */
static bool gotrace_gens_walk_ids(struct gotrace_session *s, u32 *slot)
{
	struct gotrace_leaf *leaf;
	struct gotrace_cpu *c;
	unsigned long flags;
	u32 n = 0, tid, i;
	bool ok = true;
	u64 ts;

	c = gotrace_gens_walk_begin(s, &flags, &ts);
	if (!c)
		return false;
	if (!*slot)
		ok = gotrace_procs_set(s, c, ts);
	while (ok && n < GOTRACE_WALK_BATCH && *slot < s->table.nr_dir) {
		tid = *slot << GOTRACE_LEAF_SHIFT;
		/* Interrupts are off: the leaf stays (thread_table.c). */
		leaf = gotrace_table_leaf(&s->table, (*slot)++);
		if (!leaf)
			break;	/* the caller skips the empty slots */
		for (i = 0; ok && i < GOTRACE_LEAF_IDS; i++)
			ok = gotrace_g_walk(s, c, &leaf->t[i], tid + i, ts);
		n += GOTRACE_LEAF_IDS;
	}
	if (!ok)
		gotrace_cut(s, c, ts);
	local_irq_restore(flags);
	return ok;
}

/* Step 3 for the aliases (threads.c). */
static void gotrace_gens_walk_aliases(struct gotrace_session *s)
{
	struct gotrace_cpu *c;
	unsigned long flags;
	u64 ts;
	int i;

	c = gotrace_gens_walk_begin(s, &flags, &ts);
	if (!c)
		return;
	for (i = 0; i < GOTRACE_ALIASES; i++) {
		struct gotrace_alias *a = &s->aliases[i];

		/* Pairs with the release in gotrace_thread_alias(). */
		if (smp_load_acquire(&a->busy) > 0 &&
		    !gotrace_g_walk(s, c, &a->t, a->tid, ts)) {
			gotrace_cut(s, c, ts);
			break;
		}
	}
	local_irq_restore(flags);
}

/*
 * Step 3: the ids in the table's leaves (thread_table.c), not the whole id
 * space of PID_MAX_LIMIT ids.
 */
static void gotrace_gens_walk(struct gotrace_session *s)
{
	u32 slot = 0;

	do {
		if (!gotrace_gens_walk_ids(s, &slot))
			return;
		cond_resched();
		slot = gotrace_table_next(&s->table, slot);
	} while (slot < s->table.nr_dir);
	gotrace_gens_walk_aliases(s);
}

static void gotrace_gens_next(struct work_struct *work)
{
	struct gotrace_session *s = container_of(to_delayed_work(work),
						 struct gotrace_session, gen.work);
	u32 gen = s->gen.cur + 1;

	if (READ_ONCE(s->mode) != GOTRACE_MODE_ON)
		return;
	gotrace_gens_enter(s, gen);
	gotrace_gens_walk(s);
	/* Pairs with the acquire in the reader: the old batches are committed. */
	smp_store_release(&s->gen.closed, gen - 1);
	wake_up_interruptible(s->wq);
	queue_delayed_work(system_unbound_wq, &s->gen.work, s->gen.period);
}

/**
 * gotrace_gens_init - set a new session up for generations
 * @s: the session, allocated, with formats 1.22 and later
 * @period_ns: time between generations
 * @bytes: a CPU's bytes in a generation that start the next one
 */
void gotrace_gens_init(struct gotrace_session *s, u64 period_ns, u64 bytes)
{
	int cpu;

	s->gen.cur = 1;
	s->rd.gen = 1;
	s->gen.period = max_t(unsigned long, nsecs_to_jiffies(period_ns), 1);
	INIT_DELAYED_WORK(&s->gen.work, gotrace_gens_next);
	init_irq_work(&s->gen.kick, gotrace_gens_kick);
	for_each_possible_cpu(cpu) {
		struct gotrace_cpu *c = per_cpu_ptr(s->cpus, cpu);

		c->ring.gen = 1;
		c->ring.gen_kick = &s->gen.kick;
		c->ring.gen_limit = max_t(u32, div_u64(bytes, GOTRACE_CHUNK_SIZE), 1);
	}
}

/**
 * gotrace_gens_start - recording has started: time the next generation
 * @s: the session
 */
void gotrace_gens_start(struct gotrace_session *s)
{
	queue_delayed_work(system_unbound_wq, &s->gen.work, s->gen.period);
}

/**
 * gotrace_gens_stop - no new generation: recording is off
 * @s: the session; no probe runs anymore (mode off, then a grace period)
 *
 * The current generation is the last: the reader takes a stopped trace's
 * every generation for closed.
 */
void gotrace_gens_stop(struct gotrace_session *s)
{
	irq_work_sync(&s->gen.kick);
	cancel_delayed_work_sync(&s->gen.work);
}
