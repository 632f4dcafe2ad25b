// SPDX-License-Identifier: GPL-2.0
/*
 * Writes a small valid go 1.26 trace shaped like gotrace's, for tests of
 * `gotrace stats` on Go 1.22+ traces: one generation, P 0 on M 1, 1 tick =
 * 1 ns. Goroutine 10 (program "main") runs from the start, goroutine 20
 * ("idle") waits throughout; 10 creates 11 ("worker"), blocks on a futex,
 * is woken by 11, which is preempted; 10 blocks on the network, 11 runs,
 * wakes 10 and exits; 10 creates a new 11 ("worker2"), sleeps, and 11
 * blocks in a page fault. Blocks carry [call, program] stacks.
 * Usage: stats_tracev2 FILE
 */
#include <stdio.h>
#include <string.h>

#include "tracebuf.h"
#include "tracev2.h"

enum { S_LINUX = 1, S_MAIN, S_IDLE, S_WORKER, S_WORKER2, S_FUTEX, S_SYNC, S_NET, S_EPOLL,
       S_PREEMPT, S_SLEEP, S_FAULT, NR_STRS };
enum { K_MAIN = 1, K_IDLE, K_WORKER, K_WORKER2, K_FUTEX, K_EPOLL, K_SLEEP, K_FAULT };

static const char *const strs[NR_STRS] = {
	[S_LINUX] = "linux", [S_MAIN] = "main", [S_IDLE] = "idle", [S_WORKER] = "worker",
	[S_WORKER2] = "worker2", [S_FUTEX] = "futex", [S_SYNC] = "sync: futex",
	[S_NET] = "network", [S_EPOLL] = "epoll_wait", [S_PREEMPT] = "preempted",
	[S_SLEEP] = "clock_nanosleep", [S_FAULT] = "page fault or kernel wait",
};

static void batch(struct tbuf *b, uint64_t m, uint64_t time, struct tbuf *body)
{
	TB_EV2(b, GT2_EV_EVENT_BATCH, 1, m, time, body->len);
	tb_bytes(b, body->data, body->len);
	body->len = 0;
}

/* Stack @id: [@call, @prog] or, without a call (0), [@prog]. */
static void stack(struct tbuf *b, uint64_t id, uint64_t call, uint64_t prog)
{
	if (call)
		TB_EV2(b, GT2_EV_STACK, id, 2, 0x100 + call, call, S_LINUX, 0,
		       0x1000 + prog, prog, S_LINUX, 0);
	else
		TB_EV2(b, GT2_EV_STACK, id, 1, 0x1000 + prog, prog, S_LINUX, 0);
}

static void tables(struct tbuf *b)
{
	struct tbuf body = { 0 };
	unsigned int i;

	TB_EV2(&body, GT2_EV_SYNC);
	TB_EV2(&body, GT2_EV_FREQUENCY, 1000000000);
	TB_EV2(&body, GT2_EV_CLOCK_SNAPSHOT, 0, 99, 1700000000, 0);
	batch(b, 0, 1000, &body);
	TB_EV2(&body, GT2_EV_STRINGS);
	for (i = 1; i < NR_STRS; i++) {
		TB_EV2(&body, GT2_EV_STRING, i, strlen(strs[i]));
		tb_bytes(&body, strs[i], strlen(strs[i]));
	}
	batch(b, 0, 1000, &body);
	TB_EV2(&body, GT2_EV_STACKS);
	stack(&body, K_MAIN, 0, S_MAIN);
	stack(&body, K_IDLE, 0, S_IDLE);
	stack(&body, K_WORKER, 0, S_WORKER);
	stack(&body, K_WORKER2, 0, S_WORKER2);
	stack(&body, K_FUTEX, S_FUTEX, S_MAIN);
	stack(&body, K_EPOLL, S_EPOLL, S_MAIN);
	stack(&body, K_SLEEP, S_SLEEP, S_MAIN);
	stack(&body, K_FAULT, S_FAULT, S_WORKER2);
	batch(b, 0, 1000, &body);
	tb_free(&body);
}

/* M 1's events: times in ns are 1000 + the sum of the dts (the first argument). */
static void events(struct tbuf *e)
{
	TB_EV2(e, GT2_EV_PROC_STATUS, 0, 0, 1);			/* 1000 P0 running */
	TB_EV2(e, GT2_EV_GO_STATUS_STACK, 10, 10, 1, 2, K_MAIN);	/* 1010 G10 running */
	TB_EV2(e, GT2_EV_GO_STATUS_STACK, 10, 20, 0, 4, K_IDLE);	/* 1020 G20 waiting */
	TB_EV2(e, GT2_EV_GO_CREATE, 80, 11, K_WORKER, K_MAIN);	/* 1100 */
	TB_EV2(e, GT2_EV_GO_BLOCK, 100, S_SYNC, K_FUTEX);	/* 1200 G10 blocks */
	TB_EV2(e, GT2_EV_GO_START, 100, 11, 1);			/* 1300 */
	TB_EV2(e, GT2_EV_GO_UNBLOCK, 400, 10, 1, K_WORKER);	/* 1700 */
	TB_EV2(e, GT2_EV_GO_STOP, 300, S_PREEMPT, K_WORKER);	/* 2000 */
	TB_EV2(e, GT2_EV_GO_START, 500, 10, 2);			/* 2500: 800 ns latency */
	TB_EV2(e, GT2_EV_GO_BLOCK, 1000, S_NET, K_EPOLL);	/* 3500 */
	TB_EV2(e, GT2_EV_GO_START, 500, 11, 2);			/* 4000: not woken */
	TB_EV2(e, GT2_EV_GO_UNBLOCK, 2000, 10, 3, K_WORKER);	/* 6000 */
	TB_EV2(e, GT2_EV_GO_DESTROY, 1000);			/* 7000 */
	TB_EV2(e, GT2_EV_GO_START, 3000, 10, 4);		/* 10000: 4000 ns latency */
	TB_EV2(e, GT2_EV_GO_CREATE, 1000, 11, K_WORKER2, K_MAIN);	/* 11000 */
	TB_EV2(e, GT2_EV_GO_BLOCK, 1000, S_SLEEP, K_SLEEP);	/* 12000 */
	TB_EV2(e, GT2_EV_GO_START, 2000, 11, 1);		/* 14000 */
	TB_EV2(e, GT2_EV_GO_BLOCK, 6000, S_FAULT, K_FAULT);	/* 20000 */
}

int main(int argc, char *argv[])
{
	struct tbuf b = { 0 }, e = { 0 };
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: stats_tracev2 FILE\n");
		return 2;
	}
	tb_header(&b, 26);
	tables(&b);
	events(&e);
	batch(&b, 1, 1000, &e);
	TB_EV2(&b, GT2_EV_END_OF_GENERATION);
	f = fopen(argv[1], "w");
	if (!f || fwrite(b.data, 1, b.len, f) != b.len || fclose(f)) {
		perror(argv[1]);
		return 1;
	}
	tb_free(&b);
	tb_free(&e);
	return 0;
}
