# SPDX-License-Identifier: GPL-2.0
# gotrace: build the module, the CLI and the tests; run the VM suite and the demo.

# The kernel to build for: the running kernel's build tree if it has one,
# else the newest installed Debian headers.
KVER ?= $(shell uname -r)
KDIR ?= $(firstword $(wildcard /lib/modules/$(KVER)/build) \
		    $(lastword $(sort $(wildcard /usr/src/linux-headers-*-amd64))))

CHECKPATCH ?= build/linux-source/scripts/checkpatch.pl

.PHONY: all module userspace selftests deps check demo style sparse clean

all: module userspace

module:
	@test -n "$(KDIR)" || { echo "no kernel headers: install linux-headers-$(KVER) or run scripts/deps.sh" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

userspace:
	$(MAKE) -C userspace

selftests:
	$(MAKE) -C selftests

# Install every Debian package the build, the VM tests and the Go checks need.
deps:
	scripts/deps.sh
	scripts/kernels.sh

# The test command: every test, on both kernels, then Go's readers on every trace.
check:
	scripts/check.sh

# The main job: boot a guest, record a workload, leave out.trace here.
demo:
	scripts/demo.sh

style: $(CHECKPATCH)
	$(CHECKPATCH) --strict --no-tree --terse -f module/*.c module/*.h uapi/linux/*.h

sparse:
	$(MAKE) -C $(KDIR) M=$(CURDIR) C=2 W=1 modules

$(CHECKPATCH):
	scripts/kernels.sh --source-only

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C userspace clean
	$(MAKE) -C selftests clean
	rm -rf build
