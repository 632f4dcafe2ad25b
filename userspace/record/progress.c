// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace record's live progress line on a terminal, its notes, and the
 * closing summary. The line keeps to the terminal's last row, which a
 * scrolling region takes out of what scrolls (as apt's progress bar does),
 * so CMD's output on the same terminal scrolls above it untouched.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "record/record.h"
#include "session.h"
#include "util/msg.h"

#define MIB (1024.0 * 1024.0)

/* A new last line, made the only one that does not scroll; the cursor above it. */
void progress_begin(struct record *r)
{
	struct winsize ws;

	if (!r->tty)
		return;
	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) || ws.ws_row < 2) {
		r->tty = false;
		return;
	}
	r->rows = ws.ws_row;
	fprintf(stderr, "\n\0337\033[1;%dr\0338\033[1A", r->rows - 1);
}

/* The last line cleared and scrolling over the whole screen again. */
void progress_end(struct record *r)
{
	if (!r->tty)
		return;
	fprintf(stderr, "\0337\033[%d;1H\033[K\033[r\0338", r->rows);
	r->tty = false;
}

void progress_note(struct record *r, const char *fmt, ...)
{
	va_list ap;

	(void)r;
	va_start(ap, fmt);
	msg_verr("record", fmt, ap);
	va_end(ap);
}

static void warn_cut(struct record *r)
{
	if (r->cut_told || !(r->st.flags & GOTRACE_STATUS_CUT))
		return;
	r->cut_told = true;
	if (r->start.flight_ns)
		progress_note(r, "recording was cut short: the snapshots end there; a larger "
			      "--buffer-size (now %" PRIu64 " KiB per CPU) or --max-tid may keep up",
			      (uint64_t)r->st.buffer_size / 1024);
	else if (r->st.flags & GOTRACE_STATUS_CONTINUE)
		progress_note(r, "the buffers ran full: the trace ends there and the next one "
			      "begins once it is written; a larger --buffer-size (now %" PRIu64
			      " KiB per CPU) keeps up", (uint64_t)r->st.buffer_size / 1024);
	else
		progress_note(r, "the buffers ran full and recording was cut: the trace ends "
			      "there; a larger --buffer-size (now %" PRIu64 " KiB per CPU) keeps up",
			      (uint64_t)r->st.buffer_size / 1024);
}

/* Every tick: the session's counters; on a terminal, the line redrawn. */
void progress_tick(struct record *r)
{
	double now = now_seconds(), rate;

	if (!session_status("record", r->ctl_fd, &r->st))
		return;
	warn_cut(r);
	rate = now > r->tick ? (r->st.events - r->tick_events) / (now - r->tick) : 0;
	r->tick = now;
	r->tick_events = r->st.events;
	if (!r->tty)
		return;
	fprintf(stderr, "\0337\033[%d;1H\033[Kgotrace: %.1f s  %" PRIu64 " events  %.2f MiB  "
		"%.0f events/s  %" PRIu64 " not recorded\0338", r->rows, now - r->t0,
		(uint64_t)r->st.events, r->bytes / MIB, rate, (uint64_t)r->st.events_lost);
}

/* A path as the user can paste it into a shell. */
static void print_path(const char *path)
{
	const char *p;

	if (path[strspn(path, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			"0123456789._/+-,:@")] == '\0') {
		fputs(path, stderr);
		return;
	}
	fputc('\'', stderr);
	for (p = path; *p; p++)
		fputs(*p == '\'' ? "'\\''" : (char[]){ *p, '\0' }, stderr);
	fputc('\'', stderr);
}

/*
 * The Go that opens a trace of @format: 1.26 and later read every format, every
 * profile right; the Go of the format reads it too (1.22 to 1.25 natively, Go 1.21 and
 * before the older format).
 */
static const char *reader_go(uint32_t format)
{
	switch (format) {
	case GOTRACE_FORMAT_1_11:
		return "Go 1.26 or later (or Go 1.11 to 1.21)";
	case GOTRACE_FORMAT_1_19:
		return "Go 1.26 or later (or Go 1.19 to 1.21)";
	case GOTRACE_FORMAT_1_21:
		return "Go 1.26 or later (or Go 1.21)";
	case GOTRACE_FORMAT_1_22:
		return "Go 1.26 or later (or Go 1.22 to 1.25)";
	case GOTRACE_FORMAT_1_23:
		return "Go 1.26 or later (or Go 1.23 to 1.25)";
	case GOTRACE_FORMAT_1_25:
		return "Go 1.26 or later (or Go 1.25)";
	default:
		return "Go 1.26 or later";
	}
}

/* "Open it with Go ...: go tool trace PATH", @what being "it", "the last" or "each". */
static void print_open(const struct record *r, const char *what, const char *path)
{
	fprintf(stderr, "Open %s with %s: go tool trace ", what, reader_go(r->start.args.format));
	print_path(path);
	fputc('\n', stderr);
}

/* With --flight, the snapshots written, or with --max-size the files; and how to open the last. */
static void files_summary(struct record *r)
{
	char last[PATH_MAX];

	snprintf(last, sizeof(last), "%s.%u.trace", r->prefix, r->snaps);
	fprintf(stderr, "%s record: %.1f s, %" PRIu64 " events, %u %s%s (%.2f MiB) written",
		program_invocation_short_name, r->t_end - r->t0, (uint64_t)r->st.events, r->snaps,
		r->max_size ? "file" : "snapshot", r->snaps == 1 ? "" : "s", r->bytes / MIB);
	if (r->snaps > 1)
		fprintf(stderr, " to %s.1.trace to %s", r->prefix, last);
	else if (r->snaps)
		fprintf(stderr, " to %s", last);
	if (r->start.flight_ns)
		fprintf(stderr, ", %" PRIu64 " buffer chunks overwritten",
			(uint64_t)r->st.chunks_dropped);
	fprintf(stderr, ", %" PRIu64 " events not recorded", record_lost(r));
	if (r->resumes)
		fprintf(stderr, " (%" PRIu64 " in %u gap%s between traces)", r->gap_events,
			r->resumes, r->resumes == 1 ? "" : "s");
	if (r->start.args.latency_ns)
		fprintf(stderr, ", %u trigger%s fired", r->triggers, r->triggers == 1 ? "" : "s");
	fputc('\n', stderr);
	if (!r->snaps)
		return;
	print_open(r, r->snaps > 1 ? "the last" : "it", last);
}

/* With --continue, after a cut: FILE, then PREFIX.1.trace to PREFIX.N.trace. */
static void traces_summary(struct record *r)
{
	fprintf(stderr, "%s record: %.1f s, %u traces (%.2f MiB) written to ",
		program_invocation_short_name, r->t_end - r->t0, r->resumes + 1, r->bytes / MIB);
	print_path(r->first_path);
	fputs(r->resumes > 1 ? ", " : " and ", stderr);
	if (r->resumes > 1)
		fprintf(stderr, "%s.1.trace to ", r->prefix);
	print_path(r->cont_path);
	fprintf(stderr, "; %" PRIu64 " events not recorded (%" PRIu64 " in %u gap%s between "
		"traces)\n", record_lost(r), r->gap_events, r->resumes,
		r->resumes == 1 ? "" : "s");
	print_open(r, "each", "FILE");
}

/* CPU samples dropped are loss too: said, with what keeps up. */
static void warn_samples_dropped(struct record *r)
{
	if (!r->st.samples_dropped)
		return;
	progress_note(r, "%" PRIu64 " of %" PRIu64 " CPU samples were dropped (%s); a lower "
		      "--cpu-samples rate keeps up", (uint64_t)r->st.samples_dropped,
		      (uint64_t)(r->st.samples + r->st.samples_dropped),
		      r->st.format >= GOTRACE_FORMAT_1_22 ?
		      "the trace was not read fast enough to drain the CPUs' sample rings" :
		      "the buffers ran full");
}

void record_summary(struct record *r)
{
	bool file = strcmp(r->out_path, "-");

	progress_end(r);
	warn_cut(r);
	warn_samples_dropped(r);
	if (r->start.flight_ns || r->max_size) {
		files_summary(r);
		return;
	}
	if (r->resumes) {
		traces_summary(r);
		return;
	}
	fprintf(stderr, "%s record: %.1f s, %" PRIu64 " events, %.2f MiB written to %s, "
		"%" PRIu64 " events not recorded\n", program_invocation_short_name,
		r->t_end - r->t0, (uint64_t)r->st.events, r->bytes / MIB,
		file ? r->out_path : "standard output", (uint64_t)r->st.events_lost);
	if (r->failed || !r->out_file)	/* not for stdout, a FIFO, /dev/null */
		return;
	print_open(r, "it", r->out_path);
}
