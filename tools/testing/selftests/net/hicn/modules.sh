#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# hicn.ko life cycle: rmmod refused while a socket is open, socket() after
# rmmod, the family module parameter, autoload by socket(), and 20
# load/unload cycles that must leave nothing behind.  Leaves the module
# loaded, as the harness expects.

cd "$(dirname "$0")" || exit 1
. ../lib/tap_lib.sh
. ../lib/modules_lib.sh

MOD=hicn
KO=${HICN_KO:?HICN_KO must point to hicn.ko}

# Every kind of socket the family offers.
open_every_kind() {
	local t p
	for t in "cons 0" "cons 1" "cons 2" "prod 0" "prod 3" "prod 4"; do
		p=$(socktool try hicn $t)
		[ "$p" = ok ] || { echo "# socket(hicn, $t): $p"; return 1; }
	done
	[ -r /proc/net/hicn ] && proto_listed HICN
}

check_rmmod_refused hicn cons 0
check_rmmod_refused hicn prod 3

tap_expect "after rmmod: socket(AF_HICN) fails with EAFNOSUPPORT" \
	EAFNOSUPPORT no_autoload socktool try 22 cons 0
! proto_listed HICN
tap_result $? "after rmmod: HICN gone from /proc/net/protocols"
! slab_listed HICN
tap_result $? "after rmmod: HICN slab cache destroyed"
[ ! -e /proc/net/hicn ]
tap_result $? "after rmmod: /proc/net/hicn gone"

# The family parameter: another free number, then numbers that must fail.
tap_check "insmod family=13" insmod "$KO" family=13
tap_expect "family=13 published in sysfs" 13 cat /sys/module/hicn/parameters/family
tap_expect "socket(13, SOCK_CONS) works" ok socktool try 13 cons 0
tap_expect "socket(22, SOCK_CONS) not served" EAFNOSUPPORT \
	no_autoload socktool try 22 cons 0
tap_check "rmmod after family=13" rmmod hicn
for bad in 0 2 10 46 -1; do
	! insmod "$KO" family=$bad 2>/dev/null
	tap_result $? "insmod family=$bad refused"
	mod_loaded && rmmod hicn
done

load_cycles 20 open_every_kind
autoload_check 22 cons 0

mod_ensure_loaded
tap_check "hicn loaded again for the rest of the run" mod_loaded
tap_done
