#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build the Debian packages gotrace-dkms and gotrace into build/deb/, then lintian them.
#
# Usage: scripts/package/deb.sh
#
# The checkout's files (tracked and new, as git lists them; nothing under build/) are
# copied to build/deb/src/gotrace-VERSION, VERSION being dkms.conf's PACKAGE_VERSION,
# which must match debian/changelog's. dpkg-buildpackage builds the native source package
# and both binary packages there, unsigned; the results (.deb, .dsc, .tar.xz, .changes,
# .buildinfo, and gotrace-dbgsym) go to build/deb/, the log to build/deb/build.log.
# lintian then checks the .changes (source and binaries): any error or warning fails the
# script; info tags are shown. Installs the build dependencies from Debian's archive when
# some are missing (needs root then). Never installs the packages it builds.
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT="$ROOT/build/deb"
TOOLS="dpkg-dev debhelper dh-dkms bash-completion libkmod-dev pkg-config make gcc libc6-dev \
lintian"

die() {
	echo "deb.sh: $*" >&2
	exit 1
}

missing=""
for p in $TOOLS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	[ "$(id -u)" -eq 0 ] || die "installing$missing needs root; run: sudo $0"
	echo "deb.sh: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q || die "apt-get update failed"
	# shellcheck disable=SC2086 # one word per package
	apt-get install -y -q --no-install-recommends $missing || die "apt-get install$missing failed"
fi

cd "$ROOT"
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
[ -n "$ver" ] || die "dkms.conf has no PACKAGE_VERSION"
dver=$(dpkg-parsechangelog -S Version)
[ "$ver" = "$dver" ] ||
	die "dkms.conf says version $ver, debian/changelog $dver: add a changelog entry (dch -v $ver)"

rm -rf "$OUT"
src="$OUT/src/gotrace-$ver"
mkdir -p "$src"
git ls-files -co --exclude-standard -z | grep -z -v '^build/' |
	xargs -0 cp --parents -t "$src" 2>/dev/null || true
# Files git lists but the work tree no longer has (deleted, not yet committed) are skipped.
[ -f "$src/debian/rules" ] && [ -f "$src/dkms.conf" ] || die "copying the sources to $src failed"

echo "deb.sh: building gotrace $ver in $src (log: $OUT/build.log)"
if ! (cd "$src" && dpkg-buildpackage -us -uc --build=full) > "$OUT/build.log" 2>&1; then
	tail -n 40 "$OUT/build.log" >&2
	die "dpkg-buildpackage failed; the whole log is $OUT/build.log"
fi
for f in "$OUT/src/"*; do
	[ -f "$f" ] && mv "$f" "$OUT/"
done
rm -rf "$OUT/src"
ls -l "$OUT"/*.deb

changes=$(ls "$OUT"/gotrace_"$ver"_*.changes)
echo "deb.sh: lintian $(basename "$changes")"
rc=0
lintian --display-info --fail-on error,warning "$changes" > "$OUT/lintian.txt" 2>&1 || rc=$?
sed 's/^/lintian: /' "$OUT/lintian.txt"
[ "$rc" -eq 0 ] || die "lintian found errors or warnings (exit status $rc; $OUT/lintian.txt)"
echo "deb.sh: lintian clean (no errors, no warnings); packages in $OUT"
