// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace's thread table at systemd's pid_max: memory that follows the
 * threads, ids that wrap around the id space, leaves retired and reused.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "gotrace_util.h"

#define PID_MAX		"/proc/sys/kernel/pid_max"
#define NS_LAST_PID	"/proc/sys/kernel/ns_last_pid"
#define SYSTEMD_PID_MAX	4194304UL	/* /usr/lib/sysctl.d/50-pid-max.conf */
#define LEAF_IDS	64		/* GOTRACE_LEAF_IDS */
#define LEAF_BYTES	2048		/* sizeof(struct gotrace_leaf) */
#define MANY		2000		/* threads alive at once */
#define MANY_BYTES	(2 << 20)	/* the most their state may take */
#define WRAP_BEFORE	100		/* ids below pid_max the wrap starts at */
#define WRAP_THREADS	200
#define SPREAD		256		/* threads, each in a leaf of its own */
#define SPREAD_BASE	1048576UL	/* their first id, leaf-aligned */
#define RETIRE_MS	20000		/* the reclaimer runs every 5 s */
#define RETIRE_SLACK	8		/* leaves that may stay (see retire) */

FIXTURE(table) {
	struct gt_session s;
	unsigned long pid_max;	/* to restore, or 0 */
	unsigned long last_pid;	/* where Linux's next id was, to restore; or 0 */
};

FIXTURE_VARIANT(table) {
	__u32 format;
	const char *name;
};

FIXTURE_VARIANT_ADD(table, go1_21) {
	.format = GOTRACE_FORMAT_1_21,
	.name = "1.21",
};

FIXTURE_VARIANT_ADD(table, go1_26) {
	.format = GOTRACE_FORMAT_1_26,
	.name = "1.26",
};

/* Users' machines run systemd, which sets pid_max to 4194304: so do these. */
FIXTURE_SETUP(table)
{
	unsigned long pid_max;

	GT_REQUIRE_DEVICE();
	if (gt_read_ulong(PID_MAX, &pid_max))
		GT_SKIP_TEST("no " PID_MAX);
	if (gt_read_ulong(NS_LAST_PID, &self->last_pid))
		self->last_pid = 0;
	if (pid_max != SYSTEMD_PID_MAX) {
		ASSERT_EQ(0, gt_write_ulong(PID_MAX, SYSTEMD_PID_MAX));
		self->pid_max = pid_max;
	}
	ASSERT_EQ(0, gt_session_start(&self->s, variant->format));
}

/*
 * The tests move Linux's next id up to pid_max: later tests of the same
 * guest get small ids again, as before them.
 */
FIXTURE_TEARDOWN(table)
{
	if (self->last_pid)
		EXPECT_EQ(0, gt_write_ulong(NS_LAST_PID, self->last_pid));
	if (self->pid_max)
		EXPECT_EQ(0, gt_write_ulong(PID_MAX, self->pid_max));
	EXPECT_EQ(0, gt_session_close(&self->s));
}

/* Threads that wait for a pipe to close. */
struct waiters {
	int pipe[2];
	pid_t *tids;
	unsigned int ready;	/* atomic */
};

struct waiter {
	struct waiters *w;
	unsigned int i;
};

static void *wait_main(void *arg)
{
	struct waiter *me = arg;
	char c;

	me->w->tids[me->i] = gettid();
	__atomic_add_fetch(&me->w->ready, 1, __ATOMIC_RELEASE);
	while (read(me->w->pipe[0], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

static void *exit_main(void *arg)
{
	*(pid_t *)arg = gettid();
	return NULL;
}

/* A thread that records its id and exits, joined; its id or -1. */
static pid_t thread_once(void)
{
	pid_t tid = -1;
	pthread_t t;

	if (pthread_create(&t, NULL, exit_main, &tid) || pthread_join(t, NULL))
		return -1;
	return tid;
}

/* The next thread's id is @tid, if nothing else takes it first. */
static int next_tid(pid_t tid)
{
	return gt_write_ulong(NS_LAST_PID, tid - 1);
}

/* The trace as workload-like NAME.trace, checked; nothing may be lost. */
static void table_end(struct __test_metadata *_metadata, struct gt_session *s,
		      const char *version, struct gt_stats *st)
{
	struct gotrace_status status;
	char name[64];

	ASSERT_EQ(0, gt_status(s->ctl, &status));
	EXPECT_EQ(0, status.flags & GOTRACE_STATUS_CUT);
	EXPECT_EQ(0, status.events_lost);
	EXPECT_EQ(0, status.thread_starved);
	snprintf(name, sizeof(name), "table-%s-%s", _metadata->name, version);
	ASSERT_EQ(0, gt_session_stop(s, st, name)) {
		TH_LOG("%s", st->error);
	}
}

/* How many times goroutine @goid was created in the trace (format 1.21). */
static unsigned long creates(struct gt_session *s, __u64 goid)
{
	struct gt_gstats gs;
	struct gt_stats st;

	if (gt_check_goroutine(&s->rec.trace, s->format, goid, &gs, &st))
		return ~0UL;
	return gs.creates;
}

/*
 * 2,000 threads alive at once at pid_max 4194304: their state takes at
 * most 2 MiB, the directory over the whole id space included, where one
 * entry per id took 112 MiB.
 */
TEST_F_TIMEOUT(table, memory, 300)
{
	struct waiters w = { .tids = calloc(MANY, sizeof(pid_t)) };
	struct waiter *me = calloc(MANY, sizeof(*me));
	struct gotrace_status before, during;
	pthread_t *t = calloc(MANY, sizeof(*t));
	pthread_attr_t attr;
	struct gt_stats st;
	unsigned int i, n;

	ASSERT_TRUE(w.tids && me && t);
	ASSERT_EQ(0, pipe(w.pipe));
	ASSERT_EQ(0, gt_status(self->s.ctl, &before));
	EXPECT_EQ(SYSTEMD_PID_MAX, before.max_tid);
	ASSERT_EQ(0, pthread_attr_init(&attr));
	ASSERT_EQ(0, pthread_attr_setstacksize(&attr, 64 << 10));
	for (n = 0; n < MANY; n++) {
		me[n] = (struct waiter){ .w = &w, .i = n };
		ASSERT_EQ(0, pthread_create(&t[n], &attr, wait_main, &me[n]));
	}
	while (__atomic_load_n(&w.ready, __ATOMIC_ACQUIRE) < MANY)
		gt_msleep(10);
	ASSERT_EQ(0, gt_status(self->s.ctl, &during));
	TH_LOG("pid_max %lu: thread state %llu KiB at the start, %llu KiB with %u more threads",
	       SYSTEMD_PID_MAX, before.thread_bytes >> 10,
	       during.thread_bytes >> 10, MANY);
	EXPECT_LT(0, before.thread_bytes);
	EXPECT_GE(MANY_BYTES, during.thread_bytes);
	/* Their leaves, less what the pool gave and has not got back yet. */
	EXPECT_LE(before.thread_bytes + MANY / LEAF_IDS / 2 * LEAF_BYTES,
		  during.thread_bytes);
	close(w.pipe[1]);
	for (i = 0; i < n; i++)
		EXPECT_EQ(0, pthread_join(t[i], NULL));
	close(w.pipe[0]);
	pthread_attr_destroy(&attr);
	table_end(_metadata, &self->s, variant->name, &st);
	if (!gt_format_modern(variant->format)) {
		EXPECT_LE(MANY, st.count[GT_EV_GO_CREATE]);
		EXPECT_EQ(1, creates(&self->s, w.tids[0]));
		EXPECT_EQ(1, creates(&self->s, w.tids[MANY - 1]));
	}
	free(w.tids);
	free(me);
	free(t);
}

/*
 * Ids that come round: threads from WRAP_BEFORE ids below pid_max on,
 * until Linux hands out ids from 300 again. Each is a goroutine of its own.
 */
TEST_F_TIMEOUT(table, wrap, 300)
{
	pid_t tids[WRAP_THREADS], top = 0, low = 0;
	struct gt_stats st;
	unsigned int i;

	if (!self->last_pid)
		SKIP(return, "no " NS_LAST_PID " (CONFIG_CHECKPOINT_RESTORE, CONFIG_PID_NS)");
	ASSERT_EQ(0, next_tid(SYSTEMD_PID_MAX - WRAP_BEFORE));
	for (i = 0; i < WRAP_THREADS; i++) {
		tids[i] = thread_once();
		ASSERT_LT(0, tids[i]);
		if (tids[i] > top)
			top = tids[i];
		if (!low || tids[i] < low)
			low = tids[i];
	}
	TH_LOG("thread ids from %d to %d, then from %d", tids[0], top, low);
	EXPECT_LE(SYSTEMD_PID_MAX - WRAP_BEFORE, (unsigned long)tids[0]);
	EXPECT_EQ(SYSTEMD_PID_MAX - 1, (unsigned long)top);
	EXPECT_GT(SYSTEMD_PID_MAX / 2, (unsigned long)low);
	table_end(_metadata, &self->s, variant->name, &st);
	if (!gt_format_modern(variant->format)) {
		EXPECT_LE(WRAP_THREADS, st.count[GT_EV_GO_CREATE]);
		EXPECT_EQ(1, creates(&self->s, top));
		EXPECT_EQ(1, creates(&self->s, low));
	}
}

/*
 * Threads one by one, each in a leaf of its own (@round: 0 or 1); how many
 * leaves they took, or -1.
 */
static int spread(pid_t *tids, int round)
{
	pid_t *t = tids + round * SPREAD;
	unsigned int i, leaves = 0;

	for (i = 0; i < SPREAD; i++) {
		if (next_tid(SPREAD_BASE + i * LEAF_IDS))
			return -1;
		t[i] = thread_once();
		if (t[i] < 0)
			return -1;
		leaves += !i || t[i] / LEAF_IDS != t[i - 1] / LEAF_IDS;
	}
	return leaves;
}

/*
 * Leaves whose threads all ended are freed while the session records, and
 * their ids' next threads get new leaves. In format 1.21, where a goroutine
 * id may appear once per trace, an id's next thread gets a new goroutine id.
 */
TEST_F_TIMEOUT(table, retire, 300)
{
	struct gotrace_status peak, after;
	pid_t tids[2 * SPREAD];
	unsigned int waited = 0;
	struct gt_stats st;
	int leaves;

	if (!self->last_pid)
		SKIP(return, "no " NS_LAST_PID " (CONFIG_CHECKPOINT_RESTORE, CONFIG_PID_NS)");
	leaves = spread(tids, 0);
	ASSERT_EQ(SPREAD, leaves) {
		TH_LOG("ids %d to %d", tids[0], tids[SPREAD - 1]);
	}
	EXPECT_EQ(SPREAD_BASE, (unsigned long)tids[0]);
	ASSERT_EQ(0, gt_status(self->s.ctl, &peak));
	do {
		gt_msleep(500);
		waited += 500;
		ASSERT_EQ(0, gt_status(self->s.ctl, &after));
	} while (after.thread_leaves_freed < SPREAD - RETIRE_SLACK &&
		 waited < RETIRE_MS);
	TH_LOG("%u threads in leaves of their own, ids %d to %d: %llu KiB, %llu leaves freed; %llu after %u ms: %llu KiB",
	       SPREAD, tids[0], tids[SPREAD - 1], peak.thread_bytes >> 10,
	       peak.thread_leaves_freed, after.thread_leaves_freed, waited,
	       after.thread_bytes >> 10);
	/*
	 * The last thread's leaf also holds the next ids Linux hands out,
	 * to whatever starts meanwhile (a kworker lives on): a few may stay.
	 */
	EXPECT_LE(SPREAD - RETIRE_SLACK, after.thread_leaves_freed);
	EXPECT_GE(peak.thread_bytes - (SPREAD - 64 - RETIRE_SLACK) * LEAF_BYTES,
		  after.thread_bytes);
	ASSERT_EQ(SPREAD, spread(tids, 1));
	EXPECT_EQ(tids[0], tids[SPREAD]);
	table_end(_metadata, &self->s, variant->name, &st);
	if (!gt_format_modern(variant->format)) {
		EXPECT_LE(2 * SPREAD, st.count[GT_EV_GO_CREATE]);
		EXPECT_EQ(1, creates(&self->s, tids[0]));
		EXPECT_EQ(1, creates(&self->s, tids[0] + GT_PID_MAX_LIMIT));
	}
}

TEST_HARNESS_MAIN
