// SPDX-License-Identifier: GPL-2.0
/*
 * jn_splice() on generated go 1.26 and 1.25 traces (gen_tracev2.c, batches
 * of up to 63 KiB) and on real ones (the arguments): user regions and logs
 * after the first and last event of M batches, after every 7th event, and
 * hundreds after one event of the largest batch, which must then be cut.
 * Checks, walking APP and OUT together: every event of APP is in OUT with its
 * type, arguments and absolute time; each insert is right after its event,
 * at its time, with task 0, stack 0 and its strings' ids, which OUT's added
 * Strings batch of the generation names with the right text; no batch over
 * 64 KiB. Then libgtrace's parser (gotrace check) reads OUT: APP's events and
 * the inserts, no error. With GT_SPLICE_DIR set, OUT and the regions and
 * logs Go should list (NAME.expect) stay there for splice.sh.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/map.h"
#include "gen_trace.h"
#include "join/internal.h"
#include "tap.h"
#include "tracev2.h"

#define NO_THREAD	UINT64_MAX
#define MAX_BATCH	(64 << 10)
#define MAX_GENS	64

static const char *const kinds[] = {
	"kernel: waiting for a CPU", "kernel: throttled", "kernel: blocked in futex",
	"kernel: syscall blocked in read",
};

struct plan {
	struct jn_insert *ins;
	size_t n, cap;
	struct jn_strings strs;
	uint32_t key;			/* "kernel" */
	struct gt_map safe;		/* offsets of events after which a goroutine runs */
	uint64_t parsed, user_evs;	/* APP's parsed events, of them regions and logs */
	uint64_t max_id[MAX_GENS];	/* APP's highest string id per generation */
	uint64_t m_batches;		/* APP's M batches */
	uint64_t firsts, lasts;		/* batches with inserts after their first, last event */
	uint64_t big_off, big_size;	/* the largest M batch */
};

static void die(const char *what)
{
	printf("Bail out! test_splice: %s\n", what);
	exit(1);
}

static uint32_t str(struct plan *p, const char *s)
{
	int64_t i = jn_string(&p->strs, s);

	if (i < 0)
		die("out of memory");
	return (uint32_t)i;
}

static void add(struct plan *p, uint64_t after, uint64_t ts, uint8_t type, uint32_t s1,
		uint32_t s2)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 1024;
		p->ins = realloc(p->ins, p->cap * sizeof(*p->ins));
		if (!p->ins)
			die("out of memory");
	}
	p->ins[p->n++] = (struct jn_insert){ after, ts, type, s1, s2 };
}

/* A region with a log after its begin, all after the event at @off, from @t0 to @t1. */
static void region(struct plan *p, uint64_t off, uint64_t t0, uint64_t t1)
{
	char msg[96];
	uint32_t kind = str(p, kinds[p->n % 4]);

	snprintf(msg, sizeof(msg), "ran instead on CPU %zu: prog [%zu] for %zu us", p->n % 5,
		 1000 + p->n % 37, p->n % 11);
	add(p, off, t0, GT2_EV_USER_REGION_BEGIN, kind, 0);
	add(p, off, t0, GT2_EV_USER_LOG, p->key, str(p, msg));
	add(p, off, t1, GT2_EV_USER_REGION_END, kind, 0);
}

static bool is_timed(const struct gt2_wire_event *ev)
{
	return ev->nargs && !strcmp(ev->arg_names[0], "dt");
}

static bool is_user(uint8_t type)
{
	return type == GT2_EV_USER_REGION_BEGIN || type == GT2_EV_USER_REGION_END ||
	       type == GT2_EV_USER_LOG;
}

/* Go's parser over @t: its events, of them regions and logs; @safe gets the offsets
 * of the events its M runs a goroutine after (the M's next event has one). */
static int parse(const struct gt2_trace *t, uint64_t *n, uint64_t *user, struct gt_map *safe)
{
	struct gt2_reader *r;
	struct gt2_event ev;
	struct gt_error err = { 0 };
	struct gt_map prev;
	uint64_t *v;
	bool added;
	int k;

	gt_map_init(&prev);
	*n = *user = 0;
	if (gt2_reader_open(t, &r, &err))
		die("out of memory");
	while ((k = gt2_reader_next(r, &ev, &err)) > 0) {
		(*n)++;
		*user += is_user(ev.type);
		if (!safe)
			continue;
		if (ev.type == GT2_EV_PARSED_SYNC)
			gt_map_free(&prev);
		if (!ev.off || ev.m < 0)
			continue;
		v = gt_map_get(&prev, ev.m);
		if (v && ev.g >= 0 && !gt_map_put(safe, *v, &added))
			die("out of memory");
		v = gt_map_put(&prev, ev.m, &added);
		if (!v)
			die("out of memory");
		*v = ev.off;
	}
	gt_map_free(&prev);
	gt2_reader_close(r);
	if (k < 0)
		tap_diag("parser: %s", err.msg);
	return k;
}

/* The inserts into the M batch of header @hdr (events at @offs, times @times). */
static void plan_batch(struct plan *p, const uint64_t *offs, const uint64_t *times, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		uint64_t t = times[i], next = i + 1 < n ? times[i + 1] : t;

		if (!gt_map_get(&p->safe, offs[i]) ||
		    (i && i + 1 < n && i % 7 && offs[i] != p->big_off))
			continue;
		p->firsts += !i;
		p->lasts += i + 1 == n;
		region(p, offs[i], t + (next - t) / 3, t + 2 * (next - t) / 3);
		if (offs[i] != p->big_off)
			continue;
		/* Enough to take the largest batch past 64 KiB: a region is 20 bytes at most. */
		for (j = 0; j < (MAX_BATCH - p->big_size) / 14 + 50; j++)
			region(p, offs[i], next, next);
	}
}

/* Pass over APP's wire events: string ids, M batches, and the inserts planned into them. */
static void plan_wire(struct plan *p, const struct gt2_trace *t, bool inserts)
{
	static uint64_t offs[MAX_BATCH], times[MAX_BATCH];
	struct gt2_wire_event ev;
	struct gt_error err;
	struct gt2_wire w;
	uint64_t end = 0, time = 0, m = NO_THREAD, gen = 0;
	size_t n = 0;

	gt2_wire_init(&w, t);
	for (;;) {
		int k = gt2_wire_next(&w, &ev, &err);

		if (k < 0)
			die(err.msg);
		if (!k || ev.off >= end) {
			if (inserts && m != NO_THREAD && n)
				plan_batch(p, offs, times, n);
			n = 0;
		}
		if (!k)
			break;
		if (ev.type == GT2_EV_EVENT_BATCH) {
			gen = ev.args[0] < MAX_GENS ? ev.args[0] : MAX_GENS - 1;
			m = ev.args[1];
			time = ev.args[2];
			end = ev.end + ev.args[3];
			p->m_batches += m != NO_THREAD;
			if (!inserts && m != NO_THREAD && ev.args[3] > p->big_size) {
				p->big_size = ev.args[3];
				p->big_off = 0;
			}
			continue;
		}
		if (ev.type == GT2_EV_STRING && ev.args[0] > p->max_id[gen])
			p->max_id[gen] = ev.args[0];
		if (ev.off >= end || !is_timed(&ev))
			continue;
		time += ev.args[0];
		offs[n] = ev.off;
		times[n++] = time;
		/* The largest batch's middle safe event gets the many regions. */
		if (!inserts && m != NO_THREAD && !p->big_off && end - ev.end < p->big_size / 2 &&
		    gt_map_get(&p->safe, ev.off))
			p->big_off = ev.off;
	}
}

/* A walk over a trace in memory, with its events' absolute times (timed events of batches). */
struct walk {
	const uint8_t *data;
	struct gt2_trace *t;
	struct gt2_wire w;
	struct gt2_wire_event ev;
	uint64_t time, end, gen, m;
	int k;
};

static void walk_next(struct walk *x)
{
	struct gt_error err;

	x->k = gt2_wire_next(&x->w, &x->ev, &err);
	if (x->k < 0)
		die(err.msg);
	if (x->k && x->ev.type == GT2_EV_EVENT_BATCH) {
		x->gen = x->ev.args[0] < MAX_GENS ? x->ev.args[0] : MAX_GENS - 1;
		x->m = x->ev.args[1];
		x->time = x->ev.args[2];
		x->end = x->ev.end + x->ev.args[3];
	} else if (x->k && x->ev.off < x->end && is_timed(&x->ev)) {
		x->time += x->ev.args[0];
	}
}

static bool in_batch_timed(const struct walk *x)
{
	return x->ev.off < x->end && is_timed(&x->ev);
}

/* The bytes of the event but its type and, if it is timed in a batch, its delta. */
static const uint8_t *body(const struct walk *x, uint64_t *len)
{
	uint64_t off = x->ev.off + 1;

	if (in_batch_timed(x))
		while (x->data[off++] & 0x80)
			;
	*len = x->ev.end - off;
	return x->data + off;
}

static bool same(const struct walk *a, const struct walk *o)
{
	const uint8_t *pa, *po;
	uint64_t la, lo;

	if (a->k <= 0 || a->ev.type != o->ev.type || in_batch_timed(a) != in_batch_timed(o) ||
	    (in_batch_timed(a) && a->time != o->time))
		return false;
	pa = body(a, &la);
	po = body(o, &lo);
	return la == lo && !memcmp(pa, po, la);
}

static void walk_open(struct walk *x, const char *path)
{
	struct gt_error err;
	FILE *f = fopen(path, "rb");
	long size;
	uint8_t *buf;

	if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		die(path);
	buf = malloc(size + 1);
	if (!buf || fread(buf, 1, size, f) != (size_t)size)
		die(path);
	fclose(f);
	memset(x, 0, sizeof(*x));
	x->data = buf;
	if (gt2_open_mem(buf, size, &x->t, &err))
		die(err.msg);
	gt2_wire_init(&x->w, x->t);
}

static void walk_close(struct walk *x)
{
	gt2_close(x->t);
	free((void *)x->data);
}

/* What the lockstep walk found. */
struct found {
	uint64_t app_events, inserts, bad_inserts, m_batches, big, strings, bad_strings;
	uint64_t first_diff;		/* OUT's first event that is neither APP's nor an insert */
	struct gt_map ids;		/* gen << 32 | id: the expected string's index + 1 */
};

/* An OUT event that should be insert @in (after its APP event): its type, time, args. */
static bool is_insert(struct plan *p, struct found *f, const struct walk *o,
		      const struct jn_insert *in)
{
	uint64_t want[4] = { 0, in->str, 0, 0 }, *v;
	unsigned int n = 3, i;
	bool added;

	if (in->type == GT2_EV_USER_LOG) {
		want[2] = in->str2;
		n = 4;
	}
	if (o->ev.type != in->type || o->time != in->ts || o->ev.nargs != n + 1)
		return false;
	for (i = 0; i < n; i++) {
		if (i == 1 || (i == 2 && n == 4)) {
			/* A string id: above APP's, the same for the same string. */
			if (o->ev.args[i + 1] <= p->max_id[o->gen])
				return false;
			v = gt_map_put(&f->ids, o->gen << 32 | o->ev.args[i + 1], &added);
			if (!v)
				die("out of memory");
			if (!added && *v != want[i] + 1)
				return false;
			*v = want[i] + 1;
		} else if (o->ev.args[i + 1]) {
			return false;
		}
	}
	return true;
}

/* A String of an added Strings batch: the text its id was expected to have. */
static void added_string(struct plan *p, struct found *f, const struct walk *o)
{
	uint64_t *v = gt_map_get(&f->ids, o->gen << 32 | o->ev.args[0]);
	const char *want = v ? p->strs.s[*v - 1] : "";

	f->strings++;
	if (!v || o->ev.data_len != strlen(want) || memcmp(o->ev.data, want, o->ev.data_len))
		f->bad_strings++;
}

static void lockstep(struct plan *p, struct walk *a, struct walk *o, struct found *f)
{
	uint64_t last = 0, added_end = 0;
	size_t k = 0;

	for (walk_next(a); a->k > 0 && a->ev.type == GT2_EV_EVENT_BATCH;)
		walk_next(a);
	for (walk_next(o); o->k > 0; walk_next(o)) {
		if (o->ev.type == GT2_EV_EVENT_BATCH) {
			f->m_batches += o->m != NO_THREAD;
			f->big += o->ev.args[3] > MAX_BATCH;
			continue;
		}
		if (o->ev.type == GT2_EV_STRINGS && o->m == NO_THREAD &&
		    !(a->ev.type == GT2_EV_STRINGS && a->gen == o->gen)) {
			added_end = o->end;
			continue;
		}
		if (o->ev.off < added_end) {
			added_string(p, f, o);
			continue;
		}
		if (same(a, o)) {
			last = a->ev.off;
			f->app_events++;
			do
				walk_next(a);
			while (a->k > 0 && a->ev.type == GT2_EV_EVENT_BATCH);
			continue;
		}
		if (k < p->n && p->ins[k].after == last && is_insert(p, f, o, &p->ins[k])) {
			k++;
			f->inserts++;
			continue;
		}
		if (!f->first_diff)
			f->first_diff = o->ev.off;
		f->bad_inserts++;
	}
	if (a->k > 0 && !f->first_diff)
		f->first_diff = UINT64_MAX;
}

/* NAME.expect in @dir: the regions and logs Go's parser should print, one a line. */
static void write_expect(const struct plan *p, const char *dir, const char *name)
{
	char path[4096];
	const struct jn_insert *in;
	FILE *f;
	size_t i;

	snprintf(path, sizeof(path), "%s/%s.expect", dir, name);
	f = fopen(path, "w");
	if (!f)
		die(path);
	for (i = 0; i < p->n; i++) {
		in = &p->ins[i];
		if (in->type == GT2_EV_USER_LOG)
			fprintf(f, "Log Task=0 Category=\"%s\" Message=\"%s\"\n", p->strs.s[in->str],
				p->strs.s[in->str2]);
		else
			fprintf(f, "%s Task=0 Type=\"%s\"\n", in->type == GT2_EV_USER_REGION_BEGIN ?
				"RegionBegin" : "RegionEnd", p->strs.s[in->str]);
	}
	if (fclose(f))
		die(path);
}

static int splice_to(const char *app, const char *out, struct plan *p, struct gt_error *err)
{
	struct gt2_trace *t;
	int fd, r;

	if (gt2_open(app, &t, err))
		die(err->msg);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die(out);
	memset(err, 0, sizeof(*err));
	r = jn_splice(t, fd, p->ins, p->n, &p->strs, err);
	close(fd);
	gt2_close(t);
	return r;
}

static void plan_free(struct plan *p)
{
	free(p->ins);
	jn_strings_free(&p->strs);
	gt_map_free(&p->safe);
	memset(p, 0, sizeof(*p));
}

static void test_trace(const char *app, const char *dir, const char *name)
{
	struct plan p = { 0 };
	struct found f = { 0 };
	struct walk a, o;
	struct gt_error err;
	char out[4096];
	uint64_t n, user;
	bool big = false;
	int k;

	snprintf(out, sizeof(out), "%s/%s.trace", dir, name);
	p.key = str(&p, "kernel");
	walk_open(&a, app);
	if (parse(a.t, &p.parsed, &p.user_evs, &p.safe))
		die("APP does not parse");
	plan_wire(&p, a.t, false);
	big = p.big_off != 0;
	p.m_batches = 0;
	plan_wire(&p, a.t, true);
	tap_diag("%s: %llu M batches, %zu inserts, %llu after a batch's first event, %llu after "
		 "its last; the largest batch (%llu bytes) gets %s", name,
		 (unsigned long long)p.m_batches, p.n, (unsigned long long)p.firsts,
		 (unsigned long long)p.lasts, (unsigned long long)p.big_size,
		 big ? "enough to be cut" : "nothing (no safe event in its second half)");
	if (!tap_ok(!splice_to(app, out, &p, &err), "%s: jn_splice() writes OUT", name)) {
		tap_diag("%s", err.msg);
		goto out;
	}
	walk_open(&o, out);
	lockstep(&p, &a, &o, &f);
	tap_ok(!f.first_diff && f.app_events > 0,
	       "%s: OUT has APP's %llu events with their types, args and times", name,
	       (unsigned long long)f.app_events);
	if (f.first_diff)
		tap_diag("first OUT event neither APP's nor an insert: offset %llu",
			 (unsigned long long)f.first_diff);
	tap_ok(f.inserts == p.n && !f.bad_inserts, "%s: the %zu inserts each after its event, "
	       "at its time, task 0, stack 0 (found %llu)", name, p.n,
	       (unsigned long long)f.inserts);
	tap_ok(f.strings == f.ids.len && !f.bad_strings && f.strings > 0,
	       "%s: an added Strings batch per generation names the %llu ids used", name,
	       (unsigned long long)f.strings);
	tap_ok(!f.big && (!big || f.m_batches > p.m_batches),
	       "%s: no batch over 64 KiB; the full one cut (%llu M batches, APP %llu)", name,
	       (unsigned long long)f.m_batches, (unsigned long long)p.m_batches);
	k = parse(o.t, &n, &user, NULL);
	tap_ok(!k && n == p.parsed + p.n && user == p.user_evs + p.n,
	       "%s: the parser reads OUT: %llu events, %llu of them regions and logs (APP: %llu, "
	       "%llu)", name, (unsigned long long)n, (unsigned long long)user,
	       (unsigned long long)p.parsed, (unsigned long long)p.user_evs);
	write_expect(&p, dir, name);
	gt_map_free(&f.ids);
	walk_close(&o);
out:
	walk_close(&a);
	plan_free(&p);
}

/* A generated go 1.@minor trace in @dir. */
static void generate(const char *path, int minor)
{
	struct gen_opts o = { .target = 1 << 20, .gen_bytes = 512 << 10, .minor = minor,
			      .nprocs = 4, .ngs = 200 };

	o.out = fopen(path, "wb");
	if (!o.out)
		die(path);
	gen_tracev2(&o);
	if (fclose(o.out))
		die(path);
}

/* Inserts jn_splice() refuses, with their messages. */
static void test_refused(const char *app, const char *dir)
{
	struct plan p = { 0 };
	struct walk a;
	struct gt_error err;
	char out[4096], want[200];
	uint64_t off, time;

	snprintf(out, sizeof(out), "%s/refused.trace", dir);
	walk_open(&a, app);
	do
		walk_next(&a);
	while (a.ev.type != GT2_EV_EVENT_BATCH || a.m == NO_THREAD);
	walk_next(&a);
	off = a.ev.off;
	time = a.time;
	p.key = str(&p, "kernel");
	add(&p, off, time - 1, GT2_EV_USER_LOG, p.key, p.key);
	splice_to(app, out, &p, &err);
	snprintf(want, sizeof(want), "the insert after the event at offset %llu is at time %llu, "
		 "before the event's %llu", (unsigned long long)off, (unsigned long long)time - 1,
		 (unsigned long long)time);
	tap_ok(!strcmp(err.msg, want), "an insert before its event's time: \"%s\"", err.msg);
	p.ins[0] = (struct jn_insert){ off + 1, time, GT2_EV_USER_LOG, p.key, p.key };
	splice_to(app, out, &p, &err);
	snprintf(want, sizeof(want), "an insert is after offset %llu, where no event of an M's "
		 "batch starts", (unsigned long long)off + 1);
	tap_ok(!strcmp(err.msg, want), "an insert inside an event: \"%s\"", err.msg);
	walk_close(&a);
	plan_free(&p);
}

int main(int argc, char *argv[])
{
	const char *dir = getenv("GT_SPLICE_DIR");
	char tmp[] = "/tmp/test_splice.XXXXXX", path[4096], name[256];
	const char *base;
	int i, minor;

	if (!dir) {
		dir = mkdtemp(tmp);
		if (!dir)
			die("mkdtemp");
	}
	for (minor = 25; minor <= 26; minor++) {
		snprintf(path, sizeof(path), "%s/gen-1.%d.app", dir, minor);
		generate(path, minor);
		snprintf(name, sizeof(name), "gen-1.%d", minor);
		test_trace(path, dir, name);
		if (minor == 26)
			test_refused(path, dir);
	}
	for (i = 1; i < argc; i++) {
		base = strrchr(argv[i], '/');
		snprintf(name, sizeof(name), "%s", base ? base + 1 : argv[i]);
		*strrchr(name, '.') = 0;
		test_trace(argv[i], dir, name);
	}
	return tap_done();
}
