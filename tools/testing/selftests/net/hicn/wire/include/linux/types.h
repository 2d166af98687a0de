/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host shim: what net/hicn/wire.c takes from the kernel's <linux/types.h>,
 * on top of the uapi header of the same name (whose __u8 ... it reuses).
 * Only the wire test puts this folder on its include path.
 */
#ifndef _WIRE_SHIM_LINUX_TYPES_H
#define _WIRE_SHIM_LINUX_TYPES_H

#include_next <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;

#define fallthrough __attribute__((__fallthrough__))

#endif
