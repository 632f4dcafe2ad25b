#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The test command's second half (make check-debug): the whole selftest suite on gotrace's debug
# kernel (lockdep, KASAN, kmemleak, ...) and on Debian's PREEMPT_RT kernel, failing on any
# report the kernel makes.
#
# Usage: scripts/run/check-debug.sh
#
# Steps: dependencies; the debug kernel (scripts/setup/debug-kernel.sh: built once, then cached)
# and the -rt kernel (scripts/setup/kernels.sh --rt); the static selftests and gotrace CLI into
# build/check-debug/bin; for each kernel gotrace.ko built out of tree, and a guest running
# selftests/run_guest.sh with GOTRACE_KMEMLEAK set: kmemleak's earlier suspects are
# forgotten before insmod, and after rmmod kmemleak scans and lockdep must still be on.
# The guest's whole kernel log is then searched for kernel reports (REPORTS below:
# lockdep, KASAN, BUG, WARNING, sleeping in atomic context, kmemleak, RCU stalls, hung
# tasks, list and object debugging); each one fails the run and is shown with the lines
# around it. Finally every trace goes through the rules of Go's parser (gotrace check)
# and scripts/oracles/addr-scan.sh (no raw kernel address), and the traces of the reliability
# tests (stress, fault, accounting, fuzz) through Go's readers (scripts/oracles/go-check.sh
# --parse-only).
#
# Environment:
#   GOTRACE_DEBUG_KERNELS  KVERs to test instead of the debug and the -rt kernel
#   GOTRACE_VM_TIMEOUT     seconds per guest (default 5400)
#   GOTRACE_VM_MEM         guest MB (default 2048)
#   GOTRACE_DEBUG_GUEST_ENV  test sizes on the debug kernel, which runs everything several
#                          times slower under TCG (default below: 150 start/stop cycles
#                          under a fork storm, 20 sessions in turn, 4000 ping-pong round
#                          trips, 300 forks in the pid-reuse storm, 30 s of ioctl fuzzing:
#                          its checkers need every path, not volume)
#   GOTRACE_RT_GUEST_ENV   test sizes on the other kernels (default: the tests' own, as in
#                          make check: 1000 start/stop cycles under a fork storm, 8 MiB
#                          streamed, ...; the volume make check's 6.1 guest already has
#                          cut as above; 30 s of fuzzing)
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT="$ROOT/build/check-debug"
BIN="$OUT/bin"
TRACES="$OUT/traces"
VM_TIMEOUT=${GOTRACE_VM_TIMEOUT:-5400}
VM_MEM=${GOTRACE_VM_MEM:-2048}
DEBUG_ENV=${GOTRACE_DEBUG_GUEST_ENV:-"GOTRACE_STRESS_CYCLES=150 GOTRACE_LONG_MIB=4 \
GOTRACE_SESSION_CYCLES=20 GOTRACE_PINGPONG_ROUNDS=4000 GOTRACE_STORM_FORKS=300 \
GOTRACE_FUZZ_SECONDS=30 GOTRACE_TEST_TIMEOUT=3600"}
RT_ENV=${GOTRACE_RT_GUEST_ENV:-"GOTRACE_SESSION_CYCLES=20 GOTRACE_PINGPONG_ROUNDS=4000 \
GOTRACE_STORM_FORKS=300 GOTRACE_FUZZ_SECONDS=30 GOTRACE_TEST_TIMEOUT=3600"}

# What a kernel report looks like. vm.sh's list is for Debian's kernels; the debug kernel
# also logs "kmemleak: ..." lines at boot that are not reports, so this list is precise
# about kmemleak and adds what only debug options print.
REPORTS='BUG:|WARNING:|Oops|general protection fault|Kernel panic|kernel BUG at'
REPORTS="$REPORTS|sleeping function called from invalid context|scheduling while atomic"
REPORTS="$REPORTS|possible recursive locking|possible circular locking|inconsistent lock state"
REPORTS="$REPORTS|suspicious RCU usage|bad unlock balance|lock held when returning|DEBUG_LOCKS_WARN_ON"
REPORTS="$REPORTS|KASAN|kmemleak: [0-9]+ new suspected|unreferenced object|kmemleak: .*disabl"
REPORTS="$REPORTS|ODEBUG:|list_add corruption|list_del corruption|UBSAN:|refcount_t:"
REPORTS="$REPORTS|blocked for more than|detected stalls|self-detected stall|Call Trace:"

cd "$ROOT"
start_all=$(date +%s)
passed=0 failed=0 failures=""

die() {
	echo "check-debug.sh: $*" >&2
	exit 1
}

step() {
	echo
	echo "=== check-debug.sh: $* ($(($(date +%s) - start_all))s)"
}

# result OK NAME [WHY]: count one check.
result() {
	if [ "$1" -eq 0 ]; then
		passed=$((passed + 1))
		echo "check-debug.sh: ok: $2"
	else
		failed=$((failed + 1))
		failures="$failures
  - $2${3:+: $3}"
		echo "check-debug.sh: FAILED: $2${3:+: $3}" >&2
	fi
}

# reports FILE: print each kernel report in FILE with 3 lines before and 25 after.
reports() {
	grep -n -E "$REPORTS" "$1" | cut -d: -f1 | awk '
		{ if ($1 > end) { if (NR > 1) print "--"; s = $1 > 3 ? $1 - 3 : 1 }
		  else s = end + 1
		  end = $1 + 25; print s "," end }' | while IFS= read -r range; do
		case "$range" in
		--) echo "    --" ;;
		*) sed -n "${range}p" "$1" | sed 's/^/    | /' ;;
		esac
	done
}

# tap_bad FILE: the failed top-level results, and whether the plan was met.
tap_bad() {
	awk '
		/^1\.\.[0-9]+/ { split($1, p, "\\.\\."); plan = p[2] }
		/^ok / { n++ }
		/^not ok / { n++; print }
		/^Bail out!/ { print }
		END { if (plan == "" || n != plan) print "planned " plan " results, saw " n + 0 }
	' "$1"
}

step "dependencies and kernels"
"$ROOT/scripts/setup/deps.sh" || die "scripts/setup/deps.sh failed; see its messages above"
"$ROOT/scripts/setup/kernels.sh" --source-only || die "scripts/setup/kernels.sh --source-only failed"
if [ -n "${GOTRACE_DEBUG_KERNELS:-}" ]; then
	kvers=$GOTRACE_DEBUG_KERNELS
else
	t0=$(date +%s)
	debug=$("$ROOT/scripts/setup/debug-kernel.sh") || die "scripts/setup/debug-kernel.sh failed; see its messages above"
	echo "check-debug.sh: debug kernel $debug ready in $(($(date +%s) - t0))s"
	rt=$("$ROOT/scripts/setup/kernels.sh" --rt) || die "scripts/setup/kernels.sh --rt failed; see its messages above"
	kvers="$debug $rt"
fi
echo "kernels:" $kvers

rm -rf "$OUT"
mkdir -p "$OUT" "$BIN" "$TRACES"

step "selftests and the static CLI into $BIN"
make -C selftests OUT="$BIN" >/dev/null || die "make -C selftests OUT=$BIN failed"
make -C userspace static OUT="$BIN" >/dev/null || die "make -C userspace static OUT=$BIN failed"

for kver in $kvers; do
	step "kernel $kver: build gotrace.ko, run the selftests in a guest"
	kout="$OUT/$kver"
	mkdir -p "$kout" "$TRACES/$kver"
	if ! "$ROOT/scripts/kbuild/vm-module.sh" "$kver" "$kout" >/dev/null; then
		result 1 "selftests/$kver" "gotrace.ko does not build (log: $kout/build.log)"
		continue
	fi
	case "$kver" in
	*-gotrace-debug | *-gotrace-kcsan) kmemleak=required guest_env=$DEBUG_ENV ;;
	*) kmemleak=if-present guest_env=$RT_ENV ;;
	esac
	rc=0
	t0=$(date +%s)
	# --allow-splats: the reports are judged here, with a list made for debug kernels.
	# shellcheck disable=SC2086
	"$ROOT/scripts/vm/vm.sh" --quiet --allow-splats --cpus 2 --mem "$VM_MEM" \
		--timeout "$VM_TIMEOUT" --log "$kout/console.log" --stdout "$kout/selftests.tap" \
		"$kver" "$OUT" -- \
		KVER="$kver" GOTRACE_KO="/host/$kver/gotrace.ko" GOTRACE_BIN=/host/bin \
		GOTRACE_TRACE_DIR="/host/traces/$kver" GOTRACE_KMEMLEAK=$kmemleak $guest_env \
		sh /host/bin/run_guest.sh || rc=$?
	secs=$(($(date +%s) - t0))
	dmesg="$kout/dmesg.txt"
	if [ -f "$OUT/.vm-dmesg" ]; then
		mv "$OUT/.vm-dmesg" "$dmesg"
	else
		cp "$kout/console.log" "$dmesg"
	fi
	echo "check-debug.sh: guest on $kver ran ${secs}s; TAP $kout/selftests.tap," \
		"console $kout/console.log"
	if [ ! -s "$kout/selftests.tap" ]; then
		result 1 "selftests/$kver" "no TAP output (guest exit status $rc; see $kout/console.log)"
	else
		grep -E '^(ok|not ok) ' "$kout/selftests.tap" | sed 's/^/    /'
		bad=$(tap_bad "$kout/selftests.tap")
		if [ -n "$bad" ] || [ "$rc" -ne 0 ]; then
			"$ROOT/scripts/lib/tap-why.sh" "$kout/selftests.tap"
			result 1 "selftests/$kver" "exit status $rc; $(echo "$bad" | tr '\n' ';')"
		else
			result 0 "selftests/$kver"
		fi
	fi
	n=$(grep -c -E "$REPORTS" "$dmesg" || true)
	if [ "$n" -ne 0 ]; then
		echo "check-debug.sh: $n kernel report lines in the guest's log $dmesg:" >&2
		reports "$dmesg" >&2
		result 1 "kernel reports/$kver" "$n report lines in $dmesg (shown above)"
	else
		result 0 "kernel reports/$kver: none"
	fi
done

step "Go's parser rules on every trace (gotrace check)"
bad=0 n=0
for f in $(find "$TRACES" -type f -name '*.trace' | LC_ALL=C sort); do
	n=$((n + 1))
	"$BIN/gotrace" check --quiet "$f" > "$OUT/check.out" 2>&1 || {
		bad=$((bad + 1))
		sed 's/^/    /' "$OUT/check.out" >&2
	}
done
[ "$n" -gt 0 ] || bad=1
result "$bad" gotrace-check "$((n - bad)) of $n traces valid"

# Go's own readers cost seconds per trace: they get the traces of the reliability tests,
# the rest get the rules above. The pages of go tool trace are left to make check-stock,
# which loads them for the same tests' traces on Debian's kernels.
step "Go's trace readers on the reliability tests' traces (scripts/oracles/go-check.sh --parse-only)"
rc=0
scripts/oracles/go-check.sh --parse-only $(find "$TRACES" -type f \( -name 'stress-*' -o -name 'fault-*' \
	-o -name 'accounting-*' -o -name 'fuzz-*' \) | LC_ALL=C sort) > "$OUT/go-check.tap" || rc=$?
grep -E '^not ok|^Bail' "$OUT/go-check.tap" || true
result "$rc" go-check "$(grep -c '^ok' "$OUT/go-check.tap") checks passed (TAP: $OUT/go-check.tap)"

step "no raw kernel address in any trace (scripts/oracles/addr-scan.sh)"
rc=0
# It reads the traces with the CLI built above (userspace/gotrace may not be built).
GOTRACE="$BIN/gotrace" scripts/oracles/addr-scan.sh "$TRACES" > "$OUT/addr-scan.tap" || rc=$?
grep -E '^not ok|^#|^Bail' "$OUT/addr-scan.tap" || true
result "$rc" addr-scan

echo
echo "=== check-debug.sh: summary ($(($(date +%s) - start_all))s)"
[ -z "$failures" ] || echo "failures:$failures"
echo "logs and TAP: $OUT"
echo "check-debug: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
