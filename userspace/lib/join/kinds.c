// SPDX-License-Identifier: GPL-2.0
/* The join's region types, by kind (join.h). */
#include <string.h>

#include "join.h"

static const char *const jn_kind_names[GT_JOIN_KINDS] = {
	[GT_JOIN_CPU_WAIT] = "kernel: waiting for a CPU",
	[GT_JOIN_THROTTLED] = "kernel: throttled",
	[GT_JOIN_BLOCKED] = "kernel: blocked in",
	[GT_JOIN_SYSCALL] = "kernel: syscall blocked in",
};

const char *gt_join_kind_name(enum gt_join_kind kind)
{
	return jn_kind_names[kind];
}

int gt_join_kind_of(const char *type, size_t len)
{
	size_t n;
	int k;

	for (k = 0; k < GT_JOIN_KINDS; k++) {
		n = strlen(jn_kind_names[k]);
		if (len == n && !memcmp(type, jn_kind_names[k], n))
			return k;
		/* "blocked in REASON": the name, a space, the reason. */
		if ((k == GT_JOIN_BLOCKED || k == GT_JOIN_SYSCALL) && len > n + 1 &&
		    !memcmp(type, jn_kind_names[k], n) && type[n] == ' ')
			return k;
	}
	return -1;
}
