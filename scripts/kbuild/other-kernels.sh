#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make check's other kernels: fetch every kernel gotrace supports, build gotrace.ko for those not given.
#
# Usage: scripts/kbuild/other-kernels.sh OUTDIR KVER...
#
# scripts/setup/kernels.sh --all fetches the kernels of Debian's suites (Linux 5.10 to 7.3: headers
# and images unpacked under build/kernels/); for each one not among the KVERs (make check's
# own kernels, which get the whole suite), vm-module.sh (beside it) builds OUTDIR/<kver>/gotrace.ko
# with the kernel's own compiler, making its suite's build root the first time. Prints one
# line per such kernel, "<kver> built" or "<kver> failed" (its log: OUTDIR/<kver>/build.log
# and OUTDIR/<kver>/module.err). make check runs it in the background at idle priority while
# its host tests run: the downloads and the roots are mostly waiting on the network.
#
# Exit status: 1 if the kernels could not be fetched, else 0 (a failed build is a line).
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)

[ $# -ge 1 ] || { echo "usage: $0 OUTDIR KVER..." >&2; exit 2; }
out=$1
shift
all=$("$ROOT/scripts/setup/kernels.sh" --all) || {
	echo "other-kernels.sh: scripts/setup/kernels.sh --all failed; see its messages above" >&2
	exit 1
}
for kver in $all; do
	case " $* " in
	*" $kver "*) continue ;;
	esac
	mkdir -p "$out/$kver"
	if "$ROOT/scripts/kbuild/vm-module.sh" "$kver" "$out/$kver" > /dev/null 2> "$out/$kver/module.err"; then
		echo "$kver built"
	else
		echo "$kver failed"
	fi
done
