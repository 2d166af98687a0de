#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Packaging, in the VM, for the running kernel:
#   1. make install into a staging root (DESTDIR = INSTALL_MOD_PATH = a
#      temporary folder): every file expected is there (modules, uapi
#      headers, library, CLI, man pages, bash completion), the manifest
#      lists exactly what is there, and make uninstall leaves no file;
#      install without a build fails and writes nothing;
#   2. make install into the VM's system: the modules into
#      /lib/modules/$(uname -r)/extra (a tmpfs mounted over /lib/modules for
#      the test, holding only the kernel's module lists, so depmod is quick
#      and nothing of the host's is touched), the rest into a DESTDIR;
#      modprobe loads both modules with the project's version, socket()
#      autoloads them after rmmod, and after make uninstall nothing is
#      left and modprobe fails;
#   3. the modules DKMS built on the host (make dkms-check, run by make
#      check: the VM cannot afford to compile) load with the same version;
#   4. every man page passes man --warnings.
# The harness loaded hicn.ko and psock.ko before; they are loaded again
# from the same files at the end, as it expects.

cd "$(dirname "$0")" || exit 1
. ../lib/tap_lib.sh

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
STAGE=$(mktemp -d)
SYSDEST=$(mktemp -d)
SAVED=$(mktemp -d)
MOUNTED=

mk() {			# make in the top folder; its output as TAP comments
	local rc
	make -s --no-print-directory -C "$TOP" KDIR="$KDIR" BUILD="$BUILD" "$@" \
		> >(sed 's/^/# /') 2>&1
	rc=$?
	wait
	return $rc
}

files_in() {		# every file and link under $1, one a line
	(cd "$1" && find . ! -type d | sed 's|^\.||' | sort)
}

man_warnings() {	# what groff warns of, nothing else
	# From the man root, where a link page's ".so man3/page.3" is found.
	(cd "$TOP/Documentation/man" &&
	 LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "${1#"$TOP"/Documentation/man/}" 2>&1 >/dev/null)
}

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
	rm -rf "$STAGE" "$SYSDEST" "$SAVED"
}
trap cleanup EXIT

# 1. A staging root.  Man pages: every one of Documentation/man/.
mapfile -t PAGES < <(cd "$TOP" && ls Documentation/man/man*/*.[1-8])
for p in man7/hicn.7 man7/psock.7 man8/hicnctl.8; do
	tap_check "man page $p exists" test -f "$TOP/Documentation/man/$p"
done

out=$(make -s --no-print-directory -C "$TOP" KDIR="$KDIR" BUILD=/nonexistent \
	install DESTDIR="$STAGE" INSTALL_MOD_PATH="$STAGE" 2>&1)
rc=$?
[ $rc -ne 0 ] && echo "$out" | grep -q "hicn.ko is missing: run make first"
tap_result $? "install without a build fails with \"run make first\" (status $rc)"
tap_expect "install without a build wrote nothing" "" files_in "$STAGE"

tap_check "staging: make install DESTDIR INSTALL_MOD_PATH" \
	mk install DESTDIR="$STAGE" INSTALL_MOD_PATH="$STAGE"

P=$STAGE/usr/local
expect=(include/linux/hicn.h include/linux/psock.h include/linux/hicn_netlink.h
	include/linux/psock_netlink.h sbin/hicnctl
	share/bash-completion/completions/hicnctl share/hicn-psock/manifest)
for p in "${PAGES[@]}"; do
	expect+=("share/man/${p#Documentation/man/}")
done
# The library: libhcn, shared, static and its pkg-config file.
expect+=(include/hcn.h)
for l in libhcn.so.1 libhcn.a pkgconfig/hcn.pc; do
	f=$(cd "$P" && find lib* -path "*/$l" 2>/dev/null | head -n1)
	expect+=("${f:-lib/$l}")
done
missing=
for f in "${expect[@]}"; do
	[ -e "$P/$f" ] || missing="$missing $f"
done
[ -z "$missing" ]
tap_result $? "staging: ${#expect[@]} files installed under PREFIX${missing:+ (missing:$missing)}"

for m in hicn psock; do
	ko=$(find "$STAGE$MODS/extra" -name "$m.ko*" 2>/dev/null)
	[ "$(echo "$ko" | wc -w)" = 1 ]
	tap_result $? "staging: $m module in lib/modules/$REL/extra (${ko#$STAGE})"
	tap_expect "staging: installed $m is version $VERSION" "$VERSION" \
		modinfo -F version "$ko"
	tap_check "staging: depmod indexed $m (modprobe -d resolves it)" \
		modprobe -d "$STAGE" -S "$REL" -n -q "$m"
done
tap_check "staging: installed hicn(7) names version $VERSION" \
	grep -q "^\.TH .*\"hicn-psock $VERSION\"" "$P/share/man/man7/hicn.7"
tap_expect "staging: installed hicnctl -V" "hicnctl $VERSION" "$P/sbin/hicnctl" -V
tap_check "staging: bash completion defines hicnctl's" \
	bash -c ". '$P/share/bash-completion/completions/hicnctl' && complete -p hicnctl >/dev/null"

# The manifest lists every file install put, no more.
listed=$(sed -n 's/^\(mod\|file\) //p' "$P/share/hicn-psock/manifest" | sort)
tap_expect "staging: the manifest lists exactly the installed files" \
	"$(files_in "$STAGE")" echo "$listed"

tap_check "staging: make uninstall" \
	mk uninstall DESTDIR="$STAGE" INSTALL_MOD_PATH="$STAGE"
tap_expect "staging: no file left after uninstall" "" files_in "$STAGE"

# 2. The VM's system.  The harness's modules go first.
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

# 3. The modules DKMS built on the host.
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

# 4. The man pages, as make man-check does on the host.
for p in "${PAGES[@]}"; do
	tap_expect "man --warnings: $p" "" man_warnings "$TOP/$p"
done

tap_done
