// SPDX-License-Identifier: GPL-2.0
/* /dev/gotrace as a file: the node, one reader, header, blocking, poll, EOF. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "gotrace_util.h"
#include "workload.h"

#define MISC_MAJOR 10

FIXTURE(device) {
	int fd;		/* open for reading */
};

FIXTURE_SETUP(device)
{
	GT_REQUIRE_DEVICE();
	self->fd = gt_open_reader();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(device)
{
	EXPECT_EQ(0, gt_close_reader(self->fd));
}

/* Read the rest of the session on @fd into @t, save it and check it. */
static void finish_trace(struct __test_metadata *_metadata, int fd,
			 struct gt_buf *t, __u32 format, const char *name)
{
	struct gt_stats st;

	ASSERT_EQ(0, gt_finish(fd, t));
	EXPECT_EQ(0, gt_keep_trace(t, format, &st, name)) {
		TH_LOG("%s", st.error);
	}
}

static void set_nonblock(struct __test_metadata *_metadata, int fd)
{
	int flags = fcntl(fd, F_GETFL);

	ASSERT_LE(0, flags);
	ASSERT_EQ(0, fcntl(fd, F_SETFL, flags | O_NONBLOCK));
}

TEST_F(device, node)
{
	struct stat st, fst;

	ASSERT_EQ(0, stat(GT_DEV, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(0600, st.st_mode & 07777);
	EXPECT_EQ(0, st.st_uid);
	EXPECT_EQ(MISC_MAJOR, major(st.st_rdev));
	ASSERT_EQ(0, fstat(self->fd, &fst));
	EXPECT_EQ(st.st_rdev, fst.st_rdev);

	/* A stream: no seeking. */
	EXPECT_EQ(-1, lseek(self->fd, 0, SEEK_SET));
	EXPECT_EQ(ESPIPE, errno);
}

TEST_F(device, one_reader)
{
	struct gotrace_status st;
	char c;
	int fd, ctl;

	fd = gt_dev_open(O_RDONLY);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(EBUSY, errno);
	fd = gt_dev_open(O_RDONLY | O_NONBLOCK);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(EBUSY, errno);
	fd = gt_dev_open(O_RDWR);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(EBUSY, errno);

	/* Files for the ioctls only may be open alongside the reader. */
	ctl = gt_dev_open(O_WRONLY);
	ASSERT_LE(0, ctl);
	fd = gt_dev_open(O_WRONLY);
	EXPECT_LE(0, fd);
	close(fd);
	EXPECT_EQ(-1, read(ctl, &c, 1));
	EXPECT_EQ(EBADF, errno);
	EXPECT_EQ(0, gt_status(ctl, &st));
	EXPECT_EQ(GOTRACE_STATE_IDLE, st.state);

	/* Closing the reader frees the place; O_RDWR takes it too. */
	close(self->fd);
	self->fd = gt_dev_open(O_RDWR);
	ASSERT_LE(0, self->fd);
	fd = gt_dev_open(O_RDONLY);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(EBUSY, errno);
	close(ctl);
}

TEST_F(device, control_file)
{
	struct gt_buf t = { 0 };
	struct gotrace_status st;
	char buf[GT_HEADER_LEN];
	int ctl;

	ctl = gt_dev_open(O_WRONLY);
	ASSERT_LE(0, ctl);
	ASSERT_EQ(0, gt_start(ctl, GOTRACE_FORMAT_DEFAULT, 0));
	ASSERT_EQ(GT_HEADER_LEN, read(self->fd, buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, gt_header(GOTRACE_FORMAT_DEFAULT),
			    GT_HEADER_LEN));
	ASSERT_EQ(0, gt_buf_add(&t, buf, sizeof(buf)));
	EXPECT_EQ(0, gt_status(ctl, &st));
	EXPECT_EQ(GOTRACE_STATE_TRACING, st.state);
	EXPECT_EQ(0, gt_stop(ctl));
	close(ctl);
	finish_trace(_metadata, self->fd, &t, GOTRACE_FORMAT_DEFAULT,
		     "device-control_file");
	gt_buf_free(&t);
}

TEST_F(device, nonblock)
{
	struct gt_buf t = { 0 };
	char buf[4096];
	ssize_t n;
	int i;

	set_nonblock(_metadata, self->fd);
	EXPECT_EQ(-1, read(self->fd, buf, sizeof(buf)));
	EXPECT_EQ(EAGAIN, errno);

	ASSERT_EQ(0, gt_start(self->fd, GOTRACE_FORMAT_DEFAULT, 0));
	n = read(self->fd, buf, sizeof(buf));
	ASSERT_LE(GT_HEADER_LEN, n);
	EXPECT_EQ(0, memcmp(buf, gt_header(GOTRACE_FORMAT_DEFAULT),
			    GT_HEADER_LEN));
	ASSERT_EQ(0, gt_buf_add(&t, buf, n));

	/* Batches come as they fill: the reader catches up, then waits. */
	for (i = 0; i < 1000; i++) {
		n = read(self->fd, buf, sizeof(buf));
		if (n <= 0)
			break;
		ASSERT_EQ(0, gt_buf_add(&t, buf, n));
	}
	EXPECT_EQ(-1, n);
	EXPECT_EQ(EAGAIN, errno);
	finish_trace(_metadata, self->fd, &t, GOTRACE_FORMAT_DEFAULT,
		     "device-nonblock");
	gt_buf_free(&t);
}

struct poller {
	int fd;
	pid_t tid;		/* atomic */
	bool done;		/* atomic */
	int ret;
	short revents;
	__u64 ms;		/* how long poll() took */
};

static void *poller_main(void *arg)
{
	struct poller *p = arg;
	struct pollfd pfd = { .fd = p->fd, .events = POLLIN };
	__u64 start = gt_now_ms();

	__atomic_store_n(&p->tid, gettid(), __ATOMIC_RELEASE);
	p->ret = poll(&pfd, 1, GT_TIMEOUT_MS);
	p->revents = pfd.revents;
	p->ms = gt_now_ms() - start;
	__atomic_store_n(&p->done, true, __ATOMIC_RELEASE);
	return NULL;
}

TEST_F(device, poll)
{
	struct pollfd pfd = { .fd = self->fd, .events = POLLIN };
	struct poller p = { .fd = self->fd };
	struct gt_buf t = { 0 };
	bool caught_up = false;
	pthread_t thread;
	char buf[4096];
	int i, ready;
	ssize_t n;

	set_nonblock(_metadata, self->fd);
	EXPECT_EQ(0, poll(&pfd, 1, 0));

	/* The header is there as soon as START returns. */
	ASSERT_EQ(0, gt_start(self->fd, GOTRACE_FORMAT_DEFAULT, 0));
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_EQ(POLLIN, pfd.revents & POLLIN);

	/*
	 * Poll and a non-blocking read agree: POLLIN means data. A batch may
	 * fill between the two calls, so look for a moment with none.
	 */
	for (i = 0; i < 100 && !caught_up; i++) {
		ready = poll(&pfd, 1, 0);
		n = read(self->fd, buf, sizeof(buf));
		caught_up = !ready && n == -1 && errno == EAGAIN;
		if (ready)
			EXPECT_LT(0, n);
		if (n > 0)
			ASSERT_EQ(0, gt_buf_add(&t, buf, n));
	}
	EXPECT_TRUE(caught_up);

	/* A poll() waiting for data wakes when STOP queues the footer. */
	ASSERT_EQ(0, pthread_create(&thread, NULL, poller_main, &p));
	while (!__atomic_load_n(&p.tid, __ATOMIC_ACQUIRE))
		sched_yield();
	EXPECT_TRUE(gt_wait_blocked(p.tid, 2000));
	EXPECT_FALSE(__atomic_load_n(&p.done, __ATOMIC_ACQUIRE));
	EXPECT_EQ(0, gt_stop(self->fd));
	pthread_join(thread, NULL);
	EXPECT_EQ(1, p.ret);
	EXPECT_EQ(POLLIN, p.revents & POLLIN);
	EXPECT_GT(GT_TIMEOUT_MS / 2, p.ms);
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	finish_trace(_metadata, self->fd, &t, GOTRACE_FORMAT_DEFAULT,
		     "device-poll");
	gt_buf_free(&t);
}

TEST_F(device, read_blocks_before_start)
{
	struct gt_recorder rec;
	struct gt_stats st;
	__u64 deadline;

	ASSERT_EQ(0, gt_recorder_start(&rec, self->fd, GT_READ_CHUNK));
	EXPECT_TRUE(gt_wait_blocked(rec.tid, 2000));
	gt_msleep(200);
	EXPECT_EQ(0, gt_recorder_bytes(&rec));
	EXPECT_FALSE(gt_recorder_done(&rec));

	/* START wakes the reader with the header. */
	ASSERT_EQ(0, gt_start(self->fd, GOTRACE_FORMAT_DEFAULT, 0));
	deadline = gt_now_ms() + GT_TIMEOUT_MS;
	while (gt_recorder_bytes(&rec) < GT_HEADER_LEN &&
	       gt_now_ms() < deadline)
		gt_msleep(1);
	EXPECT_LE(GT_HEADER_LEN, gt_recorder_bytes(&rec));
	EXPECT_EQ(0, gt_stop(self->fd));
	ASSERT_EQ(0, gt_recorder_join(&rec));
	EXPECT_EQ(0, gt_keep_trace(&rec.trace, GOTRACE_FORMAT_DEFAULT, &st,
				   "device-read_blocks_before_start")) {
		TH_LOG("%s", st.error);
	}
	gt_buf_free(&rec.trace);
}

/*
 * The reader is woken when a quarter of a CPU's buffer is full, but a blocked
 * read() returns full batches within about a second: with the default 2 MiB
 * per CPU, a few KiB of events reach a reader that never wakes on its own.
 */
TEST_F(device, read_streams_below_wake_mark)
{
	struct gotrace_status st;
	struct gt_recorder rec;
	struct gt_stats stats;
	__u64 deadline, got_ms = 0, start;

	ASSERT_EQ(0, gt_recorder_start(&rec, self->fd, GT_READ_CHUNK));
	ASSERT_EQ(0, gt_start(self->fd, GOTRACE_FORMAT_DEFAULT, 0));
	ASSERT_EQ(0, gt_status(self->fd, &st));
	ASSERT_LE(2ULL << 20, st.buffer_size);

	/* 16 KiB of events: some CPU has filled and committed a 4 KiB batch. */
	deadline = gt_now_ms() + GT_TIMEOUT_MS;
	do {
		ASSERT_LE(0, gt_pingpong(100, 1000));
		ASSERT_EQ(0, gt_status(self->fd, &st));
	} while (st.bytes < 16384 && gt_now_ms() < deadline);
	ASSERT_LE(16384, st.bytes);
	EXPECT_GT(st.buffer_size / 4 / 2, st.bytes);

	/* The blocked read returns it, while the session still records. */
	start = gt_now_ms();
	while (gt_recorder_bytes(&rec) <= GT_HEADER_LEN &&
	       gt_now_ms() < start + 3000)
		gt_msleep(10);
	if (gt_recorder_bytes(&rec) > GT_HEADER_LEN)
		got_ms = gt_now_ms() - start;
	EXPECT_FALSE(gt_recorder_done(&rec));
	EXPECT_LT(GT_HEADER_LEN, gt_recorder_bytes(&rec));
	ASSERT_EQ(0, gt_status(self->fd, &st));
	EXPECT_EQ(GOTRACE_STATE_TRACING, st.state);
	TH_LOG("batches read %llu ms after the 16 KiB mark", got_ms);

	EXPECT_EQ(0, gt_stop(self->fd));
	ASSERT_EQ(0, gt_recorder_join(&rec));
	ASSERT_EQ(0, gt_status(self->fd, &st));
	EXPECT_EQ(0, st.events_lost);
	EXPECT_EQ(rec.trace.len, st.bytes);
	EXPECT_EQ(0, gt_keep_trace(&rec.trace, GOTRACE_FORMAT_DEFAULT, &stats,
				   "device-read_streams")) {
		TH_LOG("%s", stats.error);
	}
	gt_buf_free(&rec.trace);
}

TEST_F(device, eof_after_stop)
{
	struct gt_buf t = { 0 };
	struct gotrace_status st;
	char buf[GT_HEADER_LEN];
	struct gt_stats stats;

	ASSERT_EQ(0, gt_start(self->fd, GOTRACE_FORMAT_DEFAULT, 0));
	ASSERT_EQ(GT_HEADER_LEN, read(self->fd, buf, sizeof(buf)));
	ASSERT_EQ(0, gt_buf_add(&t, buf, sizeof(buf)));
	ASSERT_EQ(0, gt_stop(self->fd));
	ASSERT_EQ(0, gt_status(self->fd, &st));
	EXPECT_EQ(GOTRACE_STATE_STOPPED, st.state);
	EXPECT_EQ(GT_HEADER_LEN, st.bytes_read);
	EXPECT_LT(GT_HEADER_LEN, st.bytes);

	/* The rest, the footer, then read() returns 0. */
	ASSERT_EQ(0, gt_read_to_eof(self->fd, &t, GT_READ_CHUNK));
	ASSERT_EQ(0, gt_status(self->fd, &st));
	EXPECT_EQ(GOTRACE_STATE_IDLE, st.state);
	EXPECT_EQ(t.len, st.bytes_read);
	EXPECT_EQ(t.len, st.bytes);

	/* Past the end, the reader waits for the next session. */
	set_nonblock(_metadata, self->fd);
	EXPECT_EQ(-1, read(self->fd, buf, sizeof(buf)));
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_EQ(0, gt_keep_trace(&t, GOTRACE_FORMAT_DEFAULT, &stats,
				   "device-eof_after_stop")) {
		TH_LOG("%s", stats.error);
	}
	gt_buf_free(&t);
}

TEST_F(device, new_trace_after_eof)
{
	static const __u32 formats[] = {
		GOTRACE_FORMAT_1_19, GOTRACE_FORMAT_1_11,
		GOTRACE_FORMAT_DEFAULT,
	};
	struct gt_buf t = { 0 };
	struct gotrace_status st;
	char name[64];
	__u64 sessions;
	unsigned int i;

	ASSERT_EQ(0, gt_status(self->fd, &st));
	sessions = st.sessions;
	for (i = 0; i < ARRAY_SIZE(formats); i++) {
		ASSERT_EQ(0, gt_start(self->fd, formats[i], 0));
		snprintf(name, sizeof(name), "device-new_trace_after_eof-%u",
			 i);
		finish_trace(_metadata, self->fd, &t, formats[i], name);
		ASSERT_LE(GT_HEADER_LEN, t.len);
		EXPECT_EQ(0, memcmp(t.data, gt_header(formats[i]),
				    GT_HEADER_LEN));
		gt_buf_free(&t);
		ASSERT_EQ(0, gt_status(self->fd, &st));
		EXPECT_EQ(sessions + i + 1, st.sessions);
	}
}

/* 7-byte reads split every event and batch: the bytes must still add up. */
TEST_F_TIMEOUT(device, small_reads, 300)
{
	struct gotrace_status st;
	struct gt_recorder rec;
	struct gt_stats stats;

	ASSERT_EQ(0, gt_start(self->fd, GOTRACE_FORMAT_DEFAULT, 0));
	ASSERT_EQ(0, gt_recorder_start(&rec, self->fd, 7));
	EXPECT_EQ(2000, gt_pingpong(2000, 0));
	EXPECT_EQ(0, gt_stop(self->fd));
	ASSERT_EQ(0, gt_recorder_join(&rec));
	ASSERT_EQ(0, gt_status(self->fd, &st));
	EXPECT_EQ(GOTRACE_STATE_IDLE, st.state);
	EXPECT_EQ(rec.trace.len, st.bytes_read);
	EXPECT_EQ(rec.trace.len, st.bytes);
	EXPECT_EQ(0, gt_keep_trace(&rec.trace, GOTRACE_FORMAT_DEFAULT, &stats,
				   "device-small_reads")) {
		TH_LOG("%s", stats.error);
	}
	gt_buf_free(&rec.trace);
}

/*
 * O_NONBLOCK never waits, not even for another read() of the same file
 * that sleeps until a session starts; that read still gets the trace.
 */
TEST_F(device, nonblock_while_read_waits)
{
	struct gt_recorder rec;
	struct gt_stats st;
	char buf[64];
	__u64 start, ms;
	int flags;
	ssize_t n;

	ASSERT_EQ(0, gt_interrupt_with(SIGALRM));
	ASSERT_EQ(0, gt_recorder_start(&rec, self->fd, GT_READ_CHUNK));
	ASSERT_TRUE(gt_wait_blocked(rec.tid, 2000));
	flags = fcntl(self->fd, F_GETFL);
	ASSERT_LE(0, flags);
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, flags | O_NONBLOCK));
	alarm(3);		/* if it waits: EINTR, not a hung test */
	start = gt_now_ms();
	n = read(self->fd, buf, sizeof(buf));
	ms = gt_now_ms() - start;
	alarm(0);
	EXPECT_EQ(-1, n);
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_GT(1000, ms);
	TH_LOG("O_NONBLOCK read returned after %llu ms", ms);
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, flags));

	/* The waiting read() gets the whole trace, from its header on. */
	ASSERT_EQ(0, gt_start(self->fd, GOTRACE_FORMAT_DEFAULT, 0));
	EXPECT_EQ(100, gt_pingpong(100, 0));
	EXPECT_EQ(0, gt_stop_flags(self->fd, 0));
	ASSERT_EQ(0, gt_recorder_join(&rec));
	EXPECT_EQ(0, gt_keep_trace(&rec.trace, GOTRACE_FORMAT_DEFAULT, &st,
				   "device-nonblock_while_read_waits")) {
		TH_LOG("%s", st.error);
	}
	gt_buf_free(&rec.trace);
}

/*
 * A reader that closes the device before reading anything leaves the whole
 * trace to the next one; one that closes after part of it leaves nothing
 * that makes a valid file: the next reader gets EPIPE, until a new session
 * starts and is read from its header.
 */
TEST_F(device, reopen_after_partial_read)
{
	struct pollfd pfd = { .events = POLLIN };
	struct gotrace_status st;
	struct gt_buf t = { 0 };
	char buf[GT_HEADER_LEN];

	ASSERT_EQ(0, gt_start(self->fd, GOTRACE_FORMAT_DEFAULT, 0));
	close(self->fd);
	self->fd = gt_dev_open(O_RDONLY);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(5, read(self->fd, buf, 5));
	EXPECT_EQ(0, memcmp(buf, gt_header(GOTRACE_FORMAT_DEFAULT), 5));
	close(self->fd);

	self->fd = gt_dev_open(O_RDONLY);
	ASSERT_LE(0, self->fd);
	EXPECT_EQ(-1, read(self->fd, buf, sizeof(buf)));
	EXPECT_EQ(EPIPE, errno);
	pfd.fd = self->fd;
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_EQ(POLLIN, pfd.revents & POLLIN);
	ASSERT_EQ(0, gt_status(self->fd, &st));
	EXPECT_EQ(GOTRACE_STATE_TRACING, st.state);
	EXPECT_EQ(5, st.bytes_read);

	/* Stopped, it stays unreadable (a stop does not wait for it); a start replaces it. */
	ASSERT_EQ(0, gt_stop_flags(self->fd, 0));
	EXPECT_EQ(-1, read(self->fd, buf, sizeof(buf)));
	EXPECT_EQ(EPIPE, errno);
	ASSERT_EQ(0, gt_start(self->fd, GOTRACE_FORMAT_DEFAULT, 0));
	finish_trace(_metadata, self->fd, &t, GOTRACE_FORMAT_DEFAULT,
		     "device-reopen_after_partial_read");
	ASSERT_LE(GT_HEADER_LEN, t.len);
	EXPECT_EQ(0, memcmp(t.data, gt_header(GOTRACE_FORMAT_DEFAULT),
			    GT_HEADER_LEN));
	gt_buf_free(&t);
}

/*
 * As Go's StopTrace, GOTRACE_STOP returns once the reader has read the
 * whole trace: the status then says so.
 */
TEST_F(device, stop_waits_for_reader)
{
	struct gotrace_status st;
	struct gt_recorder rec;
	struct gt_stats stats;

	ASSERT_EQ(0, gt_start(self->fd, GOTRACE_FORMAT_DEFAULT, 0));
	/* Small reads: the reader has work left when the stop comes. */
	ASSERT_EQ(0, gt_recorder_start(&rec, self->fd, 64));
	EXPECT_EQ(2000, gt_pingpong(2000, 0));
	ASSERT_EQ(0, gt_stop_flags(self->fd, 0));
	ASSERT_EQ(0, gt_status(self->fd, &st));
	EXPECT_EQ(GOTRACE_STATE_IDLE, st.state);
	EXPECT_EQ(st.bytes, st.bytes_read);
	ASSERT_EQ(0, gt_recorder_join(&rec));
	EXPECT_EQ(rec.trace.len, st.bytes);
	EXPECT_EQ(0, gt_keep_trace(&rec.trace, GOTRACE_FORMAT_DEFAULT, &stats,
				   "device-stop_waits_for_reader")) {
		TH_LOG("%s", stats.error);
	}
	gt_buf_free(&rec.trace);
}

struct stopper {
	int fd;
	pid_t tid;		/* atomic */
	int ret;
	int err;
};

static void *stopper_main(void *arg)
{
	struct stopper *p = arg;

	__atomic_store_n(&p->tid, gettid(), __ATOMIC_RELEASE);
	p->ret = gt_stop_flags(p->fd, 0);
	p->err = errno;
	return NULL;
}

/*
 * A reader that does not read keeps a waiting stop waiting; a signal ends
 * the wait with EINTR, and the trace is stopped all the same. With
 * GOTRACE_STOP_NOWAIT, or with no reader, a stop returns at once.
 */
TEST_F(device, stop_wait_interrupted)
{
	struct stopper p = { .fd = self->fd };
	struct gotrace_status st;
	struct gt_buf t = { 0 };
	pthread_t thread;
	int ctl;

	ASSERT_EQ(0, gt_interrupt_with(SIGUSR1));
	ASSERT_EQ(0, gt_start(self->fd, GOTRACE_FORMAT_DEFAULT, 0));
	ASSERT_EQ(0, pthread_create(&thread, NULL, stopper_main, &p));
	while (!__atomic_load_n(&p.tid, __ATOMIC_ACQUIRE))
		sched_yield();
	EXPECT_TRUE(gt_wait_blocked(p.tid, 2000));
	ASSERT_EQ(0, pthread_kill(thread, SIGUSR1));
	pthread_join(thread, NULL);
	EXPECT_EQ(-1, p.ret);
	EXPECT_EQ(EINTR, p.err);
	ASSERT_EQ(0, gt_status(self->fd, &st));
	EXPECT_EQ(GOTRACE_STATE_STOPPED, st.state);
	finish_trace(_metadata, self->fd, &t, GOTRACE_FORMAT_DEFAULT,
		     "device-stop_wait_interrupted");
	gt_buf_free(&t);

	ASSERT_EQ(0, gt_start(self->fd, GOTRACE_FORMAT_DEFAULT, 0));
	EXPECT_EQ(0, gt_stop_flags(self->fd, GOTRACE_STOP_NOWAIT));
	ASSERT_EQ(0, gt_status(self->fd, &st));
	EXPECT_EQ(GOTRACE_STATE_STOPPED, st.state);

	/* No reader open: nothing to wait for. */
	ctl = gt_dev_open(O_WRONLY);
	ASSERT_LE(0, ctl);
	close(self->fd);
	ASSERT_EQ(0, gt_start(ctl, GOTRACE_FORMAT_DEFAULT, 0));
	EXPECT_EQ(0, gt_stop_flags(ctl, 0));
	close(ctl);
	self->fd = gt_open_reader();
	ASSERT_LE(0, self->fd);
}

FIXTURE(header) {
	int fd;		/* open for reading */
};

FIXTURE_VARIANT(header) {
	__u32 format;
	const char *name;
};

FIXTURE_VARIANT_ADD(header, default) {
	.format = GOTRACE_FORMAT_DEFAULT,
	.name = "default",
};

FIXTURE_VARIANT_ADD(header, go1_11) {
	.format = GOTRACE_FORMAT_1_11,
	.name = "1.11",
};

FIXTURE_VARIANT_ADD(header, go1_19) {
	.format = GOTRACE_FORMAT_1_19,
	.name = "1.19",
};

FIXTURE_VARIANT_ADD(header, go1_21) {
	.format = GOTRACE_FORMAT_1_21,
	.name = "1.21",
};

FIXTURE_VARIANT_ADD(header, go1_22) {
	.format = GOTRACE_FORMAT_1_22,
	.name = "1.22",
};

FIXTURE_VARIANT_ADD(header, go1_23) {
	.format = GOTRACE_FORMAT_1_23,
	.name = "1.23",
};

FIXTURE_VARIANT_ADD(header, go1_25) {
	.format = GOTRACE_FORMAT_1_25,
	.name = "1.25",
};

FIXTURE_VARIANT_ADD(header, go1_26) {
	.format = GOTRACE_FORMAT_1_26,
	.name = "1.26",
};

FIXTURE_SETUP(header)
{
	GT_REQUIRE_DEVICE();
	self->fd = gt_open_reader();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(header)
{
	EXPECT_EQ(0, gt_close_reader(self->fd));
}

TEST_F(header, first_read)
{
	struct gt_buf t = { 0 };
	struct gotrace_status st;
	char buf[GT_HEADER_LEN];
	char name[64];

	ASSERT_EQ(0, gt_start(self->fd, variant->format, 0));
	ASSERT_EQ(GT_HEADER_LEN, read(self->fd, buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, gt_header(variant->format), GT_HEADER_LEN)) {
		TH_LOG("header \"%.13s\"", buf);
	}
	ASSERT_EQ(0, gt_buf_add(&t, buf, sizeof(buf)));
	ASSERT_EQ(0, gt_status(self->fd, &st));
	EXPECT_EQ(gt_format_version(variant->format), st.format);
	/* Generations started: the first at start, none in the old formats. */
	if (gt_format_modern(variant->format)) {
		EXPECT_LE(1, st.generations);
	} else {
		EXPECT_EQ(0, st.generations);
	}
	snprintf(name, sizeof(name), "device-header-%s", variant->name);
	finish_trace(_metadata, self->fd, &t, variant->format, name);
	gt_buf_free(&t);
}

TEST_HARNESS_MAIN
