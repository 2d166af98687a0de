// SPDX-License-Identifier: GPL-2.0
/*
 * libhcn's configuration functions (userspace/lib/hcn_nl.c) against the
 * real "hicn" and "psock" generic netlink families: every function once
 * with success, errors with the kernel's extack message
 * (hcn_extack_msg()), and an unprivileged user (nobody, no capabilities)
 * who can read but gets -EPERM for every change.  Each test runs in a
 * network namespace of its own; listeners and UDP faces use lo's
 * addresses (faces to peers that need not exist: nothing is sent).
 */
#include <pthread.h>
#include <net/if.h>
#include <sys/ioctl.h>
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

static int count_udp_faces(const struct hcn_face *f, void *arg)
{
	if (f->kind == HICN_FACE_KIND_UDP &&
	    (f->attrs & HCN_ATTR(HICN_A_FACE_LISTENER_ID)))
		(*(int *)arg)++;
	return 0;
}

static int count_listeners(const struct hcn_listener *l, void *arg)
{
	(void)l;
	(*(int *)arg)++;
	return 0;
}

/* The route of b003::/16 in a dump: its next hops, or -1 if absent. */
static int find_b003(const struct hcn_route *r, void *arg)
{
	struct in6_addr want = addr6("b003::");

	if (r->prefix_len == 16 && !memcmp(&r->prefix, &want, sizeof(want)))
		*(int *)arg = r->nexthops;
	return 0;
}

static int stop_route(const struct hcn_route *r, void *arg)
{
	(void)r;
	(void)arg;
	return 43;
}

/* lo up: 127.0.0.1 and ::1 for the listeners. */
static int lo_up(void)
{
	struct ifreq ifr;
	int fd, err;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	err = ioctl(fd, SIOCGIFFLAGS, &ifr);
	if (!err) {
		ifr.ifr_flags |= IFF_UP;
		err = ioctl(fd, SIOCSIFFLAGS, &ifr);
	}
	close(fd);
	return err;
}

/* A listener on @addr (4 or 6 by its text) and @port: its id, or -errno. */
static int listener(const char *addr, __u16 port, int auto_faces)
{
	struct hcn_listener l = {};
	__u32 id = 0;
	int err;

	l.family = strchr(addr, ':') ? AF_INET6 : AF_INET;
	inet_pton(l.family, addr, l.family == AF_INET ? (void *)&l.local.v4 :
		  (void *)&l.local.v6);
	l.attrs = HCN_ATTR(HICN_A_LISTENER_LOCAL);
	if (port) {
		l.port = port;
		l.attrs |= HCN_ATTR(HICN_A_LISTENER_PORT);
	}
	if (auto_faces >= 0) {
		l.auto_faces = auto_faces;
		l.attrs |= HCN_ATTR(HICN_A_LISTENER_AUTO_FACES);
	}
	err = hcn_listener_add(&l, &id);
	return err ? err : (int)id;
}

/* A UDP face of listener @lid to @addr: its id, or -errno. */
static int udp_face(__u32 lid, const char *addr, __u16 port, int format)
{
	struct hcn_face f = {};
	__u32 id = 0;
	int err;

	f.listener_id = lid;
	f.family = strchr(addr, ':') ? AF_INET6 : AF_INET;
	inet_pton(f.family, addr, f.family == AF_INET ? (void *)&f.remote.v4 :
		  (void *)&f.remote.v6);
	f.attrs = HCN_ATTR(HICN_A_FACE_LISTENER_ID) | HCN_ATTR(HICN_A_FACE_REMOTE);
	if (port) {
		f.remote_port = port;
		f.attrs |= HCN_ATTR(HICN_A_FACE_REMOTE_PORT);
	}
	if (format >= 0) {
		f.format = format;
		f.attrs |= HCN_ATTR(HICN_A_FACE_FORMAT);
	}
	err = hcn_face_add(&f, &id);
	return err ? err : (int)id;
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

/* Listeners and UDP faces: add, get, dump, delete, and their errors. */
TEST_F(cfg, listeners_faces)
{
	struct hcn_listener l = {};
	struct in_addr lo4;
	struct hcn_face f;
	int l4, l6, f4, f6, pf, prod, n = 0;
	struct hcn_namespace ns;
	struct in6_addr p = addr6(HT_NS);

	ASSERT_EQ(0, lo_up());
	l4 = listener("127.0.0.1", 0, -1);
	ASSERT_LT(0, l4) TH_LOG("%s", hcn_extack_msg());
	ASSERT_EQ(0, hcn_listener_get(l4, &l));
	inet_pton(AF_INET, "127.0.0.1", &lo4);
	EXPECT_EQ(l4, l.id);
	EXPECT_EQ(AF_INET, l.family);
	EXPECT_EQ(lo4.s_addr, l.local.v4.s_addr);
	EXPECT_EQ(9695, l.port);
	EXPECT_EQ(0, l.auto_faces);
	EXPECT_EQ(0, l.faces);
	EXPECT_TRUE(l.attrs & HCN_ATTR(HICN_A_LISTENER_NO_FACE));
	EXPECT_EQ(-EADDRINUSE, listener("127.0.0.1", 9695, -1));
	EXPECT_STREQ("the address and port are in use", hcn_extack_msg());
	EXPECT_EQ(-EADDRNOTAVAIL, listener("10.9.9.9", 0, -1));
	EXPECT_STREQ("not an address of this network namespace", hcn_extack_msg());
	l6 = listener("::1", 9696, 1);
	ASSERT_LT(0, l6) TH_LOG("%s", hcn_extack_msg());
	ASSERT_EQ(0, hcn_listener_get(l6, &l));
	EXPECT_EQ(AF_INET6, l.family);
	EXPECT_EQ(9696, l.port);
	EXPECT_EQ(1, l.auto_faces);
	ASSERT_EQ(0, hcn_listener_dump(count_listeners, &n));
	EXPECT_EQ(2, n);
	EXPECT_EQ(-ENOENT, hcn_listener_get(999, &l));
	EXPECT_STREQ("no listener with this id", hcn_extack_msg());
	l.family = AF_UNIX;	/* found by the library */
	l.attrs = HCN_ATTR(HICN_A_LISTENER_LOCAL);
	EXPECT_EQ(-EAFNOSUPPORT, hcn_listener_add(&l, NULL));
	EXPECT_STRNE("", hcn_extack_msg());

	f4 = udp_face(l4, "127.0.0.2", 0, -1);
	ASSERT_LT(0, f4) TH_LOG("%s", hcn_extack_msg());
	ASSERT_EQ(0, hcn_face_get(f4, &f));
	EXPECT_EQ(f4, f.id);
	EXPECT_EQ(HICN_FACE_KIND_UDP, f.kind);
	EXPECT_EQ(1, f.up);
	EXPECT_EQ(l4, f.listener_id);
	EXPECT_EQ(AF_INET, f.family);
	EXPECT_EQ(htonl(0x7f000002), f.remote.v4.s_addr);
	EXPECT_EQ(9695, f.remote_port);
	EXPECT_EQ(HICN_FORMAT_IPV6_TCP, f.format);
	EXPECT_EQ(0, f.auto_made);
	EXPECT_TRUE(f.attrs & HCN_ATTR(HICN_A_FACE_TX_DROPS));
	ASSERT_EQ(0, hcn_listener_get(l4, &l));
	EXPECT_EQ(1, l.faces);
	f6 = udp_face(l6, "::2", 9700, HICN_FORMAT_COMPACT);
	ASSERT_LT(0, f6) TH_LOG("%s", hcn_extack_msg());
	ASSERT_EQ(0, hcn_face_get(f6, &f));
	EXPECT_EQ(AF_INET6, f.family);
	EXPECT_EQ(9700, f.remote_port);
	EXPECT_EQ(HICN_FORMAT_COMPACT, f.format);
	n = 0;
	ASSERT_EQ(0, hcn_face_dump(count_udp_faces, &n));
	EXPECT_EQ(2, n);

	EXPECT_EQ(-EEXIST, udp_face(l4, "127.0.0.2", 0, -1));
	EXPECT_STREQ("the listener has a face to this peer", hcn_extack_msg());
	EXPECT_EQ(-EAFNOSUPPORT, udp_face(l4, "::5", 0, -1));
	EXPECT_STREQ("not the listener's address family", hcn_extack_msg());
	EXPECT_EQ(-ENODEV, udp_face(999, "127.0.0.2", 0, -1));
	EXPECT_STREQ("no listener with this id", hcn_extack_msg());
	EXPECT_EQ(-EINVAL, udp_face(l4, "127.0.0.3", 0, HICN_FORMAT_IPV4_TCP));
	EXPECT_STREQ("AF_HICN names need the ipv6-tcp or compact format",
		     hcn_extack_msg());
	EXPECT_EQ(-ENOENT, hcn_face_get(999999, &f));
	EXPECT_STREQ("no face with this id", hcn_extack_msg());

	/* A producer's application face: shown, not deleted by netlink. */
	prod = ht_producer(PROD_REL);
	ASSERT_LE(0, prod);
	ASSERT_EQ(0, hcn_namespace_get(&p, HT_NS_LEN, &ns));
	pf = ns.face_id;
	ASSERT_EQ(0, hcn_face_get(pf, &f));
	EXPECT_EQ(HICN_FACE_KIND_PRODUCER, f.kind);
	EXPECT_FALSE(f.attrs & HCN_ATTR(HICN_A_FACE_LISTENER_ID));
	EXPECT_EQ(-EOPNOTSUPP, hcn_face_del(pf));
	EXPECT_STREQ("an application face goes with its socket", hcn_extack_msg());
	close(prod);

	ASSERT_EQ(0, hcn_face_del(f4));
	EXPECT_EQ(-ENOENT, hcn_face_get(f4, NULL));
	EXPECT_EQ(-ENOENT, hcn_face_del(f4));
	ASSERT_EQ(0, hcn_listener_get(l4, &l));
	EXPECT_EQ(0, l.faces);
	ASSERT_EQ(0, hcn_listener_del(l6));
	EXPECT_EQ(-ENOENT, hcn_face_get(f6, NULL));	/* went with it */
	EXPECT_EQ(-ENOENT, hcn_listener_del(l6));
	EXPECT_STREQ("no listener with this id", hcn_extack_msg());
	ASSERT_EQ(0, hcn_listener_del(l4));
	n = 0;
	ASSERT_EQ(0, hcn_listener_dump(count_listeners, &n));
	EXPECT_EQ(0, n);

	EXPECT_EQ(-EINVAL, hcn_face_dump(NULL, NULL));
	EXPECT_EQ(-EINVAL, hcn_listener_dump(NULL, NULL));
	EXPECT_EQ(-EINVAL, hcn_face_add(NULL, NULL));
	EXPECT_EQ(-EINVAL, hcn_listener_add(NULL, NULL));
}

/* Routes and strategies, over a UDP face and a producer's face. */
TEST_F(cfg, routes)
{
	struct in6_addr b003 = addr6("b003::"), b005 = addr6("b005::");
	struct in6_addr p = addr6(HT_NS);
	struct hcn_namespace ns;
	struct hcn_route r;
	int lid, uf, pf, prod, n;

	ASSERT_EQ(0, lo_up());
	lid = listener("127.0.0.1", 0, -1);
	ASSERT_LT(0, lid) TH_LOG("%s", hcn_extack_msg());
	uf = udp_face(lid, "127.0.0.2", 0, -1);
	ASSERT_LT(0, uf) TH_LOG("%s", hcn_extack_msg());
	prod = ht_producer(PROD_REL);
	ASSERT_LE(0, prod);
	ASSERT_EQ(0, hcn_namespace_get(&p, HT_NS_LEN, &ns));
	pf = ns.face_id;

	/* The claim is a route of cost 0 to the producer's face. */
	ASSERT_EQ(0, hcn_route_get(&p, HT_NS_LEN, &r));
	EXPECT_EQ(1, r.nexthops);
	EXPECT_EQ(pf, r.nexthop[0].face_id);
	EXPECT_EQ(0, r.nexthop[0].cost);

	ASSERT_EQ(0, hcn_route_add(&b003, 16, uf, 10));
	ASSERT_EQ(0, hcn_route_add(&b003, 16, pf, 5));
	memset(&r, 0xee, sizeof(r));
	ASSERT_EQ(0, hcn_route_get(&b003, 16, &r));
	EXPECT_EQ(0, memcmp(&b003, &r.prefix, sizeof(b003)));
	EXPECT_EQ(16, r.prefix_len);
	EXPECT_TRUE(r.attrs & HCN_ATTR(HICN_A_ROUTE_STRATEGY));
	EXPECT_EQ(HICN_STRATEGY_BEST_ROUTE, r.strategy);
	ASSERT_EQ(2, r.nexthops);
	EXPECT_EQ(2, r.nexthops_total);
	EXPECT_EQ(uf, r.nexthop[0].face_id);
	EXPECT_EQ(10, r.nexthop[0].cost);
	EXPECT_EQ(pf, r.nexthop[1].face_id);
	EXPECT_EQ(5, r.nexthop[1].cost);

	ASSERT_EQ(0, hcn_strategy_set(&b003, 16, HICN_STRATEGY_LOAD_BALANCE));
	ASSERT_EQ(0, hcn_route_get(&b003, 16, &r));
	EXPECT_EQ(HICN_STRATEGY_LOAD_BALANCE, r.strategy);
	EXPECT_EQ(-ERANGE, hcn_strategy_set(&b003, 16, 7));	/* the policy */
	EXPECT_STRNE("", hcn_extack_msg());
	EXPECT_EQ(-ERANGE, hcn_strategy_set(&b003, 16, 300));	/* the library */
	EXPECT_EQ(-ENOENT, hcn_strategy_set(&b005, 16, 0));
	EXPECT_STREQ("no route with this prefix", hcn_extack_msg());

	n = -1;
	ASSERT_EQ(0, hcn_route_dump(find_b003, &n));
	EXPECT_EQ(2, n);
	EXPECT_EQ(43, hcn_route_dump(stop_route, NULL));

	EXPECT_EQ(-EEXIST, hcn_route_add(&b003, 16, uf, 1));
	EXPECT_STREQ("the face is a next hop of this prefix already",
		     hcn_extack_msg());
	EXPECT_EQ(-ENODEV, hcn_route_add(&b005, 16, 999999, 0));
	EXPECT_STREQ("no face with this id", hcn_extack_msg());
	EXPECT_EQ(-EINVAL, hcn_route_add(&b005, 129, uf, 0));
	EXPECT_STREQ("prefix length over 128", hcn_extack_msg());
	EXPECT_EQ(-EINVAL, hcn_route_add(NULL, 0, uf, 0));
	EXPECT_STREQ("missing prefix", hcn_extack_msg());
	EXPECT_EQ(-EINVAL, hcn_route_add(&b005, 256, uf, 0));	/* the library */
	EXPECT_EQ(-ENOENT, hcn_route_del(&b005, 16, uf));
	EXPECT_STREQ("the face is not a next hop of this prefix",
		     hcn_extack_msg());
	EXPECT_EQ(-ENOENT, hcn_route_get(&b005, 16, &r));
	EXPECT_STREQ("no route with this prefix", hcn_extack_msg());

	ASSERT_EQ(0, hcn_route_del(&b003, 16, uf));
	ASSERT_EQ(0, hcn_route_get(&b003, 16, &r));
	ASSERT_EQ(1, r.nexthops);
	EXPECT_EQ(pf, r.nexthop[0].face_id);
	/* A face that goes takes its next hops: the route goes with it. */
	close(prod);
	for (n = 0; n < 100 && !hcn_route_get(&b003, 16, NULL); n++)
		ht_sleep_ms(50);
	EXPECT_EQ(-ENOENT, hcn_route_get(&b003, 16, NULL));
	EXPECT_EQ(0, hcn_listener_del(lid));
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
		struct hcn_listener lst = {};
		struct hcn_counters c;
		struct hcn_face f = {};
		int bad = 0, n = 0;

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
		bad |= (hcn_listener_dump(count_listeners, &n) != 0) << 12;
		bad |= (hcn_face_dump(count_udp_faces, &n) != 0) << 13;
		bad |= (hcn_route_dump(find_b003, &n) != 0) << 14;
		lst.family = AF_INET;
		lst.attrs = HCN_ATTR(HICN_A_LISTENER_LOCAL);
		bad |= (hcn_listener_add(&lst, NULL) != -EPERM) << 15;
		bad |= (hcn_listener_del(1) != -EPERM) << 16;
		bad |= (hcn_face_add(&f, NULL) != -EPERM) << 17;
		bad |= (hcn_face_del(1) != -EPERM) << 18;
		bad |= (hcn_route_add(&p, 16, 1, 0) != -EPERM) << 19;
		bad |= (hcn_route_del(&p, 16, 1) != -EPERM) << 20;
		bad |= (hcn_strategy_set(&p, 16, 1) != -EPERM) << 21;
		/* An exit status has 8 bits: the first wrong answer. */
		_exit(bad ? __builtin_ctz(bad) + 1 : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("the first wrong answer: bit %d - 1", WEXITSTATUS(status));
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
