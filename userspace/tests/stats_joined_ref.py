#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What gotrace stats should print as go_functions for a joined trace, from Go's own reader:
reads 'go tool trace -d=parsed' output on stdin, prints a JSON object {function: {...}}.

A goroutine's function is the root frame of the first TransitionStack of its own
transitions (Go's goroutine analysis), else "(unknown)". Running is its time in the Running
and Syscall states up to the last event; a kernel region (its type one of gotrace merge's)
counts only while its goroutine runs.
"""
import json
import re
import sys

KINDS = ["cpu_wait_ns", "throttled_ns", "blocked_ns", "syscall_blocked_ns"]
HELD = ("Running", "Syscall")


def kind_of(typ):
    """gotrace merge's region types: the blocked kinds with " REASON" or without."""
    if typ == "kernel: waiting for a CPU":
        return 0
    if typ == "kernel: throttled":
        return 1
    for k, name in ((3, "kernel: syscall blocked in"), (2, "kernel: blocked in")):
        if typ == name or (typ.startswith(name + " ") and len(typ) > len(name) + 1):
            return k
    return None


class Go:
    def __init__(self, ts):
        self.fn = None
        self.state = None
        self.since = ts
        self.kind = None
        self.run = self.sys = 0
        self.kinds = [0] * 4

    def flush(self, ts):
        d = ts - self.since
        self.since = ts
        if self.state in HELD:
            self.run += d
            if self.state == "Syscall":
                self.sys += d
            if self.kind is not None:
                self.kinds[self.kind] += d


def events(lines):
    """(header line, its TransitionStack root function or None) per event."""
    ev, root, in_tstack = None, None, False
    for line in lines:
        if line.startswith("M="):
            if ev:
                yield ev, root
            ev, root, in_tstack = line, None, False
        elif line.startswith("TransitionStack="):
            in_tstack = True
        elif line.startswith("Stack="):
            in_tstack = False
        elif in_tstack and line.startswith("\t") and not line.startswith("\t\t"):
            root = line.strip().rsplit(" @ ", 1)[0]
    if ev:
        yield ev, root


def main():
    gs, fns, last = {}, {}, None

    def fold(g):
        f = fns.setdefault(g.fn or "(unknown)", {"goroutines": 0, "running_ns": 0,
                                                 "syscall_ns": 0, **{k: 0 for k in KINDS}})
        f["goroutines"] += 1
        f["running_ns"] += g.run
        f["syscall_ns"] += g.sys
        for i, k in enumerate(KINDS):
            f[k] += g.kinds[i]

    for line, root in events(sys.stdin.read().split("\n")):
        ts = int(re.search(r" Time=(\d+)", line).group(1))
        last = ts if last is None else max(last, ts)
        m = re.search(r" StateTransition .* GoID=(\d+) (\w+)->(\w+) ", line)
        if m:
            gid, frm, to = int(m.group(1)), m.group(2), m.group(3)
            if gid not in gs or frm == "NotExist":
                if gid in gs:
                    fold(gs.pop(gid))
                gs[gid] = Go(ts)
            g = gs[gid]
            g.flush(ts)
            g.state = to
            if g.fn is None and root:
                g.fn = root
            if to == "NotExist":
                fold(gs.pop(gid))
            continue
        m = re.search(r" G=(\d+) Region(Begin|End) .* Type=(\".*\")$", line)
        if not m or kind_of(json.loads(m.group(3))) is None:
            continue
        gid, kind = int(m.group(1)), kind_of(json.loads(m.group(3)))
        g = gs.setdefault(gid, Go(ts))
        g.flush(ts)
        if m.group(2) == "Begin":
            g.kind = kind
        elif g.kind == kind:
            g.kind = None
    for g in gs.values():
        g.flush(last)
        fold(g)
    for f in fns.values():
        f["on_cpu_ns"] = f["running_ns"] - sum(f[k] for k in KINDS)
    json.dump(fns, sys.stdout, indent=1, sort_keys=True)
    print()


main()
