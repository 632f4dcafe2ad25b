// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace trigger: wait until the latency trigger of the running flight
 * recorder fires, and say who waited, for scripts that then take a snapshot.
 * The trigger is armed without waiting (GOTRACE_TRIGGER_NOWAIT) and poll()
 * says POLLPRI once it fires; a poll() of at most a second at a time notices
 * the recorder stopping, which the next GOTRACE_TRIGGER reports.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "flight/flight.h"
#include "util/device.h"
#include "util/json.h"
#include "util/msg.h"
#include "util/parse.h"

#define CMD		"trigger"
#define POLL_MS		1000

static void trigger_help(void)
{
	printf("Usage: %s trigger [--timeout DURATION] [--json]\n"
	       "Wait until the latency trigger of the running flight recorder (gotrace start\n"
	       "--flight D --trigger-latency L) fires: a thread waited longer than L between\n"
	       "becoming runnable and running. Then print the thread, its program, its\n"
	       "process and the wait. Each call arms the trigger once; between calls it\n"
	       "does not fire. A script can then take a snapshot:\n"
	       "  gotrace trigger && sleep 1 && gotrace snapshot -o stall.trace\n\n"
	       "  -t, --timeout DURATION  give up after DURATION (e.g. 30s; 0: do not wait)\n"
	       "  -j, --json              print one JSON object\n"
	       "  -h, --help              show this help\n\n"
	       "Exit status: 0 once it fired; 1 on timeout, or without a flight recorder\n"
	       "with a latency trigger.\n", program_invocation_short_name);
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void print_json(const struct gotrace_trigger *t)
{
	struct json j;

	json_init(&j, stdout);
	json_begin(&j, NULL, '{');
	json_u64(&j, "tid", t->tid);
	json_u64(&j, "tgid", t->tgid);
	json_str(&j, "comm", (const char *)t->comm);
	json_u64(&j, "wait_ns", t->wait_ns);
	json_u64(&j, "time_ns", t->time_ns);
	json_end(&j, '}');
}

/* Arms and waits up to @timeout_ns (-1: no limit) for a firing into @t; 0 or exit status. */
static int wait_fired(int fd, int64_t timeout_ns, const char *timeout_arg,
		      struct gotrace_trigger *t)
{
	int64_t end = mono_ns() + timeout_ns, left;
	struct pollfd pfd = { .fd = fd, .events = POLLPRI };
	int err;

	while ((err = trigger_take(fd, GOTRACE_TRIGGER_NOWAIT, false, t)) == EAGAIN) {
		left = timeout_ns < 0 ? POLL_MS * 1000000LL : end - mono_ns();
		if (left <= 0) {
			msg_err(CMD, "the trigger did not fire in %s", timeout_arg);
			return EXIT_FAILURE;
		}
		if (left > POLL_MS * 1000000LL)
			left = POLL_MS * 1000000LL;
		if (poll(&pfd, 1, (int)(left / 1000000) + 1) < 0 && errno != EINTR) {
			msg_err(CMD, "poll: %s", strerror(errno));
			return EXIT_FAILURE;
		}
	}
	if (!err)
		return EXIT_SUCCESS;
	trigger_explain(CMD, err);
	return EXIT_FAILURE;
}

int cmd_trigger(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "timeout", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct gotrace_trigger t;
	const char *timeout_arg = NULL;
	int64_t timeout_ns = -1;
	char what[128];
	bool json = false;
	int c, fd, ret;

	while ((c = getopt_long(argc, argv, "t:jh", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (!parse_duration(CMD, "--timeout", optarg, true, &timeout_ns))
				return msg_usage(CMD);
			timeout_arg = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			trigger_help();
			return EXIT_SUCCESS;
		default:
			return msg_usage(CMD);
		}
	}
	if (!msg_no_args(CMD, argc, argv))
		return EXIT_FAILURE;
	fd = device_open(CMD);
	if (fd < 0)
		return EXIT_FAILURE;
	ret = wait_fired(fd, timeout_ns, timeout_arg, &t);
	close(fd);
	if (ret != EXIT_SUCCESS)
		return ret;
	if (json) {
		print_json(&t);
	} else {
		trigger_describe(&t, what, sizeof(what));
		printf("%s\n", what);
	}
	return EXIT_SUCCESS;
}
