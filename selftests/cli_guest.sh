#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest tests of the gotrace command against the real module: load and unload and their
# errors, record (CMD's exit status, SIGINT, --duration, --force unload during a record,
# --max-size, --continue), flight recorders (record --flight, start --flight, snapshot), latency
# triggers (record --trigger-latency, trigger), the service (gotrace service), status --json,
# CPU samples, user annotations (mark, region), record --go and --go-trace. TAP on stdout,
# without a plan (scripts/suites/cli-check.sh adds its own lines and the plan).
#
# Runs as root in the busybox guest of scripts/vm/vm.sh. Environment:
#   GOTRACE_CLI         the dynamic gotrace (load and unload dlopen() libkmod.so.2)
#   GOTRACE_SYSROOT     the shared libraries it needs, libkmod.so.2 and its own, and the
#                       dynamic loader, at their paths: copied into the guest's / first
#   GOTRACE_KO          gotrace.ko built for the running kernel
#   GOTRACE_KO_OTHER    gotrace.ko built for another kernel, GOTRACE_KVER_OTHER that
#                       kernel (optional: the ENOEXEC test is skipped without them)
#   GOTRACE_BIN         where json_check and stall_helper are, and joinapp (optional:
#                       record --go and --go-trace are skipped without it)
#   GOTRACE_TRACE_DIR   every trace recorded here goes there as cli-*.trace
#   GOTRACE_JSON_DIR    every status --json output goes there as *.json
# With module.sig_enforce=1 or lockdown= on the kernel command line, only the signature
# test runs: the guest stands for a Secure Boot machine.

gt=$GOTRACE_CLI
ko=$GOTRACE_KO
traces=$GOTRACE_TRACE_DIR
jsons=${GOTRACE_JSON_DIR:-/tmp}
n=0
failed=0
err=/tmp/cli.err
out=/tmp/cli.out

result() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2${3:+ # $3}"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
}

# Show a command's output as TAP comments.
show() {
	for shown in "$@"; do
		[ -s "$shown" ] && sed 's/^/#   /' "$shown"
	done
}

# expect NAME RC PATTERN CMD...: CMD exits RC and its stderr matches PATTERN (if any).
expect() {
	name=$1 want=$2 pattern=$3
	shift 3
	"$@" > "$out" 2> "$err" < /dev/null
	rc=$?
	echo "# \$ $*  -> exit $rc"
	show "$err"
	bad=0
	if [ "$rc" -ne "$want" ]; then
		echo "# expected exit status $want"
		bad=1
	elif [ -n "$pattern" ] && ! grep -q -e "$pattern" "$err"; then
		echo "# stderr does not say: $pattern"
		bad=1
	fi
	result "$bad" "$name"
}

# check NAME CONDITION...: a result from a test(1) expression or command.
check() {
	name=$1
	shift
	"$@"
	result $? "$name"
}

# valid TRACE: gotrace's own reader (Go's rules) accepts it; the host runs Go on it too.
valid() {
	"$gt" check -q "$1" 2>&1 | sed 's/^/#   /'
	"$gt" check -q "$1" > /dev/null 2>&1
}

# json NAME: status --json parses, and is kept for the host's check.
json() {
	"$gt" status --json > "$jsons/$1.json" 2> "$err"
	rc=$?
	show "$jsons/$1.json" "$err"
	[ "$rc" -eq 0 ] && "$GOTRACE_BIN/json_check" < "$jsons/$1.json"
	result $? "status --json parses ($1)"
}

loaded() {
	[ -d /sys/module/gotrace ]
}

# A workload of pipes, forks and sleeps that exits with status 3.
WORKLOAD='i=0; while [ $i -lt 30 ]; do seq 1 200 | cat > /dev/null; i=$((i + 1)); done
sleep 0.2; exit 3'

signature_tests() {
	mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
	echo "# lockdown: $(cat /sys/kernel/security/lockdown 2>/dev/null)," \
		"sig_enforce: $(cat /sys/module/module/parameters/sig_enforce 2>/dev/null)"
	if grep -q 'module.sig_enforce=1' /proc/cmdline; then
		expect "load an unsigned module under module.sig_enforce: EKEYREJECTED" 1 \
			"rejected the signature of .*mokutil --import" "$gt" load --path "$ko"
	else
		expect "load an unsigned module under lockdown: EPERM" 1 \
			"the kernel is locked down and refuses .*mokutil --import" \
			"$gt" load --path "$ko"
	fi
	check "the module is not loaded" test ! -d /sys/module/gotrace
}

load_tests() {
	expect "unload when not loaded" 1 "gotrace is not loaded" "$gt" unload
	expect "status when not loaded" 1 "/dev/gotrace missing: load the module: gotrace load" \
		"$gt" status
	expect "load when not installed" 1 "gotrace.ko is not installed for Linux $(uname -r)" \
		"$gt" load
	expect "load a missing file" 1 "no module file /nonexistent/gotrace.ko" \
		"$gt" load --path /nonexistent/gotrace.ko
	if [ -n "${GOTRACE_KO_OTHER:-}" ] && [ -r "$GOTRACE_KO_OTHER" ]; then
		expect "load a module built for Linux $GOTRACE_KVER_OTHER: ENOEXEC" 1 \
			"was built for Linux $GOTRACE_KVER_OTHER, but this is Linux $(uname -r)" \
			"$gt" load --path "$GOTRACE_KO_OTHER"
	else
		result 0 "load a module built for another kernel" "SKIP no such module"
	fi
	grep -q '^nobody:' /etc/passwd || echo "nobody:x:65534:65534:nobody:/:/bin/sh" >> /etc/passwd
	expect "load as a user: EPERM" 1 "loading a module needs root" \
		su nobody -s /bin/sh -c "$gt load --path $ko"
	expect "load with an unknown parameter" 1 "has no parameter 'nosuch'" \
		"$gt" load --path "$ko" nosuch=1
	expect "load with a bad parameter value: EINVAL" 1 "rejected its parameters" \
		"$gt" load --path "$ko" buffer_size=lots
	check "nothing loaded after the failures" test ! -d /sys/module/gotrace
	expect "load buffer_size=4194304" 0 "" "$gt" load --path "$ko" buffer_size=4194304
	check "/dev/gotrace is there, buffer_size is set" test -c /dev/gotrace -a \
		"$(cat /sys/module/gotrace/parameters/buffer_size)" = 4194304
	expect "load twice" 1 "gotrace is already loaded" "$gt" load --path "$ko"
	json idle
}

record_tests() {
	f=$traces/cli-record.trace
	expect "record -- CMD returns CMD's exit status (3)" 3 "Open it with Go 1.26 or later: go tool trace $f" \
		"$gt" record -o "$f" -- sh -c "$WORKLOAD"
	check "the record trace is valid" valid "$f"
	expect "record -f 1.21 --duration 1 (FILE exists)" 0 "Open it with Go 1.26 or later (or Go 1.21): go tool trace $f" \
		"$gt" record -f 1.21 -o "$f" --duration 1
	check "the previous file is kept as FILE.old, both valid" valid "$f.old"
	check "the new FILE is valid" valid "$f"
	f=$traces/cli-1_19-kstacks.trace
	expect "record --format 1.19 --kernel-stacks -- seq" 0 "" \
		"$gt" record -f 1.19 -k -b 1M -o "$f" -- seq 1 1000
	check "the 1.19 trace is valid" valid "$f"
	f=$traces/cli-1_22-kstacks.trace
	expect "record --format 1.22 --kernel-stacks -- sleep 0.1" 0 "" \
		"$gt" record -f 1.22 -k -b 1M -o "$f" -- sleep 0.1
	check "the 1.22 trace is valid" valid "$f"
	check "the 1.22 trace: sleep blocks in a kernel stack (do_nanosleep, vmlinux)" \
		kframe "$f" do_nanosleep
	f=$traces/cli-clock-tsc.trace
	tsc_note=""
	dmesg | grep -q "Marking TSC unstable" && tsc_note="the kernel has marked the TSC unstable"
	expect "record --clock tsc -- seq (warns if the TSC is unstable)" 0 "$tsc_note" \
		"$gt" record --clock tsc -o "$f" -- seq 1 1000
	check "the --clock tsc trace is valid" valid "$f"
	expect "record -- a missing command: 127" 127 "cannot run 'no-such-command'" \
		"$gt" record -o /tmp/missing.trace -- no-such-command
}

# programs TRACE: the program names of its threads, one a line (gotrace stats --all).
programs() {
	"$gt" stats --all "$1" > /tmp/cli.stats 2> "$err"
	show "$err"
	sed -n '/^program /,/^$/{/^program /d;/^$/d;/^ /d;s/ .*//;p}' /tmp/cli.stats
}

# Filters: --only-cmd records CMD and its descendants only; --comm a name's threads.
filter_tests() {
	f=$traces/cli-only-cmd.trace
	expect "record --only-cmd -- CMD returns CMD's status (3)" 3 "" \
		"$gt" record --only-cmd -o "$f" -- sh -c "$WORKLOAD"
	check "the --only-cmd trace is valid" valid "$f"
	programs "$f" > "$out"
	show "$out"
	check "it shows sh, seq and cat" sh -c "grep -q -x sh '$out' && grep -q -x seq '$out' &&
		grep -q -x cat '$out'"
	# Not the rest of the machine: no init, no kernel thread (kworker/0:1, rcu_sched).
	check "it shows no thread but CMD's and its descendants'" \
		sh -c "! grep -q -e / -e '^rcu' -e '^init$' '$out'"
	f=$traces/cli-comm.trace
	expect "record --comm seq -- CMD" 3 "" \
		"$gt" record --comm seq -o "$f" -- sh -c "$WORKLOAD"
	check "the --comm trace is valid" valid "$f"
	programs "$f" > "$out"
	show "$out"
	check "it shows seq's threads only" sh -c "[ \"\$(sort -u '$out')\" = seq ]"
	expect "start --cgroup on a directory that is no cgroup: refused" 1 \
		"is not in a cgroup v2 hierarchy" "$gt" start --cgroup /proc
}

# has TRACE PATTERN: gotrace dump of TRACE has a line matching PATTERN.
has() {
	"$gt" dump "$1" 2>&1 | grep -q -e "$2"
}

# kframe TRACE FUNCTION: an event's stack in TRACE (Go 1.22+) has the kernel frame
# FUNCTION, file vmlinux.
kframe() {
	"$gt" dump "$1" 2>&1 | grep -A1 -e "^	$2 @ " | grep -q "^		vmlinux:0$"
}

# CPU samples: record --cpu-samples writes CPUSample events, status counts them.
samples_tests() {
	busy='dd if=/dev/zero of=/dev/null bs=256k count=4000 2> /dev/null'
	f=$traces/cli-samples.trace
	expect "record -f 1.21 --cpu-samples 1000 -- CMD: no sample dropped" 0 "" \
		"$gt" record -f 1.21 --cpu-samples 1000 -o "$f" -- sh -c "$busy"
	check "record --cpu-samples says nothing of dropped samples" \
		sh -c "! grep -q 'samples were dropped' '$err'"
	check "the --cpu-samples trace is valid" valid "$f"
	check "it has CPUSample events" has "$f" CPUSample
	f=$traces/cli-samples-1.26.trace
	expect "start -f 1.26 --cpu-samples 1000" 0 "" "$gt" start -f 1.26 --cpu-samples 1000
	cat /dev/gotrace > "$f" &
	reader=$!
	sh -c "$busy"
	"$gt" status > "$out" 2> "$err"
	show "$out"
	check "status counts the samples written, none dropped" \
		grep -q '^cpu samples: *[1-9][0-9]* written, 0 dropped$' "$out"
	json samples
	check "status --json counts them" grep -q '"samples": [1-9]' "$jsons/samples.json"
	expect "stop" 0 "" "$gt" stop
	wait "$reader"
	check "the 1.26 --cpu-samples trace is valid" valid "$f"
	check "it has samples (Go's StackSample events)" has "$f" StackSample
}

# gotrace mark and region, with and without a trace being recorded.
annotate_tests() {
	f=$traces/cli-annotate.trace
	expect "mark without a trace: exit 1, says so" 1 "no trace is being recorded" \
		"$gt" mark hello
	expect "region without a trace runs CMD unannotated, with its status (3)" 3 \
		"running CMD unannotated" "$gt" region r -- sh -c "exit 3"
	expect "region -- a missing command: 127" 127 "cannot run 'no-such-command'" \
		"$gt" region r -- no-such-command
	long=$(printf '%0300d' 0)
	expect "record -f 1.21 -- CMD that marks, runs a region and writes the device" 0 "" \
		"$gt" record -f 1.21 -o "$f" -- sh -c "'$gt' mark --category phase hello &&
			'$gt' region build -- sleep 0.2 &&
			echo 'deploy: v2 rolled out' > /dev/gotrace-annotate &&
			! '$gt' mark '$long' 2> /tmp/long.err &&
			grep -q 'longer than 255 bytes' /tmp/long.err"
	check "the annotated trace is valid" valid "$f"
	check "mark: a UserLog phase/hello" has "$f" "UserLog .*category=phase message=hello "
	check "region: a task build" has "$f" "UserTaskCreate .*name=build "
	check "region: its region begins" has "$f" "UserRegion .*mode=0 .*name=build "
	check "region: its region ends" has "$f" "UserRegion .*mode=1 .*name=build "
	check "region: CMD's thread logs exec: sleep" has "$f" "UserLog .*category=exec message=sleep "
	check "write(): a UserLog deploy/v2 rolled out" has "$f" "UserLog .*category=deploy message=v2 rolled out "
}

# record --go and --go-trace with joinapp (selftests/joinapp, a Go program serving
# net/http/pprof, in GOTRACE_BIN; skipped without it), libcurl.so.4 from the sysroot: the
# service's trace, the machine's and the joined one valid; a 404 and a refused connection.
goapp_tests() {
	app=$GOTRACE_BIN/joinapp
	if [ ! -x "$app" ]; then
		echo "# SKIP record --go and --go-trace: no $app"
		return
	fi
	loaded || expect "load, for record --go" 0 "" "$gt" load --path "$ko"
	ifconfig lo 127.0.0.1 up
	"$app" -pprof 127.0.0.1:6060 > /tmp/joinapp.out 2>&1 &
	pid=$!
	i=0	# until it listens on port 6060 (0x17AC), 10 s at most
	while ! grep -q ':17AC 00000000:0000 0A' /proc/net/tcp && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	f=$traces/cli-go.trace
	expect "record --go URL --duration 1: the service's trace fetched, joined" 0 \
		"Wrote $f: open it with go tool trace $f" \
		"$gt" record -q --go http://127.0.0.1:6060 --duration 1 -o "$f"
	check "the service's trace, cli-go.app.trace, is valid" valid "$traces/cli-go.app.trace"
	check "the machine's, cli-go.machine.trace, is valid" valid "$traces/cli-go.machine.trace"
	check "the joined trace is valid" valid "$f"
	expect "record --go URL without net/http/pprof: exit 1, HTTP 404" 1 \
		"http://127.0.0.1:6060/none has no /debug/pprof/trace (HTTP 404)" \
		"$gt" record -q --go http://127.0.0.1:6060/none --duration 1 -o /tmp/go-404.trace
	kill "$pid"
	wait "$pid"
	expect "record --go URL with nothing serving: exit 1, says so" 1 \
		"is the service serving net/http/pprof at http://127.0.0.1:6060?" \
		"$gt" record -q --go http://127.0.0.1:6060 --duration 1 -o /tmp/go-refused.trace
	f=$traces/cli-go-trace.trace
	expect "record --go-trace APP -- CMD writing APP: joined" 0 \
		"Wrote $f: open it with go tool trace $f" \
		"$gt" record -q --go-trace /tmp/joinapp.trace -o "$f" -- \
		"$app" -trace /tmp/joinapp.trace -duration 1s
	check "the --go-trace joined trace is valid" valid "$f"
	expect "record --go-trace APP -- CMD that writes no APP: exit 1, says so" 1 \
		"cannot read /tmp/none.trace: No such file or directory: did CMD write its trace there?" \
		"$gt" record -q --go-trace /tmp/none.trace -o /tmp/go-none.trace -- true
}

# sigint_test NAME FILE WANT CMD...: SIGINT to a background record; its status is WANT.
sigint_test() {
	name=$1 f=$2 want=$3
	shift 3
	"$gt" record -o "$f" "$@" > "$out" 2> "$err" &
	pid=$!
	sleep 3
	kill -INT "$pid"
	wait "$pid"
	rc=$?
	show "$err"
	check "$name: exit status $rc, expected $want" test "$rc" -eq "$want"
	check "$name: the trace is complete" valid "$f"
}

signal_tests() {
	sigint_test "SIGINT to record -- sleep 60" "$traces/cli-sigint-cmd.trace" 130 -- sleep 60
	sigint_test "SIGINT to record without CMD" "$traces/cli-sigint.trace" 0
}

# Trace bytes produced so far (status --json's "bytes").
trace_bytes() {
	b=$("$gt" status --json 2> /dev/null | sed -n 's/^ *"bytes": \([0-9]*\).*/\1/p')
	echo "${b:-0}"
}

# SIGINTs during the final drain. The output is a FIFO nobody reads at first: once more
# than it holds (64 KiB) is produced, record is stuck in a write, and the first SIGINT
# waits. Then a reader takes 4 KiB every 0.1 s: record sees the SIGINT, stops, and writes
# the rest of the trace slowly, while a SIGINT every 0.2 s arrives. The file must come
# out complete all the same.
drain_test() {
	f=$traces/cli-sigint-drain.trace
	rm -f /tmp/fifo /tmp/go "$f"
	mkfifo /tmp/fifo
	(
		while [ ! -e /tmp/go ]; do
			usleep 100000
		done
		while :; do
			got=$(dd bs=4096 count=1 2> /dev/null | tee -a "$f" | wc -c)
			[ "$got" -eq 0 ] && break
			usleep 100000
		done
	) < /tmp/fifo &
	reader=$!
	"$gt" record -o /tmp/fifo -- sh -c 'while :; do seq 1 100 | cat > /dev/null; done' \
		> "$out" 2> "$err" &
	pid=$!
	i=0
	while [ $i -lt 600 ] && [ "$(trace_bytes)" -lt 100000 ]; do
		usleep 100000
		i=$((i + 1))
	done
	echo "# $(trace_bytes) trace bytes after $((i / 10)) s; SIGINT, and the reader starts"
	kill -INT "$pid"
	touch /tmp/go
	i=1
	while [ $i -lt 150 ] && kill -INT "$pid" 2> /dev/null; do
		usleep 200000
		i=$((i + 1))
	done
	wait "$pid"
	rc=$?
	wait "$reader"
	show "$err"
	echo "# $i SIGINTs sent, one every 0.2 s"
	check "SIGINTs during the drain: told, and went on writing" \
		grep -q "stopping: writing the rest of the trace" "$err"
	check "SIGINTs during the drain: exit status $rc (the shell loop's 130)" test "$rc" -eq 130
	check "SIGINTs during the drain: the trace is complete" valid "$f"
}

# A busy workload for about $1 seconds: forks, execs and pipes.
busy() {
	echo "end=\$((\$(date +%s) + $1)); while [ \$(date +%s) -lt \$end ]; do seq 1 100 | cat > /dev/null; done"
}

# first_gen TRACE: the generation of a Go 1.22+ trace's first batch.
first_gen() {
	"$gt" dump --wire "$1" 2> /dev/null | awk '/^EventBatch/ { sub(/gen=/, "", $2); print $2; exit }'
}

# snapshot_ok NAME FILE: a snapshot file is a valid trace, for its owner only.
snapshot_ok() {
	check "$1: valid" valid "$2"
	check "$1: mode 0600" test "$(ls -l "$2" | cut -c1-10)" = "-rw-------"
}

# flight_on: waits up to 10 s until status says a flight recorder records (once idle,
# status still shows the last session's flags).
flight_on() {
	i=0
	while [ $i -lt 100 ]; do
		"$gt" status --json > /tmp/flight.json 2> /dev/null
		grep -q '"state": "tracing"' /tmp/flight.json &&
			grep -q '"flight": true' /tmp/flight.json && return 0
		usleep 100000
		i=$((i + 1))
	done
	echo "# no flight recorder after 10 s"
	return 1
}

# record --max-size: files of whole generations, at most 64K unless one generation is
# larger, each valid and for its owner only, the generations running on across them.
max_size_tests() {
	d=/tmp/maxsize
	rm -rf "$d"
	mkdir -p "$d"
	expect "record --format 1.26 --gen-period 0.05 --max-size 64K" 0 \
		"[0-9]* files (.* MiB) written to $d/roll.1.trace to " "$gt" record --format 1.26 \
		--gen-period 0.05 --max-size 64K -o "$d/roll.trace" -- sh -c "$(busy 3)"
	nfiles=$(sed -n 's/.* \([0-9]*\) files (.*/\1/p' "$err")
	check "record --max-size: ${nfiles:-no} files, at least 2" test "${nfiles:-0}" -ge 2
	check "record --max-size: a line per file" \
		test "$(grep -c "^gotrace record: wrote $d/roll\.[0-9]*\.trace: generation" "$err")" \
		= "${nfiles:-x}"
	next=""
	i=1
	while [ "$i" -le "${nfiles:-0}" ]; do
		f=$d/roll.$i.trace
		snapshot_ok "record --max-size file $i" "$f"
		g=$(first_gen "$f")
		check "record --max-size file $i starts at generation ${g:-?}, after the last file's" \
			test -n "$g" -a "${next:-$g}" = "$g"
		line=$(grep "wrote $f: " "$err")
		last=$(echo "$line" | sed -n 's/.*: generations* [0-9]* to \([0-9]*\),.*/\1/p')
		[ -n "$last" ] || last=$g
		next=$((last + 1))
		i=$((i + 1))
	done
	cp "$d/roll.1.trace" "$traces/cli-max-size.1.trace"
	cp "$d/roll.2.trace" "$traces/cli-max-size.2.trace"
	check "no temporary files left" test "$(find "$d" -type f | wc -l)" = "${nfiles:-x}"
}

flight_tests() {
	d=/tmp/flight
	rm -rf "$d"
	mkdir -p "$d"
	# A generation takes a buffer chunk (a page) at least on each CPU: at 20 a second,
	# buffers of 256K (64 pages) overflow in 4 s of the workload (which runs 4 to 5). The
	# oldest generations are overwritten, and with --flight 1m only that keeps
	# generation 1 out of the snapshots.
	expect "record --flight 1m -b 256K --gen-period 0.05: SIGUSR1, then the end" 0 \
		"wrote $d/over.2.trace: generation" "$gt" record --flight 1m -b 256K \
		--gen-period 0.05 -o "$d/over.trace" -- \
		sh -c "$(busy 5); kill -USR1 \$PPID; sleep 1; $(busy 2)"
	check "the SIGUSR1 snapshot's line" grep -q "wrote $d/over.1.trace: generation" "$err"
	chunks=$(sed -n 's/.* \([0-9]*\) buffer chunks overwritten.*/\1/p' "$err")
	check "the buffers overflowed: ${chunks:-no} chunks overwritten" test "${chunks:-0}" -gt 0
	for i in 1 2; do
		f=$d/over.$i.trace
		snapshot_ok "record --flight snapshot $i" "$f"
		g=$(first_gen "$f")
		check "record --flight snapshot $i starts at generation ${g:-?} > 1" test "${g:-0}" -gt 1
		cp "$f" "$traces/cli-flight-over.$i.trace"
	done
	check "no temporary files left" test "$(ls "$d")" = "$(printf 'over.1.trace\nover.2.trace')"

	expect "record --flight 2s without --buffer-size: 1 s sizes the buffers" 0 \
		"buffers sized by [0-9.]* s of recording: the busiest CPU ([0-9]*) wrote .* MiB per CPU" \
		"$gt" record --flight 2s -o "$d/sized.trace" -- sh -c "sleep 2; kill -USR1 \$PPID; sleep 1"
	snapshot_ok "the sized recorder's first snapshot" "$d/sized.1.trace"
	snapshot_ok "the sized recorder's last snapshot" "$d/sized.2.trace"
	cp "$d/sized.2.trace" "$traces/cli-flight-sized.trace"

	"$gt" record --flight 5s -b 1M -o "$d/theirs.trace" -- sleep 5 > "$out" 2> /tmp/fl.err &
	pid=$!
	flight_on
	expect "snapshot while record --flight reads: record writes it" 0 \
		"snapshot taken: generation.*writes it to its next file, not to -o's" \
		"$gt" snapshot -o "$d/mine.trace"
	wait "$pid"
	rc=$?
	show /tmp/fl.err
	check "that record exits 0 ($rc)" test "$rc" -eq 0
	check "record wrote it: another program asked for it" \
		grep -q "wrote $d/theirs.1.trace: .*another program asked for it" /tmp/fl.err
	check "snapshot wrote nothing itself" test ! -e "$d/mine.trace"
	snapshot_ok "the snapshot record wrote for gotrace snapshot" "$d/theirs.1.trace"
	snapshot_ok "record's last snapshot after it" "$d/theirs.2.trace"
	cp "$d/theirs.1.trace" "$traces/cli-flight-theirs.trace"

	# A request with a reason (GOTRACE_REQUEST): record takes it, a snapshot of its own.
	"$gt" record --flight 5s -b 1M -o "$d/asked.trace" -- sleep 4 > "$out" 2> /tmp/fl.err &
	pid=$!
	flight_on
	sleep 1
	expect "snapshot --reason while record --flight reads" 0 \
		"asked the flight recorder's reader for a snapshot: the queue backs up" \
		"$gt" snapshot --reason "the queue backs up"
	wait "$pid"
	show /tmp/fl.err
	check "record took the request, naming the asker" grep -q \
		"request 1: thread [0-9]* (gotrace, process [0-9]*, user 0) asked for a snapshot: the queue backs up" \
		/tmp/fl.err
	snapshot_ok "record's snapshot for the request" "$d/asked.1.trace"
	check "its trace logs the reason" grep -q "the queue backs up" "$d/asked.1.trace"
	snapshot_ok "record's last snapshot after it" "$d/asked.2.trace"

	expect "record --flight 1s -k --cpu-samples 1000 --duration 2: the last snapshot only" 0 \
		"wrote $d/dur.1.trace: generation" "$gt" record --flight 1s -k --cpu-samples 1000 \
		-b 1M --duration 2 -o "$d/dur.trace"
	check "record --flight --duration: its snapshot is valid" valid "$d/dur.1.trace"
	check "record --flight --duration: one snapshot" test ! -e "$d/dur.2.trace"
	check "record --flight -k: the snapshot names where threads block (schedule, vmlinux)" \
		kframe "$d/dur.1.trace" schedule
	check "record --flight --cpu-samples: the snapshot has CPU samples" \
		has "$d/dur.1.trace" "StackSample"
	cp "$d/dur.1.trace" "$traces/cli-flight-kstacks.trace"

	"$gt" record --flight 1s -b 1M -o "$d/int.trace" -- sleep 60 > "$out" 2> "$err" &
	pid=$!
	flight_on
	kill -INT "$pid"
	wait "$pid"
	rc=$?
	show "$err"
	check "SIGINT to record --flight -- sleep 60: exit status $rc, expected 130" test "$rc" -eq 130
	check "SIGINT to record --flight: the last snapshot is written" \
		grep -q "wrote $d/int.1.trace: generation" "$err"
	check "SIGINT to record --flight: it is valid" valid "$d/int.1.trace"

	expect "start --flight 1s (sized by 1 s of recording)" 0 "buffers sized by [0-9.]* s" \
		"$gt" start --flight 1s
	expect "stop it" 0 "" "$gt" stop
	expect "start --flight 1s --buffer-size 1M" 0 "" "$gt" start --flight 1s --buffer-size 1M
	json flight
	check "status --json says a flight recorder" grep -q '"flight": true' "$jsons/flight.json"
	"$gt" status > "$out" 2> "$err"
	show "$out"
	check "status says a flight recorder" grep -q '^flight: *a flight recorder: 0 snapshots' "$out"
	sleep 2
	f=$d/snap.trace
	expect "snapshot -o FILE" 0 "wrote $f: generation" "$gt" snapshot -o "$f"
	snapshot_ok "snapshot -o FILE" "$f"
	cp "$f" "$traces/cli-flight-snap.trace"
	expect "snapshot -d 500ms -o FILE again" 0 "wrote $f: generation" \
		"$gt" snapshot -d 500ms -o "$f"
	check "the first is kept as FILE.old" valid "$f.old"
	expect "snapshot --force -o FILE" 0 "wrote $f: generation" "$gt" snapshot --force -o "$f"
	check "--force replaced the second: FILE.old is still the first" \
		cmp -s "$f.old" "$traces/cli-flight-snap.trace"
	expect "snapshot -o - > FILE" 0 "wrote standard output: generation" \
		sh -c "$gt snapshot -o - > $d/stdout.trace"
	check "snapshot -o -: valid" valid "$d/stdout.trace"
	json flight-snapshots
	check "status --json counts 4 snapshots" grep -q '"snapshots": 4' "$jsons/flight-snapshots.json"
	expect "stop the flight recorder" 0 "" "$gt" stop
	expect "snapshot without a flight recorder" 1 \
		"no flight recorder is recording: start one with gotrace start --flight D or gotrace record --flight D" \
		"$gt" snapshot -o "$d/none.trace"
	expect "start a streaming 1.26 trace" 0 "" "$gt" start -f 1.26 -b 1M
	expect "snapshot of a streaming trace" 1 "no flight recorder is recording" \
		"$gt" snapshot -o "$d/none.trace"
	expect "stop it" 0 "" "$gt" stop
	check "the failed snapshots left no file" test -z "$(ls "$d" | grep none)"
}

# A stall: a thread (gt-victim) kept runnable behind a SCHED_FIFO hog on CPU 0 for $1 ms, $2
# times, $3 ms apart.
STALL="$GOTRACE_BIN/stall_helper"

trigger_tests() {
	d=/tmp/trigger
	rm -rf "$d"
	mkdir -p "$d"
	# Armed at the start; the first stall 1 s later, then two more (another thread, a
	# vCPU the host held, may fire first): each firing is re-armed 1 s after it.
	expect "record --flight 2s --trigger-latency 100ms --after 500ms --trigger-every 1s" 0 \
		"trigger [0-9]*: thread [0-9]* (gt-victim, process [0-9]*) waited [0-9.]* ms to run" \
		"$gt" record --flight 2s -b 1M --trigger-latency 100ms --after 500ms \
		--trigger-every 1s -o "$d/stall.trace" -- sh -c "sleep 1; $STALL 400 3 1500; sleep 1"
	line=$(grep "trigger [0-9]*: thread [0-9]* (gt-victim, " "$err" | head -n 1)
	num=$(echo "$line" | sed -n 's/.* trigger \([0-9]*\): thread.*/\1/p')
	ms=$(echo "$line" | sed -n 's/.* waited \([0-9]*\)\.[0-9] ms to run$/\1/p')
	check "the victim's firing (trigger ${num:-none}) says a wait of ${ms:-?} ms >= 150" \
		test "${ms:-0}" -ge 150
	snap=$(grep "wrote $d/stall\.[0-9]*\.trace: .*; for trigger ${num:-none}\$" "$err")
	f=$(echo "$snap" | sed -n 's/.* wrote \([^:]*\): .*/\1/p')
	check "a snapshot for trigger ${num:-none}: ${f:-none}" test -n "$f" -a -f "${f:-/}"
	[ -n "$f" ] && snapshot_ok "the trigger's snapshot" "$f"
	first=$(echo "$snap" | sed -n 's/.*: generations \([0-9]*\) to \([0-9]*\),.*/\1/p')
	last=$(echo "$snap" | sed -n 's/.*: generations \([0-9]*\) to \([0-9]*\),.*/\2/p')
	check "it holds generations ${first:-?} to ${last:-?}: 2 or more, from before the stall" \
		test "${last:-0}" -gt "${first:-0}"
	[ -n "$f" ] && cp "$f" "$traces/cli-trigger-stall.trace"
	fired=$(sed -n 's/.* \([0-9]*\) triggers\{0,1\} fired$/\1/p' "$err")
	check "the summary counts ${fired:-no} firings, as many as lines" \
		test "${fired:-0}" -ge 1 -a "${fired:-0}" -eq "$(grep -c ': trigger [0-9]*: thread' "$err")"
	check "a snapshot for each firing" \
		test "$(grep -c "^gotrace record: wrote $d/stall\.[0-9]*\.trace: .*; for trigger [0-9]*\$" \
		"$err")" -eq "${fired:-0}"

	# Without --buffer-size: 1 s of a streaming trace, without the trigger, sizes them.
	expect "record --flight 2s --trigger-latency 500ms -- sleep 2: nothing fires" 0 \
		" 0 triggers fired$" "$gt" record --flight 2s --trigger-latency 500ms \
		-o "$d/quiet.trace" -- sleep 2
	check "the buffers were sized first" grep -q "buffers sized by" "$err"
	check "only the last snapshot" test "$(echo "$d"/quiet*)" = "$d/quiet.1.trace"
	snapshot_ok "the quiet recorder's snapshot" "$d/quiet.1.trace"
	cp "$d/quiet.1.trace" "$traces/cli-trigger-quiet.trace"

	expect "start --flight 2s --trigger-latency 100ms (sized by 1 s of recording)" 0 \
		"buffers sized by" "$gt" start --flight 2s --trigger-latency 100ms
	"$gt" status > "$out" 2> "$err"
	show "$out"
	check "status says 0 triggers fired" grep -q '^flight: .* 0 triggers fired$' "$out"
	expect "trigger --timeout 300ms: nothing fires" 1 \
		"the trigger did not fire in 300ms" "$gt" trigger --timeout 300ms
	(sleep 1; "$STALL" 400 3 1000 > /dev/null) &
	stall=$!
	expect "trigger --json during stalls" 0 "" "$gt" trigger --json --timeout 20s
	show "$out"
	check "trigger --json names a thread and its wait" \
		grep -q '"wait_ns": [1-9][0-9]*,$' "$out"
	"$GOTRACE_BIN/json_check" < "$out"
	result $? "trigger --json parses"
	cp "$out" "$jsons/trigger.json"
	expect "snapshot after it" 0 "wrote $d/script.trace: generation" \
		"$gt" snapshot -o "$d/script.trace"
	snapshot_ok "the script's snapshot" "$d/script.trace"
	wait "$stall"
	json trigger-status
	check "status --json counts the firing" \
		grep -q '"triggers": [1-9]' "$jsons/trigger-status.json"
	expect "stop it" 0 "" "$gt" stop
	expect "trigger without a flight recorder" 1 \
		"no flight recorder with a latency trigger is recording: start one with gotrace start --flight D --trigger-latency L" \
		"$gt" trigger --timeout 1s
	expect "start --flight 1s without a trigger" 0 "" "$gt" start --flight 1s -b 1M
	expect "trigger without a latency trigger" 1 \
		"no flight recorder with a latency trigger is recording" "$gt" trigger
	expect "stop it" 0 "" "$gt" stop
}

# record --continue: the reader is stopped (SIGSTOP) for 3 s while a busy workload (and a
# pipe fed a byte per write) fills 16K buffers, so the trace is cut; after SIGCONT, record writes it to its end and the next
# trace to cont.1.trace (maybe more if the buffers run full again). Every file is valid, a
# line per gap names both files and the events not recorded, and the summary adds the gaps
# up to the lines' sum.
continue_tests() {
	d=/tmp/continue
	rm -rf "$d"
	mkdir -p "$d"
	"$gt" record -f 1.21 --continue -b 16K -o "$d/cont.trace" -- sh -c \
		"dd if=/dev/zero bs=1 count=100000 2> /dev/null | cat > /dev/null & $(busy 6); wait" \
		> "$out" 2> "$d/err" &
	pid=$!
	i=0
	until "$gt" status --json 2> /dev/null | grep -q '"state": "tracing"' || [ $i -ge 100 ]; do
		usleep 100000
		i=$((i + 1))
	done
	kill -STOP "$pid"
	sleep 3
	kill -CONT "$pid"
	wait "$pid"
	rc=$?
	show "$d/err"
	check "record --continue: exit status $rc, CMD's 0" test "$rc" -eq 0
	gaps=$(grep -c 'the buffers ran full at [0-9.]* s: .* ends there; the next trace began' \
		"$d/err")
	check "record --continue: ${gaps:-no} gaps told, at least 1" test "${gaps:-0}" -ge 1
	check "record --continue: the first gap names cont.trace and cont.1.trace" \
		grep -q "$d/cont.trace ends there; the next trace began [0-9.]* s later in $d/cont.1.trace, [1-9][0-9]* events in between not recorded" "$d/err"
	sum=$(sed -n 's/.* later in .*, \([0-9]*\) events in between not recorded$/\1/p' "$d/err" |
		awk '{ s += $1 } END { print s + 0 }')
	check "record --continue: the summary's gap events are the lines' sum, $sum" \
		grep -q "$((gaps + 1)) traces .*(${sum} in ${gaps} gaps* between traces)" "$d/err"
	check "record --continue: cont.trace is valid" valid "$d/cont.trace"
	i=1
	while [ "$i" -le "${gaps:-0}" ]; do
		check "record --continue: cont.$i.trace is valid" valid "$d/cont.$i.trace"
		i=$((i + 1))
	done
	cp "$d/cont.trace" "$traces/cli-continue.trace"
	cp "$d/cont.1.trace" "$traces/cli-continue.1.trace"
	check "record --continue: no other file" \
		test "$(find "$d" -name '*.trace' | wc -l)" = "$((gaps + 1))"
}

unload_tests() {
	expect "start" 0 "" "$gt" start -b 1M --clock mono
	json tracing
	check "status --json says tracing" grep -q '"state": "tracing"' "$jsons/tracing.json"
	check "status --json says the --clock mono session's clock" \
		grep -q '"clock": "mono"' "$jsons/tracing.json"
	"$gt" status > "$out" 2> "$err"
	check "status says the clock" grep -q '^clock: *CLOCK_MONOTONIC$' "$out"
	expect "record while a trace runs" 1 "a trace is already running" \
		"$gt" record -o /tmp/busy.trace -- true
	expect "unload while tracing" 1 "a trace is running .*gotrace unload --force" "$gt" unload
	check "still loaded" loaded
	expect "stop" 0 "" "$gt" stop
	expect "unload with a stopped, unread trace" 1 "a stopped trace has not been read" \
		"$gt" unload
	f=$traces/cli-after-unread.trace
	expect "record discards the stopped, unread trace" 0 "discarding an earlier trace" \
		"$gt" record -o "$f" -- true
	check "that trace is valid" valid "$f"
	cat /dev/gotrace > /dev/null &
	cat=$!
	sleep 1
	expect "unload while a reader has /dev/gotrace open" 1 "gotrace is in use: 1 open file" \
		"$gt" unload
	kill "$cat"
	wait "$cat"
	expect "start again" 0 "" "$gt" start -b 1M
	expect "unload --force while tracing" 0 "" "$gt" unload --force
	check "unloaded" test ! -d /sys/module/gotrace
	f=$traces/cli-autoload.trace
	expect "record loads the module (--path)" 0 "loaded gotrace.ko" \
		"$gt" record -p "$ko" -o "$f" -- true
	check "the autoload trace is valid" valid "$f"
	f=$traces/cli-forced.trace
	"$gt" record -o "$f" > /dev/null 2> /tmp/rec.err &
	pid=$!
	sleep 3
	expect "unload --force during a record" 0 "" "$gt" unload --force
	wait "$pid"
	rc=$?
	show /tmp/rec.err
	check "the record ends (status $rc) with a complete trace" test "$rc" -eq 0
	check "its trace is valid" valid "$f"
	check "unloaded" test ! -d /sys/module/gotrace
	expect "load, for the last status" 0 "" "$gt" load --path "$ko"
	expect "record -o - > FILE" 0 "written to standard output" \
		sh -c "$gt record -o - -- true > $traces/cli-stdout.trace"
	check "the stdout trace is valid" valid "$traces/cli-stdout.trace"
	json after
	expect "unload" 0 "" "$gt" unload
}

# service_log PATTERN [SECONDS]: waits (default 10 s) until the service's log has a line
# matching PATTERN.
service_log() {
	i=0
	while [ $i -lt $((${2:-10} * 10)) ]; do
		grep -q -e "$1" "$slog" && return 0
		usleep 100000
		i=$((i + 1))
	done
	echo "# the service's log does not say: $1"
	return 1
}

# service_conf KEY=VALUE...: the test's configuration (service_test.conf, beside this
# script, a directory and a hook) with these keys changed or added.
service_conf() {
	{
		cat "$(dirname "$0")/service_test.conf"
		echo "directory = $d/snaps"
		echo "hook = echo \"hook \$GOTRACE_CAUSE \$GOTRACE_FILE \$GOTRACE_COMM \$GOTRACE_TID\$GOTRACE_REASON\" >> $d/hook.out"
		for kv in "$@"; do
			echo "$kv"
		done
	} > "$d/flight.conf"
}

# service_sessions: the sessions the module started, from status --json.
service_sessions() {
	"$gt" status --json 2> /dev/null | sed -n 's/.*"sessions": \([0-9]*\).*/\1/p'
}

# service_snap CAUSE: the newest snapshot of that cause (file name), or nothing.
service_snap() {
	(cd "$d/snaps" && printf '%s\n' *) | grep "^[0-9]\{8\}T[0-9]\{6\}\.[0-9]\{3\}Z_[^_]*_$1" |
		tail -n 1
}

# gotrace service: a stall's snapshot and its hook, requests, reload, a full file system,
# failing and hanging hooks, kill -9 and restart, SIGTERM. Retention under 200 snapshots and
# the service's memory: selftests/service_guest.sh, under systemd.
service_tests() {
	d=/tmp/service
	slog=$d/service.log
	rm -rf "$d"
	mkdir -p "$d"
	loaded || expect "load, for the service" 0 "" "$gt" load --path "$ko"
	service_conf
	expect "service --check" 0 "" "$gt" service --check -c "$d/flight.conf"
	check "service --check prints the directory" grep -q "^directory = $d/snaps\$" "$out"
	"$gt" service -c "$d/flight.conf" 2> "$slog" &
	svc=$!
	check "the service records" service_log "recording: a flight recorder of 2 s, 1024 KiB"

	# A stall (three: another thread may fire first); the victim's snapshot and hook.
	"$STALL" 400 3 1500 > "$d/stall.out"
	victim=$(sed -n 's/^victim //p' "$d/stall.out")
	check "a latency snapshot names the victim ($victim)" \
		service_log "snapshot $d/snaps/[0-9T.]*Z_[^_]*_latency-gt-victim-$victim-[0-9]*ms\.trace"
	f=$(service_snap "latency-gt-victim-$victim-")
	[ -n "$f" ] && snapshot_ok "the latency snapshot" "$d/snaps/$f"
	[ -n "$f" ] && cp "$d/snaps/$f" "$traces/cli-service-latency.trace"
	check "the hook ran for it with its facts" \
		service_log "hook for $d/snaps/$f exited 0"
	check "the hook's output" grep -q "^hook latency $d/snaps/$f gt-victim $victim\$" "$d/hook.out"

	# Requests: SIGUSR1 (who asked is in the name), gotrace snapshot.
	sh -c "kill -USR1 $svc; echo \$\$ > $d/asker"
	check "SIGUSR1: a request snapshot naming the process" \
		service_log "snapshot $d/snaps/.*_request-pid$(cat "$d/asker")\.trace"
	expect "gotrace snapshot asks the service" 0 "" "$gt" snapshot
	check "its snapshot" service_log "snapshot $d/snaps/.*_request\.trace"
	expect "gotrace snapshot --reason: a request" 0 \
		"asked the flight recorder's reader for a snapshot: slow checkout" \
		"$gt" snapshot --reason "slow checkout"
	check "its snapshot names the asker and the reason" \
		service_log "snapshot $d/snaps/.*_request-gotrace-[0-9]*-slow-checkout\.trace"
	check "the hook has the reason" service_log "hook for $d/snaps/.*-slow-checkout\.trace exited 0"
	check "the hook's output" grep -q "^hook request $d/snaps/.*-slow-checkout\.trace  slow checkout\$" \
		"$d/hook.out"
	expect "another request at once: refused" 1 \
		"the last request is still waiting to be taken, or was made less than a second ago" \
		"$gt" snapshot --reason "again"
	f=$(service_snap "request-gotrace-[0-9]*-slow-checkout\.trace")
	[ -n "$f" ] && snapshot_ok "the requested snapshot with a reason" "$d/snaps/$f"
	[ -n "$f" ] && cp "$d/snaps/$f" "$traces/cli-service-request.trace"
	[ -n "$f" ] && check "its trace logs the reason" grep -q "slow checkout" "$d/snaps/$f"
	f=$(service_snap "request\.trace")
	[ -n "$f" ] && snapshot_ok "the requested snapshot" "$d/snaps/$f"

	# A full file system: no snapshot fits, none of the earlier ones is lost.
	mkdir -p "$d/tiny"
	mount -t tmpfs -o size=3m tmpfs "$d/tiny"
	service_conf "directory = $d/tiny" "hook = exit 3"
	kill -HUP "$svc"
	service_log "reloaded .*" > /dev/null
	expect "a snapshot on a roomy file system" 0 "" "$gt" snapshot -d 100ms
	check "the failing hook is logged, the file kept" \
		service_log "hook for $d/tiny/.*_request\.trace failed: exit status 3; the file stays"
	kept=$(ls "$d/tiny")
	dd if=/dev/zero of="$d/tiny/filler" bs=64k > /dev/null 2>&1
	expect "a snapshot on the full file system" 0 "" "$gt" snapshot -d 100ms
	check "no room: logged" service_log "no room for a snapshot of .* the snapshot is dropped, the others stay"
	check "the earlier snapshot stays ($kept)" test -n "$kept" -a -f "$d/tiny/$kept"
	[ -n "$kept" ] && snapshot_ok "the earlier snapshot" "$d/tiny/$kept"

	# A hook that hangs: SIGTERM after hook-timeout.
	service_conf "hook = sleep 60" "hook-timeout = 1s"
	kill -HUP "$svc"
	service_log "reloaded .*" > /dev/null
	"$gt" snapshot -d 100ms > /dev/null 2>&1
	check "the hanging hook is killed after hook-timeout" \
		service_log "hook for .* killed after hook-timeout by signal 15"

	# kill -9 leaves the flight recorder; the next run keeps its snapshot and starts one.
	before=$(service_sessions)
	kill -9 "$svc"
	wait "$svc"
	check "kill -9: the flight recorder still records" flight_on
	service_conf
	"$gt" service -c "$d/flight.conf" 2> "$slog" &
	svc=$!
	check "restart: the left recorder's snapshot" service_log "snapshot $d/snaps/.*_restart\.trace"
	check "restart: recording again" service_log "recording: a flight recorder"
	check "one session more ($before then $(service_sessions))" \
		test "$(service_sessions)" = "$((before + 1))"
	f=$(service_snap "restart\.trace")
	[ -n "$f" ] && snapshot_ok "the restart snapshot" "$d/snaps/$f"
	[ -n "$f" ] && cp "$d/snaps/$f" "$traces/cli-service-restart.trace"

	kill -TERM "$svc"
	wait "$svc"
	rc=$?
	check "SIGTERM: exit status 0 ($rc)" test "$rc" -eq 0
	check "SIGTERM: its last line" grep -q "^gotrace service: stopped: [0-9]* snapshots written" "$slog"
	check "no temporary file left" test -z "$(find "$d/snaps" -type f ! -name '*.trace')"
	umount "$d/tiny"
	sed 's/^/#   /' "$slog" | tail -n 5
}

echo "TAP version 13"
echo "# kernel $(uname -r), $(nproc) CPUs; cmdline: $(cat /proc/cmdline)"
if [ -n "$GOTRACE_SYSROOT" ]; then
	cp -a "$GOTRACE_SYSROOT/." / || { echo "Bail out! cannot install $GOTRACE_SYSROOT"; exit 1; }
fi
if ! "$gt" --version > /tmp/v 2>&1; then
	cat /tmp/v
	echo "Bail out! $gt does not run (its libraries and the loader from GOTRACE_SYSROOT?)"
	exit 1
fi
echo "# $(cat /tmp/v)"
mkdir -p "$traces" "$jsons"
if grep -q -e 'module.sig_enforce=1' -e 'lockdown=' /proc/cmdline; then
	signature_tests
else
	load_tests
	record_tests
	filter_tests
	samples_tests
	annotate_tests
	goapp_tests
	signal_tests
	drain_test
	max_size_tests
	continue_tests
	flight_tests
	trigger_tests
	service_tests
	unload_tests
fi
loaded && rmmod gotrace
echo "# $failed of $n failed"
[ "$failed" -eq 0 ]
