// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace transitions off the hot path: a P's start and close, and a
 * goroutine's creation, renaming, loss, and its state in the start snapshot.
 *
 * With transitions.h, this is the one place that writes Go events about a
 * goroutine or a P: the probes, the start snapshot and the stop say what
 * happened; these functions choose the events and update the thread's entry
 * and the P's state only if all of a transition's events fit. Each returns
 * false when the buffer is full; its caller then cuts the recording.
 */

#include <linux/bug.h>

#include "buffer.h"
#include "cpu.h"
#include "encode.h"
#include "programs.h"
#include "reasons.h"
#include "session.h"
#include "stacks.h"
#include "threads.h"
#include "transitions.h"

/**
 * gotrace_proc_start_slow - gotrace_proc_start() when the P has not started
 * @c: the CPU's buffer
 * @ts: time stamp
 *
 * Return: false if the buffer is full.
 */
bool gotrace_proc_start_slow(struct gotrace_cpu *c, u64 ts)
{
	u64 thread = c->cpu;

	if (!gotrace_emit(&c->ring, ts, GO_EV_PROC_START, 1, &thread, false))
		return false;
	c->proc_started = true;
	return true;
}

/**
 * gotrace_proc_close - the stop: what a started P runs gets a GoSched, and
 * the P a ProcStop
 * @c: the CPU's buffer; no probe writes it any more
 * @ts: time stamp of the stop
 *
 * The closing events always fit: they use the chunk's reserve.
 */
void gotrace_proc_close(struct gotrace_cpu *c, u64 ts)
{
	u64 stack = 0;

	if (!c->proc_started)
		return;
	if (c->cur_g)
		WARN_ON_ONCE(!gotrace_emit(&c->ring, ts, GO_EV_GO_SCHED, 1, &stack, true));
	WARN_ON_ONCE(!gotrace_emit(&c->ring, ts, GO_EV_PROC_STOP, 0, NULL, true));
	c->cur_g = 0;
}

/**
 * gotrace_procs_set - Gomaxprocs: how many Ps the trace has
 * @c: the CPU's buffer
 * @ts: time stamp
 *
 * Written twice, at the end of the start snapshot: modern Go takes the
 * first as the end of the snapshot and keeps only later ones, and its MMU
 * page needs one (golang/go#74146).
 *
 * Return: false if the buffer is full.
 */
bool gotrace_procs_set(struct gotrace_cpu *c, u64 ts)
{
	u64 args[2] = { num_possible_cpus() };

	return gotrace_emit(&c->ring, ts, GO_EV_GOMAXPROCS, 2, args, false) &&
	       gotrace_emit(&c->ring, ts, GO_EV_GOMAXPROCS, 2, args, false);
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

	if (!gotrace_thread_next_gen(s, t, p->pid, &gen))
		return false;
	args[0] = gotrace_goid(p->pid, gen);
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
 * its P still runs gets a GoSleep (a kernel wait) before anything else.
 *
 * Return: false if the buffer is full, or if c->cur_g is not the goroutine
 * of a thread that runs in the trace (its identity is lost).
 */
bool gotrace_g_lost(struct gotrace_session *s, struct gotrace_cpu *c, u64 ts)
{
	struct gotrace_thread *t = gotrace_thread_of_gid(s, c->cur_g);
	u64 stack;

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

/**
 * gotrace_g_snap_running - the start snapshot: @p runs on its CPU
 * @c: the buffer of @p's CPU
 * @t: @p's entry, just created
 * @tid: its id
 * @ts: time stamp
 *
 * GoStart, with its sequence number: the goroutine was created on the P
 * that writes the snapshot, mostly another one. The P starts first if it
 * has not.
 *
 * Return: false if the buffer is full.
 */
bool gotrace_g_snap_running(struct gotrace_cpu *c, struct gotrace_thread *t,
			    pid_t tid, u64 ts)
{
	u64 args[2] = { gotrace_gid(t, tid), t->seq };

	if (!gotrace_proc_start(c, ts) ||
	    !gotrace_emit(&c->ring, ts, GO_EV_GO_START, 2, args, false))
		return false;
	gotrace_g_running(c, t, args[0]);
	return true;
}

/**
 * gotrace_g_snap_waiting - the start snapshot: a thread sleeps, off its runqueue
 * @c: the buffer of the CPU writing the snapshot
 * @t: the thread's entry, just created
 * @tid: its id
 * @ts: time stamp
 *
 * Return: false if the buffer is full.
 */
bool gotrace_g_snap_waiting(struct gotrace_cpu *c, struct gotrace_thread *t,
			    pid_t tid, u64 ts)
{
	u64 gid = gotrace_gid(t, tid);

	if (!gotrace_emit(&c->ring, ts, GO_EV_GO_WAITING, 1, &gid, false))
		return false;
	t->seq++;
	t->state = GOTRACE_T_WAITING;
	t->last_cpu = c->cpu;
	return true;
}
