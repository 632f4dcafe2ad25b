// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace record --continue: when the buffers run full, the module ends the
 * trace at the cut and starts the next one once this one is read to its
 * end (GOTRACE_START_CONTINUE). Each trace goes to a file of its own, FILE,
 * then PREFIX.1.trace, PREFIX.2.trace, ... (with --max-size, the pieces go
 * on numbering), and each gap is told: when, how long, events not recorded.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record/record.h"
#include "session.h"
#include "util/msg.h"

#define CMD "record"

/* The next trace's file: PREFIX.N.trace, or with --max-size the next pieces. */
static bool continue_open(struct record *r)
{
	if (r->roll) {
		if (!roll_end(r))
			return false;
		r->roll_base = r->snaps;
		return roll_begin(r);
	}
	if (!output_close(r))
		return false;
	if (!r->first_path)
		r->first_path = r->out_path;
	free(r->cont_path);
	r->cont_path = strdup(r->snap_path);
	if (!r->cont_path) {
		msg_err(CMD, "out of memory");
		return false;
	}
	r->out_path = r->cont_path;
	return output_open(r);
}

/*
 * At end of file: true if the module started the next trace of the chain,
 * whose file is then open. False, and the recording ends, if none did:
 * someone stopped it, or it could not start (said, and the recording
 * counts as incomplete).
 */
bool continue_next(struct record *r)
{
	struct gotrace_status st;
	const char *old = r->roll ? "its last file" : r->out_path;

	if (!(r->start.args.flags & GOTRACE_START_CONTINUE) ||
	    !session_status(CMD, r->ctl_fd, &st))
		return false;
	if (st.resume_error) {
		progress_note(r, "the buffers ran full and the next trace could not start: %s: "
			      "the recording ends with %s", strerror((int)st.resume_error), old);
		r->failed = true;
		return false;
	}
	if (st.state == GOTRACE_STATE_IDLE || !(st.flags & GOTRACE_STATUS_CONTINUE) ||
	    st.resumes <= r->resumes)
		return false;
	r->resumes = st.resumes;
	r->gap_events += st.gap_events;
	r->cut_told = false;
	if (!r->roll && !record_file_path(r, r->resumes)) {
		r->failed = true;
		return false;
	}
	progress_note(r, "the buffers ran full at %.3f s: %s ends there; the next trace began "
		      "%.3f s later in %s, %" PRIu64 " events in between not recorded",
		      (double)st.gap_start_ns / 1e9 - r->t0, old,
		      (double)(st.gap_end_ns - st.gap_start_ns) / 1e9,
		      r->roll ? "the next files" : r->snap_path, (uint64_t)st.gap_events);
	if (continue_open(r))
		return true;
	r->failed = true;
	return false;
}

uint64_t record_lost(const struct record *r)
{
	return r->gap_events + r->st.events_lost;
}
