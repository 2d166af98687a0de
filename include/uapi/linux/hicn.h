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
 *			socket closes, and so does any value from 2^31
 *			(24.8 days) on.  Applies to later publications.
 *
 * Consumer (SOCK_CONS):
 *   HICN_INTEREST_LIFETIME __u32 milliseconds an interest waits for its
 *			data in the network, 1 to 600000, default 1000.  It is
 *			resent sooner, at its retransmission timeout (below),
 *			but the last try waits for the whole lifetime.
 *   HICN_RETX_LIMIT	retransmissions of one interest before CONS_REL fails
 *			with ETIMEDOUT, 0 to 255, default 3.  CONS_UNREL never
 *			retransmits.
 *   HICN_WINDOW	a fixed window: sets HICN_MIN_WINDOW_SIZE and
 *			HICN_MAX_WINDOW_SIZE both to the value, 1 to 4096, so
 *			that exactly that many interests are outstanding at
 *			most, whatever the congestion control would do; reads
 *			HICN_MAX_WINDOW_SIZE (default 256).
 *   HICN_SUBSCRIBE	0 or 1: fetch the next version published after the
 *			one last received (or after the newest one when the
 *			subscription starts) instead of the newest.
 *
 *   HICN_MIN_WINDOW_SIZE smallest congestion window, 1 to HICN_WINDOW_MAX
 *			and at most HICN_MAX_WINDOW_SIZE, default 1.
 *   HICN_MAX_WINDOW_SIZE largest congestion window: interests outstanding at
 *			once at most, 1 to HICN_WINDOW_MAX and at least
 *			HICN_MIN_WINDOW_SIZE, default HICN_WINDOW_DEFAULT (256).
 *			Raising both: the maximum first.
 *
 *   The congestion window of a consumer starts at HICN_WINDOW_INIT (within
 *   the bounds), grows by one per data segment up to a threshold (slow
 *   start) and after it by ten per window of data while the path shows no
 *   queue (TCP Illinois), by one once it does, and is cut on a loss:
 *   halved when there is a queue, else (a loss TCP Veno takes for a
 *   random one) to what the path holds without a queue, by one interest
 *   at least and a fifth at most (loss-based AIMD,
 *   Documentation/hicn-api.rst).  An interest is resent
 *   once the data of an interest sent after it came and its own did not
 *   within SRTT + min RTT / 4 (RACK), or when its retransmission timeout
 *   runs out (RTO = SRTT + 4 * RTTVAR, as
 *   RFC 6298, at least HICN_RTO_MIN_MS and at most the interest lifetime,
 *   doubled at each timeout until a new RTT sample), not only when its
 *   lifetime does.
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
#define HICN_MIN_WINDOW_SIZE	8
#define HICN_MAX_WINDOW_SIZE	9

#define HICN_PACKET_SIZE_MIN	64
#define HICN_PACKET_SIZE_MAX	65000
#define HICN_PACKET_SIZE_DEFAULT 1500
#define HICN_CONTENT_EXPIRY_DEFAULT 60000
#define HICN_LIFETIME_MAX	600000
#define HICN_LIFETIME_DEFAULT	1000
#define HICN_RETX_LIMIT_MAX	255
#define HICN_RETX_LIMIT_DEFAULT	3
/*
 * HICN_WINDOW_MAX is the largest value of HICN_WINDOW and of the two bounds
 * (a limit, not an option: the option is HICN_MAX_WINDOW_SIZE).
 */
#define HICN_WINDOW_MAX		4096
#define HICN_WINDOW_DEFAULT	256
#define HICN_WINDOW_INIT	4	/* initial congestion window */
#define HICN_RTO_MIN_MS		200	/* retransmission timeout floor */

/*
 * Control message (recvmsg(), level SOL_HICN) a CONS_UNREL consumer gets
 * when segments of the object never arrived: a __u32 count of missing
 * segments.  Their bytes read as zeros; the object keeps its length.
 */
#define HICN_CMSG_LOST		1

/*
 * Version 2 appended the consumer's congestion control (hi_srtt_us to
 * hi_window_cuts), version 3 hi_early_retx and hi_spurious_retx; a
 * program built against an older version passes the shorter size and
 * gets what it knows.
 */
#define HICN_INFO_VERSION	3

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
 * @hi_timeouts: consumer: interests whose retransmission timeout (or, for
 *	the last try and for CONS_UNREL, lifetime) ran out
 * @hi_lost: consumer: segments given up on (CONS_UNREL gaps)
 * @hi_objects: consumer: objects received; producer: objects published
 * @hi_last_version: version of the last object received or published
 * @hi_versions: producer: versions held now
 * @hi_mem: producer: bytes of published content charged to the socket
 * @hi_rmem: consumer: bytes received and not yet read, charged to the
 *	receive buffer (SO_RCVBUF)
 * @hi_srtt_us: consumer: smoothed round-trip time of interests answered
 *	at their first sending (Karn), microseconds; 0 before a sample
 * @hi_rttvar_us: consumer: its mean deviation, microseconds
 * @hi_min_rtt_us: consumer: the smallest round-trip time seen
 * @hi_rto_us: consumer: the retransmission timeout in force, backoff
 *	included, microseconds
 * @hi_window: consumer: the congestion window, interests
 * @hi_window_min: consumer: HICN_MIN_WINDOW_SIZE
 * @hi_window_max: consumer: HICN_MAX_WINDOW_SIZE
 * @hi_ssthresh: consumer: the window up to which it grows by one per data
 *	segment (slow start), by one per window after it
 * @hi_in_flight: consumer: interests of the window outstanding now
 * @hi_backoff: consumer: doublings of the retransmission timeout since the
 *	last RTT sample
 * @hi_window_cuts: consumer: times the window was halved (one per loss
 *	event: losses of interests sent before the last cut are the same
 *	event)
 * @hi_early_retx: consumer: interests found lost before their
 *	retransmission timeout, because the data of an interest sent after
 *	them came and theirs did not within SRTT and a reordering window
 *	(RACK), and resent then; every resend is one of these or follows a
 *	timeout
 * @hi_spurious_retx: consumer: of the early ones, those whose first
 *	sending was answered after all (sooner than a round trip after the
 *	resend): each widens the reordering window, and the window cut they
 *	caused is undone
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
	/* HICN_INFO_VERSION 2 */
	__u32	hi_srtt_us;
	__u32	hi_rttvar_us;
	__u32	hi_min_rtt_us;
	__u32	hi_rto_us;
	__u32	hi_window;
	__u32	hi_window_min;
	__u32	hi_window_max;
	__u32	hi_ssthresh;
	__u32	hi_in_flight;
	__u32	hi_backoff;
	__u64	hi_window_cuts;
	/* HICN_INFO_VERSION 3 */
	__u64	hi_early_retx;
	__u64	hi_spurious_retx;
};

/*
 * The configuration plane is the generic netlink family "hicn"
 * (<linux/hicn_netlink.h>, generated from
 * Documentation/netlink/specs/hicn.yaml).  Its multicast group for
 * the namespace events (HICN_CMD_NAMESPACE_CLAIMED, _RELEASED), the UDP
 * face events (HICN_CMD_FACE_ADDED, _DELETED, _UP, _DOWN) and the route
 * events (HICN_CMD_ROUTE_ADDED, _DELETED):
 */
#define HICN_MCGRP_EVENTS	"events"

#endif /* _UAPI_LINUX_HICN_H */
