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
