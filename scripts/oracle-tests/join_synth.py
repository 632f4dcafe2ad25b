#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write what gotrace merge should, as Go's -d=parsed text, from a join run; or a broken one.

Usage: join_synth.py [--tool TRACE] [--break HOW] RUNDIR OUTDIR

RUNDIR is a run of selftests/join_guest.sh (app.trace, ftrace.txt, tids, cpu.stat.before,
cpu.stat.after). OUTDIR gets the same files, app.txt (APP's -d=parsed text) and merged.txt:
APP's text with a kernel region (and its logs) for each off-CPU span and system call
scripts/oracles/join-compare.py expects one for (or allows one), of its first expected type
("blocked in page fault or kernel wait", "syscall blocked in read"). MACHINE is not copied:
the comparator then takes ftrace's times only. --break spoils it one way (on the first
span outside a system call that needs a region and has no other region of its thread from a
millisecond before it to 300 us after it):
  move      the first region 200 us later, both ends
  drop      the first region gone
  extra     one more "kernel: waiting for a CPU" region on the first region's goroutine,
            a millisecond before its begin, 100 us long
  throttle  cpu.stat.after's throttled_usec only 1 us above cpu.stat.before's
  who       the first region's log naming thread 4194303, which ran nowhere, as what ran
            instead or as the waker
Prints, on stdout, the changed region's description as join-compare.py names regions, and
the span's ("span: "), and for who the log ("log: "), a line each.
"""

import argparse
import importlib.util
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
NOBODY = 4194303        # a thread id that ran nowhere
spec = importlib.util.spec_from_file_location(
    "join_compare", os.path.join(HERE, "../oracles/join-compare.py"))
jc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(jc)


def region_lines(m, p, g, begin, end, rtype, log):
    """A region's begin, log and end lines, each with its time."""
    head = "M=%d P=%d G=%d " % (m, p, g)
    return [(begin, head + 'RegionBegin Time=%d Task=0 Type="%s"' % (begin, rtype)),
            (begin, head + 'Log Time=%d Task=0 Category="kernel" Message="%s"' % (begin, log)),
            (end, head + 'RegionEnd Time=%d Task=0 Type="%s"' % (end, rtype))]


def kind(x):
    """The first type expected region x may have, with a reason where it takes one."""
    t = x.types(0)[0]
    if t == jc.BLOCKED:
        return t + "page fault or kernel wait"
    if t == jc.SYSCALL:
        return t + "read"
    return t


def who(s, ft):
    """What ran instead of span s's thread, or who woke it, as gotrace merge says it."""
    if s.blocked:
        ws = [w for w in ft.wakes.get(s.tid, []) if s.out <= w[0] <= s.back]
        if not ws or ws[0][3] or ws[0][2] == 0:
            return "woken in interrupt context on CPU %d" % (ws[0][1] if ws else 0)
        return "woken by waker [%d] (write) on CPU %d" % (ws[0][2], ws[0][1])
    ran = {k: n for k, n in ft.on_cpu(s.cpu_out, s.out, s.back).items() if k[0] != 0}
    if not ran:
        return "nothing ran instead on CPU %d" % s.cpu_out
    (pid, comm), _ = max(ran.items(), key=lambda kv: kv[1])
    return "ran instead on CPU %d: %s [%d]" % (s.cpu_out, comm, pid)


def logs(x, ft):
    """Region x's logs: one, or for a system call one per span."""
    if not x.call:
        return [who(x.spans[0], ft)]
    return ["%s for %.3f ms: %s" % ("blocked in read" if s.blocked else "waited for a CPU ",
                                    (s.back - s.out) / 1e6, who(s, ft))
            for s in sorted(x.spans, key=lambda s: s.out)]


def region_lines(x, begin, end, rtype, msgs):
    """A region's begin, logs and end lines, each with its time."""
    head = "M=%d P=-1 G=%d " % (x.m, x.g)
    out = [(begin, head + 'RegionBegin Time=%d Task=0 Type="%s"' % (begin, rtype))]
    out += [(begin, head + 'Log Time=%d Task=0 Category="kernel" Message="%s"' % (begin, m))
            for m in msgs]
    return out + [(end, head + 'RegionEnd Time=%d Task=0 Type="%s"' % (end, rtype))]


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", default=os.path.join(jc.ROOT, "build/go/1.27/tool/trace"))
    ap.add_argument("--break", dest="how",
                    choices=("move", "drop", "extra", "throttle", "who"))
    ap.add_argument("rundir")
    ap.add_argument("outdir")
    o = ap.parse_args(argv)
    os.makedirs(o.outdir, exist_ok=True)
    for f in ("ftrace.txt", "tids", "cpu.stat.before", "cpu.stat.after"):
        shutil.copy(os.path.join(o.rundir, f), os.path.join(o.outdir, f))
    text = jc.parsed_text(os.path.join(o.rundir, "app.trace"), o.tool)
    with open(os.path.join(o.outdir, "app.txt"), "w") as f:
        f.write(text)
    evs = jc.events(text)
    app = jc.App(evs)
    with open(os.path.join(o.rundir, "tids")) as f:
        tids = {int(t) for t in f.read().split()}
    ft = jc.Ftrace(os.path.join(o.rundir, "ftrace.txt"), tids)
    exps, _ = jc.expected(app, ft, None, 1000000)
    # The region to spoil: one with room around it on its M, so that moved 200 us, or with
    # one more a millisecond before it, it overlaps no other.
    first = next((x for x in exps if x.why is None and not x.call and
                  not any(y is not x and y.m == x.m and y.begin < x.end + 300000 and
                          y.end > x.begin - 1100000 for y in exps)), None)
    if first is None:
        sys.exit("join_synth.py: no span in %s needs a region with 1 ms free around it"
                 % o.rundir)
    ins = []
    for x in exps:
        begin, end = x.begin, x.end
        if x is first:
            print("span: %s" % x.name())
            if o.how == "drop":
                continue
            if o.how == "move":
                begin, end = begin + 200000, end + 200000
        msgs = logs(x, ft)
        if x is first and o.how == "who":
            msgs = ["woken by nobody [%d] (futex) on CPU %d" % (NOBODY, x.spans[0].cpu_in)
                    if x.spans[0].blocked else
                    "ran instead on CPU %d: nobody [%d]" % (x.spans[0].cpu_out, NOBODY)]
            print("log: %s" % msgs[0])
        ins += region_lines(x, begin, end, kind(x), msgs)
        if x is first and o.how in ("move", "extra"):
            r = jc.Region(x.m, x.g, kind(x), begin)
            r.end = end
            if o.how == "extra":
                r = jc.Region(x.m, x.g, jc.WAIT, x.begin - 1000000)
                r.end = r.begin + 100000
                ins += region_lines(x, r.begin, r.end, jc.WAIT,
                                    ["nothing ran instead on CPU %d" % x.spans[0].cpu_out])
            print("region: %s" % r.name())
    # Into APP's text by time, after APP's events of the same time.
    ins.sort(key=lambda x: x[0])
    out, k = [], 0
    for e in evs:
        while k < len(ins) and ins[k][0] < e.t:
            out.append(ins[k][1])
            k += 1
        out += e.text
    out += [line for _, line in ins[k:]]
    with open(os.path.join(o.outdir, "merged.txt"), "w") as f:
        f.write("\n".join(out) + "\n")
    if o.how == "throttle":
        stat = os.path.join(o.outdir, "cpu.stat.after")
        before = jc.cpu_stat(os.path.join(o.rundir, "cpu.stat.before"))
        with open(os.path.join(o.rundir, "cpu.stat.after")) as f:
            lines = f.read().split("\n")
        with open(stat, "w") as f:
            f.write("\n".join("throttled_usec %d" % (before["throttled_usec"] + 1)
                              if ln.startswith("throttled_usec ") else ln for ln in lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
