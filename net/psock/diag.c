// SPDX-License-Identifier: GPL-2.0
/*
 * sock_diag for IPPROTO_PSOCK: what ss(8) shows of TCP, for striped
 * connections (as net/mptcp/mptcp_diag.c does for MPTCP).
 *
 * Design
 * ------
 * A SOCK_DIAG_BY_FAMILY request for AF_INET or AF_INET6 carrying
 * INET_DIAG_REQ_PROTOCOL = IPPROTO_PSOCK reaches the handler registered
 * here by inet_diag_register(); when psock.ko is not loaded, inet_diag
 * asks for it by the alias at the bottom of this file.  The handler is
 * registered last at module init and unregistered first at exit, so a
 * dump never runs without the protocol.
 *
 * Which sockets: every PSOCK socket of the requester's namespace, from
 * ->init to ->destroy (&pstripe_pernet.socks, in order of creation):
 * listeners, connecting and established connections, connections a
 * listener has not handed to accept() yet, and orphans finishing in the
 * background.  As TCP's dumps, any user of the namespace sees them all;
 * what only CAP_NET_ADMIN sees (marks) inet_diag leaves out, and so do the
 * subflow entries here.
 *
 * What of each: struct inet_diag_msg with the state in TCP's numbering,
 * the addresses and ports of the control subflow (sf[0]; a listener's is
 * its TCP listener), the PSOCK socket's own uid, inode and cookie; as
 * TCP, Recv-Q and Send-Q are the bytes readable and the bytes not yet
 * acknowledged (a listener: its accept queue and backlog).
 * INET_DIAG_INFO holds the answer to getsockopt(PSOCK_INFO): struct
 * psock_info and one struct psock_subflow_info per live subflow (as many
 * as fit in one message; @num counts them all).  The request's family,
 * states, ports and bytecode filter the dump; the bytecode is run on the
 * control subflow, which carries the connection's addresses.
 *
 * References and locks
 * --------------------
 * A dump takes up to PSTRIPE_DIAG_BATCH sockets from the list under
 * &pstripe_pernet.socks_lock, each with refcount_inc_not_zero() (a
 * socket is unlinked by ->destroy, before its memory can go), then fills
 * their messages without that lock, each under its socket lock (which
 * sleeps) and its subflows' (the protocol's lock order), and puts them.
 * A socket closed meanwhile is still whole: it shows in state CLOSE.
 * The cursor in cb->ctx counts the list entries passed: a socket unlinked
 * between two parts of a dump may make the next part skip one, as TCP's
 * dumps may; a socket created meanwhile comes at the end and is seen.
 */

#include <asm/ioctls.h>
#include <linux/inet_diag.h>
#include <linux/module.h>
#include <linux/sock_diag.h>
#include <linux/sockios.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "protocol.h"

/* Sockets a dump takes references on at once. */
#define PSTRIPE_DIAG_BATCH	16

/* What one message needs at most: every subflow's entry. */
#define PSTRIPE_DIAG_INFO_MAX	(sizeof(struct psock_info) + \
				 PSOCK_STREAM_CNT_LIMIT * \
				 sizeof(struct psock_subflow_info))

/* Room left for the rest of a message besides INET_DIAG_INFO's entries. */
#define PSTRIPE_DIAG_SLACK	64

struct pstripe_diag_ctx {
	unsigned long	pos;	/* entries of the list passed */
};

void pstripe_diag_link(struct pstripe_sock *ps)
{
	struct pstripe_pernet *pn = pstripe_get_pernet(sock_net(ps_sk(ps)));

	spin_lock_bh(&pn->socks_lock);
	list_add_tail(&ps->all_node, &pn->socks);
	spin_unlock_bh(&pn->socks_lock);
}

/* From ->destroy, only for a socket pstripe_diag_link() linked. */
void pstripe_diag_unlink(struct pstripe_sock *ps)
{
	struct pstripe_pernet *pn = pstripe_get_pernet(sock_net(ps_sk(ps)));

	spin_lock_bh(&pn->socks_lock);
	list_del(&ps->all_node);
	spin_unlock_bh(&pn->socks_lock);
}

/* The subflow whose addresses name the connection, or NULL. */
static struct sock *pstripe_diag_ssk(struct pstripe_sock *ps)
{
	sock_owned_by_me(ps_sk(ps));
	if (!ps->sf[0] || !ps->sf[0]->sock)
		return NULL;
	return ps->sf[0]->sock->sk;
}

/* The request's ports and bytecode, on the control subflow. */
static bool pstripe_diag_match(struct pstripe_sock *ps,
			       struct netlink_callback *cb,
			       const struct inet_diag_req_v2 *r)
{
	struct sock *ssk = pstripe_diag_ssk(ps);
	struct sock *sk = ssk ?: ps_sk(ps);

	if (r->id.idiag_sport && r->id.idiag_sport != inet_sk(sk)->inet_sport)
		return false;
	if (r->id.idiag_dport && r->id.idiag_dport != inet_sk(sk)->inet_dport)
		return false;
	return pstripe_diag_bc_sk(cb->data, sk);
}

/* Recv-Q and Send-Q, as TCP's. */
static void pstripe_diag_queues(struct pstripe_sock *ps,
				struct inet_diag_msg *r)
{
	struct sock *sk = ps_sk(ps);

	if (sk->sk_state == TCP_LISTEN) {
		r->idiag_rqueue = ps->accept_len;
		r->idiag_wqueue = READ_ONCE(sk->sk_max_ack_backlog);
		return;
	}
	r->idiag_rqueue = pstripe_queue_len(ps, SIOCINQ);
	r->idiag_wqueue = pstripe_queue_len(ps, SIOCOUTQ);
}

/*
 * INET_DIAG_INFO: PSOCK_INFO's answer.  The first message of a dump's
 * buffer takes the entries that fit; any other message waits for the
 * next buffer when they do not all fit.
 */
static int pstripe_diag_put_info(struct pstripe_sock *ps, struct sk_buff *skb,
				 bool first, bool net_admin)
{
	struct sock *sk = ps_sk(ps);
	struct psock_subflow_info si;
	struct psock_info info;
	struct nlattr *attr;
	int i, n = 0, max;
	u8 *p;

	pstripe_info_head(sk, &info);
	info.size_user = sizeof(si);
	max = info.num;
	if (first) {
		int room = (int)skb_tailroom(skb) - PSTRIPE_DIAG_SLACK -
			   (int)sizeof(info);

		max = clamp_t(int, room / (int)sizeof(si), 0, max);
	}
	attr = nla_reserve_64bit(skb, INET_DIAG_INFO,
				 sizeof(info) + max * sizeof(si), INET_DIAG_PAD);
	if (!attr)
		return -EMSGSIZE;
	p = nla_data(attr);
	memcpy(p, &info, sizeof(info));
	p += sizeof(info);
	for (i = 0; n < max && i < ps->nsf; i++) {
		if (!pstripe_sf_live(ps->sf[i]))
			continue;
		pstripe_sf_info(sk, ps->sf[i], &si);
		/* inet_diag shows marks to CAP_NET_ADMIN only. */
		if (!net_admin) {
			si.mark = 0;
			si.priority = 0;
		}
		memcpy(p + n * sizeof(si), &si, sizeof(si));
		n++;
	}
	return 0;
}

/* The message of one socket, under its lock. */
static int pstripe_diag_msg(struct pstripe_sock *ps, struct sk_buff *skb,
			    struct netlink_callback *cb,
			    const struct inet_diag_req_v2 *req,
			    u16 nlmsg_flags, bool net_admin)
{
	struct sock *sk = ps_sk(ps), *ssk = pstripe_diag_ssk(ps);
	bool first = !skb->len;
	struct inet_diag_msg *r;
	struct nlmsghdr *nlh;
	int ext = req->idiag_ext;

	nlh = nlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			cb->nlh->nlmsg_type, sizeof(*r), nlmsg_flags);
	if (!nlh)
		return -EMSGSIZE;
	r = nlmsg_data(nlh);
	inet_diag_msg_common_fill(r, ssk ?: sk);
	r->idiag_family = sk->sk_family;
	sock_diag_save_cookie(sk, r->id.idiag_cookie);
	r->idiag_state = sk->sk_state;
	r->idiag_timer = 0;
	r->idiag_retrans = 0;
	r->idiag_expires = 0;
	pstripe_diag_queues(ps, r);

	if (inet_diag_msg_attrs_fill(sk, skb, r, ext,
				     sk_user_ns(NETLINK_CB(cb->skb).sk),
				     net_admin))
		goto cancel;
	if ((ext & (1 << (INET_DIAG_SKMEMINFO - 1))) &&
	    sock_diag_put_meminfo(sk, skb, INET_DIAG_SKMEMINFO))
		goto cancel;
	if ((ext & (1 << (INET_DIAG_INFO - 1))) &&
	    pstripe_diag_put_info(ps, skb, first, net_admin))
		goto cancel;
	nlmsg_end(skb, nlh);
	return 0;

cancel:
	nlmsg_cancel(skb, nlh);
	return -EMSGSIZE;
}

/* One socket's message; 0 also when the filters leave it out. */
static int pstripe_diag_fill(struct sock *sk, struct sk_buff *skb,
			     struct netlink_callback *cb,
			     const struct inet_diag_req_v2 *req,
			     u16 nlmsg_flags, bool filter)
{
	bool net_admin = netlink_net_capable(cb->skb, CAP_NET_ADMIN);
	struct pstripe_sock *ps = pstripe_sk(sk);
	int err = 0;

	lock_sock(sk);
	if (!filter || pstripe_diag_match(ps, cb, req))
		err = pstripe_diag_msg(ps, skb, cb, req, nlmsg_flags,
				       net_admin);
	release_sock(sk);
	return err;
}

/*
 * Up to PSTRIPE_DIAG_BATCH sockets of @net from list entry *@pos on, those
 * of the request's family and states, each with a reference; @at gets the
 * entry of each, *@pos the entry after the last one looked at.
 */
static int pstripe_diag_batch(struct net *net, unsigned long *pos,
			      const struct inet_diag_req_v2 *r,
			      struct sock **sks, unsigned long *at)
{
	struct pstripe_pernet *pn = pstripe_get_pernet(net);
	unsigned long i = 0;
	struct pstripe_sock *ps;
	int n = 0;

	spin_lock_bh(&pn->socks_lock);
	list_for_each_entry(ps, &pn->socks, all_node) {
		struct sock *sk = ps_sk(ps);

		if (i < *pos) {
			i++;
			continue;
		}
		if (n == PSTRIPE_DIAG_BATCH)
			break;
		i++;
		if (r->sdiag_family != AF_UNSPEC &&
		    sk->sk_family != r->sdiag_family)
			continue;
		if (!(r->idiag_states & (1 << inet_sk_state_load(sk))))
			continue;
		if (!refcount_inc_not_zero(&sk->sk_refcnt))
			continue;
		at[n] = i - 1;
		sks[n++] = sk;
	}
	spin_unlock_bh(&pn->socks_lock);
	*pos = i;
	return n;
}

static void pstripe_diag_dump(struct sk_buff *skb, struct netlink_callback *cb,
			      const struct inet_diag_req_v2 *r)
{
	struct pstripe_diag_ctx *ctx = (void *)cb->ctx;
	unsigned long at[PSTRIPE_DIAG_BATCH];
	struct sock *sks[PSTRIPE_DIAG_BATCH];
	struct net *net = sock_net(skb->sk);
	int i, n;

	BUILD_BUG_ON(sizeof(cb->ctx) < sizeof(*ctx));

	while ((n = pstripe_diag_batch(net, &ctx->pos, r, sks, at)) > 0) {
		for (i = 0; i < n; i++) {
			if (pstripe_diag_fill(sks[i], skb, cb, r, NLM_F_MULTI,
					      true) < 0)
				break;
			sock_put(sks[i]);
		}
		if (i < n) {
			/* This buffer is full: the next part starts there. */
			ctx->pos = at[i];
			for (; i < n; i++)
				sock_put(sks[i]);
			return;
		}
		cond_resched();
	}
}

/* The socket of @net with the request's cookie, with a reference. */
static struct sock *pstripe_diag_find(struct net *net,
				      const struct inet_diag_req_v2 *req)
{
	struct pstripe_pernet *pn = pstripe_get_pernet(net);
	struct sock *found = NULL;
	struct pstripe_sock *ps;

	spin_lock_bh(&pn->socks_lock);
	list_for_each_entry(ps, &pn->socks, all_node) {
		struct sock *sk = ps_sk(ps);
		u32 cookie[2];

		if (req->sdiag_family != AF_UNSPEC &&
		    sk->sk_family != req->sdiag_family)
			continue;
		sock_diag_save_cookie(sk, cookie);
		if (cookie[0] != req->id.idiag_cookie[0] ||
		    cookie[1] != req->id.idiag_cookie[1])
			continue;
		if (refcount_inc_not_zero(&sk->sk_refcnt))
			found = sk;
		break;
	}
	spin_unlock_bh(&pn->socks_lock);
	return found;
}

/* One socket, by its cookie (the only key: a PSOCK socket is not hashed). */
static int pstripe_diag_dump_one(struct netlink_callback *cb,
				 const struct inet_diag_req_v2 *req)
{
	struct sk_buff *in_skb = cb->skb;
	struct net *net = sock_net(in_skb->sk);
	struct sk_buff *rep;
	struct sock *sk;
	int err;

	if (req->id.idiag_cookie[0] == INET_DIAG_NOCOOKIE &&
	    req->id.idiag_cookie[1] == INET_DIAG_NOCOOKIE)
		return -EINVAL;
	sk = pstripe_diag_find(net, req);
	if (!sk)
		return -ENOENT;

	err = -ENOMEM;
	rep = nlmsg_new(nla_total_size(sizeof(struct inet_diag_msg)) +
			inet_diag_msg_attrs_size() +
			nla_total_size_64bit(PSTRIPE_DIAG_INFO_MAX) +
			nla_total_size(SK_MEMINFO_VARS * sizeof(u32)) +
			PSTRIPE_DIAG_SLACK, GFP_KERNEL);
	if (!rep)
		goto out;
	err = pstripe_diag_fill(sk, rep, cb, req, 0, false);
	if (err < 0) {
		WARN_ON_ONCE(err == -EMSGSIZE);
		kfree_skb(rep);
		goto out;
	}
	err = nlmsg_unicast(net->diag_nlsk, rep, NETLINK_CB(in_skb).portid);
out:
	sock_put(sk);
	return err;
}

/* inet_diag calls it only through a message it builds itself: unused. */
static void pstripe_diag_get_info(struct sock *sk, struct inet_diag_msg *r,
				  void *info)
{
}

static struct inet_diag_handler pstripe_diag_handler = {
	.dump		= pstripe_diag_dump,
	.dump_one	= pstripe_diag_dump_one,
	.idiag_get_info	= pstripe_diag_get_info,
	.idiag_type	= IPPROTO_PSOCK,
	.idiag_info_size = sizeof(struct psock_info),
};

int pstripe_diag_init(void)
{
	pstripe_diag_set_owner(&pstripe_diag_handler, THIS_MODULE);
	return inet_diag_register(&pstripe_diag_handler);
}

void pstripe_diag_exit(void)
{
	inet_diag_unregister(&pstripe_diag_handler);
}

/* inet_diag asks for "net-pf-16-proto-4-type-2-259", whatever the family. */
MODULE_ALIAS("net-pf-" __stringify(PF_NETLINK) "-proto-"
	     __stringify(NETLINK_SOCK_DIAG) "-type-" __stringify(AF_INET) "-"
	     __stringify(IPPROTO_PSOCK));
