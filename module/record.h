/* SPDX-License-Identifier: GPL-2.0 */
/* Recording on and off: the session the event sources write into, and its cut (record.c). */
#ifndef _GOTRACE_RECORD_H
#define _GOTRACE_RECORD_H

#include <linux/rcupdate.h>
#include <linux/types.h>
#include "cpu.h"

struct gotrace_session;

/* The session being recorded, or NULL (record.c). */
extern struct gotrace_session __rcu *gotrace_live;

void gotrace_record_publish(struct gotrace_session *s);
void gotrace_cut(struct gotrace_session *s, struct gotrace_cpu *c, u64 ts);

#endif /* _GOTRACE_RECORD_H */
