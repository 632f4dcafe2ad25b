/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gotrace events: how each transition is written, in each format.
 *
 * transitions.h/.c say what happened to a goroutine or a P and update its
 * state; the functions here write that as Go events on a CPU's ring. Each
 * comes in one copy per format, gotrace1_*() for Go before 1.22
 * (encode_oldtrace.h) and gotrace2_*() with generations
 * (encode_tracev2.h), and a gotrace_*() that chooses between them: this is
 * the one place a transition's events depend on the format. The choice is
 * on a v2 the caller passes: a constant in the hot probes, which have one
 * copy per format, so that each copy holds only its format's events; the
 * slow paths pass gotrace_v2().
 *
 * They read the thread's entry and the P, and write them only where the
 * format's events say more than the transition: the older format's P stops
 * at a blocking system call (gotrace1_put_stop()) and starts again with a
 * ProcStart (gotrace1_put_start()); tracev2's GoStatus sets a goroutine's
 * sequence number back (gotrace2_put_seq_reset()); and a stop sets what
 * the goroutine is then, which the formats see differently, and that the P
 * runs nothing (gotrace_put_stop()). Each returns false when the ring is full and
 * nothing was written, or writes at room its caller reserved.
 */
#ifndef _GOTRACE_EVENTS_H
#define _GOTRACE_EVENTS_H

#include <linux/sched/signal.h>

#include "buffer.h"
#include "cpu.h"
#include "encode_oldtrace.h"
#include "encode_tracev2.h"
#include "kstacks.h"
#include "session.h"
#include "stacks.h"
#include "threads.h"

u16 gotrace_word_slow(struct gotrace_session *s, u32 reason);

/**
 * gotrace_word - the string id of a reason's word, the reason a GoBlock or
 * GoStop of the format of Go 1.22 and later carries
 * @s: session
 * @reason: enum gotrace_reason or a system call number
 *
 * Return: its string id, given at its first use (gotrace_word_slow()).
 */
static __always_inline u64 gotrace_word(struct gotrace_session *s, u32 reason)
{
	u16 id = READ_ONCE(s->word_ids[reason]);

	return likely(id) ? id : gotrace_word_slow(s, reason);
}

/*
 * A goroutine waiting becomes runnable: GoSysExit if it blocked in a system
 * call, else GoUnblock charged to its waker's stack, as GoUnblockLocal if
 * it blocked on this P. (GoSysExitLocal is no use here: Go takes its
 * goroutine from the P, which does not run the exiting one.)
 */
static __always_inline bool gotrace1_emit_unblock(struct gotrace_cpu *c,
						  const struct gotrace_thread *t,
						  u64 ts, u64 gid)
{
	bool sys = t->state == GOTRACE_T_SYSCALL;
	u64 args[3] = { gid, t->seq };
	bool ok;

	/* One emit per event type: each writes a constant number of args. */
	if (sys) {
		args[2] = 0;		/* the real time stamp: this one */
		ok = gotrace_emit(&c->ring, ts, GO_EV_GO_SYSEXIT, 3, args, false);
	} else if (t->last_cpu == c->cpu) {
		args[1] = READ_ONCE(t->wake_stack);
		ok = gotrace_emit(&c->ring, ts, GO_EV_GO_UNBLOCK_LOCAL, 2, args,
				  false);
	} else {
		args[2] = READ_ONCE(t->wake_stack);
		ok = gotrace_emit(&c->ring, ts, GO_EV_GO_UNBLOCK, 3, args, false);
	}
	return ok;
}

/* With generations, always GoUnblock: it names its waker, wherever it blocked. */
static __always_inline bool gotrace2_emit_unblock(struct gotrace_cpu *c,
						  const struct gotrace_thread *t,
						  u64 ts, u64 gid)
{
	u64 args[3] = { gid, t->seq, READ_ONCE(t->wake_stack) };

	return gotrace_emit2(&c->ring, ts, GO2_EV_GO_UNBLOCK, 3, args);
}

/**
 * gotrace_emit_unblock - a waiting goroutine becomes runnable
 * @c: the CPU's buffer
 * @t: the thread's entry, waiting
 * @ts: time stamp
 * @gid: its goroutine id
 * @v2: write generations' events (a constant in the hot probes)
 *
 * Return: false if the ring is full.
 */
static __always_inline bool gotrace_emit_unblock(struct gotrace_cpu *c,
						 const struct gotrace_thread *t,
						 u64 ts, u64 gid, const bool v2)
{
	if (v2)
		return gotrace2_emit_unblock(c, t, ts, gid);
	return gotrace1_emit_unblock(c, t, ts, gid);
}

/*
 * GoStart, or GoStartLocal if the goroutine became runnable on this P;
 * after the P's ProcStart if it has stopped (at a blocking system call),
 * which starts it.
 */
static __always_inline u8 *gotrace1_put_start(struct gotrace_cpu *c,
					      const struct gotrace_thread *t,
					      u64 gid, u8 *p, u64 *dt,
					      unsigned int *n)
{
	u64 args[2] = { gid, t->seq };
	u64 thread;

	if (!c->proc_started) {
		thread = c->cpu;
		p = gotrace_put_event(p, GO_EV_PROC_START, *dt, 1, &thread);
		c->proc_started = true;
		*dt = 0;
		(*n)++;
	}
	if (t->last_cpu == c->cpu)
		p = gotrace_put_event(p, GO_EV_GO_START_LOCAL, *dt, 1, args);
	else
		p = gotrace_put_event(p, GO_EV_GO_START, *dt, 2, args);
	*dt = 0;
	(*n)++;
	return p;
}

/*
 * With generations, a goroutine's sequence number (of its GoStart and
 * GoUnblock events) is a varint of one byte below 128. Go's readers set it
 * back to 0 at a GoStatus of the goroutine, which they accept wherever it
 * repeats the state they know, and which its viewers skip as a change from
 * a state to itself: one after a GoStart of a number this high keeps every
 * number at one byte (the next GoStart follows at most a GoUnblock), at the
 * cost of a GoStatus of 5 to 7 bytes every 63 or more round trips of a
 * thread.
 */
#define GOTRACE2_SEQ_RESET	126

/*
 * GoStatus of the goroutine @gid that @t's GoStart just made the one
 * running on this CPU's M: its sequence number starts again at 0.
 */
static __always_inline u8 *gotrace2_put_seq_reset(struct gotrace_cpu *c,
						  struct gotrace_thread *t,
						  u64 gid, u8 *p,
						  unsigned int *n)
{
	u64 args[3] = { gid, c->cpu, GO2_G_RUNNING };

	p = gotrace2_put_event(p, GO2_EV_GO_STATUS, 0, 3, args);
	(*n)++;
	t->seq = 0;
	return p;
}

/* GoStart; then a GoStatus if its sequence number is high. */
static __always_inline u8 *gotrace2_put_start(struct gotrace_cpu *c,
					      struct gotrace_thread *t,
					      u64 gid, u8 *p, u64 *dt,
					      unsigned int *n)
{
	u64 args[2] = { gid, t->seq };

	p = gotrace2_put_event(p, GO2_EV_GO_START, *dt, 2, args);
	*dt = 0;
	(*n)++;
	if (unlikely(args[1] >= GOTRACE2_SEQ_RESET))
		p = gotrace2_put_seq_reset(c, t, gid, p, n);
	return p;
}

/**
 * gotrace_put_start - GoStart for a runnable goroutine, at room reserved
 * @c: the CPU's buffer; its P runs nothing. Without generations, its P
 *	starts here if it has stopped (at a blocking system call).
 * @t: the thread's entry, runnable; with generations, its sequence number
 *	is set to 0 if a GoStatus resets it
 * @gid: its goroutine id
 * @p: where to write, with room for 2 events
 * @dt: time stamp delta of the next event; 0 after this
 * @n: events written so far; counts these
 * @v2: write generations' events (a constant in the hot probes)
 *
 * Return: one past the last byte written.
 */
static __always_inline u8 *gotrace_put_start(struct gotrace_cpu *c,
					     struct gotrace_thread *t, u64 gid,
					     u8 *p, u64 *dt, unsigned int *n,
					     const bool v2)
{
	if (v2)
		return gotrace2_put_start(c, t, gid, p, dt, n);
	return gotrace1_put_start(c, t, gid, p, dt, n);
}

/**
 * gotrace_still_runnable - whether a switched-out thread stays on its runqueue
 * @preempt: sched_switch's preempt
 * @prev: the thread
 * @prev_state: sched_switch's prev_state
 *
 * __schedule() dequeues a task only on a voluntary switch with a sleeping
 * state and no signal that would wake it; @prev_state is the state it read
 * before clearing it for such a signal. Calling a blocked task runnable is
 * harmless (its wakeup is then ignored); the reverse would leave it waiting
 * for a wakeup that never comes.
 *
 * Return: true if @prev was preempted, is still in a running state, or has a
 * signal pending that wakes it; false if __schedule() dequeues it.
 */
static __always_inline bool gotrace_still_runnable(bool preempt,
						   struct task_struct *prev,
						   unsigned int prev_state)
{
	return preempt || !prev_state || signal_pending_state(prev_state, prev);
}

/**
 * gotrace_classify - the Go event that ends a run, and its reason
 * @p: the thread switching out
 * @preempt: sched_switch's preempt
 * @prev_state: sched_switch's prev_state
 * @reason: set to enum gotrace_reason or a system call number
 *
 * Return: GoEnd, GoPreempt, GoSched (sched_yield), GoBlockSync, GoBlockNet,
 * GoSleep, GoSysBlock (for GoSysCall + GoSysBlock) or GoBlock.
 */
static __always_inline enum gotrace_ev
gotrace_classify(struct task_struct *p, bool preempt, unsigned int prev_state,
		 u32 *reason)
{
	int nr = gotrace_syscall_of(p);

	if (prev_state & TASK_DEAD) {
		/* The call it exits in (exit, exit_group), or none. */
		*reason = nr >= 0 ? nr : GOTRACE_R_NR;
		return GO_EV_GO_END;
	}
	if (gotrace_still_runnable(preempt, p, prev_state)) {
		if (!preempt && nr == __NR_sched_yield) {
			*reason = nr;
			return GO_EV_GO_SCHED;
		}
		*reason = GOTRACE_R_PREEMPT;
		return GO_EV_GO_PREEMPT;
	}
	if (nr < 0) {
		*reason = p->flags & PF_KTHREAD ? GOTRACE_R_KERNEL : GOTRACE_R_FAULT;
		return GO_EV_GO_SLEEP;
	}
	*reason = nr;
	switch (gotrace_syscalls[nr].class) {
	case GOTRACE_C_SYNC:
		return GO_EV_GO_BLOCK_SYNC;
	case GOTRACE_C_NET:
		return GO_EV_GO_BLOCK_NET;
	case GOTRACE_C_SLEEP:
		return GO_EV_GO_SLEEP;
	default:
		return GO_EV_GO_SYSBLOCK;
	}
}

/**
 * gotrace2_put_stop - gotrace_put_stop() with generations
 * @s: session
 * @c: the CPU's buffer; its P runs @p
 * @t: @p's entry, GOTRACE_T_RUNNING
 * @p: the thread
 * @preempt: sched_switch's preempt
 * @prev_state: sched_switch's prev_state
 * @buf: where to write, with room for an event
 * @dt: time stamp delta of the next event; 0 after this
 * @n: events written so far; counts this one
 *
 * GoDestroy when @p exits; else GoStop (still runnable) or GoBlock, with
 * the reason's word and the stack [reason, program] or, for GoBlock with
 * kernel stacks, where it blocks (each generation's tables list the kernel
 * stacks used by then, as they do CPU samples'). A thread blocked in
 * a system call is a blocked goroutine like any other: a goroutine in
 * Go's syscall state is bound to its M, here a CPU that goes on running
 * others, and the waker's GoUnblock then names who woke it.
 *
 * Return: one past the last byte written.
 */
static __always_inline u8 *gotrace2_put_stop(struct gotrace_session *s,
					     struct gotrace_cpu *c,
					     struct gotrace_thread *t,
					     struct task_struct *p, bool preempt,
					     unsigned int prev_state, u8 *buf,
					     u64 *dt, unsigned int *n)
{
	u32 reason = 0;
	enum gotrace_ev ev = gotrace_classify(p, preempt, prev_state, &reason);
	u8 state = GOTRACE_T_WAITING;
	u64 args[2];

	(*n)++;
	c->cur_g = 0;
	if (ev == GO_EV_GO_END) {
		buf = gotrace2_put_event(buf, GO2_EV_GO_DESTROY, *dt, 0, NULL);
		*dt = 0;
		if (gotrace_is_alias(s, t)) {
			gotrace_thread_unalias(s, t);
			return buf;
		}
		t->state = GOTRACE_T_DEAD;
		return buf;
	}
	args[0] = gotrace_word(s, reason);
	if (ev == GO_EV_GO_PREEMPT || ev == GO_EV_GO_SCHED) {
		args[1] = gotrace_stack(s->stacks, t->prog, reason);
		buf = gotrace2_put_event(buf, GO2_EV_GO_STOP, *dt, 2, args);
		state = GOTRACE_T_RUNNABLE;
	} else {
		/* Where it blocks, if kernel stacks are on and have room. */
		args[1] = (s->args.flags & GOTRACE_START_KSTACKS) ?
			  gotrace_kstack(s, t->prog) : 0;
		if (!args[1])
			args[1] = gotrace_stack(s->stacks, t->prog, reason);
		buf = gotrace2_put_event(buf, GO2_EV_GO_BLOCK, *dt, 2, args);
	}
	*dt = 0;
	t->state = state;
	t->last_cpu = c->cpu;
	return buf;
}

/**
 * gotrace1_put_stop - gotrace_put_stop() without generations
 * @s: session
 * @c: the CPU's buffer; its P runs @p
 * @t: @p's entry, GOTRACE_T_RUNNING
 * @p: the thread
 * @preempt: sched_switch's preempt
 * @prev_state: sched_switch's prev_state
 * @buf: where to write, with room for 3 events
 * @dt: time stamp delta of the next event; 0 after this
 * @n: events written so far; counts these
 *
 * GoEnd (after a GoSysCall with the stack it exits in, if any) when @p
 * exits; GoSysCall, GoSysBlock and ProcStop, which stops the P, when it
 * blocks in a system call; else GoPreempt or GoSched (still runnable),
 * GoBlockSync, GoBlockNet, GoSleep or GoBlock, with the stack [reason,
 * program] or, with kernel stacks, where it blocks.
 *
 * Return: one past the last byte written.
 */
static __always_inline u8 *gotrace1_put_stop(struct gotrace_session *s,
					     struct gotrace_cpu *c,
					     struct gotrace_thread *t,
					     struct task_struct *p, bool preempt,
					     unsigned int prev_state, u8 *buf,
					     u64 *dt, unsigned int *n)
{
	u32 reason = 0;
	enum gotrace_ev ev = gotrace_classify(p, preempt, prev_state, &reason);
	u64 stack = 0;
	u8 state = GOTRACE_T_WAITING;

	/* Where it blocks, if kernel stacks are on and have room. */
	if ((s->args.flags & GOTRACE_START_KSTACKS) && ev != GO_EV_GO_END &&
	    ev != GO_EV_GO_PREEMPT && ev != GO_EV_GO_SCHED)
		stack = gotrace_kstack(s, t->prog);
	if (!stack && reason != GOTRACE_R_NR)
		stack = gotrace_stack(s->stacks, t->prog, reason);

	switch (ev) {
	case GO_EV_GO_END:
		/*
		 * GoEnd has no stack. A thread that exits in a system call
		 * says so first (a GoSysCall that does not block): Go 1.22+
		 * readers name a goroutine of the start snapshot after the
		 * first stack of its transitions, and the viewer labels a
		 * run when it ends.
		 */
		if (stack) {
			buf = gotrace_put_event(buf, GO_EV_GO_SYSCALL, *dt, 1,
						&stack);
			*dt = 0;
			(*n)++;
		}
		buf = gotrace_put_event(buf, ev, *dt, 0, NULL);
		(*n)++;
		state = GOTRACE_T_DEAD;
		if (gotrace_is_alias(s, t)) {
			*dt = 0;
			c->cur_g = 0;
			gotrace_thread_unalias(s, t);
			return buf;
		}
		break;
	case GO_EV_GO_SYSBLOCK:
		/*
		 * As Go's runtime hands off a P whose goroutine blocks in a
		 * system call: the P stops, and restarts with its next event.
		 * Go 1.23's viewer ends the goroutine's slice at that stop.
		 * All three or none (the caller reserved room for them): cut
		 * after GoSysBlock, the trace's P would run nothing while
		 * c->cur_g still names the goroutine.
		 */
		buf = gotrace_put_event(buf, GO_EV_GO_SYSCALL, *dt, 1, &stack);
		buf = gotrace_put_event(buf, ev, 0, 0, NULL);
		buf = gotrace_put_event(buf, GO_EV_PROC_STOP, 0, 0, NULL);
		*n += 3;
		c->proc_started = false;
		state = GOTRACE_T_SYSCALL;
		break;
	case GO_EV_GO_PREEMPT:
	case GO_EV_GO_SCHED:
		state = GOTRACE_T_RUNNABLE;
		fallthrough;
	default:
		buf = gotrace_put_event(buf, ev, *dt, 1, &stack);
		(*n)++;
	}
	*dt = 0;
	t->state = state;
	t->last_cpu = c->cpu;
	c->cur_g = 0;
	return buf;
}

/**
 * gotrace_put_stop - @p switches out: end of its run, and why, at room reserved
 * @s: session
 * @c: the CPU's buffer; its P runs @p, and nothing after this
 * @t: @p's entry, GOTRACE_T_RUNNING; set to what its goroutine is then
 * @p: the thread
 * @preempt: sched_switch's preempt
 * @prev_state: sched_switch's prev_state
 * @buf: where to write, with room for 3 events
 * @dt: time stamp delta of the next event; 0 after this
 * @n: events written so far; counts these
 * @v2: write generations' events (a constant in the hot probes)
 *
 * Unlike the other writers here, a stop's set the goroutine's state too:
 * the formats see it differently (a thread blocked in a system call is in
 * the older format's syscall state, until its GoSysExit; with generations,
 * a blocked goroutine like any other).
 *
 * Return: one past the last byte written.
 */
static __always_inline u8 *gotrace_put_stop(struct gotrace_session *s,
					    struct gotrace_cpu *c,
					    struct gotrace_thread *t,
					    struct task_struct *p, bool preempt,
					    unsigned int prev_state, u8 *buf,
					    u64 *dt, unsigned int *n,
					    const bool v2)
{
	if (v2)
		return gotrace2_put_stop(s, c, t, p, preempt, prev_state, buf,
					 dt, n);
	return gotrace1_put_stop(s, c, t, p, preempt, prev_state, buf, dt, n);
}

/**
 * gotrace_emit_proc_start - a P starts: ProcStart, or with generations its
 * status, running (it never stops)
 * @r: the CPU's ring
 * @ts: time stamp
 * @cpu: the P
 * @v2: write generations' events
 *
 * Return: false if the ring is full.
 */
static inline bool gotrace_emit_proc_start(struct gotrace_ring *r, u64 ts,
					   u64 cpu, const bool v2)
{
	u64 args[2] = { cpu, GO2_P_RUNNING };

	if (v2)
		return gotrace_emit2(r, ts, GO2_EV_PROC_STATUS, 2, args);
	return gotrace_emit(r, ts, GO_EV_PROC_START, 1, args, false);
}

/*
 * The stop of an old-format trace: what a started P runs (@running) gets a
 * GoSched, and the P a ProcStop. Both are tried; they use the chunk's
 * reserve and always fit.
 */
static inline bool gotrace1_emit_close(struct gotrace_ring *r, u64 ts,
				       bool running)
{
	u64 stack = 0;
	bool ok = !running || gotrace_emit(r, ts, GO_EV_GO_SCHED, 1, &stack, true);

	return gotrace_emit(r, ts, GO_EV_PROC_STOP, 0, NULL, true) && ok;
}

/**
 * gotrace_emit_procs - how many Ps the trace has: GoMaxProcs, twice
 * (modern Go takes the first as the end of the start snapshot and keeps
 * only later ones); with generations, ProcsChange
 * @r: the CPU's ring
 * @ts: time stamp
 * @procs: the number of Ps
 * @v2: write generations' events
 *
 * Return: false if the ring is full.
 */
static inline bool gotrace_emit_procs(struct gotrace_ring *r, u64 ts, u64 procs,
				      const bool v2)
{
	u64 args[2] = { procs };

	if (v2)
		return gotrace_emit2(r, ts, GO2_EV_PROCS_CHANGE, 2, args);
	return gotrace_emit(r, ts, GO_EV_GOMAXPROCS, 2, args, false) &&
	       gotrace_emit(r, ts, GO_EV_GOMAXPROCS, 2, args, false);
}

/**
 * gotrace_emit_create - GoCreate, the same in each format's numbering
 * @r: the CPU's ring
 * @ts: time stamp
 * @gid: the new goroutine's id
 * @stack: the stack it is named after
 * @creator: its creator's stack id, or 0
 * @v2: write generations' events
 *
 * Return: false if the ring is full.
 */
static inline bool gotrace_emit_create(struct gotrace_ring *r, u64 ts, u64 gid,
				       u64 stack, u64 creator, const bool v2)
{
	u64 args[3] = { gid, stack, creator };

	if (v2)
		return gotrace_emit2(r, ts, GO2_EV_GO_CREATE, 3, args);
	return gotrace_emit(r, ts, GO_EV_GO_CREATE, 3, args, false);
}

/**
 * gotrace_emit_end - the running goroutine ends: GoSysCall with @stack,
 * which names it (gotrace_put_stop()), and GoEnd; with generations,
 * GoDestroy
 * @r: the CPU's ring
 * @ts: time stamp
 * @stack: its stack id
 * @v2: write generations' events
 *
 * Return: false if the ring is full.
 */
static inline bool gotrace_emit_end(struct gotrace_ring *r, u64 ts, u64 stack,
				    const bool v2)
{
	if (v2)
		return gotrace_emit2(r, ts, GO2_EV_GO_DESTROY, 0, NULL);
	return gotrace_emit(r, ts, GO_EV_GO_SYSCALL, 1, &stack, false) &&
	       gotrace_emit(r, ts, GO_EV_GO_END, 0, NULL, false);
}

/**
 * gotrace_emit_sleep - the running goroutine waits in the kernel: GoSleep;
 * with generations, GoBlock with its reason's word
 * @s: session
 * @r: the CPU's ring
 * @ts: time stamp
 * @reason: enum gotrace_reason
 * @stack: its stack id
 * @v2: write generations' events
 *
 * Return: false if the ring is full.
 */
static inline bool gotrace_emit_sleep(struct gotrace_session *s,
				      struct gotrace_ring *r, u64 ts,
				      u32 reason, u64 stack, const bool v2)
{
	u64 args[2] = { 0, stack };

	if (!v2)
		return gotrace_emit(r, ts, GO_EV_GO_SLEEP, 1, &args[1], false);
	args[0] = gotrace_word(s, reason);
	return gotrace_emit2(r, ts, GO2_EV_GO_BLOCK, 2, args);
}

/*
 * The older format's start snapshot: a goroutine it created runs (GoStart,
 * with its sequence number @seq), or waits (GoWaiting). With generations,
 * its status says either (gotrace2_emit_status()).
 */
static inline bool gotrace1_emit_start(struct gotrace_ring *r, u64 ts, u64 gid,
				       u64 seq)
{
	u64 args[2] = { gid, seq };

	return gotrace_emit(r, ts, GO_EV_GO_START, 2, args, false);
}

static inline bool gotrace1_emit_waiting(struct gotrace_ring *r, u64 ts, u64 gid)
{
	return gotrace_emit(r, ts, GO_EV_GO_WAITING, 1, &gid, false);
}

/**
 * gotrace2_emit_status - with generations: GoStatus of a goroutine, with
 * the stack it is named after ([program]) from format 1.23 on
 * (GoStatusStack): the first status of a goroutine that a trace shows then
 * names it
 * @s: session
 * @r: the CPU's ring
 * @ts: time stamp
 * @gid: the goroutine id
 * @m: the M it runs on, or GO2_NO_THREAD
 * @status: GO2_G_*
 * @prog: its program id
 *
 * Return: false if the ring is full.
 */
static inline bool gotrace2_emit_status(struct gotrace_session *s,
					struct gotrace_ring *r, u64 ts, u64 gid,
					u64 m, u64 status, u32 prog)
{
	u64 args[4] = { gid, m, status };

	/* GoStatusStack, which names the goroutine, came with Go 1.23. */
	if (s->format < GOTRACE_FORMAT_1_23)
		return gotrace_emit2(r, ts, GO2_EV_GO_STATUS, 3, args);
	args[3] = gotrace_stack(s->stacks, prog, GOTRACE_R_THREAD);
	return gotrace_emit2(r, ts, GO2_EV_GO_STATUS_STACK, 4, args);
}

#endif /* _GOTRACE_EVENTS_H */
