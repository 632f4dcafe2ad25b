// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace probes: scheduler tracepoints turned into goroutine events.
 *
 * sched_switch out:   GoEnd (TASK_DEAD), GoPreempt / GoSched (still runnable),
 *                     or a block event chosen by reasons.c
 * sched_switch in:    GoStart
 * sched_waking:       remembers the waker, for the wakeup's stack
 * sched_wakeup(_new): GoUnblock or GoSysExit, only for a waiting thread
 * sched_process_fork: GoCreate
 * task_rename:        the thread's goroutine ends; one with the new name
 *                     takes its place (transitions.c)
 * cgroup_attach_task: with a cgroup filter, the moved threads may enter or
 *                     leave the trace (filter.c)
 *
 * With a filter, a thread's entry says whether it is traced: one that is not
 * (GOTRACE_T_UNTRACED) costs a probe the lookup of its entry and one test.
 *
 * The probes are attached at the first start and stay attached until the
 * module is unloaded: attaching patches the kernel's text (static keys), which
 * a start and stop per session would do needlessly often. Between sessions a
 * probe costs a call and a NULL pointer test.
 *
 * A probe records into the session published in gotrace_live (record.c),
 * and only while its mode is GOTRACE_MODE_ON. Probes run with preemption
 * disabled and do their reads and writes with interrupts off, so
 * unpublishing the session (or switching its mode off) and waiting for an
 * RCU grace period leaves no event half written.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cgroup.h>
#include <linux/irqflags.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#ifdef CONFIG_CGROUPS
#include <trace/events/cgroup.h>
#endif
#include <trace/events/sched.h>
#include <trace/events/task.h>

#include "buffer.h"
#include "clock.h"
#include "compat.h"
#include "cpu.h"
#include "filter.h"
#include "probes.h"
#include "programs.h"
#include "reasons.h"
#include "record.h"
#include "session.h"
#include "stacks.h"
#include "threads.h"
#include "transitions.h"
#include "trigger.h"

static __always_inline void gotrace_switch_probe(void *data, bool preempt,
						 struct task_struct *prev,
						 struct task_struct *next,
						 unsigned int prev_state);
static void gotrace_probe_waking(void *data, struct task_struct *p);
static void gotrace_probe_wakeup(void *data, struct task_struct *p);
static void gotrace_probe_fork(void *data, struct task_struct *parent,
			       struct task_struct *child);
static void gotrace_probe_rename(void *data, struct task_struct *p,
				 const char *comm);
#ifdef CONFIG_CGROUPS
static void gotrace_probe_cgroup(void *data, struct cgroup *dst,
				 const char *path, struct task_struct *task,
				 bool threadgroup);
#endif

/* sched_switch's probe, with this kernel's prototype (compat.h). */
GOTRACE_SWITCH_PROBE(gotrace_probe_switch, gotrace_switch_probe)

GOTRACE_PROBE_TYPE_CHECK(sched_switch, gotrace_probe_switch);
GOTRACE_PROBE_TYPE_CHECK(sched_waking, gotrace_probe_waking);
GOTRACE_PROBE_TYPE_CHECK(sched_wakeup, gotrace_probe_wakeup);
GOTRACE_PROBE_TYPE_CHECK(sched_wakeup_new, gotrace_probe_wakeup);
GOTRACE_PROBE_TYPE_CHECK(sched_process_fork, gotrace_probe_fork);
GOTRACE_PROBE_TYPE_CHECK(task_rename, gotrace_probe_rename);
#ifdef CONFIG_CGROUPS
GOTRACE_PROBE_TYPE_CHECK(cgroup_attach_task, gotrace_probe_cgroup);
#endif

/* The tracepoints we attach to; found by name when the module loads. */
static struct gotrace_tp {
	const char *name;
	void *probe;
	struct tracepoint *tp;
} gotrace_tps[] = {
	{ "sched_switch",	gotrace_probe_switch },
	{ "sched_waking",	gotrace_probe_waking },
	{ "sched_wakeup",	gotrace_probe_wakeup },
	{ "sched_wakeup_new",	gotrace_probe_wakeup },
	{ "sched_process_fork",	gotrace_probe_fork },
	{ "task_rename",	gotrace_probe_rename },
#ifdef CONFIG_CGROUPS	/* without cgroups, no cgroup filter (filter.c) */
	{ "cgroup_attach_task",	gotrace_probe_cgroup },
#endif
};

/* The probes are attached. Written under gotrace_dev.lock. */
static bool gotrace_attached;

static void gotrace_tp_match(struct tracepoint *tp, void *priv)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(gotrace_tps); i++)
		if (!strcmp(tp->name, gotrace_tps[i].name))
			gotrace_tps[i].tp = tp;
}

/**
 * gotrace_probes_init - find the scheduler tracepoints
 *
 * Return: 0, or -ENOENT if the kernel lacks one.
 */
int gotrace_probes_init(void)
{
	int i;

	for_each_kernel_tracepoint(gotrace_tp_match, NULL);
	for (i = 0; i < ARRAY_SIZE(gotrace_tps); i++) {
		if (!gotrace_tps[i].tp) {
			pr_err("kernel has no %s tracepoint\n", gotrace_tps[i].name);
			return -ENOENT;
		}
	}
	return 0;
}

static void gotrace_probes_detach_first(int n)
{
	while (n--)
		tracepoint_probe_unregister(gotrace_tps[n].tp,
					    gotrace_tps[n].probe, NULL);
	tracepoint_synchronize_unregister();
}

/**
 * gotrace_probes_attach - attach every probe, once
 *
 * Context: Called with gotrace_dev.lock held.
 *
 * Return: 0 or the error of tracepoint_probe_register().
 */
int gotrace_probes_attach(void)
{
	int i, ret;

	if (gotrace_attached)
		return 0;
	for (i = 0; i < ARRAY_SIZE(gotrace_tps); i++) {
		ret = tracepoint_probe_register(gotrace_tps[i].tp,
						gotrace_tps[i].probe, NULL);
		if (ret) {
			gotrace_probes_detach_first(i);
			return ret;
		}
	}
	gotrace_attached = true;
	return 0;
}

/**
 * gotrace_probes_detach - detach every probe and wait until none runs
 *
 * Called when the module is unloaded, with no session published.
 */
void gotrace_probes_detach(void)
{
	if (gotrace_attached)
		gotrace_probes_detach_first(ARRAY_SIZE(gotrace_tps));
	gotrace_attached = false;
}

/*
 * This CPU's buffer in @s, or NULL (counting the event as lost after a
 * cut). Called with preemption disabled, after the probe found a session:
 * between sessions a probe returns after one load, before it disables
 * interrupts or touches anything else. @v2: @s writes generations; a
 * constant in the hot probes, which have one copy per format.
 */
static __always_inline struct gotrace_cpu *gotrace_begin(struct gotrace_session *s,
							 const bool v2)
{
	int mode = READ_ONCE(s->mode);
	struct gotrace_cpu *c;
	u64 ts;

	if (likely(mode == GOTRACE_MODE_ON)) {
		c = this_cpu_ptr(s->cpus);
		/*
		 * With generations, a CPU enters a new one at its first event
		 * after the generation work started it: an event that depends
		 * on one of the new generation (through the scheduler's locks,
		 * which order this load after that event's) is in it too.
		 */
		if (!v2 || likely(c->ring.gen == READ_ONCE(s->gen.cur)))
			return c;
		ts = gotrace_clock(s);
		if (gotrace_proc_gen(s, c, ts))
			return c;
		gotrace_cut(s, c, ts);
		return NULL;
	}
	if (mode == GOTRACE_MODE_CUT)
		this_cpu_ptr(s->cpus)->lost++;
	return NULL;
}

/*
 * Whether @p, switching in, is traced: its entry @t is untraced, or free
 * (a thread the trace has not seen: gotrace_g_start() creates it, if the
 * filter admits it).
 */
static bool gotrace_admit_first(struct gotrace_session *s,
				struct gotrace_thread *t, struct task_struct *p)
{
	if (t->state == GOTRACE_T_UNTRACED)
		return false;
	if (!s->filter || gotrace_filter_admits(s->filter, p, p->comm))
		return true;
	gotrace_g_untrace(t, p);
	return false;
}

/*
 * The run of @prev ends and that of @next begins, written with one
 * reservation when @next needs nothing but its GoStart.
 */
static __always_inline void gotrace_switch(struct gotrace_session *s,
					   bool preempt,
					   struct task_struct *prev,
					   struct task_struct *next,
					   unsigned int prev_state, const bool v2)
{
	struct gotrace_thread *stop = NULL, *run = NULL;
	struct gotrace_cpu *c;
	unsigned int n = 0;
	bool fast = false;
	u64 ts, dt;
	u8 *buf;

	c = gotrace_begin(s, v2);
	if (!c)
		return;
	ts = gotrace_clock(s);
	if (!gotrace_proc_start(s, c, ts))
		goto cut;
	if (!prev->pid) {		/* the idle task is G 0 */
		if (unlikely(c->cur_g) && !gotrace_g_lost(s, c, ts))
			goto cut;
	} else if (!c->cur_g) {
		/* An untraced thread (or none: the P lost it) ran. */
		if (unlikely(prev_state & TASK_DEAD) && s->filter)
			gotrace_g_untraced_exit(s, prev);
	} else {
		/* What the P runs must be @prev: else its identity is lost. */
		if (!gotrace_thread_find(s, prev, &stop) ||
		    stop->state != GOTRACE_T_RUNNING ||
		    gotrace_gid(stop, prev->pid) != c->cur_g)
			goto cut;
	}
	if (next->pid) {
		if (!gotrace_thread_find(s, next, &run)) {
			run = gotrace_thread_alias(s, next);
			if (!run)
				goto cut;
		}
		fast = gotrace_run_fast(c, run, v2);
		if (!fast && unlikely(!gotrace_traced(run)) &&
		    !gotrace_admit_first(s, run, next))
			run = NULL;
	}
	if (stop || fast) {
		if (!gotrace_buf_reserve(&c->ring, &ts, GOTRACE_SWITCH_EVENTS, false,
					 &buf))
			goto cut;
		dt = ts - c->ring.last_ts;
		if (stop)
			buf = gotrace_put_stop(s, c, stop, prev, preempt,
					       prev_state, buf, &dt, &n, v2);
		if (fast)
			buf = gotrace_put_run(c, run, next->pid, buf, &dt, &n, v2);
		gotrace_buf_advance(&c->ring, buf, ts, n);
	}
	if (run && !fast && !gotrace_g_start(s, c, run, next, ts, v2))
		goto cut;
	/* With a filter, maybe the generation's first traced goroutine to run. */
	if (v2 && unlikely(s->filter) && run &&
	    READ_ONCE(s->gen.procs) != c->ring.gen && !gotrace_procs_set(s, c, ts))
		goto cut;
	/* Only flight recorders, which need generations, have a trigger. */
	if (v2 && unlikely(s->trig))
		gotrace_trig_switch(s->trig, stop, run, next, ts);
	return;
cut:
	gotrace_cut(s, c, ts);
}

static __always_inline void gotrace_switch_probe(void *data, bool preempt,
						 struct task_struct *prev,
						 struct task_struct *next,
						 unsigned int prev_state)
{
	struct gotrace_session *s;

	lockdep_assert_irqs_disabled();
	s = rcu_dereference_sched(gotrace_live);
	if (!s)
		return;
	/* One copy per format: v2 is a constant in each (gotrace_switch()). */
	if (s->v2)
		gotrace_switch(s, preempt, prev, next, prev_state, true);
	else
		gotrace_switch(s, preempt, prev, next, prev_state, false);
}

/* The id of the waker's stack @key; may insert it, with interrupts off. */
static __always_inline u32 gotrace_waker_stack(struct gotrace_session *s,
					       u32 key)
{
	unsigned long flags;
	u32 id;

	id = gotrace_stack_find(s->stacks, key);
	if (unlikely(!id)) {
		local_irq_save(flags);
		id = gotrace_stack_slow(s->stacks, key);
		local_irq_restore(flags);
	}
	return id;
}

/*
 * sched_waking runs in the waker's context: remember who wakes, for the
 * scheduler latency profile, which charges a wakeup to its GoUnblock's stack.
 * A thread blocked in a system call gets a GoSysExit, which has no stack:
 * nothing to remember. Its state cannot leave GOTRACE_T_SYSCALL before this
 * wakeup does; one still running may block in a call after the test, and
 * then the stack written here goes unused.
 *
 * Nothing is written to a buffer, so interrupts stay on (every wakeup of a
 * blocked thread in the 1.22+ formats comes here: their cost is this
 * probe's): an interrupt that wakes @p meanwhile leaves at worst a stack
 * that goes unused, as above, and none changes this CPU's running thread,
 * which only its switches do. Only inserting a new stack turns them off.
 */
static void gotrace_probe_waking(void *data, struct task_struct *p)
{
	struct gotrace_session *s;
	struct gotrace_thread *t;
	struct gotrace_cpu *c;
	u32 reason, key, id;
	int mode;

	s = rcu_dereference_sched(gotrace_live);
	if (!s)
		return;
	if (!gotrace_thread_find(s, p, &t) || t->state == GOTRACE_T_NONE ||
	    t->state == GOTRACE_T_SYSCALL || t->state == GOTRACE_T_UNTRACED)
		return;
	mode = READ_ONCE(s->mode);
	if (unlikely(mode != GOTRACE_MODE_ON)) {
		/* As gotrace_begin(), but an interrupt may count too. */
		if (mode == GOTRACE_MODE_CUT)
			this_cpu_inc(s->cpus->lost);
		return;
	}
	reason = gotrace_waker_reason();
	if (reason == GOTRACE_R_IRQ || reason == GOTRACE_R_SOFTIRQ) {
		key = gotrace_stack_key(GOTRACE_PROG_IRQ, reason);
		WRITE_ONCE(t->wake_stack, gotrace_waker_stack(s, key));
		return;
	}
	/* The waker is current, which is what this CPU's P runs... */
	c = this_cpu_ptr(s->cpus);
	if (!c->cur_g) {
		/* ...or a thread the filter leaves out, when it runs none. */
		if (!s->filter || !current->pid)
			return;
		key = gotrace_stack_key(GOTRACE_PROG_UNTRACED, reason);
		WRITE_ONCE(t->wake_stack, gotrace_waker_stack(s, key));
		return;
	}
	key = gotrace_stack_key(READ_ONCE(c->cur_t->prog), reason);
	/* A thread that wakes others often wakes them with one call. */
	if (key == c->wake_key) {
		id = c->wake_id;
	} else {
		id = gotrace_waker_stack(s, key);
		c->wake_key = key;
		c->wake_id = id;
	}
	WRITE_ONCE(t->wake_stack, id);
}

/*
 * Linux also wakes threads that are running or already runnable in the
 * trace (woken before they finished blocking, or twice): only a waiting one
 * gets a GoUnblock.
 */
static __always_inline void gotrace_wakeup(struct gotrace_session *s,
					   struct task_struct *p, const bool v2)
{
	struct gotrace_thread *t;
	struct gotrace_cpu *c;
	unsigned long flags;
	bool found;
	u64 ts;

	/* A peek: this CPU's interrupts cannot change what it decides. */
	found = gotrace_thread_find(s, p, &t);
	if (found && !gotrace_waiting(t))
		return;
	/* try_to_wake_up() of current runs with interrupts on. */
	local_irq_save(flags);
	c = gotrace_begin(s, v2);
	if (!c)
		goto out;
	ts = gotrace_clock(s);
	if (!found || !gotrace_proc_start(s, c, ts) ||
	    !gotrace_g_unblock(s, c, t, p->pid, ts, v2))
		gotrace_cut(s, c, ts);
	else if (v2 && unlikely(s->trig))	/* flight recorders: generations only */
		gotrace_trig_ready(t, ts);
out:
	local_irq_restore(flags);
}

static void gotrace_probe_wakeup(void *data, struct task_struct *p)
{
	struct gotrace_session *s = rcu_dereference_sched(gotrace_live);

	if (!s)
		return;
	/* One copy per format, as for sched_switch. */
	if (s->v2)
		gotrace_wakeup(s, p, true);
	else
		gotrace_wakeup(s, p, false);
}

/*
 * gotrace_begin() for the probes that run with interrupts on, where a
 * wakeup could nest: this CPU's buffer with interrupts off, saved in
 * @flags; or NULL, with interrupts as they were.
 */
static struct gotrace_cpu *gotrace_begin_irqsave(struct gotrace_session **sp,
						 unsigned long *flags)
{
	struct gotrace_session *s = rcu_dereference_sched(gotrace_live);
	struct gotrace_cpu *c;

	if (!s)
		return NULL;
	local_irq_save(*flags);
	c = gotrace_begin(s, s->v2);
	if (!c)
		local_irq_restore(*flags);
	*sp = s;
	return c;
}

/*
 * A child of an untraced thread @t: created if the filter admits it, by the
 * stand-in creator [fork, (untraced thread)]; else untraced.
 */
static void gotrace_fork_untraced(struct gotrace_session *s,
				  struct gotrace_cpu *c,
				  struct gotrace_thread *t,
				  struct task_struct *child, u64 ts)
{
	u32 prog;

	if (!gotrace_filter_admits(s->filter, child, child->comm)) {
		gotrace_g_untrace(t, child);
		return;
	}
	prog = gotrace_prog_id(s->progs, child->comm);
	if (!gotrace_g_create(s, c, t, child, prog,
			      gotrace_stack(s->stacks, GOTRACE_PROG_UNTRACED,
					    GOTRACE_R_FORK), ts))
		gotrace_cut(s, c, ts);
	else if (unlikely(s->trig))
		gotrace_trig_ready(t, ts);
}

static void gotrace_probe_fork(void *data, struct task_struct *parent,
			       struct task_struct *child)
{
	struct gotrace_thread *t, *pt;
	struct gotrace_session *s;
	struct gotrace_cpu *c;
	unsigned long flags;
	u64 ts;

	c = gotrace_begin_irqsave(&s, &flags);
	if (!c)
		return;
	t = gotrace_thread_of(s, child);
	/* Created in the start snapshot already? */
	if (t && gotrace_alive(t))
		goto out;
	ts = gotrace_clock(s);
	/*
	 * No entry: the id's previous thread released it but has not switched
	 * out for the last time yet; the child takes an alias.
	 */
	if (!t)
		t = gotrace_thread_alias(s, child);
	pt = gotrace_thread_of(s, parent);
	if (!t || !pt || !gotrace_proc_start(s, c, ts))
		goto cut;
	if (unlikely(s->filter) && !gotrace_traced(pt)) {
		gotrace_fork_untraced(s, c, t, child, ts);
		goto out;
	}
	if (unlikely(s->filter) && !s->filter->descendants &&
	    !gotrace_filter_admits(s->filter, child, child->comm)) {
		gotrace_g_untrace(t, child);
		goto out;
	}
	if (!gotrace_g_create(s, c, t, child, pt->prog,
			      gotrace_stack(s->stacks, pt->prog, GOTRACE_R_FORK), ts))
		goto cut;
	if (unlikely(s->trig))
		gotrace_trig_ready(t, ts);
	goto out;
cut:
	gotrace_cut(s, c, ts);
out:
	local_irq_restore(flags);
}

/* exec, prctl(PR_SET_NAME), a kernel thread named by its creator. */
static void gotrace_probe_rename(void *data, struct task_struct *p,
				 const char *comm)
{
	struct gotrace_session *s;
	struct gotrace_thread *t;
	struct gotrace_cpu *c;
	unsigned long flags;
	u64 ts;

	if (!p->pid)
		return;		/* the idle task, G 0 */
	c = gotrace_begin_irqsave(&s, &flags);
	if (!c)
		return;
	t = gotrace_thread_of(s, p);
	if (t && !gotrace_alive(t))
		goto out;	/* it will be created under its new name */
	/* Without a name filter, a rename leaves an untraced thread so. */
	if (t && t->state == GOTRACE_T_UNTRACED && !s->filter->nr_comms)
		goto out;
	ts = gotrace_clock(s);
	if (!t || !gotrace_proc_start(s, c, ts))
		gotrace_cut(s, c, ts);
	else if (s->filter && s->filter->nr_comms ?
		 !gotrace_g_refilter(s, c, t, p, comm, ts) :
		 !gotrace_g_rename(s, c, t, p, comm, ts))
		gotrace_cut(s, c, ts);
out:
	local_irq_restore(flags);
}

#ifdef CONFIG_CGROUPS
/* @p moved to another cgroup; false if the buffer is full. */
static bool gotrace_cgroup_moved(struct gotrace_session *s,
				 struct gotrace_cpu *c, struct task_struct *p,
				 u64 ts)
{
	struct gotrace_thread *t = gotrace_thread_of(s, p);

	/* Not seen yet: the filter is asked when it is. */
	if (!t || !gotrace_alive(t))
		return true;
	return gotrace_g_refilter(s, c, t, p, NULL, ts);
}

/*
 * A cgroup move (cgroup.procs, cgroup.threads, CLONE_INTO_CGROUP at a fork
 * is the fork's): with a cgroup filter, each moved thread the trace has
 * seen may enter or leave it. Runs in the mover's context, after the move.
 */
static void gotrace_probe_cgroup(void *data, struct cgroup *dst,
				 const char *path, struct task_struct *task,
				 bool threadgroup)
{
	struct gotrace_session *s;
	struct task_struct *p;
	struct gotrace_cpu *c;
	unsigned long flags;
	bool ok = true;
	u64 ts;

	c = gotrace_begin_irqsave(&s, &flags);
	if (!c)
		return;
	if (!s->filter || !s->filter->cgrp)
		goto out;
	ts = gotrace_clock(s);
	if (!gotrace_proc_start(s, c, ts))
		goto cut;
	if (!threadgroup) {
		ok = gotrace_cgroup_moved(s, c, task, ts);
	} else {
		rcu_read_lock();
		for_each_thread(task, p) {
			ok = gotrace_cgroup_moved(s, c, p, ts);
			if (!ok)
				break;
		}
		rcu_read_unlock();
	}
	if (ok)
		goto out;
cut:
	gotrace_cut(s, c, ts);
out:
	local_irq_restore(flags);
}
#endif /* CONFIG_CGROUPS */

/**
 * gotrace_probes_self - where an event of the calling thread goes: this
 * CPU's buffer in the session being recorded, whose P runs the thread
 * @sp: set to the session
 *
 * For user annotations (annotate_events.c). Called with interrupts off, which
 * keeps the session alive (gotrace_record_publish()) and the thread on this
 * CPU until the event is written.
 *
 * Return: the buffer; NULL when no session records (or it was cut), or its
 * trace does not show this CPU's P running the thread (for one, its id is
 * not below max_tid).
 */
struct gotrace_cpu *gotrace_probes_self(struct gotrace_session **sp)
{
	struct gotrace_session *s;
	struct gotrace_cpu *c;

	lockdep_assert_irqs_disabled();
	s = rcu_dereference_sched(gotrace_live);
	/* gotrace_begin() counts an event lost after a cut: not this one. */
	if (!s || READ_ONCE(s->mode) != GOTRACE_MODE_ON)
		return NULL;
	c = gotrace_begin(s, s->v2);
	if (!c || !c->cur_g || gotrace_thread_of(s, current) != c->cur_t)
		return NULL;
	*sp = s;
	return c;
}
