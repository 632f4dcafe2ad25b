/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * gotrace - the Linux scheduler recorded as a Go execution trace.
 *
 * /dev/gotrace serves the trace through read(): a 16-byte header, per-CPU
 * batches as they fill, and after GOTRACE_STOP the footer, then end of file.
 * The ioctls below start, stop and inspect a recording session.
 *
 * Structures are extensible, as clone3()'s: @size comes first and tells the
 * kernel how many bytes of the structure user space passes, sizeof() of the
 * structure it was built with. The kernel accepts any size from the first
 * version's (GOTRACE_*_SIZE_VER0; smaller: EINVAL) up to a page (larger:
 * E2BIG). Of an input structure larger than the kernel's, the bytes it
 * does not know must be zero (else E2BIG); a smaller one reads as if its
 * missing fields were zero. Of GOTRACE_STATUS's output the kernel writes
 * what both sides know, and @size says how much (see struct gotrace_status).
 * New fields are only ever appended. The size an ioctl number encodes is
 * ignored: the structure's own @size counts.
 * Reserved fields must be zero. Open the device O_WRONLY to use only the
 * ioctls; only one open file may read at a time. A trace is read once, from
 * its header to its end: once a reader has closed the device after part of
 * a trace, read() fails with EPIPE until the next GOTRACE_START, since what
 * is left would not make a valid trace file.
 */
#ifndef _UAPI_LINUX_GOTRACE_H
#define _UAPI_LINUX_GOTRACE_H

#include <linux/ioctl.h>
#include <linux/types.h>

/*
 * Trace format versions: the header says "go 1.NN trace". 1.11 to 1.21 are
 * the format of Go's runtime.ReadTrace before Go 1.22: one trace, its
 * tables in a footer. 1.22 to 1.26 are the format Go writes since 1.22:
 * generations, each a valid trace with its own tables, which every Go that
 * reads the version accepts (1.22 and 1.23 since Go 1.22 and 1.23; 1.25
 * since Go 1.25, with a clock snapshot per generation; 1.26 since Go 1.26,
 * with an end-of-generation mark).
 */
#define GOTRACE_FORMAT_DEFAULT	0	/* 1.21 */
#define GOTRACE_FORMAT_1_11	11
#define GOTRACE_FORMAT_1_19	19
#define GOTRACE_FORMAT_1_21	21
#define GOTRACE_FORMAT_1_22	22
#define GOTRACE_FORMAT_1_23	23
#define GOTRACE_FORMAT_1_25	25
#define GOTRACE_FORMAT_1_26	26

/*
 * Start flags. The clock of the time stamps: with neither clock flag, the
 * TSC where it is invariant and the kernel trusts it (x86: constant_tsc,
 * nonstop_tsc, not marked unstable), else CLOCK_MONOTONIC. Both clock
 * flags: -EINVAL; GOTRACE_START_CLOCK_TSC on a machine without a TSC:
 * -EOPNOTSUPP.
 */
#define GOTRACE_START_KSTACKS	0x1	/* block events carry kernel stacks */
#define GOTRACE_START_CLOCK_MONO 0x2	/* CLOCK_MONOTONIC */
#define GOTRACE_START_CLOCK_TSC	0x4	/* the TSC, even if the kernel distrusts it */
/*
 * GOTRACE_START_FLIGHT: a flight recorder, formats 1.22 and later only
 * (-EINVAL with the older ones). Nobody needs to read while it records:
 * each full buffer drops its oldest chunk, and with it the generations
 * that chunk held part of. read() serves snapshots (GOTRACE_SNAPSHOT), each
 * a whole trace ending with end of file; after GOTRACE_STOP, once the last
 * snapshot is read, end of file for good.
 */
#define GOTRACE_START_FLIGHT	0x8
/*
 * GOTRACE_START_CONTINUE: when a buffer runs full, the trace still ends at
 * the cut (GOTRACE_STATUS_CUT), at once rather than at GOTRACE_STOP; once
 * the reader has read it to its end of file, a new trace starts with the
 * same arguments (a new header and start snapshot), and read() goes on with
 * it. Events between the cut and the new start are not recorded: the new
 * session's GOTRACE_STATUS reports the gap. GOTRACE_STOP ends the chain.
 * Not with GOTRACE_START_FLIGHT (-EINVAL), whose buffers never run full.
 */
#define GOTRACE_START_CONTINUE	0x10
/*
 * Filters (struct gotrace_start from GOTRACE_START_SIZE_VER1 on): only the
 * threads they admit are traced. GOTRACE_START_CGROUP: @cgroup_fd is valid
 * (0 is an fd). GOTRACE_START_DESCENDANTS: a thread created (fork, clone)
 * by a traced thread is traced too, whatever the filters say, until it
 * exits. Documentation/gotrace.rst, "Filters", says what the trace shows.
 */
#define GOTRACE_START_CGROUP	0x20
#define GOTRACE_START_DESCENDANTS 0x40
#define GOTRACE_START_FLAGS	(GOTRACE_START_KSTACKS | GOTRACE_START_CLOCK_MONO | \
				 GOTRACE_START_CLOCK_TSC | GOTRACE_START_FLIGHT | \
				 GOTRACE_START_CONTINUE | GOTRACE_START_CGROUP | \
				 GOTRACE_START_DESCENDANTS)

/**
 * struct gotrace_start - argument of GOTRACE_START
 * @size:	Input: sizeof(struct gotrace_start) as user space knows it,
 *		at least GOTRACE_START_SIZE_VER0.
 * @flags:	Input: GOTRACE_START_* flags.
 * @format:	Input: one of GOTRACE_FORMAT_*.
 * @max_tid:	Input: highest thread id + 1 the thread table covers; 0 means
 *		the module parameter max_tid. Costs 28 bytes per id.
 * @buffer_size: Input: trace buffer bytes per possible CPU; 0 means the
 *		module parameter buffer_size. Rounded up to whole pages.
 * @gen_period_ns: Input: formats 1.22 and later: a new generation starts
 *		this often, in nanoseconds; 0 means GOTRACE_GEN_PERIOD_NS.
 *		Between GOTRACE_GEN_PERIOD_MIN_NS and GOTRACE_GEN_PERIOD_MAX_NS.
 *		Must be 0 with the older formats.
 * @gen_bytes:	Input: formats 1.22 and later: a new generation also starts
 *		once some CPU has written this many bytes in the current one;
 *		0 means a quarter of @buffer_size. At least
 *		GOTRACE_GEN_BYTES_MIN. Must be 0 with the older formats.
 * @latency_ns:	Input: with GOTRACE_START_FLIGHT only: a latency trigger
 *		(GOTRACE_TRIGGER) fires when a thread waits longer than this
 *		between becoming runnable and running, between
 *		GOTRACE_LATENCY_MIN_NS and GOTRACE_LATENCY_MAX_NS; 0: none.
 * @reserved:	Input: set to 0.
 * @tgids:	Input: a user pointer to @nr_tgids process ids (__u32 each):
 *		only their threads are traced. 0 with @nr_tgids 0: any.
 * @nr_tgids:	Input: at most GOTRACE_FILTER_TGIDS_MAX (else -E2BIG).
 * @cgroup_fd:	Input: with GOTRACE_START_CGROUP: an open cgroup v2
 *		directory: only threads in it or in its descendants are
 *		traced. Must be 0 without the flag. A closed fd: -EBADF;
 *		another file: -EINVAL.
 * @comms:	Input: a user pointer to @nr_comms program names, char[16]
 *		each (as a thread's comm, NUL-terminated within the 16):
 *		only threads of these names are traced. 0 with @nr_comms 0:
 *		any.
 * @nr_comms:	Input: at most GOTRACE_FILTER_COMMS_MAX (else -E2BIG).
 * @reserved2:	Input: set to 0.
 * @cpu_sample_hz: Input: from GOTRACE_START_SIZE_VER2 on: sample each
 *		online CPU this many times a second, writing a CPUSample
 *		event with the interrupted kernel stack (kernel stacks only);
 *		0, the default: no samples. At most GOTRACE_CPU_SAMPLE_HZ_MAX
 *		(else -EINVAL). Formats 1.19 and later: -EINVAL with 1.11
 *		(which has no CPUSample event). A flight recorder keeps each
 *		CPU's newest 2048 samples for its snapshots.
 *		An error of the kernel's perf events creating a sampler
 *		(-EOPNOTSUPP, -ENOENT, -ENODEV...) fails the start.
 * @reserved3:	Input: set to 0.
 *
 * Each kind of filter given must admit a thread (AND); within a kind, one
 * value does (OR). A pointer with a count of 0, or the reverse: -EINVAL.
 */
struct gotrace_start {
	__u32 size;
	__u32 flags;
	__u32 format;
	__u32 max_tid;
	__u64 buffer_size;
	__u64 gen_period_ns;
	__u64 gen_bytes;
	__u64 latency_ns;
	__u64 reserved[1];
	__u64 tgids;
	__u32 nr_tgids;
	__u32 cgroup_fd;
	__u64 comms;
	__u32 nr_comms;
	__u32 reserved2;
	__u32 cpu_sample_hz;
	__u32 reserved3;
};

/* Generations (formats 1.22 and later): Go's runtime starts one every second. */
#define GOTRACE_GEN_PERIOD_NS		1000000000ULL
#define GOTRACE_GEN_PERIOD_MIN_NS	10000000ULL	/* 10 ms */
#define GOTRACE_GEN_PERIOD_MAX_NS	3600000000000ULL	/* an hour */
#define GOTRACE_GEN_BYTES_MIN		65536

/* The latency trigger's threshold: 1 ms to a minute. */
#define GOTRACE_LATENCY_MIN_NS		1000000ULL
#define GOTRACE_LATENCY_MAX_NS		60000000000ULL

#define GOTRACE_START_SIZE_VER0	56	/* sizeof first published struct */
#define GOTRACE_START_SIZE_VER1	88	/* filters: tgids, cgroup_fd, comms */
#define GOTRACE_START_SIZE_VER2	96	/* cpu_sample_hz */

/* CPU samples: at most 10000 a second per CPU (a sample every 100 us). */
#define GOTRACE_CPU_SAMPLE_HZ_MAX	10000

/* Filters: the most values of a kind a start takes. */
#define GOTRACE_FILTER_TGIDS_MAX	4096
#define GOTRACE_FILTER_COMMS_MAX	64
#define GOTRACE_FILTER_COMM_LEN		16

/*
 * Stop flags. By default GOTRACE_STOP returns, as Go's StopTrace does, once
 * the reader has read the trace to its end (or closed the device), or at
 * once if no reader has the device open; a signal ends the wait with EINTR,
 * the trace stopped all the same. GOTRACE_STOP_NOWAIT returns at once.
 */
#define GOTRACE_STOP_NOWAIT	0x1
#define GOTRACE_STOP_FLAGS	GOTRACE_STOP_NOWAIT

/**
 * struct gotrace_stop - argument of GOTRACE_STOP
 * @size:	Input: sizeof(struct gotrace_stop) as user space knows it,
 *		at least GOTRACE_STOP_SIZE_VER0.
 * @flags:	Input: GOTRACE_STOP_* flags.
 * @reserved:	Input: set to 0.
 */
struct gotrace_stop {
	__u32 size;
	__u32 flags;
	__u64 reserved[2];
};

#define GOTRACE_STOP_SIZE_VER0	24	/* sizeof first published struct */

/* Session states reported by GOTRACE_STATUS. */
#define GOTRACE_STATE_IDLE	0	/* no session, or its trace was read to the end */
#define GOTRACE_STATE_TRACING	1	/* recording (or cut short, see flags) */
#define GOTRACE_STATE_STOPPED	2	/* stopped; the reader has not reached EOF yet */

/* Status flags. */
/*
 * GOTRACE_STATUS_CLOCK_UNSTABLE: the session's clock is the TSC, which the
 * kernel has marked unstable; events of different CPUs may be out of order.
 */
#define GOTRACE_STATUS_CUT	0x1	/* recording ended early: events not recorded */
#define GOTRACE_STATUS_CLOCK_UNSTABLE 0x2
#define GOTRACE_STATUS_FLIGHT	0x4	/* a flight recorder (GOTRACE_START_FLIGHT) */
#define GOTRACE_STATUS_CONTINUE	0x8	/* started with GOTRACE_START_CONTINUE */

/* Clocks reported by GOTRACE_STATUS. */
#define GOTRACE_CLOCK_MONO	0	/* CLOCK_MONOTONIC */
#define GOTRACE_CLOCK_TSC	1	/* the x86 time stamp counter */

/**
 * struct gotrace_status - argument of GOTRACE_STATUS
 * @size:	Input: sizeof(struct gotrace_status) as user space knows it,
 *		at least GOTRACE_STATUS_SIZE_VER0: the bytes the kernel may
 *		write. Output: the bytes the kernel wrote, the smaller of
 *		that and the kernel's sizeof(struct gotrace_status). Bytes
 *		after those are left as they were: a field beyond @size was
 *		not filled in (as sched_getattr() does).
 * @state:	Output: GOTRACE_STATE_*.
 * @flags:	Output: GOTRACE_STATUS_*.
 * @format:	Output: format version of the current session (GOTRACE_FORMAT_*).
 * @nr_cpus:	Output: possible CPUs, which are the trace's Ps.
 * @max_tid:	Output: thread ids the session's thread table covers.
 * @buffer_size: Output: trace buffer bytes per CPU.
 * @events:	Output: Go events written.
 * @bytes:	Output: trace bytes produced (header, batches and footer).
 * @bytes_read:	Output: trace bytes read() so far.
 * @chunks_full: Output: filled buffer chunks waiting for the reader.
 * @chunks_free: Output: buffer chunks free for writing.
 * @events_lost: Output: scheduler events not recorded because recording
 *		was cut short (full buffers, a thread id >= max_tid, or
 *		@thread_starved).
 * @sessions:	Output: sessions started since the module was loaded.
 * @snapshot_ns: Output: how long the start snapshot held every CPU
 *		(the stopped world), in nanoseconds.
 * @snapshot_threads: Output: threads in the start snapshot.
 * @clock:	Output: GOTRACE_CLOCK_* of the session's time stamps.
 * @generations: Output: formats 1.22 and later: generations started (the
 *		first at start).
 * @reserved:	Output: zero.
 * @snapshots:	Output: a flight recorder's snapshots taken.
 * @triggers:	Output: times its latency trigger fired.
 * @chunks_dropped: Output: a flight recorder's buffer chunks overwritten
 *		(one page each), not counted in @events_lost: recording
 *		goes on.
 * @gap_start_ns: Output: with GOTRACE_STATUS_CONTINUE and @resumes > 0:
 *		when the previous trace was cut, CLOCK_MONOTONIC nanoseconds.
 * @gap_end_ns:	Output: then, when this trace started (its start snapshot),
 *		CLOCK_MONOTONIC nanoseconds.
 * @gap_events:	Output: then, the scheduler events between the two, not
 *		recorded (the previous trace's @events_lost).
 * @resumes:	Output: with GOTRACE_STATUS_CONTINUE: traces started after
 *		a cut since GOTRACE_START (this one included).
 * @resume_error: Output: with GOTRACE_STATUS_CONTINUE: 0, or the positive
 *		errno (ENOMEM) of the start that should have followed this
 *		cut trace; the chain ended there.
 * @samples:	Output: with cpu_sample_hz: CPU samples written to the
 *		trace (formats 1.22 and later: kept for their generation's
 *		CPU-sample batch).
 * @samples_dropped: Output: CPU samples taken and not written: formats
 *		1.22 and later, the CPU's sample ring was full (the reader
 *		had not drained it); older ones, the buffer was full (the
 *		trace is then cut).
 * @thread_bytes: Output: memory the session's per-thread state holds now:
 *		it grows with the thread ids in use and shrinks as threads
 *		end, not with @max_tid.
 * @thread_leaves_freed: Output: parts of that state freed since the start
 *		(each the entries of 64 thread ids that no thread held).
 * @thread_starved: Output: thread creations that found no memory ready
 *		for their entry; each cut the recording short.
 * @reserved2:	Output: zero.
 */
struct gotrace_status {
	__u32 size;
	__u32 state;
	__u32 flags;
	__u32 format;
	__u32 nr_cpus;
	__u32 max_tid;
	__u64 buffer_size;
	__u64 events;
	__u64 bytes;
	__u64 bytes_read;
	__u64 chunks_full;
	__u64 chunks_free;
	__u64 events_lost;
	__u64 sessions;
	__u64 snapshot_ns;
	__u32 snapshot_threads;
	__u32 clock;
	__u64 generations;
	__u64 reserved[1];
	__u64 snapshots;
	__u64 chunks_dropped;
	__u64 triggers;
	__u64 gap_start_ns;
	__u64 gap_end_ns;
	__u64 gap_events;
	__u32 resumes;
	__u32 resume_error;
	__u64 samples;
	__u64 samples_dropped;
	__u64 thread_bytes;
	__u64 thread_leaves_freed;
	__u32 thread_starved;
	__u32 reserved2;
};

#define GOTRACE_STATUS_SIZE_VER0 120	/* sizeof first published struct */

/**
 * struct gotrace_snapshot - argument of GOTRACE_SNAPSHOT
 * @size:	Input: sizeof(struct gotrace_snapshot) as user space knows
 *		it, at least GOTRACE_SNAPSHOT_SIZE_VER0. Output: the bytes
 *		the kernel wrote, as struct gotrace_status's.
 * @flags:	Input: 0; no flag is defined yet.
 * @duration_ns: Input: the snapshot holds the newest whole generations
 *		that cover at least this long before the call, as far as the
 *		buffers reach; 0: every whole generation they hold.
 * @first_gen:	Output: the snapshot's first generation.
 * @generations: Output: how many it holds.
 * @span_ns:	Output: time from its first generation's start to the
 *		call; less than @duration_ns when the buffers held less.
 * @bytes:	Output: bytes of its batches (header and tables not counted).
 * @reserved:	Input: set to 0.
 *
 * GOTRACE_SNAPSHOT starts a generation, copies the newest whole ones out
 * of a flight recorder's buffers while recording goes on, and has read()
 * serve them as one trace. Errors: EINVAL when no flight recorder is
 * recording; EBUSY while the last snapshot is not read to its end (a
 * reader that closes the device in its middle drops it); ENODATA when no
 * generation is whole in the buffers (one larger than a buffer).
 */
struct gotrace_snapshot {
	__u32 size;
	__u32 flags;
	__u64 duration_ns;
	__u64 first_gen;
	__u64 generations;
	__u64 span_ns;
	__u64 bytes;
	__u64 reserved[2];
};

#define GOTRACE_SNAPSHOT_SIZE_VER0 64	/* sizeof first published struct */

/*
 * Trigger flags: GOTRACE_TRIGGER_NOWAIT returns EAGAIN instead of waiting.
 * GOTRACE_TRIGGER_NOARM (with GOTRACE_TRIGGER_SIZE_VER1) takes what waits,
 * a firing or a request, and does not arm the latency trigger: a reader
 * whose trigger rests between firings takes the requests meanwhile.
 */
#define GOTRACE_TRIGGER_NOWAIT	0x1
#define GOTRACE_TRIGGER_NOARM	0x2
#define GOTRACE_TRIGGER_FLAGS	(GOTRACE_TRIGGER_NOWAIT | GOTRACE_TRIGGER_NOARM)

/**
 * struct gotrace_trigger - argument of GOTRACE_TRIGGER
 * @size:	Input: sizeof(struct gotrace_trigger) as user space knows it,
 *		at least GOTRACE_TRIGGER_SIZE_VER0. Output: the bytes the
 *		kernel wrote, as struct gotrace_status's.
 * @flags:	Input: GOTRACE_TRIGGER_* flags.
 * @tid:	Output: the thread that waited.
 * @tgid:	Output: its process.
 * @wait_ns:	Output: how long it was runnable before it ran.
 * @time_ns:	Output: CLOCK_MONOTONIC when it ran.
 * @comm:	Output: its name, NUL-terminated.
 * @reserved:	Input: set to 0.
 * @cause:	Output (from GOTRACE_TRIGGER_SIZE_VER1): GOTRACE_CAUSE_LATENCY,
 *		or GOTRACE_CAUSE_REQUEST: a program asked for a snapshot
 *		(GOTRACE_REQUEST); then @tid, @tgid and @comm are its
 *		thread's, @time_ns when it asked, @wait_ns 0.
 * @uid:	Output: GOTRACE_CAUSE_REQUEST: the asking thread's user id.
 * @reason:	Output: GOTRACE_CAUSE_REQUEST: its reason, NUL-terminated.
 *
 * GOTRACE_TRIGGER arms the latency trigger of a flight recorder started
 * with @latency_ns and waits until it fires; or, if it fired since it was
 * last armed, returns at once with the details and leaves it unarmed until
 * the next call: the caller decides how often it may fire. A caller that
 * gives GOTRACE_TRIGGER_SIZE_VER1 or more also gets the snapshot requests
 * (first), and may call it for a flight recorder without a latency trigger.
 * poll() reports EPOLLPRI while a firing or a request waits to be taken.
 * Errors: EINVAL when no flight recorder with a trigger is recording (with
 * GOTRACE_TRIGGER_SIZE_VER1: no flight recorder; also when it stops during
 * the wait); EAGAIN with GOTRACE_TRIGGER_NOWAIT when none fired; EINTR.
 */
struct gotrace_trigger {
	__u32 size;
	__u32 flags;
	__u32 tid;
	__u32 tgid;
	__u64 wait_ns;
	__u64 time_ns;
	__u8 comm[16];
	__u64 reserved[2];
	__u32 cause;
	__u32 uid;
	__u8 reason[64];
};

#define GOTRACE_TRIGGER_SIZE_VER0 64	/* sizeof first published struct */
#define GOTRACE_TRIGGER_SIZE_VER1 136	/* cause, uid, reason: requests */

/* What fired, as struct gotrace_trigger's cause says. */
#define GOTRACE_CAUSE_LATENCY	0
#define GOTRACE_CAUSE_REQUEST	1

/*
 * The kernel matches the type, number and direction of these commands, not
 * their size field: a command with another size reaches the same ioctl.
 */
#define GOTRACE_IOC_MAGIC	0xB9

#define GOTRACE_START	_IOW(GOTRACE_IOC_MAGIC, 0x01, struct gotrace_start)
#define GOTRACE_STOP	_IOW(GOTRACE_IOC_MAGIC, 0x02, struct gotrace_stop)
#define GOTRACE_STATUS	_IOWR(GOTRACE_IOC_MAGIC, 0x03, struct gotrace_status)
#define GOTRACE_SNAPSHOT _IOWR(GOTRACE_IOC_MAGIC, 0x04, struct gotrace_snapshot)
#define GOTRACE_TRIGGER	_IOWR(GOTRACE_IOC_MAGIC, 0x05, struct gotrace_trigger)

/*
 * User annotations: /dev/gotrace-annotate
 * ---------------------------------------
 * A second device node records a process's own annotations into the trace
 * being recorded, as Go's runtime/trace records trace.NewTask, trace.WithRegion
 * and trace.Log: tasks, regions and log messages, on the calling thread's
 * goroutine. open() admits a process with CAP_PERFMON (or CAP_SYS_ADMIN) or
 * in the group of the module parameter annotate_gid; others get EPERM. It has
 * no read() and none of /dev/gotrace's ioctls (ENOTTY).
 *
 * write() of text records one log message: "CATEGORY: MESSAGE", where
 * CATEGORY is 1 to GOTRACE_ANNOTATE_CATEGORY_MAX characters of [A-Za-z0-9_.-];
 * text that does not start so is a message of the empty category. One
 * trailing newline is dropped. A message longer than GOTRACE_ANNOTATE_STR_MAX
 * bytes is cut: write() returns the bytes it took, fewer than given.
 *
 * Strings (task and region names, categories, messages) are at most
 * GOTRACE_ANNOTATE_STR_MAX bytes as the trace shows them: a byte that is not
 * part of valid UTF-8, and NUL, are shown as the four characters \xNN.
 * Longer ones given to an ioctl: EMSGSIZE. The trace holds each distinct
 * string once; a session's strings have a bounded room
 * (GOTRACE_ANNOTATE_STRINGS strings, GOTRACE_ANNOTATE_STR_BYTES bytes), and
 * an annotation that needs a new string once it is full fails with ENOSPC.
 *
 * Errors of every call: ENODATA when no session is recording (none started,
 * stopped, or cut short), or when it does not record the calling thread
 * (e.g. its thread id is at or above max_tid); nothing is recorded.
 */

/* Longest category write() recognises, and longest string. */
#define GOTRACE_ANNOTATE_CATEGORY_MAX	31
#define GOTRACE_ANNOTATE_STR_MAX	255
/* A session's room for distinct strings, and for their bytes. */
#define GOTRACE_ANNOTATE_STRINGS	4096
#define GOTRACE_ANNOTATE_STR_BYTES	(128 * 1024)
/* Tasks a session can begin; regions open at once on all threads. */
#define GOTRACE_ANNOTATE_TASKS		65536
#define GOTRACE_ANNOTATE_REGIONS	1024

/**
 * struct gotrace_task_begin - argument of GOTRACE_TASK_BEGIN
 * @size:	Input: sizeof(struct gotrace_task_begin) as user space knows
 *		it, at least GOTRACE_TASK_BEGIN_SIZE_VER0. Output: the bytes
 *		the kernel wrote, as struct gotrace_status's.
 * @flags:	Input: 0; no flag is defined yet.
 * @parent:	Input: the parent task's id, 0 for none. Not checked: a
 *		task of an earlier trace may be named.
 * @name:	Input: user pointer to the task's name (not NUL-terminated).
 * @name_len:	Input: its bytes.
 * @reserved32: Input: set to 0.
 * @id:		Output: the new task's id, from 1, unique in the session.
 * @reserved:	Input: set to 0.
 *
 * Begins a task (UserTaskCreate; UserTaskBegin with generations). Errors:
 * ENOSPC once the session began GOTRACE_ANNOTATE_TASKS tasks.
 */
struct gotrace_task_begin {
	__u32 size;
	__u32 flags;
	__u64 parent;
	__u64 name;
	__u32 name_len;
	__u32 reserved32;
	__u64 id;
	__u64 reserved[2];
};

#define GOTRACE_TASK_BEGIN_SIZE_VER0 56	/* sizeof first published struct */

/**
 * struct gotrace_task_end - argument of GOTRACE_TASK_END
 * @size:	Input: sizeof(struct gotrace_task_end) as user space knows
 *		it, at least GOTRACE_TASK_END_SIZE_VER0.
 * @flags:	Input: 0; no flag is defined yet.
 * @id:		Input: a task GOTRACE_TASK_BEGIN began in this session.
 * @reserved:	Input: set to 0.
 *
 * Ends a task, on any thread. Errors: ENOENT if the session began no
 * task @id, or it has ended.
 */
struct gotrace_task_end {
	__u32 size;
	__u32 flags;
	__u64 id;
	__u64 reserved[2];
};

#define GOTRACE_TASK_END_SIZE_VER0 32	/* sizeof first published struct */

/**
 * struct gotrace_region - argument of GOTRACE_REGION_BEGIN and _END
 * @size:	Input: sizeof(struct gotrace_region) as user space knows it,
 *		at least GOTRACE_REGION_SIZE_VER0.
 * @flags:	Input: GOTRACE_REGION_* flags.
 * @task:	Input: GOTRACE_REGION_BEGIN: the task the region belongs to,
 *		0 for none (not checked, as @parent above). GOTRACE_REGION_END:
 *		0.
 * @name:	Input: user pointer to the region's name.
 * @name_len:	Input: its bytes.
 * @reserved32: Input: set to 0.
 * @reserved:	Input: set to 0.
 *
 * GOTRACE_REGION_BEGIN begins a region on the calling thread (regions of
 * a thread nest). GOTRACE_REGION_END ends the calling thread's innermost
 * region of this session; with GOTRACE_REGION_NAME only if its name is
 * @name, as Go's readers reject an end that is not the innermost begin's.
 * Errors: ENOENT when the thread has no region open; EINVAL when the name
 * differs; ENOSPC when GOTRACE_ANNOTATE_REGIONS regions are open. A
 * thread that exits or changes its name (exec, PR_SET_NAME) starts a new
 * goroutine in the trace: regions still open are dropped from the trace's
 * view, not from the kernel's.
 */
struct gotrace_region {
	__u32 size;
	__u32 flags;
	__u64 task;
	__u64 name;
	__u32 name_len;
	__u32 reserved32;
	__u64 reserved[2];
};

#define GOTRACE_REGION_SIZE_VER0 48	/* sizeof first published struct */

/* GOTRACE_REGION_END: check the innermost region's name. */
#define GOTRACE_REGION_NAME	0x1
#define GOTRACE_REGION_FLAGS	GOTRACE_REGION_NAME

/**
 * struct gotrace_log - argument of GOTRACE_LOG
 * @size:	Input: sizeof(struct gotrace_log) as user space knows it, at
 *		least GOTRACE_LOG_SIZE_VER0.
 * @flags:	Input: 0; no flag is defined yet.
 * @task:	Input: the task the message belongs to, 0 for none.
 * @category:	Input: user pointer to its category (any string here).
 * @message:	Input: user pointer to the message.
 * @category_len: Input: the category's bytes.
 * @message_len: Input: the message's bytes.
 * @reserved:	Input: set to 0.
 *
 * Records a log message (UserLog) on the calling thread.
 */
struct gotrace_log {
	__u32 size;
	__u32 flags;
	__u64 task;
	__u64 category;
	__u64 message;
	__u32 category_len;
	__u32 message_len;
	__u64 reserved[2];
};

#define GOTRACE_LOG_SIZE_VER0	56	/* sizeof first published struct */

/* A request's reason: 1 to GOTRACE_REQUEST_REASON_MAX bytes. */
#define GOTRACE_REQUEST_REASON_MAX	63
/* The least time between two requests a flight recorder takes. */
#define GOTRACE_REQUEST_INTERVAL_NS	1000000000ULL

/**
 * struct gotrace_request - argument of GOTRACE_REQUEST
 * @size:	Input: sizeof(struct gotrace_request) as user space knows it,
 *		at least GOTRACE_REQUEST_SIZE_VER0.
 * @flags:	Input: 0; no flag is defined yet.
 * @reason:	Input: user pointer to the reason (not NUL-terminated).
 * @reason_len:	Input: its bytes, 1 to GOTRACE_REQUEST_REASON_MAX.
 * @reserved32:	Input: set to 0.
 * @reserved:	Input: set to 0.
 *
 * Asks the reader of a flight recorder (gotrace service, gotrace record
 * --flight) for a snapshot: GOTRACE_TRIGGER gives it the request, with the
 * calling thread, its user id and the reason, and the reader decides. The
 * reason is also a log message (UserLog, category "gotrace.snapshot") on the
 * calling thread if the trace records it. Who may ask is who may open
 * /dev/gotrace-annotate. Errors: ENODATA when no flight recorder records,
 * or its reader takes no requests (it has not called GOTRACE_TRIGGER with
 * GOTRACE_TRIGGER_SIZE_VER1); EBUSY while the last request waits to be taken, or within
 * GOTRACE_REQUEST_INTERVAL_NS of the last one; EMSGSIZE for a longer
 * reason; EINVAL for an empty one.
 */
struct gotrace_request {
	__u32 size;
	__u32 flags;
	__u64 reason;
	__u32 reason_len;
	__u32 reserved32;
	__u64 reserved[2];
};

#define GOTRACE_REQUEST_SIZE_VER0 40	/* sizeof first published struct */

/* Commands of /dev/gotrace-annotate (the same magic, numbers after the above). */
#define GOTRACE_TASK_BEGIN	_IOWR(GOTRACE_IOC_MAGIC, 0x06, struct gotrace_task_begin)
#define GOTRACE_TASK_END	_IOW(GOTRACE_IOC_MAGIC, 0x07, struct gotrace_task_end)
#define GOTRACE_REGION_BEGIN	_IOW(GOTRACE_IOC_MAGIC, 0x08, struct gotrace_region)
#define GOTRACE_REGION_END	_IOW(GOTRACE_IOC_MAGIC, 0x09, struct gotrace_region)
#define GOTRACE_LOG		_IOW(GOTRACE_IOC_MAGIC, 0x0A, struct gotrace_log)
#define GOTRACE_REQUEST		_IOW(GOTRACE_IOC_MAGIC, 0x0B, struct gotrace_request)

#endif /* _UAPI_LINUX_GOTRACE_H */
