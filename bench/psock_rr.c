// SPDX-License-Identifier: GPL-2.0
/*
 * psock_rr: request/response exchanges on one connection, for
 * bench/psock_rr.sh: the client sends SIZE bytes, the server reads them
 * and sends SIZE bytes back, COUNT times in turn; what small messages
 * cost a transport, where bulk transfers hide it.
 *
 *   psock_rr -l PORT [-p PROTO]                          server: answer
 *	each SIZE-byte request with as many bytes, until the end, then exit
 *   psock_rr -p PROTO [-n STREAMS] [-s SIZE] [-c COUNT] [-D] [-v] HOST PORT
 *	client: COUNT exchanges; prints "SECONDS COUNT", timed with
 *	CLOCK_MONOTONIC from the first request to the last answer (after
 *	connect()); fails on a short or wrong answer; with -v, also the
 *	median, 99th percentile and slowest exchange in microseconds on
 *	stderr (a stall behind a delayed ACK or a timer shows there)
 *
 * PROTO: psock or tcp.  -D: TCP_NODELAY on both ends (the option reaches
 * every PSOCK subflow).  The server learns SIZE from the client's first
 * four bytes.  IPv4 only.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <linux/psock.h>

#define SIZE_MAX_RR	(1024 * 1024)

static char buf[SIZE_MAX_RR];

static int io_full(int fd, char *p, size_t len, int out)
{
	while (len) {
		ssize_t r = out ? send(fd, p, len, MSG_NOSIGNAL) :
				  recv(fd, p, len, 0);

		if (r <= 0)
			return r == 0 ? 1 : -1;
		p += r;
		len -= r;
	}
	return 0;
}

static int nodelay(int fd, int on)
{
	return on ? setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on,
			       sizeof(on)) : 0;
}

static int serve(int proto, int port, int nd)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port) };
	int l = socket(AF_INET, SOCK_STREAM, proto), one = 1, c, r;
	unsigned int size;

	if (l < 0 || setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one,
				sizeof(one)) ||
	    bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1)) {
		perror("listen");
		return 1;
	}
	c = accept(l, NULL, NULL);
	if (c < 0 || nodelay(c, nd) ||
	    io_full(c, (char *)&size, sizeof(size), 0) ||
	    size < sizeof(size) || size > SIZE_MAX_RR) {
		fprintf(stderr, "accept or first request failed\n");
		return 1;
	}
	memcpy(buf, &size, sizeof(size));
	r = io_full(c, buf + sizeof(size), size - sizeof(size), 0);
	while (!r) {
		r = io_full(c, buf, size, 1);
		if (!r)
			r = io_full(c, buf, size, 0);
	}
	close(c);
	close(l);
	return r < 0;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* -v: the spread of the exchanges' times, in microseconds. */
static void spread(double *t, long count)
{
	long i, slowest = 0;

	for (i = 1; i < count; i++)
		if (t[i] > t[slowest])
			slowest = i;
	qsort(t, count, sizeof(*t), cmp_double);
	fprintf(stderr,
		"exchange us: median %.1f p99 %.1f max %.1f (exchange %ld)\n",
		t[count / 2] * 1e6, t[count * 99 / 100] * 1e6,
		t[count - 1] * 1e6, slowest);
}

static int client(int proto, int streams, unsigned int size, long count,
		  int nd, int verbose, const char *host, int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port) };
	static char ans[SIZE_MAX_RR];
	int fd = socket(AF_INET, SOCK_STREAM, proto);
	double t0, t1, *times = NULL;
	long i;

	if (fd < 0 || inet_pton(AF_INET, host, &a.sin_addr) != 1) {
		perror("socket");
		return 1;
	}
	if (proto == IPPROTO_PSOCK &&
	    (setsockopt(fd, SOL_PSOCK, PSOCK_RCMD_STREAM_CNT, &streams,
			sizeof(streams)) ||
	     setsockopt(fd, SOL_PSOCK, PSOCK_MAX_STREAM_CNT, &streams,
			sizeof(streams)))) {
		perror("PSOCK stream count");
		return 1;
	}
	if (nodelay(fd, nd) ||
	    connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		perror("connect");
		return 1;
	}
	if (verbose) {
		times = calloc(count, sizeof(*times));
		if (!times) {
			perror("calloc");
			return 1;
		}
	}
	memset(buf, 'q', size);
	memcpy(buf, &size, sizeof(size));
	t0 = now();
	t1 = t0;
	for (i = 0; i < count; i++) {
		if (io_full(fd, buf, size, 1) || io_full(fd, ans, size, 0) ||
		    memcmp(buf, ans, size)) {
			fprintf(stderr, "exchange %ld failed\n", i);
			return 1;
		}
		if (times) {
			times[i] = now() - t1;
			t1 += times[i];
		}
	}
	printf("%.6f %ld\n", now() - t0, count);
	if (times)
		spread(times, count);
	free(times);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	int proto = IPPROTO_TCP, streams = 1, port = -1, nd = 0, verbose = 0;
	int o;
	unsigned int size = 1024;
	long count = 1000;

	while ((o = getopt(argc, argv, "l:p:n:s:c:Dv")) != -1) {
		switch (o) {
		case 'l':
			port = atoi(optarg);
			break;
		case 'p':
			proto = !strcmp(optarg, "psock") ? IPPROTO_PSOCK :
				IPPROTO_TCP;
			break;
		case 'n':
			streams = atoi(optarg);
			break;
		case 's':
			size = strtoul(optarg, NULL, 0);
			break;
		case 'c':
			count = atol(optarg);
			break;
		case 'D':
			nd = 1;
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			return 2;
		}
	}
	if (size < sizeof(size) || size > SIZE_MAX_RR || count < 1)
		return 2;
	if (port >= 0)
		return serve(proto, port, nd);
	if (optind + 2 != argc)
		return 2;
	return client(proto, streams, size, count, nd, verbose, argv[optind],
		      atoi(argv[optind + 1]));
}
