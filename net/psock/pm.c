// SPDX-License-Identifier: GPL-2.0
/*
 * PSOCK path management: the addresses data subflows connect to (announced
 * by the server, or the control subflow's) and opening the extra subflows.
 */

#include <linux/jiffies.h>
#include <linux/net.h>
#include <linux/poll.h>
#include <linux/random.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <net/inet_common.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <net/transp_v6.h>

#include "protocol.h"

/* Write @a (4 or 6, or @fam 0: leave the address) and @port into @ss. */
static void pstripe_addr_to_ss(struct sock *sk, int fam, const u8 *a,
			       __be16 port, struct sockaddr_storage *ss)
{
	if (sk->sk_family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		if (fam == 4)
			memcpy(&sin->sin_addr, a, 4);
		sin->sin_port = port;
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

		if (fam == 6)
			memcpy(&sin6->sin6_addr, a, 16);
		else if (fam == 4)
			ipv6_addr_set_v4mapped(*(__be32 *)a, &sin6->sin6_addr);
		sin6->sin6_port = port;
	}
}

/**
 * pstripe_local_addrs() - the addresses a socket uses besides the control
 *	subflow's
 * @ps: the socket, its lock held
 * @flag: which endpoints stand in for addresses of its own:
 *	PSOCK_ENDPOINT_FLAGS_SIGNAL for a listener's announcements,
 *	PSOCK_ENDPOINT_FLAGS_SUBFLOW for a client's data subflows
 * @out: room for PSOCK_ADDR_MAX addresses
 * @ifindex: room for as many interfaces (0: any)
 *
 * The socket's own (PSOCK_ADD_LOCAL_ADDR) when it has any, else the
 * namespace's endpoints of its family with @flag (netlink.c), as a
 * socket option overrides a namespace's configuration.
 *
 * Context: process context.
 * Return: how many.
 */
int pstripe_local_addrs(struct pstripe_sock *ps, u32 flag,
			struct pstripe_addr *out, int *ifindex)
{
	struct sock *sk = ps_sk(ps);
	int i;

	sock_owned_by_me(sk);
	if (!ps->nladdr)
		return pstripe_nl_endpoints(sock_net(sk), sk->sk_family, flag,
					    out, ifindex);
	for (i = 0; i < ps->nladdr; i++) {
		out[i] = ps->laddr[i];
		ifindex[i] = 0;
	}
	return ps->nladdr;
}

/*
 * The addresses the data subflows connect to: dst[0] is the server's
 * (or the control peer's) and port of the server hello, then the
 * announced ones, as many as net.psock.add_addr_accepted lets a server
 * send us to (a server is not trusted to name other hosts).  Returns how
 * many, or an error.
 */
static int pstripe_data_addrs(struct pstripe_sock *ps,
			      const struct pstripe_hello *msgs,
			      struct sockaddr_storage *dst, int *dlen)
{
	const struct pstripe_hello *h = &msgs[0];
	struct sock *sk = ps_sk(ps);
	int len, i, n;

	n = min_t(int, h->n, READ_ONCE(pstripe_get_pernet(sock_net(sk))->
				       add_addr_accepted));
	len = kernel_getpeername(ps->sf[0]->sock, (struct sockaddr *)&dst[0]);
	if (len < 0)
		return len;
	*dlen = len;
	pstripe_addr_to_ss(sk, h->family, h->addr, h->port, &dst[0]);
	for (i = 1; i <= n; i++) {
		dst[i] = dst[0];
		pstripe_addr_to_ss(sk, msgs[i].family, msgs[i].addr,
				   msgs[i].port ? msgs[i].port : h->port,
				   &dst[i]);
	}
	return 1 + n;
}

/*
 * Data subflow i goes to dst[i % ndst]; from src[i % nsrc] when the client
 * added source addresses (src[0] is the control subflow's), from the
 * control subflow's address when it goes where the control subflow goes,
 * and otherwise from whatever address routing picks.
 */
int pstripe_open_data_subflows(struct pstripe_sock *ps,
			       const struct pstripe_hello *msgs)
{
	struct pstripe_addr laddr[PSOCK_ADDR_MAX];
	int ifindex[1 + PSOCK_ADDR_MAX] = { };
	struct sockaddr_storage *dst, *src;
	struct sock *sk = ps_sk(ps);
	int i, ndst, nsrc, dlen, slen, err;

	/* dst[1 + PSOCK_ADDR_MAX], then src[1 + PSOCK_ADDR_MAX] */
	dst = kcalloc(2 * (1 + PSOCK_ADDR_MAX), sizeof(*dst), GFP_KERNEL);
	if (!dst)
		return -ENOMEM;
	src = dst + 1 + PSOCK_ADDR_MAX;
	err = pstripe_data_addrs(ps, msgs, dst, &dlen);
	if (err < 0)
		goto out;
	ndst = err;
	err = kernel_getsockname(ps->sf[0]->sock, (struct sockaddr *)&src[0]);
	if (err < 0)
		goto out;
	slen = err;
	nsrc = 1 + pstripe_local_addrs(ps, PSOCK_ENDPOINT_FLAGS_SUBFLOW,
				       laddr, &ifindex[1]);
	/* Source addresses: any port. */
	pstripe_addr_to_ss(sk, 0, NULL, 0, &src[0]);
	for (i = 1; i < nsrc; i++) {
		src[i] = src[0];
		pstripe_addr_to_ss(sk, laddr[i - 1].family, laddr[i - 1].addr,
				   0, &src[i]);
	}

	for (i = 1; i < ps->stream_cnt; i++) {
		struct pstripe_subflow *sf = pstripe_sf_create(sk, i, &err);
		int d = i % ndst, s = i % nsrc;

		if (!sf)
			goto out;
		ps->sf[i] = sf;
		ps->nsf = i + 1;
		pstripe_mib_inc(sock_net(sk), PSTRIPE_MIB_SUBFLOWS_OPENED);
		/*
		 * A subflow that cannot be bound or connected stays closed:
		 * the join step abandons it, the others go on.
		 */
		err = 0;
		if (ifindex[s])
			err = sock_bindtoindex(sf->sock->sk, ifindex[s], true);
		/* s is 0 when the client has no addresses of its own. */
		if (!err && (nsrc > 1 || !d))
			err = kernel_bind(sf->sock,
					  (struct sockaddr_unsized *)&src[s],
					  slen);
		if (!err)
			kernel_connect(sf->sock,
				       (struct sockaddr_unsized *)&dst[d],
				       dlen, O_NONBLOCK);
	}
	err = 0;
out:
	kfree(dst);
	return err;
}

/* An address message must name an address of the socket's family. */
bool pstripe_addr_msg_sane(struct pstripe_sock *ps,
			   const struct pstripe_hello *m, int index)
{
	if (!pstripe_hello_prefix((const u8 *)m, sizeof(*m), PSTRIPE_MSG_ADDR) ||
	    m->index != index)
		return false;
	if (m->family == 4)
		return true;
	return m->family == 6 && ps_sk(ps)->sk_family == AF_INET6;
}
