/* SPDX-License-Identifier: GPL-2.0 */
/* Why threads stop and wake: system calls and other reasons, and their names (reasons.c). */
#ifndef _GOTRACE_REASONS_H
#define _GOTRACE_REASONS_H

#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/types.h>
#include <asm/syscall.h>

#include "compat.h"

/*
 * Why a thread stops running or is woken: a system call number below
 * GOTRACE_NR_SYSCALLS (the call it blocks in, or the waker is in), or one of
 * these. Names are in reasons.c.
 */
#define GOTRACE_NR_SYSCALLS	512
enum gotrace_reason {
	GOTRACE_R_THREAD = GOTRACE_NR_SYSCALLS,	/* a goroutine's create stack */
	GOTRACE_R_FORK,		/* a creator's stack */
	GOTRACE_R_RENAME,	/* creator of the goroutine after a rename */
	GOTRACE_R_PREEMPT,
	GOTRACE_R_KERNEL,	/* a kernel thread waits */
	GOTRACE_R_FAULT,	/* a user thread waits outside a system call */
	GOTRACE_R_IRQ,		/* woken from an interrupt */
	GOTRACE_R_SOFTIRQ,	/* woken from a softirq */
	GOTRACE_R_FULL,		/* any stack, once the stack ids ran out */
	GOTRACE_R_NR
};

/* What a blocking system call waits for. */
enum gotrace_class {
	GOTRACE_C_SYSCALL,	/* anything else: a syscall-blocking profile entry */
	GOTRACE_C_SYNC,		/* futexes: mutexes, condition variables */
	GOTRACE_C_NET,		/* sockets and readiness waits */
	GOTRACE_C_SLEEP,	/* timed sleeps */
};

/**
 * struct gotrace_syscall - a system call a thread commonly blocks in
 * @name:	its name, the frame name of its stacks.
 * @class:	enum gotrace_class.
 */
struct gotrace_syscall {
	const char *name;
	u8 class;
};

extern const struct gotrace_syscall gotrace_syscalls[GOTRACE_NR_SYSCALLS];
const char *gotrace_reason_name(u32 reason, char *buf, size_t size);
const char *gotrace_reason_word(u32 reason, char *buf, size_t size);

/**
 * gotrace_syscall_of - the system call @p is in, or -1
 * @p: a task that is current or switching out
 *
 * Kernel threads have none; a user thread stopped by a page fault or an
 * interrupt has saved registers that are not a system call's.
 *
 * Return: the system call's number, or -1 if there is none or it is not
 * below GOTRACE_NR_SYSCALLS.
 */
static inline int gotrace_syscall_of(struct task_struct *p)
{
	struct pt_regs *regs;
	int nr;

	if (p->flags & PF_KTHREAD)
		return -1;
	regs = task_pt_regs(p);
	nr = syscall_get_nr(p, regs);
	if (nr >= GOTRACE_NR_SYSCALLS)
		return -1;
	return nr;
}

/**
 * gotrace_waker_reason - what the current context is doing when it wakes
 * a thread: a system call, kernel work, or an interrupt
 *
 * Return: GOTRACE_R_IRQ in a hard interrupt or NMI, GOTRACE_R_SOFTIRQ while
 * serving a softirq, else the number of the system call current is in, else
 * GOTRACE_R_KERNEL in a kernel thread or GOTRACE_R_FAULT in a user thread.
 * Inline: the sched_waking probe asks at every wakeup.
 */
static __always_inline u32 gotrace_waker_reason(void)
{
	int nr;

	if (in_hardirq() || in_nmi())
		return GOTRACE_R_IRQ;
	if (in_serving_softirq())
		return GOTRACE_R_SOFTIRQ;
	nr = gotrace_syscall_of(current);
	if (nr >= 0)
		return nr;
	return current->flags & PF_KTHREAD ? GOTRACE_R_KERNEL : GOTRACE_R_FAULT;
}

#endif /* _GOTRACE_REASONS_H */
