/* SPDX-License-Identifier: GPL-2.0 */
/* The files traces are written to: record's and the snapshots' (record/output.c). */
#ifndef GOTRACE_OUTPUT_H
#define GOTRACE_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>

/* A regular file at @path becomes @path.old, replacing an older one; false after a message. */
bool output_keep_old(const char *cmd, const char *path);
/* All of @buf to @fd; false with errno set. */
bool output_write_all(int fd, const void *buf, size_t len);

#endif /* GOTRACE_OUTPUT_H */
