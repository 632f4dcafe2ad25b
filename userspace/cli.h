/* SPDX-License-Identifier: GPL-2.0 */
/* Declarations shared by the gotrace command and its subcommands. */
#ifndef GOTRACE_CLI_H
#define GOTRACE_CLI_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/gotrace.h>

#include "gtrace.h"

#ifndef GOTRACE_VERSION
#define GOTRACE_VERSION "0.1"
#endif

#define GOTRACE_DEVICE "/dev/gotrace"
#define GOTRACE_MODULE "gotrace"

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
int cmd_load(int argc, char *argv[]);
int cmd_unload(int argc, char *argv[]);
int cmd_record(int argc, char *argv[]);

/* msg.c: "gotrace CMD: message" on stderr. */
void msg_err(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void msg_verr(const char *cmd, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
int msg_usage(const char *cmd);

/* parse.c: option values; false (after a message) when @s is invalid. */
bool parse_size(const char *cmd, const char *opt, const char *s, uint64_t *out);
bool parse_u32(const char *cmd, const char *opt, const char *s, uint32_t *out);
bool parse_format(const char *cmd, const char *s, uint32_t *out);
bool parse_clock(const char *cmd, const char *s, uint32_t *flags);
bool parse_param(const char *cmd, const char *s);
bool parse_seconds(const char *cmd, const char *opt, const char *s, double *out);

/* device.c: /dev/gotrace for ioctls (write-only open, see the uapi header). */
int device_open(const char *cmd);
/* Explains an ioctl failure that no subcommand handles itself. */
void device_explain(const char *cmd, int err);
/* Is gotrace.ko loaded (/sys/module/gotrace)? */
bool device_module_loaded(void);
/* Waits up to @ms for /dev/gotrace after a load (udev may create it late). */
bool device_wait(int ms);

/* cmd_session.c, cmd_status.c: the session ioctls; false after a message. */
bool session_start(const char *cmd, int fd, struct gotrace_start *args);
bool session_stop(const char *cmd, int fd, __u32 flags, bool idle_ok);
bool session_status(const char *cmd, int fd, struct gotrace_status *st);

/* The options start and record share; start_option() takes one of them. */
#define START_SHORTOPTS "f:b:t:kc:"
#define START_LONGOPTS \
	{ "format", required_argument, NULL, 'f' }, \
	{ "buffer-size", required_argument, NULL, 'b' }, \
	{ "max-tid", required_argument, NULL, 't' }, \
	{ "kernel-stacks", no_argument, NULL, 'k' }, \
	{ "clock", required_argument, NULL, 'c' }
#define START_OPTIONS_HELP \
	"  -f, --format VER       trace format: 1.11, 1.19 or 1.21 (default 1.21)\n" \
	"  -b, --buffer-size SIZE buffer per CPU, with K, M or G suffix\n" \
	"                         (default: the module parameter buffer_size)\n" \
	"  -t, --max-tid N        thread ids the thread table covers, 24 bytes each\n" \
	"                         (default: /proc/sys/kernel/pid_max)\n" \
	"  -k, --kernel-stacks    block events carry the kernel stack where the\n" \
	"                         thread blocks (costs an unwind per block)\n" \
	"  -c, --clock CLOCK      time stamps from: auto (the TSC if invariant and\n" \
	"                         the kernel trusts it, else mono; the default), mono\n" \
	"                         (CLOCK_MONOTONIC) or tsc (even if the kernel\n" \
	"                         has marked it unstable)\n"
bool start_option(const char *cmd, int c, const char *arg, struct gotrace_start *args);

/*
 * module.c (libkmod) or module_none.c (static builds): load and unload
 * gotrace.ko. @path NULL means the module installed for the running kernel;
 * @params is "NAME=VALUE ..." or NULL. EXIT_SUCCESS, or EXIT_FAILURE after
 * a message naming cause and fix.
 */
int module_load(const char *cmd, const char *path, char *const params[], int nparams);
int module_remove(const char *cmd, int wait_ms);

/* trace_file.c: the reader commands' input and output. */
struct gt_trace *trace_open(const char *cmd, const char *path);
void trace_error(const char *cmd, const char *path, const struct gt_error *err);
const char *trace_path(const char *cmd, int argc, char *argv[]);
int output_done(const char *cmd, int ret);

#endif /* GOTRACE_CLI_H */
