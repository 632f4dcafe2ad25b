/* SPDX-License-Identifier: GPL-2.0 */
/* Claiming a slot of a lock-free open-addressing table (programs.c, kstacks.c). */
#ifndef _GOTRACE_SLOTS_H
#define _GOTRACE_SLOTS_H

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <asm/barrier.h>
#include <asm/processor.h>

/*
 * gotrace's tables of names and kernel stacks are fixed open-addressing
 * hash tables, allocated with the session and filled by the probes without
 * a lock. A slot's state goes EMPTY -> BUSY -> READY, never back:
 *
 * - A prober claims an EMPTY slot with cmpxchg (fully ordered), fills it,
 *   and publishes it with a release store of READY.
 * - A prober that finds a slot BUSY waits for READY with acquire loads,
 *   which pair with that release: once READY, the slot's content is the
 *   filler's. The filler runs with interrupts off, so the wait is a few
 *   stores long.
 * - A READY slot's content never changes: probers compare it without
 *   further ordering, and the footer reads it once no probe runs.
 *
 * The cheap stacks' table (stacks.c) runs the same protocol on two words,
 * for its inline lookup: the key's cmpxchg from 0 claims the slot, and the
 * id's release store from 0 publishes it.
 */
enum gotrace_slot_state {
	GOTRACE_SLOT_EMPTY,
	GOTRACE_SLOT_BUSY,
	GOTRACE_SLOT_READY,
};

/**
 * gotrace_slot_claim - claim a slot, or wait until it is published
 * @state: the slot's enum gotrace_slot_state
 *
 * Return: true if the caller claimed the slot, and then fills it and calls
 * gotrace_slot_publish(); false once another prober has published it, whose
 * content the caller may then read.
 */
static inline bool gotrace_slot_claim(int *state)
{
	/* Pairs with the release in gotrace_slot_publish(). */
	int st = smp_load_acquire(state);

	if (st == GOTRACE_SLOT_EMPTY &&
	    cmpxchg(state, GOTRACE_SLOT_EMPTY, GOTRACE_SLOT_BUSY) == GOTRACE_SLOT_EMPTY)
		return true;
	while (st != GOTRACE_SLOT_READY) {
		cpu_relax();
		/* As above. */
		st = smp_load_acquire(state);
	}
	return false;
}

/**
 * gotrace_slot_publish - make a claimed slot's content visible
 * @state: the slot's enum gotrace_slot_state, claimed by the caller
 */
static inline void gotrace_slot_publish(int *state)
{
	/* Pairs with the acquires in gotrace_slot_claim(): content first. */
	smp_store_release(state, GOTRACE_SLOT_READY);
}

#endif /* _GOTRACE_SLOTS_H */
