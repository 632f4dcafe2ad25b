// SPDX-License-Identifier: GPL-2.0
/* gotrace sessions: GOTRACE_STATUS through their life, restarts, cycles. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "gotrace_util.h"
#include "workload.h"

FIXTURE(session) {
	int fd;			/* open for reading */
	long page_size;
};

FIXTURE_SETUP(session)
{
	GT_REQUIRE_DEVICE();
	self->page_size = sysconf(_SC_PAGESIZE);
	ASSERT_LT(0, gt_possible_cpus());
	self->fd = gt_open_reader();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(session)
{
	EXPECT_EQ(0, gt_close_reader(self->fd));
}

/* STATUS on @fd wrote every field of the structure, plausibly. */
static void get_status(struct __test_metadata *_metadata, int fd,
		       struct gotrace_status *st)
{
	unsigned int i;

	ASSERT_EQ(0, gt_status(fd, st));
	EXPECT_EQ(sizeof(*st), st->size);
	EXPECT_GE(GOTRACE_STATE_STOPPED, st->state);
	EXPECT_EQ(0, st->flags & ~GOTRACE_STATUS_CUT);
	EXPECT_EQ(gt_possible_cpus(), st->nr_cpus);
	EXPECT_NE(GT_JUNK32, st->format);
	EXPECT_NE(GT_JUNK32, st->max_tid);
	EXPECT_NE(GT_JUNK64, st->buffer_size);
	EXPECT_NE(GT_JUNK64, st->events);
	EXPECT_NE(GT_JUNK64, st->bytes);
	EXPECT_NE(GT_JUNK64, st->bytes_read);
	EXPECT_NE(GT_JUNK64, st->chunks_full);
	EXPECT_NE(GT_JUNK64, st->chunks_free);
	EXPECT_NE(GT_JUNK64, st->events_lost);
	EXPECT_NE(GT_JUNK64, st->sessions);
	EXPECT_NE(GT_JUNK64, st->snapshot_ns);
	EXPECT_NE(GT_JUNK32, st->snapshot_threads);
	EXPECT_EQ(0, st->reserved0);
	for (i = 0; i < ARRAY_SIZE(st->reserved); i++)
		EXPECT_EQ(0, st->reserved[i]);
}

/* Read @fd to the end; the trace must be whole and STATUS must agree. */
static void read_trace(struct __test_metadata *_metadata, int fd,
		       struct gt_trace *t, __u32 format, const char *name)
{
	struct gotrace_status st;
	struct gt_stats stats;

	ASSERT_EQ(0, gt_finish(fd, t));
	get_status(_metadata, fd, &st);
	EXPECT_EQ(GOTRACE_STATE_IDLE, st.state);
	EXPECT_EQ(t->len, st.bytes_read);
	EXPECT_EQ(t->len, st.bytes);
	if (name) {
		EXPECT_EQ(0, gt_keep_trace(t, format, &stats, name)) {
			TH_LOG("%s", stats.error);
		}
	} else {
		EXPECT_EQ(0, gt_check_trace(t, format, &stats)) {
			TH_LOG("%s", stats.error);
		}
	}
}

static int start_max_tid(int fd, __u32 max_tid)
{
	struct gotrace_start args = {
		.size = sizeof(args),
		.max_tid = max_tid,
	};

	return ioctl(fd, GOTRACE_START, &args);
}

TEST_F(session, idle)
{
	struct gotrace_status st;

	get_status(_metadata, self->fd, &st);
	EXPECT_EQ(GOTRACE_STATE_IDLE, st.state);
}

TEST_F_TIMEOUT(session, transitions, 120)
{
	struct gotrace_status idle, st1, st2, st3;
	struct gt_trace t = { 0 };
	char buf[GT_HEADER_LEN];

	get_status(_metadata, self->fd, &idle);
	ASSERT_EQ(GOTRACE_STATE_IDLE, idle.state);

	ASSERT_EQ(0, gt_start(self->fd, GOTRACE_FORMAT_DEFAULT, 0));
	get_status(_metadata, self->fd, &st1);
	EXPECT_EQ(GOTRACE_STATE_TRACING, st1.state);
	EXPECT_EQ(0, st1.flags);
	EXPECT_EQ(GOTRACE_FORMAT_1_21, st1.format);
	EXPECT_LT(0, st1.max_tid);
	EXPECT_LE(GT_MIN_BUFFER, st1.buffer_size);
	EXPECT_GE(GT_MAX_BUFFER, st1.buffer_size);
	EXPECT_EQ(0, st1.buffer_size % self->page_size);
	EXPECT_LT(0, st1.snapshot_ns);
	/* This process, its reader thread and the kernel's threads at least. */
	EXPECT_LT(2, st1.snapshot_threads);
	EXPECT_LE(GT_HEADER_LEN, st1.bytes);
	EXPECT_EQ(0, st1.bytes_read);
	EXPECT_LT(0, st1.chunks_free);
	EXPECT_EQ(0, st1.events_lost);
	EXPECT_EQ(idle.sessions + 1, st1.sessions);

	/* Events and bytes grow while the workload runs. */
	ASSERT_EQ(GT_HEADER_LEN, read(self->fd, buf, sizeof(buf)));
	ASSERT_EQ(0, gt_trace_add(&t, buf, sizeof(buf)));
	EXPECT_EQ(2000, gt_pingpong(2000, 0));
	get_status(_metadata, self->fd, &st2);
	EXPECT_EQ(GOTRACE_STATE_TRACING, st2.state);
	EXPECT_LT(st1.events, st2.events);
	EXPECT_LT(st1.bytes, st2.bytes);
	EXPECT_EQ(GT_HEADER_LEN, st2.bytes_read);
	EXPECT_EQ(0, st2.events_lost);

	/* Stopped, with the rest still to read. */
	ASSERT_EQ(0, gt_stop(self->fd));
	get_status(_metadata, self->fd, &st3);
	EXPECT_EQ(GOTRACE_STATE_STOPPED, st3.state);
	EXPECT_LE(st2.events, st3.events);
	EXPECT_LT(st2.bytes, st3.bytes);
	EXPECT_EQ(GT_HEADER_LEN, st3.bytes_read);
	EXPECT_EQ(idle.sessions + 1, st3.sessions);

	read_trace(_metadata, self->fd, &t, GOTRACE_FORMAT_DEFAULT,
		   "session-transitions");
	gt_trace_free(&t);
}

/* buffer_size is per CPU, rounded up to whole pages. */
TEST_F(session, buffer_size)
{
	const __u64 sizes[][2] = {
		{ GT_MIN_BUFFER, GT_MIN_BUFFER },
		{ GT_MIN_BUFFER + 1, GT_MIN_BUFFER + self->page_size },
		{ 64 * 1024, 64 * 1024 },
		{ 0, GT_DEFAULT_BUFFER },
	};
	struct gt_trace t = { 0 };
	struct gotrace_status st;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		ASSERT_EQ(0, gt_start(self->fd, GOTRACE_FORMAT_1_19,
				      sizes[i][0]));
		get_status(_metadata, self->fd, &st);
		EXPECT_EQ(sizes[i][1], st.buffer_size);
		read_trace(_metadata, self->fd, &t, GOTRACE_FORMAT_1_19,
			   NULL);
		gt_trace_free(&t);
	}
}

TEST_F(session, max_tid)
{
	struct gt_trace t = { 0 };
	struct gotrace_status st;

	ASSERT_EQ(0, start_max_tid(self->fd, 65536));
	get_status(_metadata, self->fd, &st);
	EXPECT_EQ(65536, st.max_tid);
	gt_msleep(10);
	get_status(_metadata, self->fd, &st);
	EXPECT_EQ(0, st.events_lost);
	read_trace(_metadata, self->fd, &t, GOTRACE_FORMAT_DEFAULT,
		   "session-max_tid");
	gt_trace_free(&t);
}

/* A stopped trace that the open reader has not finished blocks START. */
TEST_F(session, busy_until_read)
{
	struct gt_trace t = { 0 };

	ASSERT_EQ(0, gt_start(self->fd, GOTRACE_FORMAT_1_11, 0));
	ASSERT_EQ(0, gt_stop(self->fd));
	EXPECT_EQ(-1, gt_start(self->fd, GOTRACE_FORMAT_1_19, 0));
	EXPECT_EQ(EBUSY, errno);
	EXPECT_EQ(-1, gt_stop(self->fd));
	EXPECT_EQ(EINVAL, errno);
	read_trace(_metadata, self->fd, &t, GOTRACE_FORMAT_1_11,
		   "session-busy_until_read-1");
	gt_trace_free(&t);

	ASSERT_EQ(0, gt_start(self->fd, GOTRACE_FORMAT_1_19, 0));
	read_trace(_metadata, self->fd, &t, GOTRACE_FORMAT_1_19,
		   "session-busy_until_read-2");
	gt_trace_free(&t);
}

/*
 * With no reader open, START throws an unread stopped trace away; a reader
 * that opens later gets the new session from its header on.
 */
TEST_F(session, discard_unread)
{
	struct gt_trace t = { 0 };
	struct gotrace_status st;
	__u64 sessions;
	int ctl;

	close(self->fd);
	self->fd = -1;
	ctl = gt_open(O_WRONLY);
	ASSERT_LE(0, ctl);
	get_status(_metadata, ctl, &st);
	sessions = st.sessions;
	ASSERT_EQ(0, gt_start(ctl, GOTRACE_FORMAT_1_11, 0));
	gt_msleep(10);
	ASSERT_EQ(0, gt_stop(ctl));
	get_status(_metadata, ctl, &st);
	EXPECT_EQ(GOTRACE_STATE_STOPPED, st.state);

	ASSERT_EQ(0, gt_start(ctl, GOTRACE_FORMAT_1_19, 0));
	get_status(_metadata, ctl, &st);
	EXPECT_EQ(GOTRACE_STATE_TRACING, st.state);
	EXPECT_EQ(GOTRACE_FORMAT_1_19, st.format);
	EXPECT_EQ(sessions + 2, st.sessions);
	close(ctl);

	self->fd = gt_open(O_RDONLY);
	ASSERT_LE(0, self->fd);
	read_trace(_metadata, self->fd, &t, GOTRACE_FORMAT_1_19,
		   "session-discard_unread");
	gt_trace_free(&t);
}

/* 100 sessions, each read to the end; some are kept for the host. */
TEST_F_TIMEOUT(session, cycles, 900)
{
	static const __u32 formats[] = {
		GOTRACE_FORMAT_DEFAULT, GOTRACE_FORMAT_1_11,
		GOTRACE_FORMAT_1_19, GOTRACE_FORMAT_1_21,
	};
	struct gt_trace t = { 0 };
	struct gotrace_status st;
	__u64 sessions;
	char name[32];
	__u32 format;
	int i;

	get_status(_metadata, self->fd, &st);
	sessions = st.sessions;
	for (i = 0; i < 100; i++) {
		format = formats[i % ARRAY_SIZE(formats)];
		ASSERT_EQ(0, gt_start(self->fd, format, 0)) {
			TH_LOG("cycle %d", i);
		}
		gt_msleep(1);
		snprintf(name, sizeof(name), "session-cycle-%02d", i);
		read_trace(_metadata, self->fd, &t, format,
			   i % 33 ? NULL : name);
		ASSERT_LE(GT_HEADER_LEN, t.len);
		EXPECT_EQ(0, memcmp(t.data, gt_header(format), GT_HEADER_LEN));
		gt_trace_free(&t);
		ASSERT_EQ(0, gt_status(self->fd, &st));
		EXPECT_EQ(sessions + i + 1, st.sessions);
		if (!_metadata->passed)
			break;
	}
}

TEST_HARNESS_MAIN
