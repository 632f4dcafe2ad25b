// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace thread table: Linux threads as goroutines, indexed by thread id.
 *
 * One 8-byte entry per thread id below max_tid, allocated when a session
 * starts, so probes never allocate and find a thread in O(1). With the
 * default max_tid (PID_MAX_LIMIT, 4194304 on 64-bit) the table takes 32 MiB;
 * gotrace start passes the running system's pid_max instead (32768 ids by
 * default: 256 KiB).
 */

#include <linux/vmalloc.h>

#include "gotrace.h"

/**
 * gotrace_threads_alloc - a zeroed table for thread ids below @max_tid
 * @max_tid: number of entries
 */
struct gotrace_thread *gotrace_threads_alloc(u32 max_tid)
{
	return vzalloc(array_size(max_tid, sizeof(struct gotrace_thread)));
}

/**
 * gotrace_threads_free - free a table from gotrace_threads_alloc()
 * @threads: the table
 */
void gotrace_threads_free(struct gotrace_thread *threads)
{
	vfree(threads);
}

/**
 * gotrace_thread_create - a new goroutine for the thread holding @tid
 * @c: the CPU's buffer; the creator is what its P runs (or nothing)
 * @t: the thread's entry
 * @tid: its id
 * @ts: time stamp
 *
 * An id that held a thread earlier in this trace gets the next goroutine id
 * for it (see gotrace_gid()). The goroutine starts runnable with seq 1.
 *
 * Return: false if the buffer is full or @tid was reused 65535 times.
 */
bool gotrace_thread_create(struct gotrace_cpu *c, struct gotrace_thread *t,
			   pid_t tid, u64 ts)
{
	u64 args[3];

	if (t->state != GOTRACE_T_NONE) {
		if (t->gen == U16_MAX)
			return false;	/* out of goroutine ids for @tid */
		t->gen++;
	}
	args[0] = gotrace_gid(t, tid);
	args[1] = GOTRACE_STACK_THREAD;
	args[2] = 0;
	if (!gotrace_emit(c, ts, GO_EV_GO_CREATE, 3, args, false)) {
		if (t->state != GOTRACE_T_NONE)
			t->gen--;
		return false;
	}
	t->seq = 1;
	t->state = GOTRACE_T_RUNNABLE;
	return true;
}
