// SPDX-License-Identifier: GPL-2.0
/* gotrace dump: every event in Go's merged order, one line each. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>

#include "cli.h"
#include "gtrace.h"
#include "report/dump_wire.h"
#include "report/parsed.h"
#include "util/msg.h"
#include "util/trace_file.h"

#define MAX_FRAMES 1000

struct dump {
	bool stacks;
	bool all_stacks;
	bool ticks;
	struct gt_frame frames[MAX_FRAMES];
};

static void dump_help(void)
{
	printf("Usage: %s dump [--stacks] [--all-stacks] [--ticks] FILE\n"
	       "       %s dump --wire FILE\n"
	       "Print every event of a valid trace in the order Go's parser merges them,\n"
	       "one line each, as 'go tool trace -d' does:\n"
	       "  TIME(ns) EVENT p=P g=G off=OFFSET ARG=VALUE... [stk=STACK]\n"
	       "A Go 1.22+ trace's events are printed as Go 1.27's trace.Reader returns\n"
	       "them, exactly as 'go tool trace -d=parsed' does (without the options);\n"
	       "an invalid one's events up to the error, then Go's error message.\n"
	       "With --wire, print a Go 1.22+ trace's events as encoded, in file order,\n"
	       "exactly as Go 1.27's 'go tool trace -d=wire' does: batch headers, string,\n"
	       "stack and data events included, nothing checked beyond the encoding; a\n"
	       "file that ends inside an event is refused.\n\n"
	       "  -s, --stacks      print the frames of each event's stack below it\n"
	       "  -a, --all-stacks  after the events, print every stack the trace defines,\n"
	       "                    used or not, by id: 'stack ID' and its frames below\n"
	       "  -t, --ticks       TIME is the time stamp in clock ticks as recorded, not ns\n"
	       "                    since the first event; the first line is ticks_per_sec=N\n"
	       "  -w, --wire        the wire view of a Go 1.22, 1.23, 1.25 or 1.26 trace\n"
	       "  -h, --help        show this help\n", program_invocation_short_name,
	       program_invocation_short_name);
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

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Every stack of the dictionary, by id; false if out of memory. */
static bool dump_all_stacks(struct dump *d, const struct gt_trace *t)
{
	size_t n = gt_stack_ids(t, NULL, 0), i;
	uint64_t *ids = malloc((n ? n : 1) * sizeof(*ids));

	if (!ids)
		return false;
	gt_stack_ids(t, ids, n);
	qsort(ids, n, sizeof(*ids), cmp_u64);
	for (i = 0; i < n; i++) {
		printf("stack %" PRIu64 "\n", ids[i]);
		dump_stack(d, t, ids[i]);
	}
	free(ids);
	return true;
}

static int dump_event(void *ctx, const struct gt_trace *t, const struct gt_event *ev)
{
	const char *const *names = gt_event_args(ev->type);
	struct dump *d = ctx;
	const char *s[2];
	size_t len[2];
	unsigned int i, n;

	printf("%" PRId64 " %s p=%" PRId64 " g=%" PRIu64 " off=%" PRIu64,
	       d->ticks ? ev->ts : gt_ns(t, ev->ts), gt_event_name(t, ev->type), ev->p, ev->g,
	       ev->off);
	for (i = 0; names[i]; i++)
		printf(" %s=%" PRIu64, names[i], ev->args[i]);
	n = gt_event_strings(t, ev, s, len);
	names = gt_event_sargs(ev->type);
	for (i = 0; i < n; i++)
		printf(" %s=%.*s", names[i], (int)len[i], s[i]);
	if (ev->stk)
		printf(" stk=%" PRIu64, ev->stk);
	putchar('\n');
	if (d->stacks && ev->stk)
		dump_stack(d, t, ev->stk);
	return ferror(stdout) ? 1 : 0;
}

static int dump_parsed(const struct dump *d, const char *path, struct gt2_trace *t)
{
	uint64_t events, gens;
	int ret = EXIT_FAILURE;

	if (d->stacks || d->all_stacks || d->ticks)
		msg_err("dump", "--stacks, --all-stacks and --ticks are for pre-1.22 traces: a go "
			"1.%d trace's events carry their stacks and ns times; drop them",
			gt2_version(t) - 1000);
	else
		ret = parsed_read("dump", path, t, true, &events, &gens);
	gt2_close(t);
	return output_done("dump", ret);
}

/*
 * One thread prints, in many small pieces, text that is 35 times the trace:
 * no stdio lock around each piece (fwrite()'s locking was 40 % of a 1.22+
 * dump's time) and a 256 KiB buffer, for either format (trace_error()
 * flushes it first: an error still follows the events it stops).
 */
static void dump_stdout(void)
{
	__fsetlocking(stdout, FSETLOCKING_BYCALLER);
	setvbuf(stdout, NULL, _IOFBF, 1 << 18);
}

int cmd_dump(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "stacks", no_argument, NULL, 's' },
		{ "all-stacks", no_argument, NULL, 'a' },
		{ "ticks", no_argument, NULL, 't' },
		{ "wire", no_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	static struct dump d;
	struct gt2_trace *t2;
	struct gt_trace *t;
	struct gt_error err;
	const char *path;
	bool wire = false;
	int c, r;

	while ((c = getopt_long(argc, argv, "satwh", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			d.stacks = true;
			break;
		case 'a':
			d.all_stacks = true;
			break;
		case 't':
			d.ticks = true;
			break;
		case 'w':
			wire = true;
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
	if (wire && (d.stacks || d.all_stacks || d.ticks)) {
		msg_err("dump", "--stacks, --all-stacks and --ticks do not go with --wire, which "
			"prints every stack's frames where its Stack event is, and raw time stamps");
		return msg_usage("dump");
	}
	dump_stdout();
	if (wire)
		return dump_wire(path);
	t2 = parsed_open(path);
	if (t2)
		return dump_parsed(&d, path, t2);
	t = trace_open("dump", path);
	if (!t)
		return EXIT_FAILURE;
	if (d.ticks)
		printf("ticks_per_sec=%" PRId64 "\n", gt_ticks_per_sec(t));
	r = gt_replay(t, dump_event, &d, &err);
	if (r < 0)
		trace_error("dump", path, &err);
	if (!r && d.all_stacks && !dump_all_stacks(&d, t)) {
		msg_err("dump", "out of memory");
		r = 1;
	}
	gt_close(t);
	return output_done("dump", r ? EXIT_FAILURE : EXIT_SUCCESS);
}
