// SPDX-License-Identifier: GPL-2.0
/*
 * CPU samples (struct gotrace_start's cpu_sample_hz, GOTRACE_START_SIZE_VER2):
 * a thread that spends its time in read() of /dev/zero, sampled at 1000 Hz,
 * gets CPUSample events on its goroutine whose kernel stacks name vfs_read,
 * about as many as its run time allows, in formats 1.19 and 1.21 and in
 * the generations of 1.23 and 1.26 (CPU-sample batches, read as Go's
 * reader does; 1.26 with a generation every 100 ms); GOTRACE_STATUS counts
 * the samples written, which are the trace's, and those dropped when
 * nobody reads (1.26's sample rings full, 1.21's buffers full); a flight
 * recorder's snapshot has its generations' samples; no sample without the
 * field; bad rates and formats fail with their errno and start nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "gotrace_util.h"
#include "tracev2.h"

#define SAMPLE_HZ	1000
#define BUSY_MS		1000
#define READ_SIZE	(256 * 1024)
#define GEN_PERIOD_NS	100000000ULL
#define DROP_TIMEOUT_MS	20000

/* The busy thread: read() of /dev/zero for BUSY_MS, or until told. */
struct busy {
	pthread_t thread;
	pid_t tid;		/* set before it starts reading */
	__u64 ms;		/* how long it read */
	int error;		/* errno of a failed read, or 0 */
	bool until_stop;	/* read until @stop, not for BUSY_MS */
	bool stop;		/* atomic */
};

static bool busy_done(struct busy *b, __u64 start)
{
	if (b->until_stop)
		return __atomic_load_n(&b->stop, __ATOMIC_RELAXED);
	return gt_now_ms() - start >= BUSY_MS;
}

static void *busy_main(void *arg)
{
	struct busy *b = arg;
	__u64 start = gt_now_ms();
	char *buf = malloc(READ_SIZE);
	int fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);

	b->tid = syscall(SYS_gettid);
	if (!buf || fd < 0) {
		b->error = errno;
		goto out;
	}
	while (!busy_done(b, start)) {
		if (read(fd, buf, READ_SIZE) != READ_SIZE) {
			b->error = errno ? errno : EIO;
			break;
		}
	}
	b->ms = gt_now_ms() - start;
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

/* What the samples of a trace say. */
struct counts {
	pid_t tid;		/* the busy thread */
	int nr_cpus;
	unsigned long samples;	/* every CPUSample */
	unsigned long busy;	/* on the busy thread's goroutine */
	unsigned long in_read;	/* ...whose stack names vfs_read */
	unsigned long bad_p;	/* on no CPU of this machine */
	unsigned long gens;	/* generations (formats 1.22 and later) */
};

/* A sample on P @p, goroutine @g (0 for none), in read() if @in_read. */
static void count_one(struct counts *c, __s64 p, __u64 g, bool in_read)
{
	c->samples++;
	if (p < 0 || p >= c->nr_cpus)
		c->bad_p++;
	if (g && g % GT_PID_MAX_LIMIT == (__u64)c->tid) {
		c->busy++;
		if (in_read)
			c->in_read++;
	}
}

static bool stack_names(const struct gt_trace *t, __u64 stk, const char *fn)
{
	struct gt_frame frames[64];
	unsigned int i, n = gt_stack(t, stk, frames, 64);
	const char *name;
	size_t len;

	for (i = 0; i < n && i < 64; i++) {
		/* Dictionary strings are not NUL-terminated. */
		name = gt_string(t, frames[i].fn, &len);
		if (len == strlen(fn) && !memcmp(name, fn, len))
			return true;
	}
	return false;
}

static int count_sample(void *ctx, const struct gt_trace *t,
			const struct gt_event *ev)
{
	struct counts *c = ctx;

	if (ev->type != GT_EV_CPU_SAMPLE)
		return 0;
	count_one(c, ev->p, ev->g, stack_names(t, ev->stk, "vfs_read"));
	return 0;
}

/* Read @trace with libgtrace (Go's rules) and count its samples into @c. */
static int count_samples(const struct gt_buf *trace, struct counts *c)
{
	struct gt_trace *t;
	struct gt_error err;
	int ret;

	if (gt_open_mem(trace->data, trace->len, &t, &err))
		return -1;
	ret = gt_check(t, count_sample, c, &err);
	gt_close(t);
	return ret;
}

/* Whether Go's Event.String() of a sample names @fn among its frames. */
static bool sample2_names(const struct gt2_event *ev, const char *fn)
{
	char line[8192], want[128];
	FILE *f = fmemopen(line, sizeof(line), "w");

	if (!f)
		return false;
	gt2_event_print(f, ev);
	fputc(0, f);
	fclose(f);
	line[sizeof(line) - 1] = '\0';
	snprintf(want, sizeof(want), "\t%s @ ", fn);
	return strstr(line, want);
}

/*
 * The same for a trace of generations, read with Go 1.22+'s reader (which
 * merges the samples of each generation's CPU-sample batches).
 */
static int count_samples2(const struct gt_buf *trace, struct counts *c)
{
	struct gt2_reader *r = NULL;
	struct gt2_trace *t;
	struct gt2_event ev;
	struct gt_error err;
	int n = -1;

	if (gt2_open_mem(trace->data, trace->len, &t, &err))
		return -1;
	if (!gt2_reader_open(t, &r, &err)) {
		while ((n = gt2_reader_next(r, &ev, &err)) > 0)
			if (ev.type == GT2_EV_CPU_SAMPLE)
				count_one(c, ev.p, ev.g > 0 ? ev.g : 0,
					  sample2_names(&ev, "vfs_read"));
		c->gens = gt2_reader_generations(r);
		gt2_reader_close(r);
	}
	gt2_close(t);
	return n;
}

/* The samples of @trace, of either format, into @c; @tid the busy thread. */
static void count_trace(struct __test_metadata *_metadata, __u32 format,
			const struct gt_buf *trace, pid_t tid, struct counts *c)
{
	memset(c, 0, sizeof(*c));
	c->tid = tid;
	c->nr_cpus = gt_possible_cpus();
	if (format >= GOTRACE_FORMAT_1_22) {
		ASSERT_EQ(0, count_samples2(trace, c));
	} else {
		ASSERT_EQ(0, count_samples(trace, c));
	}
	EXPECT_EQ(0, c->bad_p);
}

/*
 * A session of @format sampling at @hz, with the busy thread run in it;
 * with generations, a new one every @gen_period_ns (0: the default).
 */
static void sampled_run(struct __test_metadata *_metadata, __u32 format,
			__u32 hz, __u64 gen_period_ns, const char *name,
			struct counts *c)
{
	struct gotrace_start args = {
		.size = sizeof(args),
		.format = format,
		.gen_period_ns = gen_period_ns,
		.cpu_sample_hz = hz,
	};
	struct gotrace_status status;
	struct gt_session s;
	struct gt_stats st;
	struct busy b = { 0 };

	GT_REQUIRE_DEVICE();
	ASSERT_EQ(0, gt_session_open(&s, format));
	ASSERT_EQ(0, ioctl(s.ctl, GOTRACE_START, &args)) {
		TH_LOG("GOTRACE_START at %u Hz: %s", hz, strerror(errno));
	}
	ASSERT_EQ(0, gt_recorder_start(&s.rec, s.fd, GT_READ_CHUNK));
	s.recording = true;
	ASSERT_EQ(0, pthread_create(&b.thread, NULL, busy_main, &b));
	ASSERT_EQ(0, pthread_join(b.thread, NULL));
	ASSERT_EQ(0, b.error) {
		TH_LOG("reading /dev/zero: %s", strerror(b.error));
	}
	ASSERT_EQ(0, gt_session_stop(&s, &st, name)) {
		TH_LOG("%s", st.error);
	}
	ASSERT_EQ(0, gt_status(s.ctl, &status));
	count_trace(_metadata, format, &s.rec.trace, b.tid, c);
	if (format < GOTRACE_FORMAT_1_22)
		EXPECT_EQ(c->samples, st.count[GT_EV_CPU_SAMPLE]);
	/* The reader kept up: every sample taken is in the trace. */
	EXPECT_EQ(c->samples, status.samples);
	EXPECT_EQ(0, status.samples_dropped);
	TH_LOG("%s: %lu samples, %lu of the thread (%llu ms busy), %lu in vfs_read, %lu gens",
	       name, c->samples, c->busy, (unsigned long long)b.ms, c->in_read,
	       c->gens);
	/*
	 * At most what every CPU could take in the session, with room; at
	 * least a tenth of what the thread's run time gives (TCG guests are
	 * slow and share their host), most of them in the read() path.
	 */
	EXPECT_GE(c->busy, hz * b.ms / 1000 / 10);
	EXPECT_LE(c->samples, hz * (b.ms + 2000) / 1000 * c->nr_cpus + 100);
	EXPECT_GE(c->in_read, c->busy / 4);
	EXPECT_EQ(0, gt_session_close(&s));
}

TEST(samples_1_21)
{
	struct counts c;

	sampled_run(_metadata, GOTRACE_FORMAT_1_21, SAMPLE_HZ, 0, "samples-1.21", &c);
}

TEST(samples_1_19)
{
	struct counts c;

	sampled_run(_metadata, GOTRACE_FORMAT_1_19, SAMPLE_HZ, 0, "samples-1.19", &c);
}

TEST(samples_1_23)
{
	struct counts c;

	sampled_run(_metadata, GOTRACE_FORMAT_1_23, SAMPLE_HZ, 0, "samples-1.23", &c);
}

/*
 * A generation every 100 ms: each one's samples in its own batches, the
 * kernel stacks they name in its own stack table.
 */
TEST(samples_1_26)
{
	struct counts c;

	sampled_run(_metadata, GOTRACE_FORMAT_1_26, SAMPLE_HZ, GEN_PERIOD_NS,
		    "samples-1.26", &c);
	EXPECT_LE(BUSY_MS * 1000000ULL / GEN_PERIOD_NS / 2, c.gens);
}

/*
 * A flight recorder sampling at @hz, 100 ms generations: a snapshot of all
 * it holds, taken once the busy thread ran, is read as Go's reader does,
 * with its samples in its generations' CPU-sample batches, no more than
 * GOTRACE_STATUS counts taken nor than the rings keep (2048 a CPU: they
 * overwrite, so none is counted dropped), into @c; kept as @name.
 */
static void flight_sampled(struct __test_metadata *_metadata, __u32 hz,
			   const char *name, struct counts *c)
{
	struct gotrace_start args = {
		.size = sizeof(args),
		.flags = GOTRACE_START_FLIGHT,
		.format = GOTRACE_FORMAT_1_26,
		.buffer_size = 16 << 20,
		.gen_period_ns = GEN_PERIOD_NS,
		.cpu_sample_hz = hz,
	};
	struct gotrace_snapshot snap = { .size = sizeof(snap) };
	struct gotrace_status status;
	struct gt_buf t = { 0 };
	struct gt_session s;
	struct busy b = { 0 };

	GT_REQUIRE_DEVICE();
	ASSERT_EQ(0, gt_session_open(&s, GOTRACE_FORMAT_1_26));
	ASSERT_EQ(0, ioctl(s.ctl, GOTRACE_START, &args)) {
		TH_LOG("a flight recorder with samples: %s", strerror(errno));
	}
	ASSERT_EQ(0, pthread_create(&b.thread, NULL, busy_main, &b));
	ASSERT_EQ(0, pthread_join(b.thread, NULL));
	ASSERT_EQ(0, b.error);
	ASSERT_EQ(0, ioctl(s.ctl, GOTRACE_SNAPSHOT, &snap)) {
		TH_LOG("snapshot: %s", strerror(errno));
	}
	ASSERT_EQ(0, gt_read_to_eof(s.fd, &t, GT_READ_CHUNK));
	EXPECT_EQ(0, gt_save(&t, name));
	ASSERT_EQ(0, gt_status(s.ctl, &status));
	count_trace(_metadata, GOTRACE_FORMAT_1_26, &t, b.tid, c);
	TH_LOG("%s: generations %llu-%llu: %lu samples, %lu of the thread (%llu ms busy), %lu in vfs_read; %llu taken",
	       name, (unsigned long long)snap.first_gen,
	       (unsigned long long)(snap.first_gen + snap.generations - 1),
	       c->samples, c->busy, (unsigned long long)b.ms, c->in_read,
	       (unsigned long long)status.samples);
	EXPECT_EQ(snap.generations, c->gens);
	EXPECT_LE(c->samples, status.samples);
	EXPECT_LE(c->samples, 2048UL * c->nr_cpus);
	EXPECT_EQ(0, status.samples_dropped);
	EXPECT_EQ(0, gt_stop_flags(s.ctl, GOTRACE_STOP_NOWAIT));
	gt_buf_free(&t);
	EXPECT_EQ(0, gt_session_close(&s));
}

/* At SAMPLE_HZ the rings keep every sample: the thread's, most in vfs_read. */
TEST(samples_flight_1_26)
{
	struct counts c;

	flight_sampled(_metadata, SAMPLE_HZ, "samples-flight-1.26", &c);
	EXPECT_GE(c.busy, SAMPLE_HZ * BUSY_MS / 1000 / 10);
	EXPECT_GE(c.in_read, c.busy / 4);
}

/*
 * At the most rate the busy CPU's ring overwrites its oldest samples while
 * the snapshot copies it: what it copies is whole (Go's rules hold), of the
 * thread's newest samples.
 */
TEST(samples_flight_overwritten_1_26)
{
	struct counts c;

	flight_sampled(_metadata, GOTRACE_CPU_SAMPLE_HZ_MAX, "samples-flight-max-1.26", &c);
	EXPECT_LT(0, c.busy);
}

/*
 * Nobody reads while the busy thread is sampled at the most rate. In format
 * 1.26 its CPU's sample ring fills and GOTRACE_STATUS counts the samples
 * dropped. In 1.21 the buffer fills and the trace is cut: by a sample (one
 * counted as dropped) or by any other event (none: what comes after a cut
 * is not counted, as no event is). Either way, the samples it counts as
 * written are exactly the trace's once it is read.
 */
static bool dropped_done(__u32 format, const struct gotrace_status *status)
{
	if (format >= GOTRACE_FORMAT_1_22)
		return status->samples_dropped;
	return status->flags & GOTRACE_STATUS_CUT;
}

static void dropped_run(struct __test_metadata *_metadata, __u32 format,
			__u64 buffer_size, const char *name)
{
	struct gotrace_start args = {
		.size = sizeof(args),
		.format = format,
		.buffer_size = buffer_size,
		.cpu_sample_hz = GOTRACE_CPU_SAMPLE_HZ_MAX,
	};
	struct gotrace_status status;
	__u64 deadline = gt_now_ms() + DROP_TIMEOUT_MS;
	struct busy b = { .until_stop = true };
	struct gt_session s;
	struct gt_stats st;
	struct counts c;

	GT_REQUIRE_DEVICE();
	ASSERT_EQ(0, gt_session_open(&s, format));
	ASSERT_EQ(0, ioctl(s.ctl, GOTRACE_START, &args));
	ASSERT_EQ(0, pthread_create(&b.thread, NULL, busy_main, &b));
	do {
		gt_msleep(50);
		ASSERT_EQ(0, gt_status(s.ctl, &status));
	} while (!dropped_done(format, &status) && gt_now_ms() < deadline);
	__atomic_store_n(&b.stop, true, __ATOMIC_RELAXED);
	ASSERT_EQ(0, pthread_join(b.thread, NULL));
	ASSERT_EQ(0, b.error);
	EXPECT_TRUE(dropped_done(format, &status)) {
		TH_LOG("%llu samples in %d ms, %llu dropped, flags %#x",
		       (unsigned long long)status.samples, DROP_TIMEOUT_MS,
		       (unsigned long long)status.samples_dropped,
		       status.flags);
	}
	EXPECT_LT(0, status.samples);
	ASSERT_EQ(0, gt_recorder_start(&s.rec, s.fd, GT_READ_CHUNK));
	s.recording = true;
	ASSERT_EQ(0, gt_session_stop(&s, &st, name)) {
		TH_LOG("%s", st.error);
	}
	ASSERT_EQ(0, gt_status(s.ctl, &status));
	count_trace(_metadata, format, &s.rec.trace, b.tid, &c);
	EXPECT_EQ(c.samples, status.samples);
	TH_LOG("%s: %llu samples written, %llu dropped, %s", name,
	       (unsigned long long)status.samples,
	       (unsigned long long)status.samples_dropped,
	       status.flags & GOTRACE_STATUS_CUT ? "cut" : "not cut");
	if (format >= GOTRACE_FORMAT_1_22) {
		EXPECT_EQ(0, status.flags & GOTRACE_STATUS_CUT);
	} else {
		EXPECT_TRUE(status.flags & GOTRACE_STATUS_CUT);
		/* Only the sample that found the buffer full, if any. */
		EXPECT_GE(1, status.samples_dropped);
	}
	EXPECT_EQ(0, gt_session_close(&s));
}

TEST(samples_dropped_1_26)
{
	dropped_run(_metadata, GOTRACE_FORMAT_1_26, 0, "samples-dropped-1.26");
}

TEST(samples_dropped_1_21)
{
	dropped_run(_metadata, GOTRACE_FORMAT_1_21, GT_MIN_BUFFER,
		    "samples-dropped-1.21");
}

/* Without cpu_sample_hz, the same run writes no sample. */
TEST(samples_off_by_default)
{
	struct gt_session s;
	struct gt_stats st;
	struct busy b = { 0 };

	GT_REQUIRE_DEVICE();
	ASSERT_EQ(0, gt_session_start(&s, GOTRACE_FORMAT_1_21));
	ASSERT_EQ(0, pthread_create(&b.thread, NULL, busy_main, &b));
	ASSERT_EQ(0, pthread_join(b.thread, NULL));
	ASSERT_EQ(0, gt_session_stop(&s, &st, "samples-off")) {
		TH_LOG("%s", st.error);
	}
	EXPECT_EQ(0, st.count[GT_EV_CPU_SAMPLE]);
	EXPECT_LT(0, gt_starts(&st));
	EXPECT_EQ(0, gt_session_close(&s));
}

TEST(bad_samples)
{
	struct gotrace_start args;
	struct gt_session s;
	struct gt_stats st;
	int fd;

	GT_REQUIRE_DEVICE();
	fd = gt_dev_open(O_WRONLY);
	ASSERT_LE(0, fd);
	args = (struct gotrace_start){ .cpu_sample_hz = GOTRACE_CPU_SAMPLE_HZ_MAX + 1 };
	GT_EXPECT_START_REFUSED(fd, &args, EINVAL, "a rate above the most");
	args = (struct gotrace_start){ .cpu_sample_hz = 0xffffffff };
	GT_EXPECT_START_REFUSED(fd, &args, EINVAL, "the largest rate");
	args = (struct gotrace_start){ .format = GOTRACE_FORMAT_1_11,
				       .cpu_sample_hz = SAMPLE_HZ };
	GT_EXPECT_START_REFUSED(fd, &args, EINVAL, "format 1.11, without CPUSample");
	args = (struct gotrace_start){ .reserved3 = 1 };
	GT_EXPECT_START_REFUSED(fd, &args, EINVAL, "reserved3 set");
	close(fd);

	/* Nothing was lost: a start at the most rate still works. */
	ASSERT_EQ(0, gt_session_open(&s, GOTRACE_FORMAT_1_21));
	args = (struct gotrace_start){ .size = sizeof(args),
				       .format = GOTRACE_FORMAT_1_21,
				       .cpu_sample_hz = GOTRACE_CPU_SAMPLE_HZ_MAX };
	ASSERT_EQ(0, ioctl(s.ctl, GOTRACE_START, &args));
	ASSERT_EQ(0, gt_recorder_start(&s.rec, s.fd, GT_READ_CHUNK));
	s.recording = true;
	gt_msleep(100);
	ASSERT_EQ(0, gt_session_stop(&s, &st, "samples-max")) {
		TH_LOG("%s", st.error);
	}
	EXPECT_EQ(0, gt_session_close(&s));
}

TEST_HARNESS_MAIN
