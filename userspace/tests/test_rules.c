// SPDX-License-Identifier: GPL-2.0
/*
 * The reader's rules, one constructed trace each: a valid trace is
 * accepted, and each broken one fails with the phase and the words of the
 * rule it breaks. With GT_CASES_DIR set, each trace is also saved there
 * (NAME.ok or NAME.bad) so conformance.sh can ask Go's parser the same.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gtrace.h"
#include "tap.h"
#include "tracebuf.h"

#define B(b, p, ts)		TB_EV(b, GT_EV_BATCH, p, ts)
#define CREATE(b, d, g, stk)	TB_EV(b, GT_EV_GO_CREATE, d, g, stk, 0)
#define START(b, d, g, seq)	TB_EV(b, GT_EV_GO_START, d, g, seq)
#define BLOCK(b, d)		TB_EV(b, GT_EV_GO_BLOCK, d, 0)
#define UNBLOCK(b, d, g, seq)	TB_EV(b, GT_EV_GO_UNBLOCK, d, g, seq, 0)
#define END(b, d)		TB_EV(b, GT_EV_GO_END, d)
#define PSTART(b, d)		TB_EV(b, GT_EV_PROC_START, d, 7)
#define PSTOP(b, d)		TB_EV(b, GT_EV_PROC_STOP, d)

static void footer(struct tbuf *b)
{
	static const uint64_t frames[][4] = { { 0x401000, 1, 2, 42 } };

	TB_EV(b, GT_EV_FREQUENCY, 1000000000);
	tb_stack(b, 1, 1, frames);
	tb_string(b, 1, "main.worker");
	tb_string(b, 2, "/src/main.go");
}

/* P 0 creates g 1 and runs it until it blocks; P 1 wakes it; P 0 ends it. */
static void base(struct tbuf *b, uint64_t unblock_seq, uint64_t p1_ts)
{
	tb_header(b, 19);
	B(b, 0, 100);
	PSTART(b, 1);
	CREATE(b, 1, 1, 1);
	START(b, 1, 1, 1);
	BLOCK(b, 10);
	B(b, 1, p1_ts);
	PSTART(b, 0);
	UNBLOCK(b, 1, 1, unblock_seq);
	PSTOP(b, 1);
	B(b, 0, 200);
	START(b, 0, 1, 3);
	END(b, 5);
	PSTOP(b, 1);
}

struct expect {
	enum gt_phase phase;
	const char *words;		/* in the message */
};

static void save(const char *name, const struct tbuf *b, bool valid)
{
	const char *dir = getenv("GT_CASES_DIR");
	char path[4096];
	FILE *f;

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/%s.%s", dir, name, valid ? "ok" : "bad");
	f = fopen(path, "w");
	if (!f || fwrite(b->data, 1, b->len, f) != b->len) {
		perror(path);
		exit(EXIT_FAILURE);
	}
	fclose(f);
}

/* Runs check and replay on @b: both must agree with @want. */
static void run(const char *name, struct tbuf *b, struct expect want)
{
	struct gt_error err = { 0 };
	struct gt_trace *t;
	int r = gt_open_mem(b->data, b->len, &t, &err);

	if (!r) {
		r = gt_check(t, NULL, NULL, &err);
		if (!r)
			r = gt_replay(t, NULL, NULL, &err);
		gt_close(t);
	}
	save(name, b, !want.phase);
	tb_free(b);
	if (!want.phase)
		tap_ok(!r, "%s: valid%s%s", name, r ? ": " : "", r ? err.msg : "");
	else if (!tap_ok(r && err.phase == want.phase && strstr(err.msg, want.words),
			 "%s: rejected, phase %d with \"%s\"", name, want.phase, want.words))
		tap_diag("got phase %d: %s", err.phase, err.msg);
}

static void cases_base(void)
{
	struct tbuf b = { 0 };

	base(&b, 2, 120);
	footer(&b);
	run("valid", &b, (struct expect){ GT_OK, NULL });

	base(&b, 5, 105);
	footer(&b);
	run("wrong_seq", &b, (struct expect){ GT_ERR_ORDER, "no consistent ordering" });

	/* The wakeup is stamped before the block it ends. */
	base(&b, 2, 50);
	footer(&b);
	run("time_order", &b, (struct expect){ GT_ERR_TIME, "time stamps out of order" });

	base(&b, 2, 120);
	run("no_frequency", &b, (struct expect){ GT_ERR_TRACE, "no Frequency" });

	/* P 1 creates g 1 again after its end: only that it ended is left of it. */
	base(&b, 2, 120);
	B(&b, 1, 300);
	PSTART(&b, 1);
	CREATE(&b, 1, 1, 1);
	footer(&b);
	run("created_after_end", &b, (struct expect){ GT_ERR_ORDER, "but g 1 has ended (running" });
}

static void cases_wire(void)
{
	static const uint8_t long_varint[] = { GT_EV_PROC_STOP, 0x80, 0x80, 0x80, 0x80, 0x80,
					       0x80, 0x80, 0x80, 0x80, 0x80, 0x01 };
	struct tbuf b = { 0 };
	uint8_t c;

	tb_bytes(&b, "go 1.19 trace\0\0", 15);
	run("short_header", &b, (struct expect){ GT_ERR_WIRE, "header" });

	tb_bytes(&b, "go 1.20 trace\0\0\0", 16);
	run("unsupported_version", &b, (struct expect){ GT_ERR_WIRE, "unsupported" });

	base(&b, 2, 120);
	tb_bytes(&b, long_varint, sizeof(long_varint));
	footer(&b);
	run("bad_varint", &b, (struct expect){ GT_ERR_WIRE, "bad varint" });

	base(&b, 2, 120);
	c = 63;
	tb_bytes(&b, &c, 1);
	footer(&b);
	run("unknown_type", &b, (struct expect){ GT_ERR_WIRE, "unknown event type 63" });

	base(&b, 2, 120);
	footer(&b);
	tb_string(&b, 1, "again");
	run("duplicate_string", &b, (struct expect){ GT_ERR_WIRE, "reuses id 1" });

	base(&b, 2, 120);
	footer(&b);
	b.len -= 3;
	run("cut_in_string", &b, (struct expect){ GT_ERR_WIRE, "cut short" });

	base(&b, 2, 120);
	TB_EV(&b, GT_EV_GO_START, 1, 1 << 20, 1);
	b.len -= 2;
	run("cut_in_event", &b, (struct expect){ GT_ERR_WIRE, "cut short" });
}

static void cases_parse(void)
{
	static uint64_t frames[1001][4];
	struct tbuf b = { 0 };

	base(&b, 2, 120);
	TB_EV(&b, GT_EV_PROC_STOP, 1, 2);
	footer(&b);
	run("wrong_nargs", &b, (struct expect){ GT_ERR_PARSE, "2 arguments" });

	base(&b, 2, 120);
	tb_stack(&b, 9, 1001, frames);
	footer(&b);
	run("stack_too_deep", &b, (struct expect){ GT_ERR_PARSE, "1001 frames" });

	base(&b, 2, 120);
	TB_EV(&b, GT_EV_STW_START, 1, 5);
	TB_EV(&b, GT_EV_STW_DONE, 1);
	footer(&b);
	run("stw_kind", &b, (struct expect){ GT_ERR_PARSE, "unknown STW kind 5" });

	tb_header(&b, 19);
	footer(&b);
	run("empty", &b, (struct expect){ GT_ERR_TRACE, "empty" });
}

static void cases_state(void)
{
	struct tbuf b = { 0 };

	tb_header(&b, 19);
	B(&b, 0, 100);
	PSTART(&b, 1);
	CREATE(&b, 1, 1, 1);
	CREATE(&b, 1, 2, 1);
	START(&b, 1, 1, 1);
	START(&b, 1, 2, 1);
	footer(&b);
	run("p_busy", &b, (struct expect){ GT_ERR_STATE, "already running g 1" });

	tb_header(&b, 19);
	B(&b, 0, 100);
	PSTART(&b, 1);
	CREATE(&b, 1, 1, 1);
	START(&b, 1, 1, 1);
	BLOCK(&b, 1);
	TB_EV(&b, GT_EV_GO_SYSEXIT, 1, 1, 2, 150);
	footer(&b);
	run("stray_sysexit", &b, (struct expect){ GT_ERR_SYSCALL, "stray syscall exit" });

	tb_header(&b, 19);
	B(&b, 0, 100);
	PSTART(&b, 1);
	CREATE(&b, 1, 1, 1);
	START(&b, 1, 1, 1);
	TB_EV(&b, GT_EV_USER_REGION, 1, 0, 0, 1, 0);
	TB_EV(&b, GT_EV_USER_REGION, 1, 9, 1, 1, 0);
	footer(&b);
	run("region_misuse", &b, (struct expect){ GT_ERR_STATE, "misuse of region" });

	tb_header(&b, 19);
	B(&b, 0, 100);
	PSTART(&b, 1);
	PSTOP(&b, 1);
	PSTOP(&b, 1);
	footer(&b);
	run("proc_stop_twice", &b, (struct expect){ GT_ERR_STATE, "not running before stop" });
}

/*
 * Syscall exits carry their real time stamp; Go re-sorts by it. Here g 1
 * leaves a syscall, blocks again, and the exit claims a time before the
 * block: Go finds g 1 in the wrong state after its sort.
 */
static void cases_syscall(void)
{
	struct tbuf b = { 0 };

	tb_header(&b, 19);
	B(&b, 0, 100);
	PSTART(&b, 1);
	CREATE(&b, 1, 1, 1);
	CREATE(&b, 1, 2, 1);
	START(&b, 1, 1, 1);
	TB_EV(&b, GT_EV_GO_SYSCALL, 5, 0);
	TB_EV(&b, GT_EV_GO_SYSBLOCK, 5);	/* t=113, g 1 waits in a syscall */
	START(&b, 1, 2, 1);
	UNBLOCK(&b, 10, 1, 2);		/* t=124, g 2 wakes g 1 */
	TB_EV(&b, GT_EV_GO_SCHED, 1, 0);
	START(&b, 1, 1, 3);
	BLOCK(&b, 10);			/* t=136 */
	TB_EV(&b, GT_EV_GO_SYSEXIT, 10, 1, 4, 120);
	footer(&b);
	run("sysexit_crosses", &b, (struct expect){ GT_ERR_STATE, "change order" });

	/* A valid moved exit: dump must put it at its real time. */
	tb_header(&b, 19);
	B(&b, 0, 100);
	PSTART(&b, 1);
	CREATE(&b, 1, 1, 1);
	START(&b, 1, 1, 1);
	TB_EV(&b, GT_EV_GO_SYSCALL, 5, 0);
	TB_EV(&b, GT_EV_GO_SYSBLOCK, 5);	/* t=112 */
	TB_EV(&b, GT_EV_HEAP_ALLOC, 10, 1);
	TB_EV(&b, GT_EV_HEAP_ALLOC, 10, 2);
	TB_EV(&b, GT_EV_GO_SYSEXIT, 10, 1, 2, 115);
	START(&b, 1, 1, 3);
	END(&b, 1);
	PSTOP(&b, 1);
	footer(&b);
	run("sysexit_moved", &b, (struct expect){ GT_OK, NULL });
}

/* A futile wakeup: Go drops the wakeup, the start and the block. */
static void cases_futile(void)
{
	struct tbuf b = { 0 };

	tb_header(&b, 19);
	B(&b, 0, 100);
	PSTART(&b, 1);
	CREATE(&b, 1, 1, 1);
	CREATE(&b, 1, 2, 1);
	START(&b, 1, 1, 1);
	BLOCK(&b, 1);
	START(&b, 1, 2, 1);
	UNBLOCK(&b, 1, 1, 2);
	END(&b, 1);
	START(&b, 1, 1, 3);
	TB_EV(&b, GT_EV_FUTILE_WAKEUP, 1);
	TB_EV(&b, GT_EV_GO_BLOCK_SYNC, 1, 0);
	PSTOP(&b, 1);
	footer(&b);
	run("futile", &b, (struct expect){ GT_OK, NULL });
}

int main(void)
{
	cases_base();
	cases_wire();
	cases_parse();
	cases_state();
	cases_syscall();
	cases_futile();
	return tap_done();
}
