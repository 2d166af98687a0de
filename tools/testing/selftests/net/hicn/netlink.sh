#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The "hicn" generic netlink family through hicnctl (golden output of
# every command, as psock/netlink.sh does for "psock") and through the
# kernel's own YNL client (tools/net/ynl/cli.py) driven by our spec, so
# that Documentation/netlink/specs/hicn.yaml is proven to match the
# kernel.
#
#   ns1: producers, consumers, monitors    ns2: a monitor and its own
#                                          (empty) tables
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
tmp=$(mktemp -d)
pids=

cleanup() {
	rm -f "$tmp"/run.*
	# shellcheck disable=SC2086
	[ -n "$pids" ] && kill $pids 2>/dev/null
	wait 2>/dev/null
	ip netns del "$ns1" 2>/dev/null
	ip netns del "$ns2" 2>/dev/null
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

check "help: hicnctl help has the 10 hicn commands" 0 10 \
	eval "\"$HICNCTL\" help | grep -c '^       hicnctl hicn '"
check "help: hicnctl hicn help, the same grammar" 0 10 \
	eval "\"$HICNCTL\" hicn help 2>&1 | grep -c 'hicnctl hicn '"
check "help: an unknown hicn object is a usage error" 1 \
	'Error: object "hicn foo" is unknown, try "hicnctl hicn help".' \
	ctl1 foo

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
pids="$pids $mon_pids"
sleep 1

# Producer A claims b001:a:b:c::/64 and publishes 3000 segments of 64
# bytes under ::1, kept until it closes (expiry 0: the debug kernel takes
# longer than the default 60 s from the first look at the store to the
# last), and 5 bytes under ::2 with the default expiry; producer B claims
# b002::/48.
start_producer A "
p = producer('b001:a:b:c::', 64, 64)
expiry(p, 0)
publish(p, 'b001:a:b:c::1', b'x' * (3000 * 64))
expiry(p, 60000)
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

check "cs flush prefix: ::2's entry" 0 "" ctl1 cs flush prefix b001:a:b:c::2/128
check "cs flush prefix: 3000 entries left" 0 3000 cs_entries
check "cs flush prefix: length 129 is EINVAL" 2 \
	"Error: prefix length over 128: Invalid argument." \
	ctl1 cs flush prefix b001::/129
check "cs flush prefix: the failed request flushed nothing" 0 3000 cs_entries
check "cs flush: everything" 0 "" ctl1 cs flush
check "cs flush: empty" 0 0 cs_entries

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

# ---- events ----

stop_producer A && stop_producer B
tap_result $? "producers closed"
sleep 1
check "namespace show: no claim left" 0 "" ctl1 namespace show
# shellcheck disable=SC2086
kill $mon_pids 2>/dev/null
wait $mon_pids 2>/dev/null
check "events: claimed and released, in order" 0 \
"[namespace-claimed] b001:a:b:c::/64 uid 0 inode $inoA face $faceA
[namespace-claimed] b002::/48 uid 0 inode $inoB face $faceB
[namespace-released] b001:a:b:c::/64 uid 0 inode $inoA face $faceA
[namespace-released] b002::/48 uid 0 inode $inoB face $faceB" cat "$tmp/mon1"
python3 -c '
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
print(" ".join(e["event"] + ":" + e["prefix"] for e in ev))' "$tmp/mon1.json" \
	> "$tmp/json.events" 2>&1
check "events -j: one JSON object per event" 0 \
	"namespace-claimed:b001:a:b:c::/64 namespace-claimed:b002::/48 namespace-released:b001:a:b:c::/64 namespace-released:b002::/48" \
	cat "$tmp/json.events"
check "events: $ns2's monitor saw nothing of $ns1" 0 "" cat "$tmp/mon2"

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
