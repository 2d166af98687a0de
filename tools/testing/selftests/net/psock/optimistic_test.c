// SPDX-License-Identifier: GPL-2.0
/*
 * Optimistic connect (PSOCK_OPTIMISTIC, or TCP_FASTOPEN_CONNECT at
 * IPPROTO_TCP; Documentation/psock.rst, "Optimistic connect"): connect()
 * returns once TCP is up, and what the client sends before the server's
 * hello goes out as plain TCP at once.
 *
 * - against a plain TCP server that waits for its client (HTTP, TLS), the
 *   request reaches it with nothing in front of it and the answer comes
 *   back long before the hello timeout (set to 3 s here): no timeout, no
 *   round trip is paid;
 * - more than PSOCK_OPTIMISTIC_MAX bytes to such a server: the rest waits
 *   for the hello timeout, then goes; every byte arrives;
 * - the probe rides in front of the first bytes, in their segment (a
 *   plain server counts one data segment), and PSOCK_INFO says
 *   "undecided" until the server's first bytes;
 * - against a PSOCK server the connection still turns striped, with or
 *   without bytes sent before the hello, and 1 MiB each way arrives
 *   intact; PSOCK_INFO on both ends agrees (4 subflows);
 * - a PSOCK server that speaks first, to a client that reads (or polls)
 *   before it writes: striped too;
 * - a FIN before the hello: both ends agree on plain TCP;
 * - a connect() that timed out before TCP was up: the connection comes
 *   up on its own later;
 * - net.psock.optimistic sets the default of new sockets;
 * - while it turns striped (its data subflows joining), the connection
 *   stays connected: getpeername() answers, shutdown() waits for it;
 * - close() at any point of the start leaves nothing behind;
 * - the server side, from a raw client: plain bytes, the mark and a client
 *   hello make a striped connection whose stream starts with those bytes;
 *   more plain bytes than a client may send without a mark make a plain
 *   one; anything but a client hello after the mark is refused.
 */
#include <fcntl.h>
#include <poll.h>
#include <time.h>
#include <linux/tcp.h>

#include "psock_lib.h"
#include "kselftest_harness.h"

#define HELLO_SYSCTL	"/proc/sys/net/psock/hello_timeout_ms"
#define OPT_SYSCTL	"/proc/sys/net/psock/optimistic"
#define PROBE_OPT	0xa6
#define XFER		(1024 * 1024)

static int sysctl_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	ssize_t r;

	if (fd < 0)
		return -1;
	r = write(fd, val, strlen(val));
	close(fd);
	return r == (ssize_t)strlen(val) ? 0 : -1;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Read exactly @len bytes, each poll() within 10 s: 0, or -1. */
static int read_full(int fd, void *buf, size_t len)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	size_t got = 0;

	while (got < len) {
		ssize_t r;

		if (poll(&p, 1, 10000) != 1)
			return -1;
		r = recv(fd, (char *)buf + got, len - got, MSG_DONTWAIT);
		if (r < 0 && errno == EAGAIN)
			continue;
		if (r <= 0)
			return -1;
		got += r;
	}
	return 0;
}

/* An optimistic PSOCK client socket; @tfo: set through IPPROTO_TCP. */
static int opt_socket(int rcmd, bool tfo)
{
	int fd = socket(AF_INET, SOCK_STREAM, IPPROTO_PSOCK), one = 1;

	if (fd < 0 || psock_opts(fd, rcmd, rcmd, -1))
		return -1;
	if (tfo ? setsockopt(fd, IPPROTO_TCP, TCP_FASTOPEN_CONNECT, &one,
			     sizeof(one)) :
		  setsockopt(fd, SOL_PSOCK, PSOCK_OPTIMISTIC, &one, sizeof(one)))
		return -1;
	return fd;
}

/* PSOCK_INFO flags of @fd, or -1. */
static int info_flags(int fd, unsigned int *num, unsigned int *cnt)
{
	struct psock_info_buf b;

	if (psock_info(fd, &b))
		return -1;
	if (num)
		*num = b.h.num;
	if (cnt)
		*cnt = b.h.stream_cnt;
	return b.h.flags;
}

/* A PSOCK listener on loopback asking for 4 subflows; -1 on error. */
static int psock_listen4(int *port)
{
	struct sockaddr_storage ss;
	socklen_t len = lo_addr(AF_INET, 0, &ss);
	int fd = socket(AF_INET, SOCK_STREAM, IPPROTO_PSOCK);

	if (fd < 0 || psock_opts(fd, 4, 4, -1) ||
	    bind(fd, (struct sockaddr *)&ss, len) || listen(fd, 64))
		return -1;
	*port = sock_port(fd);
	return fd;
}

struct xfer {
	pthread_t	thread;
	int		fd;
	uint64_t	seed;
	int		err;
};

static void *send_main(void *arg)
{
	struct xfer *x = arg;

	x->err = send_pattern(x->fd, x->seed ? x->seed : 1, XFER);
	return NULL;
}

FIXTURE(opt)
{
	int	lfd;
	int	port;
};

FIXTURE_VARIANT(opt)
{
	bool	tfo;	/* TCP_FASTOPEN_CONNECT instead of PSOCK_OPTIMISTIC */
};

FIXTURE_VARIANT_ADD(opt, psock_optimistic)
{
	.tfo = false,
};

FIXTURE_VARIANT_ADD(opt, tcp_fastopen_connect)
{
	.tfo = true,
};

FIXTURE_SETUP(opt)
{
	self->lfd = -1;
	ASSERT_EQ(0, netns_lo());
	ASSERT_EQ(0, sysctl_write(HELLO_SYSCTL, "3000"));
}

FIXTURE_TEARDOWN(opt)
{
	if (self->lfd >= 0)
		close(self->lfd);
}

/* A plain server that waits for its client: no hello timeout is paid. */
TEST_F_TIMEOUT(opt, plain_server_waits_for_client, 30)
{
	long fb = psock_counter("Fallbacks"), t0;
	char buf[16] = { 0 };
	int c, a, one = 1, v = 0;
	socklen_t len = sizeof(v);

	self->lfd = lo_listen(AF_INET, IPPROTO_TCP, &self->port);
	ASSERT_LE(0, self->lfd);
	c = opt_socket(1, variant->tfo);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, getsockopt(c, SOL_PSOCK, PSOCK_OPTIMISTIC, &v, &len));
	EXPECT_EQ(1, v);
	t0 = now_ms();
	ASSERT_EQ(0, lo_connect(c, AF_INET, self->port));
	ASSERT_EQ(9, send(c, "GET / 1.0", 9, 0));
	a = accept(self->lfd, NULL, NULL);
	ASSERT_LE(0, a);
	/* The request alone: the probe is urgent, out of the stream. */
	ASSERT_EQ(0, read_full(a, buf, 9));
	EXPECT_EQ(0, memcmp(buf, "GET / 1.0", 9));
	ASSERT_EQ(6, send(a, "200 OK", 6, 0));
	ASSERT_EQ(0, read_full(c, buf, 6));
	EXPECT_EQ(0, memcmp(buf, "200 OK", 6));
	EXPECT_GT(1500, now_ms() - t0) TH_LOG("the hello timeout was paid");
	EXPECT_EQ(PSOCK_INFO_FALLBACK | PSOCK_INFO_ESTABLISHED,
		  info_flags(c, NULL, NULL));
	EXPECT_EQ(fb + 1, psock_counter("Fallbacks"));
	/* Set after connect(): refused, as TCP refuses it. */
	EXPECT_EQ(-1, setsockopt(c, SOL_PSOCK, PSOCK_OPTIMISTIC, &one,
				 sizeof(one)));
	EXPECT_EQ(EISCONN, errno);
	ASSERT_EQ(0, shutdown(a, SHUT_WR));
	EXPECT_EQ(0, recv(c, buf, 1, 0));
	close(a);
	close(c);
}

/*
 * The probe and the first bytes in one segment: a separate probe would
 * cost a segment and wake the server for nothing.  Undecided until the
 * server's answer.
 */
TEST_F_TIMEOUT(opt, probe_rides_with_first_bytes, 30)
{
	const unsigned int und = PSOCK_INFO_FALLBACK | PSOCK_INFO_ESTABLISHED |
				 PSOCK_INFO_UNDECIDED;
	struct tcp_info ti;
	socklen_t len = sizeof(ti);
	char buf[16] = { 0 };
	int c, a;

	self->lfd = lo_listen(AF_INET, IPPROTO_TCP, &self->port);
	ASSERT_LE(0, self->lfd);
	c = opt_socket(1, variant->tfo);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, lo_connect(c, AF_INET, self->port));
	EXPECT_EQ(und, info_flags(c, NULL, NULL));
	ASSERT_EQ(9, send(c, "GET / 1.0", 9, 0));
	a = accept(self->lfd, NULL, NULL);
	ASSERT_LE(0, a);
	ASSERT_EQ(0, read_full(a, buf, 9));
	EXPECT_EQ(0, memcmp(buf, "GET / 1.0", 9));
	memset(&ti, 0, sizeof(ti));
	ASSERT_EQ(0, getsockopt(a, IPPROTO_TCP, TCP_INFO, &ti, &len));
	EXPECT_EQ(1, ti.tcpi_data_segs_in) TH_LOG("the probe went alone");
	EXPECT_EQ(und, info_flags(c, NULL, NULL));
	ASSERT_EQ(6, send(a, "200 OK", 6, 0));
	ASSERT_EQ(0, read_full(c, buf, 6));
	EXPECT_EQ(0, memcmp(buf, "200 OK", 6));
	EXPECT_EQ(PSOCK_INFO_FALLBACK | PSOCK_INFO_ESTABLISHED,
		  info_flags(c, NULL, NULL));
	close(a);
	close(c);
}

/*
 * A PSOCK server that speaks first (a banner), to a client that reads,
 * or polls for reading, before it writes: its probe goes then, alone, and
 * the connection turns striped.
 */
static void server_first_case(struct __test_metadata *_metadata, int lfd,
			      int port, bool tfo, bool use_poll)
{
	struct xfer x = { 0 };
	unsigned int num = 0;
	char buf[8] = { 0 };
	int c;

	c = opt_socket(4, tfo);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, lo_connect(c, AF_INET, port));
	x.fd = accept(lfd, NULL, NULL);
	ASSERT_LE(0, x.fd);
	ASSERT_EQ(6, send(x.fd, "banner", 6, 0));
	if (use_poll) {
		struct pollfd pfd = { .fd = c, .events = POLLIN };

		ASSERT_EQ(1, poll(&pfd, 1, 10000));
	}
	ASSERT_EQ(0, read_full(c, buf, 6));
	EXPECT_EQ(0, memcmp(buf, "banner", 6));
	EXPECT_EQ(PSOCK_INFO_ESTABLISHED, info_flags(c, &num, NULL));
	EXPECT_EQ(4, num);
	EXPECT_EQ(PSOCK_INFO_ESTABLISHED, info_flags(x.fd, &num, NULL));
	EXPECT_EQ(4, num);
	x.seed = 3;
	ASSERT_EQ(0, pthread_create(&x.thread, NULL, send_main, &x));
	EXPECT_EQ(0, recv_pattern(c, 3, XFER));
	pthread_join(x.thread, NULL);
	EXPECT_EQ(0, x.err);
	close(x.fd);
	close(c);
}

TEST_F_TIMEOUT(opt, psock_server_speaks_first_read, 60)
{
	self->lfd = psock_listen4(&self->port);
	ASSERT_LE(0, self->lfd);
	server_first_case(_metadata, self->lfd, self->port, variant->tfo,
			  false);
}

TEST_F_TIMEOUT(opt, psock_server_speaks_first_poll, 60)
{
	self->lfd = psock_listen4(&self->port);
	ASSERT_LE(0, self->lfd);
	server_first_case(_metadata, self->lfd, self->port, variant->tfo,
			  true);
}

/*
 * connect() gives up (SO_SNDTIMEO) while its SYN waits for room in a full
 * accept queue: when TCP comes up later, the step connect() would have
 * taken is taken for it, and the connection works.
 */
TEST_F_TIMEOUT(opt, connect_times_out_then_up, 30)
{
	struct timeval tv = { .tv_usec = 300 * 1000 };
	struct pollfd pfd;
	char buf[8] = { 0 };
	int filler, c, a;

	self->lfd = lo_listen(AF_INET, IPPROTO_TCP, &self->port);
	ASSERT_LE(0, self->lfd);
	ASSERT_EQ(0, listen(self->lfd, 0));	/* one queued: full */
	filler = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT_LE(0, filler);
	ASSERT_EQ(0, lo_connect(filler, AF_INET, self->port));
	c = opt_socket(1, variant->tfo);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)));
	ASSERT_EQ(-1, lo_connect(c, AF_INET, self->port));
	ASSERT_EQ(EINPROGRESS, errno);
	/* Room for the SYN's retransmission, a second later. */
	a = accept(self->lfd, NULL, NULL);
	ASSERT_LE(0, a);
	close(a);
	close(filler);
	pfd.fd = c;
	pfd.events = POLLOUT;
	ASSERT_EQ(1, poll(&pfd, 1, 10000)) TH_LOG("never connected");
	EXPECT_EQ(POLLOUT, pfd.revents & (POLLOUT | POLLERR | POLLHUP));
	ASSERT_EQ(3, send(c, "GET", 3, 0));
	a = accept(self->lfd, NULL, NULL);
	ASSERT_LE(0, a);
	ASSERT_EQ(0, read_full(a, buf, 3));
	EXPECT_EQ(0, memcmp(buf, "GET", 3));
	ASSERT_EQ(2, send(a, "OK", 2, 0));
	ASSERT_EQ(0, read_full(c, buf, 2));
	EXPECT_EQ(0, memcmp(buf, "OK", 2));
	close(a);
	close(c);
}

/* More than a client may send before the hello: the rest waits for it. */
TEST_F_TIMEOUT(opt, plain_server_big_request, 60)
{
	struct xfer x = { 0 };
	int a;

	ASSERT_EQ(0, sysctl_write(HELLO_SYSCTL, "300"));
	self->lfd = lo_listen(AF_INET, IPPROTO_TCP, &self->port);
	ASSERT_LE(0, self->lfd);
	x.fd = opt_socket(1, variant->tfo);
	ASSERT_LE(0, x.fd);
	ASSERT_EQ(0, lo_connect(x.fd, AF_INET, self->port));
	ASSERT_EQ(0, pthread_create(&x.thread, NULL, send_main, &x));
	a = accept(self->lfd, NULL, NULL);
	ASSERT_LE(0, a);
	EXPECT_EQ(0, recv_pattern(a, 1, XFER));
	pthread_join(x.thread, NULL);
	EXPECT_EQ(0, x.err);
	EXPECT_EQ(PSOCK_INFO_FALLBACK | PSOCK_INFO_ESTABLISHED,
		  info_flags(x.fd, NULL, NULL));
	close(a);
	close(x.fd);
}

/*
 * A PSOCK server: 1 MiB sent from connect() on (the first bytes before
 * the hello, when @early) and 1 MiB back, on 4 subflows.
 */
static void striped_case(struct __test_metadata *_metadata, int lfd,
			 int port, bool tfo, bool early)
{
	unsigned int num = 0, cnt = 0;
	struct xfer x = { 0 };
	int a, c;

	c = opt_socket(4, tfo);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, lo_connect(c, AF_INET, port));
	x.fd = c;
	x.seed = 1;
	if (!early)
		usleep(300 * 1000);	/* the hello came, nothing sent */
	ASSERT_EQ(0, pthread_create(&x.thread, NULL, send_main, &x));
	a = accept(lfd, NULL, NULL);
	ASSERT_LE(0, a);
	EXPECT_EQ(0, recv_pattern(a, 1, XFER));
	pthread_join(x.thread, NULL);
	EXPECT_EQ(0, x.err);
	EXPECT_EQ(PSOCK_INFO_ESTABLISHED, info_flags(c, &num, &cnt));
	EXPECT_EQ(4, cnt);
	EXPECT_EQ(4, num);
	EXPECT_EQ(PSOCK_INFO_ESTABLISHED, info_flags(a, &num, &cnt));
	EXPECT_EQ(4, cnt);
	EXPECT_EQ(4, num);
	/* Back, read as it comes: the subflows alone cannot hold 1 MiB. */
	x.fd = a;
	x.seed = 2;
	ASSERT_EQ(0, pthread_create(&x.thread, NULL, send_main, &x));
	EXPECT_EQ(0, recv_pattern(c, 2, XFER));
	pthread_join(x.thread, NULL);
	EXPECT_EQ(0, x.err);
	close(a);
	close(c);
}

TEST_F_TIMEOUT(opt, psock_server_data_before_hello, 60)
{
	long opens = psock_counter("ActiveOpens");
	long fb = psock_counter("Fallbacks");

	self->lfd = psock_listen4(&self->port);
	ASSERT_LE(0, self->lfd);
	striped_case(_metadata, self->lfd, self->port, variant->tfo, true);
	EXPECT_EQ(opens + 1, psock_counter("ActiveOpens"));
	EXPECT_EQ(fb, psock_counter("Fallbacks"));
}

TEST_F_TIMEOUT(opt, psock_server_hello_first, 60)
{
	self->lfd = psock_listen4(&self->port);
	ASSERT_LE(0, self->lfd);
	striped_case(_metadata, self->lfd, self->port, variant->tfo, false);
}

/* Our FIN before the hello: no mark can follow, both ends agree. */
TEST_F_TIMEOUT(opt, fin_before_hello, 30)
{
	char buf[200];
	int c, a, fc, fa;

	self->lfd = lo_listen(AF_INET, IPPROTO_PSOCK, &self->port);
	ASSERT_LE(0, self->lfd);
	c = opt_socket(2, variant->tfo);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, lo_connect(c, AF_INET, self->port));
	memset(buf, 'q', 100);
	ASSERT_EQ(100, send(c, buf, 100, 0));
	ASSERT_EQ(0, shutdown(c, SHUT_WR));
	a = accept(self->lfd, NULL, NULL);
	ASSERT_LE(0, a);
	ASSERT_EQ(0, read_full(a, buf, 100));
	EXPECT_EQ('q', buf[0]);
	EXPECT_EQ('q', buf[99]);
	EXPECT_EQ(0, recv(a, buf, 1, 0));
	ASSERT_EQ(3, send(a, "bye", 3, 0));
	ASSERT_EQ(0, shutdown(a, SHUT_WR));
	ASSERT_EQ(0, read_full(c, buf, 3));
	EXPECT_EQ(0, memcmp(buf, "bye", 3));
	EXPECT_EQ(0, recv(c, buf, 1, 0));
	fc = info_flags(c, NULL, NULL);
	fa = info_flags(a, NULL, NULL);
	EXPECT_EQ(fc & PSOCK_INFO_FALLBACK, fa & PSOCK_INFO_FALLBACK);
	close(a);
	close(c);
}

FIXTURE(srv)
{
	int	lfd;
	int	port;
};

FIXTURE_SETUP(srv)
{
	self->lfd = -1;
	ASSERT_EQ(0, netns_lo());
}

FIXTURE_TEARDOWN(srv)
{
	if (self->lfd >= 0)
		close(self->lfd);
}

/* net.psock.optimistic: the default of new sockets, 0 or 1. */
TEST_F_TIMEOUT(srv, sysctl_sets_default, 30)
{
	struct pollfd p = { .events = POLLIN };
	int c, a, v = -1;
	socklen_t len = sizeof(v);
	char buf[4];

	ASSERT_EQ(0, sysctl_write(HELLO_SYSCTL, "3000"));
	EXPECT_EQ(-1, sysctl_write(OPT_SYSCTL, "2"));
	ASSERT_EQ(0, sysctl_write(OPT_SYSCTL, "1"));
	self->lfd = lo_listen(AF_INET, IPPROTO_TCP, &self->port);
	ASSERT_LE(0, self->lfd);
	c = socket(AF_INET, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, getsockopt(c, SOL_PSOCK, PSOCK_OPTIMISTIC, &v, &len));
	EXPECT_EQ(1, v);
	ASSERT_EQ(0, lo_connect(c, AF_INET, self->port));
	ASSERT_EQ(4, send(c, "ping", 4, 0));
	a = accept(self->lfd, NULL, NULL);
	ASSERT_LE(0, a);
	/* Well before the hello timeout, with nothing in front. */
	p.fd = a;
	ASSERT_EQ(1, poll(&p, 1, 1500));
	ASSERT_EQ(0, read_full(a, buf, 4));
	EXPECT_EQ(0, memcmp(buf, "ping", 4));
	close(a);
	close(c);
	ASSERT_EQ(0, sysctl_write(OPT_SYSCTL, "0"));
	c = socket(AF_INET, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, getsockopt(c, SOL_PSOCK, PSOCK_OPTIMISTIC, &v, &len));
	EXPECT_EQ(0, v);
	close(c);
}

/*
 * While an optimistic client turns striped its data subflows join; the
 * connection stays connected meanwhile: getpeername() answers, and
 * shutdown() waits for the switch and then sends the end of the stream.
 * A raw server announces 2 subflows, the data subflow to a port whose
 * full accept queue drops its SYN, so that the switch lasts until the
 * client's join deadline (2 x hello_timeout_ms).
 */
TEST_F_TIMEOUT(srv, connected_while_switching, 30)
{
	struct pollfd p = { .events = POLLPRI };
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	unsigned int num = 0, cnt = 0;
	int c, s, full, q[2], i, port2;
	struct hello sh, ch;
	char mark;

	ASSERT_EQ(0, sysctl_write(HELLO_SYSCTL, "1000"));
	self->lfd = lo_listen(AF_INET, IPPROTO_TCP, &self->port);
	ASSERT_LE(0, self->lfd);
	full = lo_listen(AF_INET, IPPROTO_TCP, &port2);
	ASSERT_LE(0, full);
	ASSERT_EQ(0, listen(full, 0));
	for (i = 0; i < 2; i++) {	/* the accept queue, full */
		q[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
		ASSERT_LE(0, q[i]);
		lo_connect(q[i], AF_INET, port2);
	}
	usleep(100 * 1000);
	c = opt_socket(2, false);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, lo_connect(c, AF_INET, self->port));
	s = accept(self->lfd, NULL, NULL);
	ASSERT_LE(0, s);
	p.fd = s;
	ASSERT_EQ(1, poll(&p, 1, 10000));
	ASSERT_EQ(1, recv(s, &mark, 1, MSG_OOB));
	EXPECT_EQ((char)PROBE_OPT, mark);
	memset(&sh, 0, sizeof(sh));
	sh.magic = htonl(MAGIC);
	sh.version = 1;
	sh.type = T_SHELLO;
	sh.rcmd = 2;
	sh.max = 2;
	sh.family = 4;
	sh.port = htons(port2);
	sh.token = 0x1122334455667788ULL;
	sh.addr[0] = 127;
	sh.addr[3] = 1;
	ASSERT_EQ(sizeof(sh), send(s, &sh, sizeof(sh), 0));
	/* The mark, then the client hello: the client is switching. */
	ASSERT_EQ(1, poll(&p, 1, 10000));
	ASSERT_EQ(1, recv(s, &mark, 1, MSG_OOB));
	EXPECT_EQ((char)PROBE_OPT, mark);
	ASSERT_EQ(0, read_full(s, &ch, sizeof(ch)));
	EXPECT_EQ(T_CHELLO, ch.type);
	EXPECT_EQ(2, ch.n);
	EXPECT_EQ(0, getpeername(c, (struct sockaddr *)&ss, &len))
		TH_LOG("getpeername: %s", strerror(errno));
	EXPECT_EQ(0, shutdown(c, SHUT_WR)) TH_LOG("shutdown: %s", strerror(errno));
	/* The join was given up: striped over the control subflow alone. */
	EXPECT_EQ(PSOCK_INFO_ESTABLISHED, info_flags(c, &num, &cnt));
	EXPECT_EQ(2, cnt);
	EXPECT_EQ(1, num);
	close(c);
	close(s);
	close(q[0]);
	close(q[1]);
	close(full);
}

/*
 * close() at every point of an optimistic start against a PSOCK server:
 * right after connect(), after the first bytes, while turning striped.
 * Nothing may be left behind (the harness checks for sockets, leaks and
 * KASAN reports after the run); the listener serves on.
 */
TEST_F_TIMEOUT(srv, close_at_any_point, 120)
{
	int i, c, a, n = 0;
	char buf[4];

	self->lfd = psock_listen4(&self->port);
	ASSERT_LE(0, self->lfd);
	ASSERT_EQ(0, fcntl(self->lfd, F_SETFL, O_NONBLOCK));
	for (i = 0; i < 150; i++) {
		c = opt_socket(4, false);
		ASSERT_LE(0, c);
		ASSERT_EQ(0, lo_connect(c, AF_INET, self->port));
		if (i % 3)
			ASSERT_EQ(4, send(c, "abcd", 4, MSG_NOSIGNAL));
		if (i % 3 == 2)
			usleep(i % 7 * 1000);
		close(c);
		while ((a = accept(self->lfd, NULL, NULL)) >= 0) {
			n++;
			close(a);
		}
	}
	/* The listener still makes striped connections. */
	ASSERT_EQ(0, fcntl(self->lfd, F_SETFL, 0));
	c = opt_socket(4, false);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, lo_connect(c, AF_INET, self->port));
	ASSERT_EQ(4, send(c, "live", 4, 0));
	for (;;) {	/* behind the connections the loop left */
		a = accept(self->lfd, NULL, NULL);
		ASSERT_LE(0, a);
		if (!read_full(a, buf, 4) && !memcmp(buf, "live", 4))
			break;
		close(a);
		ASSERT_GT(200, ++n);
	}
	close(a);
	close(c);
}

/* A raw optimistic client: its probe sent, the server hello read. */
static int raw_opt_client(int port, struct hello *sh)
{
	char probe = (char)PROBE_OPT;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0 || lo_connect(fd, AF_INET, port) ||
	    send(fd, &probe, 1, MSG_OOB) != 1 ||
	    read_full(fd, sh, sizeof(*sh)) || sh->type != T_SHELLO)
		return -1;
	return fd;
}

static void chello_init(struct hello *h, uint64_t token)
{
	memset(h, 0, sizeof(*h));
	h->magic = htonl(MAGIC);
	h->version = 1;
	h->type = T_CHELLO;
	h->rcmd = 1;
	h->max = 1;
	h->n = 1;
	h->token = token;
}

/* Plain bytes, the mark, a client hello, block 1: one stream, striped. */
TEST_F_TIMEOUT(srv, raw_client_marked, 30)
{
	char mark = (char)PROBE_OPT, buf[150];
	uint32_t hdr[2] = { htonl(1), htonl(50) };
	struct hello sh, ch;
	int fd, a;

	self->lfd = lo_listen(AF_INET, IPPROTO_PSOCK, &self->port);
	ASSERT_LE(0, self->lfd);
	fd = raw_opt_client(self->port, &sh);
	ASSERT_LE(0, fd);
	memset(buf, 'r', 100);
	ASSERT_EQ(100, send(fd, buf, 100, 0));
	ASSERT_EQ(1, send(fd, &mark, 1, MSG_OOB));
	chello_init(&ch, sh.token);
	ASSERT_EQ(sizeof(ch), send(fd, &ch, sizeof(ch), 0));
	ASSERT_EQ(sizeof(hdr), send(fd, hdr, sizeof(hdr), 0));
	memset(buf, 'b', 50);
	ASSERT_EQ(50, send(fd, buf, 50, 0));
	a = accept(self->lfd, NULL, NULL);
	ASSERT_LE(0, a);
	ASSERT_EQ(0, read_full(a, buf, 150));
	EXPECT_EQ('r', buf[0]);
	EXPECT_EQ('r', buf[99]);
	EXPECT_EQ('b', buf[100]);
	EXPECT_EQ('b', buf[149]);
	EXPECT_EQ(PSOCK_INFO_ESTABLISHED, info_flags(a, NULL, NULL));
	close(a);
	close(fd);
}

/* More plain bytes than a client may send before a mark: plain TCP. */
TEST_F_TIMEOUT(srv, raw_client_over_limit_is_plain, 30)
{
	static char buf[PSOCK_OPTIMISTIC_MAX + 100], got[sizeof(buf)];
	struct hello sh;
	size_t i;
	int fd, a;

	self->lfd = lo_listen(AF_INET, IPPROTO_PSOCK, &self->port);
	ASSERT_LE(0, self->lfd);
	fd = raw_opt_client(self->port, &sh);
	ASSERT_LE(0, fd);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (char)(i * 7);
	ASSERT_EQ(sizeof(buf), send(fd, buf, sizeof(buf), 0));
	a = accept(self->lfd, NULL, NULL);
	ASSERT_LE(0, a);
	ASSERT_EQ(0, read_full(a, got, sizeof(got)));
	EXPECT_EQ(0, memcmp(buf, got, sizeof(buf)));
	EXPECT_EQ(PSOCK_INFO_FALLBACK | PSOCK_INFO_ESTABLISHED,
		  info_flags(a, NULL, NULL));
	close(a);
	close(fd);
}

/* After the mark only a client hello may come: else a reset. */
TEST_F_TIMEOUT(srv, raw_client_garbage_after_mark, 30)
{
	long fails = psock_counter("HandshakeFails");
	char mark = (char)PROBE_OPT, buf[64];
	struct pollfd p = { .events = POLLIN };
	struct hello sh;
	int fd, c, a;

	self->lfd = lo_listen(AF_INET, IPPROTO_PSOCK, &self->port);
	ASSERT_LE(0, self->lfd);
	fd = raw_opt_client(self->port, &sh);
	ASSERT_LE(0, fd);
	ASSERT_EQ(10, send(fd, "0123456789", 10, 0));
	ASSERT_EQ(1, send(fd, &mark, 1, MSG_OOB));
	memset(buf, 'x', sizeof(buf));
	ASSERT_EQ(sizeof(buf), send(fd, buf, sizeof(buf), 0));
	p.fd = fd;
	ASSERT_EQ(1, poll(&p, 1, 10000));
	EXPECT_EQ(-1, recv(fd, buf, sizeof(buf), 0));
	EXPECT_EQ(ECONNRESET, errno);
	EXPECT_EQ(fails + 1, psock_counter("HandshakeFails"));
	close(fd);
	/* The listener serves on. */
	c = opt_socket(1, false);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, lo_connect(c, AF_INET, self->port));
	ASSERT_EQ(2, send(c, "hi", 2, 0));
	a = accept(self->lfd, NULL, NULL);
	ASSERT_LE(0, a);
	ASSERT_EQ(0, read_full(a, buf, 2));
	EXPECT_EQ(0, memcmp(buf, "hi", 2));
	close(a);
	close(c);
}

TEST_HARNESS_MAIN
