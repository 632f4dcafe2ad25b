/* SPDX-License-Identifier: GPL-2.0 */
/* gotrace split's options and piece names, both formats' (cmd_split.c, split_oldtrace.c). */
#ifndef GOTRACE_SPLIT_H
#define GOTRACE_SPLIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "gtrace.h"

#define SPLIT_CMD	"split"

enum split_mode { NO_MODE, EVERY, MAX_SIZE, RANGE };

struct split_opts {
	const char *path;
	char *prefix;		/* allocated */
	bool force;
	enum split_mode mode;
	int64_t every;		/* ns */
	uint64_t max_size;
	int64_t from, to;	/* ns */
};

/* PREFIX.@i+1.trace into @buf; false after a message if it does not fit. */
bool split_piece_path(const struct split_opts *o, size_t i, char *buf, size_t size);
/* Whether piece @path may be written: never over the trace (@in), else only --force. */
bool split_path_free(const struct split_opts *o, const char *path, const struct stat *in);
/* Splits a trace of Go's format before 1.22 (split_oldtrace.c); EXIT_SUCCESS or EXIT_FAILURE. */
int split_oldtrace(const struct split_opts *o, struct gt_trace *t);

#endif /* GOTRACE_SPLIT_H */
