#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (once) the debug kernel the harness runs as its third target: Debian's
# linux-source-6.12 with virtme-ng's small VM config plus debug.config
# (KASAN, kmemleak, lockdep, UBSAN, KFENCE, ...).
#
# The result is cached in .cache/debug-kernel/<key>, key = hash of the
# linux-source package version and debug.config; .cache/debug-kernel/current
# points at it.  The build happens in <key>.tmp and is renamed only when it
# succeeded, so a failed or interrupted build never poisons the cache.
#
# Prints the path of the built tree on the last line.

set -euo pipefail

TOP=$(cd "$(dirname "$0")/../../.." && pwd)
CACHE=${CACHE:-$TOP/.cache}
DIR=$CACHE/debug-kernel
FRAG=$TOP/tools/testing/vm/debug.config
JOBS=${JOBS:-$(nproc)}
export PATH="$CACHE/venv/bin:$PATH"

tarball=$(ls /usr/src/linux-source-6.12*.tar.* 2>/dev/null | sort -V | tail -n1)
[ -n "$tarball" ] || { echo "debug-kernel: linux-source-6.12 missing (make setup)" >&2; exit 1; }
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
key=$( { echo "$srcver"; cat "$FRAG"; } | sha256sum | cut -c1-16)
out=$DIR/$key

if [ -f "$out/arch/x86/boot/bzImage" ] && [ -f "$out/.hicn-complete" ]; then
	ln -sfn "$key" "$DIR/current"
	echo "$out"
	exit 0
fi

echo "debug-kernel: building linux-source $srcver with debug.config (key $key)" >&2
start=$(date +%s)
tmp=$out.tmp
rm -rf "$tmp"
mkdir -p "$tmp"
tar -xf "$tarball" -C "$tmp" --strip-components=1

cd "$tmp"
vng --kconfig --config "$FRAG" >.hicn-kconfig.log 2>&1 ||
	{ tail -n 20 .hicn-kconfig.log >&2; exit 1; }
# Everything built in: the VM has no module tree for this kernel.
make -s mod2yesconfig >/dev/null
# mod2yesconfig can re-enable what the fragment turned off; apply it again.
scripts/kconfig/merge_config.sh -m .config "$FRAG" >/dev/null
make -s olddefconfig >/dev/null

# Every option of the fragment must have survived (a typo or a missing
# dependency would silently drop it).
bad=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=n) opt=${line%%=*}
		grep -q "^$opt=" .config && { echo "debug-kernel: $opt still set" >&2; bad=1; } ;;
	CONFIG_*) grep -qxF "$line" .config || { echo "debug-kernel: $line not applied" >&2; bad=1; } ;;
	esac
done < "$FRAG"
[ $bad -eq 0 ] || exit 1

make -s -j"$JOBS" bzImage modules >/dev/null
make -s modules_prepare >/dev/null
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
	{ echo "debug-kernel: $DIR/current is not usable" >&2; exit 1; }
echo "debug-kernel: built in $(( $(date +%s) - start ))s" >&2
echo "$out"
