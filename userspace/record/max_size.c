// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace record --max-size SIZE: the trace in files of whole generations,
 * PREFIX.1.trace, PREFIX.2.trace, ... (named as --flight's snapshots),
 * each at most SIZE unless one generation alone is larger, so that each
 * opens in go tool trace, which needs about 80 bytes of memory per byte of
 * trace. generation_framer.c frames the stream; here its files are written as
 * snapshots are, under a temporary name renamed once whole.
 */
#include <stdint.h>
#include <stdlib.h>

#include "flight/flight.h"
#include "record/generation_framer.h"
#include "record/record.h"
#include "util/msg.h"

#define CMD "record"

static bool roll_open(void *ctx, unsigned int n)
{
	struct record *r = ctx;

	return record_file_path(r, r->roll_base + n) &&
	       snap_file_open(&r->snap_file, CMD, r->snap_path);
}

static bool roll_write(void *ctx, const void *buf, size_t len)
{
	struct record *r = ctx;

	return snap_file_write(&r->snap_file, buf, len);
}

/* The file renamed into place, and its line. */
static bool roll_close(void *ctx, const struct roll_file *f)
{
	struct record *r = ctx;
	struct gotrace_snapshot snap = {
		.first_gen = f->first_gen, .generations = f->gens, .span_ns = UINT64_MAX,
	};

	if (!snap_file_commit(&r->snap_file, false))
		return false;
	r->snaps++;
	snapshot_report(CMD, r->snap_path, &snap, f->bytes, NULL);
	return true;
}

/* After flight_begin(), which made the prefix. */
bool roll_begin(struct record *r)
{
	static const struct roll_ops ops = { roll_open, roll_write, roll_close };

	r->roll = roll_new(r->max_size, &ops, r);
	if (!r->roll)
		msg_err(CMD, "out of memory");
	return r->roll;
}

bool roll_end(struct record *r)
{
	bool ok = roll_finish(r->roll);

	roll_free(r->roll);
	r->roll = NULL;
	return ok && r->snaps;
}
