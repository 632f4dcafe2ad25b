/* SPDX-License-Identifier: GPL-2.0 */
/* The scheduler tracepoint probes: attaching them, and a P's start (probes.c). */
#ifndef _GOTRACE_PROBES_H
#define _GOTRACE_PROBES_H

#include <linux/compiler.h>
#include <linux/types.h>
#include "cpu.h"

struct gotrace_session;

int gotrace_probes_init(void);
int gotrace_probes_attach(void);
void gotrace_probes_detach(void);
void gotrace_probes_publish(struct gotrace_session *s);
void gotrace_cut(struct gotrace_session *s, struct gotrace_cpu *c, u64 ts);
bool gotrace_proc_start_slow(struct gotrace_cpu *c, u64 ts);

/**
 * gotrace_proc_start - the P's ProcStart, once, before its first event
 * @c: the CPU's buffer
 * @ts: time stamp
 *
 * Inline: every probe asks, and the P has nearly always started.
 *
 * Return: false if the buffer is full.
 */
static inline bool gotrace_proc_start(struct gotrace_cpu *c, u64 ts)
{
	return likely(c->proc_started) || gotrace_proc_start_slow(c, ts);
}

#endif /* _GOTRACE_PROBES_H */
