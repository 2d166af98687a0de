#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The "psock" generic netlink family through hicnctl (golden output of
# every command, in the style of MPTCP's pm_netlink.sh) and through the
# kernel's own YNL client (tools/net/ynl/cli.py) driven by our spec, so
# that Documentation/netlink/specs/psock.yaml is proven to match the
# kernel.  Also hicnctl psock show, which reads the sockets through
# sock_diag rather than the family.
#
#   ns1: veth1 --- veth2 :ns2     both hold their own endpoints, limits
#                                 and counters
#
# Errors: the kernel's errno and extack message, as hicnctl prints them
# ("Error: <extack>: <strerror>.", exit status 2).  Permissions: nobody can
# show but not change; root of a user namespace that owns the network
# namespace can change it.

cd "$(dirname "$0")" || exit 1
. ../lib/tap_lib.sh

TOP=$(cd ../../../../.. && pwd)
HICNCTL=$TOP/userspace/hicnctl/hicnctl
KSRC=${KSRC:-$TOP/.cache/ksrc}
SPEC=$TOP/Documentation/netlink/specs/psock.yaml

ns1=psnl1-$$
ns2=psnl2-$$

FLOOD_PIDS=
cleanup() {
	# shellcheck disable=SC2086
	[ -n "$FLOOD_PIDS" ] && kill -CONT $FLOOD_PIDS 2>/dev/null &&
		kill $FLOOD_PIDS 2>/dev/null
	ip netns del "$ns1" 2>/dev/null
	ip netns del "$ns2" 2>/dev/null
}
trap cleanup EXIT

ip netns add "$ns1" && ip netns add "$ns2" &&
	ip -n "$ns1" link set lo up && ip -n "$ns2" link set lo up &&
	ip -n "$ns1" link add veth1 type veth peer name veth2 netns "$ns2"
tap_result $? "set-up: two namespaces joined by a veth pair"

ctl1() { "$HICNCTL" -n "$ns1" psock "$@"; }
ctl2() { "$HICNCTL" -n "$ns2" psock "$@"; }

# ---- endpoints ----

check "endpoint show: empty at first" 0 "" ctl1 endpoint show
check "endpoint add: an IPv4 address, id chosen by the kernel" 0 "" \
	ctl1 endpoint add 10.0.1.1
check "endpoint add: id, device and both flags" 0 "" \
	ctl1 endpoint add 10.0.1.2 id 5 dev veth1 subflow signal
check "endpoint add: an IPv6 address takes the lowest free id" 0 "" \
	ctl1 endpoint add 2001:db8::1 subflow
check "endpoint show: every endpoint, in id order" 0 \
"10.0.1.1 id 1
2001:db8::1 id 2 subflow
10.0.1.2 id 5 signal subflow dev veth1" ctl1 endpoint show
check "endpoint show id: one endpoint" 0 \
	"10.0.1.2 id 5 signal subflow dev veth1" ctl1 endpoint show id 5
check "endpoint show -j: a JSON array" 0 \
'[{"address":"10.0.1.1","id":1,"flags":[]},{"address":"2001:db8::1","id":2,"flags":["subflow"]},{"address":"10.0.1.2","id":5,"flags":["signal","subflow"],"dev":"veth1"}]' \
	"$HICNCTL" -j -n "$ns1" psock endpoint show
"$HICNCTL" -j -n "$ns1" psock endpoint show | python3 -m json.tool >/dev/null
tap_result $? "endpoint show -j: python3 -m json.tool parses it"

check "endpoint add: the same address again is EEXIST" 2 \
	"Error: address is already an endpoint: File exists." \
	ctl1 endpoint add 10.0.1.1 id 9
check "endpoint add: the same IPv6 address again is EEXIST" 2 \
	"Error: address is already an endpoint: File exists." \
	ctl1 endpoint add 2001:db8::1
check "endpoint add: an id in use is EEXIST" 2 \
	"Error: endpoint id is in use: File exists." \
	ctl1 endpoint add 10.0.1.3 id 5
check "endpoint add: a multicast address is EINVAL" 2 \
	"Error: not a unicast address: Invalid argument." \
	ctl1 endpoint add 224.0.0.1
check "endpoint add: the unspecified IPv6 address is EINVAL" 2 \
	"Error: not a unicast address: Invalid argument." \
	ctl1 endpoint add ::
# Ids are 1 to 255, as the kernel's policy has them (ynl below shows the
# kernel's own refusal of 0): hicnctl refuses others before sending.
check "endpoint add: id 0 is a usage error" 1 \
	'Error: "0" is not a valid endpoint id (1 to 255).' \
	ctl1 endpoint add 10.0.1.3 id 0
check "endpoint add: id 256 is a usage error" 1 \
	'Error: "256" is not a valid endpoint id (1 to 255).' \
	ctl1 endpoint add 10.0.1.3 id 256
check "endpoint delete: id 0 is a usage error" 1 \
	'Error: "0" is not a valid endpoint id (1 to 255).' \
	ctl1 endpoint delete id 0
check "endpoint show id: 0 is a usage error" 1 \
	'Error: "0" is not a valid endpoint id (1 to 255).' \
	ctl1 endpoint show id 0
check "endpoint show id: 261 is a usage error, not endpoint 5" 1 \
	'Error: "261" is not a valid endpoint id (1 to 255).' \
	ctl1 endpoint show id 261
check "endpoint show: \"i\" is not \"id\" (exact keywords, as add and delete)" 1 \
	'Error: "i" is unknown, try "hicnctl psock help".' \
	ctl1 endpoint show i 5
check "endpoint add: an unknown device is a usage error" 1 \
	'Error: cannot find device "nosuch".' \
	ctl1 endpoint add 10.0.1.3 dev nosuch
check "endpoint add: no address is a usage error" 1 \
	"Error: an endpoint needs an address." ctl1 endpoint add id 3
check "endpoint delete: a missing id is ENOENT" 2 \
	"Error: no endpoint with this id: No such file or directory." \
	ctl1 endpoint delete id 7
check "endpoint show id: a missing id is ENOENT" 2 \
	"Error: no endpoint with this id: No such file or directory." \
	ctl1 endpoint show id 7
check "endpoint show: the failed requests changed nothing" 0 \
"10.0.1.1 id 1
2001:db8::1 id 2 subflow
10.0.1.2 id 5 signal subflow dev veth1" ctl1 endpoint show

check "netns: $ns2 does not see $ns1's endpoints" 0 "" ctl2 endpoint show
check "netns: $ns2 adds the address $ns1 has, with the same id" 0 "" \
	ctl2 endpoint add 10.0.1.1 id 1
check "netns: $ns1 still has its own id 1 only" 0 "10.0.1.1 id 1" \
	ctl1 endpoint show id 1

check "endpoint delete: by id" 0 "" ctl1 endpoint delete id 1
check "endpoint delete: gone from the dump" 0 \
"2001:db8::1 id 2 subflow
10.0.1.2 id 5 signal subflow dev veth1" ctl1 endpoint show
check "endpoint flush inet6: only the IPv6 endpoints go" 0 "" \
	ctl1 endpoint flush inet6
check "endpoint flush inet6: the IPv4 endpoint stays" 0 \
	"10.0.1.2 id 5 signal subflow dev veth1" ctl1 endpoint show

fill() {
	local i
	for i in 1 2 3 4 5 6 7; do
		ctl1 endpoint add "10.0.2.$i" || return 1
	done
}
tap_check "endpoint add: up to 8 endpoints" fill
check "endpoint add: a 9th is ENOSPC" 2 \
	"Error: at most 8 endpoints per namespace: No space left on device." \
	ctl1 endpoint add 10.0.2.9
check "endpoint add: in a full table, an address already there is EEXIST" 2 \
	"Error: address is already an endpoint: File exists." \
	ctl1 endpoint add 10.0.2.3
check "endpoint add: in a full table, an id in use is EEXIST" 2 \
	"Error: endpoint id is in use: File exists." \
	ctl1 endpoint add 10.0.2.9 id 3
check "endpoint show: a dump of 8 endpoints" 0 \
"10.0.2.1 id 1
10.0.2.2 id 2
10.0.2.3 id 3
10.0.2.4 id 4
10.0.1.2 id 5 signal subflow dev veth1
10.0.2.5 id 6
10.0.2.6 id 7
10.0.2.7 id 8" ctl1 endpoint show
check "endpoint flush: everything" 0 "" ctl1 endpoint flush
check "endpoint flush: nothing left" 0 "" ctl1 endpoint show
check "endpoint flush: $ns2's endpoint stays" 0 "10.0.1.1 id 1" \
	ctl2 endpoint show

# ---- limits ----

sysctl1() { ip netns exec "$ns1" sysctl -n "net.psock.$1"; }

check "limits show: the defaults" 0 "rcmd 4 max 16 driver poll-all" \
	ctl1 limits show
check "limits show -j" 0 '{"rcmd":4,"max":16,"driver":"poll-all"}' \
	"$HICNCTL" -j -n "$ns1" psock limits show
check "limits set: all three" 0 "" \
	ctl1 limits set rcmd 2 max 8 driver round-robin
check "limits show: the new values" 0 "rcmd 2 max 8 driver round-robin" \
	ctl1 limits show
check "limits set: the sysctls see them" 0 "2 8 1" \
	eval 'echo $(sysctl1 rcmd_stream_cnt) $(sysctl1 max_stream_cnt) $(sysctl1 driver)'
ip netns exec "$ns1" sysctl -q -w net.psock.max_stream_cnt=12
check "limits show: a sysctl write is seen" 0 "rcmd 2 max 12 driver round-robin" \
	ctl1 limits show
check "limits set: rcmd 0 is EINVAL, as for the sysctl" 2 \
	"Error: recommended stream count must be 1 to 32: Invalid argument." \
	ctl1 limits set rcmd 0
check "limits set: max 33 is EINVAL" 2 \
	"Error: maximum stream count must be 1 to 32: Invalid argument." \
	ctl1 limits set max 33
check "limits set: driver 2 is EINVAL" 2 \
	"Error: unknown driver: Invalid argument." ctl1 limits set driver 2
check "limits set: nothing to set is EINVAL" 2 \
	"Error: no limit to set: Invalid argument." ctl1 limits set
check "limits set: one bad value and nothing changes" 2 \
	"Error: maximum stream count must be 1 to 32: Invalid argument." \
	ctl1 limits set rcmd 3 max 99
check "limits show: unchanged by the failed requests" 0 \
	"rcmd 2 max 12 driver round-robin" ctl1 limits show
! ip netns exec "$ns1" sysctl -q -w net.psock.rcmd_stream_cnt=33 2>/dev/null
tap_result $? "sysctl: rcmd_stream_cnt=33 refused too (the same range)"
check "limits: $ns2 keeps its defaults" 0 "rcmd 4 max 16 driver poll-all" \
	ctl2 limits show
check "limits set: one value" 0 "" ctl1 limits set rcmd 4
check "limits show: only that one changed" 0 "rcmd 4 max 12 driver round-robin" \
	ctl1 limits show

# ---- counters ----

# One PSOCK connection over loopback in namespace $1 (to 127.0.0.1, or
# to $2): 100 KB sent, read, both ends closed.
psock_conn() {
	ip netns exec "$1" python3 - "${2:-127.0.0.1}" <<'EOF'
import socket, sys
fam = socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET
ls = socket.socket(fam, socket.SOCK_STREAM, 259)
ls.bind((sys.argv[1], 0))
ls.listen()
c = socket.socket(fam, socket.SOCK_STREAM, 259)
c.connect(ls.getsockname())
a, _ = ls.accept()
c.sendall(b"x" * 100000)
got = 0
while got < 100000:
    got += len(a.recv(65536))
c.close()
a.close()
ls.close()
EOF
}
psock_conn "$ns1"
tap_result $? "counters: a PSOCK connection over loopback in $ns1"

# /proc/net/psock's two lines as "Name value" lines.
proc_counters() {
	ip netns exec "$1" awk '
		NR == 1 { for (i = 2; i <= NF; i++) n[i] = $i }
		NR == 2 { for (i = 2; i <= NF; i++) print n[i], $i }' /proc/net/psock
}
stats_counters() {
	"$HICNCTL" -n "$1" psock stats | awk '{ print $1, $2 }'
}
check "stats: the same counters as /proc/net/psock" 0 \
	"$(proc_counters "$ns1")" stats_counters "$ns1"
check "stats: ActiveOpens and PassiveOpens counted the connection" 0 \
	"ActiveOpens 1
PassiveOpens 1" eval "stats_counters $ns1 | grep -E '^(Active|Passive)Opens'"
check "stats: $ns2's counters are its own (all zero)" 0 \
	"$(proc_counters "$ns2")" stats_counters "$ns2"
"$HICNCTL" -j -n "$ns1" psock stats | python3 -m json.tool >/dev/null
tap_result $? "stats -j: python3 -m json.tool parses it"

# ---- events ----

# Monitors in ns2 (text and JSON) and in ns1 while ns2 makes a connection:
# both ends are in ns2, 4 subflows each (the default recommended count),
# so 8 established and, once both ends closed, 8 closed events.
mon=$(mktemp -d)
"$HICNCTL" -n "$ns2" psock monitor > "$mon/ns2" 2>&1 &
mon_pids=$!
"$HICNCTL" -j -n "$ns2" psock monitor > "$mon/ns2.json" 2>&1 &
mon_pids="$mon_pids $!"
"$HICNCTL" -n "$ns1" psock monitor > "$mon/ns1" 2>&1 &
mon_pids="$mon_pids $!"
sleep 1
psock_conn "$ns2"
tap_result $? "events: a PSOCK connection over loopback in $ns2"

count() { grep -c -E "$1" "$2"; }
wait_count() {		# wait_count N REGEX FILE: up to 30 s
	local i
	for i in $(seq 30); do
		[ "$(count "$2" "$3")" -ge "$1" ] && return 0
		sleep 1
	done
	return 1
}
sf_re='index [0-3] 127[.]0[.]0[.]1:[0-9]+ -> 127[.]0[.]0[.]1:[0-9]+'
wait_count 8 '^\[subflow-closed\]' "$mon/ns2"
wait_count 8 '"event":"subflow-closed"' "$mon/ns2.json"
sleep 1
# shellcheck disable=SC2086
kill $mon_pids 2>/dev/null
wait 2>/dev/null
check "events: 8 subflow-established, addresses and ports" 0 8 \
	count "^\\[subflow-established\\] $sf_re\$" "$mon/ns2"
check "events: 8 subflow-closed, error 0" 0 8 \
	count "^\\[subflow-closed\\] $sf_re error 0\$" "$mon/ns2"
check "events: nothing else" 0 16 count . "$mon/ns2"
python3 -c '
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
print(sum(e["event"] == "subflow-established" for e in ev),
      sum(e["event"] == "subflow-closed" for e in ev))' "$mon/ns2.json" > "$mon/json.count" 2>&1
check "events -j: one JSON object per event, 8 and 8" 0 "8 8" cat "$mon/json.count"
check "events: $ns1's monitor saw nothing of $ns2" 0 "" cat "$mon/ns1"
[ "$(count . "$mon/ns2")" = 16 ] || sed 's/^/#   /' "$mon/ns2"
rm -rf "$mon"

# The same over IPv6: text prints [address]:port, as psock show does;
# JSON the address alone, the port apart.
mon=$(mktemp -d)
"$HICNCTL" -n "$ns2" psock monitor > "$mon/ns2" 2>&1 &
mon_pids=$!
"$HICNCTL" -j -n "$ns2" psock monitor > "$mon/ns2.json" 2>&1 &
mon_pids="$mon_pids $!"
sleep 1
psock_conn "$ns2" ::1
tap_result $? "events: a PSOCK connection over IPv6 loopback in $ns2"
wait_count 8 '^\[subflow-closed\]' "$mon/ns2"
wait_count 8 '"event":"subflow-closed"' "$mon/ns2.json"
sleep 1
# shellcheck disable=SC2086
kill $mon_pids 2>/dev/null
wait 2>/dev/null
sf6_re='index [0-3] \[::1\]:[0-9]+ -> \[::1\]:[0-9]+'
check "events over IPv6: 8 subflow-established, [::1]:port" 0 8 \
	count "^\\[subflow-established\\] $sf6_re\$" "$mon/ns2"
check "events over IPv6: 8 subflow-closed, [::1]:port, error 0" 0 8 \
	count "^\\[subflow-closed\\] $sf6_re error 0\$" "$mon/ns2"
check "events -j over IPv6: 16, the address without brackets" 0 16 \
	count '"saddr":"::1","sport":[0-9]+,"daddr":"::1","dport":[0-9]+' "$mon/ns2.json"
[ "$(count . "$mon/ns2")" = 16 ] || sed 's/^/#   /' "$mon/ns2"
rm -rf "$mon"

# Events lost: "psock monitor" and "monitor" (whose child follows psock)
# are stopped (SIGSTOP) while connections of 32 subflows a side come and
# go in $ns2, until the receive buffers of their sockets overran: the
# Drops of /proc/net/netlink.  Before that each buffer held over 1 MiB
# (libhcn asks for 1 MiB, SO_RCVBUFFORCE as root: the kernel doubles it;
# net.core.rmem_max's default would cap it near 416 KiB).  Once going
# again each monitor must say the events were lost and go on: the next
# connection's events are printed.
flood_conns() {		# flood_conns N: N connections, 32 subflows a side
	ip netns exec "$ns2" timeout 120 python3 - "$1" <<'EOF'
import socket, sys
ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 259)
for o in (1, 2):	# PSOCK_RCMD_STREAM_CNT, PSOCK_MAX_STREAM_CNT
    ls.setsockopt(301, o, 32)
ls.bind(("127.0.0.1", 0))
ls.listen(64)
for i in range(int(sys.argv[1])):
    c = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 259)
    for o in (1, 2):
        c.setsockopt(301, o, 32)
    c.connect(ls.getsockname())
    a, _ = ls.accept()
    c.sendall(b"x" * 100000)
    got = 0
    while got < 100000:
        got += len(a.recv(65536))
    c.close()
    a.close()
EOF
}
# nl_stat PID...: the most Rmem and Drops of their netlink sockets in $ns2.
nl_stat() {
	local p inodes=
	for p; do
		inodes+=" $(ls -l "/proc/$p/fd" 2>/dev/null |
			sed -n 's/.*socket:\[\([0-9]*\)\]$/\1/p' | tr '\n' ' ')"
	done
	ip netns exec "$ns2" awk -v inodes="$inodes" '
		BEGIN { n = split(inodes, a, " "); for (i = 1; i <= n; i++) want[a[i]] = 1 }
		NR > 1 && ($10 in want) { if ($5 > r) r = $5; if ($9 > d) d = $9 }
		END { print r + 0, d + 0 }' /proc/net/netlink
}
flood=$(mktemp -d)
"$HICNCTL" -n "$ns2" psock monitor > "$flood/psock" 2> "$flood/psock.err" &
fl_psock=$!
"$HICNCTL" -n "$ns2" monitor > "$flood/both" 2> "$flood/both.err" &
fl_both=$!
sleep 1
fl_child=$(pgrep -P $fl_both)
FLOOD_PIDS="$fl_psock $fl_both $fl_child"
# shellcheck disable=SC2086
kill -STOP $FLOOD_PIDS
fl_n=0
for i in $(seq 20); do
	flood_conns 10
	fl_n=$((fl_n + 10))
	read -r a_rmem a_drops < <(nl_stat $fl_psock)
	read -r b_rmem b_drops < <(nl_stat $fl_both $fl_child)
	[ "$a_drops" -gt 0 ] && [ "$b_drops" -gt 0 ] && break
done
echo "# after $fl_n connections: psock monitor Rmem $a_rmem Drops $a_drops, monitor Rmem $b_rmem Drops $b_drops"
[ "$a_drops" -gt 0 ] && [ "$b_drops" -gt 0 ]
tap_result $? "events lost: both stopped monitors' sockets overran ($fl_n connections)"
[ "$a_rmem" -gt 1048576 ] && [ "$b_rmem" -gt 1048576 ]
tap_result $? "events lost: each socket held over 1 MiB first (Rmem $a_rmem and $b_rmem)"
# The flood's sockets gone (closes finish in the background): none of
# their events comes after the monitors start again.
for i in $(seq 100); do
	[ "$("$HICNCTL" -n "$ns2" psock show all | wc -l)" = 1 ] && break
	sleep 0.1
done
# shellcheck disable=SC2086
kill -CONT $FLOOD_PIDS
LOST_PSOCK='Warning: "psock" events lost (receive buffer overrun).'
for i in $(seq 100); do
	grep -q -x -F "$LOST_PSOCK" "$flood/psock.err" &&
		grep -q -x -F "$LOST_PSOCK" "$flood/both.err" && break
	sleep 0.1
done
sleep 1
a_lines=$(count . "$flood/psock")
b_lines=$(count . "$flood/both")
psock_conn "$ns2"
wait_count $((a_lines + 8)) '^\[subflow-closed\]' "$flood/psock"
wait_count $((b_lines + 8)) '^\[subflow-closed\]' "$flood/both"
sleep 1
# after_loss PID OUT ERR LINES: PID runs, ERR is the warning alone, OUT
# has the next connection's 8 and 8 events after its first LINES.
after_loss() {
	kill -0 "$1" 2>/dev/null && [ "$(cat "$3")" = "$LOST_PSOCK" ] &&
		[ "$(tail -n +$(($4 + 1)) "$2" | grep -c -E "^\\[subflow-(established|closed)\\] $sf_re")" = 16 ] &&
		return 0
	echo "# $(kill -0 "$1" 2>/dev/null && echo running || echo exited)"
	sed 's/^/# stderr: /' "$3"
	tail -n +$(($4 + 1)) "$2" | sed 's/^/# stdout: /'
	return 1
}
after_loss $fl_psock "$flood/psock" "$flood/psock.err" "$a_lines"
tap_result $? "events lost: psock monitor said so on stderr, went on, printed the next connection's 16 events"
after_loss $fl_both "$flood/both" "$flood/both.err" "$b_lines"
tap_result $? "events lost: monitor said so on stderr, went on, printed the next connection's 16 events"
kill $fl_psock $fl_both 2>/dev/null
wait 2>/dev/null
FLOOD_PIDS=
rm -rf "$flood"

# ---- permissions ----

nobody() {
	ip netns exec "$ns1" setpriv --reuid nobody --regid nogroup \
		--clear-groups --inh-caps=-all --bounding-set=-all "$@"
}
ctl1 endpoint add 10.0.3.1 id 3
check "nobody: endpoint show works" 0 "10.0.3.1 id 3" \
	nobody "$HICNCTL" psock endpoint show
check "nobody: limits show works" 0 "rcmd 4 max 12 driver round-robin" \
	nobody "$HICNCTL" psock limits show
nobody "$HICNCTL" psock stats >/dev/null
tap_result $? "nobody: stats works"

# ---- show: the sockets through sock_diag ----

# A listener on 127.0.0.1:5099 and a 2-subflow connection to it, held
# open until $show/stop exists; the client's socket has SO_MARK 42, which
# its subflows copy (the server's have none).
show=$(mktemp -d)
ip netns exec "$ns1" python3 - "$show" <<'EOF2' &
import os, socket, sys, time
ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 259)
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("127.0.0.1", 5099))
ls.listen()
c = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 259)
c.setsockopt(301, 1, 2)		# PSOCK_RCMD_STREAM_CNT
c.setsockopt(301, 2, 2)		# PSOCK_MAX_STREAM_CNT
c.setsockopt(socket.SOL_SOCKET, socket.SO_MARK, 42)	# its subflows' too
c.connect(ls.getsockname())
a, _ = ls.accept()
c.sendall(b"x" * 1000)
got = 0
while got < 1000:
    got += len(a.recv(65536))
open(sys.argv[1] + "/up", "w").close()
for i in range(600):
    if os.path.exists(sys.argv[1] + "/stop"):
        break
    time.sleep(0.1)
EOF2
show_pid=$!
# Both ends up with both subflows: 2 subflow lines each, within 30 s.
for i in $(seq 300); do
	[ -e "$show/up" ] &&
		[ "$(ctl1 show subflows | grep -c 'subflow [01] ESTAB')" = 4 ] && break
	sleep 0.1
done
show_cols() { "$HICNCTL" -n "$ns1" psock show "$@" | awk 'NR > 1 { print $1, $4, $5 }'; }
check "show listening: the listener" 0 "LISTEN 127.0.0.1:5099 0.0.0.0:0" show_cols listening
check "show sport 5099: the server's end, established" 0 "ESTAB 127.0.0.1:5099 127.0.0.1:$(ctl1 show dport 5099 | awk 'NR == 2 { sub(/.*:/, "", $4); print $4 }')" \
	show_cols sport 5099
check "show inet6: no IPv6 socket" 0 "" show_cols inet6
check "show all: three sockets" 0 3 \
	eval "ctl1 show all | grep -c -E '^(LISTEN|ESTAB) '"
check "show subflows: 2 subflows and 2 streams on each end" 0 \
"subflows 2 streams 2
subflows 2 streams 2" eval "ctl1 show | grep -o 'subflows 2 streams 2'"
check "show subflows: each subflow, established, to or from port 5099" 0 4 \
	eval "ctl1 show subflows | grep -c -E 'subflow [01] ESTAB .*127.0.0.1:5099'"
"$HICNCTL" -j -n "$ns1" psock show all subflows | python3 -c '
import json, sys
s = json.load(sys.stdin)
assert len(s) == 3, s
assert sorted(len(x.get("subflow_list", [])) for x in s) == [0, 2, 2], s
marks = [f.get("mark", 0) for x in s for f in x.get("subflow_list", [])]
assert sorted(marks) == [0, 0, 42, 42], marks'
tap_result $? "show -j: three sockets, the connection's with 2 subflows each, the client's with mark 42"
check "show subflows: the client's 2 subflows show its mark, the server's none" 0 \
"2 2" eval "echo \$(ctl1 show subflows | grep -c -E 'subflow [01] ESTAB .* mark 0x2a\$') \
	\$(ctl1 show subflows | grep -c mark)"
check "nobody: show all sees the same three" 0 3 \
	eval "nobody $HICNCTL psock show all | grep -c -E '^(LISTEN|ESTAB) '"
check "nobody: show subflows, the 4 subflows without marks (CAP_NET_ADMIN only)" 0 \
"4 0" eval "echo \$(nobody $HICNCTL psock show subflows | grep -c -E 'subflow [01] ESTAB') \
	\$(nobody $HICNCTL psock show subflows | grep -c mark)"
check "show in $ns2: nothing, only the header" 0 1 \
	eval "$HICNCTL -n $ns2 psock show all | wc -l"
touch "$show/stop"
wait "$show_pid"
for i in $(seq 100); do
	[ "$(ctl1 show all | wc -l)" = 1 ] && break
	sleep 0.1
done
check "show all: closed sockets are gone" 0 1 eval "ctl1 show all | wc -l"
rm -rf "$show"
check "nobody: endpoint add is EPERM" 2 "Error: Operation not permitted." \
	nobody "$HICNCTL" psock endpoint add 10.0.3.2
check "nobody: endpoint delete is EPERM" 2 "Error: Operation not permitted." \
	nobody "$HICNCTL" psock endpoint delete id 3
check "nobody: endpoint flush is EPERM" 2 "Error: Operation not permitted." \
	nobody "$HICNCTL" psock endpoint flush
check "nobody: limits set is EPERM" 2 "Error: Operation not permitted." \
	nobody "$HICNCTL" psock limits set rcmd 1
check "nobody: nothing changed" 0 "10.0.3.1 id 3
rcmd 4 max 12 driver round-robin" \
	eval "ctl1 endpoint show; ctl1 limits show"

# Root of a new user namespace owns a new network namespace: it may change
# that one, not the one it came from.
check "unshare -Urn: root of the user namespace configures its own netns" 0 \
"10.0.4.1 id 1
rcmd 3 max 16 driver poll-all" \
	nobody unshare -Urn sh -c "$HICNCTL psock endpoint add 10.0.4.1 &&
		$HICNCTL psock endpoint show &&
		$HICNCTL psock limits set rcmd 3 && $HICNCTL psock limits show"
check "unshare -Ur: root of a user namespace cannot change $ns1" 2 \
	"Error: Operation not permitted." \
	nobody unshare -Ur "$HICNCTL" psock endpoint add 10.0.4.1
check "unshare -Ur: and can read it" 0 "10.0.3.1 id 3" \
	nobody unshare -Ur "$HICNCTL" psock endpoint show
ctl1 endpoint flush

# ---- the kernel's YNL client, driven by our spec ----

# One client for every request (ynl_lib.sh): a Python start costs seconds.
. ../lib/ynl_lib.sh
if ynl_tap_start "$ns1" "$SPEC"; then
	check "ynl: limits-get" 0 \
		'{"rcmd-stream-cnt": 4, "max-stream-cnt": 12, "driver": 1}' \
		ynl --do limits-get
	check "ynl: endpoint-add (10.0.5.1 as a big-endian u32)" 0 '{"id": 1}' \
		ynl --do endpoint-add \
		--json '{"family": 2, "addr4": 167773441, "flags": 2}'
	# ynl decodes the flags by the spec's names.
	check "ynl: endpoint-get" 0 \
		'{"id": 1, "family": 2, "ifindex": 0, "flags": ["subflow"], "addr4": 167773441}' \
		ynl --do endpoint-get --json '{"id": 1}'
	check "ynl: endpoint-get dump" 0 \
		'[{"id": 1, "family": 2, "ifindex": 0, "flags": ["subflow"], "addr4": 167773441}]' \
		ynl --dump endpoint-get
	check "hicnctl reads what ynl wrote" 0 "10.0.5.1 id 1 subflow" \
		ctl1 endpoint show
	ynl --do endpoint-del --json '{}' 2>&1 | grep -q "missing endpoint id"
	tap_result $? "ynl: endpoint-del without id: EINVAL, \"missing endpoint id\""
	ynl --do endpoint-add --json '{"family": 2}' 2>&1 |
		grep -q "missing IPv4 address"
	tap_result $? "ynl: endpoint-add without the address: \"missing IPv4 address\""
	ynl --do endpoint-add --json '{"family": 10, "addr4": 167773442}' 2>&1 |
		grep -q "IPv4 address with family AF_INET6"
	tap_result $? "ynl: endpoint-add of addr4 with AF_INET6 is refused"
	ynl --do endpoint-add \
		--json '{"family": 2, "addr4": 167773442, "ifindex": 9999}' 2>&1 |
		grep -q "no interface with this index"
	tap_result $? "ynl: endpoint-add on a missing ifindex: \"no interface with this index\""
	ynl --do endpoint-add --json '{"family": 2, "addr4": 167773442, "flags": 4}' \
		>/dev/null 2>&1
	[ $? -ne 0 ]
	tap_result $? "ynl: an unknown endpoint flag is refused by the policy"
	ynl --do endpoint-add --json '{"family": 2, "addr4": 167773442, "id": 0}' 2>&1 |
		grep -q "integer out of range"
	tap_result $? "ynl: endpoint-add with id 0: the policy's \"integer out of range\""
	# As many as /proc/net/psock names on its PsockExt line.
	ncounters=$(awk '/^PsockExt:/ { print NF - 1; exit }' /proc/net/psock)
	check "ynl: counters-get has every counter" 0 "$ncounters" \
		eval "ynl --do counters-get | grep -o '\"[a-z0-9-]*\": ' | wc -l"
	ctl1 endpoint flush
	ynl_stop
fi

tap_done
