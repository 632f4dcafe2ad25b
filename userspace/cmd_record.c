// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace record: load the module if needed, start a trace, run CMD, copy
 * /dev/gotrace into FILE until CMD exits, a signal or --duration, stop, take
 * the rest of the trace, and exit with CMD's status.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "cli.h"
#include "goapp/goapp.h"
#include "kmod/load.h"
#include "record/record.h"
#include "session.h"
#include "util/device.h"
#include "util/msg.h"
#include "util/parse.h"

static void record_help(void)
{
	printf("Usage: %s record [OPTIONS] [-- CMD [ARGS...]]\n"
	       "Record the scheduler into FILE while CMD runs (without CMD: until Ctrl-C or\n"
	       "--duration). Loads the module if it is not loaded. On a terminal a line\n"
	       "shows the progress; at the end, a summary and how to open the trace.\n\n"
	       "  -o, --output FILE      write the trace to FILE (default gotrace.trace; an\n"
	       "                         existing FILE is kept as FILE.old; - for stdout)\n"
	       "  -d, --duration SECS    stop after SECS seconds (CMD keeps running)\n"
	       "      --only-cmd         trace only CMD, its threads and their descendants\n"
	       "                         (with --pid, --comm, --cgroup: those too)\n"
	       "      --max-size SIZE    with --format 1.22 or later: files of whole\n"
	       "                         generations of SIZE at most (e.g. 512M), FILE.1.trace,\n"
	       "                         FILE.2.trace, ... (FILE without its .trace), each\n"
	       "                         small enough for go tool trace\n"
	       GOAPP_OPTIONS_HELP
	       START_OPTIONS_HELP
	       "      --after A          with --trigger-latency: from a firing to its\n"
	       "                         snapshot (default 1s)\n"
	       "      --trigger-every R  with --trigger-latency: from a firing to re-arming\n"
	       "                         the trigger (default 10s)\n"
	       "  -p, --path FILE        the module file to load if none is loaded\n"
	       "                         (default: the installed one)\n"
	       "  -q, --quiet            no progress line\n"
	       "  -h, --help             show this help\n\n"
	       "Ctrl-C (SIGINT), SIGTERM and SIGHUP stop the recording; the trace is still\n"
	       "complete. The signal then goes on to CMD if it still runs.\n\n"
	       "With --flight DURATION, a flight recorder: nothing is written while it\n"
	       "records. SIGUSR1 takes a snapshot of the last DURATION (whole generations)\n"
	       "and writes it to the next of FILE.1.trace, FILE.2.trace, ... (FILE without\n"
	       "its .trace); so does gotrace snapshot from another shell, and the end of the\n"
	       "recording, after which it stops. A line per snapshot says what it holds.\n\n"
	       "With --continue, a recording the buffers cannot keep up with goes on: when\n"
	       "they run full, FILE ends at that point and the module starts a new trace\n"
	       "as soon as FILE is written, into FILE.1.trace, then FILE.2.trace, ...\n"
	       "(FILE without its .trace; with --max-size, the next pieces). A line per\n"
	       "gap says when, how long and how many events were not recorded. Go's\n"
	       "readers cannot open a trace with a gap: each file is a trace of its own.\n\n"
	       "With --trigger-latency L too, a latency trigger: when a thread waits longer\n"
	       "than L to run, a line names it, and once --after has passed the next file\n"
	       "gets a snapshot of DURATION before the firing and --after A after it. The\n"
	       "trigger is armed again --trigger-every R after the firing (not before its\n"
	       "snapshot); nothing fires in between. The summary counts the firings.\n\n"
	       "Exit status: CMD's (128+N if a signal N killed it, 127 if it cannot run);\n"
	       "without CMD 0. 1 if the trace could not be recorded or is incomplete, or\n"
	       "with --flight if a snapshot could not be written or none was (and CMD\n"
	       "succeeded).\n", program_invocation_short_name);
}

static bool max_size_option(struct record *r, const char *arg)
{
	if (!parse_size("record", "--max-size", arg, &r->max_size))
		return false;
	if (r->max_size > 16)
		return true;
	msg_err("record", "invalid --max-size '%s': a file holds the 16-byte header and a "
		"generation, give more (e.g. 512M)", arg);
	return false;
}

/* --max-size cuts at generations, in files: a streaming trace of a format with them. */
static bool max_size_check(const struct record *r)
{
	unsigned int format = r->start.args.format;

	if (r->start.flight_ns)
		msg_err("record", "--max-size and --flight do not go together: the flight "
			"recorder's snapshots are already separate files");
	else if (!strcmp(r->out_path, "-"))
		msg_err("record", "--max-size writes a file per piece, not standard output: "
			"give -o FILE");
	else if (format < GOTRACE_FORMAT_1_22)
		msg_err("record", "--max-size cuts files at generations, which format 1.%u does "
			"not have: drop --format 1.%u (the default is 1.26)", format, format);
	else
		return true;
	return false;
}

/* The options; -1 to go on, else the exit status. */
static int parse_args(struct record *r, struct goapp *g, int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "duration", required_argument, NULL, 'd' },
		{ "path", required_argument, NULL, 'p' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "after", required_argument, NULL, 'A' },
		{ "trigger-every", required_argument, NULL, 'E' },
		{ "max-size", required_argument, NULL, 'S' },
		{ "only-cmd", no_argument, NULL, 'O' },
		GOAPP_LONGOPTS,
		START_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int c;

	/* '+': CMD's own options are not ours, even without "--". */
	while ((c = getopt_long(argc, argv, "+o:d:p:q" START_SHORTOPTS "h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			r->out_path = optarg;
			break;
		case 'd':
			if (!parse_seconds("record", "--duration", optarg, &r->duration))
				return msg_usage("record");
			break;
		case 'p':
			r->module_path = optarg;
			break;
		case 'q':
			r->quiet = true;
			break;
		case 'O':
			r->only_cmd = true;
			break;
		case 'A':
			if (!parse_duration("record", "--after", optarg, true, &r->after_ns))
				return msg_usage("record");
			r->after_given = true;
			break;
		case 'E':
			if (!parse_duration("record", "--trigger-every", optarg, false, &r->every_ns))
				return msg_usage("record");
			r->every_given = true;
			break;
		case 'S':
			if (!max_size_option(r, optarg))
				return msg_usage("record");
			break;
		case 'g':
		case 'T':
			if (!goapp_option(g, c, optarg))
				return msg_usage("record");
			break;
		case 'h':
			record_help();
			return EXIT_SUCCESS;
		case '?':
			return msg_usage("record");
		default:
			if (!start_option("record", c, optarg, &r->start))
				return msg_usage("record");
			break;
		}
	}
	if (!*r->out_path) {
		msg_err("record", "empty output file name: give -o FILE");
		return msg_usage("record");
	}
	if (!goapp_check(g, r, optind < argc) || !start_check("record", &r->start))
		return msg_usage("record");
	if ((r->after_given || r->every_given) && !r->start.latency_arg) {
		msg_err("record", "%s goes with --trigger-latency: give --flight D "
			"--trigger-latency L too", r->after_given ? "--after" : "--trigger-every");
		return msg_usage("record");
	}
	if (r->start.flight_ns && !strcmp(r->out_path, "-")) {
		msg_err("record", "--flight writes a file per snapshot, not standard output: "
			"give -o FILE");
		return msg_usage("record");
	}
	if (r->max_size && !max_size_check(r))
		return msg_usage("record");
	if ((r->start.args.flags & GOTRACE_START_CONTINUE) && !strcmp(r->out_path, "-")) {
		msg_err("record", "--continue writes a file per trace, not standard output: "
			"give -o FILE");
		return msg_usage("record");
	}
	if (optind < argc)
		r->argv = argv + optind;
	if (r->only_cmd && !r->argv) {
		msg_err("record", "--only-cmd traces the command given after the options: "
			"add -- CMD [ARGS...], or drop --only-cmd");
		return msg_usage("record");
	}
	return -1;
}

/*
 * --only-cmd: CMD's process and every thread it or they create, from its
 * fork on (it waits on its cork until the trace started).
 */
static void only_cmd_filter(struct record *r)
{
	struct start_opts *o = &r->start;

	if (!r->only_cmd || !r->child)
		return;
	if (o->nr_tgids < GOTRACE_FILTER_TGIDS_MAX)
		o->tgids[o->nr_tgids++] = (uint32_t)r->child;
	o->args.flags |= GOTRACE_START_DESCENDANTS;
	filter_apply(o);
}

/*
 * Signals arrive through a signalfd only: nothing interrupts a copy half-way.
 * An ignored signal would never arrive (a shell's "&" ignores SIGINT), and
 * a SIGINT must stop the recording, as it does perf record's: the stopping
 * signals get their default action back, which their blocking then holds.
 * With --flight, so does SIGUSR1, which asks for a snapshot.
 */
static bool signals_block(struct record *r)
{
	static const int stoppers[] = { SIGINT, SIGTERM, SIGHUP };
	sigset_t set;
	size_t i;

	sigemptyset(&set);
	for (i = 0; i < sizeof(stoppers) / sizeof(stoppers[0]); i++)
		sigaddset(&set, stoppers[i]);
	sigaddset(&set, SIGCHLD);
	if (r->start.flight_ns) {
		sigaddset(&set, SIGUSR1);
		signal(SIGUSR1, SIG_DFL);
	}
	sigprocmask(SIG_BLOCK, &set, &r->oldmask);
	for (i = 0; i < sizeof(stoppers) / sizeof(stoppers[0]); i++)
		signal(stoppers[i], SIG_DFL);
	signal(SIGPIPE, SIG_IGN);
	r->sig_fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (r->sig_fd >= 0)
		return true;
	msg_err("record", "signalfd: %s", strerror(errno));
	return false;
}

static bool ensure_loaded(struct record *r)
{
	if (device_module_loaded())
		return true;
	if (module_load("record", r->module_path, NULL, 0) != EXIT_SUCCESS)
		return false;
	msg_err("record", "loaded %s.ko; it stays loaded (gotrace unload removes it)",
		GOTRACE_MODULE);
	return true;
}

/* The reader's open, O_RDONLY; -1 after a message. */
static int open_reader(void)
{
	int fd = device_open_reader("record", O_NONBLOCK);

	if (fd < 0 && errno == EBUSY)
		msg_err("record", "another program is reading %s (a gotrace record or cat): "
			"end it first (fuser -v %s names it)", GOTRACE_DEVICE, GOTRACE_DEVICE);
	return fd;
}

/*
 * --flight without --buffer-size: the buffers sized by a measurement, which
 * a stopping signal ends, and with it the recording. CMD, still held, cannot
 * have exited; if something killed it, its SIGCHLD was taken with the rest.
 */
static bool size_buffers(struct record *r)
{
	int ret;

	if (!r->start.flight_ns || r->start.args.buffer_size)
		return true;
	ret = flight_size("record", r->ctl_fd, &r->rd_fd, r->sig_fd, &r->start);
	if (ret > 0)
		msg_err("record", "%s while sizing the buffers: nothing recorded", strsignal(ret));
	child_reap(r, false);
	if (r->child_reaped)
		r->end = END_CMD;
	return !ret;
}

/*
 * Start a session and open its reader. The reader opens first, so that no
 * other one can take this trace; a stopped trace nobody read would then
 * block the start, so it is discarded as a start with no reader does.
 */
static bool session_open(struct record *r)
{
	struct gotrace_status st;

	only_cmd_filter(r);
	r->ctl_fd = device_open("record");
	if (r->ctl_fd < 0)
		return false;
	r->rd_fd = open_reader();
	if (r->rd_fd < 0 || !session_status("record", r->ctl_fd, &st))
		return false;
	if (st.state == GOTRACE_STATE_TRACING) {
		msg_err("record", "a trace is already running (gotrace start?): stop it first: "
			"gotrace stop");
		return false;
	}
	if (st.state == GOTRACE_STATE_STOPPED) {
		msg_err("record", "discarding an earlier trace that was stopped but never read");
		close(r->rd_fd);
		r->rd_fd = -1;
	}
	if (!size_buffers(r) || !session_start("record", r->ctl_fd, &r->start.args))
		return false;
	r->started = true;
	if (r->rd_fd < 0)
		r->rd_fd = open_reader();
	return r->rd_fd >= 0;
}

/*
 * Stop, take the rest of the trace, close FILE. After end of file someone
 * else stopped it, and a stop now could end the next trace of someone else.
 */
static void session_close(struct record *r)
{
	if (r->start.flight_ns)
		flight_end(r);
	else if (r->end != END_EOF && !session_stop("record", r->ctl_fd, GOTRACE_STOP_NOWAIT, true))
		r->failed = true;
	else
		record_drain(r);
	if (!r->start.flight_ns && !output_close(r))
		r->failed = true;
	session_status("record", r->ctl_fd, &r->st);
	if (r->end == END_EOF)
		msg_err("record", "the trace was stopped by someone else (gotrace stop?)");
	record_summary(r);
}

static int record(struct record *r)
{
	int status;

	/* --flight and --max-size write PREFIX.N.trace: their directory first. */
	if (((r->start.flight_ns || r->max_size ||
	      (r->start.args.flags & GOTRACE_START_CONTINUE)) && !flight_begin(r)) ||
	    !ensure_loaded(r) ||
	    !signals_block(r) || !child_spawn(r))
		return EXIT_FAILURE;
	if (!session_open(r) || (!r->start.flight_ns && !output_open(r))) {
		if (r->started && session_stop("record", r->ctl_fd, GOTRACE_STOP_NOWAIT, true) && r->rd_fd >= 0)
			record_drain(r);	/* out_fd is -1: the trace is dropped */
		child_cancel(r);
		return EXIT_FAILURE;
	}
	r->t0 = now_seconds();
	progress_begin(r);
	child_release(r);
	record_stream(r);
	session_close(r);
	status = child_finish(r);
	if (status < 0)
		return r->failed ? EXIT_FAILURE : EXIT_SUCCESS;
	return r->failed && !status ? EXIT_FAILURE : status;
}

int cmd_record(int argc, char *argv[])
{
	struct goapp g = { };
	struct record r = {
		.out_path = "gotrace.trace",
		.start = START_OPTS_INIT,
		.ctl_fd = -1, .rd_fd = -1, .out_fd = -1, .sig_fd = -1, .cork = -1,
		.after_ns = 1000000000, .every_ns = 10000000000,
	};
	int ret = parse_args(&r, &g, argc, argv);

	if (ret >= 0) {
		goapp_free(&g);
		return ret;
	}
	r.tty = !r.quiet && isatty(STDERR_FILENO);
	ret = goapp_begin(&g) ? goapp_join(&g, &r, record(&r)) : EXIT_FAILURE;
	goapp_free(&g);
	if (r.rd_fd >= 0)
		close(r.rd_fd);
	if (r.ctl_fd >= 0)
		close(r.ctl_fd);
	free(r.prefix);
	free(r.snap_path);
	free(r.cont_path);
	return ret;
}
