// SPDX-License-Identifier: GPL-2.0
/* gotrace start and gotrace stop: begin and end a recording session. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/gotrace.h>

#include "cli.h"
#include "flight/flight.h"
#include "session.h"
#include "util/device.h"
#include "util/msg.h"
#include "util/parse.h"

#define PID_MAX_FILE "/proc/sys/kernel/pid_max"

static void start_help(void)
{
	printf("Usage: %s start [OPTIONS]\n"
	       "Start recording the scheduler into %s (read it with: cat %s > FILE).\n"
	       "With --flight, a flight recorder: gotrace snapshot -o FILE writes its newest\n"
	       "generations, as often as wanted; gotrace stop ends it.\n\n"
	       START_OPTIONS_HELP
	       "  -h, --help             show this help\n",
	       program_invocation_short_name, GOTRACE_DEVICE, GOTRACE_DEVICE);
}

/* Every thread id is below pid_max; 0 lets the module use its default. */
static uint32_t pid_max(const char *cmd)
{
	unsigned long v = 0;
	FILE *f = fopen(PID_MAX_FILE, "re");

	if (!f || fscanf(f, "%lu", &v) != 1 || v > UINT32_MAX)
		v = 0;
	if (f)
		fclose(f);
	if (!v)
		msg_err(cmd, "cannot read %s: using the module's max_tid (mount /proc to size it)",
			PID_MAX_FILE);
	return (uint32_t)v;
}

/*
 * GOTRACE_START on @fd with @args, after filling in what the options left
 * to the system; false after a message naming the cause.
 */
bool session_start(const char *cmd, int fd, struct gotrace_start *args)
{
	struct gotrace_status st = { .size = sizeof(st) };
	int err;

	if (!args->max_tid)
		args->max_tid = pid_max(cmd);
	err = ioctl(fd, GOTRACE_START, args) ? errno : 0;
	switch (err) {
	case 0:
		if ((args->flags & GOTRACE_START_CLOCK_TSC) &&
		    !ioctl(fd, GOTRACE_STATUS, &st) &&
		    (st.flags & GOTRACE_STATUS_CLOCK_UNSTABLE))
			msg_err(cmd, "warning: the kernel has marked the TSC unstable: events of different CPUs may be out of order (--clock auto avoids it)");
		return true;
	case EBUSY:
		msg_err(cmd, "a trace is already running, or the previous one was not read to the end: "
			"gotrace stop / read it (cat %s > FILE)", GOTRACE_DEVICE);
		break;
	case ENOMEM:
		msg_err(cmd, "not enough memory for the trace buffers: lower --buffer-size or --max-tid");
		break;
	case EOPNOTSUPP:
		if (args->flags & GOTRACE_START_KSTACKS)
			msg_err(cmd, "this module writes --kernel-stacks only in formats before 1.22: "
				"update the module (gotrace unload; gotrace load), or use --format 1.21");
		else if (args->cpu_sample_hz)
			msg_err(cmd, "the kernel cannot sample its CPUs (perf events): drop "
				"--cpu-samples; dmesg may say more");
		else if (args->flags & GOTRACE_START_CGROUP)
			msg_err(cmd, "this kernel has no cgroups (CONFIG_CGROUPS): drop --cgroup");
		else
			msg_err(cmd, "this machine has no TSC for --clock tsc: use --clock auto or mono");
		break;
	case EINVAL:
		msg_err(cmd, "the module rejected the parameters (format, buffer size, max tid, "
			"--gen-period from 0.01 to 3600 s and --gen-size of 64K or more with formats "
			"1.22 and later only, --cgroup a cgroup v2 directory, --cpu-samples with "
			"format 1.19 or later; an older module: --cpu-samples without --flight): "
			"check the options; dmesg may say more");
		break;
	case E2BIG:
		msg_err(cmd, "the module takes at most %d --pid and %d --comm values, or is older "
			"than this command (no filters, or no --cpu-samples): update the module",
			GOTRACE_FILTER_TGIDS_MAX, GOTRACE_FILTER_COMMS_MAX);
		break;
	case EBADF:
		msg_err(cmd, "the --cgroup directory was closed before the start: give it again");
		break;
	default:
		if (args->cpu_sample_hz && (err == ENOENT || err == ENODEV))
			msg_err(cmd, "the kernel cannot sample its CPUs (perf events: %s): drop "
				"--cpu-samples; dmesg may say more", strerror(err));
		else
			device_explain(cmd, err);
		break;
	}
	return false;
}

/* --trigger-latency: a duration the module takes, 1 ms to a minute. */
static bool parse_latency(const char *cmd, const char *arg, struct start_opts *o)
{
	int64_t ns;

	if (!parse_duration(cmd, "--trigger-latency", arg, false, &ns))
		return false;
	if (ns < (int64_t)GOTRACE_LATENCY_MIN_NS || ns > (int64_t)GOTRACE_LATENCY_MAX_NS) {
		msg_err(cmd, "invalid --trigger-latency '%s': give a duration from 1ms to 60s", arg);
		return false;
	}
	o->latency_arg = arg;
	o->args.latency_ns = (uint64_t)ns;
	return true;
}

/* One of START_OPTIONS into @o; false after a message if @arg is invalid. */
bool start_option(const char *cmd, int c, const char *arg, struct start_opts *o)
{
	struct gotrace_start *args = &o->args;
	uint64_t size;
	double secs;

	switch (c) {
	case 'F':
		o->flight_arg = arg;
		return parse_duration(cmd, "--flight", arg, false, &o->flight_ns);
	case 'f':
		return parse_format(cmd, arg, &args->format);
	case 'b':
		if (!parse_size(cmd, "--buffer-size", arg, &size))
			return false;
		args->buffer_size = size;
		return true;
	case 't':
		return parse_u32(cmd, "--max-tid", arg, &args->max_tid);
	case 'k':
		args->flags |= GOTRACE_START_KSTACKS;
		return true;
	case 'C':
		args->flags |= GOTRACE_START_CONTINUE;
		return true;
	case 'c':
		return parse_clock(cmd, arg, &args->flags);
	case 'P':
		if (!parse_seconds(cmd, "--gen-period", arg, &secs))
			return false;
		args->gen_period_ns = (uint64_t)(secs * 1e9);
		return true;
	case 'G':
		if (!parse_size(cmd, "--gen-size", arg, &size))
			return false;
		args->gen_bytes = size;
		return true;
	case 'L':
		return parse_latency(cmd, arg, o);
	case 'H':
		return parse_sample_hz(cmd, "--cpu-samples", arg, &args->cpu_sample_hz);
	}
	return filter_option(cmd, c, arg, o);
}

/*
 * The format is 1.26 unless --format says otherwise: Go 1.26 and later read it natively,
 * every profile right (the older format is one flag away). A flight recorder needs
 * generations: one of 1.22 or later.
 */
bool start_check(const char *cmd, struct start_opts *o)
{
	struct gotrace_start *args = &o->args;

	if (args->format == GOTRACE_FORMAT_DEFAULT)
		args->format = GOTRACE_FORMAT_1_26;
	filter_apply(o);
	if ((args->flags & GOTRACE_START_DESCENDANTS) && !args->nr_tgids &&
	    !args->nr_comms && !(args->flags & GOTRACE_START_CGROUP)) {
		msg_err(cmd, "--descendants goes with a filter: give --pid, --comm or --cgroup "
			"too (without one every thread is traced)");
		return false;
	}
	if (o->latency_arg && !o->flight_ns) {
		msg_err(cmd, "--trigger-latency needs --flight: the trigger watches a flight "
			"recorder (e.g. --flight 10s --trigger-latency %s)", o->latency_arg);
		return false;
	}
	if (!o->flight_ns)
		return true;
	if (args->flags & GOTRACE_START_CONTINUE) {
		msg_err(cmd, "--continue and --flight do not go together: a flight recorder "
			"overwrites its oldest data and never runs full");
		return false;
	}
	if (args->format < GOTRACE_FORMAT_1_22) {
		msg_err(cmd, "--flight needs a format with generations, 1.22 or later: drop "
			"--format 1.%u (the default is 1.26)", args->format);
		return false;
	}
	args->flags |= GOTRACE_START_FLIGHT;
	return true;
}

/* --flight without --buffer-size: the buffers measured, with a reader of our own. */
static bool size_buffers(int fd, struct start_opts *o)
{
	int rd_fd = -1, ret;

	if (!o->flight_ns || o->args.buffer_size)
		return true;
	ret = flight_size("start", fd, &rd_fd, -1, o);
	if (rd_fd >= 0)
		close(rd_fd);
	if (ret > 0)
		msg_err("start", "%s while sizing the buffers: nothing started", strsignal(ret));
	return !ret;
}

int cmd_start(int argc, char *argv[])
{
	static const struct option opts[] = {
		START_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct start_opts o = START_OPTS_INIT;
	bool ok;
	int c, fd;

	while ((c = getopt_long(argc, argv, START_SHORTOPTS "h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			start_help();
			return EXIT_SUCCESS;
		case '?':
			return msg_usage("start");
		default:
			if (!start_option("start", c, optarg, &o))
				return EXIT_FAILURE;
			break;
		}
	}
	if (!msg_no_args("start", argc, argv))
		return EXIT_FAILURE;
	if (!start_check("start", &o))
		return EXIT_FAILURE;
	fd = device_open("start");
	if (fd < 0)
		return EXIT_FAILURE;
	ok = size_buffers(fd, &o) && session_start("start", fd, &o.args);
	close(fd);
	return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}

static void stop_help(void)
{
	printf("Usage: %s stop [--no-wait]\n"
	       "Stop the running trace. The reader of %s then gets the rest of the\n"
	       "trace and end of file; like Go's StopTrace, stop returns once the reader\n"
	       "has read it all (or closed the device), so the file is complete when it\n"
	       "returns. Ctrl-C ends the wait; the trace stays stopped.\n\n"
	       "  -n, --no-wait  return at once, without waiting for the reader\n"
	       "  -h, --help     show this help\n",
	       program_invocation_short_name, GOTRACE_DEVICE);
}

/*
 * GOTRACE_STOP on @fd with GOTRACE_STOP_* @flags. With @idle_ok, no running
 * trace is not an error (it has been stopped by someone else). False after
 * a message.
 */
bool session_stop(const char *cmd, int fd, __u32 flags, bool idle_ok)
{
	struct gotrace_stop args = { .size = sizeof(args), .flags = flags };
	int err = ioctl(fd, GOTRACE_STOP, &args) ? errno : 0;

	if (!err || (err == EINVAL && idle_ok))
		return true;
	if (err == EINTR) {
		msg_err(cmd, "the trace is stopped, but the reader of %s may not have all of it yet",
			GOTRACE_DEVICE);
		return true;
	}
	if (err == EINVAL)
		msg_err(cmd, "no trace is running: start one with: gotrace start");
	else
		device_explain(cmd, err);
	return false;
}

int cmd_stop(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "no-wait", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	__u32 flags = 0;
	bool ok;
	int c, fd;

	while ((c = getopt_long(argc, argv, "nh", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			flags |= GOTRACE_STOP_NOWAIT;
			break;
		case 'h':
			stop_help();
			return EXIT_SUCCESS;
		default:
			return msg_usage("stop");
		}
	}
	if (!msg_no_args("stop", argc, argv))
		return EXIT_FAILURE;
	fd = device_open("stop");
	if (fd < 0)
		return EXIT_FAILURE;
	ok = session_stop("stop", fd, flags, false);
	close(fd);
	return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
