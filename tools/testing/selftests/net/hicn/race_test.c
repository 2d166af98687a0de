// SPDX-License-Identifier: GPL-2.0
/*
 * AF_HICN races and hangs (issue 12): what must hold when calls on one
 * consumer socket overlap, when a fetch stalls part-way, and when the
 * forwarder refuses an interest.
 *
 * A fetch stalls part-way only when a segment's interest is aggregated
 * onto a PIT entry nobody will answer; stalled_producer() builds one with
 * a route that sends the name's interests to a UDP peer that never
 * answers (see there), never by publishing a version number again (a
 * name and version mean one object, issue 12).  A call that would block for ever
 * on a broken kernel is bounded by an alarm whose handler has no
 * SA_RESTART: the call then fails with EINTR, which the test reports.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <netinet/in.h>

#include "hicn_test.h"
#include "kselftest_harness.h"

/* Seconds after which a call that should have returned is interrupted. */
#define GUARD_S		20
/* An interest lifetime no test outlives (the maximum, 10 min). */
#define LONG_MS		HICN_LIFETIME_MAX

static void on_alarm(int sig)
{
	(void)sig;
}

/*
 * SIGALRM, armed with alarm(GUARD_S) before a call that could block for
 * ever, interrupts it (no SA_RESTART).
 */
static int guard(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };

	return sigaction(SIGALRM, &sa, NULL);
}

/* A consumer that waits LONG_MS for each interest, never retransmits. */
static int patient(int fd)
{
	if (fd < 0)
		return -1;
	if (ht_setint(fd, HICN_INTEREST_LIFETIME, LONG_MS) ||
	    ht_setint(fd, HICN_RETX_LIMIT, 0)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* 1 once thread @tid sleeps (state S), waiting up to GUARD_S; else 0. */
static int wait_sleeping(pid_t tid)
{
	double t0 = ht_ms();
	char path[64], buf[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	while (ht_ms() - t0 < GUARD_S * 1000.0) {
		f = fopen(path, "r");
		if (!f)
			return 0;
		p = fgets(buf, sizeof(buf), f);
		fclose(f);
		p = p ? strrchr(buf, ')') : NULL;
		if (p && p[1] == ' ' && p[2] == 'S')
			return 1;
		sched_yield();
	}
	return 0;
}

struct reader {
	int fd;
	int flags;
	pid_t tid;
	size_t cap;
	char *buf;
	ssize_t ret;
	int err;
	int msg_flags;
	pthread_barrier_t *start;
};

static void *reader_run(void *arg)
{
	struct reader *r = arg;
	struct iovec iov = { .iov_base = r->buf, .iov_len = r->cap };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };

	r->tid = syscall(SYS_gettid);
	if (r->start)
		pthread_barrier_wait(r->start);
	r->ret = recvmsg(r->fd, &m, r->flags);
	r->err = errno;
	r->msg_flags = m.msg_flags;
	return NULL;
}

FIXTURE(race)
{
	int prod;
	char buf[8192];
};

FIXTURE_SETUP(race)
{
	ASSERT_EQ(0, ht_enter_netns());
	self->prod = -1;
	ASSERT_EQ(0, guard());
}

FIXTURE_TEARDOWN(race)
{
	alarm(0);
	if (self->prod >= 0)
		close(self->prod);
}

/* connect(AF_UNSPEC) wakes a reader blocked in recv(): ENOTCONN. */
TEST_F_TIMEOUT(race, disconnect_wakes_reader, 120)
{
	struct sockaddr unspec = { .sa_family = AF_UNSPEC };
	struct reader r = { .cap = sizeof(self->buf), .buf = self->buf };
	struct timespec ts;
	pthread_t th;
	int joined;

	self->prod = ht_producer(PROD_REL);
	ASSERT_LE(0, self->prod);
	r.fd = patient(socket(hcn_family(), SOCK_CONS, CONS_REL));
	ASSERT_LE(0, r.fd);
	/* Nothing published: the interest waits at the producer. */
	ASSERT_EQ(0, ht_connect(r.fd, HT_NAME, 0));
	ASSERT_EQ(0, pthread_create(&th, NULL, reader_run, &r));
	while (!__atomic_load_n(&r.tid, __ATOMIC_ACQUIRE))
		sched_yield();
	ASSERT_EQ(1, wait_sleeping(r.tid));

	ASSERT_EQ(0, connect(r.fd, &unspec, sizeof(unspec)));
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += GUARD_S;
	joined = pthread_timedjoin_np(th, NULL, &ts);
	EXPECT_EQ(0, joined) TH_LOG("reader still blocked %d s after connect(AF_UNSPEC)",
				    GUARD_S);
	if (joined) {
		shutdown(r.fd, SHUT_RD);
		pthread_join(th, NULL);
	} else {
		EXPECT_EQ(-1, r.ret);
		EXPECT_EQ(ENOTCONN, r.err) TH_LOG("recv: %s", strerror(r.err));
	}
	close(r.fd);
}

#define STALL_PKT	64
#define STALL_LEN	(4 * STALL_PKT)

static char stall_obj[STALL_LEN];

/* A PROD_REL producer of HT_NS cutting objects into STALL_PKT bytes. */
static int stall_producer(void)
{
	int p = ht_producer(PROD_REL);

	if (p >= 0 && ht_setint(p, HICN_PACKET_SIZE, STALL_PKT)) {
		close(p);
		return -1;
	}
	return p;
}

/* The route of stalled_producer(): HT_NAME/128 to a silent peer. */
static struct ht_silent stall;

/*
 * A route of HT_NAME/128 to a UDP peer on 127.0.0.1 that never answers
 * (ht_silent_route()): every interest for HT_NAME from here on leaves
 * for the silent peer.  The peer's descriptor, or -1.
 */
static int stall_route(void)
{
	return ht_silent_route(&stall, HT_NAME, 128) ? -1 : stall.peer;
}

/*
 * The stall ends: without the route, HT_NAME's interests (a consumer's
 * retransmissions) reach the producer again.
 */
static int stall_end(void)
{
	return ht_silent_end(&stall);
}

/*
 * Leave a PIT entry for segment 1 of version 1 of HT_NAME that nobody will
 * answer, and the producer (returned) that published version 1 of it: a
 * fetch of version 1 by number gets segment 0 from the content store and
 * then stalls on segment 1 for *@other's LONG_MS lifetime (a fetch of the
 * newest version would not: answers to "newest" are never cached, and
 * its interest would go to the silent peer as well).
 *
 * *@other, a stream consumer with a window of one, fetches version 1 by
 * number: the producer answers segment 0, which the content store keeps.
 * Then stall_route() sends the name's interests to a UDP peer (*@peer,
 * the test's) that never answers; reading segment 0 sends the interest
 * for segment 1 there, and its PIT entry stays.  No version number is
 * published twice.  Returns -1 on a set-up failure.
 */
static int stalled_producer(int *other, int *peer)
{
	char seg[STALL_PKT];
	int p, b;

	ht_fill(stall_obj, sizeof(stall_obj), 7);
	p = stall_producer();
	if (p < 0)
		return -1;
	b = patient(socket(hcn_family(), SOCK_CONS, CONS_REL));
	if (b < 0 || ht_setint(b, HICN_WINDOW, 1) ||
	    ht_publish(p, HT_NAME, stall_obj, STALL_LEN, 0) != STALL_LEN ||
	    ht_connect(b, HT_NAME, 1))
		goto fail;
	*peer = stall_route();
	if (*peer < 0)
		goto fail;
	if (recv(b, seg, sizeof(seg), 0) != STALL_PKT ||
	    ht_stat("pit_entries") != 1 || ht_stat("cs_entries") != 1) {
		close(*peer);
		goto fail;
	}
	*other = b;
	return p;
fail:
	if (b >= 0)
		close(b);
	close(p);
	return -1;
}

/* MSG_DONTWAIT holds once part of a datagram was copied: EAGAIN. */
TEST_F_TIMEOUT(race, dontwait_after_partial_copy, 120)
{
	int b = -1, peer = -1, c;

	self->prod = stalled_producer(&b, &peer);
	ASSERT_LE(0, self->prod);
	c = patient(ht_consumer(CONS_REL, HT_NAME, 1));
	ASSERT_LE(0, c);
	alarm(GUARD_S);
	EXPECT_EQ(-1, recv(c, self->buf, sizeof(self->buf), MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno) TH_LOG("recv: %s", strerror(errno));
	/* Nothing of the object stays half-read: the next call starts again. */
	alarm(GUARD_S);
	EXPECT_EQ(-1, recv(c, self->buf, sizeof(self->buf), MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno) TH_LOG("recv: %s", strerror(errno));
	close(c);
	close(b);
	close(peer);
}

/* SO_RCVTIMEO holds once part of a datagram was copied: EAGAIN. */
TEST_F_TIMEOUT(race, rcvtimeo_after_partial_copy, 120)
{
	struct timeval tv = { .tv_usec = 200000 };
	int b = -1, peer = -1, c;

	self->prod = stalled_producer(&b, &peer);
	ASSERT_LE(0, self->prod);
	c = patient(ht_consumer(CONS_REL, HT_NAME, 1));
	ASSERT_LE(0, c);
	ASSERT_EQ(0, setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
	alarm(GUARD_S);
	EXPECT_EQ(-1, recv(c, self->buf, sizeof(self->buf), 0));
	EXPECT_EQ(EAGAIN, errno) TH_LOG("recv: %s", strerror(errno));
	close(c);
	close(b);
	close(peer);
}

/* The same in stream mode: the bytes copied so far, then EAGAIN. */
TEST_F_TIMEOUT(race, rcvtimeo_stream_after_partial_copy, 120)
{
	struct timeval tv = { .tv_usec = 200000 };
	int b = -1, peer = -1, c;

	self->prod = stalled_producer(&b, &peer);
	ASSERT_LE(0, self->prod);
	c = patient(socket(hcn_family(), SOCK_CONS, CONS_REL));
	ASSERT_LE(0, c);
	ASSERT_EQ(0, setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
	ASSERT_EQ(0, ht_connect(c, HT_NAME, 1));
	alarm(GUARD_S);
	ASSERT_EQ(STALL_PKT, recv(c, self->buf, sizeof(self->buf), MSG_WAITALL))
		TH_LOG("recv: %s", strerror(errno));
	EXPECT_EQ(0, memcmp(self->buf, stall_obj, STALL_PKT));
	alarm(GUARD_S);
	EXPECT_EQ(-1, recv(c, self->buf, sizeof(self->buf), 0));
	EXPECT_EQ(EAGAIN, errno) TH_LOG("recv: %s", strerror(errno));
	close(c);
	close(b);
	close(peer);
}

/* After the end of the object, read() returns 0 again: no second fetch. */
TEST_F_TIMEOUT(race, read_after_eof_stays_zero, 120)
{
	char obj[5000];
	struct hicn_info hi;
	int c, i;

	ht_fill(obj, sizeof(obj), 8);
	self->prod = ht_producer(PROD_REL);
	ASSERT_LE(0, self->prod);
	ASSERT_EQ(sizeof(obj), ht_publish(self->prod, HT_NAME, obj, sizeof(obj), 0));
	ASSERT_EQ(0, ht_publish(self->prod, HT_NAME2, obj, 0, 0));

	c = socket(hcn_family(), SOCK_CONS, CONS_REL);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, ht_connect(c, HT_NAME, 0));
	ASSERT_EQ(sizeof(obj), ht_read_stream(c, self->buf, sizeof(self->buf), 1000));
	EXPECT_EQ(0, memcmp(self->buf, obj, sizeof(obj)));
	alarm(GUARD_S);
	for (i = 0; i < 3; i++)
		EXPECT_EQ(0, read(c, self->buf, sizeof(self->buf)))
			TH_LOG("read %d after EOF", i + 2);
	ASSERT_EQ(0, ht_info(c, &hi));
	EXPECT_EQ(1, hi.hi_objects);
	EXPECT_EQ(sizeof(obj), hi.hi_bytes);
	/* connect() starts the next fetch. */
	ASSERT_EQ(0, ht_connect(c, HT_NAME, 0));
	ASSERT_EQ(sizeof(obj), ht_read_stream(c, self->buf, sizeof(self->buf), 1000));
	EXPECT_EQ(0, read(c, self->buf, sizeof(self->buf)));
	close(c);

	/* An empty object: EOF at once, and again. */
	c = socket(hcn_family(), SOCK_CONS, CONS_REL);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, ht_connect(c, HT_NAME2, 0));
	for (i = 0; i < 3; i++)
		EXPECT_EQ(0, read(c, self->buf, sizeof(self->buf)));
	ASSERT_EQ(0, ht_info(c, &hi));
	EXPECT_EQ(1, hi.hi_interests_sent);
	EXPECT_EQ(1, hi.hi_objects);
	close(c);
}

#define BIG_LEN		(16 << 20)
#define BIG_ROUNDS	2

/*
 * Two threads in recvmsg() on one datagram consumer: each gets a whole,
 * correct copy of the 16 MiB object, never a fragment of it.
 */
TEST_F_TIMEOUT(race, two_readers_whole_objects, 120)
{
	struct reader r[2];
	pthread_barrier_t start;
	pthread_t th[2];
	char *src;
	int c, i, round;

	src = malloc(BIG_LEN);
	ASSERT_NE(NULL, src);
	ht_fill(src, BIG_LEN, 16);
	self->prod = ht_producer(PROD_REL);
	ASSERT_LE(0, self->prod);
	ASSERT_EQ(0, ht_setint(self->prod, HICN_PACKET_SIZE, 8192));
	ASSERT_EQ(BIG_LEN, ht_publish(self->prod, HT_NAME, src, BIG_LEN, 0));
	c = ht_consumer(CONS_REL, HT_NAME, 0);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, ht_setint(c, HICN_WINDOW, 16));

	for (round = 0; round < BIG_ROUNDS; round++) {
		ASSERT_EQ(0, pthread_barrier_init(&start, NULL, 2));
		for (i = 0; i < 2; i++) {
			memset(&r[i], 0, sizeof(r[i]));
			r[i].fd = c;
			r[i].cap = BIG_LEN;
			r[i].buf = malloc(BIG_LEN);
			r[i].start = &start;
			ASSERT_NE(NULL, r[i].buf);
			ASSERT_EQ(0, pthread_create(&th[i], NULL, reader_run, &r[i]));
		}
		for (i = 0; i < 2; i++) {
			pthread_join(th[i], NULL);
			EXPECT_EQ(BIG_LEN, r[i].ret)
				TH_LOG("round %d reader %d: %zd (%s), flags %#x",
				       round, i, r[i].ret, strerror(r[i].err),
				       r[i].msg_flags);
			EXPECT_FALSE(r[i].msg_flags & MSG_TRUNC);
			if (r[i].ret == BIG_LEN)
				EXPECT_EQ(-1, ht_diff(r[i].buf, src, BIG_LEN))
					TH_LOG("round %d reader %d", round, i);
			free(r[i].buf);
		}
		pthread_barrier_destroy(&start);
	}
	close(c);
	free(src);
}

/*
 * A second reader comes while the first one sleeps part-way through an
 * object (segment 1 stalled until the route to the silent peer goes and
 * the consumer retransmits it): each
 * still gets the whole object, never the first one a prefix and the
 * second the rest.
 */
TEST_F_TIMEOUT(race, two_readers_while_one_sleeps, 120)
{
	struct reader r[2];
	int b = -1, peer = -1, c, i;
	pthread_t th[2];

	self->prod = stalled_producer(&b, &peer);
	ASSERT_LE(0, self->prod);
	c = ht_consumer(CONS_REL, HT_NAME, 1);
	ASSERT_LE(0, c);
	/*
	 * Its retransmissions of segment 1 go to the silent peer until both
	 * readers sleep and stall_end() removes the route; the next one is
	 * answered by the producer: the stall ends.
	 */
	ASSERT_EQ(0, ht_setint(c, HICN_INTEREST_LIFETIME, 3000));
	ASSERT_EQ(0, ht_setint(c, HICN_RETX_LIMIT, 10));
	for (i = 0; i < 2; i++) {
		memset(&r[i], 0, sizeof(r[i]));
		r[i].fd = c;
		r[i].cap = sizeof(self->buf) / 2;
		r[i].buf = self->buf + i * r[i].cap;
		ASSERT_EQ(0, pthread_create(&th[i], NULL, reader_run, &r[i]));
		while (!__atomic_load_n(&r[i].tid, __ATOMIC_ACQUIRE))
			sched_yield();
		ASSERT_EQ(1, wait_sleeping(r[i].tid));
	}
	ASSERT_EQ(0, stall_end());
	for (i = 0; i < 2; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(STALL_LEN, r[i].ret)
			TH_LOG("reader %d: %zd (%s), flags %#x", i, r[i].ret,
			       strerror(r[i].err), r[i].msg_flags);
		EXPECT_FALSE(r[i].msg_flags & MSG_TRUNC);
		if (r[i].ret == STALL_LEN)
			EXPECT_EQ(0, memcmp(r[i].buf, stall_obj, STALL_LEN));
	}
	close(c);
	close(b);
	close(peer);
}

/* HICN_CONTENT_EXPIRY takes every __u32 it documents. */
TEST_F_TIMEOUT(race, content_expiry_whole_u32, 120)
{
	static const __u32 vals[] = { 0x7fffffff, 0x80000000, 0xffffffff };
	char obj[100];
	unsigned int i;
	__u32 v;
	int c;

	ht_fill(obj, sizeof(obj), 9);
	self->prod = ht_producer(PROD_REL);
	ASSERT_LE(0, self->prod);
	for (i = 0; i < ARRAY_SIZE(vals); i++) {
		v = vals[i];
		EXPECT_EQ(0, setsockopt(self->prod, SOL_HICN, HICN_CONTENT_EXPIRY,
					&v, sizeof(v)))
			TH_LOG("%#x: %s", vals[i], strerror(errno));
		EXPECT_EQ(vals[i], (__u32)ht_getint(self->prod, HICN_CONTENT_EXPIRY));
	}
	/* Published under the longest expiry, it is there. */
	ASSERT_EQ(sizeof(obj), ht_publish(self->prod, HT_NAME, obj, sizeof(obj), 0));
	c = ht_consumer(CONS_REL, HT_NAME, 0);
	ASSERT_LE(0, c);
	ASSERT_EQ(sizeof(obj), recv(c, self->buf, sizeof(self->buf), 0))
		TH_LOG("recv: %s", strerror(errno));
	EXPECT_EQ(0, memcmp(self->buf, obj, sizeof(obj)));
	close(c);
}

/* No producer serves the name: ENETUNREACH at once, not ETIMEDOUT. */
TEST_F_TIMEOUT(race, no_route_enetunreach, 120)
{
	static const int protos[] = { CONS_REL, CONS_UNREL };
	struct hicn_info hi;
	unsigned int i;
	int c;

	for (i = 0; i < ARRAY_SIZE(protos); i++) {
		c = patient(ht_consumer(protos[i], HT_NAME, 0));
		ASSERT_LE(0, c);
		alarm(GUARD_S);
		EXPECT_EQ(-1, recv(c, self->buf, sizeof(self->buf), 0));
		EXPECT_EQ(ENETUNREACH, errno) TH_LOG("recv: %s", strerror(errno));
		ASSERT_EQ(0, ht_info(c, &hi));
		EXPECT_EQ(1, hi.hi_interests_sent);
		EXPECT_EQ(0, hi.hi_interests_retx);
		close(c);
	}
	/* In stream mode the error is pending at connect(): POLLERR. */
	c = patient(socket(hcn_family(), SOCK_CONS, CONS_REL));
	ASSERT_LE(0, c);
	ASSERT_EQ(0, ht_connect(c, HT_NAME, 0));
	alarm(GUARD_S);
	EXPECT_EQ(-1, recv(c, self->buf, sizeof(self->buf), 0));
	EXPECT_EQ(ENETUNREACH, errno) TH_LOG("recv: %s", strerror(errno));
	close(c);
}

/* A full PIT: ENOBUFS at once, not ETIMEDOUT. */
TEST_F_TIMEOUT(race, pit_full_enobufs, 120)
{
	int waiting, c;
	FILE *f;

	self->prod = ht_producer(PROD_REL);
	ASSERT_LE(0, self->prod);
	f = fopen(HT_SYSCTL("pit_max"), "w");
	ASSERT_NE(NULL, f);
	ASSERT_LT(0, fprintf(f, "1\n"));
	ASSERT_EQ(0, fclose(f));
	/* Its interest for a name never published fills the PIT. */
	waiting = patient(socket(hcn_family(), SOCK_CONS | SOCK_NONBLOCK,
				 CONS_REL));
	ASSERT_LE(0, waiting);
	ASSERT_EQ(0, ht_connect(waiting, HT_NAME2, 0));
	ASSERT_EQ(1, ht_stat("pit_entries"));

	c = patient(ht_consumer(CONS_REL, HT_NAME, 1));
	ASSERT_LE(0, c);
	alarm(GUARD_S);
	EXPECT_EQ(-1, recv(c, self->buf, sizeof(self->buf), 0));
	EXPECT_EQ(ENOBUFS, errno) TH_LOG("recv: %s", strerror(errno));
	EXPECT_LE(1, ht_stat("pit_drops"));
	close(c);
	close(waiting);
}

#define FAIL_FN		"/sys/kernel/debug/fail_function/"

/* Write a line to @path; 0 or -1. */
static int write_line(const char *path, const char *fmt, ...)
{
	FILE *f = fopen(path, "w");
	va_list ap;
	int n;

	if (!f)
		return -1;
	va_start(ap, fmt);
	n = vfprintf(f, fmt, ap);
	va_end(ap);
	return fclose(f) || n < 0 ? -1 : 0;
}

/*
 * fail_function fails every call of @fn with @err, quietly (no report in
 * the kernel log), whoever calls it: the pump may run in a kworker.  Only
 * this test's network namespace has AF_HICN sockets.  0 or -1.
 */
static int fail_function(const char *fn, int err)
{
	char path[128];

	snprintf(path, sizeof(path), FAIL_FN "%s/retval", fn);
	if (write_line(FAIL_FN "inject", "%s\n", fn) ||
	    write_line(path, "%#lx\n", (unsigned long)(long)-err) ||
	    write_line(FAIL_FN "probability", "100\n") ||
	    write_line(FAIL_FN "interval", "1\n") ||
	    write_line(FAIL_FN "times", "-1\n") ||
	    write_line(FAIL_FN "verbose", "0\n"))
		return -1;
	return write_line(FAIL_FN "task-filter", "N\n");
}

static void fail_function_stop(void)
{
	write_line(FAIL_FN "inject", "\n");
}

/*
 * An allocation of the forwarder that fails: ENOMEM at once, not ETIMEDOUT
 * after the retransmissions.  fail_function makes hicn_pit_insert() fail;
 * the debug kernel has it, Debian's kernels do not (no
 * CONFIG_FAIL_FUNCTION), and the test is skipped there.
 */
TEST_F_TIMEOUT(race, pit_alloc_failure_enomem, 120)
{
	struct hicn_info hi;
	char obj[3000];
	int c;

	if (access(FAIL_FN "inject", W_OK))
		SKIP(return, "no fail_function in this kernel (CONFIG_FAIL_FUNCTION)");
	ht_fill(obj, sizeof(obj), 3);
	self->prod = ht_producer(PROD_REL);
	ASSERT_LE(0, self->prod);
	ASSERT_EQ(sizeof(obj), ht_publish(self->prod, HT_NAME, obj, sizeof(obj), 0));

	ASSERT_EQ(0, fail_function("hicn_pit_insert", ENOMEM));
	c = patient(ht_consumer(CONS_REL, HT_NAME, 1));
	ASSERT_LE(0, c);
	alarm(GUARD_S);
	EXPECT_EQ(-1, recv(c, self->buf, sizeof(self->buf), 0));
	EXPECT_EQ(ENOMEM, errno) TH_LOG("recv: %s", strerror(errno));
	alarm(0);
	fail_function_stop();
	ASSERT_EQ(0, ht_info(c, &hi));
	EXPECT_EQ(1, hi.hi_interests_sent);
	EXPECT_EQ(0, hi.hi_interests_retx);
	EXPECT_EQ(0, ht_stat("pit_entries"));

	/* Allocations succeed again: the next call fetches the object. */
	alarm(GUARD_S);
	EXPECT_EQ(sizeof(obj), recv(c, self->buf, sizeof(self->buf), 0))
		TH_LOG("recv: %s", strerror(errno));
	EXPECT_EQ(0, memcmp(self->buf, obj, sizeof(obj)));
	close(c);
}

/*
 * A datagram subscriber's next interest goes out when it has read a
 * version: poll() reports POLLIN once the next one is published, long
 * before the interest's lifetime.
 */
TEST_F_TIMEOUT(race, subscriber_asks_next_at_once, 120)
{
	struct sockaddr_hicn from;
	socklen_t fromlen;
	char obj[3000];
	struct pollfd pfd;
	int c, v;

	ht_fill(obj, sizeof(obj), 5);
	self->prod = ht_producer(PROD_REL);
	ASSERT_LE(0, self->prod);
	c = patient(ht_consumer(CONS_REL, HT_NAME, 1));
	ASSERT_LE(0, c);
	ASSERT_EQ(0, ht_setint(c, HICN_SUBSCRIBE, 1));
	for (v = 1; v <= 3; v++) {
		ASSERT_EQ(sizeof(obj), ht_publish(self->prod, HT_NAME, obj,
						  sizeof(obj), 0));
		pfd.fd = c;
		pfd.events = POLLIN;
		pfd.revents = 0;
		EXPECT_EQ(1, poll(&pfd, 1, GUARD_S * 1000 / 4))
			TH_LOG("version %d: no POLLIN", v);
		fromlen = sizeof(from);
		alarm(GUARD_S);
		ASSERT_EQ(sizeof(obj), recvfrom(c, self->buf, sizeof(self->buf),
						MSG_DONTWAIT,
						(struct sockaddr *)&from, &fromlen))
			TH_LOG("version %d: %s", v, strerror(errno));
		EXPECT_EQ(v, from.sin_suffix);
	}
	close(c);
}

/*
 * A non-blocking producer does not spin: once poll() reports POLLOUT, a
 * sendto() of an object of the low-water size (SO_SNDBUF / 2 - 8 KiB)
 * succeeds; while it would not, there is no POLLOUT.
 */
TEST_F_TIMEOUT(race, pollout_means_room, 120)
{
	struct pollfd pfd = { .events = POLLOUT };
	int sndbuf = 1 << 20, round, i;
	socklen_t len = sizeof(sndbuf);
	size_t lowat;
	char *obj;

	self->prod = ht_producer(PROD_REL);
	ASSERT_LE(0, self->prod);
	ASSERT_EQ(0, fcntl(self->prod, F_SETFL, O_NONBLOCK));
	ASSERT_EQ(0, setsockopt(self->prod, SOL_SOCKET, SO_SNDBUF, &sndbuf,
				sizeof(sndbuf)));
	ASSERT_EQ(0, getsockopt(self->prod, SOL_SOCKET, SO_SNDBUF, &sndbuf,
				&len));
	ASSERT_EQ(0, ht_setint(self->prod, HICN_CONTENT_EXPIRY, 300));
	lowat = sndbuf / 2 - 8192;
	obj = calloc(1, lowat);
	ASSERT_NE(NULL, obj);
	pfd.fd = self->prod;

	for (round = 0; round < 3; round++) {
		/* Fill the send buffer. */
		for (i = 0; i < 64; i++)
			if (ht_publish(self->prod, HT_NAME, obj, lowat, 0) < 0)
				break;
		ASSERT_EQ(EAGAIN, errno) TH_LOG("round %d: %s", round,
						strerror(errno));
		ASSERT_GT(64, i);
		EXPECT_EQ(0, poll(&pfd, 1, 0))
			TH_LOG("round %d: POLLOUT with no room (revents %#x)",
			       round, pfd.revents);
		/* The versions expire: POLLOUT, and then room. */
		ASSERT_EQ(1, poll(&pfd, 1, GUARD_S * 1000));
		EXPECT_EQ((ssize_t)lowat, ht_publish(self->prod, HT_NAME, obj,
						     lowat, 0))
			TH_LOG("round %d: after POLLOUT: %s", round,
			       strerror(errno));
	}
	free(obj);
}

/*
 * Producers closing while their faces answer interests: one thread
 * claims the namespace, publishes and closes in a loop while 8 consumer
 * threads fetch the name in a loop, for CLOSE_LOOP_S seconds (60 with
 * LONG=1).  Every fetch ends in the object or a documented errno; the
 * harness's kernel-log and leak checks (the debug kernel's KASAN and
 * kmemleak) see the rest.
 */
#define CLOSE_CONSUMERS	8

struct close_loop {
	int stop;
	char obj[3000];
	unsigned long published, fetched, failed;
	int bad_errno;
};

static void *close_loop_producer(void *arg)
{
	struct close_loop *cl = arg;
	int p;

	while (!__atomic_load_n(&cl->stop, __ATOMIC_RELAXED)) {
		p = ht_producer(PROD_REL);
		if (p < 0)
			continue;	/* the last one's claim is not gone yet */
		if (ht_publish(p, HT_NAME, cl->obj, sizeof(cl->obj), 0) ==
		    sizeof(cl->obj))
			__atomic_add_fetch(&cl->published, 1, __ATOMIC_RELAXED);
		close(p);
	}
	return NULL;
}

static void *close_loop_consumer(void *arg)
{
	struct timeval tv = { .tv_usec = 100000 };
	struct close_loop *cl = arg;
	char buf[4096];
	ssize_t n;
	int c;

	while (!__atomic_load_n(&cl->stop, __ATOMIC_RELAXED)) {
		c = ht_consumer(CONS_REL, HT_NAME, 0);
		if (c < 0)
			continue;
		ht_setint(c, HICN_INTEREST_LIFETIME, 20);
		setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		n = recv(c, buf, sizeof(buf), 0);
		if (n == sizeof(cl->obj) && !memcmp(buf, cl->obj, n)) {
			__atomic_add_fetch(&cl->fetched, 1, __ATOMIC_RELAXED);
		} else if (n < 0 && (errno == ENETUNREACH || errno == ENOENT ||
				     errno == ETIMEDOUT || errno == EAGAIN)) {
			__atomic_add_fetch(&cl->failed, 1, __ATOMIC_RELAXED);
		} else {
			cl->bad_errno = n < 0 ? errno : -1;
		}
		close(c);
	}
	return NULL;
}

TEST_F_TIMEOUT(race, producer_close_while_answering, 180)
{
	const char *long_run = getenv("LONG");
	int secs = long_run && *long_run == '1' ? 60 : 10, i;
	pthread_t th[CLOSE_CONSUMERS + 1];
	struct close_loop *cl;

	cl = calloc(1, sizeof(*cl));
	ASSERT_NE(NULL, cl);
	ht_fill(cl->obj, sizeof(cl->obj), 1);
	ASSERT_EQ(0, pthread_create(&th[0], NULL, close_loop_producer, cl));
	for (i = 1; i <= CLOSE_CONSUMERS; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, close_loop_consumer,
					    cl));
	sleep(secs);	/* the duration of the run, not a synchronisation */
	__atomic_store_n(&cl->stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i <= CLOSE_CONSUMERS; i++)
		pthread_join(th[i], NULL);
	TH_LOG("%d s: %lu published, %lu fetched, %lu failed", secs,
	       cl->published, cl->fetched, cl->failed);
	EXPECT_EQ(0, cl->bad_errno) TH_LOG("recv: %s", strerror(cl->bad_errno));
	EXPECT_LT(0, cl->published);
	free(cl);
}

/*
 * Consumers closed mid-fetch while the producer publishes: 6 stream
 * consumers read a random part (or all) of the newest version of a
 * 256 KiB object and close with interests out and segments arriving,
 * while the producer publishes a new version every 20 ms (each expiring
 * after 2 s), for
 * CLOSE_LOOP_S seconds (60 with LONG=1).  Every byte read is the
 * object's; every error a documented one; the harness's kernel-log and
 * leak checks see the rest.
 */
#define MID_CONSUMERS	6
#define MID_LEN		(256 * 1024)

struct mid_fetch {
	int stop;
	int prod;
	char obj[MID_LEN];
	unsigned long published, closed_early, whole, failed;
	int bad_errno, bad_data;
};

static void *mid_fetch_producer(void *arg)
{
	struct mid_fetch *mf = arg;

	while (!__atomic_load_n(&mf->stop, __ATOMIC_RELAXED)) {
		if (ht_publish(mf->prod, HT_NAME, mf->obj, MID_LEN, 0) ==
		    MID_LEN)
			__atomic_add_fetch(&mf->published, 1, __ATOMIC_RELAXED);
		ht_sleep_ms(20);
	}
	return NULL;
}

/* One fetch of the newest version, closed after @want bytes. */
static void mid_fetch_one(struct mid_fetch *mf, size_t want, char *buf)
{
	struct timeval tv = { .tv_usec = 200000 };
	size_t got = 0;
	ssize_t n;
	int c;

	c = socket(hcn_family(), SOCK_CONS, CONS_REL);
	if (c < 0)
		return;
	ht_setint(c, HICN_INTEREST_LIFETIME, 200);
	setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (ht_connect(c, HT_NAME, 0))
		goto out;
	while (got < want) {
		n = recv(c, buf, want - got < 16384 ? want - got : 16384, 0);
		if (n <= 0) {
			if (n == 0 && got == MID_LEN)
				break;
			if (n < 0 && (errno == EAGAIN || errno == ETIMEDOUT ||
				      errno == ENOENT || errno == ENETUNREACH))
				__atomic_add_fetch(&mf->failed, 1,
						   __ATOMIC_RELAXED);
			else
				mf->bad_errno = n < 0 ? errno : -1;
			goto out;
		}
		if (memcmp(buf, mf->obj + got, n))
			mf->bad_data = 1;
		got += n;
	}
	__atomic_add_fetch(got == MID_LEN ? &mf->whole : &mf->closed_early, 1,
			   __ATOMIC_RELAXED);
out:
	close(c);	/* mid-fetch, most of the time */
}

static void *mid_fetch_consumer(void *arg)
{
	struct mid_fetch *mf = arg;
	unsigned int seed = (unsigned int)(uintptr_t)&seed;
	char buf[16384];

	size_t want;

	/* A part of the object, or (one time in five) all of it. */
	while (!__atomic_load_n(&mf->stop, __ATOMIC_RELAXED)) {
		want = rand_r(&seed) % (MID_LEN * 5 / 4 + 1);
		mid_fetch_one(mf, want < MID_LEN ? want : MID_LEN, buf);
	}
	return NULL;
}

TEST_F_TIMEOUT(race, consumer_close_mid_fetch, 180)
{
	const char *long_run = getenv("LONG");
	int secs = long_run && *long_run == '1' ? 60 : 10, i;
	pthread_t th[MID_CONSUMERS + 1];
	struct mid_fetch *mf;

	mf = calloc(1, sizeof(*mf));
	ASSERT_NE(NULL, mf);
	ht_fill(mf->obj, MID_LEN, 7);
	mf->prod = ht_producer(PROD_REL);
	ASSERT_LE(0, mf->prod);
	ASSERT_EQ(0, ht_setint(mf->prod, HICN_CONTENT_EXPIRY, 2000));
	ASSERT_EQ(MID_LEN, ht_publish(mf->prod, HT_NAME, mf->obj, MID_LEN, 0));
	ASSERT_EQ(0, pthread_create(&th[0], NULL, mid_fetch_producer, mf));
	for (i = 1; i <= MID_CONSUMERS; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, mid_fetch_consumer,
					    mf));
	sleep(secs);	/* the duration of the run, not a synchronisation */
	__atomic_store_n(&mf->stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i <= MID_CONSUMERS; i++)
		pthread_join(th[i], NULL);
	TH_LOG("%d s: %lu published, %lu closed mid-fetch, %lu whole, %lu failed",
	       secs, mf->published, mf->closed_early, mf->whole, mf->failed);
	EXPECT_EQ(0, mf->bad_errno) TH_LOG("recv: %s", strerror(mf->bad_errno));
	EXPECT_EQ(0, mf->bad_data);
	EXPECT_LT(0, mf->closed_early);
	close(mf->prod);
	free(mf);
}

/*
 * A producer closed while the hash of the interests it holds is being
 * resized: release() must not free held interests the resize still
 * walks.  Each round holds 49 or 97 interests, one more than 3/4 of a
 * table of 64 or 128, so that the last one schedules a resize, and
 * closes the producer at once (the debug kernel's KASAN sees a free the
 * resize then reads).
 */
#define REHASH_ROUNDS	60
#define REHASH_MAX	97

TEST_F_TIMEOUT(race, producer_close_while_rehashing, 180)
{
	int c[REHASH_MAX], i, n, round;
	char name[64];

	for (round = 0; round < REHASH_ROUNDS; round++) {
		n = round & 1 ? 97 : 49;
		self->prod = ht_producer(PROD_REL);
		ASSERT_LE(0, self->prod);
		for (i = 0; i < n; i++) {
			c[i] = socket(hcn_family(), SOCK_CONS | SOCK_NONBLOCK,
				      CONS_UNREL);
			ASSERT_LE(0, c[i]);
			ASSERT_EQ(0, ht_setint(c[i], HICN_INTEREST_LIFETIME,
					       LONG_MS));
			snprintf(name, sizeof(name), "b001:a:b:c::%x:%x",
				 round, i);
			ASSERT_EQ(0, ht_connect(c[i], name, 0));
		}
		close(self->prod);
		self->prod = -1;
		for (i = 0; i < n; i++)
			close(c[i]);
		ASSERT_EQ(0, ht_stat("prod_held"));
	}
}

TEST_HARNESS_MAIN
