// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace service's log: one line per event on standard error. Under
 * systemd (JOURNAL_STREAM names it) each line starts with its priority,
 * "<3>" for LOG_ERR and so on, which the journal reads (sd-daemon(3));
 * in a terminal, "gotrace service: " instead.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <syslog.h>

#include "service/service.h"

void journal(int prio, const char *fmt, ...)
{
	va_list ap;

	if (getenv("JOURNAL_STREAM"))
		fprintf(stderr, "<%d>", LOG_PRI(prio));
	else
		fputs("gotrace service: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
}
