#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# psock-gw(8): 16 MiB from an unmodified TCP client to a TCP server, once
# through the translator pair (one PSOCK connection over both paths) and
# once routed directly (plain TCP over path 1), timed by psock_xfer -p tcp
# (connect() to the server's last read), in the same run; the figure is
# the throughput through the pair divided by direct TCP's.  Both paths
# are limited to 20 Mbit/s (netem, 2 ms each way): the pair can use 40,
# direct TCP 20.  Each figure is the median of BENCH_REPS runs with the
# smallest and the largest (lib.sh).
#
#  pgwb-c 10.73.0.1 -- 10.73.0.2 pgwb-i 10.73.1.1 === path 1 === 10.73.1.2 pgwb-o
#                                       10.73.2.1 === path 2 === 10.73.2.2
#                                                     10.73.3.1 -- 10.73.3.2 pgwb-s
#
# Direct TCP is routed (ip_forward) over path 1; the pair's PSOCK
# connection gets path 2 from the endpoints (the egress signals
# 10.73.2.2), the default (poll-all) driver, 4 streams.

cd "$(dirname "$0")" || exit 1
. ./lib.sh
TOP=$(cd .. && pwd)
GW=$TOP/userspace/psock-gw/psock-gw
HICNCTL=$TOP/userspace/hicnctl/hicnctl
X=./psock_xfer
C=pgwb-c I=pgwb-i O=pgwb-o S=pgwb-s
SIZE=${BENCH_SIZE:-$((16 << 20))}
PORT=7400

cleanup() {
	local ns
	for ns in $C $I $O $S; do ip netns del $ns 2>/dev/null; done
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
	for ns in $C $I $O $S; do
		ip netns add $ns && ip -n $ns link set lo up || return 1
	done
	veth $C c0 10.73.0.1 $I i0 10.73.0.2 &&
	veth $I i1 10.73.1.1 $O o1 10.73.1.2 &&
	veth $I i2 10.73.2.1 $O o2 10.73.2.2 &&
	veth $O o3 10.73.3.1 $S s3 10.73.3.2 &&
	ip -n $C route add default via 10.73.0.2 &&
	ip -n $S route add default via 10.73.3.1 &&
	ip -n $I route add 10.73.3.0/24 via 10.73.1.2 &&
	ip -n $O route add 10.73.0.0/24 via 10.73.1.1 &&
	ip netns exec $I sysctl -qw net.ipv4.ip_forward=1 &&
	ip netns exec $O sysctl -qw net.ipv4.ip_forward=1 || return 1
	"$HICNCTL" -n $O psock endpoint add 10.73.2.2 signal &&
	"$HICNCTL" -n $I psock endpoint add 10.73.2.1 subflow || return 1
}

rate() {		# rate "rate 20mbit" | "": the qdisc of both paths, both ways
	local d p
	for p in 1 2; do
		for d in "$I i$p" "$O o$p"; do
			# (replace would keep a rate set before)
			tc -n ${d% *} qdisc del dev ${d#* } root 2>/dev/null
			# shellcheck disable=SC2086
			tc -n ${d% *} qdisc add dev ${d#* } root netem delay 2ms $1 || return 1
		done
	done
}

# xfer TO_ADDR TO_PORT: one timed transfer, prints MB/s
xfer() {
	local out
	PORT=$((PORT + 1))
	ip netns exec $S $X -l $PORT -p tcp > /dev/null &
	listening $S $PORT || return 1
	if [ "$2" = gw ]; then
		ip netns exec $O "$GW" egress -l 0.0.0.0:9000 -r 10.73.3.2:$PORT -n 4 2>/dev/null &
		local e=$!
		ip netns exec $I "$GW" ingress -l 10.73.0.2:8080 -r 10.73.1.2:9000 -n 4 2>/dev/null &
		local i=$!
		listening $O 9000 && listening $I 8080 || { kill $e $i; return 1; }
		out=$(ip netns exec $C timeout 120 $X -p tcp -s "$SIZE" 10.73.0.2 8080)
		local rc=$?
		kill $e $i
		wait $e $i 2>/dev/null
	else
		out=$(ip netns exec $C timeout 120 $X -p tcp -s "$SIZE" 10.73.3.2 $PORT)
		local rc=$?
	fi
	wait
	[ $rc -eq 0 ] || return 1
	# shellcheck disable=SC2086
	set -- $out
	awk -v s="$1" -v b="$2" 'BEGIN { printf "%.2f\n", b / s / 1e6 }'
}

for p in "$GW" "$HICNCTL" "$X"; do
	[ -x "$p" ] || { echo "$p missing: run make" >&2; exit 1; }
done
setup || { echo "psock_gw.sh: set-up failed" >&2; exit 1; }

VARIANTS="20mbit"
for r in $(seq "$REPS"); do
	for v in $VARIANTS; do
		rate "rate $v"
		run "$v.direct" xfer 10.73.3.2 direct
		run "$v.gw" xfer 10.73.0.2 gw
	done
done

echo "psock-gw: $((SIZE >> 20)) MiB client -> server, MB/s, median [min-max] of $REPS"
printf '%-28s %18s %18s %8s\n' "paths" "direct TCP" "psock-gw pair" "ratio"
for v in $VARIANTS; do
	d=$(stat "$v.direct") g=$(stat "$v.gw")
	if [ "${d%% *}" = FAILED ] || [ "${g%% *}" = FAILED ]; then
		ratio=FAILED
		rc=1
	else
		ratio=$(awk -v a="${g%% *}" -v b="${d%% *}" 'BEGIN { printf "%.2f", a / b }')
	fi
	case $v in
	*) what="2 x $v, 2 ms" ;;
	esac
	printf '%-28s %18s %18s %8s\n' "$what" "$(spread "$d")" "$(spread "$g")" "$ratio"
done
exit ${rc:-0}
