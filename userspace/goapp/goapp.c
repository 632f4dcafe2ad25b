// SPDX-License-Identifier: GPL-2.0
/*
 * record --go URL and --go-trace APP: record the machine (format 1.26, clock
 * mono, as the join needs) while a Go program writes its own trace, a
 * service's fetched from its net/http/pprof or the one CMD writes, then join
 * the two with merge_write().
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "goapp/fetch.h"
#include "goapp/goapp.h"
#include "record/output.h"
#include "record/record.h"
#include "report/merge.h"
#include "util/msg.h"

bool goapp_option(struct goapp *g, int c, const char *arg)
{
	if (!*arg) {
		msg_err("record", "empty %s: give %s", c == 'g' ? "--go URL" : "--go-trace file name",
			c == 'g' ? "the service's address, e.g. --go http://127.0.0.1:6060" :
			"the file CMD writes its trace to");
		return false;
	}
	if (c == 'g')
		g->url = arg;
	else
		g->app = arg;
	return true;
}

/* The recording options the join cannot use; false after a message. */
static bool check_record(const char *opt, const struct record *r)
{
	const struct gotrace_start *args = &r->start.args;

	if (r->start.flight_ns || r->max_size || (args->flags & GOTRACE_START_CONTINUE))
		msg_err("record", "%s joins one trace of the machine: drop %s", opt,
			r->start.flight_ns ? "--flight" : r->max_size ? "--max-size" : "--continue");
	else if (!strcmp(r->out_path, "-"))
		msg_err("record", "%s writes files, not standard output: give -o FILE", opt);
	else if (args->format != GOTRACE_FORMAT_DEFAULT && args->format != GOTRACE_FORMAT_1_26)
		msg_err("record", "%s records format 1.26, whose clock snapshots the join needs: "
			"drop --format 1.%u", opt, args->format);
	else if (args->flags & GOTRACE_START_CLOCK_TSC)
		msg_err("record", "%s records with the clock mono, which Go's trace uses: "
			"drop --clock tsc", opt);
	else
		return true;
	return false;
}

/* --go's and --go-trace's own rules; false after a message. */
static bool check_mode(const struct goapp *g, const struct record *r, bool cmd)
{
	if (g->url && g->app)
		msg_err("record", "--go and --go-trace do not go together: --go fetches a "
			"service's trace, --go-trace takes the one CMD writes");
	else if (g->url && !r->duration)
		msg_err("record", "--go needs --duration S: the seconds of the service's trace "
			"to fetch (e.g. --duration 5)");
	else if (g->url && cmd)
		msg_err("record", "--go records while it fetches the service's trace, without a "
			"command: drop -- CMD, or use --go-trace APP -- CMD for a command that "
			"writes its own trace");
	else if (g->url && r->only_cmd)
		msg_err("record", "--go records the service, which is not a command of ours: "
			"drop --only-cmd (or filter with --pid PID)");
	else if (g->app && !cmd)
		msg_err("record", "--go-trace joins the trace CMD writes: add -- CMD [ARGS...] "
			"(e.g. -- go test -trace %s ./pkg)", g->app);
	else
		return true;
	return false;
}

/* @prefix.@what.trace, allocated; NULL after a message. */
static char *prefixed(const char *prefix, int len, const char *what)
{
	char *path;

	if (asprintf(&path, "%.*s.%s.trace", len, prefix, what) >= 0)
		return path;
	msg_err("record", "out of memory");
	return NULL;
}

/* In record's child, instead of CMD: the service's trace while the machine's is recorded. */
static int fetch_child(void *arg)
{
	const struct goapp *g = arg;

	return fetch_trace("record", g->url, g->seconds, g->app);
}

/* --go: the fetch is record's CMD, its --duration the fetch's seconds. */
static bool fetch_as_cmd(struct goapp *g, struct record *r, const char *prefix, int len)
{
	g->app = g->app_buf = prefixed(prefix, len, "app");
	if (!g->app || asprintf(&g->fetch_argv[0], "the fetch of %s", g->url) < 0)
		return false;
	g->seconds = r->duration;
	r->duration = 0;
	r->argv = g->fetch_argv;
	r->child_run = fetch_child;
	r->child_arg = g;
	return true;
}

bool goapp_check(struct goapp *g, struct record *r, bool cmd)
{
	const char *opt = g->url ? "--go" : "--go-trace";
	const char *prefix = r->out_path;
	size_t len = strlen(prefix);

	if (!g->url && !g->app)
		return true;
	if (!check_mode(g, r, cmd) || !check_record(opt, r))
		return false;
	r->start.args.format = GOTRACE_FORMAT_1_26;
	r->start.args.flags |= GOTRACE_START_CLOCK_MONO;
	if (len > 6 && !strcmp(prefix + len - 6, ".trace"))
		len -= 6;
	g->out = r->out_path;
	r->out_path = g->machine_buf = prefixed(prefix, (int)len, "machine");
	if (!r->out_path)
		return false;
	return !g->url || fetch_as_cmd(g, r, prefix, (int)len);
}

bool goapp_begin(const struct goapp *g)
{
	if (!g->app)
		return true;
	return (!g->url || fetch_open("record")) && output_keep_old("record", g->app);
}

int goapp_join(const struct goapp *g, const struct record *r, int status)
{
	struct merge_opts o = { .app = g->app, .machine = r->out_path, .out = g->out };

	if (!g->app || !r->started)	/* nothing recorded: record said why */
		return status;
	if (r->failed || (g->url && status)) {
		msg_err("record", "nothing joined: the recording%s failed (see above)",
			g->url ? " or the fetch" : "");
		return status ? status : EXIT_FAILURE;
	}
	if (access(g->app, R_OK)) {
		msg_err("record", "cannot read %s: %s: did CMD write its trace there? "
			"(give --go-trace the file of its -trace)", g->app, strerror(errno));
		return status ? status : EXIT_FAILURE;
	}
	if (!output_keep_old("record", g->out) || merge_write(&o, stderr))
		return status ? status : EXIT_FAILURE;
	return status;
}

void goapp_free(struct goapp *g)
{
	free(g->app_buf);
	free(g->machine_buf);
	free(g->fetch_argv[0]);
}
