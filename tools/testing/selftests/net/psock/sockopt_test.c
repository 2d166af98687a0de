// SPDX-License-Identifier: GPL-2.0
/*
 * SOL_PSOCK options before a connection and the net.psock.* sysctls: the
 * defaults a socket takes, the values each option accepts and the errno of
 * each it refuses, and the sysctls' ranges and per-netns scope.  The
 * SOL_TCP, SOL_IP and SOL_IPV6 options a PSOCK socket takes as TCP does
 * (Documentation/psock.rst, "TCP options"): values read back, TCP's errno
 * for bad ones, EOPNOTSUPP for the others.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <linux/psock.h>

#include "test_util.h"
#include "kselftest_harness.h"

#define SYSCTL(name)	"/proc/sys/net/psock/" name

static int get_int(int fd, int opt, int *val)
{
	socklen_t len = sizeof(*val);
	int ret = getsockopt(fd, SOL_PSOCK, opt, val, &len);

	if (!ret && len != sizeof(*val))
		return -2;
	return ret;
}

static int set_int(int fd, int opt, int val)
{
	return setsockopt(fd, SOL_PSOCK, opt, &val, sizeof(val));
}

FIXTURE(opt)
{
	int fd;
};

FIXTURE_VARIANT(opt)
{
	int family;
};

FIXTURE_VARIANT_ADD(opt, v4)
{
	.family = AF_INET,
};

FIXTURE_VARIANT_ADD(opt, v6)
{
	.family = AF_INET6,
};

FIXTURE_SETUP(opt)
{
	self->fd = socket(variant->family, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(opt)
{
	close(self->fd);
}

TEST_F(opt, defaults_come_from_sysctls)
{
	int v;

	ASSERT_EQ(0, get_int(self->fd, PSOCK_RCMD_STREAM_CNT, &v));
	EXPECT_EQ(sysctl_get(SYSCTL("rcmd_stream_cnt")), v);
	ASSERT_EQ(0, get_int(self->fd, PSOCK_MAX_STREAM_CNT, &v));
	EXPECT_EQ(sysctl_get(SYSCTL("max_stream_cnt")), v);
	ASSERT_EQ(0, get_int(self->fd, PSOCK_DRIVER, &v));
	EXPECT_EQ(sysctl_get(SYSCTL("driver")), v);
	/* At least 16 subflows may be allowed (MPTCP stops at 8). */
	EXPECT_LE(16, PSOCK_STREAM_CNT_LIMIT);
}

TEST_F(opt, stream_counts)
{
	static const int opts[] = { PSOCK_RCMD_STREAM_CNT, PSOCK_MAX_STREAM_CNT };
	unsigned int i;
	int v;

	for (i = 0; i < ARRAY_SIZE(opts); i++) {
		EXPECT_EQ(0, set_int(self->fd, opts[i], 1));
		ASSERT_EQ(0, get_int(self->fd, opts[i], &v));
		EXPECT_EQ(1, v);
		EXPECT_EQ(0, set_int(self->fd, opts[i], PSOCK_STREAM_CNT_LIMIT));
		ASSERT_EQ(0, get_int(self->fd, opts[i], &v));
		EXPECT_EQ(PSOCK_STREAM_CNT_LIMIT, v);

		EXPECT_EQ(-1, set_int(self->fd, opts[i], 0));
		EXPECT_EQ(EINVAL, errno);
		EXPECT_EQ(-1, set_int(self->fd, opts[i], -1));
		EXPECT_EQ(EINVAL, errno);
		EXPECT_EQ(-1, set_int(self->fd, opts[i], PSOCK_STREAM_CNT_LIMIT + 1));
		EXPECT_EQ(EINVAL, errno);
		/* A refused value leaves the old one. */
		ASSERT_EQ(0, get_int(self->fd, opts[i], &v));
		EXPECT_EQ(PSOCK_STREAM_CNT_LIMIT, v);
	}
	/* rcmd above max is allowed: the negotiation caps it. */
	EXPECT_EQ(0, set_int(self->fd, PSOCK_MAX_STREAM_CNT, 2));
	EXPECT_EQ(0, set_int(self->fd, PSOCK_RCMD_STREAM_CNT, 8));
}

TEST_F(opt, driver)
{
	int v;

	EXPECT_EQ(0, set_int(self->fd, PSOCK_DRIVER, PSOCK_DRIVER_ROUND_ROBIN));
	ASSERT_EQ(0, get_int(self->fd, PSOCK_DRIVER, &v));
	EXPECT_EQ(PSOCK_DRIVER_ROUND_ROBIN, v);
	EXPECT_EQ(0, set_int(self->fd, PSOCK_DRIVER, PSOCK_DRIVER_POLL_ALL));
	EXPECT_EQ(-1, set_int(self->fd, PSOCK_DRIVER, PSOCK_DRIVER_MAX + 1));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, set_int(self->fd, PSOCK_DRIVER, -1));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(opt, per_stream_buffers)
{
	static const int opts[] = { PSOCK_SNDBUF, PSOCK_RCVBUF };
	struct pstream_int pi;
	socklen_t len;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(opts); i++) {
		pi = (struct pstream_int){ .index = 0, .value = 500000 };
		EXPECT_EQ(0, setsockopt(self->fd, SOL_PSOCK, opts[i], &pi, sizeof(pi)));
		pi = (struct pstream_int){ .index = PSOCK_STREAM_CNT_LIMIT - 1,
					   .value = 65536 };
		EXPECT_EQ(0, setsockopt(self->fd, SOL_PSOCK, opts[i], &pi, sizeof(pi)));

		pi = (struct pstream_int){ .index = 0 };
		len = sizeof(pi);
		ASSERT_EQ(0, getsockopt(self->fd, SOL_PSOCK, opts[i], &pi, &len));
		EXPECT_EQ(sizeof(pi), len);
		EXPECT_EQ(500000, pi.value);
		pi = (struct pstream_int){ .index = PSOCK_STREAM_CNT_LIMIT - 1 };
		ASSERT_EQ(0, getsockopt(self->fd, SOL_PSOCK, opts[i], &pi, &len));
		EXPECT_EQ(65536, pi.value);
		pi = (struct pstream_int){ .index = 1 };
		ASSERT_EQ(0, getsockopt(self->fd, SOL_PSOCK, opts[i], &pi, &len));
		EXPECT_EQ(0, pi.value);

		/* Out-of-range index or value, short buffers. */
		pi = (struct pstream_int){ .index = PSOCK_STREAM_CNT_LIMIT, .value = 1 };
		EXPECT_EQ(-1, setsockopt(self->fd, SOL_PSOCK, opts[i], &pi, sizeof(pi)));
		EXPECT_EQ(EINVAL, errno);
		pi = (struct pstream_int){ .index = -1, .value = 1 };
		EXPECT_EQ(-1, setsockopt(self->fd, SOL_PSOCK, opts[i], &pi, sizeof(pi)));
		EXPECT_EQ(EINVAL, errno);
		pi = (struct pstream_int){ .index = 0, .value = -5 };
		EXPECT_EQ(-1, setsockopt(self->fd, SOL_PSOCK, opts[i], &pi, sizeof(pi)));
		EXPECT_EQ(EINVAL, errno);
		EXPECT_EQ(-1, setsockopt(self->fd, SOL_PSOCK, opts[i], &pi, sizeof(int)));
		EXPECT_EQ(EINVAL, errno);
		pi = (struct pstream_int){ .index = PSOCK_STREAM_CNT_LIMIT };
		len = sizeof(pi);
		EXPECT_EQ(-1, getsockopt(self->fd, SOL_PSOCK, opts[i], &pi, &len));
		EXPECT_EQ(EINVAL, errno);
		len = sizeof(int);
		EXPECT_EQ(-1, getsockopt(self->fd, SOL_PSOCK, opts[i], &pi, &len));
		EXPECT_EQ(EINVAL, errno);
	}
}

/* PSOCK_OPTIMISTIC is 0 or 1 (psock(7)), as TCP_FASTOPEN_CONNECT. */
TEST_F(opt, optimistic_values)
{
	int v;

	EXPECT_EQ(0, set_int(self->fd, PSOCK_OPTIMISTIC, 1));
	ASSERT_EQ(0, get_int(self->fd, PSOCK_OPTIMISTIC, &v));
	EXPECT_EQ(1, v);
	EXPECT_EQ(-1, set_int(self->fd, PSOCK_OPTIMISTIC, 2));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, set_int(self->fd, PSOCK_OPTIMISTIC, -1));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, get_int(self->fd, PSOCK_OPTIMISTIC, &v));
	EXPECT_EQ(1, v);
	EXPECT_EQ(0, set_int(self->fd, PSOCK_OPTIMISTIC, 0));
	ASSERT_EQ(0, get_int(self->fd, PSOCK_OPTIMISTIC, &v));
	EXPECT_EQ(0, v);
}

TEST_F(opt, bad_lengths_and_pointers)
{
	socklen_t len = 2;
	int v = 2;

	EXPECT_EQ(-1, setsockopt(self->fd, SOL_PSOCK, PSOCK_RCMD_STREAM_CNT, &v, 2));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, setsockopt(self->fd, SOL_PSOCK, PSOCK_DRIVER, &v, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, getsockopt(self->fd, SOL_PSOCK, PSOCK_MAX_STREAM_CNT, &v, &len));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, setsockopt(self->fd, SOL_PSOCK, PSOCK_RCMD_STREAM_CNT,
				 (void *)8, sizeof(int)));
	EXPECT_EQ(EFAULT, errno);
	len = sizeof(int);
	EXPECT_EQ(-1, getsockopt(self->fd, SOL_PSOCK, PSOCK_MAX_STREAM_CNT,
				 (void *)8, &len));
	EXPECT_EQ(EFAULT, errno);
	/* A longer buffer is fine; the length written back is exact. */
	{
		char big[16] = { 0 };

		memcpy(big, &v, sizeof(v));
		EXPECT_EQ(0, setsockopt(self->fd, SOL_PSOCK, PSOCK_RCMD_STREAM_CNT,
					big, sizeof(big)));
		len = sizeof(big);
		EXPECT_EQ(0, getsockopt(self->fd, SOL_PSOCK, PSOCK_RCMD_STREAM_CNT,
					big, &len));
		EXPECT_EQ(sizeof(int), len);
	}
}

/* A sysctl change reaches new sockets, never existing ones. */
/* PSOCK_ADD_LOCAL_ADDR: the addresses it takes and the errno of each refusal. */
static int add_addr(int fd, int family, int last_byte)
{
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in sin = { .sin_family = AF_INET };

	if (family == AF_INET) {
		sin.sin_addr.s_addr = htonl(0x0a000000 | last_byte);
		return setsockopt(fd, SOL_PSOCK, PSOCK_ADD_LOCAL_ADDR, &sin,
				  sizeof(sin));
	}
	sin6.sin6_addr.s6_addr[0] = 0xfd;
	sin6.sin6_addr.s6_addr[15] = last_byte;
	return setsockopt(fd, SOL_PSOCK, PSOCK_ADD_LOCAL_ADDR, &sin6,
			  sizeof(sin6));
}

TEST_F(opt, add_local_addr)
{
	int other = variant->family == AF_INET ? AF_INET6 : AF_INET;
	struct sockaddr_in6 any6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in any4 = { .sin_family = AF_INET };
	int i, v = 0;
	socklen_t len = sizeof(v);

	for (i = 1; i <= PSOCK_ADDR_MAX; i++)
		ASSERT_EQ(0, add_addr(self->fd, variant->family, i));
	/* Full. */
	EXPECT_EQ(-1, add_addr(self->fd, variant->family, 100));
	EXPECT_EQ(ENOSPC, errno);
	/* Already there. */
	EXPECT_EQ(-1, add_addr(self->fd, variant->family, 1));
	EXPECT_EQ(EEXIST, errno);
	/* The other family. */
	EXPECT_EQ(-1, add_addr(self->fd, other, 1));
	EXPECT_EQ(EAFNOSUPPORT, errno);
	/* The wildcard address. */
	if (variant->family == AF_INET) {
		EXPECT_EQ(-1, setsockopt(self->fd, SOL_PSOCK,
					 PSOCK_ADD_LOCAL_ADDR, &any4,
					 sizeof(any4)));
	} else {
		EXPECT_EQ(-1, setsockopt(self->fd, SOL_PSOCK,
					 PSOCK_ADD_LOCAL_ADDR, &any6,
					 sizeof(any6)));
	}
	EXPECT_EQ(EINVAL, errno);
	/* Too short for the family. */
	any4.sin_addr.s_addr = htonl(0x0a000063);
	any6.sin6_addr.s6_addr[0] = 0xfd;
	EXPECT_EQ(-1, setsockopt(self->fd, SOL_PSOCK, PSOCK_ADD_LOCAL_ADDR,
				 variant->family == AF_INET ?
				 (void *)&any4 : (void *)&any6,
				 variant->family == AF_INET ?
				 sizeof(any4) - 1 : sizeof(any6) - 1));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, setsockopt(self->fd, SOL_PSOCK, PSOCK_ADD_LOCAL_ADDR,
				 NULL, sizeof(any6)));
	EXPECT_EQ(EFAULT, errno);
	/* Write only. */
	EXPECT_EQ(-1, getsockopt(self->fd, SOL_PSOCK, PSOCK_ADD_LOCAL_ADDR,
				 &v, &len));
	EXPECT_EQ(ENOPROTOOPT, errno);
}

static int set_lvl(int fd, int level, int opt, int val)
{
	return setsockopt(fd, level, opt, &val, sizeof(val));
}

static int get_lvl(int fd, int level, int opt)
{
	socklen_t len = sizeof(int);
	int val = -12345;

	if (getsockopt(fd, level, opt, &val, &len))
		return -errno - 100000;
	if (len != sizeof(int))
		return -12345;
	return val;
}

/* Each supported option reads back what was set. */
TEST_F(opt, tcp_options_round_trip)
{
	static const int opts[][2] = {
		{ TCP_NODELAY, 1 }, { TCP_CORK, 1 }, { TCP_KEEPIDLE, 600 },
		{ TCP_KEEPINTVL, 30 }, { TCP_KEEPCNT, 6 },
		{ TCP_USER_TIMEOUT, 20000 }, { TCP_NOTSENT_LOWAT, 131072 },
		{ TCP_DEFER_ACCEPT, 5 }, { TCP_FASTOPEN, 16 },
	};
	char ca[32], def[32];
	socklen_t len;
	unsigned int i;
	FILE *f;

	/* Unset: TCP's defaults of the namespace. */
	EXPECT_EQ(0, get_lvl(self->fd, SOL_TCP, TCP_NODELAY));
	EXPECT_EQ(0, get_lvl(self->fd, SOL_TCP, TCP_CORK));
	EXPECT_EQ(sysctl_get("/proc/sys/net/ipv4/tcp_keepalive_time"),
		  get_lvl(self->fd, SOL_TCP, TCP_KEEPIDLE));
	EXPECT_EQ(sysctl_get("/proc/sys/net/ipv4/tcp_keepalive_intvl"),
		  get_lvl(self->fd, SOL_TCP, TCP_KEEPINTVL));
	EXPECT_EQ(sysctl_get("/proc/sys/net/ipv4/tcp_keepalive_probes"),
		  get_lvl(self->fd, SOL_TCP, TCP_KEEPCNT));
	f = fopen("/proc/sys/net/ipv4/tcp_congestion_control", "r");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(1, fscanf(f, "%31s", def));
	fclose(f);
	len = sizeof(ca);
	memset(ca, 0, sizeof(ca));
	ASSERT_EQ(0, getsockopt(self->fd, SOL_TCP, TCP_CONGESTION, ca, &len));
	EXPECT_STREQ(def, ca);

	for (i = 0; i < ARRAY_SIZE(opts); i++) {
		TH_LOG("SOL_TCP option %d = %d", opts[i][0], opts[i][1]);
		EXPECT_EQ(0, set_lvl(self->fd, SOL_TCP, opts[i][0],
				     opts[i][1]));
		EXPECT_EQ(opts[i][1], get_lvl(self->fd, SOL_TCP, opts[i][0]));
	}
	ASSERT_EQ(0, setsockopt(self->fd, SOL_TCP, TCP_CONGESTION, "reno", 4));
	len = sizeof(ca);
	memset(ca, 0, sizeof(ca));
	ASSERT_EQ(0, getsockopt(self->fd, SOL_TCP, TCP_CONGESTION, ca, &len));
	EXPECT_STREQ("reno", ca);
	/* A short buffer gets the start of the name, as from TCP. */
	len = 2;
	ASSERT_EQ(0, getsockopt(self->fd, SOL_TCP, TCP_CONGESTION, ca, &len));
	EXPECT_EQ(2, len);

	if (variant->family == AF_INET) {
		EXPECT_EQ(0, set_lvl(self->fd, SOL_IP, IP_TOS, 0x10));
		EXPECT_EQ(0x10, get_lvl(self->fd, SOL_IP, IP_TOS));
		/* IPv6 levels on an IPv4 socket: as TCP. */
		EXPECT_EQ(-1, set_lvl(self->fd, SOL_IPV6, IPV6_TCLASS, 1));
		EXPECT_EQ(ENOPROTOOPT, errno);
	} else {
		EXPECT_EQ(0, set_lvl(self->fd, SOL_IPV6, IPV6_TCLASS, 0x28));
		EXPECT_EQ(0x28, get_lvl(self->fd, SOL_IPV6, IPV6_TCLASS));
		EXPECT_EQ(0, set_lvl(self->fd, SOL_IPV6, IPV6_V6ONLY, 1));
		EXPECT_EQ(1, get_lvl(self->fd, SOL_IPV6, IPV6_V6ONLY));
	}
}

/* Bad values: the errno TCP gives. */
TEST_F(opt, tcp_options_bad_values)
{
	struct sockaddr_storage ss = { .ss_family = variant->family };
	socklen_t len = variant->family == AF_INET ?
			sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
	static const int bad[][2] = {
		{ TCP_KEEPIDLE, 0 }, { TCP_KEEPIDLE, 32768 },
		{ TCP_KEEPINTVL, 0 }, { TCP_KEEPINTVL, 32768 },
		{ TCP_KEEPCNT, 0 }, { TCP_KEEPCNT, 128 },
		{ TCP_USER_TIMEOUT, -1 }, { TCP_FASTOPEN, -1 },
	};
	unsigned int i;
	short sh = 1;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		TH_LOG("SOL_TCP option %d = %d", bad[i][0], bad[i][1]);
		EXPECT_EQ(-1, set_lvl(self->fd, SOL_TCP, bad[i][0], bad[i][1]));
		EXPECT_EQ(EINVAL, errno);
	}
	/* The value refused left the old one. */
	EXPECT_EQ(0, set_lvl(self->fd, SOL_TCP, TCP_KEEPIDLE, 99));
	EXPECT_EQ(-1, set_lvl(self->fd, SOL_TCP, TCP_KEEPIDLE, 0));
	EXPECT_EQ(99, get_lvl(self->fd, SOL_TCP, TCP_KEEPIDLE));

	EXPECT_EQ(-1, setsockopt(self->fd, SOL_TCP, TCP_CONGESTION,
				 "nonexistent", 11));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, setsockopt(self->fd, SOL_TCP, TCP_CONGESTION, "", 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, setsockopt(self->fd, SOL_TCP, TCP_CONGESTION, NULL, 4));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, setsockopt(self->fd, SOL_TCP, TCP_KEEPIDLE, &sh,
				 sizeof(sh)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, setsockopt(self->fd, SOL_TCP, TCP_KEEPCNT, NULL, 4));
	EXPECT_EQ(EFAULT, errno);

	/* IPV6_V6ONLY once bound: EINVAL, as TCP. */
	ASSERT_EQ(0, bind(self->fd, (struct sockaddr *)&ss, len));
	if (variant->family == AF_INET6) {
		EXPECT_EQ(-1, set_lvl(self->fd, SOL_IPV6, IPV6_V6ONLY, 1));
		EXPECT_EQ(EINVAL, errno);
	}
}

/* The others: EOPNOTSUPP, set or read, as MPTCP answers them. */
TEST_F(opt, unsupported_tcp_options)
{
	static const int tcp[] = {
		TCP_MAXSEG, TCP_QUICKACK, TCP_SYNCNT, TCP_LINGER2,
		TCP_WINDOW_CLAMP, TCP_MD5SIG, TCP_REPAIR, TCP_ULP,
		TCP_ZEROCOPY_RECEIVE, 9999,
	};
	char buf[256] = { 0 };
	socklen_t len;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tcp); i++) {
		TH_LOG("SOL_TCP option %d", tcp[i]);
		EXPECT_EQ(-1, setsockopt(self->fd, SOL_TCP, tcp[i], buf,
					 sizeof(int)));
		EXPECT_EQ(EOPNOTSUPP, errno);
		len = sizeof(buf);
		EXPECT_EQ(-1, getsockopt(self->fd, SOL_TCP, tcp[i], buf, &len));
		EXPECT_EQ(EOPNOTSUPP, errno);
	}
	/* Read only. */
	EXPECT_EQ(-1, setsockopt(self->fd, SOL_TCP, TCP_INFO, buf, 8));
	EXPECT_EQ(EOPNOTSUPP, errno);
	EXPECT_EQ(-1, set_lvl(self->fd, SOL_IP, IP_TTL, 9));
	EXPECT_EQ(EOPNOTSUPP, errno);
	if (variant->family == AF_INET6) {
		EXPECT_EQ(-1, set_lvl(self->fd, SOL_IPV6, IPV6_UNICAST_HOPS, 9));
		EXPECT_EQ(EOPNOTSUPP, errno);
	}
}

TEST(sysctl_defaults_for_new_sockets)
{
	int old = sysctl_get(SYSCTL("rcmd_stream_cnt")), a, b, v;
	char buf[16];

	ASSERT_LT(0, old);
	a = socket(AF_INET, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, a);
	snprintf(buf, sizeof(buf), "%d", old == 7 ? 6 : 7);
	ASSERT_EQ(0, sysctl_set(SYSCTL("rcmd_stream_cnt"), buf));
	b = socket(AF_INET6, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, b);
	ASSERT_EQ(0, get_int(a, PSOCK_RCMD_STREAM_CNT, &v));
	EXPECT_EQ(old, v);
	ASSERT_EQ(0, get_int(b, PSOCK_RCMD_STREAM_CNT, &v));
	EXPECT_EQ(old == 7 ? 6 : 7, v);
	snprintf(buf, sizeof(buf), "%d", old);
	EXPECT_EQ(0, sysctl_set(SYSCTL("rcmd_stream_cnt"), buf));
	close(a);
	close(b);
}

TEST(sysctl_ranges)
{
	static const struct { const char *name, *bad; } cases[] = {
		{ SYSCTL("enabled"), "2" },
		{ SYSCTL("enabled"), "-1" },
		{ SYSCTL("rcmd_stream_cnt"), "0" },
		{ SYSCTL("rcmd_stream_cnt"), "33" },
		{ SYSCTL("max_stream_cnt"), "0" },
		{ SYSCTL("max_stream_cnt"), "1000" },
		{ SYSCTL("driver"), "2" },
		{ SYSCTL("stale_timeout_ms"), "99" },
		{ SYSCTL("stale_timeout_ms"), "600001" },
		{ SYSCTL("add_addr_accepted"), "-1" },
		{ SYSCTL("add_addr_accepted"), "9" },
		{ SYSCTL("optimistic"), "2" },
		{ SYSCTL("optimistic"), "-1" },
	};
	unsigned int i;
	int before;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		before = sysctl_get(cases[i].name);
		EXPECT_EQ(EINVAL, sysctl_set(cases[i].name, cases[i].bad))
			TH_LOG("%s = %s", cases[i].name, cases[i].bad);
		EXPECT_EQ(before, sysctl_get(cases[i].name));
	}
}

/* enabled = 0 refuses new sockets with ENOPROTOOPT and counts none. */
TEST(sysctl_enabled)
{
	int inuse = proto_inuse("PSOCK"), fd;

	ASSERT_EQ(0, sysctl_set(SYSCTL("enabled"), "0"));
	EXPECT_EQ(-1, socket(AF_INET, SOCK_STREAM, IPPROTO_PSOCK));
	EXPECT_EQ(ENOPROTOOPT, errno);
	EXPECT_EQ(-1, socket(AF_INET6, SOCK_STREAM, IPPROTO_PSOCK));
	EXPECT_EQ(ENOPROTOOPT, errno);
	EXPECT_EQ(inuse, proto_inuse("PSOCK"));
	ASSERT_EQ(0, sysctl_set(SYSCTL("enabled"), "1"));
	fd = socket(AF_INET, SOCK_STREAM, IPPROTO_PSOCK);
	EXPECT_LE(0, fd);
	EXPECT_EQ(inuse + 1, proto_inuse("PSOCK"));
	close(fd);
}

/* Each network namespace starts from the defaults and keeps its own. */
TEST(sysctls_per_netns)
{
	int status;
	pid_t pid;

	ASSERT_EQ(0, sysctl_set(SYSCTL("max_stream_cnt"), "3"));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (unshare(CLONE_NEWNET))
			_exit(1);
		if (sysctl_get(SYSCTL("max_stream_cnt")) != 16)
			_exit(2);
		if (sysctl_set(SYSCTL("max_stream_cnt"), "9"))
			_exit(3);
		if (sysctl_set(SYSCTL("enabled"), "0"))
			_exit(4);
		if (socket(AF_INET, SOCK_STREAM, IPPROTO_PSOCK) != -1)
			_exit(5);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(3, sysctl_get(SYSCTL("max_stream_cnt")));
	EXPECT_EQ(1, sysctl_get(SYSCTL("enabled")));
	EXPECT_EQ(0, sysctl_set(SYSCTL("max_stream_cnt"), "16"));
}

TEST_HARNESS_MAIN
