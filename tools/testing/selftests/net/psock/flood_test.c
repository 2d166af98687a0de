// SPDX-License-Identifier: GPL-2.0
/*
 * A flood of clients that begin the PSOCK handshake and never finish it:
 * each connects, sends the probe, reads the server hello, sends a valid
 * client hello asking for 4 subflows, and never opens a data subflow.
 * The listener must keep a bounded number of such connections
 * (Documentation/psock.rst, "Listener under a flood"), and a legitimate
 * client beside the flood must still connect and be accepted quickly.
 *
 * The flood runs in a child process; the parent counts the server side's
 * TCP sockets of the listening port in /proc/net/tcp (this netns only),
 * watches Slab in /proc/meminfo, and connects legitimately meanwhile.
 * LONG=1: 20,000 connections per round, rounds for 5 minutes.
 *
 * accept_resumes: connections left in TCP's queue while the listener's
 * accept queue was full are taken once accept() makes room.
 */
#include <assert.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

#include "psock_lib.h"
#include "kselftest_harness.h"

#define BACKLOG		4	/* the listener's listen() backlog */
#define STREAMS		4
#define WINDOW		256	/* flood connections in their handshake */
#define HELLO_WAIT_MS	3000	/* a flood client gives up after this */
/*
 * What the listener may hold for this backlog, in TCP sockets of its port
 * (Documentation/psock.rst, "Listener under a flood"): the TCP listener's
 * queues (half-open requests and accepted connections, 32 * backlog each,
 * and one more), as many connections taken from them but not classified,
 * max(backlog, 256) handshakes, and the legitimate client's subflows.
 */
#define SERVER_BOUND	(3 * 32 * BACKLOG + 1 + 256 + 2 * STREAMS)
/* A legitimate connect() + accept() during the flood takes at most this. */
#define LEGIT_MS	5000

/* Shared between the flood process and the test. */
struct flood_stats {
	atomic_int	started;	/* connections begun */
	atomic_int	chellos;	/* client hellos sent */
	atomic_int	refused;	/* reset, closed or stalled early */
	atomic_int	done;		/* the flood ended its round */
};

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

static int long_run(void)
{
	return getenv("LONG") && *getenv("LONG") == '1';
}

enum { C_CONNECT, C_SHELLO, C_HELD };

struct fconn {
	int	fd, state, got;
	long	since;
	struct hello h;
};

static int fconn_start(struct fconn *c, int port)
{
	struct sockaddr_storage ss;
	socklen_t len = lo_addr(AF_INET, port, &ss);

	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (c->fd < 0)
		return -1;
	if (connect(c->fd, (struct sockaddr *)&ss, len) && errno != EINPROGRESS)
		return -1;
	c->state = C_CONNECT;
	c->got = 0;
	c->since = now_ms();
	return 0;
}

/* Advance one flood connection: 1 once it sent its client hello. */
static int fconn_step(struct fconn *c)
{
	char probe = (char)0xa5;
	struct hello ch;
	ssize_t r;
	int n;

	if (c->state == C_CONNECT) {
		if (send(c->fd, &probe, 1, MSG_OOB) != 1)
			return errno == EAGAIN || errno == ENOTCONN ? 0 : -1;
		c->state = C_SHELLO;
		return 0;
	}
	r = recv(c->fd, (char *)&c->h + c->got, sizeof(c->h) - c->got, 0);
	if (r <= 0)
		return r < 0 && errno == EAGAIN ? 0 : -1;
	c->got += r;
	if (c->got < (int)sizeof(c->h))
		return 0;
	if (c->h.magic != htonl(MAGIC) || c->h.type != T_SHELLO)
		return -1;
	/* The count both ends compute (Documentation/psock.rst). */
	n = c->h.rcmd > STREAMS ? c->h.rcmd : STREAMS;
	n = n < c->h.max ? n : c->h.max;
	n = n < STREAMS ? n : STREAMS;
	memset(&ch, 0, sizeof(ch));
	ch.magic = htonl(MAGIC);
	ch.version = 1;
	ch.type = T_CHELLO;
	ch.rcmd = STREAMS;
	ch.max = STREAMS;
	ch.n = n;
	ch.token = c->h.token;
	if (send(c->fd, &ch, sizeof(ch), 0) != sizeof(ch))
		return -1;
	c->state = C_HELD;
	return 1;
}

/*
 * One round of @total flood connections, WINDOW at a time; the ones that
 * sent their client hello stay open (never joined) until the round ends.
 */
static void flood_round(int port, int total, struct flood_stats *st)
{
	struct pollfd *p = calloc(WINDOW, sizeof(*p));
	struct fconn *c = calloc(WINDOW, sizeof(*c));
	int *held = calloc(total, sizeof(int)), nheld = 0, i, r;

	for (i = 0; i < WINDOW; i++)
		c[i].fd = -1;
	while (st->started < total || nheld + st->refused < total) {
		for (i = 0; i < WINDOW; i++) {
			if (c[i].fd < 0 && st->started < total) {
				st->started++;
				if (fconn_start(&c[i], port)) {
					if (c[i].fd >= 0)
						close(c[i].fd);
					c[i].fd = -1;
					st->refused++;
					continue;
				}
			}
			p[i].fd = c[i].fd;
			p[i].events = c[i].fd < 0 ? 0 :
				      c[i].state == C_CONNECT ? POLLOUT : POLLIN;
		}
		if (st->started >= total && nheld + st->refused >= total)
			break;
		poll(p, WINDOW, 100);
		for (i = 0; i < WINDOW; i++) {
			if (c[i].fd < 0)
				continue;
			r = p[i].revents ? fconn_step(&c[i]) : 0;
			if (!r && now_ms() - c[i].since < HELLO_WAIT_MS)
				continue;
			if (r == 1) {
				held[nheld++] = c[i].fd;
				st->chellos++;
			} else {
				close(c[i].fd);
				st->refused++;
			}
			c[i].fd = -1;
		}
	}
	st->done = 1;
	/* Held until the test has looked; then the round ends. */
	while (st->done == 1)
		usleep(10000);
	for (i = 0; i < nheld; i++)
		close(held[i]);
	free(held);
	free(c);
	free(p);
}

/*
 * TCP sockets of this netns on local port @port that a listener may hold:
 * half-open, established, or closed by the client but not yet by us.
 * Listeners are left out, and so are the sockets TCP alone keeps after
 * their close() (FIN_WAIT, TIME_WAIT, LAST_ACK...: TCP's own limits).
 */
static int server_socks(int port)
{
	static unsigned char seen[65536];
	int n = 0, lport, rport, state;
	char line[512];
	FILE *f = fopen("/proc/net/tcp", "r");

	if (!f)
		return -1;
	/*
	 * The file is read in pages while sockets come and go: a socket may
	 * be listed twice.  Clients all connect from 127.0.0.1, so the
	 * remote port names a connection.
	 */
	memset(seen, 0, sizeof(seen));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, " %*d: %*x:%x %*x:%x %x", &lport, &rport,
			   &state) != 3 || lport != port || rport > 65535)
			continue;
		if ((state == 0x01 ||		/* ESTABLISHED */
		     state == 0x03 ||		/* SYN_RECV */
		     state == 0x08) &&		/* CLOSE_WAIT */
		    !seen[rport]) {
			seen[rport] = 1;
			n++;
		}
	}
	fclose(f);
	return n;
}

static long slab_kb(void)
{
	return meminfo_kb("Slab");
}

/*
 * The server application: accepts every connection, as a real server
 * does (connections of flood clients that gave up reach accept() as
 * plain ones), keeps the legitimate client's and closes the others.
 */
struct acceptor {
	pthread_t	thread;
	int		lfd;
	atomic_int	stop;
	atomic_int	want_port;	/* the legitimate client's port */
	atomic_int	got_fd;		/* its accepted connection, or -1 */
	atomic_int	others;		/* other connections accepted */
	int		streams;	/* the legitimate client's subflows */
};

static void *acceptor_main(void *arg)
{
	struct acceptor *a = arg;
	struct pollfd p = { .fd = a->lfd, .events = POLLIN };
	struct sockaddr_in sin;
	socklen_t len;
	int fd;

	while (!a->stop) {
		if (poll(&p, 1, 100) != 1)
			continue;
		len = sizeof(sin);
		fd = accept4(a->lfd, (struct sockaddr *)&sin, &len,
			     SOCK_NONBLOCK);
		if (fd < 0)
			continue;
		if (a->want_port && ntohs(sin.sin_port) == a->want_port &&
		    a->got_fd < 0) {
			a->got_fd = fd;
			continue;
		}
		a->others++;
		close(fd);
	}
	return NULL;
}

/* A legitimate PSOCK connect() and accept(): ms taken, or -1. */
static long legit_connect(struct __test_metadata *_metadata,
			  struct acceptor *a, int port)
{
	struct timeval tv = { .tv_sec = 30 };
	struct sockaddr_storage ss;
	socklen_t len = lo_addr(AF_INET, 0, &ss);
	struct psock_info_buf b;
	long t0 = now_ms(), ms;
	int fd, i;
	char c = 0;

	fd = socket(AF_INET, SOCK_STREAM, IPPROTO_PSOCK);
	if (fd < 0 || psock_opts(fd, STREAMS, STREAMS, -1) ||
	    bind(fd, (struct sockaddr *)&ss, len))
		return -1;
	a->got_fd = -1;
	a->want_port = sock_port(fd);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (lo_connect(fd, AF_INET, port)) {
		TH_LOG("legitimate connect(): %s after %ld ms", strerror(errno),
		       now_ms() - t0);
		close(fd);
		return -1;
	}
	for (i = 0; i < 3000 && a->got_fd < 0; i++)
		usleep(10000);
	ms = now_ms() - t0;
	if (a->got_fd < 0) {
		TH_LOG("legitimate client never accepted");
		close(fd);
		return -1;
	}
	EXPECT_EQ(0, psock_info(fd, &b));
	/*
	 * Its data subflows are SYNs like the flood's: where the flood
	 * keeps TCP's queues full (LONG=1 on the debug kernel), TCP may
	 * drop them all past the 2 * hello_timeout_ms a client waits for
	 * its joins, and the connection is set up with fewer
	 * (Documentation/psock.rst, "Listener under a flood").
	 */
	if (long_run()) {
		EXPECT_LE(1, b.h.stream_cnt);
		EXPECT_GE(STREAMS, b.h.stream_cnt);
	} else {
		EXPECT_EQ(STREAMS, b.h.stream_cnt);
	}
	a->streams = b.h.stream_cnt;
	EXPECT_EQ(1, send(fd, "x", 1, 0));
	for (i = 0; i < 500 && recv(a->got_fd, &c, 1, 0) != 1; i++)
		usleep(10000);
	EXPECT_EQ('x', c);
	close(a->got_fd);
	close(fd);
	return ms;
}

FIXTURE(flood)
{
	int lfd, port;
	struct flood_stats *st;
	struct acceptor acc;
};

static void write_sysctl(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fprintf(f, "%s\n", val);
		fclose(f);
	}
}

FIXTURE_SETUP(flood)
{
	struct rlimit rl = { 65536, 65536 };
	struct sockaddr_storage ss;
	socklen_t len;

	ASSERT_EQ(0, netns_lo());
	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &rl));
	/* Whole rounds fit in one embryo lifetime (hello + 2 * stale). */
	write_sysctl("/proc/sys/net/psock/stale_timeout_ms", "60000");
	write_sysctl("/proc/sys/net/ipv4/ip_local_port_range", "1024 65000");
	self->st = mmap(NULL, sizeof(*self->st), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->st);
	self->lfd = socket(AF_INET, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, self->lfd);
	ASSERT_EQ(0, psock_opts(self->lfd, STREAMS, STREAMS, -1));
	len = lo_addr(AF_INET, 0, &ss);
	ASSERT_EQ(0, bind(self->lfd, (struct sockaddr *)&ss, len));
	ASSERT_EQ(0, listen(self->lfd, BACKLOG));
	self->port = sock_port(self->lfd);
	self->acc.lfd = self->lfd;
	self->acc.got_fd = -1;
	ASSERT_EQ(0, pthread_create(&self->acc.thread, NULL, acceptor_main,
				    &self->acc));
}

FIXTURE_TEARDOWN(flood)
{
	self->acc.stop = 1;
	pthread_join(self->acc.thread, NULL);
	close(self->lfd);
	munmap(self->st, sizeof(*self->st));
}

/* One round: flood, measure while it holds, a legitimate client, end. */
static void one_round(struct __test_metadata *_metadata,
		      struct _test_data_flood *self, int total)
{
	struct flood_stats *st = self->st;
	long slab0 = slab_kb(), slab_max = slab0, legit = -1, t0 = now_ms();
	int most = 0, n, status;
	pid_t pid;

	memset(st, 0, sizeof(*st));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		flood_round(self->port, total, st);
		_exit(0);
	}
	while (!st->done) {
		n = server_socks(self->port);
		most = n > most ? n : most;
		if (slab_kb() > slab_max)
			slab_max = slab_kb();
		/* A legitimate client once the flood is well under way. */
		if (legit < 0 && st->chellos >= total / 2)
			legit = legit_connect(_metadata, &self->acc, self->port);
		usleep(200000);
	}
	n = server_socks(self->port);
	most = n > most ? n : most;
	if (legit < 0)
		legit = legit_connect(_metadata, &self->acc, self->port);
	TH_LOG("%d flood connections in %ld ms: %d client hellos, %d refused, %d accepted",
	       total, now_ms() - t0, st->chellos, st->refused,
	       self->acc.others);
	TH_LOG("server sockets at most %d (bound %d); Slab +%ld kB",
	       most, SERVER_BOUND, slab_max - slab0);
	TH_LOG("legitimate client %ld ms, %d subflows", legit,
	       self->acc.streams);
	st->done = 2;
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_LE(most, SERVER_BOUND);
	EXPECT_LE(0, legit);
	EXPECT_GE(LEGIT_MS, legit);
}

TEST_F_TIMEOUT(flood, never_joined, 900)
{
	int total = long_run() ? 20000 : 3000;
	long end = now_ms() + (long_run() ? 300000 : 0);

	do {
		one_round(_metadata, self, total);
	} while (!_metadata->exit_code && now_ms() < end);
}

/* Connections waiting in the TCP listener's queue of local port @port. */
static int tcp_queued(int port)
{
	int lport, state, rxq, n = -1;
	char line[512];
	FILE *f = fopen("/proc/net/tcp", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " %*d: %*x:%x %*x:%*x %x %*x:%x", &lport,
			   &state, &rxq) == 3 &&
		    lport == port && state == 0x0a)	/* LISTEN */
			n = rxq;
	fclose(f);
	return n;
}

/*
 * The listener stops taking connections from TCP's queue while backlog
 * connections wait for accept() (Documentation/psock.rst, "Listener under
 * a flood"); accept() must make it take them again.  Nothing else may:
 * a full TCP queue brings no new connection, and so no event, and TCP
 * drops the SYNs of the clients that come meanwhile.
 */
TEST(accept_resumes)
{
	int lfd, port, fds[BACKLOG + 4], n = 0, got = 0, fd, i;
	struct pollfd p = { .events = POLLIN };
	struct sockaddr_storage ss;
	socklen_t len;
	long t0;

	ASSERT_EQ(0, netns_lo());
	lfd = socket(AF_INET, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, lfd);
	len = lo_addr(AF_INET, 0, &ss);
	ASSERT_EQ(0, bind(lfd, (struct sockaddr *)&ss, len));
	ASSERT_EQ(0, listen(lfd, BACKLOG));
	port = sock_port(lfd);
	/* Plain clients, one at a time, until one stays in TCP's queue. */
	do {
		fds[n] = socket(AF_INET, SOCK_STREAM, 0);
		ASSERT_LE(0, fds[n]);
		ASSERT_EQ(0, lo_connect(fds[n], AF_INET, port));
		ASSERT_EQ(1, send(fds[n], "x", 1, 0));
		n++;
		for (i = 0; i < 100 && tcp_queued(port) > 0; i++)
			usleep(10000);
	} while (!tcp_queued(port) && n < BACKLOG + 4);
	ASSERT_LT(BACKLOG, n);
	ASSERT_LT(0, tcp_queued(port));
	/* The server accepts: every client, at once (3 s allowed). */
	p.fd = lfd;
	t0 = now_ms();
	while (got < n && now_ms() - t0 < 3000) {
		if (poll(&p, 1, 100) != 1)
			continue;
		fd = accept(lfd, NULL, NULL);
		if (fd >= 0) {
			got++;
			close(fd);
		}
	}
	TH_LOG("%d plain clients, %d accepted in %ld ms", n, got,
	       now_ms() - t0);
	EXPECT_EQ(n, got);
	for (i = 0; i < n; i++)
		close(fds[i]);
	close(lfd);
}

TEST_HARNESS_MAIN
