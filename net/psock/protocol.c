// SPDX-License-Identifier: GPL-2.0
/*
 * IPPROTO_PSOCK: one TCP-like byte stream striped over N kernel TCP subflows.
 *
 * Design
 * ------
 * socket(AF_INET or AF_INET6, SOCK_STREAM, IPPROTO_PSOCK) reaches this
 * module through inet_protosw / inet6_protosw entries, as MPTCP does.  The
 * socket the application holds (struct pstripe_sock) owns the TCP subflows
 * that carry its bytes; on the wire only TCP is seen, so IPPROTO_PSOCK never
 * leaves the host.  The module is autoloaded by socket() through the
 * net-pf-2/10-proto-259 aliases.
 *
 * The connection calls, the handshake and the data path are in stream.c.
 *
 * Lock order
 * ----------
 *   lock_sock(pstripe socket)  ->  lock_sock(subflow)
 *
 * References
 * ----------
 * Every socket holds this module through its struct proto (sk_alloc() takes
 * proto.owner) and ops table, so rmmod is refused while one is open.  The
 * per-netns socket count in /proc/net/protocols ("PSOCK", "PSOCKv6") goes up
 * in ->init and down in ->destroy.
 *
 * Files: protocol.c (registration, struct proto), stream.c (socket calls,
 * handshake, data path), ctrl.c (per-netns sysctls net.psock.*), sockopt.c
 * (SOL_PSOCK options).
 */

#include <linux/module.h>
#include <linux/net.h>
#include <linux/poll.h>
#include <net/inet_common.h>
#include <net/ipv6.h>
#include <net/protocol.h>
#include <net/sock.h>
#include <net/transp_v6.h>

#include "protocol.h"

static int pstripe_init_sock(struct sock *sk)
{
	const struct pstripe_pernet *pn = pstripe_get_pernet(sock_net(sk));
	struct pstripe_sock *ps = pstripe_sk(sk);

	/* As net.mptcp.enabled = 0 does for MPTCP. */
	if (!READ_ONCE(pn->enabled))
		return -ENOPROTOOPT;

	ps->rcmd_stream_cnt = READ_ONCE(pn->rcmd_stream_cnt);
	ps->max_stream_cnt = READ_ONCE(pn->max_stream_cnt);
	ps->driver = READ_ONCE(pn->driver);
	pstripe_sock_init(ps);
	pstripe_opts_snapshot(sk, &ps->synced);

	sock_prot_inuse_add(sock_net(sk), sk->sk_prot, 1);
	ps->counted = true;
	return 0;
}

/* Also called by sk_common_release() when ->init failed. */
static void pstripe_destroy(struct sock *sk)
{
	if (pstripe_sk(sk)->counted)
		sock_prot_inuse_add(sock_net(sk), sk->sk_prot, -1);
}

/*
 * The PSOCK socket itself is never in a lookup table: its subflows are the
 * TCP sockets the stack finds.  sk_common_release() still calls ->unhash.
 */
static int pstripe_hash(struct sock *sk)
{
	return 0;
}

static void pstripe_unhash(struct sock *sk)
{
}

/*
 * SOL_PSOCK options and TCP_NODELAY live in sockopt.c; SOL_SOCKET is the
 * core's (sockopt.c copies what the subflows share).  Other levels are
 * unknown.
 */
static int pstripe_setsockopt(struct sock *sk, int level, int optname,
			      sockptr_t optval, unsigned int optlen)
{
	if (level == SOL_PSOCK)
		return pstripe_setsockopt_psock(sk, optname, optval, optlen);
	if (level == SOL_TCP)
		return pstripe_setsockopt_tcp(sk, optname, optval, optlen);
	return -ENOPROTOOPT;
}

static int pstripe_getsockopt(struct sock *sk, int level, int optname,
			      char __user *optval, int __user *optlen)
{
	if (level == SOL_PSOCK)
		return pstripe_getsockopt_psock(sk, optname, optval, optlen);
	if (level == SOL_TCP)
		return pstripe_getsockopt_tcp(sk, optname, optval, optlen);
	return -ENOPROTOOPT;
}

static struct proto pstripe_prot = {
	.name		= "PSOCK",
	.owner		= THIS_MODULE,
	.init		= pstripe_init_sock,
	.destroy	= pstripe_destroy,
	.close		= pstripe_close,
	.hash		= pstripe_hash,
	.unhash		= pstripe_unhash,
	.setsockopt	= pstripe_setsockopt,
	.getsockopt	= pstripe_getsockopt,
	.obj_size	= sizeof(struct pstripe_sock),
};

static struct inet_protosw pstripe_protosw = {
	.type		= SOCK_STREAM,
	.protocol	= IPPROTO_PSOCK,
	.prot		= &pstripe_prot,
	.ops		= &pstripe_stream_ops,
};

#if IS_ENABLED(CONFIG_IPV6)
/* A copy of pstripe_prot with the IPv6 object layout, made at init. */
static struct proto pstripe6_prot;

static struct inet_protosw pstripe6_protosw = {
	.type		= SOCK_STREAM,
	.protocol	= IPPROTO_PSOCK,
	.prot		= &pstripe6_prot,
	.ops		= &pstripe6_stream_ops,
};

static int __init pstripe6_init(void)
{
	int err;

	/* 6.1 finds ipv6_pinfo at the end of the object. */
	BUILD_BUG_ON(offsetof(struct pstripe6_sock, np) +
		     sizeof(struct ipv6_pinfo) != sizeof(struct pstripe6_sock));

	pstripe6_prot = pstripe_prot;
	strscpy(pstripe6_prot.name, "PSOCKv6", sizeof(pstripe6_prot.name));
	pstripe6_prot.obj_size = sizeof(struct pstripe6_sock);
	pstripe_set_ipv6_pinfo_offset(&pstripe6_prot,
				      offsetof(struct pstripe6_sock, np));

	err = proto_register(&pstripe6_prot, 1);
	if (err)
		return err;

	err = inet6_register_protosw(&pstripe6_protosw);
	if (err) {
		proto_unregister(&pstripe6_prot);
		return err;
	}
	return 0;
}

static void pstripe6_exit(void)
{
	inet6_unregister_protosw(&pstripe6_protosw);
	proto_unregister(&pstripe6_prot);
}
#else
static int __init pstripe6_init(void) { return 0; }
static void pstripe6_exit(void) { }
#endif

static int __init pstripe_init(void)
{
	int err;

	err = pstripe_stream_init();
	if (err)
		return err;

	err = pstripe_ctrl_init();
	if (err) {
		pr_err("pernet registration failed: %d\n", err);
		goto err_stream;
	}

	err = proto_register(&pstripe_prot, 1);
	if (err) {
		pr_err("proto_register failed: %d\n", err);
		goto err_ctrl;
	}
	inet_register_protosw(&pstripe_protosw);

	err = pstripe6_init();
	if (err) {
		pr_err("IPv6 registration failed: %d\n", err);
		goto err_inet;
	}

	pr_info("registered IPPROTO_PSOCK (%d)\n", IPPROTO_PSOCK);
	return 0;

err_inet:
	inet_unregister_protosw(&pstripe_protosw);
	proto_unregister(&pstripe_prot);
err_ctrl:
	pstripe_ctrl_exit();
err_stream:
	pstripe_stream_exit();
	return err;
}

static void __exit pstripe_exit(void)
{
	pstripe6_exit();
	inet_unregister_protosw(&pstripe_protosw);
	proto_unregister(&pstripe_prot);
	pstripe_ctrl_exit();
	pstripe_stream_exit();
}

module_init(pstripe_init);
module_exit(pstripe_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("IPPROTO_PSOCK: one byte stream striped over TCP subflows");
/* inet_create() and inet6_create() ask for these; 1 is SOCK_STREAM. */
MODULE_ALIAS_NET_PF_PROTO_TYPE(PF_INET, IPPROTO_PSOCK, 1);
MODULE_ALIAS_NET_PF_PROTO_TYPE(PF_INET6, IPPROTO_PSOCK, 1);
MODULE_ALIAS_NET_PF_PROTO(PF_INET, IPPROTO_PSOCK);
MODULE_ALIAS_NET_PF_PROTO(PF_INET6, IPPROTO_PSOCK);
