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
 * @sin_suffix: version of the named object (host byte order): 0 means the
 *	newest one; in a name returned by recvfrom() the version received
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

/*
 * Versions.  Every publication under a name is a new version, numbered
 * 1, 2, 3, ... per name by the producer's kernel.  A name's sin_suffix
 * selects a version when fetching; HICN_VERSION_LATEST (0) asks for the
 * newest one.
 */
#define HICN_VERSION_LATEST	0

/* Largest object one sendto() can publish (bytes). */
#define HICN_OBJECT_MAX		(128U << 20)

/*
 * SOL_HICN socket options.  Integer options take an int (or __u32 where
 * noted) and refuse a shorter optlen with EINVAL; a value out of range is
 * EINVAL too.  An option of the other socket type is ENOPROTOOPT.
 *
 * Producer (SOCK_PROD):
 *   HICN_PACKET_SIZE	payload bytes per data segment, HICN_PACKET_SIZE_MIN
 *			to HICN_PACKET_SIZE_MAX, default 1500.  Applies to the
 *			objects published after it is set.
 *   HICN_CONTENT_EXPIRY __u32 milliseconds a published version is kept and
 *			may be cached, default 60000; 0 keeps it until the
 *			socket closes, and so does in practice any value from
 *			2^31 (24.8 days) on.  Applies to later publications.
 *
 * Consumer (SOCK_CONS):
 *   HICN_INTEREST_LIFETIME __u32 milliseconds an interest waits for its
 *			data, 1 to 600000, default 1000.
 *   HICN_RETX_LIMIT	retransmissions of one interest before CONS_REL fails
 *			with ETIMEDOUT, 0 to 255, default 3.  CONS_UNREL never
 *			retransmits.
 *   HICN_WINDOW	interests outstanding at once, 1 to 4096, default 64.
 *   HICN_SUBSCRIBE	0 or 1: fetch the next version published after the
 *			one last received (or after the newest one when the
 *			subscription starts) instead of the newest.
 *
 * Both:
 *   HICN_INFO		getsockopt only: struct hicn_info.
 */
#define HICN_PACKET_SIZE	1
#define HICN_CONTENT_EXPIRY	2
#define HICN_INTEREST_LIFETIME	3
#define HICN_RETX_LIMIT		4
#define HICN_WINDOW		5
#define HICN_SUBSCRIBE		6
#define HICN_INFO		7

#define HICN_PACKET_SIZE_MIN	64
#define HICN_PACKET_SIZE_MAX	65000
#define HICN_PACKET_SIZE_DEFAULT 1500
#define HICN_CONTENT_EXPIRY_DEFAULT 60000
#define HICN_LIFETIME_MAX	600000
#define HICN_LIFETIME_DEFAULT	1000
#define HICN_RETX_LIMIT_MAX	255
#define HICN_RETX_LIMIT_DEFAULT	3
#define HICN_WINDOW_MAX		4096
#define HICN_WINDOW_DEFAULT	64

/*
 * Control message (recvmsg(), level SOL_HICN) a CONS_UNREL consumer gets
 * when segments of the object never arrived: a __u32 count of missing
 * segments.  Their bytes read as zeros; the object keeps its length.
 */
#define HICN_CMSG_LOST		1

#define HICN_INFO_VERSION	1

/**
 * struct hicn_info - per-socket counters, getsockopt(SOL_HICN, HICN_INFO)
 * @hi_version: HICN_INFO_VERSION of the kernel that filled the structure
 * @hi_size: bytes of the structure the kernel knows; a longer optlen is
 *	cut to it, a shorter one gets the first optlen bytes (as TCP_INFO)
 * @hi_type: SOCK_CONS or SOCK_PROD
 * @hi_protocol: the socket's protocol
 * @hi_interests_sent: consumer: interests sent, retransmissions included
 * @hi_interests_retx: consumer: of those, retransmissions
 * @hi_interests_received: producer: interests that reached the socket
 * @hi_segments: consumer: data segments received; producer: segments sent
 * @hi_bytes: consumer: object bytes delivered; producer: bytes published
 * @hi_cache_hits: consumer: segments served by the content store
 * @hi_timeouts: consumer: interests whose lifetime ran out
 * @hi_lost: consumer: segments given up on (CONS_UNREL gaps)
 * @hi_objects: consumer: objects received; producer: objects published
 * @hi_last_version: version of the last object received or published
 * @hi_versions: producer: versions held now
 * @hi_mem: producer: bytes of published content charged to the socket
 * @hi_rmem: consumer: bytes received and not yet read, charged to the
 *	receive buffer (SO_RCVBUF)
 */
struct hicn_info {
	__u32	hi_version;
	__u32	hi_size;
	__u32	hi_type;
	__u32	hi_protocol;
	__u64	hi_interests_sent;
	__u64	hi_interests_retx;
	__u64	hi_interests_received;
	__u64	hi_segments;
	__u64	hi_bytes;
	__u64	hi_cache_hits;
	__u64	hi_timeouts;
	__u64	hi_lost;
	__u64	hi_objects;
	__u32	hi_last_version;
	__u32	hi_versions;
	__u64	hi_mem;
	__u64	hi_rmem;
};

/*
 * The configuration plane is the generic netlink family "hicn"
 * (<linux/hicn_netlink.h>, generated from
 * Documentation/netlink/specs/hicn.yaml).  Its multicast group for
 * namespace events (HICN_CMD_NAMESPACE_CLAIMED, _RELEASED):
 */
#define HICN_MCGRP_EVENTS	"events"

#endif /* _UAPI_LINUX_HICN_H */
