// SPDX-License-Identifier: GPL-2.0
/*
 * Memory a user can make the kernel hold is charged and released
 * (Documentation/hicn-api.rst, "Publishing" and /proc/net/hicn_stat).
 *
 * - The state a producer keeps per name is counted in prod_names and
 *   charged to the socket (hi_mem) and the netns (prod_mem) while a
 *   version of the name is held, and released when the last one expires:
 *   publishing thousands of names with a 1 ms expiry leaves nothing
 *   behind while the socket stays open.
 * - A name published again after its names state was released continues
 *   its version numbers, and an older version of it is ENOENT, not waited
 *   for.
 * - A version the producer replaced while the content store still holds
 *   its segments stays charged to the netns (prod_mem) until the store
 *   lets go: publishing beyond prod_mem_max meanwhile is ENOBUFS.
 * - Walks under the producer's lock stay short whatever the store holds
 *   (hicn_stat prod_lookups, prod_lookup_steps, prod_expiry_steps): a
 *   name is found among 100,000 by comparing a few, a version among
 *   4096 in a few dozen steps, and the expiry examines what expires, not
 *   every version held.
 * - Interests a producer holds for names not published yet are counted
 *   in the netns (hicn_stat prod_held) and released with the producer.
 * - A consumer's segments received and not yet read stay within its
 *   SO_RCVBUF and are charged to it (hi_rmem, SO_MEMINFO), whatever its
 *   window; the object still arrives whole.  Unless the application set
 *   SO_RCVBUF, the buffer grows to four windows when it holds the window
 *   back, up to the netns's tcp_rmem maximum.
 * - The content store's collector examines at most 1024 entries a run
 *   (hicn_stat cs_gc_runs, cs_gc_steps), and still sweeps the whole
 *   store: 8192 stale entries all go.
 * - A consumer whose whole window times out examines each slot about
 *   once per round of retransmissions (hicn_stat cons_scan_steps), not
 *   once per slot resent.
 * - A producer finds an interest it holds among thousands by hash
 *   (hicn_stat prod_held_steps), not by walking them all.
 * - The PIT's collector examines a slice of about 1024 entries a run
 *   (hicn_stat pit_gc_runs, pit_gc_steps), not the whole table.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <linux/sock_diag.h>

#include "hicn_test.h"
#include "kselftest_harness.h"

#define NNAMES		4000

/* Wait up to @ms for hicn_stat @key to reach @want; its last value. */
static long long stat_wait(const char *key, long long want, int ms)
{
	long long v = ht_stat(key);

	while (v != want && ms > 0) {
		ht_sleep_ms(10);
		ms -= 10;
		v = ht_stat(key);
	}
	return v;
}

static void name_of(char *buf, size_t len, int i)
{
	snprintf(buf, len, "b001:a:b:c::%x:%x", i >> 16, i & 0xffff);
}

FIXTURE(mem)
{
	int prod;
};

FIXTURE_SETUP(mem)
{
	ASSERT_EQ(0, ht_enter_netns());
	self->prod = ht_producer(PROD_REL);
	ASSERT_LE(0, self->prod);
}

FIXTURE_TEARDOWN(mem)
{
	if (self->prod >= 0)
		close(self->prod);
}

/* Names held are counted and charged; close() returns every byte. */
TEST_F(mem, names_charged)
{
	struct hicn_info hi;
	char name[64];
	int i;

	ASSERT_EQ(0, ht_setint(self->prod, HICN_CONTENT_EXPIRY, 0));
	for (i = 0; i < 100; i++) {
		name_of(name, sizeof(name), i);
		ASSERT_EQ(0, ht_publish(self->prod, name, NULL, 0, 0));
	}
	EXPECT_EQ(100, ht_stat("prod_names"));
	ASSERT_EQ(0, ht_info(self->prod, &hi));
	EXPECT_EQ(100, hi.hi_versions);
	EXPECT_EQ((long long)hi.hi_mem, ht_stat("prod_mem"));
	/* A second version of a name adds no name. */
	ASSERT_EQ(0, ht_publish(self->prod, name, NULL, 0, 0));
	EXPECT_EQ(100, ht_stat("prod_names"));
	close(self->prod);
	self->prod = -1;
	EXPECT_EQ(0, ht_stat("prod_names"));
	EXPECT_EQ(0, ht_stat("prod_mem"));
}

/* Names whose last version expired are released, socket still open. */
TEST_F(mem, expired_names_released)
{
	struct hicn_info hi;
	char name[64];
	int i;

	ASSERT_EQ(0, ht_setint(self->prod, HICN_CONTENT_EXPIRY, 1));
	for (i = 0; i < NNAMES; i++) {
		name_of(name, sizeof(name), i);
		ASSERT_EQ(0, ht_publish(self->prod, name, NULL, 0, 0));
	}
	EXPECT_EQ(0, stat_wait("prod_names", 0, 20000));
	ASSERT_EQ(0, ht_info(self->prod, &hi));
	EXPECT_EQ(0, hi.hi_versions);
	EXPECT_EQ(0, hi.hi_mem);
	EXPECT_EQ(0, ht_stat("prod_mem"));
}

/* A released name continues its versions; older ones are gone. */
TEST_F(mem, released_name_keeps_counting)
{
	struct sockaddr_hicn n = ht_name(HT_NAME, 128, 2);
	struct hicn_info hi;
	char buf[16];
	int c, i;

	ASSERT_EQ(0, ht_setint(self->prod, HICN_CONTENT_EXPIRY, 50));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, ht_publish(self->prod, HT_NAME, NULL, 0, 0));
	ASSERT_EQ(1, ht_stat("prod_names"));
	ASSERT_EQ(0, stat_wait("prod_names", 0, 10000));
	/* Released: version 2 cannot come back, ENOENT at once. */
	c = socket(hcn_family(), SOCK_CONS, CONS_REL);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, ht_setint(c, HICN_INTEREST_LIFETIME, 2000));
	ASSERT_EQ(0, connect(c, (struct sockaddr *)&n, sizeof(n)));
	EXPECT_EQ(-1, recv(c, buf, sizeof(buf), 0));
	EXPECT_EQ(ENOENT, errno);
	close(c);
	ASSERT_EQ(0, ht_setint(self->prod, HICN_CONTENT_EXPIRY, 0));
	ASSERT_EQ(0, ht_publish(self->prod, HT_NAME, NULL, 0, 0));
	ASSERT_EQ(0, ht_info(self->prod, &hi));
	EXPECT_EQ(4, hi.hi_last_version);

	/* Published again: version 2 is still gone. */
	c = socket(hcn_family(), SOCK_CONS, CONS_REL);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, ht_setint(c, HICN_INTEREST_LIFETIME, 2000));
	ASSERT_EQ(0, connect(c, (struct sockaddr *)&n, sizeof(n)));
	EXPECT_EQ(-1, recv(c, buf, sizeof(buf), 0));
	EXPECT_EQ(ENOENT, errno);
	close(c);
}

/*
 * Sizes that make a walk over all names or versions cost thousands of
 * times the bound each test asserts, yet publish in seconds on the debug
 * kernel.
 */
#define NBIG		10000
#define NVERS		4096
#define NKEEP		2000
#define NEXPIRE		200

/* Lookups, and names or versions they compared, since @l0 and @s0. */
static void lookups_since(long long l0, long long s0, long long *lookups,
			  long long *steps)
{
	*lookups = ht_stat("prod_lookups") - l0;
	*steps = ht_stat("prod_lookup_steps") - s0;
}

/* A name among 10,000 is found by comparing a few (a walk: 5,000). */
TEST_F_TIMEOUT(mem, name_lookup_bounded, 180)
{
	long long l0 = ht_stat("prod_lookups");
	long long s0 = ht_stat("prod_lookup_steps");
	long long lookups, steps;
	char name[64];
	int i;

	ASSERT_LE(0, l0);
	ASSERT_LE(0, s0);
	ASSERT_EQ(0, ht_setint(self->prod, HICN_CONTENT_EXPIRY, 0));
	for (i = 0; i < NBIG; i++) {
		name_of(name, sizeof(name), i);
		ASSERT_EQ(0, ht_publish(self->prod, name, NULL, 0, 0));
	}
	ASSERT_EQ(NBIG, ht_stat("prod_names"));
	lookups_since(l0, s0, &lookups, &steps);
	TH_LOG("%lld lookups, %lld names compared", lookups, steps);
	EXPECT_LE(NBIG, lookups);
	EXPECT_GE(2 * lookups, steps);
}

/* Segments of the newest of 4096 versions: each found in a few steps. */
TEST_F(mem, version_lookup_bounded)
{
	size_t len = 100 * HICN_PACKET_SIZE_DEFAULT;
	char *buf = calloc(1, len + 1);
	long long l0, s0, lookups, steps;
	int c, i;

	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, ht_setint(self->prod, HICN_CONTENT_EXPIRY, 0));
	for (i = 1; i < NVERS; i++)
		ASSERT_EQ(0, ht_publish(self->prod, HT_NAME, NULL, 0, 0));
	ASSERT_EQ((ssize_t)len, ht_publish(self->prod, HT_NAME, buf, len, 0));
	l0 = ht_stat("prod_lookups");
	s0 = ht_stat("prod_lookup_steps");
	c = ht_consumer(CONS_REL, HT_NAME, NVERS);
	ASSERT_LE(0, c);
	EXPECT_EQ((ssize_t)len, recv(c, buf, len + 1, 0));
	close(c);
	lookups_since(l0, s0, &lookups, &steps);
	TH_LOG("%lld lookups, %lld names and versions compared", lookups,
	       steps);
	EXPECT_LE(100, lookups);
	/* A balanced tree of 4096 is at most 24 deep. */
	EXPECT_GE(32 * lookups, steps);
	free(buf);
}

/* The expiry of 200 versions does not visit 2,000 others each time. */
TEST_F_TIMEOUT(mem, expiry_visits_what_expires, 120)
{
	long long e0;
	char name[64];
	int i;

	ASSERT_EQ(0, ht_setint(self->prod, HICN_CONTENT_EXPIRY, 0));
	for (i = 0; i < NKEEP; i++)
		ASSERT_EQ(0, ht_publish(self->prod, HT_NAME2, NULL, 0, 0));
	e0 = ht_stat("prod_expiry_steps");
	ASSERT_LE(0, e0);
	ASSERT_EQ(0, ht_setint(self->prod, HICN_CONTENT_EXPIRY, 1));
	for (i = 0; i < NEXPIRE; i++) {
		name_of(name, sizeof(name), NBIG + i);
		ASSERT_EQ(0, ht_publish(self->prod, name, NULL, 0, 0));
		if (i % 20 == 0)
			ht_sleep_ms(5);
	}
	EXPECT_EQ(1, stat_wait("prod_names", 1, 20000));
	TH_LOG("expiry examined %lld versions and names",
	       ht_stat("prod_expiry_steps") - e0);
	/* Each expired version, its name, and one look per run. */
	EXPECT_GE(3 * NEXPIRE, ht_stat("prod_expiry_steps") - e0);
}

#define NHELD		100

/* Consumers asking for names not published: the netns counts them. */
TEST_F(mem, held_interests_counted)
{
	int c[NHELD], i;
	char name[64];

	for (i = 0; i < NHELD; i++) {
		c[i] = socket(hcn_family(), SOCK_CONS | SOCK_NONBLOCK,
			      CONS_UNREL);
		ASSERT_LE(0, c[i]);
		ASSERT_EQ(0, ht_setint(c[i], HICN_INTEREST_LIFETIME, 60000));
		ASSERT_EQ(0, ht_setint(c[i], HICN_WINDOW, 1));
		name_of(name, sizeof(name), i);
		ASSERT_EQ(0, ht_connect(c[i], name, 0));
	}
	EXPECT_EQ(NHELD, ht_stat("prod_held"));
	for (i = 0; i < NHELD; i++)
		close(c[i]);
	/* Held for their lifetime, whoever asked, until the producer goes. */
	EXPECT_EQ(NHELD, ht_stat("prod_held"));
	close(self->prod);
	self->prod = -1;
	EXPECT_EQ(0, ht_stat("prod_held"));
}

#define RB_LEN		(64 * HICN_PACKET_SIZE_DEFAULT)

/* Segments not read yet stay within SO_RCVBUF, charged to it. */
TEST_F(mem, rcvbuf_bounds_queued)
{
	char *src = malloc(RB_LEN), *dst = malloc(RB_LEN + 1);
	unsigned int meminfo[SK_MEMINFO_VARS];
	socklen_t mlen = sizeof(meminfo);
	int c, rcvbuf = 8192;
	socklen_t olen = sizeof(rcvbuf);
	struct hicn_info hi;

	ASSERT_NE(NULL, src);
	ASSERT_NE(NULL, dst);
	ht_fill(src, RB_LEN, 12);
	ASSERT_EQ(RB_LEN, ht_publish(self->prod, HT_NAME, src, RB_LEN, 0));
	c = socket(hcn_family(), SOCK_CONS | SOCK_NONBLOCK, CONS_REL);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, setsockopt(c, SOL_SOCKET, SO_RCVBUF, &rcvbuf,
				sizeof(rcvbuf)));
	ASSERT_EQ(0, getsockopt(c, SOL_SOCKET, SO_RCVBUF, &rcvbuf, &olen));
	/* The local producer answers at once: the window fills now. */
	ASSERT_EQ(0, ht_connect(c, HT_NAME, 0));
	ASSERT_EQ(0, ht_info(c, &hi));
	TH_LOG("SO_RCVBUF %d: %llu segments (%llu bytes charged) before a read",
	       rcvbuf, (unsigned long long)hi.hi_segments,
	       (unsigned long long)hi.hi_rmem);
	EXPECT_GE(rcvbuf, hi.hi_segments * HICN_PACKET_SIZE_DEFAULT);
	EXPECT_LT(0, hi.hi_rmem);
	EXPECT_GE(rcvbuf, hi.hi_rmem);
	ASSERT_EQ(0, getsockopt(c, SOL_SOCKET, SO_MEMINFO, meminfo, &mlen));
	EXPECT_EQ(hi.hi_rmem, meminfo[SK_MEMINFO_RMEM_ALLOC]);

	/* The whole object still comes, and nothing stays charged. */
	ASSERT_EQ(0, fcntl(c, F_SETFL, 0));
	EXPECT_EQ(RB_LEN, ht_read_stream(c, dst, RB_LEN + 1, 65536));
	EXPECT_EQ(0, memcmp(src, dst, RB_LEN));
	ASSERT_EQ(0, ht_info(c, &hi));
	EXPECT_EQ(0, hi.hi_rmem);
	EXPECT_EQ(64, hi.hi_segments);
	close(c);
	free(src);
	free(dst);
}

#define GROW_SEGS	1024
#define GROW_LEN	(GROW_SEGS * HICN_PACKET_SIZE_DEFAULT)
#define GROW_MAX	300000

/*
 * A consumer that did not set SO_RCVBUF gets a receive buffer that grows,
 * as TCP's does, when it is what holds the window back (a reader that
 * has not read yet): to four windows of segments, at most the netns's
 * net.ipv4.tcp_rmem maximum; it holds more than rmem_default allowed,
 * all charged to it, and the object still arrives whole.  (An
 * application's SO_RCVBUF is kept: rcvbuf_bounds_queued.)
 */
TEST_F(mem, rcvbuf_grows)
{
	char *src = malloc(GROW_LEN), *dst = malloc(GROW_LEN + 1);
	const char *rmem = "/proc/sys/net/ipv4/tcp_rmem";
	int c, rcvbuf0, rcvbuf;
	socklen_t olen = sizeof(int);
	struct hicn_info hi;
	char text[64];

	ASSERT_NE(NULL, src);
	ASSERT_NE(NULL, dst);
	/* The netns's own tcp_rmem: a maximum this test can tell. */
	snprintf(text, sizeof(text), "4096 131072 %d", GROW_MAX);
	ASSERT_EQ(0, sysctl_set(rmem, text));
	ht_fill(src, GROW_LEN, 13);
	ASSERT_EQ(GROW_LEN, ht_publish(self->prod, HT_NAME, src, GROW_LEN, 0));
	c = socket(hcn_family(), SOCK_CONS | SOCK_NONBLOCK, CONS_REL);
	ASSERT_LE(0, c);
	/* net.core.rmem_default (a netns's own from 6.x on) */
	ASSERT_EQ(0, getsockopt(c, SOL_SOCKET, SO_RCVBUF, &rcvbuf0, &olen));
	ASSERT_GT(GROW_MAX, rcvbuf0);
	/* The local producer answers at once: the window fills now. */
	ASSERT_EQ(0, ht_connect(c, HT_NAME, 0));
	ASSERT_EQ(0, getsockopt(c, SOL_SOCKET, SO_RCVBUF, &rcvbuf, &olen));
	ASSERT_EQ(0, ht_info(c, &hi));
	TH_LOG("SO_RCVBUF %d -> %d: %llu segments (%llu bytes charged), window %u",
	       rcvbuf0, rcvbuf, (unsigned long long)hi.hi_segments,
	       (unsigned long long)hi.hi_rmem, hi.hi_window);
	EXPECT_EQ(GROW_MAX, rcvbuf);
	EXPECT_LT((unsigned long long)rcvbuf0, hi.hi_rmem);
	EXPECT_GE((unsigned long long)rcvbuf, hi.hi_rmem);

	ASSERT_EQ(0, fcntl(c, F_SETFL, 0));
	EXPECT_EQ(GROW_LEN, ht_read_stream(c, dst, GROW_LEN + 1, 65536));
	EXPECT_EQ(0, memcmp(src, dst, GROW_LEN));
	ASSERT_EQ(0, ht_info(c, &hi));
	EXPECT_EQ(0, hi.hi_rmem);
	EXPECT_EQ(GROW_SEGS, hi.hi_segments);
	close(c);
	free(src);
	free(dst);
}

/* The maximum of this netns's net.ipv4.tcp_rmem, or -1. */
static int tcp_rmem_max(void)
{
	FILE *f = fopen("/proc/sys/net/ipv4/tcp_rmem", "r");
	int lo, mid, hi = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d %d %d", &lo, &mid, &hi) != 3)
		hi = -1;
	fclose(f);
	return hi;
}

/*
 * The owner of a netns may raise its tcp_rmem (as root in a user
 * namespace can): a consumer's buffer still grows no further than the
 * initial netns's maximum.  The initial netns's tcp_rmem is lowered to
 * GROW_MAX for the test (through a file opened before unshare(), which
 * stays the initial netns's) and put back by the teardown.
 */
FIXTURE(initrmem)
{
	int fd;
	char old[64];
};

FIXTURE_SETUP(initrmem)
{
	char text[64];
	ssize_t n;

	self->fd = open("/proc/sys/net/ipv4/tcp_rmem", O_RDWR);
	ASSERT_LE(0, self->fd);
	n = pread(self->fd, self->old, sizeof(self->old) - 1, 0);
	ASSERT_LT(0, n);
	self->old[n] = 0;
	snprintf(text, sizeof(text), "4096 131072 %d", GROW_MAX);
	ASSERT_EQ((ssize_t)strlen(text), pwrite(self->fd, text, strlen(text), 0));
	ASSERT_EQ(0, ht_enter_netns());
}

FIXTURE_TEARDOWN(initrmem)
{
	if (self->fd < 0)
		return;
	EXPECT_EQ((ssize_t)strlen(self->old),
		  pwrite(self->fd, self->old, strlen(self->old), 0));
	close(self->fd);
}

TEST_F(initrmem, rcvbuf_capped_by_initial_netns)
{
	char *src = malloc(GROW_LEN), *dst = malloc(GROW_LEN + 1);
	socklen_t olen = sizeof(int);
	struct hicn_info hi;
	int prod, c, rcvbuf;

	ASSERT_NE(NULL, src);
	ASSERT_NE(NULL, dst);
	ASSERT_EQ(0, sysctl_set("/proc/sys/net/ipv4/tcp_rmem",
				"4096 131072 12000000"));
	EXPECT_EQ(12000000, tcp_rmem_max());
	prod = ht_producer(PROD_REL);
	ASSERT_LE(0, prod);
	ht_fill(src, GROW_LEN, 14);
	ASSERT_EQ(GROW_LEN, ht_publish(prod, HT_NAME, src, GROW_LEN, 0));
	c = socket(hcn_family(), SOCK_CONS | SOCK_NONBLOCK, CONS_REL);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, ht_connect(c, HT_NAME, 0));
	ASSERT_EQ(0, getsockopt(c, SOL_SOCKET, SO_RCVBUF, &rcvbuf, &olen));
	ASSERT_EQ(0, ht_info(c, &hi));
	TH_LOG("SO_RCVBUF %d, this netns's tcp_rmem at 12000000: %llu segments",
	       rcvbuf, (unsigned long long)hi.hi_segments);
	EXPECT_EQ(GROW_MAX, rcvbuf);
	ASSERT_EQ(0, fcntl(c, F_SETFL, 0));
	EXPECT_EQ(GROW_LEN, ht_read_stream(c, dst, GROW_LEN + 1, 65536));
	EXPECT_EQ(0, memcmp(src, dst, GROW_LEN));
	close(c);
	close(prod);
	free(src);
	free(dst);
}

#define SCAN_WINDOW	HICN_WINDOW_MAX
#define SCAN_LEN	((size_t)(SCAN_WINDOW + 8) * HICN_PACKET_SIZE_MIN)
#define SCAN_LIFETIME	2000	/* retransmissions within the tests' 60 s */
#define HOLD_LIFETIME	20000	/* the whole window held at once, however slow */
#define WAIT_MS		20000	/* for segment 0, however slow */

/*
 * A consumer of @name with a window of 4096 interests living @lifetime
 * ms, which has read the first byte of the object (SCAN_LEN bytes in
 * segments of HICN_PACKET_SIZE_MIN): its SO_RCVBUF leaves room for a few
 * segments only, so no more interests go until window_open().  The
 * consumer, or -1.
 */
static int window_consumer(const char *name, int lifetime)
{
	struct pollfd pfd = { .events = POLLIN };
	char byte;
	int c;

	c = socket(hcn_family(), SOCK_CONS | SOCK_NONBLOCK, CONS_REL);
	if (c < 0)
		return -1;
	pfd.fd = c;
	if (ht_setint(c, HICN_INTEREST_LIFETIME, lifetime) ||
	    ht_setint(c, HICN_RETX_LIMIT, 4) ||
	    ht_setint(c, HICN_WINDOW, SCAN_WINDOW) ||
	    setsockopt(c, SOL_SOCKET, SO_RCVBUF, &(int){ 1 }, sizeof(int)) ||
	    ht_connect(c, name, 0) || poll(&pfd, 1, WAIT_MS) != 1 ||
	    recv(c, &byte, 1, 0) != 1) {
		close(c);
		return -1;
	}
	return c;
}

/* Room for the whole window: the consumer sends it.  0 or -1. */
static int window_open(int c)
{
	int rcvbuf = 64 << 20;
	char byte;

	if (setsockopt(c, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		return -1;
	recv(c, &byte, 1, 0);
	return 0;
}

/* system() of a formatted command: 0 when it exited 0. */
static int run(const char *fmt, ...)
{
	char cmd[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd) ? -1 : 0;
}

/* A producer in another network namespace, and our route to it. */
struct remote {
	int		prod;	/* the producer there, which keeps the netns */
	__u32		face;	/* our UDP face to it */
	struct in6_addr	prefix;	/* HT_NS/REMOTE_PLEN, by @face */
};

#define REMOTE_PLEN	120	/* HT_NAME and HT_NAME2, inside HT_NS/64 */
#define REMOTE_HERE	"10.79.0.1"
#define REMOTE_THERE	"10.79.0.2"

/*
 * The producer's side of remote_producer(), in the new netns: a producer
 * of HT_NS that publishes SCAN_LEN bytes under each of @names, and a
 * listener at REMOTE_THERE that makes a face for the interests it gets.
 */
static int remote_side(struct remote *r, const char *const *names, int n)
{
	struct hcn_listener l = { .family = AF_INET };
	char *obj = calloc(1, SCAN_LEN);
	int i, err = -1;

	r->prod = ht_producer(PROD_REL);
	if (!obj || r->prod < 0 ||
	    ht_setint(r->prod, HICN_PACKET_SIZE, HICN_PACKET_SIZE_MIN))
		goto out;
	for (i = 0; i < n; i++)
		if (ht_publish(r->prod, names[i], obj, SCAN_LEN, 0) !=
		    (ssize_t)SCAN_LEN)
			goto out;
	if (run("ip addr add %s/24 dev htb && ip link set htb up",
		REMOTE_THERE) ||
	    inet_pton(AF_INET, REMOTE_THERE, &l.local.v4) != 1)
		goto out;
	l.auto_faces = 1;
	l.attrs = HCN_ATTR(HICN_A_LISTENER_LOCAL) |
		  HCN_ATTR(HICN_A_LISTENER_AUTO_FACES);
	err = hcn_listener_add(&l, NULL) ? -1 : 0;
out:
	free(obj);
	return err;
}

/*
 * Segment 0 from a producer that is not ours.  Every producer of a netns
 * numbers its versions above those the producers of the namespace gave
 * out before (version floors), so that a name and version are one object
 * there: after a producer of this netns served version 1, no producer of
 * it holds interests for version 1 again.  The producer that serves
 * segment 0 is therefore in another netns, linked to ours by a veth pair
 * (remote_side()), reached by a UDP face and a route of HT_NS/REMOTE_PLEN
 * (longer than the fixture's claim, so it decides); remote_end() removes
 * the route, and the fixture's producer, which has published nothing,
 * holds every interest for the rest.  0 or -1.
 */
static int remote_producer(struct remote *r, const char *const *names, int n)
{
	struct hcn_listener l = { .family = AF_INET };
	struct hcn_face f = { .family = AF_INET };
	int here, there = -1, err = -1;
	__u32 lid;
	double end;

	r->prod = -1;
	here = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (here < 0)
		return -1;
	if (unshare(CLONE_NEWNET))
		goto out;
	there = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (there < 0 || setns(here, CLONE_NEWNET) ||
	    run("ip link add hta type veth peer name htb netns /proc/%d/fd/%d",
		getpid(), there) ||
	    run("ip addr add %s/24 dev hta && ip link set hta up",
		REMOTE_HERE) ||
	    setns(there, CLONE_NEWNET))
		goto out;
	err = remote_side(r, names, n);
	if (setns(here, CLONE_NEWNET) || err)
		goto fail;

	/* Here: a face to the producer's listener, a route by it once up. */
	err = -1;
	if (inet_pton(AF_INET, REMOTE_HERE, &l.local.v4) != 1 ||
	    inet_pton(AF_INET, REMOTE_THERE, &f.remote.v4) != 1 ||
	    hcn_pton(AF_HICN, HT_NS, &r->prefix) != 1)
		goto fail;
	l.attrs = HCN_ATTR(HICN_A_LISTENER_LOCAL);
	if (hcn_listener_add(&l, &lid))
		goto fail;
	f.listener_id = lid;
	f.attrs = HCN_ATTR(HICN_A_FACE_LISTENER_ID) | HCN_ATTR(HICN_A_FACE_REMOTE);
	if (hcn_face_add(&f, &r->face))
		goto fail;
	end = ht_ms() + WAIT_MS;
	while (!hcn_face_get(r->face, &f) && !f.up && ht_ms() < end)
		ht_sleep_ms(10);
	if (!f.up || hcn_route_add(&r->prefix, REMOTE_PLEN, r->face, 0))
		goto fail;
	err = 0;
	goto out;
fail:
	err = -1;
	if (r->prod >= 0)
		close(r->prod);
	r->prod = -1;
out:
	if (there >= 0)
		close(there);
	close(here);
	return err;
}

/* The route to the remote producer goes: ours holds what comes next. */
static int remote_end(struct remote *r)
{
	return hcn_route_del(&r->prefix, REMOTE_PLEN, r->face);
}

/*
 * A window of 4096 interests that all go unanswered: segment 0 came from
 * remote_producer(), and the fixture's producer holds the rest (a UDP
 * face would refuse most of a window sent at once: its queue is
 * shorter), renewing them as the consumer resends them at their RTO.
 * Retransmitting that window must look at each slot about once per
 * resend, not walk the window once per resend (4096 * 4096 / 2 slots
 * under a lock that keeps bottom halves off), nor once each time a few
 * come due: on the debug kernel the window's sends spread over seconds,
 * and a walk per batch of due slots examined 521,031 slots for 10,437
 * resends.  Counted from before the window opens: there every round may
 * be over by the time window_open() returns.
 */
TEST_F_TIMEOUT(mem, retransmission_scan_bounded, 120)
{
	long long s0 = ht_stat("cons_scan_steps"), steps, bound;
	static const char *const names[] = { HT_NAME };
	struct hicn_info hi;
	struct remote r;
	double end;
	int c;

	ASSERT_LE(0, s0);
	ASSERT_EQ(0, remote_producer(&r, names, 1));
	c = window_consumer(HT_NAME, SCAN_LIFETIME);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, remote_end(&r));
	ASSERT_EQ(0, window_open(c));
	ASSERT_EQ(0, ht_info(c, &hi));
	ASSERT_LE(SCAN_WINDOW - 16, hi.hi_interests_sent);

	/*
	 * A round of retransmissions at least, by the consumer's own timer
	 * (the debug kernel under TCG resends about 100 a second here).
	 */
	end = ht_ms() + 60000;
	while (!ht_info(c, &hi) && hi.hi_interests_retx < SCAN_WINDOW - 16 &&
	       ht_ms() < end)
		ht_sleep_ms(10);
	steps = ht_stat("cons_scan_steps") - s0;
	bound = 2LL * ((long long)hi.hi_interests_retx + SCAN_WINDOW);
	TH_LOG("%llu interests resent, %lld window slots examined (bound %lld)",
	       (unsigned long long)hi.hi_interests_retx, steps, bound);
	ASSERT_LE(SCAN_WINDOW - 16, hi.hi_interests_retx);
	/* Counted: each resend looked at its slot. */
	EXPECT_LE((long long)hi.hi_interests_retx, steps);
	EXPECT_GE(bound, steps);
	close(c);
	close(r.prod);
}

/*
 * The producer holding those 4096 interests finds each new one among the
 * others by hash (renewals by retransmission take the same look-up): a
 * few comparisons each, not a walk over all of them (4096 * 4096 / 2 with
 * bottom halves off, and from softirq once faces to other hosts bring
 * interests).  The interests live long enough for the whole window to be
 * held at once however slowly the consumer sends it (the debug kernel on a
 * slow machine took more than the 2 s of SCAN_LIFETIME).
 */
TEST_F_TIMEOUT(mem, held_interests_found_by_hash, 120)
{
	long long h0 = ht_stat("prod_held_steps"), steps, held = 0, v;
	static const char *const names[] = { HT_NAME };
	struct hicn_info hi;
	struct remote r;
	double end;
	int c;

	ASSERT_LE(0, h0);
	ASSERT_EQ(0, remote_producer(&r, names, 1));
	c = window_consumer(HT_NAME, HOLD_LIFETIME);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, remote_end(&r));
	ASSERT_EQ(0, window_open(c));
	end = ht_ms() + 30000;
	do {
		v = ht_stat("prod_held");
		held = v > held ? v : held;
		if (held >= SCAN_WINDOW - 64)	/* the rest answered */
			break;
		ht_sleep_ms(10);
	} while (ht_ms() < end);
	ASSERT_EQ(0, ht_info(c, &hi));
	steps = ht_stat("prod_held_steps") - h0;
	TH_LOG("%lld interests held at once, %llu sent, %lld held interests compared",
	       held, (unsigned long long)hi.hi_interests_sent, steps);
	ASSERT_LE(SCAN_WINDOW / 2, held);
	EXPECT_LE(SCAN_WINDOW / 2, steps);	/* counted */
	EXPECT_GE(8LL * (long long)hi.hi_interests_sent, steps);
	close(c);
	close(r.prod);
}

#define HELD_MAX	4096	/* per producer (hicn-api.rst, held interests) */

/*
 * Two windows of 4096 unanswered interests at one producer (as in
 * held_interests_found_by_hash, for two names): it holds HELD_MAX of them
 * at most, the oldest going first, never all 8192.
 */
TEST_F_TIMEOUT(mem, held_interests_capped, 120)
{
	static const char *const names[2] = { HT_NAME, HT_NAME2 };
	long long held = 0, v, sent;
	struct hicn_info hi;
	struct remote r;
	double end;
	int c[2], i;

	ASSERT_EQ(0, remote_producer(&r, names, 2));
	for (i = 0; i < 2; i++) {
		c[i] = window_consumer(names[i], HOLD_LIFETIME);
		ASSERT_LE(0, c[i]);
	}
	ASSERT_EQ(0, remote_end(&r));
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, window_open(c[i]));
	end = ht_ms() + 30000;
	do {
		v = ht_stat("prod_held");
		held = v > held ? v : held;
		for (sent = 0, i = 0; i < 2; i++) {
			ASSERT_EQ(0, ht_info(c[i], &hi));
			sent += hi.hi_interests_sent;
		}
		if (sent >= 2 * (SCAN_WINDOW - 16) && v >= HELD_MAX - 64)
			break;
		ht_sleep_ms(10);
	} while (ht_ms() < end);
	TH_LOG("%lld interests sent, %lld held at most, %lld now", sent, held,
	       v);
	EXPECT_LE(2LL * (SCAN_WINDOW - 16), sent);
	EXPECT_GE(HELD_MAX, held);
	EXPECT_LE(HELD_MAX - 64, v);
	for (i = 0; i < 2; i++)
		close(c[i]);
	close(r.prod);
}

#define PIT_N		2500
#define PIT_GC_BATCH	1024

/*
 * 2500 interests held by the producer, so 2500 PIT entries: each run of
 * the PIT's collector examines a slice of about 1024 of them (whole hash
 * buckets), not all, and every run examines that many, so that the
 * sweep goes round the table.
 */
TEST_F_TIMEOUT(mem, pit_gc_bounded, 180)
{
	struct rlimit rl = { PIT_N + 64, PIT_N + 64 };
	long long r0, s0, runs, steps;
	int *c, i;
	char name[64];
	double end;

	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &rl));
	c = calloc(PIT_N, sizeof(*c));
	ASSERT_NE(NULL, c);
	for (i = 0; i < PIT_N; i++) {
		c[i] = socket(hcn_family(), SOCK_CONS | SOCK_NONBLOCK,
			      CONS_UNREL);
		ASSERT_LE(0, c[i]);
		ASSERT_EQ(0, ht_setint(c[i], HICN_INTEREST_LIFETIME, 120000));
		name_of(name, sizeof(name), i);
		ASSERT_EQ(0, ht_connect(c[i], name, 0));
	}
	ASSERT_EQ(PIT_N, ht_stat("pit_entries"));
	r0 = ht_stat("pit_gc_runs");
	s0 = ht_stat("pit_gc_steps");
	ASSERT_LE(0, r0);
	ASSERT_LE(0, s0);
	/* Four runs of the collector (every 0.5 s). */
	end = ht_ms() + 30000;
	while (ht_stat("pit_gc_runs") < r0 + 4 && ht_ms() < end)
		ht_sleep_ms(50);
	runs = ht_stat("pit_gc_runs") - r0;
	steps = ht_stat("pit_gc_steps") - s0;
	TH_LOG("%d PIT entries: %lld runs examined %lld entries", PIT_N, runs,
	       steps);
	ASSERT_LE(4, runs);
	EXPECT_LE(runs * PIT_GC_BATCH, steps);
	EXPECT_GE(runs * (PIT_GC_BATCH + 64), steps);
	for (i = 0; i < PIT_N; i++)
		close(c[i]);
	free(c);
	EXPECT_EQ(0, stat_wait("pit_entries", 0, 10000));
}

#define CS_SEGS		8192
#define CS_GC_BATCH	1024

/* A large store is swept a slice per run, and wholly. */
TEST_F_TIMEOUT(mem, cs_gc_bounded, 120)
{
	size_t len = CS_SEGS * HICN_PACKET_SIZE_MIN;
	char *buf = calloc(1, len + 1);
	long long r0, s0, runs, steps;
	int c;

	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, ht_setint(self->prod, HICN_PACKET_SIZE,
			       HICN_PACKET_SIZE_MIN));
	ASSERT_EQ((ssize_t)len, ht_publish(self->prod, HT_NAME, buf, len, 0));
	c = ht_consumer(CONS_REL, HT_NAME, 0);
	ASSERT_LE(0, c);
	ASSERT_EQ((ssize_t)len, recv(c, buf, len + 1, 0));
	close(c);
	ASSERT_LE(CS_SEGS - 1, ht_stat("cs_entries"));
	r0 = ht_stat("cs_gc_runs");
	s0 = ht_stat("cs_gc_steps");
	ASSERT_LE(0, r0);
	ASSERT_LE(0, s0);
	/* The producer goes: every entry is stale, and all go in slices. */
	close(self->prod);
	self->prod = -1;
	EXPECT_EQ(0, stat_wait("cs_entries", 0, 60000));
	runs = ht_stat("cs_gc_runs") - r0;
	steps = ht_stat("cs_gc_steps") - s0;
	TH_LOG("%lld runs examined %lld entries", runs, steps);
	EXPECT_LE(1, runs);
	EXPECT_GE(CS_GC_BATCH * runs, steps);
	free(buf);
}

#define MIB		(1024 * 1024)
#define PIN_LEN		(2 * MIB)

/* Fetch the newest version of HT_NAME whole: 0 or -1. */
static int fetch_all(char *buf)
{
	int c = ht_consumer(CONS_REL, HT_NAME, 0);
	ssize_t n;

	if (c < 0)
		return -1;
	n = recv(c, buf, PIN_LEN + 1, 0);
	close(c);
	return n == PIN_LEN ? 0 : -1;
}

TEST(pinned_versions_stay_charged)
{
	char *src = calloc(1, PIN_LEN), *dst = malloc(PIN_LEN + 1);
	int prod;

	ASSERT_NE(NULL, src);
	ASSERT_NE(NULL, dst);
	ASSERT_EQ(0, ht_enter_netns());
	prod = ht_producer(PROD_UNREL);
	ASSERT_LE(0, prod);
	/* After the socket: its send buffer stays a quarter of 512 MiB. */
	ASSERT_EQ(0, sysctl_set(HT_SYSCTL("prod_mem_max"), "5242880"));

	ASSERT_EQ(PIN_LEN, ht_publish(prod, HT_NAME, src, PIN_LEN, 0));
	/* Segments 1.. of version 1 go into the content store. */
	ASSERT_EQ(0, fetch_all(dst));
	ASSERT_LT(0, ht_stat("cs_entries"));
	/* Version 2 replaces it in the producer; the CS still holds it. */
	ASSERT_EQ(PIN_LEN, ht_publish(prod, HT_NAME, src, PIN_LEN, 0));
	EXPECT_LE(2 * PIN_LEN, ht_stat("prod_mem"));
	EXPECT_EQ(-1, ht_publish(prod, HT_NAME, src, PIN_LEN, 0));
	EXPECT_EQ(ENOBUFS, errno);

	/* The store lets go: the charge goes, publishing works again. */
	ASSERT_EQ(0, sysctl_set(HT_SYSCTL("cs_max_entries"), "0"));
	EXPECT_GT(2 * PIN_LEN, ht_stat("prod_mem"));
	EXPECT_EQ(PIN_LEN, ht_publish(prod, HT_NAME, src, PIN_LEN, 0))
		TH_LOG("publish: %s", strerror(errno));
	close(prod);
	EXPECT_EQ(0, ht_stat("prod_mem"));
	free(src);
	free(dst);
}

TEST_HARNESS_MAIN
