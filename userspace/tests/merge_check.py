#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks gotrace merge's outputs against Go's own reading of its inputs (TAP lines).

Usage: merge_check.py NAME APP.parsed MACHINE.parsed OUT.parsed THREADS.parsed

Each file is Go 1.27's 'go tool trace -d=parsed' of a trace: APP (a Go program's own),
MACHINE (gotrace's), OUT (gotrace merge APP MACHINE) and THREADS (gotrace merge --threads).
What is checked, independently of gotrace's reader:
  - OUT is APP's events, each as Go reads it in APP (times within 8 ns: Go moves a time
    that does not grow by 1 ns), plus regions and logs of the join;
  - each region of a running goroutine starts where MACHINE switched its thread out
    (within 128 ns: both clocks tick in 64 ns) and ends by the switch back in, typed by
    how it went out: blocked in its reason, or runnable: throttled if its CPU ran no
    thread for over half the wait, else waiting for a CPU;
  - each span MACHINE had an APP thread off its CPU while the thread ran a goroutine
    (running, not in a system call), with an event of the thread's since the last
    generation began, has its region;
  - each system call region begins at its goroutine's Running->Syscall, holds a span of
    the thread off its CPU, and has a log per span;
  - THREADS' go: regions are APP's runs of goroutines on the thread, named in a log, and
    nine in ten runs have one.
"""
import re
import sys

TICK = 128
CLAMP = 10000   # Go moves events of a generation before the last one's to just after it
LINE = re.compile(r'^M=(-?\d+) P=(-?\d+) G=(-?\d+) (\w+) Time=(\d+)(.*)$')
TRANS = re.compile(r' GoID=(\d+) (\w+)->(\w+) Reason="(.*)"$')
STRIDE = 4194304
N = 0
FAILED = 0


def result(ok, name, why=''):
    global N, FAILED
    N += 1
    if not ok:
        FAILED += 1
    print(('ok' if ok else 'not ok') + ' %d - %s' % (N, name))
    if not ok and why:
        for line in why.splitlines()[:10]:
            print('#   ' + line)


def events(path):
    """[(m, p, g, kind, time, rest, stack lines)] in Go's order."""
    out = []
    for line in open(path, errors='replace'):
        line = line.rstrip('\n')
        mt = LINE.match(line)
        if mt:
            m, p, g, kind, t, rest = mt.groups()
            out.append([int(m), int(p), int(g), kind, int(t), rest, []])
        elif out:
            out[-1][6].append(line)
    return out


def is_join(ev):
    rest = ev[5]
    if ev[3] in ('RegionBegin', 'RegionEnd'):
        return 'Type="kernel: ' in rest
    return ev[3] == 'Log' and 'Category="kernel"' in rest


def same_events(app, out):
    kept = [e for e in out if not is_join(e)]
    if len(kept) != len(app):
        return 'OUT has %d of its events, APP %d' % (len(kept), len(app))
    for a, b in zip(app, kept):
        if a[:4] != b[:4] or a[5:] != b[5:] or abs(a[4] - b[4]) > 8:
            return 'APP: %s\nOUT: %s' % (a[:6], b[:6])
    return ''


def machine_spans(machine):
    """tid -> [(out, in, 'Runnable' or the block reason, its CPU's idle ns meanwhile)]."""
    spans, open_, busy, running = {}, {}, {}, {}
    for e in machine:
        mt = TRANS.match(e[5])
        if e[3] != 'StateTransition' or not mt:
            continue
        gid, a, b, reason = int(mt.group(1)), mt.group(2), mt.group(3), mt.group(4)
        tid = gid % STRIDE
        if a == b:
            continue    # a goroutine's state said again (a new generation's)
        if b == 'Running':
            running[gid] = (e[1], e[4])
        elif a == 'Running' and gid in running:
            p, t = running.pop(gid)
            busy.setdefault(p, []).append((t, e[4]))
        if a == 'Running' and b in ('Runnable', 'Waiting'):
            open_[tid] = (e[4], 'Runnable' if b == 'Runnable' else reason, e[1])
        elif b == 'Running' and tid in open_:
            o, why, p = open_.pop(tid)
            spans.setdefault(tid, []).append([o, e[4], why, p])
    for p, t in running.values():
        busy.setdefault(p, []).append((t, float('inf')))
    for v in spans.values():
        for sp in v:
            o, i, _, p = sp
            ran = sum(max(0, min(i, t1) - max(o, t0)) for t0, t1 in busy.get(p, []))
            sp[3] = (i - o) - ran
    return {k: [tuple(sp) for sp in v] for k, v in spans.items()}


def app_states(app):
    """Per M: [(time, goroutine or -1, in a syscall)] after each of its events; the syncs."""
    states, cur, syncs = {}, {}, []
    for e in app:
        if e[3] == 'Sync':
            syncs.append(e[4])
            continue
        m = e[0]
        if m < 0:
            continue
        g, sc = cur.get(m, (-1, False))
        mt = TRANS.match(e[5])
        if e[3] == 'StateTransition' and mt:
            gid, a, b = int(mt.group(1)), mt.group(2), mt.group(3)
            if b == 'Running':
                g, sc = gid, False
            elif b == 'Syscall':
                g, sc = gid, True
            elif gid == g:
                g, sc = -1, False
        cur[m] = (g, sc)
        states.setdefault(m, []).append((e[4], g, sc))
    return states, syncs


def fuzzy(states, syncs):
    """Per M, the windows around each generation change where Go moved its times."""
    zones = {}
    for m, seq in states.items():
        for s in syncs[1:]:
            before = [t for t, _, _ in seq if t < s]
            after = [t for t, _, _ in seq if t > s + CLAMP]
            zones.setdefault(m, []).append((before[-1] if before else s,
                                            after[0] if after else float('inf')))
    return zones


def in_zone(zones, m, t):
    return any(a - TICK <= t <= b + TICK for a, b in zones.get(m, []))


def state_at(states, m, t):
    """M's (goroutine, syscall, time of its last event) at time t."""
    last = (-1, False, None)
    for time, g, sc in states.get(m, []):
        if time > t:
            break
        last = (g, sc, time)
    return last


def regions(out, prefix):
    """[(m, g, begin, end, type, [log messages])] of the regions whose type starts so."""
    found, open_ = [], {}
    for e in out:
        if e[3] == 'RegionBegin' and ('Type="' + prefix) in e[5]:
            typ = e[5].split('Type="', 1)[1][:-1]
            open_[e[2]] = [e[0], e[2], e[4], None, typ, []]
        elif e[3] == 'Log' and e[2] in open_ and open_[e[2]][3] is None:
            open_[e[2]][5].append(e[5].split('Message="', 1)[1][:-1])
        elif e[3] == 'RegionEnd' and ('Type="' + prefix) in e[5] and e[2] in open_:
            r = open_.pop(e[2])
            r[3] = e[4]
            found.append(r)
    return found


def check_regions(name, app, machine, out):
    spans = machine_spans(machine)
    states, syncs = app_states(app)
    zones = fuzzy(states, syncs)
    regs = regions(out, 'kernel: ')
    calls = [r for r in regs if state_at(states, r[0], r[2])[1] and not in_zone(zones, r[0], r[2])]
    runs = [r for r in regs if r not in calls and not in_zone(zones, r[0], r[2])]
    bad = []
    for m, g, b, e, typ, logs in runs:
        match = [s for s in spans.get(m, []) if abs(s[0] - b) <= TICK]
        if not match:
            bad.append('%s at %d on M %d: no switch-out there' % (typ, b, m))
            continue
        o, i, why, idle = match[0]
        want = ('kernel: blocked in ' + why,)
        if why == 'Runnable':
            # Throttled: its CPU idled over half the wait (near half, either).
            share = idle / max(1, i - o)
            want = ('kernel: waiting for a CPU',) if share < 0.45 else \
                ('kernel: throttled',) if share > 0.55 else \
                ('kernel: waiting for a CPU', 'kernel: throttled')
        if e > i + TICK or e < b or typ not in want or len(logs) != 1:
            bad.append('%s [%d, %d] on M %d: span [%d, %d] %s, logs %s' %
                       (typ, b, e, m, o, i, why, logs))
    result(not bad and runs, '%s: %d regions of running goroutines are switch-outs, typed by how'
           % (name, len(runs)), '\n'.join(bad))
    begins = {(r[0], r[2]) for r in regs}
    missed, want = [], 0
    for m in states:
        for o, i, why, _ in spans.get(m, []):
            g, sc, last = state_at(states, m, o)
            if g < 0 or sc or last is None or in_zone(zones, m, o):
                continue
            nxt = [t for t, _, _ in states[m] if t > o]
            if not nxt or any(o < s <= nxt[0] for s in syncs):
                continue
            want += 1
            if not any(mm == m and abs(b - o) <= TICK for mm, b in begins):
                missed.append('M %d off its CPU [%d, %d] (%s) running G %d' % (m, o, i, why, g))
    result(not missed and want, '%s: each of %d switch-outs of a running goroutine has a region'
           % (name, want), '\n'.join(missed))
    bad = []
    for m, g, b, e, typ, logs in calls:
        # The call's spans: until its goroutine left the system call (on M or not).
        left = [t for t, gg, sc in states[m] if t > b and not (gg == g and sc)]
        end = min(left[0] if left else e, e)
        inside = [s for s in spans.get(m, []) if b <= s[0] < end and s[1] <= e + TICK]
        if not inside or len(logs) != len(inside) or not any(
                typ.endswith(' ' + s[2]) or s[2] == 'Runnable' for s in inside):
            bad.append('%s [%d, %d] on M %d: spans %s, logs %s' % (typ, b, e, m, inside, logs))
    result(not bad and calls, '%s: %d system call regions hold their spans, a log each'
           % (name, len(calls)), '\n'.join(bad))


def app_runs(app):
    """(m, g) -> [(start, end)] of APP's goroutines' runs on each M."""
    states, _ = app_states(app)
    runs = {}
    for m, seq in states.items():
        start, cur = None, -1
        for t, g, _ in seq:
            if g != cur:
                if cur >= 0:
                    runs.setdefault((m, cur), []).append((start, t))
                start, cur = t, g
        if cur >= 0:
            runs.setdefault((m, cur), []).append((start, seq[-1][0]))
    return runs


def check_threads(name, app, threads):
    runs = app_runs(app)
    states, syncs = app_states(app)
    zones = fuzzy(states, syncs)
    for key in runs:
        runs[key] = [r for r in runs[key] if not in_zone(zones, key[0], r[0])
                     and not in_zone(zones, key[0], r[1])]
    regs = [r for r in regions(threads, 'go: ') if not in_zone(zones, r[1] % STRIDE, r[2])
            and not in_zone(zones, r[1] % STRIDE, r[3])]
    bad = []
    for m, g, b, e, typ, logs in regs:
        tid = g % STRIDE
        gid = int(logs[0].split()[-1]) if len(logs) == 1 else -1
        if not any(abs(s - b) <= TICK and abs(t - e) <= TICK for s, t in runs.get((tid, gid), [])):
            bad.append('%s [%d, %d] on thread %d, logs %s' % (typ, b, e, tid, logs))
    total = sum(len(v) for v in runs.values())
    result(not bad and regs, '%s: %d go: regions are runs of the goroutine their log names'
           % (name, len(regs)), '\n'.join(bad))
    result(len(regs) * 10 >= total * 9, '%s: %d of %d runs have a go: region'
           % (name, len(regs), total))


def main():
    name, app, machine, out, threads = sys.argv[1:6]
    app, machine, out, threads = events(app), events(machine), events(out), events(threads)
    why = same_events(app, out)
    result(not why, '%s: OUT holds every event of APP as Go reads it' % name, why)
    check_regions(name, app, machine, out)
    check_threads(name, app, threads)
    sys.exit(1 if FAILED else 0)


if __name__ == '__main__':
    main()
