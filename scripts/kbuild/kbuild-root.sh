#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A minimal Debian root holding the compiler a kernel was built with, for building gotrace.ko
# against kernels whose compiler the host (Debian 12) lacks (5.10: gcc-10, trixie: gcc-14,
# sid: gcc-16).
#
# Usage:
#   scripts/kbuild/kbuild-root.sh SUITE CC
#                                         create (once) build/roots/SUITE-CC holding CC, make and
#                                         what the kbuild tools need; print its path
#   scripts/kbuild/kbuild-root.sh --run ROOT CMD...
#                                         run CMD inside ROOT with the checkout's top directory
#                                         (/work) and /tmp bound at the same paths: the
#                                         checkout, build/ and output directories keep theirs
#
# The root is made with mmdebstrap (a bookworm package: installed on the host if missing) from
# deb.debian.org; nothing of SUITE is installed on the host. Cached: a root whose stamp names the
# same package list is reused, so only the first build of a suite pays for it.
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
ROOTS="$ROOT/build/roots"
MIRROR=${GOTRACE_MIRROR:-http://deb.debian.org/debian}

die() {
	echo "kbuild-root.sh: $*" >&2
	exit 1
}

[ "$(id -u)" -eq 0 ] || die "needs root (mmdebstrap, chroot, mount --bind)"

# The directory outside the checkout that holds it (and build/'s symlink targets): bound into
# the root at the same path.
bind_dir() {
	echo "/$(echo "$ROOT" | cut -d/ -f2)"
}

run() {
	r=$1
	shift
	[ -x "$r/usr/bin/make" ] || die "$r is not a build root; run: $0 SUITE CC"
	b=$(bind_dir)
	# A private mount namespace: the bind mounts vanish with the command, even on failure.
	unshare -m sh -c '
		set -e
		r=$1 b=$2
		shift 2
		mkdir -p "$r$b" "$r/proc" "$r/dev" "$r/tmp"
		mount --bind "$b" "$r$b"
		mount --bind /tmp "$r/tmp"
		mount -t proc proc "$r/proc"
		mount --bind /dev "$r/dev"
		exec chroot "$r" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"
	' sh "$r" "$b" "$@"
}

case "${1:-}" in
--run)
	[ $# -ge 3 ] || die "usage: $0 --run ROOT CMD..."
	shift
	r=$1
	shift
	run "$r" "$@"
	exit 0
	;;
-*|"")
	die "usage: $0 SUITE CC | --run ROOT CMD..."
	;;
esac

[ $# -eq 2 ] || die "usage: $0 SUITE CC"
suite=$1
cc=$2
case "$cc" in
gcc-[0-9]*) ;;
*) die "compiler '$cc' is not gcc-N" ;;
esac
# The kbuild tools of linux-kbuild-* (objtool, modpost, ...) link libelf: its package name
# changed with the t64 transition (trixie).
# pahole makes a module's BTF (CONFIG_DEBUG_INFO_BTF_MODULES): package dwarves before trixie.
case "$suite" in
bullseye*|bookworm*) libelf=libelf1 pahole=dwarves ;;
*) libelf=libelf1t64 pahole=pahole ;;
esac
# perl and python3: W=1 runs scripts/kernel-doc (a perl script, then a python one).
pkgs="$cc,make,libc6-dev,$libelf,libssl-dev,kmod,xz-utils,zstd,perl,python3,$pahole"
r="$ROOTS/$suite-$cc"
if [ "$(cat "$r.stamp" 2>/dev/null)" = "$suite $pkgs" ] && [ -x "$r/usr/bin/$cc" ]; then
	echo "$r"
	exit 0
fi
# A root made for a shorter list: add what it lacks rather than start over.
if [ -x "$r/usr/bin/$cc" ] && [ -f "$r.stamp" ]; then
	echo "kbuild-root.sh: adding to $r: $pkgs" >&2
	# shellcheck disable=SC2046
	if run "$r" apt-get -o Acquire::Check-Valid-Until=false update -q >&2 &&
	   run "$r" apt-get install -y -q --no-install-recommends $(echo "$pkgs" | tr , ' ') >&2; then
		echo "$suite $pkgs" > "$r.stamp"
		echo "$r"
		exit 0
	fi
	echo "kbuild-root.sh: cannot update $r; making it again" >&2
fi
command -v mmdebstrap >/dev/null || {
	echo "kbuild-root.sh: installing mmdebstrap" >&2
	apt-get install -y -q --no-install-recommends mmdebstrap >&2 || die "cannot install mmdebstrap"
}
mkdir -p "$ROOTS"
rm -rf "$r" "$r.stamp"
echo "kbuild-root.sh: creating $r ($suite: $pkgs)" >&2
# The mirror may serve a suite's last snapshot after its Valid-Until (sid's lapses in days).
mmdebstrap --variant=apt --aptopt='Acquire::Check-Valid-Until "false"' --include="$pkgs" "$suite" "$r" "deb $MIRROR $suite main" >&2 ||
	die "mmdebstrap $suite failed"
[ -x "$r/usr/bin/$cc" ] || die "$r has no /usr/bin/$cc after mmdebstrap"
echo "$suite $pkgs" > "$r.stamp"
echo "$r"
