/* SPDX-License-Identifier: GPL-2.0 */
/* record --go and --go-trace: the machine recorded with a Go program's own trace, then joined. */
#ifndef GOTRACE_GOAPP_H
#define GOTRACE_GOAPP_H

#include <stdbool.h>

struct record;

/* What --go and --go-trace ask for (goapp.c). */
struct goapp {
	const char *url;	/* --go: the service's net/http/pprof */
	const char *app;	/* --go-trace FILE, or PREFIX.app.trace */
	const char *out;	/* the joined trace: record's -o */
	double seconds;		/* --go's --duration */
	char *app_buf, *machine_buf;
	char *fetch_argv[2];	/* what record's messages call the fetch */
};

#define GOAPP_LONGOPTS \
	{ "go", required_argument, NULL, 'g' }, \
	{ "go-trace", required_argument, NULL, 'T' }
#define GOAPP_OPTIONS_HELP \
	"      --go URL           with --duration S: record the machine while fetching\n" \
	"                         URL/debug/pprof/trace?seconds=S (a Go service serving\n" \
	"                         net/http/pprof) into PREFIX.app.trace, keep the\n" \
	"                         machine's in PREFIX.machine.trace (PREFIX: FILE\n" \
	"                         without .trace) and write both joined to FILE\n" \
	"                         (gotrace merge); format 1.26, clock mono\n" \
	"      --go-trace APP     with CMD, which writes its own Go trace to APP (e.g.\n" \
	"                         go test -trace APP): the machine's in\n" \
	"                         PREFIX.machine.trace, joined with APP into FILE\n"

/* An option of GOAPP_LONGOPTS; false after a message. */
bool goapp_option(struct goapp *g, int c, const char *arg);
/*
 * After the options (@cmd: a CMD was given): their checks, and what they
 * imply for @r (format, clock, FILE's name, --go's fetch as CMD); false
 * after a message.
 */
bool goapp_check(struct goapp *g, struct record *r, bool cmd);
/* Before recording: --go's libcurl, an earlier APP kept as APP.old; false after a message. */
bool goapp_begin(const struct goapp *g);
/* After the recording, of exit status @status: the join; the command's exit status. */
int goapp_join(const struct goapp *g, const struct record *r, int status);
void goapp_free(struct goapp *g);

#endif /* GOTRACE_GOAPP_H */
