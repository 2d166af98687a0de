#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# libhcn as installed: the seed paper's examples in C++20 (lib_examples,
# built by the Makefile against a staged "make install" through
# pkg-config) run against libhcn.so.1; the library's soname and symbol
# versions; install and uninstall; and the AF_HICN number fixed up at run
# time: with hicn.ko reloaded as family=13, the examples (which say
# AF_HICN, 22, throughout) and lib_test's socket tests must still work.
# Leaves the module loaded with its default family, as the harness expects.

cd "$(dirname "$0")" || exit 1
. ../lib/tap_lib.sh
. ../lib/modules_lib.sh

MOD=hicn
KO=${HICN_KO:?HICN_KO must point to hicn.ko}
TOP=$(cd ../../../../.. && pwd)
LIB=$TOP/userspace/lib
STAGE=$PWD/lib_stage
export LD_LIBRARY_PATH=$STAGE/usr/lib

# The library and what links with it.
tap_expect "libhcn.so.1.0.0 has soname libhcn.so.1" "libhcn.so.1" \
	sh -c "readelf -d '$LIB/libhcn.so.1.0.0' | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p'"
tap_expect "libhcn exports only hcn_*, all at HCN_1.0" "" \
	sh -c "readelf --dyn-syms -W '$LIB/libhcn.so.1.0.0' |
	       awk '\$5 == \"GLOBAL\" && \$7 != \"UND\" && \$8 !~ /^hcn_.*@@HCN_1.0\$/ && \$8 != \"HCN_1.0\"'"
tap_expect "lib_examples needs libhcn.so.1" "libhcn.so.1" \
	sh -c "readelf -d lib_examples | sed -n 's/.*NEEDED.*\[\(libhcn.*\)\]/\1/p'"
tap_expect "lib_examples binds hcn_socket@HCN_1.0" "1" \
	sh -c "readelf --dyn-syms -W lib_examples | grep -c ' hcn_socket@HCN_1.0'"
tap_expect "the selftests link libhcn statically" "" \
	sh -c "readelf -d lib_test | grep libhcn"

# install / uninstall into a scratch DESTDIR.
tmp=$(mktemp -d)
make -s -C "$LIB" install DESTDIR="$tmp" PREFIX=/opt/hcn LIBDIR=/opt/hcn/lib64 >/dev/null
tap_expect "install puts the library, header and hcn.pc in place" \
	"/opt/hcn/include/hcn.h
/opt/hcn/lib64/libhcn.a
/opt/hcn/lib64/libhcn.so
/opt/hcn/lib64/libhcn.so.1
/opt/hcn/lib64/libhcn.so.1.0.0
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
cp "$LIB/Makefile" "$LIB/hcn.h" "$LIB/hcn.pc.in" "$tmp/"
! make -s -C "$tmp" install DESTDIR="$tmp/dest" TOP="$TOP" >/dev/null 2>&1
tap_result $? "install without make fails"
tap_expect "install without make says why" \
	"libhcn: libhcn.so.1.0.0 missing: run make first" \
	sh -c "make -s -C '$tmp' install DESTDIR='$tmp/dest' TOP='$TOP' 2>&1 | head -1"
[ ! -e "$tmp/dest" ]
tap_result $? "install without make writes nothing"
rm -rf "$tmp"

# The paper's examples, at the default family.
check "printed producer publishes nothing (its typo)" 0 \
	"printed producer: hcn_sendto() returned -1" ./lib_examples typo
check "fixed producer -> printed consumer" 0 \
	"consumer: 48 bytes: This string will be published in the hcn socket" \
	./lib_examples run

# The same with the module at another number.
if rmmod hicn && insmod "$KO" family=13; then
	tap_result 0 "hicn.ko reloaded with family=13"
	check "fixed producer -> printed consumer, family 13" 0 \
		"consumer: 48 bytes: This string will be published in the hcn socket" \
		./lib_examples run
	out=$(./lib_test -f map 2>&1)
	tap_result $? "lib_test's socket tests, family 13"
	echo "$out" | grep -E '^(not ok|# .*(FAIL|family in force))' | sed 's/^/# /'
	rmmod hicn
else
	tap_result 1 "hicn.ko reloaded with family=13"
fi
mod_ensure_loaded
tap_expect "hicn loaded again with family 22" 22 \
	cat /sys/module/hicn/parameters/family
tap_done
