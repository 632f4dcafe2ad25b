// SPDX-License-Identifier: GPL-2.0
/*
 * Damaged copies of real traces: cut at every batch boundary and at random
 * offsets, bytes flipped at random. The reader must never crash (run this
 * under ASan and UBSan too), check and replay must agree, and a trace cut
 * anywhere before its Frequency event (the footer) must be rejected.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oldtrace/internal.h"
#include "tap.h"

#define CUTS	200
#define FLIPS	200

struct input {
	const char *name;
	uint8_t *data;
	size_t size;
};

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(uint64_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng % n;
}

/* 0 valid, else the phase of the error; check and replay must agree. */
static int verdict(const uint8_t *data, size_t size, bool *agree)
{
	struct gt_error e1 = { 0 }, e2 = { 0 };
	struct gt_trace *t;
	int r1, r2;

	*agree = true;
	if (gt_open_mem(data, size, &t, &e1))
		return e1.phase;
	r1 = gt_check(t, NULL, NULL, &e1);
	r2 = gt_replay(t, NULL, NULL, &e2);
	gt_close(t);
	*agree = !r1 == !r2 && e1.phase == e2.phase && !strcmp(e1.msg, e2.msg);
	return r1 ? (int)e1.phase : 0;
}

/* Batch boundaries and the offset of the first Frequency event. */
static size_t boundaries(const struct input *in, uint64_t *cuts, size_t max, uint64_t *freq)
{
	struct gt_error err;
	struct gt_raw raw;
	uint64_t off = GT_HEADER_SIZE;
	int ver;
	size_t n = 0;

	*freq = in->size;
	if (gt_parse_header(in->data, in->size, &ver, &err))
		return 0;
	while (gt_wire_next(in->data, in->size, off, ver, &raw, &err) > 0) {
		if (raw.type == GT_EV_BATCH && n < max)
			cuts[n++] = raw.off;
		if (raw.type == GT_EV_FREQUENCY && *freq == in->size)
			*freq = raw.off;
		off = raw.end;
	}
	return n;
}

static bool cut_rejected(const struct input *in, uint64_t at, uint64_t freq, bool *agree)
{
	int v = verdict(in->data, at, agree);

	return at > freq || v;
}

static void cuts(const struct input *in)
{
	uint64_t at[4096], freq;
	size_t n = boundaries(in, at, 4096, &freq), i, bad = 0, disagree = 0;
	bool agree;

	for (i = 0; i < n; i++) {
		bad += !cut_rejected(in, at[i], freq, &agree);
		disagree += !agree;
	}
	tap_ok(n && !bad && !disagree, "%s: cut at each of %zu batch boundaries: rejected", in->name, n);
	for (bad = 0, i = 0; i < CUTS; i++) {
		bad += !cut_rejected(in, rnd(in->size), freq, &agree);
		disagree += !agree;
	}
	tap_ok(!bad && !disagree, "%s: cut at %d random offsets before the footer: rejected",
	       in->name, CUTS);
}

static void flips(const struct input *in)
{
	uint8_t *copy = malloc(in->size);
	size_t i, rejected = 0, disagree = 0;
	bool agree;

	for (i = 0; i < FLIPS; i++) {
		memcpy(copy, in->data, in->size);
		copy[GT_HEADER_SIZE + rnd(in->size - GT_HEADER_SIZE)] ^= (uint8_t)(1 + rnd(255));
		rejected += verdict(copy, in->size, &agree) != 0;
		disagree += !agree;
	}
	free(copy);
	tap_ok(!disagree, "%s: %d random byte flips: no crash, check and replay agree "
	       "(%zu rejected)", in->name, FLIPS, rejected);
}

static bool load(const char *path, struct input *in)
{
	FILE *f = fopen(path, "rb");
	long size;

	in->name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) <= GT_HEADER_SIZE)
		goto fail;
	rewind(f);
	in->size = (size_t)size;
	in->data = malloc(in->size);
	if (fread(in->data, 1, in->size, f) != in->size)
		goto fail;
	fclose(f);
	return true;
fail:
	if (f)
		fclose(f);
	tap_ok(false, "%s: cannot read", path);
	return false;
}

int main(int argc, char *argv[])
{
	struct input in;
	bool agree;
	int i;

	for (i = 1; i < argc; i++) {
		if (!load(argv[i], &in))
			continue;
		tap_ok(!verdict(in.data, in.size, &agree) && agree, "%s: intact: valid", in.name);
		cuts(&in);
		flips(&in);
		free(in.data);
	}
	return tap_done();
}
