#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of the join oracle: a throttled Go program traced by itself, gotrace and ftrace.
#
# Runs in the busybox guest as root (scripts/oracles/join-oracle.sh boots it). Environment:
#   KVER                 the kernel the guest must be running
#   GOTRACE_KO           gotrace.ko built for it
#   GOTRACE_BIN          directory of the static gotrace CLI and joinapp-GOVERSION, the
#                        Go program selftests/joinapp built by each Go
#   GOTRACE_JOIN_DIR     where each run's files go, in a directory named after the run
#   GOTRACE_JOIN_RUNS    the runs, NAME:GOVERSION:DURATION each (default
#                        "go1.23:1.23:2s go1.27:1.27:2s")
#   GOTRACE_JOIN_BUFFER_KB  ftrace's buffer per CPU (default 32768)
#   GOTRACE_JOIN_RECORD_ARGS  more gotrace record arguments, e.g. "--pid 1" for a
#                        MACHINE that leaves the program out (default none)
#
# The program runs in a cgroup of its own whose cpu.max is "20000 100000" (20 % of a CPU):
# it spins on two goroutines, so the quota runs out and its threads are throttled. A shell
# busy loop outside the cgroup, pinned to CPU 0, competes with it there: on CPU 0 its
# threads wait for a CPU another thread has, on CPU 1 they wait on an idle CPU.
# For each run, gotrace record (--format 1.26 --clock mono, the whole machine) and ftrace
# (sched_switch, sched_wakeup, sched_waking, sched_wakeup_new with trace_clock mono and the
# tgid) record from before the program starts until after it ends. NAME/ then holds:
#   app.trace      the program's own runtime trace (-trace, -duration DURATION)
#   machine.trace  gotrace record's trace of the whole machine
#   ftrace.txt     ftrace's text (trace_clock mono: its times are CLOCK_MONOTONIC)
#   pid, tids      the program's process id and its thread ids (one line each)
#   cpu.stat.before, cpu.stat.after   the cgroup's cpu.stat before and after the run
#   app.out, record.txt, ftrace.stats  the program's output, record's, ftrace's per-CPU stats
# Checks per run (TAP on stdout): the program and gotrace record exited 0, record
# recorded every event, ftrace lost nothing, the cgroup was throttled, the files are there.

BIN=${GOTRACE_BIN:-$(dirname "$0")}
RUNS=${GOTRACE_JOIN_RUNS:-go1.23:1.23:2s go1.27:1.27:2s}
BUFFER_KB=${GOTRACE_JOIN_BUFFER_KB:-32768}
T=/sys/kernel/tracing
CG=/sys/fs/cgroup
APPCG=$CG/joinapp
EVENTS="sched/sched_switch sched/sched_wakeup sched/sched_waking sched/sched_wakeup_new"

num=0
failed=0

result() {
	num=$((num + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $num - $2"
	else
		echo "not ok $num - $2"
		failed=$((failed + 1))
	fi
}

bail() {
	echo "Bail out! join_guest.sh: $*"
	exit 1
}

setup_ftrace() {
	[ -d "$T/events" ] || mount -t tracefs tracefs "$T" || return 1
	echo 0 > "$T/tracing_on" &&
		echo nop > "$T/current_tracer" &&
		echo mono > "$T/trace_clock" &&
		echo 1 > "$T/options/record-tgid" &&
		echo "$BUFFER_KB" > "$T/buffer_size_kb" || return 1
	echo > "$T/set_event"
	for e in $EVENTS; do
		echo 1 > "$T/events/$e/enable" || return 1
	done
	echo "# ftrace: clock $(cat "$T/trace_clock"), $(cat "$T/buffer_size_kb") KiB per CPU," \
		"events: $(tr '\n' ' ' < "$T/set_event")"
}

# The cgroup joinapp with cpu.max 20 ms every 100 ms.
setup_cgroup() {
	[ -f "$CG/cgroup.controllers" ] || mount -t cgroup2 none "$CG" || return 1
	echo +cpu > "$CG/cgroup.subtree_control" || return 1
	[ -d "$APPCG" ] || mkdir "$APPCG" || return 1
	echo "20000 100000" > "$APPCG/cpu.max" || return 1
	echo "# cgroup $APPCG: cpu.max $(cat "$APPCG/cpu.max")"
}

# The sum of one field ("overrun", "dropped events") over every CPU's stats in file $2.
stat_sum() {
	awk -F: -v f="$1" '$1 == f { n += $2 } END { print n + 0 }' "$2"
}

# cpu.stat's field $1 in file $2.
cpu_stat() {
	awk -v f="$1" '$1 == f { print $2 }' "$2"
}

# run_one NAME GOVERSION DURATION
run_one() {
	name=$1 gov=$2 dur=$3
	out=$GOTRACE_JOIN_DIR/$name
	app=$BIN/joinapp-$gov
	rm -rf "$out" /tmp/join
	mkdir -p "$out" /tmp/join
	[ -x "$app" ] || { result 1 "$name: $app is there"; return; }
	echo > "$T/trace"
	echo 1 > "$T/tracing_on"
	# shellcheck disable=SC2086 # GOTRACE_JOIN_RECORD_ARGS: one word per argument
	"$BIN/gotrace" record -q --clock mono --format 1.26 ${GOTRACE_JOIN_RECORD_ARGS:-} \
		-o /tmp/join/machine.trace > "$out/record.txt" 2>&1 &
	rec=$!
	sleep 0.3
	cat "$APPCG/cpu.stat" > "$out/cpu.stat.before"
	rc=0
	sh -c "echo \$\$ > '$APPCG/cgroup.procs' &&
		exec '$app' -trace /tmp/join/app.trace -duration '$dur' -scratch /tmp/join/fsync" \
		> "$out/app.out" 2>&1 || rc=$?
	cat "$APPCG/cpu.stat" > "$out/cpu.stat.after"
	sleep 0.2
	kill -INT "$rec"
	rrc=0
	wait "$rec" || rrc=$?
	echo 0 > "$T/tracing_on"
	sed 's/^/# /' "$out/app.out" "$out/record.txt"
	result "$rc" "$name: joinapp-$gov -duration $dur in the throttled cgroup exited 0"
	notrec=$(sed -n 's/.* \([0-9][0-9]*\) events not recorded.*/\1/p' "$out/record.txt" | tail -n 1)
	[ "$rrc" -eq 0 ] && [ "${notrec:-x}" = 0 ]
	result $? "$name: gotrace record exited 0 and recorded every event (status $rrc, not recorded: ${notrec:-?})"
	for s in "$T"/per_cpu/cpu*/stats; do
		echo "${s%/stats}:"
		cat "$s"
	done > "$out/ftrace.stats"
	cat "$T/trace" > "$out/ftrace.txt"
	overrun=$(stat_sum overrun "$out/ftrace.stats")
	dropped=$(stat_sum "dropped events" "$out/ftrace.stats")
	lost=$(grep -c 'LOST.*EVENTS' "$out/ftrace.txt")
	echo "# $name: ftrace: $(grep -vc '^#' "$out/ftrace.txt") entries, overrun $overrun, dropped $dropped, LOST lines $lost"
	[ "$overrun" -eq 0 ] && [ "$dropped" -eq 0 ] && [ "$lost" -eq 0 ]
	result $? "$name: ftrace lost nothing (overrun 0, dropped events 0 on every CPU)"
	before=$(cpu_stat nr_throttled "$out/cpu.stat.before")
	after=$(cpu_stat nr_throttled "$out/cpu.stat.after")
	usec=$(($(cpu_stat throttled_usec "$out/cpu.stat.after") - $(cpu_stat throttled_usec "$out/cpu.stat.before")))
	[ "$after" -gt "$before" ]
	result $? "$name: the cgroup was throttled ($((after - before)) times, $usec us)"
	sed -n 's/^pid \([0-9]*\)$/\1/p' "$out/app.out" > "$out/pid"
	sed -n 's/^threads \(.*\)$/\1/p' "$out/app.out" > "$out/tids"
	cp /tmp/join/app.trace /tmp/join/machine.trace "$out/" 2>/dev/null
	[ -s "$out/pid" ] && [ -s "$out/tids" ] && [ -s "$out/app.trace" ] && [ -s "$out/machine.trace" ]
	result $? "$name: app.trace ($(wc -c < "$out/app.trace") bytes), machine.trace ($(wc -c < "$out/machine.trace") bytes), pid $(cat "$out/pid"), tids $(cat "$out/tids") saved"
	rm -rf /tmp/join
}

echo "TAP version 13"
echo "# kernel $(uname -r), $(nproc) CPUs"
[ -z "${KVER:-}" ] || [ "$(uname -r)" = "$KVER" ] || bail "running $(uname -r), expected $KVER"
[ -n "${GOTRACE_JOIN_DIR:-}" ] || bail "GOTRACE_JOIN_DIR is not set; name the output directory"
mkdir -p "$GOTRACE_JOIN_DIR" || bail "cannot create $GOTRACE_JOIN_DIR"
insmod "$GOTRACE_KO" || bail "insmod $GOTRACE_KO failed"
setup_ftrace || bail "cannot set up ftrace in $T"
setup_cgroup || bail "cannot set up the cgroup $APPCG (cgroup2 with the cpu controller)"
taskset -c 0 sh -c 'while :; do :; done' < /dev/null > /dev/null 2>&1 &
hog=$!
echo "# CPU hog on CPU 0: pid $hog"

for r in $RUNS; do
	name=${r%%:*} rest=${r#*:}
	run_one "$name" "${rest%%:*}" "${rest#*:}"
done

kill "$hog"
wait "$hog" 2>/dev/null
echo 0 > "$T/events/enable"
echo 4 > "$T/buffer_size_kb"
rmdir "$APPCG"
rmmod gotrace
result $? "rmmod gotrace"
echo "1..$num"
[ "$failed" -eq 0 ]
