#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Why a TAP stream failed: the lines of each failed test case, so that a log that shows only
# the summary (CI's) still names the cause.
#
# Usage: scripts/lib/tap-why.sh FILE [MAX_LINES]
#
# For each failed kselftest test case nested in FILE ("# #  RUN name ..." to "# not ok N
# name"), prints its lines: the harness's failed assertions and the test's TH_LOG lines.
# A failed top-level result with no failed case inside (a program that crashed, timed out
# or failed outside its cases) gets the last 15 lines before it. A stream with no failed
# result at all (its command's exit status was the failure) gets its last 15 lines. At most
# MAX_LINES lines (default 60) in all.
set -eu

[ $# -ge 1 ] || { echo "usage: scripts/lib/tap-why.sh FILE [MAX_LINES]" >&2; exit 2; }
[ -r "$1" ] || { echo "tap-why.sh: cannot read $1" >&2; exit 2; }

awk -v max="${2:-60}" '
function out(s) {
	if (printed < max)
		print "    | " s
	else if (printed == max)
		print "    | (more in " FILENAME ")"
	printed++
}
/^#[ #]*RUN / { ncase = 0; incase = 1 }
{ tail[nt++ % 15] = $0 }
incase { kase[ncase++] = $0 }
/^#[ #]*not ok [0-9]/ {
	for (i = 0; i < ncase; i++)
		out(kase[i])
	ncase = 0; incase = 0; nested_bad = 1
}
/^#[ #]*ok [0-9]/ { ncase = 0; incase = 0 }
/^not ok / {
	if (nested_bad) {
		out($0)
	} else {
		first = nt > 15 ? nt - 15 : 0
		for (i = first; i < nt; i++)
			out(tail[i % 15])
	}
	nested_bad = 0
}
/^ok / { nested_bad = 0 }
END {
	if (printed)
		exit
	first = nt > 15 ? nt - 15 : 0
	for (i = first; i < nt; i++)
		out(tail[i % 15])
}
' "$1"
