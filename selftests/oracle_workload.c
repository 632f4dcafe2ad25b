// SPDX-License-Identifier: GPL-2.0
/* One workload for the ftrace oracle (ftrace_guest.sh) to record with gotrace and ftrace. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gotrace_util.h"
#include "workload.h"

#define PID_MAX		"/proc/sys/kernel/pid_max"
/* Free ids left to the reuse storm: its two children, and one more. */
#define REUSE_FREE_IDS	3

/*
 * The fork storm with thread id reuse: pid_max lowered so that only
 * REUSE_FREE_IDS ids are free from GT_RESERVED_PIDS up, restored afterwards.
 */
static int reuse(unsigned int forks)
{
	unsigned long old, max, failed;
	long reused;

	if (gt_read_ulong(PID_MAX, &old))
		return -1;
	max = gt_tight_pid_max(REUSE_FREE_IDS);
	if (!max || gt_write_ulong(PID_MAX, max))
		return -1;
	reused = gt_reuse_storm(forks, 2, &failed);
	if (gt_write_ulong(PID_MAX, old))
		return -1;
	printf("oracle_workload: reuse: pid_max %lu (was %lu), %d free ids; %u forks, "
	       "%ld got an id an earlier child had, %lu failed or found no id\n",
	       max, old, REUSE_FREE_IDS, forks, reused, failed);
	return reused > 0 ? 0 : -1;
}

int main(int argc, char *argv[])
{
	const char *w = argc == 2 ? argv[1] : "";
	int ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(w, "pingpong"))
		ret = gt_pingpong(2000, 5000) > 0 ? 0 : -1;
	else if (!strcmp(w, "mutex"))
		ret = gt_mutex_contend(4, 1000, 5000);
	else if (!strcmp(w, "sleepers"))
		ret = gt_sleepers(4, 40, 1000000);
	else if (!strcmp(w, "tcp"))
		ret = gt_tcp_pingpong(1000, 5000, "oracle-tcp-cli");
	else if (!strcmp(w, "reuse"))
		ret = reuse(300);
	else {
		fprintf(stderr, "usage: %s pingpong|mutex|sleepers|tcp|reuse\n", argv[0]);
		return 2;
	}
	if (ret)
		perror("oracle_workload");
	return ret ? 1 : 0;
}
