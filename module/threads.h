/* SPDX-License-Identifier: GPL-2.0 */
/* The thread table: each thread id's trace state, and aliases for ids taken twice (threads.c). */
#ifndef _GOTRACE_THREADS_H
#define _GOTRACE_THREADS_H

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/hash.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/types.h>
#include "session.h"
#include "thread_table.h"

/* A thread's state in the trace's eyes. */
enum gotrace_tstate {
	GOTRACE_T_NONE,		/* never seen in this trace */
	GOTRACE_T_RUNNABLE,
	GOTRACE_T_RUNNING,
	GOTRACE_T_WAITING,
	GOTRACE_T_SYSCALL,	/* waiting after GoSysBlock: woken by GoSysExit */
	GOTRACE_T_DEAD,
	GOTRACE_T_UNTRACED,	/* its id's holder, left out by the filter */
};

/*
 * @renamed: a rename gave the thread a new name, or a rename or a cgroup
 * move took it out of the filter: its own CPU ends its goroutine.
 */
#define GOTRACE_RENAMED		1
#define GOTRACE_LEAVES		2

/**
 * struct gotrace_thread - trace state of one thread id
 * @seq:	Go sequence number the thread's next GoStart/GoUnblock carries.
 * @tag:	identity of the task holding the id (gotrace_tag()).
 * @wake_stack:	stack of its last waker; written by the waker's CPU.
 * @gen:	how many earlier threads held this id in this trace when this
 *		one was created; the goroutine id is tid + gen * PID_MAX_LIMIT.
 * @prog:	program id of its name; written by a renaming CPU.
 * @state:	enum gotrace_tstate.
 * @renamed:	GOTRACE_RENAMED or GOTRACE_LEAVES while not running, or 0;
 *		written by the renaming (or cgroup-moving) CPU.
 * @last_cpu:	P of the goroutine's last transition: an event on the same P
 *		can use Go's *Local variant, which carries no sequence number.
 * @gens:	in an id's own entry (not an alias): the highest @gen given to
 *		any holder of the id in this trace, its aliases' included.
 *		Written only by creations, which the id's holders do in turn.
 * @sgen:	formats 1.22 and later: the generation whose GoStatus of the
 *		goroutine is written, OR GOTRACE_SGEN_WALKED when the
 *		generation's walk wrote it (generations.c); 0 in older formats,
 *		as the CPUs' generation. Claimed with cmpxchg.
 * @ready:	with a latency trigger: the low 32 bits of the trace clock
 *		when the thread became runnable, 0 while it is not
 *		(trigger.h).
 *
 * Apart from @wake_stack, @prog, @renamed and @gens, only the probes that
 * the scheduler serialises for the thread (its switches and wakeups) write
 * it. @gen is the holder's own and never changes while it lives: a thread
 * that takes the id while the previous holder still runs (an alias) bumps
 * @gens, not its predecessor's @gen.
 */
struct gotrace_thread {
	u32 seq;
	u32 tag;
	u32 wake_stack;
	u16 gen;
	u16 prog;
	u8 state;
	u8 renamed;
	u16 last_cpu;
	u16 gens;
	u32 sgen;
	u32 ready;
};

/**
 * struct gotrace_leaf - the entries of GOTRACE_LEAF_IDS consecutive ids
 * @t:		the entries, in id order.
 * @spare:	while the leaf is in no directory slot: its place in a list
 *		(thread_table.c).
 *
 * 32-byte entries make a leaf 2 KiB: a kmalloc() of that size is aligned
 * to it, which leaves GOTRACE_LEAF_RETIRED's bit free in a slot.
 */
struct gotrace_leaf {
	union {
		struct gotrace_thread t[GOTRACE_LEAF_IDS];
		struct llist_node spare;
	};
};

/* In @sgen: the generation's walk wrote the status; seq restarts at 1. */
#define GOTRACE_SGEN_WALKED	BIT(31)

/* Aliases: see threads.c. */
#define GOTRACE_ALIASES		256

/**
 * struct gotrace_alias - an entry for a thread whose id's entry is taken
 * @busy:	claimed (cmpxchg); released with a store when the thread dies.
 * @tid:	the thread's id.
 * @t:		its trace state.
 */
struct gotrace_alias {
	int busy;
	u32 tid;
	struct gotrace_thread t;
};

struct gotrace_thread *gotrace_thread_slow(struct gotrace_session *s,
					   struct task_struct *p,
					   struct gotrace_thread *t);
struct gotrace_thread *gotrace_thread_alias(struct gotrace_session *s,
					    struct task_struct *p);
void gotrace_thread_unalias(struct gotrace_session *s, struct gotrace_thread *t);
bool gotrace_thread_next_gen(struct gotrace_session *s, struct gotrace_thread *t,
			     pid_t tid, u16 *gen);
struct gotrace_thread *gotrace_thread_of_gid(struct gotrace_session *s, u64 gid);

/**
 * gotrace_alive - whether an entry is held: a live goroutine, or a thread
 * the filter leaves out (GOTRACE_T_UNTRACED)
 * @t: the entry
 *
 * Return: false if @t never held one in this trace, or its goroutine ended.
 */
static inline bool gotrace_alive(const struct gotrace_thread *t)
{
	return t->state != GOTRACE_T_NONE && t->state != GOTRACE_T_DEAD;
}

/**
 * gotrace_waiting - whether a thread waits in the trace (for a wakeup)
 * @t: its entry
 *
 * Return: true if @t is GOTRACE_T_WAITING or GOTRACE_T_SYSCALL.
 */
static inline bool gotrace_waiting(const struct gotrace_thread *t)
{
	return t->state == GOTRACE_T_WAITING || t->state == GOTRACE_T_SYSCALL;
}

/**
 * gotrace_traced - whether an entry holds a live goroutine
 * @t: the entry
 *
 * Return: gotrace_alive(), but false for a thread the filter leaves out.
 */
static inline bool gotrace_traced(const struct gotrace_thread *t)
{
	return gotrace_alive(t) && t->state != GOTRACE_T_UNTRACED;
}

/**
 * gotrace_tag - a 32-bit identity of a task, to tell holders of an id apart
 * @p: the task
 *
 * Return: a 32-bit hash of @p's address.
 */
static inline u32 gotrace_tag(struct task_struct *p)
{
	return hash_ptr(p, 32);
}

/**
 * gotrace_goid - goroutine id of the thread holding @tid in generation @gen
 * @tid: thread id
 * @gen: how many threads held @tid earlier in the trace
 *
 * A reused id gets PID_MAX_LIMIT added once per earlier holder, because Go
 * before 1.22 rejects a second GoCreate for an id that ever existed in the
 * trace. Go 1.22 and later accept it once the first goroutine has ended:
 * there, only a holder that overlaps the previous one (an alias) does.
 *
 * Return: @tid + @gen * PID_MAX_LIMIT.
 */
static inline u64 gotrace_goid(pid_t tid, u16 gen)
{
	return (u64)tid + (u64)gen * PID_MAX_LIMIT;
}

/**
 * gotrace_gid - goroutine id of the thread holding @tid, state @t
 * @t: thread state
 * @tid: thread id
 *
 * Return: gotrace_goid() of @tid in @t's generation.
 */
static inline u64 gotrace_gid(const struct gotrace_thread *t, pid_t tid)
{
	return gotrace_goid(tid, t->gen);
}

/**
 * gotrace_gid_tid - the thread id a goroutine id was made of
 * @gid: a goroutine id from gotrace_goid()
 *
 * Return: its thread id.
 */
static inline u32 gotrace_gid_tid(u64 gid)
{
	return gid % PID_MAX_LIMIT;
}

/* Whether @t is one of @s's aliases rather than a thread id's own entry. */
static inline bool gotrace_is_alias(struct gotrace_session *s,
				    struct gotrace_thread *t)
{
	return (void *)t >= (void *)s->aliases &&
	       (void *)t < (void *)(s->aliases + GOTRACE_ALIASES);
}

/**
 * gotrace_thread_entry - the entry of thread id @tid, to read
 * @s: session
 * @tid: a thread id: the directory covers every one (PID_MAX_LIMIT)
 *
 * The load of the slot orders the loads through it (an address
 * dependency) after the cmpxchg() that published the leaf.
 *
 * Return: the entry; in the shared empty leaf (GOTRACE_T_NONE, never to be
 * written) if no leaf holds @tid: gotrace_table_claim() makes one.
 */
static __always_inline struct gotrace_thread *
gotrace_thread_entry(struct gotrace_session *s, u32 tid)
{
	unsigned long leaf = READ_ONCE(s->table.dir[tid >> GOTRACE_LEAF_SHIFT]);

	leaf &= ~GOTRACE_LEAF_RETIRED;
	return &((struct gotrace_leaf *)leaf)->t[tid & (GOTRACE_LEAF_IDS - 1)];
}

/**
 * gotrace_thread_find - the trace state of @p
 * @s: session
 * @p: task
 * @tp: set to @p's entry: its id's entry if @p holds it, else its alias
 *	(see threads.c), else the id's entry if it is free (never used, or
 *	dead) for @p to be created in; NULL if @p's id is not below max_tid,
 *	or another task holds the entry and @p has no alias, or the entry
 *	needs a leaf and none is ready (thread_table.c). The prober decides
 *	what NULL means: switch-in and fork claim an alias, others cut the
 *	recording.
 *
 * Return: whether @tp is an entry. Inline and a bool, so that on the
 * common path, a live thread holding its id's entry, a probe tests nothing
 * more (the kernel's -fno-delete-null-pointer-checks would keep a test of
 * the pointer): not even max_tid, as ids at or above it never hold an
 * entry (gotrace_thread_slow() tells).
 */
static __always_inline bool gotrace_thread_find(struct gotrace_session *s,
						struct task_struct *p,
						struct gotrace_thread **tp)
{
	struct gotrace_thread *t = gotrace_thread_entry(s, p->pid);

	if (likely(t->tag == gotrace_tag(p) && gotrace_alive(t))) {
		*tp = t;
		return true;
	}
	*tp = gotrace_thread_slow(s, p, t);
	return *tp;
}

/**
 * gotrace_thread_of - gotrace_thread_find() as a pointer
 * @s: session
 * @p: task
 *
 * Return: @p's entry, or NULL (see gotrace_thread_find()).
 */
static inline struct gotrace_thread *
gotrace_thread_of(struct gotrace_session *s, struct task_struct *p)
{
	struct gotrace_thread *t;

	gotrace_thread_find(s, p, &t);
	return t;
}

#endif /* _GOTRACE_THREADS_H */
