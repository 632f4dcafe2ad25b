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
 * They take values (ids, sequence numbers, stack ids) and the session's
 * tables, never a thread's entry or a P's state: those are the
 * transitions'. Each returns false when the ring is full and nothing was
 * written, or writes at room its caller reserved.
 */
#ifndef _GOTRACE_EVENTS_H
#define _GOTRACE_EVENTS_H

#include "buffer.h"
#include "cpu.h"
#include "encode_oldtrace.h"
#include "encode_tracev2.h"
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
