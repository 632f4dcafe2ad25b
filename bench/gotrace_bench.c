// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace_bench - the guest side of make bench (see bench/README.md).
 *
 * Runs scheduler workloads inside instruction-counting windows (the marker
 * instructions bench/insn_window.c recognises) and prints one line per
 * window saying what it measured; the host joins the lines with the
 * plugin's counts in window order. In one run, on one vCPU:
 *
 *   bare      each workload's untraced window once a round, before
 *             gotrace.ko is loaded (no probes attached to the tracepoints);
 *   rounds    a warm-up round, then for each round and workload (the
 *             ping-pong SCHED_BATCH and SCHED_OTHER, forks, mutex) six
 *             windows, in an order that turns from round to round:
 *             untraced, gotrace in the 1.21 and the 1.26 format
 *             (START, a reader process copying /dev/gotrace to tmpfs, the
 *             workload, STOP, the reader at end of file: all inside),
 *             gotrace's flight recorder (1.26, small rings that overflow,
 *             no reader: START, the workload, STOP, a read() of end of file
 *             that frees the buffers), the same with a latency trigger set
 *             and armed (a threshold it does not reach), ftrace
 *             (the same six tracepoints as trace events into the ring buffer,
 *             enabled beforehand; the window holds tracing_on 1, the
 *             workload, tracing_on 0);
 *   parts     the probes alone (a window of a session started before it,
 *             whose reader is not woken), the reader's wakeups (the same
 *             with a small ring) and its reading per byte (a held reader
 *             reading what a session has ready), and a generation switch
 *             (idle windows with generations every 10 ms and every hour);
 *   snapshot  GOTRACE_START alone in a window, without and with N extra
 *             sleeping threads: wall time of the ioctl, instructions, and
 *             the stop_machine() callback's duration from function_graph;
 *   rate      paced ping-pong under gotrace with a small buffer, the pace
 *             doubling until events are lost or the guest cannot go faster;
 *   annotate  one user annotation (a write() log, a GOTRACE_LOG, a region
 *             begin and end, a task begin and end) N times in a window,
 *             with no session recording (ENODATA) and within a session in
 *             each format.
 *
 * Every gotrace trace is copied to the trace directory for Go's checks.
 * The results, lines of "KIND key=value ...", go to stdout at the end;
 * progress goes to stderr.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/gotrace.h>

#include "gotrace_annotate.h"

#define DEV		"/dev/gotrace"
#define TMP_TRACE	"/tmp/gotrace_bench.trace"
#define READ_CHUNK	(64 * 1024)
#define MAX_THREADS	64

/* The parts windows' rings: one whose quarter a window does not fill, one it fills often. */
#define PARTS_BIG_BUFFER	(8 << 20)
#define PARTS_SMALL_BUFFER	(64 << 10)
#define PARTS_GEN_BYTES		(64ULL << 20)
#define PARTS_IDLE_MS		200

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const char *const ftrace_events[] = {
	"sched/sched_switch", "sched/sched_waking", "sched/sched_wakeup",
	"sched/sched_wakeup_new", "sched/sched_process_fork",
	"task/task_rename",
};

static struct {
	const char *ko;
	const char *trace_dir;
	unsigned int rounds;
	unsigned long pingpong;
	unsigned long forks;
	unsigned int mutex_threads;
	unsigned long mutex_iters;
	unsigned int snap_threads;
	unsigned int snap_reps;
	unsigned int rate_secs;
	unsigned long rate_buffer_kb;
	unsigned long flight_buffer_kb;
	unsigned long trigger_latency_ms;
	unsigned long ftrace_buffer_kb;
	unsigned int settle_ms;
	unsigned long annotate_calls;
	const char *workloads;
	unsigned long sample_reads;
	unsigned int sample_hz;
	bool skip_rounds, skip_snapshot, skip_rate, skip_filter, skip_annotate;
	bool skip_samples, skip_parts;
	__u32 clock;		/* GOTRACE_START_CLOCK_* */
	const char *clock_name;
} opt = {
	.trace_dir = "/host/traces",
	.rounds = 3,
	.pingpong = 5000,
	.forks = 500,
	.mutex_threads = 4,
	.mutex_iters = 1000,
	.snap_threads = 10000,
	.snap_reps = 3,
	.rate_secs = 1,
	.rate_buffer_kb = 64,
	.flight_buffer_kb = 64,
	.trigger_latency_ms = 1000,
	.ftrace_buffer_kb = 32768,
	.settle_ms = 100,
	.annotate_calls = 1000,
	.sample_reads = 10000,
	.sample_hz = 1000,
	.clock = GOTRACE_START_CLOCK_TSC,
	.clock_name = "tsc",
};

static const char *tracefs;
static char *out_buf;
static size_t out_len, out_cap;
static unsigned int next_window;
static int gt_ctl = -1;
static int ann_fd = -1;		/* /dev/gotrace-annotate */

/*
 * The results are kept in memory and printed at the end: output during the
 * run would wake the guest's tee, whose write to the 9p share completes
 * whenever the host gets to it, in the middle of some later window.
 */
static void out(const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(out_buf + out_len, out_cap - out_len, fmt, ap);
		va_end(ap);
		if (n >= 0 && out_len + n < out_cap)
			break;
		out_cap = out_cap ? out_cap * 2 : 1 << 16;
		out_buf = realloc(out_buf, out_cap);
		if (!out_buf)
			abort();
	}
	out_len += n;
}

static void out_flush(void)
{
	if (out_len)
		fwrite(out_buf, 1, out_len, stdout);
	out_len = 0;
	fflush(stdout);
}

/* A line on the console (stderr, not the captured stdout) to show progress. */
static void progress(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "gotrace_bench: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void die(const char *fmt, ...)
{
	va_list ap;
	int err = errno;

	out_flush();
	fprintf(stderr, "gotrace_bench: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static long futex(int *uaddr, int op, int val)
{
	return syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0);
}

static void futex_wait_while(int *uaddr, int val)
{
	while (__atomic_load_n(uaddr, __ATOMIC_ACQUIRE) == val)
		futex(uaddr, FUTEX_WAIT_PRIVATE, val);
}

static void futex_set_wake(int *uaddr, int val)
{
	__atomic_store_n(uaddr, val, __ATOMIC_RELEASE);
	futex(uaddr, FUTEX_WAKE_PRIVATE, INT_MAX);
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

static int read_byte(int fd, char *c)
{
	ssize_t n;

	do {
		n = read(fd, c, 1);
	} while (n < 0 && errno == EINTR);
	return n == 1 ? 0 : -1;
}

static void reap(pid_t pid, const char *what)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		die("waitpid %s", what);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		errno = 0;
		die("%s failed (status 0x%x)", what, status);
	}
}

/* --- Files: tracefs, /proc --- */

static int write_file(const char *path, const char *val, int flags)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | flags);
	int ret;

	if (fd < 0)
		return -1;
	ret = write_all(fd, val, strlen(val));
	close(fd);
	return ret;
}

static int tfs_write(const char *file, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", tracefs, file);
	return write_file(path, val, O_TRUNC);
}

static void tfs_must(const char *file, const char *val)
{
	if (tfs_write(file, val))
		die("write '%s' to %s/%s", val, tracefs, file);
}

/* Read a whole small file into a malloc()ed string. */
static char *read_text(const char *path)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (!buf || fd < 0)
		die("read %s", path);
	for (;;) {
		if (len + 1 >= cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			if (!buf)
				die("realloc");
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("read %s", path);
		if (!n)
			break;
		len += n;
	}
	close(fd);
	buf[len] = 0;
	return buf;
}

static unsigned long read_ulong(const char *path)
{
	char *s = read_text(path);
	unsigned long v = strtoul(s, NULL, 10);

	free(s);
	return v;
}

/* A /proc/meminfo field, in KiB. */
static unsigned long meminfo_kib(const char *key)
{
	char *s = read_text("/proc/meminfo"), *at = strstr(s, key);
	unsigned long v;

	if (!at)
		die("no %s in /proc/meminfo", key);
	v = strtoul(at + strlen(key), NULL, 10);
	free(s);
	return v;
}

static void copy_file(const char *from, const char *to)
{
	static char buf[READ_CHUNK];
	int in = open(from, O_RDONLY | O_CLOEXEC);
	int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ssize_t n;

	if (in < 0 || out < 0)
		die("copy %s to %s", from, to);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write_all(out, buf, n))
			die("write %s", to);
	if (n < 0)
		die("read %s", from);
	close(in);
	if (close(out))
		die("close %s", to);
}

/* --- Windows --- */

/*
 * Let deferred work finish before a window opens: the RCU callbacks, timers
 * and workqueue items that the previous window and its clean-up left would
 * otherwise run in this one, more in some rounds than in others. Idle time
 * costs no instructions.
 */
static void settle(void)
{
	struct timespec ts = {
		.tv_sec = opt.settle_ms / 1000,
		.tv_nsec = (opt.settle_ms % 1000) * 1000000L,
	};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* The markers: xchg %bx,%bx opens a window, xchg %cx,%cx closes it. */
static unsigned int window_open(void)
{
	unsigned int seq = next_window++;

	asm volatile(".byte 0x66, 0x87, 0xdb" ::: "memory");
	return seq;
}

static void window_close(void)
{
	asm volatile(".byte 0x66, 0x87, 0xc9" ::: "memory");
}

/* --- Workloads: set up outside the window, run inside, torn down after --- */

struct workload {
	const char *name;
	bool skip;		/* not in --workloads */
	unsigned long units;	/* round trips, forks, lock acquisitions */
	void (*setup)(struct workload *w);
	void (*run)(struct workload *w);
	void (*teardown)(struct workload *w);
	int (*annotate)(void);	/* annotations: one call, 0 or -1 with errno */
	int policy;		/* pingpong: SCHED_BATCH or SCHED_OTHER */
	/* state */
	int ping, pong;		/* pingpong: the parent's ends */
	pid_t child;
	int go, done, release;	/* mutex: futex words */
	unsigned int nthreads;
	unsigned long iters, counter;
	pthread_mutex_t lock;
	pthread_t threads[MAX_THREADS];
};

static void nop_work(struct workload *w)
{
	(void)w;
}

/* Both sides of the ping-pong run @policy (the child inherits it). */
static void pingpong_policy(int policy)
{
	struct sched_param param = { 0 };

	if (sched_setscheduler(0, policy, &param))
		die("sched_setscheduler");
}

/*
 * Ping-pong: a child process echoes a byte through two pipes, so each round
 * trip blocks and wakes each side once. The "pingpong" workload runs both
 * SCHED_BATCH, which CFS never lets preempt on wakeup: under SCHED_OTHER
 * (the "pp-other" workload, what users run), whether the woken side
 * preempts the waker (which then finds its reply ready without blocking)
 * depends on how their run times compare, so the untraced window,
 * gotrace's and ftrace's each do a different share of their round trips
 * without blocking, and write different events for them.
 */
static void pingpong_setup(struct workload *w)
{
	int ping[2], pong[2];
	char c = 'x';

	if (pipe2(ping, O_CLOEXEC) || pipe2(pong, O_CLOEXEC))
		die("pipe");
	pingpong_policy(w->policy);
	w->child = fork();
	if (w->child < 0)
		die("fork");
	if (!w->child) {
		close(ping[1]);
		close(pong[0]);
		while (read_byte(ping[0], &c) == 0)
			if (write_all(pong[1], &c, 1))
				_exit(1);
		_exit(0);
	}
	close(ping[0]);
	close(pong[1]);
	w->ping = ping[1];
	w->pong = pong[0];
	/* One round trip so that the child is up and waiting. */
	if (write_all(w->ping, &c, 1) || read_byte(w->pong, &c))
		die("ping-pong warm-up");
}

static void pingpong_run(struct workload *w)
{
	unsigned long i;
	char c = 'x';

	for (i = 0; i < w->units; i++)
		if (write_all(w->ping, &c, 1) || read_byte(w->pong, &c))
			die("ping-pong");
}

static void pingpong_teardown(struct workload *w)
{
	close(w->ping);
	close(w->pong);
	reap(w->child, "ping-pong child");
	pingpong_policy(SCHED_OTHER);
}

/*
 * Fork storm: a child that exits at once, forked and waited for, again and
 * again. A fork costs in proportion to what its parent has mapped and writes
 * between forks, so the forks come from a small process of their own,
 * started first thing and told through a pipe how many to do.
 */
static struct {
	pid_t pid;
	int cmd;	/* write the number of forks to do */
	int reply;	/* then read a byte: 0 when done */
} forker;

static void forker_main(int cmd, int reply)
{
	unsigned long n, i;
	char status;
	pid_t pid;

	while (read(cmd, &n, sizeof(n)) == sizeof(n)) {
		status = 0;
		for (i = 0; i < n && !status; i++) {
			pid = fork();
			if (!pid)
				_exit(0);
			if (pid < 0 || waitpid(pid, NULL, 0) != pid)
				status = 1;
		}
		if (write_all(reply, &status, 1))
			break;
	}
	_exit(0);
}

static void forker_start(void)
{
	int cmd[2], reply[2];

	if (pipe2(cmd, O_CLOEXEC) || pipe2(reply, O_CLOEXEC))
		die("pipe");
	forker.pid = fork();
	if (forker.pid < 0)
		die("fork");
	if (!forker.pid) {
		close(cmd[1]);
		close(reply[0]);
		forker_main(cmd[0], reply[1]);
	}
	close(cmd[0]);
	close(reply[1]);
	forker.cmd = cmd[1];
	forker.reply = reply[0];
}

static void forker_stop(void)
{
	close(forker.cmd);
	close(forker.reply);
	reap(forker.pid, "forker");
}

static void forks_run(struct workload *w)
{
	char status;

	if (write_all(forker.cmd, &w->units, sizeof(w->units)) ||
	    read_byte(forker.reply, &status) || status)
		die("fork storm");
}

/*
 * Mutex storm: threads take one pthread mutex and yield while holding it,
 * then yield again after the unlock, so that on one CPU the next thread
 * takes the lock and the others find it taken and sleep in the kernel
 * (FUTEX_WAIT) until an unlock wakes one: the lock goes round, contended at
 * every acquisition. The threads are SCHED_FIFO, so that sched_yield()
 * passes the CPU in a fixed order: under CFS the order depends on run
 * times, and the counts varied by several per cent from round to round.
 * They exist before the window and wait for it to end before they exit.
 */
static void *mutex_thread(void *p)
{
	struct workload *w = p;
	unsigned long i;

	futex_wait_while(&w->go, 0);
	for (i = 0; i < w->iters; i++) {
		pthread_mutex_lock(&w->lock);
		w->counter++;
		sched_yield();
		pthread_mutex_unlock(&w->lock);
		sched_yield();
	}
	if (__atomic_add_fetch(&w->done, 1, __ATOMIC_ACQ_REL) == (int)w->nthreads)
		futex(&w->done, FUTEX_WAKE_PRIVATE, 1);
	futex_wait_while(&w->release, 0);
	return NULL;
}

static void mutex_setup(struct workload *w)
{
	struct sched_param sp = { .sched_priority = 1 };
	pthread_attr_t attr;
	unsigned int i;

	pthread_mutex_init(&w->lock, NULL);
	w->go = w->done = w->release = 0;
	w->counter = 0;
	w->nthreads = opt.mutex_threads;
	w->iters = opt.mutex_iters;
	if (pthread_attr_init(&attr) ||
	    pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED) ||
	    pthread_attr_setschedpolicy(&attr, SCHED_FIFO) ||
	    pthread_attr_setschedparam(&attr, &sp))
		die("SCHED_FIFO thread attributes");
	for (i = 0; i < w->nthreads; i++) {
		errno = pthread_create(&w->threads[i], &attr, mutex_thread, w);
		if (errno)
			die("pthread_create (SCHED_FIFO)");
	}
	pthread_attr_destroy(&attr);
}

static void mutex_run(struct workload *w)
{
	int d;

	futex_set_wake(&w->go, 1);
	while ((d = __atomic_load_n(&w->done, __ATOMIC_ACQUIRE)) < (int)w->nthreads)
		futex(&w->done, FUTEX_WAIT_PRIVATE, d);
}

static void mutex_teardown(struct workload *w)
{
	unsigned int i;

	futex_set_wake(&w->release, 1);
	for (i = 0; i < w->nthreads; i++)
		pthread_join(w->threads[i], NULL);
	if (w->counter != w->units) {
		errno = 0;
		die("mutex storm counted %lu, expected %lu", w->counter, w->units);
	}
	pthread_mutex_destroy(&w->lock);
}

static struct workload workloads[] = {
	{ .name = "empty", .setup = nop_work, .run = nop_work,
	  .teardown = nop_work },
	{ .name = "pingpong", .setup = pingpong_setup, .run = pingpong_run,
	  .teardown = pingpong_teardown, .policy = SCHED_BATCH },
	{ .name = "pp-other", .setup = pingpong_setup, .run = pingpong_run,
	  .teardown = pingpong_teardown, .policy = SCHED_OTHER },
	{ .name = "forks", .setup = nop_work, .run = forks_run,
	  .teardown = nop_work },
	{ .name = "mutex", .setup = mutex_setup, .run = mutex_run,
	  .teardown = mutex_teardown },
};

#define NR_WORKLOADS ARRAY_SIZE(workloads)

/* --- gotrace: control and a reader process --- */

static int gt_start_latency(__u64 buffer_size, __u32 format, __u32 flags,
			    __u64 latency_ns)
{
	struct gotrace_start st = {
		.size = sizeof(st),
		.format = format,
		.flags = opt.clock | flags,
		/* As `gotrace start` does: the table covers pid_max. */
		.max_tid = read_ulong("/proc/sys/kernel/pid_max"),
		.buffer_size = buffer_size,
		.latency_ns = latency_ns,
	};

	return ioctl(gt_ctl, GOTRACE_START, &st);
}

static int gt_start_flags(__u64 buffer_size, __u32 format, __u32 flags)
{
	return gt_start_latency(buffer_size, format, flags, 0);
}

static int gt_start_format(__u64 buffer_size, __u32 format)
{
	return gt_start_flags(buffer_size, format, 0);
}

static int gt_start(__u64 buffer_size)
{
	return gt_start_format(buffer_size, GOTRACE_FORMAT_DEFAULT);
}

/* GOTRACE_STOP without waiting for the reader: each window waits for its reader itself. */
static int gt_stop(void)
{
	struct gotrace_stop st = {
		.size = sizeof(st),
		.flags = GOTRACE_STOP_NOWAIT,
	};

	return ioctl(gt_ctl, GOTRACE_STOP, &st);
}

static void gt_status(struct gotrace_status *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	if (ioctl(gt_ctl, GOTRACE_STATUS, st))
		die("GOTRACE_STATUS");
}

struct reader {
	pid_t pid;
	int done;	/* the reader writes one byte at end of file: 0 or errno */
	int quit;	/* closed to let it exit */
	int go;		/* a held reader starts reading at a byte written here */
	int drained;	/* ... and writes one here when it finds nothing more */
};

/*
 * What every reader counts, in memory shared with the benchmark process: its
 * read() calls of the device, and those that returned data (each follows a
 * wakeup of the reader, or another read() that filled its buffer).
 */
static struct reader_counts {
	unsigned long calls, reads, bytes;
} *reader_counts;

/*
 * A process that opens /dev/gotrace for reading (its read() blocks until a
 * session starts) and copies the trace to a tmpfs file until end of file.
 * With @hold, it waits for reader_release(), then reads what is there
 * without blocking (O_NONBLOCK, until EAGAIN), says so (reader_drained()),
 * and goes on as the others.
 */
static void reader_spawn_hold(struct reader *r, bool hold)
{
	int ready[2], done[2], quit[2], go[2], drained[2];
	char c;

	if (pipe2(ready, O_CLOEXEC) || pipe2(done, O_CLOEXEC) ||
	    pipe2(quit, O_CLOEXEC) || pipe2(go, O_CLOEXEC) ||
	    pipe2(drained, O_CLOEXEC))
		die("pipe");
	r->pid = fork();
	if (r->pid < 0)
		die("fork");
	if (!r->pid) {
		static char buf[READ_CHUNK];
		int dev = open(DEV, O_RDONLY | O_CLOEXEC);
		int out = open(TMP_TRACE, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			       0644);
		char status = 0;
		ssize_t n;

		close(ready[0]);
		close(done[0]);
		close(quit[1]);
		close(go[1]);
		close(drained[0]);
		if (dev < 0 || out < 0)
			_exit(2);
		if (write_all(ready[1], "r", 1))
			_exit(2);
		if (hold && (read_byte(go[0], &c) ||
			     fcntl(dev, F_SETFL, O_NONBLOCK)))
			_exit(2);
		while (hold) {
			n = read(dev, buf, sizeof(buf));
			__atomic_add_fetch(&reader_counts->calls, 1, __ATOMIC_RELAXED);
			if (n > 0) {
				__atomic_add_fetch(&reader_counts->reads, 1, __ATOMIC_RELAXED);
				__atomic_add_fetch(&reader_counts->bytes, n, __ATOMIC_RELAXED);
				if (write_all(out, buf, n))
					_exit(2);
			} else if (n < 0 && errno == EAGAIN) {
				break;
			} else if (n <= 0 && errno != EINTR) {
				_exit(2);
			}
		}
		if (hold && (write_all(drained[1], "d", 1) || fcntl(dev, F_SETFL, 0)))
			_exit(2);
		for (;;) {
			n = read(dev, buf, sizeof(buf));
			__atomic_add_fetch(&reader_counts->calls, 1, __ATOMIC_RELAXED);
			if (n > 0) {
				__atomic_add_fetch(&reader_counts->reads, 1, __ATOMIC_RELAXED);
				__atomic_add_fetch(&reader_counts->bytes, n, __ATOMIC_RELAXED);
			}
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 || (n > 0 && write_all(out, buf, n))) {
				status = errno ? errno : EIO;
				break;
			}
			if (!n)
				break;
		}
		close(out);
		close(dev);
		if (write_all(done[1], &status, 1))
			_exit(2);
		read_byte(quit[0], &c);
		_exit(status ? 1 : 0);
	}
	close(ready[1]);
	close(done[1]);
	close(quit[0]);
	close(go[0]);
	close(drained[1]);
	if (read_byte(ready[0], &c))
		die("the trace reader did not start");
	close(ready[0]);
	r->done = done[0];
	r->quit = quit[1];
	r->go = go[1];
	r->drained = drained[0];
}

static void reader_spawn(struct reader *r)
{
	reader_spawn_hold(r, false);
}

/* A held reader starts reading. */
static void reader_release(struct reader *r)
{
	if (write_all(r->go, "g", 1))
		die("release the trace reader");
}

/* Wait for a released reader to have read all there was. */
static void reader_drained(struct reader *r)
{
	char c;

	if (read_byte(r->drained, &c))
		die("the held trace reader failed");
}

/* Wait for the reader to reach end of file. */
static void reader_wait(struct reader *r)
{
	char status;

	if (read_byte(r->done, &status))
		die("the trace reader died");
	if (status) {
		errno = status;
		die("the trace reader failed");
	}
}

static void reader_finish(struct reader *r)
{
	close(r->go);
	close(r->drained);
	close(r->quit);
	close(r->done);
	reap(r->pid, "trace reader");
}

/* Move the trace the reader wrote to the trace directory. */
static void keep_trace(const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s.trace", opt.trace_dir, name);
	copy_file(TMP_TRACE, path);
	unlink(TMP_TRACE);
}

static void print_status(const struct gotrace_status *st)
{
	out(" events=%llu bytes=%llu lost=%llu cut=%u clock=%s",
	       (unsigned long long)st->events, (unsigned long long)st->bytes,
	       (unsigned long long)st->events_lost, st->flags & GOTRACE_STATUS_CUT,
	       st->clock == GOTRACE_CLOCK_TSC ? "tsc" : "mono");
}

/* --- ftrace --- */

static void ftrace_setup(void)
{
	static const char *const dirs[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	char buf[64];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(dirs) && !tracefs; i++) {
		snprintf(buf, sizeof(buf), "%s/tracing_on", dirs[i]);
		if (!access(buf, W_OK))
			tracefs = dirs[i];
	}
	if (!tracefs) {
		errno = 0;
		die("no tracefs at /sys/kernel/tracing or /sys/kernel/debug/tracing");
	}
	tfs_must("tracing_on", "0");
	tfs_must("current_tracer", "nop");
	/* Its cheapest mode: no comm / tgid recording at every switch. */
	tfs_must("options/record-cmd", "0");
	tfs_write("options/record-tgid", "0");
	snprintf(buf, sizeof(buf), "%lu", opt.ftrace_buffer_kb);
	tfs_must("buffer_size_kb", buf);
	tfs_must("trace", "");
}

static void ftrace_enable(const char *val)
{
	char file[128];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ftrace_events); i++) {
		snprintf(file, sizeof(file), "events/%s/enable", ftrace_events[i]);
		tfs_must(file, val);
	}
}

struct ftrace_stats {
	unsigned long entries, overrun, commit_overrun, bytes, dropped;
};

/* The number after "KEY: " at the start of a line of @text, or 0. */
static unsigned long stat_field(const char *text, const char *key)
{
	size_t len = strlen(key);
	const char *p;

	for (p = text; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, len) && p[len] == ':')
			return strtoul(p + len + 1, NULL, 10);
	return 0;
}

/* Sum the per-CPU ring buffer statistics. */
static void ftrace_stats(struct ftrace_stats *fs)
{
	char path[256];
	char *text;
	int cpu;

	memset(fs, 0, sizeof(*fs));
	for (cpu = 0;; cpu++) {
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/stats", tracefs, cpu);
		if (access(path, R_OK))
			break;
		text = read_text(path);
		fs->entries += stat_field(text, "entries");
		fs->overrun += stat_field(text, "overrun");
		fs->commit_overrun += stat_field(text, "commit overrun");
		fs->bytes += stat_field(text, "bytes");
		fs->dropped += stat_field(text, "dropped events");
		free(text);
	}
}

/* --- The rounds --- */

static void print_window(unsigned int seq, const char *phase, unsigned int round,
			 const struct workload *w, const char *mode,
			 uint64_t wall_ns)
{
	out("win seq=%u phase=%s round=%u workload=%s mode=%s units=%lu wall_ns=%llu",
	       seq, phase, round, w->name, mode, w->units,
	       (unsigned long long)wall_ns);
}

/* The workload alone in a window, whatever records; its line, unfinished. */
static void run_plain(const char *phase, unsigned int round,
		      struct workload *w, const char *mode)
{
	unsigned int seq;
	uint64_t t;

	w->setup(w);
	settle();
	t = now_ns();
	seq = window_open();
	w->run(w);
	window_close();
	t = now_ns() - t;
	w->teardown(w);
	print_window(seq, phase, round, w, mode, t);
}

static void run_untraced(const char *phase, unsigned int round,
			 struct workload *w)
{
	run_plain(phase, round, w, "untraced");
	out("\n");
}

/*
 * A window under gotrace, in Go's pre-1.22 format (mode "gotrace") or its
 * 1.26 one with generations ("gotrace-1.26").
 */
static void run_gotrace(const char *phase, unsigned int round,
			struct workload *w, const char *trace_name, __u32 format)
{
	struct gotrace_status st;
	struct reader r;
	unsigned int seq;
	uint64_t t;

	w->setup(w);
	reader_spawn(&r);
	settle();
	t = now_ns();
	seq = window_open();
	if (gt_start_format(0, format))
		die("GOTRACE_START");
	w->run(w);
	if (gt_stop())
		die("GOTRACE_STOP");
	reader_wait(&r);
	window_close();
	t = now_ns() - t;
	reader_finish(&r);
	w->teardown(w);
	gt_status(&st);
	keep_trace(trace_name);
	print_window(seq, phase, round, w,
		     format == GOTRACE_FORMAT_1_26 ? "gotrace-1.26" : "gotrace", t);
	print_status(&st);
	if (format >= GOTRACE_FORMAT_1_22)
		out(" gens=%llu", (unsigned long long)st.generations);
	out(" trace=%s.trace\n", trace_name);
}

/*
 * GOTRACE_TRIGGER with GOTRACE_TRIGGER_NOWAIT: arms the latency trigger.
 * Nothing fired yet, so it must fail with EAGAIN, leaving it armed.
 */
static void gt_trigger_arm(void)
{
	struct gotrace_trigger tr = {
		.size = sizeof(tr),
		.flags = GOTRACE_TRIGGER_NOWAIT,
	};

	if (!ioctl(gt_ctl, GOTRACE_TRIGGER, &tr)) {
		errno = 0;
		die("GOTRACE_TRIGGER|NOWAIT right after START reported a firing (tid %u)",
		    tr.tid);
	}
	if (errno != EAGAIN)
		die("GOTRACE_TRIGGER|NOWAIT right after START");
}

/*
 * A window under gotrace's flight recorder (mode "gotrace-flight"): the
 * 1.26 format with GOTRACE_START_FLIGHT and opt.flight_buffer_kb per CPU,
 * small enough that the rings drop their oldest chunks during the window;
 * nobody reads while it records and no snapshot is taken. The window holds
 * START, the workload, STOP, and what frees the buffers: a stopped flight
 * recorder with no snapshot pending keeps them until a read() returns end
 * of file (or the next START discards it, which would charge some later
 * window), so the window opens /dev/gotrace for reading, reads that end of
 * file at once and closes it, as the streaming window's reader ends its
 * session. So both hold allocation, recording, stop and freeing; only the
 * reader's copying is missing here.
 *
 * A process stands in for the streaming window's reader: forked at the same
 * point, asleep through the window, gone after it. The fork storm's cost
 * depends on the processes around it (with no process forked just before
 * the window, its children's pids took 0.6% more instructions in the pid
 * IDR's radix tree, the slab allocator and RCU, 150 a Go event: twice
 * gotrace's overhead on that workload).
 *
 * With @trigger (mode "gotrace-trigger") the same, plus a latency trigger:
 * START with latency_ns = opt.trigger_latency_ms, and GOTRACE_TRIGGER
 * with NOWAIT right after it, which arms it (EAGAIN: nothing fired), so
 * that the probes stamp and check every thread's slot, armed, for the whole
 * workload. The threshold is far above any wait in these workloads: it
 * must not fire (the window's triggers= says whether it did), so the
 * difference from the flight window is the check alone.
 */
static void run_flight(const char *phase, unsigned int round,
		       struct workload *w, bool trigger)
{
	const char *mode = trigger ? "gotrace-trigger" : "gotrace-flight";
	static char buf[64];
	struct gotrace_status st;
	unsigned int seq;
	int quit[2];
	pid_t idle;
	uint64_t t;
	ssize_t n;
	char c;
	int rd;

	w->setup(w);
	if (pipe2(quit, O_CLOEXEC))
		die("pipe");
	idle = fork();
	if (idle < 0)
		die("fork");
	if (!idle) {
		close(quit[1]);
		read_byte(quit[0], &c);
		_exit(0);
	}
	close(quit[0]);
	settle();
	t = now_ns();
	seq = window_open();
	if (gt_start_latency(opt.flight_buffer_kb * 1024, GOTRACE_FORMAT_1_26,
			     GOTRACE_START_FLIGHT,
			     trigger ? opt.trigger_latency_ms * 1000000ULL : 0))
		die("GOTRACE_START (%s)", mode);
	if (trigger)
		gt_trigger_arm();
	w->run(w);
	if (gt_stop())
		die("GOTRACE_STOP (%s)", mode);
	rd = open(DEV, O_RDONLY | O_CLOEXEC);
	if (rd < 0)
		die("open %s for reading (%s)", DEV, mode);
	do {
		n = read(rd, buf, sizeof(buf));
	} while (n < 0 && errno == EINTR);
	close(rd);
	window_close();
	t = now_ns() - t;
	close(quit[1]);
	reap(idle, "the reader's stand-in");
	w->teardown(w);
	if (n) {
		errno = n < 0 ? errno : 0;
		die("read() of a stopped flight recorder returned %zd, not end of file", n);
	}
	gt_status(&st);
	if (!(st.flags & GOTRACE_STATUS_FLIGHT) || st.state != GOTRACE_STATE_IDLE) {
		errno = 0;
		die("the %s session is not a flight recorder, or not done (state %u)",
		    mode, st.state);
	}
	print_window(seq, phase, round, w, mode, t);
	print_status(&st);
	out(" gens=%llu chunks_dropped=%llu snapshots=%llu buffer=%lu",
	    (unsigned long long)st.generations,
	    (unsigned long long)st.chunks_dropped,
	    (unsigned long long)st.snapshots, opt.flight_buffer_kb * 1024);
	if (trigger)
		out(" latency_ns=%llu triggers=%llu",
		    opt.trigger_latency_ms * 1000000ULL,
		    (unsigned long long)st.triggers);
	out("\n");
}

static void run_ftrace(const char *phase, unsigned int round,
		       struct workload *w)
{
	struct ftrace_stats fs;
	unsigned int seq;
	char path[256];
	uint64_t t;
	int on;

	snprintf(path, sizeof(path), "%s/tracing_on", tracefs);
	on = open(path, O_WRONLY | O_CLOEXEC);
	if (on < 0)
		die("open %s", path);
	w->setup(w);
	tfs_must("trace", "");		/* empty the ring buffer, reset its stats */
	ftrace_enable("1");
	settle();
	t = now_ns();
	seq = window_open();
	if (write_all(on, "1", 1))
		die("tracing_on 1");
	w->run(w);
	if (write_all(on, "0", 1))
		die("tracing_on 0");
	window_close();
	t = now_ns() - t;
	close(on);
	ftrace_stats(&fs);
	ftrace_enable("0");
	w->teardown(w);
	print_window(seq, phase, round, w, "ftrace", t);
	out(" ft_bytes=%lu ft_entries=%lu ft_overrun=%lu ft_commit_overrun=%lu ft_dropped=%lu\n",
	       fs.bytes, fs.entries, fs.overrun, fs.commit_overrun, fs.dropped);
	if (fs.overrun || fs.commit_overrun || fs.dropped) {
		errno = 0;
		die("the ftrace ring buffer lost events: raise --ftrace-buffer-kb");
	}
}

static void load_module(void)
{
	int fd = open(opt.ko, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || syscall(SYS_finit_module, fd, "", 0))
		die("load %s", opt.ko);
	close(fd);
}

static void open_device(void)
{
	gt_ctl = open(DEV, O_WRONLY | O_CLOEXEC);
	if (gt_ctl < 0)
		die("open %s", DEV);
}

/* A session with nothing to record: attaches the probes for good. */
static void warm_up(void)
{
	struct reader r;

	reader_spawn(&r);
	if (gt_start(0) || gt_stop())
		die("warm-up session");
	reader_wait(&r);
	reader_finish(&r);
	keep_trace("warmup");
}

/*
 * Each round runs each workload untraced, under gotrace in each format,
 * under gotrace's flight recorder without and with a latency trigger and
 * under ftrace, starting one mode later than the previous round
 * (U G G2 FL TR F, G G2 FL TR F U, ...),
 * so that no mode always follows the same one: what a window leaves behind
 * (freed buffers, RCU callbacks) weighs on the next one. Round 0 is a
 * warm-up, left out of the figures: the first traced fork storm made every
 * later fork dearer, by 1% for good.
 */
static void run_rounds(void)
{
	const char *phase;
	char name[64];
	unsigned int round, m;
	size_t i;

	for (round = 0; round <= opt.rounds; round++) {
		phase = round ? "round" : "warmup";
		progress("%s %u of %u", phase, round, opt.rounds);
		for (i = 0; i < NR_WORKLOADS; i++) {
			struct workload *w = &workloads[i];

			if (w->skip)
				continue;
			for (m = 0; m < 6; m++) {
				switch ((round + 5 + m) % 6) {
				case 0:
					run_untraced(phase, round, w);
					break;
				case 1:
					snprintf(name, sizeof(name), "r%u-%s", round, w->name);
					run_gotrace(phase, round, w, name, GOTRACE_FORMAT_DEFAULT);
					break;
				case 2:
					snprintf(name, sizeof(name), "r%u-%s-1.26", round, w->name);
					run_gotrace(phase, round, w, name, GOTRACE_FORMAT_1_26);
					break;
				case 3:
					run_flight(phase, round, w, false);
					break;
				case 4:
					run_flight(phase, round, w, true);
					break;
				default:
					run_ftrace(phase, round, w);
					break;
				}
			}
		}
	}
}

/* --- Filters --- */

/*
 * The ping-pong in a window: untraced; recorded (format 1.21, no filter);
 * or filtered out (format 1.21, only process 1, asleep, is traced), where
 * each of its scheduler events costs the probes the lookup of the thread's
 * entry and one test. The "-empty" modes are the two sessions without the
 * ping-pong: their fixed cost. A "filt" line per window.
 */
static void filter_window(unsigned int round, const char *mode)
{
	bool empty = strstr(mode, "-empty");
	struct workload w = { .name = "pingpong", .units = opt.pingpong,
			      .policy = SCHED_BATCH };
	__u32 init = 1;
	struct gotrace_start args = {
		.size = sizeof(args),
		.flags = opt.clock,
		.max_tid = read_ulong("/proc/sys/kernel/pid_max"),
	};
	struct gotrace_status st = {};
	bool traced = strcmp(mode, "untraced");
	struct reader r;
	unsigned int seq;
	char name[64];

	if (!strncmp(mode, "filtered", 8)) {
		args.tgids = (__u64)(uintptr_t)&init;
		args.nr_tgids = 1;
	}
	pingpong_setup(&w);
	if (traced)
		reader_spawn(&r);
	settle();
	seq = window_open();
	if (traced && ioctl(gt_ctl, GOTRACE_START, &args))
		die("GOTRACE_START (%s)", mode);
	if (!empty)
		pingpong_run(&w);
	if (traced) {
		if (gt_stop())
			die("GOTRACE_STOP");
		reader_wait(&r);
	}
	window_close();
	if (traced)
		reader_finish(&r);
	pingpong_teardown(&w);
	out("filt seq=%u round=%u mode=%s units=%lu", seq, round, mode,
	    empty ? 0 : w.units);
	if (traced) {
		gt_status(&st);
		snprintf(name, sizeof(name), "filter-r%u-%s", round, mode);
		keep_trace(name);
		print_status(&st);
		out(" trace=%s.trace", name);
	}
	out("\n");
}

static void run_filter(void)
{
	static const char *const modes[] = {
		"untraced", "recorded", "filtered", "recorded-empty", "filtered-empty",
	};
	unsigned int round, m;

	for (round = 1; round <= opt.rounds; round++) {
		progress("filter %u of %u", round, opt.rounds);
		for (m = 0; m < ARRAY_SIZE(modes); m++)
			filter_window(round, modes[(round + m) % ARRAY_SIZE(modes)]);
	}
}

/* --- The parts of gotrace's cost, apart --- */

/*
 * A session of @format with @buffer_size bytes per CPU, generations every
 * @gen_period_ns (formats 1.22 and later; 0 for the older ones) and a new
 * one only after gen_bytes far beyond what a window writes.
 */
static int gt_start_parts(__u64 buffer_size, __u32 format, __u64 gen_period_ns)
{
	struct gotrace_start st = {
		.size = sizeof(st),
		.format = format,
		.flags = opt.clock,
		.max_tid = read_ulong("/proc/sys/kernel/pid_max"),
		.buffer_size = buffer_size,
	};

	if (format >= GOTRACE_FORMAT_1_22) {
		st.gen_period_ns = gen_period_ns;
		st.gen_bytes = PARTS_GEN_BYTES;
	}
	return ioctl(gt_ctl, GOTRACE_START, &st);
}

static const char *format_name(__u32 format)
{
	return format == GOTRACE_FORMAT_1_26 ? "1.26" : "1.21";
}

/* The window's differences of the session's and the reader's counters. */
struct parts_counts {
	struct gotrace_status st;
	struct reader_counts rd;
};

static void parts_sample(struct parts_counts *pc)
{
	gt_status(&pc->st);
	pc->rd = *reader_counts;
}

static void parts_print(unsigned int seq, unsigned int round, const char *mode,
			const char *fmt, const struct workload *w,
			const struct parts_counts *a, const struct parts_counts *b)
{
	out("part seq=%u round=%u mode=%s format=%s workload=%s units=%lu events=%llu bytes=%llu bytes_read=%llu gens=%llu lost=%llu reader_calls=%lu reader_reads=%lu",
	    seq, round, mode, fmt, w->name, w->units,
	    (unsigned long long)(b->st.events - a->st.events),
	    (unsigned long long)(b->st.bytes - a->st.bytes),
	    (unsigned long long)(b->st.bytes_read - a->st.bytes_read),
	    (unsigned long long)(b->st.generations - a->st.generations),
	    (unsigned long long)(b->st.events_lost - a->st.events_lost),
	    b->rd.calls - a->rd.calls, b->rd.reads - a->rd.reads);
}

/*
 * The workload in a window of a session started before it, with a reader
 * asleep in read() (mode "probes": a PARTS_BIG_BUFFER ring, whose quarter
 * the workload does not fill, so the reader is not woken: the window holds
 * the workload and the probes' work) or woken every quarter of a
 * PARTS_SMALL_BUFFER ring (mode "wakeups": the probes again, and the
 * reader's wakeups and reads). No generation starts in either (a period of
 * an hour, gen_bytes beyond the window's bytes) unless @period_ns says
 * (parts_gens()).
 */
static void parts_live(unsigned int round, struct workload *w, __u32 format,
		       const char *mode, __u64 buffer_size, __u64 period_ns)
{
	struct parts_counts a, b;
	struct reader r;
	unsigned int seq;
	char name[96];

	w->setup(w);
	reader_spawn(&r);
	if (gt_start_parts(buffer_size, format, period_ns))
		die("GOTRACE_START (parts, %s)", mode);
	settle();
	parts_sample(&a);
	seq = window_open();
	w->run(w);
	window_close();
	parts_sample(&b);
	if (gt_stop())
		die("GOTRACE_STOP");
	reader_wait(&r);
	reader_finish(&r);
	w->teardown(w);
	parts_print(seq, round, mode, format_name(format), w, &a, &b);
	out(" threads=%u", b.st.snapshot_threads);
	snprintf(name, sizeof(name), "parts-r%u-%s-%s-%s", round, w->name, mode,
		 format_name(format));
	keep_trace(name);
	out(" trace=%s.trace\n", name);
}

/*
 * Mode "drain": the workload recorded outside the window into a
 * PARTS_BIG_BUFFER ring, then the window holds only its reader, held until
 * then, reading what the session has ready (its full chunks) without
 * blocking, until EAGAIN; the session goes on (a session's end, which
 * frees its rings, is outside). From two workloads, the reader's cost per
 * byte; the window's bytes are bytes_read.
 */
static void parts_drain(unsigned int round, struct workload *w, __u32 format)
{
	struct parts_counts a, b;
	struct reader r;
	unsigned int seq;
	char name[96];

	/* First: the reader must not hold the workload's pipes past its teardown. */
	reader_spawn_hold(&r, true);
	w->setup(w);
	if (gt_start_parts(PARTS_BIG_BUFFER, format, GOTRACE_GEN_PERIOD_MAX_NS))
		die("GOTRACE_START (parts, drain)");
	w->run(w);
	w->teardown(w);
	settle();
	parts_sample(&a);
	seq = window_open();
	reader_release(&r);
	reader_drained(&r);
	window_close();
	parts_sample(&b);
	if (gt_stop())
		die("GOTRACE_STOP");
	reader_wait(&r);
	reader_finish(&r);
	parts_print(seq, round, "drain", format_name(format), w, &a, &b);
	snprintf(name, sizeof(name), "parts-r%u-%s-drain-%s", round, w->name,
		 format_name(format));
	keep_trace(name);
	out(" trace=%s.trace\n", name);
}

/* PARTS_IDLE_MS of idle guest time. */
/* PARTS_IDLE_MS of idle guest time. */
static void parts_idle(struct workload *w)
{
	struct timespec ts = {
		.tv_sec = PARTS_IDLE_MS / 1000,
		.tv_nsec = (PARTS_IDLE_MS % 1000) * 1000000L,
	};

	(void)w;
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * Mode "gens-PERIOD": PARTS_IDLE_MS of idle guest time in a window of a
 * session of format 1.26 started before it, with a live reader, whose
 * generations start every 10 ms ("gens-10ms") or every hour ("gens-1h"):
 * the difference over the generations started is what one costs (the
 * work's IPI and walk of the threads, the reader's wakeup and its reading
 * of the generation's batches and tables).
 */
static void parts_gens(unsigned int round, __u64 period_ns, const char *mode)
{
	struct workload w = {
		.name = "idle", .units = PARTS_IDLE_MS,
		.setup = nop_work, .run = parts_idle, .teardown = nop_work,
	};

	parts_live(round, &w, GOTRACE_FORMAT_1_26, mode, PARTS_BIG_BUFFER, period_ns);
}

/*
 * Each round: per workload (the ping-pongs and the mutex storm) its
 * untraced window, then per format a probes, a wakeups (the ping-pongs
 * only: the mutex storm's SCHED_FIFO threads starve the reader, whose
 * small ring then overflows) and a drain window;
 * the drain of an empty session per format; and the two generation
 * windows. A "part" line per window (the untraced ones "win" lines of
 * phase "parts").
 */
static void run_parts(void)
{
	static const __u32 formats[] = { GOTRACE_FORMAT_1_21, GOTRACE_FORMAT_1_26 };
	struct workload *w;
	unsigned int round, f, m;
	size_t i;

	for (round = 1; round <= opt.rounds; round++) {
		progress("parts %u of %u", round, opt.rounds);
		for (i = 0; i < NR_WORKLOADS; i++) {
			w = &workloads[i];
			if (w->skip || w->run == nop_work || w->run == forks_run)
				continue;
			for (m = 0; m < 7; m++) {
				unsigned int k = (round + m) % 7;

				f = k ? (k - 1) % 2 : 0;
				if (!k)
					run_untraced("parts", round, w);
				else if (k <= 2)
					parts_live(round, w, formats[f], "probes",
						   PARTS_BIG_BUFFER,
						   GOTRACE_GEN_PERIOD_MAX_NS);
				else if (k <= 4 && w->run == pingpong_run)
					parts_live(round, w, formats[f], "wakeups",
						   PARTS_SMALL_BUFFER,
						   GOTRACE_GEN_PERIOD_MAX_NS);
				else if (k <= 4)
					continue;
				else
					parts_drain(round, w, formats[f]);
			}
		}
		for (f = 0; f < ARRAY_SIZE(formats); f++)
			parts_drain(round, &workloads[0], formats[f]);
		parts_gens(round, GOTRACE_GEN_PERIOD_MIN_NS, "gens-10ms");
		parts_gens(round, GOTRACE_GEN_PERIOD_MAX_NS, "gens-1h");
	}
}

/* --- CPU samples --- */

/*
 * A CPU-bound window in the kernel, opt.sample_reads read()s of 64 KiB of
 * /dev/zero, recorded in @format without samples and with them at
 * opt.sample_hz: the difference is what sampling costs, per sample (the
 * session's count of samples written) and in trace bytes. In format 1.21 a
 * sample is written among the CPU's events; in 1.26 it is kept in the
 * CPU's sample ring and written with its generation's tables. The "-empty"
 * modes are the two sessions without the reads: their fixed cost (the
 * sampled one creates and releases a perf event per CPU and allocates the
 * kernel stack table). A "samp" line per window.
 */
static void samples_window(unsigned int round, const char *mode, __u32 format)
{
	bool sampled = !strncmp(mode, "sampled", 7);
	bool empty = strstr(mode, "-empty");
	struct gotrace_start args = {
		.size = sizeof(args),
		.flags = opt.clock,
		.format = format,
		.max_tid = read_ulong("/proc/sys/kernel/pid_max"),
		.cpu_sample_hz = sampled ? opt.sample_hz : 0,
	};
	const char *fmt = format == GOTRACE_FORMAT_1_26 ? "1.26" : "1.21";
	unsigned long reads = empty ? 0 : opt.sample_reads;
	struct gotrace_status st = {};
	static char buf[READ_CHUNK];
	unsigned long i;
	struct reader r;
	unsigned int seq;
	char name[64];
	int fd;

	fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die("open /dev/zero");
	reader_spawn(&r);
	settle();
	seq = window_open();
	if (ioctl(gt_ctl, GOTRACE_START, &args))
		die("GOTRACE_START (%s)", mode);
	for (i = 0; i < reads; i++)
		if (read(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			die("read /dev/zero");
	if (gt_stop())
		die("GOTRACE_STOP");
	reader_wait(&r);
	window_close();
	reader_finish(&r);
	close(fd);
	gt_status(&st);
	out("samp seq=%u round=%u mode=%s format=%s hz=%u units=%lu samples=%llu "
	    "dropped=%llu", seq, round, mode, fmt, args.cpu_sample_hz, reads,
	    (unsigned long long)st.samples, (unsigned long long)st.samples_dropped);
	snprintf(name, sizeof(name), "samples-%s-r%u-%s", fmt, round, mode);
	keep_trace(name);
	print_status(&st);
	out(" trace=%s.trace\n", name);
}

static void run_samples(void)
{
	static const char *const modes[] = {
		"recorded", "sampled", "recorded-empty", "sampled-empty",
	};
	static const __u32 formats[] = { GOTRACE_FORMAT_1_21, GOTRACE_FORMAT_1_26 };
	unsigned int round, m, f;

	for (round = 1; round <= opt.rounds; round++) {
		progress("samples %u of %u", round, opt.rounds);
		for (f = 0; f < ARRAY_SIZE(formats); f++)
			for (m = 0; m < ARRAY_SIZE(modes); m++)
				samples_window(round, modes[(round + m) % ARRAY_SIZE(modes)],
					       formats[f]);
	}
}

/* --- Snapshot --- */

struct sleepers {
	pid_t pid;
	int quit;
};

static int sleepers_stop;

static void *sleeper(void *p)
{
	(void)p;
	futex_wait_while(&sleepers_stop, 0);
	return NULL;
}

/* A process with @n threads asleep in futex_wait(), besides its main one. */
static void sleepers_spawn(struct sleepers *s, unsigned int n)
{
	int ready[2], quit[2];
	char c;

	if (pipe2(ready, O_CLOEXEC) || pipe2(quit, O_CLOEXEC))
		die("pipe");
	s->pid = fork();
	if (s->pid < 0)
		die("fork");
	if (!s->pid) {
		pthread_attr_t attr;
		pthread_t tid;
		unsigned int i;

		close(ready[0]);
		close(quit[1]);
		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 64 * 1024);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		for (i = 0; i < n; i++) {
			errno = pthread_create(&tid, &attr, sleeper, NULL);
			if (errno) {
				fprintf(stderr, "gotrace_bench: thread %u of %u: %s\n",
					i, n, strerror(errno));
				_exit(1);
			}
		}
		if (write_all(ready[1], "r", 1))
			_exit(1);
		read_byte(quit[0], &c);
		_exit(0);	/* exit_group(): the sleepers go too */
	}
	close(ready[1]);
	close(quit[0]);
	if (read_byte(ready[0], &c))
		die("could not start %u sleeping threads", n);
	close(ready[0]);
	s->quit = quit[1];
}

static void sleepers_stop_all(struct sleepers *s)
{
	close(s->quit);
	reap(s->pid, "sleeping threads");
}

/*
 * The durations function_graph gives the stop_machine() callback and the
 * whole stopped world (multi_cpu_stop() on the CPU that ran it), in ns.
 */
static void graph_durations(uint64_t *cb_ns, uint64_t *stw_ns)
{
	char path[256];
	char *text, *line, *save = NULL;

	*cb_ns = *stw_ns = 0;
	snprintf(path, sizeof(path), "%s/trace", tracefs);
	text = read_text(path);
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *bar = strchr(line, '|'), *us, *p;
		uint64_t ns;
		double v;

		if (line[0] == '#' || !bar)
			continue;
		*bar = 0;
		us = strstr(line, " us");
		if (!us)
			continue;
		*us = 0;
		for (p = us; p > line && (isdigit((unsigned char)p[-1]) || p[-1] == '.'); p--)
			;
		v = strtod(p, NULL);
		ns = (uint64_t)(v * 1000.0 + 0.5);
		if (strstr(bar + 1, "gotrace_snapshot_stopped"))
			*cb_ns = ns;
		else if (strstr(bar + 1, "multi_cpu_stop"))
			*stw_ns = ns;
	}
	free(text);
}

static bool graph_setup(void)
{
	if (tfs_write("set_ftrace_filter",
		      "gotrace_snapshot_stopped\nmulti_cpu_stop\n")) {
		out("note: function_graph cannot trace gotrace_snapshot_stopped: no in-kernel snapshot time\n");
		return false;
	}
	tfs_write("options/funcgraph-tail", "1");
	tfs_must("current_tracer", "function_graph");
	return true;
}

static void graph_teardown(void)
{
	tfs_must("tracing_on", "0");
	tfs_must("current_tracer", "nop");
	tfs_write("set_ftrace_filter", "");
	tfs_must("trace", "");
}

static void snapshot_reps(unsigned int threads, bool graph)
{
	char name[64];
	unsigned int rep, seq;

	for (rep = 1; rep <= opt.snap_reps; rep++) {
		struct gotrace_status st, live;
		uint64_t t, cb_ns = 0, stw_ns = 0;
		unsigned long avail;
		struct reader r;
		int ret;

		reader_spawn(&r);
		settle();
		avail = meminfo_kib("MemAvailable:");
		if (graph) {
			tfs_must("trace", "");
			tfs_must("tracing_on", "1");
		}
		seq = window_open();
		t = now_ns();
		ret = gt_start(0);
		t = now_ns() - t;
		window_close();
		if (graph) {
			tfs_must("tracing_on", "0");
			graph_durations(&cb_ns, &stw_ns);
		}
		if (ret)
			die("GOTRACE_START with %u extra threads", threads);
		/* What the session holds: its buffers and per-thread state. */
		avail -= meminfo_kib("MemAvailable:");
		gt_status(&live);
		if (gt_stop())
			die("GOTRACE_STOP");
		reader_wait(&r);
		reader_finish(&r);
		gt_status(&st);
		snprintf(name, sizeof(name), "snapshot-%u-%u", threads, rep);
		keep_trace(name);
		out("snap seq=%u threads=%u rep=%u start_ns=%llu stopped_cb_ns=%llu stopped_world_ns=%llu"
		    " mem_kib=%ld thread_bytes=%llu",
		       seq, threads, rep, (unsigned long long)t,
		       (unsigned long long)cb_ns, (unsigned long long)stw_ns, (long)avail,
		       (unsigned long long)live.thread_bytes);
		print_status(&st);
		out(" trace=%s.trace\n", name);
	}
}

static void run_snapshot(void)
{
	struct sleepers s;
	unsigned long max;
	bool graph;
	char buf[32];

	/* 10,000 threads need more than the default threads-max of a small guest. */
	max = read_ulong("/proc/sys/kernel/threads-max");
	if (max < opt.snap_threads + 1000) {
		snprintf(buf, sizeof(buf), "%u", opt.snap_threads + 1000);
		if (write_file("/proc/sys/kernel/threads-max", buf, 0))
			die("raise threads-max");
	}
	progress("snapshot: %u extra threads", opt.snap_threads);
	graph = graph_setup();
	snapshot_reps(0, graph);
	sleepers_spawn(&s, opt.snap_threads);
	snapshot_reps(opt.snap_threads, graph);
	sleepers_stop_all(&s);
	graph_teardown();
}

/* --- Highest sustained rate --- */

/*
 * Ping-pong paced at @target round trips per second (0: as fast as it
 * goes) for opt.rate_secs, recorded by gotrace with opt.rate_buffer_kb per
 * CPU and a reader copying to tmpfs.
 */
static bool rate_step(unsigned long target)
{
	struct workload w = { .name = "rate", .policy = SCHED_BATCH };
	uint64_t t0, t, end, elapsed;
	struct gotrace_status st;
	unsigned long done = 0;
	struct reader r;
	char name[64];
	char c = 'x';

	pingpong_setup(&w);
	reader_spawn(&r);
	if (gt_start(opt.rate_buffer_kb * 1024))
		die("GOTRACE_START (rate)");
	t0 = now_ns();
	end = t0 + opt.rate_secs * 1000000000ULL;
	for (t = t0; t < end; t = now_ns()) {
		if (target) {
			uint64_t due = (t - t0) * target / 1000000000ULL;

			if (done >= due) {
				uint64_t at = t0 + (done + 1) * 1000000000ULL / target;
				struct timespec ts = {
					.tv_sec = at / 1000000000ULL,
					.tv_nsec = at % 1000000000ULL,
				};

				clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
				continue;
			}
		}
		if (write_all(w.ping, &c, 1) || read_byte(w.pong, &c))
			die("ping-pong");
		done++;
	}
	elapsed = now_ns() - t0;
	if (gt_stop())
		die("GOTRACE_STOP");
	reader_wait(&r);
	reader_finish(&r);
	pingpong_teardown(&w);
	gt_status(&st);
	snprintf(name, sizeof(name), "rate-%lu", target);
	keep_trace(name);
	out("rate target=%lu round_trips=%lu elapsed_ns=%llu buffer=%lu",
	       target, done, (unsigned long long)elapsed, opt.rate_buffer_kb * 1024);
	print_status(&st);
	out(" trace=%s.trace\n", name);
	/* Stop at the first loss, or once the guest cannot keep the pace. */
	return !st.events_lost && target &&
	       done * 1000000000ULL >= elapsed * target / 10 * 9;
}

static void run_rate(void)
{
	unsigned long target;

	progress("rate");
	for (target = 500; rate_step(target); target *= 2)
		;
}

/* --- Annotations --- */

#define ANN_NAME	"bench"
#define ANN_BUFFER	(8 << 20)

static const char ann_text[] = ANN_NAME ": annotation\n";

/* write(): a UserLog "annotation" in category "bench", as echo does one. */
static int ann_write(void)
{
	ssize_t n = write(ann_fd, ann_text, sizeof(ann_text) - 1);

	if (n == (ssize_t)sizeof(ann_text) - 1)
		return 0;
	if (n >= 0)
		errno = 0;	/* a short write */
	return gotrace_annotate_ret(-1);
}

static int ann_log(void)
{
	return gotrace_log(ann_fd, 0, ANN_NAME, "annotation");
}

static int ann_region(void)
{
	if (gotrace_region_begin(ann_fd, 0, ANN_NAME))
		return -1;
	return gotrace_region_end(ann_fd, ANN_NAME);
}

/* With no session recording, the client skips the end (the id is 0). */
static int ann_task(void)
{
	uint64_t id;

	if (gotrace_task_begin(ann_fd, 0, ANN_NAME, &id))
		return -1;
	return gotrace_task_end(ann_fd, id);
}

/* The floor: the device's ioctl with a command it does not know. */
static int ann_enotty(void)
{
	return ioctl(ann_fd, GOTRACE_STATUS, NULL) < 0 && errno == ENOTTY ? 0 : -1;
}

static void ann_run(struct workload *w)
{
	unsigned long i;

	for (i = 0; i < w->units; i++)
		if (w->annotate())
			die("annotation %s", w->name);
}

/* Each a workload of opt.annotate_calls calls, through userspace/gotrace_annotate.h. */
static struct workload ann_kinds[] = {
	{ .name = "write", .setup = nop_work, .run = ann_run,
	  .teardown = nop_work, .annotate = ann_write },
	{ .name = "log", .setup = nop_work, .run = ann_run,
	  .teardown = nop_work, .annotate = ann_log },
	{ .name = "region", .setup = nop_work, .run = ann_run,
	  .teardown = nop_work, .annotate = ann_region },
	{ .name = "task", .setup = nop_work, .run = ann_run,
	  .teardown = nop_work, .annotate = ann_task },
	{ .name = "enotty", .setup = nop_work, .run = ann_run,
	  .teardown = nop_work, .annotate = ann_enotty },
};

/*
 * Each kind once outside a window, then in a window a round, the order
 * turning each round. Within a session (@traced), each window's line gives
 * the Go events the session gained across it (its own, and the few of the
 * sleep before it).
 */
static void annotate_windows(const char *mode, bool traced)
{
	struct gotrace_status before, after;
	struct workload *w;
	unsigned int round;
	size_t k;

	for (k = 0; k < ARRAY_SIZE(ann_kinds); k++)
		if (ann_kinds[k].annotate())
			die("annotation %s (warm-up)", ann_kinds[k].name);
	for (round = 1; round <= opt.rounds; round++) {
		progress("annotate %s %u of %u", mode, round, opt.rounds);
		for (k = 0; k < ARRAY_SIZE(ann_kinds); k++) {
			w = &ann_kinds[(round + k) % ARRAY_SIZE(ann_kinds)];
			if (traced)
				gt_status(&before);
			run_plain("annotate", round, w, mode);
			if (traced) {
				gt_status(&after);
				out(" events=%llu",
				    (unsigned long long)(after.events - before.events));
			}
			out("\n");
		}
	}
}

/*
 * The windows within one session in @format, with a reader, and a buffer
 * (ANN_BUFFER per CPU) whose quarter the whole session does not fill: the
 * reader is not woken in a window, which holds the calls alone. The session
 * must lose nothing: its trace goes to Go's readers.
 */
static void annotate_session(const char *mode, __u32 format)
{
	struct gotrace_status st;
	struct reader r;
	char name[64];

	reader_spawn(&r);
	if (gt_start_format(ANN_BUFFER, format))
		die("GOTRACE_START (annotate, %s)", mode);
	annotate_windows(mode, true);
	if (gt_stop())
		die("GOTRACE_STOP (annotate, %s)", mode);
	reader_wait(&r);
	reader_finish(&r);
	gt_status(&st);
	snprintf(name, sizeof(name), "annotate-%s", mode);
	keep_trace(name);
	out("ann mode=%s", mode);
	print_status(&st);
	out(" trace=%s.trace\n", name);
	if (st.events_lost || (st.flags & GOTRACE_STATUS_CUT)) {
		errno = 0;
		die("the %s annotation session lost events or was cut", mode);
	}
}

/*
 * The annotations with no session recording (mode "idle": each call fails
 * with ENODATA, which the client takes for success), then within a session
 * in each format.
 */
static void run_annotate(void)
{
	ssize_t n;

	ann_fd = gotrace_annotate_open();
	if (ann_fd < 0)
		die("open %s", GOTRACE_ANNOTATE_DEV);
	n = write(ann_fd, ann_text, sizeof(ann_text) - 1);
	if (n >= 0)
		errno = 0;
	if (n >= 0 || errno != ENODATA)
		die("write() to %s with no session recording did not fail with ENODATA",
		    GOTRACE_ANNOTATE_DEV);
	annotate_windows("idle", false);
	annotate_session("gotrace", GOTRACE_FORMAT_DEFAULT);
	annotate_session("gotrace-1.26", GOTRACE_FORMAT_1_26);
	close(ann_fd);
}

/* --- main --- */

/* Mark the workloads not in the comma-separated @list as skipped. */
static void select_workloads(const char *list)
{
	size_t i, len;
	const char *p;

	for (i = 0; i < NR_WORKLOADS; i++) {
		len = strlen(workloads[i].name);
		workloads[i].skip = true;
		for (p = list; p; p = strchr(p, ','), p = p ? p + 1 : NULL)
			if (!strncmp(p, workloads[i].name, len) &&
			    (p[len] == ',' || !p[len]))
				workloads[i].skip = false;
	}
}

static void usage(void)
{
	fprintf(stderr,
		"usage: gotrace_bench --ko PATH [options]\n"
		"  --ko PATH              gotrace.ko to load after the bare windows\n"
		"  --trace-dir DIR        where every trace goes (default /host/traces)\n"
		"  --rounds N             rounds of each workload (3)\n"
		"  --pingpong N           round trips per ping-pong window (5000)\n"
		"  --clock CLOCK          gotrace's clock: tsc (default: what auto takes on\n"
		"                         hardware with an invariant TSC, which QEMU's TCG\n"
		"                         cannot offer), mono or auto\n"
		"  --forks N              forks per fork storm window (500)\n"
		"  --mutex-threads N      threads of the mutex storm (4, at most 64)\n"
		"  --mutex-iters N        lock acquisitions per thread (1000)\n"
		"  --snapshot-threads N   extra sleeping threads at start (10000)\n"
		"  --snapshot-reps N      starts measured with and without them (3)\n"
		"  --rate-secs S          length of each rate step (1)\n"
		"  --rate-buffer-kb N     gotrace buffer per CPU in the rate steps (64)\n"
		"  --flight-buffer-kb N   flight recorder's buffer per CPU (64: the rings\n"
		"                         must overflow in the window)\n"
		"  --trigger-latency-ms N the gotrace-trigger windows' latency threshold\n"
		"                         (1000: it must not fire; 1 to 60000)\n"
		"  --ftrace-buffer-kb N   ftrace ring buffer per CPU (32768)\n"
		"  --settle-ms N          idle time before each window (100)\n"
		"  --annotate-calls N     annotations per annotate window (1000)\n"
		"  --workloads LIST       the workloads to run, comma-separated\n"
		"                         (empty,pingpong,pp-other,forks,mutex: all)\n"
		"  --sample-reads N       64 KiB reads of /dev/zero per samples window (10000)\n"
		"  --sample-hz HZ         CPU samples a second in the sampled windows (1000)\n"
		"  --skip-rounds, --skip-filter, --skip-snapshot, --skip-rate,\n"
		"  --skip-annotate, --skip-samples, --skip-parts\n");
	exit(2);
}

static unsigned long num_arg(const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || !*s || *end)
		usage();
	return v;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "ko", required_argument, NULL, 'k' },
		{ "trace-dir", required_argument, NULL, 'd' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "pingpong", required_argument, NULL, 'p' },
		{ "clock", required_argument, NULL, 'c' },
		{ "forks", required_argument, NULL, 'f' },
		{ "mutex-threads", required_argument, NULL, 't' },
		{ "mutex-iters", required_argument, NULL, 'i' },
		{ "snapshot-threads", required_argument, NULL, 's' },
		{ "snapshot-reps", required_argument, NULL, 'S' },
		{ "rate-secs", required_argument, NULL, 'R' },
		{ "rate-buffer-kb", required_argument, NULL, 'b' },
		{ "flight-buffer-kb", required_argument, NULL, 'B' },
		{ "trigger-latency-ms", required_argument, NULL, 'L' },
		{ "ftrace-buffer-kb", required_argument, NULL, 'F' },
		{ "settle-ms", required_argument, NULL, 'w' },
		{ "annotate-calls", required_argument, NULL, 'A' },
		{ "workloads", required_argument, NULL, 'W' },
		{ "skip-rounds", no_argument, NULL, '1' },
		{ "skip-snapshot", no_argument, NULL, '2' },
		{ "skip-rate", no_argument, NULL, '3' },
		{ "skip-filter", no_argument, NULL, '4' },
		{ "skip-annotate", no_argument, NULL, '5' },
		{ "skip-samples", no_argument, NULL, '6' },
		{ "skip-parts", no_argument, NULL, '7' },
		{ "sample-reads", required_argument, NULL, 'n' },
		{ "sample-hz", required_argument, NULL, 'z' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int round;
	size_t i;
	int c;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'k':
			opt.ko = optarg;
			break;
		case 'd':
			opt.trace_dir = optarg;
			break;
		case 'r':
			opt.rounds = num_arg(optarg);
			break;
		case 'p':
			opt.pingpong = num_arg(optarg);
			break;
		case 'c':
			opt.clock_name = optarg;
			if (!strcmp(optarg, "tsc"))
				opt.clock = GOTRACE_START_CLOCK_TSC;
			else if (!strcmp(optarg, "mono"))
				opt.clock = GOTRACE_START_CLOCK_MONO;
			else if (!strcmp(optarg, "auto"))
				opt.clock = 0;
			else
				usage();
			break;
		case 'f':
			opt.forks = num_arg(optarg);
			break;
		case 't':
			opt.mutex_threads = num_arg(optarg);
			break;
		case 'i':
			opt.mutex_iters = num_arg(optarg);
			break;
		case 's':
			opt.snap_threads = num_arg(optarg);
			break;
		case 'S':
			opt.snap_reps = num_arg(optarg);
			break;
		case 'R':
			opt.rate_secs = num_arg(optarg);
			break;
		case 'b':
			opt.rate_buffer_kb = num_arg(optarg);
			break;
		case 'B':
			opt.flight_buffer_kb = num_arg(optarg);
			break;
		case 'L':
			opt.trigger_latency_ms = num_arg(optarg);
			break;
		case 'F':
			opt.ftrace_buffer_kb = num_arg(optarg);
			break;
		case 'w':
			opt.settle_ms = num_arg(optarg);
			break;
		case 'A':
			opt.annotate_calls = num_arg(optarg);
			break;
		case 'W':
			opt.workloads = optarg;
			break;
		case '1':
			opt.skip_rounds = true;
			break;
		case '2':
			opt.skip_snapshot = true;
			break;
		case '3':
			opt.skip_rate = true;
			break;
		case '4':
			opt.skip_filter = true;
			break;
		case '5':
			opt.skip_annotate = true;
			break;
		case '6':
			opt.skip_samples = true;
			break;
		case '7':
			opt.skip_parts = true;
			break;
		case 'n':
			opt.sample_reads = num_arg(optarg);
			break;
		case 'z':
			opt.sample_hz = num_arg(optarg);
			break;
		default:
			usage();
		}
	}
	if (optind != argc || !opt.ko || !opt.mutex_threads ||
	    opt.mutex_threads > MAX_THREADS || !opt.rate_secs ||
	    opt.trigger_latency_ms < GOTRACE_LATENCY_MIN_NS / 1000000 ||
	    opt.trigger_latency_ms > GOTRACE_LATENCY_MAX_NS / 1000000 ||
	    !opt.sample_hz || opt.sample_hz > GOTRACE_CPU_SAMPLE_HZ_MAX ||
	    !opt.annotate_calls ||
	    /* a session's tasks: the warm-up's and a window's each round */
	    (opt.rounds + 1) * opt.annotate_calls > GOTRACE_ANNOTATE_TASKS)
		usage();
	reader_counts = mmap(NULL, sizeof(*reader_counts), PROT_READ | PROT_WRITE,
			     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (reader_counts == MAP_FAILED)
		die("mmap");
	forker_start();
	if (mkdir(opt.trace_dir, 0755) && errno != EEXIST)
		die("mkdir %s", opt.trace_dir);

	if (opt.workloads)
		select_workloads(opt.workloads);
	workloads[1].units = opt.pingpong;
	workloads[2].units = opt.pingpong;
	workloads[3].units = opt.forks;
	workloads[4].units = (unsigned long)opt.mutex_threads * opt.mutex_iters;
	for (i = 0; i < ARRAY_SIZE(ann_kinds); i++)
		ann_kinds[i].units = opt.annotate_calls;

	out("info kernel_cpus=%ld pid_max=%lu pingpong_policy=batch pp_other_policy=other gotrace_clock=%s\n",
	    sysconf(_SC_NPROCESSORS_ONLN), read_ulong("/proc/sys/kernel/pid_max"),
	    opt.clock_name);
	ftrace_setup();
	if (access(DEV, F_OK)) {
		progress("bare windows");
		/* Each workload once to warm up, then once a round. */
		for (i = 0; i < NR_WORKLOADS; i++) {
			if (workloads[i].skip)
				continue;
			workloads[i].setup(&workloads[i]);
			workloads[i].run(&workloads[i]);
			workloads[i].teardown(&workloads[i]);
			for (round = 1; round <= opt.rounds; round++)
				run_untraced("bare", round, &workloads[i]);
		}
		load_module();
	} else {
		out("note: gotrace is loaded already: no bare windows\n");
	}
	open_device();
	warm_up();
	if (!opt.skip_rounds)
		run_rounds();
	if (!opt.skip_filter)
		run_filter();
	if (!opt.skip_parts)
		run_parts();
	if (!opt.skip_annotate)
		run_annotate();
	if (!opt.skip_samples)
		run_samples();
	if (!opt.skip_snapshot)
		run_snapshot();
	if (!opt.skip_rate)
		run_rate();
	forker_stop();
	out("done windows=%u\n", next_window);
	out_flush();
	return 0;
}
