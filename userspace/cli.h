/* SPDX-License-Identifier: GPL-2.0 */
/* The gotrace command's subcommands (cmd_*.c), as gotrace.c dispatches them. */
#ifndef GOTRACE_CLI_H
#define GOTRACE_CLI_H

#ifndef GOTRACE_VERSION
#define GOTRACE_VERSION "0.1"
#endif

/* A subcommand: argv[0] is its name; returns EXIT_SUCCESS or EXIT_FAILURE. */
struct gt_cmd {
	const char *name;
	int (*fn)(int argc, char *argv[]);
	const char *help;
};

int cmd_start(int argc, char *argv[]);
int cmd_stop(int argc, char *argv[]);
int cmd_status(int argc, char *argv[]);
int cmd_check(int argc, char *argv[]);
int cmd_dump(int argc, char *argv[]);
int cmd_stats(int argc, char *argv[]);
int cmd_split(int argc, char *argv[]);
int cmd_pprof(int argc, char *argv[]);
int cmd_merge(int argc, char *argv[]);
int cmd_load(int argc, char *argv[]);
int cmd_unload(int argc, char *argv[]);
int cmd_record(int argc, char *argv[]);
int cmd_snapshot(int argc, char *argv[]);
int cmd_trigger(int argc, char *argv[]);
int cmd_service(int argc, char *argv[]);
int cmd_mark(int argc, char *argv[]);
int cmd_region(int argc, char *argv[]);

#endif /* GOTRACE_CLI_H */
