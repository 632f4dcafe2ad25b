#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Find raw kernel addresses in gotrace traces, as read by `gotrace dump`.

Usage: addr_scan.py FILE...

Environment: GOTRACE, the gotrace command (default userspace/gotrace of this checkout:
make -C userspace builds it).

Reports every value that looks like a raw kernel address (>= 0xffff800000000000, the x86-64
kernel half) among what gotrace reads from each trace: each event's numeric arguments, its P
(but -1, what events on no P carry), G and stack id, and the id and each frame's PC and line
of every stack the trace defines, used or not, as `gotrace dump --all-stacks` reads them; in
a Go 1.22+ trace, every numeric field of every event as encoded (`gotrace dump --wire`:
string, stack and batch events included; an M of 2^64-1 is Go's "no thread"), and the trace
must pass `gotrace check`. Prints 'FILE: offset OFFSET EVENT WHAT = 0x...'
or 'FILE: stack ID frame N WHAT = 0x...' lines, one each, and exits 1 if there are any; a
trace gotrace cannot read (dump fails) also fails, with its error. Used by
scripts/oracles/addr-scan.sh and scripts/oracles/views-check.sh.
"""

import os
import re
import subprocess
import sys

KERNEL_ADDRESS = 0xffff800000000000
# The keys of string arguments (gotrace dump prints them after the numeric ones).
STRING_ARGS = frozenset(["kind", "label", "name", "category", "message"])
# What any line holding such a value matches one of (and more): a decimal from
# 18446603336221196288 (20 digits; a uint64 of 20 digits starts 1844674...), a hex PC from
# 0xffff8, a negative P but -1. Output that matches none is skipped unparsed (one regex with
# all three alternatives is twice as slow).
CANDIDATES = [re.compile(rb"18446\d{15}"), re.compile(rb"0xffff[89a-f]"),
              re.compile(rb"p=-(?!1 )")]
BLOCK = 1 << 22
# The M field's "no thread" in a Go 1.22+ trace: ^0, not an address.
NO_THREAD = 2**64 - 1


def gotrace_cmd():
    """The gotrace command: $GOTRACE, or this checkout's userspace/gotrace."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return os.environ.get("GOTRACE") or os.path.join(root, "userspace", "gotrace")


def event_values(tok):
    """(what, value) of the numbers on a dump event line split into tok."""
    p = int(tok[2][2:])
    if p != -1:
        yield "p", p % 2**64
    yield "g", int(tok[3][2:])
    for t in tok[5:]:
        k, _, v = t.partition("=")
        if k in STRING_ARGS:
            break
        if k != "stk" and v.isdigit():
            yield k, int(v)
    k, _, v = tok[-1].partition("=")
    if k == "stk" and v.isdigit():
        yield "stk", int(v)


def frame_values(line):
    """(what, value) of a dump frame line '\tPC FUNC FILE:LINE'."""
    yield "PC", int(line.split()[0], 16)
    tail = line.rpartition(":")[2]
    if tail.isdigit():
        yield "line", int(tail)


def is_modern(path):
    """Whether the file's header names Go 1.22 or later (the format with generations)."""
    with open(path, "rb") as f:
        m = re.match(rb"go 1\.(\d+) trace", f.read(16))
    return bool(m) and int(m.group(1)) >= 22


def wire_values(line):
    """(what, value) of the numeric fields of a `dump --wire` line; a string's data ends it."""
    for t in line.split():
        k, _, v = t.partition("=")
        if k == "data":
            break
        if v.isdigit() and not (k == "m" and int(v) == NO_THREAD):
            yield k, int(v)


def scan_wire_lines(path, lines, out):
    """Write the kernel-address-like values of `dump --wire` lines to out; return how many."""
    bad = 0
    for n, line in enumerate(lines):
        for k, v in wire_values(line):
            if v >= KERNEL_ADDRESS:
                out.write("%s: wire line %d %s %s = %#x\n" % (path, n + 1, line.split()[0], k, v))
                bad += 1
    return bad


def scan_modern(gotrace, path, out):
    """Scan a Go 1.22+ trace: its wire view's numbers, and gotrace check must accept it."""
    try:
        wire = subprocess.run([gotrace, "dump", "--wire", path], capture_output=True)
        chk = subprocess.run([gotrace, "check", path], capture_output=True)
    except OSError as e:
        out.write("%s: cannot run %s: %s (make -C userspace builds it; or set GOTRACE)\n" %
                  (path, gotrace, e))
        return 1
    bad = scan_wire_lines(path, wire.stdout.decode("utf-8", "replace").split("\n"), out)
    for what, r in (("dump --wire", wire), ("check", chk)):
        if r.returncode:
            err = (r.stderr or r.stdout).decode("utf-8", "replace").strip()
            out.write("%s: %s %s failed: %s\n" % (path, gotrace, what, err))
            bad += 1
    return bad


def scan_lines(path, lines, out):
    """Write the kernel-address-like values of dump lines to out; return how many."""
    bad = 0
    where, frame = "", 0
    for line in lines:
        if line.startswith("\t"):
            vals = frame_values(line)
            what = "frame %d " % frame
            frame += 1
        elif line.startswith("stack "):
            where = line
            vals = [("id", int(line[6:]))]
            what, frame = "", 0
        else:
            tok = line.split()
            if len(tok) < 5 or not tok[4].startswith("off="):
                continue        # the rest of a string argument holding a newline
            where = "offset %#x %s" % (int(tok[4][4:]), tok[1])
            vals = event_values(tok)
            what, frame = "", 0
        for k, v in vals:
            if v >= KERNEL_ADDRESS:
                out.write("%s: %s %s%s = %#x\n" % (path, where, what, k, v))
                bad += 1
    return bad


def scan(gotrace, path, out):
    """Write the kernel-address-like values of one trace to out; return how many."""
    if is_modern(path):
        return scan_modern(gotrace, path, out)
    try:
        p = subprocess.Popen([gotrace, "dump", "--all-stacks", path], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
    except OSError as e:
        out.write("%s: cannot run %s: %s (make -C userspace builds it; or set GOTRACE)\n" %
                  (path, gotrace, e))
        return 1
    bad = 0
    rest = b""
    while True:
        data = p.stdout.read(BLOCK)
        block = rest + data
        # Blocks start at an event line: the frames below an event stay with it.
        cut = len(block) if not data else block.rfind(b"\n", 0, len(block) - 1) + 1
        while cut > 0 and data and block[cut:cut + 1] == b"\t":
            cut = block.rfind(b"\n", 0, cut - 1) + 1
        block, rest = block[:cut], block[cut:]
        if any(c.search(block) for c in CANDIDATES):
            bad += scan_lines(path, block.decode("utf-8", "replace").split("\n"), out)
        if not data:
            break
    err = p.stderr.read().decode("utf-8", "replace").strip()
    if p.wait():
        out.write("%s: %s dump failed: %s\n" % (path, gotrace, err))
        bad += 1
    return bad


def main(argv):
    if len(argv) < 2:
        sys.stderr.write("usage: %s FILE...\n" % argv[0])
        return 2
    gotrace = gotrace_cmd()
    bad = 0
    for path in argv[1:]:
        bad += scan(gotrace, path, sys.stdout)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
