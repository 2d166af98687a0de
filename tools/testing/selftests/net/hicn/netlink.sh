#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The "hicn" generic netlink family through hicnctl (golden output of
# every command, as psock/netlink.sh does for "psock") and through the
# kernel's own YNL client (tools/net/ynl/cli.py) driven by our spec, so
# that Documentation/netlink/specs/hicn.yaml is proven to match the
# kernel.
#
#   ns1: producers, consumers, monitors,   ns2: a monitor and its own
#        listeners on lo (127.0.0.1,            (empty) tables
#        ::1), UDP faces to peers that
#        need not exist, routes
#   ns3: a monitor, a UDP face to ns4     ns4: the face's peer, whose end
#        over a veth pair, its routes          of the veth goes down and up
#
# AF_HICN sockets are made from Python through ctypes (libc's socket(),
# bind(), sendto(), connect(), recv()), so the test needs no helper
# program.  Errors: the kernel's errno and extack message, as hicnctl
# prints them ("Error: <extack>: <strerror>.", exit status 2).
# Permissions: nobody can show but not change; root of a user namespace
# that owns the network namespace can change it, but cannot raise its
# netns-wide limits above the initial namespace's, through netlink as
# through the sysctls.

cd "$(dirname "$0")" || exit 1
. ../lib/tap_lib.sh

TOP=$(cd ../../../../.. && pwd)
HICNCTL=$TOP/userspace/hicnctl/hicnctl
KSRC=${KSRC:-$TOP/.cache/ksrc}
SPEC=$TOP/Documentation/netlink/specs/hicn.yaml

ns1=hnl1-$$
ns2=hnl2-$$
ns3=hnl3-$$
ns4=hnl4-$$
tmp=$(mktemp -d)
pids=

cleanup() {
	rm -f "$tmp"/run.*
	# shellcheck disable=SC2086
	[ -n "$pids" ] && kill $pids 2>/dev/null
	wait 2>/dev/null
	ip netns del "$ns1" 2>/dev/null
	ip netns del "$ns2" 2>/dev/null
	ip netns del "$ns3" 2>/dev/null
	ip netns del "$ns4" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

ip netns add "$ns1" && ip netns add "$ns2" &&
	ip -n "$ns1" link set lo up && ip -n "$ns2" link set lo up
tap_result $? "set-up: two namespaces"

ctl1() { "$HICNCTL" -n "$ns1" hicn "$@"; }
ctl2() { "$HICNCTL" -n "$ns2" hicn "$@"; }

# AF_HICN from Python: hicn_py NS CODE runs CODE in NS after these helpers.
HICN_PY='
import ctypes, os, socket, struct, sys, time
libc = ctypes.CDLL(None, use_errno=True)
AF = int(open("/sys/module/hicn/parameters/family").read())
SOCK_CONS, SOCK_PROD, CONS_REL, PROD_REL = 7, 8, 1, 3
SOL_HICN, HICN_PACKET_SIZE, HICN_CONTENT_EXPIRY = 300, 1, 2
def addr(name, plen, ver=0):
    return struct.pack("=HBBI16s8s", AF, plen, 0, ver,
                       socket.inet_pton(socket.AF_INET6, name), bytes(8))
def chk(r):
    if r < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    return r
def producer(prefix, plen, seg=1500):
    fd = chk(libc.socket(AF, SOCK_PROD, PROD_REL))
    v = ctypes.c_int(seg)
    chk(libc.setsockopt(fd, SOL_HICN, HICN_PACKET_SIZE, ctypes.byref(v), 4))
    a = addr(prefix, plen)
    chk(libc.bind(fd, a, len(a)))
    return fd
def expiry(fd, ms):
    v = ctypes.c_int(ms)
    chk(libc.setsockopt(fd, SOL_HICN, HICN_CONTENT_EXPIRY, ctypes.byref(v), 4))
def publish(fd, name, data):
    a = addr(name, 128)
    chk(libc.sendto(fd, data, len(data), 0, a, len(a)))
def fetch(name):
    fd = chk(libc.socket(AF, SOCK_CONS, CONS_REL))
    a = addr(name, 128)
    chk(libc.connect(fd, a, len(a)))
    buf = ctypes.create_string_buffer(65536)
    total = 0
    while True:
        n = chk(libc.recv(fd, buf, 65536, 0))
        if n == 0:
            break
        total += n
    libc.close(fd)
    return total
def hold(flag):
    open(flag + ".up", "w").close()
    while os.path.exists(flag):
        time.sleep(0.1)
'
hicn_py() {
	local ns=$1
	shift
	ip netns exec "$ns" python3 -c "$HICN_PY
$*"
}

# Starts a producer in ns1 that runs CODE, then holds its sockets until
# stop_producer NAME.
declare -A prod_pid
start_producer() {
	local name=$1 i
	shift
	: > "$tmp/run.$name"
	hicn_py "$ns1" "$*
hold('$tmp/run.$name')" &
	prod_pid[$name]=$!
	pids="$pids $!"
	for i in $(seq 100); do
		[ -f "$tmp/run.$name.up" ] && return 0
		sleep 0.1
	done
	return 1
}
stop_producer() {
	rm -f "$tmp/run.$1"
	wait "${prod_pid[$1]}"
}

# ---- help ----

check "help: hicnctl help has the 20 hicn commands" 0 20 \
	eval "\"$HICNCTL\" help | grep -c '^       hicnctl hicn '"
check "help: hicnctl hicn help, the same grammar" 0 20 \
	eval "\"$HICNCTL\" hicn help 2>&1 | grep -c 'hicnctl hicn '"
check "help: an unknown hicn object is a usage error" 1 \
	'Error: object "hicn foo" is unknown, try "hicnctl hicn help".' \
	ctl1 foo
check "help: hicnctl help has hicnctl monitor" 0 1 \
	eval "\"$HICNCTL\" help | grep -c '^       hicnctl \[ OPTIONS \] monitor\$'"
check "help: an unknown object is a usage error" 1 \
	'Error: object "foo" is unknown, try "hicnctl help".' \
	"$HICNCTL" -n "$ns1" foo
check "help: psock's objects need psock (hicnctl endpoint)" 1 \
	'Error: object "endpoint" is unknown, try "hicnctl help".' \
	"$HICNCTL" -n "$ns1" endpoint show

# ---- empty tables ----

check "namespace show: none at first" 0 "" ctl1 namespace show
check "cs show: empty, default capacity" 0 \
	"entries 0 bytes 0 capacity 65536 mem 67108864 hits 0 misses 0 evictions 0" \
	ctl1 cs show
check "cs entries: none" 0 "" ctl1 cs entries
check "pit show: empty, default limits" 0 \
	"entries 0 max 65536 aggregated 0 drops 0 expired 0 user-max 16384 user-drops 0" \
	ctl1 pit show
LIMITS_DEFAULT="pit-max 65536 cs-max-entries 65536 cs-mem-max 67108864 prod-mem-max 536870912 unprivileged-prefix-min 64 pit-user-max 16384 prod-user-mem-max 268435456"
check "limits show: the sysctls' defaults" 0 "$LIMITS_DEFAULT" ctl1 limits show
check "limits show -j" 0 \
	'{"pit-max":65536,"cs-max-entries":65536,"cs-mem-max":67108864,"prod-mem-max":536870912,"unprivileged-prefix-min":64,"pit-user-max":16384,"prod-user-mem-max":268435456}' \
	"$HICNCTL" -j -n "$ns1" hicn limits show

# ---- events and namespaces ----

"$HICNCTL" -n "$ns1" hicn monitor > "$tmp/mon1" 2>&1 &
mon_pids=$!
"$HICNCTL" -j -n "$ns1" hicn monitor > "$tmp/mon1.json" 2>&1 &
mon_pids="$mon_pids $!"
"$HICNCTL" -n "$ns2" hicn monitor > "$tmp/mon2" 2>&1 &
mon_pids="$mon_pids $!"
# hicnctl monitor: both families' events, hicn's and psock's (stderr
# apart: it must say nothing).
"$HICNCTL" -n "$ns1" monitor > "$tmp/mon.all" 2> "$tmp/mon.all.err" &
mon_pids="$mon_pids $!"
"$HICNCTL" -j -n "$ns1" monitor > "$tmp/mon.all.json" 2>&1 &
mon_pids="$mon_pids $!"
pids="$pids $mon_pids"
sleep 1

# Producer A claims b001:a:b:c::/64 and publishes 3000 segments of 64
# bytes under ::1, kept until it closes (expiry 0: the debug kernel takes
# longer than 60 s from the first look at the store to the last), and 5
# bytes under ::2 that expire, in 10 minutes (the debug kernel saw the
# default 60 s run out before its last look); producer B claims
# b002::/48.
start_producer A "
p = producer('b001:a:b:c::', 64, 64)
expiry(p, 0)
publish(p, 'b001:a:b:c::1', b'x' * (3000 * 64))
expiry(p, 600000)
publish(p, 'b001:a:b:c::2', b'hello')"
tap_result $? "producer A: b001:a:b:c::/64 claimed, two objects published"
start_producer B "q = producer('b002::', 48)"
tap_result $? "producer B: b002::/48 claimed"

# The producers' inodes and face ids, from /proc/net/hicn and hicn_fib.
ino_of() {
	ip netns exec "$ns1" awk -v p="$1" '$5 == p { print $1 }' /proc/net/hicn
}
face_of() {
	ip netns exec "$ns1" awk -v p="$1" '$1 == p { print $2 }' /proc/net/hicn_fib
}
inoA=$(ino_of b001:a:b:c::/64)
inoB=$(ino_of b002::/48)
faceA=$(face_of b001:a:b:c::/64)
faceB=$(face_of b002::/48)
nsA="b001:a:b:c::/64 uid 0 inode $inoA face $faceA names 2 versions 2"
nsB="b002::/48 uid 0 inode $inoB face $faceB names 0 versions 0 mem 0"
ns_show() { ctl1 namespace show "$@" | sed 's/ mem [1-9][0-9]*$/ mem N/'; }
check "namespace show: both claims, owner, inode, face, what they hold" 0 \
"$nsA mem N
$nsB" ns_show
check "namespace show prefix: one claim" 0 "$nsB" ns_show prefix b002::/48
check "namespace show prefix: host bits are ignored" 0 "$nsB" \
	ns_show prefix b002::1/48
check "namespace show prefix: a shorter prefix is not the claim (ENOENT)" 2 \
	"Error: no namespace claimed with this prefix: No such file or directory." \
	ctl1 namespace show prefix b002::/47
check "namespace show prefix: length 129 is EINVAL" 2 \
	"Error: prefix length over 128: Invalid argument." \
	ctl1 namespace show prefix b002::/129
check "namespace show prefix: a bad prefix is a usage error" 1 \
	'Error: "b002::" is not a prefix (ADDRESS/LENGTH).' \
	ctl1 namespace show prefix b002::
"$HICNCTL" -j -n "$ns1" hicn namespace show | python3 -m json.tool >/dev/null
tap_result $? "namespace show -j: python3 -m json.tool parses it"
check "namespace show: $ns2 sees none of $ns1's claims" 0 "" \
	ctl2 namespace show

# hicn's objects without "hicn": the same requests, the same output.
hicnctl1() { "$HICNCTL" -n "$ns1" "$@"; }
check "hicnctl namespace show is hicnctl hicn namespace show" 0 \
	"$(ctl1 namespace show)" hicnctl1 namespace show
check "hicnctl namespace (show by default), -j" 0 \
	"$("$HICNCTL" -j -n "$ns1" hicn namespace show)" \
	"$HICNCTL" -j -n "$ns1" namespace
check "hicnctl namespace show prefix: one claim" 0 \
	"$(ctl1 namespace show prefix b002::/48)" \
	hicnctl1 namespace show prefix b002::/48
check "hicnctl n (a prefix): namespace show" 0 \
	"$(ctl1 namespace show)" hicnctl1 n
check "hicnctl namespace show prefix: ENOENT as with hicn" 2 \
	"Error: no namespace claimed with this prefix: No such file or directory." \
	hicnctl1 namespace show prefix b002::/47

# ---- the content store ----

hicn_py "$ns1" "
assert fetch('b001:a:b:c::1') == 3000 * 64
assert fetch('b001:a:b:c::2') == 5"
tap_result $? "consumer: both objects fetched through the forwarder"

cs_entries() { ctl1 cs show | awk '{ print $2 }'; }
check "cs show: 3001 entries cached" 0 3001 cs_entries
ctl1 cs entries > "$tmp/entries"
tap_result $? "cs entries: a dump of 3001 entries"
check "cs entries: every entry once (a dump of many messages resumed)" 0 \
	"3001 3001" eval "echo \$(wc -l < $tmp/entries) \$(sort -u $tmp/entries | wc -l)"
check "cs entries: the 3000 segments of ::1, 0 to 2999, none expiring" 0 "3000 0 2999" \
	eval "grep '^b001:a:b:c::1 version 1 segment' $tmp/entries |
		sed 's/.* segment \([0-9]*\)\/2999 size 64 object 192000$/\1/' |
		sort -n | awk 'NR == 1 { f = \$1 } { n++; l = \$1 } END { print n, f, l }'"
check "cs entries prefix: only ::2's entry" 0 \
	"b001:a:b:c::2 version 1 segment 0/0 size 5 object 5 expires Nms" \
	eval "ctl1 cs entries prefix b001:a:b:c::2/128 | sed 's/expires [0-9]*ms/expires Nms/'"
check "cs entries prefix: nothing under b002::/16" 0 "" \
	ctl1 cs entries prefix b002::/16
check "cs entries -j: 3001 JSON objects" 0 3001 \
	eval "\"$HICNCTL\" -j -n $ns1 hicn cs entries |
		python3 -c 'import json, sys; print(len(json.load(sys.stdin)))'"
check "cs entries prefix: length 200 is EINVAL" 2 \
	"Error: prefix length over 128: Invalid argument." \
	ctl1 cs entries prefix b001::/200
check "cs: $ns2's store is its own (empty)" 0 "" ctl2 cs entries

check "hicnctl cs show is hicnctl hicn cs show" 0 "$(ctl1 cs show)" \
	hicnctl1 cs show
check "hicnctl cs (show by default)" 0 "$(ctl1 cs show)" hicnctl1 cs
gc_n() { sed -E 's/"gc_(runs|steps)":[0-9]+/"gc_\1":N/g'; }
check "hicnctl -j -s cs show is hicnctl -j -s hicn cs show" 0 \
	"$("$HICNCTL" -j -s -n "$ns1" hicn cs show | gc_n)" \
	eval "\"$HICNCTL\" -j -s -n $ns1 cs show | gc_n"
exp_n() { sed 's/expires [0-9]*ms/expires Nms/'; }
check "hicnctl cs entries prefix is hicnctl hicn cs entries prefix" 0 \
	"$(ctl1 cs entries prefix b001:a:b:c::2/128 | exp_n)" \
	eval "hicnctl1 cs entries prefix b001:a:b:c::2/128 | exp_n"
check "hicnctl cs flush prefix: ::2's entry" 0 "" \
	hicnctl1 cs flush prefix b001:a:b:c::2/128
check "hicnctl cs flush prefix: 3000 entries left" 0 3000 cs_entries
hicn_py "$ns1" "assert fetch('b001:a:b:c::2') == 5"
tap_result $? "consumer: ::2 fetched again"
check "cs flush prefix: ::2's entry" 0 "" ctl1 cs flush prefix b001:a:b:c::2/128
check "cs flush prefix: 3000 entries left" 0 3000 cs_entries
check "cs flush prefix: length 129 is EINVAL" 2 \
	"Error: prefix length over 128: Invalid argument." \
	ctl1 cs flush prefix b001::/129
check "cs flush prefix: the failed request flushed nothing" 0 3000 cs_entries
check "cs flush: everything" 0 "" ctl1 cs flush
check "cs flush: empty" 0 0 cs_entries

check "hicnctl cs set capacity: 200" 0 "" hicnctl1 cs set capacity 200
check "hicnctl cs set capacity: the sysctl sees it" 0 200 \
	ip netns exec "$ns1" sysctl -n net.hicn.cs_max_entries
check "hicnctl cs set: an unknown word is a usage error" 1 \
	'Error: "foo" is unknown, try "hicnctl hicn help".' \
	hicnctl1 cs set foo 1
check "cs set capacity: 100" 0 "" ctl1 cs set capacity 100
check "cs set capacity: the sysctl sees it" 0 100 \
	ip netns exec "$ns1" sysctl -n net.hicn.cs_max_entries
hicn_py "$ns1" "assert fetch('b001:a:b:c::1') == 3000 * 64"
tap_result $? "consumer: ::1 fetched again"
check "cs set capacity: the store keeps 100 entries" 0 100 cs_entries
check "cs set capacity: 0 turns the store off and empties it" 0 "0" \
	eval "ctl1 cs set capacity 0 && ctl1 cs show | awk '{ print \$2 }'"
check "cs set capacity: 2147483648 is EINVAL (the sysctl's range)" 2 \
	"Error: max-entries out of range: Invalid argument." \
	ctl1 cs set capacity 2147483648
check "cs set mem: 9223372036854775808 is EINVAL" 2 \
	"Error: mem-max out of range: Invalid argument." \
	ctl1 cs set mem 9223372036854775808
check "cs set: nothing to set is EINVAL" 2 \
	"Error: no capacity to set: Invalid argument." ctl1 cs set
check "cs set: capacity and mem" 0 "" ctl1 cs set capacity 65536 mem 1048576
check "cs show: the new capacity" 0 \
	"65536 1048576" eval "ctl1 cs show | awk '{ print \$6, \$8 }'"

# ---- limits ----

sysctl1() { ip netns exec "$ns1" sysctl -n "net.hicn.$1"; }
check "limits set: several at once" 0 "" \
	ctl1 limits set pit-max 1000 prod-mem-max 1000000 unprivileged-prefix-min 32
check "limits show: the new values" 0 \
	"pit-max 1000 cs-max-entries 65536 cs-mem-max 1048576 prod-mem-max 1000000 unprivileged-prefix-min 32 pit-user-max 16384 prod-user-mem-max 268435456" \
	ctl1 limits show
check "limits set: the sysctls see them" 0 "1000 1000000 32" \
	eval 'echo $(sysctl1 pit_max) $(sysctl1 prod_mem_max) $(sysctl1 unprivileged_prefix_min)'
ip netns exec "$ns1" sysctl -q -w net.hicn.pit_user_max=99
check "limits show: a sysctl write is seen" 0 99 \
	eval "ctl1 limits show | sed 's/.*pit-user-max \([0-9]*\).*/\1/'"
check "limits set: pit-user-max 0 is EINVAL, as for the sysctl" 2 \
	"Error: pit-user-max out of range: Invalid argument." \
	ctl1 limits set pit-user-max 0
! ip netns exec "$ns1" sysctl -q -w net.hicn.pit_user_max=0 2>/dev/null
tap_result $? "sysctl: pit_user_max=0 refused too"
check "limits set: unprivileged-prefix-min 129 is EINVAL" 2 \
	"Error: unprivileged-prefix-min out of range: Invalid argument." \
	ctl1 limits set unprivileged-prefix-min 129
check "limits set: pit-max 2147483648 is EINVAL" 2 \
	"Error: pit-max out of range: Invalid argument." \
	ctl1 limits set pit-max 2147483648
check "limits set: prod-user-mem-max 2^63 is EINVAL" 2 \
	"Error: prod-user-mem-max out of range: Invalid argument." \
	ctl1 limits set prod-user-mem-max 9223372036854775808
check "limits set: nothing to set is EINVAL" 2 \
	"Error: no limit to set: Invalid argument." ctl1 limits set
check "limits set: one bad value and nothing changes" 2 \
	"Error: cs-max-entries out of range: Invalid argument." \
	ctl1 limits set pit-max 5 cs-max-entries 4294967295
check "limits set: an unknown limit is a usage error" 1 \
	'Error: "foo" is unknown, try "hicnctl hicn help".' \
	ctl1 limits set foo 1
check "limits show: unchanged by the failed requests" 0 \
	"pit-max 1000 cs-max-entries 65536 cs-mem-max 1048576 prod-mem-max 1000000 unprivileged-prefix-min 32 pit-user-max 99 prod-user-mem-max 268435456" \
	ctl1 limits show
check "limits: $ns2 keeps its defaults" 0 "$LIMITS_DEFAULT" ctl2 limits show
check "hicnctl limits show is hicn's limits, not psock's" 0 \
	"$(ctl1 limits show)" hicnctl1 limits show
check "hicnctl l (a prefix): limits show, as hicnctl hicn l" 0 \
	"$(ctl1 limits show)" hicnctl1 l
check "hicnctl limits set: pit-max 1001, then back to 1000" 0 \
	"pit-max 1001 pit-max 1000" \
	eval "hicnctl1 limits set pit-max 1001 && a=\$(hicnctl1 limits show | cut -d' ' -f1-2) &&
		hicnctl1 limits set pit-max 1000 && echo \$a \$(ctl1 limits show | cut -d' ' -f1-2)"

# ---- counters ----

# The counters move while a table is not empty (the collector): compare
# once the store is empty and the collector stopped.
ctl1 cs flush
sleep 1
stats_same() {
	local i
	for i in 1 2 3; do
		ctl1 stats > "$tmp/stats"
		ip netns exec "$ns1" cat /proc/net/hicn_stat > "$tmp/proc"
		cmp -s "$tmp/stats" "$tmp/proc" && return 0
		sleep 1
	done
	diff "$tmp/proc" "$tmp/stats" | sed 's/^/# /'
	return 1
}
tap_check "stats: the lines of /proc/net/hicn_stat" stats_same
check "stats: fib_entries counts the two claims" 0 "fib_entries 2" \
	eval "ctl1 stats | grep ^fib_entries"
# As many as /proc/net/hicn_stat has lines.
ncounters=$(ip netns exec "$ns1" cat /proc/net/hicn_stat | wc -l)
check "stats -j: every counter" 0 "$ncounters" \
	eval "\"$HICNCTL\" -j -n $ns1 hicn stats |
		python3 -c 'import json, sys; print(len(json.load(sys.stdin)))'"
check "pit show -j" 0 \
	'{"entries":0,"max":1000,"aggregated":0,"drops":0,"expired":0,"user_max":99,"user_drops":0}' \
	"$HICNCTL" -j -n "$ns1" hicn pit show
check "hicnctl pit is hicnctl hicn pit show" 0 "$(ctl1 pit show)" hicnctl1 pit
check "hicnctl pit show -j" 0 \
	'{"entries":0,"max":1000,"aggregated":0,"drops":0,"expired":0,"user_max":99,"user_drops":0}' \
	"$HICNCTL" -j -n "$ns1" pit show
check "hicnctl stats is hicn's stats: /proc/net/hicn_stat's names" 0 \
	"$(ip netns exec "$ns1" awk '{ print $1 }' /proc/net/hicn_stat)" \
	eval "hicnctl1 stats | awk '{ print \$1 }'"

# ---- permissions ----

nobody() {
	ip netns exec "$ns1" setpriv --reuid nobody --regid nogroup \
		--clear-groups --inh-caps=-all --bounding-set=-all "$@"
}
hicnctl_nobody() { nobody "$HICNCTL" hicn "$@"; }
check "nobody: namespace show works" 0 2 \
	eval "hicnctl_nobody namespace show | wc -l"
for c in "cs show" "cs entries" "pit show" "limits show" "stats"; do
	# shellcheck disable=SC2086
	hicnctl_nobody $c >/dev/null
	tap_result $? "nobody: $c works"
done
for c in "cs set capacity 5" "cs flush" "cs flush prefix b001::/16" \
	 "limits set pit-max 5"; do
	# shellcheck disable=SC2086
	check "nobody: $c is EPERM" 2 "Error: Operation not permitted." \
		hicnctl_nobody $c
done
check "nobody: nothing changed" 0 1000 \
	eval "ctl1 limits show | awk '{ print \$2 }'"

# Root of a new user namespace owns a new network namespace: it may change
# that one, not raise its netns-wide limits above the initial namespace's
# (through netlink as through the sysctl), and not change the one it came
# from.
init_pit_max=$(sysctl -n net.hicn.pit_max)
up=$((init_pit_max + 1))
check "unshare -Urn: lowers its own pit-max, sees it" 0 "pit-max 10" \
	nobody unshare -Urn sh -c "$HICNCTL hicn limits set pit-max 10 &&
		$HICNCTL hicn limits show | cut -d' ' -f1-2"
check "unshare -Urn: pit-max above the initial namespace's is EPERM" 2 \
	"Error: pit-max above the initial namespace's limit: Operation not permitted." \
	nobody unshare -Urn "$HICNCTL" hicn limits set pit-max "$up"
check "unshare -Urn: the sysctl refuses it too" 1 "EPERM" \
	nobody unshare -Urn sh -c "echo $up > /proc/sys/net/hicn/pit_max 2>/dev/null || { echo EPERM; exit 1; }"
check "unshare -Urn: unprivileged-prefix-min has no ceiling" 0 \
	"unprivileged-prefix-min 0" \
	nobody unshare -Urn sh -c "$HICNCTL hicn limits set unprivileged-prefix-min 0 &&
		$HICNCTL hicn limits show | grep -o 'unprivileged-prefix-min [0-9]*'"
check "unshare -Urn: cs set capacity above the ceiling is EPERM" 2 \
	"Error: max-entries above the initial namespace's limit: Operation not permitted." \
	nobody unshare -Urn "$HICNCTL" hicn cs set capacity "$(( $(sysctl -n net.hicn.cs_max_entries) + 1 ))"
check "unshare -Ur: root of a user namespace cannot change $ns1" 2 \
	"Error: Operation not permitted." \
	nobody unshare -Ur "$HICNCTL" hicn limits set pit-max 5
check "unshare -Ur: and can read it" 0 2 \
	eval "nobody unshare -Ur $HICNCTL hicn namespace show | wc -l"

# ---- listeners, faces, routes, strategies ----

# An add prints the new object's id: "listener N", "face N".
id_of() {	# id_of WANT-KIND COMMAND...: the id, or nothing
	local kind=$1 out
	shift
	out=$("$@") || return 1
	[[ $out =~ ^$kind\ ([0-9]+)$ ]] && echo "${BASH_REMATCH[1]}"
}
check "listener show: none at first" 0 "" ctl1 listener show
L4=$(id_of listener ctl1 listener add 127.0.0.1)
tap_result $? "listener add 127.0.0.1: prints \"listener ID\" ($L4)"
L6=$(id_of listener ctl1 listener add ::1 port 9696 auto-faces on)
tap_result $? "listener add ::1 port 9696 auto-faces on ($L6)"
check "listener show: both, in id order" 0 \
"listener $L4 local 127.0.0.1 port 9695 auto-faces off faces 0
listener $L6 local ::1 port 9696 auto-faces on faces 0" ctl1 listener show
check "listener show ID: one" 0 \
	"listener $L6 local ::1 port 9696 auto-faces on faces 0" \
	ctl1 listener show "$L6"
check "listener show -s: the datagrams of peers without a face" 0 \
	"listener $L4 local 127.0.0.1 port 9695 auto-faces off faces 0 no-face 0" \
	"$HICNCTL" -s -n "$ns1" hicn listener show "$L4"
check "listener show -j" 0 \
	"[{\"id\":$L4,\"local\":\"127.0.0.1\",\"port\":9695,\"auto_faces\":0,\"faces\":0}]" \
	"$HICNCTL" -j -n "$ns1" hicn listener show "$L4"
"$HICNCTL" -p -n "$ns1" hicn listener show | python3 -m json.tool >/dev/null
tap_result $? "listener show -p: python3 -m json.tool parses it"
check "listener add: the same address and port is EADDRINUSE" 2 \
	"Error: the address and port are in use: Address already in use." \
	ctl1 listener add 127.0.0.1
check "listener add: an address of another host is EADDRNOTAVAIL" 2 \
	"Error: not an address of this network namespace: Cannot assign requested address." \
	ctl1 listener add 10.9.9.9
check "listener show: no such id is ENOENT" 2 \
	"Error: no listener with this id: No such file or directory." \
	ctl1 listener show 999
check "listener del: no such id is ENOENT" 2 \
	"Error: no listener with this id: No such file or directory." \
	ctl1 listener del 999
check "listener add: not an address is a usage error" 1 \
	'Error: "foo" is not an IPv4 or IPv6 address.' ctl1 listener add foo
check "listener add: auto-faces takes on or off" 1 \
	'Error: "maybe" is not on or off.' \
	ctl1 listener add 127.0.0.1 auto-faces maybe
check "listener add: port 70000 is a usage error" 1 \
	'Error: "70000" is not a valid port.' ctl1 listener add 127.0.0.1 port 70000
many_listeners() {
	local p
	for p in $(seq 10001 10062); do
		ctl1 listener add 127.0.0.1 port "$p" >/dev/null || return 1
	done
}
tap_check "listener add: 64 listeners in all" many_listeners
check "listener add: the 65th is ENOSPC" 2 \
	"Error: too many listeners: No space left on device." \
	ctl1 listener add 127.0.0.1 port 10063
del_many_listeners() {
	local id
	for id in $(ctl1 listener show | awk '$6 > 10000 { print $2 }'); do
		ctl1 listener del "$id" || return 1
	done
}
tap_check "listener del: the 62 extra ones" del_many_listeners
check "listener show: two left" 0 2 eval "ctl1 listener show | wc -l"

F4=$(id_of face ctl1 face add udp listener "$L4" remote 127.0.0.2)
tap_result $? "face add udp listener ID remote 127.0.0.2 ($F4)"
# 127.0.0.2 is reachable (the loopback's 127/8); ::2 is not: that face is
# down (no route to its peer), and still takes routes.
F6=$(id_of face ctl1 face add udp listener "$L6" remote ::2 port 9700 format compact)
tap_result $? "face add udp: IPv6, port 9700, compact ($F6)"
check "face show ID: a UDP face" 0 \
	"face $F4 udp up uid 0 pending 0 listener $L4 remote 127.0.0.2 port 9695 format ipv6-tcp" \
	ctl1 face show "$F4"
check "face show -s: with its counters" 0 \
	"face $F6 udp down uid 0 pending 0 listener $L6 remote ::2 port 9700 format compact interests-in 0 interests-out 0 data-in 0 data-out 0 unsolicited 0 refused 0 malformed 0 tx-drops 0 hop-drops 0 truncated 0 version 0 next-header 0 length 0 oversized 0 header 0 flags 0 lifetime 0 control 0 ah 0 transport 0 name 0 no-route 0 pit-full 0 nomem 0" \
	"$HICNCTL" -s -n "$ns1" hicn face show "$F6"
check "face show: the producers' faces and the UDP faces, in id order" 0 \
"face $faceA producer up uid 0 pending 0
face $faceB producer up uid 0 pending 0
face $F4 udp up uid 0 pending 0 listener $L4 remote 127.0.0.2 port 9695 format ipv6-tcp
face $F6 udp down uid 0 pending 0 listener $L6 remote ::2 port 9700 format compact" \
	ctl1 face show
# -s asks each UDP face's drops while the dump is read: every face, both
# UDP ones with their drops.
face_show_s() {
	"$HICNCTL" -s -n "$ns1" hicn face show |
		awk '{ n++ } / udp .* nomem 0$/ { u++ } END { print n + 0, u + 0 }'
}
check "face show -s: every face, the UDP ones with their drops" 0 "4 2" \
	face_show_s
check "face show -j" 0 \
	"[{\"id\":$F4,\"kind\":\"udp\",\"state\":\"up\",\"uid\":0,\"pending\":0,\"listener\":$L4,\"remote\":\"127.0.0.2\",\"port\":9695,\"format\":\"ipv6-tcp\",\"auto\":0}]" \
	"$HICNCTL" -j -n "$ns1" hicn face show "$F4"
"$HICNCTL" -j -s -n "$ns1" hicn face show | python3 -m json.tool >/dev/null
tap_result $? "face show -j -s: python3 -m json.tool parses it"
check "listener show: the listener counts its face" 0 \
	"listener $L4 local 127.0.0.1 port 9695 auto-faces off faces 1" \
	ctl1 listener show "$L4"
check "face add: a second face to the same peer is EEXIST" 2 \
	"Error: the listener has a face to this peer: File exists." \
	ctl1 face add udp listener "$L4" remote 127.0.0.2
check "face add: an IPv6 peer on an IPv4 listener is EAFNOSUPPORT" 2 \
	"Error: not the listener's address family: Address family not supported by protocol." \
	ctl1 face add udp listener "$L4" remote ::5
check "face add: no such listener is ENODEV" 2 \
	"Error: no listener with this id: No such device." \
	ctl1 face add udp listener 999 remote 127.0.0.2
check "face add: the ipv4-tcp format is EINVAL" 2 \
	"Error: AF_HICN names need the ipv6-tcp or compact format: Invalid argument." \
	ctl1 face add udp listener "$L4" remote 127.0.0.3 format ipv4-tcp
check "face show: no such face is ENOENT" 2 \
	"Error: no face with this id: No such file or directory." \
	ctl1 face show 999999
check "face del: no such face is ENOENT" 2 \
	"Error: no face with this id: No such file or directory." \
	ctl1 face del 999999
check "face del: an application face is EOPNOTSUPP" 2 \
	"Error: an application face goes with its socket: Operation not supported." \
	ctl1 face del "$faceA"
check "face add: the kind is udp" 1 \
	'Error: "listener" is not a kind of face, try "udp".' \
	ctl1 face add listener "$L4" remote 127.0.0.3
check "face add: without a listener is a usage error" 1 \
	'Error: face add needs "listener ID" or "local ADDRESS".' \
	ctl1 face add udp remote 127.0.0.3
check "face add: without a peer is a usage error" 1 \
	'Error: face add needs "remote ADDRESS".' \
	ctl1 face add udp listener "$L4"
check "face add: an unknown format is a usage error" 1 \
	'Error: "foo" is not a format (ipv6-tcp or compact).' \
	ctl1 face add udp listener "$L4" remote 127.0.0.3 format foo

# The issue's grammar: a face by its local address, without "hicn"; the
# listener on that address and port is used, or made.
check "face add udp local A port P remote B port Q: on listener $L4" 0 1 \
	eval "\"$HICNCTL\" -n $ns1 face add udp local 127.0.0.1 port 9695 remote 127.0.0.3 port 9695 |
		grep -c '^face [0-9]*$'"
check "face add udp local: the listener has two faces" 0 \
	"listener $L4 local 127.0.0.1 port 9695 auto-faces off faces 2" \
	ctl1 listener show "$L4"
F3=$(ctl1 face show | awk '/ remote 127\.0\.0\.3 / { print $2 }')
check "face add udp local: a new port makes a listener" 0 \
	"127.0.0.1 9697 1" \
	eval "\"$HICNCTL\" -n $ns1 face add udp local 127.0.0.1 port 9697 remote 127.0.0.4 >/dev/null &&
		ctl1 listener show | awk '\$6 == 9697 { print \$4, \$6, \$10 }'"
check "face add udp local: a refused face takes the new listener back" 2 \
	"Error: not the listener's address family: Address family not supported by protocol." \
	"$HICNCTL" -n "$ns1" face add udp local 127.0.0.1 port 9698 remote ::6
check "face add udp local: no listener on port 9698 left" 0 "" \
	eval "ctl1 listener show | awk '\$6 == 9698'"
check "hicnctl face show is hicnctl hicn face show" 0 \
	"$(ctl1 face show "$F4")" "$HICNCTL" -n "$ns1" face show "$F4"

check "route add: via the IPv4 face, cost 10" 0 "" \
	ctl1 route add b003::/16 via "$F4" cost 10
check "route add: a second next hop, cost 5 (hicnctl route add)" 0 "" \
	"$HICNCTL" -n "$ns1" route add b003::/16 via "$F6" cost 5
check "route show PREFIX: next hops in the order added" 0 \
	"b003::/16 via $F4 cost 10 via $F6 cost 5 strategy best-route" \
	ctl1 route show b003::/16
check "route show PREFIX: host bits are ignored" 0 \
	"b003::/16 via $F4 cost 10 via $F6 cost 5 strategy best-route" \
	ctl1 route show b003::1/16
check "strategy set: load-balance" 0 "" \
	ctl1 strategy set b003::/16 load-balance
check "route show: the claims are routes of cost 0, with ours" 0 \
"b001:a:b:c::/64 via $faceA cost 0 strategy best-route
b002::/48 via $faceB cost 0 strategy best-route
b003::/16 via $F4 cost 10 via $F6 cost 5 strategy load-balance" \
	eval "\"$HICNCTL\" -n $ns1 route show | sort"
check "route show -j" 0 \
	"[{\"prefix\":\"b003::/16\",\"nexthops\":[{\"face\":$F4,\"cost\":10},{\"face\":$F6,\"cost\":5}],\"strategy\":\"load-balance\"}]" \
	"$HICNCTL" -j -n "$ns1" hicn route show b003::/16
"$HICNCTL" -p -n "$ns1" hicn route show | python3 -m json.tool >/dev/null
tap_result $? "route show -p: python3 -m json.tool parses it"
check "route add: the same next hop again is EEXIST" 2 \
	"Error: the face is a next hop of this prefix already: File exists." \
	ctl1 route add b003::/16 via "$F4"
check "route add: no such face is ENODEV" 2 \
	"Error: no face with this id: No such device." \
	ctl1 route add b004::/16 via 999999
check "route add: prefix length 129 is EINVAL" 2 \
	"Error: prefix length over 128: Invalid argument." \
	ctl1 route add b004::/129 via "$F4"
check "route del: a face that is not a next hop is ENOENT" 2 \
	"Error: the face is not a next hop of this prefix: No such file or directory." \
	ctl1 route del b003::/16 via "$faceB"
check "route show: a prefix without a route is ENOENT" 2 \
	"Error: no route with this prefix: No such file or directory." \
	ctl1 route show b005::/16
check "strategy set: a prefix without a route is ENOENT" 2 \
	"Error: no route with this prefix: No such file or directory." \
	ctl1 strategy set b005::/16 best-route
check "route add: without via is a usage error" 1 \
	'Error: route add needs "via FACE".' ctl1 route add b004::/16
check "route add: a prefix needs its length" 1 \
	'Error: "b004::" is not a prefix (ADDRESS/LENGTH).' \
	ctl1 route add b004:: via "$F4"
check "strategy set: an unknown strategy is a usage error" 1 \
	'Error: "fastest" is not a strategy (best-route or load-balance).' \
	ctl1 strategy set b003::/16 fastest

# A consumer's face serves no interests; nine next hops are one too many.
start_producer C "c = chk(libc.socket(AF, SOCK_CONS, CONS_REL))"
tap_result $? "a consumer socket: its face"
faceC=$(ctl1 face show | awk '$3 == "consumer" { print $2 }')
check "route add: via a consumer's face is EINVAL" 2 \
	"Error: a consumer's face serves no interests: Invalid argument." \
	ctl1 route add b004::/16 via "$faceC"
stop_producer C
nine_hops() {
	local i f
	for i in $(seq 10 18); do
		f=$(id_of face ctl1 face add udp listener "$L4" remote "127.0.0.$i") || return 1
		if [ "$i" -lt 18 ]; then
			ctl1 route add b007::/16 via "$f" || return 1
		else
			last=$f
		fi
	done
}
tap_check "route add: eight next hops of b007::/16" nine_hops
check "route add: a ninth is ENOSPC" 2 \
	"Error: too many next hops or routes: No space left on device." \
	ctl1 route add b007::/16 via "$last"
check "route show: b007::/16 has its eight" 0 8 \
	eval "ctl1 route show b007::/16 | grep -o ' via ' | wc -l"

# Permissions: nobody shows, changes nothing.
for c in "listener show" "face show" "route show" "route show b003::/16"; do
	# shellcheck disable=SC2086
	hicnctl_nobody $c >/dev/null
	tap_result $? "nobody: $c works"
done
for c in "listener add 127.0.0.1 port 9800" "listener del $L4" \
	 "face add udp listener $L4 remote 127.0.0.9" "face del $F4" \
	 "route add b006::/16 via $F4" "route del b003::/16 via $F4" \
	 "strategy set b003::/16 best-route"; do
	# shellcheck disable=SC2086
	check "nobody: $c is EPERM" 2 "Error: Operation not permitted." \
		hicnctl_nobody $c
done
check "nobody: the route is unchanged" 0 \
	"b003::/16 via $F4 cost 10 via $F6 cost 5 strategy load-balance" \
	ctl1 route show b003::/16
check "$ns2 sees none of $ns1's listeners" 0 "" ctl2 listener show
check "$ns2 sees none of $ns1's faces" 0 "" ctl2 face show
check "$ns2 sees none of $ns1's routes" 0 "" ctl2 route show

# Deleting: next hops, faces (their routes lose them), listeners (their
# faces go).
check "route del: the IPv6 face's next hop" 0 "" \
	"$HICNCTL" -n "$ns1" hicn route del b003::/16 via "$F6"
check "route show: one next hop left" 0 \
	"b003::/16 via $F4 cost 10 strategy load-balance" ctl1 route show b003::/16
check "face del: the IPv4 face" 0 "" ctl1 face del "$F4"
check "face del: the route went with its last next hop" 2 \
	"Error: no route with this prefix: No such file or directory." \
	ctl1 route show b003::/16
check "listener del: the IPv6 listener" 0 "" ctl1 listener del "$L6"
check "listener del: its face went with it" 2 \
	"Error: no face with this id: No such file or directory." \
	ctl1 face show "$F6"
del_all_listeners() {
	local id
	for id in $(ctl1 listener show | awk '{ print $2 }'); do
		ctl1 listener del "$id" || return 1
	done
}
tap_check "listener del: every listener" del_all_listeners
check "face show: no UDP face is left" 0 \
"face $faceA producer up uid 0 pending 0
face $faceB producer up uid 0 pending 0" \
	eval "ctl1 face show | grep -v ' consumer '"
check "route show: only the claims are left" 0 \
"b001:a:b:c::/64 via $faceA cost 0 strategy best-route
b002::/48 via $faceB cost 0 strategy best-route" \
	eval "ctl1 route show | sort"
[ -n "$F3" ]
tap_result $? "the face made by local address had an id ($F3)"

# ---- events ----

stop_producer A && stop_producer B
tap_result $? "producers closed"
sleep 1
check "namespace show: no claim left" 0 "" ctl1 namespace show

# A PSOCK connection in ns1 for hicnctl monitor: both ends here, 4
# subflows each (the default recommended count), so 8 subflow-established
# and, once both ends closed, 8 subflow-closed events.
ip netns exec "$ns1" python3 - <<'EOF'
import socket
ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 259)
ls.bind(("127.0.0.1", 0))
ls.listen()
c = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 259)
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
tap_result $? "events: a PSOCK connection over loopback in $ns1"
wait_count() {		# wait_count N REGEX FILE: up to 30 s
	local i
	for i in $(seq 30); do
		[ "$(grep -c -E "$2" "$3")" -ge "$1" ] && return 0
		sleep 1
	done
	return 1
}
wait_count 8 '^\[subflow-closed\]' "$tmp/mon.all"
wait_count 8 '"event":"subflow-closed"' "$tmp/mon.all.json"
sleep 1
# shellcheck disable=SC2086
kill $mon_pids 2>/dev/null
wait $mon_pids 2>/dev/null
check "events: claimed and released, in order" 0 \
"[namespace-claimed] b001:a:b:c::/64 uid 0 inode $inoA face $faceA
[namespace-claimed] b002::/48 uid 0 inode $inoB face $faceB
[namespace-released] b001:a:b:c::/64 uid 0 inode $inoA face $faceA
[namespace-released] b002::/48 uid 0 inode $inoB face $faceB" \
	grep '^\[namespace-' "$tmp/mon1"
check "events: the claims' routes, cost 0 to the producers' faces" 0 \
"[route-added] b001:a:b:c::/64 via $faceA cost 0
[route-added] b002::/48 via $faceB cost 0
[route-deleted] b001:a:b:c::/64 via $faceA cost 0
[route-deleted] b002::/48 via $faceB cost 0" \
	grep -E '^\[route-(added|deleted)\] b00[12]:' "$tmp/mon1"
check "events: the 13 UDP faces of $ns1 added, then deleted" 0 "13 13" \
	eval "echo \$(grep -c '^\[face-added\] face [0-9]* udp ' $tmp/mon1) \
		\$(grep -c '^\[face-deleted\] face [0-9]* udp down ' $tmp/mon1)"
python3 -c '
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
print(" ".join(e["event"] + ":" + e["prefix"] for e in ev
               if e["event"].startswith("namespace-")))' "$tmp/mon1.json" \
	> "$tmp/json.events" 2>&1
check "events -j: one JSON object per event" 0 \
	"namespace-claimed:b001:a:b:c::/64 namespace-claimed:b002::/48 namespace-released:b001:a:b:c::/64 namespace-released:b002::/48" \
	cat "$tmp/json.events"
check "events: $ns2's monitor saw nothing of $ns1" 0 "" cat "$tmp/mon2"
check "hicnctl monitor: hicn's events, as hicnctl hicn monitor printed them" 0 \
	"$(cat "$tmp/mon1")" grep -v '^\[subflow-' "$tmp/mon.all"
check "hicnctl monitor -j: hicn's events, as hicnctl hicn monitor -j printed them" 0 \
	"$(cat "$tmp/mon1.json")" grep -v '"event":"subflow-' "$tmp/mon.all.json"
sf_re='index [0-3] 127[.]0[.]0[.]1:[0-9]+ -> 127[.]0[.]0[.]1:[0-9]+'
check "hicnctl monitor: psock's 8 subflow-established and 8 subflow-closed" 0 \
	"8 8" eval "echo \$(grep -c -E '^\[subflow-established\] $sf_re\$' $tmp/mon.all) \
		\$(grep -c -E '^\[subflow-closed\] $sf_re error 0\$' $tmp/mon.all)"
ev_re='^\[(namespace-(claimed|released)|face-(added|deleted|up|down)|route-(added|deleted)|subflow-(established|closed))\] '
n_all=$(($(wc -l < "$tmp/mon1") + 16))
check "hicnctl monitor: hicn's lines and 16, each a whole event of either family" 0 \
	"$n_all $n_all" eval "echo \$(wc -l < $tmp/mon.all) \$(grep -c -E '$ev_re' $tmp/mon.all)"
check "hicnctl monitor: nothing on stderr" 0 "" cat "$tmp/mon.all.err"
python3 -c '
import collections, json, sys
n = collections.Counter(e for e in (json.loads(l)["event"] for l in open(sys.argv[1]))
                        if e.startswith(("namespace-", "subflow-")))
print(" ".join("%s:%d" % kv for kv in sorted(n.items())))' "$tmp/mon.all.json" \
	> "$tmp/json.all.events" 2>&1
check "hicnctl monitor -j: one JSON object per line, both families' events" 0 \
	"namespace-claimed:2 namespace-released:2 subflow-closed:8 subflow-established:8" \
	cat "$tmp/json.all.events"

# ---- face and route events ----

# A UDP face from ns3 (10.79.14.1) to ns4 (10.79.14.2) over a veth pair,
# with monitors of ns3 from the start: the face added, a route to it added
# and deleted, and added again, the face's link down and up (ns4's end of
# the veth set down: ns3's end loses its carrier, as in link_test.py), the
# face deleted (its route first): a line each, in order.
ip netns add "$ns3" && ip netns add "$ns4" &&
	ip -n "$ns3" link set lo up && ip -n "$ns4" link set lo up &&
	ip -n "$ns3" link add v3 type veth peer name v4 netns "$ns4" &&
	ip -n "$ns3" addr add 10.79.14.1/24 dev v3 &&
	ip -n "$ns4" addr add 10.79.14.2/24 dev v4 &&
	ip -n "$ns3" link set v3 up && ip -n "$ns4" link set v4 up
tap_result $? "face events: $ns3 and $ns4 joined by a veth pair"
ctl3() { "$HICNCTL" -n "$ns3" hicn "$@"; }
"$HICNCTL" -n "$ns3" hicn monitor > "$tmp/mon3" 2>&1 &
mon3_pids=$!
"$HICNCTL" -j -n "$ns3" hicn monitor > "$tmp/mon3.json" 2>&1 &
mon3_pids="$mon3_pids $!"
pids="$pids $mon3_pids"
sleep 1
LV=$(id_of listener ctl3 listener add 10.79.14.1)
tap_result $? "face events: listener add 10.79.14.1 ($LV)"
FV=$(id_of face ctl3 face add udp listener "$LV" remote 10.79.14.2)
tap_result $? "face events: face add udp to 10.79.14.2 ($FV)"
check "face events: route add b00e::/16 via the face, cost 7" 0 "" \
	ctl3 route add b00e::/16 via "$FV" cost 7
check "face events: route del b00e::/16 via the face" 0 "" \
	ctl3 route del b00e::/16 via "$FV"
check "face events: route add b00e::/16 via the face again, cost 0" 0 "" \
	ctl3 route add b00e::/16 via "$FV"
face_state() {		# face_state up|down: up to 10 s
	local i
	for i in $(seq 50); do
		[ "$(ctl3 face show "$FV" | awk '{ print $4 }')" = "$1" ] &&
			return 0
		sleep 0.2
	done
	return 1
}
ip -n "$ns4" link set v4 down
tap_check "face events: the peer's end of the veth down: the face is down" \
	face_state down
ip -n "$ns4" link set v4 up
tap_check "face events: the peer's end up again: the face is up" \
	face_state up
check "face events: face del" 0 "" ctl3 face del "$FV"
sleep 1
# shellcheck disable=SC2086
kill $mon3_pids 2>/dev/null
wait $mon3_pids 2>/dev/null
facev="face $FV udp %s uid 0 listener $LV remote 10.79.14.2 port 9695 format ipv6-tcp"
# shellcheck disable=SC2059
check "face events: added, routes, down, up, deleted, a line each" 0 \
"[face-added] $(printf "$facev" up)
[route-added] b00e::/16 via $FV cost 7
[route-deleted] b00e::/16 via $FV cost 7
[route-added] b00e::/16 via $FV cost 0
[face-down] $(printf "$facev" down)
[face-up] $(printf "$facev" up)
[route-deleted] b00e::/16 via $FV cost 0
[face-deleted] $(printf "$facev" down)" cat "$tmp/mon3"
facevj="\"id\":$FV,\"kind\":\"udp\",\"state\":\"%s\",\"uid\":0,\"listener\":$LV,\"remote\":\"10.79.14.2\",\"port\":9695,\"format\":\"ipv6-tcp\",\"auto\":0"
# shellcheck disable=SC2059
check "face events -j: one JSON object per event" 0 \
"{\"event\":\"face-added\",$(printf "$facevj" up)}
{\"event\":\"route-added\",\"prefix\":\"b00e::/16\",\"face\":$FV,\"cost\":7}
{\"event\":\"route-deleted\",\"prefix\":\"b00e::/16\",\"face\":$FV,\"cost\":7}
{\"event\":\"route-added\",\"prefix\":\"b00e::/16\",\"face\":$FV,\"cost\":0}
{\"event\":\"face-down\",$(printf "$facevj" down)}
{\"event\":\"face-up\",$(printf "$facevj" up)}
{\"event\":\"route-deleted\",\"prefix\":\"b00e::/16\",\"face\":$FV,\"cost\":0}
{\"event\":\"face-deleted\",$(printf "$facevj" down)}" cat "$tmp/mon3.json"

# ---- the kernel's YNL client, driven by our spec ----

# One client for every request (ynl_lib.sh): a Python start costs seconds.
. ../lib/ynl_lib.sh
if ynl_tap_start "$ns1" "$SPEC"; then
	check "ynl: limits-get" 0 \
		'{"pit-max": 1000, "cs-max-entries": 65536, "cs-mem-max": 1048576, "prod-mem-max": 1000000, "unprivileged-prefix-min": 32, "pit-user-max": 99, "prod-user-mem-max": 268435456}' \
		ynl --do limits-get
	check "ynl: limits-set, then hicnctl reads it" 0 "pit-max 2000" \
		eval "ynl --do limits-set --json '{\"pit-max\": 2000}' >/dev/null &&
			ctl1 limits show | cut -d' ' -f1-2"
	check "ynl: counters-get has every counter" 0 "$ncounters" \
		eval "ynl --do counters-get | grep -o '\"[a-z0-9-]*\": ' | wc -l"
	check "ynl: cs-get" 0 \
		'{"entries": 0, "bytes": 0, "max-entries": 65536, "mem-max": 1048576, "hits": 0, "misses": 0, "evictions": 0}' \
		eval "ynl --do cs-get | sed -E 's/\"(hits|misses|evictions)\": [0-9]+/\"\\1\": 0/g'"
	check "ynl: namespace-get dump (no claim left)" 0 "[]" \
		ynl --dump namespace-get
	ynl --do namespace-get --json '{"prefix-len": 64}' 2>&1 |
		grep -q "missing prefix"
	tap_result $? "ynl: namespace-get without prefix: \"missing prefix\""
	ynl --do cs-entry-get --json '{"version": 1, "segment": 0}' 2>&1 |
		grep -q "missing name"
	tap_result $? "ynl: cs-entry-get without name: \"missing name\""
	ynl --do cs-entry-get \
		--json '{"name": "b0010000000000000000000000000001", "version": 1, "segment": 0}' 2>&1 |
		grep -q "no such entry in the content store"
	tap_result $? "ynl: cs-entry-get of a missing entry: ENOENT"
	ynl_stop
fi

tap_done
