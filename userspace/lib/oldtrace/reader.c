// SPDX-License-Identifier: GPL-2.0
/* Opening a trace (mapped, then indexed) and reading its dictionaries. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "internal.h"

static int trace_new(const void *data, size_t size, bool mapped, uint64_t half,
		     struct gt_trace **tp, struct gt_error *err)
{
	struct gt_trace *t = calloc(1, sizeof(*t));

	if (!t) {
		gt_fail(err, GT_OK, 0, "out of memory");
		return -1;
	}
	t->data = data;
	t->size = size;
	t->mapped = mapped;
	gt_map_init(&t->proc_ids);
	gt_map_init(&t->strings);
	gt_map_init(&t->stacks);
	gt_map_init(&t->timer_gs);
	if (gt_index(t, half, err)) {
		gt_close(t);
		return -1;
	}
	*tp = t;
	return 0;
}

int gt_open_mem(const void *data, size_t size, struct gt_trace **t, struct gt_error *err)
{
	return trace_new(data, size, false, 0, t, err);
}

int gt_open_mem_at(const void *data, size_t size, uint64_t half, struct gt_trace **t,
		   struct gt_error *err)
{
	return trace_new(data, size, false, half, t, err);
}

int gt_open(const char *path, struct gt_trace **t, struct gt_error *err)
{
	const void *data;
	size_t size;
	int r;

	if (gt_map_file(path, &data, &size, NULL, err))
		return -1;
	r = trace_new(data, size, data != NULL, 0, t, err);
	if (r && data)
		munmap((void *)data, size);
	return r;
}

void gt_close(struct gt_trace *t)
{
	if (!t)
		return;
	gt_index_free(t);
	if (t->mapped)
		munmap((void *)t->data, t->size);
	free(t);
}

int gt_version(const struct gt_trace *t)
{
	return t->ver;
}

uint64_t gt_size(const struct gt_trace *t)
{
	return t->size;
}

uint64_t gt_nr_events(const struct gt_trace *t)
{
	return t->nr_events;
}

uint64_t gt_nr_batches(const struct gt_trace *t)
{
	return t->nr_batches;
}

int64_t gt_ticks_per_sec(const struct gt_trace *t)
{
	return t->ticks_per_sec;
}

/* As Go: int64(float64(ts - minTs) * (1e9 / float64(freq))). */
int64_t gt_ns(const struct gt_trace *t, int64_t ts)
{
	double ns = (double)(int64_t)((uint64_t)ts - (uint64_t)t->min_ts) * t->ns_per_tick;

	/* Out of range, amd64 gives the "integer indefinite" value. */
	if (!(ns >= -9223372036854775808.0 && ns < 9223372036854775808.0))
		return INT64_MIN;
	return (int64_t)ns;
}

double gt_ticks_ns(const struct gt_trace *t, int64_t ticks)
{
	return (double)ticks * t->ns_per_tick;
}

const char *gt_string(const struct gt_trace *t, uint64_t id, size_t *len)
{
	const uint64_t *v = gt_map_get(&t->strings, id);

	if (!v) {
		*len = 0;
		return "";
	}
	*len = *v & ((1 << 20) - 1);
	return (const char *)t->data + (*v >> 20);
}

/* Go 1.21's names of stop-the-world kinds (runtime stwReasonStrings). */
static const char *const stw_reasons_121[] = {
	"unknown", "GC mark termination", "GC sweep termination", "write heap dump",
	"goroutine profile", "goroutine profile cleanup", "all goroutines stack trace",
	"read mem stats", "AllThreadsSyscall", "GOMAXPROCS", "start trace", "stop trace",
	"CountPagesInUse (test)", "ReadMetricsSlow (test)", "ReadMemStatsSlow (test)",
	"PageCachePagesLeaked (test)", "ResetDebugLog (test)",
};

static const char *stw_kind(const struct gt_trace *t, uint64_t kind)
{
	if (t->ver < GT_VER(21))
		return kind ? "sweep termination" : "mark termination";
	if (kind < sizeof(stw_reasons_121) / sizeof(stw_reasons_121[0]))
		return stw_reasons_121[kind];
	return "unknown";
}

unsigned int gt_event_strings(const struct gt_trace *t, const struct gt_event *ev,
			      const char **s, size_t *len)
{
	switch (ev->type) {
	case GT_EV_STW_START:
		s[0] = stw_kind(t, ev->args[0]);
		len[0] = strlen(s[0]);
		return 1;
	case GT_EV_GO_START_LABEL:
	case GT_EV_USER_TASK_CREATE:
	case GT_EV_USER_REGION:
		s[0] = gt_string(t, ev->args[2], &len[0]);
		return 1;
	case GT_EV_USER_LOG:
		s[0] = gt_string(t, ev->args[1], &len[0]);
		s[1] = (const char *)t->data + ev->str_off;
		len[1] = ev->str_len;
		return 2;
	}
	return 0;
}

unsigned int gt_stack(const struct gt_trace *t, uint64_t id, struct gt_frame *frames,
		      unsigned int max)
{
	const uint64_t *off = id ? gt_map_get(&t->stacks, id) : NULL;
	struct gt_error err;
	struct gt_raw raw;
	uint64_t pos, v[4], depth, i;
	unsigned int j;

	if (!off)
		return 0;
	gt_wire_next(t->data, t->size, *off, t->ver, &raw, &err);
	depth = raw.args[1];
	pos = raw.args_off;
	/* Skip the id and the count; frames are {PC, func, file, line}. */
	gt_uvarint(t->data, t->size, &pos, &v[0]);
	gt_uvarint(t->data, t->size, &pos, &v[0]);
	for (i = 0; i < depth && i < max; i++) {
		for (j = 0; j < 4; j++)
			gt_uvarint(t->data, t->size, &pos, &v[j]);
		frames[i] = (struct gt_frame){ v[0], v[1], v[2], v[3] };
	}
	return (unsigned int)depth;
}

/* The keys of @m, in no order: their number, up to @max of them in @ids. */
static size_t map_keys(const struct gt_map *m, uint64_t *ids, size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < m->cap; i++) {
		if (!m->used[i])
			continue;
		if (n < max)
			ids[n] = m->slots[i].key;
		n++;
	}
	return n;
}

size_t gt_stack_ids(const struct gt_trace *t, uint64_t *ids, size_t max)
{
	return map_keys(&t->stacks, ids, max);
}

size_t gt_timer_gs(const struct gt_trace *t, uint64_t *ids, size_t max)
{
	return map_keys(&t->timer_gs, ids, max);
}
