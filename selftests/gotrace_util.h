/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the gotrace selftests: device, recording, trace checks, module, caps. */
#ifndef GOTRACE_UTIL_H
#define GOTRACE_UTIL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <unistd.h>

#include <linux/gotrace.h>

#include "gtrace.h"

#define GT_DEV			"/dev/gotrace"
#define GT_HEADER_LEN		16
#define GT_MIN_BUFFER		(16 * 1024ULL)		/* per CPU */
#define GT_MAX_BUFFER		(1024 * 1024 * 1024ULL)	/* per CPU */
#define GT_DEFAULT_BUFFER	(2 * 1024 * 1024ULL)	/* module parameter */
#define GT_PID_MAX_LIMIT	(4 * 1024 * 1024)	/* PID_MAX_LIMIT, 64-bit */
#define GT_READ_CHUNK		(64 * 1024)
#define GT_TIMEOUT_MS		10000	/* longest wait for trace data */
#define GT_JUNK			0xa5	/* what gt_status() pre-fills */
#define GT_JUNK32		0xa5a5a5a5U
#define GT_JUNK64		0xa5a5a5a5a5a5a5a5ULL

/*
 * For FIXTURE_SETUP() in kselftest_harness.h tests. The 6.1 harness runs the
 * test body even after SKIP() in the setup, so leave the test process with
 * the status the harness reads as "skipped" (255) instead.
 */
#define GT_SKIP_TEST(fmt, ...) SKIP(_exit(255), fmt, ##__VA_ARGS__)

#define GT_REQUIRE_DEVICE() do {					\
	if (geteuid() != 0)						\
		GT_SKIP_TEST("needs root");				\
	if (access(GT_DEV, F_OK))					\
		GT_SKIP_TEST(GT_DEV " is missing: load gotrace.ko");	\
} while (0)

/* Trace bytes read from the device. */
struct gt_buf {
	unsigned char *data;
	size_t len;
	size_t cap;
};

/* What gt_check_trace() found in a trace, read with libgtrace. */
struct gt_stats {
	unsigned int version;			/* 11, 19, 21, or 22 and later */
	unsigned long count[GT_EV_COUNT];	/* events by type byte */
	unsigned long nr_ps;			/* CPUs with events */
	unsigned long nr_stacks;		/* stacks defined */
	__u64 frequency;			/* ticks per second */
	__u64 first_ts, last_ts;		/* of the earliest and latest events */
	char error[400];			/* why the trace is malformed */
};

/* What gt_check_gens() found in a Go 1.22+ trace (formats 1.22 and later). */
struct gt_gens {
	unsigned int version;		/* 22, 23, 25 or 26 */
	unsigned long events;		/* wire events, batch headers included */
	unsigned long batches;		/* all batches */
	unsigned long event_batches;	/* batches of scheduler events */
	unsigned long nr_gens;		/* whole generations: first_gen to last_gen */
	__u64 first_gen;
	__u64 last_gen;
	__u64 max_seq;			/* of a goroutine's GoStart or GoUnblock */
	char error[400];		/* why the trace is malformed */
};

/* What one goroutine did in a trace: see gt_check_goroutine(). */
struct gt_gstats {
	unsigned long starts;	/* put on a P: GoStart, GoStartLocal, GoStartLabel */
	unsigned long blocks;	/* off its P, waiting: GoSleep, GoBlock*, GoSysBlock */
	unsigned long preempts;	/* off its P, runnable: GoPreempt, GoSched */
	unsigned long ends;	/* off its P for good: GoEnd, GoStop */
	unsigned long unblocks;	/* made runnable: GoUnblock*, GoSysExit* */
	unsigned long creates;	/* GoCreate of it */
};

/* A thread's switches as the kernel counts them. */
struct gt_switches {
	unsigned long nv;	/* voluntary: it blocked */
	unsigned long niv;	/* involuntary: preempted, or yielded */
};

/* A thread that read()s the device until end of file. */
struct gt_recorder {
	int fd;
	size_t chunk;		/* bytes asked for by each read() */
	pthread_t thread;
	pid_t tid;		/* atomic: the thread's id once it runs */
	struct gt_buf trace;	/* owned by the thread until joined */
	size_t bytes;		/* atomic: bytes read so far */
	bool done;		/* atomic: the thread has finished */
	int error;		/* errno of a failed read(), or 0 at EOF */
};

/* A session recorded by a gt_recorder, as most tests run one. */
struct gt_session {
	int fd;			/* open for reading, read by rec */
	int ctl;		/* open O_WRONLY, for the ioctls */
	__u32 format;
	struct gt_recorder rec;
	bool recording;		/* rec not joined yet */
};

/* Syscall style: 0 or the ioctl's result on success, -1 and errno on error. */
int gt_dev_open(int flags);
int gt_start(int fd, __u32 format, __u64 buffer_size);
int gt_start_flags(int fd, __u32 format, __u32 flags, __u64 buffer_size);
int gt_stop(int fd);
int gt_stop_flags(int fd, __u32 flags);
int gt_status(int fd, struct gotrace_status *st);
const char *gt_header(__u32 format);
__u32 gt_format_version(__u32 format);

int gt_start_refused(int fd, struct gotrace_start *args, int err, char *why,
		     size_t len);

/*
 * In a kselftest_harness.h test: GOTRACE_START with @args must fail with
 * @err and start nothing (gt_start_refused()); @what names the case.
 */
#define GT_EXPECT_START_REFUSED(fd, args, err, what) do {			\
	char _why[160];								\
										\
	EXPECT_EQ(0, gt_start_refused(fd, args, err, _why, sizeof(_why))) {	\
		TH_LOG("%s: %s", what, _why);					\
	}									\
} while (0)

int gt_buf_add(struct gt_buf *t, const void *buf, size_t len);
void gt_buf_free(struct gt_buf *t);
int gt_read_to_eof(int fd, struct gt_buf *t, size_t chunk);
int gt_finish(int fd, struct gt_buf *t);
int gt_reset(void);
int gt_open_reader(void);
int gt_close_reader(int fd);
int gt_write_all(int fd, const void *buf, size_t len);
int gt_save_as(const struct gt_buf *t, const char *file);
int gt_save(const struct gt_buf *t, const char *name);
bool gt_format_modern(__u32 format);
int gt_check_trace(const struct gt_buf *t, __u32 format, struct gt_stats *st);
int gt_check_gens(const struct gt_buf *t, __u32 format, struct gt_gens *g);
int gt_check_goroutine(const struct gt_buf *t, __u32 format, __u64 goid,
		       struct gt_gstats *gs, struct gt_stats *st);
int gt_keep_trace(const struct gt_buf *t, __u32 format, struct gt_stats *st,
		  const char *name);
unsigned long gt_starts(const struct gt_stats *st);
unsigned long gt_wakeups(const struct gt_stats *st);

int gt_session_open(struct gt_session *s, __u32 format);
int gt_session_start(struct gt_session *s, __u32 format);
int gt_session_start_flags(struct gt_session *s, __u32 format, __u32 flags);
int gt_session_stop(struct gt_session *s, struct gt_stats *st, const char *name);
int gt_session_end(struct gt_session *s, struct gt_stats *st, const char *name);
int gt_session_close(struct gt_session *s);

int gt_recorder_start(struct gt_recorder *r, int fd, size_t chunk);
size_t gt_recorder_bytes(struct gt_recorder *r);
bool gt_recorder_done(struct gt_recorder *r);
int gt_recorder_join(struct gt_recorder *r);

int gt_interrupt_with(int sig);
int gt_possible_cpus(void);
__u64 gt_now_ms(void);
void gt_msleep(unsigned int ms);
bool gt_wait_blocked(pid_t tid, unsigned int ms);
int gt_read_switches(pid_t tid, struct gt_switches *sw);
unsigned long gt_env_ulong(const char *name, unsigned long def);
int gt_read_ulong(const char *path, unsigned long *val);
int gt_write_file(const char *path, const char *val);
int gt_write_ulong(const char *path, unsigned long val);

#define GT_CAP(cap) (1ULL << (cap))
int gt_drop_caps(__u64 caps);
int gt_run_without_caps(__u64 caps, int (*fn)(void *arg), void *arg);

int gt_load_module(const char *params);
int gt_unload_module(void);
bool gt_module_loaded(void);

#endif /* GOTRACE_UTIL_H */
