/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Flight recorders: their buffers sized by a measurement (buffer_size.c), and
 * snapshots taken and written to files (flight_snapshot.c), for start, record and
 * snapshot.
 */
#ifndef GOTRACE_FLIGHT_H
#define GOTRACE_FLIGHT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/gotrace.h>

#include "session.h"

/*
 * Without --buffer-size: records 1 s of a streaming trace through @ctl_fd
 * and the reader *@rd_fd (opened here if it is -1; the caller closes it),
 * and sets @o's buffer size from the busiest CPU's rate. A stopping signal
 * on @sig_fd (-1: one of our own blocks SIGINT, SIGTERM and SIGHUP) ends the
 * measurement. Returns 0, the stopping signal's number, or -1 after a message.
 */
int flight_size(const char *cmd, int ctl_fd, int *rd_fd, int sig_fd, struct start_opts *o);

/* GOTRACE_SNAPSHOT of the newest @duration_ns (0: all) into @snap: 0 or the errno. */
int snapshot_take(int fd, uint64_t duration_ns, struct gotrace_snapshot *snap);
/* Why GOTRACE_SNAPSHOT failed with @err, and the fix. */
void snapshot_explain(const char *cmd, int fd, int err);
/*
 * The generations of a snapshot file someone else took, read from it (its
 * span is unknown: the file does not say when it was taken); false if it
 * cannot be read.
 */
bool snapshot_of_file(const char *path, struct gotrace_snapshot *snap);
/*
 * The line saying what a snapshot holds: its generations, span and @bytes
 * written to @path (NULL: none written, its batches' bytes), and @note.
 */
void snapshot_report(const char *cmd, const char *path, const struct gotrace_snapshot *snap,
		     uint64_t bytes, const char *note);

/*
 * GOTRACE_TRIGGER with @flags into @t (trigger.c): 0 (it fired, @t says who
 * waited; or with @requests, a program asked for a snapshot, @t->cause says
 * which), EAGAIN (GOTRACE_TRIGGER_NOWAIT: armed, nothing fired) or the errno.
 * Without @requests it gives the first version's size: requests are not its.
 */
int trigger_take(int fd, __u32 flags, bool requests, struct gotrace_trigger *t);
/* Why GOTRACE_TRIGGER failed with @err, and the fix. */
void trigger_explain(const char *cmd, int err);
/*
 * "thread TID (COMM, process TGID) waited W ms to run" into @buf, or for a
 * request "thread TID (COMM, process TGID, user UID) asked for a snapshot: REASON".
 */
void trigger_describe(const struct gotrace_trigger *t, char *buf, size_t len);

/*
 * A snapshot's file, written under a temporary name next to @path and
 * renamed to it once whole; "-" and files that are not regular (a FIFO,
 * /dev/null) are written directly.
 */
struct snap_file {
	const char *cmd;
	const char *path;
	char *tmp;		/* NULL: written directly */
	int fd;
	uint64_t bytes;
	bool failed;		/* a write failed: the rest is dropped */
};

bool snap_file_open(struct snap_file *f, const char *cmd, const char *path);
/* false after a message when a write fails; then the rest is dropped. */
bool snap_file_write(struct snap_file *f, const void *buf, size_t len);
/* Renamed to its path, an existing file kept as FILE.old unless @force; false after a message. */
bool snap_file_commit(struct snap_file *f, bool force);
/* Closed and removed (not written directly). */
void snap_file_discard(struct snap_file *f);

#endif /* GOTRACE_FLIGHT_H */
