#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Command lines gotrace must refuse before doing anything (TAP output): each exits 1 with
# "gotrace CMD: ..." on stderr naming the problem, and prints nothing on stdout. Also
# --help of every command exits 0 with a usage line, and --version works.
#
# Usage: tests/cli_args.sh GOTRACE
# Safe on any host: every refused command line fails in option parsing, before a device
# is opened or a module loaded; and in case one slips through, gotrace runs without
# CAP_SYS_MODULE (setpriv), so it cannot load anything into the host's kernel.
set -u

GOTRACE=$1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# shellcheck source=scripts/lib/tap-lib.sh
. "$(dirname "$0")/../../scripts/lib/tap-lib.sh"

# shown OK DESCRIPTION: the result of a gotrace run, with its stderr and stdout if it failed.
shown() {
	cat "$TMP/err" "$TMP/out" > "$TMP/shown"
	result "$1" "$2" "$TMP/shown"
}

# refuse PATTERN ARGS...: exit status 1, stderr matches PATTERN, stdout empty.
refuse() {
	pattern=$1
	shift
	rc=0
	$GUARD "$GOTRACE" "$@" > "$TMP/out" 2> "$TMP/err" < /dev/null || rc=$?
	ok=0
	if [ "$rc" -ne 1 ]; then
		echo "# exit status $rc, expected 1" > "$TMP/why"
		ok=1
	elif ! grep -q -e "$pattern" "$TMP/err"; then
		echo "# stderr does not match '$pattern'" > "$TMP/why"
		ok=1
	elif [ -s "$TMP/out" ]; then
		echo "# output on stdout" > "$TMP/why"
		ok=1
	fi
	[ "$ok" -eq 0 ] || cat "$TMP/why"
	shown "$ok" "refused: gotrace $*"
}

# helps CMD: CMD --help exits 0 and prints its usage on stdout.
helps() {
	rc=0
	"$GOTRACE" "$@" --help > "$TMP/out" 2> "$TMP/err" || rc=$?
	ok=0
	[ "$rc" -eq 0 ] && grep -q "^Usage: .*gotrace $*" "$TMP/out" || ok=1
	shown "$ok" "gotrace $* --help"
}

echo "TAP version 13"
tap_guard

refuse "missing command"
refuse "unknown command 'frobnicate'" frobnicate
refuse "unrecognized option '--bogus'" --bogus

refuse "invalid --duration 'abc'" record --duration abc
refuse "invalid --duration '0'" record --duration 0
refuse "invalid --duration '-1'" record --duration -1
refuse "invalid --duration '5s'" record -d 5s
refuse "requires an argument" record --duration
refuse "unknown trace format '2.0'" record --format 2.0
refuse "invalid --buffer-size '12X'" record --buffer-size 12X
refuse "invalid --buffer-size 'M'" record -b M
refuse "invalid --max-tid '0'" record --max-tid 0
refuse "requires an argument" record -o
refuse "empty output file name" record -o ''
refuse "doesn't allow an argument" record --kernel-stacks=yes
refuse "unknown clock 'hpet': choose auto, mono or tsc" record --clock hpet
refuse "requires an argument" start --clock
refuse "invalid option -- 'z'" record -z -- true

refuse "^gotrace record: --go needs --duration S: the seconds of the service's trace to fetch (e.g. --duration 5)$" \
	record --go http://127.0.0.1:6060
refuse "^gotrace record: --go records while it fetches the service's trace, without a command: drop -- CMD, or use --go-trace APP -- CMD for a command that writes its own trace$" \
	record --go http://127.0.0.1:6060 --duration 1 -- true
refuse "^gotrace record: --go-trace joins the trace CMD writes: add -- CMD \[ARGS...\] (e.g. -- go test -trace app.trace ./pkg)$" \
	record --go-trace app.trace
refuse "^gotrace record: --go records format 1.26, whose clock snapshots the join needs: drop --format 1.21$" \
	record --go http://127.0.0.1:6060 --duration 1 --format 1.21
refuse "^gotrace record: --go-trace records with the clock mono, which Go's trace uses: drop --clock tsc$" \
	record --go-trace app.trace --clock tsc -- true
refuse "^gotrace record: --go and --go-trace do not go together: --go fetches a service's trace, --go-trace takes the one CMD writes$" \
	record --go http://127.0.0.1:6060 -d 1 --go-trace app.trace -- true
refuse "^gotrace record: --go records the service, which is not a command of ours: drop --only-cmd (or filter with --pid PID)$" \
	record --go http://127.0.0.1:6060 -d 1 --only-cmd
refuse "^gotrace record: --go writes files, not standard output: give -o FILE$" \
	record --go http://127.0.0.1:6060 -d 1 -o -
refuse "^gotrace record: --go-trace joins one trace of the machine: drop --flight$" \
	record --go-trace app.trace --flight 2s -- true
refuse "^gotrace record: --go joins one trace of the machine: drop --max-size$" \
	record --go http://127.0.0.1:6060 -d 1 --max-size 64M
refuse "^gotrace record: empty --go URL: give the service's address, e.g. --go http://127.0.0.1:6060$" \
	record --go '' -d 1

refuse "invalid module parameter 'buffer_size'" load buffer_size
refuse "invalid module parameter '=4M'" load =4M
refuse "invalid module parameter 'buffer_size='" load buffer_size=
refuse "invalid module parameter 'a b=1'" load 'a b=1'
refuse "invalid module parameter 'x=\"1\"'" load 'x="1"'
refuse "requires an argument" load --path
refuse "unrecognized option '--force'" load --force
refuse "^gotrace load: --update loads the installed module, with the options of /etc/modprobe.d: drop --path\$" \
	load --update --path gotrace.ko
refuse "^gotrace load: --update loads the installed module, with the options of /etc/modprobe.d: drop the parameters\$" \
	load -u buffer_size=4M

refuse "unexpected argument 'now'" unload now
refuse "invalid option -- 'x'" unload -x

refuse "unknown trace format '1.24'" start --format 1.24
refuse "invalid --gen-period '0'" start --gen-period 0
refuse "invalid --max-tid '4294967296'" start --max-tid 4294967296
refuse "unexpected argument 'extra'" start extra
refuse "unexpected argument 'extra'" stop extra
refuse "unexpected argument 'extra'" status extra
refuse "unrecognized option '--yaml'" status --yaml
refuse "missing FILE" check
refuse "--stacks, --all-stacks and --ticks do not go with --wire" dump --stacks --wire x.trace
refuse "--stacks, --all-stacks and --ticks do not go with --wire" dump --ticks --wire x.trace
refuse "unknown command 'nope'" help nope
refuse "unrecognized option '--bogus'" split --bogus x.trace
refuse "missing how to cut: give --every DURATION, --max-size SIZE or --from T --to T" split x.trace
refuse "missing FILE" split --every 1s
refuse "--every, --max-size and --from/--to do not go together" split -e 1s -s 1M x.trace
refuse "--every, --max-size and --from/--to do not go together" split --to 1s --every 1s x.trace
refuse "invalid --every '0': give a duration above 0" split --every 0 x.trace
refuse "invalid --every '10x': give a duration above 0" split --every 10x x.trace
refuse "invalid --from '-1s': give a duration, a number and a unit" split --from -1s x.trace
refuse "invalid --max-size '64Q'" split --max-size 64Q x.trace
refuse "invalid --max-size '16': a piece holds the 16-byte header" split --max-size 16 x.trace
refuse "--from is after --to" split --from 2s --to 1500ms x.trace
refuse "empty output prefix" split --every 1s -o '' x.trace

refuse "invalid --flight '0': give a duration above 0, a number and a unit" record --flight 0
refuse "invalid --flight '2x': give a duration above 0, a number and a unit" record --flight 2x -- true
refuse "option '--flight' requires an argument" record --flight
refuse "\-\-flight needs a format with generations, 1.22 or later: drop --format 1.21 (the default is 1.26)" \
	record --flight 2s --format 1.21
refuse "\-\-flight needs a format with generations, 1.22 or later: drop --format 1.19" \
	start -f 1.19 --flight 2s
refuse "\-\-flight writes a file per snapshot, not standard output: give -o FILE" \
	record --flight 2s -o -
refuse "invalid --cpu-samples '0': give a rate from 1 to 10000 a second" record --cpu-samples 0
refuse "invalid --cpu-samples '10001': give a rate from 1 to 10000 a second" start --cpu-samples 10001
refuse "invalid --cpu-samples 'x': give a rate from 1 to 10000 a second" record --cpu-samples x
refuse "cannot create the snapshots /nonexistent/x.N.trace in /nonexistent: No such file or directory: choose another -o FILE" \
	record --flight 2s -o /nonexistent/x.trace -- true
refuse "invalid --flight '1h2m'" start --flight 1h2m
refuse "\-\-max-size cuts files at generations, which format 1.21 does not have: drop --format 1.21 (the default is 1.26)" \
	record --max-size 64M -f 1.21 -- true
refuse "\-\-max-size cuts files at generations, which format 1.19 does not have: drop --format 1.19 (the default is 1.26)" \
	record --max-size 64M --format 1.19 -- true
refuse "\-\-max-size and --flight do not go together: the flight recorder's snapshots are already separate files" \
	record --max-size 64M --flight 2s -- true
refuse "\-\-max-size writes a file per piece, not standard output: give -o FILE" \
	record --max-size 64M --format 1.26 -o - -- true
refuse "invalid --max-size '16': a file holds the 16-byte header and a generation, give more (e.g. 512M)" \
	record --max-size 16 --format 1.26 -- true
refuse "invalid --max-size 'x'" record --max-size x --format 1.26 -- true
refuse "cannot create the files /nonexistent/x.N.trace in /nonexistent: No such file or directory: choose another -o FILE" \
	record --max-size 64M --format 1.26 -o /nonexistent/x.trace -- true
refuse "\-\-continue writes a file per trace, not standard output: give -o FILE" \
	record --continue -o - -- true
refuse "\-\-continue and --flight do not go together: a flight recorder overwrites its oldest data and never runs full" \
	record --continue --flight 2s -- true
refuse "\-\-continue and --flight do not go together" start --continue --flight 2s
refuse "cannot create the files /nonexistent/x.N.trace in /nonexistent: No such file or directory: choose another -o FILE" \
	record --continue -o /nonexistent/x.trace -- true
refuse "\-\-trigger-latency needs --flight: the trigger watches a flight recorder (e.g. --flight 10s --trigger-latency 20ms)" \
	record --trigger-latency 20ms -- true
refuse "\-\-trigger-latency needs --flight" start --trigger-latency 20ms
refuse "invalid --trigger-latency '500us': give a duration from 1ms to 60s" \
	record --flight 2s --trigger-latency 500us
refuse "\-\-only-cmd traces the command given after the options" record --only-cmd
refuse "\-\-descendants goes with a filter" start --descendants
refuse "invalid --pid '0'" start --pid 0
refuse "invalid --pid 'x'" start --pid 1,x
refuse "\-\-pid needs a value" start --pid ""
refuse "invalid --comm '0123456789abcdef': a program name" start --comm 0123456789abcdef
refuse "cannot open --cgroup '/no/such/dir'" start --cgroup /no/such/dir
refuse "\-\-cgroup '/' is not in a cgroup v2 hierarchy" record --cgroup / -- true
refuse "invalid --trigger-latency '61s': give a duration from 1ms to 60s" \
	start --flight 2s --trigger-latency 61s
refuse "invalid --trigger-latency '0': give a duration above 0" record --flight 2s --trigger-latency 0
refuse "invalid --trigger-latency '2m': give a duration from 1ms to 60s" \
	record --flight 2s --trigger-latency 2m
refuse "option '--trigger-latency' requires an argument" record --flight 2s --trigger-latency
refuse "invalid --after 'soon': give a duration, a number and a unit" \
	record --flight 2s --trigger-latency 20ms --after soon
refuse "invalid --after '-1s': give a duration, a number and a unit" \
	record --flight 2s --trigger-latency 20ms --after -1s
refuse "invalid --trigger-every '0': give a duration above 0, a number and a unit" \
	record --flight 2s --trigger-latency 20ms --trigger-every 0
refuse "invalid --trigger-every '5x': give a duration above 0" \
	record --flight 2s --trigger-latency 20ms --trigger-every 5x
refuse "\-\-after goes with --trigger-latency: give --flight D --trigger-latency L too" \
	record --flight 2s --after 1s
refuse "\-\-trigger-every goes with --trigger-latency: give --flight D --trigger-latency L too" \
	record --flight 2s --trigger-every 5s
refuse "unrecognized option '--after'" start --flight 2s --trigger-latency 20ms --after 1s
refuse "invalid --timeout '1y': give a duration, a number and a unit" trigger --timeout 1y
refuse "unexpected argument 'now'" trigger now
refuse "unrecognized option '--bogus'" trigger --bogus
refuse "unexpected argument 'now'" snapshot now
refuse "invalid --duration 'x': give a duration, a number and a unit" snapshot -d x
refuse "invalid --duration '-1s'" snapshot --duration -1s
refuse "empty output file name: give -o FILE" snapshot -o ''
refuse "option requires an argument -- 'o'" snapshot -o
refuse "unrecognized option '--bogus'" snapshot --bogus
refuse "^gotrace snapshot: empty --reason: say why you ask" snapshot --reason ''
refuse "^gotrace snapshot: --reason is longer than 63 bytes: shorten it\$" \
	snapshot --reason "$(printf '%064d' 0)"
refuse "^gotrace snapshot: --reason asks the flight recorder's reader, which writes the file its way: drop -o, -d and --force\$" \
	snapshot --reason why -o x.trace

refuse "MESSAGE is missing" mark
refuse "one MESSAGE only (quote it if it has spaces)" mark two words
refuse "option requires an argument -- 'c'" mark -c
refuse "unrecognized option '--bogus'" mark --bogus hi
refuse "NAME is missing" region
refuse "CMD is missing: gotrace region NAME -- CMD" region name
refuse "CMD is missing: gotrace region NAME -- CMD" region name --
refuse "unrecognized option '--bogus'" region --bogus name -- true

# conf NAME LINE...: a configuration file $TMP/NAME.conf, for gotrace service --check.
conf() {
	name=$1
	shift
	printf '%s\n' "$@" > "$TMP/$name.conf"
}

conf key '# a comment' '' 'bogus = 1'
refuse "^gotrace service: $TMP/key.conf:3: unknown key 'bogus' (gotrace(8), SERVICE, lists the keys)\$" \
	service --check -c "$TMP/key.conf"
conf noeq 'flight 2s'
refuse "^gotrace service: $TMP/noeq.conf:1: 'flight 2s' is not 'key = value'\$" \
	service --check -c "$TMP/noeq.conf"
conf flight 'flight = 0'
refuse "^gotrace service: $TMP/flight.conf:1: invalid --flight '0': give a duration above 0" \
	service --check -c "$TMP/flight.conf"
conf format 'format = 1.21'
refuse "^gotrace service: $TMP/format.conf: --flight needs a format with generations, 1.22 or later" \
	service --check -c "$TMP/format.conf"
conf latency 'trigger-latency = 500us'
refuse "^gotrace service: $TMP/latency.conf:1: invalid --trigger-latency '500us': give a duration from 1ms to 60s\$" \
	service --check -c "$TMP/latency.conf"
conf minfree 'min-free = 95%'
refuse "^gotrace service: $TMP/minfree.conf:1: min-free: 95% would leave no room: give 0% to 90%\$" \
	service --check -c "$TMP/minfree.conf"
conf dir 'directory = snaps'
refuse "^gotrace service: $TMP/dir.conf: directory: 'snaps' is not an absolute path\$" \
	service --check -c "$TMP/dir.conf"
conf hookmax 'hook-max = 0'
refuse "^gotrace service: $TMP/hookmax.conf:1: invalid hook-max '0': give a number from 1 to 4294967295\$" \
	service --check -c "$TMP/hookmax.conf"
conf keep 'keep-count = 0'
refuse "^gotrace service: $TMP/keep.conf:1: invalid keep-count '0': give a number from 1 to 4294967295\$" \
	service --check -c "$TMP/keep.conf"
conf stacks 'kernel-stacks = maybe'
refuse "^gotrace service: $TMP/stacks.conf:1: kernel-stacks: 'maybe' is not yes or no\$" \
	service --check -c "$TMP/stacks.conf"
conf cont 'continue = yes'
refuse "^gotrace service: $TMP/cont.conf:1: unknown key 'continue'" service --check -c "$TMP/cont.conf"
refuse "^gotrace service: cannot read $TMP/none.conf: No such file or directory: give the configuration file with --config FILE\$" \
	service --check -c "$TMP/none.conf"
refuse "unexpected argument 'now'" service now

# A valid file: every key printed, the file's values and the defaults.
conf valid 'flight = 5s' 'trigger-latency = off' 'comm = nginx' 'hook = echo "$GOTRACE_FILE"'
rc=0
"$GOTRACE" service --check -c "$TMP/valid.conf" > "$TMP/out" 2> "$TMP/err" || rc=$?
[ "$rc" -eq 0 ] && grep -qx 'flight = 5s' "$TMP/out" && grep -qx 'trigger-latency = off' "$TMP/out" &&
	grep -qx 'comm = nginx' "$TMP/out" && grep -qx 'hook = echo "$GOTRACE_FILE"' "$TMP/out" &&
	grep -qx 'directory = /var/lib/gotrace' "$TMP/out" && grep -qx 'keep-count = 100' "$TMP/out" &&
	grep -qx 'buffer-size = 4M' "$TMP/out" && grep -qx 'min-free = 10%' "$TMP/out" && [ ! -s "$TMP/err" ]
shown $? "gotrace service --check prints a valid file's keys and the defaults"

for cmd in record load unload start stop snapshot trigger service mark region status check dump stats split; do
	helps "$cmd"
done

rc=0
"$GOTRACE" --version > "$TMP/out" 2> "$TMP/err" || rc=$?
[ "$rc" -eq 0 ] && grep -q '^gotrace [0-9]' "$TMP/out"
shown $? "gotrace --version"

tap_end
