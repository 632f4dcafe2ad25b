#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The page client of go-trace-lib.sh: GET pages over kept-alive HTTP, run checks on bodies.

Usage: page_client.py TIMEOUT [CHECKS.py]

Run once per shell as a coprocess (go-trace-lib.sh's py_ask): starting a process per request
(curl, python3) cost more than the pages themselves. TIMEOUT is seconds per request. CHECKS.py,
if given, is a file defining CHECKS (NAME -> function) and Bad, the exception a check raises to
fail (e.g. scripts/lib/go_pages.py). Requests on stdin are one line of TAB-separated fields,
answers on stdout one line:
  GET URL BODYFILE HDRFILE  ->  "CODE SIZE": the HTTP status and body bytes; the body and
                                the status line and headers in the files. Or "none WHY"
                                when no answer came (connection refused, or closed with no
                                response: what a handler's panic does), within TIMEOUT.
  NAME ARG...               ->  "ok<TAB>OUTPUT" or "bad<TAB>PROBLEM": CHECKS[NAME](ARG...),
                                which raises Bad(PROBLEM) to fail.
"""

import http.client
import importlib.util
import sys
import urllib.parse


class NoChecks(Exception):
    """Raised by no check: the client was started without CHECKS.py."""


def load_checks(path):
    """CHECKS and Bad of the file at path."""
    spec = importlib.util.spec_from_file_location("page_checks", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.CHECKS, mod.Bad


def get(conns, timeout, url, body, hdr):
    """GET url into the files body and hdr; the answer line."""
    u = urllib.parse.urlsplit(url)
    path = u.path + ("?" + u.query if u.query else "")
    for attempt in (0, 1):
        c = conns.get(u.netloc)
        fresh = c is None
        if fresh:
            c = conns[u.netloc] = http.client.HTTPConnection(u.netloc, timeout=timeout)
        try:
            c.request("GET", path)
            r = c.getresponse()
            size = 0
            with open(body, "wb") as f:
                while True:
                    chunk = r.read(1 << 20)
                    if not chunk:
                        break
                    f.write(chunk)
                    size += len(chunk)
            with open(hdr, "w") as f:
                f.write("HTTP/1.1 %d %s\r\n" % (r.status, r.reason))
                for k, v in r.getheaders():
                    f.write("%s: %s\r\n" % (k, v))
            if r.getheader("Connection", "").lower() == "close":
                c.close()
                del conns[u.netloc]
            return "%d %d" % (r.status, size)
        except Exception as e:
            c.close()
            conns.pop(u.netloc, None)
            # A kept-alive connection the server has since closed: once more, afresh.
            if fresh or attempt:
                open(body, "wb").close()
                return "none %s: %s" % (type(e).__name__, e)
    return "none no attempt"


def main(argv):
    timeout = float(argv[1])
    checks, bad = ({}, NoChecks) if len(argv) < 3 else load_checks(argv[2])
    conns = {}
    for line in sys.stdin:
        req = line.rstrip("\n").split("\t")
        if req[0] == "GET":
            out = get(conns, timeout, *req[1:])
        else:
            try:
                out = "ok\t" + str(checks[req[0]](*req[1:]))
            except bad as e:
                out = "bad\t" + str(e)
            except Exception as e:
                out = "bad\tchecker error: %r" % e
        sys.stdout.write(out.replace("\n", " ") + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
