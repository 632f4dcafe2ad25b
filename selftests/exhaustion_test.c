// SPDX-License-Identifier: GPL-2.0
/* gotrace with full buffers: the recording is cut, the trace stays whole. */
#define _GNU_SOURCE
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

TEST_HARNESS_MAIN
