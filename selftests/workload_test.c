// SPDX-License-Identifier: GPL-2.0
/* gotrace recording workloads, in every format, for the host's Go check. */
#define _GNU_SOURCE
#include <sched.h>
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
	struct gt_stats st;

	ASSERT_EQ(ROUNDS, gt_pingpong(ROUNDS, 0));
	record_end(_metadata, &self->s, variant->name, &st);
	EXPECT_LE(ROUNDS, gt_wakeups(&st));
	EXPECT_LE(ROUNDS, gt_starts(&st));
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
	EXPECT_LE(ONE_CPU_ROUNDS, st.count[GT_EV_GO_SYS_EXIT]);
	EXPECT_LE(ONE_CPU_ROUNDS, st.count[GT_EV_GO_START_LOCAL]);
	EXPECT_GT(ONE_CPU_ROUNDS / 10, st.count[GT_EV_GO_START]);
	TH_LOG("%lu GoSysExit, %lu GoStartLocal, %lu GoStart",
	       st.count[GT_EV_GO_SYS_EXIT], st.count[GT_EV_GO_START_LOCAL],
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
	struct gt_stats st;
	unsigned long pid_max;
	long reused;

	if (gt_read_ulong(PID_MAX, &pid_max))
		SKIP(return, "no " PID_MAX);
	ASSERT_EQ(0, gt_write_ulong(PID_MAX, 400));
	self->pid_max = pid_max;
	reused = gt_fork_storm(FORKS, 16);
	EXPECT_EQ(0, gt_write_ulong(PID_MAX, pid_max));
	self->pid_max = 0;
	ASSERT_LT(0, reused);
	record_end(_metadata, &self->s, variant->name, &st);
	EXPECT_LE(FORKS, st.count[GT_EV_GO_CREATE]);
	TH_LOG("%ld of %d forks reused a pid", reused, FORKS);
}

TEST_HARNESS_MAIN
