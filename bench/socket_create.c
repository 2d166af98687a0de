// SPDX-License-Identifier: GPL-2.0
/*
 * socket() + close() rate of our sockets against their kernel peers, timed
 * with CLOCK_MONOTONIC in the same run: AF_HICN consumer and producer
 * against UDP, IPPROTO_PSOCK against TCP.  Prints a table of rates and the
 * ratio ours / peer.
 *
 * Usage: socket_create [ITERATIONS]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <linux/psock.h>

#include "hcn.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct case_ {
	const char *name;
	int family, type, protocol;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Sockets opened and closed per second, or -1 on failure. */
static double rate(const struct case_ *c, long n)
{
	double t0 = now();
	long i;

	for (i = 0; i < n; i++) {
		int fd = socket(c->family, c->type, c->protocol);

		if (fd < 0) {
			fprintf(stderr, "%s: %s\n", c->name, strerror(errno));
			return -1;
		}
		close(fd);
	}
	return n / (now() - t0);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000;
	int af = hcn_family();
	const struct case_ pairs[][2] = {
		{ { "AF_HICN SOCK_CONS", af, SOCK_CONS, 0 },
		  { "UDP", AF_INET, SOCK_DGRAM, 0 } },
		{ { "AF_HICN SOCK_PROD", af, SOCK_PROD, 0 },
		  { "UDP", AF_INET, SOCK_DGRAM, 0 } },
		{ { "PSOCK (IPv4)", AF_INET, SOCK_STREAM, IPPROTO_PSOCK },
		  { "TCP", AF_INET, SOCK_STREAM, 0 } },
		{ { "PSOCK (IPv6)", AF_INET6, SOCK_STREAM, IPPROTO_PSOCK },
		  { "TCP (IPv6)", AF_INET6, SOCK_STREAM, 0 } },
	};
	unsigned int i;
	int bad = 0;

	printf("socket() + close(), %ld each, ops/s\n", n);
	printf("| %-18s | %-10s | %12s | %12s | %6s |\n", "ours", "peer",
	       "ours ops/s", "peer ops/s", "ratio");
	printf("|--------------------|------------|--------------|--------------|--------|\n");
	for (i = 0; i < ARRAY_SIZE(pairs); i++) {
		/* Warm both paths, then measure them back to back. */
		double ours, peer;

		rate(&pairs[i][0], n / 10);
		rate(&pairs[i][1], n / 10);
		ours = rate(&pairs[i][0], n);
		peer = rate(&pairs[i][1], n);
		if (ours < 0 || peer < 0) {
			bad = 1;
			continue;
		}
		printf("| %-18s | %-10s | %12.0f | %12.0f | %6.2f |\n",
		       pairs[i][0].name, pairs[i][1].name, ours, peer,
		       ours / peer);
	}
	return bad;
}
