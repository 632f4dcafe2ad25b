// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace sessions: GOTRACE_STATUS through their life, restarts, cycles.
 *
 * GOTRACE_SESSION_CYCLES sets the sessions of the cycles test (default 100;
 * the debug kernel's run asks for fewer: its checkers need each path, not
 * the volume).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "gotrace_util.h"
#include "workload.h"

#define SNAPSHOT_ROUNDS	20	/* sessions of snapshot_sleeper */

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
	EXPECT_EQ(0, st->flags &
		  ~(GOTRACE_STATUS_CUT | GOTRACE_STATUS_CLOCK_UNSTABLE));
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
	EXPECT_GE(GOTRACE_CLOCK_TSC, st->clock);
	EXPECT_NE(GT_JUNK64, st->generations);
	for (i = 0; i < ARRAY_SIZE(st->reserved); i++)
		EXPECT_EQ(0, st->reserved[i]);
}

/* Read @fd to the end; the trace must be whole and STATUS must agree. */
static void read_trace(struct __test_metadata *_metadata, int fd,
		       struct gt_buf *t, __u32 format, const char *name)
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
	struct gt_buf t = { 0 };
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
	ASSERT_EQ(0, gt_buf_add(&t, buf, sizeof(buf)));
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
	gt_buf_free(&t);
}

/* A session of @format with generations every @period_ns (0: the default). */
static int start_gens(int fd, __u32 format, __u64 period_ns, __u64 gen_bytes)
{
	struct gotrace_start args = {
		.size = sizeof(args),
		.format = format,
		.gen_period_ns = period_ns,
		.gen_bytes = gen_bytes,
	};

	return ioctl(fd, GOTRACE_START, &args);
}

/*
 * Each format with generations: STATUS says which and counts generations
 * (1 at start, more as periods pass, none after stop); the trace is whole,
 * with exactly those generations.
 */
TEST_F_TIMEOUT(session, generations, 120)
{
	static const __u32 formats[] = {
		GOTRACE_FORMAT_1_22, GOTRACE_FORMAT_1_23, GOTRACE_FORMAT_1_25,
		GOTRACE_FORMAT_1_26,
	};
	struct gotrace_status st1, st2, st3, idle;
	struct gt_buf t = { 0 };
	struct gt_gens g;
	unsigned int i;
	__u64 t0, ms;
	char name[64];

	for (i = 0; i < ARRAY_SIZE(formats); i++) {
		t0 = gt_now_ms();
		ASSERT_EQ(0, start_gens(self->fd, formats[i], 100000000ULL, 0));
		get_status(_metadata, self->fd, &st1);
		ms = gt_now_ms() - t0;
		EXPECT_EQ(GOTRACE_STATE_TRACING, st1.state);
		EXPECT_EQ(formats[i], st1.format);
		/* The first, and one more per period a stalled vCPU let pass. */
		EXPECT_LE(1, st1.generations);
		EXPECT_GE(2 + ms / 100, st1.generations) {
			TH_LOG("%llu generations %llu ms after start",
			       (unsigned long long)st1.generations,
			       (unsigned long long)ms);
		}
		EXPECT_EQ(0, st1.events_lost);

		/* 100 ms periods: three more at least in 450 ms. */
		EXPECT_EQ(1000, gt_pingpong(1000, 0));
		gt_msleep(450);
		get_status(_metadata, self->fd, &st2);
		EXPECT_LE(4, st2.generations) {
			TH_LOG("format %u: %llu generations after 450 ms of 100 ms periods",
			       formats[i], (unsigned long long)st2.generations);
		}
		/* After stop no generation starts any more. */
		ASSERT_EQ(0, gt_stop(self->fd));
		get_status(_metadata, self->fd, &st3);
		EXPECT_EQ(GOTRACE_STATE_STOPPED, st3.state);
		EXPECT_LE(st2.generations, st3.generations);
		gt_msleep(250);
		get_status(_metadata, self->fd, &idle);
		EXPECT_EQ(st3.generations, idle.generations);

		snprintf(name, sizeof(name), "session-generations-1.%u", formats[i]);
		read_trace(_metadata, self->fd, &t, formats[i], name);
		EXPECT_EQ(0, gt_check_gens(&t, formats[i], &g)) {
			TH_LOG("%s", g.error);
		}
		EXPECT_EQ(st3.generations, g.nr_gens);
		EXPECT_EQ(st3.generations, g.last_gen);
		EXPECT_LT(0, g.event_batches);
		gt_buf_free(&t);
	}

	/* An old format after them counts no generation. */
	ASSERT_EQ(0, gt_start(self->fd, GOTRACE_FORMAT_1_21, 0));
	get_status(_metadata, self->fd, &st1);
	EXPECT_EQ(0, st1.generations);
	read_trace(_metadata, self->fd, &t, GOTRACE_FORMAT_1_21, NULL);
	gt_buf_free(&t);
}

/* gen_bytes: a CPU writing that much starts a generation before the period ends. */
TEST_F_TIMEOUT(session, generation_bytes, 300)
{
	struct gotrace_status st;
	struct gt_buf t = { 0 };
	struct gt_gens g;

	ASSERT_EQ(0, start_gens(self->fd, GOTRACE_FORMAT_1_26,
				GOTRACE_GEN_PERIOD_MAX_NS, GOTRACE_GEN_BYTES_MIN));
	/*
	 * Far more than 64 KiB of events on some CPU (a minute at most: the
	 * debug kernel's guest on a loaded host took over 2); an hour's
	 * period never ends.
	 */
	EXPECT_LT(5000, gt_pingpong(20000, 60000));
	gt_msleep(100);
	get_status(_metadata, self->fd, &st);
	EXPECT_LE(2, st.generations) {
		TH_LOG("%llu bytes written, %llu generations",
		       (unsigned long long)st.bytes, (unsigned long long)st.generations);
	}
	EXPECT_EQ(0, st.events_lost);
	ASSERT_EQ(0, gt_stop(self->fd));
	get_status(_metadata, self->fd, &st);
	read_trace(_metadata, self->fd, &t, GOTRACE_FORMAT_1_26,
		   "session-generation_bytes");
	EXPECT_EQ(0, gt_check_gens(&t, GOTRACE_FORMAT_1_26, &g)) {
		TH_LOG("%s", g.error);
	}
	EXPECT_EQ(st.generations, g.nr_gens);
	gt_buf_free(&t);
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
	struct gt_buf t = { 0 };
	struct gotrace_status st;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		ASSERT_EQ(0, gt_start(self->fd, GOTRACE_FORMAT_1_19,
				      sizes[i][0]));
		get_status(_metadata, self->fd, &st);
		EXPECT_EQ(sizes[i][1], st.buffer_size);
		read_trace(_metadata, self->fd, &t, GOTRACE_FORMAT_1_19,
			   NULL);
		gt_buf_free(&t);
	}
}

TEST_F(session, max_tid)
{
	struct gt_buf t = { 0 };
	struct gotrace_status st;

	ASSERT_EQ(0, start_max_tid(self->fd, 65536));
	get_status(_metadata, self->fd, &st);
	EXPECT_EQ(65536, st.max_tid);
	gt_msleep(10);
	get_status(_metadata, self->fd, &st);
	EXPECT_EQ(0, st.events_lost);
	read_trace(_metadata, self->fd, &t, GOTRACE_FORMAT_DEFAULT,
		   "session-max_tid");
	gt_buf_free(&t);
}

/* A stopped trace that the open reader has not finished blocks START. */
TEST_F(session, busy_until_read)
{
	struct gt_buf t = { 0 };

	ASSERT_EQ(0, gt_start(self->fd, GOTRACE_FORMAT_1_11, 0));
	ASSERT_EQ(0, gt_stop(self->fd));
	EXPECT_EQ(-1, gt_start(self->fd, GOTRACE_FORMAT_1_19, 0));
	EXPECT_EQ(EBUSY, errno);
	EXPECT_EQ(-1, gt_stop(self->fd));
	EXPECT_EQ(EINVAL, errno);
	read_trace(_metadata, self->fd, &t, GOTRACE_FORMAT_1_11,
		   "session-busy_until_read-1");
	gt_buf_free(&t);

	ASSERT_EQ(0, gt_start(self->fd, GOTRACE_FORMAT_1_19, 0));
	read_trace(_metadata, self->fd, &t, GOTRACE_FORMAT_1_19,
		   "session-busy_until_read-2");
	gt_buf_free(&t);
}

/*
 * With no reader open, START throws an unread stopped trace away; a reader
 * that opens later gets the new session from its header on.
 */
TEST_F(session, discard_unread)
{
	struct gt_buf t = { 0 };
	struct gotrace_status st;
	__u64 sessions;
	int ctl;

	close(self->fd);
	self->fd = -1;
	ctl = gt_dev_open(O_WRONLY);
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

	self->fd = gt_dev_open(O_RDONLY);
	ASSERT_LE(0, self->fd);
	read_trace(_metadata, self->fd, &t, GOTRACE_FORMAT_1_19,
		   "session-discard_unread");
	gt_buf_free(&t);
}

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * A session on @flags' clock: its trace's time span, converted by its
 * Frequency as Go converts it, lies between the CLOCK_MONOTONIC times seen
 * inside and outside the START and STOP calls. Returns the clock, or -1.
 */
static int clock_session(struct __test_metadata *_metadata, int fd,
			 __u32 flags, const char *name)
{
	__u64 outer0, inner0, inner1, outer1, span, tick;
	struct gt_buf t = { 0 };
	struct gotrace_status st;
	struct gt_stats stats;

	outer0 = now_ns();
	if (gt_start_flags(fd, GOTRACE_FORMAT_DEFAULT, flags, 0))
		return -1;
	inner0 = now_ns();
	EXPECT_EQ(200, gt_pingpong(200, 0));
	gt_msleep(100);
	get_status(_metadata, fd, &st);
	inner1 = now_ns();
	EXPECT_EQ(0, gt_stop(fd));
	outer1 = now_ns();
	EXPECT_EQ(0, st.events_lost);

	EXPECT_EQ(0, gt_finish(fd, &t));
	EXPECT_EQ(0, gt_keep_trace(&t, GOTRACE_FORMAT_DEFAULT, &stats, name)) {
		TH_LOG("%s", stats.error);
	}
	gt_buf_free(&t);
	if (!stats.frequency)
		return -1;
	/* A tick: 64 ns of CLOCK_MONOTONIC, or 64 to 128 ns of TSC cycles. */
	if (st.clock == GOTRACE_CLOCK_MONO)
		EXPECT_EQ(1000000000ULL / 64, stats.frequency);
	EXPECT_GE(1000000000ULL / 64, stats.frequency);
	EXPECT_LT(1000000000ULL / 128, stats.frequency);
	tick = 1000000000ULL / stats.frequency + 1;
	span = (stats.last_ts - stats.first_ts) * 1000000000ULL / stats.frequency;
	EXPECT_LE(inner1 - inner0, span + 2 * tick);
	EXPECT_GE(outer1 - outer0 + 2 * tick, span);
	TH_LOG("clock %u, %llu ticks/s: trace spans %llu us, inside %llu..%llu us",
	       st.clock, (unsigned long long)stats.frequency,
	       (unsigned long long)span / 1000,
	       (unsigned long long)(inner1 - inner0) / 1000,
	       (unsigned long long)(outer1 - outer0) / 1000);
	return st.clock;
}

/* syslog(2) actions; glibc names none of them. */
#define SYSLOG_ACTION_READ_ALL		3
#define SYSLOG_ACTION_SIZE_BUFFER	10

/* Whether the kernel's log says it marked the TSC unstable. */
static bool tsc_marked_unstable(void)
{
	int len = klogctl(SYSLOG_ACTION_SIZE_BUFFER, NULL, 0);
	bool marked = false;
	char *buf;

	if (len <= 0)
		return false;
	buf = malloc(len + 1);
	if (!buf)
		return false;
	len = klogctl(SYSLOG_ACTION_READ_ALL, buf, len);
	if (len > 0) {
		buf[len] = '\0';
		marked = strstr(buf, "Marking TSC unstable");
	}
	free(buf);
	return marked;
}

/*
 * The clock: by default an invariant TSC the kernel trusts, else
 * CLOCK_MONOTONIC; either one on request. A TSC the kernel has marked
 * unstable is used only on request, and the status says so.
 */
TEST_F_TIMEOUT(session, clocks, 120)
{
	struct gotrace_status st;
	bool before, after;
	int dflt, clock;

	before = tsc_marked_unstable();
	dflt = clock_session(_metadata, self->fd, 0, "session-clock-default");
	ASSERT_LE(0, dflt);
	get_status(_metadata, self->fd, &st);
	if (before)
		EXPECT_EQ(GOTRACE_CLOCK_MONO, dflt);
	EXPECT_EQ(0, st.flags & GOTRACE_STATUS_CUT);

	clock = clock_session(_metadata, self->fd, GOTRACE_START_CLOCK_MONO,
			      "session-clock-mono");
	EXPECT_EQ(GOTRACE_CLOCK_MONO, clock);
	get_status(_metadata, self->fd, &st);
	EXPECT_EQ(0, st.flags);

	clock = clock_session(_metadata, self->fd, GOTRACE_START_CLOCK_TSC,
			      "session-clock-tsc");
	if (clock < 0) {
		/* No TSC: the default could only be CLOCK_MONOTONIC. */
		EXPECT_EQ(EOPNOTSUPP, errno);
		EXPECT_EQ(GOTRACE_CLOCK_MONO, dflt);
		return;
	}
	EXPECT_EQ(GOTRACE_CLOCK_TSC, clock);
	get_status(_metadata, self->fd, &st);
	after = tsc_marked_unstable();
	/* Unstable if the kernel said so before, never if it has not yet. */
	if (before)
		EXPECT_EQ(GOTRACE_STATUS_CLOCK_UNSTABLE, st.flags);
	if (!after)
		EXPECT_EQ(0, st.flags);
	TH_LOG("default clock %s; the kernel %s the TSC unstable",
	       dflt == GOTRACE_CLOCK_TSC ? "TSC" : "CLOCK_MONOTONIC",
	       after ? "marked" : "did not mark");
}

/* Sessions in turn, each read to the end; some are kept for the host. */
TEST_F_TIMEOUT(session, cycles, 900)
{
	unsigned long cycles = gt_env_ulong("GOTRACE_SESSION_CYCLES", 100);
	static const __u32 formats[] = {
		GOTRACE_FORMAT_DEFAULT, GOTRACE_FORMAT_1_11,
		GOTRACE_FORMAT_1_19, GOTRACE_FORMAT_1_21,
	};
	struct gt_buf t = { 0 };
	struct gotrace_status st;
	__u64 sessions;
	char name[32];
	unsigned long i;
	__u32 format;

	get_status(_metadata, self->fd, &st);
	sessions = st.sessions;
	for (i = 0; i < cycles; i++) {
		format = formats[i % ARRAY_SIZE(formats)];
		ASSERT_EQ(0, gt_start(self->fd, format, 0)) {
			TH_LOG("cycle %lu", i);
		}
		gt_msleep(1);
		snprintf(name, sizeof(name), "session-cycle-%02lu", i);
		read_trace(_metadata, self->fd, &t, format,
			   i % 33 ? NULL : name);
		ASSERT_LE(GT_HEADER_LEN, t.len);
		EXPECT_EQ(0, memcmp(t.data, gt_header(format), GT_HEADER_LEN));
		gt_buf_free(&t);
		ASSERT_EQ(0, gt_status(self->fd, &st));
		EXPECT_EQ(sessions + i + 1, st.sessions);
		if (!_metadata->passed)
			break;
	}
}

/* A hog and a sleeper on one CPU: see snapshot_sleeper. */
struct sleeper {
	int cpu;
	int wake[2];		/* a byte wakes the sleeper; 'q' ends it */
	int ready[2];		/* the sleeper's byte: it is about to block */
	pid_t tid;		/* atomic */
	bool stop;		/* atomic: the hog ends */
};

static void sleeper_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void sleeper_spin(unsigned int ms)
{
	__u64 end = gt_now_ms() + ms;

	while (gt_now_ms() < end)
		;
}

static void *sleeper_hog(void *arg)
{
	struct sleeper *sl = arg;

	sleeper_pin(sl->cpu);
	while (!__atomic_load_n(&sl->stop, __ATOMIC_RELAXED))
		;
	return NULL;
}

/*
 * Run past its share of the CPU, then block on the pipe. At nice 19 beside
 * a nice 0 hog, 1 ms of run is 68 ms the hog must run before the sleeper
 * is due again: it stays on the runqueue that long.
 */
static void *sleeper_main(void *arg)
{
	struct sleeper *sl = arg;
	char c = 0;

	sleeper_pin(sl->cpu);
	__atomic_store_n(&sl->tid, gettid(), __ATOMIC_RELEASE);
	setpriority(PRIO_PROCESS, gettid(), 19);
	while (c != 'q') {
		sleeper_spin(1);
		if (write(sl->ready[1], "r", 1) != 1 ||
		    read(sl->wake[0], &c, 1) != 1)
			break;
	}
	return NULL;
}

/*
 * Wait until the sleeper has switched out blocking once more than @sw says
 * (its state shows S already before it gets there, and it may be preempted
 * before): it is off its CPU and runs again only once woken.
 */
static int sleeper_blocked(pid_t tid, struct gt_switches *sw)
{
	struct gt_switches now;
	__u64 deadline = gt_now_ms() + GT_TIMEOUT_MS;

	do {
		if (gt_read_switches(tid, &now))
			return -1;
		if (now.nv > sw->nv) {
			*sw = now;
			return 0;
		}
		sched_yield();
	} while (gt_now_ms() < deadline);
	return -1;
}

/*
 * A thread that blocks with more than its share of the CPU stays on its
 * runqueue since 6.12 (delayed dequeue) until it is picked or woken: the
 * start snapshot must still call it asleep, or gotrace drops its wakeup.
 * A hog and a sleeper share the last CPU; each session starts as soon as
 * the sleeper has blocked, wakes it once and stops when it is about to
 * block again: its goroutine is unblocked exactly once in each.
 */
TEST_F_TIMEOUT(session, snapshot_sleeper, 300)
{
	struct sleeper sl = { .cpu = gt_possible_cpus() - 1 };
	struct gt_switches sw = { 0 };
	struct gt_buf t = { 0 };
	pthread_t hog, sleeper;
	struct gt_gstats gs;
	struct gt_stats st;
	unsigned int i;
	pid_t tid;
	char c;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "one CPU: the test thread would share the hog's");
	ASSERT_EQ(0, pipe(sl.wake));
	ASSERT_EQ(0, pipe(sl.ready));
	sleeper_pin(0);
	ASSERT_EQ(0, pthread_create(&hog, NULL, sleeper_hog, &sl));
	ASSERT_EQ(0, pthread_create(&sleeper, NULL, sleeper_main, &sl));
	ASSERT_EQ(1, read(sl.ready[0], &c, 1));
	tid = __atomic_load_n(&sl.tid, __ATOMIC_ACQUIRE);
	for (i = 0; i < SNAPSHOT_ROUNDS && _metadata->passed; i++) {
		ASSERT_EQ(0, sleeper_blocked(tid, &sw));
		ASSERT_EQ(0, gt_start(self->fd, GOTRACE_FORMAT_1_21, 0));
		ASSERT_EQ(1, write(sl.wake[1], "w", 1));
		ASSERT_EQ(1, read(sl.ready[0], &c, 1));
		ASSERT_EQ(0, gt_finish(self->fd, &t));
		ASSERT_EQ(0, gt_check_goroutine(&t, GOTRACE_FORMAT_1_21, tid,
						&gs, &st)) {
			TH_LOG("%s", st.error);
		}
		EXPECT_EQ(1, gs.unblocks) {
			TH_LOG("session %u: the sleeper was woken once", i);
			gt_save(&t, "session-snapshot-sleeper");
		}
		gt_buf_free(&t);
	}
	__atomic_store_n(&sl.stop, true, __ATOMIC_RELAXED);
	EXPECT_EQ(1, write(sl.wake[1], "q", 1));
	pthread_join(sleeper, NULL);
	pthread_join(hog, NULL);
}

struct tun_reader {
	int fd;
	pid_t tid;		/* atomic */
	ssize_t ret;
	int err;
};

static void *tun_reader_main(void *arg)
{
	struct tun_reader *r = arg;
	char buf[64];

	__atomic_store_n(&r->tid, gettid(), __ATOMIC_RELEASE);
	r->ret = read(r->fd, buf, sizeof(buf));
	r->err = errno;
	return NULL;
}

/* Block a thread in tun.ko's read() until a signal ends it. */
static void block_in_tun(struct __test_metadata *_metadata)
{
	struct tun_reader r = { .fd = open("/dev/net/tun", O_RDWR) };
	struct ifreq ifr = { .ifr_flags = IFF_TUN | IFF_NO_PI };
	pthread_t thread;

	ASSERT_LE(0, r.fd);
	strcpy(ifr.ifr_name, "gt-tun0");
	ASSERT_EQ(0, ioctl(r.fd, TUNSETIFF, &ifr));
	ASSERT_EQ(0, gt_interrupt_with(SIGUSR1));
	ASSERT_EQ(0, pthread_create(&thread, NULL, tun_reader_main, &r));
	while (!__atomic_load_n(&r.tid, __ATOMIC_ACQUIRE))
		sched_yield();
	EXPECT_TRUE(gt_wait_blocked(r.tid, 2000));
	ASSERT_EQ(0, pthread_kill(thread, SIGUSR1));
	pthread_join(thread, NULL);
	EXPECT_EQ(-1, r.ret);
	EXPECT_EQ(EINTR, r.err);
	close(r.fd);
}

/*
 * Kernel stacks name their frames when the trace stops. A frame in a module
 * unloaded since has no name kallsyms knows: it gets a fixed one, never
 * its address.
 */
TEST_F(session, kstacks_unloaded_module)
{
	const char *ko = getenv("GOTRACE_TUN_KO");
	static const char unknown[] = "(unknown kernel function)";
	struct gt_session s;
	struct gt_stats st;
	__u64 deadline;
	int fd, ret;

	if (!ko || access(ko, R_OK))
		SKIP(return, "GOTRACE_TUN_KO does not name tun.ko");
	fd = open(ko, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ret = syscall(SYS_finit_module, fd, "", 0);
	close(fd);
	if (ret && errno == EEXIST)
		SKIP(return, "tun is loaded already, or built in");
	ASSERT_EQ(0, ret);

	/* The device's reader is this fixture's: the session needs its own. */
	EXPECT_EQ(0, gt_close_reader(self->fd));
	self->fd = -1;
	ASSERT_EQ(0, gt_session_start_flags(&s, GOTRACE_FORMAT_DEFAULT,
					    GOTRACE_START_KSTACKS));
	block_in_tun(_metadata);
	deadline = gt_now_ms() + GT_TIMEOUT_MS;
	while ((ret = syscall(SYS_delete_module, "tun", O_NONBLOCK)) &&
	       errno == EAGAIN && gt_now_ms() < deadline)
		gt_msleep(10);
	EXPECT_EQ(0, ret);
	ASSERT_EQ(0, gt_session_stop(&s, &st, "session-kstacks_unloaded_module")) {
		TH_LOG("%s", st.error);
	}
	EXPECT_NE(NULL, memmem(s.rec.trace.data, s.rec.trace.len, unknown,
			       sizeof(unknown) - 1));
	EXPECT_EQ(NULL, memmem(s.rec.trace.data, s.rec.trace.len, "0xffff", 6));
	EXPECT_EQ(0, gt_session_close(&s));
	self->fd = gt_open_reader();
	ASSERT_LE(0, self->fd);
}

TEST_HARNESS_MAIN
