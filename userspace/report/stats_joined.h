/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gotrace stats of a joined trace (gotrace merge: a Go program's trace with
 * kernel regions): per goroutine function, where its goroutines' running
 * time went.
 */
#ifndef GOTRACE_STATS_JOINED_H
#define GOTRACE_STATS_JOINED_H

#include <stdbool.h>

#include "report/stats.h"
#include "tracev2.h"
#include "util/json.h"

/* NULL when out of memory. */
struct stats_joined *stats_joined_new(void);
void stats_joined_free(struct stats_joined *jd);
/*
 * Takes @ev, of a Go 1.22+ trace in Go's order, with its goroutine
 * transition @m (NULL if it has none). Non-zero when out of memory.
 */
int stats_joined_event(struct stats_joined *jd, const struct gt2_event *ev,
		       const struct go_move *m);
/* Ends, at @last (ns), what is still running. Non-zero when out of memory. */
int stats_joined_finish(struct stats_joined *jd, int64_t last);
/*
 * The table ("Goroutine functions") and the "go_functions" array of --json,
 * when the trace has a region of the join's (join.h); nothing otherwise.
 */
void stats_joined_text(const struct stats_joined *jd, bool all);
void stats_joined_json(struct json *j, const struct stats_joined *jd);

#endif /* GOTRACE_STATS_JOINED_H */
