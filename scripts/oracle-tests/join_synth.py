#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write what gotrace merge should, as Go's -d=parsed text, from a join run; or a broken one.

Usage: join_synth.py [--tool TRACE] [--break HOW] RUNDIR OUTDIR

RUNDIR is a run of selftests/join_guest.sh (app.trace, ftrace.txt, tids, cpu.stat.before,
cpu.stat.after). OUTDIR gets the same files, app.txt (APP's -d=parsed text) and merged.txt:
APP's text with a kernel region (and its log) for each joinable off-CPU span, as
scripts/oracles/join-compare.py expects them, of the span's first expected type ("blocked in
page fault or kernel wait", "syscall blocked in read"). --break spoils it one way:
  move      the first region 200 us later, both ends
  drop      the first region gone
  extra     one more "kernel: waiting for a CPU" region on the first region's goroutine,
            a millisecond before its begin, 100 us long
  throttle  cpu.stat.after's throttled_usec only 1 us above cpu.stat.before's
Prints, on stdout, the changed region's description as join-compare.py names regions, and
for move, drop and extra the span's as well (one line each, "region: ", "span: ").
"""

import argparse
import importlib.util
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
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


def kind(s):
    t = jc.expected_types(s)[0]
    if t == jc.BLOCKED:
        return t + "page fault or kernel wait"
    if t == jc.SYSCALL:
        return t + "read"
    return t


def message(s, ft):
    if s.blocked:
        return "woken by an interrupt on CPU %d" % s.cpu_in
    ran = ft.on_cpu(s.cpu_out, s.out, s.back)
    ran = {k: n for k, n in ran.items() if k[0] != 0}
    if not ran:
        return "nothing ran instead on CPU %d" % s.cpu_out
    (pid, comm), n = max(ran.items(), key=lambda kv: kv[1])
    return "ran instead on CPU %d: %s [%d] for %d us" % (s.cpu_out, comm, pid, n // 1000)


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", default=os.path.join(jc.ROOT, "build/go/1.27/tool/trace"))
    ap.add_argument("--break", dest="how", choices=("move", "drop", "extra", "throttle"))
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
    jc.classify(ft.spans, app, ft, 1000000)
    spans = [s for s in ft.spans if s.why is None]
    if not spans:
        sys.exit("join_synth.py: no joinable span in %s" % o.rundir)
    ins = []
    for i, s in enumerate(spans):
        rtype = kind(s)
        begin, end = s.exp_begin, s.exp_end
        if i == 0 and o.how == "move":
            begin, end = begin + 200000, end + 200000
        if i == 0 and o.how == "drop":
            print("span: %s" % s.name())
            continue
        lines = region_lines(s.tid, -1, s.g, begin, end, rtype, message(s, ft))
        ins += lines
        if i == 0 and o.how in ("move", "extra"):
            r = jc.Region(s.tid, s.g, rtype, begin)
            r.end = end
            print("span: %s" % s.name())
            if o.how == "move":
                print("region: %s" % r.name())
            else:
                r = jc.Region(s.tid, s.g, jc.WAIT, s.exp_begin - 1000000)
                r.end = r.begin + 100000
                ins += region_lines(s.tid, -1, s.g, r.begin, r.end, jc.WAIT,
                                    "nothing ran instead on CPU %d" % s.cpu_out)
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
