// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace thread table memory: entries in leaves of 64 ids, made as ids
 * come into use and retired when none of their ids holds a thread.
 *
 * A directory slot per GOTRACE_LEAF_IDS thread ids holds the address of
 * their leaf (2 KiB), or of one shared empty leaf, all GOTRACE_T_NONE, that
 * nobody writes: a lookup is two loads and a mask, and tests for no
 * missing leaf. At systemd's pid_max (4194304) the directory is 512 KiB;
 * the entries cost memory in proportion to the ids threads hold, not to the
 * id space.
 *
 * Probes cannot allocate: they run under the scheduler's raw locks, where
 * PREEMPT_RT forbids the allocator. A creation that needs a leaf takes one
 * from a pool of GOTRACE_LEAF_POOL, which an irq_work refills at once
 * (GFP_NOWAIT, out of the scheduler's locks) and a work item to the full
 * (GFP_KERNEL); the start makes the leaves of every thread that exists before its snapshot
 * (gotrace_table_prepare()). A creation that finds the pool empty cuts
 * the recording, counted in @starved.
 *
 * Linux hands ids out cyclically: over a long session threads come and go
 * across the whole id space. Every GOTRACE_LEAF_RECLAIM_MS the reclaimer
 * marks the leaves whose entries are all free (never used, or dead) with
 * GOTRACE_LEAF_RETIRED, waits for an RCU grace period, empties the slots of
 * those still marked and still free, and frees them after another grace
 * period. Probes run with preemption off, so:
 *
 *  - a creation that found its entry before the mark has written it by the
 *    end of the first grace period, and the reclaimer sees it;
 *  - a creation that finds the mark takes the leaf back with cmpxchg()
 *    before it writes: the reclaimer's cmpxchg() to empty then fails; or
 *    that one came first, and the creation makes a new leaf;
 *  - a probe that read a slot before it was emptied is done with its leaf
 *    by the end of the second grace period.
 *
 * Goroutine ids must stay unique (gotrace_thread_next_gen()): an emptied
 * slot keeps, as its floor, a generation above every one its ids gave,
 * and its next leaf starts there.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/bitmap.h>
#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/llist.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/threads.h>
#include <linux/workqueue.h>

#include "gfp.h"
#include "session.h"
#include "thread_table.h"
#include "threads.h"

/* How often the reclaimer looks for leaves to retire. */
#define GOTRACE_LEAF_RECLAIM_MS	5000

/* Every slot without a leaf points here; nobody writes it. */
static struct gotrace_leaf gotrace_leaf_empty;

#define GOTRACE_LEAF_NONE	((unsigned long)&gotrace_leaf_empty)

static struct gotrace_leaf *gotrace_leaf_new(void)
{
	return kzalloc(sizeof(struct gotrace_leaf), GOTRACE_GFP);
}

/*
 * Whether every entry of @leaf is free (never used, or dead); if so, and
 * @floor is not NULL, set it to a generation above every one they gave.
 * False if an id gave them all: the leaf stays.
 */
static bool gotrace_leaf_free(struct gotrace_leaf *leaf, u16 *floor)
{
	u32 top = 0, i;

	for (i = 0; i < GOTRACE_LEAF_IDS; i++) {
		const struct gotrace_thread *t = &leaf->t[i];
		u8 state = READ_ONCE(t->state);
		u32 gens = READ_ONCE(t->gens);

		if (state != GOTRACE_T_NONE && state != GOTRACE_T_DEAD)
			return false;
		/* A used id gave @gens itself (gotrace_thread_next_gen()). */
		top = max(top, state == GOTRACE_T_NONE ? gens : gens + 1);
	}
	if (top > U16_MAX)
		return false;
	if (floor)
		*floor = top;
	return true;
}

/*
 * A zeroed leaf into an empty pool slot; false if the pool is full. The
 * refill and the reclaimer may put at once: cmpxchg().
 */
static bool gotrace_table_put(struct gotrace_table *tab,
			      struct gotrace_leaf *leaf)
{
	int i;

	for (i = 0; i < GOTRACE_LEAF_POOL; i++) {
		if (!READ_ONCE(tab->pool[i]) && !cmpxchg(&tab->pool[i], NULL, leaf)) {
			atomic_inc(&tab->nr_pool);
			return true;
		}
	}
	return false;
}

/* A zeroed leaf from the pool, or NULL; a low pool is refilled. */
static struct gotrace_leaf *gotrace_table_take(struct gotrace_table *tab)
{
	struct gotrace_leaf *leaf;
	int i;

	for (i = 0; i < GOTRACE_LEAF_POOL; i++) {
		if (!READ_ONCE(tab->pool[i]))
			continue;
		leaf = xchg(&tab->pool[i], NULL);
		if (!leaf)
			continue;
		if (atomic_dec_return(&tab->nr_pool) <=
		    GOTRACE_LEAF_POOL - GOTRACE_LEAF_LOW)
			irq_work_queue(&tab->refill_kick);
		return leaf;
	}
	atomic_inc(&tab->starved);
	irq_work_queue(&tab->refill_kick);
	return NULL;
}

/**
 * gotrace_table_claim - the entry of @tid, to be written: in a leaf of its
 * own, not being retired
 * @tab: the session's table
 * @tid: a thread id below the session's max_tid
 *
 * Called with preemption off (a probe, or the start snapshot): the leaf
 * stays until it is enabled again.
 *
 * Return: the entry, or NULL if it needs a leaf and the pool has none.
 */
struct gotrace_thread *gotrace_table_claim(struct gotrace_table *tab, u32 tid)
{
	unsigned long *slot = &tab->dir[tid >> GOTRACE_LEAF_SHIFT];
	struct gotrace_leaf *leaf;
	unsigned long old;
	u16 floor;
	u32 i;

	for (;;) {
		/* Pairs with the reclaimer's cmpxchg(): @floors first. */
		old = smp_load_acquire(slot);
		if (old & GOTRACE_LEAF_RETIRED) {
			cmpxchg(slot, old, old & ~GOTRACE_LEAF_RETIRED);
			continue;
		}
		if (old != GOTRACE_LEAF_NONE)
			break;
		leaf = gotrace_table_take(tab);
		if (!leaf)
			return NULL;
		floor = READ_ONCE(tab->floors[tid >> GOTRACE_LEAF_SHIFT]);
		for (i = 0; floor && i < GOTRACE_LEAF_IDS; i++)
			leaf->t[i].gens = floor;
		/* A full barrier: the entries before the leaf's address. */
		if (cmpxchg(slot, old, (unsigned long)leaf) == old) {
			atomic_inc(&tab->groups[(tid >> GOTRACE_LEAF_SHIFT) /
						GOTRACE_GROUP_SLOTS]);
			atomic_inc(&tab->nr_leaves);
			old = (unsigned long)leaf;
			break;
		}
		/* Another creation filled the slot first. */
		llist_add(&leaf->spare, &tab->spare);
		irq_work_queue(&tab->refill_kick);
	}
	return &((struct gotrace_leaf *)old)->t[tid & (GOTRACE_LEAF_IDS - 1)];
}

/**
 * gotrace_table_leaf - the leaf of directory slot @slot, to read
 * @tab: the session's table
 * @slot: below @tab->nr_dir
 *
 * The caller runs with preemption off: the leaf stays until it is enabled.
 *
 * Return: the leaf, or NULL if the slot has none.
 */
struct gotrace_leaf *gotrace_table_leaf(struct gotrace_table *tab, u32 slot)
{
	unsigned long leaf = READ_ONCE(tab->dir[slot]) & ~GOTRACE_LEAF_RETIRED;

	return leaf == GOTRACE_LEAF_NONE ? NULL : (struct gotrace_leaf *)leaf;
}

/**
 * gotrace_table_next - the first directory slot from @slot on with a leaf
 * @tab: the session's table
 * @slot: where to start
 *
 * Groups of slots without a leaf are skipped whole. A leaf being put in
 * meanwhile may be missed: its one entry is being created, which writes
 * that goroutine's events in the caller's generation already.
 *
 * Return: the slot, or @tab->nr_dir if none has a leaf.
 */
u32 gotrace_table_next(struct gotrace_table *tab, u32 slot)
{
	while (slot < tab->nr_dir) {
		if (!atomic_read(&tab->groups[slot / GOTRACE_GROUP_SLOTS])) {
			slot = round_down(slot, GOTRACE_GROUP_SLOTS) +
			       GOTRACE_GROUP_SLOTS;
			continue;
		}
		if (READ_ONCE(tab->dir[slot]) != GOTRACE_LEAF_NONE)
			return slot;
		slot++;
	}
	return tab->nr_dir;
}

/* Leaves back into the pool, or freed when it is full. */
static void gotrace_table_recycle(struct gotrace_table *tab,
				  struct llist_node *list)
{
	struct gotrace_leaf *leaf, *next;

	llist_for_each_entry_safe(leaf, next, list, spare) {
		memset(leaf, 0, sizeof(*leaf));
		if (!gotrace_table_put(tab, leaf))
			kfree(leaf);
	}
}

static void gotrace_table_refill(struct work_struct *work)
{
	struct gotrace_table *tab = container_of(work, struct gotrace_table,
						 refill);
	struct gotrace_leaf *leaf;

	gotrace_table_recycle(tab, llist_del_all(&tab->spare));
	while (atomic_read(&tab->nr_pool) < GOTRACE_LEAF_POOL) {
		leaf = gotrace_leaf_new();
		if (!leaf)
			return;
		if (!gotrace_table_put(tab, leaf)) {
			kfree(leaf);
			return;
		}
	}
}

/*
 * Out of the probe that took a leaf (its interrupt, or the irq_work thread
 * on PREEMPT_RT): a burst of creations in new leaves may be under way, so
 * the pool gets what memory at hand gives at once, the rest from the work.
 */
static void gotrace_table_refill_kick(struct irq_work *work)
{
	struct gotrace_table *tab = container_of(work, struct gotrace_table,
						 refill_kick);
	struct gotrace_leaf *leaf;
	int i;

	for (i = 0; i < GOTRACE_LEAF_LOW; i++) {
		if (atomic_read(&tab->nr_pool) >= GOTRACE_LEAF_POOL)
			return;
		leaf = kzalloc(sizeof(*leaf), GFP_NOWAIT | __GFP_NOWARN);
		if (!leaf)
			break;
		if (!gotrace_table_put(tab, leaf)) {
			kfree(leaf);
			return;
		}
	}
	queue_work(system_unbound_wq, &tab->refill);
}

/* Mark the leaves whose ids hold no thread; how many. */
static u32 gotrace_table_mark(struct gotrace_table *tab)
{
	u32 slot, marked = 0;

	for (slot = 0; slot < tab->nr_dir; slot++) {
		unsigned long leaf = READ_ONCE(tab->dir[slot]);

		if (leaf == GOTRACE_LEAF_NONE || (leaf & GOTRACE_LEAF_RETIRED))
			continue;
		if (gotrace_leaf_free((struct gotrace_leaf *)leaf, NULL) &&
		    cmpxchg(&tab->dir[slot], leaf,
			    leaf | GOTRACE_LEAF_RETIRED) == leaf)
			marked++;
		if (!(slot % 4096))
			cond_resched();
	}
	return marked;
}

/*
 * After a grace period: empty the slots of the marked leaves still free,
 * and list those leaves in @dead; unmark the others.
 */
static void gotrace_table_empty(struct gotrace_table *tab,
				struct llist_head *dead)
{
	struct gotrace_leaf *leaf;
	unsigned long old;
	u32 slot;
	u16 floor;

	for (slot = 0; slot < tab->nr_dir; slot++) {
		old = READ_ONCE(tab->dir[slot]);
		if (!(old & GOTRACE_LEAF_RETIRED))
			continue;
		leaf = (struct gotrace_leaf *)(old & ~GOTRACE_LEAF_RETIRED);
		if (!gotrace_leaf_free(leaf, &floor)) {
			cmpxchg(&tab->dir[slot], old, (unsigned long)leaf);
			continue;
		}
		WRITE_ONCE(tab->floors[slot], floor);
		/* Pairs with gotrace_table_claim()'s acquire: @floors first. */
		if (cmpxchg(&tab->dir[slot], old, GOTRACE_LEAF_NONE) != old)
			continue;	/* a creation took it back */
		atomic_dec(&tab->groups[slot / GOTRACE_GROUP_SLOTS]);
		atomic_dec(&tab->nr_leaves);
		tab->reclaimed++;
		llist_add(&leaf->spare, dead);
	}
}

static void gotrace_table_reclaim(struct work_struct *work)
{
	struct gotrace_table *tab = container_of(to_delayed_work(work),
						 struct gotrace_table, reclaim);
	LLIST_HEAD(dead);

	if (gotrace_table_mark(tab)) {
		/* Creations that found their entry before the mark are done. */
		synchronize_rcu();
		gotrace_table_empty(tab, &dead);
		if (!llist_empty(&dead)) {
			/* So is every probe that read an emptied slot. */
			synchronize_rcu();
			gotrace_table_recycle(tab, llist_del_all(&dead));
		}
	}
	schedule_delayed_work(&tab->reclaim,
			      msecs_to_jiffies(GOTRACE_LEAF_RECLAIM_MS));
}

/**
 * gotrace_table_alloc - a table with no leaf in it, its pool full
 * @tab: the session's table, zeroed
 *
 * Its directory covers every thread id (PID_MAX_LIMIT), so that a lookup
 * need not test the id: those at or above the session's max_tid are never
 * given an entry (gotrace_thread_slow()).
 *
 * Return: 0, or -ENOMEM (what was allocated is freed by
 * gotrace_table_free()).
 */
int gotrace_table_alloc(struct gotrace_table *tab)
{
	u32 slot;

	init_llist_head(&tab->spare);
	init_irq_work(&tab->refill_kick, gotrace_table_refill_kick);
	INIT_WORK(&tab->refill, gotrace_table_refill);
	INIT_DELAYED_WORK(&tab->reclaim, gotrace_table_reclaim);
	tab->nr_dir = DIV_ROUND_UP(PID_MAX_LIMIT, GOTRACE_LEAF_IDS);
	tab->dir = kvmalloc_array(tab->nr_dir, sizeof(*tab->dir), GOTRACE_GFP);
	if (!tab->dir)
		return -ENOMEM;
	/* Before anything can fail: gotrace_table_free() reads every slot. */
	for (slot = 0; slot < tab->nr_dir; slot++)
		tab->dir[slot] = GOTRACE_LEAF_NONE;
	tab->floors = kvcalloc(tab->nr_dir, sizeof(*tab->floors), GOTRACE_GFP);
	tab->groups = kvcalloc(DIV_ROUND_UP(tab->nr_dir, GOTRACE_GROUP_SLOTS),
			       sizeof(*tab->groups), GOTRACE_GFP);
	if (!tab->floors || !tab->groups)
		return -ENOMEM;
	gotrace_table_refill(&tab->refill);
	return atomic_read(&tab->nr_pool) < GOTRACE_LEAF_POOL ? -ENOMEM : 0;
}

/**
 * gotrace_table_prepare - the leaves of every thread that exists, before
 * the start snapshot, which cannot allocate
 * @s: the session, not yet published to the probes
 *
 * Threads created from here to the snapshot take leaves from the pool.
 *
 * Return: 0 or -ENOMEM.
 */
int gotrace_table_prepare(struct gotrace_session *s)
{
	struct gotrace_table *tab = &s->table;
	struct task_struct *g, *p;
	struct gotrace_leaf *leaf;
	unsigned long *need;
	int ret = 0;
	u32 slot;

	need = bitmap_zalloc(tab->nr_dir, GOTRACE_GFP);
	if (!need)
		return -ENOMEM;
	rcu_read_lock();
	for_each_process_thread(g, p) {
		if ((u32)p->pid < s->max_tid)
			__set_bit(p->pid >> GOTRACE_LEAF_SHIFT, need);
	}
	rcu_read_unlock();
	for_each_set_bit(slot, need, tab->nr_dir) {
		if (tab->dir[slot] != GOTRACE_LEAF_NONE)
			continue;
		leaf = gotrace_leaf_new();
		if (!leaf) {
			ret = -ENOMEM;
			break;
		}
		tab->dir[slot] = (unsigned long)leaf;
		atomic_inc(&tab->groups[slot / GOTRACE_GROUP_SLOTS]);
		atomic_inc(&tab->nr_leaves);
		cond_resched();
	}
	bitmap_free(need);
	return ret;
}

/**
 * gotrace_table_start - the session records: retire unused leaves from now
 * @tab: the session's table
 */
void gotrace_table_start(struct gotrace_table *tab)
{
	schedule_delayed_work(&tab->reclaim,
			      msecs_to_jiffies(GOTRACE_LEAF_RECLAIM_MS));
}

/**
 * gotrace_table_stop - no probe writes the table any more: stop its work
 * @tab: the session's table
 */
void gotrace_table_stop(struct gotrace_table *tab)
{
	cancel_delayed_work_sync(&tab->reclaim);
	irq_work_sync(&tab->refill_kick);
	cancel_work_sync(&tab->refill);
}

/**
 * gotrace_table_free - free a table from gotrace_table_alloc()
 * @tab: the table; no probe reads it any more
 */
void gotrace_table_free(struct gotrace_table *tab)
{
	struct gotrace_leaf *leaf, *next;
	u32 slot;
	int i;

	if (!tab->dir && !tab->floors && !tab->groups)
		return;
	gotrace_table_stop(tab);
	for (slot = 0; tab->dir && slot < tab->nr_dir; slot++)
		kfree(gotrace_table_leaf(tab, slot));
	for (i = 0; i < GOTRACE_LEAF_POOL; i++)
		kfree(tab->pool[i]);
	llist_for_each_entry_safe(leaf, next, llist_del_all(&tab->spare), spare)
		kfree(leaf);
	kvfree(tab->dir);
	kvfree(tab->floors);
	kvfree(tab->groups);
	tab->dir = NULL;
	tab->floors = NULL;
	tab->groups = NULL;
}

/**
 * gotrace_table_bytes - memory the table holds now
 * @tab: the session's table
 *
 * Return: bytes of its directory, floors, group counts and leaves, the
 * pool's included.
 */
u64 gotrace_table_bytes(struct gotrace_table *tab)
{
	u64 leaves = atomic_read(&tab->nr_leaves) + atomic_read(&tab->nr_pool);

	return (u64)tab->nr_dir * (sizeof(*tab->dir) + sizeof(*tab->floors)) +
	       DIV_ROUND_UP(tab->nr_dir, GOTRACE_GROUP_SLOTS) * sizeof(*tab->groups) +
	       leaves * sizeof(struct gotrace_leaf);
}
