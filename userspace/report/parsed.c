// SPDX-License-Identifier: GPL-2.0
/* gotrace check and dump on Go 1.22+ traces: the events Go's trace.Reader returns. */
#include <stdio.h>
#include <stdlib.h>

#include "report/parsed.h"
#include "util/msg.h"
#include "util/trace_file.h"

struct gt2_trace *parsed_open(const char *path)
{
	struct gt2_trace *t;
	struct gt_error err;

	return gt2_open(path, &t, &err) ? NULL : t;
}

int parsed_read(const char *cmd, const char *path, struct gt2_trace *t, bool print,
		uint64_t *events, uint64_t *gens)
{
	struct gt2_reader *r;
	struct gt2_event ev;
	struct gt_error err;
	int k;

	*events = 0;
	if (gt2_reader_open(t, &r, &err)) {
		trace_error(cmd, path, &err);
		return EXIT_FAILURE;
	}
	while ((k = gt2_reader_next(r, &ev, &err)) > 0) {
		(*events)++;
		if (print && gt2_event_print(stdout, &ev))
			break;
	}
	if (k < 0) {
		trace_error(cmd, path, &err);
		if (err.phase == GT_ERR_ORDER) {
			gt2_reader_dump(stderr, r);
			fputc('\n', stderr);
		}
	}
	*gens = gt2_reader_generations(r);
	gt2_reader_close(r);
	return k ? EXIT_FAILURE : EXIT_SUCCESS;
}
