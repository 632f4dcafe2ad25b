/* SPDX-License-Identifier: GPL-2.0 */
/* gotrace check and dump on Go 1.22+ traces: Go's parsed events (parsed.c). */
#ifndef GOTRACE_PARSED_H
#define GOTRACE_PARSED_H

#include <stdbool.h>
#include <stdint.h>

#include "tracev2.h"

/* The Go 1.22+ trace at @path, or NULL (silently) if it is not one. */
struct gt2_trace *parsed_open(const char *path);
/*
 * Reads every event of @t as Go's trace.Reader does, printing each (as 'go tool
 * trace -d=parsed') if @print; the count in *@events, the generations in *@gens.
 * On an invalid trace, prints Go's error and returns EXIT_FAILURE.
 */
int parsed_read(const char *cmd, const char *path, struct gt2_trace *t, bool print,
		uint64_t *events, uint64_t *gens);

#endif /* GOTRACE_PARSED_H */
