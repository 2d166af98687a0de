// SPDX-License-Identifier: GPL-2.0
/*
 * The seed paper's two examples ("publish a content using a SOCK_PROD",
 * "pull a content using a SOCK_CONS"), verbatim, each wrapped in a
 * function, compiled with g++ -std=c++20 -Wall -Wextra -Werror against an
 * installed libhcn (`pkg-config --cflags --libs hcn`, see the Makefile).
 * As printed they need C++20 (designated initializers without '='), the
 * C++ overloads of hcn.h (&struct sockaddr_hicn where struct sockaddr * is
 * declared) and hcn_recvfrom() with a NULL addrlen.
 *
 * The printed producer has a typo: it writes the content name into
 * producer_namespace.sin_addr, so content_name stays "::" (outside the
 * namespace) and nothing is published.  paper_producer_fixed() is the same
 * code with content_name.sin_addr; run by lib_examples.sh in the VM, it
 * publishes and the printed consumer fetches the string: producer to
 * consumer through libhcn, in C++.
 *
 *   lib_examples run        fixed producer, printed consumer: exit 0 if
 *                           the string arrived
 *   lib_examples typo       printed producer: exit 0 if it fails to publish
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <hcn.h>

/* The string the producer publishes, with its NUL: BUF_SIZE (48) bytes. */
#define BUF_SIZE sizeof("This string will be published in the hcn socket")

/*
 * The paper passes NULL as hcn_sendto()'s socklen_t addr_len (0 for g++,
 * with -Wconversion-null) and a string literal as char * (ISO C++ forbids
 * it: -Wwrite-strings).  g++ 12 (Debian 12) also warns about the members a
 * designated initializer leaves out (-Wmissing-field-initializers, from
 * -Wextra; GCC 13 and C compilers do not, and the members are zeroed all
 * the same).  Nothing else is silenced.
 */
#pragma GCC diagnostic ignored "-Wconversion-null"
#pragma GCC diagnostic ignored "-Wwrite-strings"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

/* The printed producer example. */
static ssize_t paper_producer(void)
{
// Create a new producer socket
int sockfd = hcn_socket (AF_HICN, SOCK_PROD, PROD_REL);

// Set the namespace for publishing contents
struct sockaddr_hicn producer_namespace {
    .sin_family = AF_HICN,
    .sin_prefix = 64 // Limit the namespace to a /64 namespace
};

hcn_pton(AF_HICN, "b001:a:b:c::", &producer_namespace.sin_addr);

// Bind a local face with forwarder and set the corresponding local route
hcn_bind(sockfd, &producer_namespace, sizeof(producer_namespace));

// Publish a content with name b001:a:b:c::1234
struct sockaddr_hicn content_name {
    .sin_family = AF_HICN,
};
hcn_pton(AF_HICN, "b001:a:b:c::abcd", &producer_namespace.sin_addr);

char *buf = "This string will be published in the hcn socket";
ssize_t n = hcn_sendto(sockfd, buf, BUF_SIZE, 0, &content_name, NULL);

	close(sockfd);
	return n;
}

/*
 * The printed consumer example; @out gets what it received.  It fetches
 * b001:a:b:c::1234, so the fixed producer publishes under that name, as the
 * producer's comment says.
 */
static ssize_t paper_consumer(char *out)
{
// Create a new consumer socket
int sockfd = hcn_socket (AF_HICN, SOCK_CONS, CONS_REL);

// Set the name of the content to pull
struct sockaddr_hicn content_name {
    .sin_family = AF_HICN,
    .sin_prefix = 64 // Limit the interest namespace to a /64 namespace
};

hcn_pton(AF_HICN, "b001:a:b:c::1234", &content_name.sin_addr);

// Bind a local face with forwarder and enforce the namespace size limit
hcn_bind(sockfd, &content_name, sizeof(content_name));

// Pull the content with name b001:a:b:c::1234 and store it inside buf
char buf[BUF_SIZE];
ssize_t n = hcn_recvfrom(sockfd, buf, BUF_SIZE, 0, &content_name, NULL);

	if (n > 0)
		memcpy(out, buf, n);
	close(sockfd);
	return n;
}

/*
 * The producer with its typo fixed (content_name.sin_addr) and the name of
 * its comment, b001:a:b:c::1234; returns the socket, which must stay open
 * while the content is served.
 */
static int paper_producer_fixed(ssize_t *sent)
{
	int sockfd = hcn_socket(AF_HICN, SOCK_PROD, PROD_REL);

	struct sockaddr_hicn producer_namespace {
		.sin_family = AF_HICN,
		.sin_prefix = 64
	};

	hcn_pton(AF_HICN, "b001:a:b:c::", &producer_namespace.sin_addr);
	if (hcn_bind(sockfd, &producer_namespace, sizeof(producer_namespace)))
		perror("hcn_bind");

	struct sockaddr_hicn content_name {
		.sin_family = AF_HICN,
	};
	hcn_pton(AF_HICN, "b001:a:b:c::1234", &content_name.sin_addr);

	char *buf = "This string will be published in the hcn socket";
	*sent = hcn_sendto(sockfd, buf, BUF_SIZE, 0, &content_name, NULL);
	return sockfd;
}

int main(int argc, char **argv)
{
	const char *want = "This string will be published in the hcn socket";
	char got[BUF_SIZE] = "";
	ssize_t n, sent;
	int prod;

	if (argc == 2 && !strcmp(argv[1], "typo")) {
		n = paper_producer();
		printf("printed producer: hcn_sendto() returned %zd\n", n);
		return n < 0 ? 0 : 1;
	}
	if (argc != 2 || strcmp(argv[1], "run")) {
		fprintf(stderr, "usage: %s run|typo\n", argv[0]);
		return 2;
	}
	prod = paper_producer_fixed(&sent);
	if (prod < 0 || sent != (ssize_t)BUF_SIZE) {
		perror("producer");
		return 1;
	}
	n = paper_consumer(got);
	close(prod);
	printf("consumer: %zd bytes: %s\n", n, n > 0 ? got : "");
	return n == (ssize_t)BUF_SIZE && !strcmp(got, want) ? 0 : 1;
}
