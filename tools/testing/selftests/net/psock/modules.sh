#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# psock.ko life cycle: rmmod refused while a socket is open, socket() after
# rmmod, autoload by socket() for both families, and 20 load/unload cycles
# that must leave nothing behind.  Leaves the module loaded.

cd "$(dirname "$0")" || exit 1
. ../lib/tap_lib.sh
. ../lib/modules_lib.sh

MOD=psock
KO=${PSOCK_KO:?PSOCK_KO must point to psock.ko}

open_every_kind() {
	local f p
	for f in inet inet6; do
		p=$(socktool try $f stream psock)
		[ "$p" = ok ] || { echo "# socket($f, psock): $p"; return 1; }
	done
	proto_listed PSOCK && proto_listed PSOCKv6
}

check_rmmod_refused inet stream psock
check_rmmod_refused inet6 stream psock

tap_expect "after rmmod: socket(AF_INET, IPPROTO_PSOCK) fails with EPROTONOSUPPORT" \
	EPROTONOSUPPORT no_autoload socktool try inet stream psock
tap_expect "after rmmod: socket(AF_INET6, IPPROTO_PSOCK) fails with EPROTONOSUPPORT" \
	EPROTONOSUPPORT no_autoload socktool try inet6 stream psock
! proto_listed PSOCK && ! proto_listed PSOCKv6
tap_result $? "after rmmod: PSOCK and PSOCKv6 gone from /proc/net/protocols"
! slab_listed PSOCK && ! slab_listed PSOCKv6
tap_result $? "after rmmod: PSOCK slab caches destroyed"
tap_expect "after rmmod: plain TCP still works" ok socktool try inet stream 6

load_cycles 20 open_every_kind
autoload_check inet stream psock
autoload_check inet6 stream psock

mod_ensure_loaded
tap_check "psock loaded again for the rest of the run" mod_loaded
tap_done
