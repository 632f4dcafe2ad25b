/* SPDX-License-Identifier: GPL-2.0 */
/* The scheduler tracepoint probes: attaching them; CPU samples (probes.c). */
#ifndef _GOTRACE_PROBES_H
#define _GOTRACE_PROBES_H

#include <linux/types.h>
#include "cpu.h"

struct gotrace_session;
struct pt_regs;

int gotrace_probes_init(void);
int gotrace_probes_attach(void);
void gotrace_probes_detach(void);
struct gotrace_cpu *gotrace_probes_self(struct gotrace_session **sp);
void gotrace_probe_sample(struct gotrace_session *want, struct pt_regs *regs);

#endif /* _GOTRACE_PROBES_H */
