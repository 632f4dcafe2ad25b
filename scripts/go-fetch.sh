#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Fetch Go 1.27 from Debian's trixie-backports into build/go/1.27 (never installed) and build its trace and pprof tools.
#
# Usage: scripts/go-fetch.sh [--print]
#   --print   also print two lines on stdout: the go binary, then the tool directory
#
# Idempotent and cached: once build/go/1.27/ok exists, it only checks that the files are
# there (milliseconds). Otherwise, with a private apt configuration under build/go/apt (the
# host's sources, preferences and dpkg status are never touched or read; apt.conf.d still
# applies, e.g. a proxy): `apt-get update` of trixie-backports alone, `apt-get download
# golang-1.27-go golang-1.27-src` (the go package's GOROOT/src is a symlink into the src
# package), `dpkg -x` both into build/go/1.27/root. The binaries are static: they run on
# Debian 12. Since Go 1.25 no prebuilt trace or pprof ships; `go tool -n TOOL` builds one
# into GOCACHE (build/go/cache, about a minute each on 2 cores) and prints its path; both
# are copied to build/go/1.27/tool, the GOTOOLDIR the checkers use (a cache trim can never
# remove them under a running check). The same GOCACHE makes
#   GOCACHE=build/go/cache build/go/1.27/root/usr/lib/go-1.27/bin/go tool trace FILE
# start at once. Runs one at a time (flock on build/go/lock). Needs apt-get, dpkg and
# network access the first time; root is not needed.
#
# Environment: GO_FETCH_SUITE (default trixie-backports), GO_FETCH_MIRROR (default
# http://deb.debian.org/debian).
set -eu

V=1.27
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BASE=$ROOT/build/go
DIR=$BASE/$V
GO=$DIR/root/usr/lib/go-$V/bin/go
TOOLS=$DIR/tool
SUITE=${GO_FETCH_SUITE:-trixie-backports}
MIRROR=${GO_FETCH_MIRROR:-http://deb.debian.org/debian}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

print=
case "${1:-}" in
'') ;;
--print) print=1 ;;
*)
	echo "usage: $0 [--print]" >&2
	exit 2
	;;
esac

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
rm -rf "$DIR" "$BASE/apt"
mkdir -p "$BASE/apt/lists/partial" "$BASE/apt/cache/archives/partial" "$BASE/apt/debs"
echo "deb [signed-by=$KEYRING] $MIRROR $SUITE main" >"$BASE/apt/sources.list"
: >"$BASE/apt/status"
set -- -q -o Dir::Etc::SourceList="$BASE/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null \
	-o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null \
	-o Dir::State::Lists="$BASE/apt/lists" -o Dir::Cache="$BASE/apt/cache" \
	-o Dir::State::status="$BASE/apt/status" -o APT::Architecture=amd64
# As root, apt's _apt sandbox user could not write into build/; nothing here needs it.
[ "$(id -u)" -ne 0 ] || set -- "$@" -o APT::Sandbox::User=root

echo "go-fetch.sh: fetching golang-$V-go and golang-$V-src from $SUITE into $DIR" >&2
apt-get "$@" update >"$BASE/apt/update.log" 2>&1 ||
	die "apt-get update of $SUITE failed (is $MIRROR reachable?); log: $BASE/apt/update.log"
(cd "$BASE/apt/debs" && apt-get "$@" download "golang-$V-go" "golang-$V-src") \
	>"$BASE/apt/download.log" 2>&1 ||
	die "apt-get download golang-$V-go golang-$V-src from $SUITE failed; log: $BASE/apt/download.log"
mkdir -p "$DIR/root" "$TOOLS"
for deb in "$BASE"/apt/debs/*.deb; do
	dpkg-deb -x "$deb" "$DIR/root" || die "dpkg-deb -x $deb failed"
done
[ -x "$GO" ] || die "$GO missing after unpacking $(ls "$BASE/apt/debs")"
[ -d "$DIR/root/usr/lib/go-$V/src/cmd/trace" ] ||
	die "GOROOT/src/cmd/trace missing: golang-$V-src did not unpack into $DIR/root/usr/share/go-$V"
ver=$("$GO" version) || die "$GO does not run on this host"
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
"$GO" version >"$DIR/ok"
rm -rf "$BASE/apt/debs" "$BASE/apt/cache"
echo "go-fetch.sh: $ver ready in $(($(date +%s) - start))s: $GO, tools in $TOOLS" >&2
finish
