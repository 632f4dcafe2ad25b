// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace stacks: the cheap stacks [reason, program] as dense ids.
 *
 * A stack id is a varint on every block and wakeup event, so the stacks a
 * trace uses are numbered in order of first use: the busiest few get the
 * one-byte ids. A fixed open-addressing table, allocated with the session,
 * maps a stack's key (gotrace_stack_key()) to its id; a
 * probe finds a known stack with one hash and one compare (gotrace_stack()).
 *
 * Probes insert without a lock, by the protocol of slots.h on two words: a
 * slot is claimed with cmpxchg on its key, the id is taken from a counter,
 * its key recorded for the footer, then the id is published with a release
 * store. Once the ids below GOTRACE_STACK_FULL are handed out, new stacks
 * share that one, whose frame says so.
 */

#include <linux/atomic.h>
#include <linux/slab.h>

#include "compat.h"
#include "gfp.h"
#include "stacks.h"

#define GOTRACE_STACK_SLOTS	BIT(GOTRACE_STACK_BITS)

static_assert(GOTRACE_STACKS_MAX < GOTRACE_STACK_SLOTS);

/**
 * gotrace_stacks_alloc - an empty table
 *
 * Return: the zeroed table, or NULL if it cannot be allocated.
 */
struct gotrace_stacks *gotrace_stacks_alloc(void)
{
	return kvzalloc(sizeof(struct gotrace_stacks), GOTRACE_GFP);
}

/**
 * gotrace_stacks_free - free a table from gotrace_stacks_alloc()
 * @st: the table, or NULL
 */
void gotrace_stacks_free(struct gotrace_stacks *st)
{
	kvfree(st);
}

static u32 gotrace_stack_wait(struct gotrace_stack_slot *slot)
{
	u32 id;

	/* Pairs with the release in gotrace_stack_insert(). */
	while (!(id = smp_load_acquire(&slot->id)))
		cpu_relax();
	return id;
}

static u32 gotrace_stack_insert(struct gotrace_stacks *st,
				struct gotrace_stack_slot *slot, u32 key)
{
	u32 id = atomic_inc_return(&st->next);

	if (id >= GOTRACE_STACK_FULL) {
		id = GOTRACE_STACK_FULL;
		WRITE_ONCE(st->full, true);
	} else {
		/* Read while probes run by the tables of a generation. */
		WRITE_ONCE(st->key[id], key);
	}
	/* The key of the id is written before anyone can use the id. */
	smp_store_release(&slot->id, id);
	return id;
}

/**
 * gotrace_stack_slow - gotrace_stack() when its first slot has another key
 * @st: the table
 * @key: the stack's key
 *
 * Called with interrupts off (a probe) or with no probe running.
 *
 * Return: the stack's id, GOTRACE_STACK_FULL if the ids ran out.
 */
u32 gotrace_stack_slow(struct gotrace_stacks *st, u32 key)
{
	u32 i, h = hash_32(key, GOTRACE_STACK_BITS);

	for (i = 0; i < GOTRACE_STACK_SLOTS; i++) {
		struct gotrace_stack_slot *slot =
			&st->slot[(h + i) & (GOTRACE_STACK_SLOTS - 1)];
		u32 k = READ_ONCE(slot->key);

		if (!k) {
			/* Ids ran out: claim no more slots. */
			if (atomic_read(&st->next) >= GOTRACE_STACK_FULL - 1) {
				WRITE_ONCE(st->full, true);
				return GOTRACE_STACK_FULL;
			}
			/*
			 * Claim the slot (cmpxchg is fully ordered); a prober
			 * that sees the key waits for the id's release below.
			 */
			k = cmpxchg(&slot->key, 0, key);
			if (!k)
				return gotrace_stack_insert(st, slot, key);
		}
		if (k == key)
			return gotrace_stack_wait(slot);
	}
	return GOTRACE_STACK_FULL;
}

/**
 * gotrace_stacks_count - how many ids below GOTRACE_STACK_FULL are in use
 * @st: the table; no probe runs anymore
 *
 * Return: the count, at most GOTRACE_STACK_FULL - 1; the ids in use are 1 to
 * the count, each with a key (gotrace_stacks_key()).
 */
u32 gotrace_stacks_count(struct gotrace_stacks *st)
{
	return min_t(u32, atomic_read(&st->next), GOTRACE_STACK_FULL - 1);
}

/**
 * gotrace_stacks_full - whether a stack got GOTRACE_STACK_FULL
 * @st: the table; no probe runs anymore
 *
 * Return: true if the ids ran out and some stack got the shared id
 * GOTRACE_STACK_FULL; false otherwise.
 */
bool gotrace_stacks_full(struct gotrace_stacks *st)
{
	return st->full;
}

/**
 * gotrace_stacks_key - the key of stack @id
 * @st: the table
 * @id: an id below GOTRACE_STACK_FULL that was handed out
 *
 * Every event that uses @id is written after its key; one being inserted
 * meanwhile may read 0.
 *
 * Return: the key @id was handed out for (gotrace_stack_key()), or 0.
 */
u32 gotrace_stacks_key(struct gotrace_stacks *st, u32 id)
{
	return READ_ONCE(st->key[id]);
}
