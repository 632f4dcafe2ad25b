#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Which gotrace commands map libkmod (TAP output). check, dump, stats and --help must not:
# LD_DEBUG=files, which lists every library the dynamic loader opens, shows libc and
# neither libkmod.so.2 nor libcrypto.so.3 (libkmod's dependency). load must: it
# dlopen()s libkmod.so.2 (and with it libcrypto.so.3), and with --path of a file that does
# not exist fails in libkmod as always ("no module file PATH", exit status 1). With an
# empty file, then a library without libkmod's functions (NOKMOD), as libkmod.so.2 first
# in LD_LIBRARY_PATH, load fails with a message naming the library, what is wrong (the
# loader's words) and the fix.
#
# Usage: tests/libkmod.sh GOTRACE TRACE NOKMOD
#   TRACE is a small valid trace; NOKMOD a shared library without libkmod's functions.
# Safe on any host: the module file does not exist, so nothing is loaded; and gotrace runs
# without CAP_SYS_MODULE (setpriv) when setpriv can drop it, as in cli_args.sh.
set -u

GOTRACE=$1
TRACE=$2
NOKMOD=$3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# shellcheck source=scripts/lib/tap-lib.sh
. "$(dirname "$0")/../../scripts/lib/tap-lib.sh"

# files ARGS...: gotrace ARGS under LD_DEBUG=files, the loader's lines (setpriv's too) in
# $TMP/ld; RC is its exit status, $TMP/err its own stderr.
files() {
	rm -f "$TMP"/ld.*
	RC=0
	LD_DEBUG=files LD_DEBUG_OUTPUT="$TMP/ld" $GUARD "$GOTRACE" "$@" > /dev/null \
		2> "$TMP/err" < /dev/null || RC=$?
	cat "$TMP"/ld.* > "$TMP/ld" 2> /dev/null
}

# opened LIB: the last files run's loader opened LIB (a file name without its version).
opened() {
	grep -q "file=$1\.so" "$TMP/ld"
}

# without ARGS...: gotrace ARGS exits 0, and the loader opened its libc but no libkmod.
without() {
	files "$@"
	ok=0
	if [ "$RC" -ne 0 ]; then
		echo "# exit status $RC, expected 0"
		ok=1
	elif ! grep -q "file=libc\.so\.6 .*needed by $GOTRACE " "$TMP/ld"; then
		echo "# LD_DEBUG=files shows no libc.so.6 for gotrace: it cannot tell what is opened"
		ok=1
	elif opened libkmod || opened libcrypto; then
		grep -e libkmod -e libcrypto "$TMP/ld" | head -n 4 | sed 's/^/# /'
		ok=1
	fi
	result "$ok" "gotrace $* opens neither libkmod.so.2 nor libcrypto.so.3" "$TMP/err"
}

# refused PATTERN DESCRIPTION: the last run exited 1 with stderr matching PATTERN.
refused() {
	[ "$RC" -eq 1 ] && grep -q -e "$1" "$TMP/err"
	result $? "$2: exit status 1 and '$1'" "$TMP/err"
}

# stubbed DIR PATTERN: gotrace load, libkmod.so.2 from DIR, is refused with PATTERN.
stubbed() {
	RC=0
	LD_LIBRARY_PATH=$1 $GUARD "$GOTRACE" load --path "$missing" > /dev/null 2> "$TMP/err" \
		< /dev/null || RC=$?
	refused "$2" "gotrace load with $(basename "$1")/libkmod.so.2"
}

echo "TAP version 13"
tap_guard
if [ -e /sys/module/gotrace ]; then
	echo "Bail out! gotrace.ko is loaded on this host: load would stop before libkmod"
	exit 1
fi

without check -q "$TRACE"
without dump "$TRACE"
without stats "$TRACE"
without --help

missing=$TMP/missing/gotrace.ko
files load --path "$missing"
opened libkmod
result $? "gotrace load --path opens libkmod.so.2" "$TMP/ld"
opened libcrypto
result $? "and libkmod.so.2 brings libcrypto.so.3" "$TMP/ld"
refused "no module file .*/missing/gotrace.ko: check the path" "gotrace load --path MISSING"

mkdir "$TMP/empty" "$TMP/nokmod"
: > "$TMP/empty/libkmod.so.2"
cp "$NOKMOD" "$TMP/nokmod/libkmod.so.2"
said="^gotrace load: cannot open libkmod.so.2: "
fix="install libkmod2, or load the module with: insmod gotrace.ko$"
stubbed "$TMP/empty" "$said.*libkmod.so.2: .*: $fix"
stubbed "$TMP/nokmod" "$said.*: undefined symbol: kmod_new: $fix"

tap_end
