#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""views-check.sh's reader of Go's profiles and goroutine pages.

Usage: views_pages.py COMMAND ARGS; exit 1, saying why, when the check fails.
  stack RAW MODE OUTER FRAME   RAW is `pprof -raw` output. Some sample's outermost frame
                               fully matches OUTER and another frame fully matches FRAME;
                               MODE default: the stack is just those two frames; kstacks:
                               the FRAME frame is a kernel function (its file is not
                               "linux", the file of cheap frames).
  groups-new HTML NAME...      Go 1.23's /goroutines: each NAME has execution time > 0.
  group-new HTML NAME COLUMN SECONDS [STATS]
                               Go 1.22+'s /goroutine?name=NAME: its goroutines' COLUMN
                               ("Block time (read)") sums to SECONDS or more, and to
                               STATS seconds (gotrace stats' figure) within 1 %.
  groups-old HTML NAME...      old /goroutines: print "NAME PC" for each NAME.
  group-old HTML NAME          old /goroutine?id=PC: a goroutine has execution time > 0.
  tasks HTML NAME SECONDS      /usertasks (old and new): task type NAME has a complete
                               task of at least SECONDS (its histogram bucket's low end).
  regions HTML NAME PROGRAM    /userregions: print the PC of region type NAME whose first
                               frame is PROGRAM (the program of the thread it ran on).
  region HTML SECONDS          /userregion?type=NAME&pc=PC: a region of at least SECONDS.
"""

import html
import re
import sys


def fail(msg):
    print(msg)
    sys.exit(1)


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


# "ID: 0xPC [M=N ][[F] ]FUNC FILE:LINE[:COLUMN] s=START[(SYSTEMNAME)]"; 1.23 adds COLUMN.
LOC = re.compile(r"^\s*(\d+): 0x[0-9a-f]+ (?:M=\d+ )?(?:\[F\] )?(.*) (\S*?):\d+(?::\d+)? "
                 r"s=\d+(?:\(.*\))?$")
SAMPLE = re.compile(r"^((?:\s+\d+)+): ([\d ]*)$")


def samples(path):
    """[(values, [(func, file)...] innermost first)] of a `pprof -raw` listing."""
    section, locs, raw = None, {}, []
    for line in read(path).splitlines():
        if line in ("Samples:", "Locations", "Mappings"):
            section = line
        elif section == "Samples:" and SAMPLE.match(line):
            m = SAMPLE.match(line)
            raw.append(([int(v) for v in m.group(1).split()], [int(x) for x in m.group(2).split()]))
        elif section == "Locations" and LOC.match(line):
            m = LOC.match(line)
            locs[int(m.group(1))] = (m.group(2), m.group(3))
    out = []
    for values, ids in raw:
        if any(i not in locs for i in ids):
            fail("pprof -raw sample refers to an unlisted location: %s" % ids)
        out.append((values, [locs[i] for i in ids]))
    return out


def show(stack):
    return "[" + ", ".join("%s (%s)" % f for f in stack) + "]"


def matches(st, mode, outer, frame):
    """The wanted frame (FRAME above a last frame OUTER; see MODE) in stack st."""
    if len(st) < 2 or not re.fullmatch(outer, st[-1][0]):
        return False
    if mode == "default" and len(st) != 2:
        return False
    for fn, file in st[:-1]:
        if re.fullmatch(frame, fn) and (mode != "kstacks" or file not in ("linux", "")):
            return True
    return False


def stack(raw, mode, outer, frame):
    ss = samples(raw)
    found = [(values, st) for values, st in ss if matches(st, mode, outer, frame)]
    if found:
        values, st = found[0]
        print("found: %s, %s" % (show(st), values))
        # All such samples: [count, delay ns] summed, which views-check compares across Gos.
        tot = [sum(v[i] for v, _ in found) for i in (0, -1)]
        print("all %d such samples: %d events, %d ns" % (len(found), tot[0], tot[1]))
        return
    want = "[%s, %s]" % (frame, outer) if mode == "default" else \
        "a kernel frame %s in a stack ending in %s" % (frame, outer)
    if not ss:
        fail("no sample with %s: the profile is empty" % want)
    print("no sample with %s among %d samples; the largest:" % (want, len(ss)))
    for values, st in sorted(ss, key=lambda s: -s[0][-1])[:15]:
        print("  %s %s" % (values, show(st)))
    sys.exit(1)


def groups_new(page, names):
    rows = re.findall(r"<a href=\"/goroutine\?name=[^\"]*\">([^<]*)</a></code></td>"
                      r"\s*<td>(\d+)</td>\s*<td>([^<]*)</td>", read(page))
    got = {html.unescape(n): (int(c), t.strip()) for n, c, t in rows}
    bad = []
    for n in names:
        if n not in got:
            bad.append("%s: no such goroutine group" % n)
        elif not re.search(r"[1-9]", got[n][1]):
            bad.append("%s: %d goroutines, execution time %s" % (n, got[n][0], got[n][1]))
        else:
            print("%s: %d goroutines, execution time %s" % (n, got[n][0], got[n][1]))
    if bad:
        print("groups: " + ", ".join("%s (%d, %s)" % (n, c, t)
                                     for n, (c, t) in sorted(got.items())))
        fail("\n".join(bad))


def group_new(page, name, column, least, stats=None):
    rows = []
    for row in re.findall(r"<tr>(.*?)</tr>", read(page), re.S):
        rows.append([html.unescape(re.sub(r"<[^>]*>", "", c)).strip()
                     for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, re.S)])
    head = next((r for r in rows if r and r[0] == "Goroutine" and column in r), None)
    if not head:
        fail("%s: no column %r on its goroutine page; columns: %s" % (
            name, column, "; ".join(", ".join(r) for r in rows if r and r[0] == "Goroutine")))
    col = head.index(column)
    gor = [r for r in rows if len(r) == len(head) and r[0].isdigit()]
    total = sum(seconds(r[col]) for r in gor)
    syscall = head.index("Block time (syscall)") if "Block time (syscall)" in head else None
    also = "" if syscall is None else ", Block time (syscall) %.6f s" % sum(
        seconds(r[syscall]) for r in gor)
    print("%s: %d goroutines, %s %.6f s%s" % (name, len(gor), column, total, also))
    if total < float(least):
        fail("%s: %s %.6f s, less than %s s" % (name, column, total, least))
    if stats is not None:
        if abs(total - float(stats)) > 0.01 * float(stats):
            fail("%s: %s %.6f s, gotrace stats says %s s" % (name, column, total, stats))
        print("gotrace stats: %s s blocked in system calls (within 1 %%)" % stats)


def groups_old(page, names):
    links = re.findall(r"<a href=\"/goroutine\?id=(\d+)\">([^<]*)</a> N=(\d+)", read(page))
    got = {html.unescape(n): pc for pc, n, _ in links}
    missing = [n for n in names if n not in got]
    if missing:
        fail("no goroutine group %s; groups: %s" % (", ".join(missing), ", ".join(sorted(got))))
    for n in names:
        print(n, got[n])


def group_old(page, name):
    execs = []
    for row in re.findall(r"<tr>(.*?)</tr>", read(page), re.S):
        tds = [re.sub(r"<[^>]*>", "", td).strip()
               for td in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        if len(tds) >= 4 and "/trace?goid=" in row:
            execs.append(html.unescape(tds[3]))
    if not any(re.search(r"[1-9]", e) for e in execs):
        fail("%s: %d goroutines, none with execution time (%s)" % (
            name, len(execs), ", ".join(execs[:10])))
    print("%s: %d goroutines, execution times %s" % (name, len(execs), ", ".join(execs[:5])))


# Go's time.Duration.String(): "1.5s", "74.423488ms", "6635µs", "0s", "1m2.5s".
DURATION = re.compile(r"(?:(\d+)h)?(?:(\d+)m(?!s))?(?:([\d.]+)(s|ms|µs|us|ns))?$")
UNITS = {"s": 1.0, "ms": 1e-3, "µs": 1e-6, "us": 1e-6, "ns": 1e-9}


def seconds(text):
    m = DURATION.match(html.unescape(text).strip())
    if not m or not any(m.groups()):
        fail("not a Go duration: %r" % text)
    h, mins, val, unit = m.groups()
    return int(h or 0) * 3600 + int(mins or 0) * 60 + (float(val) * UNITS[unit] if val else 0)


def tasks(page, name, least):
    text = read(page)
    count = re.search(r"<a href=\"/usertask\?type=%s\">(\d+)</a>" % re.escape(name), text)
    if not count:
        fail("no task type %s on /usertasks" % name)
    lows = [seconds(d) for d in re.findall(
        r"/usertask\?type=%s&complete=true&latmin=([^&]+)&" % re.escape(name), text)]
    if not any(low >= float(least) for low in lows):
        fail("task type %s: %s tasks, complete ones' durations from %s s, none >= %s s" % (
            name, count.group(1), ", ".join("%.3f" % d for d in lows) or "(none)", least))
    print("task type %s: %s tasks, durations from %s s" % (
        name, count.group(1), ", ".join("%.3f" % d for d in lows)))


def regions(page, name, program):
    found = []
    for cell, pc in re.findall(r"<td>(?:<pre>)?([^<]*(?:<br>[^<]*)*)(?:</pre>)?</td>\s*"
                               r"<td><a href=\"/userregion\?type=%s&pc=([0-9a-fx]+)\">"
                               % re.escape(name), read(page)):
        lines = [html.unescape(x).strip() for x in cell.split("<br>")]
        if len(lines) > 1 and lines[1].split(" @ ")[0] == program:
            print(pc)
            return
        found.append(" / ".join(lines))
    fail("no region type %s of program %s on /userregions; %s: %s" % (
        name, program, name, "; ".join(found) or "none"))


def region(page, least):
    rows = re.findall(r"<td>\s*<a href=\"/trace\?goid=(\d+)\">\d+</a>\s*</td>\s*"
                      r"<td>.*?</td>\s*<td>([^<]*)</td>", read(page), re.S)
    if not rows:
        fail("no region listed")
    for goid, total in rows:
        if seconds(total) >= float(least):
            print("goroutine %s: %s" % (goid, total.strip()))
            return
    fail("no region of at least %s s: %s" % (least, ", ".join(
        "goroutine %s %s" % (g, t.strip()) for g, t in rows)))


def main(argv):
    cmd, args = argv[1], argv[2:]
    if cmd == "stack":
        stack(*args)
    elif cmd == "groups-new":
        groups_new(args[0], args[1:])
    elif cmd == "group-new":
        group_new(*args)
    elif cmd == "groups-old":
        groups_old(args[0], args[1:])
    elif cmd == "group-old":
        group_old(*args)
    elif cmd == "tasks":
        tasks(*args)
    elif cmd == "regions":
        regions(*args)
    elif cmd == "region":
        region(*args)
    else:
        fail("unknown command " + cmd)


if __name__ == "__main__":
    main(sys.argv)
