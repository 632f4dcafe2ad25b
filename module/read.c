// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace reader: the trace as one byte stream, as Go's ReadTrace serves it.
 *
 * The stream is the 16-byte header, then every committed chunk (one Go batch
 * each) in the order its CPU committed them, CPUs taken in turn, then after
 * GOTRACE_STOP the footer, then end of file. With generations (formats 1.22
 * and later), Go reads one generation after the other: the chunks of the
 * generation being read, then once it is closed (generations.c) and they
 * are all read, its tables (footer.c), then the next one's; end of file
 * after the last one's tables, once stopped. The position in the stream is
 * kept in the session, so reads of any size return the same bytes. A
 * flight recorder's stream is each snapshot (flight.c) in turn, served as
 * a stopped trace is from the snapshot's own rings, each ending with end of
 * file; after a stop and the last snapshot, end of file for good.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/minmax.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include "buffer.h"
#include "clock.h"
#include "cpu.h"
#include "dev.h"
#include "encode_tracev2.h"
#include "flight.h"
#include "footer.h"
#include "session.h"

static int gotrace_next_cpu(int cpu)
{
	cpu = cpumask_next(cpu, cpu_possible_mask);
	return cpu < nr_cpu_ids ? cpu : cpumask_first(cpu_possible_mask);
}

/* The ring the reader takes a CPU's chunks from: a snapshot's, if any. */
static struct gotrace_ring *gotrace_read_ring(struct gotrace_session *s,
					      int cpu)
{
	return s->flight.snap ? &s->flight.snap->rings[cpu] : &per_cpu_ptr(s->cpus, cpu)->ring;
}

/*
 * A CPU's oldest committed chunk, if it is one to read now: with
 * generations, only one of the generation being read. @len is 0 when
 * there is none: the caller tells chunks from the footer by it.
 */
static const u8 *gotrace_read_peek(struct gotrace_session *s, int cpu,
				   u32 *len)
{
	const u8 *chunk = gotrace_buf_peek(gotrace_read_ring(s, cpu), len);

	/* With generations, one generation's batches at a time. */
	if (chunk && s->v2 && gotrace2_batch_gen(chunk) != READ_ONCE(s->rd.gen))
		chunk = NULL;
	if (!chunk)
		*len = 0;
	return chunk;
}

/* The chunk to read from next: the current one, else the next CPU's. */
static const u8 *gotrace_read_chunk(struct gotrace_session *s, u32 *len)
{
	int cpu = s->rd.cpu, i;
	const u8 *chunk;

	for (i = 0; i < num_possible_cpus(); i++) {
		chunk = gotrace_read_peek(s, cpu, len);
		if (chunk) {
			s->rd.cpu = cpu;
			return chunk;
		}
		if (s->rd.off)	/* a chunk being read is never given back */
			break;
		cpu = gotrace_next_cpu(cpu);
	}
	return NULL;
}

static void gotrace_read_advance_chunk(struct gotrace_session *s, u32 len,
				       size_t n)
{
	s->rd.off += n;
	if (s->rd.off < len)
		return;
	gotrace_buf_release(gotrace_read_ring(s, s->rd.cpu));
	s->rd.off = 0;
	s->rd.cpu = gotrace_next_cpu(s->rd.cpu);
}

/*
 * The generation whose tables the reader may write, the last closed one;
 * all of them once the trace is stopped (@stopped, read with acquire) or
 * of a snapshot.
 */
static u32 gotrace_read_closed(struct gotrace_session *s, bool stopped)
{
	if (s->flight.snap)
		return s->flight.snap->last_gen;
	/* Pairs with the release in gotrace_gens_next(): chunks first. */
	return stopped ? s->gen.cur : smp_load_acquire(&s->gen.closed);
}

/* Set the reader up for a flight recorder's snapshot of first generation @gen. */
static void gotrace_read_rewind(struct gotrace_session *s, u32 gen)
{
	WRITE_ONCE(s->rd.hdr, 0);
	s->rd.cpu = cpumask_first(cpu_possible_mask);
	s->rd.off = 0;
	s->rd.footer = 0;
	s->footer.len = 0;
	s->footer.phase = GOTRACE_F_UNPREPARED;
	WRITE_ONCE(s->rd.gen, gen);
}

/*
 * With generations: the tables of the generation being read are written;
 * on to the next generation. False once the last one is done.
 */
static bool gotrace_read_next_gen(struct gotrace_session *s, u32 closed)
{
	WRITE_ONCE(s->rd.gen, s->rd.gen + 1);
	s->footer.phase = GOTRACE_F_UNPREPARED;
	return s->rd.gen <= closed;
}

/* Whether footer bytes are left, generating the next page if needed. */
static bool gotrace_read_footer(struct gotrace_session *s)
{
	if (s->footer.phase == GOTRACE_F_UNPREPARED)
		gotrace_footer_prepare(s, gotrace_clock(s));
	if (s->rd.footer == s->footer.len) {
		s->footer.len = gotrace_footer_fill(s);
		s->rd.footer = 0;
		WRITE_ONCE(s->footer.bytes, s->footer.bytes + s->footer.len);
	}
	return s->footer.len;
}

static bool gotrace_read_stopped(struct gotrace_session *s)
{
	/* Pairs with the release in gotrace_session_stop(): chunks first. */
	return smp_load_acquire(&s->state) == GOTRACE_SESS_STOPPED;
}

/*
 * A flight recorder's reader: whether a snapshot is there to read, set up to
 * be read from its start the first time; sets @eof when there is none and
 * the session has stopped.
 */
static bool gotrace_read_snapshot(struct gotrace_session *s, bool *eof)
{
	/* Pairs with the release in gotrace_flight_snapshot(): copy first. */
	struct gotrace_flight_snap *snap = smp_load_acquire(&s->flight.snap);

	if (!snap) {
		*eof = gotrace_read_stopped(s);
		return false;
	}
	/*
	 * A snapshot not read yet: from its start. @s->flight.snapshots
	 * changes only while no snapshot is set.
	 */
	if (s->rd.snapshot != s->flight.snapshots) {
		gotrace_read_rewind(s, snap->first_gen);
		WRITE_ONCE(s->rd.snapshot, s->flight.snapshots);
	}
	return true;
}

/*
 * Copy what is available now. Returns the bytes copied or -EFAULT; sets
 * @eof when the whole trace has been read.
 */
static ssize_t gotrace_copy(struct gotrace_session *s, char __user *buf,
			    size_t count, bool *eof)
{
	size_t done = 0;

	if (s->flight.on && !gotrace_read_snapshot(s, eof))
		return 0;
	while (done < count) {
		/* A snapshot is served whole; else as soon as stopped. */
		bool stopped = s->flight.on || gotrace_read_stopped(s);
		/* With generations, tables follow each closed one; else the footer the end. */
		u32 closed = s->v2 ? gotrace_read_closed(s, stopped) : 0;
		const void *src = NULL;
		u32 len = 0;
		size_t n;

		if (s->rd.hdr >= sizeof(s->header))
			src = gotrace_read_chunk(s, &len);
		if (s->rd.hdr < sizeof(s->header)) {
			src = s->header + s->rd.hdr;
			n = sizeof(s->header) - s->rd.hdr;
		} else if (src) {
			src += s->rd.off;
			n = len - s->rd.off;
		} else if ((s->v2 ? s->rd.gen <= closed : stopped) &&
			   gotrace_read_footer(s)) {
			src = s->footer.page + s->rd.footer;
			n = s->footer.len - s->rd.footer;
		} else if (s->v2 && s->rd.gen <= closed &&
			   gotrace_read_next_gen(s, closed)) {
			continue;
		} else {
			*eof = stopped;
			break;
		}

		n = min(n, count - done);
		if (copy_to_user(buf + done, src, n))
			return done ? done : -EFAULT;
		done += n;
		if (s->rd.hdr < sizeof(s->header))
			s->rd.hdr += n;
		else if (len)
			gotrace_read_advance_chunk(s, len, n);
		else
			s->rd.footer += n;
	}
	WRITE_ONCE(s->rd.bytes, s->rd.bytes + done);
	return done;
}

static bool gotrace_session_readable(struct gotrace_session *s)
{
	/* Pairs with the release in gotrace_session_stop(). */
	int state = smp_load_acquire(&s->state);
	int cpu;

	if (state == GOTRACE_SESS_DONE)
		return false;
	if (s->flight.on)
		return state == GOTRACE_SESS_STOPPED || READ_ONCE(s->flight.snap);
	if (state == GOTRACE_SESS_STOPPED || READ_ONCE(s->rd.broken) ||
	    READ_ONCE(s->rd.hdr) < sizeof(s->header))
		return true;
	/* Pairs with the release in gotrace_gens_next(). */
	if (s->v2 && READ_ONCE(s->rd.gen) <= smp_load_acquire(&s->gen.closed))
		return true;
	/* With generations, a batch of the one being read; else a full chunk. */
	for_each_possible_cpu(cpu) {
		u32 len;

		if (s->v2 ? !!gotrace_read_peek(s, cpu, &len) :
			    gotrace_buf_full(&per_cpu_ptr(s->cpus, cpu)->ring))
			return true;
	}
	return false;
}

/**
 * gotrace_readable - whether read() would return without waiting
 * @dev: the device
 *
 * Return: true if @dev has a session that is not read to its end and whose
 * header is not all read, that is stopped, that an earlier reader left half
 * read (read() then fails with -EPIPE), or that has a committed chunk on
 * some CPU; false otherwise.
 */
bool gotrace_readable(struct gotrace_dev *dev)
{
	struct gotrace_session *s;
	bool ret;

	rcu_read_lock();
	s = rcu_dereference(dev->sess);
	ret = s && gotrace_session_readable(s);
	rcu_read_unlock();
	return ret;
}

/*
 * The session to read, NULL, or ERR_PTR(-EPIPE) if an earlier reader left
 * it half read. It cannot be freed under the reader: a start replaces a
 * session only once it is done (which only the reader makes it) or while
 * no reader has the device open.
 */
static struct gotrace_session *gotrace_reader_session(struct gotrace_dev *dev)
{
	struct gotrace_session *s;

	mutex_lock(&dev->lock);
	s = gotrace_dev_sess(dev);
	if (s && s->state == GOTRACE_SESS_DONE)
		s = NULL;
	else if (s && s->rd.broken)
		s = ERR_PTR(-EPIPE);
	mutex_unlock(&dev->lock);
	return s;
}

/*
 * Wait for data, a session or the end. Probes wake the reader only when a
 * quarter of a ring is full (buffer.c), so while a session records, look
 * again after GOTRACE_READ_LATENCY: a chunk committed since is returned.
 */
static int gotrace_read_wait(struct gotrace_dev *dev, struct gotrace_session *s)
{
	long ret;

	/* Pairs with the release in gotrace_session_stop(). */
	if (!s || smp_load_acquire(&s->state) != GOTRACE_SESS_TRACING)
		return wait_event_interruptible(dev->wq, gotrace_readable(dev));
	ret = wait_event_interruptible_timeout(dev->wq, gotrace_readable(dev),
					       GOTRACE_READ_LATENCY);
	return ret < 0 ? ret : 0;
}

/**
 * gotrace_read - read() of /dev/gotrace
 * @dev: the device
 * @buf: user buffer
 * @count: its size
 * @nonblock: O_NONBLOCK
 *
 * Blocks until some of the trace is available (or a session starts); with
 * @nonblock, returns -EAGAIN at once instead, also while another read()
 * of the device waits.
 *
 * Return: bytes read, 0 at the end of a trace, -EAGAIN, -EFAULT, -EPIPE
 * (see gotrace_session_reader_gone()) or -ERESTARTSYS.
 */
ssize_t gotrace_read(struct gotrace_dev *dev, char __user *buf, size_t count,
		     bool nonblock)
{
	struct gotrace_session *s;
	bool eof = false;
	ssize_t ret;

	if (!count)
		return 0;
	if (nonblock) {
		if (!mutex_trylock(&dev->read_lock))
			return -EAGAIN;
	} else if (mutex_lock_interruptible(&dev->read_lock)) {
		return -ERESTARTSYS;
	}
	for (;;) {
		s = gotrace_reader_session(dev);
		if (IS_ERR(s)) {
			ret = PTR_ERR(s);
			break;
		}
		if (s) {
			ret = gotrace_copy(s, buf, count, &eof);
			if (ret)
				break;
			if (eof) {
				mutex_lock(&dev->lock);
				if (s->flight.snap)
					gotrace_flight_read_done(dev, s);
				else
					gotrace_session_done(dev, s);
				mutex_unlock(&dev->lock);
				break;
			}
		}
		ret = -EAGAIN;
		if (nonblock)
			break;
		ret = gotrace_read_wait(dev, s);
		if (ret)
			break;
	}
	mutex_unlock(&dev->read_lock);
	return ret;
}
