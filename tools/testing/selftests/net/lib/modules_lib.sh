#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Module life-cycle checks shared by the suites (sourced after tap_lib.sh).
# Each suite's modules.sh sets MOD (module name) and KO (path to the .ko),
# and leaves the module loaded as it found it.

mod_loaded() {
	[ -d "/sys/module/$MOD" ]
}

mod_ensure_loaded() {
	mod_loaded || insmod "$KO" "$@"
}

proto_listed() {	# proto_listed NAME: /proc/net/protocols has it
	awk -v p="$1" '$1 == p { f = 1 } END { exit !f }' /proc/net/protocols
}

slab_listed() {		# slab_listed NAME: a slab cache of that name exists
	awk -v p="$1" '$1 == p { f = 1 } END { exit !f }' /proc/slabinfo
}

# no_autoload CMD...: run CMD as if the module were not installed (the
# kernel's modprobe helper replaced by /bin/false), whatever this machine has
# under /lib/modules.
no_autoload() {
	local old rc
	old=$(cat /proc/sys/kernel/modprobe)
	echo /bin/false > /proc/sys/kernel/modprobe
	"$@"
	rc=$?
	echo "$old" > /proc/sys/kernel/modprobe
	return $rc
}

# hold_socket FAMILY TYPE PROTO: open a socket in the background; the pid
# goes to HOLD_PID once the socket exists.
hold_socket() {
	local out i
	out=$(mktemp)
	socktool hold "$@" >"$out" &
	HOLD_PID=$!
	for i in $(seq 100); do
		grep -q ready "$out" && break
		kill -0 "$HOLD_PID" 2>/dev/null || break
		sleep 0.1
	done
	grep -q ready "$out"
	local rc=$?
	rm -f "$out"
	return $rc
}

release_socket() {
	kill "$HOLD_PID" 2>/dev/null
	wait "$HOLD_PID" 2>/dev/null
	return 0
}

# rmmod must fail while a socket of the module is open, then succeed.
check_rmmod_refused() {		# FAMILY TYPE PROTO
	mod_ensure_loaded
	tap_check "$MOD: socket held open ($*)" hold_socket "$@"
	tap_check "$MOD: refcnt counts the open socket" \
		test "$(cat "/sys/module/$MOD/refcnt")" -ge 1
	! rmmod "$MOD" 2>/dev/null
	tap_result $? "$MOD: rmmod refused while a socket is open"
	tap_check "$MOD: module still loaded after refused rmmod" mod_loaded
	release_socket
	tap_check "$MOD: rmmod succeeds once the socket is closed" rmmod "$MOD"
	! mod_loaded
	tap_result $? "$MOD: module gone after rmmod"
}

# load_cycles N CMD...: N insmod/CMD/rmmod rounds; nothing may be left.
# On the debug kernel, where a round takes seconds, N / 4 of them (all N
# with LONG=1): kmemleak's scan at the end of the run sees what any round
# leaked.
load_cycles() {
	local n=$1 i bad=0
	shift
	case $(uname -r) in
	*-debug) [ "${LONG:-0}" = 1 ] || n=$(((n + 3) / 4)) ;;
	esac
	for i in $(seq "$n"); do
		insmod "$KO" || { bad=1; break; }
		"$@" || { echo "# round $i: workload failed"; bad=1; }
		rmmod "$MOD" || { bad=1; break; }
	done
	tap_result $bad "$MOD: $n load / use / unload cycles"
	! mod_loaded
	tap_result $? "$MOD: not loaded after the cycles"
}

# autoload_check FAMILY TYPE PROTO: with the module installed, socket()
# loads it by its alias.  "Installed" means a private module root holding
# only our .ko, indexed by depmod -b (depmod over the whole of /lib/modules
# takes over a minute under TCG), and the kernel's modprobe helper
# (/proc/sys/kernel/modprobe) pointed at "modprobe -d" on that root.  The
# kernel still resolves the alias it asks for against the module's own
# MODULE_ALIAS lines.
autoload_check() {
	local rel root helper old rc
	rel=$(uname -r)
	root=$(mktemp -d)
	helper=$root/modprobe
	old=$(cat /proc/sys/kernel/modprobe)
	mkdir -p "$root/lib/modules/$rel/extra" &&
	cp "$KO" "$root/lib/modules/$rel/extra/" &&
	touch "$root/lib/modules/$rel/"modules.{order,builtin,builtin.modinfo} &&
	depmod -b "$root" "$rel" &&
	printf '#!/bin/sh\nexec %s -d %s "$@"\n' "$(command -v modprobe)" "$root" >"$helper" &&
	chmod +x "$helper" &&
	echo "$helper" > /proc/sys/kernel/modprobe
	rc=$?
	tap_result $rc "$MOD: installed in a private module root"
	if [ $rc -eq 0 ]; then
		tap_check "$MOD: alias resolves" "$helper" -n -q "$MOD"
		tap_expect "$MOD: socket($*) autoloads the module" ok socktool try "$@"
		tap_check "$MOD: loaded by socket()" mod_loaded
		rmmod "$MOD"
	fi
	echo "$old" > /proc/sys/kernel/modprobe
	rm -rf "$root"
	! mod_loaded
	tap_result $? "$MOD: unloaded after the autoload check"
}
