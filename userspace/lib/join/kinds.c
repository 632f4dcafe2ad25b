// SPDX-License-Identifier: GPL-2.0
/* The join's region kinds (join.h) and the region types that name them. */
#include <string.h>

#include "join.h"

static const char *const kind_names[GT_JOIN_KINDS] = {
	[GT_JOIN_CPU_WAIT] = "kernel: waiting for a CPU",
	[GT_JOIN_THROTTLED] = "kernel: throttled",
	[GT_JOIN_BLOCKED] = "kernel: blocked in",
	[GT_JOIN_SYSCALL] = "kernel: syscall blocked in",
};

const char *gt_join_kind_name(enum gt_join_kind kind)
{
	return kind < GT_JOIN_KINDS ? kind_names[kind] : NULL;
}

/*
 * The waits are the whole type; the blocked kinds are their prefix, a space
 * and the reason ("kernel: blocked in page fault or kernel wait").
 */
int gt_join_kind_of(const char *type, size_t len)
{
	size_t n;
	int k;

	for (k = 0; k < GT_JOIN_KINDS; k++) {
		n = strlen(kind_names[k]);
		if (len < n || memcmp(type, kind_names[k], n))
			continue;
		if (k == GT_JOIN_CPU_WAIT || k == GT_JOIN_THROTTLED) {
			if (len == n)
				return k;
		} else if (len > n + 1 && type[n] == ' ') {
			return k;
		}
	}
	return -1;
}
