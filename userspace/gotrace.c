// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace: the command line front end; dispatches to the subcommands.
 *
 * Beside it, a cmd_*.c per subcommand (cli.h); their parts in folders:
 * record/ (record and start: the stream, the output files, CMD, progress,
 * --max-size, --continue), flight/ (the flight recorder: record --flight,
 * snapshots, the latency trigger, buffer sizing), report/ (stats, split,
 * dump --wire, Go 1.22+ parsed events, pprof), kmod/ (load and unload),
 * util/ (messages, option values, the device, trace files, JSON); lib/ is
 * the trace reader: common/, oldtrace/ (Go before 1.22, gtrace.h) and
 * tracev2/ (Go 1.22 and later, tracev2.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "util/device.h"
#include "util/msg.h"

static int cmd_help(int argc, char *argv[]);

static const struct gt_cmd cmds[] = {
	{ "record", cmd_record, "record the scheduler into a file while a command runs" },
	{ "load", cmd_load, "load the gotrace module" },
	{ "unload", cmd_unload, "unload the gotrace module" },
	{ "start", cmd_start, "start recording the scheduler into " GOTRACE_DEVICE },
	{ "stop", cmd_stop, "stop the running trace" },
	{ "snapshot", cmd_snapshot, "write a flight recorder's newest generations to a file" },
	{ "trigger", cmd_trigger, "wait for a flight recorder's latency trigger to fire" },
	{ "service", cmd_service, "run the flight recorder unattended (gotrace-flight.service)" },
	{ "mark", cmd_mark, "log a message in the trace being recorded" },
	{ "region", cmd_region, "run a command as a task and region of the trace" },
	{ "status", cmd_status, "show the session's state and counters" },
	{ "check", cmd_check, "check a trace file with the rules of Go's parser" },
	{ "dump", cmd_dump, "print a trace's events in Go's merged order" },
	{ "stats", cmd_stats, "summarise a trace: threads, programs, CPUs, latency" },
	{ "pprof", cmd_pprof, "write a trace's CPU samples as a pprof CPU profile" },
	{ "split", cmd_split, "cut a Go 1.22+ trace into traces of whole generations" },
	{ "merge", cmd_merge, "join a Go program's own trace with what the kernel did to it" },
	{ "help", cmd_help, "show this help, or a command's help" },
};

#define NR_CMDS (sizeof(cmds) / sizeof(cmds[0]))

static const struct gt_cmd *find_cmd(const char *name)
{
	size_t i;

	for (i = 0; i < NR_CMDS; i++)
		if (!strcmp(cmds[i].name, name))
			return &cmds[i];
	return NULL;
}

static void help(void)
{
	size_t i;

	printf("Usage: %s [--help|--version] COMMAND [OPTIONS] [ARGS]\n"
	       "The Linux scheduler recorded as a Go execution trace.\n\n"
	       "Commands:\n", program_invocation_short_name);
	for (i = 0; i < NR_CMDS; i++)
		printf("  %-8s %s\n", cmds[i].name, cmds[i].help);
	printf("\n'%s COMMAND --help' describes a command. Exit status: 0 on success, 1 on\n"
	       "error (record: the status of the command it ran).\n",
	       program_invocation_short_name);
}

static int run_cmd(const struct gt_cmd *cmd, int argc, char *argv[])
{
	char name[64];

	/* getopt's own messages then start with "gotrace COMMAND:". */
	snprintf(name, sizeof(name), "%s %s", program_invocation_short_name, cmd->name);
	argv[0] = name;
	optind = 0;	/* glibc: restart getopt for the subcommand's own options */
	return cmd->fn(argc, argv);
}

static int cmd_help(int argc, char *argv[])
{
	const struct gt_cmd *cmd;
	char *cmd_argv[] = { NULL, "--help", NULL };

	if (argc < 2 || !strcmp(argv[1], "help")) {
		help();
		return EXIT_SUCCESS;
	}
	cmd = find_cmd(argv[1]);
	if (!cmd) {
		msg_err("help", "unknown command '%s': see '%s --help'", argv[1],
			program_invocation_short_name);
		return EXIT_FAILURE;
	}
	cmd_argv[0] = argv[1];
	return run_cmd(cmd, 2, cmd_argv);
}

int main(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ }
	};
	const struct gt_cmd *cmd;
	int c;

	/* '+': options after the command name belong to the command. */
	while ((c = getopt_long(argc, argv, "+hV", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			help();
			return EXIT_SUCCESS;
		case 'V':
			printf("%s %s\n", program_invocation_short_name, GOTRACE_VERSION);
			return EXIT_SUCCESS;
		default:
			fprintf(stderr, "Try '%s --help'.\n", program_invocation_short_name);
			return EXIT_FAILURE;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "%s: missing command: see '%s --help'\n",
			program_invocation_short_name, program_invocation_short_name);
		return EXIT_FAILURE;
	}
	cmd = find_cmd(argv[optind]);
	if (!cmd) {
		fprintf(stderr, "%s: unknown command '%s': see '%s --help'\n",
			program_invocation_short_name, argv[optind], program_invocation_short_name);
		return EXIT_FAILURE;
	}
	return run_cmd(cmd, argc - optind, argv + optind);
}
