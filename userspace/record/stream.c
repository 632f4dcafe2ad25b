// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace record: copying /dev/gotrace to the output while the trace runs,
 * then, after the stop, the rest of it up to end of file. Signals never
 * interrupt a copy: they stay blocked and are read from a signalfd between
 * copies, so a Ctrl-C during the final drain is noted and the drain goes on.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "record/record.h"
#include "util/device.h"
#include "util/msg.h"

#define COPY_SIZE (1 << 20)
#define TICK_SECONDS 0.5

double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void record_signals(struct record *r, bool draining)
{
	struct signalfd_siginfo si;

	while (read(r->sig_fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			child_reap(r, false);
			if (r->child_reaped && r->end == END_NONE)
				r->end = END_CMD;
		} else if (si.ssi_signo == SIGUSR1) {	/* --flight: a snapshot */
			r->snap_wanted |= !draining;
		} else if (draining) {
			if (!r->drain_told && r->start.flight_ns)
				progress_note(r, "stopping: writing the last snapshot whole; it "
					      "takes a moment");
			else if (!r->drain_told)
				progress_note(r, "stopping: writing the rest of the trace so that %s "
					      "stays complete; it takes a moment", r->out_path);
			r->drain_told = true;
		} else if (r->end == END_NONE) {
			r->end = END_SIGNAL;
			r->end_sig = (int)si.ssi_signo;
		}
	}
}

/*
 * One read of the device into the output: its length, 0 at end of file,
 * -1 after a message. With no output left (it failed), data is dropped.
 */
static ssize_t copy_once(struct record *r, char *buf)
{
	ssize_t n = read(r->rd_fd, buf, COPY_SIZE);

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 1;	/* nothing this time; not the end */
	if (n < 0) {
		msg_err("record", "reading %s failed: %s", GOTRACE_DEVICE, strerror(errno));
		r->failed = true;
		return -1;
	}
	if (n > 0 && (r->out_fd >= 0 || r->roll) && !output_write(r, buf, (size_t)n))
		r->failed = true;
	return n;
}

/* Milliseconds poll() may sleep: until the next tick or the end of --duration. */
static int wait_ms(const struct record *r, double now)
{
	double wait = TICK_SECONDS;

	if (r->duration > 0 && r->t0 + r->duration - now < wait)
		wait = r->t0 + r->duration - now;
	if (trigger_wait(r, now) < wait)
		wait = trigger_wait(r, now);
	return wait > 0 ? (int)(wait * 1000) + 1 : 0;
}

void record_poll(struct record *r, char *buf, bool draining, int ms)
{
	struct pollfd fds[2] = {
		{ .fd = r->rd_fd, .events = POLLIN | (!draining && trigger_armed(r) ? POLLPRI : 0) },
		{ .fd = r->sig_fd, .events = POLLIN },
	};
	ssize_t n;

	if (poll(fds, 2, ms) < 0 && errno != EINTR) {
		msg_err("record", "poll: %s", strerror(errno));
		r->failed = r->done = true;
		r->end = END_ERROR;
		return;
	}
	if (fds[1].revents)
		record_signals(r, draining);
	/* Non-blocking: a read when poll() said nothing costs an EAGAIN. */
	if (r->start.flight_ns) {
		flight_step(r, buf);
		if (!draining)
			trigger_step(r, fds[0].revents & POLLPRI);
		return;
	}
	n = copy_once(r, buf);
	if (n == 0 && r->end == END_NONE && !continue_next(r))
		r->end = END_EOF;
	else if (n < 0 || (r->failed && r->end == END_NONE))
		r->end = END_ERROR;
}

void record_stream(struct record *r)
{
	char *buf = malloc(COPY_SIZE);
	double now = now_seconds();

	if (!buf) {
		msg_err("record", "out of memory");
		r->failed = true;
		r->end = END_ERROR;
		return;
	}
	r->tick = now;
	trigger_begin(r);
	while (r->end == END_NONE) {
		record_poll(r, buf, false, wait_ms(r, now));
		now = now_seconds();
		if (r->end == END_NONE && r->duration > 0 && now >= r->t0 + r->duration)
			r->end = END_DURATION;
		if (now - r->tick >= TICK_SECONDS)
			progress_tick(r);
	}
	r->t_end = now_seconds();
	free(buf);
}

/* After GOTRACE_STOP: everything up to end of file, whatever signals arrive. */
void record_drain(struct record *r)
{
	char *buf = malloc(COPY_SIZE);
	ssize_t n = 1;

	if (!buf) {
		msg_err("record", "out of memory for the rest of the trace");
		r->failed = true;
		return;
	}
	if (r->end == END_EOF)	/* the stream loop read the end already */
		n = 0;
	while (n != 0) {
		struct pollfd fds[2] = {
			{ .fd = r->rd_fd, .events = POLLIN },
			{ .fd = r->sig_fd, .events = POLLIN },
		};

		if (poll(fds, 2, 1000) < 0 && errno != EINTR)
			break;
		if (fds[1].revents)
			record_signals(r, true);
		n = copy_once(r, buf);
		if (n < 0)
			break;
	}
	free(buf);
}
