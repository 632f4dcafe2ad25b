/* SPDX-License-Identifier: GPL-2.0 */
/* gotrace record: the state its parts share (session, output, CMD, progress). */
#ifndef GOTRACE_RECORD_H
#define GOTRACE_RECORD_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/gotrace.h>

#include "flight/flight.h"
#include "session.h"

/* Why the recording ended. */
enum record_end {
	END_NONE,
	END_CMD,	/* CMD exited */
	END_SIGNAL,	/* SIGINT, SIGTERM or SIGHUP */
	END_DURATION,	/* --duration elapsed */
	END_EOF,	/* someone else stopped the trace (gotrace stop) */
	END_ERROR,	/* reading the device or writing the output failed */
};

/* The latency trigger of record --flight --trigger-latency (flight/record_trigger.c). */
enum trigger_state {
	TRIG_OFF,	/* none, or it failed */
	TRIG_ARMED,	/* armed: poll() says POLLPRI when it fires */
	TRIG_AFTER,	/* fired: recording --after before its snapshot */
	TRIG_REST,	/* its snapshot taken: --trigger-every from the firing to re-arm */
};

struct roll;

struct record {
	/* Options. */
	const char *out_path;		/* "-": standard output */
	double duration;		/* seconds; 0: until CMD exits or a signal */
	bool quiet;			/* no progress line */
	const char *module_path;	/* --path, for loading the module */
	struct start_opts start;	/* with --flight: a file per snapshot */
	char **argv;			/* CMD ARGS..., or NULL */
	int (*child_run)(void *arg);	/* CMD is this, with @child_arg: argv names it */
	void *child_arg;
	bool only_cmd;			/* --only-cmd: trace CMD and its descendants only */

	/* The session. */
	int ctl_fd, rd_fd, out_fd, sig_fd;
	sigset_t oldmask;		/* the mask to give CMD back */
	double t0, t_end;		/* monotonic seconds: start, end of recording */
	uint64_t bytes;			/* written to the output */
	bool out_file;			/* the output is a regular file */
	struct gotrace_status st;	/* the last status read */
	bool started;			/* GOTRACE_START succeeded */
	enum record_end end;
	int end_sig;			/* the signal behind END_SIGNAL */
	bool failed;			/* the trace is incomplete */
	bool cut_told, drain_told;

	/* CMD. */
	pid_t child;			/* 0: none, or reaped */
	int cork;			/* CMD execs when a byte arrives here */
	int child_status;		/* wait status once reaped */
	bool child_reaped;

	/* --max-size (record/max_size.c): files of whole generations, PREFIX.N.trace. */
	uint64_t max_size;		/* 0: one file */
	struct roll *roll;
	unsigned int roll_base;		/* files of earlier traces (--continue) */

	/* --continue (record/continue.c): FILE, then a trace per PREFIX.N.trace. */
	unsigned int resumes;		/* traces that followed a cut */
	uint64_t gap_events;		/* events not recorded between traces */
	const char *first_path;		/* FILE, the first trace's */
	char *cont_path;		/* the current trace's file after FILE, allocated */

	/* --flight (flight/record_flight.c); with --max-size its file names too. */
	char *prefix;			/* FILE without .trace: PREFIX.N.trace */
	unsigned int snaps;		/* snapshots written */
	bool snap_wanted;		/* SIGUSR1 asked for one */
	bool in_snap;			/* reading one into @snap_file */
	bool snap_ours;			/* @snap is what the ioctl said of it */
	bool done;			/* read() said the session has ended */
	struct gotrace_snapshot snap;
	struct snap_file snap_file;
	char *snap_path;		/* @snap_file's, allocated */
	unsigned int snap_trigger;	/* the firing our snapshot is for; 0: none */

	/* --trigger-latency (flight/record_trigger.c). */
	int64_t after_ns;		/* --after: from the firing to its snapshot */
	int64_t every_ns;		/* --trigger-every: from a firing to re-arming */
	bool after_given, every_given;
	enum trigger_state trig;
	struct gotrace_trigger fired;	/* the last firing */
	unsigned int triggers;		/* firings taken */
	bool listening;			/* poll() for POLLPRI: firings and requests */
	unsigned int requests;		/* snapshot requests taken */

	/* The progress line. */
	bool tty;			/* the line is drawn (on the last of @rows) */
	int rows;
	double tick;			/* when the line was last drawn */
	uint64_t tick_events;
};

double now_seconds(void);

/* record/stream.c: the loop that copies /dev/gotrace while recording, and the drain. */
void record_stream(struct record *r);
void record_drain(struct record *r);
/* Waits up to @ms for the device or a signal, takes the signals, then reads once. */
void record_poll(struct record *r, char *buf, bool draining, int ms);
/* The signals that arrived, taken from the signalfd. */
void record_signals(struct record *r, bool draining);

/* flight/record_flight.c: with --flight, the loop that writes snapshots, and the last one. */
/* The prefix of the files PREFIX.N.trace, in a directory they can be made in. */
bool flight_begin(struct record *r);
/* @snap_path: PREFIX.@n.trace; false after a message. */
bool record_file_path(struct record *r, unsigned int n);
/* One read of the device (a snapshot's bytes or end), then a snapshot SIGUSR1 asked for. */
void flight_step(struct record *r, char *buf);
void flight_end(struct record *r);
/* GOTRACE_SNAPSHOT of the newest @duration_ns, for firing @trigger (0: none); read() brings it. */
void flight_snapshot(struct record *r, uint64_t duration_ns, unsigned int trigger);

/*
 * flight/record_trigger.c: --trigger-latency's firings, and a snapshot a little after each;
 * programs' snapshot requests, a snapshot each.
 */
void trigger_begin(struct record *r);
/* After a poll(): @pri, it said POLLPRI. Takes a firing, its snapshot, or re-arms. */
void trigger_step(struct record *r, bool pri);
/* Does poll() look for POLLPRI (a firing or a request)? */
bool trigger_armed(const struct record *r);
/* Seconds from @now to the trigger's next step; a day when there is none. */
double trigger_wait(const struct record *r, double now);
/* The end's snapshot: the duration for a firing still waiting for its own; its number or 0. */
unsigned int trigger_pending(struct record *r, uint64_t *duration_ns);

/* record/continue.c: at end of file, the next trace of a --continue chain, if one began. */
bool continue_next(struct record *r);
/* Events not recorded: in the gaps between traces and in the last one. */
uint64_t record_lost(const struct record *r);

/*
 * record/max_size.c: with --max-size, the output cut into files
 * (generation_framer.h); false after a message.
 */
bool roll_begin(struct record *r);
/* The last file closed; false if one could not be written or none was. */
bool roll_end(struct record *r);

/* record/output.c: FILE, the previous one kept as FILE.old. */
bool output_open(struct record *r);
bool output_write(struct record *r, const void *buf, size_t len);
bool output_close(struct record *r);

/* record/child.c: CMD, forked before the trace starts and released after. */
bool child_spawn(struct record *r);
void child_release(struct record *r);
void child_cancel(struct record *r);
void child_reap(struct record *r, bool block);
/* Waits for CMD (passing on signals); its status as a shell reports it. */
int child_finish(struct record *r);

/* record/progress.c: the live line on a terminal and the summary. */
void progress_begin(struct record *r);
void progress_tick(struct record *r);
void progress_end(struct record *r);
void progress_note(struct record *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void record_summary(struct record *r);

#endif /* GOTRACE_RECORD_H */
