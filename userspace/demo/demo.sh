#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The demo of the main job, run inside the VM by "make demo" once the
# modules are loaded.  For now: every kind of socket, opened and described.
cd "$(dirname "$0")" || exit 1
echo "== demo: the sockets hicn.ko and psock.ko offer"
./sockets
