/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libhicn: helpers for AF_HICN applications.
 */
#ifndef _LIBHICN_H
#define _LIBHICN_H

#include <netinet/in.h>
#include <linux/hicn.h>

/**
 * hicn_family() - the address family number AF_HICN sockets use
 *
 * Reads the number the loaded module registered (HICN_FAMILY_PARAM); when
 * the module is not loaded, returns AF_HICN, the number socket() autoloads.
 */
int hicn_family(void);

#endif /* _LIBHICN_H */
