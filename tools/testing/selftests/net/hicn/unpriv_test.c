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
 * - Inside unshare -Urn the caller owns the netns: any prefix is allowed
 *   there, but the netns-wide limits (pit_max, pit_user_max,
 *   cs_max_entries, cs_mem_max, prod_mem_max) start at the initial
 *   namespace's values and can only be lowered (EPERM above).
 * - A producer's default send buffer is a quarter of prod_mem_max: one
 *   socket filling it leaves room for the others; and
 *   net.hicn.prod_user_mem_max bounds what all the producers of one user
 *   hold: nobody filling four sockets leaves room for root.
 * - net.hicn.pit_user_max bounds the PIT in-records of one user: nobody
 *   opening 64 waiting consumers in a 64-entry PIT cannot make root's
 *   fetch time out; refused interests count in pit_drops and
 *   pit_user_drops.
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

/* Write @s to @path; 0 or errno. */
static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	int err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		err = errno;
	close(fd);
	return err;
}

/* As unshare -Urn: a user namespace where we are root, a netns in it. */
static int unshare_urn(void)
{
	char map[64];
	uid_t uid = getuid();
	gid_t gid = getgid();
	int err;

	if (unshare(CLONE_NEWUSER))
		return errno;
	snprintf(map, sizeof(map), "0 %u 1", uid);
	err = write_file("/proc/self/uid_map", map);
	if (!err)
		err = write_file("/proc/self/setgroups", "deny");
	snprintf(map, sizeof(map), "0 %u 1", gid);
	if (!err)
		err = write_file("/proc/self/gid_map", map);
	if (!err && unshare(CLONE_NEWNET))
		err = errno;
	return err;
}

/* A producer bound to @addr/@plen: 0 or errno; the socket is closed. */
static int claim(const char *addr, int plen)
{
	struct sockaddr_hicn ns = ht_name(addr, plen, 0);
	int fd = socket(hcn_family(), SOCK_PROD, PROD_REL);
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

/* The netns-wide limits and the value each is raised to. */
static const struct {
	const char *name;
	const char *raised;
	const char *lowered;
} limits[] = {
	{ "pit_max",		"1000000",	"100" },
	{ "pit_user_max",	"1000000",	"100" },
	{ "cs_max_entries",	"1000000",	"100" },
	{ "cs_mem_max",		"1073741824",	"1048576" },
	{ "prod_mem_max",	"1073741824",	"1048576" },
	{ "prod_user_mem_max",	"1073741824",	"1048576" },
};

#define NLIMITS	ARRAY_SIZE(limits)

/*
 * Inside unshare -Urn: bit i of the result set when limit i could be
 * raised, bit 8 + i when it could not be lowered, bit 16 + i when it did
 * not start at the initial namespace's value (passed in @arg).
 */
static int urn_limits(void *arg)
{
	const long *init = arg;
	char path[128];
	int i, ret = 0;

	if (unshare_urn())
		return 1 << 24;
	for (i = 0; i < (int)NLIMITS; i++) {
		snprintf(path, sizeof(path), HT_SYSCTL("%s"), limits[i].name);
		if (sysctl_get(path) != init[i])
			ret |= 1 << (16 + i);
		if (sysctl_set(path, limits[i].raised) != EPERM)
			ret |= 1 << i;
		if (sysctl_set(path, limits[i].lowered))
			ret |= 1 << (8 + i);
	}
	return ret;
}

/* An exit status carries 8 bits: which limits could be raised, flags. */
static int urn_limits_status(void *arg)
{
	int r = urn_limits(arg);

	return (r & 0x3f) | (r & (0xffff << 8) ? 0x40 : 0) |
	       (r & (1 << 24) ? 0x80 : 0);
}

TEST(userns_cannot_raise_limits)
{
	long init[NLIMITS];
	char path[128];
	int i, r;

	for (i = 0; i < (int)NLIMITS; i++) {
		snprintf(path, sizeof(path), HT_SYSCTL("%s"), limits[i].name);
		init[i] = sysctl_get(path);
	}
	r = in_child(urn_limits_status, init);
	EXPECT_EQ(0, r & 0x80) TH_LOG("unshare -Urn failed");
	for (i = 0; i < (int)NLIMITS; i++)
		if (r & (1 << i))
			TH_LOG("raised from a user namespace: %s",
			       limits[i].name ?: "?");
	EXPECT_EQ(0, r & 0x3f);
	EXPECT_EQ(0, r & 0x40)
		TH_LOG("a limit did not start at init's value or stayed high");
}

/* The initial namespace lowered pit_max: a user namespace inherits that. */
static int urn_pit_max(void *arg)
{
	(void)arg;
	if (unshare_urn())
		return 255;
	return sysctl_get(HT_SYSCTL("pit_max")) == 1000 &&
	       sysctl_set(HT_SYSCTL("pit_max"), "1001") == EPERM &&
	       !sysctl_set(HT_SYSCTL("pit_max"), "1000") ? 0 : 1;
}

TEST(userns_inherits_lowered_limit)
{
	char old[32];

	snprintf(old, sizeof(old), "%d", sysctl_get(HT_SYSCTL("pit_max")));
	ASSERT_EQ(0, sysctl_set(HT_SYSCTL("pit_max"), "1000"));
	EXPECT_EQ(0, in_child(urn_pit_max, NULL));
	ASSERT_EQ(0, sysctl_set(HT_SYSCTL("pit_max"), old));
}

/*
 * The owner of a user namespace's netns claims any prefix there: it has
 * CAP_NET_ADMIN in the netns's user namespace, none in the initial one.
 */
static int urn_claims(void *arg)
{
	(void)arg;
	if (unshare_urn())
		return 255;
	return claim("b000::", 4);
}

TEST(userns_owner_claims_any_prefix)
{
	EXPECT_EQ(0, in_child(urn_claims, NULL));
}

#define MIB		(1024 * 1024)

/* Publish 1 MiB objects that never expire until it fails; the errno. */
static int fill(int prod, const char *addr, const char *buf, int *n)
{
	for (*n = 0; *n < 1024; (*n)++)
		if (ht_publish(prod, addr, buf, MIB, MSG_DONTWAIT) != MIB)
			return errno;
	return 0;
}

TEST(default_sndbuf_is_a_share)
{
	struct sockaddr_hicn ns2 = ht_name("b001:a:b:d::", 64, 0);
	socklen_t l = sizeof(int);
	int a, b, sb = 0, n;
	char *buf = calloc(1, MIB);

	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, ht_enter_netns());
	ASSERT_EQ(0, sysctl_set(HT_SYSCTL("prod_mem_max"), "67108864"));
	a = ht_producer(PROD_REL);
	ASSERT_LE(0, a);
	ASSERT_EQ(0, ht_setint(a, HICN_CONTENT_EXPIRY, 0));
	ASSERT_EQ(0, getsockopt(a, SOL_SOCKET, SO_SNDBUF, &sb, &l));
	EXPECT_EQ(16 * MIB, sb);
	/* The first socket runs out of send buffer, not the netns of room. */
	EXPECT_EQ(EAGAIN, fill(a, HT_NAME, buf, &n));
	EXPECT_GE(16, n);
	/* So another producer still publishes. */
	b = socket(hcn_family(), SOCK_PROD, PROD_REL);
	ASSERT_LE(0, b);
	ASSERT_EQ(0, bind(b, (struct sockaddr *)&ns2, sizeof(ns2)));
	EXPECT_EQ(MIB, ht_publish(b, "b001:a:b:d::1", buf, MIB, MSG_DONTWAIT))
		TH_LOG("second producer: %s", strerror(errno));
	close(b);
	close(a);
	free(buf);
}

/*
 * nobody fills four producers of its own with 1 MiB objects, tells the
 * parent through @arg[3] how many went in (at most 255) and stays until
 * @arg[0] closes.
 */
static int prod_hog(void *arg)
{
	int *pipes = arg, p[4], i, n, total = 0;
	char *buf = calloc(1, MIB), addr[64];
	unsigned char x;

	close(pipes[1]);
	close(pipes[2]);
	if (!buf || become_nobody())
		return 255;
	for (i = 0; i < 4; i++) {
		struct sockaddr_hicn ns;

		snprintf(addr, sizeof(addr), "b001:a:b:%x::", 0x10 + i);
		ns = ht_name(addr, 64, 0);
		p[i] = socket(hcn_family(), SOCK_PROD, PROD_REL);
		if (p[i] < 0 || bind(p[i], (struct sockaddr *)&ns, sizeof(ns)) ||
		    ht_setint(p[i], HICN_CONTENT_EXPIRY, 0))
			return 1;
		snprintf(addr, sizeof(addr), "b001:a:b:%x::1", 0x10 + i);
		fill(p[i], addr, buf, &n);
		total += n;
	}
	x = total > 255 ? 255 : total;
	if (write(pipes[3], &x, 1) != 1)
		return 3;
	if (read(pipes[0], &x, 1) < 0)
		return 4;
	return 0;
}

TEST(prod_user_quota)
{
	int go[2], ready[2], args[4], prod, n, status;
	char *buf = calloc(1, MIB);
	unsigned char total;
	pid_t pid;

	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, ht_enter_netns());
	ASSERT_EQ(0, sysctl_set(HT_SYSCTL("prod_mem_max"), "67108864"));
	EXPECT_EQ(0, sysctl_set(HT_SYSCTL("prod_user_mem_max"), "33554432"));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(ready));
	args[0] = go[0];
	args[1] = go[1];
	args[2] = ready[0];
	args[3] = ready[1];
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(prod_hog(args));
	close(go[0]);
	close(ready[1]);
	ASSERT_EQ(1, read(ready[0], &total, 1));
	/* 32 MiB less what each object and name costs beyond its bytes. */
	EXPECT_GE(32, total);
	EXPECT_LE(28, total);

	/* root still has room in the netns. */
	prod = ht_producer(PROD_REL);
	ASSERT_LE(0, prod);
	ASSERT_EQ(0, ht_setint(prod, HICN_CONTENT_EXPIRY, 0));
	EXPECT_EQ(EAGAIN, fill(prod, HT_NAME, buf, &n));
	EXPECT_LE(15, n);
	close(prod);

	close(go[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	EXPECT_EQ(0, ht_stat("prod_mem"));
	close(ready[0]);
	free(buf);
}

#define HOGS		64

/*
 * nobody opens HOGS consumers, each waiting for a name nobody published,
 * tells the parent through @arg[1] and stays until @arg[0] closes.
 */
static int pit_hog(void *arg)
{
	int *pipes = arg, c[HOGS], i;
	char name[64], x = 0;

	close(pipes[1]);
	close(pipes[2]);
	if (become_nobody())
		return 255;
	for (i = 0; i < HOGS; i++) {
		c[i] = socket(hcn_family(), SOCK_CONS | SOCK_NONBLOCK,
			      CONS_UNREL);
		if (c[i] < 0 ||
		    ht_setint(c[i], HICN_INTEREST_LIFETIME, 60000) ||
		    ht_setint(c[i], HICN_WINDOW, 1))
			return 1;
		snprintf(name, sizeof(name), "b001:a:b:c::%x", 0x100 + i);
		if (ht_connect(c[i], name, 0))
			return 2;
	}
	if (write(pipes[3], &x, 1) != 1)
		return 3;
	/* Until the parent closes its end. */
	if (read(pipes[0], &x, 1) < 0)
		return 4;
	return 0;
}

TEST(pit_user_quota)
{
	int go[2], ready[2], args[4], prod, c, status, i;
	size_t len = 16 * 1000;
	char *src = malloc(len), *dst = malloc(len + 1);
	long long t0;
	pid_t pid;
	char x;

	ASSERT_NE(NULL, src);
	ASSERT_NE(NULL, dst);
	ht_fill(src, len, 7);
	ASSERT_EQ(0, ht_enter_netns());
	prod = ht_producer(PROD_REL);
	ASSERT_LE(0, prod);
	ASSERT_EQ((ssize_t)len, ht_publish(prod, HT_NAME, src, len, 0));
	ASSERT_EQ(0, sysctl_set(HT_SYSCTL("pit_max"), "64"));
	EXPECT_EQ(0, sysctl_set(HT_SYSCTL("pit_user_max"), "16"));
	t0 = ht_stat("pit_drops");

	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(ready));
	args[0] = go[0];
	args[1] = go[1];
	args[2] = ready[0];
	args[3] = ready[1];
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(pit_hog(args));
	close(go[0]);
	close(ready[1]);
	ASSERT_EQ(1, read(ready[0], &x, 1));
	/* Every hog interest gets into the PIT or is refused. */
	for (i = 0; i < 1000; i++) {
		if (ht_stat("pit_entries") + ht_stat("pit_drops") - t0 >= HOGS)
			break;
		ht_sleep_ms(10);
	}
	EXPECT_EQ(HOGS, ht_stat("pit_entries") + ht_stat("pit_drops") - t0);
	EXPECT_EQ(16, ht_stat("pit_entries"));
	EXPECT_EQ(HOGS - 16, ht_stat("pit_user_drops"));
	EXPECT_EQ(HOGS - 16, ht_stat("pit_drops") - t0);

	/* Root's fetch is not starved. */
	c = ht_consumer(CONS_REL, HT_NAME, 0);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, ht_setint(c, HICN_INTEREST_LIFETIME, 500));
	ASSERT_EQ(0, ht_setint(c, HICN_RETX_LIMIT, 1));
	EXPECT_EQ((ssize_t)len, recv(c, dst, len + 1, 0))
		TH_LOG("fetch: %s", strerror(errno));
	EXPECT_EQ(0, memcmp(src, dst, len));
	close(c);

	close(go[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	/* The hog's records went with its sockets. */
	EXPECT_EQ(0, ht_stat("pit_entries"));
	close(ready[0]);
	close(prod);
	free(src);
	free(dst);
}

TEST_HARNESS_MAIN
