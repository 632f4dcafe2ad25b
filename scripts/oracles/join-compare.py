#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check gotrace merge's output against ftrace: its kernel regions, APP's events, cpu.stat.

Usage: join-compare.py [--tool TRACE] [--out FILE] [--app FILE] [--tolerance-us US]
                       [--boundary-us US] [--slack-pct PCT] DIR

DIR is one run of selftests/join_guest.sh (scripts/oracles/join-oracle.sh) after
`gotrace merge DIR/app.trace DIR/machine.trace -o DIR/merged.trace`: app.trace (APP, the Go
program's own trace), merged.trace (OUT), ftrace.txt (ftrace's text, trace_clock mono: the
clock of APP's time stamps), tids and pid (the program's threads), cpu.stat.before and
cpu.stat.after (its cgroup's). --out and --app name other files for OUT and APP. Each may
be a trace, read with Go's `TRACE -d=parsed` (--tool: a Go 1.24+ cmd/trace binary, default
build/go/1.27/tool/trace), or that command's output already (text starting with "M="):
the self-test edits such text. Nothing of gotrace reads anything here.

From APP: per M (thread id), the goroutine it runs or that is in a system call on it, from
the goroutines' state transitions, and the generation of each of its events. From ftrace:
each program thread's off-CPU spans (sched_switch away to sched_switch back), how it went
(prev_state R/R+: preempted; any other: blocked, unless it comes back with no wakeup, which
is a preemption), on which CPU, and each CPU's idle time. A span is joinable when a
goroutine is on the M at its middle, APP's events of the M before and after it are of one
generation and it is more than --boundary-us (1000) from APP's generation boundaries (Sync
events); a region may have a span of the last two kinds but need not. Its expected region
spans it, clipped between the M's neighbouring APP events. From OUT: every user region whose type starts with "kernel: ",
with its goroutine, M, begin and end, and the log after its begin. TAP, a line per check:
  (a) every joinable span has a region on that goroutine whose ends are within
      --tolerance-us (50) of the span's;
  (b) every region is such a span's, or a span's that lies near a generation boundary (on
      the goroutine that was on the M): none without one;
  (c) each matched region's type: a preemption "kernel: waiting for a CPU" or "kernel:
      throttled" ("throttled" when the CPU it left idled more than 60 % of the span,
      "waiting" when less than 40 %, either between), a block "kernel: syscall blocked in
      R" when its goroutine was in a system call, else "kernel: blocked in R";
  (d) throttled time: per CPU the union of the throttled regions' spans (a run queue is
      throttled once however many threads wait on it, and cpu.stat's throttled_usec sums
      the CPUs' run queues), summed, is at most throttled_usec's growth plus --slack-pct
      (5) %, and more than 0 when nr_throttled grew;
  (e) OUT without its kernel regions and logs is APP: the same events (with their stacks),
      in the same order on each M;
  (f) each region has one log, category "kernel", right after its begin, in the form its
      kind has ("ran instead on CPU N: PROG [TID] for X us" or "nothing ran instead on CPU
      N" where N is a CPU the thread left or came back on; "woken by PROG [TID] (REASON) on
      CPU N" or "woken by an interrupt on CPU N").
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
NEAR = "near a generation boundary"
BETWEEN = "between generations"
# Spans a region may have but need not.
MAY = (NEAR, BETWEEN)
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
WAIT_LOG = re.compile(r"^(?:ran instead on CPU (\d+): (.*) \[(\d+)\] for (\d+(?:\.\d+)?) us"
                      r"|nothing ran instead on CPU (\d+))$")
WAKE_LOG = re.compile(r"^(?:woken by (.*) \[(\d+)\] \((.*)\) on CPU (\d+)"
                      r"|woken by an interrupt on CPU (\d+))$")


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


class App:
    """Per M: the goroutines on it (intervals) and its events' times and generations."""

    def __init__(self, evs):
        self.first, self.last = evs[0].t, evs[-1].t
        self.syncs = [e.t for e in evs if e.kind == "Sync"]
        self.times = defaultdict(list)
        self.gens = defaultdict(list)
        self.on = defaultdict(list)     # M -> [(start, end, G, state)]
        cur = {}                        # M -> [start, G, state]
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

    def goroutine(self, m, t):
        """(G, state) on M at time t, or None."""
        i = bisect_right(self.starts.get(m, []), t) - 1
        if i < 0:
            return None
        s, e, g, state = self.on[m][i]
        return (g, state) if s <= t <= e else None

    def neighbours(self, m, out, back):
        """The M's APP events just before out and just after back: (time, gen) or None."""
        ts = self.times.get(m, [])
        i = bisect_right(ts, out) - 1
        j = bisect_left(ts, back)
        prev = (ts[i], self.gens[m][i]) if i >= 0 else None
        nxt = (ts[j], self.gens[m][j]) if j < len(ts) else None
        return prev, nxt


class Span:
    __slots__ = ("tid", "out", "back", "cpu_out", "cpu_in", "state", "woken", "blocked",
                 "g", "gstate", "why", "exp_begin", "exp_end", "idle", "region")

    def __init__(self, tid, out, back, cpu_out, cpu_in, state, woken):
        self.tid, self.out, self.back = tid, out, back
        self.cpu_out, self.cpu_in, self.state, self.woken = cpu_out, cpu_in, state, woken
        self.blocked = not state.startswith("R") and woken
        self.g = self.gstate = self.why = None
        self.exp_begin, self.exp_end = out, back
        self.idle = 0.0
        self.region = None

    def name(self):
        return "thread %d off CPU %s-%s (%s on CPU %d, back on CPU %d)" % (
            self.tid, ftime(self.out), ftime(self.back),
            "blocked" if self.blocked else "preempted", self.cpu_out, self.cpu_in)


class Ftrace:
    """The program threads' off-CPU spans and each CPU's runs, from ftrace's text."""

    def __init__(self, path, tids):
        self.runs = defaultdict(list)   # cpu -> [(start, end, pid, comm)]
        self.spans = []
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
                    if w and int(w.group(2)) in off:
                        tid = int(w.group(2))
                        o, c, state, _ = off[tid]
                        off[tid] = (o, c, state, True)
        for c in self.runs:
            self.runs[c].sort()
        self.run_starts = {c: [r[0] for r in v] for c, v in self.runs.items()}

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


class Region:
    __slots__ = ("m", "g", "type", "begin", "end", "log", "log_ok", "span")

    def __init__(self, m, g, rtype, begin):
        self.m, self.g, self.type, self.begin = m, g, rtype, begin
        self.end = None
        self.log = None
        self.log_ok = False
        self.span = None

    def name(self):
        return '"%s" on G %d, M %d, %s-%s' % (self.type, self.g, self.m, ftime(self.begin),
                                              ftime(self.end))


def kernel_regions(evs):
    """The kernel regions of OUT, paired by goroutine and type, with their logs."""
    regions, bad = [], []
    open_ = defaultdict(list)
    last_begin = None
    for e in evs:
        if e.kind == "Log" and is_kernel(e):
            msg = unquote(LOG.search(e.rest).group(3))
            if last_begin is not None and last_begin.log is None and last_begin.g == e.g \
                    and last_begin.begin == e.t:
                last_begin.log = msg
                last_begin.log_ok = True
            else:
                bad.append('a kernel log "%s" on G %d at %s not right after a region\'s begin'
                           % (msg, e.g, ftime(e.t)))
            last_begin = None
            continue
        last_begin = None
        if e.kind not in ("RegionBegin", "RegionEnd") or not is_kernel(e):
            continue
        rtype = unquote(REGION.search(e.rest).group(2))
        key = (e.g, rtype)
        if e.kind == "RegionBegin":
            r = Region(e.m, e.g, rtype, e.t)
            open_[key].append(r)
            regions.append(r)
            last_begin = r
        elif open_[key]:
            r = open_[key].pop()
            r.end = e.t
            if e.m != r.m:
                bad.append("region %s ends on M %d" % (r.name(), e.m))
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


def classify(spans, app, ft, boundary):
    """Sets each span's goroutine, expected ends, idle share, and why it is not joinable."""
    for s in spans:
        mid = (s.out + s.back) // 2
        on = app.goroutine(s.tid, mid)
        cpu = ft.on_cpu(s.cpu_out, s.out, s.back)
        idle = sum(n for (pid, _), n in cpu.items() if pid == 0)
        s.idle = idle / max(s.back - s.out, 1)
        if s.back < app.first or s.out > app.last:
            s.why = "outside APP's time"
            continue
        if on is None:
            s.why = "no goroutine on the M"
            continue
        s.g, s.gstate = on
        prev, nxt = app.neighbours(s.tid, mid, mid)
        if prev is None or nxt is None:
            s.why = "outside APP's time"
            continue
        s.exp_begin, s.exp_end = max(s.out, prev[0]), min(s.back, nxt[0])
        if any(s.out - boundary < b < s.back + boundary for b in app.syncs):
            s.why = NEAR
        elif prev[1] != nxt[1]:
            s.why = BETWEEN


def expected_types(s):
    if not s.blocked:
        if s.idle > IDLE_HIGH:
            return (THROTTLED,)
        if s.idle < IDLE_LOW:
            return (WAIT,)
        return (WAIT, THROTTLED)
    return (SYSCALL,) if s.gstate == "Syscall" else (BLOCKED,)


def type_ok(rtype, types):
    return any(rtype == t or (t.endswith(" in ") and rtype.startswith(t) and
                              len(rtype) > len(t)) for t in types)


def match(spans, regions, tol):
    """Pairs regions with spans of their M and goroutine: ends within tol, closest first."""
    by_m = defaultdict(list)
    for r in regions:
        by_m[r.m].append(r)
    for m in by_m:
        by_m[m].sort(key=lambda r: r.begin)
    pairs = []
    for s in spans:
        if s.g is None or (s.why is not None and s.why not in MAY):
            continue
        rs = by_m.get(s.tid, [])
        i = bisect_left([r.begin for r in rs], s.exp_begin - tol)
        for r in rs[i:]:
            if r.begin > s.exp_begin + tol:
                break
            if r.g == s.g and abs(r.end - s.exp_end) <= tol:
                pairs.append((abs(r.begin - s.exp_begin) + abs(r.end - s.exp_end), s, r))
    for _, s, r in sorted(pairs, key=lambda p: (p[0], p[1].out)):
        if r.span is None and s.region is None:
            r.span = s
            s.region = r


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


def check_logs(matched, ft):
    bad = []
    for r in matched:
        s = r.span
        if r.log is None:
            bad.append("region %s has no kernel log right after its begin" % r.name())
            continue
        if r.type in (WAIT, THROTTLED):
            m = WAIT_LOG.match(r.log)
            cpu = m and int(m.group(1) or m.group(5))
            if not m or cpu not in (s.cpu_out, s.cpu_in):
                bad.append('region %s: log "%s" is not "ran instead on CPU N: ..." or '
                           '"nothing ran instead on CPU N" with N %d or %d'
                           % (r.name(), r.log, s.cpu_out, s.cpu_in))
        else:
            m = WAKE_LOG.match(r.log)
            if not m:
                bad.append('region %s: log "%s" is not "woken by PROG [TID] (REASON) on CPU N"'
                           ' or "woken by an interrupt on CPU N"' % (r.name(), r.log))
    return bad


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
        before = cpu_stat(os.path.join(d, "cpu.stat.before"))
        after = cpu_stat(os.path.join(d, "cpu.stat.after"))
    except (OSError, ValueError, InputError) as e:
        print("Bail out! join-compare.py: %s" % e)
        return 2

    app = App(app_evs)
    rep = Report()
    print("TAP version 13")
    print("# APP: %d events, %s-%s, %d generations, Ms %s" % (
        len(app_evs), ftime(app.first), ftime(app.last), len(app.syncs) - 1 if app.syncs else 0,
        " ".join(str(m) for m in sorted(app.times))))
    spans = ft.spans
    classify(spans, app, ft, int(o.boundary_us * 1000))
    regions, bad_pairs = kernel_regions(out_evs)
    match(spans, regions, tol)
    why = defaultdict(int)
    for s in spans:
        why[s.why or "joinable"] += 1
    print("# ftrace: %d lines, %d off-CPU spans of threads %s: %s" % (
        ft.lines, len(spans), " ".join(str(t) for t in sorted(tids)),
        ", ".join("%d %s" % (n, w) for w, n in sorted(why.items()))))
    kinds = defaultdict(int)
    for r in regions:
        kinds[r.type.split(" in ")[0]] += 1
    print("# OUT: %d kernel regions: %s" % (len(regions), ", ".join(
        "%d \"%s\"" % (n, k) for k, n in sorted(kinds.items()))))

    # (a)
    joinable = [s for s in spans if s.why is None]
    missing = [s for s in joinable if s.region is None]
    matched = [r for r in regions if r.span is not None]
    errs = [abs(r.begin - r.span.exp_begin) for r in matched] + \
        [abs(r.end - r.span.exp_end) for r in matched]
    rep.result(not missing and joinable,
               "(a) %d of %d joinable off-CPU spans have a kernel region on their goroutine "
               "with both ends within %g us (edge error median %s us, 95th percentile %s us, "
               "largest %s us)" % (len(joinable) - len(missing), len(joinable), o.tolerance_us,
                                   us(pct(errs, 50)), us(pct(errs, 95)),
                                   us(max(errs) if errs else 0)),
               ["no region for " + s.name() + " on G %d (%s)" % (s.g, s.gstate)
                for s in missing] or ["no joinable span: nothing was compared"])
    # (b)
    extra = [r for r in regions if r.span is None]
    rep.result(not extra and not bad_pairs,
               "(b) %d of %d kernel regions are an off-CPU span's of their M and goroutine "
               "(%d of them near generation boundaries or between an M's events of two "
               "generations, which need none)" % (len(matched), len(regions),
                                                  sum(1 for r in matched if r.span.why)),
               bad_pairs + ["no off-CPU span of M %d for region %s" % (r.m, r.name())
                            for r in extra])
    # (c)
    wrong = [r for r in matched if not type_ok(r.type, expected_types(r.span))]
    rep.result(not wrong,
               "(c) %d of %d matched regions have their span's type (preempted: waiting for a "
               "CPU, or throttled when its CPU idled > %d %%; blocked: syscall blocked in or "
               "blocked in, as its goroutine)" % (len(matched) - len(wrong), len(matched),
                                                 IDLE_HIGH * 100),
               ["region %s for %s, idle %.0f %%, G %s: want %s" % (
                   r.name(), r.span.name(), r.span.idle * 100, r.span.gstate,
                   " or ".join('"%s"' % t for t in expected_types(r.span))) for r in wrong])
    # (d)
    per_cpu = defaultdict(list)
    total = 0
    for r in regions:
        if r.type == THROTTLED:
            total += r.end - r.begin
            cpu = r.span.cpu_out if r.span else -1
            per_cpu[cpu].append((r.begin, r.end))
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
    limit = grew * (1 + o.slack_pct / 100)
    ok = union / 1000 <= limit and (nr == 0 or union > 0)
    rep.result(ok, "(d) throttled regions: %s us per CPU (%s us in all) <= cpu.stat's "
               "throttled_usec growth %d us + %g %%, and > 0 as nr_throttled grew by %d"
               % (us(union), us(total), grew, o.slack_pct, nr),
               ["%s us of throttled regions is more than %d us + %g %%" % (
                   us(union), grew, o.slack_pct)] if union / 1000 > limit else
               ["no throttled region, yet the cgroup was throttled %d times" % nr])
    # (e)
    out_app = [e for e in out_evs if not is_kernel(e)]
    diffs = []
    per_m = defaultdict(list)
    for e in app_evs:
        per_m[e.m].append("\n".join(e.text).rstrip("\n"))
    out_m = defaultdict(list)
    for e in out_app:
        out_m[e.m].append("\n".join(e.text).rstrip("\n"))
    for m in sorted(set(per_m) | set(out_m)):
        a, b = per_m.get(m, []), out_m.get(m, [])
        if a != b:
            i = next((k for k in range(min(len(a), len(b))) if a[k] != b[k]), min(len(a), len(b)))
            diffs.append("M %d: APP has %d events, OUT %d; first difference at its event %d: "
                         "APP %r, OUT %r" % (m, len(a), len(b), i,
                                            a[i].split("\n")[0] if i < len(a) else None,
                                            b[i].split("\n")[0] if i < len(b) else None))
    rep.result(not diffs, "(e) OUT without its kernel regions and logs has APP's %d events, "
               "in order on each of its %d Ms" % (len(app_evs), len(per_m)), diffs)
    # (f)
    bad = check_logs(matched, ft)
    rep.result(not bad, "(f) %d of %d matched regions have their kernel log right after their "
               "begin, in their kind's form" % (len(matched) - len(bad), len(matched)), bad)
    print("1..%d" % rep.n)
    return 1 if rep.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
