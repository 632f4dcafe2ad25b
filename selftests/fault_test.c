// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace under faults: rmmod attempted while a reader reads and while
 * sessions start and stop, a reader killed in the middle of a trace, and
 * starts whose allocations cannot or do not succeed. Each leaves the device usable, the
 * module loaded and its reference count where it was.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "gotrace_util.h"
#include "workload.h"

#define REFCNT		"/sys/module/gotrace/refcnt"
#define RMMOD_TRIES	50
#define CYCLES		50
#define KILLED_READ	512	/* bytes per read() of the reader that is killed */

FIXTURE(fault) {
	unsigned long refcnt;	/* the module's, with no file of this test open */
	pid_t child;		/* or 0 */
};

FIXTURE_SETUP(fault)
{
	GT_REQUIRE_DEVICE();
	ASSERT_EQ(0, gt_reset());
	ASSERT_EQ(0, gt_read_ulong(REFCNT, &self->refcnt));
}

FIXTURE_TEARDOWN(fault)
{
	unsigned long refcnt;

	if (self->child > 0) {
		kill(self->child, SIGKILL);
		waitpid(self->child, NULL, 0);
	}
	EXPECT_EQ(0, gt_reset());
	/* Every file this test opened is closed: no reference is left. */
	EXPECT_EQ(0, gt_read_ulong(REFCNT, &refcnt));
	EXPECT_EQ(self->refcnt, refcnt);
}

/* rmmod must fail as "in use" and change nothing. */
static void rmmod_refused(struct __test_metadata *_metadata)
{
	EXPECT_EQ(-1, gt_unload_module());
	EXPECT_EQ(EWOULDBLOCK, errno);
	EXPECT_TRUE(gt_module_loaded());
}

/*
 * A recorder reads a busy session; rmmod is tried again and again, at
 * least RMMOD_TRIES times and until the recorder has read batches (a
 * blocked read returns them within a second, or sooner when a quarter of
 * the ring waits).
 */
TEST_F_TIMEOUT(fault, rmmod_during_read, 600)
{
	struct gotrace_status st;
	struct gt_session s;
	struct gt_stats stats;
	__u64 deadline;
	int i;

	ASSERT_EQ(0, gt_session_start(&s, GOTRACE_FORMAT_DEFAULT));
	deadline = gt_now_ms() + GT_TIMEOUT_MS;
	for (i = 0; i < RMMOD_TRIES ||
	     (gt_recorder_bytes(&s.rec) <= GT_HEADER_LEN &&
	      gt_now_ms() < deadline); i++) {
		ASSERT_EQ(100, gt_pingpong(100, 0));
		rmmod_refused(_metadata);
	}
	TH_LOG("%d rmmod attempts, all refused, %zu bytes read meanwhile", i,
	       gt_recorder_bytes(&s.rec));
	EXPECT_LT(GT_HEADER_LEN, gt_recorder_bytes(&s.rec));
	ASSERT_EQ(0, gt_status(s.ctl, &st));
	EXPECT_EQ(GOTRACE_STATE_TRACING, st.state);
	EXPECT_EQ(0, st.flags);
	EXPECT_EQ(0, gt_session_end(&s, &stats, "fault-rmmod_during_read")) {
		TH_LOG("%s", stats.error);
	}
	EXPECT_EQ(0, gt_session_close(&s));
}

/* What a child hammering delete_module() saw. */
struct hammer {
	bool go;		/* atomic: the parent holds the device */
	bool stop;		/* atomic */
	unsigned long tries;	/* atomic */
	unsigned long unloaded;	/* delete_module() succeeded: must stay 0 */
	unsigned long other;	/* failed with another errno than EWOULDBLOCK */
};

static void hammer_main(struct hammer *h)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* Not before the parent holds the device: the module could go first. */
	while (!__atomic_load_n(&h->go, __ATOMIC_ACQUIRE))
		gt_msleep(1);
	while (!__atomic_load_n(&h->stop, __ATOMIC_RELAXED)) {
		if (!gt_unload_module())
			h->unloaded++;
		else if (errno != EWOULDBLOCK)
			h->other++;
		__atomic_add_fetch(&h->tries, 1, __ATOMIC_RELAXED);
	}
	_exit(0);
}

/*
 * Sessions start and stop (stop_machine(), RCU grace periods, buffers
 * allocated and freed) while another process tries to unload the module.
 */
TEST_F_TIMEOUT(fault, rmmod_during_start_stop, 900)
{
	struct gt_buf t = { 0 };
	struct gt_stats stats;
	unsigned long tries;
	struct hammer *h;
	int fd, i;

	h = mmap(NULL, sizeof(*h), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, h);
	memset(h, 0, sizeof(*h));
	/* Forked first: the hammer holds no file of the device itself. */
	self->child = fork();
	ASSERT_LE(0, self->child);
	if (self->child == 0)
		hammer_main(h);
	fd = gt_open_reader();
	ASSERT_LE(0, fd);
	__atomic_store_n(&h->go, true, __ATOMIC_RELEASE);
	for (i = 0; i < CYCLES && _metadata->passed; i++) {
		tries = __atomic_load_n(&h->tries, __ATOMIC_RELAXED);
		ASSERT_EQ(0, gt_start(fd, GOTRACE_FORMAT_DEFAULT, 0));
		/* At least one try while it records, one during the stop. */
		while (__atomic_load_n(&h->tries, __ATOMIC_RELAXED) == tries)
			gt_msleep(1);
		ASSERT_EQ(0, gt_finish(fd, &t));
		if (i == CYCLES - 1)
			EXPECT_EQ(0, gt_keep_trace(&t, GOTRACE_FORMAT_DEFAULT,
						   &stats,
						   "fault-rmmod_during_start_stop"));
		EXPECT_EQ(0, gt_check_trace(&t, GOTRACE_FORMAT_DEFAULT, &stats)) {
			TH_LOG("cycle %d: %s", i, stats.error);
		}
		gt_buf_free(&t);
	}
	__atomic_store_n(&h->stop, true, __ATOMIC_RELAXED);
	ASSERT_EQ(self->child, waitpid(self->child, NULL, 0));
	self->child = 0;
	EXPECT_EQ(0, h->unloaded);
	EXPECT_EQ(0, h->other);
	EXPECT_LE(CYCLES, h->tries);
	EXPECT_TRUE(gt_module_loaded());
	TH_LOG("%d start/stop cycles, %lu rmmod attempts, all refused",
	       i, h->tries);
	EXPECT_EQ(0, gt_close_reader(fd));
	munmap(h, sizeof(*h));
}

/*
 * A reader is killed while a busy session streams to it: the session goes
 * on undisturbed and the device takes a new reader, but what is left of
 * the trace would not make a valid file on its own: the new reader gets
 * EPIPE, nothing more is read, and the next session is whole.
 */
TEST_F_TIMEOUT(fault, reader_killed_mid_read, 600)
{
	struct gotrace_status st1, st2, st3;
	size_t *bytes = mmap(NULL, sizeof(*bytes), PROT_READ | PROT_WRITE,
			     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct gt_session s;
	struct gt_stats stats;
	__u64 deadline;
	char buf[4096];
	int ctl, fd;
	ssize_t n;

	ASSERT_NE(MAP_FAILED, bytes);
	*bytes = 0;
	ctl = gt_dev_open(O_WRONLY);
	ASSERT_LE(0, ctl);
	ASSERT_EQ(0, gt_start(ctl, GOTRACE_FORMAT_DEFAULT, 0));
	self->child = fork();
	ASSERT_LE(0, self->child);
	if (self->child == 0) {
		fd = gt_dev_open(O_RDONLY);
		while (fd >= 0 && (n = read(fd, buf, KILLED_READ)) > 0)
			__atomic_add_fetch(bytes, n, __ATOMIC_RELAXED);
		_exit(1);
	}
	/* Kill it once it has read some, with more coming. */
	deadline = gt_now_ms() + GT_TIMEOUT_MS;
	while (__atomic_load_n(bytes, __ATOMIC_RELAXED) < 8192 &&
	       gt_now_ms() < deadline)
		ASSERT_EQ(100, gt_pingpong(100, 0));
	ASSERT_LE(8192, __atomic_load_n(bytes, __ATOMIC_RELAXED));
	ASSERT_EQ(0, kill(self->child, SIGKILL));
	ASSERT_EQ(self->child, waitpid(self->child, NULL, 0));
	self->child = 0;

	ASSERT_EQ(0, gt_status(ctl, &st1));
	ASSERT_EQ(200, gt_pingpong(200, 0));
	ASSERT_EQ(0, gt_status(ctl, &st2));
	EXPECT_EQ(GOTRACE_STATE_TRACING, st2.state);
	EXPECT_EQ(0, st2.flags);
	EXPECT_LT(st1.events, st2.events);
	/* Killed between a read() and counting it, it may lag one read. */
	EXPECT_LE(*bytes, st1.bytes_read);
	EXPECT_GE(*bytes + KILLED_READ, st1.bytes_read);

	/* The reader's place is free; the rest of the trace is not served. */
	fd = gt_dev_open(O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, read(fd, buf, sizeof(buf)));
	EXPECT_EQ(EPIPE, errno);
	EXPECT_EQ(0, gt_stop(ctl));
	EXPECT_EQ(-1, read(fd, buf, sizeof(buf)));
	EXPECT_EQ(EPIPE, errno);
	EXPECT_EQ(0, gt_status(ctl, &st3));
	EXPECT_EQ(GOTRACE_STATE_STOPPED, st3.state);
	EXPECT_EQ(st1.bytes_read, st3.bytes_read);
	close(fd);
	close(ctl);

	ASSERT_EQ(0, gt_session_start(&s, GOTRACE_FORMAT_DEFAULT));
	ASSERT_EQ(500, gt_pingpong(500, 0));
	EXPECT_EQ(0, gt_session_end(&s, &stats, "fault-after-killed-reader")) {
		TH_LOG("%s", stats.error);
	}
	EXPECT_EQ(0, gt_session_close(&s));
	munmap(bytes, sizeof(*bytes));
}

/* MemAvailable of /proc/meminfo, in bytes; 0 if unknown. */
static __u64 mem_available(void)
{
	unsigned long kb = 0;
	char line[128];
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %lu kB", &kb) == 1)
			break;
	fclose(f);
	return kb * 1024ULL;
}

/* Pages the kernel has allocated since boot (/proc/vmstat pgalloc_*). */
static __u64 pages_allocated(void)
{
	unsigned long long n, sum = 0;
	char line[128], name[64];
	FILE *f = fopen("/proc/vmstat", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "pgalloc_%63s %llu", name, &n) == 2)
			sum += n;
	fclose(f);
	return sum;
}

/* A failed start changed nothing: idle, no new session, counters kept. */
static void start_failed_cleanly(struct __test_metadata *_metadata, int ctl,
				 const struct gotrace_status *st0)
{
	struct gotrace_status st;

	ASSERT_EQ(0, gt_status(ctl, &st));
	EXPECT_EQ(GOTRACE_STATE_IDLE, st.state);
	EXPECT_EQ(st0->sessions, st.sessions);
	EXPECT_EQ(st0->events, st.events);
	EXPECT_EQ(st0->events_lost, st.events_lost);
}

/* The device records a whole valid trace. */
static void session_works(struct __test_metadata *_metadata, const char *name)
{
	struct gt_session s;
	struct gt_stats stats;

	ASSERT_EQ(0, gt_session_start(&s, GOTRACE_FORMAT_DEFAULT));
	ASSERT_EQ(200, gt_pingpong(200, 0));
	EXPECT_EQ(0, gt_session_end(&s, &stats, name)) {
		TH_LOG("%s", stats.error);
	}
	EXPECT_EQ(0, gt_session_close(&s));
}

/*
 * A start whose buffers do not fit in the memory available: ENOMEM before
 * anything is allocated (no reclaim storm, no OOM kill), nothing started,
 * and the device starts the next session normally. Trying first would
 * allocate up to a CPU's 1 GiB (262,144 pages) before failing: the start
 * may allocate less than 16 MiB of pages, whatever else runs meanwhile.
 */
TEST_F_TIMEOUT(fault, start_beyond_memory, 300)
{
	struct gotrace_status st0;
	__u64 pages;
	int ctl;

	ctl = gt_dev_open(O_WRONLY);
	ASSERT_LE(0, ctl);
	ASSERT_EQ(0, gt_status(ctl, &st0));
	if ((__u64)st0.nr_cpus * GT_MAX_BUFFER < mem_available()) {
		close(ctl);
		SKIP(return, "%u CPUs x 1 GiB of buffers fit in MemAvailable",
		     st0.nr_cpus);
	}
	pages = pages_allocated();
	ASSERT_NE(0, pages);
	EXPECT_EQ(-1, gt_start(ctl, GOTRACE_FORMAT_DEFAULT, GT_MAX_BUFFER));
	EXPECT_EQ(ENOMEM, errno);
	pages = pages_allocated() - pages;
	EXPECT_GT(4096, pages);
	TH_LOG("the refused start: %llu pages allocated meanwhile",
	       (unsigned long long)pages);
	start_failed_cleanly(_metadata, ctl, &st0);
	close(ctl);
	session_works(_metadata, "fault-after-beyond-memory");
}

#define FAIL_PAGE_ALLOC	"/sys/kernel/debug/fail_page_alloc/"
#define FAILSLAB	"/sys/kernel/debug/failslab/"
#define PID_MAX		"/proc/sys/kernel/pid_max"
#define FI_MAX_CALLS	100000

/*
 * Set both fault-injection attributes: whether sleeping allocations are
 * spared (@ignore_wait, "Y"/"N"), and @verbose (0: silent, 2: the default,
 * a stack dump at each fault, which the debug run would take for a report).
 * Their probability stays 0: only fail-nth makes anything fail.
 */
static int fi_config(const char *ignore_wait, const char *verbose)
{
	return gt_write_file(FAIL_PAGE_ALLOC "ignore-gfp-wait", ignore_wait) ||
	       gt_write_file(FAILSLAB "ignore-gfp-wait", ignore_wait) ||
	       gt_write_file(FAIL_PAGE_ALLOC "verbose", verbose) ||
	       gt_write_file(FAILSLAB "verbose", verbose);
}

/* What the fault-injection file @fd holds, as a number; -1 on error. */
static long fi_read(int fd)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

/*
 * Each allocation of a start fails in turn, page or slab, through the
 * calling thread's fail-nth (fault-injection.rst; kernels built with
 * CONFIG_FAIL_PAGE_ALLOC and CONFIG_FAILSLAB, such as gotrace's debug
 * kernel): the buffers, the thread table, and the small ones. A start
 * that fails says ENOMEM and changes nothing; kmemleak (run_guest.sh)
 * checks that nothing stays allocated; a start that survives its fault
 * (kvmalloc falling back to vmalloc) is stopped. The loop ends at the
 * first start in which no fault was left to inject.
 */
TEST_F_TIMEOUT(fault, start_allocation_fails, 1800)
{
	struct gotrace_start args = {
		.size = sizeof(args),
		.format = GOTRACE_FORMAT_DEFAULT,
	};
	unsigned int failed = 0, survived = 0;
	struct gotrace_status st0;
	unsigned long pid_max;
	int ctl, nth, ret = -1;
	long n, left = 0;

	if (access(FAIL_PAGE_ALLOC, W_OK) || access(FAILSLAB, W_OK))
		SKIP(return, "no fault injection: %s",
		     "the kernel lacks CONFIG_FAIL_PAGE_ALLOC or CONFIG_FAILSLAB");
	ASSERT_EQ(0, fi_config("N", "0"));
	/* The table gotrace start makes: one entry per possible pid. */
	ASSERT_EQ(0, gt_read_ulong(PID_MAX, &pid_max));
	args.max_tid = pid_max;
	nth = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, nth);
	ctl = gt_dev_open(O_WRONLY);
	ASSERT_LE(0, ctl);
	ASSERT_EQ(0, gt_status(ctl, &st0));
	for (n = 1; n <= FI_MAX_CALLS; n++) {
		char val[32];
		int err, len = snprintf(val, sizeof(val), "%ld", n);

		ASSERT_EQ(len, pwrite(nth, val, len, 0));
		ret = ioctl(ctl, GOTRACE_START, &args);
		err = errno;
		/* 0: the fault was injected; else how many calls were left. */
		left = fi_read(nth);
		ASSERT_EQ(1, pwrite(nth, "0", 1, 0));
		if (!ret) {
			ASSERT_EQ(0, gt_stop(ctl));
			ASSERT_EQ(0, gt_reset());
			if (left)
				break;
			survived++;
			ASSERT_EQ(0, gt_status(ctl, &st0));
			continue;
		}
		ASSERT_EQ(0, left);
		ASSERT_EQ(ENOMEM, err);
		start_failed_cleanly(_metadata, ctl, &st0);
		failed++;
	}
	EXPECT_EQ(0, fi_config("Y", "2"));
	ASSERT_EQ(0, ret);
	ASSERT_NE(0, left) {
		TH_LOG("every start up to fail-nth %d had a fault injected", FI_MAX_CALLS);
	}
	/*
	 * Both outcomes happened: allocations with no vmalloc fallback (kmalloc
	 * only, or a page or less) fail the start, the others survive. How many
	 * of each varies from run to run (3 to 8 failed in 22 or 23 points on
	 * the debug kernel), with which of vmalloc's own allocations a fault hits.
	 */
	EXPECT_LT(0, failed);
	EXPECT_LT(0, survived);
	TH_LOG("a fault at each of %ld allocations: %u starts failed with ENOMEM, %u survived it",
	       n - 1, failed, survived);
	close(ctl);
	close(nth);
	session_works(_metadata, "fault-after-allocation-fails");
}

TEST_HARNESS_MAIN
