#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of the ftrace oracle: each workload recorded by gotrace and ftrace at once.
#
# Runs in the busybox guest as root (scripts/oracles/ftrace-oracle.sh boots it). Environment:
#   KVER                the kernel the guest must be running
#   GOTRACE_KO          gotrace.ko built for it
#   GOTRACE_BIN         directory of the static gotrace CLI and oracle_workload
#   GOTRACE_TRACE_DIR   where each gotrace trace goes, as oracle-WORKLOAD.trace
#   GOTRACE_ORACLE_DIR  where ftrace's text (WORKLOAD.ftrace), its per-CPU stats
#                       (WORKLOAD.stats) and gotrace record's output (WORKLOAD.record) go
#   GOTRACE_ORACLE_WORKLOADS  the workloads (default: pingpong mutex sleepers tcp reuse
#                       flight)
#   GOTRACE_ORACLE_FORMATS    the trace formats each is recorded in (default: 1.21 1.26);
#                       a trace of format F other than 1.21 is named WORKLOAD-F
#   GOTRACE_ORACLE_BUFFER_KB  ftrace's buffer per CPU (default 65536)
#
# ftrace records sched_switch, sched_wakeup, sched_wakeup_new, sched_process_fork,
# sched_process_exit and task_rename with trace_clock mono (ktime_get_mono_fast_ns(), the
# clock gotrace's --clock mono reads: the guest's TSC is unstable), from before gotrace
# record starts until after it ends. For each workload: gotrace record exits 0 and
# recorded every event, ftrace lost nothing (overrun and dropped events 0 on every CPU,
# no "LOST EVENTS" line). TAP on stdout.
#
# The workload "flight" is a flight recorder's, once (format 1.26): gotrace record --flight
# with rings small enough to overwrite their oldest generations (FLIGHT_OPTS) runs three
# ping-pongs, one after the other, and takes a snapshot on SIGUSR1 2 s into them, then a
# mutex storm, a snapshot asked by gotrace snapshot, a ping-pong, and the snapshot at the end; the snapshots are
# oracle-flight-N.trace, ftrace's text of the whole flight.ftrace. Besides the checks
# above: at least 3 snapshots, chunks overwritten, each snapshot starting at a generation
# past 1 (scripts/oracles/ftrace-compare.py compares each with ftrace inside its window).

BIN=${GOTRACE_BIN:-$(dirname "$0")}
WORKLOADS=${GOTRACE_ORACLE_WORKLOADS:-pingpong mutex sleepers tcp reuse flight}
FORMATS=${GOTRACE_ORACLE_FORMATS:-1.21 1.26}
BUFFER_KB=${GOTRACE_ORACLE_BUFFER_KB:-65536}
# A generation takes a page of each CPU's ring at least: 20 a second fill 128 KiB (32
# pages) in 1.6 s, less than the ping-pong before the first snapshot.
FLIGHT_OPTS="--flight 2s --buffer-size 128K --gen-period 0.05"
T=/sys/kernel/tracing
EVENTS="sched/sched_switch sched/sched_wakeup sched/sched_wakeup_new sched/sched_process_fork
sched/sched_process_exit task/task_rename"

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
	echo "Bail out! ftrace_guest.sh: $*"
	exit 1
}

# Each file's lines as TAP comments.
comment() {
	sed 's/^/# /' "$@"
}

setup_ftrace() {
	[ -d "$T/events" ] || mount -t tracefs tracefs "$T" || return 1
	echo 0 > "$T/tracing_on" &&
		echo nop > "$T/current_tracer" &&
		echo mono > "$T/trace_clock" &&
		echo "$BUFFER_KB" > "$T/buffer_size_kb" || return 1
	echo > "$T/set_event"
	for e in $EVENTS; do
		echo 1 > "$T/events/$e/enable" || return 1
	done
	echo "# ftrace: clock $(cat "$T/trace_clock"), $(cat "$T/buffer_size_kb") KiB per CPU," \
		"events: $(tr '\n' ' ' < "$T/set_event")"
}

# The sum of one field ("overrun", "dropped events") over every CPU's stats in file $2.
stat_sum() {
	awk -F: -v f="$1" '$1 == f { n += $2 } END { print n + 0 }' "$2"
}

echo "TAP version 13"
echo "# kernel $(uname -r), $(nproc) CPUs"
[ -z "${KVER:-}" ] || [ "$(uname -r)" = "$KVER" ] || bail "running $(uname -r), expected $KVER"
mkdir -p "$GOTRACE_TRACE_DIR" "$GOTRACE_ORACLE_DIR" || bail "cannot create the output directories"
insmod "$GOTRACE_KO" || bail "insmod $GOTRACE_KO failed"
setup_ftrace || bail "cannot set up ftrace in $T"

# record_one NAME FORMAT WORKLOAD: gotrace record of WORKLOAD (oracle_workload's, or the
# flight recorder's) and ftrace at once; checks both.
record_one() {
	w=$1 f=$2 wl=$3
	trace=$GOTRACE_TRACE_DIR/oracle-$w.trace
	out=$GOTRACE_ORACLE_DIR/$w
	echo > "$T/trace"
	echo 1 > "$T/tracing_on"
	start=$(date +%s)
	rc=0
	if [ "$wl" = flight ]; then
		rm -f "$GOTRACE_TRACE_DIR"/oracle-flight*.trace
		# shellcheck disable=SC2086 # FLIGHT_OPTS is words
		"$BIN/gotrace" record -q --clock mono --format "$f" $FLIGHT_OPTS -o "$trace" -- \
			sh -c "w='$BIN/oracle_workload'; (\$w pingpong; \$w pingpong; \$w pingpong) &
				sleep 2; kill -USR1 \$PPID; wait
				\$w mutex; '$BIN/gotrace' snapshot; \$w pingpong" \
			> "$out.record" 2>&1 || rc=$?
	else
		"$BIN/gotrace" record -q --clock mono --format "$f" -o "$trace" -- \
			"$BIN/oracle_workload" "$wl" \
			> "$out.record" 2>&1 || rc=$?
	fi
	echo 0 > "$T/tracing_on"
	echo "# $w: $(($(date +%s) - start)) s"
	comment "$out.record"
	for s in "$T"/per_cpu/cpu*/stats; do
		echo "${s%/stats}:"
		cat "$s"
	done > "$out.stats"
	cat "$T/trace" > "$out.ftrace"
	overrun=$(stat_sum overrun "$out.stats")
	dropped=$(stat_sum "dropped events" "$out.stats")
	lost=$(grep -c 'LOST.*EVENTS' "$out.ftrace")
	echo "# $w: ftrace: $(grep -vc '^#' "$out.ftrace") entries, overrun $overrun, dropped $dropped, LOST lines $lost"
	[ "$overrun" -eq 0 ] && [ "$dropped" -eq 0 ] && [ "$lost" -eq 0 ]
	result $? "$w: ftrace lost nothing (overrun 0, dropped events 0 on every CPU)"
	# "..., N events not recorded" is record's summary.
	notrec=$(sed -n 's/.* \([0-9][0-9]*\) events not recorded.*/\1/p' "$out.record" | tail -n 1)
	[ "$rc" -eq 0 ] && [ "${notrec:-x}" = 0 ]
	result $? "$w: gotrace record exited 0 and recorded every event (not recorded: ${notrec:-?})"
	if [ "$wl" = flight ]; then
		flight_checks
	else
		[ -s "$trace" ] && [ -s "$out.ftrace" ]
		result $? "$w: both traces saved"
	fi
}

# The flight recorder's snapshots: renamed oracle-flight-N.trace; at least 3 (SIGUSR1,
# gotrace snapshot, the end), rings that overwrote, each past generation 1.
flight_checks() {
	n=0
	for i in 1 2 3 4 5 6 7 8 9; do
		[ -s "$GOTRACE_TRACE_DIR/oracle-flight.$i.trace" ] || break
		mv "$GOTRACE_TRACE_DIR/oracle-flight.$i.trace" "$GOTRACE_TRACE_DIR/oracle-flight-$i.trace"
		n=$i
	done
	[ "$n" -ge 3 ] && [ -s "$out.ftrace" ]
	result $? "$w: $n snapshots (3 or more: SIGUSR1, gotrace snapshot, the end) and ftrace's text saved"
	chunks=$(sed -n 's/.* \([0-9][0-9]*\) buffer chunks overwritten.*/\1/p' "$out.record" | tail -n 1)
	[ "${chunks:-0}" -gt 0 ]
	result $? "$w: the rings overwrote their oldest generations (${chunks:-no} chunks)"
	gens=$(sed -n 's/.*wrote .*: generations \([0-9][0-9]*\) to.*/\1/p' "$out.record" | tr '\n' ' ')
	bad=$(for g in $gens; do [ "$g" -gt 1 ] || echo "$g"; done)
	[ -n "$gens" ] && [ -z "$bad" ]
	result $? "$w: every snapshot starts past generation 1 (first generations: ${gens:-none})"
}

for f in $FORMATS; do
	for wl in $WORKLOADS; do
		[ "$wl" != flight ] || continue
		# As ftrace-oracle.sh names them: WORKLOAD, or WORKLOAD-FORMAT past 1.21.
		w=$wl
		[ "$f" = 1.21 ] || w=$wl-$f
		record_one "$w" "$f" "$wl"
	done
done
for wl in $WORKLOADS; do
	[ "$wl" != flight ] || record_one flight 1.26 flight
done

echo 0 > "$T/events/enable"
echo 4 > "$T/buffer_size_kb"
rmmod gotrace
result $? "rmmod gotrace"
echo "1..$num"
[ "$failed" -eq 0 ]
