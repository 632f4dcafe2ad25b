#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record --max-size's framer (record/generation_framer.c, by tests/roll_feed.c) on generated go
# 1.26 and 1.25 traces of 1 MiB generations, fed in reads of 1 byte to 64 KiB as /dev/gotrace
# gives them (TAP output). For each run: at least 2 files, each valid (gotrace check) with the
# generations its line says and within the size unless it holds one generation, the
# generations contiguous across the files, their bytes the trace's once the repeated
# headers are dropped, and their events the trace's plus a Sync event per file after the
# first. A size under a generation puts each alone in its file, with a warning.
#
# Usage: tests/roll.sh GOTRACE GEN_TRACE ROLL_FEED
set -u

GOTRACE=$1
GEN=$2
FEED=$3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# shellcheck source=scripts/lib/tap-lib.sh
. "$(dirname "$0")/../../scripts/lib/tap-lib.sh"

# events FILE: gotrace check FILE; EVENTS gets Go's events in it, GENS its generations.
events() {
	"$GOTRACE" check "$1" > "$TMP/check.out" 2>&1 || return 1
	EVENTS=$(sed -n 's/.*: valid go 1\.[0-9]* trace: \([0-9]*\) events.*/\1/p' "$TMP/check.out")
	GENS=$(sed -n 's/.* events in \([0-9]*\) generations.*/\1/p' "$TMP/check.out")
}

# roll NAME TRACE MAX CHUNK: the framer's files of TRACE, and what they must be.
roll() {
	name=$1
	trace=$2
	max=$3
	rm -f "$TMP/$name".*
	rc=0
	"$FEED" "$trace" "$max" "$4" "$TMP/$name" > "$TMP/$name.files" 2> "$TMP/$name.err" || rc=$?
	cat "$TMP/$name.files" "$TMP/$name.err" > "$TMP/$name.out"
	expect "$name: reads of $4 bytes, files of $max bytes at most: exit 0" "$TMP/$name.out" \
		[ "$rc" -eq 0 ]
	expect "$name: at least 2 files" "$TMP/$name.out" [ "$(wc -l < "$TMP/$name.files")" -ge 2 ]

	: > "$TMP/why"
	: > "$TMP/$name.cat"
	next=1
	sum=0
	n=0
	while read -r path first gens bytes; do
		n=$((n + 1))
		if ! events "$path"; then
			cat "$TMP/check.out" >> "$TMP/why"
			continue
		fi
		sum=$((sum + EVENTS))
		[ "$GENS" = "$gens" ] || echo "# $path: $GENS generations, its line says $gens" >> "$TMP/why"
		[ "$(stat -c %s "$path")" = "$bytes" ] || echo "# $path: not $bytes bytes" >> "$TMP/why"
		[ "$first" = "$next" ] || echo "# $path: starts at generation $first, not $next" >> "$TMP/why"
		[ "$bytes" -le "$max" ] || [ "$gens" -eq 1 ] ||
			echo "# $path: $bytes bytes in $gens generations, over $max" >> "$TMP/why"
		next=$((first + gens))
		if [ "$n" -eq 1 ]; then
			cat "$path" >> "$TMP/$name.cat"
		else
			tail -c +17 "$path" >> "$TMP/$name.cat"
		fi
	done < "$TMP/$name.files"
	expect "$name: each file valid, with its generations, contiguous, within the size" \
		"$TMP/why" [ ! -s "$TMP/why" ]
	cmp "$trace" "$TMP/$name.cat" > "$TMP/why" 2>&1
	expect "$name: the files without their repeated headers are the trace" "$TMP/why" \
		[ ! -s "$TMP/why" ]
	events "$trace"
	echo "# files: $sum events, trace: $EVENTS" > "$TMP/why"
	expect "$name: the files' events are the trace's and a Sync per file after the first" \
		"$TMP/why" [ "$sum" -eq $((EVENTS + n - 1)) ]
}

"$GEN" -f 26 -g 1 "$TMP/t26.trace" 6 > /dev/null
"$GEN" -f 25 -g 1 "$TMP/t25.trace" 6 > /dev/null
"$GEN" -f 26 -g 1 "$TMP/small.trace" 3 > /dev/null
roll 1.26 "$TMP/t26.trace" 3000000 777
roll 1.26-64K "$TMP/t26.trace" 2500000 65536
roll 1.26-bytes "$TMP/small.trace" 2200000 1
roll 1.25 "$TMP/t25.trace" 3000000 4096
roll alone "$TMP/t26.trace" 100000 1000
warning="warning: generation 1 is [0-9]* bytes with the header, over --max-size 100000: "
expect "alone: a generation over the size goes alone in its file, with a warning" \
	"$TMP/alone.out" grep -q "$warning""it goes alone in file 1" "$TMP/alone.err"
expect "alone: a file per generation" "$TMP/alone.out" \
	[ "$(wc -l < "$TMP/alone.files")" -eq "$GENS" ]
tap_end
