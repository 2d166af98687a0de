#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot one VM per target kernel and run a job inside it (guest.sh): in
# check mode the Debian kernels side by side with one vCPU each, then the
# debug kernel alone with two; one at a time otherwise.
#
#   run.sh check   every selftest suite; TAP collected, kernel log checked
#   run.sh demo    the demo of the main job
#   run.sh bench   everything under bench/
#   run.sh hang    a guest that never ends (the harness self-test)
#
# Environment:
#   KERNELS   target kernels: "6.1", "6.12" (the newest Debian kernel of the
#             series in /boot), "7.2-debug" (the debug kernel of
#             debug-kernel.sh) or a full release name; default
#             "6.1 6.12 7.2-debug"
#   SUITES    suites or single tests: "hicn", "psock", "install",
#             "hicn/socket_test";
#             for bench, the benchmarks: "psock_paths.sh psock_rtt.sh".
#             Default: all suites; on the debug kernel, DEBUG_SUITES when
#             that is set (a subset for a machine where the full debug run
#             does not fit), else every program but DEBUG_LEAVE_OUT's
#   LEAVE_OUT_6_1, LEAVE_OUT_6_12  programs the Debian kernel leaves out
#             by default in check mode (see leave_out()); none with
#             LONG=1
#   DEBUG_LEAVE_OUT  programs the debug kernel leaves out by default
#             (packaging, the CLI's golden output, the transfer matrix;
#             see programs_but()); none with LONG=1
#   VM_TIMEOUT  seconds one VM may run (default 1800; 2700 for Debian
#             guests side by side; 3000 for the debug kernel; 4800 for
#             bench, whose psock_gw.sh alone takes about 1200); the whole
#             process group of the VM is killed then
#   VM_PARALLEL  0: the Debian kernels of a check one at a time with 2
#             vCPUs each, instead of side by side (default 1)
#   VM_CPUS   vCPUs of a guest (default 1 side by side, else 2)
#   VM_MEMORY memory of the guest (default 2G)
#   VM_9P_CACHE  the 9p cache mode of the guest's root (default loose;
#             none: virtme-ng's own, for comparison; see bin/virtme-run)
#   MODBUILD  where the built modules are (default .cache/build); the
#             harness self-test points it at deliberately broken builds
#   UPDATE_BASELINE=1  rewrite baseline.txt with this run's counts and times
#   TAP_TIMES=1  the shell suites print the milliseconds each result took
#
# The modules must already be built into $MODBUILD/<release>/ (make
# modules) and the selftests into their folders (make selftests).
#
# What a run leaves, never overwritten by the next one:
#   .cache/runs/<date>-<mode>/<kernel>/          results of the guest (TAP of
#                                                each program, dmesg, times)
#   .cache/runs/<date>-<mode>/<kernel>.console.log  everything the VM printed
#                                                (kernel console, vng's own
#                                                messages); .2.log for a retry
#   .cache/results -> the newest run folder
#
# virtme-ng returns 255 whenever QEMU ends before the guest wrote its return
# code (a panic, virtme-init powering off, QEMU killed), and its status says
# nothing about the tests.  The guest therefore writes markers into its
# results folder: "started" when guest.sh begins, "done" when it ends.  A VM
# without "started" failed to boot and is retried once; a VM that started
# is never retried, and every test it did not run (the expected counts are
# in baseline.txt) is counted as failed.

set -u

TOP=$(cd "$(dirname "$0")/../../.." && pwd)
CACHE=${CACHE:-$TOP/.cache}
MODE=${1:-check}
MODBUILD=${MODBUILD:-$CACHE/build}
DEBUG_TREE=$CACHE/debug-kernel/current
BASELINE=$TOP/tools/testing/vm/baseline.txt
SELFTESTS=$TOP/tools/testing/selftests/net
# bin/virtme-run before the venv's: the guest's root over 9p with
# cache=loose (process starts 2.5-4x faster under TCG; see that file).
export PATH="$TOP/tools/testing/vm/bin:$CACHE/venv/bin:$PATH"

# Tests guest.sh adds around the programs: insmod x2, module references x2,
# rmmod x2, kernel log; kmemleak on the debug kernel.
GUEST_CHECKS=7

die() { echo "run.sh: $*" >&2; exit 1; }

# Map "6.1" / "6.12" / a full release to the newest matching /boot image,
# "*-debug" to the debug kernel's release.
resolve_kernel() {
	local want=$1 img
	case $want in
	*-debug)
		[ -f "$DEBUG_TREE/arch/x86/boot/bzImage" ] &&
			cat "$DEBUG_TREE/include/config/kernel.release"
		return ;;
	esac
	if [ -e "/boot/vmlinuz-$want" ]; then
		echo "$want"
		return
	fi
	img=$(ls /boot/vmlinuz-"$want".* 2>/dev/null | sed 's|/boot/vmlinuz-||' |
	      grep -E "^$(printf '%s' "$want" | sed 's/\./\\./g')\.[0-9]" |
	      sort -V | tail -n1)
	[ -n "$img" ] && echo "$img"
}

kernel_image() {
	case $1 in
	*-hicn-debug) echo "$DEBUG_TREE/arch/x86/boot/bzImage" ;;
	*) echo "/boot/vmlinuz-$1" ;;
	esac
}

short_name() {		# 7.2.13-hicn-debug -> 7.2-debug, 6.1.0-56-amd64 -> 6.1
	local v=${1%%-*}
	v=$(echo "$v" | cut -d. -f1,2)
	case $1 in
	*-hicn-debug) echo "$v-debug" ;;
	*) echo "$v" ;;
	esac
}

KERNELS=${KERNELS:-6.1 6.12 7.2-debug}

# KVM only where it really works.  /dev/kvm may exist and still fail: QEMU
# aborts ("failed to set MSR") or stops the guest with "KVM internal error"
# and waits forever.  A bare QEMU booting the kernel with no root prints
# "Linux version" within a second or two under KVM; the probe watches its
# output and stops at the first answer (15 s at most).  The answer is kept
# in .cache/accel for this host kernel and QEMU.
probe_accel() {
	local rel=$1 out key pid i
	[ -n "${VM_ACCEL+set}" ] && return
	VM_ACCEL=--disable-kvm
	[ -w /dev/kvm ] || return
	key="$(uname -r) $(qemu-system-x86_64 --version | head -n1)"
	if [ -f "$CACHE/accel" ] && [ "$(head -n1 "$CACHE/accel")" = "$key" ]; then
		[ "$(sed -n 2p "$CACHE/accel")" = kvm ] && VM_ACCEL=
		return
	fi
	out=$(mktemp)
	qemu-system-x86_64 -accel kvm -cpu host -m 256 -nodefaults -nographic \
		-no-reboot -serial stdio -kernel "$(kernel_image "$rel")" \
		-append 'console=ttyS0 panic=-1 root=/dev/nonexistent' \
		</dev/null >"$out" 2>&1 &
	pid=$!
	for i in $(seq 30); do
		grep -q -E 'Linux version|KVM internal error|failed to|Could not' \
			"$out" && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.5
	done
	grep -q 'Linux version' "$out" && VM_ACCEL=
	kill -KILL $pid 2>/dev/null
	wait $pid 2>/dev/null
	rm -f "$out"
	printf '%s\n%s\n' "$key" "${VM_ACCEL:-kvm}" > "$CACHE/accel"
}

# The programs a SUITES selection runs, one "suite/prog" a line.
selected_programs() {
	local w s p
	for w in $1; do
		s=${w%%/*}
		if [ "$w" != "$s" ]; then
			echo "$w"
			continue
		fi
		for p in $(make -s --no-print-directory -C "$SELFTESTS/$s" \
			   print-tests 2>/dev/null); do
			echo "$s/$p"
		done
	done
}

# What the debug kernel runs by default: every program but those of
# DEBUG_LEAVE_OUT, where the detectors add least for the most time (each
# process start costs seconds there, and CI's machine runs 1.25-1.3
# times slower than ours): userspace packaging
# (install/staging.sh checks the debug kernel's make install on the build
# machine, dkms-check its DKMS build), the CLI's golden output, the data
# transfers (veth_transfer.sh's matrix, stream_test, transfer_test and
# failover.sh's timed path failures: bad_peer, close_test, race_test and
# stress_test take the same paths through the detectors, by many
# processes at once), the table bounds' step counts of mem_test and
# load_test's 256 connections at once (what they count does not depend
# on the kernel; teardown_test and close_test keep the debug kernel's
# view of the same memory and sockets), memcg_test's charges, the module
# load cycles of cycles_test and both modules.sh (teardown_test unloads
# the module with work armed there), fib_test.py (the FIB's netlink
# errors and route counts; udp_test, relay_test and face_test take its
# lookups through the detectors), path_test.py (netem's losses and
# delays, timed: relay_test and face_test take the same consumer and
# relay paths there), and flood_test, whose
# legitimate client must connect within 30 s beside 3,000 hostile ones
# (the debug kernel under TCG took 84 s for the flood alone), and
# psockize.sh (Debian's nginx, curl, wget, nc and iperf3 started a dozen
# times: process starts, for data paths stream_test and bad_peer take
# through the detectors; nginx's sendfile() reaches PSOCK through
# pstripe_sendmsg(), stream_test's path), and psock_gw.sh (the same
# programs and Python peers around two psock-gw daemons: process starts
# again, the PSOCK paths those tests take; the debug kernel has no
# TPROXY either), and link_test.py (timed failovers of a consumer's
# transfer; face_test.py takes a link going down with interests pending
# through the detectors, and relay_test the re-forwarding: 130 s saved).
# make check-long (LONG=1) leaves nothing out.
if [ "${LONG:-0}" = 1 ]; then
	DEBUG_LEAVE_OUT=${DEBUG_LEAVE_OUT-}
else
	DEBUG_LEAVE_OUT=${DEBUG_LEAVE_OUT-install/install.sh hicn/lib_examples.sh hicn/netlink.sh psock/netlink.sh psock/veth_transfer.sh psock/stream_test hicn/transfer_test psock/failover.sh hicn/mem_test psock/load_test hicn/memcg_test hicn/cycles_test hicn/modules.sh psock/modules.sh psock/flood_test hicn/fib_test.py hicn/path_test.py psock/psockize.sh psock/psock_gw.sh hicn/link_test.py}
fi
# programs_but LIST: every program of every suite but those of LIST.
programs_but() {
	# shellcheck disable=SC2086
	selected_programs "hicn psock install" |
		grep -v -x -F -f <(printf '%s\n' $1) | tr '\n' ' '
}

# The two programs of Debian's unmodified applications over PSOCK, each
# on one Debian kernel only in make check: psock_gw.sh (two psock-gw
# daemons with curl, nginx, iperf3 and Python peers around them) on 6.12,
# psockize.sh (nc, curl, wget, nginx and iperf3 under the LD_PRELOAD
# library) on 6.1; each about 100 s under TCG on a busy host, where
# CI's budget has no room for both twice.  What they reach in the
# kernel is PSOCK's socket calls, which every other psock program takes
# on both kernels; psockize_bpf.sh (6.12: the BPF hook) stays on both.
# make check-long (LONG=1) runs both on both.
if [ "${LONG:-0}" = 1 ]; then
	LEAVE_OUT_6_1=${LEAVE_OUT_6_1-}
	LEAVE_OUT_6_12=${LEAVE_OUT_6_12-}
else
	LEAVE_OUT_6_1=${LEAVE_OUT_6_1-psock/psock_gw.sh}
	LEAVE_OUT_6_12=${LEAVE_OUT_6_12-psock/psockize.sh}
fi
# leave_out NAME: what the Debian kernel NAME leaves out in check mode.
leave_out() {
	case $1 in
	6.1) echo "$LEAVE_OUT_6_1" ;;
	6.12) echo "$LEAVE_OUT_6_12" ;;
	esac
}

# Tests a kernel is expected to run: baseline.txt per program, 1 for a
# program it does not know, plus guest.sh's own checks.
expected_tests() {	# expected_tests NAME PROGRAMS...
	local name=$1 p n total=$GUEST_CHECKS
	shift
	case $name in *-debug) total=$((total + 1)) ;; esac
	for p in "$@"; do
		n=$(awk -v k="$name" -v p="$p" '$1 == k && $2 == p { print $3 }' \
			"$BASELINE" 2>/dev/null)
		total=$((total + ${n:-1}))
	done
	echo "$total"
}

# Per-program times against the baseline; more than 3x is flagged.
print_times() {		# print_times NAME RESULTS
	local name=$1 res=$2 prog tests secs base flag
	[ -f "$res/times" ] || return 0
	printf '   %-36s %6s %6s %9s\n' program tests time baseline
	while read -r prog tests secs; do
		base=$(awk -v k="$name" -v p="$prog" \
			'$1 == k && $2 == p { print $4 }' "$BASELINE" 2>/dev/null)
		flag=
		if [ -n "$base" ] && [ "$secs" -gt $((3 * base + 5)) ]; then
			flag="  SLOW: more than 3x the baseline"
			slow+=("$name $prog: ${secs}s against ${base}s")
		fi
		printf '   %-36s %6s %5ss %9s%s\n' "$prog" "$tests" "$secs" \
			"${base:+${base}s}" "$flag"
	done < "$res/times"
}

# What a boot log says of why the guest never reached guest.sh.
boot_cause() {		# boot_cause LOG
	if [ ! -s "$1" ]; then
		echo "nothing printed"
	elif ! grep -q 'Linux version' "$1"; then
		echo "the kernel never started: a broken image, or too little memory to unpack it"
	elif grep -q 'cannot find script I/O ports' "$1"; then
		echo "virtme-init found no virtio ports: udev too slow"
	elif grep -q -i -E 'out of memory|oom-kill|initramfs unpacking failed|System is deadlocked on memory' "$1"; then
		echo "out of memory"
	elif grep -q 'Kernel panic' "$1"; then
		grep -m1 -o 'Kernel panic.*' "$1"
	elif grep -q -E 'qemu-system[^:]*: ' "$1"; then
		echo "QEMU: $(grep -m1 -o -E 'qemu-system[^:]*: .*' "$1")"
	else
		echo "cause not recognised"
	fi
}

# Boot the VM once.  timeout runs in a process group of its own (no
# --foreground), so on expiry it signals the whole group: vng, virtme-run and
# QEMU, which would otherwise survive and hang the run.
boot_vm() {		# boot_vm LOG TIMEOUT APPEND ACCEL REL RES SUITES CPUS
	local log=$1 tmo=$2 append=$3 accel=$4 rel=$5 res=$6 suites=$7 cpus=$8
	local fifo=$res.console.fifo shown pid

	# Everything the VM prints goes through one pipe to the log, so the
	# guest's output and the kernel console keep their order.  The guest's
	# own output (TAP) also reaches the terminal as it comes; the kernel
	# console stays in the log.
	rm -f "$fifo"
	mkfifo "$fifo"
	tee "$log" <"$fifo" |
		grep --line-buffered -v -E '^\[ *[0-9]+\.[0-9]+\] ' &
	shown=$!
	# shellcheck disable=SC2086
	timeout -k 10 "$tmo" \
		vng --verbose --force-9p --no-virtme-ng-init \
		-r "$(kernel_image "$rel")" $accel \
		--user root --cpus "$cpus" --memory "${VM_MEMORY:-2G}" \
		--rwdir "$res=$res" --cwd "$TOP" \
		--append "$append" \
		--exec "LONG=${LONG:-0} TAP_TIMES=${TAP_TIMES:-0} $TOP/tools/testing/vm/guest.sh $MODE $rel $res '$suites' $MODBUILD" \
		</dev/null >"$fifo" 2>&1 &
	pid=$!
	# Ctrl-C or a kill of make ends the VM too.
	trap 'kill -TERM -- -'"$pid"' 2>/dev/null; exit 130' INT TERM
	wait "$pid"
	vm_rc=$?
	trap - INT TERM
	wait "$shown"
	rm -f "$fifo"
}

# The run is one brace group, read whole before it starts: bash reads a
# script as it goes, and an edit of this file during a run would otherwise
# take effect at the old offset.
{
# One run at a time on this machine: two 2-vCPU TCG guests on 2 cores
# starve each other (a debug guest died at boot that way); the run itself
# decides which guests share the machine (below).  Another run.sh waits.
mkdir -p "$CACHE/runs"
exec 9>"$CACHE/vm.lock"
if ! flock -n 9; then
	echo "run.sh: another VM run holds $CACHE/vm.lock; waiting"
	flock 9
fi

STAMP=$(date +%Y%m%d-%H%M%S)
RUN=$CACHE/runs/$STAMP-$MODE
mkdir -p "$RUN"
ln -sfn "runs/$STAMP-$MODE" "$CACHE/results.tmp" && mv -T "$CACHE/results.tmp" "$CACHE/results"
echo "run.sh: logs and results in $RUN"

# One kernel's VM, start to end: its output on stdout, its counts in
# $RUN/<k>.sum ("pass fail", then its summary line, then "slow: ..." lines),
# so that kernels run side by side report like kernels run one at a time.
run_kernel() {		# run_kernel K CPUS TIMEOUT
	local k=$1 cpus=$2 tmo=$3 rel name append suites res how start attempt
	local log secs pass fail why want missing s sum=$RUN/$1.sum
	local -a progs
	slow=()
	rel=$(resolve_kernel "$k")
	if [ -z "$rel" ]; then
		echo "run.sh: kernel $k is not installed (make setup; make debug-kernel for the debug kernel)" >&2
		printf '0 1\n%s\n' "$k: 0 passed, 1 failed (not installed)" > "$sum"
		return
	fi
	name=$(short_name "$rel")
	[ -f "$MODBUILD/$rel/net/hicn/hicn.ko" ] ||
		die "modules for $rel not built in $MODBUILD (make modules)"
	append="panic_on_warn=0"
	suites=${SUITES:-}
	case $rel in
	*-hicn-debug)
		# Every KASAN report, not only the first; a hang or a lockup
		# becomes a panic with its stacks in the console log.
		append="$append kasan_multi_shot hung_task_panic=1"
		append="$append softlockup_panic=1 hung_task_timeout_secs=120"
		[ -n "$suites" ] || suites=${DEBUG_SUITES:-$(programs_but "$DEBUG_LEAVE_OUT")} ;;
	*)
		[ -n "$suites" ] || [ "$MODE" != check ] ||
			suites=$(programs_but "$(leave_out "$name")") ;;
	esac
	mapfile -t progs < <(selected_programs "${suites:-hicn psock install}")
	res=$RUN/$name
	case $VM_ACCEL in
	*disable-kvm*) how=TCG ;;
	*) how=KVM ;;
	esac

	start=$(date +%s)
	for attempt in 1 2; do
		rm -rf "$res"
		mkdir -p "$res"
		log=$RUN/$name.console.log
		[ $attempt -eq 1 ] || log=$RUN/$name.console.$attempt.log
		echo "== $name ($rel): $MODE under $how, $cpus vCPU$([ "$cpus" = 1 ] || echo s)${suites:+, $suites}, limit ${tmo}s (boot $attempt of 2)"
		boot_vm "$log" "$tmo" "$append" "$VM_ACCEL" "$rel" "$res" "$suites" "$cpus"
		[ -f "$res/started" ] && break
		echo "not ok - $name: boot failed before the tests (rc $vm_rc; $(boot_cause "$log"); $log):"
		tail -n 25 "$log" | sed 's/^/#   /'
		[ $attempt -eq 1 ] && echo "== $name: booting once more"
	done
	secs=$(( $(date +%s) - start ))

	pass=$(cat "$res/passed" 2>/dev/null || echo 0)
	fail=$(cat "$res/failed" 2>/dev/null || echo 0)
	why=
	if [ ! -f "$res/started" ]; then
		why="VM died at boot, rc $vm_rc"
	elif [ ! -f "$res/done" ]; then
		why="VM died during the tests, rc $vm_rc"
		[ "$vm_rc" -eq 124 ] || [ "$vm_rc" -eq 137 ] &&
			why="VM killed after ${tmo}s, the limit"
		echo "not ok - $name: $why; the end of $log:"
		grep -m1 -A40 -E 'Kernel panic|BUG:|Oops|blocked for more than' "$log" |
			sed 's/^/#   /'
		tail -n 15 "$log" | sed 's/^/#   /'
	fi
	if [ -n "$why" ] && [ "$MODE" = check ]; then
		# Every test the VM did not run is a failure.
		want=$(expected_tests "$name" "${progs[@]}")
		missing=$((want - pass - fail))
		[ "$missing" -gt 0 ] || missing=1
		fail=$((fail + missing))
	elif [ -n "$why" ]; then
		fail=$((fail + 1))
	fi
	if [ "$MODE" = bench ] && [ -z "$why" ]; then
		"$TOP/bench/plot.sh" "$res" || fail=$((fail + 1))
	fi
	echo "== $name: ${secs}s in the VM"
	[ "$MODE" = check ] && print_times "$name" "$res"
	{
		echo "$pass $fail"
		echo "$name: $pass passed, $fail failed${why:+ ($why)}"
		for s in "${slow[@]}"; do
			echo "slow: $s"
		done
	} > "$sum"
}

# The Debian kernels of a check run side by side, one vCPU each
# (VM_PARALLEL=0: one at a time, 2 vCPUs each); the debug kernel runs
# alone with 2 vCPUs, where races need two CPUs and the detectors' cost
# leaves no room for a second guest.  A TCG guest's vCPU is one host
# thread: two 1-vCPU guests fit 2 cores, two 2-vCPU guests starve each
# other (see Documentation/testing.rst).  A parallel guest's output is
# printed whole when it ends, in KERNELS' order, so that each program's
# TAP stays together.
together=()
alone=()
for k in $KERNELS; do
	case $k in
	*-debug) alone+=("$k") ;;
	*) together+=("$k") ;;
	esac
done
if [ "${VM_PARALLEL:-1}" != 1 ] || [ "$MODE" != check ] ||
   [ ${#together[@]} -lt 2 ]; then
	alone=($KERNELS)
	together=()
fi

tmo_of() {		# tmo_of K: the VM's time limit
	local t=${VM_TIMEOUT:-1800}
	case $1 in *-debug) t=${VM_TIMEOUT:-3000} ;; esac
	[ "$MODE" = bench ] && t=${VM_TIMEOUT:-4800}
	[ ${#together[@]} -gt 0 ] && [[ $1 != *-debug ]] && t=${VM_TIMEOUT:-2700}
	echo "$t"
}

for k in $KERNELS; do
	rel=$(resolve_kernel "$k")
	[ -n "$rel" ] && probe_accel "$rel"
done
: "${VM_ACCEL=--disable-kvm}"

if [ ${#together[@]} -gt 0 ]; then
	echo "run.sh: ${together[*]} side by side, ${VM_CPUS:-1} vCPU each; their output when each ends"
	pids=()
	for k in "${together[@]}"; do
		run_kernel "$k" "${VM_CPUS:-1}" "$(tmo_of "$k")" > "$RUN/$k.out" 2>&1 &
		pids+=($!)
	done
	trap 'kill -TERM "${pids[@]}" 2>/dev/null; exit 130' INT TERM
	wait "${pids[@]}"
	trap - INT TERM
	for k in "${together[@]}"; do
		cat "$RUN/$k.out"
	done
fi
for k in "${alone[@]}"; do
	run_kernel "$k" "${VM_CPUS:-2}" "$(tmo_of "$k")"
done

total_pass=0
total_fail=0
summary=()
slow=()
rc=0
for k in $KERNELS; do
	sum=$RUN/$k.sum
	if [ ! -f "$sum" ]; then
		summary+=("$k: 0 passed, 1 failed (no result)")
		total_fail=$((total_fail + 1))
		continue
	fi
	read -r pass fail < "$sum"
	total_pass=$((total_pass + pass))
	total_fail=$((total_fail + fail))
	[ "$fail" -eq 0 ] || rc=1
	summary+=("$(sed -n 2p "$sum")")
	while IFS= read -r l; do
		slow+=("${l#slow: }")
	done < <(sed -n '3,$p' "$sum")
	rm -f "$sum"
done

[ "$MODE" = check ] || exit $rc

# The programs of this run replace their lines; the others stay.
if [ "${UPDATE_BASELINE:-0}" = 1 ]; then
	new=$(mktemp)
	for d in "$RUN"/*/; do
		[ -f "$d/times" ] && sed "s|^|$(basename "$d") |" "$d/times"
	done > "$new"
	{
		echo "# kernel program tests seconds (UPDATE_BASELINE=1 make check)"
		awk 'NR == FNR { seen[$1 " " $2] = 1; next }
		     !/^#/ && !(($1 " " $2) in seen)' "$new" "$BASELINE" 2>/dev/null
		cat "$new"
	} | { read -r head; echo "$head"; sort -k1,1V -k2,2; } > "$BASELINE.tmp"
	mv "$BASELINE.tmp" "$BASELINE"
	rm -f "$new"
	echo "run.sh: $BASELINE updated"
fi

echo
for s in "${slow[@]}"; do
	echo "slow: $s"
done
for s in "${summary[@]}"; do
	echo "$s"
done
echo "$total_pass passed, $total_fail failed"
[ "$total_pass" -gt 0 ] || rc=1
exit $rc
}
