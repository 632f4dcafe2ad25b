#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Make one edit of ftrace text, for scripts/ftrace-compare-selftest.sh.

Usage: ftrace_edit.py MODE IN OUT

IN is the ftrace text of an ftrace oracle workload (scripts/ftrace-oracle.sh). The edit is
made on the thread the workload forked that ftrace wakes most often, on the middle one of
its lines of the wanted kind. MODE is one of:
  drop-wakeup  delete a wakeup of it while blocked
  flip-state   turn one of its blocked switch-outs (prev_state S or D) into a preemption (R)
  late-switch  stamp one of its switch-outs 1 ms later
Writes the result to OUT and prints what it changed; exits 1, saying why, if there is
nothing to edit.
"""

import re
import sys


def edit(mode, lines):
    """Edit lines in place; return (thread, line index, the line before)."""
    # Threads the workload forked: born in the session.
    forks = set(int(m.group(1)) for l in lines
                for m in [re.search(r"sched_process_fork: comm=oracle_workload .* child_pid=(\d+)",
                                    l)] if m)
    woken = {}
    for l in lines:
        m = re.search(r"sched_wakeup: .* pid=(\d+) prio", l)
        if m and int(m.group(1)) in forks:
            woken[int(m.group(1))] = woken.get(int(m.group(1)), 0) + 1
    if not woken:
        sys.exit("no wakeup of a thread born in the trace")
    c = max(woken, key=woken.get)
    # Each line about thread c: (index, what).
    about = []
    for i, l in enumerate(lines):
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
        sys.exit("thread %d has no line to edit for %s" % (c, mode))
    i = cands[len(cands) // 2]
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


def main(argv):
    if len(argv) != 4 or argv[1] not in ("drop-wakeup", "flip-state", "late-switch"):
        sys.stderr.write(__doc__)
        return 2
    mode, src, dst = argv[1:4]
    with open(src) as f:
        lines = f.read().splitlines(True)
    c, i, old = edit(mode, lines)
    with open(dst, "w") as f:
        f.write("".join(lines))
    print("thread %d, line %d: %s" % (c, i + 1, old.strip()))
    if lines[i]:
        print("  now: %s" % lines[i].strip())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
