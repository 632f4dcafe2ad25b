// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace service's hook: "sh -c HOOK" for each snapshot, in a session of
 * its own, its standard input /dev/null and its output the service's (the
 * journal), the snapshot's facts in its environment (GOTRACE_FILE and more,
 * service.c). At most hook-max run at once; the others wait in a queue of
 * HOOK_QUEUE, beyond which a snapshot's hook is dropped (its file stays).
 * One still running after hook-timeout gets SIGTERM, and SIGKILL
 * HOOK_GRACE seconds later, its whole process group.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "record/record.h"
#include "service/service.h"

#define HOOK_QUEUE	16
#define HOOK_GRACE	5.0
#define HOOK_ENV_MAX	24
#define NO_DEADLINE	86400.0

/* A snapshot's hook: its file and facts. */
struct hook_job {
	char *path;
	char *env[HOOK_ENV_MAX + 1];
};

struct hook_run {
	pid_t pid;			/* 0: a free slot */
	struct hook_job job;
	double deadline;		/* monotonic seconds: SIGTERM, then SIGKILL */
	bool termed;
};

static void job_free(struct hook_job *j)
{
	unsigned int i;

	free(j->path);
	for (i = 0; j->env[i]; i++)
		free(j->env[i]);
	memset(j, 0, sizeof(*j));
}

/* A copy of @path and @env in @j; false if out of memory. */
static bool job_copy(struct hook_job *j, const char *path, char *const env[])
{
	unsigned int i;

	memset(j, 0, sizeof(*j));
	j->path = strdup(path);
	for (i = 0; j->path && env[i] && i < HOOK_ENV_MAX; i++) {
		j->env[i] = strdup(env[i]);
		if (!j->env[i])
			break;
	}
	if (j->path && (!env[i] || i == HOOK_ENV_MAX))
		return true;
	job_free(j);
	return false;
}

bool hooks_init(struct hooks *h, const struct service_config *cfg)
{
	memset(h, 0, sizeof(*h));
	h->cfg = cfg;
	h->nr_runs = cfg->hook_max;
	h->runs = calloc(h->nr_runs, sizeof(*h->runs));
	h->queue = calloc(HOOK_QUEUE, sizeof(*h->queue));
	if (h->runs && h->queue)
		return true;
	journal(LOG_ERR, "out of memory for %u hooks", cfg->hook_max);
	hooks_free(h);
	return false;
}

/* The child: its own process group, no input, the facts, then sh -c HOOK. */
static void hook_exec(const char *hook, const struct hook_job *j)
{
	unsigned int i;
	int fd;

	setsid();
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		dup2(fd, STDIN_FILENO);
	for (i = 0; j->env[i]; i++)
		putenv(j->env[i]);
	execl("/bin/sh", "sh", "-c", hook, (char *)NULL);
	fprintf(stderr, "gotrace service: cannot run /bin/sh for the hook: %s\n",
		strerror(errno));
	_exit(127);
}

/* Starts @j in free slot @r; false (the job freed) if fork() failed. */
static bool hook_start(struct hooks *h, struct hook_run *r, struct hook_job *j)
{
	sigset_t all, old;
	pid_t pid;

	/* The service blocks its signals for its signalfd: the hook gets them back. */
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	pid = fork();
	if (!pid) {
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		hook_exec(h->cfg->hook, j);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (pid < 0) {
		journal(LOG_ERR, "cannot run the hook for %s: fork: %s", j->path, strerror(errno));
		h->failed++;
		job_free(j);
		return false;
	}
	r->pid = pid;
	r->job = *j;
	memset(j, 0, sizeof(*j));
	r->deadline = now_seconds() + h->cfg->hook_timeout_ns / 1e9;
	r->termed = false;
	h->started++;
	journal(LOG_INFO, "hook started for %s (process %d)", r->job.path, (int)pid);
	return true;
}

static struct hook_run *free_slot(struct hooks *h)
{
	unsigned int i;

	for (i = 0; i < h->nr_runs; i++)
		if (!h->runs[i].pid)
			return &h->runs[i];
	return NULL;
}

void hooks_run(struct hooks *h, const char *path, char *const env[])
{
	struct hook_run *r = free_slot(h);
	struct hook_job j;

	if (!h->cfg->hook)
		return;
	if (!job_copy(&j, path, env)) {
		journal(LOG_ERR, "out of memory: no hook for %s", path);
		h->dropped++;
		return;
	}
	if (r) {
		hook_start(h, r, &j);
		return;
	}
	if (h->queued == HOOK_QUEUE) {
		journal(LOG_WARNING, "no hook for %s: %u hooks run (hook-max) and %d wait; the "
			"file stays", path, h->nr_runs, HOOK_QUEUE);
		h->dropped++;
		job_free(&j);
		return;
	}
	h->queue[h->queued++] = j;
}

/* How hook @r ended, from its wait status. */
static void hook_ended(struct hooks *h, struct hook_run *r, int status)
{
	if (WIFEXITED(status) && !WEXITSTATUS(status)) {
		journal(LOG_INFO, "hook for %s exited 0", r->job.path);
	} else if (WIFEXITED(status)) {
		h->failed++;
		journal(LOG_WARNING, "hook for %s failed: exit status %d; the file stays",
			r->job.path, WEXITSTATUS(status));
	} else {
		h->failed++;
		journal(LOG_WARNING, "hook for %s %s by signal %d (%s); the file stays",
			r->job.path, r->termed ? "killed after hook-timeout" : "killed",
			WTERMSIG(status), strsignal(WTERMSIG(status)));
	}
	job_free(&r->job);
	r->pid = 0;
}

void hooks_reap(struct hooks *h)
{
	struct hook_run *r;
	unsigned int i;
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
		for (i = 0; i < h->nr_runs; i++)
			if (h->runs[i].pid == pid)
				hook_ended(h, &h->runs[i], status);
	while (h->queued && (r = free_slot(h))) {
		struct hook_job j = h->queue[0];

		memmove(h->queue, h->queue + 1, --h->queued * sizeof(*h->queue));
		hook_start(h, r, &j);
	}
}

double hooks_tick(struct hooks *h, double now)
{
	double next = NO_DEADLINE;
	struct hook_run *r;
	unsigned int i;

	for (i = 0; i < h->nr_runs; i++) {
		r = &h->runs[i];
		if (!r->pid)
			continue;
		if (now >= r->deadline) {
			journal(LOG_WARNING, "hook for %s still runs after %s: %s", r->job.path,
				r->termed ? "SIGTERM" : "hook-timeout",
				r->termed ? "SIGKILL" : "SIGTERM");
			kill(-r->pid, r->termed ? SIGKILL : SIGTERM);
			if (r->termed)
				h->killed++;
			r->termed = true;
			r->deadline = now + HOOK_GRACE;
		}
		if (r->deadline - now < next)
			next = r->deadline - now;
	}
	return next;
}

static bool hooks_running(const struct hooks *h)
{
	unsigned int i;

	for (i = 0; i < h->nr_runs; i++)
		if (h->runs[i].pid)
			return true;
	return false;
}

void hooks_finish(struct hooks *h)
{
	struct timespec pause = { .tv_nsec = 50000000 };

	while (h->queued)
		job_free(&h->queue[--h->queued]);
	while (hooks_running(h)) {
		hooks_tick(h, now_seconds());
		nanosleep(&pause, NULL);
		hooks_reap(h);
	}
}

bool hooks_resize(struct hooks *h, const struct service_config *cfg)
{
	struct hook_run *runs = calloc(cfg->hook_max, sizeof(*runs));

	if (!runs) {
		journal(LOG_ERR, "out of memory for %u hooks: hook-max stays %u", cfg->hook_max,
			h->nr_runs);
		return false;
	}
	free(h->runs);
	h->runs = runs;
	h->nr_runs = cfg->hook_max;
	h->cfg = cfg;
	return true;
}

void hooks_free(struct hooks *h)
{
	unsigned int i;

	for (i = 0; h->runs && i < h->nr_runs; i++)
		job_free(&h->runs[i].job);
	while (h->queue && h->queued)
		job_free(&h->queue[--h->queued]);
	free(h->runs);
	free(h->queue);
	h->runs = NULL;
	h->queue = NULL;
}
