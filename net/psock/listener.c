// SPDX-License-Identifier: GPL-2.0
/*
 * PSOCK listener: classifying accepted TCP connections (probe, join or
 * plain data), making children and handing them to accept().
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

/* A PSOCK socket for a connection accepted by @lsk, not yet visible. */
static struct pstripe_sock *pstripe_child_create(struct pstripe_sock *lps)
{
	struct sock *lsk = ps_sk(lps);
	struct pstripe_sock *child;
	struct socket *csock;
	struct sock *csk;

	if (__sock_create(sock_net(lsk), lsk->sk_family, SOCK_STREAM,
			  IPPROTO_PSOCK, &csock, 0))
		return NULL;
	csk = csock->sk;
	child = pstripe_sk(csk);
	child->csock = csock;
	child->rcmd_stream_cnt = lps->rcmd_stream_cnt;
	child->max_stream_cnt = lps->max_stream_cnt;
	child->driver = lps->driver;
	memcpy(child->sndbuf, lps->sndbuf, sizeof(child->sndbuf));
	memcpy(child->rcvbuf, lps->rcvbuf, sizeof(child->rcvbuf));
	csk->sk_rcvtimeo = lsk->sk_rcvtimeo;
	csk->sk_sndtimeo = lsk->sk_sndtimeo;
	/* What its subflows got as clones of the TCP listener. */
	csk->sk_sndbuf = lsk->sk_sndbuf;
	csk->sk_rcvbuf = lsk->sk_rcvbuf;
	csk->sk_userlocks |= lsk->sk_userlocks &
			     (SOCK_SNDBUF_LOCK | SOCK_RCVBUF_LOCK);
	WRITE_ONCE(csk->sk_mark, READ_ONCE(lsk->sk_mark));
	WRITE_ONCE(csk->sk_priority, READ_ONCE(lsk->sk_priority));
	child->nodelay = lps->nodelay;
	/*
	 * Accepted TCP sockets do not keep the listener's SO_PRIORITY: an
	 * empty snapshot makes the first sync (at accept()) copy them all.
	 */
	memset(&child->synced, 0, sizeof(child->synced));
	pstripe_set_state(csk, TCP_SYN_RECV);
	return child;
}

/* All subflows are there: hand the child to accept(). */
void pstripe_child_ready(struct pstripe_sock *lps,
			 struct pstripe_sock *child)
{
	int i;

	for (i = 0; i < child->nsf; i++)
		pstripe_sf_set_owner(child->sf[i], ps_sk(child));
	pstripe_established(child);
	list_add_tail(&child->lnode, &lps->accept_q);
	WRITE_ONCE(lps->accept_len, lps->accept_len + 1);
	pstripe_wake(ps_sk(lps));
}

/* Move pending @sf into a new child as its subflow 0. */
struct pstripe_sock *pstripe_child_adopt(struct pstripe_sock *lps,
					 struct pstripe_subflow *sf)
{
	struct pstripe_sock *child = pstripe_child_create(lps);

	if (!child)
		return NULL;
	list_del_init(&sf->node);
	sf->index = 0;
	child->sf[0] = sf;
	child->nsf = 1;
	return child;
}

void pstripe_pending_plain(struct pstripe_sock *lps,
			   struct pstripe_subflow *sf,
			   struct pstripe_reap *reap)
{
	struct pstripe_sock *child = pstripe_child_adopt(lps, sf);

	if (!child) {
		list_move(&sf->node, &reap->subflows);
		return;
	}
	child->fallback = true;
	pstripe_child_ready(lps, child);
}

/*
 * A join overtakes its connection's client hello when the data subflow
 * takes a faster path than the control subflow: while a connection with
 * the join's token still waits for its client hello, the join waits too
 * (until its own deadline).
 */
static bool pstripe_join_early(struct pstripe_sock *lps, u64 token)
{
	struct pstripe_subflow *p;

	list_for_each_entry(p, &lps->pending, node)
		if (p->pend_state == PSTRIPE_PEND_CHELLO && p->token == token)
			return true;
	return false;
}

/* A join: attach @sf to the embryo its token names, or refuse it. */
static void pstripe_pending_join(struct pstripe_sock *lps,
				 struct pstripe_subflow *sf,
				 struct pstripe_reap *reap)
{
	struct pstripe_sock *child, *found = NULL;
	struct pstripe_hello h;

	if (pstripe_sf_recv(sf, &h, sizeof(h), 0) != sizeof(h))
		goto refuse;
	list_for_each_entry(child, &lps->embryos, lnode) {
		if (child->token == be64_to_cpu(h.token)) {
			found = child;
			break;
		}
	}
	if (!found || h.index < 1 || h.index >= found->stream_cnt ||
	    found->sf[h.index])
		goto refuse;
	list_del_init(&sf->node);
	sf->index = h.index;
	found->sf[h.index] = sf;
	pstripe_mib_inc(sock_net(ps_sk(lps)), PSTRIPE_MIB_SUBFLOWS_JOINED);
	if (++found->joined == found->stream_cnt - 1) {
		found->nsf = found->stream_cnt;
		list_del_init(&found->lnode);
		pstripe_child_ready(lps, found);
	}
	return;
refuse:
	pstripe_mib_inc(sock_net(ps_sk(lps)), PSTRIPE_MIB_HANDSHAKE_FAILS);
	sock_no_linger(sf->sock->sk);
	list_move(&sf->node, &reap->subflows);
}

/*
 * Has @sf waited long enough?  A data subflow's join comes late when its
 * client is slow (a loaded machine): while connections of this listener
 * wait for their data subflows, a connection that said nothing yet keeps
 * waiting as long as they do, rather than be taken for plain TCP.
 */
static bool pstripe_pending_expired(struct pstripe_sock *lps,
				    const struct pstripe_subflow *sf)
{
	struct sock *lsk = ps_sk(lps);

	if (!time_after_eq(jiffies, sf->deadline))
		return false;
	if (sf->pend_state != PSTRIPE_PEND_FIRST || list_empty(&lps->embryos))
		return true;
	return time_after_eq(jiffies, sf->deadline +
			     pstripe_join_jiffies(lsk) -
			     pstripe_hello_jiffies(lsk));
}

/* Classify one accepted TCP connection as far as its bytes allow. */
static void pstripe_pending_step(struct pstripe_sock *lps,
				 struct pstripe_subflow *sf,
				 struct pstripe_reap *reap)
{
	bool expired = pstripe_pending_expired(lps, sf);
	struct pstripe_hello h;
	u8 oob;
	int r;

	if (sf->pend_state == PSTRIPE_PEND_CHELLO) {
		r = pstripe_sf_recv(sf, &h, sizeof(h), MSG_PEEK);
		if (r == sizeof(h) &&
		    pstripe_hello_prefix((u8 *)&h, r, PSTRIPE_MSG_CHELLO)) {
			pstripe_pending_chello(lps, sf, reap);
			return;
		}
		/*
		 * Data that is no control message, or the end of the stream:
		 * the client fell back on its timeout and its application
		 * spoke first; it drops our hello.
		 */
		if (r == 0 || (r > 0 && !pstripe_hello_prefix((u8 *)&h,
							      min(r, 4), 0))) {
			pstripe_pending_plain(lps, sf, reap);
			return;
		}
		if (r == -EAGAIN && !expired)
			return;
		/* Once begun, a client hello comes whole at once. */
		if (r > 0 && r < sizeof(h) &&
		    pstripe_hello_prefix((u8 *)&h, r, PSTRIPE_MSG_CHELLO) &&
		    !time_after_eq(jiffies, sf->deadline -
				   pstripe_join_jiffies(ps_sk(lps)) +
				   pstripe_hello_jiffies(ps_sk(lps))))
			return;
		pstripe_mib_inc(sock_net(ps_sk(lps)),
				PSTRIPE_MIB_HANDSHAKE_FAILS);
		sock_no_linger(sf->sock->sk);
		list_move(&sf->node, &reap->subflows);
		return;
	}

	/* PSTRIPE_PEND_FIRST: the urgent probe comes before any data. */
	r = pstripe_sf_recv(sf, &oob, 1, MSG_OOB | MSG_PEEK);
	if (r == 1 && oob == PSTRIPE_PROBE) {
		pstripe_sf_recv(sf, &oob, 1, MSG_OOB);
		if (pstripe_send_server_hello(lps, sf)) {
			list_move(&sf->node, &reap->subflows);
			return;
		}
		/*
		 * A live client answers our hello at once, with a client
		 * hello or, if it fell back meanwhile, data or a client hello
		 * of n = 0: waiting longer only costs a dead client's entry.
		 */
		sf->pend_state = PSTRIPE_PEND_CHELLO;
		sf->deadline = jiffies + pstripe_join_jiffies(ps_sk(lps));
		pstripe_pending_step(lps, sf, reap);
		return;
	}
	if (r == 1) {
		/* Urgent data of a plain TCP client: leave it to the app. */
		pstripe_pending_plain(lps, sf, reap);
		return;
	}
	if (r == -EAGAIN && !expired)
		return;		/* urgent pointer seen, byte not yet */

	r = pstripe_sf_recv(sf, &h, sizeof(h), MSG_PEEK);
	if (r > 0 && pstripe_hello_prefix((u8 *)&h, r, PSTRIPE_MSG_JOIN)) {
		if (r == sizeof(h)) {
			if (!expired &&
			    pstripe_join_early(lps, be64_to_cpu(h.token)))
				return;
			pstripe_pending_join(lps, sf, reap);
			return;
		}
		if (!expired)
			return;
	}
	if (r >= 0 || expired) {
		/* Plain data, end of stream, or silence: a plain client. */
		pstripe_pending_plain(lps, sf, reap);
		return;
	}
	if (r != -EAGAIN)
		list_move(&sf->node, &reap->subflows);
}

void pstripe_listen_work(struct pstripe_sock *lps,
			 struct pstripe_reap *reap)
{
	struct sock *lsk = ps_sk(lps);
	struct pstripe_subflow *sf, *tmp;
	struct pstripe_sock *child, *ctmp;
	struct socket *ns;
	int limit = max_t(int, READ_ONCE(lsk->sk_max_ack_backlog), 1);

	while (lps->accept_len < limit) {
		if (kernel_accept(lps->sf[0]->sock, &ns, O_NONBLOCK))
			break;
		sf = pstripe_sf_wrap(ns, lsk);
		if (!sf) {
			sock_release(ns);
			break;
		}
		sf->pend_state = PSTRIPE_PEND_FIRST;
		sf->deadline = jiffies + pstripe_hello_jiffies(lsk);
		list_add_tail(&sf->node, &lps->pending);
	}

	list_for_each_entry_safe(sf, tmp, &lps->pending, node)
		pstripe_pending_step(lps, sf, reap);

	/* Data subflows that never came: give up on the connection. */
	list_for_each_entry_safe(child, ctmp, &lps->embryos, lnode) {
		if (time_after_eq(jiffies, child->sf[0]->deadline))
			list_move(&child->lnode, &reap->children);
	}

	if (!list_empty(&lps->pending) || !list_empty(&lps->embryos))
		pstripe_schedule(lps, PSTRIPE_POLL_JIFFIES);
}
