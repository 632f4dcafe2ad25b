// SPDX-License-Identifier: GPL-2.0
/* Every ioctl error of /dev/gotrace, none disturbing the running session. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/capability.h>

#include "kselftest_harness.h"

#include "gotrace_util.h"

/*
 * Every test runs while a session records, with a thread reading it. A
 * rejected call must leave that session alone: it keeps counting events,
 * and at the end it is one whole trace, saved for the host's Go check.
 */
FIXTURE(ioctl) {
	struct gt_session s;
	__u64 sessions;		/* sessions started, this one included */
	long page_size;
};

FIXTURE_SETUP(ioctl)
{
	struct gotrace_status st;

	GT_REQUIRE_DEVICE();
	self->page_size = sysconf(_SC_PAGESIZE);
	ASSERT_EQ(0, gt_session_start(&self->s, GOTRACE_FORMAT_DEFAULT));
	ASSERT_EQ(0, gt_status(self->s.ctl, &st));
	self->sessions = st.sessions;
}

/* Stop the session (if the test has not), read it to the end, keep it. */
static void end_session(struct __test_metadata *_metadata, struct gt_session *s)
{
	struct gt_stats st;
	char name[64];

	snprintf(name, sizeof(name), "ioctl-%s", _metadata->name);
	EXPECT_EQ(0, gt_session_end(s, &st, name)) {
		TH_LOG("%s", st.error);
	}
}

/*
 * The state right after a stop: stopped, or idle when the fixture's reader
 * has already read the footer to the end of file.
 */
static void expect_stopped(struct __test_metadata *_metadata, __u32 state)
{
	EXPECT_TRUE(state == GOTRACE_STATE_STOPPED || state == GOTRACE_STATE_IDLE) {
		TH_LOG("state %u after a stop", state);
	}
}

FIXTURE_TEARDOWN(ioctl)
{
	if (self->s.recording)
		end_session(_metadata, &self->s);
	EXPECT_EQ(0, gt_session_close(&self->s));
}

/* The session still records: events go up, nothing restarted or cut it. */
static void check_intact(struct __test_metadata *_metadata, int ctl,
			 __u64 sessions)
{
	struct gotrace_status before, after;

	ASSERT_EQ(0, gt_status(ctl, &before));
	gt_msleep(20);
	ASSERT_EQ(0, gt_status(ctl, &after));
	EXPECT_EQ(GOTRACE_STATE_TRACING, after.state);
	EXPECT_EQ(GOTRACE_FORMAT_1_21, after.format);
	EXPECT_EQ(sessions, after.sessions);
	EXPECT_EQ(0, after.flags);
	EXPECT_EQ(0, after.generations);	/* none in the old formats */
	EXPECT_EQ(0, after.events_lost);
	EXPECT_LT(before.events, after.events);
	EXPECT_LE(before.bytes, after.bytes);
}

/* A valid START argument, in memory the test may shape. */
static struct gotrace_start *start_args(void *where)
{
	struct gotrace_start *args = where;

	memset(args, 0, sizeof(*args));
	args->size = sizeof(*args);
	return args;
}

static void *map_pages(struct __test_metadata *_metadata, size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(MAP_FAILED, p);
	memset(p, 0, len);
	return p;
}

/* After end_session(): read the session the test started on its own. */
static void record_again(struct __test_metadata *_metadata,
			 struct gt_session *s)
{
	ASSERT_EQ(0, gt_recorder_start(&s->rec, s->fd, GT_READ_CHUNK));
	s->recording = true;
}

/* Bytes of @buf from @from to @len that are not GT_JUNK any more. */
static size_t junk_overwritten(const unsigned char *buf, size_t from,
			       size_t len)
{
	size_t n = 0;

	for (; from < len; from++)
		n += buf[from] != GT_JUNK;
	return n;
}

TEST_F(ioctl, unknown_command)
{
	static const unsigned long cmds[] = {
		0,
		_IO(GOTRACE_IOC_MAGIC, 0x00),
		_IO(GOTRACE_IOC_MAGIC, 0x04),
		_IO(GOTRACE_IOC_MAGIC, 0xff),
		_IOW(GOTRACE_IOC_MAGIC, 0x00, struct gotrace_start),
		_IOW(GOTRACE_IOC_MAGIC, 0x04, struct gotrace_start),
		_IOWR(GOTRACE_IOC_MAGIC, 0x06, struct gotrace_status),
		_IOWR(GOTRACE_IOC_MAGIC, 0xff, struct gotrace_status),
		/* Known numbers in another direction. */
		_IOR(GOTRACE_IOC_MAGIC, 0x01, struct gotrace_start),
		_IOWR(GOTRACE_IOC_MAGIC, 0x01, struct gotrace_start),
		_IO(GOTRACE_IOC_MAGIC, 0x02),		/* STOP before 0.2 */
		_IOWR(GOTRACE_IOC_MAGIC, 0x02, struct gotrace_stop),
		_IOR(GOTRACE_IOC_MAGIC, 0x03, struct gotrace_status),
		_IOW(GOTRACE_IOC_MAGIC, 0x03, struct gotrace_status),
		_IOW(GOTRACE_IOC_MAGIC, 0x04, struct gotrace_snapshot),
		_IOR(GOTRACE_IOC_MAGIC, 0x05, struct gotrace_trigger),
		_IOWR(GOTRACE_IOC_MAGIC + 1, 0x03, struct gotrace_status),
		_IO(GOTRACE_IOC_MAGIC + 1, 0x02),
	};
	struct gotrace_status arg = { .size = sizeof(arg) };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		EXPECT_EQ(-1, ioctl(self->s.ctl, cmds[i], &arg));
		EXPECT_EQ(ENOTTY, errno) {
			TH_LOG("command %#lx", cmds[i]);
		}
		EXPECT_EQ(-1, ioctl(self->s.fd, cmds[i], &arg));
		EXPECT_EQ(ENOTTY, errno);
	}
	check_intact(_metadata, self->s.ctl, self->sessions);
}

TEST_F(ioctl, start_while_tracing)
{
	EXPECT_EQ(-1, gt_start(self->s.ctl, GOTRACE_FORMAT_DEFAULT, 0));
	EXPECT_EQ(EBUSY, errno);
	EXPECT_EQ(-1, gt_start(self->s.fd, GOTRACE_FORMAT_1_11, GT_MIN_BUFFER));
	EXPECT_EQ(EBUSY, errno);
	check_intact(_metadata, self->s.ctl, self->sessions);
}

TEST_F(ioctl, start_unknown_flags)
{
	struct gotrace_start args;
	unsigned int bit;

	for (bit = 0; bit < 32; bit++) {
		if (GOTRACE_START_FLAGS & 1U << bit)
			continue;
		start_args(&args)->flags = 1U << bit;
		EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_START, &args));
		EXPECT_EQ(EINVAL, errno) {
			TH_LOG("flags %#x", args.flags);
		}
	}
	check_intact(_metadata, self->s.ctl, self->sessions);
}

/* One clock or the other, never both. */
TEST_F(ioctl, start_two_clocks)
{
	struct gotrace_start args;

	start_args(&args)->flags = GOTRACE_START_CLOCK_MONO |
				   GOTRACE_START_CLOCK_TSC;
	EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_START, &args));
	EXPECT_EQ(EINVAL, errno);
	args.flags |= GOTRACE_START_KSTACKS;
	EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_START, &args));
	EXPECT_EQ(EINVAL, errno);
	check_intact(_metadata, self->s.ctl, self->sessions);
}

TEST_F(ioctl, start_reserved)
{
	struct gotrace_start args;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(args.reserved); i++) {
		start_args(&args)->reserved[i] = 1;
		EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_START, &args));
		EXPECT_EQ(EINVAL, errno);
		start_args(&args)->reserved[i] = 1ULL << 63;
		EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_START, &args));
		EXPECT_EQ(EINVAL, errno);
	}
	check_intact(_metadata, self->s.ctl, self->sessions);
}

TEST_F(ioctl, start_bad_format)
{
	static const __u32 formats[] = {
		1, 5, 10, 12, 18, 20, 24, 27, 28, 121, 122, 0x80000015,
		0x80000016, 0xffffffff,
	};
	struct gotrace_start args;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(formats); i++) {
		start_args(&args)->format = formats[i];
		EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_START, &args));
		EXPECT_EQ(EINVAL, errno) {
			TH_LOG("format %u", formats[i]);
		}
	}
	check_intact(_metadata, self->s.ctl, self->sessions);
}

/*
 * The generation parameters of formats 1.22 and later: out of range, or set
 * with an older format, EINVAL, refused before the busy device is even
 * looked at.
 */
static const __u32 modern_formats[] = {
	GOTRACE_FORMAT_1_22, GOTRACE_FORMAT_1_23, GOTRACE_FORMAT_1_25,
	GOTRACE_FORMAT_1_26,
};
static const __u32 old_formats[] = {
	GOTRACE_FORMAT_DEFAULT, GOTRACE_FORMAT_1_11, GOTRACE_FORMAT_1_19,
	GOTRACE_FORMAT_1_21,
};

TEST_F(ioctl, start_gen_period)
{
	static const __u64 periods[] = {
		1, 1000, GOTRACE_GEN_PERIOD_MIN_NS - 1,
		GOTRACE_GEN_PERIOD_MAX_NS + 1, 2 * GOTRACE_GEN_PERIOD_MAX_NS,
		1ULL << 63, UINT64_MAX,
	};
	struct gotrace_start args;
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(modern_formats); i++) {
		for (j = 0; j < ARRAY_SIZE(periods); j++) {
			start_args(&args)->format = modern_formats[i];
			args.gen_period_ns = periods[j];
			EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_START, &args));
			EXPECT_EQ(EINVAL, errno) {
				TH_LOG("format %u gen_period_ns %llu", args.format,
				       (unsigned long long)periods[j]);
			}
		}
		/* The bounds themselves are valid: the device is busy. */
		start_args(&args)->format = modern_formats[i];
		args.gen_period_ns = GOTRACE_GEN_PERIOD_MIN_NS;
		EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_START, &args));
		EXPECT_EQ(EBUSY, errno);
		args.gen_period_ns = GOTRACE_GEN_PERIOD_MAX_NS;
		EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_START, &args));
		EXPECT_EQ(EBUSY, errno);
	}
	check_intact(_metadata, self->s.ctl, self->sessions);
}

TEST_F(ioctl, start_gen_bytes)
{
	static const __u64 sizes[] = { 1, 4096, GOTRACE_GEN_BYTES_MIN - 1 };
	struct gotrace_start args;
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(modern_formats); i++) {
		for (j = 0; j < ARRAY_SIZE(sizes); j++) {
			start_args(&args)->format = modern_formats[i];
			args.gen_bytes = sizes[j];
			EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_START, &args));
			EXPECT_EQ(EINVAL, errno) {
				TH_LOG("format %u gen_bytes %llu", args.format,
				       (unsigned long long)sizes[j]);
			}
		}
		start_args(&args)->format = modern_formats[i];
		args.gen_bytes = GOTRACE_GEN_BYTES_MIN;
		EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_START, &args));
		EXPECT_EQ(EBUSY, errno);
	}
	check_intact(_metadata, self->s.ctl, self->sessions);
}

/* The older formats have no generations: either parameter set is EINVAL. */
TEST_F(ioctl, start_gen_old_format)
{
	struct gotrace_start args;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(old_formats); i++) {
		start_args(&args)->format = old_formats[i];
		args.gen_period_ns = GOTRACE_GEN_PERIOD_NS;
		EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_START, &args));
		EXPECT_EQ(EINVAL, errno) {
			TH_LOG("format %u gen_period_ns", old_formats[i]);
		}
		start_args(&args)->format = old_formats[i];
		args.gen_bytes = GOTRACE_GEN_BYTES_MIN;
		EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_START, &args));
		EXPECT_EQ(EINVAL, errno) {
			TH_LOG("format %u gen_bytes", old_formats[i]);
		}
		start_args(&args)->format = old_formats[i];
		args.gen_bytes = 1ULL << 40;
		args.gen_period_ns = 1;
		EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_START, &args));
		EXPECT_EQ(EINVAL, errno);
	}
	check_intact(_metadata, self->s.ctl, self->sessions);
}

/* Kernel stacks are valid in every modern format, flight recorder or not. */
TEST_F(ioctl, start_kstacks_modern)
{
	struct gotrace_start args;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(modern_formats); i++) {
		start_args(&args)->format = modern_formats[i];
		args.flags = GOTRACE_START_KSTACKS;
		EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_START, &args));
		EXPECT_EQ(EBUSY, errno) {
			TH_LOG("format %u", modern_formats[i]);
		}
		args.flags |= GOTRACE_START_FLIGHT;
		EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_START, &args));
		EXPECT_EQ(EBUSY, errno);
	}
	check_intact(_metadata, self->s.ctl, self->sessions);
}

/*
 * The same refusals on an idle device start nothing: no session is counted,
 * the device stays idle, and a valid start after them works.
 */
TEST_F(ioctl, start_gen_idle)
{
	struct gotrace_start args;
	struct gotrace_status st;

	end_session(_metadata, &self->s);
	start_args(&args)->format = GOTRACE_FORMAT_1_26;
	args.gen_period_ns = GOTRACE_GEN_PERIOD_MIN_NS - 1;
	EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_START, &args));
	EXPECT_EQ(EINVAL, errno);
	start_args(&args)->format = GOTRACE_FORMAT_1_22;
	args.gen_bytes = GOTRACE_GEN_BYTES_MIN - 1;
	EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_START, &args));
	EXPECT_EQ(EINVAL, errno);
	start_args(&args)->format = GOTRACE_FORMAT_1_21;
	args.gen_bytes = GOTRACE_GEN_BYTES_MIN;
	EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_START, &args));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, gt_status(self->s.ctl, &st));
	EXPECT_EQ(GOTRACE_STATE_IDLE, st.state);
	EXPECT_EQ(self->sessions, st.sessions);

	/* The idle device's next session is the default one, as before. */
	start_args(&args);
	ASSERT_EQ(0, ioctl(self->s.ctl, GOTRACE_START, &args));
	record_again(_metadata, &self->s);
	check_intact(_metadata, self->s.ctl, self->sessions + 1);
}

/* The first version of the structure is the smallest there will be. */
TEST_F(ioctl, start_size_too_small)
{
	static const __u32 sizes[] = {
		0, 4, 8, 24, GOTRACE_START_SIZE_VER0 - 8,
		GOTRACE_START_SIZE_VER0 - 1,
	};
	struct gotrace_start args;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		start_args(&args)->size = sizes[i];
		EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_START, &args));
		EXPECT_EQ(EINVAL, errno) {
			TH_LOG("size %u", sizes[i]);
		}
	}
	check_intact(_metadata, self->s.ctl, self->sessions);
}

/*
 * A newer user space may pass a bigger structure: accepted if every byte
 * the module does not know is zero (it then fails only because a session
 * runs), E2BIG otherwise.
 */
TEST_F(ioctl, start_size_too_big)
{
	unsigned char *page = map_pages(_metadata, self->page_size);
	struct gotrace_start *args = start_args(page);
	size_t ksize = sizeof(*args);

	args->size = ksize + 8;
	page[ksize + 7] = 1;
	EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_START, args));
	EXPECT_EQ(E2BIG, errno);
	page[ksize + 7] = 0;
	page[ksize] = 0x80;
	EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_START, args));
	EXPECT_EQ(E2BIG, errno);
	page[ksize] = 0;

	args->size = self->page_size;
	page[self->page_size - 1] = 1;
	EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_START, args));
	EXPECT_EQ(E2BIG, errno);
	page[self->page_size - 1] = 0;

	/* More than a page is no structure there will be, zeros or not. */
	args->size = self->page_size + 1;
	EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_START, args));
	EXPECT_EQ(E2BIG, errno);
	args->size = self->page_size;

	EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_START, args));
	EXPECT_EQ(EBUSY, errno);
	args->size = ksize + 8;
	EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_START, args));
	EXPECT_EQ(EBUSY, errno);
	munmap(page, self->page_size);
	check_intact(_metadata, self->s.ctl, self->sessions);
}

TEST_F(ioctl, bad_pointer)
{
	unsigned char *pages = map_pages(_metadata, 2 * self->page_size);
	unsigned char *hole = pages + self->page_size;
	struct gotrace_start *args;
	struct gotrace_status *st;

	ASSERT_EQ(0, munmap(hole, self->page_size));
	EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_START, NULL));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_START, hole));
	EXPECT_EQ(EFAULT, errno);

	/* The size is readable, the rest of the structure is not. */
	args = (void *)(hole - sizeof(__u32));
	args->size = sizeof(*args);
	EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_START, args));
	EXPECT_EQ(EFAULT, errno);

	/* The structure is readable, the zeros its size claims after it not. */
	args = start_args(hole - sizeof(*args));
	args->size = sizeof(*args) + 8;
	EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_START, args));
	EXPECT_EQ(EFAULT, errno);

	EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_STATUS, NULL));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_STATUS, hole));
	EXPECT_EQ(EFAULT, errno);

	/* STATUS cannot write its answer to read-only memory. */
	st = (void *)pages;
	st->size = sizeof(*st);
	ASSERT_EQ(0, mprotect(pages, self->page_size, PROT_READ));
	EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_STATUS, st));
	EXPECT_EQ(EFAULT, errno);
	munmap(pages, self->page_size);
	check_intact(_metadata, self->s.ctl, self->sessions);
}

TEST_F(ioctl, start_buffer_size)
{
	const __u64 sizes[] = {
		1, 4096, GT_MIN_BUFFER - self->page_size, GT_MAX_BUFFER + 1,
		2 * GT_MAX_BUFFER, 1ULL << 40,
		/* Rounding these up to whole pages overflows to 0. */
		UINT64_MAX - self->page_size + 2, UINT64_MAX,
	};
	struct gotrace_start args;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		start_args(&args)->buffer_size = sizes[i];
		EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_START, &args));
		EXPECT_EQ(EINVAL, errno) {
			TH_LOG("buffer_size %llu",
			       (unsigned long long)sizes[i]);
		}
	}
	check_intact(_metadata, self->s.ctl, self->sessions);
}

/* Thread ids stop below PID_MAX_LIMIT: a bigger table is a mistake. */
TEST_F(ioctl, start_max_tid)
{
	static const __u32 tids[] = { GT_PID_MAX_LIMIT + 1, 0xffffffff };
	struct gotrace_start args;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tids); i++) {
		start_args(&args)->max_tid = tids[i];
		EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_START, &args));
		EXPECT_EQ(EINVAL, errno) {
			TH_LOG("max_tid %u", tids[i]);
		}
	}
	check_intact(_metadata, self->s.ctl, self->sessions);
}

TEST_F(ioctl, status_size)
{
	static const __u32 sizes[] = {
		0, 4, 8, GOTRACE_STATUS_SIZE_VER0 - 8,
		GOTRACE_STATUS_SIZE_VER0 - 1,
	};
	struct {
		struct gotrace_status st;
		__u64 more[8];
	} big;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		memset(&big, GT_JUNK, sizeof(big));
		big.st.size = sizes[i];
		EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_STATUS, &big.st));
		EXPECT_EQ(EINVAL, errno) {
			TH_LOG("size %u", sizes[i]);
		}
	}

	/* More than a page: refused before anything is written. */
	memset(&big, GT_JUNK, sizeof(big));
	big.st.size = self->page_size + 1;
	EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_STATUS, &big.st));
	EXPECT_EQ(E2BIG, errno);
	EXPECT_EQ(0, junk_overwritten((void *)&big, sizeof(big.st.size),
				      sizeof(big)));

	/*
	 * A bigger structure gets what the module knows, and says how much;
	 * the rest is left as it was.
	 */
	memset(&big, GT_JUNK, sizeof(big));
	big.st.size = sizeof(big);
	EXPECT_EQ(0, ioctl(self->s.ctl, GOTRACE_STATUS, &big.st));
	EXPECT_EQ(sizeof(big.st), big.st.size);
	EXPECT_EQ(GOTRACE_STATE_TRACING, big.st.state);
	EXPECT_EQ(self->sessions, big.st.sessions);
	EXPECT_EQ(0, big.st.generations);	/* an old format */
	EXPECT_EQ(0, big.st.reserved[0]);
	EXPECT_EQ(0, junk_overwritten((void *)&big, sizeof(big.st),
				      sizeof(big)));
	check_intact(_metadata, self->s.ctl, self->sessions);
}

/*
 * A caller built against the first version of each structure: its STATUS
 * gets exactly those bytes, its START and STOP work.
 */
TEST_F(ioctl, first_version_sizes)
{
	struct gotrace_start start = { .size = GOTRACE_START_SIZE_VER0 };
	struct gotrace_stop stop = {
		.size = GOTRACE_STOP_SIZE_VER0,
		.flags = GOTRACE_STOP_NOWAIT,
	};
	union {
		struct gotrace_status st;
		unsigned char b[GOTRACE_STATUS_SIZE_VER0 + 64];
	} buf;

	memset(&buf, GT_JUNK, sizeof(buf));
	buf.st.size = GOTRACE_STATUS_SIZE_VER0;
	ASSERT_EQ(0, ioctl(self->s.ctl, GOTRACE_STATUS, &buf.st));
	EXPECT_EQ(GOTRACE_STATUS_SIZE_VER0, buf.st.size);
	EXPECT_EQ(GOTRACE_STATE_TRACING, buf.st.state);
	EXPECT_EQ(GOTRACE_FORMAT_1_21, buf.st.format);
	EXPECT_EQ(self->sessions, buf.st.sessions);
	EXPECT_EQ(0, junk_overwritten(buf.b, GOTRACE_STATUS_SIZE_VER0,
				      sizeof(buf)));

	/* A start reaches the session, which is busy. */
	EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_START, &start));
	EXPECT_EQ(EBUSY, errno);
	check_intact(_metadata, self->s.ctl, self->sessions);

	ASSERT_EQ(0, ioctl(self->s.ctl, GOTRACE_STOP, &stop));
	memset(&buf, GT_JUNK, sizeof(buf));
	buf.st.size = GOTRACE_STATUS_SIZE_VER0;
	ASSERT_EQ(0, ioctl(self->s.ctl, GOTRACE_STATUS, &buf.st));
	expect_stopped(_metadata, buf.st.state);
	end_session(_metadata, &self->s);

	ASSERT_EQ(0, ioctl(self->s.ctl, GOTRACE_START, &start));
	record_again(_metadata, &self->s);
	check_intact(_metadata, self->s.ctl, self->sessions + 1);
}

/*
 * A newer user space's bigger START, on an idle device: a non-zero byte
 * the module does not know refuses it (E2BIG) and starts nothing; with
 * zeros there it is a start like any other.
 */
TEST_F(ioctl, start_future_size)
{
	unsigned char *page = map_pages(_metadata, self->page_size);
	struct gotrace_start *args = start_args(page);
	size_t ksize = sizeof(*args);
	struct gotrace_status st;
	unsigned int i;

	end_session(_metadata, &self->s);
	args->size = ksize + 8;
	for (i = 0; i < 8; i++) {
		page[ksize + i] = 1U << i;
		EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_START, args));
		EXPECT_EQ(E2BIG, errno) {
			TH_LOG("byte %u", i);
		}
		page[ksize + i] = 0;
	}
	ASSERT_EQ(0, gt_status(self->s.ctl, &st));
	EXPECT_EQ(GOTRACE_STATE_IDLE, st.state);
	EXPECT_EQ(self->sessions, st.sessions);
	EXPECT_EQ(0, st.flags);

	ASSERT_EQ(0, ioctl(self->s.ctl, GOTRACE_START, args));
	record_again(_metadata, &self->s);
	munmap(page, self->page_size);
	check_intact(_metadata, self->s.ctl, self->sessions + 1);
}

/*
 * The size in the command number does not count, the structure's does:
 * each command encoded with another size reaches the same ioctl.
 */
TEST_F(ioctl, command_size_ignored)
{
	static const __u32 sizes[] = {
		0, 1, 4, 8, GOTRACE_STOP_SIZE_VER0, 64, 200,
		(1U << _IOC_SIZEBITS) - 1,
	};
	const unsigned int rw = _IOC_READ | _IOC_WRITE;
	struct gotrace_start start = { .size = sizeof(start) };
	struct {
		struct gotrace_stop args;
		__u64 more;
	} stop = { .args.size = sizeof(stop), .more = 1 };
	struct gotrace_status st;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		/* Only STATUS succeeds: no other command would. */
		memset(&st, GT_JUNK, sizeof(st));
		st.size = sizeof(st);
		EXPECT_EQ(0, ioctl(self->s.ctl,
				   _IOC(rw, GOTRACE_IOC_MAGIC, 0x03, sizes[i]),
				   &st)) {
			TH_LOG("size %u: %s", sizes[i], strerror(errno));
		}
		EXPECT_EQ(sizeof(st), st.size);
		EXPECT_EQ(GOTRACE_STATE_TRACING, st.state);
		EXPECT_EQ(self->sessions, st.sessions);

		/* Only START is busy. */
		EXPECT_EQ(-1, ioctl(self->s.ctl,
				    _IOC(_IOC_WRITE, GOTRACE_IOC_MAGIC, 0x01,
					 sizes[i]), &start));
		EXPECT_EQ(EBUSY, errno) {
			TH_LOG("size %u", sizes[i]);
		}

		/*
		 * Only STOP finds a byte it does not know (too small for
		 * the others: EINVAL), and refuses before it stops.
		 */
		EXPECT_EQ(-1, ioctl(self->s.ctl,
				    _IOC(_IOC_WRITE, GOTRACE_IOC_MAGIC, 0x02,
					 sizes[i]), &stop.args));
		EXPECT_EQ(E2BIG, errno) {
			TH_LOG("size %u", sizes[i]);
		}
	}
	check_intact(_metadata, self->s.ctl, self->sessions);

	/* ... and a valid one stops. */
	stop.more = 0;
	stop.args.flags = GOTRACE_STOP_NOWAIT;
	ASSERT_EQ(0, ioctl(self->s.ctl, _IOC(_IOC_WRITE, GOTRACE_IOC_MAGIC,
					     0x02, 0), &stop.args));
	ASSERT_EQ(0, gt_status(self->s.ctl, &st));
	expect_stopped(_metadata, st.state);
	EXPECT_EQ(self->sessions, st.sessions);
	end_session(_metadata, &self->s);
}

TEST_F(ioctl, stop_unknown_flags)
{
	struct gotrace_stop args = { .size = sizeof(args) };
	unsigned int bit;

	for (bit = 0; bit < 32; bit++) {
		if (GOTRACE_STOP_FLAGS & (1U << bit))
			continue;
		args.flags = 1U << bit;
		EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_STOP, &args));
		EXPECT_EQ(EINVAL, errno) {
			TH_LOG("flag %#x", args.flags);
		}
	}
	check_intact(_metadata, self->s.ctl, self->sessions);
}

TEST_F(ioctl, stop_reserved)
{
	struct gotrace_stop args;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(args.reserved); i++) {
		memset(&args, 0, sizeof(args));
		args.size = sizeof(args);
		args.flags = GOTRACE_STOP_NOWAIT;
		args.reserved[i] = 1;
		EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_STOP, &args));
		EXPECT_EQ(EINVAL, errno);
	}
	check_intact(_metadata, self->s.ctl, self->sessions);
}

TEST_F(ioctl, stop_size)
{
	static const __u32 sizes[] = {
		0, 4, 8, GOTRACE_STOP_SIZE_VER0 - 8, GOTRACE_STOP_SIZE_VER0 - 1,
	};
	struct {
		struct gotrace_stop args;
		__u64 more[2];
	} big;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		memset(&big, 0, sizeof(big));
		big.args.size = sizes[i];
		big.args.flags = GOTRACE_STOP_NOWAIT;
		EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_STOP, &big.args));
		EXPECT_EQ(EINVAL, errno) {
			TH_LOG("size %u", sizes[i]);
		}
	}
	/* Bytes the module does not know must be zero. */
	memset(&big, 0, sizeof(big));
	big.args.size = sizeof(big);
	big.args.flags = GOTRACE_STOP_NOWAIT;
	big.more[1] = 1;
	EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_STOP, &big.args));
	EXPECT_EQ(E2BIG, errno);
	big.args.size = self->page_size + 1;
	big.more[1] = 0;
	EXPECT_EQ(-1, ioctl(self->s.ctl, GOTRACE_STOP, &big.args));
	EXPECT_EQ(E2BIG, errno);
	big.args.size = sizeof(big);
	check_intact(_metadata, self->s.ctl, self->sessions);

	/* ... and a bigger structure of zeros is a stop. */
	EXPECT_EQ(0, ioctl(self->s.ctl, GOTRACE_STOP, &big.args));
	end_session(_metadata, &self->s);
}

TEST_F(ioctl, stop_not_tracing)
{
	ASSERT_EQ(0, gt_stop(self->s.ctl));
	EXPECT_EQ(-1, gt_stop(self->s.ctl));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, gt_stop(self->s.fd));
	EXPECT_EQ(EINVAL, errno);

	/* After the reader reached the end: IDLE, still nothing to stop. */
	end_session(_metadata, &self->s);
	EXPECT_EQ(-1, gt_stop(self->s.ctl));
	EXPECT_EQ(EINVAL, errno);
}

/* What a process without some capabilities gets from the device. */
struct unpriv {
	int ctl;		/* Input: opened with every capability */
	bool stop;		/* Input: also try GOTRACE_STOP */
	int open_rd;		/* Output: errno of each call, or 0 */
	int open_wr;
	int open_rdwr;
	int start;
	int stop_err;
};

static int unpriv_errno(int ret)
{
	return ret < 0 ? errno : 0;
}

static int unpriv_calls(void *arg)
{
	struct unpriv *u = arg;

	u->open_rd = unpriv_errno(gt_dev_open(O_RDONLY));
	u->open_wr = unpriv_errno(gt_dev_open(O_WRONLY));
	u->open_rdwr = unpriv_errno(gt_dev_open(O_RDWR));
	u->start = unpriv_errno(gt_start(u->ctl, GOTRACE_FORMAT_DEFAULT, 0));
	if (u->stop)
		u->stop_err = unpriv_errno(gt_stop(u->ctl));
	return 0;
}

static struct unpriv *run_unpriv(struct __test_metadata *_metadata, int ctl,
				 __u64 caps, bool stop)
{
	struct unpriv *u = mmap(NULL, sizeof(*u), PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(MAP_FAILED, u);
	memset(u, GT_JUNK, sizeof(*u));
	u->ctl = ctl;
	u->stop = stop;
	ASSERT_EQ(0, gt_run_without_caps(caps, unpriv_calls, u));
	return u;
}

TEST_F(ioctl, no_capabilities)
{
	struct unpriv *u;

	u = run_unpriv(_metadata, self->s.ctl,
		       GT_CAP(CAP_SYS_ADMIN) | GT_CAP(CAP_PERFMON), true);
	EXPECT_EQ(EPERM, u->open_rd);
	EXPECT_EQ(EPERM, u->open_wr);
	EXPECT_EQ(EPERM, u->open_rdwr);
	EXPECT_EQ(EPERM, u->start);
	EXPECT_EQ(EPERM, u->stop_err);
	munmap(u, sizeof(*u));
	check_intact(_metadata, self->s.ctl, self->sessions);
}

/*
 * With the device idle, START without the capabilities is refused (not
 * just busy) and starts nothing; neither reading nor the ioctls can be
 * had through a new open either.
 */
TEST_F(ioctl, no_capabilities_idle)
{
	struct gotrace_status st;
	struct unpriv *u;

	end_session(_metadata, &self->s);
	u = run_unpriv(_metadata, self->s.ctl,
		       GT_CAP(CAP_SYS_ADMIN) | GT_CAP(CAP_PERFMON), true);
	EXPECT_EQ(EPERM, u->open_rd);
	EXPECT_EQ(EPERM, u->open_wr);
	EXPECT_EQ(EPERM, u->open_rdwr);
	EXPECT_EQ(EPERM, u->start);
	EXPECT_EQ(EPERM, u->stop_err);
	munmap(u, sizeof(*u));
	ASSERT_EQ(0, gt_status(self->s.ctl, &st));
	EXPECT_EQ(GOTRACE_STATE_IDLE, st.state);
	EXPECT_EQ(self->sessions, st.sessions);

	/* A privileged start still works: the refusals left nothing behind. */
	ASSERT_EQ(0, gt_start(self->s.fd, GOTRACE_FORMAT_DEFAULT, 0));
	EXPECT_EQ(0, gt_stop(self->s.ctl));
	ASSERT_EQ(0, gt_status(self->s.ctl, &st));
	EXPECT_EQ(self->sessions + 1, st.sessions);
}

/* Either capability is enough: the calls then fail only as they would. */
TEST_F(ioctl, perfmon_or_sys_admin)
{
	static const __u64 drops[] = {
		GT_CAP(CAP_SYS_ADMIN), GT_CAP(CAP_PERFMON),
	};
	struct unpriv *u;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(drops); i++) {
		u = run_unpriv(_metadata, self->s.ctl, drops[i], false);
		EXPECT_EQ(EBUSY, u->open_rd);
		EXPECT_EQ(0, u->open_wr);
		EXPECT_EQ(EBUSY, u->open_rdwr);
		EXPECT_EQ(EBUSY, u->start);
		munmap(u, sizeof(*u));
	}
	check_intact(_metadata, self->s.ctl, self->sessions);
}

TEST_HARNESS_MAIN
