// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctl ABI of /dev/gotrace fuzzed for a bounded time while a session
 * records: random commands (mostly near gotrace's), random sizes and
 * contents, unreadable and unwritable pointers. Every call must fail with
 * an errno the ABI allows for it (or, for GOTRACE_STATUS on good memory,
 * succeed), and the session must go on recording, undisturbed, to one
 * whole trace.
 *
 * GOTRACE_FUZZ_SECONDS sets the time (default 20), GOTRACE_FUZZ_SEED the
 * random seed (default: the time; the seed is logged to replay a failure).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "gotrace_util.h"

#define ARENA_PAGES	4	/* rw, rw, read-only, hole */
#define CHECK_EVERY	1000	/* calls between checks of the session */

FIXTURE(fuzz) {
	struct gt_session s;
	int extra;		/* a third file, O_WRONLY */
	unsigned char *arena;	/* ARENA_PAGES pages */
	long page;
};

FIXTURE_SETUP(fuzz)
{
	GT_REQUIRE_DEVICE();
	self->extra = -1;
	self->page = sysconf(_SC_PAGESIZE);
	self->arena = mmap(NULL, ARENA_PAGES * self->page,
			   PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->arena);
	ASSERT_EQ(0, mprotect(self->arena + 2 * self->page, self->page,
			      PROT_READ));
	ASSERT_EQ(0, munmap(self->arena + 3 * self->page, self->page));
	ASSERT_EQ(0, gt_session_start(&self->s, GOTRACE_FORMAT_DEFAULT));
	self->extra = gt_dev_open(O_WRONLY);
	ASSERT_LE(0, self->extra);
}

FIXTURE_TEARDOWN(fuzz)
{
	if (self->extra >= 0)
		close(self->extra);
	EXPECT_EQ(0, gt_session_close(&self->s));
	munmap(self->arena, 3 * self->page);
}

static unsigned int rnd(unsigned int n)
{
	return n ? (unsigned int)random() % n : 0;
}

static __u64 rnd64(void)
{
	return (__u64)random() << 33 ^ (__u64)random() << 11 ^ random();
}

/* A command: mostly gotrace's magic and numbers, any direction and size. */
static unsigned long random_cmd(void)
{
	unsigned int dir = rnd(4), type, nr, size;

	switch (rnd(4)) {
	case 0:
		return rnd64() & 0xffffffffUL;
	case 1:
		type = rnd(256);
		break;
	default:
		type = GOTRACE_IOC_MAGIC;
		break;
	}
	nr = rnd(3) ? rnd(6) : rnd(256);
	switch (rnd(4)) {
	case 0:
		size = sizeof(struct gotrace_start);
		break;
	case 1:
		size = sizeof(struct gotrace_status);
		break;
	default:
		size = rnd(1 << _IOC_SIZEBITS);
		break;
	}
	return _IOC(dir, type, nr, size);
}

enum arg_kind { ARG_RW, ARG_EDGE, ARG_RO, ARG_HOLE, ARG_NULL, ARG_KERNEL,
		ARG_NONCANON, ARG_KINDS };

/*
 * An argument: inside the arena (filled with random bytes and a plausible
 * size), across its last readable byte, read-only, in the hole after it,
 * NULL, a kernel address or a non-canonical one. Never memory of the
 * program itself: GOTRACE_STATUS writes where it is pointed.
 */
static unsigned long random_arg(FIXTURE_DATA(fuzz) *self, enum arg_kind *kind)
{
	unsigned char *rw = self->arena, *ro = self->arena + 2 * self->page;
	unsigned char *hole = self->arena + 3 * self->page;
	__u32 size;
	long i, off;

	*kind = rnd(ARG_KINDS);
	switch (*kind) {
	case ARG_RW:
	case ARG_EDGE:
		for (i = 0; i < 2 * self->page; i++)
			rw[i] = rnd(4) ? 0 : random();
		switch (rnd(4)) {
		case 0:
			size = sizeof(struct gotrace_start);
			break;
		case 1:
			size = sizeof(struct gotrace_status);
			break;
		case 2:
			size = rnd(2 * self->page);
			break;
		default:
			size = random();
			break;
		}
		off = *kind == ARG_RW ? rnd(self->page) :
		      2 * self->page - 1 - rnd(sizeof(struct gotrace_status));
		memcpy(rw + off, &size, 1);	/* always writable: 1 byte */
		if (off + (long)sizeof(size) <= 2 * self->page)
			memcpy(rw + off, &size, sizeof(size));
		return (unsigned long)(rw + off);
	case ARG_RO:
		return (unsigned long)(ro + rnd(self->page));
	case ARG_HOLE:
		return (unsigned long)(hole + rnd(self->page));
	case ARG_NULL:
		return 0;
	case ARG_KERNEL:
		return 0xffffffff81000000UL + rnd(1 << 24);
	default:
		return 0x0000800000000000UL + rnd64() % (1UL << 46);
	}
}

/*
 * GOTRACE_STOP, encoded with any size, is valid and would end the session;
 * the VFS answers some types itself (FIOCLEX 'T', FS_IOC_* 'f', FIFREEZE
 * 'X', FIBMAP 0, FICLONE 0x94) before the driver sees them.
 */
static bool vfs_cmd(unsigned long cmd)
{
	switch (_IOC_TYPE(cmd)) {
	case 0x00:
	case 'T':
	case 'f':
	case 'X':
	case 0x94:
		return true;
	default:
		return false;
	}
}

/*
 * Whether @cmd is @known with any size: the module ignores the size in the
 * number, the structure's own counts.
 */
static bool same_cmd(unsigned long cmd, unsigned long known)
{
	const unsigned long size = _IOC_SIZEMASK << _IOC_SIZESHIFT;

	return (cmd & ~size) == (known & ~size);
}

/* Whether @err is an answer the ABI allows for @cmd. */
static bool allowed(unsigned long cmd, int err)
{
	/*
	 * START checks its arguments before the busy device: random flags may
	 * ask for the TSC clock or kernel stacks with generations, or a cgroup
	 * on a kernel without cgroups (EOPNOTSUPP), or name a closed cgroup_fd
	 * (EBADF).
	 */
	if (same_cmd(cmd, GOTRACE_START))
		return err == EFAULT || err == EINVAL || err == E2BIG ||
		       err == EBUSY || err == EOPNOTSUPP || err == EBADF;
	/* SNAPSHOT and TRIGGER: the session is no flight recorder. */
	if (same_cmd(cmd, GOTRACE_STATUS) || same_cmd(cmd, GOTRACE_SNAPSHOT) ||
	    same_cmd(cmd, GOTRACE_TRIGGER))
		return err == EFAULT || err == EINVAL || err == E2BIG;
	return err == ENOTTY || err == EINVAL;
}

/* The session still records, as it was started. */
static void check_intact(struct __test_metadata *_metadata, int ctl,
			 __u64 sessions, __u64 *events)
{
	struct gotrace_status st;

	ASSERT_EQ(0, gt_status(ctl, &st));
	ASSERT_EQ(GOTRACE_STATE_TRACING, st.state);
	ASSERT_EQ(sessions, st.sessions);
	ASSERT_EQ(GOTRACE_FORMAT_1_21, st.format);
	ASSERT_EQ(GT_DEFAULT_BUFFER, st.buffer_size);
	ASSERT_EQ(0, st.flags);
	ASSERT_LE(*events, st.events);
	*events = st.events;
}

TEST_F_TIMEOUT(fuzz, ioctls, 900)
{
	unsigned long seconds = gt_env_ulong("GOTRACE_FUZZ_SECONDS", 20);
	unsigned long seed = gt_env_ulong("GOTRACE_FUZZ_SEED", time(NULL));
	unsigned long calls = 0, ok = 0, errs[4] = { 0 }, cmd, arg;
	const int fds[] = { self->s.ctl, self->s.fd, self->extra };
	__u64 deadline, sessions, events = 0;
	struct gotrace_status st;
	struct gt_stats stats;
	enum arg_kind kind;
	int ret, fd;

	TH_LOG("seed %lu, %lu s", seed, seconds);
	srandom(seed);
	ASSERT_EQ(0, gt_status(self->s.ctl, &st));
	sessions = st.sessions;
	deadline = gt_now_ms() + seconds * 1000;
	while (gt_now_ms() < deadline && _metadata->passed) {
		cmd = random_cmd();
		if (same_cmd(cmd, GOTRACE_STOP) || vfs_cmd(cmd))
			continue;
		arg = random_arg(self, &kind);
		fd = fds[rnd(ARRAY_SIZE(fds))];
		ret = ioctl(fd, cmd, arg);
		calls++;
		if (ret == 0) {
			/* Only STATUS may succeed, and only on good memory. */
			EXPECT_TRUE(same_cmd(cmd, GOTRACE_STATUS)) {
				TH_LOG("call %lu: command %#lx succeeded", calls, cmd);
			}
			EXPECT_TRUE(kind == ARG_RW || kind == ARG_EDGE);
			ok++;
		} else {
			EXPECT_EQ(-1, ret);
			EXPECT_TRUE(allowed(cmd, errno)) {
				TH_LOG("call %lu: command %#lx arg %#lx (kind %d): errno %d",
				       calls, cmd, arg, kind, errno);
			}
			errs[errno == ENOTTY ? 0 : errno == EFAULT ? 1 :
			     errno == EINVAL ? 2 : 3]++;
		}
		if (!(calls % CHECK_EVERY))
			check_intact(_metadata, self->s.ctl, sessions, &events);
	}
	check_intact(_metadata, self->s.ctl, sessions, &events);
	EXPECT_LT(0, errs[0]);
	EXPECT_LT(0, errs[1]);
	EXPECT_LT(0, errs[2]);
	TH_LOG("%lu ioctls in %lu s: %lu STATUS succeeded", calls, seconds, ok);
	TH_LOG("errors: %lu ENOTTY, %lu EFAULT, %lu EINVAL, %lu other allowed",
	       errs[0], errs[1], errs[2], errs[3]);
	EXPECT_EQ(0, gt_session_end(&self->s, &stats, "fuzz-session")) {
		TH_LOG("%s", stats.error);
	}
}

TEST_HARNESS_MAIN
