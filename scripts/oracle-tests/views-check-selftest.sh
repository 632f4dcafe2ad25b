#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prove scripts/oracles/views-check.sh: recorded views traces pass it, edited ones fail it; TAP.
#
# Usage: scripts/oracle-tests/views-check-selftest.sh TRACE_DIR
#   TRACE_DIR holds views-default-1.21.trace, views-kstacks-1.21.trace and
#   views-default-1.26.trace as
#   selftests/views_test records them (e.g. build/check/traces/KVER). Prints TAP; exit 1 on
#   any failure.
#
# Works on copies in a temp dir, edited with scripts/oracle-tests/trace_edit.py (which finds the
# events with the gotrace CLI: GOTRACE, default userspace/gotrace). Expected results:
#   - both traces pass all 19 checks (Go 1.21, 1.23 and 1.27 each: 4 profiles, goroutines,
#     annotations);
#   - no stacks on events (every event's stack id 0, create stacks kept: what a tracer
#     without block reasons writes) fails exactly the 12 profile checks, in both modes, and
#     the 3 annotations checks (a region's program is its stack's frame; Go 1.21's server
#     panics on /userregions without it);
#   - the region "gt-views-sleep" renamed "gt-views-sleeq" fails exactly the annotations
#     checks of every Go;
#   - one stack frame PC that is a kernel address fails exactly "no raw kernel address";
#   - the reason "futex" renamed "futey" fails exactly the sync and sched checks of every Go
#     (default mode: the [futex, gt-mutex] block and waker stacks are gone);
#   - the program "gt-mutex" renamed "gt-mutey" fails exactly sync, sched and goroutines of
#     every Go;
#   - the default trace checked as kstacks (named views-kstacks-*) fails sync, net and
#     syscall for all three Go versions: cheap frames are not kernel functions;
#   - the Go 1.26 trace (views-default-1.26.trace) passes all 13 checks; with "futex"
#     renamed "futey" in every generation's strings it fails exactly sync and sched of Go
#     1.26 and 1.27; with "gt-pipe-timer" renamed "gt-pipe-timex", exactly their waker;
#   - an empty directory, one without views-*.trace files, and no arguments fail.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib/tap-lib.sh
. "$HERE/../lib/tap-lib.sh"
CHECK=$HERE/../oracles/views-check.sh

if [ $# -ne 1 ]; then
	echo "usage: $0 TRACE_DIR (holding views-default-1.21.trace, views-kstacks-1.21.trace, views-default-1.26.trace)" >&2
	exit 2
fi
SRC=$1
for f in views-default-1.21 views-kstacks-1.21 views-default-1.26; do
	if [ ! -f "$SRC/$f.trace" ]; then
		echo "TAP version 13"
		echo "Bail out! $SRC/$f.trace missing: record it with selftests/views_test first"
		exit 1
	fi
done

need_gotrace "the trace editor uses it"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/views-check-selftest.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP


# failing: the names of the failed checks in $OUT, as "goV KIND" / "no raw kernel address",
# one line each, sorted.
failing() {
	sed -n 's/^not ok [0-9]* - \(.*\): .*/\1/p' "$OUT" | sed 's/ (\(default\|kstacks\))$//' | sort
}

# expect_failing NAME DESCRIPTION FAILING...: views-check on $TMP/NAME exits 1 (0 if no FAILING)
# and exactly the checks FAILING fail.
expect_failing() {
	local name=$1 what=$2 st=0 want=0
	shift 2
	run "$name" "$TMP/$name"
	[ $# -eq 0 ] || want=1
	[ "$RC" -eq "$want" ] || st=1
	[ "$(failing)" = "$(printf '%s\n' "$@" | sed '/^$/d' | sort)" ] || st=1
	result $st "$what" "$OUT"
}

# edit MODE IN OUT: scripts/oracle-tests/trace_edit.py's MODE (zero-stacks: every event's stack id
# 0, GoCreate keeping the new goroutine's; kernel-pc: a frame PC 0xffffffff81234560;
# rename:A:B: the string A becomes B) of IN into OUT.
edit() {
	python3 "$HERE/trace_edit.py" "$1" "$2" "$3"
}

echo "TAP version 13"
echo "1..16"

for m in default kstacks; do
	mkdir "$TMP/$m" "$TMP/$m-zero"
	cp "$SRC/views-$m-1.21.trace" "$TMP/$m/"
	edit zero-stacks "$SRC/views-$m-1.21.trace" "$TMP/$m-zero/views-$m-1.21.trace"
done
mkdir "$TMP/kpc" "$TMP/futey" "$TMP/mutey" "$TMP/as-kstacks" "$TMP/empty" "$TMP/other" "$TMP/sleeq"
edit kernel-pc "$SRC/views-kstacks-1.21.trace" "$TMP/kpc/views-kstacks-1.21.trace"
edit rename:futex:futey "$SRC/views-default-1.21.trace" "$TMP/futey/views-default-1.21.trace"
edit rename:gt-mutex:gt-mutey "$SRC/views-default-1.21.trace" "$TMP/mutey/views-default-1.21.trace"
edit rename:gt-views-sleep:gt-views-sleeq "$SRC/views-default-1.21.trace" \
	"$TMP/sleeq/views-default-1.21.trace"
cp "$SRC/views-default-1.21.trace" "$TMP/as-kstacks/views-kstacks-1.21.trace"
cp "$SRC/views-default-1.21.trace" "$TMP/other/workload-1.21.trace"
mkdir "$TMP/v26" "$TMP/v26-futey" "$TMP/v26-timex" "$TMP/v26-reax"
cp "$SRC/views-default-1.26.trace" "$TMP/v26/"
edit rename:futex:futey "$SRC/views-default-1.26.trace" "$TMP/v26-futey/views-default-1.26.trace"
edit rename:gt-pipe-timer:gt-pipe-timex "$SRC/views-default-1.26.trace" \
	"$TMP/v26-timex/views-default-1.26.trace"
edit rename:read:reax "$SRC/views-default-1.26.trace" "$TMP/v26-reax/views-default-1.26.trace"

GOS="1.21 1.23 1.27"
# each KIND...: "goV KIND" for every Go version V.
each() {
	local v k
	for v in $GOS; do
		for k in "$@"; do
			echo "go$v $k"
		done
	done
}
mapfile -t PROFILES < <(each net sched sync syscall)

expect_failing default "the default-stacks trace passes all 19 checks"
expect_failing kstacks "the kernel-stacks trace passes all 19 checks"
mapfile -t ANNOTATIONS < <(each annotations)
expect_failing default-zero "default trace, no stacks on events: exactly the 12 profile and 3 annotations checks fail" \
	"${PROFILES[@]}" "${ANNOTATIONS[@]}"
expect_failing kstacks-zero "kstacks trace, no stacks on events: exactly the 12 profile and 3 annotations checks fail" \
	"${PROFILES[@]}" "${ANNOTATIONS[@]}"
expect_failing kpc "a kernel address as a frame PC fails exactly 'no raw kernel address'" \
	"no raw kernel address"
mapfile -t FAIL < <(each sched sync)
expect_failing futey "reason futex renamed futey: exactly sync and sched fail, with every Go" "${FAIL[@]}"
mapfile -t FAIL < <(each goroutines sched sync)
expect_failing mutey "program gt-mutex renamed gt-mutey: exactly sync, sched and goroutines fail, with every Go" \
	"${FAIL[@]}"
expect_failing sleeq "region gt-views-sleep renamed gt-views-sleeq: exactly the annotations checks fail, with every Go" \
	"${ANNOTATIONS[@]}"
mapfile -t FAIL < <(each net sync syscall)
expect_failing as-kstacks "cheap stacks checked as kernel stacks: sync, net and syscall fail, with every Go" \
	"${FAIL[@]}"

GOS="1.26 1.27"
expect_failing v26 "the Go 1.26 trace passes all 13 checks"
mapfile -t FAIL < <(each sched sync)
expect_failing v26-futey "Go 1.26 trace, futex renamed futey: exactly sync and sched fail, with Go 1.26 and 1.27" \
	"${FAIL[@]}"
mapfile -t FAIL < <(each waker)
expect_failing v26-timex "Go 1.26 trace, gt-pipe-timer renamed gt-pipe-timex: exactly the waker checks fail" \
	"${FAIL[@]}"
mapfile -t FAIL < <(each goroutines)
expect_failing v26-reax "Go 1.26 trace, reason read renamed reax: exactly the goroutines checks fail (no \"Block time (read)\")" \
	"${FAIL[@]}"

run empty "$TMP/empty"
st=0
[ "$RC" -eq 1 ] && grep -q '^Bail out! .*no views-\*\.trace files' "$OUT" || st=1
result $st "an empty directory fails with 'no views-*.trace files'" "$OUT"

run other "$TMP/other"
st=0
[ "$RC" -eq 1 ] && grep -q '^Bail out! .*no views-\*\.trace files' "$OUT" || st=1
result $st "a directory without views-*.trace files fails" "$OUT"

run noargs
st=0
[ "$RC" -eq 2 ] && grep -q '^usage:' "$OUT" || st=1
result $st "no arguments: usage error (exit 2)" "$OUT"

if [ "$tap_failed" -ne 0 ]; then
	echo "# $tap_failed of $tap_n self-tests failed" >&2
	exit 1
fi
exit 0
