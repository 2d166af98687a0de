// SPDX-License-Identifier: GPL-2.0
/*
 * IPPROTO_PSOCK socket() and the socket-level calls of the skeleton: valid
 * and invalid combinations with their errno, the options that describe a
 * socket, poll() of an unconnected socket compared with TCP's, and the
 * per-netns socket count in /proc/net/protocols.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <linux/psock.h>

#include "test_util.h"
#include "kselftest_harness.h"

FIXTURE(sock)
{
	int fd;
	const char *proto;
};

FIXTURE_VARIANT(sock)
{
	int family;
	int flags;
};

FIXTURE_VARIANT_ADD(sock, v4)
{
	.family = AF_INET,
};

FIXTURE_VARIANT_ADD(sock, v6)
{
	.family = AF_INET6,
};

FIXTURE_VARIANT_ADD(sock, v4_nonblock_cloexec)
{
	.family = AF_INET, .flags = SOCK_NONBLOCK | SOCK_CLOEXEC,
};

FIXTURE_VARIANT_ADD(sock, v6_nonblock_cloexec)
{
	.family = AF_INET6, .flags = SOCK_NONBLOCK | SOCK_CLOEXEC,
};

FIXTURE_SETUP(sock)
{
	self->proto = variant->family == AF_INET ? "PSOCK" : "PSOCKv6";
	self->fd = socket(variant->family, SOCK_STREAM | variant->flags,
			  IPPROTO_PSOCK);
	ASSERT_LE(0, self->fd) TH_LOG("socket: %s", strerror(errno));
}

FIXTURE_TEARDOWN(sock)
{
	if (self->fd >= 0)
		close(self->fd);
}

static int sockopt_int(int fd, int opt)
{
	socklen_t len = sizeof(int);
	int v = -1;

	if (getsockopt(fd, SOL_SOCKET, opt, &v, &len) || len != sizeof(int))
		return -1;
	return v;
}

TEST_F(sock, describes_itself)
{
	int fl;

	EXPECT_EQ(SOCK_STREAM, sockopt_int(self->fd, SO_TYPE));
	EXPECT_EQ(IPPROTO_PSOCK, sockopt_int(self->fd, SO_PROTOCOL));
	EXPECT_EQ(variant->family, sockopt_int(self->fd, SO_DOMAIN));
	EXPECT_EQ(0, sockopt_int(self->fd, SO_ERROR));

	fl = fcntl(self->fd, F_GETFL);
	EXPECT_EQ(!!(variant->flags & SOCK_NONBLOCK), !!(fl & O_NONBLOCK));
	fl = fcntl(self->fd, F_GETFD);
	EXPECT_EQ(!!(variant->flags & SOCK_CLOEXEC), !!(fl & FD_CLOEXEC));
}

TEST_F(sock, getname_like_tcp)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	ASSERT_EQ(0, getsockname(self->fd, (struct sockaddr *)&ss, &len));
	EXPECT_EQ(variant->family, ss.ss_family);
	EXPECT_EQ(variant->family == AF_INET ? sizeof(struct sockaddr_in) :
		  sizeof(struct sockaddr_in6), len);

	len = sizeof(ss);
	EXPECT_EQ(-1, getpeername(self->fd, (struct sockaddr *)&ss, &len));
	EXPECT_EQ(ENOTCONN, errno);
}

/* An unconnected socket polls exactly as an unconnected TCP socket. */
TEST_F(sock, poll_like_tcp)
{
	struct pollfd p[2] = {
		{ .fd = self->fd, .events = POLLIN | POLLOUT },
		{ .events = POLLIN | POLLOUT },
	};

	p[1].fd = socket(variant->family, SOCK_STREAM, IPPROTO_TCP);
	ASSERT_LE(0, p[1].fd);
	ASSERT_EQ(2, poll(p, 2, 0));
	EXPECT_EQ(p[1].revents, p[0].revents);
	close(p[1].fd);
}

/* bind() picks a port as TCP's does; a second bind() is refused. */
TEST_F(sock, bind_like_tcp)
{
	struct sockaddr_storage ss = { .ss_family = variant->family };
	socklen_t len = variant->family == AF_INET ?
			sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
	struct sockaddr_storage got;
	socklen_t glen = sizeof(got);

	ASSERT_EQ(0, bind(self->fd, (struct sockaddr *)&ss, len));
	ASSERT_EQ(0, getsockname(self->fd, (struct sockaddr *)&got, &glen));
	EXPECT_EQ(variant->family, got.ss_family);
	EXPECT_NE(0, variant->family == AF_INET ?
		  ((struct sockaddr_in *)&got)->sin_port :
		  ((struct sockaddr_in6 *)&got)->sin6_port);
	EXPECT_EQ(-1, bind(self->fd, (struct sockaddr *)&ss, len));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(sock, unknown_psock_option)
{
	socklen_t len = sizeof(int);
	int v = 1;

	EXPECT_EQ(-1, setsockopt(self->fd, SOL_PSOCK, 99, &v, sizeof(v)));
	EXPECT_EQ(ENOPROTOOPT, errno);
	EXPECT_EQ(-1, getsockopt(self->fd, SOL_PSOCK, 99, &v, &len));
	EXPECT_EQ(ENOPROTOOPT, errno);
	EXPECT_EQ(0, setsockopt(self->fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v)));
}

TEST_F(sock, inuse_follows_open_and_close)
{
	int before = proto_inuse(self->proto), fd2;

	ASSERT_LE(1, before);
	fd2 = socket(variant->family, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, fd2);
	EXPECT_EQ(before + 1, proto_inuse(self->proto));
	close(fd2);
	EXPECT_EQ(before, proto_inuse(self->proto));
	close(self->fd);
	self->fd = -1;
	EXPECT_EQ(before - 1, proto_inuse(self->proto));
}

TEST(bad_combinations)
{
	static const struct { int family, type, protocol, err; } bad[] = {
		{ AF_INET, SOCK_DGRAM, IPPROTO_PSOCK, EPROTONOSUPPORT },
		{ AF_INET6, SOCK_DGRAM, IPPROTO_PSOCK, EPROTONOSUPPORT },
		{ AF_INET, SOCK_SEQPACKET, IPPROTO_PSOCK, ESOCKTNOSUPPORT },
		{ AF_INET6, SOCK_SEQPACKET, IPPROTO_PSOCK, ESOCKTNOSUPPORT },
		{ AF_INET, SOCK_STREAM, IPPROTO_PSOCK - 1, EPROTONOSUPPORT },
		{ AF_INET, SOCK_STREAM, IPPROTO_PSOCK + 1, EPROTONOSUPPORT },
		{ AF_INET6, SOCK_STREAM, IPPROTO_PSOCK + 1, EPROTONOSUPPORT },
		{ AF_INET, SOCK_STREAM, 263, EINVAL },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(-1, socket(bad[i].family, bad[i].type, bad[i].protocol))
			TH_LOG("case %u accepted", i);
		EXPECT_EQ(bad[i].err, errno)
			TH_LOG("case %u: %s", i, strerror(errno));
	}
}

/* Socket counts are per network namespace. */
TEST(inuse_is_per_netns)
{
	int fd, status, before;
	pid_t pid;

	fd = socket(AF_INET, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, fd);
	before = proto_inuse("PSOCK");
	ASSERT_LE(1, before);

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int c4, c6;

		if (unshare(CLONE_NEWNET) || proto_inuse("PSOCK") != 0)
			_exit(1);
		c4 = socket(AF_INET, SOCK_STREAM, IPPROTO_PSOCK);
		c6 = socket(AF_INET6, SOCK_STREAM, IPPROTO_PSOCK);
		if (c4 < 0 || c6 < 0)
			_exit(2);
		if (proto_inuse("PSOCK") != 1 || proto_inuse("PSOCKv6") != 1)
			_exit(3);
		close(c4);
		close(c6);
		_exit(proto_inuse("PSOCK") == 0 ? 0 : 4);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(before, proto_inuse("PSOCK"));
	close(fd);
}

TEST_HARNESS_MAIN
