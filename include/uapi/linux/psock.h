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

#endif /* _UAPI_LINUX_PSOCK_H */
