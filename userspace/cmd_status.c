// SPDX-License-Identifier: GPL-2.0
/* gotrace status: the state and counters of the recording session. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/gotrace.h>

#include "cli.h"
#include "session.h"
#include "util/device.h"
#include "util/json.h"
#include "util/msg.h"

static const char *state_name(uint32_t state)
{
	switch (state) {
	case GOTRACE_STATE_IDLE:
		return "idle";
	case GOTRACE_STATE_TRACING:
		return "tracing";
	case GOTRACE_STATE_STOPPED:
		return "stopped";
	}
	return "unknown";
}

static void status_help(void)
{
	printf("Usage: %s status [--json]\n"
	       "Show the recording session: state, events, bytes, buffers, events not recorded;\n"
	       "of a flight recorder, its snapshots, the buffer chunks it overwrote and the\n"
	       "times its latency trigger fired; with --continue, the gap before this trace.\n\n"
	       "  -j, --json  print one JSON object\n"
	       "  -h, --help  show this help\n",
	       program_invocation_short_name);
}

static void status_json(const struct gotrace_status *st)
{
	struct json j;

	json_init(&j, stdout);
	json_begin(&j, NULL, '{');
	json_str(&j, "state", state_name(st->state));
	json_bool(&j, "cut", st->flags & GOTRACE_STATUS_CUT);
	json_u64(&j, "format", st->format);
	json_str(&j, "clock", st->clock == GOTRACE_CLOCK_TSC ? "tsc" : "mono");
	json_bool(&j, "clock_unstable", st->flags & GOTRACE_STATUS_CLOCK_UNSTABLE);
	json_u64(&j, "nr_cpus", st->nr_cpus);
	json_u64(&j, "max_tid", st->max_tid);
	json_u64(&j, "buffer_size", st->buffer_size);
	json_u64(&j, "events", st->events);
	json_u64(&j, "bytes", st->bytes);
	json_u64(&j, "bytes_read", st->bytes_read);
	json_u64(&j, "chunks_full", st->chunks_full);
	json_u64(&j, "chunks_free", st->chunks_free);
	json_u64(&j, "events_lost", st->events_lost);
	json_u64(&j, "sessions", st->sessions);
	json_u64(&j, "generations", st->generations);
	json_bool(&j, "flight", st->flags & GOTRACE_STATUS_FLIGHT);
	json_u64(&j, "snapshots", st->snapshots);
	json_u64(&j, "chunks_dropped", st->chunks_dropped);
	json_u64(&j, "triggers", st->triggers);
	json_bool(&j, "continue", st->flags & GOTRACE_STATUS_CONTINUE);
	json_u64(&j, "resumes", st->resumes);
	json_u64(&j, "gap_start_ns", st->gap_start_ns);
	json_u64(&j, "gap_end_ns", st->gap_end_ns);
	json_u64(&j, "gap_events", st->gap_events);
	json_u64(&j, "resume_error", st->resume_error);
	json_u64(&j, "samples", st->samples);
	json_u64(&j, "samples_dropped", st->samples_dropped);
	json_u64(&j, "thread_bytes", st->thread_bytes);
	json_u64(&j, "thread_leaves_freed", st->thread_leaves_freed);
	json_u64(&j, "thread_starved", st->thread_starved);
	json_end(&j, '}');
}

/* --continue: the gap before this trace, or why none follows it. */
static void status_continue(const struct gotrace_status *st)
{
	printf("continue:     a new trace follows a cut one");
	if (st->resumes)
		printf("; this one follows cut %u: a gap of %.3f s, %" PRIu64
		       " events not recorded", st->resumes,
		       (double)(st->gap_end_ns - st->gap_start_ns) / 1e9,
		       (uint64_t)st->gap_events);
	if (st->resume_error)
		printf("; none could follow this one: %s", strerror((int)st->resume_error));
	putchar('\n');
}

static void status_text(const struct gotrace_status *st)
{
	printf("state:        %s%s\n", state_name(st->state),
	       st->flags & GOTRACE_STATUS_CUT ? " (cut short: events not recorded)" : "");
	if (st->format) {
		printf("format:       go 1.%u\n", st->format);
		printf("clock:        %s%s\n",
		       st->clock == GOTRACE_CLOCK_TSC ? "TSC" : "CLOCK_MONOTONIC",
		       st->flags & GOTRACE_STATUS_CLOCK_UNSTABLE ?
		       " (marked unstable by the kernel: events of different CPUs may be out of order; use --clock mono)" : "");
	}
	if (st->generations)
		printf("generations:  %" PRIu64 "\n", (uint64_t)st->generations);
	if (st->flags & GOTRACE_STATUS_FLIGHT)
		printf("flight:       a flight recorder: %" PRIu64 " snapshots, %" PRIu64
		       " chunks overwritten, %" PRIu64 " triggers fired\n",
		       (uint64_t)st->snapshots, (uint64_t)st->chunks_dropped,
		       (uint64_t)st->triggers);
	if (st->flags & GOTRACE_STATUS_CONTINUE)
		status_continue(st);
	if (st->samples || st->samples_dropped)
		printf("cpu samples:  %" PRIu64 " written, %" PRIu64 " dropped\n",
		       (uint64_t)st->samples, (uint64_t)st->samples_dropped);
	if (st->thread_bytes)
		printf("thread state: %" PRIu64 " KiB\n", (uint64_t)st->thread_bytes >> 10);
	if (st->thread_starved)
		printf("thread state: %u threads found no memory ready for their state "
		       "(the trace was cut there)\n", st->thread_starved);
	printf("cpus:         %u\n"
	       "max tid:      %u\n"
	       "buffer:       %" PRIu64 " bytes per CPU\n"
	       "events:       %" PRIu64 "\n"
	       "bytes:        %" PRIu64 " (%" PRIu64 " read)\n"
	       "chunks:       %" PRIu64 " full, %" PRIu64 " free\n"
	       "not recorded: %" PRIu64 " events\n"
	       "sessions:     %" PRIu64 "\n",
	       st->nr_cpus, st->max_tid, (uint64_t)st->buffer_size, (uint64_t)st->events,
	       (uint64_t)st->bytes, (uint64_t)st->bytes_read, (uint64_t)st->chunks_full,
	       (uint64_t)st->chunks_free, (uint64_t)st->events_lost, (uint64_t)st->sessions);
}

/* GOTRACE_STATUS on @fd into @st; false after a message. */
bool session_status(const char *cmd, int fd, struct gotrace_status *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	if (!ioctl(fd, GOTRACE_STATUS, st))
		return true;
	device_explain(cmd, errno);
	return false;
}

int cmd_status(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct gotrace_status st;
	bool json = false, ok;
	int c, fd;

	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'h':
			status_help();
			return EXIT_SUCCESS;
		default:
			return msg_usage("status");
		}
	}
	if (!msg_no_args("status", argc, argv))
		return EXIT_FAILURE;
	fd = device_open("status");
	if (fd < 0)
		return EXIT_FAILURE;
	ok = session_status("status", fd, &st);
	close(fd);
	if (!ok)
		return EXIT_FAILURE;
	if (json)
		status_json(&st);
	else
		status_text(&st);
	return EXIT_SUCCESS;
}
