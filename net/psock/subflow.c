// SPDX-License-Identifier: GPL-2.0
/*
 * PSOCK subflows: creating the kernel TCP sockets, their callbacks, killing
 * a subflow, the stale check, and the graveyard that drains a closed
 * connection's subflows.
 */

#include <linux/error-injection.h>
#include <linux/jiffies.h>
#include <linux/net.h>
#include <linux/poll.h>
#include <linux/random.h>
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

enum { PSTRIPE_EV_DATA, PSTRIPE_EV_SPACE, PSTRIPE_EV_STATE };

static void pstripe_grave_ready(struct pstripe_subflow *sf);

/*
 * Does @ev need the socket's work?  Not while a caller that sleeps takes
 * the step itself (an optimistic connect(), a reader of a late hello;
 * each kicks the work when it leaves with the step not taken), nor on a
 * plain TCP connection, for which the work has nothing to do.
 */
static bool pstripe_sf_ev_work(struct pstripe_sock *ps, int ev)
{
	int state = READ_ONCE(ps_sk(ps)->sk_state);

	/* A connect() that leaves without its step kicks the work anyway. */
	if (READ_ONCE(ps->conn_waiting))
		return false;
	if (state == TCP_ESTABLISHED && READ_ONCE(ps->fallback)) {
		if (!READ_ONCE(ps->late_hello))
			return false;
		smp_mb();	/* the bytes queued, then @rcv_waiting */
		if (READ_ONCE(ps->rcv_waiting))
			return false;
	}
	/* The work handshakes, classifies and flushes blocks. */
	return ev == PSTRIPE_EV_STATE || state != TCP_ESTABLISHED ||
	       (ev == PSTRIPE_EV_SPACE && (READ_ONCE(ps->snd_pending) ||
					   READ_ONCE(ps->rj_sf))) ||
	       (ev == PSTRIPE_EV_DATA && (pstripe_acks_urgent(ps) ||
					  READ_ONCE(ps->late_hello)));
}

static __pstripe_hot void pstripe_sf_event(struct sock *ssk, int ev)
{
	struct pstripe_subflow *sf;
	struct pstripe_sock *ps;
	struct sock *sk;

	read_lock_bh(&ssk->sk_callback_lock);
	sf = __locked_read_sk_user_data_with_flags(ssk, 0);
	sk = sf ? sf->owner : NULL;
	/* When a join's time to be acknowledged starts (handshake.c). */
	if (sf && ev == PSTRIPE_EV_STATE && !sf->est_seen &&
	    ssk->sk_state == TCP_ESTABLISHED) {
		sf->est_at = jiffies;
		/* @est_at before @est_seen: pstripe_join_due() reads after. */
		smp_store_release(&sf->est_seen, true);
	}
	/*
	 * TCP called write_space as it sent the join, which cleared
	 * SOCK_NOSPACE: ask again for the call its acknowledgment makes.
	 */
	if (sf && ev == PSTRIPE_EV_SPACE && smp_load_acquire(&sf->join_wait) &&
	    !pstripe_join_acked(sf))
		set_bit(SOCK_NOSPACE, &ssk->sk_socket->flags);
	if (sf && sf->grave && ev != PSTRIPE_EV_SPACE)
		pstripe_grave_ready(sf);
	if (sk) {
		ps = pstripe_sk(sk);
		if (sf->lstn)
			pstripe_lstn_ready(sf);
		if (pstripe_sf_ev_work(ps, ev))
			pstripe_kick(ps);
		/* Last: the woken reader waits for this subflow's lock. */
		pstripe_wake(sk);
	}
	read_unlock_bh(&ssk->sk_callback_lock);
}

static __pstripe_hot void pstripe_sf_data_ready(struct sock *ssk)
{
	pstripe_sf_event(ssk, PSTRIPE_EV_DATA);
}

static __pstripe_hot void pstripe_sf_write_space(struct sock *ssk)
{
	/* As sk_stream_write_space(): no more calls until we ask again. */
	if (ssk->sk_socket && sk_stream_is_writeable(ssk))
		clear_bit(SOCK_NOSPACE, &ssk->sk_socket->flags);
	pstripe_sf_event(ssk, PSTRIPE_EV_SPACE);
}

static void pstripe_sf_state_change(struct sock *ssk)
{
	pstripe_sf_event(ssk, PSTRIPE_EV_STATE);
}

/*
 * Install our callbacks on @sf's TCP socket.  A connection accepted by
 * our TCP listener @lsf was cloned from it with our callbacks already in
 * place: the ones to restore are the listener's saved ones.  NOCOPY keeps
 * the listener's @sf out of such clones (sk_clone_lock()), so that their
 * events before kernel_accept() find no subflow to wake.
 */
static void pstripe_sf_attach(struct pstripe_subflow *sf, struct sock *owner,
			      const struct pstripe_subflow *lsf)
{
	struct sock *ssk = sf->sock->sk;

	write_lock_bh(&ssk->sk_callback_lock);
	sf->saved_data_ready = lsf ? lsf->saved_data_ready : ssk->sk_data_ready;
	sf->saved_write_space = lsf ? lsf->saved_write_space :
				      ssk->sk_write_space;
	sf->saved_state_change = lsf ? lsf->saved_state_change :
				       ssk->sk_state_change;
	sf->owner = owner;
	__rcu_assign_sk_user_data_with_flags(ssk, sf, SK_USER_DATA_NOCOPY);
	ssk->sk_data_ready = pstripe_sf_data_ready;
	ssk->sk_write_space = pstripe_sf_write_space;
	ssk->sk_state_change = pstripe_sf_state_change;
	sf->attached = true;
	write_unlock_bh(&ssk->sk_callback_lock);
}

/*
 * A subflow leaving its listener's handshake lists: its events stop going
 * to the listener's ready list.  Called once sk_callback_lock made sure
 * no callback sees @lstn any more.
 */
static void pstripe_sf_unlisten(struct pstripe_subflow *sf,
				struct pstripe_lstn *lstn)
{
	if (!lstn)
		return;
	spin_lock_bh(&lstn->lock);
	list_del_init(&sf->rnode);
	spin_unlock_bh(&lstn->lock);
}

/* Events of @sf, a connection accepted by a listener, go to @lstn. */
void pstripe_sf_listen(struct pstripe_subflow *sf, struct pstripe_lstn *lstn)
{
	struct sock *ssk = sf->sock->sk;

	write_lock_bh(&ssk->sk_callback_lock);
	sf->lstn = lstn;
	write_unlock_bh(&ssk->sk_callback_lock);
}

void pstripe_sf_set_owner(struct pstripe_subflow *sf, struct sock *owner)
{
	struct sock *ssk = sf->sock->sk;
	struct pstripe_lstn *lstn;

	write_lock_bh(&ssk->sk_callback_lock);
	sf->owner = owner;
	lstn = sf->lstn;
	sf->lstn = NULL;
	write_unlock_bh(&ssk->sk_callback_lock);
	pstripe_sf_unlisten(sf, lstn);
}

void pstripe_sf_detach(struct pstripe_subflow *sf)
{
	struct sock *ssk = sf->sock->sk;
	struct pstripe_lstn *lstn;

	if (!sf->attached)
		return;
	write_lock_bh(&ssk->sk_callback_lock);
	ssk->sk_data_ready = sf->saved_data_ready;
	ssk->sk_write_space = sf->saved_write_space;
	ssk->sk_state_change = sf->saved_state_change;
	rcu_assign_sk_user_data(ssk, NULL);
	sf->owner = NULL;
	lstn = sf->lstn;
	sf->lstn = NULL;
	sf->attached = false;
	write_unlock_bh(&ssk->sk_callback_lock);
	pstripe_sf_unlisten(sf, lstn);
}

static int pstripe_sf_set_buf(struct socket *sock, int opt, int val)
{
	if (!val)
		return 0;
	return sock_setsockopt(sock, SOL_SOCKET, opt, KERNEL_SOCKPTR(&val),
			       sizeof(val));
}

/*
 * Subflow @sf of @ps takes its index's buffers (PSOCK_SNDBUF and
 * PSOCK_RCVBUF).  A subflow the listener accepted is a clone of its TCP
 * socket, made with index 0's: a join of another index gets its own, or
 * TCP's defaults again (autotuned) when neither its index nor
 * SO_SNDBUF/SO_RCVBUF set any.  Set after the handshake, a receive buffer
 * leaves the window scale the listener's.
 */
void pstripe_sf_index_bufs(struct pstripe_sock *ps,
			   struct pstripe_subflow *sf)
{
	const struct sock *sk = ps_sk(ps);
	struct sock *ssk = sf->sock->sk;
	const struct net *net = sock_net(ssk);
	int i = sf->index;

	/* Values checked by setsockopt(): these cannot fail. */
	pstripe_sf_set_buf(sf->sock, SO_SNDBUF, ps->sndbuf[i]);
	pstripe_sf_set_buf(sf->sock, SO_RCVBUF, ps->rcvbuf[i]);
	lock_sock(ssk);
	if (!ps->sndbuf[i] && !(sk->sk_userlocks & SOCK_SNDBUF_LOCK) &&
	    (ssk->sk_userlocks & SOCK_SNDBUF_LOCK)) {
		ssk->sk_userlocks &= ~SOCK_SNDBUF_LOCK;
		WRITE_ONCE(ssk->sk_sndbuf,
			   READ_ONCE(net->ipv4.sysctl_tcp_wmem[1]));
		ssk->sk_write_space(ssk);
	}
	if (!ps->rcvbuf[i] && !(sk->sk_userlocks & SOCK_RCVBUF_LOCK) &&
	    (ssk->sk_userlocks & SOCK_RCVBUF_LOCK)) {
		ssk->sk_userlocks &= ~SOCK_RCVBUF_LOCK;
		WRITE_ONCE(ssk->sk_rcvbuf,
			   READ_ONCE(net->ipv4.sysctl_tcp_rmem[1]));
	}
	release_sock(ssk);
}

/*
 * A subflow's memory, NULL if none; fail_function can make it fail
 * (fault_test.c): every subflow made or accepted comes from here.
 */
static noinline struct pstripe_subflow *pstripe_sf_alloc(void)
{
	return kzalloc(sizeof(struct pstripe_subflow), GFP_KERNEL);
}
ALLOW_ERROR_INJECTION(pstripe_sf_alloc, NULL);

/*
 * A subflow of @sk is the application's, as a TCP socket of its own would
 * be (MPTCP: mptcp_attach_cgroup(), security_mptcp_add_subflow()): the
 * socket's uid (uid routing, nft's "meta skuid"), its cgroup with its
 * net_cls class and netprio index (cgroup-bpf, nft's "socket cgroupv2"),
 * its memory cgroup (what TCP keeps for the subflow) and its LSM label.
 * The subflows the socket's work opens (data subflows, rejoins) would
 * otherwise be the kworker's: uid 0, the root cgroup, the kernel's label;
 * subflow 0 would be that of the caller of bind(), listen() or connect(),
 * not that of the socket.  Before @ssk sends anything, so that nothing is
 * charged yet; accepted subflows are clones of subflow 0 of the listener
 * and inherit all of it from there, but the memory cgroup (which the
 * kernel gives a TCP socket in accept(), from the caller).
 */
static void pstripe_sf_own(struct sock *sk, struct sock *ssk)
{
	WRITE_ONCE(ssk->sk_uid, sk->sk_uid);
	pstripe_sk_cgroup_inherit(sk, ssk);
	pstripe_sk_memcg_inherit(sk, ssk);
	security_sk_clone(sk, ssk);
}

/*
 * Subflow @sf of @sk is @sk's for routing by uid (an accepted subflow
 * took the uid of the work that accepted it, kernel_accept() grafting it,
 * until accept() grafts @sk, as an accepted TCP socket takes its
 * acceptor's), and ss, /proc/net/tcp and sock_diag show it as @sk's: its
 * socket's inode number, owner and group, as MPTCP's subflows.  Nothing
 * before @sk has a socket of its own (a child not yet accepted).
 */
void pstripe_sf_show_owner(struct sock *sk, struct pstripe_subflow *sf)
{
	struct inode *to = SOCK_INODE(sf->sock);
	const struct inode *from;

	WRITE_ONCE(sf->sock->sk->sk_uid, sk->sk_uid);
	if (!sk->sk_socket)
		return;
	from = SOCK_INODE(sk->sk_socket);
	to->i_ino = from->i_ino;
	to->i_uid = from->i_uid;
	to->i_gid = from->i_gid;
	pstripe_sk_set_ino(sf->sock->sk, from->i_ino);
}

/* A new TCP socket for subflow @index of @sk, callbacks attached. */
struct pstripe_subflow *pstripe_sf_create(struct sock *sk, int index,
					  int *errp)
{
	struct pstripe_sock *ps = pstripe_sk(sk);
	struct pstripe_subflow *sf;
	struct sock *ssk;
	int err;

	sf = pstripe_sf_alloc();
	if (!sf) {
		*errp = -ENOMEM;
		return NULL;
	}
	err = sock_create_kern(sock_net(sk), sk->sk_family, SOCK_STREAM,
			       IPPROTO_TCP, &sf->sock);
	if (err) {
		kfree(sf);
		*errp = err;
		return NULL;
	}
	ssk = sf->sock->sk;
	/*
	 * TCP's timers outlive sock_release() (FIN, retransmissions), and a
	 * kernel socket does not hold its namespace: make it, as MPTCP does,
	 * so that none runs in a dead one.  Clones of our TCP listener
	 * inherit the reference.
	 */
	sk_net_refcnt_upgrade(ssk);
	pstripe_sf_own(sk, ssk);
	pstripe_sf_show_owner(sk, sf);
	ssk->sk_reuse = sk->sk_reuse;
	ssk->sk_reuseport = sk->sk_reuseport;
	ssk->sk_bound_dev_if = sk->sk_bound_dev_if;
#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6)
		ssk->sk_ipv6only = sk->sk_ipv6only;
#endif
	pstripe_sf_inherit(sk, ssk, index);
	/*
	 * Poll-all gives a block to whichever subflow has room: unsent data
	 * is capped so that "room" follows what the path carries, not the
	 * send buffer TCP grew (autotuning sizes it to twice the window).
	 * Accepted subflows, clones of sf[0] of the listener, inherit it.
	 */
	WRITE_ONCE(tcp_sk(ssk)->notsent_lowat, PSTRIPE_SF_NOTSENT);
	err = pstripe_sf_set_buf(sf->sock, SO_SNDBUF, ps->sndbuf[index]);
	if (!err)
		err = pstripe_sf_set_buf(sf->sock, SO_RCVBUF, ps->rcvbuf[index]);
	if (err) {
		sock_release(sf->sock);
		kfree(sf);
		*errp = err;
		return NULL;
	}
	sf->index = index;
	INIT_LIST_HEAD(&sf->node);
	INIT_LIST_HEAD(&sf->rnode);
	INIT_HLIST_NODE(&sf->tnode);
	sf->heard_at = jiffies;
	sf->resumed_at = jiffies;
	sf->acked_at = jiffies;
	pstripe_sf_attach(sf, sk, NULL);
	return sf;
}

/*
 * Wrap a TCP socket accepted by @owner's TCP listener.  Without memory,
 * NULL, and @sock is reset and released: it was cloned with our
 * callbacks, so the TCP listener's saved ones go back on it first (ours
 * would stay on the orphaned TCP socket, also after rmmod), and the reset
 * tells the client at once instead of a FIN it would take for a server
 * that closed.
 */
struct pstripe_subflow *pstripe_sf_wrap(struct socket *sock,
					struct sock *owner)
{
	const struct pstripe_subflow *lsf = pstripe_sk(owner)->sf[0];
	struct pstripe_subflow *sf = pstripe_sf_alloc();
	struct sock *ssk = sock->sk;

	if (!sf) {
		write_lock_bh(&ssk->sk_callback_lock);
		ssk->sk_data_ready = lsf->saved_data_ready;
		ssk->sk_write_space = lsf->saved_write_space;
		ssk->sk_state_change = lsf->saved_state_change;
		write_unlock_bh(&ssk->sk_callback_lock);
		sock_no_linger(ssk);
		sock_release(sock);
		return NULL;
	}
	sf->sock = sock;
	/* The listener's until accept() (pstripe_accept_sk()). */
	pstripe_sf_show_owner(owner, sf);
	INIT_LIST_HEAD(&sf->node);
	INIT_LIST_HEAD(&sf->rnode);
	INIT_HLIST_NODE(&sf->tnode);
	sf->heard_at = jiffies;
	sf->resumed_at = jiffies;
	sf->acked_at = jiffies;
	pstripe_sf_attach(sf, owner, lsf);
	return sf;
}

/* The subflow's @pull was dropped (pstripe_sf_drop_pull()) by its owner. */
/* The ports of @sf, connected: what a rejoin names it by later (pm.c). */
void pstripe_sf_note_ports(struct pstripe_subflow *sf)
{
	const struct inet_sock *inet = inet_sk(sf->sock->sk);

	sf->ports[0] = READ_ONCE(inet->inet_sport);
	sf->ports[1] = READ_ONCE(inet->inet_dport);
}

void pstripe_sf_free(struct pstripe_subflow *sf)
{
	WARN_ON_ONCE(sf->pull);
	if (sf->opt_blk)
		pstripe_blk_free(sf->opt_blk);
	pstripe_hs_del(sf);
	pstripe_sf_detach(sf);
	sock_release(sf->sock);
	kfree(sf);
}

static void pstripe_sf_free_rwork(struct work_struct *work)
{
	pstripe_sf_free(container_of(to_rcu_work(work),
				     struct pstripe_subflow, free_rwork));
}

/* Write @n pieces of @len bytes in all to @sf's TCP, in one call. */
__pstripe_hot int pstripe_sf_sendv(struct pstripe_subflow *sf, struct kvec *iov,
				   int n, size_t len, int flags)
{
	struct msghdr msg = { .msg_flags = flags | MSG_DONTWAIT | MSG_NOSIGNAL };
	int r;

	r = kernel_sendmsg(sf->sock, &msg, iov, n, len);
	if (r > 0)
		sf->bytes_sent += r;
	return r;
}

int pstripe_sf_send(struct pstripe_subflow *sf, const void *buf,
		    size_t len, int flags)
{
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };

	return pstripe_sf_sendv(sf, &iov, 1, len, flags);
}

int pstripe_sf_recv(struct pstripe_subflow *sf, void *buf, size_t len,
		    int flags)
{
	struct msghdr msg = { };
	struct kvec iov = { .iov_base = buf, .iov_len = len };
	int r;

	r = kernel_recvmsg(sf->sock, &msg, &iov, 1, len, flags | MSG_DONTWAIT);
	if (r > 0 && !(flags & MSG_PEEK))
		sf->bytes_received += r;
	return r;
}

int pstripe_sf_state(const struct pstripe_subflow *sf)
{
	return inet_sk_state_load(sf->sock->sk);
}

/* Bytes TCP holds for us to read; lockless, as tcp_poll() reads it. */
__pstripe_hot bool pstripe_sf_readable(const struct pstripe_subflow *sf)
{
	const struct sock *ssk = sf->sock->sk;
	const struct tcp_sock *tp = tcp_sk(ssk);

	return READ_ONCE(tp->rcv_nxt) != READ_ONCE(tp->copied_seq) ||
	       (READ_ONCE(ssk->sk_shutdown) & RCV_SHUTDOWN) ||
	       READ_ONCE(ssk->sk_err);
}

bool pstripe_sf_readable_data(const struct pstripe_subflow *sf)
{
	const struct tcp_sock *tp = tcp_sk(sf->sock->sk);

	return READ_ONCE(tp->rcv_nxt) != READ_ONCE(tp->copied_seq);
}

__pstripe_hot bool pstripe_sf_live(const struct pstripe_subflow *sf)
{
	return sf && !READ_ONCE(sf->dead);
}

/*
 * Reset live subflow @i and stop using it.  Blocks written to it and not
 * acknowledged wait for another subflow; the block being read from it is
 * read again from the copy the peer resends.  Its socket is released by
 * close(), or by a rejoin that takes its slot (pstripe_sf_replace()), so
 * that lockless readers (poll) never see it freed.
 */
static void pstripe_sf_stop(struct pstripe_sock *ps, int i, int err)
{
	struct pstripe_subflow *sf = ps->sf[i];
	struct sock *ssk;
	struct pstripe_blk *blk;

	pstripe_nl_sf_closed(sf, err);
	ssk = sf->sock->sk;
	pstripe_sf_detach(sf);
	lock_sock(ssk);
	sock_reset_flag(ssk, SOCK_LINGER);
	ssk->sk_lingertime = 0;
	/* tcp_disconnect(): an RST to the peer, queues purged. */
	ssk->sk_prot->disconnect(ssk, 0);
	release_sock(ssk);
	WRITE_ONCE(sf->dead, true);
	if (sf->alen)
		ps->ack_pending = true;
	sf->alen = 0;
	sf->aoff = 0;
	sf->cur = NULL;
	sf->soff = 0;
	WRITE_ONCE(sf->busy, false);
	list_for_each_entry(blk, &ps->rtx, node) {
		if (blk->copy == i)
			blk->copy = -1;
		if (blk->sf == i) {
			blk->sf = -1;
			WRITE_ONCE(ps->orphans, ps->orphans + 1);
		}
	}
	pstripe_sf_drop_pull(ps, sf);
	WRITE_ONCE(sf->hdr_valid, false);
	sf->hdr_got = 0;
	if (ps->rcv_cur == i)
		WRITE_ONCE(ps->rcv_cur, -1);
	/* The last ack may have been lost with it. */
	ps->ack_pending = true;
	ps->nlive--;
	if (ps->neg_driver == PSOCK_DRIVER_ROUND_ROBIN && ps->rr_next == i)
		pstripe_rr_advance(ps, i);
	pr_debug("psock %p: subflow %d failed (%d), %d left\n", ps, i, err,
		 ps->nlive);
}

/* No subflow left: the socket reports @err (negative; ECONNRESET if 0). */
void pstripe_fail(struct pstripe_sock *ps, int err)
{
	struct sock *sk = ps_sk(ps);

	WRITE_ONCE(sk->sk_err, err < 0 ? -err : ECONNRESET);
	sk_error_report(sk);
}

/* pstripe_sf_stop(); the connection fails with its last subflow. */
void pstripe_sf_reset(struct pstripe_sock *ps, int i, int err)
{
	if (!pstripe_sf_live(ps->sf[i]))
		return;
	pstripe_sf_stop(ps, i, err);
	if (!ps->nlive)
		pstripe_fail(ps, err);
	pstripe_wake(ps_sk(ps));
}

/*
 * The peer told us dead subflow @i is, in the message of the rejoin that
 * takes its slot (pm.c): reset it, never failing the connection, since
 * its replacement is here even when it was the last one.
 */
void pstripe_sf_retire(struct pstripe_sock *ps, int i)
{
	if (!pstripe_sf_live(ps->sf[i]))
		return;
	pstripe_sf_stop(ps, i, -ECONNRESET);
}

/*
 * Subflow @i failed: @err is its TCP socket's error (a reset, an ICMP
 * error, TCP's own timeout), or -ETIMEDOUT for no progress in
 * stale_timeout_ms.  Counted as lost (SubflowsLost*), then reset.
 * Subflows we reset for our own reasons (a protocol error, close(), a
 * rejoin in their place) go through pstripe_sf_reset() and are not lost.
 * The last one reset by the peer may leave the connection waiting for a
 * rejoin instead of failed (pstripe_limbo_enter()).
 */
void pstripe_sf_kill(struct pstripe_sock *ps, int i, int err)
{
	if (!pstripe_sf_live(ps->sf[i]))
		return;
	pstripe_mib_inc(sock_net(ps_sk(ps)), err == -ETIMEDOUT ?
			PSTRIPE_MIB_SUBFLOWS_LOST_TIMEOUT :
			PSTRIPE_MIB_SUBFLOWS_LOST_ERROR);
	if (err == -ETIMEDOUT)
		ps->stale_kill_at = jiffies ? : 1;
	if (ps->nlive == 1 && pstripe_limbo_enter(ps, err)) {
		pstripe_sf_stop(ps, i, err);
		pstripe_wake(ps_sk(ps));
		return;
	}
	pstripe_sf_reset(ps, i, err);
}

/*
 * A protocol error: reset every subflow; the socket reports @err.  A
 * connection still alive counts in Aborts, once.
 */
void pstripe_abort(struct pstripe_sock *ps, int err)
{
	int i;

	if (ps->nlive)
		pstripe_mib_inc(sock_net(ps_sk(ps)), PSTRIPE_MIB_ABORTS);
	WRITE_ONCE(ps->rj_limbo, false);
	for (i = 0; i < ps->nsf; i++)
		pstripe_sf_reset(ps, i, err);
	WRITE_ONCE(ps_sk(ps)->sk_err, -err);
}

void pstripe_release_subflows(struct pstripe_sock *ps)
{
	int i;

	for (i = 0; i < PSOCK_STREAM_CNT_LIMIT; i++) {
		if (ps->sf[i]) {
			pstripe_nl_sf_closed(ps->sf[i], 0);
			pstripe_sf_drop_pull(ps, ps->sf[i]);
			pstripe_sf_free(ps->sf[i]);
			ps->sf[i] = NULL;
		}
	}
	ps->nsf = 0;
	ps->nlive = 0;
}

/**
 * pstripe_sf_replace() - a new subflow takes dead subflow @i's place
 * @ps: the connection, its lock held
 * @i: the slot
 * @sf: the new subflow, connected, its owner @ps
 *
 * The dead one is freed once no lockless reader (poll(), a subflow's
 * callback) can still be looking at it: after an RCU grace period, by
 * pstripe_wq, so that the socket's lock is not held for one
 * (pstripe_stream_exit() waits for it).
 */
void pstripe_sf_replace(struct pstripe_sock *ps, int i,
			struct pstripe_subflow *sf)
{
	struct pstripe_subflow *old = ps->sf[i];

	sock_owned_by_me(ps_sk(ps));
	WARN_ON_ONCE(pstripe_sf_live(old));
	sf->index = old->index;
	sf->route = old->route;
	pstripe_sf_inherit(ps_sk(ps), sf->sock->sk, sf->index);
	pstripe_sf_index_bufs(ps, sf);
	pstripe_sf_show_owner(ps_sk(ps), sf);
	pstripe_sf_note_ports(sf);
	WRITE_ONCE(ps->sf[i], sf);
	ps->nlive++;
	WRITE_ONCE(ps->rj_limbo, false);
	pstripe_mib_inc(sock_net(ps_sk(ps)), PSTRIPE_MIB_SUBFLOWS_REOPENED);
	pstripe_nl_sf_established(sf);
	INIT_RCU_WORK(&old->free_rwork, pstripe_sf_free_rwork);
	queue_rcu_work(pstripe_wq, &old->free_rwork);
	pstripe_wake(ps_sk(ps));
}

/*
 * Is live subflow @sf stuck: data to deliver and no acknowledgment since
 * the clock started?  Stuck means data not acknowledged and no ack for
 * it: in flight, or queued while the peer's window has room for a
 * segment (a route gone with its link keeps TCP from sending anything),
 * or behind a closed window (none, or too small for a segment) whose
 * probes go unanswered.  A peer that closed its window (not reading)
 * answers the probes, and each answer clears icsk_probes_out and is
 * progress: not stuck.  The clock starts when this check first sees such data: a
 * subflow that was idle since the last check is not late.  *@waiting
 * says whether it has data outstanding.  Also notes when the peer was
 * last heard on @sf (an ack, or data), and when it was heard again after
 * a silence.
 */
static bool pstripe_sf_stuck(struct pstripe_subflow *sf, unsigned long stale,
			     bool *waiting)
{
	struct sock *ssk = sf->sock->sk;
	struct tcp_sock *tp = tcp_sk(ssk);
	u32 una = READ_ONCE(tp->snd_una), rcv = READ_ONCE(tp->rcv_nxt);
	u32 queued = READ_ONCE(tp->write_seq) - una;
	u32 ack_ts = READ_ONCE(tp->rcv_tstamp);
	bool closed, answered;

	if (una != sf->last_una || rcv != sf->last_rcv) {
		if (time_after(jiffies, sf->heard_at + stale / 2))
			sf->resumed_at = jiffies;
		sf->heard_at = jiffies;
	}
	if (una != sf->last_una)
		sf->acked_at = jiffies;
	sf->last_rcv = rcv;
	/*
	 * The peer's window is closed for TCP when no segment fits in it
	 * (a full one, or all that is queued): TCP sends nothing more into
	 * it (silly window avoidance) but its probes, until the peer's
	 * reader makes room.  That waits for the reader, not the path: any
	 * ACK of the peer's TCP (a probe's answer, one that says the window
	 * is still closed) is progress then.
	 */
	closed = READ_ONCE(tp->snd_wnd) <
		 min(queued, READ_ONCE(tp->mss_cache));
	answered = closed && ack_ts != sf->last_ack_ts;
	sf->last_ack_ts = ack_ts;
	*waiting = READ_ONCE(tp->packets_out) ||
		   (queued &&
		    (!closed || READ_ONCE(inet_csk(ssk)->icsk_probes_out)));
	if (!*waiting || una != sf->last_una || answered || !sf->in_flight) {
		sf->last_una = una;
		sf->progress_at = jiffies;
		sf->in_flight = *waiting;
		sf->graced = false;
		return false;
	}
	return time_after_eq(jiffies, sf->progress_at + stale);
}

/*
 * Is stuck subflow @s's path gone while another works?  Another works
 * when the peer acknowledged what we sent on it well after @s went silent
 * (half a stale timeout after: the checks see an ack up to a quarter
 * late, and a loss that hit every path at once must not count the last
 * acks before it).  Hearing the peer's data on it is not enough: when
 * the peer's receiving stalls (TCP drops what it cannot hold under
 * memory pressure, one direction of every path is lost) the peer still
 * sends on every subflow while none of ours makes progress, and killing
 * @s would move its blocks to subflows stalled the same way (an idle one
 * is probed meanwhile: its answer is the ack that tells).  When that one
 * was silent too and came back (the end of an outage of every path), @s
 * gets a grace of a stale timeout and its retransmission timeout as they
 * are then: its next retransmission, answered, tells that its own path is
 * back too.
 */
static bool pstripe_sf_forsaken(struct pstripe_sock *ps, int s,
				unsigned long stale)
{
	struct pstripe_subflow *ssf = ps->sf[s];
	struct sock *ssk = ssf->sock->sk;
	unsigned long since = ssf->progress_at;
	int i;

	for (i = 0; i < ps->nsf; i++) {
		struct pstripe_subflow *sf = ps->sf[i];

		if (i == s || !pstripe_sf_live(sf) ||
		    !time_after(sf->acked_at, since + stale / 2))
			continue;
		if (!time_after(sf->resumed_at, since))
			return true;	/* it worked all along */
		if (!ssf->graced) {
			ssf->graced = true;
			ssf->grace_end = jiffies + stale +
				inet_csk_rto_backoff(inet_csk(ssk),
						     TCP_RTO_MAX);
		}
		return time_after_eq(jiffies, ssf->grace_end);
	}
	return false;
}

/*
 * No progress for stale_timeout_ms while TCP has data to deliver: the path
 * is gone (link down, everything dropped), and the subflow is killed so
 * that its blocks go to another, but only while another subflow works
 * (pstripe_sf_forsaken()).  When none does (an outage of every path, or
 * of the one bottleneck they share) nothing is killed: the connection
 * waits, as one TCP connection would, until a path comes back or TCP
 * itself gives up; subflows with nothing to deliver are probed meanwhile,
 * as their answer is what tells that their path works.
 */
void pstripe_check_subflows(struct pstripe_sock *ps)
{
	unsigned long stale = pstripe_stale_jiffies(ps_sk(ps));
	DECLARE_BITMAP(stuck, PSOCK_STREAM_CNT_LIMIT);
	bool outstanding = false, spared = false, waiting;
	int i;

	bitmap_zero(stuck, PSOCK_STREAM_CNT_LIMIT);
	for (i = 0; i < ps->nsf; i++) {
		struct pstripe_subflow *sf = ps->sf[i];
		struct sock *ssk;

		if (!pstripe_sf_live(sf))
			continue;
		ssk = sf->sock->sk;
		/* Reset: what it received is read first (parse kills it). */
		if (READ_ONCE(ssk->sk_err)) {
			if (!pstripe_sf_readable_data(sf))
				pstripe_sf_kill(ps, i, -READ_ONCE(ssk->sk_err));
			continue;
		}
		if (pstripe_sf_stuck(sf, stale, &waiting))
			__set_bit(i, stuck);
		outstanding |= waiting;
	}
	/* Verdicts first, then kills: a kill moves blocks to the others. */
	for (i = 0; i < ps->nsf; i++) {
		if (test_bit(i, stuck) && !pstripe_sf_forsaken(ps, i, stale)) {
			__clear_bit(i, stuck);
			spared = true;
		}
	}
	for (i = 0; i < ps->nsf; i++)
		if (test_bit(i, stuck))
			pstripe_sf_kill(ps, i, -ETIMEDOUT);
	for (i = 0; spared && i < ps->nsf; i++)
		if (pstripe_sf_live(ps->sf[i]) && !ps->sf[i]->in_flight)
			pstripe_sf_probe(ps, i);
	if (outstanding || ps->rtx_cnt)
		pstripe_schedule(ps, max_t(unsigned long, stale / 4, 1));
}

/*
 * Closed connections' subflows, kept until the peer closes them too.
 *
 * The peer keeps acknowledging blocks after our close(), as bytes in the
 * subflows.  A TCP socket closed by close() answers such bytes with a
 * reset (RFC 1122), and the reset would destroy data still in flight to
 * the peer.  So close() only shuts the subflows down for writing (a FIN
 * after the last block) and leaves them here; the graveyard reads and
 * drops what arrives until the peer's FIN, an error, or
 * PSTRIPE_GRAVE_SECS, then releases them.  Their TCP sockets hold their
 * network namespace (pstripe_sf_create()).
 *
 * Driven by events: a subflow's callbacks stay installed, and its data
 * and state changes put it on the ready list and queue the work, which
 * drains only those; otherwise the work runs when the oldest subflow's
 * time is up (all get the same time, so the list is in deadline order).
 *
 * Lock order: sk_callback_lock (an event) -> pstripe_graves_lock.  A
 * subflow is detached (pstripe_sf_detach(), under sk_callback_lock) before
 * it leaves the lists, so no event can put it back on the ready list.
 */
#define PSTRIPE_GRAVE_SECS	60

static LIST_HEAD(pstripe_graves);		/* by &pstripe_subflow.node */
static LIST_HEAD(pstripe_graves_ready);		/* by &pstripe_subflow.rnode */
static DEFINE_SPINLOCK(pstripe_graves_lock);	/* both lists */

static void pstripe_grave_work(struct work_struct *work);

static DECLARE_DELAYED_WORK(pstripe_grave_dwork, pstripe_grave_work);

/*
 * An event on subflow @sf in the graveyard (sk_callback_lock held).  One
 * that comes while pstripe_grave_add() has not put @sf on the list yet is
 * left out: that function queues @sf for a first drain itself.
 */
static void pstripe_grave_ready(struct pstripe_subflow *sf)
{
	spin_lock_bh(&pstripe_graves_lock);
	if (!list_empty(&sf->node) && list_empty(&sf->rnode))
		list_add_tail(&sf->rnode, &pstripe_graves_ready);
	spin_unlock_bh(&pstripe_graves_lock);
	mod_delayed_work(pstripe_wq, &pstripe_grave_dwork, 0);
}

/* Drain one subflow: true once it can go. */
static bool pstripe_grave_drain(struct pstripe_subflow *sf)
{
	u8 scratch[256];
	int r;

	do {
		r = pstripe_sf_recv(sf, scratch, sizeof(scratch), 0);
	} while (r > 0);
	return r != -EAGAIN;
}

/* Release @sf: no event of its can come any more, then out of the lists. */
static void pstripe_grave_bury(struct pstripe_subflow *sf)
{
	pstripe_sf_detach(sf);
	spin_lock_bh(&pstripe_graves_lock);
	list_del(&sf->node);
	list_del_init(&sf->rnode);
	spin_unlock_bh(&pstripe_graves_lock);
	pstripe_sf_free(sf);
}

/* The next subflow with events, taken off the ready list; or NULL. */
static struct pstripe_subflow *pstripe_grave_next_ready(void)
{
	struct pstripe_subflow *sf;

	spin_lock_bh(&pstripe_graves_lock);
	sf = list_first_entry_or_null(&pstripe_graves_ready,
				      struct pstripe_subflow, rnode);
	if (sf)
		list_del_init(&sf->rnode);
	spin_unlock_bh(&pstripe_graves_lock);
	return sf;
}

/* The oldest subflow if its time is up; or NULL. */
static struct pstripe_subflow *pstripe_grave_next_expired(void)
{
	struct pstripe_subflow *sf;

	spin_lock_bh(&pstripe_graves_lock);
	sf = list_first_entry_or_null(&pstripe_graves, struct pstripe_subflow,
				      node);
	if (sf && time_before(jiffies, sf->deadline))
		sf = NULL;
	spin_unlock_bh(&pstripe_graves_lock);
	return sf;
}

/*
 * Only this work and module exit (after cancelling it) release subflows
 * from the graveyard, so one taken off a list here stays valid.
 */
static void pstripe_grave_work(struct work_struct *work)
{
	struct pstripe_subflow *sf;

	while ((sf = pstripe_grave_next_ready()))
		if (pstripe_grave_drain(sf))
			pstripe_grave_bury(sf);
	while ((sf = pstripe_grave_next_expired()))
		pstripe_grave_bury(sf);
	spin_lock_bh(&pstripe_graves_lock);
	sf = list_first_entry_or_null(&pstripe_graves, struct pstripe_subflow,
				      node);
	if (sf)
		queue_delayed_work(pstripe_wq, &pstripe_grave_dwork,
				   max_t(long, sf->deadline - jiffies, 1));
	spin_unlock_bh(&pstripe_graves_lock);
}

/*
 * Hand a closed connection's subflow to the graveyard.  Once @sf is on
 * the lists the work may release it at any time: nothing here touches it
 * after that.
 */
void pstripe_grave_add(struct pstripe_subflow *sf)
{
	struct sock *ssk = sf->sock->sk;

	INIT_LIST_HEAD(&sf->node);
	if (!sf->attached)
		pstripe_sf_attach(sf, NULL, NULL);
	kernel_sock_shutdown(sf->sock, SHUT_WR);
	sf->deadline = jiffies + PSTRIPE_GRAVE_SECS * HZ;
	write_lock_bh(&ssk->sk_callback_lock);
	sf->owner = NULL;
	sf->grave = true;
	write_unlock_bh(&ssk->sk_callback_lock);
	spin_lock_bh(&pstripe_graves_lock);
	list_add_tail(&sf->node, &pstripe_graves);
	/* A first drain, for what came before its events were ours. */
	if (list_empty(&sf->rnode))
		list_add_tail(&sf->rnode, &pstripe_graves_ready);
	spin_unlock_bh(&pstripe_graves_lock);
	mod_delayed_work(pstripe_wq, &pstripe_grave_dwork, 0);
}

/* Module exit: nothing may stay. */
void pstripe_grave_flush(void)
{
	struct pstripe_subflow *sf;

	cancel_delayed_work_sync(&pstripe_grave_dwork);
	for (;;) {
		spin_lock_bh(&pstripe_graves_lock);
		sf = list_first_entry_or_null(&pstripe_graves,
					      struct pstripe_subflow, node);
		spin_unlock_bh(&pstripe_graves_lock);
		if (!sf)
			break;
		pstripe_grave_bury(sf);
	}
	/* An event before its subflow was detached queued the work again. */
	cancel_delayed_work_sync(&pstripe_grave_dwork);
}
