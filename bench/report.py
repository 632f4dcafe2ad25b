#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn one make bench run into a table and a JSON file.

Usage: bench/report.py GUEST_OUTPUT WINDOWS [--meta KEY=VALUE]... [--json FILE]

GUEST_OUTPUT is what bench/gotrace_bench printed in the guest ("win", "snap",
"filt", "rate", "ann" lines of key=value pairs); WINDOWS is what the insn_window plugin wrote
("window N INSNS KERNEL_INSNS" lines). Windows are joined by number; the two
lists must match exactly. Prints the table; --json saves every window and
the summary. Exits 1 if the inputs are inconsistent.
"""

import argparse
import json
import statistics
import sys


def fail(msg):
    print(f"report.py: {msg}", file=sys.stderr)
    sys.exit(1)


def parse_kv(words):
    out = {}
    for w in words:
        if "=" in w:
            k, v = w.split("=", 1)
            out[k] = int(v) if v.isdigit() else v
    return out


def read_guest(path):
    lines = {"win": [], "snap": [], "filt": [], "samp": [], "part": [], "rate": [], "ann": [],
             "info": [], "note": [], "done": []}
    with open(path, errors="replace") as f:
        for raw in f:
            words = raw.split()
            if not words:
                continue
            if words[0] == "note:":
                lines["note"].append(raw.strip())
            elif words[0] in lines:
                lines[words[0]].append(parse_kv(words[1:]))
    return lines


def read_windows(path):
    counts, problems, end = {}, [], None
    with open(path) as f:
        for raw in f:
            w = raw.split()
            if not w:
                continue
            if w[0] == "window" and len(w) == 4:
                counts[int(w[1])] = (int(w[2]), int(w[3]))
            elif w[0] == "end":
                end = int(w[1])
            else:
                problems.append(raw.strip())
    return counts, problems, end


def med(xs):
    return statistics.median(xs) if xs else None


def spread(xs):
    """(max - min) / median, in per cent."""
    if len(xs) < 2:
        return None
    m = statistics.median(xs)
    return 100.0 * (max(xs) - min(xs)) / abs(m) if m else None


def div(a, b):
    return a / b if a is not None and b not in (None, 0) else None


def fmt(v, nd=0, width=0):
    if v is None:
        s = "-"
    elif nd == 0:
        s = f"{round(v):,}"
    else:
        s = f"{v:,.{nd}f}"
    return s.rjust(width) if width else s


def summarize_workload(name, mode, pick, rounds):
    """One workload's figures for gotrace in MODE against the untraced and ftrace windows."""
    u, g, f = pick(name, "untraced"), pick(name, mode), pick(name, "ftrace")
    bare = pick(name, "untraced", "bare")
    rs = [r for r in rounds if r in u and r in g and r in f]
    ui = [u[r]["insns"] for r in rs]
    gi = [g[r]["insns"] for r in rs]
    fi = [f[r]["insns"] for r in rs]
    ovg = [g[r]["insns"] - u[r]["insns"] for r in rs]
    ovf = [f[r]["insns"] - u[r]["insns"] for r in rs]
    ovg_k = [g[r]["kernel_insns"] - u[r]["kernel_insns"] for r in rs]
    events = [g[r]["events"] for r in rs]
    s = {
        "units": u[rs[0]]["units"] if rs else None,
        "rounds": len(rs),
        "untraced": med(ui), "gotrace": med(gi), "ftrace": med(fi),
        "gotrace_overhead": med(ovg), "ftrace_overhead": med(ovf),
        "gotrace_overhead_kernel": med(ovg_k),
        "gotrace_overhead_rounds": ovg, "ftrace_overhead_rounds": ovf,
        "events": med(events), "events_rounds": events,
        "events_lost": max([g[r]["lost"] for r in rs], default=0),
        "gotrace_bytes": med([g[r]["bytes"] for r in rs]),
        "gens": med([g[r].get("gens", 0) for r in rs]),
        "ftrace_bytes": med([f[r]["ft_bytes"] for r in rs]),
        "ftrace_entries": med([f[r]["ft_entries"] for r in rs]),
        "spread_untraced": spread(ui), "spread_gotrace": spread(gi),
        "spread_ftrace": spread(fi),
        "spread_gotrace_overhead": spread(ovg),
        "spread_ftrace_overhead": spread(ovf),
        "bare": med([x["insns"] for x in bare.values()]),
    }
    s["overhead_ratio"] = div(s["gotrace_overhead"], s["ftrace_overhead"])
    s["bytes_ratio"] = div(s["gotrace_bytes"], s["ftrace_bytes"])
    s["insns_per_event"] = div(s["gotrace_overhead"], s["events"])
    s["bytes_per_event"] = div(s["gotrace_bytes"], s["events"])
    s["ftrace_insns_per_entry"] = div(s["ftrace_overhead"], s["ftrace_entries"])
    s["ftrace_bytes_per_entry"] = div(s["ftrace_bytes"], s["ftrace_entries"])
    s["events_per_unit"] = div(s["events"], s["units"])
    if s["bare"] is not None and s["untraced"] is not None:
        s["idle_probes"] = s["untraced"] - s["bare"]
    else:
        s["idle_probes"] = None
    return s


def summarize(guest, counts):
    wins = guest["win"]
    rounds = sorted({w["round"] for w in wins if w["phase"] == "round"})
    names = []
    for w in wins:
        if w["phase"] == "round" and w["workload"] not in names:
            names.append(w["workload"])

    def pick(name, mode, phase="round"):
        return {w["round"]: w for w in wins
                if w["workload"] == name and w["mode"] == mode and w["phase"] == phase}

    work = {}
    for name in names:
        work[name] = summarize_workload(name, "gotrace", pick, rounds)
        modern = summarize_workload(name, "gotrace-1.26", pick, rounds)
        if modern["rounds"]:
            work[name]["modern"] = modern
        flight = summarize_workload(name, "gotrace-flight", pick, rounds)
        if flight["rounds"]:
            fl = pick(name, "gotrace-flight")
            rs = [r for r in rounds if r in fl]
            dropped = [fl[r].get("chunks_dropped", 0) for r in rs]
            flight["chunks_dropped"] = med(dropped)
            flight["chunks_dropped_min"] = min(dropped, default=None)
            flight["chunks_dropped_rounds"] = dropped
            flight["buffer"] = fl[rs[0]].get("buffer") if rs else None
            work[name]["flight"] = flight
        trig = summarize_workload(name, "gotrace-trigger", pick, rounds)
        if trig["rounds"]:
            tr, fl = pick(name, "gotrace-trigger"), pick(name, "gotrace-flight")
            rs = [r for r in rounds if r in tr]
            fired = [tr[r].get("triggers", 0) for r in rs]
            trig["triggers"] = max(fired, default=0)
            trig["triggers_rounds"] = fired
            trig["latency_ns"] = tr[rs[0]].get("latency_ns") if rs else None
            # Against the same round's flight window directly: the untraced window cancels.
            d = [tr[r]["insns"] - fl[r]["insns"] for r in rs if r in fl]
            trig["minus_flight"] = med(d)
            trig["minus_flight_rounds"] = d
            trig["spread_minus_flight"] = spread(d)
            trig["flight_events_rounds"] = [fl[r]["events"] for r in rs if r in fl]
            work[name]["trigger"] = trig

    # Without the fixed cost of a session (the empty workload's overhead).
    empty = work.get("empty")
    for name, s in work.items():
        if name == "empty" or not empty:
            continue
        g = s["gotrace_overhead"] - empty["gotrace_overhead"]
        f = s["ftrace_overhead"] - empty["ftrace_overhead"]
        ev = s["events"] - empty["events"]
        s["marginal_ratio"] = div(g, f)
        s["marginal_insns_per_event"] = div(g, ev)
        # The same for the 1.26 streaming, flight and trigger windows, each against its own
        # empty one.
        for key in ("modern", "flight", "trigger"):
            m, e = s.get(key), empty.get(key)
            if not m or not e or m["gotrace_overhead"] is None or e["gotrace_overhead"] is None:
                continue
            m["marginal_overhead"] = m["gotrace_overhead"] - e["gotrace_overhead"]
            m["marginal_insns_per_event"] = div(m["marginal_overhead"], m["events"] - e["events"])
        # The trigger's own cost beyond the empty session's (its slots' allocation, the
        # GOTRACE_TRIGGER call), per Go event and per unit of the workload.
        t, e = s.get("trigger"), empty.get("trigger")
        if t and e and t["minus_flight"] is not None and e["minus_flight"] is not None:
            t["marginal_minus_flight"] = t["minus_flight"] - e["minus_flight"]
            t["extra_insns_per_event"] = div(t["marginal_minus_flight"],
                                             t["events"] - e["events"])
            t["extra_insns_per_unit"] = div(t["marginal_minus_flight"], t["units"])

    snap = {}
    for threads in sorted({x["threads"] for x in guest["snap"]}):
        xs = [x for x in guest["snap"] if x["threads"] == threads]
        snap[threads] = {
            "reps": len(xs),
            "start_ns": med([x["start_ns"] for x in xs]),
            "insns": med([x["insns"] for x in xs]),
            "stopped_world_ns": med([x["stopped_world_ns"] for x in xs]),
            "stopped_cb_ns": med([x["stopped_cb_ns"] for x in xs]),
            "events": med([x["events"] for x in xs]),
            "bytes": med([x["bytes"] for x in xs]),
            "mem_kib": med([x.get("mem_kib", 0) for x in xs]),
            "thread_kib": med([x.get("thread_bytes", 0) / 1024 for x in xs]),
            "spread_start_ns": spread([x["start_ns"] for x in xs]),
            "spread_insns": spread([x["insns"] for x in xs]),
        }

    rate = []
    for x in guest["rate"]:
        secs = x["elapsed_ns"] / 1e9
        rate.append({
            "target": x["target"], "round_trips_per_s": x["round_trips"] / secs,
            "events_per_s": x["events"] / secs, "bytes_per_s": x["bytes"] / secs,
            "lost": x["lost"], "buffer": x["buffer"], "trace": x["trace"],
        })
    ok = [r["events_per_s"] for r in rate if not r["lost"]]
    lossy = [r for r in rate if r["lost"]]
    rate_summary = {
        "max_sustained_events_per_s": max(ok) if ok else None,
        "first_lossy": lossy[0] if lossy else None,
    }
    return {"workloads": work, "snapshot": snap, "filter": filter_summary(guest["filt"]),
            "samples": samples_summary(guest["samp"]),
            "parts": parts_summary(guest["part"], wins),
            "annotate": annotate_summary(wins), "rate": rate, "rate_summary": rate_summary}


def parts_summary(parts, wins):
    """The probes, the reader and a generation switch apart (bench/README.md, "The parts")."""
    if not parts:
        return None

    def by_round(mode, version, name):
        return {x["round"]: x for x in parts
                if x["mode"] == mode and x["format"] == version and x["workload"] == name}

    untraced = {}
    for w in wins:
        if w["phase"] == "parts":
            untraced.setdefault(w["workload"], {})[w["round"]] = w
    out = {"formats": {}}
    for version in sorted({x["format"] for x in parts if not x["mode"].startswith("gens")}):
        empty = by_round("drain", version, "empty")
        f = out["formats"][version] = {"workloads": {}}
        f["drain_empty"] = med([x["insns"] for x in empty.values()])
        # The reader's cost per byte: the median slope between every two drain windows of
        # the format (Theil-Sen), which an occasional window with unrelated work (a lazy
        # vmap purge after the session's buffers are freed) does not move.
        drains = [x for x in parts if x["mode"] == "drain" and x["format"] == version]
        slopes = [(b["insns"] - a["insns"]) / (b["bytes_read"] - a["bytes_read"])
                  for i, a in enumerate(drains) for b in drains[i + 1:]
                  if abs(b["bytes_read"] - a["bytes_read"]) > 16384]
        pb = f["reader_insns_per_byte"] = med(slopes)
        f["drain_windows"] = len(drains)
        for name in untraced:
            u, pr = untraced[name], by_round("probes", version, name)
            wk, dr = by_round("wakeups", version, name), by_round("drain", version, name)
            rs = [r for r in sorted(u) if r in pr and r in dr and r in empty]
            if not rs:
                continue
            probes = [pr[r]["insns"] - u[r]["insns"] for r in rs]
            per_ev = [div(pr[r]["insns"] - u[r]["insns"], pr[r]["events"]) for r in rs]
            batch = untraced.get("pingpong", {}) if name == "pp-other" else {}
            per_ev_batch = [div(pr[r]["insns"] - batch[r]["insns"], pr[r]["events"])
                            for r in rs if r in batch]
            rw = [r for r in rs if r in wk]
            reader = [wk[r]["insns"] - pr[r]["insns"] for r in rw]
            per_wake = [div(wk[r]["insns"] - pr[r]["insns"] - pb * wk[r]["bytes_read"],
                            wk[r]["reader_reads"]) for r in rw] if pb is not None else []
            f["workloads"][name] = {
                "rounds": len(rs), "units": u[rs[0]]["units"],
                "untraced": med([u[r]["insns"] for r in rs]),
                "probes_overhead": med(probes), "probes_overhead_rounds": probes,
                "probes_events": med([pr[r]["events"] for r in rs]),
                "probes_bytes": med([pr[r]["bytes"] for r in rs]),
                "probes_insns_per_event": med(per_ev), "probes_insns_per_event_rounds": per_ev,
                "probes_insns_per_unit": div(med(probes), u[rs[0]]["units"]),
                "probes_reader_reads": max(pr[r]["reader_reads"] for r in rs),
                "probes_gens": max(pr[r]["gens"] for r in rs),
                "wakeups_reader": med(reader), "wakeups_reader_rounds": reader,
                "wakeups_reads": med([wk[r]["reader_reads"] for r in rw]),
                "wakeups_bytes_read": med([wk[r]["bytes_read"] for r in rw]),
                "wakeups_events": med([wk[r]["events"] for r in rw]),
                "wakeups_lost": max([wk[r]["lost"] for r in rw], default=None),
                "wakeups_gens": max([wk[r]["gens"] for r in rw], default=None),
                "probes_lost": max(pr[r]["lost"] for r in rs),
                "drain": med([dr[r]["insns"] for r in rs]),
                "drain_bytes": med([dr[r]["bytes"] for r in rs]),
                "probes_insns_per_event_batch_base": med(per_ev_batch),
                "reader_insns_per_wakeup": med(per_wake), "reader_insns_per_wakeup_rounds": per_wake,
                "spread_probes": spread(probes), "spread_per_wakeup": spread(per_wake),
            }
    a, b = out["formats"].get("1.21"), out["formats"].get("1.26")
    if a and b:
        out["ratio_1_26"] = {
            name: {"probes_per_event": div(b["workloads"][name]["probes_insns_per_event"],
                                           a["workloads"][name]["probes_insns_per_event"]),
                   "probes_per_unit": div(b["workloads"][name]["probes_insns_per_unit"],
                                          a["workloads"][name]["probes_insns_per_unit"])}
            for name in a["workloads"] if name in b["workloads"]}
    g10 = {x["round"]: x for x in parts if x["mode"] == "gens-10ms"}
    g1h = {x["round"]: x for x in parts if x["mode"] == "gens-1h"}
    rs = [r for r in sorted(g10) if r in g1h and g10[r]["gens"] > g1h[r]["gens"]]
    if rs:
        per = [(g10[r]["insns"] - g1h[r]["insns"]) / (g10[r]["gens"] - g1h[r]["gens"]) for r in rs]
        out["gens"] = {
            "rounds": len(rs), "idle_ms": g10[rs[0]]["units"],
            "gens": med([g10[r]["gens"] - g1h[r]["gens"] for r in rs]),
            "insns_10ms": med([g10[r]["insns"] for r in rs]),
            "insns_1h": med([g1h[r]["insns"] for r in rs]),
            "insns_per_gen": med(per), "insns_per_gen_rounds": per, "spread": spread(per),
            "bytes_per_gen": med([(g10[r]["bytes"] - g1h[r]["bytes"])
                                  / (g10[r]["gens"] - g1h[r]["gens"]) for r in rs]),
            "threads": med([g10[r].get("threads", 0) for r in rs]),
        }
    return out


def parts_table(parts):
    """The probes, the reader and a generation switch, each on its own."""
    out = []
    p = out.append
    p("the parts apart (medians over the rounds; bench/README.md, \"The parts\"):")
    hdr = (f"{'format':<6} {'workload':<9} {'units':>6} {'events':>7} {'ev/unit':>7}"
           f" {'probes insns':>12} {'/event':>7} {'/unit':>7} {'/ev b.u.':>8} {'spread%':>7}"
           f" {'reader insns':>12} {'reads':>6} {'B read':>8} {'/wakeup':>8} {'lost':>5}")
    p(hdr)
    p("-" * len(hdr))
    for version, f in parts["formats"].items():
        for name, x in f["workloads"].items():
            p(f"{version:<6} {name:<9} {fmt(x['units'], 0, 6)} {fmt(x['probes_events'], 0, 7)}"
              f" {fmt(div(x['probes_events'], x['units']), 2, 7)}"
              f" {fmt(x['probes_overhead'], 0, 12)} {fmt(x['probes_insns_per_event'], 1, 7)}"
              f" {fmt(x['probes_insns_per_unit'], 1, 7)}"
              f" {fmt(x['probes_insns_per_event_batch_base'], 1, 8)} {fmt(x['spread_probes'], 1, 7)}"
              f" {fmt(x['wakeups_reader'], 0, 12)} {fmt(x['wakeups_reads'], 0, 6)}"
              f" {fmt(x['wakeups_bytes_read'], 0, 8)} {fmt(x['reader_insns_per_wakeup'], 0, 8)}"
              f" {fmt(x['wakeups_lost'], 0, 5)}")
    for version, f in parts["formats"].items():
        p(f"reader per byte, {version}: {fmt(f['reader_insns_per_byte'], 2)} insns (median slope"
          f" of insns over bytes between its {f['drain_windows']} drain windows)")
    p("probes: the workload in a window of a session started before it, an 8 MiB/CPU ring and a")
    p("reader asleep in read() that is not woken: window - the same round's untraced window, over")
    p("the Go events written in it (/event) or the workload's units (/unit); /ev b.u.: the same")
    p("window less the SCHED_BATCH ping-pong's untraced window (the path a traced SCHED_OTHER")
    p("ping-pong takes when all its round trips block, as its ev/unit then says). reader: the")
    p("same window with a 64 KiB/CPU ring, whose reader is woken at every 16 KiB, less the probes")
    p("window; reads: its read()s that returned data; /wakeup: the reader insns less the per-byte")
    p("cost x B read, over reads. Per byte: held readers, each in a window reading what a")
    p("running session has ready (a workload's recorded before, or none) without blocking.")
    for name, r in (parts.get("ratio_1_26") or {}).items():
        p(f"1.26/1.21 probes, {name}: {fmt(r['probes_per_event'], 3)} per Go event,"
          f" {fmt(r['probes_per_unit'], 3)} per unit")
    g = parts.get("gens")
    if g:
        p(f"generation switch (1.26): {fmt(g['insns_per_gen'], 0)} insns and"
          f" {fmt(g['bytes_per_gen'], 0)} bytes each ({fmt(g['threads'], 0)} threads;"
          f" {fmt(g['gens'], 0)} generations in {g['idle_ms']} ms idle with a 10 ms period,"
          f" less the same with an hour's; spread {fmt(g['spread'], 1)}%)")
    for version, f in parts["formats"].items():
        for name, x in f["workloads"].items():
            if x["probes_reader_reads"] or x["probes_gens"] or x["wakeups_gens"]:
                p(f"WARNING: {version} {name}: the probes window's reader read"
                  f" ({x['probes_reader_reads']} reads) or a generation started in a window")
            if x["wakeups_lost"] or x["probes_lost"]:
                p(f"WARNING: {version} {name}: a probes or wakeups window lost events")
    p("")
    return "\n".join(out)


def annotate_summary(wins):
    """Per annotation and mode (idle, gotrace, gotrace-1.26): medians per call over the rounds."""
    xs = [w for w in wins if w["phase"] == "annotate"]
    # The guest's order of its kinds (its rounds start at different ones), others after.
    order = ("write", "log", "region", "task", "enotty")
    kinds = sorted(dict.fromkeys(w["workload"] for w in xs),
                   key=lambda k: order.index(k) if k in order else len(order))
    modes = list(dict.fromkeys(w["mode"] for w in xs))
    out = {}
    for kind in kinds:
        out[kind] = {}
        for mode in modes:
            ws = [w for w in xs if w["workload"] == kind and w["mode"] == mode]
            per = [w["insns"] / w["units"] for w in ws]
            out[kind][mode] = {
                "rounds": len(ws), "calls": ws[0]["units"] if ws else None,
                "insns_per_call": med(per), "insns_per_call_rounds": per,
                "ns_per_call": med([w["wall_ns"] / w["units"] for w in ws]),
                "kernel_share": med([div(w["kernel_insns"], w["insns"]) for w in ws]),
                "events_per_call": med([w["events"] / w["units"] for w in ws if "events" in w]),
                "spread": spread(per),
            }
    return out or None


def modes_medians(windows, modes):
    """Per mode, the medians of its windows' instructions, events and bytes; None if
    a mode has no window."""
    by = {m: [x for x in windows if x["mode"] == m] for m in modes}
    if not all(by.values()):
        return None
    return {m: {"insns": med([x["insns"] for x in xs]),
                "events": med([x.get("events", 0) for x in xs]),
                "bytes": med([x.get("bytes", 0) for x in xs]),
                "rounds": len(xs)} for m, xs in by.items()}


def samples_summary(samp):
    """Reads of /dev/zero recorded without and with CPU samples, per format (medians)."""
    out = {}
    for version in sorted({x.get("format", "1.21") for x in samp}):
        windows = [x for x in samp if x.get("format", "1.21") == version]
        by = modes_medians(windows, ("recorded", "sampled", "recorded-empty", "sampled-empty"))
        if by:
            out[version] = format_samples(windows, by)
    return out or None


def format_samples(windows, out):
    """One format's sample cost: the sessions' fixed cost (the empty windows) taken off."""
    hz = next(x["hz"] for x in windows if x["mode"] == "sampled")
    # The samples written, as GOTRACE_STATUS counts them (in format 1.26 they
    # are not events of the CPU's buffer); creating and releasing the perf
    # events is not a sample's cost.
    samples = med([x["samples"] for x in windows if x["mode"] == "sampled"])
    extra = ((out["sampled"]["insns"] - out["sampled-empty"]["insns"])
             - (out["recorded"]["insns"] - out["recorded-empty"]["insns"]))
    out["hz"] = hz
    out["samples"] = samples
    out["dropped"] = med([x["dropped"] for x in windows if x["mode"] == "sampled"])
    out["fixed"] = out["sampled-empty"]["insns"] - out["recorded-empty"]["insns"]
    out["insns_per_sample"] = div(extra, samples)
    out["bytes_per_sample"] = div(out["sampled"]["bytes"] - out["recorded"]["bytes"], samples)
    # A busy CPU takes hz samples a second.
    bps = out["bytes_per_sample"]
    out["bytes_per_s_per_cpu"] = bps * hz if bps is not None else None
    return out


def filter_summary(filt):
    """The ping-pong untraced, recorded, and filtered out (medians over rounds)."""
    if not filt:
        return None
    out = modes_medians(filt, ("untraced", "recorded", "filtered", "recorded-empty",
                               "filtered-empty"))
    if not out:
        return None
    base = out["untraced"]["insns"]
    for m in ("recorded", "filtered"):
        out[m]["overhead"] = out[m]["insns"] - base
        # The marginal cost, the session's fixed cost (its empty window)
        # taken off, per Go event the recording writes beyond the empty
        # session's: the same scheduler events reach the probes either way.
        fixed = out[m + "-empty"]["insns"]
        ev = out["recorded"]["events"] - out["recorded-empty"]["events"]
        out[m]["marginal"] = out[m]["overhead"] - fixed
        out[m]["insns_per_event"] = div(out[m]["marginal"], ev)
    out["bytes_saved"] = out["recorded"]["bytes"] - out["filtered"]["bytes"]
    return out


def annotate_table(ann, sessions):
    """Each annotation's cost per call, with no session recording and within one."""
    out = []
    p = out.append
    modes = list(next(iter(ann.values())))
    calls = max(x["calls"] or 0 for m in ann.values() for x in m.values())
    rounds = max(x["rounds"] for m in ann.values() for x in m.values())
    p(f"annotations: {calls} calls of one kind in a window (userspace/gotrace_annotate.h),"
      f" medians per call over {rounds} rounds:")
    hdr = f"{'call':<8}" + "".join(f" {m + ' insns':>18} {'ns':>6}" for m in modes)
    hdr += "".join(f" {m + ' ev':>15}" for m in modes if m != "idle")
    hdr += f" {'kernel%':>7} {'spread%':>7}"
    p(hdr)
    p("-" * len(hdr))
    for kind, by in ann.items():
        line = f"{kind:<8}"
        line += "".join(f" {fmt(by[m]['insns_per_call'], 0, 18)} {fmt(by[m]['ns_per_call'], 0, 6)}"
                        for m in modes)
        line += "".join(f" {fmt(by[m]['events_per_call'], 2, 15)}" for m in modes if m != "idle")
        kern = max((x["kernel_share"] for x in by.values() if x["kernel_share"] is not None),
                   default=None)
        line += f" {fmt(kern * 100 if kern is not None else None, 1, 7)}"
        line += f" {fmt(max((x['spread'] or 0) for x in by.values()), 1, 7)}"
        p(line)
    p("write: write() of \"bench: annotation\\n\" (a UserLog); log: gotrace_log() (GOTRACE_LOG);")
    p("region: gotrace_region_begin() and gotrace_region_end(), with its name; task:")
    p("gotrace_task_begin() and gotrace_task_end() (with no session recording the begin fails with")
    p("ENODATA, the id is 0 and the client makes no end call); enotty: an ioctl the device does not")
    p("know, the floor of a call. idle: no session recording (ENODATA, taken for success); gotrace,")
    p("gotrace-1.26: within one session of each format, its reader asleep (8 MiB buffers, never a")
    p("quarter full). ns: guest time per call (icount: 1 instruction = 1 ns, so it follows insns). ev: Go")
    p("events the session gained per call. kernel%: the largest kernel share of any mode; spread%:")
    p("the largest (max - min) / median of insns over the rounds.")
    for x in sessions:
        p(f"session {x['mode']}: {fmt(x['events'])} Go events, {fmt(x['bytes'])} bytes,"
          f" lost {x['lost']}, cut {x['cut']}; trace {x['trace']}")
    p("")
    return "\n".join(out)


def flight_table(work):
    """The flight recorder's windows beside the 1.26 streaming ones."""
    out = []
    p = out.append
    buf = next((s["flight"]["buffer"] for s in work.values() if s.get("flight")), None)
    p("flight recorder: 1.26 format with GOTRACE_START_FLIGHT, "
      f"{fmt(div(buf, 1024)) if buf else '?'} KiB/CPU rings that overflow, no reader, same rounds:")
    hdr = (f"{'workload':<9} {'1.26 insns':>11} {'flight insns':>12} {'flight/1.26':>11}"
           f" {'w/o fixed':>9} {'1.26 marg/ev':>12} {'flight marg/ev':>14} {'1.26 events':>11}"
           f" {'flight events':>13} {'1.26 gens':>9} {'flight gens':>11} {'dropped':>8}"
           f" {'spread%':>7}")
    p(hdr)
    p("-" * len(hdr))
    for name, s in work.items():
        m, f = s.get("modern"), s.get("flight")
        if not f:
            continue
        m = m or {}
        p(f"{name:<9} {fmt(m.get('gotrace_overhead'), 0, 11)} {fmt(f['gotrace_overhead'], 0, 12)}"
          f" {fmt(div(f['gotrace_overhead'], m.get('gotrace_overhead')), 3, 11)}"
          f" {fmt(div(f.get('marginal_overhead'), m.get('marginal_overhead')), 3, 9)}"
          f" {fmt(m.get('marginal_insns_per_event'), 1, 12)}"
          f" {fmt(f.get('marginal_insns_per_event'), 1, 14)}"
          f" {fmt(m.get('events'), 0, 11)} {fmt(f['events'], 0, 13)}"
          f" {fmt(m.get('gens'), 0, 9)} {fmt(f['gens'], 0, 11)}"
          f" {fmt(f['chunks_dropped'], 0, 8)} {fmt(f['spread_gotrace_overhead'], 1, 7)}")
    p("flight/1.26: the flight window's overhead over the 1.26 streaming one's (the streaming")
    p("window also holds its reader; the flight window frees its rings with a read() of end of")
    p("file after STOP). w/o fixed: the same after taking off each mode's empty-workload overhead")
    p("(its rings are smaller); marg/ev: that overhead over the Go events beyond the empty")
    p("workload's. gens: generations started. dropped: chunks_dropped, the chunks (a page each)")
    p("the rings overwrote, median over the rounds. spread%: of the flight overhead, as below.")
    pp = work.get("pingpong", {}).get("flight")
    if pp and not pp["chunks_dropped_min"]:
        p(f"WARNING: the flight recorder dropped no chunk on the ping-pong in some round"
          f" ({pp['chunks_dropped_rounds']}): its drop path was not measured; lower"
          " --flight-buffer-kb")
    elif not pp:
        p("note: no ping-pong window: whether the flight recorder's rings overflow was not checked")
    p("")
    return "\n".join(out)


def trigger_table(work):
    """The flight recorder's windows with a latency trigger beside those without."""
    out = []
    p = out.append
    lat = next((s["trigger"]["latency_ns"] for s in work.values() if s.get("trigger")), None)
    p("latency trigger: the flight recorder's windows again with latency_ns "
      f"{fmt(div(lat, 1e6)) if lat else '?'} ms, armed by GOTRACE_TRIGGER|NOWAIT after START"
      " (never reached), same rounds:")
    hdr = (f"{'workload':<9} {'flight insns':>12} {'trigger insns':>13} {'trig/flight':>11}"
           f" {'w/o fixed':>9} {'trig-flight':>11} {'flight marg/ev':>14} {'trig marg/ev':>12}"
           f" {'extra/ev':>8} {'extra/unit':>10} {'trig events':>11} {'fired':>5}"
           f" {'spread%':>7}")
    p(hdr)
    p("-" * len(hdr))
    for name, s in work.items():
        f, t = s.get("flight"), s.get("trigger")
        if not t:
            continue
        f = f or {}
        p(f"{name:<9} {fmt(f.get('gotrace_overhead'), 0, 12)} {fmt(t['gotrace_overhead'], 0, 13)}"
          f" {fmt(div(t['gotrace_overhead'], f.get('gotrace_overhead')), 3, 11)}"
          f" {fmt(div(t.get('marginal_overhead'), f.get('marginal_overhead')), 3, 9)}"
          f" {fmt(t['minus_flight'], 0, 11)}"
          f" {fmt(f.get('marginal_insns_per_event'), 1, 14)}"
          f" {fmt(t.get('marginal_insns_per_event'), 1, 12)}"
          f" {fmt(t.get('extra_insns_per_event'), 1, 8)}"
          f" {fmt(t.get('extra_insns_per_unit'), 1, 10)}"
          f" {fmt(t['events'], 0, 11)} {fmt(t['triggers'], 0, 5)}"
          f" {fmt(t['spread_minus_flight'], 1, 7)}")
    p("flight insns, trigger insns: overheads over the untraced window; trig/flight their ratio,")
    p("w/o fixed the same after taking off each mode's empty-workload overhead; marg/ev: those")
    p("over the Go events beyond the empty workload's. trig-flight: the trigger window minus the")
    p("same round's flight window (median); extra/ev: that minus the empty workload's, over the Go")
    p("events beyond the empty workload's: what the trigger's stamps and checks cost per Go event")
    p("(extra/unit: per round trip, fork, acquisition). fired: triggers (max over the rounds),")
    p("which must be 0. spread%: of trig-flight, (max - min) / median over the rounds.")
    for name, s in work.items():
        t = s.get("trigger")
        if not t:
            continue
        if t["triggers"]:
            p(f"WARNING: the latency trigger fired in {name}'s windows ({t['triggers_rounds']}):"
              " raise --trigger-latency-ms")
        fe = med(t["flight_events_rounds"])
        if fe and abs(t["events"] - fe) > fe / 1000:
            p(f"note: {name}: the trigger windows recorded {t['events_rounds']} Go events, the"
              f" flight windows {t['flight_events_rounds']}: extra/ev holds the difference's cost")
    p("")
    return "\n".join(out)


def table(summary, meta, guest):
    out = []
    p = out.append
    p("gotrace benchmark: " + ", ".join(f"{k} {v}" for k, v in meta.items()))
    for info in guest["info"]:
        p("guest: " + ", ".join(f"{k} {v}" for k, v in info.items()))
    p("Guest instructions counted by a QEMU TCG plugin; medians over the rounds. Overhead = traced")
    p("window - the same round's untraced window; gotrace's window holds START, the workload, STOP")
    p("and its reader to end of file; ftrace's holds tracing_on 1, the workload, tracing_on 0.")
    p("")
    work = summary["workloads"]
    hdr = (f"{'workload':<9} {'units':>6} {'Go events':>10} {'gotrace insns':>14} {'ftrace insns':>13}"
           f" {'ratio':>7} {'w/o fixed':>9} {'gotrace B':>10} {'ftrace B':>10} {'ratio':>6}"
           f" {'insns/ev':>9} {'B/ev':>5}")
    p(hdr)
    p("-" * len(hdr))
    for name, s in work.items():
        p(f"{name:<9} {fmt(s['units'], 0, 6)} {fmt(s['events'], 0, 10)}"
          f" {fmt(s['gotrace_overhead'], 0, 14)} {fmt(s['ftrace_overhead'], 0, 13)}"
          f" {fmt(s['overhead_ratio'], 3, 7)} {fmt(s.get('marginal_ratio'), 3, 9)}"
          f" {fmt(s['gotrace_bytes'], 0, 10)} {fmt(s['ftrace_bytes'], 0, 10)}"
          f" {fmt(s['bytes_ratio'], 3, 6)} {fmt(s['insns_per_event'], 0, 9)}"
          f" {fmt(s['bytes_per_event'], 2, 5)}")
    p("")
    p("units: ping-pong round trips, forks, mutex acquisitions (all threads). 'w/o fixed' is the ratio")
    p("after taking off each tracer's empty-workload overhead (a session's fixed cost).")
    p("")
    if any("modern" in s for s in work.values()):
        p("both formats: 1.21 (Go's pre-1.22 format, the default) and 1.26 (generations), same rounds:")
        hdr = (f"{'workload':<9} {'1.21 insns':>11} {'1.26 insns':>11} {'1.26/1.21':>9}"
               f" {'1.21 ins/ev':>11} {'1.26 ins/ev':>11} {'1.21 B':>9} {'1.26 B':>9}"
               f" {'1.21 B/ft':>9} {'1.26 B/ft':>9} {'1.26 events':>11} {'1.21 ev/u':>9}"
               f" {'1.26 ev/u':>9} {'ft ent/u':>8} {'1.26 B/u':>8}")
        p(hdr)
        p("-" * len(hdr))
        for name, s in work.items():
            m = s.get("modern")
            if not m:
                continue
            p(f"{name:<9} {fmt(s['gotrace_overhead'], 0, 11)} {fmt(m['gotrace_overhead'], 0, 11)}"
              f" {fmt(div(m['gotrace_overhead'], s['gotrace_overhead']), 3, 9)}"
              f" {fmt(s['insns_per_event'], 0, 11)} {fmt(m['insns_per_event'], 0, 11)}"
              f" {fmt(s['gotrace_bytes'], 0, 9)} {fmt(m['gotrace_bytes'], 0, 9)}"
              f" {fmt(s['bytes_ratio'], 3, 9)} {fmt(m['bytes_ratio'], 3, 9)}"
              f" {fmt(m['events'], 0, 11)} {fmt(s['events_per_unit'], 2, 9)}"
              f" {fmt(m['events_per_unit'], 2, 9)}"
              f" {fmt(div(s['ftrace_entries'], s['units']), 2, 8)}"
              f" {fmt(div(m['gotrace_bytes'], m['units']), 1, 8)}")
        p("B/ft: trace bytes over ftrace's ring-buffer bytes for the same workload. Events differ:")
        p("the 1.26 format writes a blocked-and-woken system call as 3 events where 1.21 needs 6.")
        p("ev/u, ent/u, B/u: Go events, ftrace entries, 1.26 bytes per unit (round trip, fork,")
        p("acquisition). Under SCHED_OTHER (pp-other) a round trip whose wakeup preempts the waker")
        p("takes fewer events than one that blocks, and each tracer's windows take a different mix.")
        p("")
    if any("flight" in s for s in work.values()):
        p(flight_table(work))
    if any("trigger" in s for s in work.values()):
        p(trigger_table(work))
    hdr = (f"{'workload':<9} {'untraced':>13} {'events/unit':>11} {'gt insns/ev':>11}"
           f" {'w/o fixed':>9} {'gt kernel%':>10} {'ft entries':>10} {'ft insns/ent':>12}"
           f" {'ft B/ent':>8} {'idle probes':>11}")
    p(hdr)
    p("-" * len(hdr))
    for name, s in work.items():
        kern = div(s["gotrace_overhead_kernel"], s["gotrace_overhead"])
        p(f"{name:<9} {fmt(s['untraced'], 0, 13)} {fmt(s['events_per_unit'], 2, 11)}"
          f" {fmt(s['insns_per_event'], 0, 11)} {fmt(s.get('marginal_insns_per_event'), 0, 9)}"
          f" {fmt(kern * 100 if kern is not None else None, 1, 10)}"
          f" {fmt(s['ftrace_entries'], 0, 10)} {fmt(s['ftrace_insns_per_entry'], 0, 12)}"
          f" {fmt(s['ftrace_bytes_per_entry'], 1, 8)} {fmt(s['idle_probes'], 0, 11)}")
    p("")
    p("idle probes: untraced - bare (the same windows before gotrace.ko was loaded): what gotrace's")
    p("probes cost while attached and idle. gt kernel%: share of gotrace's overhead in kernel mode.")
    p("")
    p("repeatability, (max - min) / median over the rounds, %:")
    hdr = (f"{'workload':<9} {'untraced':>9} {'gotrace':>8} {'ftrace':>7} {'gt overhead':>12}"
           f" {'ft overhead':>12} {'Go events':>10}")
    p(hdr)
    for name, s in work.items():
        p(f"{name:<9} {fmt(s['spread_untraced'], 2, 9)} {fmt(s['spread_gotrace'], 2, 8)}"
          f" {fmt(s['spread_ftrace'], 2, 7)} {fmt(s['spread_gotrace_overhead'], 1, 12)}"
          f" {fmt(s['spread_ftrace_overhead'], 1, 12)} {fmt(spread(s['events_rounds']), 1, 10)}")
    p("")

    snap = summary["snapshot"]
    if snap:
        p("start snapshot: GOTRACE_START alone in a window (allocation included), medians of "
          f"{max(x['reps'] for x in snap.values())}:")
        hdr = (f"{'extra threads':>13} {'START insns':>12} {'START wall ms':>13}"
               f" {'stopped world ms':>16} {'callback ms':>11} {'Go events':>10} {'bytes':>9}"
               f" {'memory KiB':>10} {'thread KiB':>10}")
        p(hdr)
        for threads, x in snap.items():
            p(f"{threads:>13} {fmt(x['insns'], 0, 12)} {fmt(div(x['start_ns'], 1e6), 2, 13)}"
              f" {fmt(div(x['stopped_world_ns'], 1e6), 3, 16)}"
              f" {fmt(div(x['stopped_cb_ns'], 1e6), 3, 11)}"
              f" {fmt(x['events'], 0, 10)} {fmt(x['bytes'], 0, 9)}"
              f" {fmt(x['mem_kib'], 0, 10)} {fmt(x['thread_kib'], 0, 10)}")
        ts = sorted(snap)
        if len(ts) >= 2 and ts[-1] > ts[0]:
            lo, hi = snap[ts[0]], snap[ts[-1]]
            n = ts[-1] - ts[0]
            p(f"per extra thread: {fmt(div(hi['insns'] - lo['insns'], n), 0)} insns,"
              f" {fmt(div(hi['stopped_world_ns'] - lo['stopped_world_ns'], n), 1)} ns of stopped world,"
              f" {fmt(div(hi['bytes'] - lo['bytes'], n), 1)} bytes")
        p(f"Times are guest time ({meta.get('clock', 'TCG')}); the stopped world is multi_cpu_stop()")
        p("and the callback the module's gotrace_snapshot_stopped(), timed by function_graph.")
        p("memory: MemAvailable before START less after it, the session recording (buffers,")
        p("per-thread state); thread KiB: that state, as GOTRACE_STATUS's thread_bytes gives it")
        p("(0 from a module older than the field).")
        p("")

    f = summary.get("filter")
    if f:
        p(f"filters: ping-pong recorded (format 1.21) and filtered out (only process 1 traced),"
          f" medians of {f['recorded']['rounds']}:")
        p(f"{'mode':<14} {'insns':>12} {'overhead':>10} {'marginal':>10} {'Go events':>10}"
          f" {'bytes':>9} {'insns/event':>12}")
        for m in ("untraced", "recorded", "filtered", "recorded-empty", "filtered-empty"):
            x = f[m]
            p(f"{m:<14} {fmt(x['insns'], 0, 12)} {fmt(x.get('overhead'), 0, 10)}"
              f" {fmt(x.get('marginal'), 0, 10)} {fmt(x['events'], 0, 10)}"
              f" {fmt(x['bytes'], 0, 9)} {fmt(x.get('insns_per_event'), 1, 12)}")
        p("marginal: the overhead minus the session's empty window (START, snapshot, STOP, reader);")
        p("insns/event: marginal over the Go events the recording writes beyond its empty")
        p(f"session's (the scheduler events both see); bytes saved: {fmt(f['bytes_saved'])}")
        p("")

    for version, sm in (summary.get("samples") or {}).items():
        p(f"CPU samples: reads of /dev/zero recorded (format {version}) without and with samples at"
          f" {sm['hz']} Hz, medians of {sm['sampled']['rounds']}:")
        p(f"{'mode':<14} {'insns':>12} {'Go events':>10} {'bytes':>9}")
        for m in ("recorded", "sampled", "recorded-empty", "sampled-empty"):
            x = sm[m]
            p(f"{m:<14} {fmt(x['insns'], 0, 12)} {fmt(x['events'], 0, 10)} {fmt(x['bytes'], 0, 9)}")
        p(f"samples: {fmt(sm['samples'])} written, {fmt(sm['dropped'])} dropped; per sample:"
          f" {fmt(sm['insns_per_sample'], 0)} insns (timer interrupt, handler, unwind, event;"
          f" the empty windows' difference, {fmt(sm['fixed'])} insns to create and release"
          f" the events, taken off) and {fmt(sm['bytes_per_sample'], 1)} bytes;")
        p(f"a busy CPU at {sm['hz']} Hz adds {fmt(sm['bytes_per_s_per_cpu'], 0)} bytes/s to the trace")
        p("")
    if summary.get("parts"):
        p(parts_table(summary["parts"]))
    if summary.get("annotate"):
        p(annotate_table(summary["annotate"], guest["ann"]))

    rate = summary["rate"]
    if rate:
        p(f"highest sustained rate: paced ping-pong recorded by gotrace with a"
          f" {rate[0]['buffer'] // 1024} KiB/CPU buffer, reader on tmpfs:")
        p(f"{'target rt/s':>11} {'rt/s':>8} {'Go events/s':>12} {'bytes/s':>10} {'lost':>6}")
        for r in rate:
            p(f"{(str(r['target']) if r['target'] else 'unpaced'):>11}"
              f" {fmt(r['round_trips_per_s'], 0, 8)} {fmt(r['events_per_s'], 0, 12)}"
              f" {fmt(r['bytes_per_s'], 0, 10)} {fmt(r['lost'], 0, 6)}")
        rs = summary["rate_summary"]
        line = (f"max sustained with nothing lost: {fmt(rs['max_sustained_events_per_s'])} Go events/s"
                " of guest time")
        if rs["first_lossy"]:
            line += f"; first loss at {fmt(rs['first_lossy']['events_per_s'])} events/s"
        else:
            line += ";\nnothing lost at any step: the guest's one CPU, not the reader, set the limit"
        p(line)
        p("")
    for n in guest["note"]:
        p(n)
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("guest")
    ap.add_argument("windows")
    ap.add_argument("--meta", action="append", default=[])
    ap.add_argument("--json")
    a = ap.parse_args()

    guest = read_guest(a.guest)
    counts, problems, end = read_windows(a.windows)
    if problems:
        fail(f"{a.windows}: the guest's markers did not pair up: {problems}")
    timed = guest["win"] + guest["snap"] + guest["filt"] + guest["samp"] + guest["part"]
    seqs = [x["seq"] for x in timed]
    if sorted(seqs) != list(range(len(seqs))) or sorted(counts) != sorted(seqs):
        fail(f"guest windows {sorted(seqs)[:5]}... ({len(seqs)}) and plugin windows "
             f"({len(counts)}) do not match")
    if not guest["done"]:
        fail(f"{a.guest}: the guest program did not finish")
    for x in timed:
        x["insns"], x["kernel_insns"] = counts[x["seq"]]
    meta = dict(m.split("=", 1) for m in a.meta)
    summary = summarize(guest, counts)
    text = table(summary, meta, guest)
    print(text)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"meta": meta, "info": guest["info"], "windows": guest["win"],
                       "snapshot_windows": guest["snap"], "filter_windows": guest["filt"],
                       "samples_windows": guest["samp"], "parts_windows": guest["part"],
                       "rate_steps": guest["rate"], "annotate_sessions": guest["ann"],
                       "summary": summary, "table": text}, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
