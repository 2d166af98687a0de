#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the shell tests that run programs in network namespaces
# (veth_lib.sh, psock_gw.sh): functions only, nothing runs.

# Wait until something listens on netns $1's TCP port $2: wait_listen NS PORT
wait_listen() {
	local i
	for i in $(seq 100); do
		ip netns exec "$1" ss -Hltn "sport = :$2" | grep -q . && return 0
		sleep 0.1
	done
	return 1
}

# A counter of netns $1's /proc/net/psock: counter NETNS NAME
counter() {
	ip netns exec "$1" awk -v n="$2" '
		NR == 1 { for (i = 2; i <= NF; i++) if ($i == n) c = i }
		NR == 2 && c { print $c }' /proc/net/psock
}
