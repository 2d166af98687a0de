// SPDX-License-Identifier: GPL-2.0
/*
 * http_get: COUNT sequential HTTP/1.0 GETs, each on a connection of its
 * own, for bench/psock_http.sh: what connection set-up costs a transport
 * against a plain TCP web server, which waits for its client to speak.
 *
 *   http_get -p PROTO [-O] [-n STREAMS] [-d] [-c COUNT] HOST PORT PATH
 *
 * PROTO: psock or tcp.  -O: PSOCK_OPTIMISTIC (Documentation/psock.rst,
 * "Optimistic connect").  -d: no setsockopt() at all, the PSOCK socket
 * as the namespace's sysctls make it (net.psock.optimistic and the
 * stream counts), as an unmodified program gets it.  Each answer must start with "HTTP/1.1 200" and
 * end with the server's close.  Prints "SECONDS COUNT", timed with
 * CLOCK_MONOTONIC from the first connect() to the last answer's end.
 * IPv4 only.
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

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int psock_setup(int fd, int streams, int opt)
{
	return setsockopt(fd, SOL_PSOCK, PSOCK_RCMD_STREAM_CNT, &streams,
			  sizeof(streams)) ||
	       setsockopt(fd, SOL_PSOCK, PSOCK_MAX_STREAM_CNT, &streams,
			  sizeof(streams)) ||
	       (opt && setsockopt(fd, SOL_PSOCK, PSOCK_OPTIMISTIC, &opt,
				  sizeof(opt)));
}

/*
 * One GET on a new connection: 0, or -1 (printed).  @streams 0: a PSOCK
 * socket with no option set.
 */
static int get(const struct sockaddr_in *a, int proto, int streams, int opt,
	       const char *req, size_t rlen)
{
	char ans[65536];
	size_t got = 0;
	ssize_t r;
	int fd = socket(AF_INET, SOCK_STREAM, proto);

	if (fd < 0 ||
	    (proto != IPPROTO_TCP && streams && psock_setup(fd, streams, opt)) ||
	    connect(fd, (const struct sockaddr *)a, sizeof(*a)) ||
	    send(fd, req, rlen, MSG_NOSIGNAL) != (ssize_t)rlen) {
		perror("http_get");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while ((r = recv(fd, ans + got, sizeof(ans) - got, 0)) > 0) {
		got += r;
		if (got == sizeof(ans))
			got = 12;	/* the status line is all we check */
	}
	close(fd);
	if (r < 0 || got < 12 || memcmp(ans, "HTTP/1.1 200", 12)) {
		fprintf(stderr, "http_get: a bad answer\n");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int proto = IPPROTO_TCP, streams = 1, opt = 0, dflt = 0, o;
	char req[512];
	long count = 1000, i;
	double t0;
	int rlen;

	while ((o = getopt(argc, argv, "p:On:dc:")) != -1) {
		switch (o) {
		case 'p':
			proto = !strcmp(optarg, "psock") ? IPPROTO_PSOCK :
				IPPROTO_TCP;
			break;
		case 'O':
			opt = 1;
			break;
		case 'n':
			streams = atoi(optarg);
			break;
		case 'd':
			dflt = 1;
			break;
		case 'c':
			count = atol(optarg);
			break;
		default:
			return 2;
		}
	}
	if (optind + 3 != argc || count < 1 || streams < 1 ||
	    inet_pton(AF_INET, argv[optind], &a.sin_addr) != 1)
		return 2;
	a.sin_port = htons(atoi(argv[optind + 1]));
	rlen = snprintf(req, sizeof(req), "GET %s HTTP/1.0\r\nHost: %s\r\n\r\n",
			argv[optind + 2], argv[optind]);
	if (rlen < 0 || rlen >= (int)sizeof(req))
		return 2;
	t0 = now();
	for (i = 0; i < count; i++)
		if (get(&a, proto, dflt ? 0 : streams, opt, req, rlen))
			return 1;
	printf("%.6f %ld\n", now() - t0, count);
	return 0;
}
