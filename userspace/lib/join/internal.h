/* SPDX-License-Identifier: GPL-2.0 */
/* libgtrace's join (join.h): what its files share. */
#ifndef GTRACE_JOIN_INTERNAL_H
#define GTRACE_JOIN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "common/map.h"
#include "join.h"
#include "tracev2.h"

/*
 * The strings the join adds, interned: index i is the (i + 1)-th string
 * added. splice.c gives each generation that uses them a Strings batch of
 * its own, with ids above the generation's highest.
 */
struct jn_strings {
	char **s;
	size_t len, cap;
	struct gt_map index;	/* a string's hash (probed on collisions) -> its index + 1 */
};

/* The index of @s (copied in), -1 if out of memory. */
int64_t jn_string(struct jn_strings *t, const char *s);
void jn_strings_free(struct jn_strings *t);

/*
 * An event to insert into APP: a user region's begin or end, or a log, on
 * the goroutine M runs. It goes right after the event of M's batch at
 * offset @after (after the inserts before it in the array with the same
 * @after), at @ts in APP's ticks: not before that event's time, not after
 * the next event of M's. Task 0, stack 0.
 */
struct jn_insert {
	uint64_t after;
	uint64_t ts;
	uint8_t type;		/* GT2_EV_USER_REGION_BEGIN, _END or GT2_EV_USER_LOG */
	uint32_t str;		/* region: its type; log: its key (category) */
	uint32_t str2;		/* log: its message */
};

/*
 * splice.c: writes @app to @fd with @ins (sorted by @after, stable)
 * inserted: every byte of APP kept except the batches that get events,
 * which are re-encoded (the next event's time delta, the length) and cut
 * where they would pass Go's 64 KiB, and a Strings batch per generation
 * that needs @strs. 0, or -1 with @err set.
 */
int jn_splice(const struct gt2_trace *app, int fd, const struct jn_insert *ins, size_t n,
	      const struct jn_strings *strs, struct gt_error *err);

#endif /* GTRACE_JOIN_INTERNAL_H */
