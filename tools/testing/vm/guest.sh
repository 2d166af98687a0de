#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM (as root), started by run.sh:
#
#   guest.sh MODE RELEASE RESULTS_DIR [SUITES] [MODBUILD]
#
# Loads hicn.ko and psock.ko with insmod, runs the job of MODE, then checks
# that the sockets are all gone (/proc/net/protocols), that both modules
# unload, and that the kernel log holds no warning, oops or leak report.
# Where the kernel has kmemleak (the debug kernel), the leaks found once the
# modules are unloaded fail the run too.
# Everything is reported as TAP on stdout; the counts go to RESULTS_DIR
# (passed, failed), the kernel log to RESULTS_DIR/dmesg.txt, and the file
# RESULTS_DIR/done is written last: run.sh fails a kernel without it.

set -u

MODE=$1
REL=$2
RES=$3
SUITES=${4:-}

TOP=$(cd "$(dirname "$0")/../../.." && pwd)
BUILD=${5:-$TOP/.cache/build}/$REL
KMEMLEAK=/sys/kernel/debug/kmemleak
SELFTESTS=$TOP/tools/testing/selftests/net
ALL_SUITES="hicn psock"

export HICN_KO=$BUILD/net/hicn/hicn.ko
export PSOCK_KO=$BUILD/net/psock/psock.ko
export PATH=$SELFTESTS/lib:/usr/sbin:/sbin:$PATH

# Kernel log lines that fail a run, whatever the tests said.
BAD_LOG='WARNING:|BUG:|Oops|KFENCE|refcount_t|kernel BUG|general protection'
BAD_LOG+='|Call Trace:|unreferenced object|UBSAN|KASAN|INFO: task .* blocked'
BAD_LOG+='|soft lockup|hard LOCKUP|rcu_.*stall|Slab cache still has objects'
BAD_LOG+='|possible circular locking|inconsistent lock state'
BAD_LOG+='|suspicious RCU usage|sleeping function called|list_add corruption'
BAD_LOG+='|list_del corruption|cut here|suspected memory leak'

passed=0
failed=0
n=0

save_counts() {
	echo "$passed" > "$RES/passed"
	echo "$failed" > "$RES/failed"
}

result() {		# result 0|1 DESCRIPTION
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		passed=$((passed + 1))
		echo "ok $n $2"
	else
		failed=$((failed + 1))
		echo "not ok $n $2"
	fi
	save_counts
}

# Run one test program and fold its TAP results into ours.  A skipped test
# counts as failed: a feature that is only skipped is not built.
run_test() {		# run_test SUITE PROGRAM TIMEOUT
	local suite=$1 prog=$2 tmo=$3 out rc line nres=0 nfail=0 t0
	out=$RES/$suite.$prog.tap
	echo "# $suite/$prog"
	t0=$(date +%s)
	(cd "$SELFTESTS/$suite" && timeout -k 5 "$tmo" "./$prog") >"$out" 2>&1
	rc=$?
	echo "# $suite/$prog: exit $rc after $(( $(date +%s) - t0 ))s"
	sed 's/^/#   /' "$out"
	while IFS= read -r line; do
		case $line in
		"ok "*"# SKIP"*|"ok "*"# skip"*)
			result 1 "$suite/$prog: ${line#ok } (skipped)"
			nres=$((nres + 1)); nfail=$((nfail + 1)) ;;
		"ok "*)
			result 0 "$suite/$prog: ${line#ok }"
			nres=$((nres + 1)) ;;
		"not ok "*)
			result 1 "$suite/$prog: ${line#not ok }"
			nres=$((nres + 1)); nfail=$((nfail + 1)) ;;
		esac
	done < "$out"
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		result 1 "$suite/$prog: timed out after ${tmo}s"
	elif [ "$rc" -ne 0 ] && [ "$nfail" -eq 0 ]; then
		result 1 "$suite/$prog: exited with status $rc"
	elif [ "$nres" -eq 0 ]; then
		result 1 "$suite/$prog: reported no result"
	fi
}

suite_tests() {		# the programs of a suite, in order
	make -s --no-print-directory -C "$SELFTESTS/$1" print-tests
}

suite_timeout() {
	local t
	t=$(sed -n 's/^timeout=//p' "$SELFTESTS/$1/settings" 2>/dev/null)
	echo "${t:-300}"
}

run_suites() {
	local want=${SUITES:-$ALL_SUITES} w suite prog tmo
	for w in $want; do
		suite=${w%%/*}
		[ -d "$SELFTESTS/$suite" ] || { result 1 "unknown suite $suite"; continue; }
		tmo=$(suite_timeout "$suite")
		if [ "$w" != "$suite" ]; then
			run_test "$suite" "${w#*/}" "$tmo"
			continue
		fi
		for prog in $(suite_tests "$suite"); do
			run_test "$suite" "$prog" "$tmo"
		done
	done
}

inuse() {		# sockets of a protocol in this netns
	awk -v p="$1" '$1 == p { print $3 }' /proc/net/protocols
}

check_kernel_log() {
	dmesg > "$RES/dmesg.txt"
	if grep -q -E "$BAD_LOG" "$RES/dmesg.txt"; then
		result 1 "kernel log: no warning, oops or leak report"
		echo "# reports ($(grep -c -E "$BAD_LOG" "$RES/dmesg.txt") lines; all in dmesg.txt):"
		grep -E "$BAD_LOG" "$RES/dmesg.txt" | head -n 20 | sed 's/^/#   /'
		echo "# first report in full:"
		grep -m1 -B2 -A40 -E "$BAD_LOG" "$RES/dmesg.txt" | sed 's/^/#   /'
	else
		result 0 "kernel log: no warning, oops or leak report"
	fi
}

# kmemleak: forget what the boot left, so only what happens from here on
# can be reported.
kmemleak_start() {
	[ -e /sys/kernel/debug/kmemleak ] ||
		mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	[ -w "$KMEMLEAK" ] && echo clear > "$KMEMLEAK"
}

# After the modules are gone: two scans (an object must be older than 5 s
# and seen unreferenced), then every report fails the run.
kmemleak_check() {
	[ -w "$KMEMLEAK" ] || return 0
	sleep 6
	echo scan > "$KMEMLEAK"
	sleep 6
	echo scan > "$KMEMLEAK"
	cat "$KMEMLEAK" > "$RES/kmemleak.txt"
	if [ -s "$RES/kmemleak.txt" ]; then
		result 1 "kmemleak: no leak ($(grep -c '^unreferenced object' "$RES/kmemleak.txt") reported)"
		echo "# first report:"
		head -n 40 "$RES/kmemleak.txt" | sed 's/^/#   /'
	else
		result 0 "kmemleak: no leak"
	fi
}

echo "TAP version 13"
echo "# kernel $(uname -r), mode $MODE"
save_counts
dmesg > "$RES/dmesg.boot.txt"
dmesg -C
sysctl -qw kernel.panic_on_warn=0 2>/dev/null
ip link set lo up
kmemleak_start

insmod "$HICN_KO"; result $? "insmod hicn.ko"
insmod "$PSOCK_KO"; result $? "insmod psock.ko"

case $MODE in
check)
	run_suites
	;;
demo)
	"$TOP/userspace/demo/demo.sh"
	result $? "demo"
	;;
bench)
	# Data files for bench/plot.sh, which run.sh calls on the host.
	# SUITES, if set, names the benchmarks to run.
	BENCH_OUT=$RES BENCHES="$SUITES" "$TOP/bench/run.sh"
	result $? "bench"
	;;
*)
	result 1 "unknown mode $MODE"
	;;
esac

for p in HICN PSOCK PSOCKv6; do
	c=$(inuse $p)
	[ "${c:-0}" = 0 ]
	result $? "no $p socket left (inuse ${c:-none})"
done
rmmod psock; result $? "rmmod psock"
rmmod hicn; result $? "rmmod hicn"
kmemleak_check
check_kernel_log

echo "1..$n"
echo "# $passed passed, $failed failed"
save_counts
touch "$RES/done"
