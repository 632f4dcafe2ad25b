// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace service: a flight recorder that runs unattended. It reads
 * /dev/gotrace for as long as it runs, so that every snapshot is its to
 * write: its latency trigger's (trigger-after past the firing, re-armed
 * trigger-every after it), fleet-period's (at each multiple of the wall
 * clock), those programs ask for with a reason (GOTRACE_REQUEST, which
 * GOTRACE_TRIGGER hands out with the firings) and SIGUSR1 (at most one per
 * request-every), and those another program takes (gotrace snapshot). Each becomes a file
 * in the snapshot directory (store.c), then the hook runs (hook.c).
 *
 * A flight recorder already recording when it starts is what a service
 * that died left (or gotrace start --flight): its snapshot is kept, with
 * cause "restart", before the configured one starts; so a restart leaves
 * one session and loses none of what led to it. SIGHUP reads the
 * configuration again: a new flight recorder starts only if its keys
 * changed. SIGTERM ends the snapshot being written, then the recorder.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "record/record.h"
#include "service/service.h"
#include "util/device.h"

#define CMD		"service"
#define COPY_SIZE	(1 << 20)
#define NO_STEP		86400.0
#define TICK		5.0		/* seconds between polls when nothing is due */
/* A snapshot's file beyond its batches: header, string and stack tables. */
#define FILE_SLACK	(1 << 20)
#define MIB		(1024.0 * 1024.0)

/* The latency trigger, as record's (flight/record_trigger.c). */
enum trig_state { TRIG_NONE, TRIG_WAIT, TRIG_FIRED, TRIG_RESTING };

struct service {
	struct service_config cfg;
	struct store store;
	struct hooks hooks;
	int ctl_fd, rd_fd, sig_fd;
	char *buf;
	bool recording;			/* our flight recorder runs */
	bool stopping, reload;
	bool failed;			/* ended by an error */

	enum trig_state trig;
	bool listening;			/* poll() for POLLPRI: firings and requests */
	struct gotrace_trigger fired;	/* the last firing */
	double fired_at;		/* its monotonic seconds */

	bool in_snap;			/* reading a snapshot */
	bool keep;			/* ...into @file (else dropped: no room) */
	struct gotrace_snapshot snap;	/* what GOTRACE_SNAPSHOT said; bytes 0: not ours */
	struct snap_cause cause;
	struct snap_file file;
	char *path;

	bool want;			/* a snapshot asked for, not taken yet */
	struct snap_cause wanted;
	double last_request;		/* monotonic seconds of the last one taken */
	double next_fleet;		/* monotonic seconds; 0: none */
	uint64_t snapshots;
};

static struct timespec wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts;
}

/* The next multiple of fleet-period of the wall clock, as monotonic seconds. */
static void fleet_plan(struct service *s)
{
	struct timespec w = wall_now();
	int64_t period = s->cfg.fleet_ns, now_ns, next_ns;

	if (!period) {
		s->next_fleet = 0;
		return;
	}
	now_ns = (int64_t)w.tv_sec * 1000000000LL + w.tv_nsec;
	next_ns = (now_ns / period + 1) * period;
	s->next_fleet = now_seconds() + (next_ns - now_ns) / 1e9;
}

/* --- the flight recorder ------------------------------------------------------------- */

/* A program's request (GOTRACE_REQUEST): a snapshot, at most one per request-every. */
static void want_request(struct service *s, const struct gotrace_trigger *t)
{
	char what[192];

	trigger_describe(t, what, sizeof(what));
	journal(LOG_NOTICE, "%s", what);
	if (s->want) {
		journal(LOG_INFO, "a snapshot is waiting already (request-every): this request "
			"goes with it");
		return;
	}
	s->want = true;
	s->wanted = (struct snap_cause){ .kind = CAUSE_REQUEST, .pid = (pid_t)t->tgid,
					 .uid = t->uid, .when = wall_now() };
	snprintf(s->wanted.comm, sizeof(s->wanted.comm), "%s", (const char *)t->comm);
	snprintf(s->wanted.reason, sizeof(s->wanted.reason), "%s", (const char *)t->reason);
}

/*
 * Takes what waits, a request or the trigger's firing, and arms the trigger
 * (unless @noarm, or it has none) if nothing did.
 */
static void latency_take(struct service *s, bool noarm)
{
	bool latency = s->cfg.start.args.latency_ns;
	struct gotrace_trigger t;
	int err;

	noarm |= !latency;
	err = trigger_take(s->ctl_fd, GOTRACE_TRIGGER_NOWAIT | (noarm ? GOTRACE_TRIGGER_NOARM : 0),
			   true, &t);
	if (err == EAGAIN) {
		if (!noarm)
			s->trig = TRIG_WAIT;
		return;
	}
	if (err) {
		s->trig = TRIG_NONE;
		s->listening = false;
		trigger_explain(CMD, err);
		journal(LOG_ERR, "the latency trigger and requests are off until the service "
			"restarts");
		return;
	}
	if (t.cause == GOTRACE_CAUSE_REQUEST) {
		want_request(s, &t);
		return;
	}
	s->fired = t;
	s->fired_at = t.time_ns / 1e9;
	s->trig = TRIG_FIRED;
	journal(LOG_NOTICE, "latency trigger: thread %u (%s, process %u) waited %.1f ms to run",
		t.tid, (const char *)t.comm, t.tgid, t.wait_ns / 1e6);
}

/* Arms the trigger; the first call also tells the kernel that requests are taken. */
static void latency_arm(struct service *s)
{
	s->listening = true;
	latency_take(s, false);
}

static bool recorder_start(struct service *s)
{
	struct gotrace_start args = s->cfg.start.args;

	if (!session_start(CMD, s->ctl_fd, &args)) {
		journal(LOG_ERR, "the flight recorder did not start: see the line above");
		return false;
	}
	s->recording = true;
	latency_arm(s);
	fleet_plan(s);
	journal(LOG_NOTICE, "recording: a flight recorder of %.3g s, %" PRIu64 " KiB per CPU, "
		"format 1.%u, latency trigger %s; snapshots in %s", s->cfg.start.flight_ns / 1e9,
		(uint64_t)args.buffer_size / 1024, args.format,
		args.latency_ns ? "on" : "off", s->cfg.directory);
	return true;
}

/* Reads the reader to end of file, dropping what it reads; false on an error. */
static bool recorder_drain(struct service *s)
{
	struct pollfd p = { .fd = s->rd_fd, .events = POLLIN };
	ssize_t n;

	for (;;) {
		n = read(s->rd_fd, s->buf, COPY_SIZE);
		if (!n)
			return true;
		if (n > 0)
			continue;
		if (errno != EAGAIN && errno != EINTR) {
			journal(LOG_ERR, "reading %s failed: %s", GOTRACE_DEVICE, strerror(errno));
			return false;
		}
		poll(&p, 1, 1000);
	}
}

/* Stops our flight recorder (NOWAIT) and reads its end. */
static void recorder_stop(struct service *s)
{
	if (!s->recording)
		return;
	s->recording = false;
	s->trig = TRIG_NONE;
	s->listening = false;
	if (session_stop(CMD, s->ctl_fd, GOTRACE_STOP_NOWAIT, true))
		recorder_drain(s);
}

/* --- snapshots -------------------------------------------------------------------------- */

/* NAME=VALUE into @env[*n]; silently short of memory (the hook gets fewer facts). */
static void env_add(char **env, unsigned int *n, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void env_add(char **env, unsigned int *n, const char *name, const char *fmt, ...)
{
	char value[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(value, sizeof(value), fmt, ap);
	va_end(ap);
	if (asprintf(&env[*n], "%s=%s", name, value) >= 0)
		(*n)++;
}

static const char *const cause_names[] = {
	[CAUSE_LATENCY] = "latency", [CAUSE_REQUEST] = "request",
	[CAUSE_FLEET] = "fleet", [CAUSE_RESTART] = "restart",
};

/* The snapshot's facts for the hook, then the hook. */
static void snap_hook(struct service *s)
{
	const struct snap_cause *c = &s->cause;
	char *env[24] = { NULL }, when[32];
	unsigned int n = 0;
	struct tm tm;

	gmtime_r(&c->when.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	env_add(env, &n, "GOTRACE_FILE", "%s", s->path);
	env_add(env, &n, "GOTRACE_CAUSE", "%s", cause_names[c->kind]);
	env_add(env, &n, "GOTRACE_HOST", "%s", s->store.host);
	env_add(env, &n, "GOTRACE_TIME", "%s.%03ldZ", when, c->when.tv_nsec / 1000000);
	env_add(env, &n, "GOTRACE_BYTES", "%" PRIu64, s->file.bytes);
	if (s->snap.bytes) {
		env_add(env, &n, "GOTRACE_WINDOW_NS", "%" PRIu64, (uint64_t)s->snap.span_ns);
		env_add(env, &n, "GOTRACE_GENERATIONS", "%" PRIu64, (uint64_t)s->snap.generations);
	}
	if (c->kind == CAUSE_LATENCY) {
		env_add(env, &n, "GOTRACE_TID", "%u", c->trig.tid);
		env_add(env, &n, "GOTRACE_PID", "%u", c->trig.tgid);
		env_add(env, &n, "GOTRACE_COMM", "%s", (const char *)c->trig.comm);
		env_add(env, &n, "GOTRACE_WAIT_NS", "%" PRIu64, (uint64_t)c->trig.wait_ns);
	}
	if (c->kind == CAUSE_REQUEST && c->pid) {
		env_add(env, &n, "GOTRACE_REQUEST_PID", "%d", (int)c->pid);
		env_add(env, &n, "GOTRACE_REQUEST_UID", "%u", (unsigned int)c->uid);
	}
	if (c->kind == CAUSE_REQUEST && c->reason[0]) {
		env_add(env, &n, "GOTRACE_REQUEST_COMM", "%s", c->comm);
		env_add(env, &n, "GOTRACE_REASON", "%s", c->reason);
	}
	if (c->kind == CAUSE_FLEET)
		env_add(env, &n, "GOTRACE_FLEET_PERIOD_NS", "%" PRId64, c->period_ns);
	hooks_run(&s->hooks, s->path, env);
	while (n)
		free(env[--n]);
}

/* The file for the snapshot that begins (of @bytes, 0 if not known), or none if no room. */
static void snap_begin(struct service *s, uint64_t bytes)
{
	s->in_snap = true;
	s->keep = false;
	free(s->path);
	s->path = NULL;
	if (!store_make_room(&s->store, bytes + FILE_SLACK))
		return;
	s->path = store_path(&s->store, &s->cause);
	if (!s->path) {
		journal(LOG_ERR, "out of memory: the snapshot is dropped");
		return;
	}
	s->keep = snap_file_open(&s->file, CMD, s->path);
	if (!s->keep)
		journal(LOG_ERR, "the snapshot is dropped: see the line above");
}

/* The directory's entry made durable too: fsync() of the directory. */
static void sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/* End of the snapshot: on disk, renamed, logged; then retention and the hook. */
static void snap_end(struct service *s)
{
	s->in_snap = false;
	if (!s->keep)
		return;
	if (fsync(s->file.fd) && !s->file.failed) {
		journal(LOG_ERR, "writing %s failed: %s", s->path, strerror(errno));
		s->file.failed = true;
	}
	if (!snap_file_commit(&s->file, true)) {
		journal(LOG_ERR, "the snapshot for %s is dropped; the earlier ones stay",
			cause_names[s->cause.kind]);
		return;
	}
	sync_dir(s->cfg.directory);
	s->snapshots++;
	journal(LOG_NOTICE, "snapshot %s: %.2f MiB, %" PRIu64 " generations over %.3f s",
		s->path, s->file.bytes / MIB, (uint64_t)s->snap.generations,
		s->snap.span_ns / 1e9);
	store_retain(&s->store);
	snap_hook(s);
}

/* A snapshot's bytes, its end, or the recorder's end, from one read(). */
static bool snap_read(struct service *s)
{
	ssize_t n = read(s->rd_fd, s->buf, COPY_SIZE);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return true;
	if (n < 0) {
		journal(LOG_ERR, "reading %s failed: %s", GOTRACE_DEVICE, strerror(errno));
		return false;
	}
	if (n > 0) {
		if (!s->in_snap) {
			/* Another program asked (gotrace snapshot): its size is unknown. */
			s->cause = (struct snap_cause){ .kind = CAUSE_REQUEST, .when = wall_now() };
			s->snap = (struct gotrace_snapshot){ 0 };
			journal(LOG_NOTICE, "snapshot asked for by another program (gotrace snapshot)");
			snap_begin(s, 0);
		}
		if (s->keep)
			snap_file_write(&s->file, s->buf, (size_t)n);
		return true;
	}
	if (s->in_snap) {
		snap_end(s);
		return true;
	}
	/* End of the trace: someone stopped our flight recorder. */
	s->recording = false;
	s->trig = TRIG_NONE;
	s->listening = false;
	if (s->stopping)
		return true;
	journal(LOG_WARNING, "the flight recorder was stopped by another program (gotrace "
		"stop?): starting it again");
	return recorder_start(s);
}

/* GOTRACE_SNAPSHOT of @duration_ns for @cause; read() brings it. */
static void snap_take(struct service *s, const struct snap_cause *cause, uint64_t duration_ns)
{
	int err = snapshot_take(s->ctl_fd, duration_ns, &s->snap);

	if (err) {
		if (err != EBUSY)
			snapshot_explain(CMD, s->ctl_fd, err);
		journal(LOG_WARNING, "no %s snapshot this time%s", cause_names[cause->kind],
			err == EBUSY ? ": another program's is being read" : "");
		return;
	}
	s->cause = *cause;
	snap_begin(s, s->snap.bytes);
}

/* Reads a snapshot to its end (at start, before anything else runs). */
static bool snap_finish(struct service *s)
{
	struct pollfd p = { .fd = s->rd_fd, .events = POLLIN };

	while (s->in_snap) {
		if (!snap_read(s))
			return false;
		if (s->in_snap)
			poll(&p, 1, 1000);
	}
	return true;
}

/* --- what is due ------------------------------------------------------------------------ */

/* The latency trigger after a poll(): a firing, its snapshot, re-arming. */
static void latency_step(struct service *s, bool pri, double now)
{
	struct snap_cause c;

	if (pri)
		latency_take(s, s->trig != TRIG_WAIT);
	if (s->trig == TRIG_RESTING && now >= s->fired_at + s->cfg.every_ns / 1e9)
		latency_arm(s);
	if (s->trig != TRIG_FIRED || s->in_snap || now < s->fired_at + s->cfg.after_ns / 1e9)
		return;
	c = (struct snap_cause){ .kind = CAUSE_LATENCY, .trig = s->fired, .when = wall_now() };
	snap_take(s, &c, (uint64_t)s->cfg.start.flight_ns +
		  (uint64_t)((now - s->fired_at) * 1e9));
	s->trig = TRIG_RESTING;
}

/* Requests (SIGUSR1) at most one per request-every; fleet-period's. */
static void asked_step(struct service *s, double now)
{
	struct snap_cause c;

	if (s->next_fleet && now >= s->next_fleet && !s->in_snap) {
		c = (struct snap_cause){ .kind = CAUSE_FLEET, .period_ns = s->cfg.fleet_ns,
					 .when = wall_now() };
		snap_take(s, &c, (uint64_t)s->cfg.start.flight_ns);
		fleet_plan(s);
	}
	if (s->want && !s->in_snap && (!s->last_request ||
	    now >= s->last_request + s->cfg.request_every_ns / 1e9)) {
		s->want = false;
		s->last_request = now;
		snap_take(s, &s->wanted, (uint64_t)s->cfg.start.flight_ns);
	}
}

/* Milliseconds until the next thing due (a hook's deadline @hook_wait s away), at most TICK. */
static int wait_ms(const struct service *s, double now, double hook_wait)
{
	double wait = hook_wait < TICK ? hook_wait : TICK, t;

	if (s->trig == TRIG_FIRED)
		wait = s->fired_at + s->cfg.after_ns / 1e9 - now;
	else if (s->trig == TRIG_RESTING)
		wait = s->fired_at + s->cfg.every_ns / 1e9 - now;
	if (s->next_fleet && s->next_fleet - now < wait)
		wait = s->next_fleet - now;
	if (s->want) {
		t = s->last_request + s->cfg.request_every_ns / 1e9 - now;
		if (t < wait)
			wait = t;
	}
	if (wait > TICK)
		wait = TICK;
	return wait > 0 ? (int)(wait * 1000) + 1 : 0;
}

/* SIGUSR1: a request, from whom signalfd says. */
static void want_snapshot(struct service *s, const struct signalfd_siginfo *si)
{
	if (s->want) {
		journal(LOG_INFO, "snapshot request from process %u: one is waiting already "
			"(request-every)", si->ssi_pid);
		return;
	}
	s->want = true;
	s->wanted = (struct snap_cause){ .kind = CAUSE_REQUEST, .pid = (pid_t)si->ssi_pid,
					 .uid = si->ssi_uid, .when = wall_now() };
	journal(LOG_NOTICE, "snapshot request from process %u (user %u)", si->ssi_pid,
		si->ssi_uid);
}

static void signals_take(struct service *s)
{
	struct signalfd_siginfo si;

	while (read(s->sig_fd, &si, sizeof(si)) == sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGCHLD:
			hooks_reap(&s->hooks);
			break;
		case SIGUSR1:
			want_snapshot(s, &si);
			break;
		case SIGHUP:
			s->reload = true;
			break;
		default:
			if (!s->stopping)
				journal(LOG_NOTICE, "%s: stopping once the snapshot being written "
					"is whole", strsignal((int)si.ssi_signo));
			s->stopping = true;
			break;
		}
	}
}

/* SIGHUP: the configuration again; a new flight recorder only if its keys changed. */
static void reload(struct service *s)
{
	struct service_config next;
	bool restart, resize;

	s->reload = false;
	if (!config_load(&next, s->cfg.path)) {
		journal(LOG_ERR, "%s is not valid (see the line above): the running "
			"configuration stays", s->cfg.path);
		config_free(&next);
		return;
	}
	restart = !config_same_session(&s->cfg, &next);
	resize = next.hook_max != s->cfg.hook_max;
	if (restart)
		recorder_stop(s);
	if (resize)
		hooks_finish(&s->hooks);
	config_free(&s->cfg);
	s->cfg = next;
	if (resize)
		hooks_resize(&s->hooks, &s->cfg);
	journal(LOG_NOTICE, "reloaded %s%s", s->cfg.path,
		restart ? ": the flight recorder starts again with its new keys" : "");
	if (!store_open(&s->store, &s->cfg) || (restart && !recorder_start(s))) {
		s->stopping = s->failed = true;
		return;
	}
	if (!restart) {
		latency_arm(s);
		fleet_plan(s);
	}
	store_retain(&s->store);
}

/* --- start and end ---------------------------------------------------------------------- */

/*
 * What the device holds at start: a flight recorder (one a service that
 * died left): its snapshot kept, then stopped; a stopped trace nobody read:
 * dropped; another trace recording: not ours to end. False after a log line.
 */
static bool takeover(struct service *s)
{
	struct gotrace_status st;
	struct snap_cause c = { .kind = CAUSE_RESTART };

	if (!session_status(CMD, s->ctl_fd, &st))
		return false;
	if (st.state == GOTRACE_STATE_TRACING && !(st.flags & GOTRACE_STATUS_FLIGHT)) {
		journal(LOG_ERR, "another trace is recording (gotrace record or start?): the "
			"service starts once it ends (gotrace stop ends it)");
		return false;
	}
	if (st.state == GOTRACE_STATE_TRACING) {
		journal(LOG_NOTICE, "a flight recorder is recording already (left by the "
			"service's last run, or gotrace start --flight): its snapshot is kept, then "
			"it stops and the configured one starts");
		c.when = wall_now();
		s->recording = true;
		snap_take(s, &c, (uint64_t)s->cfg.start.flight_ns);
		if (!snap_finish(s))
			return false;
		recorder_stop(s);
		return true;
	}
	if (st.state == GOTRACE_STATE_STOPPED) {
		journal(LOG_NOTICE, "a stopped trace nobody read to its end is dropped");
		return recorder_drain(s);
	}
	return true;
}

static int signals_open(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

/* The device, the reader of it; false after a log line. */
static bool device_take(struct service *s)
{
	s->ctl_fd = device_open(CMD);
	if (s->ctl_fd < 0)
		return false;
	s->rd_fd = device_open_reader(CMD, O_NONBLOCK);
	if (s->rd_fd < 0 && errno == EBUSY)
		journal(LOG_ERR, "another program reads %s (gotrace record?): the service needs "
			"to be its reader; end that program", GOTRACE_DEVICE);
	return s->rd_fd >= 0;
}

static void loop(struct service *s)
{
	struct pollfd fds[2];
	double now, hook_wait = TICK;

	while (!s->stopping || s->in_snap) {
		now = now_seconds();
		fds[0] = (struct pollfd){ .fd = s->rd_fd, .events = POLLIN |
			(s->listening ? POLLPRI : 0) };
		fds[1] = (struct pollfd){ .fd = s->sig_fd, .events = POLLIN };
		if (poll(fds, 2, wait_ms(s, now, hook_wait)) < 0 && errno != EINTR) {
			journal(LOG_ERR, "poll: %s", strerror(errno));
			s->failed = true;
			return;
		}
		if (fds[1].revents)
			signals_take(s);
		if (!snap_read(s)) {
			s->stopping = s->failed = true;
			return;
		}
		now = now_seconds();
		hook_wait = hooks_tick(&s->hooks, now);
		if (s->stopping || !s->recording)
			continue;
		latency_step(s, fds[0].revents & POLLPRI, now);
		asked_step(s, now);
		if (s->reload && !s->in_snap)
			reload(s);
	}
}

int service_run(const char *config_path)
{
	struct service s = { .ctl_fd = -1, .rd_fd = -1 };
	int ret = EXIT_FAILURE;

	if (!config_load(&s.cfg, config_path))
		goto out_config;
	s.sig_fd = signals_open();
	s.buf = malloc(COPY_SIZE);
	if (s.sig_fd < 0 || !s.buf) {
		journal(LOG_ERR, "cannot start: %s", s.buf ? strerror(errno) : "out of memory");
		goto out;
	}
	if (!store_open(&s.store, &s.cfg) || !hooks_init(&s.hooks, &s.cfg))
		goto out;
	if (!device_take(&s) || !takeover(&s) || !recorder_start(&s))
		goto out_hooks;
	loop(&s);
	recorder_stop(&s);
	journal(LOG_NOTICE, "stopped: %" PRIu64 " snapshots written, %" PRIu64 " removed; hooks: "
		"%" PRIu64 " run, %" PRIu64 " failed, %" PRIu64 " killed, %" PRIu64 " not run",
		s.snapshots, s.store.removed, s.hooks.started, s.hooks.failed, s.hooks.killed,
		s.hooks.dropped);
	hooks_finish(&s.hooks);
	ret = s.failed ? EXIT_FAILURE : EXIT_SUCCESS;
out_hooks:
	hooks_free(&s.hooks);
out:
	if (s.rd_fd >= 0)
		close(s.rd_fd);
	if (s.ctl_fd >= 0)
		close(s.ctl_fd);
	if (s.sig_fd >= 0)
		close(s.sig_fd);
	free(s.buf);
	free(s.path);
out_config:
	config_free(&s.cfg);
	return ret;
}
