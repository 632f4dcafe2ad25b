#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Check *.trace files with Go's own readers and every `go tool trace` page; print TAP.
#
# Usage: scripts/go-check.sh DIR_OR_FILE...
#   Directories are searched recursively for *.trace; files are checked whatever their name.
#   Exit 0 only if every check of every trace passed; 1 on any failure (or no traces at all);
#   2 on bad usage.
#
# Four TAP tests per trace:
#   go1.OLD parse   `go tool trace -d FILE` of the old parser exits 0. OLD comes from the
#                   16-byte header: 1.11 and 1.19 traces -> Go 1.19, 1.21 traces -> Go 1.21
#                   (the newest parser of each format). Any other header fails here.
#   go1.23 parse    `go tool trace -d=1 FILE` of Go 1.23 exits 0. Go 1.23's -d is an int:
#                   1 = read every event through internal/trace.Reader, i.e. the old-trace
#                   converter every current Go uses (2 would only dump raw events).
#   go1.OLD pages   the web UI of the old cmd/trace serves every page (rules below).
#   go1.23 pages    the same for Go 1.23's rewritten cmd/trace.
#
# Pages: the tool binary `go tool trace` execs ($(go env GOTOOLDIR)/trace, so the server is
# our direct child and dies by pid) runs as `trace -http=127.0.0.1:0 FILE` with BROWSER=true
# (cmd/internal/browser tries $BROWSER first; `true` "succeeds" at once) and DISPLAY unset.
# It listens before parsing; we wait for its "Trace viewer is listening on http://..." log line
# (printed after parsing and splitting, polled every 0.2 s, deadline GO_CHECK_TIMEOUT, default
# 120 s; the process exiting first is a failure), then GET, each within the same deadline:
#
#   page (old path -> 1.23 path)   real content (both versions unless said)
#   /                              200, "cmd/trace: the Go trace event viewer", a "View trace"
#                                  link, ends with </html> (templates that fail midway still
#                                  answer 200, so the closing tag proves the whole page)
#   /jsontrace                     200, a JSON object: "traceEvents" array holding at least one
#                                  execution slice (ph "X"), "stackFrames" object. cmd/trace logs
#                                  and returns 200 with a cut body on error, so the JSON parse is
#                                  the real check. 1.23 also: /jsontrace?view=thread (its "/"
#                                  links a thread view; old versions have none).
#   /goroutines                    200, </html>; old: "Goroutines:" and >= 1 group link
#                                  <a href="/goroutine?id=PC">; 1.23: an HTML <table> with
#                                  >= 1 row linking /goroutine?name=NAME. Then the first group:
#                                  /goroutine?id=PC (old) / ?name=NAME (1.23): 200,
#                                  <table class="details">, </html>; then that page's first
#                                  goroutine view /trace?goid=N, whose data is /jsontrace?goid=N:
#                                  same JSON rule as /jsontrace.
#   /io /block /syscall /sched ?raw=1
#                                  200, Content-Type application/octet-stream, no X-Go-Pprof
#                                  error header, gzip-compressed pprof protobuf that the same
#                                  Go's `pprof -raw` reads (profiles may hold no samples).
#   /usertasks                     200, <th>Task type</th> table, </html>
#   /userregions                   200, <th>Region type</th> table, </html>
#   /mmu                           200, the static MMU page (old: requests /mmuPlot; 1.23:
#                                  ?mode=plot), plus the data it loads with its default options:
#                                  old /mmuPlot?flags=system|stw|background|assist ->
#                                  1.23 /mmu?mode=plot&flags=system|stw|background|assist:
#                                  JSON with a non-empty "curve" of [x, y...] points, xMin, xMax.
#
# After the pages the server must still be running, and its stderr must hold only cmd/trace's
# progress lines: a panic ("http: panic serving"), a handler's "failed to ..." log, Go 1.23's
# "Encountered error, but able to proceed" (a trace it only partly read) or anything else
# unexpected fails the test. Failing tests show the cause and the tool's stderr as "# " lines.
#
# Environment: GO_1_19, GO_1_21, GO_1_23 = go binaries (defaults /usr/lib/go-1.XX/bin/go);
# GO_CHECK_TIMEOUT = seconds per step (default 120); GO_CHECK_JOBS = traces checked at once
# (default: the number of CPUs; results are printed in order either way). Needs curl,
# python3, gzip.
set -eu

PROG=${0##*/}
# shellcheck source=scripts/go-trace-lib.sh
. "$(dirname "$0")/go-trace-lib.sh"
MMU_FLAGS='system%7Cstw%7Cbackground%7Cassist'

if [ $# -eq 0 ]; then
	echo "usage: $PROG DIR_OR_FILE... (checks every *.trace with Go's readers; prints TAP)" >&2
	exit 2
fi
check_timeout
need_commands curl python3 gzip timeout
find_go_tools
collect_traces '*.trace' "$@"
make_work go-check
JOBS=${GO_CHECK_JOBS:-$(nproc)}
case $JOBS in
'' | *[!0-9]* | 0) bail "GO_CHECK_JOBS must be a positive number, not '$JOBS'" ;;
esac

# Validate a JSON page body: python3 - KIND FILE; prints the problem and exits 1 if bad.
JSON_CHECK='
import json, re, sys
kind, path = sys.argv[1], sys.argv[2]
def bad(msg):
    print(msg)
    sys.exit(1)
try:
    with open(path, "rb") as f:
        doc = json.load(f)
except Exception as e:
    bad("not valid JSON (cmd/trace logs the error and cuts the body short): %s" % e)
if not isinstance(doc, dict):
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
    if not slices:
        bad("traceEvents has %d events but no execution slice (ph X): the timeline would be empty" % len(evs))
    # Print the id of the first goroutine seen running (slice "G<id> <start function>").
    for e in slices:
        m = re.match(r"G([0-9]+)( |$)", str(e.get("name", "")))
        if m:
            print(m.group(1))
            break
    else:
        bad("no goroutine execution slice (ph X named G<id> ...) among %d slices" % len(slices))
elif kind == "mmu":
    curve = doc.get("curve")
    if not isinstance(curve, list) or not curve:
        bad("no non-empty curve array")
    if not all(isinstance(p, list) and len(p) >= 2 and all(isinstance(x, (int, float)) for x in p) for p in curve):
        bad("curve holds a point that is not [window, utilization...]")
    for k in ("xMin", "xMax"):
        if not isinstance(doc.get(k), (int, float)):
            bad("no numeric %s" % k)
else:
    bad("unknown kind " + kind)
'

# Lines cmd/trace prints while healthy (after the "YYYY/MM/DD HH:MM:SS " log prefix).
BENIGN='^(Parsing trace\.\.\.|Splitting trace\.\.\.|Preparing trace for viewer\.\.\.|Splitting trace for viewer\.\.\.|Opening browser\. Trace viewer is listening on http://[^ ]+|[0-9.]+ [KMGT]?i?B of [0-9.]+ [KMGT]?i?B \([0-9.]+%\) processed\.\.\.)$'

# need_grep PATH DESCRIPTION ERE: the body of PATH must match ERE.
need_grep() {
	if ! grep -Eq -- "$3" "$W/body"; then
		problem "GET $1: $2 missing (no match for /$3/)"
		excerpt
		return 1
	fi
}

# check_json PATH KIND: GET PATH, require 200 and JSON_CHECK KIND to pass. Sets JSON_OUT
# to what the check printed on success (for jsontrace: a goroutine seen running, if any).
check_json() {
	local out
	JSON_OUT=
	get_ok "$1" || return 0
	if ! out=$(python3 -c "$JSON_CHECK" "$2" "$W/body" 2>&1); then
		problem "GET $1: $out"
		excerpt
		return 0
	fi
	JSON_OUT=$out
}

# check_pprof PATH PPROF: a raw pprof profile that PPROF (cmd/pprof) can read.
check_pprof() {
	local out
	get_ok "$1" || return 0
	if grep -qi '^X-Go-Pprof:' "$W/hdr"; then
		problem "GET $1: X-Go-Pprof error header set"
		excerpt
		return 0
	fi
	if ! grep -qi '^Content-Type: application/octet-stream' "$W/hdr"; then
		problem "GET $1: Content-Type $(grep -i '^Content-Type:' "$W/hdr" | tr -d '\r'), want application/octet-stream"
		return 0
	fi
	if ! gzip -t <"$W/body" 2>/dev/null; then
		problem "GET $1: body is not a gzip-compressed pprof profile"
		excerpt
		return 0
	fi
	if ! out=$("$2" -symbolize=none -raw "$W/body" 2>&1 >/dev/null); then
		problem "GET $1: pprof cannot read the profile: $out"
	fi
}

# check_html PATH END DESCRIPTION ERE...: 200, each ERE matches, and the page is complete:
# its last non-blank line is END (a template failing midway still answers 200, cut short).
check_html() {
	local path=$1 end=$2 what=$3 last
	shift 3
	get_ok "$path" || return 0
	for re in "$@"; do
		need_grep "$path" "$what" "$re" || return 0
	done
	last=$(grep -v '^[[:space:]]*$' "$W/body" | tail -n 1 | tr -d '\r')
	if [ "${last#"${last%%[![:space:]]*}"}" != "$end" ]; then
		problem "GET $path: page cut short: last line '$last', want '$end' (a template failed midway?)"
		tail -c 300 "$W/body" | tr -c '[:print:]\n' '?' | sed 's/^/    | /' >>"$W/problems"
	fi
}

# Run every page check against one server. $1: old or new (Go 1.23), $2: pprof binary.
check_all_pages() {
	local flavor=$1 pprof=$2 link links goid

	check_html / '</html>' "main page" 'cmd/trace: the Go trace event viewer' 'View trace'

	check_json /jsontrace jsontrace
	goid=$JSON_OUT
	[ "$flavor" = new ] && check_json '/jsontrace?view=thread' jsontrace
	# The goroutine-oriented view (/trace?goid=N loads /jsontrace?goid=N), for a goroutine the
	# full view shows running, so it must show an execution slice too.
	[ -n "$goid" ] && check_json "/jsontrace?goid=$goid" jsontrace

	# Goroutine analysis and the page of its first named group (the unnamed group, if any,
	# holds goroutines without a start stack or, in 1.21+, that never ran).
	if [ "$flavor" = old ]; then
		check_html /goroutines '</html>' "goroutine group list" 'Goroutines:' 'href="/goroutine\?id=[0-9]+"'
		links=$(grep -Eo '<a href="/goroutine\?id=[0-9]+">[^<]' "$W/body" || true)
		[ -n "$links" ] || links=$(grep -Eo 'href="/goroutine\?id=[0-9]+"' "$W/body" || true)
	else
		check_html /goroutines '</html>' "goroutine group table" '<table' '<td><code><a href="/goroutine\?name=[^"]*"'
		links=$(grep -Eo 'href="/goroutine\?name=[^"]+"' "$W/body" || true)
		[ -n "$links" ] || links=$(grep -Eo 'href="/goroutine\?name=[^"]*"' "$W/body" || true)
	fi
	link=$(printf '%s\n' "$links" | head -n 1 | grep -Eo '/goroutine\?[^"]*' || true)
	if [ -n "$link" ]; then
		link=${link//&amp;/&}
		check_html "$link" '</table>' "goroutine table" '<table class="details">' 'href="/trace\?goid=[0-9]+"'
	fi

	for p in io block syscall sched; do
		check_pprof "/$p?raw=1" "$pprof"
	done

	check_html /usertasks '</html>' "task table" '<th>Task type</th>'
	check_html /userregions '</html>' "region table" '<th>Region type</th>'

	if [ "$flavor" = old ]; then
		check_html /mmu '</html>' "MMU page" 'mmuPlot'
		check_json "/mmuPlot?flags=$MMU_FLAGS" mmu
	else
		check_html /mmu '</html>' "MMU page" 'mode=plot'
		check_json "/mmu?mode=plot&flags=$MMU_FLAGS" mmu
	fi
}

# pages TRACE TRACEBIN PPROFBIN FLAVOR: serve TRACE and check every page; 0 if all good.
# Writes the diagnostics to $W/diag.
pages() {
	local file=$1 bin=$2 pprof=$3 flavor=$4
	: >"$W/problems"
	: >"$W/diag"
	serve_trace "$bin" "$file" || return 1

	check_all_pages "$flavor" "$pprof"

	if ! stop_server; then
		problem "server died (status $SRV_STATUS) while serving the pages"
	fi
	if grep -qi 'panic' "$W/srv.err"; then
		problem "server stderr reports a panic (a page handler crashed)"
	fi
	sed -E 's/^[0-9]{4}\/[0-9]{2}\/[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} //' "$W/srv.err" |
		grep -Ev "$BENIGN" >"$W/unexpected" || true
	if [ -s "$W/unexpected" ] || [ -s "$W/srv.out" ]; then
		problem "server printed unexpected output (errors, partial-trace warnings or panics):"
		cat "$W/unexpected" "$W/srv.out" | head -n 60 | sed 's/^/    /' >>"$W/problems"
	fi
	if [ -s "$W/problems" ]; then
		cat "$W/problems" >"$W/diag"
		echo "server stderr:" >>"$W/diag"
		cat "$W/srv.err" >>"$W/diag"
		return 1
	fi
	return 0
}

# parse_check BIN FLAG TRACE: run the tool's parse-and-dump mode; 0 if it exits 0.
parse_check() {
	local st=0
	# -http: Go 1.19/1.21 listen before they parse, and "localhost" needs /etc/hosts.
	timeout "$TIMEOUT" "$1" -http=127.0.0.1:0 "$2" "$3" </dev/null >/dev/null \
		2>"$W/parse.err" || st=$?
	if [ "$st" -eq 0 ]; then
		return 0
	fi
	if [ "$st" -eq 124 ]; then
		echo "timed out after ${TIMEOUT}s (raise GO_CHECK_TIMEOUT for huge traces); stderr:" >"$W/diag"
	else
		echo "'trace $2' exited with status $st; stderr:" >"$W/diag"
	fi
	cat "$W/parse.err" >>"$W/diag"
	return 1
}

# record STATUS DESCRIPTION DIAGFILE: a check_trace result, reported later in order.
record() {
	R=$((R + 1))
	echo "$1" >"$W/r$R.st"
	echo "$2" >"$W/r$R.desc"
	[ "$1" -eq 0 ] || cp "$3" "$W/r$R.diag"
}

# check_trace I TRACE: the four checks of one trace, into $WORK/I (run in a subshell, so
# that traces are checked JOBS at a time; the parent reports their results in order).
check_trace() {
	local t=$2 old tools st
	W=$WORK/$1 R=0 SRV=
	trap 'stop_server || true' EXIT
	mkdir "$W"

	trace_old_tools "$t"
	old=$OLD tools=$OLD_TOOLS

	if [ -z "$old" ]; then
		echo "$HDR_PROBLEM" >"$W/hdrdiag"
		record 1 "go1.?? parse: $t" "$W/hdrdiag"
	else
		st=0
		parse_check "$tools/trace" -d "$t" || st=1
		record "$st" "go$old parse: $t" "$W/diag"
	fi

	st=0
	parse_check "$TOOLS_1_23/trace" -d=1 "$t" || st=1
	record "$st" "go1.23 parse: $t" "$W/diag"

	if [ -n "$old" ]; then
		st=0
		pages "$t" "$tools/trace" "$tools/pprof" old || st=1
		record "$st" "go$old pages: $t" "$W/diag"
	else
		record 1 "go1.?? pages: $t" "$W/hdrdiag"
	fi

	st=0
	pages "$t" "$TOOLS_1_23/trace" "$TOOLS_1_23/pprof" new || st=1
	record "$st" "go1.23 pages: $t" "$W/diag"
}

echo "TAP version 13"
echo "1..$((4 * ${#TRACES[@]}))"

i=0
for t in "${TRACES[@]}"; do
	i=$((i + 1))
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do
		wait -n || true
	done
	check_trace "$i" "$t" &
done
wait

for i in $(seq 1 "${#TRACES[@]}"); do
	for r in 1 2 3 4; do
		W=$WORK/$i
		if [ -f "$W/r$r.st" ]; then
			report "$(cat "$W/r$r.st")" "$(cat "$W/r$r.desc")" "$W/r$r.diag"
		else
			echo "the check of ${TRACES[$((i - 1))]} ended early" >"$WORK/lost"
			report 1 "check $r of ${TRACES[$((i - 1))]}" "$WORK/lost"
		fi
	done
	rm -rf "$W"
done

if [ "$FAILED" -ne 0 ]; then
	echo "# $FAILED of $N checks failed" >&2
	exit 1
fi
exit 0
