// SPDX-License-Identifier: GPL-2.0
/* gotrace with full buffers: the recording is cut, the trace stays whole. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "gotrace_util.h"
#include "workload.h"

#define ROUNDS	200	/* ping-pong round trips between checks */
#define BUSY_MS	60000	/* longest it may take to fill the buffers */

FIXTURE(exhaustion) {
	int fd;		/* open for reading, or -1 */
	int ctl;	/* open O_WRONLY for the ioctls */
};

FIXTURE_SETUP(exhaustion)
{
	GT_REQUIRE_DEVICE();
	self->ctl = -1;
	self->fd = gt_open_reader();
	ASSERT_LE(0, self->fd);
	self->ctl = gt_dev_open(O_WRONLY);
	ASSERT_LE(0, self->ctl);
}

FIXTURE_TEARDOWN(exhaustion)
{
	if (self->ctl >= 0)
		close(self->ctl);
	EXPECT_EQ(0, gt_close_reader(self->fd));
}

/*
 * Fill the smallest buffers with a busy workload and nobody reading: the
 * recording is cut at a point where every CPU stops, and the session keeps
 * TRACING until STOP. Then read it all: @name.trace, in @format, is still
 * one consistent trace.
 */
static void fill_and_read(struct __test_metadata *_metadata, int ctl, int *fd,
			  __u32 format, const char *name)
{
	struct gotrace_status st1, st2, st3;
	struct gt_buf t = { 0 };
	struct gt_stats stats;
	__u64 deadline;

	ASSERT_EQ(0, gt_start(ctl, format, GT_MIN_BUFFER));
	deadline = gt_now_ms() + BUSY_MS;
	do {
		ASSERT_EQ(ROUNDS, gt_pingpong(ROUNDS, 0));
		ASSERT_EQ(0, gt_status(ctl, &st1));
	} while (!(st1.flags & GOTRACE_STATUS_CUT) && gt_now_ms() < deadline);
	EXPECT_EQ(GOTRACE_STATE_TRACING, st1.state);
	EXPECT_EQ(GT_MIN_BUFFER, st1.buffer_size);
	EXPECT_EQ(GOTRACE_STATUS_CUT, st1.flags & GOTRACE_STATUS_CUT);
	EXPECT_LT(0, st1.events_lost);

	/* Cut means cut: nothing more is written, the losses go on. */
	ASSERT_EQ(ROUNDS, gt_pingpong(ROUNDS, 0));
	ASSERT_EQ(0, gt_status(ctl, &st2));
	EXPECT_EQ(GOTRACE_STATE_TRACING, st2.state);
	EXPECT_EQ(st1.events, st2.events);
	EXPECT_LT(st1.events_lost, st2.events_lost);

	ASSERT_EQ(0, gt_stop(ctl));
	if (*fd < 0) {
		*fd = gt_dev_open(O_RDONLY);
		ASSERT_LE(0, *fd);
	}
	ASSERT_EQ(0, gt_finish(*fd, &t));
	ASSERT_EQ(0, gt_status(ctl, &st3));
	EXPECT_EQ(GOTRACE_STATE_IDLE, st3.state);
	EXPECT_EQ(t.len, st3.bytes_read);
	EXPECT_EQ(t.len, st3.bytes);
	EXPECT_EQ(0, gt_keep_trace(&t, format, &stats, name)) {
		TH_LOG("%s", stats.error);
	}
	gt_buf_free(&t);
}

TEST_F_TIMEOUT(exhaustion, cut, 300)
{
	fill_and_read(_metadata, self->ctl, &self->fd, GOTRACE_FORMAT_DEFAULT,
		      "exhaustion-cut");
}

/*
 * The same in Go 1.26's format: the cut ends the generation it falls in,
 * whose tables follow its events, and the host's Go 1.26 and 1.27 read
 * exhaustion-cut-1.26.trace and each piece of it from a later generation.
 */
TEST_F_TIMEOUT(exhaustion, cut_1_26, 300)
{
	fill_and_read(_metadata, self->ctl, &self->fd, GOTRACE_FORMAT_1_26,
		      "exhaustion-cut-1.26");
}

/*
 * Where the cut falls is where a chunk fills: mid-transition as often as not
 * (a blocking read is GoSysCall, GoSysBlock, ProcStop). Each round cuts at
 * another place; each trace must still be consistent, as Go's readers check
 * on the host (exhaustion-cut-N.trace).
 */
TEST_F_TIMEOUT(exhaustion, cut_anywhere, 900)
{
	unsigned int i, rounds = gt_env_ulong("GOTRACE_CUT_ROUNDS", 8);
	char name[64];

	for (i = 0; i < rounds && _metadata->passed; i++) {
		snprintf(name, sizeof(name), "exhaustion-cut-%u", i);
		fill_and_read(_metadata, self->ctl, &self->fd,
			      GOTRACE_FORMAT_DEFAULT, name);
	}
}

/* The first reader to open gets the trace from its header, however late. */
TEST_F_TIMEOUT(exhaustion, cut_then_open, 300)
{
	close(self->fd);
	self->fd = -1;
	fill_and_read(_metadata, self->ctl, &self->fd, GOTRACE_FORMAT_DEFAULT,
		      "exhaustion-cut_then_open");
}

/* Ping-pong until the status says @flag, or BUSY_MS. */
static void busy_until(struct __test_metadata *_metadata, int ctl, __u32 flag,
		       struct gotrace_status *st)
{
	__u64 deadline = gt_now_ms() + BUSY_MS;

	do {
		ASSERT_EQ(ROUNDS, gt_pingpong(ROUNDS, 0));
		ASSERT_EQ(0, gt_status(ctl, st));
	} while (!(st->flags & flag) && gt_now_ms() < deadline);
	ASSERT_EQ(flag, st->flags & flag);
}

/* The trace read to its end of file (no stop: that would end the chain). */
static void read_keep(struct __test_metadata *_metadata, int fd, __u32 format,
		      const char *name)
{
	struct gt_buf t = { 0 };
	struct gt_stats stats;

	ASSERT_EQ(0, gt_read_to_eof(fd, &t, GT_READ_CHUNK));
	/* More than a header and a start snapshot's few events. */
	EXPECT_LT(1024, t.len);
	EXPECT_EQ(0, gt_keep_trace(&t, format, &stats, name)) {
		TH_LOG("%s", stats.error);
	}
	gt_buf_free(&t);
}

/*
 * GOTRACE_START_CONTINUE: full buffers end the trace at the cut at once
 * (stopped, not waiting for GOTRACE_STOP), the losses are still counted
 * while nobody reads, and end of file starts the next trace, which reports
 * the gap: it began at least the reader's stall after the cut, and its
 * events are all those the first trace counted as lost, and more. Both
 * traces are whole (@name-0 and @name-1 for the host's Go readers); the
 * stop ends the chain: no third trace.
 */
static void continue_after_cut(struct __test_metadata *_metadata, int ctl,
			       int fd, __u32 format, const char *name)
{
	struct gotrace_status st1, st2, st3;
	__u64 deadline, stalled;
	char file[64];

	ASSERT_EQ(0, gt_start_flags(ctl, format, GOTRACE_START_CONTINUE,
				    GT_MIN_BUFFER));
	busy_until(_metadata, ctl, GOTRACE_STATUS_CUT, &st1);
	EXPECT_EQ(GOTRACE_STATUS_CONTINUE, st1.flags & GOTRACE_STATUS_CONTINUE);
	EXPECT_EQ(0, st1.resumes);
	deadline = gt_now_ms() + 10000;
	while (st1.state == GOTRACE_STATE_TRACING && gt_now_ms() < deadline) {
		gt_msleep(10);
		ASSERT_EQ(0, gt_status(ctl, &st1));
	}
	ASSERT_EQ(GOTRACE_STATE_STOPPED, st1.state);

	/*
	 * Stopped, yet counting: the gap goes on until the trace is read.
	 * A round trip counts six (each thread blocks, is woken and switched
	 * in) when both wait for their reply, fewer when one finds it already
	 * there: on a loaded host (vCPUs descheduled) 2.6 a round trip were
	 * counted in 1.26. One a round trip is the bound held.
	 */
	ASSERT_EQ(ROUNDS, gt_pingpong(ROUNDS, 0));
	gt_msleep(200);
	ASSERT_EQ(0, gt_status(ctl, &st2));
	EXPECT_EQ(GOTRACE_STATE_STOPPED, st2.state);
	EXPECT_EQ(st1.events, st2.events);
	EXPECT_LT(st1.events_lost + ROUNDS, st2.events_lost);
	stalled = gt_now_ms();

	snprintf(file, sizeof(file), "%s-0", name);
	read_keep(_metadata, fd, format, file);
	ASSERT_EQ(0, gt_status(ctl, &st3));
	EXPECT_EQ(GOTRACE_STATE_TRACING, st3.state);
	EXPECT_EQ(st2.sessions + 1, st3.sessions);
	EXPECT_EQ(GOTRACE_STATUS_CONTINUE,
		  st3.flags & (GOTRACE_STATUS_CONTINUE | GOTRACE_STATUS_CUT));
	EXPECT_EQ(1, st3.resumes);
	EXPECT_EQ(0, st3.resume_error);
	EXPECT_EQ(0, st3.events_lost);
	EXPECT_LE(st2.events_lost, st3.gap_events);
	/* From the cut to past the 200 ms stall, bounded by the time since. */
	EXPECT_LT(st3.gap_start_ns + 200000000ULL, st3.gap_end_ns);
	EXPECT_GE((gt_now_ms() - stalled + 1000) * 1000000ULL + 200000000ULL,
		  st3.gap_end_ns - st3.gap_start_ns) {
		TH_LOG("gap %llu ns", (unsigned long long)(st3.gap_end_ns - st3.gap_start_ns));
	}

	TH_LOG("gap of %llu ms, %llu events not recorded (%llu counted while the reader stalled)",
	       (unsigned long long)(st3.gap_end_ns - st3.gap_start_ns) / 1000000,
	       (unsigned long long)st3.gap_events,
	       (unsigned long long)st2.events_lost);

	ASSERT_EQ(ROUNDS, gt_pingpong(ROUNDS, 0));
	ASSERT_EQ(0, gt_stop(ctl));
	snprintf(file, sizeof(file), "%s-1", name);
	read_keep(_metadata, fd, format, file);
	ASSERT_EQ(0, gt_status(ctl, &st1));
	EXPECT_EQ(GOTRACE_STATE_IDLE, st1.state);
	EXPECT_EQ(st3.sessions, st1.sessions);
	EXPECT_EQ(1, st1.resumes);
}

TEST_F_TIMEOUT(exhaustion, continue_after_cut, 300)
{
	continue_after_cut(_metadata, self->ctl, self->fd, GOTRACE_FORMAT_DEFAULT,
			   "exhaustion-continue");
}

TEST_F_TIMEOUT(exhaustion, continue_after_cut_1_26, 300)
{
	continue_after_cut(_metadata, self->ctl, self->fd, GOTRACE_FORMAT_1_26,
			   "exhaustion-continue-1.26");
}

/*
 * A stop while the cut trace waits for its reader ends the chain: the
 * losses stop counting, and end of file starts nothing. So does a stop
 * before any cut (the usual end), and a flight recorder cannot continue.
 */
TEST_F_TIMEOUT(exhaustion, continue_stopped_before_read, 300)
{
	struct gotrace_status st1, st2, st3;
	__u64 deadline = gt_now_ms() + 10000;

	EXPECT_EQ(-1, gt_start_flags(self->ctl, GOTRACE_FORMAT_1_26,
				     GOTRACE_START_CONTINUE | GOTRACE_START_FLIGHT,
				     GT_MIN_BUFFER));
	EXPECT_EQ(EINVAL, errno);

	ASSERT_EQ(0, gt_start_flags(self->ctl, GOTRACE_FORMAT_DEFAULT,
				    GOTRACE_START_CONTINUE, GT_MIN_BUFFER));
	busy_until(_metadata, self->ctl, GOTRACE_STATUS_CUT, &st1);
	while (st1.state == GOTRACE_STATE_TRACING && gt_now_ms() < deadline) {
		gt_msleep(10);
		ASSERT_EQ(0, gt_status(self->ctl, &st1));
	}
	ASSERT_EQ(GOTRACE_STATE_STOPPED, st1.state);
	ASSERT_EQ(0, gt_stop(self->ctl));
	ASSERT_EQ(0, gt_status(self->ctl, &st2));
	ASSERT_EQ(ROUNDS, gt_pingpong(ROUNDS, 0));
	ASSERT_EQ(0, gt_status(self->ctl, &st3));
	EXPECT_EQ(st2.events_lost, st3.events_lost);
	/* Nothing to stop any more. */
	EXPECT_EQ(-1, gt_stop(self->ctl));
	EXPECT_EQ(EINVAL, errno);

	read_keep(_metadata, self->fd, GOTRACE_FORMAT_DEFAULT,
		  "exhaustion-continue-stopped");
	ASSERT_EQ(0, gt_status(self->ctl, &st3));
	EXPECT_EQ(GOTRACE_STATE_IDLE, st3.state);
	EXPECT_EQ(st1.sessions, st3.sessions);
	EXPECT_EQ(0, st3.resumes);
}

TEST_HARNESS_MAIN
