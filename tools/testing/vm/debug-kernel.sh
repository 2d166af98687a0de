#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (once) the debug kernel the harness runs as its third target: current
# mainline as Debian ships it (sid's linux-source-7.2), configured from a
# minimal base, "make allnoconfig" + vm.config (what a virtme-ng guest needs)
# + debug.config (KASAN, kmemleak, lockdep, UBSAN, KFENCE, debug objects,
# refcount trackers, and what the suites use).  No defconfig: no GPU, sound,
# USB or storage drivers a VM never uses.
#
# The source package is fetched with "apt-get download" through a private
# sources list and private apt state in .cache/apt-sid/: sid is never added
# to the machine's own suites and nothing is installed from it.
#
# The result is cached in .cache/debug-kernel/<key>, key = hash of the
# package version, vm.config and debug.config; .cache/debug-kernel/current
# points at it.  The build happens in <key>.tmp and is renamed only when it
# succeeded, so a failed or interrupted build never poisons the cache.
#
# Environment: DEBUG_SRC_PKG (default linux-source-7.2), JOBS.
# Prints the path of the built tree on the last line.

set -euo pipefail

TOP=$(cd "$(dirname "$0")/../../.." && pwd)
CACHE=${CACHE:-$TOP/.cache}
DIR=$CACHE/debug-kernel
VMFRAG=$TOP/tools/testing/vm/vm.config
FRAG=$TOP/tools/testing/vm/debug.config
PKG=${DEBUG_SRC_PKG:-linux-source-7.2}
JOBS=${JOBS:-$(nproc)}
APT=$CACHE/apt-sid

say() { echo "debug-kernel: $*" >&2; }

# apt-get and apt-cache on sid's index only, with state of their own.
sid_apt() {
	local tool=$1
	shift
	"$tool" -o Dir::Etc::SourceList="$APT/sources.list" \
		-o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$APT/lists" \
		-o Dir::Cache="$APT/cache" \
		-o Debug::NoLocking=1 -o APT::Sandbox::User=root "$@"
}

# The newest $PKG in sid, downloaded once into $APT; prints the tarball.
fetch_source() {
	local ver deb
	mkdir -p "$APT/lists/partial" "$APT/cache/archives/partial"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian sid main" \
		> "$APT/sources.list"
	# The index is refreshed at most once a day.
	if [ -z "$(find "$APT/lists" -name '*_Packages*' -mtime -1 2>/dev/null)" ]; then
		sid_apt apt-get -qq update >&2 || { say "apt-get update of sid failed"; return 1; }
	fi
	ver=$(sid_apt apt-cache show "$PKG" 2>/dev/null |
	      sed -n 's/^Version: //p' | sort -V | tail -n1)
	[ -n "$ver" ] || { say "$PKG not found in sid"; return 1; }
	deb=$APT/${PKG}_${ver}_all.deb
	if [ ! -f "$APT/$PKG-$ver.tar.xz" ]; then
		rm -f "$APT"/*.deb "$APT"/*.tar.xz
		say "downloading $PKG $ver"
		(cd "$APT" && sid_apt apt-get -qq download "$PKG=$ver" >&2)
		dpkg-deb --fsys-tarfile "$deb" |
			tar -xO --wildcards './usr/src/linux-source-*.tar.xz' \
			> "$APT/$PKG-$ver.tar.xz.tmp"
		mv "$APT/$PKG-$ver.tar.xz.tmp" "$APT/$PKG-$ver.tar.xz"
		rm -f "$deb"
	fi
	echo "$APT/$PKG-$ver.tar.xz"
}

tarball=$(fetch_source)
srcver=$(basename "$tarball" .tar.xz)
key=$( { echo "$srcver"; cat "$VMFRAG" "$FRAG"; } | sha256sum | cut -c1-16)
out=$DIR/$key

if [ -f "$out/arch/x86/boot/bzImage" ] && [ -f "$out/.hicn-complete" ]; then
	ln -sfn "$key" "$DIR/current"
	echo "$out"
	exit 0
fi

say "building $srcver with vm.config + debug.config (key $key)"
start=$(date +%s)
tmp=$out.tmp
rm -rf "$tmp"
mkdir -p "$tmp"
tar -xf "$tarball" -C "$tmp" --strip-components=1

cd "$tmp"
make -s allnoconfig >/dev/null
scripts/kconfig/merge_config.sh -m .config "$VMFRAG" "$FRAG" >/dev/null
make -s olddefconfig >/dev/null

# Every option of the fragments must have survived (a typo or a missing
# dependency would silently drop it).
bad=0
for f in "$VMFRAG" "$FRAG"; do
	while IFS= read -r line; do
		case $line in
		CONFIG_*=n) opt=${line%%=*}
			grep -q "^$opt=" .config && { say "$opt still set"; bad=1; } ;;
		CONFIG_*) grep -qxF "$line" .config || { say "$line not applied"; bad=1; } ;;
		esac
	done < "$f"
done
[ $bad -eq 0 ] || exit 1

# The compiler's output (KASAN's frame-size warnings) stays in a log, shown
# when the build fails.
if ! { make -s -j"$JOBS" bzImage modules && make -s modules_prepare; } \
	>.hicn-build.log 2>&1; then
	tail -n 40 .hicn-build.log >&2
	say "build failed (all of it in $tmp/.hicn-build.log)"
	exit 1
fi
touch .hicn-complete

cd "$DIR"
# Only the current debug kernel is kept: drop other keys (never the
# "current" link, which the glob matches too).
for d in "$DIR"/*/; do
	d=${d%/}
	[ -L "$d" ] && continue
	[ "$(basename "$d")" = "$key" ] || [ "$d" = "$tmp" ] || rm -rf "$d"
done
rm -rf "$out"
mv "$tmp" "$out"
ln -sfn "$key" "$DIR/current"
[ -f "$DIR/current/arch/x86/boot/bzImage" ] ||
	{ say "$DIR/current is not usable"; exit 1; }
say "built in $(( $(date +%s) - start ))s"
echo "$out"
