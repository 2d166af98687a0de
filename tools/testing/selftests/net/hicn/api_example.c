// SPDX-License-Identifier: GPL-2.0
/*
 * The AF_HICN API example of Documentation/hicn-api.rst, which shows
 * copies of the regions between the [markers] (make htmldocs fails when
 * they differ, make docs-examples copies them again): a producer
 * publishes a string under b001:a:b:c::abcd, a consumer fetches it in
 * datagram mode (the seed paper's bind + recvfrom) and another one in
 * stream mode (connect + read until 0).  example_test.c
 * compiles and runs it, so the documented code cannot rot.
 *
 * Build alone: cc -I include/uapi -I userspace/lib api_example.c \
 *		userspace/lib/libhcn.a
 * or, with libhcn installed: cc api_example.c $(pkg-config --cflags --libs hcn)
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hcn.h"		/* hcn_*(), <linux/hicn.h> */

#define BUF_SIZE 4096

/* [producer] */
/* Publish @msg as the next version of b001:a:b:c::abcd; the producer socket,
 * which must stay open while the content is to be served, or -1.
 */
int example_producer(const char *msg)
{
	struct sockaddr_hicn ns = { .sin_family = AF_HICN, .sin_prefix = 64 };
	struct sockaddr_hicn name = { .sin_family = AF_HICN, .sin_prefix = 128 };
	ssize_t n;
	int fd;

	fd = hcn_socket(AF_HICN, SOCK_PROD, PROD_REL);
	if (fd < 0) {
		perror("socket");
		return -1;
	}

	/* Claim the namespace b001:a:b:c::/64. */
	hcn_pton(AF_HICN, "b001:a:b:c::", &ns.sin_addr);
	if (hcn_bind(fd, &ns, sizeof(ns))) {
		perror("bind");
		goto fail;
	}

	/* Publish: the kernel numbers the version (sin_suffix must be 0). */
	hcn_pton(AF_HICN, "b001:a:b:c::abcd", &name.sin_addr);
	n = hcn_sendto(fd, msg, strlen(msg), 0, &name, sizeof(name));
	if (n < 0) {
		perror("sendto");
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return -1;
}

/* [producer] */

/* [consumer] */
/* Datagram mode: fetch the newest version of b001:a:b:c::abcd into @buf
 * with one recvfrom(); its length, or -1.
 */
ssize_t example_consumer(char *buf, size_t len)
{
	struct sockaddr_hicn name = {
		.sin_family = AF_HICN,
		.sin_prefix = 64,	/* requests stay in b001:a:b:c::/64 */
		.sin_suffix = HICN_VERSION_LATEST,
	};
	struct sockaddr_hicn from;
	socklen_t fromlen = sizeof(from);
	char addr[INET6_ADDRSTRLEN];
	ssize_t n;
	int fd;

	fd = hcn_socket(AF_HICN, SOCK_CONS, CONS_REL);
	if (fd < 0) {
		perror("socket");
		return -1;
	}
	hcn_pton(AF_HICN, "b001:a:b:c::abcd", &name.sin_addr);
	if (hcn_bind(fd, &name, sizeof(name))) {
		perror("bind");
		close(fd);
		return -1;
	}

	n = hcn_recvfrom(fd, buf, len, 0, &from, &fromlen);
	if (n < 0)
		perror("recvfrom");
	else
		printf("got %zd bytes of %s version %u\n", n,
		       hcn_ntop(AF_HICN, &from.sin_addr, addr, sizeof(addr)),
		       from.sin_suffix);
	close(fd);
	return n;
}

/* [consumer] */

/* [stream] */
/* Stream mode: connect() to the name, read() until 0 (end of the object). */
ssize_t example_stream_consumer(char *buf, size_t len)
{
	struct sockaddr_hicn name = { .sin_family = AF_HICN, .sin_prefix = 128 };
	size_t total = 0;
	ssize_t n;
	int fd;

	fd = hcn_socket(AF_HICN, SOCK_CONS, CONS_REL);
	if (fd < 0) {
		perror("socket");
		return -1;
	}
	hcn_pton(AF_HICN, "b001:a:b:c::abcd", &name.sin_addr);
	if (hcn_connect(fd, &name, sizeof(name))) {
		perror("connect");
		close(fd);
		return -1;
	}
	while (total < len) {
		n = read(fd, buf + total, len - total);
		if (n < 0) {
			perror("read");
			close(fd);
			return -1;
		}
		if (n == 0)
			break;		/* the whole object has been read */
		total += n;
	}
	close(fd);
	return total;
}

/* [stream] */

int example_main(void)
{
	const char *msg = "This string will be published in the hicn socket";
	char buf[BUF_SIZE];
	int prod, bad = 0;
	ssize_t n;

	prod = example_producer(msg);
	if (prod < 0)
		return 1;

	n = example_consumer(buf, sizeof(buf));
	if (n != (ssize_t)strlen(msg) || memcmp(buf, msg, n))
		bad = 1;
	memset(buf, 0, sizeof(buf));
	n = example_stream_consumer(buf, sizeof(buf));
	if (n != (ssize_t)strlen(msg) || memcmp(buf, msg, n))
		bad = 1;

	close(prod);
	printf("%s\n", bad ? "FAIL" : "OK");
	return bad;
}

#ifndef EXAMPLE_NO_MAIN
int main(void)
{
	return example_main();
}
#endif
