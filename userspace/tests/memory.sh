#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The go 1.22+ reader's memory does not depend on how the page cache holds the trace (TAP
# output). On a 64 MiB go 1.26 trace read back from disk (evicted from the page cache first:
# readahead then fills it with large folios, which a mapped reader would map whole), and
# again with it cached, the peak RSS of 'gotrace check -q' and of 'gotrace dump' stays within
# 2 MiB of its floor, its peak on a header-only trace (a mapped reader peaked at 8.5 MiB).
# The margin is the whole check: each peak counts the pages of the shared libraries that the
# page cache lets fault-around map: in one make check the floor of check moved by 76 KiB
# between runs, and its peak was 1,056 KiB above it (852 with the trace cached; dump 856).
#
# Usage: tests/memory.sh GOTRACE RUSAGE EVICT TRACE
#   RUSAGE and EVICT are tests/rusage.c and tests/evict.c built; TRACE a go 1.26 trace on a
#   disk file system (tmpfs keeps its pages), the header-only one is written beside it.
set -u

GOTRACE=$1
RUSAGE=$2
EVICT=$3
TRACE=$4
HEADER=$TRACE.header
# shellcheck source=scripts/lib/tap-lib.sh
. "$(dirname "$0")/../../scripts/lib/tap-lib.sh"

# peak FILE ARGS...: the peak RSS (KiB) of gotrace ARGS FILE.
peak() {
	file=$1
	shift
	"$RUSAGE" "$GOTRACE" "$@" "$file" | awk '{ print $2 }'
}

# floor ARGS...: the least peak RSS (KiB) of 3 runs of gotrace ARGS on the header-only trace.
floor() {
	for _ in 1 2 3; do peak "$HEADER" "$@"; done | sort -n | head -1
}

# within STATE MAX_ABOVE ARGS...: gotrace ARGS TRACE peaks at most MAX_ABOVE KiB above its floor.
within() {
	state=$1
	above=$2
	shift 2
	f=$(floor "$@")
	p=$(peak "$TRACE" "$@")
	[ -n "$p" ] && [ "$p" -le $((f + above)) ]
	result $? "gotrace $* on a 64 MiB go 1.26 trace $state: peak RSS $p KiB, floor $f KiB \
(at most +$above KiB)"
}

printf 'go 1.26 trace\0\0\0' >"$HEADER"
"$EVICT" "$TRACE"
within "read from disk" 2048 check -q
within "in the page cache" 2048 check -q
"$EVICT" "$TRACE"
within "read from disk" 2048 dump
tap_end
