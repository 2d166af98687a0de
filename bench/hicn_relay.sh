#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# AF_HICN across hosts (issue 15), where information-centric networking
# should win: 8 consumers behind one relay fetch the same 16 MiB object
# at once, against 8 TCP transfers of 16 MiB from one server to the same
# 8 hosts across the same topology, the relay namespace then acting as
# an IP router.  Reported: the bytes the producer's (or server's) host
# put on its link (tx_bytes of its veth; for AF_HICN also the data
# segments its face to the relay sent), and the time until all 8 had
# their copy; and the ratios TCP/AF_HICN of both.
#
#   hrb-c1 10.82.1.1 == 10.82.1.2 \
#   ...                           hrb-r 10.82.0.2 ==== 10.82.0.1 hrb-p
#   hrb-c8 10.82.8.1 == 10.82.8.2 /  relay / router        producer / server
#
# Every link: netem rate 100 Mbit/s, 2 ms each way (both ends), as in
# hicn_net.sh and for the same reason: an unlimited veth under TCG runs
# at whatever the emulated CPUs copy and its figures drift with the
# host.  The producer's link is what the 8 share.
#
# AF_HICN, configured with hicnctl as userspace/demo/hicn_relay.sh does:
# P a listener with auto-faces and the producer (hicn_pubsub publish,
# 1360-byte segments); R listeners toward the consumers, a face to P and
# route b001::/16 via it; each Ci a face to R and the route.  The 8
# hicn_pubsub fetch start together; R's pending-interest table
# aggregates what they ask at once and R's content store answers what
# one asks after another got it.  Every content store is flushed before
# each run, so each run starts from the producer alone.
# TCP: a psock_xfer -p tcp receiver in each Ci, 8 senders in P started
# together, one per consumer (the data flows P -> Ci as a download's;
# which end connects changes no byte on the producer's link); R
# forwards (ip_forward).
# The time runs from before the 8 are started to after the last has
# ended (the shell's clock; the same process starts for both).  Every
# copy is compared with the file, every TCP receiver must have read
# exactly the bytes sent; a failure fails the benchmark.  Each run
# measures AF_HICN then TCP; every figure is the median of BENCH_REPS
# runs (lib.sh) with the smallest and the largest.  BENCH_SIZE replaces
# the 16 MiB.  With BENCH_OUT set, the figures also go to
# $BENCH_OUT/hicn_relay.dat.

cd "$(dirname "$0")" || exit 1
. ./lib.sh
export PATH="$PWD:$PWD/../userspace/demo:$PWD/../userspace/hicnctl:$PATH"
N=8
R=hrb-r
P=hrb-p
SIZE=${BENCH_SIZE:-$((16 << 20))}
PREFIX=b001:a:b:c::/64
NAME=b001:a:b:c::b2
NETEM="delay 2ms rate 100mbit limit 1000"
PORT=7600
TMP=$(mktemp -d)
PROD=

cleanup() {
	local i
	[ -n "$PROD" ] && kill "$PROD" 2>/dev/null && wait "$PROD" 2>/dev/null
	for i in $(seq $N); do
		ip netns del hrb-c$i 2>/dev/null
	done
	ip netns del $R 2>/dev/null
	ip netns del $P 2>/dev/null
	rm -rf "$TMP" "$RESULTS"
}
trap cleanup EXIT

die() {
	echo "hicn_relay: $*" >&2
	exit 1
}

# link NS_A DEV_A ADDR_A NS_B DEV_B ADDR_B: a veth pair, shaped both ways.
link() {
	ip link add "$2" netns "$1" type veth peer name "$5" netns "$4" &&
	ip -n "$1" addr add "$3/24" dev "$2" &&
	ip -n "$4" addr add "$6/24" dev "$5" &&
	ip -n "$1" link set "$2" up && ip -n "$4" link set "$5" up &&
	# shellcheck disable=SC2086
	tc -n "$1" qdisc add dev "$2" root netem $NETEM &&
	# shellcheck disable=SC2086
	tc -n "$4" qdisc add dev "$5" root netem $NETEM
}

setup() {
	local i c face
	modprobe sch_netem 2>/dev/null
	for c in $P $R $(seq -f 'hrb-c%g' $N); do
		ip netns add "$c" && ip -n "$c" link set lo up || return 1
	done
	link $P v-p 10.82.0.1 $R v-rp 10.82.0.2 &&
	ip -n $P route add default via 10.82.0.2 &&
	ip netns exec $R sysctl -qw net.ipv4.ip_forward=1 || return 1
	for i in $(seq $N); do
		c=hrb-c$i
		link $c v-c 10.82.$i.1 $R v-r$i 10.82.$i.2 &&
		ip -n $c route add default via 10.82.$i.2 &&
		ip netns exec $c ping -c 1 -W 2 10.82.0.1 >/dev/null ||
			return 1
	done
	# AF_HICN: as hicn_relay.sh.
	ip netns exec $P hicnctl listener add 10.82.0.1 auto-faces on \
		>/dev/null || return 1
	for i in $(seq $N); do
		ip netns exec $R hicnctl listener add 10.82.$i.2 auto-faces on \
			>/dev/null || return 1
	done
	face=$(ip netns exec $R hicnctl face add udp local 10.82.0.2 \
		remote 10.82.0.1) &&
	ip netns exec $R hicnctl route add b001::/16 via "${face#face }" ||
		return 1
	for i in $(seq $N); do
		c=hrb-c$i
		face=$(ip netns exec $c hicnctl face add udp local 10.82.$i.1 \
			remote 10.82.$i.2) &&
		ip netns exec $c hicnctl route add b001::/16 via "${face#face }" ||
			return 1
	done
}

publish() {
	local i
	head -c "$SIZE" /dev/urandom > "$TMP/file" || return 1
	ip netns exec $P hicn_pubsub publish $PREFIX $NAME "$TMP/file" \
		> "$TMP/prod.log" 2>&1 &
	PROD=$!
	for i in $(seq 300); do
		grep -q '^published' "$TMP/prod.log" && return 0
		kill -0 $PROD 2>/dev/null || break
		sleep 0.1
	done
	cat "$TMP/prod.log" >&2
	return 1
}

# The bytes P has sent on its link.
ptx() {
	ip netns exec $P cat /sys/class/net/v-p/statistics/tx_bytes
}

# The data segments P's face to R has sent (hicnctl -s face show); 0
# before the first interest, which makes that face (auto-faces).
pdata() {
	local n
	n=$(ip netns exec $P hicnctl -s face show |
		sed -n 's/.* udp .* data-out \([0-9]*\).*/\1/p' | head -n1)
	echo "${n:-0}"
}

now() {
	date +%s.%N
}

# One AF_HICN run: prints "SECONDS BYTES SEGMENTS", or fails.
hicn_run() {
	local ns i pids=() b0 d0 t0 t1 bad=0
	for ns in $P $R $(seq -f 'hrb-c%g' $N); do
		ip netns exec "$ns" hicnctl hicn cs flush >/dev/null || return 1
	done
	rm -f "$TMP"/copy*
	b0=$(ptx)
	d0=$(pdata)
	t0=$(now)
	for i in $(seq $N); do
		ip netns exec hrb-c$i timeout 900 hicn_pubsub fetch $NAME \
			"$TMP/copy$i" > "$TMP/fetch$i.log" 2>&1 &
		pids+=($!)
	done
	for i in $(seq $N); do
		wait "${pids[i - 1]}" || {
			echo "hicn_relay: consumer $i failed: $(cat "$TMP/fetch$i.log")" >&2
			bad=1
		}
	done
	t1=$(now)
	[ $bad = 0 ] || return 1
	for i in $(seq $N); do
		cmp -s "$TMP/file" "$TMP/copy$i" || {
			echo "hicn_relay: consumer $i's copy differs from the file" >&2
			return 1
		}
	done
	echo "$t0 $t1 $b0 $(ptx) $d0 $(pdata)" |
		awk '{ printf "%.3f %d %d\n", $2 - $1, $4 - $3, $6 - $5 }'
}

# One TCP run: prints "SECONDS BYTES 0", or fails.
tcp_run() {
	local i srv=() pids=() b0 t0 t1 bad=0 rx
	PORT=$((PORT + 1))
	for i in $(seq $N); do
		ip netns exec hrb-c$i timeout 900 psock_xfer -l $PORT -p tcp \
			2> "$TMP/srv$i.log" &
		srv+=($!)
	done
	for i in $(seq $N); do
		listening hrb-c$i $PORT || bad=1
	done
	b0=$(ptx)
	t0=$(now)
	if [ $bad = 0 ]; then
		for i in $(seq $N); do
			ip netns exec $P timeout 900 psock_xfer -p tcp \
				-s "$SIZE" 10.82.$i.1 $PORT > /dev/null &
			pids+=($!)
		done
		for i in $(seq $N); do
			wait "${pids[i - 1]}" || {
				echo "hicn_relay: TCP sender $i failed" >&2
				bad=1
			}
		done
	fi
	t1=$(now)
	for i in $(seq $N); do
		[ $bad = 0 ] || kill "${srv[i - 1]}" 2>/dev/null
		wait "${srv[i - 1]}" || bad=1
		rx=$(sed -n 's/^server read \([0-9]*\) bytes.*/\1/p' "$TMP/srv$i.log")
		[ $bad = 1 ] || [ "$rx" = "$SIZE" ] || {
			echo "hicn_relay: TCP receiver $i read ${rx:-no} bytes of $SIZE" >&2
			bad=1
		}
	done
	[ $bad = 0 ] || return 1
	echo "$t0 $t1 $b0 $(ptx)" |
		awk '{ printf "%.3f %d 0\n", $2 - $1, $4 - $3 }'
}

# measure KEY CMD: one run, recorded under KEY/time, KEY/bytes, KEY/segs.
measure() {
	local k=$1 out
	shift
	if ! out=$("$@"); then
		echo "hicn_relay: $k failed" >&2
		record "$k/time" FAILED
		record "$k/bytes" FAILED
		return
	fi
	# shellcheck disable=SC2086
	set -- $out
	record "$k/time" "$1"
	record "$k/bytes" "$2"
	record "$k/segs" "$3"
}

setup || die "set-up failed"
publish || die "the producer did not publish"
nseg=$(sed -n 's/.* bytes, \([0-9]*\) segments.*/\1/p' "$TMP/prod.log")

start=$(date +%s)
for r in $(seq "$REPS"); do
	measure hicn hicn_run
	measure tcp tcp_run
	echo "# run $r of $REPS done after $(($(date +%s) - start)) s"
done

rc=0
dat=/dev/null
[ -n "$BENCH_OUT" ] && dat=$BENCH_OUT/hicn_relay.dat
{
	echo "# runs $REPS"
	echo "# proto seconds(median min max) producer_mib(median min max)"
} > "$dat"

mib=$(awk -v s="$SIZE" 'BEGIN { printf "%g", s / 1048576 }')
echo "$N consumers behind one relay, the same $mib MiB each, all at once;"
echo "links 100 Mbit/s, 2 ms each way; median [min-max] of $REPS interleaved runs"
printf '%-8s %-22s %-26s\n' proto "all 8 done (s)" "producer sent (MiB)"
for p in hicn tcp; do
	pname=AF_HICN
	[ $p = tcp ] && pname=TCP
	st=$(stat $p/time)
	sb=$(stat $p/bytes)
	if [ "$st" = FAILED ] || [ "$sb" = FAILED ]; then
		printf '%-8s %s\n' $pname FAILED
		echo "$p 0 0 0 0 0 0" >> "$dat"
		rc=1
		continue
	fi
	mb=$(awk '{ printf "%f %f %f\n", $1 / 1048576, $2 / 1048576, $3 / 1048576 }' <<<"$sb")
	printf '%-8s %-22s %-26s\n' $pname "$(spread "$st")" "$(spread "$mb")"
	# shellcheck disable=SC2086
	echo "$p $(cut -d' ' -f1-3 <<<"$st") $(cut -d' ' -f1-3 <<<"$mb")" >> "$dat"
done
if [ $rc = 0 ]; then
	segs=$(stat hicn/segs | cut -d' ' -f1)
	echo "(AF_HICN: P's face sent $segs data segments, median, for an object of $nseg;"
	echo " $N copies are $((N * SIZE / 1048576)) MiB)"
	awk -v ht="$(stat hicn/time | cut -d' ' -f1)" \
	    -v tt="$(stat tcp/time | cut -d' ' -f1)" \
	    -v hb="$(stat hicn/bytes | cut -d' ' -f1)" \
	    -v tb="$(stat tcp/bytes | cut -d' ' -f1)" 'BEGIN {
		if (hb > 0 && ht > 0)
			printf "TCP/AF_HICN: producer bytes %.2f, time %.2f (above 1: AF_HICN better)\n",
			       tb / hb, tt / ht }'
fi
echo "($REPS runs of 2 x $N transfers in $(($(date +%s) - start)) s)"
kill $PROD
wait $PROD || { echo "hicn_relay: the producer exited with $?" >&2; rc=1; }
PROD=
exit $rc
