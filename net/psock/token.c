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
 */

#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/spinlock.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "protocol.h"

#define PSTRIPE_TOKEN_BITS	10

static DEFINE_HASHTABLE(pstripe_tokens, PSTRIPE_TOKEN_BITS);
static DEFINE_SPINLOCK(pstripe_tokens_lock);	/* pstripe_tokens */

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
