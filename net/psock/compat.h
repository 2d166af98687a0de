/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel API differences psock.ko meets between Linux 6.1 and 7.2, all
 * in this file so that the .c files read the same on every kernel: they use
 * the newest API and this file provides it on older kernels.
 *
 * net/psock/Kbuild detects each difference in the kernel's headers rather
 * than from the version number (distributions backport), and passes:
 *
 *   PSTRIPE_HAVE_PINFO_OFFSET        6.6: struct proto says where a
 *                                    socket's ipv6_pinfo is.  Before,
 *                                    inet6_sk_generic() finds it at the end
 *                                    of the object.
 *   PSTRIPE_HAVE_SYSCTL_SZ           6.6: register_net_sysctl_sz(); a sysctl
 *                                    table is registered with its size and
 *                                    needs no sentinel.  Before,
 *                                    register_net_sysctl() walks the table
 *                                    up to its sentinel.
 *   PSTRIPE_HAVE_ACCEPT_ARG          6.10: proto_ops->accept takes a
 *                                    struct proto_accept_arg (before: the
 *                                    flags and a kern flag).
 *   PSTRIPE_HAVE_SOCKADDR_UNSIZED    6.19: proto_ops->bind and ->connect,
 *                                    kernel_bind() and kernel_connect() take
 *                                    a struct sockaddr_unsized (before:
 *                                    struct sockaddr).
 *   PSTRIPE_HAVE_NET_REFCNT_UPGRADE  6.15 (6.12.y): sk_net_refcnt_upgrade()
 *                                    makes a kernel socket hold its network
 *                                    namespace.  Before, open-coded as
 *                                    MPTCP's subflows did on 6.1.
 *   PSTRIPE_HAVE_DIAG_OWNER          6.9: struct inet_diag_handler names
 *                                    its module, which inet_diag pins for
 *                                    a dump.  Before, a dump holds
 *                                    inet_diag's table mutex, which
 *                                    inet_diag_unregister() takes.
 *   PSTRIPE_HAVE_DIAG_BC_DATA        after 6.12 (7.2 has it):
 *                                    inet_diag_bc_sk() takes the
 *                                    dump's struct inet_diag_dump_data
 *                                    (before: the bytecode attribute).
 *   PSTRIPE_HAVE_SK_INO              6.17 (7.2 has it): struct sock keeps
 *                                    its socket's inode number, which
 *                                    sock_diag shows (before: read from
 *                                    the inode).
 *
 * Two helpers open-code what MPTCP calls to give a subflow its owner's
 * cgroups (mptcp_attach_cgroup()): cgroup_sk_free(), cgroup_sk_clone()
 * and mem_cgroup_sk_inherit() are not exported, but what they do is the
 * header's inline cgroup_get()/cgroup_put()/css_get()/css_put() on the
 * same fields (and cgroup_bpf_get()/cgroup_bpf_put(): a socket holds its
 * cgroup's bpf programs too), alike on 6.1 to 7.2.
 *
 * The netlink family (netlink.c) needs no entry: its generated table is
 * struct genl_ops with a policy per op (6.1 has no split ops), it has no
 * pre_doit, and its dump keeps its cursor in cb->args instead of reading
 * request attributes (genl_info_dump() came after 6.1).
 */
#ifndef _NET_PSOCK_COMPAT_H
#define _NET_PSOCK_COMPAT_H

#include <linux/cgroup.h>
#include <linux/inet_diag.h>
#include <linux/memcontrol.h>
#include <linux/net.h>
#include <linux/socket.h>
#include <linux/sysctl.h>
#include <net/net_namespace.h>
#include <net/sock.h>

/* Where @prot's sockets keep their struct ipv6_pinfo. */
static inline void pstripe_set_ipv6_pinfo_offset(struct proto *prot,
						 unsigned int offset)
{
#ifdef PSTRIPE_HAVE_PINFO_OFFSET
	prot->ipv6_pinfo_offset = offset;
#endif
}

#ifndef PSTRIPE_HAVE_SYSCTL_SZ
static inline struct ctl_table_header *
register_net_sysctl_sz(struct net *net, const char *path,
		       struct ctl_table *table, size_t table_size)
{
	return register_net_sysctl(net, path, table);
}
#endif

/*
 * PSTRIPE_DEFINE_ACCEPT(name) defines name(), a proto_ops->accept with this
 * kernel's arguments, that calls
 * int name_sk(struct socket *sock, struct socket *newsock, int flags).
 */
#ifdef PSTRIPE_HAVE_ACCEPT_ARG
#define PSTRIPE_DEFINE_ACCEPT(name)					\
static int name(struct socket *sock, struct socket *newsock,		\
		struct proto_accept_arg *arg)				\
{									\
	return name##_sk(sock, newsock, arg->flags);			\
}
#else
#define PSTRIPE_DEFINE_ACCEPT(name)					\
static int name(struct socket *sock, struct socket *newsock,		\
		int flags, bool kern)					\
{									\
	return name##_sk(sock, newsock, flags);				\
}
#endif

#ifndef PSTRIPE_HAVE_SOCKADDR_UNSIZED
#define sockaddr_unsized sockaddr
#endif

#ifndef PSTRIPE_HAVE_NET_REFCNT_UPGRADE
static inline void sk_net_refcnt_upgrade(struct sock *sk)
{
	struct net *net = sock_net(sk);

	sk->sk_net_refcnt = 1;
	get_net_track(net, &sk->ns_tracker, GFP_KERNEL);
	sock_inuse_add(net, 1);
}
#endif

/*
 * @to takes @from's cgroup (cgroup v2, with the net_cls class id and the
 * netprio index): what cgroup-bpf, nft's "socket cgroupv2", net_cls and
 * sock_diag's INET_DIAG_CGROUP_ID see.  As MPTCP's subflows, through the
 * references cgroup_sk_clone() and cgroup_sk_free() would take and drop:
 * on the cgroup and on its bpf programs.
 */
static inline void pstripe_sk_cgroup_inherit(struct sock *from,
					     struct sock *to)
{
#ifdef CONFIG_SOCK_CGROUP_DATA
	struct cgroup *old = sock_cgroup_ptr(&to->sk_cgrp_data);
	struct cgroup *cgrp = sock_cgroup_ptr(&from->sk_cgrp_data);

	if (old == cgrp)
		return;
	cgroup_get(cgrp);
	cgroup_bpf_get(cgrp);
	to->sk_cgrp_data = from->sk_cgrp_data;
	cgroup_bpf_put(old);
	cgroup_put(old);
#endif
}

/*
 * @to, which holds no socket memory yet, charges what TCP keeps for it to
 * @from's memory cgroup (mem_cgroup_sk_inherit() on 7.2).
 */
static inline void pstripe_sk_memcg_inherit(const struct sock *from,
					    struct sock *to)
{
#ifdef CONFIG_MEMCG
	struct mem_cgroup *memcg = from->sk_memcg;

	if (to->sk_memcg == memcg)
		return;
	if (memcg)
		css_get(&memcg->css);
	if (to->sk_memcg)
		css_put(&to->sk_memcg->css);
	to->sk_memcg = memcg;
#endif
}

/* sock_diag shows @sk with inode number @ino. */
static inline void pstripe_sk_set_ino(struct sock *sk, unsigned long ino)
{
#ifdef PSTRIPE_HAVE_SK_INO
	WRITE_ONCE(sk->sk_ino, ino);
#endif
}

static inline void pstripe_diag_set_owner(struct inet_diag_handler *h,
					  struct module *owner)
{
#ifdef PSTRIPE_HAVE_DIAG_OWNER
	h->owner = owner;
#endif
}

/* The dump's bytecode (none: every socket) run on @sk. */
static inline int pstripe_diag_bc_sk(const struct inet_diag_dump_data *data,
				     struct sock *sk)
{
#ifdef PSTRIPE_HAVE_DIAG_BC_DATA
	return inet_diag_bc_sk(data, sk);
#else
	return inet_diag_bc_sk(data->inet_diag_nla_bc, sk);
#endif
}

#endif /* _NET_PSOCK_COMPAT_H */
