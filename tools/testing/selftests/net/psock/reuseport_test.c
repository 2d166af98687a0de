// SPDX-License-Identifier: GPL-2.0
/*
 * SO_REUSEPORT on PSOCK listeners (Documentation/psock.rst, "SO_REUSEPORT"):
 * as TCP's, listeners of one user that all set it share a port, and TCP
 * spreads the connections between them; a listener without it, or of
 * another user, gets EADDRINUSE.  A striped connection's data subflows
 * are TCP connections of their own, so they land on any listener of the
 * port: each must reach the handshake it joins, and every connection is
 * striped over all its subflows, none missing.  Closing one listener
 * while connections come in leaves the other serving them.
 *
 *   client --(control + 3 data subflows, port P)--> listener A or B
 */
#include <fcntl.h>
#include <pthread.h>
#include <sys/wait.h>

#include "psock_lib.h"
#include "kselftest_harness.h"

#define STREAMS		4
#define CONNS		24
#define ECHO		(64 << 10)

/* A PSOCK listener on loopback port @port, SO_REUSEPORT set if @rp. */
static int rp_listen(int family, int port, int rp, int *err)
{
	struct sockaddr_storage ss;
	socklen_t len = lo_addr(family, port, &ss);
	int fd = socket(family, SOCK_STREAM, IPPROTO_PSOCK);

	*err = 0;
	if (fd < 0) {
		*err = errno;
		return -1;
	}
	if ((rp && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &rp, sizeof(rp))) ||
	    psock_opts(fd, STREAMS, STREAMS, -1) ||
	    bind(fd, (struct sockaddr *)&ss, len) || listen(fd, 64)) {
		*err = errno;
		close(fd);
		return -1;
	}
	return fd;
}

/* Subflows of @fd that are established, or -1. */
static int live_subflows(int fd, unsigned int *flags)
{
	struct psock_info_buf b;
	int i, n = 0;

	if (psock_info(fd, &b))
		return -1;
	*flags = b.h.flags;
	for (i = 0; i < (int)b.h.num && i < PSOCK_STREAM_CNT_LIMIT; i++)
		if (b.sf[i].state == 1 /* TCP_ESTABLISHED */)
			n++;
	return n;
}

struct server {
	pthread_t	thread;
	int		lfd;
	int		accepted;
	int		bad;
	int		stop;
};

static __thread uint8_t buf[ECHO];

/* Accept and echo ECHO bytes per connection until the listener closes. */
static void *server_main(void *arg)
{
	struct server *s = arg;

	for (;;) {
		unsigned int flags = 0;
		int fd = accept(s->lfd, NULL, NULL), n = 0, r;

		if (fd < 0)
			break;
		s->accepted++;
		if (live_subflows(fd, &flags) != STREAMS ||
		    (flags & PSOCK_INFO_FALLBACK))
			s->bad++;
		while (n < ECHO && (r = recv(fd, buf + n, ECHO - n, 0)) > 0)
			n += r;
		if (n != ECHO || send(fd, buf, n, MSG_NOSIGNAL) != n)
			s->bad++;
		close(fd);
	}
	return NULL;
}

/* One client: striped over STREAMS subflows, its echo intact; 0 or -1. */
static int client_once(int family, int port, int seed)
{
	unsigned int flags = 0;
	int fd, ok = -1;

	fd = socket(family, SOCK_STREAM, IPPROTO_PSOCK);
	if (fd < 0)
		return -1;
	if (psock_opts(fd, STREAMS, STREAMS, -1) ||
	    lo_connect(fd, family, port)) {
		fprintf(stderr, "# client: connect: %s\n", strerror(errno));
		goto out;
	}
	if (live_subflows(fd, &flags) != STREAMS ||
	    (flags & PSOCK_INFO_FALLBACK)) {
		fprintf(stderr, "# client: %d subflows, flags %#x\n",
			live_subflows(fd, &flags), flags);
		goto out;
	}
	if (send_pattern(fd, seed, ECHO) || shutdown(fd, SHUT_WR) ||
	    recv_pattern(fd, seed, ECHO)) {
		fprintf(stderr, "# client: echo: %s\n", strerror(errno));
		goto out;
	}
	ok = 0;
out:
	close(fd);
	return ok;
}

FIXTURE(rp)
{
	int a, b, port;
	struct server sa, sb;
};

FIXTURE_VARIANT(rp)
{
	int family;
};

FIXTURE_VARIANT_ADD(rp, v4)
{
	.family = AF_INET,
};

FIXTURE_VARIANT_ADD(rp, v6)
{
	.family = AF_INET6,
};

FIXTURE_SETUP(rp)
{
	int err;

	ASSERT_EQ(0, netns_lo());
	memset(&self->sa, 0, sizeof(self->sa));
	memset(&self->sb, 0, sizeof(self->sb));
	self->b = -1;
	self->a = rp_listen(variant->family, 0, 1, &err);
	ASSERT_LE(0, self->a) TH_LOG("listener A: %s", strerror(err));
	self->port = sock_port(self->a);
}

FIXTURE_TEARDOWN(rp)
{
	if (self->a >= 0)
		close(self->a);
	if (self->b >= 0)
		close(self->b);
}

/* As TCP: every listener of the port sets SO_REUSEPORT, or EADDRINUSE. */
TEST_F(rp, second_listener_needs_reuseport)
{
	int err, fd;

	fd = rp_listen(variant->family, self->port, 0, &err);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(EADDRINUSE, err);
	self->b = rp_listen(variant->family, self->port, 1, &err);
	ASSERT_LE(0, self->b) TH_LOG("second SO_REUSEPORT listener: %s",
				     strerror(err));
	EXPECT_EQ(self->port, sock_port(self->b));
}

/* Another user cannot join the group and take a share of the port. */
TEST_F(rp, other_user_refused)
{
	int status, err;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int fd;

		if (setgid(65534) || setuid(65534))
			_exit(2);
		fd = rp_listen(variant->family, self->port, 1, &err);
		_exit(fd < 0 && err == EADDRINUSE ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("nobody bound the port of root's group");
}

/*
 * Connections spread over both listeners, each striped over all its
 * subflows: no join went missing, wherever TCP put it.
 */
TEST_F(rp, connections_spread_striped)
{
	long missing = psock_counter("JoinsMissing");
	int i, err, failed = 0;

	ASSERT_LE(0, missing);
	self->b = rp_listen(variant->family, self->port, 1, &err);
	ASSERT_LE(0, self->b) TH_LOG("%s", strerror(err));
	self->sa.lfd = self->a;
	self->sb.lfd = self->b;
	ASSERT_EQ(0, pthread_create(&self->sa.thread, NULL, server_main,
				    &self->sa));
	ASSERT_EQ(0, pthread_create(&self->sb.thread, NULL, server_main,
				    &self->sb));
	for (i = 0; i < CONNS; i++)
		if (client_once(variant->family, self->port, 100 + i))
			failed++;
	shutdown(self->a, SHUT_RDWR);
	shutdown(self->b, SHUT_RDWR);
	pthread_join(self->sa.thread, NULL);
	pthread_join(self->sb.thread, NULL);
	EXPECT_EQ(0, failed);
	EXPECT_EQ(CONNS, self->sa.accepted + self->sb.accepted);
	EXPECT_EQ(0, self->sa.bad + self->sb.bad);
	/* 24 connections all on one listener: 2 in 2^24. */
	EXPECT_LT(0, self->sa.accepted);
	EXPECT_LT(0, self->sb.accepted);
	EXPECT_EQ(missing, psock_counter("JoinsMissing"));
}

/*
 * Listener A closes and comes back, again and again, while clients
 * connect: B goes on serving, and nothing handed to A is left behind
 * (run on the debug kernel: KASAN, kmemleak, lockdep).
 */
TEST_F(rp, listener_closes_under_connections)
{
	int i, err, ok = 0;

	self->b = rp_listen(variant->family, self->port, 1, &err);
	ASSERT_LE(0, self->b) TH_LOG("%s", strerror(err));
	self->sb.lfd = self->b;
	self->sa.lfd = self->a;
	ASSERT_EQ(0, pthread_create(&self->sb.thread, NULL, server_main,
				    &self->sb));
	ASSERT_EQ(0, pthread_create(&self->sa.thread, NULL, server_main,
				    &self->sa));
	for (i = 0; i < 16; i++) {
		int fd = socket(variant->family, SOCK_STREAM, IPPROTO_PSOCK);

		ASSERT_LE(0, fd);
		ASSERT_EQ(0, psock_opts(fd, STREAMS, STREAMS, -1));
		fcntl(fd, F_SETFL, O_NONBLOCK);
		lo_connect(fd, variant->family, self->port);
		/* First: A's thread may be reading from this one. */
		close(fd);
		if (i % 4 == 3) {
			/* A goes; its thread ends; a new A comes. */
			shutdown(self->a, SHUT_RDWR);
			pthread_join(self->sa.thread, NULL);
			close(self->a);
			self->a = rp_listen(variant->family, self->port, 1,
					    &err);
			ASSERT_LE(0, self->a) TH_LOG("%s", strerror(err));
			self->sa.lfd = self->a;
			ASSERT_EQ(0, pthread_create(&self->sa.thread, NULL,
						    server_main, &self->sa));
		}
	}
	/* The group still serves striped connections. */
	for (i = 0; i < 4; i++)
		ok += !client_once(variant->family, self->port, 500 + i);
	shutdown(self->a, SHUT_RDWR);
	shutdown(self->b, SHUT_RDWR);
	pthread_join(self->sa.thread, NULL);
	pthread_join(self->sb.thread, NULL);
	EXPECT_EQ(4, ok);
}

TEST_HARNESS_MAIN
