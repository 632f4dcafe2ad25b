/* SPDX-License-Identifier: GPL-2.0 */
/* Declarations shared by the gotrace command and its subcommands. */
#ifndef GOTRACE_CLI_H
#define GOTRACE_CLI_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "gtrace.h"

#ifndef GOTRACE_VERSION
#define GOTRACE_VERSION "0.1"
#endif

#define GOTRACE_DEVICE "/dev/gotrace"

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

/* msg.c: "gotrace CMD: message" on stderr. */
void msg_err(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int msg_usage(const char *cmd);

/* parse.c: option values; false (after a message) when @s is invalid. */
bool parse_size(const char *cmd, const char *opt, const char *s, uint64_t *out);
bool parse_u32(const char *cmd, const char *opt, const char *s, uint32_t *out);
bool parse_format(const char *cmd, const char *s, uint32_t *out);

/* device.c: /dev/gotrace for ioctls (write-only open, see the uapi header). */
int device_open(const char *cmd);
/* Explains an ioctl failure that no subcommand handles itself. */
void device_explain(const char *cmd, int err);

/* trace_file.c: the reader commands' input and output. */
struct gt_trace *trace_open(const char *cmd, const char *path);
void trace_error(const char *cmd, const char *path, const struct gt_error *err);
const char *trace_path(const char *cmd, int argc, char *argv[]);
int output_done(const char *cmd, int ret);

#endif /* GOTRACE_CLI_H */
