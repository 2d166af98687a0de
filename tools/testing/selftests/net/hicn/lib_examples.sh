#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# libhcn as installed: the seed paper's examples in C++20 (lib_examples,
# built by the Makefile against a staged "make install" through
# pkg-config) run against libhcn.so.1, and the AF_HICN number fixed up at
# run time: with hicn.ko reloaded as family=13, the examples (which say
# AF_HICN, 22, throughout) and lib_test's socket tests must still work.
# Leaves the module loaded with its default family, as the harness expects.
# The library's soname, symbol versions, install and uninstall need no
# module: install/staging.sh checks them on the build machine.

cd "$(dirname "$0")" || exit 1
. ../lib/tap_lib.sh
. ../lib/modules_lib.sh

MOD=hicn
KO=${HICN_KO:?HICN_KO must point to hicn.ko}
STAGE=$PWD/lib_stage
export LD_LIBRARY_PATH=$STAGE/usr/lib

# The paper's examples, at the default family.
check "printed producer publishes nothing (its typo)" 0 \
	"printed producer: hcn_sendto() returned -1" ./lib_examples typo
check "fixed producer -> printed consumer" 0 \
	"consumer: 48 bytes: This string will be published in the hcn socket" \
	./lib_examples run

# The same with the module at another number.
if rmmod hicn && insmod "$KO" family=13; then
	tap_result 0 "hicn.ko reloaded with family=13"
	check "fixed producer -> printed consumer, family 13" 0 \
		"consumer: 48 bytes: This string will be published in the hcn socket" \
		./lib_examples run
	out=$(./lib_test -f map 2>&1)
	tap_result $? "lib_test's socket tests, family 13"
	echo "$out" | grep -E '^(not ok|# .*(FAIL|family in force))' | sed 's/^/# /'
	rmmod hicn
else
	tap_result 1 "hicn.ko reloaded with family=13"
fi
mod_ensure_loaded
tap_expect "hicn loaded again with family 22" 22 \
	cat /sys/module/hicn/parameters/family
tap_done
