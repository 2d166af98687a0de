// SPDX-License-Identifier: GPL-2.0
/*
 * AF_HICN forwarder tables of a network namespace: PIT and CS.
 *
 * - /proc/net/hicn_stat lists every counter of the spec, /proc/net/hicn_fib
 *   the claimed namespaces; the net.hicn.* sysctls have their defaults.
 * - 8 consumer threads of one name, all waiting before the producer
 *   publishes, get the same bytes; exactly one interest per segment
 *   reaches the producer and no consumer retransmits.
 * - A second fetch of an explicit version is served by the CS entirely
 *   (consumer hi_cache_hits == segments, producer hi_interests_received
 *   unchanged); a fetch of the newest costs the producer exactly one
 *   interest (version discovery), the other segments are cache hits.
 * - net.hicn.cs_max_entries=0 flushes the CS (cs_entries, cs_bytes 0) and
 *   disables it.
 * - net.hicn.cs_mem_max caps the CS's bytes; the least recently used
 *   entry is evicted first.
 * - HICN_WINDOW bounds the interests a consumer has in flight.
 * - net.hicn.pit_max caps the PIT; refused interests count in pit_drops.
 * - PIT entries expire with their lifetime, not before (pit_expired).
 *
 * Tests wait for the counters they need (ht_wait_stat()), never sleep.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include "hicn_test.h"
#include "kselftest_harness.h"

#define OBJ_SIZE	(1024U * 1024)
#define NSEG		((OBJ_SIZE + HICN_PACKET_SIZE_DEFAULT - 1) / HICN_PACKET_SIZE_DEFAULT)
#define NCONS		8
#define SMALL_SIZE	100	/* one segment */
/*
 * An interest lifetime far above the transfers of these tests (about a
 * second under TCG, a few on the debug kernel): a consumer that had to
 * wait for a deadline (a lost answer, or a lost wake-up that only the
 * interest's timer repairs) took at least this long.
 */
#define LONG_LIFETIME_MS	30000
/* How long a test waits for an event that should come at once. */
#define WAIT_MS		20000

FIXTURE(tab)
{
	int prod;
	unsigned char *src;
};

FIXTURE_SETUP(tab)
{
	ASSERT_EQ(0, ht_enter_netns());
	self->prod = ht_producer(PROD_REL);
	ASSERT_LE(0, self->prod);
	self->src = malloc(OBJ_SIZE);
	ASSERT_NE(NULL, self->src);
	ht_fill(self->src, OBJ_SIZE, 42);
}

FIXTURE_TEARDOWN(tab)
{
	close(self->prod);
	free(self->src);
}

/* 1 once @fd is readable (poll() POLLIN), waiting up to WAIT_MS. */
static int poll1_in(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, WAIT_MS) == 1 && (p.revents & POLLIN);
}

/* Fetch @addr version @ver into a fresh buffer; compares it to @want. */
static int fetch_check(const char *addr, __u32 ver, const unsigned char *want,
		       size_t len, struct hicn_info *hi)
{
	unsigned char *buf = malloc(len + 1);
	int c = ht_consumer(CONS_REL, addr, ver), ret = -1;
	ssize_t n;

	if (!buf || c < 0)
		goto out;
	n = recv(c, buf, len + 1, 0);
	if (n == (ssize_t)len && !memcmp(buf, want, len) && !ht_info(c, hi))
		ret = 0;
out:
	if (c >= 0)
		close(c);
	free(buf);
	return ret;
}

TEST_F(tab, stat_fib_and_sysctl_defaults)
{
	static const char *const keys[] = {
		"pit_entries", "pit_max", "pit_aggregated", "pit_drops",
		"pit_expired", "cs_entries", "cs_bytes", "cs_hits",
		"cs_misses", "cs_evictions", "fib_entries", "no_route",
		"faces", "interests", "data",
	};
	char line[256], want[64];
	unsigned int i;
	int found = 0;
	FILE *f;

	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		long long v = ht_stat(keys[i]);

		EXPECT_LE(0, v) TH_LOG("%s missing", keys[i]);
	}
	EXPECT_EQ(65536, ht_stat("pit_max"));
	EXPECT_EQ(1, ht_stat("fib_entries"));
	EXPECT_EQ(0, ht_stat("pit_entries"));
	EXPECT_EQ(0, ht_stat("cs_entries"));

	EXPECT_EQ(65536, sysctl_get(HT_SYSCTL("pit_max")));
	EXPECT_EQ(65536, sysctl_get(HT_SYSCTL("cs_max_entries")));
	EXPECT_EQ(64 << 20, sysctl_get(HT_SYSCTL("cs_mem_max")));
	EXPECT_EQ(512 << 20, sysctl_get(HT_SYSCTL("prod_mem_max")));

	/* "prefix/len face-id", one line per claim. */
	snprintf(want, sizeof(want), "%s/%d ", HT_NS, HT_NS_LEN);
	f = fopen("/proc/net/hicn_fib", "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, want, strlen(want)))
			found++;
	fclose(f);
	EXPECT_EQ(1, found);
}

struct waiter {
	int fd;
	unsigned char *buf;
	ssize_t got;
	int err;
	double done;	/* ht_ms() when recv() returned */
	pthread_barrier_t *ready;
};

static void *wait_fetch(void *arg)
{
	struct waiter *w = arg;

	pthread_barrier_wait(w->ready);
	w->got = recv(w->fd, w->buf, OBJ_SIZE + 1, 0);
	w->err = errno;
	w->done = ht_ms();
	return NULL;
}

/*
 * Exactly one interest per segment reaches the producer: the 8 first
 * interests (newest version, segment 0) wait on one PIT entry, and each
 * later segment is either aggregated onto another consumer's entry or
 * served by the CS.  Nobody retransmits nor waits for a deadline: each
 * fetch ends well within one interest lifetime of the publication.  (A
 * reader that copied every segment in flight and then slept without
 * sending the next window waited for its deadline work: 53 s for this
 * program on 6.12 with 5 s lifetimes, before recvmsg() pumped again
 * after each copy.)
 */
TEST_F_TIMEOUT(tab, eight_waiting_consumers_aggregate, 300)
{
	struct waiter w[NCONS];
	pthread_t t[NCONS];
	pthread_barrier_t ready;
	struct hicn_info hi;
	double t0;
	int i;

	ASSERT_EQ(0, pthread_barrier_init(&ready, NULL, NCONS + 1));
	for (i = 0; i < NCONS; i++) {
		w[i].fd = ht_consumer(CONS_REL, HT_NAME, 0);
		ASSERT_LE(0, w[i].fd);
		ASSERT_EQ(0, ht_setint(w[i].fd, HICN_INTEREST_LIFETIME,
				       LONG_LIFETIME_MS));
		w[i].buf = malloc(OBJ_SIZE + 1);
		ASSERT_NE(NULL, w[i].buf);
		w[i].ready = &ready;
		ASSERT_EQ(0, pthread_create(&t[i], NULL, wait_fetch, &w[i]));
	}
	pthread_barrier_wait(&ready);
	/* All waiting on one PIT entry: the newest version of the name. */
	EXPECT_EQ(NCONS - 1, ht_wait_stat("pit_aggregated", NCONS - 1,
					  WAIT_MS));
	EXPECT_EQ(1, ht_stat("pit_entries"));
	ASSERT_EQ(0, ht_info(self->prod, &hi));
	EXPECT_EQ(1, hi.hi_interests_received);

	t0 = ht_ms();
	ASSERT_EQ(OBJ_SIZE, ht_publish(self->prod, HT_NAME, self->src, OBJ_SIZE, 0));
	for (i = 0; i < NCONS; i++) {
		pthread_join(t[i], NULL);
		EXPECT_GT(LONG_LIFETIME_MS, w[i].done - t0)
			TH_LOG("consumer %d: %.0f ms after the publication, a deadline's wait",
			       i, w[i].done - t0);
		EXPECT_EQ(OBJ_SIZE, w[i].got)
			TH_LOG("consumer %d: %s", i, strerror(w[i].err));
		EXPECT_EQ(-1, ht_diff(w[i].buf, self->src, OBJ_SIZE));
		ASSERT_EQ(0, ht_info(w[i].fd, &hi));
		EXPECT_EQ(0, hi.hi_interests_retx)
			TH_LOG("consumer %d: %llu retransmissions, %llu timeouts",
			       i, (unsigned long long)hi.hi_interests_retx,
			       (unsigned long long)hi.hi_timeouts);
		EXPECT_EQ(0, hi.hi_timeouts);
		EXPECT_EQ(NSEG, hi.hi_segments);
		close(w[i].fd);
		free(w[i].buf);
	}
	ASSERT_EQ(0, ht_info(self->prod, &hi));
	EXPECT_EQ(NSEG, hi.hi_interests_received)
		TH_LOG("producer saw %llu interests for %u segments x %d consumers",
		       (unsigned long long)hi.hi_interests_received, NSEG, NCONS);
	EXPECT_EQ(NSEG, hi.hi_segments);
	EXPECT_EQ(0, ht_stat("pit_entries"));
	pthread_barrier_destroy(&ready);
}

TEST_F_TIMEOUT(tab, explicit_version_from_cs, 120)
{
	struct hicn_info c, p0, p1;

	ASSERT_EQ(OBJ_SIZE, ht_publish(self->prod, HT_NAME, self->src, OBJ_SIZE, 0));
	/*
	 * Version 1 by name: every segment passes through the CS.  (A fetch
	 * of the newest would leave segment 0 out: answers to "newest" are
	 * never cached.)
	 */
	ASSERT_EQ(0, fetch_check(HT_NAME, 1, self->src, OBJ_SIZE, &c));
	EXPECT_EQ(0, c.hi_cache_hits);
	EXPECT_EQ(NSEG, ht_stat("cs_entries"));
	EXPECT_LE((long long)OBJ_SIZE, ht_stat("cs_bytes"));
	ASSERT_EQ(0, ht_info(self->prod, &p0));

	/* Version 1 by name again: the CS has every segment. */
	ASSERT_EQ(0, fetch_check(HT_NAME, 1, self->src, OBJ_SIZE, &c));
	EXPECT_EQ(NSEG, c.hi_cache_hits);
	EXPECT_EQ(NSEG, c.hi_segments);
	EXPECT_EQ(1, c.hi_last_version);
	ASSERT_EQ(0, ht_info(self->prod, &p1));
	EXPECT_EQ(p0.hi_interests_received, p1.hi_interests_received);
	EXPECT_EQ(p0.hi_segments, p1.hi_segments);
	EXPECT_LE(NSEG, ht_stat("cs_hits"));

	/* The newest: one interest reaches the producer, the rest is cached. */
	ASSERT_EQ(0, fetch_check(HT_NAME, 0, self->src, OBJ_SIZE, &c));
	EXPECT_EQ(NSEG - 1, c.hi_cache_hits);
	ASSERT_EQ(0, ht_info(self->prod, &p0));
	EXPECT_EQ(p1.hi_interests_received + 1, p0.hi_interests_received);
}

TEST_F_TIMEOUT(tab, cs_flush_and_disable, 120)
{
	struct hicn_info c, p0, p1;

	ASSERT_EQ(OBJ_SIZE, ht_publish(self->prod, HT_NAME, self->src, OBJ_SIZE, 0));
	ASSERT_EQ(0, fetch_check(HT_NAME, 1, self->src, OBJ_SIZE, &c));
	EXPECT_EQ(NSEG, ht_stat("cs_entries"));

	ASSERT_EQ(0, sysctl_set(HT_SYSCTL("cs_max_entries"), "0"));
	EXPECT_EQ(0, sysctl_get(HT_SYSCTL("cs_max_entries")));
	EXPECT_EQ(0, ht_stat("cs_entries"));
	EXPECT_EQ(0, ht_stat("cs_bytes"));

	/* Disabled: every segment comes from the producer again. */
	ASSERT_EQ(0, ht_info(self->prod, &p0));
	ASSERT_EQ(0, fetch_check(HT_NAME, 1, self->src, OBJ_SIZE, &c));
	EXPECT_EQ(0, c.hi_cache_hits);
	ASSERT_EQ(0, ht_info(self->prod, &p1));
	EXPECT_LE(p0.hi_interests_received + NSEG, p1.hi_interests_received);
	EXPECT_EQ(0, ht_stat("cs_entries"));

	/* Enabled again: cached again. */
	ASSERT_EQ(0, sysctl_set(HT_SYSCTL("cs_max_entries"), "65536"));
	ASSERT_EQ(0, fetch_check(HT_NAME, 1, self->src, OBJ_SIZE, &c));
	EXPECT_EQ(NSEG, ht_stat("cs_entries"));
}

/* cs_max_entries caps the CS; the least recently used entries go. */
TEST_F_TIMEOUT(tab, cs_max_entries_evicts, 120)
{
	struct hicn_info c;

	ASSERT_EQ(0, sysctl_set(HT_SYSCTL("cs_max_entries"), "100"));
	ASSERT_EQ(OBJ_SIZE, ht_publish(self->prod, HT_NAME, self->src, OBJ_SIZE, 0));
	ASSERT_EQ(0, fetch_check(HT_NAME, 1, self->src, OBJ_SIZE, &c));
	EXPECT_EQ(100, ht_stat("cs_entries"));
	EXPECT_LE(NSEG - 100, ht_stat("cs_evictions"));
}

/* pit_max caps the PIT; interests refused for it count in pit_drops. */
TEST_F(tab, pit_max_drops)
{
	int c[NCONS], i;
	char name[64];

	ASSERT_EQ(0, sysctl_set(HT_SYSCTL("pit_max"), "4"));
	EXPECT_EQ(4, sysctl_get(HT_SYSCTL("pit_max")));
	EXPECT_EQ(4, ht_stat("pit_max"));
	EXPECT_EQ(0, ht_stat("pit_drops"));
	for (i = 0; i < NCONS; i++) {
		/* Distinct names nobody published: each waits at the producer. */
		c[i] = socket(hcn_family(), SOCK_CONS | SOCK_NONBLOCK, CONS_UNREL);
		ASSERT_LE(0, c[i]);
		ASSERT_EQ(0, ht_setint(c[i], HICN_INTEREST_LIFETIME,
				       LONG_LIFETIME_MS));
		ASSERT_EQ(0, ht_setint(c[i], HICN_WINDOW, 1));
		snprintf(name, sizeof(name), "b001:a:b:c::%x", 0x100 + i);
		ASSERT_EQ(0, ht_connect(c[i], name, 0));
	}
	EXPECT_EQ(NCONS - 4, ht_wait_stat("pit_drops", NCONS - 4, WAIT_MS));
	EXPECT_EQ(4, ht_stat("pit_entries"));
	for (i = 0; i < NCONS; i++)
		close(c[i]);
	EXPECT_EQ(0, ht_stat("pit_entries"));
}

/*
 * An interest nobody answers leaves the PIT when its lifetime ends, not
 * before.  The entry is looked at while the lifetime certainly runs (the
 * time since before connect() is below it), then the test waits for the
 * expiry itself, for far longer than the lifetime.
 */
TEST_F(tab, pit_entries_expire)
{
	int c = socket(hcn_family(), SOCK_CONS | SOCK_NONBLOCK, CONS_UNREL);
	double t0, dt;

	ASSERT_LE(0, c);
	ASSERT_EQ(0, ht_setint(c, HICN_INTEREST_LIFETIME, 1000));
	t0 = ht_ms();
	ASSERT_EQ(0, ht_connect(c, HT_NAME2, 0));
	if (ht_stat("pit_entries") != 1) {
		dt = ht_ms() - t0;
		EXPECT_LT(1000, dt) TH_LOG("entry gone %.0f ms into a 1000 ms lifetime",
					   dt);
	}
	EXPECT_EQ(1, ht_wait_stat("pit_expired", 1, WAIT_MS));
	dt = ht_ms() - t0;
	EXPECT_LE(990, dt) TH_LOG("expired after %.0f ms", dt);
	EXPECT_EQ(0, ht_stat("pit_entries"));
	close(c);
}

/*
 * cs_mem_max caps the bytes the CS holds: a 1 MiB fetch into a 256 KiB
 * CS keeps at most 256 KiB and evicts the rest; the fetch is whole.
 */
TEST_F_TIMEOUT(tab, cs_mem_max_enforced, 120)
{
	const long long max = 256 << 10;
	struct hicn_info c;
	long long entries;

	ASSERT_EQ(0, sysctl_set(HT_SYSCTL("cs_mem_max"), "262144"));
	EXPECT_EQ(max, sysctl_get(HT_SYSCTL("cs_mem_max")));
	ASSERT_EQ(OBJ_SIZE, ht_publish(self->prod, HT_NAME, self->src, OBJ_SIZE, 0));
	ASSERT_EQ(0, fetch_check(HT_NAME, 1, self->src, OBJ_SIZE, &c));
	entries = ht_stat("cs_entries");
	EXPECT_LT(0, entries);
	EXPECT_GT(NSEG, entries);
	EXPECT_GE(max, ht_stat("cs_bytes"));
	/* At least what a full segment's share of the cap leaves out. */
	EXPECT_LE(NSEG - max / HICN_PACKET_SIZE_DEFAULT, ht_stat("cs_evictions"));
	EXPECT_EQ(NSEG - entries, ht_stat("cs_evictions"));
}

/* Fetch version 1 of the small object @addr; its cache hits, or -1. */
static long long small_fetch(const char *addr, const unsigned char *want)
{
	struct hicn_info hi;

	if (fetch_check(addr, 1, want, SMALL_SIZE, &hi))
		return -1;
	return hi.hi_cache_hits;
}

/*
 * The CS evicts the least recently used entry, not the oldest: with room
 * for 4 one-segment objects, reading 1 again after 1..4 makes 2 the one
 * that 5 evicts.
 */
TEST_F_TIMEOUT(tab, cs_evicts_least_recently_used, 120)
{
	static const char *const names[] = {
		"b001:a:b:c::11", "b001:a:b:c::12", "b001:a:b:c::13",
		"b001:a:b:c::14", "b001:a:b:c::15",
	};
	unsigned int i;

	ASSERT_EQ(0, sysctl_set(HT_SYSCTL("cs_max_entries"), "4"));
	for (i = 0; i < ARRAY_SIZE(names); i++)
		ASSERT_EQ(SMALL_SIZE, ht_publish(self->prod, names[i], self->src,
						 SMALL_SIZE, 0));
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, small_fetch(names[i], self->src));
	EXPECT_EQ(4, ht_stat("cs_entries"));
	EXPECT_EQ(0, ht_stat("cs_evictions"));
	/* 1 is used again: 2 is now the least recently used. */
	EXPECT_EQ(1, small_fetch(names[0], self->src));
	EXPECT_EQ(0, small_fetch(names[4], self->src));
	EXPECT_EQ(1, ht_stat("cs_evictions"));
	/* 1, 3, 4 and 5 are cached; 2 is not. */
	EXPECT_EQ(1, small_fetch(names[0], self->src));
	EXPECT_EQ(1, small_fetch(names[2], self->src));
	EXPECT_EQ(1, small_fetch(names[3], self->src));
	EXPECT_EQ(1, small_fetch(names[4], self->src));
	EXPECT_EQ(1, ht_stat("cs_evictions"));
	EXPECT_EQ(0, small_fetch(names[1], self->src));
	EXPECT_EQ(2, ht_stat("cs_evictions"));
}

/*
 * HICN_WINDOW bounds the interests in flight, counted where they arrive:
 * a stream consumer that reads nothing has sent exactly WINDOW interests
 * (the first segment, then the window), and each segment it reads lets
 * exactly one more go.  The CS is off, so each reaches the producer.
 */
TEST_F_TIMEOUT(tab, window_bounds_interests_in_flight, 120)
{
	static const int windows[] = { 1, 4, 16 };
	struct hicn_info p0, p1;
	unsigned char buf[HICN_PACKET_SIZE_DEFAULT];
	unsigned int i;
	int c;

	ASSERT_EQ(0, sysctl_set(HT_SYSCTL("cs_max_entries"), "0"));
	ASSERT_EQ(OBJ_SIZE, ht_publish(self->prod, HT_NAME, self->src, OBJ_SIZE, 0));
	for (i = 0; i < ARRAY_SIZE(windows); i++) {
		c = socket(hcn_family(), SOCK_CONS, CONS_REL);
		ASSERT_LE(0, c);
		ASSERT_EQ(0, ht_setint(c, HICN_INTEREST_LIFETIME, LONG_LIFETIME_MS));
		ASSERT_EQ(0, ht_setint(c, HICN_WINDOW, windows[i]));
		ASSERT_EQ(0, ht_info(self->prod, &p0));
		ASSERT_EQ(0, ht_connect(c, HT_NAME, 0));
		EXPECT_EQ(1, poll1_in(c));
		ASSERT_EQ(0, ht_info(self->prod, &p1));
		EXPECT_EQ(windows[i], p1.hi_interests_received -
				      p0.hi_interests_received)
			TH_LOG("window %d", windows[i]);
		/* One segment read: one more interest. */
		ASSERT_EQ(sizeof(buf), recv(c, buf, sizeof(buf), MSG_WAITALL));
		EXPECT_EQ(0, memcmp(buf, self->src, sizeof(buf)));
		ASSERT_EQ(0, ht_info(self->prod, &p1));
		EXPECT_EQ(windows[i] + 1, p1.hi_interests_received -
					  p0.hi_interests_received)
			TH_LOG("window %d", windows[i]);
		close(c);
	}
}

TEST_HARNESS_MAIN
