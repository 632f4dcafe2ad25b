/* SPDX-License-Identifier: GPL-2.0 */
/* gotrace dump --wire: a Go 1.22+ trace as encoded (dump_wire.c). */
#ifndef GOTRACE_DUMP_WIRE_H
#define GOTRACE_DUMP_WIRE_H

/* Prints every event of the trace at @path; EXIT_SUCCESS or EXIT_FAILURE. */
int dump_wire(const char *path);

#endif /* GOTRACE_DUMP_WIRE_H */
