#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make install and make uninstall into a staging root (DESTDIR =
# INSTALL_MOD_PATH = a temporary folder), for every kernel the modules are
# built for: every file expected is there (modules of each kernel, uapi
# headers, library, CLI, man pages, bash completion), the manifest lists
# exactly what is there, and make uninstall leaves no file; install
# without a build fails and writes nothing.  Then libhcn on its own: its
# soname and symbol versions, what links with it, its install and
# uninstall.
#
# Nothing here loads a module, so it runs on the build machine (make
# check runs it as make install-check, for the VM's kernels); the VM's
# install/install.sh installs into a running system and loads what it put.
#
# Usage: staging.sh [MAKE VARIABLES...]   e.g. VM_TARGETS=1, KDIR=...

cd "$(dirname "$0")" || exit 1
. ../lib/tap_lib.sh
. ./install_lib.sh

TOP=$(cd ../../../../.. && pwd)
VERSION=$(cat "$TOP/VERSION")
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT

MK_VARS=("$@")
# The kernels install puts modules for, as make sees them.
mapfile -t RELS < <(make -s --no-print-directory -C "$TOP" "${MK_VARS[@]}" print-releases)
[ ${#RELS[@]} -gt 0 ]
tap_result $? "kernels to install for: ${RELS[*]}"

mapfile -t PAGES < <(cd "$TOP" && ls Documentation/man/man*/*.[1-8])
for p in man7/hicn.7 man7/psock.7 man8/hicnctl.8 man8/psockize.8 man8/psock-gw.8; do
	tap_check "man page $p exists" test -f "$TOP/Documentation/man/$p"
done

out=$(make -s --no-print-directory -C "$TOP" "${MK_VARS[@]}" BUILD=/nonexistent \
	install DESTDIR="$STAGE" INSTALL_MOD_PATH="$STAGE" 2>&1)
rc=$?
[ $rc -ne 0 ] && echo "$out" | grep -q "hicn.ko is missing: run make first"
tap_result $? "install without a build fails with \"run make first\" (status $rc)"
tap_expect "install without a build wrote nothing" "" files_in "$STAGE"

tap_check "make install DESTDIR INSTALL_MOD_PATH" \
	mk install DESTDIR="$STAGE" INSTALL_MOD_PATH="$STAGE"

P=$STAGE/usr/local
expect=(include/linux/hicn.h include/linux/psock.h include/linux/hicn_netlink.h
	include/linux/psock_netlink.h sbin/hicnctl sbin/psock-gw bin/psockize
	lib/psockize/libpsockize.so lib/psockize/psockize-bpf
	share/bash-completion/completions/hicnctl share/hicn-psock/manifest
	lib/systemd/system/psock-gw@.service share/doc/hicn-psock/psock-gw.conf.example)
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
tap_result $? "${#expect[@]} files installed under PREFIX${missing:+ (missing:$missing)}"

for rel in "${RELS[@]}"; do
	for m in hicn psock; do
		ko=$(find "$STAGE/lib/modules/$rel/extra" -name "$m.ko*" 2>/dev/null)
		[ "$(echo "$ko" | wc -w)" = 1 ]
		tap_result $? "$rel: $m module in lib/modules/$rel/extra (${ko#$STAGE})"
		tap_expect "$rel: installed $m is version $VERSION" "$VERSION" \
			modinfo -F version "$ko"
		tap_check "$rel: depmod indexed $m (modprobe -d resolves it)" \
			modprobe -d "$STAGE" -S "$rel" -n -q "$m"
	done
done
tap_check "installed hicn(7) names version $VERSION" \
	grep -q "^\.TH .*\"hicn-psock $VERSION\"" "$P/share/man/man7/hicn.7"
tap_expect "installed hicnctl -V" "hicnctl $VERSION" "$P/sbin/hicnctl" -V
tap_expect "installed psockize -V" "psockize $VERSION" "$P/bin/psockize" -V
tap_expect "installed psock-gw -V" "psock-gw $VERSION" "$P/sbin/psock-gw" -V
tap_expect "psock-gw@.service runs the installed psock-gw with -c /etc/psock-gw/%i.conf" \
	"ExecStart=/usr/local/sbin/psock-gw -c /etc/psock-gw/%i.conf" \
	grep "^ExecStart=" "$P/lib/systemd/system/psock-gw@.service"
# Every line of the example is read (a bad line fails before the
# options); then the bad -b of the command line.
tap_expect "psock-gw -c reads the installed example configuration" \
	"psock-gw ingress: bad value for -b: \"1\""$'\n'"status 2" \
	sh -c '"$1" -c "$2" -b 1; echo "status $?"' sh "$P/sbin/psock-gw" \
	"$P/share/doc/hicn-psock/psock-gw.conf.example"
tap_expect "installed psockize names the installed library" \
	"/usr/local/lib/psockize/libpsockize.so" \
	sed -n 's/^LIB=\${PSOCKIZE_LIB:-\(.*\)}$/\1/p' "$P/bin/psockize"
tap_expect "installed psockize names the installed psockize-bpf" \
	"/usr/local/lib/psockize/psockize-bpf" \
	sed -n 's/^BPF=\${PSOCKIZE_BPF:-\(.*\)}$/\1/p' "$P/bin/psockize"
tap_check "bash completion defines hicnctl's" \
	bash -c ". '$P/share/bash-completion/completions/hicnctl' && complete -p hicnctl >/dev/null"

# The manifest lists every file install put, no more.
listed=$(sed -n 's/^\(mod\|file\) //p' "$P/share/hicn-psock/manifest" | sort)
tap_expect "the manifest lists exactly the installed files" \
	"$(files_in "$STAGE")" echo "$listed"

tap_check "make uninstall" mk uninstall DESTDIR="$STAGE" INSTALL_MOD_PATH="$STAGE"
tap_expect "no file left after uninstall" "" files_in "$STAGE"

# libhcn alone (make -C userspace/lib install, as a distribution would
# package it): its soname, its symbol versions, what links with it.
LIB=$TOP/userspace/lib
HT=$TOP/tools/testing/selftests/net/hicn
tap_expect "libhcn.so.1.4.0 has soname libhcn.so.1" "libhcn.so.1" \
	sh -c "readelf -d '$LIB/libhcn.so.1.4.0' | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p'"
tap_expect "libhcn exports only hcn_*, at HCN_1.0 to HCN_1.4" "" \
	sh -c "readelf --dyn-syms -W '$LIB/libhcn.so.1.4.0' |
	       awk '\$5 == \"GLOBAL\" && \$7 != \"UND\" && \$8 !~ /^hcn_.*@@HCN_1\\.[0-4]\$/ && \$8 != \"hcn_monitor@HCN_1.1\" && \$8 !~ /^HCN_1\\.[0-4]\$/'"
tap_expect "the socket API stays at HCN_1.0, configuration at HCN_1.1, faces and routes at HCN_1.2" \
	"hcn_socket@@HCN_1.0 hcn_route_add@@HCN_1.2 hcn_cs_get@@HCN_1.1" \
	sh -c "echo \$(readelf --dyn-syms -W '$LIB/libhcn.so.1.4.0' | awk '\$8 == \"hcn_socket@@HCN_1.0\" || \$8 == \"hcn_cs_get@@HCN_1.1\" || \$8 == \"hcn_route_add@@HCN_1.2\" { print \$8 }' | sort -r)"
tap_expect "hcn_monitor: HCN_1.1's (namespace events) stays, HCN_1.3's is the default" \
	"hcn_monitor@@HCN_1.3 hcn_monitor@HCN_1.1" \
	sh -c "echo \$(readelf --dyn-syms -W '$LIB/libhcn.so.1.4.0' | awk '\$8 ~ /^hcn_monitor@/ { print \$8 }' | sort)"
tap_expect "lib_examples needs libhcn.so.1" "libhcn.so.1" \
	sh -c "readelf -d $HT/lib_examples | sed -n 's/.*NEEDED.*\[\(libhcn.*\)\]/\1/p'"
tap_expect "lib_examples binds hcn_socket@HCN_1.0" "1" \
	sh -c "readelf --dyn-syms -W $HT/lib_examples | grep -c ' hcn_socket@HCN_1.0'"
tap_expect "the selftests link libhcn statically" "" \
	sh -c "readelf -d $HT/lib_test | grep libhcn"

# install / uninstall into a scratch DESTDIR.
tmp=$(mktemp -d)
make -s -C "$LIB" install DESTDIR="$tmp" PREFIX=/opt/hcn LIBDIR=/opt/hcn/lib64 >/dev/null
tap_expect "install puts the library, header and hcn.pc in place" \
	"/opt/hcn/include/hcn.h
/opt/hcn/lib64/libhcn.a
/opt/hcn/lib64/libhcn.so
/opt/hcn/lib64/libhcn.so.1
/opt/hcn/lib64/libhcn.so.1.4.0
/opt/hcn/lib64/pkgconfig/hcn.pc" \
	sh -c "cd '$tmp' && find . ! -type d | sed 's/^\.//' | sort"
tap_expect "hcn.pc names the install's paths" "-I/opt/hcn/include -L/opt/hcn/lib64 -lhcn" \
	sh -c "echo \$(PKG_CONFIG_LIBDIR='$tmp/opt/hcn/lib64/pkgconfig' \
		pkg-config --cflags --libs hcn)"
make -s -C "$LIB" uninstall DESTDIR="$tmp" PREFIX=/opt/hcn LIBDIR=/opt/hcn/lib64
tap_expect "uninstall removes every file install put" "" \
	find "$tmp" ! -type d
rm -rf "$tmp"
tmp=$(mktemp -d)
cp "$LIB/Makefile" "$LIB/hcn.h" "$LIB/hcn.pc.in" "$LIB/hcn.map" "$tmp/"
! make -s -C "$tmp" install DESTDIR="$tmp/dest" TOP="$TOP" >/dev/null 2>&1
tap_result $? "install without make fails"
tap_expect "install without make says why" \
	"libhcn: libhcn.so.1.4.0 missing: run make first" \
	sh -c "make -s -C '$tmp' install DESTDIR='$tmp/dest' TOP='$TOP' 2>&1 | head -1"
[ ! -e "$tmp/dest" ]
tap_result $? "install without make writes nothing"
rm -rf "$tmp"


tap_done
