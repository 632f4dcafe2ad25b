#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Boot a Debian kernel under QEMU/TCG with a busybox initramfs and run one command in it.
#
# Usage: scripts/vm/vm.sh [options] KVER SHAREDIR -- COMMAND...
#
#   --cpus N        guest vCPUs (default 2)
#   --mem MB        guest RAM (default 1024)
#   --timeout S     kill the guest after S seconds and fail (default 600)
#   --log FILE      console log (default build/vm/<KVER>.console.log)
#   --stdout FILE   also save the command's stdout there
#   --quiet         do not copy the console to the terminal
#   --append ARGS   extra kernel command line arguments
#   --allow-splats  report kernel splats in the guest's dmesg but do not fail on them
#   --qemu-arg ARG  one more QEMU argument, repeatable and kept in order, e.g.
#                   --qemu-arg -plugin --qemu-arg /path/insn_window.so,out=/tmp/w.txt
#   --root-disk IMG boot IMG, an ext4 image of a Debian root with systemd, as the root file
#                   system: the initramfs mounts it, moves /host into it and hands over to
#                   its /sbin/init, whose unit vm-command.service runs COMMAND (dash, not
#                   busybox) once the system is up, then powers off. IMG is changed.
#
# KVER is a kernel scripts/setup/kernels.sh fetched (build/kernels/<KVER>/). SHAREDIR is mounted
# read-write at /host in the guest (9p over virtio). COMMAND's words are joined with spaces
# and run by the guest's /bin/sh (busybox) in /host, like ssh does. Guest programs must be
# static. The command's stdout goes to the console and to SHAREDIR/.vm-stdout, its exit
# status to SHAREDIR/.vm-exit, the guest's dmesg to SHAREDIR/.vm-dmesg; then the guest
# powers off. vm.sh exits with the command's status, or non-zero if the guest did not get
# that far, timed out, or its dmesg shows a kernel splat (BUG/WARNING/Oops/lockdep/...).
# A background process the command leaves with its stdout open keeps the guest up until
# the timeout: redirect or wait for such processes.
#
# The initramfs (busybox-static, /init, the modules 9p and virtio_blk need, in dependency order) is
# cached in build/vm/, keyed by the kernel package, busybox and this script.
#
# Environment, for comparisons: GOTRACE_VM_QEMU (QEMU binary or wrapper, default
# qemu-system-x86_64), GOTRACE_VM_ACCEL (default tcg,thread=multi); GOTRACE_VM_KERNELS, the
# directory of unpacked kernels (default build/kernels, scripts/setup/kernels.sh's).
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
KERNELS=${GOTRACE_VM_KERNELS:-$ROOT/build/kernels}
VMDIR="$ROOT/build/vm"
BUSYBOX=/bin/busybox

# Modules the guest needs to mount the share; their dependencies come from modules.dep.
MODULES="virtio_pci 9pnet_virtio 9p"
# Modules loaded where the kernel has them: virtio_blk, for a disk a test is given
# (--qemu-arg -drive --qemu-arg file=IMG,format=raw,if=virtio: /dev/vda, faster than 9p
# for a large file; the debug kernel is built without it); ext4 and the crc32c its
# metadata checksums need, for --root-disk.
OPTIONAL_MODULES="virtio_blk ext4 crc32c_generic"

# What a kernel splat looks like in dmesg.
SPLATS='BUG:|WARNING:|sleeping function called from invalid context|possible recursive locking|KASAN|kmemleak|Oops|general protection|Call Trace'

die() {
	echo "vm.sh: $*" >&2
	exit 1
}

# Show the end of the console log, or from the first splat or panic on if there is one.
show_console() {
	first=$(grep -n -E "$SPLATS|Kernel panic" "$log" | head -n 1 | cut -d: -f1)
	if [ -n "$first" ]; then
		[ "$first" -gt 5 ] && first=$((first - 5)) || first=1
		echo "vm.sh: console log $log from line $first:" >&2
		sed -n "$first,$((first + 59))p" "$log" >&2
	else
		echo "vm.sh: last lines of the console log $log:" >&2
		tail -n 30 "$log" >&2
	fi
}

usage() {
	sed -n '5,38s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

# quote ARG: ARG in single quotes, for eval.
quote() {
	printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}

cpus=2 mem=1024 timeout=600 log="" stdout="" quiet="" append="" allow_splats="" qemu_args=""
root_disk=""
while [ $# -gt 0 ]; do
	case "$1" in
	--cpus) [ $# -ge 2 ] || usage; cpus=$2; shift 2 ;;
	--mem) [ $# -ge 2 ] || usage; mem=$2; shift 2 ;;
	--timeout) [ $# -ge 2 ] || usage; timeout=$2; shift 2 ;;
	--log) [ $# -ge 2 ] || usage; log=$2; shift 2 ;;
	--stdout) [ $# -ge 2 ] || usage; stdout=$2; shift 2 ;;
	--append) [ $# -ge 2 ] || usage; append=$2; shift 2 ;;
	--quiet) quiet=1; shift ;;
	--allow-splats) allow_splats=1; shift ;;
	--qemu-arg) [ $# -ge 2 ] || usage; qemu_args="$qemu_args $(quote "$2")"; shift 2 ;;
	--root-disk) [ $# -ge 2 ] || usage; root_disk=$2; shift 2 ;;
	-h|--help) usage ;;
	--) break ;;
	-*) echo "vm.sh: unknown option $1" >&2; usage ;;
	*) break ;;
	esac
done
[ $# -ge 4 ] && [ "$3" = -- ] || usage
kver=$1 share=$2
shift 3
for n in "$cpus" "$mem" "$timeout"; do
	case "$n" in
	''|*[!0-9]*) die "--cpus, --mem and --timeout take positive integers, not '$n'" ;;
	esac
done

kroot="$KERNELS/$kver"
vmlinuz="$kroot/boot/vmlinuz-$kver"
moddir="$kroot/lib/modules/$kver"
[ -f "$vmlinuz" ] && [ -s "$moddir/modules.dep" ] ||
	die "kernel $kver is not in $kroot (known: $(cat "$KERNELS/list" 2>/dev/null | tr '\n' ' ')); run scripts/setup/kernels.sh"
[ -d "$share" ] || die "share directory '$share' does not exist; create it first"
[ -z "$root_disk" ] || [ -f "$root_disk" ] || die "--root-disk $root_disk: no such image"
share=$(cd "$share" && pwd)
# GOTRACE_VM_QEMU: another QEMU binary (or wrapper) to try.
qemu=${GOTRACE_VM_QEMU:-qemu-system-x86_64}
command -v "$qemu" >/dev/null || die "$qemu not found; run scripts/setup/deps.sh (package qemu-system-x86)"
[ -x "$BUSYBOX" ] && ! ldd "$BUSYBOX" >/dev/null 2>&1 ||
	die "$BUSYBOX is missing or not static; run scripts/setup/deps.sh (package busybox-static)"
command -v cpio >/dev/null || die "cpio not found; run scripts/setup/deps.sh (package cpio)"
mkdir -p "$VMDIR"
[ -n "$log" ] || log="$VMDIR/$kver.console.log"
mkdir -p "$(dirname "$log")"

# Print the module files to load, dependencies first, relative to $moddir.
module_order() {
	awk -v want="$MODULES" -v optional="$OPTIONAL_MODULES" '
	function name(p) {
		sub(/.*\//, "", p); sub(/\.ko(\.(xz|zst|gz))?$/, "", p); gsub(/-/, "_", p)
		return p
	}
	function visit(n,   d, i, c) {
		if (n in done || n in builtin)
			return
		if (!(n in path)) {
			missing = missing " " n
			return
		}
		done[n] = 1
		c = split(deps[n], d, " ")
		for (i = c; i >= 1; i--)
			visit(d[i])
		print path[n]
	}
	FNR == NR { builtin[name($1)] = 1; next }
	{
		p = $1; sub(/:$/, "", p); n = name(p); path[n] = p
		for (i = 2; i <= NF; i++)
			deps[n] = deps[n] " " name($i)
	}
	END {
		c = split(want, w, " ")
		for (i = 1; i <= c; i++)
			visit(w[i])
		c = split(optional, w, " ")
		for (i = 1; i <= c; i++)
			if (w[i] in path)
				visit(w[i])
		if (missing != "") {
			print "vm.sh: modules.dep names no" missing > "/dev/stderr"
			exit 1
		}
	}' "$moddir/modules.builtin" "$moddir/modules.dep"
}

write_init() {
	cat > "$1" <<'EOF'
#!/bin/sh
# PID 1 of the gotrace test guest: mount, run /host/.vm-cmd, record its status, power off.
export PATH=/bin:/sbin:/usr/bin:/usr/sbin HOME=/root
stop() {
	echo "vm-init: $*" >&2
	poweroff -f
}
# --root-disk: /dev/vda's systemd runs /host/.vm-cmd in vm-command.service, which records
# what this script would, then powers off.
boot_root_disk() {
	mkdir -p /newroot
	mount -t ext4 /dev/vda /newroot || stop "cannot mount the --root-disk /dev/vda"
	[ -L /newroot/sbin/init ] || [ -x /newroot/sbin/init ] ||
		stop "the --root-disk has no /sbin/init"
	u=/newroot/etc/systemd/system
	mkdir -p /newroot/host "$u/multi-user.target.wants"
	cat > "$u/vm-command.service" <<-'UNIT'
	[Unit]
	Description=scripts/vm/vm.sh's command
	After=multi-user.target

	[Service]
	Type=oneshot
	WorkingDirectory=/host
	StandardOutput=journal+console
	StandardError=journal+console
	ExecStart=/bin/sh -c '{ /bin/sh /host/.vm-cmd; echo $? > /run/vm-rc; } | tee /host/.vm-stdout'
	ExecStart=/bin/sh -c 'dmesg > /host/.vm-dmesg; cat /run/vm-rc > /host/.vm-exit'
	ExecStart=/bin/systemctl poweroff --force --force
	UNIT
	ln -sf ../vm-command.service "$u/multi-user.target.wants/vm-command.service"
	umount /tmp
	for m in /host /dev /proc /sys; do
		mount --move "$m" "/newroot$m" || stop "cannot move $m into the --root-disk"
	done
	exec switch_root /newroot /sbin/init
}
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /tmp
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
[ -d /sys/kernel/tracing ] && mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
ln -sf /proc/self/fd /dev/fd 2>/dev/null
hostname gotrace-vm
# As on users' machines: systemd's /usr/lib/sysctl.d/50-pid-max.conf.
echo 4194304 > /proc/sys/kernel/pid_max
ip link set lo up 2>/dev/null
while read -r m; do
	insmod "/lib/modules/$m" || stop "cannot load $m"
done < /etc/vm-modules
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,access=any host0 /host ||
	stop "cannot mount the 9p share host0 at /host"
[ -f /host/.vm-cmd ] || stop "no /host/.vm-cmd to run"
[ ! -f /host/.vm-root-disk ] || boot_root_disk
cd /host
{ /bin/sh /host/.vm-cmd; echo $? > /tmp/.vm-rc; } | tee /host/.vm-stdout
cd /
dmesg > /host/.vm-dmesg
cat /tmp/.vm-rc > /host/.vm-exit
umount /host
poweroff -f
EOF
	chmod 755 "$1"
}

# Build (or reuse) the initramfs for $kver; print its path.
initramfs() {
	key=$(
		cat "$kroot/.image-stamp" 2>/dev/null
		echo "$kver $MODULES $OPTIONAL_MODULES"
		sha256sum < "$BUSYBOX"
		sha256sum < "$0"
	)
	key=$(echo "$key" | sha256sum | cut -c1-16)
	out="$VMDIR/initramfs-$kver-$key.cpio"
	if [ -s "$out" ]; then
		echo "$out"
		return 0
	fi
	order=$(module_order) || die "cannot resolve the 9p modules of $kver; is $moddir/modules.dep complete (scripts/setup/kernels.sh)?"
	tmp=$(mktemp -d "$VMDIR/initramfs.XXXXXX")
	mkdir -p "$tmp/bin" "$tmp/sbin" "$tmp/usr/bin" "$tmp/usr/sbin" "$tmp/etc" "$tmp/dev" \
		"$tmp/proc" "$tmp/sys" "$tmp/tmp" "$tmp/host" "$tmp/root" "$tmp/lib/modules"
	cp "$BUSYBOX" "$tmp/bin/busybox"
	for applet in $("$BUSYBOX" --list-full); do
		[ -e "$tmp/$applet" ] || ln -s /bin/busybox "$tmp/$applet"
	done
	: > "$tmp/etc/vm-modules"
	for m in $order; do
		base=$(basename "$m")
		base=${base%.ko*}.ko
		case "$m" in
		*.ko.xz) xz -dc "$moddir/$m" > "$tmp/lib/modules/$base" ;;
		*.ko.zst) zstd -qdc "$moddir/$m" > "$tmp/lib/modules/$base" ;;
		*.ko.gz) gzip -dc "$moddir/$m" > "$tmp/lib/modules/$base" ;;
		*) cp "$moddir/$m" "$tmp/lib/modules/$base" ;;
		esac
		echo "$base" >> "$tmp/etc/vm-modules"
	done
	echo "root:x:0:0:root:/root:/bin/sh" > "$tmp/etc/passwd"
	echo "root:x:0:" > "$tmp/etc/group"
	write_init "$tmp/init"
	# The kernel's built-in initramfs has /dev/console too; add it in case this one is used alone.
	mknod -m 600 "$tmp/dev/console" c 5 1 2>/dev/null || true
	(cd "$tmp" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) > "$out.tmp"
	rm -rf "$tmp"
	rm -f "$VMDIR/initramfs-$kver-"*.cpio
	mv "$out.tmp" "$out"
	echo "$out"
}

initrd=$(initramfs)

rm -f "$share/.vm-exit" "$share/.vm-dmesg" "$share/.vm-stdout" "$share/.vm-root-disk"
printf '%s\n' "$*" > "$share/.vm-cmd"
if [ -n "$root_disk" ]; then
	: > "$share/.vm-root-disk"
	qemu_args="-drive $(quote "file=$root_disk,format=raw,if=virtio") $qemu_args"
fi
: > "$log"

qpid="" tpid=""
cleanup() {
	[ -z "$qpid" ] || kill "$qpid" 2>/dev/null || true
	[ -z "$tpid" ] || kill "$tpid" 2>/dev/null || true
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT TERM

# Multi-threaded TCG (nested KVM hangs here); GOTRACE_VM_ACCEL=tcg,thread=single helps tell
# QEMU's cross-CPU code-patching behaviour from a kernel bug.
accel=${GOTRACE_VM_ACCEL:-tcg,thread=multi}
start=$(date +%s)
# The --qemu-arg arguments, last on QEMU's command line ("$@" is free: .vm-cmd is written).
eval "set -- $qemu_args"
# -nographic puts the serial console on stdio, which goes to the log; timeout kills a hung
# guest. etc/sercon-port=0 keeps SeaBIOS from painting the console with escape sequences
# (QEMU warns about the name; its stderr goes to a file of its own, shown if it fails).
timeout -k 10 "$timeout" "$qemu" \
	-accel "$accel" -smp "$cpus" -m "$mem" \
	-nographic -no-reboot -nic none \
	-fw_cfg name=etc/sercon-port,string=0 \
	-kernel "$vmlinuz" -initrd "$initrd" \
	-append "console=ttyS0 panic=-1 quiet $append" \
	-virtfs "local,path=$share,mount_tag=host0,security_model=none,id=host0" \
	"$@" < /dev/null > "$log" 2> "$log.qemu" &
qpid=$!
if [ -z "$quiet" ]; then
	tail -n +1 -f --pid="$qpid" "$log" &
	tpid=$!
fi
qrc=0
wait "$qpid" || qrc=$?
qpid=""
if [ -n "$tpid" ]; then
	wait "$tpid" || true
	tpid=""
fi
secs=$(($(date +%s) - start))

if [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
	echo "vm.sh: guest on $kver timed out after ${timeout}s and was killed (raise --timeout)" >&2
	show_console
	exit 124
fi
[ "$qrc" -eq 0 ] || {
	echo "vm.sh: $qemu failed (status $qrc) for $kver:" >&2
	grep -v 'fw_cfg item names should be prefixed' "$log.qemu" >&2 || true
	show_console
	exit 1
}

if [ -n "$stdout" ] && [ -f "$share/.vm-stdout" ]; then
	mkdir -p "$(dirname "$stdout")"
	cp "$share/.vm-stdout" "$stdout"
fi

dmesg_file="$share/.vm-dmesg"
[ -f "$dmesg_file" ] || dmesg_file=$log
splats=$(grep -E -n "$SPLATS" "$dmesg_file" || true)

if [ ! -s "$share/.vm-exit" ]; then
	echo "vm.sh: the guest on $kver stopped after ${secs}s without finishing the command (no .vm-exit): kernel panic, or /init failed" >&2
	show_console
	exit 1
fi
rc=$(cat "$share/.vm-exit")
case "$rc" in
''|*[!0-9]*) die "the guest wrote a bad exit status '$rc' to $share/.vm-exit" ;;
esac
echo "vm.sh: $kver: command exited $rc after ${secs}s (console log $log)" >&2
if [ -n "$splats" ]; then
	echo "vm.sh: kernel splats in the guest's dmesg (all of it: $dmesg_file):" >&2
	printf '%s\n' "$splats" >&2
	if [ -z "$allow_splats" ]; then
		[ "$rc" -ne 0 ] || rc=1
		echo "vm.sh: failing because of kernel splats (--allow-splats to ignore)" >&2
	fi
fi
exit "$rc"
