// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace record --flight: a flight recorder, and a file per snapshot,
 * PREFIX.1.trace, PREFIX.2.trace, ... The snapshots are its own, asked for
 * by SIGUSR1 and one at the end, and those another program asks for (gotrace
 * snapshot): a read() stays pending, and whatever snapshot it returns
 * becomes the next file. Each snapshot ends with end of file; end of file
 * with no snapshot begun is the end of the session.
 */
#include <errno.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flight/flight.h"
#include "record/record.h"
#include "session.h"
#include "util/device.h"
#include "util/msg.h"

#define CMD		"record"
#define SUFFIX		".trace"
#define COPY_SIZE	(1 << 20)

/* PREFIX, FILE without .trace, in a directory the files can be made in. */
bool flight_begin(struct record *r)
{
	size_t len = strlen(r->out_path), n = strlen(SUFFIX);
	char *dir;
	bool ok;

	if (len > n && !strcmp(r->out_path + len - n, SUFFIX))
		len -= n;
	r->prefix = strndup(r->out_path, len);
	dir = strdup(r->out_path);
	if (!r->prefix || !dir) {
		free(dir);
		msg_err(CMD, "out of memory");
		return false;
	}
	ok = !access(dirname(dir), W_OK | X_OK);
	if (!ok)
		msg_err(CMD, "cannot create the %s %s.N%s in %s: %s: choose another -o FILE",
			r->start.flight_ns ? "snapshots" : "files", r->prefix, SUFFIX, dir,
			strerror(errno));
	free(dir);
	return ok;
}

bool record_file_path(struct record *r, unsigned int n)
{
	free(r->snap_path);
	if (asprintf(&r->snap_path, "%s.%u%s", r->prefix, n, SUFFIX) >= 0)
		return true;
	r->snap_path = NULL;
	msg_err(CMD, "out of memory");
	return false;
}

/* The next file, for a snapshot that begins; without one its bytes are dropped. */
static void snap_begin(struct record *r)
{
	r->in_snap = true;
	if (!record_file_path(r, r->snaps + 1)) {
		msg_err(CMD, "the snapshot is dropped");
		r->snap_file = (struct snap_file){ .fd = -1, .failed = true };
	} else if (!snap_file_open(&r->snap_file, CMD, r->snap_path)) {
		msg_err(CMD, "the snapshot is dropped; recording goes on");
	}
	if (r->snap_file.failed)
		r->failed = true;
}

/* The snapshot's end of file: its file renamed into place, and its line. */
static void snap_end(struct record *r)
{
	struct gotrace_snapshot snap = r->snap;
	bool ours = r->snap_ours;
	unsigned int trigger = ours ? r->snap_trigger : 0;
	char note[32];

	r->in_snap = false;
	r->snap_ours = false;
	r->snap_trigger = 0;
	if (!snap_file_commit(&r->snap_file, false)) {
		r->failed = true;
		return;
	}
	r->snaps++;
	if (!ours && !snapshot_of_file(r->snap_path, &snap)) {
		msg_err(CMD, "wrote %s (%.2f MiB), which another program asked for, but cannot "
			"read it back: check it with gotrace check", r->snap_path,
			r->snap_file.bytes / (1024.0 * 1024.0));
		return;
	}
	snprintf(note, sizeof(note), "for trigger %u", trigger);
	snapshot_report(CMD, r->snap_path, &snap, r->snap_file.bytes,
			!ours ? "another program asked for it (gotrace snapshot?)" :
			trigger ? note : NULL);
}

void flight_snapshot(struct record *r, uint64_t duration_ns, unsigned int trigger)
{
	int err = snapshot_take(r->ctl_fd, duration_ns, &r->snap);

	if (!err) {
		r->snap_ours = true;
		r->snap_trigger = trigger;
		snap_begin(r);
	} else if (err == EBUSY) {
		msg_err(CMD, "a snapshot another program asked for (gotrace snapshot?) is "
			"waiting to be read: it becomes the next file instead of a new one");
	} else if (err != EINVAL) {	/* EINVAL: stopped by someone else, read() says */
		snapshot_explain(CMD, r->ctl_fd, err);
		msg_err(CMD, "no snapshot this time; recording goes on");
	}
}

/* GOTRACE_SNAPSHOT of --flight's duration, as SIGUSR1 asked. */
static void flight_take(struct record *r)
{
	r->snap_wanted = false;
	flight_snapshot(r, (uint64_t)r->start.flight_ns, 0);
}

/* One read of the device: a snapshot's bytes, its end, or the session's end. */
static void flight_read(struct record *r, char *buf)
{
	ssize_t n = read(r->rd_fd, buf, COPY_SIZE);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n < 0) {
		msg_err(CMD, "reading %s failed: %s", GOTRACE_DEVICE, strerror(errno));
		if (r->in_snap)
			snap_file_discard(&r->snap_file);
		r->in_snap = false;
		r->failed = r->done = true;
		if (r->end == END_NONE)
			r->end = END_ERROR;
	} else if (n > 0) {
		if (!r->in_snap)
			snap_begin(r);
		snap_file_write(&r->snap_file, buf, (size_t)n);
		r->bytes += (uint64_t)n;
	} else if (r->in_snap) {
		snap_end(r);
	} else {
		r->done = true;
		if (r->end == END_NONE)
			r->end = END_EOF;
	}
}

void flight_step(struct record *r, char *buf)
{
	flight_read(r, buf);
	if (r->snap_wanted && !r->in_snap && !r->done)
		flight_take(r);
}

/* Reads until the snapshot being read is whole (or the session ended). */
static void snap_finish(struct record *r, char *buf)
{
	while (r->in_snap && !r->done)
		record_poll(r, buf, true, 1000);
}

/*
 * The snapshot being read, one a SIGUSR1 asked for, and the last; then
 * the stop, and what is left to read: a snapshot another program asked for
 * meanwhile, and the session's end of file.
 */
void flight_end(struct record *r)
{
	char *buf = malloc(COPY_SIZE);

	if (!buf) {
		msg_err(CMD, "out of memory for the last snapshot");
		r->failed = true;
		session_stop(CMD, r->ctl_fd, GOTRACE_STOP_NOWAIT, true);
		return;
	}
	snap_finish(r, buf);
	if (r->snap_wanted && !r->done) {
		flight_take(r);
		snap_finish(r, buf);
	}
	if (!r->done) {
		uint64_t duration_ns;
		unsigned int trigger = trigger_pending(r, &duration_ns);

		flight_snapshot(r, duration_ns, trigger);
		snap_finish(r, buf);
	}
	if (!r->done && !session_stop(CMD, r->ctl_fd, GOTRACE_STOP_NOWAIT, true))
		r->failed = r->done = true;	/* not stopped: no end of file to wait for */
	while (!r->done)
		record_poll(r, buf, true, 1000);
	free(buf);
	if (!r->snaps)
		r->failed = true;
}
