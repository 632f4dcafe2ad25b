// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace merge's writing: the join (lib/join.h) of a Go program's trace
 * with gotrace's MACHINE, then a summary of what was found and added.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "join.h"
#include "report/merge.h"
#include "util/msg.h"

/* Whether @a and @b are the same file (false if either does not exist). */
static bool merge_same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* OUT must not be an input, and is replaced only with --force. */
static int merge_check_out(const struct merge_opts *o)
{
	if (merge_same_file(o->out, o->app) || merge_same_file(o->out, o->machine)) {
		msg_err("merge", "%s is one of the traces to join: write the join to another file",
			o->out);
		return 1;
	}
	if (!o->force && !access(o->out, F_OK)) {
		msg_err("merge", "%s exists: give --force to replace it, or another -o FILE",
			o->out);
		return 1;
	}
	return 0;
}

/* A kind as its region types read, REASON standing for the reasons. */
static const char *merge_kind_label(enum gt_join_kind k)
{
	switch (k) {
	case GT_JOIN_BLOCKED:
		return "kernel: blocked in REASON";
	case GT_JOIN_SYSCALL:
		return "kernel: syscall blocked in REASON";
	default:
		return gt_join_kind_name(k);
	}
}

static void merge_summary(FILE *f, const struct merge_opts *o, const struct gt_join_stats *st)
{
	int k;

	fprintf(f, "gotrace merge: %" PRIu64 " of %" PRIu64 " threads of APP found in MACHINE; "
		"MACHINE covers %.1f %% of APP's time (%.1f of %.1f ms)\n",
		st->threads_found, st->app_threads,
		st->app_ns > 0 ? 100.0 * st->covered_ns / st->app_ns : 0.0,
		st->covered_ns / 1e6, st->app_ns / 1e6);
	if (o->threads) {
		fprintf(f, "  %" PRIu64 " runs of goroutines on APP's threads as go: regions\n",
			st->go_regions);
		if (st->unjoined)
			fprintf(f, "  %" PRIu64 " runs fell where MACHINE had the thread off its "
				"CPU or had no event: no region\n", st->unjoined);
		goto done;
	}
	for (k = 0; k < GT_JOIN_KINDS; k++)
		fprintf(f, "  %-35s %8" PRIu64 " regions %12.3f ms\n", merge_kind_label(k),
			st->regions[k], st->region_ns[k] / 1e6);
	if (st->unjoined)
		fprintf(f, "  %" PRIu64 " spans off a CPU fell between APP's generations or "
			"outside its events: no region\n", st->unjoined);
done:
	fprintf(f, "Wrote %s: open it with go tool trace %s\n", o->out, o->out);
}

int merge_write(const struct merge_opts *o, FILE *summary)
{
	struct gt_join_stats st;
	struct gt_error err;

	if (merge_check_out(o))
		return 1;
	if ((o->threads ? gt_join_threads : gt_join)(o->app, o->machine, o->out, &st, &err)) {
		msg_err("merge", "%s", err.msg);
		return 1;
	}
	if (summary)
		merge_summary(summary, o, &st);
	return 0;
}
