// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation failures of a PSOCK connection, made with fail_function
 * (Documentation/psock.rst, "Errors"): the module's allocators
 * pstripe_blk_alloc() (every block, the end-of-stream block, the blocks
 * taken ahead of their turn) and pstripe_sf_alloc() (every subflow, those
 * a listener accepts) fail exactly once, when the connection is set up
 * and nothing else allocates.  As TCP's, a connection never reports our
 * own memory shortage as the peer's error:
 *
 * - a block that cannot be taken ahead of its turn stays in its subflow
 *   and is taken again shortly: the reader sees neither ENOMEM nor
 *   EPROTO, only the data, later;
 * - an end-of-stream block that cannot be queued is queued again shortly:
 *   the peer still reads the end of the stream;
 * - a connection the listener cannot take (no memory for its subflow) is
 *   reset, with the listener's callbacks back on it; the listener goes on.
 *
 * Debian's kernels have no CONFIG_FAIL_FUNCTION: every test is skipped
 * there, with the reason, which the VM harness accepts for them.
 */
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>

#include "psock_lib.h"
#include "kselftest_harness.h"

#define LEN_FIN		0x40000000U
#define FAIL_FN		"/sys/kernel/debug/fail_function/"
#define NO_FAIL_FN	"no fail_function in this kernel (CONFIG_FAIL_FUNCTION)"

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
 * The next @times calls of @fn (a function returning NULL on failure)
 * fail, whoever makes them (the listener's work runs in a kworker):
 * only this test's sockets exist.  The count is set before the function
 * is named, the probability last, so that nothing a previous program
 * left armed fails more calls.  0 or -1.
 */
static int fail_function(const char *fn, int times)
{
	if (write_line(FAIL_FN "probability", "0\n") ||
	    write_line(FAIL_FN "times", "%d\n", times) ||
	    write_line(FAIL_FN "interval", "1\n") ||
	    write_line(FAIL_FN "verbose", "0\n") ||
	    write_line(FAIL_FN "task-filter", "N\n") ||
	    write_line(FAIL_FN "inject", "%s\n", fn))
		return -1;
	return write_line(FAIL_FN "probability", "100\n");
}

static void fail_function_stop(void)
{
	write_line(FAIL_FN "probability", "0\n");
	write_line(FAIL_FN "inject", "\n");
}

/* Failures fail_function has still to make: -1 if unknown. */
static int fail_function_left(void)
{
	FILE *f = fopen(FAIL_FN "times", "r");
	int n = -1;

	if (f) {
		if (fscanf(f, "%d", &n) != 1)
			n = -1;
		fclose(f);
	}
	return n;
}

static void hello_init(struct hello *h, int type)
{
	memset(h, 0, sizeof(*h));
	h->magic = htonl(MAGIC);
	h->version = 1;
	h->type = type;
	h->rcmd = 1;
	h->max = 1;
}

/* Read exactly @len bytes, each poll() within 10 s: 0, or -1 (errno). */
static int read_full(int fd, void *buf, size_t len)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	size_t got = 0;

	while (got < len) {
		ssize_t r;

		if (poll(&p, 1, 10000) != 1) {
			errno = ETIMEDOUT;
			return -1;
		}
		r = recv(fd, (char *)buf + got, len - got, MSG_DONTWAIT);
		if (r < 0 && errno == EAGAIN)
			continue;
		if (r <= 0) {
			if (!r)
				errno = EPIPE;
			return -1;
		}
		got += r;
	}
	return 0;
}

/*
 * A raw one-subflow PSOCK client of listener @lfd on @port (a plain TCP
 * socket speaking the handshake: it allocates nothing of the module's):
 * its socket in *@fd, the server's end (accepted) returned; -1 on a
 * failure.
 */
static int raw_client1(int lfd, int port, int *fd)
{
	char probe = (char)0xa5;
	struct hello h, c;

	*fd = socket(AF_INET, SOCK_STREAM, 0);
	if (*fd < 0 || lo_connect(*fd, AF_INET, port) ||
	    send(*fd, &probe, 1, MSG_OOB) != 1 ||
	    read_full(*fd, &h, sizeof(h)) || h.type != T_SHELLO)
		return -1;
	hello_init(&c, T_CHELLO);
	c.n = 1;
	c.token = h.token;
	if (send(*fd, &c, sizeof(c), 0) != sizeof(c))
		return -1;
	return accept(lfd, NULL, NULL);
}

/* Block @seq of @len bytes of 'A' + seq on raw subflow @fd: 0 or -1. */
static int send_blk(int fd, uint32_t seq, uint32_t len)
{
	uint32_t hdr[2] = { htonl(seq), htonl(len) };
	char payload[256];

	assert(len <= sizeof(payload));
	memset(payload, 'A' + seq, len);
	if (send(fd, hdr, sizeof(hdr), 0) != sizeof(hdr))
		return -1;
	return send(fd, payload, len, 0) == (ssize_t)len ? 0 : -1;
}

/* Read @len bytes of @c from @fd: 0, or -1. */
static int recv_blk(int fd, char c, size_t len)
{
	char buf[256];
	size_t i;

	assert(len <= sizeof(buf));
	if (read_full(fd, buf, len))
		return -1;
	for (i = 0; i < len; i++)
		if (buf[i] != c)
			return -1;
	return 0;
}

/* The end of the stream on @fd within 10 s: 0, or -1 (errno). */
static int recv_eof(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char c;

	if (poll(&p, 1, 10000) != 1) {
		errno = ETIMEDOUT;
		return -1;
	}
	return recv(fd, &c, 1, MSG_DONTWAIT) ? -1 : 0;
}

FIXTURE(fault)
{
	int lfd, port;
};

FIXTURE_SETUP(fault)
{
	self->lfd = -1;
	ASSERT_EQ(0, netns_lo());
	self->lfd = lo_listen(AF_INET, IPPROTO_PSOCK, &self->port);
	ASSERT_LE(0, self->lfd);
}

FIXTURE_TEARDOWN(fault)
{
	fail_function_stop();
	if (self->lfd >= 0)
		close(self->lfd);
}

/* A connected PSOCK pair on @lfd: the client in *@c, the server's end returned. */
static int psock_pair(int lfd, int port, int *c)
{
	*c = socket(AF_INET, SOCK_STREAM, IPPROTO_PSOCK);
	if (*c < 0 || lo_connect(*c, AF_INET, port))
		return -1;
	return accept(lfd, NULL, NULL);
}

/* "ping" from @a to @b and "pong" back: 0, or -1. */
static int ping_pong(int a, int b)
{
	char buf[4];

	if (send(a, "ping", 4, 0) != 4 || read_full(b, buf, 4) ||
	    memcmp(buf, "ping", 4) || send(b, "pong", 4, 0) != 4 ||
	    read_full(a, buf, 4) || memcmp(buf, "pong", 4))
		return -1;
	return 0;
}

/*
 * Block 1 ahead of block 0 on the one subflow: the reader must take it
 * aside (the reorder queue) to reach block 0, and that allocation fails.
 * The block stays in the subflow and is taken again: the reader gets
 * blocks 0 and 1 in order, no error, and the connection is not reset.
 */
TEST_F_TIMEOUT(fault, pull_enomem_blocking, 60)
{
	struct timeval tv = { .tv_sec = 10 };
	char buf[200];
	size_t got = 0;
	int fd, a;

	if (access(FAIL_FN "inject", W_OK))
		SKIP(return, NO_FAIL_FN);
	a = raw_client1(self->lfd, self->port, &fd);
	ASSERT_LE(0, a);
	ASSERT_EQ(0, setsockopt(a, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
	ASSERT_EQ(0, fail_function("pstripe_blk_alloc", 1));
	ASSERT_EQ(0, send_blk(fd, 1, 100));
	ASSERT_EQ(0, send_blk(fd, 0, 100));
	while (got < sizeof(buf)) {
		ssize_t r = recv(a, buf + got, sizeof(buf) - got, 0);

		ASSERT_LT(0, r) TH_LOG("recv after %zu bytes: %s", got,
				       r ? strerror(errno) : "end of stream");
		got += r;
	}
	EXPECT_EQ(0, fail_function_left()) TH_LOG("the allocation never failed");
	fail_function_stop();
	EXPECT_EQ(0, memcmp(buf, "AAAA", 4));
	EXPECT_EQ('A', buf[99]);
	EXPECT_EQ('B', buf[100]);
	EXPECT_EQ('B', buf[199]);
	/* Still a connection: more data, then the peer's end. */
	ASSERT_EQ(0, send_blk(fd, 2, 50));
	EXPECT_EQ(0, recv_blk(a, 'C', 50));
	/* A FIN: a close() would reset, with our acks unread in @fd. */
	shutdown(fd, SHUT_WR);
	EXPECT_EQ(0, recv_eof(a)) TH_LOG("%s", strerror(errno));
	close(a);
	close(fd);
}

/*
 * The same without waiting: block 1 alone, its allocation failing, is no
 * data to read: poll() does not report POLLIN (it looks as a read would,
 * and meets the failure) and recv(MSG_DONTWAIT) says EAGAIN (not ENOMEM,
 * not EPROTO); once block 0 comes, poll() reports POLLIN and the data
 * follows; once block 0 is read, block 1 waits at the head of the reorder
 * queue with nothing more in the subflow, and is read too.
 */
TEST_F_TIMEOUT(fault, pull_enomem_nonblocking, 60)
{
	struct pollfd p = { .events = POLLIN };
	char buf[100];
	int fd, a;

	if (access(FAIL_FN "inject", W_OK))
		SKIP(return, NO_FAIL_FN);
	a = raw_client1(self->lfd, self->port, &fd);
	ASSERT_LE(0, a);
	p.fd = a;
	ASSERT_EQ(0, fail_function("pstripe_blk_alloc", 1));
	ASSERT_EQ(0, send_blk(fd, 1, 100));
	EXPECT_EQ(0, poll(&p, 1, 2000)) TH_LOG("revents %#x", p.revents);
	EXPECT_EQ(-1, recv(a, buf, sizeof(buf), MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno) TH_LOG("recv: %s", strerror(errno));
	EXPECT_EQ(0, fail_function_left()) TH_LOG("the allocation never failed");
	fail_function_stop();
	ASSERT_EQ(0, send_blk(fd, 0, 100));
	EXPECT_EQ(1, poll(&p, 1, 10000));
	EXPECT_EQ(0, recv_blk(a, 'A', 100)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(0, recv_blk(a, 'B', 100)) TH_LOG("%s", strerror(errno));
	shutdown(fd, SHUT_WR);
	EXPECT_EQ(0, recv_eof(a)) TH_LOG("%s", strerror(errno));
	close(a);
	close(fd);
}

/*
 * shutdown(SHUT_WR) whose end-of-stream block cannot be allocated: it is
 * queued again shortly, and the peer reads the end of the stream (before,
 * it waited for ever: the subflows' FINs wait for that block).  The other
 * direction goes on.
 */
TEST_F_TIMEOUT(fault, shutdown_fin_enomem, 60)
{
	int c, a;

	if (access(FAIL_FN "inject", W_OK))
		SKIP(return, NO_FAIL_FN);
	a = psock_pair(self->lfd, self->port, &c);
	ASSERT_LE(0, a);
	ASSERT_EQ(0, ping_pong(c, a));
	ASSERT_EQ(0, fail_function("pstripe_blk_alloc", 1));
	ASSERT_EQ(0, shutdown(c, SHUT_WR));
	EXPECT_EQ(0, recv_eof(a)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(0, fail_function_left()) TH_LOG("the allocation never failed");
	fail_function_stop();
	EXPECT_EQ(3, send(a, "bye", 3, 0));
	{
		char buf[3];

		EXPECT_EQ(0, read_full(c, buf, 3));
		EXPECT_EQ(0, memcmp(buf, "bye", 3));
	}
	close(a);
	EXPECT_EQ(0, recv_eof(c)) TH_LOG("%s", strerror(errno));
	close(c);
}

/* close() whose end-of-stream block cannot be allocated: the peer reads the end. */
TEST_F_TIMEOUT(fault, close_fin_enomem, 60)
{
	int c, a;

	if (access(FAIL_FN "inject", W_OK))
		SKIP(return, NO_FAIL_FN);
	a = psock_pair(self->lfd, self->port, &c);
	ASSERT_LE(0, a);
	ASSERT_EQ(0, ping_pong(c, a));
	ASSERT_EQ(0, fail_function("pstripe_blk_alloc", 1));
	close(c);
	EXPECT_EQ(0, recv_eof(a)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(0, fail_function_left()) TH_LOG("the allocation never failed");
	close(a);
}

/*
 * The listener has no memory for the subflow of a connection it accepted
 * from TCP: that connection is reset (the client is told at once, instead
 * of a FIN it would take for a server that closed), with the TCP
 * listener's callbacks back on it (ours would outlive the module on the
 * orphaned socket; the debug kernel's detectors watch the rest); the
 * listener goes on, and the next connection works.  The client is a
 * plain TCP socket that sends nothing: the listener's is the only
 * subflow allocated, and nothing unread makes the kernel reset it anyway.
 */
TEST_F_TIMEOUT(fault, accept_wrap_enomem, 60)
{
	struct pollfd p = { .events = POLLIN };
	int fd, c, a;
	char buf[8];

	if (access(FAIL_FN "inject", W_OK))
		SKIP(return, NO_FAIL_FN);
	ASSERT_EQ(0, fail_function("pstripe_sf_alloc", 1));
	fd = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT_LE(0, fd);
	/*
	 * The reset can reach the client before its connect() returns: then
	 * connect() reports it, which is the same outcome.
	 */
	if (lo_connect(fd, AF_INET, self->port)) {
		ASSERT_EQ(ECONNRESET, errno) TH_LOG("connect: %s", strerror(errno));
	} else {
		p.fd = fd;
		ASSERT_EQ(1, poll(&p, 1, 10000)) TH_LOG("the listener kept it");
		EXPECT_EQ(-1, recv(fd, buf, sizeof(buf), MSG_DONTWAIT))
			TH_LOG("a close, not a reset");
		EXPECT_EQ(ECONNRESET, errno) TH_LOG("recv: %s", strerror(errno));
	}
	EXPECT_EQ(0, fail_function_left()) TH_LOG("the allocation never failed");
	fail_function_stop();
	close(fd);

	a = psock_pair(self->lfd, self->port, &c);
	ASSERT_LE(0, a);
	EXPECT_EQ(0, ping_pong(c, a));
	close(c);
	EXPECT_EQ(0, recv_eof(a)) TH_LOG("%s", strerror(errno));
	close(a);
}

TEST_HARNESS_MAIN
