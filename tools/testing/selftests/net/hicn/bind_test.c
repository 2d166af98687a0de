// SPDX-License-Identifier: GPL-2.0
/*
 * AF_HICN bind(): a producer claims a namespace of its network namespace;
 * identical or overlapping claims fail with EADDRINUSE, bad names with
 * EINVAL, and a claim ends when its socket closes.  Consumers name the
 * namespace they fetch from and may overlap anyone.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>

#include "hcn.h"
#include "test_util.h"
#include "kselftest_harness.h"

static struct sockaddr_hicn name(const char *prefix, int plen)
{
	struct sockaddr_hicn a = {
		.sin_family = hcn_family(),
		.sin_prefix = plen,
	};

	if (hcn_pton(AF_HICN, prefix, &a.sin_addr) != 1)
		a.sin_family = 0;
	return a;
}

static int bind_name(int fd, const char *prefix, int plen)
{
	struct sockaddr_hicn a = name(prefix, plen);

	return bind(fd, (struct sockaddr *)&a, sizeof(a));
}

FIXTURE(prod)
{
	int a, b;
};

FIXTURE_SETUP(prod)
{
	self->a = socket(hcn_family(), SOCK_PROD, PROD_REL);
	self->b = socket(hcn_family(), SOCK_PROD, PROD_UNREL);
	ASSERT_LE(0, self->a);
	ASSERT_LE(0, self->b);
}

FIXTURE_TEARDOWN(prod)
{
	close(self->a);
	close(self->b);
}

TEST_F(prod, claim_and_getsockname)
{
	struct sockaddr_hicn want = name("b001:a:b:c::", 64), got;
	socklen_t len = sizeof(got);

	/* Host bits beyond the prefix length are cleared. */
	ASSERT_EQ(0, bind_name(self->a, "b001:a:b:c::1234", 64));
	ASSERT_EQ(0, getsockname(self->a, (struct sockaddr *)&got, &len));
	EXPECT_EQ(sizeof(got), len);
	EXPECT_EQ(want.sin_family, got.sin_family);
	EXPECT_EQ(64, got.sin_prefix);
	EXPECT_EQ(0, memcmp(&want.sin_addr, &got.sin_addr, sizeof(want.sin_addr)));
}

TEST_F(prod, identical_claim_eaddrinuse)
{
	ASSERT_EQ(0, bind_name(self->a, "b001:a:b:c::", 64));
	EXPECT_EQ(-1, bind_name(self->b, "b001:a:b:c::", 64));
	EXPECT_EQ(EADDRINUSE, errno);
}

TEST_F(prod, overlapping_claims_eaddrinuse)
{
	ASSERT_EQ(0, bind_name(self->a, "b001:a:b:c::", 64));
	/* Contained in the claim. */
	EXPECT_EQ(-1, bind_name(self->b, "b001:a:b:c:1::", 80));
	EXPECT_EQ(EADDRINUSE, errno);
	EXPECT_EQ(-1, bind_name(self->b, "b001:a:b:c::1", 128));
	EXPECT_EQ(EADDRINUSE, errno);
	/* Containing the claim. */
	EXPECT_EQ(-1, bind_name(self->b, "b001:a::", 32));
	EXPECT_EQ(EADDRINUSE, errno);
	EXPECT_EQ(-1, bind_name(self->b, "8000::", 1));
	EXPECT_EQ(EADDRINUSE, errno);
	/* Disjoint: fine. */
	EXPECT_EQ(0, bind_name(self->b, "b001:a:b:d::", 64));
}

TEST_F(prod, claim_ends_with_the_socket)
{
	int c;

	ASSERT_EQ(0, bind_name(self->a, "b001:a:b:c::", 64));
	close(self->a);
	self->a = socket(hcn_family(), SOCK_PROD, 0);
	ASSERT_LE(0, self->a);
	EXPECT_EQ(0, bind_name(self->b, "b001:a:b:c::", 64));
	c = socket(hcn_family(), SOCK_PROD, 0);
	ASSERT_LE(0, c);
	EXPECT_EQ(-1, bind_name(c, "b001:a:b:c::", 64));
	EXPECT_EQ(EADDRINUSE, errno);
	close(c);
}

TEST_F(prod, second_bind_einval)
{
	ASSERT_EQ(0, bind_name(self->a, "b001:a:b:c::", 64));
	EXPECT_EQ(-1, bind_name(self->a, "b001:a:b:d::", 64));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, bind_name(self->a, "b001:a:b:c::", 64));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(prod, bad_names_einval)
{
	struct sockaddr_hicn a = name("b001:a:b:c::", 64);
	struct sockaddr_storage big = { 0 };

	EXPECT_EQ(-1, bind(self->a, (struct sockaddr *)&a, sizeof(a) - 1));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, bind(self->a, (struct sockaddr *)&a, 2));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, bind(self->a, NULL, 0));
	EXPECT_EQ(EINVAL, errno);

	a.sin_family = AF_INET6;
	EXPECT_EQ(-1, bind(self->a, (struct sockaddr *)&a, sizeof(a)));
	EXPECT_EQ(EINVAL, errno);
	a = name("b001:a:b:c::", 129);
	EXPECT_EQ(-1, bind(self->a, (struct sockaddr *)&a, sizeof(a)));
	EXPECT_EQ(EINVAL, errno);
	a = name("b001:a:b:c::", 255);
	EXPECT_EQ(-1, bind(self->a, (struct sockaddr *)&a, sizeof(a)));
	EXPECT_EQ(EINVAL, errno);
	a = name("b001:a:b:c::", 64);
	a.sin_flags = 1;
	EXPECT_EQ(-1, bind(self->a, (struct sockaddr *)&a, sizeof(a)));
	EXPECT_EQ(EINVAL, errno);
	a = name("b001:a:b:c::", 64);
	a.sin_zero[7] = 1;
	EXPECT_EQ(-1, bind(self->a, (struct sockaddr *)&a, sizeof(a)));
	EXPECT_EQ(EINVAL, errno);
	/* A producer cannot claim the whole name space. */
	a = name("::", 0);
	EXPECT_EQ(-1, bind(self->a, (struct sockaddr *)&a, sizeof(a)));
	EXPECT_EQ(EINVAL, errno);

	/* None of these left a claim behind. */
	EXPECT_EQ(0, bind_name(self->b, "b001:a:b:c::", 64));

	/* A longer buffer holding a valid name is accepted, as inet does. */
	a = name("b001:a:b:e::", 64);
	memcpy(&big, &a, sizeof(a));
	EXPECT_EQ(0, bind(self->a, (struct sockaddr *)&big, sizeof(big)));
}

TEST(consumers_may_overlap)
{
	int p = socket(hcn_family(), SOCK_PROD, 0);
	int c1 = socket(hcn_family(), SOCK_CONS, 0);
	int c2 = socket(hcn_family(), SOCK_CONS, CONS_UNREL);

	ASSERT_LE(0, p);
	ASSERT_LE(0, c1);
	ASSERT_LE(0, c2);
	ASSERT_EQ(0, bind_name(p, "b001:a:b:c::", 64));
	EXPECT_EQ(0, bind_name(c1, "b001:a:b:c::", 64));
	EXPECT_EQ(0, bind_name(c2, "::", 0));
	EXPECT_EQ(-1, bind_name(c2, "b001::", 16));
	EXPECT_EQ(EINVAL, errno);
	close(p);
	close(c1);
	close(c2);
}

TEST(proc_shows_claims)
{
	int p = socket(hcn_family(), SOCK_PROD, 0);
	char line[512];

	ASSERT_LE(0, p);
	ASSERT_EQ(1, proc_find_inode("/proc/net/hicn", sock_inode(p), line,
				     sizeof(line)));
	EXPECT_NE(NULL, strstr(line, " -\n")) TH_LOG("line: %s", line);
	ASSERT_EQ(0, bind_name(p, "b001:a:b:c::99", 64));
	ASSERT_EQ(1, proc_find_inode("/proc/net/hicn", sock_inode(p), line,
				     sizeof(line)));
	EXPECT_NE(NULL, strstr(line, " b001:a:b:c::/64\n")) TH_LOG("line: %s", line);
	close(p);
}

/* The same namespace can be claimed in another network namespace. */
TEST(claims_are_per_netns)
{
	int p = socket(hcn_family(), SOCK_PROD, 0), status;
	pid_t pid;

	ASSERT_LE(0, p);
	ASSERT_EQ(0, bind_name(p, "b001:a:b:c::", 64));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int q;

		if (unshare(CLONE_NEWNET))
			_exit(1);
		q = socket(hcn_family(), SOCK_PROD, 0);
		if (q < 0 || bind_name(q, "b001:a:b:c::", 64))
			_exit(2);
		close(q);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	close(p);
}

/* Many producers claiming and releasing leave the table empty. */
/* 2000 rounds take about 20 s on the debug kernel under TCG. */
FIXTURE(cycle)
{
};

FIXTURE_SETUP(cycle)
{
}

FIXTURE_TEARDOWN(cycle)
{
}

TEST_F_TIMEOUT(cycle, claim_release_cycles, 300)
{
	char prefix[64];
	int i, fd;

	for (i = 0; i < 2000; i++) {
		fd = socket(hcn_family(), SOCK_PROD, 0);
		ASSERT_LE(0, fd);
		snprintf(prefix, sizeof(prefix), "b001:%x::", i % 7);
		ASSERT_EQ(0, bind_name(fd, prefix, 32)) TH_LOG("round %d", i);
		close(fd);
	}
}

TEST_HARNESS_MAIN
