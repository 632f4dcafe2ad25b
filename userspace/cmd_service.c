// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace service: the flight recorder as a system service (service/), as
 * gotrace-flight.service runs it; --check reads the configuration and
 * prints it as the service would take it.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "service/service.h"
#include "util/msg.h"

#define CMD	"service"

static void service_help(void)
{
	printf("Usage: %s service [-c FILE] [--check]\n"
	       "Run the flight recorder unattended, as the gotrace-flight systemd unit does:\n"
	       "it keeps the last seconds of the scheduler and writes a snapshot to its\n"
	       "directory when the latency trigger fires, at each multiple of fleet-period,\n"
	       "on SIGUSR1 and when a program asks (gotrace snapshot); the oldest snapshots\n"
	       "go first (keep-count, keep-size, keep-age, min-free), and a hook command runs\n"
	       "for each. SIGHUP reads FILE again; SIGTERM stops once the snapshot being\n"
	       "written is whole. It logs to standard error (the journal). See gotrace(8),\n"
	       "SERVICE, for the keys of FILE.\n\n"
	       "  -c, --config FILE  the configuration (default %s)\n"
	       "      --check        print the configuration as the service takes it (every\n"
	       "                     key, defaults included) and exit: 0 if FILE is valid\n"
	       "  -h, --help         show this help\n",
	       program_invocation_short_name, SERVICE_CONFIG);
}

int cmd_service(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *path = SERVICE_CONFIG;
	struct service_config cfg;
	bool check = false, ok;
	int c;

	while ((c = getopt_long(argc, argv, "c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			path = optarg;
			break;
		case 'C':
			check = true;
			break;
		case 'h':
			service_help();
			return EXIT_SUCCESS;
		default:
			return msg_usage(CMD);
		}
	}
	if (!msg_no_args(CMD, argc, argv))
		return EXIT_FAILURE;
	if (!check)
		return service_run(path);
	ok = config_load(&cfg, path);
	if (ok)
		config_print(&cfg);
	config_free(&cfg);
	return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
