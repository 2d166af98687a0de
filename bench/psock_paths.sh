#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two paths of 10 and 30 Mbit/s between two network namespaces; 16 MiB
# from psk-a to psk-b with single TCP on each path, PSOCK poll-all, PSOCK
# round-robin (4 subflows, the server announces path 2: subflows 0 and 2
# take path 1, 1 and 3 path 2) and kernel MPTCP with as many subflows, two
# on each path (below).  Each is timed by psock_xfer (CLOCK_MONOTONIC,
# connect() to the server's last read) and printed as a fraction of the
# link sum (40 Mbit/s) and of what single TCP gets on the two paths
# together.  Then the delay variant: path 1 gets 25 ms instead of 5 (each
# way).  Every figure is the median of BENCH_REPS runs (default 5; lib.sh),
# with the smallest and the largest: each run measures every transport of
# both variants once, in turn.
#
#   psk-a  veth-a1 10.72.1.1 ==== path 1: 10 Mbit/s, 5 ms ==== 10.72.1.2 veth-b1  psk-b
#                                                              10.72.1.3
#          veth-a2 10.72.2.1 ==== path 2: 30 Mbit/s, 5 ms ==== 10.72.2.2 veth-b2
#                                                              10.72.2.3
#
# MPTCP: the client connects to 10.72.1.2 and the server signals its three
# other addresses with "ip mptcp endpoint ... signal"; the client accepts
# them and opens one subflow to each, from the address routing picks, so
# the paths are those of the addresses as for PSOCK.  (The in-kernel path
# manager opens one subflow per signalled address, hence the second
# address on each server link; a "subflow" endpoint on the client's path 2
# address would connect to 10.72.1.2 only: over path 1, its answers coming
# back over path 2.)  psock_xfer -m 4 fails unless MPTCP_INFO and
# MPTCP_TCPINFO show 4 subflows that each carried data.
#
# Every run counts the bytes the client sent on each link (tx_bytes of
# veth-a1 and veth-a2): the "on path 1" column, and the proof that both
# paths carried data.  A PSOCK or MPTCP run that put less than 5% of its
# bytes on either path fails the benchmark.
#
# With BENCH_OUT set, the figures also go to $BENCH_OUT/psock_paths.dat
# for bench/plot.sh.

cd "$(dirname "$0")" || exit 1
. ./lib.sh
A=pskb-a
B=pskb-b
X=./psock_xfer
SIZE=${BENCH_SIZE:-$((16 << 20))}
PORT=7300
RATE1=10
RATE2=30
SUBFLOWS=4

cleanup() {
	ip netns del $A 2>/dev/null
	ip netns del $B 2>/dev/null
	rm -f "$RESULTS"
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
		ip -n $B addr add 10.72.$p.3/24 dev veth-b$p &&
		ip -n $A link set veth-a$p up && ip -n $B link set veth-b$p up &&
		tc -n $A qdisc add dev veth-a$p root netem delay 5ms rate ${r}mbit limit 1000 &&
		tc -n $B qdisc add dev veth-b$p root netem delay 5ms rate ${r}mbit limit 1000 ||
			return 1
	done
	# MPTCP: 3 subflows besides the first, one per signalled address.
	ip -n $A link set lo up && ip -n $B link set lo up &&
	ip -n $A mptcp limits set subflows 3 add_addr_accepted 3 &&
	ip -n $B mptcp limits set subflows 3 add_addr_accepted 0 &&
	ip -n $B mptcp endpoint add 10.72.2.2 dev veth-b2 signal &&
	ip -n $B mptcp endpoint add 10.72.1.3 dev veth-b1 signal &&
	ip -n $B mptcp endpoint add 10.72.2.3 dev veth-b2 signal
}

# Path 1's delay, each way, on both ends.
delay1() {
	local ns
	for ns in $A $B; do
		tc -n $ns qdisc change dev veth-${ns#pskb-}1 root netem \
			delay "$1" rate ${RATE1}mbit limit 1000 || return 1
	done
}

# Neighbour caches warm before the first timed run, as for the later ones.
warm() {
	local p h
	for p in 1 2; do
		for h in 2 3; do
			ip netns exec $A ping -c 1 -W 2 10.72.$p.$h >/dev/null ||
				return 1
		done
	done
}

# "PATH1 PATH2": the bytes the client has sent on each path so far.
txbytes() {
	ip -n $A -s link show | awk '
		/^[0-9]+: / { dev = $2; sub(/@.*/, "", dev); sub(/:$/, "", dev) }
		tx { b[dev] = $1; tx = 0 }
		/^ *TX: / { tx = 1 }
		END { printf "%.0f %.0f\n", b["veth-a1"], b["veth-a2"] }'
}

# run NAME SERVER_ARGS -- CLIENT_ARGS: prints psock_xfer's "SECONDS BYTES
# SUBFLOWS" and the bytes sent on each path, or fails.
run() {
	local name=$1 srv=() spid out i tx
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
	tx=$(txbytes)
	out=$(ip netns exec $A timeout 120 $X -s $SIZE "$@" $PORT) || {
		echo "psock_paths: $name: transfer failed" >&2
		wait $spid
		return 1
	}
	wait $spid || return 1
	echo "$out $(txbytes) $tx" |
		awk '{ printf "%s %s %s %.0f %.0f\n", $1, $2, $3, $4 - $6, $5 - $7 }'
}

# measure VARIANT KEY NAME MULTIPATH SERVER_ARGS -- CLIENT_ARGS: one run,
# recorded under VARIANT/KEY: Mbit/s, subflows and the share of path 1.
# A multipath run (MULTIPATH = 1) that left a path (nearly) idle fails.
measure() {
	local k=$1/$2 name=$3 mp=$4 out
	shift 4
	if ! out=$(run "$name" "$@"); then
		record "$k" FAILED
		return
	fi
	# shellcheck disable=SC2086
	set -- $out
	if [ "$mp" = 1 ] && { [ $(($4 * 20)) -lt "$SIZE" ] ||
			      [ $(($5 * 20)) -lt "$SIZE" ]; }; then
		echo "psock_paths: $name did not use both paths: $4 bytes sent on path 1, $5 on path 2, of $SIZE" >&2
		record "$k" FAILED
		return
	fi
	record "$k" "$(awk -v s="$1" -v b="$2" 'BEGIN { printf "%.3f", b * 8 / s / 1e6 }')"
	record "$k/subflows" "$3"
	record "$k/path1" "$(awk -v a="$4" -v b="$5" 'BEGIN { printf "%.3f", a / (a + b) }')"
}

# One run of every transport of a variant.  The single TCP rows come
# first: their sum is what TCP reaches on the two paths (netem counts
# whole frames: 1448 bytes of payload in 1514), the last column's base.
transports() {	# transports VARIANT
	measure "$1" tcp "TCP on the 30 Mbit/s path" 0 -p tcp -- \
		-p tcp 10.72.2.2
	measure "$1" tcp10 "TCP on the 10 Mbit/s path" 0 -p tcp -- \
		-p tcp 10.72.1.2
	measure "$1" poll-all "PSOCK poll-all" 1 -p psock -a 10.72.2.2 -- \
		-p psock -n $SUBFLOWS -d 0 10.72.1.2
	# Round-robin only if both ends ask for it.
	measure "$1" round-robin "PSOCK round-robin" 1 -p psock -d 1 \
		-a 10.72.2.2 -- -p psock -n $SUBFLOWS -d 1 10.72.1.2
	measure "$1" mptcp "MPTCP" 1 -p mptcp -- -p mptcp -m $SUBFLOWS 10.72.1.2
}

setup || { echo "psock_paths: set-up failed" >&2; exit 1; }
warm || { echo "psock_paths: a path does not answer" >&2; exit 1; }

start=$(date +%s)
for r in $(seq "$REPS"); do
	delay1 5ms || { echo "psock_paths: netem change failed" >&2; exit 1; }
	transports 5/5ms
	delay1 25ms || { echo "psock_paths: netem change failed" >&2; exit 1; }
	transports 25/5ms
	echo "# run $r of $REPS done after $(($(date +%s) - start)) s"
done

sum=$((RATE1 + RATE2))
rc=0
dat=/dev/null
[ -n "$BENCH_OUT" ] && dat=$BENCH_OUT/psock_paths.dat
{
	echo "# runs $REPS"
	echo "# variant key fraction_of_link_sum(median min max) mbit(median min max) fraction_of_tcp_sum subflows path1_share"
} > "$dat"
# row VARIANT KEY NAME: prints the row from the medians.
row() {
	local k=$1/$2 name=$3 st sf p1
	st=$(stat "$k")
	if [ "$st" = FAILED ]; then
		printf '%-30s %8s\n' "$name" FAILED
		echo "$1 $2 0 0 0 0 0 0 0 0 0" >> "$dat"
		rc=1
		return
	fi
	sf=$(stat "$k/subflows" | awk '{ print $2 }')	# the fewest
	p1=$(stat "$k/path1" | awk '{ print $1 }')
	echo "$st" | awk -v n="$name" -v sp="$(spread "$st")" -v sf="$sf" \
		-v p1="$p1" -v s=$sum -v ts="$tsum" '{
		printf "%-30s %8d  %-17s %11.0f%%", n, sf, sp, 100 * $1 / s
		if (ts > 0)
			printf " %10.0f%%", 100 * $1 / ts
		else
			printf " %11s", ""
		printf " %9.0f%%\n", 100 * p1 }'
	echo "$st" | awk -v v="$1" -v k="$2" -v s=$sum -v ts="$tsum" \
		-v sf="$sf" -v p1="$p1" '{
		printf "%s %s %.3f %.3f %.3f %.2f %.2f %.2f %.3f %d %.3f\n",
		       v, k, $1 / s, $2 / s, $3 / s, $1, $2, $3,
		       (ts > 0 ? $1 / ts : 0), sf, p1 }' >> "$dat"
}
table() {	# table VARIANT TITLE
	local t30 t10
	echo "$2; median [min-max] of $REPS interleaved runs"
	printf '%-30s %8s  %-17s %12s %11s %10s\n' transport subflows \
		Mbit/s "of link sum" "of TCP sum" "on path 1"
	t30=$(stat "$1/tcp" | awk '$1 != "FAILED" { print $1 }')
	t10=$(stat "$1/tcp10" | awk '$1 != "FAILED" { print $1 }')
	tsum=0
	[ -n "$t30" ] && [ -n "$t10" ] &&
		tsum=$(awk -v a="$t30" -v b="$t10" 'BEGIN { print a + b }')
	row "$1" tcp "TCP on the 30 Mbit/s path"
	row "$1" tcp10 "TCP on the 10 Mbit/s path"
	row "$1" poll-all "PSOCK poll-all"
	row "$1" round-robin "PSOCK round-robin"
	row "$1" mptcp "MPTCP (ip mptcp)"
	printf '(TCP sum: %.1f Mbit/s, of the medians)\n' "$tsum"
}
mib=$(awk -v s="$SIZE" 'BEGIN { printf "%g", s / 1048576 }')
table 5/5ms "$mib MiB, paths 10 + 30 Mbit/s, 5 ms"
echo
table 25/5ms "same, path 1 (10 Mbit/s) at 25 ms"
echo "($REPS runs of 10 transfers in $(($(date +%s) - start)) s)"
exit $rc
