// SPDX-License-Identifier: GPL-2.0
/* gotrace stats: what the scheduler did, per program, thread, CPU and stack. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gtrace.h"
#include "report/parsed.h"
#include "report/stats.h"
#include "report/stats_joined.h"
#include "util/json.h"
#include "util/msg.h"
#include "util/trace_file.h"

#define TOP_THREADS	20
#define TOP_STACKS	10
#define STACK_FRAMES	8

static const double quantiles[] = { 0.5, 0.9, 0.99 };

static void stats_help(void)
{
	printf("Usage: %s stats [--all] [--json] FILE\n"
	       "Summarise a valid trace: per program and per thread the time running,\n"
	       "runnable and blocked by reason (sync, net, syscall, sleep, other) and\n"
	       "context switches; wakeup-to-run latency p50/p90/p99/max overall and per\n"
	       "program; utilisation of each CPU; the stacks threads block on longest.\n"
	       "A program is the first function of a thread's create stack. The text counts\n"
	       "programs and threads that never ran without listing them, and lists the %d\n"
	       "threads with the most run time and the %d stacks with the most time blocked.\n"
	       "A Go trace joined with the machine's (gotrace merge) also gets a table per\n"
	       "goroutine function: running time, on a CPU, waiting for a CPU, throttled,\n"
	       "blocked and syscall blocked in the kernel (--json: go_functions).\n\n"
	       "  -a, --all   list every program, thread and stack\n"
	       "  -j, --json  print one JSON object (all programs and threads, times in ns)\n"
	       "  -h, --help  show this help\n", program_invocation_short_name, TOP_THREADS,
	       TOP_STACKS);
}

static int by_run(const void *a, const void *b)
{
	const struct stats_thread *x = *(void *const *)a, *y = *(void *const *)b;

	return x->run != y->run ? (x->run < y->run ? 1 : -1) : (x->g > y->g) - (x->g < y->g);
}

static int prog_by_run(const void *a, const void *b)
{
	const struct stats_prog *x = *(void *const *)a, *y = *(void *const *)b;

	return x->run != y->run ? (x->run < y->run ? 1 : -1) : (x->prog > y->prog) - (x->prog < y->prog);
}

static int stack_by_time(const void *a, const void *b)
{
	const struct stats_stack *x = *(void *const *)a, *y = *(void *const *)b;

	return x->blocked != y->blocked ? (x->blocked < y->blocked ? 1 : -1) :
	       (x->stk > y->stk) - (x->stk < y->stk);
}

static int cpu_by_id(const void *a, const void *b)
{
	const struct stats_cpu *x = *(void *const *)a, *y = *(void *const *)b;

	return (x->p > y->p) - (x->p < y->p);
}

static const char *name(const struct stats *st, uint64_t id, int *len)
{
	size_t n;
	const char *s = stats_string(st, id, &n);

	if (!n) {
		*len = 9;
		return "(unknown)";
	}
	*len = (int)n;
	return s;
}

static double ms(const struct stats *s, int64_t ticks)
{
	return stats_ns(s, ticks) / 1e6;
}

static double pct(const struct stats *s, int64_t part)
{
	return s->last > s->first ? 100.0 * (double)part / (double)(s->last - s->first) : 0;
}

/* Latency p50 p90 p99 max, in microseconds. */
static void text_latency(const struct hist *h)
{
	size_t i;

	for (i = 0; i < sizeof(quantiles) / sizeof(quantiles[0]); i++)
		printf(" %9.1f", (double)hist_quantile(h, quantiles[i]) / 1e3);
	printf(" %9.1f\n", (double)h->max / 1e3);
}

static void text_times(const struct stats *s, int64_t run, int64_t runnable, const int64_t *blocked,
		       uint64_t switches)
{
	int i;

	printf(" %10.3f %10.3f", ms(s, run), ms(s, runnable));
	for (i = 0; i < NR_REASONS; i++)
		printf(" %9.3f", ms(s, blocked[i]));
	printf(" %9" PRIu64, switches);
}

static void text_header(const char *first)
{
	printf("%-28s %10s %10s %9s %9s %9s %9s %9s %9s", first, "run(ms)", "runnable",
	       "sync", "net", "syscall", "sleep", "other", "switches");
}

static void text_programs(const struct stats *s, void **v, size_t n, bool all)
{
	uint64_t idle = 0, idle_threads = 0;
	const struct stats_prog *p;
	const char *nm;
	size_t i;
	int len;

	printf("\nPrograms (by run time; blocked times in ms; wakeup latency in us):\n");
	text_header("program");
	printf(" %7s %9s %9s %9s %9s\n", "threads", "p50", "p90", "p99", "max");
	for (i = 0; i < n; i++) {
		p = v[i];
		if (!all && stats_never_ran(p->run, p->switches)) {
			idle++;
			idle_threads += p->threads;
			continue;
		}
		nm = name(s, p->prog, &len);
		printf("%-28.*s", len > 28 ? 28 : len, nm);
		text_times(s, p->run, p->runnable, p->blocked, p->switches);
		printf(" %7" PRIu64, p->threads);
		text_latency(&p->latency);
	}
	if (idle)
		printf("  + %" PRIu64 " program%s (%" PRIu64 " thread%s) that never ran "
		       "(--all lists them)\n", idle, idle == 1 ? "" : "s", idle_threads,
		       idle_threads == 1 ? "" : "s");
}

/* How gotrace numbers goroutines, with @g (a listed id past the thread ids) as example. */
static void text_gid_note(uint64_t g)
{
	printf("Ids >= %d: goroutine id = thread id + %d x goroutines the thread id had before "
	       "(an exec or a reused id starts a new one): %" PRIu64 " is thread %" PRIu64 ".\n",
	       STATS_GEN_STRIDE, STATS_GEN_STRIDE, g, g % STATS_GEN_STRIDE);
}

static void text_threads(const struct stats *s, void **v, size_t n, bool all)
{
	size_t i, shown = 0, more = 0, idle = 0;
	const struct stats_thread *th;
	uint64_t note = 0;
	char label[64];
	const char *nm;
	int len;

	if (all)
		printf("\nThreads (all %zu, by run time):\n", n);
	else
		printf("\nThreads (top %d by run time):\n", TOP_THREADS);
	text_header("thread");
	putchar('\n');
	for (i = 0; i < n; i++) {
		th = v[i];
		if (!all && stats_never_ran(th->run, th->switches)) {
			idle++;
			continue;
		}
		if (!all && shown == TOP_THREADS) {
			more++;
			continue;
		}
		shown++;
		if (!note && th->g >= STATS_GEN_STRIDE)
			note = th->g;
		nm = name(s, th->prog, &len);
		snprintf(label, sizeof(label), "%" PRIu64 " %.*s", th->g, len, nm);
		printf("%-28.28s", label);
		text_times(s, th->run, th->runnable, th->blocked, th->switches);
		putchar('\n');
	}
	if (more || idle)
		printf("  + %zu more thread%s that ran, %zu that never ran (--all lists them)\n",
		       more, more == 1 ? "" : "s", idle);
	if (note)
		text_gid_note(note);
}

static void text_stack(const struct stats *s, uint64_t stk)
{
	struct gt_frame f[STACK_FRAMES];
	unsigned int n = stats_frames(s, stk, f, STACK_FRAMES), i;
	const char *fn, *file;
	int fl, il;

	for (i = 0; i < n && i < STACK_FRAMES; i++) {
		fn = name(s, f[i].fn, &fl);
		file = name(s, f[i].file, &il);
		printf("      %.*s (%.*s:%" PRIu64 ")\n", fl, fn, il, file, f[i].line);
	}
}

static void text_stacks(const struct stats *s, void **v, size_t n, bool all)
{
	const struct stats_stack *st;
	size_t i;

	printf("\n%s blocking stacks (by time blocked):\n", all ? "All" : "Top");
	for (i = 0; i < n && (all || i < TOP_STACKS); i++) {
		st = v[i];
		printf("  %10.3f ms %8" PRIu64 " times %-7s stack %" PRIu64 "\n", ms(s, st->blocked),
		       st->count, stats_reasons[st->reason], st->stk);
		text_stack(s, st->stk);
	}
	if (!all && n > TOP_STACKS)
		printf("  + %zu more stacks (--all lists them)\n", n - TOP_STACKS);
}

struct sorted {
	void **progs, **threads, **stacks, **cpus;
	size_t nr_progs, nr_threads, nr_stacks, nr_cpus;
};

static void text(const struct stats *s, const struct sorted *o, const char *path, bool all)
{
	const struct stats_cpu *c;
	size_t i;

	printf("%s: go 1.%d trace, %.3f ms, %" PRIu64 " events, %zu threads, %zu CPUs\n", path,
	       s->version - 1000, ms(s, s->last - s->first), s->events, o->nr_threads,
	       o->nr_cpus);
	printf("\nCPU utilisation:\n");
	for (i = 0; i < o->nr_cpus; i++) {
		c = o->cpus[i];
		printf("  P%-6" PRId64 " %5.1f%%\n", c->p, pct(s, c->busy));
	}
	printf("\nWakeup-to-run latency (us), %" PRIu64 " wakeups:  p50 p90 p99 max\n        ",
	       s->latency.count);
	text_latency(&s->latency);
	text_programs(s, o->progs, o->nr_progs, all);
	text_threads(s, o->threads, o->nr_threads, all);
	text_stacks(s, o->stacks, o->nr_stacks, all);
	stats_joined_text(s->joined, all);
}

static void json_times(struct json *j, const struct stats *s, int64_t run, int64_t runnable,
		       const int64_t *blocked, uint64_t switches)
{
	int i;

	json_double(j, "run_ns", stats_ns(s, run));
	json_double(j, "runnable_ns", stats_ns(s, runnable));
	json_begin(j, "blocked_ns", '{');
	for (i = 0; i < NR_REASONS; i++)
		json_double(j, stats_reasons[i], stats_ns(s, blocked[i]));
	json_end(j, '}');
	json_u64(j, "switches", switches);
}

static void json_latency(struct json *j, const struct hist *h)
{
	json_begin(j, "wakeup_latency_ns", '{');
	json_u64(j, "count", h->count);
	json_u64(j, "p50", hist_quantile(h, 0.5));
	json_u64(j, "p90", hist_quantile(h, 0.9));
	json_u64(j, "p99", hist_quantile(h, 0.99));
	json_u64(j, "max", h->max);
	json_end(j, '}');
}

static void json_name(struct json *j, const char *key, const struct stats *st, uint64_t id)
{
	int len;
	const char *s = name(st, id, &len);

	json_strn(j, key, s, (size_t)len);
}

static void json_lists(struct json *j, const struct stats *s, const struct sorted *o)
{
	const struct stats_thread *th;
	const struct stats_prog *p;
	size_t i;

	json_begin(j, "programs", '[');
	for (i = 0; i < o->nr_progs; i++) {
		p = o->progs[i];
		json_begin(j, NULL, '{');
		json_name(j, "program", s, p->prog);
		json_u64(j, "threads", p->threads);
		json_times(j, s, p->run, p->runnable, p->blocked, p->switches);
		json_latency(j, &p->latency);
		json_end(j, '}');
	}
	json_end(j, ']');
	json_begin(j, "threads", '[');
	for (i = 0; i < o->nr_threads; i++) {
		th = o->threads[i];
		json_begin(j, NULL, '{');
		json_u64(j, "g", th->g);
		json_name(j, "program", s, th->prog);
		json_times(j, s, th->run, th->runnable, th->blocked, th->switches);
		json_end(j, '}');
	}
	json_end(j, ']');
}

static void json_stacks(struct json *j, const struct stats *s, const struct sorted *o, bool all)
{
	struct gt_frame f[STACK_FRAMES];
	const struct stats_stack *st;
	unsigned int n, k;
	size_t i;

	json_begin(j, "blocking_stacks", '[');
	for (i = 0; i < o->nr_stacks && (all || i < TOP_STACKS); i++) {
		st = o->stacks[i];
		json_begin(j, NULL, '{');
		json_u64(j, "stack", st->stk);
		json_str(j, "reason", stats_reasons[st->reason]);
		json_double(j, "blocked_ns", stats_ns(s, st->blocked));
		json_u64(j, "count", st->count);
		json_begin(j, "frames", '[');
		n = stats_frames(s, st->stk, f, STACK_FRAMES);
		for (k = 0; k < n && k < STACK_FRAMES; k++) {
			json_begin(j, NULL, '{');
			json_name(j, "func", s, f[k].fn);
			json_name(j, "file", s, f[k].file);
			json_u64(j, "line", f[k].line);
			json_end(j, '}');
		}
		json_end(j, ']');
		json_end(j, '}');
	}
	json_end(j, ']');
}

static void json(const struct stats *s, const struct sorted *o, bool all)
{
	const struct stats_cpu *c;
	struct json j;
	size_t i;

	json_init(&j, stdout);
	json_begin(&j, NULL, '{');
	json_u64(&j, "version", (uint64_t)s->version);
	json_double(&j, "duration_ns", stats_ns(s, s->last - s->first));
	json_u64(&j, "events", s->events);
	json_begin(&j, "cpus", '[');
	for (i = 0; i < o->nr_cpus; i++) {
		c = o->cpus[i];
		json_begin(&j, NULL, '{');
		json_i64(&j, "p", c->p);
		json_double(&j, "utilisation", pct(s, c->busy) / 100);
		json_end(&j, '}');
	}
	json_end(&j, ']');
	json_latency(&j, &s->latency);
	json_lists(&j, s, o);
	json_stacks(&j, s, o, all);
	stats_joined_json(&j, s->joined);
	json_end(&j, '}');
}

static bool sort_all(const struct stats *s, struct sorted *o)
{
	o->progs = stats_sorted(&s->progs, prog_by_run, &o->nr_progs);
	o->threads = stats_sorted(&s->threads, by_run, &o->nr_threads);
	o->stacks = stats_sorted(&s->stacks, stack_by_time, &o->nr_stacks);
	o->cpus = stats_sorted(&s->cpus, cpu_by_id, &o->nr_cpus);
	return o->progs && o->threads && o->stacks && o->cpus;
}

static void free_sorted(struct sorted *o)
{
	free(o->progs);
	free(o->threads);
	free(o->stacks);
	free(o->cpus);
}

static int report(struct stats *s, const char *path, bool as_json, bool all)
{
	struct sorted o = { 0 };
	int ret = EXIT_FAILURE;

	if (stats_finish(s) || !sort_all(s, &o)) {
		msg_err("stats", "out of memory");
	} else {
		if (as_json)
			json(s, &o, all);
		else
			text(s, &o, path, all);
		ret = EXIT_SUCCESS;
	}
	free_sorted(&o);
	return ret;
}

int cmd_stats(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct gt2_trace *t2;
	struct gt_trace *t = NULL;
	struct gt_error err;
	struct stats s;
	const char *path;
	bool as_json = false, all = false;
	int c, r, ret = EXIT_FAILURE;

	while ((c = getopt_long(argc, argv, "ajh", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			all = true;
			break;
		case 'j':
			as_json = true;
			break;
		case 'h':
			stats_help();
			return EXIT_SUCCESS;
		default:
			return msg_usage("stats");
		}
	}
	path = trace_path("stats", argc, argv);
	if (!path)
		return msg_usage("stats");
	t2 = parsed_open(path);
	if (!t2) {
		t = trace_open("stats", path);
		if (!t)
			return EXIT_FAILURE;
	}
	stats_init(&s);
	if (t2) {
		r = stats_read2(&s, t2, &err);
	} else {
		stats_use_trace(&s, t);
		r = gt_check(t, stats_event, &s, &err);
	}
	if (r < 0)
		trace_error("stats", path, &err);
	else if (r > 0)
		msg_err("stats", "out of memory");
	else
		ret = report(&s, path, as_json, all);
	stats_free(&s);
	if (t2)
		gt2_close(t2);
	else
		gt_close(t);
	return output_done("stats", ret);
}
