#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# No raw kernel address in any trace: scan every *.trace under the given paths; print TAP.
#
# Usage: scripts/oracles/addr-scan.sh DIR_OR_FILE...
#
# One TAP test per trace: scripts/oracles/addr_scan.py finds no value that looks like a kernel
# address (>= 0xffff800000000000) in any event argument or stack (id, frame PC, line) of
# the trace, as `gotrace dump --all-stacks` reads it; a trace it cannot read fails. KASLR is
# only worth something if no trace tells where the kernel is. Exit 0 only if every trace
# passed; 1 on any failure or when there is no trace at all; 2 on bad usage.
#
# Environment: GOTRACE, the gotrace command (default userspace/gotrace: make -C userspace).
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib/tap-lib.sh
. "$HERE/../lib/tap-lib.sh"

if [ $# -eq 0 ]; then
	echo "usage: $0 DIR_OR_FILE... (scans every *.trace for raw kernel addresses; prints TAP)" >&2
	exit 2
fi
command -v python3 >/dev/null || {
	echo "Bail out! python3 not found: run scripts/setup/deps.sh"
	exit 1
}
need_gotrace "the scan reads traces with it"
list=$(mktemp)
trap 'rm -f "$list"' EXIT
for p in "$@"; do
	if [ -d "$p" ]; then
		find "$p" -type f -name '*.trace' | LC_ALL=C sort >> "$list"
	elif [ -f "$p" ]; then
		echo "$p" >> "$list"
	else
		echo "Bail out! $p: no such file or directory"
		exit 1
	fi
done
n=$(wc -l < "$list")
echo "TAP version 13"
if [ "$n" -eq 0 ]; then
	echo "1..0 # no trace found in $*"
	echo "Bail out! no *.trace to scan: the tests that record them did not run"
	exit 1
fi
echo "1..$n"
i=0 bad=0
while IFS= read -r f; do
	i=$((i + 1))
	if out=$(python3 "$HERE/addr_scan.py" "$f" 2>&1); then
		echo "ok $i - no kernel address: $f"
	else
		echo "not ok $i - kernel address or bad trace: $f"
		printf '%s\n' "$out" | head -n 20 | sed 's/^/# /'
		bad=$((bad + 1))
	fi
done < "$list"
echo "# $((n - bad)) of $n traces free of kernel addresses"
[ "$bad" -eq 0 ]
