#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Self-test of scripts/oracles/join-compare.py: passes what a join should be, fails broken ones.
#
# Usage: scripts/oracle-tests/join-compare-selftest.sh RUNDIR
#
# RUNDIR is one run of the join oracle (scripts/oracles/join-oracle.sh: build/check/join/KVER/
# go1.27, with app.trace, ftrace.txt, tids, cpu.stat.before and cpu.stat.after).
# scripts/oracle-tests/join_synth.py writes, as Go's -d=parsed text, APP with a kernel region
# for every joinable off-CPU span: the comparator must pass it (and the same with APP read
# from app.trace by Go 1.27's tool) and fail, naming the region or span, each broken copy:
# a region moved 200 us later (no region for its span: (a); a region without a span: (b)),
# a region left out ((a) only), an extra region ((b) only), cpu.stat's throttled time
# below the throttled regions' ((d) only), and a log naming a thread that ran nowhere as
# what ran instead or as the waker ((g) only).
# Environment: GO_TRACE_TOOL, a Go 1.24+ cmd/trace (default build/go/1.27/tool/trace).
# TAP on stdout.
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CHECK="$ROOT/scripts/oracles/join-compare.py"
TOOL=${GO_TRACE_TOOL:-$ROOT/build/go/1.27/tool/trace}
# shellcheck source=scripts/lib/tap-lib.sh
. "$ROOT/scripts/lib/tap-lib.sh"

[ $# -eq 1 ] || { echo "usage: $0 RUNDIR" >&2; exit 2; }
rundir=$1
echo "TAP version 13"
for f in app.trace ftrace.txt tids cpu.stat.before cpu.stat.after; do
	[ -s "$rundir/$f" ] ||
		{ echo "Bail out! $rundir/$f is missing (scripts/oracles/join-oracle.sh makes it)"; exit 1; }
done
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# synth NAME [--break HOW]: join_synth.py's text of RUNDIR into $TMP/NAME; its lines
# ("span: ...", "region: ...") in $TMP/NAME.synth.
synth() {
	name=$1
	shift
	python3 "$ROOT/scripts/oracle-tests/join_synth.py" --tool "$TOOL" "$@" "$rundir" \
		"$TMP/$name" > "$TMP/$name.synth" 2>&1
}

# compare NAME [ARG...]: the comparator on $TMP/NAME: RC, OUT.
compare() {
	name=$1
	shift
	OUT=$TMP/$name.out
	RC=0
	python3 "$CHECK" --tool "$TOOL" --app "$TMP/$name/app.txt" --out "$TMP/$name/merged.txt" \
		"$@" "$TMP/$name" > "$OUT" 2>&1 || RC=$?
}

# has FILE LINE: FILE has LINE, whole.
has() {
	grep -qxF -- "$2" "$1"
}

# Its value after "span: " or "region: " in $TMP/NAME.synth.
synth_line() {
	sed -n "s/^$2: //p" "$TMP/$1.synth"
}

if ! synth good; then
	echo "Bail out! join_synth.py failed: $(head -n 5 "$TMP/good.synth")"
	exit 1
fi
compare good
sed 's/^/# good: /' "$OUT"
[ "$RC" -eq 0 ] && [ "$(grep -c '^ok ' "$OUT")" -eq 7 ] && ! grep -q '^not ok' "$OUT"
result $? "the synthesized join passes all 7 checks (exit status $RC)" "$OUT"

RC=0
python3 "$CHECK" --tool "$TOOL" --app "$rundir/app.trace" --out "$TMP/good/merged.txt" \
	"$TMP/good" > "$TMP/trace.out" 2>&1 || RC=$?
[ "$RC" -eq 0 ] && ! grep -q '^not ok' "$TMP/trace.out"
result $? "so does it with APP read from app.trace by $TOOL (exit status $RC)" "$TMP/trace.out"

for how in move drop extra throttle who; do
	if ! synth "$how" --break "$how"; then
		result 1 "$how: join_synth.py --break $how" "$TMP/$how.synth"
		continue
	fi
	sed "s/^/# $how: /" "$TMP/$how.synth"
	compare "$how"
	grep '^not ok\|^# no \|^# .* is more than\|^# "kernel: ' "$OUT" | sed "s/^/# $how: /"
	span=$(synth_line "$how" span)
	region=$(synth_line "$how" region)
	fails=$(grep '^not ok' "$OUT" | sed 's/^not ok \([0-9]*\) - (\(.\)).*/\2/' | tr -d '\n')
	case $how in
	move)
		[ "$fails" = ab ] &&
			has "$OUT" "# no region for $span" &&
			has "$OUT" "# no off-CPU span or system call of M $(echo "$region" | sed 's/.* M \([0-9]*\),.*/\1/') for region $region" ;;
	drop)
		[ "$fails" = a ] && has "$OUT" "# no region for $span" ;;
	extra)
		[ "$fails" = b ] &&
			has "$OUT" "# no off-CPU span or system call of M $(echo "$region" | sed 's/.* M \([0-9]*\),.*/\1/') for region $region" ;;
	throttle)
		[ "$fails" = d ] && grep -q '^# [0-9.]* us of throttled regions is more than 1 us + 5 %$' "$OUT" ;;
	who)
		log=$(synth_line "$how" log)
		tid=$(echo "$span" | sed 's/^thread \([0-9]*\) .*/\1/')
		[ "$fails" = g ] && grep '^# "kernel: ' "$OUT" | grep -F "M $tid, " |
			grep -qF -e "4194303 ran instead, but ftrace has it not on CPU" \
				-e "$log, but ftrace's wakeups of thread $tid on CPU" ;;
	esac
	ok=$?
	[ "$RC" -eq 1 ] || ok=1
	result "$ok" "$how: the comparator fails check(s) '$fails' naming it (exit status $RC)" "$OUT"
done

# Unreadable input: exit 2.
compare good --out "$rundir/tids"
[ "$RC" -eq 2 ] && grep -q '^Bail out! join-compare.py: no events in the parsed trace' "$OUT"
result $? "a file that is no trace: Bail out! and exit status 2 (got $RC)" "$OUT"
tap_end
