#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the netns + veth tests (veth_transfer.sh, failover.sh): the
# topology, one transfer, and the checks on psock_cat's PSOCK_INFO lines.
#
#   netns psk-a (client)                             netns psk-b (server)
#   +----------------------+                         +----------------------+
#   | veth-a1              |   path 1: netem         |              veth-b1 |
#   | 10.71.1.1/24         |=========================| 10.71.1.2/24         |
#   | fd71:1::1/64         |   2ms +-1ms, 200 Mbit/s | fd71:1::2/64         |
#   |                      |   each direction        |                      |
#   | veth-a2              |   path 2: netem         |              veth-b2 |
#   | 10.71.2.1/24         |=========================| 10.71.2.2/24         |
#   | fd71:2::1/64         |   5ms, 20 Mbit/s        | fd71:2::2/64         |
#   +----------------------+   each direction        +----------------------+

. ./ns_lib.sh

A=psk-a
B=psk-b
TMP=$(mktemp -d)
PORT=7100
PC=./psock_cat

# make check shares some of a program's cases between the Debian
# kernels: kernel_share A B prints A on 6.1 and B on every other kernel,
# both (A B) under make check-long (LONG=1).
kernel_share() {	# kernel_share A B
	if [ "${LONG:-0}" = 1 ]; then
		echo "$1 $2"
	else
		case $(uname -r) in
		6.1.*) echo "$1" ;;
		*) echo "$2" ;;
		esac
	fi
}

cleanup() {
	ip netns del $A 2>/dev/null
	ip netns del $B 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

setup() {
	local p
	modprobe sch_netem 2>/dev/null
	ip netns add $A && ip netns add $B || return 1
	for p in 1 2; do
		ip link add veth-a$p netns $A type veth peer name veth-b$p netns $B &&
		ip -n $A addr add 10.71.$p.1/24 dev veth-a$p &&
		ip -n $B addr add 10.71.$p.2/24 dev veth-b$p &&
		ip -n $A addr add fd71:$p::1/64 dev veth-a$p nodad &&
		ip -n $B addr add fd71:$p::2/64 dev veth-b$p nodad &&
		ip -n $A link set veth-a$p up && ip -n $B link set veth-b$p up ||
			return 1
	done
	ip -n $A link set lo up && ip -n $B link set lo up &&
	tc -n $A qdisc add dev veth-a1 root netem delay 2ms 1ms rate 200mbit &&
	tc -n $B qdisc add dev veth-b1 root netem delay 2ms 1ms rate 200mbit &&
	tc -n $A qdisc add dev veth-a2 root netem delay 5ms rate 20mbit &&
	tc -n $B qdisc add dev veth-b2 root netem delay 5ms rate 20mbit &&
	ip netns exec $A sysctl -qw net.psock.hello_timeout_ms=500 &&
	ip netns exec $B sysctl -qw net.psock.hello_timeout_ms=500
}

# close() that gave up waiting for the peer's acks, in both namespaces.
close_timeouts() {
	echo $(( $(counter $A CloseTimeouts) + $(counter $B CloseTimeouts) ))
}

# xfer DESC SIZE SERVER_CMD... -- CLIENT_CMD...
# The client sends SIZE random bytes ($TMP/a), the server SIZE/2 + 3
# ($TMP/b), both at once; each must receive exactly the other's file, and
# neither close() may give up waiting for the acknowledgements of a peer
# that received everything (CloseTimeouts).
# PORT in a command is replaced by a fresh port number.
xfer() {
	local desc=$1 size=$2 srv=() cli=() rc=0 spid t0 ct why=
	shift 2
	while [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	cli=("$@")
	head -c "$size" /dev/urandom > "$TMP/a"
	head -c ${SRV_SIZE:-$((size / 2 + 3))} /dev/urandom > "$TMP/b"
	PORT=$((PORT + 1))
	ct=$(close_timeouts)
	t0=$(date +%s.%N)
	ip netns exec $B timeout ${XFER_TIMEOUT:-300} "${srv[@]//PORT/$PORT}" < "$TMP/b" \
		> "$TMP/b.out" 2> "$TMP/b.err" &
	spid=$!
	wait_listen $B $PORT || { why+="server not listening; "; rc=1; }
	ip netns exec $A timeout ${XFER_TIMEOUT:-300} "${cli[@]//PORT/$PORT}" < "$TMP/a" \
		> "$TMP/a.out" 2> "$TMP/a.err" || { why+="client exit $?; "; rc=1; }
	wait $spid || { why+="server exit $?; "; rc=1; }
	cmp -s "$TMP/a" "$TMP/b.out" || { why+="server got wrong data ($(stat -c %s "$TMP/b.out") bytes); "; rc=1; }
	cmp -s "$TMP/b" "$TMP/a.out" || { why+="client got wrong data ($(stat -c %s "$TMP/a.out") bytes); "; rc=1; }
	[ "$(close_timeouts)" = "$ct" ] || { why+="a close() gave up waiting for acknowledgements; "; rc=1; }
	echo "# $desc: $(echo "$(date +%s.%N) - $t0" | bc 2>/dev/null || echo '?')s"
	sed 's/^/# client: /' "$TMP/a.err"
	sed 's/^/# server: /' "$TMP/b.err"
	# A failure says why on its own TAP line: summaries keep only those.
	[ -z "$why" ] || echo "# $desc: ${why%; }"
	tap_result $rc "$desc${why:+ (${why%; })}"
}

# The PSOCK_INFO line of one side: expect_info DESC FILE WANT
expect_info() {
	local got
	got=$(grep '^streams=' "$2")
	[ "$got" = "$3" ] || echo "# got '$got'"
	[ "$got" = "$3" ]
	tap_result $? "$1: $3"
}

# Bytes a path carried, from the client's end-of-transfer lines:
# path_bytes ADDR FIELD(sent|received|subflows)
path_val() {
	sed -n "s/^path $1 .*$2=\([0-9]*\).*/\1/p" "$TMP/a.err"
}

