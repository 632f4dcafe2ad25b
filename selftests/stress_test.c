// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace under stress: start/stop cycles in a fork/exec/exit storm, CPU
 * hotplug during a trace, a long run with the reader keeping up, a reader
 * that stalls until the buffers run out and then resumes.
 *
 * Sizes come from the environment so that a long run can be asked for:
 *   GOTRACE_STRESS_CYCLES  start/stop cycles (default 1000)
 *   GOTRACE_HOTPLUG_ROUNDS CPU off/on rounds during one trace (default 10)
 *   GOTRACE_LONG_MIB       MiB to stream in the long run (default 8)
 *   GOTRACE_LONG_KEEP_MIB  longest long-run trace kept for the host's Go
 *                          check (default 64; of a longer one, the test
 *                          checks only its header and that every byte
 *                          produced was read)
 *   GOTRACE_LONG_FILE      a file the long run's whole trace is also
 *                          written to as it is read, e.g. a disk the host
 *                          gave the guest (9p is too slow for the reader
 *                          to keep up); its length then goes to
 *                          GOTRACE_TRACE_DIR/stress-long-run.bytes. For
 *                          the host's split check of a large trace.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "gotrace_util.h"
#include "workload.h"

#define CPU1_ONLINE	"/sys/devices/system/cpu/cpu1/online"
#define KEEP_EVERY	100		/* cycles between traces kept */
#define LONG_BUFFER	(8 << 20)	/* per CPU: room for reader hiccups */
#define STALL_BUFFER	(64 << 10)	/* per CPU: fills in a moment */
#define MIB		(1024 * 1024ULL)

FIXTURE(stress) {
	int fd;		/* open for reading */
	int ctl;	/* open O_WRONLY, for the ioctls */
	bool cpu1_off;	/* this test took CPU 1 offline */
	struct gt_storm storm;
	pid_t children[2];	/* busy children, or 0 */
	pid_t renamers[2];	/* renaming children, or 0 */
};

FIXTURE_SETUP(stress)
{
	GT_REQUIRE_DEVICE();
	self->ctl = -1;
	self->fd = gt_open_reader();
	ASSERT_LE(0, self->fd);
	self->ctl = gt_dev_open(O_WRONLY);
	ASSERT_LE(0, self->ctl);
}

static void end_child(pid_t *pid)
{
	if (*pid > 0) {
		kill(*pid, SIGKILL);
		waitpid(*pid, NULL, 0);
	}
	*pid = 0;
}

FIXTURE_TEARDOWN(stress)
{
	unsigned long forks, failures;
	unsigned int i;

	if (self->storm.nr)
		gt_storm_stop(&self->storm, &forks, &failures);
	for (i = 0; i < ARRAY_SIZE(self->children); i++)
		end_child(&self->children[i]);
	for (i = 0; i < ARRAY_SIZE(self->renamers); i++)
		end_child(&self->renamers[i]);
	if (self->cpu1_off)
		EXPECT_EQ(0, gt_write_ulong(CPU1_ONLINE, 1));
	if (self->ctl >= 0)
		close(self->ctl);
	EXPECT_EQ(0, gt_close_reader(self->fd));
}

/* Stop (if still tracing), read @fd to the end, check and maybe keep it. */
static void finish(struct __test_metadata *_metadata, int fd, int ctl,
		   struct gt_buf *t, const char *name)
{
	struct gotrace_status st;
	struct gt_stats stats;

	ASSERT_EQ(0, gt_finish(fd, t));
	ASSERT_EQ(0, gt_status(ctl, &st));
	EXPECT_EQ(GOTRACE_STATE_IDLE, st.state);
	EXPECT_EQ(t->len, st.bytes_read);
	EXPECT_EQ(t->len, st.bytes);
	if (name) {
		EXPECT_EQ(0, gt_keep_trace(t, GOTRACE_FORMAT_DEFAULT, &stats,
					   name)) {
			TH_LOG("%s: %s", name, stats.error);
		}
	} else {
		EXPECT_EQ(0, gt_check_trace(t, GOTRACE_FORMAT_DEFAULT, &stats)) {
			TH_LOG("%s", stats.error);
		}
	}
}

/*
 * START as gotrace start does it: a thread table for the ids below
 * pid_max (768 KiB at 32768) rather than the module's default of
 * PID_MAX_LIMIT (96 MiB, slow to allocate and free on a debug kernel).
 */
static int start_pid_max(int fd)
{
	struct gotrace_start args = { .size = sizeof(args) };
	unsigned long pid_max;

	if (gt_read_ulong("/proc/sys/kernel/pid_max", &pid_max))
		return -1;
	args.max_tid = pid_max;
	return ioctl(fd, GOTRACE_START, &args);
}

/*
 * Start/stop cycles, each read to the end and checked, while a process on
 * every CPU forks children that exec or exit. Every KEEP_EVERY-th trace
 * and the last go to the host's Go check.
 */
TEST_F_TIMEOUT(stress, cycles_in_fork_storm, 3600)
{
	unsigned long cycles = gt_env_ulong("GOTRACE_STRESS_CYCLES", 1000);
	unsigned long i, forks, failures, creates = 0, forks_seen;
	struct gotrace_status st, st0;
	struct gt_buf t = { 0 };
	struct gt_stats stats;
	char name[64];

	ASSERT_EQ(0, gt_status(self->ctl, &st0));
	ASSERT_EQ(0, gt_storm_start(&self->storm));
	for (i = 0; i < cycles && _metadata->passed; i++) {
		ASSERT_EQ(0, start_pid_max(self->ctl)) {
			TH_LOG("cycle %lu: %s", i, strerror(errno));
		}
		forks_seen = gt_storm_forks(&self->storm);
		/* Let the storm fork at least once into this trace. */
		while (gt_storm_forks(&self->storm) == forks_seen)
			gt_msleep(1);
		ASSERT_EQ(0, gt_status(self->ctl, &st));
		EXPECT_EQ(GOTRACE_STATE_TRACING, st.state);
		EXPECT_EQ(st0.sessions + i + 1, st.sessions);
		snprintf(name, sizeof(name), "stress-cycle-%04lu", i);
		finish(_metadata, self->fd, self->ctl, &t,
		       i % KEEP_EVERY && i != cycles - 1 ? NULL : name);
		ASSERT_EQ(0, gt_status(self->ctl, &st));
		EXPECT_EQ(0, st.flags) {
			TH_LOG("cycle %lu was cut: %llu events lost", i,
			       (unsigned long long)st.events_lost);
		}
		ASSERT_EQ(0, gt_check_trace(&t, GOTRACE_FORMAT_DEFAULT, &stats));
		creates += stats.count[GT_EV_GO_CREATE];
		gt_buf_free(&t);
	}
	EXPECT_EQ(0, gt_storm_stop(&self->storm, &forks, &failures));
	EXPECT_EQ(0, failures);
	EXPECT_LE(cycles, forks);
	EXPECT_LT(0, creates);
	TH_LOG("%lu start/stop cycles, %lu storm forks on %ld CPUs, %lu goroutines created",
	       i, forks, sysconf(_SC_NPROCESSORS_ONLN), creates);
}

/* A child bouncing bytes through pipes until killed (or its parent dies). */
/*
 * With @cpu >= 0 the child and its ping-pong partner stay on CPU @cpu:
 * their wakeups are then local, the fastest way to make events.
 */
static void busy_child(struct __test_metadata *_metadata, pid_t *pid, int cpu)
{
	cpu_set_t set;

	*pid = fork();
	ASSERT_LE(0, *pid);
	if (*pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (cpu >= 0) {
			CPU_ZERO(&set);
			CPU_SET(cpu, &set);
			if (sched_setaffinity(0, sizeof(set), &set))
				_exit(1);
		}
		for (;;)
			gt_pingpong(1000, 0);
	}
}

/* A thread's id has 65535 goroutine ids in a trace: a renamer uses fewer. */
#define RENAMES_PER_THREAD	60000

/*
 * A child whose threads rename themselves as fast as they can, on CPU @cpu:
 * each prctl(PR_SET_NAME) ends a goroutine and starts a new one (GoEnd,
 * GoCreate, GoStartLocal), about 20 bytes for a cheap system call, the
 * densest stream a thread makes. After RENAMES_PER_THREAD renames its
 * thread exits and a new one takes over, until the child is killed.
 */
static void renamer_child(struct __test_metadata *_metadata, pid_t *pid, int cpu)
{
	static const char *const names[] = { "gt-ren-a", "gt-ren-b", "gt-ren-c" };
	cpu_set_t set;
	pid_t worker;
	int i;

	*pid = fork();
	ASSERT_LE(0, *pid);
	if (*pid)
		return;
	/*
	 * The workers outlive a kill of this child by a moment: they must not
	 * hold the device open (the next test opens its reader at once).
	 */
	close_range(3, ~0U, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		_exit(1);
	for (;;) {
		worker = fork();
		if (worker < 0)
			_exit(1);
		if (!worker) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			for (i = 0; i < RENAMES_PER_THREAD; i++)
				prctl(PR_SET_NAME, names[i % ARRAY_SIZE(names)]);
			_exit(0);
		}
		if (waitpid(worker, NULL, 0) != worker)
			_exit(1);
	}
}

/*
 * Take CPU 1 off or on; SKIP if this kernel or machine cannot (the caller
 * then sees _metadata->skip: SKIP returns from here only).
 */
static void cpu1_online(struct __test_metadata *_metadata, bool *off, bool on)
{
	unsigned long v;

	if (!*off && (access(CPU1_ONLINE, W_OK) || gt_read_ulong(CPU1_ONLINE, &v)))
		SKIP(return, "no hotpluggable CPU 1 (" CPU1_ONLINE ")");
	ASSERT_EQ(0, gt_write_ulong(CPU1_ONLINE, on)) {
		TH_LOG("writing %d to " CPU1_ONLINE ": %s", on, strerror(errno));
	}
	ASSERT_EQ(0, gt_read_ulong(CPU1_ONLINE, &v));
	ASSERT_EQ(on, v);
	*off = !on;
}

/*
 * CPU 1 goes off and on again, repeatedly, while a busy trace records.
 * Tracepoints are off on a CPU going down, so the module must end the run
 * of its stopper itself when the CPU is back; Go's parsers check it did.
 */
TEST_F_TIMEOUT(stress, hotplug_during_trace, 900)
{
	unsigned long rounds = gt_env_ulong("GOTRACE_HOTPLUG_ROUNDS", 10);
	struct gt_recorder rec;
	struct gotrace_status st;
	struct gt_stats stats;
	unsigned long i;

	cpu1_online(_metadata, &self->cpu1_off, true);
	if (_metadata->skip)
		return;
	ASSERT_EQ(0, gt_start(self->ctl, GOTRACE_FORMAT_DEFAULT, 0));
	ASSERT_EQ(0, gt_recorder_start(&rec, self->fd, GT_READ_CHUNK));
	busy_child(_metadata, &self->children[0], -1);
	for (i = 0; i < rounds && _metadata->passed; i++) {
		cpu1_online(_metadata, &self->cpu1_off, false);
		gt_msleep(50);
		cpu1_online(_metadata, &self->cpu1_off, true);
		gt_msleep(50);
		ASSERT_EQ(0, gt_status(self->ctl, &st));
		EXPECT_EQ(GOTRACE_STATE_TRACING, st.state);
	}
	end_child(&self->children[0]);
	ASSERT_EQ(0, gt_status(self->ctl, &st));
	EXPECT_EQ(0, st.flags);
	EXPECT_EQ(0, st.events_lost);
	ASSERT_EQ(0, gt_stop(self->ctl));
	ASSERT_EQ(0, gt_recorder_join(&rec));
	EXPECT_EQ(0, gt_keep_trace(&rec.trace, GOTRACE_FORMAT_DEFAULT, &stats,
				   "stress-hotplug")) {
		TH_LOG("%s", stats.error);
	}
	EXPECT_EQ(2, stats.nr_ps);
	gt_buf_free(&rec.trace);
	TH_LOG("CPU 1 taken offline and back %lu times during one trace", i);
}

/*
 * A trace started while CPU 1 is offline: CPU 1 comes online during it and
 * runs a workload pinned there, so its P starts mid-trace.
 */
TEST_F_TIMEOUT(stress, hotplug_start_offline, 600)
{
	struct gt_recorder rec;
	struct gotrace_status st;
	struct gt_stats stats;
	cpu_set_t cpu1;
	pid_t child;

	cpu1_online(_metadata, &self->cpu1_off, false);
	if (_metadata->skip)
		return;
	ASSERT_EQ(0, gt_start(self->ctl, GOTRACE_FORMAT_DEFAULT, 0));
	ASSERT_EQ(0, gt_recorder_start(&rec, self->fd, GT_READ_CHUNK));
	gt_msleep(50);
	cpu1_online(_metadata, &self->cpu1_off, true);
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		CPU_ZERO(&cpu1);
		CPU_SET(1, &cpu1);
		_exit(sched_setaffinity(0, sizeof(cpu1), &cpu1) ||
		      gt_pingpong(2000, 0) != 2000);
	}
	ASSERT_EQ(0, gt_reap(child));
	ASSERT_EQ(0, gt_status(self->ctl, &st));
	EXPECT_EQ(0, st.flags);
	EXPECT_EQ(0, st.events_lost);
	ASSERT_EQ(0, gt_stop(self->ctl));
	ASSERT_EQ(0, gt_recorder_join(&rec));
	EXPECT_EQ(0, gt_keep_trace(&rec.trace, GOTRACE_FORMAT_DEFAULT, &stats,
				   "stress-hotplug-start-offline")) {
		TH_LOG("%s", stats.error);
	}
	EXPECT_EQ(2, stats.nr_ps);
	gt_buf_free(&rec.trace);
}

/*
 * Reads the device to the end, keeping at most @keep bytes of the trace and
 * writing all of it to @out if it is not -1.
 */
struct streamer {
	int fd;
	int out;
	size_t keep;
	struct gt_buf trace;	/* the first bytes, or all if no more than keep */
	size_t bytes;		/* atomic: read so far */
	bool header_ok;
	int error;
	pthread_t thread;
};

static void *streamer_main(void *arg)
{
	struct streamer *s = arg;
	size_t chunk = 256 * 1024;
	unsigned char *buf = malloc(chunk);
	ssize_t n;

	s->error = buf ? 0 : ENOMEM;
	while (buf) {
		n = read(s->fd, buf, chunk);
		if (n == 0)
			break;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			s->error = errno;
			break;
		}
		if (!s->bytes)
			s->header_ok = n >= GT_HEADER_LEN &&
				!memcmp(buf, gt_header(GOTRACE_FORMAT_DEFAULT),
					GT_HEADER_LEN);
		if (s->trace.len + n <= s->keep &&
		    gt_buf_add(&s->trace, buf, n)) {
			s->error = ENOMEM;
			break;
		}
		if (s->out >= 0 && gt_write_all(s->out, buf, n)) {
			s->error = errno;
			break;
		}
		__atomic_store_n(&s->bytes, s->bytes + n, __ATOMIC_RELEASE);
	}
	free(buf);
	return NULL;
}

/* The long run's trace length, for the host to take it off GOTRACE_LONG_FILE. */
static int long_run_length(size_t bytes)
{
	struct gt_buf t = { 0 };
	char line[32];
	int ret;

	snprintf(line, sizeof(line), "%zu\n", bytes);
	if (gt_buf_add(&t, line, strlen(line)))
		return -1;
	ret = gt_save_as(&t, "stress-long-run.bytes");
	gt_buf_free(&t);
	return ret;
}

/*
 * Stream a busy trace for GOTRACE_LONG_MIB MiB with the reader keeping up:
 * not one event may go unrecorded, and every byte produced is read. On each
 * CPU a ping-pong pair and a renamer make events as fast as they can.
 */
TEST_F_TIMEOUT(stress, long_run, 7200)
{
	__u64 target = gt_env_ulong("GOTRACE_LONG_MIB", 8) * MIB;
	const char *file = getenv("GOTRACE_LONG_FILE");
	struct streamer s = {
		.fd = self->fd,
		.out = -1,
		.keep = gt_env_ulong("GOTRACE_LONG_KEEP_MIB", 64) * MIB,
	};
	__u64 start_ms, ms, next_log = 0;
	struct gotrace_status st;
	struct gt_stats stats;
	unsigned int i;

	if (file && *file) {
		s.out = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		ASSERT_LE(0, s.out) {
			TH_LOG("GOTRACE_LONG_FILE %s: %s", file, strerror(errno));
		}
	}
	ASSERT_EQ(0, gt_start(self->ctl, GOTRACE_FORMAT_DEFAULT, LONG_BUFFER));
	ASSERT_EQ(0, pthread_create(&s.thread, NULL, streamer_main, &s));
	for (i = 0; i < ARRAY_SIZE(self->children); i++)
		busy_child(_metadata, &self->children[i], i % get_nprocs());
	for (i = 0; i < ARRAY_SIZE(self->renamers); i++)
		renamer_child(_metadata, &self->renamers[i], i % get_nprocs());
	start_ms = gt_now_ms();
	while (__atomic_load_n(&s.bytes, __ATOMIC_ACQUIRE) < target) {
		gt_msleep(100);
		ASSERT_EQ(0, gt_status(self->ctl, &st));
		if (st.flags || st.events_lost)
			break;
		if (st.bytes_read >= next_log) {
			TH_LOG("%llu MiB read, %llu events",
			       (unsigned long long)(st.bytes_read / MIB),
			       (unsigned long long)st.events);
			next_log += target / 8 + 1;
		}
	}
	ms = gt_now_ms() - start_ms;
	for (i = 0; i < ARRAY_SIZE(self->children); i++)
		end_child(&self->children[i]);
	for (i = 0; i < ARRAY_SIZE(self->renamers); i++)
		end_child(&self->renamers[i]);
	ASSERT_EQ(0, gt_status(self->ctl, &st));
	EXPECT_EQ(0, st.flags);
	EXPECT_EQ(0, st.events_lost);
	ASSERT_EQ(0, gt_stop(self->ctl));
	pthread_join(s.thread, NULL);
	EXPECT_EQ(0, s.error);
	EXPECT_TRUE(s.header_ok);
	ASSERT_EQ(0, gt_status(self->ctl, &st));
	EXPECT_EQ(GOTRACE_STATE_IDLE, st.state);
	EXPECT_EQ(0, st.events_lost);
	EXPECT_EQ(s.bytes, st.bytes_read);
	EXPECT_EQ(st.bytes, st.bytes_read);
	EXPECT_LE(target, s.bytes);
	TH_LOG("streamed %llu bytes (%llu MiB), %llu events, 0 lost, in %llu ms",
	       (unsigned long long)s.bytes, (unsigned long long)(s.bytes / MIB),
	       (unsigned long long)st.events, (unsigned long long)ms);
	if (s.out >= 0) {
		EXPECT_EQ(0, fsync(s.out));
		EXPECT_EQ(0, close(s.out));
		EXPECT_EQ(0, long_run_length(s.bytes));
		TH_LOG("the whole trace is in %s, %llu bytes", file,
		       (unsigned long long)s.bytes);
	}
	if (s.trace.len == s.bytes) {
		EXPECT_EQ(0, gt_keep_trace(&s.trace, GOTRACE_FORMAT_DEFAULT,
					   &stats, "stress-long-run")) {
			TH_LOG("%s", stats.error);
		}
	} else {
		TH_LOG("trace longer than GOTRACE_LONG_KEEP_MIB: not kept");
	}
	gt_buf_free(&s.trace);
}

/*
 * The reader reads a little, then stalls until the buffers run out and the
 * recording is cut, then resumes while the session still runs: it gets
 * every byte recorded before the cut, the trace is whole, and the next
 * session records normally.
 */
TEST_F_TIMEOUT(stress, stalled_reader_resumes, 600)
{
	struct gotrace_status st1, st2, st3;
	struct gt_buf t = { 0 };
	__u64 deadline;
	char buf[4096];
	ssize_t n;
	int flags;

	ASSERT_EQ(0, gt_start(self->ctl, GOTRACE_FORMAT_DEFAULT, STALL_BUFFER));
	/* Reading: the header and the first batch to fill. */
	while (t.len <= GT_HEADER_LEN) {
		ASSERT_EQ(200, gt_pingpong(200, 0));
		n = read(self->fd, buf, sizeof(buf));
		ASSERT_LT(0, n);
		ASSERT_EQ(0, gt_buf_add(&t, buf, n));
	}

	/* Stalled: the buffers fill and the recording is cut. */
	deadline = gt_now_ms() + 120000;
	do {
		ASSERT_EQ(200, gt_pingpong(200, 0));
		ASSERT_EQ(0, gt_status(self->ctl, &st1));
	} while (!(st1.flags & GOTRACE_STATUS_CUT) && gt_now_ms() < deadline);
	ASSERT_EQ(GOTRACE_STATUS_CUT, st1.flags & GOTRACE_STATUS_CUT);
	EXPECT_EQ(GOTRACE_STATE_TRACING, st1.state);
	EXPECT_LT(0, st1.events_lost);
	EXPECT_LT(0, st1.chunks_full);

	/* Resumed, still tracing: every full chunk comes, then EAGAIN. */
	flags = fcntl(self->fd, F_GETFL);
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, flags | O_NONBLOCK));
	while ((n = read(self->fd, buf, sizeof(buf))) > 0)
		ASSERT_EQ(0, gt_buf_add(&t, buf, n));
	EXPECT_EQ(-1, n);
	EXPECT_EQ(EAGAIN, errno);
	ASSERT_EQ(0, gt_status(self->ctl, &st2));
	EXPECT_EQ(GOTRACE_STATE_TRACING, st2.state);
	EXPECT_EQ(0, st2.chunks_full);
	EXPECT_EQ(t.len, st2.bytes_read);
	EXPECT_EQ(st1.events, st2.events);
	EXPECT_LE(st1.events_lost, st2.events_lost);
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, flags));
	finish(_metadata, self->fd, self->ctl, &t, "stress-stalled-reader");
	gt_buf_free(&t);

	/* The device records the next session whole, nothing lost. */
	ASSERT_EQ(0, gt_start(self->ctl, GOTRACE_FORMAT_DEFAULT, 0));
	ASSERT_EQ(2000, gt_pingpong(2000, 0));
	ASSERT_EQ(0, gt_status(self->ctl, &st3));
	EXPECT_EQ(0, st3.flags);
	EXPECT_EQ(0, st3.events_lost);
	EXPECT_LT(0, st3.events);
	finish(_metadata, self->fd, self->ctl, &t, "stress-after-stall");
	gt_buf_free(&t);
}

TEST_HARNESS_MAIN
