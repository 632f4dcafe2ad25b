// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace threads: Linux threads as goroutines, their table and transitions.
 *
 * One 24-byte entry per thread id below max_tid, allocated when a session
 * starts, so probes never allocate and find a thread in O(1). gotrace start
 * passes the running system's pid_max (32768 ids by default: 768 KiB); the
 * module default covers PID_MAX_LIMIT ids (4194304 on 64-bit: 96 MiB).
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
 * Each function below writes the Go events of one transition on a CPU's
 * buffer and updates the entry only if they all fit. It returns false when
 * the buffer is full; the caller then cuts the recording.
 */

#include <linux/slab.h>

#include "buffer.h"
#include "cpu.h"
#include "encode.h"
#include "gfp.h"
#include "programs.h"
#include "reasons.h"
#include "session.h"
#include "stacks.h"
#include "threads.h"
#include "transitions.h"

/**
 * gotrace_threads_alloc - a zeroed table for thread ids below @max_tid
 * @max_tid: number of entries
 *
 * Return: the table, or NULL if it cannot be allocated.
 */
struct gotrace_thread *gotrace_threads_alloc(u32 max_tid)
{
	return kvzalloc(array_size(max_tid, sizeof(struct gotrace_thread)),
			GOTRACE_GFP);
}

/**
 * gotrace_threads_free - free a table from gotrace_threads_alloc()
 * @threads: the table
 */
void gotrace_threads_free(struct gotrace_thread *threads)
{
	kvfree(threads);
}

/**
 * gotrace_thread_slow - gotrace_thread_of() when @p does not hold @t
 * @s: session
 * @p: task
 * @t: the entry of @p's id
 *
 * Return: @p's alias if it has one; else @t if that entry is free (never
 * used, or dead) for @p to be created in; else NULL.
 */
struct gotrace_thread *gotrace_thread_slow(struct gotrace_session *s,
					   struct task_struct *p,
					   struct gotrace_thread *t)
{
	u32 tag = gotrace_tag(p);
	int i;

	if (atomic_read(&s->nr_aliases)) {
		for (i = 0; i < GOTRACE_ALIASES; i++) {
			struct gotrace_alias *a = &s->aliases[i];

			/* Pairs with the release in gotrace_thread_alias(). */
			if (smp_load_acquire(&a->busy) && a->tid == p->pid &&
			    a->t.tag == tag)
				return &a->t;
		}
	}
	if (t->state == GOTRACE_T_NONE || t->state == GOTRACE_T_DEAD)
		return t;
	return NULL;
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

/*
 * The next generation of @tid's goroutine ids, counted in the id's entry:
 * @t is that entry or an alias. Only the count moves; the generation of a
 * previous holder that still runs stays its own.
 */
static bool gotrace_next_gen(struct gotrace_session *s, struct gotrace_thread *t,
			     pid_t tid, u16 *gen)
{
	struct gotrace_thread *owner = &s->threads[tid];
	u16 g = READ_ONCE(owner->gens);

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
 * gotrace_g_create - GoCreate for @p, by what @c's P runs (or G 0)
 * @s: session
 * @c: the CPU's buffer
 * @t: @p's entry
 * @p: the new thread
 * @prog: the program it runs
 * @creator: stack id of the creator, or 0
 * @ts: time stamp
 *
 * An id that held a thread earlier in this trace gets the next goroutine id
 * for it (see gotrace_gid()). The goroutine starts runnable with seq 1.
 *
 * Return: false if the buffer is full or @p's id was reused 65535 times.
 */
bool gotrace_g_create(struct gotrace_session *s, struct gotrace_cpu *c,
		      struct gotrace_thread *t, struct task_struct *p,
		      u32 prog, u32 creator, u64 ts)
{
	u16 gen;
	u64 args[3];

	if (!gotrace_next_gen(s, t, p->pid, &gen))
		return false;
	args[0] = (u64)p->pid + (u64)gen * PID_MAX_LIMIT;
	args[1] = gotrace_stack(s->stacks, prog, GOTRACE_R_THREAD);
	args[2] = creator;
	if (!gotrace_emit(&c->ring, ts, GO_EV_GO_CREATE, 3, args, false))
		return false;
	t->gen = gen;
	t->tag = gotrace_tag(p);
	t->prog = prog;
	t->seq = 1;
	t->state = GOTRACE_T_RUNNABLE;
	t->last_cpu = c->cpu;
	t->wake_stack = 0;
	WRITE_ONCE(t->renamed, 0);
	return true;
}

/**
 * gotrace_g_reincarnate - @p now goes by a new name
 * @s: session
 * @c: the CPU's buffer; its P runs @p
 * @t: @p's entry
 * @p: the thread
 * @prog: the program id of its new name
 * @ts: time stamp
 *
 * Its goroutine ends and a new one, created with the new name, takes its
 * place on this P.
 *
 * Return: false if the buffer is full or @p's id was reused 65535 times
 * (see gotrace_g_create()).
 */
bool gotrace_g_reincarnate(struct gotrace_session *s, struct gotrace_cpu *c,
			   struct gotrace_thread *t, struct task_struct *p,
			   u32 prog, u64 ts)
{
	u64 stack = gotrace_stack(s->stacks, t->prog, GOTRACE_R_RENAME);

	/* A stack before GoEnd names the goroutine (gotrace_put_stop()). */
	if (!gotrace_emit(&c->ring, ts, GO_EV_GO_SYSCALL, 1, &stack, false) ||
	    !gotrace_emit(&c->ring, ts, GO_EV_GO_END, 0, NULL, false))
		return false;
	c->cur_g = 0;
	t->state = GOTRACE_T_DEAD;
	return gotrace_g_create(s, c, t, p, prog,
				gotrace_stack(s->stacks, prog, GOTRACE_R_RENAME), ts) &&
	       gotrace_g_run(c, t, p->pid, ts);
}

/**
 * gotrace_g_lost - end the run whose switch-out the trace missed
 * @s: session
 * @c: this CPU's buffer; its P still runs c->cur_g, though the CPU runs idle
 * @ts: time stamp
 *
 * Tracepoints do not fire on a CPU that is no longer online, so a CPU going
 * down switches its stopper out unseen. When the CPU is back, the goroutine
 * its P still runs gets a GoBlock (a kernel wait) before anything else.
 *
 * Return: false if the buffer is full, or if c->cur_g is not the goroutine
 * of a thread that runs in the trace (its identity is lost).
 */
bool gotrace_g_lost(struct gotrace_session *s, struct gotrace_cpu *c, u64 ts)
{
	u32 tid = c->cur_g % PID_MAX_LIMIT;
	struct gotrace_thread *t = NULL;
	u64 stack;
	int i;

	if (tid < s->max_tid && gotrace_gid(&s->threads[tid], tid) == c->cur_g)
		t = &s->threads[tid];
	for (i = 0; !t && i < GOTRACE_ALIASES; i++) {
		struct gotrace_alias *a = &s->aliases[i];

		/* Pairs with the release in gotrace_thread_alias(). */
		if (smp_load_acquire(&a->busy) > 0 && a->tid == tid &&
		    gotrace_gid(&a->t, tid) == c->cur_g)
			t = &a->t;
	}
	if (!t || t->state != GOTRACE_T_RUNNING)
		return false;
	stack = gotrace_stack(s->stacks, t->prog, GOTRACE_R_KERNEL);
	if (!gotrace_emit(&c->ring, ts, GO_EV_GO_SLEEP, 1, &stack, false))
		return false;
	t->state = GOTRACE_T_WAITING;
	t->last_cpu = c->cpu;
	c->cur_g = 0;
	return true;
}

/**
 * gotrace_g_rename - @p takes a new name: exec, prctl(PR_SET_NAME), or a
 * kernel thread named by its creator
 * @s: session
 * @c: this CPU's buffer
 * @t: @p's entry, a live goroutine
 * @p: the thread
 * @comm: the new name
 * @ts: time stamp
 *
 * The running thread is reincarnated at once; another one when it next
 * switches in (its entry is then written from this CPU: only @t->prog and
 * @t->renamed, which its own CPU reads once).
 *
 * Return: false if the running thread could not be reincarnated (see
 * gotrace_g_reincarnate()); true otherwise.
 */
bool gotrace_g_rename(struct gotrace_session *s, struct gotrace_cpu *c,
		      struct gotrace_thread *t, struct task_struct *p,
		      const char *comm, u64 ts)
{
	u32 prog = gotrace_prog_id(s->progs, comm);

	if (p == current && t->state == GOTRACE_T_RUNNING)
		return gotrace_g_reincarnate(s, c, t, p, prog, ts);
	WRITE_ONCE(t->prog, prog);
	WRITE_ONCE(t->renamed, 1);
	return true;
}
