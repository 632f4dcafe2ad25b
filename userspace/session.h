/* SPDX-License-Identifier: GPL-2.0 */
/* The session ioctls and the options of gotrace start and record (cmd_session.c, cmd_status.c). */
#ifndef GOTRACE_SESSION_H
#define GOTRACE_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/gotrace.h>

/* The session ioctls; false after a message. */
bool session_start(const char *cmd, int fd, struct gotrace_start *args);
bool session_stop(const char *cmd, int fd, __u32 flags, bool idle_ok);
bool session_status(const char *cmd, int fd, struct gotrace_status *st);

/* What the options of start and record ask for. */
struct start_opts {
	struct gotrace_start args;
	int64_t flight_ns;		/* --flight; 0: a streaming trace */
	const char *flight_arg;		/* as given, for messages */
	const char *latency_arg;	/* --trigger-latency as given, or NULL */
	/* Filters (start_filter.c); filter_apply() points args at them. */
	uint32_t nr_tgids, nr_comms;
	int cgroup_fd;			/* --cgroup, or -1 */
	uint32_t tgids[GOTRACE_FILTER_TGIDS_MAX];
	char comms[GOTRACE_FILTER_COMMS_MAX][GOTRACE_FILTER_COMM_LEN];
};

/* A start_opts with nothing asked yet. */
#define START_OPTS_INIT { .args = { .size = sizeof(struct gotrace_start) }, .cgroup_fd = -1 }

/* The options start and record share; start_option() takes one of them. */
#define START_SHORTOPTS "f:b:t:kc:"
#define START_LONGOPTS \
	{ "flight", required_argument, NULL, 'F' }, \
	{ "continue", no_argument, NULL, 'C' }, \
	{ "format", required_argument, NULL, 'f' }, \
	{ "buffer-size", required_argument, NULL, 'b' }, \
	{ "max-tid", required_argument, NULL, 't' }, \
	{ "kernel-stacks", no_argument, NULL, 'k' }, \
	{ "clock", required_argument, NULL, 'c' }, \
	{ "gen-period", required_argument, NULL, 'P' }, \
	{ "gen-size", required_argument, NULL, 'G' }, \
	{ "trigger-latency", required_argument, NULL, 'L' }, \
	{ "pid", required_argument, NULL, 'I' }, \
	{ "comm", required_argument, NULL, 'N' }, \
	{ "cgroup", required_argument, NULL, 'R' }, \
	{ "descendants", no_argument, NULL, 'D' }, \
	{ "cpu-samples", required_argument, NULL, 'H' }
#define START_OPTIONS_HELP \
	"      --flight DURATION  a flight recorder keeping at least the last\n" \
	"                         DURATION (e.g. 10s): its buffers overwrite their\n" \
	"                         oldest data; formats 1.22 and later; without\n" \
	"                         --buffer-size, 1 s of recording\n" \
	"                         first sizes the buffers\n" \
	"      --continue         when the buffers run full, end the trace there and\n" \
	"                         start a new one once it is read (a file each)\n" \
	"      --trigger-latency L\n" \
	"                         with --flight: a latency trigger, which fires when\n" \
	"                         a thread waits longer than L (1ms to 60s) between\n" \
	"                         becoming runnable and running\n" \
	"  -f, --format VER       trace format: 1.22, 1.23, 1.25 or 1.26 (with\n" \
	"                         generations, read by that Go and later; the\n" \
	"                         default is 1.26), or 1.11, 1.19 or 1.21 (Go's\n" \
	"                         before 1.22, for Go 1.21 and before)\n" \
	"      --gen-period SECS  with generations: start one every SECS (default 1)\n" \
	"      --gen-size SIZE    with generations: also once a CPU wrote SIZE in one\n" \
	"                         (default: a quarter of the buffer)\n" \
	"  -b, --buffer-size SIZE buffer per CPU, with K, M or G suffix\n" \
	"                         (default: the module parameter buffer_size)\n" \
	"  -t, --max-tid N        thread ids the thread table covers, 28 bytes each\n" \
	"                         (default: /proc/sys/kernel/pid_max)\n" \
	"  -k, --kernel-stacks    block events carry the kernel stack where the\n" \
	"                         thread blocks (costs an unwind per block)\n" \
	"      --cpu-samples HZ   sample each CPU HZ times a second (1 to 10000):\n" \
	"                         CPUSample events with the kernel stack (kernel\n" \
	"                         stacks only), formats 1.19 and later; --flight\n" \
	"                         keeps each CPU's newest 2048 samples\n" \
	"  -c, --clock CLOCK      time stamps from: auto (the TSC if invariant and\n" \
	"                         the kernel trusts it, else mono; the default), mono\n" \
	"                         (CLOCK_MONOTONIC) or tsc (even if the kernel\n" \
	"                         has marked it unstable)\n" \
	"      --pid PID[,PID...] trace only the threads of these processes\n" \
	"      --cgroup DIR       trace only threads in this cgroup v2 directory or\n" \
	"                         below it (e.g. /sys/fs/cgroup/system.slice)\n" \
	"      --comm NAME[,NAME...]\n" \
	"                         trace only threads of these program names (comm)\n" \
	"      --descendants      with a filter: threads a traced thread creates are\n" \
	"                         traced too, and traced threads stay traced\n" \
	"                         (filters of different kinds must all admit a thread)\n"
bool start_option(const char *cmd, int c, const char *arg, struct start_opts *o);
/* After the options: --flight's format and flag, --trigger-latency's; false after a message. */
bool start_check(const char *cmd, struct start_opts *o);
/* start_filter.c: --pid, --comm, --cgroup, --descendants, and the lists into args. */
bool filter_option(const char *cmd, int c, const char *arg, struct start_opts *o);
void filter_apply(struct start_opts *o);

#endif /* GOTRACE_SESSION_H */
