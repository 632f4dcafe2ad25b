#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# gotrace stats of a joined trace (TAP output): tests/stats-joined.trace, a Go 1.27 program's
# own trace with user regions of gotrace merge's types (tests/stats_joined_gen.go writes it).
# Its go_functions must equal what tests/stats_joined_ref.py computes from Go 1.27's own
# reader ('go tool trace -d=parsed'), and the numbers worked out by hand below from that
# output; each row must add up (on a CPU + the four kernel columns == running). A trace
# without the join's regions gets neither the table nor the key.
#
# Usage: tests/stats_joined.sh GOTRACE [JOINED...]
#   Go 1.27 as tests/go127-lib.sh finds it ($GO_1_27, or scripts/setup/go-fetch.sh).
#   JOINED: more traces with the join's regions (test_splice's, gotrace merge's): each one's
#   go_functions is compared with Go's view the same way and must add up.
set -u

GOTRACE=$1
shift
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T=$ROOT/userspace/tests/stats-joined.trace
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# shellcheck source=scripts/lib/tap-lib.sh
. "$ROOT/scripts/lib/tap-lib.sh"
# shellcheck source=userspace/tests/go127-lib.sh
. "$ROOT/userspace/tests/go127-lib.sh"

# fn FUNCTION EXPR: EXPR (python, on f, FUNCTION's go_functions entry) holds in the JSON.
fn() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
f = {g["function"]: g for g in d["go_functions"]}[sys.argv[2]]
sys.exit(0 if eval("(" + sys.argv[3] + ")") else 1)' "$TMP/json" "$1" "$2"
}

echo "TAP version 13"
go127_setup

rc=0
"$GOTRACE" stats --json "$T" > "$TMP/json" 2> "$TMP/json.err" || rc=$?
cat "$TMP/json.err" >> "$TMP/json"
result "$rc" "gotrace stats --json of the joined trace exits 0" "$TMP/json"
rc=0
"$TOOL" -d=parsed "$T" > "$TMP/parsed" 2> "$TMP/parsed.err" || rc=$?
result "$rc" "Go 1.27's trace tool reads it (-d=parsed)" "$TMP/parsed.err"
python3 "$ROOT/userspace/tests/stats_joined_ref.py" < "$TMP/parsed" > "$TMP/ref"
result $? "stats_joined_ref.py computes the functions' times from Go's events" "$TMP/ref"

# same_as_go JSON REF NAME: results: JSON's go_functions is REF's, function by function; each
# one adds up; they come by running time.
same_as_go() {
	python3 - "$1" "$2" > "$TMP/diff" <<'PY'
import json, sys
got = {f.pop("function"): f for f in json.load(open(sys.argv[1]))["go_functions"]}
want = json.load(open(sys.argv[2]))
bad = [n for n in sorted(set(got) | set(want)) if got.get(n) != want.get(n)]
for name in bad:
    print(name, "gotrace:", got.get(name), "Go:", want.get(name))
sys.exit(1 if bad else 0)
PY
	result $? "$3: go_functions is, function by function, what Go's events give" "$TMP/diff"
	expect "$3: every function adds up: on a CPU + the four kernel kinds == running, \
syscall <= running; by running time" "$1" python3 -c '
import json, sys
v = json.load(open(sys.argv[1]))["go_functions"]
k = ("on_cpu_ns", "cpu_wait_ns", "throttled_ns", "blocked_ns", "syscall_blocked_ns")
r = [f["running_ns"] for f in v]
sys.exit(0 if all(sum(f[x] for x in k) == f["running_ns"] and f["on_cpu_ns"] >= 0 and
		  f["syscall_ns"] <= f["running_ns"] for f in v) and
	 r == sorted(r, reverse=True) else 1)' "$1"
}

same_as_go "$TMP/json" "$TMP/ref" stats-joined.trace
expect "go_functions: 12 functions" "$TMP/json" python3 -c '
import json, sys
sys.exit(0 if len(json.load(open(sys.argv[1]))["go_functions"]) == 12 else 1)' "$TMP/json"

# By hand, from the -d=parsed times (ns), less their common 704872000000.
# main.waiter, G10 and G11 (named by GoCreate's start stack): waiting for a CPU
# 867136..2871808 and 4922880..6923072; throttled 3872640..4873088 and 7923392..10578624.
expect "main.waiter: 2 goroutines, 4004864 ns waiting for a CPU, 3655680 throttled" \
	"$TMP/json" fn main.waiter 'f["goroutines"] == 2 and f["cpu_wait_ns"] == 4004864 and
		f["throttled_ns"] == 3655680 and f["blocked_ns"] == 0 and f["syscall_ns"] == 0'
# main.blocker, G12: blocked in page fault 8049344..9050368, blocked in futex 9051008..
# 12203456 less its sleep (Waiting 9551744..11699776, Runnable to 11702656), blocked in (no
# reason) 12808320..13108480; two regions' types are not the join's ("not a kernel region",
# "kernel: throttled!"): on a CPU.
expect "main.blocker: 2302720 ns blocked (not its sleep), 621632 on a CPU" "$TMP/json" \
	fn main.blocker 'f["goroutines"] == 1 and f["blocked_ns"] == 2302720 and
		f["on_cpu_ns"] == 621632 and f["cpu_wait_ns"] + f["throttled_ns"] == 0'
# main.syscaller, G13: Running 850624, Syscall 852672..9570880, Running 9570944..10572544;
# its region 852160..9572352.
expect "main.syscaller: 9721856 ns running, 8718208 in read(2), 8720128 syscall blocked" \
	"$TMP/json" fn main.syscaller 'f["running_ns"] == 9721856 and f["syscall_ns"] ==
		8718208 and f["syscall_blocked_ns"] == 8720128 and f["on_cpu_ns"] == 1001728'
# main's goroutine was running at the start (no create stack): Go names it by the root of
# its first stack, main.main.
expect "the main goroutine is main.main (the root of its first stack)" "$TMP/json" \
	fn main.main 'f["goroutines"] == 1 and f["running_ns"] > 0'

# The text table: its rows in ms, running first, each adding up within rounding.
rc=0
"$GOTRACE" stats "$T" > "$TMP/text" 2>&1 || rc=$?
result "$rc" "gotrace stats of the joined trace exits 0" "$TMP/text"
awk '/^Goroutine functions/ { on = 1 } on' "$TMP/text" > "$TMP/table"
expect "text: the table's title, header and first rows" "$TMP/table" sh -c '
	sed -n 2,5p "$1" | tr -s " " > "$1.head"
	printf "%s\n" \
	"function goroutines running on a CPU CPU wait throttled blocked sys.blocked syscall" \
	"main.syscaller 1 9.722 1.002 0.000 0.000 0.000 8.720 8.718" \
	"main.waiter 2 9.664 2.003 4.005 3.656 0.000 0.000 0.000" \
	"main.blocker 1 2.924 0.622 0.000 0.000 2.303 0.000 0.000" | cmp -s - "$1.head" &&
	grep -q "^Goroutine functions (by running time, in ms; a joined trace" "$1"' sh \
	"$TMP/table"
expect "text: 7 functions ran, one line counts the 5 whose goroutines never ran" \
	"$TMP/table" sh -c 'test "$(grep -c -E "^[a-z].* [0-9]+ +[0-9]+\.[0-9]{3} " "$1")" \
	-eq 7 && grep -q -x "  + 5 functions whose goroutines never ran (--all lists them)" "$1"' \
	sh "$TMP/table"
expect "text: on a CPU + the four kernel columns == running, each row, within 0.003 ms" \
	"$TMP/table" awk 'NF == 9 && $2 ~ /^[0-9]+$/ { rows++; d = $3 - $4 - $5 - $6 - $7 - $8
		if (d > 0.003 || d < -0.003) bad = 1 } END { exit bad || rows != 7 }' "$TMP/table"
rc=0
"$GOTRACE" stats --all "$T" > "$TMP/all" 2>&1 || rc=$?
expect "--all: all 12 functions, no line counting the rest" "$TMP/all" sh -c '
	awk "/^Goroutine functions/ { on = 1 } on" "$1" > "$1.t"
	test "$(grep -c -E "^[a-z].* [0-9]+ +[0-9]+\.[0-9]{3} " "$1.t")" -eq 12 &&
	! grep -q "^  + " "$1.t"' sh "$TMP/all"

# Not joined: a Go trace without the join's regions.
S=$ROOT/userspace/tests/samples-1.26.trace
"$GOTRACE" stats "$S" > "$TMP/plain" 2>&1
expect "a trace without kernel regions: no Goroutine functions table" "$TMP/plain" \
	sh -c '! grep -q "^Goroutine functions" "$1"' sh "$TMP/plain"
"$GOTRACE" stats --json "$S" > "$TMP/plain.json" 2>&1
expect "a trace without kernel regions: no go_functions key" "$TMP/plain.json" python3 -c '
import json, sys
sys.exit(1 if "go_functions" in json.load(open(sys.argv[1])) else 0)' "$TMP/plain.json"

# More joined traces.
for f in "$@"; do
	n=$(basename "$f")
	rc=0
	"$GOTRACE" stats --json "$f" > "$TMP/more.json" 2>&1 || rc=$?
	result "$rc" "$n: gotrace stats --json exits 0" "$TMP/more.json"
	"$TOOL" -d=parsed "$f" 2> "$TMP/parsed.err" |
		python3 "$ROOT/userspace/tests/stats_joined_ref.py" > "$TMP/more.ref"
	same_as_go "$TMP/more.json" "$TMP/more.ref" "$n"
done
tap_end
