/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel API differences hicn.ko meets between Linux 6.1 and 7.2, all
 * in this file so that the .c files read the same on every kernel: they use
 * the newest API and this file provides it on older kernels.
 *
 * net/hicn/Kbuild detects each difference in the kernel's headers rather
 * than from the version number (distributions backport), and passes:
 *
 *   HICN_HAVE_SYSCTL_SZ         6.6: register_net_sysctl_sz(); a sysctl
 *                               table is registered with its size and needs
 *                               no sentinel.  Before, register_net_sysctl()
 *                               walks the table up to its sentinel.
 *   HICN_HAVE_CONST_CTL_TABLE   6.11: proc_handler takes a const struct
 *                               ctl_table; HICN_CTL_CONST is that const.
 *   HICN_HAVE_SK_UID            6.17: sk_uid() reads the owner's uid, and
 *                               sock_i_uid() is gone.
 *   HICN_HAVE_SOCKADDR_UNSIZED  6.19: proto_ops->bind and ->connect take a
 *                               struct sockaddr_unsized (before: struct
 *                               sockaddr).
 *   HICN_HAVE_KERNEL_SENDPAGE   before 6.5: kernel_sendpage() appends a
 *                               page to a socket's message; from 6.5
 *                               sendmsg() with MSG_SPLICE_PAGES does (6.1
 *                               defines the flag but no protocol honours
 *                               it).  hicn_send_pages() does it on both.
 *   HICN_HAVE_GENL_INFO_DUMP    6.2: a dump's parsed request attributes
 *                               are in genl_info_dump(cb)->attrs; before,
 *                               in genl_dumpit_info(cb)->attrs.
 *                               hicn_nl_dump_attrs() reads them on both.
 *
 * The netlink family (netlink.c) needs nothing else: its generated table
 * is struct genl_ops with a policy per op (6.1 has no split ops), and it
 * has no pre_doit.
 *
 * sock_i_ino() returns a u64 since 7.1 (an unsigned long before): proc.c
 * prints it as a u64, which is right on every kernel and needs nothing here.
 */
#ifndef _NET_HICN_COMPAT_H
#define _NET_HICN_COMPAT_H

#include <linux/bvec.h>
#include <linux/net.h>
#include <linux/socket.h>
#include <linux/uio.h>
#include <linux/sysctl.h>
#include <linux/uidgid.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#ifndef HICN_HAVE_SYSCTL_SZ
static inline struct ctl_table_header *
register_net_sysctl_sz(struct net *net, const char *path,
		       struct ctl_table *table, size_t table_size)
{
	return register_net_sysctl(net, path, table);
}
#endif

#ifdef HICN_HAVE_CONST_CTL_TABLE
#define HICN_CTL_CONST	const
#else
#define HICN_CTL_CONST
#endif

#ifndef HICN_HAVE_SK_UID
/* sock_i_uid() does not change @sk: it only takes sk_callback_lock. */
static inline kuid_t sk_uid(const struct sock *sk)
{
	return sock_i_uid((struct sock *)sk);
}
#endif

#ifndef HICN_HAVE_SOCKADDR_UNSIZED
#define sockaddr_unsized sockaddr
#endif

#ifdef HICN_HAVE_GENL_INFO_DUMP
static inline struct nlattr **hicn_nl_dump_attrs(struct netlink_callback *cb)
{
	return genl_info_dump(cb)->attrs;
}
#else
static inline struct nlattr **hicn_nl_dump_attrs(struct netlink_callback *cb)
{
	return genl_dumpit_info(cb)->attrs;
}
#endif

/*
 * hicn_send_pages() - send @len bytes of the pages @bv[0..@n) on @sock as
 *	references, not copies (the socket copies them when it cannot,
 *	e.g. a device without scatter-gather), ending the message unless
 *	@flags has MSG_MORE
 *
 * Return: the bytes sent, or <0.
 */
#ifdef HICN_HAVE_KERNEL_SENDPAGE
static inline int hicn_send_pages(struct socket *sock, struct bio_vec *bv,
				  int n, size_t len, int flags)
{
	int i, r, sent = 0;

	for (i = 0; i < n; i++) {
		r = kernel_sendpage(sock, bv[i].bv_page, bv[i].bv_offset,
				    bv[i].bv_len,
				    flags | (i + 1 < n ? MSG_MORE : 0));
		if (r < 0)
			return r;
		sent += r;
	}
	return sent;
}
#else
static inline int hicn_send_pages(struct socket *sock, struct bio_vec *bv,
				  int n, size_t len, int flags)
{
	struct msghdr msg = { .msg_flags = flags | MSG_SPLICE_PAGES };

	iov_iter_bvec(&msg.msg_iter, ITER_SOURCE, bv, n, len);
	return sock_sendmsg(sock, &msg);
}
#endif

#endif /* _NET_HICN_COMPAT_H */
