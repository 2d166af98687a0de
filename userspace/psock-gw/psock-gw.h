/* SPDX-License-Identifier: GPL-2.0 */
/*
 * psock-gw: the TCP <-> PSOCK edge translator (psock-gw(8)).
 *
 * The header an ingress translator writes as the first bytes of every
 * PSOCK connection to the egress translator.  All fields in network byte
 * order; PSGW_HDR_LEN bytes, no padding (the natural alignment of
 * every field).
 */
#ifndef PSOCK_GW_H
#define PSOCK_GW_H

#include <linux/types.h>

#define PSGW_MAGIC	0x50534757u	/* "PSGW" */
#define PSGW_VERSION	1

/* type: what the egress connects to */
#define PSGW_DST_STATIC	0	/* its own --remote; addr and port are 0 */
#define PSGW_DST_ADDR	1	/* addr:port, checked against --allow */

struct psgw_hdr {
	__u32 magic;		/* PSGW_MAGIC */
	__u8	version;	/* PSGW_VERSION; others are refused */
	__u8	type;		/* PSGW_DST_* */
	__u16 port;		/* destination port (PSGW_DST_ADDR) */
	__u8	addr[16];	/* IPv6, or IPv4 as ::ffff:a.b.c.d */
};

#define PSGW_HDR_LEN	24

#endif /* PSOCK_GW_H */
