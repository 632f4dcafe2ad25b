// SPDX-License-Identifier: GPL-2.0
/* Go 1.22+ strings kept past their generation, whose table goes with it: one copy per content. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

uint64_t gt2_hash(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n--)
		h = (h ^ *b++) * 0x100000001b3ULL;
	return h;
}

/* A copy of @s at the end of x->strs: false if out of memory. */
static bool add_copy(struct gt2_intern *x, struct gt2_str s)
{
	uint8_t *copy;

	if (!gt2_grow(&x->strs, &x->cap_strs, x->nstrs, sizeof(*x->strs)))
		return false;
	copy = malloc(s.len);
	if (!copy)
		return false;
	memcpy(copy, s.s, s.len);
	x->strs[x->nstrs++] = (struct gt2_str){ copy, s.len };
	return true;
}

uint64_t gt2_intern(struct gt2_intern *x, struct gt2_str s)
{
	const struct gt2_str *old;
	uint64_t key, *v;
	bool added;

	for (key = gt2_hash(GT2_HASH_SEED, s.s, s.len);; key++) {
		v = gt_map_put(&x->ids, key, &added);
		if (!v)
			return 0;
		if (added)
			break;
		old = &x->strs[*v - 1];
		if (old->len == s.len && !memcmp(old->s, s.s, s.len))
			return *v;
	}
	if (!add_copy(x, s)) {
		gt_map_del(&x->ids, key);
		return 0;
	}
	*v = x->nstrs;
	return *v;
}

void gt2_intern_free(struct gt2_intern *x)
{
	size_t i;

	for (i = 0; i < x->nstrs; i++)
		free((void *)x->strs[i].s);
	free(x->strs);
	gt_map_free(&x->ids);
	memset(x, 0, sizeof(*x));
}
