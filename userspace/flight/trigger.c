// SPDX-License-Identifier: GPL-2.0
/*
 * A flight recorder's latency trigger and snapshot requests: GOTRACE_TRIGGER, its
 * failures, and a firing or a request in words.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "flight/flight.h"
#include "util/device.h"
#include "util/msg.h"

int trigger_take(int fd, __u32 flags, bool requests, struct gotrace_trigger *t)
{
	memset(t, 0, sizeof(*t));
	t->size = requests ? sizeof(*t) : GOTRACE_TRIGGER_SIZE_VER0;
	t->flags = flags;
	if (ioctl(fd, GOTRACE_TRIGGER, t))
		return errno;
	t->comm[sizeof(t->comm) - 1] = '\0';
	t->reason[sizeof(t->reason) - 1] = '\0';
	return 0;
}

void trigger_explain(const char *cmd, int err)
{
	if (err == EINVAL)
		msg_err(cmd, "no flight recorder with a latency trigger is recording: start one "
			"with gotrace start --flight D --trigger-latency L");
	else
		device_explain(cmd, err);
}

void trigger_describe(const struct gotrace_trigger *t, char *buf, size_t len)
{
	if (t->cause == GOTRACE_CAUSE_REQUEST)
		snprintf(buf, len, "thread %u (%s, process %u, user %u) asked for a snapshot: %s",
			 t->tid, (const char *)t->comm, t->tgid, t->uid, (const char *)t->reason);
	else
		snprintf(buf, len, "thread %u (%s, process %u) waited %.1f ms to run", t->tid,
			 (const char *)t->comm, t->tgid, t->wait_ns / 1e6);
}
