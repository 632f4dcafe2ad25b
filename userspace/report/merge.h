/* SPDX-License-Identifier: GPL-2.0 */
/* gotrace merge: a Go program's own trace joined with gotrace's recording of the machine. */
#ifndef GOTRACE_REPORT_MERGE_H
#define GOTRACE_REPORT_MERGE_H

#include <stdbool.h>
#include <stdio.h>

struct merge_opts {
	const char *app;	/* the Go program's trace */
	const char *machine;	/* gotrace's, format 1.25 or later */
	const char *out;
	bool threads;		/* --threads: MACHINE with the goroutines APP's threads ran */
	bool force;		/* replace an existing OUT */
};

/*
 * Writes the joined trace and prints its summary to @summary (threads found,
 * coverage, regions). 0, or 1 after a message on stderr naming the cause and
 * the fix; OUT is then left as it was.
 */
int merge_write(const struct merge_opts *o, FILE *summary);

#endif /* GOTRACE_REPORT_MERGE_H */
