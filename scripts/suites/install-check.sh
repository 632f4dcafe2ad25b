#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make install and make uninstall into a temporary DESTDIR, never the host: TAP on stdout.
#
# Usage: scripts/suites/install-check.sh [KDIR]   (default: the newest Debian 6.1 amd64 headers)
#
# The checkout's files (tracked and new, as git lists them) are copied to a temporary
# tree, which builds the module for KDIR and the CLI and installs them into a temporary
# DESTDIR with PREFIX=/usr: the module in lib/modules/RELEASE/extra with a modules.dep
# from depmod -b that names it, gotrace in usr/sbin, both man pages (which man renders
# without warnings), the uapi header, the service's unit and configuration (which a second
# make install keeps once edited). Then make uninstall must leave no file behind, and
# make module for a kernel built with a compiler the host lacks (a made-up build tree of
# gcc-99) must be refused with a message naming it.
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/lib/tap-lib.sh
. "$ROOT/scripts/lib/tap-lib.sh"

bail() {
	echo "Bail out! install-check.sh: $*"
	exit 1
}

kdir=${1:-$(ls -d /usr/src/linux-headers-6.1.*-amd64 2>/dev/null | grep -v -e -rt- -e -cloud- |
	sort -V | tail -n 1)}
echo "TAP version 13"
[ -n "$kdir" ] && [ -f "$kdir/include/generated/utsrelease.h" ] ||
	bail "no kernel headers to build against (KDIR '$kdir'): run scripts/setup/deps.sh"
kver=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' "$kdir/include/generated/utsrelease.h")
tmp=$(mktemp -d /tmp/gotrace-install.XXXXXX) || bail "mktemp failed"
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/dest
mkdir -p "$tmp/src" "$dest"
(cd "$ROOT" && git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$tmp/src" 2>/dev/null)
echo "# Linux $kver ($kdir), DESTDIR $dest"

make -C "$tmp/src" install KDIR="$kdir" DESTDIR="$dest" PREFIX=/usr > "$tmp/install.log" 2>&1
rc=$?
[ "$rc" -eq 0 ] || tail -n 20 "$tmp/install.log" | sed 's/^/# /'
result "$rc" "make install DESTDIR=... PREFIX=/usr"
(cd "$dest" && find . -type f | sort | sed 's/^/# installed: /')

check() {
	name=$1
	shift
	"$@"
	result $? "$name"
}
check "the module in lib/modules/$kver/extra" test -f "$dest/lib/modules/$kver/extra/gotrace.ko"
check "depmod -b: modules.dep names it" grep -q '^extra/gotrace.ko:' "$dest/lib/modules/$kver/modules.dep"
check "the CLI in usr/sbin" test -x "$dest/usr/sbin/gotrace"
check "the uapi header in usr/include/linux" cmp -s "$ROOT/uapi/linux/gotrace.h" \
	"$dest/usr/include/linux/gotrace.h"
for page in man8/gotrace.8 man4/gotrace.4; do
	LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$dest/usr/share/man/$page" \
		> /dev/null 2> "$tmp/man.err"
	[ ! -s "$tmp/man.err" ] || sed 's/^/# /' "$tmp/man.err"
	check "man renders $page without warnings" test ! -s "$tmp/man.err"
done
unit=$dest/usr/lib/systemd/system/gotrace-flight.service
check "the service's unit, running usr/sbin/gotrace" \
	grep -qx 'ExecStart=/usr/sbin/gotrace service --config /etc/gotrace/flight.conf' "$unit"
check "the module's unit, running usr/sbin/gotrace" \
	grep -qx 'ExecStart=/usr/sbin/gotrace load --update' \
	"$dest/usr/lib/systemd/system/gotrace-module.service"
check "the service's configuration in etc/gotrace, valid" sh -c \
	"'$dest/usr/sbin/gotrace' service --check -c '$dest/etc/gotrace/flight.conf' > /dev/null"
echo '# an edit' >> "$dest/etc/gotrace/flight.conf"
make -C "$tmp/src" install KDIR="$kdir" DESTDIR="$dest" PREFIX=/usr > "$tmp/reinstall.log" 2>&1
check "make install again keeps an edited configuration" \
	grep -qx '# an edit' "$dest/etc/gotrace/flight.conf"
check "the module is not in the host's /lib/modules" test ! -e "/lib/modules/$kver/extra/gotrace.ko"

make -C "$tmp/src" uninstall KDIR="$kdir" DESTDIR="$dest" PREFIX=/usr > "$tmp/uninstall.log" 2>&1
rc=$?
[ "$rc" -eq 0 ] || tail -n 20 "$tmp/uninstall.log" | sed 's/^/# /'
result "$rc" "make uninstall"
left=$(cd "$dest" && find . -type f ! -path "./lib/modules/$kver/modules.*" | sort)
[ -z "$left" ] || echo "$left" | sed 's/^/# left behind: /'
check "nothing left but depmod's indexes" test -z "$left"
check "no etc/gotrace left" test ! -e "$dest/etc/gotrace"

# make module for a kernel built with a compiler the host lacks: refused, naming it.
fake=$tmp/fake-kdir
mkdir -p "$fake/include/config" "$fake/include/generated"
echo 'all:' > "$fake/Makefile"
echo 'CONFIG_CC_VERSION_TEXT="x86_64-linux-gnu-gcc-99 (Debian 99.1.0-1) 99.1.0"' \
	> "$fake/include/config/auto.conf"
echo '#define UTS_RELEASE "99.0.0-fake"' > "$fake/include/generated/utsrelease.h"
make -C "$tmp/src" module KDIR="$fake" > "$tmp/fake.log" 2>&1
rc=$?
sed 's/^/# /' "$tmp/fake.log"
[ "$rc" -ne 0 ] && grep -q 'built with gcc-99, which this machine lacks' "$tmp/fake.log" &&
	grep -q 'apt install gcc-99' "$tmp/fake.log"
result $? "make module for a kernel built with gcc-99: refused, naming the compiler (exit status $rc)"

tap_end
