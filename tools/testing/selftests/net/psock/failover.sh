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
# transfer (the client holds the rest of its input back until then),
# path 2 fails (netem loss 100%, ip link set down); the blocks
# it held are resent on path 1, cmp must pass both ways and the client
# must be left with no subflow of path 2 and both of path 1 (a healthy
# subflow is never declared dead).  The same over IPv6, and with the
# control subflow (sf[0]) on path 2: the client connects to path 2, the
# server announces path 1.  A path that comes back gets its subflows
# again.  Path 2 is also cut by TCP
# resets (nft, past 1 MiB per connection).  When every path fails for a
# while and comes back, the transfer goes on with every subflow.  When
# one direction of every path stalls, no subflow is declared dead; when
# opposite directions of the two paths stall, the connection survives the
# verdicts of both ends.

cd "$(dirname "$0")" || exit 1
. ../lib/tap_lib.sh
. ./veth_lib.sh

STALE=1000
XFER_TIMEOUT=60

# make check runs the cases in two halves, "a" on 6.1 and "b" on the
# other kernels (each half about 150 s under TCG on a busy host, the
# whole 280 s, twice over more than CI's budget has room for), case 7
# in both; make check-long (LONG=1) runs every case on every kernel.
SHARD=$(kernel_share a b)
half() {		# half a|b: true when this run has that half
	[[ " $SHARD " == *" $1 "* ]]
}
echo "# cases of half ${SHARD// / and } (LONG=1: both)"

if ! setup; then
	tap_result 1 "netns + veth + netem set-up"
	tap_done
fi
for ns in $A $B; do
	ip netns exec $ns sysctl -qw net.psock.stale_timeout_ms=$STALE
	tc -n $ns qdisc change dev veth-${ns#psk-}1 root netem delay 2ms rate 50mbit
done

# CMD runs once the server has received 2 MiB, and the client, fed by
# gated, sends no more than 4 MiB before it ran: the failure hits the
# middle of the transfer whatever the speed of the VM (under TCG, on a
# busy host, polling the size alone once saw the transfer end first).
# fail_later CMD...
fail_later() {
	rm -f "$TMP/b.out" "$TMP/failed"
	(
		local i n
		for i in $(seq 1200); do
			n=$(stat -c %s "$TMP/b.out" 2>/dev/null)
			[ "${n:-0}" -ge 2097152 ] && break
			sleep 0.05
		done
		"$@"
		: > "$TMP/failed"
	) &
}

# gated FILE CMD...: runs CMD with FILE on its input, holding back all but
# the first 4 MiB until fail_later's CMD ran.
gated() {
	local f=$1
	shift
	GATED=(bash -c '{ head -c 4194304 "$0" &&
		until [ -e "$1" ]; do sleep 0.05; done &&
		tail -c +4194305 "$0"; } | "${@:2}"' "$f" "$TMP/failed" "$@")
}

both_loss() {		# both_loss PATH PERCENT
	tc -n $A qdisc change dev veth-a$1 root netem delay 5ms rate 20mbit loss "$2%"
	tc -n $B qdisc change dev veth-b$1 root netem delay 5ms rate 20mbit loss "$2%"
}

# check_failover DESC KEPT CUT: the client's PSOCK_INFO after a cut of
# the path to CUT.
check_failover() {
	local n1 n2 left
	expect_info "$1" "$TMP/a.err" "streams=4 driver=0 fallback=0"
	left=$(sed -n 's/^end: subflows=//p' "$TMP/a.err")
	[ -n "$left" ] && [ "$left" -lt 4 ]
	tap_result $? "$1: PSOCK_INFO down from 4 subflows (to ${left:-?})"
	# The cut path's are gone; the other keeps both of its own: a
	# healthy subflow is never declared dead, however slow the host.
	n1=$(path_val "$2" subflows)
	n2=$(path_val "$3" subflows)
	[ -z "$n2" ] && [ "${n1:-0}" = 2 ]
	tap_result $? "$1: no subflow of path 2 left, ${n1:-0} of path 1 (want 2)"
}

# run_failover DESC FAM CONNECT ANNOUNCE FAIL_CMD...: the client connects
# to CONNECT (its control subflow, sf[0], and sf[2] go there), the server
# announces ANNOUNCE (sf[1], sf[3]); FAIL_CMD cuts path 2, whichever of
# the two addresses is on it.
run_failover() {
	local desc=$1 fam=$2 s1=$3 s2=$4 opt= kept cut
	shift 4
	[ "$fam" = 6 ] && opt=-6
	kept=$s1 cut=$s2
	case $s1 in 10.71.2.*|fd71:2:*) kept=$s2 cut=$s1 ;; esac
	fail_later "$@"
	gated "$TMP/a" $PC $opt -i -W $((3 * STALE)) -n 4 "$s1" PORT
	xfer "$desc: 16 MiB / 8 MiB, cmp both ways" 16777216 \
		$PC $opt -i -n 4 -a "$s2" -l PORT -- "${GATED[@]}"
	wait
	check_failover "$desc" "$kept" "$cut"
}

# 1. netem drops everything on path 2: no progress for stale_timeout_ms.
half a && run_failover "v4, path 2 loses every packet" 4 10.71.1.2 10.71.2.2 \
	both_loss 2 100
both_loss 2 0

# 2. Path 2's link goes down (v4).
half b && run_failover "v4, path 2 link down" 4 10.71.1.2 10.71.2.2 \
	ip -n $A link set veth-a2 down
ip -n $A link set veth-a2 up

# 2b. The same over IPv6 (veth_lib.sh gives both paths fd71:P::1/2).
half a && run_failover "v6, path 2 loses every packet" 6 fd71:1::2 fd71:2::2 \
	both_loss 2 100
both_loss 2 0

# 2c. The control subflow's path is the one cut: the client connects to
# path 2 and the server announces path 1, so sf[0] (and sf[2]) run on
# path 2.  Losing the control subflow is losing a subflow: the transfer
# completes on path 1's two.
half b && run_failover "v4, control subflow's path 2 loses every packet" 4 \
	10.71.2.2 10.71.1.2 both_loss 2 100
both_loss 2 0

# 2d. Path 2 loses every packet for 3 s, then comes back: the client opens
# its two subflows of path 2 again (a dead subflow's slot is tried 1 s
# after it died, then 2 s, 4 s ... after each failed try), in place of
# the dead ones at both ends, and they carry data to the end.  They come
# through the server's listener, which stays open (-k) as a server's
# does.  The client holds the rest of its input back until 12 s after the
# path is back.
cut_then_back() {
	both_loss 2 100
	sleep $((3 * STALE / 1000))
	both_loss 2 0
	sleep 12
}
# run_back DESC CONNECT ANNOUNCE: as run_failover, path 2 cut and back.
run_back() {
	local desc=$1 n1 n2 sent2
	fail_later cut_then_back
	gated "$TMP/a" $PC -i -W $((3 * STALE)) -n 4 "$2" PORT
	xfer "$desc: 16 MiB / 8 MiB, cmp both ways" \
		16777216 $PC -i -n 4 -a "$3" -k -l PORT -- "${GATED[@]}"
	wait
	n1=$(path_val 10.71.1.2 subflows)
	n2=$(path_val 10.71.2.2 subflows)
	sent2=$(path_val 10.71.2.2 sent)
	[ "${n1:-0}" = 2 ] && [ "${n2:-0}" = 2 ] && [ "${sent2:-0}" -gt 0 ]
	tap_result $? "$desc: the client has 2 subflows of path 1 (${n1:-0}) and 2 of path 2 again (${n2:-0}), which sent ${sent2:-0} bytes"
	n2=$(sed -n 's/^path 10.71.2.1 .*subflows=\([0-9]*\).*/\1/p' "$TMP/b.err")
	[ "${n2:-0}" = 2 ]
	tap_result $? "$desc: the server has 2 subflows of path 2 again (${n2:-0})"
}

half a && run_back "v4, path 2 lost for 3 s, then back" 10.71.1.2 10.71.2.2
# The control subflow (sf[0]) is on path 2: it is opened again too.
half b && run_back "v4, control subflow's path 2 lost for 3 s, then back" \
	10.71.2.2 10.71.1.2

# 3. Round-robin loses a path too (v4, loss).
if half b; then
fail_later both_loss 2 100
gated "$TMP/a" $PC -i -W $((3 * STALE)) -n 4 -d 1 10.71.1.2 PORT
xfer "round-robin, path 2 loses every packet: 16 MiB / 8 MiB, cmp both ways" \
	16777216 $PC -i -n 4 -d 1 -a 10.71.2.2 -l PORT -- "${GATED[@]}"
wait
left=$(sed -n 's/^end: subflows=//p' "$TMP/a.err")
n1=$(path_val 10.71.1.2 subflows)
[ -n "$left" ] && [ "$left" -lt 4 ] && [ -z "$(path_val 10.71.2.2 subflows)" ] &&
	[ "$n1" = 2 ]
tap_result $? "round-robin: PSOCK_INFO down from 4 subflows (to ${left:-?}), none on path 2, ${n1:-0} of path 1 (want 2)"
both_loss 2 0
fi

# 4. Path 2 cut by TCP resets: an nft rule in the input hook of both
# namespaces answers every segment of path 2 with a reset once its
# connection carried 1 MiB (conntrack's byte count, both directions), so
# the cut comes mid-transfer whatever the speed of the VM.  Round-robin
# keeps path 2 busy to the end (each subflow carries a quarter).  Rules at
# both ends: a reset is taken only when its sequence number is the next
# one expected (RFC 5961); with both directions cut, the retransmissions
# draw resets that fit.  Resets themselves pass.  The stale timeout is set
# longer than the transfer may last: the resets, not it, must end path 2.
nft_reset_after() {	# nft_reset_after PATH BYTES
	local ns peer
	for ns in $A $B; do
		peer=10.71.$1.2
		[ $ns = $B ] && peer=10.71.$1.1
		ip netns exec $ns nft -f - <<-EOF || return 1
			table inet psock_fail {
				chain input {
					type filter hook input priority 0; policy accept;
					ip saddr $peer tcp flags & rst == 0 ct bytes > $2 counter reject with tcp reset
				}
			}
		EOF
		# Byte counts for the connections made from now on.
		ip netns exec $ns sysctl -qw net.netfilter.nf_conntrack_acct=1 ||
			return 1
	done
}

# Packets the reset rule of netns $1 rejected.
nft_rejected() {
	ip netns exec "$1" nft list chain inet psock_fail input |
		sed -n 's/.* counter packets \([0-9]*\) .*/\1/p'
}

if half a; then
nft_reset_after 2 1048576
tap_result $? "nft: a reset rule past 1 MiB per connection of path 2, both namespaces"
for ns in $A $B; do
	ip netns exec $ns sysctl -qw net.psock.stale_timeout_ms=$((2 * XFER_TIMEOUT * 1000))
done
xfer "round-robin, path 2 reset by nft: 16 MiB / 8 MiB, cmp both ways" \
	16777216 $PC -i -n 4 -d 1 -a 10.71.2.2 -l PORT -- \
	$PC -i -W $STALE -n 4 -d 1 10.71.1.2 PORT
expect_info "path 2 reset by nft" "$TMP/a.err" "streams=4 driver=1 fallback=0"
left=$(sed -n 's/^end: subflows=//p' "$TMP/a.err")
n1=$(path_val 10.71.1.2 subflows)
[ "$left" = 2 ] && [ "$n1" = 2 ] && [ -z "$(path_val 10.71.2.2 subflows)" ]
tap_result $? "path 2 reset by nft: PSOCK_INFO down to the 2 subflows of path 1 (${left:-?}, ${n1:-0} of path 1)"
ra=$(nft_rejected $A) rb=$(nft_rejected $B)
[ $(( ${ra:-0} + ${rb:-0} )) -gt 0 ]
tap_result $? "path 2 reset by nft: the rules rejected segments (client ${ra:-?}, server ${rb:-?})"
for ns in $A $B; do
	ip netns exec $ns nft delete table inet psock_fail
	ip netns exec $ns sysctl -qw net.psock.stale_timeout_ms=$STALE
done
fi

# 5. Every path loses every packet for 3 stale timeouts, then comes back:
# an outage one TCP connection survives is survived.  No subflow may be
# declared dead while none makes progress (before, each was killed after
# stale_timeout_ms and the transfer ended in ETIMEDOUT).
outage() {		# outage SECONDS
	both_loss 1 100
	both_loss 2 100
	sleep "$1"
	both_loss 1 0
	both_loss 2 0
}

# A longer stale timeout here: on the debug kernel under TCG a subflow of
# a working path may miss 1 s, and this case is about the outage.
if half b; then
for ns in $A $B; do
	ip netns exec $ns sysctl -qw net.psock.stale_timeout_ms=$((2 * STALE))
done
fail_later outage $((6 * STALE / 1000))
gated "$TMP/a" $PC -i -W $((6 * STALE)) -n 4 10.71.1.2 PORT
xfer "every path lost for $((6 * STALE / 1000)) s, then back: 16 MiB / 8 MiB, cmp both ways" \
	16777216 $PC -i -n 4 -a 10.71.2.2 -l PORT -- "${GATED[@]}"
wait
left=$(sed -n 's/^end: subflows=//p' "$TMP/a.err")
[ -n "$left" ] && [ "$left" -ge 1 ]
tap_result $? "every path lost for a while: the connection keeps subflows (${left:-?} of 4)"
fi

# 6. One direction lost on every path while the other works: the client
# drops the server's data (nft, input hook: the server's segments longer
# than 200 bytes; its acks pass) for 3 stale timeouts while it goes on
# sending.  Then the server hears the client on every subflow and none
# of its own makes progress: the stall is the peer's receiving (as under
# memory pressure, when TCP drops what it cannot hold), not a path, and
# killing a subflow moves its blocks to others stalled the same way.
# One TCP connection waits; so must the connection: no subflow lost at
# either end.  Both paths at 10 Mbit/s here, so that the client's data
# lasts through the stall (before, the server killed its 4 subflows one
# stale timeout in, each as the client was heard on the others:
# ETIMEDOUT, and ECONNRESET at the client).
drop_from_server() {
	ip netns exec $A nft -f - <<-EOF
		table inet psock_oneway {
			chain input {
				type filter hook input priority 0; policy accept;
				ip saddr { 10.71.1.2, 10.71.2.2 } meta length > 200 counter drop
			}
		}
	EOF
}

# stall_time: once fail_later's CMD ran (at most 60 s), 3 stale timeouts.
stall_time() {
	local i

	for i in $(seq 1200); do
		[ -e "$TMP/failed" ] && break
		sleep 0.05
	done
	sleep $((3 * STALE / 1000))
}

lost_subflows() {
	echo $(( $(counter $A SubflowsLostTimeout) + $(counter $B SubflowsLostTimeout) +
		 $(counter $A SubflowsLostError) + $(counter $B SubflowsLostError) ))
}

for p in 1 2; do
	tc -n $A qdisc change dev veth-a$p root netem delay 2ms rate 10mbit
	tc -n $B qdisc change dev veth-b$p root netem delay 2ms rate 10mbit
done
if half a; then
lost=$(lost_subflows)
fail_later drop_from_server
(
	stall_time
	ip netns exec $A nft list chain inet psock_oneway input |
		sed -n 's/.* counter packets \([0-9]*\) .*/\1/p' > "$TMP/dropped"
	ip netns exec $A nft delete table inet psock_oneway
) &
# Both ends hold their input back until the rule is in (the server's
# 16 MiB would be through before on a slow host).
gated "$TMP/b" $PC -i -n 4 -a 10.71.2.2 -l PORT
srv=("${GATED[@]}")
gated "$TMP/a" $PC -i -W $((3 * STALE)) -n 4 10.71.1.2 PORT
SRV_SIZE=16777216 xfer "the server's data lost on every path for $((3 * STALE / 1000)) s: 8 MiB / 16 MiB, cmp both ways" \
	8388608 "${srv[@]}" -- "${GATED[@]}"
wait
dropped=$(cat "$TMP/dropped" 2>/dev/null)
[ "${dropped:-0}" -gt 0 ]
tap_result $? "one-way stall: the client's rule dropped the server's data (${dropped:-?} segments)"
left=$(sed -n 's/^end: subflows=//p' "$TMP/a.err")
lost=$(( $(lost_subflows) - lost ))
[ "$left" = 4 ] && [ "$lost" = 0 ]
tap_result $? "one-way stall: no subflow declared dead (${lost} lost, the client ends with ${left:-?} of 4)"
fi
# 7. Opposite directions of different paths stall at once: the server
# drops the client's data on path 1, the client drops the server's on
# path 2 (nft, input hooks, segments longer than 200 bytes; acks and
# handshakes pass) for 3 stale timeouts.  Each end sees its own data
# stuck on one path while the other works, declares the subflows of that
# path dead and resets them, and the other end loses its last subflows to
# those resets: before, both ended in ECONNRESET.  An end whose last
# subflow was reset by the peer within 2 stale timeouts of a stale
# verdict of its own waits that long for a rejoin: the client opens the
# dead slots again (the server's listener stays open, -k), and the
# transfer completes.  Both paths still at 10 Mbit/s (case 6).
drop_data_from() {	# drop_data_from NS SADDR
	ip netns exec "$1" nft -f - <<-EOF
		table inet psock_cross {
			chain input {
				type filter hook input priority 0; policy accept;
				ip saddr $2 meta length > 200 counter drop
			}
		}
	EOF
}

drop_crossing() {
	drop_data_from $B 10.71.1.1 && drop_data_from $A 10.71.2.2
}

cross_dropped() {	# cross_dropped NS
	ip netns exec $1 nft list chain inet psock_cross input |
		sed -n 's/.* counter packets \([0-9]*\) .*/\1/p'
}

lost=$(lost_subflows)
fail_later drop_crossing
(
	stall_time
	echo "$(cross_dropped $B) $(cross_dropped $A)" > "$TMP/dropped"
	ip netns exec $A nft delete table inet psock_cross
	ip netns exec $B nft delete table inet psock_cross
) &
gated "$TMP/b" $PC -i -n 4 -a 10.71.2.2 -k -l PORT
srv=("${GATED[@]}")
gated "$TMP/a" $PC -i -W $((3 * STALE)) -n 4 10.71.1.2 PORT
SRV_SIZE=16777216 xfer "crossing stalls: the client's data lost on path 1, the server's on path 2, for $((3 * STALE / 1000)) s: 8 MiB / 16 MiB, cmp both ways" \
	8388608 "${srv[@]}" -- "${GATED[@]}"
wait
read -r d1 d2 < "$TMP/dropped"
[ "${d1:-0}" -gt 0 ] && [ "${d2:-0}" -gt 0 ]
tap_result $? "crossing stalls: the rules dropped the client's data on path 1 (${d1:-?}) and the server's on path 2 (${d2:-?})"
left=$(sed -n 's/^end: subflows=//p' "$TMP/a.err")
lost=$(( $(lost_subflows) - lost ))
[ -n "$left" ] && [ "$left" -ge 1 ]
tap_result $? "crossing stalls: the client ends with subflows (${left:-?} of 4; ${lost} lost on the way)"

tc -n $A qdisc change dev veth-a1 root netem delay 2ms rate 50mbit
tc -n $B qdisc change dev veth-b1 root netem delay 2ms rate 50mbit
tc -n $A qdisc change dev veth-a2 root netem delay 5ms rate 20mbit
tc -n $B qdisc change dev veth-b2 root netem delay 5ms rate 20mbit

tap_done
