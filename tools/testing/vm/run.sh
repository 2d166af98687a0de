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
#   KERNELS   target kernels, short ("6.1 6.12") or full release names;
#             default: every Debian 6.1 and 6.12 kernel installed (newest of
#             each series)
#   SUITES    suites or single tests: "hicn", "psock", "hicn/socket_test"
#   VM_TIMEOUT  seconds one VM may run (default 1500)
#
# The modules must already be built into .cache/build/<release>/ (make
# modules) and the selftests into their folders (make selftests).
#
# The guest cannot be trusted to report its own death: a panic still ends
# vng with status 0.  The guest therefore writes its results into a shared
# folder and a final "done" marker; a missing marker fails the kernel.

set -u

TOP=$(cd "$(dirname "$0")/../../.." && pwd)
CACHE=${CACHE:-$TOP/.cache}
MODE=${1:-check}
VM_TIMEOUT=${VM_TIMEOUT:-1500}
export PATH="$CACHE/venv/bin:$PATH"

die() { echo "run.sh: $*" >&2; exit 1; }

# Map "6.1" / "6.12" / a full release to the newest matching /boot image.
resolve_kernel() {
	local want=$1 img
	if [ -e "/boot/vmlinuz-$want" ]; then
		echo "$want"
		return
	fi
	img=$(ls /boot/vmlinuz-"$want".* 2>/dev/null | sed 's|/boot/vmlinuz-||' |
	      grep -E "^$(printf '%s' "$want" | sed 's/\./\\./g')\.[0-9]" |
	      sort -V | tail -n1)
	[ -n "$img" ] && echo "$img"
}

short_name() {
	case $1 in
	6.1.*) echo 6.1 ;;
	6.12.*) echo 6.12 ;;
	*) echo "$1" ;;
	esac
}

KERNELS=${KERNELS:-6.1 6.12}

# KVM only where it really works: probe once (VM_ACCEL), fall back to TCG.
probe_accel() {
	local rel=$1 out
	[ -n "${VM_ACCEL+set}" ] && return
	VM_ACCEL=--disable-kvm
	[ -w /dev/kvm ] || return
	out=$(timeout 60 vng --no-virtme-ng-init -r "/boot/vmlinuz-$rel" \
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
		echo "run.sh: kernel $k is not installed (run make setup)" >&2
		summary+=("$k: 0 passed, 1 failed (not installed)")
		total_fail=$((total_fail + 1))
		rc=1
		continue
	fi
	name=$(short_name "$rel")
	[ -f "$CACHE/build/$rel/net/hicn/hicn.ko" ] ||
		die "modules for $rel not built (make modules)"

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
	timeout --foreground -k 10 "$VM_TIMEOUT" \
		vng --no-virtme-ng-init -r "/boot/vmlinuz-$rel" $accel \
		--user root --cpus 2 --memory 2G \
		--rwdir "$res=$res" --cwd "$TOP" \
		--append "panic_on_warn=0" \
		--exec "$TOP/tools/testing/vm/guest.sh $MODE $rel $res '${SUITES:-}'" \
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
