#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The gotrace command in a guest: selftests/cli_guest.sh on one kernel, TAP on stdout.
#
# Usage: scripts/suites/cli-check.sh KVER OUTDIR [TRACEDIR]
#
# Builds gotrace.ko for KVER and, for the ENOEXEC test, for another kernel scripts/setup/kernels.sh
# knows; the gotrace CLI, dynamic for libkmod, which Debian ships only as a shared library
# and gotrace dlopen()s for load and unload, and for libcurl, dlopen()ed by record --go: its
# libraries, libkmod.so.2, libcurl.so.4 and their dependencies and the dynamic loader go
# along (OUTDIR/share/sysroot, copied into the guest's / by the guest script);
# selftests/json_check and stall_helper, static; selftests/joinapp, static, by Go 1.27
# (scripts/setup/go-fetch.sh), for record --go and --go-trace.
# Then it boots three guests: the main tests, and two that stand for Secure Boot
# (lockdown=integrity: EPERM; module.sig_enforce=1: EKEYREJECTED), for which gotrace load
# must point to signing.
# The traces the guest records are copied to TRACEDIR (default OUTDIR/traces) for
# scripts/oracles/go-check.sh; each status --json output is parsed again here with Python.
# Console logs: OUTDIR/console-*.log. Exit status 0 only if every test passed.
# Environment: GOTRACE_CLI_GUESTS (the boots to run, default "main lockdown sig-enforce"),
# GOTRACE_VM_TIMEOUT (seconds per boot, default 1200).
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VM_TIMEOUT=${GOTRACE_VM_TIMEOUT:-1200}

die() {
	echo "Bail out! cli-check.sh: $*"
	exit 1
}

[ $# -ge 2 ] || { echo "usage: $0 KVER OUTDIR [TRACEDIR]" >&2; exit 2; }
kver=$1
mkdir -p "$2" || die "cannot create $2"
out=$(cd "$2" && pwd)
tracedir=${3:-$out/traces}
share=$out/share
# shellcheck source=scripts/lib/tap-lib.sh
. "$ROOT/scripts/lib/tap-lib.sh"

# The shared libraries of $1 and its loader, copied under $2 at their own paths.
bundle_libs() {
	ldd "$1" | awk '/=> \// { print $3 } /^\t\/[^ ]+ \(/ { print $1 }' | while read -r lib; do
		cp -L --parents "$lib" "$2/" || exit 1
	done
}

# Library $2 for gotrace $1, which dlopen()s it (ldd does not list it): next to its libc.
dlopened_lib() {
	libc=$(ldd "$1" | awk '$1 == "libc.so.6" { print $3 }')
	echo "${libc%/*}/$2"
}

rm -rf "$share"
mkdir -p "$share/bin" "$share/sysroot" "$share/traces" "$share/json" "$tracedir" ||
	die "cannot create $share"

other=$("$ROOT/scripts/setup/kernels.sh" --list 2>/dev/null | grep -v -x -F "$kver" | head -n 1)
"$ROOT/scripts/kbuild/vm-module.sh" "$kver" "$share/ko" > /dev/null 2> "$out/build.log" ||
	die "gotrace.ko does not build for $kver (see $out/build.log)"
if [ -n "$other" ] && ! "$ROOT/scripts/kbuild/vm-module.sh" "$other" "$share/ko-other" \
	> /dev/null 2>> "$out/build.log"; then
	echo "# gotrace.ko does not build for $other: the ENOEXEC test is skipped"
	other=""
fi
make -s -C "$ROOT/userspace" gotrace >> "$out/build.log" 2>&1 ||
	die "make -C userspace gotrace failed (see $out/build.log)"
cp "$ROOT/userspace/gotrace" "$share/bin/gotrace"
kmod=$(dlopened_lib "$share/bin/gotrace" libkmod.so.2)
[ -f "$kmod" ] || die "no $kmod next to gotrace's libc: install libkmod2"
curl=$(dlopened_lib "$share/bin/gotrace" libcurl.so.4)
[ -f "$curl" ] || die "no $curl next to gotrace's libc: install libcurl4 (scripts/setup/deps.sh)"
bundle_libs "$share/bin/gotrace" "$share/sysroot" ||
	die "cannot copy the shared libraries of gotrace"
for lib in "$kmod" "$curl"; do
	if ! bundle_libs "$lib" "$share/sysroot" || ! cp -L --parents "$lib" "$share/sysroot/"; then
		die "cannot copy $lib and its shared libraries"
	fi
done
${CC:-gcc} -static -O2 -Wall -Wextra -Werror -o "$share/bin/json_check" \
	"$ROOT/selftests/json_check.c" || die "cannot build selftests/json_check.c"
${CC:-gcc} -static -pthread -O2 -Wall -Wextra -Werror -o "$share/bin/stall_helper" \
	"$ROOT/selftests/stall_helper.c" "$ROOT/selftests/stall.c" ||
	die "cannot build selftests/stall_helper.c"
# joinapp as scripts/oracles/join-oracle.sh builds it: static, stdlib only, no network.
fetched=$("$ROOT/scripts/setup/go-fetch.sh" --print 1.27) ||
	die "scripts/setup/go-fetch.sh 1.27 failed (its messages are above): no Go for joinapp"
go=$(echo "$fetched" | sed -n 1p)
(cd "$ROOT/selftests/joinapp" &&
	CGO_ENABLED=0 GOTOOLCHAIN=local GOPROXY=off GOFLAGS=-mod=mod \
	GOCACHE=${GOCACHE:-$ROOT/build/go/cache} \
	"$go" build -trimpath -o "$share/bin/joinapp" .) >> "$out/build.log" 2>&1 ||
	die "Go 1.27 cannot build selftests/joinapp (see $out/build.log)"
cp "$ROOT/selftests/cli_guest.sh" "$ROOT/selftests/service_test.conf" "$share/bin/"
echo "# libraries for the guest: $(cd "$share/sysroot" && find . -type f | tr '\n' ' ')"

# guest NAME [--append ARGS]: one boot running cli_guest.sh; its TAP lines are renumbered.
guest() {
	name=$1
	shift
	rc=0
	"$ROOT/scripts/vm/vm.sh" --quiet --cpus 2 --mem 1024 --timeout "$VM_TIMEOUT" "$@" \
		--log "$out/console-$name.log" --stdout "$out/guest-$name.tap" "$kver" "$share" -- \
		GOTRACE_CLI=/host/bin/gotrace GOTRACE_SYSROOT=/host/sysroot \
		GOTRACE_KO=/host/ko/gotrace.ko \
		GOTRACE_KO_OTHER="${other:+/host/ko-other/gotrace.ko}" GOTRACE_KVER_OTHER="$other" \
		GOTRACE_BIN=/host/bin GOTRACE_TRACE_DIR=/host/traces GOTRACE_JSON_DIR=/host/json \
		sh /host/bin/cli_guest.sh 2> "$out/vm-$name.err" || rc=$?
	while IFS= read -r line; do
		case "$line" in
		"ok "*|"not ok "*)
			ok=0
			case "$line" in "not ok "*) ok=1 ;; esac
			text=$(echo "$line" | sed 's/^\(not \)\{0,1\}ok [0-9]* - //')
			result "$ok" "$name: $text" ;;
		"TAP version"*) ;;
		*) echo "$line" ;;
		esac
	done < "$out/guest-$name.tap"
	[ -s "$out/guest-$name.tap" ] || sed 's/^/# /' "$out/vm-$name.err"
	result "$rc" "$name: the guest ran cli_guest.sh and exited 0 (vm.sh: $rc)"
}

echo "TAP version 13"
for g in ${GOTRACE_CLI_GUESTS:-main lockdown sig-enforce}; do
	case $g in
	main) guest main ;;
	lockdown) guest lockdown --append lockdown=integrity ;;
	sig-enforce) guest sig-enforce --append module.sig_enforce=1 ;;
	*) die "unknown guest '$g' in GOTRACE_CLI_GUESTS (main, lockdown, sig-enforce)" ;;
	esac
done

for j in "$share"/json/*.json; do
	[ -e "$j" ] || continue
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$j" 2> "$out/json.err"
	rc=$?
	sed 's/^/# /' "$out/json.err"
	result "$rc" "host: $(basename "$j") is JSON to Python"
done
cp "$share"/traces/*.trace "$tracedir/" 2> /dev/null
echo "# traces for scripts/oracles/go-check.sh: $(ls "$share"/traces/*.trace 2>/dev/null | wc -l) in $tracedir"
tap_end
