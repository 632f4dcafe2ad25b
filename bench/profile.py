#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where gotrace's overhead on one workload goes, by kernel function.

Usage: bench/profile.py GUEST_TXT PROFILE_TXT KALLSYMS WORKLOAD [--top N] [--mode MODE]
                        [--base MODE]

GUEST_TXT is gotrace_bench's output (its "win seq=N ... workload=W mode=M round=R" lines),
PROFILE_TXT the insn_window plugin's prof= file ("N VADDR INSNS EXECS" per block and
window), KALLSYMS the guest's /proc/kallsyms with gotrace.ko loaded. For each round, the
instructions of WORKLOAD's gotrace window and of its untraced window are summed by the
function that holds each block (user space is one row, "[user]"); the table gives the
median over the rounds of each function's instructions per Go event in both, and the
difference: what tracing added there. Rows are sorted by that difference. --mode picks
the traced windows (gotrace, gotrace-1.26, gotrace-flight, gotrace-trigger), --base what
they are compared with (untraced; or another traced mode, e.g. --mode gotrace-flight --base
gotrace-1.26: where the flight recorder's windows ran more than the 1.26 streaming ones, per
Go event of the --mode windows; --mode gotrace-trigger --base gotrace-flight: where the
latency trigger's instructions go).
"""
import argparse
import bisect
import statistics
import sys
from collections import defaultdict


def fail(msg):
    sys.exit(f"profile.py: {msg}")


def parse_windows(path, workload):
    """{(round, mode): (seq, events)} of WORKLOAD's measured rounds."""
    wins = {}
    with open(path) as f:
        for line in f:
            words = line.split()
            if not words or words[0] != "win":
                continue
            kv = dict(w.split("=", 1) for w in words[1:] if "=" in w)
            if kv.get("phase") != "round" or kv.get("workload") != workload:
                continue
            wins[(int(kv["round"]), kv["mode"])] = (int(kv["seq"]), int(kv.get("events", 0)))
    if not wins:
        fail(f"no measured window of workload {workload} in {path}")
    return wins


def parse_kallsyms(path):
    """Sorted text symbol addresses and their names (module in brackets)."""
    syms = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) < 3 or parts[1].lower() not in ("t", "w"):
                continue
            addr = int(parts[0], 16)
            if not addr:
                fail(f"{path} has zero addresses: read it as root with kptr_restrict 0")
            name = parts[2] + (" " + parts[3] if len(parts) > 3 else "")
            syms.append((addr, name))
    syms.sort()
    return [a for a, _ in syms], [n for _, n in syms]


def parse_profile(path, seqs):
    """{seq: {vaddr: insns}} for the windows in SEQS."""
    prof = defaultdict(lambda: defaultdict(int))
    with open(path) as f:
        for line in f:
            w, vaddr, insns, execs = line.split()
            w = int(w)
            if w in seqs:
                prof[w][int(vaddr, 16)] += int(insns) * int(execs)
    return prof


def by_function(blocks, addrs, names):
    out = defaultdict(int)
    for vaddr, insns in blocks.items():
        if vaddr < 0xffff800000000000:
            out["[user]"] += insns
            continue
        i = bisect.bisect_right(addrs, vaddr) - 1
        out[names[i] if i >= 0 else "[kernel?]"] += insns
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("guest")
    ap.add_argument("profile")
    ap.add_argument("kallsyms")
    ap.add_argument("workload")
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--mode", default="gotrace",
                    help="the traced windows to profile: gotrace (format 1.21), gotrace-1.26, "
                         "gotrace-flight (1.26, flight recorder) or gotrace-trigger (the "
                         "same with a latency trigger armed)")
    ap.add_argument("--base", default="untraced",
                    help="the windows to compare with: untraced (default) or a traced mode")
    a = ap.parse_args()
    if a.base == a.mode:
        fail("--mode and --base are the same")

    # The chosen traced mode's windows stand for "gotrace" below, the base's for "untraced".
    wins = {(r, "gotrace" if m == a.mode else "untraced"): v
            for (r, m), v in parse_windows(a.guest, a.workload).items()
            if m in (a.base, a.mode)}
    rounds = sorted({r for r, m in wins if (r, "untraced") in wins and (r, "gotrace") in wins})
    if not rounds:
        fail(f"no round of {a.workload} has both a {a.base} and a {a.mode} window")
    addrs, names = parse_kallsyms(a.kallsyms)
    prof = parse_profile(a.profile, {wins[(r, m)][0] for r in rounds
                                     for m in ("untraced", "gotrace")})

    per_ev = defaultdict(lambda: {"gotrace": [], "untraced": []})
    totals = []
    for r in rounds:
        events = wins[(r, "gotrace")][1] or 1
        funcs = {m: by_function(prof[wins[(r, m)][0]], addrs, names)
                 for m in ("gotrace", "untraced")}
        totals.append((sum(funcs["gotrace"].values()) - sum(funcs["untraced"].values()))
                      / events)
        for m in ("gotrace", "untraced"):
            for fn in set(funcs["gotrace"]) | set(funcs["untraced"]):
                per_ev[fn][m].append(funcs[m].get(fn, 0) / events)

    rows = []
    for fn, v in per_ev.items():
        g, u = statistics.median(v["gotrace"]), statistics.median(v["untraced"])
        rows.append((g - u, g, u, fn))
    rows.sort(reverse=True)
    print(f"workload {a.workload}: {a.mode} against {a.base}, instructions per Go event of "
          f"{a.mode}, medians over rounds {rounds}; difference {statistics.median(totals):.1f} "
          "per event in all")
    print(f"{'added':>8} {a.mode[:14]:>14} {a.base[:14]:>14}  function")
    for d, g, u, fn in rows[:a.top]:
        print(f"{d:8.1f} {g:14.1f} {u:14.1f}  {fn}")
    rest = rows[a.top:]
    if rest:
        print(f"{sum(r[0] for r in rest):8.1f} {'':14} {'':14}  ({len(rest)} more functions)")


if __name__ == "__main__":
    main()
