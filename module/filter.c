// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace filters: which threads a session traces, by process, cgroup v2
 * directory and program name (struct gotrace_start, GOTRACE_START_SIZE_VER1).
 *
 * A start copies the lists once; the probes then ask gotrace_filter_admits()
 * only where a thread's answer can change: when the trace first sees it (the
 * start snapshot, its creation, its first switch-in), at a rename, and when
 * it moves to another cgroup. The thread table keeps the answer
 * (GOTRACE_T_UNTRACED), so that an untraced thread costs the other probes one
 * test of its entry.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bsearch.h>
#include <linux/cgroup.h>
#include <linux/file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "filter.h"
#include "gfp.h"

static int gotrace_filter_cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/* A list's pointer and count go together: both 0, or neither. */
static int gotrace_filter_list_ok(u64 ptr, u32 nr, u32 max)
{
	if (!ptr != !nr)
		return -EINVAL;
	return nr > max ? -E2BIG : 0;
}

static int gotrace_filter_copy_tgids(struct gotrace_filter *f, u64 uptr, u32 nr)
{
	if (!nr)
		return 0;
	f->tgids = memdup_user(u64_to_user_ptr(uptr), array_size(nr, sizeof(u32)));
	if (IS_ERR(f->tgids)) {
		int ret = PTR_ERR(f->tgids);

		f->tgids = NULL;
		return ret;
	}
	f->nr_tgids = nr;
	sort(f->tgids, nr, sizeof(u32), gotrace_filter_cmp_u32, NULL);
	return 0;
}

/* Each name must end within its 16 bytes: -EINVAL otherwise. */
static int gotrace_filter_copy_comms(struct gotrace_filter *f, u64 uptr, u32 nr)
{
	u32 i;

	BUILD_BUG_ON(GOTRACE_FILTER_COMM_LEN != TASK_COMM_LEN);
	if (!nr)
		return 0;
	f->comms = memdup_user(u64_to_user_ptr(uptr), array_size(nr, TASK_COMM_LEN));
	if (IS_ERR(f->comms)) {
		int ret = PTR_ERR(f->comms);

		f->comms = NULL;
		return ret;
	}
	f->nr_comms = nr;
	for (i = 0; i < nr; i++) {
		size_t len = strnlen(f->comms[i], TASK_COMM_LEN);

		if (len == TASK_COMM_LEN)
			return -EINVAL;
		/* Compared whole: the bytes after the name are zero. */
		memset(f->comms[i] + len, 0, TASK_COMM_LEN - len);
	}
	return 0;
}

#ifdef CONFIG_CGROUPS
/* A closed fd is -EBADF; an open file that is no cgroup v2 directory -EINVAL. */
static int gotrace_filter_cgroup(struct gotrace_filter *f, u32 fd)
{
	struct cgroup *cgrp;
	struct file *file;

	file = fget(fd);
	if (!file)
		return -EBADF;
	fput(file);
	cgrp = cgroup_get_from_fd(fd);
	if (IS_ERR(cgrp))
		return PTR_ERR(cgrp) == -EBADF ? -EINVAL : PTR_ERR(cgrp);
	f->cgrp = cgrp;
	return 0;
}

static bool gotrace_filter_in_cgroup(const struct gotrace_filter *f,
				     struct task_struct *p)
{
	bool in;

	rcu_read_lock();
	in = cgroup_is_descendant(task_dfl_cgroup(p), f->cgrp);
	rcu_read_unlock();
	return in;
}

static void gotrace_filter_cgroup_put(struct cgroup *cgrp)
{
	cgroup_put(cgrp);
}
#else
/* A kernel without cgroups has no cgroup to filter by: -EOPNOTSUPP. */
static int gotrace_filter_cgroup(struct gotrace_filter *f, u32 fd)
{
	return -EOPNOTSUPP;
}

static bool gotrace_filter_in_cgroup(const struct gotrace_filter *f,
				     struct task_struct *p)
{
	return false;
}

static void gotrace_filter_cgroup_put(struct cgroup *cgrp)
{
}
#endif

static void gotrace_filter_release(struct kref *ref)
{
	struct gotrace_filter *f = container_of(ref, struct gotrace_filter, ref);

	if (f->cgrp)
		gotrace_filter_cgroup_put(f->cgrp);
	kfree(f->tgids);
	kfree(f->comms);
	kfree(f);
}

/**
 * gotrace_filter_new - the filters a start asks for, checked and copied
 * @args: the start's arguments (flags checked already)
 * @fp: set to the filter, or to NULL when the start filters nothing
 *
 * Return: 0; -EINVAL for a list pointer without a count (or the reverse),
 * @cgroup_fd without GOTRACE_START_CGROUP, a name without its NUL, or a
 * file that is not a cgroup v2 directory; -E2BIG for a list longer than
 * its maximum; -EBADF for a closed fd; -EOPNOTSUPP for a cgroup on a
 * kernel without cgroups; -EFAULT; -ENOMEM.
 */
int gotrace_filter_new(const struct gotrace_start *args,
		       struct gotrace_filter **fp)
{
	bool cgroup = args->flags & GOTRACE_START_CGROUP;
	struct gotrace_filter *f;
	int ret;

	*fp = NULL;
	if (args->reserved2 || (!cgroup && args->cgroup_fd))
		return -EINVAL;
	ret = gotrace_filter_list_ok(args->tgids, args->nr_tgids,
				     GOTRACE_FILTER_TGIDS_MAX);
	if (!ret)
		ret = gotrace_filter_list_ok(args->comms, args->nr_comms,
					     GOTRACE_FILTER_COMMS_MAX);
	if (ret)
		return ret;
	if (!cgroup && !args->nr_tgids && !args->nr_comms)
		return 0;	/* descendants of everything: everything */
	f = kzalloc(sizeof(*f), GOTRACE_GFP);
	if (!f)
		return -ENOMEM;
	kref_init(&f->ref);
	f->descendants = args->flags & GOTRACE_START_DESCENDANTS;
	ret = gotrace_filter_copy_tgids(f, args->tgids, args->nr_tgids);
	if (!ret)
		ret = gotrace_filter_copy_comms(f, args->comms, args->nr_comms);
	if (!ret && cgroup)
		ret = gotrace_filter_cgroup(f, args->cgroup_fd);
	if (ret) {
		gotrace_filter_put(f);
		return ret;
	}
	*fp = f;
	return 0;
}

/**
 * gotrace_filter_get - another reference to @f
 * @f: a filter, or NULL
 *
 * Return: @f.
 */
struct gotrace_filter *gotrace_filter_get(struct gotrace_filter *f)
{
	if (f)
		kref_get(&f->ref);
	return f;
}

/**
 * gotrace_filter_put - drop a reference to @f, freeing it with the last
 * @f: a filter, or NULL
 */
void gotrace_filter_put(struct gotrace_filter *f)
{
	if (f)
		kref_put(&f->ref, gotrace_filter_release);
}

static bool gotrace_filter_comm(const struct gotrace_filter *f, const char *comm)
{
	char name[TASK_COMM_LEN] = {};
	u32 i;

	strscpy(name, comm, TASK_COMM_LEN);
	for (i = 0; i < f->nr_comms; i++)
		if (!memcmp(name, f->comms[i], TASK_COMM_LEN))
			return true;
	return false;
}

/**
 * gotrace_filter_admits - whether @f admits @p, going by the name @comm
 * @f: the filter
 * @p: the thread
 * @comm: its name: p->comm, or the one a rename gives it
 *
 * Context: any; takes no lock but RCU's read side.
 *
 * Return: true if each kind of filter @f has admits @p.
 */
bool gotrace_filter_admits(const struct gotrace_filter *f,
			   struct task_struct *p, const char *comm)
{
	u32 tgid = p->tgid;

	if (f->nr_tgids && !bsearch(&tgid, f->tgids, f->nr_tgids, sizeof(u32),
				    gotrace_filter_cmp_u32))
		return false;
	if (f->cgrp && !gotrace_filter_in_cgroup(f, p))
		return false;
	return !f->nr_comms || gotrace_filter_comm(f, comm);
}
