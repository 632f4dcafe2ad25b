// SPDX-License-Identifier: GPL-2.0
/*
 * A pprof CPU profile: the sampled stacks of a trace as profile.proto's
 * Profile message (github.com/google/pprof/proto/profile.proto), which
 * 'go tool pprof' reads (it gunzips a file only if it starts with gzip's
 * magic). Functions, locations and samples are kept once per content: a
 * location per distinct frame (PC, function, file, line), a function per
 * name and file, a sample per stack and goroutine with its count. One
 * mapping, "[kernel]", holds every location: named as symbolized (pprof
 * looks for no binary) and, as its name starts with '[', one pprof never
 * symbolizes (as its "[vdso]").
 */
#include <stdlib.h>
#include <string.h>

#include "report/pprof.h"

/* Profile's fields and those of its messages, as profile.proto numbers them. */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE, PROFILE_MAPPING, PROFILE_LOCATION,
	PROFILE_FUNCTION, PROFILE_STRING_TABLE, PROFILE_DURATION_NANOS = 10,
	PROFILE_PERIOD_TYPE, PROFILE_PERIOD, PROFILE_DEFAULT_SAMPLE_TYPE = 14,
};

enum { VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT };

enum { SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE, SAMPLE_LABEL };

enum { LABEL_KEY = 1, LABEL_NUM = 3 };

enum {
	MAPPING_ID = 1, MAPPING_MEMORY_LIMIT = 3, MAPPING_FILENAME = 5, MAPPING_HAS_FUNCTIONS = 7,
	MAPPING_HAS_FILENAMES, MAPPING_HAS_LINE_NUMBERS,
};

enum { LOCATION_ID = 1, LOCATION_MAPPING_ID, LOCATION_ADDRESS, LOCATION_LINE };

enum { LINE_FUNCTION_ID = 1, LINE_LINE };

enum { FUNCTION_ID = 1, FUNCTION_NAME, FUNCTION_SYSTEM_NAME, FUNCTION_FILENAME };

void pprof_init(struct pprof *p)
{
	memset(p, 0, sizeof(*p));
	gt_map_init(&p->strs.ids);
	gt_map_init(&p->func_ids);
	gt_map_init(&p->loc_ids);
	gt_map_init(&p->sample_ids);
}

void pprof_free(struct pprof *p)
{
	gt2_intern_free(&p->strs);
	free(p->funcs);
	gt_map_free(&p->func_ids);
	free(p->locs);
	gt_map_free(&p->loc_ids);
	free(p->stacks);
	free(p->samples);
	gt_map_free(&p->sample_ids);
	memset(p, 0, sizeof(*p));
}

/* Room for one more element of @size at *@v: false, with p->oom set, if there is none. */
static bool grow(struct pprof *p, void *v, size_t *cap, size_t len, size_t size)
{
	if (!p->oom && !gt2_grow(v, cap, len, size))
		p->oom = true;
	return !p->oom;
}

uint64_t pprof_string(struct pprof *p, const void *s, size_t len)
{
	uint64_t id;

	if (!len || p->oom)
		return 0;
	id = gt2_intern(&p->strs, (struct gt2_str){ s, len });
	if (!id)
		p->oom = true;
	return id;
}

/*
 * Where the id of a record hashed to @hash goes in @ids: the slot of an equal
 * one (@eq tells, by id), or a new slot (*@added) for the caller to fill;
 * NULL, with p->oom set, if out of memory.
 */
static uint64_t *find(struct pprof *p, struct gt_map *ids, uint64_t hash,
		      bool (*eq)(const struct pprof *p, uint64_t id, const void *rec),
		      const void *rec, bool *added)
{
	uint64_t *v;

	for (;; hash++) {
		v = gt_map_put(ids, hash, added);
		if (!v) {
			p->oom = true;
			return NULL;
		}
		if (*added || eq(p, *v, rec))
			return v;
	}
}

static bool func_eq(const struct pprof *p, uint64_t id, const void *rec)
{
	return !memcmp(&p->funcs[id - 1], rec, sizeof(p->funcs[0]));
}

static uint64_t function(struct pprof *p, uint64_t name, uint64_t file)
{
	struct pprof_func f = { name, file };
	uint64_t *v;
	bool added;

	if (!grow(p, &p->funcs, &p->cap_funcs, p->nfuncs, sizeof(f)))
		return 0;
	v = find(p, &p->func_ids, gt2_hash(GT2_HASH_SEED, &f, sizeof(f)), func_eq, &f, &added);
	if (!v)
		return 0;
	if (added) {
		p->funcs[p->nfuncs++] = f;
		*v = p->nfuncs;
	}
	return *v;
}

static bool loc_eq(const struct pprof *p, uint64_t id, const void *rec)
{
	return !memcmp(&p->locs[id - 1], rec, sizeof(p->locs[0]));
}

uint64_t pprof_location(struct pprof *p, uint64_t pc, uint64_t fn, uint64_t file, uint64_t line)
{
	struct pprof_loc l = { pc, function(p, fn, file), line };
	uint64_t *v;
	bool added;

	if (!grow(p, &p->locs, &p->cap_locs, p->nlocs, sizeof(l)))
		return 0;
	v = find(p, &p->loc_ids, gt2_hash(GT2_HASH_SEED, &l, sizeof(l)), loc_eq, &l, &added);
	if (!v)
		return 0;
	if (added) {
		p->locs[p->nlocs++] = l;
		*v = p->nlocs;
	}
	return *v;
}

/* The sample being added: the last n locations of p->stacks, for goroutine g. */
static bool sample_eq(const struct pprof *p, uint64_t id, const void *rec)
{
	const struct pprof_sample *s = &p->samples[id - 1], *new = rec;

	return s->n == new->n && s->g == new->g &&
	       !memcmp(&p->stacks[s->first], &p->stacks[new->first], s->n * sizeof(*p->stacks));
}

void pprof_add(struct pprof *p, const uint64_t *locs, size_t n, uint64_t g)
{
	struct pprof_sample s = { p->nstacks, n, g, 1 };
	uint64_t *v, hash;
	bool added;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!grow(p, &p->stacks, &p->cap_stacks, p->nstacks, sizeof(*locs)))
			return;
		p->stacks[p->nstacks++] = locs[i];
	}
	if (!grow(p, &p->samples, &p->cap_samples, p->nsamples, sizeof(s)))
		return;
	hash = gt2_hash(gt2_hash(GT2_HASH_SEED, locs, n * sizeof(*locs)), &g, sizeof(g));
	v = find(p, &p->sample_ids, hash, sample_eq, &s, &added);
	if (!v)
		return;
	p->total++;
	if (added) {
		p->samples[p->nsamples++] = s;
		*v = p->nsamples;
		return;
	}
	p->samples[*v - 1].count++;
	p->nstacks = s.first;
}

static void value_type(struct pb *b, uint32_t field, uint64_t type, uint64_t unit)
{
	size_t m = pb_begin(b, field);

	pb_varint(b, VALUE_TYPE_TYPE, type);
	pb_varint(b, VALUE_TYPE_UNIT, unit);
	pb_end(b, m);
}

static void encode_samples(const struct pprof *p, uint64_t period_ns, uint64_t goroutine,
			   struct pb *b)
{
	const struct pprof_sample *s;
	uint64_t values[2];
	size_t i, m, l;

	for (i = 0; i < p->nsamples; i++) {
		s = &p->samples[i];
		values[0] = s->count;
		values[1] = s->count * period_ns;
		m = pb_begin(b, PROFILE_SAMPLE);
		pb_packed(b, SAMPLE_LOCATION_ID, &p->stacks[s->first], s->n);
		pb_packed(b, SAMPLE_VALUE, values, period_ns ? 2 : 1);
		if (s->g) {
			l = pb_begin(b, SAMPLE_LABEL);
			pb_varint(b, LABEL_KEY, goroutine);
			pb_varint(b, LABEL_NUM, s->g);
			pb_end(b, l);
		}
		pb_end(b, m);
	}
}

/* The one mapping, id 1: all addresses, file @file. */
static void encode_mapping(struct pb *b, uint64_t file)
{
	size_t m = pb_begin(b, PROFILE_MAPPING);

	pb_varint(b, MAPPING_ID, 1);
	pb_varint(b, MAPPING_MEMORY_LIMIT, UINT64_MAX);
	pb_varint(b, MAPPING_FILENAME, file);
	pb_varint(b, MAPPING_HAS_FUNCTIONS, 1);
	pb_varint(b, MAPPING_HAS_FILENAMES, 1);
	pb_varint(b, MAPPING_HAS_LINE_NUMBERS, 1);
	pb_end(b, m);
}

static void encode_locations(const struct pprof *p, struct pb *b)
{
	size_t i, m, l;

	for (i = 0; i < p->nlocs; i++) {
		m = pb_begin(b, PROFILE_LOCATION);
		pb_varint(b, LOCATION_ID, i + 1);
		pb_varint(b, LOCATION_MAPPING_ID, 1);
		pb_varint(b, LOCATION_ADDRESS, p->locs[i].pc);
		l = pb_begin(b, LOCATION_LINE);
		pb_varint(b, LINE_FUNCTION_ID, p->locs[i].func);
		pb_varint(b, LINE_LINE, p->locs[i].line);
		pb_end(b, l);
		pb_end(b, m);
	}
}

static void encode_functions(const struct pprof *p, struct pb *b)
{
	size_t i, m;

	for (i = 0; i < p->nfuncs; i++) {
		m = pb_begin(b, PROFILE_FUNCTION);
		pb_varint(b, FUNCTION_ID, i + 1);
		pb_varint(b, FUNCTION_NAME, p->funcs[i].name);
		pb_varint(b, FUNCTION_SYSTEM_NAME, p->funcs[i].name);
		pb_varint(b, FUNCTION_FILENAME, p->funcs[i].file);
		pb_end(b, m);
	}
}

bool pprof_encode(struct pprof *p, const struct pprof_info *info, struct pb *out)
{
	uint64_t samples = pprof_string(p, "samples", 7), count = pprof_string(p, "count", 5);
	uint64_t cpu = pprof_string(p, "cpu", 3), ns = pprof_string(p, "nanoseconds", 11);
	uint64_t goroutine = pprof_string(p, "goroutine", 9);
	uint64_t kernel = pprof_string(p, "[kernel]", 8);
	size_t i;

	if (p->oom)
		return false;
	value_type(out, PROFILE_SAMPLE_TYPE, samples, count);
	if (info->period_ns)
		value_type(out, PROFILE_SAMPLE_TYPE, cpu, ns);
	encode_samples(p, info->period_ns, goroutine, out);
	encode_mapping(out, kernel);
	encode_locations(p, out);
	encode_functions(p, out);
	pb_bytes(out, PROFILE_STRING_TABLE, "", 0);
	for (i = 0; i < p->strs.nstrs; i++)
		pb_bytes(out, PROFILE_STRING_TABLE, p->strs.strs[i].s, p->strs.strs[i].len);
	pb_varint(out, PROFILE_DURATION_NANOS, (uint64_t)info->duration_ns);
	if (info->period_ns) {
		value_type(out, PROFILE_PERIOD_TYPE, cpu, ns);
		pb_varint(out, PROFILE_PERIOD, info->period_ns);
		pb_varint(out, PROFILE_DEFAULT_SAMPLE_TYPE, cpu);
	} else {
		value_type(out, PROFILE_PERIOD_TYPE, samples, count);
		pb_varint(out, PROFILE_PERIOD, 1);
	}
	return !out->oom;
}
