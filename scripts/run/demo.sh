#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The demo (make demo): record a real workload in a QEMU guest and leave it as ./out.trace.
#
# Usage: scripts/run/demo.sh [--kernel KVER] [--seconds N] [--out FILE]
#
# Installs the dependencies, fetches the kernels, builds gotrace.ko for Debian 12's 6.1
# kernel (or KVER) and the static gotrace CLI, then boots a guest (2 vCPUs, QEMU/TCG) that
# loads the module, starts a session, reads /dev/gotrace into a file while a mixed
# workload runs (find over the filesystems, pipe ping-pong, sleeps, a fork loop), and
# stops. Fetches Go 1.27 into build/go (scripts/setup/go-fetch.sh; once, a few minutes, never
# installed) and checks the trace with its `go tool trace -d=parsed`; ends by printing the
# one command that opens the trace with that Go, whose syscall and scheduler-latency
# profiles of these traces are right (Debian's `go` is 1.19, which refuses the format; Go
# 1.22-1.25 misreport those two profiles, golang/go#74850). Nothing is loaded into the
# host's kernel.
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT="$ROOT/build/demo"

die() {
	echo "demo.sh: $*" >&2
	exit 1
}

kver="" seconds=4 dest="$PWD/out.trace"
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) [ $# -ge 2 ] || die "--kernel needs a KVER"; kver=$2; shift 2 ;;
	--seconds) [ $# -ge 2 ] || die "--seconds needs a number"; seconds=$2; shift 2 ;;
	--out) [ $# -ge 2 ] || die "--out needs a file name"; dest=$2; shift 2 ;;
	*) die "unknown argument '$1'; usage: $0 [--kernel KVER] [--seconds N] [--out FILE]" ;;
	esac
done
case "$seconds" in
''|*[!0-9]*|0) die "--seconds takes a positive integer, not '$seconds'" ;;
esac
case "$dest" in
/*) ;;
*) dest="$PWD/$dest" ;;
esac

echo "demo.sh: installing dependencies and fetching kernels" >&2
"$ROOT/scripts/setup/deps.sh" || die "scripts/setup/deps.sh failed; see its messages above"
"$ROOT/scripts/setup/kernels.sh" >/dev/null || die "scripts/setup/kernels.sh failed; see its messages above"
gofetch=$("$ROOT/scripts/setup/go-fetch.sh" --print) || die "scripts/setup/go-fetch.sh could not fetch Go 1.27; see its messages above"
GO=$(echo "$gofetch" | sed -n 1p)
GOCACHE_DIR="$ROOT/build/go/cache"
if [ -z "$kver" ]; then
	kver=$("$ROOT/scripts/setup/kernels.sh" --list | grep '^6\.1\.' | head -n 1) ||
		die "no 6.1 kernel recorded in build/kernels/list; run scripts/setup/kernels.sh"
fi

rm -rf "$OUT"
mkdir -p "$OUT/bin"
"$ROOT/scripts/kbuild/vm-module.sh" "$kver" "$OUT" >/dev/null || die "cannot build gotrace.ko for $kver"
make -s -C "$ROOT/userspace" static OUT="$OUT/bin" >&2 ||
	die "cannot build the static gotrace CLI (make -C userspace static); it drives the guest's session"
[ -x "$OUT/bin/gotrace" ] || die "make -C userspace static left no $OUT/bin/gotrace"
# The command the README uses on the host (gotrace check|dump|stats out.trace).
make -s -C "$ROOT/userspace" >&2 || die "cannot build userspace/gotrace (make -C userspace)"

# The guest's script: busybox sh, static binaries only.
cat > "$OUT/demo-guest.sh" <<EOF
SECONDS_WANTED=$seconds
EOF
cat >> "$OUT/demo-guest.sh" <<'EOF'
# Runs in the guest (busybox sh). The workload's own failures do not matter; the session's do.
gotrace=/host/bin/gotrace
fail() {
	echo "demo-guest: $*" >&2
	exit 1
}
insmod /host/gotrace.ko || fail "insmod gotrace.ko failed"
$gotrace start || fail "gotrace start failed"
cat /dev/gotrace > /host/out.trace &
reader=$!

end=$(($(date +%s) + SECONDS_WANTED))
busy() { [ "$(date +%s)" -lt "$end" ]; }

# Directory walks: lots of short syscalls, some blocking on sysfs/proc.
( while busy; do find / -xdev > /dev/null; find /sys/devices /proc/sys > /dev/null 2>&1; done ) &
w1=$!
# Pipe ping-pong through three processes.
( while busy; do seq 1 500 | while read -r i; do echo "$i"; done | cat > /dev/null; done ) &
w2=$!
# Sleepers waking up on timers.
( while busy; do sleep 0.05 & sleep 0.1; wait; done ) &
w3=$!
# A fork loop: every iteration is a fork + exec + exit.
( while busy; do /bin/true; /bin/busybox echo fork > /dev/null; done ) &
w4=$!
wait $w1 $w2 $w3 $w4

$gotrace stop || fail "gotrace stop failed"
wait $reader || fail "reading /dev/gotrace failed"
$gotrace status
sync
ls -l /host/out.trace
EOF

echo "demo.sh: recording ${seconds}s of a workload on $kver" >&2
"$ROOT/scripts/vm/vm.sh" --cpus 2 --mem 1024 --timeout $((seconds * 20 + 300)) \
	--log "$OUT/console.log" "$kver" "$OUT" -- sh /host/demo-guest.sh ||
	die "the guest run failed (console log: $OUT/console.log)"
[ -s "$OUT/out.trace" ] || die "the guest left no trace in $OUT/out.trace (console log: $OUT/console.log)"
cp "$OUT/out.trace" "$dest"

# The command printed below, with -d=parsed: reads every event and exits. go-fetch.sh built
# the trace tool into GOCACHE_DIR, so it starts at once.
echo "demo.sh: checking the trace with Go 1.27: GOCACHE=$GOCACHE_DIR $GO tool trace -d=parsed $dest" >&2
if ! GOCACHE="$GOCACHE_DIR" "$GO" tool trace -d=parsed "$dest" > "$OUT/go-trace-parsed.txt" \
	2> "$OUT/go-trace-parsed.err"; then
	tail -n 20 "$OUT/go-trace-parsed.err" >&2
	die "Go 1.27 cannot parse $dest (full output: $OUT/go-trace-parsed.err)"
fi

size=$(wc -c < "$dest")
cat <<EOF

Recorded $size bytes of scheduler activity on $kver (2 vCPUs): $dest
Every thread of the guest is a goroutine, every CPU a P.

Open it in Go's trace viewer with Go 1.27, fetched into build/go (this command as is):
    GOCACHE=$GOCACHE_DIR $GO tool trace $dest
It serves the viewer on a local port and prints the address (add -http=:8080 to pick one).
Without Go: $ROOT/userspace/gotrace check|dump|stats $dest
EOF
