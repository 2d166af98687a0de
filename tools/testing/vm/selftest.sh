#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The harness's own self-test ("make check-harness"): a run on the debug
# kernel must turn red, with the detector's report in its log, when hicn.ko
# is built with a deliberate bug:
#
#   HICN_FAULT=leak   one allocation leaked per socket   -> kmemleak
#   HICN_FAULT=uaf    a read of freed memory per socket  -> KASAN
#
# The broken modules are built into .cache/build-fault-<bug>/, never into the
# normal build folder.

set -u

TOP=$(cd "$(dirname "$0")/../../.." && pwd)
CACHE=${CACHE:-$TOP/.cache}
DEBUG_TREE=$CACHE/debug-kernel/current
rc=0

[ -f "$DEBUG_TREE/Module.symvers" ] ||
	{ echo "selftest: no debug kernel (make debug-kernel)" >&2; exit 1; }
make -s -C "$TOP" selftests || exit 1

check() {		# check BUG SIGNATURE
	local bug=$1 sig=$2 build=$CACHE/build-fault-$1 log out status
	echo "== harness self-test: HICN_FAULT=$bug must be caught by \"$sig\""
	make -s -C "$TOP" KDIR="$DEBUG_TREE" BUILD="$build" HICN_FAULT="$bug" \
		modules || { echo "not ok - $bug: build failed"; rc=1; return; }
	out=$(mktemp)
	MODBUILD=$build KERNELS=6.12-debug SUITES=hicn/socket_test \
		"$TOP/tools/testing/vm/run.sh" check >"$out" 2>&1
	status=$?
	log=$(ls "$CACHE"/logs/*-hicn-debug.check.console.log)
	tail -n 3 "$out"
	if [ $status -eq 0 ]; then
		echo "not ok - $bug: the run stayed green"
		rc=1
	elif ! grep -q -- "$sig" "$out" "$log"; then
		echo "not ok - $bug: the run failed, but without \"$sig\""
		rc=1
	else
		echo "ok - $bug: run failed with the report:"
		grep -m1 -A6 -- "$sig" "$out" | sed 's/^/    /'
	fi
	rm -f "$out"
}

check leak "unreferenced object"
check uaf "BUG: KASAN: slab-use-after-free"
exit $rc
