// SPDX-License-Identifier: GPL-2.0
/*
 * AF_HICN misuse, each with the errno of the spec (/work/hicn-spec.md,
 * Documentation/hicn-api.rst):
 *
 * producer sendto(): a name outside the bound namespace or an unbound
 * socket (EADDRNOTAVAIL), no name (EDESTADDRREQ), sin_suffix != 0 and
 * every bad sockaddr (EINVAL), unsupported flags (EOPNOTSUPP), an object
 * above HICN_OBJECT_MAX or above a small SO_SNDBUF (EMSGSIZE), a full send
 * buffer with MSG_DONTWAIT / O_NONBLOCK / SO_SNDTIMEO (EAGAIN) and its
 * blocking wait that ends when a version expires, net.hicn.prod_mem_max
 * (ENOBUFS), after shutdown(SHUT_WR) (EPIPE, SIGPIPE unless MSG_NOSIGNAL);
 * double bind (EINVAL), overlapping claims (EADDRINUSE); recv and connect
 * on a producer, send on a consumer, listen/accept (EOPNOTSUPP);
 * consumer: bad sockaddr length/family/prefix 129 (EINVAL), recv with no
 * name (ENOTCONN), connect outside the bound namespace (EADDRNOTAVAIL),
 * MSG_OOB / MSG_PEEK / MSG_ERRQUEUE (EOPNOTSUPP); bind() keeps the full
 * name (getsockname), connect(AF_UNSPEC) disconnects (then ENOTCONN);
 * every SOL_HICN option: default, round trip, short optlen (EINVAL), value
 * out of range (EINVAL), option of the other socket type and unknown
 * options (ENOPROTOOPT); HICN_INFO read-only (ENOPROTOOPT) and its
 * versioned copy (len < 8 EINVAL, short copy, long length cut).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <netinet/in.h>

#include "hicn_test.h"
#include "kselftest_harness.h"

static char small[4096];

static ssize_t sendto_name(int fd, const void *buf, size_t len, int flags,
			   const struct sockaddr_hicn *n, socklen_t nlen)
{
	return sendto(fd, buf, len, flags, (const struct sockaddr *)n, nlen);
}

FIXTURE(e)
{
	int prod;	/* bound to HT_NS/HT_NS_LEN */
	int cons;	/* unbound */
};

FIXTURE_SETUP(e)
{
	ASSERT_EQ(0, ht_enter_netns());
	self->prod = ht_producer(PROD_REL);
	ASSERT_LE(0, self->prod);
	self->cons = socket(hcn_family(), SOCK_CONS, CONS_REL);
	ASSERT_LE(0, self->cons);
}

FIXTURE_TEARDOWN(e)
{
	close(self->prod);
	close(self->cons);
}

/* The test's own success case, so that the refusals below mean something. */
TEST_F(e, sendto_in_namespace_works)
{
	EXPECT_EQ(10, ht_publish(self->prod, HT_NAME, small, 10, 0))
		TH_LOG("sendto: %s", strerror(errno));
	EXPECT_EQ(10, ht_publish(self->prod, HT_NAME, small, 10,
				 MSG_DONTWAIT | MSG_NOSIGNAL | MSG_EOR));
}

TEST_F(e, sendto_outside_namespace)
{
	EXPECT_EQ(-1, ht_publish(self->prod, HT_OUTSIDE, small, 10, 0));
	EXPECT_EQ(EADDRNOTAVAIL, errno);
	EXPECT_EQ(-1, ht_publish(self->prod, "::1", small, 10, 0));
	EXPECT_EQ(EADDRNOTAVAIL, errno);
}

TEST(sendto_unbound)
{
	int p;

	ASSERT_EQ(0, ht_enter_netns());
	p = socket(hcn_family(), SOCK_PROD, 0);
	ASSERT_LE(0, p);
	EXPECT_EQ(-1, ht_publish(p, HT_NAME, small, 10, 0));
	EXPECT_EQ(EADDRNOTAVAIL, errno);
	close(p);
}

TEST_F(e, sendto_without_name)
{
	struct sockaddr_hicn n = ht_name(HT_NAME, 128, 0);

	EXPECT_EQ(-1, sendto(self->prod, small, 10, 0, NULL, 0));
	EXPECT_EQ(EDESTADDRREQ, errno);
	EXPECT_EQ(-1, sendto_name(self->prod, small, 10, 0, &n, 0));
	EXPECT_EQ(EDESTADDRREQ, errno);
	EXPECT_EQ(-1, send(self->prod, small, 10, 0));
	EXPECT_EQ(EDESTADDRREQ, errno);
	EXPECT_EQ(-1, write(self->prod, small, 10));
	EXPECT_EQ(EDESTADDRREQ, errno);
}

TEST_F(e, sendto_bad_names)
{
	struct sockaddr_hicn n = ht_name(HT_NAME, 128, 0);
	struct sockaddr_hicn ok = n;
	struct hicn_info hi;

	n.sin_suffix = 1;
	EXPECT_EQ(-1, sendto_name(self->prod, small, 10, 0, &n, sizeof(n)));
	EXPECT_EQ(EINVAL, errno);
	n = ok;
	EXPECT_EQ(-1, sendto_name(self->prod, small, 10, 0, &n, sizeof(n) - 1));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, sendto_name(self->prod, small, 10, 0, &n, 2));
	EXPECT_EQ(EINVAL, errno);
	n.sin_family = AF_INET6;
	EXPECT_EQ(-1, sendto_name(self->prod, small, 10, 0, &n, sizeof(n)));
	EXPECT_EQ(EINVAL, errno);
	n = ok;
	n.sin_prefix = 129;
	EXPECT_EQ(-1, sendto_name(self->prod, small, 10, 0, &n, sizeof(n)));
	EXPECT_EQ(EINVAL, errno);
	n = ok;
	n.sin_flags = 1;
	EXPECT_EQ(-1, sendto_name(self->prod, small, 10, 0, &n, sizeof(n)));
	EXPECT_EQ(EINVAL, errno);
	n = ok;
	n.sin_zero[3] = 1;
	EXPECT_EQ(-1, sendto_name(self->prod, small, 10, 0, &n, sizeof(n)));
	EXPECT_EQ(EINVAL, errno);

	/* sin_prefix is ignored in a content name (up to 128). */
	n = ok;
	n.sin_prefix = 0;
	EXPECT_EQ(10, sendto_name(self->prod, small, 10, 0, &n, sizeof(n)));
	/* None of the refusals published anything. */
	ASSERT_EQ(0, ht_info(self->prod, &hi));
	EXPECT_EQ(1, hi.hi_objects);
	EXPECT_EQ(1, hi.hi_last_version);
}

/*
 * sendmmsg() publishes each message: the kernel marks all but the last
 * MSG_BATCH, a flag of its own (before, each of those was EOPNOTSUPP).
 */
TEST_F(e, sendmmsg_publishes_each)
{
	static const char *const names[] = { HT_NAME, HT_NAME2,
					     "b001:a:b:c::3" };
	struct sockaddr_hicn n[3];
	struct mmsghdr mm[3];
	struct iovec iov[3];
	char buf[64];
	int i, c;

	memset(mm, 0, sizeof(mm));
	for (i = 0; i < 3; i++) {
		n[i] = ht_name(names[i], 128, 0);
		iov[i] = (struct iovec){ small, 10 + i };
		mm[i].msg_hdr.msg_name = &n[i];
		mm[i].msg_hdr.msg_namelen = sizeof(n[i]);
		mm[i].msg_hdr.msg_iov = &iov[i];
		mm[i].msg_hdr.msg_iovlen = 1;
	}
	ASSERT_EQ(3, sendmmsg(self->prod, mm, 3, 0))
		TH_LOG("sendmmsg: %s", strerror(errno));
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(10 + i, (int)mm[i].msg_len);
		c = ht_consumer(CONS_REL, names[i], 0);
		ASSERT_LE(0, c);
		EXPECT_EQ(10 + i, recv(c, buf, sizeof(buf), 0))
			TH_LOG("%s: %s", names[i], strerror(errno));
		close(c);
	}
}

TEST_F(e, sendto_bad_flags)
{
	EXPECT_EQ(-1, ht_publish(self->prod, HT_NAME, small, 10, MSG_OOB));
	EXPECT_EQ(EOPNOTSUPP, errno);
	EXPECT_EQ(-1, ht_publish(self->prod, HT_NAME, small, 10, MSG_MORE));
	EXPECT_EQ(EOPNOTSUPP, errno);
	EXPECT_EQ(-1, ht_publish(self->prod, HT_NAME, small, 10, MSG_CONFIRM));
	EXPECT_EQ(EOPNOTSUPP, errno);
}

TEST_F(e, double_bind_and_overlap)
{
	struct sockaddr_hicn ns = ht_name(HT_NS, HT_NS_LEN, 0);
	struct sockaddr_hicn inner = ht_name("b001:a:b:c:d::", 80, 0);
	int p = socket(hcn_family(), SOCK_PROD, PROD_UNREL);

	EXPECT_EQ(-1, bind(self->prod, (struct sockaddr *)&ns, sizeof(ns)));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_LE(0, p);
	EXPECT_EQ(-1, bind(p, (struct sockaddr *)&ns, sizeof(ns)));
	EXPECT_EQ(EADDRINUSE, errno);
	EXPECT_EQ(-1, bind(p, (struct sockaddr *)&inner, sizeof(inner)));
	EXPECT_EQ(EADDRINUSE, errno);
	close(p);
}

TEST_F(e, producer_refuses_consumer_calls)
{
	struct sockaddr_hicn n = ht_name(HT_NAME, 128, 0), from;
	socklen_t fromlen = sizeof(from);
	struct iovec iov = { .iov_base = small, .iov_len = 10 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };

	ASSERT_EQ(10, ht_publish(self->prod, HT_NAME, small, 10, 0));
	EXPECT_EQ(-1, recv(self->prod, small, 10, MSG_DONTWAIT));
	EXPECT_EQ(EOPNOTSUPP, errno);
	EXPECT_EQ(-1, recvfrom(self->prod, small, 10, MSG_DONTWAIT,
			       (struct sockaddr *)&from, &fromlen));
	EXPECT_EQ(EOPNOTSUPP, errno);
	EXPECT_EQ(-1, recvmsg(self->prod, &m, MSG_DONTWAIT));
	EXPECT_EQ(EOPNOTSUPP, errno);
	EXPECT_EQ(-1, read(self->prod, small, 10));
	EXPECT_EQ(EOPNOTSUPP, errno);
	EXPECT_EQ(-1, connect(self->prod, (struct sockaddr *)&n, sizeof(n)));
	EXPECT_EQ(EOPNOTSUPP, errno);
	EXPECT_EQ(-1, listen(self->prod, 1));
	EXPECT_EQ(EOPNOTSUPP, errno);
	EXPECT_EQ(-1, accept(self->prod, NULL, NULL));
	EXPECT_EQ(EOPNOTSUPP, errno);
}

TEST_F(e, consumer_refuses_producer_calls)
{
	struct sockaddr_hicn n = ht_name(HT_NAME, 128, 0);
	struct iovec iov = { .iov_base = small, .iov_len = 10 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };

	EXPECT_EQ(-1, sendto_name(self->cons, small, 10, 0, &n, sizeof(n)));
	EXPECT_EQ(EOPNOTSUPP, errno);
	ASSERT_EQ(0, ht_connect(self->cons, HT_NAME, 0));
	EXPECT_EQ(-1, send(self->cons, small, 10, 0));
	EXPECT_EQ(EOPNOTSUPP, errno);
	EXPECT_EQ(-1, sendmsg(self->cons, &m, 0));
	EXPECT_EQ(EOPNOTSUPP, errno);
	EXPECT_EQ(-1, write(self->cons, small, 10));
	EXPECT_EQ(EOPNOTSUPP, errno);
	EXPECT_EQ(-1, listen(self->cons, 1));
	EXPECT_EQ(EOPNOTSUPP, errno);
	EXPECT_EQ(-1, accept(self->cons, NULL, NULL));
	EXPECT_EQ(EOPNOTSUPP, errno);
}

TEST_F(e, consumer_bad_sockaddr)
{
	struct sockaddr_hicn n = ht_name(HT_NAME, 128, 0), ok = n;

	EXPECT_EQ(-1, connect(self->cons, (struct sockaddr *)&n, sizeof(n) - 1));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, connect(self->cons, (struct sockaddr *)&n, 2));
	EXPECT_EQ(EINVAL, errno);
	n.sin_family = AF_INET6;
	EXPECT_EQ(-1, connect(self->cons, (struct sockaddr *)&n, sizeof(n)));
	EXPECT_EQ(EINVAL, errno);
	n = ok;
	n.sin_prefix = 129;
	EXPECT_EQ(-1, connect(self->cons, (struct sockaddr *)&n, sizeof(n)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, bind(self->cons, (struct sockaddr *)&n, sizeof(n)));
	EXPECT_EQ(EINVAL, errno);
	n = ok;
	n.sin_flags = 1;
	EXPECT_EQ(-1, connect(self->cons, (struct sockaddr *)&n, sizeof(n)));
	EXPECT_EQ(EINVAL, errno);
	n = ok;
	n.sin_zero[0] = 1;
	EXPECT_EQ(-1, connect(self->cons, (struct sockaddr *)&n, sizeof(n)));
	EXPECT_EQ(EINVAL, errno);
	n = ok;
	EXPECT_EQ(-1, bind(self->cons, (struct sockaddr *)&n, sizeof(n) - 1));
	EXPECT_EQ(EINVAL, errno);
	/* None of them named anything. */
	EXPECT_EQ(-1, recv(self->cons, small, 10, MSG_DONTWAIT));
	EXPECT_EQ(ENOTCONN, errno);
}

TEST_F(e, recv_without_name)
{
	struct sockaddr_hicn from;
	socklen_t fromlen = sizeof(from);

	EXPECT_EQ(-1, recv(self->cons, small, 10, 0));
	EXPECT_EQ(ENOTCONN, errno);
	EXPECT_EQ(-1, recvfrom(self->cons, small, 10, 0,
			       (struct sockaddr *)&from, &fromlen));
	EXPECT_EQ(ENOTCONN, errno);
	EXPECT_EQ(-1, read(self->cons, small, 10));
	EXPECT_EQ(ENOTCONN, errno);
}

TEST_F(e, connect_outside_bound_namespace)
{
	struct sockaddr_hicn b = ht_name(HT_NAME, HT_NS_LEN, 0);

	ASSERT_EQ(0, bind(self->cons, (struct sockaddr *)&b, sizeof(b)));
	EXPECT_EQ(-1, ht_connect(self->cons, HT_OUTSIDE, 0));
	EXPECT_EQ(EADDRNOTAVAIL, errno);
	EXPECT_EQ(0, ht_connect(self->cons, HT_NAME2, 0));
}

/* A consumer's bind() keeps the name as given: no host bit is cleared. */
TEST_F(e, consumer_bind_keeps_full_name)
{
	struct sockaddr_hicn b = ht_name(HT_NAME, HT_NS_LEN, 7), got;
	socklen_t len = sizeof(got);

	ASSERT_EQ(0, bind(self->cons, (struct sockaddr *)&b, sizeof(b)));
	ASSERT_EQ(0, getsockname(self->cons, (struct sockaddr *)&got, &len));
	EXPECT_EQ(sizeof(got), len);
	EXPECT_EQ(0, memcmp(&b, &got, sizeof(b)));
}

/* connect() with AF_UNSPEC disconnects: an unbound consumer has no name. */
TEST_F(e, connect_af_unspec_disconnects)
{
	struct sockaddr_hicn u = { .sin_family = AF_UNSPEC };

	ASSERT_EQ(0, ht_connect(self->cons, HT_NAME, 0));
	ASSERT_EQ(0, connect(self->cons, (struct sockaddr *)&u, sizeof(u)));
	EXPECT_EQ(-1, recv(self->cons, small, 10, MSG_DONTWAIT));
	EXPECT_EQ(ENOTCONN, errno);
}

TEST_F(e, recv_flags)
{
	int c = ht_consumer(CONS_REL, HT_NAME, 0);

	ASSERT_LE(0, c);
	ASSERT_EQ(10, ht_publish(self->prod, HT_NAME, small, 10, 0));
	EXPECT_EQ(-1, recv(c, small, 10, MSG_OOB));
	EXPECT_EQ(EOPNOTSUPP, errno);
	EXPECT_EQ(-1, recv(c, small, 10, MSG_PEEK));
	EXPECT_EQ(EOPNOTSUPP, errno);
	EXPECT_EQ(-1, recv(c, small, 10, MSG_ERRQUEUE));
	EXPECT_EQ(EOPNOTSUPP, errno);
	/* The valid call still works afterwards. */
	EXPECT_EQ(10, recv(c, small, sizeof(small), 0));
	close(c);
}

TEST_F(e, emsgsize_above_object_max)
{
	size_t len = (size_t)HICN_OBJECT_MAX + 1;
	void *big = mmap(NULL, len, PROT_READ,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	ASSERT_NE(MAP_FAILED, big);
	EXPECT_EQ(-1, ht_publish(self->prod, HT_NAME, big, len, 0));
	EXPECT_EQ(EMSGSIZE, errno);
	munmap(big, len);
}

/* SO_SNDBUF 64 KiB (the kernel doubles it): 200 KiB never fits. */
TEST_F(e, emsgsize_above_sndbuf)
{
	size_t len = 200 << 10;
	char *buf = calloc(1, len);
	int sb = 64 << 10;

	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, setsockopt(self->prod, SOL_SOCKET, SO_SNDBUF, &sb, sizeof(sb)));
	EXPECT_EQ(-1, ht_publish(self->prod, HT_NAME, buf, len, 0));
	EXPECT_EQ(EMSGSIZE, errno);
	EXPECT_EQ(-1, ht_publish(self->prod, HT_NAME, buf, len, MSG_DONTWAIT));
	EXPECT_EQ(EMSGSIZE, errno);
	/* What fits still goes. */
	EXPECT_EQ(20000, ht_publish(self->prod, HT_NAME, buf, 20000, 0));
	free(buf);
}

/*
 * The default send buffer of a producer, a quarter of prod_mem_max (512
 * MiB), holds a 64 MiB object.
 */
TEST_F(e, default_sndbuf)
{
	socklen_t l = sizeof(int);
	int sb = 0;

	ASSERT_EQ(0, getsockopt(self->prod, SOL_SOCKET, SO_SNDBUF, &sb, &l));
	EXPECT_EQ(128 << 20, sb);
}

FIXTURE(full)
{
	int prod;
	char *buf;
};

#define FULL_LEN	(80 << 10)

/* A producer whose send buffer (2 x 64 KiB) holds one 80 KiB object. */
FIXTURE_SETUP(full)
{
	int sb = 64 << 10;

	ASSERT_EQ(0, ht_enter_netns());
	self->prod = ht_producer(PROD_REL);
	ASSERT_LE(0, self->prod);
	self->buf = calloc(1, FULL_LEN);
	ASSERT_NE(NULL, self->buf);
	ASSERT_EQ(0, setsockopt(self->prod, SOL_SOCKET, SO_SNDBUF, &sb, sizeof(sb)));
	ASSERT_EQ(0, ht_setint(self->prod, HICN_CONTENT_EXPIRY, 400));
	ASSERT_EQ(FULL_LEN, ht_publish(self->prod, HT_NAME, self->buf, FULL_LEN, 0))
		TH_LOG("sendto: %s", strerror(errno));
}

FIXTURE_TEARDOWN(full)
{
	close(self->prod);
	free(self->buf);
}

TEST_F(full, eagain_dontwait)
{
	EXPECT_EQ(-1, ht_publish(self->prod, HT_NAME2, self->buf, FULL_LEN,
				 MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);
}

TEST_F(full, eagain_nonblock)
{
	ASSERT_EQ(0, fcntl(self->prod, F_SETFL, O_NONBLOCK));
	EXPECT_EQ(-1, ht_publish(self->prod, HT_NAME2, self->buf, FULL_LEN, 0));
	EXPECT_EQ(EAGAIN, errno);
}

TEST_F(full, eagain_sndtimeo)
{
	struct timeval tv = { .tv_usec = 100000 };
	double t0;

	ASSERT_EQ(0, setsockopt(self->prod, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)));
	t0 = ht_ms();
	EXPECT_EQ(-1, ht_publish(self->prod, HT_NAME2, self->buf, FULL_LEN, 0));
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_LE(90, ht_ms() - t0);
}

/* A blocking publication waits until the first version expires. */
TEST_F(full, blocks_until_expiry)
{
	double t0 = ht_ms();

	EXPECT_EQ(FULL_LEN, ht_publish(self->prod, HT_NAME2, self->buf, FULL_LEN, 0))
		TH_LOG("sendto: %s", strerror(errno));
	EXPECT_LE(250, ht_ms() - t0);
}

/*
 * A producer blocked for send-buffer room (the "full" producer with a
 * 3 s expiry): a signal whose handler has no SA_RESTART ends the wait
 * with EINTR; with SA_RESTART the call goes back to sleep and publishes
 * once the first version expires; a non-blocking producer has no POLLOUT
 * while the buffer is full, and POLLOUT again when it expires.  The
 * signal comes once the publisher sleeps in sendto() (state S), not
 * after a guessed delay.
 */
#define HELD_EXPIRY_MS	3000
#define HELD_WAIT_MS	20000

FIXTURE(held)
{
	int prod;
	char *buf;
};

FIXTURE_SETUP(held)
{
	int sb = 64 << 10;

	ASSERT_EQ(0, ht_enter_netns());
	self->prod = ht_producer(PROD_REL);
	ASSERT_LE(0, self->prod);
	self->buf = calloc(1, FULL_LEN);
	ASSERT_NE(NULL, self->buf);
	ASSERT_EQ(0, setsockopt(self->prod, SOL_SOCKET, SO_SNDBUF, &sb, sizeof(sb)));
	ASSERT_EQ(0, ht_setint(self->prod, HICN_CONTENT_EXPIRY, HELD_EXPIRY_MS));
	ASSERT_EQ(FULL_LEN, ht_publish(self->prod, HT_NAME, self->buf, FULL_LEN, 0))
		TH_LOG("sendto: %s", strerror(errno));
}

FIXTURE_TEARDOWN(held)
{
	close(self->prod);
	free(self->buf);
}

static int held_signals;

static void on_held_signal(int sig)
{
	(void)sig;
	__atomic_add_fetch(&held_signals, 1, __ATOMIC_RELAXED);
}

/* Signal thread @tid once it sleeps; again whether it sleeps after. */
struct kicker {
	pthread_t target;
	pid_t tid;
	int restart;
	int slept;
	int slept_again;
};

static void *kick_sleeper(void *arg)
{
	struct kicker *k = arg;

	k->slept = ht_wait_sleeping(k->tid, HELD_WAIT_MS);
	if (!k->slept)
		return NULL;
	pthread_kill(k->target, SIGUSR1);
	if (!k->restart)
		return NULL;
	while (!__atomic_load_n(&held_signals, __ATOMIC_RELAXED))
		sched_yield();
	/* Restarted (SA_RESTART): asleep in sendto() again. */
	k->slept_again = ht_wait_sleeping(k->tid, HELD_WAIT_MS);
	return NULL;
}

static void held_publish(struct __test_metadata *_metadata, int prod,
			 char *buf, int flags, ssize_t *ret, int *err,
			 struct kicker *k)
{
	struct sigaction sa = { .sa_handler = on_held_signal, .sa_flags = flags };
	pthread_t th;

	held_signals = 0;
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	k->target = pthread_self();
	k->tid = syscall(SYS_gettid);
	ASSERT_EQ(0, pthread_create(&th, NULL, kick_sleeper, k));
	*ret = ht_publish(prod, HT_NAME2, buf, FULL_LEN, 0);
	*err = errno;
	pthread_join(th, NULL);
}

TEST_F_TIMEOUT(held, blocked_sendto_eintr, 120)
{
	struct kicker k = { 0 };
	struct hicn_info hi;
	ssize_t ret;
	int err;

	held_publish(_metadata, self->prod, self->buf, 0, &ret, &err, &k);
	EXPECT_EQ(1, k.slept);
	EXPECT_EQ(1, held_signals);
	EXPECT_EQ(-1, ret);
	EXPECT_EQ(EINTR, err) TH_LOG("sendto: %s", strerror(err));
	/* Nothing published by the interrupted call. */
	ASSERT_EQ(0, ht_info(self->prod, &hi));
	EXPECT_EQ(1, hi.hi_objects);
}

TEST_F_TIMEOUT(held, blocked_sendto_sa_restart, 120)
{
	struct kicker k = { .restart = 1 };
	struct hicn_info hi;
	ssize_t ret;
	int err;

	held_publish(_metadata, self->prod, self->buf, SA_RESTART, &ret, &err,
		     &k);
	EXPECT_EQ(1, k.slept);
	EXPECT_EQ(1, held_signals);
	EXPECT_EQ(1, k.slept_again);
	EXPECT_EQ(FULL_LEN, ret) TH_LOG("sendto: %s", strerror(err));
	ASSERT_EQ(0, ht_info(self->prod, &hi));
	EXPECT_EQ(2, hi.hi_objects);
	EXPECT_EQ(1, hi.hi_versions);	/* the first one expired */
}

TEST_F_TIMEOUT(held, pollout_clears_and_returns, 120)
{
	struct pollfd pfd = { .fd = self->prod, .events = POLLOUT };

	ASSERT_EQ(0, fcntl(self->prod, F_SETFL, O_NONBLOCK));
	EXPECT_EQ(-1, ht_publish(self->prod, HT_NAME2, self->buf, FULL_LEN, 0));
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_EQ(0, poll(&pfd, 1, 0)) TH_LOG("revents %#x", pfd.revents);
	/* The first version expires: POLLOUT, and room. */
	ASSERT_EQ(1, poll(&pfd, 1, HELD_WAIT_MS));
	EXPECT_EQ(POLLOUT, pfd.revents & POLLOUT);
	EXPECT_EQ(FULL_LEN, ht_publish(self->prod, HT_NAME2, self->buf, FULL_LEN, 0))
		TH_LOG("sendto: %s", strerror(errno));
	/* Full again: no POLLOUT. */
	EXPECT_EQ(0, poll(&pfd, 1, 0)) TH_LOG("revents %#x", pfd.revents);
}

TEST_F(e, enobufs_prod_mem_max)
{
	size_t len = 2 << 20;
	char *buf = calloc(1, len);

	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, sysctl_set(HT_SYSCTL("prod_mem_max"), "1048576"));
	EXPECT_EQ(-1, ht_publish(self->prod, HT_NAME, buf, len, 0));
	EXPECT_EQ(ENOBUFS, errno);
	EXPECT_EQ(1000, ht_publish(self->prod, HT_NAME, buf, 1000, 0));
	free(buf);
}

static sig_atomic_t sigpipes;

static void on_sigpipe(int sig)
{
	(void)sig;
	sigpipes++;
}

TEST_F(e, epipe_after_shutdown_wr)
{
	struct sigaction sa = { .sa_handler = on_sigpipe };

	ASSERT_EQ(0, sigaction(SIGPIPE, &sa, NULL));
	ASSERT_EQ(0, shutdown(self->prod, SHUT_WR));
	EXPECT_EQ(-1, ht_publish(self->prod, HT_NAME, small, 10, MSG_NOSIGNAL));
	EXPECT_EQ(EPIPE, errno);
	EXPECT_EQ(0, sigpipes);
	EXPECT_EQ(-1, ht_publish(self->prod, HT_NAME, small, 10, 0));
	EXPECT_EQ(EPIPE, errno);
	EXPECT_EQ(1, sigpipes);
}

struct opt {
	const char *name;
	int opt;
	int def;
	int good;
	int bad[4];
	int nbad;
};

static const struct opt prod_opts[] = {
	{ "HICN_PACKET_SIZE", HICN_PACKET_SIZE, 1500, 9000,
	  { 0, HICN_PACKET_SIZE_MIN - 1, HICN_PACKET_SIZE_MAX + 1, -1 }, 4 },
	{ "HICN_CONTENT_EXPIRY", HICN_CONTENT_EXPIRY, 60000, 200, { 0 }, 0 },
};

static const struct opt cons_opts[] = {
	{ "HICN_INTEREST_LIFETIME", HICN_INTEREST_LIFETIME, 1000, 250,
	  { 0, HICN_LIFETIME_MAX + 1, -1 }, 3 },
	{ "HICN_RETX_LIMIT", HICN_RETX_LIMIT, 3, 0,
	  { HICN_RETX_LIMIT_MAX + 1, -1 }, 2 },
	{ "HICN_WINDOW", HICN_WINDOW, HICN_WINDOW_DEFAULT, 4096,
	  { 0, HICN_WINDOW_MAX + 1, -1 }, 3 },
	{ "HICN_SUBSCRIBE", HICN_SUBSCRIBE, 0, 1, { 2, -1 }, 2 },
};

static void check_opts(struct __test_metadata *_metadata, int fd, int other,
		       const struct opt *o, unsigned int n)
{
	unsigned int i;
	int j, v;
	socklen_t len;
	char c = 1;

	for (i = 0; i < n; i++, o++) {
		EXPECT_EQ(o->def, ht_getint(fd, o->opt)) TH_LOG("%s", o->name);
		EXPECT_EQ(0, ht_setint(fd, o->opt, o->good)) TH_LOG("%s", o->name);
		EXPECT_EQ(o->good, ht_getint(fd, o->opt)) TH_LOG("%s", o->name);
		for (j = 0; j < o->nbad; j++) {
			EXPECT_EQ(-1, ht_setint(fd, o->opt, o->bad[j]))
				TH_LOG("%s = %d", o->name, o->bad[j]);
			EXPECT_EQ(EINVAL, errno) TH_LOG("%s = %d", o->name, o->bad[j]);
		}
		EXPECT_EQ(o->good, ht_getint(fd, o->opt)) TH_LOG("%s", o->name);
		EXPECT_EQ(-1, setsockopt(fd, SOL_HICN, o->opt, &c, 1))
			TH_LOG("%s", o->name);
		EXPECT_EQ(EINVAL, errno) TH_LOG("%s short optlen", o->name);
		EXPECT_EQ(-1, setsockopt(fd, SOL_HICN, o->opt, NULL, 0));
		EXPECT_EQ(EINVAL, errno) TH_LOG("%s optlen 0", o->name);
		len = 1;
		EXPECT_EQ(-1, getsockopt(fd, SOL_HICN, o->opt, &v, &len))
			TH_LOG("%s", o->name);
		EXPECT_EQ(EINVAL, errno) TH_LOG("%s get short optlen", o->name);

		/* Not an option of the other type. */
		EXPECT_EQ(-1, ht_setint(other, o->opt, o->good)) TH_LOG("%s", o->name);
		EXPECT_EQ(ENOPROTOOPT, errno) TH_LOG("%s other type", o->name);
		len = sizeof(v);
		EXPECT_EQ(-1, getsockopt(other, SOL_HICN, o->opt, &v, &len));
		EXPECT_EQ(ENOPROTOOPT, errno) TH_LOG("%s other type", o->name);
	}
}

TEST_F(e, sockopts)
{
	int v;
	socklen_t len = sizeof(v);

	check_opts(_metadata, self->prod, self->cons, prod_opts,
		   ARRAY_SIZE(prod_opts));
	check_opts(_metadata, self->cons, self->prod, cons_opts,
		   ARRAY_SIZE(cons_opts));

	/* The boundaries themselves are valid. */
	EXPECT_EQ(0, ht_setint(self->prod, HICN_PACKET_SIZE, HICN_PACKET_SIZE_MIN));
	EXPECT_EQ(0, ht_setint(self->prod, HICN_PACKET_SIZE, HICN_PACKET_SIZE_MAX));
	EXPECT_EQ(0, ht_setint(self->prod, HICN_CONTENT_EXPIRY, 0));
	EXPECT_EQ(0, ht_setint(self->cons, HICN_INTEREST_LIFETIME, 1));
	EXPECT_EQ(0, ht_setint(self->cons, HICN_INTEREST_LIFETIME, HICN_LIFETIME_MAX));
	EXPECT_EQ(0, ht_setint(self->cons, HICN_RETX_LIMIT, HICN_RETX_LIMIT_MAX));
	EXPECT_EQ(0, ht_setint(self->cons, HICN_WINDOW, 1));
	EXPECT_EQ(0, ht_setint(self->cons, HICN_SUBSCRIBE, 0));

	/* Unknown options, on both types. */
	EXPECT_EQ(-1, ht_setint(self->prod, 99, 1));
	EXPECT_EQ(ENOPROTOOPT, errno);
	EXPECT_EQ(-1, ht_setint(self->cons, 0, 1));
	EXPECT_EQ(ENOPROTOOPT, errno);
	EXPECT_EQ(-1, getsockopt(self->cons, SOL_HICN, 99, &v, &len));
	EXPECT_EQ(ENOPROTOOPT, errno);

	/* HICN_INFO is read-only. */
	EXPECT_EQ(-1, ht_setint(self->prod, HICN_INFO, 1));
	EXPECT_EQ(ENOPROTOOPT, errno);
	EXPECT_EQ(-1, ht_setint(self->cons, HICN_INFO, 1));
	EXPECT_EQ(ENOPROTOOPT, errno);
}

TEST_F(e, info_versioned_copy)
{
	unsigned char raw[sizeof(struct hicn_info) + 64];
	struct hicn_info *hi = (struct hicn_info *)raw;
	socklen_t len;
	unsigned int i;

	/* Too short for hi_version + hi_size. */
	len = 7;
	EXPECT_EQ(-1, getsockopt(self->cons, SOL_HICN, HICN_INFO, raw, &len));
	EXPECT_EQ(EINVAL, errno);
	len = 0;
	EXPECT_EQ(-1, getsockopt(self->cons, SOL_HICN, HICN_INFO, raw, &len));
	EXPECT_EQ(EINVAL, errno);

	/* Just the header: the first 8 bytes, nothing more. */
	memset(raw, 0xee, sizeof(raw));
	len = 8;
	ASSERT_EQ(0, getsockopt(self->cons, SOL_HICN, HICN_INFO, raw, &len));
	EXPECT_EQ(8, len);
	EXPECT_EQ(HICN_INFO_VERSION, hi->hi_version);
	EXPECT_EQ(sizeof(*hi), hi->hi_size);
	EXPECT_EQ(0xee, raw[8]);

	/* A prefix of the structure, as an older program would ask. */
	memset(raw, 0xee, sizeof(raw));
	len = offsetof(struct hicn_info, hi_interests_sent);
	ASSERT_EQ(0, getsockopt(self->prod, SOL_HICN, HICN_INFO, raw, &len));
	EXPECT_EQ(offsetof(struct hicn_info, hi_interests_sent), len);
	EXPECT_EQ(SOCK_PROD, hi->hi_type);
	EXPECT_EQ(PROD_REL, hi->hi_protocol);
	EXPECT_EQ(0xee, raw[len]);

	/* Longer than the kernel's structure: cut to it. */
	memset(raw, 0xee, sizeof(raw));
	len = sizeof(raw);
	ASSERT_EQ(0, getsockopt(self->cons, SOL_HICN, HICN_INFO, raw, &len));
	EXPECT_EQ(sizeof(*hi), len);
	EXPECT_EQ(SOCK_CONS, hi->hi_type);
	EXPECT_EQ(CONS_REL, hi->hi_protocol);
	EXPECT_EQ(0, hi->hi_objects);
	for (i = sizeof(*hi); i < sizeof(raw); i++) {
		unsigned char b = raw[i];

		EXPECT_EQ(0xee, b) TH_LOG("byte %u", i);
	}
}

TEST_F(e, so_error_starts_clear)
{
	socklen_t len = sizeof(int);
	int err = -1;

	ASSERT_EQ(0, getsockopt(self->cons, SOL_SOCKET, SO_ERROR, &err, &len));
	EXPECT_EQ(0, err);
}

TEST_HARNESS_MAIN
