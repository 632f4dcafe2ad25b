#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# gotrace merge on recorded traces (TAP): a Go program's own trace (APP) and gotrace's
# of the guest it ran in (MACHINE), tests/join-NAME-{app,machine}.trace, recorded by
# scripts/oracles/join-oracle.sh (0.3 s runs of selftests/joinapp, built by Go 1.22, 1.23,
# 1.25 and 1.27, in a cgroup with a CPU quota beside a CPU hog). The MACHINEs of go122 and
# go125 are their generations during APP (gotrace split --from 1.0 --to 3.0), to keep
# them small; join-filtered-machine.trace was recorded with GOTRACE_JOIN_RECORD_ARGS="--pid 1",
# which leaves the program out.
#
# For each: the join and its summary; gotrace check and Go's readers (1.27, and the
# program's own Go) accept OUT; tests/merge_check.py holds OUT and merge --threads' output
# to Go 1.27's reading of APP and MACHINE; gotrace stats of OUT. Then every refusal: its
# exact message, exit status 1, and nothing written (no OUT, no file beside it).
#
# Usage: tests/merge.sh GOTRACE DIR
# Environment: GO127_TRACE, Go 1.27's trace tool (default: scripts/setup/go-fetch.sh's,
# fetched the first time, as Go 1.22's and 1.25's are).
set -eu

GT=$1
DIR=$2
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TESTS=$ROOT/userspace/tests
# shellcheck source=scripts/lib/tap-lib.sh
. "$ROOT/scripts/lib/tap-lib.sh"

# The trace tool of Go $1, fetched by scripts/setup/go-fetch.sh the first time.
go_trace_tool() {
	paths=$("$ROOT/scripts/setup/go-fetch.sh" --print "$1") || return 1
	echo "${paths#*
}/trace"
}

TOOL=${GO127_TRACE:-}
[ -n "$TOOL" ] || TOOL=$(go_trace_tool 1.27)
GO123=${GO_1_23:-/usr/lib/go-1.23/bin/go}
export GOCACHE="$ROOT/build/go/cache" GOTOOLCHAIN=local GOENV=off BROWSER=true
rm -rf "$DIR"
mkdir -p "$DIR"

# own_read GO FILE: Go GO's trace tool reads FILE (Go 1.22 and 1.23 say -d=1, later ones
# -d=parsed); its status.
own_read() {
	case $1 in
	1.23) "$GO123" tool trace -d=1 "$2" ;;
	1.22) tool=$(go_trace_tool 1.22) && "$tool" -d=1 "$2" ;;
	*) tool=$(go_trace_tool "$1") && "$tool" -d=parsed "$2" ;;
	esac
}

# join NAME THREADS GO: the fixture NAME of a program with THREADS threads, built by Go GO.
join() {
	name=$1 threads=$2 go=$3
	app=$TESTS/join-$name-app.trace machine=$TESTS/join-$name-machine.trace
	out=$DIR/$name.trace thr=$DIR/$name-threads.trace
	rc=0
	"$GT" merge "$app" "$machine" -o "$out" >"$DIR/$name.summary" 2>&1 || rc=$?
	result "$rc" "$name: gotrace merge joins APP and MACHINE" "$DIR/$name.summary"
	want="gotrace merge: $threads of $threads threads of APP found in MACHINE; MACHINE covers 100.0 % of APP's time"
	case $(head -n 1 "$DIR/$name.summary") in
	"$want ("*) rc=0 ;;
	*) rc=1 ;;
	esac
	result "$rc" "$name: the summary finds all $threads threads, over all of APP's time" \
		"$DIR/$name.summary"
	rc=0
	"$GT" merge --threads "$app" "$machine" -o "$thr" >"$DIR/$name-threads.summary" 2>&1 ||
		rc=$?
	result "$rc" "$name: gotrace merge --threads writes MACHINE with APP's goroutines" \
		"$DIR/$name-threads.summary"
	for f in "$out" "$thr"; do
		rc=0
		"$GT" check "$f" >"$f.check" 2>&1 || rc=$?
		result "$rc" "$name: gotrace check accepts $(basename "$f")" "$f.check"
	done
	for f in "$app" "$machine" "$out" "$thr"; do
		rc=0
		"$TOOL" -d=parsed "$f" >"$DIR/$(basename "$f").parsed" 2>&1 || rc=$?
		result "$rc" "$name: Go 1.27 reads $(basename "$f")" "$DIR/$(basename "$f").parsed"
	done
	if [ "$go" != 1.27 ]; then
		rc=0
		own_read "$go" "$out" >"$DIR/$name.own" 2>&1 || rc=$?
		result "$rc" "$name: Go $go, the program's, reads OUT" "$DIR/$name.own"
	fi
	python3 "$TESTS/merge_check.py" "$name" "$DIR/join-$name-app.trace.parsed" \
		"$DIR/join-$name-machine.trace.parsed" "$DIR/$name.trace.parsed" \
		"$DIR/$name-threads.trace.parsed" >"$DIR/$name.mcheck" 2>&1 || true
	while read -r line; do
		case $line in
		"ok "*) result 0 "${line#* - }" ;;
		"not ok "*) result 1 "${line#* - }" "$DIR/$name.mcheck" ;;
		esac
	done <"$DIR/$name.mcheck"
	grep -q '^ok\|^not ok' "$DIR/$name.mcheck" ||
		result 1 "$name: merge_check.py ran" "$DIR/$name.mcheck"
}

# refuse NAME MESSAGE ARGS...: gotrace merge ARGS (-o DIR/refused/NAME.trace unless
# NAME is no-output) exits 1 with exactly "gotrace merge: MESSAGE" and writes nothing.
refuse() {
	name=$1 want="gotrace merge: $2"
	shift 2
	[ "$name" = no-output ] || set -- "$@" -o "$DIR/refused/$name.trace"
	rc=0
	"$GT" merge "$@" >"$DIR/$name.err" 2>&1 || rc=$?
	got=$(head -n 1 "$DIR/$name.err")
	[ "$rc" -eq 1 ] && [ "$got" = "$want" ] && [ -z "$(ls -A "$DIR/refused")" ]
	result $? "$name: refused with exit status 1, its cause and fix, nothing written" \
		"$DIR/$name.err"
}

join go122 5 1.22
join go123 4 1.23
join go125 4 1.25
join go127 5 1.27

mkdir -p "$DIR/refused"
A=$TESTS/join-go127-app.trace
M=$TESTS/join-go127-machine.trace
refuse old-app "APP $TESTS/split-oldtrace-pingpong-1.21.trace: a go 1.21 trace: Go 1.21 and older write no thread ids to join on; trace the program with Go 1.22 or later" \
	"$TESTS/split-oldtrace-pingpong-1.21.trace" "$M"
refuse no-snapshots "MACHINE $TESTS/join-go123-app.trace: a go 1.23 trace, which has no clock snapshots to map its time to CLOCK_MONOTONIC: record it with gotrace record --format 1.26 --clock mono" \
	"$A" "$TESTS/join-go123-app.trace"
refuse no-overlap "APP and MACHINE do not overlap in time (APP 17.342 to 17.830 s, MACHINE 12.619 to 15.168 s of CLOCK_MONOTONIC): record MACHINE while the program traces itself, e.g. gotrace record --go URL --duration S" \
	"$A" "$TESTS/join-go123-machine.trace"
refuse filtered "none of APP's 4 threads (181, 180, 179, 178) is in MACHINE: MACHINE's filters left the program out, or the two come from different boots or machines; record MACHINE without filters while the program traces itself" \
	"$TESTS/join-filtered-app.trace" "$TESTS/join-filtered-machine.trace"
refuse no-app "APP $DIR/none.trace: cannot open: No such file or directory" "$DIR/none.trace" "$M"
head -c 3000 "$A" >"$DIR/cut.trace"
refuse cut-app "APP $DIR/cut.trace: failed to read full batch: read 1801 but wanted 2525" \
	"$DIR/cut.trace" "$M"
refuse no-output "no output: give -o OUT" "$A" "$M"

# OUT exists, or is APP: refused, left as it was.
cp "$A" "$DIR/refused/exists.trace"
rc=0
"$GT" merge "$A" "$M" -o "$DIR/refused/exists.trace" >"$DIR/exists.err" 2>&1 || rc=$?
[ "$rc" -eq 1 ] && cmp -s "$A" "$DIR/refused/exists.trace" &&
	[ "$(cat "$DIR/exists.err")" = "gotrace merge: $DIR/refused/exists.trace exists: give --force to replace it, or another -o FILE" ]
result $? "an existing OUT is refused without --force, and kept" "$DIR/exists.err"
rc=0
"$GT" merge "$DIR/refused/exists.trace" "$M" -o "$DIR/refused/exists.trace" --force \
	>"$DIR/self.err" 2>&1 || rc=$?
[ "$rc" -eq 1 ] && cmp -s "$A" "$DIR/refused/exists.trace" &&
	[ "$(cat "$DIR/self.err")" = "gotrace merge: $DIR/refused/exists.trace is one of the traces to join: write the join to another file" ]
result $? "OUT that is APP is refused even with --force, and kept" "$DIR/self.err"
rc=0
"$GT" merge --force "$A" "$M" -o "$DIR/refused/exists.trace" >"$DIR/force.out" 2>&1 || rc=$?
cmp -s "$DIR/go127.trace" "$DIR/refused/exists.trace"
result $((rc + $?)) "--force replaces OUT with the same join" "$DIR/force.out"
tap_end
