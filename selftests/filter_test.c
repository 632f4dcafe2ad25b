// SPDX-License-Identifier: GPL-2.0
/*
 * Filters at start (struct gotrace_start, GOTRACE_START_SIZE_VER1): by
 * process, by process and its descendants, by program name (threads
 * renamed into and out of it), by cgroup v2 directory (threads moved in and
 * out, a child cloned into it); a traced thread woken by, or created by, an
 * untraced one; and the bad inputs, each with its errno.
 *
 * Each scenario runs in a worker process forked before the start and held
 * until it, which reports every thread it makes as expected in the trace
 * or not. The trace, read with libgtrace in both formats (1.21 and 1.26),
 * must name exactly the expected threads; it is kept in GOTRACE_TRACE_DIR
 * for the host's Go readers (scripts/oracles/go-check.sh).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/magic.h>
#include <linux/sched.h>

#include "kselftest_harness.h"

#include "gotrace_util.h"
#include "tracev2.h"

#define FT_CGROUP_ROOT	"/sys/fs/cgroup"
#define FT_CGROUP	FT_CGROUP_ROOT "/gotrace-filter"
#define FT_MAX_TIDS	64
#define FT_STANDIN	"(untraced thread)"

/* A thread a worker reports: whether the trace must show it. */
struct ft_report {
	pid_t tid;
	int expected;
};

/* A scenario, run in the worker process; @out is where it reports. */
typedef void (*ft_scenario)(int out);

/* The worker: forked before the start, released after it. */
struct ft_worker {
	pid_t pid;
	int cork;		/* write a byte: the scenario runs */
	int reports;		/* what it reported */
};

static void ft_report(int out, pid_t tid, int expected)
{
	struct ft_report r = { .tid = tid, .expected = expected };

	if (write(out, &r, sizeof(r)) != sizeof(r))
		_exit(3);
}

static int ft_spawn(struct ft_worker *w, ft_scenario fn)
{
	int cork[2], rep[2];
	char go;

	if (pipe2(cork, O_CLOEXEC) || pipe2(rep, O_CLOEXEC))
		return -1;
	w->pid = fork();
	if (w->pid < 0)
		return -1;
	if (!w->pid) {
		close(cork[1]);
		close(rep[0]);
		if (read(cork[0], &go, 1) != 1)
			_exit(2);
		fn(rep[1]);
		_exit(0);
	}
	close(cork[0]);
	close(rep[1]);
	w->cork = cork[1];
	w->reports = rep[0];
	return 0;
}

/* Release the worker, wait for it, read its reports (its main thread first). */
static int ft_finish(struct ft_worker *w, struct ft_report *r, int max)
{
	int n = 1, status;
	ssize_t got;

	r[0].tid = w->pid;
	r[0].expected = -1;	/* the scenario says */
	if (write(w->cork, "", 1) != 1)
		return -1;
	close(w->cork);
	while (n < max) {
		got = read(w->reports, &r[n], sizeof(r[n]));
		if (got != sizeof(r[n]))
			break;
		if (r[n].tid == w->pid) {
			r[0].expected = r[n].expected;
			continue;
		}
		n++;
	}
	close(w->reports);
	if (waitpid(w->pid, &status, 0) != w->pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -1;
	return n;
}

/* A short round of sleeping and waking: a thread that runs in the trace. */
static void ft_work(void)
{
	int i;

	for (i = 0; i < 5; i++)
		usleep(2000);
}

static void ft_name(const char *name)
{
	if (prctl(PR_SET_NAME, name))
		_exit(4);
}

/* The threads of a trace: every goroutine an event names. */
struct ft_seen {
	unsigned char *tids;	/* [GT_PID_MAX_LIMIT] */
	pid_t created;		/* pre-1.22: the thread whose creator... */
	__u64 creator;		/* ...is this stack */
};

static void ft_see(struct ft_seen *s, __u64 goid)
{
	if (goid)
		s->tids[goid % GT_PID_MAX_LIMIT] = 1;
}

static int ft_sink(void *ctx, const struct gt_trace *t, const struct gt_event *ev)
{
	struct ft_seen *s = ctx;

	(void)t;
	ft_see(s, ev->g);
	if (ev->type == GT_EV_GO_CREATE && s->created &&
	    ev->args[0] % GT_PID_MAX_LIMIT == (__u64)s->created)
		s->creator = ev->stk;
	switch (ev->type) {
	case GT_EV_GO_CREATE:
	case GT_EV_GO_START:
	case GT_EV_GO_UNBLOCK:
	case GT_EV_GO_WAITING:
	case GT_EV_GO_IN_SYSCALL:
	case GT_EV_GO_SYSEXIT:
		ft_see(s, ev->args[0]);
		break;
	}
	return 0;
}

static int ft_seen_old(const struct gt_buf *b, struct ft_seen *s, struct gt_error *err)
{
	struct gt_trace *t;
	int ret;

	struct gt_frame f[4];
	unsigned int i, depth;
	const char *fn;
	size_t len;

	if (gt_open_mem(b->data, b->len, &t, err))
		return -1;
	ret = gt_check(t, ft_sink, s, err);
	/* The stand-in creator's stack names it. */
	depth = s->creator ? gt_stack(t, s->creator, f, 4) : 0;
	s->creator = 0;
	for (i = 0; i < depth && i < 4; i++) {
		fn = gt_string(t, f[i].fn, &len);
		if (len == strlen(FT_STANDIN) && !memcmp(fn, FT_STANDIN, len))
			s->creator = 1;
	}
	gt_close(t);
	return ret;
}

static int ft_seen_v2(const struct gt_buf *b, struct ft_seen *s, struct gt_error *err)
{
	struct gt2_reader *r = NULL;
	struct gt2_trace *t;
	struct gt2_event ev;
	int n = -1;

	if (gt2_open_mem(b->data, b->len, &t, err))
		return -1;
	if (gt2_reader_open(t, &r, err))
		goto out;
	while ((n = gt2_reader_next(r, &ev, err)) > 0) {
		if (ev.g > 0)
			ft_see(s, ev.g);
		switch (ev.type) {
		case GT2_EV_GO_CREATE:
		case GT2_EV_GO_CREATE_SYSCALL:
		case GT2_EV_GO_CREATE_BLOCKED:
		case GT2_EV_GO_START:
		case GT2_EV_GO_UNBLOCK:
		case GT2_EV_GO_STATUS:
		case GT2_EV_GO_STATUS_STACK:
			ft_see(s, ev.args[0]);
			break;
		}
	}
	gt2_reader_close(r);
out:
	gt2_close(t);
	return n;
}

/* A filtered session in @format, its reader running. */
static void ft_start(struct __test_metadata *_metadata, struct gt_session *s,
		     __u32 format, struct gotrace_start *args)
{
	ASSERT_EQ(0, gt_session_open(s, format));
	args->size = sizeof(*args);
	args->format = format;
	ASSERT_EQ(0, ioctl(s->ctl, GOTRACE_START, args)) {
		TH_LOG("GOTRACE_START: %s", strerror(errno));
	}
	ASSERT_EQ(0, gt_recorder_start(&s->rec, s->fd, GT_READ_CHUNK));
	s->recording = true;
}

/*
 * The trace @b in @format, kept as NAME, names exactly the @n threads
 * expected in @r; and, before 1.22, @standin_created (if not 0) was
 * created by the stand-in creator.
 */
static void ft_check(struct __test_metadata *_metadata, __u32 format,
		     const struct gt_buf *b, const char *name,
		     const struct ft_report *r, int n, pid_t standin_created)
{
	struct ft_seen seen = { .tids = calloc(GT_PID_MAX_LIMIT, 1),
				.created = standin_created };
	struct gt_error err = {};
	int i, expected = 0, shown = 0;

	ASSERT_NE(NULL, seen.tids);
	ASSERT_LE(0, gt_format_modern(format) ? ft_seen_v2(b, &seen, &err) :
		  ft_seen_old(b, &seen, &err)) {
		TH_LOG("%s: %s", name, err.msg);
	}
	for (i = 0; i < n; i++) {
		EXPECT_EQ(r[i].expected, seen.tids[r[i].tid]) {
			TH_LOG("%s: thread %d (report %d) %s in the trace", name,
			       r[i].tid, i, seen.tids[r[i].tid] ? "is" : "is not");
		}
		expected += r[i].expected;
	}
	if (standin_created && !gt_format_modern(format)) {
		EXPECT_EQ(1, seen.creator) {
			TH_LOG("%s: thread %d was not created by " FT_STANDIN,
			       name, standin_created);
		}
	}
	for (i = 1; i < GT_PID_MAX_LIMIT; i++)
		shown += seen.tids[i];
	EXPECT_EQ(expected, shown) {
		for (i = 1; i < GT_PID_MAX_LIMIT; i++)
			if (seen.tids[i])
				TH_LOG("%s shows thread %d", name, i);
	}
	free(seen.tids);
}

/* Stop, keep the trace as NAME, check it whole and with ft_check(). */
static void ft_stop(struct __test_metadata *_metadata, struct gt_session *s,
		    const char *name, const struct ft_report *r, int n,
		    pid_t standin_created)
{
	struct gotrace_status st;
	struct gt_stats gst;

	ASSERT_EQ(0, gt_session_stop(s, &gst, name)) {
		TH_LOG("%s: %s", name, gst.error);
	}
	ASSERT_EQ(0, gt_status(s->ctl, &st));
	EXPECT_EQ(0, st.events_lost);
	ft_check(_metadata, s->format, &s->rec.trace, name, r, n, standin_created);
}

static bool ft_has_standin(const struct gt_buf *b)
{
	return memmem(b->data, b->len, FT_STANDIN, strlen(FT_STANDIN));
}

/* Its threads, a ping-pong between two of them; a child process not traced. */
static void *ft_pinger(void *arg)
{
	int *fds = arg;
	char c = 0;
	int i;

	for (i = 0; i < 5; i++)
		if (write(fds[1], &c, 1) != 1 || read(fds[2], &c, 1) != 1)
			_exit(5);
	return NULL;
}

static void *ft_ponger(void *arg)
{
	int *fds = arg;
	char c;
	int i;

	for (i = 0; i < 5; i++)
		if (read(fds[0], &c, 1) != 1 || write(fds[3], &c, 1) != 1)
			_exit(5);
	return NULL;
}

static pid_t ft_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* A thread that reports itself, then runs @fn. */
struct ft_thread {
	int out, expected;
	void *(*fn)(void *);
	void *arg;
};

static void *ft_thread_main(void *arg)
{
	struct ft_thread *t = arg;

	ft_report(t->out, ft_gettid(), t->expected);
	return t->fn(t->arg);
}

static void ft_fork_child(int out, int expected, int depth);

static void sc_process(int out)
{
	int p1[2], p2[2], fds[4];
	struct ft_thread a = { out, 1, ft_pinger, fds }, b = { out, 1, ft_ponger, fds };
	pthread_t ta, tb;

	ft_report(out, getpid(), 1);
	if (pipe(p1) || pipe(p2))
		_exit(6);
	fds[0] = p1[0];
	fds[1] = p1[1];
	fds[2] = p2[0];
	fds[3] = p2[1];
	if (pthread_create(&ta, NULL, ft_thread_main, &a) ||
	    pthread_create(&tb, NULL, ft_thread_main, &b))
		_exit(6);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	ft_fork_child(out, 0, 1);	/* another process: not traced */
}

/* A child process, and its own to @depth; each reported as @expected. */
static void ft_fork_child(int out, int expected, int depth)
{
	pid_t pid;
	int status;

	if (!depth)
		return;
	pid = fork();
	if (pid < 0)
		_exit(7);
	if (!pid) {
		ft_report(out, getpid(), expected);
		ft_work();
		ft_fork_child(out, expected, depth - 1);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		_exit(7);
}

static void sc_descendants(int out)
{
	ft_report(out, getpid(), 1);
	ft_work();
	ft_fork_child(out, 1, 3);
}

/* Name filter "gtf-in": threads renamed into it and out of it. */
struct ft_named {
	int out;
	pid_t tid;		/* ft_named_renamed()'s */
	int gate[2];		/* a byte: go on */
	int done[2];		/* a byte: blocked again, or done */
};

static void *ft_named_stays(void *arg)
{
	struct ft_named *n = arg;

	ft_report(n->out, ft_gettid(), 1);
	ft_work();
	return NULL;
}

static void *ft_named_leaves(void *arg)
{
	struct ft_named *n = arg;

	ft_report(n->out, ft_gettid(), 1);
	ft_work();
	ft_name("gtf-gone");
	ft_work();
	return NULL;
}

static void *ft_named_enters(void *arg)
{
	struct ft_named *n = arg;

	ft_report(n->out, ft_gettid(), 1);
	ft_work();
	ft_name("gtf-in");
	ft_work();
	return NULL;
}

static void *ft_named_never(void *arg)
{
	struct ft_named *n = arg;

	ft_report(n->out, ft_gettid(), 0);
	ft_work();
	return NULL;
}

/* Renamed by another thread (/proc) while it waits: leaves when it runs again. */
static void *ft_named_renamed(void *arg)
{
	struct ft_named *n = arg;
	char c;

	n->tid = ft_gettid();
	ft_report(n->out, n->tid, 1);
	if (write(n->done[1], "", 1) != 1 || read(n->gate[0], &c, 1) != 1)
		_exit(8);
	ft_work();
	return NULL;
}

static void ft_spawn_thread(pthread_t *t, void *(*fn)(void *), void *arg)
{
	if (pthread_create(t, NULL, fn, arg))
		_exit(9);
}

static void sc_names(int out)
{
	struct ft_named n = { .out = out };
	pthread_t t[5];
	char path[64];
	int fd, i;

	char c;

	if (pipe(n.gate) || pipe(n.done))
		_exit(9);
	ft_report(out, getpid(), 1);	/* it is gtf-in for a while */
	ft_work();
	ft_name("gtf-in");
	ft_work();
	ft_spawn_thread(&t[0], ft_named_stays, &n);	/* born gtf-in */
	ft_spawn_thread(&t[1], ft_named_leaves, &n);
	ft_spawn_thread(&t[2], ft_named_renamed, &n);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	if (read(n.done[0], &c, 1) != 1)
		_exit(10);
	usleep(20000);			/* t[2] waits on the gate */
	snprintf(path, sizeof(path), "/proc/self/task/%d/comm", (int)n.tid);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, "gtf-gone", 8) != 8)
		_exit(10);
	close(fd);
	if (write(n.gate[1], "", 1) != 1)
		_exit(10);
	pthread_join(t[2], NULL);
	ft_name("gtf-main");		/* leaves */
	ft_work();
	ft_spawn_thread(&t[3], ft_named_enters, &n);	/* born gtf-main */
	ft_spawn_thread(&t[4], ft_named_never, &n);
	for (i = 3; i < 5; i++)
		pthread_join(t[i], NULL);
}

/* Whether the kernel has cgroup v2 (CONFIG_CGROUPS): /proc/filesystems names it. */
static bool ft_have_cgroup2(void)
{
	char line[128];
	bool have = false;
	FILE *f = fopen("/proc/filesystems", "re");

	while (f && !have && fgets(line, sizeof(line), f))
		have = strstr(line, "\tcgroup2\n");
	if (f)
		fclose(f);
	return have;
}

/* Tracing by cgroup: cgroup2 mounted at FT_CGROUP_ROOT, FT_CGROUP made. */
static bool ft_cgroup_ready(void)
{
	struct statfs sf;

	if (statfs(FT_CGROUP_ROOT, &sf) || sf.f_type != CGROUP2_SUPER_MAGIC) {
		if (mount("none", FT_CGROUP_ROOT, "cgroup2", 0, NULL))
			return false;
	}
	return !mkdir(FT_CGROUP, 0755) || errno == EEXIST;
}

static void ft_cgroup_move(const char *dir, pid_t pid)
{
	char path[128], num[32];
	int fd, len;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	len = snprintf(num, sizeof(num), "%d", (int)pid);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, num, len) != len)
		_exit(11);
	close(fd);
}

static void *ft_cg_thread(void *arg)
{
	struct ft_named *n = arg;

	ft_report(n->out, ft_gettid(), 1);
	if (write(n->done[1], "", 1) != 1)
		_exit(12);
	/* Moved out with its process while it sleeps here. */
	ft_work();
	ft_work();
	return NULL;
}

static void sc_cgroup(int out)
{
	struct ft_named n = { .out = out };
	pthread_t t;
	char c;

	if (pipe(n.done))
		_exit(12);
	ft_report(out, getpid(), 1);
	ft_work();			/* not traced yet */
	ft_cgroup_move(FT_CGROUP, getpid());	/* enters */
	ft_work();
	ft_spawn_thread(&t, ft_cg_thread, &n);	/* born inside */
	if (read(n.done[0], &c, 1) != 1)
		_exit(12);
	ft_cgroup_move(FT_CGROUP_ROOT, getpid());	/* both leave */
	ft_work();
	pthread_join(t, NULL);
}

/* A child of the test (untraced) cloned into FT_CGROUP: a stand-in creates it. */
static pid_t ft_clone_into(int cgroup_fd)
{
	struct clone_args ca = {
		.flags = CLONE_INTO_CGROUP,
		.exit_signal = SIGCHLD,
		.cgroup = (__u64)cgroup_fd,
	};
	pid_t pid = (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));

	if (!pid) {
		ft_work();
		_exit(0);
	}
	return pid;
}

/* Traced by its process id, blocked on a pipe the test (untraced) writes. */
static int ft_wake_pipe[2];

static void sc_woken(int out)
{
	char c;

	ft_report(out, getpid(), 1);
	if (read(ft_wake_pipe[0], &c, 1) != 1)
		_exit(13);
	ft_work();
}

FIXTURE(filter) {
	struct gt_session s;
	struct ft_worker w;
	struct ft_report r[FT_MAX_TIDS];
	char name[64];
};

FIXTURE_VARIANT(filter) {
	__u32 format;
	const char *name;
};

FIXTURE_VARIANT_ADD(filter, go1_21) {
	.format = GOTRACE_FORMAT_1_21,
	.name = "1.21",
};

FIXTURE_VARIANT_ADD(filter, go1_26) {
	.format = GOTRACE_FORMAT_1_26,
	.name = "1.26",
};

FIXTURE_SETUP(filter)
{
	GT_REQUIRE_DEVICE();
	memset(&self->s, 0, sizeof(self->s));
	self->s.fd = self->s.ctl = -1;
}

FIXTURE_TEARDOWN(filter)
{
	if (self->s.ctl >= 0)
		gt_session_close(&self->s);
}

/* Record scenario @fn with @args (its worker's pid filled in if asked). */
static int ft_run(struct __test_metadata *_metadata, FIXTURE_DATA(filter) *self,
		  const FIXTURE_VARIANT(filter) *variant, const char *what,
		  ft_scenario fn, struct gotrace_start *args, bool by_worker_pid)
{
	__u32 tgid;
	int n;

	snprintf(self->name, sizeof(self->name), "filter-%s-%s", what, variant->name);
	if (ft_spawn(&self->w, fn))
		return -1;
	tgid = (__u32)self->w.pid;
	if (by_worker_pid) {
		args->tgids = (__u64)(uintptr_t)&tgid;
		args->nr_tgids = 1;
	}
	ft_start(_metadata, &self->s, variant->format, args);
	n = ft_finish(&self->w, self->r, FT_MAX_TIDS);
	return n;
}

/* Its threads; not its child process, nor the test's threads. */
TEST_F_TIMEOUT(filter, by_process, 60)
{
	struct gotrace_start args = {};
	int n = ft_run(_metadata, self, variant, "process", sc_process, &args, true);

	ASSERT_EQ(4, n);
	ft_stop(_metadata, &self->s, self->name, self->r, n, 0);
}

/* GOTRACE_START_DESCENDANTS: a chain of three processes forked from it. */
TEST_F_TIMEOUT(filter, descendants, 60)
{
	struct gotrace_start args = { .flags = GOTRACE_START_DESCENDANTS };
	int n = ft_run(_metadata, self, variant, "descendants", sc_descendants,
		       &args, true);

	ASSERT_EQ(4, n);
	ft_stop(_metadata, &self->s, self->name, self->r, n, 0);
}

/* By name: born in, renamed out (by itself, by another thread), renamed in. */
TEST_F_TIMEOUT(filter, by_name, 60)
{
	char names[2][GOTRACE_FILTER_COMM_LEN] = { "gtf-other", "gtf-in" };
	struct gotrace_start args = {
		.comms = (__u64)(uintptr_t)names,
		.nr_comms = 2,
	};
	int n = ft_run(_metadata, self, variant, "name", sc_names, &args, false);

	ASSERT_EQ(6, n);
	ft_stop(_metadata, &self->s, self->name, self->r, n, 0);
}

/* By cgroup: moved in and out, with a thread; a child cloned into it. */
TEST_F_TIMEOUT(filter, by_cgroup, 60)
{
	struct gotrace_start args = { .flags = GOTRACE_START_CGROUP };
	int cg, n, status;
	pid_t child;

	if (!ft_cgroup_ready())
		SKIP(return, "cannot mount cgroup2 at " FT_CGROUP_ROOT ": %s",
		     strerror(errno));
	cg = open(FT_CGROUP, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, cg);
	args.cgroup_fd = (__u32)cg;
	n = ft_run(_metadata, self, variant, "cgroup", sc_cgroup, &args, false);
	ASSERT_EQ(2, n);
	child = ft_clone_into(cg);
	ASSERT_LT(0, child);
	ASSERT_EQ(child, waitpid(child, &status, 0));
	self->r[n].tid = child;
	self->r[n++].expected = 1;
	ft_stop(_metadata, &self->s, self->name, self->r, n, child);
	EXPECT_TRUE(ft_has_standin(&self->s.rec.trace)) {
		TH_LOG("no stand-in creator " FT_STANDIN " for the cloned child");
	}
	close(cg);
	EXPECT_EQ(0, rmdir(FT_CGROUP));
}

/* A traced thread woken by an untraced one: the stand-in waker. */
TEST_F_TIMEOUT(filter, woken_by_untraced, 60)
{
	struct gotrace_start args = {};
	int n;

	ASSERT_EQ(0, pipe(ft_wake_pipe));
	ASSERT_EQ(0, ft_spawn(&self->w, sc_woken));
	snprintf(self->name, sizeof(self->name), "filter-woken-%s", variant->name);
	args.tgids = (__u64)(uintptr_t)&self->w.pid;
	args.nr_tgids = 1;
	ft_start(_metadata, &self->s, variant->format, &args);
	ASSERT_EQ(1, write(self->w.cork, "", 1));
	ASSERT_TRUE(gt_wait_blocked(self->w.pid, 5000));
	ASSERT_EQ(1, write(ft_wake_pipe[1], "", 1));
	/* ft_finish() writes the cork again: a closed pipe is fine. */
	n = ft_finish(&self->w, self->r, FT_MAX_TIDS);
	ASSERT_EQ(1, n);
	ft_stop(_metadata, &self->s, self->name, self->r, n, 0);
	EXPECT_TRUE(ft_has_standin(&self->s.rec.trace)) {
		TH_LOG("no stand-in waker " FT_STANDIN);
	}
	close(ft_wake_pipe[0]);
	close(ft_wake_pipe[1]);
}

/*
 * A flight recorder with a filter, 50 ms generations: its snapshot of every
 * whole generation names exactly the process's threads.
 */
TEST_F_TIMEOUT(filter, flight, 60)
{
	struct gotrace_start args = {
		.flags = GOTRACE_START_FLIGHT,
		.gen_period_ns = 50000000,
	};
	struct gotrace_snapshot snap = { .size = sizeof(snap) };
	struct gt_buf b = {};
	__u32 tgid;
	int n;

	if (!gt_format_modern(variant->format))
		SKIP(return, "a flight recorder needs generations");
	snprintf(self->name, sizeof(self->name), "filter-flight-%s", variant->name);
	ASSERT_EQ(0, ft_spawn(&self->w, sc_process));
	tgid = (__u32)self->w.pid;
	args.tgids = (__u64)(uintptr_t)&tgid;
	args.nr_tgids = 1;
	ASSERT_EQ(0, gt_session_open(&self->s, variant->format));
	args.size = sizeof(args);
	args.format = variant->format;
	ASSERT_EQ(0, ioctl(self->s.ctl, GOTRACE_START, &args)) {
		TH_LOG("GOTRACE_START: %s", strerror(errno));
	}
	n = ft_finish(&self->w, self->r, FT_MAX_TIDS);
	ASSERT_EQ(4, n);
	gt_msleep(150);			/* generations after the worker's */
	ASSERT_EQ(0, ioctl(self->s.ctl, GOTRACE_SNAPSHOT, &snap)) {
		TH_LOG("GOTRACE_SNAPSHOT: %s", strerror(errno));
	}
	EXPECT_EQ(1, snap.first_gen);	/* nothing was overwritten */
	EXPECT_LT(2, snap.generations);
	ASSERT_EQ(0, gt_read_to_eof(self->s.fd, &b, GT_READ_CHUNK));
	EXPECT_EQ(0, gt_save(&b, self->name));
	ft_check(_metadata, variant->format, &b, self->name, self->r, n, 0);
	gt_buf_free(&b);
	EXPECT_EQ(0, gt_stop(self->s.ctl));
}

TEST(bad_filters)
{
	static __u32 tgids[GOTRACE_FILTER_TGIDS_MAX + 1];
	char names[2][GOTRACE_FILTER_COMM_LEN] = { "ok" };
	struct gotrace_start args;
	struct gt_session s;
	struct gt_stats st;
	int fd, file;
	bool cgroups;

	GT_REQUIRE_DEVICE();
	fd = gt_dev_open(O_WRONLY);
	ASSERT_LE(0, fd);
	tgids[0] = 1;

	args = (struct gotrace_start){ .nr_tgids = GOTRACE_FILTER_TGIDS_MAX + 1,
				       .tgids = (__u64)(uintptr_t)tgids };
	GT_EXPECT_START_REFUSED(fd, &args, E2BIG, "too many tgids");
	args = (struct gotrace_start){ .nr_tgids = 1 };
	GT_EXPECT_START_REFUSED(fd, &args, EINVAL, "a tgid count without a pointer");
	args = (struct gotrace_start){ .tgids = (__u64)(uintptr_t)tgids };
	GT_EXPECT_START_REFUSED(fd, &args, EINVAL, "a tgid pointer without a count");
	args = (struct gotrace_start){ .nr_tgids = 1, .tgids = 8 };
	GT_EXPECT_START_REFUSED(fd, &args, EFAULT, "a tgid pointer to nothing");
	args = (struct gotrace_start){ .nr_comms = GOTRACE_FILTER_COMMS_MAX + 1,
				       .comms = (__u64)(uintptr_t)names };
	GT_EXPECT_START_REFUSED(fd, &args, E2BIG, "too many names");
	memset(names[1], 'x', sizeof(names[1]));
	args = (struct gotrace_start){ .nr_comms = 2, .comms = (__u64)(uintptr_t)names };
	GT_EXPECT_START_REFUSED(fd, &args, EINVAL, "a name without its NUL");
	args = (struct gotrace_start){ .flags = 0x80 };
	GT_EXPECT_START_REFUSED(fd, &args, EINVAL, "an unknown flag");
	args = (struct gotrace_start){ .reserved2 = 1 };
	GT_EXPECT_START_REFUSED(fd, &args, EINVAL, "reserved2 set");
	args = (struct gotrace_start){ .cgroup_fd = 3 };
	GT_EXPECT_START_REFUSED(fd, &args, EINVAL, "a cgroup fd without GOTRACE_START_CGROUP");
	/* A kernel without cgroups refuses any (Documentation/gotrace.rst). */
	cgroups = ft_have_cgroup2();
	args = (struct gotrace_start){ .flags = GOTRACE_START_CGROUP, .cgroup_fd = 1000 };
	GT_EXPECT_START_REFUSED(fd, &args, cgroups ? EBADF : EOPNOTSUPP, "a closed cgroup fd");
	file = open("/", O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, file);
	args = (struct gotrace_start){ .flags = GOTRACE_START_CGROUP,
				       .cgroup_fd = (__u32)file };
	GT_EXPECT_START_REFUSED(fd, &args, cgroups ? EINVAL : EOPNOTSUPP,
	       "a directory that is no cgroup");
	close(file);
	close(fd);

	/* Nothing was lost: a good filtered start records a valid trace. */
	tgids[0] = (__u32)getpid();
	ASSERT_EQ(0, gt_session_open(&s, GOTRACE_FORMAT_1_21));
	args = (struct gotrace_start){ .size = sizeof(args), .nr_tgids = 1,
				       .tgids = (__u64)(uintptr_t)tgids };
	ASSERT_EQ(0, ioctl(s.ctl, GOTRACE_START, &args));
	ASSERT_EQ(0, gt_recorder_start(&s.rec, s.fd, GT_READ_CHUNK));
	s.recording = true;
	usleep(50000);
	EXPECT_EQ(0, gt_session_end(&s, &st, "filter-after-bad")) {
		TH_LOG("%s", st.error);
	}
	EXPECT_EQ(0, gt_session_close(&s));
}

TEST_HARNESS_MAIN
