// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace CPU samples: when a start asks for cpu_sample_hz, one perf event
 * per online CPU, the software CPU clock (which needs no hardware PMU, as
 * in a TCG guest), interrupts it that often. Its overflow handler runs from
 * an hrtimer in hard interrupt context (HRTIMER_MODE_REL_PINNED_HARD, not
 * an NMI), so it never interrupts a probe writing into the CPU's buffer
 * (they do so with interrupts off) and writes the CPUSample itself
 * (gotrace_probe_sample()).
 *
 * The events are created before the start snapshot publishes the session
 * and released once it is unpublished, or cut short, in process context
 * under gotrace_dev.lock. A CPU that comes online later is not sampled;
 * one that goes offline stops being sampled (perf turns its event off).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/err.h>
#include <linux/perf_event.h>
#include <linux/slab.h>

#include "dev.h"
#include "gfp.h"
#include "probes.h"
#include "samples.h"
#include "session.h"

static void gotrace_sample_overflow(struct perf_event *event,
				    struct perf_sample_data *data,
				    struct pt_regs *regs)
{
	gotrace_probe_sample(event->overflow_handler_context, regs);
}

/**
 * gotrace_samples_start - sample every online CPU at @s's cpu_sample_hz
 * @s: the new session, not published yet
 *
 * Return: 0 (nothing to do when @s asks for no samples), -ENOMEM, or the
 * error of perf_event_create_kernel_counter() for some CPU (-EOPNOTSUPP,
 * -ENOENT, -ENODEV, -EINVAL...); then no event is left.
 */
int gotrace_samples_start(struct gotrace_session *s)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.pinned = 1,
		/* An idle CPU runs no thread of the trace: nothing to sample. */
		.exclude_idle = 1,
	};
	struct perf_event *ev;
	int cpu, ret = 0;

	lockdep_assert_held(&s->dev->lock);
	if (!s->args.cpu_sample_hz)
		return 0;
	/* The CPU clock counts nanoseconds: a sample every period of them. */
	attr.sample_period = NSEC_PER_SEC / s->args.cpu_sample_hz;
	s->samplers = kcalloc(nr_cpu_ids, sizeof(*s->samplers), GOTRACE_GFP);
	if (!s->samplers)
		return -ENOMEM;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		ev = perf_event_create_kernel_counter(&attr, cpu, NULL,
						      gotrace_sample_overflow, s);
		if (IS_ERR(ev)) {
			ret = PTR_ERR(ev);
			pr_warn("cannot sample CPU %d: error %d\n", cpu, ret);
			break;
		}
		s->samplers[cpu] = ev;
	}
	cpus_read_unlock();
	if (ret)
		gotrace_samples_stop(s);
	return ret;
}

/**
 * gotrace_samples_stop - release @s's perf events, if any
 * @s: the session; unpublished or cut short, so that a sample still
 *     taken writes nothing
 *
 * Once perf_event_release_kernel() returns, its event's handler has
 * returned and does not run again (the hrtimer is cancelled). Sleeps.
 */
void gotrace_samples_stop(struct gotrace_session *s)
{
	int cpu;

	lockdep_assert_held(&s->dev->lock);
	if (!s->samplers)
		return;
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (s->samplers[cpu])
			perf_event_release_kernel(s->samplers[cpu]);
	kfree(s->samplers);
	s->samplers = NULL;
}
