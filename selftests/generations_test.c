// SPDX-License-Identifier: GPL-2.0
/*
 * Go 1.22+ traces (formats 1.22 and 1.26) with short generations: real
 * workloads, read as a stream, under a fork/exec storm.
 *
 * Each trace is checked at the wire level (gt_check_gens(): every event
 * decodes, generations 1 to GOTRACE_STATUS's count in order, one sync batch,
 * string and stack batches after the events of each, 1.26's EndOfGeneration)
 * and kept in GOTRACE_TRACE_DIR, where the host's scripts/oracles/go-check.sh parses
 * it with every Go that reads its version, also cut at each generation.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "gotrace_util.h"
#include "tracev2.h"
#include "workload.h"

#define GEN_PERIOD_NS	50000000ULL	/* 50 ms */

/*
 * The storm's thread table is the module's default, PID_MAX_LIMIT ids: the
 * walk of a generation visits only the ids that held a goroutine, so even
 * 10 ms generations keep up with a table of 4 Mi entries.
 */
#define STORM_MAX_TID	0

static int start_gens(int fd, __u32 format, __u64 period_ns, __u64 gen_bytes,
		      __u32 max_tid)
{
	struct gotrace_start args = {
		.size = sizeof(args),
		.format = format,
		.max_tid = max_tid,
		.gen_period_ns = period_ns,
		.gen_bytes = gen_bytes,
	};

	return ioctl(fd, GOTRACE_START, &args);
}

/*
 * The end of generation 1's records: the first byte of the first batch of
 * generation 2, or after 1.26's first EndOfGeneration. 0 if there is none.
 */
static __u64 first_gen_end(const struct gt_buf *t)
{
	struct gt2_wire_event ev;
	struct gt2_trace *trace;
	struct gt2_wire wire;
	struct gt_error err;
	__u64 end = 0, batch_end = 0;

	if (gt2_open_mem(t->data, t->len, &trace, &err))
		return 0;
	gt2_wire_init(&wire, trace);
	while (gt2_wire_next(&wire, &ev, &err) > 0) {
		if (ev.off < batch_end)
			continue;
		if (ev.type == GT2_EV_END_OF_GENERATION) {
			end = ev.end;
			break;
		}
		if (ev.type != GT2_EV_EVENT_BATCH)
			break;
		if (ev.args[0] > 1) {
			end = ev.off;
			break;
		}
		batch_end = ev.end + ev.args[3];
	}
	gt2_close(trace);
	return end;
}

/* Check a finished trace, keep it as NAME.trace, and say how it looks. */
static void check_gens(struct __test_metadata *_metadata, const struct gt_buf *t,
		       __u32 format, __u64 generations, const char *name)
{
	struct gt_gens g;

	EXPECT_EQ(0, gt_save(t, name));
	ASSERT_EQ(0, gt_check_gens(t, format, &g)) {
		TH_LOG("%s: %s", name, g.error);
	}
	TH_LOG("%s: %zu bytes, %lu generations, %lu batches (%lu of events), %lu wire events",
	       name, t->len, g.nr_gens, g.batches, g.event_batches, g.events);
	EXPECT_EQ(generations, g.nr_gens);
	EXPECT_EQ(generations, g.last_gen);
	EXPECT_LT(0, g.event_batches);
}

/* The stopped session's status: nothing lost, nothing cut. */
static void status_whole(struct __test_metadata *_metadata, int fd,
			 struct gotrace_status *st)
{
	ASSERT_EQ(0, gt_status(fd, st));
	EXPECT_EQ(0, st->events_lost);
	EXPECT_EQ(0, st->flags & GOTRACE_STATUS_CUT);
}

FIXTURE(gens) {
	struct gt_session s;
};

FIXTURE_VARIANT(gens) {
	__u32 format;
	const char *name;
};

FIXTURE_VARIANT_ADD(gens, go1_22) {
	.format = GOTRACE_FORMAT_1_22,
	.name = "1.22",
};

FIXTURE_VARIANT_ADD(gens, go1_26) {
	.format = GOTRACE_FORMAT_1_26,
	.name = "1.26",
};

FIXTURE_SETUP(gens)
{
	GT_REQUIRE_DEVICE();
	ASSERT_EQ(0, gt_session_open(&self->s, variant->format));
}

FIXTURE_TEARDOWN(gens)
{
	EXPECT_EQ(0, gt_session_close(&self->s));
}

/* Start the fixture's session with @period_ns and a reader thread. */
static void record(struct __test_metadata *_metadata, struct gt_session *s,
		   __u64 period_ns, __u64 gen_bytes, __u32 max_tid)
{
	struct gotrace_status st;
	__u64 t0, ms;

	t0 = gt_now_ms();
	ASSERT_EQ(0, start_gens(s->ctl, s->format, period_ns, gen_bytes, max_tid));
	ASSERT_EQ(0, gt_status(s->ctl, &st));
	ms = gt_now_ms() - t0;
	EXPECT_EQ(s->format, st.format);
	/*
	 * The first at start, then one per period at most: a guest's vCPU
	 * can stall for 100 ms (the debug kernel, a busy host) between the
	 * two ioctls, and the periods that pass meanwhile each end one.
	 */
	EXPECT_LE(1, st.generations);
	EXPECT_GE(2 + ms * 1000000ULL / period_ns, st.generations) {
		TH_LOG("%llu generations %llu ms after start",
		       (unsigned long long)st.generations, (unsigned long long)ms);
	}
	ASSERT_EQ(0, gt_recorder_start(&s->rec, s->fd, GT_READ_CHUNK));
	s->recording = true;
}

/* Stop as StopTrace does, read to the end: the generations started. */
static __u64 stop(struct __test_metadata *_metadata, struct gt_session *s)
{
	struct gotrace_status st;

	s->recording = false;
	EXPECT_EQ(0, gt_stop_flags(s->ctl, 0));
	EXPECT_EQ(0, gt_recorder_join(&s->rec)) {
		TH_LOG("reading the trace: %s", strerror(errno));
	}
	status_whole(_metadata, s->ctl, &st);
	EXPECT_EQ(GOTRACE_STATE_IDLE, st.state);
	EXPECT_EQ(s->rec.trace.len, st.bytes);
	return st.generations;
}

/*
 * The selftests' workloads, recorded with 50 ms generations that also end
 * at 64 KiB of a CPU's events: many generations, each with the statuses of
 * the goroutines (threads) that live across it.
 */
TEST_F_TIMEOUT(gens, workloads, 120)
{
	struct gotrace_status st;
	__u64 gens;
	char name[64];

	record(_metadata, &self->s, GEN_PERIOD_NS, GOTRACE_GEN_BYTES_MIN, 0);
	EXPECT_EQ(3000, gt_pingpong(3000, 0));
	EXPECT_EQ(0, gt_mutex_contend(4, 2000, 0));
	EXPECT_EQ(0, gt_sleepers(4, 10, 5000000));
	EXPECT_LE(0, gt_fork_storm(200, 4));
	EXPECT_EQ(0, gt_pipe_timer(20, 10000000, "gt-gens-timer"));
	EXPECT_EQ(0, gt_hogs(3, 100));
	ASSERT_EQ(0, gt_status(self->s.ctl, &st));
	EXPECT_LE(5, st.generations) {
		TH_LOG("only %llu generations", (unsigned long long)st.generations);
	}
	gens = stop(_metadata, &self->s);
	EXPECT_LE(st.generations, gens);
	snprintf(name, sizeof(name), "generations-workloads-%s", variant->name);
	check_gens(_metadata, &self->s.rec.trace, variant->format, gens, name);
}

/*
 * A goroutine's sequence numbers (of its GoStart and GoUnblock events) stay
 * below 128, a byte each, however often its thread runs in a generation:
 * 2000 round trips in one generation would number them up to 4000. The
 * module sets them back with GoStatus events, which Go's readers (the
 * host's scripts/oracles/go-check.sh on the kept trace) must accept.
 */
TEST_F_TIMEOUT(gens, seq_one_byte, 120)
{
	struct gt_gens g;
	__u64 gens;
	char name[64];

	record(_metadata, &self->s, GOTRACE_GEN_PERIOD_MAX_NS, 0, 0);
	EXPECT_EQ(2000, gt_pingpong(2000, 0));
	gens = stop(_metadata, &self->s);
	EXPECT_EQ(1, gens);
	snprintf(name, sizeof(name), "generations-seq-%s", variant->name);
	EXPECT_EQ(0, gt_save(&self->s.rec.trace, name));
	ASSERT_EQ(0, gt_check_gens(&self->s.rec.trace, variant->format, &g)) {
		TH_LOG("%s: %s", name, g.error);
	}
	EXPECT_EQ(gens, g.nr_gens);
	EXPECT_GT(128, g.max_seq);
	EXPECT_LE(64, g.max_seq);
}

struct pingpong_arg {
	unsigned int ms;
	bool done;
};

static void *pingpong_thread(void *p)
{
	struct pingpong_arg *a = p;

	gt_pingpong(~0UL, a->ms);
	__atomic_store_n(&a->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * read()'s rules across generation boundaries, in small reads after poll():
 * the header once, then batches as they fill, each generation's tables
 * after its events, and end of file after the last generation once stopped.
 * Generation 1 ends, tables and all, long before the stop: the reader gets
 * it while recording goes on, never waiting for data more than a second.
 */
TEST_F_TIMEOUT(gens, small_reads_poll, 120)
{
	struct pollfd pfd = { .fd = self->s.fd, .events = POLLIN };
	struct pingpong_arg arg = { .ms = 600 };
	struct gt_buf t = { 0 };
	unsigned char buf[97];
	size_t at_stop = 0;
	unsigned long reads = 0;
	bool stopped = false;
	pthread_t thread;
	__u64 gen1_end;
	char name[64];
	ssize_t n;
	int r;

	ASSERT_EQ(0, start_gens(self->s.ctl, variant->format, GEN_PERIOD_NS, 0, 0));
	ASSERT_EQ(0, pthread_create(&thread, NULL, pingpong_thread, &arg));
	for (;;) {
		if (!stopped && __atomic_load_n(&arg.done, __ATOMIC_ACQUIRE)) {
			at_stop = t.len;
			ASSERT_EQ(0, gt_stop(self->s.ctl));
			stopped = true;
		}
		r = poll(&pfd, 1, 1000);
		ASSERT_LE(0, r);
		if (!r) {
			/* Recording: a generation ends every 50 ms, with data. */
			ASSERT_TRUE(stopped) {
				TH_LOG("no data for a second while recording, %zu bytes read", t.len);
			}
			continue;
		}
		EXPECT_TRUE(pfd.revents & POLLIN);
		n = read(self->s.fd, buf, sizeof(buf));
		ASSERT_LE(0, n) {
			TH_LOG("read: %s", strerror(errno));
		}
		if (!n) {
			ASSERT_TRUE(stopped) {
				TH_LOG("end of file while recording");
			}
			break;
		}
		reads++;
		ASSERT_EQ(0, gt_buf_add(&t, buf, n));
	}
	pthread_join(thread, NULL);
	ASSERT_LE(GT_HEADER_LEN, t.len);
	EXPECT_EQ(0, memcmp(t.data, gt_header(variant->format), GT_HEADER_LEN));

	snprintf(name, sizeof(name), "generations-small_reads-%s", variant->name);
	{
		struct gotrace_status st;

		status_whole(_metadata, self->s.ctl, &st);
		EXPECT_EQ(t.len, st.bytes_read);
		EXPECT_LE(3, st.generations);
		check_gens(_metadata, &t, variant->format, st.generations, name);
	}
	gen1_end = first_gen_end(&t);
	TH_LOG("%lu reads; generation 1 ends at byte %llu, %zu bytes read at stop",
	       reads, (unsigned long long)gen1_end, at_stop);
	EXPECT_LT(0, gen1_end);
	EXPECT_LE(gen1_end, at_stop);
	gt_buf_free(&t);
}

/*
 * Fork/exec/exit loops on every CPU under the shortest generations (10 ms):
 * every generation's walk gives statuses to threads that are being created
 * and exiting, racing the probes' claims. Nothing may be lost, every
 * generation must be whole.
 */
TEST_F_TIMEOUT(gens, fork_exec_storm, 180)
{
	unsigned long forks, failures;
	struct gt_storm storm;
	__u64 gens, t0, ms;
	char name[64];

	record(_metadata, &self->s, GOTRACE_GEN_PERIOD_MIN_NS, 0, STORM_MAX_TID);
	t0 = gt_now_ms();
	ASSERT_EQ(0, gt_storm_start(&storm));
	gt_msleep(1000);
	EXPECT_EQ(0, gt_storm_stop(&storm, &forks, &failures));
	ms = gt_now_ms() - t0;
	EXPECT_EQ(0, failures);
	EXPECT_LT(0, forks);
	gens = stop(_metadata, &self->s);
	TH_LOG("%lu forks, %llu generations in %llu ms", forks,
	       (unsigned long long)gens, (unsigned long long)ms);
	/* A generation every 10 ms: a fifth of them at least, even emulated. */
	EXPECT_LE(ms / 50, gens);
	snprintf(name, sizeof(name), "generations-storm-%s", variant->name);
	check_gens(_metadata, &self->s.rec.trace, variant->format, gens, name);
}

TEST_HARNESS_MAIN
