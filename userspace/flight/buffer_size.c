// SPDX-License-Identifier: GPL-2.0
/*
 * A flight recorder's buffers, when --buffer-size does not give them: 1 s of
 * a streaming trace in its format, read here, says how fast the busiest CPU
 * writes. Its buffer must hold --flight's duration and the two generations a
 * snapshot loses at the ends (the one being written when it is taken, and
 * the oldest, partly overwritten), a page per generation for the chunk each
 * leaves part empty (a buffer chunk holds one generation's batch), and a
 * quarter more.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "flight/flight.h"
#include "record/record.h"
#include "session.h"
#include "tracev2.h"
#include "util/device.h"
#include "util/msg.h"
#include "util/trace_file.h"

#define MEASURE_SECONDS	1.0
#define POLL_MS		100
#define READ_SIZE	(1 << 20)
#define MIB		((uint64_t)1 << 20)
#define SIZE_MIN	(2 * MIB)
#define SIZE_LIMIT	((uint64_t)1 << 30)
#define MEMINFO		"/proc/meminfo"

/* The measurement's trace, in memory. */
struct measure {
	const char *cmd;
	int ctl_fd, rd_fd, sig_fd;
	int sig;		/* the stopping signal that ended it, or 0 */
	char *buf;
	size_t len, cap;
	bool eof, failed;
};

/* One read of the trace; sets @m->eof at its end, @m->failed after a message. */
static void measure_read(struct measure *m)
{
	ssize_t n;

	if (m->cap - m->len < READ_SIZE) {
		size_t cap = m->cap ? 2 * m->cap : 4 * READ_SIZE;
		char *buf = realloc(m->buf, cap);

		if (!buf) {
			msg_err(m->cmd, "out of memory for the trace that sizes the buffers: "
				"give --buffer-size");
			m->failed = true;
			return;
		}
		m->buf = buf;
		m->cap = cap;
	}
	n = read(m->rd_fd, m->buf + m->len, READ_SIZE);
	if (n > 0) {
		m->len += (size_t)n;
	} else if (!n) {
		m->eof = true;
	} else if (errno != EAGAIN && errno != EINTR) {
		msg_err(m->cmd, "reading %s failed: %s", GOTRACE_DEVICE, strerror(errno));
		m->failed = true;
	}
}

/* Waits up to @ms for the trace or a signal; a stopping one is kept in @m->sig. */
static void measure_poll(struct measure *m, int ms)
{
	struct pollfd fds[2] = {
		{ .fd = m->rd_fd, .events = POLLIN },
		{ .fd = m->sig_fd, .events = POLLIN },
	};
	struct signalfd_siginfo si;

	poll(fds, 2, ms);
	if (!fds[1].revents)
		return;
	while (read(m->sig_fd, &si, sizeof(si)) == sizeof(si))
		if (si.ssi_signo == SIGINT || si.ssi_signo == SIGTERM || si.ssi_signo == SIGHUP)
			m->sig = (int)si.ssi_signo;
}

/* The trace of the measurement, from its start to its end; its length in seconds, or -1. */
static double measure_trace(struct measure *m, struct gotrace_status *st)
{
	double t0 = now_seconds(), t1 = t0 + MEASURE_SECONDS, now = t0;

	while (now < t1 && !m->sig && !m->failed && !m->eof) {
		measure_poll(m, t1 - now < POLL_MS / 1e3 ? (int)((t1 - now) * 1e3) + 1 : POLL_MS);
		measure_read(m);
		now = now_seconds();
	}
	if (m->eof) {
		msg_err(m->cmd, "the trace that sizes the buffers was stopped by someone else "
			"(gotrace stop?): give --buffer-size");
		return -1;
	}
	if (!session_stop(m->cmd, m->ctl_fd, GOTRACE_STOP_NOWAIT, false) ||
	    !session_status(m->cmd, m->ctl_fd, st))
		m->failed = true;
	while (!m->eof && !m->failed) {
		struct pollfd pfd = { .fd = m->rd_fd, .events = POLLIN };

		poll(&pfd, 1, 1000);
		measure_read(m);
	}
	return m->failed || m->sig ? -1 : now - t0;
}

/* A batch whose first event is one of these holds tables, no CPU's events. */
static bool table_batch(uint8_t type)
{
	return type == GT2_EV_STRINGS || type == GT2_EV_STACKS || type == GT2_EV_SYNC ||
	       type == GT2_EV_FREQUENCY || type == GT2_EV_CPU_SAMPLES;
}

/*
 * The bytes of the busiest CPU's batches (their M is the CPU), headers
 * included; its number in @cpu. -1 after a message.
 */
static int64_t busiest_cpu(const struct measure *m, uint32_t ncpus, uint32_t *cpu)
{
	uint64_t *bytes = calloc(ncpus ? ncpus : 1, sizeof(*bytes)), batch_m = 0, size = 0;
	struct gt2_wire_event ev;
	struct gt2_trace *t;
	struct gt_error err;
	struct gt2_wire w;
	bool in_batch = false;
	int64_t max = -1;
	uint32_t i;
	int k = -1;

	if (!bytes) {
		msg_err(m->cmd, "out of memory");
		return -1;
	}
	if (gt2_open_mem(m->buf, m->len, &t, &err)) {
		trace_error(m->cmd, "the trace that sizes the buffers", &err);
		goto out;
	}
	gt2_wire_init(&w, t);
	while ((k = gt2_wire_next(&w, &ev, &err)) > 0) {
		if (in_batch && !table_batch(ev.type) && batch_m < ncpus)
			bytes[batch_m] += size;
		in_batch = ev.type == GT2_EV_EVENT_BATCH;
		if (in_batch) {
			batch_m = ev.args[1];
			size = ev.end - ev.off + ev.args[3];
		}
	}
	if (k < 0)
		trace_error(m->cmd, "the trace that sizes the buffers", &err);
	gt2_close(t);
out:
	for (i = 0; !k && i < ncpus; i++) {
		if ((int64_t)bytes[i] > max) {
			max = (int64_t)bytes[i];
			*cpu = i;
		}
	}
	free(bytes);
	return max;
}

/* MemAvailable in bytes, 0 if unknown. */
static uint64_t mem_available(void)
{
	unsigned long long kib = 0;
	char line[256];
	FILE *f = fopen(MEMINFO, "re");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return (uint64_t)kib * 1024;
}

/* The buffer for @rate bytes/s into @o, and a line saying how it was sized. */
static void set_size(const char *cmd, struct start_opts *o, double secs, double rate,
		     uint32_t cpu, uint32_t ncpus, bool cut)
{
	double period = (o->args.gen_period_ns ? o->args.gen_period_ns :
			 GOTRACE_GEN_PERIOD_NS) / 1e9;
	double span = o->flight_ns / 1e9 + 2 * period;
	double want = (rate * span + span / period * sysconf(_SC_PAGESIZE)) * 1.25;
	uint64_t size = ((uint64_t)want + MIB - 1) / MIB * MIB, limit = SIZE_LIMIT, avail;
	char note[200] = "";

	avail = mem_available();
	if (avail && ncpus && avail / 4 / ncpus < limit)
		limit = avail / 4 / ncpus / MIB * MIB;
	if (limit < SIZE_MIN)
		limit = SIZE_MIN;
	if (size > limit)
		snprintf(note, sizeof(note), ", capped at %" PRIu64 " MiB (1 GiB at most, and a "
			 "quarter of MemAvailable over %u CPUs): snapshots may cover less than %s",
			 limit / MIB, ncpus, o->flight_arg);
	else if (size < SIZE_MIN)
		snprintf(note, sizeof(note), ", raised to the least, %" PRIu64 " MiB",
			 SIZE_MIN / MIB);
	msg_err(cmd, "buffers sized by %.1f s of recording: the busiest CPU (%u) wrote %.2f "
		"%s/s%s; for --flight %s and 2 generations of %g s, a page per generation and a "
		"quarter more: %" PRIu64 " MiB per CPU%s (--buffer-size sets it)", secs, cpu,
		rate < MIB ? rate / 1024 : rate / MIB, rate < MIB ? "KiB" : "MiB",
		cut ? " or more (its buffer ran full)" : "", o->flight_arg, period, size / MIB,
		note);
	o->args.buffer_size = size < SIZE_MIN ? SIZE_MIN : size > limit ? limit : size;
}

/* Blocks SIGINT, SIGTERM and SIGHUP for a signalfd of them; -1 after a message. */
static int own_signals(sigset_t *old)
{
	sigset_t set;
	int fd;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, old);
	fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (fd < 0)
		sigprocmask(SIG_SETMASK, old, NULL);
	return fd;
}

int flight_size(const char *cmd, int ctl_fd, int *rd_fd, int sig_fd, struct start_opts *o)
{
	struct gotrace_start args = o->args;
	struct measure m = { .cmd = cmd, .ctl_fd = ctl_fd, .rd_fd = *rd_fd, .sig_fd = sig_fd };
	struct gotrace_status st;
	uint32_t cpu = 0;
	int64_t max = -1;
	sigset_t old;
	double secs;

	if (sig_fd < 0) {
		m.sig_fd = own_signals(&old);
		if (m.sig_fd < 0) {
			msg_err(cmd, "signalfd: %s", strerror(errno));
			return -1;
		}
	}
	/* A streaming trace: no flight recorder, no latency trigger. */
	args.flags &= ~(uint32_t)GOTRACE_START_FLIGHT;
	args.buffer_size = 0;
	args.gen_bytes = 0;
	args.latency_ns = 0;
	if (!session_start(cmd, ctl_fd, &args))
		goto out;
	o->args.max_tid = args.max_tid;	/* pid_max, read once */
	if (m.rd_fd < 0) {
		m.rd_fd = *rd_fd = device_open_reader(cmd, O_NONBLOCK);
		if (m.rd_fd < 0) {
			if (errno == EBUSY)
				msg_err(cmd, "another program is reading %s (a gotrace record or "
					"cat): sizing the buffers needs it: end it, or give "
					"--buffer-size", GOTRACE_DEVICE);
			session_stop(cmd, ctl_fd, GOTRACE_STOP_NOWAIT, true);
			goto out;
		}
	}
	secs = measure_trace(&m, &st);
	if (secs > 0)
		max = busiest_cpu(&m, st.nr_cpus, &cpu);
	if (max >= 0)
		set_size(cmd, o, secs, max / secs, cpu, st.nr_cpus, st.flags & GOTRACE_STATUS_CUT);
out:
	free(m.buf);
	if (sig_fd < 0) {
		close(m.sig_fd);
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
	if (m.sig)
		return m.sig;
	return max >= 0 ? 0 : -1;
}
