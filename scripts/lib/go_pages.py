# SPDX-License-Identifier: GPL-2.0
"""go-check.sh's checks of the JSON pages of `go tool trace`, run in the page client.

Loaded by scripts/lib/page_client.py (`page_client.py TIMEOUT go_pages.py`, started by
go-trace-lib.sh's py_ask) as its CHECKS: the request "JSON KIND FILE" checks the JSON body in
FILE; KIND: jsontrace (a timeline: events, execution slices; the output is the first
goroutine seen running; a timeline where no goroutine ever runs may hold no slice, and its
output is empty), jsonview (a focused timeline: events), mmu (the MMU plot; output: a window
width), mmudetails (its worst windows; output: the first one's URL). A failed check raises
Bad(PROBLEM).
"""

import json
import re


class Bad(Exception):
    """A page that fails its check; the message says why."""


def bad(msg):
    raise Bad(msg)


def ran(evs):
    """Whether the timeline's Goroutines counter ever counts a goroutine running."""
    return any(e.get("name") == "Goroutines" and e["ph"] == "C"
               and (e.get("args") or {}).get("Running", 0) > 0 for e in evs)


def check(kind, path):
    out = []
    print_ = out.append
    try:
        with open(path, "rb") as f:
            doc = json.load(f)
    except Exception as e:
        bad("not valid JSON (cmd/trace logs the error and cuts the body short): %s" % e)
    if kind != "mmudetails" and not isinstance(doc, dict):
        bad("JSON is a %s, not an object" % type(doc).__name__)
    if kind == "jsontrace":
        evs = doc.get("traceEvents")
        if not isinstance(evs, list):
            bad("no traceEvents array")
        if not all(isinstance(e, dict) and "ph" in e for e in evs):
            bad("traceEvents holds entries without a ph field")
        if not isinstance(doc.get("stackFrames"), dict):
            bad("no stackFrames object")
        slices = [e for e in evs if e["ph"] == "X"]
        if not slices and not ran(evs):
            # No goroutine ever runs (a filter that traces only sleeping threads): the
            # timeline is rightly empty, and no goroutine's own view is there to check.
            return ""
        if not slices:
            bad("traceEvents has %d events but no execution slice (ph X): "
                "the timeline would be empty" % len(evs))
        # Print the id of the first goroutine seen running (slice "G<id> <start function>").
        for e in slices:
            m = re.match(r"G([0-9]+)( |$)", str(e.get("name", "")))
            if m:
                print_(m.group(1))
                break
        else:
            bad("no goroutine execution slice (ph X named G<id> ...) among %d slices" % len(slices))
    elif kind == "jsonview":
        evs = doc.get("traceEvents")
        if not isinstance(evs, list) or not evs:
            bad("no non-empty traceEvents array")
        if not all(isinstance(e, dict) and "ph" in e for e in evs):
            bad("traceEvents holds entries without a ph field")
        if not isinstance(doc.get("stackFrames"), dict):
            bad("no stackFrames object")
    elif kind == "mmudetails":
        if not isinstance(doc, list) or not doc:
            bad("not a non-empty list of windows")
        if not all(isinstance(w, dict) and str(w.get("URL", "")).startswith("/trace?")
                   for w in doc):
            bad("a window without a /trace?... URL")
        print_(doc[0]["URL"])
    elif kind == "mmu":
        curve = doc.get("curve")
        if not isinstance(curve, list) or not curve:
            bad("no non-empty curve array")
        if not all(isinstance(p, list) and len(p) >= 2 and
                   all(isinstance(x, (int, float)) for x in p) for p in curve):
            bad("curve holds a point that is not [window, utilization...]")
        for k in ("xMin", "xMax"):
            if not isinstance(doc.get(k), (int, float)):
                bad("no numeric %s" % k)
        # A window width to ask the details of (the plot page asks for the one clicked).
        print_(int(curve[len(curve) // 2][0]))
    else:
        bad("unknown kind " + kind)
    return "\n".join(str(x) for x in out)


CHECKS = {"JSON": check}
