#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# gotrace pprof on the module's sample traces (TAP output): tests/samples-1.19, 1.21, 1.23 and
# 1.26.trace, recorded by selftests/samples_test.c (1 s of read() of /dev/zero at 1000 Hz).
# Go's pprof (Go 1.21's, and Go 1.27's when scripts/setup/go-fetch.sh has built it) reads each
# profile, not compressed; its samples add up to the trace's CPUSample events (gotrace dump's,
# and Go 1.27's go tool trace -d=parsed's when built), and vfs_read's cumulative count is the
# number of samples whose stack has it, most of them.
# With --hz, the CPU time is 1 ms a sample. Bad inputs: exit 1, the exact message, no file.
#
# Usage: tests/pprof.sh GOTRACE GEN_TRACE
#   GEN_TRACE is tests/gen_trace.c built: a go 1.26 trace without samples.
set -u

GOTRACE=$1
GEN=$2
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# shellcheck source=scripts/lib/tap-lib.sh
. "$ROOT/scripts/lib/tap-lib.sh"
export PPROF_TMPDIR="$TMP" HOME="$TMP"

echo "TAP version 13"
PPROFS=
for p in /usr/lib/go-1.21/pkg/tool/linux_amd64/pprof "$ROOT/build/go/1.27/tool/pprof"; do
	if [ -x "$p" ]; then
		PPROFS="$PPROFS $p"
	else
		echo "# $p is missing: not checked with it (scripts/setup/go-fetch.sh builds Go 1.27's)"
	fi
done
TRACE127=$ROOT/build/go/1.27/tool/trace
[ -x "$TRACE127" ] || echo "# $TRACE127 is missing: the counts are gotrace dump's alone"
if [ -z "$PPROFS" ]; then
	echo "Bail out! no Go pprof: install golang-1.21 (scripts/setup/deps.sh)"
	exit 1
fi

# samples TRACE: the CPUSample events gotrace dump prints, then those with vfs_read in their
# stack: "N V". Formats before 1.22 (dump --stacks): "TIME CPUSample ...", frames below as
# "\tPC FUNC FILE:LINE"; 1.22+: "M=.. P=.. G=.. StackSample ...", then "Stack=" and the frames
# as "\tFUNC @ PC" and "\t\tFILE:LINE", as Go 1.27's go tool trace -d=parsed prints any format.
samples() {
	{ "$GOTRACE" dump --stacks "$1" 2>/dev/null || "$GOTRACE" dump "$1"; } | count_samples
}

count_samples() {
	awk '
		function done() { if (s) { n++; if (v) nv++ } s = v = 0 }
		/^\t/ { if ($1 == "vfs_read" || $2 == "vfs_read") v = 1; next }
		/^$/ || /^[A-Za-z]*Stack=$/ { next }
		{ done(); s = $2 == "CPUSample" || $4 == "StackSample" }
		END { done(); print n + 0, nv + 0 }'
}

# raw_total PPROF PROFILE COLUMN: the sum of a value column of pprof -raw's samples.
raw_total() {
	"$1" -raw "$2" 2>"$TMP/raw.err" | awk -v c="$3" '
		/^Samples:/ { on = 1; next } /^Locations/ { on = 0 }
		on && /^ *[0-9]+( +[0-9]+)*: / { sub(":.*", ""); t += $c } END { print t + 0 }'
}

# top_cum PPROF PROFILE FUNC: FUNC's cumulative value in pprof -top (every node).
top_cum() {
	"$1" -top -nodefraction=0 -nodecount=100000 "$2" 2>/dev/null |
		awk -v f="$3" '$6 == f { print $4; exit }'
}

for v in 1.19 1.21 1.23 1.26; do
	T=$ROOT/userspace/tests/samples-$v.trace
	P=$TMP/$v.pb
	counts=$(samples "$T")
	N=${counts% *}
	V=${counts#* }
	echo "# samples-$v.trace: $N samples, $V in vfs_read"
	expect "samples-$v: over 500 samples, most of them in vfs_read" /dev/null \
		test "$N" -gt 500 -a "$((V * 2))" -gt "$N"
	if [ -x "$TRACE127" ]; then
		go=$("$TRACE127" -d=parsed "$T" 2>&1 | count_samples)
		expect "samples-$v: Go 1.27's go tool trace -d=parsed counts the same ($go)" \
			/dev/null test "$go" = "$counts"
	fi
	"$GOTRACE" pprof -o "$P" "$T" >"$TMP/out" 2>&1
	result $? "samples-$v: gotrace pprof -o FILE exits 0" "$TMP/out"
	expect "samples-$v: the profile is readable by its owner only (0600)" "$TMP/out" \
		test "$(stat -c %a "$P")" = 600
	expect "samples-$v: the profile is not gzipped" "$TMP/out" \
		test "$(od -An -tx1 -N2 "$P" | tr -d ' ')" != 1f8b
	for p in $PPROFS; do
		case $p in */1.27/*) go="Go 1.27's" ;; *) go="Go 1.21's" ;; esac
		t=$(raw_total "$p" "$P" 1)
		expect "samples-$v: $go pprof -raw: $t samples, the trace's $N" "$TMP/raw.err" \
			test "$t" -eq "$N"
		c=$(top_cum "$p" "$P" vfs_read)
		expect "samples-$v: $go pprof -top: vfs_read in ${c:-no} samples, the trace's $V" \
			/dev/null test "${c:-0}" -eq "$V"
	done
	"$p" -raw "$P" >"$TMP/raw" 2>&1
	expect "samples-$v: samples labelled with their goroutine" "$TMP/raw" \
		grep -q '^ *goroutine:\[[1-9][0-9]*\]$' "$TMP/raw"
	"$GOTRACE" pprof --hz 1000 "$T" >"$P" 2>"$TMP/out"
	result $? "samples-$v: gotrace pprof --hz 1000 > FILE exits 0" "$TMP/out"
	for p in $PPROFS; do
		t=$(raw_total "$p" "$P" 2)
		expect "samples-$v --hz 1000: $t ns of CPU, 1 ms a sample" "$TMP/raw.err" \
			test "$t" -eq "$((N * 1000000))"
		"$p" -top "$P" >"$TMP/top" 2>&1
		expect "samples-$v --hz 1000: type cpu, ${N}ms" "$TMP/top" \
			grep -q "Total samples = ${N}ms" "$TMP/top"
	done
done

# refuse DESCRIPTION MESSAGE ARGS...: exit 1 with MESSAGE exactly, and no $TMP/bad.pb.
refuse() {
	desc=$1
	msg=$2
	shift 2
	rm -f "$TMP/bad.pb"
	rc=0
	"$GOTRACE" pprof "$@" >"$TMP/out" 2>&1 || rc=$?
	if [ "$rc" -eq 1 ] && [ "$(head -n 1 "$TMP/out")" = "gotrace pprof: $msg" ] &&
		[ ! -e "$TMP/bad.pb" ]; then
		result 0 "$desc"
	else
		echo "# exit $rc, want 1 and: gotrace pprof: $msg" >>"$TMP/out"
		result 1 "$desc" "$TMP/out"
	fi
}

NOSAMPLES="no CPU samples in the trace: record it with --cpu-samples HZ (gotrace record \
--cpu-samples 1000 ..., format 1.19 or later)"
OLD=$ROOT/userspace/tests/split-oldtrace-pingpong-1.21.trace
refuse "a go 1.21 trace without samples" "$OLD: $NOSAMPLES" -o "$TMP/bad.pb" "$OLD"
"$GEN" -f 26 "$TMP/plain.trace" 1 >/dev/null
refuse "a go 1.26 trace without samples" "$TMP/plain.trace: $NOSAMPLES" -o "$TMP/bad.pb" \
	"$TMP/plain.trace"
refuse "a missing file" "$TMP/missing.trace: cannot open: No such file or directory" \
	-o "$TMP/bad.pb" "$TMP/missing.trace"
printf 'not a trace at all\n' >"$TMP/garbage"
refuse "a file that is not a trace" "$TMP/garbage: invalid trace (encoding rule, byte offset 0): \
not a Go trace: the file must start with \"go 1.NN trace\" and NUL padding to 16 bytes" \
	-o "$TMP/bad.pb" "$TMP/garbage"
head -c 12000 "$ROOT/userspace/tests/samples-1.19.trace" >"$TMP/cut.trace"
rc=0
"$GOTRACE" pprof -o "$TMP/bad.pb" "$TMP/cut.trace" >"$TMP/out" 2>&1 || rc=$?
expect "a cut go 1.19 trace: exit 1, an invalid trace, no file" "$TMP/out" \
	test "$rc" -eq 1 -a ! -e "$TMP/bad.pb" -a -n "$(grep 'invalid trace' "$TMP/out")"
refuse "--hz 0" "invalid --hz '0': give a rate from 1 to 10000 a second" --hz 0 x
refuse "--hz 10001" "invalid --hz '10001': give a rate from 1 to 10000 a second" --hz 10001 x
refuse "no FILE" "missing FILE: give the trace to read" -o "$TMP/bad.pb"
refuse "two FILEs" "unexpected argument 'y': give one FILE" x y
refuse "an output in a missing directory" \
	"cannot create $TMP/no/bad.pb: No such file or directory" -o "$TMP/no/bad.pb" \
	"$ROOT/userspace/tests/samples-1.19.trace"
rc=0
"$GOTRACE" pprof "$ROOT/userspace/tests/samples-1.19.trace" >/dev/full 2>"$TMP/out" || rc=$?
expect "a full disk: exit 1, 'cannot write the output'" "$TMP/out" \
	test "$rc" -eq 1 -a "$(cat "$TMP/out")" = \
	"gotrace pprof: cannot write the output: No space left on device"
cp "$ROOT/userspace/tests/samples-1.19.trace" "$TMP/self.trace"
refuse "-o naming the trace itself" "$TMP/self.trace is the trace: give -o another FILE" \
	-o "$TMP/self.trace" "$TMP/self.trace"
expect "... which is left as it was" /dev/null \
	cmp -s "$TMP/self.trace" "$ROOT/userspace/tests/samples-1.19.trace"
if command -v script >/dev/null; then
	rc=0
	script -qec "'$GOTRACE' pprof '$ROOT/userspace/tests/samples-1.19.trace'" /dev/null \
		>"$TMP/out" 2>&1 || rc=$?
	expect "standard output a terminal, no -o: exit 1, the profile is not written there" \
		"$TMP/out" test "$rc" -eq 1 -a "$(head -n 1 "$TMP/out" | tr -d '\r')" = \
		"gotrace pprof: the profile is binary: give -o FILE, or redirect the output"
else
	echo "# script (util-linux) is missing: standard output as a terminal not checked"
fi
refuse "an unknown option" "unrecognized option '--bogus'" --bogus x
rc=0
"$GOTRACE" pprof --help >"$TMP/out" 2>&1 || rc=$?
expect "gotrace pprof --help exits 0 with its usage" "$TMP/out" \
	test "$rc" -eq 0 -a "$(head -n 1 "$TMP/out")" = \
	"Usage: gotrace pprof [--hz HZ] [-o FILE] TRACE"
"$GOTRACE" help >"$TMP/out" 2>&1
expect "gotrace help lists pprof" "$TMP/out" grep -q '^  pprof ' "$TMP/out"
tap_end
