#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# psock.ko life cycle: rmmod refused while a socket is open, socket() after
# rmmod, autoload by socket() for both families, and 20 load/unload cycles
# that must leave nothing behind; rmmod refused while a closed connection
# still delivers in the background, and rmmod with closed connections'
# subflows still draining in the graveyard.  Leaves the module loaded.

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

# ---- closed connections: the orphan and the graveyard ----
#
# Documentation/psock.rst, "close()": "An orphaned socket keeps the module
# loaded until it ends"; it ends, reset, when no acknowledgement came for
# 4 x stale_timeout_ms.  Once it ended, its subflows drain in the graveyard
# until the peer closes them: nothing there is a socket of the module, so
# rmmod goes on and hands them to TCP.  Either way no kernel report.
NS=psk-mod
GPORT=7301
STALE=1500
GTMP=$(mktemp -d)
trap 'ip netns del $NS 2>/dev/null; rm -rf "$GTMP"' EXIT

klog_lines() { dmesg | wc -l; }

# No kernel report in the log since line $1.
klog_clean() {
	! dmesg | tail -n +"$(($1 + 1))" |
		grep -E 'WARNING:|BUG:|Oops|KFENCE|refcount_t|general protection|ODEBUG:|UBSAN'
}

# TCP sockets of port $1 in $NS (either end, listeners left out) that a
# struct socket still holds (inode not 0): subflows the module owns.
held_subflows() {
	ip netns exec $NS awk -v p="$(printf '%04X' "$1")" '
		FNR > 1 && $4 != "0A" && $10 != 0 &&
		(substr($2, index($2, ":") + 1) == p ||
		 substr($3, index($3, ":") + 1) == p) { n++ }
		END { print n + 0 }' /proc/net/tcp
}

# TCP sockets of port $1 in $NS not yet closed by both ends (FIN-WAIT-1,
# CLOSING, LAST-ACK).
closing_tcp() {
	ip netns exec $NS awk -v p="$(printf '%04X' "$1")" '
		FNR > 1 && ($4 == "04" || $4 == "0B" || $4 == "09") &&
		(substr($2, index($2, ":") + 1) == p ||
		 substr($3, index($3, ":") + 1) == p) { n++ }
		END { print n + 0 }' /proc/net/tcp
}

close_timeouts() {
	ip netns exec $NS awk 'NR == 1 { for (i = 2; i <= NF; i++)
		if ($i == "CloseTimeouts") c = i } NR == 2 { print $c; exit }' \
		/proc/net/psock
}

# wait_for SECONDS CMD...: until CMD succeeds, every 0.1 s.
wait_for() {
	local end=$(($(date +%s) + $1))
	shift
	until "$@"; do
		[ "$(date +%s)" -lt $end ] || return 1
		sleep 0.1
	done
}

# ns_wait SECONDS CONDITION: until the shell CONDITION holds in $NS, polled
# every 50 ms by one shell there; prints when, in ns since the epoch.
ns_wait() {
	ip netns exec $NS timeout "$1" bash -c '
		until '"$2"'; do sleep 0.05; done
		date +%s%N'
}

none_closing() { [ "$(closing_tcp "$1")" = 0 ]; }

# Something listens on TCP port $1 in $NS.
listening() { ip netns exec $NS ss -Hltn "sport = :$1" | grep -q .; }

refcnt_is() { [ "$(cat "/sys/module/$MOD/refcnt" 2>/dev/null)" = "$1" ]; }

# nft_rules RULE...: the input chain of $NS holds only these rules.
nft_rules() {
	local r
	{
		echo "table inet psock_mod"
		echo "delete table inet psock_mod"
		echo "table inet psock_mod {"
		echo " chain input {"
		echo "  type filter hook input priority 0; policy accept;"
		for r in "$@"; do echo "  $r"; done
		echo " }"
		echo "}"
	} | ip netns exec $NS nft -f -
}

mod_ensure_loaded
ip netns add $NS && ip -n $NS link set lo up &&
	ip netns exec $NS sysctl -qw net.psock.stale_timeout_ms=$STALE &&
	ip netns exec $NS sysctl -qw net.psock.hello_timeout_ms=500
tap_result $? "closed connections: netns $NS, stale_timeout_ms $STALE"
KLOG=$(klog_lines)

# The orphan: the peer reads 64 KiB and is then killed; its resets (and
# every later one) are dropped, so the closed client keeps most of 512 KiB
# unacknowledged until its budget runs out.
nft_rules "tcp flags & rst != 0 counter drop"
tap_result $? "orphan: a rule drops every TCP reset in $NS"
mkfifo "$GTMP/out" && exec 9<>"$GTMP/out"
ip netns exec $NS ./psock_cat -l $GPORT </dev/null >"$GTMP/out" &
SRV=$!
# Not before the listener exists: the reset refusing a connection is dropped.
wait_for 10 listening $GPORT &&
	head -c 524288 /dev/urandom |
	timeout 30 ip netns exec $NS ./psock_cat 127.0.0.1 $GPORT >/dev/null
tap_result $? "orphan: 512 KiB sent, close() returned with the peer not reading"
T0=$(date +%s%N)
kill -9 $SRV
wait $SRV 2>/dev/null
exec 9>&-
wait_for 5 refcnt_is 1
tap_result $? "orphan: the orphan is the module's one user (refcnt $(cat /sys/module/$MOD/refcnt))"
! rmmod "$MOD" 2>/dev/null && mod_loaded
tap_result $? "orphan: rmmod refused while the closed connection goes on"
COL=$(awk 'NR == 1 { for (i = 2; i <= NF; i++)
	if ($i == "CloseTimeouts") print i }' /proc/net/psock)
END=$(ns_wait $((4 * STALE / 1000 + 10)) \
	"[ \"\$(awk 'NR == 2 { print \$$COL }' /proc/net/psock)\" = 1 ]")
tap_result $? "orphan: ended, reset 4 x stale_timeout_ms after the last ack (CloseTimeouts $(close_timeouts), $(((${END:-0} - T0) / 1000000)) ms after close())"
wait_for 5 refcnt_is 0 && rmmod "$MOD"
tap_result $? "orphan: rmmod succeeds once the orphan ended"
klog_clean "$KLOG"
tap_result $? "orphan: no kernel report"

# The graveyard: a transfer both ends close whose FINs never arrive, so
# every subflow of either end stays in the graveyard, waiting for the
# peer's FIN.  rmmod releases them to TCP; once the FINs pass again, TCP
# closes them, with none of our callbacks left on them.
insmod "$KO" && ip netns exec $NS sysctl -qw net.psock.stale_timeout_ms=$STALE
tap_result $? "graveyard: psock loaded again"
KLOG=$(klog_lines)
nft_rules "tcp flags & fin != 0 counter drop"
tap_result $? "graveyard: a rule drops every TCP FIN in $NS"
ip netns exec $NS ./psock_cat -l $((GPORT + 1)) </dev/null >/dev/null &
SRV=$!
wait_for 10 listening $((GPORT + 1)) &&
	head -c 262144 /dev/urandom |
	timeout 30 ip netns exec $NS ./psock_cat 127.0.0.1 $((GPORT + 1)) >/dev/null
tap_result $? "graveyard: 256 KiB delivered, client closed"
wait $SRV
tap_result $? "graveyard: server read to the end and closed"
wait_for 10 refcnt_is 0
tap_result $? "graveyard: no socket of the module left (refcnt $(cat /sys/module/$MOD/refcnt))"
N=$(held_subflows $((GPORT + 1)))
[ "$N" -ge 2 ]
tap_result $? "graveyard: closed connection's subflows still draining ($N held)"
rmmod "$MOD"
tap_result $? "graveyard: rmmod succeeds while subflows drain"
! mod_loaded && [ "$(held_subflows $((GPORT + 1)))" = 0 ]
tap_result $? "graveyard: module gone, its subflows handed to TCP"
ip netns exec $NS nft delete table inet psock_mod
ip netns exec $NS ss -tanoH "( sport = :$((GPORT + 1)) or dport = :$((GPORT + 1)) )" |
	sed 's/^/# /'
wait_for 20 none_closing $((GPORT + 1))
tap_result $? "graveyard: the FINs pass, TCP closes what was drained ($(closing_tcp $((GPORT + 1))) left)"
klog_clean "$KLOG"
tap_result $? "graveyard: no kernel report"
ip netns del $NS

mod_ensure_loaded
tap_check "psock loaded again for the rest of the run" mod_loaded
tap_done
