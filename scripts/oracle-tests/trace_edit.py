#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Make broken copies of real traces for the checkers' self-tests.

Usage: trace_edit.py MODE IN OUT

Environment: GOTRACE, the gotrace command (default userspace/gotrace of this checkout:
make -C userspace builds it).

Events are found by the one reader of the format, `gotrace dump` (their file offsets, values
and stacks); this file only writes: it encodes varints and patches the bytes of those events.
MODE is one of:
  dup-gomaxprocs  insert a copy of the first Gomaxprocs event right after it (time delta 0)
  late-batch      append a batch for the first Gomaxprocs event's P, stamped one tick after
                  it, holding a copy of it: that P's events then go back in time ("time stamps
                  out of order")
  zero-stacks     every event's stack id 0 (GoCreate keeps the new goroutine's stack)
  kernel-pc       the first frame PC of the stack of lowest id 0xffffffff81234560 (in a
                  Go 1.22+ trace: of the first stack of the first stack table, whose
                  batch grows to hold it)
  rename:A:B      the dictionary string A becomes B (in a Go 1.22+ trace: in every
                  generation's string table, and B must be as long as A)
  grow-batch      (Go 1.22+ traces) the first batch's size one more: its last byte is
                  then the next record's first, and the framing is broken
Used by the self-tests beside it in scripts/oracle-tests/: go-check-selftest.sh (the first two
and grow-batch), views-check-selftest.sh and addr-scan-selftest.sh (kernel-pc).
Exits 1, saying why, if there is nothing to edit.
"""

import os
import subprocess
import sys

# gen_cut.py, the byte-level framing of Go 1.22+ traces, is in scripts/lib/.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import gen_cut  # noqa: E402 (after the path it is found by)

EV_BATCH = 1
EV_STACK = 3
EV_GOMAXPROCS = 4
EV_STRING = 37
KERNEL_PC = 0xffffffff81234560
# Go 1.22+ (tracev2): a stack table batch starts with EvStacks; each EvStack is id, frame
# count, then per frame PC, function string id, file string id, line.
EV2_STACKS = 2
EV2_STACK = 3
# A string table batch starts with EvStrings; each EvString is id, length, bytes.
EV2_STRINGS = 4
EV2_STRING = 5
# The events (as gotrace dump names them) whose last argument is their stack id: Stack = true
# in Go's EventDescriptions. Go's parser gives others one too (GoStart: the goroutine's).
STACK_EVENTS = frozenset("""Gomaxprocs GCStart GCSweepStart GoCreate GoStop GoSched GoPreempt
    GoSleep GoBlock GoUnblock GoBlockSend GoBlockRecv GoBlockSelect GoBlockSync GoBlockCond
    GoBlockNet GoSysCall GoBlockGC GCMarkAssistStart UserTaskCreate UserTaskEnd UserRegion
    UserLog CPUSample""".split())


def fail(msg):
    sys.exit("trace_edit.py: " + msg)


def gotrace_dump(path, *opts):
    """The lines of `gotrace dump OPTS PATH`."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    gotrace = os.environ.get("GOTRACE") or os.path.join(root, "userspace", "gotrace")
    try:
        p = subprocess.run([gotrace, "dump"] + list(opts) + [path], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, check=False)
    except OSError as e:
        fail("cannot run %s: %s (make -C userspace builds it; or set GOTRACE)" % (gotrace, e))
    if p.returncode:
        fail("%s dump %s failed: %s" % (gotrace, path, p.stderr.decode(errors="replace")))
    return p.stdout.decode("utf-8", "replace").split("\n")


class Event:
    """One line of gotrace dump: time, name, p, off, vals (numeric arguments), stk."""

    def __init__(self, tok):
        self.time, self.name = int(tok[0]), tok[1]
        self.p, self.off = int(tok[2][2:]), int(tok[4][4:])
        self.vals, self.stk = {}, 0
        for t in tok[5:]:
            k, _, v = t.partition("=")
            if k == "stk" and v.isdigit():
                self.stk = int(v)
            elif v.isdigit():
                self.vals.setdefault(k, int(v))


def events(lines):
    """The events of dump lines."""
    evs = []
    for line in lines:
        tok = line.split()
        if len(tok) >= 5 and tok[4].startswith("off="):
            evs.append(Event(tok))
    return evs


def stacks(lines):
    """[(id, [PC...])] of the 'stack ID' lines and frames of dump --all-stacks, by id."""
    out = []
    for line in lines:
        if line.startswith("stack "):
            out.append((int(line[6:]), []))
        elif line.startswith("\t") and out:
            out[-1][1].append(int(line.split()[0], 16))
    return out


def enc(x):
    """x as a varint."""
    o = bytearray()
    while x > 0x7f:
        o.append(x & 0x7f | 0x80)
        x >>= 7
    o.append(x)
    return bytes(o)


def skip(b, i):
    """The offset after the varint at b[i]."""
    while b[i] & 0x80:
        i += 1
    return i + 1


def varint_at(b, i):
    """The value of the varint at b[i] (a length this file rewrites)."""
    x = s = 0
    while True:
        x |= (b[i] & 0x7f) << s
        s += 7
        if b[i] < 0x80:
            return x
        i += 1


def args_of(b, off):
    """(header, first, last, end) of the event at off: its header bytes, the offsets of its
    first and last argument and the end of its arguments. Its first byte holds the layout:
    the low 6 bits its type, the high 2 its inline argument count less 1, or 3: a varint
    byte length, then the arguments."""
    n = (b[off] >> 6) + 1
    if n < 4:
        first = i = last = off + 1
        for _ in range(n):
            last, i = i, skip(b, i)
        return b[off:first], first, last, i
    first = skip(b, off + 1)
    end = first + varint_at(b, off + 1)
    i = last = first
    while i < end:
        last, i = i, skip(b, i)
    return b[off:first], first, last, end


def with_last_arg(b, off, value):
    """(the event at off with its last argument set to value, the end of the old one's
    arguments)."""
    header, first, last, end = args_of(b, off)
    body = b[first:last] + enc(value)
    if len(header) > 1:
        header = header[:1] + enc(len(body))
    return header + body, end


def patch(b, edits):
    """b with each (start, end, bytes) edit's range replaced."""
    out, at = bytearray(), 0
    for start, end, new in sorted(edits):
        out += b[at:start] + new
        at = end
    return bytes(out + b[at:])


def first_gomaxprocs(path):
    evs = [e for e in events(gotrace_dump(path, "--ticks")) if e.name == "Gomaxprocs"]
    if not evs:
        fail("no Gomaxprocs event in " + path)
    return min(evs, key=lambda e: e.off)


def dup_gomaxprocs(b, path):
    ev = first_gomaxprocs(path)
    end = args_of(b, ev.off)[3]
    copy = bytes([EV_GOMAXPROCS | 2 << 6]) + enc(0) + enc(ev.vals["procs"]) + enc(0)
    return patch(b, [(end, end, copy)])


def late_batch(b, path):
    ev = first_gomaxprocs(path)
    return (b + bytes([EV_BATCH | 1 << 6]) + enc(ev.p % 2**64) + enc(ev.time + 1) +
            bytes([EV_GOMAXPROCS | 2 << 6]) + enc(0) + enc(ev.vals["procs"]) + enc(0))


def zero_stacks(b, path):
    edits = []
    for ev in events(gotrace_dump(path)):
        if ev.stk and ev.name in STACK_EVENTS:
            new, end = with_last_arg(b, ev.off, 0)
            edits.append((ev.off, end, new))
    if not edits:
        fail("no event with a stack in " + path)
    return patch(b, edits)


def only(found, what, path):
    if len(found) != 1:
        fail("%d %s events hold what the reader says in %s" % (len(found), what, path))
    return found[0]


def stack_event(b, key, path):
    """(offset, end) of the one Stack event whose arguments (id, frame count, frames: PC
    first) start with the bytes key, which the reader says it holds: its first byte 3 | 3 << 6
    and its byte length come before them."""
    found = []
    i = b.find(key, 16)
    while i >= 0:
        for off in range(max(16, i - 10), i - 1):
            if b[off] == EV_STACK | 3 << 6 and skip(b, off + 1) == i:
                found.append((off, i + varint_at(b, off + 1)))
        i = b.find(key, i + 1)
    return only(found, "Stack", path)


def string_event(b, key, path):
    """(offset, end) of the one String event whose length and bytes are key: its first byte
    and its id come before them."""
    found = []
    i = b.find(key, 16)
    while i >= 0:
        for off in range(max(16, i - 10), i - 1):
            if b[off] == EV_STRING and skip(b, off + 1) == i:
                found.append((off, i + len(key)))
        i = b.find(key, i + 1)
    return only(found, "String", path)


def kernel_pc(b, path):
    stk, pcs = next(((i, f) for i, f in stacks(gotrace_dump(path, "--all-stacks")) if f),
                    (0, []))
    if not pcs:
        fail("no stack with a frame in " + path)
    key = enc(stk) + enc(len(pcs)) + enc(pcs[0])
    off, end = stack_event(b, key, path)
    header, first = args_of(b, off)[:2]
    body = enc(stk) + enc(len(pcs)) + enc(KERNEL_PC) + b[first + len(key):end]
    return patch(b, [(off, end, header[:1] + enc(len(body)) + body)])


def tables(b, kind):
    """(start, end, data) of each Go 1.22+ batch whose data starts with the byte kind (a
    table: EV2_STACKS, EV2_STRINGS), data the offset of that byte."""
    for _, start, end in gen_cut.records(b, int(b[5:7])):
        if b[start] == EV_BATCH:
            data = batch_fields(b, start)[1]
            if data < end and b[data] == kind:
                yield start, end, data


def kernel_pc_modern(b, path):
    for start, end, data in tables(b, EV2_STACKS):
        if b[data + 1] != EV2_STACK:
            continue
        i = skip(b, data + 2)                   # the stack id
        if varint_at(b, i) == 0:
            continue
        pc = skip(b, i)
        body = b[data:pc] + enc(KERNEL_PC) + b[skip(b, pc):end]
        size = batch_fields(b, start)[0]
        return patch(b, [(size, end, enc(len(body)) + body)])
    fail("no stack table with a frame in " + path)


def batch_fields(b, start):
    """The offsets of the size varint and of the data of the batch at start."""
    i = start + 1
    for _ in range(3):                          # gen, m, time
        i = skip(b, i)
    return i, skip(b, i)


def grow_batch(b, path):
    if not gen_cut.is_modern(b) or len(b) <= 16 or b[16] != EV_BATCH:
        fail("no Go 1.22+ batch at the start of " + path)
    size, data = batch_fields(b, 16)
    return patch(b, [(size, data, enc(varint_at(b, size) + 1))])


def rename_modern(b, path, old, new):
    if len(old) != len(new):
        fail("a Go 1.22+ rename keeps the length: %r and %r differ" % (old, new))
    edits = []
    for _, end, data in tables(b, EV2_STRINGS):
        i = data + 1
        while i < end and b[i] == EV2_STRING:
            i = skip(b, i + 1)                  # the string's id
            n = varint_at(b, i)
            i = skip(b, i)
            if b[i:i + n] == old:
                edits.append((i, i + n, new))
            i += n
    if not edits:
        fail("no string %r in the string tables of %s" % (old.decode(), path))
    return patch(b, edits)


def rename(b, path, old, new):
    old, new = old.encode(), new.encode()
    if gen_cut.is_modern(b):
        return rename_modern(b, path, old, new)
    end = string_event(b, enc(len(old)) + old, path)[1]
    return patch(b, [(end - len(old) - len(enc(len(old))), end, enc(len(new)) + new)])


def main(argv):
    if len(argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    mode, src, dst = argv[1:4]
    with open(src, "rb") as f:
        b = f.read()
    if mode == "dup-gomaxprocs":
        out = dup_gomaxprocs(b, src)
    elif mode == "late-batch":
        out = late_batch(b, src)
    elif mode == "zero-stacks":
        out = zero_stacks(b, src)
    elif mode == "kernel-pc" and gen_cut.is_modern(b):
        out = kernel_pc_modern(b, src)
    elif mode == "kernel-pc":
        out = kernel_pc(b, src)
    elif mode == "grow-batch":
        out = grow_batch(b, src)
    elif mode.startswith("rename:") and mode.count(":") == 2:
        out = rename(b, src, *mode.split(":")[1:])
    else:
        fail("unknown mode " + mode)
    with open(dst, "wb") as f:
        f.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
