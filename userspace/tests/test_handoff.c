// SPDX-License-Identifier: GPL-2.0
/*
 * gt_check_apart() against gt_check() on the traces given (valid and not):
 * the same result and error, and its sink, on its own thread, sees the same
 * events in the same order. A sink that stops: its return is the result,
 * after exactly the events it took, also past a block of the handoff.
 * Usage: test_handoff TRACE...
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oldtrace/internal.h"
#include "tap.h"

/* What a sink saw: a hash of its events in order, how many, and on which thread. */
struct seen {
	uint64_t hash, n, stop_at;
	pthread_t thread;
	bool same_thread;
};

static int record(void *ctx, const struct gt_trace *t, const struct gt_event *ev)
{
	struct seen *s = ctx;
	const uint64_t v[] = { ev->off, (uint64_t)ev->ts, (uint64_t)ev->p, ev->g, ev->stk,
			       ev->args[0], ev->args[1], ev->args[2], ev->type };
	size_t i;

	(void)t;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		s->hash = (s->hash ^ v[i]) * 0x100000001b3ULL;
	s->same_thread &= pthread_equal(s->thread, pthread_self());
	return ++s->n == s->stop_at ? 7 : 0;
}

static void compare(const char *path, struct gt_trace *t)
{
	struct seen a = { .thread = pthread_self(), .same_thread = true };
	struct seen b = { .thread = pthread_self(), .same_thread = true };
	struct gt_error ea = { 0 }, eb = { 0 };
	int ra = gt_check(t, record, &a, &ea), rb = gt_check_apart(t, record, &b, &eb);

	tap_ok(ra == rb && ea.phase == eb.phase && !strcmp(ea.msg, eb.msg) && a.n == b.n &&
	       a.hash == b.hash && a.same_thread && !b.same_thread,
	       "%s: %s, %llu events, the same on the sink's thread", path,
	       ra ? "invalid" : "valid", (unsigned long long)a.n);
}

/* The sink stops at event @at of @t (of @n): 7 comes back, @at events seen. */
static void stop(const char *path, struct gt_trace *t, uint64_t at)
{
	struct seen s = { .stop_at = at, .thread = pthread_self(), .same_thread = true };
	struct gt_error err = { 0 };
	int r = gt_check_apart(t, record, &s, &err);

	tap_ok(r == 7 && s.n == at, "%s: a sink stopping at event %llu stops it there",
	       path, (unsigned long long)at);
	if (r != 7 || s.n != at)
		tap_diag("returned %d after %llu events", r, (unsigned long long)s.n);
}

int main(int argc, char *argv[])
{
	struct gt_error err;
	struct gt_trace *t;
	uint64_t n;
	int i;

	for (i = 1; i < argc; i++) {
		if (gt_open(argv[i], &t, &err))
			continue;
		compare(argv[i], t);
		n = gt_nr_events(t);
		if (n > 2000 && !gt_check(t, NULL, NULL, &err)) {
			stop(argv[i], t, 1);
			stop(argv[i], t, 1500);
			stop(argv[i], t, n);
		}
		gt_close(t);
	}
	return tap_done();
}
