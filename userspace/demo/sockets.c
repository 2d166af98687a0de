// SPDX-License-Identifier: GPL-2.0
/*
 * Demo: open every kind of socket the two modules offer and show what the
 * kernel says about each (SO_DOMAIN, SO_TYPE, SO_PROTOCOL), then the
 * /proc/net/hicn listing and the socket counts of /proc/net/protocols while
 * they are open.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <linux/psock.h>

#include "hcn.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct kind {
	const char *what;
	int family, type, protocol;
};

static int opt(int fd, int name)
{
	socklen_t len = sizeof(int);
	int v = -1;

	getsockopt(fd, SOL_SOCKET, name, &v, &len);
	return v;
}

static void cat(const char *path, const char *const *only)
{
	char line[512];
	FILE *f = fopen(path, "r");
	int first = 1;

	if (!f) {
		printf("  (%s: %s)\n", path, strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		const char *const *p;
		int keep = !only || first;

		for (p = only; p && *p && !keep; p++)
			keep = !strncmp(line, *p, strlen(*p)) &&
			       line[strlen(*p)] == ' ';
		if (keep)
			printf("  %s", line);
		first = 0;
	}
	fclose(f);
}

int main(void)
{
	static const char *const protos[] = { "HICN", "PSOCK", "PSOCKv6", NULL };
	int af = hcn_family();
	const struct kind kinds[] = {
		{ "AF_HICN  SOCK_CONS CONS_REL  ", af, SOCK_CONS, CONS_REL },
		{ "AF_HICN  SOCK_CONS CONS_UNREL", af, SOCK_CONS, CONS_UNREL },
		{ "AF_HICN  SOCK_PROD PROD_REL  ", af, SOCK_PROD, PROD_REL },
		{ "AF_HICN  SOCK_PROD PROD_UNREL", af, SOCK_PROD, PROD_UNREL },
		{ "AF_INET  STREAM IPPROTO_PSOCK", AF_INET, SOCK_STREAM, IPPROTO_PSOCK },
		{ "AF_INET6 STREAM IPPROTO_PSOCK", AF_INET6, SOCK_STREAM, IPPROTO_PSOCK },
	};
	int fds[ARRAY_SIZE(kinds)];
	unsigned int i, bad = 0;

	printf("AF_HICN is family %d (%s)\n\n", af, HICN_FAMILY_PARAM);
	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		fds[i] = socket(kinds[i].family, kinds[i].type, kinds[i].protocol);
		if (fds[i] < 0) {
			printf("%s  socket() failed: %s\n", kinds[i].what,
			       strerror(errno));
			bad++;
			continue;
		}
		printf("%s  fd %d: SO_DOMAIN %d, SO_TYPE %d, SO_PROTOCOL %d\n",
		       kinds[i].what, fds[i], opt(fds[i], SO_DOMAIN),
		       opt(fds[i], SO_TYPE), opt(fds[i], SO_PROTOCOL));
	}

	printf("\n/proc/net/hicn:\n");
	cat("/proc/net/hicn", NULL);
	printf("\n/proc/net/protocols (sockets in the third column):\n");
	cat("/proc/net/protocols", protos);

	for (i = 0; i < ARRAY_SIZE(kinds); i++)
		if (fds[i] >= 0)
			close(fds[i]);
	printf("\nclosed; /proc/net/protocols now:\n");
	cat("/proc/net/protocols", protos);
	return bad ? 1 : 0;
}
