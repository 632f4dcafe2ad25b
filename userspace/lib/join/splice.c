// SPDX-License-Identifier: GPL-2.0
/*
 * The join's writer (jn_splice()): APP copied as it is, but for the M
 * batches that get events, which are written again, and a Strings batch at
 * the end of each generation that uses the join's strings.
 *
 * A generation is read twice, batch header to batch header: first for its
 * highest string id and its earliest batch time (the new Strings batch's,
 * which so leaves the generation's start alone), then to write it. A batch
 * with inserts is decoded event by event: each event keeps its bytes but
 * for its time delta, which counts from the event before it as written.
 * Where Go's 64 KiB would be passed, the batch goes on in a new one of the
 * same generation and M whose base time is the last event's: the delta of
 * the event after the cut is the same from there.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"
#include "tracev2/internal.h"

#define MAX_BATCH	(64 << 10)	/* Go's tracev2.MaxBatchSize */
#define MAX_STRING	(1 << 10)	/* Go's tracev2.MaxEventTrailerDataSize */
#define MAX_EVENT	(MAX_STRING + 32)	/* a String event, or any timed one */
#define NO_THREAD	UINT64_MAX	/* the M of Go's table batches */
#define OUT_SIZE	(1 << 20)	/* the output's buffer: copies go in chunks of it */

/* The batch being written: the pieces of a batch with inserts, or a Strings batch. */
struct batch_out {
	uint64_t gen, m;
	uint64_t base;		/* the current piece's base time */
	uint64_t last;		/* the time of its last event (the base if none) */
	int head;		/* the event each piece starts with (Strings), -1 for none */
	size_t len;
	uint8_t data[MAX_BATCH];
};

struct jn_splice {
	const struct gt2_trace *t;
	int fd;
	uint8_t *out;		/* OUT_SIZE bytes: what is not written yet */
	size_t out_len;
	uint64_t copied;	/* APP's bytes before it are written (or replaced) */
	uint64_t dropped;	/* APP's mapped pages before it are out of the process */
	const struct jn_insert *ins;
	size_t n, next;		/* the inserts, the first one not written */
	const struct jn_strings *strs;
	uint64_t *ids;		/* index in strs -> its id in this generation, 0 if unused */
	size_t *used;		/* the indices used in this generation, by first use */
	size_t nused;
	size_t cap_strs;	/* ids and used have room for this many strings */
	uint64_t max_id;	/* the generation's highest string id */
	uint64_t min_time;	/* its earliest batch time */
	uint64_t eog;		/* where its Strings batch goes: its EndOfGeneration or end */
	struct batch_out b;
	struct gt_error *err;
};

static int write_all(struct jn_splice *s, const uint8_t *p, size_t len)
{
	ssize_t k;

	while (len) {
		k = write(s->fd, p, len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			gt_fail(s->err, GT_OK, 0, "cannot write the joined trace: %s", strerror(errno));
			return -1;
		}
		p += k;
		len -= k;
	}
	return 0;
}

static int out_flush(struct jn_splice *s)
{
	int r = write_all(s, s->out, s->out_len);

	s->out_len = 0;
	return r;
}

static int out_put(struct jn_splice *s, const void *p, size_t len)
{
	if (s->out_len + len > OUT_SIZE && out_flush(s))
		return -1;
	if (len > OUT_SIZE)
		return write_all(s, p, len);
	memcpy(s->out + s->out_len, p, len);
	s->out_len += len;
	return 0;
}

/* APP's bytes from s->copied to @end, read into the buffer (pread) a chunk at a time. */
static int out_copy(struct jn_splice *s, uint64_t end)
{
	size_t k;

	while (s->copied < end) {
		if (s->out_len == OUT_SIZE && out_flush(s))
			return -1;
		k = OUT_SIZE - s->out_len;
		if (k > end - s->copied)
			k = end - s->copied;
		if (gt2_read(s->t, s->copied, s->out + s->out_len, k, s->err))
			return -1;
		s->out_len += k;
		s->copied += k;
	}
	return 0;
}

static void batch_start(struct batch_out *b, uint64_t gen, uint64_t m, uint64_t base, int head)
{
	b->gen = gen;
	b->m = m;
	b->base = base;
	b->last = base;
	b->head = head;
	b->len = 0;
	if (head >= 0)
		b->data[b->len++] = head;
}

/* The piece so far, after its EventBatch header. */
static int batch_flush(struct jn_splice *s)
{
	struct batch_out *b = &s->b;
	uint8_t hdr[1 + 4 * 10];
	size_t n = 0;

	hdr[n++] = GT2_EV_EVENT_BATCH;
	n += gt_put_uvarint(hdr + n, b->gen);
	n += gt_put_uvarint(hdr + n, b->m);
	n += gt_put_uvarint(hdr + n, b->base);
	n += gt_put_uvarint(hdr + n, b->len);
	if (out_put(s, hdr, n) || out_put(s, b->data, b->len))
		return -1;
	b->len = 0;
	return 0;
}

/*
 * An event of @len bytes at @time: a piece that it would take past Go's
 * limit is written first, and the next starts at the time of its last event.
 */
static int batch_put(struct jn_splice *s, const uint8_t *ev, size_t len, uint64_t time)
{
	struct batch_out *b = &s->b;

	if (b->len + len > MAX_BATCH) {
		if (batch_flush(s))
			return -1;
		batch_start(b, b->gen, b->m, b->last, b->head);
	}
	memcpy(b->data + b->len, ev, len);
	b->len += len;
	b->last = time;
	return 0;
}

/* A timed event of @type at @time, its delta from the last one written, then @rest. */
static int put_timed(struct jn_splice *s, uint8_t type, uint64_t time, const uint8_t *rest,
		     size_t rest_len)
{
	uint8_t ev[MAX_EVENT];
	size_t n = 0;

	if (time < s->b.last) {
		gt_fail(s->err, GT_ERR_WIRE, 0, "an insert into the batch of M %llu at time %llu "
			"is after the next event's time %llu: the join's spans are out of order",
			(unsigned long long)s->b.m, (unsigned long long)s->b.last,
			(unsigned long long)time);
		return -1;
	}
	ev[n++] = type;
	n += gt_put_uvarint(ev + n, time - s->b.last);
	memcpy(ev + n, rest, rest_len);
	return batch_put(s, ev, n + rest_len, time);
}

/* The arguments of @in after its time: task 0, its strings' ids, stack 0. */
static size_t insert_args(const struct jn_splice *s, const struct jn_insert *in, uint8_t *buf)
{
	size_t n = 0;

	n += gt_put_uvarint(buf + n, 0);
	n += gt_put_uvarint(buf + n, s->ids[in->str]);
	if (in->type == GT2_EV_USER_LOG)
		n += gt_put_uvarint(buf + n, s->ids[in->str2]);
	n += gt_put_uvarint(buf + n, 0);
	return n;
}

/* The inserts after the event at @off, which ran at @time. */
static int put_inserts(struct jn_splice *s, uint64_t off, uint64_t time)
{
	const struct jn_insert *in;
	uint8_t args[4 * 10];

	for (; s->next < s->n && s->ins[s->next].after == off; s->next++) {
		in = &s->ins[s->next];
		if (in->ts < time) {
			gt_fail(s->err, GT_ERR_WIRE, off, "the insert after the event at offset "
				"%llu is at time %llu, before the event's %llu",
				(unsigned long long)off, (unsigned long long)in->ts,
				(unsigned long long)time);
			return -1;
		}
		if (put_timed(s, in->type, in->ts, args, insert_args(s, in, args)))
			return -1;
	}
	return 0;
}

/* APP's event @ev of an M's batch, which ran at @time, and the inserts after it. */
static int put_event(struct jn_splice *s, const struct gt2_wire_event *ev, uint64_t time)
{
	const struct gt2_spec *spec = gt2_spec(ev->type);
	uint64_t rest = ev->off + 1, dt;

	if (!spec->timed || !gt2_uvarint(s->t->data, ev->end, &rest, &dt) ||
	    ev->end - rest > MAX_EVENT - 11) {
		gt_fail(s->err, GT_ERR_WIRE, ev->off, "%s at offset %llu is not an event of an "
			"M's batch: no event can be inserted after it", ev->name,
			(unsigned long long)ev->off);
		return -1;
	}
	if (put_timed(s, ev->type, time, s->t->data + rest, ev->end - rest))
		return -1;
	return put_inserts(s, ev->off, time);
}

/* The batch of header @hdr again, with the inserts into it. */
static int rewrite_batch(struct jn_splice *s, const struct gt2_wire_event *hdr)
{
	uint64_t end = hdr->end + hdr->args[3], time = hdr->args[2];
	struct gt2_wire w = { s->t, hdr->end };
	struct gt2_wire_event ev;
	int k;

	if (out_copy(s, hdr->off))
		return -1;
	batch_start(&s->b, hdr->args[0], hdr->args[1], time, -1);
	while (w.off < end) {
		k = gt2_wire_next(&w, &ev, s->err);
		if (k <= 0)
			return -1;	/* the spans ended at the file's end, where the batch does */
		if (ev.end > end) {
			gt_fail(s->err, GT_ERR_WIRE, ev.off, "%s at offset %llu runs past the end "
				"of its batch", ev.name, (unsigned long long)ev.off);
			return -1;
		}
		time += ev.args[0];
		if (put_event(s, &ev, time))
			return -1;
	}
	s->copied = end;
	return batch_flush(s);
}

/* The generation's Strings batch: the join's strings it uses, after its own ids. */
static int put_strings(struct jn_splice *s, uint64_t gen)
{
	uint8_t ev[MAX_EVENT];
	const char *str;
	size_t i, n, len;

	if (!s->nused)
		return 0;
	batch_start(&s->b, gen, NO_THREAD, s->min_time, GT2_EV_STRINGS);
	for (i = 0; i < s->nused; i++) {
		str = s->strs->s[s->used[i]];
		len = strlen(str);
		n = 0;
		ev[n++] = GT2_EV_STRING;
		n += gt_put_uvarint(ev + n, s->ids[s->used[i]]);
		n += gt_put_uvarint(ev + n, len);
		memcpy(ev + n, str, len);
		if (batch_put(s, ev, n + len, s->min_time))
			return -1;
	}
	return batch_flush(s);
}

/* Index @i of s->strs used in this generation: its id, the next one above the table's. */
static int use_string(struct jn_splice *s, uint32_t i)
{
	size_t len;

	if (i >= s->strs->len) {
		gt_fail(s->err, GT_OK, 0, "insert with string %u of %zu", i, s->strs->len);
		return -1;
	}
	if (s->ids[i])
		return 0;
	len = strlen(s->strs->s[i]);
	if (len > MAX_STRING) {
		gt_fail(s->err, GT_OK, 0, "string \"%.40s...\" has %zu bytes, Go's limit is %d",
			s->strs->s[i], len, MAX_STRING);
		return -1;
	}
	s->used[s->nused++] = i;
	s->ids[i] = s->max_id + s->nused;
	return 0;
}

/* The join's strings the inserts into [@off, @end) use, and their ids. */
static int gen_strings(struct jn_splice *s, uint64_t end)
{
	const struct jn_insert *in;
	size_t i;

	for (i = 0; i < s->nused; i++)
		s->ids[s->used[i]] = 0;
	s->nused = 0;
	for (i = s->next; i < s->n && s->ins[i].after < end; i++) {
		in = &s->ins[i];
		if (use_string(s, in->str) ||
		    (in->type == GT2_EV_USER_LOG && use_string(s, in->str2)))
			return -1;
	}
	return 0;
}

/* The highest id of the Strings batch whose first event (Strings) is at @off. */
static int scan_strings(struct jn_splice *s, uint64_t off, uint64_t end)
{
	struct gt2_wire w = { s->t, off };
	struct gt2_wire_event ev;
	int k;

	while (w.off < end) {
		k = gt2_wire_next(&w, &ev, s->err);
		if (k <= 0)
			return k ? -1 : 0;
		if (ev.type == GT2_EV_STRING && ev.args[0] > s->max_id)
			s->max_id = ev.args[0];
	}
	return 0;
}

/*
 * The next top-level event of the generation at w->off: a batch header
 * (its events then skipped), an experimental batch or EndOfGeneration.
 */
static int next_batch(struct jn_splice *s, struct gt2_wire *w, struct gt2_wire_event *ev)
{
	int k = gt2_wire_next(w, ev, s->err);

	if (k > 0 && ev->type == GT2_EV_EVENT_BATCH)
		w->off = ev->end + ev->args[3];
	return k;
}

/* Pass one over the generation [@sp->off, @sp->end): what its Strings batch needs. */
static int scan_gen(struct jn_splice *s, const struct gt2_span *sp)
{
	struct gt2_wire w = { s->t, sp->off };
	struct gt2_wire_event ev;
	const uint8_t *d = s->t->data;
	int k;

	s->max_id = 0;
	s->min_time = UINT64_MAX;
	s->eog = sp->end;
	while (w.off < sp->end) {
		k = next_batch(s, &w, &ev);
		if (k <= 0)
			return k ? -1 : 0;
		if (ev.type == GT2_EV_END_OF_GENERATION)
			s->eog = ev.off;
		if (ev.type != GT2_EV_EVENT_BATCH)
			continue;
		if (ev.args[2] < s->min_time)
			s->min_time = ev.args[2];
		if (ev.args[3] && d[ev.end] == GT2_EV_STRINGS &&
		    scan_strings(s, ev.end, w.off))
			return -1;
	}
	return gen_strings(s, sp->end);
}

static int bad_insert(struct jn_splice *s)
{
	uint64_t off = s->ins[s->next].after;

	gt_fail(s->err, GT_ERR_WIRE, off, "an insert is after offset %llu, where no event of "
		"an M's batch starts", (unsigned long long)off);
	return -1;
}

/* Pass two: the generation written, its batches with inserts again. */
static int write_gen(struct jn_splice *s, const struct gt2_span *sp)
{
	struct gt2_wire w = { s->t, sp->off };
	struct gt2_wire_event ev;
	int k;

	if (s->next < s->n && s->ins[s->next].after < sp->off)
		return bad_insert(s);
	while (w.off < s->eog) {
		k = next_batch(s, &w, &ev);
		if (k < 0)
			return -1;
		if (!k)
			break;
		if (s->next == s->n || s->ins[s->next].after >= w.off)
			continue;
		if (ev.type != GT2_EV_EVENT_BATCH || rewrite_batch(s, &ev))
			return ev.type != GT2_EV_EVENT_BATCH ? bad_insert(s) : -1;
		if (s->next < s->n && s->ins[s->next].after < w.off)
			return bad_insert(s);
	}
	if (out_copy(s, s->eog) || put_strings(s, sp->gen))
		return -1;
	if (s->next < s->n && s->ins[s->next].after < sp->end)
		return bad_insert(s);
	return out_copy(s, sp->end);
}

/*
 * APP's mapped pages before @end, walked and written, out of the process's
 * memory (the page cache keeps them): what stays mapped is one generation,
 * not the trace. A trace in memory (gt2_open_mem()) is left alone.
 */
static void drop_pages(struct jn_splice *s, uint64_t end)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), to = end / page * page;

	if (s->t->fd < 0 || to <= s->dropped)
		return;
	madvise((void *)(s->t->data + s->dropped), to - s->dropped, MADV_DONTNEED);
	s->dropped = to;
}

/* Room in s->ids and s->used for every string of s->strs (which grows between generations). */
static int splice_room(struct jn_splice *s)
{
	size_t need = s->strs->len + 1;
	uint64_t *ids;
	size_t *used;

	if (need <= s->cap_strs)
		return 0;
	ids = realloc(s->ids, need * sizeof(*ids));
	if (ids)
		s->ids = ids;
	used = realloc(s->used, need * sizeof(*used));
	if (used)
		s->used = used;
	if (!ids || !used) {
		gt_fail(s->err, GT_OK, 0, "out of memory");
		return -1;
	}
	memset(s->ids + s->cap_strs, 0, (need - s->cap_strs) * sizeof(*ids));
	s->cap_strs = need;
	return 0;
}

struct jn_splice *jn_splice_open(const struct gt2_trace *t, int fd, struct gt_error *err)
{
	struct jn_splice *s = calloc(1, sizeof(*s));

	if (!s || !(s->out = malloc(OUT_SIZE))) {
		free(s);
		gt_fail(err, GT_OK, 0, "out of memory");
		return NULL;
	}
	s->t = t;
	s->fd = fd;
	s->err = err;
	return s;
}

int jn_splice_gen(struct jn_splice *s, const struct gt2_span *sp, const struct jn_insert *ins,
		  size_t n, const struct jn_strings *strs)
{
	s->strs = strs;
	s->ins = ins;
	s->n = n;
	s->next = 0;
	if (splice_room(s) || out_copy(s, sp->off) || scan_gen(s, sp) || write_gen(s, sp))
		return -1;
	if (s->next < s->n)
		return bad_insert(s);
	drop_pages(s, sp->end);
	return 0;
}

void jn_splice_set_err(struct jn_splice *s, struct gt_error *err)
{
	s->err = err;
}

int jn_splice_close(struct jn_splice *s, bool finish)
{
	int r = 0;

	if (finish)
		r = out_copy(s, gt2_size(s->t)) || out_flush(s) ? -1 : 0;
	free(s->out);
	free(s->ids);
	free(s->used);
	free(s);
	return r;
}

/* The inserts of the generation [@off, @end) at @ins: how many. */
static size_t splice_count(const struct jn_insert *ins, size_t n, uint64_t end)
{
	size_t i = 0;

	while (i < n && ins[i].after < end)
		i++;
	return i;
}

int jn_splice(const struct gt2_trace *app, int fd, const struct jn_insert *ins, size_t n,
	      const struct jn_strings *strs, struct gt_error *err)
{
	struct jn_splice *s = jn_splice_open(app, fd, err);
	struct gt2_spans *spans;
	struct gt2_span sp;
	size_t k;
	int r;

	if (!s)
		return -1;
	if (gt2_spans_open(app, &spans, err)) {
		jn_splice_close(s, false);
		return -1;
	}
	while ((r = gt2_spans_next(spans, &sp, err)) > 0) {
		k = splice_count(ins, n, sp.end);
		if (jn_splice_gen(s, &sp, ins, k, strs)) {
			r = -1;
			break;
		}
		ins += k;
		n -= k;
	}
	gt2_spans_close(spans);
	if (!r && n) {
		s->strs = strs;
		s->ins = ins;
		s->n = n;
		s->next = 0;
		r = bad_insert(s);
	}
	return jn_splice_close(s, !r) || r ? -1 : 0;
}
