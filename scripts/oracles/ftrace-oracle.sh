#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ftrace as a second oracle: one guest records workloads with gotrace and ftrace at once; compare.
#
# Usage: scripts/oracles/ftrace-oracle.sh KVER CHECKDIR
#
# CHECKDIR is make check's build/check: bin/ holds the static gotrace CLI, oracle_workload
# and ftrace_guest.sh (make -C selftests OUT=CHECKDIR/bin, make -C userspace static), and
# KVER/gotrace.ko the module for KVER (scripts/kbuild/vm-module.sh). One QEMU guest (2 vCPUs)
# runs selftests/ftrace_guest.sh with CHECKDIR shared at /host: for each workload (a pipe
# ping-pong, a futex storm, sleepers, a loopback TCP echo, a fork storm that reuses thread
# ids at once) gotrace record writes CHECKDIR/traces/KVER/oracle-WORKLOAD.trace, checked
# later with every trace there by scripts/oracles/go-check.sh, while ftrace records the same
# tracepoints into CHECKDIR/oracle/KVER/WORKLOAD.ftrace. Then scripts/oracles/ftrace-compare.py
# compares each pair on the host (its figures: CHECKDIR/oracle/KVER/WORKLOAD.compare).
# The guest's TAP lines come first, renumbered, then one result per comparison.
# Each workload is recorded in both trace formats, Go's before 1.22 (1.21) and with
# generations (1.26, as WORKLOAD-1.26). The workload "flight" is a flight recorder's, in
# 1.26 only: rings that overwrite, snapshots in the middle and at the end
# (traces/KVER/oracle-flight-N.trace), ftrace recording the whole time (flight.ftrace);
# each snapshot is compared with ftrace inside its window (ftrace-compare.py --window,
# figures in flight-N.compare).
# Environment: GOTRACE_VM_TIMEOUT (seconds for the guest, default 900),
# GOTRACE_ORACLE_WORKLOADS (a subset, for development), GOTRACE_ORACLE_FORMATS (default
# "1.21 1.26").
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VM_TIMEOUT=${GOTRACE_VM_TIMEOUT:-900}
WORKLOADS=${GOTRACE_ORACLE_WORKLOADS:-pingpong mutex sleepers tcp reuse flight}
FORMATS=${GOTRACE_ORACLE_FORMATS:-1.21 1.26}
# shellcheck source=scripts/lib/tap-lib.sh
. "$ROOT/scripts/lib/tap-lib.sh"

[ $# -eq 2 ] || { echo "usage: $0 KVER CHECKDIR" >&2; exit 2; }
kver=$1
out=$(cd "$2" && pwd) || exit 2
kout=$out/$kver
odir=$out/oracle/$kver
tdir=$out/traces/$kver

echo "TAP version 13"
for f in bin/gotrace bin/oracle_workload bin/ftrace_guest.sh "$kver/gotrace.ko"; do
	[ -f "$out/$f" ] || { echo "Bail out! ftrace-oracle.sh: $out/$f is missing"; exit 1; }
done
rm -rf "$odir"
rm -f "$tdir"/oracle-*.trace
mkdir -p "$odir" "$tdir" "$kout"

start=$(date +%s)
rc=0
"$ROOT/scripts/vm/vm.sh" --quiet --cpus 2 --mem 1024 --timeout "$VM_TIMEOUT" \
	--log "$kout/oracle-console.log" --stdout "$kout/oracle-guest.tap" "$kver" "$out" -- \
	KVER="$kver" GOTRACE_KO="/host/$kver/gotrace.ko" GOTRACE_BIN=/host/bin \
	GOTRACE_TRACE_DIR="/host/traces/$kver" GOTRACE_ORACLE_DIR="/host/oracle/$kver" \
	GOTRACE_ORACLE_WORKLOADS="'$WORKLOADS'" GOTRACE_ORACLE_FORMATS="'$FORMATS'" \
	sh /host/bin/ftrace_guest.sh \
	2> "$kout/oracle-vm.err" || rc=$?
[ ! -f "$out/.vm-dmesg" ] || mv "$out/.vm-dmesg" "$kout/oracle-dmesg.txt"
while IFS= read -r line; do
	case "$line" in
	"ok "*|"not ok "*)
		ok=0
		case "$line" in "not ok "*) ok=1 ;; esac
		text=$(echo "$line" | sed 's/^\(not \)\{0,1\}ok [0-9]* - //')
		case "$text" in
		*"# TODO"*)
			# A known bug: reported, not counted as a failure.
			tap_n=$((tap_n + 1))
			[ "$ok" -eq 0 ] && echo "ok $tap_n - guest: $text" ||
				echo "not ok $tap_n - guest: $text" ;;
		*) result "$ok" "guest: $text" ;;
		esac ;;
	"TAP version"*|1..*) ;;
	*) echo "$line" ;;
	esac
done < "$kout/oracle-guest.tap"
[ -s "$kout/oracle-guest.tap" ] || sed 's/^/# /' "$kout/oracle-vm.err"
result "$rc" "the guest ran ftrace_guest.sh and exited 0 (vm.sh: $rc, $(($(date +%s) - start)) s)" \
	"$kout/oracle-vm.err"

# Does KVER run tracepoint probes with preemption on? Its tracepoint.h (in the source
# tree its build tree's Makefile includes) guards them with SRCU-fast, not
# preempt_disable (7.x): see ftrace-compare.py --preemptible-probes.
preemptible_probes() {
	kdir=$("$ROOT/scripts/setup/kernels.sh" --kdir "$1") || return 1
	src=$(sed -n 's|^include \(.*\)/Makefile$|\1|p' "$kdir/Makefile" | head -n 1)
	grep -q 'guard(srcu_fast_notrace)' "${src:-$kdir}/include/linux/tracepoint.h"
}
compare_args="--gotrace $out/bin/gotrace --kernel $kver"
if preemptible_probes "$kver"; then
	compare_args="$compare_args --preemptible-probes"
fi
echo "# ftrace-compare.py $compare_args"

names=""
for f in $FORMATS; do
	for w in $WORKLOADS; do
		[ "$w" != flight ] || continue
		if [ "$f" = 1.21 ]; then names="$names $w"; else names="$names $w-$f"; fi
	done
done
for w in $names; do
	cmp=$odir/$w.compare
	rc=0
	# shellcheck disable=SC2086 # compare_args: words
	python3 "$ROOT/scripts/oracles/ftrace-compare.py" $compare_args \
		"$tdir/oracle-$w.trace" "$odir/$w.ftrace" > "$cmp" 2>&1 || rc=$?
	sed "s/^/# $w: /" "$cmp"
	result "$rc" "$w: gotrace and ftrace tell the same story, thread by thread (exit status $rc)"
done
# The flight recorder's snapshots, each inside its window of the one ftrace text.
case " $WORKLOADS " in
*" flight "*)
	n=0
	for i in 1 2 3 4 5 6 7 8 9; do
		snap=$tdir/oracle-flight-$i.trace
		[ -f "$snap" ] || break
		n=$i
		cmp=$odir/flight-$i.compare
		rc=0
		# shellcheck disable=SC2086 # compare_args: words
		python3 "$ROOT/scripts/oracles/ftrace-compare.py" $compare_args --window \
			"$snap" "$odir/flight.ftrace" > "$cmp" 2>&1 || rc=$?
		sed "s/^/# flight-$i: /" "$cmp"
		result "$rc" "flight-$i: the snapshot and ftrace inside its window tell the same story, thread by thread (exit status $rc)"
	done
	[ "$n" -gt 0 ]
	result $? "flight: $n snapshots compared" ;;
esac
tap_end
