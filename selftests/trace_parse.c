// SPDX-License-Identifier: GPL-2.0
/* A minimal reader of pre-1.22 Go traces, to check them inside the guest. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_parse.h"

#define GT_MAX_EVENT_LEN	2048	/* modern Go's limit, length-prefixed */
#define GT_MAX_FRAMES		1000
#define GT_MAX_STRING		1000000
#define GT_FAKE_P		1000000	/* Go's first fake P (timers, GC...) */
#define GT_MAX_PS		256

/*
 * What Go's internal/trace parser expects of each event type: the Go minor
 * version that introduced it, how many values follow the event byte
 * (timestamp and stack id included) and whether the first is a timestamp
 * delta. Stack and String have their own layout.
 */
static const struct {
	unsigned char minor;
	unsigned char nval;
	bool timed;
} gt_events[GT_EV_COUNT] = {
	[1] = { 5, 2, false },		/* Batch: P, timestamp */
	[2] = { 5, 1, false },		/* Frequency */
	[3] = { 5, 0, false },		/* Stack */
	[4] = { 5, 3, true },		/* Gomaxprocs */
	[5] = { 5, 2, true },		/* ProcStart */
	[6] = { 5, 1, true },		/* ProcStop */
	[7] = { 5, 3, true },		/* GCStart */
	[8] = { 5, 1, true },		/* GCDone */
	[9] = { 5, 2, true },		/* STWStart */
	[10] = { 5, 1, true },		/* STWDone */
	[11] = { 5, 2, true },		/* GCSweepStart */
	[12] = { 5, 3, true },		/* GCSweepDone */
	[13] = { 5, 4, true },		/* GoCreate */
	[14] = { 5, 3, true },		/* GoStart */
	[15] = { 5, 1, true },		/* GoEnd */
	[16] = { 5, 2, true },		/* GoStop */
	[17] = { 5, 2, true },		/* GoSched */
	[18] = { 5, 2, true },		/* GoPreempt */
	[19] = { 5, 2, true },		/* GoSleep */
	[20] = { 5, 2, true },		/* GoBlock */
	[21] = { 5, 4, true },		/* GoUnblock */
	[22] = { 5, 2, true },		/* GoBlockSend */
	[23] = { 5, 2, true },		/* GoBlockRecv */
	[24] = { 5, 2, true },		/* GoBlockSelect */
	[25] = { 5, 2, true },		/* GoBlockSync */
	[26] = { 5, 2, true },		/* GoBlockCond */
	[27] = { 5, 2, true },		/* GoBlockNet */
	[28] = { 5, 2, true },		/* GoSysCall */
	[29] = { 5, 4, true },		/* GoSysExit */
	[30] = { 5, 1, true },		/* GoSysBlock */
	[31] = { 5, 2, true },		/* GoWaiting */
	[32] = { 5, 2, true },		/* GoInSyscall */
	[33] = { 5, 2, true },		/* HeapAlloc */
	[34] = { 5, 2, true },		/* HeapGoal */
	[35] = { 5, 1, false },		/* TimerGoroutine */
	[36] = { 5, 1, true },		/* FutileWakeup */
	[37] = { 7, 0, false },		/* String */
	[38] = { 7, 2, true },		/* GoStartLocal */
	[39] = { 7, 3, true },		/* GoUnblockLocal */
	[40] = { 7, 3, true },		/* GoSysExitLocal */
	[41] = { 8, 4, true },		/* GoStartLabel */
	[42] = { 8, 2, true },		/* GoBlockGC */
	[43] = { 9, 2, true },		/* GCMarkAssistStart */
	[44] = { 9, 1, true },		/* GCMarkAssistDone */
	[45] = { 11, 5, true },		/* UserTaskCreate */
	[46] = { 11, 3, true },		/* UserTaskEnd */
	[47] = { 11, 5, true },		/* UserRegion */
	[48] = { 11, 4, true },		/* UserLog, then a string */
	[49] = { 19, 5, true },		/* CPUSample */
};

#define GT_EV_USER_LOG 48

/* Ids that must be unique in a trace: goroutines created, strings. */
struct gt_ids {
	__u64 *v;
	size_t n, cap;
};

/* Where each P's events have got to in time. */
struct gt_p {
	__u64 id;
	__u64 ts;	/* base of the next timestamp delta */
	__u64 last;	/* timestamp of the P's last timed event */
	__u64 g;	/* goroutine running on it, 0 for none */
};

struct gt_parser {
	const unsigned char *start, *p, *end;
	struct gt_stats *st;
	struct gt_p ps[GT_MAX_PS];
	struct gt_p *cur;		/* P of the current batch */
	struct gt_ids goroutines, strings;
	__u64 args[GT_MAX_EVENT_LEN + 3];
	unsigned int nargs;
	__u64 watch;			/* goroutine counted in gs, if gs */
	struct gt_gstats *gs;
};

static int gt_fail(struct gt_parser *ps, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(ps->st->error, sizeof(ps->st->error), "offset %#zx: ",
		     (size_t)(ps->p - ps->start));
	va_start(ap, fmt);
	vsnprintf(ps->st->error + n, sizeof(ps->st->error) - n, fmt, ap);
	va_end(ap);
	return -1;
}

static int gt_uvarint(struct gt_parser *ps, const unsigned char *end,
		      __u64 *v)
{
	unsigned int i;

	*v = 0;
	for (i = 0; i < 10 && ps->p < end; i++) {
		unsigned char b = *ps->p++;

		*v |= (__u64)(b & 0x7f) << (7 * i);
		if (!(b & 0x80))
			return 0;
	}
	return gt_fail(ps, "bad or truncated varint");
}

static int gt_ids_add(struct gt_ids *ids, __u64 id)
{
	if (ids->n == ids->cap) {
		size_t cap = ids->cap ? ids->cap * 2 : 1024;
		__u64 *v = realloc(ids->v, cap * sizeof(*v));

		if (!v)
			return -1;
		ids->v = v;
		ids->cap = cap;
	}
	ids->v[ids->n++] = id;
	return 0;
}

static int gt_cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/* Whether an id occurs twice; *dup is set to it. */
static bool gt_ids_dup(struct gt_ids *ids, __u64 *dup)
{
	size_t i;

	qsort(ids->v, ids->n, sizeof(*ids->v), gt_cmp_u64);
	for (i = 1; i < ids->n; i++) {
		if (ids->v[i] == ids->v[i - 1]) {
			*dup = ids->v[i];
			return true;
		}
	}
	return false;
}

static int gt_parse_header(struct gt_parser *ps)
{
	static const char zeros[3];
	const char *h = (const char *)ps->p;
	unsigned int minor;

	if (ps->end - ps->p < 16)
		return gt_fail(ps, "short header");
	if (memcmp(h, "go 1.", 5) || memcmp(h + 7, " trace", 6) ||
	    memcmp(h + 13, zeros, 3) || sscanf(h + 5, "%2u", &minor) != 1)
		return gt_fail(ps, "bad header");
	if (minor != 11 && minor != 19 && minor != 21)
		return gt_fail(ps, "unexpected version 1.%u", minor);
	ps->st->version = minor;
	ps->p += 16;
	return 0;
}

static int gt_parse_string(struct gt_parser *ps)
{
	__u64 id, len;

	if (gt_uvarint(ps, ps->end, &id) || gt_uvarint(ps, ps->end, &len))
		return -1;
	if (!id || !len || len > GT_MAX_STRING)
		return gt_fail(ps, "string %llu of length %llu",
			       (unsigned long long)id, (unsigned long long)len);
	if (len > (__u64)(ps->end - ps->p))
		return gt_fail(ps, "truncated string");
	ps->p += len;
	return gt_ids_add(&ps->strings, id) ? gt_fail(ps, "out of memory") : 0;
}

/* Read the values after the event byte into ps->args. */
static int gt_parse_args(struct gt_parser *ps, unsigned int typ,
			 unsigned int inline_args)
{
	const unsigned char *end = ps->end;
	__u64 len;

	ps->nargs = 0;
	if (inline_args < 3) {
		while (ps->nargs <= inline_args)
			if (gt_uvarint(ps, end, &ps->args[ps->nargs++]))
				return -1;
	} else {
		if (gt_uvarint(ps, end, &len))
			return -1;
		if (len > GT_MAX_EVENT_LEN || len > (__u64)(end - ps->p))
			return gt_fail(ps, "event %u of length %llu: %s", typ,
				       (unsigned long long)len,
				       "too long or truncated");
		end = ps->p + len;
		while (ps->p < end)
			if (gt_uvarint(ps, end, &ps->args[ps->nargs++]))
				return -1;
	}
	if (typ == GT_EV_USER_LOG) {
		if (gt_uvarint(ps, ps->end, &len))
			return -1;
		if (len > (__u64)(ps->end - ps->p))
			return gt_fail(ps, "truncated log string");
		ps->p += len;
	}
	return 0;
}

static int gt_check_args(struct gt_parser *ps, unsigned int typ)
{
	__u64 want = gt_events[typ].nval;

	if (typ == GT_EV_STACK) {
		if (ps->nargs < 2 || ps->args[1] > GT_MAX_FRAMES)
			return gt_fail(ps, "bad stack");
		want = 2 + 4 * ps->args[1];
	}
	if (ps->nargs != want)
		return gt_fail(ps, "event %u has %u values, want %llu", typ,
			       ps->nargs, (unsigned long long)want);
	return 0;
}

/* A batch starts: its P must be a CPU (or one of Go's fake Ps). */
static int gt_batch(struct gt_parser *ps, unsigned int nr_cpus)
{
	__u64 id = ps->args[0], ts = ps->args[1];
	struct gt_p *p;

	if (id >= nr_cpus && id < GT_FAKE_P)
		return gt_fail(ps, "batch of P %llu, %u CPUs",
			       (unsigned long long)id, nr_cpus);
	for (p = ps->ps; p < ps->ps + ps->st->nr_ps; p++)
		if (p->id == id)
			break;
	if (p == ps->ps + GT_MAX_PS)
		return gt_fail(ps, "too many Ps");
	if (p == ps->ps + ps->st->nr_ps) {
		ps->st->nr_ps++;
		p->id = id;
		p->last = 0;
		p->g = 0;
	}
	p->ts = ts;
	ps->cur = p;
	if (!ps->st->first_ts || ts < ps->st->first_ts)
		ps->st->first_ts = ts;
	if (ts > ps->st->last_ts)
		ps->st->last_ts = ts;
	return 0;
}

/*
 * A P's events keep their order when Go merges the Ps, and the merged
 * stream must be sorted by time: so each P's time never goes back.
 */
static int gt_timed(struct gt_parser *ps, __u64 delta)
{
	struct gt_p *p = ps->cur;

	p->ts += delta;
	if (p->ts < p->last)
		return gt_fail(ps, "P %llu goes back in time by %llu ticks",
			       (unsigned long long)p->id,
			       (unsigned long long)(p->last - p->ts));
	p->last = p->ts;
	if (p->ts > ps->st->last_ts)
		ps->st->last_ts = p->ts;
	return 0;
}

/*
 * Follow which goroutine each P runs, and count what the watched one does.
 * Block, preempt and end events name no goroutine: they are about the one
 * the P runs, which a P's batches tell in order.
 */
static void gt_watch(struct gt_parser *ps, unsigned int typ)
{
	struct gt_gstats *gs = ps->gs;
	bool running = ps->cur->g == ps->watch;

	switch (typ) {
	case GT_EV_GO_START:
	case GT_EV_GO_START_LOCAL:
	case GT_EV_GO_START_LABEL:
		ps->cur->g = ps->args[1];
		gs->starts += ps->args[1] == ps->watch;
		return;
	case GT_EV_GO_CREATE:
		gs->creates += ps->args[1] == ps->watch;
		return;
	case GT_EV_GO_UNBLOCK:
	case GT_EV_GO_UNBLOCK_LOCAL:
	case GT_EV_GO_SYS_EXIT:
	case GT_EV_GO_SYS_EXIT_LOCAL:
		gs->unblocks += ps->args[1] == ps->watch;
		return;
	case 15:	/* GoEnd */
	case 16:	/* GoStop */
		gs->ends += running;
		break;
	case 17:	/* GoSched */
	case 18:	/* GoPreempt */
		gs->preempts += running;
		break;
	case 19 ... 20:	/* GoSleep, GoBlock */
	case 22 ... 27:	/* GoBlockSend ... GoBlockNet */
	case 30:	/* GoSysBlock */
	case 42:	/* GoBlockGC */
		gs->blocks += running;
		break;
	default:
		return;
	}
	ps->cur->g = 0;
}

static int gt_parse_event(struct gt_parser *ps, unsigned int nr_cpus)
{
	unsigned char b = *ps->p++;
	unsigned int typ = b & 0x3f;

	if (!typ || typ >= GT_EV_COUNT ||
	    gt_events[typ].minor > ps->st->version)
		return gt_fail(ps, "unknown event type %u in a 1.%u trace",
			       typ, ps->st->version);
	if (!ps->cur && typ != GT_EV_BATCH && typ != GT_EV_FREQUENCY)
		return gt_fail(ps, "event %u before the first batch", typ);
	ps->st->count[typ]++;
	if (typ == GT_EV_STRING)
		return gt_parse_string(ps);
	if (gt_parse_args(ps, typ, b >> 6) || gt_check_args(ps, typ))
		return -1;
	switch (typ) {
	case GT_EV_BATCH:
		return gt_batch(ps, nr_cpus);
	case GT_EV_FREQUENCY:
		ps->st->frequency = ps->args[0];
		return ps->args[0] ? 0 : gt_fail(ps, "frequency 0");
	case GT_EV_GO_CREATE:
		if (gt_ids_add(&ps->goroutines, ps->args[1]))
			return gt_fail(ps, "out of memory");
		break;
	}
	if (ps->gs)
		gt_watch(ps, typ);
	return gt_events[typ].timed ? gt_timed(ps, ps->args[0]) : 0;
}

/*
 * Check that @data is a whole trace as Go's parsers read it, as far as can be
 * told without replaying goroutine states: the header, every event's type
 * and size, batches of real Ps, each P's events in time order, one
 * Frequency, and goroutine and string ids defined once. Returns 0, or -1
 * with the reason in st->error.
 */
static int gt_parse_watch(const void *data, size_t len, unsigned int nr_cpus,
			  __u64 goid, struct gt_gstats *gs, struct gt_stats *st)
{
	struct gt_parser *ps = calloc(1, sizeof(*ps));
	__u64 dup;
	int ret;

	memset(st, 0, sizeof(*st));
	if (!ps) {
		snprintf(st->error, sizeof(st->error), "out of memory");
		return -1;
	}
	if (gs)
		memset(gs, 0, sizeof(*gs));
	ps->watch = goid;
	ps->gs = gs;
	ps->start = data;
	ps->p = ps->start;
	ps->end = ps->p + len;
	ps->st = st;
	ret = gt_parse_header(ps);
	while (!ret && ps->p < ps->end)
		ret = gt_parse_event(ps, nr_cpus);
	if (!ret && !st->count[GT_EV_BATCH])
		ret = gt_fail(ps, "no batch");
	if (!ret && st->count[GT_EV_FREQUENCY] != 1)
		ret = gt_fail(ps, "%lu Frequency events",
			      st->count[GT_EV_FREQUENCY]);
	if (!ret && gt_ids_dup(&ps->goroutines, &dup))
		ret = gt_fail(ps, "goroutine %llu created twice",
			      (unsigned long long)dup);
	if (!ret && gt_ids_dup(&ps->strings, &dup))
		ret = gt_fail(ps, "string %llu defined twice",
			      (unsigned long long)dup);
	free(ps->goroutines.v);
	free(ps->strings.v);
	free(ps);
	return ret;
}

int gt_parse(const void *data, size_t len, unsigned int nr_cpus,
	     struct gt_stats *st)
{
	return gt_parse_watch(data, len, nr_cpus, 0, NULL, st);
}

/*
 * gt_parse(), also counting in @gs what goroutine @goid did: how often it
 * was put on a P, taken off it (waiting, or still runnable), made runnable.
 */
int gt_parse_goroutine(const void *data, size_t len, unsigned int nr_cpus,
		       __u64 goid, struct gt_gstats *gs, struct gt_stats *st)
{
	return gt_parse_watch(data, len, nr_cpus, goid, gs, st);
}

/* Goroutines put on a P: every wakeup or creation ends in one of these. */
unsigned long gt_starts(const struct gt_stats *st)
{
	return st->count[GT_EV_GO_START] + st->count[GT_EV_GO_START_LOCAL] +
	       st->count[GT_EV_GO_START_LABEL];
}

/* Goroutines made runnable again: unblocked, or back from a syscall. */
unsigned long gt_wakeups(const struct gt_stats *st)
{
	return st->count[GT_EV_GO_UNBLOCK] +
	       st->count[GT_EV_GO_UNBLOCK_LOCAL] +
	       st->count[GT_EV_GO_SYS_EXIT] +
	       st->count[GT_EV_GO_SYS_EXIT_LOCAL];
}
