// SPDX-License-Identifier: GPL-2.0
/* gotrace recording workloads, in every format, for the host's Go check. */
#define _GNU_SOURCE
#include <unistd.h>

#include "kselftest_harness.h"

#include "gotrace_util.h"
#include "workload.h"

#define PID_MAX		"/proc/sys/kernel/pid_max"
#define ROUNDS		20000
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
