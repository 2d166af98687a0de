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
 * server's echo; the server echoes every accepted connection, checks what
 * it received against the pattern, and records what PSOCK_INFO says of
 * it, keyed by the client that pattern names (not by its port: loopback
 * reuses ports of connections in TIME_WAIT).
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
	long	in;		/* server: bytes received (all checked) */
	long	bad_at;		/* server: offset of the first wrong byte, or -1 */
};

struct conn {
	pthread_t	thread;
	int		family, port, idx;
	int		cport;		/* the client's port */
	struct end	cli;
};

static struct end srv_end[MAX_CONNS];	/* by the client's index */

/* Where each echo thread is, for the report of one that never finished. */
struct live {
	int	fd;
	int	phase;		/* 1 recv, 2 send, 3 shutdown and close */
	long	in, out;	/* bytes received and echoed */
};

static struct live srv_live[MAX_CONNS];	/* by the client's index */

/* The first 8 bytes of each client's pattern: how the server knows it. */
static uint8_t first8[MAX_CONNS][8];
static int nclients;

/* Echo threads whose first bytes named no client: how many, the last. */
static int peer_fail_cnt, peer_fail_flags;
static long peer_fail_in;
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

/* The client whose pattern begins with @b, or -1. */
static int client_of(const uint8_t *b)
{
	int i;

	for (i = 0; i < nclients; i++)
		if (!memcmp(first8[i], b, 8))
			return i;
	return -1;
}

/*
 * What the server receives, checked as it comes: the first 8 bytes name
 * the client, every later byte must follow that client's pattern.
 */
struct check {
	uint8_t		head[8];
	long		in;		/* bytes seen */
	long		bad_at;		/* first wrong byte, or -1 */
	int		idx;		/* the client, or -1 */
	struct pattern	p;
};

static void check_bytes(struct check *c, const uint8_t *b, size_t len)
{
	size_t i;
	int k;

	for (i = 0; i < len; i++, c->in++) {
		if (c->in < 8) {
			c->head[c->in] = b[i];
			if (c->in < 7)
				continue;
			c->idx = client_of(c->head);
			if (c->idx < 0) {
				c->bad_at = 0;
				continue;
			}
			pattern_init(&c->p, 1000 + c->idx);
			for (k = 0; k < 8; k++)
				pattern_next(&c->p);
			continue;
		}
		if (c->idx >= 0 && c->bad_at < 0 && b[i] != pattern_next(&c->p))
			c->bad_at = c->in;
	}
}

/* Echo one connection until its end of stream. */
static __thread char echo_buf[65536];

static void *echo_main(void *arg)
{
	struct check chk = { .idx = -1, .bad_at = -1 };
	struct timeval tv = { .tv_sec = 120 };
	struct linger lg = { .l_onoff = 1, .l_linger = 60 };
	int fd = (int)(long)arg, err = 0;
	struct live tmp = { 0 }, *l = &tmp;
	char *buf = echo_buf;
	struct end e = { 0 };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	info_of(fd, &e);
	l->fd = fd;
	for (;;) {
		ssize_t r, off = 0;

		l->phase = 1;
		r = recv(fd, buf, sizeof(echo_buf), 0);
		l->phase = 2;
		if (r <= 0) {
			err = r ? errno : 0;
			break;
		}
		check_bytes(&chk, (uint8_t *)buf, r);
		if (chk.idx >= 0 && l == &tmp) {
			srv_live[chk.idx] = tmp;
			l = &srv_live[chk.idx];
		}
		l->in += r;
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
	/*
	 * close() waits for the client's acknowledgments: an orphaned TCP
	 * socket with data queued is reset when TCP's memory is short
	 * (tcp_mem[2], "TCP: out of memory" in the log), which 256
	 * connections reach on the debug kernel; TCP's, not PSOCK's.
	 */
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
out:
	close(fd);
	e.err = err;
	e.done = 1;
	e.in = chk.in;
	e.bad_at = chk.bad_at;
	pthread_mutex_lock(&srv_lock);
	if (chk.idx >= 0) {
		srv_end[chk.idx] = e;
	} else {
		peer_fail_cnt++;
		peer_fail_in = chk.in;
		peer_fail_flags = e.flags;
	}
	pthread_mutex_unlock(&srv_lock);
	return NULL;
}

/* An echo that never finished: where it stands, and its subflows. */
static void report_live(int idx)
{
	struct live *l = &srv_live[idx];
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

/* A /proc file into the report. */
static void report_file(const char *path)
{
	char line[1024];
	FILE *f = fopen(path, "r");

	while (f && fgets(line, sizeof(line), f))
		fprintf(stderr, "#   %s", line);
	if (f)
		fclose(f);
}

/* TCP's counters of resets it sent on its own, and of memory pressure. */
static void report_tcp_aborts(void)
{
	static const char * const keys[] = {
		"TCPAbortOnData", "TCPAbortOnClose", "TCPAbortOnMemory",
		"TCPAbortOnTimeout", "TCPAbortOnLinger", "TCPMemoryPressures",
	};
	char names[4096], vals[4096], *n, *v, *sn, *sv;
	FILE *f = fopen("/proc/net/netstat", "r");
	unsigned int k;

	while (f && fgets(names, sizeof(names), f) &&
	       fgets(vals, sizeof(vals), f)) {
		if (strncmp(names, "TcpExt:", 7))
			continue;
		n = strtok_r(names, "\n ", &sn);
		v = strtok_r(vals, "\n ", &sv);
		while (n && v) {
			for (k = 0; k < ARRAY_SIZE(keys); k++)
				if (!strcmp(n, keys[k]))
					fprintf(stderr, "#   TcpExt %s %s\n", n, v);
			n = strtok_r(NULL, "\n ", &sn);
			v = strtok_r(NULL, "\n ", &sv);
		}
	}
	if (f)
		fclose(f);
}

/*
 * The namespace's PSOCK counters after a failure, and TCP's memory
 * (stalls under load come from TCP's global limit, tcp_mem).
 */
static void report_counters(void)
{
	report_file("/proc/net/psock");
	report_file("/proc/net/sockstat");
	report_file("/proc/sys/net/ipv4/tcp_mem");
	report_tcp_aborts();
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
	nclients = n;
	for (i = 0; i < n; i++) {
		struct pattern p;

		pattern_init(&p, 1000 + i);
		pattern_fill(&p, first8[i], 8);
	}
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
		struct end *se = &srv_end[i];
		struct end ce = c[i].cli;
		int wait;

		/* The server's echo thread closes after the client read EOF. */
		for (wait = 0; !se->done && wait < 100; wait++)
			usleep(100000);
		pthread_mutex_lock(&srv_lock);
		if (ce.err || !se->done || se->err || se->in != ECHO_LEN ||
		    se->bad_at >= 0 ||
		    (ce.flags & PSOCK_INFO_FALLBACK) !=
		    (se->flags & PSOCK_INFO_FALLBACK) ||
		    ce.streams != se->streams) {
			fprintf(stderr,
				"# conn %d port %d: client %s (streams %d%s), server %s (streams %d%s), received %ld bytes, first wrong at %ld\n",
				i, c[i].cport,
				ce.err > 0 ? strerror(ce.err) :
				ce.err ? "wrong data" : "ok", ce.streams,
				ce.flags & PSOCK_INFO_FALLBACK ? " fallback" : "",
				!se->done ? "never finished" : se->err > 0 ?
				strerror(se->err) : "ok",
				se->streams,
				se->flags & PSOCK_INFO_FALLBACK ? " fallback" : "",
				se->in, se->bad_at);
			if (!se->done)
				report_live(i);
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
		fprintf(stderr, "#   %d echo threads, no client (last %ld B, flags %#x)\n",
			peer_fail_cnt, peer_fail_in, peer_fail_flags);
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
