// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace pprof's encoder: pb.c's varints, strings, packed fields and
 * embedded messages byte for byte (protobuf's documented examples among
 * them; an embedded message whose length takes two bytes and one nested in
 * it), and pprof.c's profiles decoded back: functions, locations and
 * samples once per content, counts, values with and without a period, the
 * goroutine label, and every id a sample or location names defined.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/pb.h"
#include "report/pprof.h"
#include "tap.h"

static bool bytes_are(const struct pb *b, const uint8_t *want, size_t n)
{
	size_t i;

	if (b->oom || b->len != n || memcmp(b->buf, want, n)) {
		tap_diag("got %zu bytes, want %zu%s:", b->len, n, b->oom ? " (oom)" : "");
		for (i = 0; i < b->len && i < 32; i++)
			tap_diag("  [%zu] %02x%s", i, b->buf[i],
				 i < n && b->buf[i] != want[i] ? " differs" : "");
		return false;
	}
	return true;
}

static void test_fields(void)
{
	static const uint8_t v150[] = { 0x08, 0x96, 0x01 };
	static const uint8_t vmax[] = { 0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
					0x01 };
	static const uint8_t str[] = { 0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g' };
	static const uint8_t packed[] = { 0x22, 0x06, 0x03, 0x8e, 0x02, 0x9e, 0xa7, 0x05 };
	static const uint8_t f16[] = { 0x80, 0x01, 0x00, 0x82, 0x01, 0x00 };
	static const uint64_t vals[] = { 3, 270, 86942 };
	struct pb b;

	pb_init(&b);
	pb_varint(&b, 1, 150);
	tap_ok(bytes_are(&b, v150, sizeof(v150)), "varint 150 in field 1: 08 96 01");
	pb_free(&b);
	pb_varint(&b, 2, UINT64_MAX);
	tap_ok(bytes_are(&b, vmax, sizeof(vmax)), "varint 2^64-1: ten bytes");
	pb_free(&b);
	pb_bytes(&b, 2, "testing", 7);
	tap_ok(bytes_are(&b, str, sizeof(str)), "string \"testing\" in field 2");
	pb_free(&b);
	pb_packed(&b, 4, vals, 3);
	tap_ok(bytes_are(&b, packed, sizeof(packed)), "packed 3, 270, 86942 in field 4");
	pb_packed(&b, 5, vals, 0);
	tap_ok(bytes_are(&b, packed, sizeof(packed)), "an empty packed field is left out");
	pb_free(&b);
	pb_varint(&b, 16, 0);
	pb_bytes(&b, 16, "", 0);
	tap_ok(bytes_are(&b, f16, sizeof(f16)), "field 16: a two-byte tag; zero and empty kept");
	pb_free(&b);
}

static void test_embedded(void)
{
	static const uint8_t small[] = { 0x1a, 0x03, 0x08, 0x96, 0x01 };
	uint8_t want[300];
	size_t outer, inner, i;
	struct pb b;

	pb_init(&b);
	inner = pb_begin(&b, 3);
	pb_varint(&b, 1, 150);
	pb_end(&b, inner);
	tap_ok(bytes_are(&b, small, sizeof(small)), "an embedded message of 3 bytes");
	pb_free(&b);

	/* 2 + 2 + 200 bytes inside 2 + 2: both lengths take two bytes. */
	outer = pb_begin(&b, 1);
	inner = pb_begin(&b, 2);
	for (i = 0; i < 100; i++)
		pb_varint(&b, 1, i);
	pb_end(&b, inner);
	pb_end(&b, outer);
	memcpy(want, (uint8_t[]){ 0x0a, 0xcb, 0x01, 0x12, 0xc8, 0x01 }, 6);
	for (i = 0; i < 100; i++) {
		want[6 + 2 * i] = 0x08;
		want[7 + 2 * i] = (uint8_t)i;
	}
	tap_ok(bytes_are(&b, want, 206),
	       "a 200-byte message in one: fields moved up, lengths 2 bytes");
	pb_free(&b);
}

/* A field read back: its number, wire type and value or bytes. */
struct field {
	uint32_t num;
	unsigned int type;
	uint64_t v;
	const uint8_t *p;
	size_t len;
};

static bool uvarint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	unsigned int shift;

	*v = 0;
	for (shift = 0; *p < end && shift < 64; shift += 7) {
		*v |= (uint64_t)(**p & 0x7f) << shift;
		if (!(*(*p)++ & 0x80))
			return true;
	}
	return false;
}

/* The next field at *@p: 1, 0 at @end, -1 if it is not one of wire type 0 or 2. */
static int next_field(const uint8_t **p, const uint8_t *end, struct field *f)
{
	uint64_t tag;

	if (*p == end)
		return 0;
	if (!uvarint(p, end, &tag) || !uvarint(p, end, &f->v))
		return -1;
	f->num = (uint32_t)(tag >> 3);
	f->type = tag & 7;
	if (f->type == 0)
		return 1;
	if (f->type != 2 || f->v > (uint64_t)(end - *p))
		return -1;
	f->p = *p;
	f->len = f->v;
	*p += f->len;
	return 1;
}

#define MAX_ITEMS 64

/* What the test checks of a profile. */
struct decoded {
	char strs[MAX_ITEMS][32];
	size_t nstrs, nsample_types, nsamples, nlocs, nfuncs, nmappings;
	uint64_t func_name[MAX_ITEMS + 1];	/* by function id */
	uint64_t loc_func[MAX_ITEMS + 1];	/* by location id */
	uint64_t counts, cpu_ns, period, labelled, max_loc_id;
	uint64_t first_locs[8];			/* the first sample's */
	size_t nfirst;
	bool bad;
};

/* The varints of a packed field into @v (up to @max); their number. */
static size_t packed(const struct field *f, uint64_t *v, size_t max, bool *bad)
{
	const uint8_t *p = f->p, *end = f->p + f->len;
	size_t n = 0;
	uint64_t x;

	while (p < end) {
		if (!uvarint(&p, end, &x))
			*bad = true;
		else if (n < max)
			v[n] = x;
		n++;
	}
	return n;
}

static void decode_sample(struct decoded *d, const struct field *s)
{
	const uint8_t *p = s->p, *end = s->p + s->len;
	uint64_t v[8] = { 0 }, locs[8] = { 0 };
	size_t n, i;
	struct field f;

	while (next_field(&p, end, &f) > 0) {
		if (f.num == 1) {
			n = packed(&f, locs, 8, &d->bad);
			for (i = 0; i < n && i < 8; i++)
				if (locs[i] > d->max_loc_id)
					d->max_loc_id = locs[i];
			if (!d->nsamples) {
				memcpy(d->first_locs, locs, sizeof(locs));
				d->nfirst = n;
			}
		} else if (f.num == 2) {
			n = packed(&f, v, 8, &d->bad);
			d->counts += v[0];
			if (n == 2)
				d->cpu_ns += v[1];
		} else if (f.num == 3) {
			d->labelled++;
		}
	}
	d->nsamples++;
}

/* Field @want of the message @m (wire type 0), 0 if absent. */
static uint64_t get(const struct field *m, uint32_t want)
{
	const uint8_t *p = m->p, *end = m->p + m->len;
	struct field f;

	while (next_field(&p, end, &f) > 0)
		if (f.num == want && f.type == 0)
			return f.v;
	return 0;
}

/* Location @l's function: field 1 of its Line (field 4). */
static uint64_t loc_function(const struct field *l)
{
	const uint8_t *p = l->p, *end = l->p + l->len;
	struct field f;

	while (next_field(&p, end, &f) > 0)
		if (f.num == 4 && f.type == 2)
			return get(&f, 1);
	return 0;
}

static void decode_one(struct decoded *d, const struct field *f)
{
	uint64_t id;

	switch (f->num) {
	case 1:
		d->nsample_types++;
		break;
	case 2:
		decode_sample(d, f);
		break;
	case 3:
		d->nmappings++;
		break;
	case 4:
		id = get(f, 1);
		d->nlocs++;
		if (id && id <= MAX_ITEMS)
			d->loc_func[id] = loc_function(f);
		break;
	case 5:
		id = get(f, 1);
		d->nfuncs++;
		if (id && id <= MAX_ITEMS)
			d->func_name[id] = get(f, 2);
		break;
	case 6:
		if (d->nstrs < MAX_ITEMS)
			snprintf(d->strs[d->nstrs++], sizeof(d->strs[0]), "%.*s", (int)f->len,
				 (const char *)f->p);
		break;
	case 12:
		d->period = f->v;
		break;
	}
}

static bool decode(const struct pb *b, struct decoded *d)
{
	const uint8_t *p = b->buf, *end = b->buf + b->len;
	struct field f;
	int k;

	memset(d, 0, sizeof(*d));
	while ((k = next_field(&p, end, &f)) > 0)
		decode_one(d, &f);
	return k == 0 && !d->bad;
}

/* The name of the function of location @loc, through the string table. */
static const char *loc_name(const struct decoded *d, uint64_t loc)
{
	uint64_t fn = loc <= MAX_ITEMS ? d->loc_func[loc] : 0;
	uint64_t s = fn <= MAX_ITEMS ? d->func_name[fn] : 0;

	return s < d->nstrs ? d->strs[s] : "(out of the table)";
}

/* Location ids of a stack of frames named @names, in file "vmlinux". */
static size_t stack(struct pprof *p, const char *const *names, uint64_t *locs)
{
	uint64_t file = pprof_string(p, "vmlinux", 7);
	size_t n;

	for (n = 0; names[n]; n++)
		locs[n] = pprof_location(p, n + 1, pprof_string(p, names[n], strlen(names[n])),
					 file, 0);
	return n;
}

static void test_profile(void)
{
	static const char *const read[] = { "clear_user", "read_zero", "vfs_read", "prog", NULL };
	static const char *const idle[] = { "read_zero", "vfs_read", "prog", NULL };
	struct pprof_info info = { .period_ns = 0, .duration_ns = 1000 };
	uint64_t a[4], c[4];
	size_t na, nc, i;
	struct decoded d;
	struct pprof p;
	struct pb b;

	pprof_init(&p);
	na = stack(&p, read, a);
	nc = stack(&p, idle, c);
	tap_ok(a[0] != a[1] && a[1] != c[0] && a[2] != c[1] && p.nlocs == 7 && p.nfuncs == 4,
	       "a location per frame, a function per name (7 and 4)");
	tap_ok(pprof_string(&p, "vfs_read", 8) == pprof_string(&p, "vfs_read", 8) &&
	       pprof_string(&p, "", 0) == 0, "a string's id is its content's; the empty one is 0");
	for (i = 0; i < 5; i++)
		pprof_add(&p, a, na, 7);
	pprof_add(&p, a, na, 8);
	pprof_add(&p, c, nc, 0);
	pprof_add(&p, a, 0, 0);
	tap_ok(p.total == 8 && p.nsamples == 4, "8 samples, 4 of them distinct (stack, goroutine)");
	tap_ok(p.samples[0].count == 5, "the 5 alike counted once");

	pb_init(&b);
	tap_ok(pprof_encode(&p, &info, &b) && decode(&b, &d), "counts only: encoded, decoded");
	tap_ok(d.nsample_types == 1 && d.counts == 8 && !d.cpu_ns && d.period == 1,
	       "one value (samples/count) summing to 8, period 1");
	tap_ok(d.nstrs && !d.strs[0][0], "the string table starts with \"\"");
	tap_ok(d.nsamples == 4 && d.labelled == 2, "4 samples, 2 with a goroutine label");
	tap_ok(d.nlocs == 7 && d.nfuncs == 4 && d.nmappings == 1 && d.max_loc_id <= d.nlocs,
	       "7 locations, 4 functions, 1 mapping; samples name defined locations");
	tap_ok(d.nfirst == 4 && !strcmp(loc_name(&d, d.first_locs[0]), "clear_user") &&
	       !strcmp(loc_name(&d, d.first_locs[2]), "vfs_read") &&
	       !strcmp(loc_name(&d, d.first_locs[3]), "prog"),
	       "the first sample's frames, innermost first, named through the table");
	pb_free(&b);

	info.period_ns = 1000000;
	tap_ok(pprof_encode(&p, &info, &b) && decode(&b, &d), "with a period: encoded, decoded");
	tap_ok(d.nsample_types == 2 && d.counts == 8 && d.cpu_ns == 8000000 &&
	       d.period == 1000000, "two values: 8 samples, 8 ms of cpu; period 1 ms");
	pb_free(&b);
	pprof_free(&p);
}

int main(void)
{
	test_fields();
	test_embedded();
	test_profile();
	return tap_done();
}
