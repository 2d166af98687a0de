#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Helpers of the install suite (sourced after tap_lib.sh; TOP set):
#
#   mk TARGET VAR=VALUE...  make in the top folder with MK_VARS too; its
#                           output as TAP comments
#   files_in DIR            every file and link under DIR, one a line

MK_VARS=()

mk() {
	local rc
	make -s --no-print-directory -C "$TOP" "${MK_VARS[@]}" "$@" \
		> >(sed 's/^/# /') 2>&1
	rc=$?
	wait
	return $rc
}

files_in() {
	(cd "$1" && find . ! -type d | sed 's|^\.||' | sort)
}
