// SPDX-License-Identifier: GPL-2.0
/*
 * stall_helper MS [COUNT [GAP_MS]]: a scheduling stall for the latency trigger
 * of gotrace record --trigger-latency (selftests/cli_guest.sh). A victim
 * thread named gt-victim sleeps 2 ms in a loop at SCHED_FIFO priority 10 on
 * CPU 0; COUNT times (default 1), a hog thread at SCHED_FIFO priority 50 on
 * CPU 0 spins for MS ms, so the victim stays runnable that long behind it,
 * then the helper sleeps GAP_MS (default 1000). Prints the victim's thread id;
 * exit status 1 if a thread cannot be pinned or made real-time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static bool stop;
static int victim_err;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* This thread on CPU 0 at SCHED_FIFO @prio: 0 or the errno. */
static int pin_fifo(int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return errno;
	return sched_setscheduler(0, SCHED_FIFO, &sp) ? errno : 0;
}

static void *victim(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "gt-victim", 0, 0, 0);
	victim_err = pin_fifo(10);
	printf("victim %d\n", gettid());
	fflush(stdout);
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE))
		usleep(2000);
	return NULL;
}

static void *hog(void *arg)
{
	double end = now_ms() + *(double *)arg;
	int err = pin_fifo(50);

	while (!err && now_ms() < end)
		;
	return (void *)(long)err;
}

int main(int argc, char *argv[])
{
	double ms = argc > 1 ? atof(argv[1]) : 0;
	int count = argc > 2 ? atoi(argv[2]) : 1, gap = argc > 3 ? atoi(argv[3]) : 1000, i;
	pthread_t v, h;
	void *ret = NULL;

	if (ms <= 0 || count < 1 || gap < 0) {
		fprintf(stderr, "usage: %s MS [COUNT [GAP_MS]]\n", argv[0]);
		return 2;
	}
	if (pthread_create(&v, NULL, victim, NULL))
		return 1;
	usleep(100000);
	for (i = 0; i < count && !ret && !victim_err; i++) {
		if (i)
			usleep(gap * 1000);
		if (pthread_create(&h, NULL, hog, &ms) || pthread_join(h, &ret))
			return 1;
	}
	__atomic_store_n(&stop, true, __ATOMIC_RELEASE);
	pthread_join(v, NULL);
	if (victim_err || ret) {
		fprintf(stderr, "stall_helper: cannot run on CPU 0 at SCHED_FIFO: %s\n",
			strerror(victim_err ? victim_err : (int)(long)ret));
		return 1;
	}
	return 0;
}
