#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The harness's own self-test ("make check-harness"): each broken run below
# must turn red, within its limit, with a message naming the cause.
#
#   HICN_FAULT=leak   one allocation leaked per socket   -> kmemleak
#   HICN_FAULT=uaf    a read of freed memory per socket  -> KASAN
#   a kernel that is not installed                       -> "not installed"
#   a guest with far too little memory                   -> "boot failed
#                                                           before the tests"
#   a guest that hangs                                   -> "VM killed after"
#                                                           and no QEMU left
#
# The broken modules are built into .cache/build-fault-<bug>/, never into the
# normal build folder.

set -u

TOP=$(cd "$(dirname "$0")/../../.." && pwd)
CACHE=${CACHE:-$TOP/.cache}
DEBUG_TREE=$CACHE/debug-kernel/current
RUN=$TOP/tools/testing/vm/run.sh
rc=0

[ -f "$DEBUG_TREE/Module.symvers" ] ||
	{ echo "selftest: no debug kernel (make debug-kernel)" >&2; exit 1; }
make -s -C "$TOP" selftests || exit 1

# expect_red NAME SIGNATURE MAX_SECONDS -- ENV... : run.sh must fail, print
# SIGNATURE (in its output or the console log) and end within MAX_SECONDS.
expect_red() {
	local name=$1 sig=$2 max=$3 out status t0 secs log
	shift 4
	out=$(mktemp)
	t0=$(date +%s)
	env "$@" "$RUN" "${MODE:-check}" >"$out" 2>&1
	status=$?
	secs=$(( $(date +%s) - t0 ))
	# The console log of this run (not .cache/results: another run may
	# have moved that link since).
	log=$(sed -n 's/^run.sh: logs and results in //p' "$out")
	log=$(ls -t "$log"/*.console*.log 2>/dev/null | head -n1)
	tail -n 3 "$out"
	if [ $status -eq 0 ]; then
		echo "not ok - $name: the run stayed green"
		rc=1
	elif ! grep -q -- "$sig" "$out" ${log:+"$log"}; then
		echo "not ok - $name: the run failed, but without \"$sig\""
		rc=1
	elif [ $secs -gt "$max" ]; then
		echo "not ok - $name: failed after ${secs}s, more than ${max}s"
		rc=1
	else
		echo "ok - $name: failed in ${secs}s with:"
		grep -h -m1 -A6 -- "$sig" "$out" ${log:+"$log"} | head -n 7 |
			sed 's/^/    /'
	fi
	rm -f "$out"
}

fault() {		# fault BUG SIGNATURE
	local bug=$1 build=$CACHE/build-fault-$1
	echo "== harness self-test: HICN_FAULT=$bug must be caught by \"$2\""
	make -s -C "$TOP" KDIR="$DEBUG_TREE" BUILD="$build" HICN_FAULT="$bug" \
		modules || { echo "not ok - $bug: build failed"; rc=1; return; }
	expect_red "$bug" "$2" 3000 -- MODBUILD="$build" KERNELS=7.2-debug \
		SUITES=hicn/socket_test
}

# Read whole before it runs (bash reads a script as it goes).
main() {
	fault leak "unreferenced object"
	fault uaf "BUG: KASAN: slab-use-after-free"

	echo "== harness self-test: a kernel that is not installed"
	expect_red "missing kernel" "is not installed" 60 -- KERNELS=9.9

	echo "== harness self-test: a guest with 48 MiB of memory"
	expect_red "no memory" "boot failed before the tests" 900 -- KERNELS=6.12 \
		VM_MEMORY=48M SUITES=hicn/socket_test

	echo "== harness self-test: a guest that hangs, limit 120 s"
	MODE=hang expect_red "hung guest" "VM killed after 120s" 200 -- KERNELS=6.12 \
		VM_TIMEOUT=120
	if pgrep -f "qemu-system.*$CACHE/runs" >/dev/null; then
		echo "not ok - hung guest: a QEMU outlived the run"
		rc=1
	fi

	exit $rc
}

main "$@"; exit
