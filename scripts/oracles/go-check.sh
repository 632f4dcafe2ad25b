#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Check *.trace files with Go's own readers and every `go tool trace` page; print TAP.
#
# Usage: scripts/oracles/go-check.sh [--parse-only] DIR_OR_FILE...
#   Directories are searched recursively for *.trace; files are checked whatever their name.
#   Exit 0 only if every check of every trace passed; 1 on any failure (or no traces at all);
#   2 on bad usage.
#
# The TAP tests of a trace depend on its format, which its 16-byte header says.
#
# Go's format before 1.22 (1.11, 1.19, 1.21): five tests (three with --parse-only):
#   go1.OLD parse   `go tool trace -d FILE` of the old parser exits 0. OLD comes from the
#                   16-byte header: 1.11 and 1.19 traces -> Go 1.19, 1.21 traces -> Go 1.21
#                   (the newest parser of each format). Any other header fails here.
#   go1.23 parse    `go tool trace -d=1 FILE` of Go 1.23 exits 0. Go 1.23's -d is an int:
#                   1 = read every event through internal/trace.Reader, i.e. the old-trace
#                   converter every current Go uses (2 would only dump raw events).
#   go1.27 parse    `go tool trace -d=parsed FILE` of Go 1.27 exits 0 (since 1.24 -d takes
#                   wire|parsed|footprint; parsed = every event through the same Reader).
#   go1.OLD pages   the web UI of the old cmd/trace serves every page (rules below).
#   go1.27 pages    the same for the rewritten cmd/trace of Go 1.22+, as Go 1.27, the newest
#                   Go, has it, and every other page its viewer links (below: "1.27 also").
#                   Go 1.23's pages are not fetched: its viewer is an older copy of the same
#                   code, and its profiles are the ones golang/go#74850 gets wrong.
#
# Go 1.22+'s format with generations (1.22, 1.23, 1.25, 1.26): every Go that reads the
# version parses it, and the pieces of it that start at a later generation:
#   go1.V parse     `trace -d=1 FILE` (Go 1.22, 1.23) or `trace -d=parsed FILE` (1.24 and
#                   later) of Go V exits 0, for each V that reads the trace's version: 1.22
#                   traces 1.22, 1.23, 1.24, 1.25, 1.26, 1.27; 1.23 traces the same but 1.22
#                   (which refuses "go 1.23 trace"); 1.25 traces 1.25, 1.26, 1.27; 1.26
#                   traces 1.26, 1.27.
#   go1.V cuts      the flight recorder's case, for the oldest and the newest of those V: the
#                   trace cut at each generation boundary (scripts/lib/gen_cut.py: the header and
#                   every batch of generations >= K, for each K > 1; batch framing only) and
#                   each piece parsed as above (with GO_CUTS=N, N pieces spread evenly from
#                   the first to the last). Skipped for a trace of one generation; kept
#                   with --parse-only.
#   go1.27 pages    as for the older formats (not with --parse-only).
#
# Go 1.22 and 1.24-1.26 come from scripts/setup/go-fetch.sh VERSION (cached in build/go, fetched
# only when there is a Go 1.22+ trace to check; a cold fetch takes minutes, see there).
#
# --parse-only leaves out the page checks: for traces whose pages the same tests'
# traces from other kernels already cover (make check-debug), at a fifth of the time.
#
# Go 1.27 is Debian trixie-backports' golang-1.27-go, which scripts/setup/go-fetch.sh downloads
# once into build/go/1.27 (it is never installed) with its trace and pprof tools built there:
# since Go 1.25 they are not prebuilt. The first run takes a few minutes for that.
#
# Pages: the trace tool binary (for Go 1.19 and 1.21 the one `go tool trace` execs, $(go env
# GOTOOLDIR)/trace; for 1.27 build/go/1.27/tool/trace; either way the server is our direct
# child and dies by pid) runs as `trace -http=127.0.0.1:0 FILE` with BROWSER=true
# (cmd/internal/browser tries $BROWSER first; `true` "succeeds" at once) and DISPLAY unset.
# It listens before parsing; we wait for its "Trace viewer is listening on http://..." log line
# (printed after parsing and splitting, polled every 0.2 s, deadline GO_CHECK_TIMEOUT, default
# 120 s; the process exiting first is a failure), then GET, each within the same deadline
# ("new" = Go 1.27's viewer, "1.27" below the pages only it is asked for):
#
#   page (old path -> new path)    real content (both viewers unless said)
#   /                              200, "cmd/trace: the Go trace event viewer", a "View trace"
#                                  link, ends with </html> (templates that fail midway still
#                                  answer 200, so the closing tag proves the whole page)
#   /jsontrace (old)               200, a JSON object: "traceEvents" array holding at least one
#                                  execution slice (ph "X") of a goroutine, "stackFrames"
#                                  object. cmd/trace logs and returns 200 with a cut body on
#                                  error, so the JSON parse is the real check.
#   1.27: every timeline "/" links /trace?view=proc and ?view=thread (a large trace: one link
#                                  per section, &start=S&end=E): each page 200, </html>, loads
#                                  /static/webcomponents.min.js and /jsontrace?SAME_PARAMS; the
#                                  static files it loads (once: 200, >= 1000 bytes); the JSON
#                                  of the first and last section of each view (rule above).
#                                  Not the whole-trace /jsontrace: that viewer loads it only as
#                                  /jsontrace?view=proc, for a trace of one section.
#   /goroutines                    200, </html>; old: "Goroutines:" and >= 1 group link
#                                  <a href="/goroutine?id=PC">; new: an HTML <table> with
#                                  >= 1 row linking /goroutine?name=NAME. Then the first group:
#                                  /goroutine?id=PC (old) / ?name=NAME (new): 200,
#                                  <table class="details">, </html>. Then a goroutine the
#                                  timeline shows running: /jsontrace?goid=N (1.27: the page
#                                  /trace?goid=N and its JSON), same JSON rule. 1.27 also: the
#                                  group's 4 profiles /io|block|syscall|sched?name=NAME&raw=1
#                                  (pprof rule below), its first /trace?goid=N, and the table
#                                  sorted by its second column (&sortby=COLUMN, as clicked).
#   /io /block /syscall /sched ?raw=1
#                                  200, Content-Type application/octet-stream, no X-Go-Pprof
#                                  error header, gzip-compressed pprof protobuf that the same
#                                  Go's `pprof -raw` reads (profiles may hold no samples).
#   /usertasks                     200, <th>Task type</th> table, </html>. 1.27 also: the first
#                                  two /usertask?type=T pages (</html>) and, for a task id >= 1,
#                                  /trace?focustask=ID and ?taskid=ID with their JSON (events
#                                  and stackFrames; a focused view may show no execution).
#                                  Task 0 is left out: cmd/trace 1.22+ links the background
#                                  task as /trace?focustask=0, then logs "failed to find task
#                                  with id 0" for it and sends no JSON, whatever the trace.
#   /userregions                   200, <th>Region type</th> table, </html>. 1.27 also: the
#                                  first two /userregion?type=T&pc=PC tables, their 4 profiles
#                                  /regionio|regionblock|regionsyscall|regionsched?...&raw=1 and
#                                  first /trace?goid=N and ?focustask=ID views.
#   /mmu                           200, the static MMU page (old: requests /mmuPlot; new:
#                                  ?mode=plot), plus the data it loads with its default options:
#                                  old /mmuPlot?flags=system|stw|background|assist -> new
#                                  /mmu?mode=plot&flags=...: JSON with a non-empty "curve" of
#                                  [x, y...] points, xMin, xMax. 1.27 also: a click on the
#                                  plot, /mmu?mode=details&window=X&flags=... (X: the curve's
#                                  middle window): a non-empty JSON list of worst windows,
#                                  each with a /trace?... URL; the first one's view.
#
# Not fetched: the SVG graphs of the profiles (/io, /block, ... without raw=1, and the
# per-group and per-region ones): cmd/trace renders them by running `go tool pprof -svg`,
# i.e. Graphviz's dot, on the very profile ?raw=1 serves, which `pprof -raw` reads here.
#
# After the pages the server must still be running, and its stderr must hold only cmd/trace's
# progress lines: a panic ("http: panic serving"), a handler's "failed to ..." log, Go 1.22+'s
# "Encountered error, but able to proceed" (a trace it only partly read) or anything else
# unexpected fails the test. Failing tests show the cause and the tool's stderr as "# " lines.
#
# Environment: GO_1_19, GO_1_21, GO_1_23 = go binaries (defaults /usr/lib/go-1.XX/bin/go);
# GO_1_22, GO_1_24, GO_1_25, GO_1_26, GO_1_27 = go binaries of those versions (default:
# scripts/setup/go-fetch.sh's); GO_CHECK_TIMEOUT =
# seconds per step (default 120); GO_CUTS = pieces per trace parsed by the cuts checks
# ("all", the default, or a number >= 2); GO_CHECK_JOBS = traces checked at once (default: the
# number of CPUs; results are printed in order either way). Needs python3 (it also GETs the
# pages: go-trace-lib.sh's page client), gzip, and apt-get and network access once, to
# fetch Go 1.27.
set -eu

PROG=${0##*/}
# shellcheck source=scripts/lib/go-trace-lib.sh
. "$(dirname "$0")/../lib/go-trace-lib.sh"
MMU_FLAGS='system%7Cstw%7Cbackground%7Cassist'

PARSE_ONLY=
if [ "${1:-}" = --parse-only ]; then
	PARSE_ONLY=1
	shift
fi
if [ $# -eq 0 ]; then
	echo "usage: $PROG [--parse-only] DIR_OR_FILE... (checks every *.trace with Go's readers; prints TAP)" >&2
	exit 2
fi
check_timeout
need_commands python3 gzip timeout
collect_traces '*.trace' "$@"
make_work go-check
JOBS=${GO_CHECK_JOBS:-$(nproc)}
CUTS=${GO_CUTS:-all}
case $CUTS in
all) ;;
'' | *[!0-9]* | 0 | 1) bail "GO_CUTS must be 'all' or a number of pieces >= 2, not '$CUTS'" ;;
esac
case $JOBS in
'' | *[!0-9]* | 0) bail "GO_CHECK_JOBS must be a positive number, not '$JOBS'" ;;
esac

# Validate JSON page bodies in the page client (go-trace-lib.sh's py_ask): the request
# "JSON KIND FILE" runs scripts/lib/go_pages.py's check (KIND: jsontrace, jsonview, mmu,
# mmudetails; see there).
PAGE_CHECKS=$LIBDIR/go_pages.py

# Lines cmd/trace prints while healthy (after the "YYYY/MM/DD HH:MM:SS " log prefix).
BENIGN='^(Parsing trace\.\.\.|Splitting trace\.\.\.|Preparing trace for viewer\.\.\.|Splitting trace for viewer\.\.\.|Opening browser\. Trace viewer is listening on http://[^ ]+|[0-9.]+ [KMGT]?i?B of [0-9.]+ [KMGT]?i?B \([0-9.]+%\) processed\.\.\.)$'

# need_grep PATH DESCRIPTION ERE: the page (in BODY) must match ERE.
need_grep() {
	if ! [[ $BODY =~ $3 ]]; then
		problem "GET $1: $2 missing (no match for /$3/)"
		excerpt
		return 1
	fi
}

# check_json PATH KIND: GET PATH, require 200 and the JSON check KIND to pass. Sets
# JSON_OUT to what the check printed on success (for jsontrace: a goroutine seen running).
check_json() {
	JSON_OUT=
	get_ok "$1" || return 0
	py_ask JSON "$2" "$W/body"
	case $REPLY in
	ok$'\t'*) JSON_OUT=${REPLY#ok$'\t'} ;;
	bad$'\t'*)
		problem "GET $1: ${REPLY#bad$'\t'}"
		excerpt
		;;
	*) problem "GET $1: the JSON check (python3) gave no answer in ${TIMEOUT}s" ;;
	esac
}

# check_pprof PATH PPROF: a raw pprof profile that PPROF (cmd/pprof) can read.
check_pprof() {
	local out hdr=
	get_ok "$1" || return 0
	IFS= read -r -d '' hdr <"$W/hdr" || true
	shopt -s nocasematch
	if [[ $hdr =~ (^|$'\n')X-Go-Pprof: ]]; then
		problem "GET $1: X-Go-Pprof error header set"
		excerpt
	elif ! [[ $hdr =~ (^|$'\n')Content-Type:\ application/octet-stream ]]; then
		problem "GET $1: Content-Type $(grep -i '^Content-Type:' "$W/hdr" | tr -d '\r'), want application/octet-stream"
	elif ! out=$("$2" -symbolize=none -raw "$W/body" 2>&1 >/dev/null); then
		if gzip -t <"$W/body" 2>/dev/null; then
			problem "GET $1: pprof cannot read the profile: $out"
		else
			problem "GET $1: body is not a gzip-compressed pprof profile"
			excerpt
		fi
	fi
	shopt -u nocasematch
}

# check_html PATH END DESCRIPTION ERE...: 200, each ERE matches, and the page is complete:
# its last non-blank line is END (a template failing midway still answers 200, cut short).
# Leaves the page in BODY. Builtins only (many pages, and processes are slow to start).
check_html() {
	local path=$1 end=$2 what=$3 last i
	local -a lines
	shift 3
	BODY=
	get_ok "$path" || return 0
	IFS= read -r -d '' BODY <"$W/body" || true
	for re in "$@"; do
		need_grep "$path" "$what" "$re" || return 0
	done
	mapfile -t lines <"$W/body"
	last=
	for ((i = ${#lines[@]} - 1; i >= 0; i--)); do
		last=${lines[i]%$'\r'}
		[[ $last =~ ^[[:space:]]*$ ]] || break
	done
	if [ "${last#"${last%%[![:space:]]*}"}" != "$end" ]; then
		problem "GET $path: page cut short: last line '$last', want '$end' (a template failed midway?)"
		tail -c 300 "$W/body" | tr -c '[:print:]\n' '?' | sed 's/^/    | /' >>"$W/problems"
	fi
}

# seen URL: true if URL was already checked against this server; else remember it.
declare -A SEEN=()
seen() {
	[ -z "${SEEN[$1]:-}" ] || return 0
	SEEN[$1]=1
	return 1
}

# hrefs FILE ERE [MAX]: the distinct same-server links (href or src) in FILE whose URL
# matches ERE (anchored), HTML entities decoded, #fragments dropped, in page order.
hrefs() {
	HREF_RE="^($2)\$" awk -v max="${3:-1000000}" '
	{
		s = $0
		while (match(s, /(href|src)="\/[^"]*"/)) {
			u = substr(s, RSTART, RLENGTH)
			s = substr(s, RSTART + RLENGTH)
			sub(/^[a-z]*="/, "", u)
			sub(/"$/, "", u)
			gsub(/&#43;/, "+", u)
			gsub(/&#39;/, "\047", u)
			gsub(/&#34;|&quot;/, "\"", u)
			gsub(/&lt;/, "<", u)
			gsub(/&gt;/, ">", u)
			gsub(/&amp;/, "\\&", u)
			sub(/#.*/, "", u)
			if (u ~ ENVIRON["HREF_RE"] && !seen[u]++) {
				print u
				if (++n >= max)
					exit
			}
		}
	}' "$1"
}

# check_view LINK KIND: the trace viewer page LINK (/trace?...: HTML that loads the static
# viewer and then /jsontrace with the same parameters), that JSON (check_json KIND), and,
# once per server, the static files the page loads.
check_view() {
	local link=$1 kind=$2 data f
	JSON_OUT=
	seen "$link" && return 0
	check_html "$link" '</html>' "trace viewer page" "url = '/jsontrace\?" 'src="/static/webcomponents\.min\.js"'
	data=$(sed -n "s/.*url = '\(\/jsontrace?[^']*\)'.*/\1/p" "$W/body" | head -n 1)
	if [ ! -f "$W/static-done" ]; then
		: >"$W/static-done"
		cp "$W/body" "$W/view.html"
		for f in $(hrefs "$W/view.html" '/static/.*'); do
			get_ok "$f" || continue
			if [ "$SIZE" -lt 1000 ]; then
				problem "GET $f: only $SIZE bytes (the viewer's static code is missing)"
			fi
		done
	fi
	[ -n "$data" ] || return 0
	seen "$data" || check_json "$data" "$kind"
}

# Run every page check against one server. $1: the viewer: old (Go 1.19 and 1.21) or new (Go
# 1.27: every page the new viewer links), $2: the pprof binary.
check_all_pages() {
	local flavor=$1 pprof=$2 link links goid first last v window sort p
	# URLs hold '?': no pathname expansion of the unquoted lists below.
	local -
	set -f

	check_html / '</html>' "main page" 'cmd/trace: the Go trace event viewer' 'View trace'
	cp "$W/body" "$W/main.html"

	goid=
	if [ "$flavor" = old ]; then
		check_json /jsontrace jsontrace
		goid=$JSON_OUT
	else
		# Every timeline the main page links, by proc and by thread: /trace?view=V, or
		# /trace?view=V&start=S&end=E per section of a large trace. Every page; the JSON of
		# the first and last section of each view (each one is a pass over the trace). Not
		# the whole-trace /jsontrace: the viewer loads it only as /jsontrace?view=proc, for
		# a trace of one section.
		links=$(hrefs "$W/main.html" '/trace\?.*')
		[ -n "$links" ] || problem "GET /: no link to a trace view (/trace?view=...)"
		for v in proc thread; do
			first=$(printf '%s\n' "$links" | grep -E "[?&]view=$v(&|\$)" | head -n 1 || true)
			last=$(printf '%s\n' "$links" | grep -E "[?&]view=$v(&|\$)" | tail -n 1 || true)
			[ -n "$first" ] || problem "GET /: no link to the $v view"
			for link in $(printf '%s\n' "$links" | grep -E "[?&]view=$v(&|\$)" || true); do
				if [ "$link" = "$first" ] || [ "$link" = "$last" ]; then
					check_view "$link" jsontrace
					[ -n "$goid" ] || goid=$JSON_OUT
				else
					check_html "$link" '</html>' "trace viewer page" "url = '/jsontrace\?"
				fi
			done
		done
	fi
	# The goroutine-oriented view (/trace?goid=N loads /jsontrace?goid=N), for a goroutine the
	# full view shows running, so it must show an execution slice too.
	if [ -n "$goid" ]; then
		if [ "$flavor" = new ]; then
			check_view "/trace?goid=$goid" jsontrace
		else
			check_json "/jsontrace?goid=$goid" jsontrace
		fi
	fi

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
		link=$(printf '%s\n' "$link" | sed -e 's/&amp;/\&/g' -e 's/&#43;/+/g')
		check_html "$link" '</table>' "goroutine table" '<table class="details">' 'href="/trace\?goid=[0-9]+"'
		if [ "$flavor" = new ]; then
			# The group's own profiles, its first goroutine's view, the table sorted.
			cp "$W/body" "$W/group.html"
			links=$(hrefs "$W/group.html" '/(io|block|syscall|sched)\?name=.*&raw=1')
			for p in $links; do
				check_pprof "$p" "$pprof"
			done
			[ "$(printf '%s\n' "$links" | grep -c .)" -eq 4 ] ||
				problem "GET $link: not 4 profile links (/io|block|syscall|sched?name=...&raw=1)"
			# Its first goroutine may never run: in Go 1.22+ traces every live
			# thread has a status each generation, so a thread blocked all along
			# is in its group too. Its view must load, with events (jsonview);
			# the timeline's running goroutine's view above has the slices.
			for p in $(hrefs "$W/group.html" '/trace\?goid=[0-9]+' 1); do
				check_view "$p" jsonview
			done
			sort=$(grep -o "reloadTable('sortby', '[^']*')" "$W/group.html" | sed -n "2s/.*, '\(.*\)')/\1/p")
			[ -z "$sort" ] || check_html "$link&sortby=${sort// /%20}" '</table>' "sorted goroutine table" '<table class="details">'
		fi
	fi

	for p in io block syscall sched; do
		check_pprof "/$p?raw=1" "$pprof"
	done

	check_html /usertasks '</html>' "task table" '<th>Task type</th>'
	if [ "$flavor" = new ]; then
		# The first two task types, and each one's first task in both task views. Task 0
		# is the background task (regions outside any task): every cmd/trace since 1.22
		# links it (/trace?focustask=0) and then answers "failed to find task with id 0"
		# and an empty body, whatever the trace; so views of tasks 1 and up only.
		cp "$W/body" "$W/tasks.html"
		for link in $(hrefs "$W/tasks.html" '/usertask\?.*' 2); do
			check_html "$link" '</html>' "task list" '<h2>User Task: '
			cp "$W/body" "$W/task.html"
			for p in $(hrefs "$W/task.html" '/trace\?focustask=[1-9][0-9]*' 1) $(hrefs "$W/task.html" '/trace\?taskid=[1-9][0-9]*' 1); do
				check_view "$p" jsonview
			done
		done
	fi
	check_html /userregions '</html>' "region table" '<th>Region type</th>'
	if [ "$flavor" = new ]; then
		# The first two region types: their goroutine tables, profiles and first views.
		cp "$W/body" "$W/regions.html"
		for link in $(hrefs "$W/regions.html" '/userregion\?.*' 2); do
			check_html "$link" '</table>' "region table" '<table class="details">'
			cp "$W/body" "$W/region.html"
			links=$(hrefs "$W/region.html" '/region(io|block|syscall|sched)\?.*&raw=1')
			for p in $links; do
				check_pprof "$p" "$pprof"
			done
			[ "$(printf '%s\n' "$links" | grep -c .)" -eq 4 ] ||
				problem "GET $link: not 4 profile links (/regionio|regionblock|regionsyscall|regionsched?...&raw=1)"
			for p in $(hrefs "$W/region.html" '/trace\?goid=[0-9]+' 1); do
				check_view "$p" jsontrace
			done
			for p in $(hrefs "$W/region.html" '/trace\?focustask=[1-9][0-9]*' 1); do
				check_view "$p" jsonview
			done
		done
	fi

	if [ "$flavor" = old ]; then
		check_html /mmu '</html>' "MMU page" 'mmuPlot'
		check_json "/mmuPlot?flags=$MMU_FLAGS" mmu
	else
		check_html /mmu '</html>' "MMU page" 'mode=plot'
		check_json "/mmu?mode=plot&flags=$MMU_FLAGS" mmu
		# A click on the plot: the worst windows of one width, each linking its time range.
		window=$JSON_OUT
		if [ "$flavor" = new ] && [ -n "$window" ]; then
			check_json "/mmu?mode=details&window=$window&flags=$MMU_FLAGS" mmudetails
			[ -z "$JSON_OUT" ] || check_view "${JSON_OUT%%#*}" jsonview
		fi
	fi
}

# pages TRACE TRACEBIN PPROFBIN FLAVOR: serve TRACE and check every page; 0 if all good.
# Writes the diagnostics to $W/diag.
pages() {
	local file=$1 bin=$2 pprof=$3 flavor=$4
	: >"$W/problems"
	: >"$W/diag"
	SEEN=()
	rm -f "$W/static-done"
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

# Go 1.22 and later: the flag of `trace` that reads every event and exits (an int up to 1.23,
# a mode since 1.24).
declare -A PARSE_FLAG=([1.22]=-d=1 [1.23]=-d=1 [1.24]=-d=parsed [1.25]=-d=parsed
	[1.26]=-d=parsed [1.27]=-d=parsed)
# Old traces: the Gos after their old parser's, whose converter reads them too.
NEW_GOS="1.23 1.27"
# Go 1.22+ traces of each version: every Go that reads it, oldest first.
declare -A READERS=([22]="1.22 1.23 1.24 1.25 1.26 1.27" [23]="1.23 1.24 1.25 1.26 1.27"
	[25]="1.25 1.26 1.27" [26]="1.26 1.27")
# The Go whose new viewer serves the pages.
PAGES_GO=1.27

# plan_trace TRACE: CHECKS = the checks of TRACE, each "KIND GO" (KIND parse, cuts or
# pages; GO a version, "old" for the old parser of an old trace, "??" for an unknown header,
# which fails). Reads only the 16-byte header.
plan_trace() {
	local v readers
	trace_version "$1"
	CHECKS=()
	case $VERSION in
	22 | 23 | 25 | 26)
		readers=${READERS[$VERSION]}
		for v in $readers; do
			CHECKS+=("parse $v")
		done
		CHECKS+=("cuts ${readers%% *}" "cuts ${readers##* }")
		;;
	*)
		CHECKS=("parse old")
		for v in $NEW_GOS; do
			CHECKS+=("parse $v")
		done
		[ -n "$PARSE_ONLY" ] || CHECKS+=("pages old")
		;;
	esac
	[ -n "$PARSE_ONLY" ] || CHECKS+=("pages $PAGES_GO")
}

# cut_pieces TRACE: cut it at each generation after the first (scripts/lib/gen_cut.py) into
# $W/cut, once per trace; the list ("K FILE" lines) in $W/cuts. 1 if the framing is broken,
# with gen_cut.py's message in $W/cutdiag.
cut_pieces() {
	[ ! -f "$W/cuts" ] || return 0
	if ! python3 "$LIBDIR/gen_cut.py" "$1" "$W/cut" >"$W/cuts" 2>"$W/cutdiag"; then
		rm -f "$W/cuts"
		return 1
	fi
}

# cuts_pick LIST: the lines of LIST (gen_cut.py's pieces) to parse: all of them, or with
# GO_CUTS=N at most N spread evenly from the first to the last (each parse starts a Go
# process, about 0.3 s: make check's traces have 2,100 pieces).
cuts_pick() {
	if [ "$CUTS" = all ]; then
		cat "$1"
	else
		awk -v max="$CUTS" '{ l[n++] = $0 }
			END {
				if (n <= max) { for (i = 0; i < n; i++) print l[i]; exit }
				for (i = 0; i < max; i++) print l[int(i * (n - 1) / (max - 1))]
			}' "$1"
	fi
}

# cuts_check GO TRACE: every piece of TRACE from generation K > 1 on parses with Go GO (the
# flight recorder's case: a trace that starts at a later generation). Records the result:
# skipped for a trace of one generation (no piece).
cuts_check() {
	local go=$1 t=$2 tv k piece n=0 bad=0 first='' last=''
	tv=TOOLS_${go/./_}
	if ! cut_pieces "$t"; then
		{
			echo "scripts/lib/gen_cut.py cannot find the generations (batch framing broken):"
			cat "$W/cutdiag"
		} >"$W/diag"
		record 1 "go$go cuts: $t" "$W/diag"
		return 0
	fi
	: >"$W/cutsdiag"
	cuts_pick "$W/cuts" >"$W/cuts-picked"
	while read -r k piece; do
		n=$((n + 1))
		[ -n "$first" ] || first=$k
		last=$k
		if ! parse_check "${!tv}/trace" "${PARSE_FLAG[$go]}" "$piece"; then
			bad=$((bad + 1))
			{
				echo "the piece from generation $k on ($(wc -c <"$piece") bytes):"
				cat "$W/diag"
			} >>"$W/cutsdiag"
		fi
	done <"$W/cuts-picked"
	if [ "$n" -eq 0 ]; then
		echo "one generation: no piece to cut" >"$W/diag"
		record 2 "go$go cuts: $t" "$W/diag"
	elif [ "$bad" -ne 0 ]; then
		{
			echo "$bad of $n pieces (from generations $first..$last on) fail:"
			cat "$W/cutsdiag"
		} >"$W/diag"
		record 1 "go$go cuts ($n pieces, from generations $first..$last): $t" "$W/diag"
	else
		record 0 "go$go cuts ($n pieces, from generations $first..$last): $t" "$W/diag"
	fi
}

# check_trace I TRACE: the checks of one trace (plan_trace's), into $WORK/I (run in a
# subshell, so that traces are checked JOBS at a time; the parent reports their results in
# order).
check_trace() {
	local t=$2 old tools st c kind v tv
	W=$WORK/$1 R=0 SRV=
	trap 'stop_server || true' EXIT
	mkdir "$W"

	plan_trace "$t"
	trace_old_tools "$t"
	old=$OLD tools=$OLD_TOOLS
	echo "$HDR_PROBLEM" >"$W/hdrdiag"

	for c in "${CHECKS[@]}"; do
		kind=${c% *} v=${c#* }
		tv=TOOLS_${v/./_}
		st=0
		case $kind/$v in
		parse/old)
			if [ -z "$old" ]; then
				record 1 "go1.?? parse: $t" "$W/hdrdiag"
				continue
			fi
			parse_check "$tools/trace" -d "$t" || st=1
			record "$st" "go$old parse: $t" "$W/diag"
			;;
		pages/old)
			if [ -z "$old" ]; then
				record 1 "go1.?? pages: $t" "$W/hdrdiag"
				continue
			fi
			pages "$t" "$tools/trace" "$tools/pprof" old || st=1
			record "$st" "go$old pages: $t" "$W/diag"
			;;
		parse/*)
			parse_check "${!tv}/trace" "${PARSE_FLAG[$v]}" "$t" || st=1
			record "$st" "go$v parse: $t" "$W/diag"
			;;
		cuts/*)
			cuts_check "$v" "$t"
			;;
		pages/*)
			pages "$t" "${!tv}/trace" "${!tv}/pprof" new || st=1
			record "$st" "go$v pages: $t" "$W/diag"
			;;
		esac
	done
}

# The plan: every trace's checks, from the headers.
declare -a NCHECKS=()
total=0
modern=
for t in "${TRACES[@]}"; do
	plan_trace "$t"
	NCHECKS+=("${#CHECKS[@]}")
	total=$((total + ${#CHECKS[@]}))
	case $VERSION in 2[2-9]) modern=--modern ;; esac
done
find_go_tools $modern

echo "TAP version 13"
echo "1..$total"

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
	for r in $(seq 1 "${NCHECKS[$((i - 1))]}"); do
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
