// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace pprof: a trace's CPU samples (--cpu-samples) as a pprof CPU
 * profile, which 'go tool pprof' reads: each CPUSample's stack, innermost
 * frame first, function and file named as the trace names them. Formats
 * before 1.22 have one stack table; a Go 1.22+ trace has one per
 * generation, so stacks become locations by content (pprof.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <linux/gotrace.h>

#include "cli.h"
#include "gtrace.h"
#include "report/parsed.h"
#include "report/pprof.h"
#include "util/msg.h"
#include "util/parse.h"
#include "util/trace_file.h"

/* Samples' stacks resolved once: stack id -> where its location ids are in @locs. */
struct stack_cache {
	struct gt_map ids;	/* stack id -> index + 1 in locs of [n, n location ids] */
	uint64_t *locs;
	size_t nlocs, cap_locs;
	uint64_t gen;		/* Go 1.22+: the generation whose stack ids these are */
};

struct conv {
	struct pprof prof;
	struct stack_cache cache;
	struct gt_frame *frames;	/* formats before 1.22: gt_stack()'s */
	unsigned int cap_frames;
	int64_t first, last;		/* ns */
	bool seen;
};

static void pprof_help(void)
{
	printf("Usage: %s pprof [--hz HZ] [-o FILE] TRACE\n"
	       "Write the CPU samples of a trace recorded with --cpu-samples (gotrace start\n"
	       "or record) as a pprof CPU profile, for 'go tool pprof': the kernel stack of\n"
	       "each sample, innermost frame first, the thread's program as its outermost\n"
	       "frame, and a 'goroutine' label with the thread's goroutine id. The profile\n"
	       "is profile.proto, not compressed. Every trace format with samples: 1.19,\n"
	       "1.21 and 1.22 to 1.26.\n\n"
	       "The trace does not say how often it sampled: the profile counts samples\n"
	       "(samples/count); with --hz it also has CPU time (cpu/nanoseconds, 1 s / HZ\n"
	       "a sample), the default sample type.\n\n"
	       "  -o, --output FILE  write the profile to FILE (default: standard output,\n"
	       "                     if it is not a terminal)\n"
	       "      --hz HZ        the --cpu-samples rate the trace was recorded with\n"
	       "                     (1 to %d)\n"
	       "  -h, --help         show this help\n", program_invocation_short_name,
	       GOTRACE_CPU_SAMPLE_HZ_MAX);
}

/* The cached location ids of a stack, [n, ids...], or NULL if not resolved yet. */
static const uint64_t *cache_get(const struct stack_cache *c, uint64_t stk)
{
	uint64_t *v = gt_map_get(&c->ids, stk);

	return v ? &c->locs[*v - 1] : NULL;
}

/* Room for a stack of @n locations at the end of c->locs; false if out of memory. */
static bool cache_room(struct stack_cache *c, size_t n)
{
	size_t need = c->nlocs + 1 + n, cap = c->cap_locs ? c->cap_locs : 256;
	uint64_t *p;

	if (need > c->cap_locs) {
		while (cap < need)
			cap *= 2;
		p = realloc(c->locs, cap * sizeof(*p));
		if (!p)
			return false;
		c->locs = p;
		c->cap_locs = cap;
	}
	return true;
}

/* Makes the stack at the end of c->locs (its length, then as many ids) stack @stk's. */
static const uint64_t *cache_put(struct stack_cache *c, uint64_t stk)
{
	uint64_t *v;
	bool added;
	size_t at = c->nlocs;

	v = gt_map_put(&c->ids, stk, &added);
	if (!v)
		return NULL;
	*v = at + 1;
	c->nlocs += 1 + c->locs[at];
	return &c->locs[at];
}

static void cache_reset(struct stack_cache *c, uint64_t gen)
{
	gt_map_free(&c->ids);
	gt_map_init(&c->ids);
	c->nlocs = 0;
	c->gen = gen;
}

static void cache_free(struct stack_cache *c)
{
	gt_map_free(&c->ids);
	free(c->locs);
}

static void conv_time(struct conv *c, int64_t ns)
{
	if (!c->seen || ns < c->first)
		c->first = ns;
	if (!c->seen || ns > c->last)
		c->last = ns;
	c->seen = true;
}

/* One sample of stack @locs ([n, ids...]); non-zero when out of memory. */
static int conv_add(struct conv *c, const uint64_t *locs, int64_t g)
{
	if (!locs)
		c->prof.oom = true;
	else
		pprof_add(&c->prof, locs + 1, locs[0], g > 0 ? (uint64_t)g : 0);
	return c->prof.oom;
}

/* Formats before 1.22: stack @stk's frames, in c->frames; their number, or -1 if out of memory. */
static int frames_of(struct conv *c, const struct gt_trace *t, uint64_t stk)
{
	unsigned int n = gt_stack(t, stk, c->frames, c->cap_frames);
	struct gt_frame *f;

	if (n <= c->cap_frames)
		return (int)n;
	f = realloc(c->frames, n * sizeof(*f));
	if (!f)
		return -1;
	c->frames = f;
	c->cap_frames = n;
	return (int)gt_stack(t, stk, c->frames, n);
}

static uint64_t old_string(struct conv *c, const struct gt_trace *t, uint64_t id)
{
	size_t len;
	const char *s = gt_string(t, id, &len);

	return pprof_string(&c->prof, s, len);
}

static const uint64_t *old_stack(struct conv *c, const struct gt_trace *t, uint64_t stk)
{
	struct stack_cache *k = &c->cache;
	const struct gt_frame *f;
	int n = frames_of(c, t, stk), i;

	if (n < 0 || !cache_room(k, (size_t)n))
		return NULL;
	for (i = 0; i < n; i++) {
		f = &c->frames[i];
		k->locs[k->nlocs + 1 + i] = pprof_location(&c->prof, f->pc,
							   old_string(c, t, f->fn),
							   old_string(c, t, f->file), f->line);
	}
	k->locs[k->nlocs] = (uint64_t)n;
	return cache_put(k, stk);
}

static int old_event(void *ctx, const struct gt_trace *t, const struct gt_event *ev)
{
	struct conv *c = ctx;
	const uint64_t *locs;

	conv_time(c, gt_ns(t, ev->ts));
	if (ev->type != GT_EV_CPU_SAMPLE)
		return 0;
	locs = cache_get(&c->cache, ev->stk);
	if (!locs)
		locs = old_stack(c, t, ev->stk);
	return conv_add(c, locs, (int64_t)ev->g);
}

static uint64_t gen_string(struct conv *c, const struct gt2_gen *g, uint64_t id)
{
	struct gt2_str s;

	gt2_gen_string(g, id, &s);
	return pprof_string(&c->prof, s.s, s.len);
}

/* Go 1.22+: stack @stk of generation @g (the reader checked its frames are there). */
static const uint64_t *gen_stack(struct conv *c, const struct gt2_gen *g, uint64_t stk)
{
	struct stack_cache *k = &c->cache;
	const struct gt2_stack *st;
	const struct gt2_frame *f;
	uint64_t n = 0, i;
	bool ok;

	st = gt2_gen_stack(g, stk, &ok);
	if (!cache_room(k, st->n))
		return NULL;
	for (i = 0; i < st->n; i++) {
		f = gt2_gen_frame(g, g->pcs[st->first + i]);
		if (f)
			k->locs[k->nlocs + 1 + n++] =
				pprof_location(&c->prof, f->pc, gen_string(c, g, f->func),
					       gen_string(c, g, f->file), f->line);
	}
	k->locs[k->nlocs] = n;
	return cache_put(k, stk);
}

static int gen_sample(struct conv *c, const struct gt2_event *ev)
{
	const uint64_t *locs;

	if (ev->gen->gen != c->cache.gen)
		cache_reset(&c->cache, ev->gen->gen);
	locs = cache_get(&c->cache, ev->args[0]);
	if (!locs)
		locs = gen_stack(c, ev->gen, ev->args[0]);
	return conv_add(c, locs, ev->g);
}

/* Every event of a Go 1.22+ trace: 0, 1 when out of memory, -1 with @err set. */
static int read2(struct conv *c, const struct gt2_trace *t, struct gt_error *err)
{
	struct gt2_reader *r;
	struct gt2_event ev;
	int k;

	if (gt2_reader_open(t, &r, err))
		return -1;
	while ((k = gt2_reader_next(r, &ev, err)) > 0) {
		conv_time(c, ev.time);
		if (ev.type == GT2_EV_CPU_SAMPLE && gen_sample(c, &ev)) {
			k = 1;
			break;
		}
	}
	gt2_reader_close(r);
	return k;
}

/* The trace at @path read into c->prof: EXIT_SUCCESS, or EXIT_FAILURE after a message. */
static int read_trace(struct conv *c, const char *path)
{
	struct gt2_trace *t2 = parsed_open(path);
	struct gt_trace *t = NULL;
	struct gt_error err;
	int r;

	if (!t2) {
		t = trace_open("pprof", path);
		if (!t)
			return EXIT_FAILURE;
	}
	r = t2 ? read2(c, t2, &err) : gt_check(t, old_event, c, &err);
	if (r < 0)
		trace_error("pprof", path, &err);
	else if (r > 0)
		msg_err("pprof", "out of memory");
	if (t2)
		gt2_close(t2);
	else
		gt_close(t);
	return r ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* @out for writing, 0600 as record's trace (the profile names every program it sampled). */
static FILE *create(const char *out)
{
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");

	if (fd >= 0 && !f)
		close(fd);
	return f;
}

/* @b to @out (NULL: standard output): EXIT_SUCCESS, or EXIT_FAILURE after a message. */
static int write_profile(const struct pb *b, const char *out)
{
	FILE *f = out ? create(out) : stdout;
	int ret = EXIT_SUCCESS;

	if (!f) {
		msg_err("pprof", "cannot create %s: %s", out, strerror(errno));
		return EXIT_FAILURE;
	}
	if (fwrite(b->buf, 1, b->len, f) != b->len || fflush(f))
		ret = EXIT_FAILURE;
	if (out && fclose(f))
		ret = EXIT_FAILURE;
	if (ret == EXIT_FAILURE) {
		msg_err("pprof", "cannot write %s: %s", out ? out : "the output", strerror(errno));
		if (out)
			unlink(out);
	}
	return ret;
}

/* Whether @out is the trace at @path itself (which the profile must not overwrite). */
static bool is_trace(const char *path, const char *out)
{
	struct stat a, b;

	return out && !stat(path, &a) && !stat(out, &b) && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/* The profile of the trace at @path, to @out. */
static int convert(const char *path, const char *out, uint32_t hz)
{
	struct conv c = { .cache.gen = UINT64_MAX };
	struct pprof_info info = { 0 };
	struct pb b;
	int ret;

	if (is_trace(path, out)) {
		msg_err("pprof", "%s is the trace: give -o another FILE", out);
		return EXIT_FAILURE;
	}
	pprof_init(&c.prof);
	gt_map_init(&c.cache.ids);
	pb_init(&b);
	ret = read_trace(&c, path);
	if (ret == EXIT_SUCCESS && !c.prof.total) {
		msg_err("pprof", "%s: no CPU samples in the trace: record it with %s", path,
			"--cpu-samples HZ (gotrace record --cpu-samples 1000 ..., format 1.19 or later)");
		ret = EXIT_FAILURE;
	}
	if (ret == EXIT_SUCCESS) {
		info.period_ns = hz ? 1000000000 / hz : 0;
		info.duration_ns = c.last - c.first;
		if (pprof_encode(&c.prof, &info, &b)) {
			ret = write_profile(&b, out);
		} else {
			msg_err("pprof", "out of memory");
			ret = EXIT_FAILURE;
		}
	}
	pb_free(&b);
	cache_free(&c.cache);
	free(c.frames);
	pprof_free(&c.prof);
	return ret;
}

int cmd_pprof(int argc, char *argv[])
{
	enum { OPT_HZ = 256 };
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "hz", required_argument, NULL, OPT_HZ },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *path, *out = NULL;
	uint32_t hz = 0;
	int c;

	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case OPT_HZ:
			if (!parse_sample_hz("pprof", "--hz", optarg, &hz))
				return msg_usage("pprof");
			break;
		case 'h':
			pprof_help();
			return EXIT_SUCCESS;
		default:
			return msg_usage("pprof");
		}
	}
	path = trace_path("pprof", argc, argv);
	if (!path)
		return msg_usage("pprof");
	if (!out && isatty(STDOUT_FILENO)) {
		msg_err("pprof", "the profile is binary: give -o FILE, or redirect the output");
		return msg_usage("pprof");
	}
	return convert(path, out, hz);
}
