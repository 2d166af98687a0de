#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot one VM per target kernel and run a job inside it (guest.sh).
#
#   run.sh check   every selftest suite; TAP collected, kernel log checked
#   run.sh demo    the demo of the main job
#   run.sh bench   everything under bench/
#
# Environment:
#   KERNELS   target kernels: "6.1", "6.12" (the newest Debian kernel of the
#             series in /boot), "6.12-debug" (the debug kernel of
#             debug-kernel.sh) or a full release name; default
#             "6.1 6.12 6.12-debug"
#   SUITES    suites or single tests: "hicn", "psock", "hicn/socket_test";
#             for bench, the benchmarks: "psock_paths.sh psock_rtt.sh"
#   VM_TIMEOUT  seconds one VM may run (default 1500; 3000 for the debug
#             kernel)
#   MODBUILD  where the built modules are (default .cache/build); the
#             harness self-test points it at deliberately broken builds
#
# The modules must already be built into $MODBUILD/<release>/ (make
# modules) and the selftests into their folders (make selftests).
#
# The guest cannot be trusted to report its own death: a panic still ends
# vng with status 0.  The guest therefore writes its results into a shared
# folder and a final "done" marker; a missing marker fails the kernel.

set -u

TOP=$(cd "$(dirname "$0")/../../.." && pwd)
CACHE=${CACHE:-$TOP/.cache}
MODE=${1:-check}
MODBUILD=${MODBUILD:-$CACHE/build}
DEBUG_TREE=$CACHE/debug-kernel/current
export PATH="$CACHE/venv/bin:$PATH"

die() { echo "run.sh: $*" >&2; exit 1; }

# Map "6.1" / "6.12" / a full release to the newest matching /boot image,
# "6.12-debug" to the debug kernel's release.
resolve_kernel() {
	local want=$1 img
	if [ "$want" = 6.12-debug ]; then
		[ -f "$DEBUG_TREE/arch/x86/boot/bzImage" ] &&
			cat "$DEBUG_TREE/include/config/kernel.release"
		return
	fi
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

short_name() {
	case $1 in
	6.12.*-hicn-debug) echo 6.12-debug ;;
	6.1.*) echo 6.1 ;;
	6.12.*) echo 6.12 ;;
	*) echo "$1" ;;
	esac
}

KERNELS=${KERNELS:-6.1 6.12 6.12-debug}

# KVM only where it really works: probe once (VM_ACCEL), fall back to TCG.
probe_accel() {
	local rel=$1 out
	[ -n "${VM_ACCEL+set}" ] && return
	VM_ACCEL=--disable-kvm
	[ -w /dev/kvm ] || return
	out=$(timeout 60 vng --no-virtme-ng-init -r "$(kernel_image "$rel")" \
		--user root --exec 'echo KVM-PROBE-OK' </dev/null 2>&1)
	if printf '%s' "$out" | grep -q KVM-PROBE-OK; then
		VM_ACCEL=
	fi
}

total_pass=0
total_fail=0
summary=()
rc=0

for k in $KERNELS; do
	rel=$(resolve_kernel "$k")
	if [ -z "$rel" ]; then
		echo "run.sh: kernel $k is not installed (make setup; make debug-kernel for 6.12-debug)" >&2
		summary+=("$k: 0 passed, 1 failed (not installed)")
		total_fail=$((total_fail + 1))
		rc=1
		continue
	fi
	name=$(short_name "$rel")
	[ -f "$MODBUILD/$rel/net/hicn/hicn.ko" ] ||
		die "modules for $rel not built in $MODBUILD (make modules)"
	# Debug kernel: every KASAN report, not only the first; slower VM.
	append="panic_on_warn=0"
	tmo=${VM_TIMEOUT:-1500}
	case $rel in
	*-hicn-debug)
		append="$append kasan_multi_shot"
		tmo=${VM_TIMEOUT:-3000} ;;
	esac

	res=$CACHE/results/$rel
	rm -rf "$res"
	mkdir -p "$res" "$CACHE/logs"
	log=$CACHE/logs/$rel.$MODE.console.log
	probe_accel "$rel"
	accel=$VM_ACCEL

	case $accel in
	*disable-kvm*) how=TCG ;;
	*) how=KVM ;;
	esac
	echo "== $name ($rel): $MODE under $how"
	start=$(date +%s)
	# shellcheck disable=SC2086
	timeout --foreground -k 10 "$tmo" \
		vng --no-virtme-ng-init -r "$(kernel_image "$rel")" $accel \
		--user root --cpus 2 --memory 2G \
		--rwdir "$res=$res" --cwd "$TOP" \
		--append "$append" \
		--exec "$TOP/tools/testing/vm/guest.sh $MODE $rel $res '${SUITES:-}' $MODBUILD" \
		</dev/null 2>&1 | tee "$log"
	vm_rc=${PIPESTATUS[0]}
	secs=$(( $(date +%s) - start ))

	if [ ! -f "$res/done" ]; then
		echo "not ok - $name: the VM did not finish (rc $vm_rc, see $log)"
		grep -m1 -A25 -E 'Kernel panic|BUG:|Oops' "$log"
		pass=$(cat "$res/passed" 2>/dev/null || echo 0)
		fail=$(( $(cat "$res/failed" 2>/dev/null || echo 0) + 1 ))
	else
		pass=$(cat "$res/passed")
		fail=$(cat "$res/failed")
	fi
	[ "$fail" -eq 0 ] || rc=1
	summary+=("$name: $pass passed, $fail failed")
	if [ "$MODE" = bench ]; then
		"$TOP/bench/plot.sh" "$res" || rc=1
	fi
	echo "== $name: ${secs}s in the VM"
	total_pass=$((total_pass + pass))
	total_fail=$((total_fail + fail))
done

[ "$MODE" = check ] || exit $rc

echo
for s in "${summary[@]}"; do
	echo "$s"
done
echo "$total_pass passed, $total_fail failed"
[ "$total_pass" -gt 0 ] || rc=1
exit $rc
