// SPDX-License-Identifier: GPL-2.0
/*
 * gt_join(): what can be joined is checked (formats, clocks, threads, time),
 * MACHINE's spans of APP's threads are read, then APP with its regions is
 * written beside OUT and renamed over it.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "tracev2/internal.h"

/* The mapped bytes of APP the walk of its headers keeps in the process at most. */
#define JN_DROP_BYTES		(8 << 20)

/* Go's own clock on Linux: an APP snapshot this close to 0 is rounding. */
#define JN_APP_SNAP_SLACK_NS	1000000

int64_t jn_mono_off(const struct gt2_gen *g, bool app)
{
	int64_t off;

	if (!g->has_snap)
		return 0;
	off = (int64_t)g->snap_mono - gt2_gen_ns(g, g->snap_time);
	if (app && off > -JN_APP_SNAP_SLACK_NS && off < JN_APP_SNAP_SLACK_NS)
		return 0;
	return off;
}

int jn_gen_next(struct gt2_gens *gens, struct gt2_gen *g, struct gt_error *err)
{
	int k;

	/* Before 1.26 a generation without a spilled batch after it was the last. */
	if (!gens->spilled && gens->pos >= gens->t->size)
		return 0;
	k = gt2_gen_read(gens, g, err);
	if (k > 0 && gens->spill_failed) {
		*err = gens->spill_err;
		return -1;
	}
	return k;
}

struct jn_thread *jn_thread_get(const struct jn_threads *th, int64_t tid)
{
	const uint64_t *v = gt_map_get(&th->by_tid, (uint64_t)tid);

	return v ? &th->v[*v] : NULL;
}

static int jn_thread_add(struct jn_threads *th, int64_t tid)
{
	struct jn_thread *t;
	uint64_t *v;
	bool added;

	v = gt_map_put(&th->by_tid, (uint64_t)tid, &added);
	if (!v || (added && !gt2_grow(&th->v, &th->cap, th->len, sizeof(*th->v))))
		return -1;
	if (!added)
		return 0;
	*v = th->len;
	t = &th->v[th->len++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->open = -1;
	return 0;
}

static void jn_threads_free(struct jn_threads *th)
{
	size_t i;

	for (i = 0; i < th->len; i++)
		free(th->v[i].spans);
	free(th->v);
	gt_map_free(&th->by_tid);
}

/* APP's threads: the Ms of its batch headers, walked over the batches' events. */
static int jn_app_threads(const struct gt2_trace *app, struct jn_threads *th,
			  struct gt_error *err)
{
	struct gt2_wire w;
	struct gt2_wire_event ev;
	uint64_t dropped = 0;
	int k;

	gt2_wire_init(&w, app);
	while ((k = gt2_wire_next(&w, &ev, err)) > 0) {
		if (ev.type != GT2_EV_EVENT_BATCH)
			continue;
		w.off = ev.end + ev.args[3];
		if ((int64_t)ev.args[1] >= 0 && jn_thread_add(th, (int64_t)ev.args[1])) {
			gt_fail(err, GT_OK, 0, "out of memory");
			return -1;
		}
		/* The headers' pages leave the process as it goes (the page cache keeps them). */
		if (app->fd >= 0 && ev.off - dropped >= JN_DROP_BYTES) {
			madvise((void *)(app->data + dropped), JN_DROP_BYTES, MADV_DONTNEED);
			dropped += JN_DROP_BYTES;
		}
	}
	if (app->fd >= 0)
		madvise((void *)(app->data + dropped), app->size - dropped, MADV_DONTNEED);
	return k;
}

/* The header's "go 1.N trace" version, 0 if it has none. */
static int jn_header_version(const char *path)
{
	char head[17] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	unsigned int minor;

	if (fd < 0)
		return 0;
	if (read(fd, head, 16) < 0)
		head[0] = 0;
	close(fd);
	if (sscanf(head, "go 1.%u trace", &minor) != 1)
		return 0;
	return 1000 + (int)minor;
}

/* Puts "@what @path: " before @err's message; -1. */
static int jn_blame(struct gt_error *err, const char *what, const char *path)
{
	char *msg;

	if (asprintf(&msg, "%s %s: %s", what, path, err->msg) < 0)
		return -1;
	snprintf(err->msg, sizeof(err->msg), "%s", msg);
	free(msg);
	return -1;
}

/* Opens @path as @what (APP or MACHINE) with a version of at least @min. */
static int jn_open(const char *path, const char *what, int min, struct gt2_trace **t,
		   struct gt_error *err)
{
	int ver = jn_header_version(path);

	if (ver && ver < min) {
		if (min == 1022)
			gt_fail(err, GT_ERR_WIRE, 0,
				"a go 1.%d trace: Go 1.21 and older write no thread ids to join on; trace the program with Go 1.22 or later",
				ver - 1000);
		else
			gt_fail(err, GT_ERR_WIRE, 0,
				"a go 1.%d trace, which has no clock snapshots to map its time to CLOCK_MONOTONIC: record it with gotrace record --format 1.26 --clock mono",
				ver - 1000);
		return jn_blame(err, what, path);
	}
	return gt2_open(path, t, err) ? jn_blame(err, what, path) : 0;
}

/* The ids of up to 4 of APP's threads, for a message. */
static void jn_tids(const struct jn_threads *th, char *buf, size_t size)
{
	size_t i, n = 0;

	buf[0] = 0;
	for (i = 0; i < th->len && i < 4; i++)
		n += snprintf(buf + n, size - n, "%s%" PRId64, i ? ", " : "", th->v[i].tid);
	if (th->len > 4)
		snprintf(buf + n, size - n, ", ...");
}

/* Refuses what cannot be joined: no overlap in time, none of APP's threads in MACHINE. */
static int jn_check(const struct jn_threads *th, int64_t af, int64_t al, int64_t mf, int64_t ml,
		    struct gt_join_stats *st, struct gt_error *err)
{
	int64_t lo = af > mf ? af : mf, hi = al < ml ? al : ml;
	char tids[96];
	size_t i;

	st->app_threads = th->len;
	st->app_ns = al - af;
	st->covered_ns = hi > lo ? hi - lo : 0;
	for (i = 0; i < th->len; i++)
		st->threads_found += th->v[i].seen;
	if (hi <= lo) {
		gt_fail(err, GT_ERR_TRACE, 0,
			"APP and MACHINE do not overlap in time (APP %.3f to %.3f s, MACHINE %.3f to %.3f s of CLOCK_MONOTONIC): record MACHINE while the program traces itself, e.g. gotrace record --go URL --duration S",
			af / 1e9, al / 1e9, mf / 1e9, ml / 1e9);
		return -1;
	}
	if (!st->threads_found) {
		jn_tids(th, tids, sizeof(tids));
		gt_fail(err, GT_ERR_TRACE, 0,
			"none of APP's %zu threads (%s) is in MACHINE: MACHINE's filters left the program out, or the two come from different boots or machines; record MACHINE without filters while the program traces itself",
			th->len, tids);
		return -1;
	}
	return 0;
}

int jn_out_open(const char *out, char **tmp, struct gt_error *err)
{
	size_t len = strlen(out) + 16;
	int fd;

	*tmp = malloc(len);
	if (!*tmp) {
		gt_fail(err, GT_OK, 0, "out of memory");
		return -1;
	}
	snprintf(*tmp, len, "%s.tmp-XXXXXX", out);
	fd = mkstemp(*tmp);
	if (fd < 0) {
		gt_fail(err, GT_OK, 0, "cannot create %s: %s", *tmp, strerror(errno));
		free(*tmp);
		*tmp = NULL;
	}
	return fd;
}

int jn_out_close(int fd, char *tmp, const char *out, bool keep, struct gt_error *err)
{
	int rc = -1;

	if (!keep)
		goto unlink;
	if (fchmod(fd, 0644) || fsync(fd)) {
		gt_fail(err, GT_OK, 0, "cannot write %s: %s", tmp, strerror(errno));
		goto unlink;
	}
	if (close(fd)) {
		fd = -1;
		gt_fail(err, GT_OK, 0, "cannot write %s: %s", tmp, strerror(errno));
		goto unlink;
	}
	fd = -1;
	if (rename(tmp, out)) {
		gt_fail(err, GT_OK, 0, "cannot rename %s to %s: %s", tmp, out, strerror(errno));
		goto unlink;
	}
	rc = 0;
	goto out;
unlink:
	if (fd >= 0)
		close(fd);
	unlink(tmp);
out:
	free(tmp);
	return rc;
}

/* The sort of the inserts: by event, time, the early ones first, then as made. */
static int jn_cmp(const void *a, const void *b, void *arg)
{
	const struct jn_sort *srt = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	const struct jn_insert *x = &srt->ins[i], *y = &srt->ins[j];
	bool ei = srt->early && srt->early[i], ej = srt->early && srt->early[j];

	if (x->after != y->after)
		return x->after < y->after ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (ei != ej)
		return ei ? -1 : 1;
	return (i > j) - (i < j);
}

int jn_sort_inserts(struct jn_insert **ins, size_t n, const bool *early)
{
	struct jn_sort srt = { *ins, early };
	struct jn_insert *sorted;
	size_t *idx, i;

	idx = malloc((n + 1) * sizeof(*idx));
	sorted = malloc((n + 1) * sizeof(*sorted));
	if (!idx || !sorted) {
		free(idx);
		free(sorted);
		return -1;
	}
	for (i = 0; i < n; i++)
		idx[i] = i;
	qsort_r(idx, n, sizeof(*idx), jn_cmp, &srt);
	for (i = 0; i < n; i++)
		sorted[i] = (*ins)[idx[i]];
	free(idx);
	free(*ins);
	*ins = sorted;
	return 0;
}

int jn_prepare(struct jn_pair *p, const char *app_path, const char *machine_path,
	       struct gt_join_stats *st, struct gt_error *err)
{
	memset(p, 0, sizeof(*p));
	memset(st, 0, sizeof(*st));
	memset(err, 0, sizeof(*err));
	gt_map_init(&p->th.by_tid);
	p->app_path = app_path;
	p->machine_path = machine_path;
	if (jn_open(app_path, "APP", 1022, &p->app, err) ||
	    jn_open(machine_path, "MACHINE", 1025, &p->machine, err))
		return -1;
	if (jn_app_threads(p->app, &p->th, err) < 0)
		return jn_blame(err, "APP", app_path);
	p->mc = jn_machine_open(p->machine, &p->th, &p->names, err);
	return p->mc ? 0 : -1;
}

int jn_finish(struct jn_pair *p, int64_t app_first, int64_t app_last, struct gt_join_stats *st,
	      struct gt_error *err)
{
	int64_t mf, ml;
	bool done;

	jn_machine_range(p->mc, &mf, &ml, &done);
	return jn_check(&p->th, app_first, app_last, mf, ml, st, err);
}

int jn_failed(const struct jn_pair *p, struct gt_error *err)
{
	if (jn_machine_failed(p->mc))
		return jn_blame(err, "MACHINE", p->machine_path);
	return err->phase ? jn_blame(err, "APP", p->app_path) : -1;
}

void jn_pair_free(struct jn_pair *p)
{
	jn_machine_close(p->mc);
	jn_strings_free(&p->names);
	jn_strings_free(&p->strs);
	jn_threads_free(&p->th);
	if (p->machine)
		gt2_close(p->machine);
	if (p->app)
		gt2_close(p->app);
}

int gt_join(const char *app_path, const char *machine_path, const char *out,
	    struct gt_join_stats *st, struct gt_error *err)
{
	int64_t first, last;
	struct jn_pair p;
	char *tmp = NULL;
	int fd, rc = -1;

	if (jn_prepare(&p, app_path, machine_path, st, err))
		goto out;
	fd = jn_out_open(out, &tmp, err);
	if (fd < 0)
		goto out;
	rc = jn_app_join(p.app, &p.th, p.mc, &p.names, &p.strs, fd, st, &first, &last, err);
	if (rc)
		jn_failed(&p, err);
	else
		rc = jn_finish(&p, first, last, st, err);
	if (jn_out_close(fd, tmp, out, !rc, err))
		rc = -1;
out:
	jn_pair_free(&p);
	return rc;
}
