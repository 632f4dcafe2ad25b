/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * gotrace_annotate.h - annotate the gotrace trace being recorded from C:
 * tasks, regions and log messages, as Go's runtime/trace does
 * (trace.NewTask, trace.WithRegion, trace.Log); and ask a flight recorder
 * for a snapshot. Header only; see gotrace(4), "User annotations".
 *
 *	int fd = gotrace_annotate_open();
 *	uint64_t task;
 *
 *	gotrace_task_begin(fd, 0, "request", &task);
 *	gotrace_region_begin(fd, task, "parse");
 *	gotrace_log(fd, task, "input", "4 KiB");
 *	gotrace_region_end(fd, "parse");
 *	gotrace_task_end(fd, task);
 *	gotrace_snapshot_request(fd, "checkout took 2.4 s");
 *
 * Each function returns 0, or -1 with errno set. When no trace is being
 * recorded (ENODATA) they return 0 and record nothing: a program annotates
 * whether or not it is traced (gotrace_task_begin() then sets the id to 0,
 * which the other calls accept as "no task"). A region begun while no trace
 * records has no end in the kernel: its gotrace_region_end() fails with
 * ENOENT.
 */
#ifndef GOTRACE_ANNOTATE_H
#define GOTRACE_ANNOTATE_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>

#include <linux/gotrace.h>

#define GOTRACE_ANNOTATE_DEV	"/dev/gotrace-annotate"

/* Strict ISO C without POSIX 2008 has no O_CLOEXEC. */
#ifdef O_CLOEXEC
#define GOTRACE_ANNOTATE_CLOEXEC	O_CLOEXEC
#else
#define GOTRACE_ANNOTATE_CLOEXEC	0
#endif

/* The device, open for writing; -1 with errno (EPERM, ENOENT) if not. */
static inline int gotrace_annotate_open(void)
{
	return open(GOTRACE_ANNOTATE_DEV, O_WRONLY | GOTRACE_ANNOTATE_CLOEXEC);
}

/* An ioctl's result, ENODATA ("not recording") taken for success. */
static inline int gotrace_annotate_ret(int ret)
{
	return ret < 0 && errno == ENODATA ? 0 : ret < 0 ? -1 : 0;
}

/* Begin a task named @name (child of @parent, 0 for none); *@id gets its id. */
static inline int gotrace_task_begin(int fd, uint64_t parent, const char *name,
				     uint64_t *id)
{
	struct gotrace_task_begin tb;

	memset(&tb, 0, sizeof(tb));
	tb.size = sizeof(tb);
	tb.parent = parent;
	tb.name = (uintptr_t)name;
	tb.name_len = strlen(name);
	*id = 0;
	if (ioctl(fd, GOTRACE_TASK_BEGIN, &tb) < 0)
		return gotrace_annotate_ret(-1);
	*id = tb.id;
	return 0;
}

/* End task @id (0: nothing to do). */
static inline int gotrace_task_end(int fd, uint64_t id)
{
	struct gotrace_task_end te;

	if (!id)
		return 0;
	memset(&te, 0, sizeof(te));
	te.size = sizeof(te);
	te.id = id;
	return gotrace_annotate_ret(ioctl(fd, GOTRACE_TASK_END, &te));
}

/* Begin a region named @name on the calling thread, in task @task (0: none). */
static inline int gotrace_region_begin(int fd, uint64_t task, const char *name)
{
	struct gotrace_region r;

	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.task = task;
	r.name = (uintptr_t)name;
	r.name_len = strlen(name);
	return gotrace_annotate_ret(ioctl(fd, GOTRACE_REGION_BEGIN, &r));
}

/* End the calling thread's innermost region; if @name, only if it is that one. */
static inline int gotrace_region_end(int fd, const char *name)
{
	struct gotrace_region r;

	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	if (name) {
		r.flags = GOTRACE_REGION_NAME;
		r.name = (uintptr_t)name;
		r.name_len = strlen(name);
	}
	return gotrace_annotate_ret(ioctl(fd, GOTRACE_REGION_END, &r));
}

/* Log @message under @category ("" for none), in task @task (0: none). */
static inline int gotrace_log(int fd, uint64_t task, const char *category,
			      const char *message)
{
	struct gotrace_log l;

	memset(&l, 0, sizeof(l));
	l.size = sizeof(l);
	l.task = task;
	l.category = (uintptr_t)category;
	l.category_len = strlen(category);
	l.message = (uintptr_t)message;
	l.message_len = strlen(message);
	return gotrace_annotate_ret(ioctl(fd, GOTRACE_LOG, &l));
}

/*
 * Ask the flight recorder's reader (gotrace service, gotrace record --flight)
 * for a snapshot of the last seconds, saying why in @reason (1 to
 * GOTRACE_REQUEST_REASON_MAX bytes; it names the file and is logged in the
 * trace). 0 also when no flight recorder takes requests; -1 with EBUSY while
 * the last request waits, or within a second of it.
 */
static inline int gotrace_snapshot_request(int fd, const char *reason)
{
	struct gotrace_request r;

	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.reason = (uintptr_t)reason;
	r.reason_len = strlen(reason);
	return gotrace_annotate_ret(ioctl(fd, GOTRACE_REQUEST, &r));
}

#endif /* GOTRACE_ANNOTATE_H */
