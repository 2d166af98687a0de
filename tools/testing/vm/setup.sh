#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One-time, idempotent set-up of a Debian 12 machine for building and testing
# the modules: compilers, Debian's 6.1 and newest 6.12 kernels (image and
# headers), QEMU, virtme-ng, libnl, iproute2, sparse and linux-source-6.12,
# from which the kselftest harness, checkpatch and the netlink generator
# (tools/net/ynl) are extracted into the ignored cache folder.  Runs as root, or through sudo otherwise.
#
# Usage: tools/testing/vm/setup.sh [--quiet]

set -euo pipefail

TOP=$(cd "$(dirname "$0")/../../.." && pwd)
CACHE=${HICN_CACHE:-$TOP/.cache}
QUIET=${1:-}

say() { [ "$QUIET" = --quiet ] || echo "setup: $*"; }

SUDO=
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || { echo "setup: need root or sudo" >&2; exit 1; }
	SUDO=sudo
fi

export DEBIAN_FRONTEND=noninteractive

PKGS="build-essential bc bison flex libelf-dev libssl-dev dwarves kmod cpio
      qemu-system-x86 busybox-static python3 python3-venv python3-pip
      libnl-3-dev libnl-genl-3-dev iproute2 iputils-ping sparse
      linux-image-amd64 linux-headers-amd64 linux-source-6.12
      netcat-openbsd ethtool nftables iptables procps xz-utils zstd
      gnuplot-nox python3-yaml python3-jsonschema python3-sphinx pkg-config
      dkms man-db groff-base mandoc curl wget"

missing() {
	local p out=
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q '^install ok installed$' || out="$out $p"
	done
	echo "$out"
}

apt_updated=
apt_update() {
	[ -n "$apt_updated" ] && return
	say "apt-get update"
	$SUDO apt-get update -qq
	apt_updated=1
}

# The newest Debian 6.12 kernel flavour for bookworm (from bookworm-security).
k612_image() {
	apt-cache search --names-only '^linux-image-6\.12\.[0-9]+\+deb12-amd64$' |
		awk '{print $1}' | sort -V | tail -n1
}

need=$(missing $PKGS)
k612=$(k612_image || true)
if [ -z "$k612" ]; then
	apt_update
	k612=$(k612_image)
fi
[ -n "$k612" ] || { echo "setup: no linux-image-6.12.*+deb12-amd64 in apt" >&2; exit 1; }
k612_headers=${k612/linux-image-/linux-headers-}
need="$need$(missing "$k612" "$k612_headers")"

if [ -n "${need// /}" ]; then
	apt_update
	say "installing:$need"
	# Quiet unless it fails; one more try after "dpkg --configure -a"
	# (a first install on a fresh machine once failed in dpkg and passed
	# when run again).
	log=$(mktemp)
	# shellcheck disable=SC2086
	if ! $SUDO apt-get install -y -qq --no-install-recommends $need >"$log" 2>&1; then
		tail -n 30 "$log" >&2
		say "apt-get install failed; configuring and trying once more"
		$SUDO dpkg --configure -a >"$log" 2>&1 || tail -n 30 "$log" >&2
		# shellcheck disable=SC2086
		$SUDO apt-get install -y -qq --no-install-recommends $need >"$log" 2>&1 ||
			{ tail -n 30 "$log" >&2; rm -f "$log"; exit 1; }
	fi
	rm -f "$log"
fi

mkdir -p "$CACHE"

# virtme-ng from PyPI, in a private venv (Debian's pip refuses system installs).
VENV=$CACHE/venv
if [ ! -x "$VENV/bin/vng" ]; then
	say "installing virtme-ng into $VENV"
	py=/usr/bin/python3
	[ -x "$py" ] || py=python3
	rm -rf "$VENV"
	"$py" -m venv "$VENV"
	"$VENV/bin/pip" install -q --disable-pip-version-check 'virtme-ng==1.33'
fi

# Files from the kernel tree that the build needs, extracted from Debian's
# linux-source-6.12 into the ignored cache.  Never committed.  The stamp
# names the tarball and the version of the list below: bump EXTRACT_LIST
# when the list changes, so that a re-run extracts the new files.
# tools/net/ynl and Documentation/netlink are the netlink generator
# (make netlink-gen) and the schemas it validates our specs against.
KSRC=$CACHE/ksrc
EXTRACT_LIST=2
stamp=$KSRC/.extracted
tarball=$(ls /usr/src/linux-source-6.12*.tar.* 2>/dev/null | sort -V | tail -n1)
[ -n "$tarball" ] || { echo "setup: linux-source-6.12 tarball missing" >&2; exit 1; }
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$tarball list $EXTRACT_LIST" ]; then
	say "extracting kselftest harness, checkpatch and ynl from $tarball"
	rm -rf "$KSRC.tmp"
	mkdir -p "$KSRC.tmp"
	tar -xf "$tarball" -C "$KSRC.tmp" --strip-components=1 --wildcards \
		'*/tools/testing/selftests/kselftest_harness.h' \
		'*/tools/testing/selftests/kselftest.h' \
		'*/scripts/checkpatch.pl' \
		'*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch' \
		'*/tools/net/ynl/*' \
		'*/Documentation/netlink/*'
	echo "$tarball list $EXTRACT_LIST" > "$KSRC.tmp/.extracted"
	rm -rf "$KSRC"
	mv "$KSRC.tmp" "$KSRC"
fi

# Servers the psockize test (selftests/net/psock/psockize.sh) runs
# unmodified, from Debian's packages: fetched with apt-get download and
# unpacked with dpkg -x into $CACHE/apps, never installed.  Installing them
# would start nginx on port 80 (and ask debconf about an iperf3 daemon) on
# the build machine, where no service of ours belongs; unpacked, they are
# two programs the VM (which shares this filesystem) runs from the cache.
# nginx is the binary of nginx-light (which only adds modules we do not
# load); iperf3 needs libiperf0 and its libsctp1.  The stamp names the
# versions unpacked, so a newer Debian package is fetched again.
APPS=$CACHE/apps
APPS_DEBS="nginx iperf3 libiperf0 libsctp1"
apps_want() {
	local p
	for p in $APPS_DEBS; do
		apt-cache policy "$p" | sed -n "s/^  Candidate: /$p=/p"
	done | tr '\n' ' '
}
want=$(apps_want)
case $want in *"=(none)"*|"") apt_update; want=$(apps_want) ;; esac
if [ ! -f "$APPS/.unpacked" ] || [ "$(cat "$APPS/.unpacked")" != "$want" ]; then
	say "unpacking $want into $APPS"
	rm -rf "$APPS.tmp"
	mkdir -p "$APPS.tmp/debs"
	# shellcheck disable=SC2086
	(cd "$APPS.tmp/debs" && apt-get download -qq $want) ||
		{ apt_update; (cd "$APPS.tmp/debs" && apt-get download -qq $want); }
	for d in "$APPS.tmp"/debs/*.deb; do
		dpkg -x "$d" "$APPS.tmp"
	done
	rm -rf "$APPS.tmp/debs"
	echo "$want" > "$APPS.tmp/.unpacked"
	rm -rf "$APPS"
	mv "$APPS.tmp" "$APPS"
fi

say "done"
