// SPDX-License-Identifier: GPL-2.0
/*
 * libpsockize.so: run an unmodified program with its TCP sockets made
 * PSOCK sockets (psockize(8)), by LD_PRELOAD.
 *
 * socket() is interposed: a call for a TCP socket of the Internet
 * families, socket(AF_INET or AF_INET6, SOCK_STREAM [| SOCK_NONBLOCK |
 * SOCK_CLOEXEC], 0 or IPPROTO_TCP), asks for IPPROTO_PSOCK instead, with
 * the same family and type flags.  When that fails (psock.ko neither
 * loaded nor loadable: EPROTONOSUPPORT; net.psock.enabled=0 in the
 * network namespace: ENOPROTOOPT; or any other error), the program gets
 * the TCP socket it asked for, as if the library were not there: a PSOCK
 * socket is a TCP socket's stand-in, never a condition for running.  Every
 * other call goes to the next socket() unchanged: socketpair() is not
 * interposed at all.
 *
 * Nothing is cached: each socket() tries PSOCK again, so a module loaded
 * or a sysctl changed while the program runs applies to its next socket.
 * PSOCKIZE_DEBUG set in the environment prints, on standard error, one
 * line per socket() the library changed or let fall back.
 *
 * Each PSOCK socket is made optimistic (PSOCK_OPTIMISTIC): a client's
 * first bytes go out at once, so a plain TCP server that waits for its
 * client (HTTP, TLS) costs no hello timeout.  PSOCKIZE_OPTIMISTIC=0 in
 * the environment leaves the sockets as they are (net.psock.optimistic).
 * A module without the option leaves them so too.
 *
 * What LD_PRELOAD cannot reach (static binaries, setuid programs, sockets
 * made by io_uring's IORING_OP_SOCKET or by a raw syscall) keeps TCP; see
 * psockize(8).
 */

#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/psock.h>

typedef int (*socket_fn)(int domain, int type, int protocol);

/* The system call itself, should the loader find no next socket(). */
static int sys_socket(int domain, int type, int protocol)
{
	return syscall(SYS_socket, domain, type, protocol);
}

static socket_fn next_socket;
static int debug;
static int optimistic;

__attribute__((constructor))
static void psockize_init(void)
{
	const char *o = getenv("PSOCKIZE_OPTIMISTIC");

	next_socket = (socket_fn)dlsym(RTLD_NEXT, "socket");
	if (!next_socket)
		next_socket = sys_socket;
	debug = !!getenv("PSOCKIZE_DEBUG");
	optimistic = !o || strcmp(o, "0");
}

static int is_tcp(int domain, int type, int protocol)
{
	return (domain == AF_INET || domain == AF_INET6) &&
	       (type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC)) == SOCK_STREAM &&
	       (protocol == 0 || protocol == IPPROTO_TCP);
}

int socket(int domain, int type, int protocol)
{
	int fd, err;

	/* A socket() from another library's constructor, before ours ran. */
	if (!next_socket)
		psockize_init();
	if (!is_tcp(domain, type, protocol))
		return next_socket(domain, type, protocol);

	fd = next_socket(domain, type, IPPROTO_PSOCK);
	if (fd >= 0) {
		int one = 1;

		/* errno as the caller left it, whatever the answer. */
		err = errno;
		if (optimistic)
			setsockopt(fd, SOL_PSOCK, PSOCK_OPTIMISTIC, &one,
				   sizeof(one));
		errno = err;
		if (debug)
			fprintf(stderr, "psockize: fd %d is PSOCK\n", fd);
		return fd;
	}
	err = errno;
	fd = next_socket(domain, type, protocol);
	if (debug) {
		int tcp_err = errno;

		fprintf(stderr, "psockize: PSOCK refused (%s), TCP fd %d\n",
			strerror(err), fd);
		errno = tcp_err;
	}
	return fd;
}
