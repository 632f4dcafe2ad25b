#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# gotrace split on traces of Go's format before 1.22 (TAP output): a generated go 1.19 trace
# (gen_trace, 4 MiB) and two recorded by the module, kept here (tests/split-oldtrace-*.trace: a
# go 1.21 ping-pong, a go 1.19 one with kernel stacks), each cut with --max-size, --every
# and --from/--to. For each split: every piece valid (gotrace check) and parsed by Go's old
# reader of its version ('go tool trace -d' of Go 1.19 or 1.21; skipped when missing), each
# piece's events and bytes as its line says, the events less the synthesised ones adding up
# to the trace's, and the events split never makes up (GoUnblock, GoSysExit, GoEnd...)
# adding up kind by kind; then what each mode promises of sizes and times. Bad inputs exit 1
# with their message and leave no piece and no temporary file. The module's traces with CPU
# samples (tests/samples-1.19, 1.21.trace) are cut each way too: each piece holds the
# trace's samples of its time span, in order, all of them together, and Go 1.21's pprof
# reads the pieces' profiles (gotrace pprof) together as the trace's. Go's own test traces
# of 1.7, 1.10 and 1.21 (GC, stops of the world, user tasks) are cut too, when installed.
#
# Usage: tests/split_oldtrace.sh GOTRACE GEN_TRACE
# Environment: GO119, GO121 (Go 1.19's and 1.21's roots, default /usr/lib/go-1.NN).
# shellcheck disable=SC2016 # awk programs in single quotes
set -u

GOTRACE=$1
GEN=$2
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
GOROOT119=${GO119:-/usr/lib/go-1.19}
GOROOT121=${GO121:-/usr/lib/go-1.21}
GO119=$GOROOT119/bin/go
GO121=$GOROOT121/bin/go
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# shellcheck source=scripts/lib/tap-lib.sh
. "$ROOT/scripts/lib/tap-lib.sh"

# Events split makes up (opening and closing state) are of these kinds only.
SYNTH_KINDS='^(GoCreate|GoWaiting|GoSysCall|GoSysBlock|ProcStart|ProcStop|GoStart|GoSched|GCStart|GCSTWStart|STWStart|GCSweepStart|Gomaxprocs)$'

# events FILE: gotrace check FILE; EVENTS gets its events.
events() {
	"$GOTRACE" check "$1" > "$TMP/check.out" 2>&1 || return 1
	EVENTS=$(sed -n 's/.*: valid go 1\.[0-9]* trace: \([0-9]*\) events.*/\1/p' "$TMP/check.out")
}

# kinds FILE...: "KIND COUNT" of the kinds split never makes up, over all FILEs.
kinds() {
	for f in "$@"; do
		"$GOTRACE" dump "$f"
	done | awk -v s="$SYNTH_KINDS" '$2 !~ s { n[$2]++ } END { for (k in n) print k, n[k] }' |
		sort
}

# split NAME TRACE ARGS...: gotrace split TRACE ARGS -o $TMP/NAME; its output in
# $TMP/NAME.out, a line per piece "PATH EVENTS SYNTH BYTES FROM TO" in $TMP/NAME.pieces.
split() {
	name=$1
	trace=$2
	shift 2
	rc=0
	"$GOTRACE" split "$trace" "$@" -o "$TMP/$name" > "$TMP/$name.out" 2>&1 || rc=$?
	n='\([0-9.]*\)'
	sed -n "s/^\(.*\): $n events ($n synthesised), $n bytes, $n s to $n s\$/\1 \2 \3 \4 \5 \6/p" \
		"$TMP/$name.out" > "$TMP/$name.pieces"
	expect "$name: gotrace split $* exits 0" "$TMP/$name.out" [ "$rc" -eq 0 ]
}

# pieces_valid NAME: each piece valid, with the events and bytes its line says; REAL gets
# the sum of events less synthesised ones.
pieces_valid() {
	: > "$TMP/why"
	REAL=0
	while read -r path ev syn bytes _; do
		events "$path" || { cat "$TMP/check.out" >> "$TMP/why"; continue; }
		REAL=$((REAL + ev - syn))
		[ "$EVENTS" -eq "$ev" ] ||
			echo "$path: $EVENTS events, its line says $ev" >> "$TMP/why"
		[ "$(stat -c %s "$path")" -eq "$bytes" ] ||
			echo "$path: $(stat -c %s "$path") bytes, its line says $bytes" >> "$TMP/why"
	done < "$TMP/$1.pieces"
	[ -s "$TMP/$1.pieces" ] && [ ! -s "$TMP/why" ]
}

# go_valid NAME GO: GO's 'go tool trace -d' accepts each piece.
go_valid() {
	: > "$TMP/why"
	while read -r path _; do
		"$2" tool trace -d "$path" > /dev/null 2> "$TMP/go.err" ||
			{ echo "$path:"; tail -3 "$TMP/go.err"; } >> "$TMP/why"
	done < "$TMP/$1.pieces"
	[ ! -s "$TMP/why" ]
}

# check_pieces NAME TRACE: the pieces of TRACE valid for gotrace and Go, the events adding up.
check_pieces() {
	expect "$1: every piece valid, with the events and bytes its line says" "$TMP/why" \
		pieces_valid "$1"
	echo "$1: $REAL events not made up in the pieces, $ALL_EVENTS in the trace" > "$TMP/why"
	expect "$1: the events less the synthesised ones add up to the trace's" "$TMP/why" \
		[ "$REAL" -eq "$ALL_EVENTS" ]
	# shellcheck disable=SC2046 # one argument per piece
	kinds $(awk '{ print $1 }' "$TMP/$1.pieces") > "$TMP/got"
	{ echo "kinds split never makes up, the trace's then the pieces':"; cat "$TMP/kinds"
	  echo; cat "$TMP/got"; } > "$TMP/why"
	expect "$1: the kinds split never makes up add up kind by kind" "$TMP/why" \
		cmp -s "$TMP/kinds" "$TMP/got"
	go=$GO119
	[ "$VERSION" = 21 ] && go=$GO121
	if [ -x "$go" ]; then
		expect "$1: $go tool trace -d accepts every piece" "$TMP/why" go_valid "$1" "$go"
	else
		result 0 "$1: Go's old reader accepts every piece # SKIP no $go"
	fi
}

# trace PATH: the trace to split next, its events in ALL_EVENTS, its kinds in $TMP/kinds.
trace() {
	T=$1
	VERSION=$(head -c 7 "$T" | tail -c 2)
	events "$T"
	result $? "$(basename "$T"): a valid go 1.$VERSION trace" "$TMP/check.out"
	ALL_EVENTS=$EVENTS
	kinds "$T" > "$TMP/kinds"
}

# modes NAME SIZE EVERY FROM TO: the trace $T cut each way, what each way promises.
modes() {
	split "$1-size" "$T" --max-size "$2"
	check_pieces "$1-size" "$T"
	expect "$1-size: more than one piece, none over $2 bytes" "$TMP/$1-size.out" \
		awk -v max="$2" '$4 > max { exit 1 } END { exit NR < 2 }' "$TMP/$1-size.pieces"

	split "$1-every" "$T" --every "$3"
	check_pieces "$1-every" "$T"
	every=$(echo "$3" | sed 's/ms$//')
	expect "$1-every: more than one piece, each starting $3 or more after the last" \
		"$TMP/$1-every.out" awk -v e="$every" 'NR > 1 && ($5 - prev) * 1000 < e - 0.001 \
		{ exit 1 } { prev = $5 } END { exit NR < 2 }' "$TMP/$1-every.pieces"

	split "$1-range" "$T" --from "$4" --to "$5"
	expect "$1-range: its piece valid, with the events and bytes its line says" "$TMP/why" \
		pieces_valid "$1-range"
	from=$(echo "$4" | sed 's/ms$//')
	to=$(echo "$5" | sed 's/ms$//')
	expect "$1-range: one piece, its events within $4 to $5" "$TMP/$1-range.out" \
		awk -v f="$from" -v t="$to" '$5 * 1000 < f - 0.001 || $6 * 1000 > t + 0.001 \
		{ exit 1 } END { exit NR != 1 }' "$TMP/$1-range.pieces"
	echo "the trace has $ALL_EVENTS events, the piece $REAL of its own" > "$TMP/why"
	expect "$1-range: its piece holds part of the trace's events" "$TMP/why" \
		test "$REAL" -gt 0 -a "$REAL" -lt "$ALL_EVENTS"
}

# sample_lines FILE: "NS P G STACK" of each CPUSample event of FILE, in order.
sample_lines() {
	"$GOTRACE" dump "$1" | awk '$2 == "CPUSample" { print $1, $(NF - 2), $(NF - 1), $NF }'
}

# samples_in_spans NAME: each piece holds the trace's CPU samples ($TMP/want) of its time
# span (its line's, to the microsecond), in their order; $TMP/got gets them all.
samples_in_spans() {
	: > "$TMP/why"
	: > "$TMP/got"
	while read -r path _ _ _ from to; do
		awk -v f="$from" -v t="$to" '{ s = sprintf("%.6f", $1 / 1e9) + 0 }
			s >= f + 0 && s <= t + 0 { print $2, $3, $4 }' "$TMP/want" > "$TMP/span"
		sample_lines "$path" | awk '{ print $2, $3, $4 }' > "$TMP/piece"
		cmp -s "$TMP/span" "$TMP/piece" ||
			{ echo "$path, $from s to $to s: the trace's samples then the piece's"
			  diff "$TMP/span" "$TMP/piece" | head -10; } >> "$TMP/why"
		cat "$TMP/piece" >> "$TMP/got"
	done < "$TMP/$1.pieces"
	[ ! -s "$TMP/why" ]
}

# samples NAME MIN [all]: the pieces (MIN or more) of $T, which has CPU samples, each hold
# the samples of its time span; with "all", every sample of $T, and Go 1.21's pprof reads
# the profiles of the pieces (gotrace pprof) together as that of the trace.
samples() {
	expect "$1: $2 or more pieces" "$TMP/$1.out" [ "$(wc -l < "$TMP/$1.pieces")" -ge "$2" ]
	sample_lines "$T" > "$TMP/want"
	expect "$1: each piece holds the trace's CPU samples of its time span, in order" \
		"$TMP/why" samples_in_spans "$1"
	n=$(wc -l < "$TMP/got")
	all=$(wc -l < "$TMP/want")
	echo "the trace has $all CPU samples, its pieces $n" > "$TMP/why"
	if [ "${3:-}" != all ]; then
		expect "$1: some of the trace's $all CPU samples in the piece ($n)" "$TMP/why" \
			[ "$n" -gt 0 ]
		return
	fi
	expect "$1: the pieces hold all $all CPU samples of the trace" "$TMP/why" \
		test "$n" -gt 0 -a "$n" -eq "$all"
	pprof=$GOROOT121/pkg/tool/linux_amd64/pprof
	if [ ! -x "$pprof" ]; then
		result 0 "$1: pprof of the pieces # SKIP no $pprof"
		return
	fi
	: > "$TMP/why"
	"$GOTRACE" pprof -o "$TMP/$1.pb" "$T" >> "$TMP/why" 2>&1
	profiles=
	while read -r f _; do
		"$GOTRACE" pprof -o "$f.pb" "$f" >> "$TMP/why" 2>&1
		profiles="$profiles $f.pb"
	done < "$TMP/$1.pieces"
	# Rows from the column heads on: the header's duration is the pieces'.
	top='/^ *flat/ { on = 1 } on'
	PPROF_TMPDIR=$TMP HOME=$TMP "$pprof" -top -nodefraction=0 -nodecount=100000 "$TMP/$1.pb" \
		2>> "$TMP/why" | awk "$top" > "$TMP/want"
	# shellcheck disable=SC2086 # one argument per profile
	PPROF_TMPDIR=$TMP HOME=$TMP "$pprof" -top -nodefraction=0 -nodecount=100000 $profiles \
		2>> "$TMP/why" | awk "$top" > "$TMP/got"
	{ echo "pprof -top of the trace, then of the pieces' profiles together:"
	  head -5 "$TMP/want"; echo; head -5 "$TMP/got"; diff "$TMP/want" "$TMP/got"; } >> "$TMP/why"
	expect "$1: Go 1.21's pprof -top of the pieces' profiles together is the trace's" \
		"$TMP/why" eval '[ -s "$TMP/want" ] && cmp -s "$TMP/want" "$TMP/got"'
}

# go_pages NAME: scripts/oracles/go-check.sh passes each piece: Go's parsers, and every page of
# go tool trace, Go 1.27's rewritten viewer's too (its MMU page crashes on a trace of one
# Gomaxprocs, golang/go#74146: a piece's opening state has two).
go_pages() {
	trace127=$ROOT/build/go/1.27/tool/trace
	if [ ! -x "$trace127" ]; then
		result 0 "$1: go tool trace's pages of every piece # SKIP no $trace127"
		return
	fi
	# shellcheck disable=SC2046 # one argument per piece
	"$ROOT/scripts/oracles/go-check.sh" $(awk '{ print $1 }' "$TMP/$1.pieces") > "$TMP/why" 2>&1
	result $? "$1: scripts/oracles/go-check.sh passes every piece, Go 1.27's pages too" "$TMP/why"
}

# refuse DESCRIPTION PATTERN ARGS...: gotrace split ARGS exits 1, stderr matching PATTERN,
# and leaves no piece nor temporary file $TMP/bad.*.
refuse() {
	desc=$1
	pattern=$2
	shift 2
	rc=0
	"$GOTRACE" split "$@" -o "$TMP/bad" > "$TMP/bad.out" 2> "$TMP/bad.err" || rc=$?
	cat "$TMP/bad.err" >> "$TMP/bad.out"
	[ "$rc" -eq 1 ] && grep -q -e "$pattern" "$TMP/bad.err" &&
		! ls "$TMP"/bad.*.trace* > /dev/null 2>&1
	result $? "refused, $desc: exit 1, '$pattern', nothing written" "$TMP/bad.out"
}

echo "TAP version 13"

"$GEN" "$TMP/gen.trace" 4 > /dev/null
trace "$TMP/gen.trace"
modes gen 1000000 10ms 7ms 15.5ms

trace "$HERE/split-oldtrace-pingpong-1.21.trace"
modes pingpong 20000 300ms 500ms 1200ms

trace "$HERE/split-oldtrace-kstacks-1.19.trace"
modes kstacks 3000 10ms 5ms 30ms
# Its pieces open with threads blocked in system calls: Go 1.27's thread view crashed on
# their exits when the opening state had them in GoInSyscall (no thread).
go_pages kstacks-every

# The module's traces with CPU samples (1 s at 1000 Hz, tests/samples-1.*.trace): each
# sample, which carries its own time, in the piece that time falls in.
for v in 19 21; do
	trace "$HERE/samples-1.$v.trace"
	modes samples$v 5000 200ms 300ms 600ms
	samples "samples$v-size" 3 all
	samples "samples$v-every" 3 all
	go_pages "samples$v-every"
	samples "samples$v-range" 1
done

# Go's own test traces, with GC, sweeps, stops of the world (per P before go 1.10), user
# tasks, regions and logs, timer goroutines: cut every 5 ms.
for f in "$GOROOT119/src/internal/trace/testdata/stress_1_7_good" \
	"$GOROOT119/src/internal/trace/testdata/stress_1_10_good" \
	"$GOROOT121/src/internal/trace/testdata/stress_1_21_good" \
	"$GOROOT121/src/internal/trace/testdata/http_1_21_good"; do
	if [ ! -f "$f" ]; then
		result 0 "Go's test trace $f # SKIP not installed"
		continue
	fi
	trace "$f"
	split "$(basename "$f")" "$T" --every 5ms
	check_pieces "$(basename "$f")" "$T"
done

T=$TMP/gen.trace
head -c 100000 "$T" > "$TMP/cut.trace"
refuse "a trace cut short" "the file ends inside the event: the trace is cut short" \
	"$TMP/cut.trace" --every 1s
# The generated trace and a batch of one GoStart of a goroutine that never was: Go finds no
# order for it only at the end, after split has written pieces.
cp "$T" "$TMP/late.trace"
printf '\101\000\000\216\000\377\177\001' >> "$TMP/late.trace"
refuse "a trace invalid at its end" \
	"no consistent ordering of events possible: GoStart at offset [0-9]* (P 0) needs g 16383" \
	"$TMP/late.trace" --max-size 200000
refuse "--from after the trace's end" "no event within --from/--to: the trace's events span" \
	"$T" --from 1h
echo keep > "$TMP/bad.2.trace"
rc=0
"$GOTRACE" split "$T" --max-size 200000 -o "$TMP/bad" > "$TMP/bad.out" 2>&1 || rc=$?
[ "$rc" -eq 1 ] && [ "$(cat "$TMP/bad.2.trace")" = keep ] &&
	grep -q "bad.2.trace exists: remove it, give another -o PREFIX, or --force" "$TMP/bad.out" &&
	! ls "$TMP"/bad.1.trace* "$TMP"/bad.2.trace.* > /dev/null 2>&1
result $? "a piece that exists: exit 1, named, nothing written or left over" "$TMP/bad.out"
rc=0
"$GOTRACE" split "$T" --max-size 200000 -o "$TMP/bad" --force > "$TMP/bad.out" 2>&1 || rc=$?
[ "$rc" -eq 0 ] && events "$TMP/bad.2.trace"
result $? "--force overwrites it" "$TMP/bad.out"

tap_end
