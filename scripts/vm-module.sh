#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build gotrace.ko for one of the kernels scripts/kernels.sh fetched, out of tree.
#
# Usage: scripts/vm-module.sh KVER OUTDIR
#
# Copies the sources (Kbuild, module/, uapi/) into OUTDIR/src (fresh each time, so the checkout
# stays clean and no stale object survives), builds there against KVER's headers and
# leaves OUTDIR/gotrace.ko. The build log is OUTDIR/build.log.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)

die() {
	echo "vm-module.sh: $*" >&2
	exit 1
}

[ $# -eq 2 ] || die "usage: $0 KVER OUTDIR"
kver=$1
out=$2
kdir=$("$ROOT/scripts/kernels.sh" --kdir "$kver") ||
	die "no kernel build tree for $kver; run scripts/kernels.sh"
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
echo "vm-module.sh: building gotrace.ko for $kver ($kdir)" >&2
if ! make -C "$kdir" M="$out/src" -j"$(nproc)" modules > "$out/build.log" 2>&1; then
	tail -n 40 "$out/build.log" >&2
	die "building gotrace.ko for $kver failed (full log: $out/build.log)"
fi
# Show compiler warnings: the build must stay clean on every kernel.
grep -E 'warning:|error:' "$out/build.log" >&2 || true
[ -f "$out/src/gotrace.ko" ] || die "the build for $kver produced no gotrace.ko (log: $out/build.log)"
cp "$out/src/gotrace.ko" "$out/gotrace.ko"
echo "$out/gotrace.ko"
