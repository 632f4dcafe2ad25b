// SPDX-License-Identifier: GPL-2.0
/* Go 1.22+ traces: where each generation is in the file and when it ran (gt2_spans_*). */
#include <stdlib.h>

#include "internal.h"

struct gt2_spans {
	struct gt2_gens gens;
	struct gt2_gen gen;
};

int gt2_spans_open(const struct gt2_trace *t, struct gt2_spans **sp, struct gt_error *err)
{
	struct gt2_spans *s = calloc(1, sizeof(*s));

	if (!s) {
		gt_fail(err, GT_OK, 0, "out of memory");
		return -1;
	}
	s->gens.t = t;
	s->gens.pos = t->start;
	*sp = s;
	return 0;
}

void gt2_spans_close(struct gt2_spans *s)
{
	if (!s)
		return;
	gt2_gen_free(&s->gen);
	free(s);
}

/* The latest batch header's time of the generation just read, in ticks. */
static uint64_t last_time(const struct gt2_gen *g)
{
	uint64_t last = g->min_ts;
	size_t i;

	for (i = 0; i < g->nbatches; i++)
		if (g->batches[i].time > last)
			last = g->batches[i].time;
	return last;
}

int gt2_spans_next(struct gt2_spans *s, struct gt2_span *sp, struct gt_error *err)
{
	const struct gt2_trace *t = s->gens.t;
	int k;

	/* Before 1.26 a generation without a spilled batch after it was the last. */
	if (!s->gens.spilled && s->gens.pos >= t->size)
		return 0;
	k = gt2_gen_read(&s->gens, &s->gen, err);
	if (k <= 0)
		return k;
	if (s->gens.spill_failed) {
		*err = s->gens.spill_err;
		return -1;
	}
	sp->gen = s->gen.gen;
	sp->off = s->gen.off;
	sp->end = s->gens.spilled ? s->gens.spill.off : s->gens.pos;
	sp->first = gt2_gen_ns(&s->gen, s->gen.min_ts);
	sp->last = gt2_gen_ns(&s->gen, last_time(&s->gen));
	return 1;
}
