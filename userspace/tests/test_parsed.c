// SPDX-License-Identifier: GPL-2.0
/*
 * The parsed level of Go 1.22+ traces (tracev2.h's gt2_reader) on 1.26 traces
 * built here: the text of each event kind as Go's Event.String(), the Sync
 * events, the time fix-up, a trace that starts at a later generation, and
 * Go's errors from the generation and order levels. (tests/parsed.sh compares
 * with Go itself on Go's test traces and real ones.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "tracebuf.h"
#include "tracev2.h"

/* A batch of generation @gen on M @m at @time, holding @body. */
static void batch(struct tbuf *b, uint64_t gen, uint64_t m, uint64_t time, struct tbuf *body)
{
	TB_EV2(b, GT2_EV_EVENT_BATCH, gen, m, time, body->len);
	tb_bytes(b, body->data, body->len);
	body->len = 0;
}

static void string(struct tbuf *b, uint64_t id, const char *s)
{
	TB_EV2(b, GT2_EV_STRING, id, strlen(s));
	tb_bytes(b, s, strlen(s));
}

/* Generation @gen's sync, string and stack batches: 1 tick = 1 ns. */
static void tables(struct tbuf *b, uint64_t gen)
{
	struct tbuf body = { 0 };

	TB_EV2(&body, GT2_EV_SYNC);
	TB_EV2(&body, GT2_EV_FREQUENCY, 1000000000);
	TB_EV2(&body, GT2_EV_CLOCK_SNAPSHOT, 5, 99, 1700000000, 123);
	batch(b, gen, 0, 10, &body);
	TB_EV2(&body, GT2_EV_STRINGS);
	string(&body, 1, "main.main");
	string(&body, 2, "main.go");
	string(&body, 3, "yield");
	batch(b, gen, 0, 10, &body);
	TB_EV2(&body, GT2_EV_STACKS);
	TB_EV2(&body, GT2_EV_STACK, 1, 1, 0x401000, 1, 2, 42);
	batch(b, gen, 0, 10, &body);
	tb_free(&body);
}

/* A 1.26 trace of generation @gen: P 0 and G 1 running on M 1, then @body's events. */
static void trace(struct tbuf *b, uint64_t gen, bool status, const struct tbuf *events)
{
	struct tbuf body = { 0 };

	tb_header(b, 26);
	tables(b, gen);
	TB_EV2(&body, GT2_EV_PROC_STATUS, 0, 0, 1);
	if (status)
		TB_EV2(&body, GT2_EV_GO_STATUS, 0, 1, 1, 2);
	tb_bytes(&body, events->data, events->len);
	batch(b, gen, 1, 20, &body);
	TB_EV2(b, GT2_EV_END_OF_GENERATION);
	tb_free(&body);
}

/* Every event of @b printed into @out (size @size); the reader's last return. */
static int parse(const struct tbuf *b, char *out, size_t size, struct gt_error *err)
{
	FILE *f = fmemopen(out, size, "w");
	struct gt2_reader *r;
	struct gt2_trace *t;
	struct gt2_event ev;
	int k = -1;

	memset(out, 0, size);
	if (!f || gt2_open_mem(b->data, b->len, &t, err))
		return -1;
	if (!gt2_reader_open(t, &r, err)) {
		while ((k = gt2_reader_next(r, &ev, err)) > 0)
			gt2_event_print(f, &ev);
		gt2_reader_close(r);
	}
	fclose(f);
	gt2_close(t);
	return k;
}

static void expect(const char *name, const struct tbuf *b, const char *want, const char *want_err)
{
	static char out[8192];
	struct gt_error err = { 0 };
	int k = parse(b, out, sizeof(out), &err);
	bool ok = !strcmp(out, want) && (want_err ? k < 0 && !strcmp(err.msg, want_err) : k == 0);

	if (!tap_ok(ok, "%s", name))
		tap_diag("got (%d, %s):\n%s", k, err.msg, out);
}

#define STACK "\tmain.main @ 0x401000\n\t\tmain.go:42\n"

/* Go's output for these, as go tool trace -d=parsed prints it. */
static void valid(void)
{
	struct tbuf ev = { 0 }, b = { 0 };

	TB_EV2(&ev, GT2_EV_GO_CREATE, 0, 2, 1, 1);	/* the time of the one before: +1 ns */
	TB_EV2(&ev, GT2_EV_GO_STOP, 3, 3, 1);
	TB_EV2(&ev, GT2_EV_GO_START, 4, 2, 1);
	trace(&b, 1, true, &ev);
	expect("one generation: Sync with the clock snapshot, transitions with stacks, "
	       "times made to grow, a last Sync", &b,
	       "M=-1 P=-1 G=-1 Sync Time=10 N=1 Trace=15 Mono=99 Wall=2023-11-14T22:13:20.000000123Z\n"
	       "M=1 P=-1 G=-1 StateTransition Time=20 ProcID=0 Undetermined->Running Reason=\"\"\n"
	       "M=1 P=0 G=-1 StateTransition Time=21 GoID=1 Undetermined->Running Reason=\"\"\n"
	       "M=1 P=0 G=1 StateTransition Time=22 GoID=2 NotExist->Runnable Reason=\"\"\n"
	       "TransitionStack=\n" STACK "\nStack=\n" STACK "\n"
	       "M=1 P=0 G=1 StateTransition Time=23 GoID=1 Running->Runnable Reason=\"yield\"\n"
	       "TransitionStack=\n" STACK "\nStack=\n" STACK "\n"
	       "M=1 P=0 G=-1 StateTransition Time=27 GoID=2 Runnable->Running Reason=\"\"\n"
	       "M=-1 P=-1 G=-1 Sync Time=28 N=2\n", NULL);
	tb_free(&ev);
	tb_free(&b);
}

static void errors(void)
{
	struct tbuf ev = { 0 }, b = { 0 };
	static const char sync1[] = "M=-1 P=-1 G=-1 Sync Time=10 N=1 Trace=15 Mono=99 "
				    "Wall=2023-11-14T22:13:20.000000123Z\n";
	static const char proc[] = "M=1 P=-1 G=-1 StateTransition Time=20 ProcID=0 "
				   "Undetermined->Running Reason=\"\"\n";
	char want[512];

	/* GoStart of a goroutine nobody created: no M can advance. */
	TB_EV2(&ev, GT2_EV_GO_START, 2, 7, 1);
	trace(&b, 1, false, &ev);
	snprintf(want, sizeof(want), "%s%s", sync1, proc);
	expect("a GoStart of an unknown goroutine: failed to advance", &b, want,
	       "broken trace: failed to advance: frontier:");

	/* A trace cut before its EndOfGeneration. */
	b.len--;
	expect("a generation without its end: incomplete", &b, "M=-1 P=-1 G=-1 Sync Time=1 N=1\n",
	       "incomplete generation found; trace likely truncated");

	/* A second generation with a GoStatus for a goroutine never seen. */
	ev.len = 0;
	b.len = 0;
	trace(&b, 1, false, &ev);
	tables(&b, 2);
	TB_EV2(&ev, GT2_EV_GO_STATUS, 0, 9, 1, 1);
	batch(&b, 2, 1, 40, &ev);
	TB_EV2(&b, GT2_EV_END_OF_GENERATION);
	snprintf(want, sizeof(want), "%s%sM=-1 P=-1 G=-1 Sync Time=21 N=2 Trace=15 Mono=99 "
		 "Wall=2023-11-14T22:13:20.000000123Z\n", sync1, proc);
	expect("a GoStatus of a new goroutine in the second generation", &b, want,
	       "found goroutine status for new goroutine after the first generation: id=9 "
	       "status=Runnable");

	/* The same generation alone: it is the first, the status is fine. */
	b.len = 0;
	tb_header(&b, 26);
	tables(&b, 2);
	TB_EV2(&ev, GT2_EV_GO_STATUS, 0, 9, 1, 1);
	batch(&b, 2, 1, 40, &ev);
	TB_EV2(&b, GT2_EV_END_OF_GENERATION);
	snprintf(want, sizeof(want), "%sM=1 P=-1 G=-1 StateTransition Time=40 GoID=9 "
		 "Undetermined->Runnable Reason=\"\"\nM=-1 P=-1 G=-1 Sync Time=41 N=2\n", sync1);
	expect("a trace that starts at generation 2: its first", &b, want, NULL);

	/* No Sync batch: no frequency. */
	b.len = 0;
	tb_header(&b, 26);
	TB_EV2(&ev, GT2_EV_GO_STATUS, 0, 9, 1, 1);
	batch(&b, 1, 1, 40, &ev);
	TB_EV2(&b, GT2_EV_END_OF_GENERATION);
	expect("a generation without a frequency", &b, "M=-1 P=-1 G=-1 Sync Time=1 N=1\n",
	       "no frequency event found");
	tb_free(&ev);
	tb_free(&b);
}

int main(void)
{
	setenv("TZ", "UTC", 1);
	valid();
	errors();
	return tap_done();
}
