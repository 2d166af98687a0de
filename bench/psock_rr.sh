#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Small messages on one connection: COUNT exchanges of a 1 KiB request and
# a 1 KiB answer (psock_rr), PSOCK with 1, 2 and 4 subflows against TCP,
# on a veth pair without delay (the cost of each transport's own work per
# message, not of a path), with TCP's defaults and with TCP_NODELAY on
# both ends (it reaches every PSOCK subflow).  Exchanges per second,
# median [min-max] of BENCH_REPS interleaved runs (lib.sh), and the ratio
# of the medians to TCP with the same TCP_NODELAY, in the same VM run.
# A third set runs both ends with TCP_NODELAY on one CPU (taskset): no
# wake-up crosses CPUs, so the figure is the CPU time each transport
# spends per message, the least noisy of the three under TCG.
# BENCH_SIZE replaces the number of exchanges per run (default 2000).
# A fourth set is one exchange per connection, with TCP's defaults, the
# request ended by a half-close: connect(), 1000 bytes, shutdown(SHUT_WR),
# the server's 1-byte answer (psock_xfer -s 1000), timed from before
# connect() to the answer, in ms: HC_CONNS connections of each transport
# per run, interleaved, median [min-max] over all of them.  (Until 3
# December a PSOCK receiver acknowledged the end of the stream at once,
# and under Nagle its answer on the same subflow then waited for TCP's
# delayed ACK of that acknowledgment: 48 ms per exchange with one
# subflow.)
#
#   psrr-a  veth-a 10.75.1.1 ======== 10.75.1.2 veth-b  psrr-b
#
# With BENCH_OUT set, the figures also go to $BENCH_OUT/psock_rr.dat.

cd "$(dirname "$0")" || exit 1
. ./lib.sh
A=psrr-a
B=psrr-b
X=./psock_rr
COUNT=${BENCH_SIZE:-2000}
PORT=7600
COUNTS="1 2 4"
HC_CONNS=10

cleanup() {
	ip netns del $A 2>/dev/null
	ip netns del $B 2>/dev/null
	rm -f "$RESULTS"
}
trap cleanup EXIT

setup() {
	ip netns add $A && ip netns add $B &&
	ip link add veth-a netns $A type veth peer name veth-b netns $B &&
	ip -n $A addr add 10.75.1.1/24 dev veth-a &&
	ip -n $B addr add 10.75.1.2/24 dev veth-b &&
	ip -n $A link set veth-a up && ip -n $B link set veth-b up &&
	ip -n $A link set lo up && ip -n $B link set lo up
}

# rr PROTO MODE [CLIENT_ARGS...]: exchanges per second.  MODE: "" (TCP's
# defaults), -D (TCP_NODELAY) or 1cpu (TCP_NODELAY, both ends on CPU 0).
rr() {
	local proto=$1 nd=$2 pin= spid out
	shift 2
	if [ "$nd" = 1cpu ]; then
		nd=-D
		pin="taskset -c 0"
	fi
	PORT=$((PORT + 1))
	ip netns exec $B timeout 300 $pin $X -l $PORT -p "$proto" $nd &
	spid=$!
	listening $B $PORT
	out=$(ip netns exec $A timeout 300 $pin $X -p "$proto" $nd \
		-c "$COUNT" "$@" 10.75.1.2 $PORT) || { wait $spid; return 1; }
	wait $spid || return 1
	echo "$out" | awk '{ printf "%.1f\n", $2 / $1 }'
}

# halfclose PROTO [CLIENT_ARGS...]: the ms of one connection of one
# request, ended by shutdown(), and its answer.
halfclose() {
	local proto=$1 spid out
	shift
	PORT=$((PORT + 1))
	ip netns exec $B timeout 60 ./psock_xfer -l $PORT -p "$proto" > /dev/null &
	spid=$!
	listening $B $PORT
	out=$(ip netns exec $A timeout 60 ./psock_xfer -p "$proto" "$@" \
		-s 1000 10.75.1.2 $PORT) || { wait $spid; return 1; }
	wait $spid || return 1
	echo "$out" | awk '{ printf "%.1f\n", $1 * 1000 }'
}

setup || { echo "psock_rr: set-up failed" >&2; exit 1; }

start=$(date +%s)
for r in $(seq "$REPS"); do
	for nd in "" -D 1cpu; do
		run "tcp$nd" rr tcp "$nd"
		for n in $COUNTS; do
			run "psock$n$nd" rr psock "$nd" -n "$n"
		done
	done
	for i in $(seq $HC_CONNS); do
		run hc-tcp halfclose tcp
		for n in $COUNTS; do
			run "hc-psock$n" halfclose psock -n "$n"
		done
	done
	echo "# run $r of $REPS done after $(($(date +%s) - start)) s"
done

rc=0
grep -q ' FAILED$' "$RESULTS" && rc=1
dat=/dev/null
[ -n "$BENCH_OUT" ] && dat=$BENCH_OUT/psock_rr.dat
ratio() {
	echo "$1 $2" | awk '$1 == "FAILED" || $NF == "FAILED" { print "-"; exit }
		{ printf "%.2f", $1 / $5 }'
}
{
	echo "# runs $REPS"
	echo "# nodelay transport n exchanges_per_s_median min max"
} > "$dat"
echo "$COUNT exchanges of 1 KiB each way on one connection, veth without delay;"
echo "exchanges/s, median [min-max] of $REPS interleaved runs; ratio to TCP with the same option"
printf '%-14s %-10s %-24s %s\n' option transport "exchanges/s" "/ TCP"
for nd in "" -D 1cpu; do
	case $nd in
	"") opt=default ;;
	-D) opt=TCP_NODELAY ;;
	*) opt=NODELAY_1CPU ;;
	esac
	tcp=$(stat "tcp$nd")
	printf '%-14s %-10s %-24s %s\n' $opt TCP "$(spread "$tcp")" 1.00
	echo "$tcp" | awk -v o=$opt '$1 != "FAILED" { print o, "tcp", 1, $1, $2, $3 }' >> "$dat"
	for n in $COUNTS; do
		st=$(stat "psock$n$nd")
		printf '%-14s %-10s %-24s %s\n' "" "PSOCK n=$n" "$(spread "$st")" \
			"$(ratio "$st" "$tcp")"
		echo "$st" | awk -v o=$opt -v n="$n" '$1 != "FAILED" { print o, "psock", n, $1, $2, $3 }' >> "$dat"
	done
done
echo
echo "One exchange per connection, TCP's defaults: connect(), 1000 bytes, shutdown(),"
echo "the 1-byte answer; ms, median [min-max] of $HC_CONNS connections in each of $REPS runs"
printf '%-10s %-24s %s\n' transport "ms" "x TCP's time"
tcp=$(stat hc-tcp)
printf '%-10s %-24s %s\n' TCP "$(spread "$tcp")" 1.00
echo "$tcp" | awk '$1 != "FAILED" { print "halfclose tcp", 1, $1, $2, $3 }' >> "$dat"
for n in $COUNTS; do
	st=$(stat "hc-psock$n")
	printf '%-10s %-24s %s\n' "PSOCK n=$n" "$(spread "$st")" "$(ratio "$st" "$tcp")"
	echo "$st" | awk -v n="$n" '$1 != "FAILED" { print "halfclose psock", n, $1, $2, $3 }' >> "$dat"
done
echo "($(wc -l < "$RESULTS") figures, $REPS runs, in $(($(date +%s) - start)) s)"
exit $rc
