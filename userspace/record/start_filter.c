// SPDX-License-Identifier: GPL-2.0
/* The filter options of gotrace start and record: --pid, --cgroup, --comm, --descendants. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <linux/gotrace.h>
#include <linux/magic.h>

#include "session.h"
#include "util/msg.h"
#include "util/parse.h"

/* Each comma-separated item of @arg to @one; false after a message. */
static bool each_item(const char *cmd, const char *opt, const char *arg,
		      struct start_opts *o,
		      bool (*one)(const char *cmd, const char *item, struct start_opts *o))
{
	char *list = strdup(arg), *item, *save = NULL;
	bool ok = true;

	if (!list) {
		msg_err(cmd, "%s: out of memory", opt);
		return false;
	}
	if (!*list) {
		msg_err(cmd, "%s needs a value: give one or more, separated by commas", opt);
		ok = false;
	}
	for (item = strtok_r(list, ",", &save); ok && item; item = strtok_r(NULL, ",", &save))
		ok = one(cmd, item, o);
	free(list);
	return ok;
}

static bool one_pid(const char *cmd, const char *item, struct start_opts *o)
{
	uint32_t pid;

	if (!parse_u32(cmd, "--pid", item, &pid))
		return false;
	if (!pid) {
		msg_err(cmd, "invalid --pid '0': give process ids (as ps shows them)");
		return false;
	}
	if (o->nr_tgids == GOTRACE_FILTER_TGIDS_MAX) {
		msg_err(cmd, "too many --pid values: at most %d", GOTRACE_FILTER_TGIDS_MAX);
		return false;
	}
	o->tgids[o->nr_tgids++] = pid;
	return true;
}

static bool one_comm(const char *cmd, const char *item, struct start_opts *o)
{
	size_t len = strlen(item);

	if (len >= GOTRACE_FILTER_COMM_LEN) {
		msg_err(cmd, "invalid --comm '%s': a program name (comm, as ps -o comm shows it) "
			"has at most %d bytes; give its first %d", item,
			GOTRACE_FILTER_COMM_LEN - 1, GOTRACE_FILTER_COMM_LEN - 1);
		return false;
	}
	if (o->nr_comms == GOTRACE_FILTER_COMMS_MAX) {
		msg_err(cmd, "too many --comm values: at most %d", GOTRACE_FILTER_COMMS_MAX);
		return false;
	}
	memcpy(o->comms[o->nr_comms++], item, len + 1);
	return true;
}

/* --cgroup PATH: a cgroup v2 directory, held open until the start. */
static bool open_cgroup(const char *cmd, const char *path, struct start_opts *o)
{
	struct statfs sf;
	int fd;

	if (o->cgroup_fd >= 0) {
		msg_err(cmd, "--cgroup given twice: a trace takes one cgroup (its descendants "
			"included)");
		return false;
	}
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		msg_err(cmd, "cannot open --cgroup '%s': %s (give a directory of the cgroup v2 "
			"hierarchy, e.g. /sys/fs/cgroup/system.slice)", path, strerror(errno));
		return false;
	}
	if (fstatfs(fd, &sf) || sf.f_type != CGROUP2_SUPER_MAGIC) {
		msg_err(cmd, "--cgroup '%s' is not in a cgroup v2 hierarchy: give a directory "
			"under the cgroup2 mount (mount -t cgroup2 none /sys/fs/cgroup)", path);
		close(fd);
		return false;
	}
	o->cgroup_fd = fd;
	return true;
}

/* One of START_FILTER_LONGOPTS into @o; false after a message. */
bool filter_option(const char *cmd, int c, const char *arg, struct start_opts *o)
{
	switch (c) {
	case 'I':
		return each_item(cmd, "--pid", arg, o, one_pid);
	case 'N':
		return each_item(cmd, "--comm", arg, o, one_comm);
	case 'R':
		return open_cgroup(cmd, arg, o);
	case 'D':
		o->args.flags |= GOTRACE_START_DESCENDANTS;
		return true;
	}
	return false;
}

/* The lists into the start's arguments, once they are complete. */
void filter_apply(struct start_opts *o)
{
	struct gotrace_start *args = &o->args;

	args->tgids = o->nr_tgids ? (uintptr_t)o->tgids : 0;
	args->nr_tgids = o->nr_tgids;
	args->comms = o->nr_comms ? (uintptr_t)o->comms : 0;
	args->nr_comms = o->nr_comms;
	if (o->cgroup_fd >= 0) {
		args->flags |= GOTRACE_START_CGROUP;
		args->cgroup_fd = (uint32_t)o->cgroup_fd;
	}
}
