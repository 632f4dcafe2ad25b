// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace sessions: allocation, start, stop (as StopTrace) and status.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/irq_work.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "annotate_events.h"
#include "buffer.h"
#include "clock.h"
#include "compat.h"
#include "continue.h"
#include "cpu.h"
#include "dev.h"
#include "filter.h"
#include "flight.h"
#include "footer.h"
#include "generations.h"
#include "gfp.h"
#include "kstacks.h"
#include "probes.h"
#include "programs.h"
#include "record.h"
#include "samples.h"
#include "session.h"
#include "stacks.h"
#include "start_snapshot.h"
#include "threads.h"
#include "transitions.h"
#include "trigger.h"

/*
 * Free the buffers and the tables; counters stay for status. Once: when the
 * trace was read to the end (GOTRACE_SESS_DONE), else when @s is freed.
 */
static void gotrace_session_release(struct gotrace_session *s)
{
	int cpu;

	for_each_possible_cpu(cpu)
		gotrace_buf_free(&per_cpu_ptr(s->cpus, cpu)->ring);
	gotrace_flight_free(s->flight.snap);
	s->flight.snap = NULL;
	gotrace_table_free(&s->table);
	kfree(s->aliases);
	gotrace_progs_free(s->progs);
	gotrace_kstacks_free(s->kstacks);
	gotrace_srings_free(s->samples.rings);
	gotrace_stacks_free(s->stacks);
	gotrace_ann_free(s->ann);
	kvfree(s->footer.page);
}

static void gotrace_session_free(struct gotrace_session *s)
{
	gotrace_samples_stop(s);
	if (s->state != GOTRACE_SESS_DONE)
		gotrace_session_release(s);
	gotrace_trig_free(s->trig);
	gotrace_filter_put(s->filter);
	free_percpu(s->cpus);
	kfree(s);
}

/*
 * Whether a session's buffers fit in the memory available now. As ftrace
 * checks before growing its ring buffers: asking for more would only make
 * the kernel reclaim all it can before failing anyway. The thread table
 * grows with the threads (thread_table.c).
 */
static bool gotrace_session_fits(const struct gotrace_start_args *args)
{
	u64 bytes = num_possible_cpus() * args->buffer_size;

	return (bytes >> PAGE_SHIFT) < (u64)si_mem_available();
}

static struct gotrace_session *
gotrace_session_alloc(struct gotrace_dev *dev,
		      const struct gotrace_start_args *args)
{
	u64 buffer_size = args->buffer_size;
	struct gotrace_session *s;
	u32 max_tid = args->max_tid;
	int cpu;

	s = kzalloc(sizeof(*s), GOTRACE_GFP);
	if (!s)
		return NULL;
	s->args = *args;
	s->filter = gotrace_filter_get(args->filter);
	s->dev = dev;
	s->chain.on = args->flags & GOTRACE_START_CONTINUE;
	/* A cut tells the chain (gotrace_session_cut_kick()) through this. */
	if (s->chain.on)
		s->cut_notify = &dev->cut_kick;
	s->format = args->format;
	s->v2 = args->format >= GOTRACE_FORMAT_1_22;
	s->flight.on = args->flags & GOTRACE_START_FLIGHT;
	s->wq = &dev->wq;
	s->buffer_size = buffer_size;
	s->max_tid = max_tid;
	s->rd.cpu = cpumask_first(cpu_possible_mask);
	snprintf(s->header, sizeof(s->header), "go 1.%u trace", args->format);
	gotrace_clock_init(s, args->flags);

	s->cpus = alloc_percpu_gfp(struct gotrace_cpu, GOTRACE_GFP);
	if (!s->cpus)
		goto err_free;
	for_each_possible_cpu(cpu) {
		struct gotrace_cpu *c = per_cpu_ptr(s->cpus, cpu);

		c->cpu = cpu;
		if (gotrace_buf_alloc(&c->ring, cpu, buffer_size, &dev->wq))
			goto err_free;
		if (s->flight.on)
			gotrace_buf_set_overwrite(&c->ring);
	}
	s->aliases = kcalloc(GOTRACE_ALIASES, sizeof(*s->aliases), GOTRACE_GFP);
	s->progs = gotrace_progs_alloc();
	s->stacks = gotrace_stacks_alloc();
	s->ann = gotrace_ann_alloc();
	s->footer.page = kvmalloc(GOTRACE_FOOTER_PAGE, GOTRACE_GFP);
	if (gotrace_table_alloc(&s->table) || !s->aliases ||
	    !s->progs || !s->stacks || !s->ann || !s->footer.page)
		goto err_free;
	if ((args->flags & GOTRACE_START_KSTACKS) || args->cpu_sample_hz) {
		s->kstacks = gotrace_kstacks_alloc();
		if (!s->kstacks)
			goto err_free;
	}
	/* Generations' state, and the sample rings their batches need. */
	if (s->v2) {
		if (args->cpu_sample_hz) {
			s->samples.rings = gotrace_srings_alloc();
			if (!s->samples.rings)
				goto err_free;
		}
		gotrace_gens_init(s, args->gen_period_ns, args->gen_bytes);
	}
	if (args->latency_ns) {
		s->trig = gotrace_trig_alloc(s, args->latency_ns);
		if (!s->trig)
			goto err_free;
	}
	return s;

err_free:
	if (s->cpus)
		gotrace_session_release(s);
	gotrace_trig_free(s->trig);
	gotrace_filter_put(s->filter);
	free_percpu(s->cpus);
	kfree(s);
	return NULL;
}

static void gotrace_session_sync_wake(struct gotrace_session *s)
{
	int cpu;

	for_each_possible_cpu(cpu)
		irq_work_sync(&per_cpu_ptr(s->cpus, cpu)->ring.wake);
}

/*
 * gotrace_session_begin - snapshot, then record; replaces the old session
 * @dev: the device, locked
 * @args: what the start asks for, checked
 * @resumed: the old session is a cut trace of a GOTRACE_START_CONTINUE
 *	chain, read to its end: the new one follows it (continue.c)
 *
 * The old session, if any, stops being recorded into when the new one's
 * snapshot publishes it; it is freed. When @resumed, the new session
 * reports the gap: the events the old one counted as lost until then.
 *
 * Return: 0, -ENOMEM, -ENOSPC or -ERANGE (see gotrace_snapshot()), or an
 * error of gotrace_samples_start().
 */
static int gotrace_session_begin(struct gotrace_dev *dev,
				 const struct gotrace_start_args *args,
				 bool resumed)
{
	struct gotrace_session *old = gotrace_dev_sess(dev), *s;
	int ret;

	lockdep_assert_held(&dev->lock);
	if (!gotrace_session_fits(args))
		return -ENOMEM;
	s = gotrace_session_alloc(dev, args);
	if (!s)
		return -ENOMEM;
	ret = gotrace_probes_attach();
	if (ret)
		goto err_free;
	ret = gotrace_samples_start(s);
	if (ret)
		goto err_free;
	ret = gotrace_table_prepare(s);
	if (ret)
		goto err_free;
	ret = gotrace_snapshot(s);
	if (ret)
		goto err_sync;
	gotrace_table_start(&s->table);
	if (s->v2)	/* only the format with generations has them */
		gotrace_gens_start(s);

	s->state = GOTRACE_SESS_TRACING;
	rcu_assign_pointer(dev->sess, s);
	dev->sessions++;
	if (old) {
		/* gotrace_readable() and probes of a cut one may still look at it. */
		synchronize_rcu();
		if (resumed)
			gotrace_cont_gap(s, old);
		gotrace_session_free(old);
	}
	wake_up_interruptible(&dev->wq);
	return 0;

err_sync:
	gotrace_session_sync_wake(s);
err_free:
	gotrace_session_free(s);
	return ret;
}

/**
 * gotrace_session_start - GOTRACE_START
 * @dev: the device, locked
 * @args: what the start asks for, checked
 *
 * A stopped trace nobody is reading is discarded; one that a reader holds
 * open must be read to the end first, unless an earlier reader left it
 * half read (it cannot be read any more).
 *
 * Return: 0, -EBUSY, or an error of gotrace_session_begin().
 */
int gotrace_session_start(struct gotrace_dev *dev,
			  const struct gotrace_start_args *args)
{
	struct gotrace_session *old = gotrace_dev_sess(dev);

	lockdep_assert_held(&dev->lock);
	if (old && (old->state == GOTRACE_SESS_TRACING ||
		    (old->state == GOTRACE_SESS_STOPPED && dev->reader_open &&
		     !old->rd.broken)))
		return -EBUSY;
	return gotrace_session_begin(dev, args, false);
}

/*
 * End the trace at @ts: what each P runs gets a GoSched and each P a
 * ProcStop; the partial batches are committed and the footer is set up, so
 * the reader gets the rest of the trace and then end of file. No probe
 * writes into @s any more.
 */
static void gotrace_session_close(struct gotrace_dev *dev,
				  struct gotrace_session *s, u64 ts)
{
	int cpu;

	lockdep_assert_held(&dev->lock);
	gotrace_samples_stop(s);
	if (s->v2)	/* only the format with generations has them */
		gotrace_gens_stop(s);
	gotrace_trig_stop(s->trig);
	gotrace_table_stop(&s->table);
	for_each_possible_cpu(cpu)
		gotrace_proc_close(per_cpu_ptr(s->cpus, cpu), ts);
	gotrace_session_sync_wake(s);
	for_each_possible_cpu(cpu)
		gotrace_buf_flush(&per_cpu_ptr(s->cpus, cpu)->ring);
	/* With generations, the reader sets each one's tables up. */
	if (!s->v2)
		gotrace_footer_prepare(s, ts);

	/* Pairs with the acquire in the reader: chunks and footer first. */
	smp_store_release(&s->state, GOTRACE_SESS_STOPPED);
	wake_up_interruptible(&dev->wq);
}

/**
 * gotrace_session_stop - GOTRACE_STOP: end the trace as StopTrace does
 * @dev: the device, locked
 *
 * Recording stops at once. What each P runs gets a GoSched and each P a
 * ProcStop, stamped when recording stopped (or was cut short); the partial
 * batches are committed and the footer is set up, so the reader gets the
 * rest of the trace and then end of file.
 *
 * Return: 0, or -EINVAL if no trace is being recorded.
 */
int gotrace_session_stop(struct gotrace_dev *dev)
{
	struct gotrace_session *s = gotrace_dev_sess(dev);
	u64 ts;

	lockdep_assert_held(&dev->lock);
	if (s && s->state == GOTRACE_SESS_STOPPED && s->chain.on) {
		gotrace_cont_cancel(dev, s);
		return 0;
	}
	if (!s || s->state != GOTRACE_SESS_TRACING)
		return -EINVAL;
	ts = gotrace_clock(s);

	xchg(&s->mode, GOTRACE_MODE_OFF);
	s->chain.on = false;
	/* After this, no probe is writing into @s nor will. */
	gotrace_record_publish(NULL);
	if (s->cut_ts)
		ts = s->cut_ts;
	gotrace_session_close(dev, s, ts);
	return 0;
}

/*
 * gotrace_session_end_cut - end a cut trace now, still counting losses
 * @dev: the device, locked
 * @s: its session, recording, cut short
 *
 * As a stop, but @s stays the probes' session: in GOTRACE_MODE_CUT they
 * only count the events they do not record, until the next session of a
 * GOTRACE_START_CONTINUE chain replaces it (continue.c).
 */
static void gotrace_session_end_cut(struct gotrace_dev *dev,
				    struct gotrace_session *s)
{
	lockdep_assert_held(&dev->lock);
	/*
	 * A probe that saw GOTRACE_MODE_ON before the cut may still write
	 * into a buffer: wait until every one has returned (they run with
	 * preemption off).
	 */
	synchronize_rcu();
	gotrace_session_close(dev, s, READ_ONCE(s->cut_ts));
}

/* A cut in a chain's session: end its trace now (takes gotrace_dev.lock). */
static void gotrace_session_cut_work(struct work_struct *work)
{
	struct gotrace_dev *dev = container_of(work, struct gotrace_dev, cut_work);
	struct gotrace_session *s;

	mutex_lock(&dev->lock);
	s = gotrace_dev_sess(dev);
	/* A stop or another start may have come first. */
	if (s && s->chain.on && s->state == GOTRACE_SESS_TRACING &&
	    READ_ONCE(s->mode) == GOTRACE_MODE_CUT)
		gotrace_session_end_cut(dev, s);
	mutex_unlock(&dev->lock);
}

/* The cut's notification (s->cut_notify), out of the scheduler's locks. */
static void gotrace_session_cut_kick(struct irq_work *work)
{
	struct gotrace_dev *dev = container_of(work, struct gotrace_dev, cut_kick);

	schedule_work(&dev->cut_work);
}

/**
 * gotrace_session_init - set up the device's chain machinery, at module load
 * @dev: the device
 */
void gotrace_session_init(struct gotrace_dev *dev)
{
	init_irq_work(&dev->cut_kick, gotrace_session_cut_kick);
	INIT_WORK(&dev->cut_work, gotrace_session_cut_work);
}

/**
 * gotrace_session_exit - wait for the chain machinery, at module unload
 * @dev: the device, with no session the probes could cut
 */
void gotrace_session_exit(struct gotrace_dev *dev)
{
	/* The irq_work first: it queues the work. */
	irq_work_sync(&dev->cut_kick);
	cancel_work_sync(&dev->cut_work);
}

/*
 * A chain's cut trace @s (stopped, GOTRACE_START_CONTINUE not cancelled)
 * was read to its end: start the next. True if a new session replaced @s,
 * which is freed; false if none could start (its error is kept in @s,
 * which no probe sees any more).
 */
static bool gotrace_session_resume(struct gotrace_dev *dev,
				   struct gotrace_session *s)
{
	int ret;

	lockdep_assert_held(&dev->lock);
	/* No probe writes into a cut session's buffers: make room. */
	gotrace_cont_make_room(s);
	ret = gotrace_session_begin(dev, &s->args, true);
	if (!ret)
		return true;
	pr_warn("a cut trace could not be followed by the next one: %d\n", ret);
	s->chain.resume_err = -ret;
	gotrace_cont_cancel(dev, s);
	return false;
}

/**
 * gotrace_session_done - the reader reached end of file: free the buffers
 * @dev: the device, locked
 * @s: its stopped session
 */
void gotrace_session_done(struct gotrace_dev *dev, struct gotrace_session *s)
{
	lockdep_assert_held(&dev->lock);
	WRITE_ONCE(dev->read_to_end, dev->sessions);
	if (s->chain.on && gotrace_session_resume(dev, s))
		return;
	gotrace_session_release(s);
	WRITE_ONCE(s->state, GOTRACE_SESS_DONE);
	/* A stop may wait for this. */
	wake_up_interruptible(&dev->wq);
}

/**
 * gotrace_session_reader_gone - the reader closed the device
 * @dev: the device, locked
 *
 * If it read part of the current trace but not its end, the rest cannot
 * make a valid trace file for the next reader: read() fails with -EPIPE
 * until another session starts, and no stop waits for that trace's end.
 * A flight recorder's half-read snapshot is dropped instead.
 */
void gotrace_session_reader_gone(struct gotrace_dev *dev)
{
	struct gotrace_session *s = gotrace_dev_sess(dev);

	lockdep_assert_held(&dev->lock);
	if (s && s->flight.on) {
		/* Part of this snapshot read: read.c rewinds for each. */
		if (s->flight.snap && READ_ONCE(s->rd.snapshot) == s->flight.snapshots &&
		    READ_ONCE(s->rd.hdr))
			gotrace_flight_read_done(dev, s);
		return;
	}
	if (s && s->state != GOTRACE_SESS_DONE && READ_ONCE(s->rd.hdr)) {
		WRITE_ONCE(s->rd.broken, true);
		WRITE_ONCE(dev->read_to_end, dev->sessions);
	}
}

/**
 * gotrace_session_destroy - module unload: stop and free everything
 * @dev: the device, locked; no file is open
 */
void gotrace_session_destroy(struct gotrace_dev *dev)
{
	struct gotrace_session *s = gotrace_dev_sess(dev);

	lockdep_assert_held(&dev->lock);
	if (!s)
		return;
	if (s->state == GOTRACE_SESS_TRACING || s->chain.on)
		gotrace_session_stop(dev);
	RCU_INIT_POINTER(dev->sess, NULL);
	gotrace_session_free(s);
}

/**
 * gotrace_session_status - GOTRACE_STATUS
 * @dev: the device, locked
 * @st: filled in; zeroed by the caller
 */
void gotrace_session_status(struct gotrace_dev *dev, struct gotrace_status *st)
{
	struct gotrace_session *s = gotrace_dev_sess(dev);
	int cpu;

	lockdep_assert_held(&dev->lock);
	st->sessions = dev->sessions;
	st->nr_cpus = num_possible_cpus();
	if (!s)
		return;

	/* The uapi states are their own numbers, not the session's. */
	switch (s->state) {
	case GOTRACE_SESS_TRACING:
		st->state = GOTRACE_STATE_TRACING;
		break;
	case GOTRACE_SESS_STOPPED:
		st->state = GOTRACE_STATE_STOPPED;
		break;
	case GOTRACE_SESS_DONE:		/* read to the end */
		st->state = GOTRACE_STATE_IDLE;
		break;
	default:			/* a state without its uapi one */
		WARN_ON_ONCE(1);
		st->state = GOTRACE_STATE_IDLE;
		break;
	}
	st->flags = READ_ONCE(s->cut_ts) ? GOTRACE_STATUS_CUT : 0;
	if (s->flight.on)
		st->flags |= GOTRACE_STATUS_FLIGHT;
	if (s->args.flags & GOTRACE_START_CONTINUE)
		gotrace_cont_status(s, st);
	st->snapshots = s->flight.snapshots;
	st->triggers = s->trig ? READ_ONCE(s->trig->fired) : 0;
	if (gotrace_clock_unstable(s))
		st->flags |= GOTRACE_STATUS_CLOCK_UNSTABLE;
	st->clock = s->clock;
	st->format = s->format;
	st->max_tid = s->max_tid;
	st->buffer_size = s->buffer_size;
	st->bytes = sizeof(s->header) + READ_ONCE(s->footer.bytes);
	st->bytes_read = READ_ONCE(s->rd.bytes);
	st->snapshot_ns = s->snapshot_ns;
	st->snapshot_threads = s->snapshot_threads;
	st->generations = s->gen.cur;
	if (s->state != GOTRACE_SESS_DONE) {
		st->thread_bytes = gotrace_table_bytes(&s->table) +
				   GOTRACE_ALIASES * sizeof(*s->aliases);
		st->thread_leaves_freed = READ_ONCE(s->table.reclaimed);
	}
	st->thread_starved = atomic_read(&s->table.starved);
	for_each_possible_cpu(cpu) {
		struct gotrace_cpu *c = per_cpu_ptr(s->cpus, cpu);
		u32 full = gotrace_buf_full(&c->ring);

		st->events += READ_ONCE(c->ring.events);
		st->bytes += gotrace_buf_bytes(&c->ring);
		st->events_lost += READ_ONCE(c->lost);
		st->samples += READ_ONCE(c->samples);
		st->samples_dropped += READ_ONCE(c->samples_dropped);
		st->chunks_dropped += READ_ONCE(c->ring.dropped);
		if (s->state == GOTRACE_SESS_DONE)
			continue;
		st->chunks_full += full;
		if (s->state == GOTRACE_SESS_TRACING)
			st->chunks_free += c->ring.nr_chunks - full - 1;
	}
}
