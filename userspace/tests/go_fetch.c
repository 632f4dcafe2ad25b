// SPDX-License-Identifier: GPL-2.0
/* record --go's fetch alone, for tests/go_fetch.sh: go_fetch URL SECONDS FILE. */
#include <stdio.h>
#include <stdlib.h>

#include "goapp/fetch.h"
#include "util/parse.h"

int main(int argc, char *argv[])
{
	double seconds;

	if (argc != 4) {
		fprintf(stderr, "usage: %s URL SECONDS FILE\n", argv[0]);
		return 2;
	}
	if (!parse_seconds("record", "--duration", argv[2], &seconds) || !fetch_open("record"))
		return 1;
	return fetch_trace("record", argv[1], seconds, argv[3]);
}
