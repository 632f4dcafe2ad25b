// SPDX-License-Identifier: GPL-2.0
/* The strings the join adds to APP, each kept once (jn_string()). */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "tracev2/internal.h"

/* A copy of @s at the end of @t: its index, -1 if out of memory. */
static int64_t add_copy(struct jn_strings *t, const char *s)
{
	char *copy;

	if (!gt2_grow(&t->s, &t->cap, t->len, sizeof(*t->s)))
		return -1;
	copy = strdup(s);
	if (!copy)
		return -1;
	t->s[t->len] = copy;
	return t->len++;
}

int64_t jn_string(struct jn_strings *t, const char *s)
{
	uint64_t key, *v;
	int64_t i;
	bool added;

	for (key = gt2_hash(GT2_HASH_SEED, s, strlen(s));; key++) {
		v = gt_map_put(&t->index, key, &added);
		if (!v)
			return -1;
		if (added)
			break;
		if (!strcmp(t->s[*v - 1], s))
			return *v - 1;
	}
	i = add_copy(t, s);
	if (i < 0) {
		gt_map_del(&t->index, key);
		return -1;
	}
	*v = i + 1;
	return i;
}

void jn_strings_free(struct jn_strings *t)
{
	size_t i;

	for (i = 0; i < t->len; i++)
		free(t->s[i]);
	free(t->s);
	gt_map_free(&t->index);
	memset(t, 0, sizeof(*t));
}
