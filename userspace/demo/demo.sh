#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The demo of the main job, run inside the VM by "make demo" once the
# modules are loaded: every kind of socket, opened and described; then a
# file published by an AF_HICN producer and fetched by a consumer in
# another process (a generated 4 MiB file, then the ls binary), checked by
# checksum and timed against TCP over the loopback; then the same across
# hosts (network namespaces): a producer, a relay and two consumers
# configured with hicnctl alone, the second consumer served from the
# relay's cache (hicn_relay.sh); then a file over one PSOCK connection
# striped over two links, against the link sum and TCP.
cd "$(dirname "$0")" || exit 1
rc=0
echo "== demo: the sockets hicn.ko and psock.ko offer"
./sockets || rc=1
echo
echo "== demo: publish a file, fetch it by name"
./hicn_pubsub || rc=1
echo
./hicn_pubsub "$(command -v ls)" || rc=1
echo
echo "== demo: across hosts: a producer, a relay, two consumers"
./hicn_relay.sh || rc=1
echo
echo "== demo: one PSOCK connection over two links"
./psock_two_links.sh || rc=1
exit $rc
