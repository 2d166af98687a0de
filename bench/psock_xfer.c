// SPDX-License-Identifier: GPL-2.0
/*
 * psock_xfer: one timed bulk transfer, for bench/psock_paths.sh,
 * bench/psock_rtt.sh and bench/psock_gw.sh.
 *
 *   psock_xfer -l PORT [-p PROTO] [-d DRIVER] [-a ADDR]... [-P N]
 *		[-w SKIP,LEN]   server:
 *	accept one connection (N with -P), read to the end, answer one
 *	byte, close
 *   psock_xfer -p PROTO [-d DRIVER] [-n STREAMS] [-m SUBFLOWS] [-P N]
 *		{-s BYTES | -t SECONDS} HOST PORT
 *	client: connect, send BYTES, shutdown(SHUT_WR), wait for the
 *	server's byte; prints "SECONDS BYTES SUBFLOWS", timed with
 *	CLOCK_MONOTONIC from before connect() to the server's byte (all data
 *	read by it).  SUBFLOWS: PSOCK's stream count, the MPTCP subflows
 *	that carried data, or the TCP connections.
 *
 * PROTO: psock, mptcp or tcp.  IPv4 only.  -a: PSOCK_ADD_LOCAL_ADDR.
 * -b BYTES (either side): SO_SNDBUF and SO_RCVBUF of the socket before
 * listen()/connect(); PSOCK gives each subflow these buffers.  The
 * client fails when the connection did not get the driver and stream
 * count it asked for (the driver needs both ends to ask).
 * -P N (both sides, N > 1): N connections at once in one thread (poll()),
 * BYTES split evenly among them; the time runs from before the first
 * connect() to the last connection's answer.
 * -t SECONDS (client): each connection (one, or N with -P) sends for
 * SECONDS instead of BYTES, then shuts down its side; BYTES printed is
 * the sum of what they wrote.  No -n, -d or -m (the -P path).
 * -w SKIP,LEN (server, with or without -P): every connection's bytes
 * read in one window of LEN seconds, which starts SKIP seconds after the
 * last connection was accepted; prints "SECONDS BYTES" for each
 * connection in the order of accept() (SECONDS: the window as measured).
 * A connection that ends before the window does fails the server.  For
 * bench/psock_gw.sh's fairness figures: the flows' throughput over the
 * same stretch of time, at the receiver.
 * -m N (client, MPTCP): after the last write, MPTCP_INFO and
 * MPTCP_TCPINFO must show N subflows that each carried data (bytes
 * acknowledged); otherwise the client prints every subflow and fails.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <linux/mptcp.h>
#include <linux/tcp.h>
#include <linux/psock.h>

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP	262
#endif
#ifndef SOL_MPTCP
#define SOL_MPTCP	284
#endif

#define PAR_MAX		64	/* -P */
#define SUBFLOW_MAX	16	/* MPTCP subflows listed by -m */

static char buf[1 << 16];

static int proto_of(const char *s)
{
	if (!strcmp(s, "psock"))
		return IPPROTO_PSOCK;
	if (!strcmp(s, "mptcp"))
		return IPPROTO_MPTCP;
	if (!strcmp(s, "tcp"))
		return IPPROTO_TCP;
	return -1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* SO_SNDBUF and SO_RCVBUF, when asked (before listen() or connect()). */
static int set_bufs(int fd, int bytes)
{
	if (!bytes)
		return 0;
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof(bytes)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes))) {
		perror("SO_SNDBUF/SO_RCVBUF");
		return -1;
	}
	return 0;
}

/* The listening socket of the server, or -1. */
static int listener(int proto, int port, char **addrs, int naddr,
		    int bufsz, int driver, int backlog)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(port) };
	int l, i, one = 1;

	l = socket(AF_INET, SOCK_STREAM, proto);
	if (l < 0) {
		perror("socket");
		return -1;
	}
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (set_bufs(l, bufsz))
		return -1;
	if (driver >= 0 && setsockopt(l, SOL_PSOCK, PSOCK_DRIVER, &driver,
				      sizeof(driver))) {
		perror("PSOCK_DRIVER");
		return -1;
	}
	for (i = 0; i < naddr; i++) {
		struct sockaddr_in a = { .sin_family = AF_INET };

		if (inet_pton(AF_INET, addrs[i], &a.sin_addr) != 1 ||
		    setsockopt(l, SOL_PSOCK, PSOCK_ADD_LOCAL_ADDR, &a,
			       sizeof(a))) {
			perror("PSOCK_ADD_LOCAL_ADDR");
			return -1;
		}
	}
	if (bind(l, (struct sockaddr *)&sin, sizeof(sin)) ||
	    listen(l, backlog)) {
		perror("bind/listen");
		return -1;
	}
	return l;
}

/* One connection: read to the end, answer. */
static int serve_one(int l)
{
	long long total = 0;
	ssize_t r;
	int c;

	c = accept(l, NULL, NULL);
	if (c < 0) {
		perror("accept");
		return 1;
	}
	while ((r = read(c, buf, sizeof(buf))) > 0)
		total += r;
	if (r < 0 || write(c, "k", 1) != 1) {
		perror("server");
		return 1;
	}
	close(c);
	fprintf(stderr, "server read %lld bytes\n", total);
	return 0;
}

/*
 * N connections in one poll() loop: the listener until all are accepted,
 * each connection until its end, which it answers at once.  With @len > 0
 * (-w), the bytes each connection read in the window [@skip, @skip +
 * @len] seconds after the last accept().
 */
static int serve_many(int l, int n, double skip, double len)
{
	struct pollfd pfd[PAR_MAX + 1];
	long long got[PAR_MAX + 1] = { 0 }, mark[PAR_MAX + 1] = { 0 };
	int accepted = 0, ended = 0, phase = len > 0 ? 0 : 2, i;
	double start = 0, ta = 0, tb = 0, t;
	long long total = 0;
	ssize_t r;

	pfd[0].fd = l;
	pfd[0].events = POLLIN;
	while (ended < n) {
		int tmo = -1;

		/* Wake up at the window's edges, data or not. */
		if (phase < 2 && accepted == n) {
			t = (phase ? start + len : start) - now();
			tmo = t > 0 ? (int)(t * 1000) + 1 : 0;
		}
		if (poll(pfd, accepted + 1, tmo) < 0) {
			perror("poll");
			return 1;
		}
		for (i = 1; i <= accepted; i++) {
			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			r = read(pfd[i].fd, buf, sizeof(buf));
			if (r > 0) {
				total += r;
				got[i] += r;
				continue;
			}
			if (phase < 2) {
				fprintf(stderr,
					"psock_xfer: connection %d ended before the window did\n",
					i - 1);
				return 1;
			}
			if (r < 0 || write(pfd[i].fd, "k", 1) != 1) {
				perror("server");
				return 1;
			}
			close(pfd[i].fd);
			pfd[i].fd = -1;
			ended++;
		}
		if (accepted < n && pfd[0].revents) {
			int c = accept(l, NULL, NULL);

			if (c < 0) {
				perror("accept");
				return 1;
			}
			accepted++;
			pfd[accepted].fd = c;
			pfd[accepted].events = POLLIN;
			pfd[accepted].revents = 0;
			if (accepted == n) {
				pfd[0].fd = -1;
				start = now() + skip;
			}
		}
		if (phase < 2 && accepted == n) {
			t = now();
			if (phase == 0 && t >= start) {
				memcpy(mark, got, sizeof(mark));
				ta = t;
				phase = 1;
			}
			if (phase == 1 && t >= start + len) {
				for (i = 1; i <= n; i++)
					mark[i] = got[i] - mark[i];
				tb = t;
				phase = 2;
			}
		}
	}
	fprintf(stderr, "server read %lld bytes on %d connections\n", total,
		n);
	if (len > 0)
		for (i = 1; i <= n; i++)
			printf("%.3f %lld\n", tb - ta, mark[i]);
	return 0;
}

/*
 * MPTCP after the last write: the subflows the path manager made
 * (MPTCP_INFO) and those of them that carried data (MPTCP_TCPINFO, bytes
 * acknowledged).  Returns the latter, or -1 when fewer than @want, the
 * connection fell back to TCP or the options failed, after saying so.
 */
static int mptcp_used(int fd, int want)
{
	struct {
		struct mptcp_subflow_data d;
		struct tcp_info ti[SUBFLOW_MAX];
	} t;
	struct {
		struct mptcp_subflow_data d;
		struct mptcp_subflow_addrs a[SUBFLOW_MAX];
	} a;
	struct mptcp_info mi;
	socklen_t len = sizeof(mi);
	unsigned int i, n;
	int used = 0;

	memset(&mi, 0, sizeof(mi));
	if (getsockopt(fd, SOL_MPTCP, MPTCP_INFO, &mi, &len)) {
		perror("psock_xfer: MPTCP_INFO (fallback to TCP?)");
		return -1;
	}
	if (mi.mptcpi_flags & MPTCP_INFO_FLAG_FALLBACK) {
		fprintf(stderr, "psock_xfer: MPTCP fell back to TCP\n");
		return -1;
	}
	memset(&t, 0, sizeof(t));
	t.d.size_subflow_data = sizeof(t.d);
	t.d.size_user = sizeof(t.ti[0]);
	len = sizeof(t);
	if (getsockopt(fd, SOL_MPTCP, MPTCP_TCPINFO, &t, &len)) {
		perror("psock_xfer: MPTCP_TCPINFO");
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.d.size_subflow_data = sizeof(a.d);
	a.d.size_user = sizeof(a.a[0]);
	len = sizeof(a);
	if (getsockopt(fd, SOL_MPTCP, MPTCP_SUBFLOW_ADDRS, &a, &len)) {
		perror("psock_xfer: MPTCP_SUBFLOW_ADDRS");
		return -1;
	}
	n = t.d.num_subflows < SUBFLOW_MAX ? t.d.num_subflows : SUBFLOW_MAX;
	for (i = 0; i < n; i++)
		if (t.ti[i].tcpi_bytes_acked)
			used++;
	if (used >= want && mi.mptcpi_subflows + 1 >= want)
		return used;
	fprintf(stderr,
		"psock_xfer: MPTCP used %d subflows, %d wanted (path manager: %u additional subflows of at most %u, %u addresses accepted)\n",
		used, want, mi.mptcpi_subflows, mi.mptcpi_subflows_max,
		mi.mptcpi_add_addr_accepted);
	for (i = 0; i < n; i++) {
		char l[INET_ADDRSTRLEN] = "?", r[INET_ADDRSTRLEN] = "?";

		if (i < a.d.num_subflows && a.a[i].sa_family == AF_INET) {
			inet_ntop(AF_INET, &a.a[i].sin_local.sin_addr, l,
				  sizeof(l));
			inet_ntop(AF_INET, &a.a[i].sin_remote.sin_addr, r,
				  sizeof(r));
		}
		fprintf(stderr, "  subflow %u: %s -> %s, %llu bytes acked\n",
			i, l, r, (unsigned long long)t.ti[i].tcpi_bytes_acked);
	}
	return -1;
}

/* Shut down our side once everything is written; then wait for the answer. */
static int half_close(struct pollfd *p)
{
	if (shutdown(p->fd, SHUT_WR)) {
		perror("shutdown");
		return 1;
	}
	p->events = POLLIN;
	return 0;
}

/*
 * -P N: N connections of one thread, @size split evenly; or, with @dur >
 * 0 (-t), each sending for @dur seconds.  @sent: the bytes written.
 */
static int send_many(int proto, const struct sockaddr_in *sin, int bufsz,
		     int n, long long size, double dur, double *secs,
		     long long *sent)
{
	struct pollfd pfd[PAR_MAX];
	long long left[PAR_MAX];
	int i, answered = 0, sending = dur > 0;
	double t0 = now(), t;
	char k;

	*sent = 0;
	for (i = 0; i < n; i++) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, proto);

		if (fd < 0 || set_bufs(fd, bufsz)) {
			perror("socket");
			return 1;
		}
		if (connect(fd, (const struct sockaddr *)sin, sizeof(*sin)) &&
		    errno != EINPROGRESS) {
			perror("connect");
			return 1;
		}
		left[i] = sending ? LLONG_MAX : size / n + (i < size % n);
		pfd[i].fd = fd;
		pfd[i].events = POLLOUT;
	}
	while (answered < n) {
		int tmo = -1;

		if (sending) {
			t = t0 + dur - now();
			if (t <= 0) {
				for (i = 0; i < n; i++)
					if (pfd[i].fd >= 0 &&
					    (pfd[i].events & POLLOUT) &&
					    half_close(&pfd[i]))
						return 1;
				sending = 0;
			} else {
				tmo = (int)(t * 1000) + 1;
			}
		}
		if (poll(pfd, n, tmo) < 0) {
			perror("poll");
			return 1;
		}
		for (i = 0; i < n; i++) {
			ssize_t r;

			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			if (pfd[i].events & POLLOUT) {
				r = left[i] ? send(pfd[i].fd, buf,
						   left[i] < (long long)sizeof(buf) ?
						   left[i] : (long long)sizeof(buf),
						   MSG_NOSIGNAL) : 0;
				if (r < 0 && errno == EAGAIN)
					continue;
				if (r < 0) {
					perror("send");
					return 1;
				}
				left[i] -= r;
				*sent += r;
				if (left[i])
					continue;
				if (half_close(&pfd[i]))
					return 1;
				continue;
			}
			r = read(pfd[i].fd, &k, 1);
			if (r < 0 && errno == EAGAIN)
				continue;
			if (r != 1) {
				fprintf(stderr, "psock_xfer: connection %d: no answer\n",
					i);
				return 1;
			}
			close(pfd[i].fd);
			pfd[i].fd = -1;
			answered++;
		}
	}
	*secs = now() - t0;
	return 0;
}

int main(int argc, char **argv)
{
	int proto = IPPROTO_PSOCK, port = 0, driver = -1, streams = 0, opt;
	int naddr = 0, fd, bufsz = 0, par = 1, want = 0, subflows = 1;
	long long size = 16 << 20, left, sent;
	double dur = 0, skip = 0, len = 0;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	char *addrs[PSOCK_ADDR_MAX];
	double t0, t1;
	char k;

	while ((opt = getopt(argc, argv, "l:p:a:d:n:s:b:P:m:t:w:")) != -1) {
		switch (opt) {
		case 'l':
			port = atoi(optarg);
			break;
		case 'p':
			proto = proto_of(optarg);
			break;
		case 'a':
			if (naddr < PSOCK_ADDR_MAX)
				addrs[naddr++] = optarg;
			break;
		case 'd':
			driver = atoi(optarg);
			break;
		case 'n':
			streams = atoi(optarg);
			break;
		case 's':
			size = atoll(optarg);
			break;
		case 'b':
			bufsz = atoi(optarg);
			break;
		case 'P':
			par = atoi(optarg);
			break;
		case 'm':
			want = atoi(optarg);
			break;
		case 't':
			dur = atof(optarg);
			break;
		case 'w':
			if (sscanf(optarg, "%lf,%lf", &skip, &len) != 2 ||
			    skip < 0 || len <= 0)
				return 2;
			break;
		default:
			return 2;
		}
	}
	if (proto < 0 || par < 1 || par > PAR_MAX)
		return 2;
	if (port) {
		int l = listener(proto, port, addrs, naddr, bufsz, driver,
				 par + 3);

		if (l < 0)
			return 1;
		return par > 1 || len > 0 ? serve_many(l, par, skip, len) :
					    serve_one(l);
	}
	if (argc - optind != 2 ||
	    inet_pton(AF_INET, argv[optind], &sin.sin_addr) != 1)
		return 2;
	sin.sin_port = htons(atoi(argv[optind + 1]));
	memset(buf, 0x5a, sizeof(buf));

	if (par > 1 || dur > 0) {
		if (send_many(proto, &sin, bufsz, par, size, dur, &t1, &sent))
			return 1;
		printf("%.3f %lld %d\n", t1, sent, par);
		return 0;
	}
	fd = socket(AF_INET, SOCK_STREAM, proto);
	if (fd < 0) {
		perror("socket");
		return 1;
	}
	if (set_bufs(fd, bufsz))
		return 1;
	if (proto == IPPROTO_PSOCK &&
	    ((streams && (setsockopt(fd, SOL_PSOCK, PSOCK_RCMD_STREAM_CNT,
				     &streams, sizeof(streams)) ||
			  setsockopt(fd, SOL_PSOCK, PSOCK_MAX_STREAM_CNT,
				     &streams, sizeof(streams)))) ||
	     (driver >= 0 && setsockopt(fd, SOL_PSOCK, PSOCK_DRIVER, &driver,
					sizeof(driver))))) {
		perror("setsockopt");
		return 1;
	}
	t0 = now();
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin))) {
		perror("connect");
		return 1;
	}
	/* The figures are only worth their label if both ends agreed. */
	if (proto == IPPROTO_PSOCK) {
		struct psock_info pi = { .size_user = 0 };
		socklen_t pl = sizeof(pi);

		if (getsockopt(fd, SOL_PSOCK, PSOCK_INFO, &pi, &pl)) {
			perror("PSOCK_INFO");
			return 1;
		}
		if ((driver >= 0 && pi.driver != (unsigned int)driver) ||
		    (streams && pi.stream_cnt != (unsigned int)streams)) {
			fprintf(stderr, "negotiated driver %u, %u streams\n",
				pi.driver, pi.stream_cnt);
			return 1;
		}
		subflows = pi.stream_cnt;
	}
	for (left = size; left > 0; ) {
		ssize_t r = write(fd, buf, left < (long long)sizeof(buf) ?
				  left : (long long)sizeof(buf));

		if (r <= 0) {
			perror("write");
			return 1;
		}
		left -= r;
	}
	/* Before the DATA_FIN, while every subflow is still there. */
	if (proto == IPPROTO_MPTCP) {
		subflows = mptcp_used(fd, want);
		if (subflows < 0)
			return 1;
	}
	if (shutdown(fd, SHUT_WR) || read(fd, &k, 1) != 1) {
		perror("shutdown/read");
		return 1;
	}
	t1 = now();
	close(fd);
	printf("%.3f %lld %d\n", t1 - t0, size, subflows);
	return 0;
}
