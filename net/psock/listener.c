// SPDX-License-Identifier: GPL-2.0
/*
 * PSOCK listener: classifying accepted TCP connections (probe, join or
 * plain data), making children and handing them to accept().
 *
 * Design
 * ------
 * The kernel TCP listener (sf[0]) accepts TCP connections; the work takes
 * them with kernel_accept() while there is room (see below) and keeps each
 * as a pending subflow until its first bytes say what it is: the client's
 * urgent probe (a PSOCK client: we send the server hello and wait for the
 * client hello), a join (a data subflow of a connection in its handshake)
 * or anything else (a plain TCP client: fallback).  A connection whose
 * client hello came waits, as an embryo, for its data subflows.
 *
 * Nothing is polled: a pending subflow's callbacks put it on the ready
 * list (&pstripe_lstn.ready) and kick the work, which looks at those
 * alone; deadlines are kept in order in their lists (@pending, @blocked,
 * @chello, @quiet, @partial, @embryos: each entry of a list got the same
 * timeout when it was added), so that the work looks at the heads and
 * sleeps until the next one.
 *
 * A client hello that does not come in time resets the connection only
 * if the client's TCP has not acknowledged our server hello either (a
 * client host gone, a path down).  A client whose TCP did is alive, only
 * slow (its machine out of TCP memory, its data backing off): it waits
 * on @quiet, checked again at every client hello timeout, for as long as
 * its TCP connection lasts or until its handshake slot is needed for a
 * new one (it is the oldest); TCP's keepalive, turned on meanwhile,
 * finds out whether the client host is still there
 * (pstripe_quiet_probe()).  A reset would fail a live client's
 * connection, or make the two ends disagree.
 *
 * Joins find their embryo, and a join that overtook its client hello the
 * pending connection, by token in a hash keyed with siphash.
 *
 * Bounds (Documentation/psock.rst, "Listener under a flood")
 * ------
 * TCP's own queues (SYN and accept) are bounded by the backlog given to
 * the TCP listener.  Connections taken from it but not classified
 * (@pending, @blocked) are at most as many again; handshakes (@chello and
 * embryos), which a client makes us keep by answering the server hello
 * and never joining, at most max(backlog, PSTRIPE_HS_MIN).  When a probe
 * finds no room, the handshake waiting longest is reset, if it has had
 * PSTRIPE_HS_GRACE; else the probe waits (@blocked) and the listener
 * stops taking connections from TCP's queue once @pending is full.  It
 * stops too while backlog children wait for accept(), which kicks the
 * work when it makes room (pstripe_listen_accepted()).
 *
 * Locking: all of it under the listener's socket lock, but the ready list
 * (&pstripe_lstn.lock, taken under a subflow's sk_callback_lock).
 */

#include <linux/jiffies.h>
#include <linux/net.h>
#include <linux/poll.h>
#include <linux/random.h>
#include <linux/siphash.h>
#include <linux/sched/signal.h>
#include <linux/security.h>
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
	struct mem_cgroup *old;
	struct socket *csock;
	struct sock *csk;
	int err;

	/* Charged to the listener's memory cgroup, as its blocks (mem.c). */
	old = pstripe_memcg_begin(lps);
	err = __sock_create(sock_net(lsk), lsk->sk_family, SOCK_STREAM,
			    IPPROTO_PSOCK, &csock, 0);
	pstripe_memcg_end(old);
	if (err)
		return NULL;
	csk = csock->sk;
	child = pstripe_sk(csk);
	child->csock = csock;
	/*
	 * The listener's, as TCP's clones are (sk_clone_lock()), not the
	 * work's: its uid until accept() grafts it, its cgroup (cgroup-bpf's
	 * socket option hooks read it) and LSM label.
	 */
	WRITE_ONCE(csk->sk_uid, lsk->sk_uid);
	pstripe_sk_cgroup_inherit(lsk, csk);
	security_sk_clone(lsk, csk);
	child->rcmd_stream_cnt = lps->rcmd_stream_cnt;
	child->max_stream_cnt = lps->max_stream_cnt;
	child->driver = lps->driver;
	child->optimistic = lps->optimistic;
	/* Offered in the listener's hello (pstripe_send_server_hello()). */
	child->rcv_wnd = lps->rcv_wnd;
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
	child->tcp = lps->tcp;
	sock_valbool_flag(csk, SOCK_KEEPOPEN, sock_flag(lsk, SOCK_KEEPOPEN));
	WRITE_ONCE(inet_sk(csk)->tos, READ_ONCE(inet_sk(lsk)->tos));
#if IS_ENABLED(CONFIG_IPV6)
	if (csk->sk_family == AF_INET6) {
		csk->sk_ipv6only = lsk->sk_ipv6only;
		inet6_sk(csk)->tclass = inet6_sk(lsk)->tclass;
	}
#endif
	/*
	 * Accepted TCP sockets do not keep the listener's SO_PRIORITY, and
	 * the quiet-client probe (pstripe_quiet_probe()) may have changed
	 * their keepalive: an empty snapshot makes the first sync (at
	 * accept()) copy every option, SOL_TCP ones included.
	 */
	memset(&child->synced, 0, sizeof(child->synced));
	pstripe_set_state(csk, TCP_SYN_RECV);
	return child;
}

/* Connections in the TCP listener's queues for a listen() @backlog. */
int pstripe_listen_backlog(int backlog)
{
	return clamp_t(int, backlog, 1, 256) * PSTRIPE_LISTEN_MULT;
}

static int pstripe_backlog(const struct pstripe_sock *lps)
{
	return max_t(int, READ_ONCE(lps->isk.sk.sk_max_ack_backlog), 1);
}

static int pstripe_hs_max(const struct pstripe_sock *lps)
{
	return max_t(int, pstripe_backlog(lps), PSTRIPE_HS_MIN);
}

static u32 pstripe_tok_hash(const struct pstripe_lstn *lstn, u64 token)
{
	return siphash_1u64(token, &lstn->key) & ((1 << PSTRIPE_TOK_BITS) - 1);
}

int pstripe_lstn_init(struct pstripe_sock *lps)
{
	struct pstripe_lstn *lstn = lps->lstn;

	if (lstn)
		return 0;
	lstn = kzalloc(sizeof(*lstn), GFP_KERNEL_ACCOUNT);
	if (!lstn)
		return -ENOMEM;
	spin_lock_init(&lstn->lock);
	INIT_LIST_HEAD(&lstn->ready);
	INIT_LIST_HEAD(&lstn->blocked);
	INIT_LIST_HEAD(&lstn->chello);
	INIT_LIST_HEAD(&lstn->quiet);
	INIT_LIST_HEAD(&lstn->partial);
	INIT_LIST_HEAD(&lstn->foreign);
	get_random_bytes(&lstn->key, sizeof(lstn->key));
	/* Longer ago than any slack pstripe_pending_end() gives. */
	lstn->embryo_end = jiffies - 2 * 3600 * HZ;
	lps->lstn = lstn;
	return 0;
}

/* After pstripe_listen_drain(): nothing refers to it any more. */
void pstripe_lstn_free(struct pstripe_sock *lps)
{
	if (!lps->lstn)
		return;
	WARN_ON_ONCE(!list_empty(&lps->lstn->ready));
	kfree(lps->lstn);
	lps->lstn = NULL;
}

/* Called by @sf's callbacks, under its sk_callback_lock. */
void pstripe_lstn_ready(struct pstripe_subflow *sf)
{
	struct pstripe_lstn *lstn = sf->lstn;

	spin_lock(&lstn->lock);
	if (list_empty(&sf->rnode))
		list_add_tail(&sf->rnode, &lstn->ready);
	spin_unlock(&lstn->lock);
}

static void pstripe_lstn_queue(struct pstripe_lstn *lstn,
			       struct pstripe_subflow *sf)
{
	spin_lock_bh(&lstn->lock);
	if (list_empty(&sf->rnode))
		list_add_tail(&sf->rnode, &lstn->ready);
	spin_unlock_bh(&lstn->lock);
}

static struct pstripe_subflow *pstripe_lstn_next(struct pstripe_lstn *lstn)
{
	struct pstripe_subflow *sf;

	spin_lock_bh(&lstn->lock);
	sf = list_first_entry_or_null(&lstn->ready, struct pstripe_subflow,
				      rnode);
	if (sf)
		list_del_init(&sf->rnode);
	spin_unlock_bh(&lstn->lock);
	return sf;
}

/*
 * A quiet client (&pstripe_lstn.quiet) must go on answering: TCP's
 * keepalive probes it at the client hello interval, and a client host
 * gone after it acknowledged our hello fails to answer two of them; TCP
 * then drops the connection, and the next look at it refuses it.  Also
 * when the listener has SO_KEEPALIVE (the clone has it, with the
 * listener's times): the connection's own keepalive comes back at
 * accept(), which copies every option to the subflows.
 */
static void pstripe_quiet_probe(struct pstripe_sock *lps,
				struct pstripe_subflow *sf)
{
	unsigned int ms = jiffies_to_msecs(pstripe_chello_jiffies(ps_sk(lps)));
	int secs = clamp_t(int, DIV_ROUND_UP(ms, MSEC_PER_SEC), 1,
			   MAX_TCP_KEEPINTVL);
	struct sock *ssk = sf->sock->sk;

	if (sf->quiet_ka)
		return;
	sf->quiet_ka = true;
	tcp_sock_set_keepidle(ssk, secs);
	tcp_sock_set_keepintvl(ssk, secs);
	tcp_sock_set_keepcnt(ssk, PSTRIPE_QUIET_PROBES);
	sock_set_keepalive(ssk);
}

/* It spoke: the connection goes on as TCP's defaults have it. */
static void pstripe_quiet_probe_off(struct pstripe_subflow *sf)
{
	struct sock *ssk = sf->sock->sk;
	struct tcp_sock *tp = tcp_sk(ssk);

	if (!sf->quiet_ka)
		return;
	sf->quiet_ka = false;
	lock_sock(ssk);
	ssk->sk_prot->keepalive(ssk, 0);
	sock_reset_flag(ssk, SOCK_KEEPOPEN);
	WRITE_ONCE(tp->keepalive_time, 0);
	WRITE_ONCE(tp->keepalive_intvl, 0);
	WRITE_ONCE(tp->keepalive_probes, 0);
	release_sock(ssk);
}

/* Take @sf out of the listener's lists and hash; its events still come. */
static void pstripe_pend_unlink(struct pstripe_sock *lps,
				struct pstripe_subflow *sf)
{
	struct pstripe_lstn *lstn = lps->lstn;

	sock_owned_by_me(ps_sk(lps));
	pstripe_quiet_probe_off(sf);
	if (sf->pend_state == PSTRIPE_PEND_CHELLO)
		lstn->nhs--;
	else if (sf->pend_state != PSTRIPE_PEND_NONE)
		lstn->npend--;
	sf->pend_state = PSTRIPE_PEND_NONE;
	list_del_init(&sf->node);
	hlist_del_init(&sf->tnode);
}

/* A pending connection refused or given up: released after the run. */
void pstripe_pend_reap(struct pstripe_sock *lps, struct pstripe_subflow *sf,
		       struct pstripe_reap *reap)
{
	pstripe_pend_unlink(lps, sf);
	list_add(&sf->node, &reap->subflows);
}

static void pstripe_pend_refuse(struct pstripe_sock *lps,
				struct pstripe_subflow *sf,
				struct pstripe_reap *reap)
{
	pstripe_mib_inc(sock_net(ps_sk(lps)), PSTRIPE_MIB_HANDSHAKE_FAILS);
	sock_no_linger(sf->sock->sk);
	pstripe_pend_reap(lps, sf, reap);
}

/* The embryo of @token exists now: the joins that waited for it go on. */
static void pstripe_join_wake(struct pstripe_sock *lps, u64 token)
{
	struct pstripe_lstn *lstn = lps->lstn;
	struct pstripe_subflow *p;

	hlist_for_each_entry(p, &lstn->tok_sf[pstripe_tok_hash(lstn, token)],
			     tnode)
		if (p->pend_state != PSTRIPE_PEND_CHELLO && p->token == token)
			pstripe_lstn_queue(lstn, p);
}

/* @child, adopted from a pending subflow, waits for its data subflows. */
void pstripe_embryo_add(struct pstripe_sock *lps, struct pstripe_sock *child)
{
	struct pstripe_lstn *lstn = lps->lstn;

	list_add_tail(&child->lnode, &lps->embryos);
	hlist_add_head(&child->tnode,
		       &lstn->tok_child[pstripe_tok_hash(lstn, child->token)]);
	lstn->nhs++;
	pstripe_join_wake(lps, child->token);
}

static void pstripe_embryo_del(struct pstripe_sock *lps,
			       struct pstripe_sock *child)
{
	list_del_init(&child->lnode);
	hlist_del_init(&child->tnode);
	lps->lstn->nhs--;
}

static struct pstripe_sock *pstripe_embryo_find(struct pstripe_sock *lps,
						u64 token)
{
	struct pstripe_lstn *lstn = lps->lstn;
	struct pstripe_sock *child;

	hlist_for_each_entry(child,
			     &lstn->tok_child[pstripe_tok_hash(lstn, token)],
			     tnode)
		if (child->token == token)
			return child;
	return NULL;
}

/*
 * All subflows are there: hand the child to accept().  The child is
 * established before its subflows name it their owner, so that no event
 * of theirs runs its work on a half-made connection; the kick then looks
 * at what came while their events still went to the listener.
 */
void pstripe_child_ready(struct pstripe_sock *lps,
			 struct pstripe_sock *child)
{
	int i;

	pstripe_hs_del(child->sf[0]);
	pstripe_established(child);
	for (i = 0; i < child->nsf; i++)
		pstripe_sf_set_owner(child->sf[i], ps_sk(child));
	/* Its subflows may rejoin it once they die (pm.c). */
	if (!child->fallback && child->stream_cnt > 1)
		pstripe_token_add(child);
	pstripe_kick(child);
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
	pstripe_pend_unlink(lps, sf);
	sf->index = 0;
	child->sf[0] = sf;
	child->nsf = 1;
	return child;
}

void pstripe_pending_plain(struct pstripe_sock *lps,
			   struct pstripe_subflow *sf,
			   struct pstripe_reap *reap, const char *why)
{
	struct pstripe_sock *child;

	pstripe_fallback_dbg(sf, "server", why);
	child = pstripe_child_adopt(lps, sf);

	if (!child) {
		pstripe_pend_reap(lps, sf, reap);
		return;
	}
	child->fallback = true;
	pstripe_child_ready(lps, child);
}

/*
 * A join overtakes its connection's client hello when the data subflow
 * takes a faster path than the control subflow: while a connection with
 * the join's token still waits for its client hello, the join waits too
 * (until its own deadline), hashed under that token to be woken.
 */
static bool pstripe_join_early(struct pstripe_sock *lps,
			       struct pstripe_subflow *sf, u64 token)
{
	struct pstripe_lstn *lstn = lps->lstn;
	struct hlist_head *b = &lstn->tok_sf[pstripe_tok_hash(lstn, token)];
	struct pstripe_subflow *p;

	hlist_for_each_entry(p, b, tnode) {
		if (p->pend_state == PSTRIPE_PEND_CHELLO && p->token == token) {
			if (hlist_unhashed(&sf->tnode)) {
				sf->token = token;
				hlist_add_head(&sf->tnode, b);
			}
			return true;
		}
	}
	return false;
}

/*
 * A join of a token we do not know, to an SO_REUSEPORT listener: it may
 * be for a handshake another listener of the port holds (token.c).
 */
static bool pstripe_join_elsewhere(struct pstripe_sock *lps,
				   struct pstripe_subflow *sf, u64 token)
{
	if (!ps_sk(lps)->sk_reuseport || pstripe_embryo_find(lps, token))
		return false;
	pstripe_pend_unlink(lps, sf);
	return pstripe_hs_handoff(lps, sf, token);
}

/* A join: attach @sf to the embryo its token names, or refuse it. */
static void pstripe_pending_join(struct pstripe_sock *lps,
				 struct pstripe_subflow *sf,
				 struct pstripe_reap *reap)
{
	struct pstripe_sock *found;
	struct pstripe_hello h;

	if (pstripe_sf_recv(sf, &h, sizeof(h), 0) != sizeof(h))
		goto refuse;
	found = pstripe_embryo_find(lps, be64_to_cpu(h.token));
	if (!found || h.index < 1 || h.index >= found->stream_cnt ||
	    found->sf[h.index])
		goto refuse;
	pstripe_pend_unlink(lps, sf);
	sf->index = h.index;
	pstripe_sf_index_bufs(found, sf);
	found->sf[h.index] = sf;
	pstripe_mib_inc(sock_net(ps_sk(lps)), PSTRIPE_MIB_SUBFLOWS_JOINED);
	if (++found->joined == found->stream_cnt - 1) {
		found->nsf = found->stream_cnt;
		pstripe_embryo_del(lps, found);
		pstripe_child_ready(lps, found);
	}
	return;
refuse:
	pstripe_mib_inc(sock_net(ps_sk(lps)), PSTRIPE_MIB_JOINS_REFUSED);
	pstripe_pend_refuse(lps, sf, reap);
}

/*
 * A subflow taking a dead one's place in an established connection: to
 * the connection its token names, whichever listener took it (pm.c).
 */
static void pstripe_pending_rejoin(struct pstripe_sock *lps,
				   struct pstripe_subflow *sf,
				   struct pstripe_reap *reap)
{
	struct sock *lsk = ps_sk(lps);
	struct pstripe_sock *ps;
	struct pstripe_hello h;

	if (pstripe_sf_recv(sf, &h, sizeof(h), 0) != sizeof(h))
		goto refuse;
	ps = pstripe_token_get(sock_net(lsk), be64_to_cpu(h.token),
			       lsk->sk_family);
	if (!ps)
		goto refuse;
	pstripe_pend_unlink(lps, sf);
	sf->index = h.index;
	sf->ports[1] = h.port;
	pstripe_sf_set_owner(sf, ps_sk(ps));
	if (pstripe_rejoin_queue(ps, sf)) {
		sock_put(ps_sk(ps));
		return;
	}
	/* Its events must not reach @ps once our reference is gone. */
	pstripe_sf_detach(sf);
	sock_put(ps_sk(ps));
refuse:
	pstripe_mib_inc(sock_net(lsk), PSTRIPE_MIB_JOINS_REFUSED);
	pstripe_pend_refuse(lps, sf, reap);
}

/*
 * Has @sf waited long enough?  A data subflow's join comes late when its
 * client is slow (a loaded machine): while connections of this listener
 * wait for their data subflows, or one went on without some of them a
 * short while ago, a connection that said nothing yet keeps waiting as
 * long as a client hello may take (pstripe_chello_jiffies()), rather than
 * be taken for plain TCP.  A late join is then refused, never handed to
 * accept() as a plain connection.
 */
static unsigned long pstripe_pending_end(struct pstripe_sock *lps,
					 const struct pstripe_subflow *sf)
{
	unsigned long slack = pstripe_chello_jiffies(ps_sk(lps)) -
			      pstripe_hello_jiffies(ps_sk(lps));

	if (sf->pend_state != PSTRIPE_PEND_FIRST)
		return sf->deadline;
	if (list_empty(&lps->embryos) &&
	    time_after_eq(jiffies, lps->lstn->embryo_end + slack))
		return sf->deadline;
	return sf->deadline + slack;
}

static bool pstripe_pending_expired(struct pstripe_sock *lps,
				    const struct pstripe_subflow *sf)
{
	return time_after_eq(jiffies, pstripe_pending_end(lps, sf));
}

/*
 * The handshake that has waited longest: a subflow waiting for its client
 * hello (those on @quiet waited longer than any on @chello) or an embryo.
 */
static unsigned long pstripe_hs_oldest(struct pstripe_sock *lps,
				       struct pstripe_subflow **sfp,
				       struct pstripe_sock **childp)
{
	struct pstripe_lstn *lstn = lps->lstn;
	struct pstripe_subflow *sf;
	struct pstripe_sock *child;

	sf = list_first_entry_or_null(&lstn->quiet, struct pstripe_subflow,
				      node);
	if (!sf)
		sf = list_first_entry_or_null(&lstn->chello,
					      struct pstripe_subflow, node);
	child = list_first_entry_or_null(&lps->embryos, struct pstripe_sock,
					 lnode);
	if (sf && child && time_before(child->sf[0]->since, sf->since))
		sf = NULL;
	*sfp = sf;
	*childp = sf ? NULL : child;
	return sf ? sf->since : child ? child->sf[0]->since : jiffies;
}

/*
 * Room for one more handshake?  Makes it by resetting the one that has
 * waited longest, if it has had its grace (a flood of clients that never
 * finish cannot push out a client that does, unless it is slower than
 * the flood is fast).
 */
static bool pstripe_hs_room(struct pstripe_sock *lps,
			    struct pstripe_reap *reap)
{
	struct pstripe_subflow *sf;
	struct pstripe_sock *child;
	unsigned long since;

	if (lps->lstn->nhs < pstripe_hs_max(lps))
		return true;
	since = pstripe_hs_oldest(lps, &sf, &child);
	if ((!sf && !child) ||
	    time_before(jiffies, since + PSTRIPE_HS_GRACE))
		return false;
	pstripe_mib_inc(sock_net(ps_sk(lps)), PSTRIPE_MIB_LISTEN_OVERFLOWS);
	if (sf) {
		sock_no_linger(sf->sock->sk);
		pstripe_pend_reap(lps, sf, reap);
	} else {
		pstripe_embryo_del(lps, child);
		sock_no_linger(child->sf[0]->sock->sk);
		list_add(&child->lnode, &reap->children);
	}
	return true;
}

/* A client hello should come now: the server hello is out. */
static void pstripe_pend_chello(struct pstripe_sock *lps,
				struct pstripe_subflow *sf)
{
	struct pstripe_lstn *lstn = lps->lstn;

	pstripe_pend_unlink(lps, sf);
	sf->pend_state = PSTRIPE_PEND_CHELLO;
	sf->since = jiffies;
	sf->deadline = jiffies + pstripe_chello_jiffies(ps_sk(lps));
	list_add_tail(&sf->node, &lstn->chello);
	hlist_add_head(&sf->tnode,
		       &lstn->tok_sf[pstripe_tok_hash(lstn, sf->token)]);
	lstn->nhs++;
	/* Our group's other listeners take its joins too (token.c). */
	if (ps_sk(lps)->sk_reuseport)
		pstripe_hs_add(lps, sf);
}

/* Part of a client hello came: the rest is due soon. */
static void pstripe_pend_partial(struct pstripe_sock *lps,
				 struct pstripe_subflow *sf)
{
	struct pstripe_lstn *lstn = lps->lstn;

	if (sf->deadline_short)
		return;
	sf->deadline_short = true;
	sf->deadline = jiffies + pstripe_hello_jiffies(ps_sk(lps));
	list_move_tail(&sf->node, &lstn->partial);
}

/*
 * Has the client's TCP acknowledged all we sent on @sf (the server hello),
 * and is the connection up?  Lockless: a hint, checked again later.
 */
static bool pstripe_pend_peer_alive(const struct pstripe_subflow *sf)
{
	const struct sock *ssk = sf->sock->sk;
	const struct tcp_sock *tp = tcp_sk(ssk);

	return READ_ONCE(ssk->sk_state) == TCP_ESTABLISHED &&
	       !READ_ONCE(ssk->sk_err) &&
	       READ_ONCE(tp->snd_una) == READ_ONCE(tp->write_seq);
}

/* No client hello in time from a live client: it waits on, on @quiet. */
static void pstripe_pend_quiet(struct pstripe_sock *lps,
			       struct pstripe_subflow *sf)
{
	pstripe_quiet_probe(lps, sf);
	sf->deadline = jiffies + pstripe_chello_jiffies(ps_sk(lps));
	list_move_tail(&sf->node, &lps->lstn->quiet);
}

/* No room for the handshake @sf's probe asks for: it waits its turn. */
static void pstripe_pend_block(struct pstripe_sock *lps,
			       struct pstripe_subflow *sf)
{
	if (sf->pend_state == PSTRIPE_PEND_BLOCKED)
		return;
	sf->pend_state = PSTRIPE_PEND_BLOCKED;
	sf->deadline = jiffies + pstripe_hello_jiffies(ps_sk(lps));
	list_move_tail(&sf->node, &lps->lstn->blocked);
}

/* A client hello, whole or in part, or whatever came instead. */
static void pstripe_step_chello(struct pstripe_sock *lps,
				struct pstripe_subflow *sf, bool expired,
				struct pstripe_reap *reap)
{
	struct pstripe_hello h;
	int r;

	if (sf->opt) {
		/* An optimistic client: its plain bytes end at its mark. */
		r = pstripe_opt_mark(lps, sf);
		if (r == 1) {
			pstripe_pending_plain(lps, sf, reap,
					      "optimistic client: no mark within its plain bytes' limit or before its FIN");
			return;
		}
		if (r && r != -EAGAIN) {
			pstripe_pend_refuse(lps, sf, reap);
			return;
		}
	}
	r = sf->opt == PSTRIPE_SF_OPT_RAW ? -EAGAIN :
	    pstripe_sf_recv(sf, &h, sizeof(h), MSG_PEEK);
	if (r == sizeof(h) &&
	    pstripe_hello_prefix((u8 *)&h, r, PSTRIPE_MSG_CHELLO)) {
		pstripe_pending_chello(lps, sf, reap);
		return;
	}
	/*
	 * Data that is no control message, or the end of the stream: the
	 * client fell back on its timeout and its application spoke first;
	 * it drops our hello.  After an optimistic client's mark, only its
	 * client hello may come.
	 */
	if (r == 0 || (r > 0 && !pstripe_hello_prefix((u8 *)&h, min(r, 4), 0))) {
		if (sf->opt)
			pstripe_pend_refuse(lps, sf, reap);
		else
			pstripe_pending_plain(lps, sf, reap,
					      "the client fell back on its timeout and spoke");
		return;
	}
	if (r == -EAGAIN && !expired)
		return;
	if (r == -EAGAIN && !sf->deadline_short && pstripe_pend_peer_alive(sf)) {
		pstripe_pend_quiet(lps, sf);
		return;
	}
	/* Once begun, a client hello comes whole within the hello timeout. */
	if (r > 0 && r < sizeof(h) && !expired &&
	    pstripe_hello_prefix((u8 *)&h, r, PSTRIPE_MSG_CHELLO)) {
		pstripe_pend_partial(lps, sf);
		return;
	}
	pstripe_pend_refuse(lps, sf, reap);
}

/* The client's probe: our server hello, if there is room for one more. */
static void pstripe_step_probe(struct pstripe_sock *lps,
			       struct pstripe_subflow *sf, bool expired,
			       struct pstripe_reap *reap)
{
	u8 oob;

	if (!pstripe_hs_room(lps, reap)) {
		if (expired)
			pstripe_pend_refuse(lps, sf, reap);
		else
			pstripe_pend_block(lps, sf);
		return;
	}
	pstripe_sf_recv(sf, &oob, 1, MSG_OOB);
	if (oob == PSTRIPE_PROBE_OPT)
		pstripe_opt_probed(sf);
	if (pstripe_send_server_hello(lps, sf)) {
		pstripe_pend_reap(lps, sf, reap);
		return;
	}
	/*
	 * A live client answers our hello at once, with a client hello or,
	 * if it fell back meanwhile, data or a client hello of n = 0:
	 * waiting longer only costs a dead client's entry.
	 */
	pstripe_pend_chello(lps, sf);
	pstripe_step_chello(lps, sf, false, reap);
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
		pstripe_step_chello(lps, sf, expired, reap);
		return;
	}

	/* FIRST or BLOCKED: the urgent probe comes before any data. */
	r = pstripe_sf_recv(sf, &oob, 1, MSG_OOB | MSG_PEEK);
	if (r == 1 && (oob == PSTRIPE_PROBE || oob == PSTRIPE_PROBE_OPT)) {
		pstripe_step_probe(lps, sf, expired, reap);
		return;
	}
	if (r == 1) {
		/* Urgent data of a plain TCP client: leave it to the app. */
		pstripe_pending_plain(lps, sf, reap, "urgent data, no probe");
		return;
	}
	if (r == -EAGAIN && !expired)
		return;		/* urgent pointer seen, byte not yet */

	r = pstripe_sf_recv(sf, &h, sizeof(h), MSG_PEEK);
	if (r > 0 && pstripe_hello_prefix((u8 *)&h, r, PSTRIPE_MSG_JOIN)) {
		if (r == sizeof(h)) {
			if (!expired &&
			    pstripe_join_early(lps, sf, be64_to_cpu(h.token)))
				return;
			if (pstripe_join_elsewhere(lps, sf,
						   be64_to_cpu(h.token)))
				return;
			pstripe_pending_join(lps, sf, reap);
			return;
		}
		if (!expired)
			return;
	}
	if (r > 0 && pstripe_hello_prefix((u8 *)&h, r, PSTRIPE_MSG_REJOIN)) {
		if (r == sizeof(h)) {
			pstripe_pending_rejoin(lps, sf, reap);
			return;
		}
		if (!expired)
			return;
	}
	if (r >= 0 || expired) {
		/* Plain data, end of stream, or silence: a plain client. */
		pstripe_pending_plain(lps, sf, reap,
				      r > 0 ? "plain data first" :
				      r == 0 ? "end of stream first" :
				      "nothing within the hello timeout");
		return;
	}
	if (r != -EAGAIN)
		pstripe_pend_reap(lps, sf, reap);
}

/* Step the heads of @list while they are due; each step takes them off. */
static void pstripe_expire_list(struct pstripe_sock *lps,
				struct list_head *list,
				struct pstripe_reap *reap)
{
	struct pstripe_subflow *sf;

	while ((sf = list_first_entry_or_null(list, struct pstripe_subflow,
					      node)) &&
	       pstripe_pending_expired(lps, sf)) {
		pstripe_pending_step(lps, sf, reap);
		/* Still there and due (not waited for longer): refused. */
		if (list_first_entry_or_null(list, struct pstripe_subflow,
					     node) == sf &&
		    pstripe_pending_expired(lps, sf))
			pstripe_pend_refuse(lps, sf, reap);
	}
}

static void pstripe_listen_expire(struct pstripe_sock *lps,
				  struct pstripe_reap *reap)
{
	pstripe_expire_list(lps, &lps->pending, reap);
	pstripe_expire_list(lps, &lps->lstn->blocked, reap);
	pstripe_expire_list(lps, &lps->lstn->chello, reap);
	pstripe_expire_list(lps, &lps->lstn->quiet, reap);
	pstripe_expire_list(lps, &lps->lstn->partial, reap);
}

/*
 * Data subflows that did not join in time: the connection goes on with
 * the ones that did, down to the control subflow alone (the client gave
 * up on the others at its own, earlier, deadline).  Looked at once the
 * joins that came are taken, so that a busy listener does not count its
 * own delay against them.
 */
static void pstripe_embryos_expire(struct pstripe_sock *lps)
{
	struct pstripe_sock *child;

	while ((child = list_first_entry_or_null(&lps->embryos,
						 struct pstripe_sock, lnode)) &&
	       time_after_eq(jiffies, child->sf[0]->deadline)) {
		pstripe_embryo_del(lps, child);
		pstripe_mib_add(sock_net(ps_sk(lps)), PSTRIPE_MIB_JOINS_MISSING,
				child->stream_cnt - 1 - child->joined);
		child->nsf = child->stream_cnt;
		pstripe_sf_compact(child);
		lps->lstn->embryo_end = jiffies;
		pstripe_child_ready(lps, child);
	}
}

/* Probes that found no room, while there is room now. */
static void pstripe_listen_unblock(struct pstripe_sock *lps,
				   struct pstripe_reap *reap)
{
	struct pstripe_subflow *sf;

	while ((sf = list_first_entry_or_null(&lps->lstn->blocked,
					      struct pstripe_subflow, node))) {
		pstripe_pending_step(lps, sf, reap);
		if (sf->pend_state == PSTRIPE_PEND_BLOCKED)
			break;
	}
}

/* Joins another listener of our port handed over: pending ones of ours. */
static void pstripe_listen_foreign(struct pstripe_sock *lps)
{
	struct pstripe_lstn *lstn = lps->lstn;
	struct pstripe_subflow *sf, *tmp;
	LIST_HEAD(list);

	pstripe_hs_take(lps, &list);
	list_for_each_entry_safe(sf, tmp, &list, node) {
		list_del_init(&sf->node);
		sf->pend_state = PSTRIPE_PEND_FIRST;
		sf->deadline = jiffies + pstripe_hello_jiffies(ps_sk(lps));
		list_add_tail(&sf->node, &lps->pending);
		lstn->npend++;
		pstripe_sf_listen(sf, lstn);
		pstripe_lstn_queue(lstn, sf);
	}
}

/* Take connections from the TCP listener while there is room. */
static void pstripe_listen_accept(struct pstripe_sock *lps)
{
	struct pstripe_lstn *lstn = lps->lstn;
	struct sock *lsk = ps_sk(lps);
	int backlog = pstripe_backlog(lps);
	struct pstripe_subflow *sf;
	struct socket *ns;

	while (lps->accept_len < backlog &&
	       lstn->npend < pstripe_listen_backlog(backlog)) {
		if (kernel_accept(lps->sf[0]->sock, &ns, O_NONBLOCK))
			break;
		sf = pstripe_sf_wrap(ns, lsk);
		if (!sf) {
			/* Reset; the others wait in TCP's queue. */
			pstripe_schedule_by(lps, PSTRIPE_NOMEM_RETRY);
			break;
		}
		sf->pend_state = PSTRIPE_PEND_FIRST;
		sf->deadline = jiffies + pstripe_hello_jiffies(lsk);
		list_add_tail(&sf->node, &lps->pending);
		lstn->npend++;
		pstripe_sf_listen(sf, lstn);
		/* Its first bytes may have come before its callbacks. */
		pstripe_lstn_queue(lstn, sf);
	}
}

/*
 * accept() took a child off @lps's accept queue.  The work stops taking
 * connections from TCP's queue while backlog children wait for accept()
 * (pstripe_listen_accept()): room again, it must take them, and nothing
 * else would make it run when TCP's queue is full (no new connection, so
 * no event): the connections in it, and the clients whose SYNs TCP drops
 * meanwhile, would wait for the next deadline of the listener, if any.
 */
void pstripe_listen_accepted(struct pstripe_sock *lps)
{
	sock_owned_by_me(ps_sk(lps));
	WRITE_ONCE(lps->accept_len, lps->accept_len - 1);
	if (lps->accept_len == pstripe_backlog(lps) - 1)
		pstripe_kick(lps);
}

/* The work runs again when the next deadline comes. */
static void pstripe_listen_rearm(struct pstripe_sock *lps)
{
	struct pstripe_lstn *lstn = lps->lstn;
	struct list_head *lists[] = { &lps->pending, &lstn->blocked,
				      &lstn->chello, &lstn->quiet,
				      &lstn->partial };
	unsigned long next = jiffies + MAX_JIFFY_OFFSET / 2, t;
	struct pstripe_subflow *sf;
	struct pstripe_sock *child;
	bool any = false;
	int i;

	for (i = 0; i < ARRAY_SIZE(lists); i++) {
		sf = list_first_entry_or_null(lists[i], struct pstripe_subflow,
					      node);
		if (!sf)
			continue;
		t = pstripe_pending_end(lps, sf);
		next = any && time_before(next, t) ? next : t;
		any = true;
	}
	child = list_first_entry_or_null(&lps->embryos, struct pstripe_sock,
					 lnode);
	if (child) {
		t = child->sf[0]->deadline;
		next = any && time_before(next, t) ? next : t;
		any = true;
	}
	if (!list_empty(&lstn->blocked)) {
		t = pstripe_hs_oldest(lps, &sf, &child) + PSTRIPE_HS_GRACE;
		next = time_before(next, t) ? next : t;
	}
	if (any)
		pstripe_schedule(lps, time_after(next, jiffies) ?
				      next - jiffies : 1);
}

/*
 * What is due, then the subflows with events, taking new connections from
 * TCP's queue whenever those are done; a run steps at most
 * PSTRIPE_LISTEN_BUDGET subflows, so that a flood does not hold the
 * listener's lock for long: the next run goes on.
 */
void pstripe_listen_work(struct pstripe_sock *lps,
			 struct pstripe_reap *reap)
{
	struct pstripe_lstn *lstn = lps->lstn;
	int budget = PSTRIPE_LISTEN_BUDGET;
	struct pstripe_subflow *sf;

	sock_owned_by_me(ps_sk(lps));
	pstripe_listen_foreign(lps);
	pstripe_listen_expire(lps, reap);
	pstripe_listen_unblock(lps, reap);
	while (budget--) {
		sf = pstripe_lstn_next(lstn);
		if (!sf) {
			pstripe_listen_accept(lps);
			sf = pstripe_lstn_next(lstn);
			if (!sf)
				break;
		}
		if (sf->pend_state != PSTRIPE_PEND_NONE)
			pstripe_pending_step(lps, sf, reap);
	}
	if (budget < 0) {
		pstripe_kick(lps);
		return;
	}
	pstripe_embryos_expire(lps);
	pstripe_listen_rearm(lps);
}

/*
 * The listener stops (close(), shutdown()): its connections not accepted
 * yet go to @reap, their callbacks detached or their owner the child.
 */
void pstripe_listen_drain(struct pstripe_sock *lps,
			  struct pstripe_reap *reap)
{
	struct pstripe_lstn *lstn = lps->lstn;
	struct list_head *lists[5];
	struct pstripe_subflow *sf, *tmp;
	struct pstripe_sock *child;
	LIST_HEAD(foreign);
	int i;

	if (!lstn)
		return;
	pstripe_hs_close(lps, &foreign);
	list_for_each_entry_safe(sf, tmp, &foreign, node) {
		pstripe_sf_detach(sf);
		list_move(&sf->node, &reap->subflows);
	}
	lists[0] = &lps->pending;
	lists[1] = &lstn->blocked;
	lists[2] = &lstn->chello;
	lists[3] = &lstn->quiet;
	lists[4] = &lstn->partial;
	for (i = 0; i < ARRAY_SIZE(lists); i++) {
		while ((sf = list_first_entry_or_null(lists[i],
						      struct pstripe_subflow,
						      node))) {
			pstripe_sf_detach(sf);
			pstripe_pend_reap(lps, sf, reap);
		}
	}
	while ((child = list_first_entry_or_null(&lps->embryos,
						 struct pstripe_sock, lnode))) {
		pstripe_embryo_del(lps, child);
		list_add(&child->lnode, &reap->children);
	}
}
