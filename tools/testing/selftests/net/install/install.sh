#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Packaging, in the VM, for the running kernel (install/staging.sh checks
# a staging root's files and manifest on the build machine, make
# man-check the man pages):
#   1. make install into the VM's system: the modules into
#      /lib/modules/$(uname -r)/extra (a tmpfs mounted over /lib/modules for
#      the test, holding only the kernel's module lists, so depmod is quick
#      and nothing of the host's is touched), the rest into a DESTDIR;
#      modprobe loads both modules with the project's version, socket()
#      autoloads them after rmmod, and after make uninstall nothing is
#      left and modprobe fails;
#   2. the modules DKMS built on the host (make dkms-check, run by make
#      check: the VM cannot afford to compile) load with the same version.
# The harness loaded hicn.ko and psock.ko before; they are loaded again
# from the same files at the end, as it expects.

cd "$(dirname "$0")" || exit 1
. ../lib/tap_lib.sh
. ./install_lib.sh

TOP=$(cd ../../../../.. && pwd)
REL=$(uname -r)
VERSION=$(cat "$TOP/VERSION")
HICN_KO=${HICN_KO:?HICN_KO must point to hicn.ko}
PSOCK_KO=${PSOCK_KO:?PSOCK_KO must point to psock.ko}
BUILD=${HICN_KO%/"$REL"/net/hicn/hicn.ko}
MODS=/lib/modules/$REL
# The kernel's build folder: /lib/modules/<release>/build for Debian's
# kernels (make takes the release from that path), the tree of the debug
# kernel otherwise (its include/config/kernel.release).
if [ -f "$MODS/build/Makefile" ]; then
	KDIR_REAL=$(readlink -f "$MODS/build")
	KDIR=$MODS/build
else
	KDIR_REAL=$(readlink -f "$TOP/.cache/debug-kernel/current")
	KDIR=$KDIR_REAL
fi
SYSDEST=$(mktemp -d)
SAVED=$(mktemp -d)
MOUNTED=
MK_VARS=(KDIR="$KDIR" BUILD="$BUILD")

loaded() { [ -d "/sys/module/$1" ]; }

unload() {
	local m
	for m in psock hicn; do
		loaded $m && rmmod $m
	done
	! loaded hicn && ! loaded psock
}

cleanup() {
	unload 2>/dev/null
	[ -n "$MOUNTED" ] && { umount /lib/modules 2>/dev/null || umount -l /lib/modules; }
	insmod "$HICN_KO" && insmod "$PSOCK_KO" ||
		echo "# could not load the harness's modules back"
	rm -rf "$SYSDEST" "$SAVED"
}
trap cleanup EXIT

# 1. The VM's system.  The harness's modules go first.
tap_check "rmmod the harness's hicn and psock" unload

# Copies, not links: virtme-ng's module folder of a kernel tree (the debug
# kernel) links these files into the read-only tree.
cp -L "$MODS"/modules.order "$MODS"/modules.builtin "$MODS"/modules.builtin.modinfo \
	"$SAVED/" 2>/dev/null
# The tmpfs goes over /lib/modules as a whole: the debug kernel's
# /lib/modules/<release> is virtme-ng's read-only mount of its tree.
mount -t tmpfs -o size=64m hicn-install /lib/modules && MOUNTED=1 &&
	mkdir -p "$MODS" && cp -a "$SAVED"/. "$MODS/" && ln -s "$KDIR_REAL" "$MODS/build" &&
	touch "$MODS"/modules.{order,builtin,builtin.modinfo} && depmod "$REL"
tap_result $? "system: /lib/modules on a tmpfs with $REL's module lists, depmod"

tap_check "system: make install (modules for $REL, the rest into a DESTDIR)" \
	mk install DESTDIR="$SYSDEST"
for m in hicn psock; do
	tap_check "system: modprobe $m" modprobe "$m"
	tap_expect "system: /sys/module/$m/version" "$VERSION" cat "/sys/module/$m/version"
	path=$(modinfo -n "$m" 2>&1)
	case $path in
	"$MODS/extra/"*) tap_result 0 "system: modinfo -n $m: ${path#$MODS/}" ;;
	*) tap_result 1 "system: modinfo -n $m: $path, not in $MODS/extra" ;;
	esac
done
tap_check "system: rmmod both" unload
tap_expect "system: socket(AF_HICN, SOCK_CONS) autoloads hicn" ok socktool try 22 cons 0
tap_check "system: hicn loaded by socket()" loaded hicn
tap_expect "system: socket(AF_INET, SOCK_STREAM, 259) autoloads psock" ok \
	socktool try inet stream 259
tap_check "system: psock loaded by socket()" loaded psock
tap_check "system: rmmod both after autoload" unload

tap_check "system: make uninstall" mk uninstall DESTDIR="$SYSDEST"
left=$(find "$MODS" \( -name 'hicn.ko*' -o -name 'psock.ko*' \))
tap_expect "system: no module file left in $MODS" "" echo "$left"
! grep -q -E '(hicn|psock)\.ko' "$MODS/modules.dep"
tap_result $? "system: depmod forgot both modules"
for m in hicn psock; do
	! modprobe -q "$m" 2>/dev/null
	tap_result $? "system: modprobe $m fails after uninstall"
done
tap_expect "system: socket(AF_HICN) after uninstall: EAFNOSUPPORT" EAFNOSUPPORT \
	socktool try 22 cons 0
tap_expect "system: socket(AF_INET, ..., 259) after uninstall: EPROTONOSUPPORT" \
	EPROTONOSUPPORT socktool try inet stream 259
tap_expect "system: no file left in the DESTDIR" "" files_in "$SYSDEST"
# udevd's libkmod may hold the index files open: a lazy unmount then.
umount /lib/modules 2>/dev/null || umount -l /lib/modules
rc=$?
[ $rc -eq 0 ] && MOUNTED=
tap_result $rc "system: /lib/modules unmounted"

# 2. The modules DKMS built on the host.
DKMS=$TOP/.cache/dkms/$REL
for m in hicn psock; do
	ko=$(ls "$DKMS/$m".ko* 2>/dev/null | head -n1)
	if [ -z "$ko" ]; then
		tap_result 1 "dkms: $m built for $REL (none in $DKMS: make dkms-check)"
		continue
	fi
	tap_result 0 "dkms: $m built for $REL ($(basename "$ko"))"
	tap_check "dkms: insmod $(basename "$ko")" insmod "$ko"
	tap_expect "dkms: $m version" "$VERSION" cat "/sys/module/$m/version"
done
tap_expect "dkms: socket(AF_HICN, SOCK_CONS) on the DKMS-built hicn" ok \
	socktool try 22 cons 0
tap_expect "dkms: socket(AF_INET6, SOCK_STREAM, 259) on the DKMS-built psock" ok \
	socktool try inet6 stream 259
tap_check "dkms: rmmod both" unload

tap_done
