// SPDX-License-Identifier: GPL-2.0
/*
 * Writes a large valid go 1.19 trace for benchmarks: a simulated scheduler
 * with NPROCS Ps and NGS goroutines that run, yield, block on the usual
 * reasons, wake each other and make blocking syscalls, one global clock,
 * per-P batches of 32 KiB as the Go runtime writes them. With -f 26, a
 * Go 1.26 trace instead (gen_tracev2.c), of generations of GEN_MIB (4) each;
 * with -f 25, the same as a Go 1.25 trace. With -e PCT (go 1.19), PCT % of
 * the goroutines that stop end instead, after creating the goroutine that
 * takes their place (a new id, as for a thread that renames itself).
 * Usage: gen_trace [-f 19|25|26] [-g GEN_MIB] [-e PCT] FILE MEGABYTES [NPROCS [NGS]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen_trace.h"
#include "gtrace.h"
#include "tracebuf.h"

#define BATCH_BYTES	(32 << 10)
#define NR_STACKS	8

enum { RUNNABLE, RUNNING, BLOCKED, SYSCALL };

struct g {
	uint64_t id;		/* the goroutine in this slot now */
	uint64_t seq;
	int state;
	uint64_t since;		/* when it entered a syscall */
};

struct proc {
	struct tbuf buf;
	uint64_t last;		/* time of the last event in the batch */
	uint64_t g;		/* running goroutine, 0 = none */
};

struct sim {
	FILE *out;
	size_t written, target;
	struct proc *ps;
	unsigned int nprocs;
	struct g *gs;
	uint64_t ngs, now, rng;
	unsigned int end_pct;
	uint64_t *queue;	/* runnable goroutines, a ring */
	uint64_t head, tail;
};

static uint64_t rnd(struct sim *s, uint64_t n)
{
	return gen_rnd(&s->rng, n);
}

static void flush(struct sim *s, unsigned int p)
{
	if (!s->ps[p].buf.len)
		return;
	fwrite(s->ps[p].buf.data, 1, s->ps[p].buf.len, s->out);
	s->written += s->ps[p].buf.len;
	s->ps[p].buf.len = 0;
}

/* An event on P @p now: a new batch when the current one is full. */
static struct tbuf *event(struct sim *s, unsigned int p, uint64_t *delta)
{
	struct proc *pr = &s->ps[p];

	s->now += 1 + rnd(s, 40);
	if (pr->buf.len >= BATCH_BYTES)
		flush(s, p);
	if (!pr->buf.len) {
		TB_EV(&pr->buf, GT_EV_BATCH, p, s->now);
		pr->last = s->now;
	}
	*delta = s->now - pr->last;
	pr->last = s->now;
	return &pr->buf;
}

static void make_runnable(struct sim *s, uint64_t g)
{
	s->gs[g].state = RUNNABLE;
	s->queue[s->tail++ % s->ngs] = g;
}

static void start(struct sim *s, unsigned int p)
{
	uint64_t g = s->queue[s->head++ % s->ngs], d;
	struct tbuf *b = event(s, p, &d);

	TB_EV(b, GT_EV_GO_START, d, s->gs[g].id, s->gs[g].seq++);
	s->gs[g].state = RUNNING;
	s->ps[p].g = g;
}

/* Someone blocked or in a syscall becomes runnable, by P @p. */
static void wake_one(struct sim *s, unsigned int p)
{
	uint64_t g = 1 + rnd(s, s->ngs - 1), d;
	struct g *gd = &s->gs[g];
	struct tbuf *b;

	if (gd->state == BLOCKED) {
		b = event(s, p, &d);
		TB_EV(b, GT_EV_GO_UNBLOCK, d, gd->id, gd->seq++, 1 + rnd(s, NR_STACKS));
		make_runnable(s, g);
	} else if (gd->state == SYSCALL) {
		b = event(s, p, &d);
		TB_EV(b, GT_EV_GO_SYSEXIT, d, gd->id, gd->seq++,
		      gd->since + 1 + rnd(s, s->now - gd->since));
		make_runnable(s, g);
	}
}

static void stop(struct sim *s, unsigned int p)
{
	static const unsigned int blocks[] = {
		GT_EV_GO_BLOCK, GT_EV_GO_BLOCK_SYNC, GT_EV_GO_BLOCK_NET, GT_EV_GO_SLEEP,
		GT_EV_GO_BLOCK_RECV, GT_EV_GO_BLOCK_SELECT,
	};
	uint64_t g = s->ps[p].g, d, r = rnd(s, 100);
	struct tbuf *b = event(s, p, &d);

	s->ps[p].g = 0;
	if (s->end_pct && rnd(s, 100) < s->end_pct) {
		/* Its successor in the slot first, then its end. */
		TB_EV(b, GT_EV_GO_CREATE, d, s->gs[g].id + s->ngs, 1 + g % NR_STACKS,
		      1 + rnd(s, NR_STACKS));
		b = event(s, p, &d);
		TB_EV(b, GT_EV_GO_END, d);
		s->gs[g].id += s->ngs;
		s->gs[g].seq = 1;
		make_runnable(s, g);
	} else if (r < 45) {
		TB_EV(b, r < 40 ? GT_EV_GO_SCHED : GT_EV_GO_PREEMPT, d, 1 + rnd(s, NR_STACKS));
		make_runnable(s, g);
	} else if (r < 85) {
		TB_EV(b, blocks[rnd(s, 6)], d, 1 + rnd(s, NR_STACKS));
		s->gs[g].state = BLOCKED;
	} else {
		TB_EV(b, GT_EV_GO_SYSCALL, d, 1 + rnd(s, NR_STACKS));
		b = event(s, p, &d);
		TB_EV(b, GT_EV_GO_SYSBLOCK, d);
		s->gs[g].state = SYSCALL;
		s->gs[g].since = s->now;
	}
}

static void step(struct sim *s)
{
	unsigned int p = (unsigned int)rnd(s, s->nprocs);

	if (s->ps[p].g && rnd(s, 3))
		stop(s, p);
	else if (s->ps[p].g || s->head == s->tail)
		wake_one(s, p);
	else
		start(s, p);
}

static void setup(struct sim *s)
{
	uint64_t g, d;
	unsigned int p;
	struct tbuf *b;

	for (g = 1; g < s->ngs; g++) {
		b = event(s, 0, &d);
		TB_EV(b, GT_EV_GO_CREATE, d, g, 1 + g % NR_STACKS, 0);
		s->gs[g].id = g;
		s->gs[g].seq = 1;
		make_runnable(s, g);
	}
	for (p = 0; p < s->nprocs; p++) {
		b = event(s, p, &d);
		TB_EV(b, GT_EV_PROC_START, d, p + 100);
	}
	b = event(s, 0, &d);
	TB_EV(b, GT_EV_GOMAXPROCS, d, s->nprocs, 0);
}

static void footer(struct sim *s)
{
	struct tbuf b = { 0 };
	uint64_t frames[2][4];
	char name[64];
	unsigned int i;

	TB_EV(&b, GT_EV_FREQUENCY, 1000000000);
	for (i = 1; i <= NR_STACKS; i++) {
		frames[0][0] = 0x1000 + 16 * i;
		frames[0][1] = 2 * i;
		frames[0][2] = 2 * i + 1;
		frames[0][3] = 10 * i;
		frames[1][0] = 0x2000;
		frames[1][1] = 2 * NR_STACKS + 2;
		frames[1][2] = 3;
		frames[1][3] = 1;
		tb_stack(&b, i, 2, frames);
		snprintf(name, sizeof(name), "main.worker%u", i);
		tb_string(&b, 2 * i, name);
		snprintf(name, sizeof(name), "/src/worker%u.go", i);
		tb_string(&b, 2 * i + 1, name);
	}
	tb_string(&b, 2 * NR_STACKS + 2, "main.main");
	fwrite(b.data, 1, b.len, s->out);
	tb_free(&b);
}

static void gen_trace(const struct gen_opts *o)
{
	struct sim s = { .rng = 0x2545f4914f6cdd1dULL, .out = o->out, .target = o->target,
			 .nprocs = o->nprocs, .ngs = o->ngs, .end_pct = o->end_pct };
	struct tbuf hdr = { 0 };
	unsigned int p;

	s.ps = calloc(s.nprocs, sizeof(*s.ps));
	s.gs = calloc(s.ngs, sizeof(*s.gs));
	s.queue = calloc(s.ngs, sizeof(*s.queue));
	if (!s.ps || !s.gs || !s.queue) {
		perror("gen_trace");
		exit(EXIT_FAILURE);
	}
	tb_header(&hdr, 19);
	fwrite(hdr.data, 1, hdr.len, s.out);
	tb_free(&hdr);
	setup(&s);
	while (s.written < s.target)
		step(&s);
	for (p = 0; p < s.nprocs; p++) {
		flush(&s, p);
		tb_free(&s.ps[p].buf);
	}
	footer(&s);
	free(s.ps);
	free(s.gs);
	free(s.queue);
}

static int usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-f 19|25|26] [-g GEN_MIB] [-e PCT] FILE MEGABYTES [NPROCS [NGS]]\n",
		prog);
	return EXIT_FAILURE;
}

int main(int argc, char *argv[])
{
	struct gen_opts o = { .gen_bytes = 4 << 20, .minor = 19, .nprocs = 8, .ngs = 1000 };
	const char *prog = argv[0];
	int c;

	while ((c = getopt(argc, argv, "f:g:e:")) != -1) {
		if (c == 'f')
			o.minor = atoi(optarg);
		else if (c == 'e')
			o.end_pct = (unsigned int)atoi(optarg);
		else if (c == 'g')
			o.gen_bytes = strtoull(optarg, NULL, 10) << 20;
		else
			return usage(prog);
	}
	argv += optind;
	argc -= optind;
	if (argc < 2 || (o.minor != 19 && o.minor != 25 && o.minor != 26) ||
	    o.end_pct > 100 || (o.end_pct && o.minor != 19))
		return usage(prog);
	o.target = strtoull(argv[1], NULL, 10) << 20;
	if (argc > 2)
		o.nprocs = (unsigned int)strtoul(argv[2], NULL, 10);
	if (argc > 3)
		o.ngs = strtoull(argv[3], NULL, 10);
	if (o.nprocs < 1 || o.ngs < 2 || !o.gen_bytes)
		return usage(prog);
	o.out = fopen(argv[0], "wb");
	if (!o.out) {
		perror(argv[0]);
		return EXIT_FAILURE;
	}
	if (o.minor != 19)
		gen_tracev2(&o);
	else
		gen_trace(&o);
	return fclose(o.out) ? EXIT_FAILURE : EXIT_SUCCESS;
}
