// SPDX-License-Identifier: GPL-2.0
/*
 * psock_xfer: one timed bulk transfer, for bench/psock_paths.sh.
 *
 *   psock_xfer -l PORT [-p PROTO] [-d DRIVER] [-a ADDR]...   server:
 *	accept one connection, read to the end, answer one byte, close
 *   psock_xfer -p PROTO [-d DRIVER] [-n STREAMS] -s BYTES HOST PORT
 *	client: connect, send BYTES, shutdown(SHUT_WR), wait for the
 *	server's byte; prints "SECONDS BYTES", timed with CLOCK_MONOTONIC
 *	from before connect() to the server's byte (all data read by it)
 *
 * PROTO: psock, mptcp or tcp.  IPv4 only.  -a: PSOCK_ADD_LOCAL_ADDR.
 * -b BYTES (either side): SO_SNDBUF and SO_RCVBUF of the socket before
 * listen()/connect(); PSOCK gives each subflow these buffers.  The
 * client fails when the connection did not get the driver and stream
 * count it asked for (the driver needs both ends to ask).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <linux/psock.h>

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP	262
#endif

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

static int serve(int proto, int port, char **addrs, int naddr, int bufsz,
		 int driver)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(port) };
	static char buf[1 << 16];
	long long total = 0;
	int l, c, i, one = 1;
	ssize_t r;

	l = socket(AF_INET, SOCK_STREAM, proto);
	if (l < 0) {
		perror("socket");
		return 1;
	}
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (set_bufs(l, bufsz))
		return 1;
	if (driver >= 0 && setsockopt(l, SOL_PSOCK, PSOCK_DRIVER, &driver,
				      sizeof(driver))) {
		perror("PSOCK_DRIVER");
		return 1;
	}
	for (i = 0; i < naddr; i++) {
		struct sockaddr_in a = { .sin_family = AF_INET };

		if (inet_pton(AF_INET, addrs[i], &a.sin_addr) != 1 ||
		    setsockopt(l, SOL_PSOCK, PSOCK_ADD_LOCAL_ADDR, &a,
			       sizeof(a))) {
			perror("PSOCK_ADD_LOCAL_ADDR");
			return 1;
		}
	}
	if (bind(l, (struct sockaddr *)&sin, sizeof(sin)) || listen(l, 4)) {
		perror("bind/listen");
		return 1;
	}
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
	close(l);
	fprintf(stderr, "server read %lld bytes\n", total);
	return 0;
}

int main(int argc, char **argv)
{
	int proto = IPPROTO_PSOCK, port = 0, driver = -1, streams = 0, opt;
	long long size = 16 << 20, left;
	static char buf[1 << 16];
	struct sockaddr_in sin = { .sin_family = AF_INET };
	char *addrs[PSOCK_ADDR_MAX];
	int naddr = 0, fd, bufsz = 0;
	double t0, t1;
	char k;

	while ((opt = getopt(argc, argv, "l:p:a:d:n:s:b:")) != -1) {
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
		default:
			return 2;
		}
	}
	if (proto < 0)
		return 2;
	if (port)
		return serve(proto, port, addrs, naddr, bufsz, driver);
	if (argc - optind != 2 ||
	    inet_pton(AF_INET, argv[optind], &sin.sin_addr) != 1)
		return 2;
	sin.sin_port = htons(atoi(argv[optind + 1]));
	memset(buf, 0x5a, sizeof(buf));

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
	if (proto == IPPROTO_PSOCK && (driver >= 0 || streams)) {
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
	if (shutdown(fd, SHUT_WR) || read(fd, &k, 1) != 1) {
		perror("shutdown/read");
		return 1;
	}
	t1 = now();
	close(fd);
	printf("%.3f %lld\n", t1 - t0, size);
	return 0;
}
