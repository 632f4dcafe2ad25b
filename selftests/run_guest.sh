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
# Prints one TAP stream on stdout: each test program's own TAP as "# "
# lines, then its "ok"/"not ok" line. Exits non-zero if anything failed.

TESTS="device_test ioctl_test session_test exhaustion_test workload_test module_test views_test"

GOTRACE_BIN=${GOTRACE_BIN:-$(dirname "$0")}
export GOTRACE_KO GOTRACE_BIN GOTRACE_TRACE_DIR

timeout=0
if [ -f "$GOTRACE_BIN/settings" ]; then
	timeout=$(sed -n 's/^timeout=//p' "$GOTRACE_BIN/settings")
fi

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

# step NAME COMMAND...: run COMMAND, its output as comments, then a result.
step() {
	name=$1
	shift
	mark_log
	echo "# $name"
	{
		"$@" 2>&1
		echo $? > "$rcfile"
	} | comment
	rc=$(cat "$rcfile")
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

run_test() {
	if [ "$timeout" -gt 0 ]; then
		timeout "$timeout" "$GOTRACE_BIN/$1"
	else
		"$GOTRACE_BIN/$1"
	fi
}

echo "TAP version 13"
echo "1..$(($(echo "$TESTS" | wc -w) + 3))"
echo "# kernel $(uname -r), $(nproc) CPUs"
if [ -z "$GOTRACE_KO" ] || [ ! -r "$GOTRACE_KO" ]; then
	echo "Bail out! GOTRACE_KO='$GOTRACE_KO' is not a readable file"
	exit 1
fi
if [ -n "$GOTRACE_TRACE_DIR" ] && ! mkdir -p "$GOTRACE_TRACE_DIR"; then
	echo "Bail out! cannot create GOTRACE_TRACE_DIR='$GOTRACE_TRACE_DIR'"
	exit 1
fi

step "insmod gotrace.ko" load_module
step "second insmod fails" load_again
for t in $TESTS; do
	step "selftests: gotrace: $t" run_test "$t"
done
step "rmmod gotrace" unload_module

echo "# $failed of $num failed"
[ "$failed" -eq 0 ]
