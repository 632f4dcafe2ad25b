#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Make one edit of ftrace text or of a snapshot, for oracle-tests/ftrace-compare-selftest.sh.

Usage: ftrace_edit.py [--from S] [--to S] [--whole] [--across S] MODE IN OUT

IN is the ftrace text of an ftrace oracle workload (scripts/oracles/ftrace-oracle.sh). The
edit is made on the thread the workload forked that ftrace wakes most often, on the middle
one of its lines of the wanted kind. MODE is one of:
  drop-wakeup  delete a wakeup of it while blocked
  flip-state   turn one of its blocked switch-outs (prev_state S or D) into a preemption (R)
  late-switch  stamp one of its switch-outs 1 ms later
With --from and --to (ftrace's seconds), only lines stamped from S to S count (the wakeups
that choose the thread, the lines edited); with --whole, only threads all of whose lines
are there (a thread born and dead outside a flight recorder's window, say). With --across
S, the thread is one any process forked that has lines after S, whose last line before S
is of the wanted kind: that line is edited (flip-state: a thread blocked at a window's
start shown runnable then).

MODE early-fork or early-fork-blocked: a fork whose parent's lines before it are a
switch-out as a preemption (prev_state R+; early-fork-blocked: a block, S or D) and then
its switch-in is moved before that switch-out, 1 us earlier, on its CPU: ftrace's probe
ran before the preemption, gotrace's after (as on kernels whose probes are preemptible:
ftrace-compare.py --preemptible-probes).

MODE early-block edits a Go 1.22+ trace IN instead (a flight recorder's snapshot): of the
GoBlock and GoStop events 200 us or more after the event before them in their batch, the
one with the longest such gap, in a generation neither the first nor the last (inside the
snapshot's window), is moved back to 64 ns (a tick) after that event; the next event of
its batch keeps its time. Go's readers still read it (the event stays after the ones before
it on its M), and its thread's switch-out is then stamped before ftrace's. The events are
found through `gotrace dump --wire` (GOTRACE, default gotrace), each checked against the
bytes.

Writes the result to OUT and prints what it changed; exits 1, saying why, if there is
nothing to edit.
"""

import os
import re
import subprocess
import sys

# gen_cut.py, the byte-level framing of Go 1.22+ traces, is in scripts/lib/.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import gen_cut  # noqa: E402 (after the path it is found by)

STAMP = re.compile(r" (\d+)\.(\d{6}): ")
# Go 1.22+ event types whose arguments are all varints (gotrace dump --wire prints them).
EV2_GO_STOP = 19
EV2_GO_BLOCK = 20
EARLY_MIN_TICKS = 3125  # 200 us at gotrace's 15.625 MHz


def stamp(line):
    """A line's ftrace time stamp in us, or None."""
    m = STAMP.search(line)
    return int(m.group(1)) * 1000000 + int(m.group(2)) if m else None


def edit(mode, lines, lo=None, hi=None, whole=False, across=None):
    """Edit lines in place; return (thread, line index, the line before). Only lines
    stamped from lo to hi (us) count; with whole, only threads all of whose lines do. With
    across, the thread is one that any process forked, alive after across, whose last line
    before it is of the wanted kind, and that line is edited."""
    stamps = [stamp(l) for l in lines]
    if across is not None:
        hi = across

    def within(i):
        return stamps[i] is not None and (lo is None or stamps[i] >= lo) and \
            (hi is None or stamps[i] <= hi)

    # Threads the workload forked: born in the session.
    forks = set(int(m.group(1)) for l in lines
                for m in [re.search(r"sched_process_fork: comm=%s .* child_pid=(\d+)" % (
                    r"\S+" if across is not None else "oracle_workload"), l)] if m)
    if across is not None:
        forks = set(c for c in forks if any(
            stamps[i] is not None and stamps[i] > across and "pid=%d " % c in l
            for i, l in enumerate(lines)))
    if whole:
        out = set()
        for i, l in enumerate(lines):
            for m in re.finditer(r"(?:pid|child_pid)=(\d+)", l):
                if int(m.group(1)) in forks and not within(i):
                    out.add(int(m.group(1)))
        forks -= out
    woken = {}
    for i, l in enumerate(lines):
        m = re.search(r"sched_wakeup: .* pid=(\d+) prio", l)
        if m and int(m.group(1)) in forks and within(i):
            woken[int(m.group(1))] = woken.get(int(m.group(1)), 0) + 1
    if not woken:
        sys.exit("no wakeup of a thread born in the trace")
    for c in sorted(woken, key=lambda t: -woken[t]):
        found = lines_of(mode, lines, c, within, across is not None)
        if found is not None:
            i = found
            break
    else:
        sys.exit("no thread has a line to edit for %s" % mode)
    old = lines[i]
    if mode == "drop-wakeup":
        lines[i] = ""
    elif mode == "flip-state":
        lines[i] = re.sub(r"prev_state=[SD] ", "prev_state=R ", old)
    else:
        m = re.search(r" (\d+)\.(\d{6}): ", old)
        us = int(m.group(1)) * 1000000 + int(m.group(2)) + 1000
        lines[i] = old[:m.start()] + " %d.%06d: " % (us // 1000000, us % 1000000) + old[m.end():]
    return c, i, old


CPU_FIELD = re.compile(r"\[(\d{3})\]")


def early_fork(mode, lines):
    """early-fork(-blocked): move the first fork line that qualifies; return (parent,
    its new index, the line)."""
    want = r"R\+" if mode == "early-fork" else "[SD]"
    last = {}           # tid -> indexes of its last two switch lines
    for i, l in enumerate(lines):
        m = re.search(r"prev_pid=(\d+) .* next_pid=(\d+) ", l)
        if m:
            for t in (int(m.group(1)), int(m.group(2))):
                last[t] = (last.get(t, (None, None))[1], i)
            continue
        m = re.search(r"-(\d+) +\[\d{3}\] .* sched_process_fork: comm=oracle_workload ", l)
        if not m:
            continue
        out, inn = last.get(int(m.group(1)), (None, None))
        if out is None or not re.search(r"prev_pid=%s prev_prio=\S+ prev_state=%s " % (
                m.group(1), want), lines[out]) or \
                not re.search(r"next_pid=%s " % m.group(1), lines[inn]):
            continue
        us = stamp(lines[out]) - 1
        old = lines.pop(i)
        new = STAMP.sub(" %d.%06d: " % (us // 1000000, us % 1000000), old, count=1)
        new = CPU_FIELD.sub("[%s]" % CPU_FIELD.search(lines[out]).group(1), new, count=1)
        lines.insert(out, new)
        return int(m.group(1)), out, old
    sys.exit("no fork whose parent's switch-out before it is %s then a switch-in" % want)


def lines_of(mode, lines, c, within, last):
    """The index of thread c's line to edit (the middle one of the wanted kind, or with
    last its last line if of that kind), or None."""
    # Each line about thread c: (index, what).
    about = []
    for i, l in enumerate(lines):
        if not within(i):
            continue
        if re.search(r"sched_wakeup: .* pid=%d prio" % c, l):
            about.append((i, "wakeup"))
        elif re.search(r"prev_pid=%d prev_prio=\S+ prev_state=[SD] " % c, l):
            about.append((i, "blocked"))
        elif re.search(r"prev_pid=%d " % c, l):
            about.append((i, "out"))
        elif re.search(r"next_pid=%d " % c, l):
            about.append((i, "in"))
    # The middle one of the wanted kind.
    if mode == "drop-wakeup":
        cands = [i for (i, k), (_, p) in zip(about[1:], about) if k == "wakeup" and p == "blocked"]
    elif mode == "flip-state":
        cands = [i for i, k in about if k == "blocked"]
    else:
        cands = [i for i, k in about if k in ("blocked", "out")]
    if not cands:
        return None
    if last:
        return cands[-1] if about and cands[-1] == about[-1][0] else None
    return cands[len(cands) // 2]


def enc(x):
    """Go's unsigned varint."""
    out = bytearray()
    while x >= 0x80:
        out.append(x & 0x7f | 0x80)
        x >>= 7
    out.append(x)
    return bytes(out)


def wire(path):
    """The lines of `gotrace dump --wire path`, each split: [name, (key, value)...]."""
    gotrace = os.environ.get("GOTRACE", "gotrace")
    try:
        p = subprocess.run([gotrace, "dump", "--wire", path], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True, check=False)
    except OSError as e:
        sys.exit("cannot run %s: %s" % (gotrace, e))
    if p.returncode:
        sys.exit("%s dump --wire %s failed: %s" % (gotrace, path, p.stderr.strip()[-300:]))
    out = []
    for line in p.stdout.splitlines():
        if line.startswith(("\t", "pc=")):
            continue
        tok = line.split()
        out.append([tok[0]] + [tuple(t.split("=", 1)) for t in tok[1:]])
    return out


def batches(b, path):
    """Each event batch all of whose events have varint arguments only, decoded: (gen,
    start, size offset, data offset, end, [(offset, type, [(arg offset, value)...])])."""
    ws = wire(path)
    w = 0
    for gen, start, end in gen_cut.records(b, int(b[5:7])):
        name = "EventBatch" if b[start] == gen_cut.EV_EVENT_BATCH else "EndOfGeneration"
        while w < len(ws) and ws[w][0] != name:
            w += 1
        w += 1
        if name != "EventBatch":
            continue
        i = start + 1
        for _ in range(3):                      # gen, m, time
            i = gen_cut.uvarint(b, i)[1]
        size_at, i = i, gen_cut.uvarint(b, i)[1]
        data = i
        evs = []
        while w < len(ws) and ws[w][0] not in ("EventBatch", "EndOfGeneration"):
            args = ws[w][1:]
            if any(not v.isdigit() for _, v in args) or \
                    ws[w][0] in ("Strings", "String", "Stacks", "Stack", "Sync"):
                evs = None
                break
            ev = (i, b[i], [])
            i += 1
            for _, v in args:
                val, nxt = gen_cut.uvarint(b, i)
                if val != int(v):
                    sys.exit("%s: byte %d: %s's argument %s where --wire says %s" % (
                        path, i, ws[w][0], val, v))
                ev[2].append((i, val))
                i = nxt
            evs.append(ev)
            w += 1
        if evs is not None and i != end:
            sys.exit("%s: the batch at byte %d ends at %d, its events at %d" % (
                path, start, end, i))
        if evs is not None:
            yield gen, start, size_at, data, end, evs


def early_block(src, dst):
    with open(src, "rb") as f:
        b = f.read()
    if not gen_cut.is_modern(b):
        sys.exit("%s: not a Go 1.22+ trace" % src)
    bs = list(batches(b, src))
    gens = sorted(set(x[0] for x in bs))
    if len(gens) < 3:
        sys.exit("%s: %d generations: none inside the window" % (src, len(gens)))
    best = None
    for gen, start, size_at, data, end, evs in bs:
        if gen in (gens[0], gens[-1]):
            continue
        for k, (off, typ, args) in enumerate(evs):
            if typ in (EV2_GO_STOP, EV2_GO_BLOCK) and args and k and \
                    args[0][1] >= EARLY_MIN_TICKS and (best is None or args[0][1] > best[0]):
                best = (args[0][1], gen, start, size_at, data, end, evs, k)
    if best is None:
        sys.exit("%s: no GoBlock or GoStop %d ticks or more after the event before it" % (
            src, EARLY_MIN_TICKS))
    dt, gen, start, size_at, data, end, evs, k = best
    off, typ, args = evs[k]
    edits = [(args[0][0], 1)]
    if k + 1 < len(evs):
        nxt = evs[k + 1][2][0]
        edits.append((nxt[0], nxt[1] + dt - 1))
    body = bytearray()
    i = data
    for at, val in edits:
        body += b[i:at] + enc(val)
        i = gen_cut.uvarint(b, at)[1]
    body += b[i:end]
    out = b[:size_at] + enc(len(body)) + bytes(body) + b[end:]
    with open(dst, "wb") as f:
        f.write(out)
    print("generation %d, batch at byte %d: the %s at byte %d moved %d ticks (%.1f us) "
          "earlier, to 1 tick after the event before it" % (
              gen, start, "GoBlock" if typ == EV2_GO_BLOCK else "GoStop", off, dt - 1,
              (dt - 1) * 64 / 1000))
    return 0


def main(argv):
    args = argv[1:]
    lo = hi = across = None
    whole = False
    while args and args[0].startswith("--"):
        if args[0] == "--whole":
            whole = True
            args = args[1:]
            continue
        if len(args) < 2 or args[0] not in ("--from", "--to", "--across"):
            args = []
            break
        us = int(round(float(args[1]) * 1e6))
        if args[0] == "--from":
            lo = us
        elif args[0] == "--to":
            hi = us
        else:
            across = us
        args = args[2:]
    if len(args) == 3 and args[0] == "early-block":
        return early_block(args[1], args[2])
    if len(args) != 3 or args[0] not in ("drop-wakeup", "flip-state", "late-switch",
                                         "early-fork", "early-fork-blocked"):
        sys.stderr.write(__doc__)
        return 2
    mode, src, dst = args
    with open(src) as f:
        lines = f.read().splitlines(True)
    if mode.startswith("early-fork"):
        c, i, old = early_fork(mode, lines)
    else:
        c, i, old = edit(mode, lines, lo, hi, whole, across)
    with open(dst, "w") as f:
        f.write("".join(lines))
    print("thread %d, line %d: %s" % (c, i + 1, old.strip()))
    if lines[i]:
        print("  now: %s" % lines[i].strip())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
