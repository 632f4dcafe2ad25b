/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gotrace transitions: what goroutines and Ps do, as Go events.
 *
 * Every Go event about a goroutine or a P is written here or in
 * transitions.c: these say what happens to the goroutine and the P, and
 * events.h how that is written in the format of the CPU's ring, Go's
 * pre-1.22 one (encode_oldtrace.h) or with generations (encode_tracev2.h).
 * Each transition writes its events on a CPU's buffer and updates the
 * thread's entry and the P only if they all fit; it returns false when the
 * buffer is full, and the caller then cuts the recording (gotrace_cut()).
 *
 * This header holds the scheduler's hot path, a thread switching in and
 * out and woken: inline, so that each probe is one function, for they run
 * at every context switch and wakeup. The slow paths' prototypes sit with
 * the inline functions that call them.
 */
#ifndef _GOTRACE_TRANSITIONS_H
#define _GOTRACE_TRANSITIONS_H

#include "buffer.h"
#include "cpu.h"
#include "events.h"
#include "footer.h"
#include "programs.h"
#include "session.h"
#include "stacks.h"
#include "threads.h"

/**
 * gotrace_v2 - whether a CPU writes the format of Go 1.22 and later
 * @c: the CPU's buffer
 *
 * Return: true if its batches have a generation.
 */
static __always_inline bool gotrace_v2(const struct gotrace_cpu *c)
{
	return c->ring.gen;
}

bool gotrace_proc_start_slow(struct gotrace_session *s, struct gotrace_cpu *c,
			     u64 ts);
bool gotrace_proc_gen(struct gotrace_session *s, struct gotrace_cpu *c, u64 ts);
void gotrace_proc_close(struct gotrace_cpu *c, u64 ts);
bool gotrace_procs_set(struct gotrace_session *s, struct gotrace_cpu *c, u64 ts);
bool gotrace_g_status(struct gotrace_session *s, struct gotrace_cpu *c,
		      struct gotrace_thread *t, pid_t tid, u64 ts);
bool gotrace_g_walk(struct gotrace_session *s, struct gotrace_cpu *c,
		    struct gotrace_thread *t, pid_t tid, u64 ts);
bool gotrace_g_create(struct gotrace_session *s, struct gotrace_cpu *c,
		      struct gotrace_thread *t, struct task_struct *p,
		      u32 prog, u32 creator, u64 ts);
bool gotrace_g_reincarnate(struct gotrace_session *s, struct gotrace_cpu *c,
			   struct gotrace_thread *t, struct task_struct *p,
			   u32 prog, u64 ts);
bool gotrace_g_end(struct gotrace_session *s, struct gotrace_cpu *c,
		   struct gotrace_thread *t, u8 state, u64 ts);
void gotrace_g_untrace(struct gotrace_thread *t, struct task_struct *p);
void gotrace_g_untraced_exit(struct gotrace_session *s, struct task_struct *p);
bool gotrace_g_refilter(struct gotrace_session *s, struct gotrace_cpu *c,
			struct gotrace_thread *t, struct task_struct *p,
			const char *comm, u64 ts);
bool gotrace_g_lost(struct gotrace_session *s, struct gotrace_cpu *c, u64 ts);
bool gotrace_g_rename(struct gotrace_session *s, struct gotrace_cpu *c,
		      struct gotrace_thread *t, struct task_struct *p,
		      const char *comm, u64 ts);
bool gotrace_g_snap(struct gotrace_session *s, struct gotrace_cpu *c,
		    struct gotrace_thread *t, struct task_struct *p, u32 prog,
		    u64 ts);

/**
 * gotrace_proc_start - the P's ProcStart (ProcStatus with generations),
 * once, before its first event
 * @s: session
 * @c: the CPU's buffer
 * @ts: time stamp
 *
 * Inline: every probe asks, and the P has nearly always started.
 *
 * Return: false if the buffer is full.
 */
static inline bool gotrace_proc_start(struct gotrace_session *s,
				      struct gotrace_cpu *c, u64 ts)
{
	return likely(c->proc_started) || gotrace_proc_start_slow(s, c, ts);
}

/**
 * gotrace_g_known - with generations, @t's goroutine has its status in
 * this CPU's generation (gotrace_g_status()) before any other event of it
 * @s: session
 * @c: the CPU's buffer
 * @t: the thread's entry, a live goroutine that this CPU does not run
 * @tid: its id
 * @ts: time stamp
 *
 * Without generations, @t->sgen and the ring's generation are both 0.
 *
 * Return: false if the buffer is full.
 */
static __always_inline bool gotrace_g_known(struct gotrace_session *s,
					    struct gotrace_cpu *c,
					    struct gotrace_thread *t,
					    pid_t tid, u64 ts)
{
	return likely(READ_ONCE(t->sgen) == c->ring.gen) ||
	       gotrace_g_status(s, c, t, tid, ts);
}

/**
 * gotrace_g_running - the entry and the P after a GoStart of @t's goroutine
 * @c: the CPU's buffer; its P now runs @gid
 * @t: the thread's entry
 * @gid: its goroutine id
 */
static __always_inline void gotrace_g_running(struct gotrace_cpu *c,
					      struct gotrace_thread *t, u64 gid)
{
	t->seq++;
	t->state = GOTRACE_T_RUNNING;
	t->last_cpu = c->cpu;
	c->cur_g = gid;
	c->cur_t = t;
}

/**
 * gotrace_g_unblock - a waiting goroutine becomes runnable
 * @s: session
 * @c: the CPU's buffer
 * @t: the thread's entry, waiting
 * @tid: its id
 * @ts: time stamp
 * @v2: the session writes generations (a constant: one copy of the probes
 *	per format)
 *
 * Its events: gotrace_emit_unblock(). With generations, its status in the
 * CPU's generation comes first.
 *
 * Return: false if the buffer is full.
 */
static __always_inline bool gotrace_g_unblock(struct gotrace_session *s,
					      struct gotrace_cpu *c,
					      struct gotrace_thread *t,
					      pid_t tid, u64 ts, const bool v2)
{
	u64 gid = gotrace_gid(t, tid);

	/* Generations (tracev2 only): its status first, once in each. */
	if (v2 && !gotrace_g_known(s, c, t, tid, ts))
		return false;
	if (!gotrace_emit_unblock(c, t, ts, gid, v2))
		return false;
	t->seq++;
	t->state = GOTRACE_T_RUNNABLE;
	/*
	 * Go readers merge Ps before they move a GoSysExit to a P of its own:
	 * a GoStartLocal after it on this P is in order.
	 */
	t->last_cpu = c->cpu;
	return true;
}

/* Events gotrace_put_stop() and gotrace_put_run() write at most, together. */
#define GOTRACE_SWITCH_EVENTS	5

/**
 * gotrace_put_run - GoStart for a runnable goroutine, at room reserved
 * @c: the CPU's buffer; its P runs nothing
 * @t: the thread's entry, runnable
 * @tid: its id
 * @p: where to write, with room for 2 events
 * @dt: time stamp delta of the next event; 0 after this
 * @n: events written so far; counts these
 * @v2: the session writes generations (see gotrace_g_unblock())
 *
 * Its events: gotrace_put_start(). With generations, its status is known
 * (gotrace_run_fast()).
 *
 * Return: one past the last byte written.
 */
static __always_inline u8 *gotrace_put_run(struct gotrace_cpu *c,
					   struct gotrace_thread *t, pid_t tid,
					   u8 *p, u64 *dt, unsigned int *n,
					   const bool v2)
{
	u64 gid = gotrace_gid(t, tid);

	p = gotrace_put_start(c, t, gid, p, dt, n, v2);
	gotrace_g_running(c, t, gid);
	return p;
}

/* gotrace_put_run() at a reservation of its own; false if the ring is full. */
static __always_inline bool gotrace_g_run(struct gotrace_cpu *c,
					  struct gotrace_thread *t,
					  pid_t tid, u64 ts, const bool v2)
{
	unsigned int n = 0;
	u64 dt;
	u8 *p;

	if (unlikely(!gotrace_buf_reserve(&c->ring, &ts, 2, false, &p)))
		return false;
	dt = ts - c->ring.last_ts;
	p = gotrace_put_run(c, t, tid, p, &dt, &n, v2);
	gotrace_buf_advance(&c->ring, p, ts, n);
	return true;
}

/**
 * gotrace_run_fast - whether gotrace_put_run() alone starts @t
 * @c: the CPU's buffer
 * @t: the entry of a thread switching in
 * @v2: the session writes generations (see gotrace_g_unblock())
 *
 * Otherwise gotrace_g_start() does: it first creates or unblocks the
 * goroutine, writes its status in a new generation, or reincarnates it
 * after a rename.
 *
 * Return: true if @t is runnable, was not renamed, and has its status in
 * the CPU's generation.
 */
static __always_inline bool gotrace_run_fast(const struct gotrace_cpu *c,
					     const struct gotrace_thread *t,
					     const bool v2)
{
	/* Generations (tracev2 only): and its status in the CPU's one. */
	return t->state == GOTRACE_T_RUNNABLE && !READ_ONCE(t->renamed) &&
	       (!v2 || READ_ONCE(t->sgen) == c->ring.gen);
}

/**
 * gotrace_g_start - GoStart for @p, switching in
 * @s: session
 * @c: the CPU's buffer; its P runs nothing
 * @t: @p's entry
 * @p: the thread
 * @ts: time stamp
 * @v2: the session writes generations (see gotrace_g_unblock())
 *
 * A thread created without sched_process_fork (create_io_thread() makes
 * io_uring workers that way) is created here; one woken without a
 * sched_wakeup would be unblocked here; one renamed while not running is
 * reincarnated here; one that left the filter meanwhile ends here. The P
 * runs no goroutine at this point, so G 0 does it. The P starts here if it
 * has not.
 *
 * Return: false if the buffer is full or @p's id was reused 65535 times
 * (see gotrace_g_create()).
 */
static __always_inline bool gotrace_g_start(struct gotrace_session *s,
					    struct gotrace_cpu *c,
					    struct gotrace_thread *t,
					    struct task_struct *p, u64 ts,
					    const bool v2)
{
	if ((!gotrace_alive(t) || gotrace_waiting(t)) &&
	    !gotrace_proc_start(s, c, ts))
		return false;
	/* Generations (tracev2 only): a live goroutine's status first. */
	if (v2 && gotrace_alive(t) && !gotrace_g_known(s, c, t, p->pid, ts))
		return false;
	if (!gotrace_alive(t)) {
		if (!gotrace_g_create(s, c, t, p, gotrace_prog_id(s->progs, p->comm),
				      0, ts))
			return false;
	} else if (gotrace_waiting(t)) {
		if (!gotrace_g_unblock(s, c, t, p->pid, ts, v2))
			return false;
	}
	if (!gotrace_g_run(c, t, p->pid, ts, v2))
		return false;
	switch (READ_ONCE(t->renamed)) {
	case 0:
		return true;
	case GOTRACE_LEAVES:
		return gotrace_g_end(s, c, t, GOTRACE_T_UNTRACED, ts);
	default:
		return gotrace_g_reincarnate(s, c, t, p, READ_ONCE(t->prog), ts);
	}
}

#endif /* _GOTRACE_TRANSITIONS_H */
