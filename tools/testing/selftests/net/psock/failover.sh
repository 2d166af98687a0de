#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Subflow failure in the middle of a transfer, on the topology of
# veth_lib.sh (path 1 slowed to 50 Mbit/s here so that transfers last):
#
#   psk-a (client)  veth-a1 10.71.1.1 ==== path 1 ==== 10.71.1.2 veth-b1  psk-b
#                   veth-a2 10.71.2.1 ==== path 2 ==== 10.71.2.2 veth-b2  (server)
#
# The server announces path 2 (PSOCK_ADD_LOCAL_ADDR): 4 subflows, 2 per
# path.  Once the server has received 2 MiB of a 16 MiB / 8 MiB duplex
# transfer, path 2 fails (netem loss 100%, ip link set down); the blocks
# it held are resent on path 1, cmp must pass both ways and the client
# must be left with no subflow of path 2.  When every path fails the
# transfer must end in an error, not hang.

cd "$(dirname "$0")" || exit 1
. ../lib/tap_lib.sh
. ./veth_lib.sh

STALE=1000
XFER_TIMEOUT=60

if ! setup; then
	tap_result 1 "netns + veth + netem set-up"
	tap_done
fi
for ns in $A $B; do
	ip netns exec $ns sysctl -qw net.psock.stale_timeout_ms=$STALE
	tc -n $ns qdisc change dev veth-${ns#psk-}1 root netem delay 2ms rate 50mbit
done

# CMD runs once the server has received 2 MiB (of 16 or 32): the failure
# hits the middle of the transfer whatever the speed of the VM.
# fail_later CMD...
fail_later() {
	rm -f "$TMP/b.out"
	(
		local i n
		for i in $(seq 1200); do
			n=$(stat -c %s "$TMP/b.out" 2>/dev/null)
			[ "${n:-0}" -ge 2097152 ] && break
			sleep 0.05
		done
		"$@"
	) &
}

both_loss() {		# both_loss PATH PERCENT
	tc -n $A qdisc change dev veth-a$1 root netem delay 5ms rate 20mbit loss "$2%"
	tc -n $B qdisc change dev veth-b$1 root netem delay 5ms rate 20mbit loss "$2%"
}

# check_failover DESC FAM SRV1 SRV2
check_failover() {
	local n2
	local n1 left
	expect_info "$1" "$TMP/a.err" "streams=4 driver=0 fallback=0"
	left=$(sed -n 's/^end: subflows=//p' "$TMP/a.err")
	[ -n "$left" ] && [ "$left" -lt 4 ]
	tap_result $? "$1: PSOCK_INFO down from 4 subflows (to ${left:-?})"
	# Path 2's are gone; path 1 keeps its 2 (on a loaded TCG host one of
	# them may also miss the short stale timeout: at least one).
	n1=$(path_val "$3" subflows)
	n2=$(path_val "$4" subflows)
	[ -z "$n2" ] && [ "${n1:-0}" -ge 1 ]
	tap_result $? "$1: no subflow of path 2 left, ${n1:-0} of path 1"
}

run_failover() {	# run_failover DESC FAM SRV1 SRV2 FAIL_CMD...
	local desc=$1 fam=$2 s1=$3 s2=$4 opt=
	shift 4
	[ "$fam" = 6 ] && opt=-6
	fail_later "$@"
	xfer "$desc: 16 MiB / 8 MiB, cmp both ways" 16777216 \
		$PC $opt -i -n 4 -a "$s2" -l PORT -- \
		$PC $opt -i -W $((3 * STALE)) -n 4 "$s1" PORT
	wait
	check_failover "$desc" "$fam" "$s1" "$s2"
}

# 1. netem drops everything on path 2: no progress for stale_timeout_ms.
run_failover "v4, path 2 loses every packet" 4 10.71.1.2 10.71.2.2 \
	both_loss 2 100
both_loss 2 0

# 2. Path 2's link goes down (v4).
run_failover "v4, path 2 link down" 4 10.71.1.2 10.71.2.2 \
	ip -n $A link set veth-a2 down
ip -n $A link set veth-a2 up

# 3. Round-robin loses a path too (v4, loss).
fail_later both_loss 2 100
xfer "round-robin, path 2 loses every packet: 16 MiB / 8 MiB, cmp both ways" \
	16777216 $PC -i -n 4 -d 1 -a 10.71.2.2 -l PORT -- \
	$PC -i -W $((3 * STALE)) -n 4 -d 1 10.71.1.2 PORT
wait
left=$(sed -n 's/^end: subflows=//p' "$TMP/a.err")
[ -n "$left" ] && [ "$left" -lt 4 ] && [ -z "$(path_val 10.71.2.2 subflows)" ]
tap_result $? "round-robin: PSOCK_INFO down from 4 subflows (to ${left:-?}), none on path 2"
both_loss 2 0

# A path cut by TCP resets (an nft rule answering path 2's segments with
# resets) is not run here: on the debug kernel the rule, added when the
# server has 2 MiB, did not reliably land before the end of the transfer
# (2 runs of 2 failed: once no segment rejected, once a bug since fixed).
# Surviving a subflow reset mid-transfer is not tested until it is made
# reliable (git history has the case).

# 4. Every path fails: an error within a few stale timeouts, not a hang.
head -c 33554432 /dev/urandom > "$TMP/big"
PORT=$((PORT + 1))
fail_later both_loss 1 100
ip netns exec $B timeout 60 $PC -n 2 -l $PORT < /dev/null > "$TMP/b.out" 2> "$TMP/b.err" &
spid=$!
wait_listen $B $PORT
t0=$(date +%s)
ip netns exec $A timeout 60 $PC -i -n 2 10.71.1.2 $PORT < "$TMP/big" \
	> /dev/null 2> "$TMP/a.err"
rc=$?
t=$(( $(date +%s) - t0 ))
# The server has nothing in flight: it cannot tell; stop it.
kill $spid 2>/dev/null
wait
sed 's/^/# client: /' "$TMP/a.err"
[ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $t -lt 30 ]
tap_result $? "every subflow lost: the client fails after ${t}s (status $rc, not a hang)"
grep -qE 'timed out|reset|Broken pipe' "$TMP/a.err"
tap_result $? "every subflow lost: the error is ETIMEDOUT / ECONNRESET / EPIPE"
both_loss 1 0

tap_done
