// SPDX-License-Identifier: GPL-2.0
/* gotrace check: is this a trace Go's parser accepts? */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "gtrace.h"
#include "report/parsed.h"
#include "util/msg.h"
#include "util/trace_file.h"

static void check_help(void)
{
	printf("Usage: %s check [--quiet] FILE\n"
	       "Check a trace with the rules of Go's trace parser (Go 1.19 for 1.7-1.19\n"
	       "traces, Go 1.21 for 1.21 ones, Go 1.27's trace.Reader for 1.22, 1.23, 1.25\n"
	       "and 1.26 ones). Exit status 0 when it is valid; 1 with the first error,\n"
	       "its byte offset and the rule it breaks (Go's own message for 1.22+\n"
	       "traces), otherwise.\n\n"
	       "  -q, --quiet  print nothing when the trace is valid\n"
	       "  -h, --help   show this help\n", program_invocation_short_name);
}

static int check_parsed(const char *path, struct gt2_trace *t, bool quiet)
{
	uint64_t events, gens;
	int ret;

	ret = parsed_read("check", path, t, false, &events, &gens);
	if (!ret && !quiet)
		printf("%s: valid go 1.%d trace: %" PRIu64 " events in %" PRIu64 " generations, %"
		       PRIu64 " bytes\n", path, gt2_version(t) - 1000, events, gens, gt2_size(t));
	gt2_close(t);
	return output_done("check", ret);
}

int cmd_check(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct gt2_trace *t2;
	struct gt_trace *t;
	struct gt_error err;
	const char *path;
	bool quiet = false;
	int c, ret = EXIT_FAILURE;

	while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
		switch (c) {
		case 'q':
			quiet = true;
			break;
		case 'h':
			check_help();
			return EXIT_SUCCESS;
		default:
			return msg_usage("check");
		}
	}
	path = trace_path("check", argc, argv);
	if (!path)
		return msg_usage("check");
	t2 = parsed_open(path);
	if (t2)
		return check_parsed(path, t2, quiet);
	t = trace_open("check", path);
	if (!t)
		return EXIT_FAILURE;
	if (gt_check(t, NULL, NULL, &err)) {
		trace_error("check", path, &err);
	} else {
		if (!quiet)
			printf("%s: valid go 1.%d trace: %" PRIu64 " events in %" PRIu64
			       " batches, %" PRIu64 " bytes\n", path, gt_version(t) - 1000,
			       gt_nr_events(t), gt_nr_batches(t), gt_size(t));
		ret = EXIT_SUCCESS;
	}
	gt_close(t);
	return output_done("check", ret);
}
