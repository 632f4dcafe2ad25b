// SPDX-License-Identifier: GPL-2.0
/* Messages on stderr, prefixed with the program and subcommand name. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/msg.h"

void msg_verr(const char *cmd, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s %s: ", program_invocation_short_name, cmd);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void msg_err(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	msg_verr(cmd, fmt, ap);
	va_end(ap);
}

/* After a bad command line: point to --help and fail. */
int msg_usage(const char *cmd)
{
	fprintf(stderr, "Try '%s %s --help' for more information.\n",
		program_invocation_short_name, cmd);
	return EXIT_FAILURE;
}

bool msg_no_args(const char *cmd, int argc, char *argv[])
{
	if (optind >= argc)
		return true;
	msg_err(cmd, "unexpected argument '%s'", argv[optind]);
	msg_usage(cmd);
	return false;
}
