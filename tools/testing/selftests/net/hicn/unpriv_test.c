// SPDX-License-Identifier: GPL-2.0
/*
 * AF_HICN and unprivileged users (Documentation/hicn-api.rst, "Unprivileged
 * users").  Each test runs in a network namespace of its own; "nobody" is
 * a child that dropped to uid/gid 65534 as setpriv --reuid=nobody
 * --regid=nogroup --clear-groups does, "unshare -Urn" is a child that made
 * a user namespace mapping itself to root, then a network namespace, as
 * unshare(1) does.
 *
 * - A producer without CAP_NET_ADMIN in the netns's user namespace claims
 *   only prefixes of net.hicn.unprivileged_prefix_min bits or longer
 *   (default 64); a shorter one is EACCES, root may claim it.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>

#include "hicn_test.h"
#include "kselftest_harness.h"

#define NOBODY		65534

/* Drop to nobody/nogroup, no supplementary groups; 0 or errno. */
static int become_nobody(void)
{
	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY))
		return errno;
	return 0;
}

/* A producer bound to @addr/@plen: 0 or errno; the socket is closed. */
static int claim(const char *addr, int plen)
{
	struct sockaddr_hicn ns = ht_name(addr, plen, 0);
	int fd = socket(hicn_family(), SOCK_PROD, PROD_REL);
	int err = 0;

	if (fd < 0)
		return errno;
	if (bind(fd, (struct sockaddr *)&ns, sizeof(ns)))
		err = errno;
	close(fd);
	return err;
}

/*
 * Run @fn in a child; returns its exit status (what @fn returned), or 255
 * when it died.
 */
static int in_child(int (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return 255;
	if (!pid)
		_exit(fn(arg));
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 255;
	return WEXITSTATUS(status);
}

/* nobody claims @arg ("prefix/len"): the errno of bind(), 0 on success. */
static int nobody_claims(void *arg)
{
	char addr[64];
	int plen, err;

	if (sscanf(arg, "%63[^/]/%d", addr, &plen) != 2)
		return 254;
	err = become_nobody();
	if (err)
		return 253;
	return claim(addr, plen);
}

TEST(prefix_min_default)
{
	ASSERT_EQ(0, ht_enter_netns());
	EXPECT_EQ(64, sysctl_get(HT_SYSCTL("unprivileged_prefix_min")));
	/* Shorter than 64 bits: only with CAP_NET_ADMIN. */
	EXPECT_EQ(EACCES, in_child(nobody_claims, "b001:a::/32"));
	EXPECT_EQ(EACCES, in_child(nobody_claims, "b001:a:b:c::/63"));
	EXPECT_EQ(EACCES, in_child(nobody_claims, "b000::/4"));
	/* 64 bits and more: anyone. */
	EXPECT_EQ(0, in_child(nobody_claims, "b001:a:b:c::/64"));
	EXPECT_EQ(0, in_child(nobody_claims, "b001:a:b:c::1/128"));
	/* Root claims anything. */
	EXPECT_EQ(0, claim("b000::", 4));
}

TEST(prefix_min_sysctl)
{
	ASSERT_EQ(0, ht_enter_netns());
	ASSERT_EQ(0, sysctl_set(HT_SYSCTL("unprivileged_prefix_min"), "32"));
	EXPECT_EQ(32, sysctl_get(HT_SYSCTL("unprivileged_prefix_min")));
	EXPECT_EQ(0, in_child(nobody_claims, "b001:a::/32"));
	EXPECT_EQ(EACCES, in_child(nobody_claims, "b001::/31"));
	/* 0: no restriction; above 128: refused. */
	ASSERT_EQ(0, sysctl_set(HT_SYSCTL("unprivileged_prefix_min"), "0"));
	EXPECT_EQ(0, in_child(nobody_claims, "b000::/4"));
	EXPECT_EQ(EINVAL, sysctl_set(HT_SYSCTL("unprivileged_prefix_min"), "129"));
	/* A claim refused for the privilege leaves nothing behind. */
	ASSERT_EQ(0, sysctl_set(HT_SYSCTL("unprivileged_prefix_min"), "128"));
	EXPECT_EQ(EACCES, in_child(nobody_claims, "b001:a:b:c::/64"));
	EXPECT_EQ(0, ht_stat("fib_entries"));
}

TEST_HARNESS_MAIN
