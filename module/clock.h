/* SPDX-License-Identifier: GPL-2.0 */
/* Trace time stamps: the session's clock, in trace ticks (clock.c). */
#ifndef _GOTRACE_CLOCK_H
#define _GOTRACE_CLOCK_H

#include <linux/ktime.h>
#include <linux/types.h>
#ifdef CONFIG_X86_TSC
#include <asm/tsc.h>
#endif
#include "session.h"

/*
 * A trace tick lasts GOTRACE_TICK_NS of CLOCK_MONOTONIC (nanoseconds >>
 * GOTRACE_TS_SHIFT), or TSC cycles >> the shift that makes it last as
 * long or up to twice as long (clock.c).
 */
#define GOTRACE_TICK_NS		64
#define GOTRACE_TS_SHIFT	6

bool gotrace_clock_has_tsc(void);
void gotrace_clock_init(struct gotrace_session *s, u32 flags);
bool gotrace_clock_unstable(struct gotrace_session *s);

/**
 * gotrace_clock - now, in @s's trace ticks, the same clock on every CPU
 * @s: the session
 *
 * Return: the TSC read after earlier loads (as the kernel's TSC clocksource
 * reads it), or CLOCK_MONOTONIC (see clock.c), in trace ticks.
 */
static __always_inline u64 gotrace_clock(const struct gotrace_session *s)
{
#ifdef CONFIG_X86_TSC
	if (s->clock == GOTRACE_CLOCK_TSC)
		return rdtsc_ordered() >> s->ts_shift;
#endif
	return ktime_get_mono_fast_ns() >> GOTRACE_TS_SHIFT;
}

#endif /* _GOTRACE_CLOCK_H */
