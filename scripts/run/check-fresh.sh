#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The README's commands on a fresh, minimal Debian 12 root, as a new user runs them.
#
# Usage: scripts/run/check-fresh.sh [--demo-only]
#
# Builds a minimal Debian 12 root with mmdebstrap (variant minbase: no make, no compiler)
# in build/fresh/root, installs what the README tells a new user to install first (git and
# make), clones this repository's committed HEAD into it as a new user would clone it, and
# runs the README's two commands there, in a chroot: make demo (which must leave a valid
# out.trace and the gotrace command the README uses), then make check, unless --demo-only.
# Prints TAP; each command's output is in build/fresh/*.log. Nothing of the host's
# packages, caches or kernels is visible inside. Needs root; took 6 minutes with
# --demo-only and 61 in all on a 2-core machine (the debug kernel is built there too): run
# it before resolving an issue that touches dependencies; not in CI, which runs make check.
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FRESH="$ROOT/build/fresh"
RFS="$FRESH/root"
SUITE=bookworm
MIRROR=http://deb.debian.org/debian
# shellcheck source=scripts/lib/tap-lib.sh
. "$ROOT/scripts/lib/tap-lib.sh"

demo_only=""
case "${1:-}" in
"") ;;
--demo-only) demo_only=1 ;;
*) echo "usage: $0 [--demo-only]" >&2; exit 2 ;;
esac
[ "$(id -u)" -eq 0 ] || { echo "check-fresh.sh: needs root (mmdebstrap, chroot)" >&2; exit 1; }

# Unmount what a run mounted in the root, innermost first.
unmount_all() {
	for m in dev/pts dev sys proc ""; do
		! mountpoint -q "$RFS/$m" 2>/dev/null || umount -l "$RFS/$m"
	done
}
trap unmount_all EXIT

# in_root LOG COMMAND: run COMMAND with sh in the root's clone, as root, logged.
in_root() {
	log=$1
	shift
	chroot "$RFS" /usr/bin/env -i HOME=/root TERM=dumb PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		sh -c "cd /root/gotrace && $*" > "$log" 2>&1
}

# step DESCRIPTION LOG COMMAND...: run COMMAND, its TAP result with LOG's start on failure.
step() {
	desc=$1 log=$2
	shift 2
	rc=0
	"$@" || rc=$?
	result "$rc" "$desc" "$log"
	return "$rc"
}

echo "TAP version 13"
if ! command -v mmdebstrap > /dev/null; then
	apt-get update -q > /dev/null
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		mmdebstrap > /dev/null
fi
unmount_all
rm -rf "$FRESH"
mkdir -p "$FRESH"
start=$(date +%s)
step "a minimal $SUITE root (mmdebstrap --variant=minbase)" "$FRESH/mmdebstrap.log" \
	sh -c "mmdebstrap --variant=minbase $SUITE $RFS $MIRROR > $FRESH/mmdebstrap.log 2>&1" ||
	{ tap_end; exit 1; }
cp /etc/resolv.conf "$RFS/etc/resolv.conf"
# What every installed Debian has and a bootstrapped root lacks: a hosts file, and a root
# that is a mount point (unshare -m, as dkms-check.sh and deb-check.sh use it, changes its
# propagation).
printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' > "$RFS/etc/hosts"
mount --bind "$RFS" "$RFS"
mount -t proc proc "$RFS/proc"
mount -t sysfs sysfs "$RFS/sys"
mount --bind /dev "$RFS/dev"
mount --bind /dev/pts "$RFS/dev/pts"

# What the README says to do before its two commands.
step "apt-get install git make (the README's first step)" "$FRESH/prereq.log" \
	sh -c "chroot $RFS sh -c 'apt-get update -q && DEBIAN_FRONTEND=noninteractive \
	apt-get install -y -q --no-install-recommends git make ca-certificates' \
	> $FRESH/prereq.log 2>&1" || { tap_end; exit 1; }
step "a clone of the committed HEAD ($(git -C "$ROOT" rev-parse --short HEAD))" /dev/null \
	git clone -q --no-hardlinks "$ROOT" "$RFS/root/gotrace" || { tap_end; exit 1; }

t0=$(date +%s)
step "make demo (log: build/fresh/demo.log)" "$FRESH/demo.log" \
	in_root "$FRESH/demo.log" "make demo" || true
echo "# make demo: $(($(date +%s) - t0)) s"
step "make demo left out.trace" /dev/null test -s "$RFS/root/gotrace/out.trace" || true
step "the README's 'gotrace check out.trace' passes on it" "$FRESH/gotrace-check.log" \
	in_root "$FRESH/gotrace-check.log" "userspace/gotrace check out.trace" || true
cmd=$(grep -A 1 '^Open it' "$FRESH/demo.log" | sed -n 's/^ *\(.*go tool trace .*\)$/\1/p')
step "the command make demo prints reads the trace (${cmd:-none printed})" "$FRESH/open.log" \
	in_root "$FRESH/open.log" \
	"$(echo "${cmd:-false}" | sed 's/go tool trace /go tool trace -d=parsed /') > /dev/null" ||
	true

if [ -z "$demo_only" ]; then
	t0=$(date +%s)
	step "make check (log: build/fresh/check.log)" "$FRESH/check.log" \
		in_root "$FRESH/check.log" "make check" || true
	echo "# make check: $(($(date +%s) - t0)) s"
fi
unmount_all
echo "# disk used by the root: $(du -shx "$RFS" | cut -f1); $(($(date +%s) - start)) s in all"
tap_end
