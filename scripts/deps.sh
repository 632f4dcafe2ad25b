#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Install the Debian 12 packages gotrace needs to build, test and check traces.
#
# Idempotent: packages already present are skipped. Needs root (apt-get).
# Adds Debian's bookworm-backports suite (same archive) for Linux 6.12 headers and Go 1.21/1.23.
set -eu

BPO_LIST=/etc/apt/sources.list.d/gotrace-bookworm-backports.list

need_root() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "deps.sh: installing packages needs root; run: sudo $0" >&2
		exit 1
	fi
}

have_pkgs() {
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || return 1
	done
}

base="make gcc libc6-dev libkmod-dev kmod sparse busybox-static cpio xz-utils zstd \
qemu-system-x86 qemu-utils golang-go curl ca-certificates linux-headers-amd64 linux-source-6.1 \
python3 perl clang libclang-rt-14-dev"
bpo="golang-1.21-go golang-1.23-go"

if have_pkgs $base $bpo && [ -f "$BPO_LIST" ] && [ -z "${GOTRACE_DEPS_REFRESH:-}" ]; then
	# Meta packages are installed; the backports headers are checked by kernels.sh.
	exit 0
fi

need_root
if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
	echo "deb http://deb.debian.org/debian bookworm-backports main" > "$BPO_LIST"
fi
touch "$BPO_LIST"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends $base
apt-get install -y -q --no-install-recommends -t bookworm-backports $bpo
