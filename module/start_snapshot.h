/* SPDX-License-Identifier: GPL-2.0 */
/* The start snapshot: every live thread, with every CPU stopped (start_snapshot.c). */
#ifndef _GOTRACE_START_SNAPSHOT_H
#define _GOTRACE_START_SNAPSHOT_H

struct gotrace_session;

int gotrace_snapshot(struct gotrace_session *s);

#endif /* _GOTRACE_START_SNAPSHOT_H */
