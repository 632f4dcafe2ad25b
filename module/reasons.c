// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace reasons: why a thread waits, read cheaply from the task itself.
 *
 * A user thread that blocks inside a system call has the call's number in
 * its saved user registers (orig_ax on x86, which entries from exceptions
 * and interrupts set negative); that number says what it waits for. No syscall tracepoint is
 * used: those would slow every system call on the machine.
 */

#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <asm/syscall.h>
#include <asm/unistd.h>

#include "gotrace.h"

/* Names and classes of the system calls a thread commonly blocks in. */
const struct gotrace_syscall gotrace_syscalls[GOTRACE_NR_SYSCALLS] = {
#ifdef __NR_futex
	[__NR_futex] = { "futex", GOTRACE_C_SYNC },
#endif
#ifdef __NR_futex_waitv
	[__NR_futex_waitv] = { "futex_waitv", GOTRACE_C_SYNC },
#endif
#ifdef __NR_poll
	[__NR_poll] = { "poll", GOTRACE_C_NET },
#endif
#ifdef __NR_select
	[__NR_select] = { "select", GOTRACE_C_NET },
#endif
#ifdef __NR_epoll_wait
	[__NR_epoll_wait] = { "epoll_wait", GOTRACE_C_NET },
#endif
	[__NR_ppoll] = { "ppoll", GOTRACE_C_NET },
	[__NR_pselect6] = { "pselect6", GOTRACE_C_NET },
	[__NR_epoll_pwait] = { "epoll_pwait", GOTRACE_C_NET },
#ifdef __NR_epoll_pwait2
	[__NR_epoll_pwait2] = { "epoll_pwait2", GOTRACE_C_NET },
#endif
	[__NR_accept] = { "accept", GOTRACE_C_NET },
	[__NR_accept4] = { "accept4", GOTRACE_C_NET },
	[__NR_connect] = { "connect", GOTRACE_C_NET },
	[__NR_recvfrom] = { "recvfrom", GOTRACE_C_NET },
	[__NR_recvmsg] = { "recvmsg", GOTRACE_C_NET },
	[__NR_recvmmsg] = { "recvmmsg", GOTRACE_C_NET },
	[__NR_sendto] = { "sendto", GOTRACE_C_NET },
	[__NR_sendmsg] = { "sendmsg", GOTRACE_C_NET },
	[__NR_sendmmsg] = { "sendmmsg", GOTRACE_C_NET },
	[__NR_nanosleep] = { "nanosleep", GOTRACE_C_SLEEP },
	[__NR_clock_nanosleep] = { "clock_nanosleep", GOTRACE_C_SLEEP },
	[__NR_read] = { "read", GOTRACE_C_SYSCALL },
	[__NR_readv] = { "readv", GOTRACE_C_SYSCALL },
	[__NR_pread64] = { "pread64", GOTRACE_C_SYSCALL },
	[__NR_write] = { "write", GOTRACE_C_SYSCALL },
	[__NR_writev] = { "writev", GOTRACE_C_SYSCALL },
	[__NR_pwrite64] = { "pwrite64", GOTRACE_C_SYSCALL },
	[__NR_fsync] = { "fsync", GOTRACE_C_SYSCALL },
	[__NR_fdatasync] = { "fdatasync", GOTRACE_C_SYSCALL },
#ifdef __NR_open
	[__NR_open] = { "open", GOTRACE_C_SYSCALL },
#endif
	[__NR_openat] = { "openat", GOTRACE_C_SYSCALL },
	[__NR_close] = { "close", GOTRACE_C_SYSCALL },
	[__NR_wait4] = { "wait4", GOTRACE_C_SYSCALL },
	[__NR_waitid] = { "waitid", GOTRACE_C_SYSCALL },
#ifdef __NR_pause
	[__NR_pause] = { "pause", GOTRACE_C_SYSCALL },
#endif
	[__NR_rt_sigsuspend] = { "rt_sigsuspend", GOTRACE_C_SYSCALL },
	[__NR_rt_sigtimedwait] = { "rt_sigtimedwait", GOTRACE_C_SYSCALL },
	[__NR_ioctl] = { "ioctl", GOTRACE_C_SYSCALL },
	[__NR_execve] = { "execve", GOTRACE_C_SYSCALL },
	[__NR_exit_group] = { "exit_group", GOTRACE_C_SYSCALL },
	[__NR_mmap] = { "mmap", GOTRACE_C_SYSCALL },
	[__NR_munmap] = { "munmap", GOTRACE_C_SYSCALL },
	[__NR_sched_yield] = { "sched_yield", GOTRACE_C_SYSCALL },
	[__NR_io_uring_enter] = { "io_uring_enter", GOTRACE_C_SYSCALL },
#ifdef __NR_io_getevents
	[__NR_io_getevents] = { "io_getevents", GOTRACE_C_SYSCALL },
#endif
	[__NR_msgrcv] = { "msgrcv", GOTRACE_C_SYSCALL },
	[__NR_semtimedop] = { "semtimedop", GOTRACE_C_SYSCALL },
	[__NR_flock] = { "flock", GOTRACE_C_SYSCALL },
	[__NR_fcntl] = { "fcntl", GOTRACE_C_SYSCALL },
};

/* Names of the reasons that are not system calls. */
static const char *const gotrace_reason_names[] = {
	[GOTRACE_R_THREAD - GOTRACE_NR_SYSCALLS]	= "thread",
	[GOTRACE_R_FORK - GOTRACE_NR_SYSCALLS]		= "fork",
	[GOTRACE_R_RENAME - GOTRACE_NR_SYSCALLS]	= "exec or rename",
	[GOTRACE_R_PREEMPT - GOTRACE_NR_SYSCALLS]	= "preempted",
	[GOTRACE_R_KERNEL - GOTRACE_NR_SYSCALLS]	= "kernel wait",
	[GOTRACE_R_FAULT - GOTRACE_NR_SYSCALLS]		= "page fault or kernel wait",
	[GOTRACE_R_IRQ - GOTRACE_NR_SYSCALLS]		= "interrupt",
	[GOTRACE_R_SOFTIRQ - GOTRACE_NR_SYSCALLS]	= "softirq",
	[GOTRACE_R_FULL - GOTRACE_NR_SYSCALLS]		= "(stack table full)",
};

/**
 * gotrace_reason_name - the frame name of a reason
 * @reason: enum gotrace_reason or a system call number
 * @buf: room for "syscall 511"
 * @size: its size
 */
const char *gotrace_reason_name(u32 reason, char *buf, size_t size)
{
	if (reason >= GOTRACE_NR_SYSCALLS)
		return gotrace_reason_names[reason - GOTRACE_NR_SYSCALLS];
	if (gotrace_syscalls[reason].name)
		return gotrace_syscalls[reason].name;
	snprintf(buf, size, "syscall %u", reason);
	return buf;
}

/**
 * gotrace_waker_reason - what the current context is doing when it wakes
 * a thread: a system call, kernel work, or an interrupt
 */
u32 gotrace_waker_reason(void)
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
