// SPDX-License-Identifier: GPL-2.0
/* Static builds cannot load libcurl (dlopen): record --go says so and how to do without it. */
#include <stdbool.h>

#include "goapp/fetch.h"
#include "util/msg.h"

bool fetch_open(const char *cmd)
{
	msg_err(cmd, "--go needs libcurl, which this static gotrace cannot load: use the "
		"gotrace built by make, or fetch the trace yourself (curl -o APP.trace "
		"URL/debug/pprof/trace?seconds=S) while gotrace records, and join them with "
		"gotrace merge");
	return false;
}

int fetch_trace(const char *cmd, const char *url, double seconds, const char *path)
{
	(void)url;
	(void)seconds;
	(void)path;
	return !fetch_open(cmd);
}
