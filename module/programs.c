// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace programs: the names threads run under (their comm), as dense ids.
 *
 * A fixed open-addressing table, allocated with the session, maps a name to
 * a small id in order of first appearance; ids key the cheap stacks. Probes
 * insert without a lock: a slot is claimed with cmpxchg, filled, then
 * published with a release store. A prober that finds a slot being filled
 * waits for it; the filler runs with interrupts off, so the wait is a few
 * stores long. Past GOTRACE_PROG_MAX names, new ones share the id
 * GOTRACE_PROG_OTHER.
 */

#include <linux/atomic.h>
#include <linux/jhash.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "gotrace.h"

#define GOTRACE_PROG_SLOTS	(2 * GOTRACE_PROG_MAX)

enum { GOTRACE_SLOT_EMPTY, GOTRACE_SLOT_BUSY, GOTRACE_SLOT_READY };

/**
 * struct gotrace_prog - a slot of the table
 * @comm:	the name, NUL-padded.
 * @id:		its id.
 * @state:	GOTRACE_SLOT_*; @comm and @id are valid once READY (acquire).
 */
struct gotrace_prog {
	char comm[TASK_COMM_LEN];
	u32 id;
	int state;
};

/**
 * struct gotrace_progs - the table
 * @next:	the next id to hand out.
 * @by_id:	slot of each id handed out.
 * @slot:	the hash table.
 */
struct gotrace_progs {
	atomic_t next;
	u16 by_id[GOTRACE_PROG_MAX];
	struct gotrace_prog slot[GOTRACE_PROG_SLOTS];
};

static void gotrace_progs_reserve(struct gotrace_progs *pt, u32 id,
				  const char *name)
{
	struct gotrace_prog *slot = &pt->slot[GOTRACE_PROG_SLOTS - 1 - id];

	strscpy_pad(slot->comm, name, sizeof(slot->comm));
	slot->id = id;
	pt->by_id[id] = GOTRACE_PROG_SLOTS - 1 - id;
}

/**
 * gotrace_progs_alloc - an empty table
 *
 * The reserved ids GOTRACE_PROG_IRQ and GOTRACE_PROG_OTHER get names but no
 * hash slot, so no thread's name can map to them.
 */
struct gotrace_progs *gotrace_progs_alloc(void)
{
	struct gotrace_progs *pt = kvzalloc(sizeof(*pt), GOTRACE_GFP);

	if (!pt)
		return NULL;
	gotrace_progs_reserve(pt, GOTRACE_PROG_IRQ, "(interrupt)");
	gotrace_progs_reserve(pt, GOTRACE_PROG_OTHER, "(other programs)");
	atomic_set(&pt->next, GOTRACE_PROG_FIRST);
	return pt;
}

/**
 * gotrace_progs_free - free a table
 * @pt: the table, or NULL
 */
void gotrace_progs_free(struct gotrace_progs *pt)
{
	kvfree(pt);
}

static u32 gotrace_prog_claim(struct gotrace_progs *pt, u32 idx,
			      const char *key)
{
	struct gotrace_prog *slot = &pt->slot[idx];
	u32 id = atomic_inc_return(&pt->next) - 1;

	if (id >= GOTRACE_PROG_MAX)
		id = GOTRACE_PROG_OTHER;
	memcpy(slot->comm, key, TASK_COMM_LEN);
	slot->id = id;
	if (id != GOTRACE_PROG_OTHER)
		pt->by_id[id] = idx;
	/* Pairs with the acquire in gotrace_prog_id(): name and id first. */
	smp_store_release(&slot->state, GOTRACE_SLOT_READY);
	return id;
}

/**
 * gotrace_prog_id - the id of a program name, added if new
 * @pt: the table
 * @comm: the name (a task's comm, or the new name of a rename)
 *
 * Call with interrupts off.
 */
u32 gotrace_prog_id(struct gotrace_progs *pt, const char *comm)
{
	char key[TASK_COMM_LEN];
	u32 idx, i;
	int state;

	strscpy_pad(key, comm, sizeof(key));
	idx = jhash(key, sizeof(key), 0) % (GOTRACE_PROG_SLOTS - GOTRACE_PROG_FIRST);
	for (i = 0; i < GOTRACE_PROG_SLOTS - GOTRACE_PROG_FIRST; i++) {
		struct gotrace_prog *slot = &pt->slot[idx];

		/* Pairs with the release in gotrace_prog_claim(). */
		state = smp_load_acquire(&slot->state);
		if (state == GOTRACE_SLOT_EMPTY &&
		    cmpxchg(&slot->state, GOTRACE_SLOT_EMPTY,
			    GOTRACE_SLOT_BUSY) == GOTRACE_SLOT_EMPTY)
			return gotrace_prog_claim(pt, idx, key);
		while (state != GOTRACE_SLOT_READY) {
			cpu_relax();
			/* As above: the filler publishes with release. */
			state = smp_load_acquire(&slot->state);
		}
		if (!memcmp(slot->comm, key, sizeof(key)))
			return slot->id;
		if (++idx == GOTRACE_PROG_SLOTS - GOTRACE_PROG_FIRST)
			idx = 0;
	}
	return GOTRACE_PROG_OTHER;
}

/**
 * gotrace_prog_name - the name of a program id
 * @pt: the table; no probe may still insert (the footer is being written)
 * @id: an id returned by gotrace_prog_id()
 */
const char *gotrace_prog_name(struct gotrace_progs *pt, u32 id)
{
	return pt->slot[pt->by_id[id]].comm;
}

/**
 * gotrace_progs_count - ids handed out, reserved ones included
 * @pt: the table
 */
u32 gotrace_progs_count(struct gotrace_progs *pt)
{
	return min_t(u32, atomic_read(&pt->next), GOTRACE_PROG_MAX);
}
