#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# gotrace check and dump against Go's own parser (TAP output):
# - every *_good sample trace Go ships (1.7-1.11 and 1.19 from Go 1.19,
#   1.21 from Go 1.21) passes 'gotrace check';
# - 'gotrace dump' prints the same events in the same order as
#   'go tool trace -d' of that Go version, line for line;
# - the constructed cases of test_rules get the same verdict from Go.
# - extra traces (generated ones) are compared with Go 1.19 too.
# Usage: conformance.sh GOTRACE CASES_DIR [TRACE...]
set -u

GOTRACE=$1
CASES=$2
shift 2
GO119=${GO119:-/usr/lib/go-1.19}
GO121=${GO121:-/usr/lib/go-1.21}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
n=0
failed=0
events=0

ok() {
	n=$((n + 1))
	echo "ok $n - $*"
}

not_ok() {
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n - $*"
}

go_for() {
	case $1 in
	*_1_21_good|*_1_21.trace) echo "$GO121/bin/go" ;;
	*) echo "$GO119/bin/go" ;;
	esac
}

# Go's own tie order varies between runs when two Ps become ready in the
# same step at the same time (either of two orders): try up to 20 of its runs,
# not 6: in one make check, 6 runs of Go 1.19 all took the other order.
same_as_go() {
	"$GOTRACE" dump "$2" | sed 's/ stk=[0-9]*$//' > "$TMP/me" || return 1
	for try in $(seq 20); do
		# -http: this Go listens before it parses; "localhost" needs /etc/hosts.
		"$1" tool trace -http=127.0.0.1:0 -d "$2" > "$TMP/go" 2>/dev/null || return 1
		cmp -s "$TMP/go" "$TMP/me" && return 0
	done
	diff "$TMP/go" "$TMP/me" | head -5 | sed 's/^/# /'
	return 1
}

sample() {
	go=$(go_for "$1")
	name=$(basename "$1")
	if "$GOTRACE" check -q "$1"; then
		ok "check accepts $name"
	else
		not_ok "check accepts $name"
	fi
	if "$GOTRACE" stats --json "$1" | python3 -c 'import json, sys; json.load(sys.stdin)' &&
	   "$GOTRACE" stats "$1" > /dev/null; then
		ok "stats and stats --json (valid JSON) for $name"
	else
		not_ok "stats and stats --json (valid JSON) for $name"
	fi
	if same_as_go "$go" "$1"; then
		lines=$(wc -l < "$TMP/go")
		events=$((events + lines))
		ok "dump = $("$go" version | cut -d' ' -f3) tool trace -d for $name ($lines events)"
	else
		not_ok "dump = go tool trace -d for $name"
	fi
}

constructed() {
	name=$(basename "$1")
	# -http: as in same_as_go(); without it, a machine without /etc/hosts fails every trace.
	"$GO119/bin/go" tool trace -http=127.0.0.1:0 -d "$1" > /dev/null 2>&1
	go_rc=$?
	"$GOTRACE" check -q "$1" 2>/dev/null
	me_rc=$?
	if [ "$go_rc" = "$me_rc" ]; then
		ok "same verdict as Go for $name (exit $me_rc)"
	else
		not_ok "same verdict as Go for $name (Go $go_rc, gotrace $me_rc)"
	fi
	case $name in
	*.ok)
		if same_as_go "$GO119/bin/go" "$1"; then
			ok "dump = go tool trace -d for $name"
		else
			not_ok "dump = go tool trace -d for $name"
		fi ;;
	esac
}

if [ ! -x "$GO119/bin/go" ] || [ ! -x "$GO121/bin/go" ]; then
	echo "1..0 # SKIP Go 1.19 and 1.21 are needed (golang-go, golang-1.21-go: scripts/setup/deps.sh)"
	exit 0
fi
traces=0
for f in "$GO119"/src/internal/trace/testdata/*_1_*_good \
	 "$GO121"/src/internal/trace/testdata/*_1_21_good; do
	case $f in *_1_5_good) continue ;; esac	# go 1.5 traces need the binary
	sample "$f"
	traces=$((traces + 1))
done
for f in "$@"; do
	sample "$f"
	traces=$((traces + 1))
done
for f in "$CASES"/*; do
	constructed "$f"
done
echo "# $traces traces, $events events compared with go tool trace -d"
echo "1..$n"
[ "$failed" = 0 ]
