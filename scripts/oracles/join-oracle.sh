#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The join oracle: a Go program's own trace merged with gotrace's, checked against ftrace.
#
# Usage: scripts/oracles/join-oracle.sh KVER CHECKDIR
#
# CHECKDIR is make check's build/check (or make check-join's build/join): bin/gotrace is the
# static gotrace CLI (make -C userspace static) and KVER/gotrace.ko the module for KVER
# (scripts/kbuild/vm-module.sh). This script builds selftests/joinapp, static, with Go 1.23
# and Go 1.27 into bin/joinapp-1.23 and bin/joinapp-1.27 and copies selftests/join_guest.sh
# there. One QEMU guest (2 vCPUs, CHECKDIR at /host) runs join_guest.sh: each program runs
# throttled (cgroup cpu.max 20 %) next to a CPU hog, tracing itself (app.trace) while
# gotrace records the whole machine (machine.trace) and ftrace the scheduler (ftrace.txt),
# into CHECKDIR/join/KVER/NAME/ (see join_guest.sh). Then, per run:
#   gotrace merge app.trace machine.trace -o merged.trace  (its summary: merge.txt)
#   scripts/oracles/join-compare.py: the merged trace's kernel regions against ftrace's
#     switches, its APP events against app.trace's, its throttled time against cpu.stat
#     (its report: compare.txt)
#   Go 1.23's reader parses merged.trace; scripts/oracles/go-check.sh (Go 1.23-1.27's
#     readers, Go 1.27's pages) takes it.
# The guest's TAP lines come first, renumbered, then one result per step.
# Environment: GOTRACE_VM_TIMEOUT (seconds for the guest, default 900), GOTRACE_JOIN_RUNS
# (the guest's runs, NAME:GOVERSION:DURATION each; default "go1.23:1.23:2s go1.27:1.27:2s"),
# GOTRACE_JOIN_RECORD_ARGS (more gotrace record arguments for the guest's MACHINE, e.g.
# "--pid 1"; see join_guest.sh), GO_1_23, GO_1_27 (go binaries, as
# scripts/lib/go-trace-lib.sh has them).
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VM_TIMEOUT=${GOTRACE_VM_TIMEOUT:-900}
RUNS=${GOTRACE_JOIN_RUNS:-go1.23:1.23:2s go1.27:1.27:2s}
GO_1_23=${GO_1_23:-/usr/lib/go-1.23/bin/go}
# shellcheck source=scripts/lib/tap-lib.sh
. "$ROOT/scripts/lib/tap-lib.sh"

[ $# -eq 2 ] || { echo "usage: $0 KVER CHECKDIR" >&2; exit 2; }
kver=$1
out=$(cd "$2" && pwd) || exit 2
kout=$out/$kver
jdir=$out/join/$kver

echo "TAP version 13"
for f in bin/gotrace "$kver/gotrace.ko"; do
	[ -f "$out/$f" ] || { echo "Bail out! join-oracle.sh: $out/$f is missing (make check-join builds it)"; exit 1; }
done
# Go 1.27 and its trace tool (prebuilt by go-fetch.sh: Go 1.25+ ship none).
fetched=$("$ROOT/scripts/setup/go-fetch.sh" --print 1.27) ||
	{ echo "Bail out! join-oracle.sh: scripts/setup/go-fetch.sh 1.27 failed (its messages are above)"; exit 1; }
GO_1_27=${GO_1_27:-$(echo "$fetched" | sed -n 1p)}
TOOL=$(echo "$fetched" | sed -n 2p)/trace
rm -rf "$jdir"
mkdir -p "$jdir" "$kout"

# joinapp built by each Go: static, no network (stdlib only), the shared build cache.
for v in 1.23 1.27; do
	if [ "$v" = 1.23 ]; then go=$GO_1_23; else go=$GO_1_27; fi
	rc=0
	(cd "$ROOT/selftests/joinapp" &&
		CGO_ENABLED=0 GOTOOLCHAIN=local GOPROXY=off GOFLAGS=-mod=mod \
		GOCACHE=${GOCACHE:-$ROOT/build/go/cache} \
		nice -n 10 "$go" build -trimpath -o "$out/bin/joinapp-$v" .) \
		> "$jdir/build-$v.log" 2>&1 || rc=$?
	result "$rc" "joinapp built by Go $v ($go)" "$jdir/build-$v.log"
done
cp "$ROOT/selftests/join_guest.sh" "$out/bin/join_guest.sh"

start=$(date +%s)
rc=0
nice -n 10 "$ROOT/scripts/vm/vm.sh" --quiet --cpus 2 --mem 1024 --timeout "$VM_TIMEOUT" \
	--log "$kout/join-console.log" --stdout "$kout/join-guest.tap" "$kver" "$out" -- \
	KVER="$kver" GOTRACE_KO="/host/$kver/gotrace.ko" GOTRACE_BIN=/host/bin \
	GOTRACE_JOIN_DIR="/host/join/$kver" GOTRACE_JOIN_RUNS="'$RUNS'" \
	GOTRACE_JOIN_RECORD_ARGS="'${GOTRACE_JOIN_RECORD_ARGS:-}'" \
	sh /host/bin/join_guest.sh \
	2> "$kout/join-vm.err" || rc=$?
[ ! -f "$out/.vm-dmesg" ] || mv "$out/.vm-dmesg" "$kout/join-dmesg.txt"
# embed PREFIX FILE: FILE's TAP results as ours, renumbered, each named PREFIX: ...; its
# other lines as they are, "# " first where they have none.
embed() {
	while IFS= read -r line; do
		case "$line" in
		"ok "*|"not ok "*)
			ok=0
			case "$line" in "not ok "*) ok=1 ;; esac
			result "$ok" "$1: $(echo "$line" | sed 's/^\(not \)\{0,1\}ok [0-9]* - //')" ;;
		"TAP version"*|1..*) ;;
		"#"*) echo "$line" ;;
		*) echo "# $line" ;;
		esac
	done < "$2"
}

embed guest "$kout/join-guest.tap"
[ -s "$kout/join-guest.tap" ] || sed 's/^/# /' "$kout/join-vm.err"
result "$rc" "the guest ran join_guest.sh and exited 0 (vm.sh: $rc, $(($(date +%s) - start)) s)" \
	"$kout/join-vm.err"

merged=""
for r in $RUNS; do
	name=${r%%:*}
	d=$jdir/$name
	rc=0
	"$out/bin/gotrace" merge "$d/app.trace" "$d/machine.trace" -o "$d/merged.trace" \
		> "$d/merge.txt" 2>&1 || rc=$?
	sed "s/^/# $name: merge: /" "$d/merge.txt"
	result "$rc" "$name: gotrace merge app.trace machine.trace -o merged.trace exited 0 (status $rc)"
	[ "$rc" -eq 0 ] || continue
	merged="$merged $d/merged.trace"
	rc=0
	python3 "$ROOT/scripts/oracles/join-compare.py" --tool "$TOOL" "$d" > "$d/compare.txt" 2>&1 ||
		rc=$?
	embed "$name: join-compare.py" "$d/compare.txt"
	# Exit status 2: it could not read its inputs and compared nothing.
	[ "$rc" -ne 2 ] ||
		result 1 "$name: join-compare.py read its inputs (status 2)" "$d/compare.txt"
done
# Go's readers (Go 1.23's for a Go 1.23 APP's header) and Go 1.27's pages on each merge.
if [ -n "$merged" ]; then
	# shellcheck disable=SC2086 # one word per trace
	"$ROOT/scripts/oracles/go-check.sh" $merged > "$jdir/go-check.tap" 2>&1
	embed go-check "$jdir/go-check.tap"
fi
tap_end
