// SPDX-License-Identifier: GPL-2.0
/* Minimal TAP output: numbered results, diagnostics, the plan at the end. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "tap.h"

static unsigned int tests, failed;

bool tap_ok(bool pass, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %u - ", pass ? "" : "not ", ++tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	failed += !pass;
	return pass;
}

void tap_diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

int tap_done(void)
{
	printf("1..%u\n", tests);
	if (failed)
		tap_diag("%u of %u tests failed", failed, tests);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
