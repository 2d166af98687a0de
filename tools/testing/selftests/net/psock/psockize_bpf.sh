#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# psockize(8) run --bpf: the kernel's update_socket_protocol() hook (Linux
# 6.6 and later) makes the TCP sockets of the command PSOCK, a static
# binary's too, and no other process's.
#
#   netns psk-bpf (lo only)
#   +--------------------------------------------------------------+
#   | 127.0.0.1:7070  python3 PSOCK listener, echoes one byte      |
#   | 127.0.0.1:8081  python3 http.server under "psockize run"     |
#   |                 (LD_PRELOAD: a PSOCK listener)                |
#   | clients: so_protocol (static), curl                          |
#   +--------------------------------------------------------------+
#
# so_protocol prints the SO_PROTOCOL of the sockets it makes and of one
# that connected to the listener.  Under "psockize run --bpf" its TCP
# sockets must be PSOCK (259), its UDP and AF_UNIX ones untouched; without
# psockize, beside a psockize run (outside its cgroup) and after psockize
# exited, TCP (6).  curl (dynamic) under --bpf must fetch from the PSOCK
# server over PSOCK (ActiveOpens of /proc/net/psock).  While the command
# runs the program is loaded (bpf_prog_*_psockize in /proc/kallsyms) and
# the command is in cgroup psockize.<pid>; after, neither is there.
#
# On a kernel without the hook (6.1) or without BTF, --bpf must fail
# with status 125 and say why; which one is decided by looking at the
# kernel (/sys/kernel/btf/vmlinux, /proc/kallsyms), not its name.

cd "$(dirname "$0")" || exit 1
. ../lib/tap_lib.sh
. ./ns_lib.sh

TOP=$(cd ../../../../.. && pwd)
PSOCKIZE=$TOP/userspace/psockize/psockize
PROBE=$PWD/so_protocol
NS=psk-bpf
PORT=7070
HTTP=8081
TMP=$(mktemp -d)
PIDS=

cleanup() {
	local p
	for p in $PIDS; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	ip netns del $NS 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

PSOCK_TCP="6 6 6 17 0 connected 6"
PSOCK_ALL="259 259 259 17 0 connected 259"
NEED_ROOT="psockize: --bpf needs root (CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN)"

for p in "$PSOCKIZE" "$PROBE" curl python3 setpriv readelf; do
	if ! command -v "$p" >/dev/null; then
		tap_result 1 "$p is there (make)"
		tap_done
	fi
done

! readelf -l "$PROBE" | grep -q INTERP
tap_result $? "so_protocol is linked statically (no program interpreter)"

ip netns add $NS && ip -n $NS link set lo up
tap_result $? "netns $NS"

ip netns exec $NS python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 259)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(16)
while True:
    c, _ = s.accept()
    c.sendall(c.recv(1))
    c.close()' $PORT &
PIDS="$PIDS $!"
wait_listen $NS $PORT
tap_result $? "a PSOCK listener on 127.0.0.1:$PORT"

probe() {
	ip netns exec $NS "$@" "$PROBE" $PORT
}

tap_expect "without psockize: so_protocol's TCP sockets are TCP" "$PSOCK_TCP" probe

# ---- a kernel without the hook ----

if [ ! -e /sys/kernel/btf/vmlinux ]; then
	check "no BTF: run --bpf fails and says why" 125 \
		"psockize: this kernel has no BTF (/sys/kernel/btf/vmlinux: No such file or directory): --bpf needs CONFIG_DEBUG_INFO_BTF" \
		probe "$PSOCKIZE" run --bpf
	tap_done
fi
if ! grep -qw update_socket_protocol /proc/kallsyms; then
	check "no update_socket_protocol(): run --bpf fails and says why" 125 \
		"psockize: this kernel has no update_socket_protocol() hook (Linux 6.6 or later has it): --bpf cannot work here; psockize run without --bpf uses the LD_PRELOAD library" \
		probe "$PSOCKIZE" run --bpf
	check "no update_socket_protocol(): -b too" 125 \
		"psockize: this kernel has no update_socket_protocol() hook (Linux 6.6 or later has it): --bpf cannot work here; psockize run without --bpf uses the LD_PRELOAD library" \
		probe "$PSOCKIZE" run -b
	tap_done
fi

# ---- the hook ----

sysctl -qw net.core.bpf_jit_kallsyms=1

loaded() {		# the program's name is in /proc/kallsyms
	grep -q '\bbpf_prog_[0-9a-f]*_psockize\b' /proc/kallsyms
}
cgroups() {		# the cgroups psockize made, from /sys/fs/cgroup
	find /sys/fs/cgroup -mindepth 1 -type d -name 'psockize.*' 2>/dev/null | wc -l
}

ao=$(counter $NS ActiveOpens)
check "run --bpf: static so_protocol's TCP sockets are PSOCK, UDP and AF_UNIX untouched" \
	0 "$PSOCK_ALL" probe "$PSOCKIZE" run --bpf
ao=$(( $(counter $NS ActiveOpens) - ao ))
[ $ao -eq 1 ]
tap_result $? "run --bpf: so_protocol's connection was a PSOCK connect (ActiveOpens +$ao)"
check "run -b: the same" 0 "$PSOCK_ALL" probe "$PSOCKIZE" run -b

# A command that waits for $TMP/go, then runs so_protocol: meanwhile,
# so_protocol outside it must keep TCP.
ip netns exec $NS "$PSOCKIZE" run --bpf bash -c '
	cat /proc/self/cgroup > "$1/cgroup"
	: > "$1/ready"
	while [ ! -e "$1/go" ]; do sleep 0.1; done
	exec "$2" "$3"' sh "$TMP" "$PROBE" $PORT > "$TMP/inside" 2>&1 &
run_pid=$!
PIDS="$PIDS $run_pid"
for i in $(seq 100); do
	[ -e "$TMP/ready" ] && break
	sleep 0.1
done
grep -q -x "0::/\(.*/\)\?psockize\.$run_pid" "$TMP/cgroup"
tap_result $? "run --bpf: the command runs in cgroup psockize.$run_pid ($(cat "$TMP/cgroup" 2>/dev/null))"
loaded
tap_result $? "run --bpf: the program is loaded while the command runs"
tap_expect "beside run --bpf: a process outside its cgroup keeps TCP" "$PSOCK_TCP" probe
: > "$TMP/go"
wait $run_pid
rc=$?
PIDS=${PIDS% $run_pid}
[ $rc -eq 0 ] && [ "$(cat "$TMP/inside")" = "$PSOCK_ALL" ]
tap_result $? "run --bpf: the command's so_protocol, started later, gets PSOCK (status $rc: $(cat "$TMP/inside"))"

! loaded
tap_result $? "after run --bpf: the program is gone"
n=$(cgroups)
[ "$n" -eq 0 ]
tap_result $? "after run --bpf: its cgroup is gone ($n left)"
tap_expect "after run --bpf: TCP again" "$PSOCK_TCP" probe

# ---- a dynamic program: curl against a PSOCK http.server ----

mkdir -p "$TMP/www"
head -c 1048576 /dev/urandom > "$TMP/www/file"
ip netns exec $NS "$PSOCKIZE" run python3 -m http.server --bind 127.0.0.1 \
	--directory "$TMP/www" $HTTP > /dev/null 2>&1 &
PIDS="$PIDS $!"
wait_listen $NS $HTTP
tap_result $? "python3 http.server under psockize run (PSOCK) on 127.0.0.1:$HTTP"

fetch() {		# fetch DESC WANT_ACTIVE_OPENS [psockize run --bpf]
	local desc=$1 want=$2 ao rc
	shift 2
	rm -f "$TMP/got"
	ao=$(counter $NS ActiveOpens)
	ip netns exec $NS timeout 60 "$@" curl -sS -o "$TMP/got" \
		"http://127.0.0.1:$HTTP/file"
	rc=$?
	ao=$(( $(counter $NS ActiveOpens) - ao ))
	[ $rc -eq 0 ] && cmp -s "$TMP/www/file" "$TMP/got" && [ $ao -eq "$want" ]
	tap_result $? "$desc (curl status $rc, ActiveOpens +$ao)"
}
fetch "curl: 1 MiB over TCP" 0
fetch "run --bpf curl: 1 MiB over PSOCK" 1 "$PSOCKIZE" run --bpf

# ---- status and errors ----

check "run --bpf: the command's exit status" 7 "" \
	"$PSOCKIZE" run --bpf sh -c 'exit 7'
check "run --bpf: 128 + the signal that killed the command" 137 "" \
	"$PSOCKIZE" run --bpf sh -c 'kill -KILL $$'
check "run --bpf: a command not found is 127" 127 \
	"psockize: /nonexistent: No such file or directory" \
	"$PSOCKIZE" run --bpf /nonexistent
check "run --bpf as nobody: needs root" 125 "$NEED_ROOT" \
	setpriv --reuid=65534 --regid=65534 --clear-groups "$PSOCKIZE" run --bpf true
n=$(cgroups)
[ "$n" -eq 0 ]
tap_result $? "no cgroup of psockize left ($n)"

# PSOCK disabled: the kernel makes the PSOCK socket or nothing; no
# fallback to TCP as the library has.
ip netns exec $NS sysctl -qw net.psock.enabled=0
out=$(probe "$PSOCKIZE" run --bpf 2>&1)
rc=$?
[ $rc -eq 1 ] && [ "$out" = "socket: Protocol not available" ]
tap_result $? "net.psock.enabled=0: run --bpf's socket() fails with ENOPROTOOPT (status $rc: $out)"
ip netns exec $NS sysctl -qw net.psock.enabled=1

tap_done
