#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The benchmark (make bench): gotrace against ftrace, in guest instructions, in one VM run.
#
# Usage: scripts/run/bench.sh [--kver KVER] [--ko FILE | --rev REV] [--out DIR] [--no-go-check]
#                         [--profile WORKLOAD] [-- GUEST_ARGS...]
#
#   --kver KVER     the kernel to boot (default: the Debian 6.1 kernel scripts/setup/kernels.sh
#                   fetched)
#   --ko FILE       benchmark this gotrace.ko (copied first) instead of building one from the
#                   working tree's sources (scripts/kbuild/vm-module.sh, in OUT/module)
#   --rev REV       build gotrace.ko from git revision REV's sources instead (git archive)
#   --out DIR       where everything goes (default build/bench)
#   --no-go-check   skip Go's readers on the traces (they take a few seconds a trace)
#   --profile WORKLOAD  also profile every window by kernel function (the plugin's prof=,
#                   several times slower) and print where gotrace's overhead on WORKLOAD
#                   went: bench/profile.py, from OUT/profile.txt and the guest's kallsyms
#   GUEST_ARGS      more bench/gotrace_bench options, e.g. --rounds 5 --pingpong 10000, or
#                   only the user annotations' cost (a 25-second guest): --workloads empty
#                   --skip-rounds --skip-filter --skip-parts --skip-snapshot --skip-rate
#                   (OUT/bin/gotrace_bench --help lists them)
#
# Builds bench/insn_window.so, a QEMU TCG plugin counting guest instructions between marker
# instructions, for the plugin API of the QEMU scripts/vm/vm.sh runs (GOTRACE_VM_QEMU, default
# qemu-system-x86_64), and the static guest program bench/gotrace_bench; boots one 1-vCPU
# guest (scripts/vm/vm.sh) with the plugin loaded, where gotrace_bench runs every window (see
# bench/README.md); joins its output with the plugin's counts (bench/report.py) and prints
# the table; checks every gotrace trace with scripts/oracles/go-check.sh. In OUT:
#
#   table.txt, results.json   the table; every window, the summary and how it was run
#   guest.txt, windows.txt    raw: the guest program's lines, the plugin's counts
#   traces/                   every trace gotrace recorded (go-check.tap: Go's verdicts)
#   console.log               the guest's console
#   history/DATE-COMMIT/      a copy of the four result files, kept across runs
#
# The guest runs with QEMU's -icount shift=0,sleep=off: its clock advances 1 ns per
# instruction (a 1 GIPS CPU) and skips idle time, so that timer ticks and every scheduling
# decision that depends on time fall at the same instruction from run to run: window counts
# then repeat to a fraction of a per cent instead of a few per cent, and the times the guest
# measures (START, stopped world, event rates) are in that virtual time, not TCG's wall time.
# icount needs single-threaded TCG (GOTRACE_VM_ACCEL=tcg,thread=single for scripts/vm/vm.sh).
#
# Exits non-zero if the run or Go's checks fail. Environment: GOTRACE_BENCH_TIMEOUT (guest
# seconds, default 2400), GOTRACE_BENCH_MEM (guest MB, default 2048: 10,000 threads),
# GOTRACE_BENCH_ICOUNT (QEMU -icount options, default shift=0,sleep=off; "off" runs without:
# multi-threaded TCG, guest time is then TCG's wall time and counts vary by a few per cent).
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TIMEOUT=${GOTRACE_BENCH_TIMEOUT:-2400}
MEM=${GOTRACE_BENCH_MEM:-2048}
ICOUNT=${GOTRACE_BENCH_ICOUNT:-shift=0,sleep=off}

die() {
	echo "bench.sh: $*" >&2
	exit 1
}

usage() {
	sed -n '5,21s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

kver="" ko="" rev="" out="$ROOT/build/bench" go_check=1 profile=""
while [ $# -gt 0 ]; do
	case "$1" in
	--kver) [ $# -ge 2 ] || usage; kver=$2; shift 2 ;;
	--ko) [ $# -ge 2 ] || usage; ko=$2; shift 2 ;;
	--rev) [ $# -ge 2 ] || usage; rev=$2; shift 2 ;;
	--out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
	--no-go-check) go_check=""; shift ;;
	--profile) [ $# -ge 2 ] || usage; profile=$2; shift 2 ;;
	--) shift; break ;;
	-h|--help) usage ;;
	*) echo "bench.sh: unknown argument $1" >&2; usage ;;
	esac
done
# What is left are gotrace_bench's options; the guest's shell splits them again anyway.
guest_args="$*"

if [ -z "$kver" ]; then
	kver=$("$ROOT/scripts/setup/kernels.sh" --list 2>/dev/null | grep '^6\.1\.' | head -n 1) || true
	if [ -z "$kver" ]; then
		"$ROOT/scripts/setup/kernels.sh" >/dev/null || die "scripts/setup/kernels.sh failed"
		kver=$("$ROOT/scripts/setup/kernels.sh" --list | grep '^6\.1\.' | head -n 1) ||
			die "no Debian 6.1 kernel in build/kernels/list"
	fi
fi
[ -z "$ko" ] || [ -f "$ko" ] || die "--ko $ko: no such file"
[ -z "$ko" ] || [ -z "$rev" ] || die "--ko and --rev exclude each other"
if [ -n "$rev" ]; then
	rev_id=$(git -C "$ROOT" rev-parse --verify -q --short "$rev^{commit}") ||
		die "--rev $rev: not a commit"
fi
qemu=${GOTRACE_VM_QEMU:-qemu-system-x86_64}
qemu_version=$("$qemu" --version 2>/dev/null | sed -n '1s/.*version \([^ ]*\).*/\1/p')
[ -n "$qemu_version" ] || die "cannot run $qemu --version; run scripts/setup/deps.sh"
command -v python3 >/dev/null || die "python3 not found; run scripts/setup/deps.sh"

mkdir -p "$out"
out=$(cd "$out" && pwd)
# Nothing from an earlier run may be reported or checked again (history/ stays).
rm -rf "$out/traces" "$out/bin" "$out/module" "$out/gotrace.ko" "$out/table.txt" \
	"$out/results.json" "$out/guest.txt" "$out/windows.txt" "$out/go-check.tap" \
	"$out/profile.txt" "$out/kallsyms.txt"
mkdir -p "$out/traces"

# What the module is built from: "commit" names it in the results and the history.
commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$ko" ]; then
	cp "$ko" "$out/gotrace.ko"
	ko_from=$ko
	commit="ko"
elif [ -n "$rev" ]; then
	src="$out/module/src"
	mkdir -p "$src"
	git -C "$ROOT" archive "$rev_id" Kbuild module uapi | tar -x -C "$src" ||
		die "git archive $rev failed"
	kdir=$("$ROOT/scripts/setup/kernels.sh" --kdir "$kver") || die "no kernel build tree for $kver"
	make -C "$kdir" M="$src" -j"$(nproc)" modules > "$out/module/build.log" 2>&1 ||
		die "gotrace.ko of $rev does not build for $kver (log: $out/module/build.log)"
	cp "$src/gotrace.ko" "$out/gotrace.ko"
	ko_from="revision $rev"
	commit=$rev_id
else
	"$ROOT/scripts/kbuild/vm-module.sh" "$kver" "$out/module" >/dev/null ||
		die "gotrace.ko does not build for $kver (log: $out/module/build.log)"
	cp "$out/module/gotrace.ko" "$out/gotrace.ko"
	ko_from="working tree"
	git -C "$ROOT" diff --quiet HEAD -- Kbuild module uapi 2>/dev/null || commit="$commit+dirty"
fi
make -s -C "$ROOT/bench" OUT="$out/bin" QEMU="$qemu" ||
	die "building the plugin or the guest program failed"
stamp=$(date -u +%Y%m%d-%H%M%S)
# The benchmark's own version: its counts move when it changes, so compare like with like.
bench_rev=$(git -C "$ROOT" log -1 --format=%h -- bench scripts/run/bench.sh 2>/dev/null)
bench_rev=${bench_rev:-uncommitted}
git -C "$ROOT" diff --quiet HEAD -- bench scripts/run/bench.sh 2>/dev/null || bench_rev="$bench_rev+dirty"

# vm.sh's QEMU options.
plugin="$out/bin/insn_window.so,out=$out/windows.txt"
[ -z "$profile" ] || plugin="$plugin,prof=$out/profile.txt"
set -- --qemu-arg -plugin --qemu-arg "$plugin"
if [ "$ICOUNT" = off ]; then
	clock="TCG wall time (no icount)"
else
	# icount does not work with multi-threaded TCG.
	GOTRACE_VM_ACCEL=tcg,thread=single
	export GOTRACE_VM_ACCEL
	set -- "$@" --qemu-arg -icount --qemu-arg "$ICOUNT"
	clock="icount $ICOUNT"
	case "$ICOUNT" in
	shift=0,*|shift=0) clock="$clock (1 instruction = 1 ns)" ;;
	esac
fi

echo "bench.sh: $kver, QEMU $qemu_version (plugin API $(cat "$out/bin/.plugin-api")), $clock, gotrace.ko from $ko_from ($commit)"
rc=0
"$ROOT/scripts/vm/vm.sh" --cpus 1 --mem "$MEM" --timeout "$TIMEOUT" \
	--log "$out/console.log" --stdout "$out/guest.txt" \
	"$@" "$kver" "$out" -- \
	"./bin/gotrace_bench --ko /host/gotrace.ko --trace-dir /host/traces $guest_args;" \
	"rc=\$?; ${profile:+cat /proc/kallsyms > kallsyms.txt;} exit \$rc" || rc=$?
[ ! -f "$out/.vm-dmesg" ] || mv "$out/.vm-dmesg" "$out/dmesg.txt"
[ "$rc" -eq 0 ] || die "the guest failed (status $rc); see $out/console.log"

echo
python3 "$ROOT/bench/report.py" "$out/guest.txt" "$out/windows.txt" \
	--meta "date=$(date -u '+%Y-%m-%d %H:%M UTC')" --meta "commit=$commit" --meta "bench=$bench_rev" \
	--meta "gotrace.ko=$ko_from" --meta "kernel=$kver" --meta "QEMU=$qemu_version" \
	--meta "vCPUs=1" --meta "clock=$clock" --meta "guest args=${guest_args:-(defaults)}" \
	--json "$out/results.json" > "$out/table.txt" || die "bench/report.py failed"
cat "$out/table.txt"

hist="$out/history/$stamp-$commit"
mkdir -p "$hist"
cp "$out/table.txt" "$out/results.json" "$out/guest.txt" "$out/windows.txt" "$hist/"
if [ -n "$profile" ]; then
	echo
	python3 "$ROOT/bench/profile.py" "$out/guest.txt" "$out/profile.txt" "$out/kallsyms.txt" \
		"$profile" > "$out/profile-$profile.txt" || die "bench/profile.py failed"
	cat "$out/profile-$profile.txt"
	cp "$out/profile-$profile.txt" "$hist/"
fi

ntraces=$(find "$out/traces" -name '*.trace' | wc -l)
if [ -z "$go_check" ]; then
	echo "Go checks: skipped (--no-go-check); $ntraces traces in $out/traces"
	exit 0
fi
grc=0
"$ROOT/scripts/oracles/go-check.sh" "$out/traces" > "$out/go-check.tap" 2>&1 || grc=$?
nok=$(grep -c '^ok ' "$out/go-check.tap" || true)
nbad=$(grep -c '^not ok ' "$out/go-check.tap" || true)
cp "$out/go-check.tap" "$hist/"
if [ "$grc" -ne 0 ] || [ "$nbad" -ne 0 ]; then
	grep -A 12 '^not ok ' "$out/go-check.tap" | head -n 60 >&2 || true
	die "Go's readers rejected traces: $nbad of $((nok + nbad)) checks failed ($out/go-check.tap)"
fi
echo "Go checks: $ntraces traces in $out/traces, $nok of $nok checks passed ($out/go-check.tap)"
echo "results: $out/table.txt, $out/results.json; this run's copy: $hist"
