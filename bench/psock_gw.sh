#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# psock-gw(8) against kernel TCP end to end: the seed paper's TCPSpeaker
# benchmarks (throughput under loss and reordering, normalised to the
# lossless figure; fairness) and the cost of the translators.  An
# unmodified TCP client sends to a TCP server, either through the
# translator pair (ingress and egress, one PSOCK connection of 4 streams
# per flow, BENCH_STREAMS: psock-gw -n) or routed directly (ip_forward, plain TCP over path 1):
#
#  pgwb-c 10.73.0.1 -- 10.73.0.2 pgwb-i 10.73.1.1 -- r1 pgwb-r p1 == 10.73.11.2 pgwb-o
#                                       10.73.2.1 -- r2        p2 == 10.73.12.2
#                                                     10.73.3.1 -- 10.73.3.2 pgwb-s
#
# Path N goes through the router pgwb-r (10.73.N.2 on rN towards pgwb-i,
# 10.73.1N.1 on pN towards pgwb-o), and is shaped there, both ways, by
# netem on rN and pN: 2 ms each way, and the variant below.  The
# bottleneck is in the network, as between two real edges: a packet that
# finds the router's queue full is lost on the wire, whoever sent it (a
# queue on the sender's own link would refuse it to the sending socket
# instead, which backs off without a loss: see "local" below).  But for
# the variant without a rate limit, GSO packets are of one segment on the
# client's link and on the paths
# (gso_max_segs 1), so that netem drops and reorders single packets, not
# GSO packets of several segments together (its counters then say what it
# did: the script prints the share of the packets it dropped and sent
# early).  Three set-ups are measured in each:
#   direct  TCP routed over path 1
#   gw1     the pair with no PSOCK endpoints: its 4 streams all on path 1
#   gw2     the pair with path 2 (the egress signals 10.73.12.2, the
#           ingress has a subflow endpoint on 10.73.2.1): both paths
# and, in order and under reordering only, a fourth:
#   tcp4    4 (BENCH_STREAMS) kernel TCP connections at once routed over path 1 (the
#           size split among them): as many as gw1 has subflows there
# Every transfer counts the bytes pgwb-i sent on each path: direct and
# gw1 fail if path 2 carried 5% of them or more, gw2 fails unless each
# path carried 5% at least.
#
# Transfers: SIZE bytes (BENCH_SIZE, default 20 MiB as in the seed),
# timed by psock_xfer -p tcp from connect() to the server's last read,
# MB/s; a transfer that does not end within TMO seconds fails.
#   20mbit     both paths 20 Mbit/s (netem rate).  gw1 / direct on the
#              same path: goal >= 0.9; gw2 / direct: goal >= 1.5
#   none       no rate limit: what the translators cost where the CPU is
#              the limit (the ratios are reported, no goal)
#   loss0.1, loss1, loss5
#              20mbit plus netem loss 0.1, 1 and 5% (random, each way of
#              each path: data and acknowledgements alike, as a shaper in
#              the path would), each set-up's figure over its own 20mbit
#              median, beside the seed's table 1 (TCPSpeaker side A and
#              kernel TCP)
#   inorder, reorder10
#              a tbf of 20 Mbit/s over netem delay 2 ms (and "reorder
#              10%": one packet in ten, at random, is sent at once, ahead
#              of netem's whole queue); the reordering figure over the
#              in-order one of the same tree.  (A reordered packet skips
#              netem's own rate, or a qdisc under netem, with the queue:
#              up to 11% more capacity than in order; the tbf above
#              meters every packet.  No correlation: netem's correlated
#              random numbers keep the mean, not the distribution, and
#              "reorder 10% 50%" reorders far fewer than 10%.)  Seed:
#              side A kept 92.5%, kernel TCP about 24%; goal >= 0.9 for
#              the pair
# Fairness (20mbit): N = 1, 2, 4, 8, 16 client connections at once (one
# psock_xfer -P N -t FAIR_T), through the pair on both paths and routed
# directly; the server counts each connection's bytes over the same
# window (FAIR_LEN s, from FAIR_SKIP s after its last accept(), psock_xfer
# -w) and Jain's index J = (sum x)^2 / (N sum x^2) is taken over the flows'
# throughputs x; goal >= 0.95.  A third set-up is the pair's peer here:
#   local   kernel TCP sent from pgwb-i itself over path 1, as the
#           ingress translator sends.  (With the shaping on pgwb-i's own
#           link, as this benchmark had it before the router, these
#           flows met the full netem queue of their own host: a packet
#           that found no room was refused to the sender, which backed
#           off without a retransmission while the others went on, and
#           their Jain index fell to about 0.95 at 16 flows, the pair's
#           with it, where routed flows got 0.999.)
#
# Every figure is the median of BENCH_REPS runs (default 3 here: 1427 s
# under TCG, 2 cores, within run.sh's bench VM_TIMEOUT of 4800 s; lib.sh),
# with the smallest and the largest; each run measures every variant,
# set-up and flow count once, in turn.  A figure under its goal is a result; only a failed
# transfer fails the script.
# BENCH_STREAMS (default 4) is the pair's stream count (psock-gw -n on
# both translators) and tcp4's number of connections; the control subflow
# is one of them and data subflow i goes to the i-th address modulo the
# egress's (pm.c), so 2 puts one subflow on each path of gw2 and 1 leaves
# gw2 on path 1 alone (its path check then fails it).
# BENCH_VARIANTS (a comma-separated list of the variants above) and
# BENCH_FLOWS (of flow counts; empty: no fairness run) measure a part;
# the report then leaves out what was not measured.
# With BENCH_OUT set, the figures also go to $BENCH_OUT/psock_gw.dat for
# bench/plot.sh.

cd "$(dirname "$0")" || exit 1
BENCH_REPS=${BENCH_REPS:-3}
. ./lib.sh
TOP=$(cd .. && pwd)
GW=$TOP/userspace/psock-gw/psock-gw
HICNCTL=$TOP/userspace/hicnctl/hicnctl
X=./psock_xfer
C=pgwb-c I=pgwb-i R=pgwb-r O=pgwb-o S=pgwb-s
SIZE=${BENCH_SIZE:-$((20 << 20))}
TMO=120
STREAMS=${BENCH_STREAMS:-4}
FAIR_T=14 FAIR_SKIP=4 FAIR_LEN=8
FLOWS=${BENCH_FLOWS-1,2,4,8,16}
FLOWS=${FLOWS//,/ }
VARIANTS=${BENCH_VARIANTS:-20mbit,none,loss0.1,loss1,loss5,inorder,reorder10}
VARIANTS=${VARIANTS//,/ }
KINDS="direct gw1 gw2"
PORT=7400
EPS=	# the endpoints set: 1 (none) or 2

cleanup() {
	local ns
	for ns in $C $I $R $O $S; do ip netns del $ns 2>/dev/null; done
	rm -f "$RESULTS"
}
trap cleanup EXIT

veth() {	# veth NS1 DEV1 ADDR1 NS2 DEV2 ADDR2
	ip link add "$2" netns "$1" type veth peer name "$5" netns "$4" &&
	ip -n "$1" addr add "$3"/24 dev "$2" && ip -n "$4" addr add "$6"/24 dev "$5" &&
	ip -n "$1" link set "$2" up && ip -n "$4" link set "$5" up
}

setup() {
	local ns
	modprobe sch_netem 2>/dev/null
	modprobe sch_tbf 2>/dev/null
	for ns in $C $I $R $O $S; do
		ip netns add $ns && ip -n $ns link set lo up || return 1
	done
	veth $C c0 10.73.0.1 $I i0 10.73.0.2 &&
	veth $I i1 10.73.1.1 $R r1 10.73.1.2 &&
	veth $I i2 10.73.2.1 $R r2 10.73.2.2 &&
	veth $R p1 10.73.11.1 $O o1 10.73.11.2 &&
	veth $R p2 10.73.12.1 $O o2 10.73.12.2 &&
	veth $O o3 10.73.3.1 $S s3 10.73.3.2 &&
	ip -n $C route add default via 10.73.0.2 &&
	ip -n $S route add default via 10.73.3.1 &&
	ip -n $I route add 10.73.3.0/24 via 10.73.1.2 &&
	ip -n $I route add 10.73.11.0/24 via 10.73.1.2 &&
	ip -n $I route add 10.73.12.0/24 via 10.73.2.2 &&
	ip -n $R route add 10.73.0.0/24 via 10.73.1.1 &&
	ip -n $R route add 10.73.3.0/24 via 10.73.11.2 &&
	ip -n $O route add 10.73.0.0/24 via 10.73.11.1 &&
	ip -n $O route add 10.73.1.0/24 via 10.73.11.1 &&
	ip -n $O route add 10.73.2.0/24 via 10.73.12.1 &&
	ip netns exec $I sysctl -qw net.ipv4.ip_forward=1 &&
	ip netns exec $R sysctl -qw net.ipv4.ip_forward=1 &&
	ip netns exec $O sysctl -qw net.ipv4.ip_forward=1
}

# endpoints KIND: the PSOCK endpoints gw1 (none: path 1 only) or gw2
# (path 2 too) needs; direct and local leave them as they are.
endpoints() {
	local want=${1#gw}
	case $1 in direct | tcp4 | local) return 0 ;; esac
	[ "$want" = "$EPS" ] && return 0
	"$HICNCTL" -n $O psock endpoint flush &&
	"$HICNCTL" -n $I psock endpoint flush || return 1
	if [ "$want" = 2 ]; then
		"$HICNCTL" -n $O psock endpoint add 10.73.12.2 signal &&
		"$HICNCTL" -n $I psock endpoint add 10.73.2.1 subflow || return 1
	fi
	EPS=$want
}

# shape NETEM [TBF]: the qdisc of both paths, both ways, at the router:
# netem "delay 2ms NETEM" at the root, or with TBF under a tbf of those
# parameters.
shape() {
	local d p
	for p in 1 2; do
		for d in "$R r$p" "$R p$p"; do
			# (replace would keep a rate set before)
			tc -n ${d% *} qdisc del dev ${d#* } root 2>/dev/null
			if [ -z "$2" ]; then
				# shellcheck disable=SC2086
				tc -n ${d% *} qdisc add dev ${d#* } root handle 1: netem delay 2ms $1 || return 1
				continue
			fi
			# shellcheck disable=SC2086
			{ tc -n ${d% *} qdisc add dev ${d#* } root handle 1: tbf $2 &&
			  tc -n ${d% *} qdisc add dev ${d#* } parent 1:1 handle 10: netem delay 2ms $1; } ||
				return 1
		done
	done
}

SEGS=
# segs N: the most segments a GSO packet may hold on the client's link and
# at both ends of the paths (65535: the default).  The kernel's TCP always
# builds GSO packets, which netem would drop or reorder whole, several
# segments together; with 1 it drops and reorders single packets.  Set
# before the connections are (sk_setup_caps()).
segs() {
	local d
	[ "$1" = "$SEGS" ] && return 0
	for d in "$C c0" "$I i1" "$I i2" "$R r1" "$R r2" "$R p1" "$R p2" "$O o1" "$O o2"; do
		ip -n ${d% *} link set dev ${d#* } gso_max_segs "$1" || return 1
	done
	SEGS=$1
}

variant() {	# variant NAME: shape the paths for it
	case $1 in
	none) segs 65535 && shape "" ;;
	20mbit) segs 1 && shape "rate 20mbit" ;;
	loss*) segs 1 && shape "rate 20mbit loss ${1#loss}%" ;;
	# A reordered packet skips netem's queue, and its rate (or that of
	# a qdisc under netem) with it; a tbf above it meters all alike.
	# The netem queue is its default, 1000 packets, as for 20mbit.
	inorder) segs 1 && shape "" "rate 20mbit burst 32kb limit 1514000" ;;
	reorder10) segs 1 && shape "reorder 10%" "rate 20mbit burst 32kb limit 1514000" ;;
	esac
}

# netem NAME: after a variant's transfers, record what netem did on the
# data's way (pgwb-r's p1 and p2) under NAME/lost and NAME/early: the
# packets it dropped, in % of those offered, and those it sent ahead of
# their delay (reordered, its requeues), in % of those sent.
netem() {
	local out
	out=$(for d in p1 p2; do tc -s -n $R qdisc show dev $d; done | awk '
		/^qdisc netem/ { n = 1; next }
		n && /Sent/ {
			p += $4; d += $7 + 0; r += $11 + 0; n = 0 }
		END {
			if (p > 0)
				printf "%.3f %.3f\n", 100 * d / (p + d), 100 * r / p }')
	[ -n "$out" ] || return
	record "$1/lost" "${out% *}"
	record "$1/early" "${out#* }"
}

# TCP segments netns $1 has retransmitted so far.
retrans() {
	ip netns exec "$1" awk '$1 == "Tcp:" && !n { for (i = 2; i <= NF; i++) if ($i == "RetransSegs") c = i; n = 1; next }
		$1 == "Tcp:" && n { print $c }' /proc/net/snmp
}

# "PATH1 PATH2": the bytes pgwb-i has sent on each path so far.
txbytes() {
	ip netns exec $I cat /sys/class/net/i1/statistics/tx_bytes \
		/sys/class/net/i2/statistics/tx_bytes | paste -sd ' '
}

# paths KIND BEFORE: fails (and says so) when the bytes sent on the paths
# since BEFORE (txbytes) do not fit KIND.
paths() {
	local kind=$1 now
	now=$(txbytes)
	# shellcheck disable=SC2086
	awk -v k="$kind" -v b="$2" -v a="$now" 'BEGIN {
		split(b, x); split(a, y)
		p1 = y[1] - x[1]; p2 = y[2] - x[2]
		s = p2 / (p1 + p2 + 1)
		if (k == "gw2" ? s >= 0.05 && s <= 0.95 : s < 0.05)
			exit 0
		printf "psock_gw.sh: %s: %.0f bytes on path 1, %.0f on path 2\n",
		       k, p1, p2 > "/dev/stderr"
		exit 1 }'
}

GWPIDS=
# gw_start PORT: the pair, the egress relaying to the server's PORT.
gw_start() {
	ip netns exec $O "$GW" egress -l 0.0.0.0:9000 -r 10.73.3.2:"$1" -n $STREAMS 2>/dev/null &
	GWPIDS=$!
	ip netns exec $I "$GW" ingress -l 10.73.0.2:8080 -r 10.73.11.2:9000 -n $STREAMS 2>/dev/null &
	GWPIDS="$GWPIDS $!"
	listening $O 9000 && listening $I 8080
}

gw_stop() {
	[ -n "$GWPIDS" ] || return 0
	# shellcheck disable=SC2086
	kill $GWPIDS 2>/dev/null
	# shellcheck disable=SC2086
	wait $GWPIDS 2>/dev/null
	GWPIDS=
}

# target KIND: "ADDRESS PORT" the client connects to.
target() {
	if [ "$1" != gw1 ] && [ "$1" != gw2 ]; then
		echo "10.73.3.2 $PORT"
	else
		echo "10.73.0.2 8080"
	fi
}

# up KIND PID: the server PID listens on PORT and, but for kernel TCP, the
# gateways run; or else both are stopped.
up() {
	listening $S $PORT && { [ "$1" != gw1 ] && [ "$1" != gw2 ] || gw_start $PORT; } && return 0
	gw_stop
	kill "$2"
	wait "$2"
	return 1
}

# xfer KIND: one transfer of SIZE bytes, prints MB/s.
xfer() {
	local kind=$1 out rc s tx sender rtx par=
	endpoints "$kind" || return 1
	PORT=$((PORT + 1))
	[ "$kind" = tcp4 ] && par="-P $STREAMS"
	# shellcheck disable=SC2086
	ip netns exec $S timeout $((TMO + 10)) $X -l $PORT -p tcp $par > /dev/null 2>&1 &
	s=$!
	up "$kind" $s || return 1
	tx=$(txbytes)
	# The TCP that crosses the paths: the client's, or the subflows'.
	sender=$I
	[ "$kind" = direct ] || [ "$kind" = tcp4 ] && sender=$C
	rtx=$(retrans $sender)
	# shellcheck disable=SC2046
	out=$(ip netns exec $C timeout $TMO $X -p tcp $par -s "$SIZE" $(target "$kind"))
	rc=$?
	[ $rc -eq 0 ] || kill $s 2>/dev/null
	wait $s || rc=1
	[ $rc -eq 0 ] && [ -n "$RTX_KEY" ] &&
		record "$RTX_KEY" "$(awk -v a="$rtx" -v b="$(retrans $sender)" \
			-v s="$SIZE" 'BEGIN { printf "%.1f", (b - a) * 1048576 / s }')"
	gw_stop
	if [ $rc -ne 0 ]; then
		echo "psock_gw.sh: $kind: transfer failed or took more than $TMO s" >&2
		return 1
	fi
	paths "$kind" "$tx" || return 1
	# shellcheck disable=SC2086
	set -- $out
	awk -v s="$1" -v b="$2" 'BEGIN { printf "%.3f\n", b / s / 1e6 }'
}

# fair KIND N: N flows at once for FAIR_T s; prints "JAIN SUM X1 .. XN",
# the flows' Mbit/s over the server's window and their sum.
fair() {
	local kind=$1 n=$2 rc s tx srv cns=$C
	endpoints "$kind" || return 1
	PORT=$((PORT + 1))
	srv=$(mktemp)
	ip netns exec $S timeout $((FAIR_T + 30)) $X -l $PORT -p tcp -P "$n" \
		-w $FAIR_SKIP,$FAIR_LEN > "$srv" 2>/dev/null &
	s=$!
	up "$kind" $s || { rm -f "$srv"; return 1; }
	tx=$(txbytes)
	[ "$kind" = local ] && cns=$I
	# shellcheck disable=SC2046
	ip netns exec $cns timeout $((FAIR_T + 30)) $X -p tcp -P "$n" -t $FAIR_T \
		$(target "$kind") > /dev/null
	rc=$?
	[ $rc -eq 0 ] || kill $s 2>/dev/null
	wait $s || rc=1
	gw_stop
	if [ $rc -ne 0 ] || ! paths "$kind" "$tx"; then
		echo "psock_gw.sh: $kind, $n flows: failed" >&2
		rm -f "$srv"
		return 1
	fi
	awk -v n="$n" '{
		x[NR] = $2 * 8 / $1 / 1e6; s += x[NR]; q += x[NR] * x[NR] }
	END {
		if (NR != n || q <= 0)
			exit 1
		printf "%.4f %.3f", s * s / (n * q), s
		for (i = 1; i <= n; i++)
			printf " %.3f", x[i]
		printf "\n" }' "$srv"
	rc=$?
	rm -f "$srv"
	return $rc
}

# measure_fair KIND N RUN: one fairness run, recorded under fair/N/KIND
# (Jain), .../sum and .../flow (every flow); a line of progress with
# every flow's Mbit/s.
measure_fair() {
	local k=fair/$2/$1 name="direct TCP" out f
	[ "$1" = gw2 ] && name="psock-gw pair"
	[ "$1" = local ] && name="TCP from pgwb-i"
	if ! out=$(fair "$1" "$2"); then
		record "$k" FAILED
		return
	fi
	echo "# run $3, $2 flows, $name: J $(echo "$out" | cut -d' ' -f1), Mbit/s $(echo "$out" | cut -d' ' -f3-)"
	# shellcheck disable=SC2086
	set -- $out
	record "$k" "$1"
	record "$k/sum" "$2"
	shift 2
	for f in "$@"; do
		record "$k/flow" "$f"
	done
}

for p in "$GW" "$HICNCTL" "$X"; do
	[ -x "$p" ] || { echo "$p missing: run make" >&2; exit 1; }
done
setup || { echo "psock_gw.sh: set-up failed" >&2; exit 1; }

start=$(date +%s)
for r in $(seq "$REPS"); do
	for v in $VARIANTS; do
		variant $v || { echo "psock_gw.sh: tc failed ($v)" >&2; exit 1; }
		extra=
		case $v in inorder | reorder10) extra=tcp4 ;; esac
		for k in $KINDS $extra; do
			RTX_KEY=$v/$k/rtx
			run "$v/$k" xfer $k
		done
		RTX_KEY=
		netem $v
	done
	variant 20mbit
	for n in $FLOWS; do
		for k in direct local gw2; do
			measure_fair $k "$n" "$r"
		done
	done
	echo "# run $r of $REPS done after $(($(date +%s) - start)) s"
done

rc=0
dat=/dev/null
[ -n "$BENCH_OUT" ] && dat=$BENCH_OUT/psock_gw.dat
cat > "$dat" <<DAT
# runs $REPS
# tput VARIANT KIND MB/s (median min max)
# ratio SETUP pair/direct (median: of the medians; min max: the pair's runs over direct's median) goal
# norm CONDITION KIND fraction of the set-up's lossless (in-order) median (median min max); seedA, seedK: the seed's
# jain N KIND J (median min max) sum_mbit (median) flow_mbit (min max, all runs)
# NaN: a run of the figure failed
DAT

# measured VARIANT: is VARIANT among those this run measures
# (BENCH_VARIANTS)?  The report leaves out the rest.
measured() {
	case " $VARIANTS " in *" $1 "*) return 0 ;; esac
	return 1
}

med() {		# med KEY: the median, or nothing when FAILED
	stat "$1" | awk '$1 != "FAILED" { print $1 }'
}

# cell KEY: the table's "median [min-max]" of KEY; FAILED sets rc.
cell() {
	local st
	st=$(stat "$1")
	[ "$st" = FAILED ] && rc=1
	spread "$st"
}

# over KEY BASE [PREC]: "median min max" of KEY over BASE's median, or
# nothing when either FAILED.
over() {
	local st b
	st=$(stat "$1")
	b=$(med "$2")
	[ "$st" = FAILED ] || [ -z "$b" ] && return
	echo "$st" | awk -v b="$b" -v p="${3:-4}" '{
		printf "%.*f %.*f %.*f\n", p, $1 / b, p, $2 / b, p, $3 / b }'
}

fmt2() {	# fmt2 KEY: the median, two decimals ("-": not measured)
	local m
	measured "${1%%/*}" || { echo -; return; }
	m=$(med "$1")
	if [ -n "$m" ]; then printf '%.2f' "$m"; else echo FAILED; fi
}

# goal FIGURE MIN: "met", "NOT met", or "-" without a figure.
goal() {
	[ -n "$1" ] || { echo "-"; return; }
	awk -v r="$1" -v g="$2" 'BEGIN { print (r >= g ? "met" : "NOT met") }'
}

# spread3 STAT: as spread, three decimals (Jain's index).
spread3() {
	# shellcheck disable=SC2086
	set -- $1
	if [ "$1" = FAILED ]; then
		echo FAILED
		return
	fi
	printf '%.3f [%.3f-%.3f]\n' "$1" "$2" "$3"
}

mib=$(awk -v s="$SIZE" 'BEGIN { printf "%g", s / 1048576 }')
echo "psock-gw: $mib MiB client -> server, MB/s, median [min-max] of $REPS interleaved runs"
echo "(netem 2 ms each way on each path; direct TCP is routed over path 1)"
printf '%-20s %19s %19s %19s %13s %13s\n' "" "direct TCP" "pair, path 1" \
	"pair, 2 paths" "path 1 / TCP" "2 paths / TCP"
for v in 20mbit none; do
	measured $v || continue
	cols=
	for k in gw1 gw2; do
		r=$(over "$v/$k" "$v/direct" 2)
		g=-
		[ $v = 20mbit ] && g=0.9 && [ $k = gw2 ] && g=1.5
		c=${r%% *}
		[ $g != - ] && c="$c $(goal "${r%% *}" $g)"
		cols="$cols|${c:-FAILED}"
		echo "ratio $v-$k ${r:-NaN NaN NaN} $g" >> "$dat"
	done
	what="no rate limit"
	[ $v = 20mbit ] && what="20 Mbit/s each path"
	IFS='|' read -r _ c1 c2 <<< "$cols"
	printf '%-20s %19s %19s %19s %13s %13s\n' "$what" "$(cell "$v/direct")" \
		"$(cell "$v/gw1")" "$(cell "$v/gw2")" "$c1" "$c2"
	for k in $KINDS; do
		echo "tput $v $k $(stat "$v/$k" | awk '{ if ($1 == "FAILED") print "NaN NaN NaN"; else print $1, $2, $3 }')" >> "$dat"
	done
done
echo "goals: the pair on path 1 >= 0.9 x direct TCP, on 2 paths >= 1.5 x (20 Mbit/s)"

echo
echo "Loss and reordering on both paths, each way, 20 Mbit/s: MB/s over the same"
echo "set-up's lossless median (reordering: over in order, netem + tbf both);"
echo "median [min-max] of $REPS runs, each over that median; the seed's table 1"
printf '%-16s %17s %17s %17s %8s %7s\n' condition "direct TCP" "pair, path 1" \
	"pair, 2 paths" "seed: A" kernel
for c in "loss0.1 0.1 96.9 102" "loss1 1 77.4 69.7" "loss5 5 5.97 6.3" \
	 "reorder10 reorder 92.5 24"; do
	# shellcheck disable=SC2086
	set -- $c
	base=20mbit what="$2% loss"
	[ "$1" = reorder10 ] && base=inorder what="10% reordering"
	measured "$1" && measured $base || continue
	line=$(printf '%-16s' "$what")
	for k in $KINDS; do
		r=$(over "$1/$k" "$base/$k")
		[ -z "$r" ] && rc=1
		echo "norm $2 $k ${r:-NaN NaN NaN}" >> "$dat"
		# shellcheck disable=SC2086
		line="$line $(printf '%17s' "$([ -n "$r" ] && printf '%.2f [%.2f-%.2f]' $r || echo FAILED)")"
	done
	printf '%s %8.3f %7.3f\n' "$line" "$(awk -v a="$3" 'BEGIN { print a / 100 }')" \
		"$(awk -v a="$4" 'BEGIN { print a / 100 }')"
	awk -v x="$2" -v a="$3" -v b="$4" 'BEGIN {
		printf "norm %s seedA %.4f %.4f %.4f\n", x, a / 100, a / 100, a / 100
		printf "norm %s seedK %.4f %.4f %.4f\n", x, b / 100, b / 100, b / 100 }' >> "$dat"
done
printf 'lossless medians, MB/s: direct TCP %s, pair path 1 %s, 2 paths %s; in order: %s, %s, %s\n' \
	"$(fmt2 20mbit/direct)" "$(fmt2 20mbit/gw1)" "$(fmt2 20mbit/gw2)" \
	"$(fmt2 inorder/direct)" "$(fmt2 inorder/gw1)" "$(fmt2 inorder/gw2)"
printf 'netem on the way of the data (medians): dropped %s%%, %s%%, %s%% of the packets; reordering: %s%% sent early\n' \
	"$(fmt2 loss0.1/lost)" "$(fmt2 loss1/lost)" "$(fmt2 loss5/lost)" "$(fmt2 reorder10/early)"
echo "TCP segments retransmitted on the paths per MiB sent (medians; direct: the client's, pair: the subflows'):"
for v in 20mbit loss0.1 loss1 loss5 inorder reorder10; do
	measured $v || continue
	printf '  %-10s direct %s, pair path 1 %s, 2 paths %s\n' $v \
		"$(fmt2 $v/direct/rtx)" "$(fmt2 $v/gw1/rtx)" "$(fmt2 $v/gw2/rtx)"
done
if measured reorder10 && measured inorder; then
	r=$(over reorder10/tcp4 inorder/tcp4)
	[ -z "$r" ] && rc=1
	# shellcheck disable=SC2086
	printf '10%% reordering, %s TCP connections at once over path 1 (as many as the pair'"'"'s subflows there): %s of in order (%s MB/s); %s retransmitted per MiB\n' \
		"$STREAMS" \
		"$([ -n "$r" ] && printf '%.2f [%.2f-%.2f]' $r || echo FAILED)" \
		"$(fmt2 inorder/tcp4)" "$(fmt2 reorder10/tcp4/rtx)"
	echo "norm reorder tcp4 ${r:-NaN NaN NaN}" >> "$dat"
fi
r1=$(over reorder10/gw1 inorder/gw1 2) r2=$(over reorder10/gw2 inorder/gw2 2)
measured reorder10 && measured inorder &&
echo "goal: the pair under 10% reordering >= 0.9 of in order: path 1 ${r1%% *} $(goal "${r1%% *}" 0.9), 2 paths ${r2%% *} $(goal "${r2%% *}" 0.9)"

if [ -z "$FLOWS" ]; then
	echo "($REPS runs in $(($(date +%s) - start)) s; no fairness runs)"
	exit $rc
fi
echo
echo "Fairness: N connections at once for $FAIR_T s, 20 Mbit/s each path; each flow's Mbit/s"
echo "at the server over the same $FAIR_LEN s (from $FAIR_SKIP s after the last accept); Jain's index"
echo "median [min-max] of $REPS runs, the flows' sum (median), slowest-fastest flow of all runs"
printf '%-6s %19s %7s %12s   %19s %7s %12s   %19s %7s %12s\n' flows \
	"direct TCP: Jain" sum flows "TCP from pgwb-i" sum flows \
	"pair, 2 paths: Jain" sum flows
jmin=
for n in $FLOWS; do
	line=$(printf '%-6s' "$n")
	for k in direct local gw2; do
		key=fair/$n/$k
		st=$(stat "$key")
		[ "$st" = FAILED ] && rc=1
		fl=$(stat "$key/flow" | awk '$1 != "FAILED" { printf "%.2f %.2f", $2, $3 }')
		su=$(med "$key/sum")
		line="$line $(printf '%19s %7s %12s' "$(spread3 "$st")" \
			"$(printf '%.1f' "${su:-0}")" "$(echo "${fl:--}" | tr ' ' -)")"
		# shellcheck disable=SC2086
		echo "jain $n $k $(echo "$st" | awk '{ if ($1 == "FAILED") print "NaN NaN NaN"; else print $1, $2, $3 }') ${su:-NaN} ${fl:-NaN NaN}" >> "$dat"
		if [ $k = gw2 ] && [ "$st" != FAILED ]; then
			jmin=$(awk -v a="${st%% *}" -v b="$jmin" 'BEGIN { print (b == "" || a < b) ? a : b }')
		fi
	done
	echo "$line"
done
echo "goal: Jain >= 0.95 through the pair: the smallest median ${jmin:-FAILED} $(goal "$jmin" 0.95)"
echo "($REPS runs in $(($(date +%s) - start)) s)"
exit $rc
