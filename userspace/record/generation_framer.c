// SPDX-License-Identifier: GPL-2.0
/*
 * record --max-size: a Go 1.22+ trace cut into files as it streams in.
 * The stream is the 16-byte header, then batches: EventBatch (or an
 * ExperimentalBatch and its experiment byte), the uvarints gen, M, time
 * and size, and size bytes; in the 1.26 format an EndOfGeneration byte
 * ends each generation. Before 1.26 a generation ends where a batch of
 * another generation number begins (Go's readGenerationWithSpill()).
 * Bytes are kept until their generation is whole, so a file only ever
 * gets whole generations; a file holds as many as fit in the size, and
 * Go's readers take a trace that starts at any generation (as split's
 * pieces do).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "record/generation_framer.h"
#include "tracev2/internal.h"
#include "util/msg.h"

#define CMD		"record"
#define HEADER		16
#define MAX_BATCH	(64 << 10)		/* Go's tracev2.MaxBatchSize */
#define MAX_BATCH_HEAD	(2 + 4 * 10)		/* type, experiment, 4 varints */

struct roll {
	uint64_t max_size;
	const struct roll_ops *ops;
	void *ctx;
	uint8_t head[HEADER];
	size_t head_len;
	uint8_t *buf;		/* the generation being received, then what came after it */
	size_t len, cap;
	size_t pos;		/* the next batch in @buf: before it, whole batches */
	uint64_t gen;		/* the generation number of @buf's batches */
	uint64_t off;		/* where @buf starts in the stream, for messages */
	bool lost;		/* no batch where one should be: the rest goes as it comes */
	bool failed;		/* a file could not be written: the rest is dropped */
	bool open;
	unsigned int files;	/* finished */
	struct roll_file file;	/* the current one, if @open */
};

struct roll *roll_new(uint64_t max_size, const struct roll_ops *ops, void *ctx)
{
	struct roll *rl = calloc(1, sizeof(*rl));

	if (!rl)
		return NULL;
	rl->max_size = max_size;
	rl->ops = ops;
	rl->ctx = ctx;
	return rl;
}

void roll_free(struct roll *rl)
{
	if (!rl)
		return;
	free(rl->buf);
	free(rl);
}

unsigned int roll_files(const struct roll *rl)
{
	return rl->files;
}

static void file_write(struct roll *rl, const void *buf, size_t len)
{
	if (rl->failed || !len)
		return;
	if (!rl->ops->write(rl->ctx, buf, len))
		rl->failed = true;
	rl->file.bytes += len;
}

/* The next file, which starts with the header. */
static void file_open(struct roll *rl)
{
	if (rl->failed)
		return;
	rl->file = (struct roll_file){ .n = rl->files + 1 };
	rl->open = rl->ops->open(rl->ctx, rl->file.n);
	rl->failed = !rl->open;
	file_write(rl, rl->head, rl->head_len);
}

/* Closed, also after a failed write: the callback drops such a file. */
static void file_close(struct roll *rl)
{
	rl->open = false;
	if (!rl->ops->close(rl->ctx, &rl->file))
		rl->failed = true;
	else if (!rl->failed)
		rl->files++;
}

/* @buf up to @end is a whole generation: to the current file, or the next if it passes the size. */
static void gen_done(struct roll *rl, size_t end)
{
	if (rl->open && rl->file.gens && rl->file.bytes + end > rl->max_size)
		file_close(rl);
	if (!rl->open)
		file_open(rl);
	if (HEADER + end > rl->max_size)
		msg_err(CMD, "warning: generation %" PRIu64 " is %zu bytes with the header, over "
			"--max-size %" PRIu64 ": it goes alone in file %u", rl->gen, HEADER + end,
			rl->max_size, rl->file.n);
	file_write(rl, rl->buf, end);
	if (!rl->file.gens++)
		rl->file.first_gen = rl->gen;
	memmove(rl->buf, rl->buf + end, rl->len - end);
	rl->len -= end;
	rl->off += end;
	rl->pos = 0;
}

/*
 * The batch at @pos: 1 with its @end, @gen and whether it is an
 * EndOfGeneration (@eog), 0 if it has not all arrived, -1 if it is none.
 */
static int batch_at(const struct roll *rl, size_t *end, uint64_t *gen, bool *eog)
{
	const uint8_t *h = rl->buf + rl->pos;
	size_t n = rl->len - rl->pos;
	uint64_t off = 1, v[4];
	int i;

	*eog = n && h[0] == GT2_EV_END_OF_GENERATION;
	if (!n || *eog) {
		*end = rl->pos + 1;
		return n ? 1 : 0;
	}
	if (h[0] == GT2_EV_EXPERIMENTAL_BATCH)
		off = 2;
	else if (h[0] != GT2_EV_EVENT_BATCH)
		return -1;
	for (i = 0; i < 4; i++)
		if (gt2_read_uvarint(h, n, &off, &v[i]))
			return n < MAX_BATCH_HEAD ? 0 : -1;
	if (v[3] > MAX_BATCH)
		return -1;
	*gen = v[0];
	*end = rl->pos + off + v[3];
	return *end <= rl->len ? 1 : 0;
}

/* No batch where one should be: what is left goes into the current file as it comes. */
static void lose(struct roll *rl)
{
	msg_err(CMD, "warning: byte %" PRIu64 " of the trace is no batch (type %u): the rest "
		"goes into file %u whole, however large", HEADER + rl->off + rl->pos,
		rl->buf[rl->pos], rl->open ? rl->file.n : rl->files + 1);
	rl->lost = true;
	if (!rl->open)
		file_open(rl);
	file_write(rl, rl->buf, rl->len);
	rl->len = rl->pos = 0;
}

/* The whole batches in @buf, and the generations they end. */
static void frame(struct roll *rl)
{
	size_t end;
	uint64_t gen;
	bool eog;
	int k;

	while (!rl->failed && (k = batch_at(rl, &end, &gen, &eog))) {
		if (k < 0) {
			lose(rl);
			return;
		}
		if (eog) {
			gen_done(rl, end);
		} else if (rl->pos && gen != rl->gen) {
			gen_done(rl, rl->pos);	/* before 1.26: the next one's first batch */
		} else {
			rl->gen = gen;
			rl->pos = end;
		}
	}
}

bool roll_feed(struct roll *rl, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	size_t n = HEADER - rl->head_len < len ? HEADER - rl->head_len : len;

	memcpy(rl->head + rl->head_len, p, n);
	rl->head_len += n;
	p += n;
	len -= n;
	if (rl->failed || !len)
		return !rl->failed;
	if (rl->lost) {
		file_write(rl, p, len);
		return !rl->failed;
	}
	if (rl->len + len > rl->cap) {
		size_t cap = rl->cap ? rl->cap : 1 << 16;
		uint8_t *b;

		while (cap < rl->len + len)
			cap *= 2;
		b = realloc(rl->buf, cap);
		if (!b) {
			msg_err(CMD, "out of memory for a generation of %zu bytes", rl->len + len);
			rl->failed = true;
			return false;
		}
		rl->buf = b;
		rl->cap = cap;
	}
	memcpy(rl->buf + rl->len, p, len);
	rl->len += len;
	frame(rl);
	return !rl->failed;
}

bool roll_finish(struct roll *rl)
{
	if (rl->len)
		gen_done(rl, rl->len);	/* the last, or what arrived of it */
	else if (!rl->open && !rl->files && rl->head_len)
		file_open(rl);
	if (rl->open)
		file_close(rl);
	return !rl->failed;
}
