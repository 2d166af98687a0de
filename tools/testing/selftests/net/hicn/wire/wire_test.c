// SPDX-License-Identifier: GPL-2.0
/*
 * Host test of net/hicn/wire.c, built with that very file and the shim in
 * include/ (make wire-check at the top, or make run here; under ASan and
 * UBSan, every warning an error):
 *
 *  - every hICN packet captured from FD.io hicn-light (packets.txt, a copy
 *    of the interop captures' list: CI has only this tree) parses, with
 *    the fields hexdumps.txt decodes (the table below); every control
 *    message is refused as one;
 *  - each is rebuilt from its decoded fields, byte for byte equal to the
 *    capture, checksum included (but IPv4 data, whose checksum follows no
 *    formula: Documentation/hicn-wire.rst);
 *  - the mapping of our keys to suffixes, both ways, at every boundary
 *    and over every reserved value; the version expansion; our transport
 *    header;
 *  - the parser against every truncation of every capture, corrupted
 *    lengths, every first byte, random bytes and random mutations, each
 *    in a buffer of exactly its length, so that ASan sees any read past
 *    it; the builder against every room too small.
 *
 * It prints each failed check and a count; the exit status is 1 when a
 * check failed.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/in6.h>
#include <linux/types.h>

#include "wire.h"

#define MAX_PKT		4096
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define FUZZ_ROUNDS	200000

struct expect {
	const char	*name;
	u8		format;
	bool		is_interest;
	u8		flags;
	u8		hop_limit;
	u8		ah_alg;
	u16		checksum;
	const char	*prefix;
	u32		suffix;
	const char	*locator;
	u32		path_label;
	u32		lifetime;
	u32		ah_len;
	u32		payload_off;
	u32		payload_len;
};

/* From hexdumps.txt, field by field; names are in IPv6 form, hex. */
static const struct expect expected[] = {
	{ "hiperf-manifest30-hmac-face4#1", HICN_WIRE_IPV6_TCP, true, 0x0, 254, 0, 0xe8cf,
	  "b0020000000000000000000000000000", 0x00000000,
	  "00000000000000000000000000000001", 0x0, 500U, 0, 60, 0 },
	{ "hiperf-manifest30-hmac-face4#2", HICN_WIRE_IPV6_TCP, false, 0x3, 254, 13, 0x204f,
	  "b0020000000000000000000000000000", 0x00000000,
	  "00000000000000000000000000000001", 0x1, 2147450880U, 76, 136, 1360 },
	{ "hiperf-manifest30-hmac-face4#6", HICN_WIRE_IPV6_TCP, false, 0x0, 254, 0, 0x3cec,
	  "b0020000000000000000000000000000", 0x00000001,
	  "00000000000000000000000000000001", 0x1, 2147450880U, 0, 60, 1400 },
	{ "hiperf-manifest30-rsa-face4#1", HICN_WIRE_IPV6_TCP, true, 0x0, 254, 0, 0xe8cf,
	  "b0020000000000000000000000000000", 0x00000000,
	  "00000000000000000000000000000001", 0x0, 500U, 0, 60, 0 },
	{ "hiperf-manifest30-rsa-face4#17", HICN_WIRE_IPV6_TCP, false, 0x3, 254, 17, 0xb01f,
	  "b0020000000000000000000000000000", 0x00000000,
	  "00000000000000000000000000000001", 0x1, 2147450880U, 300, 360, 1108 },
	{ "hiperf-manifest30-rsa-face4#18", HICN_WIRE_IPV6_TCP, false, 0x0, 254, 0, 0x3cec,
	  "b0020000000000000000000000000000", 0x00000001,
	  "00000000000000000000000000000001", 0x1, 2147450880U, 0, 60, 1400 },
	{ "hiperf-new-manifest30-hmac-face4#1", HICN_WIRE_COMPACT, true, 0x0, 0, 0, 0x0000,
	  "b0020000000000000000000000000000", 0x00000000,
	  "00000000000000000000000000000000", 0x0, 500U, 0, 32, 0 },
	{ "hiperf-new-manifest30-hmac-face4#17", HICN_WIRE_COMPACT, false, 0x3, 0, 13, 0x0000,
	  "b0020000000000000000000000000000", 0x00000000,
	  "00000000000000000000000000000000", 0x1, 2147450880U, 76, 108, 1360 },
	{ "hiperf-new-manifest30-hmac-face4#18", HICN_WIRE_COMPACT, false, 0x0, 0, 0, 0x0000,
	  "b0020000000000000000000000000000", 0x00000001,
	  "00000000000000000000000000000000", 0x1, 2147450880U, 0, 32, 1400 },
	{ "hiperf-nomanifest-hmac-face4#1", HICN_WIRE_IPV6_TCP, true, 0x0, 254, 0, 0xe8cf,
	  "b0020000000000000000000000000000", 0x00000000,
	  "00000000000000000000000000000001", 0x0, 500U, 0, 60, 0 },
	{ "hiperf-nomanifest-hmac-face4#9", HICN_WIRE_IPV6_TCP, false, 0x1, 254, 13, 0xaf0e,
	  "b0020000000000000000000000000000", 0x00000000,
	  "00000000000000000000000000000001", 0x1, 2147450880U, 76, 136, 1364 },
	{ "ping-ipv4tcp-face4#1", HICN_WIRE_IPV4_TCP, true, 0x0, 254, 0, 0x637c,
	  "000000000000000000000000c0000201", 0x00000000,
	  "00000000000000000000000007f00001", 0x0, 500U, 0, 40, 0 },
	{ "ping-ipv4tcp-face4#2", HICN_WIRE_IPV4_TCP, false, 0x0, 254, 0, 0xa136,
	  "000000000000000000000000c0000201", 0x00000000,
	  "00000000000000000000000007f00001", 0x1, 2147450880U, 0, 40, 0 },
	{ "ping-ipv6tcp-app-lo#1", HICN_WIRE_IPV6_TCP, true, 0x0, 254, 0, 0xe8cf,
	  "b0010000000000000000000000000001", 0x00000000,
	  "00000000000000000000000000000001", 0x0, 500U, 0, 60, 0 },
	{ "ping-ipv6tcp-app-lo#2", HICN_WIRE_IPV6_TCP, false, 0x0, 254, 0, 0x38ce,
	  "b0010000000000000000000000000001", 0x00000000,
	  "00000000000000000000000000000001", 0x2, 2147450880U, 0, 60, 0 },
	{ "ping-ipv6tcp-face4#1", HICN_WIRE_IPV6_TCP, true, 0x0, 254, 0, 0xe8cf,
	  "b0010000000000000000000000000001", 0x00000000,
	  "00000000000000000000000000000001", 0x0, 500U, 0, 60, 0 },
	{ "ping-ipv6tcp-face4#2", HICN_WIRE_IPV6_TCP, false, 0x0, 254, 0, 0x38ce,
	  "b0010000000000000000000000000001", 0x00000000,
	  "00000000000000000000000000000001", 0x1, 2147450880U, 0, 60, 0 },
	{ "ping-ipv6tcp-face6#1", HICN_WIRE_IPV6_TCP, true, 0x0, 254, 0, 0xe8cf,
	  "b0010000000000000000000000000001", 0x00000000,
	  "00000000000000000000000000000001", 0x0, 500U, 0, 60, 0 },
	{ "ping-ipv6tcp-face6#2", HICN_WIRE_IPV6_TCP, false, 0x0, 254, 0, 0x38ce,
	  "b0010000000000000000000000000001", 0x00000000,
	  "00000000000000000000000000000001", 0x1, 2147450880U, 0, 60, 0 },
	{ "ping-ipv6tcp-signed-face4#1", HICN_WIRE_IPV6_TCP, true, 0x3, 254, 13, 0xe7c2,
	  "b0010000000000000000000000000001", 0x00000000,
	  "00000000000000000000000000000001", 0x0, 500U, 76, 136, 52 },
	{ "ping-ipv6tcp-signed-face4#2", HICN_WIRE_IPV6_TCP, false, 0x1, 254, 17, 0x3676,
	  "b0010000000000000000000000000001", 0x00000000,
	  "00000000000000000000000000000001", 0x1, 2147450880U, 300, 360, 0 },
	{ "ping-new-face4#1", HICN_WIRE_COMPACT, true, 0x0, 0, 0, 0x0000,
	  "b0010000000000000000000000000001", 0x00000000,
	  "00000000000000000000000000000000", 0x0, 500U, 0, 32, 0 },
	{ "ping-new-face4#2", HICN_WIRE_COMPACT, false, 0x0, 0, 0, 0x0000,
	  "b0010000000000000000000000000001", 0x00000000,
	  "00000000000000000000000000000000", 0x1, 2147450880U, 0, 32, 0 },
	{ "ping-new-face6#1", HICN_WIRE_COMPACT, true, 0x0, 0, 0, 0x0000,
	  "b0010000000000000000000000000001", 0x00000000,
	  "00000000000000000000000000000000", 0x0, 500U, 0, 32, 0 },
	{ "ping-new-face6#2", HICN_WIRE_COMPACT, false, 0x0, 0, 0, 0x0000,
	  "b0010000000000000000000000000001", 0x00000000,
	  "00000000000000000000000000000000", 0x1, 2147450880U, 0, 32, 0 },
};

#define N_EXPECTED	(ARRAY_SIZE(expected))

struct capture {
	char		*name;
	char		*kind;
	u8		*bytes;
	size_t		len;
};

static struct capture caps[64];
static unsigned int ncaps;
static unsigned int tests, failures;
static bool seen[N_EXPECTED];

static void check(bool ok, const char *fmt, ...)
{
	va_list ap;

	tests++;
	if (ok)
		return;
	failures++;
	printf("not ok %u - ", tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static size_t unhex(const char *s, u8 *out, size_t room)
{
	size_t n = 0;

	while (s[0] && s[1] && hexval(s[0]) >= 0 && hexval(s[1]) >= 0) {
		if (n == room) {
			fprintf(stderr, "hex string too long\n");
			exit(2);
		}
		out[n++] = hexval(s[0]) << 4 | hexval(s[1]);
		s += 2;
	}
	return n;
}

static void load(const char *path)
{
	static char line[16384];
	FILE *f = fopen(path, "r");

	if (!f) {
		perror(path);
		exit(2);
	}
	while (fgets(line, sizeof(line), f)) {
		char *name = line, *kind, *hex;
		struct capture *c;
		u8 buf[MAX_PKT];

		if (line[0] == '#' || line[0] == '\n')
			continue;
		kind = strchr(name, '\t');
		hex = kind ? strchr(kind + 1, '\t') : NULL;
		if (!hex || ncaps == ARRAY_SIZE(caps)) {
			fprintf(stderr, "%s: bad line\n", path);
			exit(2);
		}
		*kind++ = 0;
		*hex++ = 0;
		c = &caps[ncaps++];
		c->name = strdup(name);
		c->kind = strdup(kind);
		c->len = unhex(hex, buf, sizeof(buf));
		c->bytes = malloc(c->len);
		if (!c->name || !c->kind || !c->bytes)
			exit(2);
		memcpy(c->bytes, buf, c->len);
	}
	fclose(f);
}

static bool is_hicn(const struct capture *c)
{
	return !strncmp(c->kind, "ipv6_tcp ", 9) || !strncmp(c->kind, "ipv4_tcp ", 9) ||
	       !strncmp(c->kind, "new ", 4);
}

static const struct expect *find_expect(const char *name)
{
	unsigned int i;

	for (i = 0; i < N_EXPECTED; i++)
		if (!strcmp(expected[i].name, name)) {
			seen[i] = true;
			return &expected[i];
		}
	return NULL;
}

static bool addr_eq(const struct in6_addr *a, const char *hex)
{
	u8 b[16];

	return unhex(hex, b, sizeof(b)) == 16 && !memcmp(a->s6_addr, b, 16);
}

/* Parse from a heap copy of exactly @len bytes: ASan flags any overread. */
static int parse_exact(const u8 *bytes, size_t len, struct hicn_wire_pkt *p)
{
	u8 *copy = malloc(len ? len : 1);
	int err;

	if (!copy)
		exit(2);
	memcpy(copy, bytes, len);
	err = hicn_wire_parse(copy, len, p);
	free(copy);
	return err;
}

/* What a successful parse promises, whatever the bytes. */
static void check_invariants(const struct hicn_wire_pkt *p, size_t len, const char *what)
{
	int hlen = hicn_wire_hlen(p);

	check(p->drop == HICN_WIRE_OK, "%s: drop %u on success", what, p->drop);
	check(hlen > 0 && p->payload_off >= (u32)hlen, "%s: payload_off %u", what,
	      p->payload_off);
	check((size_t)p->payload_off + p->payload_len == len, "%s: payload %u+%u != %zu", what,
	      p->payload_off, p->payload_len, len);
	if (p->flags & HICN_WIRE_F_SIG)
		check(p->ah_off == (u32)hlen && p->ah_len >= HICN_WIRE_AH_HLEN &&
		      p->ah_off + p->ah_len == p->payload_off, "%s: AH %u+%u", what,
		      p->ah_off, p->ah_len);
	else
		check(!p->ah_len, "%s: AH length without SIG", what);
	check(!(p->is_interest && (p->flags & HICN_WIRE_F_LST)), "%s: LST interest", what);
	check(!(p->is_interest && !p->lifetime), "%s: interest lifetime 0", what);
}

/*
 * The same packet built with its last bytes elsewhere (a face sending
 * them from an object's pages): every even split from the end of the
 * fixed header on gives the bytes the flat build gave (@flat); an odd one
 * is refused, as a tail longer than the AH and payload is.
 */
static void check_tails(const struct capture *c, struct hicn_wire_pkt p,
			const u8 *flat)
{
	u32 hlen = hicn_wire_hlen(&p), s;
	u8 buf[MAX_PKT];
	int n;

	for (s = hlen; s <= c->len; s++) {
		memcpy(buf, c->bytes, s);
		memset(buf, 0, hlen);
		p.tail = c->bytes + s;
		p.tail_len = c->len - s;
		n = hicn_wire_build(buf, s, &p);
		if ((s & 1) && s < c->len) {
			check(n == -EINVAL, "%s: odd split at %u: %d", c->name, s, n);
			continue;
		}
		check(n == (int)c->len && !memcmp(buf, flat, s),
		      "%s: split at %u: %d", c->name, s, n);
		if (s > hlen)
			check(hicn_wire_build(buf, s - 2, &p) == -ENOSPC,
			      "%s: split at %u, room", c->name, s);
	}
	p.tail = c->bytes + hlen - 2;
	p.tail_len = c->len - hlen + 2;
	check(hicn_wire_build(buf, hlen - 2, &p) == -EINVAL,
	      "%s: tail into the fixed header", c->name);
}

static void test_captures(void)
{
	unsigned int i, nhicn = 0, nctrl = 0;

	for (i = 0; i < ncaps; i++) {
		const struct capture *c = &caps[i];
		const struct expect *e;
		struct hicn_wire_pkt p;
		u8 buf[MAX_PKT];
		int err, n;

		err = parse_exact(c->bytes, c->len, &p);
		if (!strncmp(c->kind, "control ", 8)) {
			nctrl++;
			check(err == -EOPNOTSUPP && p.drop == HICN_WIRE_DROP_CONTROL,
			      "%s: control message: %d", c->name, err);
			continue;
		}
		check(is_hicn(c), "%s: unknown kind %s", c->name, c->kind);
		nhicn++;
		e = find_expect(c->name);
		check(e, "%s: no expected fields", c->name);
		check(!err, "%s: parse: %d (%s)", c->name, err, hicn_wire_drop_name(p.drop));
		if (!e || err)
			continue;
		check_invariants(&p, c->len, c->name);
		check(p.format == e->format && p.is_interest == e->is_interest &&
		      p.flags == e->flags && p.hop_limit == e->hop_limit,
		      "%s: format %u interest %d flags %#x hop %u", c->name, p.format,
		      p.is_interest, p.flags, p.hop_limit);
		check(addr_eq(&p.name, e->prefix) && p.suffix == e->suffix,
		      "%s: name or suffix %#x", c->name, p.suffix);
		check(addr_eq(&p.locator, e->locator), "%s: locator", c->name);
		check(p.path_label == e->path_label && p.lifetime == e->lifetime,
		      "%s: label %#x lifetime %u", c->name, p.path_label, p.lifetime);
		check(p.ah_alg == e->ah_alg && p.ah_len == e->ah_len,
		      "%s: AH alg %u len %u", c->name, p.ah_alg, p.ah_len);
		check(p.payload_off == e->payload_off && p.payload_len == e->payload_len,
		      "%s: payload %u+%u", c->name, p.payload_off, p.payload_len);
		check(p.format == HICN_WIRE_COMPACT || p.checksum == e->checksum,
		      "%s: checksum %#x", c->name, p.checksum);

		/* Rebuild: headers zeroed, AH and payload left in place. */
		memcpy(buf, c->bytes, c->len);
		memset(buf, 0, hicn_wire_hlen(&p));
		n = hicn_wire_build(buf, c->len, &p);
		check(n == (int)c->len, "%s: build: %d", c->name, n);
		if (n != (int)c->len)
			continue;
		if (p.format == HICN_WIRE_IPV4_TCP && !p.is_interest) {
			/* Data checksum: libhicn's is not reproducible. */
			check(!memcmp(buf, c->bytes, 36) &&
			      !memcmp(buf + 38, c->bytes + 38, n - 38),
			      "%s: rebuilt bytes differ (checksum aside)", c->name);
		} else {
			check(!memcmp(buf, c->bytes, n), "%s: rebuilt bytes differ", c->name);
		}
		check(hicn_wire_build(buf, c->len - 1, &p) == -ENOSPC, "%s: room", c->name);
		check_tails(c, p, buf);
	}
	for (i = 0; i < N_EXPECTED; i++)
		check(seen[i], "%s: not in packets.txt", expected[i].name);
	check(nhicn == N_EXPECTED && nctrl > 0, "%u hICN packets, %u control", nhicn, nctrl);
	printf("# captures: %u hICN packets parsed and rebuilt, %u control messages refused\n",
	       nhicn, nctrl);
}

static void test_lifetime(void)
{
	static const u32 ms[] = { 0, 1, 500, 1001, 0xffff, 0x10000, 0x10001, 600000,
				  0x7fff7fff, HICN_WIRE_LIFETIME_MAX - 1, HICN_WIRE_LIFETIME_MAX,
				  HICN_WIRE_LIFETIME_MAX + 1, UINT_MAX };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ms); i++) {
		u32 v = ms[i], back;
		u16 urg;
		u8 s;

		hicn_wire_lifetime_encode(v, &urg, &s);
		back = (u32)urg << s;
		check(s <= 15, "lifetime %u: scale %u", v, s);
		if (v >= HICN_WIRE_LIFETIME_MAX)
			check(back == HICN_WIRE_LIFETIME_MAX, "lifetime %u: %u", v, back);
		else
			check(back <= v && v - back < (1U << s) && (!s || urg > 0x7fff),
			      "lifetime %u: %u << %u", v, urg, s);
	}
}

static void test_keys(void)
{
	static const u32 vers[] = { 1, 2, 2046, 2047, 2048, 2049, 4094, 4095, 65536,
				    UINT_MAX - 1, UINT_MAX };
	static const u32 segs[] = { 0, 1, 0xffff, HICN_WIRE_SEG_MAX - 1, HICN_WIRE_SEG_MAX };
	u32 kind, wver, seg, suffix, s, newest, w, v;
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(vers); i++) {
		for (j = 0; j < ARRAY_SIZE(segs); j++) {
			check(!hicn_wire_key_to_suffix(HICN_WIRE_KIND_EXACT, vers[i], segs[j],
						       &suffix), "exact %u/%u", vers[i], segs[j]);
			check(!hicn_wire_suffix_to_key(suffix, &kind, &wver, &seg) &&
			      kind == HICN_WIRE_KIND_EXACT && seg == segs[j] &&
			      wver == hicn_wire_ver(vers[i]) &&
			      hicn_wire_ver_expand(wver, vers[i]) == vers[i],
			      "exact %u/%u: suffix %#x back", vers[i], segs[j], suffix);
			check(suffix >> HICN_WIRE_SEG_BITS, "exact %u: V is 0", vers[i]);
		}
		check(hicn_wire_key_to_suffix(HICN_WIRE_KIND_EXACT, vers[i], HICN_WIRE_SEG_MAX + 1,
					      &suffix) == -ERANGE, "exact seg 2^21");
		check(hicn_wire_key_to_suffix(HICN_WIRE_KIND_EXACT, vers[i], UINT_MAX,
					      &suffix) == -ERANGE, "exact seg max");
		check(!hicn_wire_key_to_suffix(HICN_WIRE_KIND_NEXT, vers[i], 0, &suffix) &&
		      !hicn_wire_suffix_to_key(suffix, &kind, &wver, &seg) &&
		      kind == HICN_WIRE_KIND_NEXT && !seg && wver == hicn_wire_ver(vers[i]),
		      "next %u", vers[i]);
		check(hicn_wire_key_to_suffix(HICN_WIRE_KIND_LATEST, vers[i], 0,
					      &suffix) == -EINVAL &&
		      hicn_wire_key_to_suffix(HICN_WIRE_KIND_PROBE, vers[i], 0,
					      &suffix) == -EINVAL,
		      "latest/probe with a version");
	}
	check(hicn_wire_ver(2047) == 2047 && hicn_wire_ver(2048) == 1 && hicn_wire_ver(0) == 0 &&
	      hicn_wire_ver(UINT_MAX) == (UINT_MAX - 1) % 2047 + 1, "wire versions");
	check(hicn_wire_key_to_suffix(HICN_WIRE_KIND_EXACT, 0, 0, &suffix) == -EINVAL,
	      "exact version 0");
	check(hicn_wire_key_to_suffix(HICN_WIRE_KIND_NEXT, 5, 1, &suffix) == -EINVAL,
	      "next with a segment");
	check(hicn_wire_key_to_suffix(HICN_WIRE_KIND_LATEST, 0, 1, &suffix) == -EINVAL,
	      "latest with a segment");
	check(hicn_wire_key_to_suffix(4, 0, 0, &suffix) == -EINVAL &&
	      hicn_wire_key_to_suffix(UINT_MAX, 1, 0, &suffix) == -EINVAL, "unknown kinds");
	check(!hicn_wire_key_to_suffix(HICN_WIRE_KIND_LATEST, 0, 0, &suffix) &&
	      suffix == 0x00080000, "latest suffix %#x", suffix);
	check(!hicn_wire_key_to_suffix(HICN_WIRE_KIND_PROBE, 0, 0, &suffix) &&
	      suffix == 0x00180000, "probe suffix %#x", suffix);
	check(!hicn_wire_key_to_suffix(HICN_WIRE_KIND_NEXT, 0, 0, &suffix) &&
	      suffix == 0x00100000, "next after 0: %#x", suffix);
	check(!hicn_wire_key_to_suffix(HICN_WIRE_KIND_EXACT, 1, 0, &suffix) &&
	      suffix == 0x00200000, "version 1 segment 0: %#x", suffix);

	/* Every suffix with V = 0: decodes and encodes back, or is refused. */
	for (s = 0; s <= HICN_WIRE_SEG_MAX; s++) {
		u32 again;
		int err = hicn_wire_suffix_to_key(s, &kind, &wver, &seg);
		bool ok = (s >> 19 == 1 && !(s & 0x7ffff)) || (s >> 19 == 3 && !(s & 0x7ffff)) ||
			  (s >> 19 == 2 && (s & 0x7ffff) <= 2047);

		if (ok != !err) {
			check(false, "reserved suffix %#x: %d", s, err);
			break;
		}
		if (err)
			continue;
		if (hicn_wire_key_to_suffix(kind, kind == HICN_WIRE_KIND_NEXT ? wver : 0, seg,
					    &again) || again != s) {
			check(false, "suffix %#x does not come back", s);
			break;
		}
	}
	check(s > HICN_WIRE_SEG_MAX, "every suffix with V = 0");
	check(hicn_wire_suffix_to_key(0, &kind, &wver, &seg) == -EINVAL,
	      "suffix 0 (stock segment 0) is not ours");

	/* Expansion: brute force over small ranges and at the top. */
	for (newest = 0; newest < 5000; newest += 7) {
		for (w = 0; w <= 2048; w++) {
			u32 want = 0;

			for (v = newest; v >= 1; v--)
				if (hicn_wire_ver(v) == w) {
					want = v;
					break;
				}
			if (hicn_wire_ver_expand(w, newest) != want) {
				check(false, "expand %u at %u: %u, want %u", w, newest,
				      hicn_wire_ver_expand(w, newest), want);
				return;
			}
		}
	}
	for (w = 1; w <= 2047; w++) {
		v = hicn_wire_ver_expand(w, UINT_MAX);
		if (hicn_wire_ver(v) != w || UINT_MAX - v >= 2047) {
			check(false, "expand %u at the top: %u", w, v);
			return;
		}
	}
	check(true, "expansion");
}

static int thdr_roundtrip(u64 obj_len, u32 seg_size, u32 seg, u32 *out_len, u64 *out_off)
{
	static u8 buf[HICN_WIRE_THDR_LEN + HICN_WIRE_SEG_SIZE_MAX];
	struct hicn_wire_thdr th = {
		.kind = HICN_WIRE_KIND_EXACT, .ver = 7, .seg = seg, .seg_size = seg_size,
		.obj_len = obj_len,
		.final_seg = obj_len ? (obj_len - 1) / seg_size : 0,
	};
	struct hicn_wire_thdr back;
	u64 off = (u64)seg * seg_size;
	u32 len = obj_len - off < seg_size ? obj_len - off : seg_size;
	u8 *exact;
	int err;

	if (hicn_wire_thdr_build(buf, sizeof(buf), &th) != HICN_WIRE_THDR_LEN)
		return -1;
	exact = malloc(HICN_WIRE_THDR_LEN + len);
	if (!exact)
		exit(2);
	memcpy(exact, buf, HICN_WIRE_THDR_LEN);
	memset(exact + HICN_WIRE_THDR_LEN, 0x3f, len);
	err = hicn_wire_thdr_parse(exact, HICN_WIRE_THDR_LEN + len, &back);
	if (!err && (back.ver != 7 || back.seg != seg || back.obj_len != obj_len ||
		     back.final_seg != th.final_seg || back.seg_size != seg_size))
		err = -1;
	/* One byte more or less is refused. */
	if (!err && hicn_wire_thdr_parse(exact, HICN_WIRE_THDR_LEN + len - 1, &back) != -EBADMSG)
		err = -2;
	free(exact);
	*out_len = back.len;
	*out_off = back.off;
	return err;
}

static void thdr_put(u8 *b, const struct hicn_wire_thdr *th)
{
	if (hicn_wire_thdr_build(b, HICN_WIRE_THDR_LEN, th) != HICN_WIRE_THDR_LEN)
		check(false, "thdr build");
}

static void test_thdr(void)
{
	static const struct { u64 len; u32 size; } objs[] = {
		{ 0, 1400 }, { 1, 1400 }, { 1399, 1400 }, { 1400, 1400 }, { 1401, 1400 },
		{ 16 << 20, 1400 }, { 128 << 20, 64 }, { 128 << 20, 65000 }, { 5, 1 },
	};
	struct hicn_wire_thdr th, base = {
		.kind = HICN_WIRE_KIND_EXACT, .ver = 3, .seg = 1, .final_seg = 2,
		.seg_size = 100, .obj_len = 250,
	};
	u8 b[HICN_WIRE_THDR_LEN + 100];
	unsigned int i;
	u32 len;
	u64 off;

	for (i = 0; i < ARRAY_SIZE(objs); i++) {
		u32 last = objs[i].len ? (objs[i].len - 1) / objs[i].size : 0;
		u32 segs[] = { 0, last / 2, last };
		unsigned int j;

		for (j = 0; j < 3; j++) {
			int err = thdr_roundtrip(objs[i].len, objs[i].size, segs[j], &len, &off);

			check(!err && off == (u64)segs[j] * objs[i].size &&
			      off + len <= objs[i].len &&
			      (segs[j] == last ? off + len == objs[i].len : len == objs[i].size),
			      "thdr %llu/%u seg %u: %d off %llu len %u",
			      (unsigned long long)objs[i].len, objs[i].size, segs[j], err,
			      (unsigned long long)off, len);
		}
	}
	check(objs[6].len / objs[6].size - 1 == HICN_WIRE_SEG_MAX,
	      "128 MiB in 64-byte segments ends at HICN_WIRE_SEG_MAX");

	memset(b, 0, sizeof(b));
	thdr_put(b, &base);
	check(!hicn_wire_thdr_parse(b, HICN_WIRE_THDR_LEN + 100, &th) &&
	      th.off == 100 && th.len == 100, "thdr base");
	check(!hicn_wire_thdr_match(&th, HICN_WIRE_KIND_EXACT, 3, 1), "match exact");
	check(hicn_wire_thdr_match(&th, HICN_WIRE_KIND_EXACT, 3 + 2047, 1) == -EPROTO,
	      "a version 2047 later is another version");
	check(hicn_wire_thdr_match(&th, HICN_WIRE_KIND_EXACT, 3, 2) == -EPROTO, "other seg");
	check(hicn_wire_thdr_match(&th, HICN_WIRE_KIND_LATEST, 0, 0) == -EPROTO, "other kind");
	for (len = 0; len < HICN_WIRE_THDR_LEN + 100; len++)
		if (hicn_wire_thdr_parse(b, len, &th) != -EBADMSG)
			check(false, "thdr truncated to %u", len);

	b[0] ^= 1;
	check(hicn_wire_thdr_parse(b, sizeof(b), &th) == -EPROTO, "thdr magic");
	th = base;
	th.kind = 4;
	check(hicn_wire_thdr_build(b, sizeof(b), &th) == -EINVAL, "thdr build kind 4");
	check(hicn_wire_thdr_build(b, HICN_WIRE_THDR_LEN - 1, &base) == -ENOSPC, "thdr room");
	thdr_put(b, &base);
	b[2] = 4;
	check(hicn_wire_thdr_parse(b, sizeof(b), &th) == -EPROTO, "thdr kind 4");
	thdr_put(b, &base);
	b[3] = HICN_WIRE_TF_NACK | HICN_WIRE_TF_PROBE;
	check(hicn_wire_thdr_parse(b, sizeof(b), &th) == -EPROTO, "thdr NACK|PROBE");
	b[3] = 0x80;
	check(hicn_wire_thdr_parse(b, sizeof(b), &th) == -EPROTO, "thdr unknown flag");

#define BAD_THDR(field, value, what) do {					\
		th = base;							\
		th.field = value;						\
		thdr_put(b, &th);						\
		check(hicn_wire_thdr_parse(b, sizeof(b), &th) == -EPROTO, what);	\
	} while (0)
	BAD_THDR(ver, 0, "thdr version 0");
	BAD_THDR(seg, 3, "thdr seg past final");
	BAD_THDR(final_seg, 3, "thdr final seg too far");
	BAD_THDR(final_seg, 1, "thdr final seg too near");
	BAD_THDR(seg_size, 0, "thdr seg size 0");
	BAD_THDR(seg_size, HICN_WIRE_SEG_SIZE_MAX + 1, "thdr seg size");
	BAD_THDR(obj_len, (u64)HICN_WIRE_OBJ_MAX + 1, "thdr object too long");
	BAD_THDR(obj_len, 1ULL << 63, "thdr object length 2^63");
	BAD_THDR(kind, HICN_WIRE_KIND_PROBE, "thdr PROBE kind without the flag");
#undef BAD_THDR
	th = base;
	th.obj_len = 0;
	th.final_seg = 1;
	th.seg = 0;
	thdr_put(b, &th);
	check(hicn_wire_thdr_parse(b, HICN_WIRE_THDR_LEN, &th) == -EPROTO, "thdr empty, 2 segs");

	/* PROBE answers and NACKs: no bytes. */
	th = (struct hicn_wire_thdr){ .kind = HICN_WIRE_KIND_PROBE,
				      .flags = HICN_WIRE_TF_PROBE, .ver = 9 };
	thdr_put(b, &th);
	check(!hicn_wire_thdr_parse(b, HICN_WIRE_THDR_LEN, &th) && th.ver == 9 && !th.len &&
	      !hicn_wire_thdr_match(&th, HICN_WIRE_KIND_PROBE, 0, 0), "thdr probe answer");
	check(hicn_wire_thdr_parse(b, HICN_WIRE_THDR_LEN + 1, &th) == -EBADMSG,
	      "thdr probe answer with bytes");
	th = (struct hicn_wire_thdr){ .kind = HICN_WIRE_KIND_EXACT, .flags = HICN_WIRE_TF_PROBE };
	thdr_put(b, &th);
	check(hicn_wire_thdr_parse(b, HICN_WIRE_THDR_LEN, &th) == -EPROTO, "thdr probe flag");
	th = (struct hicn_wire_thdr){ .kind = HICN_WIRE_KIND_EXACT, .flags = HICN_WIRE_TF_NACK,
				      .ver = 4, .seg = 8 };
	thdr_put(b, &th);
	check(!hicn_wire_thdr_parse(b, HICN_WIRE_THDR_LEN, &th) &&
	      !hicn_wire_thdr_match(&th, HICN_WIRE_KIND_EXACT, 4, 8) &&
	      hicn_wire_thdr_match(&th, HICN_WIRE_KIND_EXACT, 4, 9) == -EPROTO, "thdr nack");

	/* NEXT: newer than asked, segment 0, the version asked echoed. */
	th = (struct hicn_wire_thdr){ .kind = HICN_WIRE_KIND_NEXT, .ver = 12, .asked_ver = 10,
				      .seg_size = 100, .obj_len = 0 };
	thdr_put(b, &th);
	check(!hicn_wire_thdr_parse(b, HICN_WIRE_THDR_LEN, &th) &&
	      !hicn_wire_thdr_match(&th, HICN_WIRE_KIND_NEXT, 10, 0) &&
	      hicn_wire_thdr_match(&th, HICN_WIRE_KIND_NEXT, 11, 0) == -EPROTO &&
	      hicn_wire_thdr_match(&th, HICN_WIRE_KIND_NEXT, 12, 0) == -EPROTO, "thdr next");
	th.kind = HICN_WIRE_KIND_LATEST;
	check(!hicn_wire_thdr_match(&th, HICN_WIRE_KIND_LATEST, 0, 0), "thdr latest");
}

static const struct capture *cap(const char *name)
{
	unsigned int i;

	for (i = 0; i < ncaps; i++)
		if (!strcmp(caps[i].name, name))
			return &caps[i];
	fprintf(stderr, "%s missing from packets.txt\n", name);
	exit(2);
}

/* Parse a modified copy of capture @name; return the error, set *drop. */
static int mutate(const char *name, size_t off, u8 val, size_t len, u8 *drop)
{
	const struct capture *c = cap(name);
	struct hicn_wire_pkt p;
	u8 buf[MAX_PKT];
	int err;

	memcpy(buf, c->bytes, c->len);
	if (off < c->len)
		buf[off] = val;
	err = parse_exact(buf, len ? len : c->len, &p);
	*drop = p.drop;
	return err;
}

static void test_malformed(void)
{
	static const char * const v6 = "ping-ipv6tcp-face4#1", * const v4 = "ping-ipv4tcp-face4#1",
		* const cmp = "ping-new-face4#1", * const sig = "ping-ipv6tcp-signed-face4#2";
	const struct capture *c;
	struct hicn_wire_pkt p;
	unsigned int i, nfail = 0;
	size_t len;
	u8 d;

	/* Every truncation of every capture is refused, never overread. */
	for (i = 0; i < ncaps; i++) {
		c = &caps[i];
		for (len = 0; len < c->len; len++)
			if (!parse_exact(c->bytes, len, &p) || p.drop == HICN_WIRE_OK)
				nfail++;
	}
	check(!nfail, "truncations accepted: %u", nfail);

	/* Every first byte. */
	c = cap(v6);
	for (i = 0; i < 256; i++) {
		int err = mutate(v6, 0, i, 0, &d);

		if (i == 0x60)
			check(!err, "first byte 0x60");
		else if (i >= 0xc0 && i <= 0xc4)
			check(err == -EOPNOTSUPP && d == HICN_WIRE_DROP_CONTROL, "byte %#x", i);
		else if (i >> 4 == 6)
			check(!err, "IPv6 traffic class is ignored: %#x", i);
		else if (i >> 4 == 4 || i == 0x90)	/* IPv4, compact: other checks */
			check(err && d != HICN_WIRE_DROP_VERSION, "first byte %#x", i);
		else
			check(err == -EPROTONOSUPPORT && d == HICN_WIRE_DROP_VERSION,
			      "first byte %#x: %d %u", i, err, d);
	}
	check(mutate(cmp, 0, 0x91, 0, &d) == -EPROTONOSUPPORT && d == HICN_WIRE_DROP_VERSION,
	      "compact 0x91");
	check(parse_exact(c->bytes, 0, &p) == -EBADMSG && p.drop == HICN_WIRE_DROP_TRUNCATED,
	      "empty datagram");
	{
		u8 *big = calloc(1, HICN_WIRE_MAX_LEN + 1);

		if (!big)
			exit(2);
		memcpy(big, c->bytes, c->len);
		check(hicn_wire_parse(big, HICN_WIRE_MAX_LEN + 1, &p) == -EMSGSIZE &&
		      p.drop == HICN_WIRE_DROP_OVERSIZED, "oversized");
		free(big);
	}

	/* Length fields that disagree with the datagram, past its end or short. */
	check(mutate(v6, 5, 0x15, 0, &d) == -EBADMSG && d == HICN_WIRE_DROP_LENGTH, "v6 plen+1");
	check(mutate(v6, 5, 0x13, 0, &d) == -EBADMSG && d == HICN_WIRE_DROP_LENGTH, "v6 plen-1");
	check(mutate(v6, 4, 0xff, 0, &d) == -EBADMSG && d == HICN_WIRE_DROP_LENGTH, "v6 plen big");
	check(mutate(v4, 3, 0x29, 0, &d) == -EBADMSG && d == HICN_WIRE_DROP_LENGTH, "v4 total");
	check(mutate(v4, 2, 0xff, 0, &d) == -EBADMSG && d == HICN_WIRE_DROP_LENGTH, "v4 total big");
	check(mutate(cmp, 3, 0x01, 0, &d) == -EBADMSG && d == HICN_WIRE_DROP_LENGTH, "compact len");
	check(mutate(cmp, 2, 0xff, 0, &d) == -EBADMSG && d == HICN_WIRE_DROP_LENGTH, "compact big");
	check(mutate(sig, 61, 0x41, 0, &d) == -EBADMSG && d == HICN_WIRE_DROP_TRUNCATED,
	      "AH signature past the end");
	check(mutate(sig, 61, 0xff, 0, &d) == -EBADMSG && d == HICN_WIRE_DROP_TRUNCATED,
	      "AH signature 1020 bytes");
	check(!mutate(sig, 61, 0x3f, 0, &d), "shorter AH signature: more payload");
	check(mutate(sig, 60, 0x01, 0, &d) == -EPROTO && d == HICN_WIRE_DROP_AH, "AH nh");
	check(mutate("ping-ipv6tcp-signed-face4#1", 63, 33, 0, &d) == -EPROTO &&
	      d == HICN_WIRE_DROP_AH, "AH padding past the signature field");
	check(!mutate("ping-ipv6tcp-signed-face4#1", 63, 32, 0, &d), "AH padding 32 of 32");
	/* A SIG flag with no room for the AH header. */
	check(mutate(v6, 53, 0x12, 0, &d) == -EBADMSG && d == HICN_WIRE_DROP_TRUNCATED,
	      "v6 SIG without AH");
	check(mutate(cmp, 1, 0x05, 0, &d) == -EBADMSG && d == HICN_WIRE_DROP_TRUNCATED,
	      "compact SIG without AH");

	/* Header fields. */
	check(mutate(v6, 6, 17, 0, &d) == -EPROTO && d == HICN_WIRE_DROP_NEXT_HEADER, "v6 nh");
	check(mutate(v4, 9, 17, 0, &d) == -EPROTO && d == HICN_WIRE_DROP_NEXT_HEADER, "v4 proto");
	check(mutate(v4, 0, 0x46, 0, &d) == -EPROTO && d == HICN_WIRE_DROP_HEADER, "v4 ihl");
	check(mutate(v4, 6, 0x20, 0, &d) == -EPROTO && d == HICN_WIRE_DROP_HEADER, "v4 MF");
	check(mutate(v4, 7, 0x01, 0, &d) == -EPROTO && d == HICN_WIRE_DROP_HEADER, "v4 offset");
	check(mutate(v4, 10, 0x00, 0, &d) == -EPROTO && d == HICN_WIRE_DROP_HEADER, "v4 csum");
	check(mutate(v4, 8, 0x40, 0, &d) == -EPROTO && d == HICN_WIRE_DROP_HEADER,
	      "v4 TTL change without checksum");
	check(mutate(v6, 52, 0x60, 0, &d) == -EPROTO && d == HICN_WIRE_DROP_HEADER, "data off");
	check(mutate(v6, 7, 0, 0, &d) == 0, "hop limit 0 parses: the forwarder decides");
	check(mutate(v6, 56, 0, 0, &d) == 0, "TCP checksum not verified");

	/* Flags. */
	check(mutate(v6, 53, 0x03, 0, &d) == -EPROTO && d == HICN_WIRE_DROP_FLAGS, "FIN");
	check(mutate(v6, 53, 0x0a, 0, &d) == -EPROTO && d == HICN_WIRE_DROP_FLAGS, "PSH");
	check(mutate(v6, 53, 0x82, 0, &d) == -EPROTO && d == HICN_WIRE_DROP_FLAGS, "CWR");
	check(mutate(v6, 53, 0x06, 0, &d) == -EPROTO && d == HICN_WIRE_DROP_FLAGS, "LST interest");
	check(mutate(cmp, 1, 0x0c, 0, &d) == -EPROTO && d == HICN_WIRE_DROP_FLAGS,
	      "compact LST interest");
	check(mutate(cmp, 1, 0x14, 0, &d) == -EPROTO && d == HICN_WIRE_DROP_FLAGS,
	      "compact flag 0x10");
	check(!mutate("ping-new-face4#2", 1, 0x08, 0, &d), "compact LST data");
	check(!mutate("ping-ipv6tcp-face4#2", 53, 0x46, 0, &d), "LST data");

	/* Lifetime 0: an interest is refused, data is "do not cache". */
	c = cap(v6);
	{
		u8 buf[64];

		memcpy(buf, c->bytes, c->len);
		buf[58] = 0;
		buf[59] = 0;
		check(parse_exact(buf, c->len, &p) == -EPROTO && p.drop == HICN_WIRE_DROP_LIFETIME,
		      "interest lifetime 0");
		buf[53] = 0x42;
		check(!parse_exact(buf, c->len, &p) && !p.lifetime, "data lifetime 0");
	}
	check(mutate(cmp, 7, 0, 0, &d) == 0, "compact lifetime 0x1f4 -> 0x100");
	{
		const struct capture *cc = cap(cmp);
		u8 buf[32];

		memcpy(buf, cc->bytes, 32);
		buf[6] = 0;
		buf[7] = 0;
		check(parse_exact(buf, 32, &p) == -EPROTO && p.drop == HICN_WIRE_DROP_LIFETIME,
		      "compact interest lifetime 0");
	}
	for (i = 0; i < HICN_WIRE_DROP_MAX; i++)
		check(strcmp(hicn_wire_drop_name(i), "?"), "drop name %u", i);
	check(!strcmp(hicn_wire_drop_name(HICN_WIRE_DROP_MAX), "?"), "drop name past the end");
}

static void test_build_errors(void)
{
	const struct capture *c = cap("ping-ipv4tcp-face4#1");
	struct hicn_wire_pkt p, q;
	u8 buf[MAX_PKT];
	size_t room;

	check(!hicn_wire_parse(c->bytes, c->len, &p), "ipv4 parse");
	q = p;
	q.name.s6_addr[0] = 0xb0;
	check(hicn_wire_build(buf, sizeof(buf), &q) == -EINVAL, "IPv4 build, IPv6 name");
	q = p;
	q.locator.s6_addr[10] = 0xff;	/* v4-mapped is not our mapping */
	check(hicn_wire_build(buf, sizeof(buf), &q) == -EINVAL, "IPv4 build, v4-mapped");
	q = p;
	q.format = 3;
	check(hicn_wire_build(buf, sizeof(buf), &q) == -EINVAL, "format 3");
	q = p;
	q.flags = 0x08;
	check(hicn_wire_build(buf, sizeof(buf), &q) == -EINVAL, "unknown flag");
	q = p;
	q.flags = HICN_WIRE_F_LST;
	check(hicn_wire_build(buf, sizeof(buf), &q) == -EINVAL, "LST interest");
	q = p;
	q.lifetime = 0;
	check(hicn_wire_build(buf, sizeof(buf), &q) == -EINVAL, "interest lifetime 0");
	q = p;
	q.ah_len = 44;
	check(hicn_wire_build(buf, sizeof(buf), &q) == -EINVAL, "AH without SIG");
	q.flags = HICN_WIRE_F_SIG;
	check(hicn_wire_build(buf, sizeof(buf), &q) == 84, "AH, no signature");
	q.ah_len = 46;
	check(hicn_wire_build(buf, sizeof(buf), &q) == -EINVAL, "AH length 46");
	q.ah_len = 44 + 256 * 4;
	check(hicn_wire_build(buf, sizeof(buf), &q) == -EINVAL, "AH length 1068");
	q.ah_len = 0;
	check(hicn_wire_build(buf, sizeof(buf), &q) == -EINVAL, "SIG without AH");
	q = p;
	q.payload_len = HICN_WIRE_MAX_LEN - 40 + 1;
	check(hicn_wire_build(buf, sizeof(buf), &q) == -EMSGSIZE, "too long");
	q.payload_len = UINT_MAX;
	check(hicn_wire_build(buf, sizeof(buf), &q) == -EMSGSIZE, "payload 2^32-1");

	/* Every room too small, in a buffer of exactly that size. */
	for (room = 0; room < 64; room++) {
		static const u8 fmts[] = { HICN_WIRE_IPV6_TCP, HICN_WIRE_IPV4_TCP,
					   HICN_WIRE_COMPACT };
		unsigned int f;

		for (f = 0; f < 3; f++) {
			u8 *exact = malloc(room ? room : 1);
			int n;

			if (!exact)
				exit(2);
			memset(exact, 0, room);
			q = p;
			q.format = fmts[f];
			q.payload_len = 4;
			n = hicn_wire_build(exact, room, &q);
			check(n == (room >= (size_t)hicn_wire_hlen(&q) + 4 ?
				    hicn_wire_hlen(&q) + 4 : -ENOSPC),
			      "build format %u in %zu: %d", fmts[f], room, n);
			if (n > 0) {
				check(!hicn_wire_parse(exact, n, &q) && q.payload_len == 4,
				      "built packet parses");
			}
			free(exact);
		}
	}

	/* Lifetimes through a compact and an IPv6 build and back. */
	q = p;
	q.format = HICN_WIRE_COMPACT;
	q.lifetime = 123456789;
	check(hicn_wire_build(buf, sizeof(buf), &q) == 32 && !hicn_wire_parse(buf, 32, &p) &&
	      p.lifetime == 123456789, "compact lifetime exact");
	q.format = HICN_WIRE_IPV6_TCP;
	check(hicn_wire_build(buf, sizeof(buf), &q) == 60 && !hicn_wire_parse(buf, 60, &p) &&
	      p.lifetime == (123456789U >> 11) << 11, "tcp lifetime scaled: %u", p.lifetime);
}

static u32 rnd_state = 0x15c0ffee;

static u32 rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state;
}

static void test_fuzz(void)
{
	unsigned int i, hicn = 0, accepted = 0, bad = 0;
	struct hicn_wire_pkt p;
	u8 buf[MAX_PKT], out[MAX_PKT];

	for (i = 0; i < ncaps; i++)
		if (is_hicn(&caps[i]))
			hicn++;
	for (i = 0; i < FUZZ_ROUNDS; i++) {
		const struct capture *c = &caps[rnd() % ncaps];
		size_t len, k, n;

		if (i % 4 == 0) {
			/* Random bytes, with a plausible first byte half the time. */
			static const u8 first[] = { 0x60, 0x45, 0x90 };

			len = rnd() % 256;
			for (k = 0; k < len; k++)
				buf[k] = rnd();
			if (len && (rnd() & 1))
				buf[0] = first[rnd() % 3];
		} else {
			/* A capture with a few bytes changed, maybe cut or padded. */
			memcpy(buf, c->bytes, c->len);
			len = c->len;
			for (n = rnd() % 4 + 1; n; n--)
				buf[rnd() % len] = rnd();
			if (rnd() % 8 == 0)
				len = rnd() % (len + 1);
			else if (rnd() % 8 == 0 && len < MAX_PKT - 8)
				len += rnd() % 8;
		}
		if (parse_exact(buf, len, &p)) {
			if (p.drop == HICN_WIRE_OK || p.drop >= HICN_WIRE_DROP_MAX)
				bad++;
			continue;
		}
		accepted++;
		if ((size_t)p.payload_off + p.payload_len != len ||
		    (p.is_interest && !p.lifetime))
			bad++;
		/* Anything accepted can be built again, and parses the same. */
		memcpy(out, buf, len);
		p.lifetime = p.is_interest && !p.lifetime ? 1 : p.lifetime;
		if (hicn_wire_build(out, len, &p) != (int)len) {
			bad++;
			continue;
		}
		{
			struct hicn_wire_pkt q;

			if (parse_exact(out, len, &q) || q.suffix != p.suffix ||
			    memcmp(&q.name, &p.name, 16) || q.payload_len != p.payload_len)
				bad++;
		}
	}
	check(!bad, "fuzz: %u bad results", bad);
	printf("# fuzz: %u rounds, %u accepted\n", FUZZ_ROUNDS, accepted);
}

/*
 * The stock ping client's signed interest manifest asks for suffixes 0,
 * 1 and 2; every truncation, a count of 0 or beyond the bitmap, and a
 * count longer than the payload are refused; each bitmap bit selects its
 * own suffix.
 */
static void test_imanifest(void)
{
	const struct capture *c = cap("ping-ipv6tcp-signed-face4#1");
	struct hicn_wire_pkt p;
	u8 man[40 + 4 * HICN_WIRE_IMAN_MAX];
	const u8 *pl;
	unsigned int i, bad = 0;
	int n;

	check(!parse_exact(c->bytes, c->len, &p) && p.is_interest &&
	      (p.flags & HICN_WIRE_F_MAN), "imanifest: the capture parses as one");
	pl = c->bytes + p.payload_off;
	n = hicn_wire_imanifest_parse(pl, p.payload_len);
	check(n == 3, "imanifest: 3 suffixes (%d)", n);
	for (i = 0; i < 3 && n == 3; i++)
		check(hicn_wire_imanifest_requested(pl, i) &&
		      hicn_wire_imanifest_suffix(pl, i) == i,
		      "imanifest: suffix %u asked for", i);
	for (i = 0; i < p.payload_len; i++)
		bad += hicn_wire_imanifest_parse(pl, i) != -EBADMSG;
	check(!bad, "imanifest: every truncation refused (%u not)", bad);

	memset(man, 0, sizeof(man));
	check(hicn_wire_imanifest_parse(man, sizeof(man)) == -EBADMSG,
	      "imanifest: no suffix refused");
	man[2] = 1;	/* 256 */
	check(hicn_wire_imanifest_parse(man, sizeof(man)) == 256,
	      "imanifest: 256 suffixes taken");
	check(hicn_wire_imanifest_parse(man, sizeof(man) - 1) == -EBADMSG,
	      "imanifest: 256 suffixes in one byte less refused");
	man[3] = 1;	/* 257 */
	check(hicn_wire_imanifest_parse(man, sizeof(man)) == -EBADMSG,
	      "imanifest: more suffixes than the bitmap refused");
	man[0] = 0x80;
	check(hicn_wire_imanifest_parse(man, sizeof(man)) == -EBADMSG,
	      "imanifest: a huge count refused");
	man[8 + 8 * 3] = 0x80;	/* word 3, bit 63: suffix 255 */
	man[8 + 7] = 0x02;	/* word 0, bit 1: suffix 1 */
	for (i = 0, bad = 0; i < 256; i++)
		bad += hicn_wire_imanifest_requested(man, i) != (i == 1 || i == 255);
	check(!bad, "imanifest: bits select suffixes 1 and 255 only (%u wrong)", bad);
	man[40 + 4 * 255 + 3] = 0x2a;
	check(hicn_wire_imanifest_suffix(man, 255) == 0x2a, "imanifest: suffix 255 read");
}

int main(int argc, char **argv)
{
	load(argc > 1 ? argv[1] : "packets.txt");
	test_captures();
	test_lifetime();
	test_keys();
	test_thdr();
	test_malformed();
	test_build_errors();
	test_imanifest();
	test_fuzz();
	printf("# wire: %u checks, %u failed\n", tests, failures);
	return failures ? 1 : 0;
}
