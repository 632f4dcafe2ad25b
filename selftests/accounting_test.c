// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace accounting: every context switch of a chosen thread is in the
 * trace, or counted as not recorded.
 *
 * The kernel counts each thread's switches itself (voluntary_ctxt_switches
 * and nonvoluntary_ctxt_switches in /proc/PID/status, bumped in
 * __schedule() exactly where sched_switch fires). A child blocked before
 * the trace starts and blocked again before it stops does N switches in
 * between, N from those counters; the trace must show its goroutine taken
 * off a P N times: blocked for each voluntary switch, preempted for each
 * involuntary one, put on a P N times, and made runnable once per block.
 *
 * GOTRACE_ACCT_SLEEPS sets how many 1 ms sleeps the child does (default 2000).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "gotrace_util.h"
#include "workload.h"

struct acct_child {
	int go[2];		/* the child waits here to start, then to end */
	int done[2];		/* the child says it has done its sleeps */
	unsigned long sleeps;
};

static int acct_main(void *arg)
{
	struct acct_child *a = arg;
	const struct timespec ms = { .tv_nsec = 1000000 };
	unsigned long i;
	char c = 'd';

	if (read(a->go[0], &c, 1) != 1)
		return -1;
	for (i = 0; i < a->sleeps; i++)
		nanosleep(&ms, NULL);
	if (write(a->done[1], &c, 1) != 1)
		return -1;
	return read(a->go[0], &c, 1) == 1 ? 0 : -1;
}

/*
 * Wait until @pid sleeps and its counters hold still: it has switched out
 * for good (its state says S before its switch-out has finished).
 */
static int settled(pid_t pid, struct gt_switches *sw)
{
	struct gt_switches again;
	int i;

	for (i = 0; i < 100; i++) {
		if (!gt_wait_blocked(pid, GT_TIMEOUT_MS) || gt_read_switches(pid, sw))
			return -1;
		gt_msleep(50);
		if (gt_read_switches(pid, &again))
			return -1;
		if (again.nv == sw->nv && again.niv == sw->niv &&
		    gt_wait_blocked(pid, 0))
			return 0;
	}
	return -1;
}

FIXTURE(accounting) {
	int fd;			/* open for reading */
	int ctl;		/* open O_WRONLY, for the ioctls */
	struct acct_child a;
	pid_t child;
};

FIXTURE_SETUP(accounting)
{
	GT_REQUIRE_DEVICE();
	self->ctl = -1;
	self->fd = gt_open_reader();
	ASSERT_LE(0, self->fd);
	self->ctl = gt_dev_open(O_WRONLY);
	ASSERT_LE(0, self->ctl);
	self->a.sleeps = gt_env_ulong("GOTRACE_ACCT_SLEEPS", 2000);
	ASSERT_EQ(0, pipe2(self->a.go, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(self->a.done, O_CLOEXEC));
	self->child = gt_spawn("gt-acct", acct_main, &self->a);
	ASSERT_LT(0, self->child);
}

FIXTURE_TEARDOWN(accounting)
{
	if (self->child > 0) {
		close(self->a.go[1]);
		kill(self->child, SIGKILL);
		gt_reap(self->child);
	}
	if (self->ctl >= 0)
		close(self->ctl);
	EXPECT_EQ(0, gt_close_reader(self->fd));
}

/*
 * Run the child's sleeps inside a session started with @buffer_size: the
 * kernel's count of its switches goes to @sw, the session's status to @st.
 * With @reader, a thread reads the trace as it comes; without, nothing is
 * read until the end. The trace is kept as @name and the child's goroutine
 * counted into @gs.
 */
static void run(struct __test_metadata *_metadata,
		FIXTURE_DATA(accounting) *self, __u64 buffer_size, bool reader,
		const char *name, struct gt_switches *sw, struct gotrace_status *st,
		struct gt_gstats *gs)
{
	struct gt_switches before, after;
	struct gt_buf rest = { 0 };
	struct gt_recorder rec;
	struct gt_buf *t = &rest;
	struct gt_stats stats;
	char c = 'g';

	ASSERT_EQ(0, settled(self->child, &before));
	ASSERT_EQ(0, gt_start(self->ctl, GOTRACE_FORMAT_DEFAULT, buffer_size));
	if (reader)
		ASSERT_EQ(0, gt_recorder_start(&rec, self->fd, GT_READ_CHUNK));
	ASSERT_EQ(1, write(self->a.go[1], &c, 1));
	ASSERT_EQ(1, read(self->a.done[0], &c, 1));
	ASSERT_EQ(0, settled(self->child, &after));
	ASSERT_EQ(0, gt_status(self->ctl, st));
	ASSERT_EQ(0, gt_stop(self->ctl));
	if (reader) {
		ASSERT_EQ(0, gt_recorder_join(&rec));
		t = &rec.trace;
	} else {
		ASSERT_EQ(0, gt_finish(self->fd, t));
	}
	sw->nv = after.nv - before.nv;
	sw->niv = after.niv - before.niv;

	EXPECT_EQ(0, gt_keep_trace(t, GOTRACE_FORMAT_DEFAULT, &stats, name)) {
		TH_LOG("%s", stats.error);
	}
	ASSERT_EQ(0, gt_check_goroutine(t, GOTRACE_FORMAT_DEFAULT, self->child,
					gs, &stats)) {
		TH_LOG("%s", stats.error);
	}
	gt_buf_free(t);
	TH_LOG("%s: the kernel counts %lu voluntary + %lu involuntary switches of %d;",
	       name, sw->nv, sw->niv, self->child);
	TH_LOG("%s: the trace has %lu blocks + %lu preemptions, %lu starts, %lu unblocks",
	       name, gs->blocks, gs->preempts, gs->starts, gs->unblocks);
	TH_LOG("%s: %llu events not recorded", name,
	       (unsigned long long)st->events_lost);
}

/* A reader keeping up: everything recorded, nothing lost, N == recorded. */
TEST_F_TIMEOUT(accounting, all_recorded, 600)
{
	struct gotrace_status st;
	struct gt_gstats gs;
	struct gt_switches sw;

	run(_metadata, self, 0, true, "accounting-all", &sw, &st, &gs);
	EXPECT_EQ(0, st.flags);
	EXPECT_EQ(0, st.events_lost);
	EXPECT_LE(self->a.sleeps / 2, sw.nv);
	EXPECT_EQ(1, gs.creates);		/* in the start snapshot */
	EXPECT_EQ(0, gs.ends);
	EXPECT_EQ(sw.nv, gs.blocks);
	EXPECT_EQ(sw.niv, gs.preempts);
	EXPECT_EQ(sw.nv + sw.niv, gs.starts);
	/* Woken once per block: from its wait at start, not from its last. */
	EXPECT_EQ(sw.nv, gs.unblocks);
}

/*
 * Nobody reads and the buffers are the smallest: the recording is cut
 * while the child sleeps. What the trace lacks of its N switches is
 * counted as not recorded: each such switch is at least one tracepoint hit
 * after the cut. (events_lost counts every CPU's hits, so it bounds the
 * child's rather than equals them.)
 */
TEST_F_TIMEOUT(accounting, cut, 600)
{
	struct gotrace_status st;
	struct gt_gstats gs;
	struct gt_switches sw;
	unsigned long n, recorded;

	run(_metadata, self, GT_MIN_BUFFER, false, "accounting-cut", &sw, &st,
	    &gs);
	n = sw.nv + sw.niv;
	recorded = gs.blocks + gs.preempts;
	EXPECT_EQ(GOTRACE_STATUS_CUT, st.flags & GOTRACE_STATUS_CUT);
	EXPECT_LE(self->a.sleeps / 2, sw.nv);
	EXPECT_GT(n, recorded);
	EXPECT_LE(gs.blocks, sw.nv);
	EXPECT_LE(gs.starts, n);
	EXPECT_LE(gs.unblocks, gs.blocks + 1);
	EXPECT_LE(n - recorded, st.events_lost);
	TH_LOG("N = %lu switches: %lu recorded + %lu not (events_lost %llu)",
	       n, recorded, n - recorded, (unsigned long long)st.events_lost);
}

TEST_HARNESS_MAIN
