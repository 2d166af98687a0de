/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * AF_HICN: information-centric publish/subscribe sockets.
 *
 * A producer (SOCK_PROD) binds an IPv6-prefix namespace and publishes named
 * content; a consumer (SOCK_CONS) pulls content by name.  A name is an
 * IPv6-format prefix (struct in6_addr) plus a 32-bit suffix.
 *
 * Userspace must include <netinet/in.h> (or <sys/socket.h> and
 * <netinet/in.h>) before this header when it uses the C library's sockets
 * API, so that struct in6_addr is defined only once.
 *
 * See Documentation/abi.rst for why the numbers below are safe.
 */
#ifndef _UAPI_LINUX_HICN_H
#define _UAPI_LINUX_HICN_H

#include <linux/types.h>
#include <linux/socket.h>
#include <linux/in6.h>

/*
 * Address family.  Linux has no free family numbers at or above AF_MAX (46)
 * and a module cannot raise AF_MAX, so AF_HICN reuses 22, the number reserved
 * for SNA, which no mainline kernel (6.1 to 6.12) ever registered.  An
 * administrator can load the module with another number ("modprobe hicn
 * family=N"); programs should read the number in force from
 * /sys/module/hicn/parameters/family (HICN_FAMILY_PARAM) instead of trusting
 * this default.
 */
#define AF_HICN			22
#define PF_HICN			AF_HICN

/* Where the running module publishes the family number it registered. */
#define HICN_FAMILY_PARAM	"/sys/module/hicn/parameters/family"

/*
 * Socket types.  Mainline defines types 1-6 and 10 (SOCK_PACKET) below
 * SOCK_MAX (11); 7 and 8 are free.
 */
#define SOCK_CONS		7	/* consumer: pulls content by name */
#define SOCK_PROD		8	/* producer: publishes a namespace */

/*
 * Protocols, the third argument of socket().  0 picks the type's reliable
 * protocol (CONS_REL for SOCK_CONS, PROD_REL for SOCK_PROD).  A protocol of
 * the other socket type is refused with EPROTONOSUPPORT.
 */
#define HICN_PROTO_DEFAULT	0
#define CONS_REL		1	/* consumer: retransmits, in order */
#define CONS_UNREL		2	/* consumer: no retransmission */
#define PROD_REL		3	/* producer: keeps every version */
#define PROD_UNREL		4	/* producer: keeps the newest version */
#define HICN_PROTO_MAX		PROD_UNREL

/*
 * Socket option level for AF_HICN sockets.  The level only reaches our own
 * family's setsockopt(), so it cannot clash with another protocol; it is kept
 * away from the kernel's SOL_* numbers (up to 287 in 6.12) all the same.
 */
#define SOL_HICN		300

/* Longest name prefix, in bits. */
#define HICN_PREFIX_MAX		128

/**
 * struct sockaddr_hicn - an AF_HICN name or namespace
 * @sin_family: AF_HICN (the number in force, see HICN_FAMILY_PARAM)
 * @sin_prefix: prefix length in bits, 0 to HICN_PREFIX_MAX; a producer's
 *	bind() claims this many leading bits of @sin_addr as its namespace
 * @sin_flags: reserved for HICN_ADDR_F_* flags; must be 0
 * @sin_suffix: name suffix (host byte order), e.g. a segment number
 * @sin_addr: the name, in IPv6 format
 * @sin_zero: reserved to grow the structure; must be zero
 *
 * The structure is 32 bytes on every architecture and is passed with
 * addrlen == sizeof(struct sockaddr_hicn); a shorter length is refused with
 * EINVAL.
 */
struct sockaddr_hicn {
	__kernel_sa_family_t	sin_family;
	__u8			sin_prefix;
	__u8			sin_flags;
	__u32			sin_suffix;
	struct in6_addr		sin_addr;
	__u8			sin_zero[8];
};

#endif /* _UAPI_LINUX_HICN_H */
