#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The psock paper's section 7: one path of 100 Mbit/s and 40 ms RTT, whose
# capacity is C = 100 Mbit/s x 40 ms = 500 kB, with socket buffers of 0.2,
# 0.8, 1.0 and 1.5 C on both ends (the sizes after the kernel doubles what
# SO_SNDBUF / SO_RCVBUF ask).  A single TCP connection cannot fill the path
# when its buffers are below C; PSOCK with n subflows, each with those
# buffers, gets up to n times as far.  16 MiB per run, timed by psock_xfer
# (CLOCK_MONOTONIC); every figure is printed in Mbit/s and as a ratio to
# TCP with the same buffers, in the same VM run.
#
#   pskr-a  veth-a 10.73.1.1 ==== 100 Mbit/s, 20 ms each way ==== 10.73.1.2 veth-b  pskr-b
#
# With BENCH_OUT set, the table also goes to $BENCH_OUT/psock_rtt.dat
# for bench/plot.sh.

cd "$(dirname "$0")" || exit 1
A=pskr-a
B=pskr-b
X=./psock_xfer
SIZE=$((16 << 20))
PORT=7400
C=500000
FACTORS="0.2 0.8 1.0 1.5"
COUNTS="1 2 4 8"

cleanup() {
	ip netns del $A 2>/dev/null
	ip netns del $B 2>/dev/null
}
trap cleanup EXIT

setup() {
	modprobe sch_netem 2>/dev/null
	ip netns add $A && ip netns add $B &&
	ip link add veth-a netns $A type veth peer name veth-b netns $B &&
	ip -n $A addr add 10.73.1.1/24 dev veth-a &&
	ip -n $B addr add 10.73.1.2/24 dev veth-b &&
	ip -n $A link set veth-a up && ip -n $B link set veth-b up &&
	ip -n $A link set lo up && ip -n $B link set lo up &&
	tc -n $A qdisc add dev veth-a root netem delay 20ms rate 100mbit limit 2000 &&
	tc -n $B qdisc add dev veth-b root netem delay 20ms rate 100mbit limit 2000
}

# xfer PROTO BUF [CLIENT_ARGS...]: prints Mbit/s, or fails.
xfer() {
	local proto=$1 buf=$2 spid out i
	shift 2
	PORT=$((PORT + 1))
	ip netns exec $B timeout 300 $X -l $PORT -p "$proto" -b "$buf" 2>/dev/null &
	spid=$!
	for i in $(seq 50); do
		ip netns exec $B ss -Hltn "sport = :$PORT" | grep -q . && break
		sleep 0.1
	done
	out=$(ip netns exec $A timeout 300 $X -p "$proto" -b "$buf" -s $SIZE \
		"$@" 10.73.1.2 $PORT) || { wait $spid; return 1; }
	wait $spid || return 1
	echo "$out" | awk '{ printf "%.1f\n", $2 * 8 / $1 / 1e6 }'
}

setup || { echo "psock_rtt: set-up failed" >&2; exit 1; }

rc=0
dat=/dev/null
[ -n "$BENCH_OUT" ] && dat=$BENCH_OUT/psock_rtt.dat
echo "# buffer/C buffer_bytes tcp_mbit n1 n2 n4 n8" > "$dat"
echo "16 MiB over 100 Mbit/s, 40 ms RTT (C = 500 kB); Mbit/s (ratio to TCP)"
printf '%-9s %-7s %-8s' "buffer/C" buffer TCP
for n in $COUNTS; do printf ' %-15s' "PSOCK n=$n"; done
echo
for f in $FACTORS; do
	bytes=$(awk -v f="$f" -v c=$C 'BEGIN { printf "%d", f * c }')
	# SO_SNDBUF / SO_RCVBUF ask for half: the kernel doubles it.
	ask=$((bytes / 2))
	if ! tcp=$(xfer tcp $ask); then
		echo "psock_rtt: TCP at ${f} C failed" >&2
		rc=1
		continue
	fi
	line="$f $bytes $tcp"
	printf '%-9s %-7s %-8s' "$f" "$((bytes / 1000))k" "$tcp"
	for n in $COUNTS; do
		if ! m=$(xfer psock $ask -n "$n"); then
			printf ' %-15s' FAILED
			line="$line 0"
			rc=1
			continue
		fi
		printf ' %-15s' "$m ($(awk -v a="$m" -v b="$tcp" 'BEGIN { printf "%.2f", a / b }'))"
		line="$line $m"
	done
	echo
	echo "$line" >> "$dat"
done
exit $rc
