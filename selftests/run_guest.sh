#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest entry point: load gotrace.ko, run every selftest, print TAP, unload.
#
# Runs in the busybox initramfs guest as root. Environment:
#   KVER               the kernel the guest must be running
#   GOTRACE_KO         path of gotrace.ko built for it
#   GOTRACE_BIN        directory of the static test programs (default: this
#                      script's directory)
#   GOTRACE_TRACE_DIR  where the tests write every trace as NAME.trace, for
#                      the host's Go check (created)
#   GOTRACE_TUN_KO     the kernel's tun.ko, uncompressed, which a test loads
#                      and unloads (it skips without one)
#   GOTRACE_TESTS      the test programs to run, space-separated (default:
#                      all of them, TESTS below), e.g. "generations_test"
#   GOTRACE_KMEMLEAK   "required" or "if-present": before loading, mark the
#                      kernel's own suspected leaks as seen; at the end (after
#                      rmmod) have kmemleak scan and fail on any new report,
#                      and fail if lockdep switched itself off (it does after
#                      its first report). "required" fails on a kernel
#                      without kmemleak.
# Prints one TAP stream on stdout: each test program's own TAP as "# "
# lines, then its "ok"/"not ok" line. Exits non-zero if anything failed.

TESTS="device_test ioctl_test session_test exhaustion_test workload_test filter_test module_test views_test
accounting_test fault_test fuzz_test stress_test generations_test flight_test annotate_test samples_test
thread_table_test"
TESTS=${GOTRACE_TESTS:-$TESTS}

GOTRACE_BIN=${GOTRACE_BIN:-$(dirname "$0")}
export GOTRACE_KO GOTRACE_BIN GOTRACE_TRACE_DIR GOTRACE_TUN_KO

timeout=0
if [ -f "$GOTRACE_BIN/settings" ]; then
	timeout=$(sed -n 's/^timeout=//p' "$GOTRACE_BIN/settings")
fi
# GOTRACE_TEST_TIMEOUT (seconds per test program) overrides settings, for
# long runs (GOTRACE_LONG_MIB=1024) and slow kernels (the debug kernel).
timeout=${GOTRACE_TEST_TIMEOUT:-$timeout}

num=0
failed=0
rcfile=/tmp/run_guest.rc

# result OK NAME [DIRECTIVE]: one top-level TAP result line.
result() {
	num=$((num + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $num $2${3:+ # $3}"
	else
		echo "not ok $num $2"
		failed=$((failed + 1))
	fi
}

# Kernel log lines since mark_log, as TAP comments: who caused what.
mark_log() {
	log_lines=$(dmesg | wc -l)
}

show_log() {
	dmesg | tail -n +$((log_lines + 1)) | while IFS= read -r line; do
		echo "# dmesg: $line"
	done
}

# Prefix each line with "# " as it comes (sed would hold the last lines
# back in its buffer, and lose them if the kernel panics).
comment() {
	while IFS= read -r line; do
		echo "# $line"
	done
}

# step NAME COMMAND...: run COMMAND, its output and duration as comments,
# then a result.
step() {
	name=$1
	shift
	mark_log
	echo "# $name"
	start=$(date +%s)
	{
		"$@" 2>&1
		echo $? > "$rcfile"
	} | comment
	rc=$(cat "$rcfile")
	echo "# $name: $(($(date +%s) - start)) s"
	show_log
	case $rc in
	0)	result 0 "$name" ;;
	4)	result 0 "$name" SKIP ;;
	124|137|143)
		echo "# $name: timed out after ${timeout}s"
		result 1 "$name" ;;
	*)	result 1 "$name" ;;
	esac
}

load_module() {
	if [ -n "$KVER" ] && [ "$(uname -r)" != "$KVER" ]; then
		echo "running kernel $(uname -r), expected $KVER"
		return 1
	fi
	insmod "$GOTRACE_KO" || return 1
	if [ ! -c /dev/gotrace ]; then
		echo "no character device /dev/gotrace after insmod"
		return 1
	fi
}

load_again() {
	if insmod "$GOTRACE_KO"; then
		echo "a second insmod succeeded"
		return 1
	fi
}

unload_module() {
	rmmod gotrace || return 1
	if [ -e /dev/gotrace ]; then
		echo "/dev/gotrace still exists after rmmod"
		return 1
	fi
}

KMEMLEAK=/sys/kernel/debug/kmemleak

# Whether this run checks for leaks; fails if it must and cannot.
kmemleak_wanted() {
	case "${GOTRACE_KMEMLEAK:-}" in
	"") return 1 ;;
	required)
		[ -w "$KMEMLEAK" ] && return 0
		echo "no $KMEMLEAK: this kernel lacks CONFIG_DEBUG_KMEMLEAK, or kmemleak disabled itself (see dmesg)"
		return 2 ;;
	*) [ -w "$KMEMLEAK" ] ;;
	esac
}

# Scan now and forget what is found: leaks from before the tests are not theirs.
kmemleak_clear() {
	kmemleak_wanted || return $(($? == 2 ? 1 : 4))
	echo scan > "$KMEMLEAK" && cat "$KMEMLEAK" > /tmp/kmemleak.before
	echo "$(grep -c '^unreferenced object' /tmp/kmemleak.before) suspected leaks from before the tests, marked as seen"
	echo clear > "$KMEMLEAK"
}

# After rmmod: a leak is an object nothing points to any more for 5 s.
debug_checks() {
	rc=4
	if [ -r /proc/lockdep_stats ]; then
		locks=$(sed -n 's/^ *debug_locks: *//p' /proc/lockdep_stats)
		echo "lockdep: debug_locks $locks"
		rc=0
		if [ "$locks" != 1 ]; then
			echo "lockdep has switched itself off: it reported a problem (see dmesg)"
			rc=1
		fi
	fi
	kmemleak_wanted || { w=$?; [ "$w" -ne 2 ] || rc=1; return $rc; }
	sleep 6
	echo scan > "$KMEMLEAK" && echo scan > "$KMEMLEAK" || return 1
	if [ -s "$KMEMLEAK" ]; then
		echo "kmemleak reports $(grep -c '^unreferenced object' "$KMEMLEAK") new suspected leaks:"
		cat "$KMEMLEAK"
		return 1
	fi
	echo "kmemleak: no new suspected leak"
	[ "$rc" -eq 1 ] || rc=0
	return $rc
}

run_test() {
	if [ "$timeout" -gt 0 ]; then
		timeout "$timeout" "$GOTRACE_BIN/$1"
	else
		"$GOTRACE_BIN/$1"
	fi
}

echo "TAP version 13"
extra=0
[ -z "${GOTRACE_KMEMLEAK:-}" ] || extra=2
echo "1..$(($(echo "$TESTS" | wc -w) + 3 + extra))"
echo "# kernel $(uname -r), $(nproc) CPUs"
if [ -z "$GOTRACE_KO" ] || [ ! -r "$GOTRACE_KO" ]; then
	echo "Bail out! GOTRACE_KO='$GOTRACE_KO' is not a readable file"
	exit 1
fi
if [ -n "$GOTRACE_TRACE_DIR" ] && ! mkdir -p "$GOTRACE_TRACE_DIR"; then
	echo "Bail out! cannot create GOTRACE_TRACE_DIR='$GOTRACE_TRACE_DIR'"
	exit 1
fi

[ "$extra" -eq 0 ] || step "kmemleak: forget earlier suspects" kmemleak_clear
step "insmod gotrace.ko" load_module
step "second insmod fails" load_again
for t in $TESTS; do
	step "selftests: gotrace: $t" run_test "$t"
done
step "rmmod gotrace" unload_module
[ "$extra" -eq 0 ] || step "kernel debug checks: lockdep on, no kmemleak report" debug_checks

echo "# $failed of $num failed"
[ "$failed" -eq 0 ]
