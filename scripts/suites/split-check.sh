#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# gotrace split on a large trace (the long run's, say 1 GiB), held to Go's readers; TAP.
#
# Usage: scripts/suites/split-check.sh TRACE OUTDIR
#   TRACE   a trace of either format (its header says which)
#   OUTDIR  where the pieces go (created; pieces already there are overwritten)
#
# Tests:
#   1. gotrace split TRACE --max-size 64M exits 0; its time, MB/s and peak RSS are printed
#      as "# " lines (from /usr/bin/time when present, else the shell's clock).
#   2. gotrace check accepts every piece, with the events (older format) its line says.
#   3. The events add up: older format, the pieces' events less the synthesised ones are
#      the trace's; Go 1.22+, the pieces' events less one Sync event per piece but the
#      first are the trace's (gotrace check counts both).
#   4-6. Go's reader of the trace's version accepts the first, a middle and the last piece
#      (GO_PIECES=all: every piece, a test each; GO_PIECES=0: none):
#      'go tool trace -d' of Go 1.19 (1.11 and 1.19 traces) or 1.21 (1.21 traces); for a
#      Go 1.22+ trace, Go 1.27's trace tool -d=parsed (GO127_TRACE, default the one
#      scripts/setup/go-fetch.sh builds). Skipped ("# SKIP") when that Go is not installed.
#      They run on the 64M pieces themselves, the ones split delivers, not on smaller ones
#      cut for the test: each takes ~5 GB of RAM and ~90 s, one at a time, so the machine
#      needs ~6 GB free and the three ~5 minutes (Go 1.21 on a 64M piece of the older format:
#      34 s of CPU, 4.5 GB).
#   7. scripts/oracles/go-check.sh (Go's parsers and every page of go tool trace, Go 1.27's
#      viewer too) passes a one-second piece from the middle of the trace (gotrace split
#      --from T --to T+1s): what a user opens. The 64M pieces are too large for this
#      (the pages of each take minutes and 5 GB); a piece of the older format opens
#      with a made-up state that the pages read further than the parsers do.
#      Skipped with GO_PIECES=0.
#
# Environment: GOTRACE (default userspace/gotrace), GO119, GO121 (Go roots, default
# /usr/lib/go-1.19 and /usr/lib/go-1.21), GO127_TRACE, SPLIT_SIZE (default 64M).
# Exit status: 0 when every test passed, 1 otherwise, 2 on bad usage.
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/lib/tap-lib.sh
. "$ROOT/scripts/lib/tap-lib.sh"

if [ $# -ne 2 ] || [ ! -f "$1" ]; then
	echo "usage: $0 TRACE OUTDIR (TRACE a trace file)" >&2
	exit 2
fi
TRACE=$1
OUT=$2
SIZE=${SPLIT_SIZE:-64M}
GO119=${GO119:-/usr/lib/go-1.19}/bin/go
GO121=${GO121:-/usr/lib/go-1.21}/bin/go
TOOL127=${GO127_TRACE:-$ROOT/build/go/1.27/tool/trace}
need_gotrace "to split and check the trace"
echo "TAP version 13"
mkdir -p "$OUT" || exit 2
LOG=$OUT/split-check
PREFIX=$OUT/$(basename "$TRACE" .trace)

# split: gotrace split into $OUT, timed; its lines in $LOG.out, "PATH EVENTS SYNTH" per
# piece in $LOG.pieces.
split() {
	start=$(date +%s.%N)
	rc=0
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%e %U %S %M' -o "$LOG.time" "$GOTRACE" split "$TRACE" \
			--max-size "$SIZE" -o "$PREFIX" --force > "$LOG.out" 2>&1 || rc=$?
	else
		"$GOTRACE" split "$TRACE" --max-size "$SIZE" -o "$PREFIX" --force \
			> "$LOG.out" 2>&1 || rc=$?
		awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { print e - s, "?", "?", 0 }' \
			> "$LOG.time"
	fi
	result "$rc" "gotrace split --max-size $SIZE exits 0" "$LOG.out"
	fmt='# split: %d bytes in %.2f s: %.1f MB/s (%s s user, %s s system), peak RSS %.1f MiB\n'
	awk -v n="$(stat -c %s "$TRACE")" -v f="$fmt" \
		'{ printf f, n, $1, n / $1 / 1e6, $2, $3, $4 / 1024 }' "$LOG.time"
	sed -n 's/^\(.*\): \([0-9]*\) events (\([0-9]*\) synthesised).*/\1 \2 \3/p;
		s/^\(.*\): generations [0-9]*-[0-9]*, .*/\1 - 0/p' "$LOG.out" > "$LOG.pieces"
	sed 's/^/# /' "$LOG.out"
}

# count FILE: gotrace check's event count of FILE, or nothing if invalid.
count() {
	"$GOTRACE" check "$1" 2>&1 | sed -n 's/.*: valid go 1\.[0-9]* trace: \([0-9]*\) events.*/\1/p'
}

# checked: every piece valid, with the events its line says; SUM their events less synthesised.
checked() {
	: > "$LOG.why"
	SUM=0
	while read -r path ev syn; do
		n=$(count "$path")
		if [ -z "$n" ]; then
			"$GOTRACE" check "$path" >> "$LOG.why" 2>&1
			continue
		fi
		[ "$ev" = - ] || [ "$n" -eq "$ev" ] ||
			echo "$path: $n events, its line says $ev" >> "$LOG.why"
		SUM=$((SUM + n - syn))
	done < "$LOG.pieces"
	[ -s "$LOG.pieces" ] && [ ! -s "$LOG.why" ]
}

# go_parse PATH: Go's reader of the trace's version parses PATH; SKIP if it is missing.
go_parse() {
	case $(head -c 16 "$TRACE" | tr -d '\0' | sed -n 's/^go 1\.\([0-9]*\) trace$/\1/p') in
	7 | 8 | 9 | 10 | 11 | 19) cmd="$GO119 tool trace -d" ;;
	21) cmd="$GO121 tool trace -d" ;;
	*) cmd="$TOOL127 -d=parsed" ;;
	esac
	tool=${cmd%% *}
	if [ ! -x "$tool" ]; then
		result 0 "$2: Go parses $(basename "$1") # SKIP no $tool"
		return
	fi
	# shellcheck disable=SC2086 # the command and its options
	$cmd "$1" < /dev/null > /dev/null 2> "$LOG.go" && rc=0 || rc=$?
	result "$rc" "$2: $cmd accepts $(basename "$1")" "$LOG.go"
}

split
checked
result $? "gotrace check accepts every piece, with the events its line says" "$LOG.why"
total=$(count "$TRACE")
pieces=$(wc -l < "$LOG.pieces")
if grep -q ' - 0$' "$LOG.pieces"; then
	SUM=$((SUM - pieces + 1))	# Go 1.22+: a Sync event more per piece
fi
echo "pieces: $SUM events of the trace's own, the trace: ${total:-invalid}" > "$LOG.why"
[ -n "$total" ] && [ "$SUM" -eq "$total" ]
result $? "the pieces' events add up to the trace's ($pieces pieces)" "$LOG.why"
if [ "${GO_PIECES:-3}" = 0 ] || [ "$pieces" -eq 0 ]; then
	result 0 "Go parses the first, a middle and the last piece # SKIP GO_PIECES=0 or no piece"
elif [ "${GO_PIECES:-3}" = all ]; then
	i=0
	while read -r path _; do
		i=$((i + 1))
		go_parse "$path" "piece $i of $pieces"
	done < "$LOG.pieces"
else
	go_parse "$(sed -n 1p "$LOG.pieces" | cut -d' ' -f1)" first
	go_parse "$(sed -n "$(((pieces + 1) / 2))p" "$LOG.pieces" | cut -d' ' -f1)" middle
	go_parse "$(sed -n "${pieces}p" "$LOG.pieces" | cut -d' ' -f1)" last
fi
# The trace's middle second, from the last piece's end time ("... s to END s").
mid=$(sed -n 's/.* to \([0-9]*\)\.[0-9]* s$/\1/p' "$LOG.out" | tail -1)
if [ "${GO_PIECES:-3}" = 0 ] || [ -z "$mid" ]; then
	result 0 "go-check.sh passes a one-second piece # SKIP GO_PIECES=0 or no piece"
else
	mid=$((mid / 2))
	rm -f "$OUT"/middle.*.trace
	"$GOTRACE" split "$TRACE" --from "${mid}s" --to "$((mid + 1))s" -o "$OUT/middle" \
		> "$LOG.mid" 2>&1 &&
		"$ROOT/scripts/oracles/go-check.sh" "$OUT"/middle.*.trace >> "$LOG.mid" 2>&1
	result $? "go-check.sh passes the piece of ${mid}s to $((mid + 1))s, every page" \
		"$LOG.mid"
	sed -n 's/^\(ok\|not ok\) [0-9]* - /# \1: /p' "$LOG.mid"
fi
tap_end
