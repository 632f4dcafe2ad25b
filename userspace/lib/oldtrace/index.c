// SPDX-License-Identifier: GPL-2.0
/*
 * The first pass: every event is decoded once, in file order, and checked as
 * Go's readTrace() and parseEvents() check it. What later passes need is
 * kept: each P's batches, the string and stack dictionaries, CPU samples.
 *
 * A large trace is read in two halves at once, on two threads. The second
 * starts at a Batch event found past the middle: a batch opens with no state
 * from the events before it, so what the second thread reads from there is
 * what one thread would. Where an event begins cannot be told from the bytes
 * alone (a String's bytes may look like a Batch), so the first thread reads
 * on until it reaches that offset: if it lands on it, the second half is
 * added to the first (its Ps' batches after theirs, its strings checked
 * against the first half's, its stacks replacing theirs, as one pass would);
 * if it steps past it, the second thread's work is thrown away and the
 * first reads on to the end. Either way the index is the one-thread pass's.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define HALVES_MIN	(16 << 20)	/* smaller traces are read on one thread */
#define SYNC_MAX	(1 << 20)	/* how far past the middle a Batch is looked for */
#define SYNC_EVENTS	4096		/* events decoded before a Batch is taken */

/* A String of the second half: added to the trace's strings once the first is read. */
struct string_def {
	uint64_t id, off, val;
};

/* The batch being read: events go to its P once it has one. */
struct scan {
	struct gt_trace *t;
	struct gt_error wire, parse;	/* first error of each phase */
	int64_t p;
	uint64_t off;			/* first event of the batch */
	int64_t batch_ts, last_ts;
	bool registered;		/* the batch is in its P's list */
	bool have_min;
	bool have_freq;			/* a Frequency event was read */
	/* The second half's Strings, in file order (NULL in the first half's scan). */
	struct string_def *defs;
	size_t nr_defs, cap_defs;
	bool deferred;			/* Strings go to defs */
};

/* The second half: its scan, into a trace of its own, on its thread. */
struct half {
	struct scan s;
	struct gt_trace t;
	uint64_t start;			/* its first event, a Batch */
	bool valid;			/* it was a Batch */
	pthread_t thread;
};

static bool oom(struct gt_error *err, uint64_t off)
{
	gt_fail(err, GT_ERR_WIRE, off, "out of memory while indexing the trace");
	return false;
}

static struct gt_proc *proc_get(struct gt_trace *t, int64_t id, uint64_t off, struct gt_error *err)
{
	struct gt_proc *procs;
	uint64_t *idx;
	bool added;

	idx = gt_map_put(&t->proc_ids, (uint64_t)id, &added);
	if (!idx)
		return oom(err, off), NULL;
	if (!added)
		return &t->procs[*idx - 1];
	procs = realloc(t->procs, (t->nr_procs + 1) * sizeof(*procs));
	if (!procs)
		return oom(err, off), NULL;
	t->procs = procs;
	memset(&procs[t->nr_procs], 0, sizeof(*procs));
	procs[t->nr_procs].id = id;
	*idx = ++t->nr_procs;
	return &procs[t->nr_procs - 1];
}

/* Puts the current batch in its P's list when it gets its first event. */
static bool batch_register(struct scan *s, uint64_t off)
{
	struct gt_proc *p;
	struct gt_batch *b;

	if (s->registered)
		return true;
	p = proc_get(s->t, s->p, off, &s->wire);
	if (!p)
		return false;
	if (p->nr_batches == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 4;
		b = realloc(p->batches, p->cap * sizeof(*b));
		if (!b)
			return oom(&s->wire, off);
		p->batches = b;
	}
	p->batches[p->nr_batches++] = (struct gt_batch){ .off = s->off, .ts = s->batch_ts };
	s->registered = true;
	return true;
}

/* String @id of the event at @off, its bytes and length in @val, into the trace's. */
static bool string_put(struct scan *s, uint64_t id, uint64_t off, uint64_t val)
{
	uint64_t *v;
	bool added;

	v = gt_map_put(&s->t->strings, id, &added);
	if (!v)
		return oom(&s->wire, off);
	if (!added) {
		gt_fail(&s->wire, GT_ERR_WIRE, off, "String at offset %llu reuses id %llu: "
			"string ids must be unique", (unsigned long long)off,
			(unsigned long long)id);
		return false;
	}
	*v = val;
	return true;
}

/* The second half's Strings wait for the first half's, so that a reused id is found. */
static bool string_defer(struct scan *s, const struct gt_raw *raw, uint64_t val)
{
	struct string_def *d;

	if (s->nr_defs == s->cap_defs) {
		s->cap_defs = s->cap_defs ? 2 * s->cap_defs : 64;
		d = realloc(s->defs, s->cap_defs * sizeof(*d));
		if (!d)
			return oom(&s->wire, raw->off);
		s->defs = d;
	}
	s->defs[s->nr_defs++] = (struct string_def){ raw->args[0], raw->off, val };
	return true;
}

static bool string_add(struct scan *s, const struct gt_raw *raw)
{
	uint64_t val = raw->str_off << 20 | raw->str_len;

	if (s->deferred)
		return string_defer(s, raw, val);
	return string_put(s, raw->args[0], raw->off, val);
}

static void parse_fail(struct scan *s, const struct gt_raw *raw, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void parse_fail(struct scan *s, const struct gt_raw *raw, const char *fmt, ...)
{
	char msg[sizeof(s->parse.msg) - 48];
	va_list ap;

	if (s->parse.phase)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	gt_fail(&s->parse, GT_ERR_PARSE, raw->off, "%s at offset %llu: %s",
		gt_descs[raw->type].name, (unsigned long long)raw->off, msg);
}

static bool stack_add(struct scan *s, const struct gt_raw *raw)
{
	uint64_t *v, size = raw->args[1];
	bool added;

	if (raw->nargs < 2) {
		parse_fail(s, raw, "a stack needs an id and a frame count, it has %u values",
			   raw->nargs);
		return true;
	}
	if (size > GT_MAX_FRAMES) {
		parse_fail(s, raw, "%llu frames: a stack has at most %d",
			   (unsigned long long)size, GT_MAX_FRAMES);
		return true;
	}
	if (raw->nargs != 2 + 4 * size) {
		parse_fail(s, raw, "%llu frames need %llu values, it has %u",
			   (unsigned long long)size, (unsigned long long)(2 + 4 * size), raw->nargs);
		return true;
	}
	if (!raw->args[0] || !size)
		return true;
	/* A later definition of the same id replaces the earlier one, as in Go. */
	v = gt_map_put(&s->t->stacks, raw->args[0], &added);
	if (!v)
		return oom(&s->wire, raw->off);
	*v = raw->off;
	return true;
}

static bool sample_add(struct scan *s, const struct gt_raw *raw)
{
	struct gt_trace *t = s->t;
	struct gt_sample *v;

	if (!(t->nr_samples & (t->nr_samples + 1))) {
		v = realloc(t->samples, (2 * t->nr_samples + 1) * sizeof(*v));
		if (!v)
			return oom(&s->wire, raw->off);
		t->samples = v;
	}
	t->samples[t->nr_samples++] = (struct gt_sample){ .ts = (int64_t)raw->args[1],
							  .off = raw->off };
	return true;
}

static void min_ts(struct scan *s, int64_t ts)
{
	if (!s->have_min || ts < s->t->min_ts)
		s->t->min_ts = ts;
	s->have_min = true;
}

/* An event with a time stamp: it joins its P's list, or the CPU samples. */
static bool timed_event(struct scan *s, const struct gt_raw *raw)
{
	int64_t ts = (int64_t)((uint64_t)s->last_ts + raw->args[0]);

	s->last_ts = ts;
	s->t->nr_events++;
	if (raw->type == GT_EV_STW_START && s->t->ver >= GT_VER(10) &&
	    s->t->ver < GT_VER(21) && raw->args[1] > 1)
		parse_fail(s, raw, "unknown STW kind %llu: before go 1.21 it is 0 (mark "
			   "termination) or 1 (sweep termination)", (unsigned long long)raw->args[1]);
	if (raw->type == GT_EV_FUTILE_WAKEUP)
		s->t->nr_futile++;
	if (raw->type == GT_EV_CPU_SAMPLE) {
		min_ts(s, (int64_t)raw->args[1]);
		return sample_add(s, raw);
	}
	/* Go's merge moves a syscall exit to its real time stamp. */
	if (raw->type == GT_EV_GO_SYSEXIT && raw->args[3])
		ts = (int64_t)raw->args[3];
	min_ts(s, ts);
	return batch_register(s, raw->off);
}

static void batch_start(struct scan *s, const struct gt_raw *raw)
{
	s->t->nr_batches++;
	s->p = (int64_t)raw->args[0];
	s->off = raw->end;
	s->batch_ts = s->last_ts = (int64_t)raw->args[1];
	s->registered = false;
	if (s->p == GT_P_PROFILE)
		parse_fail(s, raw, "P id %d is the one Go's parser keeps for CPU samples",
			   GT_P_PROFILE);
}

static bool scan_event(struct scan *s, const struct gt_raw *raw)
{
	if (raw->type == GT_EV_STRING)
		return string_add(s, raw);
	if (raw->type == GT_EV_STACK)
		return stack_add(s, raw);
	if (raw->nargs != s->t->nr_args[raw->type]) {
		parse_fail(s, raw, "%u arguments, this event has %d in go 1.%d traces", raw->nargs,
			   gt_nr_args(raw->type, s->t->ver), s->t->ver - 1000);
		return true;
	}
	switch (raw->type) {
	case GT_EV_BATCH:
		batch_start(s, raw);
		return true;
	case GT_EV_FREQUENCY:
		s->have_freq = true;
		s->t->ticks_per_sec = (int64_t)raw->args[0];
		if (s->t->ticks_per_sec <= 0)
			parse_fail(s, raw, "frequency %lld: ticks per second must be > 0",
				   (long long)s->t->ticks_per_sec);
		return true;
	case GT_EV_TIMER_GOROUTINE: {
		bool added;

		return gt_map_put(&s->t->timer_gs, raw->args[0], &added) || oom(&s->wire, raw->off);
	}
	}
	return timed_event(s, raw);
}

static int sample_cmp(const void *a, const void *b)
{
	const struct gt_sample *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static int scan_end(struct scan *s, struct gt_error *err)
{
	struct gt_trace *t = s->t;

	if (s->parse.phase) {
		*err = s->parse;
		return -1;
	}
	if (!t->nr_procs && !t->nr_samples) {
		gt_fail(err, GT_ERR_TRACE, t->size, "the trace is empty: no events in any batch");
		return -1;
	}
	if (!t->ticks_per_sec) {
		gt_fail(err, GT_ERR_TRACE, t->size, "no Frequency event: the trace has no footer; "
			"it was cut short or not stopped");
		return -1;
	}
	/* Go re-sorts samples by their own time stamp, stably. */
	if (t->nr_samples)
		qsort(t->samples, t->nr_samples, sizeof(*t->samples), sample_cmp);
	t->ns_per_tick = 1e9 / (double)t->ticks_per_sec;
	return 0;
}

/* How an event of @type is read in the trace's version (GT_READ_*). */
static uint8_t read_as(const struct gt_trace *t, unsigned int type)
{
	unsigned int stack = gt_descs[type].stack;

	switch (type) {
	case GT_EV_BATCH:
	case GT_EV_STRING:
	case GT_EV_STACK:
	case GT_EV_FREQUENCY:
	case GT_EV_TIMER_GOROUTINE:
		return GT_READ_SKIP;
	}
	/* Time stamp, at most three arguments (as struct gt_event has), stack. */
	return (uint8_t)((t->nr_args[type] - 1 - stack) | (stack ? GT_READ_STACK : 0) |
			 (type == GT_EV_USER_LOG ? GT_READ_LOG : 0));
}

/* Go's argument counts in the trace's version, and how events are read, for every event. */
static void nr_args_init(struct gt_trace *t)
{
	unsigned int type;

	for (type = 0; type < GT_EV_COUNT; type++) {
		t->nr_args[type] = (uint8_t)gt_nr_args(type, t->ver);
		t->read_as[type] = t->nr_args[type] ? read_as(t, type) : GT_READ_SKIP;
	}
}

/* Reads events from @off until one starts at or past @stop, or an error; returns where. */
static uint64_t scan_range(struct scan *s, uint64_t off, uint64_t stop)
{
	const struct gt_trace *t = s->t;
	struct gt_raw raw;

	while (off < stop && gt_wire_next(t->data, t->size, off, t->ver, &raw, &s->wire) > 0) {
		if (!scan_event(s, &raw))
			break;
		off = raw.end;
	}
	return off;
}

/*
 * Where the second half starts: a Batch past the middle, or 0 if none is
 * found near it. Events are decoded from the middle on, as if one started
 * there: a wrong start soon falls in step with the real events (a varint
 * ends at a byte below 0x80 however it was entered), so the first Batch
 * after SYNC_EVENTS of them is most likely a real one. A wrong guess costs
 * time, not results.
 */
static uint64_t half_start(const struct gt_trace *t)
{
	uint64_t off = t->size / 2, end = off + SYNC_MAX;
	struct gt_error err;
	struct gt_raw raw;
	unsigned int n = 0;

	while (off < end && off < t->size) {
		if (gt_wire_next(t->data, t->size, off, t->ver, &raw, &err) <= 0) {
			n = 0;
			off++;
			continue;
		}
		if (++n > SYNC_EVENTS && raw.type == GT_EV_BATCH)
			return off;
		off = raw.end;
	}
	return 0;
}

/* The second half's thread: from its Batch to the end of the file. */
static void *half_scan(void *arg)
{
	struct half *h = arg;
	struct gt_raw raw;

	h->valid = gt_wire_next(h->t.data, h->t.size, h->start, h->t.ver, &raw, &h->s.wire) > 0 &&
		   raw.type == GT_EV_BATCH;
	if (h->valid)
		scan_range(&h->s, h->start, h->t.size);
	return NULL;
}

static int half_begin(struct half *h, const struct gt_trace *t, uint64_t start)
{
	memset(h, 0, sizeof(*h));
	h->t.data = t->data;
	h->t.size = t->size;
	h->t.ver = t->ver;
	memcpy(h->t.nr_args, t->nr_args, sizeof(h->t.nr_args));
	gt_map_init(&h->t.proc_ids);
	gt_map_init(&h->t.strings);
	gt_map_init(&h->t.stacks);
	gt_map_init(&h->t.timer_gs);
	h->s.t = &h->t;
	h->s.deferred = true;
	h->start = start;
	return pthread_create(&h->thread, NULL, half_scan, h);
}

static void half_free(struct half *h)
{
	gt_index_free(&h->t);
	free(h->s.defs);
}

/* The second half's Ps: their batches after the first half's, new Ps after its Ps. */
static bool half_join_procs(struct scan *s, const struct gt_trace *b)
{
	const struct gt_proc *src;
	struct gt_batch *v;
	struct gt_proc *p;
	size_t i, n;

	for (i = 0; i < b->nr_procs; i++) {
		src = &b->procs[i];
		p = proc_get(s->t, src->id, s->off, &s->wire);
		if (!p)
			return false;
		n = p->nr_batches + src->nr_batches;
		if (n > p->cap) {
			v = realloc(p->batches, n * sizeof(*v));
			if (!v)
				return oom(&s->wire, s->off);
			p->batches = v;
			p->cap = n;
		}
		memcpy(&p->batches[p->nr_batches], src->batches,
		       src->nr_batches * sizeof(*src->batches));
		p->nr_batches = n;
	}
	return true;
}

/* Every key of @from into @to with its value; later values replace earlier ones. */
static bool map_join(struct scan *s, struct gt_map *to, const struct gt_map *from)
{
	uint64_t *v;
	bool added;
	size_t i;

	for (i = 0; i < from->cap; i++) {
		if (!from->used[i])
			continue;
		v = gt_map_put(to, from->slots[i].key, &added);
		if (!v)
			return oom(&s->wire, s->off);
		*v = from->slots[i].val;
	}
	return true;
}

static bool half_join_samples(struct scan *s, const struct gt_trace *b)
{
	struct gt_trace *t = s->t;
	struct gt_sample *v;

	if (!b->nr_samples)
		return true;
	v = realloc(t->samples, (t->nr_samples + b->nr_samples) * sizeof(*v));
	if (!v)
		return oom(&s->wire, s->off);
	memcpy(&v[t->nr_samples], b->samples, b->nr_samples * sizeof(*v));
	t->samples = v;
	t->nr_samples += b->nr_samples;
	return true;
}

/*
 * The second half after the first, which ended where it starts: what one
 * pass over both would have found. Its Strings are added one by one, so
 * that an id it reuses fails where one pass fails; the first error of each
 * phase is the first half's if it has one.
 */
static void half_join(struct scan *s, struct half *h)
{
	const struct scan *hs = &h->s;
	struct gt_trace *t = s->t;
	size_t i;

	for (i = 0; i < hs->nr_defs; i++)
		if (!string_put(s, hs->defs[i].id, hs->defs[i].off, hs->defs[i].val))
			return;
	if (hs->wire.phase) {
		s->wire = hs->wire;
		return;
	}
	if (!s->parse.phase)
		s->parse = hs->parse;
	if (!half_join_procs(s, &h->t) || !map_join(s, &t->stacks, &h->t.stacks) ||
	    !map_join(s, &t->timer_gs, &h->t.timer_gs) || !half_join_samples(s, &h->t))
		return;
	t->nr_events += h->t.nr_events;
	t->nr_batches += h->t.nr_batches;
	t->nr_futile += h->t.nr_futile;
	if (hs->have_freq)
		t->ticks_per_sec = h->t.ticks_per_sec;
	if (hs->have_min && (!s->have_min || h->t.min_ts < t->min_ts))
		t->min_ts = h->t.min_ts;
	s->have_min |= hs->have_min;
	t->halves = true;
}

/* Reads the file from @off, with the second half from @start on a thread of its own. */
static void scan_halves(struct scan *s, uint64_t off, uint64_t start)
{
	struct half h;

	if (half_begin(&h, s->t, start)) {
		scan_range(s, off, s->t->size);
		return;
	}
	off = scan_range(s, off, start);
	pthread_join(h.thread, NULL);
	if (!s->wire.phase && off == start && h.valid)
		half_join(s, &h);
	else if (!s->wire.phase)
		scan_range(s, off, s->t->size);
	half_free(&h);
}

int gt_index(struct gt_trace *t, uint64_t half, struct gt_error *err)
{
	struct scan s = { .t = t, .off = GT_HEADER_SIZE };

	if (gt_parse_header(t->data, t->size, &t->ver, err))
		return -1;
	nr_args_init(t);
	if (!half && t->size >= HALVES_MIN)
		half = half_start(t);
	/* Events before the first Batch belong to P 0 from time 0, as in Go. */
	if (half >= GT_HEADER_SIZE && half < t->size)
		scan_halves(&s, GT_HEADER_SIZE, half);
	else
		scan_range(&s, GT_HEADER_SIZE, t->size);
	if (s.wire.phase) {
		*err = s.wire;
		return -1;
	}
	return scan_end(&s, err);
}

void gt_index_free(struct gt_trace *t)
{
	size_t i;

	for (i = 0; i < t->nr_procs; i++)
		free(t->procs[i].batches);
	free(t->procs);
	free(t->samples);
	gt_map_free(&t->proc_ids);
	gt_map_free(&t->strings);
	gt_map_free(&t->stacks);
	gt_map_free(&t->timer_gs);
}
