#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DKMS builds gotrace.ko from dkms.conf against installed kernel headers, leaving no trace
# on the host: TAP on stdout.
#
# Usage: scripts/suites/dkms-check.sh [KVER]
#   (default: the newest installed Debian 6.1 amd64 headers)
#
# The sources come from `make dkms-src` into a temporary tree. dkms runs in a private mount
# namespace (unshare -m) with a temporary directory over /var/lib/dkms, so its registry
# and the MOK key it makes to sign modules stay there and vanish with it; /usr/src and
# /lib/modules are not written (--sourcetree). Nothing is installed or loaded: `dkms add`
# and `dkms build` only. Needs root (the mount namespace) and dkms (scripts/setup/deps.sh).
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/lib/tap-lib.sh
. "$ROOT/scripts/lib/tap-lib.sh"

bail() {
	echo "Bail out! dkms-check.sh: $*"
	exit 1
}

kver=${1:-$(ls -d /usr/src/linux-headers-6.1.*-amd64 2>/dev/null | grep -v -e -rt- -e -cloud- |
	sort -V | tail -n 1 |
	sed 's|.*/linux-headers-||')}
echo "TAP version 13"
[ -n "$kver" ] || bail "no linux-headers-6.1.*-amd64 in /usr/src: run scripts/setup/deps.sh"
[ -d "/lib/modules/$kver/build" ] || bail "/lib/modules/$kver/build is missing: install linux-headers-$kver"
command -v dkms > /dev/null || bail "dkms is not installed: run scripts/setup/deps.sh (package dkms)"
[ "$(id -u)" -eq 0 ] || bail "needs root for its private mount namespace (unshare -m)"

tmp=$(mktemp -d /tmp/gotrace-dkms.XXXXXX) || bail "mktemp failed"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/dkms" "$tmp/root"
make -s -C "$ROOT" dkms-src DESTDIR="$tmp/root" > "$tmp/src.log" 2>&1
result $? "make dkms-src: the sources DKMS builds from"
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$ROOT/dkms.conf")
src="$tmp/root/usr/src"
echo "# gotrace $ver for Linux $kver, sources in $src/gotrace-$ver"

# In the namespace: /var/lib/dkms is $tmp/dkms; add, build, status, and the module's modinfo.
unshare -m sh -eu -c '
	mount --bind "$1/dkms" /var/lib/dkms
	dkms add -m gotrace -v "$2" --sourcetree "$3"
	dkms build -m gotrace -v "$2" -k "$4" --sourcetree "$3"
	dkms status -m gotrace -v "$2" -k "$4" > "$1/status"
' sh "$tmp" "$ver" "$src" "$kver" > "$tmp/dkms.log" 2>&1
rc=$?
sed 's/^/# /' "$tmp/dkms.log"
result "$rc" "dkms add and dkms build for $kver"

ko=$(find "$tmp/dkms/gotrace/$ver/$kver" -name 'gotrace.ko*' 2>/dev/null | head -n 1)
sed 's/^/# dkms status: /' "$tmp/status" 2>/dev/null
grep -q "gotrace/$ver, $kver, .*: built" "$tmp/status" 2>/dev/null
result $? "dkms status says built"
[ -n "$ko" ] && modinfo -F vermagic "$ko" > "$tmp/vermagic" 2>&1
sed 's/^/# vermagic: /' "$tmp/vermagic" 2>/dev/null
grep -q "^$kver " "$tmp/vermagic" 2>/dev/null
result $? "the built module is for $kver"
signer=$([ -n "$ko" ] && modinfo -F signer "$ko" 2>/dev/null)
echo "# signer: ${signer:-none}"
[ -n "$signer" ]
result $? "DKMS signed it with its MOK key (for Secure Boot)"
[ ! -e "/var/lib/dkms/gotrace" ] && [ ! -e "/usr/src/gotrace-$ver" ] &&
	[ ! -e "/lib/modules/$kver/updates/dkms/gotrace.ko" ]
result $? "nothing of it on the host: /var/lib/dkms, /usr/src, /lib/modules"

tap_end
