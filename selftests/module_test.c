// SPDX-License-Identifier: GPL-2.0
/* Loading and unloading gotrace.ko: open files pin it, sessions do not. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "gotrace_util.h"

#define REFCNT "/sys/module/gotrace/refcnt"

FIXTURE(module) {
	pid_t reader;	/* child blocked reading the device, or 0 */
	int ctl;	/* open O_WRONLY, or -1 */
};

FIXTURE_SETUP(module)
{
	GT_REQUIRE_DEVICE();
	if (!getenv("GOTRACE_KO"))
		GT_SKIP_TEST("GOTRACE_KO is not set");
	self->ctl = -1;
	ASSERT_EQ(0, gt_reset());
}

static void kill_reader(pid_t *reader)
{
	if (*reader > 0) {
		kill(*reader, SIGKILL);
		waitpid(*reader, NULL, 0);
	}
	*reader = 0;
}

/* Whatever happened, leave the module loaded for the tests that follow. */
FIXTURE_TEARDOWN(module)
{
	kill_reader(&self->reader);
	if (self->ctl >= 0)
		close(self->ctl);
	if (!gt_module_loaded())
		EXPECT_EQ(0, gt_load_module(""));
}

/*
 * Fork a child that opens the device and reads it until killed; return
 * once it sleeps in read() (with the module pinned by its file).
 */
static void fork_reader(struct __test_metadata *_metadata, pid_t *reader)
{
	static char buf[GT_READ_CHUNK];
	__u64 deadline = gt_now_ms() + GT_TIMEOUT_MS;
	unsigned long pins, refcnt;
	int fd;

	ASSERT_EQ(0, gt_read_ulong(REFCNT, &pins));
	refcnt = pins;
	*reader = fork();
	ASSERT_LE(0, *reader);
	if (!*reader) {
		fd = gt_dev_open(O_RDONLY);
		while (fd >= 0 && read(fd, buf, sizeof(buf)) > 0)
			;
		_exit(1);
	}
	while (refcnt == pins && gt_now_ms() < deadline) {
		gt_msleep(1);
		ASSERT_EQ(0, gt_read_ulong(REFCNT, &refcnt));
	}
	ASSERT_EQ(pins + 1, refcnt);
	ASSERT_TRUE(gt_wait_blocked(*reader, 2000));
}

/*
 * Unloading fails while any file is open, and disturbs nothing. With
 * O_NONBLOCK, delete_module() reports a module in use as EWOULDBLOCK.
 */
static void check_pinned(struct __test_metadata *_metadata, pid_t reader)
{
	EXPECT_EQ(-1, gt_unload_module());
	EXPECT_EQ(EWOULDBLOCK, errno);
	EXPECT_TRUE(gt_module_loaded());
	EXPECT_EQ(0, access(GT_DEV, F_OK));
	if (reader) {
		EXPECT_EQ(0, waitpid(reader, NULL, WNOHANG));
		EXPECT_TRUE(gt_wait_blocked(reader, 0));
	}
}

/* Unload, check that it is all gone, load again: a fresh, idle device. */
static void reload(struct __test_metadata *_metadata, const char *params)
{
	struct gotrace_status st;
	int fd;

	ASSERT_EQ(0, gt_unload_module());
	EXPECT_FALSE(gt_module_loaded());
	EXPECT_EQ(-1, access(GT_DEV, F_OK));
	ASSERT_EQ(0, gt_load_module(params));
	fd = gt_dev_open(O_WRONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, gt_status(fd, &st));
	EXPECT_EQ(GOTRACE_STATE_IDLE, st.state);
	EXPECT_EQ(0, st.sessions);
	close(fd);
}

TEST_F(module, load_twice)
{
	struct gotrace_status st;
	int fd;

	EXPECT_EQ(-1, gt_load_module(""));
	EXPECT_EQ(EEXIST, errno);
	fd = gt_dev_open(O_WRONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, gt_status(fd, &st));
	close(fd);
}

TEST_F(module, unload_with_blocked_reader)
{
	fork_reader(_metadata, &self->reader);
	check_pinned(_metadata, self->reader);

	/* The read sleeps interruptibly: SIGKILL ends it and frees the file. */
	kill_reader(&self->reader);
	reload(_metadata, "");
}

TEST_F(module, unload_while_tracing)
{
	self->ctl = gt_dev_open(O_WRONLY);
	ASSERT_LE(0, self->ctl);
	ASSERT_EQ(0, gt_start(self->ctl, GOTRACE_FORMAT_DEFAULT, 0));
	fork_reader(_metadata, &self->reader);
	check_pinned(_metadata, self->reader);
	kill_reader(&self->reader);
	check_pinned(_metadata, self->reader);

	/* No file open: unloading stops the session and frees everything. */
	close(self->ctl);
	self->ctl = -1;
	reload(_metadata, "");
}

TEST_F(module, unload_unread_trace)
{
	self->ctl = gt_dev_open(O_WRONLY);
	ASSERT_LE(0, self->ctl);
	ASSERT_EQ(0, gt_start(self->ctl, GOTRACE_FORMAT_DEFAULT, 0));
	gt_msleep(10);
	ASSERT_EQ(0, gt_stop(self->ctl));
	close(self->ctl);
	self->ctl = -1;
	reload(_metadata, "");
}

/* The module parameters are the defaults of GOTRACE_START. */
TEST_F(module, parameters)
{
	struct gt_buf t = { 0 };
	struct gotrace_status st;
	struct gt_stats stats;
	int fd;

	reload(_metadata, "buffer_size=1048576 max_tid=100000");
	fd = gt_open_reader();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, gt_start(fd, GOTRACE_FORMAT_DEFAULT, 0));
	EXPECT_EQ(0, gt_status(fd, &st));
	EXPECT_EQ(1024 * 1024, st.buffer_size);
	EXPECT_EQ(100000, st.max_tid);
	EXPECT_EQ(0, gt_finish(fd, &t));
	EXPECT_EQ(0, gt_keep_trace(&t, GOTRACE_FORMAT_DEFAULT, &stats,
				   "module-parameters")) {
		TH_LOG("%s", stats.error);
	}
	gt_buf_free(&t);
	close(fd);

	reload(_metadata, "");
	fd = gt_dev_open(O_WRONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, gt_start(fd, GOTRACE_FORMAT_DEFAULT, 0));
	EXPECT_EQ(0, gt_status(fd, &st));
	EXPECT_EQ(GT_DEFAULT_BUFFER, st.buffer_size);
	EXPECT_EQ(0, gt_stop(fd));
	close(fd);
	EXPECT_EQ(0, gt_reset());
}

TEST_HARNESS_MAIN
