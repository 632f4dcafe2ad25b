/* SPDX-License-Identifier: GPL-2.0 */
/* Scheduler workloads for the gotrace selftests to record. */
#ifndef WORKLOAD_H
#define WORKLOAD_H

long gt_pingpong(unsigned long rounds, unsigned int max_ms);
int gt_mutex_contend(unsigned int threads, unsigned long iters);
int gt_sleepers(unsigned int threads, unsigned int sleeps, long ns);
long gt_fork_storm(unsigned int forks, unsigned int parallel);

#endif /* WORKLOAD_H */
