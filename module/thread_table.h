/* SPDX-License-Identifier: GPL-2.0 */
/* The thread table's memory: leaves of entries, made as ids come into use (thread_table.c). */
#ifndef _GOTRACE_THREAD_TABLE_H
#define _GOTRACE_THREAD_TABLE_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/irq_work.h>
#include <linux/llist.h>
#include <linux/types.h>
#include <linux/workqueue.h>

struct gotrace_session;
struct gotrace_thread;

/* A leaf holds the entries of GOTRACE_LEAF_IDS consecutive thread ids. */
#define GOTRACE_LEAF_SHIFT	6
#define GOTRACE_LEAF_IDS	BIT(GOTRACE_LEAF_SHIFT)

/*
 * Leaves kept ready for probes, which cannot allocate: the pool is filled
 * again as soon as GOTRACE_LEAF_LOW of them are gone, so that a burst of
 * creations in new leaves has the rest while the refill work waits to run.
 */
#define GOTRACE_LEAF_POOL	64
#define GOTRACE_LEAF_LOW	8

/* Directory slots counted together, for walks that skip empty ones. */
#define GOTRACE_GROUP_SLOTS	64

/*
 * In a directory slot: the leaf is being retired (thread_table.c). A
 * creation takes it back first; leaves are 2 KiB-aligned allocations.
 */
#define GOTRACE_LEAF_RETIRED	1UL

/**
 * struct gotrace_table - the memory of a session's thread table
 * @dir:	one slot per GOTRACE_LEAF_IDS thread ids (PID_MAX_LIMIT): the
 *		address of their leaf, or of the shared empty leaf (never
 *		written) while none holds a thread; OR GOTRACE_LEAF_RETIRED.
 *		Changed with cmpxchg only, by creations and the reclaimer;
 *		read by every probe.
 * @nr_dir:	slots in @dir.
 * @groups:	per GOTRACE_GROUP_SLOTS slots, how many hold a leaf: counted
 *		once a leaf is put in and once it is taken out, so that a
 *		walk skipping groups at 0 misses no leaf but one being put in
 *		at that moment (gotrace_table_next()).
 * @floors:	per slot, the generation its next leaf's ids start at (see
 *		gotrace_thread_next_gen()), so that no goroutine id is given
 *		twice. Written by the reclaimer before it empties the slot,
 *		read by the creation that fills it again.
 * @pool:	leaves ready for probes: each slot a zeroed leaf or NULL,
 *		taken with xchg() and filled with cmpxchg() by @refill.
 * @nr_pool:	leaves in @pool.
 * @nr_leaves:	leaves in @dir.
 * @spare:	leaves a probe took but did not use, for @refill.
 * @refill_kick: queued by a probe that took a leaf from a low pool; puts
 *		up to GOTRACE_LEAF_LOW leaves in at once, then queues @refill.
 * @refill:	fills @pool again and frees @spare (process context).
 * @reclaim:	retires the leaves whose ids hold no thread, every
 *		GOTRACE_LEAF_RECLAIM_MS while the session records.
 * @reclaimed:	leaves retired so far.
 * @starved:	creations that found @pool empty (the recording was cut).
 */
struct gotrace_table {
	unsigned long *dir;
	u32 nr_dir;
	atomic_t *groups;
	u16 *floors;
	struct gotrace_leaf *pool[GOTRACE_LEAF_POOL];
	atomic_t nr_pool;
	atomic_t nr_leaves;
	struct llist_head spare;
	struct irq_work refill_kick;
	struct work_struct refill;
	struct delayed_work reclaim;
	u64 reclaimed;
	atomic_t starved;
};

int gotrace_table_alloc(struct gotrace_table *tab);
int gotrace_table_prepare(struct gotrace_session *s);
void gotrace_table_start(struct gotrace_table *tab);
void gotrace_table_stop(struct gotrace_table *tab);
void gotrace_table_free(struct gotrace_table *tab);
struct gotrace_thread *gotrace_table_claim(struct gotrace_table *tab, u32 tid);
struct gotrace_leaf *gotrace_table_leaf(struct gotrace_table *tab, u32 slot);
u32 gotrace_table_next(struct gotrace_table *tab, u32 slot);
u64 gotrace_table_bytes(struct gotrace_table *tab);

#endif /* _GOTRACE_THREAD_TABLE_H */
