#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Check that Go's profiles and goroutine page explain the views workload's waits; print TAP.
#
# Usage: scripts/oracles/views-check.sh DIR_OR_FILE...
#   Directories are searched recursively for views-MODE-VERSION.trace (what
#   selftests/views_test records; MODE is default or kstacks); files are checked whatever
#   their name, as default mode unless it says kstacks. Exit 0 only if every check of every
#   trace passed; 1 on any failure, or if there is no trace at all; 2 on bad usage.
#
# The workload (selftests/views_test.c): gt-mutex threads contend a pthread mutex (futex);
# gt-tcp-srv accepts and recv()s from its child gt-tcp-cli over loopback TCP; gt-sleep
# nanosleeps; gt-pipe read()s a pipe its thread gt-pipe-timer writes every 10 ms; gt-hog runs
# two spinners on one CPU; the test process annotates the trace with a task gt-views around
# the workload, and gt-sleep's thread with a region gt-views-sleep of it around its sleeps.
# 19 TAP tests per pre-1.22 trace: one, then six for each of Go
# OLD (the old parser: 1.19 reads 1.11/1.19 traces, 1.21 reads 1.21), Go 1.23 and Go 1.27
# (both through the converter to the new trace model; 1.27 from scripts/setup/go-fetch.sh). A
# Go 1.22+ trace (views-default-1.26.trace, views-kstacks-1.26.trace) gets 13 (see "Go 1.22+
# traces" below):
#
#   no raw kernel address  no event argument and no stack id, frame PC or line of the trace
#                          is >= 0xffff800000000000 (scripts/oracles/addr_scan.py, which reads it
#                          with `gotrace dump --all-stacks`)
#   goV sync               `trace -pprof=sync`: a sample whose outermost frame is gt-mutex
#                          and that has a futex frame
#   goV net                -pprof=net: outermost gt-tcp-srv or gt-tcp-cli, a network frame
#   goV syscall            -pprof=syscall: outermost gt-pipe, a read frame, and (not Go 1.23,
#                          see below) >= 10 events of such samples: gt-pipe reads a pipe
#                          written every 10 ms for the whole run.
#   goV sched              -pprof=sched (charged to the stack of the event that made a
#                          goroutine runnable): a sample [futex, gt-mutex], a gt-mutex thread
#                          waking a waiter as it unlocks. Only unblocks carry that stack: a
#                          create's is [fork or "exec or rename", parent], a preemption's
#                          [preempted, program]. Waits ended by GoSysExit (the pipe read)
#                          have no waker stack in this format, and loopback TCP wakeups come
#                          from softirq, so the mutex is the workload's waker to look for.
#   goV goroutines         the goroutine analysis page (`trace -http`, same server handling as
#                          go-check.sh) lists gt-mutex, gt-hog, gt-sleep and gt-pipe with
#                          non-zero execution time (a Go 1.22+ trace: and gt-pipe's page
#                          its blocked reads, see below). Old Go's /goroutines lists group names
#                          only: each group's page /goroutine?id=PC must show a goroutine
#                          with a non-zero Execution column. Go 1.23's and 1.27's
#                          /goroutines is a table with each group's total execution time.
#   goV annotations        the user annotation pages: /usertasks lists task type gt-views
#                          with a complete task of at least 1 s (its histogram bucket; the
#                          workload runs 1.5 s at least); /userregions lists region type
#                          gt-views-sleep whose first frame is gt-sleep (the program of the
#                          thread it ran on), and its page /userregion?type=..&pc=PC a
#                          region of at least 1 s (gt-sleep sleeps 500 times 3 ms).
#
# Correct profiles: for each profile test, the events and delay summed over all the samples
# it looks for must be the same for Go 1.27 as for the old parser (delays to 0.1% plus 1 us
# an event: converters round differently), and for Go 1.23 in sync and net. Go 1.23's
# syscall and sched profiles are exempt, explicitly: Go 1.22-1.25 misreport both for these
# traces (golang/go#74850, fixed in 1.26: a syscall ends only at the goroutine's next event
# with a stack, so most of gt-pipe's reads go missing, and waits are charged up to such an
# event). On the views traces Go 1.23 showed 1-4 read events where Go 1.21 and 1.27 show
# ~150, and a [futex, gt-mutex] sched delay 3-5x theirs; it still finds the samples above.
# Comparing whole profiles would not work: the old parser and the converter count different
# events as scheduler latency (1.27 charges preemptions, 1.21 page faults and forks).
# A passing test is followed by what it found as "# " lines.
#
# Go 1.22+ traces are read natively by Go 1.26 and 1.27 (scripts/setup/go-fetch.sh), each with
# sync, net and sched as above, goroutines as Go 1.23's, and
#   goV waker              -pprof=sched: a sample [write, gt-pipe-timer]: gt-pipe blocks in
#                          read() and gt-pipe-timer's write() wakes it; this format carries
#                          the waker's stack of a system call's wakeup (the old one cannot).
# and no syscall test: gotrace writes no system-call events in this format (a thread
# blocked in read() is a goroutine waiting with reason "read", so that its waker can be
# shown), so Go's syscall profile of these traces is empty by design (Documentation:
# "Go 1.22's format"). What users open instead is checked in goroutines: gt-pipe's page
# (/goroutine?name=gt-pipe) sums its goroutines' "Block time (read)" to at least 1 s and
# to `gotrace stats`' system call time of gt-pipe within 1 %. The reference for agreement
# is Go 1.26: 1.27 must find the same.
#
# Frames: default mode stacks are exactly [reason, program]: the futex, network and read
# frames above must be the syscall names (futex; accept, accept4, recvfrom, recvmsg,
# recvmmsg, connect, sendto, sendmsg, poll, ppoll, select, pselect6, epoll_wait,
# epoll_pwait, epoll_pwait2; read). kstacks mode stacks are kernel functions (file vmlinux
# or a module name) then the program: those frames must be kernel functions whose name
# contains futex; accept, recv, poll, select, epoll, connect, send, tcp_, inet_, sk_wait
# or sock; read (e.g. futex_wait_queue, inet_csk_accept, pipe_read).
#
# Profiles are read with the same Go's `pprof -raw -symbolize=none` (its Locations list the
# exact function and file names; -top and -traces shorten names such as "(interrupt)");
# each profile's `pprof -top` head is printed as "# " lines after its test.
#
# Environment: as go-check.sh (GO_1_19, GO_1_21, GO_1_23, GO_1_27, GO_CHECK_TIMEOUT), and
# GOTRACE, the gotrace command (default userspace/gotrace: make -C userspace builds it).
set -eu

PROG=${0##*/}
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib/go-trace-lib.sh
. "$HERE/../lib/go-trace-lib.sh"

if [ $# -eq 0 ]; then
	echo "usage: $PROG DIR_OR_FILE... (checks every views-*.trace with Go's profiles; prints TAP)" >&2
	exit 2
fi
check_timeout
need_commands python3 timeout
GOTRACE=${GOTRACE:-$HERE/../../userspace/gotrace}
[ -x "$GOTRACE" ] || bail "$GOTRACE not found: run make -C userspace, or point GOTRACE at the gotrace command"
export GOTRACE
collect_traces 'views-*.trace' "$@"
make_work views-check
find_go_tools

# Go's profiles and pages are read by scripts/lib/views_pages.py (its docstring: the commands).
VIEWS_PY=$HERE/../lib/views_pages.py

# The frames each profile must show, per mode: "OUTER FRAME" (full-match regexes).
NET_CALLS='accept4?|recvfrom|recvmsg|recvmmsg|connect|sendto|sendmsg|poll|ppoll|select|pselect6|epoll_wait|epoll_pwait2?'
declare -A WANT=(
	[default sync]='gt-mutex futex'
	[default net]="gt-tcp-(srv|cli) ($NET_CALLS)"
	[default syscall]='gt-pipe read'
	[default sched]='gt-mutex futex'
	[kstacks sync]='gt-mutex .*futex.*'
	[kstacks net]='gt-tcp-(srv|cli) .*(accept|recv|poll|select|epoll|connect|send|tcp_|inet_|sk_wait|sock).*'
	[kstacks syscall]='gt-pipe .*read.*'
	[kstacks sched]='gt-mutex futex'
	[default waker]='gt-pipe-timer write'
	[kstacks waker]='gt-pipe-timer write'
)
# Unblocks carry the waker's cheap stack in both modes (waker: the sched profile's).
SCHED_MODE=default
PROGRAMS="gt-mutex gt-hog gt-sleep gt-pipe"

# profile GO TOOLS TRACE MODE KIND: `trace -pprof=KIND`, read with pprof -raw, assert the
# wanted frames; 0 if found. Diagnostics in $W/diag, the -top head in $W/top.
profile() {
	local v=$1 tools=$2 file=$3 mode=$4 kind=$5 st=0 want smode=$4 pkind=$5
	local prof=$W/$kind.prof
	: >"$W/top"
	[ "$kind" != waker ] || pkind=sched
	if ! timeout "$TIMEOUT" "$tools/trace" -pprof="$pkind" "$file" </dev/null >"$prof" 2>"$W/err"; then
		{ echo "go$v 'trace -pprof=$pkind' failed; stderr:"; cat "$W/err"; } >"$W/diag"
		return 1
	fi
	if ! timeout "$TIMEOUT" "$tools/pprof" -raw -symbolize=none "$prof" >"$W/raw" 2>"$W/err"; then
		{ echo "go$v pprof -raw cannot read the $pkind profile; stderr:"; cat "$W/err"; } >"$W/diag"
		return 1
	fi
	timeout "$TIMEOUT" "$tools/pprof" -top -nodecount=8 -symbolize=none "$prof" 2>/dev/null |
		sed -n '/flat%/,$p' >"$W/top" || true
	[ "$kind" != sched ] && [ "$kind" != waker ] || smode=$SCHED_MODE
	want=${WANT[$mode $kind]}
	python3 "$VIEWS_PY" stack "$W/raw" "$smode" "${want%% *}" "${want#* }" >"$W/diag" 2>&1 || st=1
	return $st
}

# agree GO KIND: after profile passed, compare the totals it found (events and delay of all
# the samples the test looks for) with the reference, the old parser's (OLD comes first);
# 0 if they agree, notes appended to $W/diag either way. Exceptions, all explicit:
#   - Go 1.23's syscall and sched profiles are not compared: Go 1.22-1.25 misreport both
#     for these traces (golang/go#74850: a syscall ends only at the goroutine's next event
#     with a stack, so most reads go missing, and waits are charged up to such an event);
#     seen on the views traces: 1-4 reads instead of ~150, sched delay 3-5x the old
#     parser's. Go 1.26+ fixed it: 1.27 must agree.
#   - The syscall profile of a correct Go (old, 1.27) must hold >= 10 events: gt-pipe reads
#     a pipe written every 10 ms for the whole run.
agree() {
	local v=$1 kind=$2 tot n d rn rd
	tot=$(sed -n 's/^all [0-9]* such samples: \([0-9]*\) events, \([0-9]*\) ns$/\1 \2/p' "$W/diag")
	if [ -z "$tot" ]; then
		echo "no 'all N such samples' totals in the profile check's output" >>"$W/diag"
		return 1
	fi
	read -r n d <<<"$tot"
	if [ "$v" = 1.23 ] && { [ "$kind" = syscall ] || [ "$kind" = sched ]; }; then
		echo "not compared with go$OLD: Go 1.22-1.25 misreport the $kind profile of these traces (golang/go#74850)" >>"$W/diag"
		return 0
	fi
	if [ "$kind" = syscall ] && [ "$n" -lt 10 ]; then
		echo "only $n syscall events: gt-pipe reads every 10 ms; a correct profile has >= 10" >>"$W/diag"
		return 1
	fi
	if [ "$v" = "$OLD" ]; then
		echo "$tot" >"$W/ref-$kind"
		return 0
	fi
	if [ ! -s "$W/ref-$kind" ]; then
		echo "go$OLD's $kind check failed: nothing to compare with" >>"$W/diag"
		return 1
	fi
	read -r rn rd <"$W/ref-$kind"
	# Same events; delays to 0.1% plus 1 us an event (converters round differently).
	if [ "$n" -ne "$rn" ] || [ $(((d > rd ? d - rd : rd - d) * 1000)) -gt $(((d > rd ? d : rd) + 1000000 * n)) ]; then
		echo "disagrees with go$OLD (the old parser): $n events, $d ns here; $rn events, $rd ns there" >>"$W/diag"
		return 1
	fi
	echo "agrees with go$OLD: $rn events, $rd ns" >>"$W/diag"
	return 0
}

# annotations GO TOOLS TRACE: the user task and region pages show the workload's task and
# gt-sleep's region (see above); 0 if so. Diagnostics in $W/diag.
annotations() {
	local v=$1 tools=$2 file=$3 pc st=0
	: >"$W/problems"
	serve_trace "$tools/trace" "$file" || { cp "$W/problems" "$W/diag"; return 1; }
	if get_ok /usertasks; then
		python3 "$VIEWS_PY" tasks "$W/body" gt-views 1 >>"$W/problems" 2>&1 || st=1
	else
		st=1
	fi
	if ! get_ok /userregions; then
		st=1
	elif ! python3 "$VIEWS_PY" regions "$W/body" gt-views-sleep gt-sleep >"$W/pc" 2>&1; then
		cat "$W/pc" >>"$W/problems"
		st=1
	else
		pc=$(cat "$W/pc")
		if get_ok "/userregion?type=gt-views-sleep&pc=$pc"; then
			echo "region type gt-views-sleep of gt-sleep (pc $pc):" >>"$W/problems"
			python3 "$VIEWS_PY" region "$W/body" 1 >>"$W/problems" 2>&1 || st=1
		else
			st=1
		fi
	fi
	if ! stop_server; then
		problem "go$v trace server died (status $SRV_STATUS) while serving the pages"
		st=1
	fi
	cp "$W/problems" "$W/diag"
	return $st
}

# pipe_read_seconds TRACE: gt-pipe's time blocked in system calls, as gotrace stats --json
# counts it, in seconds.
pipe_read_seconds() {
	"$GOTRACE" stats --json "$1" | python3 -c '
import json, sys
p = [p for p in json.load(sys.stdin)["programs"] if p["program"] == "gt-pipe"]
print(p[0]["blocked_ns"]["syscall"] / 1e9 if p else 0)'
}

# goroutines GO TOOLS TRACE FLAVOR: the goroutine analysis page shows each of $PROGRAMS
# with execution time and, for a Go 1.22+ trace, gt-pipe's page its reads as "Block time
# (read)", at least 1 s and gotrace stats' system call time within 1 %; 0 if so.
# Diagnostics in $W/diag.
goroutines() {
	local v=$1 tools=$2 file=$3 flavor=$4 name pc st=0
	: >"$W/problems"
	: >"$W/diag"
	serve_trace "$tools/trace" "$file" || return 1
	if get_ok /goroutines; then
		cp "$W/body" "$W/groups.html"
		# shellcheck disable=SC2086 # PROGRAMS is a list of words
		if [ "$flavor" = new ]; then
			python3 "$VIEWS_PY" groups-new "$W/groups.html" $PROGRAMS >>"$W/problems" 2>&1 || st=1
			# A 1.22+ trace's blocked read() is a block named by the call: gt-pipe's
			# page has it as "Block time (read)", gotrace stats' syscall time.
			if [ -n "$VERSION" ] && [ "$VERSION" -ge 22 ]; then
				if get_ok "/goroutine?name=gt-pipe"; then
					python3 "$VIEWS_PY" group-new "$W/body" gt-pipe "Block time (read)" 1 \
						"$(pipe_read_seconds "$file")" >>"$W/problems" 2>&1 || st=1
				else
					st=1
				fi
			fi
		elif ! python3 "$VIEWS_PY" groups-old "$W/groups.html" $PROGRAMS >"$W/pcs" 2>&1; then
			cat "$W/pcs" >>"$W/problems"
			st=1
		else
			while read -r name pc; do
				get_ok "/goroutine?id=$pc" || { st=1; continue; }
				python3 "$VIEWS_PY" group-old "$W/body" "$name" >>"$W/problems" 2>&1 || st=1
			done <"$W/pcs"
		fi
	else
		st=1
	fi
	if ! stop_server; then
		problem "go$v trace server died (status $SRV_STATUS) while serving the pages"
		st=1
	fi
	cp "$W/problems" "$W/diag"
	return $st
}

# mode_of TRACE: MODE = default or kstacks, from the file name.
mode_of() {
	case ${1##*/} in
	views-kstacks-* | *kstacks*) MODE=kstacks ;;
	*) MODE=default ;;
	esac
}

# The Gos and profiles of each trace's checks: sets VERSIONS, KINDS, OLD, OLD_TOOLS,
# HDR_PROBLEM (trace_old_tools; for a Go 1.22+ trace OLD is Go 1.26, the reference).
plan_of() {
	trace_old_tools "$1"
	# "none": no old parser reads it (HDR_PROBLEM says why); its tests fail.
	VERSIONS="${OLD:-none} 1.23 1.27" KINDS="sync net syscall sched"
	if [ -n "$VERSION" ] && [ "$VERSION" -ge 22 ]; then
		OLD=1.26 OLD_TOOLS=${TOOLS_1_26:-}
		VERSIONS="1.26 1.27" KINDS="sync net sched waker"
	fi
}

echo "TAP version 13"
plan=0
for t in "${TRACES[@]}"; do
	plan_of "$t"
	if [ "$OLD" = 1.26 ] && [ -z "${TOOLS_1_26:-}" ]; then
		fetched_tools 1.26
		plan_of "$t"
	fi
	# shellcheck disable=SC2086 # lists of words
	nv=$(set -- $VERSIONS && echo $#) nk=$(set -- $KINDS && echo $#)
	plan=$((plan + 1 + nv * (nk + 2)))
done
echo "1..$plan"

i=0
for t in "${TRACES[@]}"; do
	i=$((i + 1))
	W=$WORK/$i
	mkdir "$W"
	mode_of "$t"
	echo "# $t: $MODE stacks"

	st=0
	python3 "$HERE/addr_scan.py" "$t" >"$W/diag" 2>&1 || st=1
	report "$st" "no raw kernel address: $t" "$W/diag"

	plan_of "$t"
	for v in $VERSIONS; do
		[ "$v" != none ] || v=''
		case $v in
		1.23) tools=$TOOLS_1_23 flavor=new ;;
		1.26) tools=$TOOLS_1_26 flavor=new ;;
		1.27) tools=$TOOLS_1_27 flavor=new ;;
		*) tools=$OLD_TOOLS flavor=old ;;
		esac
		for kind in $KINDS; do
			st=0
			if [ -z "$v" ]; then
				echo "$HDR_PROBLEM" >"$W/diag"
				st=1
			else
				profile "$v" "$tools" "$t" "$MODE" "$kind" || st=1
				[ "$st" -ne 0 ] || agree "$v" "$kind" || st=1
			fi
			report "$st" "go${v:-1.??} $kind ($MODE): $t" "$W/diag"
			[ "$st" -ne 0 ] || sed 's/^/# /' "$W/diag"
			if [ "$(wc -l <"$W/top")" -gt 1 ]; then
				sed 's/^/# top: /' "$W/top"
			fi
		done
		st=0
		if [ -z "$v" ]; then
			echo "$HDR_PROBLEM" >"$W/diag"
			st=1
		else
			goroutines "$v" "$tools" "$t" "$flavor" || st=1
		fi
		report "$st" "go${v:-1.??} goroutines: $t" "$W/diag"
		[ "$st" -ne 0 ] || sed 's/^/# /' "$W/diag"
		st=0
		if [ -z "$v" ]; then
			echo "$HDR_PROBLEM" >"$W/diag"
			st=1
		else
			annotations "$v" "$tools" "$t" || st=1
		fi
		report "$st" "go${v:-1.??} annotations: $t" "$W/diag"
		[ "$st" -ne 0 ] || sed 's/^/# /' "$W/diag"
	done
	rm -rf "$W"
done

if [ "$FAILED" -ne 0 ]; then
	echo "# $FAILED of $N checks failed" >&2
	exit 1
fi
exit 0
