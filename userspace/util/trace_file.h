/* SPDX-License-Identifier: GPL-2.0 */
/* The reader commands' input and output (trace_file.c). */
#ifndef GOTRACE_TRACE_FILE_H
#define GOTRACE_TRACE_FILE_H

#include "gtrace.h"

struct gt_trace *trace_open(const char *cmd, const char *path);
void trace_error(const char *cmd, const char *path, const struct gt_error *err);
const char *trace_path(const char *cmd, int argc, char *argv[]);
int output_done(const char *cmd, int ret);

#endif /* GOTRACE_TRACE_FILE_H */
