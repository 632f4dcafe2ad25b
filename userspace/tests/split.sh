#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# gotrace split on generated go 1.26 and 1.25 traces of 1 MiB generations (TAP output).
# For each split: every piece is valid (gotrace check), has the generations and bytes its
# line says, the pieces' generations run 1 to the last without a gap, their bytes are the
# trace's (a header each), and their events add up to the trace's: gotrace check counts
# Go's events, and each trace has one Sync event more than its generations, so the pieces
# hold pieces-1 events more. With Go 1.27's trace tool (GO127_TRACE, default the one
# scripts/setup/go-fetch.sh builds), the pieces of each generation alone and of the 1.25 trace
# are also parsed by it. Then what each way of
# cutting picks: --every 1ns gives each generation alone, whose sizes and times the other
# splits are held to (--max-size: pieces as large as fit; --every: a piece from the first
# generation DURATION after the last piece's start; --from/--to: the generations that
# overlap). Bad inputs exit 1 with their message and write nothing. (Traces of Go's format
# before 1.22: tests/split_oldtrace.sh.)
#
# Usage: tests/split.sh GOTRACE GEN_TRACE
# shellcheck disable=SC2016 # awk programs in single quotes
set -u

GOTRACE=$1
GEN=$2
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TOOL127=${GO127_TRACE:-$ROOT/build/go/1.27/tool/trace}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# shellcheck source=scripts/lib/tap-lib.sh
. "$ROOT/scripts/lib/tap-lib.sh"


# split NAME TRACE ARGS...: gotrace split TRACE ARGS -o $TMP/NAME; its lines in $TMP/NAME.out,
# its stderr in $TMP/NAME.err, a line per piece "PATH FIRST LAST BYTES FROM TO" in
# $TMP/NAME.pieces.
split() {
	name=$1
	trace=$2
	shift 2
	rc=0
	"$GOTRACE" split "$trace" "$@" -o "$TMP/$name" > "$TMP/$name.out" \
		2> "$TMP/$name.err" || rc=$?
	cat "$TMP/$name.err" >> "$TMP/$name.out"
	n='\([0-9.]*\)'
	sed -n "s/^\(.*\): generations $n-$n, $n bytes, $n s to $n s\$/\1 \2 \3 \4 \5 \6/p" \
		"$TMP/$name.out" > "$TMP/$name.pieces"
	expect "$name: gotrace split $* exits 0" "$TMP/$name.out" [ "$rc" -eq 0 ]
}

# events FILE: gotrace check FILE; EVENTS gets Go's events in it, GENS its generations.
events() {
	"$GOTRACE" check "$1" > "$TMP/check.out" 2>&1 || return 1
	EVENTS=$(sed -n 's/.*: valid go 1\.[0-9]* trace: \([0-9]*\) events.*/\1/p' "$TMP/check.out")
	GENS=$(sed -n 's/.* events in \([0-9]*\) generations.*/\1/p' "$TMP/check.out")
}

# pieces_valid NAME: each piece valid, with the generations and bytes its line says.
pieces_valid() {
	: > "$TMP/why"
	sum=0
	while read -r path first last bytes _; do
		events "$path" || { cat "$TMP/check.out" >> "$TMP/why"; continue; }
		sum=$((sum + EVENTS))
		[ "$GENS" -eq $((last - first + 1)) ] ||
			echo "$path: $GENS generations, the line says $first-$last" >> "$TMP/why"
		[ "$(stat -c %s "$path")" -eq "$bytes" ] ||
			echo "$path: $(stat -c %s "$path") bytes, its line $bytes" >> "$TMP/why"
	done < "$TMP/$1.pieces"
	SUM=$sum
	[ -s "$TMP/$1.pieces" ] && [ ! -s "$TMP/why" ]
}

# go_valid NAME: Go 1.27 parses each piece.
go_valid() {
	: > "$TMP/why"
	while read -r path _; do
		"$TOOL127" -d=parsed "$path" > /dev/null 2> "$TMP/go.err" ||
			{ echo "$path:"; head -5 "$TMP/go.err"; } >> "$TMP/why"
	done < "$TMP/$1.pieces"
	[ ! -s "$TMP/why" ]
}

# contiguous NAME GENS: generations 1 to GENS, each in one piece, in order.
contiguous() {
	awk -v gens="$2" '$2 != next_gen + 1 { bad = 1 } { next_gen = $3 }
		END { exit bad || next_gen != gens }' next_gen=0 "$TMP/$1.pieces"
}

# same_bytes NAME TRACE: the pieces' bytes, less a 16-byte header each, are the trace's.
same_bytes() {
	[ "$(awk '{ n += $4 - 16 } END { print n + 16 }' "$TMP/$1.pieces")" -eq \
		"$(stat -c %s "$2")" ]
}

# check_pieces NAME TRACE [go]: the pieces of TRACE, as above; with go, by Go 1.27 too.
check_pieces() {
	expect "$1: every piece valid, with the generations and bytes its line says" "$TMP/why" \
		pieces_valid "$1"
	expect "$1: generations 1-$ALL_GENS in order, each in one piece" "$TMP/$1.out" \
		contiguous "$1" "$ALL_GENS"
	expect "$1: the pieces hold the trace's bytes, a header each" "$TMP/$1.out" \
		same_bytes "$1" "$2"
	echo "$1: $SUM events in $(wc -l < "$TMP/$1.pieces") pieces, trace $ALL_EVENTS" \
		> "$TMP/why"
	expect "$1: the events add up (one Sync more per piece)" "$TMP/why" \
		[ "$((SUM - $(wc -l < "$TMP/$1.pieces") + 1))" -eq "$ALL_EVENTS" ]
	[ "${3:-}" = go ] || return 0
	if [ -x "$TOOL127" ]; then
		expect "$1: Go 1.27 parses every piece" "$TMP/why" go_valid "$1"
	else
		result 0 "$1: Go 1.27 parses every piece # SKIP no $TOOL127"
	fi
}

# trace FORMAT MIB: a generated trace in $T, its events and generations in ALL_*.
trace() {
	T=$TMP/t$1.trace
	GENS=0
	rc=0
	{ "$GEN" -f "$1" -g 1 "$T" "$2" && events "$T" && [ "$GENS" -gt 4 ]; } \
		> "$TMP/gen.out" 2>&1 || rc=1
	result $rc "a go 1.$1 trace of $GENS generations (gen_trace, gotrace check)" \
		"$TMP/gen.out"
	ALL_GENS=$GENS
	ALL_EVENTS=$EVENTS
}

# expected NAME COLUMN AWK: the pieces' first (COLUMN 2) or last (3) generations are those
# AWK prints from each generation's line in $TMP/one.pieces ($2 the generation, $4 its
# bytes, $5 $6 its times; ns() gives them in ns).
expected() {
	awk "function ns(s) { return int(s * 1e9 + 0.5) } $3" "$TMP/one.pieces" > "$TMP/want"
	awk -v c="$2" '{ print $c }' "$TMP/$1.pieces" > "$TMP/got"
	{ echo "column $2 of the pieces, expected then got:"; paste "$TMP/want" "$TMP/got"; } \
		> "$TMP/why"
	which=last
	[ "$2" -eq 3 ] || which=first
	expect "$1: the pieces' $which generations as expected" "$TMP/why" \
		cmp -s "$TMP/want" "$TMP/got"
}

# refuse DESCRIPTION PATTERN ARGS...: gotrace split ARGS exits 1, stderr matching PATTERN,
# and writes no piece $TMP/bad.*.
refuse() {
	desc=$1
	pattern=$2
	shift 2
	rc=0
	"$GOTRACE" split "$@" > "$TMP/bad.out" 2> "$TMP/bad.err" || rc=$?
	cat "$TMP/bad.err" >> "$TMP/bad.out"
	[ "$rc" -eq 1 ] && grep -q -e "$pattern" "$TMP/bad.err" &&
		! ls "$TMP"/bad.*.trace > /dev/null 2>&1
	result $? "refused, $desc: exit 1, '$pattern', nothing written" "$TMP/bad.out"
}

echo "TAP version 13"

trace 26 8
split one "$T" --every 1ns
check_pieces one "$T" go
expect "one: a piece per generation" "$TMP/one.out" \
	[ "$(wc -l < "$TMP/one.pieces")" -eq "$ALL_GENS" ]
expect "one: the pieces are their owner's only (0600, as record's trace)" "$TMP/one.out" \
	[ -z "$(find "$TMP" -name 'one.*.trace' ! -perm 0600)" ]

split size "$T" --max-size 3M
check_pieces size "$T"
expected size 2 '{ if (!n || bytes + $4 - 16 > 3 * 1048576) { print $2; bytes = 16; n++ }
	bytes += $4 - 16 }'
expect "size: no piece over 3M" "$TMP/size.out" \
	awk '$4 > 3 * 1048576 { exit 1 }' "$TMP/size.pieces"

split small "$T" --max-size 1M
check_pieces small "$T"
expected small 2 '{ if (!n || bytes + $4 - 16 > 1048576) { print $2; bytes = 16; n++ }
	bytes += $4 - 16 }'
awk '$4 > 1048576 { print "warning: generation " $2 " is " $4 " bytes" }' "$TMP/one.pieces" \
	> "$TMP/want"
sed -n 's/^gotrace split: \(warning: generation [0-9]* is [0-9]* bytes\).*/\1/p' \
	"$TMP/small.err" > "$TMP/got"
[ -s "$TMP/got" ] && cmp -s "$TMP/want" "$TMP/got"
result $? "small: a warning for each generation over 1M, and only those" "$TMP/small.err"

split every "$T" --every 10ms
check_pieces every "$T"
expected every 2 '{ if (!n || ns($5) - start >= 10000000) { print $2; start = ns($5); n++ } }'

split range "$T" --from 7ms --to 15.5ms
expect "range: its piece valid, with the generations and bytes its line says" "$TMP/why" \
	pieces_valid range
OVERLAP='ns($5) <= 15500000 && ns($6) >= 7000000'
expected range 2 "{ if ($OVERLAP && !n++) print \$2 }"
expected range 3 "{ if ($OVERLAP) last = \$2 } END { print last }"

trace 25 5
split v25 "$T" --max-size 2M
check_pieces v25 "$T" go

T=$TMP/t26.trace
head -c 5000000 "$T" > "$TMP/cut.trace"
refuse "a trace cut inside a batch" \
	"invalid trace (encoding rule, byte offset [0-9]*): failed to read full batch" \
	"$TMP/cut.trace" --every 1s -o "$TMP/bad"
head -c "$(awk 'NR == 3 { print $4 - 1 }' "$TMP/one.pieces")" "$TMP/one.3.trace" \
	> "$TMP/cut2.trace"
refuse "a go 1.26 generation without its end" \
	"incomplete generation found; trace likely truncated" \
	"$TMP/cut2.trace" --every 1s -o "$TMP/bad"
printf 'go 1.26 trace\0\0\0' > "$TMP/empty.trace"
refuse "a trace of no generation" "no generations after the header: nothing to split" \
	"$TMP/empty.trace" --every 1s -o "$TMP/bad"
refuse "--from after the trace's end" "no generation overlaps --from/--to" \
	"$T" --from 1h -o "$TMP/bad"
refuse "a missing file" "cannot open: No such file" "$TMP/nope.trace" --every 1s -o "$TMP/bad"

cp "$TMP/one.2.trace" "$TMP/keep"
rc=0
"$GOTRACE" split "$T" --every 1ns -o "$TMP/one" > "$TMP/again.out" 2>&1 || rc=$?
[ "$rc" -eq 1 ] && cmp -s "$TMP/keep" "$TMP/one.2.trace" &&
	grep -q "one.1.trace exists: remove it, give another -o PREFIX, or --force" "$TMP/again.out"
result $? "a piece that exists: exit 1, named, nothing overwritten" "$TMP/again.out"
rc=0
"$GOTRACE" split "$T" --max-size 3M -o "$TMP/one" --force > "$TMP/again.out" 2>&1 || rc=$?
[ "$rc" -eq 0 ] && cmp -s "$TMP/size.1.trace" "$TMP/one.1.trace"
result $? "--force overwrites" "$TMP/again.out"
rc=0
"$GOTRACE" split "$TMP/one.1.trace" --every 1ns -o "$TMP/one" --force > "$TMP/again.out" \
	2>&1 || rc=$?
[ "$rc" -eq 1 ] && grep -q "one.1.trace is the trace being split" "$TMP/again.out"
result $? "the trace as its own piece: refused even with --force" "$TMP/again.out"
cp "$T" "$TMP/named.trace"
rc=0
"$GOTRACE" split "$TMP/named.trace" --max-size 3M > "$TMP/named.out" 2>&1 || rc=$?
[ "$rc" -eq 0 ] && cmp -s "$TMP/size.2.trace" "$TMP/named.2.trace"
result $? "PREFIX is FILE without .trace" "$TMP/named.out"

tap_end
