// SPDX-License-Identifier: GPL-2.0
/* gotrace user annotations: tasks, regions and logs through /dev/gotrace-annotate. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest_harness.h"

#include "gotrace_util.h"
#include "tracev2.h"
#include "../userspace/gotrace_annotate.h"

#define ANN_GID		4242		/* annotate_gid in the group test */
#define ANN_MS		20		/* each region lasts at least this long */
#define PARAM_GID	"/sys/module/gotrace/parameters/annotate_gid"
#define MAX_EVENTS	256
#define LINE_MAX_LEN	600

/* The user annotations of a trace, one line per event, by thread. */
struct ann_event {
	pid_t tid;
	char line[LINE_MAX_LEN];
};

struct ann_events {
	struct ann_event ev[MAX_EVENTS];
	unsigned int n;
	char error[400];
};

/* What the threads of the scenario were: filled in as they run. */
struct ann_scene {
	pid_t main_tid, worker_tid, child_tid;
	uint64_t job, sub;
	int worker_err;
};

static void ann_add(struct ann_events *a, uint64_t g, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void ann_add(struct ann_events *a, uint64_t g, const char *fmt, ...)
{
	va_list ap;

	if (a->n == MAX_EVENTS)
		return;
	a->ev[a->n].tid = g % GT_PID_MAX_LIMIT;
	va_start(ap, fmt);
	vsnprintf(a->ev[a->n].line, LINE_MAX_LEN, fmt, ap);
	va_end(ap);
	a->n++;
}

/* The pre-1.22 formats: the events in Go's order, their strings as Go's parser gives them. */
static int ann_sink(void *ctx, const struct gt_trace *t, const struct gt_event *ev)
{
	struct ann_events *a = ctx;
	const char *s[2];
	size_t len[2];
	unsigned int n;

	if (ev->type < GT_EV_USER_TASK_CREATE || ev->type > GT_EV_USER_LOG)
		return 0;
	n = gt_event_strings(t, ev, s, len);
	switch (ev->type) {
	case GT_EV_USER_TASK_CREATE:
		ann_add(a, ev->g, "TaskBegin %" PRIu64 " %" PRIu64 " %.*s", ev->args[0],
			ev->args[1], n ? (int)len[0] : 0, n ? s[0] : "");
		break;
	case GT_EV_USER_TASK_END:
		ann_add(a, ev->g, "TaskEnd %" PRIu64, ev->args[0]);
		break;
	case GT_EV_USER_REGION:
		ann_add(a, ev->g, "%s %" PRIu64 " %.*s",
			ev->args[1] ? "RegionEnd" : "RegionBegin", ev->args[0],
			n ? (int)len[0] : 0, n ? s[0] : "");
		break;
	case GT_EV_USER_LOG:
		ann_add(a, ev->g, "Log %" PRIu64 " %.*s %.*s", ev->args[0],
			n > 0 ? (int)len[0] : 0, n > 0 ? s[0] : "",
			n > 1 ? (int)len[1] : 0, n > 1 ? s[1] : "");
		break;
	}
	return 0;
}

/* A Go-quoted string of a printed event after @key, unquoted into @out. */
static const char *ann_unquote(const char *line, const char *key, char *out, size_t size)
{
	const char *p = strstr(line, key);
	size_t n = 0;

	*out = 0;
	if (!p)
		return out;
	for (p += strlen(key) + 1; *p && *p != '"' && n + 1 < size; p++) {
		if (*p == '\\')
			p++;
		out[n++] = *p;
	}
	out[n] = 0;
	return out;
}

/* A number of a printed event after @key, 0 if it has none. */
static uint64_t ann_num(const char *line, const char *key)
{
	const char *p = strstr(line, key);

	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

/* Formats 1.22 and later: the events as Go's reader returns and prints them. */
static void ann_v2_event(struct ann_events *a, const struct gt2_event *ev, const char *line)
{
	char s1[LINE_MAX_LEN], s2[LINE_MAX_LEN];

	switch (ev->type) {
	case GT2_EV_USER_TASK_BEGIN:
		/* Go's reader says NoTask (all ones) for parent 0. */
		ann_add(a, ev->g, "TaskBegin %" PRIu64 " %" PRIu64 " %s", ann_num(line, " ID="),
			ev->args[1] == UINT64_MAX ? 0 : ev->args[1],
			ann_unquote(line, " Type=", s1, sizeof(s1)));
		break;
	case GT2_EV_USER_TASK_END:
		ann_add(a, ev->g, "TaskEnd %" PRIu64, ann_num(line, " ID="));
		break;
	case GT2_EV_USER_REGION_BEGIN:
	case GT2_EV_USER_REGION_END:
		ann_add(a, ev->g, "%s %" PRIu64 " %s",
			ev->type == GT2_EV_USER_REGION_END ? "RegionEnd" : "RegionBegin",
			ann_num(line, " Task="), ann_unquote(line, " Type=", s1, sizeof(s1)));
		break;
	case GT2_EV_USER_LOG:
		ann_add(a, ev->g, "Log %" PRIu64 " %s %s", ann_num(line, " Task="),
			ann_unquote(line, " Category=", s1, sizeof(s1)),
			ann_unquote(line, " Message=", s2, sizeof(s2)));
		break;
	}
}

static int ann_read_v2(const struct gt_buf *t, struct ann_events *a)
{
	struct gt2_reader *r = NULL;
	struct gt2_trace *trace;
	struct gt2_event ev;
	struct gt_error err;
	char line[2048];
	int n = -1;
	FILE *f;

	if (gt2_open_mem(t->data, t->len, &trace, &err))
		goto fail;
	if (gt2_reader_open(trace, &r, &err))
		goto out;
	while ((n = gt2_reader_next(r, &ev, &err)) > 0) {
		if (ev.type < GT2_EV_USER_TASK_BEGIN || ev.type > GT2_EV_USER_LOG)
			continue;
		f = fmemopen(line, sizeof(line), "w");
		if (!f)
			break;
		gt2_event_print(f, &ev);
		fputc(0, f);
		fclose(f);
		ann_v2_event(a, &ev, line);
	}
	gt2_reader_close(r);
out:
	gt2_close(trace);
	if (!n)
		return 0;
fail:
	snprintf(a->error, sizeof(a->error), "%s", err.msg);
	return -1;
}

/* The user annotations of trace @t, in Go's order. */
static int ann_read(const struct gt_buf *t, __u32 format, struct ann_events *a)
{
	struct gt_trace *trace;
	struct gt_error err;
	int ret;

	memset(a, 0, sizeof(*a));
	if (gt_format_modern(format))
		return ann_read_v2(t, a);
	if (gt_open_mem(t->data, t->len, &trace, &err)) {
		snprintf(a->error, sizeof(a->error), "%s", err.msg);
		return -1;
	}
	ret = gt_replay(trace, ann_sink, a, &err);
	if (ret)
		snprintf(a->error, sizeof(a->error), "%s", err.msg);
	gt_close(trace);
	return ret;
}

/* Thread @tid's annotation lines, joined by newlines. */
static void ann_thread(const struct ann_events *a, pid_t tid, char *out, size_t size)
{
	unsigned int i;
	size_t n = 0;

	*out = 0;
	for (i = 0; i < a->n; i++)
		if (a->ev[i].tid == tid)
			n += snprintf(out + n, size - n, "%s\n", a->ev[i].line);
}

static int ann_open(void)
{
	return open(GOTRACE_ANNOTATE_DEV, O_WRONLY | O_CLOEXEC);
}

/* Raw ioctls: -1 and errno, unlike the client's, which takes ENODATA for 0. */
static int ann_region(int fd, unsigned long cmd, __u32 flags, __u64 task, const char *name)
{
	struct gotrace_region r = {
		.size = sizeof(r), .flags = flags, .task = task,
		.name = (uintptr_t)name, .name_len = name ? strlen(name) : 0,
	};

	return ioctl(fd, cmd, &r);
}

static int ann_task_end(int fd, __u64 id)
{
	struct gotrace_task_end te = { .size = sizeof(te), .id = id };

	return ioctl(fd, GOTRACE_TASK_END, &te);
}

static void *ann_worker(void *arg)
{
	struct ann_scene *sc = arg;
	int fd = ann_open();

	sc->worker_tid = gettid();
	if (fd < 0 ||
	    gotrace_region_begin(fd, sc->job, "worker") ||
	    gotrace_task_begin(fd, sc->job, "sub", &sc->sub) ||
	    gotrace_log(fd, sc->sub, "w", "hello"))
		goto fail;
	usleep(ANN_MS * 1000);
	if (gotrace_region_end(fd, "worker") || gotrace_task_end(fd, sc->sub))
		goto fail;
	close(fd);
	return NULL;
fail:
	sc->worker_err = errno ?: EIO;
	if (fd >= 0)
		close(fd);
	return NULL;
}

/* A second process: a region and an uncategorised write(). */
static int ann_child(struct ann_scene *sc)
{
	static const char text[] = "no category here";
	int fd = ann_open();

	sc->child_tid = gettid();
	if (fd < 0 || gotrace_region_begin(fd, 0, "child"))
		return 1;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		return 2;
	usleep(ANN_MS * 1000);
	return ann_region(fd, GOTRACE_REGION_END, 0, 0, NULL) ? 3 : 0;
}

FIXTURE(annotate) {
	struct gt_session s;
	struct ann_scene *sc;
	int fd;
};

FIXTURE_VARIANT(annotate) {
	__u32 format;
	__u64 gen_period_ns;	/* 0: the default */
	const char *name;
};

FIXTURE_VARIANT_ADD(annotate, v1_21) {
	.format = GOTRACE_FORMAT_1_21,
	.name = "annotate_1_21",
};

FIXTURE_VARIANT_ADD(annotate, v1_11) {
	.format = GOTRACE_FORMAT_1_11,
	.name = "annotate_1_11",
};

FIXTURE_VARIANT_ADD(annotate, v1_23) {
	.format = GOTRACE_FORMAT_1_23,
	.name = "annotate_1_23",
};

FIXTURE_VARIANT_ADD(annotate, v1_26) {
	.format = GOTRACE_FORMAT_1_26,
	.name = "annotate_1_26",
};

/* Tasks and regions across generations, whose tables each hold the strings. */
FIXTURE_VARIANT_ADD(annotate, v1_26_gens) {
	.format = GOTRACE_FORMAT_1_26,
	.gen_period_ns = GOTRACE_GEN_PERIOD_MIN_NS,
	.name = "annotate_1_26_gens",
};

/* gt_session_start(), with the variant's generation period. */
static int ann_start(struct gt_session *s, const FIXTURE_VARIANT(annotate) *variant)
{
	struct gotrace_start args = {
		.size = sizeof(args),
		.format = variant->format,
		.gen_period_ns = variant->gen_period_ns,
	};

	if (!variant->gen_period_ns)
		return gt_session_start(s, variant->format);
	if (gt_session_open(s, variant->format) || ioctl(s->ctl, GOTRACE_START, &args) ||
	    gt_recorder_start(&s->rec, s->fd, GT_READ_CHUNK))
		return -1;
	s->recording = true;
	return 0;
}

FIXTURE_SETUP(annotate)
{
	GT_REQUIRE_DEVICE();
	if (access(GOTRACE_ANNOTATE_DEV, F_OK))
		GT_SKIP_TEST(GOTRACE_ANNOTATE_DEV " is missing");
	self->sc = mmap(NULL, sizeof(*self->sc), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->sc);
	self->fd = ann_open();
	ASSERT_LE(0, self->fd);
	self->s.fd = self->s.ctl = -1;	/* no session until the test starts one */
}

FIXTURE_TEARDOWN(annotate)
{
	if (self->s.fd >= 0)
		gt_session_close(&self->s);
	if (self->fd >= 0)
		close(self->fd);
}

/* Every call while no session records: ENODATA, and the client goes on. */
static void ann_not_recording(struct __test_metadata *_metadata, int fd)
{
	struct gotrace_task_begin tb = { .size = sizeof(tb) };
	uint64_t id = 1;

	errno = 0;
	EXPECT_EQ(-1, write(fd, "x: y\n", 5));
	EXPECT_EQ(ENODATA, errno);
	EXPECT_EQ(-1, ioctl(fd, GOTRACE_TASK_BEGIN, &tb));
	EXPECT_EQ(ENODATA, errno);
	EXPECT_EQ(-1, ann_region(fd, GOTRACE_REGION_BEGIN, 0, 0, "r"));
	EXPECT_EQ(ENODATA, errno);
	EXPECT_EQ(0, gotrace_task_begin(fd, 0, "t", &id));
	EXPECT_EQ(0, id);
	EXPECT_EQ(0, gotrace_log(fd, 0, "c", "m"));
}

TEST_F(annotate, scenario)
{
	char big[1000], got[8192], want[8192], cut[GOTRACE_ANNOTATE_STR_MAX + 1];
	static const char bad_utf8[] = "utf: a\x80" "b\n";
	struct gotrace_task_begin tb = { .size = sizeof(tb) };
	struct ann_scene *sc = self->sc;
	struct gt_stats st;
	struct ann_events *a;
	pthread_t worker;
	int fd = self->fd, status;
	pid_t child;

	ann_not_recording(_metadata, fd);
	ASSERT_EQ(0, ann_start(&self->s, variant));
	sc->main_tid = gettid();

	ASSERT_EQ(0, gotrace_task_begin(fd, 0, "job", &sc->job));
	ASSERT_NE(0, sc->job);
	ASSERT_EQ(0, gotrace_region_begin(fd, sc->job, "outer"));
	ASSERT_EQ(16, write(fd, "phase: starting\n", 16));
	ASSERT_EQ(0, gotrace_log(fd, sc->job, "cat", "msg"));

	ASSERT_EQ(0, pthread_create(&worker, NULL, ann_worker, sc));
	ASSERT_EQ(0, pthread_join(worker, NULL));
	ASSERT_EQ(0, sc->worker_err);
	child = fork();
	ASSERT_LE(0, child);
	if (!child)
		_exit(ann_child(sc));
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_EQ(0, WEXITSTATUS(status));

	/* Bad input: the exact errno, and nothing recorded. */
	EXPECT_EQ(-1, ann_task_end(fd, 999999));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, ann_task_end(fd, sc->sub));	/* ended by the worker */
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, ann_task_end(fd, 0));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, ann_region(fd, GOTRACE_REGION_END, GOTRACE_REGION_NAME, 0, "inner"));
	EXPECT_EQ(EINVAL, errno);			/* innermost is "outer" */
	EXPECT_EQ(-1, ann_region(fd, GOTRACE_REGION_END, 0, sc->job, NULL));
	EXPECT_EQ(EINVAL, errno);			/* an end names no task */
	EXPECT_EQ(-1, ann_region(fd, GOTRACE_REGION_END, 0, 0, "outer"));
	EXPECT_EQ(EINVAL, errno);			/* a name without the flag */
	EXPECT_EQ(-1, ann_region(fd, GOTRACE_REGION_BEGIN, GOTRACE_REGION_NAME, 0, "x"));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ann_region(fd, GOTRACE_REGION_END, 0x80, 0, NULL));
	EXPECT_EQ(EINVAL, errno);
	tb.flags = 1;
	EXPECT_EQ(-1, ioctl(fd, GOTRACE_TASK_BEGIN, &tb));
	EXPECT_EQ(EINVAL, errno);
	tb.flags = 0;
	tb.reserved[1] = 1;
	EXPECT_EQ(-1, ioctl(fd, GOTRACE_TASK_BEGIN, &tb));
	EXPECT_EQ(EINVAL, errno);
	tb.reserved[1] = 0;
	tb.reserved32 = 1;
	EXPECT_EQ(-1, ioctl(fd, GOTRACE_TASK_BEGIN, &tb));
	EXPECT_EQ(EINVAL, errno);
	tb.reserved32 = 0;
	tb.size = GOTRACE_TASK_BEGIN_SIZE_VER0 - 8;
	EXPECT_EQ(-1, ioctl(fd, GOTRACE_TASK_BEGIN, &tb));
	EXPECT_EQ(EINVAL, errno);
	tb.size = 8192;
	EXPECT_EQ(-1, ioctl(fd, GOTRACE_TASK_BEGIN, &tb));
	EXPECT_EQ(E2BIG, errno);
	memset(big, 'a', sizeof(big));
	tb.size = sizeof(tb);
	tb.name = (uintptr_t)big;
	tb.name_len = GOTRACE_ANNOTATE_STR_MAX + 1;
	EXPECT_EQ(-1, ioctl(fd, GOTRACE_TASK_BEGIN, &tb));
	EXPECT_EQ(EMSGSIZE, errno);
	tb.name_len = GOTRACE_ANNOTATE_STR_MAX;
	big[0] = '\x80';				/* escaped: four bytes */
	EXPECT_EQ(-1, ioctl(fd, GOTRACE_TASK_BEGIN, &tb));
	EXPECT_EQ(EMSGSIZE, errno);
	big[0] = 'a';
	EXPECT_EQ(-1, ioctl(fd, GOTRACE_STATUS, &tb));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(fd, GOTRACE_START, &tb));
	EXPECT_EQ(ENOTTY, errno);

	/* Cut messages: write() takes what fits, and says so. */
	EXPECT_EQ(GOTRACE_ANNOTATE_STR_MAX, write(fd, big, sizeof(big)));
	memcpy(big, "big: ", 5);
	EXPECT_EQ(5 + GOTRACE_ANNOTATE_STR_MAX, write(fd, big, sizeof(big)));
	EXPECT_EQ((ssize_t)strlen(bad_utf8), write(fd, bad_utf8, strlen(bad_utf8)));

	ASSERT_EQ(0, gotrace_region_begin(fd, 0, "inner"));
	usleep(ANN_MS * 1000);
	EXPECT_EQ(0, gotrace_region_end(fd, "inner"));
	EXPECT_EQ(0, gotrace_region_end(fd, "outer"));
	EXPECT_EQ(-1, ann_region(fd, GOTRACE_REGION_END, 0, 0, NULL));
	EXPECT_EQ(ENOENT, errno);			/* none open */
	EXPECT_EQ(0, gotrace_task_end(fd, sc->job));

	ASSERT_EQ(0, gt_session_stop(&self->s, &st, variant->name)) TH_LOG("%s", st.error);
	ann_not_recording(_metadata, fd);
	if (variant->gen_period_ns) {
		struct gt_gens g;

		ASSERT_EQ(0, gt_check_gens(&self->s.rec.trace, variant->format, &g))
			TH_LOG("%s", g.error);
		EXPECT_LT(1, g.nr_gens);
	}

	a = malloc(sizeof(*a));
	ASSERT_NE(NULL, a);
	ASSERT_EQ(0, ann_read(&self->s.rec.trace, variant->format, a)) TH_LOG("%s", a->error);

	memset(cut, 'a', GOTRACE_ANNOTATE_STR_MAX);
	cut[GOTRACE_ANNOTATE_STR_MAX] = 0;
	ann_thread(a, sc->main_tid, got, sizeof(got));
	snprintf(want, sizeof(want),
		 "TaskBegin %1$" PRIu64 " 0 job\nRegionBegin %1$" PRIu64 " outer\n"
		 "Log 0 phase starting\nLog %1$" PRIu64 " cat msg\nLog 0  %2$s\n"
		 "Log 0 big %2$s\nLog 0 utf a\\x80b\nRegionBegin 0 inner\n"
		 "RegionEnd 0 inner\nRegionEnd %1$" PRIu64 " outer\nTaskEnd %1$" PRIu64 "\n",
		 sc->job, cut);
	EXPECT_STREQ(want, got);
	ann_thread(a, sc->worker_tid, got, sizeof(got));
	snprintf(want, sizeof(want),
		 "RegionBegin %1$" PRIu64 " worker\nTaskBegin %2$" PRIu64 " %1$" PRIu64 " sub\n"
		 "Log %2$" PRIu64 " w hello\nRegionEnd %1$" PRIu64 " worker\nTaskEnd %2$" PRIu64 "\n",
		 sc->job, sc->sub);
	EXPECT_STREQ(want, got);
	ann_thread(a, sc->child_tid, got, sizeof(got));
	EXPECT_STREQ("RegionBegin 0 child\nLog 0  no category here\nRegionEnd 0 child\n", got);
	EXPECT_EQ(11 + 5 + 3, a->n);
	free(a);
}

/*
 * The session's bounded tables: open regions, strings, tasks. Past each,
 * ENOSPC and nothing recorded; what fits still works; the trace is valid.
 */
TEST_F(annotate, limits)
{
	struct gotrace_task_begin tb = { .size = sizeof(tb), .name = (uintptr_t)"t", .name_len = 1 };
	struct gt_stats st;
	unsigned int i, n;
	char cat[32], name[64];
	int fd = self->fd;

	ASSERT_EQ(0, ann_start(&self->s, variant));
	for (i = 0, n = 0; i < GOTRACE_ANNOTATE_REGIONS; i++)
		n += !!ann_region(fd, GOTRACE_REGION_BEGIN, 0, 0, "nest");
	EXPECT_EQ(0, n);
	EXPECT_EQ(-1, ann_region(fd, GOTRACE_REGION_BEGIN, 0, 0, "nest"));
	EXPECT_EQ(ENOSPC, errno);
	for (i = 0, n = 0; i < GOTRACE_ANNOTATE_REGIONS; i++)
		n += !!ann_region(fd, GOTRACE_REGION_END, GOTRACE_REGION_NAME, 0, "nest");
	EXPECT_EQ(0, n);
	EXPECT_EQ(-1, ann_region(fd, GOTRACE_REGION_END, 0, 0, NULL));
	EXPECT_EQ(ENOENT, errno);

	/* Tasks (once: 65536 of them), before the strings run out. */
	if (variant->format == GOTRACE_FORMAT_1_21) {
		for (i = 0, n = 0; i < GOTRACE_ANNOTATE_TASKS; i++)
			n += !!ioctl(fd, GOTRACE_TASK_BEGIN, &tb);
		EXPECT_EQ(0, n);
		EXPECT_EQ((__u64)GOTRACE_ANNOTATE_TASKS, tb.id);
		EXPECT_EQ(-1, ioctl(fd, GOTRACE_TASK_BEGIN, &tb));
		EXPECT_EQ(ENOSPC, errno);
		EXPECT_EQ(0, ann_task_end(fd, GOTRACE_ANNOTATE_TASKS));
		EXPECT_EQ(-1, ann_task_end(fd, GOTRACE_ANNOTATE_TASKS + 1));
		EXPECT_EQ(ENOENT, errno);
	}

	/* Distinct categories until the strings are full ("nest" is one). */
	for (n = 0; n <= GOTRACE_ANNOTATE_STRINGS; n++) {
		snprintf(cat, sizeof(cat), "c%u", n);
		if (gotrace_log(fd, 0, cat, "m"))
			break;
	}
	EXPECT_EQ(ENOSPC, errno);
	/* "nest"; with generations the message "m" too; in 1.21 the tasks' "t". */
	EXPECT_EQ(GOTRACE_ANNOTATE_STRINGS - 1U - gt_format_modern(variant->format) -
		  (variant->format == GOTRACE_FORMAT_1_21), n);
	EXPECT_EQ(0, gotrace_log(fd, 0, "c0", "m"));	/* known strings still work */
	EXPECT_EQ(0, ann_region(fd, GOTRACE_REGION_BEGIN, 0, 0, "nest"));
	EXPECT_EQ(0, ann_region(fd, GOTRACE_REGION_END, 0, 0, NULL));

	snprintf(name, sizeof(name), "%s-limits", variant->name);
	ASSERT_EQ(0, gt_session_end(&self->s, &st, name)) TH_LOG("%s", st.error);
	if (!gt_format_modern(variant->format))
		EXPECT_EQ(variant->format == GOTRACE_FORMAT_1_21 ? GOTRACE_ANNOTATE_TASKS : 0,
			  st.count[GT_EV_USER_TASK_CREATE]);
}

/* The open() of an unprivileged process, and of one in annotate_gid's group. */
static int ann_open_unprivileged(void *arg)
{
	gid_t gid = ANN_GID;
	int fd;

	if (arg && setgroups(1, &gid))
		return 10;
	fd = ann_open();
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return errno == EPERM ? 1 : 11;
}

TEST_F(annotate, permission)
{
	__u64 caps = GT_CAP(CAP_PERFMON) | GT_CAP(CAP_SYS_ADMIN);
	unsigned long old;

	if (variant->format != GOTRACE_FORMAT_1_21)
		SKIP(return, "once is enough");
	ASSERT_EQ(0, gt_read_ulong(PARAM_GID, &old));
	EXPECT_EQ(ULONG_MAX, old);		/* -1: no group */
	EXPECT_EQ(1, gt_run_without_caps(caps, ann_open_unprivileged, NULL));
	EXPECT_EQ(1, gt_run_without_caps(caps, ann_open_unprivileged, (void *)1));
	ASSERT_EQ(0, gt_write_ulong(PARAM_GID, ANN_GID));
	EXPECT_EQ(0, gt_run_without_caps(caps, ann_open_unprivileged, (void *)1));
	EXPECT_EQ(1, gt_run_without_caps(caps, ann_open_unprivileged, NULL));
	ASSERT_EQ(0, gt_write_file(PARAM_GID, "-1"));
}

/*
 * The nodes keep to their jobs: the annotation node reads nothing (no
 * read()), /dev/gotrace takes no annotation (ENOTTY).
 */
TEST_F(annotate, separate_nodes)
{
	struct gotrace_log l = { .size = sizeof(l) };
	int fd = open(GOTRACE_ANNOTATE_DEV, O_RDONLY), ctl;
	char c;

	if (variant->format != GOTRACE_FORMAT_1_21)
		SKIP(return, "once is enough");
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, read(fd, &c, 1));
	EXPECT_EQ(EINVAL, errno);
	close(fd);
	ctl = gt_dev_open(O_WRONLY);
	ASSERT_LE(0, ctl);
	EXPECT_EQ(-1, ioctl(ctl, GOTRACE_LOG, &l));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, write(ctl, "x: y\n", 5));
	EXPECT_EQ(EINVAL, errno);		/* /dev/gotrace has no write() */
	close(ctl);
}

TEST_HARNESS_MAIN
