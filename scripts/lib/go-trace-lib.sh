#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Shared by the host checks that feed traces to Go's tools: tools, traces, TAP, trace servers.
#
# Sourced (after `set -eu`) by go-check.sh and views-check.sh; defines functions and the
# variables below, runs nothing else. The sourcing script sets PROG (its name, for messages).
#
# Environment: GO_1_19, GO_1_21, GO_1_23 = go binaries (defaults /usr/lib/go-1.XX/bin/go);
# GO_1_27 = a Go 1.27 go binary (default: the one scripts/setup/go-fetch.sh fetches, once, into
# build/go/1.27, with its trace and pprof tools prebuilt there); GO_1_22, GO_1_24, GO_1_25,
# GO_1_26 the same for the Gos that read Go 1.22+ traces (find_go_tools --modern; default:
# scripts/setup/go-fetch.sh VERSION's); GO_CHECK_TIMEOUT = seconds per step (default 120).
#
# Tools: Go 1.19-1.23 ship cmd/trace and cmd/pprof prebuilt in $(go env GOTOOLDIR). Since
# Go 1.25 they do not: `go tool -n TOOL` builds TOOL into GOCACHE once and prints its path.
#
# Trace servers: the tool binary `go tool trace` execs ($(go env GOTOOLDIR)/trace, so the
# server is our direct child and dies by pid) runs as `trace -http=127.0.0.1:0 FILE` with
# BROWSER=true (cmd/internal/browser tries $BROWSER first; `true` "succeeds" at once) and
# DISPLAY unset. It listens before parsing; serve_trace waits for its "Trace viewer is
# listening on http://..." log line (printed after parsing and splitting, polled every 0.2 s,
# deadline GO_CHECK_TIMEOUT; the process exiting first is a failure).

# Variables set here are read by the sourcing scripts.
# shellcheck disable=SC2034

GO_1_19=${GO_1_19:-/usr/lib/go-1.19/bin/go}
GO_1_21=${GO_1_21:-/usr/lib/go-1.21/bin/go}
GO_1_23=${GO_1_23:-/usr/lib/go-1.23/bin/go}
GO_1_27=${GO_1_27:-}
GO_1_22=${GO_1_22:-}
GO_1_24=${GO_1_24:-}
GO_1_25=${GO_1_25:-}
GO_1_26=${GO_1_26:-}
# The Gos scripts/setup/go-fetch.sh fetches, besides 1.27, for Go 1.22+ traces.
MODERN_FETCHED="1.22 1.24 1.25 1.26"
LIBDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TIMEOUT=${GO_CHECK_TIMEOUT:-120}

# The tools must never wait for a browser or on stdin (DEBUG_MEMORY_USAGE makes 1.19 read it).
export BROWSER=true
unset DISPLAY DEBUG_MEMORY_USAGE

N=0
FAILED=0
SRV=
WORK=

# Exit 2 unless GO_CHECK_TIMEOUT is a whole number of seconds.
check_timeout() {
	case $TIMEOUT in
	'' | *[!0-9]*)
		echo "$PROG: GO_CHECK_TIMEOUT='$TIMEOUT' is not a whole number of seconds; set e.g. 120" >&2
		exit 2
		;;
	esac
}

# Stop with a TAP "Bail out!" (a failure to every TAP consumer) and exit 1.
bail() {
	echo "TAP version 13"
	echo "Bail out! $PROG: $*"
	echo "$PROG: $*" >&2
	exit 1
}

# need_commands CMD...: bail unless every CMD is installed.
need_commands() {
	local tool
	for tool in "$@"; do
		command -v "$tool" >/dev/null 2>&1 ||
			bail "'$tool' not found; install it (scripts/setup/deps.sh installs everything the checks need)"
	done
}

# tooldir GO VERSION [DIR]: TOOLDIR = a directory holding the trace and pprof binaries of
# GO, which must be Go VERSION: DIR if given, its GOTOOLDIR if they are prebuilt there, else
# (Go 1.25+) the ones `go tool -n` builds into its GOCACHE, linked into $WORK/tools-VERSION
# (make_work first).
tooldir() {
	local go=$1 v=$2 dir=${3:-} gover tool bin
	[ -x "$go" ] || bail "$go not found; install Go $v (scripts/setup/deps.sh) or point GO_${v/./_} at its go binary"
	gover=$("$go" env GOVERSION) || bail "'$go env GOVERSION' failed; is $go a working Go install?"
	case $gover in
	"go$v" | "go$v".* | "go$v"[!0-9]*) ;;
	*) bail "$go is $gover, not Go $v; point GO_${v/./_} at a Go $v go binary" ;;
	esac
	[ -n "$dir" ] || dir=$("$go" env GOTOOLDIR) || bail "'$go env GOTOOLDIR' failed; is $go a working Go install?"
	if [ -x "$dir/trace" ] && [ -x "$dir/pprof" ]; then
		TOOLDIR=$dir
		return 0
	fi
	[ -n "$WORK" ] || bail "internal error: tooldir $v before make_work"
	TOOLDIR=$WORK/tools-$v
	mkdir -p "$TOOLDIR"
	for tool in trace pprof; do
		bin=$(GOTOOLCHAIN=local GOPROXY=off "$go" tool -n "$tool" 2>"$WORK/tool.err") || bin=
		[ -x "${bin:-/nonexistent}" ] ||
			bail "$go ships no prebuilt $tool and 'go tool -n $tool' could not build it: $(head -c 300 "$WORK/tool.err")"
		ln -s "$bin" "$TOOLDIR/$tool"
	done
}

# fetched_tools VERSION: TOOLS_1_XX for Go VERSION: the go binary GO_1_XX if set, else
# scripts/setup/go-fetch.sh VERSION's (instant once build/go/VERSION is there; the first time it
# downloads it, and for 1.25+ builds its tools: a few minutes, progress on stderr).
fetched_tools() {
	local v=$1 gv out dir=
	gv=GO_${1/./_}
	if [ -z "${!gv}" ]; then
		out=$("$LIBDIR/../setup/go-fetch.sh" --print "$v") ||
			bail "scripts/setup/go-fetch.sh $v could not fetch Go $v (its messages are above); or point $gv at a Go $v go binary"
		printf -v "$gv" '%s' "${out%%$'\n'*}"
		dir=${out#*$'\n'}
	fi
	tooldir "${!gv}" "$v" "$dir"
	printf -v "TOOLS_${v/./_}" '%s' "$TOOLDIR"
}

# find_go_tools [--modern]: set TOOLS_1_19, TOOLS_1_21, TOOLS_1_23, TOOLS_1_27 and, with
# --modern, TOOLS_1_22, TOOLS_1_24, TOOLS_1_25, TOOLS_1_26 (or bail).
find_go_tools() {
	local v
	tooldir "$GO_1_19" 1.19
	TOOLS_1_19=$TOOLDIR
	tooldir "$GO_1_21" 1.21
	TOOLS_1_21=$TOOLDIR
	tooldir "$GO_1_23" 1.23
	TOOLS_1_23=$TOOLDIR
	fetched_tools 1.27
	[ "${1:-}" = --modern ] || return 0
	for v in $MODERN_FETCHED; do
		fetched_tools "$v"
	done
}

# collect_traces GLOB ARG...: TRACES = the files named GLOB under each directory ARG
# (recursively, sorted) and each file ARG; bail on a missing ARG or if there are none.
collect_traces() {
	local glob=$1 arg f
	shift
	TRACES=()
	for arg in "$@"; do
		if [ -d "$arg" ]; then
			while IFS= read -r -d '' f; do
				TRACES+=("$f")
			done < <(find -H "$arg" -type f -name "$glob" -print0 | sort -z)
		elif [ -f "$arg" ]; then
			TRACES+=("$arg")
		else
			bail "$arg: no such file or directory; pass trace files or directories holding $glob"
		fi
	done
	[ ${#TRACES[@]} -gt 0 ] ||
		bail "no $glob files under: $*; a check that sees no trace proves nothing (record traces first, or pass the right directory)"
}

# trace_version FILE: from its 16-byte header, VERSION = the trace format's minor version
# (11, 19, 21: Go's format before 1.22; 22, 23, 25, 26: Go 1.22+'s, with generations);
# empty for any other header, then HDR_PROBLEM says why.
trace_version() {
	local hdr
	hdr=$(head -c 16 -- "$1" | tr '\0' '@')
	VERSION='' HDR_PROBLEM=''
	case $hdr in
	'go 1.11 trace@@@' | 'go 1.19 trace@@@' | 'go 1.21 trace@@@' | \
		'go 1.22 trace@@@' | 'go 1.23 trace@@@' | 'go 1.25 trace@@@' | 'go 1.26 trace@@@')
		VERSION=${hdr:5:2}
		;;
	*)
		HDR_PROBLEM="header is '$(printf '%s' "$hdr" | tr -c '[:print:]' '?' | sed 's/@/\\0/g')', not 'go 1.11|1.19|1.21|1.22|1.23|1.25|1.26 trace\\0\\0\\0':
gotrace writes only those formats; this file is not a (complete) gotrace trace"
		;;
	esac
}

# trace_old_tools FILE: from its 16-byte header, OLD = the newest Go that reads the format
# with its old parser (1.11 and 1.19 -> 1.19, 1.21 -> 1.21) and OLD_TOOLS its tool directory;
# both empty for any other header (Go 1.22+ traces too), then HDR_PROBLEM says why.
trace_old_tools() {
	trace_version "$1"
	OLD='' OLD_TOOLS=''
	case $VERSION in
	11 | 19) OLD=1.19 OLD_TOOLS=$TOOLS_1_19 ;;
	21) OLD=1.21 OLD_TOOLS=$TOOLS_1_21 ;;
	'') ;;
	*) HDR_PROBLEM="a Go 1.$VERSION trace (generations): no old parser reads it" ;;
	esac
}

# Make WORK, a temporary directory removed on exit with any trace server still running.
make_work() {
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
	trap cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM HUP
}

# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	stop_server || true
	# Checks still running in the background (go-check.sh runs several at once).
	# shellcheck disable=SC2046 # one word per pid
	kill $(jobs -pr) 2>/dev/null || true
	[ -z "$WORK" ] || rm -rf "$WORK"
}

# Print FILE as TAP diagnostics: "# " lines, at most 40, long lines cut.
diag() {
	local total
	total=$(wc -l <"$1")
	cut -c1-300 "$1" | head -n 40 | sed 's/^/# /'
	if [ "$total" -gt 40 ]; then
		echo "# ... ($((total - 40)) more lines)"
	fi
}

# report STATUS DESCRIPTION DIAGFILE: print one TAP test line (STATUS 0 = ok, 2 = skipped:
# the first line of DIAGFILE says why).
report() {
	N=$((N + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $N - $2"
	elif [ "$1" -eq 2 ]; then
		echo "ok $N - $2 # SKIP $(head -n 1 "$3")"
	else
		FAILED=$((FAILED + 1))
		echo "not ok $N - $2"
		diag "$3"
	fi
}

# serve_trace BIN FILE: start BIN (a cmd/trace) serving FILE; SRV = its pid, ADDR = its
# http://host:port. Returns 1 with the reason in $W/diag if it never serves.
serve_trace() {
	local deadline st=0 log re='Trace viewer is listening on (http://[^[:space:]]+)'
	# Empty the log first: the background redirection truncates it only once the
	# server starts, and the loop below must never read the previous server's address.
	: >"$W/srv.err"
	"$1" -http=127.0.0.1:0 "$2" </dev/null >"$W/srv.out" 2>"$W/srv.err" &
	SRV=$!
	ADDR=
	deadline=$((SECONDS + TIMEOUT))
	while :; do
		# Builtins only: this runs every 0.2 s, and processes are slow to start.
		log=
		IFS= read -r -d '' log <"$W/srv.err" || true
		if [[ $log =~ $re ]]; then
			ADDR=${BASH_REMATCH[1]}
			return 0
		fi
		if ! kill -0 "$SRV" 2>/dev/null; then
			wait "$SRV" || st=$?
			SRV=
			echo "server exited with status $st before serving (it failed to read or split the trace); its stderr:" >"$W/diag"
			cat "$W/srv.err" "$W/srv.out" >>"$W/diag"
			return 1
		fi
		if [ "$SECONDS" -ge "$deadline" ]; then
			echo "server not serving after ${TIMEOUT}s (still parsing? raise GO_CHECK_TIMEOUT); its stderr:" >"$W/diag"
			cat "$W/srv.err" >>"$W/diag"
			stop_server || true
			return 1
		fi
		sleep 0.2
	done
}

# Stop the server, if one runs; returns 1 with SRV_STATUS = its exit status if it had died.
stop_server() {
	SRV_STATUS=0
	[ -n "$SRV" ] || return 0
	if ! kill -0 "$SRV" 2>/dev/null; then
		wait "$SRV" || SRV_STATUS=$?
		SRV=
		return 1
	fi
	kill "$SRV" 2>/dev/null || true
	wait "$SRV" 2>/dev/null || true
	SRV=
}

# The page client: one python3 coprocess (per shell that uses it: go-check.sh checks traces
# in subshells), scripts/lib/page_client.py, that GETs pages over a kept-alive HTTP connection
# and runs the checks of the file PAGE_CHECKS (if set: a Python file defining CHECKS and Bad,
# e.g. scripts/lib/go_pages.py) on bodies. Its docstring has the requests and answers.
PAGE_CHECKS=

# py_ask FIELD...: send one request to the page client (started if need be); REPLY = its
# answer, or empty if none came within TIMEOUT.
py_ask() {
	local IFS=$'\t'
	if [ -z "${PYC_PID:-}" ] || ! kill -0 "$PYC_PID" 2>/dev/null; then
		coproc PYC { exec python3 "$LIBDIR/page_client.py" "$TIMEOUT" ${PAGE_CHECKS:+"$PAGE_CHECKS"}; }
	fi
	REPLY=
	if printf '%s\n' "$*" >&"${PYC[1]}"; then
		IFS= read -r -t "$TIMEOUT" REPLY <&"${PYC[0]}" || true
	fi
}

# GET PATH from the server at $ADDR into $W/body and $W/hdr; sets CODE (HTTP status or
# "none (...)" when no answer came) and SIZE (body bytes).
fetch() {
	py_ask GET "$ADDR$1" "$W/body" "$W/hdr"
	CODE=${REPLY%% *} SIZE=${REPLY#* }
	case $CODE in
	[0-9]*) ;;
	none) CODE="none (no answer: $SIZE)" SIZE=0 ;;
	*) CODE="none (the page client, python3, gave no answer in ${TIMEOUT}s)" SIZE=0 ;;
	esac
}

# Note a failed page rule in $W/problems.
problem() {
	echo "$*" >>"$W/problems"
}

# Body excerpt for a problem report.
excerpt() {
	head -c 600 "$W/body" | tr -c '[:print:]\n' '?' | head -n 4 | sed 's/^/    | /' >>"$W/problems"
}

# GET PATH and require status 200; returns 1 (after noting why) otherwise.
get_ok() {
	fetch "$1"
	if [ "$CODE" != 200 ]; then
		problem "GET $1: status $CODE, want 200"
		[ -s "$W/body" ] && excerpt
		return 1
	fi
	return 0
}
