// SPDX-License-Identifier: GPL-2.0
/*
 * Every way of moving bytes through a PSOCK connection, as with TCP:
 * write/read, writev/readv, sendmsg/recvmsg with several iovecs and
 * MSG_WAITALL, MSG_PEEK, sendfile() from a file, and splice() from a pipe
 * into the socket and from the socket into a pipe.  Each test sends a
 * known pattern (psock_lib.h) over 4 subflows on loopback, in its own
 * netns, and checks every byte on the other side.
 */
#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/uio.h>

#include "psock_lib.h"
#include "kselftest_harness.h"

#define LEN	(1024 * 1024)

FIXTURE(io)
{
	int fd, c;
	uint8_t *tx, *rx;
};

FIXTURE_VARIANT(io)
{
	int family;
	int streams;
};

FIXTURE_VARIANT_ADD(io, v4_4streams)
{
	.family = AF_INET,
	.streams = 4,
};

FIXTURE_VARIANT_ADD(io, v6_4streams)
{
	.family = AF_INET6,
	.streams = 4,
};

FIXTURE_VARIANT_ADD(io, v4_1stream)
{
	.family = AF_INET,
	.streams = 1,
};

FIXTURE_SETUP(io)
{
	struct pattern p;
	int lfd, port;

	ASSERT_EQ(0, netns_lo());
	lfd = lo_listen(variant->family, IPPROTO_PSOCK, &port);
	ASSERT_LE(0, lfd);
	self->fd = socket(variant->family, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, psock_opts(self->fd, variant->streams, variant->streams,
				-1));
	ASSERT_EQ(0, lo_connect(self->fd, variant->family, port));
	self->c = accept(lfd, NULL, NULL);
	ASSERT_LE(0, self->c);
	close(lfd);
	self->tx = malloc(LEN);
	self->rx = malloc(LEN);
	ASSERT_NE(NULL, self->tx);
	ASSERT_NE(NULL, self->rx);
	pattern_init(&p, variant->family * 100 + variant->streams);
	pattern_fill(&p, self->tx, LEN);
}

FIXTURE_TEARDOWN(io)
{
	close(self->fd);
	close(self->c);
	free(self->tx);
	free(self->rx);
}

/* Read exactly @len bytes with read(); 0 or -1. */
static int read_full(int fd, uint8_t *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t r = read(fd, buf + got, len - got);

		if (r <= 0)
			return -1;
		got += r;
	}
	return 0;
}

struct writer {
	pthread_t	thread;
	int		fd;
	const uint8_t	*buf;
	size_t		len;
	int		err;
};

/* writev() of the buffer cut into 3 uneven iovecs per call. */
static void *writev_main(void *arg)
{
	struct writer *w = arg;
	size_t off = 0;

	while (off < w->len) {
		size_t n = w->len - off;
		struct iovec iov[3] = {
			{ (void *)(w->buf + off), n / 7 },
			{ (void *)(w->buf + off + n / 7), n / 3 },
			{ (void *)(w->buf + off + n / 7 + n / 3),
			  n - n / 7 - n / 3 },
		};
		ssize_t r = writev(w->fd, iov, 3);

		if (r <= 0) {
			w->err = errno ? errno : -1;
			return NULL;
		}
		off += r;
	}
	return NULL;
}

TEST_F_TIMEOUT(io, writev_readv_recvmsg_waitall, 120)
{
	struct writer w = { .fd = self->fd, .buf = self->tx, .len = LEN };
	size_t got = 0;
	char peek[16];

	ASSERT_EQ(0, pthread_create(&w.thread, NULL, writev_main, &w));

	/* MSG_PEEK shows the first bytes and leaves them. */
	ASSERT_EQ(16, recv(self->c, peek, 16, MSG_PEEK | MSG_WAITALL));
	EXPECT_EQ(0, memcmp(peek, self->tx, 16));

	/* readv() of the first 100000 bytes into two buffers. */
	while (got < 100000) {
		struct iovec iov[2] = {
			{ self->rx + got, (100000 - got) / 2 + 1 },
			{ self->rx + got + (100000 - got) / 2 + 1,
			  (100000 - got) - ((100000 - got) / 2 + 1) },
		};
		ssize_t r = readv(self->c, iov, iov[1].iov_len ? 2 : 1);

		ASSERT_LT(0, r);
		got += r;
	}
	/* recvmsg(MSG_WAITALL) of the rest into three iovecs at once. */
	{
		size_t rest = LEN - got;
		struct iovec iov[3] = {
			{ self->rx + got, 1 },
			{ self->rx + got + 1, rest / 2 },
			{ self->rx + got + 1 + rest / 2, rest - 1 - rest / 2 },
		};
		struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 3 };

		EXPECT_EQ((ssize_t)rest, recvmsg(self->c, &mh, MSG_WAITALL));
		EXPECT_EQ(0, mh.msg_flags & MSG_TRUNC);
	}
	pthread_join(w.thread, NULL);
	EXPECT_EQ(0, w.err);
	EXPECT_EQ(0, memcmp(self->tx, self->rx, LEN));
}

static void *sendfile_main(void *arg)
{
	struct writer *w = arg;
	int mfd = memfd_create("psock", 0);
	off_t off = 0;

	if (mfd < 0 || write(mfd, w->buf, w->len) != (ssize_t)w->len) {
		w->err = errno;
		return NULL;
	}
	while ((size_t)off < w->len) {
		if (sendfile(w->fd, mfd, &off, w->len - off) <= 0) {
			w->err = errno ? errno : -1;
			break;
		}
	}
	close(mfd);
	return NULL;
}

TEST_F_TIMEOUT(io, sendfile_then_read, 120)
{
	struct writer w = { .fd = self->fd, .buf = self->tx, .len = LEN };

	ASSERT_EQ(0, pthread_create(&w.thread, NULL, sendfile_main, &w));
	EXPECT_EQ(0, read_full(self->c, self->rx, LEN));
	pthread_join(w.thread, NULL);
	EXPECT_EQ(0, w.err);
	EXPECT_EQ(0, memcmp(self->tx, self->rx, LEN));
}

/* Pipe in, splice() into the socket. */
static void *splice_in_main(void *arg)
{
	struct writer *w = arg;
	size_t off = 0;
	int p[2];

	if (pipe(p)) {
		w->err = errno;
		return NULL;
	}
	while (off < w->len) {
		ssize_t n = write(p[1], w->buf + off,
				  w->len - off < 65536 ? w->len - off : 65536);
		ssize_t left = n;

		if (n <= 0)
			break;
		while (left > 0) {
			ssize_t r = splice(p[0], NULL, w->fd, NULL, left, 0);

			if (r <= 0) {
				w->err = errno ? errno : -1;
				goto out;
			}
			left -= r;
		}
		off += n;
	}
out:
	close(p[0]);
	close(p[1]);
	return NULL;
}

TEST_F_TIMEOUT(io, splice_both_ways, 120)
{
	struct writer w = { .fd = self->fd, .buf = self->tx, .len = LEN };
	size_t got = 0;
	int p[2];

	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(0, pthread_create(&w.thread, NULL, splice_in_main, &w));
	/* The socket spliced into a pipe, the pipe read. */
	while (got < LEN) {
		ssize_t r = splice(self->c, NULL, p[1], NULL, LEN - got, 0);

		ASSERT_LT(0, r);
		ASSERT_EQ(0, read_full(p[0], self->rx + got, r));
		got += r;
	}
	pthread_join(w.thread, NULL);
	EXPECT_EQ(0, w.err);
	EXPECT_EQ(0, memcmp(self->tx, self->rx, LEN));
	/* Then the end of stream, through splice() too. */
	ASSERT_EQ(0, shutdown(self->fd, SHUT_WR));
	EXPECT_EQ(0, splice(self->c, NULL, p[1], NULL, 4096, 0));
	close(p[0]);
	close(p[1]);
}

/*
 * read()/write() and send()/recv() with MSG_DONTWAIT on one connection;
 * 100000 bytes each way fit in the subflows' buffers, so one thread can
 * write before it reads.
 */
TEST_F_TIMEOUT(io, write_read_dontwait, 120)
{
	const size_t n = 100000;
	uint8_t b;

	EXPECT_EQ(-1, recv(self->c, &b, 1, MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);
	EXPECT_EQ((ssize_t)n, write(self->fd, self->tx, n));
	EXPECT_EQ(0, read_full(self->c, self->rx, n));
	EXPECT_EQ((ssize_t)n, send(self->c, self->tx + n, n, 0));
	EXPECT_EQ(0, read_full(self->fd, self->rx + n, n));
	EXPECT_EQ(0, memcmp(self->tx, self->rx, 2 * n));
	EXPECT_EQ(-1, recv(self->fd, &b, 1, MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);
}

/*
 * poll() reports POLLIN for data (or an end, or an error), never for the
 * peer's acks alone: a writer whose peer reads every block gets the
 * peer's acks on its subflows, and a poll() or select() that woke for
 * them would send a blocking read to sleep for good (iperf3's server).
 */
TEST_F_TIMEOUT(io, poll_in_only_for_data, 120)
{
	struct pollfd pfd = { .fd = self->fd, .events = POLLIN };
	const size_t n = 1000;
	uint8_t b;
	int i;

	for (i = 0; i < 10; i++) {
		ASSERT_EQ((ssize_t)n, write(self->fd, self->tx + i * n, n));
		ASSERT_EQ(0, read_full(self->c, self->rx + i * n, n));
		usleep(200 * 1000);	/* the acks reach the writer */
		pfd.revents = 0;
		EXPECT_EQ(0, poll(&pfd, 1, 0)) {
			TH_LOG("round %d: revents 0x%x", i, pfd.revents);
		}
		EXPECT_EQ(-1, recv(self->fd, &b, 1, MSG_DONTWAIT));
		EXPECT_EQ(EAGAIN, errno);
	}
	EXPECT_EQ(0, memcmp(self->tx, self->rx, 10 * n));
	/* Data makes it readable again. */
	ASSERT_EQ(1, write(self->c, "x", 1));
	EXPECT_EQ(1, poll(&pfd, 1, 5000));
	EXPECT_EQ(POLLIN, pfd.revents & POLLIN);
	EXPECT_EQ(1, recv(self->fd, &b, 1, 0));
	EXPECT_EQ('x', b);
}

/*
 * The peer's end of stream makes poll() and a level-triggered epoll say
 * POLLIN and POLLRDHUP even when the socket's work, not a reader, took
 * its header off the subflow.  The work runs on the peer's blocks when
 * acks are urgent: here the server's own end of stream waits for the
 * client's ack (the client reads nothing).  It took the client's
 * end-of-stream header and poll() looked only at the bytes TCP held
 * (none: that block has no payload); a proxy waiting in epoll never read
 * the end (psock-gw).
 */
TEST_F_TIMEOUT(io, poll_in_for_end_taken_by_work, 120)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP }, got;
	struct pollfd pfd = { .fd = self->c, .events = POLLIN | POLLRDHUP };
	const size_t n = 1000;
	int ep, i;

	ASSERT_EQ((ssize_t)n, write(self->fd, self->tx, n));
	ASSERT_EQ(0, read_full(self->c, self->rx, n));
	ASSERT_EQ((ssize_t)n, write(self->c, self->tx, n));
	ASSERT_EQ(0, shutdown(self->c, SHUT_WR));
	usleep(200 * 1000);	/* the server's end reaches the client */
	ASSERT_EQ(0, shutdown(self->fd, SHUT_WR));
	usleep(500 * 1000);	/* the client's end reaches the server's work */
	ep = epoll_create1(0);
	ASSERT_LE(0, ep);
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, self->c, &ev));
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(1, poll(&pfd, 1, 0)) {
			TH_LOG("poll %d: revents 0x%x", i, pfd.revents);
		}
		EXPECT_EQ(POLLIN | POLLRDHUP,
			  pfd.revents & (POLLIN | POLLRDHUP));
		EXPECT_EQ(1, epoll_wait(ep, &got, 1, 0))
			TH_LOG("epoll_wait %d", i);
		EXPECT_EQ(EPOLLIN | EPOLLRDHUP,
			  got.events & (EPOLLIN | EPOLLRDHUP));
	}
	EXPECT_EQ(0, recv(self->c, self->rx, 1, MSG_DONTWAIT));
	EXPECT_EQ(0, read_full(self->fd, self->rx, n));
	EXPECT_EQ(0, memcmp(self->tx, self->rx, n));
	close(ep);
}

TEST_HARNESS_MAIN
