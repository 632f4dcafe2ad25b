/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What differs between the kernels gotrace builds for (Linux 5.10 and
 * later), in one place: each difference is detected when the module is built
 * (module/conftest.c's tests, results in the generated gotrace_config.h, or a
 * macro's presence) and named with the upstream change that made it. The
 * rest of the module uses only what this file defines. Kbuild refuses a
 * kernel older than 5.10 or without CONFIG_TRACEPOINTS, naming what it lacks.
 */
#ifndef _GOTRACE_COMPAT_H
#define _GOTRACE_COMPAT_H

#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/mm.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "gotrace_config.h"

/*
 * kvzalloc() and kvfree() moved from <linux/mm.h> to <linux/slab.h> in 5.16:
 * "mm: move kvmalloc-related functions to slab.h". Both are included above.
 */

/*
 * in_hardirq() came in 5.11: "preempt: Cleanup the macro maze a bit". Before,
 * in_irq() was the same test (hardirq_count()).
 */
#ifndef in_hardirq
#define in_hardirq()		in_irq()
#endif

/**
 * gotrace_task_state - the state (TASK_*) of a task
 * @p: task
 *
 * task_struct.state became the unsigned int __state in 5.14:
 * 2f064a59a11f "sched: Change task_struct::state".
 *
 * Return: @p's state.
 */
static __always_inline unsigned int gotrace_task_state(struct task_struct *p)
{
#ifdef GOTRACE_HAVE_TASK___STATE
	return READ_ONCE(p->__state);
#else
	return READ_ONCE(p->state);
#endif
}

/**
 * gotrace_task_runnable - whether a task not on a CPU runs again without a
 * wakeup (it is queued on a runqueue)
 * @p: task
 *
 * Since 6.12 a fair task that blocked may stay queued, as sched_delayed, until
 * it is picked (and dequeued, with no tracepoint) or woken (with
 * sched_wakeup): 152e11f6df29 "sched/fair: Implement delayed dequeue".
 * task_is_runnable() tells it from a runnable one ("sched/fair: Fix external
 * p->on_rq users"); before, p->on_rq alone did.
 *
 * Return: true if @p is runnable.
 */
static __always_inline bool gotrace_task_runnable(struct task_struct *p)
{
#ifdef GOTRACE_HAVE_TASK_IS_RUNNABLE
	return task_is_runnable(p);
#else
	return READ_ONCE(p->on_rq);
#endif
}

/*
 * Each probe's type must be the one its tracepoint calls: they are attached
 * as void *, so an argument a kernel adds or changes would compile and then
 * be read wrong. The kernel's typed register_trace_<tp>() helper, declared by
 * DECLARE_TRACE() in the trace/events/ headers on every kernel gotrace builds for,
 * takes exactly that type: compare, at build time only (the helper is never
 * called: most scheduler tracepoints are not exported).
 */
#define GOTRACE_PROBE_TYPE_CHECK(tp, probe)					\
	static_assert(__builtin_types_compatible_p(typeof(register_trace_##tp),	\
						   int (typeof(probe) *, void *)), \
		      "the probe " #probe " does not take the arguments of the " \
		      "kernel's " #tp " tracepoint")

/*
 * sched_switch passes prev's state (prev_state, read before prev was
 * deactivated) since 5.18: fa2c3254d7cf "sched/tracing: Don't re-read
 * p->state when emitting sched_switch event". Before, the probe reads it from
 * prev itself, as the tracepoint's own event did: at the tracepoint, in
 * __schedule() with the runqueue locked, prev's state is still the one it
 * blocked with (a wakeup waits for the lock or for prev->on_cpu to clear
 * before it writes it), TASK_DEAD at its last switch, or TASK_RUNNING if a
 * pending signal kept it from blocking (as prev_state is since 6.12's
 * try_to_block_task(); 5.18 to 6.11 passed the blocked state then).
 *
 * GOTRACE_SWITCH_PROBE(name, fn) defines the probe name, with the kernel's
 * prototype, calling fn(data, preempt, prev, next, prev_state).
 */
#ifdef GOTRACE_HAVE_SWITCH_PREV_STATE
#define GOTRACE_SWITCH_PROBE(name, fn)						\
static void name(void *data, bool preempt, struct task_struct *prev,		\
		 struct task_struct *next, unsigned int prev_state)		\
{										\
	fn(data, preempt, prev, next, prev_state);				\
}
#else
#define GOTRACE_SWITCH_PROBE(name, fn)						\
static void name(void *data, bool preempt, struct task_struct *prev,		\
		 struct task_struct *next)					\
{										\
	fn(data, preempt, prev, next, gotrace_task_state(prev));		\
}
#endif

#endif /* _GOTRACE_COMPAT_H */
