// SPDX-License-Identifier: GPL-2.0
/* gotrace views: record named workloads whose waits Go's profiles must explain. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"

#include "gotrace_util.h"
#include "workload.h"
#include "../userspace/gotrace_annotate.h"

#ifndef GOTRACE_START_KSTACKS
#define GOTRACE_START_KSTACKS	0x1	/* kernel stacks at block points */
#endif

/*
 * The module numbers the stacks [reason, program] it uses, up to this many
 * ids (GOTRACE_STACKS_MAX in module/stacks.h); the last one is shared by
 * every stack past the others, and its frame is FULL_FRAME.
 */
#define STACKS_MAX	12288
#define FULL_FRAME	"(stack table full)"
#define STACK_NAMES	3600		/* 4 stacks each: past STACKS_MAX */

#define VIEWS_MS	1500		/* how long each part runs, about */
/* User annotations views-check.sh finds on Go's /usertasks and /userregions. */
#define VIEWS_TASK	"gt-views"	/* spans the workload */
#define VIEWS_REGION	"gt-views-sleep"	/* gt-sleep's part, on its thread */

/* /dev/gotrace-annotate and the views task, inherited by the parts. */
static int views_ann = -1;
static uint64_t views_task;
#define SLEEP_MS	3
#define TICK_MS		10

/* Each part's argument points to the ms it should run. */
static int views_mutex(void *ms)
{
	return gt_mutex_contend(4, ULONG_MAX, *(unsigned int *)ms);
}

static int views_tcp(void *ms)
{
	return gt_tcp_pingpong(ULONG_MAX, *(unsigned int *)ms, "gt-tcp-cli");
}

static int views_sleep(void *ms)
{
	int ret;

	if (gotrace_region_begin(views_ann, views_task, VIEWS_REGION))
		return 1;
	ret = gt_sleepers(1, *(unsigned int *)ms / SLEEP_MS,
			  SLEEP_MS * 1000000L);
	return gotrace_region_end(views_ann, VIEWS_REGION) ? 1 : ret;
}

static int views_pipe(void *ms)
{
	return gt_pipe_timer(*(unsigned int *)ms / TICK_MS, TICK_MS * 1000000L,
			     "gt-pipe-timer");
}

static int views_hog(void *ms)
{
	return gt_hogs(2, *(unsigned int *)ms);
}

/*
 * The workload: each part runs at the same time in a child process that
 * names itself first. The host's views-check.sh looks for these names.
 */
static const struct {
	const char *name;
	int (*fn)(void *arg);
} parts[] = {
	{ "gt-mutex", views_mutex },	/* futex waits */
	{ "gt-tcp-srv", views_tcp },	/* accept and recv; child gt-tcp-cli */
	{ "gt-sleep", views_sleep },	/* nanosleep */
	{ "gt-pipe", views_pipe },	/* read; thread gt-pipe-timer writes */
	{ "gt-hog", views_hog },	/* two spinners preempting each other */
};

/* Every program name the workload runs under. */
static const char *const programs[] = {
	"gt-mutex", "gt-tcp-srv", "gt-tcp-cli", "gt-sleep", "gt-pipe",
	"gt-pipe-timer", "gt-hog",
};

#define NR_PARTS ARRAY_SIZE(parts)
#define NR_PROGRAMS ARRAY_SIZE(programs)

/* Whether the trace defines the string @s (a String event: length, bytes). */
static bool has_string(const struct gt_buf *t, const char *s)
{
	size_t len = strlen(s);
	char needle[128];

	if (len + 1 > sizeof(needle) || len > 127)
		return false;
	needle[0] = len;
	memcpy(needle + 1, s, len);
	return memmem(t->data, t->len, needle, len + 1);
}

FIXTURE(views) {
	struct gt_session s;
};

FIXTURE_VARIANT(views) {
	__u32 format;
	__u32 flags;
	const char *mode;	/* the stack mode, as views-check.sh reads it */
	const char *version;
};

FIXTURE_VARIANT_ADD(views, default_1_21) {
	.format = GOTRACE_FORMAT_1_21,
	.mode = "default",
	.version = "1.21",
};

FIXTURE_VARIANT_ADD(views, kstacks_1_21) {
	.format = GOTRACE_FORMAT_1_21,
	.flags = GOTRACE_START_KSTACKS,
	.mode = "kstacks",
	.version = "1.21",
};

FIXTURE_VARIANT_ADD(views, default_1_19) {
	.format = GOTRACE_FORMAT_1_19,
	.mode = "default",
	.version = "1.19",
};

FIXTURE_VARIANT_ADD(views, default_1_26) {
	.format = GOTRACE_FORMAT_1_26,
	.mode = "default",
	.version = "1.26",
};

FIXTURE_VARIANT_ADD(views, kstacks_1_26) {
	.format = GOTRACE_FORMAT_1_26,
	.flags = GOTRACE_START_KSTACKS,
	.mode = "kstacks",
	.version = "1.26",
};

FIXTURE_SETUP(views)
{
	GT_REQUIRE_DEVICE();
	ASSERT_EQ(0, gt_session_start_flags(&self->s, variant->format,
					    variant->flags)) {
		TH_LOG("starting a %s session (flags %#x): %s", variant->mode,
		       variant->flags, strerror(errno));
	}
}

FIXTURE_TEARDOWN(views)
{
	EXPECT_EQ(0, gt_session_close(&self->s));
}

/*
 * Record the workload as views-MODE-VERSION.trace. Here: the whole of it
 * (not cut, nothing lost), valid, and naming every program; the host's
 * views-check.sh asserts what Go's profiles and pages make of it, and
 * finds its task VIEWS_TASK and gt-sleep's region VIEWS_REGION on Go's
 * pages of user annotations.
 */
TEST_F_TIMEOUT(views, workload, 300)
{
	const struct gt_buf *t = &self->s.rec.trace;
	unsigned int i, ms = VIEWS_MS;
	struct gotrace_status status;
	struct gt_stats st;
	pid_t pid[NR_PARTS];
	char name[64];

	views_ann = gotrace_annotate_open();
	ASSERT_LE(0, views_ann);
	ASSERT_EQ(0, gotrace_task_begin(views_ann, 0, VIEWS_TASK, &views_task));
	ASSERT_NE(0, views_task);
	for (i = 0; i < NR_PARTS; i++)
		pid[i] = gt_spawn(parts[i].name, parts[i].fn, &ms);
	for (i = 0; i < NR_PARTS; i++) {
		EXPECT_EQ(0, gt_reap(pid[i])) {
			TH_LOG("workload part %s failed", parts[i].name);
		}
	}
	EXPECT_EQ(0, gotrace_task_end(views_ann, views_task));
	close(views_ann);

	ASSERT_EQ(0, gt_status(self->s.ctl, &status));
	EXPECT_EQ(GOTRACE_STATE_TRACING, status.state);
	EXPECT_EQ(0, status.flags & GOTRACE_STATUS_CUT);
	EXPECT_EQ(0, status.events_lost);
	EXPECT_LT(0, status.events);
	snprintf(name, sizeof(name), "views-%s-%s", variant->mode,
		 variant->version);
	ASSERT_EQ(0, gt_session_stop(&self->s, &st, name)) {
		TH_LOG("%s", st.error);
	}
	if (gt_format_modern(variant->format)) {
		struct gt_gens g;

		ASSERT_EQ(0, gt_check_gens(t, variant->format, &g)) {
			TH_LOG("%s", g.error);
		}
		EXPECT_LT(0, g.event_batches);
	} else {
		EXPECT_LE(NR_PROGRAMS, st.count[GT_EV_GO_CREATE]);
		EXPECT_LT(0, gt_wakeups(&st));
	}
	for (i = 0; i < NR_PROGRAMS; i++) {
		EXPECT_TRUE(has_string(t, programs[i])) {
			TH_LOG("the trace names no program '%s'", programs[i]);
		}
	}
	EXPECT_FALSE(has_string(t, FULL_FRAME));
	TH_LOG("%s: %llu events, %zu bytes", name,
	       (unsigned long long)status.events, t->len);
}

/*
 * Under *@names names in turn, block in two system calls: each name
 * uses four stacks (its create stack, its creator's after the rename, and
 * the two calls), more than the module numbers.
 */
static int stacks_many(void *names)
{
	/*
	 * Long enough to block: a sleep whose timer expires before the
	 * thread reaches schedule() (1 us did, in the debug kernel's guest
	 * on a loaded host: 8,429 stacks) never switches out.
	 */
	struct timespec ts = { .tv_nsec = 200000 };
	unsigned int i, n = *(unsigned int *)names;
	char name[24];

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "gt-st-%u", i);
		if (prctl(PR_SET_NAME, name) ||
		    syscall(SYS_nanosleep, &ts, NULL) ||
		    syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &ts, NULL))
			return 1;
	}
	return 0;
}

/*
 * Past STACKS_MAX stacks, new ones share the last id: nothing is lost or
 * cut, the trace stays valid, has exactly STACKS_MAX stacks, the shared one
 * says what it is, and the programs named after the table filled are there.
 */
TEST(stacks_run_out)
{
	unsigned int names = STACK_NAMES;
	struct gotrace_status status;
	struct gt_session s;
	struct gt_stats st;
	char last[24];

	GT_REQUIRE_DEVICE();
	ASSERT_EQ(0, gt_session_start(&s, GOTRACE_FORMAT_DEFAULT));
	ASSERT_EQ(0, gt_reap(gt_spawn("gt-st", stacks_many, &names)));
	ASSERT_EQ(0, gt_status(s.ctl, &status));
	EXPECT_EQ(0, status.flags & GOTRACE_STATUS_CUT);
	EXPECT_EQ(0, status.events_lost);
	ASSERT_EQ(0, gt_session_stop(&s, &st, "stacks-full")) {
		TH_LOG("%s", st.error);
	}
	EXPECT_EQ(STACKS_MAX, st.nr_stacks);
	EXPECT_TRUE(has_string(&s.rec.trace, FULL_FRAME));
	snprintf(last, sizeof(last), "gt-st-%u", STACK_NAMES - 1);
	EXPECT_TRUE(has_string(&s.rec.trace, last));
	TH_LOG("%lu stacks, %lu goroutines created, %zu bytes",
	       st.nr_stacks, st.count[GT_EV_GO_CREATE],
	       s.rec.trace.len);
	EXPECT_EQ(0, gt_session_close(&s));
}

TEST_HARNESS_MAIN
