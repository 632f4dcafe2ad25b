#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# gotrace stats on a trace with 25 busy threads and 52 that never run (TAP output): the text
# lists what ran and counts the rest in one line, --all lists every row, --json has every
# thread, and the thread table explains goroutine ids past the thread id range.
# gotrace dump's --ticks and --all-stacks on the same trace: its clock ticks (1 GHz, from
# 1000) and all its 152 stacks, the 127 no event's stk uses included.
#
# gotrace stats on a go 1.26 trace: the same accounting from Go's state transitions, exact.
#
# Usage: tests/stats.sh GOTRACE STATS_TRACE STATS_TRACEV2
#   STATS_TRACE and STATS_TRACEV2 are tests/stats_trace.c and tests/stats_tracev2.c built: they
#   write the traces (see there for their shapes).
set -u

GOTRACE=$1
GEN=$2
GEN2=$3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# shellcheck source=scripts/lib/tap-lib.sh
. "$(dirname "$0")/../../scripts/lib/tap-lib.sh"

T=$TMP/stats.trace


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

# dump --ticks: the times as recorded (the batch starts at tick 1000, 1 tick = 1 ns) after
# a ticks_per_sec line; otherwise the lines of plain dump.
rc=0
"$GOTRACE" dump "$T" > "$TMP/dump" 2>&1 || rc=$?
result "$rc" "gotrace dump FILE exits 0" "$TMP/dump"
rc=0
"$GOTRACE" dump --ticks "$T" > "$TMP/ticks" 2>&1 || rc=$?
result "$rc" "gotrace dump --ticks FILE exits 0" "$TMP/ticks"
expect "--ticks: the first line is ticks_per_sec=1000000000" "$TMP/ticks" \
	test "$(head -n 1 "$TMP/ticks")" = ticks_per_sec=1000000000
expect "--ticks: the first event at tick 1000, the last (ProcStop) at 326260" "$TMP/ticks" \
	test "$(sed -n '2s/ .*//p' "$TMP/ticks") $(tail -n 1 "$TMP/ticks" | cut -d' ' -f1-2)" = \
	"1000 326260 ProcStop"
tail -n +2 "$TMP/ticks" | awk '{ $1 -= 1000; print }' > "$TMP/ticks.ns"
expect "--ticks: every event line is plain dump's with 1000 ticks added to its time" \
	"$TMP/ticks" cmp -s "$TMP/ticks.ns" "$TMP/dump"

# dump --all-stacks: after the events, all 152 stacks by id, 127 of them used by no event's
# stk (create stacks: GoCreate's stack argument; the block stacks of idle programs).
rc=0
"$GOTRACE" dump --all-stacks "$T" > "$TMP/all-stacks" 2>&1 || rc=$?
result "$rc" "gotrace dump --all-stacks FILE exits 0" "$TMP/all-stacks"
head -n "$(wc -l < "$TMP/dump")" "$TMP/all-stacks" > "$TMP/all.events"
expect "--all-stacks: the events first, as plain dump prints them" "$TMP/all-stacks" \
	cmp -s "$TMP/all.events" "$TMP/dump"
grep '^stack ' "$TMP/all-stacks" > "$TMP/all.ids"
seq -f 'stack %g' 1 152 > "$TMP/want"
expect "--all-stacks: then 'stack 1' to 'stack 152', in order" "$TMP/all-stacks" \
	cmp -s "$TMP/want" "$TMP/all.ids"
grep -A 2 -x 'stack 1' "$TMP/all-stacks" > "$TMP/got"
printf 'stack 1\n\t0x1000 busy-0 linux:0\nstack 2\n' > "$TMP/want"
expect "--all-stacks: stack 1 (busy-0's create stack, no event's stk) is its one frame" \
	"$TMP/all-stacks" cmp -s "$TMP/want" "$TMP/got"
tail -n 3 "$TMP/all-stacks" > "$TMP/got"
printf 'stack 152\n\t0x100 futex linux:0\n\t0x104b idle-50 linux:0\n' > "$TMP/want"
expect "--all-stacks: the last lines are stack 152 (an idle program's block stack) and its 2 frames" \
	"$TMP/all-stacks" cmp -s "$TMP/want" "$TMP/got"

# A go 1.26 trace: every number of --json, computed by hand from stats_tracev2.c's times.
T2=$TMP/stats2.trace
"$GEN2" "$T2" > "$TMP/gen2.out" 2>&1
result $? "stats_tracev2 writes the go 1.26 trace" "$TMP/gen2.out"
rc=0
"$GOTRACE" stats --json "$T2" > "$TMP/json2" 2>&1 || rc=$?
result "$rc" "gotrace stats --json on a go 1.26 trace exits 0" "$TMP/json2"
# json2 EXPR: the Python expression EXPR on the document d (threads by g in t, programs by
# name in p) is true.
json2() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
t = {x["g"]: x for x in d["threads"]}
p = {x["program"]: x for x in d["programs"]}
def b(x): return [x["blocked_ns"][r] for r in ("sync", "net", "syscall", "sleep", "other")]
sys.exit(0 if eval("(" + sys.argv[2] + ")") else 1)' "$TMP/json2" "$1"
}
expect "1.26: version 1026, 19001 ns from the first Sync to the last, 20 events" "$TMP/json2" \
	json2 'd["version"] == 1026 and d["duration_ns"] == 19001 and d["events"] == 20'
expect "1.26: P0 busy 12890 ns of 19001" "$TMP/json2" \
	json2 'len(d["cpus"]) == 1 and d["cpus"][0]["utilisation"] == round(12890 / 19001, 6)'
expect "1.26: main (g 10, running at the start) ran 3190 ns in 3 switches, runnable 4800" \
	"$TMP/json2" json2 't[10]["program"] == "main" and t[10]["run_ns"] == 3190 and
		t[10]["runnable_ns"] == 4800 and t[10]["switches"] == 3'
expect "1.26: main blocked 500 ns sync, 2500 net, 8001 sleep (sync: futex, network, clock_nanosleep)" \
	"$TMP/json2" json2 'b(t[10]) == [500, 2500, 0, 8001, 0]'
expect "1.26: worker (g 11) ran 3700 ns in 2 switches, runnable 2200, then exited" "$TMP/json2" \
	json2 't[11]["program"] == "worker" and t[11]["run_ns"] == 3700 and
		t[11]["runnable_ns"] == 2200 and t[11]["switches"] == 2 and b(t[11]) == [0] * 5'
expect "1.26: g 11 created again is thread 4194315 (worker2): ran 6000, runnable 3000, 1 other" \
	"$TMP/json2" json2 't[4194315]["program"] == "worker2" and t[4194315]["run_ns"] == 6000 and
		t[4194315]["runnable_ns"] == 3000 and b(t[4194315]) == [0, 0, 0, 0, 1]'
expect "1.26: idle (g 20, waiting at the start) blocked 18981 ns other, never ran" "$TMP/json2" \
	json2 't[20]["program"] == "idle" and t[20]["switches"] == 0 and b(t[20]) == [0, 0, 0, 0, 18981]'
expect "1.26: 2 wakeups (800 and 4000 ns): p50 and max from their buckets" "$TMP/json2" \
	json2 'd["wakeup_latency_ns"] == {"count": 2, "p50": 3968, "p90": 3968, "p99": 3968,
		"max": 4000} and p["main"]["wakeup_latency_ns"]["count"] == 2'
expect "1.26: 5 block stacks, [call, program] with the call's category" "$TMP/json2" \
	json2 'sorted((s["reason"], s["count"], s["frames"][0]["func"]) for s in d["blocking_stacks"]) ==
		[("net", 1, "epoll_wait"), ("other", 1, "idle"), ("other", 1, "page fault or kernel wait"),
		 ("sleep", 1, "clock_nanosleep"), ("sync", 1, "futex")]'
rc=0
"$GOTRACE" stats "$T2" > "$TMP/text2" 2>&1 || rc=$?
result "$rc" "gotrace stats on a go 1.26 trace exits 0" "$TMP/text2"
expect "1.26 text: the title, and the note on 4194315" "$TMP/text2" \
	grep -q -E '^.*: go 1\.26 trace, 0\.019 ms, 20 events, 4 threads, 1 CPUs$' "$TMP/text2"
expect "1.26 text: the note explains 4194315 as thread 11" "$TMP/text2" \
	grep -q -E ' 4194315 is thread 11\.$' "$TMP/text2"

tap_end
