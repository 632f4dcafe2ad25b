// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the gotrace selftests: device, recording, trace checks, module, caps. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include <linux/capability.h>

#include "gotrace_util.h"
#include "tracev2.h"

int gt_dev_open(int flags)
{
	return open(GT_DEV, flags | O_CLOEXEC);
}

/* GOTRACE_START with start @flags (GOTRACE_START_*). */
int gt_start_flags(int fd, __u32 format, __u32 flags, __u64 buffer_size)
{
	struct gotrace_start args = {
		.size = sizeof(args),
		.flags = flags,
		.format = format,
		.buffer_size = buffer_size,
	};

	return ioctl(fd, GOTRACE_START, &args);
}

int gt_start(int fd, __u32 format, __u64 buffer_size)
{
	return gt_start_flags(fd, format, 0, buffer_size);
}

int gt_stop_flags(int fd, __u32 flags)
{
	struct gotrace_stop args = { .size = sizeof(args), .flags = flags };

	return ioctl(fd, GOTRACE_STOP, &args);
}

/* Stop without waiting for the reader: most tests read after stopping. */
int gt_stop(int fd)
{
	return gt_stop_flags(fd, GOTRACE_STOP_NOWAIT);
}

/* Junk first, so that a field the kernel does not write shows. */
int gt_status(int fd, struct gotrace_status *st)
{
	memset(st, GT_JUNK, sizeof(*st));
	st->size = sizeof(*st);
	return ioctl(fd, GOTRACE_STATUS, st);
}

/**
 * gt_start_refused - a start that must fail, starting nothing
 * @fd: the control file
 * @args: the start's arguments; their size is set here
 * @err: the errno it must fail with
 * @why: set to what went wrong otherwise
 * @len: room at @why
 *
 * A start that succeeds is stopped again.
 *
 * Return: 0 if GOTRACE_START failed with @err and no session started; -1.
 */
int gt_start_refused(int fd, struct gotrace_start *args, int err, char *why,
		     size_t len)
{
	struct gotrace_status before, after;
	int ret, e;

	if (gt_status(fd, &before)) {
		snprintf(why, len, "GOTRACE_STATUS: %s", strerror(errno));
		return -1;
	}
	args->size = sizeof(*args);
	ret = ioctl(fd, GOTRACE_START, args);
	e = errno;
	if (!ret) {
		gt_stop(fd);
		snprintf(why, len, "it started");
		return -1;
	}
	if (e != err) {
		snprintf(why, len, "%s, want %s", strerror(e), strerror(err));
		return -1;
	}
	if (gt_status(fd, &after)) {
		snprintf(why, len, "GOTRACE_STATUS after: %s", strerror(errno));
		return -1;
	}
	if (after.sessions != before.sessions ||
	    after.state == GOTRACE_STATE_TRACING) {
		snprintf(why, len, "it started a session");
		return -1;
	}
	return 0;
}

__u32 gt_format_version(__u32 format)
{
	return format == GOTRACE_FORMAT_DEFAULT ? GOTRACE_FORMAT_1_21 : format;
}

/* The 16 bytes a trace of this format starts with. */
const char *gt_header(__u32 format)
{
	switch (gt_format_version(format)) {
	case GOTRACE_FORMAT_1_11:
		return "go 1.11 trace\0\0";
	case GOTRACE_FORMAT_1_19:
		return "go 1.19 trace\0\0";
	case GOTRACE_FORMAT_1_22:
		return "go 1.22 trace\0\0";
	case GOTRACE_FORMAT_1_23:
		return "go 1.23 trace\0\0";
	case GOTRACE_FORMAT_1_25:
		return "go 1.25 trace\0\0";
	case GOTRACE_FORMAT_1_26:
		return "go 1.26 trace\0\0";
	default:
		return "go 1.21 trace\0\0";
	}
}

void gt_buf_free(struct gt_buf *t)
{
	free(t->data);
	memset(t, 0, sizeof(*t));
}

int gt_buf_add(struct gt_buf *t, const void *buf, size_t len)
{
	if (t->len + len > t->cap) {
		size_t cap = t->cap ? t->cap : GT_READ_CHUNK;
		void *data;

		while (cap < t->len + len)
			cap *= 2;
		data = realloc(t->data, cap);
		if (!data)
			return -1;
		t->data = data;
		t->cap = cap;
	}
	memcpy(t->data + t->len, buf, len);
	t->len += len;
	return 0;
}

/*
 * Append everything up to end of file to @t, with reads of @chunk bytes.
 * Works on blocking and non-blocking descriptors; fails with ETIMEDOUT when
 * no data comes for GT_TIMEOUT_MS.
 */
int gt_read_to_eof(int fd, struct gt_buf *t, size_t chunk)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	unsigned char *buf = malloc(chunk);
	int ret = -1;
	ssize_t n;

	if (!buf)
		return -1;
	for (;;) {
		n = poll(&pfd, 1, GT_TIMEOUT_MS);
		if (n == 0) {
			errno = ETIMEDOUT;
			break;
		}
		if (n < 0 && errno != EINTR)
			break;
		n = read(fd, buf, chunk);
		if (n == 0) {
			ret = 0;
			break;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			break;
		if (n > 0 && gt_buf_add(t, buf, n))
			break;
	}
	free(buf);
	return ret;
}

/*
 * Stop the session if it is still tracing, then read the rest of it. A reader
 * that already reached end of file (state IDLE) has nothing more to read.
 */
int gt_finish(int fd, struct gt_buf *t)
{
	struct gotrace_status st;

	if (gt_stop(fd) && errno != EINVAL)
		return -1;
	if (gt_status(fd, &st))
		return -1;
	if (st.state == GOTRACE_STATE_IDLE)
		return 0;
	return gt_read_to_eof(fd, t, GT_READ_CHUNK);
}

/* Bring the device back to IDLE, whatever an earlier test left behind. */
int gt_reset(void)
{
	struct gt_buf rest = { 0 };
	struct gotrace_status st;
	int fd, ret;

	fd = gt_dev_open(O_WRONLY);
	if (fd < 0)
		return -1;
	ret = gt_status(fd, &st);
	close(fd);
	if (ret || st.state == GOTRACE_STATE_IDLE)
		return ret;
	fd = gt_dev_open(O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return -1;
	ret = gt_finish(fd, &rest);
	/* A trace an earlier reader left half read: a new one replaces it. */
	if (ret && errno == EPIPE)
		ret = gt_start(fd, GOTRACE_FORMAT_DEFAULT, 0) ? -1 :
		      gt_finish(fd, &rest);
	gt_buf_free(&rest);
	close(fd);
	return ret;
}

/* The device at IDLE, open for reading: what most tests start from. */
int gt_open_reader(void)
{
	if (gt_reset())
		return -1;
	return gt_dev_open(O_RDONLY);
}

/* Undo gt_open_reader(), whatever the test left the session in. */
int gt_close_reader(int fd)
{
	struct gt_buf rest = { 0 };

	if (fd >= 0) {
		gt_finish(fd, &rest);
		gt_buf_free(&rest);
		close(fd);
	}
	return gt_reset();
}

/* All of @buf to @fd: 0, or -1 with errno set. */
int gt_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/*
 * Write @t to $GOTRACE_TRACE_DIR/FILE for the host. Without
 * GOTRACE_TRACE_DIR, nothing is written.
 */
int gt_save_as(const struct gt_buf *t, const char *file)
{
	const char *dir = getenv("GOTRACE_TRACE_DIR");
	char path[4096];
	int fd;

	if (!dir || !*dir)
		return 0;
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	if (gt_write_all(fd, t->data, t->len) || fsync(fd)) {
		close(fd);
		return -1;
	}
	return close(fd);
}

/*
 * Write a whole trace to $GOTRACE_TRACE_DIR/NAME.trace for the host's Go
 * check. Without GOTRACE_TRACE_DIR, traces are checked here only.
 */
int gt_save(const struct gt_buf *t, const char *name)
{
	char file[256];

	snprintf(file, sizeof(file), "%s.trace", name);
	return gt_save_as(t, file);
}

/* What gt_count_event() counts into, for one trace. */
struct gt_counter {
	const unsigned char *data;
	struct gt_stats *st;
	struct gt_gstats *gs;	/* what goid did, if not NULL */
	__u64 goid;
	int nr_cpus;
	bool *cpu_seen;		/* [nr_cpus] */
	bool have_ts;
};

/*
 * Block, preempt and end events name no goroutine: libgtrace gives them the
 * one their P was running, as Go's parser does.
 */
static void gt_count_goroutine(struct gt_counter *c, const struct gt_event *ev)
{
	struct gt_gstats *gs = c->gs;
	bool arg = ev->args[0] == c->goid, running = ev->g == c->goid;

	switch (ev->type) {
	case GT_EV_GO_START:		/* and GoStartLocal */
	case GT_EV_GO_START_LABEL:
		gs->starts += arg;
		break;
	case GT_EV_GO_CREATE:
		gs->creates += arg;
		break;
	case GT_EV_GO_UNBLOCK:		/* and the Local variants */
	case GT_EV_GO_SYSEXIT:
		gs->unblocks += arg;
		break;
	case GT_EV_GO_END:
	case GT_EV_GO_STOP:
		gs->ends += running;
		break;
	case GT_EV_GO_SCHED:
	case GT_EV_GO_PREEMPT:
		gs->preempts += running;
		break;
	case GT_EV_GO_SLEEP ... GT_EV_GO_BLOCK:
	case GT_EV_GO_BLOCK_SEND ... GT_EV_GO_BLOCK_NET:
	case GT_EV_GO_SYSBLOCK:
	case GT_EV_GO_BLOCK_GC:
		gs->blocks += running;
		break;
	}
}

/*
 * A gt_sink_fn: count the event by the type byte it was written with (Go's
 * parser renames the Local variants), and require its P to be a CPU.
 */
static int gt_count_event(void *ctx, const struct gt_trace *t,
			  const struct gt_event *ev)
{
	struct gt_counter *c = ctx;
	struct gt_stats *st = c->st;
	__u64 ts = ev->ts;

	if (ev->p < GT_P_FAKE) {
		if (ev->p < 0 || ev->p >= c->nr_cpus) {
			snprintf(st->error, sizeof(st->error),
				 "byte offset %llu: %s on P %lld, %d CPUs",
				 (unsigned long long)ev->off,
				 gt_event_name(t, ev->type), (long long)ev->p,
				 c->nr_cpus);
			return 1;
		}
		st->nr_ps += !c->cpu_seen[ev->p];
		c->cpu_seen[ev->p] = true;
	}
	/* A type libgtrace accepted: below GT_EV_COUNT. */
	st->count[c->data[ev->off] & 0x3f]++;
	if (!c->have_ts || ts < st->first_ts)
		st->first_ts = ts;
	if (!c->have_ts || ts > st->last_ts)
		st->last_ts = ts;
	c->have_ts = true;
	if (c->gs)
		gt_count_goroutine(c, ev);
	return 0;
}

/* Open @t with libgtrace and check all of it, counting into @c. */
static int gt_count_trace(const struct gt_buf *t, struct gt_counter *c)
{
	struct gt_stats *st = c->st;
	struct gt_trace *trace;
	struct gt_error err;
	int ret;

	ret = gt_open_mem(t->data, t->len, &trace, &err);
	if (!ret) {
		ret = gt_check(trace, gt_count_event, c, &err);
		st->version = gt_version(trace) - 1000;
		st->frequency = gt_ticks_per_sec(trace);
		st->nr_stacks = gt_stack_ids(trace, NULL, 0);
		gt_close(trace);
	}
	/* A positive return: gt_count_event() said why. */
	if (ret < 0)
		snprintf(st->error, sizeof(st->error), "byte offset %llu: %s",
			 (unsigned long long)err.off, err.msg);
	return ret ? -1 : 0;
}

/*
 * Check a whole trace that was recorded in @format as Go's parser does
 * (libgtrace), and that its events are on this machine's CPUs. Counts
 * what @goid did into @gs, if not NULL. Returns 0, or -1 with the reason
 * in st->error.
 */
int gt_check_goroutine(const struct gt_buf *t, __u32 format, __u64 goid,
		       struct gt_gstats *gs, struct gt_stats *st)
{
	struct gt_counter c = {
		.data = t->data, .st = st, .gs = gs, .goid = goid,
		.nr_cpus = gt_possible_cpus(),
	};
	int ret = -1;

	memset(st, 0, sizeof(*st));
	if (gs)
		memset(gs, 0, sizeof(*gs));
	if (gt_format_modern(format)) {
		struct gt_gens g;

		ret = gt_check_gens(t, format, &g);
		st->version = g.version;
		memcpy(st->error, g.error, sizeof(st->error));
		return ret;
	}
	c.cpu_seen = c.nr_cpus > 0 ? calloc(c.nr_cpus, sizeof(bool)) : NULL;
	if (!c.cpu_seen)
		snprintf(st->error, sizeof(st->error), "no CPUs or no memory");
	else if (!gt_count_trace(t, &c))
		ret = 0;
	free(c.cpu_seen);
	if (!ret && st->version != gt_format_version(format)) {
		snprintf(st->error, sizeof(st->error),
			 "version 1.%u, want 1.%u", st->version,
			 gt_format_version(format));
		ret = -1;
	}
	return ret;
}

/* Formats 1.22 and later: Go's format with generations. */
bool gt_format_modern(__u32 format)
{
	return gt_format_version(format) >= GOTRACE_FORMAT_1_22;
}

/* Where gt_check_gens() is: the generation of the batches so far. */
struct gt_gen_walk {
	struct gt_gens *g;
	__u64 gen;		/* current generation, 0 before the first batch */
	unsigned long sync, strings, stacks, eog;	/* its batches and end marks */
	bool tables;		/* a table batch of it was seen */
};

/* Say in g->error what is wrong at byte @off; returns -1. */
static int __attribute__((format(printf, 3, 4)))
gt_gens_fail(struct gt_gens *g, __u64 off, const char *fmt, ...)
{
	int n = snprintf(g->error, sizeof(g->error), "byte offset %llu: ",
			 (unsigned long long)off);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(g->error + n, sizeof(g->error) - n, fmt, ap);
	va_end(ap);
	return -1;
}

/* The generation w->gen is complete: its tables (and 1.26's end mark). */
static int gt_gen_close(struct gt_gen_walk *w, __u64 off)
{
	struct gt_gens *g = w->g;
	const char *sync = g->version >= 25 ? "Sync" : "Frequency";

	if (w->sync != 1)
		return gt_gens_fail(g, off, "generation %llu has %lu %s batches, want 1",
				    (unsigned long long)w->gen, w->sync, sync);
	if (!w->strings)
		return gt_gens_fail(g, off, "generation %llu has no Strings batch",
				    (unsigned long long)w->gen);
	if (!w->stacks)
		return gt_gens_fail(g, off, "generation %llu has no Stacks batch",
				    (unsigned long long)w->gen);
	if (g->version >= 26 && w->eog != 1)
		return gt_gens_fail(g, off, "generation %llu has %lu EndOfGeneration marks, want 1",
				    (unsigned long long)w->gen, w->eog);
	g->nr_gens++;
	return 0;
}

/*
 * Check a whole Go 1.22+ trace recorded in @format at the wire level, with
 * libgtrace's gt2 reader (userspace/lib/tracev2.h): every event decodes;
 * outside batches there are only batch headers (and, in 1.26, the
 * EndOfGeneration byte); batch generations start at 1 (at g->first_gen
 * for a flight recorder's snapshot) and never go back or skip one; each generation has exactly one Frequency (Sync since 1.25)
 * batch, Strings and Stacks batches, all after its event batches, and in
 * 1.26 ends with exactly one EndOfGeneration, after which no batch of it
 * comes. Also finds the largest goroutine sequence number. Returns 0, or -1
 * with the reason in g->error.
 */
int gt_check_gens(const struct gt_buf *t, __u32 format, struct gt_gens *g)
{
	struct gt_gen_walk w = { .g = g };
	struct gt2_wire_event ev;
	struct gt2_trace *trace;
	struct gt2_wire wire;
	struct gt_error err;
	__u64 batch_end = 0;
	bool first = false;	/* the next event is a batch's first */
	int ret;

	memset(g, 0, sizeof(*g));
	if (gt2_open_mem(t->data, t->len, &trace, &err)) {
		snprintf(g->error, sizeof(g->error), "byte offset %llu: %s",
			 (unsigned long long)err.off, err.msg);
		return -1;
	}
	g->version = gt2_version(trace) - 1000;
	ret = -1;
	if (g->version != gt_format_version(format)) {
		snprintf(g->error, sizeof(g->error), "version 1.%u, want 1.%u",
			 g->version, gt_format_version(format));
		goto out;
	}
	gt2_wire_init(&wire, trace);
	for (;;) {
		int n = gt2_wire_next(&wire, &ev, &err);

		if (n < 0) {
			gt_gens_fail(g, err.off, "%s", err.msg);
			goto out;
		}
		if (!n)
			break;
		g->events++;
		if (ev.off < batch_end) {
			if (ev.end > batch_end) {
				gt_gens_fail(g, ev.off, "%s crosses its batch's end at %llu",
					     ev.name, (unsigned long long)batch_end);
				goto out;
			}
			if ((ev.type == GT2_EV_GO_START || ev.type == GT2_EV_GO_UNBLOCK) &&
			    ev.args[2] > g->max_seq)
				g->max_seq = ev.args[2];	/* after dt and g */
			if (!first)
				continue;
			first = false;
			/* A batch's kind is its first event's, as Go's batch.go says. */
			if (ev.type == (g->version >= 25 ? GT2_EV_SYNC : GT2_EV_FREQUENCY)) {
				w.sync++;
				w.tables = true;
			} else if (ev.type == GT2_EV_STRINGS) {
				w.strings++;
				w.tables = true;
			} else if (ev.type == GT2_EV_STACKS) {
				w.stacks++;
				w.tables = true;
			} else if (ev.type != GT2_EV_CPU_SAMPLES) {
				if (w.tables) {
					gt_gens_fail(g, ev.off, "an event batch of generation %llu after its tables",
						     (unsigned long long)w.gen);
					goto out;
				}
				g->event_batches++;
			}
			continue;
		}
		first = false;
		if (ev.type == GT2_EV_END_OF_GENERATION && g->version >= 26) {
			if (!w.gen || w.eog) {
				gt_gens_fail(g, ev.off, "EndOfGeneration %s",
					     w.gen ? "twice" : "before any batch");
				goto out;
			}
			w.eog++;
			if (gt_gen_close(&w, ev.off))
				goto out;
			continue;
		}
		if (ev.type != GT2_EV_EVENT_BATCH) {
			gt_gens_fail(g, ev.off, "%s (type %u) outside any batch",
				     *ev.name ? ev.name : "unnamed event", ev.type);
			goto out;
		}
		g->batches++;
		if (!w.gen)
			g->first_gen = ev.args[0];
		if (ev.args[0] != w.gen) {
			if (w.gen && ev.args[0] != w.gen + 1) {
				gt_gens_fail(g, ev.off, "a batch of generation %llu after generation %llu",
					     (unsigned long long)ev.args[0],
					     (unsigned long long)w.gen);
				goto out;
			}
			if (w.gen && g->version < 26 && gt_gen_close(&w, ev.off))
				goto out;
			if (w.gen && g->version >= 26 && !w.eog) {
				gt_gens_fail(g, ev.off, "generation %llu has no EndOfGeneration",
					     (unsigned long long)w.gen);
				goto out;
			}
			w = (struct gt_gen_walk){ .g = g, .gen = ev.args[0] };
		} else if (w.eog) {
			gt_gens_fail(g, ev.off, "a batch of generation %llu after its EndOfGeneration",
				     (unsigned long long)w.gen);
			goto out;
		}
		g->last_gen = w.gen;
		batch_end = ev.end + ev.args[3];
		first = ev.args[3] > 0;
	}
	if (batch_end > gt2_size(trace)) {
		gt_gens_fail(g, gt2_size(trace), "the trace ends inside a batch");
		goto out;
	}
	if (!w.gen) {
		gt_gens_fail(g, gt2_size(trace), "no batch at all");
		goto out;
	}
	if (g->version < 26 && gt_gen_close(&w, gt2_size(trace)))
		goto out;
	if (g->version >= 26 && !w.eog) {
		gt_gens_fail(g, gt2_size(trace), "the last generation, %llu, has no EndOfGeneration",
			     (unsigned long long)w.gen);
		goto out;
	}
	ret = 0;
out:
	gt2_close(trace);
	return ret;
}

int gt_check_trace(const struct gt_buf *t, __u32 format, struct gt_stats *st)
{
	return gt_check_goroutine(t, format, 0, NULL, st);
}

/* Goroutines put on a P: every wakeup or creation ends in one of these. */
unsigned long gt_starts(const struct gt_stats *st)
{
	return st->count[GT_EV_GO_START] + st->count[GT_EV_GO_START_LOCAL] +
	       st->count[GT_EV_GO_START_LABEL];
}

/* Goroutines made runnable again: unblocked, or back from a syscall. */
unsigned long gt_wakeups(const struct gt_stats *st)
{
	return st->count[GT_EV_GO_UNBLOCK] + st->count[GT_EV_GO_UNBLOCK_LOCAL] +
	       st->count[GT_EV_GO_SYSEXIT] + st->count[GT_EV_GO_SYSEXIT_LOCAL];
}

/*
 * Save a whole trace as NAME.trace for the host's Go check (even a malformed
 * one, to look at), then check it like gt_check_trace().
 */
int gt_keep_trace(const struct gt_buf *t, __u32 format, struct gt_stats *st,
		  const char *name)
{
	if (gt_save(t, name)) {
		memset(st, 0, sizeof(*st));
		snprintf(st->error, sizeof(st->error), "saving %.64s: %s", name,
			 strerror(errno));
		return -1;
	}
	return gt_check_trace(t, format, st);
}

/*
 * Open the device for a session in @format, not started: the reader (from
 * an idle device, see gt_open_reader()) and a control file.
 */
int gt_session_open(struct gt_session *s, __u32 format)
{
	memset(s, 0, sizeof(*s));
	s->format = format;
	s->ctl = -1;
	s->fd = gt_open_reader();
	if (s->fd < 0)
		return -1;
	s->ctl = gt_dev_open(O_WRONLY);
	return s->ctl < 0 ? -1 : 0;
}

/*
 * From IDLE: open the device for reading and for the ioctls, start a session
 * in @format with start @flags and a recorder reading it. On failure,
 * gt_session_close() still cleans up.
 */
int gt_session_start_flags(struct gt_session *s, __u32 format, __u32 flags)
{
	if (gt_session_open(s, format) || gt_start_flags(s->ctl, format, flags, 0))
		return -1;
	if (gt_recorder_start(&s->rec, s->fd, GT_READ_CHUNK))
		return -1;
	s->recording = true;
	return 0;
}

int gt_session_start(struct gt_session *s, __u32 format)
{
	return gt_session_start_flags(s, format, 0);
}

/*
 * Stop the session (unless already stopped) as StopTrace does, returning
 * once the recorder has read it to the end, and keep the trace as
 * NAME.trace; the trace stays in s->rec.trace until gt_session_close().
 * Returns 0, or -1 with the reason in st->error.
 */
int gt_session_stop(struct gt_session *s, struct gt_stats *st, const char *name)
{
	memset(st, 0, sizeof(*st));
	if (!s->recording) {
		snprintf(st->error, sizeof(st->error), "not recording");
		return -1;
	}
	s->recording = false;
	if (gt_stop_flags(s->ctl, 0) && errno != EINVAL) {
		snprintf(st->error, sizeof(st->error), "GOTRACE_STOP: %s",
			 strerror(errno));
		return -1;
	}
	if (gt_recorder_join(&s->rec)) {
		snprintf(st->error, sizeof(st->error), "reading the trace: %s",
			 strerror(errno));
		return -1;
	}
	return gt_keep_trace(&s->rec.trace, s->format, st, name);
}

/* gt_session_stop(), then free the trace. */
int gt_session_end(struct gt_session *s, struct gt_stats *st, const char *name)
{
	int ret = gt_session_stop(s, st, name);

	gt_buf_free(&s->rec.trace);
	return ret;
}

/* Undo gt_session_start(), whatever state the session was left in. */
int gt_session_close(struct gt_session *s)
{
	if (s->recording) {
		s->recording = false;
		gt_stop(s->ctl);
		gt_recorder_join(&s->rec);
	}
	gt_buf_free(&s->rec.trace);
	if (s->ctl >= 0)
		close(s->ctl);
	return gt_close_reader(s->fd);
}

static void *gt_recorder_main(void *arg)
{
	struct gt_recorder *r = arg;
	unsigned char *buf = malloc(r->chunk);
	ssize_t n;

	__atomic_store_n(&r->tid, gettid(), __ATOMIC_RELEASE);
	r->error = buf ? 0 : ENOMEM;
	while (buf) {
		n = read(r->fd, buf, r->chunk);
		if (n == 0)
			break;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || gt_buf_add(&r->trace, buf, n)) {
			r->error = n < 0 ? errno : ENOMEM;
			break;
		}
		__atomic_store_n(&r->bytes, r->trace.len, __ATOMIC_RELEASE);
	}
	free(buf);
	__atomic_store_n(&r->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/* Read @fd in a new thread, @chunk bytes at a time, until end of file. */
int gt_recorder_start(struct gt_recorder *r, int fd, size_t chunk)
{
	int err;

	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->chunk = chunk;
	err = pthread_create(&r->thread, NULL, gt_recorder_main, r);
	if (err) {
		errno = err;
		return -1;
	}
	while (!__atomic_load_n(&r->tid, __ATOMIC_ACQUIRE))
		sched_yield();
	return 0;
}

size_t gt_recorder_bytes(struct gt_recorder *r)
{
	return __atomic_load_n(&r->bytes, __ATOMIC_ACQUIRE);
}

bool gt_recorder_done(struct gt_recorder *r)
{
	return __atomic_load_n(&r->done, __ATOMIC_ACQUIRE);
}

/*
 * Wait for the recorder to reach end of file (call after GOTRACE_STOP).
 * A recorder that does not finish within GT_TIMEOUT_MS is cancelled and the
 * join fails with ETIMEDOUT; so does one whose read() failed, with its errno.
 */
int gt_recorder_join(struct gt_recorder *r)
{
	struct timespec deadline;
	int err;

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += GT_TIMEOUT_MS / 1000;
	err = pthread_timedjoin_np(r->thread, NULL, &deadline);
	if (err == ETIMEDOUT) {
		pthread_cancel(r->thread);
		pthread_join(r->thread, NULL);
	}
	if (!err)
		err = r->error;
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

static void gt_on_signal(int sig)
{
	(void)sig;
}

/* Make @sig interrupt system calls (EINTR) instead of restarting them. */
int gt_interrupt_with(int sig)
{
	struct sigaction sa = { .sa_handler = gt_on_signal };

	return sigaction(sig, &sa, NULL);
}

/* Number of CPUs in /sys/devices/system/cpu/possible, e.g. "0-1,4". */
int gt_possible_cpus(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/possible", "re");
	unsigned int first, last;
	int n = 0;
	char sep;

	if (!f)
		return -1;
	for (;;) {
		if (fscanf(f, "%u", &first) != 1)
			break;
		last = first;
		sep = fgetc(f);
		if (sep == '-') {
			if (fscanf(f, "%u", &last) != 1)
				break;
			sep = fgetc(f);
		}
		n += last - first + 1;
		if (sep != ',')
			break;
	}
	fclose(f);
	return n;
}

__u64 gt_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

void gt_msleep(unsigned int ms)
{
	struct timespec ts = {
		.tv_sec = ms / 1000,
		.tv_nsec = (ms % 1000) * 1000000L,
	};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Task @tid's switches as the kernel counts them (/proc/TID/status). */
int gt_read_switches(pid_t tid, struct gt_switches *sw)
{
	char path[64], line[128];
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "voluntary_ctxt_switches: %lu", &sw->nv) == 1)
			found++;
		if (sscanf(line, "nonvoluntary_ctxt_switches: %lu", &sw->niv) == 1)
			found++;
	}
	fclose(f);
	return found == 2 ? 0 : -1;
}

/* Whether task @tid is asleep (state S in /proc), waiting up to @ms for it. */
bool gt_wait_blocked(pid_t tid, unsigned int ms)
{
	__u64 deadline = gt_now_ms() + ms;
	char path[64], stat[512], *paren;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", tid);
	do {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return false;
		n = read(fd, stat, sizeof(stat) - 1);
		close(fd);
		if (n <= 0)
			return false;
		stat[n] = '\0';
		paren = strrchr(stat, ')');
		if (paren && paren[1] == ' ' && paren[2] == 'S')
			return true;
		gt_msleep(10);
	} while (gt_now_ms() < deadline);
	return false;
}

/*
 * A test's size parameter: the number in environment variable @name, or
 * @def if it is unset or not a number.
 */
unsigned long gt_env_ulong(const char *name, unsigned long def)
{
	const char *v = getenv(name);
	unsigned long n;
	char *end;

	if (!v || !*v)
		return def;
	errno = 0;
	n = strtoul(v, &end, 0);
	return errno || *end ? def : n;
}

int gt_read_ulong(const char *path, unsigned long *val)
{
	FILE *f = fopen(path, "re");
	int ret;

	if (!f)
		return -1;
	ret = fscanf(f, "%lu", val) == 1 ? 0 : -1;
	fclose(f);
	if (ret)
		errno = EINVAL;
	return ret;
}

int gt_write_file(const char *path, const char *val)
{
	size_t len = strlen(val);
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = write(fd, val, len);
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

int gt_write_ulong(const char *path, unsigned long val)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lu\n", val);
	return gt_write_file(path, buf);
}

/*
 * Remove @caps (a mask of GT_CAP(CAP_*)) from the effective, permitted and
 * inheritable sets of the calling thread. The uid stays what it is.
 */
int gt_drop_caps(__u64 caps)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	int i;

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	for (i = 0; i < _LINUX_CAPABILITY_U32S_3; i++) {
		__u32 mask = caps >> (32 * i);

		data[i].effective &= ~mask;
		data[i].permitted &= ~mask;
		data[i].inheritable &= ~mask;
	}
	return syscall(SYS_capset, &hdr, data);
}

/*
 * Run @fn in a child process without @caps; the child inherits open files.
 * Returns @fn's result (its exit status), or -1 if the child could not run
 * it. @fn reports details through shared memory.
 */
int gt_run_without_caps(__u64 caps, int (*fn)(void *arg), void *arg)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(gt_drop_caps(caps) ? 127 : fn(arg));
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* finit_module() of $GOTRACE_KO with @params. */
int gt_load_module(const char *params)
{
	const char *path = getenv("GOTRACE_KO");
	int fd, ret;

	if (!path || !*path) {
		errno = ENOENT;
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = syscall(SYS_finit_module, fd, params, 0);
	close(fd);
	return ret;
}

/* What rmmod does: fail with EBUSY rather than wait while in use. */
int gt_unload_module(void)
{
	return syscall(SYS_delete_module, "gotrace", O_NONBLOCK);
}

bool gt_module_loaded(void)
{
	return !access("/sys/module/gotrace", F_OK);
}
