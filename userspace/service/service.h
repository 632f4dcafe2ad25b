/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gotrace service: the flight recorder as a system service. Its
 * configuration file (config.c), the snapshot directory (store.c), the hook
 * run for each snapshot (hook.c), the journal (journal.c) and the loop that
 * ties them to the device (service.c).
 */
#ifndef GOTRACE_SERVICE_H
#define GOTRACE_SERVICE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <linux/gotrace.h>

#include "flight/flight.h"
#include "session.h"

#define SERVICE_CONFIG	"/etc/gotrace/flight.conf"
#define SERVICE_DIR	"/var/lib/gotrace"

/* What the configuration file sets; config_init() gives the defaults. */
struct service_config {
	char *path;			/* the file it was read from */
	struct start_opts start;	/* the flight recorder; flight_ns: the window */
	int64_t after_ns;		/* trigger-after: from a firing to its snapshot */
	int64_t every_ns;		/* trigger-every: from a firing to re-arming */
	int64_t request_every_ns;	/* request-every: between snapshots asked for */
	int64_t fleet_ns;		/* fleet-period: 0, or a snapshot at each multiple */
	char *directory;
	uint32_t keep_count;		/* keep-count: most files kept */
	uint64_t keep_bytes;		/* keep-size: most bytes kept */
	int64_t keep_age_ns;		/* keep-age: oldest file kept; 0: any */
	uint64_t min_free_bytes;	/* min-free: the file system keeps this free... */
	uint32_t min_free_pct;		/* ...or this percentage of it, if set */
	char *hook;			/* run with sh -c for each snapshot; NULL: none */
	int64_t hook_timeout_ns;	/* a hook still running then is killed */
	uint32_t hook_max;		/* hooks running at once */
};

void config_init(struct service_config *cfg);
/* Reads @path into @cfg (defaults first); false after a message naming the line. */
bool config_load(struct service_config *cfg, const char *path);
void config_free(struct service_config *cfg);
/* Do @a and @b start the same flight recorder? */
bool config_same_session(const struct service_config *a, const struct service_config *b);
/* The configuration, one "key = value" line each, as the file would say it. */
void config_print(const struct service_config *cfg);

/* Why a snapshot was taken: the first word of its file name's cause. */
enum cause_kind {
	CAUSE_LATENCY,	/* the latency trigger fired */
	CAUSE_REQUEST,	/* asked for: GOTRACE_REQUEST, SIGUSR1, or gotrace snapshot */
	CAUSE_FLEET,	/* fleet-period: a multiple of the wall clock */
	CAUSE_RESTART,	/* a flight recorder found recording at start */
};

struct snap_cause {
	enum cause_kind kind;
	struct gotrace_trigger trig;	/* CAUSE_LATENCY: who waited */
	pid_t pid;			/* CAUSE_REQUEST: who asked (0: not known) */
	uid_t uid;
	char comm[16];			/* CAUSE_REQUEST: its name, if it said why */
	char reason[64];		/* CAUSE_REQUEST: why, or "" */
	int64_t period_ns;		/* CAUSE_FLEET: fleet-period */
	struct timespec when;		/* CLOCK_REALTIME of the cause */
};

/* The snapshot directory (store.c). */
struct store {
	const struct service_config *cfg;
	char host[64];			/* the host name, as file names carry it */
	uint64_t removed;		/* files removed by retention */
};

/* Makes the directory (0750) if needed and removes half-written files; false after a message. */
bool store_open(struct store *st, const struct service_config *cfg);
/* The path of a snapshot for @c: DIR/TIME_HOST_CAUSE.trace, allocated; NULL if out of memory. */
char *store_path(const struct store *st, const struct snap_cause *c);
/*
 * Makes room for @bytes more under the free-space floor by removing the oldest
 * snapshots; false (after a log line) if even none left would not do.
 */
bool store_make_room(struct store *st, uint64_t bytes);
/* Removes the oldest snapshots beyond keep-count, keep-size and keep-age, each logged. */
void store_retain(struct store *st);

/* The hooks (hook.c): at most hook-max at once, the rest queued. */
struct hook_run;
struct hooks {
	const struct service_config *cfg;
	struct hook_run *runs;		/* hook-max slots */
	unsigned int nr_runs;
	struct hook_job *queue;		/* waiting for a slot, oldest first */
	unsigned int queued;
	uint64_t started, failed, killed, dropped;
};

bool hooks_init(struct hooks *h, const struct service_config *cfg);
/* Runs the hook for snapshot @path (or queues it): @env are its NAME=VALUE facts. */
void hooks_run(struct hooks *h, const char *path, char *const env[]);
/* Takes the hooks that ended (SIGCHLD), logs how, starts queued ones. */
void hooks_reap(struct hooks *h);
/* Kills the hooks past their time; seconds to the next deadline (a day if none). */
double hooks_tick(struct hooks *h, double now);
/* Waits for the running hooks (killing them at their time); drops the queue. */
void hooks_finish(struct hooks *h);
/* The hooks' slots, after hooks_finish(), and a new hook-max. */
bool hooks_resize(struct hooks *h, const struct service_config *cfg);
void hooks_free(struct hooks *h);

/* The journal (journal.c): a line with its syslog priority, LOG_*. */
void journal(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* service.c: runs until SIGTERM; the exit status. */
int service_run(const char *config_path);

#endif /* GOTRACE_SERVICE_H */
