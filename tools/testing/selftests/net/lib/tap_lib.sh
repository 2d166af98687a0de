#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# TAP helpers for the shell tests (sourced).
#
#   tap_check "description" command args...   ok if the command succeeds
#   tap_expect "description" WANT command...  ok if the command prints WANT
#   tap_done                                   plan line, exit status

TAP_N=0
TAP_FAILED=0
echo "TAP version 13"

tap_result() {		# tap_result STATUS DESCRIPTION
	TAP_N=$((TAP_N + 1))
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

tap_done() {
	echo "1..$TAP_N"
	[ "$TAP_FAILED" -eq 0 ]
	exit $?
}
