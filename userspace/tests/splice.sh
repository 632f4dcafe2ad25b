#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The traces test_splice wrote (DIR/NAME.trace) read by Go 1.27's 'go tool trace
# -d=parsed' (TAP output): each one accepted, and the regions and logs it lists, with
# their task, type, category and message, those of DIR/NAME.expect (in any order).
#
# Usage: tests/splice.sh DIR
# Environment: GO127_TRACE, Go 1.27's trace tool (default: scripts/setup/go-fetch.sh's,
# fetched the first time).
set -eu

DIR=$1
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/lib/tap-lib.sh
. "$ROOT/scripts/lib/tap-lib.sh"

TOOL=${GO127_TRACE:-}
if [ -z "$TOOL" ]; then
	out=$("$ROOT/scripts/setup/go-fetch.sh" --print 1.27)
	TOOL=${out#*
}/trace
fi
export GOCACHE="$ROOT/build/go/cache" GOTOOLCHAIN=local GOENV=off

for expect in "$DIR"/*.expect; do
	name=${expect%.expect}
	base=$(basename "$name")
	rc=0
	"$TOOL" -d=parsed "$name.trace" >"$name.parsed" 2>&1 || rc=$?
	result "$rc" "$base: go tool trace -d=parsed accepts it" "$name.parsed"
	sed -n 's/^M=[0-9]* P=-*[0-9]* G=[0-9]* \(RegionBegin\|RegionEnd\|Log\) Time=[0-9]* /\1 /p' \
		"$name.parsed" | LC_ALL=C sort >"$name.got"
	LC_ALL=C sort "$expect" >"$name.want"
	rc=0
	diff "$name.want" "$name.got" >"$name.diff" || rc=$?
	result "$rc" "$base: it lists the $(wc -l <"$expect") regions and logs, on goroutines" \
		"$name.diff"
done
tap_end
