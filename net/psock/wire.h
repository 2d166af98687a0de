/* SPDX-License-Identifier: GPL-2.0 */
/*
 * IPPROTO_PSOCK on-wire structures (Documentation/psock.rst): the control
 * message and the block header, in network order.
 */
#ifndef _NET_PSOCK_WIRE_H
#define _NET_PSOCK_WIRE_H

#include <linux/build_bug.h>
#include <linux/types.h>

/* Wire format (Documentation/psock.rst, "Handshake"). */
#define PSTRIPE_MAGIC		0x50534b54	/* "PSKT" */
#define PSTRIPE_VERSION		1
#define PSTRIPE_PROBE		0xa5		/* the client's urgent byte */
#define PSTRIPE_PROBE_OPT	0xa6		/* ... of an optimistic client,
						 * which marks the end of its
						 * plain bytes with it again
						 */
#define PSTRIPE_MSG_SHELLO	1
#define PSTRIPE_MSG_CHELLO	2
#define PSTRIPE_MSG_JOIN	3
#define PSTRIPE_MSG_ADDR	4	/* an announced address (after the
					 * server hello)
					 */
#define PSTRIPE_MSG_REJOIN	5	/* a subflow taking a dead one's
					 * place in an established connection
					 */

/**
 * struct pstripe_hello - the one control message: server hello, client
 *	hello, join and rejoin share it (40 bytes, network order)
 * @magic: PSTRIPE_MAGIC
 * @version: PSTRIPE_VERSION
 * @type: PSTRIPE_MSG_*
 * @rcmd: sender's recommended stream count (hellos)
 * @max: sender's maximum stream count (hellos)
 * @driver: sender's driver (hellos)
 * @n: the stream count the client computed (client hello); the number
 *	of address messages that follow (server hello)
 * @index: subflow index, 1..n-1 (join); 1..n (address message); the
 *	dead subflow's position in the established connection (rejoin)
 * @family: 4 or 6 when @addr holds the data subflows' address, 0 for
 *	"the address of the control subflow" (server hello); 4 or 6
 *	(address message)
 * @port: where data subflows connect (server hello, address message)
 * @window: the receive window the sender offers, in PSTRIPE_WIN_UNIT
 *	(server and client hello); 0 in other messages, and from peers that
 *	predate it: PSTRIPE_WIN_BYTES
 * @token: names the connection to its data subflows (server hello,
 *	join, rejoin)
 * @addr: see @family
 */
struct pstripe_hello {
	__be32	magic;
	u8	version;
	u8	type;
	u8	rcmd;
	u8	max;
	u8	driver;
	u8	n;
	u8	index;
	u8	family;
	__be16	port;
	__be16	window;
	__be64	token;
	u8	addr[16];
};

/* Every block of a striped connection starts with this header. */
struct pstripe_blkhdr {
	__be32	seq;
	__be32	len;
};

#define PSTRIPE_BLK_BUF		16384	/* header + payload of one block */
#define PSTRIPE_BLK_MAX		(PSTRIPE_BLK_BUF - sizeof(struct pstripe_blkhdr))

/*
 * struct pstripe_blkhdr.len values that are not a payload length:
 * an acknowledgment (seq: the next block the sender of the ack expects)
 * and the end of the stream (seq: a block of its own, without payload).
 */
#define PSTRIPE_LEN_ACK		0x80000000U
#define PSTRIPE_LEN_FIN		0x40000000U

static_assert(sizeof(struct pstripe_hello) == 40);
static_assert(sizeof(struct pstripe_blkhdr) == 8);

#endif /* _NET_PSOCK_WIRE_H */
