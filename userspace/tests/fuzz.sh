#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Coverage-guided fuzzing of the reader library (TAP output): FUZZ_READER, libFuzzer's
# build of tests/fuzz_reader.c, runs for SECONDS from the traces in CORPUS. One result: ok
# with its statistics, or not ok with libFuzzer's report and the input that failed (base64,
# when small), printed before it so that a log of the failure alone can reproduce it.
#
# Usage: tests/fuzz.sh FUZZ_READER SECONDS CORPUS WORKDIR
# WORKDIR gets libFuzzer's log (log) and the failing input (crash-*, timeout-*, oom-*).
set -u

FUZZ=$1
SECS=$2
CORPUS=$3
WORK=$4
mkdir -p "$WORK"
rm -f "$WORK"/crash-* "$WORK"/timeout-* "$WORK"/oom-* "$WORK"/leak-*

echo "TAP version 13"
rc=0
"$FUZZ" -max_total_time="$SECS" -max_len=65536 -timeout=10 -print_final_stats=1 \
	-artifact_prefix="$WORK/" "$CORPUS" 2> "$WORK/log" || rc=$?
grep -E 'stat::(number_of_executed_units|peak_rss)|cov:' "$WORK/log" | tail -n 3 | sed 's/^/# fuzz: /'
if [ "$rc" -eq 0 ]; then
	echo "ok 1 - fuzz_reader: $SECS s of inputs, no crash, leak, timeout or out-of-memory"
else
	grep -E -A 30 '^==[0-9]+==|ERROR: libFuzzer' "$WORK/log" | head -n 30 | sed 's/^/# /'
	for f in "$WORK"/crash-* "$WORK"/timeout-* "$WORK"/oom-* "$WORK"/leak-*; do
		[ -f "$f" ] || continue
		echo "# the input: $f ($(stat -c %s "$f") bytes)"
		[ "$(stat -c %s "$f")" -gt 3000 ] || base64 -w 96 "$f" | sed 's/^/# base64: /'
	done
	echo "not ok 1 - fuzz_reader: exit status $rc: $(grep -m 1 -E 'SUMMARY|ERROR: libFuzzer' \
		"$WORK/log" | cut -c1-160)"
fi
echo "1..1"
[ "$rc" -eq 0 ]
