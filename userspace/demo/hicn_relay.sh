#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Demo: AF_HICN across hosts.  A producer P, a relay R and two consumers
# C1 and C2, each a network namespace, joined by veth pairs and configured
# with hicnctl alone: UDP listeners, faces in hICN's wire format, routes.
# P publishes a 4 MiB file under a name; C1, then C2, fetch it by that
# name through R.  Prints the commands, checks both copies by checksum,
# prints each fetch's throughput, shows the faces' counters of R and P
# and R's content store, and fails unless P sent each segment once
# (segment 0 twice: a fetch of the newest version always asks the
# producer which version that is) and R's cache answered C2.
#
#   hr-c1  veth 10.79.1.1 ==== 10.79.1.2 \
#                                         hr-r  10.79.2.2 ==== 10.79.2.1  hr-p
#   hr-c2  veth 10.79.3.1 ==== 10.79.3.2 /      relay          producer of
#                                               b001::/16 -> P  b001:a:b:c::/64
#   C1, C2: a face to R, route b001::/16 via it
#   R:      listeners toward C1 and C2 (auto-faces: their interests make
#           the faces), a face to P, route b001::/16 via it
#   P:      a listener with auto-faces, the producer socket
cd "$(dirname "$0")" || exit 1
export PATH="$PWD:$PWD/../hicnctl:$PATH"
declare -A NS=([P]=hr-p [R]=hr-r [C1]=hr-c1 [C2]=hr-c2)
PREFIX=b001:a:b:c::/64
NAME=b001:a:b:c::f11e
SIZE=$((4 << 20))
TMP=$(mktemp -d)
PROD=

cleanup() {
	local n
	[ -n "$PROD" ] && kill "$PROD" 2>/dev/null && wait "$PROD" 2>/dev/null
	for n in "${NS[@]}"; do
		ip netns del "$n" 2>/dev/null
	done
	rm -rf "$TMP"
}
trap cleanup EXIT

fail() {
	echo "hicn relay demo FAILED: $*"
	exit 1
}

# run NODE CMD...: CMD in NODE's namespace, shown as typed there with its
# output below; its output is left in $OUT; any failure ends the demo.
run() {
	local node=$1 rc
	shift
	printf '  %-3s %s\n' "$node#" "$*"
	OUT=$(ip netns exec "${NS[$node]}" "$@" 2>&1)
	rc=$?
	[ -n "$OUT" ] && sed 's/^/      /' <<<"$OUT"
	[ $rc -eq 0 ] || fail "$node: \"$*\" exited with $rc"
}

# field KEY TEXT: the number after KEY in TEXT ("data-out 123" -> 123).
field() {
	sed -n "s/.* $1 \([0-9]*\).*/\1/p" <<<"$2" | head -n1
}

# The counters the checks read, quietly: data P's face to R sent, hits
# of R's content store.
p_data_out() {
	field data-out "$(ip netns exec hr-p hicnctl -s face show | grep ' udp ')"
}

r_cs_hits() {
	ip netns exec hr-r awk '$1 == "cs_hits" { print $2 }' /proc/net/hicn_stat
}

setup() {
	local n a b net
	for n in "${NS[@]}"; do
		ip netns add "$n" && ip -n "$n" link set lo up || return 1
	done
	for a in C1:1 P:2 C2:3; do
		net=${a#*:}
		a=${a%:*}
		b=R
		ip link add v$net-a netns "${NS[$a]}" type veth \
			peer name v$net-b netns "${NS[$b]}" &&
		ip -n "${NS[$a]}" addr add 10.79.$net.1/24 dev v$net-a &&
		ip -n "${NS[$b]}" addr add 10.79.$net.2/24 dev v$net-b &&
		ip -n "${NS[$a]}" link set v$net-a up &&
		ip -n "${NS[$b]}" link set v$net-b up || return 1
	done
}

# fetch NODE: NODE fetches the name into NODE.copy, checked against the
# published file.
fetch() {
	local sum
	run "$1" hicn_pubsub fetch $NAME "$1.copy"
	cmp -s file "$1.copy" || fail "$1's copy differs from the file"
	sum=$(sha256sum < "$1.copy" | cut -c1-16)
	echo "      sha256 $sum...: $1's copy matches the file"
}

setup || fail "set-up of the namespaces"
cd "$TMP" || fail "no $TMP"
head -c $SIZE /dev/urandom > file || fail "the file"
echo "P publishes a 4 MiB file as $NAME; C1 then C2 fetch it through R"
echo "(hosts: network namespaces hr-p, hr-r, hr-c1, hr-c2 joined by veth pairs)"
echo
echo "configuration, hicnctl only:"
run P hicnctl listener add 10.79.2.1 auto-faces on
printf '  %-3s %s\n' "P#" "hicn_pubsub publish $PREFIX $NAME file &"
ip netns exec hr-p hicn_pubsub publish $PREFIX $NAME file > prod.log 2>&1 &
PROD=$!
for i in $(seq 100); do
	grep -q '^published' prod.log && break
	kill -0 $PROD 2>/dev/null || break
	sleep 0.1
done
sed 's/^/      /' prod.log
grep -q '^published' prod.log || fail "P did not publish"
nseg=$(sed -n 's/.* bytes, \([0-9]*\) segments.*/\1/p' prod.log)

run R hicnctl listener add 10.79.1.2 auto-faces on
run R hicnctl listener add 10.79.3.2 auto-faces on
run R hicnctl face add udp local 10.79.2.2 remote 10.79.2.1
run R hicnctl route add b001::/16 via "${OUT#face }"
for c in C1:1 C2:3; do
	net=${c#*:}
	c=${c%:*}
	run "$c" hicnctl face add udp local 10.79.$net.1 remote 10.79.$net.2
	run "$c" hicnctl route add b001::/16 via "${OUT#face }"
done
run R hicnctl route show
echo

echo "C1 fetches the file by name, through R:"
fetch C1
sent1=$(p_data_out)
hits1=$(r_cs_hits)
echo
echo "C2 fetches it too: R's cache answers"
fetch C2
sent2=$(p_data_out)
hits2=$(r_cs_hits)
echo

echo "counters (face show -s: the faces' interests and data, each way):"
run R hicnctl -s face show
run P hicnctl -s face show
run R hicnctl hicn cs show
run R grep -w -e cs_hits -e cs_misses -e pit_aggregated -e interests \
	-e data /proc/net/hicn_stat
kill $PROD
wait $PROD
prc=$?
PROD=
sed -n 's/^producer/  P:  the producer/p' prod.log
[ $prc -eq 0 ] || fail "the producer exited with $prc"
echo

[ -n "$sent1" ] && [ -n "$sent2" ] || fail "P has no UDP face to R"
rc=0
c1=$sent1
c2=$((sent2 - sent1))
hits=$((hits2 - hits1))
echo "P's face to R sent $c1 data packets for C1's fetch of $nseg segments, $c2 for C2's;"
echo "R's content store answered $hits of C2's interests."
# C1's fetch: every segment once, give or take the resends of a slow VM.
if [ "$c1" -lt "$nseg" ] || [ "$c1" -gt $((nseg + nseg / 20)) ]; then
	echo "  NOT the segments once: $c1 sent for $nseg"
	rc=1
fi
# C2's: only segment 0, the answer to "which version is the newest"
# (never cached, hicn(7)); all the others from R's cache.
if [ "$hits" -lt $((nseg - 1)) ] || [ "$c2" -gt $((1 + nseg / 20)) ]; then
	echo "  NOT served by the relay's cache"
	rc=1
fi
[ $rc -eq 0 ] || fail "the relay's counters"
echo "P sent each segment once for two consumers (segment 0 twice: the"
echo "question which version is the newest always reaches the producer)."
