#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Throughput and peak memory of 'gotrace check' beside 'go tool trace -d'
# (Go 1.19's parser) on one large synthetic trace. Prints numbers; it is
# not a pass/fail test.
# Usage: bench.sh GOTRACE GEN_TRACE RUSAGE TRACE MEGABYTES
set -eu

GOTRACE=$1
GEN=$2
RUSAGE=$3
TRACE=$4
MB=$5
GO=${GO119:-/usr/lib/go-1.19}/bin/go

if [ ! -s "$TRACE" ]; then
	echo "generating a ${MB} MiB trace: $TRACE"
	"$GEN" "$TRACE" "$MB"
fi
size=$(stat -c %s "$TRACE")
"$GOTRACE" check "$TRACE"

best() {	# the fastest of $1 runs: "SECONDS KIB"
	runs=$1
	shift
	for i in $(seq "$runs"); do "$RUSAGE" "$@"; done | sort -n | head -1
}

set -- $(best 3 "$GOTRACE" check -q "$TRACE")
c_s=$1 c_kb=$2
set -- $(best 3 "$GOTRACE" dump "$TRACE")
d_s=$1 d_kb=$2
echo "trace: $TRACE, $size bytes"
awk -v s="$c_s" -v kb="$c_kb" -v n="$size" \
	'BEGIN { printf "gotrace check:      %7.2f s %8.1f MB/s  peak RSS %7.1f MiB\n", s, n / s / 1048576, kb / 1024 }'
awk -v s="$d_s" -v kb="$d_kb" -v n="$size" \
	'BEGIN { printf "gotrace dump:       %7.2f s %8.1f MB/s  peak RSS %7.1f MiB\n", s, n / s / 1048576, kb / 1024 }'
if [ ! -x "$GO" ]; then
	echo "go tool trace: Go 1.19 missing, no ratio"
	exit 0
fi
set -- $(best 1 "$GO" tool trace -d "$TRACE")
g_s=$1 g_kb=$2
awk -v s="$g_s" -v kb="$g_kb" -v n="$size" \
	'BEGIN { printf "go tool trace -d:   %7.2f s %8.1f MB/s  peak RSS %7.1f MiB\n", s, n / s / 1048576, kb / 1024 }'
awk -v cs="$c_s" -v ckb="$c_kb" -v gs="$g_s" -v gkb="$g_kb" \
	'BEGIN { printf "check vs go tool trace -d: %.1fx the throughput, %.4fx the peak memory\n", gs / cs, ckb / gkb }'
