// SPDX-License-Identifier: GPL-2.0
/* Opening a trace file for check, dump and stats, and reporting its errors. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gtrace.h"
#include "util/msg.h"
#include "util/trace_file.h"

static const char *phase_name(enum gt_phase phase)
{
	static const char *const names[] = {
		[GT_ERR_WIRE] = "encoding",
		[GT_ERR_PARSE] = "event arguments",
		[GT_ERR_TRACE] = "trace structure",
		[GT_ERR_ORDER] = "merge order",
		[GT_ERR_TIME] = "time order",
		[GT_ERR_SYSCALL] = "syscall time",
		[GT_ERR_STATE] = "goroutine state",
	};

	return names[phase];
}

void trace_error(const char *cmd, const char *path, const struct gt_error *err)
{
	fflush(stdout);		/* after the events it printed, which the error stops */
	if (err->phase == GT_OK)
		msg_err(cmd, "%s: %s", path, err->msg);
	else
		msg_err(cmd, "%s: invalid trace (%s rule, byte offset %llu): %s", path,
			phase_name(err->phase), (unsigned long long)err->off, err->msg);
}

struct gt_trace *trace_open(const char *cmd, const char *path)
{
	struct gt_trace *t;
	struct gt_error err;

	if (!gt_open(path, &t, &err))
		return t;
	trace_error(cmd, path, &err);
	return NULL;
}

/* The one FILE operand of a reader command, after its options. */
const char *trace_path(const char *cmd, int argc, char *argv[])
{
	if (optind == argc) {
		msg_err(cmd, "missing FILE: give the trace to read");
		return NULL;
	}
	if (optind + 1 < argc) {
		msg_err(cmd, "unexpected argument '%s': give one FILE", argv[optind + 1]);
		return NULL;
	}
	return argv[optind];
}

/* Output errors (a full disk, a closed pipe) must not pass as success. */
int output_done(const char *cmd, int ret)
{
	if (fflush(stdout) || ferror(stdout)) {
		msg_err(cmd, "cannot write the output: %s", strerror(errno));
		return EXIT_FAILURE;
	}
	return ret;
}
