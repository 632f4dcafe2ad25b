#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare a gotrace trace with ftrace's text of the same session, thread by thread.

Usage: ftrace-compare.py [--gotrace BIN] [--diffs N] [--quiet] [--window] [--kernel KVER]
                         [--preemptible-probes] TRACE FTRACE

TRACE is what `gotrace record --clock mono` wrote, in either format; FTRACE is
/sys/kernel/tracing/trace of an
ftrace session that covered it, with sched_switch, sched_wakeup, sched_wakeup_new,
sched_process_fork, sched_process_exit and task_rename enabled and trace_clock mono: the
same clock (ktime_get_mono_fast_ns()) as gotrace's, so both are on one time line. The
gotrace trace is read through `gotrace dump --ticks` (Go's merged order, time stamps in
the clock's ticks): its absolute time is its smallest time stamp's. A trace of Go 1.22's
format (with generations) is read through `gotrace dump`, which prints what Go 1.27's
`go tool trace -d=parsed` does: its goroutine state transitions in Go's order, time stamps
in ns of the same clock; they are named as the older format's events they stand for (Undetermined->X of
the first generation: the start snapshot, ended by the first gomaxprocs metric; NotExist->
Runnable: GoCreate; Runnable->Running: GoStart; Waiting->Runnable: GoUnblock; Running->
Runnable: GoPreempt; Running->Waiting: GoBlock; Running->NotExist: GoEnd), and a
generation's statuses (X->X) are left out. Go's reader moves a time stamp equal to the
previous event's 1 ns later: a rename's three events are a few ns apart.

Both histories are put in one vocabulary, per thread: fork (of a child, by id), in
(switch-in), preempted / blocked / dead (switch-out), wakeup (of a blocked thread), rename.
gotrace: GoStart = in; GoPreempt, GoSched = preempted; GoBlock*, GoSleep, GoSysBlock =
blocked; GoEnd = dead; GoUnblock, GoSysExit = wakeup; GoCreate = fork (in the creator's
history, and the child's birth). ftrace: prev_state R or R+ = preempted, X or Z = dead, any
other = blocked; exits (sched_process_exit) are checked against the deaths.

The differences gotrace has by design are handled one by one, and counted:
  - sched_wakeup of a thread that is running or already runnable: gotrace writes nothing;
  - sched_wakeup_new: gotrace's GoCreate already made the child runnable;
  - a rename (GoEnd, then GoCreate and GoStart of the same thread id on the same P at the
    same time) is one thread; a thread renamed by another one is renamed in gotrace when it
    next switches in, so ftrace's rename is moved there;
  - a switch-out ftrace shows as blocked that the thread comes back from without a wakeup
    (a signal was pending: __schedule() did not dequeue it) is preempted, as gotrace says;
  - a switch-out ftrace shows as X or Z (exit_state set) after which the thread runs again
    is preempted: only the last one is its death;
  - with --kernel older than 5.18, a switch-out ftrace shows as R (not R+: not a
    preemption) after which the thread is woken before it runs again is blocked, as
    gotrace says: before 5.18
    (fa2c3254d7cf) the event re-read prev's state at the tracepoint, after __schedule()
    had dequeued it, and a waker on another CPU may have set it to TASK_WAKING by then,
    which the event shows as R; gotrace reads the same word and sees a blocked thread.
    From 5.18 the state is the one __schedule() read, and a thread left running is not
    woken again;
  - with --preemptible-probes (kernels whose tracepoint.h runs probes under SRCU-fast
    with preemption on, as 7.2 and 7.3 do; before, under preempt_disable), a thread may
    be preempted between ftrace's probe of its own fork or rename and gotrace's, which then
    runs after the thread's next switch-in: where gotrace has the preemption and the
    switch-in first, ftrace's event is moved after them.

Threads born and dead inside the gotrace session must have the same transitions, in the
same order, with the same forks, and a sched_process_exit before their death. Threads
alive at the start or the end (edge threads) are compared inside the session only, and may
differ in their transitions within --edge-tol ns of its end (probes that were running when
recording stopped or was cut: a guest's vCPU that the host deschedules between ftrace's probe
and gotrace's stretches that moment, measured up to 45 ms under TCG on a loaded host, so a
thread's last switch ftrace stamped 1.6 ms before the stop reached gotrace after it); the state ftrace has not seen of a thread that existed
before it started is what gotrace's start snapshot says.

Time: ftrace's and gotrace's probes of one tracepoint run one after the other, ftrace's
first, so gotrace's time stamp of each transition must lie after ftrace's (less gotrace's
64 ns tick) and before ftrace's next event on that CPU that ran with interrupts off (plus
ftrace's 1 us resolution). The median gap of each kind of transition with interrupts off
(of which there are at least GAP_MEDIAN_MIN) must be below --gap-median ns. Each thread's time on CPU must agree within --cpu-rel of it,
plus 1 us per run (resolution), plus the gaps between the two probes of its switches: in a
TCG guest on a busy host those are 1-3 us typically but reach milliseconds (the vCPU is
descheduled, or waits for QEMU's lock to read the HPET, between the two clock reads).

A flight recorder's snapshot (--window): TRACE holds the newest whole generations
(`gotrace record --flight`, format 1.22+), FTRACE the whole recording and more. The
comparison is inside the snapshot's window, from its first time stamp to its last. Its first
generation's statuses (Undetermined->X) are each thread's state at the window's start: an
M writes a goroutine's status just before its first event on that M in the generation, so
the status is the state from the window's start to that time. It is compared with the
state ftrace's events before that time leave the thread in (running, runnable or blocked;
unknown if ftrace saw nothing of it, which is not compared): ftrace's events before it only
establish that state, and are not compared otherwise. Threads ftrace saw die before the
window are left out; from the window's start on, every thread is compared as above (those
alive at the start are edge threads). The transition ftrace stamped before a status (within
--start-tol) whose gotrace event the status came with (the two probes ran on either side
of the status's time) is compared if gotrace has it first and the state before it is the
status; counted.

Prints the figures (threads compared, transitions per kind, design differences handled,
differences, largest time stamp and on-CPU deviations). Exit status 0 if there is no
difference, 1 if there is, 2 if the inputs cannot be read.
"""

import argparse
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict

PID_LIMIT = 4194304
BLOCKS = {"GoBlock", "GoBlockSend", "GoBlockRecv", "GoBlockSelect", "GoBlockSync",
          "GoBlockCond", "GoBlockNet", "GoBlockGC", "GoSleep", "GoSysBlock"}
KINDS = ("fork", "in", "preempted", "blocked", "dead", "wakeup", "rename")
FTRACE_RES = 1000       # ftrace prints microseconds
# ...rounded to the nearest (the kernel's ns2usecs() adds 500 ns): its event may be up to
# this much before the time it prints.
FTRACE_ROUND = FTRACE_RES // 2
TICK = 64               # gotrace's CLOCK_MONOTONIC tick
GAP_MEDIAN_MIN = 20     # transitions of a kind before its median gap is judged


class InputError(Exception):
    """An input cannot be read."""


class Thread:
    """One thread's history on one side: seq is [kind, arg, time, where] lists."""

    def __init__(self, tid, born, ident):
        self.tid = tid
        self.born = born        # fork time, None if it existed before
        self.ident = ident      # goroutine id(s) or ftrace incarnation, for messages
        self.seq = []
        self.state = "unknown"  # new, running, runnable, blocked, dead, unknown
        self.run_start = None
        self.runs = []          # (in, out) times
        self.dead = None        # time of the last switch-out
        self.exited = False
        self.comm = ""
        self.last_out = None    # index in seq of the last switch-out
        self.out_r = False      # ftrace: that switch-out showed R, not R+
        self.pending_rename = None
        self.ambiguous = False
        self.snap_state = None  # gotrace: its state when the start snapshot ends
        self.snap_at = None     # gotrace: the time of its start status (or None)

    def add(self, kind, arg, ts, where):
        e = [kind, arg, ts, where, None]
        self.seq.append(e)
        return e


# --- gotrace ---------------------------------------------------------------------------

def gotrace_dump(gotrace, path):
    """The events of `gotrace dump`: (time, name, P, G, [(arg, value)...], stk, line no),
    time in ns since the first event as plain `gotrace dump` prints it; and the absolute
    time (ns) of that first event."""
    try:
        p = subprocess.run([gotrace, "dump", "--ticks", path], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True, check=False)
    except OSError as e:
        raise InputError("cannot run %s: %s" % (gotrace, e))
    if p.returncode:
        raise InputError("%s dump --ticks %s failed: %s" % (gotrace, path, p.stderr.strip()))
    lines = p.stdout.splitlines()
    if not lines or not lines[0].startswith("ticks_per_sec="):
        raise InputError("%s dump --ticks %s: no ticks_per_sec= first line" % (gotrace, path))
    freq = int(lines[0].partition("=")[2])
    if freq != 15625000:
        raise InputError("%s: %d ticks per second: not gotrace's CLOCK_MONOTONIC clock "
                         "(record with --clock mono)" % (path, freq))
    evs = []
    for n, line in enumerate(lines[1:], 1):
        tok = line.split()
        if len(tok) < 5 or tok[0].startswith("\t"):
            continue
        args, stk = [], 0
        for t in tok[5:]:
            k, _, v = t.partition("=")
            if k == "stk":
                stk = int(v)
            elif v.lstrip("-").isdigit():
                args.append((k, int(v)))
        evs.append((int(tok[0]), tok[1], int(tok[2][2:]), int(tok[3][2:]), args, stk, n))
    if not evs:
        raise InputError("%s: no events" % path)
    # As gotrace dump without --ticks (and Go): ns since the smallest time stamp.
    min_ts = min(e[0] for e in evs)
    ns_per_tick = 1e9 / freq
    evs = [(int((e[0] - min_ts) * ns_per_tick),) + e[1:] for e in evs]
    return evs, min_ts * 1e9 / freq


# Go 1.22+ state transitions as the older format's events (see the docstring).
GO_TRANSITIONS = {
    "NotExist->Runnable": "GoCreate", "Runnable->Running": "GoStart",
    "Waiting->Runnable": "GoUnblock", "Running->Runnable": "GoPreempt",
    "Running->Waiting": "GoBlock", "Running->NotExist": "GoEnd",
    "Undetermined->Running": "GoStart", "Undetermined->Runnable": "GoCreate",
    "Undetermined->Waiting": "GoWaiting",
}
PARSED = re.compile(r"^M=(-?\d+) P=(-?\d+) G=(-?\d+) (\w+) Time=(\d+)(.*)$")
GOID = re.compile(r" GoID=(\d+) (\w+->\w+) ")


def gotrace_parsed(gotrace, path, window=False):
    """As gotrace_dump(), for a trace of Go 1.22's format: its events as `gotrace dump`
    (Go 1.27's -d=parsed) prints them; the M stands for the P (one M per CPU). With window
    (a snapshot), the first generation's statuses stay where Go's order put them, named
    Status (each M writes a goroutine's status before its first event on that M in the
    generation, at that event's time: a status may come after other events)."""
    try:
        p = subprocess.run([gotrace, "dump", path], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True, check=False)
    except OSError as e:
        raise InputError("cannot run %s: %s" % (gotrace, e))
    if p.returncode:
        raise InputError("%s dump %s failed: %s" % (gotrace, path, p.stderr.strip()[-500:]))
    evs, snap = [], []
    for n, line in enumerate(p.stdout.splitlines(), 1):
        m = PARSED.match(line)
        if not m:
            continue
        mid, g, kind, ts, rest = int(m.group(1)), int(m.group(3)), m.group(4), \
            int(m.group(5)), m.group(6)
        if kind == "Metric" and '"/sched/gomaxprocs:threads"' in rest:
            evs.append((ts, "Gomaxprocs", mid, max(g, 0), [], 0, n))
            continue
        t = GOID.search(rest + " ") if kind == "StateTransition" else None
        name = GO_TRANSITIONS.get(t.group(2)) if t else None
        if name and window and t.group(2).startswith("Undetermined"):
            evs.append((ts, "Status" + name, mid, max(g, 0), [("g", int(t.group(1)))], 0, n))
        elif name:
            # The start snapshot's statuses, wherever Go's order put them (another M's
            # may come after the snapshot's end, at the same time stamp).
            (snap if t.group(2).startswith("Undetermined") else evs).append(
                (ts, name, mid, max(g, 0), [("g", int(t.group(1)))], 0, n))
    end = next((i for i, e in enumerate(evs) if e[1] == "Gomaxprocs"), 0)
    evs[end:end] = snap
    if not evs:
        raise InputError("%s: no events" % path)
    min_ts = min(e[0] for e in evs)
    return [(e[0] - min_ts,) + e[1:] for e in evs], min_ts


def trace_version(path):
    """The minor version a trace's header names (go 1.NN trace)."""
    with open(path, "rb") as f:
        m = re.match(rb"go 1\.(\d+) trace", f.read(16))
    if not m:
        raise InputError("%s: not a Go trace" % path)
    return int(m.group(1))


def gotrace_threads(evs, base, stats, window=False):
    """Per-thread histories from gotrace's events; also the session's start and end. With
    window, the statuses (Status*, see gotrace_parsed()) are each thread's state from its
    status on, and a thread running then runs from the window's start."""
    by_p = defaultdict(list)
    for i, e in enumerate(evs):
        by_p[e[2]].append(i)
    nxt = {}
    for idx in by_p.values():
        for a, b in zip(idx, idx[1:]):
            nxt[a] = b
    # The closing GoSched of each P: no stack, followed by nothing but its ProcStop.
    closing = set()
    end = None
    for idx in by_p.values():
        if len(idx) >= 2 and evs[idx[-1]][1] == "ProcStop" and evs[idx[-2]][1] == "GoSched" \
                and not evs[idx[-2]][5]:
            closing.add(idx[-2])
        t = evs[idx[-1]][0]
        end = t if end is None else max(end, t)
    start = min(e[0] for e in evs) if window else evs[0][0]
    g_thread = {}
    threads = []
    snapshot = not window
    skip = set()

    def thread_of(g, ts, create=False):
        t = g_thread.get(g)
        # Go 1.22's format creates a thread id's goroutine again for its next holder.
        if t is None or (create and t.dead is not None):
            t = Thread(g % PID_LIMIT, None if snapshot or not create else ts, [g])
            g_thread[g] = t
            threads.append(t)
        return t

    for i, (ts, name, p, g, args, stk, line) in enumerate(evs):
        if i in skip:
            continue
        at = base + ts
        where = "gotrace dump line %d: %d %s p=%d g=%d%s" % (
            line, ts, name, p, g, "".join(" %s=%d" % a for a in args))
        if name.startswith("Status"):
            t = Thread(args[0][1] % PID_LIMIT, None, [args[0][1]])
            g_thread[args[0][1]] = t
            threads.append(t)
            t.state = {"StatusGoStart": "running", "StatusGoCreate": "runnable"}.get(
                name, "blocked")
            t.snap_state, t.snap_at = t.state, at
            if t.state == "running":
                t.run_start = base + start
            continue
        if name == "Gomaxprocs":
            if snapshot:
                for t in threads:
                    t.snap_state = t.state
            snapshot = False
            continue
        if snapshot:
            if name == "GoCreate":
                t = thread_of(args[0][1], at, True)
                t.state = "runnable"
            elif name in ("GoWaiting", "GoInSyscall"):
                t = thread_of(args[0][1], at)
                t.state = "blocked"
            elif name in ("GoStart", "GoStartLocal"):
                t = thread_of(args[0][1], at)
                t.state = "running"
                t.run_start = base + start
            else:
                continue
            t.snap_at = at
            continue
        if name == "GoCreate":
            child = args[0][1]
            t = thread_of(child, at, True)
            t.state = "new"
            if g:
                thread_of(g, at).add("fork", child % PID_LIMIT, at, where)
            else:
                stats["gotrace creates by G 0 (first switch-in)"] += 1
            continue
        if name in ("GoStart", "GoStartLocal"):
            t = thread_of(args[0][1], at)
            t.add("in", None, at, where)
            t.state = "running"
            t.run_start = at
            continue
        if name in ("GoUnblock", "GoUnblockLocal", "GoSysExit"):
            t = thread_of(args[0][1], at)
            t.add("wakeup", None, at, where)
            t.state = "runnable"
            continue
        if name in ("GoSched", "GoPreempt") or name in BLOCKS or name == "GoEnd":
            t = thread_of(g, at)
            if i in closing:
                if t.run_start is not None:
                    t.runs.append((t.run_start, at))
                t.run_start = None
                continue
            if name == "GoEnd":
                j = nxt.get(i)
                k = nxt.get(j) if j is not None else None
                if j is not None and evs[j][1] == "GoCreate" and evs[j][0] - ts <= 2 and \
                        evs[j][4][0][1] % PID_LIMIT == g % PID_LIMIT:
                    # A rename: the same thread goes on as the new goroutine.
                    new = evs[j][4][0][1]
                    g_thread[new] = t
                    t.ident.append(new)
                    t.add("rename", None, at, where)
                    stats["gotrace renames (GoEnd, GoCreate, GoStart) taken as one thread"] += 1
                    skip.add(j)
                    if k is not None and evs[k][1] in ("GoStart", "GoStartLocal") and \
                            evs[k][4][0][1] == new:
                        skip.add(k)
                    continue
            kind = "dead" if name == "GoEnd" else \
                "preempted" if name in ("GoSched", "GoPreempt") else "blocked"
            t.add(kind, None, at, where)
            t.state = kind if kind != "preempted" else "runnable"
            if t.run_start is not None:
                t.runs.append((t.run_start, at))
            t.run_start = None
            if kind == "dead":
                t.dead = at
    return threads, base + start, base + end


# --- ftrace ----------------------------------------------------------------------------

LINE = re.compile(r"^\s*(.*)-(\d+)\s+\[(\d+)\]\s+(\S+\s+)?(\d+)\.(\d{6}):\s+(\w+):\s+(.*)$")
SWITCH = re.compile(r"prev_comm=(.*) prev_pid=(\d+) prev_prio=-?\d+ prev_state=(\S+) ==> "
                    r"next_comm=(.*) next_pid=(\d+) next_prio=-?\d+$")
WAKEUP = re.compile(r"comm=(.*) pid=(\d+) prio=-?\d+ (?:success=\d+ )?target_cpu=\d+$")
FORK = re.compile(r"comm=(.*) pid=(\d+) child_comm=(.*) child_pid=(\d+)$")
EXIT = re.compile(r"comm=(.*) pid=(\d+) prio=-?\d+")
RENAME = re.compile(r"(?:pid=(\d+) )?oldcomm=(.*) newcomm=(.*?)(?: oom_score_adj=-?\d+)?$")


def waking_before_5_18(release):
    """Whether kernel release RELEASE (uname -r) is older than 5.18."""
    m = re.match(r"(\d+)\.(\d+)", release)
    return bool(m) and (int(m.group(1)), int(m.group(2))) < (5, 18)


def ftrace_threads(path, stats, gotrace_state, waking_r=False):
    """Per-thread histories from ftrace's text, in its order (time order across CPUs).

    waking_r: the kernel is older than 5.18, whose sched_switch shows a thread a waker
    already set to TASK_WAKING as R."""
    live = defaultdict(list)        # tid -> incarnations not known dead
    # Entries whose gotrace time stamp must come before the next event on their CPU
    # (probes with interrupts off), or before its next switch (fork, rename).
    wait_any = defaultdict(list)
    wait_switch = defaultdict(list)
    last_dead = {}                  # tid -> the incarnation that died last
    threads = []
    cpu_cur = {}
    try:
        f = open(path, errors="replace")
    except OSError as e:
        raise InputError(str(e))

    def new_thread(tid, born, comm):
        t = Thread(tid, born, "ftrace %d#%d" % (tid, sum(1 for x in threads if x.tid == tid)))
        t.comm = comm
        live[tid].append(t)
        threads.append(t)
        return t

    def pick(tid, states, comm=None):
        cands = [t for t in live[tid] if t.state in states]
        if len(cands) > 1 and comm is not None:
            named = [t for t in cands if t.comm == comm]
            if named:
                cands = named
        if len(cands) > 1:
            for t in cands:
                t.ambiguous = True
        return cands[0] if cands else None

    def running(cpu, tid):
        t = cpu_cur.get(cpu)
        if t is not None and t.tid == tid:
            return t
        return pick(tid, ("running", "unknown")) or new_thread(tid, None, "")

    with f:
        for n, line in enumerate(f, 1):
            if line.startswith("#"):
                continue
            if "LOST" in line and "EVENTS" in line:
                raise InputError("%s:%d: ftrace lost events: %s" % (path, n, line.strip()))
            m = LINE.match(line)
            if not m:
                continue
            cpu = int(m.group(3))
            ts = int(m.group(5)) * 1000000000 + int(m.group(6)) * 1000
            ev, body = m.group(7), m.group(8)
            where = "ftrace line %d: %s" % (n, line.strip())
            # An event with interrupts on may carry the time stamp of one that interrupted
            # its reservation (the ring buffer's nesting): only those with interrupts off
            # bound the time of the events before them.
            if (m.group(4) or "d").startswith("d"):
                for e in wait_any.pop(cpu, ()):
                    e[4] = ts
            if ev == "sched_switch":
                for e in wait_switch.pop(cpu, ()):
                    e[4] = ts
            if ev == "sched_switch":
                s = SWITCH.match(body)
                if not s:
                    raise InputError("%s:%d: cannot parse %s" % (path, n, body))
                prev, pstate, nxt = int(s.group(2)), s.group(3), int(s.group(5))
                if prev:
                    t = running(cpu, prev)
                    t.comm = s.group(1)
                    if "X" in pstate or "Z" in pstate:
                        kind = "dead"
                    elif pstate.startswith("R"):
                        kind = "preempted"
                    else:
                        kind = "blocked"
                    wait_any[cpu].append(t.add(kind, None, ts, where))
                    t.last_out = len(t.seq) - 1
                    t.out_r = pstate == "R"
                    if t.run_start is not None:
                        t.runs.append((t.run_start, ts))
                    t.run_start = None
                    t.state = "runnable" if kind == "preempted" else kind
                    if kind == "dead":
                        t.dead = ts
                        live[prev].remove(t)
                        last_dead[prev] = t
                cpu_cur[cpu] = None
                if nxt:
                    comm = s.group(4)
                    t = pick(nxt, ("new", "runnable"), comm) or \
                        pick(nxt, ("blocked", "unknown"), comm)
                    if t is None and nxt in last_dead and last_dead[nxt].state == "dead":
                        # Shown as X or Z, but not its last switch-out.
                        t = last_dead.pop(nxt)
                        t.seq[t.last_out][0] = "preempted"
                        t.state, t.dead = "runnable", None
                        live[nxt].append(t)
                        stats["ftrace X/Z switch-outs followed by a run: preempted"] += 1
                    if t is None:
                        t = new_thread(nxt, None, comm)
                    if t.state == "blocked":
                        t.seq[t.last_out][0] = "preempted"
                        stats["ftrace blocked switch-outs back without a wakeup "
                              "(signal pending): preempted"] += 1
                    t.comm = comm
                    wait_any[cpu].append(t.add("in", None, ts, where))
                    t.state = "running"
                    t.run_start = ts
                    cpu_cur[cpu] = t
                    if t.pending_rename is not None:
                        wait_any[cpu].append(t.add("rename", None, ts, t.pending_rename))
                        t.pending_rename = None
                        stats["ftrace renames by another thread, moved to the next "
                              "switch-in"] += 1
            elif ev in ("sched_wakeup", "sched_wakeup_new"):
                s = WAKEUP.match(body)
                if not s:
                    raise InputError("%s:%d: cannot parse %s" % (path, n, body))
                tid = int(s.group(2))
                if ev == "sched_wakeup_new":
                    if pick(tid, ("new",)) is not None:
                        stats["ftrace wakeup_new of a new thread (GoCreate made it "
                              "runnable)"] += 1
                    continue
                if not live[tid]:
                    new_thread(tid, None, s.group(1))
                t = pick(tid, ("blocked",)) or pick(tid, ("unknown",))
                r = pick(tid, ("runnable",)) if t is None and waking_r else None
                if r is not None and r.out_r:
                    # Switched out as R (TASK_WAKING), woken before its next run.
                    r.seq[r.last_out][0] = "blocked"
                    r.state, t = "blocked", r
                    stats["ftrace R switch-outs woken before their next run (a waker's "
                          "TASK_WAKING, before 5.18): blocked"] += 1
                if t is not None and t.state == "unknown":
                    # Not seen since ftrace started: asleep before the session, else
                    # what gotrace's start snapshot says.
                    st = gotrace_state(tid, ts)
                    stats["ftrace wakeups of a thread in an unknown state, taken as "
                          "gotrace's snapshot says (%s)" % st] += 1
                    if st != "blocked":
                        t.state = st
                        t = None
                if t is None:
                    st = "running or runnable"
                    if live[tid]:
                        st = live[tid][0].state
                    stats["ftrace wakeups of a thread not waiting (%s): no gotrace "
                          "event" % st] += 1
                    continue
                wait_any[cpu].append(t.add("wakeup", None, ts, where))
                t.state = "runnable"
            elif ev == "sched_process_fork":
                s = FORK.match(body)
                if not s:
                    raise InputError("%s:%d: cannot parse %s" % (path, n, body))
                parent, child = int(s.group(2)), int(s.group(4))
                wait_switch[cpu].append(running(cpu, parent).add("fork", child, ts, where))
                c = new_thread(child, ts, s.group(3))
                c.state = "new"
                if len(live[child]) > 1:
                    stats["ftrace ids reused before the previous holder's last "
                           "switch-out"] += 1
            elif ev == "sched_process_exit":
                s = EXIT.match(body)
                if not s:
                    raise InputError("%s:%d: cannot parse %s" % (path, n, body))
                running(cpu, int(s.group(2))).exited = True
            elif ev == "task_rename":
                s = RENAME.match(body)
                if not s:
                    raise InputError("%s:%d: cannot parse %s" % (path, n, body))
                cur = int(m.group(2))
                tid = int(s.group(1)) if s.group(1) else cur
                if tid == cur:
                    t = running(cpu, tid)
                    wait_switch[cpu].append(t.add("rename", None, ts, where))
                else:
                    t = pick(tid, ("new", "runnable", "blocked", "unknown"))
                    if t is not None:
                        t.pending_rename = where
                if t is not None:
                    t.comm = s.group(3)
    for t in threads:
        if t.run_start is not None:
            t.runs.append((t.run_start, None))
    return threads


# --- comparison ------------------------------------------------------------------------

def on_cpu(t, start, end):
    total = 0
    for a, b in t.runs:
        a = max(a, start)
        b = end if b is None else min(b, end)
        if b > a:
            total += b - a
    if t.run_start is not None and t.run_start < end:
        total += end - max(t.run_start, start)
    return total


# A thread's state after each kind of transition (fork and rename leave it as it is).
AFTER = {"in": "running", "preempted": "runnable", "wakeup": "runnable",
         "blocked": "blocked", "dead": "dead"}


def state_before(f, k):
    """ftrace thread f's state before its transition k: unknown if ftrace saw nothing of
    it before, runnable after its fork."""
    st = "unknown" if f.born is None else "runnable"
    for x in f.seq[:k]:
        st = AFTER.get(x[0], st)
    return st


def window_start(g, f, start, opts, fig):
    """--window: the index of f's first transition inside the window (see the
    docstring), and a difference if the state before it is not g's start status (at the
    time of its status, its first event in the snapshot's order)."""
    if g.snap_state is None:
        return next((i for i, x in enumerate(f.seq) if x[2] >= start), len(f.seq)), None
    k = next((i for i, x in enumerate(f.seq) if x[2] >= g.snap_at), len(f.seq))
    st = state_before(f, k)
    if st != g.snap_state and k and g.seq and f.seq[k - 1][2] >= start - opts.start_tol and \
            state_before(f, k - 1) == g.snap_state and \
            f.seq[k - 1][0] == g.seq[0][0] and f.seq[k - 1][1] == g.seq[0][1]:
        fig["ftrace transitions stamped before the window's start that gotrace has in it: "
            "moved in"] += 1
        return k - 1, None
    if st == "unknown":
        fig["starting states ftrace has not seen (not compared)"] += 1
        return k, None
    fig["starting states compared"] += 1
    if st == g.snap_state:
        return k, None
    return k, "starting state differs: gotrace's first generation says %s, ftrace %s\n" \
        "    ftrace:  %s\n    gotrace: status at %d" % (
            g.snap_state, st, f.seq[k - 1][3] if k else "nothing before the window",
            g.snap_at)


def probe_preempted(fseq, gseq, n, fig):
    """--preemptible-probes: ftrace has a thread's own fork or rename at n, then its
    preemption and next switch-in, where gotrace has the preemption and the switch-in
    first: the thread was preempted between ftrace's probe and gotrace's. Move ftrace's
    event after the switch-in (past each such pair gotrace has first); its time stays
    ftrace's, with no bound after it. Return whether it moved."""
    x = fseq[n]
    if x[0] not in ("fork", "rename"):
        return False
    k = n
    while [y[0] for y in fseq[k + 1:k + 3]] == ["preempted", "in"] and \
            [y[0] for y in gseq[k:k + 2]] == ["preempted", "in"]:
        k += 2
    if k == n or k >= len(gseq) or gseq[k][0] != x[0] or gseq[k][1] != x[1]:
        return False
    fseq[n:k + 1] = fseq[n + 1:k + 1] + [x]
    x[4] = None
    fig["ftrace forks and renames whose thread was preempted before gotrace's probe ran: "
        "moved after its next switch-in"] += 1
    return True


def compare(gth, fth, start, end, opts, out):
    """Match the threads, compare them; return the figures and the differences."""
    fig = Counter()
    diffs = []
    ts_dev = []
    cpu_dev = []        # (relative, absolute, thread)
    gby = defaultdict(list)
    fby = defaultdict(list)
    for t in gth:
        if t.born is not None and t.born >= end:
            continue
        gby[t.tid].append(t)
    for t in fth:
        if t.born is not None and t.born >= end:
            continue
        if t.dead is not None and t.dead < start:
            continue
        fby[t.tid].append(t)

    def describe(t):
        return "thread %d (%s)" % (t.tid, t.ident if isinstance(t.ident, str) else
                                   "goroutine " + " -> ".join(map(str, t.ident)))

    for tid in sorted(set(gby) | set(fby)):
        gs = sorted(gby[tid], key=lambda t: -1 if t.born is None else t.born)
        fs = sorted(fby[tid], key=lambda t: -1 if t.born is None else t.born)
        # Threads that existed at the start on one side and not the other: ftrace
        # incarnations born before the session are gotrace's snapshot threads.
        gpre = [t for t in gs if t.born is None]
        fpre = [t for t in fs if t.born is None or t.born < start]
        gin = [t for t in gs if t.born is not None]
        fin = [t for t in fs if t.born is not None and t.born >= start]
        pairs = []
        for a, b in ((gpre, fpre), (gin, fin)):
            for i in range(max(len(a), len(b))):
                g = a[i] if i < len(a) else None
                f = b[i] if i < len(b) else None
                pairs.append((g, f))
        for g, f in pairs:
            if g is None or f is None:
                t = g or f
                side = "gotrace" if g else "ftrace"
                # A thread that did nothing in the session is in one view at most.
                if not [x for x in t.seq if start <= x[2] < end] and \
                        (t.born is None or t.born < start):
                    fig["threads without a transition in the session"] += 1
                    continue
                late = min([x[2] for x in t.seq] or [t.born or start]) >= end - opts.edge_tol
                if late:
                    fig["edge differences within the tolerance"] += 1
                    continue
                diffs.append("%s: only in %s (born %s, first event: %s)" % (
                    describe(t), side, t.born, t.seq[0][3] if t.seq else "none"))
                continue
            if f.ambiguous:
                fig["threads whose id ftrace cannot tell from a reused one (skipped)"] += 1
                continue
            inside = f.born is not None and f.born >= start and f.dead is not None and \
                f.dead < end and g.dead is not None
            if g.born is not None and f.born is not None and \
                    abs(g.born - f.born) > opts.ts_tol:
                diffs.append("%s: born at %d in gotrace, %d in ftrace" % (
                    describe(g), g.born, f.born))
                continue
            if opts.window and g.born is None:
                k, diff = window_start(g, f, start, opts, fig)
                if diff:
                    diffs.append("%s: %s" % (describe(g), diff))
                    continue
                fseq = [x for x in f.seq[k:] if x[2] < end]
            else:
                fseq = [x for x in f.seq if start <= x[2] < end]
            gseq = g.seq
            fig["threads compared (born and dead inside the session)" if inside else
                "edge threads compared (alive at the start or the end)"] += 1
            n = 0
            while n < len(fseq) and n < len(gseq):
                if fseq[n][0] == gseq[n][0] and fseq[n][1] == gseq[n][1]:
                    n += 1
                elif not (opts.preemptible_probes and probe_preempted(fseq, gseq, n, fig)):
                    break
            gaps = 0
            for x, y in zip(fseq[:n], gseq[:n]):
                fig["transitions compared: " + x[0]] += 1
                d = y[2] - x[2]
                ts_dev.append((d, x, y))
                if x[0] in ("in", "preempted", "blocked", "dead"):
                    gaps += abs(d)
            if n < len(fseq) or n < len(gseq):
                fx = fseq[n] if n < len(fseq) else None
                gx = gseq[n] if n < len(gseq) else None
                first = min(x[2] for x in (fx, gx) if x is not None)
                if not inside and first >= end - opts.edge_tol:
                    fig["edge differences within the tolerance"] += 1
                else:
                    diffs.append(
                        "%s: transition %d differs: ftrace %s, gotrace %s\n    ftrace:  %s\n"
                        "    gotrace: %s%s" % (
                            describe(g), n + 1,
                            "%s%s at %d" % (fx[0], "" if fx[1] is None else " %d" % fx[1],
                                            fx[2]) if fx else "nothing",
                            "%s%s at %d" % (gx[0], "" if gx[1] is None else " %d" % gx[1],
                                            gx[2]) if gx else "nothing",
                            fx[3] if fx else "-", gx[3] if gx else "-",
                            "\n    before: %s" % fseq[n - 1][3] if n else ""))
                    continue
            if inside:
                fig["exits compared"] += 1
                if not f.exited:
                    diffs.append("%s: dead without sched_process_exit in ftrace" % describe(g))
            # Edge threads: not the last --edge-tol ns, where they may differ.
            upto = end if inside else end - opts.edge_tol
            cf = on_cpu(f, start, upto)
            cg = on_cpu(g, start, upto)
            runs = len(f.runs)
            dev = abs(cg - cf)
            tol = opts.cpu_rel * cf + FTRACE_RES * runs + gaps
            cpu_dev.append((dev / cf if cf else 0.0, dev, cf, runs, g, tol))
            if dev > tol:
                diffs.append("%s: on CPU %d ns in gotrace, %d ns in ftrace (%d runs; "
                             "tolerance %d ns)" % (describe(g), cg, cf, runs, tol))
    for _, x, y in ts_dev:
        hi = x[4]
        lo = x[2] - FTRACE_ROUND - TICK
        if y[2] < lo or (hi is not None and y[2] > hi + FTRACE_RES):
            diffs.append("%s at %d: gotrace's time stamp %d is outside [%d, %s]: after "
                         "ftrace's of the same event and before its next one on that CPU"
                         "\n    ftrace:  %s\n    gotrace: %s" % (
                             x[0], x[2], y[2], lo,
                             "-" if hi is None else hi + FTRACE_RES, x[3], y[3]))
    return fig, diffs, ts_dev, cpu_dev


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trace")
    ap.add_argument("ftrace")
    ap.add_argument("--gotrace", default=os.environ.get("GOTRACE", "gotrace"),
                    help="the gotrace command (default $GOTRACE or gotrace)")
    ap.add_argument("--diffs", type=int, default=10, help="differences to print (10)")
    ap.add_argument("--ts-tol", type=int, default=50000000,
                    help="largest difference of birth times, ns, which pairs a thread id's "
                    "incarnations (50 ms: a vCPU the host deschedules between the two "
                    "probes delays gotrace's stamp, measured 13 ms; the fork itself is held "
                    "to its window like every transition)")
    ap.add_argument("--gap-median", type=int, default=20000,
                    help="largest median gap between ftrace's and gotrace's time stamps "
                    "of one kind of transition, ns (20 us)")
    ap.add_argument("--cpu-rel", type=float, default=0.0005,
                    help="on-CPU time tolerance, relative, on top of the switches' "
                    "windows (0.0005: 0.05%%)")
    ap.add_argument("--edge-tol", type=int, default=50000000,
                    help="edge threads may differ this close to the end, ns (50 ms)")
    ap.add_argument("--kernel", default="",
                    help="the guest kernel's release (uname -r): before 5.18, a switch-out "
                    "ftrace shows as R and a wakeup follows before the next run is a block")
    ap.add_argument("--preemptible-probes", action="store_true",
                    help="the kernel runs tracepoint probes with preemption on (its "
                    "tracepoint.h guards them with SRCU-fast, 7.x): a thread's own fork or "
                    "rename may reach gotrace after a preemption that follows ftrace's")
    ap.add_argument("--window", action="store_true",
                    help="TRACE is a flight recorder's snapshot: compare inside its window, "
                    "its first generation's statuses the starting states")
    ap.add_argument("--start-tol", type=int, default=50000000,
                    help="with --window: a transition ftrace stamped this close before a "
                    "thread's status may be after it on gotrace's side, ns (50 ms, as "
                    "--edge-tol)")
    ap.add_argument("--quiet", action="store_true", help="only the figures")
    opts = ap.parse_args(argv[1:])
    stats = Counter()
    try:
        if trace_version(opts.trace) >= 22:
            evs, base = gotrace_parsed(opts.gotrace, opts.trace, opts.window)
        else:
            evs, base = gotrace_dump(opts.gotrace, opts.trace)
        gth, start, end = gotrace_threads(evs, base, stats, opts.window)
        snap = {}
        for t in gth:
            if t.born is None and t.snap_state:
                snap[t.tid] = t.snap_state

        def state_at(tid, ts):
            return "blocked" if ts < start else snap.get(tid, "blocked")

        fth = ftrace_threads(opts.ftrace, stats, state_at,
                             waking_before_5_18(opts.kernel))
    except (InputError, OSError) as e:
        print("ftrace-compare: %s" % e)
        return 2
    fig, diffs, ts_dev, cpu_dev = compare(gth, fth, start, end, opts, sys.stdout)
    print("%s: %.6f to %.6f s (%.1f ms), %d gotrace events" % (
        "window" if opts.window else "session", start / 1e9, end / 1e9, (end - start) / 1e6,
        len(evs)))
    for k in sorted(fig):
        if not k.startswith("transitions"):
            print("%s: %d" % (k, fig[k]))
    print("transitions compared: %d (%s)" % (
        sum(v for k, v in fig.items() if k.startswith("transitions")),
        ", ".join("%s %d" % (k, fig["transitions compared: " + k]) for k in KINDS)))
    for k in sorted(stats):
        print("design difference: %s: %d" % (k, stats[k]))
    if ts_dev:
        ds = sorted(d for d, _, _ in ts_dev)
        print("time stamps, gotrace - ftrace: median %d ns, 99th percentile %d ns, "
              "range %d to %d ns; each within its window (after ftrace's, before ftrace's "
              "next event on that CPU)" % (
                  ds[len(ds) // 2], ds[min(len(ds) - 1, len(ds) * 99 // 100)], ds[0], ds[-1]))
        kinds = defaultdict(list)
        for d, x, _ in ts_dev:
            kinds[x[0]].append(d)
        meds = []
        for k in KINDS:
            if kinds[k]:
                v = sorted(kinds[k])
                meds.append("%s %d" % (k, v[len(v) // 2]))
                # Interrupts may run between the probes of fork and rename, which run
                # with interrupts on: only the others' gaps are the probes' own. A
                # median of a few (a workload's two exits) is the host's noise.
                if k not in ("fork", "rename") and len(v) >= GAP_MEDIAN_MIN and \
                        v[len(v) // 2] > opts.gap_median:
                    diffs.append("%s: gotrace's time stamps are %d ns after ftrace's (median "
                                 "of %d), more than %d ns" % (k, v[len(v) // 2], len(v),
                                                              opts.gap_median))
        print("time stamps, median gap by kind (ns): " + ", ".join(meds))
    if cpu_dev:
        big = [c for c in cpu_dev if c[2] >= 1000000]
        raw = sorted(c[0] for c in big)
        worst = max(cpu_dev, key=lambda c: c[1])
        print("on-CPU time, relative deviation of the %d threads with >= 1 ms on CPU: "
              "median %.4f%%, largest %.4f%%, %d within %.2f%%" % (
                  len(big), 100 * (raw[len(raw) // 2] if raw else 0),
                  100 * (raw[-1] if raw else 0), sum(1 for r in raw if r <= opts.cpu_rel),
                  100 * opts.cpu_rel))
        print("on-CPU time: largest deviation %d ns (thread %d: %d ns on CPU, %d runs, "
              "tolerance %d ns)" % (worst[1], worst[4].tid, worst[2], worst[3], worst[5]))
    print("differences: %d" % len(diffs))
    if not opts.quiet:
        for d in diffs[:opts.diffs]:
            print("  " + d)
        if len(diffs) > opts.diffs:
            print("  ... %d more" % (len(diffs) - opts.diffs))
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
