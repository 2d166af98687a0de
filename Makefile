# SPDX-License-Identifier: GPL-2.0
#
# hicn.ko and psock.ko, built out of tree, with their userspace and tests.
#
#   make                  modules (W=1) + userspace
#   make selftests        the selftest programs (needs make setup first)
#   sudo make install     install the modules for the running kernel, the
#                         uapi headers and the userspace library
#   make check            set-up, build, every selftest in a VM per kernel:
#                         Debian 6.1, Debian 6.12 and the debug kernel
#                         (mainline 7.2 with KASAN, kmemleak, lockdep, ...)
#                         (KERNELS="6.1 6.12 7.2-debug" SUITES="hicn psock"
#                         narrow it)
#   make check-long       what CI does not run: make check with LONG=1 (the
#                         stress, flood and soak sizes), the harness
#                         self-test and the benchmarks
#   make check-harness    the harness's own self-test: deliberately leaking
#                         and use-after-free builds, a missing kernel, a
#                         guest without memory and a hung guest must each
#                         turn a run red with a log naming the cause
#   make demo             set-up, build, boot a VM and run the demo
#   make bench            set-up, build, run bench/ in a VM
#   make style            checkpatch.pl --strict over our C files
#   make netlink-gen      regenerate the netlink code from the YAML specs
#                         (Documentation/netlink/specs/) with the kernel's
#                         generator; make netlink-check (run by make check
#                         and make style) fails when the committed files
#                         differ from what the specs generate
#   make sparse           sparse (C=2) over the modules
#
# KDIR selects the kernel to build against.  Default: the running kernel's
# build directory when it exists, otherwise every installed kernel under
# /lib/modules plus the debug kernel when it has been built.  The VM targets
# (check, demo, bench) always build for every installed kernel and the debug
# kernel, whatever kernel the host runs.  Each kernel's objects go to
# .cache/build/<release>/ so several kernels can be built side by side.

TOP	:= $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
CACHE	?= $(TOP)/.cache
BUILD	?= $(CACHE)/build
DEBUG_KDIR := $(CACHE)/debug-kernel/current
KSRC	:= $(CACHE)/ksrc
PREFIX	?= /usr/local

ALL_KDIRS = $(patsubst %/Makefile,%,$(wildcard /lib/modules/*/build/Makefile)) \
	    $(if $(wildcard $(DEBUG_KDIR)/Module.symvers),$(DEBUG_KDIR))

ifneq ($(origin KDIR),undefined)
KDIRS	:= $(KDIR)
else ifneq ($(VM_TARGETS),)
KDIRS	:= $(ALL_KDIRS)
else ifneq ($(wildcard /lib/modules/$(shell uname -r)/build/Makefile),)
KDIRS	:= /lib/modules/$(shell uname -r)/build
else
KDIRS	:= $(ALL_KDIRS)
endif

# Targets of the VM runs: "make check" covers the debug kernel too.
CHECK_KERNELS	?= 6.1 6.12 7.2-debug
KERNELS		?= $(CHECK_KERNELS)

# Release string of a kernel build directory: /lib/modules/<rel>/build
# names it; any other tree carries it in include/config/kernel.release.
krel = $$(case $(1) in /lib/modules/*/build) basename $$(dirname $(1));; \
	*) cat $(1)/include/config/kernel.release;; esac)

MOD_SRC	:= Kbuild VERSION net include
KBUILD_FLAGS := W=1 $(if $(WERROR),KCFLAGS=-Werror) \
		$(if $(HICN_FAULT),HICN_FAULT=$(HICN_FAULT))

SELFTESTS := tools/testing/selftests/net/lib \
	     tools/testing/selftests/net/hicn \
	     tools/testing/selftests/net/psock
USERSPACE := userspace bench

export TOP KSRC KERNELS

.PHONY: all modules userspace selftests install uninstall clean \
	setup debug-kernel check check-long check-harness demo bench style \
	sparse netlink-gen netlink-check

all: modules userspace

modules:
	@test -n "$(strip $(KDIRS))" || \
		{ echo "no kernel build directory; run tools/testing/vm/setup.sh or set KDIR" >&2; exit 1; }
	@set -e; for k in $(KDIRS); do \
		rel=$(call krel,$$k); out=$(BUILD)/$$rel; \
		mkdir -p $$out; cp -a $(MOD_SRC) $$out/; \
		echo "  MODULES  $$rel"; \
		$(MAKE) -s -C $$k M=$$out $(KBUILD_FLAGS) modules; \
	done

userspace:
	@set -e; for d in $(USERSPACE); do $(MAKE) -s -C $$d; done

selftests: userspace
	@test -f $(KSRC)/tools/testing/selftests/kselftest_harness.h || \
		{ echo "kselftest_harness.h missing: run tools/testing/vm/setup.sh" >&2; exit 1; }
	@set -e; for d in $(SELFTESTS); do $(MAKE) -s -C $$d; done

install: modules userspace
	@set -e; for k in $(KDIRS); do \
		rel=$(call krel,$$k); \
		$(MAKE) -s -C $$k M=$(BUILD)/$$rel INSTALL_MOD_DIR=extra modules_install; \
		depmod -a $$rel; \
	done
	install -d $(DESTDIR)$(PREFIX)/include/linux
	install -m 0644 include/uapi/linux/hicn.h include/uapi/linux/psock.h \
		include/uapi/linux/psock_netlink.h include/uapi/linux/hicn_netlink.h \
		$(DESTDIR)$(PREFIX)/include/linux/
	$(MAKE) -s -C userspace install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)

uninstall:
	@set -e; for k in $(KDIRS); do \
		rel=$(call krel,$$k); \
		rm -f /lib/modules/$$rel/extra/hicn.ko /lib/modules/$$rel/extra/psock.ko; \
		depmod -a $$rel; \
	done
	rm -f $(DESTDIR)$(PREFIX)/include/linux/hicn.h $(DESTDIR)$(PREFIX)/include/linux/psock.h \
		$(DESTDIR)$(PREFIX)/include/linux/psock_netlink.h \
		$(DESTDIR)$(PREFIX)/include/linux/hicn_netlink.h
	$(MAKE) -s -C userspace uninstall PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)

clean:
	rm -rf $(BUILD) $(CACHE)/results $(CACHE)/runs $(CACHE)/logs
	@set -e; for d in $(USERSPACE) $(SELFTESTS); do $(MAKE) -s -C $$d clean; done

setup:
	@tools/testing/vm/setup.sh

# Built once, cached by linux-source version and debug.config.
debug-kernel: setup
	@tools/testing/vm/debug-kernel.sh >/dev/null

# The VM targets build for every installed kernel and the debug kernel,
# warnings as errors; the debug kernel is built first when a target asks
# for it.
VM_BUILD = $(MAKE) -s setup && \
	{ case " $(KERNELS) " in *-debug*) $(MAKE) -s debug-kernel;; esac; } && \
	$(MAKE) -s WERROR=1 VM_TARGETS=1 modules selftests

check:
	@$(VM_BUILD)
	@$(MAKE) -s netlink-check
	@tools/testing/vm/run.sh check

check-long:
	@$(VM_BUILD)
	@LONG=1 tools/testing/vm/run.sh check
	@$(MAKE) -s check-harness
	@$(MAKE) -s bench

check-harness:
	@$(MAKE) -s KERNELS=7.2-debug setup debug-kernel
	@$(MAKE) -s WERROR=1 VM_TARGETS=1 modules selftests
	@tools/testing/vm/selftest.sh

demo: KERNELS = 6.12
demo:
	@$(VM_BUILD)
	@tools/testing/vm/run.sh demo

bench: KERNELS = 6.12
bench:
	@$(VM_BUILD)
	@tools/testing/vm/run.sh bench

# The generated netlink files (tools/net/ynl-regen.sh lists them).
netlink-gen: setup
	@tools/net/ynl-regen.sh

netlink-check:
	@tools/net/ynl-regen.sh --check

# Files the netlink generator wrote are left out, as mainline's generated
# files would be (its uapi enums have no blank line before their #define).
CHECKPATCH_FILES = $(filter-out $(shell git -C $(TOP) grep -l '^/\* YNL-GEN' -- \
	'net/*.[ch]' 'include/*.h'), \
	$(shell git -C $(TOP) ls-files -- 'net/*.[ch]' 'include/*.h' \
	'userspace/*.[ch]' 'tools/*.[ch]' 'bench/*.[ch]'))

style: netlink-check
	@test -x $(KSRC)/scripts/checkpatch.pl || \
		{ echo "checkpatch.pl missing: run tools/testing/vm/setup.sh" >&2; exit 1; }
	@$(KSRC)/scripts/checkpatch.pl --strict --no-tree --terse --show-types \
		--ignore SPDX_LICENSE_TAG,FILE_PATH_CHANGES \
		-f $(CHECKPATCH_FILES) | grep -v '^total: 0 errors, 0 warnings, 0 checks' \
		| { ! grep . ; } && echo "style: clean ($(words $(CHECKPATCH_FILES)) files)"

sparse:
	@set -e; for k in $(KDIRS); do \
		rel=$(call krel,$$k); out=$(BUILD)/$$rel; \
		mkdir -p $$out; cp -a $(MOD_SRC) $$out/; \
		echo "  SPARSE   $$rel"; \
		$(MAKE) -s -C $$k M=$$out W=1 C=2 modules 2>&1 | tee $$out/sparse.log; \
		! grep -E 'warning|error' $$out/sparse.log; \
	done
