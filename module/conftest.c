// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel feature tests, never linked into the module: Kbuild compiles this
 * file once per test against the kernel's headers, with -DGOTRACE_TEST_<F>,
 * and defines GOTRACE_HAVE_<F> in gotrace_config.h when it compiles.
 * module/compat.h turns them into what the rest of the module uses. A test
 * is a static assertion: it fails on the kernels without the feature, with a
 * hard error that the test's flags cannot turn into a warning.
 */

#ifdef GOTRACE_TEST_TASK___STATE
/*
 * task_struct.state became __state (unsigned int, read with READ_ONCE) in
 * 5.14: 2f064a59a11f "sched: Change task_struct::state".
 */
#include <linux/sched.h>

static_assert(sizeof(((struct task_struct *)0)->__state) == sizeof(unsigned int));
#endif

#ifdef GOTRACE_TEST_SWITCH_PREV_STATE
/*
 * sched_switch passes the state prev had when it was scheduled out since
 * 5.18: fa2c3254d7cf "sched/tracing: Don't re-read p->state when emitting
 * sched_switch event".
 */
#include <trace/events/sched.h>

static_assert(__builtin_types_compatible_p(typeof(register_trace_sched_switch),
					   int (void (*)(void *, bool, struct task_struct *,
							 struct task_struct *, unsigned int),
						void *)));
#endif

#ifdef GOTRACE_TEST_TASK_IS_RUNNABLE
/*
 * Since 6.12 a fair task that blocks with negative lag stays on its runqueue
 * (p->on_rq set, p->se.sched_delayed set) until it is picked or woken:
 * 152e11f6df29 "sched/fair: Implement delayed dequeue". task_is_runnable()
 * came with it, in "sched/fair: Fix external p->on_rq users".
 */
#include <linux/sched.h>

static_assert(__builtin_types_compatible_p(typeof(task_is_runnable),
					   bool (struct task_struct *)));
#endif
