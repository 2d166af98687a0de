// SPDX-License-Identifier: GPL-2.0
/*
 * AF_HICN consumer congestion control: the window, the RTT and the
 * retransmission timeout (net/hicn/cc.c).
 *
 * - A local 4 MiB fetch: the window grows to its maximum (64), the RTT is
 *   measured (hi_srtt_us > 0, far below a lifetime), nothing is resent;
 *   a program that knows only version 1 of struct hicn_info still gets
 *   its prefix.
 * - HICN_MIN_WINDOW_SIZE / HICN_MAX_WINDOW_SIZE: defaults 1 and 64,
 *   EINVAL for 0, above HICN_WINDOW_MAX and min > max; HICN_WINDOW sets
 *   both (a fixed window); ENOPROTOOPT on a producer.
 * - A window of 1 (and a fixed window of 8) fetches a multi-segment
 *   object intact and never goes above it.
 * - An interest the producer holds (content not yet published) is resent
 *   at its RTO, a few hundred ms after a fetch measured the RTT, not at
 *   its 60 s lifetime; the publication then completes the object.
 * - A stall in the middle of an object (a route sends the name's
 *   interests to a UDP peer that never answers, until it goes) halves the
 *   window: HICN_INFO shows it below its maximum, with cuts, timeouts and
 *   retransmissions; the object then arrives whole.
 *
 * Timings are asserted only against deadlines far above what they should
 * be under TCG, events with counters.
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include "hicn_test.h"
#include "kselftest_harness.h"

#define MIB		(1024U * 1024)
#define SEG		HICN_PACKET_SIZE_DEFAULT
/* A lifetime no test waits for: a retransmission before it is the RTO's. */
#define LONG_MS		60000
/* Far above what an event should take, far below LONG_MS. */
#define DEADLINE_MS	20000

FIXTURE(cc)
{
	int prod;
	unsigned char *src;
	unsigned char *dst;
	size_t len;
};

FIXTURE_SETUP(cc)
{
	ASSERT_EQ(0, ht_enter_netns());
	self->prod = ht_producer(PROD_REL);
	ASSERT_LE(0, self->prod);
	self->len = 4 * MIB;
	self->src = malloc(self->len);
	self->dst = malloc(self->len + 1);
	ASSERT_NE(NULL, self->src);
	ASSERT_NE(NULL, self->dst);
	ht_fill(self->src, self->len, 15);
}

FIXTURE_TEARDOWN(cc)
{
	if (self->prod >= 0)
		close(self->prod);
	free(self->src);
	free(self->dst);
}

static void log_info(struct __test_metadata *_metadata, const char *what,
		     const struct hicn_info *hi)
{
	TH_LOG("%s: window %u (min %u max %u ssthresh %u in flight %u)",
	       what, hi->hi_window, hi->hi_window_min, hi->hi_window_max,
	       hi->hi_ssthresh, hi->hi_in_flight);
	TH_LOG("%s: srtt %u us rttvar %u us min %u us rto %u us backoff %u",
	       what, hi->hi_srtt_us, hi->hi_rttvar_us, hi->hi_min_rtt_us,
	       hi->hi_rto_us, hi->hi_backoff);
	TH_LOG("%s: sent %llu retx %llu timeouts %llu cuts %llu", what,
	       (unsigned long long)hi->hi_interests_sent,
	       (unsigned long long)hi->hi_interests_retx,
	       (unsigned long long)hi->hi_timeouts,
	       (unsigned long long)hi->hi_window_cuts);
}

/* Wait until @fd's counter at @off is at least @want: 0, or -1 if never. */
static int wait_info(int fd, size_t off, unsigned long long want,
		     struct hicn_info *hi)
{
	double end = ht_ms() + DEADLINE_MS;

	for (;;) {
		if (ht_info(fd, hi))
			return -1;
		if (*(__u64 *)((char *)hi + off) >= want)
			return 0;
		if (ht_ms() > end)
			return -1;
		ht_sleep_ms(1);
	}
}

/*
 * On one host data comes back within the call that sent its interest:
 * nothing is lost, and the window must reach its maximum (slow start)
 * and stay there, with the RTT measured.  Also the old size of
 * struct hicn_info (version 1) keeps working.
 */
TEST_F_TIMEOUT(cc, window_grows_to_max_locally, 300)
{
	size_t v1 = offsetof(struct hicn_info, hi_srtt_us);
	unsigned char raw[sizeof(struct hicn_info)];
	struct hicn_info hi, *old = (struct hicn_info *)raw;
	socklen_t len;
	double t0, dt;
	int c;

	ASSERT_EQ((ssize_t)self->len,
		  ht_publish(self->prod, HT_NAME, self->src, self->len, 0));
	c = ht_consumer(CONS_REL, HT_NAME, 0);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, ht_info(c, &hi));
	EXPECT_EQ(HICN_WINDOW_INIT, hi.hi_window);
	EXPECT_EQ(0, hi.hi_srtt_us);
	/* No sample yet: the RTO is the lifetime. */
	EXPECT_EQ(HICN_LIFETIME_DEFAULT * 1000U, hi.hi_rto_us);

	t0 = ht_ms();
	ASSERT_EQ((ssize_t)self->len, recv(c, self->dst, self->len + 1, 0));
	dt = ht_ms() - t0;
	EXPECT_EQ(-1, ht_diff(self->dst, self->src, self->len));

	ASSERT_EQ(0, ht_info(c, &hi));
	log_info(_metadata, "after 4 MiB", &hi);
	TH_LOG("4 MiB in %.0f ms", dt);
	EXPECT_EQ(HICN_INFO_VERSION, hi.hi_version);
	EXPECT_EQ(3, hi.hi_version);
	EXPECT_EQ(sizeof(hi), hi.hi_size);
	EXPECT_EQ(1, hi.hi_window_min);
	EXPECT_EQ(HICN_WINDOW_DEFAULT, hi.hi_window_max);
	EXPECT_EQ(hi.hi_window_max, hi.hi_window);
	EXPECT_EQ(hi.hi_window_max, hi.hi_ssthresh);
	EXPECT_LT(0, hi.hi_srtt_us);
	/* Microseconds in the kernel; 100 ms is already a pause of TCG. */
	EXPECT_GT(100000, hi.hi_srtt_us);
	EXPECT_LT(0, hi.hi_min_rtt_us);
	EXPECT_GE(hi.hi_srtt_us + 1, hi.hi_min_rtt_us);
	/* A small RTT: the RTO is its floor, far below the lifetime. */
	EXPECT_LE(HICN_RTO_MIN_MS * 1000U, hi.hi_rto_us);
	EXPECT_GT(HICN_LIFETIME_DEFAULT * 1000U, hi.hi_rto_us);
	EXPECT_EQ(0, hi.hi_interests_retx);
	EXPECT_EQ(0, hi.hi_timeouts);
	EXPECT_EQ(0, hi.hi_early_retx);
	EXPECT_EQ(0, hi.hi_spurious_retx);
	EXPECT_EQ(0, hi.hi_window_cuts);
	EXPECT_EQ(0, hi.hi_backoff);
	EXPECT_EQ(0, hi.hi_in_flight);
	EXPECT_EQ(ht_segments(self->len, SEG), hi.hi_segments);

	/* A version 1 program: its size, and the prefix it knows. */
	memset(raw, 0xee, sizeof(raw));
	len = v1;
	ASSERT_EQ(0, getsockopt(c, SOL_HICN, HICN_INFO, raw, &len));
	EXPECT_EQ(v1, len);
	EXPECT_EQ(HICN_INFO_VERSION, old->hi_version);
	EXPECT_EQ(1, old->hi_objects);
	EXPECT_EQ(hi.hi_interests_sent, old->hi_interests_sent);
	EXPECT_EQ(0xee, raw[v1]);
	close(c);
}

TEST_F(cc, window_options)
{
	struct hicn_info hi;
	socklen_t len;
	int c, v;
	char b = 1;

	c = socket(hcn_family(), SOCK_CONS, CONS_REL);
	ASSERT_LE(0, c);
	EXPECT_EQ(1, ht_getint(c, HICN_MIN_WINDOW_SIZE));
	EXPECT_EQ(HICN_WINDOW_DEFAULT, ht_getint(c, HICN_MAX_WINDOW_SIZE));
	EXPECT_EQ(HICN_WINDOW_DEFAULT, ht_getint(c, HICN_WINDOW));

	/* Out of range, or min above max: EINVAL, nothing changed. */
	EXPECT_EQ(-1, ht_setint(c, HICN_MAX_WINDOW_SIZE, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ht_setint(c, HICN_MIN_WINDOW_SIZE, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ht_setint(c, HICN_MIN_WINDOW_SIZE, -1));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ht_setint(c, HICN_MAX_WINDOW_SIZE, HICN_WINDOW_MAX + 1));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ht_setint(c, HICN_MIN_WINDOW_SIZE, HICN_WINDOW_MAX + 1));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ht_setint(c, HICN_MIN_WINDOW_SIZE, HICN_WINDOW_DEFAULT + 1));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, setsockopt(c, SOL_HICN, HICN_MAX_WINDOW_SIZE, &b, 1));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(1, ht_getint(c, HICN_MIN_WINDOW_SIZE));
	EXPECT_EQ(HICN_WINDOW_DEFAULT, ht_getint(c, HICN_MAX_WINDOW_SIZE));

	/* The window moves into new bounds. */
	EXPECT_EQ(0, ht_setint(c, HICN_MIN_WINDOW_SIZE, 8));
	EXPECT_EQ(-1, ht_setint(c, HICN_MAX_WINDOW_SIZE, 7));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, ht_setint(c, HICN_MAX_WINDOW_SIZE, 16));
	EXPECT_EQ(8, ht_getint(c, HICN_MIN_WINDOW_SIZE));
	EXPECT_EQ(16, ht_getint(c, HICN_MAX_WINDOW_SIZE));
	EXPECT_EQ(16, ht_getint(c, HICN_WINDOW));
	ASSERT_EQ(0, ht_info(c, &hi));
	EXPECT_EQ(8, hi.hi_window);
	EXPECT_EQ(8, hi.hi_window_min);
	EXPECT_EQ(16, hi.hi_window_max);

	/* HICN_WINDOW: a fixed window, both bounds. */
	EXPECT_EQ(0, ht_setint(c, HICN_WINDOW, 32));
	EXPECT_EQ(32, ht_getint(c, HICN_MIN_WINDOW_SIZE));
	EXPECT_EQ(32, ht_getint(c, HICN_MAX_WINDOW_SIZE));
	ASSERT_EQ(0, ht_info(c, &hi));
	EXPECT_EQ(32, hi.hi_window);

	/* The limits themselves are valid. */
	EXPECT_EQ(0, ht_setint(c, HICN_MAX_WINDOW_SIZE, HICN_WINDOW_MAX));
	EXPECT_EQ(0, ht_setint(c, HICN_MIN_WINDOW_SIZE, HICN_WINDOW_MAX));
	EXPECT_EQ(0, ht_setint(c, HICN_MIN_WINDOW_SIZE, 1));
	EXPECT_EQ(0, ht_setint(c, HICN_MAX_WINDOW_SIZE, 1));
	ASSERT_EQ(0, ht_info(c, &hi));
	EXPECT_EQ(1, hi.hi_window);

	/* Not producer options. */
	EXPECT_EQ(-1, ht_setint(self->prod, HICN_MIN_WINDOW_SIZE, 4));
	EXPECT_EQ(ENOPROTOOPT, errno);
	EXPECT_EQ(-1, ht_setint(self->prod, HICN_MAX_WINDOW_SIZE, 4));
	EXPECT_EQ(ENOPROTOOPT, errno);
	len = sizeof(v);
	EXPECT_EQ(-1, getsockopt(self->prod, SOL_HICN, HICN_MIN_WINDOW_SIZE,
				 &v, &len));
	EXPECT_EQ(ENOPROTOOPT, errno);
	EXPECT_EQ(-1, getsockopt(self->prod, SOL_HICN, HICN_MAX_WINDOW_SIZE,
				 &v, &len));
	EXPECT_EQ(ENOPROTOOPT, errno);
	close(c);
}

/*
 * A window of at most 1 (then a fixed window of 8): the object arrives
 * whole, one interest per segment reaches the producer, and the window
 * never leaves its bounds.
 */
TEST_F_TIMEOUT(cc, small_windows_fetch_intact, 300)
{
	static const struct { int opt, val; } w[] = {
		{ HICN_MAX_WINDOW_SIZE, 1 },
		{ HICN_WINDOW, 8 },
	};
	size_t len = 300000 + 7;
	struct hicn_info hi, p0, p1;
	unsigned int i;
	int c;

	ASSERT_EQ((ssize_t)len, ht_publish(self->prod, HT_NAME, self->src,
					   len, 0));
	/* The CS off: each interest reaches the producer. */
	ASSERT_EQ(0, sysctl_set(HT_SYSCTL("cs_max_entries"), "0"));
	for (i = 0; i < ARRAY_SIZE(w); i++) {
		c = ht_consumer(CONS_REL, HT_NAME, 0);
		ASSERT_LE(0, c);
		ASSERT_EQ(0, ht_setint(c, w[i].opt, w[i].val));
		ASSERT_EQ(0, ht_info(self->prod, &p0));
		memset(self->dst, 0, len);
		ASSERT_EQ((ssize_t)len, recv(c, self->dst, len + 1, 0));
		EXPECT_EQ(-1, ht_diff(self->dst, self->src, len));
		ASSERT_EQ(0, ht_info(self->prod, &p1));
		EXPECT_EQ(ht_segments(len, SEG),
			  p1.hi_interests_received - p0.hi_interests_received);
		ASSERT_EQ(0, ht_info(c, &hi));
		log_info(_metadata, "small window", &hi);
		EXPECT_EQ(w[i].val, hi.hi_window);
		EXPECT_EQ(w[i].val, hi.hi_window_max);
		EXPECT_EQ(0, hi.hi_interests_retx);
		EXPECT_EQ(0, hi.hi_window_cuts);
		EXPECT_EQ(ht_segments(len, SEG), hi.hi_segments);
		close(c);
	}
}

struct reader {
	int fd;
	unsigned char *buf;
	size_t cap;
	ssize_t got;
	int err;
};

static void *read_all(void *arg)
{
	struct reader *r = arg;

	r->got = ht_read_stream(r->fd, r->buf, r->cap, 65536);
	r->err = r->got < 0 ? errno : 0;
	return NULL;
}

/*
 * The first interest for content not yet published is held by the
 * producer.  A socket that measured the RTT on an earlier fetch resends
 * it at its RTO (the 200 ms floor: the local RTT is microseconds), then
 * at twice that, not at its lifetime of 60 s; the publication answers it.
 */
TEST_F_TIMEOUT(cc, retransmission_at_rto_not_lifetime, 300)
{
	size_t warm = 64 * SEG, len = 200000;
	struct reader r = { .buf = self->dst, .cap = len };
	struct hicn_info hi;
	pthread_t t;
	__u32 rto;
	double t0, t1;

	ASSERT_EQ((ssize_t)warm,
		  ht_publish(self->prod, HT_NAME2, self->src, warm, 0));
	r.fd = ht_consumer(CONS_REL, HT_NAME2, 0);
	ASSERT_LE(0, r.fd);
	ASSERT_EQ(0, ht_setint(r.fd, HICN_INTEREST_LIFETIME, LONG_MS));
	ASSERT_EQ((ssize_t)warm, recv(r.fd, self->dst, warm + 1, 0));
	ASSERT_EQ(0, ht_info(r.fd, &hi));
	log_info(_metadata, "measured", &hi);
	rto = hi.hi_rto_us;
	ASSERT_LT(0, hi.hi_srtt_us);
	ASSERT_GT(LONG_MS * 1000U / 10, rto);

	/* HT_NAME is not published: the producer holds the interest. */
	t0 = ht_ms();
	ASSERT_EQ(0, ht_connect(r.fd, HT_NAME, 0));
	ASSERT_EQ(0, pthread_create(&t, NULL, read_all, &r));
	ASSERT_EQ(0, wait_info(r.fd, offsetof(struct hicn_info,
					      hi_interests_retx), 1, &hi));
	t1 = ht_ms() - t0;
	TH_LOG("first retransmission after %.0f ms (RTO %u us)", t1, rto);
	/* Not before its RTO (a jiffy of rounding aside), long before 60 s. */
	EXPECT_LE(rto / 1000.0 - 20, t1);
	EXPECT_GT(DEADLINE_MS, t1);
	ASSERT_EQ(0, wait_info(r.fd, offsetof(struct hicn_info,
					      hi_interests_retx), 2, &hi));
	log_info(_metadata, "held", &hi);
	EXPECT_LE(2, hi.hi_timeouts);
	EXPECT_LE(1, hi.hi_window_cuts);
	EXPECT_LE(1, hi.hi_backoff);
	EXPECT_EQ(1, hi.hi_objects);

	ht_fill(self->src, len, 99);
	ASSERT_EQ((ssize_t)len, ht_publish(self->prod, HT_NAME, self->src,
					   len, 0));
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ((ssize_t)len, r.got) TH_LOG("%s", strerror(r.err));
	EXPECT_EQ(-1, ht_diff(self->dst, self->src, len));
	ASSERT_EQ(0, ht_info(r.fd, &hi));
	log_info(_metadata, "done", &hi);
	EXPECT_GE(HICN_RETX_LIMIT_DEFAULT, hi.hi_interests_retx);
	EXPECT_EQ(2, hi.hi_objects);
	close(r.fd);
}

/*
 * A stall in the middle of an object: after the first segments, a route
 * sends the name's interests to a UDP peer that never answers
 * (ht_silent_route(); no version is published twice).  The window, at
 * its maximum before, halves at the first timeout and again at each loss
 * event; the lost interests are resent at their RTO, and once the route
 * goes the next retransmissions reach the producer: the object then
 * arrives whole.  The retransmission limit is far above the rounds the
 * stall takes.
 */
TEST_F_TIMEOUT(cc, window_shrinks_after_stall, 300)
{
	size_t len = 400 * SEG, head = 100 * SEG;
	struct reader r = { .buf = self->dst + head, .cap = len - head };
	struct ht_silent s;
	struct hicn_info hi;
	pthread_t t;

	ASSERT_EQ((ssize_t)len, ht_publish(self->prod, HT_NAME, self->src,
					   len, 0));
	r.fd = socket(hcn_family(), SOCK_CONS, CONS_REL);
	ASSERT_LE(0, r.fd);
	ASSERT_EQ(0, ht_setint(r.fd, HICN_MAX_WINDOW_SIZE, 16));
	ASSERT_EQ(0, ht_setint(r.fd, HICN_INTEREST_LIFETIME, LONG_MS));
	ASSERT_EQ(0, ht_setint(r.fd, HICN_RETX_LIMIT, 10));
	ASSERT_EQ(0, ht_connect(r.fd, HT_NAME, 0));
	ASSERT_EQ((ssize_t)head, recv(r.fd, self->dst, head, MSG_WAITALL));
	ASSERT_EQ(0, ht_info(r.fd, &hi));
	log_info(_metadata, "before the stall", &hi);
	ASSERT_EQ(16, hi.hi_window);
	ASSERT_EQ(0, hi.hi_window_cuts);

	/* From here on the interests go unanswered. */
	ASSERT_EQ(0, ht_silent_route(&s, HT_NAME, 128));
	ASSERT_EQ(0, pthread_create(&t, NULL, read_all, &r));
	ASSERT_EQ(0, wait_info(r.fd, offsetof(struct hicn_info,
					      hi_window_cuts), 2, &hi));
	ASSERT_EQ(0, ht_info(r.fd, &hi));
	log_info(_metadata, "stalled", &hi);
	EXPECT_GT(16, hi.hi_window);
	EXPECT_GE(4, hi.hi_window);
	EXPECT_GT(16, hi.hi_ssthresh);
	EXPECT_LE(1, hi.hi_interests_retx);
	EXPECT_LE(2, hi.hi_timeouts);
	EXPECT_LE(1, hi.hi_backoff);
	EXPECT_GE(16, hi.hi_in_flight);

	ASSERT_EQ(0, ht_silent_end(&s));
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ((ssize_t)(len - head), r.got) TH_LOG("%s", strerror(r.err));
	EXPECT_EQ(-1, ht_diff(self->dst, self->src, len));
	ASSERT_EQ(0, ht_info(r.fd, &hi));
	log_info(_metadata, "done", &hi);
	EXPECT_EQ(1, hi.hi_objects);
	EXPECT_EQ(ht_segments(len, SEG), hi.hi_segments);
	close(r.fd);
	close(s.peer);
}

TEST_HARNESS_MAIN
