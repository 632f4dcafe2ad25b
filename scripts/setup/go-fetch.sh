#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Fetch a Go release from Debian into build/go/VERSION (never installed), with its trace and
# pprof tools ready in build/go/VERSION/tool.
#
# Usage: scripts/setup/go-fetch.sh [--print] [VERSION]
#   VERSION   1.22 (bookworm-backports), 1.24 (trixie), 1.25, 1.26 or 1.27 (trixie-backports);
#             default 1.27. (Go 1.19, 1.21 and 1.23 are installed by scripts/setup/deps.sh.)
#   --print   also print two lines on stdout: the go binary, then the tool directory
#
# Idempotent and cached: once build/go/VERSION/ok exists, it only checks that the files are
# there (milliseconds). Otherwise, with a private apt configuration under build/go/apt-VERSION
# (build/go/apt for 1.27; the host's sources, preferences and dpkg status are never touched
# or read; apt.conf.d still applies, e.g. a proxy): `apt-get update` of the version's suite
# alone, `apt-get download golang-VERSION-go`, `dpkg -x` into build/go/VERSION/root. The
# binaries are static: they run on Debian 12. Go 1.22 and 1.24 ship their trace and pprof
# tools prebuilt in GOTOOLDIR: they are copied to build/go/VERSION/tool. Since Go 1.25 none
# ships: golang-VERSION-src is fetched too (the go package's GOROOT/src is a symlink into
# it), and `go tool -n TOOL` builds each into GOCACHE (build/go/cache, about a minute each on
# 2 cores) and prints its path; both are copied to build/go/VERSION/tool, the GOTOOLDIR the
# checkers use (a cache trim can never remove them under a running check). The same GOCACHE
# makes
#   GOCACHE=build/go/cache build/go/1.27/root/usr/lib/go-1.27/bin/go tool trace FILE
# start at once. Runs one at a time, whatever the version (flock on build/go/lock). Needs
# apt-get, dpkg and network access the first time; root is not needed.
#
# Cold-cache times on the 2-core development machine (empty build/go, GOCACHE included):
# 1.22 4 s, 1.24 7 s (prebuilt tools), 1.25 173 s, 1.26 70-320 s, 1.27 204 s (tool builds;
# the slow 1.26 shared the CPUs with other work). About 10 minutes for all five.
#
# Environment: GO_FETCH_SUITE (default: the version's suite, above), GO_FETCH_MIRROR
# (default http://deb.debian.org/debian).
set -eu

usage() {
	echo "usage: $0 [--print] [1.22|1.24|1.25|1.26|1.27]" >&2
	exit 2
}

print=
V=
for arg in "$@"; do
	case $arg in
	--print) print=1 ;;
	1.2[2-7]) [ -z "$V" ] || usage; V=$arg ;;
	*) usage ;;
	esac
done
V=${V:-1.27}
case $V in
1.22) suite=bookworm-backports ;;
1.24) suite=trixie ;;
1.25 | 1.26 | 1.27) suite=trixie-backports ;;
*)
	echo "go-fetch.sh: Go $V is not fetched here (1.23 comes from scripts/setup/deps.sh)" >&2
	usage
	;;
esac

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BASE=$ROOT/build/go
DIR=$BASE/$V
GO=$DIR/root/usr/lib/go-$V/bin/go
TOOLS=$DIR/tool
APT=$BASE/apt-$V
[ "$V" != 1.27 ] || APT=$BASE/apt
SUITE=${GO_FETCH_SUITE:-$suite}
MIRROR=${GO_FETCH_MIRROR:-http://deb.debian.org/debian}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

die() {
	echo "go-fetch.sh: $*" >&2
	exit 1
}

done_already() {
	[ -f "$DIR/ok" ] && [ -x "$GO" ] && [ -x "$TOOLS/trace" ] && [ -x "$TOOLS/pprof" ]
}

finish() {
	if [ -n "$print" ]; then
		echo "$GO"
		echo "$TOOLS"
	fi
	exit 0
}

done_already && finish

mkdir -p "$BASE"
exec 9>"$BASE/lock"
command -v flock >/dev/null 2>&1 || die "flock not found; install util-linux"
flock 9
# Another run may have finished while this one waited for the lock.
done_already && finish

for c in apt-get dpkg-deb; do
	command -v "$c" >/dev/null 2>&1 || die "$c not found: this script fetches Debian packages (Debian 12 host)"
done
[ -r "$KEYRING" ] || die "$KEYRING missing: install debian-archive-keyring"

start=$(date +%s)
rm -rf "$DIR" "$APT"
mkdir -p "$APT/lists/partial" "$APT/cache/archives/partial" "$APT/debs"
echo "deb [signed-by=$KEYRING] $MIRROR $SUITE main" >"$APT/sources.list"
: >"$APT/status"
set -- -q -o Dir::Etc::SourceList="$APT/sources.list" -o Dir::Etc::SourceParts=/dev/null \
	-o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null \
	-o Dir::State::Lists="$APT/lists" -o Dir::Cache="$APT/cache" \
	-o Dir::State::status="$APT/status" -o APT::Architecture=amd64
# As root, apt's _apt sandbox user could not write into build/; nothing here needs it.
[ "$(id -u)" -ne 0 ] || set -- "$@" -o APT::Sandbox::User=root

# download PACKAGE APT_OPTION...: fetch and unpack one package into $DIR/root.
download() {
	p=$1
	shift
	rm -f "$APT"/debs/*.deb
	(cd "$APT/debs" && apt-get "$@" download "$p") >>"$APT/download.log" 2>&1 ||
		die "apt-get download $p from $SUITE failed; log: $APT/download.log"
	for deb in "$APT"/debs/*.deb; do
		dpkg-deb -x "$deb" "$DIR/root" || die "dpkg-deb -x $deb failed"
	done
}

echo "go-fetch.sh: fetching golang-$V-go from $SUITE into $DIR" >&2
apt-get "$@" update >"$APT/update.log" 2>&1 ||
	die "apt-get update of $SUITE failed (is $MIRROR reachable?); log: $APT/update.log"
mkdir -p "$DIR/root" "$TOOLS"
pkg=golang-$V-go
download "$pkg" "$@"
[ -x "$GO" ] || die "$GO missing after unpacking $pkg"
ver=$("$GO" version) || die "$GO does not run on this host"
case $ver in
"go version go$V"[.\ ]*) ;;
*) die "$pkg of $SUITE unpacked '$ver', not Go $V" ;;
esac
tooldir=$(GOENV=off GOTOOLCHAIN=local "$GO" env GOTOOLDIR) || die "'go env GOTOOLDIR' of $ver failed"
if [ -x "$tooldir/trace" ] && [ -x "$tooldir/pprof" ]; then
	echo "go-fetch.sh: $ver unpacked ($(($(date +%s) - start))s), with prebuilt trace and pprof" >&2
	cp "$tooldir/trace" "$tooldir/pprof" "$TOOLS/"
else
	download "golang-$V-src" "$@"
	[ -d "$DIR/root/usr/lib/go-$V/src/cmd/trace" ] ||
		die "GOROOT/src/cmd/trace missing: golang-$V-src did not unpack into $DIR/root/usr/share/go-$V"
	echo "go-fetch.sh: $ver unpacked ($(($(date +%s) - start))s); building its trace and pprof tools (a minute or two)" >&2
	# The environment of a plain `go tool trace` (same build configuration, so the demo's
	# printed command finds them in this GOCACHE), minus anything that could reach the
	# network or a user's settings.
	for tool in trace pprof; do
		bin=$(GOCACHE="$BASE/cache" GOTOOLCHAIN=local GOPROXY=off GOFLAGS='' GOENV=off \
			"$GO" tool -n "$tool" 2>"$DIR/build-$tool.log") ||
			die "'go tool -n $tool' (go $V) failed to build it; log: $DIR/build-$tool.log"
		[ -x "$bin" ] || die "'go tool -n $tool' printed '$bin', which is not an executable"
		cp "$bin" "$TOOLS/$tool"
	done
fi
"$GO" version >"$DIR/ok"
rm -rf "$APT/debs" "$APT/cache"
echo "go-fetch.sh: $ver ready in $(($(date +%s) - start))s: $GO, tools in $TOOLS" >&2
finish
