// SPDX-License-Identifier: GPL-2.0
/* One workload for the ftrace oracle (ftrace_guest.sh) to record with gotrace and ftrace. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gotrace_util.h"
#include "workload.h"

#define PID_MAX		"/proc/sys/kernel/pid_max"
/* Linux allocates ids from RESERVED_PIDS up once they wrap; pid_max is at least one above. */
#define RESERVED_PIDS	300
/* Free ids left to the reuse storm: its two children, and one more. */
#define REUSE_FREE_IDS	3

/* Mark in @used (one byte per id below @n) every thread id that exists now. */
static void ids_in_use(unsigned char *used, unsigned long n)
{
	char path[300];
	struct dirent *p, *t;
	DIR *procs, *tasks;
	unsigned long id;

	procs = opendir("/proc");
	if (!procs)
		return;
	while ((p = readdir(procs))) {
		if (p->d_name[0] < '0' || p->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", p->d_name);
		tasks = opendir(path);
		if (!tasks)
			continue;
		while ((t = readdir(tasks))) {
			id = strtoul(t->d_name, NULL, 10);
			if (id && id < n)
				used[id] = 1;
		}
		closedir(tasks);
	}
	closedir(procs);
}

/*
 * The fork storm with thread id reuse: pid_max lowered so that only
 * REUSE_FREE_IDS ids are free from RESERVED_PIDS up (Linux's lowest pid_max
 * is RESERVED_PIDS + 1), restored afterwards.
 */
static int reuse(unsigned int forks)
{
	unsigned char used[4096] = { 0 };
	unsigned long old, max, free_ids = 0, failed;
	long reused;

	if (gt_read_ulong(PID_MAX, &old))
		return -1;
	ids_in_use(used, sizeof(used));
	for (max = RESERVED_PIDS; free_ids < REUSE_FREE_IDS && max < sizeof(used); max++)
		free_ids += !used[max];
	if (max <= RESERVED_PIDS)
		max = RESERVED_PIDS + 1;
	if (gt_write_ulong(PID_MAX, max))
		return -1;
	reused = gt_reuse_storm(forks, 2, &failed);
	if (gt_write_ulong(PID_MAX, old))
		return -1;
	printf("oracle_workload: reuse: pid_max %lu (was %lu), %lu free ids; %u forks, "
	       "%ld got an id an earlier child had, %lu failed or found no id\n",
	       max, old, free_ids, forks, reused, failed);
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
