# SPDX-License-Identifier: GPL-2.0
# TAP output for gotrace's shell tests: sourced by them, never run on its own.
#
#   result STATUS DESCRIPTION [OUTPUT_FILE]
#       "ok N - DESCRIPTION" if STATUS is 0, else "not ok N - DESCRIPTION" followed by the
#       first 80 lines of OUTPUT_FILE (when given and present) as "# " comments.
#   tap_end
#       the plan, "1..N", for scripts that print it last; fails if any result failed.
#   run NAME ARGS...
#       run "$CHECK" ARGS... (the script under test), output in $TMP/NAME.out: sets RC to
#       its exit status and OUT to that file.
#   expect DESCRIPTION FILE COMMAND...
#       a result: ok if COMMAND (a test on FILE) succeeds, else not ok with FILE shown.
#   tap_guard
#       set GUARD to a prefix that runs a command without CAP_SYS_MODULE (setpriv), so
#       that a test of gotrace load or unload never loads a module here; empty, with a
#       "# " line saying so, where setpriv cannot drop it.
#   need_gotrace WHY
#       set and export GOTRACE, the gotrace command (default: userspace/gotrace two
#       directories above the sourcing script, which is in scripts/FOLDER/; make -C
#       userspace builds it); if it is not there, say "Bail out!" (after a TAP header) and
#       exit 1. WHY says what the script needs it for.
#
# tap_n counts the results so far, tap_failed the failed ones.

tap_n=0
tap_failed=0

result() {
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2"
	else
		tap_failed=$((tap_failed + 1))
		echo "not ok $tap_n - $2"
		if [ -n "${3:-}" ] && [ -f "$3" ]; then
			head -n 80 "$3" | sed 's/^/# /'
		fi
	fi
}

tap_end() {
	echo "1..$tap_n"
	[ "$tap_failed" -eq 0 ]
}

expect() {
	desc=$1
	file=$2
	shift 2
	if "$@"; then
		result 0 "$desc"
	else
		result 1 "$desc" "$file"
	fi
}

tap_guard() {
	GUARD=""
	if setpriv --bounding-set=-sys_module true 2>/dev/null; then
		GUARD="setpriv --bounding-set=-sys_module"
	else
		echo "# setpriv is missing: running without the CAP_SYS_MODULE guard"
	fi
}

run() {
	RC=0
	OUT=$TMP/$1.out
	shift
	"$CHECK" "$@" >"$OUT" 2>&1 || RC=$?
}

need_gotrace() {
	GOTRACE=${GOTRACE:-$(cd "$(dirname "$0")/../.." && pwd)/userspace/gotrace}
	if [ ! -x "$GOTRACE" ]; then
		echo "TAP version 13"
		echo "Bail out! $GOTRACE not found: run make -C userspace, or set GOTRACE ($1)"
		exit 1
	fi
	export GOTRACE
}
