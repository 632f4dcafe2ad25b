/* SPDX-License-Identifier: GPL-2.0 */
/* A P of the trace: one CPU's trace state, around the ring it writes. */
#ifndef _GOTRACE_CPU_H
#define _GOTRACE_CPU_H

#include <linux/types.h>
#include "buffer.h"

struct gotrace_thread;

/**
 * struct gotrace_cpu - one CPU, a P of the trace
 * @ring:	its trace buffer.
 * @cur_g:	goroutine running on this P in the trace, 0 for none.
 * @cur_t:	the entry of @cur_g's thread, while @cur_g is not 0.
 * @proc_started: a ProcStart has been written for this P.
 * @cpu:	the CPU, which is the P id.
 * @lost:	scheduler events not recorded after a cut.
 * @samples:	CPU samples written (or kept in the sample ring).
 * @samples_dropped: CPU samples taken and not written.
 * @wake_key:	the stack key of this CPU's last wakeup by a thread, 0 for none.
 * @wake_id:	its stack id.
 *
 * Owned by this CPU's probes with interrupts off, or by the controller
 * while no probe can run; the reader uses only @ring's reader side. The
 * sched_waking probe, with interrupts on, reads @cur_g and @cur_t (which
 * only this CPU's switches change), counts @lost with this_cpu_inc(), which
 * no interrupt splits, and owns @wake_key and @wake_id: in an interrupt it
 * leaves them alone, so none splits the pair. The CPU sample handler, in
 * hard interrupt context, counts @samples and @samples_dropped.
 */
struct gotrace_cpu {
	struct gotrace_ring ring;
	u64 cur_g;
	struct gotrace_thread *cur_t;
	bool proc_started;
	int cpu;
	u64 lost;
	u64 samples;
	u64 samples_dropped;
	u32 wake_key;
	u32 wake_id;
};

#endif /* _GOTRACE_CPU_H */
