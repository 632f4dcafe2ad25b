// SPDX-License-Identifier: GPL-2.0
/*
 * Writes a consistent pair of Go 1.26 traces of the same time for
 * 'gotrace merge' benchmarks: APP, as a Go program traces itself (NTHREADS
 * Ms with their thread ids as M, one P each, goroutines that run, stop,
 * block, wake each other and make system calls, some of which end blocked
 * after sysmon stole their P), and MACHINE, as 'gotrace record --format 1.26
 * --clock mono' records the machine (CPUs as Ms and Ps, threads as
 * goroutines G = tid, GoBlock with a [reason, program] stack, GoStop
 * "preempted"). APP's thread i lives on CPU i and is switched out there,
 * preempted or blocked, while APP runs goroutines on it; other threads run
 * on its CPU meanwhile, or none does; more CPUs run other threads only, as
 * much as keeps MACHINE about APP's size. One clock of 64 ns ticks
 * (frequency 15625000); each generation's ClockSnapshot has mono = ticks * 64.
 * Usage: gen_join APP MACHINE MEGABYTES [NTHREADS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_trace.h"
#include "tracebuf.h"
#include "tracev2.h"

#define BATCH_BYTES	(63 << 10)
#define GEN_BYTES	(4 << 20)
#define FREQUENCY	15625000	/* ticks of 64 ns */
#define NO_THREAD	((uint64_t)-1)
#define NONE		(-1)
#define APP_TID		1000		/* APP's M i is thread APP_TID + i */
#define OTHER_TID	2000		/* other thread k is OTHER_TID + k */
#define OTHERS		3		/* other threads per CPU */
#define EXTRA_CPUS	2		/* CPUs of other threads only */
#define APP_STACKS	4

/* Go's tracev2 GoStatus and ProcStatus values. */
enum { GO_RUNNABLE = 1, GO_RUNNING = 2, GO_WAITING = 4 };
enum { PROC_RUNNING = 1 };

/* An M's open batch. */
struct wm {
	struct tbuf buf;
	uint64_t id, time, last;
};

/* One trace being written: its Ms' batches, its tables. */
struct wtrace {
	FILE *f;
	size_t written;
	struct wm *ms;
	unsigned int nms;
	const char *const *strs;
	size_t nstrs;
	void (*stacks)(struct tbuf *b);
};

/* A goroutine of APP or a thread of MACHINE. */
struct g {
	uint64_t id, seq, gen;
	int state;		/* GO_RUNNABLE, GO_RUNNING or GO_WAITING */
	unsigned int m;		/* the M it runs on, when GO_RUNNING */
};

enum { SYS_NONE, SYS_IN, SYS_STOLEN };

/* APP's M i: its goroutine, its system call. */
struct am {
	int g;			/* goroutine slot running, NONE for none */
	int sys;		/* SYS_* */
	uint64_t p_seq;
};

struct sim {
	struct wtrace app, mach;
	unsigned int nthreads, ncpus;
	size_t target, gen_end;
	struct g *gs;		/* APP's goroutines */
	unsigned int ngs;
	int *queue;		/* APP's runnable goroutines, a ring */
	uint64_t head, tail;
	struct am *ams;
	struct g *ths;		/* MACHINE's threads: APP's first, then the others */
	unsigned int nths;
	int *cur;		/* by CPU: the thread running, NONE for none */
	uint64_t gen, gen_start, now, rng;
};

/* APP's strings: reasons, then functions. */
static const char *const app_strs[] = {
	"preempted", "chan receive", "sync", "select", "sleep",
	"main.main", "/src/main.go",
	"main.worker1", "main.worker2", "main.worker3", "main.worker4",
};

enum { A_PREEMPTED = 1, A_BLOCK, NR_A_BLOCK = 4, A_MAIN = 6, A_MAIN_GO, A_WORKER };

/* MACHINE's strings: block reasons ("preempted" first), programs, the file. */
static const char *const mach_strs[] = {
	"preempted", "page fault or kernel wait", "futex", "read", "epoll_wait",
	"app", "other", "linux",
};

enum { M_PREEMPTED = 1, M_KWAIT, M_FUTEX, M_READ, M_EPOLL, NR_REASONS = 5,
       M_APP = 6, M_OTHER, NR_PROGS = 2, M_LINUX = 8 };

static uint64_t rnd(struct sim *s, uint64_t n)
{
	return gen_rnd(&s->rng, n);
}

static void put(struct wtrace *w, const void *p, size_t n)
{
	fwrite(p, 1, n, w->f);
	w->written += n;
}

/* A batch of generation @gen on thread @m at @time, holding @body, which it empties. */
static void batch(struct wtrace *w, uint64_t gen, uint64_t m, uint64_t time, struct tbuf *body)
{
	struct tbuf hdr = { 0 };

	TB_EV2(&hdr, GT2_EV_EVENT_BATCH, gen, m, time, body->len);
	put(w, hdr.data, hdr.len);
	put(w, body->data, body->len);
	body->len = 0;
	tb_free(&hdr);
}

static void flush(struct sim *s, struct wtrace *w, unsigned int i)
{
	if (w->ms[i].buf.len)
		batch(w, s->gen, w->ms[i].id, w->ms[i].time, &w->ms[i].buf);
}

/* An event on M @i of @w one tick on, its time delta in @dt. */
static struct tbuf *event(struct sim *s, struct wtrace *w, unsigned int i, uint64_t *dt)
{
	struct wm *m = &w->ms[i];

	s->now++;
	if (m->buf.len >= BATCH_BYTES)
		flush(s, w, i);
	if (!m->buf.len)
		m->time = m->last = s->now;
	*dt = s->now - m->last;
	m->last = s->now;
	return &m->buf;
}

/* @g's status on M @i of @w before its first event of the generation (@stack: MACHINE's). */
static void status(struct sim *s, struct wtrace *w, unsigned int i, struct g *g, uint64_t stack)
{
	uint64_t m = g->state == GO_RUNNING ? w->ms[g->m].id : NO_THREAD, dt;
	struct tbuf *b;

	if (g->gen == s->gen)
		return;
	b = event(s, w, i, &dt);
	if (stack)
		TB_EV2(b, GT2_EV_GO_STATUS_STACK, dt, g->id, m, g->state, stack);
	else
		TB_EV2(b, GT2_EV_GO_STATUS, dt, g->id, m, g->state);
	g->gen = s->gen;
	g->seq = 0;
}

/* APP: goroutine @slot starts on M @i. */
static void app_start(struct sim *s, unsigned int i, int slot)
{
	struct g *g = &s->gs[slot];
	struct tbuf *b;
	uint64_t dt;

	status(s, &s->app, i, g, 0);
	b = event(s, &s->app, i, &dt);
	TB_EV2(b, GT2_EV_GO_START, dt, g->id, ++g->seq);
	g->state = GO_RUNNING;
	g->m = i;
	s->ams[i].g = slot;
}

static void app_runnable(struct sim *s, int slot)
{
	s->gs[slot].state = GO_RUNNABLE;
	s->queue[s->tail++ % s->ngs] = slot;
}

/* APP: a waiting goroutine, if the one picked is, made runnable by M @i. */
static void app_unblock(struct sim *s, unsigned int i)
{
	int slot = (int)rnd(s, s->ngs);
	struct g *g = &s->gs[slot];
	struct tbuf *b;
	uint64_t dt;

	if (g->state != GO_WAITING)
		return;
	status(s, &s->app, i, g, 0);
	b = event(s, &s->app, i, &dt);
	TB_EV2(b, GT2_EV_GO_UNBLOCK, dt, g->id, ++g->seq, 1 + rnd(s, APP_STACKS));
	app_runnable(s, slot);
}

/* APP: the goroutine on M @i stops, blocks or enters a system call. */
static void app_run(struct sim *s, unsigned int i)
{
	struct am *m = &s->ams[i];
	uint64_t r = rnd(s, 100), dt;
	struct tbuf *b;

	if (r >= 50) {
		if (r < 70)
			app_unblock(s, i);
		if (r < 70)
			return;
		b = event(s, &s->app, i, &dt);
		TB_EV2(b, GT2_EV_GO_SYSCALL_BEGIN, dt, ++m->p_seq, 1 + rnd(s, APP_STACKS));
		m->sys = SYS_IN;
		return;
	}
	b = event(s, &s->app, i, &dt);
	if (r < 25) {
		TB_EV2(b, GT2_EV_GO_STOP, dt, A_PREEMPTED, 1 + rnd(s, APP_STACKS));
		app_runnable(s, m->g);
	} else {
		TB_EV2(b, GT2_EV_GO_BLOCK, dt, A_BLOCK + rnd(s, NR_A_BLOCK), 1 + rnd(s, APP_STACKS));
		s->gs[m->g].state = GO_WAITING;
	}
	m->g = NONE;
}

/* APP: M @i's system call ends, or sysmon (the last M) steals its P. */
static void app_syscall(struct sim *s, unsigned int i)
{
	struct am *m = &s->ams[i];
	struct tbuf *b;
	uint64_t dt;

	if (m->sys == SYS_IN && rnd(s, 4)) {
		b = event(s, &s->app, i, &dt);
		TB_EV2(b, GT2_EV_GO_SYSCALL_END, dt);
		m->sys = SYS_NONE;
	} else if (m->sys == SYS_IN) {
		b = event(s, &s->app, s->nthreads, &dt);
		TB_EV2(b, GT2_EV_PROC_STEAL, dt, i, ++m->p_seq, s->app.ms[i].id);
		m->sys = SYS_STOLEN;
	} else {
		b = event(s, &s->app, i, &dt);
		TB_EV2(b, GT2_EV_GO_SYSCALL_END_BLOCKED, dt);
		s->gs[m->g].state = GO_RUNNABLE;
		b = event(s, &s->app, i, &dt);
		TB_EV2(b, GT2_EV_PROC_START, dt, i, ++m->p_seq);
		m->sys = SYS_NONE;
		app_start(s, i, m->g);
	}
}

/* APP's M @i, its thread on its CPU, does something. */
static void app_step(struct sim *s, unsigned int i)
{
	struct am *m = &s->ams[i];

	if (m->sys != SYS_NONE)
		app_syscall(s, i);
	else if (m->g != NONE)
		app_run(s, i);
	else if (s->head != s->tail)
		app_start(s, i, s->queue[s->head++ % s->ngs]);
	else
		app_unblock(s, i);
}

/* MACHINE's stacks: [program] is 1 + program, [reason, program] the ones after. */
static uint64_t prog_stack(uint64_t prog)
{
	return 1 + prog - M_APP;
}

static uint64_t reason_stack(uint64_t reason, uint64_t prog)
{
	return 1 + NR_PROGS + (reason - 1) * NR_PROGS + prog - M_APP;
}

static uint64_t th_prog(const struct sim *s, unsigned int th)
{
	return th < s->nthreads ? M_APP : M_OTHER;
}

static void th_status(struct sim *s, unsigned int cpu, unsigned int th)
{
	status(s, &s->mach, cpu, &s->ths[th], prog_stack(th_prog(s, th)));
}

/* MACHINE: CPU @cpu's thread switches out, preempted or blocked in @reason. */
static void mach_out(struct sim *s, unsigned int cpu, uint64_t reason)
{
	unsigned int th = (unsigned int)s->cur[cpu];
	struct tbuf *b;
	uint64_t dt;

	th_status(s, cpu, th);
	b = event(s, &s->mach, cpu, &dt);
	if (reason == M_PREEMPTED) {
		TB_EV2(b, GT2_EV_GO_STOP, dt, M_PREEMPTED, reason_stack(reason, th_prog(s, th)));
		s->ths[th].state = GO_RUNNABLE;
	} else {
		TB_EV2(b, GT2_EV_GO_BLOCK, dt, reason, reason_stack(reason, th_prog(s, th)));
		s->ths[th].state = GO_WAITING;
	}
	s->cur[cpu] = NONE;
}

/* MACHINE: thread @th, blocked, woken on CPU @cpu by what runs there (an interrupt if none). */
static void mach_unblock(struct sim *s, unsigned int cpu, unsigned int th)
{
	uint64_t stack = 0, dt;
	struct tbuf *b;

	th_status(s, cpu, th);
	if (s->cur[cpu] != NONE) {
		th_status(s, cpu, (unsigned int)s->cur[cpu]);
		stack = reason_stack(M_FUTEX, th_prog(s, (unsigned int)s->cur[cpu]));
	}
	b = event(s, &s->mach, cpu, &dt);
	TB_EV2(b, GT2_EV_GO_UNBLOCK, dt, s->ths[th].id, ++s->ths[th].seq, stack);
	s->ths[th].state = GO_RUNNABLE;
}

/* MACHINE: thread @th, runnable, switches in on CPU @cpu. */
static void mach_in(struct sim *s, unsigned int cpu, unsigned int th)
{
	struct tbuf *b;
	uint64_t dt;

	th_status(s, cpu, th);
	b = event(s, &s->mach, cpu, &dt);
	TB_EV2(b, GT2_EV_GO_START, dt, s->ths[th].id, ++s->ths[th].seq);
	s->ths[th].state = GO_RUNNING;
	s->ths[th].m = cpu;
	s->cur[cpu] = (int)th;
}

/* MACHINE: one of CPU @cpu's other threads, picked at random. */
static unsigned int mach_other(struct sim *s, unsigned int cpu)
{
	return s->nthreads + cpu * OTHERS + (unsigned int)rnd(s, OTHERS);
}

/* MACHINE: on an extra CPU, another of its threads, woken by the one running, runs. */
static void mach_filler(struct sim *s, unsigned int cpu)
{
	unsigned int th = mach_other(s, cpu);

	if (s->cur[cpu] == (int)th)
		return;
	if (s->ths[th].state == GO_WAITING)
		mach_unblock(s, cpu, th);
	if (s->cur[cpu] != NONE)
		mach_out(s, cpu, rnd(s, 2) ? M_PREEMPTED : M_FUTEX);
	mach_in(s, cpu, th);
}

/* MACHINE: APP's thread @i switches out on its CPU; another thread runs there, or none. */
static void mach_app_out(struct sim *s, unsigned int i)
{
	static const uint64_t sys_reasons[] = { M_FUTEX, M_READ, M_EPOLL };
	uint64_t reason = M_PREEMPTED;
	int th = NONE;

	if (s->ams[i].sys != SYS_NONE)
		reason = sys_reasons[rnd(s, 3)];
	else if (rnd(s, 3) == 0)
		reason = M_KWAIT;
	if (rnd(s, 4))
		th = (int)mach_other(s, i);
	if (th != NONE && s->ths[th].state == GO_WAITING)
		mach_unblock(s, i, (unsigned int)th);
	mach_out(s, i, reason);
	if (th != NONE)
		mach_in(s, i, (unsigned int)th);
}

/* MACHINE: APP's thread @i, switched out, back on its CPU. */
static void mach_app_in(struct sim *s, unsigned int i)
{
	if (s->ths[i].state == GO_WAITING)
		mach_unblock(s, i, i);
	if (s->cur[i] != NONE)
		mach_out(s, i, rnd(s, 2) ? M_PREEMPTED : M_FUTEX);
	mach_in(s, i, i);
}

/* APP's thread @i (or, to keep MACHINE APP's size, an extra CPU) does something. */
static void step(struct sim *s)
{
	unsigned int i = (unsigned int)rnd(s, s->nthreads);

	s->now += rnd(s, 40);
	if (s->mach.written + 4 * BATCH_BYTES < s->app.written)
		mach_filler(s, s->nthreads + (unsigned int)rnd(s, EXTRA_CPUS));
	if (s->ths[i].state != GO_RUNNING) {
		if (rnd(s, 4) == 0)
			mach_app_in(s, i);
	} else if (rnd(s, 100) < 3) {
		mach_app_out(s, i);
	} else {
		app_step(s, i);
	}
}

/* APP's stack i: a worker's frame and main.main's below it. */
static void app_stacks(struct tbuf *b)
{
	uint64_t i;

	TB_EV2(b, GT2_EV_STACKS);
	for (i = 1; i <= APP_STACKS; i++)
		TB_EV2(b, GT2_EV_STACK, i, 2,
		       0x401000 + 16 * i, A_WORKER + i - 1, A_MAIN_GO, 10 * i,
		       0x400800, A_MAIN, A_MAIN_GO, 7);
}

/* MACHINE's stacks: [program], then [reason, program], as gotrace names them. */
static void mach_stacks(struct tbuf *b)
{
	uint64_t r, p;

	TB_EV2(b, GT2_EV_STACKS);
	for (p = M_APP; p < M_APP + NR_PROGS; p++)
		TB_EV2(b, GT2_EV_STACK, prog_stack(p), 1, 0x1000 + p, p, M_LINUX, 0);
	for (r = 1; r <= NR_REASONS; r++)
		for (p = M_APP; p < M_APP + NR_PROGS; p++)
			TB_EV2(b, GT2_EV_STACK, reason_stack(r, p), 2, 0x1000 + r, r, M_LINUX, 0,
			       0x1000 + p, p, M_LINUX, 0);
}

/* @w's open batches, its sync batch, tables and the generation's end. */
static void gen_end(struct sim *s, struct wtrace *w)
{
	static const uint8_t end = GT2_EV_END_OF_GENERATION;
	uint64_t mono = s->gen_start * 64;
	struct tbuf b = { 0 };
	unsigned int i;

	for (i = 0; i < w->nms; i++)
		flush(s, w, i);
	TB_EV2(&b, GT2_EV_SYNC);
	TB_EV2(&b, GT2_EV_FREQUENCY, FREQUENCY);
	TB_EV2(&b, GT2_EV_CLOCK_SNAPSHOT, 0, mono, 1700000000 + mono / 1000000000,
	       mono % 1000000000);
	batch(w, s->gen, NO_THREAD, s->gen_start, &b);
	TB_EV2(&b, GT2_EV_STRINGS);
	for (i = 0; i < w->nstrs; i++)
		tb_string2(&b, i + 1, w->strs[i]);
	batch(w, s->gen, NO_THREAD, s->now, &b);
	w->stacks(&b);
	batch(w, s->gen, NO_THREAD, s->now, &b);
	tb_free(&b);
	put(w, &end, 1);
}

/* Each P's status and its running goroutine's or thread's, on its M. */
static void gen_start(struct sim *s)
{
	struct tbuf *b;
	unsigned int i;
	uint64_t dt;

	s->gen_start = s->now + 1;
	for (i = 0; i < s->nthreads; i++) {
		b = event(s, &s->app, i, &dt);
		TB_EV2(b, GT2_EV_PROC_STATUS, dt, i, PROC_RUNNING);
		s->ams[i].p_seq = 0;
		if (s->ams[i].g != NONE)
			status(s, &s->app, i, &s->gs[s->ams[i].g], 0);
	}
	for (i = 0; i < s->ncpus; i++) {
		b = event(s, &s->mach, i, &dt);
		TB_EV2(b, GT2_EV_PROC_STATUS, dt, i, PROC_RUNNING);
		if (s->cur[i] != NONE)
			th_status(s, i, (unsigned int)s->cur[i]);
	}
}

/* A new generation, once no M of APP is in a system call (its P's status would be). */
static void gen_next(struct sim *s)
{
	unsigned int i;

	if (s->app.written < s->gen_end)
		return;
	for (i = 0; i < s->nthreads; i++)
		if (s->ams[i].sys != SYS_NONE)
			return;
	gen_end(s, &s->app);
	gen_end(s, &s->mach);
	s->gen++;
	s->gen_end = s->app.written + GEN_BYTES;
	gen_start(s);
}

static void *zalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p) {
		perror("gen_join");
		exit(EXIT_FAILURE);
	}
	return p;
}

static void wtrace_init(struct wtrace *w, const char *path, unsigned int nms, uint64_t first_m)
{
	struct tbuf hdr = { 0 };
	unsigned int i;

	w->f = fopen(path, "w");
	if (!w->f) {
		perror(path);
		exit(EXIT_FAILURE);
	}
	w->nms = nms;
	w->ms = zalloc(nms, sizeof(*w->ms));
	for (i = 0; i < nms; i++)
		w->ms[i].id = first_m + i;
	tb_header(&hdr, 26);
	put(w, hdr.data, hdr.len);
	tb_free(&hdr);
}

static void wtrace_close(struct wtrace *w, const char *path)
{
	unsigned int i;

	for (i = 0; i < w->nms; i++)
		tb_free(&w->ms[i].buf);
	free(w->ms);
	if (fclose(w->f)) {
		perror(path);
		exit(EXIT_FAILURE);
	}
}

/* APP's goroutines all runnable; each CPU running its APP thread, or its first other thread. */
static void setup(struct sim *s)
{
	unsigned int i;

	s->ngs = 4 * s->nthreads;
	s->gs = zalloc(s->ngs, sizeof(*s->gs));
	s->queue = zalloc(s->ngs, sizeof(*s->queue));
	s->ams = zalloc(s->nthreads, sizeof(*s->ams));
	s->ncpus = s->nthreads + EXTRA_CPUS;
	s->nths = s->nthreads + s->ncpus * OTHERS;
	s->ths = zalloc(s->nths, sizeof(*s->ths));
	s->cur = zalloc(s->ncpus, sizeof(*s->cur));
	for (i = 0; i < s->ngs; i++) {
		s->gs[i].id = i + 1;
		app_runnable(s, (int)i);
	}
	for (i = 0; i < s->nthreads; i++) {
		s->ams[i].g = NONE;
		s->ths[i].id = APP_TID + i;
	}
	for (i = s->nthreads; i < s->nths; i++) {
		s->ths[i].id = OTHER_TID + i - s->nthreads;
		s->ths[i].state = GO_RUNNABLE;
	}
	for (i = 0; i < s->ncpus; i++) {
		s->cur[i] = (int)(i < s->nthreads ? i : s->nthreads + i * OTHERS);
		s->ths[s->cur[i]].state = GO_RUNNING;
		s->ths[s->cur[i]].m = i;
	}
}

int main(int argc, char **argv)
{
	struct sim s = { .rng = 0x9e3779b97f4a7c15ULL, .now = 1000000, .gen = 1 };

	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: gen_join APP MACHINE MEGABYTES [NTHREADS]\n");
		return EXIT_FAILURE;
	}
	s.target = strtoull(argv[3], NULL, 0) << 20;
	s.nthreads = argc > 4 ? (unsigned int)strtoul(argv[4], NULL, 0) : 8;
	if (!s.target || !s.nthreads || s.nthreads > 256) {
		fprintf(stderr, "gen_join: MEGABYTES must be 1 or more, NTHREADS 1 to 256\n");
		return EXIT_FAILURE;
	}
	setup(&s);
	s.app = (struct wtrace){ .strs = app_strs, .nstrs = sizeof(app_strs) / sizeof(*app_strs),
				 .stacks = app_stacks };
	s.mach = (struct wtrace){ .strs = mach_strs, .nstrs = sizeof(mach_strs) / sizeof(*mach_strs),
				  .stacks = mach_stacks };
	/* APP's Ms: one per thread, then sysmon's, which has no P. */
	wtrace_init(&s.app, argv[1], s.nthreads + 1, APP_TID);
	wtrace_init(&s.mach, argv[2], s.ncpus, 0);
	s.gen_end = GEN_BYTES;
	gen_start(&s);
	while (s.app.written < s.target) {
		step(&s);
		gen_next(&s);
	}
	gen_end(&s, &s.app);
	gen_end(&s, &s.mach);
	wtrace_close(&s.app, argv[1]);
	wtrace_close(&s.mach, argv[2]);
	free(s.gs);
	free(s.queue);
	free(s.ams);
	free(s.ths);
	free(s.cur);
	return 0;
}
