// SPDX-License-Identifier: GPL-2.0
/*
 * Many PSOCK connections at once on one machine: every one must come back
 * intact, with both ends agreeing on the protocol.  Timeouts of the
 * handshake fire easily when 64 connections (256 with LONG=1, beside a
 * CPU hog) share two emulated CPUs; they may make a connection slower but
 * never deliver a control message as data, reset a connection whose peer
 * is alive, or leave the two ends striping and not striping.
 *
 * Each client sends its own pattern of ECHO_LEN bytes and reads back the
 * server's echo; the server echoes every accepted connection and records
 * what PSOCK_INFO says of it, keyed by the client's port.
 */
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>

#include "psock_lib.h"
#include "kselftest_harness.h"

#define ECHO_LEN	(1024 * 1024)
#define MAX_CONNS	256

struct end {
	int	done;		/* the end finished (0 or an error below) */
	int	err;		/* 0, an errno, or -1 for wrong data */
	int	flags;		/* PSOCK_INFO flags */
	int	streams;	/* negotiated stream count */
};

struct conn {
	pthread_t	thread;
	int		family, port, idx;
	int		cport;		/* the client's port */
	struct end	cli;
};

static struct end srv_end[65536];	/* by the client's port */

/* Where each echo thread is, for the report of one that never finished. */
struct live {
	int	fd;
	int	phase;		/* 1 recv, 2 send, 3 shutdown and close */
	long	in, out;	/* bytes received and echoed */
};

static struct live srv_live[65536];	/* by the client's port */

/* Echo threads that could not name their peer: why, and their state. */
static int peer_fail_cnt, peer_fail_errno, peer_fail_flags;
static pthread_mutex_t srv_lock = PTHREAD_MUTEX_INITIALIZER;

static int info_of(int fd, struct end *e)
{
	struct psock_info_buf b;

	if (psock_info(fd, &b))
		return -1;
	e->flags = b.h.flags;
	e->streams = b.h.stream_cnt;
	return 0;
}

static int peer_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getpeername(fd, (struct sockaddr *)&ss, &len))
		return -1;
	if (ss.ss_family == AF_INET)
		return ntohs(((struct sockaddr_in *)&ss)->sin_port);
	return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
}

/* Echo one connection until its end of stream. */
static __thread char echo_buf[65536];

static void *echo_main(void *arg)
{
	int fd = (int)(long)arg, port = peer_port(fd), err = 0;
	struct timeval tv = { .tv_sec = 120 };
	char *buf = echo_buf;
	struct end e = { 0 };

	struct live *l = port > 0 ? &srv_live[port] : &(struct live){ 0 };

	if (port <= 0) {
		struct end f = { 0 };

		peer_fail_errno = errno;
		info_of(fd, &f);
		peer_fail_flags = f.flags;
		__atomic_add_fetch(&peer_fail_cnt, 1, __ATOMIC_RELAXED);
	}

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	info_of(fd, &e);
	l->fd = fd;
	for (;;) {
		ssize_t r, off = 0;

		l->phase = 1;
		r = recv(fd, buf, sizeof(echo_buf), 0);
		l->phase = 2;
		if (r > 0)
			l->in += r;
		if (r <= 0) {
			err = r ? errno : 0;
			break;
		}
		while (off < r) {
			ssize_t w = send(fd, buf + off, r - off, MSG_NOSIGNAL);

			if (w < 0) {
				err = errno;
				goto out;
			}
			off += w;
			l->out += w;
		}
	}
	l->phase = 3;
	if (!err && shutdown(fd, SHUT_WR))
		err = errno;
out:
	close(fd);
	e.err = err;
	e.done = 1;
	if (port > 0) {
		pthread_mutex_lock(&srv_lock);
		srv_end[port] = e;
		pthread_mutex_unlock(&srv_lock);
	}
	return NULL;
}

/* An echo that never finished: where it stands, and its subflows. */
static void report_live(int port)
{
	struct live *l = &srv_live[port];
	struct psock_info_buf b;
	int i;

	fprintf(stderr, "#   server echo: phase %d, %ld in, %ld out\n",
		l->phase, l->in, l->out);
	if (!l->phase || l->phase == 3 || psock_info(l->fd, &b))
		return;
	fprintf(stderr, "#   flags %#x streams %u\n", b.h.flags, b.h.stream_cnt);
	for (i = 0; i < (int)b.h.stream_cnt && i < PSOCK_STREAM_CNT_LIMIT; i++)
		fprintf(stderr, "#   sf %u state %u sent %llu received %llu ports %u-%u\n",
			b.sf[i].index, b.sf[i].state,
			(unsigned long long)b.sf[i].bytes_sent,
			(unsigned long long)b.sf[i].bytes_received,
			b.sf[i].local_port, b.sf[i].remote_port);
}

/* The namespace's PSOCK counters, after a failure. */
static void report_counters(void)
{
	char line[256];
	FILE *f = fopen("/proc/net/psock", "r");

	while (f && fgets(line, sizeof(line), f))
		fprintf(stderr, "#   %s", line);
	if (f)
		fclose(f);
}

struct server {
	pthread_t	thread;
	int		lfd, n;
};

static void *server_main(void *arg)
{
	struct server *s = arg;
	int i;

	for (i = 0; i < s->n; i++) {
		int fd = accept(s->lfd, NULL, NULL);
		pthread_t t;

		if (fd < 0)
			break;
		if (pthread_create(&t, NULL, echo_main, (void *)(long)fd)) {
			close(fd);
			continue;
		}
		pthread_detach(t);
	}
	return NULL;
}

static void *client_main(void *arg)
{
	struct timeval tv = { .tv_sec = 120 };
	struct conn *c = arg;
	int fd;

	fd = socket(c->family, SOCK_STREAM, IPPROTO_PSOCK);
	if (fd < 0) {
		c->cli.err = errno;
		goto out;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (lo_connect(fd, c->family, c->port)) {
		c->cli.err = errno;
		close(fd);
		goto out;
	}
	c->cport = sock_port(fd);
	info_of(fd, &c->cli);
	c->cli.err = duplex(fd, 1000 + c->idx, ECHO_LEN, 1000 + c->idx,
			    ECHO_LEN);
	close(fd);
out:
	c->cli.done = 1;
	return NULL;
}

/* Busy loops beside the connections, one per CPU: a loaded machine. */
static int hog_start(pid_t *pids, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			return -1;
		if (!pids[i]) {
			for (;;)
				;
		}
	}
	return 0;
}

static void hog_stop(pid_t *pids, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (pids[i] > 0) {
			kill(pids[i], SIGKILL);
			waitpid(pids[i], NULL, 0);
		}
	}
}

static void echo_many(struct __test_metadata *_metadata, int family,
		      int hello_ms)
{
	int n = getenv("LONG") && *getenv("LONG") == '1' ? MAX_CONNS : 64;
	int i, lfd, port, one = 1, bad = 0, fallbacks = 0;
	struct sockaddr_storage ss;
	static struct conn c[MAX_CONNS];
	struct server s;
	pid_t hog[2] = { 0, 0 };
	socklen_t len;

	ASSERT_EQ(0, netns_lo());
	if (hello_ms) {
		FILE *f = fopen("/proc/sys/net/psock/hello_timeout_ms", "w");

		ASSERT_NE(NULL, f);
		fprintf(f, "%d\n", hello_ms);
		ASSERT_EQ(0, fclose(f));
	}
	memset(c, 0, sizeof(c));
	memset(srv_end, 0, sizeof(srv_end));
	memset(srv_live, 0, sizeof(srv_live));
	peer_fail_cnt = 0;
	lfd = socket(family, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, lfd);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	len = lo_addr(family, 0, &ss);
	ASSERT_EQ(0, bind(lfd, (struct sockaddr *)&ss, len));
	ASSERT_EQ(0, listen(lfd, MAX_CONNS));
	port = sock_port(lfd);
	if (n == MAX_CONNS || hello_ms)
		ASSERT_EQ(0, hog_start(hog, 2));
	s.lfd = lfd;
	s.n = n;
	ASSERT_EQ(0, pthread_create(&s.thread, NULL, server_main, &s));
	for (i = 0; i < n; i++) {
		c[i].family = family;
		c[i].port = port;
		c[i].idx = i;
		ASSERT_EQ(0, pthread_create(&c[i].thread, NULL, client_main,
					    &c[i]));
	}
	for (i = 0; i < n; i++)
		pthread_join(c[i].thread, NULL);
	hog_stop(hog, 2);
	/* Every client that got an echo was accepted: the server is done. */
	shutdown(lfd, SHUT_RDWR);
	close(lfd);
	for (i = 0; i < n; i++) {
		struct end *se = c[i].cport > 0 ? &srv_end[c[i].cport] : NULL;
		struct end ce = c[i].cli;
		int wait;

		/* The server's echo thread closes after the client read EOF. */
		for (wait = 0; se && !se->done && wait < 100; wait++)
			usleep(100000);
		pthread_mutex_lock(&srv_lock);
		if (ce.err || !se || !se->done || se->err ||
		    (ce.flags & PSOCK_INFO_FALLBACK) !=
		    (se->flags & PSOCK_INFO_FALLBACK) ||
		    ce.streams != se->streams) {
			fprintf(stderr,
				"# conn %d port %d: client %s (streams %d%s), server %s%s (streams %d%s)\n",
				i, c[i].cport,
				ce.err > 0 ? strerror(ce.err) :
				ce.err ? "wrong data" : "ok", ce.streams,
				ce.flags & PSOCK_INFO_FALLBACK ? " fallback" : "",
				!se || !se->done ? "never finished" : "",
				se && se->done ? (se->err > 0 ?
				strerror(se->err) : "ok") : "",
				se ? se->streams : 0,
				se && se->flags & PSOCK_INFO_FALLBACK ?
				" fallback" : "");
			if (se && !se->done)
				report_live(c[i].cport);
			bad++;
		}
		if (ce.flags & PSOCK_INFO_FALLBACK)
			fallbacks++;
		pthread_mutex_unlock(&srv_lock);
	}
	fprintf(stderr, "# %d connections, %d bad, %d fell back to TCP\n",
		n, bad, fallbacks);
	if (bad) {
		report_counters();
		fprintf(stderr, "#   %d echo threads without a peer name (last: %s, flags %#x)\n",
			peer_fail_cnt, strerror(peer_fail_errno),
			peer_fail_flags);
		for (i = 0; i < 65536; i++) {
			int j, known = 0;

			for (j = 0; j < n && !known; j++)
				known = c[j].cport == i;
			if (srv_live[i].phase && !known)
				fprintf(stderr, "#   echo of port %d: no such client\n",
					i);
		}
	}
	EXPECT_EQ(0, bad);
}

FIXTURE(load)
{
	int unused;
};

FIXTURE_SETUP(load)
{
	self->unused = 0;
}

FIXTURE_TEARDOWN(load)
{
}

TEST_F_TIMEOUT(load, echo_many_v4, 900)
{
	echo_many(_metadata, AF_INET, 0);
}

TEST_F_TIMEOUT(load, echo_many_v6, 900)
{
	echo_many(_metadata, AF_INET6, 0);
}

/*
 * The shortest hello timeout: most handshakes now lose a race against a
 * timer on one side or the other.  They may fall back to plain TCP, but
 * both ends together, with every byte intact.
 */
TEST_F_TIMEOUT(load, echo_many_hello_timeouts, 900)
{
	echo_many(_metadata, AF_INET, 10);
}

TEST_HARNESS_MAIN
