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
#   make wire-check       the hICN wire codec (net/hicn/wire.c) on the host,
#                         under ASan/UBSan, against the FD.io captures
#                         (run first by make check)
#   make netlink-gen      regenerate the netlink code from the YAML specs
#                         (Documentation/netlink/specs/) with the kernel's
#                         generator; make netlink-check (run by make check
#                         and make style) fails when the committed files
#                         differ from what the specs generate
#   make sparse           sparse (C=2) over the modules
#   make htmldocs         Documentation/ as HTML with Sphinx, every warning
#                         an error, into .cache/htmldocs (run by make check);
#                         it fails when a code example written out in an
#                         .rst differs from the compiled source it copies
#   make docs-examples    copy those examples again (tools/docs/rst-examples.py)
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
VERSION	:= $(shell cat $(TOP)/VERSION)

# Where make install puts things (DESTDIR is prepended to each but the
# modules, which go under INSTALL_MOD_PATH as the kernel's modules_install
# has it).
PREFIX		?= /usr/local
INCLUDEDIR	?= $(PREFIX)/include
MANDIR		?= $(PREFIX)/share/man
BASHCOMPDIR	?= $(PREFIX)/share/bash-completion/completions
INSTALL_MOD_DIR	?= extra
# The installed modules lose their debug information, as a distribution's
# (and DKMS's) do: 6-7 MB each with it.  INSTALL_MOD_STRIP= keeps it.
INSTALL_MOD_STRIP ?= 1
MANIFEST_PATH	= $(PREFIX)/share/hicn-psock/manifest
MANIFEST	= $(DESTDIR)$(MANIFEST_PATH)
UAPI_HEADERS	:= hicn.h psock.h hicn_netlink.h psock_netlink.h
MAN_PAGES	= $(patsubst $(TOP)/%,%,$(wildcard $(TOP)/Documentation/man/man*/*.[1-8]))
DKMS_SRC	:= /usr/src/hicn-psock-$(VERSION)
DKMS_KERNELS	?= $(shell uname -r)

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
	     tools/testing/selftests/net/psock \
	     tools/testing/selftests/net/install
USERSPACE := userspace bench
WIRE_TEST := tools/testing/selftests/net/hicn/wire

export TOP KSRC KERNELS

.PHONY: all modules userspace selftests install uninstall clean \
	dkms-install dkms-uninstall dkms-check man-check \
	print-releases install-check \
	setup debug-kernel check check-long check-harness demo bench style \
	sparse netlink-gen netlink-check htmldocs docs-examples wire-check

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

# install never builds (as root it would leave root-owned objects in the
# tree): what it needs must have been built by "make" first.  It honours
# DESTDIR and PREFIX (everything but the modules) and INSTALL_MOD_PATH (the
# modules, for each kernel KDIRS selects), and writes the list of what it
# put, for uninstall, to $(MANIFEST): "mod PATH" lines are under
# INSTALL_MOD_PATH, "file PATH" lines under DESTDIR.  The kernel's
# modules_install names the module files (6.12 compresses them, as its
# CONFIG_MODULE_COMPRESS_* says), so they are found by name afterwards.
# depmod's index files are listed too when install created them (a fresh
# staging root), and stay listed when install runs again.  The man pages
# get the version in their title line.
install:
	@set -e; for k in $(KDIRS); do \
		rel=$(call krel,$$k); \
		for m in hicn psock; do \
			test -f $(BUILD)/$$rel/net/$$m/$$m.ko || \
			{ echo "$(BUILD)/$$rel/net/$$m/$$m.ko is missing: run make first" >&2; exit 1; }; \
		done; \
	done
	@test -x $(TOP)/userspace/hicnctl/hicnctl -a -n "$(wildcard $(TOP)/userspace/lib/*.a)" || \
		{ echo "userspace not built: run make first" >&2; exit 1; }
	@set -e; m=$(MANIFEST); mkdir -p $$(dirname $$m); : > $$m.tmp; \
	if [ -f $$m ]; then grep '^mod .*/modules\.[^/]*$$' $$m >> $$m.tmp || true; fi; \
	for k in $(KDIRS); do \
		rel=$(call krel,$$k); mods=$(INSTALL_MOD_PATH)/lib/modules/$$rel; \
		fresh=; test -e $$mods/modules.dep || fresh=1; \
		echo "  INSTALL  $$rel: hicn, psock into $$mods/$(INSTALL_MOD_DIR)"; \
		key=$$(sed -n 's/^CONFIG_MODULE_SIG_KEY="\{0,1\}\([^"]*\)"\{0,1\}$$/\1/p' \
			$$k/include/config/auto.conf); \
		case $$key in /*|pkcs11:*) ;; ?*) key=$$k/$$key;; esac; \
		nosig=; case $$key in pkcs11:*) ;; *) test -n "$$key" -a -f "$$key" || \
			nosig=CONFIG_MODULE_SIG_ALL=;; esac; \
		if [ -n "$$fresh" ]; then mkdir -p $$mods; \
			touch $$mods/modules.order $$mods/modules.builtin $$mods/modules.builtin.modinfo; fi; \
		log=$$(mktemp); \
		if ! $(MAKE) -s -C $$k M=$(BUILD)/$$rel INSTALL_MOD_DIR=$(INSTALL_MOD_DIR) \
			INSTALL_MOD_PATH=$(INSTALL_MOD_PATH) INSTALL_MOD_STRIP=$(INSTALL_MOD_STRIP) \
			$$nosig modules_install >$$log 2>&1; then \
			cat $$log >&2; rm -f $$log; exit 1; fi; \
		grep -v "missing 'System.map' file" $$log >&2 || true; rm -f $$log; \
		found=$$(find $$mods/$(INSTALL_MOD_DIR) \( -name 'hicn.ko*' -o -name 'psock.ko*' \) \
			\( -type f -o -type l \)); \
		test $$(echo "$$found" | wc -w) -ge 2 || \
			{ echo "modules_install put no hicn/psock module under $$mods/$(INSTALL_MOD_DIR)" >&2; exit 1; }; \
		for f in $$found; do echo "mod $${f#$(INSTALL_MOD_PATH)}"; done >> $$m.tmp; \
		depmod $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) $$rel; \
		if [ -n "$$fresh" ]; then \
			for f in $$mods/modules.*; do echo "mod $${f#$(INSTALL_MOD_PATH)}"; done >> $$m.tmp; \
		fi; \
	done; \
	inst() { install -D -m $$1 $(TOP)/$$2 $(DESTDIR)$$3; echo "file $$3" >> $$m.tmp; }; \
	for h in $(UAPI_HEADERS); do inst 0644 include/uapi/linux/$$h $(INCLUDEDIR)/linux/$$h; done; \
	for p in $(MAN_PAGES); do \
		f=$(MANDIR)/$$(basename $$(dirname $$p))/$$(basename $$p); \
		install -d $$(dirname $(DESTDIR)$$f); \
		sed 's/^\(\.TH .*\)"hicn-psock"/\1"hicn-psock $(VERSION)"/' $(TOP)/$$p > $(DESTDIR)$$f; \
		chmod 0644 $(DESTDIR)$$f; echo "file $$f" >> $$m.tmp; \
	done; \
	inst 0644 userspace/hicnctl/hicnctl.bash-completion $(BASHCOMPDIR)/hicnctl; \
	stamp=$$(mktemp); \
	$(MAKE) -s -C $(TOP)/userspace install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR); \
	find $(DESTDIR)$(PREFIX) -cnewer $$stamp \( -type f -o -type l \) ! -path '$(MANIFEST)*' | \
		while read -r f; do \
			grep -q -x -F "file $${f#$(DESTDIR)}" $$m.tmp || echo "file $${f#$(DESTDIR)}"; \
		done >> $$m.tmp; \
	rm -f $$stamp; \
	echo "file $(MANIFEST_PATH)" >> $$m.tmp; \
	mv $$m.tmp $$m; \
	echo "  INSTALL  $$(wc -l < $$m) files, listed in $$m"

# Removes what install put: the files of the manifest, or, without one
# (an install by an older tree), the modules found by name under each
# kernel's INSTALL_MOD_DIR and the files install would have put.  depmod
# runs again where an index is left.
uninstall:
	@set -e; m=$(MANIFEST); \
	if [ -f $$m ]; then \
		: > $$m.rels; \
		while read -r kind f; do \
			case $$kind in \
			mod) rm -f $(INSTALL_MOD_PATH)$$f; \
			     echo "$${f#/lib/modules/}" | cut -d/ -f1 >> $$m.rels ;; \
			file) rm -f $(DESTDIR)$$f ;; \
			esac; \
		done < $$m; \
		rels=$$(sort -u $$m.rels); rm -f $$m.rels; \
	else \
		echo "  UNINSTALL  no $$m: removing by name"; \
		rels=; for k in $(KDIRS); do rels="$$rels $(call krel,$$k)"; done; \
		for rel in $$rels; do \
			d=$(INSTALL_MOD_PATH)/lib/modules/$$rel/$(INSTALL_MOD_DIR); \
			test ! -d $$d || find $$d \( -name 'hicn.ko*' -o -name 'psock.ko*' \) -delete; \
		done; \
		for h in $(UAPI_HEADERS); do rm -f $(DESTDIR)$(INCLUDEDIR)/linux/$$h; done; \
		for p in $(MAN_PAGES); do \
			rm -f $(DESTDIR)$(MANDIR)/$$(basename $$(dirname $$p))/$$(basename $$p); \
		done; \
		rm -f $(DESTDIR)$(BASHCOMPDIR)/hicnctl; \
		$(MAKE) -s -C $(TOP)/userspace uninstall PREFIX=$(PREFIX) DESTDIR=$(DESTDIR); \
	fi; \
	for rel in $$rels; do \
		mods=$(INSTALL_MOD_PATH)/lib/modules/$$rel; \
		test ! -d $$mods/$(INSTALL_MOD_DIR) || \
			find $$mods/$(INSTALL_MOD_DIR) -depth -type d -empty -delete; \
		if [ -e $$mods/modules.dep ]; then \
			depmod $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) $$rel; \
		else \
			rmdir $$mods 2>/dev/null || true; \
		fi; \
	done; \
	rmdir $$(dirname $$m) 2>/dev/null || true; \
	echo "  UNINSTALL  done"

# DKMS: the sources DKMS builds from (dkms.conf, VERSION, Kbuild, net/,
# include/) into $(DESTDIR)/usr/src/hicn-psock-$(VERSION), then dkms add,
# build and install for DKMS_KERNELS (default: the running kernel).  With
# DESTDIR set (a package being staged) only the sources are copied.
# DKMS_FLAGS reaches every dkms command (e.g. --dkmstree DIR).
dkms-install:
	@set -e; src=$(DESTDIR)$(DKMS_SRC); rm -rf $$src; \
	for f in dkms.conf VERSION Kbuild $$(cd $(TOP) && find net include -type f \
		\( -name '*.[ch]' -o -name Kbuild \)); do \
		install -D -m 0644 $(TOP)/$$f $$src/$$f; \
	done; \
	echo "  DKMS     sources in $$src"
ifeq ($(DESTDIR),)
	dkms add $(DKMS_FLAGS) -m hicn-psock -v $(VERSION)
	@set -e; for k in $(DKMS_KERNELS); do \
		dkms build $(DKMS_FLAGS) -m hicn-psock -v $(VERSION) -k $$k; \
		dkms install $(DKMS_FLAGS) -m hicn-psock -v $(VERSION) -k $$k; \
	done
endif

dkms-uninstall:
ifeq ($(DESTDIR),)
	-dkms remove $(DKMS_FLAGS) -m hicn-psock -v $(VERSION) --all
endif
	rm -rf $(DESTDIR)$(DKMS_SRC)

# The DKMS package, tested (make check runs this on the host, as the VM
# cannot afford to compile): make dkms-install's sources, added to a private
# DKMS tree in $(DKMS_CACHE) and built by dkms for every kernel KDIRS
# selects.  The modules it built are copied to $(DKMS_CACHE)/<release>/,
# where the VM test (selftests/net/install/install.sh) loads them.  A
# kernel whose build fails is reported and the others are built; make
# check goes on to the VMs, where the test fails for the missing modules.
DKMS_CACHE := $(CACHE)/dkms
DKMS_CHECK_FLAGS = --dkmstree $(DKMS_CACHE)/tree \
		   --sourcetree $(DKMS_CACHE)/src$(dir $(DKMS_SRC)) \
		   --installtree $(DKMS_CACHE)/installed

dkms-check:
	@command -v dkms >/dev/null || { echo "dkms missing: run tools/testing/vm/setup.sh" >&2; exit 1; }
	@rm -rf $(DKMS_CACHE)
	@mkdir -p $(DKMS_CACHE)/tree $(DKMS_CACHE)/installed
	@$(MAKE) -s dkms-install DESTDIR=$(DKMS_CACHE)/src
	@dkms add $(DKMS_CHECK_FLAGS) -m hicn-psock -v $(VERSION) >$(DKMS_CACHE)/add.log 2>&1 || \
		{ cat $(DKMS_CACHE)/add.log; exit 1; }
	@bad=0; for k in $(KDIRS); do \
		rel=$(call krel,$$k); \
		if dkms build $(DKMS_CHECK_FLAGS) -m hicn-psock -v $(VERSION) -k $$rel \
			--kernelsourcedir $$k >$(DKMS_CACHE)/$$rel.log 2>&1; then \
			mkdir -p $(DKMS_CACHE)/$$rel; \
			cp $(DKMS_CACHE)/tree/hicn-psock/$(VERSION)/$$rel/*/module/* $(DKMS_CACHE)/$$rel/; \
			echo "  DKMS     $$rel: $$(cd $(DKMS_CACHE)/$$rel && echo *)"; \
		else \
			echo "  DKMS     $$rel: dkms build failed ($(DKMS_CACHE)/$$rel.log):"; \
			tail -n 30 $(DKMS_CACHE)/$$rel.log; \
			tail -n 30 $(DKMS_CACHE)/tree/hicn-psock/$(VERSION)/build/make.log 2>/dev/null; \
			bad=1; \
		fi; \
	done; exit $$bad

# The kernels install puts modules for, a release a line.
print-releases:
	@for k in $(KDIRS); do echo $(call krel,$$k); done

# make install and uninstall into a staging root, for every kernel built
# for (install/staging.sh; the VM's install/install.sh loads what a real
# install put).
install-check:
	@log=$$(mktemp); \
	if $(TOP)/tools/testing/selftests/net/install/staging.sh \
		$(if $(VM_TARGETS),VM_TARGETS=1) $(if $(KDIR),KDIR=$(KDIR)) >$$log 2>&1; then \
		echo "install-check: $$(grep -c '^ok' $$log) passed"; rm -f $$log; \
	else cat $$log; rm -f $$log; echo "install-check: failed" >&2; exit 1; fi

# Every man page through man --warnings (groff's warnings fail) and,
# where it is installed, mandoc -T lint (but on link pages: mandoc calls
# every ".so" fragile); from the man root, where a link page's
# ".so man3/page.3" is found, as it is once installed.
man-check:
	@set -e; for p in $(MAN_PAGES:Documentation/man/%=%); do \
		out=$$(cd $(TOP)/Documentation/man && \
		       LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l $$p 2>&1 >/dev/null); \
		if [ -n "$$out" ]; then echo "$$p: $$out" >&2; exit 1; fi; \
		if command -v mandoc >/dev/null && \
		   ! grep -q -x '\.so man[1-8]/[a-z_]*\.[1-8]' $(TOP)/Documentation/man/$$p; then \
			(cd $(TOP)/Documentation/man && mandoc -T lint -W warning $$p) || exit 1; \
		fi; \
	done; echo "man-check: clean ($(words $(MAN_PAGES)) pages)"

clean:
	rm -rf $(BUILD) $(CACHE)/results $(CACHE)/runs $(CACHE)/logs $(DKMS_CACHE)
	@set -e; for d in $(USERSPACE) $(SELFTESTS) $(WIRE_TEST); do $(MAKE) -s -C $$d clean; done

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
	@$(MAKE) -s wire-check
	@$(VM_BUILD)
	@$(MAKE) -s netlink-check man-check htmldocs
	@$(MAKE) -s VM_TARGETS=1 install-check
	@$(MAKE) -s VM_TARGETS=1 dkms-check || \
		echo "dkms-check failed: install/install.sh reports the missing modules"
	@tools/testing/vm/run.sh check

check-long:
	@$(VM_BUILD)
	@$(MAKE) -s VM_TARGETS=1 dkms-check || \
		echo "dkms-check failed: install/install.sh reports the missing modules"
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

# The hICN wire codec, built from net/hicn/wire.c into a host program
# (no kernel, no VM; a few seconds), byte-exact against hicn-light's packets.
wire-check:
	@$(MAKE) -s -C $(WIRE_TEST) run

# Files the netlink generator wrote are left out, as mainline's generated
# files would be (its uapi enums have no blank line before their #define).
CHECKPATCH_FILES = $(filter-out $(shell git -C $(TOP) grep -l '^/\* YNL-GEN' -- \
	'net/*.[ch]' 'include/*.h'), \
	$(shell git -C $(TOP) ls-files -- 'net/*.[ch]' 'include/*.h' \
	'userspace/*.[ch]' 'tools/*.[ch]' 'bench/*.[ch]'))

style: netlink-check man-check
	@test -x $(KSRC)/scripts/checkpatch.pl || \
		{ echo "checkpatch.pl missing: run tools/testing/vm/setup.sh" >&2; exit 1; }
	@$(KSRC)/scripts/checkpatch.pl --strict --no-tree --terse --show-types \
		--ignore SPDX_LICENSE_TAG,FILE_PATH_CHANGES \
		-f $(CHECKPATCH_FILES) | grep -v '^total: 0 errors, 0 warnings, 0 checks' \
		| { ! grep . ; } && echo "style: clean ($(words $(CHECKPATCH_FILES)) files)"

# The documentation: reStructuredText under Documentation/ (index.rst),
# every Sphinx warning an error, as the kernel's make htmldocs with -W.
htmldocs:
	@python3 $(TOP)/tools/docs/rst-examples.py --check
	@command -v sphinx-build >/dev/null || \
		{ echo "sphinx-build missing: run tools/testing/vm/setup.sh" >&2; exit 1; }
	@sphinx-build -W --keep-going -q -b html -d $(CACHE)/htmldocs/.doctrees \
		Documentation $(CACHE)/htmldocs
	@echo "htmldocs: $(CACHE)/htmldocs/index.html"

docs-examples:
	@python3 $(TOP)/tools/docs/rst-examples.py --update

sparse:
	@set -e; for k in $(KDIRS); do \
		rel=$(call krel,$$k); out=$(BUILD)/$$rel; \
		mkdir -p $$out; cp -a $(MOD_SRC) $$out/; \
		echo "  SPARSE   $$rel"; \
		$(MAKE) -s -C $$k M=$$out W=1 C=2 modules 2>&1 | tee $$out/sparse.log; \
		! grep -E 'warning|error' $$out/sparse.log; \
	done
