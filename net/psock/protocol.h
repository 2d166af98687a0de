/* SPDX-License-Identifier: GPL-2.0 */
/*
 * IPPROTO_PSOCK internal definitions.  Symbols carry the pstripe_ prefix:
 * "psock" alone already names KCM's and BPF sockmap's structures.
 */
#ifndef _NET_PSOCK_PROTOCOL_H
#define _NET_PSOCK_PROTOCOL_H

#include <linux/ipv6.h>
#include <net/inet_sock.h>
#include <uapi/linux/psock.h>

/**
 * struct pstripe_sock - the socket the application sees (the "msk" in
 *	MPTCP's words); its subflows are kernel TCP sockets it owns
 * @isk: inet socket; must stay first (pstripe_sk() casts)
 */
struct pstripe_sock {
	struct inet_sock	isk;
};

/**
 * struct pstripe6_sock - IPv6 flavour of struct pstripe_sock
 * @ps: the common part
 * @np: IPv6 state; must be the last member (6.1's inet6_sk_generic()
 *	finds it at obj_size - sizeof(struct ipv6_pinfo))
 */
struct pstripe6_sock {
	struct pstripe_sock	ps;
	struct ipv6_pinfo	np;
};

static inline struct pstripe_sock *pstripe_sk(const struct sock *sk)
{
	return (struct pstripe_sock *)sk;
}

#endif /* _NET_PSOCK_PROTOCOL_H */
