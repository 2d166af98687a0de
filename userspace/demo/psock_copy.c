// SPDX-License-Identifier: GPL-2.0
/*
 * Demo: copy a file over one PSOCK connection, the way an application
 * would: it only names IPPROTO_PSOCK in socket().
 *
 *   psock_copy -l PORT [-a ADDR]... > FILE     receive one file
 *   psock_copy [-n N] HOST PORT < FILE         send it
 *
 * The receiver announces its further addresses (-a, PSOCK_ADD_LOCAL_ADDR)
 * so that the sender's subflows use every path.  The sender prints on
 * standard error the seconds from connect() to the receiver's last read,
 * the subflow count, and the bytes each remote address carried
 * (PSOCK_INFO).  IPv4.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/psock.h>

#define MAX_SF	PSOCK_STREAM_CNT_LIMIT

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int copy(int in, int out)
{
	static char buf[1 << 16];
	ssize_t r;

	while ((r = read(in, buf, sizeof(buf))) > 0) {
		char *p = buf;

		while (r > 0) {
			ssize_t w = write(out, p, r);

			if (w <= 0)
				return -1;
			p += w;
			r -= w;
		}
	}
	return r < 0 ? -1 : 0;
}

static int receive(int port, char **addrs, int naddr)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(port) };
	int l, c, i, one = 1;

	l = socket(AF_INET, SOCK_STREAM, IPPROTO_PSOCK);
	if (l < 0) {
		perror("socket(IPPROTO_PSOCK)");
		return 1;
	}
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	for (i = 0; i < naddr; i++) {
		struct sockaddr_in a = { .sin_family = AF_INET };

		if (inet_pton(AF_INET, addrs[i], &a.sin_addr) != 1 ||
		    setsockopt(l, SOL_PSOCK, PSOCK_ADD_LOCAL_ADDR, &a,
			       sizeof(a))) {
			perror("PSOCK_ADD_LOCAL_ADDR");
			return 1;
		}
	}
	if (bind(l, (struct sockaddr *)&sin, sizeof(sin)) || listen(l, 1)) {
		perror("bind/listen");
		return 1;
	}
	c = accept(l, NULL, NULL);
	if (c < 0 || copy(c, 1) || write(c, "k", 1) != 1) {
		perror("receive");
		return 1;
	}
	close(c);
	close(l);
	return 0;
}

/* Bytes sent per remote address, from PSOCK_INFO. */
static void print_paths(int fd)
{
	struct {
		struct psock_info h;
		struct psock_subflow_info sf[MAX_SF];
	} b;
	socklen_t len = sizeof(b);
	unsigned int i, j;

	memset(&b, 0, sizeof(b));
	b.h.size_user = sizeof(b.sf[0]);
	if (getsockopt(fd, SOL_PSOCK, PSOCK_INFO, &b, &len)) {
		perror("PSOCK_INFO");
		return;
	}
	fprintf(stderr, "subflows %u, driver %s%s\n", b.h.num,
		b.h.driver ? "round-robin" : "poll-all",
		b.h.flags & PSOCK_INFO_FALLBACK ? " (plain TCP peer)" : "");
	for (i = 0; i < b.h.num && i < MAX_SF; i++) {
		unsigned long long sent = 0;
		unsigned int n = 0;
		char a[INET_ADDRSTRLEN];

		for (j = 0; j < i; j++)
			if (!memcmp(b.sf[j].remote_addr, b.sf[i].remote_addr, 4))
				break;
		if (j < i)
			continue;	/* this address was printed */
		for (j = i; j < b.h.num && j < MAX_SF; j++) {
			if (memcmp(b.sf[j].remote_addr, b.sf[i].remote_addr, 4))
				continue;
			sent += b.sf[j].bytes_sent;
			n++;
		}
		inet_ntop(AF_INET, b.sf[i].remote_addr, a, sizeof(a));
		fprintf(stderr, "  to %-15s %u subflows, %llu bytes\n", a, n,
			sent);
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	int port = 0, n = 0, naddr = 0, fd, opt;
	char *addrs[PSOCK_ADDR_MAX];
	double t0;
	char k;

	while ((opt = getopt(argc, argv, "l:a:n:")) != -1) {
		switch (opt) {
		case 'l':
			port = atoi(optarg);
			break;
		case 'a':
			if (naddr < PSOCK_ADDR_MAX)
				addrs[naddr++] = optarg;
			break;
		case 'n':
			n = atoi(optarg);
			break;
		default:
			return 2;
		}
	}
	if (port)
		return receive(port, addrs, naddr);
	if (argc - optind != 2 ||
	    inet_pton(AF_INET, argv[optind], &sin.sin_addr) != 1) {
		fprintf(stderr, "usage: psock_copy -l PORT [-a ADDR]... | [-n N] HOST PORT\n");
		return 2;
	}
	sin.sin_port = htons(atoi(argv[optind + 1]));

	fd = socket(AF_INET, SOCK_STREAM, IPPROTO_PSOCK);
	if (fd < 0) {
		perror("socket(IPPROTO_PSOCK)");
		return 1;
	}
	if (n && (setsockopt(fd, SOL_PSOCK, PSOCK_RCMD_STREAM_CNT, &n,
			     sizeof(n)) ||
		  setsockopt(fd, SOL_PSOCK, PSOCK_MAX_STREAM_CNT, &n,
			     sizeof(n)))) {
		perror("PSOCK_RCMD_STREAM_CNT");
		return 1;
	}
	t0 = now();
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin))) {
		perror("connect");
		return 1;
	}
	if (copy(0, fd) || shutdown(fd, SHUT_WR) || read(fd, &k, 1) != 1) {
		perror("send");
		return 1;
	}
	fprintf(stderr, "seconds %.3f\n", now() - t0);
	print_paths(fd);
	close(fd);
	return 0;
}
