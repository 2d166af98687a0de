// SPDX-License-Identifier: GPL-2.0
/*
 * libhcn: the hICN socket API (hcn_socket(), hcn_bind(), ...) over
 * AF_HICN sockets.  See hcn.h and Documentation/man/man3/libhcn.3.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "hcn.h"

#ifdef HCN_SOCKADDR_UNION
#define SA(a)	((a).__sa)
#else
#define SA(a)	(a)
#endif

/*
 * The number in force as last read by hcn_family(), 0 before the first
 * read.  Names are translated with it; hcn_socket() and hcn_family() read
 * it afresh, so a reload of the module with another family= is noticed by
 * the next of those calls.
 */
static int hcn_cached_family;

/* The number in force, -1 if the module is not loaded. */
static int hcn_read_family(void)
{
	char buf[16];
	ssize_t n;
	long v;
	int fd;

	fd = open(HICN_FAMILY_PARAM, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	v = strtol(buf, NULL, 10);
	if (v <= 0 || v >= 256)
		return -1;
	return v;
}

int hcn_family(void)
{
	int family = hcn_read_family();

	if (family < 0)
		family = AF_HICN;
	__atomic_store_n(&hcn_cached_family, family, __ATOMIC_RELAXED);
	return family;
}

static int hcn_runtime(void)
{
	int family = __atomic_load_n(&hcn_cached_family, __ATOMIC_RELAXED);

	return family ? family : hcn_family();
}

/* @af names AF_HICN: the compile-time number or the one in force. */
static int hcn_is_hicn(int af)
{
	if (af == AF_HICN)
		return 1;
	if (af == AF_INET || af == AF_INET6 || af == AF_UNSPEC)
		return 0;
	return af == hcn_runtime();
}

int hcn_socket(int domain, int type, int protocol)
{
	int family, fd;

	if (!hcn_is_hicn(domain))
		return socket(domain, type, protocol);
	family = hcn_read_family();
	if (family >= 0) {
		__atomic_store_n(&hcn_cached_family, family, __ATOMIC_RELAXED);
		return socket(family, type, protocol);
	}
	/* Not loaded: socket() autoloads the module for AF_HICN ... */
	fd = socket(AF_HICN, type, protocol);
	if (fd >= 0 || errno != EAFNOSUPPORT)
		return fd;
	/* ... which may have been configured with another number. */
	family = hcn_family();
	if (family == AF_HICN) {
		errno = EAFNOSUPPORT;
		return fd;
	}
	return socket(family, type, protocol);
}

/*
 * The name to pass to the kernel: @addr itself, or @copy with the number in
 * force when @addr says AF_HICN and the module uses another number.
 */
static const struct sockaddr *hcn_fix(const struct sockaddr *addr,
				      socklen_t len,
				      struct sockaddr_storage *copy)
{
	int family;

	if (!addr || len < sizeof(sa_family_t) || len > sizeof(*copy) ||
	    addr->sa_family != AF_HICN)
		return addr;
	family = hcn_runtime();
	if (family == AF_HICN)
		return addr;
	memcpy(copy, addr, len);
	copy->ss_family = family;
	return (const struct sockaddr *)copy;
}

/* A name the kernel returned: the number in force becomes AF_HICN. */
static void hcn_unfix(void *addr, socklen_t len)
{
	sa_family_t family;

	if (!addr || len < sizeof(family))
		return;
	memcpy(&family, addr, sizeof(family));
	if (family != AF_HICN && hcn_is_hicn(family)) {
		family = AF_HICN;
		memcpy(addr, &family, sizeof(family));
	}
}

int hcn_bind(int sockfd, HCN_CONST_SOCKADDR_ARG addr, socklen_t addrlen)
{
	struct sockaddr_storage copy;

	return bind(sockfd, hcn_fix(SA(addr), addrlen, &copy), addrlen);
}

int hcn_connect(int sockfd, HCN_CONST_SOCKADDR_ARG addr, socklen_t addrlen)
{
	struct sockaddr_storage copy;

	return connect(sockfd, hcn_fix(SA(addr), addrlen, &copy), addrlen);
}

ssize_t hcn_sendto(int sockfd, const void *buf, size_t len, int flags,
		   HCN_CONST_SOCKADDR_ARG addr, socklen_t addrlen)
{
	const struct sockaddr *sa = SA(addr);
	struct sockaddr_storage copy;

	if (sa && !addrlen && hcn_is_hicn(sa->sa_family))
		addrlen = sizeof(struct sockaddr_hicn);
	return sendto(sockfd, buf, len, flags, hcn_fix(sa, addrlen, &copy),
		      addrlen);
}

ssize_t hcn_recvfrom(int sockfd, void *buf, size_t len, int flags,
		     HCN_SOCKADDR_ARG addr, socklen_t *addrlen)
{
	socklen_t local = sizeof(struct sockaddr_hicn), room;
	struct sockaddr *sa = SA(addr);
	ssize_t n;

	if (sa && !addrlen)
		addrlen = &local;
	room = sa ? *addrlen : 0;
	n = recvfrom(sockfd, buf, len, flags, sa, sa ? addrlen : NULL);
	/* A name longer than @room is reported whole but stored cut. */
	if (n >= 0 && sa)
		hcn_unfix(sa, *addrlen < room ? *addrlen : room);
	return n;
}

ssize_t hcn_sendmsg(int sockfd, const struct msghdr *msg, int flags)
{
	struct sockaddr_storage copy;
	struct msghdr m;

	if (!msg || !msg->msg_name)
		return sendmsg(sockfd, msg, flags);
	m = *msg;
	m.msg_name = (void *)hcn_fix(msg->msg_name, msg->msg_namelen, &copy);
	return sendmsg(sockfd, &m, flags);
}

ssize_t hcn_recvmsg(int sockfd, struct msghdr *msg, int flags)
{
	socklen_t room = msg ? msg->msg_namelen : 0;
	ssize_t n = recvmsg(sockfd, msg, flags);

	if (n >= 0 && msg->msg_name)
		hcn_unfix(msg->msg_name, msg->msg_namelen < room ?
			  msg->msg_namelen : room);
	return n;
}

int hcn_setsockopt(int sockfd, int level, int optname, const void *optval,
		   socklen_t optlen)
{
	return setsockopt(sockfd, level, optname, optval, optlen);
}

int hcn_getsockopt(int sockfd, int level, int optname, void *optval,
		   socklen_t *optlen)
{
	return getsockopt(sockfd, level, optname, optval, optlen);
}

int hcn_pton(int af, const char *src, void *dst)
{
	return inet_pton(hcn_is_hicn(af) ? AF_INET6 : af, src, dst);
}

const char *hcn_ntop(int af, const void *src, char *dst, socklen_t size)
{
	return inet_ntop(hcn_is_hicn(af) ? AF_INET6 : af, src, dst, size);
}

/*
 * A decimal number at @s of 1 to @maxdigits digits (no sign, no space), at
 * most @max, into @val: where it ends, or NULL.
 */
static const char *hcn_number(const char *s, unsigned int maxdigits,
			      unsigned long max, unsigned long *val)
{
	unsigned long v = 0;
	unsigned int i;

	for (i = 0; s[i] >= '0' && s[i] <= '9'; i++) {
		if (i == maxdigits)
			return NULL;
		v = v * 10 + (s[i] - '0');
		if (v > max)
			return NULL;
	}
	if (!i)
		return NULL;
	*val = v;
	return s + i;
}

int hcn_name_pton(const char *src, struct sockaddr_hicn *dst)
{
	unsigned long prefix = HICN_PREFIX_MAX, version = HICN_VERSION_LATEST;
	char addr[INET6_ADDRSTRLEN];
	struct sockaddr_hicn name;
	const char *p;
	size_t len;

	if (!src || !dst)
		goto inval;
	len = strcspn(src, "/#");
	if (!len || len >= sizeof(addr))
		goto inval;
	memcpy(addr, src, len);
	addr[len] = '\0';
	memset(&name, 0, sizeof(name));
	if (inet_pton(AF_INET6, addr, &name.sin_addr) != 1)
		goto inval;
	p = src + len;
	if (*p == '/') {
		p = hcn_number(p + 1, 3, HICN_PREFIX_MAX, &prefix);
		if (!p)
			goto inval;
	}
	if (*p == '#') {
		p = hcn_number(p + 1, 10, 0xffffffffUL, &version);
		if (!p)
			goto inval;
	}
	if (*p)
		goto inval;
	name.sin_family = hcn_runtime();
	name.sin_prefix = prefix;
	name.sin_suffix = version;
	*dst = name;
	return 0;
inval:
	errno = EINVAL;
	return -1;
}

int hcn_name_ntop(const struct sockaddr_hicn *src, char *dst, socklen_t size)
{
	char text[HCN_NAMESTRLEN];
	int n;

	if (!src || !dst || src->sin_prefix > HICN_PREFIX_MAX) {
		errno = EINVAL;
		return -1;
	}
	if (!inet_ntop(AF_INET6, &src->sin_addr, text, INET6_ADDRSTRLEN))
		return -1;
	n = strlen(text);
	if (src->sin_prefix != HICN_PREFIX_MAX)
		n += snprintf(text + n, sizeof(text) - n, "/%u",
			      (unsigned int)src->sin_prefix);
	if (src->sin_suffix != HICN_VERSION_LATEST)
		n += snprintf(text + n, sizeof(text) - n, "#%u",
			      (unsigned int)src->sin_suffix);
	if ((socklen_t)n >= size) {
		errno = ENOSPC;
		return -1;
	}
	memcpy(dst, text, n + 1);
	return n;
}
