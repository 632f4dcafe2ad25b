#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Self-test of scripts/oracles/ftrace-compare.py: passes a real recorded pair, fails edited copies.
#
# Usage: scripts/oracle-tests/ftrace-compare-selftest.sh TRACE FTRACE
#
# TRACE and FTRACE are one workload's gotrace trace and ftrace text from the ftrace oracle
# (scripts/oracles/ftrace-oracle.sh: build/check/traces/KVER/oracle-pingpong.trace and
# build/check/oracle/KVER/pingpong.ftrace). The edits are made to the ftrace text, on the
# thread the workload forked that ftrace wakes most often (the ping-pong's child): one
# wakeup of it while blocked deleted; one of its blocked switch-outs (prev_state S or D)
# turned into a preemption (R); one of its switch-outs stamped 1 ms later. The comparator
# must exit 0 on the pair, 1 on each edit (naming a difference), 2 on a truncated trace.
#
# Then the flight recorder's (ftrace-compare.py --window), if the oracle's flight workload
# left its snapshots beside TRACE (oracle-flight-N.trace) and ftrace's text beside FTRACE
# (flight.ftrace): the last snapshot must pass against that text; the same three edits made
# inside its window (from its start to 60 ms before its end, past the edge tolerance) must
# fail, naming a difference, and made outside it (on a thread born and dead more than 2 ms
# before its start) must not; so must a thread's last blocked switch-out before the window
# turned into a preemption (its starting state then differs from the first generation's
# status: ftrace_edit.py --across), and the snapshot edited (ftrace_edit.py early-block: a
# switch-out moved back before ftrace's, in a generation inside the window).
#
# Then the fork storm's pair (oracle-reuse.trace beside TRACE, reuse.ftrace beside FTRACE),
# for kernels whose tracepoint probes are preemptible (--preemptible-probes): a fork moved
# before its parent's preemption and switch-in (ftrace_edit.py early-fork) is a difference
# without the option and none with it; one moved before a block (early-fork-blocked) is a
# difference with it too.
# Environment: GOTRACE, the gotrace command (default build/check/bin/gotrace). TAP on stdout.
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck disable=SC2034 # tap-lib.sh's run() runs $CHECK
CHECK="$ROOT/scripts/oracles/ftrace-compare.py"
GOTRACE=${GOTRACE:-$ROOT/build/check/bin/gotrace}
export GOTRACE
# shellcheck source=scripts/lib/tap-lib.sh
. "$ROOT/scripts/lib/tap-lib.sh"

[ $# -eq 2 ] || { echo "usage: $0 TRACE FTRACE" >&2; exit 2; }
trace=$1 ftrace=$2
echo "TAP version 13"
if [ ! -s "$trace" ] || [ ! -s "$ftrace" ]; then
	echo "Bail out! no recorded pair: $trace, $ftrace (scripts/oracles/ftrace-oracle.sh makes them)"
	exit 1
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# edit MODE IN OUT: one edit of ftrace text IN into OUT (scripts/oracle-tests/ftrace_edit.py);
# prints what it changed.
edit() {
	python3 "$ROOT/scripts/oracle-tests/ftrace_edit.py" "$@"
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

# The flight recorder's snapshot, inside its window.
snap=""
for f in "$(dirname "$trace")"/oracle-flight-*.trace; do
	[ ! -f "$f" ] || snap=$f
done
flight=$(dirname "$ftrace")/flight.ftrace
if [ -z "$snap" ] || [ ! -s "$flight" ]; then
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - flight: a snapshot within its window # SKIP no oracle-flight-N.trace beside $trace or no $flight"
else
	run flight --window "$snap" "$flight"
	sed 's/^/# flight: /' "$OUT"
	[ "$RC" -eq 0 ]
	result $? "flight: $(basename "$snap") within its window: no difference (exit status $RC)" "$OUT"
	# The window, in ftrace's seconds: "window: FROM to TO s (...)".
	from=$(sed -n 's/^window: \([0-9.]*\) to .*/\1/p' "$OUT")
	to=$(sed -n 's/^window: [0-9.]* to \([0-9.]*\) s.*/\1/p' "$OUT")
	inner=$(awk -v t="${to:-0}" 'BEGIN { printf "%.6f", t - 0.06 }')
	before=$(awk -v f="${from:-0}" 'BEGIN { printf "%.6f", f - 0.002 }')
	for mode in drop-wakeup flip-state late-switch; do
		for where in inside outside; do
			if [ "$where" = inside ]; then
				set -- --from "${from:-0}" --to "$inner"
			else
				set -- --to "$before" --whole
			fi
			e=$TMP/flight-$mode-$where
			if ! edit "$@" "$mode" "$flight" "$e.ftrace" > "$e.edit" 2>&1; then
				result 1 "flight: $mode $where the window: cannot edit the ftrace text" "$e.edit"
				continue
			fi
			sed "s/^/# edit $where: /" "$e.edit"
			run "flight-$mode-$where" --window "$snap" "$e.ftrace"
			grep -A3 '^differences' "$OUT" | sed 's/^/# /'
			if [ "$where" = inside ]; then
				[ "$RC" -eq 1 ] && grep -q '^differences: [1-9]' "$OUT"
				result $? "flight: $mode inside the window: the comparator finds the difference (exit status $RC)" "$OUT"
			else
				[ "$RC" -eq 0 ]
				result $? "flight: $mode outside the window: no difference (exit status $RC)" "$OUT"
			fi
		done
	done
	e=$TMP/flight-across
	if ! edit --across "${from:-0}" flip-state "$flight" "$e.ftrace" > "$e.edit" 2>&1; then
		result 1 "flight: flip-state across the window's start: cannot edit the ftrace text" "$e.edit"
	else
		sed 's/^/# edit across: /' "$e.edit"
		run flight-across --window "$snap" "$e.ftrace"
		grep -A3 '^differences' "$OUT" | sed 's/^/# /'
		[ "$RC" -eq 1 ] && grep -q '^  .*starting state differs' "$OUT"
		result $? "flight: a thread blocked at the window's start shown runnable: the comparator finds its starting state differs (exit status $RC)" "$OUT"
	fi
	if ! edit early-block "$snap" "$TMP/early.trace" > "$TMP/early.edit" 2>&1; then
		result 1 "flight: early-block: cannot edit the snapshot" "$TMP/early.edit"
	else
		sed 's/^/# edit: /' "$TMP/early.edit"
		run flight-early --window "$TMP/early.trace" "$flight"
		grep -A3 '^differences' "$OUT" | sed 's/^/# /'
		[ "$RC" -eq 1 ] && grep -q '^differences: [1-9]' "$OUT"
		result $? "flight: the snapshot edited inside its window (early-block): the comparator finds the difference (exit status $RC)" "$OUT"
	fi
fi

# A fork ftrace has before its parent's preemption, gotrace after: preemptible probes.
reuse=$(dirname "$trace")/oracle-reuse.trace
reuse_ft=$(dirname "$ftrace")/reuse.ftrace
if [ ! -s "$reuse" ] || [ ! -s "$reuse_ft" ]; then
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - early-fork: preemptible probes # SKIP no $reuse or $reuse_ft"
else
	for mode in early-fork early-fork-blocked; do
		if ! edit "$mode" "$reuse_ft" "$TMP/$mode.ftrace" > "$TMP/$mode.edit" 2>&1; then
			result 1 "$mode: cannot edit the ftrace text" "$TMP/$mode.edit"
			continue
		fi
		sed 's/^/# edit: /' "$TMP/$mode.edit"
		for opt in "" --preemptible-probes; do
			# shellcheck disable=SC2086 # no word without the option
			run "$mode$opt" $opt "$reuse" "$TMP/$mode.ftrace"
			grep -A3 '^differences' "$OUT" | sed 's/^/# /'
			if [ "$mode$opt" = early-fork--preemptible-probes ]; then
				[ "$RC" -eq 0 ] && grep -q '^ftrace forks and renames .*: 1$' "$OUT"
				result $? "$mode: with --preemptible-probes, the fork moved after the switch-in: no difference (exit status $RC)" "$OUT"
			else
				[ "$RC" -eq 1 ] && grep -q '^differences: [1-9]' "$OUT"
				result $? "$mode${opt:+ with $opt}: the comparator finds the difference (exit status $RC)" "$OUT"
			fi
		done
	done
fi

head -c 100 "$trace" > "$TMP/short.trace"
run short "$TMP/short.trace" "$ftrace"
[ "$RC" -eq 2 ]
result $? "a truncated trace: the comparator cannot read it (exit status $RC)" "$OUT"
tap_end
