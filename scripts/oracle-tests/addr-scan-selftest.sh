#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Self-test of scripts/oracles/addr-scan.sh: it passes real traces, fails a kernel address in each.
#
# Usage: scripts/oracle-tests/addr-scan-selftest.sh TRACE...
#
# Each TRACE is a recorded trace of any format (build/check/traces/KVER/oracle-pingpong.trace
# and oracle-pingpong-1.26.trace: one of each). The scan must pass it, and must fail its copy
# with one frame PC set to 0xffffffff81234560 (scripts/oracle-tests/trace_edit.py kernel-pc), naming
# that value; the copy stays a valid trace (gotrace check), so only the address can fail it.
# Environment: GOTRACE, the gotrace command (default build/check/bin/gotrace). TAP on stdout.
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck disable=SC2034 # tap-lib.sh's run() runs $CHECK
CHECK="$ROOT/scripts/oracles/addr-scan.sh"
GOTRACE=${GOTRACE:-$ROOT/build/check/bin/gotrace}
export GOTRACE
# shellcheck source=scripts/lib/tap-lib.sh
. "$ROOT/scripts/lib/tap-lib.sh"

[ $# -ge 1 ] || { echo "usage: $0 TRACE..." >&2; exit 2; }
echo "TAP version 13"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

i=0
for trace in "$@"; do
	i=$((i + 1))
	if [ ! -s "$trace" ]; then
		result 1 "$trace: no such recorded trace (the selftests or the ftrace oracle make it)"
		continue
	fi
	run "orig$i" "$trace"
	[ "$RC" -eq 0 ]
	result $? "$trace: no kernel address found (exit status $RC)" "$OUT"

	kpc=$TMP/kpc$i.trace
	if ! python3 "$ROOT/scripts/oracle-tests/trace_edit.py" kernel-pc "$trace" "$kpc" \
		> "$TMP/edit$i.out" 2>&1; then
		result 1 "$trace: cannot set a frame PC to a kernel address" "$TMP/edit$i.out"
		continue
	fi
	"$GOTRACE" check "$kpc" > "$TMP/check$i.out" 2>&1
	result $? "$trace: the edited copy is a valid trace" "$TMP/check$i.out"
	run "kpc$i" "$kpc"
	[ "$RC" -eq 1 ] && grep -q '0xffffffff81234560' "$OUT"
	result $? "$trace with a kernel frame PC: the scan names 0xffffffff81234560 (exit status $RC)" \
		"$OUT"
done
tap_end
