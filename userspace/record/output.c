// SPDX-License-Identifier: GPL-2.0
/* gotrace record's output: FILE (the previous one kept as FILE.old, as perf does) or stdout. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/generation_framer.h"
#include "record/output.h"
#include "record/record.h"
#include "util/msg.h"

bool output_keep_old(const char *cmd, const char *path)
{
	struct stat st;
	char *old;
	bool ok;

	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return true;
	if (asprintf(&old, "%s.old", path) < 0) {
		msg_err(cmd, "out of memory");
		return false;
	}
	ok = !rename(path, old);
	if (!ok)
		msg_err(cmd, "cannot keep the previous %s as %s: %s", path, old,
			strerror(errno));
	free(old);
	return ok;
}

/*
 * The trace shows every program on the machine: the file is for its owner
 * only (0600, as perf.data), chown it to open it as someone else.
 */
bool output_open(struct record *r)
{
	struct stat st;

	if (!strcmp(r->out_path, "-")) {
		r->out_fd = STDOUT_FILENO;
		return true;
	}
	if (r->max_size)
		return roll_begin(r);
	if (!output_keep_old("record", r->out_path))
		return false;
	r->out_fd = open(r->out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (r->out_fd >= 0) {
		r->out_file = !fstat(r->out_fd, &st) && S_ISREG(st.st_mode);
		return true;
	}
	msg_err("record", "cannot create %s: %s: choose another file with -o FILE", r->out_path,
		strerror(errno));
	return false;
}

bool output_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return false;
		p += n;
		len -= (size_t)n;
	}
	return true;
}

/* All of @buf, or false after a message; then the output is closed and later data dropped. */
bool output_write(struct record *r, const void *buf, size_t len)
{
	if (r->roll) {
		r->bytes += len;
		return roll_feed(r->roll, buf, len);
	}
	if (output_write_all(r->out_fd, buf, len)) {
		r->bytes += len;
		return true;
	}
	progress_note(r, "writing %s failed: %s: the trace is incomplete; stopping", r->out_path,
		      strerror(errno));
	if (r->out_fd != STDOUT_FILENO)
		close(r->out_fd);
	r->out_fd = -1;
	return false;
}

bool output_close(struct record *r)
{
	int fd = r->out_fd;

	if (r->roll)
		return roll_end(r);
	r->out_fd = -1;
	if (fd < 0 || fd == STDOUT_FILENO)
		return fd == STDOUT_FILENO;
	if (!close(fd))
		return true;
	msg_err("record", "writing %s failed: %s: the trace is incomplete", r->out_path,
		strerror(errno));
	return false;
}
