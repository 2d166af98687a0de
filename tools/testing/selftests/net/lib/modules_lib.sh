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
load_cycles() {
	local n=$1 i bad=0
	shift
	for i in $(seq "$n"); do
		insmod "$KO" || { bad=1; break; }
		"$@" || { echo "# round $i: workload failed"; bad=1; }
		rmmod "$MOD" || { bad=1; break; }
	done
	tap_result $bad "$MOD: $n load / use / unload cycles"
	! mod_loaded
	tap_result $? "$MOD: not loaded after the cycles"
}

# autoload_check FAMILY TYPE PROTO: with the module installed under
# /lib/modules/$(uname -r)/extra, socket() loads it by its alias.  The VM
# (virtme-ng) already gives the guest a tmpfs-backed overlay on /usr/lib, so
# the copy never reaches the host; elsewhere we mount our own overlay.
autoload_check() {
	local rel mods tmp="" rc fstype
	rel=$(uname -r)
	mods=/lib/modules/$rel
	fstype=$(findmnt -n -o FSTYPE -T "$mods")
	if [ "$fstype" != overlay ]; then
		tmp=$(mktemp -d)
		mount -t tmpfs tmpfs "$tmp" &&
		mkdir -p "$tmp/upper" "$tmp/work" &&
		mount -t overlay overlay \
			-o "lowerdir=$mods,upperdir=$tmp/upper,workdir=$tmp/work" "$mods"
	fi
	mkdir -p "$mods/extra" && cp "$KO" "$mods/extra/$MOD.ko" && depmod -a "$rel"
	rc=$?
	tap_result $rc "$MOD: installed into an overlay of $mods"
	if [ $rc -eq 0 ]; then
		tap_check "$MOD: alias resolves" modprobe -n -q "$MOD"
		tap_expect "$MOD: socket($*) autoloads the module" ok socktool try "$@"
		tap_check "$MOD: loaded by socket()" mod_loaded
		rmmod "$MOD"
	fi
	rm -f "$mods/extra/$MOD.ko"
	depmod -a "$rel"
	if [ -n "$tmp" ]; then
		umount "$mods"
		umount "$tmp"
		rmdir "$tmp"
	fi
	! modprobe -n -q "$MOD" 2>/dev/null
	tap_result $? "$MOD: uninstalled again after the autoload check"
	! mod_loaded
	tap_result $? "$MOD: unloaded after the autoload check"
}
