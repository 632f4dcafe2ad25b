// SPDX-License-Identifier: GPL-2.0
/*
 * A scheduling stall for the latency trigger's tests (flight_test and, through
 * stall_helper, cli_guest.sh): a victim thread at SCHED_FIFO priority 10 on
 * CPU 0 sleeps 2 ms in a loop; a hog at SCHED_FIFO priority 50 on CPU 0 spins
 * for the stall's length, so the victim stays runnable that long behind it and
 * runs first, before the fair-class threads of CPU 0, when the hog ends.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "stall.h"

static uint64_t stall_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* This thread on @cpu, at SCHED_FIFO @prio unless 0: 0 or the errno. */
int gt_pin_fifo(int cpu, int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return errno;
	if (prio && sched_setscheduler(0, SCHED_FIFO, &sp))
		return errno;
	return 0;
}

static void *gt_victim_main(void *p)
{
	struct gt_victim *v = p;

	prctl(PR_SET_NAME, "gt-victim", 0, 0, 0);
	__atomic_store_n(&v->err, gt_pin_fifo(0, 10), __ATOMIC_RELAXED);
	__atomic_store_n(&v->tid, gettid(), __ATOMIC_RELEASE);
	while (!__atomic_load_n(&v->stop, __ATOMIC_ACQUIRE))
		usleep(2000);
	return NULL;
}

/* Start the victim; 0 or the errno of pthread_create(). */
int gt_victim_start(struct gt_victim *v)
{
	*v = (struct gt_victim){ 0 };
	return pthread_create(&v->thread, NULL, gt_victim_main, v);
}

/* The victim's thread id once it runs, after waiting for it. */
pid_t gt_victim_tid(struct gt_victim *v)
{
	pid_t tid;

	while (!(tid = __atomic_load_n(&v->tid, __ATOMIC_ACQUIRE)))
		usleep(1000);
	return tid;
}

/* Stop the victim: 0, or the errno that kept it from CPU 0 or SCHED_FIFO. */
int gt_victim_stop(struct gt_victim *v)
{
	__atomic_store_n(&v->stop, true, __ATOMIC_RELEASE);
	pthread_join(v->thread, NULL);
	return __atomic_load_n(&v->err, __ATOMIC_RELAXED);
}

static void *gt_hog_main(void *p)
{
	uint64_t end = stall_now_ns() + (uintptr_t)p * 1000000ULL;
	int err = gt_pin_fifo(0, 50);

	while (!err && stall_now_ns() < end)
		;
	return (void *)(intptr_t)err;
}

/* Spin @ms at SCHED_FIFO 50 on CPU 0 in a new thread: 0 or the errno. */
int gt_stall(unsigned long ms)
{
	pthread_t hog;
	void *ret;
	int err;

	err = pthread_create(&hog, NULL, gt_hog_main, (void *)(uintptr_t)ms);
	if (err)
		return err;
	err = pthread_join(hog, &ret);
	return err ? err : (int)(intptr_t)ret;
}
