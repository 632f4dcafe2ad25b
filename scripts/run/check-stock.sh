#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The test command's first half (make check-stock): host tests, Debian kernels' VM suite, Go.
#
# Usage: scripts/run/check-stock.sh
#
# Steps: install dependencies and fetch both kernels; build and run the host unit tests
# (make -C userspace check, if that target exists); DKMS, make install and the Debian
# packages (make deb, then make deb-check's fresh root and guest); build the static
# selftests and the static gotrace CLI into build/check/bin; for each kernel build
# gotrace.ko out of tree and boot a QEMU guest (2 vCPUs) that runs selftests/run_guest.sh
# with build/check shared at /host; then feed every trace the guests left in build/check/traces to
# scripts/oracles/go-check.sh (the first kernel's with every page of go tool trace, the others'
# with Go's parsers only; Go 1.22+ traces with every Go that reads them, 1.22 to 1.27, and
# cut at generation boundaries) and scripts/oracles/addr-scan.sh (no raw kernel address), and each
# kernel's views-*.trace to scripts/oracles/views-check.sh (Go's profiles and goroutine page must
# name the views workload's waits); last, the self-tests of go-check.sh, views-check.sh and
# addr-scan.sh (each must pass good traces and fail broken ones). Each suite's TAP is saved under build/check/
# and counted; the command fails if any test fails, any suite does not run, or a guest
# shows a kernel splat. Per kernel, one more guest records workloads with gotrace and
# ftrace at once, and scripts/oracles/ftrace-compare.py compares them thread by thread
# (scripts/oracles/ftrace-oracle.sh; its self-test runs with the checkers' self-tests).
#
# The other kernels gotrace supports (scripts/setup/kernels.sh --all: 5.10, trixie's 6.12, 7.2 and
# 7.3): scripts/kbuild/other-kernels.sh fetches them and builds gotrace.ko for each in the
# background while the host tests run (at idle priority; mostly network). After Debian 12's
# two, the newest of them gets the same whole suite, and each of the others a shorter one:
# the ftrace oracle's guest (its TAP lines and comparisons, the flight recorder's
# snapshots) and Go's parsers on the traces it left.
#
# The last kernel's suite streams GOTRACE_CHECK_LONG_MIB MiB (default 1024) in its long run
# (stress.long_run: nothing may go unrecorded); the others stream the test's default 8.
# Its whole trace goes to build/check/long/: split by scripts/suites/split-check.sh here, and again
# by make check-long, whose Go reads every piece.
#
# Environment: GOTRACE_VM_TIMEOUT (seconds per guest, default 2400), GOTRACE_VM_MEM (MB,
# default 2048), GOTRACE_KERNELS (space-separated KVERs to test instead of all),
# GOTRACE_CHECK_LONG_MIB (see above; 8 makes the long run short everywhere),
# GOTRACE_OTHER_KERNELS ("no": not the other kernels' shorter suite), GO_CUTS (the
# pieces of a Go 1.22+ trace cut at generation boundaries that go-check.sh parses: default
# 6, spread from the first boundary to the last; "all" parses every one, 2,100 in all and
# about 7 minutes more).
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT="$ROOT/build/check"
BIN="$OUT/bin"
TRACES="$OUT/traces"
RESULTS="$OUT/results"
FAILURES="$OUT/failures.txt"
VM_TIMEOUT=${GOTRACE_VM_TIMEOUT:-2400}
VM_MEM=${GOTRACE_VM_MEM:-2048}
VM_CPUS=2
LONG_MIB=${GOTRACE_CHECK_LONG_MIB:-1024}
GO_CUTS=${GO_CUTS:-6}
OTHER_KERNELS=${GOTRACE_OTHER_KERNELS:-yes}

cd "$ROOT"
start_all=$(date +%s)

die() {
	echo "check-stock.sh: $*" >&2
	exit 1
}

step() {
	echo
	echo "=== check-stock.sh: $* ($(($(date +%s) - start_all))s)"
}

# Does the Makefile in directory $1 define target $2? (Reads make's database; runs nothing.)
has_target() {
	[ -f "$1/Makefile" ] || return 1
	make -C "$1" -npq .DEFAULT 2>/dev/null | grep -q "^$2:"
}

# record NAME RC TAPFILE [NOTE]: remember a suite's outcome for the summary. RC is the
# exit status of whatever produced TAPFILE; "-" when the suite could not run at all.
record() {
	printf '%s|%s|%s|%s\n' "$1" "$2" "${3:--}" "${4:-}" >> "$RESULTS"
}

# tap_counts FILE: "pass fail skip points plan bail cpass cfail cskip" from the top-level
# TAP lines; plan is the sum of the plans seen (concatenated streams), -1 if there is none.
# cpass/cfail/cskip count the test cases nested as "# ok"/"# not ok" comments (kselftest).
tap_counts() {
	awk '
	function kind(line,   u) {
		u = toupper(line)
		if (u ~ /# *SKIP/)
			return "skip"
		if (line ~ /^[# ]*ok/ || u ~ /# *TODO/)
			return "pass"
		return "fail"
	}
	/^ok( |$)/ || /^not ok( |$)/ { n++; top[kind($0)]++ }
	/^#[ #]*(not )?ok [0-9]/ { nested[kind($0)]++ }
	/^1\.\.[0-9]+/ { split($1, p, "\\.\\."); plan += p[2]; hasplan = 1 }
	/^Bail out!/ { bail = 1 }
	END {
		print top["pass"] + 0, top["fail"] + 0, top["skip"] + 0, n + 0,
		      (hasplan ? plan : -1), bail + 0,
		      nested["pass"] + 0, nested["fail"] + 0, nested["skip"] + 0
	}
	' "$1"
}

# run_tap NAME TAPFILE COMMAND...: run COMMAND, show and save its stdout, record the suite.
run_tap() {
	name=$1 tap=$2
	shift 2
	rm -f "$tap" "$tap.rc"
	{
		rc=0
		"$@" || rc=$?
		echo "$rc" > "$tap.rc"
	} | tee "$tap"
	rc=$(cat "$tap.rc" 2>/dev/null || echo 1)
	rm -f "$tap.rc"
	record "$name" "$rc" "$tap"
}

problems=""
problem() {
	echo "check-stock.sh: FAILED: $*" >&2
	problems="$problems
  - $*"
}

summary() {
	total_pass=0 total_fail=0 total_skip=0 bad=0 suites=0
	echo
	echo "=== check-stock.sh: summary ($(($(date +%s) - start_all))s)"
	printf '%-32s %6s %6s %6s  %-12s %s\n' suite pass fail skip "cases p/f/s" result
	while IFS='|' read -r name rc tap note; do
		suites=$((suites + 1))
		pass=0 fail=0 skip=0 points=0 plan=-1 bail=0 cases=-
		if [ "$rc" = - ]; then
			result="NOT RUN: $note"
		elif [ ! -s "$tap" ]; then
			result="NOT RUN: no TAP output (exit status $rc)"
		else
			set -- $(tap_counts "$tap")
			pass=$1 fail=$2 skip=$3 points=$4 plan=$5 bail=$6
			[ $(($7 + $8 + $9)) -eq 0 ] || cases="$7/$8/$9"
			result=ok
			if [ "$points" -eq 0 ]; then
				result="NOT RUN: no test results in $tap"
			elif [ "$bail" -ne 0 ]; then
				result="FAIL: bailed out"
			elif [ "$fail" -ne 0 ]; then
				result="FAIL"
			elif [ "$plan" -ge 0 ] && [ "$plan" -ne "$points" ]; then
				result="FAIL: planned $plan tests, saw $points"
			elif [ "$rc" -ne 0 ]; then
				result="FAIL: exit status $rc"
			fi
			[ -z "$note" ] || result="$result ($note)"
		fi
		case "$result" in
		ok*) ;;
		*) bad=$((bad + 1)) ;;
		esac
		total_pass=$((total_pass + pass))
		total_fail=$((total_fail + fail))
		total_skip=$((total_skip + skip))
		printf '%-32s %6s %6s %6s  %-12s %s\n' "$name" "$pass" "$fail" "$skip" "$cases" "$result"
		case "$result" in
		ok*) ;;
		FAIL*)
			echo "$name: $result" >> "$FAILURES"
			scripts/lib/tap-why.sh "$tap" 40 | tee -a "$FAILURES"
			;;
		*) echo "$name: $result" >> "$FAILURES" ;;
		esac
	done < "$RESULTS"
	printf '%-32s %6s %6s %6s  %-12s %s\n' TOTAL "$total_pass" "$total_fail" "$total_skip" "" \
		"$suites suites, $bad not ok"
	if [ -n "$problems" ]; then
		echo "other failures:$problems" | tee -a "$FAILURES"
	fi
	echo "logs and TAP: $OUT"
	if [ "$bad" -ne 0 ] || [ -n "$problems" ] || [ "$suites" -eq 0 ]; then
		echo "=== check-stock.sh: FAILED"
		return 1
	fi
	echo "=== check-stock.sh: PASSED"
}

step "dependencies (scripts/setup/deps.sh)"
"$ROOT/scripts/setup/deps.sh" || die "scripts/setup/deps.sh failed; see its messages above"

step "kernels (scripts/setup/kernels.sh)"
"$ROOT/scripts/setup/kernels.sh" >/dev/null || die "scripts/setup/kernels.sh failed; see its messages above"
"$ROOT/scripts/setup/kernels.sh" --source-only || die "scripts/setup/kernels.sh --source-only failed"
kvers=${GOTRACE_KERNELS:-$("$ROOT/scripts/setup/kernels.sh" --list)}
echo "kernels:" $kvers

# Nothing from an earlier run may be counted or checked again.
rm -rf "$OUT"
mkdir -p "$OUT" "$BIN" "$TRACES"
: > "$RESULTS"

other_pid=""
if [ "$OTHER_KERNELS" != no ]; then
	echo "check-stock.sh: the other kernels fetched and built in the background: $OUT/other-kernels.log"
	# shellcheck disable=SC2086 # one word per kernel
	setsid chrt --idle 0 nice -n 19 scripts/kbuild/other-kernels.sh "$OUT" $kvers \
		> "$OUT/other-kernels.list" 2> "$OUT/other-kernels.log" < /dev/null &
	other_pid=$!
	trap '[ -z "$other_pid" ] || kill -- "-$other_pid" 2>/dev/null || true' EXIT
fi

step "userspace: build and host unit tests"
if [ ! -f userspace/Makefile ]; then
	problem "userspace/Makefile is missing: the gotrace CLI cannot be built"
elif ! make -C userspace; then
	problem "make -C userspace failed"
elif has_target userspace check; then
	# make's own messages (which recipe failed) go into the TAP too, for tap-why.sh.
	run_tap userspace "$OUT/userspace.tap" sh -c 'make -s -j2 -Otarget -C userspace check 2>&1'
else
	echo "check-stock.sh: userspace/Makefile has no 'check' target: no host unit tests to run"
fi

step "DKMS and make install on the host (scripts/suites/dkms-check.sh, scripts/suites/install-check.sh)"
run_tap dkms "$OUT/dkms.tap" scripts/suites/dkms-check.sh
run_tap install "$OUT/install.tap" scripts/suites/install-check.sh

step "Debian packages: built, installed in a fresh root, used in a guest, purged (scripts/package/deb.sh, scripts/suites/deb-check.sh)"
# The service's snapshots from its systemd guest go to $TRACES/service for Go's readers.
run_tap deb "$OUT/deb.tap" env GOTRACE_DEB_TRACES="$TRACES/service" \
	sh -c 'scripts/package/deb.sh >&2 && scripts/suites/deb-check.sh'

step "selftests: build into $BIN"
selftests_ok=""
if [ ! -f selftests/Makefile ]; then
	problem "selftests/Makefile is missing: no VM tests can run"
elif ! make -C selftests OUT="$BIN"; then
	problem "make -C selftests OUT=$BIN failed"
elif [ ! -f "$BIN/run_guest.sh" ]; then
	problem "make -C selftests did not put run_guest.sh into $BIN (the guest entry script)"
else
	selftests_ok=1
fi

step "userspace: static gotrace CLI into $BIN"
if has_target userspace static; then
	make -C userspace static OUT="$BIN" || problem "make -C userspace static OUT=$BIN failed"
else
	echo "check-stock.sh: userspace/Makefile has no 'static' target yet: the guest gets no gotrace CLI"
fi

# The long run's trace, its length in bytes in its traces, off its disk into $OUT/long.
long_trace() {
	mkdir -p "$OUT/long"
	rm -f "$OUT/long/stress-long-run.trace"
	len=$(cat "$TRACES/$kver/stress-long-run.bytes" 2>/dev/null)
	case "$len" in
	''|*[!0-9]*) echo "check-stock.sh: the long run left no trace length; no split check" ;;
	*) head -c "$len" "$OUT/long.img" > "$OUT/long/stress-long-run.trace" ;;
	esac
	rm -f "$OUT/long.img" "$TRACES/$kver/stress-long-run.bytes"
}

# kernel_suite KVER: gotrace.ko built for KVER, the selftests, the CLI and the ftrace oracle
# in guests of it.
kernel_suite() {
	kver=$1
	step "kernel $kver: build gotrace.ko, run the selftests in a guest"
	kout="$OUT/$kver"
	long_env="GOTRACE_LONG_MIB=8"
	long_disk=""
	# The last kernel's long run writes its whole trace to a disk of its own (9p is too
	# slow for the reader to keep up), taken off it after the guest for the split check.
	if [ "$kver" = "$last_kver" ]; then
		long_env="GOTRACE_LONG_MIB=$LONG_MIB GOTRACE_TEST_TIMEOUT=3600
			  GOTRACE_LONG_FILE=/dev/vda"
		rm -f "$OUT/long.img"
		truncate -s "$((LONG_MIB + 64))M" "$OUT/long.img"
		long_disk="--qemu-arg -drive --qemu-arg file=$OUT/long.img,format=raw,if=virtio,cache=unsafe"
	fi
	mkdir -p "$kout" "$TRACES/$kver"
	if ! "$ROOT/scripts/kbuild/vm-module.sh" "$kver" "$kout" >/dev/null; then
		record "selftests/$kver" - - "gotrace.ko does not build for $kver (log: $kout/build.log)"
		return
	fi
	if [ -z "$selftests_ok" ]; then
		record "selftests/$kver" - - "the selftests did not build"
		return
	fi
	# A module session.kstacks_unloaded_module loads and unloads in the guest.
	"$ROOT/scripts/setup/kernels.sh" --module "$kver" tun > "$kout/tun.ko" ||
		problem "kernel $kver: no tun.ko for session.kstacks_unloaded_module"
	rc=0
	# shellcheck disable=SC2086 # long_env, long_disk: one word each
	"$ROOT/scripts/vm/vm.sh" --cpus "$VM_CPUS" --mem "$VM_MEM" --timeout "$VM_TIMEOUT" \
		--log "$kout/console.log" --stdout "$kout/selftests.tap" $long_disk \
		"$kver" "$OUT" -- \
		KVER="$kver" GOTRACE_KO="/host/$kver/gotrace.ko" GOTRACE_BIN=/host/bin \
		GOTRACE_TUN_KO="/host/$kver/tun.ko" \
		GOTRACE_TRACE_DIR="/host/traces/$kver" $long_env sh /host/bin/run_guest.sh || rc=$?
	[ ! -f "$OUT/.vm-dmesg" ] || mv "$OUT/.vm-dmesg" "$kout/dmesg.txt"
	note=""
	[ "$rc" -eq 0 ] || note="guest: exit status $rc; see $kout/console.log"
	record "selftests/$kver" "$rc" "$kout/selftests.tap" "$note"
	echo "check-stock.sh: TAP of the selftests on $kver: $kout/selftests.tap"
	if [ -n "$long_disk" ]; then
		long_trace
	fi

	step "kernel $kver: the gotrace CLI in a guest (scripts/suites/cli-check.sh)"
	run_tap "cli/$kver" "$kout/cli.tap" scripts/suites/cli-check.sh "$kver" "$kout/cli" "$TRACES/$kver"

	# ftrace as a second oracle: the same workloads recorded by both at once, compared
	# thread by thread; its traces join $TRACES/$kver, ftrace's text goes to $OUT/oracle.
	step "kernel $kver: gotrace against ftrace in a guest (scripts/oracles/ftrace-oracle.sh)"
	if [ -z "$selftests_ok" ] || [ ! -f "$BIN/gotrace" ]; then
		record "ftrace-oracle/$kver" - - "the selftests or the static gotrace CLI did not build"
	else
		run_tap "ftrace-oracle/$kver" "$kout/ftrace-oracle.tap" \
			scripts/oracles/ftrace-oracle.sh "$kver" "$OUT"
	fi

	# gotrace merge (issue 32) against ftrace and cpu.stat: the first kernel only.
	[ "$kver" = "$first_kver" ] || return 0
	step "kernel $kver: gotrace merge of a throttled Go program's trace, against ftrace (scripts/oracles/join-oracle.sh)"
	if [ ! -f "$BIN/gotrace" ]; then
		record "join-oracle/$kver" - - "the static gotrace CLI did not build"
	else
		run_tap "join-oracle/$kver" "$kout/join-oracle.tap" \
			scripts/oracles/join-oracle.sh "$kver" "$OUT"
	fi
}

for last_kver in $kvers; do :; done
for first_kver in $kvers; do break; done
for kver in $kvers; do
	kernel_suite "$kver"
done

# The other kernels: the newest gets the whole suite, the others the ftrace oracle's guest.
others_short=""
if [ -n "$other_pid" ]; then
	rc=0
	wait "$other_pid" || rc=$?
	other_pid=""
	[ "$rc" -eq 0 ] || record other-kernels - - \
		"scripts/kbuild/other-kernels.sh failed (exit status $rc; log: $OUT/other-kernels.log)"
	newest=$(cut -d' ' -f1 "$OUT/other-kernels.list" | sort -V | tail -n 1)
	if [ -n "$newest" ]; then
		kernel_suite "$newest"
		kvers="$kvers $newest"	# its traces go to Go's parsers and views-check.sh
	fi
	step "the other kernels: gotrace against ftrace in a guest of each (scripts/kbuild/other-kernels.sh, scripts/oracles/ftrace-oracle.sh)"
	while read -r kver built; do
		if [ "$kver" = "$newest" ]; then
			continue
		elif [ "$built" != built ]; then
			record "ftrace-oracle/$kver" - - "gotrace.ko does not build for $kver (log: $OUT/$kver/build.log)"
		elif [ -z "$selftests_ok" ] || [ ! -f "$BIN/gotrace" ]; then
			record "ftrace-oracle/$kver" - - "the selftests or the static gotrace CLI did not build"
		else
			mkdir -p "$TRACES/$kver"
			run_tap "ftrace-oracle/$kver" "$OUT/$kver/ftrace-oracle.tap" \
				scripts/oracles/ftrace-oracle.sh "$kver" "$OUT"
			others_short="$others_short $TRACES/$kver"
		fi
	done < "$OUT/other-kernels.list"
fi

# Every trace through Go's readers; the pages of go tool trace (four fifths of the time)
# for the first kernel's traces, which the same tests record on every kernel and which
# include the long run's (the last kernel streams too much to keep it).
# The Gos that read Go 1.22+ traces (the generations tests' and the header tests' 1.22-1.26
# traces), fetched once into build/go: on a cold machine about 10 minutes, mostly building
# the trace and pprof tools of 1.25-1.27; then instant. Here rather than inside go-check.sh,
# so that a failed fetch is its own failure and the time shows.
step "Go 1.22, 1.24-1.27 for Go 1.22+ traces (scripts/setup/go-fetch.sh)"
for v in 1.22 1.24 1.25 1.26 1.27; do
	scripts/setup/go-fetch.sh "$v" || problem "scripts/setup/go-fetch.sh $v failed: go-check.sh cannot check Go 1.22+ traces"
done

step "Go's trace readers on build/check/traces (scripts/oracles/go-check.sh)"
ntraces=$(find "$TRACES" -type f | wc -l)
echo "check-stock.sh: $ntraces trace files"
# shellcheck disable=SC2086 # one word per kernel
set -- $kvers
if [ ! -x scripts/oracles/go-check.sh ]; then
	record go-check - - "scripts/oracles/go-check.sh is missing or not executable"
else
	run_tap "go-check/$1" "$OUT/go-check.tap" env GO_CUTS="$GO_CUTS" \
		scripts/oracles/go-check.sh "$TRACES/$1"
	shift
	others=$others_short
	[ ! -d "$TRACES/service" ] || others="$others $TRACES/service"
	for kver in "$@"; do
		others="$others $TRACES/$kver"
	done
	# shellcheck disable=SC2086 # one word per kernel
	[ -z "$others" ] || run_tap go-check-parse "$OUT/go-check-parse.tap" \
		env GO_CUTS="$GO_CUTS" scripts/oracles/go-check.sh --parse-only $others
fi

# gotrace split of the last kernel's long run's trace (1 GiB; in $OUT/long) in 64M pieces
# (1M when it is under 128 MiB, GOTRACE_CHECK_LONG_MIB=8): each passes gotrace check, the
# events add up, and Go's reader takes the first, a middle and the last. The trace stays
# for make check-long, which has Go read every piece.
step "gotrace split of the long run's trace (scripts/suites/split-check.sh)"
long=$OUT/long/stress-long-run.trace
if [ -f "$long" ]; then
	size=64M
	[ "$(stat -c %s "$long")" -ge $((128 << 20)) ] || size=1M
	run_tap split-check "$OUT/split-check.tap" env SPLIT_SIZE=$size scripts/suites/split-check.sh \
		"$long" "$OUT/split"
	rm -rf "$OUT/split"
else
	record split-check - - "the long run on $last_kver left no trace in $OUT/long"
fi

step "no raw kernel address in any trace (scripts/oracles/addr-scan.sh)"
run_tap addr-scan "$OUT/addr-scan.tap" scripts/oracles/addr-scan.sh "$TRACES"

step "Go's profiles of the views workload (scripts/oracles/views-check.sh)"
for kver in $kvers; do
	if [ ! -x scripts/oracles/views-check.sh ]; then
		record "views-check/$kver" - - "scripts/oracles/views-check.sh is missing or not executable"
	else
		run_tap "views-check/$kver" "$OUT/views-check-$kver.tap" \
			scripts/oracles/views-check.sh "$TRACES/$kver"
	fi
done

# The checkers themselves: go-check.sh on Go's own sample traces and on broken ones,
# views-check.sh on the first kernel's views traces and on edited copies that must fail.
step "the checkers' self-tests (scripts/oracle-tests/*-selftest.sh)"
run_tap go-check-selftest "$OUT/go-check-selftest.tap" scripts/oracle-tests/go-check-selftest.sh
# shellcheck disable=SC2086 # one word per kernel
set -- $kvers
run_tap views-check-selftest "$OUT/views-check-selftest.tap" \
	scripts/oracle-tests/views-check-selftest.sh "$TRACES/$1"
# addr-scan.sh on the first kernel's ping-pong traces, both formats, and on copies holding a
# kernel address.
run_tap addr-scan-selftest "$OUT/addr-scan-selftest.tap" \
	scripts/oracle-tests/addr-scan-selftest.sh \
	"$TRACES/$1/oracle-pingpong.trace" "$TRACES/$1/oracle-pingpong-1.26.trace"
# ftrace-compare.py on the first kernel's recorded ping-pong pair and on edited copies.
run_tap ftrace-compare-selftest "$OUT/ftrace-compare-selftest.tap" \
	scripts/oracle-tests/ftrace-compare-selftest.sh "$TRACES/$1/oracle-pingpong.trace" \
	"$OUT/oracle/$1/pingpong.ftrace"
# join-compare.py on the first kernel's Go 1.27 run of the join oracle, synthesized joins.
run_tap join-compare-selftest "$OUT/join-compare-selftest.tap" \
	scripts/oracle-tests/join-compare-selftest.sh "$OUT/join/$1/go1.27"

summary
