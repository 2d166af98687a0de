// SPDX-License-Identifier: GPL-2.0
/*
 * so_protocol PORT: the protocol (SO_PROTOCOL) of the sockets this
 * program makes, for psockize_bpf.sh.  Linked statically: no dynamic
 * loader, so LD_PRELOAD cannot reach it, only the kernel's
 * update_socket_protocol() hook can.
 *
 * Prints, on one line, the protocol of socket(AF_INET, SOCK_STREAM, 0),
 * socket(AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0),
 * socket(AF_INET, SOCK_STREAM, IPPROTO_TCP), socket(AF_INET, SOCK_DGRAM,
 * 0) and socket(AF_UNIX, SOCK_STREAM, 0), then "connected" and the
 * protocol of a socket(AF_INET, SOCK_STREAM, 0) that connected to
 * 127.0.0.1:PORT, sent a byte and read it back.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

static int protocol(int fd)
{
	socklen_t len = sizeof(int);
	int p;

	if (getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &p, &len)) {
		perror("SO_PROTOCOL");
		exit(1);
	}
	return p;
}

static int make(int family, int type, int proto)
{
	int fd = socket(family, type, proto);

	if (fd < 0) {
		perror("socket");
		exit(1);
	}
	return fd;
}

static void print_protocol(int family, int type, int proto)
{
	int fd = make(family, type, proto);

	printf("%d ", protocol(fd));
	close(fd);
}

int main(int argc, char **argv)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	char c = 'x';
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: so_protocol PORT\n");
		return 2;
	}
	print_protocol(AF_INET, SOCK_STREAM, 0);
	print_protocol(AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	print_protocol(AF_INET, SOCK_STREAM, IPPROTO_TCP);
	print_protocol(AF_INET, SOCK_DGRAM, 0);
	print_protocol(AF_UNIX, SOCK_STREAM, 0);

	fd = make(AF_INET, SOCK_STREAM, 0);
	sin.sin_port = htons(atoi(argv[1]));
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) ||
	    write(fd, &c, 1) != 1 || read(fd, &c, 1) != 1) {
		perror("connect, write, read");
		return 1;
	}
	printf("connected %d\n", protocol(fd));
	close(fd);
	return 0;
}
