// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace service's snapshot directory. A snapshot is TIME_HOST_CAUSE.trace:
 * TIME in UTC (20261129T031500.123Z), so that the files of many hosts sort
 * by time; HOST, the host name; CAUSE, why it was taken (latency-COMM-TID-
 * WAITms, request-COMM-PID-REASON, request-pidPID, request, fleet-PERIODs,
 * restart). It is written under a
 * temporary name (NAME.XXXXXX, flight_snapshot.c) and renamed once whole
 * and on disk. The oldest go first: beyond keep-count, keep-size or
 * keep-age, and when a new one would leave less than min-free.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "service/service.h"

#define SUFFIX		".trace"
#define TMP_LEN		7		/* ".XXXXXX" after a name */
#define MIB		(1024.0 * 1024.0)

/* A snapshot in the directory. */
struct stored {
	char *name;
	uint64_t bytes;
	time_t mtime;
};

/* Letters, digits, '.' and '-' of @s into @out; the rest as '-'. */
static void name_part(char *out, size_t len, const char *s)
{
	size_t i;

	for (i = 0; i + 1 < len && s[i]; i++)
		out[i] = (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
			 (s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == '-' ?
			 s[i] : '-';
	out[i] = '\0';
}

/* Is @name one of ours, whole (TIME_HOST_CAUSE.trace) or half-written (NAME.XXXXXX)? */
static bool our_name(const char *name, bool *tmp)
{
	size_t len = strlen(name), n = strlen(SUFFIX);
	const char *dot;

	if (name[0] < '0' || name[0] > '9' || !strchr(name, '_'))
		return false;
	if (len > n && !strcmp(name + len - n, SUFFIX)) {
		*tmp = false;
		return true;
	}
	dot = strrchr(name, '.');
	*tmp = dot && strlen(dot) == TMP_LEN && dot - name >= (long)n &&
	       !strncmp(dot - n, SUFFIX, n);
	return *tmp;
}

static DIR *store_dir(const struct store *st)
{
	DIR *d = opendir(st->cfg->directory);

	if (!d)
		journal(LOG_ERR, "cannot read %s: %s", st->cfg->directory, strerror(errno));
	return d;
}

bool store_open(struct store *st, const struct service_config *cfg)
{
	struct dirent *de;
	char host[64];
	bool tmp;
	DIR *d;

	st->cfg = cfg;
	if (gethostname(host, sizeof(host)))
		snprintf(host, sizeof(host), "localhost");
	host[sizeof(host) - 1] = '\0';
	name_part(st->host, sizeof(st->host), host);
	if (mkdir(cfg->directory, 0750) && errno != EEXIST) {
		journal(LOG_ERR, "cannot create the snapshot directory %s: %s: create it, or "
			"set directory in %s", cfg->directory, strerror(errno), cfg->path);
		return false;
	}
	d = store_dir(st);
	if (!d)
		return false;
	while ((de = readdir(d)))
		if (our_name(de->d_name, &tmp) && tmp) {
			if (unlinkat(dirfd(d), de->d_name, 0))
				journal(LOG_WARNING, "cannot remove %s/%s, half-written: %s",
					cfg->directory, de->d_name, strerror(errno));
			else
				journal(LOG_NOTICE, "removed %s/%s: a snapshot left half-written",
					cfg->directory, de->d_name);
		}
	closedir(d);
	return true;
}

/* The cause part of a file name. */
static void cause_part(char *out, size_t len, const struct snap_cause *c)
{
	char comm[sizeof(c->trig.comm)];

	switch (c->kind) {
	case CAUSE_LATENCY:
		name_part(comm, sizeof(comm), (const char *)c->trig.comm);
		snprintf(out, len, "latency-%s-%u-%" PRIu64 "ms", comm, c->trig.tid,
			 (uint64_t)(c->trig.wait_ns / 1000000));
		break;
	case CAUSE_REQUEST:
		if (c->reason[0]) {
			char reason[sizeof(c->reason)];

			name_part(comm, sizeof(comm), c->comm);
			name_part(reason, sizeof(reason), c->reason);
			snprintf(out, len, "request-%s-%d-%s", comm, (int)c->pid, reason);
		} else if (c->pid) {
			snprintf(out, len, "request-pid%d", (int)c->pid);
		} else {
			snprintf(out, len, "request");
		}
		break;
	case CAUSE_FLEET:
		snprintf(out, len, "fleet-%" PRId64 "s", c->period_ns / (int64_t)1000000000);
		break;
	case CAUSE_RESTART:
		snprintf(out, len, "restart");
		break;
	}
}

char *store_path(const struct store *st, const struct snap_cause *c)
{
	char when[32], cause[128], again[16] = "", *path = NULL;
	struct tm tm;
	unsigned int n;

	gmtime_r(&c->when.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y%m%dT%H%M%S", &tm);
	cause_part(cause, sizeof(cause), c);
	/* Two snapshots in one millisecond: the second is NAME-2.trace. */
	for (n = 1; n < 100; n++) {
		free(path);
		if (n > 1)
			snprintf(again, sizeof(again), "-%u", n);
		if (asprintf(&path, "%s/%s.%03ldZ_%s_%s%s%s", st->cfg->directory, when,
			     c->when.tv_nsec / 1000000, st->host, cause, again, SUFFIX) < 0)
			return NULL;
		if (access(path, F_OK))
			break;
	}
	return path;
}

static int stored_cmp(const void *a, const void *b)
{
	return strcmp(((const struct stored *)a)->name, ((const struct stored *)b)->name);
}

static void stored_free(struct stored *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(s[i].name);
	free(s);
}

/* The whole snapshots in the directory, oldest first; -1 after a log line. */
static ssize_t store_list(const struct store *st, struct stored **out)
{
	struct stored *s = NULL, *grown;
	size_t n = 0, cap = 0;
	struct dirent *de;
	struct stat sb;
	bool tmp;
	DIR *d = store_dir(st);

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (!our_name(de->d_name, &tmp) || tmp ||
		    fstatat(dirfd(d), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) || !S_ISREG(sb.st_mode))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			grown = realloc(s, cap * sizeof(*s));
			if (!grown)
				goto nomem;
			s = grown;
		}
		s[n].name = strdup(de->d_name);
		if (!s[n].name)
			goto nomem;
		s[n].bytes = (uint64_t)sb.st_size;
		s[n++].mtime = sb.st_mtime;
	}
	closedir(d);
	if (n)
		qsort(s, n, sizeof(*s), stored_cmp);
	*out = s;
	return (ssize_t)n;
nomem:
	closedir(d);
	stored_free(s, n);
	journal(LOG_ERR, "out of memory listing %s", st->cfg->directory);
	return -1;
}

/* Removes the snapshot @s, saying @why; false if it stays. */
static bool store_remove(struct store *st, const struct stored *s, const char *why)
{
	char *path;
	bool ok;

	if (asprintf(&path, "%s/%s", st->cfg->directory, s->name) < 0)
		return false;
	ok = !unlink(path);
	if (ok) {
		st->removed++;
		journal(LOG_INFO, "removed %s (%.2f MiB): %s", path, s->bytes / MIB, why);
	} else {
		journal(LOG_WARNING, "cannot remove %s: %s", path, strerror(errno));
	}
	free(path);
	return ok;
}

void store_retain(struct store *st)
{
	const struct service_config *cfg = st->cfg;
	time_t oldest = cfg->keep_age_ns ? time(NULL) - cfg->keep_age_ns / 1000000000LL : 0;
	struct stored *s;
	uint64_t total = 0;
	ssize_t n, i;
	char why[96];

	n = store_list(st, &s);
	if (n < 0)
		return;
	for (i = 0; i < n; i++)
		total += s[i].bytes;
	for (i = 0; i < n; i++) {
		if ((uint64_t)(n - i) > cfg->keep_count)
			snprintf(why, sizeof(why), "keep-count is %u", cfg->keep_count);
		else if (total > cfg->keep_bytes)
			snprintf(why, sizeof(why), "keep-size is %.2f MiB, the snapshots took %.2f",
				 cfg->keep_bytes / MIB, total / MIB);
		else if (s[i].mtime < oldest)
			snprintf(why, sizeof(why), "older than keep-age");
		else
			break;
		if (store_remove(st, &s[i], why))
			total -= s[i].bytes;
	}
	stored_free(s, (size_t)n);
}

/* Bytes the file system holding the directory has free beyond min-free (may be negative). */
static int64_t store_spare(const struct store *st)
{
	const struct service_config *cfg = st->cfg;
	struct statvfs vfs;
	uint64_t floor;

	if (statvfs(cfg->directory, &vfs))
		return INT64_MAX;	/* unknown: writing will tell */
	floor = cfg->min_free_pct ?
		(uint64_t)vfs.f_blocks * vfs.f_frsize / 100 * cfg->min_free_pct :
		cfg->min_free_bytes;
	return (int64_t)((uint64_t)vfs.f_bavail * vfs.f_frsize) - (int64_t)floor;
}

bool store_make_room(struct store *st, uint64_t bytes)
{
	int64_t spare = store_spare(st);
	uint64_t ours = 0;
	struct stored *s;
	ssize_t n, i;
	char why[96];

	if (spare >= (int64_t)bytes)
		return true;
	n = store_list(st, &s);
	if (n < 0)
		return false;
	for (i = 0; i < n; i++)
		ours += s[i].bytes;
	/* Not even all of them would do: keep them all. */
	if (spare + (int64_t)ours < (int64_t)bytes) {
		stored_free(s, (size_t)n);
		journal(LOG_ERR, "no room for a snapshot of %.2f MiB in %s: its file system has "
			"%.2f MiB free beyond min-free, and the %zd snapshots there take %.2f MiB; "
			"the snapshot is dropped, the others stay (free space there, or lower "
			"min-free in %s)", bytes / MIB, st->cfg->directory,
			(spare > 0 ? spare : 0) / MIB, n, ours / MIB, st->cfg->path);
		return false;
	}
	snprintf(why, sizeof(why), "min-free: room for a snapshot of %.2f MiB", bytes / MIB);
	for (i = 0; i < n && store_spare(st) < (int64_t)bytes; i++)
		store_remove(st, &s[i], why);
	stored_free(s, (size_t)n);
	return store_spare(st) >= (int64_t)bytes;
}
