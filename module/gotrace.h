/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gotrace internals: sessions, per-CPU trace buffers and the thread table.
 *
 * Object lifetime and locking
 * ---------------------------
 * A session lives from GOTRACE_START until its trace has been read to the
 * end of file (or it is discarded by the next start when no reader holds the
 * device open, or by module unload). gotrace_dev.lock (a mutex) serialises
 * every state change of the device: starting, stopping, freeing a session,
 * opening and closing the reader. The reader itself runs under
 * gotrace_dev.read_lock and never blocks a writer.
 *
 * Writers are the scheduler tracepoint probes. Each CPU writes only its own
 * struct gotrace_cpu, with interrupts disabled; no lock is shared between
 * CPUs. The controller (start snapshot, stop) writes into a CPU's buffer only
 * when no probe can run there: inside stop_machine() or after an RCU grace
 * period that follows switching recording off.
 *
 * Per-thread state (struct gotrace_thread) is indexed by thread id. The
 * scheduler itself serialises every event of one thread (runqueue lock,
 * p->pi_lock, p->on_cpu release/acquire), so the probes touch an entry
 * without further locking.
 */
#ifndef _GOTRACE_H
#define _GOTRACE_H

#include <linux/bitmap.h>
#include <linux/hash.h>
#include <linux/irq_work.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/timekeeping.h>
#include <linux/sched.h>
#include <linux/seqlock.h>
#include <linux/sched/task_stack.h>
#include <linux/sizes.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <asm/syscall.h>
#ifdef CONFIG_X86_TSC
#include <asm/tsc.h>
#endif
#include <linux/gotrace.h>

struct gotrace_kstacks;
struct gotrace_progs;

/* Trace buffers are cut into chunks; a chunk holds one Go batch. */
#define GOTRACE_CHUNK_SIZE	PAGE_SIZE
#define GOTRACE_BUF_MIN		SZ_16K
#define GOTRACE_BUF_MAX		SZ_1G
/* The reader is woken when 1/GOTRACE_WAKE_DIV of a ring waits for it... */
#define GOTRACE_WAKE_DIV	4
/* ... and a blocked read() returns what there is after this many jiffies. */
#define GOTRACE_READ_LATENCY	HZ
/*
 * A session's allocations (buffers, tables) may fail, and then start returns
 * -ENOMEM: never warn, never invoke the OOM killer.
 */
#define GOTRACE_GFP		(GFP_KERNEL | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)
/* Largest single event we write, a batch header included. */
#define GOTRACE_EV_MAX		64
/*
 * Bytes every chunk keeps free for the two events that close the trace
 * (GoSched and ProcStop), each at most GOTRACE_CLOSE_MAX bytes.
 */
#define GOTRACE_CLOSE_MAX	24
#define GOTRACE_RESERVE		(2 * GOTRACE_CLOSE_MAX)

/*
 * A trace tick lasts GOTRACE_TICK_NS of CLOCK_MONOTONIC (nanoseconds >>
 * GOTRACE_TS_SHIFT), or TSC cycles >> the shift that makes it last as
 * long or up to twice as long (clock.c).
 */
#define GOTRACE_TICK_NS		64
#define GOTRACE_TS_SHIFT	6

/* Go execution tracer event types (runtime/trace.go, pre-1.22). */
enum gotrace_ev {
	GO_EV_BATCH		= 1,
	GO_EV_FREQUENCY		= 2,
	GO_EV_STACK		= 3,
	GO_EV_GOMAXPROCS	= 4,
	GO_EV_PROC_START	= 5,
	GO_EV_PROC_STOP		= 6,
	GO_EV_GO_CREATE		= 13,
	GO_EV_GO_START		= 14,
	GO_EV_GO_END		= 15,
	GO_EV_GO_SCHED		= 17,
	GO_EV_GO_PREEMPT	= 18,
	GO_EV_GO_SLEEP		= 19,
	GO_EV_GO_BLOCK		= 20,
	GO_EV_GO_UNBLOCK	= 21,
	GO_EV_GO_BLOCK_SYNC	= 25,
	GO_EV_GO_BLOCK_NET	= 27,
	GO_EV_GO_SYSCALL	= 28,
	GO_EV_GO_SYSEXIT	= 29,
	GO_EV_GO_SYSBLOCK	= 30,
	GO_EV_GO_WAITING	= 31,
	GO_EV_STRING		= 37,
	GO_EV_GO_START_LOCAL	= 38,
	GO_EV_GO_UNBLOCK_LOCAL	= 39,
};

/*
 * Why a thread stops running or is woken: a system call number below
 * GOTRACE_NR_SYSCALLS (the call it blocks in, or the waker is in), or one of
 * these. Names are in reasons.c.
 */
#define GOTRACE_NR_SYSCALLS	512
enum gotrace_reason {
	GOTRACE_R_THREAD = GOTRACE_NR_SYSCALLS,	/* a goroutine's create stack */
	GOTRACE_R_FORK,		/* a creator's stack */
	GOTRACE_R_RENAME,	/* creator of the goroutine after a rename */
	GOTRACE_R_PREEMPT,
	GOTRACE_R_KERNEL,	/* a kernel thread waits */
	GOTRACE_R_FAULT,	/* a user thread waits outside a system call */
	GOTRACE_R_IRQ,		/* woken from an interrupt */
	GOTRACE_R_SOFTIRQ,	/* woken from a softirq */
	GOTRACE_R_FULL,		/* any stack, once the stack ids ran out */
	GOTRACE_R_NR
};

/* Program ids: the reserved ones, then names in order of appearance. */
#define GOTRACE_PROG_MAX	4096
#define GOTRACE_PROG_IRQ	0	/* wakeups from interrupt context */
#define GOTRACE_PROG_OTHER	1	/* names past GOTRACE_PROG_MAX */
#define GOTRACE_PROG_FIRST	2

/*
 * Cheap stacks: [reason, program], or [program] for a create stack, keyed
 * 1 + program * GOTRACE_R_NR + reason and numbered in order of first use
 * (stacks.c). Past GOTRACE_STACK_FULL - 1 of them, new ones share the id
 * GOTRACE_STACK_FULL, the stack [GOTRACE_R_FULL, GOTRACE_PROG_OTHER].
 */
#define GOTRACE_STACKS_MAX	12288
#define GOTRACE_STACK_FULL	GOTRACE_STACKS_MAX
#define GOTRACE_STACK_BITS	14

/**
 * struct gotrace_stack_slot - a slot of the stack table (stacks.c)
 * @key:	the stack's key, 0 while free; claimed with cmpxchg.
 * @id:		its id, 0 until published (release).
 */
struct gotrace_stack_slot {
	u32 key;
	u32 id;
};

/**
 * struct gotrace_stacks - the cheap stacks of a session (stacks.c)
 * @next:	ids handed out; written with atomics.
 * @full:	a stack got GOTRACE_STACK_FULL.
 * @key:	key of each id handed out below GOTRACE_STACK_FULL, for the
 *		footer.
 * @slot:	the hash table, a third larger than the ids, for short probes.
 */
struct gotrace_stacks {
	atomic_t next;
	bool full;
	u32 key[GOTRACE_STACKS_MAX];
	struct gotrace_stack_slot slot[BIT(GOTRACE_STACK_BITS)];
};

/* Kernel stacks (kstacks.c) take the stack ids after the cheap ones. */
#define GOTRACE_KSTACK_ID(slot)	(GOTRACE_STACK_FULL + 1 + (slot))

/*
 * String ids and frame keys (PCs) of the footer: cheap frames' file, one
 * string per reason, one per program, then function and file of each
 * distinct kernel frame.
 */
#define GOTRACE_STR_FILE	1
#define GOTRACE_STR_REASON(r)	(2 + (r))
#define GOTRACE_STR_PROG(p)	(2 + GOTRACE_R_NR + (p))
#define GOTRACE_STR_KFUNC(i)	(GOTRACE_STR_PROG(GOTRACE_PROG_MAX) + 2 * (i))
#define GOTRACE_STR_KFILE(i)	(GOTRACE_STR_KFUNC(i) + 1)
#define GOTRACE_PC_REASON(r)	(1 + (r))
#define GOTRACE_PC_PROG(p)	(1 + GOTRACE_R_NR + (p))
#define GOTRACE_PC_KFRAME(i)	(GOTRACE_PC_PROG(GOTRACE_PROG_MAX) + (i))
#define GOTRACE_STRING_MAX	255

/* The footer is generated a page at a time. */
#define GOTRACE_FOOTER_PAGE	PAGE_SIZE

/* Recording modes, read by every probe. */
enum gotrace_mode {
	GOTRACE_MODE_OFF,	/* probes do nothing */
	GOTRACE_MODE_ON,	/* probes record */
	GOTRACE_MODE_CUT,	/* out of space: probes only count lost events */
};

/* Life of a session as the device sees it. */
enum gotrace_sess_state {
	GOTRACE_SESS_TRACING = 1,
	GOTRACE_SESS_STOPPED,
	GOTRACE_SESS_DONE,	/* read to the end; buffers freed */
};

/* A thread's state in the trace's eyes. */
enum gotrace_tstate {
	GOTRACE_T_NONE,		/* never seen in this trace */
	GOTRACE_T_RUNNABLE,
	GOTRACE_T_RUNNING,
	GOTRACE_T_WAITING,
	GOTRACE_T_SYSCALL,	/* waiting after GoSysBlock: woken by GoSysExit */
	GOTRACE_T_DEAD,
};

/**
 * struct gotrace_thread - trace state of one thread id
 * @seq:	Go sequence number the thread's next GoStart/GoUnblock carries.
 * @tag:	identity of the task holding the id (gotrace_tag()).
 * @wake_stack:	stack of its last waker; written by the waker's CPU.
 * @gen:	how many earlier threads held this id in this trace when this
 *		one was created; the goroutine id is tid + gen * PID_MAX_LIMIT.
 * @prog:	program id of its name; written by a renaming CPU.
 * @state:	enum gotrace_tstate.
 * @renamed:	renamed while not running; written by the renaming CPU.
 * @last_cpu:	P of the goroutine's last transition: an event on the same P
 *		can use Go's *Local variant, which carries no sequence number.
 * @gens:	in an id's own entry (not an alias): the highest @gen given to
 *		any holder of the id in this trace, its aliases' included.
 *		Written only by creations, which the id's holders do in turn.
 *
 * Apart from @wake_stack, @prog, @renamed and @gens, only the probes that
 * the scheduler serialises for the thread (its switches and wakeups) write
 * it. @gen is the holder's own and never changes while it lives: a thread
 * that takes the id while the previous holder still runs (an alias) bumps
 * @gens, not its predecessor's @gen.
 */
struct gotrace_thread {
	u32 seq;
	u32 tag;
	u32 wake_stack;
	u16 gen;
	u16 prog;
	u8 state;
	u8 renamed;
	u16 last_cpu;
	u16 gens;
};

/* Aliases: see threads.c. */
#define GOTRACE_ALIASES		256

/**
 * struct gotrace_alias - an entry for a thread whose id's entry is taken
 * @busy:	claimed (cmpxchg); released with a store when the thread dies.
 * @tid:	the thread's id.
 * @t:		its trace state.
 */
struct gotrace_alias {
	int busy;
	u32 tid;
	struct gotrace_thread t;
};

/**
 * struct gotrace_cpu - one CPU's trace buffer, a ring of chunks
 * @mem:	nr_chunks chunks of GOTRACE_CHUNK_SIZE bytes (kvmalloc).
 * @lens:	committed length of each chunk.
 * @nr_chunks:	ring size.
 * @wake_at:	committed chunks waiting for the reader that wake it.
 * @head:	chunks committed. Written by the writer (release), read by
 *		the reader (acquire).
 * @tail:	chunks consumed. Written by the reader (release), read by the
 *		writer (acquire).
 * @chunk:	the chunk being filled (slot head % nr_chunks), once @pos.
 * @pos:	bytes used in it; 0 before its batch header is written.
 * @last_ts:	time stamp of the last event written in that chunk.
 * @cur_g:	goroutine running on this P in the trace, 0 for none.
 * @proc_started: a ProcStart has been written for this P.
 * @cpu:	the CPU, which is the P id.
 * @events:	Go events written.
 * @bytes:	bytes of the committed chunks (the one being filled has @pos
 *		more); written with @pos in @bytes_seq's write section.
 * @bytes_seq:	makes @bytes and @pos one value for gotrace_buf_bytes().
 * @lost:	scheduler events not recorded after a cut.
 * @wake:	wakes the reader from outside the scheduler's locks.
 * @wq:		where the reader waits.
 *
 * Every field but @tail is owned by the writer: this CPU's probes with
 * interrupts off, or the controller while no probe can run.
 */
struct gotrace_cpu {
	u8 *mem;
	u32 *lens;
	u32 nr_chunks;
	u32 wake_at;
	u32 head;
	u32 tail;
	u32 pos;
	u8 *chunk;
	u64 last_ts;
	u64 cur_g;
	bool proc_started;
	int cpu;
	u64 events;
	u64 bytes;
	seqcount_t bytes_seq;
	u64 lost;
	struct irq_work wake;
	wait_queue_head_t *wq;
};

/**
 * struct gotrace_session - one trace, from start to its end of file
 * @mode:	enum gotrace_mode; written with cmpxchg/xchg, read by probes.
 * @state:	enum gotrace_sess_state; written under gotrace_dev.lock,
 *		read locklessly by the reader (acquire).
 * @cpus:	per-CPU buffers.
 * @threads:	thread table, max_tid entries (vmalloc).
 * @aliases:	entries of threads whose id's entry another thread holds.
 * @nr_aliases:	aliases in use; written with atomics.
 * @max_tid:	thread ids the table covers.
 * @format:	11, 19 or 21.
 * @buffer_size: bytes per CPU.
 * @cut_ts:	when recording was cut short (valid in GOTRACE_MODE_CUT).
 * @snapshot_ns: how long the start snapshot held every CPU.
 * @snapshot_threads: threads it recorded.
 * @clock:	GOTRACE_CLOCK_* of its time stamps (clock.c).
 * @ts_shift:	clock units >> @ts_shift = trace ticks.
 * @ts_freq:	trace ticks per second.
 * @header:	the 16-byte trace header.
 * @progs:	program names.
 * @kstacks:	kernel stacks, or NULL when they are off.
 * @stacks:	the cheap stacks used.
 * @reasons_used: reasons in those stacks (computed at stop).
 * @footer:	the page the footer is generated into.
 * @footer_len:	bytes in it.
 * @footer_phase: footer generation state (footer.c).
 * @footer_pos:	its position within the phase.
 * @footer_bytes: footer bytes generated so far.
 * @end_ts:	when recording stopped.
 * @wq:		where readers wait.
 * @rd_hdr:	header bytes read.        Reader fields: gotrace_dev.read_lock.
 * @rd_cpu:	CPU whose chunk is being read.
 * @rd_off:	bytes of that chunk read.
 * @rd_footer:	footer bytes read.
 * @bytes_read:	trace bytes returned by read().
 * @rd_broken:	a reader closed the device after part of the trace: the
 *		rest is not served. Written under gotrace_dev.lock; poll()
 *		reads it locklessly.
 */
struct gotrace_session {
	int mode;
	int state;
	struct gotrace_cpu __percpu *cpus;
	struct gotrace_thread *threads;
	struct gotrace_alias *aliases;
	atomic_t nr_aliases;
	u32 max_tid;
	u32 format;
	u64 buffer_size;
	u64 cut_ts;
	u64 snapshot_ns;
	u32 snapshot_threads;
	u32 clock;
	u32 ts_shift;
	u64 ts_freq;
	char header[16];
	struct gotrace_progs *progs;
	struct gotrace_kstacks *kstacks;
	struct gotrace_stacks *stacks;
	DECLARE_BITMAP(reasons_used, GOTRACE_R_NR);
	u8 *footer;
	size_t footer_len;
	u32 footer_phase;
	u32 footer_pos;
	u64 footer_bytes;
	u64 end_ts;
	wait_queue_head_t *wq;

	size_t rd_hdr;
	int rd_cpu;
	u32 rd_off;
	size_t rd_footer;
	u64 bytes_read;
	bool rd_broken;
};

/**
 * struct gotrace_dev - the /dev/gotrace device
 * @lock:	protects @sess (the pointer and its lifetime), @reader_open,
 *		@sessions and every session state change.
 * @read_lock:	serialises read() calls and owns the session's reader fields.
 * @wq:		readers wait here for a session, data, or the end.
 * @sess:	the current session, or NULL.
 * @reader_open: an open file has read access. Read locklessly by a
 *		waiting GOTRACE_STOP.
 * @sessions:	sessions started since load.
 * @read_to_end: number (as @sessions counts) of the last session whose
 *		trace was read to its end, or can no longer be (a reader left
 *		it half read). Read locklessly by a waiting GOTRACE_STOP.
 */
struct gotrace_dev {
	struct mutex lock;		/* see above */
	struct mutex read_lock;		/* see above */
	wait_queue_head_t wq;
	struct gotrace_session __rcu *sess;
	bool reader_open;
	u64 sessions;
	u64 read_to_end;
};

/* clock.c */
bool gotrace_clock_has_tsc(void);
void gotrace_clock_init(struct gotrace_session *s, u32 flags);
bool gotrace_clock_unstable(struct gotrace_session *s);

/**
 * gotrace_clock - now, in @s's trace ticks, the same clock on every CPU
 * @s: the session
 *
 * Return: the TSC read after earlier loads (as the kernel's TSC clocksource
 * reads it), or CLOCK_MONOTONIC (see clock.c), in trace ticks.
 */
static __always_inline u64 gotrace_clock(const struct gotrace_session *s)
{
#ifdef CONFIG_X86_TSC
	if (s->clock == GOTRACE_CLOCK_TSC)
		return rdtsc_ordered() >> s->ts_shift;
#endif
	return ktime_get_mono_fast_ns() >> GOTRACE_TS_SHIFT;
}

/**
 * gotrace_dev_sess - the device's session; the caller holds dev->lock
 * @dev: the device
 *
 * Return: the session, or NULL if @dev has none.
 */
static inline struct gotrace_session *gotrace_dev_sess(struct gotrace_dev *dev)
{
	return rcu_dereference_protected(dev->sess, lockdep_is_held(&dev->lock));
}

/* buffer.c */
int gotrace_buf_alloc(struct gotrace_cpu *c, int cpu, u64 size);
void gotrace_buf_free(struct gotrace_cpu *c);
u8 *gotrace_buf_reserve_slow(struct gotrace_cpu *c, u64 ts, size_t need,
			     size_t limit);
void gotrace_buf_flush(struct gotrace_cpu *c);
const u8 *gotrace_buf_peek(struct gotrace_cpu *c, u32 *len);
void gotrace_buf_release(struct gotrace_cpu *c);
u32 gotrace_buf_full(struct gotrace_cpu *c);
u64 gotrace_buf_bytes(struct gotrace_cpu *c);

/**
 * gotrace_buf_reserve - room for @n events at one time stamp
 * @c: this CPU's buffer (interrupts off, or no probe can run)
 * @ts: the events' time stamp in trace ticks; raised to the batch's last
 *	one if earlier; starts a new batch there if needed
 * @n: number of events
 * @closing: they close the trace: at most GOTRACE_CLOSE_MAX bytes each,
 *	     which may come from the reserve. Otherwise GOTRACE_EV_MAX each.
 * @p: set to where to write them with gotrace_put_event(), the first with
 *     the delta @ts - @c->last_ts and the others with 0, before calling
 *     gotrace_buf_advance()
 *
 * For a transition written as several events, which the trace must hold
 * all or none of: they all fit in the chunk being filled. The common case,
 * room there, is inline: it is on every event's path, and returns true
 * without a test of @p (see gotrace_thread_find()).
 *
 * Return: false when the ring is full (every chunk is waiting for the
 * reader).
 */
static __always_inline bool gotrace_buf_reserve(struct gotrace_cpu *c,
						u64 *ts, unsigned int n,
						bool closing, u8 **p)
{
	size_t need = n * (closing ? GOTRACE_CLOSE_MAX : GOTRACE_EV_MAX);
	size_t limit = GOTRACE_CHUNK_SIZE - (closing ? 0 : GOTRACE_RESERVE);

	if (*ts < c->last_ts)
		*ts = c->last_ts;
	if (likely(c->pos && c->pos + need <= limit)) {
		*p = c->chunk + c->pos;
		return true;
	}
	*p = gotrace_buf_reserve_slow(c, *ts, need, limit);
	return *p;
}

/**
 * gotrace_buf_advance - account the events written after gotrace_buf_reserve()
 * @c: this CPU's buffer
 * @end: one past the last byte written
 * @ts: their time stamp, as gotrace_buf_reserve() left it
 * @n: how many
 */
static __always_inline void gotrace_buf_advance(struct gotrace_cpu *c, u8 *end,
						u64 ts, unsigned int n)
{
	c->events += n;
	WRITE_ONCE(c->pos, end - c->chunk);
	c->last_ts = ts;
}

/*
 * Wire format (Go's runtime/trace.go before 1.22): an event is one byte
 * (type in the low 6 bits, number of arguments after the time stamp in the
 * top 2 bits, 3 meaning "length-prefixed"), then unsigned LEB128 values: the
 * time stamp as a delta from the previous event of the batch, then the
 * arguments, a stack id last for events that carry one.
 */
/**
 * gotrace_put_uvarint - write @v as an unsigned LEB128 varint
 * @p: destination, room for 10 bytes
 * @v: value
 *
 * Return: one past the last byte written.
 */
static __always_inline u8 *gotrace_put_uvarint(u8 *p, u64 v)
{
	while (v >= 0x80) {
		*p++ = (u8)v | 0x80;
		v >>= 7;
	}
	*p++ = (u8)v;
	return p;
}

/**
 * gotrace_put_event - write one event
 * @p: where, from gotrace_buf_reserve()
 * @type: event type
 * @dt: time stamp delta from the batch's previous event
 * @nargs: number of @args (a stack id, when the event has one, included)
 * @args: arguments after the time stamp
 *
 * Inline, so that each call site writes its event with a constant number
 * of arguments, which then stay in registers: it is on every event's path.
 *
 * Return: one past the last byte written.
 */
static __always_inline u8 *gotrace_put_event(u8 *p, enum gotrace_ev type,
					     u64 dt, unsigned int nargs,
					     const u64 *args)
{
	u8 *lenp = p + 1, *body;
	unsigned int i;

	*p++ = type | min(nargs, 3U) << 6;
	if (nargs >= 3)
		p++;		/* every body we write is shorter than 128 bytes */
	body = p;
	p = gotrace_put_uvarint(p, dt);
	if (nargs > 0)
		p = gotrace_put_uvarint(p, args[0]);
	if (nargs > 1)
		p = gotrace_put_uvarint(p, args[1]);
	if (nargs > 2)
		p = gotrace_put_uvarint(p, args[2]);
	for (i = 3; i < nargs; i++)
		p = gotrace_put_uvarint(p, args[i]);
	if (nargs >= 3)
		*lenp = p - body;
	return p;
}

/**
 * gotrace_emit - append one event to a CPU's current batch
 * @c: the CPU's buffer (interrupts off, or no probe can run)
 * @ts: time stamp in trace ticks; raised to the batch's last one if earlier
 * @type: event type
 * @nargs: number of @args (a stack id, when the event has one, included)
 * @args: arguments after the time stamp
 * @closing: the event closes the trace (see gotrace_buf_reserve())
 *
 * Return: false if the buffer is full and nothing was written.
 */
static __always_inline bool gotrace_emit(struct gotrace_cpu *c, u64 ts,
					 enum gotrace_ev type,
					 unsigned int nargs, const u64 *args,
					 bool closing)
{
	u8 *p;

	if (unlikely(!gotrace_buf_reserve(c, &ts, 1, closing, &p)))
		return false;
	p = gotrace_put_event(p, type, ts - c->last_ts, nargs, args);
	gotrace_buf_advance(c, p, ts, 1);
	return true;
}

/* encode.c */

/* encode.c: footer records */
u8 *gotrace_put_string(u8 *p, u64 id, const char *str);
u8 *gotrace_put_frame(u8 *p, u64 pc, u64 func, u64 file);

/* footer.c */
void gotrace_footer_prepare(struct gotrace_session *s, u64 ts);
size_t gotrace_footer_fill(struct gotrace_session *s);

/* kstacks.c */
struct gotrace_kstacks *gotrace_kstacks_alloc(void);
void gotrace_kstacks_free(struct gotrace_kstacks *ks);
u32 gotrace_kstack(struct gotrace_session *s, u32 prog);
void gotrace_kstacks_prepare(struct gotrace_session *s);
u8 *gotrace_kstacks_frame(struct gotrace_session *s, u32 i, u8 *p);
u8 *gotrace_kstacks_stack(struct gotrace_session *s, u32 *i, u8 *p);

/* programs.c */
struct gotrace_progs *gotrace_progs_alloc(void);
void gotrace_progs_free(struct gotrace_progs *pt);
u32 gotrace_prog_id(struct gotrace_progs *pt, const char *comm);
/* A label: every byte of a name written as \xNN at worst, or a stand-in. */
#define GOTRACE_LABEL_LEN	(4 * (TASK_COMM_LEN - 1) + 1)
const char *gotrace_prog_label(struct gotrace_progs *pt, u32 id, char *buf);
u32 gotrace_progs_count(struct gotrace_progs *pt);

/* reasons.c */

/* What a blocking system call waits for. */
enum gotrace_class {
	GOTRACE_C_SYSCALL,	/* anything else: a syscall-blocking profile entry */
	GOTRACE_C_SYNC,		/* futexes: mutexes, condition variables */
	GOTRACE_C_NET,		/* sockets and readiness waits */
	GOTRACE_C_SLEEP,	/* timed sleeps */
};

/**
 * struct gotrace_syscall - a system call a thread commonly blocks in
 * @name:	its name, the frame name of its stacks.
 * @class:	enum gotrace_class.
 */
struct gotrace_syscall {
	const char *name;
	u8 class;
};

extern const struct gotrace_syscall gotrace_syscalls[GOTRACE_NR_SYSCALLS];
u32 gotrace_waker_reason(void);
const char *gotrace_reason_name(u32 reason, char *buf, size_t size);

/**
 * gotrace_syscall_of - the system call @p is in, or -1
 * @p: a task that is current or switching out
 *
 * Kernel threads have none; a user thread stopped by a page fault or an
 * interrupt has saved registers that are not a system call's.
 *
 * Return: the system call's number, or -1 if there is none or it is not
 * below GOTRACE_NR_SYSCALLS.
 */
static inline int gotrace_syscall_of(struct task_struct *p)
{
	struct pt_regs *regs;
	int nr;

	if (p->flags & PF_KTHREAD)
		return -1;
	regs = task_pt_regs(p);
	nr = syscall_get_nr(p, regs);
	if (nr >= GOTRACE_NR_SYSCALLS)
		return -1;
	return nr;
}

/* stacks.c */
struct gotrace_stacks *gotrace_stacks_alloc(void);
void gotrace_stacks_free(struct gotrace_stacks *st);
u32 gotrace_stack_slow(struct gotrace_stacks *st, u32 key);
u32 gotrace_stacks_count(struct gotrace_stacks *st);
bool gotrace_stacks_full(struct gotrace_stacks *st);
u32 gotrace_stacks_key(struct gotrace_stacks *st, u32 id);

/**
 * gotrace_stack - id of the cheap stack [@reason, @prog]
 * @s: session
 * @prog: program id
 * @reason: enum gotrace_reason or a system call number
 *
 * Called with interrupts off (a probe) or with no probe running. A stack
 * used before is found in its first slot or, if it collided, in the next
 * one, unless it collided again.
 *
 * Return: the stack's id, GOTRACE_STACK_FULL if the ids ran out.
 */
static inline u32 gotrace_stack(struct gotrace_session *s, u32 prog, u32 reason)
{
	u32 key = 1 + prog * GOTRACE_R_NR + reason;
	u32 h = hash_32(key, GOTRACE_STACK_BITS);
	struct gotrace_stack_slot *slot = &s->stacks->slot[h];
	u32 k = READ_ONCE(slot->key), id;

	if (unlikely(k != key)) {
		slot = &s->stacks->slot[(h + 1) & (BIT(GOTRACE_STACK_BITS) - 1)];
		k = READ_ONCE(slot->key);
	}
	if (likely(k == key)) {
		/* Pairs with the release in gotrace_stack_insert(). */
		id = smp_load_acquire(&slot->id);
		if (likely(id))
			return id;
	}
	return gotrace_stack_slow(s->stacks, key);
}

/* threads.c */
struct gotrace_thread *gotrace_threads_alloc(u32 max_tid);
void gotrace_threads_free(struct gotrace_thread *threads);
struct gotrace_thread *gotrace_thread_slow(struct gotrace_session *s,
					   struct task_struct *p,
					   struct gotrace_thread *t);
struct gotrace_thread *gotrace_thread_alias(struct gotrace_session *s,
					    struct task_struct *p);
bool gotrace_g_create(struct gotrace_session *s, struct gotrace_cpu *c,
		      struct gotrace_thread *t, struct task_struct *p,
		      u32 prog, u32 creator, u64 ts);
void gotrace_thread_unalias(struct gotrace_session *s, struct gotrace_thread *t);
bool gotrace_g_reincarnate(struct gotrace_session *s, struct gotrace_cpu *c,
			   struct gotrace_thread *t, struct task_struct *p,
			   u32 prog, u64 ts);
bool gotrace_g_lost(struct gotrace_session *s, struct gotrace_cpu *c, u64 ts);
bool gotrace_g_rename(struct gotrace_session *s, struct gotrace_cpu *c,
		      struct gotrace_thread *t, struct task_struct *p,
		      const char *comm, u64 ts);

/**
 * gotrace_waiting - whether a thread waits in the trace (for a wakeup)
 * @t: its entry
 *
 * Return: true if @t is GOTRACE_T_WAITING or GOTRACE_T_SYSCALL.
 */
static inline bool gotrace_waiting(const struct gotrace_thread *t)
{
	return t->state == GOTRACE_T_WAITING || t->state == GOTRACE_T_SYSCALL;
}

/**
 * gotrace_tag - a 32-bit identity of a task, to tell holders of an id apart
 * @p: the task
 *
 * Return: a 32-bit hash of @p's address.
 */
static inline u32 gotrace_tag(struct task_struct *p)
{
	return hash_ptr(p, 32);
}

/**
 * gotrace_gid - goroutine id of the thread holding @tid, state @t
 * @t: thread state
 * @tid: thread id
 *
 * A reused id gets PID_MAX_LIMIT added once per earlier holder, because Go
 * rejects a second GoCreate for an id that ever existed in the trace.
 *
 * Return: @tid + @t->gen * PID_MAX_LIMIT.
 */
static inline u64 gotrace_gid(const struct gotrace_thread *t, pid_t tid)
{
	return (u64)tid + (u64)t->gen * PID_MAX_LIMIT;
}

/**
 * gotrace_thread_find - the trace state of @p
 * @s: session
 * @p: task
 * @tp: set to @p's entry: its id's entry if @p holds it, else its alias
 *	(see threads.c), else the id's entry if it is free (never used, or
 *	dead) for @p to be created in; NULL if @p's id is not below max_tid
 *	or another task holds the entry and @p has no alias. The prober
 *	decides what NULL means: switch-in and fork claim an alias, others
 *	cut the recording.
 *
 * Return: whether @tp is an entry. Inline and a bool, so that on the
 * common path, a live thread holding its id's entry, a probe tests nothing
 * more (the kernel's -fno-delete-null-pointer-checks would keep a test of
 * the pointer).
 */
static __always_inline bool gotrace_thread_find(struct gotrace_session *s,
						struct task_struct *p,
						struct gotrace_thread **tp)
{
	u32 tid = p->pid;
	struct gotrace_thread *t;

	if (unlikely(tid >= s->max_tid)) {
		*tp = NULL;
		return false;
	}
	t = &s->threads[tid];
	if (likely(t->tag == gotrace_tag(p) &&
		   t->state != GOTRACE_T_NONE && t->state != GOTRACE_T_DEAD)) {
		*tp = t;
		return true;
	}
	*tp = gotrace_thread_slow(s, p, t);
	return *tp;
}

/**
 * gotrace_thread_of - gotrace_thread_find() as a pointer
 * @s: session
 * @p: task
 *
 * Return: @p's entry, or NULL (see gotrace_thread_find()).
 */
static inline struct gotrace_thread *
gotrace_thread_of(struct gotrace_session *s, struct task_struct *p)
{
	struct gotrace_thread *t;

	gotrace_thread_find(s, p, &t);
	return t;
}

/* probes.c */
int gotrace_probes_init(void);
int gotrace_probes_attach(void);
void gotrace_probes_detach(void);
void gotrace_probes_publish(struct gotrace_session *s);
void gotrace_cut(struct gotrace_session *s, struct gotrace_cpu *c, u64 ts);
bool gotrace_proc_start_slow(struct gotrace_cpu *c, u64 ts);

/**
 * gotrace_proc_start - the P's ProcStart, once, before its first event
 * @c: the CPU's buffer
 * @ts: time stamp
 *
 * Inline: every probe asks, and the P has nearly always started.
 *
 * Return: false if the buffer is full.
 */
static inline bool gotrace_proc_start(struct gotrace_cpu *c, u64 ts)
{
	return likely(c->proc_started) || gotrace_proc_start_slow(c, ts);
}

/* snapshot.c */
int gotrace_snapshot(struct gotrace_session *s);

/* session.c */
int gotrace_session_start(struct gotrace_dev *dev, u32 flags, u32 format,
			  u64 buffer_size, u32 max_tid);
int gotrace_session_stop(struct gotrace_dev *dev);
void gotrace_session_done(struct gotrace_dev *dev, struct gotrace_session *s);
void gotrace_session_reader_gone(struct gotrace_dev *dev);
void gotrace_session_destroy(struct gotrace_dev *dev);
void gotrace_session_status(struct gotrace_dev *dev,
			    struct gotrace_status *st);

/* read.c */
ssize_t gotrace_read(struct gotrace_dev *dev, char __user *buf, size_t count,
		     bool nonblock);
bool gotrace_readable(struct gotrace_dev *dev);

#endif /* _GOTRACE_H */
