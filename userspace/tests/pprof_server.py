#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A stand-in for a Go service's net/http/pprof, for tests/go_fetch.sh.

Usage: pprof_server.py TRACE PORT_FILE LOG_FILE [ADDRESS]

Listens on ADDRESS (default 127.0.0.1; a free port, written to PORT_FILE once it listens)
and answers
GET /debug/pprof/trace with TRACE's bytes, GET /busy/debug/pprof/trace with the HTTP 500
Go's handler gives when a trace is already running, and anything else with Go's 404.
Each request's path and query go to LOG_FILE, a line each.
"""
import http.server
import os
import sys

TRACE_PATH = "/debug/pprof/trace"


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        with open(self.server.log_path, "a", encoding="utf-8") as log:
            log.write(self.path + "\n")
        path = self.path.split("?", 1)[0]
        if path == TRACE_PATH:
            self.answer(200, "application/octet-stream", self.server.trace)
        elif path == "/busy" + TRACE_PATH:
            self.answer(500, "text/plain; charset=utf-8",
                        b"Could not enable tracing: tracing is already enabled\n")
        else:
            self.answer(404, "text/plain; charset=utf-8", b"404 page not found\n")

    def answer(self, status, ctype, body):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def main():
    trace_path, port_path, log_path = sys.argv[1:4]
    address = sys.argv[4] if len(sys.argv) > 4 else "127.0.0.1"
    server = http.server.HTTPServer((address, 0), Handler)
    with open(trace_path, "rb") as f:
        server.trace = f.read()
    server.log_path = log_path
    with open(port_path + ".tmp", "w", encoding="utf-8") as f:
        f.write("%d\n" % server.server_address[1])
    # Renamed whole: the test never reads half a port number.
    os.rename(port_path + ".tmp", port_path)
    server.serve_forever()


if __name__ == "__main__":
    main()
