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

base="make gcc libc6-dev libkmod-dev libcurl4-openssl-dev kmod sparse busybox-static cpio xz-utils zstd \
qemu-utils golang-go curl ca-certificates linux-headers-amd64 linux-source-6.1 \
python3 perl clang libclang-rt-14-dev dkms man-db procps flex bison bc libelf-dev libssl-dev \
mmdebstrap"
bpo="golang-1.21-go golang-1.23-go"

# QEMU comes from bookworm-backports (10.x). Under multi-threaded TCG, bookworm's 7.2
# mishandles kernel code the guest patches while other vCPUs run it (text_poke_bp):
# toggling scheduler tracepoints under load ended in "Oops: int3" on 6.12 and RCU
# stalls on 6.1, every time; with 10.0, or with thread=single, never.
qemu_bpo() {
	dpkg-query -W -f='${Version}' qemu-system-x86 2>/dev/null | grep -q '~bpo12'
}

if have_pkgs $base $bpo && qemu_bpo && [ -f "$BPO_LIST" ] && [ -z "${GOTRACE_DEPS_REFRESH:-}" ]; then
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
# pkg/suite picks backports for these packages only, not for the whole system; apt does not
# carry the choice over to dependencies, so every package that must be newer is named.
apt-get install -y -q --no-install-recommends qemu-system-x86/bookworm-backports \
	qemu-system-common/bookworm-backports qemu-system-data/bookworm-backports \
	seabios/bookworm-backports
qemu_bpo || {
	echo "deps.sh: qemu-system-x86 from bookworm-backports did not install; check apt's messages above" >&2
	exit 1
}
