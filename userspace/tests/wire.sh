#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# gotrace dump --wire against Go 1.27's 'go tool trace -d=wire' (TAP output):
# - on real traces of tests/wire_traces.go (Go 1.27 writes 1.26; one with the
#   AllocFree experiment's batches) and on its made-up ones (every event type of
#   1.22, 1.23, 1.25 and 1.26, every rune and invalid UTF-8 in strings, odd
#   header spellings): the same bytes on stdout, both exit 0;
# - on Go's own test traces (its text ones made binary, and its fuzz corpus):
#   the same bytes on stdout, the same exit status;
# - cut copies of two of them: stdout is Go's; a cut between two events is a
#   whole trace to both, gotrace refuses any other with the offset of the event
#   the file ends in (Go exits 0 when the cut falls between two arguments or in
#   a string: it takes that end of file for the trace's end);
# - a bad varint, an unknown event type, bad headers, data cut short: the exact
#   error text;
# - lib/tracev2/printable.h is what lib/tracev2/printable_gen.go writes with this Go.
#
# Usage: tests/wire.sh GOTRACE [KEEP_DIR]
#   KEEP_DIR receives the small made-up traces and Go's (seeds for make fuzz).
# Environment: GO_1_27 = a Go 1.27 go binary (default: the one scripts/setup/go-fetch.sh
# fetches into build/go/1.27, instant once it is there). Builds offline, with
# GOCACHE in build/go/cache.
set -u

GOTRACE=$1
KEEP=${2:-}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# shellcheck source=scripts/lib/tap-lib.sh
. "$ROOT/scripts/lib/tap-lib.sh"

# shellcheck source=userspace/tests/go127-lib.sh
. "$ROOT/userspace/tests/go127-lib.sh"
go127_setup

# wire FILE OUT: both tools on FILE; GO_RC, ME_RC and OUT.go, OUT.me (+ .err).
wire() {
	GO_RC=0
	"$TOOL" -d=wire "$1" > "$2.go" 2> "$2.go.err" || GO_RC=$?
	ME_RC=0
	"$GOTRACE" dump --wire "$1" > "$2.me" 2> "$2.me.err" || ME_RC=$?
}

# same FILE [EVENTS]: identical output, both exit 0 (and EVENTS events if given).
same() {
	name=$(basename "$1")
	wire "$1" "$TMP/out"
	n=$(grep -cv '^	' "$TMP/out.go")
	{
		echo "go: exit $GO_RC, gotrace: exit $ME_RC"
		cat "$TMP/out.go.err" "$TMP/out.me.err"
		diff "$TMP/out.go" "$TMP/out.me" | head -20
	} > "$TMP/why"
	ok=1
	if [ "$GO_RC" -eq 0 ] && [ "$ME_RC" -eq 0 ] && cmp -s "$TMP/out.go" "$TMP/out.me" &&
	   [ "${2:-$n}" -eq "$n" ]; then
		ok=0
	fi
	[ "${2:-$n}" -eq "$n" ] || echo "go printed $n events, want $2" >> "$TMP/why"
	result $ok "$name: dump --wire = go tool trace -d=wire ($n events, $(wc -c < "$TMP/out.go") bytes)" \
		"$TMP/why"
}

# result_why DESCRIPTION: ok if $TMP/why is empty, else not ok with it.
result_why() {
	[ ! -s "$TMP/why" ]
	result $? "$1" "$TMP/why"
}

# agree DESCRIPTION FILE...: for each, Go's stdout and Go's exit status, 0 or 1.
agree() {
	desc=$1
	shift
	: > "$TMP/why"
	bad=0
	for f in "$@"; do
		wire "$f" "$TMP/out"
		[ "$GO_RC" -eq 0 ] || bad=$((bad + 1))
		if ! cmp -s "$TMP/out.go" "$TMP/out.me" || [ "$GO_RC" -ne "$ME_RC" ] ||
		   [ "$GO_RC" -gt 1 ]; then
			{
				echo "$(basename "$f"): go exit $GO_RC, gotrace exit $ME_RC"
				cat "$TMP/out.go.err" "$TMP/out.me.err"
				diff "$TMP/out.go" "$TMP/out.me" | head -5
			} >> "$TMP/why"
		fi
	done
	result_why "$desc: stdout and exit status = Go's on $# traces ($bad refused by both)"
}

# cuts FILE STEP: FILE cut at every STEP-th offset from the header on.
cuts() {
	name=$(basename "$1")
	size=$(wc -c < "$1")
	: > "$TMP/why"
	n=0
	whole=0
	at=16
	while [ "$at" -lt "$size" ]; do
		head -c "$at" "$1" > "$TMP/cut.trace"
		wire "$TMP/cut.trace" "$TMP/cut"
		n=$((n + 1))
		pat="^gotrace dump: $TMP/cut.trace: invalid trace (encoding rule, byte offset \([0-9]*\)): [A-Za-z]* at offset \1: the file ends inside"
		if ! cmp -s "$TMP/cut.go" "$TMP/cut.me"; then
			echo "cut at $at: stdout differs from Go's" >> "$TMP/why"
		elif [ "$GO_RC" -eq 0 ] && [ "$ME_RC" -eq 0 ]; then
			whole=$((whole + 1))
		elif [ "$GO_RC" -gt 1 ] || [ "$ME_RC" -ne 1 ]; then
			echo "cut at $at: go exit $GO_RC, gotrace exit $ME_RC" >> "$TMP/why"
		elif ! grep -q "$pat" "$TMP/cut.me.err"; then
			echo "cut at $at: $(cat "$TMP/cut.me.err")" >> "$TMP/why"
		else
			off=$(sed "s/.*byte offset \([0-9]*\)).*/\1/" "$TMP/cut.me.err")
			[ "$off" -lt "$at" ] || echo "cut at $at: offset $off is past the cut" >> "$TMP/why"
		fi
		at=$((at + STEP))
	done
	result_why "$name cut at $n offsets: stdout = Go's; $whole between events (both take them), gotrace refuses the $((n - whole)) others"
}

# refused NAME GO_ERR MSG BYTES: a trace of BYTES (printf format): gotrace exits 1 with
# "gotrace dump: FILE: MSG", Go fails with GO_ERR ("-" if Go takes it), same stdout.
refused() {
	f=$TMP/$1.trace
	# shellcheck disable=SC2059 # the bytes are a printf format
	printf "$4" > "$f"
	wire "$f" "$TMP/bad"
	echo "gotrace dump: $f: $3" > "$TMP/want"
	{
		echo "gotrace: exit $ME_RC:"
		cat "$TMP/bad.me.err"
		echo "want:"
		cat "$TMP/want"
		echo "go: exit $GO_RC: $(cat "$TMP/bad.go.err")"
	} > "$TMP/why"
	ok=1
	if [ "$ME_RC" -eq 1 ] && cmp -s "$TMP/want" "$TMP/bad.me.err" &&
	   cmp -s "$TMP/bad.go" "$TMP/bad.me"; then
		if [ "$2" = - ]; then
			[ "$GO_RC" -ne 0 ] || ok=0
		elif [ "$GO_RC" -eq 1 ] && [ "$(cat "$TMP/bad.go.err")" = "$2" ]; then
			ok=0
		fi
	fi
	result $ok "$1 refused: $3" "$TMP/why"
}

go127_traces
if [ -n "$KEEP" ]; then
	mkdir -p "$KEEP" && cp "$TMP"/synth/all-*.trace "$TMP"/godata/*.trace "$KEEP"/
fi

"$GO" run "$ROOT/userspace/lib/tracev2/printable_gen.go" > "$TMP/printable.h" 2>&1
cmp "$TMP/printable.h" "$ROOT/userspace/lib/tracev2/printable.h" > "$TMP/why" 2>&1
result $? "lib/tracev2/printable.h is what printable_gen.go writes with $("$GO" env GOVERSION)" \
	"$TMP/why"

# Every type of the version's table, then 4 more events (Stack and String odd cases).
same "$TMP/synth/all-1.22.trace" 48
same "$TMP/synth/all-1.23.trace" 53
same "$TMP/synth/all-1.25.trace" 55
same "$TMP/synth/all-1.26.trace" 140
for f in "$TMP"/synth/header-*.trace "$TMP/synth/runes.trace" "$TMP/real.trace" \
	"$TMP/allocfree.trace"; do
	same "$f"
done
grep -q '^ExperimentalBatch exp=1 ' "$TMP/out.go"
result $? "allocfree.trace has experimental batches"
agree "Go's test traces (internal/trace/testdata/tests, text made binary)" \
	"$TMP"/godata/go1*.trace
agree "Go's fuzz corpus (internal/trace/testdata/fuzz/FuzzReader)" "$TMP"/godata/fuzz-*.trace

STEP=13 cuts "$TMP/synth/all-1.26.trace"
STEP=$(($(wc -c < "$TMP/real.trace") / 15 + 1)) cuts "$TMP/real.trace"

H='go 1.26 trace\000\000\000'
refused bad-varint 'binary: varint overflows a 64-bit integer' \
	'invalid trace (encoding rule, byte offset 16): ProcStart at offset 16: bad varint at offset 18: it overflows 64 bits' \
	"$H\012\005\377\377\377\377\377\377\377\377\377\002\001"
refused unknown-type 'invalid event type: 45' \
	'invalid trace (encoding rule, byte offset 17): invalid event type 45 at offset 17: go 1.22 traces have types 1 to 44' \
	'go 1.22 trace\000\000\000\004\055'
refused cut-data - \
	'invalid trace (encoding rule, byte offset 16): String at offset 16: the file ends inside its 5 bytes of data: the trace is cut short' \
	"$H\005\001\005he"
refused cut-varint 'unexpected EOF' \
	'invalid trace (encoding rule, byte offset 16): EventBatch at offset 16: the file ends inside the event: the trace is cut short' \
	"$H\001\001\377"
refused version-1.24 'unknown or unsupported trace version go 1.24' \
	'invalid trace (encoding rule, byte offset 0): unknown or unsupported trace version go 1.24' \
	'go 1.24 trace\000\000\000\001'
refused not-a-trace 'bad file format: not a Go execution trace?' \
	'invalid trace (encoding rule, byte offset 0): bad file format: not a Go execution trace?' \
	'go 1.26 trace\000\000'
refused version-1.21 'invalid event type: 1' \
	'invalid trace (encoding rule, byte offset 0): go 1.21 trace: the pre-1.22 format; this reader takes go 1.22, 1.23, 1.25 and 1.26 traces' \
	'go 1.21 trace\000\000\000\001'

tap_end
