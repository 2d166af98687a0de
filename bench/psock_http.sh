#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Issue 16's fallback figure: COUNT sequential HTTP/1.0 GETs of a 1 KiB
# file, each on a new connection (http_get), from a PSOCK client to a
# plain TCP web server (Debian's nginx, unpacked into .cache/apps by
# tools/testing/vm/setup.sh), against the same GETs over TCP.  A web
# server waits for its client to speak, so a PSOCK client that waits for
# a server hello pays hello_timeout_ms per connection; with
# PSOCK_OPTIMISTIC its request goes out at once (Documentation/psock.rst,
# "Optimistic connect").  The goal: at most 1.05x TCP's time.  Seconds
# per COUNT GETs, median [min-max] of BENCH_REPS interleaved runs
# (lib.sh), and the ratio of the medians to TCP, in the same VM run.  The
# PSOCK client without PSOCK_OPTIMISTIC is measured on COUNT / 100 GETs
# (each costs the hello timeout) and scaled to COUNT.  The client with
# PSOCK_OPTIMISTIC sets it and the stream counts with setsockopt() on each
# socket; the one with net.psock.optimistic=1 sets no option at all, as a
# program run unmodified under that sysctl does.  BENCH_SIZE
# replaces COUNT (default 1000).
#
#   phttp-a  veth-a 10.76.1.1 ======== 10.76.1.2 veth-b  phttp-b (nginx)
#
# With BENCH_OUT set, the figures also go to $BENCH_OUT/psock_http.dat.

cd "$(dirname "$0")" || exit 1
. ./lib.sh
A=phttp-a
B=phttp-b
X=./http_get
COUNT=${BENCH_SIZE:-1000}
SLOW=$(((COUNT + 99) / 100))
PORT=8090
APPS=$(cd .. && pwd)/.cache/apps
NGINX=$APPS/usr/sbin/nginx
TMP=$(mktemp -d)
NGINX_PID=

cleanup() {
	[ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null && wait "$NGINX_PID" 2>/dev/null
	ip netns del $A 2>/dev/null
	ip netns del $B 2>/dev/null
	rm -rf "$RESULTS" "$TMP"
}
trap cleanup EXIT

setup() {
	ip netns add $A && ip netns add $B &&
	ip link add veth-a netns $A type veth peer name veth-b netns $B &&
	ip -n $A addr add 10.76.1.1/24 dev veth-a &&
	ip -n $B addr add 10.76.1.2/24 dev veth-b &&
	ip -n $A link set veth-a up && ip -n $B link set veth-b up &&
	ip -n $A link set lo up && ip -n $B link set lo up || return 1
	mkdir -p "$TMP/www" && head -c 1024 /dev/urandom > "$TMP/www/file" &&
	cat > "$TMP/nginx.conf" <<EOC
user root;
worker_processes 1;
daemon off;
pid $TMP/nginx.pid;
error_log $TMP/error.log;
events { worker_connections 64; }
http {
	access_log off;
	client_body_temp_path $TMP/body;
	proxy_temp_path $TMP/proxy;
	fastcgi_temp_path $TMP/fastcgi;
	uwsgi_temp_path $TMP/uwsgi;
	scgi_temp_path $TMP/scgi;
	default_type application/octet-stream;
	server {
		listen $PORT;
		root $TMP/www;
	}
}
EOC
	ip netns exec $B "$NGINX" -p "$TMP" -c "$TMP/nginx.conf" -e "$TMP/error.log" &
	NGINX_PID=$!
	listening $B $PORT
}

# get COUNT ARGS...: seconds for COUNT GETs, scaled to $COUNT.
get() {
	local n=$1 out
	shift
	out=$(ip netns exec $A timeout 600 $X -c "$n" "$@" 10.76.1.2 $PORT /file) ||
		return 1
	echo "$out" | awk -v c="$COUNT" '{ printf "%.3f\n", $1 * c / $2 }'
}

[ -x "$NGINX" ] || { echo "psock_http: no nginx in $APPS (tools/testing/vm/setup.sh)" >&2; exit 1; }
setup || { echo "psock_http: set-up failed" >&2; exit 1; }

start=$(date +%s)
for r in $(seq "$REPS"); do
	run tcp get "$COUNT" -p tcp
	run opt get "$COUNT" -p psock -O
	run opt4 get "$COUNT" -p psock -O -n 4
	ip netns exec $A sysctl -qw net.psock.optimistic=1
	run optd get "$COUNT" -p psock -d
	ip netns exec $A sysctl -qw net.psock.optimistic=0
	run wait get "$SLOW" -p psock
	echo "# run $r of $REPS done after $(($(date +%s) - start)) s"
done

rc=0
grep -q ' FAILED$' "$RESULTS" && rc=1
dat=/dev/null
[ -n "$BENCH_OUT" ] && dat=$BENCH_OUT/psock_http.dat
tcp=$(stat tcp)
ratio() {
	echo "$1 $tcp" | awk '$1 == "FAILED" || $NF == "FAILED" { print "-"; exit }
		{ printf "%.2f", $1 / $5 }'
}
{
	echo "# runs $REPS gets $COUNT"
	echo "# client seconds_median min max"
} > "$dat"
echo "$COUNT sequential HTTP/1.0 GETs of 1 KiB from nginx (plain TCP), a connection each,"
echo "veth without delay; seconds, median [min-max] of $REPS interleaved runs; ratio to TCP (goal <= 1.05)"
printf '%-34s %-24s %s\n' client seconds "/ TCP"
for k in tcp opt opt4 optd wait; do
	case $k in
	tcp) name="TCP" ;;
	opt) name="PSOCK, PSOCK_OPTIMISTIC" ;;
	opt4) name="PSOCK, PSOCK_OPTIMISTIC, asks 4" ;;
	optd) name="PSOCK, net.psock.optimistic=1" ;;
	wait) name="PSOCK, waits for a hello (x100)" ;;
	esac
	st=$(stat $k)
	printf '%-34s %-24s %s\n' "$name" "$(spread "$st" 3)" "$(ratio "$st")"
	echo "$st" | awk -v k=$k '$1 != "FAILED" { print k, $1, $2, $3 }' >> "$dat"
done
echo "($REPS runs in $(($(date +%s) - start)) s)"
exit $rc
