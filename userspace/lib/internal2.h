/* SPDX-License-Identifier: GPL-2.0 */
/* libgtrace internals for Go 1.22+ traces (gtrace2.h), shared between its files. */
#ifndef GTRACE_INTERNAL2_H
#define GTRACE_INTERNAL2_H

#include "gtrace2.h"
#include "internal.h"

struct gt2_trace {
	const uint8_t *data;
	size_t size;
	bool mapped;
	int ver;
	uint64_t start;		/* the first event: the header's length */
};

/* wire2.c: the highest event type of @ver's table (Go's version.Specs()). */
unsigned int gt2_max_type(int ver);

#endif /* GTRACE_INTERNAL2_H */
