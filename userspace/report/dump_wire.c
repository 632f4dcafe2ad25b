// SPDX-License-Identifier: GPL-2.0
/* gotrace dump --wire: a Go 1.22+ trace's events as encoded, as 'go tool trace -d=wire'. */
#include <stdio.h>
#include <stdlib.h>

#include "report/dump_wire.h"
#include "tracev2.h"
#include "util/trace_file.h"

int dump_wire(const char *path)
{
	struct gt2_wire_event ev;
	struct gt2_trace *t;
	struct gt2_wire w;
	struct gt_error err;
	int r;

	if (gt2_open(path, &t, &err)) {
		trace_error("dump", path, &err);
		return EXIT_FAILURE;
	}
	gt2_wire_init(&w, t);
	while ((r = gt2_wire_next(&w, &ev, &err)) > 0)
		if (gt2_wire_print(stdout, t, &ev))
			break;
	if (r < 0)
		trace_error("dump", path, &err);
	gt2_close(t);
	return output_done("dump", r ? EXIT_FAILURE : EXIT_SUCCESS);
}
