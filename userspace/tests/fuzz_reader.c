// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: any bytes through open, check, replay and the dictionaries,
 * and through the Go 1.22+ wire decoder, the parsed reader and their printers.
 */
#include <stddef.h>
#include <stdint.h>

#include "gtrace.h"
#include "tracev2.h"

static int visit(void *ctx, const struct gt_trace *t, const struct gt_event *ev)
{
	struct gt_frame frames[8];
	const char *s[2];
	size_t len[2];
	unsigned int n, i;

	*(uint64_t *)ctx += (uint64_t)gt_ns(t, ev->ts);
	n = gt_event_strings(t, ev, s, len);
	for (i = 0; i < n; i++)
		*(uint64_t *)ctx += len[i] ? s[i][len[i] - 1] : 0;
	*(uint64_t *)ctx += gt_stack(t, ev->stk, frames, 8);
	return 0;
}

static void parsed(FILE *out, const struct gt2_trace *t)
{
	struct gt2_reader *r;
	struct gt2_event ev;
	struct gt_error err;
	int k;

	if (gt2_reader_open(t, &r, &err))
		return;
	while ((k = gt2_reader_next(r, &ev, &err)) > 0)
		gt2_event_print(out, &ev);
	if (k < 0 && err.phase == GT_ERR_ORDER)
		gt2_reader_dump(out, r);
	gt2_reader_close(r);
}

static void wire(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	struct gt2_wire_event ev;
	struct gt2_trace *t;
	struct gt_error err;
	struct gt2_wire w;

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	if (!devnull || gt2_open_mem(data, size, &t, &err))
		return;
	gt2_wire_init(&w, t);
	while (gt2_wire_next(&w, &ev, &err) > 0)
		gt2_wire_print(devnull, t, &ev);
	parsed(devnull, t);
	gt2_close(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gt_error err;
	struct gt_trace *t;
	uint64_t sum = 0;

	wire(data, size);
	if (gt_open_mem(data, size, &t, &err))
		return 0;
	if (!gt_check(t, visit, &sum, &err))
		gt_replay(t, visit, &sum, &err);
	gt_close(t);
	return 0;
}
