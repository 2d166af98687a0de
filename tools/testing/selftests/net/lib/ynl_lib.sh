#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel's YNL client for a test script (sourced), one Python process
# for all its requests (ynl_driver.py):
#
#   ynl_start NETNS SPEC   start it in NETNS (not in a subshell: the shell
#                          keeps its pipes); fails if it cannot load
#                          SPEC, saying why as TAP comments
#   ynl --do OP [--json JSON]    as cli.py --output-json: the reply or the
#   ynl --dump OP [--json JSON]  error on standard output, status 0 or 1
#   ynl_stop
#   ynl_tap_start NETNS SPEC  ynl_start as a TAP result (also when
#                          tools/net/ynl is missing); status as ynl_start's
#
# KSRC is the kernel tree whose tools/net/ynl is used.

YNL_DIR=$KSRC/tools/net/ynl
YNL_PID=

ynl_start() {		# ynl_start NETNS SPEC
	local fifo line

	fifo=$(mktemp -d)
	mkfifo "$fifo/in" "$fifo/out"
	# No schema: make netlink-check (ynl-regen.sh) checks the spec against
	# it on the build machine, and under TCG jsonschema costs seconds.
	ip netns exec "$1" python3 "$(dirname "${BASH_SOURCE[0]}")/ynl_driver.py" \
		"$YNL_DIR" "$2" "" <"$fifo/in" >"$fifo/out" 2>&1 &
	YNL_PID=$!
	exec {YNL_IN}>"$fifo/in" {YNL_OUT}<"$fifo/out"
	rm -rf "$fifo"
	IFS= read -r line <&"$YNL_OUT" || { ynl_stop; return 1; }
	[ "$line" = ynl-ready ] && return 0
	# What went wrong (a spec the schema refuses): all of it.
	{ printf '%s\n' "$line"; cat <&"$YNL_OUT"; } | sed 's/^/# /'
	ynl_stop
	return 1
}

# The whole answer is read before any of it is printed: a reader that
# stops early (grep -q) must not leave lines for the next request.
ynl() {			# ynl --do|--dump OP [--json JSON]
	local mode op json= line out=

	case $1 in
	--do) mode=do ;;
	--dump) mode=dump ;;
	*) echo "ynl: --do or --dump" >&2; return 2 ;;
	esac
	op=$2
	[ "$3" = --json ] && json=$4
	printf '%s %s %s\n' "$mode" "$op" "$json" >&"$YNL_IN"
	while IFS= read -r line <&"$YNL_OUT"; do
		case $line in
		"ynl-end "*)
			printf '%s' "$out"
			return "${line#ynl-end }" ;;
		esac
		out+=$line$'\n'
	done
	echo "ynl: the driver is gone" >&2
	return 2
}

ynl_stop() {
	[ -n "$YNL_PID" ] || return 0
	exec {YNL_IN}>&- {YNL_OUT}<&-
	wait "$YNL_PID"
	YNL_PID=
}

ynl_tap_start() {	# ynl_tap_start NETNS SPEC
	if [ ! -f "$YNL_DIR/lib/ynl.py" ]; then
		tap_result 1 "ynl: $YNL_DIR/lib/ynl.py missing (tools/testing/vm/setup.sh)"
		return 1
	fi
	local rc

	ynl_start "$1" "$2"
	rc=$?
	tap_result $rc "ynl: the kernel's YNL library loads $2"
	return $rc
}
