// SPDX-License-Identifier: GPL-2.0
/*
 * stall_helper MS [COUNT [GAP_MS]]: a scheduling stall for the latency trigger
 * of gotrace record --trigger-latency (selftests/cli_guest.sh), made by
 * stall.c: the victim gt-victim on CPU 0, and COUNT times (default 1) a hog
 * spinning MS ms in front of it, GAP_MS (default 1000) apart. Prints the
 * victim's thread id; exit status 1 if a thread cannot be pinned or made
 * real-time.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stall.h"

int main(int argc, char *argv[])
{
	double ms = argc > 1 ? atof(argv[1]) : 0;
	int count = argc > 2 ? atoi(argv[2]) : 1, gap = argc > 3 ? atoi(argv[3]) : 1000, i;
	struct gt_victim v;
	int err = 0, verr;

	if (ms <= 0 || count < 1 || gap < 0) {
		fprintf(stderr, "usage: %s MS [COUNT [GAP_MS]]\n", argv[0]);
		return 2;
	}
	if (gt_victim_start(&v))
		return 1;
	printf("victim %d\n", gt_victim_tid(&v));
	fflush(stdout);
	usleep(100000);
	for (i = 0; i < count && !err; i++) {
		if (i)
			usleep(gap * 1000);
		err = gt_stall((unsigned long)ms);
	}
	verr = gt_victim_stop(&v);
	if (verr || err) {
		fprintf(stderr, "stall_helper: cannot run on CPU 0 at SCHED_FIFO: %s\n",
			strerror(verr ? verr : err));
		return 1;
	}
	return 0;
}
