/* SPDX-License-Identifier: GPL-2.0 */
/* The flight recorder: snapshots of the newest whole generations (flight.c). */
#ifndef _GOTRACE_FLIGHT_H
#define _GOTRACE_FLIGHT_H

#include <linux/types.h>

struct gotrace_dev;
struct gotrace_ring;
struct gotrace_session;
struct gotrace_snapshot;
struct gotrace_sring;

/**
 * struct gotrace_flight_snap - whole generations copied out of a flight
 * recorder's rings, for read() to serve as one trace
 * @rings:	one per possible CPU, nr_cpu_ids of them: that CPU's chunks
 *		of those generations, oldest first.
 * @samples:	with CPU samples, those of its generations still kept when it
 *		was taken, by CPU (gotrace_samples_copy()); else NULL.
 * @first_gen:	the first generation it holds.
 * @last_gen:	the last.
 */
struct gotrace_flight_snap {
	struct gotrace_ring *rings;
	struct gotrace_sring *samples;
	u32 first_gen;
	u32 last_gen;
};

int gotrace_flight_snapshot(struct gotrace_dev *dev,
			    struct gotrace_snapshot *args);
void gotrace_flight_free(struct gotrace_flight_snap *snap);
void gotrace_flight_read_done(struct gotrace_dev *dev,
			      struct gotrace_session *s);

#endif /* _GOTRACE_FLIGHT_H */
