// SPDX-License-Identifier: GPL-2.0
/*
 * close() of a PSOCK connection behaves as TCP's (Documentation/psock.rst,
 * "close()"): it returns at once, and the blocks the peer has not
 * acknowledged yet are still delivered by the orphaned socket; SO_LINGER
 * with a time waits at most that long; SO_LINGER {1, 0} and data left
 * unread reset the connection; an orphan whose peer acknowledges nothing
 * for 4 x stale_timeout_ms is reset and counted in CloseTimeouts; a
 * subflow reset while the orphan still has blocks to deliver has them
 * resent on the others; a signal cuts SO_LINGER's wait short and the rest
 * is still delivered.  The peer here does not read until the close()
 * returned, so nothing is acknowledged before.
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <sys/time.h>
#include <sys/wait.h>

#include "psock_lib.h"
#include "kselftest_harness.h"

#define STALE_MS	1000
#define BUDGET_MS	(4 * STALE_MS)
#define BIG		(16 << 20)

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int set_sysctl(const char *path, int val)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fprintf(f, "%d\n", val);
	return fclose(f) ? -1 : 0;
}

FIXTURE(cl)
{
	int lfd, port, c, a;
	uint8_t *buf;
};

FIXTURE_VARIANT(cl)
{
	int family;
};

FIXTURE_VARIANT_ADD(cl, v4)
{
	.family = AF_INET,
};

FIXTURE_VARIANT_ADD(cl, v6)
{
	.family = AF_INET6,
};

FIXTURE_SETUP(cl)
{
	struct pattern p;

	ASSERT_EQ(0, netns_lo());
	ASSERT_EQ(0, set_sysctl("/proc/sys/net/psock/stale_timeout_ms",
				STALE_MS));
	self->lfd = lo_listen(variant->family, IPPROTO_PSOCK, &self->port);
	ASSERT_LE(0, self->lfd);
	self->c = socket(variant->family, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, self->c);
	ASSERT_EQ(0, lo_connect(self->c, variant->family, self->port));
	self->a = accept(self->lfd, NULL, NULL);
	ASSERT_LE(0, self->a);
	self->buf = malloc(BIG);
	ASSERT_NE(NULL, self->buf);
	pattern_init(&p, 5);
	pattern_fill(&p, self->buf, BIG);
}

FIXTURE_TEARDOWN(cl)
{
	free(self->buf);
	if (self->a >= 0)
		close(self->a);
	if (self->c >= 0)
		close(self->c);
	close(self->lfd);
}

/*
 * Send pattern 5 until the socket stays full for 300 ms (the peer does
 * not read) or @max bytes went; the bytes sent.
 */
static size_t fill(int fd, const uint8_t *buf, size_t max)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	size_t off = 0;

	while (off < max) {
		ssize_t r = send(fd, buf + off, max - off,
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (r > 0) {
			off += r;
			continue;
		}
		if (poll(&p, 1, 300) != 1)
			break;
	}
	return off;
}

/* Read to the end: the bytes read, or -errno. */
static long drain(int fd, const uint8_t *want)
{
	static uint8_t b[65536];
	long got = 0;

	for (;;) {
		ssize_t r = recv(fd, b, sizeof(b), 0);

		if (r < 0)
			return -errno;
		if (!r)
			return got;
		if (got + r > BIG || memcmp(b, want + got, r))
			return -EBADMSG;
		got += r;
	}
}

static int peer_status(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static double timed_close(int *fd)
{
	double t = now_ms();

	close(*fd);
	*fd = -1;
	return now_ms() - t;
}

/*
 * A peer that does not read yet: close() returns at once (before, it
 * waited for acknowledgments that could not come), and every byte still
 * arrives once the peer reads, then the end of stream.
 */
TEST_F_TIMEOUT(cl, returns_at_once_and_delivers, 120)
{
	size_t sent = fill(self->c, self->buf, BIG);

	ASSERT_LT(256 << 10, sent);
	EXPECT_GT(500, timed_close(&self->c));
	usleep(300000);
	EXPECT_EQ((long)sent, drain(self->a, self->buf));
	EXPECT_EQ(0, psock_counter("CloseTimeouts"));
}

/* An exiting process is not held by its PSOCK sockets either. */
TEST_F_TIMEOUT(cl, exit_not_held, 120)
{
	double t;
	size_t sent;
	pid_t pid;
	int st;

	sent = fill(self->c, self->buf, BIG);
	ASSERT_LT(256 << 10, sent);
	t = now_ms();
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(0);	/* the last holder of the socket: exit closes it */
	close(self->c);
	self->c = -1;
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_GT(500, now_ms() - t);
	EXPECT_EQ((long)sent, drain(self->a, self->buf));
}

/*
 * Nor by SO_LINGER's time, as TCP's (inet_release() passes no time then):
 * before, the exit waited the whole 10 s for acknowledgments of a peer
 * that does not read.
 */
TEST_F_TIMEOUT(cl, exit_not_held_by_linger, 120)
{
	struct linger l = { .l_onoff = 1, .l_linger = 10 };
	int go[2], st;
	double t;
	size_t sent;
	pid_t pid;
	char b;

	ASSERT_EQ(0, setsockopt(self->c, SOL_SOCKET, SO_LINGER, &l,
				sizeof(l)));
	sent = fill(self->c, self->buf, BIG);
	ASSERT_LT(256 << 10, sent);
	ASSERT_EQ(0, pipe(go));
	t = now_ms();
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		/* The last holder of the socket, once the parent closed it. */
		_exit(read(go[0], &b, 1) == 1 ? 0 : 1);
	}
	close(self->c);
	self->c = -1;
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	close(go[0]);
	close(go[1]);
	EXPECT_GT(500, now_ms() - t);
	EXPECT_EQ((long)sent, drain(self->a, self->buf));
}

/*
 * SO_LINGER with a time: close() waits for the acknowledgments that long
 * and no longer; the rest is still delivered.
 */
TEST_F_TIMEOUT(cl, linger_waits_its_time, 120)
{
	struct linger l = { .l_onoff = 1, .l_linger = 1 };
	size_t sent;
	double t;

	ASSERT_EQ(0, setsockopt(self->c, SOL_SOCKET, SO_LINGER, &l,
				sizeof(l)));
	sent = fill(self->c, self->buf, BIG);
	ASSERT_LT(256 << 10, sent);
	t = timed_close(&self->c);
	EXPECT_LT(900, t);
	EXPECT_GT(BUDGET_MS, t);
	EXPECT_EQ((long)sent, drain(self->a, self->buf));
}

/* SO_LINGER {1, 0}: close() resets the connection, the peer sees it. */
TEST_F_TIMEOUT(cl, linger_zero_resets, 120)
{
	struct linger l = { .l_onoff = 1, .l_linger = 0 };

	ASSERT_EQ(0, setsockopt(self->c, SOL_SOCKET, SO_LINGER, &l,
				sizeof(l)));
	ASSERT_LT(256 << 10, fill(self->c, self->buf, BIG));
	EXPECT_GT(500, timed_close(&self->c));
	EXPECT_EQ(-ECONNRESET, drain(self->a, self->buf));
}

/* Data left unread: close() resets the connection, as TCP's does. */
TEST_F_TIMEOUT(cl, unread_data_resets, 120)
{
	struct pollfd p = { .fd = self->c, .events = POLLIN };

	ASSERT_EQ(4, send(self->a, "ping", 4, 0));
	ASSERT_EQ(1, poll(&p, 1, 5000));
	ASSERT_LT(256 << 10, fill(self->c, self->buf, BIG));
	EXPECT_GT(500, timed_close(&self->c));
	EXPECT_EQ(-ECONNRESET, drain(self->a, self->buf));
}

/* Subflow @index of @fd: its local port, or -1. */
static int sf_port(int fd, unsigned int index)
{
	struct psock_info_buf ib;
	unsigned int i;

	if (psock_info(fd, &ib))
		return -1;
	for (i = 0; i < ib.h.num && i < PSOCK_STREAM_CNT_LIMIT; i++)
		if (ib.sf[i].index == index)
			return ib.sf[i].local_port;
	return -1;
}

/* Segments the reset rule of reset_port() rejected, or -1. */
static long resets_sent(void)
{
	char line[256];
	long n = -1, sum = 0;
	FILE *f;

	f = popen("nft list chain inet psock_cut input", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "counter packets ");

		if (p && sscanf(p, "counter packets %ld", &n) == 1)
			sum += n;
	}
	if (pclose(f) || n < 0)
		return -1;
	return sum;
}

/*
 * Cut the TCP connection of local port @port: from now on every segment
 * of it, either way, draws a TCP reset to its sender (resets themselves
 * pass), so both of its ends are reset as soon as they send.  The table
 * is made again each time: a first call (port 0, matching nothing) loads
 * nftables' modules, which takes seconds under TCG.
 */
static int reset_port(int port)
{
	char cmd[640];

	snprintf(cmd, sizeof(cmd),
		 "nft -f - <<EOF\n"
		 "table inet psock_cut\n"
		 "delete table inet psock_cut\n"
		 "table inet psock_cut {\n"
		 " chain input {\n"
		 "  type filter hook input priority 0; policy accept;\n"
		 "  tcp flags & rst == 0 tcp sport %d counter reject with tcp reset\n"
		 "  tcp flags & rst == 0 tcp dport %d counter reject with tcp reset\n"
		 " }\n"
		 "}\n"
		 "EOF\n", port, port);
	return system(cmd);
}

/*
 * A data subflow reset while the closed socket still has blocks to
 * deliver: the orphan resends that subflow's blocks on the subflows left,
 * and the peer reads every byte intact, then the end of the stream
 * (psock.rst, "close()": "resending the blocks of a subflow that fails
 * meanwhile"; "Subflow failure": nothing is lost or duplicated).
 */
TEST_F_TIMEOUT(cl, subflow_reset_during_close, 120)
{
	size_t sent = fill(self->c, self->buf, BIG);
	int port = sf_port(self->c, 1);

	ASSERT_LT(256 << 10, sent);
	ASSERT_LT(0, port);
	ASSERT_EQ(0, reset_port(0));
	EXPECT_GT(500, timed_close(&self->c));
	ASSERT_EQ(0, reset_port(port));
	/* The peer reads: it acknowledges on subflow 1 too, and is reset. */
	EXPECT_EQ((long)sent, drain(self->a, self->buf));
	EXPECT_LT(0, resets_sent());
	EXPECT_EQ(0, psock_counter("CloseTimeouts"));
}

static void on_alarm(int sig)
{
	(void)sig;
}

/*
 * SO_LINGER with a time, cut short by a signal whose handler has no
 * SA_RESTART: close() returns once the signal comes (psock.rst: "wait
 * that long first (less when a signal comes)"), 0 as TCP's, with the
 * descriptor gone; and what was sent is still delivered whole by the
 * orphan, then the end of the stream: never part of a block.
 */
TEST_F_TIMEOUT(cl, linger_cut_by_signal, 120)
{
	struct linger l = { .l_onoff = 1, .l_linger = 30 };
	struct itimerval it = { .it_value = { .tv_usec = 300000 } };
	struct sigaction sa = { .sa_handler = on_alarm };
	size_t sent;
	double t;
	int fd, r;

	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	ASSERT_EQ(0, setsockopt(self->c, SOL_SOCKET, SO_LINGER, &l,
				sizeof(l)));
	sent = fill(self->c, self->buf, BIG);
	ASSERT_LT(256 << 10, sent);
	fd = self->c;
	self->c = -1;
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &it, NULL));
	t = now_ms();
	r = close(fd);
	t = now_ms() - t;
	EXPECT_EQ(0, r);
	EXPECT_EQ(-1, fcntl(fd, F_GETFD));
	EXPECT_EQ(EBADF, errno);
	TH_LOG("close() returned after %.0f ms", t);
	EXPECT_LT(250, t);	/* it lingered until the signal */
	EXPECT_GT(3000, t);	/* and no longer */
	EXPECT_EQ((long)sent, drain(self->a, self->buf));
	EXPECT_EQ(0, psock_counter("CloseTimeouts"));
}

/*
 * TCP sockets of @port (either end) that a struct socket still holds (a
 * nonzero inode: ours in the graveyard, not yet released), listeners
 * left out.
 */
static int held_tcp(int port)
{
	static const char *const files[] = { "/proc/net/tcp", "/proc/net/tcp6" };
	static const char fmt[] =
		" %*d: %*[0-9A-Fa-f]:%x %*[0-9A-Fa-f]:%x %x %*s %*s %*s %*s %*s %lu";
	unsigned int lport, rport, st;
	unsigned long inode;
	char line[512];
	int n = 0, i;

	for (i = 0; i < 2; i++) {
		FILE *f = fopen(files[i], "r");

		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, fmt, &lport, &rport, &st,
				   &inode) == 4 &&
			    (lport == (unsigned int)port ||
			     rport == (unsigned int)port) &&
			    inode && st != 0x0a)
				n++;
		fclose(f);
	}
	return n;
}

/*
 * The graveyard lets a closed connection's subflows go as soon as the
 * peer closes too (its FIN is an event; nothing waits for a timer), not
 * after the graveyard's 60 s.
 */
TEST_F_TIMEOUT(cl, graveyard_lets_go_at_peer_close, 120)
{
	size_t sent = fill(self->c, self->buf, 1 << 20);
	double t;
	int n;

	ASSERT_LT(0, sent);
	ASSERT_LT(0, held_tcp(self->port));
	close(self->c);
	self->c = -1;
	EXPECT_EQ((long)sent, drain(self->a, self->buf));
	close(self->a);
	self->a = -1;
	t = now_ms();
	while ((n = held_tcp(self->port)) && now_ms() - t < 10000)
		usleep(20000);
	EXPECT_EQ(0, n);
	TH_LOG("released %.0f ms after the peer's close()", now_ms() - t);
}

/*
 * A peer that never reads: the orphan gives up 4 x stale_timeout_ms after
 * the last acknowledgment, resets the connection, counts it.
 */
TEST_F_TIMEOUT(cl, silent_peer_reset_after_budget, 120)
{
	struct pollfd p = { .fd = -1, .events = POLLIN };
	long before = psock_counter("CloseTimeouts");
	double t;
	int i;

	ASSERT_LE(0, before);
	ASSERT_LT(256 << 10, fill(self->c, self->buf, BIG));
	t = now_ms();
	EXPECT_GT(500, timed_close(&self->c));
	/* The counter moves within the budget and some. */
	for (i = 0; i < 200 && psock_counter("CloseTimeouts") == before; i++)
		usleep(50000);
	EXPECT_EQ(before + 1, psock_counter("CloseTimeouts"));
	EXPECT_LT(BUDGET_MS - 200, now_ms() - t);
	/* The peer sees a reset after what was buffered. */
	p.fd = self->a;
	EXPECT_EQ(1, poll(&p, 1, 1000));
	EXPECT_EQ(-ECONNRESET, drain(self->a, self->buf));
}

/*
 * A PSOCK client that fell back to TCP (its server is plain TCP): close()
 * is tcp_close(), SO_LINGER included.  @c is the PSOCK end, @a the
 * server's.
 */
FIXTURE(fb)
{
	int lfd, port, c, a;
	uint8_t *buf;
};

FIXTURE_SETUP(fb)
{
	struct psock_info_buf info;
	struct pattern p;

	self->lfd = -1;
	self->c = -1;
	self->a = -1;
	self->buf = NULL;
	ASSERT_EQ(0, netns_lo());
	ASSERT_EQ(0, set_sysctl("/proc/sys/net/psock/hello_timeout_ms", 100));
	self->lfd = lo_listen(AF_INET, IPPROTO_TCP, &self->port);
	ASSERT_LE(0, self->lfd);
	self->c = socket(AF_INET, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, self->c);
	ASSERT_EQ(0, lo_connect(self->c, AF_INET, self->port));
	self->a = accept(self->lfd, NULL, NULL);
	ASSERT_LE(0, self->a);
	ASSERT_EQ(0, psock_info(self->c, &info));
	ASSERT_TRUE(info.h.flags & PSOCK_INFO_FALLBACK);
	self->buf = malloc(BIG);
	ASSERT_NE(NULL, self->buf);
	pattern_init(&p, 5);
	pattern_fill(&p, self->buf, BIG);
}

FIXTURE_TEARDOWN(fb)
{
	free(self->buf);
	if (self->a >= 0)
		close(self->a);
	if (self->c >= 0)
		close(self->c);
	if (self->lfd >= 0)
		close(self->lfd);
}

/*
 * With SO_LINGER {1, @secs}, fill the PSOCK end while the server reads
 * nothing, have a child read it all after @read_ms, and close(): how long
 * close() took; *@status is the child's (0: every byte, then the end).
 */
static double fb_linger_close(struct __test_metadata *_metadata,
			      struct _test_data_fb *self, int secs, int read_ms,
			      int *status)
{
	struct linger l = { .l_onoff = 1, .l_linger = secs };
	int sync[2];
	size_t sent;
	double t;
	pid_t pid;
	char b;

	EXPECT_EQ(0, setsockopt(self->c, SOL_SOCKET, SO_LINGER, &l,
				sizeof(l)));
	sent = fill(self->c, self->buf, BIG);
	EXPECT_LT(64 << 10, sent);
	EXPECT_EQ(0, pipe(sync));
	pid = fork();
	if (!pid) {
		/* The parent's close() must be the last: the release. */
		close(self->c);
		if (write(sync[1], "c", 1) != 1)
			_exit(2);
		usleep(read_ms * 1000);
		_exit(drain(self->a, self->buf) == (long)sent ? 0 : 1);
	}
	EXPECT_EQ(1, read(sync[0], &b, 1));
	close(sync[0]);
	close(sync[1]);
	close(self->a);
	self->a = -1;
	t = timed_close(&self->c);
	*status = pid > 0 ? peer_status(pid) : -1;
	return t;
}

/*
 * SO_LINGER with a time: close() sends the FIN and returns once the peer
 * acknowledged it, every byte before it read.  Before, close() returned
 * at once and left the rest to TCP's orphan, which TCP resets when its
 * memory runs short (load_test's lost echoes under tcp_mem pressure).
 */
TEST_F_TIMEOUT(fb, linger_waits_for_the_peer, 120)
{
	int status;
	double t = fb_linger_close(_metadata, self, 30, 1000, &status);

	EXPECT_LT(900, t);
	EXPECT_GT(20000, t);
	EXPECT_EQ(0, status);
}

/* ... and no longer than its time; the rest is still delivered. */
TEST_F_TIMEOUT(fb, linger_waits_its_time, 120)
{
	int status;
	double t = fb_linger_close(_metadata, self, 1, 3000, &status);

	EXPECT_LT(900, t);
	EXPECT_GT(2500, t);
	EXPECT_EQ(0, status);
}

/* SO_LINGER {1, 0}: close() resets the connection, as TCP's. */
TEST_F_TIMEOUT(fb, linger_zero_resets, 120)
{
	struct linger l = { .l_onoff = 1, .l_linger = 0 };

	ASSERT_EQ(0, setsockopt(self->c, SOL_SOCKET, SO_LINGER, &l,
				sizeof(l)));
	ASSERT_LT(64 << 10, fill(self->c, self->buf, BIG));
	EXPECT_GT(500, timed_close(&self->c));
	EXPECT_EQ(-ECONNRESET, drain(self->a, self->buf));
}

/*
 * A fallback connection in a namespace of its own, whose peer vanished
 * behind a rule dropping every packet: close() leaves its TCP socket to
 * TCP, which retransmits (5 times, about 12 s, for an orphan here).  Run
 * in a child that waits on @go before it starts, after its namespace
 * was made; 0 when all went as planned.
 */
static int orphan_in_netns(int ready, int go)
{
	static char data[65536];
	struct linger z = { .l_onoff = 1, .l_linger = 0 };
	struct psock_info_buf info;
	int l, c, a, port;
	char b;

	if (netns_lo() || write(ready, "r", 1) != 1 || read(go, &b, 1) != 1)
		return 1;
	if (set_sysctl("/proc/sys/net/psock/hello_timeout_ms", 100) ||
	    set_sysctl("/proc/sys/net/ipv4/tcp_orphan_retries", 5))
		return 2;
	l = lo_listen(AF_INET, IPPROTO_TCP, &port);
	c = socket(AF_INET, SOCK_STREAM, IPPROTO_PSOCK);
	if (l < 0 || c < 0 || lo_connect(c, AF_INET, port))
		return 3;
	a = accept(l, NULL, NULL);
	if (a < 0 || psock_info(c, &info) ||
	    !(info.h.flags & PSOCK_INFO_FALLBACK))
		return 4;
	if (system("nft add table inet t") ||
	    system("nft 'add chain inet t o { type filter hook output priority 0; policy drop; }'"))
		return 5;
	if (send(c, data, sizeof(data), 0) != sizeof(data))
		return 6;
	/* The server goes at once (its reset is dropped too). */
	if (setsockopt(a, SOL_SOCKET, SO_LINGER, &z, sizeof(z)))
		return 7;
	close(a);
	close(l);
	close(c);
	return 0;
}

/* Is nsid @id (of this namespace) still given to a live namespace? */
static int nsid_listed(int id)
{
	char line[256];
	int found = 0, n;
	FILE *f;

	f = popen("ip netns list-id", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "nsid %d", &n) == 1 && n == id)
			found = 1;
	return pclose(f) ? -1 : found;
}

/*
 * The TCP sockets of a closed PSOCK connection hold their network
 * namespace while TCP's timers run, as a user's TCP socket does: after
 * "ip netns del" and the exit of its last process, the namespace lives
 * on until the orphan ends, then goes.  Without that reference the timers
 * ran in a namespace being freed (KASAN on kernels before 6.14, where
 * a kernel socket holds no reference at all).  The namespace is watched
 * through the nsid this namespace gives it.
 */
FIXTURE(orphan)
{
	int unused;
};

FIXTURE_SETUP(orphan)
{
}

FIXTURE_TEARDOWN(orphan)
{
}

TEST_F_TIMEOUT(orphan, tcp_orphan_holds_its_netns, 120)
{
	int ready[2], go[2], i, listed;
	char cmd[160], name[32];
	pid_t pid;

	ASSERT_EQ(0, netns_lo());
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(orphan_in_netns(ready[1], go[0]));
	ASSERT_EQ(1, read(ready[0], cmd, 1));
	snprintf(name, sizeof(name), "psock-orphan-%d", getpid());
	snprintf(cmd, sizeof(cmd),
		 "ip netns attach %s %d && ip netns set %s 77", name, pid,
		 name);
	ASSERT_EQ(0, system(cmd));
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(0, peer_status(pid));
	snprintf(cmd, sizeof(cmd), "ip netns del %s", name);
	ASSERT_EQ(0, system(cmd));
	/* Its last process and its name are gone; the orphan holds it. */
	sleep(2);
	EXPECT_EQ(1, nsid_listed(77));
	/* It goes once the orphan ends. */
	for (i = 0, listed = 1; i < 60 && listed; i++) {
		sleep(1);
		listed = nsid_listed(77);
	}
	EXPECT_EQ(0, listed);
}

TEST_HARNESS_MAIN
