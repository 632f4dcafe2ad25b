#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Say which kernel make module builds gotrace.ko for; refuse when there is no build tree.
#
# Usage: scripts/kbuild/module-target.sh KDIR KVER
#
# KDIR is the build tree make module uses (empty: the running kernel has none), KVER the
# running kernel's release. Prints the kernel the module is for; warns on stderr when that
# is not the running kernel (the module will not load here). Exits 1, naming the header
# trees that are installed, when KDIR is empty or not a build tree, and naming the compiler
# when the one the kernel was built with (scripts/kbuild/kernel-cc.sh) is not installed.
set -eu

kdir=$1
kver=$2

if [ -z "$kdir" ] || [ ! -f "$kdir/Makefile" ]; then
	echo "make module: no build tree for the running kernel, Linux $kver" \
		"(/lib/modules/$kver/build)." >&2
	echo "  To build for it: install its headers (Debian/Ubuntu: apt install linux-headers-$kver)." >&2
	trees=$(ls -d /usr/src/linux-headers-* /lib/modules/*/build 2>/dev/null || true)
	if [ -n "$trees" ]; then
		echo "  To build for another kernel, name its build tree; installed here:" >&2
		for t in $trees; do
			[ -f "$t/include/generated/utsrelease.h" ] &&
				echo "    make module KDIR=$t" >&2
		done
	fi
	exit 1
fi
# A module must be built with its kernel's compiler: say which one is missing, rather than
# let the kernel's Makefile fail on it (or on flags an older compiler rejects).
cc=$("$(dirname "$0")/kernel-cc.sh" "$kdir") || exit 1
if ! command -v "$cc" >/dev/null; then
	echo "make module: the kernel in $kdir was built with $cc, which this machine lacks." >&2
	echo "  Install it (Debian/Ubuntu: apt install $cc), or build where the kernel's own Debian" \
		"suite provides it (scripts/kbuild/vm-module.sh KVER OUTDIR builds in a root of that suite)." >&2
	exit 1
fi
release=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' \
	"$kdir/include/generated/utsrelease.h" 2>/dev/null || true)
echo "make module: building gotrace.ko for Linux ${release:-(unknown release)} ($kdir)"
if [ "$release" != "$kver" ]; then
	echo "make module: WARNING: this is not the running kernel (Linux $kver): the module" \
		"will not load here; install it on a machine that runs Linux ${release:-that kernel}." >&2
fi
