/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hICN's packet formats on the wire (the UDP payload of a face), and how
 * AF_HICN's versioned names map onto them.  Documentation/hicn-wire.rst
 * describes every byte; this file and wire.c are the only code that reads
 * or writes them.
 *
 * wire.c is pure: no allocation, no locks, no sk_buff, nothing but
 * <linux/types.h>, <linux/string.h>, <linux/errno.h> and <linux/in6.h>,
 * so that the same file is built into hicn.ko and into a host test
 * program (tools/testing/selftests/net/hicn/wire/) that checks it byte for
 * byte against packets captured from FD.io's hicn-light.  Multi-byte
 * fields are read and written a byte at a time: a packet may sit at any
 * alignment.
 */
#ifndef _NET_HICN_WIRE_H
#define _NET_HICN_WIRE_H

#include <linux/in6.h>
#include <linux/types.h>

/* Fixed header lengths of the three formats, and of the AH header. */
#define HICN_WIRE_IPV6_TCP_HLEN	60
#define HICN_WIRE_IPV4_TCP_HLEN	40
#define HICN_WIRE_COMPACT_HLEN	32
#define HICN_WIRE_AH_HLEN	44
/* Largest hICN packet accepted or built (every length field fits). */
#define HICN_WIRE_MAX_LEN	65535

/* Lifetimes, in milliseconds: what the TCP-shaped format can carry. */
#define HICN_WIRE_LIFETIME_MAX	0x7fff8000U	/* 0xffff << 15, "never" */

/* Defaults libhicn writes, which we write too. */
#define HICN_WIRE_HOP_LIMIT	254
#define HICN_WIRE_IPV4_ID	300
#define HICN_WIRE_SPORT		0x8000
#define HICN_WIRE_DPORT		0x0080

/**
 * enum hicn_wire_format - the layouts of an hICN packet
 * @HICN_WIRE_IPV6_TCP: IPv6 header + 20-byte TCP-shaped header (default;
 *	first nibble 6)
 * @HICN_WIRE_IPV4_TCP: IPv4 header + 20-byte TCP-shaped header (first
 *	nibble 4)
 * @HICN_WIRE_COMPACT: the 32-byte "new" header (first byte 0x90)
 */
enum hicn_wire_format {
	HICN_WIRE_IPV6_TCP,
	HICN_WIRE_IPV4_TCP,
	HICN_WIRE_COMPACT,
};

/* struct hicn_wire_pkt.flags: the same meaning in every format. */
#define HICN_WIRE_F_SIG		0x01	/* an AH + signature follows the header */
#define HICN_WIRE_F_MAN		0x02	/* the payload is a manifest */
#define HICN_WIRE_F_LST		0x04	/* last data segment (data only) */

/**
 * enum hicn_wire_drop - why hicn_wire_parse() refused a datagram, one
 *	per-face drop counter each
 * @HICN_WIRE_OK: accepted
 * @HICN_WIRE_DROP_TRUNCATED: shorter than its format's fixed header (or
 *	than the AH header it announces); -EBADMSG
 * @HICN_WIRE_DROP_VERSION: first nibble neither 4, 6 nor 9, or a compact
 *	header whose first byte is not 0x90; -EPROTONOSUPPORT
 * @HICN_WIRE_DROP_NEXT_HEADER: IPv6 next header / IPv4 protocol not 6;
 *	-EPROTO
 * @HICN_WIRE_DROP_LENGTH: the packet's length field disagrees with the
 *	datagram's length; -EBADMSG
 * @HICN_WIRE_DROP_OVERSIZED: longer than HICN_WIRE_MAX_LEN; -EMSGSIZE
 * @HICN_WIRE_DROP_HEADER: a fixed field out of range: IPv4 options,
 *	fragment or bad header checksum, TCP data offset not 5; -EPROTO
 * @HICN_WIRE_DROP_FLAGS: a flag bit hICN does not define, or one that
 *	cannot go with the packet's type (LST on an interest); -EPROTO
 * @HICN_WIRE_DROP_LIFETIME: an interest with lifetime 0; -EPROTO
 * @HICN_WIRE_DROP_CONTROL: a hicn-light control message (first byte 0xc0
 *	to 0xc4): not for a face; -EOPNOTSUPP
 * @HICN_WIRE_DROP_AH: the AH header is malformed (next header not 0,
 *	padding longer than the signature field); -EPROTO
 * @HICN_WIRE_DROP_MAX: number of reasons
 */
enum hicn_wire_drop {
	HICN_WIRE_OK,
	HICN_WIRE_DROP_TRUNCATED,
	HICN_WIRE_DROP_VERSION,
	HICN_WIRE_DROP_NEXT_HEADER,
	HICN_WIRE_DROP_LENGTH,
	HICN_WIRE_DROP_OVERSIZED,
	HICN_WIRE_DROP_HEADER,
	HICN_WIRE_DROP_FLAGS,
	HICN_WIRE_DROP_LIFETIME,
	HICN_WIRE_DROP_CONTROL,
	HICN_WIRE_DROP_AH,
	HICN_WIRE_DROP_MAX,
};

/**
 * struct hicn_wire_pkt - one hICN packet, decoded
 * @format: enum hicn_wire_format
 * @is_interest: interest (true) or data
 * @flags: HICN_WIRE_F_*
 * @hop_limit: IPv6 hop limit / IPv4 TTL; 0 in the compact format,
 *	which has none
 * @drop: enum hicn_wire_drop, set by hicn_wire_parse() whatever it returns
 * @ah_alg: the AH's validation algorithm (libtransport CryptoSuite), when
 *	@flags has HICN_WIRE_F_SIG
 * @checksum: the TCP checksum field as seen (parse); ignored by build,
 *	which computes it
 * @name: the name prefix.  An IPv4 name is 12 zero bytes then the four
 *	address bytes (libhicn's hicn_ip_address_t, not v4-mapped)
 * @suffix: the 32-bit name suffix
 * @locator: the reply address: an interest's source, a data's
 *	destination; IPv4 as in @name; all zero in the compact format
 * @path_label: the path label (TCP ack / compact label), as a big-endian
 *	u32 read: 0x00000001 for a label byte 1 written by an x86 forwarder
 * @lifetime: milliseconds: interest lifetime, or how long data may be
 *	cached (0: not at all; HICN_WIRE_LIFETIME_MAX: never expires)
 * @ah_off: offset of the AH header (valid with HICN_WIRE_F_SIG)
 * @ah_len: AH header + signature field bytes, 0 without HICN_WIRE_F_SIG
 * @payload_off: offset of the payload, after the headers and the AH
 * @payload_len: payload bytes; @payload_off + @payload_len is the packet
 *	length
 * @tail: hicn_wire_build() only: where the packet's last @tail_len bytes
 *	(of the AH and payload) are, when not in the buffer being built
 * @tail_len: bytes at @tail, 0 when the whole packet is in the buffer
 */
struct hicn_wire_pkt {
	u8			format;
	bool			is_interest;
	u8			flags;
	u8			hop_limit;
	u8			drop;
	u8			ah_alg;
	u16			checksum;
	struct in6_addr		name;
	u32			suffix;
	struct in6_addr		locator;
	u32			path_label;
	u32			lifetime;
	u32			ah_off;
	u32			ah_len;
	u32			payload_off;
	u32			payload_len;
	const void		*tail;
	u32			tail_len;
};

int hicn_wire_parse(const void *buf, size_t len, struct hicn_wire_pkt *p);
int hicn_wire_hlen(const struct hicn_wire_pkt *p);
int hicn_wire_build(void *buf, size_t room, const struct hicn_wire_pkt *p);
const char *hicn_wire_drop_name(unsigned int drop);
void hicn_wire_lifetime_encode(u32 ms, u16 *urg, u8 *scale);

/*
 * AF_HICN names on the wire.  Our key is (128-bit name, 32-bit version,
 * 32-bit segment, kind); the wire has a 128-bit prefix and a 32-bit
 * suffix, which a stock forwarder matches exactly.  The prefix is our
 * name; the suffix packs a reduced version and the segment:
 *
 *   bits 31..21  V: wire version, 1..2047 (0 = a kind other than EXACT)
 *   bits 20..0   S: segment, 0..2^21-1 (every object HICN_OBJECT_MAX and
 *                HICN_PACKET_SIZE_MIN allow)
 *
 *   EXACT   V = hicn_wire_ver(ver), S = seg
 *   LATEST  V = 0, S = 1 << 19
 *   NEXT    V = 0, S = 2 << 19 | hicn_wire_ver(ver)
 *   PROBE   V = 0, S = 3 << 19
 *
 * Any other suffix with V = 0 is not one of ours (-EINVAL).  The full
 * version travels in the transport header at the start of every data
 * payload of ours (struct hicn_wire_thdr), which consumers check.
 */
#define HICN_WIRE_SEG_BITS	21
#define HICN_WIRE_SEG_MAX	((1U << HICN_WIRE_SEG_BITS) - 1)
#define HICN_WIRE_VER_BITS	(32 - HICN_WIRE_SEG_BITS)
#define HICN_WIRE_VER_MOD	((1U << HICN_WIRE_VER_BITS) - 1)	/* 2047 */
#define HICN_WIRE_KIND_SHIFT	19

/* The values of enum hicn_kind (net/hicn/hicn.h), which they must equal. */
#define HICN_WIRE_KIND_EXACT	0
#define HICN_WIRE_KIND_LATEST	1
#define HICN_WIRE_KIND_NEXT	2
#define HICN_WIRE_KIND_PROBE	3

/**
 * hicn_wire_ver() - the wire version of a version
 * @ver: a version, 0 (none) or from 1
 *
 * Return: 0 for 0, else ((@ver - 1) mod 2047) + 1, in 1..2047.
 */
static inline u32 hicn_wire_ver(u32 ver)
{
	return ver ? (ver - 1) % HICN_WIRE_VER_MOD + 1 : 0;
}

int hicn_wire_key_to_suffix(u32 kind, u32 ver, u32 seg, u32 *suffix);
int hicn_wire_suffix_to_key(u32 suffix, u32 *kind, u32 *wver, u32 *seg);
u32 hicn_wire_ver_expand(u32 wver, u32 newest);

/*
 * A stock consumer's interest manifest: one interest asking for up to
 * 256 suffixes of its name (hicn-wire.rst, "Names that are not ours").
 */
#define HICN_WIRE_IMAN_MAX	256
int hicn_wire_imanifest_parse(const void *buf, size_t len);
bool hicn_wire_imanifest_requested(const void *buf, unsigned int i);
u32 hicn_wire_imanifest_suffix(const void *buf, unsigned int i);

/*
 * Our transport header: the first HICN_WIRE_THDR_LEN bytes of the payload
 * of every data packet an AF_HICN producer sends.  Big-endian fields.
 *
 *   0  2  magic HICN_WIRE_THDR_MAGIC ("H1": this header, version 1)
 *   2  1  kind of the interest answered (HICN_WIRE_KIND_*)
 *   3  1  flags HICN_WIRE_TF_*
 *   4  4  version of the object (0 only in a PROBE answer: none published)
 *   8  4  segment number
 *  12  4  final segment number
 *  16  4  segment size: payload bytes of every segment but the last
 *  20  4  version the interest named (NEXT: newer than this), else 0
 *  24  8  object length in bytes
 *  32     the segment's bytes
 */
#define HICN_WIRE_THDR_LEN	32
#define HICN_WIRE_THDR_MAGIC	0x4831
#define HICN_WIRE_TF_NACK	0x01	/* no such version or segment */
#define HICN_WIRE_TF_PROBE	0x02	/* answers a PROBE: @ver, no bytes */
/* Largest object and segment size (HICN_OBJECT_MAX, HICN_PACKET_SIZE_MAX). */
#define HICN_WIRE_OBJ_MAX	(128U << 20)
#define HICN_WIRE_SEG_SIZE_MAX	65000

/**
 * struct hicn_wire_thdr - our transport header, decoded
 * @kind: kind of the interest it answers
 * @flags: HICN_WIRE_TF_*
 * @ver: version of the object
 * @seg: segment number
 * @final_seg: last segment number of the object
 * @seg_size: payload bytes per segment
 * @asked_ver: the version the interest named (NEXT), else 0
 * @obj_len: object length
 * @off: where the segment's bytes go in the object (parse: checked)
 * @len: the segment's byte count (parse: checked against the packet)
 */
struct hicn_wire_thdr {
	u8	kind;
	u8	flags;
	u32	ver;
	u32	seg;
	u32	final_seg;
	u32	seg_size;
	u32	asked_ver;
	u64	obj_len;
	u64	off;
	u32	len;
};

int hicn_wire_thdr_build(void *buf, size_t room,
			 const struct hicn_wire_thdr *th);
int hicn_wire_thdr_parse(const void *buf, size_t len,
			 struct hicn_wire_thdr *th);
int hicn_wire_thdr_match(const struct hicn_wire_thdr *th, u32 kind,
			 u32 ver, u32 seg);

#endif /* _NET_HICN_WIRE_H */
