/* SPDX-License-Identifier: GPL-2.0 */
/* A scheduling stall on CPU 0 for the latency trigger's tests (stall.c). */
#ifndef STALL_H
#define STALL_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>

/* A thread on CPU 0, named gt-victim, that wakes every 2 ms at SCHED_FIFO 10. */
struct gt_victim {
	pthread_t thread;
	pid_t tid;		/* atomic: its id once it runs */
	int err;		/* atomic: errno if it could not be pinned or made real-time */
	bool stop;		/* atomic */
};

int gt_pin_fifo(int cpu, int prio);
int gt_victim_start(struct gt_victim *v);
pid_t gt_victim_tid(struct gt_victim *v);
int gt_victim_stop(struct gt_victim *v);
int gt_stall(unsigned long ms);

#endif /* STALL_H */
