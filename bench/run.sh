#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run every benchmark (inside the VM, modules loaded) and print its table;
# with BENCHES set, only those named there.
cd "$(dirname "$0")" || exit 1
rc=0
for b in ${BENCHES:-$(make -s --no-print-directory print-benches)}; do
	echo "== bench: $b"
	"./$b" || rc=1
	echo
done
exit $rc
