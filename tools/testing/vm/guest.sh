#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM (as root), started by run.sh:
#
#   guest.sh MODE RELEASE RESULTS_DIR [SUITES] [MODBUILD]
#
# Writes RESULTS_DIR/started first (run.sh tells a VM that never booted from
# one that died in the tests by it), loads hicn.ko and psock.ko with insmod,
# runs the job of MODE, unloads both modules and checks the kernel log and,
# where the kernel has kmemleak, the leaks (the debug kernel must have it).
# After every test program:
#   - its TAP plan ("1..N") must match the results it printed; a test it
#     planned and did not report is a failure, and so are SKIP and XFAIL
#     (a feature that is only skipped is not built), but for a SKIP whose
#     reason names a kernel option, "(CONFIG_FOO)", that this kernel's
#     configuration does not set (the debug kernel's fault injection on
#     Debian's kernels): that one passes as a skip;
#   - the kernel log it caused must hold no warning, oops, leak report or
#     error of our modules: a report names the program;
#   - the module reference counts of hicn and psock must come back to what
#     they were before it (every socket of ours, in any network namespace,
#     holds one), so a socket left behind names the program too.
# Everything is reported as TAP on stdout; the counts go to RESULTS_DIR
# (passed, failed), one line "suite/prog tests seconds" per program to
# RESULTS_DIR/times, the kernel log to RESULTS_DIR/dmesg.txt, and the file
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
ALL_SUITES="hicn psock install"

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
BAD_LOG+='|unregister_netdevice: waiting for|ODEBUG:|ref_tracker:'
BAD_LOG+='|leaked reference|Kernel panic|memory leak detector disabled'
# Our modules' own errors and warnings (dmesg -x: "kern  :err   : [...]"),
# except the kernel's notice that an out-of-tree module taints it.
OUR_LOG='^kern *:(emerg|alert|crit|err|warn) *: \[[^]]*\] (hicn|psock): '
OUR_OK='out-of-tree module taints kernel|module verification failed'

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

# This kernel's configuration: /proc/config.gz, else the /boot file of a
# distribution kernel, else the debug kernel's tree; nothing when unknown.
kernel_config() {
	local tree=$TOP/.cache/debug-kernel/current

	if [ -r /proc/config.gz ]; then
		zcat /proc/config.gz
	elif [ -r "/boot/config-$REL" ]; then
		cat "/boot/config-$REL"
	elif [ "$(cat "$tree/include/config/kernel.release" 2>/dev/null)" = "$REL" ]; then
		cat "$tree/.config"
	fi
}

# The kernel's configuration is known and does not set option $1.
kernel_lacks() {
	local conf

	conf=$(kernel_config)
	[ -n "$conf" ] && ! grep -q -E "^$1=(y|m)$" <<<"$conf"
}

# Run one test program and fold its TAP results into ours.  A skipped test
# counts as failed: a feature that is only skipped is not built; an expected
# failure (XFAIL) is a failure too.  Only a skip for a kernel option this
# kernel does not set, named in its reason as "(CONFIG_FOO)", passes.  A
# test the plan announced and the program never reported is a failure.
run_test() {		# run_test SUITE PROGRAM TIMEOUT
	local suite=$1 prog=$2 tmo=$3 out rc line nres=0 nfail=0 t0 secs plan= opt
	out=$RES/$suite.$prog.tap
	echo "# $suite/$prog"
	t0=$(date +%s)
	(cd "$SELFTESTS/$suite" && timeout -k 5 "$tmo" "./$prog") >"$out" 2>&1
	rc=$?
	secs=$(( $(date +%s) - t0 ))
	echo "# $suite/$prog: exit $rc after ${secs}s"
	sed 's/^/#   /' "$out"
	while IFS= read -r line; do
		case $line in
		1..[0-9]*)
			[ -n "$plan" ] || plan=${line#1..}
			plan=${plan%%[!0-9]*} ;;
		"ok "*"# SKIP"*"(CONFIG_"*")"*)
			opt=$(grep -o -m1 'CONFIG_[A-Z0-9_]*' <<<"$line")
			if kernel_lacks "$opt"; then
				result 0 "$suite/$prog: ${line#ok } (this kernel has no $opt)"
			else
				result 1 "$suite/$prog: ${line#ok } (skipped, but this kernel has $opt or its configuration is unknown)"
				nfail=$((nfail + 1))
			fi
			nres=$((nres + 1)) ;;
		"ok "*"# SKIP"*|"ok "*"# skip"*)
			result 1 "$suite/$prog: ${line#ok } (skipped)"
			nres=$((nres + 1)); nfail=$((nfail + 1)) ;;
		"ok "*"# XFAIL"*|"ok "*"# xfail"*)
			result 1 "$suite/$prog: ${line#ok } (expected failure)"
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
	if [ -z "$plan" ]; then
		result 1 "$suite/$prog: printed no TAP plan (1..N)"
	elif [ "$nres" -lt "$plan" ]; then
		result 1 "$suite/$prog: planned $plan tests, reported $nres"
		failed=$((failed + plan - nres - 1))
		save_counts
	elif [ "$nres" -gt "$plan" ]; then
		result 1 "$suite/$prog: planned $plan tests, reported $nres"
	fi
	echo "$suite/$prog $nres $secs" >> "$RES/times"
	check_after "$suite/$prog"
}

# Module references of hicn and psock: one per socket of ours, in whatever
# network namespace, and per open /proc or sysctl file.
refs() {
	cat "/sys/module/$1/refcnt" 2>/dev/null || echo gone
}

# Wait up to $2 seconds for module $1's references to come back to the
# baseline; sockets may outlive their process for a moment (RCU, work,
# close's wait for acks).
refs_settle() {		# refs_settle MODULE SECONDS
	local i=0
	while [ "$(refs "$1")" != "${BASE_REFS[$1]}" ] && [ $i -lt "$2" ]; do
		sleep 1
		i=$((i + 1))
	done
	[ "$(refs "$1")" = "${BASE_REFS[$1]}" ]
}

# The errors of ours a program provokes on purpose: its lines of the
# suite's log_allow, as one "|alternative|..." of extended regexes.
log_allowed() {		# log_allowed SUITE/PROG
	local f=$SELFTESTS/${1%%/*}/log_allow
	[ -f "$f" ] || return 0
	awk -v p="${1#*/}" '$1 == p { sub(/^[^ ]+ /, ""); printf "|%s", $0 }' "$f"
}

# After each program: the kernel log it caused, and the sockets it left
# (not once the modules are gone: "nomod").
check_after() {		# check_after WHAT [nomod]
	local new=$RES/dmesg.new m ok
	dmesg -c -x > "$new"
	sed 's/^[a-z]* *:[a-z]* *: //' "$new" >> "$RES/dmesg.txt"
	ok=$OUR_OK$(log_allowed "$1")
	if grep -q -E "$BAD_LOG" "$new" ||
	   grep -E "$OUR_LOG" "$new" | grep -q -v -E "$ok"; then
		result 1 "$1: kernel log: a report (all in dmesg.txt)"
		{ grep -E "$BAD_LOG" "$new"; grep -E "$OUR_LOG" "$new" |
		  grep -v -E "$ok"; } | head -n 20 | sed 's/^/#   /'
		echo "# first report in full:"
		grep -m1 -B2 -A40 -E "$BAD_LOG|$OUR_LOG" "$new" | sed 's/^/#   /'
		LOG_BAD=1
	fi
	rm -f "$new"
	[ "${2:-}" = nomod ] && return
	for m in hicn psock; do
		refs_settle $m "$SETTLE" && continue
		result 1 "$1: $m sockets left: $(refs $m) module references, ${BASE_REFS[$m]} before"
	done
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

# The end of the run: whatever the last check_after() did not see.
check_kernel_log() {
	check_after "the end of the run" nomod
	[ "${LOG_BAD:-0}" -eq 0 ]
	result $? "kernel log: no warning, oops, leak report or error of ours"
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
	if [ ! -w "$KMEMLEAK" ]; then
		case $REL in
		*-debug) result 1 "kmemleak: active on the debug kernel" ;;
		esac
		return 0
	fi
	sleep 6
	# A kmemleak that disabled itself (pool exhausted, an error) refuses
	# the scan: that is a failure, not a clean result.
	if ! { echo scan > "$KMEMLEAK"; } 2>/dev/null; then
		result 1 "kmemleak: active (it refused to scan; see dmesg.txt)"
		return 0
	fi
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

# The run itself.  A function, called on the last line: bash reads a script
# as it goes, and a guest.sh edited on the host while a VM runs it would
# otherwise go on at the old offset in the new text.
main() {
	touch "$RES/started"
	echo "TAP version 13"
	echo "# kernel $(uname -r), mode $MODE"
	save_counts
	: > "$RES/times"
	dmesg > "$RES/dmesg.boot.txt"
	dmesg -C
	SETTLE=30
	declare -gA BASE_REFS
	sysctl -qw kernel.panic_on_warn=0 2>/dev/null
	# The random pool's first readiness flips a static key (text patched
	# on every CPU); under TCG a CPU can then trap on the patch's int3
	# and the guest dies with "Oops: int3" in whatever ran there.  A
	# blocking read here makes the kernel gather it now (jitter entropy,
	# about a second), so that the flip happens before any test runs.
	head -c 1 /dev/random > /dev/null
	sleep 1
	ip link set lo up
	kmemleak_start

	insmod "$HICN_KO"; result $? "insmod hicn.ko"
	# psock.ko's sock_diag handler needs inet_diag (a module on Debian's
	# kernels, built in on the debug kernel); modprobe would load it.
	modprobe -q inet_diag 2>/dev/null
	insmod "$PSOCK_KO"; result $? "insmod psock.ko"
	BASE_REFS[hicn]=$(refs hicn)
	BASE_REFS[psock]=$(refs psock)

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
	hang)
		# Harness self-test only: a guest that never ends; run.sh must kill
		# it at its limit.
		sleep infinity
		;;
	*)
		result 1 "unknown mode $MODE"
		;;
	esac

	for m in hicn psock; do
		refs_settle $m "$SETTLE"
		result $? "no $m socket left in any namespace ($(refs $m) module references, ${BASE_REFS[$m]} after insmod)"
	done
	rmmod psock; result $? "rmmod psock"
	rmmod hicn; result $? "rmmod hicn"
	kmemleak_check
	check_kernel_log

	echo "1..$n"
	echo "# $passed passed, $failed failed"
	save_counts
	touch "$RES/done"
}

main "$@"; exit
