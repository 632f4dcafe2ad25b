// SPDX-License-Identifier: GPL-2.0
/*
 * A flight recorder's snapshots: GOTRACE_SNAPSHOT and its failures, the line
 * that says what a snapshot holds, and the files they are written to, which
 * appear under their name only once whole.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flight/flight.h"
#include "record/output.h"
#include "session.h"
#include "tracev2.h"
#include "util/device.h"
#include "util/msg.h"

#define MIB (1024.0 * 1024.0)
/* The span of a snapshot another program took: the file does not say when it was taken. */
#define SPAN_UNKNOWN UINT64_MAX

int snapshot_take(int fd, uint64_t duration_ns, struct gotrace_snapshot *snap)
{
	memset(snap, 0, sizeof(*snap));
	snap->size = sizeof(*snap);
	snap->duration_ns = duration_ns;
	return ioctl(fd, GOTRACE_SNAPSHOT, snap) ? errno : 0;
}

void snapshot_explain(const char *cmd, int fd, int err)
{
	struct gotrace_status st;

	switch (err) {
	case EINVAL:
		msg_err(cmd, "no flight recorder is recording: start one with gotrace start "
			"--flight D or gotrace record --flight D");
		break;
	case EBUSY:
		msg_err(cmd, "the last snapshot is not read to its end yet: its reader (gotrace "
			"record --flight) is still writing it; try again once it has");
		break;
	case ENODATA:
		if (!session_status(cmd, fd, &st))
			st.buffer_size = 0;
		msg_err(cmd, "the buffers hold no whole generation (one took more than a CPU's "
			"buffer of %" PRIu64 " KiB): raise --buffer-size, or lower "
			"--gen-period or --gen-size", (uint64_t)st.buffer_size / 1024);
		break;
	case ENOMEM:
		msg_err(cmd, "not enough memory to copy the snapshot out of the buffers: free "
			"some, or ask for a shorter one");
		break;
	default:
		device_explain(cmd, err);
		break;
	}
}

bool snapshot_of_file(const char *path, struct gotrace_snapshot *snap)
{
	struct gt2_trace *t;
	struct gt2_spans *s;
	struct gt_error err;
	struct gt2_span g;
	int k = -1;

	memset(snap, 0, sizeof(*snap));
	snap->span_ns = SPAN_UNKNOWN;
	if (gt2_open(path, &t, &err))
		return false;
	if (!gt2_spans_open(t, &s, &err)) {
		while ((k = gt2_spans_next(s, &g, &err)) > 0)
			if (!snap->generations++)
				snap->first_gen = g.gen;
		gt2_spans_close(s);
	}
	gt2_close(t);
	return !k;
}

void snapshot_report(const char *cmd, const char *path, const struct gotrace_snapshot *snap,
		     uint64_t bytes, const char *note)
{
	char what[64], span[32] = "";

	if (snap->generations > 1)
		snprintf(what, sizeof(what), "generations %" PRIu64 " to %" PRIu64,
			 (uint64_t)snap->first_gen,
			 (uint64_t)(snap->first_gen + snap->generations - 1));
	else
		snprintf(what, sizeof(what), "generation %" PRIu64, (uint64_t)snap->first_gen);
	if (snap->span_ns != SPAN_UNKNOWN)
		snprintf(span, sizeof(span), ", %.2f s", snap->span_ns / 1e9);
	if (!path)
		msg_err(cmd, "snapshot taken: %s%s, %.2f MiB%s%s", what, span, snap->bytes / MIB,
			note ? "; " : "", note ?: "");
	else
		msg_err(cmd, "wrote %s: %s%s, %.2f MiB%s%s", strcmp(path, "-") ? path :
			"standard output", what, span, bytes / MIB, note ? "; " : "", note ?: "");
}

/* The file's own path, or a temporary one beside it for a regular file or none. */
static bool open_tmp(struct snap_file *f)
{
	struct stat st;

	if (!strcmp(f->path, "-")) {
		f->fd = STDOUT_FILENO;
		return true;
	}
	if (!stat(f->path, &st) && !S_ISREG(st.st_mode)) {
		f->fd = open(f->path, O_WRONLY | O_CLOEXEC);
		return f->fd >= 0;
	}
	if (asprintf(&f->tmp, "%s.XXXXXX", f->path) < 0) {
		f->tmp = NULL;
		errno = ENOMEM;
		return false;
	}
	/* 0600, as record's trace: it shows every program on the machine. */
	f->fd = mkostemp(f->tmp, O_CLOEXEC);
	return f->fd >= 0;
}

bool snap_file_open(struct snap_file *f, const char *cmd, const char *path)
{
	*f = (struct snap_file){ .cmd = cmd, .path = path, .fd = -1 };
	if (open_tmp(f))
		return true;
	msg_err(cmd, "cannot create %s: %s: choose another file with -o FILE", f->tmp ?
		f->tmp : path, strerror(errno));
	free(f->tmp);
	f->tmp = NULL;
	f->failed = true;
	return false;
}

bool snap_file_write(struct snap_file *f, const void *buf, size_t len)
{
	if (f->failed)
		return false;
	if (output_write_all(f->fd, buf, len)) {
		f->bytes += len;
		return true;
	}
	msg_err(f->cmd, "writing %s failed: %s", f->tmp ? f->tmp : f->path, strerror(errno));
	f->failed = true;
	return false;
}

/* Closed, unless it is standard output; false with errno set if closing failed. */
static bool close_file(struct snap_file *f)
{
	int fd = f->fd;

	f->fd = -1;
	return fd < 0 || fd == STDOUT_FILENO || !close(fd);
}

bool snap_file_commit(struct snap_file *f, bool force)
{
	if (f->failed) {
		snap_file_discard(f);
		return false;
	}
	if (!close_file(f)) {
		msg_err(f->cmd, "writing %s failed: %s", f->tmp ? f->tmp : f->path,
			strerror(errno));
		snap_file_discard(f);
		return false;
	}
	if (!f->tmp)
		return true;
	if (!force && !output_keep_old(f->cmd, f->path)) {
		snap_file_discard(f);
		return false;
	}
	if (rename(f->tmp, f->path)) {
		msg_err(f->cmd, "cannot rename %s to %s: %s", f->tmp, f->path, strerror(errno));
		snap_file_discard(f);
		return false;
	}
	free(f->tmp);
	f->tmp = NULL;
	return true;
}

void snap_file_discard(struct snap_file *f)
{
	close_file(f);
	if (f->tmp)
		unlink(f->tmp);
	free(f->tmp);
	f->tmp = NULL;
}
