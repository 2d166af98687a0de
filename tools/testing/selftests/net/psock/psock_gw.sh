#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# psock-gw(8), the TCP <-> PSOCK edge translator, between an unmodified
# TCP client and server:
#
#  pgw-c (client)   pgw-i (ingress)            pgw-o (egress)    pgw-s (server)
#  +------------+   +------------+  path 1     +------------+   +------------+
#  | 10.73.0.1  |---| 10.73.0.2  |  10.73.1.x  |            |   |            |
#  | default    |   |  10.73.1.1 |=============| 10.73.1.2  |   |            |
#  | via .0.2   |   |  10.73.2.1 |=============| 10.73.2.2  |   |            |
#  +------------+   |  TPROXY    |  path 2     | 10.73.3.1  |---| 10.73.3.2  |
#                   +------------+  10.73.2.x  +------------+   +------------+
#        TCP        psock-gw ingress   PSOCK   psock-gw egress    TCP: nginx,
#                   :8080 :8090 :8081(-t)      :9000 :9001        psock_gw_peer
#
# Static flows: client -> 10.73.0.2:8080 -> egress :9000 -> nginx :8080,
# client -> 10.73.0.2:8090 -> egress :9001 -> psock_gw_peer.py :8090,
# client -> 10.73.0.2:5201 -> egress :9003 -> iperf3 :5201.
# Transparent flows (TPROXY, nft_tproxy): the client connects to
# 10.73.3.2:{8080,8090,8091}; pgw-i's nft diverts them to the ingress's
# IP_TRANSPARENT listener :8081, which carries the original destination
# to egress :9000, whose allow-list holds 10.73.3.0/24:8080 and
# 10.73.3.2:8090 (not :8091).  The egress signals path 2 (hicnctl psock
# endpoint), round-robin driver, 2 data subflows (-n 2).
#
# (a) curl <- nginx through the pair, cmp; (b) the PSOCK connection
# between the gateways has more than one subflow (counters of pgw-o,
# bytes on path 2, hicnctl psock show); (c) backpressure: a server that
# does not read stops the client's writes after a bounded amount, no
# flow holds more than --buffer bytes in either daemon, and everything
# arrives once the server reads; (d) half-close both ways; (e) the egress
# refuses destinations outside its allow-list, headers it does not
# know, and transparent flows when it has no allow-list; (f) 50
# concurrent flows, intact, no descriptor left behind; (g) a pair started
# from configuration files (-c, one value overridden by an option)
# carries (a) alike, and bad files are refused with status 2 and
# "psock-gw: FILE:LINE: reason" as psock-gw(8) says (IPv6 prefixes in
# brackets, prefix lengths, decimal numbers, a NUL in the last line);
# (h) iperf3 both ways through the pair; (i) a reset at either end
# reaches the other end as a reset; (j) 64 MiB each way at once, cmp
# (SHA-256) both ways, while path 2 is cut (netem loss 100% once a
# quarter has crossed): the PSOCK connection loses its subflows of path 2
# and the flow goes on over path 1; (k) limits: an ingress without PSOCK
# (a seccomp filter fails its PSOCK socket) and a daemon whose
# epoll_wait() fails exit 1; an ingress at 64 descriptors lowers
# --max-flows to what fits, stops accepting when out of descriptors
# without spinning, and serves every client that waited in its backlog
# once flows end; SIGHUP is logged and changes nothing; the soft
# RLIMIT_NOFILE goes up to what --max-flows needs; a flow without a
# header is refused after 10 s, logged at the default verbosity; SIGTERM
# ends the daemons with status 0.  Transparent mode needs
# CONFIG_NFT_TPROXY (the Debian kernels have it, the debug kernel not:
# skipped there), the seccomp filter of (k) CONFIG_SECCOMP_FILTER (the
# debug kernel has none either).
#
# nginx comes from Debian's package unpacked into .cache/apps by
# tools/testing/vm/setup.sh.

cd "$(dirname "$0")" || exit 1
. ../lib/tap_lib.sh

TOP=$(cd ../../../../.. && pwd)
GW=$TOP/userspace/psock-gw/psock-gw
HICNCTL=$TOP/userspace/hicnctl/hicnctl
APPS=$TOP/.cache/apps
NGINX=$APPS/usr/sbin/nginx
IPERF3=(env "LD_LIBRARY_PATH=$APPS/usr/lib/x86_64-linux-gnu" "$APPS/usr/bin/iperf3")
PEER=$PWD/psock_gw_peer.py
C=pgw-c I=pgw-i O=pgw-o S=pgw-s
SRV=10.73.3.2
EGW=10.73.1.2
BUF=65536		# psock-gw --buffer
SIZE=4194304		# the file nginx serves
BP_TOTAL=25165824	# what the backpressure client sends
BP_MAX=4194304		# what it may get rid of while the server does not read
STALE=1000		# net.psock.stale_timeout_ms in pgw-i and pgw-o
CUT_MIB=64		# (j): MiB each way while path 2 is cut
TMP=$(mktemp -d)
PIDS=()
. ./ns_lib.sh

cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	for ns in $C $I $O $S; do ip netns del $ns 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT

for p in "$GW" "$HICNCTL" "$NGINX" "$APPS/usr/bin/iperf3" curl python3 nft; do
	if ! command -v "$p" >/dev/null; then
		tap_result 1 "$p is there (run tools/testing/vm/setup.sh and make)"
		tap_done
	fi
done

veth() {	# veth NS1 DEV1 ADDR1 NS2 DEV2 ADDR2
	ip link add "$2" netns "$1" type veth peer name "$5" netns "$4" &&
	ip -n "$1" addr add "$3"/24 dev "$2" && ip -n "$4" addr add "$6"/24 dev "$5" &&
	ip -n "$1" link set "$2" up && ip -n "$4" link set "$5" up
}

setup() {
	local ns p
	modprobe sch_netem 2>/dev/null
	for ns in $C $I $O $S; do
		ip netns add $ns && ip -n $ns link set lo up || return 1
		# Small socket buffers: what backpressure leaves in flight
		# stays well below BP_MAX.
		ip netns exec $ns sysctl -qw net.ipv4.tcp_rmem="4096 131072 262144" \
			net.ipv4.tcp_wmem="4096 65536 262144" || return 1
	done
	veth $C c0 10.73.0.1 $I i0 10.73.0.2 &&
	veth $I i1 10.73.1.1 $O o1 10.73.1.2 &&
	veth $I i2 10.73.2.1 $O o2 10.73.2.2 &&
	veth $O o3 10.73.3.1 $S s3 10.73.3.2 &&
	ip -n $C route add default via 10.73.0.2 &&
	ip -n $S route add default via 10.73.3.1 || return 1
	for p in 1 2; do
		tc -n $I qdisc add dev i$p root netem delay 1ms &&
		tc -n $O qdisc add dev o$p root netem delay 1ms || return 1
	done
	for ns in $I $O; do
		ip netns exec $ns sysctl -qw net.psock.driver=1 \
			net.psock.stale_timeout_ms=$STALE || return 1
	done
	"$HICNCTL" -n $O psock endpoint add 10.73.2.2 signal &&
	"$HICNCTL" -n $I psock endpoint add 10.73.2.1 subflow
}

path2_bytes() {
	ip netns exec $O awk '$1 == "o2:" { print $2 + $10 }' /proc/net/dev
}

gw() {			# gw NAME NS ARGS...: start a daemon, log in $TMP/NAME.log
	local name=$1 ns=$2
	shift 2
	ip netns exec "$ns" "$GW" "$@" -v -b $BUF -n 2 2> "$TMP/$name.log" &
	PIDS+=($!)
	eval "PID_$name=$!"
}

nfds() {		# descriptors of a process
	ls /proc/"$1"/fd | wc -l
}

if ! setup; then
	tap_result 1 "four namespaces, veth, netem, endpoints"
	tap_done
fi
tap_result 0 "four namespaces, veth, netem, endpoints"

# TPROXY in the ingress namespace: marked packets to 10.73.3.2's ports
# are delivered locally, to the transparent listener.
TPROXY=0
if ip netns exec $I nft -f - 2>"$TMP/nft.err" <<EOF
table ip pgw {
	chain pre {
		type filter hook prerouting priority mangle; policy accept;
		ip daddr $SRV tcp dport { 8080, 8090, 8091 } tproxy to :8081 meta mark set 1 accept
	}
}
EOF
then
	ip -n $I rule add fwmark 1 lookup 100 &&
	ip -n $I route add local 0.0.0.0/0 dev lo table 100 && TPROXY=1
fi
[ $TPROXY = 1 ] || sed 's/^/# nft: /' "$TMP/nft.err"
# Only the debug kernel lacks nft tproxy: on the others a transparent
# set-up that fails is a failure, not a skip.
no_tproxy() {
	case "$(uname -r)" in
	*-debug) tap_result 0 "$1 # SKIP no nft tproxy (CONFIG_NFT_TPROXY)" ;;
	*) tap_result 1 "$1: the nft tproxy set-up failed on $(uname -r)" ;;
	esac
}

# ---- the server side, the daemons ----

WWW=$TMP/www NGX=$TMP/nginx
mkdir -p "$WWW" "$NGX" "$TMP/peer"
head -c $SIZE /dev/urandom > "$WWW/file"
head -c 262144 /dev/urandom > "$WWW/small"
cat > "$NGX/nginx.conf" <<EOF
user root;
worker_processes 1;
daemon off;
pid $NGX/nginx.pid;
error_log $NGX/error.log;
events { worker_connections 256; }
http {
	access_log off;
	client_body_temp_path $NGX/body;
	proxy_temp_path $NGX/proxy;
	fastcgi_temp_path $NGX/fastcgi;
	uwsgi_temp_path $NGX/uwsgi;
	scgi_temp_path $NGX/scgi;
	default_type application/octet-stream;
	sendfile on;
	server { listen 8080; root $WWW; }
}
EOF
ip netns exec $S "$NGINX" -p "$NGX" -c "$NGX/nginx.conf" -e "$NGX/error.log" &
PIDS+=($!)
ip netns exec $S python3 "$PEER" server "$TMP/peer" 8090 8091 &
PIDS+=($!)

gw e1 $O egress -l "[::]:9000" -r $SRV:8080 -a 10.73.3.0/24:8080 -a $SRV:8090
gw e2 $O egress -l 0.0.0.0:9001 -r $SRV:8090
gw i1 $I ingress -l 10.73.0.2:8080 -r $EGW:9000
gw i2 $I ingress -l 10.73.0.2:8090 -r $EGW:9001 -m 64
gw e3 $O egress -l 0.0.0.0:9003 -r $SRV:5201
gw i3 $I ingress -l 10.73.0.2:5201 -r $EGW:9003
ip netns exec $S "${IPERF3[@]}" -s -p 5201 > "$TMP/iperf.srv" 2>&1 &
PIDS+=($!)
[ $TPROXY = 1 ] && gw it $I ingress -t -l 0.0.0.0:8081 -r $EGW:9000
ok=0
for l in "$S 8080" "$S 8090" "$S 8091" "$S 5201" "$O 9000" "$O 9001" "$O 9003" \
	 "$I 8080" "$I 8090" "$I 5201"; do
	wait_listen $l || { echo "# nothing listens on $l"; ok=1; }
done
[ $TPROXY = 1 ] && { wait_listen $I 8081 || ok=1; }
tap_result $ok "nginx, the peer server, iperf3, three egress and $((3 + TPROXY)) ingress daemons listen"

# ---- (a) curl <- nginx, (b) subflows ----

M_PO=$(counter $O PassiveOpens) M_SJ=$(counter $O SubflowsJoined)
M_FB=$(counter $O Fallbacks) M_P2=$(path2_bytes)
fetch() {		# fetch DESC URL
	rm -f "$TMP/got"
	ip netns exec $C timeout 60 curl -sS -o "$TMP/got" "$2" 2> "$TMP/curl.err"
	local rc=$?
	[ $rc -eq 0 ] && cmp -s "$WWW/file" "$TMP/got"
	local r=$?
	[ $r -eq 0 ] || sed 's/^/# curl: /' "$TMP/curl.err"
	tap_result $r "$1: curl exit $rc, $(stat -c %s "$TMP/got" 2>/dev/null || echo 0) bytes, cmp"
}
fetch "(a) static: curl http://10.73.0.2:8080 through the pair" http://10.73.0.2:8080/file

po=$(( $(counter $O PassiveOpens) - M_PO ))
sj=$(( $(counter $O SubflowsJoined) - M_SJ ))
fb=$(( $(counter $O Fallbacks) - M_FB ))
p2=$(( $(path2_bytes) - M_P2 ))
[ $po -eq 1 ] && [ $sj -ge 1 ] && [ $fb -eq 0 ] && [ $p2 -ge $((SIZE / 8)) ]
tap_result $? "(b) one PSOCK connection between the gateways, $sj subflow(s) joined beside the control subflow, no fallback ($fb), path 2 carried $p2 bytes (want >= $((SIZE / 8)))"

# (k), started now, after (b) counted the PSOCK connections: its 10 s of
# header timeout pass during the tests before it.  An egress at the
# default verbosity (no -v), soft RLIMIT_NOFILE 64, --max-flows "0100"
# (decimal: 100, not octal 64), and a PSOCK client that sends 4 bytes of
# a header, then nothing.
(
	ulimit -Sn 64
	exec ip netns exec $O "$GW" egress -l 0.0.0.0:9004 -r $SRV:8090 -m 0100 \
		-b $BUF -n 2
) 2> "$TMP/e4.log" &
PIDS+=($!) PID_e4=$!
NOHDR=
if wait_listen $O 9004; then
	ip netns exec $I timeout 40 python3 "$PEER" nohdr $EGW 9004 > "$TMP/nohdr.out" 2>&1 &
	NOHDR=$!
fi

if [ $TPROXY = 1 ]; then
	fetch "(a) transparent: curl http://$SRV:8080 diverted by TPROXY" http://$SRV:8080/file
	grep -q "destination $SRV:8080" "$TMP/e1.log"
	tap_result $? "(a) transparent: the egress got $SRV:8080 in the header"
else
	no_tproxy "(a) transparent mode"
fi

# ---- (g) configuration files ----

# The egress of the pair from its file alone; the ingress's file says
# :8083, the command line's --listen :8082 overrides it.
cat > "$TMP/ce.conf" <<EOF
# psock-gw(8) egress, static to nginx
mode = egress
listen = [::]:9002
remote = $SRV:8080
allow = 10.73.3.0/24:8080
buffer = $BUF
streams = 2
verbose = 1
EOF
cat > "$TMP/ci.conf" <<EOF
mode	=	ingress
listen = 10.73.0.2:8083
remote = $EGW:9002

max-flows = 64
buffer = $BUF
streams = 2
verbose = 1
EOF
ip netns exec $O "$GW" -c "$TMP/ce.conf" 2> "$TMP/ce.log" &
PIDS+=($!) PID_ce=$!
ip netns exec $I "$GW" -c "$TMP/ci.conf" -l 10.73.0.2:8082 2> "$TMP/ci.log" &
PIDS+=($!) PID_ci=$!
wait_listen $O 9002 && wait_listen $I 8082
tap_result $? "(g) a pair from -c files listens (the ingress on the command line's :8082)"
ip netns exec $I ss -Htln "sport = :8083" | grep -q . && r=1 || r=0
tap_result $r "(g) the command line's --listen overrode the file's: nothing on :8083"
fetch "(g) from -c files: curl http://10.73.0.2:8082 through the pair" http://10.73.0.2:8082/file

badconf() {		# badconf DESC WANT-STDERR CONTENT [ARGS...]
	local desc=$1 want=$2 f=$TMP/bad.conf out rc
	printf '%b' "$3" > "$f"
	shift 3
	out=$(ip netns exec $I timeout 10 "$GW" -c "$f" "$@" 2>&1)
	rc=$?
	[ $rc -eq 2 ] && [ "$out" = "psock-gw: $f:$want" ]
	tap_result $? "(g) $desc: status $rc, '${out//$TMP\//}'"
}
G_OK='mode = ingress\nlisten = 10.73.0.2:8084\nremote = 10.73.1.2:9000\n'
badconf "unknown key" '4: unknown key "buffers"' "${G_OK}buffers = 4096\n"
badconf "bad address" '2: bad value for "listen": "10.73.0.256:8084"' \
	'mode = ingress\nlisten = 10.73.0.256:8084\nremote = 10.73.1.2:9000\n'
badconf "duplicate key" '4: duplicate "remote" (first on line 3)' "${G_OK}remote = 10.73.1.2:9001\n"
badconf "missing mode" '2: no "mode" (ingress or egress) in the file or on the command line' \
	'listen = 10.73.0.2:8084\nremote = 10.73.1.2:9000\n'
badconf "line too long" '4: line longer than 512 bytes' "${G_OK}# $(printf '%*s' 600 x)\n"
badconf "bad value under good ones" '5: bad value for "buffer": "100"' "${G_OK}# c\nbuffer = 100\n"
# Each file below ends in an error the daemon once missed or put
# elsewhere: none of them starts it.
G_EG='mode = egress\nlisten = [::]:8084\nremote = 10.73.3.2:8080\n'
badconf "IPv6 prefixes [ADDR6]/LEN:PORT and [ADDR6/LEN]:PORT taken, /129 refused" \
	'7: bad value for "allow": "[2001:db8::]/129:443"' \
	"${G_EG}allow = [2001:db8::]/32:443\nallow = [2001:db8::/32]:443\nallow = [::ffff:10.0.0.0]/104:0\nallow = [2001:db8::]/129:443\n"
badconf "brackets around IPv4 refused" '2: bad value for "listen": "[10.73.0.2]:8084"' \
	'mode = ingress\nlisten = [10.73.0.2]:8084\nremote = 10.73.1.2:9000\nnokey = 1\n'
badconf "an IPv4 prefix length over 32 refused (4294967304, not 8)" \
	'4: bad value for "allow": "10.0.0.0/4294967304:80"' \
	"${G_EG}allow = 10.0.0.0/4294967304:80\nnokey = 1\n"
badconf "no prefix length on listen" '2: bad value for "listen": "[::]/64:8084"' \
	'mode = ingress\nlisten = [::]/64:8084\nremote = 10.73.1.2:9000\n'
badconf "numbers are decimal: 0x10000 refused" '4: bad value for "buffer": "0x10000"' \
	"${G_OK}buffer = 0x10000\nnokey = 1\n"
badconf "NUL byte in a last line without a newline" '4: NUL byte in the line' \
	"${G_OK}nokey\0 = 1"
# psock-gw(8) gives the errors as badconf() checks them.
man=$(LC_ALL=C.UTF-8 MANWIDTH=1000 man -l "$TOP/Documentation/man/man8/psock-gw.8" 2>&1 |
	tr -s ' \n' '  ')
case "$man" in
*'status 2 and '*'psock-gw: FILE:LINE: reason'*) r=0 ;;
*) r=1; echo "# psock-gw(8): $(echo "$man" | grep -o 'status 2 and[^.]*')" ;;
esac
tap_result $r "(g) psock-gw(8) says \"psock-gw: FILE:LINE: reason\", as the daemon prints"
ip netns exec $I ss -Htln "sport = :8084" | grep -q . && r=1 || r=0
tap_result $r "(g) no partial start: nothing listens on the bad files' :8084"

# ---- (d) half-close both ways ----

out=$(ip netns exec $C timeout 30 python3 "$PEER" half 10.73.0.2 8090 1048576)
tap_result $? "(d) client FIN first: the server reads to the end, its answer still arrives ($out)"
out=$(ip netns exec $C timeout 30 python3 "$PEER" sfin 10.73.0.2 8090 524288)
rc=$?
sleep 0.5
got=$(cat "$TMP/peer/sfin" 2>/dev/null)
[ $rc -eq 0 ] && [ "$got" = 262144 ]
tap_result $? "(d) server FIN first: the client reads to the end, then sends 262144 bytes the server gets ($out; server got ${got:-nothing})"

# ---- (e) the egress's allow-list, from a PSOCK client in pgw-i ----

hdr() {			# hdr PORT TYPE DST DPORT [MAGIC]
	ip netns exec $I timeout 30 python3 "$PEER" hdr $EGW "$@"
}
EMPTY="0 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
out=$(hdr 9000 1 $SRV 8090)
[ "$out" = "reply: b'$EMPTY\\n'" ]
tap_result $? "(e) header for $SRV:8090 (allowed): relayed ($out)"
out=$(hdr 9000 1 $SRV 8091)
sleep 0.3
[ "${out#reply: }" != "b'$EMPTY\\n'" ] && [ ! -e "$TMP/peer/accepts.8091" ] &&
	grep -q "destination $SRV:8091 not allowed, refused" "$TMP/e1.log"
tap_result $? "(e) header for $SRV:8091 (not allowed): refused, the server saw no connection ($out)"
out=$(hdr 9000 1 $SRV 8080 0x12345678)
[ "${out#reply: }" != "b'$EMPTY\\n'" ] && grep -q "not a psock-gw version 1 header" "$TMP/e1.log"
tap_result $? "(e) a header with a bad magic: refused ($out)"
out=$(hdr 9001 1 $SRV 8090)
[ "${out#reply: }" != "b'$EMPTY\\n'" ] && grep -q "destination $SRV:8090 not allowed" "$TMP/e2.log"
tap_result $? "(e) an egress without --allow refuses transparent flows, even to its own --remote ($out)"

if [ $TPROXY = 1 ]; then
	out=$(ip netns exec $C timeout 30 python3 "$PEER" half $SRV 8090 65536)
	tap_result $? "(e) transparent: $SRV:8090 (allowed) through TPROXY ($out)"
	out=$(ip netns exec $C timeout 30 python3 "$PEER" half $SRV 8091 65536 2>&1 | tail -n 1)
	sleep 0.3
	[ ! -e "$TMP/peer/accepts.8091" ] &&
		[ "$(grep -c "destination $SRV:8091 not allowed" "$TMP/e1.log")" -ge 2 ]
	tap_result $? "(e) transparent: $SRV:8091 (not allowed) refused by the egress, the server saw no connection ($out)"
else
	no_tproxy "(e) transparent mode"
fi

# ---- (c) backpressure ----

ip netns exec $C timeout 120 python3 "$PEER" sink 10.73.0.2 8090 $BP_TOTAL "$TMP/peer" \
	> "$TMP/sink.out" 2>&1 &
SINK=$!
for i in $(seq 300); do
	[ -e "$TMP/peer/stalled" ] && break
	kill -0 $SINK 2>/dev/null || break
	sleep 0.1
done
stalled=$(cat "$TMP/peer/stalled" 2>/dev/null)
[ -n "$stalled" ] && [ "$stalled" -lt $BP_MAX ]
tap_result $? "(c) a server that does not read: the client's writes stop after ${stalled:-?} bytes (want < $BP_MAX of $BP_TOTAL)"

# While it is stalled: every flow of both daemons holds at most --buffer
# bytes each way (SIGUSR1 logs them), and the PSOCK connection has its
# subflows.
: > "$TMP/dump"
kill -USR1 $PID_i2 $PID_e2
sleep 0.5
cat "$TMP/i2.log" "$TMP/e2.log" | grep "relaying" > "$TMP/dump"
sed 's/^/# /' "$TMP/dump"
max=$(grep -o '[0-9]* buffered' "$TMP/dump" | awk 'BEGIN { m = -1 } $1 > m { m = $1 } END { print m }')
[ "$(grep -c relaying "$TMP/dump")" -ge 2 ] && [ "$max" -ge 0 ] && [ "$max" -le $BUF ]
tap_result $? "(c) SIGUSR1: the stalled flow holds at most $max bytes per direction in each daemon (bound $BUF)"
sf=$("$HICNCTL" -n $I psock show 2>&1 | grep ':9001' | grep -o 'subflows [0-9]*' | head -n 1)
echo "# hicnctl -n $I psock show: $sf"
[ "${sf#subflows }" -ge 2 ] 2>/dev/null
tap_result $? "(b) hicnctl psock show: the stalled flow's PSOCK connection has ${sf#subflows } subflows (want >= 2)"

: > "$TMP/peer/go"
wait $SINK
sed 's/^/# sink: /' "$TMP/sink.out"
want=$(sed -n 's/^sent \([0-9]* [0-9a-f]*\)$/\1/p' "$TMP/sink.out")
got=$(cat "$TMP/peer/sink" 2>/dev/null)
[ -n "$want" ] && [ "$want" = "$got" ] && [ "${want%% *}" = $BP_TOTAL ]
tap_result $? "(c) once the server reads, all $BP_TOTAL bytes arrive intact (${got:-nothing})"

# ---- splice() from a PSOCK socket ----

# psock-gw copies with recv()/send(): a splice() from a PSOCK socket into
# a pipe works, but through the kernel's copy (PSOCK has no splice_read),
# so it would save nothing.  That it works at all is checked here.
SPLICE='
import os, socket
l = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 259)
l.bind(("127.0.0.1", 0)); l.listen()
c = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 259)
c.connect(l.getsockname()); a, _ = l.accept()
c.sendall(b"x" * 300000); c.shutdown(socket.SHUT_WR)
r, w = os.pipe(); n = 0
while True:
    k = os.splice(a.fileno(), w, 65536)
    if not k:
        break
    n += len(os.read(r, k))
print(n)'
tap_expect "splice() from a PSOCK socket into a pipe: 300000 bytes" 300000 \
	ip netns exec $I timeout 30 python3 -c "$SPLICE"

# ---- (f) many flows ----

sleep 0.5
f0_i=$(nfds $PID_i2) f0_e=$(nfds $PID_e2)
out=$(ip netns exec $C timeout 120 python3 "$PEER" echo 10.73.0.2 8090 50 65536)
rc=$?
if [ $rc -ne 0 ]; then
	# Where the bytes of the flows left are: the daemons' buffers, the
	# PSOCK sockets' queues, the TCP sockets' queues.
	kill -USR1 $PID_i2 $PID_e2
	sleep 0.5
	grep -h "relaying\|connecting\|header" "$TMP/i2.log" "$TMP/e2.log" | tail -n 8 | sed 's/^/# /'
	for ns in $I $O; do
		"$HICNCTL" -n $ns psock show 2>&1 | grep -v LISTEN | sed "s/^/# $ns psock: /"
	done
	for ns in $C $I $O $S; do
		ip netns exec $ns ss -Htn state established | sed "s/^/# $ns tcp: /"
	done
fi
tap_result $rc "(f) 50 concurrent flows of 64 KiB each way: $out"
for i in $(seq 50); do
	[ "$(nfds $PID_i2)" = "$f0_i" ] && [ "$(nfds $PID_e2)" = "$f0_e" ] && break
	sleep 0.1
done
[ "$(nfds $PID_i2)" = "$f0_i" ] && [ "$(nfds $PID_e2)" = "$f0_e" ]
tap_result $? "(f) no descriptor left behind (ingress $f0_i -> $(nfds $PID_i2), egress $f0_e -> $(nfds $PID_e2))"

cpids=()
for i in $(seq 10); do
	ip netns exec $C timeout 60 curl -sS -o "$TMP/got.$i" http://10.73.0.2:8080/small &
	cpids+=($!)
done
wait_ok=0
for j in "${cpids[@]}"; do wait "$j" || wait_ok=1; done
n=0
for i in $(seq 10); do cmp -s "$WWW/small" "$TMP/got.$i" && n=$((n + 1)); done
[ $wait_ok = 0 ] && [ $n = 10 ]
tap_result $? "(f) 10 curl at once from nginx: $n intact"

# ---- (h) iperf3 ----

for dir in "" -R; do
	ip netns exec $C timeout 60 "${IPERF3[@]}" -c 10.73.0.2 -p 5201 -n 8M $dir \
		> "$TMP/iperf.cli" 2>&1
	rc=$?
	rx=$(awk '/receiver$/ { print $5, $6 }' "$TMP/iperf.cli" | tail -n 1)
	[ $rc -eq 0 ] && [ -n "$rx" ] || sed 's/^/# iperf3: /' "$TMP/iperf.cli" | tail -n 12
	[ $rc -eq 0 ] && [ -n "$rx" ]
	tap_result $? "(h) iperf3 -n 8M ${dir:-(client sends)} through the pair: exit $rc, receiver got ${rx:-nothing}"
done

# ---- (i) resets ----

aborts() {		# PSOCK connections either gateway reset
	echo $(( $(counter $I Aborts) + $(counter $O Aborts) ))
}
M_AB=$(aborts)
out=$(ip netns exec $C timeout 40 python3 "$PEER" rsts 10.73.0.2 8090)
tap_result $? "(i) the server resets: the client's read ends in a reset, not an end of stream ($out)"
rm -f "$TMP/peer/rstc"
out=$(ip netns exec $C timeout 40 python3 "$PEER" rstc 10.73.0.2 8090 "$TMP/peer")
rc=$?
for i in $(seq 100); do [ -s "$TMP/peer/rstc" ] && break; sleep 0.1; done
how=$(cat "$TMP/peer/rstc" 2>/dev/null)
[ $rc -eq 0 ] && [ "$how" = reset ]
tap_result $? "(i) the client resets: the server's read ends in a ${how:-nothing} (want reset; $out)"
ab=$(( $(aborts) - M_AB ))
[ $ab -ge 2 ]
tap_result $? "(i) each reset became an abort of the PSOCK connection between the gateways: Aborts +$ab (want >= 2)"

# ---- (j) path 2 cut in the middle of a flow ----

netem_path2() {		# netem_path2 ARGS...: both ends of path 2
	tc -n $I qdisc change dev i2 root netem "$@" &&
	tc -n $O qdisc change dev o2 root netem "$@"
}
lost() {		# subflows lost in both gateways' namespaces
	echo $(( $(counter $I SubflowsLostTimeout) + $(counter $I SubflowsLostError) +
		 $(counter $O SubflowsLostTimeout) + $(counter $O SubflowsLostError) ))
}
M_LOST=$(lost) M_P2=$(path2_bytes)
rm -f "$TMP/peer/dplx" "$TMP/peer/gate" "$TMP/peer/cut"
ip netns exec $C timeout 240 python3 "$PEER" dplx 10.73.0.2 8090 $CUT_MIB "$TMP/peer" \
	> "$TMP/dplx.out" 2>&1 &
DPLX=$!
for i in $(seq 1200); do
	[ -e "$TMP/peer/gate" ] && break
	kill -0 $DPLX 2>/dev/null || break
	sleep 0.1
done
[ -e "$TMP/peer/gate" ] && [ $(( $(path2_bytes) - M_P2 )) -ge 1048576 ]
tap_result $? "(j) a quarter of $CUT_MIB MiB crossed each way, path 2 carried $(( $(path2_bytes) - M_P2 )) bytes of it (want >= 1048576)"
netem_path2 delay 1ms loss 100%
: > "$TMP/peer/cut"
wait $DPLX
rc=$?
netem_path2 delay 1ms
sed 's/^/# /' "$TMP/dplx.out"
for i in $(seq 50); do [ -s "$TMP/peer/dplx" ] && break; sleep 0.1; done
sent=$(sed -n 's/.*; sent \([0-9]* [0-9a-f]*\)$/\1/p' "$TMP/dplx.out")
got=$(cat "$TMP/peer/dplx" 2>/dev/null)
[ $rc -eq 0 ] && [ -n "$sent" ] && [ "$sent" = "$got" ] && [ "${got%% *}" = $((CUT_MIB << 20)) ]
tap_result $? "(j) path 2 cut: $CUT_MIB MiB intact both ways (client exit $rc; the server got ${got:-nothing})"
lo=$(( $(lost) - M_LOST ))
[ $lo -ge 1 ]
tap_result $? "(j) path 2 cut: the gateways lost $lo subflow(s) of it (want >= 1), the flow went on over path 1"

# ---- (k) limits, SIGHUP, the header timeout ----

# No PSOCK: a seccomp filter fails socket(..., IPPROTO_PSOCK) with
# EPROTONOSUPPORT as on a host without psock.ko (the VM has it loaded).
# psock_gw_peer.py deny exits 4 where it cannot set a filter (the debug
# kernel has no seccomp).
deny_result() {		# deny_result STATUS DESC: a test under deny
	if [ "$rc" = 4 ]; then
		tap_result 0 "$2 # SKIP no seccomp filter (CONFIG_SECCOMP_FILTER): $out"
	else
		tap_result "$1" "$2"
	fi
}
out=$(ip netns exec $I timeout 5 python3 "$PEER" deny psock \
	"$GW" ingress -l 10.73.0.2:8096 -r $EGW:9001 2>&1)
rc=$?
[ $rc -eq 1 ] && [ "$out" = "psock-gw ingress: socket(PSOCK): Protocol not supported (is psock.ko loaded?)" ]
deny_result $? "(k) an ingress without PSOCK exits 1 before it listens: status $rc, '${out//$'\n'/; }'"
out=$(ip netns exec $O timeout 5 python3 "$PEER" deny epoll_wait \
	"$GW" egress -l 0.0.0.0:9005 -r $SRV:8090 2>&1)
rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "epoll_wait: Bad file descriptor"
deny_result $? "(k) a failed epoll_wait() ends the daemon with status 1: status $rc"

# Out of descriptors: an ingress with RLIMIT_NOFILE 64 (soft and hard)
# and --max-flows 1000 lowers it to 24 ((64 - 16) / 2); started with 25
# descriptors open (psock_gw_peer.py fds), it has 36 left for 18 flows of
# 2 after its epoll, signalfd and listener, so the 19th client finds it
# out of descriptors.  30 clients hold their flows open until $TMP/ik/
# release: the daemon must neither spin on its listener (CPU time) nor
# reset the clients it cannot take yet; they wait in the backlog, and
# all 30 are served once the first ones end.  A SIGHUP meanwhile is
# logged and changes nothing.  Its log is capped at 1 MiB (ulimit -f):
# an ingress that spins on its listener logs without end.
mkdir -p "$TMP/ik"
(
	ulimit -n 64 && ulimit -f 1024 && ulimit -c 0
	exec ip netns exec $I python3 "$PEER" fds 25 "$GW" ingress \
		-l 10.73.0.2:8095 -r $EGW:9001 -m 1000 -b $BUF -n 2
) 2> "$TMP/ik.log" &
PIDS+=($!) PID_ik=$!
wait_listen $I 8095
ip netns exec $C timeout 120 python3 "$PEER" hold 10.73.0.2 8095 30 "$TMP/ik" \
	> "$TMP/hold.out" 2>&1 &
HOLD=$!
for i in $(seq 150); do
	grep -q "not accepting" "$TMP/ik.log" && break
	sleep 0.1
done
sleep 1
grep "RLIMIT_NOFILE" "$TMP/ik.log" | grep -q "at most 24 flows, not 1000"
tap_result $? "(k) RLIMIT_NOFILE 64: --max-flows 1000 lowered to 24, logged"
hz=$(getconf CLK_TCK 2>/dev/null || echo 100)
cpu() { awk '{ print $14 + $15 }' /proc/"$1"/stat 2>/dev/null || echo 0; }
t0=$(cpu $PID_ik)
sleep 2
t1=$(cpu $PID_ik)
held=$(cat "$TMP/ik/held" 2>/dev/null)
n=$(grep -c "accept: Too many open files with [0-9]* flows open: not accepting until one ends (logged once)" "$TMP/ik.log")
[ $((t1 - t0)) -lt $((hz / 2)) ] && [ "$n" = 1 ]
tap_result $? "(k) out of descriptors with ${held:-?} flows: the ingress stops accepting (logged $n time(s), want 1), $((t1 - t0)) ticks of CPU in 2 s (want < $((hz / 2)))"
kill -HUP $PID_ik
sleep 0.5
kill -0 $PID_ik 2>/dev/null &&
	grep -q "SIGHUP: configuration is read at start only; restart to apply changes" "$TMP/ik.log"
tap_result $? "(k) SIGHUP with ${held:-?} flows open: the ingress lives on and logs that the configuration is read at start only"
: > "$TMP/ik/release"
wait $HOLD
rc=$?
out=$(cat "$TMP/hold.out")
[ $rc -eq 0 ] && [ "${held:-0}" -ge 1 ] && [ "$held" -lt 30 ]
r=$?
[ $r -eq 0 ] || { sed 's/^/# /' "$TMP/hold.out" | tail -n 5; grep -v "not accepting" "$TMP/ik.log" | tail -n 5 | sed 's/^/# ik: /'; }
tap_result $r "(k) the clients beyond the descriptors waited in the backlog, none reset, all served after the SIGHUP: ${out##*$'\n'}"

# The egress started before (a): its soft limit, its --max-flows, its
# header timeout.
lim=$(awk '/^Max open files/ { print $4 }' /proc/$PID_e4/limits 2>/dev/null)
[ "$lim" = $((2 * 100 + 16)) ] && grep -q "at most 100 flows$" "$TMP/e4.log"
tap_result $? "(k) -m 0100 is 100 flows (decimal), the soft RLIMIT_NOFILE 64 raised to ${lim:-?} (want $((2 * 100 + 16)))"
if [ -n "$NOHDR" ]; then
	wait $NOHDR
	rc=$?
else
	rc=1
fi
out=$(cat "$TMP/nohdr.out" 2>/dev/null)
[ $rc -eq 0 ] && grep -q "no header in time (10 s), refused" "$TMP/e4.log"
tap_result $? "(k) no header in 10 s: refused, logged at the default verbosity (${out##*$'\n'})"

# ---- SIGTERM ----

rc=0
for name in i1 i2 i3 e1 e2 e3 ci ce e4 ik $([ $TPROXY = 1 ] && echo it); do
	eval "p=\$PID_$name"
	kill -TERM "$p"
	wait "$p"
	s=$?
	grep -q "exiting" "$TMP/$name.log" && [ $s -eq 0 ] || { echo "# $name: status $s"; rc=1; }
done
tap_result $rc "SIGTERM: every daemon exits with status 0"
grep -h "psock-gw" "$TMP"/*.log | grep -v "flow [0-9]* (.*): \(accepted\|connected\|end of stream\|closed\|destination\)" |
	head -n 40 | sed 's/^/# log: /'

tap_done
