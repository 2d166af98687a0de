/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim: memcpy, memset and memcmp for net/hicn/wire.c. */
#ifndef _WIRE_SHIM_LINUX_STRING_H
#define _WIRE_SHIM_LINUX_STRING_H

#include <string.h>

#endif
