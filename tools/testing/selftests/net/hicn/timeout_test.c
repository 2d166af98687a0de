// SPDX-License-Identifier: GPL-2.0
/*
 * AF_HICN waiting: timeouts, non-blocking calls, signals, shutdown, close
 * and poll.
 *
 * - CONS_REL with no producer: ENETUNREACH at once, nothing retransmitted.
 *   With a producer that never publishes the name (HICN_INTEREST_LIFETIME
 *   100 ms, HICN_RETX_LIMIT 2): ETIMEDOUT after at least 3 lifetimes.
 *   CONS_UNREL: ETIMEDOUT after one lifetime, no retransmission.
 * - Non-blocking recv: EAGAIN, no POLLIN until the producer publishes, then
 *   POLLIN and the object (datagram and stream mode).
 * - SO_RCVTIMEO: EAGAIN once it runs out.
 * - A signal whose handler has no SA_RESTART interrupts a blocked recv:
 *   EINTR.
 * - shutdown(SHUT_RD) wakes a blocked reader with 0; recv then returns 0;
 *   shutdown on an unconnected socket is allowed; SHUT_RDWR gives POLLHUP.
 * - close() with interests pending leaves pit_entries at 0.
 * - poll: POLLOUT on a producer, never on a consumer; POLLERR after a
 *   timeout, with the error readable by SO_ERROR or recv.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <netinet/in.h>

#include "hicn_test.h"
#include "kselftest_harness.h"

static char obj[5000];

/*
 * A deadline far above what a call should take, even under TCG: timing
 * is asserted only against it; what happened is asserted with counters.
 */
#define DEADLINE_MS	20000
/* An interest lifetime no test waits for (the maximum, 10 min). */
#define LONG_MS		HICN_LIFETIME_MAX

/* A consumer bound to @addr with lifetime @ms and retx limit @retx. */
static int consumer(int protocol, const char *addr, int ms, int retx)
{
	int c = ht_consumer(protocol, addr, 0);

	if (c < 0)
		return -1;
	if (ht_setint(c, HICN_INTEREST_LIFETIME, ms) ||
	    ht_setint(c, HICN_RETX_LIMIT, retx)) {
		close(c);
		return -1;
	}
	return c;
}

static short poll1(int fd, short events, int ms)
{
	struct pollfd p = { .fd = fd, .events = events };

	if (poll(&p, 1, ms) < 0)
		return -1;
	return p.revents;
}

FIXTURE(t)
{
	int prod;
	char buf[8192];
};

FIXTURE_SETUP(t)
{
	ASSERT_EQ(0, ht_enter_netns());
	self->prod = -1;
	ht_fill(obj, sizeof(obj), 5);
}

FIXTURE_TEARDOWN(t)
{
	if (self->prod >= 0)
		close(self->prod);
}

TEST_F(t, rel_no_producer_enetunreach)
{
	int c = consumer(CONS_REL, HT_NAME, 100, 2);
	struct hicn_info hi;

	ASSERT_LE(0, c);
	EXPECT_EQ(-1, recv(c, self->buf, sizeof(self->buf), 0));
	EXPECT_EQ(ENETUNREACH, errno);
	ASSERT_EQ(0, ht_info(c, &hi));
	EXPECT_EQ(1, hi.hi_interests_sent);
	EXPECT_EQ(0, hi.hi_interests_retx);
	EXPECT_EQ(0, hi.hi_timeouts);
	EXPECT_EQ(0, hi.hi_objects);
	EXPECT_LE(1, ht_stat("no_route"));
	close(c);
}

TEST_F(t, rel_unpublished_etimedout)
{
	int c = consumer(CONS_REL, HT_NAME, 100, 2);
	struct hicn_info hi;
	double t0, dt;

	self->prod = ht_producer(PROD_REL);
	ASSERT_LE(0, self->prod);
	ASSERT_LE(0, c);
	t0 = ht_ms();
	EXPECT_EQ(-1, recv(c, self->buf, sizeof(self->buf), 0));
	EXPECT_EQ(ETIMEDOUT, errno);
	dt = ht_ms() - t0;
	EXPECT_LE(295, dt) TH_LOG("after %.0f ms", dt);
	EXPECT_GT(DEADLINE_MS, dt) TH_LOG("after %.0f ms", dt);
	/* Three lifetimes: the interest and its 2 retransmissions. */
	ASSERT_EQ(0, ht_info(c, &hi));
	EXPECT_EQ(3, hi.hi_interests_sent);
	EXPECT_EQ(2, hi.hi_interests_retx);
	EXPECT_EQ(3, hi.hi_timeouts);
	close(c);
	EXPECT_EQ(0, ht_stat("pit_entries"));
}

TEST_F(t, default_lifetime_and_retx)
{
	int c = consumer(CONS_REL, HT_NAME, 1000, 3);

	ASSERT_LE(0, c);
	close(c);
	c = socket(hcn_family(), SOCK_CONS, 0);
	ASSERT_LE(0, c);
	EXPECT_EQ(HICN_LIFETIME_DEFAULT, ht_getint(c, HICN_INTEREST_LIFETIME));
	EXPECT_EQ(HICN_RETX_LIMIT_DEFAULT, ht_getint(c, HICN_RETX_LIMIT));
	EXPECT_EQ(HICN_WINDOW_DEFAULT, ht_getint(c, HICN_WINDOW));
	close(c);
}

TEST_F(t, unrel_one_lifetime)
{
	int c = consumer(CONS_UNREL, HT_NAME, 300, 2);
	struct hicn_info hi;
	double t0, dt;

	self->prod = ht_producer(PROD_REL);
	ASSERT_LE(0, self->prod);
	ASSERT_LE(0, c);
	t0 = ht_ms();
	EXPECT_EQ(-1, recv(c, self->buf, sizeof(self->buf), 0));
	EXPECT_EQ(ETIMEDOUT, errno);
	dt = ht_ms() - t0;
	EXPECT_LE(295, dt) TH_LOG("after %.0f ms", dt);
	EXPECT_GT(DEADLINE_MS, dt) TH_LOG("after %.0f ms", dt);
	/* One lifetime, no retransmission (counted, not timed). */
	ASSERT_EQ(0, ht_info(c, &hi));
	EXPECT_EQ(1, hi.hi_interests_sent);
	EXPECT_EQ(0, hi.hi_interests_retx);
	EXPECT_EQ(1, hi.hi_timeouts);
	close(c);
}

TEST_F(t, nonblocking_datagram_then_pollin)
{
	int c = ht_consumer(CONS_REL, HT_NAME, 0);

	self->prod = ht_producer(PROD_REL);
	ASSERT_LE(0, self->prod);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, fcntl(c, F_SETFL, O_NONBLOCK));
	EXPECT_EQ(-1, recv(c, self->buf, sizeof(self->buf), 0));
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_EQ(0, poll1(c, POLLIN, 300));
	EXPECT_EQ(-1, recv(c, self->buf, sizeof(self->buf), 0));
	EXPECT_EQ(EAGAIN, errno);

	ASSERT_EQ(sizeof(obj), ht_publish(self->prod, HT_NAME, obj, sizeof(obj), 0));
	EXPECT_EQ(POLLIN, poll1(c, POLLIN, 5000));
	ASSERT_EQ(sizeof(obj), recv(c, self->buf, sizeof(self->buf), 0))
		TH_LOG("recv: %s", strerror(errno));
	EXPECT_EQ(0, memcmp(self->buf, obj, sizeof(obj)));
	close(c);
}

TEST_F(t, msg_dontwait_eagain)
{
	int c = ht_consumer(CONS_REL, HT_NAME, 0);

	self->prod = ht_producer(PROD_REL);
	ASSERT_LE(0, self->prod);
	ASSERT_LE(0, c);
	EXPECT_EQ(-1, recv(c, self->buf, sizeof(self->buf), MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);
	ASSERT_EQ(sizeof(obj), ht_publish(self->prod, HT_NAME, obj, sizeof(obj), 0));
	EXPECT_EQ(POLLIN, poll1(c, POLLIN, 5000));
	ASSERT_EQ(sizeof(obj), recv(c, self->buf, sizeof(self->buf), MSG_DONTWAIT))
		TH_LOG("recv: %s", strerror(errno));
	EXPECT_EQ(0, memcmp(self->buf, obj, sizeof(obj)));
	close(c);
}

TEST_F(t, nonblocking_stream_then_pollin)
{
	int c = socket(hcn_family(), SOCK_CONS | SOCK_NONBLOCK, CONS_REL);
	ssize_t n = 0, r;

	self->prod = ht_producer(PROD_REL);
	ASSERT_LE(0, self->prod);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, ht_connect(c, HT_NAME, 0));
	EXPECT_EQ(0, poll1(c, POLLIN, 300));
	EXPECT_EQ(-1, recv(c, self->buf, sizeof(self->buf), 0));
	EXPECT_EQ(EAGAIN, errno);

	ASSERT_EQ(sizeof(obj), ht_publish(self->prod, HT_NAME, obj, sizeof(obj), 0));
	EXPECT_EQ(POLLIN, poll1(c, POLLIN, 5000));
	for (;;) {
		r = recv(c, self->buf + n, sizeof(self->buf) - n, 0);
		if (r == 0)
			break;
		if (r < 0 && errno == EAGAIN) {
			ASSERT_EQ(POLLIN, poll1(c, POLLIN, 5000));
			continue;
		}
		ASSERT_LT(0, r) TH_LOG("recv: %s", strerror(errno));
		n += r;
	}
	EXPECT_EQ(sizeof(obj), n);
	EXPECT_EQ(0, memcmp(self->buf, obj, sizeof(obj)));
	close(c);
}

TEST_F(t, so_rcvtimeo_eagain)
{
	struct timeval tv = { .tv_usec = 200000 };
	int c = consumer(CONS_REL, HT_NAME, LONG_MS, 0);
	double t0, dt;

	self->prod = ht_producer(PROD_REL);
	ASSERT_LE(0, self->prod);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
	t0 = ht_ms();
	EXPECT_EQ(-1, recv(c, self->buf, sizeof(self->buf), 0));
	EXPECT_EQ(EAGAIN, errno);
	dt = ht_ms() - t0;
	EXPECT_LE(190, dt);
	/* Not the interest's lifetime (ETIMEDOUT after LONG_MS). */
	EXPECT_GT(DEADLINE_MS, dt);
	close(c);
}

static void on_alarm(int sig)
{
	(void)sig;
}

TEST_F(t, signal_eintr)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	struct itimerval it = { .it_value = { .tv_usec = 200000 } };
	int c = consumer(CONS_REL, HT_NAME, LONG_MS, 0);
	double t0, dt;

	self->prod = ht_producer(PROD_REL);
	ASSERT_LE(0, self->prod);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &it, NULL));
	t0 = ht_ms();
	EXPECT_EQ(-1, recv(c, self->buf, sizeof(self->buf), 0));
	EXPECT_EQ(EINTR, errno);
	dt = ht_ms() - t0;
	EXPECT_LE(150, dt);
	EXPECT_GT(DEADLINE_MS, dt);
	close(c);
	EXPECT_EQ(0, ht_stat("pit_entries"));
}

struct reader {
	int fd;
	pid_t tid;
	ssize_t ret;
	int err;
	char buf[256];
};

static void *blocked_recv(void *arg)
{
	struct reader *r = arg;

	__atomic_store_n(&r->tid, syscall(SYS_gettid), __ATOMIC_RELEASE);
	r->ret = recv(r->fd, r->buf, sizeof(r->buf), 0);
	r->err = errno;
	return NULL;
}

TEST_F(t, shutdown_rd_wakes_reader)
{
	struct reader r = { .ret = -2 };
	struct timespec ts;
	pthread_t th;
	int joined;

	self->prod = ht_producer(PROD_REL);
	ASSERT_LE(0, self->prod);
	r.fd = socket(hcn_family(), SOCK_CONS, CONS_REL);
	ASSERT_LE(0, r.fd);
	/* Only shutdown() can end the wait within the test's time. */
	ASSERT_EQ(0, ht_setint(r.fd, HICN_INTEREST_LIFETIME, LONG_MS));
	ASSERT_EQ(0, ht_setint(r.fd, HICN_RETX_LIMIT, 0));
	ASSERT_EQ(0, ht_connect(r.fd, HT_NAME, 0));
	ASSERT_EQ(0, pthread_create(&th, NULL, blocked_recv, &r));
	while (!__atomic_load_n(&r.tid, __ATOMIC_ACQUIRE))
		sched_yield();
	/* The reader sleeps in recv(). */
	ASSERT_EQ(1, ht_wait_sleeping(r.tid, DEADLINE_MS));
	EXPECT_EQ(-2, r.ret);
	ASSERT_EQ(0, shutdown(r.fd, SHUT_RD));
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += DEADLINE_MS / 1000;
	joined = pthread_timedjoin_np(th, NULL, &ts);
	ASSERT_EQ(0, joined) {
		TH_LOG("reader still blocked %d s after shutdown(SHUT_RD)",
		       DEADLINE_MS / 1000);
		pthread_cancel(th);
		pthread_join(th, NULL);
	}
	EXPECT_EQ(0, r.ret) TH_LOG("recv: %s", strerror(r.err));
	/* And from now on, at once. */
	EXPECT_EQ(0, recv(r.fd, r.buf, sizeof(r.buf), 0));
	EXPECT_TRUE(poll1(r.fd, POLLIN, 0) & POLLIN);
	close(r.fd);
}

TEST_F(t, shutdown_unconnected_and_pollhup)
{
	int c = socket(hcn_family(), SOCK_CONS, CONS_REL);

	ASSERT_LE(0, c);
	EXPECT_EQ(0, shutdown(c, SHUT_RD));
	EXPECT_EQ(0, shutdown(c, SHUT_RDWR));
	EXPECT_TRUE(poll1(c, POLLIN, 0) & POLLHUP);
	close(c);
}

TEST_F(t, close_with_pending_interests)
{
	int c[4], i;

	self->prod = ht_producer(PROD_REL);
	ASSERT_LE(0, self->prod);
	for (i = 0; i < 4; i++) {
		char name[64];

		c[i] = socket(hcn_family(), SOCK_CONS | SOCK_NONBLOCK, CONS_REL);
		ASSERT_LE(0, c[i]);
		ASSERT_EQ(0, ht_setint(c[i], HICN_INTEREST_LIFETIME, LONG_MS));
		snprintf(name, sizeof(name), "b001:a:b:c::%x", 0x200 + i);
		ASSERT_EQ(0, ht_connect(c[i], name, 0));
	}
	EXPECT_EQ(4, ht_wait_stat("pit_entries", 4, DEADLINE_MS));
	for (i = 0; i < 4; i++)
		close(c[i]);
	/* At once, not when the lifetime ends. */
	EXPECT_EQ(0, ht_stat("pit_entries"));
}

TEST_F(t, poll_pollout_producer_only)
{
	int c = socket(hcn_family(), SOCK_CONS, CONS_REL);

	self->prod = ht_producer(PROD_REL);
	ASSERT_LE(0, self->prod);
	ASSERT_LE(0, c);
	EXPECT_TRUE(poll1(self->prod, POLLOUT, 0) & POLLOUT);
	ASSERT_EQ(sizeof(obj), ht_publish(self->prod, HT_NAME, obj, sizeof(obj), 0));
	EXPECT_TRUE(poll1(self->prod, POLLOUT, 0) & POLLOUT);
	EXPECT_EQ(0, poll1(c, POLLOUT, 0));
	ASSERT_EQ(0, ht_connect(c, HT_NAME, 0));
	EXPECT_FALSE(poll1(c, POLLOUT | POLLIN, 5000) & POLLOUT);
	close(c);
}

TEST_F(t, pollerr_after_timeout)
{
	int c = socket(hcn_family(), SOCK_CONS | SOCK_NONBLOCK, CONS_REL);
	socklen_t len = sizeof(int);
	int err = -1;
	short ev;

	self->prod = ht_producer(PROD_REL);
	ASSERT_LE(0, self->prod);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, ht_setint(c, HICN_INTEREST_LIFETIME, 100));
	ASSERT_EQ(0, ht_setint(c, HICN_RETX_LIMIT, 0));
	ASSERT_EQ(0, ht_connect(c, HT_NAME, 0));
	ev = poll1(c, POLLIN, 3000);
	EXPECT_TRUE(ev & POLLERR) TH_LOG("revents %#x", ev);
	ASSERT_EQ(0, getsockopt(c, SOL_SOCKET, SO_ERROR, &err, &len));
	EXPECT_EQ(ETIMEDOUT, err);
	/* Read once: cleared. */
	ASSERT_EQ(0, getsockopt(c, SOL_SOCKET, SO_ERROR, &err, &len));
	EXPECT_EQ(0, err);
	close(c);

	/* The same error read by recv instead. */
	c = socket(hcn_family(), SOCK_CONS | SOCK_NONBLOCK, CONS_REL);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, ht_setint(c, HICN_INTEREST_LIFETIME, 100));
	ASSERT_EQ(0, ht_setint(c, HICN_RETX_LIMIT, 0));
	ASSERT_EQ(0, ht_connect(c, HT_NAME, 0));
	ev = poll1(c, POLLIN, 3000);
	EXPECT_TRUE(ev & POLLERR) TH_LOG("revents %#x", ev);
	EXPECT_EQ(-1, recv(c, self->buf, sizeof(self->buf), 0));
	EXPECT_EQ(ETIMEDOUT, errno);
	close(c);
}

TEST_HARNESS_MAIN
