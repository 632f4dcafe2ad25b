// SPDX-License-Identifier: GPL-2.0
/* Reporting a reader's error: where (phase and file offset) and what, in words. */
#include <stdarg.h>
#include <stdio.h>

#include "common.h"

void gt_fail(struct gt_error *err, enum gt_phase phase, uint64_t off, const char *fmt, ...)
{
	va_list ap;

	err->phase = phase;
	err->off = off;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}
