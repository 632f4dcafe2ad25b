#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build gotrace.ko for one of the kernels scripts/setup/kernels.sh fetched, out of tree.
#
# Usage: scripts/kbuild/vm-module.sh KVER OUTDIR [MAKEARG...]
#
# Copies the sources (Kbuild, module/, uapi/) into OUTDIR/src (fresh each time, so the checkout
# stays clean and no stale object survives), builds there against KVER's headers and
# leaves OUTDIR/gotrace.ko. The build log is OUTDIR/build.log. It builds with W=1 and fails on
# any compiler warning. MAKEARGs (C=2, ...) are passed to the kernel's make.
#
# Each kernel is built with the compiler it was built with (CONFIG_CC_VERSION_TEXT in its
# include/config/auto.conf, gcc-N): on the host when the host has it, else inside a minimal
# root of the kernel's Debian suite holding it (scripts/kbuild/kbuild-root.sh; the suite is the one
# scripts/setup/kernels.sh --all recorded in build/kernels/KVER/suite).
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)

die() {
	echo "vm-module.sh: $*" >&2
	exit 1
}

[ $# -ge 2 ] || die "usage: $0 KVER OUTDIR [MAKEARG...]"
kver=$1
out=$2
shift 2
kdir=$("$ROOT/scripts/setup/kernels.sh" --kdir "$kver") ||
	die "no kernel build tree for $kver; run scripts/setup/kernels.sh"
for f in Kbuild module uapi; do
	[ -e "$ROOT/$f" ] || die "$ROOT/$f is missing; the module sources are incomplete"
done

mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -rf "$out/src" "$out/gotrace.ko"
mkdir -p "$out/src"
# Sources only: objects of an in-tree build for another kernel must not come along.
(cd "$ROOT" && find Kbuild module uapi -type f \( -name '*.[ch]' -o -name Kbuild \) \
	-exec cp --parents {} "$out/src/" \;)
# The kernel's compiler (gcc-N, or the host's gcc of the kernel's version).
cc=$("$ROOT/scripts/kbuild/kernel-cc.sh" "$kdir") || die "cannot build for $kver (above)"
run=""
if ! command -v "$cc" >/dev/null; then
	suite=$(cat "$ROOT/build/kernels/$kver/suite" 2>/dev/null) ||
		die "$kver was built with $cc, which the host lacks, and no suite is recorded for it; run scripts/setup/kernels.sh --all"
	case "$suite" in
	*-security|*-backports|*-updates) suite=${suite%-*} ;;
	esac
	r=$("$ROOT/scripts/kbuild/kbuild-root.sh" "$suite" "$cc") || die "no $suite root with $cc"
	run="$ROOT/scripts/kbuild/kbuild-root.sh --run $r"
fi
echo "vm-module.sh: building gotrace.ko for $kver ($kdir) with $cc${run:+ in $r}" >&2
start=$(date +%s)
# shellcheck disable=SC2086
if ! $run make -C "$kdir" M="$out/src" -j"$(nproc)" W=1 "$@" modules > "$out/build.log" 2>&1; then
	tail -n 40 "$out/build.log" >&2
	die "building gotrace.ko for $kver failed (full log: $out/build.log)"
fi
# The build must stay clean on every kernel, with W=1's extra warnings too.
if grep -E 'warning:' "$out/build.log" >&2; then
	die "building gotrace.ko for $kver: compiler warnings (above; full log: $out/build.log)"
fi
[ -f "$out/src/gotrace.ko" ] || die "the build for $kver produced no gotrace.ko (log: $out/build.log)"
cp "$out/src/gotrace.ko" "$out/gotrace.ko"
echo "vm-module.sh: built for $kver with $cc in $(($(date +%s) - start)) s" >&2
echo "$out/gotrace.ko"
