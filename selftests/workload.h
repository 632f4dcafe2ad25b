/* SPDX-License-Identifier: GPL-2.0 */
/* Scheduler workloads for the gotrace selftests to record. */
#ifndef WORKLOAD_H
#define WORKLOAD_H

#include <sys/types.h>

long gt_pingpong(unsigned long rounds, unsigned int max_ms);
int gt_tcp_pingpong(unsigned long rounds, unsigned int max_ms,
		    const char *client_name);
int gt_mutex_contend(unsigned int threads, unsigned long iters,
		     unsigned int max_ms);
int gt_sleepers(unsigned int threads, unsigned int sleeps, long ns);
/* Linux hands out ids from here up again once they wrap at pid_max. */
#define GT_RESERVED_PIDS	300

long gt_fork_storm(unsigned int forks, unsigned int parallel);
unsigned long gt_tight_pid_max(unsigned int free);
int gt_pipe_timer(unsigned int ticks, long ns, const char *timer_name);
int gt_hogs(unsigned int threads, unsigned int ms);
long gt_reuse_storm(unsigned int forks, unsigned int parallel,
		    unsigned long *failed);

/* Fork/exec/exit loops, one per online CPU, until gt_storm_stop(). */
struct gt_storm_shared;

struct gt_storm {
	unsigned int nr;		/* processes, one per CPU */
	pid_t pids[64];
	struct gt_storm_shared *shared;	/* their counters */
};

int gt_storm_start(struct gt_storm *s);
unsigned long gt_storm_forks(const struct gt_storm *s);
int gt_storm_stop(struct gt_storm *s, unsigned long *forks,
		  unsigned long *failures);

pid_t gt_spawn(const char *name, int (*fn)(void *arg), void *arg);
int gt_reap(pid_t pid);

#endif /* WORKLOAD_H */
