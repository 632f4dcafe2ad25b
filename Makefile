# SPDX-License-Identifier: GPL-2.0
# gotrace: build the module, the CLI and the tests; run the VM suite and the demo.

# The kernel to build for: KDIR if given, else the running kernel's build tree. Without
# either, make module refuses and names the header trees installed (make module KDIR=...).
KVER ?= $(shell uname -r)
KDIR ?= $(wildcard /lib/modules/$(KVER)/build)

CHECKPATCH ?= build/linux-source/scripts/checkpatch.pl
KERNEL_DOC ?= build/linux-source/scripts/kernel-doc

.PHONY: all module userspace selftests deps check demo bench style sparse clean \
	install uninstall dkms-src dkms-install deb deb-check

# make install: gotrace.ko into /lib/modules/RELEASE/extra for the kernel KDIR builds for,
# then depmod; the CLI, its man pages and the uapi header under PREFIX. DESTDIR stages it
# all in another root (depmod -b runs there).
PREFIX ?= /usr/local
MOD_KVER = $(or $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' \
		     $(KDIR)/include/generated/utsrelease.h 2>/dev/null),$(KVER))
MODDIR = $(DESTDIR)/lib/modules/$(MOD_KVER)/extra
DEPMOD = depmod $(if $(DESTDIR),-b $(DESTDIR)) $(MOD_KVER)
DKMS_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
DKMS_SRC = $(DESTDIR)/usr/src/gotrace-$(DKMS_VERSION)

all: module userspace

module:
	@scripts/kbuild/module-target.sh "$(KDIR)" "$(KVER)"
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

userspace:
	$(MAKE) -C userspace

selftests:
	$(MAKE) -C selftests

# Install every Debian package the build, the VM tests and the Go checks need.
deps:
	scripts/setup/deps.sh
	scripts/setup/kernels.sh

# The test command: every test. Both halves run; it fails if either failed. The debug
# kernel builds at idle priority meanwhile, in the CPU time check-stock's guests leave.
# When check-stock failed, its failed suites and why are printed again last, so that a log
# that keeps only its tail (CI's) still names them.
# Documentation/testing.rst says what each test target runs and how to run one suite.
check:
	@scripts/setup/deps.sh
	@bg=$$(scripts/setup/debug-kernel.sh --background) || exit 1; \
	trap 'kill -- -$$bg 2>/dev/null || true' EXIT; trap 'exit 1' INT TERM; \
	stock=0; scripts/run/check-stock.sh || stock=1; \
	debug=0; scripts/run/check-debug.sh || debug=1; \
	if [ $$stock -ne 0 ]; then \
		echo; echo "=== make check: check-stock.sh FAILED; its failures again (build/check/failures.txt):"; \
		cat build/check/failures.txt 2>/dev/null || \
			echo "check-stock.sh stopped before its summary: its last messages, before check-debug's, say why"; \
	fi; \
	[ $$stock -eq 0 ] && [ $$debug -eq 0 ]

# Host tests, then the suite on Debian's 6.1 and 6.12 kernels and Go's readers on every trace.
.PHONY: check-stock check-debug debug-kernel
check-stock:
	scripts/run/check-stock.sh

# After make check: gotrace split of the long run's 1 GiB trace (build/check/long) in 64M
# pieces, as make check does, each checked by gotrace check and by Go's reader (make check:
# the first, a middle and the last). About 10 minutes, 5 GB of RAM.
.PHONY: check-long
check-long:
	GO_PIECES=all scripts/suites/split-check.sh build/check/long/stress-long-run.trace \
		build/check/long/pieces

# The join oracle alone (issue 32): on Debian 12's 6.12 kernel (or JOIN_KVER), a throttled Go
# program built by Go 1.23 and 1.27 traced by itself, gotrace and ftrace in one guest, then
# gotrace merge and scripts/oracles/join-compare.py; then join-compare.py's self-test on its
# Go 1.27 run; it fails if either failed. Everything goes to build/join. About a minute.
JOIN_KVER ?= 6.12.95+deb12-amd64
.PHONY: check-join
check-join:
	scripts/kbuild/vm-module.sh $(JOIN_KVER) build/join/$(JOIN_KVER) >/dev/null
	$(MAKE) -C userspace static OUT=$(CURDIR)/build/join/bin
	@rc=0; scripts/oracles/join-oracle.sh $(JOIN_KVER) build/join || rc=1; \
	scripts/oracle-tests/join-compare-selftest.sh build/join/join/$(JOIN_KVER)/go1.27 || rc=1; \
	exit $$rc

# Everything everywhere: make check's first half on the six kernels of Linux 5.10 to 7.3 that
# Debian's suites ship (each built with its own compiler), then make check-debug. Hours.
.PHONY: check-kernels
check-kernels:
	@scripts/setup/deps.sh
	scripts/run/check-kernels.sh

# The whole suite on the debug kernel (lockdep, KASAN, kmemleak) and on Debian's -rt kernel.
check-debug:
	scripts/run/check-debug.sh

# Build (once; cached under /var/cache/gotrace) the debug kernel and print its KVER.
debug-kernel:
	scripts/setup/debug-kernel.sh

# The README's two commands on a minimal fresh Debian 12 root (mmdebstrap), in a chroot.
# CHECK_FRESH_ARGS=--demo-only runs make demo alone.
.PHONY: check-fresh
check-fresh:
	scripts/run/check-fresh.sh $(CHECK_FRESH_ARGS)

# The main job: boot a guest, record a workload, leave out.trace here.
demo:
	scripts/run/demo.sh

# gotrace against ftrace in guest instructions, one 1-vCPU guest; results in build/bench.
# BENCH_ARGS: scripts/run/bench.sh options, e.g. BENCH_ARGS="--rev HEAD~1 -- --rounds 5".
bench:
	scripts/run/bench.sh $(BENCH_ARGS)

install: module userspace
	install -D -m 644 gotrace.ko $(MODDIR)/gotrace.ko
	$(DEPMOD)
	$(MAKE) -C userspace install DESTDIR=$(DESTDIR) PREFIX=$(PREFIX)

uninstall:
	rm -f $(MODDIR)/gotrace.ko
	-rmdir $(MODDIR) 2>/dev/null
	$(DEPMOD)
	$(MAKE) -C userspace uninstall DESTDIR=$(DESTDIR) PREFIX=$(PREFIX)

# The sources DKMS builds from, in /usr/src/gotrace-VERSION.
dkms-src:
	rm -rf $(DKMS_SRC)
	mkdir -p $(DKMS_SRC)
	cp --parents dkms.conf Kbuild $(wildcard module/*.[ch] uapi/linux/*.h) $(DKMS_SRC)/

# Register them (again), build and install for the kernel KDIR builds for (as root).
dkms-install: dkms-src
	-dkms remove -m gotrace -v $(DKMS_VERSION) --all 2>/dev/null
	dkms add -m gotrace -v $(DKMS_VERSION)
	dkms build -m gotrace -v $(DKMS_VERSION) -k $(MOD_KVER)
	dkms install -m gotrace -v $(DKMS_VERSION) -k $(MOD_KVER)

# Debian packages gotrace-dkms and gotrace into build/deb/, lintian-clean (scripts/package/deb.sh).
deb:
	scripts/package/deb.sh

# Install them into a fresh Debian 12 root, record in a guest with the DKMS-built module,
# purge them again (scripts/suites/deb-check.sh, TAP).
deb-check: deb
	scripts/suites/deb-check.sh

# checkpatch --strict, then kernel-doc's verbose checks (every comment's parameters and
# return value): both must print no warning.
style: $(CHECKPATCH) $(KERNEL_DOC)
	$(CHECKPATCH) --strict --no-tree --terse -f module/*.c module/*.h uapi/linux/*.h
	@out=$$(perl $(KERNEL_DOC) -v -none module/*.c module/*.h uapi/linux/*.h 2>&1 | \
		grep -i warning); [ -z "$$out" ] || { echo "$$out"; exit 1; }; \
	echo "kernel-doc: no warnings"

sparse:
	$(MAKE) -C $(KDIR) M=$(CURDIR) C=2 W=1 modules

$(CHECKPATCH) $(KERNEL_DOC):
	scripts/setup/kernels.sh --source-only

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C userspace clean
	$(MAKE) -C selftests clean
	rm -rf build
