#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Generates the netlink code of our YAML specs with the kernel's own
# generator (tools/net/ynl/ynl-gen-c.py, extracted from linux-source-6.12
# into .cache/ksrc by tools/testing/vm/setup.sh):
#
#   Documentation/netlink/specs/psock.yaml ->
#	net/psock/netlink_gen.c, net/psock/netlink_gen.h,
#	include/uapi/linux/psock_netlink.h
#   Documentation/netlink/specs/hicn.yaml ->
#	net/hicn/netlink_gen.c, net/hicn/netlink_gen.h,
#	include/uapi/linux/hicn_netlink.h
#
# Usage: tools/net/ynl-regen.sh          write the generated files
#        tools/net/ynl-regen.sh --check  generate into a temporary folder
#                                        and fail on any difference from
#                                        the committed files
#
# The generator wants the kernel tree's layout: the schema
# (genetlink-legacy.yaml) in the folder above the spec's, and a file named
# MAINTAINERS in a parent folder (without one it loops forever looking
# for the tree's root).  Both are given to it in a temporary tree.

set -euo pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd)
KSRC=${KSRC:-$TOP/.cache/ksrc}
GEN=$KSRC/tools/net/ynl/ynl-gen-c.py
CHECK=
[ "${1:-}" = --check ] && CHECK=1

[ -f "$GEN" ] || { echo "ynl-regen: $GEN missing: run tools/testing/vm/setup.sh" >&2; exit 1; }

# spec  mode  kind  output
TARGETS="
psock kernel source net/psock/netlink_gen.c
psock kernel header net/psock/netlink_gen.h
psock uapi   header include/uapi/linux/psock_netlink.h
hicn  kernel source net/hicn/netlink_gen.c
hicn  kernel header net/hicn/netlink_gen.h
hicn  uapi   header include/uapi/linux/hicn_netlink.h
"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/Documentation/netlink/specs"
: > "$tmp/MAINTAINERS"
cp "$KSRC"/Documentation/netlink/*.yaml "$tmp/Documentation/netlink/"

fail=0
while read -r spec mode kind out; do
	[ -n "$spec" ] || continue
	cp "$TOP/Documentation/netlink/specs/$spec.yaml" \
		"$tmp/Documentation/netlink/specs/"
	mkdir -p "$tmp/out/$(dirname "$out")"
	python3 "$GEN" --mode "$mode" --"$kind" \
		--spec "$tmp/Documentation/netlink/specs/$spec.yaml" \
		-o "$tmp/out/$out" >"$tmp/log" 2>&1 ||
		{ cat "$tmp/log" >&2; echo "ynl-regen: $out: generator failed" >&2; exit 1; }
	if [ -n "$CHECK" ]; then
		if ! diff -u "$TOP/$out" "$tmp/out/$out" >&2; then
			echo "ynl-regen: $out differs from what $spec.yaml generates (make netlink-gen)" >&2
			fail=1
		fi
	elif ! cmp -s "$tmp/out/$out" "$TOP/$out"; then
		cp "$tmp/out/$out" "$TOP/$out"
		echo "  GEN      $out"
	fi
done <<< "$TARGETS"

if [ -n "$CHECK" ]; then
	[ "$fail" = 0 ] || exit 1
	echo "netlink-check: generated files match their specs"
fi
