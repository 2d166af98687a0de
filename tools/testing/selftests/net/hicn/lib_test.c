// SPDX-License-Identifier: GPL-2.0
/*
 * libhcn (userspace/lib): hcn_pton() and hcn_ntop() on AF_HICN, the
 * ADDR[/PREFIX][#VERSION] names of hcn_name_pton() and hcn_name_ntop()
 * (round trips, bad input, short buffers), and the socket wrappers: a name
 * that says AF_HICN reaches a socket of the number in force, names come
 * back as AF_HICN, a producer and a consumer talk through hcn_*() only,
 * hcn_sendto() with addrlen 0 and hcn_recvfrom() with a NULL addrlen (the
 * paper's calls).  lib_examples.sh runs the "map" tests again with the
 * module loaded with family=13.
 */
#include "hicn_test.h"
#include "kselftest_harness.h"

#define LT_NS		"b001:a:b:c::/64"
#define LT_NAME		"b001:a:b:c::1234"

/* hcn_pton(AF_HICN) is inet_pton(AF_INET6), for both family numbers. */
TEST(pton_is_inet6)
{
	static const char * const good[] = {
		"::", "::1", "b001:a:b:c::1234", "b001:a:b:c::",
		"ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "1:2:3:4:5:6:7:8",
		"::ffff:1.2.3.4", "B001:A::C",
	};
	static const char * const bad[] = {
		"", ":", "1::2::3", "b001:a:b:c::/64", "b001:a:b:c::1#1",
		"12345::", "1.2.3.4", " ::", ":: ", "g::",
	};
	struct in6_addr want, got;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(good); i++) {
		ASSERT_EQ(1, inet_pton(AF_INET6, good[i], &want));
		memset(&got, 0xaa, sizeof(got));
		EXPECT_EQ(1, hcn_pton(AF_HICN, good[i], &got)) TH_LOG("%s", good[i]);
		EXPECT_EQ(0, memcmp(&want, &got, sizeof(got))) TH_LOG("%s", good[i]);
		memset(&got, 0xaa, sizeof(got));
		EXPECT_EQ(1, hcn_pton(hcn_family(), good[i], &got));
		EXPECT_EQ(0, memcmp(&want, &got, sizeof(got))) TH_LOG("%s", good[i]);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		const char *text = bad[i];

		EXPECT_EQ(0, hcn_pton(AF_HICN, text, &got)) TH_LOG("'%s'", text);
	}
}

/* The bug this library fixes: inet_pton() does not know AF_HICN. */
TEST(pton_other_families)
{
	struct in_addr a4;
	char buf[INET_ADDRSTRLEN];
	struct in6_addr a6;

	errno = 0;
	EXPECT_EQ(-1, inet_pton(AF_HICN, LT_NAME, &a6));
	EXPECT_EQ(EAFNOSUPPORT, errno);

	EXPECT_EQ(1, hcn_pton(AF_INET, "10.1.2.3", &a4));
	EXPECT_EQ(htonl(0x0a010203), a4.s_addr);
	EXPECT_STREQ("10.1.2.3", hcn_ntop(AF_INET, &a4, buf, sizeof(buf)));
	EXPECT_EQ(0, hcn_pton(AF_INET, "b001::", &a4));
	errno = 0;
	EXPECT_EQ(-1, hcn_pton(250, LT_NAME, &a6));
	EXPECT_EQ(EAFNOSUPPORT, errno);
	errno = 0;
	EXPECT_EQ(NULL, hcn_ntop(250, &a6, buf, sizeof(buf)));
	EXPECT_EQ(EAFNOSUPPORT, errno);
}

TEST(ntop_round_trip)
{
	static const char * const names[] = {
		"::", "::1", "b001:a:b:c::1234", "b001:a:b:c::",
		"ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "1:2:3:4:5:6:7:8",
	};
	char buf[INET6_ADDRSTRLEN], small[4];
	struct in6_addr a;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		ASSERT_EQ(1, hcn_pton(AF_HICN, names[i], &a));
		EXPECT_EQ((const char *)buf, hcn_ntop(AF_HICN, &a, buf, sizeof(buf)));
		EXPECT_STREQ(names[i], buf);
		EXPECT_EQ((const char *)buf, hcn_ntop(hcn_family(), &a, buf, sizeof(buf)));
		EXPECT_STREQ(names[i], buf);
	}
	ASSERT_EQ(1, hcn_pton(AF_HICN, LT_NAME, &a));
	errno = 0;
	EXPECT_EQ(NULL, hcn_ntop(AF_HICN, &a, small, sizeof(small)));
	EXPECT_EQ(ENOSPC, errno);
}

/* Text, then prefix length and version it must give, and how it prints. */
static const struct {
	const char *text;
	int prefix;
	__u32 version;
	const char *printed;
} lt_names[] = {
	{ "b001:a:b:c::1234",	128, 0, NULL },
	{ "b001:a:b:c::/64",	64, 0, NULL },
	{ "b001:a:b:c::1234#7",	128, 7, NULL },
	{ "b001:a:b:c::/64#7",	64, 7, NULL },
	{ "::",			128, 0, NULL },
	{ "::/0",		0, 0, NULL },
	{ "::/128",		128, 0, "::" },
	{ "::1/128#0",		128, 0, "::1" },
	{ "::/064",		64, 0, "::/64" },
	{ "1:2:3:4:5:6:7:8/127#4294967295", 127, 4294967295U, NULL },
	{ "ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255/1#4294967295", 1,
	  4294967295U, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/1#4294967295" },
	{ "B001:A:B:C::ABCD#00012", 128, 12, "b001:a:b:c::abcd#12" },
};

TEST(name_round_trip)
{
	char buf[HCN_NAMESTRLEN];
	struct sockaddr_hicn a, b;
	struct in6_addr addr;
	size_t len;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lt_names); i++) {
		const char *want = lt_names[i].printed ?: lt_names[i].text;

		memset(&a, 0xaa, sizeof(a));
		ASSERT_EQ(0, hcn_name_pton(lt_names[i].text, &a))
			TH_LOG("%s: %s", lt_names[i].text, strerror(errno));
		EXPECT_EQ(hcn_family(), a.sin_family);
		EXPECT_EQ(lt_names[i].prefix, a.sin_prefix) TH_LOG("%s", lt_names[i].text);
		EXPECT_EQ(lt_names[i].version, a.sin_suffix) TH_LOG("%s", lt_names[i].text);
		EXPECT_EQ(0, a.sin_flags);
		len = strcspn(lt_names[i].text, "/#");
		memcpy(buf, lt_names[i].text, len);
		buf[len] = '\0';
		ASSERT_EQ(1, inet_pton(AF_INET6, buf, &addr));
		EXPECT_EQ(0, memcmp(&addr, &a.sin_addr, sizeof(addr)));
		memset(&b, 0, sizeof(b));
		memcpy(b.sin_zero, a.sin_zero, sizeof(b.sin_zero));
		EXPECT_EQ(0, memcmp(b.sin_zero, "\0\0\0\0\0\0\0\0", 8));

		memset(buf, 'x', sizeof(buf));
		EXPECT_EQ((int)strlen(want), hcn_name_ntop(&a, buf, sizeof(buf)));
		EXPECT_STREQ(want, buf);

		/* The printed form reads back as the same name. */
		ASSERT_EQ(0, hcn_name_pton(buf, &b));
		EXPECT_EQ(0, memcmp(&a, &b, sizeof(a))) TH_LOG("%s", buf);
	}
}

TEST(name_bad_input)
{
	static const char * const bad[] = {
		"", "/64", "#7", "b001:a:b:c::/129", "b001:a:b:c::/6x",
		"b001:a:b:c::/256", "b001:a:b:c::/-1", "b001:a:b:c::/+6",
		"b001:a:b:c::/ 6", "b001:a:b:c::/", "b001:a:b:c::#",
		"b001:a:b:c::/64#", "b001:a:b:c::#4294967296",
		"b001:a:b:c::#99999999999", "b001:a:b:c::#-1", "b001:a:b:c::#7/64",
		"b001:a:b:c::/64/64", "b001:a:b:c::#1#1", "b001:a:b:c::1 ",
		" b001:a:b:c::1", "b001:a:b:c::1/64 ", "b001:a:b:c::1#7x",
		"b001::c::1", "10.1.2.3", "b001:a:b:c::/0128",
		"ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255:1",
	};
	struct sockaddr_hicn a, before;
	unsigned int i;

	memset(&before, 0x5a, sizeof(before));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		a = before;
		errno = 0;
		EXPECT_EQ(-1, hcn_name_pton(bad[i], &a)) TH_LOG("'%s' accepted", bad[i]);
		EXPECT_EQ(EINVAL, errno) TH_LOG("'%s'", bad[i]);
		EXPECT_EQ(0, memcmp(&a, &before, sizeof(a))) TH_LOG("'%s' wrote", bad[i]);
	}
}

TEST(name_ntop_buffer)
{
	const char *text = "b001:a:b:c::1234/64#7";
	size_t len = strlen(text);
	struct sockaddr_hicn a;
	char buf[HCN_NAMESTRLEN];

	ASSERT_EQ(0, hcn_name_pton(text, &a));
	/* Room for the text and its NUL: fine; one byte less: ENOSPC. */
	EXPECT_EQ((int)len, hcn_name_ntop(&a, buf, len + 1));
	EXPECT_STREQ(text, buf);
	memset(buf, 'x', sizeof(buf));
	errno = 0;
	EXPECT_EQ(-1, hcn_name_ntop(&a, buf, len));
	EXPECT_EQ(ENOSPC, errno);
	EXPECT_EQ('x', buf[0]);
	errno = 0;
	EXPECT_EQ(-1, hcn_name_ntop(&a, buf, 0));
	EXPECT_EQ(ENOSPC, errno);

	/* The longest name fits in HCN_NAMESTRLEN. */
	text = "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/127#4294967295";
	ASSERT_EQ(0, hcn_name_pton(text, &a));
	EXPECT_EQ((int)strlen(text), hcn_name_ntop(&a, buf, sizeof(buf)));
	EXPECT_STREQ(text, buf);
	EXPECT_GT(HCN_NAMESTRLEN, strlen(text));

	a.sin_prefix = 129;
	errno = 0;
	EXPECT_EQ(-1, hcn_name_ntop(&a, buf, sizeof(buf)));
	EXPECT_EQ(EINVAL, errno);
}

FIXTURE(map)
{
	int prod, cons;
	struct sockaddr_hicn ns, name;
};

FIXTURE_SETUP(map)
{
	ASSERT_EQ(0, ht_enter_netns());
	self->cons = -1;
	self->prod = hcn_socket(AF_HICN, SOCK_PROD, PROD_REL);
	ASSERT_LE(0, self->prod) TH_LOG("hcn_socket: %s", strerror(errno));
	/* Names as the paper writes them: sin_family = AF_HICN. */
	ASSERT_EQ(0, hcn_name_pton(LT_NS, &self->ns));
	self->ns.sin_family = AF_HICN;
	ASSERT_EQ(0, hcn_name_pton(LT_NAME, &self->name));
	self->name.sin_family = AF_HICN;
	ASSERT_EQ(0, hcn_bind(self->prod, &self->ns, sizeof(self->ns)))
		TH_LOG("hcn_bind: %s", strerror(errno));
}

FIXTURE_TEARDOWN(map)
{
	if (self->cons >= 0)
		close(self->cons);
	close(self->prod);
}

/* The socket and the kernel's names use the number in force. */
TEST_F(map, socket_has_runtime_family)
{
	struct sockaddr_hicn got, copy = self->ns;
	socklen_t len = sizeof(int);
	int dom = -1;

	ASSERT_EQ(0, getsockopt(self->prod, SOL_SOCKET, SO_DOMAIN, &dom, &len));
	EXPECT_EQ(hcn_family(), dom);
	TH_LOG("family in force: %d", dom);
	/* hcn_bind() worked on a copy. */
	EXPECT_EQ(0, memcmp(&copy, &self->ns, sizeof(copy)));
	EXPECT_EQ(AF_HICN, self->ns.sin_family);
	len = sizeof(got);
	ASSERT_EQ(0, getsockname(self->prod, (struct sockaddr *)&got, &len));
	EXPECT_EQ(hcn_family(), got.sin_family);
	EXPECT_EQ(64, got.sin_prefix);

	/* hcn_socket() passes other families on. */
	dom = hcn_socket(AF_INET6, SOCK_DGRAM, 0);
	ASSERT_LE(0, dom);
	close(dom);
}

/* The paper's calls: hcn_sendto(..., 0), hcn_recvfrom(..., NULL). */
TEST_F(map, paper_transfer)
{
	static const char msg[] = "published through libhcn";
	struct sockaddr_hicn from, cname = self->name;
	char buf[256], text[HCN_NAMESTRLEN];

	ASSERT_EQ((ssize_t)sizeof(msg),
		  hcn_sendto(self->prod, msg, sizeof(msg), 0, &self->name, 0))
		TH_LOG("hcn_sendto: %s", strerror(errno));
	EXPECT_EQ(AF_HICN, self->name.sin_family);

	self->cons = hcn_socket(AF_HICN, SOCK_CONS, CONS_REL);
	ASSERT_LE(0, self->cons);
	cname.sin_prefix = 64;
	ASSERT_EQ(0, hcn_bind(self->cons, &cname, sizeof(cname)))
		TH_LOG("hcn_bind: %s", strerror(errno));
	memset(&from, 0, sizeof(from));
	memset(buf, 0, sizeof(buf));
	ASSERT_EQ((ssize_t)sizeof(msg),
		  hcn_recvfrom(self->cons, buf, sizeof(buf), 0, &from, NULL))
		TH_LOG("hcn_recvfrom: %s", strerror(errno));
	EXPECT_STREQ(msg, buf);
	EXPECT_EQ(AF_HICN, from.sin_family);
	EXPECT_EQ(1, from.sin_suffix);
	EXPECT_LT(0, hcn_name_ntop(&from, text, sizeof(text)));
	EXPECT_STREQ(LT_NAME "#1", text);
}

/* Without addr, hcn_recvfrom() is recvfrom(); addrlen reports the name. */
TEST_F(map, recvfrom_addrlen)
{
	struct sockaddr_hicn from, cname = self->name;
	socklen_t len = sizeof(from);
	char buf[16];

	ASSERT_EQ(3, hcn_sendto(self->prod, "abc", 3, 0, &self->name,
				sizeof(self->name)));
	self->cons = hcn_socket(AF_HICN, SOCK_CONS, CONS_REL);
	ASSERT_LE(0, self->cons);
	cname.sin_prefix = 64;
	ASSERT_EQ(0, hcn_bind(self->cons, &cname, sizeof(cname)));
	ASSERT_EQ(3, hcn_recvfrom(self->cons, buf, sizeof(buf), 0, &from, &len));
	EXPECT_EQ(sizeof(from), len);
	EXPECT_EQ(AF_HICN, from.sin_family);
	EXPECT_EQ(0, memcmp(&from.sin_addr, &self->name.sin_addr,
			    sizeof(from.sin_addr)));
	ASSERT_EQ(3, hcn_recvfrom(self->cons, buf, sizeof(buf), 0, NULL, NULL));
	EXPECT_EQ(0, memcmp(buf, "abc", 3));
}

/* hcn_sendmsg() and hcn_recvmsg(), connect() mode, options. */
TEST_F(map, msg_connect_sockopt)
{
	struct sockaddr_hicn from, cname = self->name;
	char data[] = "sent with hcn_sendmsg", buf[64];
	struct iovec iov = { data, sizeof(data) };
	struct msghdr m = {
		.msg_name = &self->name, .msg_namelen = sizeof(self->name),
		.msg_iov = &iov, .msg_iovlen = 1,
	};
	socklen_t len = sizeof(int);
	int val = 16;

	ASSERT_EQ((ssize_t)sizeof(data), hcn_sendmsg(self->prod, &m, 0))
		TH_LOG("hcn_sendmsg: %s", strerror(errno));
	EXPECT_EQ(AF_HICN, self->name.sin_family);

	self->cons = hcn_socket(AF_HICN, SOCK_CONS, 0);
	ASSERT_LE(0, self->cons);
	EXPECT_EQ(0, hcn_setsockopt(self->cons, SOL_HICN, HICN_WINDOW, &val,
				    sizeof(val)));
	val = 0;
	EXPECT_EQ(0, hcn_getsockopt(self->cons, SOL_HICN, HICN_WINDOW, &val, &len));
	EXPECT_EQ(16, val);
	cname.sin_prefix = 64;
	ASSERT_EQ(0, hcn_bind(self->cons, &cname, sizeof(cname)));

	memset(&m, 0, sizeof(m));
	memset(&from, 0, sizeof(from));
	iov.iov_base = buf;
	iov.iov_len = sizeof(buf);
	m.msg_name = &from;
	m.msg_namelen = sizeof(from);
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	ASSERT_EQ((ssize_t)sizeof(data), hcn_recvmsg(self->cons, &m, 0))
		TH_LOG("hcn_recvmsg: %s", strerror(errno));
	EXPECT_STREQ(data, buf);
	EXPECT_EQ(sizeof(from), m.msg_namelen);
	EXPECT_EQ(AF_HICN, from.sin_family);
	EXPECT_EQ(1, from.sin_suffix);
	close(self->cons);

	/* Stream mode: hcn_connect() to the name, read to EOF. */
	self->cons = hcn_socket(AF_HICN, SOCK_CONS, CONS_REL);
	ASSERT_LE(0, self->cons);
	ASSERT_EQ(0, hcn_connect(self->cons, &self->name, sizeof(self->name)))
		TH_LOG("hcn_connect: %s", strerror(errno));
	memset(buf, 0, sizeof(buf));
	EXPECT_EQ((ssize_t)sizeof(data),
		  ht_read_stream(self->cons, buf, sizeof(buf), sizeof(buf)));
	EXPECT_STREQ(data, buf);
}

TEST_HARNESS_MAIN
