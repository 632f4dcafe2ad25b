#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Throughput and peak memory of 'gotrace check' and 'gotrace dump' beside Go's
# own reader, on one large synthetic trace per format: go 1.19 beside Go 1.19's
# 'go tool trace -d', go 1.26 (generations of 4 MiB) beside Go 1.27's
# 'go tool trace -d=parsed'. gotrace's best of 3 runs; Go runs once. Prints
# numbers; it is not a pass/fail test. Peak memory is also compared above
# each reader's own floor, its peak RSS on a header-only trace of the format
# (the process, its libraries or runtime, before any event): what the trace
# costs, which is what grows with it. Then 'gotrace split' of the go 1.19 and
# the go 1.26 trace into pieces of about a quarter of each, best of 3. Every measured run of every reader
# (gotrace's and Go's, the floors' and split's too) reads its trace from disk: EVICT
# drops it from the page cache first.
# Then 'gotrace merge' and 'merge --threads' of an APP and a MACHINE of 64 MiB each
# and of 128 MiB each (gen_join's pairs), to see whether memory grows with them: MB/s
# of APP and MACHINE read, best of 2 (merge --threads of 128 MiB: 1 run), cold (both
# evicted before each run) and warm (cached).
# Usage: bench.sh GOTRACE GEN_TRACE RUSAGE EVICT PREFIX MEGABYTES [GEN_JOIN]
#   the traces are PREFIX.trace and PREFIX-1.26.trace, generated if missing; EVICT is
#   tests/evict.c built; without GEN_JOIN (tests/gen_join.c built), no merge bench.
# Environment: BENCH=merge (the merge bench only), GO119 (Go 1.19's root, default /usr/lib/go-1.19), GO127_TRACE
# (Go 1.27's trace tool, default the one scripts/setup/go-fetch.sh builds).
set -eu

GOTRACE=$1
GEN=$2
RUSAGE=$3
EVICT=$4
PREFIX=$5
MB=$6
GEN_JOIN=${7:-}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
GO=${GO119:-/usr/lib/go-1.19}/bin/go
TOOL127=${GO127_TRACE:-$ROOT/build/go/1.27/tool/trace}

best() {	# RUNS TRACE COMMAND...: the fastest of RUNS runs of COMMAND TRACE: "SECONDS KIB"
	runs=$1
	file=$2
	shift 2
	for _ in $(seq "$runs"); do
		"$EVICT" "$file"
		"$RUSAGE" "$@" "$file"
	done | sort -n | head -1
}

line() {	# LABEL "SECONDS KIB" BYTES
	echo "$2" | awk -v l="$1" -v n="$3" '{ printf "%-30s %7.2f s %8.1f MB/s  peak RSS %8.1f MiB\n",
		l, $1, n / $1 / 1048576, $2 / 1024 }'
}

ratio() {	# LABEL "SECONDS KIB" GO_LABEL "SECONDS KIB" (Go's) FLOOR_KIB GO_FLOOR_KIB
	echo "$2 $4 $5 $6" | awk -v l="$1" -v g="$3" '{ printf "%s vs %s: %.1fx the throughput, %.3fx the peak memory, %.3fx above the floors\n",
		l, g, $3 / $1, $2 / $4, ($2 - $5) / ($4 - $6) }'
}

floor() {	# VERSION COMMAND...: peak RSS (KiB) of COMMAND on a header-only trace
	hdr=$PREFIX-header-$1.trace
	printf 'go 1.%s trace\0\0\0' "$1" >"$hdr"
	shift
	best 3 "$hdr" "$@" | awk '{ print $2 }'
}

# FORMAT TRACE: generates it if missing, prints its size and gotrace's verdict.
prepare() {
	if [ ! -s "$2" ]; then
		echo "generating a ${MB} MiB go 1.$1 trace: $2"
		"$GEN" -f "$1" "$2" "$MB"
	fi
	"$GOTRACE" check "$2"
}

# TRACE GO_LABEL GO_COMMAND...: gotrace check and dump, then Go's command once.
bench() {
	trace=$1
	glabel=$2
	version=$3
	shift 3
	size=$(stat -c %s "$trace")
	check=$(best 3 "$trace" "$GOTRACE" check -q)
	dump=$(best 3 "$trace" "$GOTRACE" dump)
	line "gotrace check -q" "$check" "$size"
	line "gotrace dump" "$dump" "$size"
	if [ ! -x "$1" ]; then
		echo "$glabel: $1 missing, no ratio"
		return
	fi
	go=$(best 1 "$trace" "$@")
	line "$glabel" "$go" "$size"
	cfloor=$(floor "$version" "$GOTRACE" check -q)
	dfloor=$(floor "$version" "$GOTRACE" dump)
	gfloor=$(floor "$version" "$@")
	echo "floors (header-only trace): check $cfloor KiB, dump $dfloor KiB, $glabel $gfloor KiB"
	ratio "check" "$check" "$glabel" "$go" "$cfloor" "$gfloor"
	ratio "dump" "$dump" "$glabel" "$go" "$dfloor" "$gfloor"
}

# MIB: APP and MACHINE of MIB MiB each, PREFIX-join-MIB-{app,machine}.trace,
# generated if missing, and gotrace's verdict on each.
join_prepare() {
	for t in app machine; do
		[ -s "$PREFIX-join-$1-$t.trace" ] || break
	done
	if [ ! -s "$PREFIX-join-$1-$t.trace" ]; then
		echo "generating a $1 MiB APP and MACHINE: $PREFIX-join-$1-{app,machine}.trace"
		"$GEN_JOIN" "$PREFIX-join-$1-app.trace" "$PREFIX-join-$1-machine.trace" "$1"
	fi
	"$GOTRACE" check "$PREFIX-join-$1-app.trace"
	"$GOTRACE" check "$PREFIX-join-$1-machine.trace"
}

# RUNS COLD MIB [--threads]: the fastest of RUNS merges of the MIB MiB pair, each
# with both traces evicted first if COLD is 1: "SECONDS KIB"
merge_best() {
	runs=$1
	cold=$2
	app=$PREFIX-join-$3-app.trace
	machine=$PREFIX-join-$3-machine.trace
	shift 3
	for _ in $(seq "$runs"); do
		[ "$cold" = 0 ] || "$EVICT" "$app" "$machine"
		"$RUSAGE" "$GOTRACE" merge "$@" --force "$app" "$machine" -o "$PREFIX-join.trace"
	done | sort -n | head -1
}

# RUNS MIB [--threads]: merge of the MIB MiB pair, best of RUNS cold, then warm (the last
# cold run cached it).
merge_bench() {
	runs=$1
	mib=$2
	shift 2
	size=$(($(stat -c %s "$PREFIX-join-$mib-app.trace") +
		$(stat -c %s "$PREFIX-join-$mib-machine.trace")))
	line "merge${*:+ $*} $mib+$mib, cold" "$(merge_best "$runs" 1 "$mib" "$@")" "$size"
	line "merge${*:+ $*} $mib+$mib, warm" "$(merge_best "$runs" 0 "$mib" "$@")" "$size"
}

join_bench() {
	join_prepare 64
	join_prepare 128
	"$GOTRACE" merge --force "$PREFIX-join-64-app.trace" "$PREFIX-join-64-machine.trace" \
		-o "$PREFIX-join.trace" | grep -v '^Wrote'
	echo "APP+MACHINE MiB each; MB/s: APP's and MACHINE's bytes read per second"
	merge_bench 2 64
	merge_bench 2 64 --threads
	merge_bench 2 128
	merge_bench 1 128 --threads
	rm -f "$PREFIX-join.trace"
}

if [ "${BENCH:-}" = merge ]; then
	join_bench
	exit
fi

help=$(for _ in 1 2 3; do "$RUSAGE" "$GOTRACE" --help; done | sort -n | head -1)
echo "gotrace with no trace (its libraries): $(echo "$help" |
	awk '{ printf "peak RSS %.1f MiB", $2 / 1024 }')"
echo "every run below reads its trace from disk: evicted from the page cache before it"
echo
prepare 19 "$PREFIX.trace"
bench "$PREFIX.trace" "go tool trace -d (1.19)" 19 "$GO" tool trace -d
echo
prepare 26 "$PREFIX-1.26.trace"
bench "$PREFIX-1.26.trace" "go tool trace -d=parsed (1.27)" 26 "$TOOL127" -d=parsed
echo
# TRACE LABEL: gotrace split of TRACE into pieces of about a quarter of it.
split_bench() {
	size=$(stat -c %s "$1")
	split=$(best 3 "$1" "$GOTRACE" split --force --max-size $((MB / 4 + 1))M \
		-o "$PREFIX-split")
	line "gotrace split $2 --max-size $((MB / 4 + 1))M" "$split" "$size"
	rm -f "$PREFIX-split".*.trace
}
split_bench "$PREFIX.trace" "(1.19)"
split_bench "$PREFIX-1.26.trace" "(1.26)"
if [ -n "$GEN_JOIN" ]; then
	echo
	join_bench
fi
