// SPDX-License-Identifier: GPL-2.0
/*
 * psock_cat: netcat for IPPROTO_PSOCK, used by the shell tests.
 *
 *   psock_cat [options] -l PORT        accept one connection
 *   psock_cat [options] HOST PORT      connect (retried while refused)
 *
 * Standard input goes to the socket (then shutdown(SHUT_WR)), the socket
 * goes to standard output until the peer's end of stream.
 *
 *   -6        IPv6 (default IPv4)
 *   -t        plain TCP instead of PSOCK
 *   -n N      PSOCK_RCMD_STREAM_CNT     -m N   PSOCK_MAX_STREAM_CNT
 *   -d N      PSOCK_DRIVER
 *   -a ADDR   PSOCK_ADD_LOCAL_ADDR (repeatable; port 0)
 *   -w        half-close only after the peer's end of stream (for a peer
 *             such as "nc -l", which stops sending at our end of stream)
 *   -W MS     wait MS milliseconds after the end of the stream before the
 *             last PSOCK_INFO (subflow failures are noticed meanwhile)
 *   -k        keep listening while the connection lasts (as a server
 *             does: dead subflows rejoin through its listener)
 *   -i        on standard error: "streams=N driver=D fallback=F" once
 *             connected, and at the end "end: subflows=N" plus one line
 *             "path ADDR subflows=N sent=B received=B from=LOCAL" per
 *             remote address (LOCAL "mixed" when its subflows differ)
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <linux/psock.h>

#define MAX_ADDRS	8

static int sfd;
static int send_err;
static int wait_peer;

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t r = write(fd, buf, len);

		if (r < 0)
			return -1;
		buf += r;
		len -= r;
	}
	return 0;
}

static void *stdin_to_sock(void *arg)
{
	static char buf[65536];
	ssize_t r;

	while ((r = read(0, buf, sizeof(buf))) > 0) {
		if (write_all(sfd, buf, r)) {
			perror("send");
			send_err = 1;
			return arg;
		}
	}
	if (r < 0 || (!wait_peer && shutdown(sfd, SHUT_WR))) {
		perror("stdin/shutdown");
		send_err = 1;
	}
	return arg;
}

static int set_opts(int fd, int rcmd, int max, int driver)
{
	if (rcmd && setsockopt(fd, SOL_PSOCK, PSOCK_RCMD_STREAM_CNT, &rcmd,
			       sizeof(rcmd)))
		return -1;
	if (max && setsockopt(fd, SOL_PSOCK, PSOCK_MAX_STREAM_CNT, &max,
			      sizeof(max)))
		return -1;
	if (driver >= 0 && setsockopt(fd, SOL_PSOCK, PSOCK_DRIVER, &driver,
				      sizeof(driver)))
		return -1;
	return 0;
}

static int add_addr(int fd, int family, const char *s)
{
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in sin = { .sin_family = AF_INET };

	if (family == AF_INET) {
		if (inet_pton(AF_INET, s, &sin.sin_addr) != 1)
			return -1;
		return setsockopt(fd, SOL_PSOCK, PSOCK_ADD_LOCAL_ADDR, &sin,
				  sizeof(sin));
	}
	if (inet_pton(AF_INET6, s, &sin6.sin6_addr) != 1)
		return -1;
	return setsockopt(fd, SOL_PSOCK, PSOCK_ADD_LOCAL_ADDR, &sin6,
			  sizeof(sin6));
}

struct info_buf {
	struct psock_info h;
	struct psock_subflow_info e[PSOCK_STREAM_CNT_LIMIT];
};

static int get_info(int fd, struct info_buf *ib)
{
	socklen_t il = sizeof(*ib);

	memset(ib, 0, sizeof(*ib));
	ib->h.size_user = sizeof(ib->e[0]);
	if (getsockopt(fd, SOL_PSOCK, PSOCK_INFO, ib, &il)) {
		perror("PSOCK_INFO");
		return -1;
	}
	return 0;
}

/* One line per remote address: how many subflows and bytes it carried. */
static void print_paths(const struct info_buf *ib)
{
	unsigned int n = ib->h.num < PSOCK_STREAM_CNT_LIMIT ?
			 ib->h.num : PSOCK_STREAM_CNT_LIMIT;
	int done[PSOCK_STREAM_CNT_LIMIT] = { 0 };
	unsigned int i, j;

	fprintf(stderr, "end: subflows=%u\n", ib->h.num);
	for (i = 0; i < n; i++) {
		unsigned long long sent = 0, rcvd = 0;
		char a[INET6_ADDRSTRLEN], l[INET6_ADDRSTRLEN];
		int cnt = 0, mixed = 0;

		if (done[i])
			continue;
		for (j = i; j < n; j++) {
			if (memcmp(ib->e[j].remote_addr, ib->e[i].remote_addr, 16))
				continue;
			done[j] = 1;
			cnt++;
			mixed |= !!memcmp(ib->e[j].local_addr,
					  ib->e[i].local_addr, 16);
			sent += ib->e[j].bytes_sent;
			rcvd += ib->e[j].bytes_received;
		}
		inet_ntop(ib->e[i].family, ib->e[i].remote_addr, a, sizeof(a));
		inet_ntop(ib->e[i].family, ib->e[i].local_addr, l, sizeof(l));
		fprintf(stderr,
			"path %s subflows=%d sent=%llu received=%llu from=%s\n",
			a, cnt, sent, rcvd, mixed ? "mixed" : l);
	}
}

int main(int argc, char **argv)
{
	int family = AF_INET, proto = IPPROTO_PSOCK, listen_mode = 0, info = 0;
	int keep_listen = 0;
	int rcmd = 0, max = 0, driver = -1, opt, fd, i, one = 1, naddr = 0;
	int wait_ms = 0;
	const char *addrs[MAX_ADDRS];
	struct sockaddr_storage ss = { 0 };
	static char buf[65536];
	struct info_buf ib;
	socklen_t len;
	pthread_t th;
	ssize_t r;

	while ((opt = getopt(argc, argv, "6tlkn:m:d:a:iwW:")) != -1) {
		switch (opt) {
		case '6':
			family = AF_INET6;
			break;
		case 't':
			proto = IPPROTO_TCP;
			break;
		case 'l':
			listen_mode = 1;
			break;
		case 'k':
			keep_listen = 1;
			break;
		case 'n':
			rcmd = atoi(optarg);
			break;
		case 'm':
			max = atoi(optarg);
			break;
		case 'd':
			driver = atoi(optarg);
			break;
		case 'a':
			if (naddr == MAX_ADDRS)
				return 2;
			addrs[naddr++] = optarg;
			break;
		case 'i':
			info = 1;
			break;
		case 'w':
			wait_peer = 1;
			break;
		case 'W':
			wait_ms = atoi(optarg);
			break;
		default:
			return 2;
		}
	}
	if (argc - optind != (listen_mode ? 1 : 2)) {
		fprintf(stderr,
			"usage: psock_cat [-6tiw] [-W MS] [-n N] [-m N] [-d N] [-a ADDR] -l PORT | HOST PORT\n");
		return 2;
	}
	ss.ss_family = family;
	if (family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

		sin->sin_port = htons(atoi(argv[argc - 1]));
		if (!listen_mode &&
		    inet_pton(AF_INET, argv[optind], &sin->sin_addr) != 1)
			return 2;
		len = sizeof(*sin);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

		sin6->sin6_port = htons(atoi(argv[argc - 1]));
		if (!listen_mode &&
		    inet_pton(AF_INET6, argv[optind], &sin6->sin6_addr) != 1)
			return 2;
		len = sizeof(*sin6);
	}

	for (i = 0; ; i++) {
		int k;

		fd = socket(family, SOCK_STREAM, proto);
		if (fd < 0) {
			perror("socket");
			return 1;
		}
		if (proto == IPPROTO_PSOCK && set_opts(fd, rcmd, max, driver)) {
			perror("setsockopt");
			return 1;
		}
		for (k = 0; k < naddr; k++) {
			if (add_addr(fd, family, addrs[k])) {
				perror("PSOCK_ADD_LOCAL_ADDR");
				return 1;
			}
		}
		if (listen_mode) {
			int l = fd;

			setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
			if (bind(l, (struct sockaddr *)&ss, len) || listen(l, 4)) {
				perror("bind/listen");
				return 1;
			}
			fd = accept(l, NULL, NULL);
			if (fd < 0) {
				perror("accept");
				return 1;
			}
			if (!keep_listen)
				close(l);
			break;
		}
		if (!connect(fd, (struct sockaddr *)&ss, len))
			break;
		if (errno != ECONNREFUSED || i == 100) {
			perror("connect");
			return 1;
		}
		close(fd);
		usleep(100000);
	}
	sfd = fd;

	if (info && proto == IPPROTO_PSOCK) {
		if (get_info(fd, &ib))
			return 1;
		fprintf(stderr, "streams=%u driver=%u fallback=%u\n",
			ib.h.stream_cnt, ib.h.driver,
			!!(ib.h.flags & PSOCK_INFO_FALLBACK));
	}

	if (pthread_create(&th, NULL, stdin_to_sock, NULL))
		return 1;
	while ((r = read(fd, buf, sizeof(buf))) > 0) {
		if (write_all(1, buf, r))
			return 1;
	}
	if (r < 0) {
		perror("recv");
		return 1;
	}
	pthread_join(th, NULL);
	if (wait_peer && !send_err && shutdown(fd, SHUT_WR)) {
		perror("shutdown");
		return 1;
	}
	if (wait_ms)
		usleep(wait_ms * 1000);
	if (info && proto == IPPROTO_PSOCK) {
		if (get_info(fd, &ib))
			return 1;
		print_paths(&ib);
	}
	close(fd);
	return send_err;
}
