/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libhcn: the hICN socket API of the seed paper (hcn_socket(), hcn_bind(),
 * hcn_sendto(), hcn_recvfrom(), hcn_pton(), ...) over AF_HICN sockets.
 *
 * The AF_HICN number a program is compiled with (<linux/hicn.h>) is the
 * module's default; the module may have been loaded with another one
 * ("modprobe hicn family=N").  Every hcn_*() function that takes a family
 * or a name with sin_family == AF_HICN passes the number in force to the
 * kernel, so a program may use AF_HICN throughout.
 *
 * Link with `pkg-config --cflags --libs hcn` (-lhcn).  The library is
 * named libhcn so that it does not clash with FD.io's libhicn.
 */
#ifndef _HCN_H
#define _HCN_H

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <linux/hicn.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Room for any text hcn_name_ntop() writes, with its NUL: an IPv6 address
 * (INET6_ADDRSTRLEN), "/128" and "#4294967295".
 */
#define HCN_NAMESTRLEN		(INET6_ADDRSTRLEN + 4 + 11)

/*
 * Address arguments.  The paper passes &(struct sockaddr_hicn) where
 * struct sockaddr * is declared; in C (GCC, Clang) these transparent unions
 * accept either pointer without a cast, as glibc's __SOCKADDR_ARG does.
 * C++ gets inline overloads instead (end of this file).
 */
#if defined(__GNUC__) && !defined(__cplusplus)
union hcn_sockaddr_arg {
	struct sockaddr *__sa;
	struct sockaddr_hicn *__shicn;
	struct sockaddr_in6 *__sin6;
	struct sockaddr_storage *__ss;
} __attribute__((__transparent_union__));

union hcn_const_sockaddr_arg {
	const struct sockaddr *__sa;
	const struct sockaddr_hicn *__shicn;
	const struct sockaddr_in6 *__sin6;
	const struct sockaddr_storage *__ss;
} __attribute__((__transparent_union__));

#define HCN_SOCKADDR_ARG	union hcn_sockaddr_arg
#define HCN_CONST_SOCKADDR_ARG	union hcn_const_sockaddr_arg
#define HCN_SOCKADDR_UNION	1
#else
#define HCN_SOCKADDR_ARG	struct sockaddr *
#define HCN_CONST_SOCKADDR_ARG	const struct sockaddr *
#endif

/**
 * hcn_family() - the AF_HICN number in force
 *
 * Reads HICN_FAMILY_PARAM (/sys/module/hicn/parameters/family), the number
 * the loaded module registered.  When the module is not loaded, returns
 * AF_HICN, the number socket() autoloads the module for.  The value read is
 * also remembered for the address translation of the other functions.
 *
 * Return: the family number, never an error.
 */
int hcn_family(void);

/**
 * hcn_socket() - socket() that knows the AF_HICN number in force
 * @domain: AF_HICN (or the number in force); any other family is passed on
 * @type: SOCK_CONS or SOCK_PROD, optionally or-ed with SOCK_NONBLOCK and
 *	SOCK_CLOEXEC
 * @protocol: CONS_REL, CONS_UNREL, PROD_REL, PROD_UNREL or 0
 *
 * Return: a descriptor, or -1 with errno set as by socket().
 */
int hcn_socket(int domain, int type, int protocol);

/**
 * hcn_bind() - bind() with the AF_HICN number fixed up
 * @sockfd: the socket
 * @addr: struct sockaddr_hicn (or any struct sockaddr); a sin_family of
 *	AF_HICN is passed as the number in force, in a copy: @addr is not
 *	modified
 * @addrlen: its length
 *
 * Return: 0, or -1 with errno set as by bind().
 */
int hcn_bind(int sockfd, HCN_CONST_SOCKADDR_ARG addr, socklen_t addrlen);

/**
 * hcn_connect() - connect() with the AF_HICN number fixed up
 * @sockfd: the socket
 * @addr: the name to fetch, as for hcn_bind()
 * @addrlen: its length
 *
 * Return: 0, or -1 with errno set as by connect().
 */
int hcn_connect(int sockfd, HCN_CONST_SOCKADDR_ARG addr, socklen_t addrlen);

/**
 * hcn_sendto() - sendto() with the AF_HICN number fixed up
 * @sockfd: the socket
 * @buf: the bytes to send (a producer: the object to publish)
 * @len: their number
 * @flags: MSG_* flags
 * @addr: the name, as for hcn_bind(), or NULL
 * @addrlen: its length; 0 with an AF_HICN @addr (as the paper writes it)
 *	means sizeof(struct sockaddr_hicn)
 *
 * Return: the number of bytes sent, or -1 with errno set as by sendto().
 */
ssize_t hcn_sendto(int sockfd, const void *buf, size_t len, int flags,
		   HCN_CONST_SOCKADDR_ARG addr, socklen_t addrlen);

/**
 * hcn_recvfrom() - recvfrom() that maps the name back to AF_HICN
 * @sockfd: the socket
 * @buf: where the bytes go (a consumer: the object)
 * @len: room in @buf
 * @flags: MSG_* flags
 * @addr: NULL, or where the sender's name goes; its sin_family reads
 *	AF_HICN (the compile-time number) whatever the number in force
 * @addrlen: in: room in @addr, out: length of the name; may be NULL when
 *	@addr is not, as in the paper: sizeof(struct sockaddr_hicn) is used
 *	(plain recvfrom() would fail with EFAULT after consuming the data)
 *
 * Return: the number of bytes received, or -1 with errno set as by
 * recvfrom().
 */
ssize_t hcn_recvfrom(int sockfd, void *buf, size_t len, int flags,
		     HCN_SOCKADDR_ARG addr, socklen_t *addrlen);

/**
 * hcn_sendmsg() - sendmsg() with the AF_HICN number of msg_name fixed up
 * @sockfd: the socket
 * @msg: the message; msg_name is copied if it needs fixing, never modified
 * @flags: MSG_* flags
 *
 * Return: the number of bytes sent, or -1 with errno set as by sendmsg().
 */
ssize_t hcn_sendmsg(int sockfd, const struct msghdr *msg, int flags);

/**
 * hcn_recvmsg() - recvmsg() that maps msg_name back to AF_HICN
 * @sockfd: the socket
 * @msg: the message, as for recvmsg()
 * @flags: MSG_* flags
 *
 * Return: the number of bytes received, or -1 with errno set as by
 * recvmsg().
 */
ssize_t hcn_recvmsg(int sockfd, struct msghdr *msg, int flags);

/**
 * hcn_setsockopt() - setsockopt(), for SOL_HICN and every other level
 * @sockfd: the socket
 * @level: SOL_HICN, SOL_SOCKET, ...
 * @optname: the option
 * @optval: its value
 * @optlen: the value's length
 *
 * Return: 0, or -1 with errno set as by setsockopt().
 */
int hcn_setsockopt(int sockfd, int level, int optname, const void *optval,
		   socklen_t optlen);

/**
 * hcn_getsockopt() - getsockopt(), for SOL_HICN and every other level
 * @sockfd: the socket
 * @level: SOL_HICN, SOL_SOCKET, ...
 * @optname: the option (HICN_INFO: struct hicn_info)
 * @optval: where the value goes
 * @optlen: in: room at @optval, out: the value's length
 *
 * Return: 0, or -1 with errno set as by getsockopt().
 */
int hcn_getsockopt(int sockfd, int level, int optname, void *optval,
		   socklen_t *optlen);

/**
 * hcn_pton() - inet_pton() that also knows AF_HICN
 * @af: AF_HICN (or the number in force): @src is a name in IPv6 text
 *	form, parsed exactly as inet_pton(AF_INET6, ...) does; any other
 *	family is passed to inet_pton()
 * @src: the text
 * @dst: a struct in6_addr for AF_HICN (e.g. &name.sin_addr)
 *
 * Return: 1 on success, 0 if @src is not a valid address, -1 with errno
 * EAFNOSUPPORT for a family inet_pton() does not know.
 */
int hcn_pton(int af, const char *src, void *dst);

/**
 * hcn_ntop() - inet_ntop() that also knows AF_HICN
 * @af: AF_HICN (or the number in force): @src is a struct in6_addr,
 *	printed as inet_ntop(AF_INET6, ...); any other family is passed on
 * @src: the address
 * @dst: where the text goes
 * @size: room at @dst (INET6_ADDRSTRLEN is enough for AF_HICN)
 *
 * Return: @dst, or NULL with errno EAFNOSUPPORT or ENOSPC.
 */
const char *hcn_ntop(int af, const void *src, char *dst, socklen_t size);

/**
 * hcn_name_pton() - parse a name with its prefix length and version
 * @src: ADDR[/PREFIX][#VERSION]: ADDR in IPv6 text form, PREFIX decimal
 *	0 to 128 (default 128, a full name), VERSION decimal 0 to 2^32 - 1
 *	(default 0, HICN_VERSION_LATEST); digits only, nothing after them,
 *	e.g. "b001:a:b:c::1234", "b001:a:b:c::/64", "b001:a:b:c::1234#7"
 * @dst: filled in whole: sin_family (the number in force), sin_prefix,
 *	sin_suffix (the version), sin_addr; everything else zero
 *
 * Return: 0, or -1 with errno EINVAL (@dst is then left as it was).
 */
int hcn_name_pton(const char *src, struct sockaddr_hicn *dst);

/**
 * hcn_name_ntop() - print a name as hcn_name_pton() reads it
 * @src: the name; "/PREFIX" is printed unless sin_prefix is 128,
 *	"#VERSION" unless sin_suffix is 0
 * @dst: where the text goes
 * @size: room at @dst (HCN_NAMESTRLEN is always enough)
 *
 * Return: the length of the text (without its NUL), or -1 with errno
 * EINVAL (sin_prefix above 128) or ENOSPC (@size too small).
 */
int hcn_name_ntop(const struct sockaddr_hicn *src, char *dst,
		  socklen_t size);

#ifdef __cplusplus
} /* extern "C" */

/* C++: the paper's &(struct sockaddr_hicn) arguments, without casts. */
inline int hcn_bind(int sockfd, const struct sockaddr_hicn *addr,
		    socklen_t addrlen)
{
	return hcn_bind(sockfd, (const struct sockaddr *)addr, addrlen);
}

inline int hcn_connect(int sockfd, const struct sockaddr_hicn *addr,
		       socklen_t addrlen)
{
	return hcn_connect(sockfd, (const struct sockaddr *)addr, addrlen);
}

inline ssize_t hcn_sendto(int sockfd, const void *buf, size_t len, int flags,
			  const struct sockaddr_hicn *addr, socklen_t addrlen)
{
	return hcn_sendto(sockfd, buf, len, flags,
			  (const struct sockaddr *)addr, addrlen);
}

inline ssize_t hcn_recvfrom(int sockfd, void *buf, size_t len, int flags,
			    struct sockaddr_hicn *addr, socklen_t *addrlen)
{
	return hcn_recvfrom(sockfd, buf, len, flags,
			    (struct sockaddr *)addr, addrlen);
}

/* And nullptr for "no address", which the two overloads would make ambiguous. */
inline ssize_t hcn_sendto(int sockfd, const void *buf, size_t len, int flags,
			  decltype(nullptr), socklen_t addrlen)
{
	return hcn_sendto(sockfd, buf, len, flags,
			  (const struct sockaddr *)0, addrlen);
}

inline ssize_t hcn_recvfrom(int sockfd, void *buf, size_t len, int flags,
			    decltype(nullptr), socklen_t *addrlen)
{
	return hcn_recvfrom(sockfd, buf, len, flags, (struct sockaddr *)0,
			    addrlen);
}
#endif /* __cplusplus */

#endif /* _HCN_H */
