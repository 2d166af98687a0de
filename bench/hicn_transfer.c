// SPDX-License-Identifier: GPL-2.0
/*
 * Transfer of one object producer -> consumer on one host, AF_HICN against
 * TCP over loopback and an AF_UNIX stream socket, timed with
 * CLOCK_MONOTONIC in the same run.  Every transport moves the same bytes
 * with the same application buffer (CHUNK bytes per send/recv call):
 *
 *   AF_HICN   sendto() of the whole object by a PROD_REL producer, then a
 *             CONS_REL consumer connect()s to the name and recv()s CHUNK
 *             bytes at a time until 0: the time covers publication and
 *             fetch (HICN_PACKET_SIZE 1500, the default, and 9000).
 *   TCP       a writer thread send()s the object in CHUNK pieces over
 *             127.0.0.1, the reader recv()s CHUNK at a time; the time runs
 *             from the first send to the last byte received.
 *   AF_UNIX   the same over a socketpair(AF_UNIX, SOCK_STREAM).
 * TCP and AF_UNIX get the same SO_SNDBUF/SO_RCVBUF (SOCKBUF); an AF_HICN
 * producer's send buffer must hold the whole object (default 256 MiB).
 *
 * The received bytes are compared to the sent ones.  Each case runs RUNS
 * times; the table shows the best run in MB/s (10^6 bytes) and the ratios
 * AF_HICN/TCP and AF_HICN/UNIX.
 *
 * Usage: hicn_transfer [MiB] [RUNS]        (default 64 MiB, 3 runs)
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include "hcn.h"

#define CHUNK	(64 * 1024)
#define SOCKBUF	(1024 * 1024)	/* SO_SNDBUF and SO_RCVBUF of TCP and AF_UNIX */

static unsigned char *src, *dst;
static size_t size;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void fail(const char *what)
{
	fprintf(stderr, "hicn_transfer: %s: %s\n", what, strerror(errno));
}

/* Read CHUNK at a time until @size bytes or EOF; bytes read, or -1. */
static ssize_t read_all(int fd)
{
	size_t total = 0;
	ssize_t n;

	while (total < size) {
		size_t want = size - total < CHUNK ? size - total : CHUNK;

		n = recv(fd, dst + total, want, 0);
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		total += n;
	}
	return total;
}

static int check(const char *what, ssize_t got)
{
	if (got != (ssize_t)size || memcmp(src, dst, size)) {
		fprintf(stderr, "hicn_transfer: %s: %zd of %zu bytes, %s\n",
			what, got, size, got < 0 ? strerror(errno) : "data differ");
		return -1;
	}
	return 0;
}

/* AF_HICN: seconds for publish + fetch, or -1. */
static double hicn_run(int pkt)
{
	int af = hcn_family();
	struct sockaddr_hicn ns = { .sin_family = af, .sin_prefix = 64 };
	struct sockaddr_hicn name = { .sin_family = af, .sin_prefix = 128 };
	int p, c = -1;
	double t0, t = -1;
	ssize_t got;

	hcn_pton(AF_HICN, "b001:a:b:c::", &ns.sin_addr);
	hcn_pton(AF_HICN, "b001:a:b:c::64", &name.sin_addr);
	p = socket(af, SOCK_PROD, PROD_REL);
	if (p < 0) {
		fail("socket(SOCK_PROD)");
		return -1;
	}
	if (bind(p, (struct sockaddr *)&ns, sizeof(ns)) ||
	    setsockopt(p, SOL_HICN, HICN_PACKET_SIZE, &pkt, sizeof(pkt))) {
		fail("producer bind/HICN_PACKET_SIZE");
		goto out;
	}
	c = socket(af, SOCK_CONS, CONS_REL);
	if (c < 0) {
		fail("socket(SOCK_CONS)");
		goto out;
	}
	memset(dst, 0, size);
	t0 = now();
	if (sendto(p, src, size, 0, (struct sockaddr *)&name, sizeof(name)) !=
	    (ssize_t)size) {
		fail("sendto");
		goto out;
	}
	if (connect(c, (struct sockaddr *)&name, sizeof(name))) {
		fail("connect");
		goto out;
	}
	got = read_all(c);
	t = now() - t0;
	if (check("AF_HICN", got))
		t = -1;
out:
	if (c >= 0)
		close(c);
	close(p);
	return t;
}

static void *writer(void *arg)
{
	int fd = *(int *)arg;
	size_t off = 0;
	ssize_t n;

	while (off < size) {
		n = send(fd, src + off, size - off < CHUNK ? size - off : CHUNK,
			 MSG_NOSIGNAL);
		if (n < 0) {
			fail("send");
			break;
		}
		off += n;
	}
	shutdown(fd, SHUT_WR);
	return NULL;
}

/* A writer thread on @wfd, the reader here on @rfd; seconds, or -1. */
static double stream_run(const char *what, int wfd, int rfd)
{
	pthread_t th;
	double t0, t;
	ssize_t got;

	memset(dst, 0, size);
	t0 = now();
	if (pthread_create(&th, NULL, writer, &wfd)) {
		fail("pthread_create");
		return -1;
	}
	got = read_all(rfd);
	t = now() - t0;
	pthread_join(th, NULL);
	return check(what, got) ? -1 : t;
}

/* The same socket buffers for both stream transports. */
static void set_bufs(int fd)
{
	int sz = SOCKBUF;

	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
}

static double tcp_run(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	int l, w = -1, r = -1, one = 1;
	double t = -1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&a, &alen)) {
		fail("TCP listener");
		goto out;
	}
	set_bufs(l);
	w = socket(AF_INET, SOCK_STREAM, 0);
	if (w >= 0)
		set_bufs(w);
	if (w < 0 || connect(w, (struct sockaddr *)&a, sizeof(a))) {
		fail("TCP connect");
		goto out;
	}
	r = accept(l, NULL, NULL);
	if (r < 0) {
		fail("TCP accept");
		goto out;
	}
	t = stream_run("TCP", w, r);
out:
	if (r >= 0)
		close(r);
	if (w >= 0)
		close(w);
	if (l >= 0)
		close(l);
	return t;
}

static double unix_run(void)
{
	int sv[2];
	double t;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
		fail("socketpair");
		return -1;
	}
	set_bufs(sv[0]);
	set_bufs(sv[1]);
	t = stream_run("AF_UNIX", sv[0], sv[1]);
	close(sv[0]);
	close(sv[1]);
	return t;
}

/* Best of @runs, in MB/s; -1 when a run failed. */
static double best(double (*run)(int), int arg, int runs)
{
	double t, b = 0;
	int i;

	for (i = 0; i < runs; i++) {
		t = run(arg);
		if (t <= 0)
			return -1;
		if (size / t / 1e6 > b)
			b = size / t / 1e6;
	}
	return b;
}

static double tcp_case(int unused)
{
	(void)unused;
	return tcp_run();
}

static double unix_case(int unused)
{
	(void)unused;
	return unix_run();
}

int main(int argc, char **argv)
{
	long mib = argc > 1 ? atol(argv[1]) : 64;
	int runs = argc > 2 ? atoi(argv[2]) : 3;
	double tcp, uds, h[2];
	const int pkts[2] = { 1500, 9000 };
	size_t i;
	int bad = 0;

	size = (size_t)mib << 20;
	src = malloc(size);
	dst = malloc(size);
	if (!src || !dst || runs < 1) {
		fprintf(stderr, "hicn_transfer: bad size or out of memory\n");
		return 1;
	}
	for (i = 0; i < size; i++)
		src[i] = (i * 2654435761u) >> 13;

	tcp = best(tcp_case, 0, runs);
	uds = best(unix_case, 0, runs);
	for (i = 0; i < 2; i++)
		h[i] = best(hicn_run, pkts[i], runs);

	printf("one %ld MiB object, %d KiB per call, best of %d, MB/s\n",
	       mib, CHUNK >> 10, runs);
	printf("(TCP and AF_UNIX: SO_SNDBUF = SO_RCVBUF = %d KiB)\n",
	       SOCKBUF >> 10);
	printf("| %-24s | %10s | %10s | %10s | %8s | %9s |\n", "AF_HICN",
	       "AF_HICN", "TCP lo", "AF_UNIX", "HICN/TCP", "HICN/UNIX");
	printf("|%s|%s|%s|%s|%s|%s|\n", "--------------------------",
	       "------------", "------------", "------------", "----------",
	       "-----------");
	for (i = 0; i < 2; i++) {
		char what[32];

		snprintf(what, sizeof(what), "HICN_PACKET_SIZE %d", pkts[i]);
		if (h[i] < 0 || tcp < 0 || uds < 0) {
			printf("| %-24s | %10s | %10.1f | %10.1f | %8s | %9s |\n",
			       what, "failed", tcp, uds, "-", "-");
			bad = 1;
			continue;
		}
		printf("| %-24s | %10.1f | %10.1f | %10.1f | %8.2f | %9.2f |\n",
		       what, h[i], tcp, uds, h[i] / tcp, h[i] / uds);
	}
	free(src);
	free(dst);
	return bad;
}
