// SPDX-License-Identifier: GPL-2.0
/*
 * The flight recorder (GOTRACE_START_FLIGHT, GOTRACE_SNAPSHOT) in formats
 * 1.22 and 1.26: snapshots of the newest whole generations while recording
 * goes on, with buffers that overflow.
 *
 * Each snapshot is checked at the wire level (gt_check_gens(): whole
 * generations from the one GOTRACE_SNAPSHOT names, in order, each with its
 * tables) and by libgtrace's reader (every rule of Go's parser, as `gotrace
 * check`); some are kept (keep_all()) in GOTRACE_TRACE_DIR, where the
 * host's scripts/oracles/go-check.sh parses them with every Go that reads their
 * version. Also the latency trigger (GOTRACE_TRIGGER) of a flight recorder.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "../userspace/gotrace_annotate.h"
#include "gotrace_util.h"
#include "stall.h"
#include "tracev2.h"
#include "workload.h"

#define PERIOD_NS	100000000ULL	/* 100 ms generations */
#define MS		1000000ULL

/* A flight recorder of 100 ms generations, with @flags more (GOTRACE_START_*). */
static int start_flight_flags(int fd, __u32 format, __u64 buffer_size,
			      __u32 flags)
{
	struct gotrace_start args = {
		.size = sizeof(args),
		.flags = GOTRACE_START_FLIGHT | GOTRACE_START_CLOCK_MONO | flags,
		.format = format,
		.buffer_size = buffer_size,
		.gen_period_ns = PERIOD_NS,
	};

	return ioctl(fd, GOTRACE_START, &args);
}

static int start_flight(int fd, __u32 format, __u64 buffer_size)
{
	return start_flight_flags(fd, format, buffer_size, 0);
}

static int snapshot(int fd, __u64 duration_ns, struct gotrace_snapshot *args)
{
	*args = (struct gotrace_snapshot){
		.size = sizeof(*args),
		.duration_ns = duration_ns,
	};
	return ioctl(fd, GOTRACE_SNAPSHOT, args);
}

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * The earliest time stamp of a batch of generation @gen, in nanoseconds of
 * CLOCK_MONOTONIC (the session's clock, in 64 ns ticks); 0 if none.
 */
static __u64 gen_start_ns(const struct gt_buf *t, __u64 gen)
{
	struct gt2_wire_event ev;
	struct gt2_trace *trace;
	struct gt2_wire wire;
	struct gt_error err;
	__u64 start = 0, batch_end = 0;

	if (gt2_open_mem(t->data, t->len, &trace, &err))
		return 0;
	gt2_wire_init(&wire, trace);
	while (gt2_wire_next(&wire, &ev, &err) > 0) {
		if (ev.off < batch_end || ev.type != GT2_EV_EVENT_BATCH)
			continue;
		batch_end = ev.end + ev.args[3];
		if (ev.args[0] == gen && (!start || ev.args[2] < start))
			start = ev.args[2];
	}
	gt2_close(trace);
	return start << 6;
}

/*
 * Parse a trace with libgtrace's reader, every rule of Go's (as `gotrace
 * check`); count the GoStart and GoUnblock events of goroutine @goid.
 * Returns 0, or -1 with the reason in @err.
 */
static int parse_trace(const struct gt_buf *t, __u64 goid, unsigned long *starts,
		       unsigned long *unblocks, struct gt_error *err)
{
	struct gt2_reader *r = NULL;
	struct gt2_trace *trace;
	struct gt2_event ev;
	int n = -1;

	*starts = *unblocks = 0;
	if (gt2_open_mem(t->data, t->len, &trace, err))
		return -1;
	if (gt2_reader_open(trace, &r, err))
		goto out;
	while ((n = gt2_reader_next(r, &ev, err)) > 0) {
		if (ev.args[0] != goid)
			continue;
		if (ev.type == GT2_EV_GO_START)
			(*starts)++;
		else if (ev.type == GT2_EV_GO_UNBLOCK)
			(*unblocks)++;
	}
	gt2_reader_close(r);
out:
	gt2_close(trace);
	return n;
}

/*
 * Read the snapshot @args describes to its end of file, check it, keep it
 * as NAME.trace (not if @keep is false).
 */
static void read_snapshot(struct __test_metadata *_metadata, int fd,
			  __u32 format, const struct gotrace_snapshot *args,
			  struct gt_buf *t, const char *name, bool keep)
{
	unsigned long starts, unblocks;
	struct gt_error err;
	struct gt_gens g;

	memset(t, 0, sizeof(*t));
	ASSERT_EQ(0, gt_read_to_eof(fd, t, GT_READ_CHUNK)) {
		TH_LOG("%s: reading: %s", name, strerror(errno));
	}
	if (keep)
		EXPECT_EQ(0, gt_save(t, name));
	ASSERT_EQ(0, gt_check_gens(t, format, &g)) {
		TH_LOG("%s: %s", name, g.error);
	}
	TH_LOG("%s: %zu bytes, generations %llu-%llu, span %llu ms, %lu batches",
	       name, t->len, (unsigned long long)g.first_gen,
	       (unsigned long long)g.last_gen,
	       (unsigned long long)(args->span_ns / MS), g.event_batches);
	EXPECT_EQ(args->first_gen, g.first_gen);
	EXPECT_EQ(args->generations, g.nr_gens);
	EXPECT_EQ(args->first_gen + args->generations - 1, g.last_gen);
	EXPECT_LT(args->bytes, t->len);
	EXPECT_EQ(0, parse_trace(t, 0, &starts, &unblocks, &err)) {
		TH_LOG("%s: byte offset %llu: %s", name,
		       (unsigned long long)err.off, err.msg);
	}
}

/*
 * Which snapshots go to Go's readers: the overflowing buffers' in both
 * formats (1.22 is what Go 1.22 and 1.23 read), the others in 1.26 only.
 */
static bool keep_all(__u32 format)
{
	return format == GOTRACE_FORMAT_1_26;
}

/*
 * The formats differ in their encoders only, which the overflow test's
 * snapshots hold Go 1.22 and 1.23 to: the other tests run in 1.26 alone,
 * to keep make check's time.
 */
#define FLIGHT_1_26_ONLY()						\
	do {								\
		if (!keep_all(variant->format))				\
			SKIP(return, "1.26 only: the overflow test covers 1.22"); \
	} while (0)

FIXTURE(flight) {
	struct gt_session s;
};

FIXTURE_VARIANT(flight) {
	__u32 format;
	const char *name;
};

FIXTURE_VARIANT_ADD(flight, go1_22) {
	.format = GOTRACE_FORMAT_1_22,
	.name = "1.22",
};

FIXTURE_VARIANT_ADD(flight, go1_26) {
	.format = GOTRACE_FORMAT_1_26,
	.name = "1.26",
};

FIXTURE_SETUP(flight)
{
	GT_REQUIRE_DEVICE();
	ASSERT_EQ(0, gt_session_open(&self->s, variant->format));
}

FIXTURE_TEARDOWN(flight)
{
	EXPECT_EQ(0, gt_session_close(&self->s));
}

struct busy {
	pthread_t thread;
	bool stop;
	bool storm;
};

static void *busy_thread(void *p)
{
	struct busy *b = p;

	while (!__atomic_load_n(&b->stop, __ATOMIC_ACQUIRE)) {
		if (b->storm)
			gt_fork_storm(100, 4);
		gt_pingpong(500, 0);
	}
	return NULL;
}

static void busy_start(struct __test_metadata *_metadata, struct busy *b,
		       bool storm)
{
	b->stop = false;
	b->storm = storm;
	ASSERT_EQ(0, pthread_create(&b->thread, NULL, busy_thread, b));
}

static void busy_stop(struct busy *b)
{
	__atomic_store_n(&b->stop, true, __ATOMIC_RELEASE);
	pthread_join(b->thread, NULL);
}

/* Wait until the buffers dropped chunks (at most 60 s). */
static void overflow(struct __test_metadata *_metadata, int ctl)
{
	struct gotrace_status st;
	int i;

	for (i = 0; i < 600; i++) {
		ASSERT_EQ(0, gt_status(ctl, &st));
		if (st.chunks_dropped > 64)
			break;
		gt_msleep(100);
	}
	EXPECT_LT(64, st.chunks_dropped);
	EXPECT_EQ(0, st.events_lost);
	EXPECT_EQ(0, st.flags & GOTRACE_STATUS_CUT);
	EXPECT_TRUE(st.flags & GOTRACE_STATUS_FLIGHT);
	TH_LOG("%llu chunks dropped, %llu generations",
	       (unsigned long long)st.chunks_dropped,
	       (unsigned long long)st.generations);
}

/*
 * Small buffers that overflow again and again: every snapshot holds whole
 * generations only, the oldest ones long overwritten, and recording goes
 * on between snapshots, as often as they are asked for.
 */
TEST_F_TIMEOUT(flight, overflow, 180)
{
	struct gotrace_snapshot args;
	struct gotrace_status st;
	struct busy b;
	struct gt_buf t = { 0 };
	__u64 events;
	char name[64];
	int i;

	ASSERT_EQ(0, start_flight(self->s.ctl, variant->format, 256 * 1024));
	busy_start(_metadata, &b, false);
	overflow(_metadata, self->s.ctl);
	for (i = 1; i <= 2; i++) {
		ASSERT_EQ(0, gt_status(self->s.ctl, &st));
		events = st.events;
		ASSERT_EQ(0, snapshot(self->s.ctl, 0, &args)) {
			TH_LOG("snapshot %d: %s", i, strerror(errno));
		}
		EXPECT_LT(1, args.first_gen);
		EXPECT_LE(1, args.generations);
		snprintf(name, sizeof(name), "flight-overflow-%d-%s", i, variant->name);
		read_snapshot(_metadata, self->s.fd, variant->format, &args, &t, name, i == 1);
		gt_buf_free(&t);
		gt_msleep(300);
		ASSERT_EQ(0, gt_status(self->s.ctl, &st));
		EXPECT_EQ(i, st.snapshots);
		EXPECT_LT(events, st.events);
		EXPECT_EQ(GOTRACE_STATE_TRACING, st.state);
	}
	busy_stop(&b);
	EXPECT_EQ(0, gt_stop_flags(self->s.ctl, GOTRACE_STOP_NOWAIT));
	EXPECT_EQ(0, gt_read_to_eof(self->s.fd, &t, GT_READ_CHUNK));
	EXPECT_EQ(0, t.len);
	ASSERT_EQ(0, gt_status(self->s.ctl, &st));
	EXPECT_EQ(GOTRACE_STATE_IDLE, st.state);
}

/*
 * Buffers that hold more than asked: the snapshot's first generation is
 * the newest one that started at least @duration before the call (its
 * first time stamp says so), so it covers the duration and at most one
 * generation more. With kernel stacks, which its tables name.
 */
TEST_F_TIMEOUT(flight, duration, 120)
{
	const __u64 duration = 300 * MS;
	struct gotrace_snapshot args;
	struct busy b;
	struct gt_buf t = { 0 };
	__u64 before, start;
	char name[64];

	FLIGHT_1_26_ONLY();
	ASSERT_EQ(0, start_flight_flags(self->s.ctl, variant->format, 16 << 20,
					GOTRACE_START_KSTACKS));
	busy_start(_metadata, &b, false);
	gt_msleep(1500);
	before = mono_ns();
	ASSERT_EQ(0, snapshot(self->s.ctl, duration, &args));
	busy_stop(&b);
	snprintf(name, sizeof(name), "flight-duration-%s", variant->name);
	read_snapshot(_metadata, self->s.fd, variant->format, &args, &t, name,
		      keep_all(variant->format));
	start = gen_start_ns(&t, args.first_gen);
	TH_LOG("first generation %llu started %llu ms before the snapshot, span %llu ms",
	       (unsigned long long)args.first_gen,
	       (unsigned long long)((before - start) / MS),
	       (unsigned long long)(args.span_ns / MS));
	EXPECT_LT(1, args.first_gen);
	EXPECT_LE(duration, args.span_ns);
	/* The kernel counts from its entry, a little after @before. */
	EXPECT_LE(start + duration, before + 10 * MS);
	/* The generation after it started less than @duration before. */
	EXPECT_GT(duration + PERIOD_NS + 200 * MS, args.span_ns);
	/* With kernel stacks: its tables name where threads block. */
	EXPECT_NE(NULL, memmem(t.data, t.len, "\x08schedule", 9));
	gt_buf_free(&t);
	EXPECT_EQ(0, gt_stop_flags(self->s.ctl, GOTRACE_STOP_NOWAIT));
}

/*
 * Snapshots in a loop under a fork storm (and a ping-pong, to fill the
 * buffers faster), buffers overflowing: none fails.
 */
TEST_F_TIMEOUT(flight, storm, 300)
{
	struct gotrace_snapshot args;
	struct busy b;
	struct gt_buf t = { 0 };
	char name[64];
	int i;

	FLIGHT_1_26_ONLY();
	ASSERT_EQ(0, start_flight(self->s.ctl, variant->format, 256 * 1024));
	busy_start(_metadata, &b, true);
	overflow(_metadata, self->s.ctl);
	for (i = 0; i < 10; i++) {
		ASSERT_EQ(0, snapshot(self->s.ctl, i % 2 ? 100 * MS : 0, &args)) {
			TH_LOG("snapshot %d: %s", i, strerror(errno));
		}
		snprintf(name, sizeof(name), "flight-storm-%d-%s", i, variant->name);
		read_snapshot(_metadata, self->s.fd, variant->format, &args, &t, name,
			      !i && keep_all(variant->format));
		gt_buf_free(&t);
	}
	busy_stop(&b);
	EXPECT_EQ(0, gt_stop_flags(self->s.ctl, GOTRACE_STOP_NOWAIT));
}

/*
 * A snapshot not yet read: the next one is refused with EBUSY, a stop
 * leaves it to be read, and read() then ends the session.
 */
TEST_F(flight, pending)
{
	struct gotrace_snapshot args, busy;
	struct gotrace_status st;
	struct gt_buf t = { 0 };
	char name[64];

	FLIGHT_1_26_ONLY();
	ASSERT_EQ(0, start_flight(self->s.ctl, variant->format, 1 << 20));
	gt_pingpong(200, 0);
	ASSERT_EQ(0, snapshot(self->s.ctl, 0, &args));
	EXPECT_EQ(-1, snapshot(self->s.ctl, 0, &busy));
	EXPECT_EQ(EBUSY, errno);
	EXPECT_EQ(0, gt_stop_flags(self->s.ctl, GOTRACE_STOP_NOWAIT));
	EXPECT_EQ(-1, snapshot(self->s.ctl, 0, &busy));
	EXPECT_EQ(EINVAL, errno);
	snprintf(name, sizeof(name), "flight-pending-%s", variant->name);
	read_snapshot(_metadata, self->s.fd, variant->format, &args, &t, name, false);
	gt_buf_free(&t);
	ASSERT_EQ(0, gt_status(self->s.ctl, &st));
	EXPECT_EQ(GOTRACE_STATE_STOPPED, st.state);
	EXPECT_EQ(1, st.snapshots);
	EXPECT_EQ(0, gt_read_to_eof(self->s.fd, &t, GT_READ_CHUNK));
	EXPECT_EQ(0, t.len);
	ASSERT_EQ(0, gt_status(self->s.ctl, &st));
	EXPECT_EQ(GOTRACE_STATE_IDLE, st.state);
}

/*
 * A reader that closes the device in the middle of a snapshot drops it;
 * recording goes on and the next snapshot is whole.
 */
TEST_F(flight, half_read)
{
	struct gotrace_snapshot args;
	struct gotrace_status st;
	unsigned char buf[100];
	struct gt_buf t = { 0 };
	char name[64];

	FLIGHT_1_26_ONLY();
	ASSERT_EQ(0, start_flight(self->s.ctl, variant->format, 1 << 20));
	gt_pingpong(200, 0);
	ASSERT_EQ(0, snapshot(self->s.ctl, 0, &args));
	ASSERT_EQ(sizeof(buf), read(self->s.fd, buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, gt_header(variant->format), GT_HEADER_LEN));
	EXPECT_EQ(0, close(self->s.fd));
	self->s.fd = gt_dev_open(O_RDONLY);
	ASSERT_LE(0, self->s.fd);
	gt_pingpong(200, 0);
	ASSERT_EQ(0, snapshot(self->s.ctl, 0, &args));
	snprintf(name, sizeof(name), "flight-half_read-%s", variant->name);
	read_snapshot(_metadata, self->s.fd, variant->format, &args, &t, name, false);
	gt_buf_free(&t);
	ASSERT_EQ(0, gt_status(self->s.ctl, &st));
	EXPECT_EQ(2, st.snapshots);
	EXPECT_EQ(GOTRACE_STATE_TRACING, st.state);
	EXPECT_EQ(0, gt_stop_flags(self->s.ctl, GOTRACE_STOP_NOWAIT));
}

/*
 * Bad requests get their errno and change nothing: the flight recorder's
 * snapshot taken afterwards is whole.
 */
TEST_F(flight, bad_requests)
{
	struct {
		struct gotrace_snapshot args;
		unsigned char more[16];
	} big;
	struct gotrace_snapshot args;
	struct gotrace_status st;
	struct gt_buf t = { 0 };
	char name[64];

	FLIGHT_1_26_ONLY();
	/* No session. */
	EXPECT_EQ(-1, snapshot(self->s.ctl, 0, &args));
	EXPECT_EQ(EINVAL, errno);
	/* The older formats have no generations to keep. */
	EXPECT_EQ(-1, start_flight(self->s.ctl, GOTRACE_FORMAT_1_21, 1 << 20));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, start_flight(self->s.ctl, GOTRACE_FORMAT_DEFAULT, 1 << 20));
	EXPECT_EQ(EINVAL, errno);
	/* A streaming session. */
	ASSERT_EQ(0, gt_start(self->s.ctl, variant->format, 1 << 20));
	EXPECT_EQ(-1, snapshot(self->s.ctl, 0, &args));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, gt_stop_flags(self->s.ctl, GOTRACE_STOP_NOWAIT));
	EXPECT_EQ(0, gt_read_to_eof(self->s.fd, &t, GT_READ_CHUNK));
	gt_buf_free(&t);

	ASSERT_EQ(0, start_flight(self->s.ctl, variant->format, 1 << 20));
	gt_pingpong(200, 0);
	args = (struct gotrace_snapshot){ .size = sizeof(args), .flags = 1 };
	EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_SNAPSHOT, &args));
	EXPECT_EQ(EINVAL, errno);
	args = (struct gotrace_snapshot){ .size = sizeof(args), .reserved[1] = 1 };
	EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_SNAPSHOT, &args));
	EXPECT_EQ(EINVAL, errno);
	args = (struct gotrace_snapshot){ .size = GOTRACE_SNAPSHOT_SIZE_VER0 - 8 };
	EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_SNAPSHOT, &args));
	EXPECT_EQ(EINVAL, errno);
	memset(&big, 0, sizeof(big));
	big.args.size = sizeof(big);
	big.more[3] = 1;
	EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_SNAPSHOT, &big));
	EXPECT_EQ(E2BIG, errno);
	big.args.size = 8192;
	EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_SNAPSHOT, &big));
	EXPECT_EQ(E2BIG, errno);
	EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_SNAPSHOT, NULL));
	EXPECT_EQ(EFAULT, errno);
	ASSERT_EQ(0, gt_status(self->s.ctl, &st));
	EXPECT_EQ(0, st.snapshots);

	/* A larger structure, zero beyond the kernel's: its size comes back. */
	big.args.size = sizeof(big);
	big.more[3] = 0;
	ASSERT_EQ(0, ioctl(self->s.ctl, GOTRACE_SNAPSHOT, &big));
	EXPECT_EQ(sizeof(big.args), big.args.size);
	snprintf(name, sizeof(name), "flight-bad_requests-%s", variant->name);
	read_snapshot(_metadata, self->s.fd, variant->format, &big.args, &t, name, false);
	gt_buf_free(&t);
	EXPECT_EQ(0, gt_stop_flags(self->s.ctl, GOTRACE_STOP_NOWAIT));
	EXPECT_EQ(-1, snapshot(self->s.ctl, 0, &args));
	EXPECT_EQ(EINVAL, errno);
}

/* --- the latency trigger --- */

static int start_trigger(int fd, __u32 format, __u64 latency_ns)
{
	struct gotrace_start args = {
		.size = sizeof(args),
		.flags = GOTRACE_START_FLIGHT | GOTRACE_START_CLOCK_MONO,
		.format = format,
		.buffer_size = 4 << 20,
		.gen_period_ns = PERIOD_NS,
		.latency_ns = latency_ns,
	};

	return ioctl(fd, GOTRACE_START, &args);
}

static int trigger(int fd, __u32 flags, struct gotrace_trigger *t)
{
	*t = (struct gotrace_trigger){ .size = sizeof(*t), .flags = flags };
	return ioctl(fd, GOTRACE_TRIGGER, t);
}

/* As a caller built before requests: the first version's size. */
static int trigger_v0(int fd, __u32 flags, struct gotrace_trigger *t)
{
	*t = (struct gotrace_trigger){ .size = GOTRACE_TRIGGER_SIZE_VER0, .flags = flags };
	return ioctl(fd, GOTRACE_TRIGGER, t);
}

/* Whether poll() says a firing waits, within @ms. */
static bool pollpri(int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLPRI };

	return poll(&pfd, 1, ms) == 1 && (pfd.revents & POLLPRI);
}

static void stall(struct __test_metadata *_metadata, unsigned long ms)
{
	int err = gt_stall(ms);

	ASSERT_EQ(0, err) {
		TH_LOG("the hog could not run SCHED_FIFO on CPU 0: %s", strerror(err));
	}
}

struct waiter {
	int fd;
	int ret;
	int err;
	struct gotrace_trigger t;
};

static void *waiter_thread(void *p)
{
	struct waiter *w = p;

	w->ret = trigger(w->fd, 0, &w->t);
	w->err = errno;
	return NULL;
}

/*
 * Take firings that name other threads (a TCG guest's vCPU may itself wait
 * on the host) until one names the victim; each try arms the trigger (by
 * @waiting call, else by a call that returns EAGAIN), makes a stall of
 * @ms and takes the firing. 5 tries at most.
 */
static void fire_on_victim(struct __test_metadata *_metadata, int fd,
			   pid_t victim, bool waiting, unsigned long ms,
			   struct gotrace_trigger *t)
{
	struct waiter w = { .fd = fd };
	pthread_t wt;
	__u64 before;
	int i;

	for (i = 0; i < 5; i++) {
		if (waiting) {
			ASSERT_EQ(0, pthread_create(&wt, NULL, waiter_thread, &w));
			gt_msleep(200);
		} else {
			while (!trigger(fd, GOTRACE_TRIGGER_NOWAIT, t))
				TH_LOG("before the stall: %s waited %llu ms", t->comm,
				       (unsigned long long)(t->wait_ns / MS));
			ASSERT_EQ(EAGAIN, errno);
		}
		before = mono_ns();
		stall(_metadata, ms);
		if (waiting) {
			ASSERT_EQ(0, pthread_join(wt, NULL));
			ASSERT_EQ(0, w.ret) {
				TH_LOG("waiting for the trigger: %s", strerror(w.err));
			}
			*t = w.t;
		} else {
			ASSERT_TRUE(pollpri(fd, 5000));
			ASSERT_EQ(0, trigger(fd, GOTRACE_TRIGGER_NOWAIT, t));
		}
		TH_LOG("fired: thread %u (%s, process %u) waited %llu ms",
		       t->tid, t->comm, t->tgid,
		       (unsigned long long)(t->wait_ns / MS));
		EXPECT_EQ(GOTRACE_CAUSE_LATENCY, t->cause);
		EXPECT_LE(before, t->time_ns);
		EXPECT_GE(mono_ns(), t->time_ns);
		if (t->tid == (__u32)victim)
			break;
	}
	ASSERT_EQ(victim, t->tid);
	EXPECT_EQ(getpid(), t->tgid);
	EXPECT_STREQ("gt-victim", (const char *)t->comm);
	EXPECT_LE(ms / 2 * MS, t->wait_ns);
	EXPECT_GE(ms * 4 * MS, t->wait_ns);
}

/*
 * A thread kept runnable behind a real-time hog on its CPU for 600 ms
 * fires a 200 ms trigger armed by a call that does not wait (poll() then
 * says so), and again armed by a waiting call; a stall while it is not
 * armed fires nothing; a snapshot then holds the victim's runs.
 */
TEST_F_TIMEOUT(flight, trigger_fires, 180)
{
	struct gt_victim v;
	pid_t tid;
	struct gotrace_snapshot args;
	struct gotrace_status st;
	struct gotrace_trigger t;
	unsigned long starts, unblocks;
	struct gt_error err;
	struct gt_buf buf = { 0 };
	char name[64];
	__u64 fired;

	FLIGHT_1_26_ONLY();
	ASSERT_EQ(0, gt_pin_fifo(1, 0));
	ASSERT_EQ(0, start_trigger(self->s.ctl, variant->format, 200 * MS));
	ASSERT_EQ(0, gt_victim_start(&v));
	tid = gt_victim_tid(&v);
	gt_msleep(300);
	fire_on_victim(_metadata, self->s.ctl, tid, false, 600, &t);
	EXPECT_FALSE(pollpri(self->s.ctl, 0));

	/* Unarmed until asked again: this stall fires nothing. */
	ASSERT_EQ(0, gt_status(self->s.ctl, &st));
	fired = st.triggers;
	EXPECT_LE(1, fired);
	stall(_metadata, 600);
	EXPECT_FALSE(pollpri(self->s.ctl, 200));
	ASSERT_EQ(0, gt_status(self->s.ctl, &st));
	EXPECT_EQ(fired, st.triggers);
	fire_on_victim(_metadata, self->s.ctl, tid, true, 600, &t);
	ASSERT_EQ(0, gt_status(self->s.ctl, &st));
	EXPECT_LT(fired, st.triggers);

	ASSERT_EQ(0, snapshot(self->s.ctl, 1000 * MS, &args));
	EXPECT_EQ(0, gt_victim_stop(&v));
	snprintf(name, sizeof(name), "flight-trigger-%s", variant->name);
	read_snapshot(_metadata, self->s.fd, variant->format, &args, &buf, name,
		      keep_all(variant->format));
	ASSERT_EQ(0, parse_trace(&buf, tid, &starts, &unblocks, &err)) {
		TH_LOG("byte offset %llu: %s", (unsigned long long)err.off, err.msg);
	}
	TH_LOG("the victim ran %lu times and was woken %lu times", starts, unblocks);
	/*
	 * Its 2 ms sleeps give hundreds in the 400 ms after the stall; a host
	 * that starved the TCG guest for seconds (make check beside other
	 * work: "Long readout interval" of 5.4 s) left 11 in the window.
	 */
	EXPECT_LE(5, starts);
	EXPECT_LE(5, unblocks);
	gt_buf_free(&buf);
	EXPECT_EQ(0, gt_stop_flags(self->s.ctl, GOTRACE_STOP_NOWAIT));
}

/*
 * Without a stall, a 500 ms trigger armed for a second of work stays
 * quiet (above what a loaded host makes a TCG guest's threads wait).
 */
TEST_F_TIMEOUT(flight, trigger_quiet, 60)
{
	struct gotrace_status st;
	struct gotrace_trigger t;

	FLIGHT_1_26_ONLY();
	ASSERT_EQ(0, start_trigger(self->s.ctl, variant->format, 500 * MS));
	EXPECT_EQ(-1, trigger(self->s.ctl, GOTRACE_TRIGGER_NOWAIT, &t));
	EXPECT_EQ(EAGAIN, errno);
	gt_pingpong(~0UL, 1000);
	EXPECT_FALSE(pollpri(self->s.ctl, 100));
	EXPECT_EQ(-1, trigger(self->s.ctl, GOTRACE_TRIGGER_NOWAIT, &t));
	EXPECT_EQ(EAGAIN, errno);
	ASSERT_EQ(0, gt_status(self->s.ctl, &st));
	EXPECT_EQ(0, st.triggers);
	EXPECT_EQ(0, gt_stop_flags(self->s.ctl, GOTRACE_STOP_NOWAIT));
}

/* Bad thresholds and requests get their errno; a stop ends a wait. */
TEST_F_TIMEOUT(flight, trigger_bad_requests, 60)
{
	struct gotrace_start start = {
		.size = sizeof(start),
		.format = variant->format,
		.latency_ns = 100 * MS,
	};
	struct waiter w = { .fd = self->s.ctl };
	struct gotrace_trigger t;
	pthread_t wt;

	FLIGHT_1_26_ONLY();
	EXPECT_EQ(-1, trigger(self->s.ctl, 0, &t));
	EXPECT_EQ(EINVAL, errno);
	/* A threshold needs a flight recorder... */
	EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_START, &start));
	EXPECT_EQ(EINVAL, errno);
	/* ...and a sane value. */
	EXPECT_EQ(-1, start_trigger(self->s.ctl, variant->format,
				    GOTRACE_LATENCY_MIN_NS - 1));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, start_trigger(self->s.ctl, variant->format,
				    GOTRACE_LATENCY_MAX_NS + 1));
	EXPECT_EQ(EINVAL, errno);
	/* A flight recorder without a trigger: only requests to take. */
	ASSERT_EQ(0, start_flight(self->s.ctl, variant->format, 1 << 20));
	EXPECT_EQ(-1, trigger_v0(self->s.ctl, GOTRACE_TRIGGER_NOWAIT, &t));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, trigger(self->s.ctl, GOTRACE_TRIGGER_NOWAIT, &t));
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_EQ(0, gt_stop_flags(self->s.ctl, GOTRACE_STOP_NOWAIT));
	EXPECT_EQ(0, gt_read_to_eof(self->s.fd, &(struct gt_buf){ 0 }, GT_READ_CHUNK));

	ASSERT_EQ(0, start_trigger(self->s.ctl, variant->format, GOTRACE_LATENCY_MAX_NS));
	t = (struct gotrace_trigger){ .size = sizeof(t), .flags = 4 };
	EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_TRIGGER, &t));
	EXPECT_EQ(EINVAL, errno);
	/* GOTRACE_TRIGGER_NOARM goes with the size that takes requests. */
	EXPECT_EQ(-1, trigger_v0(self->s.ctl, GOTRACE_TRIGGER_NOARM, &t));
	EXPECT_EQ(EINVAL, errno);
	t = (struct gotrace_trigger){ .size = sizeof(t), .reserved[0] = 1 };
	EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_TRIGGER, &t));
	EXPECT_EQ(EINVAL, errno);
	t = (struct gotrace_trigger){ .size = GOTRACE_TRIGGER_SIZE_VER0 - 8 };
	EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_TRIGGER, &t));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_TRIGGER, NULL));
	EXPECT_EQ(EFAULT, errno);
	/* A waiting call ends when the recording stops. */
	ASSERT_EQ(0, pthread_create(&wt, NULL, waiter_thread, &w));
	gt_msleep(300);
	EXPECT_EQ(0, gt_stop_flags(self->s.ctl, GOTRACE_STOP_NOWAIT));
	ASSERT_EQ(0, pthread_join(wt, NULL));
	EXPECT_EQ(-1, w.ret);
	EXPECT_EQ(EINVAL, w.err);
}

/* GOTRACE_REQUEST on /dev/gotrace-annotate with @reason, @len bytes of it. */
static int request_len(int fd, const char *reason, __u32 len)
{
	struct gotrace_request r = {
		.size = sizeof(r),
		.reason = (uintptr_t)reason,
		.reason_len = len,
	};

	return ioctl(fd, GOTRACE_REQUEST, &r);
}

static int request(int fd, const char *reason)
{
	return request_len(fd, reason, strlen(reason));
}

/* Bad requests get their errno; none is taken in. */
static void requests_refused(struct __test_metadata *_metadata, int ann)
{
	char long_reason[GOTRACE_REQUEST_REASON_MAX + 2];
	struct gotrace_request r;

	memset(long_reason, 'x', sizeof(long_reason) - 1);
	long_reason[sizeof(long_reason) - 1] = '\0';
	EXPECT_EQ(-1, request_len(ann, "x", 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, request(ann, long_reason));
	EXPECT_EQ(EMSGSIZE, errno);
	r = (struct gotrace_request){ .size = sizeof(r), .flags = 1,
				      .reason = (uintptr_t)"x", .reason_len = 1 };
	EXPECT_EQ(-1, ioctl(ann, GOTRACE_REQUEST, &r));
	EXPECT_EQ(EINVAL, errno);
	r = (struct gotrace_request){ .size = sizeof(r), .reserved32 = 1,
				      .reason = (uintptr_t)"x", .reason_len = 1 };
	EXPECT_EQ(-1, ioctl(ann, GOTRACE_REQUEST, &r));
	EXPECT_EQ(EINVAL, errno);
	r = (struct gotrace_request){ .size = sizeof(r), .reserved[1] = 1,
				      .reason = (uintptr_t)"x", .reason_len = 1 };
	EXPECT_EQ(-1, ioctl(ann, GOTRACE_REQUEST, &r));
	EXPECT_EQ(EINVAL, errno);
	r = (struct gotrace_request){ .size = GOTRACE_REQUEST_SIZE_VER0 - 8 };
	EXPECT_EQ(-1, ioctl(ann, GOTRACE_REQUEST, &r));
	EXPECT_EQ(EINVAL, errno);
	r = (struct gotrace_request){ .size = sizeof(r), .reason = 8, .reason_len = 1 };
	EXPECT_EQ(-1, ioctl(ann, GOTRACE_REQUEST, &r));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(ann, GOTRACE_REQUEST, NULL));
	EXPECT_EQ(EFAULT, errno);
}

static void *request_waiter(void *p)
{
	struct waiter *w = p;

	w->ret = trigger(w->fd, GOTRACE_TRIGGER_NOARM, &w->t);
	w->err = errno;
	return NULL;
}

/*
 * Snapshot requests (/dev/gotrace-annotate): refused with ENODATA until a
 * reader takes them (GOTRACE_TRIGGER at the size that has them), then one
 * at a time and one a second at most; poll() says one waits; GOTRACE_TRIGGER
 * hands it out with the asking thread, its user and the reason, to a waiting
 * call too; the reason is a log message in the trace; bad requests and
 * callers of the first version's size get nothing.
 */
TEST_F_TIMEOUT(flight, requests, 60)
{
	struct waiter w = { .fd = self->s.ctl };
	struct gotrace_snapshot args;
	struct gotrace_trigger t;
	struct gt_buf buf = { 0 };
	char comm[16] = "";
	int ann = gotrace_annotate_open();
	pthread_t wt;

	FLIGHT_1_26_ONLY();
	ASSERT_LE(0, ann);
	prctl(PR_GET_NAME, comm);
	EXPECT_EQ(-1, request(ann, "no recorder"));
	EXPECT_EQ(ENODATA, errno);
	ASSERT_EQ(0, start_flight(self->s.ctl, variant->format, 1 << 20));
	EXPECT_EQ(-1, request(ann, "nobody takes it"));
	EXPECT_EQ(ENODATA, errno);
	EXPECT_EQ(-1, trigger_v0(self->s.ctl, GOTRACE_TRIGGER_NOWAIT, &t));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, request(ann, "an old reader does not take it"));
	EXPECT_EQ(ENODATA, errno);

	EXPECT_EQ(-1, trigger(self->s.ctl, GOTRACE_TRIGGER_NOWAIT | GOTRACE_TRIGGER_NOARM, &t));
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_FALSE(pollpri(self->s.ctl, 0));
	requests_refused(_metadata, ann);
	EXPECT_FALSE(pollpri(self->s.ctl, 0));
	ASSERT_EQ(0, request(ann, "checkout took 2.4 s"));
	EXPECT_TRUE(pollpri(self->s.ctl, 1000));
	EXPECT_EQ(-1, request(ann, "one waits"));
	EXPECT_EQ(EBUSY, errno);
	EXPECT_EQ(-1, trigger_v0(self->s.ctl, GOTRACE_TRIGGER_NOWAIT, &t));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, trigger(self->s.ctl, GOTRACE_TRIGGER_NOWAIT | GOTRACE_TRIGGER_NOARM, &t));
	EXPECT_EQ(GOTRACE_CAUSE_REQUEST, t.cause);
	EXPECT_EQ(gettid(), t.tid);
	EXPECT_EQ(getpid(), t.tgid);
	EXPECT_EQ(getuid(), t.uid);
	EXPECT_STREQ(comm, (const char *)t.comm);
	EXPECT_STREQ("checkout took 2.4 s", (const char *)t.reason);
	EXPECT_EQ(0, t.wait_ns);
	EXPECT_GE(mono_ns(), t.time_ns);
	EXPECT_FALSE(pollpri(self->s.ctl, 0));
	EXPECT_EQ(-1, request(ann, "within a second"));
	EXPECT_EQ(EBUSY, errno);

	/* The reason is in the trace, as a log message. */
	ASSERT_EQ(0, snapshot(self->s.ctl, 0, &args));
	read_snapshot(_metadata, self->s.fd, variant->format, &args, &buf,
		      "flight-requests", true);
	EXPECT_TRUE(memmem(buf.data, buf.len, "checkout took 2.4 s", 19));
	EXPECT_TRUE(memmem(buf.data, buf.len, "gotrace.snapshot", 16));
	gt_buf_free(&buf);

	/* A waiting call gets the next one. */
	gt_msleep(1100);
	ASSERT_EQ(0, pthread_create(&wt, NULL, request_waiter, &w));
	gt_msleep(200);
	ASSERT_EQ(0, request(ann, "second"));
	ASSERT_EQ(0, pthread_join(wt, NULL));
	ASSERT_EQ(0, w.ret) {
		TH_LOG("waiting for a request: %s", strerror(w.err));
	}
	EXPECT_EQ(GOTRACE_CAUSE_REQUEST, w.t.cause);
	EXPECT_STREQ("second", (const char *)w.t.reason);

	/* One that waits ends with the recorder. */
	ASSERT_EQ(0, pthread_create(&wt, NULL, request_waiter, &w));
	gt_msleep(200);
	EXPECT_EQ(0, gt_stop_flags(self->s.ctl, GOTRACE_STOP_NOWAIT));
	ASSERT_EQ(0, pthread_join(wt, NULL));
	EXPECT_EQ(-1, w.ret);
	EXPECT_EQ(EINVAL, w.err);
	EXPECT_EQ(-1, request(ann, "stopped"));
	EXPECT_EQ(ENODATA, errno);
	close(ann);
}

TEST_HARNESS_MAIN
