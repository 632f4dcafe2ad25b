#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# gotrace dump and check against Go 1.27's 'go tool trace -d=parsed' on Go 1.22+
# traces (TAP output). For each trace: dump's stdout is Go's byte for byte, dump
# and check exit as Go does (0 or 1), and when Go refuses the trace, both print
# Go's error message after "gotrace CMD: FILE: invalid trace (RULE, byte offset
# N): " (for "failed to advance", whose state dump Go prints in map order, the
# same lines in any order). The traces:
# - Go's own test traces (internal/trace/testdata/tests, text made binary), one
#   result each, and its fuzz corpus (the 1.22+ ones);
# - real traces of tests/wire_traces.go (Go 1.27 writes 1.26), one with the
#   AllocFree experiment's events, and its made-up wire traces;
# - tests/samples-1.26.trace, written by the module (samples_test, a generation
#   every 100 ms): CPU-sample batches and kernel stacks in every generation;
# - every trace of those with several generations, cut at each generation
#   boundary: what comes before, and a trace that starts with what follows.
#
# Usage: tests/parsed.sh GOTRACE
# Environment: GO_1_27 as for wire.sh.
set -u

GOTRACE=$1
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# shellcheck source=scripts/lib/tap-lib.sh
. "$ROOT/scripts/lib/tap-lib.sh"
# shellcheck source=userspace/tests/go127-lib.sh
. "$ROOT/userspace/tests/go127-lib.sh"
go127_setup
go127_traces

# msg FILE CMD ERRFILE: the message gotrace CMD printed for FILE, its prefix off.
msg() {
	sed "1s|^gotrace $2: $1: invalid trace ([^)]*): ||" "$3"
}

# same_msg GO_ERR ME_ERR: the same text, or for Go's "failed to advance" the same lines.
same_msg() {
	cmp -s "$1" "$2" && return 0
	grep -q '^broken trace: failed to advance' "$1" || return 1
	[ "$(grep -v '^$' "$1" | sort)" = "$(grep -v '^$' "$2" | sort)" ]
}

# compare FILE: both tools on FILE; 0 if they agree, else 1 with why in $TMP/why.
compare() {
	f=$1
	GO_RC=0
	"$TOOL" -d=parsed "$f" > "$TMP/go" 2> "$TMP/go.err" || GO_RC=$?
	ME_RC=0
	"$GOTRACE" dump "$f" > "$TMP/me" 2> "$TMP/me.err" || ME_RC=$?
	CK_RC=0
	"$GOTRACE" check -q "$f" > "$TMP/ck" 2> "$TMP/ck.err" || CK_RC=$?
	msg "$f" dump "$TMP/me.err" > "$TMP/me.msg"
	msg "$f" check "$TMP/ck.err" > "$TMP/ck.msg"
	{
		if ! cmp -s "$TMP/go" "$TMP/me"; then
			echo "$(basename "$f"): dump's stdout differs from Go's:"
			diff "$TMP/go" "$TMP/me" | head -10
		fi
		[ "$GO_RC" -le 1 ] || echo "$(basename "$f"): go exit $GO_RC: $(head -3 "$TMP/go.err")"
		if [ "$GO_RC" -ne "$ME_RC" ] || [ "$GO_RC" -ne "$CK_RC" ]; then
			echo "$(basename "$f"): go exit $GO_RC, dump exit $ME_RC, check exit $CK_RC"
		fi
		if [ "$GO_RC" -ne 0 ] && ! same_msg "$TMP/go.err" "$TMP/me.msg"; then
			echo "$(basename "$f"): dump's message is not Go's:"
			head -5 "$TMP/go.err" "$TMP/me.err"
		fi
		if [ "$GO_RC" -ne 0 ] && ! same_msg "$TMP/go.err" "$TMP/ck.msg"; then
			echo "$(basename "$f"): check's message is not Go's:"
			head -5 "$TMP/go.err" "$TMP/ck.err"
		fi
		if [ "$GO_RC" -eq 0 ] && [ -s "$TMP/ck" ]; then
			echo "$(basename "$f"): check -q printed: $(cat "$TMP/ck")"
		fi
	} > "$TMP/why.one"
	cat "$TMP/why.one" >> "$TMP/why"
	[ ! -s "$TMP/why.one" ]
}

# one FILE: a result for FILE alone.
one() {
	: > "$TMP/why"
	compare "$1"
	ok=$?
	if [ "$GO_RC" -eq 0 ]; then
		verdict="valid, $(grep -c '^M=' "$TMP/go") events"
	else
		verdict="refused: $(head -1 "$TMP/go.err")"
	fi
	result $ok "$(basename "$1"): dump = go tool trace -d=parsed, check agrees ($verdict)" \
		"$TMP/why"
}

# many DESCRIPTION FILE...: one result for all.
many() {
	desc=$1
	shift
	: > "$TMP/why"
	bad=0
	for f in "$@"; do
		compare "$f"
		[ "$GO_RC" -eq 0 ] || bad=$((bad + 1))
	done
	[ ! -s "$TMP/why" ]
	result $? "$desc: dump and check = Go on $# traces ($bad refused by both)" "$TMP/why"
}

# modern FILE...: those of the files with a Go 1.22+ header.
modern() {
	for f in "$@"; do
		head -c 8 "$f" | grep -q '^go 1\.2[2-9]' && echo "$f"
	done
}

for f in "$TMP"/godata/go1*.trace "$TMP/real.trace" "$TMP/allocfree.trace"; do
	one "$f"
done
grep -q 'Experimental .*Name=' "$TMP/go"
result $? "allocfree.trace has experimental events"
SAMPLES=$ROOT/userspace/tests/samples-1.26.trace
one "$SAMPLES"
grep -q 'StackSample' "$TMP/go" && grep -q '^	vfs_read @' "$TMP/go"
result $? "samples-1.26.trace has CPU samples in vfs_read"
# shellcheck disable=SC2046 # file names without spaces
many "Go's fuzz corpus (the 1.22+ traces)" $(modern "$TMP"/godata/fuzz-*.trace)
many "wire_traces' made-up wire traces" "$TMP"/synth/*.trace

# Cuts at generation boundaries: Go's test traces with several generations, real.trace
# and the module's samples.
mkdir -p "$TMP/cuts"
for f in "$TMP"/godata/go1*.trace "$TMP/real.trace" "$SAMPLES"; do
	"$TMP/wire_traces" cuts "$f" "$TMP/cuts" || bail "wire_traces cuts $f failed"
	set -- "$TMP"/cuts/*.trace
	[ -e "$1" ] || continue
	many "$(basename "$f") cut at its $(($# / 2)) generation boundaries" "$@"
	rm -f "$TMP"/cuts/*.trace
done

tap_end
