#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read and rewrite pre-1.22 Go execution traces, the wire format gotrace writes.

Facts from /work/shared/go-trace-format.md and Go 1.21's internal/trace parser: a 16-byte
header, then events: a byte (low 6 bits type, high 2 bits: arguments after the first - 0..2
inline, 3 = a varint byte length and that many bytes of varints), unsigned LEB128 varints.
String events are [id, length, bytes]; UserLog ends with an inline string.

As a program: gotrace_wire.py scan FILE... reports every varint that looks like a raw kernel
address (>= 0xffff800000000000, the x86-64 kernel half) in any event argument, stack frame
PC included: 'FILE: OFFSET EVENT arg N = 0x...' lines, exit status 1 if there are any. A Batch's
P of -1 (all ones, which Go writes for events on no P) is not an address.
"""

import sys

HEADER_LEN = 16
EV_BATCH = 1
EV_FREQUENCY = 2
EV_STACK = 3
EV_TIMER_GOROUTINE = 35
EV_STRING = 37
EV_USER_LOG = 48
# Events whose last argument is a stack id (Stack = true in Go's EventDescriptions).
STACK_EVENTS = frozenset([4, 7, 11, 13] + list(range(16, 29)) + [39, 42, 43] +
                         list(range(45, 50)))
# Events whose first value is not a timestamp delta.
NO_TIMESTAMP = frozenset([EV_BATCH, EV_FREQUENCY, EV_STACK, EV_TIMER_GOROUTINE, EV_STRING])
KERNEL_ADDRESS = 0xffff800000000000

NAMES = {1: "Batch", 2: "Frequency", 3: "Stack", 4: "Gomaxprocs", 5: "ProcStart", 6: "ProcStop",
         13: "GoCreate", 14: "GoStart", 15: "GoEnd", 16: "GoStop", 17: "GoSched",
         18: "GoPreempt", 19: "GoSleep", 20: "GoBlock", 21: "GoUnblock", 25: "GoBlockSync",
         27: "GoBlockNet", 28: "GoSysCall", 29: "GoSysExit", 30: "GoSysBlock", 31: "GoWaiting",
         32: "GoInSyscall", 37: "String", 38: "GoStartLocal", 39: "GoUnblockLocal",
         40: "GoSysExitLocal", 41: "GoStartLabel"}


class TraceError(Exception):
    """The bytes are not a pre-1.22 trace."""


def uvarint(b, i):
    """Decode the varint at b[i]: (value, offset after it)."""
    x = s = 0
    while True:
        if i >= len(b) or s > 63:
            raise TraceError("bad or truncated varint at offset %#x" % i)
        c = b[i]
        i += 1
        x |= (c & 0x7f) << s
        s += 7
        if c < 0x80:
            return x, i


def put_uvarint(x):
    """Encode x as a varint."""
    o = bytearray()
    while True:
        c = x & 0x7f
        x >>= 7
        if x:
            o.append(c | 0x80)
        else:
            o.append(c)
            return bytes(o)


class Event:
    """One event: typ, args (varints), data (String bytes / UserLog string, else None),
    prefixed (arguments were length-prefixed), off and end (its bytes in the trace)."""

    def __init__(self, typ, args, data, prefixed, off, end):
        self.typ, self.args, self.data = typ, args, data
        self.prefixed, self.off, self.end = prefixed, off, end

    def name(self):
        return NAMES.get(self.typ, "event %d" % self.typ)

    def encode(self):
        """The event's bytes, from typ, args and data."""
        if self.typ == EV_STRING:
            return (bytes([EV_STRING]) + put_uvarint(self.args[0]) +
                    put_uvarint(len(self.data)) + self.data)
        body = b"".join(put_uvarint(a) for a in self.args)
        if self.prefixed or len(self.args) > 3:
            out = bytes([self.typ | 3 << 6]) + put_uvarint(len(body)) + body
        else:
            out = bytes([self.typ | (len(self.args) - 1) << 6]) + body
        if self.typ == EV_USER_LOG:
            out += put_uvarint(len(self.data)) + self.data
        return out


def events(b):
    """Every event of trace bytes b, after the header, in file order."""
    if len(b) < HEADER_LEN or not b.startswith(b"go 1."):
        raise TraceError("no 'go 1.NN trace' header")
    i = HEADER_LEN
    while i < len(b):
        off = i
        typ, narg = b[i] & 0x3f, (b[i] >> 6) + 1
        i += 1
        data = None
        if typ == EV_STRING:
            sid, i = uvarint(b, i)
            n, i = uvarint(b, i)
            data, i = b[i:i + n], i + n
            if len(data) != n:
                raise TraceError("truncated String at offset %#x" % off)
            yield Event(typ, [sid], data, False, off, i)
            continue
        args = []
        if narg < 4:
            for _ in range(narg):
                v, i = uvarint(b, i)
                args.append(v)
        else:
            n, i = uvarint(b, i)
            end = i + n
            while i < end:
                v, i = uvarint(b, i)
                args.append(v)
            if i != end:
                raise TraceError("length-prefixed event at offset %#x overruns" % off)
        if typ == EV_USER_LOG:
            n, i = uvarint(b, i)
            data, i = b[i:i + n], i + n
        yield Event(typ, args, data, narg == 4, off, i)


def scan(path):
    """Print the raw-kernel-address-like values of one trace; return how many."""
    with open(path, "rb") as f:
        b = f.read()
    bad = 0
    for ev in events(b):
        if ev.typ == EV_STRING:
            continue
        for n, v in enumerate(ev.args):
            if v >= KERNEL_ADDRESS and not (ev.typ == EV_BATCH and n == 0 and v == 2**64 - 1):
                what = "arg %d" % n
                if ev.typ == EV_STACK and n >= 2:
                    what = "frame %d %s" % ((n - 2) // 4, ("PC", "func", "file", "line")[(n - 2) % 4])
                print("%s: offset %#x %s %s = %#x" % (path, ev.off, ev.name(), what, v))
                bad += 1
    return bad


def main(argv):
    if len(argv) < 3 or argv[1] != "scan":
        sys.stderr.write("usage: %s scan FILE...\n" % argv[0])
        return 2
    bad = 0
    for path in argv[2:]:
        try:
            bad += scan(path)
        except (OSError, TraceError) as e:
            print("%s: %s" % (path, e))
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
