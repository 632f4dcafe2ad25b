#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prove scripts/oracles/go-check.sh: Go's own sample traces pass it, broken inputs fail it; TAP.
#
# Works on copies of the sample traces Go ships in internal/trace/testdata (Go 1.19's for the
# 1.11 and 1.19 formats, Go 1.21's for 1.21) in a temp dir. Expected results:
#   - every *_1_{11,19,21}_good sample passes all five checks (Go 1.19 or 1.21, 1.23 and
#     1.27 parse; Go 1.19 or 1.21 and 1.27 pages), except the four below; with --parse-only,
#     the three parse checks and no page check;
#   - http_1_11_good and user_task_region_1_{11,19,21}_good hold a single Gomaxprocs event (no
#     GC ran while they were recorded). Modern Go's converter consumes the first Gomaxprocs as
#     the end of the start-of-trace snapshot, so the converted trace has no GOMAXPROCS metric,
#     the MMU data is empty and the /mmu?mode=plot handler of Go 1.23 and of Go 1.27 alike
#     panics indexing it (internal/trace/traceviewer/mmu.go, golang/go#74146). That is a real
#     page failure, so go-check must report exactly the "go1.27 pages" check of each as
#     failing (with the panic), and the same traces with a second
#     Gomaxprocs right after the first (what a gotrace trace must contain) must pass
#     everything;
#   - a truncated trace, a header-only trace and a trace with out-of-order timestamps fail
#     all five checks, i.e. with every Go version; Go's non-good sample (stress_1_5_unordered:
#     Go ships no *_bad file), an empty directory, a directory without *.trace, a missing path
#     and a mixed good+bad directory fail;
#   - a 4 MiB Go 1.26 trace in generations of 1 MiB (userspace's tests/gen_trace -f 26, a
#     synthetic trace Go 1.27 accepts) passes the 4 checks of --parse-only (Go 1.26 and 1.27 parse it and
#     every piece of it cut at a generation boundary); the same trace cut in half (inside a
#     batch) fails all 4, and with one batch's size field grown by one byte (the framing
#     broken) fails all 4 too;
#   - a timeline without an execution slice fails the page check once its Goroutines counter
#     counts one running, and passes, naming no goroutine, when none ever runs;
#   - no trace server is left running.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib/tap-lib.sh
. "$HERE/../lib/tap-lib.sh"
CHECK=$HERE/../oracles/go-check.sh
SAMPLES_OLD=${GO_1_19_SAMPLES:-/usr/lib/go-1.19/src/internal/trace/testdata}
SAMPLES_NEW=${GO_1_21_SAMPLES:-/usr/lib/go-1.21/src/internal/trace/testdata}
MMU_BUG="http_1_11_good user_task_region_1_11_good user_task_region_1_19_good user_task_region_1_21_good"

for d in "$SAMPLES_OLD" "$SAMPLES_NEW"; do
	if [ ! -d "$d" ]; then
		echo "TAP version 13"
		echo "Bail out! $d missing: install golang-1.19-go and golang-1.21-go (scripts/setup/deps.sh)"
		exit 1
	fi
done
command -v python3 >/dev/null 2>&1 || {
	echo "TAP version 13"
	echo "Bail out! python3 not found: install it (scripts/setup/deps.sh)"
	exit 1
}
need_gotrace "the trace editor uses it"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/go-check-selftest.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

# Edited copies: scripts/oracle-tests/trace_edit.py MODE IN OUT (modes dup-gomaxprocs: a second
# Gomaxprocs right after the first; late-batch: timestamps that go back in time). It finds the
# events with the gotrace CLI: GOTRACE, default userspace/gotrace (make -C userspace).
EDIT_TRACE=$HERE/trace_edit.py
# The synthetic Go 1.26 trace's generator (make -C userspace build/gen_trace builds it).
GEN_TRACE=${GEN_TRACE:-$HERE/../../userspace/build/gen_trace}
if [ ! -x "$GEN_TRACE" ] && ! make -s -C "$HERE/../../userspace" build/gen_trace >&2; then
	echo "TAP version 13"
	echo "Bail out! $GEN_TRACE missing and make -C userspace build/gen_trace failed"
	exit 1
fi


# The sample traces: 1.11 and 1.19 from Go 1.19, 1.21 from Go 1.21.
mkdir "$TMP/good" "$TMP/mmu" "$TMP/mmu-fixed"
for f in "$SAMPLES_OLD"/*_1_11_good "$SAMPLES_OLD"/*_1_19_good "$SAMPLES_NEW"/*_1_21_good; do
	[ -f "$f" ] || continue
	base=${f##*/}
	case " $MMU_BUG " in
	*" $base "*)
		cp "$f" "$TMP/mmu/$base.trace"
		python3 "$EDIT_TRACE" dup-gomaxprocs "$f" "$TMP/mmu-fixed/$base.trace"
		;;
	*) cp "$f" "$TMP/good/$base.trace" ;;
	esac
done
ngood=$(find "$TMP/good" -name '*.trace' | wc -l)
nmmu=$(find "$TMP/mmu" -name '*.trace' | wc -l)

echo "TAP version 13"
echo "1..$((4 + nmmu + 14))"

# 1. Go's good samples pass everything.
run good "$TMP/good"
st=0
[ "$RC" -eq 0 ] && [ "$ngood" -ge 8 ] &&
	grep -qx "1\.\.$((5 * ngood))" "$OUT" &&
	[ "$(grep -c '^ok ' "$OUT")" -eq $((5 * ngood)) ] && ! grep -q '^not ok' "$OUT" || st=1
result $st "Go's $ngood good sample traces (1.11, 1.19, 1.21) pass all 5 checks each" "$OUT"

# 1b. --parse-only: the three parse checks of each, no page.
run good-parse --parse-only "$TMP/good"
st=0
[ "$RC" -eq 0 ] && grep -qx "1\.\.$((3 * ngood))" "$OUT" &&
	[ "$(grep -c '^ok [0-9]* - go1\.[0-9]* parse: ' "$OUT")" -eq $((3 * ngood)) ] &&
	! grep -q 'pages: \|^not ok' "$OUT" || st=1
result $st "--parse-only: the same samples get the 3 parse checks each and no page check" "$OUT"

# 2. The single-Gomaxprocs samples: only Go 1.27's pages fail, on the MMU plot panic.
run mmu "$TMP/mmu"
st=0
[ "$RC" -eq 1 ] && [ "$nmmu" -eq 4 ] && [ "$(grep -c '^not ok ' "$OUT")" -eq "$nmmu" ] || st=1
result $st "single-Gomaxprocs samples: go-check exits 1 (Go 1.27 MMU plot panic, golang/go#74146)" "$OUT"
for f in "$TMP"/mmu/*.trace; do
	st=0
	grep -Eq "^ok [0-9]+ - go1\.(19|21) parse: $f\$" "$OUT" &&
		grep -q "^ok [0-9]* - go1\.23 parse: $f\$" "$OUT" &&
		grep -q "^ok [0-9]* - go1\.27 parse: $f\$" "$OUT" &&
		grep -Eq "^ok [0-9]+ - go1\.(19|21) pages: $f\$" "$OUT" || st=1
	grep -q "^not ok [0-9]* - go1\.27 pages: $f\$" "$OUT" || st=1
	# The failure must be the MMU plot panic, reported from the server's stderr.
	sed -n "\#^not ok [0-9]* - go1\.27 pages: $f\$#,/^\(not \)\{0,1\}ok /p" "$OUT" >"$TMP/one.diag"
	grep -q 'GET /mmu?mode=plot' "$TMP/one.diag" && grep -q 'http: panic serving' "$TMP/one.diag" || st=1
	result $st "${f##*/}: only 'go1.27 pages' fails, with the /mmu?mode=plot panic shown" "$OUT"
done

# 3. The same traces with a second Gomaxprocs (as gotrace must write) pass everything.
run mmu-fixed "$TMP/mmu-fixed"
st=0
[ "$RC" -eq 0 ] && [ "$(grep -c '^ok ' "$OUT")" -eq $((5 * nmmu)) ] || st=1
result $st "single-Gomaxprocs samples plus a 2nd Gomaxprocs right after the 1st pass all checks" "$OUT"

# 4. A truncated trace fails every check.
mkdir "$TMP/trunc"
src=$SAMPLES_NEW/stress_1_21_good
head -c $(($(stat -c %s "$src") / 2)) "$src" >"$TMP/trunc/half.trace"
run trunc "$TMP/trunc"
st=0
[ "$RC" -eq 1 ] && [ "$(grep -c '^not ok ' "$OUT")" -eq 5 ] || st=1
result $st "a trace cut in half fails all 5 checks" "$OUT"

# 5. A header-only trace fails.
mkdir "$TMP/hdr"
head -c 16 "$src" >"$TMP/hdr/header-only.trace"
run hdr "$TMP/hdr/header-only.trace"
st=0
[ "$RC" -eq 1 ] && [ "$(grep -c '^not ok ' "$OUT")" -eq 5 ] || st=1
result $st "a header-only trace fails all 5 checks" "$OUT"

# 6. Go's non-good sample (its only one; no *_bad files ship) fails.
mkdir "$TMP/bad"
cp "$SAMPLES_OLD/stress_1_5_unordered" "$TMP/bad/stress_1_5_unordered.trace"
run bad "$TMP/bad"
st=0
[ "$RC" -eq 1 ] && ! grep -q '^ok ' "$OUT" || st=1
result $st "Go's sample stress_1_5_unordered fails" "$OUT"

# 7. Timestamps that go backwards on a P fail both parsers.
mkdir "$TMP/order"
python3 "$EDIT_TRACE" late-batch "$SAMPLES_NEW/http_1_21_good" "$TMP/order/backwards.trace"
run order "$TMP/order"
st=0
[ "$RC" -eq 1 ] && [ "$(grep -c '^not ok ' "$OUT")" -eq 5 ] &&
	[ "$(grep -c 'time stamps out of order' "$OUT")" -ge 3 ] || st=1
result $st "a trace whose timestamps go backwards fails all 5 checks ('time stamps out of order')" "$OUT"

# 8. An empty directory fails: a check that sees nothing must not pass.
mkdir "$TMP/empty"
run empty "$TMP/empty"
st=0
[ "$RC" -eq 1 ] && grep -q '^Bail out! .*no \*\.trace files' "$OUT" || st=1
result $st "an empty directory fails with 'no *.trace files'" "$OUT"

# 9. A directory holding only other files fails the same way.
mkdir "$TMP/other"
cp "$SAMPLES_NEW/http_1_21_good" "$TMP/other/"
run other "$TMP/other"
st=0
[ "$RC" -eq 1 ] && grep -q '^Bail out! .*no \*\.trace files' "$OUT" || st=1
result $st "a directory without *.trace files fails" "$OUT"

# 10. A missing path fails; no arguments is a usage error.
run missing "$TMP/does-not-exist"
st=0
[ "$RC" -eq 1 ] && grep -q 'no such file or directory' "$OUT" || st=1
result $st "a missing path fails" "$OUT"
run noargs
st=0
[ "$RC" -eq 2 ] && grep -q '^usage:' "$OUT" || st=1
result $st "no arguments: usage error (exit 2)" "$OUT"

# 11. One bad trace among good ones fails the run; the good one still passes.
mkdir "$TMP/mixed"
cp "$SAMPLES_NEW/http_1_21_good" "$TMP/mixed/a-good.trace"
cp "$TMP/trunc/half.trace" "$TMP/mixed/b-half.trace"
run mixed "$TMP/mixed"
st=0
[ "$RC" -eq 1 ] && grep -qx '1\.\.10' "$OUT" &&
	[ "$(grep -c "^ok [0-9]* - .*: $TMP/mixed/a-good.trace\$" "$OUT")" -eq 5 ] &&
	[ "$(grep -c "^not ok [0-9]* - .*: $TMP/mixed/b-half.trace\$" "$OUT")" -eq 5 ] || st=1
result $st "a good and a truncated trace together: exit 1, 5 ok + 5 not ok" "$OUT"

# 12. Go 1.22+: a valid 1.26 trace of several generations passes; cut or misframed, it fails.
mkdir "$TMP/modern" "$TMP/modern-half" "$TMP/modern-frame"
"$GEN_TRACE" -f 26 -g 1 "$TMP/modern/gen4.trace" 4 >"$TMP/gen.out" 2>&1 || cat "$TMP/gen.out" >&2
run modern --parse-only "$TMP/modern"
st=0
[ "$RC" -eq 0 ] && grep -qx '1\.\.4' "$OUT" && [ "$(grep -c '^ok ' "$OUT")" -eq 4 ] &&
	grep -q '^ok [0-9]* - go1\.26 cuts ([0-9]* pieces' "$OUT" || st=1
result $st "a generated Go 1.26 trace: Go 1.26 and 1.27 parse it and its cuts (4 checks)" "$OUT"
src=$TMP/modern/gen4.trace
head -c $(($(stat -c %s "$src") / 2)) "$src" >"$TMP/modern-half/half.trace"
run modern-half --parse-only "$TMP/modern-half"
st=0
[ "$RC" -eq 1 ] && [ "$(grep -c '^not ok ' "$OUT")" -eq 4 ] || st=1
result $st "that trace cut in half fails all 4 checks" "$OUT"
python3 "$EDIT_TRACE" grow-batch "$src" "$TMP/modern-frame/frame.trace"
run modern-frame --parse-only "$TMP/modern-frame"
st=0
[ "$RC" -eq 1 ] && [ "$(grep -c '^not ok ' "$OUT")" -eq 4 ] || st=1
result $st "that trace with its first batch one byte longer (framing broken) fails all 4 checks" "$OUT"

# 13. The timeline check: a timeline without an execution slice fails, unless no goroutine ever
# runs in it (a filter that traces only sleeping threads), which passes with no goroutine named.
page_check() { # JSON: what go_pages.py answers for a jsontrace body
	printf '%s\n' "$1" >"$TMP/page.json"
	printf 'JSON\tjsontrace\t%s\n' "$TMP/page.json" |
		python3 "$HERE/../lib/page_client.py" 10 "$HERE/../lib/go_pages.py"
}
counter='{"name":"Goroutines","ph":"C","ts":0,"pid":1,"tid":0,"args":{"Running":%d,"Runnable":0}}'
slice='{"name":"G7 sh","ph":"X","ts":1,"dur":2,"pid":0,"tid":0}'
# shellcheck disable=SC2059
idle=$(printf "$counter" 0) busy=$(printf "$counter" 1)
st=0
{
	page_check "{\"traceEvents\":[$idle],\"stackFrames\":{}}"
	page_check "{\"traceEvents\":[$idle,$busy],\"stackFrames\":{}}"
	page_check "{\"traceEvents\":[$busy,$slice],\"stackFrames\":{}}"
} >"$TMP/page.out" 2>&1
printf 'ok\t\nbad\ttraceEvents has 2 events but no execution slice (ph X): the timeline would be empty\nok\t7\n' |
	cmp -s - "$TMP/page.out" || st=1
result $st "timeline check: no slice fails once a goroutine runs; passes, naming none, if none does" \
	"$TMP/page.out"

# 14. No trace server survives the runs above.
st=0
ps -eo args >"$TMP/ps.out"
if grep -F -- "-http=127.0.0.1:0 $TMP/" "$TMP/ps.out" >"$TMP/stray.out"; then
	st=1
fi
result $st "no 'trace -http' server left running" "$TMP/stray.out"

if [ "$tap_failed" -ne 0 ]; then
	echo "# $tap_failed of $tap_n self-tests failed" >&2
	exit 1
fi
exit 0
