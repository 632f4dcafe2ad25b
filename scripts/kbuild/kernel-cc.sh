#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Name the compiler a kernel was built with, which its modules must be built with too.
#
# Usage: scripts/kbuild/kernel-cc.sh KDIR
#
# Reads CONFIG_CC_VERSION_TEXT in KDIR/include/config/auto.conf and prints the compiler's
# command: gcc-N (Debian's kernels, with or without the x86_64-linux-gnu- prefix), or gcc
# for a kernel built with plain gcc (a local build, such as the debug kernel) when the
# host's gcc has the kernel's major version (CONFIG_GCC_VERSION, e.g. 120200). Exits 1,
# saying why, when it cannot tell or the host's gcc is another version. It does not check
# that gcc-N is installed: callers decide what to do without it.
set -eu

die() {
	echo "kernel-cc.sh: $*" >&2
	exit 1
}

[ $# -eq 1 ] || die "usage: $0 KDIR"
conf=$1/include/config/auto.conf
[ -f "$conf" ] || die "$conf is missing: $1 is not a configured kernel build tree"
cc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\{0,1\}\([^ ]*\) .*/\1/p' "$conf")
cc=${cc##*-linux-gnu-}
case "$cc" in
gcc-[0-9]*) ;;
gcc)
	want=$(sed -n 's/^CONFIG_GCC_VERSION=\([0-9]*\)[0-9]\{4\}$/\1/p' "$conf")
	have=$(gcc -dumpversion 2>/dev/null | cut -d. -f1)
	if [ -z "$want" ] || [ "$want" != "$have" ]; then
		die "the kernel in $1 was built with gcc ${want:-of an unknown version}, the host's gcc is ${have:-missing}: install gcc-${want:-N}"
	fi
	;;
*) die "cannot tell the compiler of the kernel in $1 from $conf ('$cc')" ;;
esac
echo "$cc"
