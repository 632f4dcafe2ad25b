#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check gotrace merge's output against ftrace: its kernel regions, APP's events, cpu.stat.

Usage: join-compare.py [--tool TRACE] [--out FILE] [--app FILE] [--tolerance-us US]
                       [--boundary-us US] [--slack-pct PCT] DIR

DIR is one run of selftests/join_guest.sh (scripts/oracles/join-oracle.sh) after
`gotrace merge DIR/app.trace DIR/machine.trace -o DIR/merged.trace`: app.trace (APP, the Go
program's own trace), merged.trace (OUT), ftrace.txt (ftrace's text, trace_clock mono: the
clock of APP's time stamps), tids (the program's threads), cpu.stat.before and
cpu.stat.after (its cgroup's). --out and --app name other files for OUT and APP. Each may
be a trace, read with Go's `TRACE -d=parsed` (--tool: a Go 1.24+ cmd/trace binary, default
build/go/1.27/tool/trace), or that command's output already (text starting with "M="):
the self-test writes such text. Nothing of gotrace reads anything here.

From APP: per M (thread id), the goroutine it runs or that is in a system call on it, from
the goroutines' state transitions; each system call (Running->Syscall to Syscall->Running,
or Syscall->Runnable and then the goroutine's next Runnable->Running, on any M); the
generation of each event. From ftrace: each program thread's off-CPU spans (sched_switch
away to sched_switch back), how it went (prev_state R/R+: preempted; any other: blocked,
unless no wakeup came, which is a preemption), on which CPU, and each CPU's idle time.

What gotrace merge must write (Documentation: its join; common.md of issue 32):
  - a span while the M runs a goroutine (not in a system call): a region on it spanning the
    span, clipped between the M's APP events around it, with one log;
  - the spans inside a system call: one region for the call, from its Running->Syscall to
    its Syscall->Running, or to the goroutine's next Runnable->Running after
    Syscall->Runnable (Go takes user events only from a goroutine whose M has a P), typed
    as its longest span, with one log per span ("waited for a CPU" or "blocked in R", "for
    X ms: " who ran instead or woke it).
A span or call needs its region when its APP events around it are of one generation and
it is more than --boundary-us (1000) from APP's generation boundaries (Sync events); near
a boundary, between an M's events of two generations or next to events Go's reader moved
(an event stamped before its generation's Sync, because an M went on writing the previous
generation after this one began, is shown at the Sync's time: within 10 us after a Sync)
it may have one but need not; a region that begins there is not compared.
TAP, a line per check:
  (a) every span and system call that needs a region has one on its goroutine, both ends
      within --tolerance-us (50) of the expected ends; or, for an end that is a switch,
      within it of MACHINE's own time stamp of that switch (DIR/machine.trace read by Go's
      -d=parsed: the thread's goroutine leaving Running, or entering it, at or after
      ftrace's time and before its next switch): gotrace's probe runs after ftrace's, and in
      a TCG guest on a busy host the vCPU may stop between the two for milliseconds, which
      is the recorder's doing, not the join's (counted, the largest such lag printed);
  (b) every kernel region is a span's or a system call's as above: none without one;
  (c) each matched region's type: preempted "kernel: waiting for a CPU" or "kernel:
      throttled" ("throttled" when the CPU it left idled more than 60 % of the span,
      "waiting" when less than 40 %, either between), blocked "kernel: syscall blocked in
      R" in a system call, else "kernel: blocked in R"; a call's that of its longest span
      (or of one within the tolerance of it);
  (d) throttled time: per CPU (the one each region's longest span left) the union of the
      throttled regions, summed (a run queue is throttled once however many threads wait
      on it, and cpu.stat's throttled_usec sums the CPUs' run queues), is at most
      throttled_usec's growth plus --slack-pct (5) %, and more than 0 when nr_throttled grew;
  (e) OUT without its kernel regions and logs is APP: the same events (with their stacks),
      in the same order on each M;
  (f) the logs after each matched region's begin on its M: one, "ran instead on CPU N: PROG
      [TID]" or "nothing ran instead on CPU N" with N the CPU the thread left or came
      back on, "woken by PROG [TID] (WHY) on CPU N", "woken in WHY context on CPU N" (an
      interrupt) or "woken: not seen in MACHINE"; for a call one per span, in order, "blocked
      in R for X ms: " or "waited for a CPU for X ms: " and the same, X within the tolerance of
      the span's length (or MACHINE's);
  (g) what the logs name is what ftrace saw: the thread that ran instead ran on that CPU
      during the span (how often it is the longest run there is a figure), nothing else ran
      there (within the tolerance) when nothing did, the waker woke the thread on that CPU
      (a sched_waking or sched_wakeup of it there by that thread, in any context), an
      interrupt woke it (one there in interrupt context, or by the idle task).
Figures (spans, matches, median and 95th percentile edge errors) are "# " lines. Exit status
0 if every check passed, 1 if one failed, 2 if the inputs cannot be read.
"""

import argparse
import os
import re
import subprocess
import sys
from bisect import bisect_left, bisect_right
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KERNEL = "kernel: "
WAIT = "kernel: waiting for a CPU"
THROTTLED = "kernel: throttled"
BLOCKED = "kernel: blocked in "
SYSCALL = "kernel: syscall blocked in "
ON_M = ("Running", "Syscall")
PID_LIMIT = 4194304     # MACHINE's goroutine of a thread: its id + PID_LIMIT x n
FTRACE_RES = 1000       # ftrace prints microseconds
NUDGE = 64              # ns an APP event's time may move in OUT: less than a tick
NEAR = "near a generation boundary"
BETWEEN = "between generations"
MOVED = "next to APP events Go's reader moved to a generation's start"
# Spans and calls a region may have but need not.
MAY = (NEAR, BETWEEN, MOVED)
# Go's reader moves an event stamped before its generation's Sync (an M still writing the
# previous generation made it late) to the Sync's time, 1 ns after the one before: such
# times lie just after a Sync.
MOVED_NS = 10000
# The idle share of a wait that makes it "throttled" is above a half; near a half, either.
IDLE_LOW, IDLE_HIGH = 0.4, 0.6

EVENT = re.compile(r"^M=(-?\d+) P=(-?\d+) G=(-?\d+) (\w+) Time=(\d+)(.*)$")
TRANSITION = re.compile(r" GoID=(\d+) (\w+)->(\w+) ")
REGION = re.compile(r' Task=(\d+) Type="((?:[^"\\]|\\.)*)"$')
LOG = re.compile(r' Task=(\d+) Category="((?:[^"\\]|\\.)*)" Message="((?:[^"\\]|\\.)*)"$')
FTRACE = re.compile(r"^\s*(.*)-(\d+)\s+(?:\(\s*(?:\d+|-+)\)\s+)?\[(\d+)\]\s+(\S+)\s+"
                    r"(\d+)\.(\d{6}):\s+(\w+):\s+(.*)$")
SWITCH = re.compile(r"prev_comm=(.*) prev_pid=(\d+) prev_prio=-?\d+ prev_state=(\S+) ==> "
                    r"next_comm=(.*) next_pid=(\d+) next_prio=-?\d+$")
WAKING = re.compile(r"comm=(.*) pid=(\d+) prio=-?\d+ (?:success=\d+ )?target_cpu=\d+$")
WHO_WAIT = r"(?:ran instead on CPU (\d+): .* \[\d+\]|nothing ran instead on CPU (\d+))"
WHO_WAKE = (r"(?:woken by .* \[\d+\] \(.*\) on CPU \d+|woken in \S+ context on CPU \d+"
            r"|woken: not seen in MACHINE)")
WAIT_LOG = re.compile("^" + WHO_WAIT + "$")
# A log's who, for (g): what ran instead, or who woke the thread.
WHO = re.compile(r"(?:ran instead on CPU (\d+): (.*) \[(\d+)\]|nothing ran instead on CPU (\d+)"
                 r"|woken by (.*) \[(\d+)\] \(.*\) on CPU (\d+)"
                 r"|woken in \S+ context on CPU (\d+)|woken: not seen in MACHINE)$")
WAKE_LOG = re.compile("^" + WHO_WAKE + "$")
CALL_LOG = re.compile(r"^(?:waited for a CPU {1,2}for (\d+\.\d{3}) ms: " + WHO_WAIT +
                      r"|blocked in .+ for (\d+\.\d{3}) ms: " + WHO_WAKE + ")$")


class InputError(Exception):
    pass


def unquote(s):
    return s.encode().decode("unicode_escape").encode("latin-1").decode("utf-8", "replace")


def us(ns):
    return "%.1f" % (ns / 1000)


def ftime(ns):
    """A time as ftrace prints it: s.us."""
    return "%d.%06d" % (ns // 1000000000, ns % 1000000000 // 1000)


def parsed_text(path, tool):
    """-d=parsed text of a trace or of such a text file."""
    with open(path, "rb") as f:
        head = f.read(16)
    if head.startswith(b"go 1."):
        try:
            r = subprocess.run([tool, "-d=parsed", path], capture_output=True, timeout=600)
        except OSError as e:
            raise InputError("cannot run %s: %s; pass --tool, a Go 1.24+ cmd/trace" % (tool, e))
        if r.returncode != 0:
            raise InputError("%s -d=parsed %s failed (status %d): %s" % (
                tool, path, r.returncode, r.stderr.decode(errors="replace")[:500]))
        return r.stdout.decode(errors="replace")
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


class Event:
    __slots__ = ("m", "p", "g", "kind", "t", "rest", "text", "gen")

    def __init__(self, m, p, g, kind, t, rest, gen):
        self.m, self.p, self.g, self.kind, self.t, self.rest = m, p, g, kind, t, rest
        self.gen = gen
        self.text = []


def events(text):
    """Events of -d=parsed text, each with its lines (stacks) and generation."""
    evs = []
    gen = 0
    for line in text.split("\n"):
        m = EVENT.match(line)
        if not m:
            if evs:
                evs[-1].text.append(line)
            continue
        kind = m.group(4)
        if kind == "Sync":
            gen += 1
        e = Event(int(m.group(1)), int(m.group(2)), int(m.group(3)), kind, int(m.group(5)),
                  m.group(6), gen)
        e.text.append(line)
        evs.append(e)
    if not evs:
        raise InputError("no events in the parsed trace: not Go's -d=parsed output")
    return evs


def is_kernel(e):
    """A region or log the join added."""
    if e.kind in ("RegionBegin", "RegionEnd"):
        r = REGION.search(e.rest)
        return r is not None and unquote(r.group(2)).startswith(KERNEL)
    if e.kind == "Log":
        r = LOG.search(e.rest)
        return r is not None and unquote(r.group(2)) == "kernel"
    return False


class Call:
    """A goroutine's system call in APP."""
    __slots__ = ("g", "m", "begin", "gen", "sys_end", "end", "end_m", "end_gen", "spans",
                 "why", "region")

    def __init__(self, g, m, begin, gen):
        self.g, self.m, self.begin, self.gen = g, m, begin, gen
        self.sys_end = self.end = self.end_m = self.end_gen = None
        self.spans = []
        self.why = None
        self.region = None


class App:
    """Per M: the goroutines on it (intervals), its events' times and generations; calls."""

    def __init__(self, evs):
        self.first, self.last = evs[0].t, evs[-1].t
        self.syncs = [e.t for e in evs if e.kind == "Sync"]
        self.times = defaultdict(list)
        self.gens = defaultdict(list)
        self.on = defaultdict(list)     # M -> [(start, end, G, state)]
        self.calls = []
        cur = {}                        # M -> [start, G, state]
        calls = {}                      # G -> its open Call
        blocked = {}                    # G -> its Call that waits for a Runnable->Running
        for e in evs:
            if e.m >= 0:
                self.times[e.m].append(e.t)
                self.gens[e.m].append(e.gen)
            if e.kind != "StateTransition":
                continue
            tr = TRANSITION.match(e.rest)
            if not tr:
                continue
            g, old, new = int(tr.group(1)), tr.group(2), tr.group(3)
            self.call_step(e, g, old, new, calls, blocked)
            m = e.m
            if m < 0:
                m = next((k for k, c in cur.items() if c[1] == g), -1)
            if m < 0:
                continue
            c = cur.get(m)
            if new in ON_M:
                if c and (c[1] != g or c[2] != new):
                    self.on[m].append((c[0], e.t, c[1], c[2]))
                    c = None
                if not c:
                    cur[m] = [e.t, g, new]
            elif old in ON_M and c and c[1] == g:
                self.on[m].append((c[0], e.t, g, c[2]))
                del cur[m]
        for m, c in cur.items():
            self.on[m].append((c[0], self.last, c[1], c[2]))
        for m in self.on:
            self.on[m].sort()
        self.starts = {m: [i[0] for i in v] for m, v in self.on.items()}
        self.calls.sort(key=lambda c: (c.m, c.begin))
        self.call_starts = defaultdict(list)
        self.by_m = defaultdict(list)
        for c in self.calls:
            self.by_m[c.m].append(c)
            self.call_starts[c.m].append(c.begin)

    def call_step(self, e, g, old, new, calls, blocked):
        if old == "Runnable" and new == "Running" and g in blocked:
            c = blocked.pop(g)
            c.end, c.end_m, c.end_gen = e.t, e.m, e.gen
            self.calls.append(c)
        if old == "Running" and new == "Syscall" and e.m >= 0:
            calls[g] = Call(g, e.m, e.t, e.gen)
        elif old == "Syscall" and g in calls:
            c = calls.pop(g)
            c.sys_end = e.t
            if new == "Running":
                c.end, c.end_m, c.end_gen = e.t, e.m, e.gen
                self.calls.append(c)
            elif new == "Runnable":
                blocked[g] = c

    def goroutine(self, m, t):
        """(G, state) on M at time t, or None."""
        i = bisect_right(self.starts.get(m, []), t) - 1
        if i < 0:
            return None
        s, e, g, state = self.on[m][i]
        return (g, state) if s <= t <= e else None

    def call(self, m, t):
        """The system call on M at time t (from its begin to its Syscall-> on M), or None."""
        i = bisect_right(self.call_starts.get(m, []), t) - 1
        if i < 0:
            return None
        c = self.by_m[m][i]
        return c if c.begin <= t <= c.sys_end else None

    def neighbours(self, m, t):
        """The M's APP events around time t: (time, gen) each, or None."""
        ts = self.times.get(m, [])
        i = bisect_right(ts, t) - 1
        j = bisect_left(ts, t)
        prev = (ts[i], self.gens[m][i]) if i >= 0 else None
        nxt = (ts[j], self.gens[m][j]) if j < len(ts) else None
        return prev, nxt

    def near(self, a, b, boundary):
        return any(a - boundary < s < b + boundary for s in self.syncs)

    def moved(self, t):
        """Whether time t is one Go's reader may have moved to a generation's start."""
        i = bisect_left(self.syncs, t) - 1
        return i >= 0 and t - self.syncs[i] <= MOVED_NS


class Span:
    __slots__ = ("tid", "out", "back", "cpu_out", "cpu_in", "state", "woken", "blocked",
                 "g", "gstate", "idle", "m_out", "m_back")

    def __init__(self, tid, out, back, cpu_out, cpu_in, state, woken):
        self.tid, self.out, self.back = tid, out, back
        self.cpu_out, self.cpu_in, self.state, self.woken = cpu_out, cpu_in, state, woken
        self.blocked = not state.startswith("R") and woken
        self.g = self.gstate = None
        self.idle = 0.0
        self.m_out = self.m_back = None     # MACHINE's time stamps of its switches

    def lengths(self):
        """Its length as ftrace has it, and as MACHINE has it (or None)."""
        m = None if self.m_out is None or self.m_back is None else self.m_back - self.m_out
        return self.back - self.out, m

    def name(self):
        return "thread %d off CPU %s-%s (%s on CPU %d, back on CPU %d)" % (
            self.tid, ftime(self.out), ftime(self.back),
            "blocked" if self.blocked else "preempted", self.cpu_out, self.cpu_in)

    def types(self):
        """The region types this span may have."""
        if not self.blocked:
            if self.idle > IDLE_HIGH:
                return (THROTTLED,)
            if self.idle < IDLE_LOW:
                return (WAIT,)
            return (WAIT, THROTTLED)
        return (SYSCALL,) if self.gstate == "Syscall" else (BLOCKED,)


class Ftrace:
    """The program threads' off-CPU spans and each CPU's runs, from ftrace's text."""

    def __init__(self, path, tids):
        self.runs = defaultdict(list)   # cpu -> [(start, end, pid, comm)]
        self.spans = []
        self.wakes = defaultdict(list)  # tid -> [(time, cpu, waker pid, irq context)]
        cur = {}                        # cpu -> (start, pid, comm)
        off = {}                        # tid -> (out, cpu, state, woken)
        self.lines = 0
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("#"):
                    continue
                m = FTRACE.match(line)
                if not m:
                    if "LOST" in line:
                        raise InputError("%s lost events (%s): record again with a bigger buffer"
                                         % (path, line.strip()))
                    continue
                self.lines += 1
                cpu = int(m.group(3))
                t = int(m.group(5)) * 1000000000 + int(m.group(6)) * 1000
                ev, body = m.group(7), m.group(8)
                if ev == "sched_switch":
                    s = SWITCH.match(body)
                    if not s:
                        raise InputError("%s: cannot read: %s" % (path, line.strip()))
                    prev, nxt = int(s.group(2)), int(s.group(5))
                    if cpu in cur:
                        st, pid, comm = cur[cpu]
                        self.runs[cpu].append((st, t, pid, comm))
                    cur[cpu] = (t, nxt, s.group(4))
                    if prev in tids:
                        off[prev] = (t, cpu, s.group(3), False)
                    if nxt in tids and nxt in off:
                        o, c, state, woken = off.pop(nxt)
                        self.spans.append(Span(nxt, o, t, c, cpu, state, woken))
                elif ev in ("sched_waking", "sched_wakeup"):
                    w = WAKING.match(body)
                    if w and int(w.group(2)) in tids:
                        self.wakes[int(w.group(2))].append(
                            (t, cpu, int(m.group(2)), any(c in m.group(4) for c in "hsH")))
                    if w and int(w.group(2)) in off:
                        tid = int(w.group(2))
                        o, c, state, _ = off[tid]
                        off[tid] = (o, c, state, True)
        for c in self.runs:
            self.runs[c].sort()
        self.run_starts = {c: [r[0] for r in v] for c, v in self.runs.items()}

    def longest_runs(self, cpu, start, end):
        """{pid: its longest run on cpu between start and end}."""
        out = defaultdict(int)
        rs = self.runs.get(cpu, [])
        i = max(bisect_right(self.run_starts.get(cpu, []), start) - 1, 0)
        for s, e, pid, _ in rs[i:]:
            if s >= end:
                break
            out[pid] = max(out[pid], min(e, end) - max(s, start))
        return out

    def on_cpu(self, cpu, start, end):
        """{(pid, comm): ns} that ran on cpu between start and end."""
        out = defaultdict(int)
        rs = self.runs.get(cpu, [])
        i = max(bisect_right(self.run_starts.get(cpu, []), start) - 1, 0)
        for s, e, pid, comm in rs[i:]:
            if s >= end:
                break
            n = min(e, end) - max(s, start)
            if n > 0:
                out[(pid, comm)] += n
        return out


class Machine:
    """MACHINE's switches of the program's threads, from Go's reading of machine.trace."""

    def __init__(self, evs, tids):
        self.outs, self.ins = defaultdict(list), defaultdict(list)
        for e in evs:
            if e.kind != "StateTransition":
                continue
            tr = TRANSITION.match(e.rest)
            if not tr or int(tr.group(1)) % PID_LIMIT not in tids:
                continue
            tid, old, new = int(tr.group(1)) % PID_LIMIT, tr.group(2), tr.group(3)
            if old == "Running" and new != "Running":
                self.outs[tid].append(e.t)
            elif new == "Running" and old != "Running":
                self.ins[tid].append(e.t)

    def edge(self, tid, t, into, limit):
        """MACHINE's switch of tid (in if into) at or after ftrace's t, before limit."""
        ts = (self.ins if into else self.outs).get(tid, [])
        i = bisect_left(ts, t - FTRACE_RES)
        return ts[i] if i < len(ts) and ts[i] < limit else None


class Expect:
    """A region gotrace merge must (why None) or may write: a span's or a call's."""
    __slots__ = ("g", "m", "begin", "end", "spans", "call", "why", "region", "alt_begin",
                 "alt_end")

    def __init__(self, g, m, begin, end, spans, call, why):
        self.g, self.m, self.begin, self.end = g, m, begin, end
        self.spans, self.call, self.why = spans, call, why
        self.region = None
        # The ends with MACHINE's time stamps of the switches, where it has them.
        self.alt_begin = self.alt_end = None

    def ok(self, r, tol):
        """Whether region r has this one's ends, or those with MACHINE's switches."""
        return (abs(r.begin - self.begin) <= tol or
                (self.alt_begin is not None and abs(r.begin - self.alt_begin) <= tol)) and \
            (abs(r.end - self.end) <= tol or
             (self.alt_end is not None and abs(r.end - self.alt_end) <= tol))

    def lags(self, r, tol):
        """Its ends that region r has only as MACHINE stamped them: [(ftrace's, MACHINE's)]."""
        out = []
        if abs(r.begin - self.begin) > tol:
            out.append((self.begin, self.alt_begin))
        if abs(r.end - self.end) > tol:
            out.append((self.end, self.alt_end))
        return out

    def longest(self):
        return max(self.spans, key=lambda s: s.back - s.out)

    def types(self, tol):
        """The types it may have: its longest span's, or one's within tol of it."""
        n = self.longest().back - self.longest().out
        out = []
        for s in self.spans:
            if s.back - s.out >= n - tol:
                out += [t for t in s.types() if t not in out]
        return out

    def name(self):
        if self.call:
            return "the system call of G %d on M %d %s-%s (%d spans off CPU, the longest %s)" % (
                self.g, self.m, ftime(self.begin), ftime(self.end), len(self.spans),
                self.longest().name())
        return "%s on G %d" % (self.spans[0].name(), self.g)


def expected(app, ft, machine, boundary):
    """The regions gotrace merge must or may write; the count of spans of each other kind."""
    exps, why = [], defaultdict(int)
    calls = {}
    next_out = {}
    last = {}
    for s in ft.spans:
        if s.tid in last:
            next_out[id(last[s.tid])] = s.out
        last[s.tid] = s
    for s in ft.spans:
        if machine:
            s.m_out = machine.edge(s.tid, s.out, False, s.back)
            s.m_back = machine.edge(s.tid, s.back, True, next_out.get(id(s), 1 << 62))
        mid = (s.out + s.back) // 2
        s.idle = sum(n for (pid, _), n in ft.on_cpu(s.cpu_out, s.out, s.back).items()
                     if pid == 0) / max(s.back - s.out, 1)
        on = app.goroutine(s.tid, mid)
        prev, nxt = app.neighbours(s.tid, mid)
        if s.back < app.first or s.out > app.last or prev is None or nxt is None:
            why["outside APP's time"] += 1
            continue
        if on is None:
            why["no goroutine on the M"] += 1
            continue
        s.g, s.gstate = on
        if s.gstate == "Syscall":
            c = app.call(s.tid, mid)
            if c is None or c.end is None:
                why["in a system call APP has no begin or end of"] += 1
                continue
            c.spans.append(s)
            calls[id(c)] = c
            why["in a system call"] += 1
            continue
        w = None
        if app.near(s.out, s.back, boundary):
            w = NEAR
        elif prev[1] != nxt[1]:
            w = BETWEEN
        elif app.moved(prev[0]) or app.moved(nxt[0]):
            w = MOVED
        why[w or "joinable"] += 1
        x = Expect(s.g, s.tid, max(s.out, prev[0]), min(s.back, nxt[0]), [s], False, w)
        if s.m_out is not None and s.m_out < nxt[0]:
            x.alt_begin = max(s.m_out, prev[0])
        if s.m_back is not None and s.m_back > prev[0]:
            x.alt_end = min(s.m_back, nxt[0])
        exps.append(x)
    for c in calls.values():
        w = None
        if app.near(c.begin, c.end, boundary):
            w = NEAR
        elif c.gen != c.end_gen:
            w = BETWEEN
        elif app.moved(c.begin) or app.moved(c.end):
            w = MOVED
        exps.append(Expect(c.g, c.m, c.begin, c.end, c.spans, True, w))
    exps.sort(key=lambda x: (x.m, x.begin))
    return exps, why


class Region:
    __slots__ = ("m", "g", "type", "begin", "end", "logs", "exp")

    def __init__(self, m, g, rtype, begin):
        self.m, self.g, self.type, self.begin = m, g, rtype, begin
        self.end = None
        self.logs = []
        self.exp = None

    def name(self):
        return '"%s" on G %d, M %d, %s-%s' % (self.type, self.g, self.m, ftime(self.begin),
                                              ftime(self.end))


def kernel_regions(evs):
    """OUT's kernel regions, paired by goroutine and type in order, each with the kernel logs that
    follow its begin on its M; and what is wrong with them."""
    regions, bad = [], []
    open_ = defaultdict(list)
    last = {}       # M -> the region whose begin (and logs) are the M's last events
    for e in evs:
        kernel = is_kernel(e)
        if e.kind == "Log" and kernel:
            msg = unquote(LOG.search(e.rest).group(3))
            r = last.get(e.m)
            if r is not None and r.g == e.g:
                r.logs.append(msg)
            else:
                bad.append('a kernel log "%s" on G %d, M %d at %s not after a region\'s begin'
                           % (msg, e.g, e.m, ftime(e.t)))
            continue
        last.pop(e.m, None)
        if e.kind not in ("RegionBegin", "RegionEnd") or not kernel:
            continue
        rtype = unquote(REGION.search(e.rest).group(2))
        key = (e.g, rtype)
        if e.kind == "RegionBegin":
            r = Region(e.m, e.g, rtype, e.t)
            open_[key].append(r)
            regions.append(r)
            last[e.m] = r
        elif open_[key]:
            open_[key].pop(0).end = e.t     # the merge's regions never nest: the oldest
        else:
            bad.append('a "%s" region ends on G %d at %s without a begin' % (rtype, e.g,
                                                                            ftime(e.t)))
    for r in regions:
        if r.end is None:
            bad.append('a "%s" region on G %d begins at %s and never ends' % (r.type, r.g,
                                                                             ftime(r.begin)))
    return [r for r in regions if r.end is not None], bad


def pct(xs, p):
    if not xs:
        return 0
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))]


def match(exps, regions, tol):
    """Pairs regions with expected ones of their M and goroutine: ends within tol, closest
    first."""
    by_m = defaultdict(list)
    for r in regions:
        by_m[r.m].append(r)
    for m in by_m:
        by_m[m].sort(key=lambda r: r.begin)
    begins = {m: [r.begin for r in rs] for m, rs in by_m.items()}
    pairs = []
    for x in exps:
        rs = by_m.get(x.m, [])
        lo = min(x.begin, x.alt_begin or x.begin) - tol
        hi = max(x.begin, x.alt_begin or x.begin) + tol
        for r in rs[bisect_left(begins.get(x.m, []), lo):]:
            if r.begin > hi:
                break
            if r.g == x.g and x.ok(r, tol):
                pairs.append((abs(r.begin - x.begin) + abs(r.end - x.end), x.begin, x, r))
    for _, _, x, r in sorted(pairs, key=lambda p: (p[0], p[1])):
        if r.exp is None and x.region is None:
            r.exp = x
            x.region = r


class Report:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def result(self, ok, text, diags=()):
        self.n += 1
        print("%s %d - %s" % ("ok" if ok else "not ok", self.n, text))
        if not ok:
            self.failed += 1
            for d in list(diags)[:40]:
                print("# " + d)
            if len(diags) > 40:
                print("# ... and %d more" % (len(diags) - 40))


def cpu_stat(path):
    out = {}
    with open(path) as f:
        for line in f:
            k, _, v = line.partition(" ")
            out[k] = int(v)
    return out


def check_logs(matched, tol):
    bad = []
    for r in matched:
        x = r.exp
        if not x.call:
            s = x.spans[0]
            if len(r.logs) != 1:
                bad.append("region %s has %d kernel logs after its begin, not 1" % (
                    r.name(), len(r.logs)))
            elif not s.blocked:
                m = WAIT_LOG.match(r.logs[0])
                if not m or int(m.group(1) or m.group(2)) not in (s.cpu_out, s.cpu_in):
                    bad.append('region %s: log "%s" is not "ran instead on CPU N: PROG [TID]" '
                               'or "nothing ran instead on CPU N" with N %d or %d'
                               % (r.name(), r.logs[0], s.cpu_out, s.cpu_in))
            elif not WAKE_LOG.match(r.logs[0]):
                bad.append('region %s: log "%s" is not "woken by PROG [TID] (WHY) on CPU N", '
                           '"woken in WHY context on CPU N" or "woken: not seen in MACHINE"'
                           % (r.name(), r.logs[0]))
            continue
        if len(r.logs) != len(x.spans):
            bad.append("region %s has %d kernel logs after its begin, not one per span off "
                       "CPU in the call: %d" % (r.name(), len(r.logs), len(x.spans)))
            continue
        for s, log in zip(sorted(x.spans, key=lambda s: s.out), r.logs):
            m = CALL_LOG.match(log)
            ms = m and float(m.group(1) or m.group(4))
            if not m or not any(n is not None and abs(ms * 1e6 - n) <= tol
                                for n in s.lengths()) or \
                    (m.group(1) is not None) == s.blocked:
                bad.append('region %s: log "%s" is not "%s ... for %s ms: ..." within %s us'
                           ' (ftrace\'s length%s)'
                           % (r.name(), log, "blocked in" if s.blocked else "waited for a CPU",
                              "%.3f" % ((s.back - s.out) / 1e6), us(tol),
                              "" if s.lengths()[1] is None else
                              " or MACHINE's, %.3f ms" % (s.lengths()[1] / 1e6)))
    return bad


def who_text(r, s):
    """The who of span s in region r's logs."""
    if not r.exp.call:
        return r.logs[0]
    i = sorted(r.exp.spans, key=lambda x: x.out).index(s)
    return r.logs[i].split(" ms: ", 1)[-1]


def check_who(rep, matched, ft, tol):
    """(g): each log's thread that ran instead, or woke the thread, as ftrace saw it."""
    bad = []
    n = longest = waits = wakes = unseen = 0
    for r in matched:
        if len(r.logs) != (len(r.exp.spans) if r.exp.call else 1):
            continue        # (f) says so
        for s in r.exp.spans:
            m = WHO.match(who_text(r, s))
            if not m:
                continue    # (f) says so
            n += 1
            # Where ftrace and MACHINE disagree on a switch's time, the wider window.
            lo = min(s.out, s.m_out if s.m_out is not None else s.out)
            hi = max(s.back, s.m_back if s.m_back is not None else s.back)
            if m.group(1) or m.group(4):
                waits += 1
                cpu = int(m.group(1) or m.group(4))
                runs = {p: t for p, t in ft.longest_runs(cpu, lo, hi).items()
                        if p not in (0, s.tid)}
                if m.group(1):
                    tid = int(m.group(3))
                    if tid not in runs:
                        bad.append("%s: %s ran instead, but ftrace has it not on CPU %d in "
                                   "the span (there: %s)" % (r.name(), tid, cpu, ", ".join(
                                       "%d %s us" % (p, us(t)) for p, t in runs.items())))
                    elif runs[tid] >= max(runs.values()) - tol:
                        longest += 1
                elif sum(runs.values()) > tol:
                    bad.append("%s: nothing ran instead on CPU %d, but ftrace ran %s" % (
                        r.name(), cpu, ", ".join("%d for %s us" % (p, us(t))
                                                 for p, t in runs.items())))
                continue
            wakes += 1
            if not (m.group(7) or m.group(8)):
                unseen += 1     # MACHINE saw no wakeup: nothing to compare
                continue
            cpu = int(m.group(7) or m.group(8))
            ws = [w for w in ft.wakes.get(s.tid, []) if lo - tol <= w[0] <= hi and w[1] == cpu]
            if m.group(6):
                ok = any(w[2] == int(m.group(6)) for w in ws)
            else:
                ok = any(w[3] or w[2] == 0 for w in ws)
            if not ok:
                bad.append("%s: %s, but ftrace's wakeups of thread %d on CPU %d in the span "
                           "are by %s" % (r.name(), m.group(0), s.tid, cpu, ", ".join(
                               "%d%s" % (w[2], " in an interrupt" if w[3] else "")
                               for w in ws) or "none"))
    rep.result(not bad, "(g) %d of %d logs name what ftrace saw: %d threads that ran instead "
               "on that CPU during the span (%d its longest run there, within the tolerance) "
               "or nothing there, %d wakers on that CPU (or an interrupt; %d not seen in "
               "MACHINE)" % (n - len(bad), n, waits, longest, wakes, unseen), bad)


def check_throttled(rep, regions, before, after, slack):
    per_cpu = defaultdict(list)
    total = 0
    for r in regions:
        if r.type == THROTTLED:
            total += r.end - r.begin
            per_cpu[r.exp.longest().cpu_out if r.exp else -1].append((r.begin, r.end))
    union = 0
    for ivs in per_cpu.values():
        end = None
        for b, e in sorted(ivs):
            if end is None or b > end:
                union += e - b
                end = e
            elif e > end:
                union += e - end
                end = e
    grew = after["throttled_usec"] - before["throttled_usec"]
    nr = after["nr_throttled"] - before["nr_throttled"]
    limit = grew * (1 + slack / 100)
    rep.result(union / 1000 <= limit and (nr == 0 or union > 0),
               "(d) throttled regions: %s us per CPU (%s us in all) <= cpu.stat's "
               "throttled_usec growth %d us + %g %%, and > 0 as nr_throttled grew by %d"
               % (us(union), us(total), grew, slack, nr),
               ["%s us of throttled regions is more than %d us + %g %%" % (
                   us(union), grew, slack)] if union / 1000 > limit else
               ["no throttled region, yet the cgroup was throttled %d times" % nr])


def same(a, b):
    """Two events alike but for Go's reader moving a time stamp equal to the previous
    event's a few ns on (the kernel events at that time make it move further)."""
    return a[1] == b[1] and abs(a[0] - b[0]) < NUDGE


def check_kept(rep, app_evs, out_evs):
    diffs = []
    per_m, out_m = defaultdict(list), defaultdict(list)
    for evs, to in ((app_evs, per_m), (out_evs, out_m)):
        for e in evs:
            if not is_kernel(e):
                text = "\n".join(e.text).rstrip("\n")
                to[e.m].append((e.t, text.replace(" Time=%d" % e.t, " Time=", 1)))
    for m in sorted(set(per_m) | set(out_m)):
        a, b = per_m.get(m, []), out_m.get(m, [])
        if len(a) != len(b) or not all(same(x, y) for x, y in zip(a, b)):
            i = next((k for k in range(min(len(a), len(b))) if not same(a[k], b[k])),
                     min(len(a), len(b)))
            diffs.append("M %d: APP has %d events, OUT %d; first difference at its event %d: "
                         "APP %r at %d, OUT %r at %d" % (
                             m, len(a), len(b), i,
                             a[i][1].split("\n")[0] if i < len(a) else None,
                             a[i][0] if i < len(a) else -1,
                             b[i][1].split("\n")[0] if i < len(b) else None,
                             b[i][0] if i < len(b) else -1))
    rep.result(not diffs, "(e) OUT without its kernel regions and logs has APP's %d events, "
               "in order on each of its %d Ms (times within %d ns: Go's reader moves equal "
               "ones)" % (len(app_evs), len(per_m), NUDGE), diffs)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--tool", default=os.path.join(ROOT, "build/go/1.27/tool/trace"))
    ap.add_argument("--out")
    ap.add_argument("--app")
    ap.add_argument("--tolerance-us", type=float, default=50)
    ap.add_argument("--boundary-us", type=float, default=1000)
    ap.add_argument("--slack-pct", type=float, default=5)
    ap.add_argument("dir")
    o = ap.parse_args(argv)
    d = o.dir
    tol = int(o.tolerance_us * 1000)
    try:
        with open(os.path.join(d, "tids")) as f:
            tids = {int(t) for t in f.read().split()}
        if not tids:
            raise InputError("%s/tids names no thread" % d)
        app_evs = events(parsed_text(o.app or os.path.join(d, "app.trace"), o.tool))
        out_evs = events(parsed_text(o.out or os.path.join(d, "merged.trace"), o.tool))
        ft = Ftrace(os.path.join(d, "ftrace.txt"), tids)
        mpath = os.path.join(d, "machine.trace")
        machine = Machine(events(parsed_text(mpath, o.tool)), tids) \
            if os.path.exists(mpath) else None
        before = cpu_stat(os.path.join(d, "cpu.stat.before"))
        after = cpu_stat(os.path.join(d, "cpu.stat.after"))
    except (OSError, ValueError, InputError) as e:
        print("Bail out! join-compare.py: %s" % e)
        return 2

    app = App(app_evs)
    rep = Report()
    print("TAP version 13")
    print("# APP: %d events, %s-%s, %d generations, Ms %s, %d system calls" % (
        len(app_evs), ftime(app.first), ftime(app.last), max(len(app.syncs) - 1, 0),
        " ".join(str(m) for m in sorted(app.times)), len(app.calls)))
    exps, why = expected(app, ft, machine, int(o.boundary_us * 1000))
    print("# ftrace: %d lines, %d off-CPU spans of threads %s: %s" % (
        ft.lines, len(ft.spans), " ".join(str(t) for t in sorted(tids)),
        ", ".join("%d %s" % (n, w) for w, n in sorted(why.items()))))
    regions, bad_pairs = kernel_regions(out_evs)
    match(exps, regions, tol)
    kinds = defaultdict(int)
    for r in regions:
        kinds[r.type.split(" in ")[0]] += 1
    print("# OUT: %d kernel regions: %s" % (len(regions), ", ".join(
        "%d \"%s\"" % (n, k) for k, n in sorted(kinds.items()))))

    must = [x for x in exps if x.why is None]
    missing = [x for x in must if x.region is None]
    matched = [r for r in regions if r.exp is not None]
    errs = [abs(r.begin - r.exp.begin) for r in matched] + \
        [abs(r.end - r.exp.end) for r in matched]
    ncalls = sum(1 for x in must if x.call)
    lags = [lag for r in matched for lag in r.exp.lags(r, tol)]
    print("# (a): %d region ends within %g us of MACHINE's switch only, not ftrace's%s" % (
        len(lags), o.tolerance_us, "" if not lags else
        " (MACHINE's stamp later by %s us at most: %s)" % (
            us(max(b - a for a, b in lags)),
            ", ".join("%s+%s us" % (ftime(a), us(b - a)) for a, b in lags[:5]))))
    if machine is None:
        print("# (a): no machine.trace in %s: ends compared with ftrace's only" % d)
    rep.result(not missing and must,
               "(a) %d of %d off-CPU spans (%d) and system calls with such spans (%d) that "
               "need a kernel region have one on their goroutine with both ends within %g us "
               "of ftrace's or MACHINE's switch (edge error from ftrace: median %s us, 95th "
               "percentile %s us, largest %s us; %d ends only MACHINE's)"
               % (len(must) - len(missing), len(must), len(must) - ncalls, ncalls,
                  o.tolerance_us, us(pct(errs, 50)), us(pct(errs, 95)),
                  us(max(errs) if errs else 0), len(lags)),
               ["no region for " + x.name() for x in missing] or
               ["no span needs a region: nothing was compared"])
    extra = [r for r in regions if r.exp is None and not app.moved(r.begin)]
    moved = sum(1 for r in regions if r.exp is None and app.moved(r.begin))
    rep.result(not extra and not bad_pairs,
               "(b) %d of %d kernel regions are an off-CPU span's or a system call's of their "
               "M and goroutine (%d of them near generation boundaries or between an M's "
               "events of two generations, which need none; %d more begin where Go's reader "
               "moved events to a generation's start: not compared)"
               % (len(matched), len(regions), sum(1 for r in matched if r.exp.why), moved),
               bad_pairs + ["no off-CPU span or system call of M %d for region %s" % (
                   r.m, r.name()) for r in extra])
    wrong = [r for r in matched if r.type not in r.exp.types(tol) and
             not any(t.endswith(" in ") and r.type.startswith(t) and len(r.type) > len(t)
                     for t in r.exp.types(tol))]
    rep.result(not wrong,
               "(c) %d of %d matched regions have their span's type (preempted: waiting for a "
               "CPU, or throttled when its CPU idled > %d %%; blocked: syscall blocked in or "
               "blocked in, as its goroutine; a call's: its longest span's)"
               % (len(matched) - len(wrong), len(matched), IDLE_HIGH * 100),
               ["region %s for %s, idle %.0f %%: want %s" % (
                   r.name(), r.exp.name(), r.exp.longest().idle * 100,
                   " or ".join('"%s"' % t for t in r.exp.types(tol))) for r in wrong])
    check_throttled(rep, regions, before, after, o.slack_pct)
    check_kept(rep, app_evs, out_evs)
    bad = check_logs(matched, tol)
    rep.result(not bad, "(f) %d of %d matched regions have their kernel logs right after "
               "their begin, in their kind's form" % (len(matched) - len(bad), len(matched)),
               bad)
    check_who(rep, matched, ft, tol)
    print("1..%d" % rep.n)
    return 1 if rep.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
