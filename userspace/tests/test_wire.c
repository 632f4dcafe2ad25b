// SPDX-License-Identifier: GPL-2.0
/*
 * The Go 1.22+ wire decoder (tracev2.h) on traces built here byte by byte:
 * headers as Go's fmt.Fscanf reads them, every event type of every version,
 * varint limits, a trace cut at every offset (the exact error, naming the
 * event's offset) and the text of events as Go's raw.Event.String().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "tracev2.h"

struct buf {
	uint8_t b[4096];
	size_t n;
};

static void put(struct buf *b, const void *p, size_t n)
{
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

static void byte(struct buf *b, uint8_t v)
{
	b->b[b->n++] = v;
}

static void uv(struct buf *b, uint64_t v)
{
	for (; v >= 0x80; v >>= 7)
		byte(b, (uint8_t)(v | 0x80));
	byte(b, (uint8_t)v);
}

static void header(struct buf *b, int minor)
{
	b->n = (size_t)snprintf((char *)b->b, 14, "go 1.%d trace", minor);
	put(b, "\0\0\0", 3);
}

/* Opens @b; decodes every event; the number of events, -1 after an error. */
static int decode(const struct buf *b, struct gt2_wire_event *last, struct gt_error *err)
{
	struct gt2_wire_event ev;
	struct gt2_trace *t;
	struct gt2_wire w;
	int n = 0, r;

	memset(err, 0, sizeof(*err));
	if (gt2_open_mem(b->b, b->n, &t, err))
		return -1;
	gt2_wire_init(&w, t);
	while ((r = gt2_wire_next(&w, &ev, err)) > 0) {
		n++;
		if (last)
			*last = ev;
	}
	gt2_close(t);
	return r < 0 ? -1 : n;
}

static void refused(const struct buf *b, uint64_t off, const char *msg, const char *what)
{
	struct gt_error err;
	int n = decode(b, NULL, &err);

	if (!tap_ok(n < 0 && err.phase == GT_ERR_WIRE && err.off == off && !strcmp(err.msg, msg),
		    "%s: an error at offset %llu", what, (unsigned long long)off))
		tap_diag("got %d events, phase %d, offset %llu: %s", n, err.phase,
			 (unsigned long long)err.off, err.msg);
}

static void raw_header(struct buf *b, const char *h, size_t len)
{
	b->n = 0;
	put(b, h, len);
}

/* Header spellings Go's fmt.Fscanf takes or refuses. */
static void test_headers(void)
{
	static const char bad[] = "bad file format: not a Go execution trace?";
	static const struct {
		const char *h;
		size_t len;
		int ver;		/* 0: refused with @msg */
		const char *msg;
	} cases[] = {
		{ "", 0, 0, bad },
		{ "go 1.26 trace\0\0", 15, 0, bad },
		{ "go 1.26 tracf\0\0\0", 16, 0, bad },
		{ "go\n1.26 trace\0\0\0", 16, 0, bad },
		{ "go 1.\n26 trace\0\0\0", 17, 0, bad },
		{ "go 1.26trace\0\0\0", 15, 0, bad },
		{ "go 1.-26 trace\0\0\0", 17, 0, bad },
		{ "go 1.4294967296 trace\0\0\0", 24, 0, bad },
		{ "go 1.4294967295 trace\0\0\0", 24, 0,
		  "unknown or unsupported trace version go 1.4294967295" },
		{ "go 1.2147483647 trace\0\0\0", 24, 0,
		  "unknown or unsupported trace version go 1.2147483647" },
		{ "go 1.24 trace\0\0\0", 16, 0, "unknown or unsupported trace version go 1.24" },
		{ "go 1.21 trace\0\0\0", 16, 0, "go 1.21 trace: the pre-1.22 format; this reader "
		  "takes go 1.22, 1.23, 1.25 and 1.26 traces" },
		{ "go 1.22 trace\0\0\0", 16, 1022, NULL },
		{ "go  1.0025\t\ttrace\0\0\0", 20, 1025, NULL },
		{ "go\xc2\xa0" "1.\xe3\x80\x80" "23\xe2\x80\xa9trace\0\0\0", 22, 1023, NULL },
	};
	struct gt2_wire_event ev;
	struct gt_error err;
	char what[32];
	struct buf b;
	size_t i;
	int n;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		raw_header(&b, cases[i].h, cases[i].len);
		byte(&b, GT2_EV_STRINGS);
		if (!cases[i].ver) {
			snprintf(what, sizeof(what), "header %zu", i);
			refused(&b, 0, cases[i].msg, what);
			continue;
		}
		n = decode(&b, &ev, &err);
		tap_ok(n == 1 && ev.off == cases[i].len && !strcmp(ev.name, "Strings"),
		       "header %zu (go 1.%d) is %zu bytes long", i, cases[i].ver - 1000,
		       cases[i].len);
	}
}

struct version {
	int minor;
	unsigned int max;
};

static const struct version versions[] = { { 22, 44 }, { 23, 49 }, { 25, 51 }, { 26, 136 } };

/* Arguments of the event types, frames and data aside (Go's tracev2.Specs()). */
static const uint8_t nargs[GT2_EV_COUNT] = {
	[1] = 4, [3] = 2, [5] = 1, [7] = 5, [8] = 1, [9] = 3, [10] = 3, [11] = 1, [12] = 4,
	[13] = 3, [14] = 4, [15] = 2, [16] = 3, [17] = 1, [18] = 1, [19] = 3, [20] = 3,
	[21] = 4, [22] = 3, [23] = 1, [24] = 1, [25] = 4, [26] = 3, [27] = 1, [28] = 2,
	[29] = 3, [30] = 2, [31] = 2, [32] = 2, [33] = 3, [34] = 2, [35] = 2, [36] = 1,
	[37] = 2, [38] = 2, [39] = 2, [40] = 5, [41] = 3, [42] = 4, [43] = 4, [44] = 5,
	[45] = 3, [46] = 3, [47] = 4, [48] = 5, [49] = 4, [51] = 4, [128] = 4, [129] = 4,
	[130] = 2, [131] = 3, [132] = 3, [133] = 2, [134] = 3, [135] = 3, [136] = 2,
};

/* One event of each type: its arguments are 1, 2, ...; a frame; 2 data bytes. */
static void test_types(const struct version *v)
{
	struct gt2_wire_event ev;
	struct gt_error err;
	unsigned int type, i, bad = 0;
	char msg[128];
	struct buf b;
	bool unnamed;

	for (type = 1; type <= v->max; type++) {
		header(&b, v->minor);
		byte(&b, (uint8_t)type);
		for (i = 0; i < nargs[type]; i++)
			uv(&b, i == 1 && type == GT2_EV_STACK ? 1 : i + 1);
		if (type == GT2_EV_STACK)
			put(&b, "\x0a\x0b\x0c\x0d", 4);
		if (type == GT2_EV_STRING || type == GT2_EV_EXPERIMENTAL_BATCH)
			put(&b, "\x02xy", 3);
		unnamed = v->minor == 26 && type > GT2_EV_END_OF_GENERATION && type < GT2_EV_SPAN;
		if (decode(&b, &ev, &err) != 1 || ev.type != type || ev.nargs != nargs[type] ||
		    ev.end != b.n || !*ev.name != unnamed ||
		    (nargs[type] && ev.args[nargs[type] - 1] !=
				    (type == GT2_EV_STACK ? 1u : nargs[type])) ||
		    ev.nframes != (type == GT2_EV_STACK) ||
		    (ev.data_len == 2) != (type == GT2_EV_STRING ||
					   type == GT2_EV_EXPERIMENTAL_BATCH)) {
			tap_diag("go 1.%d, type %u: %s", v->minor, type, err.msg);
			bad++;
		}
	}
	tap_ok(!bad, "go 1.%d: types 1 to %u decode with their arguments", v->minor, v->max);
	header(&b, v->minor);
	byte(&b, GT2_EV_STRINGS);
	byte(&b, (uint8_t)(v->max + 1));
	snprintf(msg, sizeof(msg), "invalid event type %u at offset 17: go 1.%d traces have "
		 "types 1 to %u", v->max + 1, v->minor, v->max);
	refused(&b, 17, msg, "the type after the last");
	header(&b, v->minor);
	byte(&b, 0);
	snprintf(msg, sizeof(msg), "invalid event type 0 at offset 16: go 1.%d traces have "
		 "types 1 to %u", v->minor, v->max);
	refused(&b, 16, msg, "type 0");
}

static void test_varints(void)
{
	static const uint8_t max[] = "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01";
	static const uint8_t zero10[] = "\x80\x80\x80\x80\x80\x80\x80\x80\x80\x00";
	struct gt2_wire_event ev;
	struct gt_error err;
	struct buf b;

	header(&b, 26);
	byte(&b, GT2_EV_FREQUENCY);
	put(&b, max, 10);
	tap_ok(decode(&b, &ev, &err) == 1 && ev.args[0] == UINT64_MAX && ev.end == 27,
	       "a 10-byte varint ending in 1 is 2^64-1");
	header(&b, 26);
	byte(&b, GT2_EV_FREQUENCY);
	put(&b, zero10, 10);
	tap_ok(decode(&b, &ev, &err) == 1 && ev.args[0] == 0 && ev.end == 27,
	       "a 10-byte varint of 0 (not minimal) is 0");
	header(&b, 26);
	byte(&b, GT2_EV_PROC_START);
	uv(&b, 5);
	put(&b, max, 9);
	byte(&b, 2);
	uv(&b, 1);
	refused(&b, 16, "ProcStart at offset 16: bad varint at offset 18: it overflows 64 bits",
		"a 10th varint byte over 1");
	header(&b, 26);
	byte(&b, GT2_EV_STACK);
	uv(&b, 1);
	uv(&b, 1);
	put(&b, zero10, 9);
	put(&b, zero10, 9);
	refused(&b, 16, "Stack at offset 16: bad varint at offset 19: it overflows 64 bits",
		"an 11-byte varint in a frame");
}

struct cut_event {
	uint64_t off, data;	/* data: where its data bytes start, 0 if none */
	const char *name;
	uint64_t len;
};

/* A trace cut at every offset: the error names the event it ends in. */
static void test_cuts(void)
{
	struct cut_event evs[6];
	struct gt_error err;
	char msg[160];
	struct buf b, c;
	size_t i, n = 0, k, bad = 0;
	int r;

	header(&b, 26);
	evs[n++] = (struct cut_event){ b.n, 0, "EventBatch", 0 };
	byte(&b, GT2_EV_EVENT_BATCH);
	uv(&b, 1);
	uv(&b, 1234567);
	uv(&b, 1ULL << 40);
	uv(&b, 60);
	evs[n++] = (struct cut_event){ b.n, b.n + 3, "String", 5 };
	byte(&b, GT2_EV_STRING);
	uv(&b, 1);
	uv(&b, 5);
	put(&b, "hello", 5);
	evs[n++] = (struct cut_event){ b.n, 0, "Stack", 0 };
	byte(&b, GT2_EV_STACK);
	uv(&b, 1);
	uv(&b, 2);
	for (i = 0; i < 8; i++)
		uv(&b, i * 1000);
	evs[n++] = (struct cut_event){ b.n, b.n + 7, "ExperimentalBatch", 3 };
	byte(&b, GT2_EV_EXPERIMENTAL_BATCH);
	uv(&b, 1);
	uv(&b, 1);
	uv(&b, 2);
	uv(&b, 300);
	uv(&b, 3);
	put(&b, "\x00\x01\x02", 3);
	evs[n++] = (struct cut_event){ b.n, 0, "ProcStart", 0 };
	byte(&b, GT2_EV_PROC_START);
	uv(&b, 200);
	uv(&b, 3);
	uv(&b, 4);
	evs[n] = (struct cut_event){ b.n, 0, NULL, 0 };
	for (k = 16, i = 0; k <= b.n; k++) {
		c = b;
		c.n = k;
		while (i < n && evs[i + 1].off <= k)
			i++;
		r = decode(&c, NULL, &err);
		if (k == evs[i].off) {
			msg[0] = 0;
			if (r == (int)i)
				continue;
		} else if (evs[i].data && k >= evs[i].data) {
			snprintf(msg, sizeof(msg), "%s at offset %llu: the file ends inside "
				 "its %llu bytes of data: the trace is cut short", evs[i].name,
				 (unsigned long long)evs[i].off,
				 (unsigned long long)evs[i].len);
		} else {
			snprintf(msg, sizeof(msg), "%s at offset %llu: the file ends inside the "
				 "event: the trace is cut short", evs[i].name,
				 (unsigned long long)evs[i].off);
		}
		if (r < 0 && err.off == evs[i].off && !strcmp(err.msg, msg))
			continue;
		tap_diag("cut at %zu: %d events, %s; want: %s", k, r, err.msg, msg);
		bad++;
	}
	tap_ok(!bad, "a trace of %zu bytes cut at each offset: %zu wrong verdicts", b.n, bad);
}

/* @b's last event as gt2_wire_print() writes it. */
static bool prints(const struct buf *b, const char *want, const char *what)
{
	struct gt2_wire_event ev;
	struct gt2_trace *t;
	struct gt_error err;
	struct gt2_wire w;
	char *out = NULL;
	size_t len = 0;
	FILE *f;
	bool ok;

	f = open_memstream(&out, &len);
	if (!f || gt2_open_mem(b->b, b->n, &t, &err))
		return tap_ok(false, "%s: %s", what, err.msg);
	gt2_wire_init(&w, t);
	while (gt2_wire_next(&w, &ev, &err) > 0)
		gt2_wire_print(f, t, &ev);
	fclose(f);
	gt2_close(t);
	ok = tap_ok(!strcmp(out, want), "%s: printed as Go's raw reader does", what);
	if (!ok)
		tap_diag("got '%s', want '%s'", out, want);
	free(out);
	return ok;
}

static void test_print(void)
{
	/* Quoting: escapes, \x for invalid UTF-8, \u and \U, printable runes as is. */
	static const char data[] = "a\"\\\a\b\f\n\r\t\v\x01\x7f\xc2\xad\xc3\xa9"
				   "\xe2\x80\x8b\xf0\x9f\x98\x80\xf3\xa0\x80\x81"
				   "\xef\xbf\xbd\xed\xa0\x80\xe2\x82";
	struct buf b;

	header(&b, 26);
	byte(&b, GT2_EV_STACK);
	uv(&b, 3);
	uv(&b, 2);
	uv(&b, 4198400);
	uv(&b, 7);
	uv(&b, 8);
	uv(&b, 42);
	uv(&b, UINT64_MAX);
	uv(&b, 0);
	uv(&b, 1);
	uv(&b, 2);
	prints(&b, "Stack id=3 nframes=2\n\tpc=4198400 func=7 file=8 line=42\n"
		   "\tpc=18446744073709551615 func=0 file=1 line=2\n", "a Stack with 2 frames");
	header(&b, 26);
	byte(&b, GT2_EV_STRING);
	uv(&b, 9);
	uv(&b, sizeof(data) - 1);
	put(&b, data, sizeof(data) - 1);
	prints(&b, "String id=9\n\tdata=\"a\\\"\\\\\\a\\b\\f\\n\\r\\t\\v\\x01\\x7f\\u00ad\xc3\xa9"
		   "\\u200b\xf0\x9f\x98\x80\\U000e0001\xef\xbf\xbd\\xed\\xa0\\x80\\xe2\\x82\"\n",
		   "a String of odd bytes");
	/* Go converts these counts to int: negative, so nothing follows. */
	header(&b, 26);
	byte(&b, GT2_EV_STACK);
	uv(&b, 4);
	uv(&b, 1ULL << 63);
	byte(&b, GT2_EV_STRING);
	uv(&b, 5);
	uv(&b, UINT64_MAX);
	byte(&b, GT2_EV_STRING);
	uv(&b, 6);
	uv(&b, 0);
	byte(&b, 100);
	byte(&b, GT2_EV_GO_STOP);
	uv(&b, 0);
	uv(&b, 0);
	uv(&b, 0);
	prints(&b, "Stack id=4 nframes=9223372036854775808\nString id=5\nString id=6\n\n"
		   "GoStop dt=0 reason_string=0 stack=0\n",
		   "negative counts, an empty String, unnamed type 100");
}

static void test_file(void)
{
	char path[] = "/tmp/test_wire.XXXXXX";
	struct gt2_trace *t = NULL;
	struct gt_error err;
	struct buf b;
	int fd;

	tap_ok(gt2_open("/nonexistent/trace", &t, &err) == -1 && err.phase == GT_OK &&
	       !strcmp(err.msg, "cannot open: No such file or directory"),
	       "a missing file: %s", err.msg);
	header(&b, 25);
	byte(&b, GT2_EV_SYNC);
	fd = mkstemp(path);
	if (fd < 0 || write(fd, b.b, b.n) != (ssize_t)b.n) {
		tap_ok(false, "temporary file: %m");
		return;
	}
	close(fd);
	tap_ok(!gt2_open(path, &t, &err) && gt2_version(t) == 1025 && gt2_size(t) == 17,
	       "a go 1.25 trace file opens: version 1025, 17 bytes");
	gt2_close(t);
	unlink(path);
}

int main(void)
{
	size_t i;

	test_headers();
	for (i = 0; i < sizeof(versions) / sizeof(versions[0]); i++)
		test_types(&versions[i]);
	test_varints();
	test_cuts();
	test_print();
	test_file();
	return tap_done();
}
