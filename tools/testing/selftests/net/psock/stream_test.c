// SPDX-License-Identifier: GPL-2.0
/*
 * IPPROTO_PSOCK connections on loopback, each test in its own network
 * namespace: transfers checked byte for byte in both directions at once
 * (IPv4, IPv6, both drivers, 1..16 subflows, 1 KiB..16 MiB), the stream
 * count and driver negotiation, PSOCK_INFO, fallback to plain TCP in both
 * directions, non-blocking connect and accept, half-close, close with
 * queued data, timeouts, epoll, a first exchange that waits for no
 * delayed ACK, and 1000 short connections.
 *
 * The server side of each test runs in a forked child; its exit status is
 * its verdict.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <net/if.h>
#include <linux/psock.h>
#include <hcn.h>

#include "test_util.h"
#include "psock_lib.h"
#include "kselftest_harness.h"

#define HELLO_SYSCTL	"/proc/sys/net/psock/hello_timeout_ms"

/* Wait for a forked peer; its exit status, or 255 when it died. */
static int peer_status(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 255;
	return WEXITSTATUS(status);
}

/* ---- transfers ---- */

FIXTURE(xfer)
{
};

FIXTURE_VARIANT(xfer)
{
	int family;
	int streams;
	int driver;
	size_t len;
};

FIXTURE_VARIANT_ADD(xfer, v4_1stream_1k)
{
	.family = AF_INET, .streams = 1, .driver = 0, .len = 1024,
};

FIXTURE_VARIANT_ADD(xfer, v6_1stream_1m)
{
	.family = AF_INET6, .streams = 1, .driver = 0, .len = 1 << 20,
};

FIXTURE_VARIANT_ADD(xfer, v4_4streams_pollall_1m)
{
	.family = AF_INET, .streams = 4, .driver = 0, .len = 1 << 20,
};

FIXTURE_VARIANT_ADD(xfer, v6_4streams_pollall_1m)
{
	.family = AF_INET6, .streams = 4, .driver = 0, .len = 1 << 20,
};

FIXTURE_VARIANT_ADD(xfer, v4_4streams_rr_1m)
{
	.family = AF_INET, .streams = 4, .driver = 1, .len = 1 << 20,
};

FIXTURE_VARIANT_ADD(xfer, v6_3streams_rr_1m)
{
	.family = AF_INET6, .streams = 3, .driver = 1, .len = (1 << 20) + 1,
};

FIXTURE_VARIANT_ADD(xfer, v4_16streams_pollall_16m)
{
	.family = AF_INET, .streams = 16, .driver = 0, .len = 16 << 20,
};

FIXTURE_VARIANT_ADD(xfer, v6_8streams_rr_16m)
{
	.family = AF_INET6, .streams = 8, .driver = 1, .len = 16 << 20,
};

FIXTURE_VARIANT_ADD(xfer, v4_2streams_pollall_1k)
{
	.family = AF_INET, .streams = 2, .driver = 0, .len = 1000,
};

FIXTURE_SETUP(xfer)
{
	ASSERT_EQ(0, netns_lo());
}

FIXTURE_TEARDOWN(xfer)
{
}

/* Both ends agree on count and driver, and the drivers spread blocks. */
static int check_info(int fd, int family, int streams, int driver, size_t len)
{
	struct psock_info_buf b;
	int i, used = 0;

	if (psock_info(fd, &b))
		return -1;
	if (b.h.stream_cnt != (unsigned int)streams ||
	    b.h.num != (unsigned int)streams ||
	    b.h.driver != (unsigned int)driver ||
	    b.h.flags != PSOCK_INFO_ESTABLISHED ||
	    b.h.size_kernel != sizeof(b.sf[0])) {
		fprintf(stderr, "# info: cnt %u num %u driver %u flags %x\n",
			b.h.stream_cnt, b.h.num, b.h.driver, b.h.flags);
		return -1;
	}
	for (i = 0; i < streams; i++) {
		if (b.sf[i].index != (unsigned int)i ||
		    b.sf[i].family != family)
			return -1;
		/* A whole block at least, not acknowledgements alone. */
		if (b.sf[i].bytes_sent >= 16384)
			used++;
	}
	/*
	 * Enough data for two blocks per subflow: every subflow carried
	 * data, with either driver.  Poll-all gives each block to the
	 * subflow whose TCP holds the least unacknowledged, ties going to
	 * the next one: on loopback, where no path is full, every subflow
	 * gets its turn (Documentation/psock.rst, "Drivers and blocks").
	 */
	if (len >= (size_t)streams * 16384 * 2 && used != streams) {
		fprintf(stderr, "# %d of %d subflows carried data\n", used,
			streams);
		return -1;
	}
	return 0;
}

TEST_F_TIMEOUT(xfer, duplex, 300)
{
	size_t back = variant->len / 2 + 7;
	int fd, port, lfd;
	pid_t pid;

	lfd = socket(variant->family, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, lfd);
	/* Server rcmd 1, max 32: the client's rcmd decides. */
	ASSERT_EQ(0, psock_opts(lfd, 1, 32, variant->driver));
	{
		struct sockaddr_storage ss;
		socklen_t len = lo_addr(variant->family, 0, &ss);

		ASSERT_EQ(0, bind(lfd, (struct sockaddr *)&ss, len));
		ASSERT_EQ(0, listen(lfd, 8));
		port = sock_port(lfd);
	}
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int c = accept(lfd, NULL, NULL);

		if (c < 0)
			_exit(2);
		if (duplex(c, 2, back, 1, variant->len))
			_exit(3);
		if (check_info(c, variant->family, variant->streams,
			       variant->driver, variant->len))
			_exit(4);
		close(c);
		_exit(0);
	}
	close(lfd);
	fd = socket(variant->family, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, psock_opts(fd, variant->streams, 32, variant->driver));
	ASSERT_EQ(0, lo_connect(fd, variant->family, port));
	EXPECT_EQ(0, duplex(fd, 1, variant->len, 2, back));
	EXPECT_EQ(0, check_info(fd, variant->family, variant->streams,
				variant->driver, variant->len));
	close(fd);
	EXPECT_EQ(0, peer_status(pid));
}

/* A fresh netns with lo up, for the tests without a variant. */
FIXTURE(ns)
{
};

FIXTURE_SETUP(ns)
{
	ASSERT_EQ(0, netns_lo());
}

FIXTURE_TEARDOWN(ns)
{
}

/* ---- negotiation ---- */

/* Connect with the given options on both ends; the counts/drivers seen. */
static int negotiate(int crcmd, int cmax, int cdrv, int srcmd, int smax,
		     int sdrv, struct psock_info *ci)
{
	struct psock_info_buf b;
	int lfd, fd, port, c, ok;
	pid_t pid;

	lfd = socket(AF_INET, SOCK_STREAM, IPPROTO_PSOCK);
	if (lfd < 0 || psock_opts(lfd, srcmd, smax, sdrv))
		return -1;
	{
		struct sockaddr_storage ss;
		socklen_t len = lo_addr(AF_INET, 0, &ss);

		if (bind(lfd, (struct sockaddr *)&ss, len) || listen(lfd, 8))
			return -1;
		port = sock_port(lfd);
	}
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		c = accept(lfd, NULL, NULL);
		if (c < 0 || duplex(c, 4, 50000, 3, 70000) || psock_info(c, &b))
			_exit(2);
		/* The server reports what the client does: the caller checks
		 * the client; the exit code carries the server's count, above
		 * the codes of errors (10 + 2 n + driver, at most 75).
		 */
		_exit(10 + b.h.stream_cnt * 2 + b.h.driver);
	}
	close(lfd);
	fd = socket(AF_INET, SOCK_STREAM, IPPROTO_PSOCK);
	if (fd < 0 || psock_opts(fd, crcmd, cmax, cdrv) ||
	    lo_connect(fd, AF_INET, port))
		return -1;
	ok = duplex(fd, 3, 70000, 4, 50000) == 0 && psock_info(fd, &b) == 0;
	close(fd);
	c = peer_status(pid);
	if (!ok)
		return -1;
	*ci = b.h;
	if (c != (int)(10 + b.h.stream_cnt * 2 + b.h.driver)) {
		if (c < 10)
			fprintf(stderr, "# server failed (%d)\n", c);
		else
			fprintf(stderr, "# server saw %d/%d\n", (c - 10) / 2,
				c % 2);
		return -1;
	}
	return 0;
}

TEST_F_TIMEOUT(ns, negotiation_matrix, 300)
{
	static const struct {
		int crcmd, cmax, srcmd, smax, n;
	} m[] = {
		{ 4, 8, 2, 3, 3 },	/* the seed paper's example */
		{ 2, 3, 4, 8, 3 },
		{ 1, 1, 16, 16, 1 },
		{ 2, 32, 5, 32, 5 },
		{ 8, 4, 1, 32, 4 },	/* rcmd above max is capped */
		{ 1, 32, 1, 32, 1 },
		{ 32, 32, 32, 32, 32 },
	};
	struct psock_info ci;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(m); i++) {
		ASSERT_EQ(0, negotiate(m[i].crcmd, m[i].cmax, 0, m[i].srcmd,
				       m[i].smax, 0, &ci))
			TH_LOG("case %u", i);
		EXPECT_EQ(m[i].n, ci.stream_cnt) TH_LOG("case %u", i);
		EXPECT_EQ(m[i].n, ci.num) TH_LOG("case %u", i);
	}
}

/* Round-robin only when both ends ask for it. */
TEST_F_TIMEOUT(ns, driver_matrix, 300)
{
	static const int d[4][3] = {
		{ 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 }, { 1, 1, 1 },
	};
	struct psock_info ci;
	int i;

	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, negotiate(2, 4, d[i][0], 2, 4, d[i][1], &ci));
		EXPECT_EQ(d[i][2], ci.driver) TH_LOG("case %d", i);
		EXPECT_EQ(2, ci.stream_cnt);
	}
}

/* ---- fallback to plain TCP ---- */

static void set_hello_timeout(struct __test_metadata *_metadata, const char *ms)
{
	ASSERT_EQ(0, sysctl_set(HELLO_SYSCTL, ms));
}

/* A PSOCK client against a plain TCP server that never speaks first. */
TEST_F_TIMEOUT(ns, fallback_psock_client_plain_server, 120)
{
	struct psock_info_buf b;
	int lfd, fd, port;
	pid_t pid;

	set_hello_timeout(_metadata, "300");
	lfd = lo_listen(AF_INET6, IPPROTO_TCP, &port);
	ASSERT_LE(0, lfd);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int c = accept(lfd, NULL, NULL);

		/* Silent past the client's hello timeout.  Not one stray
		 * byte then: the urgent probe stays out of band.
		 */
		usleep(600000);
		if (c < 0 || duplex(c, 6, 300000, 5, 200000))
			_exit(2);
		_exit(0);
	}
	close(lfd);
	fd = socket(AF_INET6, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, lo_connect(fd, AF_INET6, port));
	ASSERT_EQ(0, psock_info(fd, &b));
	EXPECT_EQ(PSOCK_INFO_ESTABLISHED | PSOCK_INFO_FALLBACK, b.h.flags);
	EXPECT_EQ(1, b.h.stream_cnt);
	EXPECT_EQ(1, b.h.num);
	EXPECT_EQ(0, duplex(fd, 5, 200000, 6, 300000));
	close(fd);
	EXPECT_EQ(0, peer_status(pid));
}

/* A plain server that sends a banner first: fallback without waiting. */
TEST_F_TIMEOUT(ns, fallback_plain_server_speaks_first, 120)
{
	struct psock_info_buf b;
	char buf[64] = { 0 };
	int lfd, fd, port;
	pid_t pid;

	set_hello_timeout(_metadata, "60000");
	lfd = lo_listen(AF_INET, IPPROTO_TCP, &port);
	ASSERT_LE(0, lfd);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int c = accept(lfd, NULL, NULL);
		char r[16] = { 0 };

		if (c < 0 || send(c, "220 hello\r\n", 11, 0) != 11)
			_exit(2);
		if (recv(c, r, 5, MSG_WAITALL) != 5 ||
		    memcmp(r, "QUIT\n", 5))
			_exit(3);
		_exit(0);
	}
	close(lfd);
	fd = socket(AF_INET, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, fd);
	/* A 60 s hello timeout: only the banner can end the wait. */
	ASSERT_EQ(0, lo_connect(fd, AF_INET, port));
	ASSERT_EQ(0, psock_info(fd, &b));
	EXPECT_EQ(PSOCK_INFO_ESTABLISHED | PSOCK_INFO_FALLBACK, b.h.flags);
	EXPECT_EQ(11, recv(fd, buf, 11, MSG_WAITALL));
	EXPECT_STREQ("220 hello\r\n", buf);
	EXPECT_EQ(5, send(fd, "QUIT\n", 5, 0));
	shutdown(fd, SHUT_WR);
	EXPECT_EQ(0, peer_status(pid));
	close(fd);
}

/*
 * A plain server that sends data and resets the connection: the data,
 * then the reset, as from TCP.  A read that returned the data must leave
 * the reset to the next read, never make it the end of the stream (a
 * stream cut short would look complete).
 */
TEST_F_TIMEOUT(ns, fallback_reset_after_data, 120)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	static char buf[100000];
	int lfd, fd, port, c;
	ssize_t got;
	pid_t pid;

	set_hello_timeout(_metadata, "60000");
	lfd = lo_listen(AF_INET, IPPROTO_TCP, &port);
	ASSERT_LE(0, lfd);
	fd = socket(AF_INET, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, fd);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		c = accept(lfd, NULL, NULL);
		if (c < 0 || send(c, "220 hello\r\n", 11, 0) != 11)
			_exit(2);
		usleep(200000);
		if (send(c, buf, 50000, 0) != 50000 ||
		    setsockopt(c, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)))
			_exit(3);
		usleep(200000);
		close(c);
		_exit(0);
	}
	close(lfd);
	ASSERT_EQ(0, lo_connect(fd, AF_INET, port));
	EXPECT_EQ(0, peer_status(pid));
	/* Data and reset both there: one read takes the data. */
	got = recv(fd, buf, sizeof(buf), MSG_WAITALL);
	EXPECT_EQ(50011, got);
	EXPECT_EQ(-1, recv(fd, buf, sizeof(buf), 0));
	EXPECT_EQ(ECONNRESET, errno);
	close(fd);
}

/* A plain TCP client that talks first against a PSOCK listener. */
TEST_F_TIMEOUT(ns, fallback_plain_client_psock_server, 120)
{
	struct psock_info_buf b;
	int lfd, fd, port;
	pid_t pid;

	set_hello_timeout(_metadata, "60000");
	lfd = lo_listen(AF_INET, IPPROTO_PSOCK, &port);
	ASSERT_LE(0, lfd);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int c = accept(lfd, NULL, NULL);

		if (c < 0 || psock_info(c, &b) ||
		    b.h.flags != (PSOCK_INFO_ESTABLISHED | PSOCK_INFO_FALLBACK))
			_exit(2);
		if (duplex(c, 8, 250000, 7, 400000))
			_exit(3);
		_exit(0);
	}
	close(lfd);
	fd = socket(AF_INET, SOCK_STREAM, IPPROTO_TCP);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, lo_connect(fd, AF_INET, port));
	EXPECT_EQ(0, duplex(fd, 7, 400000, 8, 250000));
	close(fd);
	EXPECT_EQ(0, peer_status(pid));
}

/* A plain client that waits for a banner: accepted after the timeout. */
TEST_F_TIMEOUT(ns, fallback_silent_plain_client, 120)
{
	char buf[32] = { 0 };
	int lfd, fd, port;
	pid_t pid;

	set_hello_timeout(_metadata, "200");
	lfd = lo_listen(AF_INET6, IPPROTO_PSOCK, &port);
	ASSERT_LE(0, lfd);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int c = accept(lfd, NULL, NULL);

		if (c < 0 || send(c, "+OK ready\r\n", 11, 0) != 11)
			_exit(2);
		if (recv(c, buf, sizeof(buf), 0) != 0)
			_exit(3);
		_exit(0);
	}
	close(lfd);
	fd = socket(AF_INET6, SOCK_STREAM, IPPROTO_TCP);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, lo_connect(fd, AF_INET6, port));
	EXPECT_EQ(11, recv(fd, buf, 11, MSG_WAITALL));
	EXPECT_STREQ("+OK ready\r\n", buf);
	close(fd);
	EXPECT_EQ(0, peer_status(pid));
}

/* ---- socket semantics ---- */

FIXTURE(pair)
{
	int lfd, port;
};

FIXTURE_VARIANT(pair)
{
	int family;
};

FIXTURE_VARIANT_ADD(pair, v4)
{
	.family = AF_INET,
};

FIXTURE_VARIANT_ADD(pair, v6)
{
	.family = AF_INET6,
};

FIXTURE_SETUP(pair)
{
	ASSERT_EQ(0, netns_lo());
	self->lfd = lo_listen(variant->family, IPPROTO_PSOCK, &self->port);
	ASSERT_LE(0, self->lfd);
}

FIXTURE_TEARDOWN(pair)
{
	close(self->lfd);
}

static int same_addr(const struct sockaddr_storage *a,
		     const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return 0;
	if (a->ss_family == AF_INET)
		return !memcmp(a, b, sizeof(struct sockaddr_in));
	return !memcmp(&((struct sockaddr_in6 *)a)->sin6_addr,
		       &((struct sockaddr_in6 *)b)->sin6_addr, 16) &&
	       ((struct sockaddr_in6 *)a)->sin6_port ==
	       ((struct sockaddr_in6 *)b)->sin6_port;
}

TEST_F_TIMEOUT(pair, nonblocking_connect_accept_and_names, 120)
{
	struct sockaddr_storage cl, cp, sl, sp;
	socklen_t len;
	struct pollfd p;
	int fd, c, err = -1;

	/* Nothing to accept yet. */
	ASSERT_EQ(0, fcntl(self->lfd, F_SETFL, O_NONBLOCK));
	EXPECT_EQ(-1, accept(self->lfd, NULL, NULL));
	EXPECT_EQ(EAGAIN, errno);

	fd = socket(variant->family, SOCK_STREAM | SOCK_NONBLOCK,
		    IPPROTO_PSOCK);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, lo_connect(fd, variant->family, self->port));
	EXPECT_EQ(EINPROGRESS, errno);
	/* EALREADY while in progress, 0 once done (as TCP). */
	if (lo_connect(fd, variant->family, self->port))
		EXPECT_EQ(EALREADY, errno);

	p = (struct pollfd){ .fd = fd, .events = POLLOUT };
	ASSERT_EQ(1, poll(&p, 1, 20000));
	EXPECT_EQ(POLLOUT, p.revents & (POLLOUT | POLLERR | POLLHUP));
	len = sizeof(err);
	EXPECT_EQ(0, getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len));
	EXPECT_EQ(0, err);

	p = (struct pollfd){ .fd = self->lfd, .events = POLLIN };
	ASSERT_EQ(1, poll(&p, 1, 20000));
	c = accept4(self->lfd, NULL, NULL, SOCK_NONBLOCK);
	ASSERT_LE(0, c);
	EXPECT_EQ(O_NONBLOCK, fcntl(c, F_GETFL) & O_NONBLOCK);

	len = sizeof(cl);
	ASSERT_EQ(0, getsockname(fd, (struct sockaddr *)&cl, &len));
	len = sizeof(cp);
	ASSERT_EQ(0, getpeername(fd, (struct sockaddr *)&cp, &len));
	len = sizeof(sl);
	ASSERT_EQ(0, getsockname(c, (struct sockaddr *)&sl, &len));
	len = sizeof(sp);
	ASSERT_EQ(0, getpeername(c, (struct sockaddr *)&sp, &len));
	EXPECT_TRUE(same_addr(&cl, &sp));
	EXPECT_TRUE(same_addr(&cp, &sl));
	EXPECT_EQ(self->port, sock_port(c));

	/* Non-blocking I/O: nothing to read yet, then one message. */
	EXPECT_EQ(-1, recv(c, &err, 1, 0));
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_EQ(5, send(fd, "abcde", 5, 0));
	p = (struct pollfd){ .fd = c, .events = POLLIN };
	ASSERT_EQ(1, poll(&p, 1, 20000));
	{
		char buf[8] = { 0 };

		EXPECT_EQ(2, recv(c, buf, 2, MSG_PEEK));
		EXPECT_EQ(5, recv(c, buf, sizeof(buf), 0));
		EXPECT_STREQ("abcde", buf);
	}
	close(c);
	close(fd);
}

/*
 * A blocking recv() while a non-blocking connect() is still in progress
 * waits for the connection and its data, as TCP's does (not EAGAIN).
 */
TEST_F_TIMEOUT(pair, blocking_recv_during_connect, 120)
{
	struct timeval tv = { .tv_sec = 20 };
	char buf[4] = { 0 };
	pid_t pid;
	int fd;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int c = accept(self->lfd, NULL, NULL);

		_exit(c < 0 || send(c, "hi", 2, 0) != 2 ||
		      recv(c, buf, 1, 0) != 0);
	}
	fd = socket(variant->family, SOCK_STREAM | SOCK_NONBLOCK,
		    IPPROTO_PSOCK);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, lo_connect(fd, variant->family, self->port));
	EXPECT_EQ(EINPROGRESS, errno);
	ASSERT_EQ(0, fcntl(fd, F_SETFL, 0));
	ASSERT_EQ(0, setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
	EXPECT_EQ(2, recv(fd, buf, 2, MSG_WAITALL));
	EXPECT_STREQ("hi", buf);
	close(fd);
	EXPECT_EQ(0, peer_status(pid));
}

TEST_F_TIMEOUT(pair, connect_refused, 120)
{
	struct pollfd p;
	socklen_t len = sizeof(int);
	int fd, err = 0, port = self->port;

	close(self->lfd);
	self->lfd = socket(AF_INET, SOCK_STREAM, 0);	/* for teardown */

	fd = socket(variant->family, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, lo_connect(fd, variant->family, port));
	EXPECT_EQ(ECONNREFUSED, errno);
	close(fd);

	fd = socket(variant->family, SOCK_STREAM | SOCK_NONBLOCK,
		    IPPROTO_PSOCK);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, lo_connect(fd, variant->family, port));
	EXPECT_EQ(EINPROGRESS, errno);
	p = (struct pollfd){ .fd = fd, .events = POLLOUT };
	ASSERT_EQ(1, poll(&p, 1, 20000));
	EXPECT_TRUE(p.revents & POLLERR);
	EXPECT_EQ(0, getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len));
	EXPECT_EQ(ECONNREFUSED, err);
	close(fd);
}

TEST_F_TIMEOUT(pair, half_close_both_directions, 120)
{
	char buf[16] = { 0 };
	struct pollfd p;
	int fd, c;

	fd = socket(variant->family, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, lo_connect(fd, variant->family, self->port));
	c = accept(self->lfd, NULL, NULL);
	ASSERT_LE(0, c);

	/* Client -> server, then the client's half closes. */
	EXPECT_EQ(5, send(fd, "hello", 5, 0));
	EXPECT_EQ(0, shutdown(fd, SHUT_WR));
	EXPECT_EQ(-1, send(fd, "x", 1, MSG_NOSIGNAL));
	EXPECT_EQ(EPIPE, errno);
	EXPECT_EQ(5, recv(c, buf, sizeof(buf), MSG_WAITALL));
	EXPECT_STREQ("hello", buf);
	EXPECT_EQ(0, recv(c, buf, sizeof(buf), 0));
	p = (struct pollfd){ .fd = c, .events = POLLIN | POLLRDHUP };
	EXPECT_EQ(1, poll(&p, 1, 0));
	EXPECT_TRUE(p.revents & POLLRDHUP);

	/* The other direction still works, then closes too. */
	EXPECT_EQ(5, send(c, "world", 5, 0));
	EXPECT_EQ(0, shutdown(c, SHUT_WR));
	memset(buf, 0, sizeof(buf));
	EXPECT_EQ(5, recv(fd, buf, sizeof(buf), MSG_WAITALL));
	EXPECT_STREQ("world", buf);
	EXPECT_EQ(0, recv(fd, buf, sizeof(buf), 0));
	p = (struct pollfd){ .fd = fd, .events = POLLIN | POLLOUT };
	EXPECT_EQ(1, poll(&p, 1, 0));
	EXPECT_TRUE(p.revents & POLLHUP);
	close(c);
	close(fd);
}

/* close() right after send(): the peer still gets every byte. */
TEST_F_TIMEOUT(pair, close_delivers_queued_data, 120)
{
	const size_t len = 4 << 20;
	pid_t pid;
	int fd, c;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		c = accept(self->lfd, NULL, NULL);
		if (c < 0)
			_exit(2);
		usleep(300000);
		_exit(recv_pattern(c, 9, len) ? 3 : 0);
	}
	fd = socket(variant->family, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, lo_connect(fd, variant->family, self->port));
	{
		uint8_t *buf = malloc(len);
		struct pattern pt;
		size_t off = 0;

		ASSERT_NE(NULL, buf);
		pattern_init(&pt, 9);
		pattern_fill(&pt, buf, len);
		while (off < len) {
			ssize_t r = send(fd, buf + off, len - off, 0);

			ASSERT_LT(0, r);
			off += r;
		}
		free(buf);
	}
	close(fd);
	EXPECT_EQ(0, peer_status(pid));
}

/*
 * SO_SNDBUF reaches every subflow, and the sender keeps unacknowledged
 * blocks for all of them: against a peer that does not read, a PSOCK
 * socket of n subflows with send buffers B takes more than B (up to n B
 * plus the 8 blocks of the acknowledgment lag) before send() says
 * EAGAIN, as n TCP sockets of the psock library would.
 */
/*
 * Send @chunk-byte pieces without blocking until the socket is full (EAGAIN
 * three times in a row, 50 ms apart): the bytes taken, or -1 on an error.
 */
static ssize_t fill(int fd, const char *buf, size_t chunk)
{
	ssize_t sent = 0;
	int tries;

	for (tries = 0; tries < 3; ) {
		ssize_t r = send(fd, buf, chunk, MSG_DONTWAIT);

		if (r > 0) {
			sent += r;
			tries = 0;
			continue;
		}
		if (errno != EAGAIN)
			return -1;
		tries++;
		usleep(50000);
	}
	return sent;
}

TEST_F_TIMEOUT(pair, send_buffer_per_subflow, 120)
{
	const size_t chunk = 16384, lag = 8 * 16384;
	struct psock_info_buf b;
	size_t sent = 0, got = 0;
	int fd, c, per;
	ssize_t filled;
	socklen_t len;
	char *buf;

	buf = calloc(1, chunk);
	ASSERT_NE(NULL, buf);
	fd = socket(variant->family, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, fd);
	per = 32768;
	ASSERT_EQ(0, setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &per, sizeof(per)));
	ASSERT_EQ(0, psock_opts(fd, 4, 4, -1));
	ASSERT_EQ(0, lo_connect(fd, variant->family, self->port));
	c = accept(self->lfd, NULL, NULL);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, psock_info(fd, &b));
	ASSERT_EQ(4, b.h.stream_cnt);
	len = sizeof(per);
	ASSERT_EQ(0, getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &per, &len));
	ASSERT_EQ(65536, per);		/* doubled, as TCP */

	filled = fill(fd, buf, chunk);
	ASSERT_LT(0, filled);
	sent = filled;
	TH_LOG("%zu bytes taken, subflow send buffers %d", sent, per);
	EXPECT_LT((size_t)2 * per, sent);
	EXPECT_GE((size_t)4 * per + lag, sent);

	/* Everything taken is delivered. */
	while (got < sent) {
		ssize_t r = recv(c, buf, chunk, 0);

		ASSERT_LT(0, r);
		got += r;
	}
	EXPECT_EQ(sent, got);
	close(fd);
	EXPECT_EQ(0, recv(c, buf, chunk, 0));
	close(c);
	free(buf);
}

struct rr_writer {
	int	fd;
	size_t	len;
	int	err;
};

/* Writes of 16384 bytes, as nc makes them: a block and 8 bytes each. */
static void *rr_write_main(void *arg)
{
	struct rr_writer *w = arg;
	static char buf[16384];
	size_t done = 0;

	while (done < w->len) {
		ssize_t r = send(w->fd, buf, sizeof(buf), MSG_NOSIGNAL);

		if (r < 0) {
			w->err = errno;
			break;
		}
		done += r;
	}
	shutdown(w->fd, SHUT_WR);
	return NULL;
}

/*
 * Round-robin shares the stream among the subflows whatever the size of
 * the application's writes: each subflow carries about a quarter of it.
 */
TEST_F_TIMEOUT(pair, round_robin_shares_bytes, 120)
{
	struct rr_writer w = { .len = 256 * 16384 };
	struct sockaddr_storage ss;
	socklen_t len = lo_addr(variant->family, 0, &ss);
	struct psock_info_buf b;
	size_t got = 0, total = 0;
	pthread_t th;
	static char buf[65536];
	int lfd, c, i;

	lfd = socket(variant->family, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, lfd);
	ASSERT_EQ(0, psock_opts(lfd, 4, 4, PSOCK_DRIVER_ROUND_ROBIN));
	ASSERT_EQ(0, bind(lfd, (struct sockaddr *)&ss, len));
	ASSERT_EQ(0, listen(lfd, 4));
	w.fd = socket(variant->family, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, w.fd);
	ASSERT_EQ(0, psock_opts(w.fd, 4, 4, PSOCK_DRIVER_ROUND_ROBIN));
	ASSERT_EQ(0, lo_connect(w.fd, variant->family, sock_port(lfd)));
	c = accept(lfd, NULL, NULL);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, pthread_create(&th, NULL, rr_write_main, &w));
	for (;;) {
		ssize_t r = recv(c, buf, sizeof(buf), 0);

		ASSERT_LE(0, r);
		if (!r)
			break;
		got += r;
	}
	pthread_join(th, NULL);
	EXPECT_EQ(0, w.err);
	EXPECT_EQ(w.len, got);
	ASSERT_EQ(0, psock_info(w.fd, &b));
	ASSERT_EQ(PSOCK_DRIVER_ROUND_ROBIN, b.h.driver);
	ASSERT_EQ(4, b.h.num);
	for (i = 0; i < 4; i++)
		total += b.sf[i].bytes_sent;
	for (i = 0; i < 4; i++) {
		unsigned long long n = b.sf[i].bytes_sent;

		EXPECT_LT(total / 5, n)
			TH_LOG("subflow %d carried %llu of %zu bytes", i, n,
			       total);
	}
	close(c);
	close(w.fd);
	close(lfd);
}

TEST_F_TIMEOUT(pair, timeouts, 120)
{
	struct timeval tv = { .tv_usec = 200000 };
	struct timespec t0, t1;
	char *buf;
	int fd, c, i;
	ssize_t r = 0;

	fd = socket(variant->family, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, lo_connect(fd, variant->family, self->port));
	c = accept(self->lfd, NULL, NULL);
	ASSERT_LE(0, c);

	ASSERT_EQ(0, setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	EXPECT_EQ(-1, recv(fd, &i, 1, 0));
	EXPECT_EQ(EAGAIN, errno);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	EXPECT_LE(190, (t1.tv_sec - t0.tv_sec) * 1000 +
		  (t1.tv_nsec - t0.tv_nsec) / 1000000);

	/* The peer reads nothing: sends stop with a short count or EAGAIN. */
	ASSERT_EQ(0, setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)));
	buf = calloc(1, 1 << 20);
	ASSERT_NE(NULL, buf);
	for (i = 0; i < 1000; i++) {
		r = send(fd, buf, 1 << 20, MSG_NOSIGNAL);
		if (r < (1 << 20))
			break;
	}
	EXPECT_GT(1000, i);
	if (r < 0)
		EXPECT_EQ(EAGAIN, errno);
	free(buf);
	close(c);
	close(fd);
}

TEST_F_TIMEOUT(pair, epoll_edge_triggered, 120)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET }, out;
	char b;
	int fd, c, ep;

	fd = socket(variant->family, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, lo_connect(fd, variant->family, self->port));
	c = accept(self->lfd, NULL, NULL);
	ASSERT_LE(0, c);
	ep = epoll_create1(0);
	ASSERT_LE(0, ep);
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev));
	EXPECT_EQ(0, epoll_wait(ep, &out, 1, 100));
	EXPECT_EQ(1, send(c, "z", 1, 0));
	ASSERT_EQ(1, epoll_wait(ep, &out, 1, 20000));
	EXPECT_TRUE(out.events & EPOLLIN);
	EXPECT_EQ(1, recv(fd, &b, 1, 0));
	EXPECT_EQ('z', b);
	EXPECT_EQ(0, epoll_wait(ep, &out, 1, 100));
	close(ep);
	close(c);
	close(fd);
}

/* Calls that need a connection, on a socket without one: as TCP. */
TEST_F_TIMEOUT(pair, unconnected_calls_like_tcp, 120)
{
	int fd, tcp, i;
	char b = 0;

	fd = socket(variant->family, SOCK_STREAM, IPPROTO_PSOCK);
	tcp = socket(variant->family, SOCK_STREAM, IPPROTO_TCP);
	ASSERT_LE(0, fd);
	ASSERT_LE(0, tcp);
	for (i = 0; i < 2; i++) {
		int s = i ? tcp : fd;

		EXPECT_EQ(-1, send(s, &b, 1, MSG_NOSIGNAL | MSG_DONTWAIT));
		EXPECT_EQ(EPIPE, errno);
		EXPECT_EQ(-1, recv(s, &b, 1, MSG_DONTWAIT));
		EXPECT_EQ(ENOTCONN, errno);
		EXPECT_EQ(-1, shutdown(s, SHUT_WR));
		EXPECT_EQ(ENOTCONN, errno);
		EXPECT_EQ(-1, accept(s, NULL, NULL));
		EXPECT_EQ(EINVAL, errno);
	}
	/* A listener cannot connect. */
	EXPECT_EQ(-1, lo_connect(self->lfd, variant->family, self->port));
	EXPECT_EQ(EISCONN, errno);
	close(tcp);
	close(fd);
}

/* A connected pair on the fixture's listener: 0, or -1. */
static int connect_pair(int family, int lfd, int port, int *c, int *a)
{
	*c = socket(family, SOCK_STREAM, IPPROTO_PSOCK);
	if (*c < 0 || lo_connect(*c, family, port))
		return -1;
	*a = accept(lfd, NULL, NULL);
	return *a < 0 ? -1 : 0;
}

static int get_window(int fd, struct psock_window *w)
{
	socklen_t len = sizeof(*w);

	return getsockopt(fd, SOL_PSOCK, PSOCK_WINDOW, w, &len) ||
	       len != sizeof(*w) ? -1 : 0;
}

/* The third value of net.ipv4.tcp_rmem, in this netns. */
static long tcp_rmem_max(void)
{
	long a, b, c;
	FILE *f = fopen("/proc/sys/net/ipv4/tcp_rmem", "r");

	if (!f)
		return -1;
	if (fscanf(f, "%ld %ld %ld", &a, &b, &c) != 3)
		c = -1;
	fclose(f);
	return c;
}

#define WIN_UNIT	(64L << 10)
#define WIN_MIN		(4L << 20)
#define WIN_MAX		(255 * WIN_UNIT)

/*
 * Each end offers its receive window in its hello: SO_RCVBUF when set
 * (here 5 MiB asked, 10 MiB granted), else tcp_rmem[2]; 4 MiB to 255 x
 * 64 KiB, in whole 64 KiB.  Each end's send window is what the other
 * offered (Documentation/psock.rst, "Window").
 */
TEST_F_TIMEOUT(pair, window_negotiated, 120)
{
	long def = tcp_rmem_max(), big;
	struct psock_window cw, sw;
	int c, a, rcv = 5 << 20;

	ASSERT_LT(0, def);
	def = def < WIN_MIN ? WIN_MIN : def > WIN_MAX ? WIN_MAX : def;
	def -= def % WIN_UNIT;
	ASSERT_EQ(0, setsockopt(self->lfd, SOL_SOCKET, SO_RCVBUFFORCE, &rcv,
				sizeof(rcv)));
	big = 2L * rcv;
	ASSERT_EQ(0, connect_pair(variant->family, self->lfd, self->port, &c,
				  &a));
	ASSERT_EQ(0, get_window(c, &cw));
	ASSERT_EQ(0, get_window(a, &sw));
	TH_LOG("client snd %u rcv %u, server snd %u rcv %u", cw.snd_wnd,
	       cw.rcv_wnd, sw.snd_wnd, sw.rcv_wnd);
	EXPECT_EQ(big, sw.rcv_wnd);
	EXPECT_EQ(big, cw.snd_wnd);
	EXPECT_EQ(def, cw.rcv_wnd);
	EXPECT_EQ(def, sw.snd_wnd);
	close(c);
	close(a);
}

/*
 * A peer that offers 10 MiB gets up to 10 MiB of blocks it has not read
 * (with send buffers to match): more than the fixed 4 MiB of old, all
 * delivered once it reads.
 */
TEST_F_TIMEOUT(pair, window_lets_more_in_flight, 120)
{
	const size_t chunk = 16384;
	int c, a, rcv = 5 << 20, snd = 16 << 20;
	ssize_t filled;
	size_t sent = 0, got = 0;
	struct psock_window w;
	char *buf;

	buf = calloc(1, chunk);
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, setsockopt(self->lfd, SOL_SOCKET, SO_RCVBUFFORCE, &rcv,
				sizeof(rcv)));
	c = socket(variant->family, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, setsockopt(c, SOL_SOCKET, SO_SNDBUFFORCE, &snd,
				sizeof(snd)));
	ASSERT_EQ(0, psock_opts(c, 4, 4, -1));
	ASSERT_EQ(0, lo_connect(c, variant->family, self->port));
	a = accept(self->lfd, NULL, NULL);
	ASSERT_LE(0, a);
	filled = fill(c, buf, chunk);
	ASSERT_LT(0, filled);
	sent = filled;
	TH_LOG("%zu bytes taken", sent);
	EXPECT_LT((size_t)6 << 20, sent);
	ASSERT_EQ(0, get_window(c, &w));
	EXPECT_EQ(10L << 20, w.snd_wnd);
	EXPECT_GE((size_t)w.snd_wnd, sent);
	while (got < sent) {
		ssize_t r = recv(a, buf, chunk, 0);

		ASSERT_LT(0, r);
		got += r;
	}
	EXPECT_EQ(sent, got);
	close(c);
	EXPECT_EQ(0, recv(a, buf, chunk, 0));
	close(a);
	free(buf);
}

/* MSG_OOB and MSG_ERRQUEUE: EOPNOTSUPP, the connection unharmed. */
TEST_F_TIMEOUT(pair, oob_and_errqueue_refused, 120)
{
	char b[4];
	int c, a;

	ASSERT_EQ(0, connect_pair(variant->family, self->lfd, self->port,
				  &c, &a));
	EXPECT_EQ(-1, send(c, "x", 1, MSG_OOB));
	EXPECT_EQ(EOPNOTSUPP, errno);
	EXPECT_EQ(-1, recv(a, b, 1, MSG_OOB));
	EXPECT_EQ(EOPNOTSUPP, errno);
	EXPECT_EQ(-1, recv(a, b, 1, MSG_ERRQUEUE));
	EXPECT_EQ(EOPNOTSUPP, errno);
	EXPECT_EQ(4, send(c, "ping", 4, 0));
	EXPECT_EQ(4, recv(a, b, 4, MSG_WAITALL));
	EXPECT_EQ(0, memcmp(b, "ping", 4));
	close(a);
	close(c);
}

/*
 * SO_RCVLOWAT, as TCP's: poll() reports POLLIN once that much is there; a
 * blocking recv() waits for it; a non-blocking one returns what is there.
 */
TEST_F_TIMEOUT(pair, rcvlowat, 120)
{
	struct pollfd p = { .events = POLLIN };
	static char b[2000];
	int c, a, low = 1000;

	ASSERT_EQ(0, connect_pair(variant->family, self->lfd, self->port,
				  &c, &a));
	ASSERT_EQ(0, setsockopt(a, SOL_SOCKET, SO_RCVLOWAT, &low,
				sizeof(low)));
	p.fd = a;
	ASSERT_EQ(500, send(c, b, 500, 0));
	EXPECT_EQ(0, poll(&p, 1, 500));
	ASSERT_EQ(600, send(c, b, 600, 0));
	EXPECT_EQ(1, poll(&p, 1, 5000));
	EXPECT_LE(1000, recv(a, b, sizeof(b), 0));
	ASSERT_EQ(300, send(c, b, 300, 0));
	usleep(300000);
	EXPECT_LT(0, recv(a, b, sizeof(b), MSG_DONTWAIT));
	close(a);
	close(c);
}

/*
 * A connect() that failed may be tried again on the same socket, and
 * succeed (Documentation/psock.rst, connect()).
 */
TEST_F_TIMEOUT(pair, connect_again_after_failure, 120)
{
	int c, a, dead, port;
	char b[4];

	dead = lo_listen(variant->family, IPPROTO_TCP, &port);
	ASSERT_LE(0, dead);
	close(dead);		/* nobody listens on @port now */
	c = socket(variant->family, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, c);
	EXPECT_EQ(-1, lo_connect(c, variant->family, port));
	EXPECT_EQ(ECONNREFUSED, errno);
	ASSERT_EQ(0, lo_connect(c, variant->family, self->port));
	a = accept(self->lfd, NULL, NULL);
	ASSERT_LE(0, a);
	EXPECT_EQ(4, send(c, "ping", 4, 0));
	EXPECT_EQ(4, recv(a, b, 4, MSG_WAITALL));
	close(a);
	close(c);
}

/*
 * A blocking connect() whose SO_SNDTIMEO runs out before the handshake
 * ends says EINPROGRESS, as TCP's; the connection still completes (here
 * a silent plain TCP server: the hello timeout makes it plain TCP).
 */
TEST_F_TIMEOUT(pair, blocking_connect_sndtimeo, 120)
{
	struct timeval tv = { .tv_usec = 200000 };
	struct pollfd p = { .events = POLLOUT };
	struct psock_info_buf info;
	int c, srv, port, err = -1;
	socklen_t len = sizeof(err);

	srv = lo_listen(variant->family, IPPROTO_TCP, &port);
	ASSERT_LE(0, srv);
	c = socket(variant->family, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)));
	EXPECT_EQ(-1, lo_connect(c, variant->family, port));
	EXPECT_EQ(EINPROGRESS, errno);
	p.fd = c;
	EXPECT_EQ(1, poll(&p, 1, 10000));
	EXPECT_EQ(0, getsockopt(c, SOL_SOCKET, SO_ERROR, &err, &len));
	EXPECT_EQ(0, err);
	ASSERT_EQ(0, psock_info(c, &info));
	EXPECT_TRUE(info.h.flags & PSOCK_INFO_FALLBACK);
	close(c);
	close(srv);
}

static void *accept_err(void *arg)
{
	int fd = accept(*(int *)arg, NULL, NULL);

	if (fd >= 0) {
		close(fd);
		return NULL;
	}
	return (void *)(long)errno;
}

/*
 * shutdown() of a listener, as TCP's: SHUT_WR does nothing; SHUT_RD stops
 * it, a blocked accept() fails with EINVAL, connect() is refused; listen()
 * starts it again (on a new port: it was bound to port 0, as a TCP
 * listener would be).
 */
TEST_F_TIMEOUT(pair, listener_shutdown, 120)
{
	pthread_t t;
	void *ret;
	int c, a;

	ASSERT_EQ(0, pthread_create(&t, NULL, accept_err, &self->lfd));
	usleep(200000);
	EXPECT_EQ(0, shutdown(self->lfd, SHUT_WR));
	EXPECT_EQ(0, shutdown(self->lfd, SHUT_RD));
	ASSERT_EQ(0, pthread_join(t, &ret));
	EXPECT_EQ(EINVAL, (long)ret);
	c = socket(variant->family, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, c);
	EXPECT_EQ(-1, lo_connect(c, variant->family, self->port));
	EXPECT_EQ(ECONNREFUSED, errno) TH_LOG("connect: %s", strerror(errno));
	close(c);
	/* Bound to port 0, it gets a new one, as a TCP listener does. */
	ASSERT_EQ(0, listen(self->lfd, 8));
	self->port = sock_port(self->lfd);
	ASSERT_LT(0, self->port);
	c = socket(variant->family, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, lo_connect(c, variant->family, self->port));
	a = accept(self->lfd, NULL, NULL);
	ASSERT_LE(0, a);
	EXPECT_EQ(4, send(c, "ping", 4, 0));
	close(a);
	close(c);
}

/*
 * A listener on any address announces 127.0.0.2; a client connects to
 * 127.0.0.1 with 4 subflows.  How many of its subflows go to 127.0.0.2
 * (or -1): subflows 1 and 3 when the client follows the announcement.
 */
static int to_announced(struct __test_metadata *_metadata)
{
	struct sockaddr_in any = { .sin_family = AF_INET };
	struct sockaddr_in two = { .sin_family = AF_INET };
	struct psock_info_buf b;
	int lfd, fd, a, port, i, n = 0;

	two.sin_addr.s_addr = htonl(INADDR_LOOPBACK + 1);
	lfd = socket(AF_INET, SOCK_STREAM, IPPROTO_PSOCK);
	if (lfd < 0 || psock_opts(lfd, 4, 4, -1) ||
	    setsockopt(lfd, SOL_PSOCK, PSOCK_ADD_LOCAL_ADDR, &two,
		       sizeof(two)) ||
	    bind(lfd, (struct sockaddr *)&any, sizeof(any)) || listen(lfd, 8))
		return -1;
	port = sock_port(lfd);
	fd = socket(AF_INET, SOCK_STREAM, IPPROTO_PSOCK);
	if (fd < 0 || psock_opts(fd, 4, 4, -1) ||
	    lo_connect(fd, AF_INET, port))
		return -1;
	a = accept(lfd, NULL, NULL);
	EXPECT_LE(0, a);
	EXPECT_EQ(0, psock_info(fd, &b));
	EXPECT_EQ(4, b.h.stream_cnt);
	for (i = 0; i < 4; i++)
		n += !memcmp(b.sf[i].remote_addr, &two.sin_addr, 4);
	EXPECT_EQ(4, send(fd, "ping", 4, 0));
	close(a);
	close(fd);
	close(lfd);
	return n;
}

/* By default a client follows every address the server announces. */
TEST_F(ns, announced_addresses_followed)
{
	EXPECT_EQ(2, to_announced(_metadata));
}

/* net.psock.add_addr_accepted = 0: only the server's own address. */
TEST_F(ns, announced_addresses_refused_by_sysctl)
{
	ASSERT_EQ(0, sysctl_set("/proc/sys/net/psock/add_addr_accepted", "0"));
	EXPECT_EQ(0, to_announced(_metadata));
	ASSERT_EQ(0, sysctl_set("/proc/sys/net/psock/add_addr_accepted", "1"));
	EXPECT_EQ(2, to_announced(_metadata));
}

/* ---- the namespace's endpoints (hicnctl psock endpoint) ---- */

static int ep_add(const char *addr, __u32 flags, int ifindex)
{
	struct hcn_psock_endpoint ep = {
		.attrs = HCN_ATTR(PSOCK_A_ENDPOINT_FAMILY) |
			 HCN_ATTR(PSOCK_A_ENDPOINT_ADDR4) |
			 HCN_ATTR(PSOCK_A_ENDPOINT_FLAGS),
		.family = AF_INET,
		.flags = flags,
	};

	if (ifindex) {
		ep.attrs |= HCN_ATTR(PSOCK_A_ENDPOINT_IFINDEX);
		ep.ifindex = ifindex;
	}
	if (inet_pton(AF_INET, addr, &ep.addr.v4) != 1)
		return -EINVAL;
	return hcn_psock_endpoint_add(&ep, NULL);
}

/*
 * A listener on any address (announcing @own with PSOCK_ADD_LOCAL_ADDR
 * when given) and a client of @family to loopback with 4 subflows; the
 * client's PSOCK_INFO in *@b.  0 or -1.
 */
static int four_subflows(int family, const char *own,
			 struct psock_info_buf *b)
{
	struct sockaddr_storage any = { .ss_family = family }, two = { };
	socklen_t alen = family == AF_INET ? sizeof(struct sockaddr_in) :
					     sizeof(struct sockaddr_in6);
	int lfd, fd, a = -1, port, ret = -1;
	char buf[4];

	lfd = socket(family, SOCK_STREAM, IPPROTO_PSOCK);
	if (lfd < 0 || psock_opts(lfd, 4, 4, -1) ||
	    bind(lfd, (struct sockaddr *)&any, alen))
		goto out;
	if (own) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&two;

		sin->sin_family = AF_INET;
		if (inet_pton(AF_INET, own, &sin->sin_addr) != 1 ||
		    setsockopt(lfd, SOL_PSOCK, PSOCK_ADD_LOCAL_ADDR, sin,
			       sizeof(*sin)))
			goto out;
	}
	if (listen(lfd, 8))
		goto out;
	port = sock_port(lfd);
	fd = socket(family, SOCK_STREAM, IPPROTO_PSOCK);
	if (fd < 0 || psock_opts(fd, 4, 4, -1) || lo_connect(fd, family, port))
		goto out_fd;
	a = accept(lfd, NULL, NULL);
	if (a >= 0 && !psock_info(fd, b) && b->h.stream_cnt == 4 &&
	    send(fd, "ping", 4, 0) == 4 &&
	    recv(a, buf, sizeof(buf), MSG_WAITALL) == 4)
		ret = 0;
	if (a >= 0)
		close(a);
out_fd:
	if (fd >= 0)
		close(fd);
out:
	if (lfd >= 0)
		close(lfd);
	return ret;
}

/* Subflows of *@b whose remote (@remote) or local address is @addr. */
static int count_addr(const struct psock_info_buf *b, const char *addr,
		      bool remote)
{
	struct in_addr in;
	int i, n = 0;

	if (inet_pton(AF_INET, addr, &in) != 1)
		return -1;
	for (i = 0; i < 4; i++)
		n += !memcmp(remote ? b->sf[i].remote_addr :
				      b->sf[i].local_addr, &in, 4);
	return n;
}

/*
 * A listener without addresses of its own announces the namespace's
 * signal endpoints, not its subflow-only ones: subflows 1 and 3 of the
 * client go to 127.0.0.2.
 */
TEST_F(ns, signal_endpoint_announced)
{
	struct psock_info_buf b;

	ASSERT_EQ(0, ep_add("127.0.0.3", PSOCK_ENDPOINT_FLAGS_SUBFLOW, 0));
	ASSERT_EQ(0, four_subflows(AF_INET, NULL, &b));
	EXPECT_EQ(0, count_addr(&b, "127.0.0.2", true));
	ASSERT_EQ(0, ep_add("127.0.0.2", PSOCK_ENDPOINT_FLAGS_SIGNAL, 0));
	ASSERT_EQ(0, four_subflows(AF_INET, NULL, &b));
	EXPECT_EQ(2, count_addr(&b, "127.0.0.2", true));
	EXPECT_EQ(0, count_addr(&b, "127.0.0.3", true));
	/* Deleted, it is announced no more. */
	ASSERT_EQ(0, hcn_psock_endpoint_flush(AF_INET));
	ASSERT_EQ(0, four_subflows(AF_INET, NULL, &b));
	EXPECT_EQ(0, count_addr(&b, "127.0.0.2", true));
}

/* A listener's own addresses (PSOCK_ADD_LOCAL_ADDR) replace the endpoints. */
TEST_F(ns, own_addresses_override_endpoints)
{
	struct psock_info_buf b;

	ASSERT_EQ(0, ep_add("127.0.0.2", PSOCK_ENDPOINT_FLAGS_SIGNAL, 0));
	ASSERT_EQ(0, four_subflows(AF_INET, "127.0.0.5", &b));
	EXPECT_EQ(2, count_addr(&b, "127.0.0.5", true));
	EXPECT_EQ(0, count_addr(&b, "127.0.0.2", true));
}

/*
 * A client without addresses of its own opens its data subflows from the
 * namespace's subflow endpoints (one bound to lo): subflows 1 and 3 from
 * 127.0.0.4.  An IPv6 client leaves the IPv4 endpoint alone.
 */
TEST_F(ns, subflow_endpoint_used_as_source)
{
	struct psock_info_buf b;
	int lo = if_nametoindex("lo");

	ASSERT_LT(0, lo);
	ASSERT_EQ(0, ep_add("127.0.0.4", PSOCK_ENDPOINT_FLAGS_SUBFLOW, lo));
	ASSERT_EQ(0, four_subflows(AF_INET, NULL, &b));
	EXPECT_EQ(2, count_addr(&b, "127.0.0.4", false));
	EXPECT_EQ(0, count_addr(&b, "127.0.0.4", true));
	ASSERT_EQ(0, four_subflows(AF_INET6, NULL, &b));
	EXPECT_EQ(4, b.h.stream_cnt);
}

/* A TcpExt counter of this netns's /proc/net/netstat by name; -1: none. */
static long tcpext_counter(const char *name)
{
	char hdr[4096], val[4096], *s1, *s2, *n, *x;
	FILE *f = fopen("/proc/net/netstat", "r");
	long found = -1;

	if (!f)
		return -1;
	while (found < 0 && fgets(hdr, sizeof(hdr), f) &&
	       fgets(val, sizeof(val), f)) {
		if (strncmp(hdr, "TcpExt:", 7))
			continue;
		n = strtok_r(hdr, "\n ", &s1);
		x = strtok_r(val, "\n ", &s2);
		while (n && x && found < 0) {
			if (!strcmp(n, name))
				found = strtol(x, NULL, 10);
			n = strtok_r(NULL, "\n ", &s1);
			x = strtok_r(NULL, "\n ", &s2);
		}
	}
	fclose(f);
	return found;
}

/*
 * Wait (5 s at most) until this netns holds no TCP socket but listeners
 * and TIME_WAIT: the subflows of a connection closed just before end in
 * the background, and an ACK one of them delays would count in the next
 * connection's figure.
 */
static void tcp_quiet(void)
{
	static const char * const files[] = { "/proc/net/tcp",
					       "/proc/net/tcp6" };
	unsigned int i, k, st, busy = 1;
	char line[512];
	FILE *f;

	for (k = 0; k < 50 && busy; k++) {
		if (k)
			usleep(100 * 1000);
		busy = 0;
		for (i = 0; i < ARRAY_SIZE(files); i++) {
			f = fopen(files[i], "r");
			if (!f)
				continue;
			while (fgets(line, sizeof(line), f))
				if (sscanf(line, " %*d: %*s %*s %x", &st) == 1 &&
				    st != 0x0A && st != 0x06)
					busy++;
			fclose(f);
		}
	}
}

/*
 * The client's request and the server's answer on connection @fd / @c:
 * 1 KiB each way, or (@half_close) 1000 bytes ended by shutdown(SHUT_WR),
 * read by the server to the end of the stream, and a 1-byte answer, as
 * bench/psock_rr.sh's half-close set.  0, or -1 with errno.
 */
static int exchange(int fd, int c, bool half_close)
{
	char req[1024] = "request", ans[1024] = "answer", buf[1024];
	size_t rlen = half_close ? 1000 : sizeof(req);
	size_t alen = half_close ? 1 : sizeof(ans);

	if (send(fd, req, rlen, 0) != (ssize_t)rlen ||
	    (half_close && shutdown(fd, SHUT_WR)) ||
	    recv(c, buf, rlen, MSG_WAITALL) != (ssize_t)rlen ||
	    memcmp(buf, req, rlen))
		return -1;
	if (half_close && recv(c, buf, sizeof(buf), 0) != 0)
		return -1;
	if (send(c, ans, alen, 0) != (ssize_t)alen ||
	    recv(fd, buf, alen, MSG_WAITALL) != (ssize_t)alen ||
	    memcmp(buf, ans, alen))
		return -1;
	return 0;
}

/*
 * One connection of @n subflows without TCP_NODELAY, and its first
 * exchange (exchange()): the delayed ACKs TCP sent meanwhile, or -1 on an
 * error (logged); *@ms: how long the exchange took.
 */
static long first_exchange(struct __test_metadata *_metadata, int n,
			   bool half_close, double *ms)
{
	struct sockaddr_storage ss;
	socklen_t len = lo_addr(AF_INET, 0, &ss);
	struct timespec t0, t1;
	int lfd, fd, c = -1;
	long before, acks = -1;

	lfd = socket(AF_INET, SOCK_STREAM, IPPROTO_PSOCK);
	fd = socket(AF_INET, SOCK_STREAM, IPPROTO_PSOCK);
	if (lfd < 0 || fd < 0 || psock_opts(lfd, n, n, -1) ||
	    psock_opts(fd, n, n, -1) ||
	    bind(lfd, (struct sockaddr *)&ss, len) || listen(lfd, 1)) {
		TH_LOG("set-up: %s", strerror(errno));
		goto out;
	}
	tcp_quiet();
	before = tcpext_counter("DelayedACKs");
	if (before < 0 || lo_connect(fd, AF_INET, sock_port(lfd))) {
		TH_LOG("connect: %s", strerror(errno));
		goto out;
	}
	c = accept(lfd, NULL, NULL);
	if (c < 0) {
		TH_LOG("accept: %s", strerror(errno));
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (exchange(fd, c, half_close)) {
		TH_LOG("exchange: %s", strerror(errno));
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	acks = tcpext_counter("DelayedACKs") - before;
	*ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
out:
	if (c >= 0)
		close(c);
	close(fd);
	close(lfd);
	return acks;
}

/*
 * The first exchange of @half_close's form on connections of 1 and 4
 * subflows waits for no delayed ACK.  A loaded machine can delay an ACK
 * for reasons of its own: three tries, each once the connections before
 * it have ended.
 */
static void no_delayed_ack(struct __test_metadata *_metadata, bool half_close)
{
	static const int counts[] = { 1, 4 };
	unsigned int k, try;

	for (k = 0; k < ARRAY_SIZE(counts); k++) {
		long acks = 1;
		double ms = 0;

		for (try = 0; try < 3 && acks > 0; try++)
			acks = first_exchange(_metadata, counts[k], half_close,
					      &ms);
		EXPECT_EQ(0, acks)
			TH_LOG("%d subflows: %ld delayed ACKs, first exchange %.1f ms",
			       counts[k], acks, ms);
	}
}

/*
 * The first exchange of small messages on a new connection waits for no
 * delayed ACK, as on a TCP connection.  The server acknowledges the client
 * hello at once: TCP delayed that ACK (a hello had gone each way), and
 * Nagle held the client's first block, small, behind the unacknowledged
 * hello until it came, 40 ms later (TcpExtDelayedACKs counted it).
 */
TEST_F_TIMEOUT(ns, first_exchange_no_delayed_ack, 120)
{
	no_delayed_ack(_metadata, false);
}

/*
 * A request ended by shutdown(SHUT_WR) and its answer wait for no delayed
 * ACK either.  The server acknowledged the end of the stream at once, in a
 * small segment of its own; on one subflow Nagle then held the answer
 * behind it until the client's delayed ACK: 48 ms per exchange against
 * TCP's 2 (bench/psock_rr.sh's half-close set).
 */
TEST_F_TIMEOUT(ns, half_close_exchange_no_delayed_ack, 120)
{
	no_delayed_ack(_metadata, true);
}

/* 1000 short connections: every socket is gone afterwards. */
TEST_F_TIMEOUT(ns, many_short_connections, 600)
{
	int lfd, port, i, n = 1000;
	pid_t pid;

	lfd = lo_listen(AF_INET, IPPROTO_PSOCK, &port);
	ASSERT_LE(0, lfd);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		for (i = 0; i < n; i++) {
			char buf[8];
			int c = accept(lfd, NULL, NULL);

			if (c < 0 || recv(c, buf, sizeof(buf), MSG_WAITALL) != 8 ||
			    send(c, buf, 8, 0) != 8)
				_exit(2);
			close(c);
		}
		_exit(0);
	}
	for (i = 0; i < n; i++) {
		char buf[8] = "12345678";
		int fd = socket(AF_INET, SOCK_STREAM, IPPROTO_PSOCK);

		ASSERT_LE(0, fd);
		ASSERT_EQ(0, lo_connect(fd, AF_INET, port)) TH_LOG("#%d", i);
		ASSERT_EQ(8, send(fd, buf, 8, 0));
		ASSERT_EQ(8, recv(fd, buf, 8, MSG_WAITALL));
		ASSERT_EQ(0, recv(fd, buf, 8, 0));
		close(fd);
	}
	EXPECT_EQ(0, peer_status(pid));
	close(lfd);
	/* A close() may still end its connection in the background. */
	for (i = 0; i < 100 && proto_inuse("PSOCK"); i++)
		usleep(100000);
	EXPECT_EQ(0, proto_inuse("PSOCK"));
}

TEST_HARNESS_MAIN
