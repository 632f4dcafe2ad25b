#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The flight recorder's service as a user runs it: gotrace-flight.service of the installed
# gotrace package, enabled with systemctl in a Debian 12 guest booted with systemd as init.
# A stall's snapshot and its hook's output in the journal, a request with a reason, the
# journal's priorities, systemctl reload, 200 snapshots under a quota, a full file system,
# failing and hanging hooks, kill -9 and systemd's restart, a DKMS rebuild of the module,
# systemctl stop, and the unit's exposure (systemd-analyze security).
#
# Usage: selftests/service_guest.sh STALL REBUILT OUT [JOURNAL]
# Runs as root in the guest of scripts/vm/vm.sh --root-disk (scripts/suites/deb-check.sh
# makes the disk: the root its packages were installed in). STALL: stall_helper, static.
# REBUILT: the installed gotrace.ko with another build id, as if DKMS had rebuilt it.
# OUT: where the snapshots are copied (some before they are removed, and all those kept at
# the end), for Go's readers on the host; JOURNAL: where the units' journal goes at the end
# (default OUT/../journal.log). Prints "RESULT STATUS DESCRIPTION" for each check and "# "
# comments; deb-check.sh makes TAP of them.

STALL=$1
REBUILT=$2
OUT=$3
JOURNAL=${4:-$OUT/../journal.log}
CONF=/etc/gotrace/flight.conf
SNAPS=/var/lib/gotrace
UNIT=gotrace-flight
T=/run/service-guest
mkdir -p "$T" "$OUT"

# check DESCRIPTION COMMAND...: a result from COMMAND's exit status; its output in
# comments if it failed.
check() {
	desc=$1
	shift
	if "$@" > "$T/check.out" 2>&1; then
		echo "RESULT 0 $desc"
	else
		echo "RESULT 1 $desc"
		head -n 20 "$T/check.out" | sed 's/^/# /'
	fi
}

# journal: the journal of the unit and of gotrace-module.service (which loads the module for
# it) since this boot, message text only.
journal() {
	journalctl -b -q -u "$UNIT" -u gotrace-module -o cat "$@"
}

# logged PATTERN [SECONDS]: waits (default 15 s) until a line of the unit's journal
# matches PATTERN; prints that line.
logged() {
	i=0
	while [ $i -lt $((${2:-15} * 5)) ]; do
		if journal | grep -e "$1" > "$T/logged"; then
			tail -n 1 "$T/logged"
			return 0
		fi
		sleep 0.2
		i=$((i + 1))
	done
	echo "the journal of $UNIT does not say: $1"
	journal | tail -n 10
	return 1
}

# conf KEY=VALUE...: the test's configuration (service_test.conf, beside this script, and
# a hook), with these keys changed or added.
conf() {
	{
		cat "$(dirname "$0")/service_test.conf"
		# shellcheck disable=SC2016 # the hook's shell expands them
		echo 'hook = echo "hook $GOTRACE_CAUSE $GOTRACE_FILE $GOTRACE_COMM $GOTRACE_TID$GOTRACE_REASON"'
		for kv in "$@"; do
			echo "$kv"
		done
	} > "$CONF"
}

# reload KEY=VALUE...: that configuration, applied by systemctl reload.
reload() {
	n=$(journal | grep -c "^reloaded $CONF\$")
	conf "$@"
	systemctl reload "$UNIT" &&
		logged "^reloaded $CONF\$" > /dev/null &&
		until [ "$(journal | grep -c "^reloaded $CONF\$")" -gt "$n" ]; do sleep 0.2; done
}

# newest CAUSE: the newest snapshot whose cause starts with CAUSE (a file name).
newest() {
	(cd "$SNAPS" && printf '%s\n' *) | grep "^[0-9]\{8\}T[0-9]\{6\}\.[0-9]\{3\}Z_[^_]*_$1" | tail -n 1
}

# keep NAME: a copy of snapshot NAME for the host.
keep() {
	[ -n "$1" ] && cp "$SNAPS/$1" "$OUT/$1"
}

# ask REASON: gotrace snapshot --reason REASON, again while the last request is under a
# second old (the module takes one a second).
ask() {
	i=0
	until gotrace snapshot --reason "$1"; do
		i=$((i + 1))
		[ $i -lt 10 ] || return 1
		sleep 0.5
	done
}

# loaded_build: the loaded module's build id, 12 hex digits (after the note's header).
loaded_build() {
	od -An -tx1 /sys/module/gotrace/notes/.note.gnu.build-id | tr -d ' \n' | cut -c33-44
}

# sessions: the sessions the module started, from status --json.
sessions() {
	gotrace status --json | sed -n 's/.*"sessions": \([0-9]*\).*/\1/p'
}

echo "# $(uname -r), $(nproc) CPUs, systemd $(systemctl --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p'), pid_max $(cat /proc/sys/kernel/pid_max)"
# This runs in a unit ordered after multi-user.target: the system is up, but for this unit.
systemctl --failed --plain --no-legend | sed 's/^/# failed unit: /'
check "the system is up under systemd (multi-user.target)" systemctl is-active -q multi-user.target
check "the unit is installed, not enabled" test "$(systemctl is-enabled "$UNIT")" = disabled
check "the module is not loaded before it is enabled" sh -c "! grep -q '^gotrace ' /proc/modules"

# Enabled and started as gotrace(8) says; its ExecStartPre loads the DKMS-built module.
conf
check "systemctl enable --now $UNIT" systemctl enable --now "$UNIT"
check "it records" logged "^recording: a flight recorder of 2 s, 1024 KiB"
check "gotrace-module.service loaded the DKMS-built module" grep -q '^gotrace ' /proc/modules
pid=$(systemctl show -P MainPID "$UNIT")
first=$(sessions)

# A stall (three: another thread may fire first): the victim's snapshot and the hook's output.
"$STALL" 400 3 1500 > "$T/stall.out"
victim=$(sed -n 's/^victim //p' "$T/stall.out")
check "a latency snapshot names the victim ($victim)" \
	logged "^snapshot $SNAPS/[0-9T.]*Z_[^_]*_latency-gt-victim-$victim-[0-9]*ms\.trace"
f=$(newest "latency-gt-victim-$victim-")
keep "$f"
check "the hook's output is in the unit's journal" logged "^hook latency $SNAPS/$f gt-victim $victim\$"
check "the hook's exit is logged" logged "^hook for $SNAPS/$f exited 0"
check "the snapshot is the service's alone (0600, in a 0750 directory)" \
	test "$(stat -c %a "$SNAPS/$f") $(stat -c %a "$SNAPS")" = "600 750"

# A request with a reason, as a script makes it.
check "gotrace snapshot --reason" ask "slow checkout"
check "its snapshot names the asker and the reason" \
	logged "^snapshot $SNAPS/.*_request-gotrace-[0-9]*-slow-checkout\.trace"
keep "$(newest "request-gotrace-[0-9]*-slow-checkout")"
check "the hook has the reason" logged "^hook request $SNAPS/.*-slow-checkout\.trace  slow checkout\$"

# The journal's priorities: a failing hook at warning, snapshots at notice.
check "systemctl reload $UNIT (a hook that fails)" reload "hook = exit 3"
ask "failing hook"
check "the failing hook is logged, the file kept" \
	logged "hook for $SNAPS/.*-failing-hook\.trace failed: exit status 3; the file stays"
check "at priority warning" sh -c "journalctl -b -q -u $UNIT -o cat -p warning | grep -q 'failing-hook.trace failed'"
check "snapshots at priority notice, not above" \
	sh -c "journalctl -b -q -u $UNIT -o cat -p notice..notice | grep -q '^snapshot ' &&
		! journalctl -b -q -u $UNIT -o cat -p warning | grep -q '^snapshot '"
check "reloads keep the process" test "$(systemctl show -P MainPID "$UNIT")" = "$pid"

# A hook that hangs: killed after hook-timeout.
check "systemctl reload $UNIT (a hook that hangs)" reload "hook = sleep 60" "hook-timeout = 1s"
ask "hanging hook"
check "the hanging hook is killed after hook-timeout" \
	logged "hook for $SNAPS/.*-hanging-hook\.trace killed after hook-timeout by signal 15"

# 200 snapshots on a quota of 20 files and 256 KiB: the newest kept, each removal logged.
check "systemctl reload $UNIT (a quota)" reload "keep-count = 20" "keep-size = 256K" "hook ="
rss20=
asked=0
tries=0
cd "$T" || exit 1
while [ $asked -lt 200 ] && [ $tries -lt 4000 ]; do
	gotrace snapshot -d 100ms > /dev/null 2>&1 && asked=$((asked + 1))
	tries=$((tries + 1))
	[ $asked -eq 20 ] && [ -z "$rss20" ] && rss20=$(sed -n 's/^VmRSS:[^0-9]*\([0-9]*\).*/\1/p' "/proc/$pid/status")
done
check "200 snapshots taken ($tries tries)" test $asked -eq 200
rss200=$(sed -n 's/^VmRSS:[^0-9]*\([0-9]*\).*/\1/p' "/proc/$pid/status")
check "the service's memory stays flat: VmRSS $rss20 KiB after 20, $rss200 KiB after 200" \
	test "${rss200:-999999}" -le "$((${rss20:-0} + 256))"
sleep 1
kept=$(find "$SNAPS" -name '*.trace' | wc -l)
bytes=$(cat "$SNAPS"/*.trace | wc -c)
check "at most keep-count (20) kept: $kept" test "$kept" -le 20
check "at most keep-size (256 KiB) kept: $bytes bytes" test "$bytes" -le 262144
check "each removal logged, with its reason" \
	test "$(journal -p info..info | grep -c "^removed $SNAPS/.*: keep-")" -ge 180
last=$(journal | sed -n "s|^snapshot $SNAPS/\([^:]*\): .*|\1|p" | tail -n 1)
check "the newest ($last) is kept" test -f "$SNAPS/$last"
keep "$last"

# A full file system (a tiny one inside the state directory): the snapshot that does not fit
# is dropped and logged, the earlier one stays.
mkdir -p "$SNAPS/tiny"
mount -t tmpfs -o size=3m,mode=0750 tmpfs "$SNAPS/tiny"
check "systemctl reload $UNIT (a tiny file system)" reload "directory = $SNAPS/tiny"
ask roomy
check "a snapshot on the tiny file system" logged "^snapshot $SNAPS/tiny/.*-roomy\.trace"
before=$(ls "$SNAPS/tiny")
dd if=/dev/zero of="$SNAPS/tiny/filler" bs=64k > /dev/null 2>&1
sleep 1
ask full
check "no room: logged" logged "no room for a snapshot of .* the snapshot is dropped, the others stay"
check "at priority err" sh -c "journalctl -b -q -u $UNIT -o cat -p err..err | grep -q '^no room for a snapshot'"
check "the earlier snapshot stays ($before)" test -n "$before" -a -f "$SNAPS/tiny/$before"
[ -n "$before" ] && cp "$SNAPS/tiny/$before" "$OUT/"
check "systemctl reload $UNIT (back)" reload
umount "$SNAPS/tiny"

# kill -9: systemd restarts the service (Restart=on-failure), which takes over the flight
# recorder left behind (a restart snapshot) instead of leaking a second session.
n0=$(journal | grep -c "^recording: a flight recorder")
check "systemctl kill -s KILL $UNIT" systemctl kill -s KILL "$UNIT"
check "systemd restarts it" logged "_restart\.trace" 30
check "recording again" sh -c "[ \$(journalctl -b -q -u $UNIT -o cat | grep -c '^recording: a flight recorder') -gt $n0 ]"
restarts=$(systemctl show -P NRestarts "$UNIT")
check "systemd counts one restart ($restarts)" test "$restarts" = 1
check "one session more ($first, then $(sessions))" test "$(sessions)" = "$((first + 1))"
check "one flight recorder: the new process holds the device" \
	test "$(find /proc/[0-9]*/fd -lname /dev/gotrace 2>/dev/null | cut -d/ -f3 | sort -u |
		wc -l)" = 1
keep "$(newest restart)"

# A DKMS rebuild: another build installed while the service runs. A restart keeps the loaded
# one while a program holds the device, and replaces it once none does.
ko=/lib/modules/$(uname -r)/updates/dkms/gotrace.ko
was=$(loaded_build)
cp "$REBUILT" "$ko"
sh -c 'exec 3< /dev/gotrace-annotate; exec sleep 60' &
holder=$!
check "systemctl restart $UNIT (the device held)" systemctl restart "$UNIT"
check "the loaded build ($was) is kept, and why" \
	logged "^gotrace load: the loaded gotrace.ko (build $was) is not the installed $ko (build [0-9a-f]*), but a program has it open: keeping the loaded one"
check "it is still loaded" test "$(loaded_build)" = "$was"
kill "$holder"
wait "$holder" 2> /dev/null
check "systemctl restart $UNIT (the device free)" systemctl restart "$UNIT"
check "the rebuilt module replaces it" \
	logged "^gotrace load: replaced the loaded gotrace.ko (build $was) by the installed $ko (build [0-9a-f]*)\$"
now=$(loaded_build)
check "the rebuilt module is loaded ($now)" test -n "$now" -a "$now" != "$was"
check "the service records on it" sh -c "[ \$(journalctl -b -q -u $UNIT -o cat | grep -c '^recording: a flight recorder') -gt $((n0 + 2)) ]"

# The unit's sandbox, as systemd rates it.
systemd-analyze security --no-pager "$UNIT" > "$T/security" 2>&1
exposure=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' "$T/security")
echo "# systemd-analyze security: exposure $exposure"
grep '✗' "$T/security" | sed 's/^/#   /' | head -n 30
check "systemd-analyze security: exposure $exposure, at most 2.0 (OK)" \
	awk -v e="${exposure:-10}" 'BEGIN { exit !(e <= 2.0) }'

# systemctl stop: SIGTERM, its last line, a clean exit.
check "systemctl stop $UNIT" systemctl stop "$UNIT"
check "its last line" logged "^stopped: [0-9]* snapshots written"
check "it exited cleanly" test "$(systemctl show -P Result "$UNIT")" = success
check "no temporary file left" test -z "$(find "$SNAPS" -type f ! -name '*.trace')"
echo "# the unit's journal, last lines:"
journal -n 8 | sed 's/^/#   /'
cp "$SNAPS"/*.trace "$OUT/"
echo "# $(find "$OUT" -name '*.trace' | wc -l) snapshots copied for Go's readers: all those kept"
journalctl -b -q -u "$UNIT" -u gotrace-module -o short-monotonic > "$JOURNAL"
