// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace recording workloads, in every format, for the host's Go check.
 *
 * Sizes from the environment (the debug kernel's run asks for less: its
 * checkers need each path, not the volume):
 *   GOTRACE_PINGPONG_ROUNDS  round trips of the pingpong test (default 20000)
 *   GOTRACE_STORM_FORKS      processes the fork storm starts (default 600)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <stdlib.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "gotrace_util.h"
#include "workload.h"

#define PID_MAX		"/proc/sys/kernel/pid_max"
#define ROUNDS		20000
#define ONE_CPU_ROUNDS	5000
#define THREADS		4
#define SLEEPS		200
#define FORKS		600
#define TIGHT_FREE	3	/* ids left free for the storm */
#define STORM_THREADS	3000

/* Each test records one workload with a thread draining the device. */
FIXTURE(workload) {
	struct gt_session s;
	unsigned long pid_max;	/* to restore, or 0 */
};

FIXTURE_VARIANT(workload) {
	__u32 format;
	const char *name;
};

FIXTURE_VARIANT_ADD(workload, go1_11) {
	.format = GOTRACE_FORMAT_1_11,
	.name = "1.11",
};

FIXTURE_VARIANT_ADD(workload, go1_19) {
	.format = GOTRACE_FORMAT_1_19,
	.name = "1.19",
};

FIXTURE_VARIANT_ADD(workload, go1_21) {
	.format = GOTRACE_FORMAT_1_21,
	.name = "1.21",
};

FIXTURE_SETUP(workload)
{
	GT_REQUIRE_DEVICE();
	ASSERT_EQ(0, gt_session_start(&self->s, variant->format));
}

FIXTURE_TEARDOWN(workload)
{
	if (self->pid_max)
		EXPECT_EQ(0, gt_write_ulong(PID_MAX, self->pid_max));
	EXPECT_EQ(0, gt_session_close(&self->s));
}

/*
 * End the recording: with a reader keeping up nothing may have been lost.
 * Keep the trace as workload-TEST-VERSION.trace and count its events.
 */
static void record_end(struct __test_metadata *_metadata, struct gt_session *s,
		       const char *version, struct gt_stats *st)
{
	struct gotrace_status status;
	char name[64];

	ASSERT_EQ(0, gt_status(s->ctl, &status));
	EXPECT_EQ(GOTRACE_STATE_TRACING, status.state);
	EXPECT_EQ(0, status.flags);
	EXPECT_EQ(0, status.events_lost);
	snprintf(name, sizeof(name), "workload-%s-%s", _metadata->name,
		 version);
	ASSERT_EQ(0, gt_session_end(s, st, name)) {
		TH_LOG("%s", st->error);
	}
}

/* Two processes wake each other through pipes, twice per round trip. */
TEST_F_TIMEOUT(workload, pingpong, 600)
{
	unsigned long rounds = gt_env_ulong("GOTRACE_PINGPONG_ROUNDS", ROUNDS);
	struct gt_stats st;

	ASSERT_EQ((long)rounds, gt_pingpong(rounds, 0));
	record_end(_metadata, &self->s, variant->name, &st);
	EXPECT_LE(rounds, gt_wakeups(&st));
	EXPECT_LE(rounds, gt_starts(&st));
}

/*
 * Both sides of the ping-pong on one CPU: a wakeup (GoSysExit of a reader
 * blocked in read()) and the start that follows it are then on the same P,
 * so the start is a GoStartLocal, without a sequence number. Full GoStarts
 * are left to the few other threads that changed CPUs.
 */
TEST_F_TIMEOUT(workload, pingpong_one_cpu, 600)
{
	cpu_set_t all, one;
	struct gt_stats st;
	int cpu = sched_getcpu();

	ASSERT_LE(0, cpu);
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(all), &all));
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
	EXPECT_EQ(ONE_CPU_ROUNDS, gt_pingpong(ONE_CPU_ROUNDS, 0));
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(all), &all));
	record_end(_metadata, &self->s, variant->name, &st);
	EXPECT_LE(ONE_CPU_ROUNDS, st.count[GT_EV_GO_SYSEXIT]);
	EXPECT_LE(ONE_CPU_ROUNDS, st.count[GT_EV_GO_START_LOCAL]);
	EXPECT_GT(ONE_CPU_ROUNDS / 10, st.count[GT_EV_GO_START]);
	TH_LOG("%lu GoSysExit, %lu GoStartLocal, %lu GoStart",
	       st.count[GT_EV_GO_SYSEXIT], st.count[GT_EV_GO_START_LOCAL],
	       st.count[GT_EV_GO_START]);
}

/* Threads contending a pthread mutex block and wake on its futex. */
TEST_F_TIMEOUT(workload, mutex, 600)
{
	struct gt_stats st;

	ASSERT_EQ(0, gt_mutex_contend(THREADS, 20000, 0));
	record_end(_metadata, &self->s, variant->name, &st);
	EXPECT_LE(THREADS, st.count[GT_EV_GO_CREATE]);
	EXPECT_LT(0, gt_wakeups(&st));
}

/* Every nanosleep() blocks, and its timer wakes the thread. */
TEST_F_TIMEOUT(workload, sleep, 600)
{
	struct gt_stats st;

	ASSERT_EQ(0, gt_sleepers(THREADS, SLEEPS, 1000000));
	record_end(_metadata, &self->s, variant->name, &st);
	EXPECT_LE(THREADS, st.count[GT_EV_GO_CREATE]);
	EXPECT_LE(THREADS * SLEEPS, gt_wakeups(&st));
	EXPECT_LE(THREADS * SLEEPS, gt_starts(&st));
}

/*
 * Forks and exits with pid_max so low that pids come round again within
 * the trace: each new thread must still be a new goroutine.
 */
TEST_F_TIMEOUT(workload, fork_storm, 600)
{
	unsigned long forks = gt_env_ulong("GOTRACE_STORM_FORKS", FORKS);
	struct gt_stats st;
	unsigned long pid_max;
	long reused;

	if (gt_read_ulong(PID_MAX, &pid_max))
		SKIP(return, "no " PID_MAX);
	/* New pids wrap to 300 past pid_max: the storm has 100 ids to reuse. */
	ASSERT_EQ(0, gt_write_ulong(PID_MAX, 400));
	self->pid_max = pid_max;
	reused = gt_fork_storm(forks, 16);
	EXPECT_EQ(0, gt_write_ulong(PID_MAX, pid_max));
	self->pid_max = 0;
	ASSERT_LT(0, reused);
	record_end(_metadata, &self->s, variant->name, &st);
	EXPECT_LE(forks, st.count[GT_EV_GO_CREATE]);
	TH_LOG("%ld of %lu forks reused a pid", reused, forks);
}

/* Shared by the threads of a thread storm. */
struct storm {
	unsigned char *seen;	/* thread ids seen, a bit each */
	long reused;		/* atomic: threads that got an id seen before */
	unsigned int exited;	/* atomic */
	bool done;		/* atomic: the hog stops */
};

/* Keeps the storm's CPU busy, so that exiting threads get preempted. */
static void *storm_hog(void *arg)
{
	struct storm *st = arg;

	while (!__atomic_load_n(&st->done, __ATOMIC_RELAXED))
		;
	return NULL;
}

static void *storm_thread(void *arg)
{
	struct storm *st = arg;
	pid_t tid = gettid();
	unsigned char bit = 1 << (tid % 8);

	if (__atomic_fetch_or(&st->seen[tid / 8], bit, __ATOMIC_RELAXED) & bit)
		__atomic_add_fetch(&st->reused, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&st->exited, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * @n threads that exit at once, created on this CPU and run on @cpu beside
 * a thread that spins there, so that some are preempted on their way out;
 * a creation that finds no free id tries again. Returns how many got an id
 * an earlier one had, or -1.
 */
static long thread_storm(unsigned int n, int cpu)
{
	struct storm st = { .seen = calloc(GT_PID_MAX_LIMIT / 8, 1) };
	pthread_attr_t attr;
	unsigned int i = 0;
	pthread_t t, hog;
	cpu_set_t other;
	int err = 0;

	if (!st.seen || pthread_attr_init(&attr))
		return -1;
	CPU_ZERO(&other);
	CPU_SET(cpu, &other);
	if (pthread_attr_setaffinity_np(&attr, sizeof(other), &other) ||
	    pthread_create(&hog, &attr, storm_hog, &st)) {
		free(st.seen);
		return -1;
	}
	if (pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED))
		err = -1;
	while (!err && i < n) {
		err = pthread_create(&t, &attr, storm_thread, &st);
		if (!err)
			i++;
		else if (err == EAGAIN)
			err = sched_yield();
	}
	while (__atomic_load_n(&st.exited, __ATOMIC_ACQUIRE) < i)
		sched_yield();
	__atomic_store_n(&st.done, true, __ATOMIC_RELAXED);
	pthread_join(hog, NULL);
	pthread_attr_destroy(&attr);
	free(st.seen);
	return err ? -1 : st.reused;
}

/*
 * Threads exit (release_task() frees their id before their last switch-out)
 * while another CPU creates threads, with pid_max a few ids above those in
 * use: a new thread gets the id of one still running its last instructions,
 * which may also be preempted there and switched in again. Each holder
 * keeps its own goroutine id: nothing may be cut.
 */
TEST_F_TIMEOUT(workload, id_reuse_tight, 600)
{
	unsigned long pid_max, limit;
	cpu_set_t all, one;
	struct gt_stats st;
	long reused;
	int cpu;

	if (gt_read_ulong(PID_MAX, &pid_max))
		SKIP(return, "no " PID_MAX);
	if (gt_possible_cpus() < 2)
		SKIP(return, "needs two CPUs");
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(all), &all));
	cpu = sched_getcpu();
	ASSERT_LE(0, cpu);
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
	limit = gt_tight_pid_max(TIGHT_FREE);
	ASSERT_LT(0, limit);
	ASSERT_EQ(0, gt_write_ulong(PID_MAX, limit));
	self->pid_max = pid_max;
	reused = thread_storm(STORM_THREADS, !cpu);
	EXPECT_EQ(0, gt_write_ulong(PID_MAX, pid_max));
	self->pid_max = 0;
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(all), &all));
	ASSERT_LT(STORM_THREADS / 2, reused);
	record_end(_metadata, &self->s, variant->name, &st);
	EXPECT_LE(STORM_THREADS, st.count[GT_EV_GO_CREATE]);
	TH_LOG("pid_max %lu: %ld of %d threads reused an id", limit, reused,
	       STORM_THREADS);
}

/* A thread name and the label the trace must show for it. */
struct name_label {
	const char *name;
	const char *label;
};

static const struct name_label name_labels[] = {
	{ "", "(thread with no name)" },
	{ "fifteen-bytes-x", "fifteen-bytes-x" },
	{ "caf\xc3\xa9", "caf\xc3\xa9" },
	{ "bad\xff\xfe", "bad\\xff\\xfe" },
	{ "ctl\x01\x1b[1m", "ctl\\x01\\x1b[1m" },
	{ "back\\slash", "back\\\\slash" },
	{ "(interrupt)", "(interrupt)" },
	{ "(thread with no", "(thread with no" },
};

static void *named_main(void *arg)
{
	const struct timespec nap = { .tv_nsec = 1000000 };
	const struct name_label *nl = arg;
	int i;

	if (prctl(PR_SET_NAME, nl->name))
		return (void *)1;
	for (i = 0; i < 3; i++)
		nanosleep(&nap, NULL);
	return NULL;
}

/*
 * Any name a thread can take gives a valid trace and a label of its own,
 * with gotrace's stand-ins never taken by a thread's name.
 */
TEST_F(workload, thread_names)
{
	pthread_t threads[ARRAY_SIZE(name_labels)];
	struct gt_stats st;
	unsigned int i;
	char name[64];
	void *ret;

	for (i = 0; i < ARRAY_SIZE(name_labels); i++)
		ASSERT_EQ(0, pthread_create(&threads[i], NULL, named_main,
					    (void *)&name_labels[i]));
	for (i = 0; i < ARRAY_SIZE(name_labels); i++) {
		ASSERT_EQ(0, pthread_join(threads[i], &ret));
		EXPECT_EQ(NULL, ret);
	}
	snprintf(name, sizeof(name), "workload-thread_names-%s", variant->name);
	ASSERT_EQ(0, gt_session_stop(&self->s, &st, name)) {
		TH_LOG("%s", st.error);
	}
	for (i = 0; i < ARRAY_SIZE(name_labels); i++) {
		const char *label = name_labels[i].label;

		EXPECT_NE(NULL, memmem(self->s.rec.trace.data,
				       self->s.rec.trace.len, label,
				       strlen(label))) {
			TH_LOG("no label \"%s\" in the trace", label);
		}
	}
	EXPECT_NE(NULL, memmem(self->s.rec.trace.data, self->s.rec.trace.len,
			       "(interrupt context)", 19));
}

TEST_HARNESS_MAIN
