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
 * The data path lives beside it: producer.c (publishing and the producer's
 * store), consumer.c (the consumer transport), fwd.c (the pipeline through
 * CS, PIT and FIB), face.c, pit.c, cs.c, object.c; see hicn.h for the map.
 * Operations a socket type has no use for (send on a consumer, recv on a
 * producer, listen, accept) return -EOPNOTSUPP.
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
 *   lock_sock(sk) -> hicn_net.lock (mutex)
 *   lock_sock(sk) -> hicn_prod.lock (released before the forwarder)
 *   lock_sock(sk) -> hicn_cons.lock -> hicn_net.pit_lock
 *   hicn_cons.lock -> hicn_net.pit_lock also without lock_sock(): data
 *	that fails a fetch cancels the fetch's PIT entries
 *   lock_sock(consumer) -> forwarder -> a producer's hicn_prod.lock
 *   lock_sock(producer) -> forwarder -> a consumer's hicn_cons.lock
 *   lock_sock(producer) -> hicn_net.claim_lock (mutex, bind and close)
 *	-> hicn_net.fib_lock
 *   hicn_net.fib_lock, pit_lock, cs_lock and hicn_face.lock are leaves
 *   (spinlocks, BH off).  No table lock, hicn_prod.lock or hicn_cons.lock
 *   is held while a face is called, and a face's handlers never take
 *   lock_sock(): a producer answers interests under hicn_prod.lock only,
 *   a consumer takes data under hicn_cons.lock only, and no thread holds
 *   lock_sock() of two sockets.  The work that arriving data or an expiry
 *   arms does take lock_sock() (hicn_cons_work(), hicn_prod_work()), so
 *   release() detaches the face first, then cancels the socket's work
 *   without holding lock_sock().
 *
 * References
 * ----------
 * Every socket holds a reference on this module through its ops table
 * (proto_ops.owner) and its struct proto (sk_alloc() takes proto.owner), so
 * rmmod is refused while a socket is open.  A user socket holds its network
 * namespace; the namespace's socket list is therefore empty when the
 * namespace exits.
 */

#include <linux/capability.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/sizes.h>
#include <linux/socket.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "hicn.h"

int hicn_family = AF_HICN;
module_param_named(family, hicn_family, int, 0444);
MODULE_PARM_DESC(family, "address family number to register (default "
		 __stringify(AF_HICN) ", must be free and below AF_MAX)");

/*
 * Protocol memory, as net.ipv4.udp_mem is UDP's: the segments consumers
 * hold for their readers, in pages, counted for every consumer of every
 * namespace and charged to each one's memory cgroup as socket memory.
 * It is kept in a kernel socket of its own per consumer (hicn_rcv_proto,
 * consumer.c), not in the user's socket, whose sk_forward_alloc
 * SO_RESERVE_MEM changes under lock_sock() alone where the kernel allows
 * it for any protocol that counts memory (6.1).  /proc/net/protocols
 * shows it as HICN_RCV.  Limits: a module parameter (root only), set at
 * load as udp_mem's defaults are.
 */
static atomic_long_t hicn_memory_allocated;
static DEFINE_PER_CPU(int, hicn_memory_per_cpu_fw_alloc);
static long hicn_mem[3];
module_param_array_named(mem, hicn_mem, long, NULL, 0644);
MODULE_PARM_DESC(mem,
		 "pages consumers may hold: no pressure, pressure, hard limit");
/* What a consumer may always hold, under pressure too (tcp_rmem[0]). */
static int hicn_rmem_min[3] = { SZ_4K, SZ_4K, SZ_4K };

struct proto hicn_proto = {
	.name		= "HICN",
	.owner		= THIS_MODULE,
	.obj_size	= sizeof(struct hicn_sock),
};

struct proto hicn_rcv_proto = {
	.name			= "HICN_RCV",
	.owner			= THIS_MODULE,
	.obj_size		= sizeof(struct sock),
	.memory_allocated	= &hicn_memory_allocated,
	.per_cpu_fw_alloc	= &hicn_memory_per_cpu_fw_alloc,
	.sysctl_mem		= hicn_mem,
	.sysctl_rmem		= hicn_rmem_min,
};

static void __init hicn_mem_init(void)
{
	unsigned long limit = max(nr_free_buffer_pages() / 8, 128UL);

	if (hicn_mem[2])
		return;		/* given at load */
	hicn_mem[0] = limit / 4 * 3;
	hicn_mem[1] = limit;
	hicn_mem[2] = hicn_mem[0] * 2;
}

static int hicn_release(struct socket *sock)
{
	struct sock *sk = sock->sk;
	struct hicn_sock *hs;

	if (!sk)
		return 0;
	hs = hicn_sk(sk);

	/* Nothing reaches the socket through its face from here on. */
	if (hs->face)
		hicn_face_detach(hs->face);
	if (sk->sk_type == SOCK_PROD)
		hicn_prod_release(hs);
	else
		hicn_cons_release(hs);

	lock_sock(sk);
	hicn_pernet_unlink(hs);
	if (hs->claim) {
		hicn_nl_ns_event(hs, false);
		/* hicn_prod_release() left the highest version given out. */
		hicn_claim_release(hicn_pernet(sock_net(sk)), hs->claim,
				   hs->prod.ver_floor);
		hs->claim = NULL;
	}
	sock_orphan(sk);
	sk->sk_shutdown = SHUTDOWN_MASK;
	release_sock(sk);

	if (hs->face) {
		hicn_face_put(hs->face);
		hs->face = NULL;
	}
	sock_prot_inuse_add(sock_net(sk), sk->sk_prot, -1);
	sock->sk = NULL;
	sock_put(sk);
	return 0;
}

static int hicn_getname(struct socket *sock, struct sockaddr *uaddr, int peer)
{
	struct sockaddr_hicn *addr = (struct sockaddr_hicn *)uaddr;
	struct hicn_sock *hs = hicn_sk(sock->sk);

	lock_sock(sock->sk);
	if (peer) {
		if (sock->sk->sk_type != SOCK_CONS || !hs->cons.connected) {
			release_sock(sock->sk);
			return -ENOTCONN;
		}
		*addr = hs->cons.target;
	} else if (hs->bound) {
		*addr = hs->name;
	} else {
		memset(addr, 0, sizeof(*addr));
		addr->sin_family = sock->sk->sk_family;
	}
	release_sock(sock->sk);
	return sizeof(*addr);
}

/**
 * hicn_addr_check() - check a name passed in by the user and copy it
 * @sk: the socket it is for
 * @uaddr: the name
 * @len: its length
 * @name: the copy
 *
 * Reserved fields must be zero so that they can get a meaning later.
 * Return: 0 or -EINVAL.
 */
int hicn_addr_check(const struct sock *sk,
		    const struct sockaddr_unsized *uaddr, int len,
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
	return 0;
}

/*
 * bind(): a producer claims a namespace in the netns (no other producer
 * may claim an identical or overlapping one); a consumer names the
 * namespace its requests stay in.  A socket binds once.  A claim shorter
 * than net.hicn.unprivileged_prefix_min bits needs CAP_NET_ADMIN in the
 * netns's user namespace (EACCES), as a port below
 * net.ipv4.ip_unprivileged_port_start needs CAP_NET_BIND_SERVICE.
 */
static int hicn_bind(struct socket *sock, struct sockaddr_unsized *uaddr,
		     int len)
{
	struct sock *sk = sock->sk;
	struct hicn_sock *hs = hicn_sk(sk);
	struct hicn_claim *claim = NULL;
	struct sockaddr_hicn name;
	int err;

	err = hicn_addr_check(sk, uaddr, len, &name);
	if (err)
		return err;

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
		if (name.sin_prefix <
		    READ_ONCE(hicn_pernet(sock_net(sk))->unprivileged_prefix_min) &&
		    !ns_capable(sock_net(sk)->user_ns, CAP_NET_ADMIN)) {
			err = -EACCES;
			goto out;
		}
		/* The claim is the namespace: host bits and suffix cleared. */
		ipv6_addr_prefix(&name.sin_addr,
				 &((const struct sockaddr_hicn *)uaddr)->sin_addr,
				 name.sin_prefix);
		name.sin_suffix = 0;
		claim = hicn_claim(hicn_pernet(sock_net(sk)),
				   &name.sin_addr, name.sin_prefix, hs->face);
		if (IS_ERR(claim)) {
			err = PTR_ERR(claim);
			goto out;
		}
		hs->claim = claim;
		hicn_prod_claimed(hs, claim->floor);
		hicn_pernet_set_name(hs, &name);
		hicn_nl_ns_event(hs, true);
		goto out;
	}
	/*
	 * A consumer keeps the whole name (the paper's example binds the
	 * content name and fetches it with recvfrom()); the prefix is the
	 * namespace its requests must stay in.
	 */
	hicn_pernet_set_name(hs, &name);
	if (!hs->cons.connected) {
		hicn_cons_set_target(hs, &name);
		hs->cons.named = true;
		if (hs->cons.subscribe) {
			hs->cons.after_known = false;
			hicn_cons_start(hs);
			hicn_cons_kick(hs);
		}
	}
out:
	release_sock(sk);
	return err;
}

static int hicn_cons_sendmsg(struct socket *sock, struct msghdr *msg,
			     size_t len)
{
	return -EOPNOTSUPP;
}

static int hicn_prod_recvmsg(struct socket *sock, struct msghdr *msg,
			     size_t len, int flags)
{
	return -EOPNOTSUPP;
}

static __poll_t hicn_poll(struct file *file, struct socket *sock,
			  poll_table *wait)
{
	struct sock *sk = sock->sk;
	u8 shutdown = READ_ONCE(sk->sk_shutdown);
	__poll_t mask = 0;

	sock_poll_wait(file, sock, wait);
	if (READ_ONCE(sk->sk_err))
		mask |= EPOLLERR;
	if (shutdown == SHUTDOWN_MASK)
		mask |= EPOLLHUP;
	if (shutdown & RCV_SHUTDOWN)
		mask |= EPOLLIN | EPOLLRDNORM | EPOLLRDHUP;
	if (sk->sk_type == SOCK_PROD)
		mask |= hicn_prod_poll(sk);
	else
		mask |= hicn_cons_poll(sk);
	return mask;
}

static int hicn_shutdown(struct socket *sock, int how)
{
	struct sock *sk = sock->sk;

	/* SHUT_RD, SHUT_WR, SHUT_RDWR are 0, 1, 2: make them masks. */
	how++;
	if (how < RCV_SHUTDOWN || how > SHUTDOWN_MASK)
		return -EINVAL;

	lock_sock(sk);
	sk->sk_shutdown |= how;
	if ((how & RCV_SHUTDOWN) && sk->sk_type == SOCK_CONS)
		hicn_cons_shutdown(hicn_sk(sk));
	sk->sk_state_change(sk);
	release_sock(sk);
	return 0;
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
	.connect	= hicn_cons_connect,
	.socketpair	= sock_no_socketpair,
	.accept		= sock_no_accept,
	.getname	= hicn_getname,
	.poll		= hicn_poll,
	.ioctl		= sock_no_ioctl,
	.listen		= sock_no_listen,
	.shutdown	= hicn_shutdown,
	.setsockopt	= hicn_setsockopt,
	.getsockopt	= hicn_getsockopt,
	.sendmsg	= hicn_cons_sendmsg,
	.recvmsg	= hicn_cons_recvmsg,
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
	.poll		= hicn_poll,
	.ioctl		= sock_no_ioctl,
	.listen		= sock_no_listen,
	.shutdown	= hicn_shutdown,
	.setsockopt	= hicn_setsockopt,
	.getsockopt	= hicn_getsockopt,
	.sendmsg	= hicn_prod_sendmsg,
	.recvmsg	= hicn_prod_recvmsg,
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
	int err = 0;

	protocol = hicn_select_ops(sock, protocol);
	if (protocol < 0)
		return protocol;

	sk = sk_alloc(net, hicn_family, GFP_KERNEL, &hicn_proto, kern);
	if (!sk)
		return -ENOMEM;

	sock_init_data(sock, sk);
	sock->state = SS_UNCONNECTED;
	sk->sk_protocol = protocol;

	if (sock->type == SOCK_PROD)
		err = hicn_prod_init(hicn_sk(sk));
	else
		err = hicn_cons_init(hicn_sk(sk));
	if (err)
		goto out_free;
	hicn_sk(sk)->face = hicn_face_create(net, sock->type == SOCK_PROD ?
					     &hicn_prod_face_ops :
					     &hicn_cons_face_ops, sk);
	if (!hicn_sk(sk)->face) {
		if (sock->type == SOCK_PROD)
			hicn_prod_release(hicn_sk(sk));
		else
			hicn_cons_release(hicn_sk(sk));
		err = -ENOMEM;
		goto out_free;
	}

	hicn_pernet_link(hicn_sk(sk));
	sock_prot_inuse_add(net, &hicn_proto, 1);
	hicn_fault_inject();
	return 0;

out_free:
	sock->sk = NULL;
	sk_free(sk);
	return err;
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

	err = hicn_obj_init();
	if (err)
		return err;
	err = hicn_cs_init();
	if (err)
		goto err_obj;

	err = hicn_udp_init();
	if (err)
		goto err_cs;

	hicn_mem_init();
	err = proto_register(&hicn_proto, 1);
	if (err) {
		pr_err("proto_register failed: %d\n", err);
		goto err_udp;
	}
	err = proto_register(&hicn_rcv_proto, 0);
	if (err) {
		pr_err("proto_register failed: %d\n", err);
		goto err_proto_sk;
	}

	err = hicn_pernet_init();
	if (err) {
		pr_err("pernet registration failed: %d\n", err);
		goto err_proto;
	}

	err = hicn_link_init();
	if (err) {
		pr_err("netdev notifier registration failed: %d\n", err);
		goto err_pernet;
	}

	err = hicn_netlink_init();
	if (err) {
		pr_err("netlink family registration failed: %d\n", err);
		goto err_link;
	}

	err = sock_register(&hicn_family_ops);
	if (err) {
		pr_err("cannot register family %d (in use?): %d\n",
		       hicn_family, err);
		goto err_netlink;
	}

	pr_info("registered address family %d\n", hicn_family);
	return 0;

err_netlink:
	hicn_netlink_exit();
err_link:
	hicn_link_exit();
err_pernet:
	hicn_pernet_exit();
err_proto:
	proto_unregister(&hicn_rcv_proto);
err_proto_sk:
	proto_unregister(&hicn_proto);
err_udp:
	hicn_udp_exit();
err_cs:
	hicn_cs_exit();
err_obj:
	hicn_obj_exit();
	return err;
}

static void __exit hicn_exit(void)
{
	sock_unregister(hicn_family);
	hicn_netlink_exit();
	hicn_link_exit();
	hicn_pernet_exit();
	proto_unregister(&hicn_rcv_proto);
	proto_unregister(&hicn_proto);
	hicn_udp_exit();	/* drains the faces' tx works */
	rcu_barrier();	/* FIB entries and faces are freed by call_rcu() */
	hicn_cs_exit();
	hicn_obj_exit();
}

module_init(hicn_init);
module_exit(hicn_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("AF_HICN information-centric publish/subscribe sockets");
MODULE_VERSION(HICN_PSOCK_VERSION);
MODULE_ALIAS_NETPROTO(PF_HICN);
