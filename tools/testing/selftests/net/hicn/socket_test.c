// SPDX-License-Identifier: GPL-2.0
/*
 * AF_HICN socket() and the socket-level calls of the skeleton: every valid
 * and invalid type/protocol combination with its errno, the options that
 * describe a socket, /proc/net/hicn and its per-netns view, socket counts.
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>

#include "hcn.h"
#include "test_util.h"
#include "kselftest_harness.h"

static const char *const proto_names[] = {
	[CONS_REL] = "CONS_REL", [CONS_UNREL] = "CONS_UNREL",
	[PROD_REL] = "PROD_REL", [PROD_UNREL] = "PROD_UNREL",
};

FIXTURE(sock)
{
	int family;
	int fd;
};

FIXTURE_VARIANT(sock)
{
	int type;
	int protocol;
	int flags;
	int want_protocol;
};

FIXTURE_VARIANT_ADD(sock, cons_default)
{
	.type = SOCK_CONS, .protocol = 0, .want_protocol = CONS_REL,
};

FIXTURE_VARIANT_ADD(sock, cons_rel)
{
	.type = SOCK_CONS, .protocol = CONS_REL, .want_protocol = CONS_REL,
};

FIXTURE_VARIANT_ADD(sock, cons_unrel)
{
	.type = SOCK_CONS, .protocol = CONS_UNREL, .want_protocol = CONS_UNREL,
};

FIXTURE_VARIANT_ADD(sock, cons_unrel_nonblock_cloexec)
{
	.type = SOCK_CONS, .protocol = CONS_UNREL,
	.flags = SOCK_NONBLOCK | SOCK_CLOEXEC, .want_protocol = CONS_UNREL,
};

FIXTURE_VARIANT_ADD(sock, prod_default)
{
	.type = SOCK_PROD, .protocol = 0, .want_protocol = PROD_REL,
};

FIXTURE_VARIANT_ADD(sock, prod_rel)
{
	.type = SOCK_PROD, .protocol = PROD_REL, .want_protocol = PROD_REL,
};

FIXTURE_VARIANT_ADD(sock, prod_unrel)
{
	.type = SOCK_PROD, .protocol = PROD_UNREL, .want_protocol = PROD_UNREL,
};

FIXTURE_VARIANT_ADD(sock, prod_rel_nonblock_cloexec)
{
	.type = SOCK_PROD, .protocol = PROD_REL,
	.flags = SOCK_NONBLOCK | SOCK_CLOEXEC, .want_protocol = PROD_REL,
};

FIXTURE_SETUP(sock)
{
	self->family = hcn_family();
	self->fd = socket(self->family, variant->type | variant->flags,
			  variant->protocol);
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

	EXPECT_EQ(variant->type, sockopt_int(self->fd, SO_TYPE));
	EXPECT_EQ(variant->want_protocol, sockopt_int(self->fd, SO_PROTOCOL));
	EXPECT_EQ(self->family, sockopt_int(self->fd, SO_DOMAIN));

	fl = fcntl(self->fd, F_GETFL);
	EXPECT_EQ(!!(variant->flags & SOCK_NONBLOCK), !!(fl & O_NONBLOCK));
	fl = fcntl(self->fd, F_GETFD);
	EXPECT_EQ(!!(variant->flags & SOCK_CLOEXEC), !!(fl & FD_CLOEXEC));
}

TEST_F(sock, getname)
{
	struct sockaddr_hicn addr;
	socklen_t len = sizeof(addr);
	static const struct in6_addr any = IN6ADDR_ANY_INIT;

	memset(&addr, 0xa5, sizeof(addr));
	ASSERT_EQ(0, getsockname(self->fd, (struct sockaddr *)&addr, &len));
	EXPECT_EQ(sizeof(addr), len);
	EXPECT_EQ(self->family, addr.sin_family);
	EXPECT_EQ(0, addr.sin_prefix);
	EXPECT_EQ(0, memcmp(&addr.sin_addr, &any, sizeof(any)));

	len = sizeof(addr);
	EXPECT_EQ(-1, getpeername(self->fd, (struct sockaddr *)&addr, &len));
	EXPECT_EQ(ENOTCONN, errno);
}

/* The data path is not built yet: it must say so, not pretend. */
/*
 * The calls a socket type has no use for: a consumer does not send, a
 * producer neither receives nor connects, and neither listens or accepts.
 */
TEST_F(sock, calls_of_the_other_type_say_eopnotsupp)
{
	struct sockaddr_hicn addr = { .sin_family = self->family,
				      .sin_prefix = 64 };
	char buf[16] = "x";

	if (variant->type == SOCK_CONS) {
		EXPECT_EQ(-1, sendto(self->fd, buf, 1, 0,
				     (struct sockaddr *)&addr, sizeof(addr)));
		EXPECT_EQ(EOPNOTSUPP, errno);
		EXPECT_EQ(-1, send(self->fd, buf, 1, MSG_DONTWAIT));
		EXPECT_EQ(EOPNOTSUPP, errno);
		/* Nothing named yet: nothing to receive. */
		EXPECT_EQ(-1, recv(self->fd, buf, sizeof(buf), MSG_DONTWAIT));
		EXPECT_EQ(ENOTCONN, errno);
	} else {
		EXPECT_EQ(-1, connect(self->fd, (struct sockaddr *)&addr,
				      sizeof(addr)));
		EXPECT_EQ(EOPNOTSUPP, errno);
		EXPECT_EQ(-1, recv(self->fd, buf, sizeof(buf), MSG_DONTWAIT));
		EXPECT_EQ(EOPNOTSUPP, errno);
	}
	EXPECT_EQ(-1, listen(self->fd, 1));
	EXPECT_EQ(EOPNOTSUPP, errno);
	EXPECT_EQ(-1, accept(self->fd, NULL, NULL));
	EXPECT_EQ(EOPNOTSUPP, errno);
	EXPECT_EQ(0, shutdown(self->fd, SHUT_RDWR));
}

TEST_F(sock, options_of_the_other_type)
{
	socklen_t len = sizeof(int);
	int v = 1000;

	/* Each type refuses the other's options, and unknown numbers. */
	EXPECT_EQ(-1, setsockopt(self->fd, SOL_HICN,
				 variant->type == SOCK_CONS ? HICN_PACKET_SIZE :
				 HICN_INTEREST_LIFETIME, &v, sizeof(v)));
	EXPECT_EQ(ENOPROTOOPT, errno);
	EXPECT_EQ(-1, getsockopt(self->fd, SOL_HICN,
				 variant->type == SOCK_CONS ? HICN_PACKET_SIZE :
				 HICN_INTEREST_LIFETIME, &v, &len));
	EXPECT_EQ(ENOPROTOOPT, errno);
	EXPECT_EQ(-1, setsockopt(self->fd, SOL_HICN, 99, &v, sizeof(v)));
	EXPECT_EQ(ENOPROTOOPT, errno);
	EXPECT_EQ(-1, getsockopt(self->fd, SOL_HICN, 0, &v, &len));
	EXPECT_EQ(ENOPROTOOPT, errno);
	/* SOL_SOCKET options still work. */
	EXPECT_EQ(0, setsockopt(self->fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)));
}

TEST_F(sock, listed_in_proc)
{
	char line[512], want[64];
	unsigned long ino = sock_inode(self->fd);

	ASSERT_NE(0UL, ino);
	ASSERT_EQ(1, proc_find_inode("/proc/net/hicn", ino, line, sizeof(line)));
	EXPECT_NE(NULL, strstr(line, variant->type == SOCK_CONS ? " CONS " : " PROD "))
		TH_LOG("line: %s", line);
	snprintf(want, sizeof(want), " %s ", proto_names[variant->want_protocol]);
	EXPECT_NE(NULL, strstr(line, want)) TH_LOG("line: %s", line);

	close(self->fd);
	self->fd = -1;
	EXPECT_EQ(0, proc_find_inode("/proc/net/hicn", ino, line, sizeof(line)));
}

TEST_F(sock, inuse_follows_open_and_close)
{
	int before = proto_inuse("HICN"), fd2;

	ASSERT_LE(1, before);
	fd2 = socket(self->family, variant->type, variant->protocol);
	ASSERT_LE(0, fd2);
	EXPECT_EQ(before + 1, proto_inuse("HICN"));
	close(fd2);
	EXPECT_EQ(before, proto_inuse("HICN"));
}

TEST(bad_types_give_esocktnosupport)
{
	static const int types[] = { SOCK_STREAM, SOCK_DGRAM, SOCK_RAW,
				     SOCK_RDM, SOCK_SEQPACKET, SOCK_DCCP, 9,
				     SOCK_PACKET };
	int family = hcn_family();
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(types); i++) {
		EXPECT_EQ(-1, socket(family, types[i], 0))
			TH_LOG("type %d accepted", types[i]);
		EXPECT_EQ(ESOCKTNOSUPPORT, errno) TH_LOG("type %d", types[i]);
	}
	/* At or above SOCK_MAX the core refuses before asking us. */
	EXPECT_EQ(-1, socket(family, 11, 0));
	EXPECT_EQ(EINVAL, errno);
}

TEST(bad_protocols_give_eprotonosupport)
{
	static const struct { int type, protocol; } bad[] = {
		{ SOCK_CONS, PROD_REL }, { SOCK_CONS, PROD_UNREL },
		{ SOCK_CONS, HICN_PROTO_MAX + 1 }, { SOCK_CONS, 255 },
		{ SOCK_CONS, -1 }, { SOCK_CONS, 0x7fffffff },
		{ SOCK_PROD, CONS_REL }, { SOCK_PROD, CONS_UNREL },
		{ SOCK_PROD, HICN_PROTO_MAX + 1 }, { SOCK_PROD, -1 },
	};
	int family = hcn_family();
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(-1, socket(family, bad[i].type, bad[i].protocol))
			TH_LOG("type %d protocol %d accepted", bad[i].type,
			       bad[i].protocol);
		EXPECT_EQ(EPROTONOSUPPORT, errno)
			TH_LOG("type %d protocol %d", bad[i].type, bad[i].protocol);
	}
}

/*
 * The number published in sysfs is the one the kernel registered:
 * socket() makes AF_HICN sockets with it, and they say so (SO_DOMAIN,
 * getsockname(), a bind() with that sin_family); hcn_family() reads it.
 */
TEST(family_number_is_published)
{
	struct sockaddr_hicn a;
	FILE *f = fopen(HICN_FAMILY_PARAM, "r");
	int family = -1, fd, dom = -1;
	socklen_t len = sizeof(dom);

	ASSERT_NE(NULL, f);
	ASSERT_EQ(1, fscanf(f, "%d", &family));
	fclose(f);
	EXPECT_LT(0, family);
	EXPECT_GT(46, family);
	EXPECT_EQ(family, hcn_family());

	fd = socket(family, SOCK_CONS, CONS_REL);
	ASSERT_LE(0, fd) TH_LOG("socket(%d, SOCK_CONS): %s", family,
				strerror(errno));
	ASSERT_EQ(0, getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &len));
	EXPECT_EQ(family, dom);
	memset(&a, 0, sizeof(a));
	a.sin_family = family;
	a.sin_prefix = 64;
	a.sin_addr.s6_addr[0] = 0xb0;
	EXPECT_EQ(0, bind(fd, (struct sockaddr *)&a, sizeof(a)))
		TH_LOG("bind: %s", strerror(errno));
	memset(&a, 0, sizeof(a));
	len = sizeof(a);
	ASSERT_EQ(0, getsockname(fd, (struct sockaddr *)&a, &len));
	EXPECT_EQ(family, a.sin_family);
	close(fd);
}

TEST(sockaddr_layout)
{
	/* The uapi promises a fixed 32-byte structure. */
	EXPECT_EQ(32, sizeof(struct sockaddr_hicn));
	EXPECT_EQ(0, offsetof(struct sockaddr_hicn, sin_family));
	EXPECT_EQ(2, offsetof(struct sockaddr_hicn, sin_prefix));
	EXPECT_EQ(4, offsetof(struct sockaddr_hicn, sin_suffix));
	EXPECT_EQ(8, offsetof(struct sockaddr_hicn, sin_addr));
	EXPECT_EQ(24, offsetof(struct sockaddr_hicn, sin_zero));
}

/*
 * A socket made in another network namespace shows in that namespace's
 * /proc/net/hicn and socket count only.
 */
TEST(proc_is_per_netns)
{
	int family = hcn_family(), to_parent[2], to_child[2];
	int fd, inuse_before, status;
	unsigned long ino = 0;
	char line[512], c = 0;
	pid_t pid;

	ASSERT_EQ(0, pipe(to_parent));
	ASSERT_EQ(0, pipe(to_child));
	fd = socket(family, SOCK_PROD, 0);
	ASSERT_LE(0, fd);
	inuse_before = proto_inuse("HICN");

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		unsigned long mine;
		int cfd, ok = 1;

		if (unshare(CLONE_NEWNET))
			_exit(10);
		/* The parent's socket is not listed here. */
		if (proc_find_inode("/proc/net/hicn", sock_inode(fd), line,
				    sizeof(line)) != 0)
			ok = 0;
		if (proto_inuse("HICN") != 0)
			ok = 0;
		cfd = socket(family, SOCK_CONS, 0);
		if (cfd < 0)
			_exit(11);
		mine = sock_inode(cfd);
		if (proc_find_inode("/proc/net/hicn", mine, line,
				    sizeof(line)) != 1 || proto_inuse("HICN") != 1)
			ok = 0;
		if (write(to_parent[1], &mine, sizeof(mine)) != sizeof(mine))
			_exit(12);
		if (read(to_child[0], &c, 1) != 1)
			_exit(13);
		close(cfd);
		_exit(ok ? 0 : 14);
	}

	ASSERT_EQ(sizeof(ino), read(to_parent[0], &ino, sizeof(ino)));
	EXPECT_EQ(0, proc_find_inode("/proc/net/hicn", ino, line, sizeof(line)));
	EXPECT_EQ(1, proc_find_inode("/proc/net/hicn", sock_inode(fd), line,
				     sizeof(line)));
	EXPECT_EQ(inuse_before, proto_inuse("HICN"));
	ASSERT_EQ(1, write(to_child[1], &c, 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	close(fd);
}

TEST_HARNESS_MAIN
