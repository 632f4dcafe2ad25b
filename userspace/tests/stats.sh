#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# gotrace stats on a trace with 25 busy threads and 52 that never run (TAP output): the text
# lists what ran and counts the rest in one line, --all lists every row, --json has every
# thread, and the thread table explains goroutine ids past the thread id range.
#
# Usage: tests/stats.sh GOTRACE STATS_TRACE
#   STATS_TRACE is tests/stats_trace.c built: it writes the trace (see there for its shape).
set -u

GOTRACE=$1
GEN=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# shellcheck source=scripts/tap-lib.sh
. "$(dirname "$0")/../../scripts/tap-lib.sh"

T=$TMP/stats.trace

# expect DESCRIPTION FILE COMMAND...: COMMAND (a test on FILE) succeeds; else FILE is shown.
expect() {
	desc=$1
	file=$2
	shift 2
	if "$@"; then
		result 0 "$desc"
	else
		result 1 "$desc" "$file"
	fi
}

# section NAME FILE: the lines of one section of the text output (from its title to the
# next empty line).
section() {
	awk -v t="^$1" '$0 ~ t { on = 1 } on && /^$/ { exit } on' "$2"
}

# count PATTERN FILE: lines of FILE matching PATTERN (grep -E).
count() {
	grep -c -E "$1" "$2" || true
}

echo "TAP version 13"
if ! "$GEN" "$T" > "$TMP/gen.out" 2>&1; then
	result 1 "stats_trace writes the trace" "$TMP/gen.out"
	tap_end
	exit 1
fi
"$GOTRACE" check "$T" > "$TMP/check.out" 2>&1
result $? "the generated trace is valid (gotrace check)" "$TMP/check.out"

# Default text.
rc=0
"$GOTRACE" stats "$T" > "$TMP/text" 2> "$TMP/text.err" || rc=$?
cat "$TMP/text.err" >> "$TMP/text"
result "$rc" "gotrace stats FILE exits 0" "$TMP/text"
section Programs "$TMP/text" > "$TMP/progs"
section Threads "$TMP/text" > "$TMP/threads"

expect "programs: the 25 that ran are listed" "$TMP/progs" \
	test "$(count '^busy-[0-9]+ ' "$TMP/progs")" -eq 25
expect "programs: none that never ran is listed" "$TMP/progs" \
	test "$(count '^idle-' "$TMP/progs")" -eq 0
expect "programs: one line counts the 51 that never ran and their 52 threads" "$TMP/progs" \
	grep -q -x '  + 51 programs (52 threads) that never ran (--all lists them)' "$TMP/progs"
expect "threads: the top 20 by run time are listed, busiest first" "$TMP/threads" \
	test "$(count '^[0-9]+ busy-' "$TMP/threads")" -eq 20 -a \
	"$(grep -m 1 -E '^[0-9]+ ' "$TMP/threads" | cut -c 1-28)" = "4194417 busy-0              "
expect "threads: none that never ran is listed" "$TMP/threads" \
	test "$(count '^[0-9]+ idle-' "$TMP/threads")" -eq 0
expect "threads: one line counts the 5 more that ran and the 52 that never ran" "$TMP/threads" \
	grep -q -x '  + 5 more threads that ran, 52 that never ran (--all lists them)' "$TMP/threads"
expect "threads: a note explains 4194417 as thread 113" "$TMP/threads" \
	grep -q -E '^Ids >= 4194304: goroutine id = thread id \+ 4194304 x .* 4194417 is thread 113\.$' \
	"$TMP/threads"
expect "threads: busy-0's run time is 0.025 ms" "$TMP/threads" \
	grep -q -E '^4194417 busy-0 +0\.025 ' "$TMP/threads"

# --all.
rc=0
"$GOTRACE" stats --all "$T" > "$TMP/all" 2>&1 || rc=$?
result "$rc" "gotrace stats --all FILE exits 0" "$TMP/all"
section Programs "$TMP/all" > "$TMP/all.progs"
section Threads "$TMP/all" > "$TMP/all.threads"
expect "--all: every program is listed (25 that ran, 51 that never ran)" "$TMP/all.progs" \
	test "$(count '^busy-[0-9]+ ' "$TMP/all.progs")" -eq 25 -a \
	"$(count '^idle-[0-9]+ ' "$TMP/all.progs")" -eq 51
expect "--all: every thread is listed (77)" "$TMP/all.threads" \
	test "$(count '^[0-9]+ (busy|idle)-[0-9]+ ' "$TMP/all.threads")" -eq 77
expect "--all: the title says all 77 threads" "$TMP/all.threads" \
	grep -q -x 'Threads (all 77, by run time):' "$TMP/all.threads"
expect "--all: no line counts rows left out" "$TMP/all" \
	test "$(count '^  \+ ' "$TMP/all")" -eq 0

# --json keeps every program and thread.
rc=0
"$GOTRACE" stats --json "$T" > "$TMP/json" 2>&1 || rc=$?
result "$rc" "gotrace stats --json FILE exits 0" "$TMP/json"
expect "--json: 76 programs and 77 threads" "$TMP/json" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if len(d["programs"]) == 76 and len(d["threads"]) == 77 else 1)' "$TMP/json"

tap_end
