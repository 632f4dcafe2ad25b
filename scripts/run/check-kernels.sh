#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make check-kernels: everything on every kernel gotrace supports, Linux 5.10 to 7.3.
#
# Usage: scripts/run/check-kernels.sh
#
# Steps: scripts/setup/kernels.sh --all (Debian 12's 6.1 and bookworm-backports' 6.12,
# bullseye-security's 5.10, trixie's 6.12, sid's 7.2 and trixie-backports' 7.3: headers and
# images unpacked under build/kernels/, never installed on the host); then check-stock.sh
# with all six (each gotrace.ko built with its kernel's own compiler, in a root of its suite
# when the host lacks it, with W=1 and no compiler warning: scripts/kbuild/vm-module.sh; the whole
# selftest suite, the CLI guest and the ftrace oracle in a guest of each; Go's readers on
# every trace; the last kernel, 7.3, streams the 1 GiB long run); then check-debug.sh
# on the debug kernel (KASAN), the KCSAN kernel (scripts/setup/debug-kernel.sh --kcsan: the data
# race detector, which excludes KASAN; built once, about 20 minutes, then cached) and Debian
# 12's PREEMPT_RT kernel, each failing on any kernel report. Results: build/check and
# build/check-debug, as make check's. Several hours on a 2-core machine.
#
# Exit status: 0 when both halves passed, 1 otherwise.
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)

kvers=$("$ROOT/scripts/setup/kernels.sh" --all) || {
	echo "check-kernels.sh: scripts/setup/kernels.sh --all failed; see its messages above" >&2
	exit 1
}
# shellcheck disable=SC2086 # one word per kernel
echo "check-kernels.sh: kernels:" $kvers
rc=0
GOTRACE_KERNELS=$kvers GOTRACE_OTHER_KERNELS=no "$ROOT/scripts/run/check-stock.sh" || rc=1
if ! debug=$("$ROOT/scripts/setup/debug-kernel.sh") ||
	! kcsan=$("$ROOT/scripts/setup/debug-kernel.sh" --kcsan) ||
	! rt=$("$ROOT/scripts/setup/kernels.sh" --rt); then
	echo "check-kernels.sh: a debug kernel or the -rt kernel is missing; see the messages above" >&2
	exit 1
fi
GOTRACE_DEBUG_KERNELS="$debug $kcsan $rt" "$ROOT/scripts/run/check-debug.sh" || rc=1
exit $rc
