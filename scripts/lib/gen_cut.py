#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Cut a Go 1.22+ trace at its generation boundaries: the flight recorder's case.

Usage: gen_cut.py TRACE OUTPREFIX
  For each generation K after the first one in TRACE, writes OUTPREFIX.from-K.trace: the
  16-byte header and every record of generations >= K, in file order. Prints one line per
  piece, "K PATH", and exits 0; exits 1 (saying why on stderr) if the framing is broken,
  2 on bad usage. A trace of one generation gives no piece and prints nothing.

Byte-level framing only, as Go's src/internal/trace/batch.go reads it, no event decoding:
  header      16 bytes, "go 1.NN trace\\0\\0\\0" with NN >= 22
  batch       byte 1 (EventBatch), or byte 49 (ExperimentalBatch) and one experiment byte;
              then uvarint gen, uvarint m, uvarint time, uvarint size, and size bytes
  end mark    byte 52 (EndOfGeneration, 1.26 traces only): ends the generation of the
              record before it, and goes with it into the pieces
Used by scripts/oracles/go-check.sh, which parses each piece with the oldest and newest Go
that read the trace's version.
"""

import os
import sys

EV_EVENT_BATCH = 1
EV_EXPERIMENTAL_BATCH = 49
EV_END_OF_GENERATION = 52
MAX_BATCH_SIZE = 64 << 10  # tracev2.MaxBatchSize


class Broken(Exception):
    pass


def uvarint(data, off):
    """Go's binary.ReadUvarint: (value, next offset)."""
    val = shift = 0
    for i in range(10):
        if off >= len(data):
            raise Broken("trace ends inside a varint at byte %d" % off)
        b = data[off]
        off += 1
        if i == 9 and b > 1:
            raise Broken("varint over 64 bits ending at byte %d" % (off - 1))
        val |= (b & 0x7F) << shift
        if b < 0x80:
            return val, off
        shift += 7
    raise Broken("varint over 64 bits at byte %d" % off)


def records(data, version):
    """(generation, start, end) of every batch and end mark after the header."""
    off = 16
    gen = None
    while off < len(data):
        start = off
        typ = data[off]
        off += 1
        if typ == EV_END_OF_GENERATION and version >= 26:
            if gen is None:
                raise Broken("EndOfGeneration at byte %d before any batch" % start)
            yield gen, start, off
            continue
        if typ == EV_EXPERIMENTAL_BATCH:
            off += 1
        elif typ != EV_EVENT_BATCH:
            raise Broken("byte %d: event type %d where a batch must start" % (start, typ))
        gen, off = uvarint(data, off)
        _, off = uvarint(data, off)  # m
        _, off = uvarint(data, off)  # time
        size, off = uvarint(data, off)
        if size > MAX_BATCH_SIZE:
            raise Broken("batch at byte %d: size %d over the maximum %d" % (start, size, MAX_BATCH_SIZE))
        if off + size > len(data):
            raise Broken("batch at byte %d: %d bytes, the trace ends %d bytes in" % (start, size, len(data) - off))
        off += size
        yield gen, start, off


def is_modern(data):
    """Whether data starts with the header of a Go 1.22+ trace."""
    head = data[:16]
    return (head.startswith(b"go 1.") and head.endswith(b" trace\0\0\0") and
            head[5:7].isdigit() and int(head[5:7]) >= 22)


def main(argv):
    if len(argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    path, prefix = argv[1], argv[2]
    with open(path, "rb") as f:
        data = f.read()
    head = data[:16]
    if len(head) != 16 or not head.startswith(b"go 1.") or not head.endswith(b" trace\0\0\0"):
        print("%s: not a Go trace header: %r" % (path, head), file=sys.stderr)
        return 1
    try:
        version = int(head[5:7])
    except ValueError:
        version = 0
    if version < 22:
        print("%s: header %r: not a Go 1.22+ trace (no generations)" % (path, head), file=sys.stderr)
        return 1
    try:
        recs = list(records(data, version))
    except Broken as e:
        print("%s: %s" % (path, e), file=sys.stderr)
        return 1
    gens = sorted({g for g, _, _ in recs})
    for k in gens[1:]:
        out = "%s.from-%d.trace" % (prefix, k)
        with open(out, "wb") as f:
            f.write(head)
            for g, s, e in recs:
                if g >= k:
                    f.write(data[s:e])
        print(k, os.path.abspath(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
