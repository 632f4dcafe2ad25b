// SPDX-License-Identifier: GPL-2.0
/*
 * gen_trace's Go 1.26 trace, as the Go 1.22+ runtime writes one: NPROCS Ps,
 * each running on an M of its own, and goroutines that start, yield, block,
 * wake each other, make short syscalls, create new ones and exit, on one
 * global clock. Each M writes batches of up to 63 KiB. A generation (every
 * GEN_BYTES or so) starts with each P's status and its running goroutine's,
 * any other goroutine's status comes before its first event in it, with
 * sequence numbers from 1 after it; the generation ends with its sync batch,
 * string and stack tables and EndOfGeneration (with -f 25, a 1.25 trace: the same
 * without it).
 */
#include <stdlib.h>
#include <string.h>

#include "gen_trace.h"
#include "tracebuf.h"
#include "tracev2.h"

#define BATCH_BYTES	(63 << 10)	/* an event more stays under Go's 64 KiB */
#define NR_STACKS	8
#define NO_THREAD	((uint64_t)-1)
#define NO_G		SIZE_MAX

/* Go's tracev2.GoStatus and ProcStatus values. */
enum { GO_RUNNABLE = 1, GO_RUNNING = 2, GO_WAITING = 4 };
enum { PROC_RUNNING = 1 };

/* The string table: ids from 1, the block and stop reasons first. */
static const char *const strings[] = {
	"preempted", "yield", "chan receive", "chan send", "select", "sync", "sleep",
	"network", "main.main", "/src/main.go",
	"main.worker1", "main.worker2", "main.worker3", "main.worker4",
	"main.worker5", "main.worker6", "main.worker7", "main.worker8",
	"/src/worker.go",
};

enum { STR_PREEMPTED = 1, STR_YIELD, STR_BLOCK, NR_BLOCK = 6, STR_MAIN = 9, STR_MAIN_GO,
       STR_WORKER, STR_WORKER_GO = STR_WORKER + NR_STACKS };

enum { FREE, RUNNABLE, RUNNING, WAITING };

struct g {
	uint64_t id;
	uint64_t seq;		/* of its last GoStart or GoUnblock */
	uint64_t gen;		/* the generation its status was written in */
	int state;
};

struct m {
	struct tbuf buf;	/* the events of its batch */
	uint64_t time;		/* its batch's time */
	uint64_t last;		/* time of the last event in the batch */
	uint64_t p_seq;		/* its P's sequence number */
	size_t g;		/* the goroutine running, NO_G for none */
};

struct sim {
	const struct gen_opts *o;
	size_t written, gen_end;
	struct m *ms;
	struct g *gs;
	size_t *queue;		/* runnable goroutines, a ring */
	uint64_t head, tail;
	size_t *free;		/* goroutines that exited */
	size_t nfree;
	uint64_t gen, gen_start, now, rng, next_id;
};

static uint64_t rnd(struct sim *s, uint64_t n)
{
	return gen_rnd(&s->rng, n);
}

static uint64_t stack(struct sim *s)
{
	return 1 + rnd(s, NR_STACKS);
}

static uint64_t m_id(unsigned int i)
{
	return i + 1;
}

static void put(struct sim *s, const struct tbuf *b)
{
	fwrite(b->data, 1, b->len, s->o->out);
	s->written += b->len;
}

/* A batch of the generation on thread @m at @time, holding @body, which it empties. */
static void batch(struct sim *s, uint64_t m, uint64_t time, struct tbuf *body)
{
	struct tbuf hdr = { 0 };

	TB_EV2(&hdr, GT2_EV_EVENT_BATCH, s->gen, m, time, body->len);
	put(s, &hdr);
	put(s, body);
	body->len = 0;
	tb_free(&hdr);
}

static void flush(struct sim *s, unsigned int i)
{
	if (s->ms[i].buf.len)
		batch(s, m_id(i), s->ms[i].time, &s->ms[i].buf);
}

/* An event on M @i now, its time delta in @dt: a new batch when the current one is full. */
static struct tbuf *event(struct sim *s, unsigned int i, uint64_t *dt)
{
	struct m *m = &s->ms[i];

	s->now += 1 + rnd(s, 40);
	if (m->buf.len >= BATCH_BYTES)
		flush(s, i);
	if (!m->buf.len)
		m->time = m->last = s->now;
	*dt = s->now - m->last;
	m->last = s->now;
	return &m->buf;
}

/* Goroutine @g's status on M @i, before its first event of the generation. */
static void status(struct sim *s, unsigned int i, struct g *g)
{
	static const uint64_t go_status[] = {
		[RUNNABLE] = GO_RUNNABLE, [RUNNING] = GO_RUNNING, [WAITING] = GO_WAITING,
	};
	struct tbuf *b;
	uint64_t dt;

	if (g->gen == s->gen)
		return;
	b = event(s, i, &dt);
	TB_EV2(b, GT2_EV_GO_STATUS, dt, g->id, g->state == RUNNING ? m_id(i) : NO_THREAD,
	       go_status[g->state]);
	g->gen = s->gen;
	g->seq = 0;
}

static void make_runnable(struct sim *s, size_t g)
{
	s->gs[g].state = RUNNABLE;
	s->queue[s->tail++ % s->o->ngs] = g;
}

static void start(struct sim *s, unsigned int i)
{
	size_t slot = s->queue[s->head++ % s->o->ngs];
	struct g *g = &s->gs[slot];
	struct tbuf *b;
	uint64_t dt;

	status(s, i, g);
	b = event(s, i, &dt);
	TB_EV2(b, GT2_EV_GO_START, dt, g->id, ++g->seq);
	g->state = RUNNING;
	s->ms[i].g = slot;
}

/* A waiting goroutine, if the one picked is, becomes runnable by M @i. */
static void unblock(struct sim *s, unsigned int i)
{
	size_t slot = rnd(s, s->o->ngs);
	struct g *g = &s->gs[slot];
	struct tbuf *b;
	uint64_t dt;

	if (g->state != WAITING)
		return;
	status(s, i, g);
	b = event(s, i, &dt);
	TB_EV2(b, GT2_EV_GO_UNBLOCK, dt, g->id, ++g->seq, stack(s));
	make_runnable(s, slot);
}

static void create(struct sim *s, unsigned int i)
{
	size_t slot = s->free[--s->nfree];
	struct g *g = &s->gs[slot];
	struct tbuf *b;
	uint64_t dt;

	g->id = s->next_id++;
	g->gen = s->gen;
	g->seq = 0;
	b = event(s, i, &dt);
	TB_EV2(b, GT2_EV_GO_CREATE, dt, g->id, stack(s), stack(s));
	make_runnable(s, slot);
}

/* The goroutine running on M @i yields, blocks or exits. */
static void stop(struct sim *s, unsigned int i, uint64_t r)
{
	size_t slot = s->ms[i].g;
	uint64_t dt;
	struct tbuf *b = event(s, i, &dt);

	s->ms[i].g = NO_G;
	if (r < 30) {
		TB_EV2(b, GT2_EV_GO_STOP, dt, r < 25 ? STR_PREEMPTED : STR_YIELD, stack(s));
		make_runnable(s, slot);
	} else if (r < 60) {
		TB_EV2(b, GT2_EV_GO_BLOCK, dt, STR_BLOCK + rnd(s, NR_BLOCK), stack(s));
		s->gs[slot].state = WAITING;
	} else {
		TB_EV2(b, GT2_EV_GO_DESTROY, dt);
		s->gs[slot].state = FREE;
		s->free[s->nfree++] = slot;
	}
}

static void syscall(struct sim *s, unsigned int i)
{
	struct tbuf *b;
	uint64_t dt;

	b = event(s, i, &dt);
	TB_EV2(b, GT2_EV_GO_SYSCALL_BEGIN, dt, ++s->ms[i].p_seq, stack(s));
	b = event(s, i, &dt);
	TB_EV2(b, GT2_EV_GO_SYSCALL_END, dt);
}

static void run(struct sim *s, unsigned int i)
{
	uint64_t r = rnd(s, 100);

	if (r < 62)
		stop(s, i, r);
	else if (r < 72)
		syscall(s, i);
	else if (r < 80 && s->nfree)
		create(s, i);
	else
		unblock(s, i);
}

static void idle(struct sim *s, unsigned int i)
{
	if (s->head != s->tail && rnd(s, 4))
		start(s, i);
	else if (s->nfree)
		create(s, i);
	else
		unblock(s, i);
}

/* Each P's status and its goroutine's, on its M. */
static void gen_start(struct sim *s)
{
	struct tbuf *b;
	unsigned int i;
	uint64_t dt;

	s->gen_start = s->now + 1;
	for (i = 0; i < s->o->nprocs; i++) {
		b = event(s, i, &dt);
		TB_EV2(b, GT2_EV_PROC_STATUS, dt, i, PROC_RUNNING);
		s->ms[i].p_seq = 0;
		if (s->ms[i].g != NO_G)
			status(s, i, &s->gs[s->ms[i].g]);
	}
}

/* Stack i: a worker's frame and main.main's below it. */
static void stacks(struct tbuf *b)
{
	uint64_t i;

	TB_EV2(b, GT2_EV_STACKS);
	for (i = 1; i <= NR_STACKS; i++)
		TB_EV2(b, GT2_EV_STACK, i, 2,
		       0x401000 + 16 * i, STR_WORKER + i - 1, STR_WORKER_GO, 10 * i,
		       0x400800, STR_MAIN, STR_MAIN_GO, 7);
}

/* The batches still open, the generation's tables and its end. */
static void gen_end(struct sim *s)
{
	static const uint8_t end = GT2_EV_END_OF_GENERATION;
	struct tbuf b = { 0 };
	unsigned int i;

	for (i = 0; i < s->o->nprocs; i++)
		flush(s, i);
	TB_EV2(&b, GT2_EV_SYNC);
	TB_EV2(&b, GT2_EV_FREQUENCY, 1000000000);
	TB_EV2(&b, GT2_EV_CLOCK_SNAPSHOT, 0, s->gen_start, 1700000000 + s->gen_start / 1000000000,
	       s->gen_start % 1000000000);
	batch(s, NO_THREAD, s->gen_start, &b);
	TB_EV2(&b, GT2_EV_STRINGS);
	for (i = 0; i < sizeof(strings) / sizeof(strings[0]); i++)
		tb_string2(&b, i + 1, strings[i]);
	batch(s, NO_THREAD, s->now, &b);
	stacks(&b);
	batch(s, NO_THREAD, s->now, &b);
	tb_free(&b);
	if (s->o->minor < 26)
		return;
	fwrite(&end, 1, 1, s->o->out);
	s->written++;
}

static void setup(struct sim *s)
{
	const struct gen_opts *o = s->o;
	size_t g;
	unsigned int i;

	s->ms = calloc(o->nprocs, sizeof(*s->ms));
	s->gs = calloc(o->ngs, sizeof(*s->gs));
	s->queue = calloc(o->ngs, sizeof(*s->queue));
	s->free = calloc(o->ngs, sizeof(*s->free));
	if (!s->ms || !s->gs || !s->queue || !s->free) {
		perror("gen_trace");
		exit(EXIT_FAILURE);
	}
	for (i = 0; i < o->nprocs; i++)
		s->ms[i].g = NO_G;
	for (g = 0; g < o->ngs; g++) {
		s->gs[g].id = g + 1;
		make_runnable(s, g);
	}
	s->next_id = o->ngs + 1;
}

void gen_tracev2(const struct gen_opts *o)
{
	struct sim s = { .o = o, .rng = 0x2545f4914f6cdd1dULL, .now = 1000, .gen = 1 };
	struct tbuf hdr = { 0 };
	unsigned int i;

	setup(&s);
	tb_header(&hdr, o->minor);
	put(&s, &hdr);
	tb_free(&hdr);
	s.gen_end = o->gen_bytes;
	gen_start(&s);
	while (s.written < o->target) {
		i = (unsigned int)rnd(&s, o->nprocs);
		if (s.ms[i].g != NO_G)
			run(&s, i);
		else
			idle(&s, i);
		if (s.written < s.gen_end)
			continue;
		gen_end(&s);
		s.gen++;
		s.gen_end += o->gen_bytes;
		gen_start(&s);
	}
	gen_end(&s);
	for (i = 0; i < o->nprocs; i++)
		tb_free(&s.ms[i].buf);
	free(s.ms);
	free(s.gs);
	free(s.queue);
	free(s.free);
}
