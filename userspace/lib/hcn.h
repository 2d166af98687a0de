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
#include <stddef.h>
#include <linux/types.h>
#include <linux/hicn.h>
#include <linux/hicn_netlink.h>
#include <linux/psock_netlink.h>

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

/*
 * ---- Configuration: the "hicn" and "psock" generic netlink families ----
 *
 * Every function acts on the network namespace of the calling thread at
 * the time of the call (each opens its own netlink socket) and returns 0
 * (or a count, where said) or -errno; it never sets errno.  After a
 * failure, hcn_extack_msg() holds the kernel's extended ack message, e.g.
 * "prefix length is over 128" with -EINVAL.  Reading needs no privilege;
 * every change needs CAP_NET_ADMIN in the user namespace owning the
 * network namespace (-EPERM without).  -EPROTONOSUPPORT: the module of the
 * family is not loaded.
 *
 * Structures carry "attrs", a mask of HCN_ATTR(attribute) bits with the
 * attribute numbers of <linux/hicn_netlink.h> and <linux/psock_netlink.h>:
 * filled by the kernel's answer (which members it sent), read by the
 * *_set() and *_add() functions (which members to send).
 */

/* The bit of attribute @a in an "attrs" mask. */
#define HCN_ATTR(a)		(1U << (a))

/**
 * hcn_extack_msg() - why the calling thread's last configuration call failed
 *
 * Return: the kernel's extended ack message of the last hcn_*() netlink
 * call of this thread that failed (or the library's own reason, for the
 * few errors found before asking the kernel), "" when there was none;
 * never NULL.  Valid until the thread's next configuration call.
 */
const char *hcn_extack_msg(void);

/**
 * hcn_genl_family() - the id of a generic netlink family
 * @name: HICN_FAMILY_NAME, PSOCK_FAMILY_NAME or any other family's name
 *
 * Return: the family's id (positive), -EPROTONOSUPPORT when it is not
 * registered (the module is not loaded), or another -errno.
 */
int hcn_genl_family(const char *name);

/* A namespace a producer claimed (HICN_A_NAMESPACE_*). */
struct hcn_namespace {
	__u32	attrs;
	struct in6_addr	prefix;
	__u8		prefix_len;
	__u32	uid;		/* owner, in the netns's user namespace */
	__u64	inode;		/* of the producer socket */
	__u32	face_id;
	__u32	names;		/* names the producer holds */
	__u32	versions;	/* versions it holds */
	__u64	mem;		/* bytes charged to it */
};

/*
 * A dump's callback: called for each object; returning non-zero stops
 * the calls and makes the dump function return that value.
 */
typedef int (*hcn_namespace_cb)(const struct hcn_namespace *ns, void *arg);

/**
 * hcn_namespace_get() - the claim of exactly one prefix
 * @prefix: the prefix's address
 * @prefix_len: its length, 1 to 128
 * @ns: the claim (may be NULL to only test for it)
 *
 * Return: 0, -ENOENT if nothing claims it, -EINVAL for a bad prefix.
 */
int hcn_namespace_get(const struct in6_addr *prefix, unsigned int prefix_len,
		      struct hcn_namespace *ns);

/**
 * hcn_namespace_dump() - every claim of the network namespace
 * @cb: called for each claim
 * @arg: passed to @cb
 *
 * Return: 0, the non-zero value @cb returned, or -errno.
 */
int hcn_namespace_dump(hcn_namespace_cb cb, void *arg);

/* The content store (HICN_A_CS_*). */
struct hcn_cs {
	__u32	attrs;
	__u32	entries;	/* segments stored */
	__u64	bytes;		/* bytes charged */
	__u32	max_entries;	/* capacity in segments */
	__u64	mem_max;	/* capacity in bytes */
	__u64	hits;
	__u64	misses;
	__u64	evictions;
};

/* A segment in the content store (HICN_A_CS_ENTRY_*). */
struct hcn_cs_entry {
	__u32	attrs;
	struct in6_addr	name;
	__u32	version;
	__u32	segment;
	__u32	final_segment;
	__u32	size;		/* payload bytes of the segment */
	__u64	object_size;
	/* HCN_ATTR(HICN_A_CS_ENTRY_EXPIRES_MS) unset: never expires */
	__u32	expires_ms;
};

typedef int (*hcn_cs_entry_cb)(const struct hcn_cs_entry *e, void *arg);

/**
 * hcn_cs_get() - the content store's size, capacity and counters
 * @cs: where they go
 *
 * Return: 0 or -errno.
 */
int hcn_cs_get(struct hcn_cs *cs);

/**
 * hcn_cs_set() - set the content store's capacity
 * @cs: max_entries and/or mem_max, chosen by their bits in attrs
 *	(HICN_A_CS_MAX_ENTRIES, HICN_A_CS_MEM_MAX); ranges and errno are
 *	those of the sysctls net.hicn.cs_max_entries and cs_mem_max
 *
 * Return: 0 or -errno (-EPERM without CAP_NET_ADMIN).
 */
int hcn_cs_set(const struct hcn_cs *cs);

/**
 * hcn_cs_flush() - empty the content store, or a prefix of it
 * @prefix: NULL for everything, else the prefix whose names go
 * @prefix_len: its length, 0 to 128
 *
 * Return: 0 or -errno (-EPERM without CAP_NET_ADMIN).
 */
int hcn_cs_flush(const struct in6_addr *prefix, unsigned int prefix_len);

/**
 * hcn_cs_entry_get() - one valid entry of the content store
 * @name: the content name
 * @version: its version
 * @segment: the segment number
 * @e: the entry (may be NULL)
 *
 * Return: 0, -ENOENT when the store does not hold it, or -errno.
 */
int hcn_cs_entry_get(const struct in6_addr *name, __u32 version,
		     __u32 segment, struct hcn_cs_entry *e);

/**
 * hcn_cs_entry_dump() - the valid entries, or those within a prefix
 * @prefix: NULL for all, else the prefix of the names to list
 * @prefix_len: its length, 0 to 128
 * @cb: called for each entry
 * @arg: passed to @cb
 *
 * Return: 0, the non-zero value @cb returned, or -errno.
 */
int hcn_cs_entry_dump(const struct in6_addr *prefix, unsigned int prefix_len,
		      hcn_cs_entry_cb cb, void *arg);

/* The pending-interest table (HICN_A_PIT_*). */
struct hcn_pit {
	__u32	attrs;
	__u32	entries;
	__u32	entries_max;	/* net.hicn.pit_max */
	__u64	aggregated;
	__u64	drops;
	__u64	expired;
	__u32	user_max;	/* net.hicn.pit_user_max */
	__u64	user_drops;
};

/**
 * hcn_pit_get() - the pending-interest table's size, limits and counters
 * @pit: where they go
 *
 * Return: 0 or -errno.
 */
int hcn_pit_get(struct hcn_pit *pit);

/* The net.hicn limits of the namespace (HICN_A_LIMITS_*). */
struct hcn_limits {
	__u32	attrs;
	__u32	pit_max;
	__u32	cs_max_entries;
	__u64	cs_mem_max;
	__u64	prod_mem_max;
	__u32	unprivileged_prefix_min;
	__u32	pit_user_max;
	__u64	prod_user_mem_max;
};

/**
 * hcn_limits_get() - the namespace's limits
 * @l: where they go
 *
 * Return: 0 or -errno.
 */
int hcn_limits_get(struct hcn_limits *l);

/**
 * hcn_limits_set() - change some of the namespace's limits
 * @l: the values whose HICN_A_LIMITS_* bits are set in attrs; all are
 *	checked before any is written
 *
 * Return: 0 or -errno: -EINVAL out of the sysctl's range or nothing to
 * set, -EPERM without CAP_NET_ADMIN or above the ceiling of a namespace
 * owned by another user namespace.
 */
int hcn_limits_set(const struct hcn_limits *l);

/* The forwarder's counters, /proc/net/hicn_stat's lines in order. */
struct hcn_counters {
	__u64	pit_entries, pit_max, pit_aggregated, pit_drops;
	__u64	pit_expired, pit_user_max, pit_user_drops;
	__u64	cs_entries, cs_max_entries, cs_bytes, cs_mem_max;
	__u64	cs_hits, cs_misses, cs_evictions, cs_gc_runs;
	__u64	cs_gc_steps, fib_entries, faces, no_route;
	__u64	interests, data, unsolicited, prod_mem, prod_names;
	__u64	prod_held, prod_lookups, prod_lookup_steps;
	__u64	prod_expiry_steps, cons_scan_steps, prod_held_steps;
	__u64	pit_gc_runs, pit_gc_steps;
	__u64	fib_floors, failover_reforwards;
	__u64	data_zerocopy;
};

#define HCN_COUNTERS_NUM	35

/**
 * hcn_counters_get() - the forwarder's counters
 * @c: where they go, in order (value i is attribute
 *	HICN_A_COUNTERS_PAD + 1 + i)
 * @size: sizeof(*@c) as the caller was compiled (later versions of the
 *	structure grow at the end): only that much is written
 *
 * Return: the number of counters the kernel sent (members past it read
 * 0), or -errno.
 */
int hcn_counters_get(struct hcn_counters *c, size_t size);

/*
 * ---- Faces, listeners, routes and strategies (libhcn 1.2, HCN_1.2) ----
 *
 * Addresses of listeners and UDP faces are IPv4 or IPv6: family says
 * which member of the union holds it (AF_INET: v4, AF_INET6: v6); ports
 * are in host byte order, 0 meaning hICN's port 9695 in the *_add()
 * functions.
 */

/* A face of the forwarder (HICN_A_FACE_*). */
struct hcn_face {
	__u32	attrs;
	__u32	id;
	__u8		kind;		/* HICN_FACE_KIND_* */
	__u8		up;		/* 1 while it takes interests */
	__u32	uid;		/* its in-records are charged to */
	__u32	out_pending;	/* interests sent to it, not answered */
	__u64	interests_in, interests_out, data_in, data_out;
	__u64	unsolicited;	/* data no interest sent to it asked for */
	__u64	refused;	/* interests it refused */
	/* UDP faces only: */
	__u32	listener_id;
	__u16	family;		/* of remote: AF_INET or AF_INET6 */
	union {
		struct in_addr	v4;
		struct in6_addr	v6;
	} remote;
	__u16	remote_port;
	__u8		format;		/* HICN_FORMAT_* */
	__u8		auto_made;	/* HICN_A_FACE_AUTO: made by a peer */
	__u64	malformed;	/* datagrams dropped as malformed */
	__u64	tx_drops;	/* packets it could not send */
	__u64	hop_drops;	/* interests dropped for their hop limit */
};

typedef int (*hcn_face_cb)(const struct hcn_face *f, void *arg);

/*
 * What a UDP face dropped on receipt, by reason (HICN_A_FACE_DROPS_*, in
 * their order; libhcn 1.4, HCN_1.4): truncated to name are the malformed
 * datagrams, whose sum is hcn_face.malformed.
 */
struct hcn_face_drops {
	__u64	truncated, version, next_header, length, oversized, header;
	__u64	flags, lifetime, control, ah, transport, name;
	__u64	no_route, pit_full, nomem;
};

/**
 * hcn_face_drops_get() - a UDP face's drops by reason
 * @id: the face's id
 * @d: the counters
 * @size: sizeof(*@d) as the caller was compiled (later versions of the
 *	structure grow at the end): only that much is written
 *
 * Return: the number of reasons the kernel sent (0 for a face that is not
 * a UDP face, or a kernel without them; members past it read 0), -ENOENT
 * when no face has the id, or -errno.
 */
int hcn_face_drops_get(__u32 id, struct hcn_face_drops *d, size_t size);

/**
 * hcn_face_get() - one face
 * @id: its id
 * @f: the face (may be NULL to only test for it)
 *
 * Return: 0, -ENOENT when no face has the id, or -errno.
 */
int hcn_face_get(__u32 id, struct hcn_face *f);

/**
 * hcn_face_dump() - every face of the network namespace, in id order
 * @cb: called for each face
 * @arg: passed to @cb
 *
 * Return: 0, the non-zero value @cb returned, or -errno.
 */
int hcn_face_dump(hcn_face_cb cb, void *arg);

/**
 * hcn_face_add() - make a UDP face of a listener to a peer
 * @f: listener_id, family and remote (required: HICN_A_FACE_LISTENER_ID,
 *	HICN_A_FACE_REMOTE), remote_port and format (optional:
 *	HICN_A_FACE_REMOTE_PORT, HICN_A_FACE_FORMAT), chosen by their bits
 *	in attrs
 * @id: where the new face's id goes (may be NULL)
 *
 * Return: 0 or -errno: -ENODEV when no listener has the id,
 * -EAFNOSUPPORT for a peer of another family than the listener's,
 * -EEXIST when the listener has a face to that peer, -EINVAL for the
 * ipv4-tcp format, -ENOSPC beyond 1024 UDP faces, -EPERM without
 * CAP_NET_ADMIN.
 */
int hcn_face_add(const struct hcn_face *f, __u32 *id);

/**
 * hcn_face_del() - delete a UDP face
 * @id: its id; routes lose their next hops to it
 *
 * Return: 0 or -errno: -ENOENT when no face has the id, -EOPNOTSUPP for
 * an application face (it goes with its socket).
 */
int hcn_face_del(__u32 id);

/* A UDP listener (HICN_A_LISTENER_*). */
struct hcn_listener {
	__u32	attrs;
	__u32	id;
	__u16	family;		/* of local: AF_INET or AF_INET6 */
	union {
		struct in_addr	v4;
		struct in6_addr	v6;
	} local;
	__u16	port;
	__u8		auto_faces;	/* 1: an interest from a new peer makes a face */
	__u32	faces;		/* its faces */
	__u64	no_face;	/* datagrams of peers without a face, dropped */
};

typedef int (*hcn_listener_cb)(const struct hcn_listener *l, void *arg);

/**
 * hcn_listener_get() - one listener
 * @id: its id
 * @l: the listener (may be NULL)
 *
 * Return: 0, -ENOENT when no listener has the id, or -errno.
 */
int hcn_listener_get(__u32 id, struct hcn_listener *l);

/**
 * hcn_listener_dump() - every listener of the network namespace
 * @cb: called for each listener
 * @arg: passed to @cb
 *
 * Return: 0, the non-zero value @cb returned, or -errno.
 */
int hcn_listener_dump(hcn_listener_cb cb, void *arg);

/**
 * hcn_listener_add() - open a UDP listener
 * @l: family and local (required: HICN_A_LISTENER_LOCAL), port and
 *	auto_faces (optional: HICN_A_LISTENER_PORT,
 *	HICN_A_LISTENER_AUTO_FACES), chosen by their bits in attrs
 * @id: where the new listener's id goes (may be NULL)
 *
 * Return: 0 or -errno: -EADDRINUSE when the address and port are taken,
 * -EADDRNOTAVAIL when the address is not one of the namespace's, -ENOSPC
 * beyond 64 listeners, -EAFNOSUPPORT (found by the library) for a family
 * other than AF_INET and AF_INET6.
 */
int hcn_listener_add(const struct hcn_listener *l, __u32 *id);

/**
 * hcn_listener_del() - close a listener and delete its faces
 * @id: its id
 *
 * Return: 0, -ENOENT when no listener has the id, or -errno.
 */
int hcn_listener_del(__u32 id);

/* Room for next hops in struct hcn_route (the kernel keeps at most 8). */
#define HCN_ROUTE_NEXTHOPS_MAX	32

/* A next hop of a route (HICN_A_NEXTHOP_*). */
struct hcn_nexthop {
	__u32	face_id;
	__u32	cost;
};

/* A FIB entry (HICN_A_ROUTE_*): a prefix, its strategy and next hops. */
struct hcn_route {
	__u32	attrs;
	struct in6_addr	prefix;
	__u8		prefix_len;
	__u8		strategy;	/* HICN_STRATEGY_* */
	/* in the order they were added; nexthops_total counts them all */
	unsigned int	nexthops;
	unsigned int	nexthops_total;
	struct hcn_nexthop	nexthop[HCN_ROUTE_NEXTHOPS_MAX];
};

typedef int (*hcn_route_cb)(const struct hcn_route *r, void *arg);

/**
 * hcn_route_get() - the route of exactly one prefix
 * @prefix: the prefix's address
 * @prefix_len: its length, 0 to 128
 * @r: the route (may be NULL)
 *
 * Return: 0, -ENOENT when the prefix has no route, -EINVAL for a bad
 * prefix, or -errno.
 */
int hcn_route_get(const struct in6_addr *prefix, unsigned int prefix_len,
		  struct hcn_route *r);

/**
 * hcn_route_dump() - every route of the network namespace
 * @cb: called for each route (producers' claims are routes of cost 0)
 * @arg: passed to @cb
 *
 * Return: 0, the non-zero value @cb returned, or -errno.
 */
int hcn_route_dump(hcn_route_cb cb, void *arg);

/**
 * hcn_route_add() - add a next hop to a prefix
 * @prefix: the prefix's address (host bits are ignored)
 * @prefix_len: its length, 0 to 128
 * @face_id: the next hop's face
 * @cost: its cost (best route prefers the lowest)
 *
 * Return: 0 or -errno: -EEXIST when the face is a next hop of the prefix
 * already, -ENODEV when no face has the id, -EINVAL for a consumer's face
 * or a prefix length over 128, -ENOSPC beyond 8 next hops or 65536
 * routes, -EPERM without CAP_NET_ADMIN.
 */
int hcn_route_add(const struct in6_addr *prefix, unsigned int prefix_len,
		  __u32 face_id, __u32 cost);

/**
 * hcn_route_del() - remove a next hop from a prefix
 * @prefix: the prefix's address
 * @prefix_len: its length
 * @face_id: the next hop's face; the route goes with its last next hop
 *
 * Return: 0 or -errno: -ENOENT when the face is not a next hop of the
 * prefix (or there is no such face).
 */
int hcn_route_del(const struct in6_addr *prefix, unsigned int prefix_len,
		  __u32 face_id);

/**
 * hcn_strategy_set() - choose how a route's next hops are used
 * @prefix: the route's prefix
 * @prefix_len: its length
 * @strategy: HICN_STRATEGY_BEST_ROUTE or HICN_STRATEGY_LOAD_BALANCE
 *
 * Return: 0 or -errno: -ENOENT when the prefix has no route, -ERANGE for
 * an unknown strategy.
 */
int hcn_strategy_set(const struct in6_addr *prefix, unsigned int prefix_len,
		     unsigned int strategy);

/*
 * ---- Events (libhcn 1.1; face and route events: libhcn 1.3, HCN_1.3) ----
 */

/* The next hop a route event names (HICN_A_ROUTE_*). */
struct hcn_route_event {
	__u32	attrs;
	struct in6_addr	prefix;
	__u8		prefix_len;
	struct hcn_nexthop	nexthop;	/* the one added or removed */
};

/*
 * An event of the "events" group: type is its HICN_CMD_*, which says the
 * member that holds it:
 *   HICN_CMD_NAMESPACE_CLAIMED, _RELEASED  ns: prefix, uid, inode, face_id
 * and since libhcn 1.3, the members added at the end:
 *   HICN_CMD_FACE_ADDED, _DELETED, _UP,    face: a UDP face's id, kind,
 *   _DOWN                                  uid, up, listener_id, family,
 *                                          remote, remote_port, format,
 *                                          auto_made (a deleted face is
 *                                          down)
 *   HICN_CMD_ROUTE_ADDED, _DELETED         route: prefix, prefix_len and
 *                                          the next hop's face_id and cost
 * The library fills the structure it passes to the callback; a program
 * never makes one, so it grows at its end.
 */
struct hcn_event {
	int			type;
	struct hcn_namespace	ns;
	/* libhcn 1.3: */
	struct hcn_face		face;
	struct hcn_route_event	route;
};

typedef int (*hcn_event_cb)(const struct hcn_event *ev, void *arg);

/**
 * hcn_monitor() - wait for the events of the network namespace
 * @cb: called for each event as it happens, until it returns non-zero
 * @arg: passed to @cb
 *
 * A program linked with libhcn 1.1 or 1.2 (hcn_monitor@HCN_1.1) gets the
 * namespace events only; one linked with 1.3 or later
 * (hcn_monitor@@HCN_1.3) gets the face and route events too, and should
 * pass over a type it does not know (a later kernel's).
 *
 * The socket asks for a 1 MiB receive buffer (SO_RCVBUFFORCE with
 * CAP_NET_ADMIN, else SO_RCVBUF, capped by net.core.rmem_max).
 *
 * Return: the non-zero value @cb returned, or -errno (-ENOBUFS: events
 * were lost to an overrun of that buffer, and the socket is closed; call
 * again to go on).
 */
int hcn_monitor(hcn_event_cb cb, void *arg);

/* A PSOCK endpoint (PSOCK_A_ENDPOINT_*). */
struct hcn_psock_endpoint {
	__u32	attrs;
	__u8		id;		/* 1 to 255 */
	__u16	family;		/* AF_INET or AF_INET6 */
	union {
		struct in_addr	v4;	/* PSOCK_A_ENDPOINT_ADDR4 */
		struct in6_addr	v6;	/* PSOCK_A_ENDPOINT_ADDR6 */
	} addr;
	__s32		ifindex;
	__u32	flags;		/* PSOCK_ENDPOINT_FLAGS_* */
};

typedef int (*hcn_psock_endpoint_cb)(const struct hcn_psock_endpoint *ep,
				     void *arg);

/**
 * hcn_psock_endpoint_add() - add a local address for extra subflows
 * @ep: the members whose PSOCK_A_ENDPOINT_* bits are set in attrs
 *	(family and the matching address are required; without id the
 *	kernel picks one)
 * @id: where the endpoint's id goes (may be NULL)
 *
 * Return: 0 or -errno: -EINVAL for a missing or malformed attribute or
 * an address that is not unicast, -EAFNOSUPPORT for a family other than
 * AF_INET and AF_INET6, -ENODEV for an ifindex of no interface, -EEXIST
 * for an address or id already there, -ENOSPC beyond
 * PSOCK_ENDPOINTS_MAX, -ERANGE for id 0 (the policy), -EPERM without
 * CAP_NET_ADMIN; hcn_psock_endpoint_add(3) has the messages.
 */
int hcn_psock_endpoint_add(const struct hcn_psock_endpoint *ep, __u8 *id);

/**
 * hcn_psock_endpoint_del() - delete an endpoint
 * @id: its id
 *
 * Return: 0, -ENOENT when there is none, or -errno.
 */
int hcn_psock_endpoint_del(__u8 id);

/**
 * hcn_psock_endpoint_get() - one endpoint
 * @id: its id
 * @ep: the endpoint (may be NULL)
 *
 * Return: 0, -ENOENT when there is none, or -errno.
 */
int hcn_psock_endpoint_get(__u8 id, struct hcn_psock_endpoint *ep);

/**
 * hcn_psock_endpoint_dump() - every endpoint of the namespace
 * @cb: called for each endpoint
 * @arg: passed to @cb
 *
 * Return: 0, the non-zero value @cb returned, or -errno.
 */
int hcn_psock_endpoint_dump(hcn_psock_endpoint_cb cb, void *arg);

/**
 * hcn_psock_endpoint_flush() - delete every endpoint, or those of a family
 * @family: AF_UNSPEC for all, AF_INET or AF_INET6
 *
 * Return: 0 or -errno.
 */
int hcn_psock_endpoint_flush(int family);

/* PSOCK's defaults for new sockets (PSOCK_A_LIMITS_*). */
struct hcn_psock_limits {
	__u32	attrs;
	__u32	rcmd_stream_cnt;
	__u32	max_stream_cnt;
	__u32	driver;		/* PSOCK_DRIVER_* */
};

/**
 * hcn_psock_limits_get() - the default stream counts and driver
 * @l: where they go
 *
 * Return: 0 or -errno.
 */
int hcn_psock_limits_get(struct hcn_psock_limits *l);

/**
 * hcn_psock_limits_set() - change the defaults
 * @l: the members whose PSOCK_A_LIMITS_* bits are set in attrs; ranges
 *	and errno (-EINVAL) are the sysctls'
 *
 * Return: 0 or -errno.
 */
int hcn_psock_limits_set(const struct hcn_psock_limits *l);

/* The namespace's PSOCK counters, /proc/net/psock's in order. */
struct hcn_psock_counters {
	__u64	active_opens, passive_opens, fallbacks;
	__u64	handshake_fails, subflows_opened, subflows_joined;
	__u64	blocks_sent, blocks_received, blocks_copied;
	__u64	close_timeouts, listen_overflows, joins_missing;
	/* Since 7 counters more (a kernel without them leaves them 0). */
	__u64	resends, subflows_lost_timeout, subflows_lost_error;
	__u64	subflows_reopened, dups_dropped, joins_refused, aborts;
};

#define HCN_PSOCK_COUNTERS_NUM	19

/**
 * hcn_psock_counters_get() - the namespace's PSOCK counters
 * @c: where they go (value i is attribute PSOCK_A_COUNTERS_PAD + 1 + i)
 * @size: sizeof(*@c) as the caller was compiled
 *
 * Return: the number of counters the kernel sent, or -errno.
 */
int hcn_psock_counters_get(struct hcn_psock_counters *c, size_t size);

/*
 * A subflow event: type is PSOCK_CMD_SUBFLOW_ESTABLISHED or _CLOSED;
 * ports in host order; error (closed only) a positive errno.
 */
struct hcn_psock_event {
	int		type;
	__u32	attrs;		/* PSOCK_A_SUBFLOW_EVENT_* bits */
	__u16	family;
	union {
		struct in_addr	v4;
		struct in6_addr	v6;
	} saddr, daddr;
	__u16	sport, dport;
	__u8		index;
	__u32	error;
};

typedef int (*hcn_psock_event_cb)(const struct hcn_psock_event *ev,
				  void *arg);

/**
 * hcn_psock_monitor() - wait for subflow events
 * @cb: called for each event as it happens, until it returns non-zero
 * @arg: passed to @cb
 *
 * The socket's receive buffer is hcn_monitor()'s.
 *
 * Return: the non-zero value @cb returned, or -errno (-ENOBUFS: events
 * were lost, as for hcn_monitor()).
 */
int hcn_psock_monitor(hcn_psock_event_cb cb, void *arg);

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
