// SPDX-License-Identifier: GPL-2.0
/*
 * The flight recorder (GOTRACE_START_FLIGHT, GOTRACE_SNAPSHOT) in formats
 * 1.22 and 1.26: snapshots of the newest whole generations while recording
 * goes on, with buffers that overflow.
 *
 * Each snapshot is checked at the wire level (gt_check_gens(): whole
 * generations from the one GOTRACE_SNAPSHOT names, in order, each with its
 * tables) and by libgtrace's reader (every rule of Go's); one of each kind
 * is kept in GOTRACE_TRACE_DIR, where the host's scripts/go-check.sh parses
 * it with every Go that reads its version.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "gotrace_util.h"
#include "gtrace2.h"
#include "workload.h"

#define PERIOD_NS	100000000ULL	/* 100 ms generations */
#define MS		1000000ULL

static int start_flight(int fd, __u32 format, __u64 buffer_size)
{
	struct gotrace_start args = {
		.size = sizeof(args),
		.flags = GOTRACE_START_FLIGHT | GOTRACE_START_CLOCK_MONO,
		.format = format,
		.buffer_size = buffer_size,
		.gen_period_ns = PERIOD_NS,
	};

	return ioctl(fd, GOTRACE_START, &args);
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
 * Read the snapshot @args describes to its end of file, check it, keep it
 * as NAME.trace (not if @keep is false).
 */
static void read_snapshot(struct __test_metadata *_metadata, int fd,
			  __u32 format, const struct gotrace_snapshot *args,
			  struct gt_buf *t, const char *name, bool keep)
{
	struct gt_stats st;
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
	EXPECT_EQ(0, gt_check_trace(t, format, &st)) {
		TH_LOG("%s: %s", name, st.error);
	}
}

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
	memset(&self->s, 0, sizeof(self->s));
	self->s.fd = gt_open_reader();
	ASSERT_LE(0, self->s.fd);
	self->s.ctl = gt_dev_open(O_WRONLY);
	ASSERT_LE(0, self->s.ctl);
	self->s.format = variant->format;
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
	for (i = 1; i <= 3; i++) {
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
 * generation more.
 */
TEST_F_TIMEOUT(flight, duration, 120)
{
	const __u64 duration = 300 * MS;
	struct gotrace_snapshot args;
	struct busy b;
	struct gt_buf t = { 0 };
	__u64 before, start;
	char name[64];

	ASSERT_EQ(0, start_flight(self->s.ctl, variant->format, 16 << 20));
	busy_start(_metadata, &b, false);
	gt_msleep(1500);
	before = mono_ns();
	ASSERT_EQ(0, snapshot(self->s.ctl, duration, &args));
	busy_stop(&b);
	snprintf(name, sizeof(name), "flight-duration-%s", variant->name);
	read_snapshot(_metadata, self->s.fd, variant->format, &args, &t, name, true);
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

	ASSERT_EQ(0, start_flight(self->s.ctl, variant->format, 256 * 1024));
	busy_start(_metadata, &b, true);
	overflow(_metadata, self->s.ctl);
	for (i = 0; i < 20; i++) {
		ASSERT_EQ(0, snapshot(self->s.ctl, i % 2 ? 100 * MS : 0, &args)) {
			TH_LOG("snapshot %d: %s", i, strerror(errno));
		}
		snprintf(name, sizeof(name), "flight-storm-%d-%s", i, variant->name);
		read_snapshot(_metadata, self->s.fd, variant->format, &args, &t, name, !i);
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
	struct gotrace_start start;
	struct gotrace_status st;
	struct gt_buf t = { 0 };
	char name[64];

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

	start = (struct gotrace_start){
		.size = sizeof(start),
		.flags = GOTRACE_START_FLIGHT | GOTRACE_START_KSTACKS,
		.format = variant->format,
	};
	EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_START, &start));
	EXPECT_EQ(EOPNOTSUPP, errno);
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

TEST_HARNESS_MAIN
