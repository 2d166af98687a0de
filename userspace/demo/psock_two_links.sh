#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Demo: one file over one PSOCK connection that uses two links at once.
# Two network namespaces joined by two veth pairs, shaped by netem to
# 20 and 60 Mbit/s; the receiver announces its second address, the
# sender opens 4 subflows (2 per link, poll-all).  Prints the checksum
# match, the throughput as a fraction of the link sum (80 Mbit/s), and
# what each link carried; then the same file over TCP on the faster link.
#
#   psd-a  veth-a1 10.74.1.1 ==== link 1: 20 Mbit/s, 2 ms ==== 10.74.1.2 veth-b1  psd-b
#          veth-a2 10.74.2.1 ==== link 2: 60 Mbit/s, 2 ms ==== 10.74.2.2 veth-b2
cd "$(dirname "$0")" || exit 1
A=psd-a
B=psd-b
RATE1=20
RATE2=60
SIZE=$((16 << 20))
TMP=$(mktemp -d)

cleanup() {
	ip netns del $A 2>/dev/null
	ip netns del $B 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

setup() {
	local p r
	modprobe sch_netem 2>/dev/null
	ip netns add $A && ip netns add $B || return 1
	for p in 1 2; do
		r=$RATE1
		[ $p = 2 ] && r=$RATE2
		ip link add veth-a$p netns $A type veth peer name veth-b$p netns $B &&
		ip -n $A addr add 10.74.$p.1/24 dev veth-a$p &&
		ip -n $B addr add 10.74.$p.2/24 dev veth-b$p &&
		ip -n $A link set veth-a$p up && ip -n $B link set veth-b$p up &&
		tc -n $A qdisc add dev veth-a$p root netem delay 2ms rate ${r}mbit limit 1000 &&
		tc -n $B qdisc add dev veth-b$p root netem delay 2ms rate ${r}mbit limit 1000 ||
			return 1
	done
	ip -n $A link set lo up && ip -n $B link set lo up
}

wait_listen() {
	local i
	for i in $(seq 50); do
		ip netns exec $B ss -Hltn "sport = :$1" | grep -q . && return 0
		sleep 0.1
	done
	return 1
}

# send PORT RECEIVER_ARGS -- SENDER_ARGS: the file across, timed.
send() {
	local port=$1 rcv=() spid
	shift
	while [ "$1" != -- ]; do rcv+=("$1"); shift; done
	shift
	ip netns exec $B ./psock_copy -l "$port" "${rcv[@]}" > "$TMP/out" &
	spid=$!
	wait_listen "$port" || return 1
	ip netns exec $A ./psock_copy "$@" < "$TMP/in" 2> "$TMP/log" &&
		wait $spid
}

setup || { echo "psock demo: set-up failed" >&2; exit 1; }
head -c $SIZE /dev/urandom > "$TMP/in"
sum=$((RATE1 + RATE2))
echo "16 MiB over two links of $RATE1 and $RATE2 Mbit/s (sum $sum)"

rc=0
if send 7501 -a 10.74.2.2 -- -n 4 10.74.1.2 7501 &&
   cmp -s "$TMP/in" "$TMP/out"; then
	s=$(sed -n 's/^seconds //p' "$TMP/log")
	echo "PSOCK, 4 subflows: checksum $(sha256sum < "$TMP/out" | cut -c1-16) matches"
	awk -v s="$s" -v b=$SIZE -v l=$sum 'BEGIN {
		m = b * 8 / s / 1e6
		printf "  %.2f s, %.1f Mbit/s = %.0f%% of the link sum\n", s, m, 100 * m / l }'
	sed -n 's/^/  /; /subflows\|  to /p' "$TMP/log"
	psock=$s
else
	echo "PSOCK transfer FAILED"
	cat "$TMP/log"
	rc=1
fi

# The same over plain TCP on the faster link, for comparison.
nc_rc=0
ip netns exec $B nc -l -N 10.74.2.2 7502 > "$TMP/out" &
spid=$!
wait_listen 7502 || nc_rc=1
t0=$(date +%s.%N)
ip netns exec $A nc -N 10.74.2.2 7502 < "$TMP/in" || nc_rc=1
wait $spid || nc_rc=1
t=$(echo "$(date +%s.%N) - $t0" | bc)
if [ $nc_rc = 0 ] && cmp -s "$TMP/in" "$TMP/out"; then
	awk -v s="$t" -v b=$SIZE -v l=$sum -v r=$RATE2 -v p="${psock:-0}" 'BEGIN {
		m = b * 8 / s / 1e6
		printf "TCP on the %d Mbit/s link: %.2f s, %.1f Mbit/s = %.0f%% of the link sum", r, s, m, 100 * m / l
		if (p > 0)
			printf "; PSOCK is %.2fx TCP", s / p
		printf "\n" }'
else
	echo "TCP transfer FAILED"
	rc=1
fi
exit $rc
