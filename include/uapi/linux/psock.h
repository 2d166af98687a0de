/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * IPPROTO_PSOCK: one TCP-like byte stream striped over N kernel TCP
 * subflows.  An application opens it with
 *
 *	socket(AF_INET or AF_INET6, SOCK_STREAM, IPPROTO_PSOCK);
 *
 * and otherwise uses it as a TCP socket.  On the wire every subflow is a
 * plain TCP connection: IPPROTO_PSOCK never appears in a packet.
 *
 * See Documentation/abi.rst for why the numbers below are safe.
 */
#ifndef _UAPI_LINUX_PSOCK_H
#define _UAPI_LINUX_PSOCK_H

#include <linux/types.h>

/*
 * Protocol number for socket().  inet_create() accepts protocols below
 * IPPROTO_MAX (263).  Above 255 the kernel uses 256 (IPPROTO_SMC, 6.12) and
 * 262 (IPPROTO_MPTCP); newer kernels add 257 and 261.  259 is free on every
 * kernel we support, and, being above 255, can never be confused with an IP
 * header's protocol byte.
 */
#define IPPROTO_PSOCK		259

/*
 * Socket option level.  Options at any other level (SOL_SOCKET, SOL_TCP,
 * SOL_IP, SOL_IPV6) keep their TCP meaning.  Kept away from the kernel's
 * SOL_* numbers (up to 287 in 6.12).
 */
#define SOL_PSOCK		301

/*
 * Hard limit on the number of data subflows of one connection (MPTCP stops
 * at 8).  PSOCK_RCMD_STREAM_CNT and PSOCK_MAX_STREAM_CNT take 1..this.
 */
#define PSOCK_STREAM_CNT_LIMIT	32

/*
 * SOL_PSOCK options.  Both peers announce a recommended (rcmd) and a
 * maximum (max) stream count; the connection uses
 * n = min(max(rcmd1, rcmd2), max1, max2) subflows.  Defaults come from the
 * sysctls net.psock.rcmd_stream_cnt and net.psock.max_stream_cnt.
 */
#define PSOCK_RCMD_STREAM_CNT	1	/* int, 1..PSOCK_STREAM_CNT_LIMIT */
#define PSOCK_MAX_STREAM_CNT	2	/* int, 1..PSOCK_STREAM_CNT_LIMIT */
#define PSOCK_DRIVER		3	/* int, enum psock_driver */
#define PSOCK_SNDBUF		4	/* struct pstream_int: SO_SNDBUF of one subflow */
#define PSOCK_RCVBUF		5	/* struct pstream_int: SO_RCVBUF of one subflow */

/**
 * enum psock_driver - how data is spread over the subflows
 * @PSOCK_DRIVER_POLL_ALL: each block goes to a subflow with send-buffer
 *	space, so unequal paths are all used (default)
 * @PSOCK_DRIVER_ROUND_ROBIN: fixed-size blocks in strict rotation
 */
enum psock_driver {
	PSOCK_DRIVER_POLL_ALL		= 0,
	PSOCK_DRIVER_ROUND_ROBIN	= 1,
};

#define PSOCK_DRIVER_MAX	PSOCK_DRIVER_ROUND_ROBIN

/**
 * struct pstream_int - an integer option of one subflow (the psock
 *	library's name and layout)
 * @index: subflow index, 0..PSOCK_STREAM_CNT_LIMIT - 1
 * @value: the value; for PSOCK_SNDBUF / PSOCK_RCVBUF a buffer size in
 *	bytes as SO_SNDBUF / SO_RCVBUF take it, 0 for the default.  On
 *	getsockopt() the caller fills @index and reads @value.
 */
struct pstream_int {
	__s32	index;
	__s32	value;
};

#endif /* _UAPI_LINUX_PSOCK_H */
