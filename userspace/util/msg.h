/* SPDX-License-Identifier: GPL-2.0 */
/* Messages: "gotrace CMD: message" on stderr, and usage hints (msg.c). */
#ifndef GOTRACE_MSG_H
#define GOTRACE_MSG_H

#include <stdarg.h>
#include <stdbool.h>

void msg_err(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void msg_verr(const char *cmd, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
int msg_usage(const char *cmd);
/* After the options: false, after a message and the usage hint, if an argument is left. */
bool msg_no_args(const char *cmd, int argc, char *argv[]);

#endif /* GOTRACE_MSG_H */
