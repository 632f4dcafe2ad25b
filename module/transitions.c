// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace transitions off the hot path: a P's start and close, and a
 * goroutine's creation, renaming, loss, and its state in the start snapshot.
 *
 * With transitions.h, this is the one place that writes Go events about a
 * goroutine or a P: the probes, the start snapshot, the generations and the
 * stop say what happened; these functions write it with events.h's writers
 * for the session's format and update the thread's entry and the P's state
 * only if all of a transition's events fit. Each returns false when the
 * buffer is full; its caller then cuts the recording.
 *
 * With generations (formats 1.22 and later), each generation must give the
 * status of every P and goroutine before their other events in it, as
 * Go's runtime does, so that a run of whole generations is a trace of its
 * own: a CPU gives its P's and its running goroutine's when it enters the
 * generation (gotrace_proc_gen()); any other goroutine's is written by the
 * first of its events in the generation (gotrace_g_status()) or by the
 * generation's walk over every thread (gotrace_g_walk()), whichever claims
 * the thread's @sgen first.
 */

#include <linux/bug.h>

#include "buffer.h"
#include "compat.h"
#include "cpu.h"
#include "encode_oldtrace.h"
#include "encode_tracev2.h"
#include "events.h"
#include "filter.h"
#include "programs.h"
#include "reasons.h"
#include "session.h"
#include "stacks.h"
#include "threads.h"
#include "transitions.h"

/*
 * With generations: the status of the goroutine the P runs, after the P's
 * own, at the start of the CPU's events in a generation.
 */
static bool gotrace2_proc_g_status(struct gotrace_session *s,
				   struct gotrace_cpu *c, u64 ts)
{
	struct gotrace_thread *t;

	if (!c->cur_g)
		return true;
	t = gotrace_thread_of_gid(s, c->cur_g);
	if (!t || !gotrace2_emit_status(s, &c->ring, ts, c->cur_g, c->cpu,
					GO2_G_RUNNING, READ_ONCE(t->prog)))
		return false;
	/* No one else writes a running thread's status (gotrace_g_walk()). */
	WRITE_ONCE(t->sgen, c->ring.gen);
	t->seq = 1;
	return !s->filter || gotrace_procs_set(s, c, ts);
}

/**
 * gotrace_word_slow - gotrace_word() at a reason's first use: the next
 * string id for its word
 * @s: session
 * @reason: enum gotrace_reason or a system call number
 *
 * A prober that loses the race for @reason leaves its id unused: no event
 * and no table names it.
 *
 * Return: the string id.
 */
u16 gotrace_word_slow(struct gotrace_session *s, u32 reason)
{
	u16 id = GOTRACE_STR_WORD(atomic_inc_return(&s->nr_words) - 1);
	u16 old = cmpxchg(&s->word_ids[reason], 0, id);

	return old ? old : id;
}

/**
 * gotrace_proc_start_slow - gotrace_proc_start() when the P has not started
 * @s: session
 * @c: the CPU's buffer
 * @ts: time stamp
 *
 * Return: false if the buffer is full.
 */
bool gotrace_proc_start_slow(struct gotrace_session *s, struct gotrace_cpu *c,
			     u64 ts)
{
	if (!gotrace_emit_proc_start(&c->ring, ts, c->cpu, gotrace_v2(c)))
		return false;
	c->proc_started = true;
	/* Generations (tracev2 only) give the P's goroutine's status too. */
	return !gotrace_v2(c) || gotrace2_proc_g_status(s, c, ts);
}

/**
 * gotrace_proc_gen - this CPU enters the session's current generation
 * @s: session
 * @c: this CPU's buffer, in an earlier generation
 * @ts: time stamp
 *
 * Its batch of the earlier generation ends; the next batch, of the current
 * one, starts with the P's status and that of the goroutine it runs.
 *
 * Return: false if the buffer is full.
 */
bool gotrace_proc_gen(struct gotrace_session *s, struct gotrace_cpu *c, u64 ts)
{
	if (!gotrace_buf_new_gen(&c->ring, READ_ONCE(s->gen.cur)) ||
	    !gotrace_emit_proc_start(&c->ring, ts, c->cpu, true))
		return false;
	c->proc_started = true;
	return gotrace2_proc_g_status(s, c, ts);
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
	/* With generations (tracev2), a trace may end with goroutines running. */
	if (!c->proc_started || gotrace_v2(c))
		return;
	WARN_ON_ONCE(!gotrace1_emit_close(&c->ring, ts, c->cur_g));
	c->cur_g = 0;
}

/**
 * gotrace_procs_set - Gomaxprocs: how many Ps the trace has
 * @s: session
 * @c: the CPU's buffer
 * @ts: time stamp
 *
 * Written twice, at the end of the start snapshot: modern Go takes the
 * first as the end of the snapshot and keeps only later ones, and its MMU
 * page needs one (golang/go#74146). With generations, a ProcsChange once
 * in each (@s->gen.procs), which Go takes only from a running goroutine
 * (its viewer's MMU page fails on a trace with none): with a filter, the
 * thread this CPU runs (the snapshot's stopper, the walk's worker) may be
 * untraced; then the generation's first traced goroutine to run writes it
 * (gotrace_proc_gen(), the switch probe).
 *
 * Return: false if the buffer is full.
 */
bool gotrace_procs_set(struct gotrace_session *s, struct gotrace_cpu *c, u64 ts)
{
	u32 gen = c->ring.gen, old = READ_ONCE(s->gen.procs);

	/* Generations (tracev2 only): once in each, by a running goroutine. */
	if (gotrace_v2(c) &&
	    (!c->cur_g || old == gen || cmpxchg(&s->gen.procs, old, gen) != old))
		return true;
	return gotrace_emit_procs(&c->ring, ts, num_possible_cpus(),
				  gotrace_v2(c));
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

	if (!gotrace_thread_next_gen(s, t, p->pid, &gen) ||
	    !gotrace_emit_create(&c->ring, ts, gotrace_goid(p->pid, gen),
				 gotrace_stack(s->stacks, prog, GOTRACE_R_THREAD),
				 creator, gotrace_v2(c)))
		return false;
	WRITE_ONCE(t->sgen, c->ring.gen);
	t->gen = gen;
	t->tag = gotrace_tag(p);
	t->prog = prog;
	t->seq = 1;
	t->state = GOTRACE_T_RUNNABLE;
	t->last_cpu = c->cpu;
	t->wake_stack = 0;
	t->ready = 0;
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
	return gotrace_g_end(s, c, t, GOTRACE_T_DEAD, ts) &&
	       gotrace_g_create(s, c, t, p, prog,
				gotrace_stack(s->stacks, prog, GOTRACE_R_RENAME), ts) &&
	       gotrace_g_run(c, t, p->pid, ts, gotrace_v2(c));
}

/**
 * gotrace_g_end - the goroutine this P runs ends, its thread going on
 * @s: session
 * @c: the CPU's buffer; its P runs @t's goroutine
 * @t: the entry of the thread this CPU runs
 * @state: what @t becomes: GOTRACE_T_DEAD before a new goroutine takes its
 *	place (a rename), or GOTRACE_T_UNTRACED (it leaves the filter)
 * @ts: time stamp
 *
 * GoDestroy with generations; else a GoSysCall with the stack [rename,
 * program], which names the goroutine (gotrace_put_stop()), and GoEnd.
 *
 * Return: false if the buffer is full.
 */
bool gotrace_g_end(struct gotrace_session *s, struct gotrace_cpu *c,
		   struct gotrace_thread *t, u8 state, u64 ts)
{
	u64 stack = gotrace_stack(s->stacks, t->prog, GOTRACE_R_RENAME);

	if (!gotrace_emit_end(&c->ring, ts, stack, gotrace_v2(c)))
		return false;
	c->cur_g = 0;
	t->state = state;
	WRITE_ONCE(t->renamed, 0);
	return true;
}

/**
 * gotrace_g_untrace - the filter leaves out a thread the trace sees first
 * @t: its entry, free (never used, dead) or a new alias
 * @p: the thread
 *
 * Its entry only says so (GOTRACE_T_UNTRACED) until it exits.
 */
void gotrace_g_untrace(struct gotrace_thread *t, struct task_struct *p)
{
	t->tag = gotrace_tag(p);
	t->renamed = 0;
	t->state = GOTRACE_T_UNTRACED;
}

/**
 * gotrace_g_untraced_exit - an untraced thread switches out for the last time
 * @s: session
 * @p: the thread
 *
 * Its entry is free again: dead, or its alias released.
 */
void gotrace_g_untraced_exit(struct gotrace_session *s, struct task_struct *p)
{
	struct gotrace_thread *t;

	if (!gotrace_thread_find(s, p, &t) || t->state != GOTRACE_T_UNTRACED)
		return;
	t->state = GOTRACE_T_DEAD;
	if (gotrace_is_alias(s, t))
		gotrace_thread_unalias(s, t);
}

/* An untraced thread enters the filter; false if the buffer is full. */
static bool gotrace_g_enter(struct gotrace_session *s, struct gotrace_cpu *c,
			    struct gotrace_thread *t, struct task_struct *p,
			    const char *comm, u64 ts)
{
	u32 prog;

	/*
	 * Another CPU's thread is created at its next switch-in, as a thread
	 * never seen (gotrace_g_start()): its entry is free from here on.
	 * That CPU may be reading the entry; only this write races with it.
	 */
	if (p != current) {
		cmpxchg(&t->state, GOTRACE_T_UNTRACED, GOTRACE_T_DEAD);
		return true;
	}
	/* It runs here, on a P that runs no goroutine meanwhile. */
	prog = gotrace_prog_id(s->progs, comm);
	t->state = GOTRACE_T_DEAD;
	return gotrace_g_create(s, c, t, p, prog,
				gotrace_stack(s->stacks, GOTRACE_PROG_UNTRACED,
					      GOTRACE_R_RENAME), ts) &&
	       gotrace_g_run(c, t, p->pid, ts, gotrace_v2(c));
}

/**
 * gotrace_g_refilter - @p's name or cgroup changed: it may enter or leave
 * the filter
 * @s: session, with a filter
 * @c: this CPU's buffer; its P started
 * @t: @p's entry, held (a live goroutine, or GOTRACE_T_UNTRACED)
 * @p: the thread: this CPU's, or one that is not running (a rename), or
 *	any (a cgroup move)
 * @comm: its new name at a rename; NULL at a cgroup move
 * @ts: time stamp
 *
 * A thread the filter now admits is created: at once if this CPU runs it,
 * else at its next switch-in. One it no longer admits ends (as at a rename,
 * gotrace_g_end()): at once if this CPU runs it, else once it has switched
 * in again (GOTRACE_LEAVES). With GOTRACE_START_DESCENDANTS a traced thread
 * stays traced. A traced thread that stays is renamed (gotrace_g_rename()).
 *
 * Return: false if the buffer is full.
 */
bool gotrace_g_refilter(struct gotrace_session *s, struct gotrace_cpu *c,
			struct gotrace_thread *t, struct task_struct *p,
			const char *comm, u64 ts)
{
	const char *name = comm ? comm : p->comm;
	bool in = gotrace_filter_admits(s->filter, p, name);

	if (t->state == GOTRACE_T_UNTRACED)
		return !in || gotrace_g_enter(s, c, t, p, name, ts);
	if (in || s->filter->descendants) {
		/*
		 * A move out and back in before it ran again: it stays. Its
		 * CPU may have read GOTRACE_LEAVES just now; then it leaves,
		 * as it would have had the move back come a moment later.
		 */
		cmpxchg(&t->renamed, GOTRACE_LEAVES, 0);
		return !comm || gotrace_g_rename(s, c, t, p, comm, ts);
	}
	if (p == current && t->state == GOTRACE_T_RUNNING)
		return gotrace_g_end(s, c, t, GOTRACE_T_UNTRACED, ts);
	WRITE_ONCE(t->renamed, GOTRACE_LEAVES);
	return true;
}

/**
 * gotrace_g_lost - end the run whose switch-out the trace missed
 * @s: session
 * @c: this CPU's buffer; its P still runs c->cur_g, though the CPU runs idle
 * @ts: time stamp
 *
 * Tracepoints do not fire on a CPU that is no longer online, so a CPU going
 * down switches its stopper out unseen. When the CPU is back, the goroutine
 * its P still runs gets a GoSleep (a kernel wait; GoBlock with
 * generations) before anything else.
 *
 * Return: false if the buffer is full, or if c->cur_g is not the goroutine
 * of a thread that runs in the trace (its identity is lost).
 */
bool gotrace_g_lost(struct gotrace_session *s, struct gotrace_cpu *c, u64 ts)
{
	struct gotrace_thread *t = gotrace_thread_of_gid(s, c->cur_g);

	if (!t || t->state != GOTRACE_T_RUNNING ||
	    !gotrace_emit_sleep(s, &c->ring, ts, GOTRACE_R_KERNEL,
				gotrace_stack(s->stacks, t->prog, GOTRACE_R_KERNEL),
				gotrace_v2(c)))
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
	WRITE_ONCE(t->renamed, GOTRACE_RENAMED);
	return true;
}

/*
 * The start snapshot: @p runs on its CPU. GoStart, with its sequence
 * number: the goroutine was created on the P that writes the snapshot,
 * mostly another one. The P starts first if it has not.
 */
static bool gotrace_g_snap_running(struct gotrace_session *s,
				   struct gotrace_cpu *c,
				   struct gotrace_thread *t, pid_t tid, u64 ts)
{
	u64 gid = gotrace_gid(t, tid);

	if (!gotrace_proc_start(s, c, ts) ||
	    !gotrace1_emit_start(&c->ring, ts, gid, t->seq))
		return false;
	gotrace_g_running(c, t, gid);
	return true;
}

/* The start snapshot: a thread sleeps (not gotrace_task_runnable()). */
static bool gotrace_g_snap_waiting(struct gotrace_cpu *c,
				   struct gotrace_thread *t, pid_t tid, u64 ts)
{
	u64 gid = gotrace_gid(t, tid);

	if (!gotrace1_emit_waiting(&c->ring, ts, gid))
		return false;
	t->seq++;
	t->state = GOTRACE_T_WAITING;
	t->last_cpu = c->cpu;
	return true;
}

/*
 * With generations, the start snapshot gives each thread's status in the
 * first generation (Go refuses a status for a goroutine it has not seen
 * after the first): a running one on its CPU's M, after the P's status.
 */
static bool gotrace2_g_snap(struct gotrace_session *s, struct gotrace_cpu *c,
			    struct gotrace_thread *t, struct task_struct *p,
			    u32 prog, u64 ts)
{
	u64 gid = gotrace_goid(p->pid, 0);

	t->gen = 0;
	t->tag = gotrace_tag(p);
	t->prog = prog;
	t->seq = 1;
	t->last_cpu = c->cpu;
	t->wake_stack = 0;
	t->sgen = c->ring.gen;
	if (READ_ONCE(p->on_cpu)) {
		c = per_cpu_ptr(s->cpus, task_cpu(p));
		if (!gotrace_proc_start(s, c, ts) ||
		    !gotrace2_emit_status(s, &c->ring, ts, gid, c->cpu,
					  GO2_G_RUNNING, prog))
			return false;
		gotrace_g_running(c, t, gid);
		t->seq = 1;
		return true;
	}
	if (gotrace_task_runnable(p)) {
		t->state = GOTRACE_T_RUNNABLE;
		return gotrace2_emit_status(s, &c->ring, ts, gid, GO2_NO_THREAD,
					    GO2_G_RUNNABLE, prog);
	}
	t->state = GOTRACE_T_WAITING;
	return gotrace2_emit_status(s, &c->ring, ts, gid, GO2_NO_THREAD,
				    GO2_G_WAITING, prog);
}

/**
 * gotrace_g_snap - the start snapshot: a thread as it is
 * @s: session
 * @c: the buffer of the CPU writing the snapshot
 * @t: the thread's entry, empty
 * @p: the thread, not running its last switch and not new
 * @prog: its program id
 * @ts: the snapshot's time stamp: GoCreate is stamped 2 ticks before it,
 *	the goroutine's state 1 tick before (start_snapshot.c)
 *
 * GoCreate, then GoStart on its CPU if it runs there, or GoWaiting if it
 * is not runnable; with generations, its status (gotrace2_g_snap()).
 *
 * Return: false if a buffer is full.
 */
bool gotrace_g_snap(struct gotrace_session *s, struct gotrace_cpu *c,
		    struct gotrace_thread *t, struct task_struct *p, u32 prog,
		    u64 ts)
{
	/* Since 1.22 a status says it all; GoCreate and more before. */
	if (gotrace_v2(c))
		return gotrace2_g_snap(s, c, t, p, prog, ts - 1);
	if (!gotrace_g_create(s, c, t, p, prog, 0, ts - 2))
		return false;
	if (READ_ONCE(p->on_cpu))
		return gotrace_g_snap_running(s, per_cpu_ptr(s->cpus, task_cpu(p)),
					      t, p->pid, ts - 1);
	if (!gotrace_task_runnable(p))
		return gotrace_g_snap_waiting(c, t, p->pid, ts - 1);
	return true;
}

/**
 * gotrace_g_status - with generations, the status of @t's goroutine in
 * this CPU's generation, before its first other event there
 * @s: session
 * @c: this CPU's buffer
 * @t: the thread's entry, a live goroutine not running; its @sgen is not
 *	the CPU's generation
 * @tid: its id
 * @ts: time stamp
 *
 * Claims @t->sgen with cmpxchg. If the generation's walk claimed it first
 * (GOTRACE_SGEN_WALKED), the walk writes the status; either way the
 * goroutine's sequence numbers start again at 1.
 *
 * Return: false if the buffer is full.
 */
bool gotrace_g_status(struct gotrace_session *s, struct gotrace_cpu *c,
		      struct gotrace_thread *t, pid_t tid, u64 ts)
{
	u32 gen = c->ring.gen, old = READ_ONCE(t->sgen);
	u64 status = t->state == GOTRACE_T_RUNNABLE ? GO2_G_RUNNABLE : GO2_G_WAITING;

	if (old != (gen | GOTRACE_SGEN_WALKED) &&
	    cmpxchg(&t->sgen, old, gen) == old) {
		if (!gotrace2_emit_status(s, &c->ring, ts, gotrace_gid(t, tid),
					  GO2_NO_THREAD, status, READ_ONCE(t->prog)))
			return false;
	}
	WRITE_ONCE(t->sgen, gen);
	t->seq = 1;
	return true;
}

/**
 * gotrace_g_walk - the generation's walk: the status of a goroutine that
 * no event has given in this CPU's generation yet
 * @s: session
 * @c: this CPU's buffer, in the session's current generation
 * @t: a thread's entry
 * @tid: its id
 * @ts: time stamp
 *
 * Every CPU is in the generation already (generations.c), so any event of
 * @t claims its @sgen first. The state is read before the claim: once
 * claimed, only its own events change it, after its status.
 *
 * Return: false if the buffer is full.
 */
bool gotrace_g_walk(struct gotrace_session *s, struct gotrace_cpu *c,
		    struct gotrace_thread *t, pid_t tid, u64 ts)
{
	u8 state = READ_ONCE(t->state);
	u32 gen = c->ring.gen, old;

	if (state == GOTRACE_T_NONE || state == GOTRACE_T_DEAD ||
	    state == GOTRACE_T_RUNNING || state == GOTRACE_T_UNTRACED)
		return true;
	old = READ_ONCE(t->sgen);
	if ((old & ~GOTRACE_SGEN_WALKED) == gen ||
	    cmpxchg(&t->sgen, old, gen | GOTRACE_SGEN_WALKED) != old)
		return true;
	return gotrace2_emit_status(s, &c->ring, ts, gotrace_gid(t, tid),
				    GO2_NO_THREAD, state == GOTRACE_T_RUNNABLE ?
				    GO2_G_RUNNABLE : GO2_G_WAITING,
				    READ_ONCE(t->prog));
}
