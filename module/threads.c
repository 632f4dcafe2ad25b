// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace threads: each thread id's trace state, and aliases.
 *
 * An entry per thread id below max_tid, in leaves that thread_table.c
 * makes as ids come into use and retires when they hold no thread: probes
 * find a thread in O(1) and never allocate.
 *
 * Linux frees a thread's id (release_task()) a little before the thread's
 * last switch-out, so a new thread can get the id while the old one still
 * runs its last instructions (a fork storm with a small pid_max does it).
 * The newcomer then takes an alias: one of GOTRACE_ALIASES entries, found
 * by id and tag, which it keeps until it dies; each thread only ever writes
 * its own entry. Goroutine ids stay unique: every generation of an id,
 * aliases' included, is counted in the id's own entry (@gens), apart from
 * the generation each holder goes by (@gen).
 *
 * What a goroutine does, and the entry's changes that go with it, is
 * written by transitions.c and transitions.h (with events.h's writers).
 */

#include <linux/atomic.h>
#include <linux/string.h>

#include "session.h"
#include "thread_table.h"
#include "threads.h"

/**
 * gotrace_thread_slow - gotrace_thread_of() when @p does not hold @t
 * @s: session
 * @p: task
 * @t: the entry of @p's id
 *
 * Return: @p's alias if it has one; else @t if that entry is free (never
 * used, or dead) for @p to be created in, in a leaf of its own (see
 * gotrace_table_claim()); else NULL.
 */
struct gotrace_thread *gotrace_thread_slow(struct gotrace_session *s,
					   struct task_struct *p,
					   struct gotrace_thread *t)
{
	u32 tag = gotrace_tag(p);
	int i;

	if ((u32)p->pid >= s->max_tid)
		return NULL;
	if (atomic_read(&s->nr_aliases)) {
		for (i = 0; i < GOTRACE_ALIASES; i++) {
			struct gotrace_alias *a = &s->aliases[i];

			/* Pairs with the release in gotrace_thread_alias(). */
			if (smp_load_acquire(&a->busy) && a->tid == p->pid &&
			    a->t.tag == tag)
				return &a->t;
		}
	}
	if (gotrace_alive(t))
		return NULL;
	t = gotrace_table_claim(&s->table, p->pid);
	/* Taking a retired leaf back, it may find @p created meanwhile. */
	if (!t || (gotrace_alive(t) && t->tag != tag))
		return NULL;
	return t;
}

/**
 * gotrace_thread_alias - claim an alias for @p, whose id's entry is taken
 * @s: session
 * @p: the task, to be created next
 *
 * Return: the alias, empty; NULL if all are taken, or if @p's id is not
 * below max_tid (its generations are counted in the id's entry).
 */
struct gotrace_thread *gotrace_thread_alias(struct gotrace_session *s,
					    struct task_struct *p)
{
	int i;

	if ((u32)p->pid >= s->max_tid)
		return NULL;
	for (i = 0; i < GOTRACE_ALIASES; i++) {
		struct gotrace_alias *a = &s->aliases[i];

		if (READ_ONCE(a->busy) || cmpxchg(&a->busy, 0, -1))
			continue;
		memset(&a->t, 0, sizeof(a->t));
		a->tid = p->pid;
		a->t.tag = gotrace_tag(p);
		atomic_inc(&s->nr_aliases);
		/* Pairs with the acquire in gotrace_thread_slow(). */
		smp_store_release(&a->busy, 1);
		return &a->t;
	}
	return NULL;
}

/**
 * gotrace_thread_unalias - release the alias of a thread that died
 * @s: session
 * @t: the alias's entry
 */
void gotrace_thread_unalias(struct gotrace_session *s, struct gotrace_thread *t)
{
	struct gotrace_alias *a = container_of(t, struct gotrace_alias, t);

	atomic_dec(&s->nr_aliases);
	/* Its last use of the alias is done before anyone may claim it. */
	smp_store_release(&a->busy, 0);
}

/**
 * gotrace_thread_next_gen - the next generation of @tid's goroutine ids
 * @s: session
 * @t: the entry a thread holding @tid is created in: the id's own, or an alias
 * @tid: the thread id
 * @gen: set to the generation (see gotrace_gid())
 *
 * Counted in the id's own entry. Only the count moves; the generation of a
 * previous holder that still runs stays its own. With Go 1.22 and later's
 * generations, a thread created in the id's own entry goes by the id
 * itself: the previous holder's goroutine has ended.
 *
 * Return: false if @tid was reused 65535 times: it has no goroutine id
 * left; or if the id's own entry needs a leaf and none is ready.
 */
bool gotrace_thread_next_gen(struct gotrace_session *s, struct gotrace_thread *t,
			     pid_t tid, u16 *gen)
{
	struct gotrace_thread *owner = t;
	u16 g;

	/* @t, if not an alias, is the id's own entry, in a leaf claimed. */
	if (gotrace_is_alias(s, t))
		owner = gotrace_table_claim(&s->table, tid);
	if (!owner)
		return false;
	g = READ_ONCE(owner->gens);

	if (t == owner && s->v2) {
		*gen = 0;
		return true;
	}
	if (t == owner && t->state == GOTRACE_T_NONE) {
		*gen = g;
		return true;
	}
	if (g == U16_MAX)
		return false;	/* out of goroutine ids for this tid */
	WRITE_ONCE(owner->gens, g + 1);
	*gen = g + 1;
	return true;
}

/**
 * gotrace_thread_of_gid - the entry of the live thread that goroutine @gid is
 * @s: session
 * @gid: a goroutine id (gotrace_gid())
 *
 * Return: the id's own entry or an alias whose current holder goes by
 * @gid, or NULL.
 */
struct gotrace_thread *gotrace_thread_of_gid(struct gotrace_session *s, u64 gid)
{
	u32 tid = gotrace_gid_tid(gid);
	struct gotrace_thread *t;
	int i;

	t = gotrace_thread_entry(s, tid);
	if (gotrace_alive(t) && gotrace_gid(t, tid) == gid)
		return t;
	for (i = 0; i < GOTRACE_ALIASES; i++) {
		struct gotrace_alias *a = &s->aliases[i];

		/* Pairs with the release in gotrace_thread_alias(). */
		if (smp_load_acquire(&a->busy) > 0 && a->tid == tid &&
		    gotrace_gid(&a->t, tid) == gid)
			return &a->t;
	}
	return NULL;
}
