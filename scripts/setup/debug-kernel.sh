#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build (once) gotrace's debug kernel and make it bootable by scripts/vm/vm.sh; print its KVER.
#
# Usage: scripts/setup/debug-kernel.sh [--kcsan] [--kver | --background]
#
#   --kcsan      the KCSAN kernel instead: scripts/setup/kcsan-kernel.config merged over the debug
#                kernel's fragment (KCSAN for KASAN, which exclude each other), cached
#                beside it under its own key and lock
#   (no option)  build the kernel unless it is cached, install it as build/kernels/<KVER>/
#                (boot/vmlinuz-<KVER>, lib/modules/<KVER>/, kdir: its build tree, as
#                scripts/setup/kernels.sh lays out Debian's kernels), print <KVER>
#   --kver       print the KVER a build would have, build nothing
#   --background start the same in the background, in a process group of its own, at idle
#                priority (SCHED_IDLE, nice 19; output in $CACHE/background.log); print
#                the group's id and return at once. make check starts it before make
#                check-stock, whose guests leave CPU time unused, and kills the group
#                when it ends; make check-debug's own call waits for it on the cache
#                lock (and builds in the foreground if it failed). The build tools must
#                be installed already (scripts/setup/deps.sh does): no apt-get beside another.
#
# The kernel is Debian's linux-source-6.1 (/usr/src/linux-source-6.1.tar.xz) configured
# as allnoconfig for x86_64 plus scripts/setup/debug-kernel.config (the guest's needs, lockdep,
# KASAN, kmemleak, ...): small, so it builds in minutes rather than the ~25 of defconfig.
# The result is cached outside the work tree, in
#   $GOTRACE_DEBUG_KERNEL_CACHE (default /var/cache/gotrace/debug-kernel)/<key>/
# with src/ (the sources), build/ (the O= tree out-of-tree modules build against:
# .config, Module.symvers, scripts, generated headers, objtool), root/ (boot/ and
# lib/modules/), build.log and build-seconds. <key> hashes the config fragment, the
# linux-source-6.1 package version, the compiler and this script's recipe version, so only
# the first run pays. The build runs under "nice -n 10" with GOTRACE_DEBUG_KERNEL_JOBS
# (default 2) jobs. Needs root only to install missing build tools (scripts/setup/deps.sh).
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FRAGMENT="$ROOT/scripts/setup/debug-kernel.config"
# The fragments merged onto allnoconfig, in order: a later one's options win.
FRAGMENTS=$FRAGMENT
# The variant: its option, and the suffix of its background log and lock in the cache.
variant="" suffix=""
if [ "${1:-}" = --kcsan ]; then
	FRAGMENTS="$FRAGMENT $ROOT/scripts/setup/kcsan-kernel.config"
	variant=--kcsan suffix=-kcsan
	shift
fi
SRC_TAR=/usr/src/linux-source-6.1.tar.xz
CACHE=${GOTRACE_DEBUG_KERNEL_CACHE:-/var/cache/gotrace/debug-kernel}
JOBS=${GOTRACE_DEBUG_KERNEL_JOBS:-2}
KERNELS="$ROOT/build/kernels"
# Bump when the build steps below change what ends up in the cache.
RECIPE="allnoconfig+fragment, bzImage+modules, v1"
# Host tools a kernel build needs beyond scripts/setup/deps.sh's compiler.
TOOLS="flex bison bc libelf-dev libssl-dev"

die() {
	echo "debug-kernel.sh: $*" >&2
	exit 1
}

log() {
	echo "debug-kernel.sh: $*" >&2
}

installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

need_tools() {
	missing=""
	for p in $TOOLS; do
		installed "$p" || missing="$missing $p"
	done
	[ -n "$missing" ] || return 0
	[ "$(id -u)" -eq 0 ] || die "building the kernel needs$missing; run: sudo apt-get install$missing (or scripts/setup/deps.sh)"
	log "installing the kernel build tools:$missing"
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing >&2 ||
		die "apt-get install$missing failed; run apt-get update and try again"
}

for f in $FRAGMENTS; do
	[ -f "$f" ] || die "$f is missing"
done
[ -f "$SRC_TAR" ] || die "$SRC_TAR is missing; run scripts/setup/deps.sh (package linux-source-6.1)"
command -v gcc >/dev/null || die "gcc not found; run scripts/setup/deps.sh"
src_ver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null) ||
	die "package linux-source-6.1 is not installed; run scripts/setup/deps.sh"
# shellcheck disable=SC2086 # one word per fragment
key=$({
	cat $FRAGMENTS
	echo "linux-source-6.1 $src_ver"
	gcc --version | head -n 1
	echo "$RECIPE"
} | sha256sum | cut -c1-16)
dir="$CACHE/$key"

# The release: the tarball Makefile's version plus the fragment's LOCALVERSION.
kver() {
	version=$(tar -xJOf "$SRC_TAR" linux-source-6.1/Makefile | awk '
		$1 == "VERSION" { v = $3 } $1 == "PATCHLEVEL" { p = $3 }
		$1 == "SUBLEVEL" { s = $3 } $1 == "EXTRAVERSION" { e = $3 }
		END { printf "%s.%s.%s%s", v, p, s, e }')
	# shellcheck disable=SC2086 # one word per fragment
	local_ver=$(sed -n 's/^CONFIG_LOCALVERSION="\(.*\)"$/\1/p' $FRAGMENTS | tail -n 1)
	echo "$version$local_ver"
}

if [ "${1:-}" = --kver ]; then
	if [ -s "$dir/kver" ]; then
		cat "$dir/kver"
	else
		kver
	fi
	exit 0
fi
if [ "${1:-}" = --background ]; then
	mkdir -p "$CACHE"
	log "building in the background at idle priority; log: $CACHE/background$suffix.log"
	# shellcheck disable=SC2086 # no word without a variant
	setsid chrt --idle 0 nice -n 19 "$0" $variant > "$CACHE/background$suffix.log" 2>&1 \
		< /dev/null &
	echo $!
	exit 0
fi
[ $# -eq 0 ] || die "unknown argument '$1'; usage: $0 [--kcsan] [--kver | --background]"

# The fragments' options as the merge leaves them, the last setting of each: "CONFIG_X=v"
# or "CONFIG_X is not set".
wanted() {
	# shellcheck disable=SC2086 # one word per fragment
	sed -n -e 's/^\(CONFIG_[A-Z0-9_]*\)=\(.*\)$/\1 =\2/p' \
		-e 's/^# \(CONFIG_[A-Z0-9_]*\) is not set$/\1 n/p' $FRAGMENTS |
		awk '{ v[$1] = $2; if (!($1 in seen)) { seen[$1] = 1; o[n++] = $1 } }
			END { for (i = 0; i < n; i++) print o[i] v[o[i]] }'
}

# Check that every option of the fragments is in .config as the last one wrote it.
check_config() {
	bad=""
	for line in $(wanted | tr -d ' '); do
		case "$line" in
		*=*) grep -qxF "$line" "$1" || bad="$bad ${line%%=*}" ;;
		*n) ! grep -q "^${line%n}=" "$1" || bad="$bad ${line%n}" ;;
		esac
	done
	[ -z "$bad" ] ||
		die "options of $FRAGMENTS that make olddefconfig changed (a dependency is missing; see $1):$bad"
}

build() {
	need_tools
	rm -rf "$dir"
	mkdir -p "$dir/src" "$dir/build" "$dir/root/boot"
	start=$(date +%s)
	log "extracting $SRC_TAR into $dir/src"
	tar -xJf "$SRC_TAR" -C "$dir/src" --strip-components=1 ||
		die "cannot extract $SRC_TAR; reinstall linux-source-6.1"
	if [ -n "$variant" ]; then
		# The timekeeper's fast copies (ktime_get_mono_fast_ns(), gotrace's clock) are
		# a seqcount latch: read racily by design, retried on a change. 6.1's KCSAN does
		# not know latches (later kernels annotate them: write_seqcount_latch_begin())
		# and reports every such read against timekeeping_update(); that file alone is
		# left uninstrumented (see scripts/setup/kcsan-kernel.config).
		echo 'KCSAN_SANITIZE_timekeeping.o := n' >> "$dir/src/kernel/time/Makefile"
	fi
	mk="make -C $dir/src O=$dir/build ARCH=x86_64"
	log "configuring: allnoconfig + $FRAGMENTS"
	# shellcheck disable=SC2086 # one word per fragment
	{
		$mk allnoconfig &&
		KCONFIG_CONFIG="$dir/build/.config" "$dir/src/scripts/kconfig/merge_config.sh" \
			-m -O "$dir/build" "$dir/build/.config" $FRAGMENTS &&
		$mk olddefconfig
	} > "$dir/build.log" 2>&1 || {
		tail -n 20 "$dir/build.log" >&2
		die "configuring the kernel failed (log: $dir/build.log)"
	}
	check_config "$dir/build/.config"
	release=$(kver)
	log "building $release with $JOBS jobs (nice 10); log: $dir/build.log"
	# shellcheck disable=SC2086
	if ! nice -n 10 $mk -j"$JOBS" bzImage modules >> "$dir/build.log" 2>&1; then
		grep -E 'error|Error' "$dir/build.log" | tail -n 20 >&2
		die "building the kernel failed (log: $dir/build.log)"
	fi
	built=$(cat "$dir/build/include/config/kernel.release")
	[ "$built" = "$release" ] || die "the kernel calls itself $built, expected $release"
	$mk INSTALL_MOD_PATH="$dir/root" DEPMOD=/sbin/depmod modules_install >> "$dir/build.log" 2>&1 ||
		die "modules_install failed (log: $dir/build.log)"
	cp "$dir/build/arch/x86/boot/bzImage" "$dir/root/boot/vmlinuz-$release"
	rm -f "$dir/root/lib/modules/$release/build" "$dir/root/lib/modules/$release/source"
	echo $(($(date +%s) - start)) > "$dir/build-seconds"
	echo "$release" > "$dir/kver"
	log "built $release in $(cat "$dir/build-seconds")s"
}

mkdir -p "$CACHE"
exec 9> "$CACHE/.lock$suffix"
flock 9
if [ ! -s "$dir/kver" ] || [ ! -f "$dir/build/Module.symvers" ]; then
	build
else
	log "cached: $dir (built in $(cat "$dir/build-seconds" 2>/dev/null || echo ?)s)"
fi
release=$(cat "$dir/kver")

# Lay it out as scripts/setup/kernels.sh lays out a Debian kernel; the stamp keys vm.sh's initramfs.
out="$KERNELS/$release"
stamp="gotrace-debug $key"
if [ "$(cat "$out/.image-stamp" 2>/dev/null)" != "$stamp" ] || [ ! -f "$out/boot/vmlinuz-$release" ]; then
	rm -rf "$out"
	mkdir -p "$out/boot" "$out/lib/modules"
	cp "$dir/root/boot/vmlinuz-$release" "$out/boot/"
	cp -R "$dir/root/lib/modules/$release" "$out/lib/modules/"
	echo "$stamp" > "$out/.image-stamp"
fi
[ -s "$out/lib/modules/$release/modules.dep" ] ||
	die "$out/lib/modules/$release/modules.dep is empty: the fragment must keep 9p as modules"
echo "$dir/build" > "$out/kdir"
echo "$release"
