/* SPDX-License-Identifier: GPL-2.0 */
/* Program ids: a thread's name as a number, and its label in the footer (programs.c). */
#ifndef _GOTRACE_PROGRAMS_H
#define _GOTRACE_PROGRAMS_H

#include <linux/sched.h>
#include <linux/types.h>

struct gotrace_progs;

/* Program ids: the reserved ones, then names in order of appearance. */
#define GOTRACE_PROG_MAX	4096
#define GOTRACE_PROG_IRQ	0	/* wakeups from interrupt context */
#define GOTRACE_PROG_OTHER	1	/* names past GOTRACE_PROG_MAX */
#define GOTRACE_PROG_UNTRACED	2	/* wakers and creators a filter leaves out */
#define GOTRACE_PROG_FIRST	3

struct gotrace_progs *gotrace_progs_alloc(void);
void gotrace_progs_free(struct gotrace_progs *pt);
u32 gotrace_prog_id(struct gotrace_progs *pt, const char *comm);
/* A label: every byte of a name written as \xNN at worst, or a stand-in. */
#define GOTRACE_LABEL_LEN	(4 * (TASK_COMM_LEN - 1) + 1)
const char *gotrace_prog_label(struct gotrace_progs *pt, u32 id, char *buf);
u32 gotrace_progs_count(struct gotrace_progs *pt);
size_t gotrace_utf8_len(const u8 *p, size_t n);

#endif /* _GOTRACE_PROGRAMS_H */
