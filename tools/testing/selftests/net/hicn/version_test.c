// SPDX-License-Identifier: GPL-2.0
/*
 * AF_HICN versions and subscriptions.
 *
 * - The producer's kernel numbers versions 1, 2, 3 per name (HICN_INFO
 *   hi_last_version, and the sin_suffix recvfrom() returns).
 * - sin_suffix 0 fetches the newest version; sin_suffix N fetches version N
 *   (datagram and stream mode); N above the newest waits until it is
 *   published.
 * - PROD_UNREL keeps only the newest version: an older one is ENOENT.
 * - A name and version mean one object in the netns, whichever producer
 *   published it (issue 12): a producer that claims the namespace after
 *   another one released it (the same prefix, a longer one inside it or a
 *   shorter one around it) numbers above every version the first gave
 *   out, and an older version is ENOENT, never its object.  The records
 *   of released namespaces (hicn_stat fib_floors) are bounded: one per
 *   namespace claimed again and again, at most HICN_FLOOR_MAX in all, and
 *   versions still never repeat beyond that.
 * - HICN_CONTENT_EXPIRY: once a version has expired, fetching it is ENOENT
 *   (even when the content store saw it), and the newest-version question
 *   waits and times out; the producer holds nothing any more.
 * - HICN_SUBSCRIBE: recv() blocks until the producer (another process or
 *   thread) publishes the next version, the next recv() waits for the one
 *   after; no ETIMEDOUT while waiting (interests are re-expressed),
 *   SO_RCVTIMEO bounds the wait; through epoll, EPOLLIN comes only after the
 *   publication.  A subscriber never goes back to a version older than one
 *   it read: not across producers, not when its PROBE goes unanswered.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <netinet/in.h>

#include "hicn_test.h"
#include "kselftest_harness.h"

/* The payload of version @v of a name: recognisable, of varying length. */
static size_t payload(char *buf, int v)
{
	int n = sprintf(buf, "version %d of the object:", v);

	memset(buf + n, 'a' + v, v * 700);
	return n + v * 700;
}

/* Publish version @v's payload under @addr; the version the kernel gave. */
static int publish_v(int prod, const char *addr, int v)
{
	char buf[4096];
	size_t len = payload(buf, v);
	struct hicn_info hi;

	if (ht_publish(prod, addr, buf, len, 0) != (ssize_t)len)
		return -1;
	if (ht_info(prod, &hi))
		return -1;
	return hi.hi_last_version;
}

/*
 * Fetch @addr version @ver in datagram mode; 0 and the version received in
 * *@got when the payload is version *@got's, else -1 with errno set (EBADMSG
 * for a wrong payload).
 */
static int fetch_v(int protocol, const char *addr, __u32 ver, __u32 *got)
{
	int c = ht_consumer(protocol, addr, ver), err = 0;
	char buf[8192], want[4096];
	struct sockaddr_hicn from;
	socklen_t fromlen = sizeof(from);
	ssize_t n;

	if (c < 0)
		return -1;
	n = recvfrom(c, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fromlen);
	if (n < 0)
		err = errno;
	else if (from.sin_suffix < 1 || from.sin_suffix > 5 ||
		 n != (ssize_t)payload(want, from.sin_suffix) ||
		 memcmp(buf, want, n))
		err = EBADMSG;
	close(c);
	if (err) {
		errno = err;
		return -1;
	}
	*got = from.sin_suffix;
	return 0;
}

/* A PROD_REL producer of @prefix/@plen, or -1. */
static int producer_of(const char *prefix, int plen)
{
	return ht_producer_of(PROD_REL, prefix, plen);
}

/* A consumer bound to HT_NAME with a short lifetime and no retransmission. */
static int short_consumer(int ms)
{
	int c = ht_consumer(CONS_REL, HT_NAME, 0);

	if (c < 0)
		return -1;
	if (ht_setint(c, HICN_INTEREST_LIFETIME, ms) ||
	    ht_setint(c, HICN_RETX_LIMIT, 0)) {
		close(c);
		return -1;
	}
	return c;
}

FIXTURE(ver)
{
	int prod;
};

FIXTURE_SETUP(ver)
{
	ASSERT_EQ(0, ht_enter_netns());
	self->prod = ht_producer(PROD_REL);
	ASSERT_LE(0, self->prod);
}

FIXTURE_TEARDOWN(ver)
{
	if (self->prod >= 0)
		close(self->prod);
}

TEST_F(ver, numbered_per_name)
{
	struct hicn_info hi;

	EXPECT_EQ(1, publish_v(self->prod, HT_NAME, 1));
	EXPECT_EQ(2, publish_v(self->prod, HT_NAME, 2));
	EXPECT_EQ(1, publish_v(self->prod, HT_NAME2, 1));
	EXPECT_EQ(3, publish_v(self->prod, HT_NAME, 3));
	ASSERT_EQ(0, ht_info(self->prod, &hi));
	EXPECT_EQ(4, hi.hi_objects);
	/* PROD_REL keeps them all. */
	EXPECT_EQ(4, hi.hi_versions);
}

TEST_F(ver, newest_by_default_and_specific_versions)
{
	__u32 got = 0;

	ASSERT_EQ(1, publish_v(self->prod, HT_NAME, 1));
	ASSERT_EQ(2, publish_v(self->prod, HT_NAME, 2));
	ASSERT_EQ(3, publish_v(self->prod, HT_NAME, 3));
	ASSERT_EQ(1, publish_v(self->prod, HT_NAME2, 1));

	ASSERT_EQ(0, fetch_v(CONS_REL, HT_NAME, 0, &got)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(3, got);
	ASSERT_EQ(0, fetch_v(CONS_REL, HT_NAME, 2, &got)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(2, got);
	ASSERT_EQ(0, fetch_v(CONS_REL, HT_NAME, 1, &got)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(1, got);
	ASSERT_EQ(0, fetch_v(CONS_UNREL, HT_NAME, 3, &got)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(3, got);
	ASSERT_EQ(0, fetch_v(CONS_REL, HT_NAME2, 0, &got)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(1, got);

	/* A newer version: the newest moves on. */
	ASSERT_EQ(4, publish_v(self->prod, HT_NAME, 4));
	ASSERT_EQ(0, fetch_v(CONS_REL, HT_NAME, 0, &got)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(4, got);
}

TEST_F(ver, stream_mode_specific_version)
{
	int c = socket(hcn_family(), SOCK_CONS, CONS_REL);
	char buf[8192], want[4096];
	size_t wlen;
	struct hicn_info hi;

	ASSERT_LE(0, c);
	ASSERT_EQ(1, publish_v(self->prod, HT_NAME, 1));
	ASSERT_EQ(2, publish_v(self->prod, HT_NAME, 2));

	ASSERT_EQ(0, ht_connect(c, HT_NAME, 1));
	wlen = payload(want, 1);
	ASSERT_EQ((ssize_t)wlen, ht_read_stream(c, buf, sizeof(buf), 1000));
	EXPECT_EQ(0, memcmp(buf, want, wlen));
	ASSERT_EQ(0, ht_info(c, &hi));
	EXPECT_EQ(1, hi.hi_last_version);

	/* connect() again re-targets the socket. */
	ASSERT_EQ(0, ht_connect(c, HT_NAME, 0));
	wlen = payload(want, 2);
	ASSERT_EQ((ssize_t)wlen, ht_read_stream(c, buf, sizeof(buf), 1000));
	EXPECT_EQ(0, memcmp(buf, want, wlen));
	ASSERT_EQ(0, ht_info(c, &hi));
	EXPECT_EQ(2, hi.hi_last_version);
	close(c);
}

/*
 * Producer A publishes HT_NAME three times and closes; B claims
 * @prefix/@plen (overlapping A's namespace) and publishes it: version 4,
 * not 1 again, and a fetch of version 1 is ENOENT rather than B's object.
 * B's producer, or -1 after a failed check (logged).
 */
static int claim_after(struct __test_metadata *_metadata, int a,
		       const char *prefix, int plen)
{
	__u32 got = 0;
	int b, v;

	for (v = 1; v <= 3; v++)
		if (publish_v(a, HT_NAME, v) != v)
			return -1;
	close(a);
	b = producer_of(prefix, plen);
	if (b < 0)
		return -1;
	EXPECT_EQ(4, publish_v(b, HT_NAME, 4));
	/* Every name of the namespace: another one starts above 3 too. */
	EXPECT_EQ(4, publish_v(b, HT_NAME2, 4));
	EXPECT_EQ(-1, fetch_v(CONS_REL, HT_NAME, 1, &got))
		TH_LOG("version 1 fetched: version %u's payload", got);
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(0, fetch_v(CONS_REL, HT_NAME, 4, &got)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(4, got);
	EXPECT_EQ(1, ht_stat("fib_floors"));
	return b;
}

/* The same namespace claimed again: versions go on from the first one's. */
TEST_F(ver, floor_same_namespace)
{
	int b = claim_after(_metadata, self->prod, HT_NS, HT_NS_LEN);

	self->prod = -1;
	ASSERT_LE(0, b);
	/* B's claim holds: the record is A's until B releases it. */
	close(b);
	EXPECT_EQ(1, ht_stat("fib_floors"));
	b = producer_of(HT_NS, HT_NS_LEN);
	ASSERT_LE(0, b);
	EXPECT_EQ(5, publish_v(b, HT_NAME, 5));
	close(b);
}

/* A longer prefix inside the released namespace. */
TEST_F(ver, floor_longer_prefix_inside)
{
	int b = claim_after(_metadata, self->prod, HT_NS, HT_NS_LEN + 16);

	self->prod = -1;
	ASSERT_LE(0, b);
	close(b);
	/* A's /64 and B's /80 (inside it, not containing it): two records. */
	EXPECT_EQ(2, ht_stat("fib_floors"));
	b = producer_of(HT_NS, HT_NS_LEN);
	ASSERT_LE(0, b);
	EXPECT_EQ(5, publish_v(b, HT_NAME, 5));
	close(b);
	/* The /64 released above both: it replaces them. */
	EXPECT_EQ(1, ht_stat("fib_floors"));
}

/* A shorter prefix around the released namespace. */
TEST_F(ver, floor_shorter_prefix_around)
{
	int b = claim_after(_metadata, self->prod, HT_NS, HT_NS_LEN - 16);

	self->prod = -1;
	ASSERT_LE(0, b);
	close(b);
	/* B's /48 contains A's /64: one record. */
	EXPECT_EQ(1, ht_stat("fib_floors"));
	b = producer_of(HT_NS, HT_NS_LEN);
	ASSERT_LE(0, b);
	EXPECT_EQ(5, publish_v(b, HT_NAME, 5));
	close(b);
}

/* A namespace outside the released one numbers from 1. */
TEST_F(ver, floor_other_namespace_unaffected)
{
	int b;

	ASSERT_EQ(1, publish_v(self->prod, HT_NAME, 1));
	ASSERT_EQ(2, publish_v(self->prod, HT_NAME, 2));
	close(self->prod);
	self->prod = -1;
	b = producer_of("b001:a:b:d::", HT_NS_LEN);
	ASSERT_LE(0, b);
	EXPECT_EQ(1, publish_v(b, HT_OUTSIDE, 1));
	close(b);
}

/* Claimed and released again and again: one record, versions go on. */
TEST_F(ver, floor_one_record_per_namespace)
{
	int i, p;

	close(self->prod);
	self->prod = -1;
	for (i = 1; i <= 100; i++) {
		p = producer_of(HT_NS, HT_NS_LEN);
		ASSERT_LE(0, p);
		/* Every third claim publishes nothing. */
		if (i % 3)
			ASSERT_EQ(i - i / 3, publish_v(p, HT_NAME, 1));
		close(p);
		ASSERT_EQ(1, ht_stat("fib_floors")) TH_LOG("claim %d", i);
	}
}

/* hicn.h's HICN_FLOOR_MAX: records of released namespaces a netns keeps. */
#define FLOOR_MAX	1024
#define FLOOR_CLAIMS	(FLOOR_MAX + 16)

/* Prefix @i of FLOOR_CLAIMS distinct, disjoint namespaces. */
static const char *floor_prefix(int i, char *buf, size_t len)
{
	snprintf(buf, len, "b002:0:%x:%x::", i >> 8, i & 0xff);
	return buf;
}

/*
 * More released namespaces than the records kept: the count stays at the
 * maximum, and a namespace claimed again, its record kept or folded into
 * the netns's floor, still numbers above what it gave out.
 */
TEST_F_TIMEOUT(ver, floors_bounded, 300)
{
	static const int again[] = { 0, 1, 15, 16, 17, FLOOR_CLAIMS / 2,
				     FLOOR_CLAIMS - 1 };
	static int top[FLOOR_CLAIMS];
	char ns[48], name[64];
	unsigned int k;
	int i, p, v;

	close(self->prod);
	self->prod = -1;
	for (i = 0; i < FLOOR_CLAIMS; i++) {
		floor_prefix(i, ns, sizeof(ns));
		snprintf(name, sizeof(name), "%s1", ns);
		p = producer_of(ns, HT_NS_LEN);
		ASSERT_LE(0, p) TH_LOG("claim %d: %s", i, strerror(errno));
		top[i] = publish_v(p, name, 1);
		ASSERT_LE(1, top[i]) TH_LOG("claim %d", i);
		close(p);
	}
	EXPECT_EQ(FLOOR_MAX, ht_stat("fib_floors"));
	for (k = 0; k < ARRAY_SIZE(again); k++) {
		i = again[k];
		floor_prefix(i, ns, sizeof(ns));
		snprintf(name, sizeof(name), "%s1", ns);
		p = producer_of(ns, HT_NS_LEN);
		ASSERT_LE(0, p);
		v = publish_v(p, name, 1);
		EXPECT_LT(top[i], v) TH_LOG("namespace %d: version %d again", i, v);
		close(p);
	}
	EXPECT_EQ(FLOOR_MAX, ht_stat("fib_floors"));
}

/* PROD_UNREL keeps only the newest version of each name. */
TEST(unrel_keeps_newest_only)
{
	struct hicn_info hi;
	__u32 got = 0;
	int prod;

	ASSERT_EQ(0, ht_enter_netns());
	prod = ht_producer(PROD_UNREL);
	ASSERT_LE(0, prod);
	ASSERT_EQ(1, publish_v(prod, HT_NAME, 1));
	ASSERT_EQ(0, fetch_v(CONS_REL, HT_NAME, 1, &got));
	ASSERT_EQ(2, publish_v(prod, HT_NAME, 2));
	ASSERT_EQ(0, ht_info(prod, &hi));
	EXPECT_EQ(1, hi.hi_versions);

	/* Version 1 is gone at once, even though the CS saw it. */
	EXPECT_EQ(-1, fetch_v(CONS_REL, HT_NAME, 1, &got));
	EXPECT_EQ(ENOENT, errno);
	ASSERT_EQ(0, fetch_v(CONS_REL, HT_NAME, 2, &got)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(2, got);
	ASSERT_EQ(0, fetch_v(CONS_REL, HT_NAME, 0, &got)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(2, got);

	/* Names are independent. */
	ASSERT_EQ(1, publish_v(prod, HT_NAME2, 1));
	ASSERT_EQ(0, fetch_v(CONS_REL, HT_NAME, 2, &got)) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, ht_info(prod, &hi));
	EXPECT_EQ(2, hi.hi_versions);
	close(prod);
}

TEST_F(ver, content_expiry)
{
	struct hicn_info hi;
	__u32 got = 0;
	char buf[8192];
	double t0;
	int c;

	EXPECT_EQ(HICN_CONTENT_EXPIRY_DEFAULT,
		  ht_getint(self->prod, HICN_CONTENT_EXPIRY));
	ASSERT_EQ(0, ht_setint(self->prod, HICN_CONTENT_EXPIRY, 200));
	EXPECT_EQ(200, ht_getint(self->prod, HICN_CONTENT_EXPIRY));
	ASSERT_EQ(1, publish_v(self->prod, HT_NAME, 1));
	/* Fetched once, so the content store holds it too. */
	ASSERT_EQ(0, fetch_v(CONS_REL, HT_NAME, 1, &got)) TH_LOG("%s", strerror(errno));
	ht_sleep_ms(500);

	EXPECT_EQ(-1, fetch_v(CONS_REL, HT_NAME, 1, &got));
	EXPECT_EQ(ENOENT, errno);
	ASSERT_EQ(0, ht_info(self->prod, &hi));
	EXPECT_EQ(0, hi.hi_versions);
	EXPECT_EQ(0, hi.hi_mem);

	/* No version exists now: the newest one is waited for, in vain. */
	c = short_consumer(200);
	ASSERT_LE(0, c);
	t0 = ht_ms();
	EXPECT_EQ(-1, recv(c, buf, sizeof(buf), 0));
	EXPECT_EQ(ETIMEDOUT, errno);
	EXPECT_LE(190, ht_ms() - t0);
	close(c);
}

/*
 * Expiry 0 keeps a version until the socket closes: still there once a
 * version published beside it with a 100 ms expiry is gone and, with
 * LONG=1 (make check-long), past the default expiry (60 s), which a
 * socket that took 0 for "the default" would have dropped.  Without the
 * minute's wait, netlink.sh tells 0 from the default: the content store
 * lists the segments of a version published with 0 with no expiry.
 */
TEST_F_TIMEOUT(ver, expiry_zero_keeps, HICN_CONTENT_EXPIRY_DEFAULT / 1000 + 60)
{
	const char *long_run = getenv("LONG");
	struct hicn_info hi;
	__u32 got = 0;
	double end;

	ASSERT_EQ(0, ht_setint(self->prod, HICN_CONTENT_EXPIRY, 100));
	ASSERT_EQ(1, publish_v(self->prod, HT_NAME2, 1));
	ASSERT_EQ(0, ht_setint(self->prod, HICN_CONTENT_EXPIRY, 0));
	EXPECT_EQ(0, ht_getint(self->prod, HICN_CONTENT_EXPIRY));
	ASSERT_EQ(1, publish_v(self->prod, HT_NAME, 1));
	end = ht_ms() + 20000;
	while (!ht_info(self->prod, &hi) && hi.hi_versions > 1 &&
	       ht_ms() < end)
		ht_sleep_ms(20);
	if (long_run && !strcmp(long_run, "1"))
		/* Time passing is what is tested: no event to wait for. */
		ht_sleep_ms(HICN_CONTENT_EXPIRY_DEFAULT + 2000);
	ASSERT_EQ(0, ht_info(self->prod, &hi));
	EXPECT_EQ(1, hi.hi_versions);
	ASSERT_EQ(0, fetch_v(CONS_REL, HT_NAME, 1, &got)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(1, got);
}

/* How long a test waits for an event that should come at once. */
#define WAIT_MS		20000

/*
 * Publish @version once thread @waiter sleeps in recv() (and @delay_ms
 * later): the fetch cannot have been answered by what existed before.
 * @slept tells whether it was seen asleep.
 */
struct later {
	int prod;
	pid_t waiter;
	int delay_ms;
	int version;
	int slept;
	int result;
};

static void *publish_later(void *arg)
{
	struct later *l = arg;

	l->slept = ht_wait_sleeping(l->waiter, WAIT_MS);
	ht_sleep_ms(l->delay_ms);
	l->result = publish_v(l->prod, HT_NAME, l->version);
	return NULL;
}

/* A version above the newest waits until it is published. */
TEST_F(ver, future_version_waits)
{
	struct later l = { .prod = self->prod, .waiter = syscall(SYS_gettid),
			   .version = 2 };
	pthread_t t;
	__u32 got = 0;

	ASSERT_EQ(1, publish_v(self->prod, HT_NAME, 1));
	ASSERT_EQ(0, pthread_create(&t, NULL, publish_later, &l));
	ASSERT_EQ(0, fetch_v(CONS_REL, HT_NAME, 2, &got)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(2, got);
	pthread_join(t, NULL);
	/* It waited: asleep in recv() before version 2 existed. */
	EXPECT_EQ(1, l.slept);
	EXPECT_EQ(2, l.result);
}

/* A subscriber blocks until another process publishes the next version. */
TEST_F(ver, subscribe_blocks_until_published_by_process)
{
	int c = ht_consumer(CONS_REL, HT_NAME, 0), status, i, go[2];
	struct sockaddr_hicn from;
	socklen_t fromlen;
	char buf[8192], want[4096], x = 0;
	pid_t pid, parent = getpid();
	ssize_t n;

	ASSERT_LE(0, c);
	ASSERT_EQ(1, publish_v(self->prod, HT_NAME, 1));
	EXPECT_EQ(0, ht_getint(c, HICN_SUBSCRIBE));
	ASSERT_EQ(0, ht_setint(c, HICN_SUBSCRIBE, 1));
	EXPECT_EQ(1, ht_getint(c, HICN_SUBSCRIBE));

	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/*
		 * Versions 2 and 3 from another process, each once the
		 * parent, having said it is going to recvfrom(), sleeps in
		 * it (exit status 3 if it was never seen asleep).
		 */
		close(go[1]);
		for (i = 2; i <= 3; i++) {
			if (read(go[0], &x, 1) != 1)
				_exit(1);
			if (!ht_wait_task_sleeping(parent, parent, WAIT_MS))
				_exit(3);
			if (publish_v(self->prod, HT_NAME, i) != i)
				_exit(2);
		}
		_exit(0);
	}
	close(go[0]);

	for (i = 2; i <= 3; i++) {
		ASSERT_EQ(1, write(go[1], &x, 1));
		fromlen = sizeof(from);
		n = recvfrom(c, buf, sizeof(buf), 0, (struct sockaddr *)&from,
			     &fromlen);
		/* Not the version that existed: the next one, when it came. */
		ASSERT_EQ((ssize_t)payload(want, i), n) TH_LOG("v%d: %s", i, strerror(errno));
		EXPECT_EQ(0, memcmp(buf, want, n));
		EXPECT_EQ(i, from.sin_suffix);
	}
	close(go[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	close(c);
}

/* No ETIMEDOUT while a subscription waits longer than many lifetimes. */
TEST_F(ver, subscribe_outlives_interest_lifetime)
{
	struct later l = { .prod = self->prod, .waiter = syscall(SYS_gettid),
			   .delay_ms = 800, .version = 2 };
	int c = short_consumer(100);
	char buf[8192], want[4096];
	pthread_t t;
	ssize_t n;

	ASSERT_LE(0, c);
	ASSERT_EQ(1, publish_v(self->prod, HT_NAME, 1));
	ASSERT_EQ(0, ht_setint(c, HICN_SUBSCRIBE, 1));
	ASSERT_EQ(0, pthread_create(&t, NULL, publish_later, &l));
	n = recv(c, buf, sizeof(buf), 0);
	ASSERT_EQ((ssize_t)payload(want, 2), n) TH_LOG("recv: %s", strerror(errno));
	EXPECT_EQ(0, memcmp(buf, want, n));
	pthread_join(t, NULL);
	close(c);
}

/* SO_RCVTIMEO bounds a subscription's wait: EAGAIN. */
TEST_F(ver, subscribe_rcvtimeo_eagain)
{
	struct timeval tv = { .tv_usec = 300000 };
	int c = ht_consumer(CONS_REL, HT_NAME, 0);
	char buf[8192];
	double t0;

	ASSERT_LE(0, c);
	ASSERT_EQ(1, publish_v(self->prod, HT_NAME, 1));
	ASSERT_EQ(0, ht_setint(c, HICN_SUBSCRIBE, 1));
	ASSERT_EQ(0, setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
	t0 = ht_ms();
	EXPECT_EQ(-1, recv(c, buf, sizeof(buf), 0));
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_LE(280, ht_ms() - t0);
	close(c);
}

/*
 * Stream mode: read one object whole, until EOF, within SO_RCVTIMEO @ms;
 * the version whose payload it is (1 to 9), or -1 with errno set.
 */
static int read_version(int c, int ms)
{
	struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = ms % 1000 * 1000 };
	char buf[8192], want[8192];
	ssize_t n;
	int v;

	if (setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
		return -1;
	n = recv(c, buf, sizeof(buf), MSG_WAITALL);
	if (n < 0)
		return -1;
	for (v = 1; v <= 9; v++)
		if (n == (ssize_t)payload(want, v) && !memcmp(buf, want, n))
			return v;
	errno = EBADMSG;
	return -1;
}

/*
 * A subscription goes on across producers.  A producer that claims the
 * namespace after another numbers above it: a subscriber that read
 * version 3 of the first one and subscribes anew (connect()) waits, and
 * reads 4, the second producer's first version of the name.  Another name
 * of the namespace starts above 3 as well.
 */
TEST_F(ver, subscribe_across_producers)
{
	int c = socket(hcn_family(), SOCK_CONS, CONS_REL);

	ASSERT_LE(0, c);
	ASSERT_EQ(1, publish_v(self->prod, HT_NAME, 1));
	ASSERT_EQ(2, publish_v(self->prod, HT_NAME, 2));
	ASSERT_EQ(0, ht_setint(c, HICN_SUBSCRIBE, 1));
	ASSERT_EQ(0, ht_connect(c, HT_NAME, 0));
	ASSERT_EQ(3, publish_v(self->prod, HT_NAME, 3));
	ASSERT_EQ(3, read_version(c, 5000)) TH_LOG("recv: %s", strerror(errno));

	close(self->prod);
	self->prod = ht_producer(PROD_REL);
	ASSERT_LE(0, self->prod);
	ASSERT_EQ(0, ht_connect(c, HT_NAME, 0));
	EXPECT_EQ(-1, read_version(c, 300)) TH_LOG("read before a publication");
	EXPECT_EQ(EAGAIN, errno);
	ASSERT_EQ(4, publish_v(self->prod, HT_NAME, 4));
	EXPECT_EQ(4, read_version(c, 5000)) TH_LOG("recv: %s", strerror(errno));

	ASSERT_EQ(0, ht_connect(c, HT_NAME2, 0));
	ASSERT_EQ(4, publish_v(self->prod, HT_NAME2, 4));
	EXPECT_EQ(4, read_version(c, 5000)) TH_LOG("recv: %s", strerror(errno));
	close(c);
}

/*
 * A PROBE nobody answers does not send a subscription back.  The
 * subscriber read version 3; it subscribes anew while every interest for
 * the name leaves for a peer that never answers (ht_silent_route()), so
 * its PROBE times out.  It then asks for the version after 3, not after 0:
 * once the silence ends and its interest reaches the producer, which still
 * holds versions 1 to 3, nothing is read until version 4 is published.
 */
TEST_F(ver, subscribe_probe_timeout_never_goes_back)
{
	int c = socket(hcn_family(), SOCK_CONS, CONS_REL);
	struct hicn_info hi;
	struct ht_silent s;

	ASSERT_LE(0, c);
	ASSERT_EQ(1, publish_v(self->prod, HT_NAME, 1));
	ASSERT_EQ(2, publish_v(self->prod, HT_NAME, 2));
	ASSERT_EQ(0, ht_setint(c, HICN_SUBSCRIBE, 1));
	ASSERT_EQ(0, ht_setint(c, HICN_INTEREST_LIFETIME, 200));
	ASSERT_EQ(0, ht_connect(c, HT_NAME, 0));
	ASSERT_EQ(3, publish_v(self->prod, HT_NAME, 3));
	ASSERT_EQ(3, read_version(c, 5000)) TH_LOG("recv: %s", strerror(errno));

	ASSERT_EQ(0, ht_silent_route(&s, HT_NAME, 128));
	ASSERT_EQ(0, ht_connect(c, HT_NAME, 0));
	/* The PROBE leaves for the silent peer and times out there. */
	EXPECT_EQ(-1, read_version(c, 1000)) TH_LOG("read from a silent peer");
	EXPECT_EQ(EAGAIN, errno);
	ASSERT_EQ(0, ht_info(c, &hi));
	EXPECT_LE(1, hi.hi_timeouts);
	ASSERT_EQ(0, ht_silent_end(&s));
	/* Re-expressed every 200 ms, the interest now reaches the producer. */
	EXPECT_EQ(-1, read_version(c, 1500))
		TH_LOG("a version older than 3 was read after the PROBE");
	EXPECT_EQ(EAGAIN, errno);
	ASSERT_EQ(4, publish_v(self->prod, HT_NAME, 4));
	EXPECT_EQ(4, read_version(c, 5000)) TH_LOG("recv: %s", strerror(errno));
	close(s.peer);
	close(c);
}

/*
 * Stream mode on a non-blocking socket: recv() until 0, waiting in epoll
 * when there is nothing yet; the bytes read, or -1.
 */
static ssize_t epoll_read_object(int ep, int fd, char *buf, size_t cap)
{
	struct epoll_event out;
	size_t n = 0;
	ssize_t r;

	while (n < cap) {
		r = recv(fd, buf + n, cap - n, 0);
		if (r == 0)
			return n;
		if (r < 0 && errno == EAGAIN) {
			if (epoll_wait(ep, &out, 1, 5000) != 1)
				return -1;
			continue;
		}
		if (r < 0)
			return -1;
		n += r;
	}
	return -1;
}

/* Through epoll: EPOLLIN only once the next version is published. */
TEST_F(ver, subscribe_epoll)
{
	int c = socket(hcn_family(), SOCK_CONS | SOCK_NONBLOCK, CONS_REL);
	struct epoll_event ev = { .events = EPOLLIN }, out;
	char buf[8192], want[4096];
	int ep = epoll_create1(0);
	size_t wlen;
	ssize_t n;

	ASSERT_LE(0, c);
	ASSERT_LE(0, ep);
	ASSERT_EQ(1, publish_v(self->prod, HT_NAME, 1));
	ASSERT_EQ(0, ht_setint(c, HICN_SUBSCRIBE, 1));
	/* The subscription starts at connect(): version 1 already exists. */
	ASSERT_EQ(0, ht_connect(c, HT_NAME, 0));
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, c, &ev));

	EXPECT_EQ(0, epoll_wait(ep, &out, 1, 400));
	EXPECT_EQ(-1, recv(c, buf, sizeof(buf), 0));
	EXPECT_EQ(EAGAIN, errno);

	ASSERT_EQ(2, publish_v(self->prod, HT_NAME, 2));
	ASSERT_EQ(1, epoll_wait(ep, &out, 1, 5000));
	EXPECT_TRUE(out.events & EPOLLIN);

	wlen = payload(want, 2);
	n = epoll_read_object(ep, c, buf, sizeof(buf));
	ASSERT_EQ((ssize_t)wlen, n);
	EXPECT_EQ(0, memcmp(buf, want, wlen));

	/*
	 * After EOF recv() returns 0 again; connect() starts the next fetch:
	 * a version after the newest (2), waited for again.
	 */
	EXPECT_EQ(0, recv(c, buf, sizeof(buf), 0));
	ASSERT_EQ(0, ht_connect(c, HT_NAME, 0));
	EXPECT_EQ(-1, recv(c, buf, sizeof(buf), 0));
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_EQ(0, epoll_wait(ep, &out, 1, 300));
	ASSERT_EQ(3, publish_v(self->prod, HT_NAME, 3));
	ASSERT_EQ(1, epoll_wait(ep, &out, 1, 5000));
	EXPECT_TRUE(out.events & EPOLLIN);
	wlen = payload(want, 3);
	n = epoll_read_object(ep, c, buf, sizeof(buf));
	ASSERT_EQ((ssize_t)wlen, n);
	EXPECT_EQ(0, memcmp(buf, want, wlen));
	close(ep);
	close(c);
}

TEST_HARNESS_MAIN
