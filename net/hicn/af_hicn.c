// SPDX-License-Identifier: GPL-2.0
/*
 * AF_HICN: information-centric publish/subscribe sockets.
 *
 * Design
 * ------
 * AF_HICN is built as a forwarder per network namespace, the way hICN and
 * NFD are: a FIB of name prefixes, a pending-interest table and a content
 * store, with faces attached.  Every socket is an application face: a
 * producer (SOCK_PROD) claims a namespace with bind() and publishes named
 * objects with sendto(); a consumer (SOCK_CONS) pulls objects by name with
 * recvfrom().  This file holds the socket layer: family registration, the
 * per-type ops tables (chosen in hicn_create() from sock->type, as
 * vsock_create() does), bind() and module init/exit.  pernet.c holds the
 * state of each namespace, fib.c its FIB of claimed namespaces and proc.c
 * its /proc/net/hicn view.
 *
 * The data path (segmentation, PIT, content store, faces) is not built yet;
 * the operations that need it return -EOPNOTSUPP.
 *
 * Family number
 * -------------
 * A module cannot add a family at or above AF_MAX, so AF_HICN reuses a
 * number no mainline kernel registers (22 by default, see the uapi header).
 * The "family" module parameter overrides it and is readable in
 * /sys/module/hicn/parameters/family, so userspace learns the number in
 * force without recompiling.
 *
 * Lock order
 * ----------
 *   lock_sock(sk)  ->  hicn_net.lock
 *   lock_sock(sk)  ->  hicn_net.fib_lock (spinlock, BH off)
 * hicn_net.lock and hicn_net.fib_lock are leaves: nothing is taken under
 * them, and neither is held while taking the other.
 *
 * References
 * ----------
 * Every socket holds a reference on this module through its ops table
 * (proto_ops.owner) and its struct proto (sk_alloc() takes proto.owner), so
 * rmmod is refused while a socket is open.  A user socket holds its network
 * namespace; the namespace's socket list is therefore empty when the
 * namespace exits.
 */

#include <linux/module.h>
#include <linux/net.h>
#include <linux/socket.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "hicn.h"

int hicn_family = AF_HICN;
module_param_named(family, hicn_family, int, 0444);
MODULE_PARM_DESC(family, "address family number to register (default "
		 __stringify(AF_HICN) ", must be free and below AF_MAX)");

struct proto hicn_proto = {
	.name		= "HICN",
	.owner		= THIS_MODULE,
	.obj_size	= sizeof(struct hicn_sock),
};

static int hicn_release(struct socket *sock)
{
	struct sock *sk = sock->sk;

	if (!sk)
		return 0;

	lock_sock(sk);
	hicn_pernet_unlink(hicn_sk(sk));
	if (hicn_sk(sk)->claim) {
		hicn_fib_release(hicn_pernet(sock_net(sk)), hicn_sk(sk)->claim);
		hicn_sk(sk)->claim = NULL;
	}
	sock_orphan(sk);
	sk->sk_shutdown = SHUTDOWN_MASK;
	release_sock(sk);

	sock_prot_inuse_add(sock_net(sk), sk->sk_prot, -1);
	sock->sk = NULL;
	sock_put(sk);
	return 0;
}

static int hicn_getname(struct socket *sock, struct sockaddr *uaddr, int peer)
{
	struct sockaddr_hicn *addr = (struct sockaddr_hicn *)uaddr;
	struct hicn_sock *hs = hicn_sk(sock->sk);

	if (peer)
		return -ENOTCONN;

	lock_sock(sock->sk);
	if (hs->bound) {
		*addr = hs->name;
	} else {
		memset(addr, 0, sizeof(*addr));
		addr->sin_family = sock->sk->sk_family;
	}
	release_sock(sock->sk);
	return sizeof(*addr);
}

/*
 * Check a name passed in by the user and copy it, host bits of the prefix
 * cleared.  Reserved fields must be zero so that they can get a meaning
 * later.
 */
static int hicn_addr_from_user(const struct sock *sk,
			       const struct sockaddr *uaddr, int len,
			       struct sockaddr_hicn *name)
{
	const struct sockaddr_hicn *addr = (const struct sockaddr_hicn *)uaddr;

	if (len < (int)sizeof(*addr))
		return -EINVAL;
	if (addr->sin_family != sk->sk_family)
		return -EINVAL;
	if (addr->sin_prefix > HICN_PREFIX_MAX)
		return -EINVAL;
	if (addr->sin_flags || memchr_inv(addr->sin_zero, 0,
					  sizeof(addr->sin_zero)))
		return -EINVAL;

	*name = *addr;
	ipv6_addr_prefix(&name->sin_addr, &addr->sin_addr, addr->sin_prefix);
	return 0;
}

/*
 * bind(): a producer claims a namespace in the netns (no other producer
 * may claim an identical or overlapping one); a consumer names the
 * namespace its requests stay in.  A socket binds once.
 */
static int hicn_bind(struct socket *sock, struct sockaddr *uaddr, int len)
{
	struct sock *sk = sock->sk;
	struct hicn_sock *hs = hicn_sk(sk);
	struct hicn_fib_entry *claim = NULL;
	struct sockaddr_hicn name;
	int err;

	err = hicn_addr_from_user(sk, uaddr, len, &name);
	if (err)
		return err;
	name.sin_suffix = 0;

	lock_sock(sk);
	if (hs->bound) {
		err = -EINVAL;
		goto out;
	}
	if (sk->sk_type == SOCK_PROD) {
		/* A producer serves a namespace, never the whole name space. */
		if (!name.sin_prefix) {
			err = -EINVAL;
			goto out;
		}
		claim = hicn_fib_claim(hicn_pernet(sock_net(sk)),
				       &name.sin_addr, name.sin_prefix, hs);
		if (IS_ERR(claim)) {
			err = PTR_ERR(claim);
			goto out;
		}
		hs->claim = claim;
	}
	hicn_pernet_set_name(hs, &name);
out:
	release_sock(sk);
	return err;
}

static int hicn_connect(struct socket *sock, struct sockaddr *uaddr,
			int len, int flags)
{
	return -EOPNOTSUPP;
}

static int hicn_sendmsg(struct socket *sock, struct msghdr *msg, size_t len)
{
	return -EOPNOTSUPP;
}

static int hicn_recvmsg(struct socket *sock, struct msghdr *msg, size_t len,
			int flags)
{
	return -EOPNOTSUPP;
}

/* No SOL_HICN option exists yet: every option is unknown. */
static int hicn_setsockopt(struct socket *sock, int level, int optname,
			   sockptr_t optval, unsigned int optlen)
{
	return -ENOPROTOOPT;
}

static int hicn_getsockopt(struct socket *sock, int level, int optname,
			   char __user *optval, int __user *optlen)
{
	return -ENOPROTOOPT;
}

/*
 * proto_ops.family is informational for families other than PF_UNIX; the
 * number in force is hicn_family, carried by every sk->sk_family.
 */
static const struct proto_ops hicn_cons_ops = {
	.family		= PF_HICN,
	.owner		= THIS_MODULE,
	.release	= hicn_release,
	.bind		= hicn_bind,
	.connect	= hicn_connect,
	.socketpair	= sock_no_socketpair,
	.accept		= sock_no_accept,
	.getname	= hicn_getname,
	.poll		= datagram_poll,
	.ioctl		= sock_no_ioctl,
	.listen		= sock_no_listen,
	.shutdown	= sock_no_shutdown,
	.setsockopt	= hicn_setsockopt,
	.getsockopt	= hicn_getsockopt,
	.sendmsg	= hicn_sendmsg,
	.recvmsg	= hicn_recvmsg,
	.mmap		= sock_no_mmap,
};

static const struct proto_ops hicn_prod_ops = {
	.family		= PF_HICN,
	.owner		= THIS_MODULE,
	.release	= hicn_release,
	.bind		= hicn_bind,
	.connect	= sock_no_connect,
	.socketpair	= sock_no_socketpair,
	.accept		= sock_no_accept,
	.getname	= hicn_getname,
	.poll		= datagram_poll,
	.ioctl		= sock_no_ioctl,
	.listen		= sock_no_listen,
	.shutdown	= sock_no_shutdown,
	.setsockopt	= hicn_setsockopt,
	.getsockopt	= hicn_getsockopt,
	.sendmsg	= hicn_sendmsg,
	.recvmsg	= hicn_recvmsg,
	.mmap		= sock_no_mmap,
};

/*
 * Pick the ops table and check the protocol against the socket type.
 * Returns the protocol in force (0 resolved to the type's default).
 */
static int hicn_select_ops(struct socket *sock, int protocol)
{
	switch (sock->type) {
	case SOCK_CONS:
		if (protocol == HICN_PROTO_DEFAULT)
			protocol = CONS_REL;
		if (protocol != CONS_REL && protocol != CONS_UNREL)
			return -EPROTONOSUPPORT;
		sock->ops = &hicn_cons_ops;
		return protocol;
	case SOCK_PROD:
		if (protocol == HICN_PROTO_DEFAULT)
			protocol = PROD_REL;
		if (protocol != PROD_REL && protocol != PROD_UNREL)
			return -EPROTONOSUPPORT;
		sock->ops = &hicn_prod_ops;
		return protocol;
	default:
		return -ESOCKTNOSUPPORT;
	}
}

static int hicn_create(struct net *net, struct socket *sock, int protocol,
		       int kern)
{
	struct sock *sk;

	protocol = hicn_select_ops(sock, protocol);
	if (protocol < 0)
		return protocol;

	sk = sk_alloc(net, hicn_family, GFP_KERNEL, &hicn_proto, kern);
	if (!sk)
		return -ENOMEM;

	sock_init_data(sock, sk);
	sock->state = SS_UNCONNECTED;
	sk->sk_protocol = protocol;

	hicn_pernet_link(hicn_sk(sk));
	sock_prot_inuse_add(net, &hicn_proto, 1);
	hicn_fault_inject();
	return 0;
}

/* Filled in at init: the family number is a module parameter. */
static struct net_proto_family hicn_family_ops = {
	.create	= hicn_create,
	.owner	= THIS_MODULE,
};

static int __init hicn_init(void)
{
	int err;

	if (hicn_family <= AF_UNSPEC || hicn_family >= AF_MAX) {
		pr_err("family %d out of range 1..%d\n", hicn_family,
		       AF_MAX - 1);
		return -EINVAL;
	}
	hicn_family_ops.family = hicn_family;

	err = proto_register(&hicn_proto, 1);
	if (err) {
		pr_err("proto_register failed: %d\n", err);
		return err;
	}

	err = hicn_pernet_init();
	if (err) {
		pr_err("pernet registration failed: %d\n", err);
		goto err_proto;
	}

	err = sock_register(&hicn_family_ops);
	if (err) {
		pr_err("cannot register family %d (in use?): %d\n",
		       hicn_family, err);
		goto err_pernet;
	}

	pr_info("registered address family %d\n", hicn_family);
	return 0;

err_pernet:
	hicn_pernet_exit();
err_proto:
	proto_unregister(&hicn_proto);
	return err;
}

static void __exit hicn_exit(void)
{
	sock_unregister(hicn_family);
	hicn_pernet_exit();
	proto_unregister(&hicn_proto);
}

module_init(hicn_init);
module_exit(hicn_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("AF_HICN information-centric publish/subscribe sockets");
MODULE_ALIAS_NETPROTO(PF_HICN);
