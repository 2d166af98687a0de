#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run every benchmark (inside the VM, modules loaded) and print its table
# and how long it took; with BENCHES set, only those named there.  A word
# NAME=VALUE in BENCHES is a setting for the benchmarks after it, so that
# "make bench SUITES='BENCH_REPS=7 psock_rtt.sh'" reaches them (lib.sh:
# BENCH_REPS, BENCH_SIZE).
cd "$(dirname "$0")" || exit 1
rc=0
for b in ${BENCHES:-$(make -s --no-print-directory print-benches)}; do
	case $b in
	[A-Z]*=*)
		export "$b"
		continue ;;
	esac
	echo "== bench: $b"
	t0=$(date +%s)
	"./$b" || rc=1
	echo "== bench: $b: $(($(date +%s) - t0)) s"
	echo
done
exit $rc
