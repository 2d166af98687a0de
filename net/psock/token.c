// SPDX-License-Identifier: GPL-2.0
/*
 * PSOCK token table: the established striped connections of a server, by
 * the token of their server hello, so that a subflow that rejoins one
 * (PSTRIPE_MSG_REJOIN, pm.c) finds it whichever listener took it, as
 * MPTCP's token.c finds the connection of an MP_JOIN.
 *
 * A connection is added when its listener hands it to accept() and
 * removed when it is torn down, before it can be freed: a lookup under
 * the table's lock that finds it takes a reference, and the socket stays
 * until that is put.  Tokens are chosen by the server (get_random_u64()),
 * so a peer cannot aim at a bucket.  The table's lock is a leaf, taken
 * under any socket lock.
 *
 * SO_REUSEPORT: the handshake table
 * ---------------------------------
 * Listeners that share a port (SO_REUSEPORT, same user, as TCP's rule)
 * share its connections: TCP picks a listener for each SYN by a hash of
 * its addresses and ports, so the data subflows of a connection land on
 * any of them, mostly not the one that holds its handshake.  While a
 * handshake is in progress (server hello sent, embryo waiting for its
 * joins), its control subflow is in a second table, by token, naming its
 * listener.  A listener that takes a join of a token it does not know
 * hands the subflow over: the subflow's events go to the other listener
 * (pstripe_sf_set_owner()), and it waits on that listener's @foreign list
 * until its work takes it in as a new pending connection.  The lookup and
 * the queueing are done under the table's lock, and so is a closing
 * listener's removal of its entries and its taking of @foreign: a
 * subflow is never queued on a listener that will not look at it again.
 */

#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/spinlock.h>
#include <net/inet_sock.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "protocol.h"

#define PSTRIPE_TOKEN_BITS	10

static DEFINE_HASHTABLE(pstripe_tokens, PSTRIPE_TOKEN_BITS);
static DEFINE_HASHTABLE(pstripe_hs, PSTRIPE_TOKEN_BITS);
/* pstripe_tokens, pstripe_hs, every pstripe_lstn.foreign */
static DEFINE_SPINLOCK(pstripe_tokens_lock);

/* Server @ps is established: rejoins may find it. */
void pstripe_token_add(struct pstripe_sock *ps)
{
	spin_lock_bh(&pstripe_tokens_lock);
	hash_add(pstripe_tokens, &ps->tok_node, ps->token);
	spin_unlock_bh(&pstripe_tokens_lock);
}

/* @ps is torn down (or never was added): no lookup finds it any more. */
void pstripe_token_del(struct pstripe_sock *ps)
{
	if (hlist_unhashed(&ps->tok_node))
		return;
	spin_lock_bh(&pstripe_tokens_lock);
	hash_del(&ps->tok_node);
	spin_unlock_bh(&pstripe_tokens_lock);
}

/**
 * pstripe_token_get() - the established connection of a token
 * @net: the namespace the rejoin came in
 * @token: the token it names
 * @family: the family of the listener that took it
 *
 * Context: process context, any socket lock held.
 * Return: the connection with a reference (sock_put() it), or NULL.
 */
struct pstripe_sock *pstripe_token_get(const struct net *net, u64 token,
				       int family)
{
	struct pstripe_sock *ps, *found = NULL;

	spin_lock_bh(&pstripe_tokens_lock);
	hash_for_each_possible(pstripe_tokens, ps, tok_node, token) {
		struct sock *sk = ps_sk(ps);

		if (ps->token == token && net_eq(sock_net(sk), net) &&
		    sk->sk_family == family) {
			sock_hold(sk);
			found = ps;
			break;
		}
	}
	spin_unlock_bh(&pstripe_tokens_lock);
	return found;
}

/* Server: @sf, @lps's control subflow, sent its hello: joins may find it. */
void pstripe_hs_add(struct pstripe_sock *lps, struct pstripe_subflow *sf)
{
	sock_owned_by_me(ps_sk(lps));
	spin_lock_bh(&pstripe_tokens_lock);
	sf->hs_lps = lps;
	hash_add(pstripe_hs, &sf->gnode, sf->token);
	spin_unlock_bh(&pstripe_tokens_lock);
}

/* The handshake of @sf is over (its connection ready, refused, freed). */
void pstripe_hs_del(struct pstripe_subflow *sf)
{
	if (hlist_unhashed(&sf->gnode))
		return;
	spin_lock_bh(&pstripe_tokens_lock);
	hash_del(&sf->gnode);
	sf->hs_lps = NULL;
	spin_unlock_bh(&pstripe_tokens_lock);
}

/*
 * The handshake of @token on the port of @lps's join @sf, held by another
 * listener of the namespace that shares the port: an SO_REUSEPORT one.
 */
static struct pstripe_sock *pstripe_hs_find(struct pstripe_sock *lps,
					    struct pstripe_subflow *sf,
					    u64 token)
{
	const struct sock *lsk = ps_sk(lps), *ssk = sf->sock->sk;
	struct pstripe_subflow *p;

	lockdep_assert_held(&pstripe_tokens_lock);
	hash_for_each_possible(pstripe_hs, p, gnode, token) {
		const struct sock *osk = ps_sk(p->hs_lps);

		if (p->token == token && p->hs_lps != lps &&
		    net_eq(sock_net(osk), sock_net(lsk)) &&
		    osk->sk_family == lsk->sk_family && osk->sk_reuseport &&
		    inet_sk(p->sock->sk)->inet_sport == inet_sk(ssk)->inet_sport)
			return p->hs_lps;
	}
	return NULL;
}

/**
 * pstripe_hs_handoff() - give a join to the listener of its handshake
 * @lps: the SO_REUSEPORT listener that took @sf, which knows no @token
 * @sf: the join, out of @lps's lists
 * @token: the token it names
 *
 * Context: process context, @lps's socket lock held.
 * Return: true if @sf now belongs to the other listener; false if no
 * listener holds @token, and @sf is still @lps's.
 */
bool pstripe_hs_handoff(struct pstripe_sock *lps, struct pstripe_subflow *sf,
			u64 token)
{
	struct pstripe_sock *ops;
	bool done = false;

	sock_owned_by_me(ps_sk(lps));
	spin_lock_bh(&pstripe_tokens_lock);
	ops = pstripe_hs_find(lps, sf, token);
	if (ops)
		sock_hold(ps_sk(ops));
	spin_unlock_bh(&pstripe_tokens_lock);
	if (!ops)
		return false;
	/* Its events wake @ops from now on; our reference keeps it. */
	pstripe_sf_set_owner(sf, ps_sk(ops));
	spin_lock_bh(&pstripe_tokens_lock);
	if (pstripe_hs_find(lps, sf, token) == ops) {
		list_add_tail(&sf->node, &ops->lstn->foreign);
		done = true;
	}
	spin_unlock_bh(&pstripe_tokens_lock);
	if (done)
		pstripe_kick(ops);
	else
		pstripe_sf_set_owner(sf, ps_sk(lps));
	sock_put(ps_sk(ops));
	return done;
}

/* The joins other listeners handed @lps, to @list. */
void pstripe_hs_take(struct pstripe_sock *lps, struct list_head *list)
{
	sock_owned_by_me(ps_sk(lps));
	if (list_empty_careful(&lps->lstn->foreign))
		return;
	spin_lock_bh(&pstripe_tokens_lock);
	list_splice_tail_init(&lps->lstn->foreign, list);
	spin_unlock_bh(&pstripe_tokens_lock);
}

/*
 * @lps stops listening: no join is handed to it any more; those that
 * were, to @list.
 */
void pstripe_hs_close(struct pstripe_sock *lps, struct list_head *list)
{
	struct pstripe_subflow *p;
	struct hlist_node *tmp;
	int bkt;

	sock_owned_by_me(ps_sk(lps));
	spin_lock_bh(&pstripe_tokens_lock);
	hash_for_each_safe(pstripe_hs, bkt, tmp, p, gnode) {
		if (p->hs_lps == lps) {
			hash_del(&p->gnode);
			p->hs_lps = NULL;
		}
	}
	list_splice_tail_init(&lps->lstn->foreign, list);
	spin_unlock_bh(&pstripe_tokens_lock);
}
