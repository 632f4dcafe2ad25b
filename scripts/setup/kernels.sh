#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Fetch the Debian kernels the VM tests boot: headers to build against, images to boot.
#
# Usage:
#   scripts/setup/kernels.sh           resolve, fetch and record both kernels; print their KVERs
#   scripts/setup/kernels.sh --list    print the recorded KVERs (no network, no apt)
#   scripts/setup/kernels.sh --kdir KVER
#                                      print the kernel build tree to build modules for KVER
#   scripts/setup/kernels.sh --module KVER NAME
#                                      write the fetched kernel's module NAME.ko, uncompressed,
#                                      to stdout (a selftest loads and unloads one in the guest)
#   scripts/setup/kernels.sh --source-only
#                                      extract checkpatch, kernel-doc and the kselftest headers from
#                                      linux-source-6.1 into build/linux-source/
#   scripts/setup/kernels.sh --rt      fetch Debian 12's PREEMPT_RT kernel (linux-image-rt-amd64)
#                                      the same way; record it in build/kernels/list-rt (not in
#                                      list: make check-debug tests it, make check does not);
#                                      print its KVER
#   scripts/setup/kernels.sh --all     also fetch the other kernels users run, from other Debian
#                                      suites (bullseye-security's 5.10, trixie's 6.12, sid's 7.2,
#                                      trixie-backports' 7.3): headers and image extracted into
#                                      build/kernels/<KVER>/ with a private apt configuration
#                                      (build/apt/; nothing is installed on the host); record the
#                                      KVERs of all six in build/kernels/list-all and each
#                                      kernel's suite in build/kernels/<KVER>/suite (its compiler
#                                      is built into a root of that suite:
#                                      scripts/kbuild/kbuild-root.sh)
#
# The kernels are Debian 12's 6.1 (linux-image-amd64 from bookworm) and bookworm-backports'
# 6.12. For each, the image .deb is downloaded and extracted (never installed) into
# build/kernels/<KVER>/ (boot/vmlinuz-<KVER>, lib/modules/<KVER>/ with a fresh modules.dep),
# and the versioned headers package is installed with apt. When apt would drag a kernel image
# into the host to satisfy the headers package (bookworm-backports' headers depend on their
# image), the headers are extracted next to the image instead and only their tool dependencies
# (gcc-12, pahole, ...) are installed. The build tree is recorded in build/kernels/<KVER>/kdir,
# the KVERs in build/kernels/list. Idempotent: finished steps are skipped.
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
KERNELS="$ROOT/build/kernels"
SRC_TAR=/usr/src/linux-source-6.1.tar.xz
SRC_OUT="$ROOT/build/linux-source"
SRC_FILES="scripts/checkpatch.pl scripts/spelling.txt scripts/const_structs.checkpatch
scripts/kernel-doc
tools/testing/selftests/kselftest_harness.h tools/testing/selftests/kselftest.h
Documentation/userspace-api/ioctl/ioctl-number.rst"

# The two kernels: "<apt target release or -> <expected version prefix>".
SUITES="- 6.1.
bookworm-backports 6.12."

APT_DL="-o APT::Sandbox::User=root"
export DEBIAN_FRONTEND=noninteractive

die() {
	echo "kernels.sh: $*" >&2
	exit 1
}

log() {
	echo "kernels.sh: $*" >&2
}

need_root() {
	[ "$(id -u)" -eq 0 ] || die "$1 needs root (apt-get); run: sudo $0"
}

installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

# Names a package depends on, one per line ("|Depends:" alternatives included,
# virtual packages "<...>" left out).
pkg_depends() {
	apt-cache depends --no-recommends --no-suggests --no-conflicts --no-breaks \
		--no-replaces --no-enhances "$1" 2>/dev/null |
		sed -n 's/^ *|\{0,1\}\(Pre\)\{0,1\}Depends: \([^<][^ ]*\)$/\2/p'
}

# The versioned image package the meta package $2 (default linux-image-amd64) points to in
# suite $1 ("-": default policy).
resolve_image() {
	if [ "$1" = - ]; then
		apt-cache depends "${2:-linux-image-amd64}" 2>/dev/null
	else
		apt-cache depends -t "$1" "${2:-linux-image-amd64}" 2>/dev/null
	fi | sed -n 's/^ *Depends: \(linux-image-[^ <]*\)$/\1/p' | head -n 1
}

resolve_kvers() {
	echo "$SUITES" | while read -r suite prefix; do
		pkg=$(resolve_image "$suite")
		kver=${pkg#linux-image-}
		case "$kver" in
		"$prefix"*) echo "$kver" ;;
		*)
			[ "$suite" = - ] && suite=bookworm
			die "linux-image-amd64 in $suite resolves to '${pkg:-nothing}', not a $prefix* kernel." \
			    "Fix: run scripts/setup/deps.sh (it adds bookworm-backports); then GOTRACE_DEPS_REFRESH=1 scripts/setup/deps.sh to refresh apt lists"
			;;
		esac
	done
}

# apt-get download $1 into directory $2. On failure refresh the apt lists once and start
# over: a stale list names kernel versions the mirror has dropped.
download() {
	(cd "$2" && apt-get download $APT_DL -q "$1" >&2) && return 0
	[ -z "${GOTRACE_KERNELS_UPDATED:-}" ] ||
		die "cannot download $1: check the network, the mirror and that bookworm-backports is configured (scripts/setup/deps.sh)"
	need_root "refreshing the apt lists"
	log "download of $1 failed; running apt-get update and starting over"
	apt-get update -q >&2 || die "apt-get update failed: check the network and /etc/apt/sources.list*"
	export GOTRACE_KERNELS_UPDATED=1
	exec "$0"
}

candidate() {
	apt-cache policy "$1" | sed -n 's/^ *Candidate: //p'
}

# Download and extract the kernel image of $1 into build/kernels/$1/ and index its modules.
fetch_image() {
	kver=$1
	pkg=linux-image-$kver
	dir="$KERNELS/$kver"
	ver=$(candidate "$pkg")
	[ -n "$ver" ] && [ "$ver" != "(none)" ] ||
		die "apt knows no $pkg; run: GOTRACE_DEPS_REFRESH=1 scripts/setup/deps.sh"
	if [ "$(cat "$dir/.image-stamp" 2>/dev/null)" = "$pkg $ver" ] &&
	   [ -f "$dir/boot/vmlinuz-$kver" ] && [ -s "$dir/lib/modules/$kver/modules.dep" ]; then
		return 0
	fi
	log "fetching $pkg $ver"
	debs="$KERNELS/debs/$kver"
	rm -rf "$debs" && mkdir -p "$debs" "$dir"
	download "$pkg" "$debs"
	rm -f "$dir/.image-stamp"
	rm -rf "${dir:?}/boot" "${dir:?}/lib/modules/$kver/kernel"
	dpkg-deb -x "$debs"/"${pkg}"_*.deb "$dir"
	[ -f "$dir/boot/vmlinuz-$kver" ] || die "$pkg holds no boot/vmlinuz-$kver; unexpected package layout"
	# Debian generates modules.dep in the image's postinst, which we do not run.
	depmod -b "$dir" "$kver" || die "depmod failed for $kver (package kmod)"
	rm -rf "$debs"
	echo "$pkg $ver" > "$dir/.image-stamp"
}

# Install (or, if apt would install a kernel image with them, extract) the headers of $1;
# record the build tree in build/kernels/$1/kdir.
fetch_headers() {
	kver=$1
	pkg=linux-headers-$kver
	dir="$KERNELS/$kver"
	mkdir -p "$dir"
	if installed "$pkg" && [ -f "/usr/src/$pkg/Makefile" ]; then
		echo "/usr/src/$pkg" > "$dir/kdir"
		return 0
	fi
	# Extracted by an earlier run (below): no need to ask apt again.
	if [ -f "$dir/.headers-stamp" ] && [ "$(cat "$dir/.headers-stamp")" = "$pkg $(candidate "$pkg")" ]; then
		private_headers "$kver"
		return 0
	fi
	sim=$(apt-get install -s --no-install-recommends "$pkg" 2>&1) ||
		die "apt cannot install $pkg: $sim"
	if ! echo "$sim" | grep -q '^Inst linux-image-'; then
		need_root "installing $pkg"
		log "installing $pkg"
		apt-get install -y -q --no-install-recommends "$pkg" >&2 || die "apt-get install $pkg failed"
		echo "/usr/src/$pkg" > "$dir/kdir"
		return 0
	fi
	private_headers "$kver"
}

# Extract $pkg and the linux-headers-*/linux-kbuild-* packages it needs into build/kernels/KVER/;
# apt-install its other dependencies (compiler, pahole), never a linux-image-*.
private_headers() {
	kver=$1
	pkg=linux-headers-$kver
	dir="$KERNELS/$kver"
	kdir="$dir/usr/src/$pkg"
	ver=$(candidate "$pkg")
	todo=$pkg extract="" tools=""
	while [ -n "$todo" ]; do
		set -- $todo
		p=$1
		shift
		todo=$*
		extract="$extract $p"
		for d in $(pkg_depends "$p"); do
			case "$d" in
			linux-image-*) ;;
			linux-headers-*|linux-kbuild-*)
				case " $extract $todo " in *" $d "*) ;; *) todo="$todo $d" ;; esac ;;
			*)
				installed "$d" || case " $tools " in *" $d "*) ;; *) tools="$tools $d" ;; esac ;;
			esac
		done
	done
	if [ -n "$tools" ]; then
		need_root "installing$tools"
		log "installing the build tools $pkg needs:$tools"
		# shellcheck disable=SC2086
		apt-get install -y -q --no-install-recommends $tools >&2 || die "apt-get install$tools failed"
	fi
	if [ "$(cat "$dir/.headers-stamp" 2>/dev/null)" != "$pkg $ver" ] || [ ! -f "$kdir/Makefile" ]; then
		need_root "downloading $pkg"
		log "apt would install a kernel image with $pkg; extracting$extract into $dir instead"
		debs="$KERNELS/debs/$kver-headers"
		rm -rf "$debs" && mkdir -p "$debs"
		for p in $extract; do
			download "$p" "$debs"
		done
		rm -f "$dir/.headers-stamp"
		for deb in "$debs"/*.deb; do
			dpkg-deb -x "$deb" "$dir"
		done
		rm -rf "$debs"
		echo "$pkg $ver" > "$dir/.headers-stamp"
	fi
	# The arch tree's Makefile includes the common tree by absolute path: point it here
	# (again on every run, in case the checkout moved).
	grep -q '^include .*/usr/src/' "$kdir/Makefile" ||
		die "$kdir/Makefile does not include the common headers tree; unexpected package layout"
	sed -i "s|^include .*/usr/src/|include $dir/usr/src/|" "$kdir/Makefile"
	echo "$kdir" > "$dir/kdir"
}

source_only() {
	missing=""
	for f in $SRC_FILES; do
		[ -s "$SRC_OUT/$f" ] || missing="$missing $f"
	done
	[ -n "$missing" ] || return 0
	if [ ! -f "$SRC_TAR" ]; then
		need_root "installing linux-source-6.1"
		log "installing linux-source-6.1 for$missing"
		apt-get install -y -q --no-install-recommends linux-source-6.1 >&2 ||
			die "cannot install linux-source-6.1; run scripts/setup/deps.sh first"
	fi
	mkdir -p "$SRC_OUT"
	log "extracting$missing from $SRC_TAR"
	members=""
	for f in $missing; do
		members="$members linux-source-6.1/$f"
	done
	# shellcheck disable=SC2086
	tar -xJf "$SRC_TAR" -C "$SRC_OUT" --strip-components=1 $members ||
		die "cannot extract$missing from $SRC_TAR; reinstall linux-source-6.1"
}

# The other suites' kernels (--all): "<suite> <expected version prefix>".
OTHER_SUITES="bullseye-security 5.10.
trixie 6.12.
sid 7.2.
trixie-backports 7.3."
APT_DIR="$ROOT/build/apt"

# apt-get/apt-cache with the private configuration of --all: its own sources, lists and cache,
# no host status (nothing of these suites is installed here). The mirror may serve a suite's
# last snapshot past its Valid-Until (sid's lapses within days).
papt() {
	cmd=$1
	shift
	"$cmd" -o Dir::Etc::SourceList="$APT_DIR/sources.list" -o Dir::Etc::SourceParts=/nonexistent \
		-o Dir::State::Lists="$APT_DIR/lists" -o Dir::Cache="$APT_DIR/cache" \
		-o Dir::State::Status=/dev/null -o Acquire::Check-Valid-Until=false $APT_DL "$@"
}

other_setup() {
	mkdir -p "$APT_DIR/lists/partial" "$APT_DIR/cache/archives/partial"
	m=${GOTRACE_MIRROR:-http://deb.debian.org/debian}
	cat > "$APT_DIR/sources.list.tmp" <<-EOT
	deb $m bullseye main
	deb ${GOTRACE_SECURITY_MIRROR:-http://deb.debian.org/debian-security} bullseye-security main
	deb $m trixie main
	deb $m trixie-backports main
	deb $m sid main
	EOT
	mv "$APT_DIR/sources.list.tmp" "$APT_DIR/sources.list"
	if [ -z "$(find "$APT_DIR/lists" -name '*_Packages*' -mmin -1440 2>/dev/null)" ] ||
	   [ -n "${GOTRACE_DEPS_REFRESH:-}" ]; then
		log "apt-get update (private lists in $APT_DIR)"
		papt apt-get update -q >&2 || die "apt-get update of the other suites failed"
	fi
}

# The versioned image package linux-image-amd64 points to in suite $1.
other_image() {
	ver=$(papt apt-cache madison linux-image-amd64 |
		awk -v s="$1" '$0 ~ (" " s "/main ") { print $3; exit }')
	[ -n "$ver" ] || die "linux-image-amd64 not found in $1"
	papt apt-cache show "linux-image-amd64=$ver" |
		sed -n 's/^Depends: .*\(linux-image-[^ ,]*\).*/\1/p' | head -n 1
}

# Download and extract the headers of $1 (with the linux-headers-*/linux-kbuild-* packages
# they depend on) and its image into build/kernels/$1/; record kdir and suite.
other_fetch() {
	kver=$1 suite=$2
	dir="$KERNELS/$kver"
	pkg=linux-headers-$kver
	kdir="$dir/usr/src/$pkg"
	stamp="$pkg linux-image-$kver(split) $(papt apt-cache policy "$pkg" | sed -n 's/^ *Candidate: //p')"
	if [ "$(cat "$dir/.other-stamp" 2>/dev/null)" != "$stamp" ] || [ ! -f "$kdir/Makefile" ] ||
	   [ ! -f "$dir/boot/vmlinuz-$kver" ]; then
		# The image's kernel and modules: in the image package itself, or (7.x) in the
		# linux-binary-*, linux-modules-* and linux-base-<KVER> (modules.builtin) packages
		# it depends on.
		todo="$pkg linux-image-$kver" extract=""
		while [ -n "$todo" ]; do
			set -- $todo
			p=$1
			shift
			todo=$*
			extract="$extract $p"
			for d in $(papt apt-cache depends --no-recommends --no-suggests --no-conflicts \
					--no-breaks --no-replaces --no-enhances "$p" 2>/dev/null |
				   sed -n 's/^ *|\{0,1\}\(Pre\)\{0,1\}Depends: \(linux-[^ <]*\)$/\2/p'); do
				case "$d" in
				linux-headers-*|linux-kbuild-*|linux-binary-*|linux-modules-*|linux-image-*|\
				linux-base-"$kver")
					case " $extract $todo " in *" $d "*) ;; *) todo="$todo $d" ;; esac ;;
				esac
			done
		done
		log "fetching$extract ($suite)"
		debs="$KERNELS/debs/$kver-other"
		rm -rf "$debs" && mkdir -p "$debs" "$dir"
		for p in $extract; do
			(cd "$debs" && papt apt-get download -q "$p" >&2) || die "cannot download $p"
		done
		rm -f "$dir/.other-stamp"
		rm -rf "${dir:?}/boot" "${dir:?}/lib" "${dir:?}/usr"
		for deb in "$debs"/*.deb; do
			dpkg-deb -x "$deb" "$dir"
		done
		rm -rf "$debs"
		# sid's 7.x keeps the kernel in usr/lib/modules/<KVER>/vmlinuz: boot/ points there.
		if [ ! -e "$dir/boot/vmlinuz-$kver" ] && [ -f "$dir/usr/lib/modules/$kver/vmlinuz" ]; then
			mkdir -p "$dir/boot"
			ln -s "../usr/lib/modules/$kver/vmlinuz" "$dir/boot/vmlinuz-$kver"
		fi
		[ -f "$dir/boot/vmlinuz-$kver" ] || die "linux-image-$kver holds no boot/vmlinuz-$kver"
		# trixie's packages (merged /usr) ship usr/lib/modules: keep lib/modules/<KVER> the
		# path the VM scripts read.
		if [ ! -e "$dir/lib" ] && [ -d "$dir/usr/lib/modules/$kver" ]; then
			ln -s usr/lib "$dir/lib"
		fi
		depmod -b "$dir" "$kver" || die "depmod failed for $kver (package kmod)"
		echo "$stamp" > "$dir/.other-stamp"
	fi
	grep -q '^include .*/usr/src/' "$kdir/Makefile" ||
		die "$kdir/Makefile does not include the common headers tree; unexpected package layout"
	# 7.x's also names its own directory, absolute, as KBUILD_OUTPUT.
	sed -i -e "s|^include .*/usr/src/|include $dir/usr/src/|" \
		-e "s|^KBUILD_OUTPUT=.*/usr/src/|KBUILD_OUTPUT=$dir/usr/src/|" "$kdir/Makefile"
	echo "$kdir" > "$dir/kdir"
	echo "$suite" > "$dir/suite"
	# What vm.sh keys its cached initramfs on, as fetch_image() writes it.
	echo "linux-image-$kver ${stamp##* }" > "$dir/.image-stamp"
}

all() {
	need_root "fetching the other suites' kernels"
	other_setup
	kvers=$(echo "$OTHER_SUITES" | while read -r suite prefix; do
		pkg=$(other_image "$suite")
		kver=${pkg#linux-image-}
		case "$kver" in
		"$prefix"*) echo "$suite $kver" ;;
		*) die "linux-image-amd64 in $suite resolves to '${pkg:-nothing}', not a $prefix* kernel" ;;
		esac
	done)
	[ "$(echo "$kvers" | wc -l)" -eq 4 ] || exit 1
	echo "$kvers" | while read -r suite kver; do
		other_fetch "$kver" "$suite"
	done
	{ list; echo "$kvers" | cut -d' ' -f2; } > "$KERNELS/list-all.tmp"
	mv "$KERNELS/list-all.tmp" "$KERNELS/list-all"
	cat "$KERNELS/list-all"
}

list() {
	[ -s "$KERNELS/list" ] || die "no kernels recorded in $KERNELS/list; run scripts/setup/kernels.sh"
	cat "$KERNELS/list"
}

case "${1:-}" in
--source-only)
	source_only
	exit 0
	;;
--list)
	list
	exit 0
	;;
--rt)
	command -v depmod >/dev/null || die "needs depmod; run scripts/setup/deps.sh (package kmod)"
	pkg=$(resolve_image - linux-image-rt-amd64)
	kver=${pkg#linux-image-}
	case "$kver" in
	6.1.*-rt-amd64) ;;
	*) die "linux-image-rt-amd64 resolves to '${pkg:-nothing}', not a 6.1 -rt kernel; run: GOTRACE_DEPS_REFRESH=1 scripts/setup/deps.sh" ;;
	esac
	mkdir -p "$KERNELS"
	fetch_headers "$kver"
	fetch_image "$kver"
	echo "$kver" > "$KERNELS/list-rt"
	echo "$kver"
	exit 0
	;;
--all)
	command -v depmod >/dev/null || die "needs depmod; run scripts/setup/deps.sh (package kmod)"
	# Debian 12's two kernels first: list-all starts with them.
	"$0" >/dev/null
	all
	exit 0
	;;
--module)
	[ $# -eq 3 ] || die "usage: $0 --module KVER NAME"
	ko=$(find "$KERNELS/$2/lib/modules" -name "$3.ko*" 2>/dev/null | head -n 1)
	case "$ko" in
	"") die "kernel $2 has no module $3; run scripts/setup/kernels.sh" ;;
	*.xz) xz -dc "$ko" ;;
	*.zst) zstd -qdc "$ko" ;;
	*) cat "$ko" ;;
	esac
	exit 0
	;;
--kdir)
	[ $# -eq 2 ] || die "usage: $0 --kdir KVER"
	kdir=$(cat "$KERNELS/$2/kdir" 2>/dev/null) || die "no build tree recorded for $2; run scripts/setup/kernels.sh"
	[ -f "$kdir/Makefile" ] || die "build tree $kdir for $2 is gone; run scripts/setup/kernels.sh"
	echo "$kdir"
	exit 0
	;;
"") ;;
*)
	die "unknown argument '$1'; usage: $0 [--list | --kdir KVER | --module KVER NAME | --source-only | --rt | --all]"
	;;
esac

command -v apt-get >/dev/null || die "needs Debian's apt-get"
command -v depmod >/dev/null || die "needs depmod; run scripts/setup/deps.sh (package kmod)"
mkdir -p "$KERNELS"
kvers=$(resolve_kvers)
[ "$(echo "$kvers" | wc -l)" -eq 2 ] || exit 1
for kver in $kvers; do
	fetch_headers "$kver"
	fetch_image "$kver"
done
echo "$kvers" > "$KERNELS/list.tmp"
mv "$KERNELS/list.tmp" "$KERNELS/list"
cat "$KERNELS/list"
