// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace split: a Go 1.22+ trace cut into traces of whole generations
 * (report/split_oldtrace.c: older ones).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "report/split.h"
#include "tracev2.h"
#include "util/msg.h"
#include "util/parse.h"
#include "util/trace_file.h"

#define CMD		SPLIT_CMD
#define SUFFIX		".trace"
#define SENDFILE_MAX	(1 << 30)

/* A piece: a run of whole generations, in the file at [off, end). */
struct piece {
	uint64_t first_gen, last_gen;
	uint64_t off, end;
	int64_t first, last;	/* its earliest and latest batch, ns since the trace's first */
};

struct split {
	struct split_opts o;
	uint64_t header;	/* the header's bytes: where the first generation starts */
	int64_t start;		/* the first generation's first batch, ns */
	int64_t end;		/* the latest batch of all, ns since start */
	struct piece *pieces;
	size_t npieces, cap;
};

static void split_help(void)
{
	printf("Usage: %s split FILE (--every DURATION | --max-size SIZE | --from T --to T)\n"
	       "                     [-o PREFIX] [--force]\n"
	       "Cut a trace into pieces PREFIX.1.trace, PREFIX.2.trace, ...: each is a trace\n"
	       "Go opens on its own, and together they hold every event. Exit status 0, or 1\n"
	       "with the reason; nothing is written for an invalid trace.\n"
	       "A Go 1.22+ trace (headers go 1.22, 1.23, 1.25, 1.26) is cut into pieces of\n"
	       "whole generations; a line per piece: its file, generations, bytes and time\n"
	       "span (seconds since the trace's first batch).\n"
	       "A trace of Go's older format (go 1.7-1.11, 1.19, 1.21) is cut between events,\n"
	       "in the order Go's parser merges them: each piece opens with the state at its\n"
	       "cut made up (its live goroutines created, waiting, in a syscall or running,\n"
	       "its Ps started, a GC or stop-the-world under way) and closes with its running\n"
	       "goroutines and Ps stopped; a line per piece: its file, events (and of them\n"
	       "the synthesised, made-up ones), bytes and time span (seconds since the trace's\n"
	       "first event). The events less the synthesised ones add up to the trace's, as\n"
	       "gotrace check counts them. A CPU sample goes into the piece its own time falls\n"
	       "in, with its stack. FutileWakeups are refused.\n\n"
	       "  -e, --every DURATION  a new piece at the first generation (event) that starts\n"
	       "                        DURATION or more after the piece's start (e.g. 10s,\n"
	       "                        500ms, 2m)\n"
	       "  -s, --max-size SIZE   pieces of at most SIZE bytes (K, M, G suffixes, e.g.\n"
	       "                        64M); a larger generation (opening state and event) goes\n"
	       "                        alone, with a warning\n"
	       "      --from T          one piece: the generations that overlap (the events\n"
	       "      --to T            within) T to --to, times since the trace's start;\n"
	       "                        default: its start, end\n"
	       "  -o, --output PREFIX   the pieces' names (default: FILE without .trace)\n"
	       "      --force           overwrite existing pieces\n"
	       "  -h, --help            show this help\n", program_invocation_short_name);
}

static bool set_mode(struct split_opts *sp, enum split_mode mode)
{
	if (sp->mode != NO_MODE && sp->mode != mode) {
		msg_err(CMD, "--every, --max-size and --from/--to do not go together: choose one");
		return false;
	}
	sp->mode = mode;
	return true;
}

/* One option; false after a message if it is invalid. */
static bool split_opt(struct split_opts *sp, int c, const char *arg)
{
	switch (c) {
	case 'e':
		return set_mode(sp, EVERY) &&
		       parse_duration(CMD, "--every", arg, false, &sp->every);
	case 's':
		if (!set_mode(sp, MAX_SIZE) || !parse_size(CMD, "--max-size", arg, &sp->max_size))
			return false;
		if (sp->max_size > 16)
			return true;
		msg_err(CMD, "invalid --max-size '%s': a piece holds the 16-byte header and a "
			"generation, give more (e.g. 64M)", arg);
		return false;
	case 'F':
		return set_mode(sp, RANGE) && parse_duration(CMD, "--from", arg, true, &sp->from);
	case 'T':
		return set_mode(sp, RANGE) && parse_duration(CMD, "--to", arg, true, &sp->to);
	case 'o':
		free(sp->prefix);
		sp->prefix = strdup(arg);
		if (*arg)
			return true;
		msg_err(CMD, "empty output prefix: give -o PREFIX, or none for FILE's name");
		return false;
	case 'f':
		sp->force = true;
		return true;
	}
	return false;
}

static int parse_args(struct split_opts *sp, int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "every", required_argument, NULL, 'e' },
		{ "max-size", required_argument, NULL, 's' },
		{ "from", required_argument, NULL, 'F' },
		{ "to", required_argument, NULL, 'T' },
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int c;

	while ((c = getopt_long(argc, argv, "e:s:o:h", opts, NULL)) != -1) {
		if (c == 'h') {
			split_help();
			return 1;
		}
		if (!split_opt(sp, c, optarg))
			return -1;
	}
	sp->path = trace_path(CMD, argc, argv);
	if (!sp->path)
		return -1;
	if (sp->mode == NO_MODE) {
		msg_err(CMD, "missing how to cut: give --every DURATION, --max-size SIZE or "
			"--from T --to T");
		return -1;
	}
	if (sp->from > sp->to) {
		msg_err(CMD, "--from is after --to: give the earlier time first");
		return -1;
	}
	return 0;
}

/* FILE without its .trace suffix, unless -o gave a prefix. */
static bool default_prefix(struct split_opts *sp)
{
	size_t len = strlen(sp->path), n = strlen(SUFFIX);

	if (sp->prefix)
		return true;
	if (len > n && !strcmp(sp->path + len - n, SUFFIX))
		len -= n;
	sp->prefix = strndup(sp->path, len);
	return sp->prefix;
}

bool split_piece_path(const struct split_opts *sp, size_t i, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s.%zu" SUFFIX, sp->prefix, i + 1);

	if (n > 0 && (size_t)n < size)
		return true;
	msg_err(CMD, "output prefix '%s' too long: give a shorter -o PREFIX", sp->prefix);
	return false;
}

/* Whether generation @g starts a new piece rather than joining the last one. */
static bool starts_piece(const struct split *sp, const struct gt2_span *g)
{
	const struct piece *p;

	if (!sp->npieces)
		return true;
	p = &sp->pieces[sp->npieces - 1];
	if (sp->o.mode == EVERY)
		return g->first - sp->start - p->first >= sp->o.every;
	if (sp->o.mode == MAX_SIZE)
		return sp->header + g->end - p->off > sp->o.max_size;
	return false;
}

static void warn_size(const struct split *sp, const struct gt2_span *g)
{
	char path[PATH_MAX];

	if (sp->o.mode != MAX_SIZE || sp->header + g->end - g->off <= sp->o.max_size ||
	    !split_piece_path(&sp->o, sp->npieces - 1, path, sizeof(path)))
		return;
	msg_err(CMD, "warning: generation %" PRIu64 " is %" PRIu64 " bytes with the header, over "
		"--max-size %" PRIu64 ": it goes alone in %s", g->gen, sp->header + g->end - g->off,
		sp->o.max_size, path);
}

/* Generation @g joins the last piece or starts one; false if out of memory. */
static bool add_gen(struct split *sp, const struct gt2_span *g)
{
	int64_t first = g->first - sp->start, last = g->last - sp->start;
	struct piece *p;

	if (last > sp->end)
		sp->end = last;
	if (sp->o.mode == RANGE && (first > sp->o.to || last < sp->o.from))
		return true;
	if (starts_piece(sp, g)) {
		if (sp->npieces == sp->cap) {
			size_t cap = sp->cap ? 2 * sp->cap : 16;

			p = realloc(sp->pieces, cap * sizeof(*p));
			if (!p)
				return false;
			sp->pieces = p;
			sp->cap = cap;
		}
		sp->pieces[sp->npieces++] = (struct piece){ g->gen, g->gen, g->off, g->end, first,
							    last };
		warn_size(sp, g);
		return true;
	}
	p = &sp->pieces[sp->npieces - 1];
	p->last_gen = g->gen;
	p->end = g->end;
	if (last > p->last)
		p->last = last;
	return true;
}

/* The first pass: every generation, checked as Go reads it, into the pieces. */
static int plan(struct split *sp, const struct gt2_trace *t)
{
	struct gt2_spans *s;
	struct gt2_span g;
	struct gt_error err;
	int k;

	if (gt2_spans_open(t, &s, &err)) {
		trace_error(CMD, sp->o.path, &err);
		return -1;
	}
	sp->header = UINT64_MAX;
	while ((k = gt2_spans_next(s, &g, &err)) > 0) {
		if (sp->header == UINT64_MAX) {
			sp->header = g.off;
			sp->start = g.first;
		}
		if (!add_gen(sp, &g)) {
			msg_err(CMD, "out of memory");
			break;
		}
	}
	gt2_spans_close(s);
	if (k < 0)
		trace_error(CMD, sp->o.path, &err);
	return k > 0 ? -1 : k;
}

/* Why there is no piece: an empty trace, or nothing in --from/--to. */
static void no_pieces(const struct split *sp)
{
	if (sp->header == UINT64_MAX)
		msg_err(CMD, "%s: no generations after the header: nothing to split", sp->o.path);
	else
		msg_err(CMD, "%s: no generation overlaps --from/--to: the trace's batches span "
			"0 s to %.6f s, give times within them", sp->o.path, sp->end / 1e9);
}

bool split_path_free(const struct split_opts *o, const char *path, const struct stat *in)
{
	struct stat st;

	if (stat(path, &st))
		return true;
	if (st.st_dev == in->st_dev && st.st_ino == in->st_ino) {
		msg_err(CMD, "%s is the trace being split: give another -o PREFIX", path);
		return false;
	}
	if (o->force)
		return true;
	msg_err(CMD, "%s exists: remove it, give another -o PREFIX, or --force to overwrite it",
		path);
	return false;
}

/* Refuses to overwrite a piece without --force, and the trace being split always. */
static bool outputs_free(const struct split *sp, const struct stat *in)
{
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < sp->npieces; i++)
		if (!split_piece_path(&sp->o, i, path, sizeof(path)) ||
		    !split_path_free(&sp->o, path, in))
			return false;
	return true;
}

/* @len bytes of @in from @off to the end of @out. */
static int copy_range(int in, int out, uint64_t off, uint64_t len)
{
	off_t pos = (off_t)off;
	ssize_t n;

	while (len) {
		n = sendfile(out, in, &pos, len < SENDFILE_MAX ? len : SENDFILE_MAX);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!n)
				errno = ENODATA;	/* the trace got shorter */
			return -1;
		}
		len -= (uint64_t)n;
	}
	return 0;
}

/* The header and the piece's generations into its file; prints its line. */
static int write_piece(const struct split *sp, int in, size_t i)
{
	const struct piece *p = &sp->pieces[i];
	int flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | (sp->o.force ? 0 : O_EXCL);
	char path[PATH_MAX];
	int out, e;

	if (!split_piece_path(&sp->o, i, path, sizeof(path)))
		return -1;
	out = open(path, flags, 0600);	/* as record's: the trace shows every program */
	if (out < 0) {
		msg_err(CMD, "cannot create %s: %s", path, strerror(errno));
		return -1;
	}
	e = copy_range(in, out, 0, sp->header) ||
	    copy_range(in, out, p->off, p->end - p->off) ? errno : 0;
	if (close(out) && !e)
		e = errno;
	if (e) {
		msg_err(CMD, "cannot write %s: %s", path, strerror(e));
		unlink(path);
		return -1;
	}
	printf("%s: generations %" PRIu64 "-%" PRIu64 ", %" PRIu64 " bytes, %.6f s to %.6f s\n",
	       path, p->first_gen, p->last_gen, sp->header + p->end - p->off, p->first / 1e9,
	       p->last / 1e9);
	return 0;
}

/* The second pass: each piece's bytes copied from the file. */
static int write_pieces(const struct split *sp)
{
	struct stat st;
	size_t i;
	int in, ret = -1;

	in = open(sp->o.path, O_RDONLY | O_CLOEXEC);
	if (in < 0 || fstat(in, &st)) {
		msg_err(CMD, "%s: cannot open: %s", sp->o.path, strerror(errno));
		goto out;
	}
	if (!outputs_free(sp, &st))
		goto out;
	for (i = 0; i < sp->npieces; i++)
		if (write_piece(sp, in, i))
			goto out;
	ret = 0;
out:
	if (in >= 0)
		close(in);
	return ret;
}

/*
 * A trace whose header names Go's format before 1.22 goes to split_oldtrace(); else
 * gt2_open()'s @err.
 */
static int split_old(const struct split_opts *o, const struct gt_error *err)
{
	struct gt_trace *t;
	uint8_t head[16];
	ssize_t n = -1;
	int fd, ret;

	fd = open(o->path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, head, sizeof(head));
		close(fd);
	}
	if (n <= 0 || !gt_header_version(head, (size_t)n)) {
		trace_error(CMD, o->path, err);
		return EXIT_FAILURE;
	}
	t = trace_open(CMD, o->path);
	if (!t)
		return EXIT_FAILURE;
	ret = split_oldtrace(o, t);
	gt_close(t);
	return ret;
}

int cmd_split(int argc, char *argv[])
{
	struct split sp = { .o.to = INT64_MAX };
	struct gt2_trace *t;
	struct gt_error err;
	int k, ret = EXIT_FAILURE;

	k = parse_args(&sp.o, argc, argv);
	if (k) {
		free(sp.o.prefix);
		return k > 0 ? EXIT_SUCCESS : msg_usage(CMD);
	}
	if (!default_prefix(&sp.o)) {
		msg_err(CMD, "out of memory");
		return EXIT_FAILURE;
	}
	if (gt2_open(sp.o.path, &t, &err)) {
		ret = split_old(&sp.o, &err);
		goto out;
	}
	k = plan(&sp, t);
	gt2_close(t);
	if (k)
		goto out;
	if (!sp.npieces)
		no_pieces(&sp);
	else if (!write_pieces(&sp))
		ret = EXIT_SUCCESS;
out:
	free(sp.o.prefix);
	free(sp.pieces);
	return output_done(CMD, ret);
}
