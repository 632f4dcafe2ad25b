// SPDX-License-Identifier: GPL-2.0
/* Messages on stderr, prefixed with the program and subcommand name. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

void msg_err(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s %s: ", program_invocation_short_name, cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* After a bad command line: point to --help and fail. */
int msg_usage(const char *cmd)
{
	fprintf(stderr, "Try '%s %s --help' for more information.\n",
		program_invocation_short_name, cmd);
	return EXIT_FAILURE;
}
