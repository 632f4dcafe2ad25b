/* SPDX-License-Identifier: GPL-2.0 */
/* Filters at start: which threads a session traces (filter.c). */
#ifndef _GOTRACE_FILTER_H
#define _GOTRACE_FILTER_H

#include <linux/kref.h>
#include <linux/sched.h>
#include <linux/types.h>
#include <linux/gotrace.h>

struct cgroup;

/**
 * struct gotrace_filter - what a start admits; immutable once made
 * @ref:	held by the start that made it and by each session of its
 *		GOTRACE_START_CONTINUE chain.
 * @descendants: GOTRACE_START_DESCENDANTS: a traced thread's children are
 *		traced, and a traced thread stays traced.
 * @nr_tgids:	entries in @tgids; 0: any process.
 * @nr_comms:	entries in @comms; 0: any name.
 * @tgids:	process ids, sorted.
 * @comms:	program names, NUL-padded.
 * @cgrp:	a cgroup v2 directory (a reference), or NULL: any cgroup.
 */
struct gotrace_filter {
	struct kref ref;
	bool descendants;
	u32 nr_tgids;
	u32 nr_comms;
	u32 *tgids;
	char (*comms)[TASK_COMM_LEN];
	struct cgroup *cgrp;
};

int gotrace_filter_new(const struct gotrace_start *args,
		       struct gotrace_filter **fp);
struct gotrace_filter *gotrace_filter_get(struct gotrace_filter *f);
void gotrace_filter_put(struct gotrace_filter *f);
bool gotrace_filter_admits(const struct gotrace_filter *f,
			   struct task_struct *p, const char *comm);

#endif /* _GOTRACE_FILTER_H */
