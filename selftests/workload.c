// SPDX-License-Identifier: GPL-2.0
/* Scheduler workloads for the gotrace selftests to record. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gotrace_util.h"
#include "workload.h"

/*
 * Bounce a byte between this process and a child through two pipes, so that
 * each side blocks and wakes the other once per round trip. Stops after
 * @rounds round trips or, if @max_ms is not 0, after that many ms. Returns
 * the round trips done, or -1.
 */
long gt_pingpong(unsigned long rounds, unsigned int max_ms)
{
	__u64 deadline = gt_now_ms() + max_ms;
	int ping[2], pong[2], status;
	unsigned long done;
	char c = 'x';
	pid_t pid;

	if (pipe2(ping, O_CLOEXEC))
		return -1;
	if (pipe2(pong, O_CLOEXEC)) {
		close(ping[0]);
		close(ping[1]);
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		close(ping[1]);
		close(pong[0]);
		while (read(ping[0], &c, 1) == 1 && write(pong[1], &c, 1) == 1)
			;
		_exit(0);
	}
	close(ping[0]);
	close(pong[1]);
	for (done = 0; pid > 0 && done < rounds; done++) {
		if (max_ms && !(done % 64) && gt_now_ms() >= deadline)
			break;
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			break;
	}
	close(ping[1]);
	close(pong[0]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || status)
		return -1;
	return done;
}

#define GT_MAX_THREADS 64

/* Run @fn(@arg) in @threads new threads and wait for them all. */
static int gt_run_threads(unsigned int threads, void *(*fn)(void *), void *arg)
{
	pthread_t tid[GT_MAX_THREADS];
	unsigned int i, n;
	int err = 0;

	if (threads > GT_MAX_THREADS) {
		errno = EINVAL;
		return -1;
	}
	for (n = 0; n < threads; n++) {
		err = pthread_create(&tid[n], NULL, fn, arg);
		if (err)
			break;
	}
	for (i = 0; i < n; i++)
		pthread_join(tid[i], NULL);
	errno = err;
	return err ? -1 : 0;
}

struct gt_mutex_arg {
	pthread_mutex_t lock;
	unsigned long iters;
	unsigned long counter;
};

static void *gt_mutex_main(void *p)
{
	struct gt_mutex_arg *arg = p;
	unsigned long i;
	int j;

	for (i = 0; i < arg->iters; i++) {
		pthread_mutex_lock(&arg->lock);
		for (j = 0; j < 100; j++)
			__atomic_add_fetch(&arg->counter, 1, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&arg->lock);
	}
	return NULL;
}

/* @threads threads take one pthread mutex @iters times each. */
int gt_mutex_contend(unsigned int threads, unsigned long iters)
{
	struct gt_mutex_arg arg = {
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.iters = iters,
	};

	if (gt_run_threads(threads, gt_mutex_main, &arg))
		return -1;
	return arg.counter == threads * iters * 100 ? 0 : -1;
}

struct gt_sleep_arg {
	unsigned int sleeps;
	long ns;
};

static void *gt_sleep_main(void *p)
{
	const struct gt_sleep_arg *arg = p;
	struct timespec ts = { .tv_nsec = arg->ns };
	unsigned int i;

	for (i = 0; i < arg->sleeps; i++)
		nanosleep(&ts, NULL);
	return NULL;
}

/* @threads threads each sleep @sleeps times for @ns (< 1 s). */
int gt_sleepers(unsigned int threads, unsigned int sleeps, long ns)
{
	struct gt_sleep_arg arg = { .sleeps = sleeps, .ns = ns };

	return gt_run_threads(threads, gt_sleep_main, &arg);
}

/*
 * Fork @forks children, at most @parallel alive at once; every fourth one
 * sleeps a little before exiting. Returns how many children got a pid that
 * an earlier child already had, or -1.
 */
long gt_fork_storm(unsigned int forks, unsigned int parallel)
{
	const struct timespec nap = { .tv_nsec = 200000 };
	unsigned char *seen = calloc(GT_PID_MAX_LIMIT / 8, 1);
	unsigned int i, alive = 0;
	long reused = 0;
	pid_t pid;

	if (!seen)
		return -1;
	for (i = 0; i < forks && reused >= 0; i++) {
		if (alive == parallel) {
			if (wait(NULL) < 0)
				reused = -1;
			alive--;
		}
		pid = fork();
		if (pid == 0) {
			if (!(i % 4))
				nanosleep(&nap, NULL);
			_exit(0);
		}
		if (pid < 0 || pid >= GT_PID_MAX_LIMIT) {
			reused = -1;
			break;
		}
		alive++;
		if (seen[pid / 8] & (1 << (pid % 8)))
			reused++;
		seen[pid / 8] |= 1 << (pid % 8);
	}
	while (alive--)
		if (wait(NULL) < 0)
			reused = -1;
	free(seen);
	return reused;
}
