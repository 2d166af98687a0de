#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The psock paper's section 7: one path of 100 Mbit/s and 40 ms RTT, whose
# capacity is C = 100 Mbit/s x 40 ms = 500 kB, with socket buffers of 0.2,
# 0.8, 1.0 and 1.5 C on both ends (the sizes after the kernel doubles what
# SO_SNDBUF / SO_RCVBUF ask).  A single TCP connection cannot fill the path
# when its buffers are below C; PSOCK with n subflows, each with those
# buffers, gets up to n times as far.  The obvious alternative, n TCP
# connections with those buffers, runs beside it: psock_xfer -P n opens
# them at once in one thread (poll()), as PSOCK's one socket, and splits
# the bytes evenly among them.
# 16 MiB per transfer (all n connections together), timed by psock_xfer
# (CLOCK_MONOTONIC); every figure is the median of BENCH_REPS runs (default
# 5; lib.sh), with the smallest and the largest, in Mbit/s, and the medians
# give the ratios to one TCP connection with the same buffers and to n TCP
# connections, in the same VM run.  Each run measures every configuration
# once, in turn.
#
#   pskr-a  veth-a 10.73.1.1 ==== 100 Mbit/s, 20 ms each way ==== 10.73.1.2 veth-b  pskr-b
#
# With BENCH_OUT set, the figures also go to $BENCH_OUT/psock_rtt.dat
# for bench/plot.sh.

cd "$(dirname "$0")" || exit 1
. ./lib.sh
A=pskr-a
B=pskr-b
X=./psock_xfer
SIZE=${BENCH_SIZE:-$((16 << 20))}
PORT=7400
C=500000
FACTORS="0.2 0.8 1.0 1.5"
COUNTS="1 2 4 8"

cleanup() {
	ip netns del $A 2>/dev/null
	ip netns del $B 2>/dev/null
	rm -f "$RESULTS"
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

# xfer PROTO BUF CONNS [CLIENT_ARGS...]: prints Mbit/s, or fails.  CONNS
# connections (psock_xfer -P) when above 1.
xfer() {
	local proto=$1 buf=$2 par=() spid out i
	[ "$3" -gt 1 ] && par=(-P "$3")
	shift 3
	PORT=$((PORT + 1))
	ip netns exec $B timeout 300 $X -l $PORT -p "$proto" -b "$buf" \
		"${par[@]}" 2>/dev/null &
	spid=$!
	for i in $(seq 50); do
		ip netns exec $B ss -Hltn "sport = :$PORT" | grep -q . && break
		sleep 0.1
	done
	out=$(ip netns exec $A timeout 300 $X -p "$proto" -b "$buf" -s $SIZE \
		"${par[@]}" "$@" 10.73.1.2 $PORT) || { wait $spid; return 1; }
	wait $spid || return 1
	echo "$out" | awk '{ printf "%.2f\n", $2 * 8 / $1 / 1e6 }'
}

# measure KEY PROTO BUF CONNS [CLIENT_ARGS...]: one run, recorded.
measure() {
	local k=$1 m
	shift
	if m=$(xfer "$@"); then
		record "$k" "$m"
	else
		echo "psock_rtt: $k failed" >&2
		record "$k" FAILED
	fi
}

setup || { echo "psock_rtt: set-up failed" >&2; exit 1; }

# The runs: n subflows and n connections side by side; key f/psock/n and
# f/tcp/n (one TCP connection is f/tcp/1).
start=$(date +%s)
for r in $(seq "$REPS"); do
	for f in $FACTORS; do
		bytes=$(awk -v f="$f" -v c=$C 'BEGIN { printf "%d", f * c }')
		# SO_SNDBUF / SO_RCVBUF ask for half: the kernel doubles it.
		ask=$((bytes / 2))
		for n in $COUNTS; do
			[ "$n" = 1 ] && measure "$f/tcp/1" tcp $ask 1
			measure "$f/psock/$n" psock $ask 1 -n "$n"
			[ "$n" = 1 ] || measure "$f/tcp/$n" tcp $ask "$n"
		done
	done
	echo "# run $r of $REPS done after $(($(date +%s) - start)) s"
done

rc=0
grep -q ' FAILED$' "$RESULTS" && rc=1
dat=/dev/null
[ -n "$BENCH_OUT" ] && dat=$BENCH_OUT/psock_rtt.dat
{
	echo "# runs $REPS"
	echo "# buffer/C buffer_bytes transport n mbit_median mbit_min mbit_max"
} > "$dat"
# cell STAT: the median [min-max], or FAILED.
cell() {
	printf ' %-18s' "$(spread "$1")"
}
# ratio STAT STAT: the first median over the second.
ratio() {
	printf ' %-18s' "$(echo "$1 $2" | awk '
		$1 == "FAILED" || $NF == "FAILED" { print "-"; exit }
		{ printf "%.2f", $1 / $5 }')"
}
# The table: per buffer size, PSOCK and n TCP connections, then PSOCK's
# ratios (trailing blanks cut).
table() {
	local f bytes tcp1 n t st ps=() tn=()
	echo "$(awk -v s="$SIZE" 'BEGIN { printf "%g", s / 1048576 }') MiB over 100 Mbit/s, 40 ms RTT (C = 500 kB); Mbit/s, median [min-max] of $REPS interleaved runs;"
	echo "ratios of the medians to one TCP connection and to n TCP connections, each with the buffers"
	printf '%-8s %-7s %-14s' "buffer/C" buffer "n ="
	for n in $COUNTS; do printf ' %-18s' "$n"; done
	echo
	for f in $FACTORS; do
		bytes=$(awk -v f="$f" -v c=$C 'BEGIN { printf "%d", f * c }')
		tcp1=$(stat "$f/tcp/1")
		for n in $COUNTS; do
			ps[n]=$(stat "$f/psock/$n")
			tn[n]=$(stat "$f/tcp/$n")
			for t in psock tcp; do
				st=${ps[n]}
				[ $t = tcp ] && st=${tn[n]}
				echo "$st" | awk -v f="$f" -v b="$bytes" -v t=$t -v n="$n" '
					$1 != "FAILED" {
					printf "%s %d %s %d %s %s %s\n", f, b, t, n, $1, $2, $3 }' >> "$dat"
			done
		done
		printf '%-8s %-7s %-14s' "$f" "$((bytes / 1000))k" PSOCK
		for n in $COUNTS; do cell "${ps[n]}"; done
		printf '\n%-16s %-14s' "" "n x TCP"
		for n in $COUNTS; do cell "${tn[n]}"; done
		printf '\n%-16s %-14s' "" "PSOCK / TCP"
		for n in $COUNTS; do ratio "${ps[n]}" "$tcp1"; done
		printf '\n%-16s %-14s' "" "PSOCK / n TCP"
		for n in $COUNTS; do ratio "${ps[n]}" "${tn[n]}"; done
		echo
	done
}
table | sed 's/ *$//'
echo "($(wc -l < "$RESULTS") transfers, $REPS runs, in $(($(date +%s) - start)) s)"
exit $rc
