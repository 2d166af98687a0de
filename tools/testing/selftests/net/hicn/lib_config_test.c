// SPDX-License-Identifier: GPL-2.0
/*
 * libhcn's configuration functions (userspace/lib/hcn_nl.c) against the
 * real "hicn" and "psock" generic netlink families: every function once
 * with success, errors with the kernel's extack message
 * (hcn_extack_msg()), and an unprivileged user (nobody, no capabilities)
 * who can read but gets -EPERM for every change.  Each test runs in a
 * network namespace of its own.
 */
#include <pthread.h>
#include <sys/wait.h>
#include <linux/psock.h>

#include "hicn_test.h"
#include "kselftest_harness.h"

#define NOBODY	65534

static struct in6_addr addr6(const char *text)
{
	struct in6_addr a;

	memset(&a, 0, sizeof(a));
	inet_pton(AF_INET6, text, &a);
	return a;
}

static int count_ns(const struct hcn_namespace *ns, void *arg)
{
	struct in6_addr want = addr6(HT_NS);

	if (ns->prefix_len == HT_NS_LEN &&
	    !memcmp(&ns->prefix, &want, sizeof(want)) &&
	    (ns->attrs & HCN_ATTR(HICN_A_NAMESPACE_UID)))
		(*(int *)arg)++;
	return 0;
}

static int stop_at_first(const struct hcn_namespace *ns, void *arg)
{
	(void)ns;
	(void)arg;
	return 42;
}

static int count_entries(const struct hcn_cs_entry *e, void *arg)
{
	if (e->attrs & HCN_ATTR(HICN_A_CS_ENTRY_NAME))
		(*(int *)arg)++;
	return 0;
}

static int count_endpoints(const struct hcn_psock_endpoint *ep, void *arg)
{
	(void)ep;
	(*(int *)arg)++;
	return 0;
}

FIXTURE(cfg)
{
	int	dummy;
};

FIXTURE_SETUP(cfg)
{
	ASSERT_EQ(0, ht_enter_netns());
	ASSERT_LT(0, hcn_genl_family(HICN_FAMILY_NAME));
	ASSERT_LT(0, hcn_genl_family(PSOCK_FAMILY_NAME));
}

FIXTURE_TEARDOWN(cfg)
{
}

/* Namespaces: a dump and a get see the claim; a missing one is ENOENT. */
TEST_F(cfg, namespace)
{
	struct in6_addr p = addr6(HT_NS);
	struct hcn_namespace ns;
	int fd, n = 0;

	fd = ht_producer(PROD_REL);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, hcn_namespace_dump(count_ns, &n));
	EXPECT_EQ(1, n);
	EXPECT_EQ(42, hcn_namespace_dump(stop_at_first, NULL));

	memset(&ns, 0, sizeof(ns));
	ASSERT_EQ(0, hcn_namespace_get(&p, HT_NS_LEN, &ns));
	EXPECT_EQ(HT_NS_LEN, ns.prefix_len);
	EXPECT_EQ(getuid(), ns.uid);
	EXPECT_NE(0, ns.inode);
	EXPECT_TRUE(ns.attrs & HCN_ATTR(HICN_A_NAMESPACE_MEM));
	EXPECT_STREQ("", hcn_extack_msg());

	EXPECT_EQ(-ENOENT, hcn_namespace_get(&p, 48, &ns));
	EXPECT_STREQ("no namespace claimed with this prefix", hcn_extack_msg());
	EXPECT_EQ(-EINVAL, hcn_namespace_get(&p, 129, &ns));
	EXPECT_STREQ("prefix length over 128", hcn_extack_msg());
	/* The next call starts with no message. */
	EXPECT_EQ(0, hcn_namespace_get(&p, HT_NS_LEN, NULL));
	EXPECT_STREQ("", hcn_extack_msg());
	close(fd);
	EXPECT_EQ(-ENOENT, hcn_namespace_get(&p, HT_NS_LEN, NULL));
}

/* Content store: stats, capacity, entries, flush. */
TEST_F(cfg, content_store)
{
	struct in6_addr p = addr6(HT_NS), name;
	struct hcn_cs cs, set = {};
	struct hcn_cs_entry e;
	char buf[3000];
	int prod, cons, n = 0;

	ASSERT_EQ(0, hcn_cs_get(&cs));
	EXPECT_TRUE(cs.attrs & HCN_ATTR(HICN_A_CS_MAX_ENTRIES));
	EXPECT_LT(0, cs.max_entries);

	set.attrs = HCN_ATTR(HICN_A_CS_MAX_ENTRIES);
	set.max_entries = 777;
	ASSERT_EQ(0, hcn_cs_set(&set));
	ASSERT_EQ(0, hcn_cs_get(&cs));
	EXPECT_EQ(777, cs.max_entries);
	set.attrs = 0;
	EXPECT_EQ(-EINVAL, hcn_cs_set(&set));
	EXPECT_STREQ("no capacity to set", hcn_extack_msg());

	/* An object fetched once is in the store: 2 segments. */
	prod = ht_producer(PROD_REL);
	ASSERT_LE(0, prod);
	ht_fill(buf, sizeof(buf), 1);
	ASSERT_EQ((ssize_t)sizeof(buf), ht_publish(prod, HT_NAME, buf, sizeof(buf), 0));
	cons = socket(hcn_family(), SOCK_CONS, CONS_REL);
	ASSERT_LE(0, cons);
	ASSERT_EQ(0, ht_connect(cons, HT_NAME, 0));
	ASSERT_EQ((ssize_t)sizeof(buf), ht_read_stream(cons, buf, sizeof(buf), 1500));
	close(cons);

	ASSERT_EQ(0, hcn_cs_entry_dump(&p, HT_NS_LEN, count_entries, &n));
	EXPECT_LE(2, n);
	n = 0;
	ASSERT_EQ(0, hcn_cs_entry_dump(NULL, 0, count_entries, &n));
	EXPECT_LE(2, n);
	name = addr6(HT_NAME);
	ASSERT_EQ(0, hcn_cs_entry_get(&name, 1, 0, &e));
	EXPECT_EQ(0, memcmp(&name, &e.name, sizeof(name)));
	EXPECT_EQ(sizeof(buf), e.object_size);
	EXPECT_EQ(-ENOENT, hcn_cs_entry_get(&name, 1, 99, &e));
	EXPECT_STREQ("no such entry in the content store", hcn_extack_msg());

	EXPECT_EQ(-EINVAL, hcn_cs_flush(&p, 200));
	EXPECT_STREQ("prefix length over 128", hcn_extack_msg());
	EXPECT_EQ(-EINVAL, hcn_cs_flush(&p, 256));	/* found by the library */
	EXPECT_STRNE("", hcn_extack_msg());
	ASSERT_EQ(0, hcn_cs_flush(&p, HT_NS_LEN));
	n = 0;
	ASSERT_EQ(0, hcn_cs_entry_dump(&p, HT_NS_LEN, count_entries, &n));
	EXPECT_EQ(0, n);
	ASSERT_EQ(0, hcn_cs_flush(NULL, 0));
	ASSERT_EQ(0, hcn_cs_get(&cs));
	EXPECT_EQ(0, cs.entries);
	close(prod);
}

/* PIT, limits and counters. */
TEST_F(cfg, pit_limits_counters)
{
	struct hcn_limits l, set = {};
	struct hcn_counters c;
	struct hcn_pit pit;

	ASSERT_EQ(0, hcn_pit_get(&pit));
	EXPECT_TRUE(pit.attrs & HCN_ATTR(HICN_A_PIT_ENTRIES_MAX));
	EXPECT_EQ(0, pit.entries);

	ASSERT_EQ(0, hcn_limits_get(&l));
	EXPECT_EQ(pit.entries_max, l.pit_max);
	set.attrs = HCN_ATTR(HICN_A_LIMITS_PIT_MAX) |
		    HCN_ATTR(HICN_A_LIMITS_CS_MEM_MAX);
	set.pit_max = 1234;
	set.cs_mem_max = 1 << 20;
	ASSERT_EQ(0, hcn_limits_set(&set));
	ASSERT_EQ(0, hcn_limits_get(&l));
	EXPECT_EQ(1234, l.pit_max);
	EXPECT_EQ(1 << 20, l.cs_mem_max);
	set.attrs = 0;
	EXPECT_EQ(-EINVAL, hcn_limits_set(&set));
	EXPECT_STREQ("no limit to set", hcn_extack_msg());
	set.attrs = HCN_ATTR(HICN_A_LIMITS_UNPRIVILEGED_PREFIX_MIN);
	set.unprivileged_prefix_min = 129;
	EXPECT_EQ(-EINVAL, hcn_limits_set(&set));
	EXPECT_STRNE("", hcn_extack_msg());

	EXPECT_EQ(HCN_COUNTERS_NUM, hcn_counters_get(&c, sizeof(c)));
	EXPECT_EQ(1234, c.pit_max);
	/* An older caller's smaller structure: only that much is written. */
	memset(&c, 0xee, sizeof(c));
	EXPECT_EQ(2, hcn_counters_get(&c, 2 * sizeof(__u64)));
	EXPECT_EQ(1234, c.pit_max);
	EXPECT_EQ(0xeeeeeeeeeeeeeeeeULL, c.pit_aggregated);
}

/* PSOCK: endpoints, limits, counters. */
TEST_F(cfg, psock)
{
	struct hcn_psock_endpoint ep = {}, got;
	struct hcn_psock_limits l, set = {};
	struct hcn_psock_counters c;
	__u8 id = 0;
	int n = 0;

	ep.attrs = HCN_ATTR(PSOCK_A_ENDPOINT_FAMILY) |
		   HCN_ATTR(PSOCK_A_ENDPOINT_ADDR4) |
		   HCN_ATTR(PSOCK_A_ENDPOINT_FLAGS);
	ep.family = AF_INET;
	inet_pton(AF_INET, "10.0.1.1", &ep.addr.v4);
	ep.flags = PSOCK_ENDPOINT_FLAGS_SUBFLOW;
	ASSERT_EQ(0, hcn_psock_endpoint_add(&ep, &id));
	EXPECT_LE(1, id);
	EXPECT_EQ(-EEXIST, hcn_psock_endpoint_add(&ep, NULL));
	EXPECT_STREQ("address is already an endpoint", hcn_extack_msg());

	ep.attrs = HCN_ATTR(PSOCK_A_ENDPOINT_FAMILY) |
		   HCN_ATTR(PSOCK_A_ENDPOINT_ADDR6) | HCN_ATTR(PSOCK_A_ENDPOINT_ID);
	ep.family = AF_INET6;
	ep.id = 9;
	inet_pton(AF_INET6, "fd00::1", &ep.addr.v6);
	ASSERT_EQ(0, hcn_psock_endpoint_add(&ep, &id));
	EXPECT_EQ(9, id);

	ASSERT_EQ(0, hcn_psock_endpoint_get(9, &got));
	EXPECT_EQ(AF_INET6, got.family);
	EXPECT_EQ(0, memcmp(&ep.addr.v6, &got.addr.v6, 16));
	EXPECT_TRUE(got.attrs & HCN_ATTR(PSOCK_A_ENDPOINT_ADDR6));
	ASSERT_EQ(0, hcn_psock_endpoint_dump(count_endpoints, &n));
	EXPECT_EQ(2, n);

	ASSERT_EQ(0, hcn_psock_endpoint_del(9));
	EXPECT_EQ(-ENOENT, hcn_psock_endpoint_del(9));
	EXPECT_STREQ("no endpoint with this id", hcn_extack_msg());
	EXPECT_EQ(-ENOENT, hcn_psock_endpoint_get(9, &got));
	ASSERT_EQ(0, hcn_psock_endpoint_flush(AF_INET6));
	n = 0;
	ASSERT_EQ(0, hcn_psock_endpoint_dump(count_endpoints, &n));
	EXPECT_EQ(1, n);
	ASSERT_EQ(0, hcn_psock_endpoint_flush(AF_UNSPEC));
	n = 0;
	ASSERT_EQ(0, hcn_psock_endpoint_dump(count_endpoints, &n));
	EXPECT_EQ(0, n);

	ASSERT_EQ(0, hcn_psock_limits_get(&l));
	EXPECT_TRUE(l.attrs & HCN_ATTR(PSOCK_A_LIMITS_DRIVER));
	set.attrs = HCN_ATTR(PSOCK_A_LIMITS_DRIVER);
	set.driver = PSOCK_DRIVER_ROUND_ROBIN;
	ASSERT_EQ(0, hcn_psock_limits_set(&set));
	ASSERT_EQ(0, hcn_psock_limits_get(&l));
	EXPECT_EQ(PSOCK_DRIVER_ROUND_ROBIN, l.driver);
	set.driver = 99;
	EXPECT_EQ(-EINVAL, hcn_psock_limits_set(&set));
	EXPECT_STRNE("", hcn_extack_msg());

	EXPECT_EQ(HCN_PSOCK_COUNTERS_NUM, hcn_psock_counters_get(&c, sizeof(c)));
}

/* An unprivileged user reads, and gets -EPERM for every change. */
TEST_F(cfg, unprivileged)
{
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct hcn_psock_endpoint ep = {};
		struct hcn_psock_limits pl = {};
		struct in6_addr p = addr6(HT_NS);
		struct hcn_limits l = {};
		struct hcn_cs cs = {};
		struct hcn_counters c;
		int bad = 0;

		if (setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY))
			_exit(100);
		bad |= hcn_cs_get(&cs) != 0;
		bad |= (hcn_limits_get(&l) != 0) << 1;
		bad |= (hcn_counters_get(&c, sizeof(c)) != HCN_COUNTERS_NUM) << 2;
		bad |= (hcn_psock_limits_get(&pl) != 0) << 3;
		cs.attrs = HCN_ATTR(HICN_A_CS_MAX_ENTRIES);
		bad |= (hcn_cs_set(&cs) != -EPERM) << 4;
		bad |= (hcn_cs_flush(NULL, 0) != -EPERM) << 5;
		bad |= (hcn_cs_flush(&p, 64) != -EPERM) << 6;
		bad |= (hcn_limits_set(&l) != -EPERM) << 7;
		ep.attrs = HCN_ATTR(PSOCK_A_ENDPOINT_FAMILY) |
			   HCN_ATTR(PSOCK_A_ENDPOINT_ADDR4);
		ep.family = AF_INET;
		bad |= (hcn_psock_endpoint_add(&ep, NULL) != -EPERM) << 8;
		bad |= (hcn_psock_endpoint_del(1) != -EPERM) << 9;
		bad |= (hcn_psock_endpoint_flush(AF_UNSPEC) != -EPERM) << 10;
		bad |= (hcn_psock_limits_set(&pl) != -EPERM) << 11;
		_exit(bad);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("bit mask of wrong answers");
}

/* hcn_monitor() sees a claim and its release as they happen. */
static int mon_seen;

static int on_event(const struct hcn_event *ev, void *arg)
{
	(void)arg;
	if (ev->type == HICN_CMD_NAMESPACE_CLAIMED &&
	    ev->ns.prefix_len == HT_NS_LEN) {
		__atomic_store_n(&mon_seen, 1, __ATOMIC_SEQ_CST);
		return 1;
	}
	return 0;
}

static void *claim_until_seen(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 200 && !__atomic_load_n(&mon_seen, __ATOMIC_SEQ_CST); i++) {
		int fd = ht_producer(PROD_REL);

		if (fd >= 0)
			close(fd);
		ht_sleep_ms(50);
	}
	return NULL;
}

TEST_F(cfg, monitor)
{
	pthread_t t;

	mon_seen = 0;
	ASSERT_EQ(0, pthread_create(&t, NULL, claim_until_seen, NULL));
	EXPECT_EQ(1, hcn_monitor(on_event, NULL));
	pthread_join(t, NULL);
	EXPECT_EQ(1, mon_seen);
	EXPECT_EQ(-EINVAL, hcn_monitor(NULL, NULL));
}

TEST_HARNESS_MAIN
