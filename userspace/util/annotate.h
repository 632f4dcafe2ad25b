/* SPDX-License-Identifier: GPL-2.0 */
/* /dev/gotrace-annotate for mark, region and snapshot --reason (annotate.c). */
#ifndef GOTRACE_UTIL_ANNOTATE_H
#define GOTRACE_UTIL_ANNOTATE_H

/* The device, open for writing, or -1 after saying why it cannot be opened. */
int annotate_open(const char *cmd);

#endif /* GOTRACE_UTIL_ANNOTATE_H */
