/* SPDX-License-Identifier: GPL-2.0 */
/* Snapshot requests: a program asks a flight recorder's reader for one (request.c). */
#ifndef _GOTRACE_REQUEST_H
#define _GOTRACE_REQUEST_H

#include <linux/sched.h>
#include <linux/types.h>
#include <linux/gotrace.h>

struct gotrace_dev;
struct gotrace_session;

/**
 * struct gotrace_req - a session's snapshot request
 * @pending:	a request waits for GOTRACE_TRIGGER; read locklessly by
 *		poll() and the trigger's waiters.
 * @listening:	a reader takes requests: it called GOTRACE_TRIGGER with
 *		GOTRACE_TRIGGER_SIZE_VER1 in this session. Until then
 *		nobody would, and a request is refused.
 * @last_ns:	CLOCK_MONOTONIC ns of the last request taken in.
 * @accepted:	requests taken in.
 * @tid:	the asking thread.
 * @tgid:	its process.
 * @uid:	its user id.
 * @comm:	its name.
 * @time_ns:	CLOCK_MONOTONIC ns when it asked.
 * @reason:	the reason, NUL-terminated.
 *
 * Written under gotrace_dev.lock (@pending with WRITE_ONCE), read there
 * but for @pending.
 */
struct gotrace_req {
	bool pending;
	bool listening;
	u64 last_ns;
	u64 accepted;
	u32 tid;
	u32 tgid;
	u32 uid;
	char comm[TASK_COMM_LEN];
	u64 time_ns;
	u8 reason[GOTRACE_REQUEST_REASON_MAX + 1];
};

int gotrace_req_post(struct gotrace_dev *dev, const u8 *reason, u32 len);
bool gotrace_req_take(struct gotrace_session *s, struct gotrace_trigger *out);
void gotrace_req_listen(struct gotrace_session *s);
bool gotrace_req_pending(struct gotrace_session *s);
bool gotrace_req_open(struct gotrace_session *s);

#endif /* _GOTRACE_REQUEST_H */
