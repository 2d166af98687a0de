/* SPDX-License-Identifier: GPL-2.0 */
/*
 * IPPROTO_PSOCK internal definitions.  Symbols carry the pstripe_ prefix:
 * "psock" alone already names KCM's and BPF sockmap's structures.
 */
#ifndef _NET_PSOCK_PROTOCOL_H
#define _NET_PSOCK_PROTOCOL_H

#include <linux/ipv6.h>
#include <linux/sockptr.h>
#include <net/inet_sock.h>
#include <uapi/linux/psock.h>

/**
 * struct pstripe_pernet - net.psock.* sysctls of one network namespace
 * @sysctl_hdr: the registered table (a per-namespace copy)
 * @enabled: 0 refuses new PSOCK sockets with ENOPROTOOPT
 * @rcmd_stream_cnt: default PSOCK_RCMD_STREAM_CNT
 * @max_stream_cnt: default PSOCK_MAX_STREAM_CNT
 * @driver: default PSOCK_DRIVER
 * @stale_timeout_ms: a subflow without progress this long is dead
 */
struct pstripe_pernet {
	struct ctl_table_header	*sysctl_hdr;
	int			enabled;
	int			rcmd_stream_cnt;
	int			max_stream_cnt;
	int			driver;
	int			stale_timeout_ms;
};

/**
 * struct pstripe_sock - the socket the application sees (the "msk" in
 *	MPTCP's words); its subflows are kernel TCP sockets it owns
 * @isk: inet socket; must stay first (pstripe_sk() casts)
 * @counted: counted in /proc/net/protocols (->init succeeded)
 * @rcmd_stream_cnt: recommended stream count announced to the peer
 * @max_stream_cnt: maximum stream count announced to the peer
 * @driver: enum psock_driver
 * @sndbuf: SO_SNDBUF of each subflow, 0 for the default
 * @rcvbuf: SO_RCVBUF of each subflow, 0 for the default
 *
 * The options are protected by lock_sock().
 */
struct pstripe_sock {
	struct inet_sock	isk;
	bool			counted;
	int			rcmd_stream_cnt;
	int			max_stream_cnt;
	int			driver;
	int			sndbuf[PSOCK_STREAM_CNT_LIMIT];
	int			rcvbuf[PSOCK_STREAM_CNT_LIMIT];
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

/* ctrl.c */
struct pstripe_pernet *pstripe_get_pernet(const struct net *net);
int pstripe_ctrl_init(void);
void pstripe_ctrl_exit(void);

/* sockopt.c */
int pstripe_setsockopt_psock(struct sock *sk, int optname, sockptr_t optval,
			     unsigned int optlen);
int pstripe_getsockopt_psock(struct sock *sk, int optname,
			     char __user *optval, int __user *optlen);

#endif /* _NET_PSOCK_PROTOCOL_H */
