#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# TAP helpers for the shell tests (sourced).
#
#   tap_check "description" command args...   ok if the command succeeds
#   tap_expect "description" WANT command...  ok if the command prints WANT
#   check "description" STATUS WANT command... ok if the command exits with
#                                              STATUS and prints WANT
#   tap_done                                   plan line, exit status
#
# With TAP_TIMES=1 (make check TAP_TIMES=1 passes it to the VM) every
# result is preceded by the milliseconds since the one before, as a TAP
# comment: where a suite spends its time.

TAP_N=0
TAP_FAILED=0
[ "${TAP_TIMES:-0}" = 1 ] && TAP_LAST=$(date +%s%N)
echo "TAP version 13"

tap_result() {		# tap_result STATUS DESCRIPTION
	local now

	TAP_N=$((TAP_N + 1))
	if [ "${TAP_TIMES:-0}" = 1 ]; then
		now=$(date +%s%N)
		echo "# +$(((now - TAP_LAST) / 1000000)) ms"
		TAP_LAST=$now
	fi
	if [ "$1" -eq 0 ]; then
		echo "ok $TAP_N $2"
	else
		echo "not ok $TAP_N $2"
		TAP_FAILED=$((TAP_FAILED + 1))
	fi
}

tap_check() {
	local desc=$1
	shift
	"$@"
	tap_result $? "$desc"
}

tap_expect() {
	local desc=$1 want=$2 got
	shift 2
	got=$("$@" 2>&1)
	if [ "$got" = "$want" ]; then
		tap_result 0 "$desc"
	else
		echo "# expected '$want', got '$got'"
		tap_result 1 "$desc"
	fi
}

# check DESC STATUS WANT CMD...: CMD exits with STATUS and prints WANT
# (standard output and error together); on a difference both are shown.
check() {
	local desc=$1 want_rc=$2 want=$3 got rc
	shift 3
	got=$("$@" 2>&1)
	rc=$?
	if [ "$rc" = "$want_rc" ] && [ "$got" = "$want" ]; then
		tap_result 0 "$desc"
		return
	fi
	echo "# command: $*"
	echo "# expected status $want_rc, output:"
	printf '%s\n' "$want" | sed 's/^/#   /'
	echo "# got status $rc, output:"
	printf '%s\n' "$got" | sed 's/^/#   /'
	tap_result 1 "$desc"
}

tap_done() {
	echo "1..$TAP_N"
	[ "$TAP_FAILED" -eq 0 ]
	exit $?
}
