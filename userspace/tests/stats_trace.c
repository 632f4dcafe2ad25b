// SPDX-License-Identifier: GPL-2.0
/*
 * Writes a small valid go 1.19 trace shaped like gotrace's, for tests of
 * `gotrace stats`: one P, NR_BUSY threads that run (among them goroutine
 * BUSY_REBORN, thread BUSY_REBORN_TID's second goroutine), and NR_IDLE
 * threads, in NR_IDLE - 1 programs, that wait from the start to the end
 * and never run. Each thread's create stack is its program, as gotrace
 * writes it; blocks carry [reason, program].
 * Usage: stats_trace FILE
 */
#include <stdio.h>
#include <stdlib.h>

#include "gtrace.h"
#include "tracebuf.h"

#define NR_BUSY		25
#define NR_IDLE		52
#define BUSY_REBORN	4194417		/* 113 + 4194304 */
#define BUSY_REBORN_TID	113

/* String ids: the file, the reason, then one per program. */
#define STR_FILE	1
#define STR_REASON	2
#define STR_PROG(i)	(3 + (i))
/* Stack ids: a create stack per program, then a block stack per program. */
#define STK_CREATE(i)	(1 + (i))
#define STK_BLOCK(i)	(1 + NR_PROGS + (i))

/* Programs: one per busy thread, then the idle ones (the last two share one). */
#define NR_PROGS	(NR_BUSY + NR_IDLE - 1)

static uint64_t busy_g(unsigned int i)
{
	return i == 0 ? BUSY_REBORN : 200 + i;
}

static uint64_t idle_g(unsigned int i)
{
	return 300 + i;
}

static unsigned int idle_prog(unsigned int i)
{
	return NR_BUSY + (i < NR_IDLE - 1 ? i : NR_IDLE - 2);
}

static void prog_name(unsigned int i, char *buf, size_t size)
{
	if (i < NR_BUSY)
		snprintf(buf, size, "busy-%u", i);
	else
		snprintf(buf, size, "idle-%u", i - NR_BUSY);
}

static void footer(struct tbuf *b)
{
	uint64_t frames[2][4];
	char name[32];
	unsigned int i;

	TB_EV(b, GT_EV_FREQUENCY, 1000000000);
	tb_string(b, STR_FILE, "linux");
	tb_string(b, STR_REASON, "futex");
	for (i = 0; i < NR_PROGS; i++) {
		prog_name(i, name, sizeof(name));
		tb_string(b, STR_PROG(i), name);
		frames[0][0] = 0x1000 + i;	/* the program's frame */
		frames[0][1] = STR_PROG(i);
		frames[0][2] = STR_FILE;
		frames[0][3] = 0;
		tb_stack(b, STK_CREATE(i), 1, frames);
		frames[1][0] = frames[0][0];
		frames[1][1] = frames[0][1];
		frames[1][2] = STR_FILE;
		frames[1][3] = 0;
		frames[0][0] = 0x100;		/* the reason's frame */
		frames[0][1] = STR_REASON;
		tb_stack(b, STK_BLOCK(i), 2, frames);
	}
}

int main(int argc, char *argv[])
{
	struct tbuf b = { 0 };
	unsigned int i;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: %s FILE\n", argv[0]);
		return 2;
	}
	tb_header(&b, 19);
	TB_EV(&b, GT_EV_BATCH, 0, 1000);
	/* The start snapshot: every thread exists; the idle ones wait. */
	for (i = 0; i < NR_BUSY; i++)
		TB_EV(&b, GT_EV_GO_CREATE, 0, busy_g(i), STK_CREATE(i), 0);
	for (i = 0; i < NR_IDLE; i++) {
		TB_EV(&b, GT_EV_GO_CREATE, 0, idle_g(i), STK_CREATE(idle_prog(i)), 0);
		TB_EV(&b, GT_EV_GO_WAITING, 0, idle_g(i));
	}
	TB_EV(&b, GT_EV_PROC_START, 0, 0);
	TB_EV(&b, GT_EV_GOMAXPROCS, 0, 1, 0);
	/* Busy thread i runs 1000 * (NR_BUSY - i) ns, then blocks until the end. */
	for (i = 0; i < NR_BUSY; i++) {
		TB_EV(&b, GT_EV_GO_START, 10, busy_g(i), 1);
		TB_EV(&b, GT_EV_GO_BLOCK_SYNC, 1000 * (NR_BUSY - i), STK_BLOCK(i));
	}
	TB_EV(&b, GT_EV_PROC_STOP, 10);
	footer(&b);

	f = fopen(argv[1], "wb");
	if (!f || fwrite(b.data, 1, b.len, f) != b.len || fclose(f)) {
		perror(argv[1]);
		return 1;
	}
	tb_free(&b);
	return 0;
}
