// SPDX-License-Identifier: GPL-2.0
/*
 * socktool: open a socket for the shell tests.
 *
 *   socktool try  FAMILY TYPE PROTO   print "ok" or the errno's name
 *   socktool hold FAMILY TYPE PROTO   print "ready", keep the socket open
 *                                     until a signal ends the process
 *
 * FAMILY: a number, "hicn" (the number in force), "inet" or "inet6".
 * TYPE:   a number, "cons", "prod", "stream" or "dgram".
 * PROTO:  a number, or "psock".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <linux/psock.h>

#include "hcn.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	const char *name;
	int value;
} words[] = {
	{ "inet", AF_INET },
	{ "inet6", AF_INET6 },
	{ "cons", SOCK_CONS },
	{ "prod", SOCK_PROD },
	{ "stream", SOCK_STREAM },
	{ "dgram", SOCK_DGRAM },
	{ "psock", IPPROTO_PSOCK },
};

static int parse(const char *s)
{
	char *end;
	long v;
	size_t i;

	if (!strcmp(s, "hicn"))
		return hcn_family();
	for (i = 0; i < ARRAY_SIZE(words); i++)
		if (!strcmp(s, words[i].name))
			return words[i].value;
	v = strtol(s, &end, 0);
	if (*s == '\0' || *end != '\0') {
		fprintf(stderr, "socktool: bad number '%s'\n", s);
		exit(2);
	}
	return (int)v;
}

int main(int argc, char **argv)
{
	int fd;

	if (argc != 5 || (strcmp(argv[1], "try") && strcmp(argv[1], "hold"))) {
		fprintf(stderr, "usage: socktool try|hold FAMILY TYPE PROTO\n");
		return 2;
	}

	fd = socket(parse(argv[2]), parse(argv[3]), parse(argv[4]));
	if (fd < 0) {
		printf("%s\n", strerrorname_np(errno));
		return argv[1][0] == 'h' ? 1 : 0;
	}

	if (argv[1][0] == 't') {
		printf("ok\n");
		close(fd);
		return 0;
	}

	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
