#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The Debian packages (make deb) in a fresh Debian 12 root, and their module in a guest:
# TAP on stdout.
#
# Usage: scripts/suites/deb-check.sh
#
# 1. mmdebstrap makes a minimal bookworm root (--variant=minbase, with bookworm-updates and
#    bookworm-security) in build/deb-check/root with linux-headers-amd64, the root's kernel
#    headers. Downloaded packages are kept in build/deb-check/apt-cache for the next run.
# 2. In the root: apt install ./gotrace_*.deb ./gotrace-dkms_*.deb (from build/deb; made by
#    scripts/package/deb.sh when missing). DKMS must have built and installed gotrace.ko for the
#    root's kernel (dkms status, vermagic, modules.dep); the command, both man pages, the
#    header, the bash completion, the service's unit (not enabled) and configuration (a
#    conffile) must be there, and the completion must complete.
# 3. scripts/vm/vm.sh boots that kernel (the same release, fetched by scripts/setup/kernels.sh,
#    or by the root's apt when Debian published a newer one since the host's lists) with
#    build/deb-check shared at /host; the guest chroots into the root and runs its
#    /usr/sbin/gotrace: load (as modprobe: the DKMS-built module through the root's
#    modules.dep), record -o /tmp/t.trace -- sh -c 'sleep 0.2', check, unload.
#    Then the flight recorder's service as users run it: the root, copied into an ext4
#    image, boots with systemd as init (vm.sh --root-disk), and selftests/service_guest.sh
#    enables gotrace-flight.service there and puts it through stalls, requests, reloads,
#    quotas, a full file system, bad hooks and kill -9; each snapshot is checked by the
#    packaged gotrace check (in the root) and copied to $GOTRACE_DEB_TRACES when that is set
#    (check-stock.sh has Go's readers read them).
# 4. In the root: apt remove --purge gotrace gotrace-dkms, then apt autoremove --purge: no
#    file of gotrace may be left (/usr/src/gotrace-*, the DKMS tree, the module and its
#    modules.dep line, the command, man pages, header, completion; no path named *gotrace*).
#
# The root is removed at the end (GOTRACE_DEB_KEEP=1 keeps it). Commands in the root run in
# a private mount namespace (unshare -m) with /proc, /sys, /dev and the host's resolv.conf
# mounted into it, so nothing stays mounted. Needs root; installs what it needs (mmdebstrap,
# scripts/setup/deps.sh, scripts/setup/kernels.sh). Nothing is loaded into the host's kernel.
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/lib/tap-lib.sh
. "$ROOT/scripts/lib/tap-lib.sh"
DEBS="$ROOT/build/deb"
WORK="$ROOT/build/deb-check"
R="$WORK/root"
CACHE="$WORK/apt-cache"
LOGS="$WORK/logs"
MIRROR=http://deb.debian.org/debian
SECURITY=http://deb.debian.org/debian-security

bail() {
	echo "Bail out! deb-check.sh: $*"
	exit 1
}

# log NAME: the path of a log file.
log() {
	echo "$LOGS/$1.log"
}

# check DESCRIPTION COMMAND...: one TAP result from COMMAND's exit status.
check() {
	name=$1
	shift
	"$@"
	result $? "$name"
}

# in_root COMMAND...: run COMMAND chrooted in the root, with /proc, /sys, /dev (and what is
# mounted below it), resolv.conf and the apt cache mounted in a private mount namespace.
in_root() {
	unshare -m sh -eu -c '
		r=$1
		shift
		mount -t proc proc "$r/proc"
		mount -t sysfs sysfs "$r/sys"
		mount --rbind /dev "$r/dev"
		[ -e "$r/etc/resolv.conf" ] || : > "$r/etc/resolv.conf"
		mount --bind /etc/resolv.conf "$r/etc/resolv.conf"
		mount --bind "$CACHE" "$r/var/cache/apt/archives"
		exec chroot "$r" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
			DEBIAN_FRONTEND=noninteractive "$@"
	' sh "$R" "$@"
}

echo "TAP version 13"
[ "$(id -u)" -eq 0 ] || bail "needs root (mmdebstrap, chroot, mount namespaces)"
export CACHE
start=$(date +%s)

# Tools: the project's (QEMU, busybox, kernels), mmdebstrap, and the packages themselves.
"$ROOT/scripts/setup/deps.sh" >&2 || bail "scripts/setup/deps.sh failed"
if ! command -v mmdebstrap > /dev/null; then
	echo "# installing mmdebstrap"
	{ apt-get update -q && apt-get install -y -q --no-install-recommends mmdebstrap; } >&2 ||
		bail "cannot install mmdebstrap"
fi
"$ROOT/scripts/setup/kernels.sh" > /dev/null || bail "scripts/setup/kernels.sh failed"
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$ROOT/dkms.conf")
if ! ls "$DEBS/gotrace_${ver}_"*.deb "$DEBS/gotrace-dkms_${ver}_all.deb" > /dev/null 2>&1; then
	"$ROOT/scripts/package/deb.sh" >&2 || bail "scripts/package/deb.sh failed"
fi

rm -rf "$R" "$LOGS"
mkdir -p "$R" "$CACHE" "$LOGS"
trap '[ -n "${GOTRACE_DEB_KEEP:-}" ] || rm -rf "$R"' EXIT

# 1. The root.
t0=$(date +%s)
mmdebstrap --mode=root --variant=minbase --include=linux-headers-amd64,systemd-sysv,udev \
	--skip=essential/unlink,cleanup/apt/lists \
	--setup-hook='mkdir -p "$1/var/cache/apt/archives"' \
	--setup-hook="sync-in $CACHE /var/cache/apt/archives/" \
	--customize-hook="sync-out /var/cache/apt/archives $CACHE" \
	bookworm "$R" "deb $MIRROR bookworm main" "deb $MIRROR bookworm-updates main" \
	"deb $SECURITY bookworm-security main" > "$(log mmdebstrap)" 2>&1
rc=$?
[ "$rc" -eq 0 ] || tail -n 20 "$(log mmdebstrap)" | sed 's/^/# /'
result "$rc" "mmdebstrap: a minimal bookworm root with linux-headers-amd64 and systemd ($(($(date +%s) - t0))s)"
[ "$rc" -eq 0 ] || bail "no root to install into (log: $(log mmdebstrap))"
kver=$(ls "$R/usr/src" | sed -n 's/^linux-headers-\(.*-amd64\)$/\1/p' | sort -V | tail -n 1)
hdrver=$(in_root dpkg-query -W -f='${Version}' "linux-headers-$kver" 2>/dev/null)
echo "# the root's kernel: $kver (linux-headers-$kver $hdrver)"
[ -n "$kver" ] || bail "linux-headers-amd64 installed no linux-headers-*-amd64 in the root"

# 2. The packages, as a user installs them: copied into the root's /, then apt install ./...
t0=$(date +%s)
cp "$DEBS/gotrace_${ver}_"*.deb "$DEBS/gotrace-dkms_${ver}_all.deb" "$R/" ||
	bail "cannot copy the packages from $DEBS into the root"
in_root sh -c "cd / && apt install -y -q ./gotrace_${ver}_*.deb ./gotrace-dkms_${ver}_all.deb" \
	> "$(log install)" 2>&1 < /dev/null
rc=$?
rm -f "$R"/gotrace_*.deb "$R"/gotrace-dkms_*.deb
sed -n '/^Setting up gotrace/,/^Processing triggers/p' "$(log install)" | sed 's/^/# /'
[ "$rc" -eq 0 ] || tail -n 30 "$(log install)" | sed 's/^/# /'
result "$rc" \
	"apt install ./gotrace_${ver}_*.deb ./gotrace-dkms_${ver}_all.deb ($(($(date +%s) - t0))s)"

in_root dkms status -m gotrace > "$WORK/dkms-status" 2>&1
sed 's/^/# dkms status: /' "$WORK/dkms-status"
check "dkms status: gotrace/$ver installed for $kver" \
	grep -q "^gotrace/$ver, $kver, x86_64: installed" "$WORK/dkms-status"
ko="$R/lib/modules/$kver/updates/dkms/gotrace.ko"
modinfo -F vermagic "$ko" > "$WORK/vermagic" 2>&1
sed 's/^/# vermagic: /' "$WORK/vermagic"
check "DKMS built lib/modules/$kver/updates/dkms/gotrace.ko for $kver" \
	grep -q "^$kver " "$WORK/vermagic"
check "the root's modules.dep names it (gotrace load finds it as modprobe does)" \
	grep -q '^updates/dkms/gotrace.ko:' "$R/lib/modules/$kver/modules.dep"
check "the sources in /usr/src/gotrace-$ver" test -f "$R/usr/src/gotrace-$ver/dkms.conf"
in_root /usr/sbin/gotrace --version > "$WORK/version" 2>&1
rc=$?
sed 's/^/# /' "$WORK/version"
result "$rc" "gotrace --version runs in the root"
for f in /usr/sbin/gotrace /usr/share/man/man8/gotrace.8.gz /usr/share/man/man4/gotrace.4.gz \
	/usr/include/linux/gotrace.h /usr/include/gotrace_annotate.h \
	/usr/share/bash-completion/completions/gotrace /lib/systemd/system/gotrace-flight.service \
	/lib/systemd/system/gotrace-module.service /etc/gotrace/flight.conf; do
	check "installed: $f" test -s "$R$f"
done
check "the service is not enabled" test ! -e "$R/etc/systemd/system/multi-user.target.wants/gotrace-flight.service"
check "its configuration is a conffile" grep -qx /etc/gotrace/flight.conf "$R/var/lib/dpkg/info/gotrace.conffiles"

# The completion, with the host's bash-completion (the root has none): commands and options.
completes() {
	want=$1
	shift
	got=$(bash -c '
		. /usr/share/bash-completion/bash_completion 2>/dev/null
		. "$1"
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		_gotrace gotrace "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		echo "${COMPREPLY[*]}"
	' sh "$R/usr/share/bash-completion/completions/gotrace" "$@" 2>/dev/null)
	[ "$got" = "$want" ] || {
		echo "# completing '$*': '$got', expected '$want'"
		return 1
	}
}
if [ -f /usr/share/bash-completion/bash_completion ]; then
	check "completion: gotrace st<TAB>" completes "start stop status stats" gotrace st
	check "completion: gotrace stop -<TAB>" completes "--no-wait --help" gotrace stop -
	check "completion: gotrace stats --<TAB>" completes "--all --json --help" gotrace stats --
	check "completion: gotrace unload -<TAB>" completes "--force --help" gotrace unload -
	check "completion: gotrace status -<TAB>" completes "--json --help" gotrace status -
	check "completion: gotrace record -c <TAB>" completes "auto mono tsc" gotrace record -c ""
else
	echo "ok $((tap_n + 1)) - completion # SKIP the host has no bash-completion"
	tap_n=$((tap_n + 1))
fi

# 3. The guest: the root's kernel, the root's gotrace and the module DKMS built there.
# The host's kernels (scripts/setup/kernels.sh) hold the root's, unless Debian published a
# new kernel ABI between the host's apt lists and the root's (a security update during
# make check, or lists not refreshed since): then the root's apt fetches its own image.
kernels=$ROOT/build/kernels
if ! "$ROOT/scripts/setup/kernels.sh" --list | grep -qx "$kver"; then
	echo "# the host's kernels are $("$ROOT/scripts/setup/kernels.sh" --list | tr '\n' ' ')(not" \
		"$kver): the root's apt fetches linux-image-$kver"
	kernels=$WORK/kernels
	rm -rf "$kernels" "$CACHE/linux-image-${kver}_"*.deb
	mkdir -p "$kernels/$kver"
	in_root sh -c "cd /var/cache/apt/archives && apt-get download -q linux-image-$kver" \
		> "$(log image)" 2>&1 < /dev/null &&
		dpkg-deb -x "$CACHE/linux-image-${kver}_"*.deb "$kernels/$kver" &&
		depmod -b "$kernels/$kver" "$kver" ||
		bail "cannot fetch and unpack linux-image-$kver with the root's apt (log: $(log image))"
	dpkg-deb -W --showformat='${Package} ${Version}\n' "$CACHE/linux-image-${kver}_"*.deb \
		> "$kernels/$kver/.image-stamp"
fi
echo "# booting $(cat "$kernels/$kver/.image-stamp" 2>/dev/null)"
cat > "$WORK/guest.sh" <<'EOF'
# Runs in the guest (busybox sh) in /host: the root's gotrace, chrooted, on its module.
# Each step's output goes to /host/step-NAME.out, "STEP NAME STATUS" to stdout.
r=/host/root
step() {
	name=$1
	shift
	"$@" > "/host/step-$name.out" 2>&1
	echo "STEP $name $?"
}
mount -t proc proc $r/proc
mount -t sysfs sysfs $r/sys
mount -o bind /dev $r/dev
mount -t tmpfs tmpfs $r/tmp
step load chroot $r /usr/sbin/gotrace load
step loaded grep '^gotrace ' /proc/modules
step record chroot $r /usr/sbin/gotrace record -q -o /tmp/t.trace -- sh -c 'sleep 0.2'
step check chroot $r /usr/sbin/gotrace check /tmp/t.trace
step stats chroot $r /usr/sbin/gotrace stats /tmp/t.trace
step unload chroot $r /usr/sbin/gotrace unload
cp $r/tmp/t.trace /host/t.trace
umount $r/tmp $r/dev $r/sys $r/proc
EOF
rm -f "$WORK"/t.trace "$WORK"/step-*.out "$WORK/guest.out"
t0=$(date +%s)
GOTRACE_VM_KERNELS=$kernels \
	"$ROOT/scripts/vm/vm.sh" --quiet --timeout 600 --log "$(log console)" --stdout "$WORK/guest.out" \
	"$kver" "$WORK" -- sh /host/guest.sh > "$(log vm)" 2>&1
rc=$?
sed 's/^/# /' "$(log vm)"
result "$rc" \
	"a guest on $kver ran the root's gotrace ($(($(date +%s) - t0))s; console: $(log console))"
# guest_step NAME DESCRIPTION: the step's result, with its output if it failed.
guest_step() {
	grep -q "^STEP $1 0\$" "$WORK/guest.out" 2>/dev/null
	result $? "guest: $2" "$WORK/step-$1.out"
}
guest_step load "gotrace load (the DKMS-built module, found through the root's modules.dep)"
guest_step loaded "the module is loaded"
guest_step record "gotrace record -o /tmp/t.trace -- sh -c 'sleep 0.2'"
guest_step check "gotrace check /tmp/t.trace"
guest_step stats "gotrace stats /tmp/t.trace"
guest_step unload "gotrace unload"
grep -q '^sleep ' "$WORK/step-stats.out" 2>/dev/null
result $? "the trace has the recorded command: gotrace stats lists a program 'sleep'" \
	"$WORK/step-stats.out"
echo "# trace: $(stat -c %s "$WORK/t.trace" 2>/dev/null || echo no) bytes"

# rebuilt KO OUT: KO with another build id at OUT, as DKMS would rebuild it (the id's first
# byte flipped: nothing else changes).
rebuilt() {
	python3 - "$1" "$2" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
shoff, = struct.unpack_from("<Q", data, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
def section(i):
    return struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)
names = section(shstrndx)[4]
for i in range(shnum):
    name, kind, _, _, off, size = section(i)
    if data[names + name:].split(b"\0", 1)[0] == b".note.gnu.build-id":
        data[off + 16] ^= 0xff
        open(sys.argv[2], "wb").write(data)
        sys.exit(0)
sys.exit("no .note.gnu.build-id in " + sys.argv[1])
PY
}

# The service: the root, with the packages in it, booted with systemd as init from a copy of
# it (the purge below checks the root itself). selftests/service_guest.sh prints a "RESULT
# STATUS DESCRIPTION" line per check.
t0=$(date +%s)
svc=$WORK/service
img=$WORK/service.img
rm -rf "$svc" "$img"
mkdir -p "$svc/snaps"
cp "$ROOT/selftests/service_guest.sh" "$ROOT/selftests/service_test.conf" "$svc/" &&
	rebuilt "$ko" "$svc/gotrace-rebuilt.ko" &&
	${CC:-cc} -static -O2 -pthread -o "$svc/stall_helper" "$ROOT/selftests/stall_helper.c" \
		"$ROOT/selftests/stall.c" &&
	truncate -s 4G "$img" && mke2fs -q -t ext4 -d "$R" "$img" > "$(log mke2fs)" 2>&1
rc=$?
[ "$rc" -eq 0 ] || tail -n 20 "$(log mke2fs)" | sed 's/^/# /'
result "$rc" "the root as an ext4 image, and the guest's stall_helper ($(($(date +%s) - t0))s)"
t0=$(date +%s)
GOTRACE_VM_KERNELS=$kernels \
	"$ROOT/scripts/vm/vm.sh" --quiet --timeout 900 --root-disk "$img" \
	--log "$(log service-console)" --stdout "$WORK/service.out" "$kver" "$WORK" -- \
	sh /host/service/service_guest.sh /host/service/stall_helper \
	/host/service/gotrace-rebuilt.ko /host/service/snaps \
	> "$(log service-vm)" 2>&1
rc=$?
rm -f "$img"
sed 's/^/# /' "$(log service-vm)"
result "$rc" "a guest on $kver booted the root with systemd and ran service_guest.sh" \
	"($(($(date +%s) - t0))s; console: $(log service-console))"
while IFS= read -r line; do
	case $line in
	"RESULT "*)
		line=${line#RESULT }
		result "${line%% *}" "service: ${line#* }"
		;;
	"#"*) echo "$line" ;;
	esac
done < "$WORK/service.out"
grep -q '^RESULT ' "$WORK/service.out" 2>/dev/null
result $? "service: the guest's checks ran (its output: $WORK/service.out)"
nsnap=0 nbad=0
mkdir -p "$R/tmp/snaps"
for f in "$svc"/snaps/*.trace; do
	[ -f "$f" ] || continue
	nsnap=$((nsnap + 1))
	cp "$f" "$R/tmp/snaps/s.trace"
	in_root /usr/sbin/gotrace check /tmp/snaps/s.trace > "$WORK/snap-check.out" 2>&1 || {
		nbad=$((nbad + 1))
		echo "# ${f##*/}: $(tail -n 1 "$WORK/snap-check.out")"
	}
done
rm -rf "$R/tmp/snaps"
check "service: gotrace check passes each of its $nsnap snapshots ($nbad fail)" \
	test "$nsnap" -ge 5 -a "$nbad" -eq 0
if [ -n "${GOTRACE_DEB_TRACES:-}" ]; then
	mkdir -p "$GOTRACE_DEB_TRACES" && cp "$svc"/snaps/*.trace "$GOTRACE_DEB_TRACES/"
fi

# 4. Purge: nothing of gotrace may stay, before autoremove and after it.
t0=$(date +%s)
in_root apt-get remove --purge -y -q gotrace gotrace-dkms > "$(log purge)" 2>&1 < /dev/null
rc=$?
[ "$rc" -eq 0 ] || tail -n 20 "$(log purge)" | sed 's/^/# /'
result "$rc" "apt remove --purge gotrace gotrace-dkms ($(($(date +%s) - t0))s)"
in_root dpkg-query -W -f='${db:Status-Status} ${Package}\n' 'gotrace*' > "$WORK/dpkg" 2>/dev/null
sed 's/^/# dpkg: /' "$WORK/dpkg"
check "dpkg knows no gotrace package" sh -c "! grep -v '^not-installed ' '$WORK/dpkg' | grep -q ."
check "no /usr/src/gotrace-*" sh -c "! ls -d '$R'/usr/src/gotrace-* 2> /dev/null"
check "no DKMS tree entry (/var/lib/dkms/gotrace)" test ! -e "$R/var/lib/dkms/gotrace"
check "no gotrace.ko under /lib/modules" \
	sh -c "[ -z \"\$(find '$R/lib/modules' -name 'gotrace.ko*')\" ]"
check "no modules.dep line for it" sh -c "! grep -rqs gotrace '$R'/lib/modules/*/modules.dep"
for f in /usr/sbin/gotrace /usr/share/man/man8/gotrace.8.gz /usr/share/man/man4/gotrace.4.gz \
	/usr/include/linux/gotrace.h /usr/share/bash-completion/completions/gotrace \
	/lib/systemd/system/gotrace-flight.service /lib/systemd/system/gotrace-module.service \
	/etc/gotrace; do
	check "removed: $f" test ! -e "$R$f"
done
(cd "$R" && find . -xdev -name '*gotrace*') > "$WORK/left" 2>/dev/null
sed 's/^/# left behind: /' "$WORK/left"
check "no path in the root is named *gotrace*" test ! -s "$WORK/left"

# Then autoremove takes what was installed for gotrace-dkms (dkms, the compiler, sudo, ...);
# none of it is ours. sudo's prerm refuses to go in a root without a root password unless
# SUDO_FORCE_REMOVE=yes.
in_root env SUDO_FORCE_REMOVE=yes apt-get autoremove --purge -y -q > "$(log autoremove)" 2>&1 \
	< /dev/null
rc=$?
grep -c '^Removing ' "$(log autoremove)" | sed 's/^/# autoremove: packages removed: /'
[ "$rc" -eq 0 ] || tail -n 20 "$(log autoremove)" | sed 's/^/# /'
[ "$rc" -eq 0 ] && ! grep -q '^Removing gotrace' "$(log autoremove)"
result $? "apt autoremove --purge: only what was installed for it, nothing of ours"
(cd "$R" && find . -xdev -name '*gotrace*') > "$WORK/left" 2>/dev/null
sed 's/^/# left behind: /' "$WORK/left"
check "still no path named *gotrace*" test ! -s "$WORK/left"

echo "# deb-check.sh: $(($(date +%s) - start))s"
tap_end
