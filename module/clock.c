// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace clock: the time source of a session's time stamps, and its rate.
 *
 * Go readers order the events of different Ps by their time stamps, so all
 * CPUs must read one clock: an event caused by another is never stamped
 * before it. local_clock() is not such a clock; it is only monotonic per CPU.
 * The TSC is one where it is invariant (constant rate, runs in deep idle
 * states: every x86 CPU of the last fifteen years) and the kernel trusts it
 * (it found the CPUs' counters in step at boot and has not marked them
 * unstable since). Reading it costs one instruction. Elsewhere the time
 * stamps come from CLOCK_MONOTONIC through its NMI-safe fast accessor, a
 * function call that reads the kernel's clocksource. A TSC that is not
 * invariant, as QEMU's TCG offers, may be trusted for now and marked
 * unstable by the clocksource watchdog in the middle of a session.
 *
 * Either way a trace tick is the shortest power-of-two number of the
 * clock's units that lasts at least GOTRACE_TICK_NS, which keeps time stamp
 * deltas short (a TSC tick lasts less than twice that); the footer's
 * Frequency event gives the ticks per second.
 */

#include <linux/log2.h>

#include "clock.h"
#include "session.h"

/**
 * gotrace_clock_has_tsc - whether GOTRACE_START_CLOCK_TSC can be honoured
 *
 * Return: true if the CPU has a TSC and the kernel knows its rate (tsc_khz);
 * always false without CONFIG_X86_TSC.
 */
bool gotrace_clock_has_tsc(void)
{
#ifdef CONFIG_X86_TSC
	return boot_cpu_has(X86_FEATURE_TSC) && tsc_khz;
#else
	return false;
#endif
}

#ifdef CONFIG_X86_TSC
/* Whether the kernel trusts an invariant TSC (the default clock then). */
static bool gotrace_clock_tsc_trusted(void)
{
	return gotrace_clock_has_tsc() &&
	       boot_cpu_has(X86_FEATURE_CONSTANT_TSC) &&
	       boot_cpu_has(X86_FEATURE_NONSTOP_TSC) && !check_tsc_unstable();
}
#endif

/**
 * gotrace_clock_init - choose the clock of a new session
 * @s: the session
 * @flags: GOTRACE_START_* flags, validated
 */
void gotrace_clock_init(struct gotrace_session *s, u32 flags)
{
	/* A tick of CLOCK_MONOTONIC is its nanoseconds >> GOTRACE_TS_SHIFT. */
	BUILD_BUG_ON(GOTRACE_TICK_NS != 1 << GOTRACE_TS_SHIFT);
	s->clock = GOTRACE_CLOCK_MONO;
	s->ts_shift = GOTRACE_TS_SHIFT;
	s->ts_freq = NSEC_PER_SEC >> GOTRACE_TS_SHIFT;
#ifdef CONFIG_X86_TSC
	if (flags & GOTRACE_START_CLOCK_MONO)
		return;
	if (!(flags & GOTRACE_START_CLOCK_TSC) && !gotrace_clock_tsc_trusted())
		return;
	s->clock = GOTRACE_CLOCK_TSC;
	s->ts_shift = order_base_2(div_u64((u64)tsc_khz * GOTRACE_TICK_NS,
					   USEC_PER_SEC) ?: 1);
	s->ts_freq = ((u64)tsc_khz * 1000) >> s->ts_shift;
#endif
}

/**
 * gotrace_clock_unstable - whether the session's clock no longer orders CPUs
 * @s: the session
 *
 * The TSC may be marked unstable after the session chose it (or it was
 * forced): the trace says so rather than switching clocks in its middle.
 *
 * Return: true if @s's clock is the TSC and the kernel has marked the TSC
 * unstable; false otherwise.
 */
bool gotrace_clock_unstable(struct gotrace_session *s)
{
#ifdef CONFIG_X86_TSC
	return s->clock == GOTRACE_CLOCK_TSC && check_tsc_unstable();
#else
	return false;
#endif
}
