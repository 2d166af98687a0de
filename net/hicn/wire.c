// SPDX-License-Identifier: GPL-2.0
/*
 * hICN wire codec: parse and build the three packet formats FD.io's
 * libhicn defines (IPv6 + TCP-shaped, IPv4 + TCP-shaped, compact), map
 * AF_HICN's versioned names onto a prefix and a 32-bit suffix, and read
 * and write our transport header.  Documentation/hicn-wire.rst is the
 * specification; the host test in tools/testing/selftests/net/hicn/wire/
 * checks this file against captures of a stock hicn-light.
 *
 * Everything here is a pure function of its arguments.  The parser reads
 * no byte at or past the length it is given, and every length or offset
 * it returns has been checked against that length.
 */

#include <linux/errno.h>
#include <linux/in6.h>
#include <linux/string.h>
#include <linux/types.h>

#include "wire.h"

/* TCP flag bits of the TCP-shaped formats, and their hICN meaning. */
#define TCPF_FIN	0x01	/* unused: refused */
#define TCPF_SYN	0x02	/* always set by libhicn, ignored */
#define TCPF_RST	0x04	/* HICN_WIRE_F_LST */
#define TCPF_PSH	0x08	/* unused: refused */
#define TCPF_ACK	0x10	/* HICN_WIRE_F_SIG: an AH follows */
#define TCPF_URG	0x20	/* HICN_WIRE_F_MAN */
#define TCPF_ECE	0x40	/* data (clear: interest) */
#define TCPF_CWR	0x80	/* unused: refused */

/* Flag bits of the compact format. */
#define CMPF_SIG	0x01
#define CMPF_MAN	0x02
#define CMPF_INT	0x04
#define CMPF_LST	0x08

#define CMP_BYTE0	0x90
#define IPV4_FRAG_MASK	0xbfff	/* reserved bit, MF, offset: DF alone is fine */

static u16 rd16(const u8 *b)
{
	return (u16)(b[0] << 8 | b[1]);
}

static u32 rd32(const u8 *b)
{
	return (u32)b[0] << 24 | (u32)b[1] << 16 | (u32)b[2] << 8 | b[3];
}

static void wr16(u8 *b, u16 v)
{
	b[0] = v >> 8;
	b[1] = v;
}

static void wr32(u8 *b, u32 v)
{
	b[0] = v >> 24;
	b[1] = v >> 16;
	b[2] = v >> 8;
	b[3] = v;
}

/* One's complement sum of @len bytes as big-endian words, odd byte padded. */
static u32 csum_add(u32 sum, const u8 *b, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += rd16(b + i);
	if (len & 1)
		sum += (u32)b[len - 1] << 8;
	/* Fold now and then: at most 65535 words of 0xffff between folds. */
	return (sum & 0xffff) + (sum >> 16);
}

/*
 * The sum of bytes [@from, @total) of a packet whose last p->tail_len
 * bytes are at p->tail, not at @b (hicn_wire_build() made sure that the
 * bytes at @b, and @from, are of even length: a word never straddles).
 */
static u32 csum_pkt(u32 sum, const u8 *b, u32 total, u32 from,
		    const struct hicn_wire_pkt *p)
{
	u32 blen = total - p->tail_len;

	if (from < blen) {
		sum = csum_add(sum, b + from, blen - from);
		from = blen;
	}
	return csum_add(sum, (const u8 *)p->tail + (from - blen), total - from);
}

static u16 csum_fold(u32 sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (u16)~sum;
}

static int drop(struct hicn_wire_pkt *p, enum hicn_wire_drop why, int err)
{
	p->drop = why;
	return err;
}

static void addr_v4(struct in6_addr *a, const u8 *b)
{
	memset(a, 0, sizeof(*a));
	memcpy(&a->s6_addr[12], b, 4);
}

static bool addr_is_v4(const struct in6_addr *a)
{
	static const u8 zero[12];

	return !memcmp(a->s6_addr, zero, sizeof(zero));
}

/* The AH header at @off, when the flags announce one; then the payload. */
static int parse_ah(const u8 *b, size_t len, u32 off, struct hicn_wire_pkt *p)
{
	u32 field;

	if (p->flags & HICN_WIRE_F_SIG) {
		if (len - off < HICN_WIRE_AH_HLEN)
			return drop(p, HICN_WIRE_DROP_TRUNCATED, -EBADMSG);
		if (b[off])
			return drop(p, HICN_WIRE_DROP_AH, -EPROTO);
		field = (u32)b[off + 1] * 4;
		if (len - off - HICN_WIRE_AH_HLEN < field)
			return drop(p, HICN_WIRE_DROP_TRUNCATED, -EBADMSG);
		if (b[off + 3] > field)
			return drop(p, HICN_WIRE_DROP_AH, -EPROTO);
		p->ah_alg = b[off + 2];
		p->ah_off = off;
		p->ah_len = HICN_WIRE_AH_HLEN + field;
		off += p->ah_len;
	}
	p->payload_off = off;
	p->payload_len = len - off;
	return 0;
}

/* The 20-byte TCP-shaped header at @t; its length is already checked. */
static int parse_tcp(const u8 *b, size_t len, u32 t, struct hicn_wire_pkt *p)
{
	u8 f = b[t + 13];

	if (b[t + 12] >> 4 != 5)
		return drop(p, HICN_WIRE_DROP_HEADER, -EPROTO);
	if (f & (TCPF_FIN | TCPF_PSH | TCPF_CWR))
		return drop(p, HICN_WIRE_DROP_FLAGS, -EPROTO);
	p->is_interest = !(f & TCPF_ECE);
	if (f & TCPF_ACK)
		p->flags |= HICN_WIRE_F_SIG;
	if (f & TCPF_URG)
		p->flags |= HICN_WIRE_F_MAN;
	if (f & TCPF_RST) {
		if (p->is_interest)
			return drop(p, HICN_WIRE_DROP_FLAGS, -EPROTO);
		p->flags |= HICN_WIRE_F_LST;
	}
	p->suffix = rd32(b + t + 4);
	p->path_label = rd32(b + t + 8);
	p->checksum = rd16(b + t + 16);
	p->lifetime = (u32)rd16(b + t + 18) << (b[t + 12] & 0x0f);
	if (p->is_interest && !p->lifetime)
		return drop(p, HICN_WIRE_DROP_LIFETIME, -EPROTO);
	return parse_ah(b, len, t + 20, p);
}

static int parse_ipv6(const u8 *b, size_t len, struct hicn_wire_pkt *p)
{
	p->format = HICN_WIRE_IPV6_TCP;
	if (len < HICN_WIRE_IPV6_TCP_HLEN)
		return drop(p, HICN_WIRE_DROP_TRUNCATED, -EBADMSG);
	if (b[6] != 6)
		return drop(p, HICN_WIRE_DROP_NEXT_HEADER, -EPROTO);
	if (rd16(b + 4) + 40U != len)
		return drop(p, HICN_WIRE_DROP_LENGTH, -EBADMSG);
	p->hop_limit = b[7];
	/* Flags first: which address is the name depends on them. */
	p->is_interest = !(b[53] & TCPF_ECE);
	memcpy(p->is_interest ? &p->locator : &p->name, b + 8, 16);
	memcpy(p->is_interest ? &p->name : &p->locator, b + 24, 16);
	return parse_tcp(b, len, 40, p);
}

static int parse_ipv4(const u8 *b, size_t len, struct hicn_wire_pkt *p)
{
	p->format = HICN_WIRE_IPV4_TCP;
	if (len < HICN_WIRE_IPV4_TCP_HLEN)
		return drop(p, HICN_WIRE_DROP_TRUNCATED, -EBADMSG);
	if (b[0] != 0x45)	/* options: none in hICN */
		return drop(p, HICN_WIRE_DROP_HEADER, -EPROTO);
	if (b[9] != 6)
		return drop(p, HICN_WIRE_DROP_NEXT_HEADER, -EPROTO);
	if (rd16(b + 2) != len)
		return drop(p, HICN_WIRE_DROP_LENGTH, -EBADMSG);
	if (rd16(b + 6) & IPV4_FRAG_MASK)
		return drop(p, HICN_WIRE_DROP_HEADER, -EPROTO);
	if (csum_fold(csum_add(0, b, 20)))
		return drop(p, HICN_WIRE_DROP_HEADER, -EPROTO);
	p->hop_limit = b[8];
	p->is_interest = !(b[33] & TCPF_ECE);
	addr_v4(p->is_interest ? &p->locator : &p->name, b + 12);
	addr_v4(p->is_interest ? &p->name : &p->locator, b + 16);
	return parse_tcp(b, len, 20, p);
}

static int parse_compact(const u8 *b, size_t len, struct hicn_wire_pkt *p)
{
	u8 f;

	p->format = HICN_WIRE_COMPACT;
	if (b[0] != CMP_BYTE0)
		return drop(p, HICN_WIRE_DROP_VERSION, -EPROTONOSUPPORT);
	if (len < HICN_WIRE_COMPACT_HLEN)
		return drop(p, HICN_WIRE_DROP_TRUNCATED, -EBADMSG);
	f = b[1];
	if (f & ~(CMPF_SIG | CMPF_MAN | CMPF_INT | CMPF_LST))
		return drop(p, HICN_WIRE_DROP_FLAGS, -EPROTO);
	p->is_interest = f & CMPF_INT;
	if ((f & CMPF_LST) && p->is_interest)
		return drop(p, HICN_WIRE_DROP_FLAGS, -EPROTO);
	if (f & CMPF_SIG)
		p->flags |= HICN_WIRE_F_SIG;
	if (f & CMPF_MAN)
		p->flags |= HICN_WIRE_F_MAN;
	if (f & CMPF_LST)
		p->flags |= HICN_WIRE_F_LST;
	if (len - HICN_WIRE_COMPACT_HLEN != rd16(b + 2))
		return drop(p, HICN_WIRE_DROP_LENGTH, -EBADMSG);
	p->lifetime = rd32(b + 4);
	if (p->is_interest && !p->lifetime)
		return drop(p, HICN_WIRE_DROP_LIFETIME, -EPROTO);
	memcpy(&p->name, b + 8, 16);
	p->suffix = rd32(b + 24);
	p->path_label = rd32(b + 28);
	return parse_ah(b, len, HICN_WIRE_COMPACT_HLEN, p);
}

/**
 * hicn_wire_parse() - validate and decode one hICN packet
 * @buf: the UDP payload
 * @len: its length
 * @p: the decoded packet; p->drop is set whatever the result
 *
 * Every field is checked before use (Documentation/hicn-wire.rst,
 * "Validation"); no byte at or past @len is read.  A signed packet (AH)
 * is accepted and its signature skipped, not verified: p->ah_off and
 * p->ah_len locate it.
 *
 * Return: 0, or a negative errno with p->drop naming the reason:
 * -EBADMSG (truncated, length mismatch), -EPROTONOSUPPORT (version),
 * -EPROTO (next header, header field, flags, lifetime, AH), -EMSGSIZE
 * (oversized), -EOPNOTSUPP (a hicn-light control message).
 */
int hicn_wire_parse(const void *buf, size_t len, struct hicn_wire_pkt *p)
{
	const u8 *b = buf;

	memset(p, 0, sizeof(*p));
	if (len > HICN_WIRE_MAX_LEN)
		return drop(p, HICN_WIRE_DROP_OVERSIZED, -EMSGSIZE);
	if (!len)
		return drop(p, HICN_WIRE_DROP_TRUNCATED, -EBADMSG);
	if (b[0] >= 0xc0 && b[0] <= 0xc4)
		return drop(p, HICN_WIRE_DROP_CONTROL, -EOPNOTSUPP);
	switch (b[0] >> 4) {
	case 6:
		return parse_ipv6(b, len, p);
	case 4:
		return parse_ipv4(b, len, p);
	case 9:
		return parse_compact(b, len, p);
	}
	return drop(p, HICN_WIRE_DROP_VERSION, -EPROTONOSUPPORT);
}

/**
 * hicn_wire_drop_name() - a short name for a drop reason, for counters
 * @drop: enum hicn_wire_drop
 *
 * Return: a static string, "?" for an unknown value.
 */
const char *hicn_wire_drop_name(unsigned int drop)
{
	static const char * const names[HICN_WIRE_DROP_MAX] = {
		[HICN_WIRE_OK]			= "ok",
		[HICN_WIRE_DROP_TRUNCATED]	= "truncated",
		[HICN_WIRE_DROP_VERSION]	= "version",
		[HICN_WIRE_DROP_NEXT_HEADER]	= "next_header",
		[HICN_WIRE_DROP_LENGTH]		= "length",
		[HICN_WIRE_DROP_OVERSIZED]	= "oversized",
		[HICN_WIRE_DROP_HEADER]		= "header",
		[HICN_WIRE_DROP_FLAGS]		= "flags",
		[HICN_WIRE_DROP_LIFETIME]	= "lifetime",
		[HICN_WIRE_DROP_CONTROL]	= "control",
		[HICN_WIRE_DROP_AH]		= "ah",
	};

	return drop < HICN_WIRE_DROP_MAX ? names[drop] : "?";
}

/**
 * hicn_wire_lifetime_encode() - a lifetime as the TCP-shaped formats carry it
 * @ms: milliseconds
 * @urg: the urgent-pointer value
 * @scale: the shift, 0 to 15: the lifetime is @urg << @scale
 *
 * The smallest scale at which @ms fits in 16 bits, as libhicn does: the
 * low bits shifted out are lost.  HICN_WIRE_LIFETIME_MAX or more is
 * 0xffff << 15.
 */
void hicn_wire_lifetime_encode(u32 ms, u16 *urg, u8 *scale)
{
	u8 s = 0;

	if (ms >= HICN_WIRE_LIFETIME_MAX) {
		*urg = 0xffff;
		*scale = 15;
		return;
	}
	while (ms >> s > 0xffff)
		s++;
	*urg = ms >> s;
	*scale = s;
}

/**
 * hicn_wire_hlen() - the fixed header length of a packet's format
 * @p: the packet
 *
 * Return: the length, or -EINVAL for an unknown format.
 */
int hicn_wire_hlen(const struct hicn_wire_pkt *p)
{
	switch (p->format) {
	case HICN_WIRE_IPV6_TCP:
		return HICN_WIRE_IPV6_TCP_HLEN;
	case HICN_WIRE_IPV4_TCP:
		return HICN_WIRE_IPV4_TCP_HLEN;
	case HICN_WIRE_COMPACT:
		return HICN_WIRE_COMPACT_HLEN;
	}
	return -EINVAL;
}

static void build_tcp(u8 *t, const struct hicn_wire_pkt *p)
{
	u8 f = TCPF_SYN;
	u16 urg;
	u8 scale;

	if (!p->is_interest)
		f |= TCPF_ECE;
	if (p->flags & HICN_WIRE_F_SIG)
		f |= TCPF_ACK;
	if (p->flags & HICN_WIRE_F_MAN)
		f |= TCPF_URG;
	if (p->flags & HICN_WIRE_F_LST)
		f |= TCPF_RST;
	hicn_wire_lifetime_encode(p->lifetime, &urg, &scale);
	wr16(t, HICN_WIRE_SPORT);
	wr16(t + 2, HICN_WIRE_DPORT);
	wr32(t + 4, p->suffix);
	wr32(t + 8, p->path_label);
	t[12] = 0x50 | scale;
	t[13] = f;
	wr16(t + 14, 0);
	wr16(t + 16, 0);
	wr16(t + 18, urg);
}

/*
 * IPv6: the checksum libhicn 7b4936a1 writes (and nobody verifies): the
 * pseudo-header, the first 20 bytes of the packet and the payload after
 * every header and the AH, not the TCP-shaped header.
 */
static void build_ipv6(u8 *b, u32 total, const struct hicn_wire_pkt *p)
{
	u8 pseudo[40];
	u32 sum;

	memset(b, 0, 8);
	b[0] = 0x60;
	wr16(b + 4, total - 40);
	b[6] = 6;
	b[7] = p->hop_limit;
	memcpy(b + 8, p->is_interest ? &p->locator : &p->name, 16);
	memcpy(b + 24, p->is_interest ? &p->name : &p->locator, 16);
	build_tcp(b + 40, p);

	memcpy(pseudo, b + 8, 32);
	wr32(pseudo + 32, total - 40);
	wr32(pseudo + 36, 6);
	sum = csum_add(0, pseudo, sizeof(pseudo));
	sum = csum_add(sum, b, 20);
	sum = csum_pkt(sum, b, total, total - p->payload_len, p);
	wr16(b + 56, csum_fold(sum));
}

/*
 * IPv4: a valid header checksum; a standard TCP checksum computed with
 * the path label as 0, so that a forwarder's rewrite of the label leaves
 * it as valid as it was.
 */
static void build_ipv4(u8 *b, u32 total, const struct hicn_wire_pkt *p)
{
	const struct in6_addr *src, *dst;
	u8 pseudo[12];
	u32 sum;

	b[0] = 0x45;
	b[1] = 0;
	wr16(b + 2, total);
	wr16(b + 4, HICN_WIRE_IPV4_ID);
	wr16(b + 6, 0);
	b[8] = p->hop_limit;
	b[9] = 6;
	wr16(b + 10, 0);
	src = p->is_interest ? &p->locator : &p->name;
	dst = p->is_interest ? &p->name : &p->locator;
	memcpy(b + 12, &src->s6_addr[12], 4);
	memcpy(b + 16, &dst->s6_addr[12], 4);
	build_tcp(b + 20, p);

	memcpy(pseudo, b + 12, 8);
	wr16(pseudo + 8, 6);
	wr16(pseudo + 10, total - 20);
	sum = csum_add(0, pseudo, sizeof(pseudo));
	sum = csum_add(sum, b + 20, 8);		/* ports, suffix */
	sum = csum_pkt(sum, b, total, 32, p);	/* skips the label */
	wr16(b + 36, csum_fold(sum));
	wr16(b + 10, csum_fold(csum_add(0, b, 20)));
}

static void build_compact(u8 *b, u32 total, const struct hicn_wire_pkt *p)
{
	u8 f = 0;

	if (p->is_interest)
		f |= CMPF_INT;
	if (p->flags & HICN_WIRE_F_SIG)
		f |= CMPF_SIG;
	if (p->flags & HICN_WIRE_F_MAN)
		f |= CMPF_MAN;
	if (p->flags & HICN_WIRE_F_LST)
		f |= CMPF_LST;
	b[0] = CMP_BYTE0;
	b[1] = f;
	wr16(b + 2, total - HICN_WIRE_COMPACT_HLEN);
	wr32(b + 4, p->lifetime);
	memcpy(b + 8, &p->name, 16);
	wr32(b + 24, p->suffix);
	wr32(b + 28, p->path_label);
}

/**
 * hicn_wire_build() - write the headers of a packet
 * @buf: the packet: its AH (p->ah_len bytes, when signed) and payload
 *	(p->payload_len bytes) are already in place after the fixed header,
 *	at hicn_wire_hlen(p), but for their last p->tail_len bytes, which
 *	are at p->tail (a face sends them from where they are: they follow
 *	the bytes at @buf on the wire)
 * @room: bytes available at @buf
 * @p: what to write; p->format, is_interest, flags, hop_limit, name,
 *	suffix, locator, path_label, lifetime, ah_len and payload_len are
 *	used, the rest is ignored
 *
 * Writes the fixed header and, in the TCP-shaped formats, the checksums
 * (which read the payload).  A lifetime in the TCP-shaped formats loses
 * its low bits beyond 16 significant ones (hicn_wire_lifetime_encode()).
 *
 * Return: the packet length, or -EINVAL (unknown format or flag, LST on an
 * interest, an interest with lifetime 0, an AH length that is not 44 plus
 * a multiple of 4 up to 1020, an IPv4 name or locator whose first 12
 * bytes are not zero, a tail longer than the AH and payload, or a tail that
 * leaves an odd number of bytes at @buf), -EMSGSIZE (longer than
 * HICN_WIRE_MAX_LEN), -ENOSPC (the bytes at @buf longer than @room).
 */
int hicn_wire_build(void *buf, size_t room, const struct hicn_wire_pkt *p)
{
	int hlen = hicn_wire_hlen(p);
	u32 total;

	if (hlen < 0)
		return hlen;
	if (p->flags & ~(HICN_WIRE_F_SIG | HICN_WIRE_F_MAN | HICN_WIRE_F_LST))
		return -EINVAL;
	if (p->is_interest && ((p->flags & HICN_WIRE_F_LST) || !p->lifetime))
		return -EINVAL;
	if (p->flags & HICN_WIRE_F_SIG) {
		if (p->ah_len < HICN_WIRE_AH_HLEN || (p->ah_len & 3) ||
		    p->ah_len > HICN_WIRE_AH_HLEN + 255 * 4)
			return -EINVAL;
	} else if (p->ah_len) {
		return -EINVAL;
	}
	if (p->payload_len > HICN_WIRE_MAX_LEN)
		return -EMSGSIZE;
	total = hlen + p->ah_len + p->payload_len;
	if (total > HICN_WIRE_MAX_LEN)
		return -EMSGSIZE;
	if (p->tail_len > p->ah_len + p->payload_len ||
	    (p->tail_len && ((total - p->tail_len) & 1)))
		return -EINVAL;
	if (total - p->tail_len > room)
		return -ENOSPC;

	switch (p->format) {
	case HICN_WIRE_IPV6_TCP:
		build_ipv6(buf, total, p);
		break;
	case HICN_WIRE_IPV4_TCP:
		if (!addr_is_v4(&p->name) || !addr_is_v4(&p->locator))
			return -EINVAL;
		build_ipv4(buf, total, p);
		break;
	case HICN_WIRE_COMPACT:
		build_compact(buf, total, p);
		break;
	}
	return total;
}

/**
 * hicn_wire_key_to_suffix() - the wire suffix of one of our interests
 * @kind: HICN_WIRE_KIND_* (enum hicn_kind)
 * @ver: version: EXACT from 1, NEXT the version to be newer than, LATEST
 *	and PROBE 0
 * @seg: segment: EXACT up to HICN_WIRE_SEG_MAX, else 0
 * @suffix: the suffix
 *
 * Return: 0, -ERANGE for a segment beyond HICN_WIRE_SEG_MAX (the object
 * cannot be fetched over the network), -EINVAL for any other key that has
 * no encoding.
 */
int hicn_wire_key_to_suffix(u32 kind, u32 ver, u32 seg, u32 *suffix)
{
	switch (kind) {
	case HICN_WIRE_KIND_EXACT:
		if (!ver)
			return -EINVAL;
		if (seg > HICN_WIRE_SEG_MAX)
			return -ERANGE;
		*suffix = hicn_wire_ver(ver) << HICN_WIRE_SEG_BITS | seg;
		return 0;
	case HICN_WIRE_KIND_LATEST:
	case HICN_WIRE_KIND_PROBE:
		if (ver || seg)
			return -EINVAL;
		*suffix = kind << HICN_WIRE_KIND_SHIFT;
		return 0;
	case HICN_WIRE_KIND_NEXT:
		if (seg)
			return -EINVAL;
		*suffix = kind << HICN_WIRE_KIND_SHIFT | hicn_wire_ver(ver);
		return 0;
	}
	return -EINVAL;
}

/**
 * hicn_wire_suffix_to_key() - our key from a wire suffix
 * @suffix: the suffix of an interest or data
 * @kind: HICN_WIRE_KIND_*
 * @wver: the wire version (EXACT, NEXT: 0 to 2047; else 0): give it to
 *	hicn_wire_ver_expand() for the full version
 * @seg: the segment (EXACT), else 0
 *
 * Return: 0, or -EINVAL when the suffix is not one ours encode (a stock
 * application's name, or a reserved value).
 */
int hicn_wire_suffix_to_key(u32 suffix, u32 *kind, u32 *wver, u32 *seg)
{
	u32 v = suffix >> HICN_WIRE_SEG_BITS;
	u32 s = suffix & HICN_WIRE_SEG_MAX;
	u32 k = s >> HICN_WIRE_KIND_SHIFT;
	u32 rest = s & ((1U << HICN_WIRE_KIND_SHIFT) - 1);

	if (v) {
		*kind = HICN_WIRE_KIND_EXACT;
		*wver = v;
		*seg = s;
		return 0;
	}
	switch (k) {
	case HICN_WIRE_KIND_LATEST:
	case HICN_WIRE_KIND_PROBE:
		if (rest)
			return -EINVAL;
		break;
	case HICN_WIRE_KIND_NEXT:
		if (rest > HICN_WIRE_VER_MOD)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	*kind = k;
	*wver = rest;
	*seg = 0;
	return 0;
}

/**
 * hicn_wire_ver_expand() - the full version a wire version stands for
 * @wver: a wire version, 1 to 2047
 * @newest: the newest version the caller knows of the name
 *
 * Return: the largest version at most @newest whose wire version is
 * @wver, or 0 when there is none (or @wver is 0 or out of range).
 */
u32 hicn_wire_ver_expand(u32 wver, u32 newest)
{
	u32 wn;

	if (!wver || wver > HICN_WIRE_VER_MOD || newest < wver)
		return 0;
	wn = hicn_wire_ver(newest);
	if (wn >= wver)
		return newest - (wn - wver);
	return newest - (wn + HICN_WIRE_VER_MOD - wver);
}

/**
 * hicn_wire_thdr_build() - write our transport header
 * @buf: where: the start of the data payload
 * @room: bytes available at @buf
 * @th: the header; @off and @len are ignored
 *
 * Return: HICN_WIRE_THDR_LEN, -ENOSPC, or -EINVAL for an unknown kind or
 * flag.
 */
int hicn_wire_thdr_build(void *buf, size_t room,
			 const struct hicn_wire_thdr *th)
{
	u8 *b = buf;

	if (room < HICN_WIRE_THDR_LEN)
		return -ENOSPC;
	if (th->kind > HICN_WIRE_KIND_PROBE ||
	    (th->flags & ~(HICN_WIRE_TF_NACK | HICN_WIRE_TF_PROBE)))
		return -EINVAL;
	wr16(b, HICN_WIRE_THDR_MAGIC);
	b[2] = th->kind;
	b[3] = th->flags;
	wr32(b + 4, th->ver);
	wr32(b + 8, th->seg);
	wr32(b + 12, th->final_seg);
	wr32(b + 16, th->seg_size);
	wr32(b + 20, th->asked_ver);
	wr32(b + 24, th->obj_len >> 32);
	wr32(b + 28, (u32)th->obj_len);
	return HICN_WIRE_THDR_LEN;
}

/**
 * hicn_wire_thdr_parse() - read and check our transport header
 * @buf: the data payload (after the AH, if any)
 * @len: the payload length
 * @th: the header; @off and @len say where the segment's bytes, which
 *	follow the header, go in the object
 *
 * Checks that the object description is consistent (version, sizes,
 * final segment against length and segment size) and that exactly the
 * segment's bytes follow: a consumer may copy th->len bytes from
 * @buf + HICN_WIRE_THDR_LEN to th->off in an object of th->obj_len bytes.
 *
 * Return: 0, -EBADMSG (too short, or a byte count that is not the
 * segment's), -EPROTO (bad magic, kind, flags or object description).
 */
int hicn_wire_thdr_parse(const void *buf, size_t len,
			 struct hicn_wire_thdr *th)
{
	const u8 *b = buf;
	size_t body;
	u64 rest;

	memset(th, 0, sizeof(*th));
	if (len < HICN_WIRE_THDR_LEN)
		return -EBADMSG;
	if (rd16(b) != HICN_WIRE_THDR_MAGIC)
		return -EPROTO;
	th->kind = b[2];
	th->flags = b[3];
	th->ver = rd32(b + 4);
	th->seg = rd32(b + 8);
	th->final_seg = rd32(b + 12);
	th->seg_size = rd32(b + 16);
	th->asked_ver = rd32(b + 20);
	th->obj_len = (u64)rd32(b + 24) << 32 | rd32(b + 28);
	body = len - HICN_WIRE_THDR_LEN;

	if (th->kind > HICN_WIRE_KIND_PROBE)
		return -EPROTO;
	switch (th->flags) {
	case HICN_WIRE_TF_PROBE:
		if (th->kind != HICN_WIRE_KIND_PROBE)
			return -EPROTO;
		fallthrough;
	case HICN_WIRE_TF_NACK:
		return body ? -EBADMSG : 0;
	case 0:
		break;
	default:
		return -EPROTO;
	}
	if (th->kind == HICN_WIRE_KIND_PROBE || !th->ver ||
	    !th->seg_size || th->seg_size > HICN_WIRE_SEG_SIZE_MAX ||
	    th->obj_len > HICN_WIRE_OBJ_MAX ||
	    th->final_seg > HICN_WIRE_SEG_MAX || th->seg > th->final_seg)
		return -EPROTO;
	/* final_seg is the last segment of obj_len bytes, without a division */
	if (!th->obj_len) {
		if (th->final_seg)
			return -EPROTO;
	} else if ((u64)th->final_seg * th->seg_size >= th->obj_len ||
		   (u64)(th->final_seg + 1) * th->seg_size < th->obj_len) {
		return -EPROTO;
	}
	th->off = (u64)th->seg * th->seg_size;
	rest = th->obj_len - th->off;	/* seg <= final_seg: off <= obj_len */
	th->len = rest < th->seg_size ? rest : th->seg_size;
	return body == th->len ? 0 : -EBADMSG;
}

/**
 * hicn_wire_thdr_match() - does a parsed header answer what was asked?
 * @th: from hicn_wire_thdr_parse()
 * @kind: the kind the consumer asked for
 * @ver: the full version it named (EXACT, NEXT), else 0
 * @seg: the segment it named (EXACT), else 0
 *
 * Return: 0 when @th answers the interest (a NACK included), -EPROTO
 * otherwise: the data is some other version or segment, e.g. a stock
 * cache's copy of a version 2047 publications older.
 */
int hicn_wire_thdr_match(const struct hicn_wire_thdr *th, u32 kind,
			 u32 ver, u32 seg)
{
	bool nack = th->flags & HICN_WIRE_TF_NACK;

	if (th->kind != kind)
		return -EPROTO;
	switch (kind) {
	case HICN_WIRE_KIND_EXACT:
		return th->ver == ver && th->seg == seg ? 0 : -EPROTO;
	case HICN_WIRE_KIND_LATEST:
		return nack || !th->seg ? 0 : -EPROTO;
	case HICN_WIRE_KIND_NEXT:
		if (th->asked_ver != ver)
			return -EPROTO;
		return nack || (!th->seg && th->ver > ver) ? 0 : -EPROTO;
	case HICN_WIRE_KIND_PROBE:
		return th->flags & HICN_WIRE_TF_PROBE ? 0 : -EPROTO;
	}
	return -EPROTO;
}

/*
 * The interest manifest of a stock consumer (the payload of an interest
 * with HICN_WIRE_F_MAN), all big-endian:
 *
 *   0   4  n: how many suffixes, the header's one included (it is first)
 *   4   4  padding
 *   8  32  request bitmap, four 64-bit words: bit i of word i / 64 set
 *          when suffix i is asked for
 *  40 4n   the suffixes
 */
#define IMAN_HLEN	40

/**
 * hicn_wire_imanifest_parse() - check an interest manifest
 * @buf: the manifest (the interest's payload)
 * @len: its length
 *
 * Return: the number of suffixes it lists (1..HICN_WIRE_IMAN_MAX), or
 * -EBADMSG when it lists none, more than its bitmap can ask for, or more
 * than @len holds.
 */
int hicn_wire_imanifest_parse(const void *buf, size_t len)
{
	u32 n;

	if (len < IMAN_HLEN)
		return -EBADMSG;
	n = rd32(buf);
	if (!n || n > HICN_WIRE_IMAN_MAX || IMAN_HLEN + 4 * (size_t)n > len)
		return -EBADMSG;
	return n;
}

/* Is suffix @i of a manifest hicn_wire_imanifest_parse() took asked for? */
bool hicn_wire_imanifest_requested(const void *buf, unsigned int i)
{
	const u8 *word = (const u8 *)buf + 8 + 8 * (i / 64);

	/* Bit i % 64 of a big-endian word: byte 7 - (i % 64) / 8. */
	return word[7 - (i % 64) / 8] & (1U << (i % 8));
}

/* Suffix @i of a manifest hicn_wire_imanifest_parse() took. */
u32 hicn_wire_imanifest_suffix(const void *buf, unsigned int i)
{
	return rd32((const u8 *)buf + IMAN_HLEN + 4 * i);
}
