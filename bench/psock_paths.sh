#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two paths of 10 and 30 Mbit/s between two network namespaces; 16 MiB
# from psk-a to psk-b with single TCP on each path, PSOCK poll-all, PSOCK
# round-robin (4 subflows, the server announces path 2) and kernel MPTCP
# (the server signals path 2 with "ip mptcp endpoint").  Each is timed by
# psock_xfer (CLOCK_MONOTONIC, connect() to the server's last read) and
# printed as a fraction of the link sum (40 Mbit/s) and of what single
# TCP gets on the two paths together.  Then the delay variant: path 1
# gets 25 ms instead of 5 (each way).
#
#   psk-a  veth-a1 10.72.1.1 ==== path 1: 10 Mbit/s, 5 ms ==== 10.72.1.2 veth-b1  psk-b
#          veth-a2 10.72.2.1 ==== path 2: 30 Mbit/s, 5 ms ==== 10.72.2.2 veth-b2
#
# With BENCH_OUT set, the figures also go to $BENCH_OUT/psock_paths.dat
# for bench/plot.sh.

cd "$(dirname "$0")" || exit 1
A=pskb-a
B=pskb-b
X=./psock_xfer
SIZE=$((16 << 20))
PORT=7300
RATE1=10
RATE2=30

cleanup() {
	ip netns del $A 2>/dev/null
	ip netns del $B 2>/dev/null
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
		ip -n $A addr add 10.72.$p.1/24 dev veth-a$p &&
		ip -n $B addr add 10.72.$p.2/24 dev veth-b$p &&
		ip -n $A link set veth-a$p up && ip -n $B link set veth-b$p up &&
		tc -n $A qdisc add dev veth-a$p root netem delay 5ms rate ${r}mbit limit 1000 &&
		tc -n $B qdisc add dev veth-b$p root netem delay 5ms rate ${r}mbit limit 1000 ||
			return 1
	done
	ip -n $A link set lo up && ip -n $B link set lo up &&
	ip -n $A mptcp limits set subflows 2 add_addr_accepted 2 &&
	ip -n $B mptcp limits set subflows 2 add_addr_accepted 2 &&
	ip -n $B mptcp endpoint add 10.72.2.2 dev veth-b2 signal
}

# run NAME SERVER_ARGS -- CLIENT_ARGS: prints the seconds, or fails.
run() {
	local name=$1 srv=() spid out i
	shift
	while [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	PORT=$((PORT + 1))
	ip netns exec $B timeout 120 $X -l $PORT "${srv[@]}" 2>/dev/null &
	spid=$!
	for i in $(seq 50); do
		ip netns exec $B ss -Hltn "sport = :$PORT" | grep -q . && break
		sleep 0.1
	done
	out=$(ip netns exec $A timeout 120 $X -s $SIZE "$@" $PORT) || {
		echo "$name: transfer failed" >&2
		wait $spid
		return 1
	}
	wait $spid || return 1
	echo "${out%% *}"
}

setup || { echo "psock_paths: set-up failed" >&2; exit 1; }

# Neighbour caches warm before the first timed run, as for the later ones.
warm() {
	local p
	for p in 1 2; do
		ip netns exec $A ping -c 1 -W 2 10.72.$p.2 >/dev/null || return 1
	done
}

sum=$((RATE1 + RATE2))
rc=0
dat=/dev/null
[ -n "$BENCH_OUT" ] && dat=$BENCH_OUT/psock_paths.dat
echo "# variant key fraction_of_link_sum mbit fraction_of_tcp_sum" > "$dat"
# row VARIANT KEY NAME SERVER_ARGS -- CLIENT_ARGS: prints the row; the
# Mbit/s go to $mbit.
row() {
	local v=$1 key=$2 name=$3 t
	shift 3
	mbit=0
	if ! t=$(run "$name" "$@"); then
		printf '%-34s %8s\n' "$name" FAILED
		echo "$v $key 0 0 0" >> "$dat"
		rc=1
		return
	fi
	mbit=$(echo "$t" | awk -v b=$SIZE '{ printf "%.2f", b * 8 / $1 / 1e6 }')
	echo "$t" | awk -v n="$name" -v m=$mbit -v s=$sum -v ts=$tsum '{
		printf "%-34s %8.2f %10.2f %13.0f%%", n, $1, m, 100 * m / s
		if (ts > 0)
			printf " %10.0f%%", 100 * m / ts
		printf "\n" }'
	echo | awk -v v="$v" -v k="$key" -v m=$mbit -v s=$sum -v ts=$tsum '{
		printf "%s %s %.3f %.2f %.3f\n", v, k, m / s, m,
		       (ts > 0 ? m / ts : 0) }' >> "$dat"
}
# The single TCP rows come first: their sum is what TCP reaches on the
# two paths (netem counts whole frames: 1448 bytes of payload in 1514),
# the last column's base.
table() {	# table VARIANT TITLE
	local t30 t10
	tsum=0
	printf '%-34s %8s %10s %14s %11s\n' "$2" seconds Mbit/s \
		"of link sum" "of TCP sum"
	row "$1" tcp "TCP on the 30 Mbit/s path" -p tcp -- -p tcp 10.72.2.2
	t30=$mbit
	row "$1" tcp10 "TCP on the 10 Mbit/s path" -p tcp -- -p tcp 10.72.1.2
	t10=$mbit
	tsum=$(awk -v a="$t30" -v b="$t10" 'BEGIN { print a + b }')
	row "$1" poll-all "PSOCK poll-all, 4 subflows" -p psock -a 10.72.2.2 -- \
		-p psock -n 4 -d 0 10.72.1.2
	# Round-robin only if both ends ask for it.
	row "$1" round-robin "PSOCK round-robin, 4 subflows" -p psock -d 1 \
		-a 10.72.2.2 -- -p psock -n 4 -d 1 10.72.1.2
	row "$1" mptcp "MPTCP, 2 subflows (ip mptcp)" -p mptcp -- \
		-p mptcp 10.72.1.2
	printf '(TCP sum: %s Mbit/s)\n' "$tsum"
}
warm || { echo "psock_paths: a path does not answer" >&2; exit 1; }
table 5/5ms "16 MiB, paths 10 + 30 Mbit/s, 5 ms"
echo
for ns in $A $B; do
	tc -n $ns qdisc change dev veth-${ns#pskb-}1 root netem delay 25ms \
		rate ${RATE1}mbit limit 1000
done
table 25/5ms "same, path 1 (10 Mbit/s) at 25 ms"
exit $rc
