// SPDX-License-Identifier: GPL-2.0
/* gotrace start and gotrace stop: begin and end a recording session. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/gotrace.h>

#include "cli.h"

#define PID_MAX_FILE "/proc/sys/kernel/pid_max"

static void start_help(void)
{
	printf("Usage: %s start [OPTIONS]\n"
	       "Start recording the scheduler into %s (read it with: cat %s > FILE).\n\n"
	       "  -f, --format VER       trace format: 1.11, 1.19 or 1.21 (default 1.21)\n"
	       "  -b, --buffer-size SIZE buffer per CPU, with K, M or G suffix\n"
	       "                         (default: the module parameter buffer_size)\n"
	       "  -t, --max-tid N        thread ids the thread table covers, 20 bytes each\n"
	       "                         (default: %s)\n"
	       "  -k, --kernel-stacks    block events carry the kernel stack where the\n"
	       "                         thread blocks (costs an unwind per block)\n"
	       "  -h, --help             show this help\n",
	       program_invocation_short_name, GOTRACE_DEVICE, GOTRACE_DEVICE, PID_MAX_FILE);
}

/* Every thread id is below pid_max; 0 lets the module use its default. */
static uint32_t pid_max(void)
{
	unsigned long v = 0;
	FILE *f = fopen(PID_MAX_FILE, "re");

	if (!f || fscanf(f, "%lu", &v) != 1 || v > UINT32_MAX)
		v = 0;
	if (f)
		fclose(f);
	if (!v)
		msg_err("start", "cannot read %s: using the module's max_tid (mount /proc to size it)",
			PID_MAX_FILE);
	return (uint32_t)v;
}

static int start_session(const struct gotrace_start *args)
{
	int fd = device_open("start");
	int err;

	if (fd < 0)
		return EXIT_FAILURE;
	err = ioctl(fd, GOTRACE_START, args) ? errno : 0;
	close(fd);
	switch (err) {
	case 0:
		return EXIT_SUCCESS;
	case EBUSY:
		msg_err("start", "a trace is already running, or the previous one was not read to the end: "
			"gotrace stop / read it (cat %s > FILE)", GOTRACE_DEVICE);
		break;
	case ENOMEM:
		msg_err("start", "not enough memory for the trace buffers: lower --buffer-size or --max-tid");
		break;
	case EINVAL:
		msg_err("start", "the module rejected the parameters (format, buffer size, max tid): "
			"check the options; dmesg may say more");
		break;
	default:
		device_explain("start", err);
		break;
	}
	return EXIT_FAILURE;
}

int cmd_start(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "buffer-size", required_argument, NULL, 'b' },
		{ "max-tid", required_argument, NULL, 't' },
		{ "kernel-stacks", no_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct gotrace_start args = { .size = sizeof(args) };
	uint64_t buffer_size = 0;
	int c;

	while ((c = getopt_long(argc, argv, "f:b:t:kh", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!parse_format("start", optarg, &args.format))
				return EXIT_FAILURE;
			break;
		case 'b':
			if (!parse_size("start", "--buffer-size", optarg, &buffer_size))
				return EXIT_FAILURE;
			break;
		case 't':
			if (!parse_u32("start", "--max-tid", optarg, &args.max_tid))
				return EXIT_FAILURE;
			break;
		case 'k':
			args.flags |= GOTRACE_START_KSTACKS;
			break;
		case 'h':
			start_help();
			return EXIT_SUCCESS;
		default:
			return msg_usage("start");
		}
	}
	if (optind < argc) {
		msg_err("start", "unexpected argument '%s'", argv[optind]);
		return msg_usage("start");
	}
	args.buffer_size = buffer_size;
	if (!args.max_tid)
		args.max_tid = pid_max();
	return start_session(&args);
}

static void stop_help(void)
{
	printf("Usage: %s stop\n"
	       "Stop the running trace. The reader of %s then gets the rest of the\n"
	       "trace and end of file.\n\n"
	       "  -h, --help  show this help\n",
	       program_invocation_short_name, GOTRACE_DEVICE);
}

int cmd_stop(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int c, fd, err;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c != 'h')
			return msg_usage("stop");
		stop_help();
		return EXIT_SUCCESS;
	}
	if (optind < argc) {
		msg_err("stop", "unexpected argument '%s'", argv[optind]);
		return msg_usage("stop");
	}
	fd = device_open("stop");
	if (fd < 0)
		return EXIT_FAILURE;
	err = ioctl(fd, GOTRACE_STOP) ? errno : 0;
	close(fd);
	if (!err)
		return EXIT_SUCCESS;
	if (err == EINVAL)
		msg_err("stop", "no trace is running: start one with: gotrace start");
	else
		device_explain("stop", err);
	return EXIT_FAILURE;
}
