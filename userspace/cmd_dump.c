// SPDX-License-Identifier: GPL-2.0
/* gotrace dump: every event in Go's merged order, one line each. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "gtrace.h"
#include "msg.h"
#include "trace_file.h"

#define MAX_FRAMES 1000

struct dump {
	bool stacks;
	struct gt_frame frames[MAX_FRAMES];
};

static void dump_help(void)
{
	printf("Usage: %s dump [--stacks] FILE\n"
	       "Print every event of a valid trace in the order Go's parser merges them,\n"
	       "one line each, as 'go tool trace -d' does:\n"
	       "  TIME(ns) EVENT p=P g=G off=OFFSET ARG=VALUE... [stk=STACK]\n\n"
	       "  -s, --stacks  print the frames of each event's stack below it\n"
	       "  -h, --help    show this help\n", program_invocation_short_name);
}

static void dump_stack(struct dump *d, const struct gt_trace *t, uint64_t id)
{
	unsigned int n = gt_stack(t, id, d->frames, MAX_FRAMES), i;
	const char *fn, *file;
	size_t fn_len, file_len;

	for (i = 0; i < n; i++) {
		fn = gt_string(t, d->frames[i].fn, &fn_len);
		file = gt_string(t, d->frames[i].file, &file_len);
		printf("\t%#" PRIx64 " %.*s %.*s:%" PRIu64 "\n", d->frames[i].pc, (int)fn_len, fn,
		       (int)file_len, file, d->frames[i].line);
	}
}

static int dump_event(void *ctx, const struct gt_trace *t, const struct gt_event *ev)
{
	const char *const *names = gt_event_args(ev->type);
	const char *s[2];
	size_t len[2];
	unsigned int i, n;

	printf("%" PRId64 " %s p=%" PRId64 " g=%" PRIu64 " off=%" PRIu64, gt_ns(t, ev->ts),
	       gt_event_name(t, ev->type), ev->p, ev->g, ev->off);
	for (i = 0; names[i]; i++)
		printf(" %s=%" PRIu64, names[i], ev->args[i]);
	n = gt_event_strings(t, ev, s, len);
	names = gt_event_sargs(ev->type);
	for (i = 0; i < n; i++)
		printf(" %s=%.*s", names[i], (int)len[i], s[i]);
	if (ev->stk)
		printf(" stk=%" PRIu64, ev->stk);
	putchar('\n');
	if (((struct dump *)ctx)->stacks && ev->stk)
		dump_stack(ctx, t, ev->stk);
	return ferror(stdout) ? 1 : 0;
}

int cmd_dump(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "stacks", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	static struct dump d;
	struct gt_trace *t;
	struct gt_error err;
	const char *path;
	int c, r;

	while ((c = getopt_long(argc, argv, "sh", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			d.stacks = true;
			break;
		case 'h':
			dump_help();
			return EXIT_SUCCESS;
		default:
			return msg_usage("dump");
		}
	}
	path = trace_path("dump", argc, argv);
	if (!path)
		return msg_usage("dump");
	t = trace_open("dump", path);
	if (!t)
		return EXIT_FAILURE;
	r = gt_replay(t, dump_event, &d, &err);
	if (r < 0)
		trace_error("dump", path, &err);
	gt_close(t);
	return output_done("dump", r ? EXIT_FAILURE : EXIT_SUCCESS);
}
