#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The negotiated window (Documentation/psock.rst, "Window"): one path of
# 60 Mbit/s and 1 s RTT, whose bandwidth-delay product (7.5 MB) is well
# above the 4 MiB that PSOCK's window was fixed at.  TCP with buffers
# raised to 32 MiB (tcp_rmem[2], tcp_wmem[2] on both ends) against PSOCK
# with 4 subflows on the same sysctls, whose receiver then offers its
# largest window (255 x 64 KiB, about 16 MiB), and against PSOCK whose
# receiver offers 4 MiB (its tcp_rmem[2] lowered to 4 MiB for that run:
# what the fixed window allowed, about 33 Mbit/s at this RTT).  The
# hello timeout is raised to 5 s at both ends: the default 1 s is the
# round trip here, and a hello later than that makes PSOCK fall back.
# BENCH_SIZE bytes per transfer (default 48 MiB), timed by psock_xfer
# from before connect() to the server's last read; every figure is the
# median of BENCH_REPS interleaved runs (lib.sh), in Mbit/s, and the ratios
# are between medians of the same VM run.
#
#   pskw-a  veth-a 10.74.1.1 ==== 60 Mbit/s, 500 ms each way ==== 10.74.1.2 veth-b  pskw-b
#
# With BENCH_OUT set, the figures also go to $BENCH_OUT/psock_window.dat
# for bench/plot.sh.

cd "$(dirname "$0")" || exit 1
. ./lib.sh
A=pskw-a
B=pskw-b
X=./psock_xfer
SIZE=${BENCH_SIZE:-$((48 << 20))}
PORT=7500
BIG="4096 131072 33554432"
SMALL="4096 131072 4194304"

cleanup() {
	ip netns del $A 2>/dev/null
	ip netns del $B 2>/dev/null
	rm -f "$RESULTS"
}
trap cleanup EXIT

rmem() {	# rmem NETNS "MIN DEFAULT MAX"
	ip netns exec "$1" sysctl -qw net.ipv4.tcp_rmem="$2"
}

setup() {
	local ns
	modprobe sch_netem 2>/dev/null
	ip netns add $A && ip netns add $B &&
	ip link add veth-a netns $A type veth peer name veth-b netns $B &&
	ip -n $A addr add 10.74.1.1/24 dev veth-a &&
	ip -n $B addr add 10.74.1.2/24 dev veth-b &&
	ip -n $A link set veth-a up && ip -n $B link set veth-b up &&
	ip -n $A link set lo up && ip -n $B link set lo up || return 1
	# The delay line holds a whole window: 60 Mbit/s x 0.5 s is 2,500
	# full segments each way.
	for ns in $A $B; do
		tc -n $ns qdisc add dev veth-${ns#pskw-} root netem delay 500ms \
			rate 60mbit limit 20000 &&
		rmem $ns "$BIG" &&
		ip netns exec $ns sysctl -qw net.ipv4.tcp_wmem="$BIG" &&
		ip netns exec $ns sysctl -qw net.psock.hello_timeout_ms=5000 ||
			return 1
	done
}

# xfer PROTO [CLIENT_ARGS...]: prints Mbit/s, or fails.
xfer() {
	local proto=$1 spid out
	shift
	PORT=$((PORT + 1))
	ip netns exec $B timeout 600 $X -l $PORT -p "$proto" 2>/dev/null &
	spid=$!
	listening $B $PORT
	out=$(ip netns exec $A timeout 600 $X -p "$proto" -s $SIZE "$@" \
		10.74.1.2 $PORT) || { wait $spid; return 1; }
	wait $spid || return 1
	echo "$out" | awk '{ printf "%.2f\n", $2 * 8 / $1 / 1e6 }'
}


setup || { echo "psock_window: set-up failed" >&2; exit 1; }

start=$(date +%s)
for r in $(seq "$REPS"); do
	run tcp xfer tcp
	run psock16 xfer psock -n 4
	rmem $B "$SMALL"
	run psock4 xfer psock -n 4
	rmem $B "$BIG"
	echo "# run $r of $REPS done after $(($(date +%s) - start)) s"
done

rc=0
grep -q ' FAILED$' "$RESULTS" && rc=1
dat=/dev/null
[ -n "$BENCH_OUT" ] && dat=$BENCH_OUT/psock_window.dat
tcp=$(stat tcp)
{
	echo "# runs $REPS"
	echo "# label mbit_median mbit_min mbit_max"
	for k in tcp psock16 psock4; do
		stat $k | awk -v k=$k '$1 != "FAILED" { print k, $1, $2, $3 }'
	done
} > "$dat"
# ratio STAT STAT: the first median over the second.
ratio() {
	echo "$1 $2" | awk '$1 == "FAILED" || $NF == "FAILED" { print "-"; exit }
		{ printf "%.2f", $1 / $5 }'
}
echo "$(awk -v s="$SIZE" 'BEGIN { printf "%g", s / 1048576 }') MiB over 60 Mbit/s, 1 s RTT (BDP 7.5 MB); Mbit/s, median [min-max] of $REPS interleaved runs"
printf '%-40s %-22s %s\n' transport Mbit/s "/ TCP"
printf '%-40s %-22s %s\n' "TCP, buffers to 32 MiB" "$(spread "$tcp")" 1.00
printf '%-40s %-22s %s\n' "PSOCK n=4, window offered 16 MiB" \
	"$(spread "$(stat psock16)")" "$(ratio "$(stat psock16)" "$tcp")"
printf '%-40s %-22s %s\n' "PSOCK n=4, window offered 4 MiB (old)" \
	"$(spread "$(stat psock4)")" "$(ratio "$(stat psock4)" "$tcp")"
echo "($(wc -l < "$RESULTS") transfers, $REPS runs, in $(($(date +%s) - start)) s)"
exit $rc
