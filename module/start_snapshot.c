// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace start snapshot: every thread's state at one instant, as StartTrace.
 *
 * Under stop_machine() every online CPU runs its stopper thread with
 * interrupts off, so no thread changes state and no probe runs while one CPU
 * writes: a GoCreate for each thread, GoWaiting for those that sleep,
 * ProcStart and GoStart for what each CPU runs (its stopper), then
 * Gomaxprocs, which tells modern Go readers that the snapshot is over. With
 * generations (formats 1.22 and later), the first generation's statuses
 * instead: each thread's GoStatus, each P's ProcStatus, and ProcsChange.
 *
 * One pass over the threads. GoCreates are stamped two ticks before the
 * clock read here, the rest one tick before (later GoCreates are raised to
 * that too: a batch never goes back in time): every live event, read after
 * the world restarts, is strictly later, and the trace's first event is a
 * GoCreate. Modern Go drops the snapshot's GoCreates and starts the trace at
 * its first status event; a goroutine running at that very instant would be
 * taken for "never started" by Go 1.23's viewer.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/stop_machine.h>
#include <linux/string.h>

#include "buffer.h"
#include "clock.h"
#include "compat.h"
#include "cpu.h"
#include "filter.h"
#include "programs.h"
#include "record.h"
#include "session.h"
#include "start_snapshot.h"
#include "threads.h"
#include "transitions.h"

/* What the snapshot carries from one thread to the next. */
struct gotrace_snap {
	struct gotrace_session *s;
	struct gotrace_cpu *c;		/* the CPU writing the snapshot */
	u64 ts;				/* the clock, in ticks */
	const char *comm;		/* the previous thread's name... */
	u32 prog;			/* ...and its program id */
};

/*
 * A process's threads come one after the other and mostly share its name:
 * look a name up only when it differs from the previous thread's.
 */
static u32 gotrace_snapshot_prog(struct gotrace_snap *sn, struct task_struct *p)
{
	if (!sn->comm || strncmp(sn->comm, p->comm, TASK_COMM_LEN)) {
		sn->prog = gotrace_prog_id(sn->s->progs, p->comm);
		sn->comm = p->comm;
	}
	return sn->prog;
}

static int gotrace_snapshot_thread(struct gotrace_snap *sn,
				   struct task_struct *p)
{
	unsigned int state = gotrace_task_state(p);
	struct gotrace_session *s = sn->s;
	struct gotrace_thread *t;

	/*
	 * Skip idle tasks, threads past their last switch (zombies), and
	 * children not yet woken for the first time: sched_process_fork or
	 * their first switch-in creates those.
	 */
	if (!p->pid || state & (TASK_DEAD | TASK_NEW))
		return 0;
	t = gotrace_thread_of(s, p);
	if (!t)	/* out of the table, or no leaf ready for it */
		return (u32)p->pid < s->max_tid ? -ENOMEM : -ERANGE;
	if (s->filter && !gotrace_filter_admits(s->filter, p, p->comm)) {
		gotrace_g_untrace(t, p);
		return 0;
	}
	if (!gotrace_g_snap(s, sn->c, t, p, gotrace_snapshot_prog(sn, p), sn->ts))
		return -ENOSPC;
	s->snapshot_threads++;
	return 0;
}

static int gotrace_snapshot_stopped(void *data)
{
	struct gotrace_session *s = data;
	u64 begin = ktime_get_mono_fast_ns();
	struct gotrace_snap sn = {
		.s = s,
		.c = this_cpu_ptr(s->cpus),
		.ts = gotrace_clock(s),
	};
	struct task_struct *g, *p;
	int cpu, ret = 0;

	rcu_read_lock();
	for_each_process_thread(g, p) {
		ret = gotrace_snapshot_thread(&sn, p);
		if (ret)
			break;
	}
	rcu_read_unlock();
	if (ret)
		return ret;

	for_each_online_cpu(cpu)
		if (!gotrace_proc_start(s, per_cpu_ptr(s->cpus, cpu), sn.ts - 1))
			return -ENOSPC;
	if (!gotrace_procs_set(s, sn.c, sn.ts - 1))
		return -ENOSPC;

	WRITE_ONCE(s->mode, GOTRACE_MODE_ON);
	gotrace_record_publish(s);
	s->start_ns = begin;
	s->snapshot_ns = ktime_get_mono_fast_ns() - begin;
	return 0;
}

/**
 * gotrace_snapshot - write the start snapshot and start recording
 * @s: the session; the probes are attached
 *
 * Return: 0; -ENOSPC if the snapshot does not fit in the buffer of the CPU
 * that writes it; -ERANGE if a thread id is not below max_tid; -ENOMEM if
 * more threads were created since gotrace_table_prepare() than the thread
 * table's pool has leaves for.
 */
int gotrace_snapshot(struct gotrace_session *s)
{
	return stop_machine(gotrace_snapshot_stopped, s, NULL);
}
