#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Self-test of scripts/ftrace-compare.py: it passes a real recorded pair and fails edited copies.
#
# Usage: scripts/ftrace-compare-selftest.sh TRACE FTRACE
#
# TRACE and FTRACE are one workload's gotrace trace and ftrace text from the ftrace oracle
# (scripts/ftrace-oracle.sh: build/check/traces/KVER/oracle-pingpong.trace and
# build/check/oracle/KVER/pingpong.ftrace). The edits are made to the ftrace text, on the
# thread the workload forked that ftrace wakes most often (the ping-pong's child): one
# wakeup of it while blocked deleted; one of its blocked switch-outs (prev_state S or D)
# turned into a preemption (R); one of its switch-outs stamped 1 ms later. The comparator
# must exit 0 on the pair, 1 on each edit (naming a difference), 2 on a truncated trace.
# Environment: GOTRACE, the gotrace command (default build/check/bin/gotrace). TAP on stdout.
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck disable=SC2034 # tap-lib.sh's run() runs $CHECK
CHECK="$ROOT/scripts/ftrace-compare.py"
GOTRACE=${GOTRACE:-$ROOT/build/check/bin/gotrace}
export GOTRACE
# shellcheck source=scripts/tap-lib.sh
. "$ROOT/scripts/tap-lib.sh"

[ $# -eq 2 ] || { echo "usage: $0 TRACE FTRACE" >&2; exit 2; }
trace=$1 ftrace=$2
echo "TAP version 13"
if [ ! -s "$trace" ] || [ ! -s "$ftrace" ]; then
	echo "Bail out! no recorded pair: $trace, $ftrace (scripts/ftrace-oracle.sh makes them)"
	exit 1
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# edit MODE IN OUT: one edit of ftrace text IN into OUT (scripts/ftrace_edit.py); prints
# what it changed.
edit() {
	python3 "$ROOT/scripts/ftrace_edit.py" "$@"
}

run pair "$trace" "$ftrace"
sed 's/^/# /' "$OUT"
[ "$RC" -eq 0 ]
result $? "the recorded pair: no difference (exit status $RC)" "$OUT"

for mode in drop-wakeup flip-state late-switch; do
	if ! edit "$mode" "$ftrace" "$TMP/$mode.ftrace" > "$TMP/$mode.edit" 2>&1; then
		result 1 "$mode: cannot edit the ftrace text" "$TMP/$mode.edit"
		continue
	fi
	sed 's/^/# edit: /' "$TMP/$mode.edit"
	run "$mode" "$trace" "$TMP/$mode.ftrace"
	grep -A3 '^differences' "$OUT" | sed 's/^/# /'
	[ "$RC" -eq 1 ] && grep -q '^differences: [1-9]' "$OUT"
	result $? "$mode: the comparator finds the difference (exit status $RC)" "$OUT"
done

head -c 100 "$trace" > "$TMP/short.trace"
run short "$TMP/short.trace" "$ftrace"
[ "$RC" -eq 2 ]
result $? "a truncated trace: the comparator cannot read it (exit status $RC)" "$OUT"
tap_end
