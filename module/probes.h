/* SPDX-License-Identifier: GPL-2.0 */
/* The scheduler tracepoint probes: attaching them (probes.c). */
#ifndef _GOTRACE_PROBES_H
#define _GOTRACE_PROBES_H

#include <linux/types.h>
#include "cpu.h"

struct gotrace_session;

int gotrace_probes_init(void);
int gotrace_probes_attach(void);
void gotrace_probes_detach(void);
struct gotrace_cpu *gotrace_probes_self(struct gotrace_session **sp);

#endif /* _GOTRACE_PROBES_H */
