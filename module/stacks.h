/* SPDX-License-Identifier: GPL-2.0 */
/* Cheap stacks: [reason, program] pairs numbered in order of first use (stacks.c). */
#ifndef _GOTRACE_STACKS_H
#define _GOTRACE_STACKS_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/hash.h>
#include <linux/types.h>
#include "reasons.h"

/*
 * Cheap stacks: [reason, program], or [program] for a create stack, keyed
 * by gotrace_stack_key() and numbered in order of first use
 * (stacks.c). Past GOTRACE_STACK_FULL - 1 of them, new ones share the id
 * GOTRACE_STACK_FULL, the stack [GOTRACE_R_FULL, GOTRACE_PROG_OTHER].
 */
#define GOTRACE_STACKS_MAX	12288
#define GOTRACE_STACK_FULL	GOTRACE_STACKS_MAX
#define GOTRACE_STACK_BITS	14

/**
 * gotrace_stack_key - the key of the cheap stack [@reason, @prog]
 * @prog: program id
 * @reason: enum gotrace_reason or a system call number
 *
 * Return: 1 + @prog * GOTRACE_R_NR + @reason, never 0 (a free slot's key).
 */
static __always_inline u32 gotrace_stack_key(u32 prog, u32 reason)
{
	return 1 + prog * GOTRACE_R_NR + reason;
}

/**
 * gotrace_stack_key_prog - the program of a cheap stack's key
 * @key: from gotrace_stack_key()
 *
 * Return: its program id.
 */
static inline u32 gotrace_stack_key_prog(u32 key)
{
	return (key - 1) / GOTRACE_R_NR;
}

/**
 * gotrace_stack_key_reason - the reason of a cheap stack's key
 * @key: from gotrace_stack_key()
 *
 * Return: its reason.
 */
static inline u32 gotrace_stack_key_reason(u32 key)
{
	return (key - 1) % GOTRACE_R_NR;
}

/**
 * struct gotrace_stack_slot - a slot of the stack table (stacks.c)
 * @key:	the stack's key, 0 while free; claimed with cmpxchg.
 * @id:		its id, 0 until published (release).
 */
struct gotrace_stack_slot {
	u32 key;
	u32 id;
};

/**
 * struct gotrace_stacks - the cheap stacks of a session (stacks.c)
 * @next:	ids handed out; written with atomics.
 * @full:	a stack got GOTRACE_STACK_FULL.
 * @key:	key of each id handed out below GOTRACE_STACK_FULL, for the
 *		footer.
 * @slot:	the hash table, a third larger than the ids, for short probes.
 */
struct gotrace_stacks {
	atomic_t next;
	bool full;
	u32 key[GOTRACE_STACKS_MAX];
	struct gotrace_stack_slot slot[BIT(GOTRACE_STACK_BITS)];
};

struct gotrace_stacks *gotrace_stacks_alloc(void);
void gotrace_stacks_free(struct gotrace_stacks *st);
u32 gotrace_stack_slow(struct gotrace_stacks *st, u32 key);
u32 gotrace_stacks_count(struct gotrace_stacks *st);
bool gotrace_stacks_full(struct gotrace_stacks *st);
u32 gotrace_stacks_key(struct gotrace_stacks *st, u32 id);

/**
 * gotrace_stack_find - id of a cheap stack used before, by its key
 * @st: the session's stacks
 * @key: from gotrace_stack_key()
 *
 * Inserts nothing, so interrupts may be on. A stack used before is found in
 * its first slot or, if it collided, in the next one, unless it collided
 * again.
 *
 * Return: the stack's id, or 0 if gotrace_stack_slow() must find or insert
 * it.
 */
static inline u32 gotrace_stack_find(struct gotrace_stacks *st, u32 key)
{
	u32 h = hash_32(key, GOTRACE_STACK_BITS);
	struct gotrace_stack_slot *slot = &st->slot[h];
	u32 k = READ_ONCE(slot->key);

	if (unlikely(k != key)) {
		slot = &st->slot[(h + 1) & (BIT(GOTRACE_STACK_BITS) - 1)];
		k = READ_ONCE(slot->key);
	}
	/* Pairs with the release in gotrace_stack_insert(). */
	return likely(k == key) ? smp_load_acquire(&slot->id) : 0;
}

/**
 * gotrace_stack - id of the cheap stack [@reason, @prog]
 * @st: the session's stacks
 * @prog: program id
 * @reason: enum gotrace_reason or a system call number
 *
 * Called with interrupts off (a probe) or with no probe running.
 *
 * Return: the stack's id, GOTRACE_STACK_FULL if the ids ran out.
 */
static inline u32 gotrace_stack(struct gotrace_stacks *st, u32 prog, u32 reason)
{
	u32 key = gotrace_stack_key(prog, reason);
	u32 id = gotrace_stack_find(st, key);

	return likely(id) ? id : gotrace_stack_slow(st, key);
}

#endif /* _GOTRACE_STACKS_H */
