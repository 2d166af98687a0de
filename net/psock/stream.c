// SPDX-License-Identifier: GPL-2.0
/*
 * IPPROTO_PSOCK connections: the socket calls, the handshake and the data
 * path over kernel TCP subflows.
 *
 * Ownership
 * ---------
 * A PSOCK socket owns its subflows (struct pstripe_subflow, each with a
 * kernel TCP socket made by sock_create_kern() in the socket's netns).  A
 * listener owns a kernel TCP listener (sf[0]), the TCP connections it has
 * accepted but not yet classified (@pending), the connections waiting for
 * their data subflows (@embryos) and those ready for accept() (@accept_q).
 * A child is a full PSOCK socket made with __sock_create() in the
 * listener's netns; accept() moves its struct sock onto the new socket.
 *
 * Callbacks
 * ---------
 * sk_data_ready, sk_write_space and sk_state_change of every TCP socket we
 * own are replaced under write_lock_bh(sk_callback_lock) and restored the
 * same way before the socket is released.  They run in softirq context and
 * only wake the owner's waiters and queue the owner's work; everything that
 * sleeps runs in process context: the caller's syscall or the work.  TCP
 * connections accepted by our TCP listener are its clones: they restore
 * the listener's saved callbacks, and sk_user_data is NOCOPY.
 *
 * Memory
 * ------
 * Blocks kept for resending are bounded by the send buffer and the window
 * (PSTRIPE_WIN_BLKS, PSTRIPE_WIN_BYTES).  Received blocks the socket holds
 * itself (reorder queue, blocks being copied into it) are charged to its
 * sk_rmem_alloc, bounded by sk_rcvbuf (at least PSTRIPE_RCV_WIN); a peer
 * that goes past it is reset.
 *
 * Lock order: lock_sock(PSOCK socket) -> lock_sock(kernel TCP socket).  A
 * listener never locks a child while holding its own lock: children to be
 * released are collected and released after release_sock().
 *
 * Teardown: close() detaches every callback under the lock (so nothing
 * queues the work any more), sets @closing, then cancels the work
 * synchronously without the lock and releases the TCP sockets.
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

/* Client handshake phases (state TCP_SYN_SENT). */
enum {
	PSTRIPE_PH_TCP,		/* control subflow connecting */
	PSTRIPE_PH_SHELLO,	/* probe sent, waiting for the server hello */
	PSTRIPE_PH_JOIN,	/* data subflows connecting */
};

/* What a listener knows of an accepted TCP connection. */
enum {
	PSTRIPE_PEND_FIRST,	/* nothing yet: probe, join or plain data? */
	PSTRIPE_PEND_CHELLO,	/* server hello sent, waiting for the client's */
};

/* pstripe_sock.rcv_cur: block rcv_seq is at the head of the reorder queue */
#define PSTRIPE_CUR_OOO		PSOCK_STREAM_CNT_LIMIT

/* Re-check of pending handshakes while nothing else wakes the work. */
#define PSTRIPE_POLL_JIFFIES	(HZ / 20)

static struct workqueue_struct *pstripe_wq;

/* Things a work run releases once it has dropped the socket lock. */
struct pstripe_reap {
	struct list_head	subflows;	/* struct pstripe_subflow.node */
	struct list_head	children;	/* struct pstripe_sock.lnode */
};

static struct sock *ps_sk(struct pstripe_sock *ps)
{
	return &ps->isk.sk;
}

static void pstripe_set_state(struct sock *sk, int state)
{
	/* Pairs with inet_sk_state_load() in poll() and the callbacks. */
	smp_store_release(&sk->sk_state, state);
}

static unsigned long pstripe_hello_jiffies(const struct sock *sk)
{
	const struct pstripe_pernet *pn = pstripe_get_pernet(sock_net(sk));

	return msecs_to_jiffies(READ_ONCE(pn->hello_timeout_ms));
}

/* Data subflows may need SYN retransmissions: they get longer. */
static unsigned long pstripe_join_jiffies(const struct sock *sk)
{
	const struct pstripe_pernet *pn = pstripe_get_pernet(sock_net(sk));

	return pstripe_hello_jiffies(sk) +
	       2 * msecs_to_jiffies(READ_ONCE(pn->stale_timeout_ms));
}

/* Wake every waiter of a PSOCK socket: poll, epoll, blocked calls. */
static void pstripe_wake(struct sock *sk)
{
	struct socket_wq *wq;

	rcu_read_lock();
	wq = rcu_dereference(sk->sk_wq);
	if (skwq_has_sleeper(wq))
		wake_up_interruptible_all(&wq->wait);
	rcu_read_unlock();
}

static void pstripe_kick(struct pstripe_sock *ps)
{
	mod_delayed_work(pstripe_wq, &ps->work, 0);
}

static unsigned long pstripe_stale_jiffies(const struct sock *sk)
{
	const struct pstripe_pernet *pn = pstripe_get_pernet(sock_net(sk));

	return msecs_to_jiffies(READ_ONCE(pn->stale_timeout_ms));
}

/* ---- callbacks (softirq) ---- */

enum { PSTRIPE_EV_DATA, PSTRIPE_EV_SPACE, PSTRIPE_EV_STATE };

static void pstripe_sf_event(struct sock *ssk, int ev)
{
	struct pstripe_subflow *sf;
	struct pstripe_sock *ps;
	struct sock *sk;

	read_lock_bh(&ssk->sk_callback_lock);
	sf = __locked_read_sk_user_data_with_flags(ssk, 0);
	sk = sf ? sf->owner : NULL;
	if (sk) {
		ps = pstripe_sk(sk);
		pstripe_wake(sk);
		/* The work handshakes, classifies and flushes blocks. */
		if (ev == PSTRIPE_EV_STATE ||
		    READ_ONCE(sk->sk_state) != TCP_ESTABLISHED ||
		    (ev == PSTRIPE_EV_SPACE && READ_ONCE(ps->snd_pending)) ||
		    (ev == PSTRIPE_EV_DATA && (READ_ONCE(ps->rtx_cnt) ||
					       READ_ONCE(ps->late_hello))))
			pstripe_kick(ps);
	}
	read_unlock_bh(&ssk->sk_callback_lock);
}

static void pstripe_sf_data_ready(struct sock *ssk)
{
	pstripe_sf_event(ssk, PSTRIPE_EV_DATA);
}

static void pstripe_sf_write_space(struct sock *ssk)
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

static void pstripe_sf_set_owner(struct pstripe_subflow *sf, struct sock *owner)
{
	struct sock *ssk = sf->sock->sk;

	write_lock_bh(&ssk->sk_callback_lock);
	sf->owner = owner;
	write_unlock_bh(&ssk->sk_callback_lock);
}

static void pstripe_sf_detach(struct pstripe_subflow *sf)
{
	struct sock *ssk = sf->sock->sk;

	if (!sf->attached)
		return;
	write_lock_bh(&ssk->sk_callback_lock);
	ssk->sk_data_ready = sf->saved_data_ready;
	ssk->sk_write_space = sf->saved_write_space;
	ssk->sk_state_change = sf->saved_state_change;
	rcu_assign_sk_user_data(ssk, NULL);
	sf->owner = NULL;
	sf->attached = false;
	write_unlock_bh(&ssk->sk_callback_lock);
}

/* ---- subflows ---- */

static int pstripe_sf_set_buf(struct socket *sock, int opt, int val)
{
	if (!val)
		return 0;
	return sock_setsockopt(sock, SOL_SOCKET, opt, KERNEL_SOCKPTR(&val),
			       sizeof(val));
}

/* A new TCP socket for subflow @index of @sk, callbacks attached. */
static struct pstripe_subflow *pstripe_sf_create(struct sock *sk, int index,
						 int *errp)
{
	struct pstripe_sock *ps = pstripe_sk(sk);
	struct pstripe_subflow *sf;
	struct sock *ssk;
	int err;

	sf = kzalloc(sizeof(*sf), GFP_KERNEL);
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
	ssk->sk_reuse = sk->sk_reuse;
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
	pstripe_sf_attach(sf, sk, NULL);
	return sf;
}

/* Wrap a TCP socket accepted by @owner's TCP listener. */
static struct pstripe_subflow *pstripe_sf_wrap(struct socket *sock,
					       struct sock *owner)
{
	const struct pstripe_subflow *lsf = pstripe_sk(owner)->sf[0];
	struct pstripe_subflow *sf = kzalloc(sizeof(*sf), GFP_KERNEL);

	if (!sf)
		return NULL;
	sf->sock = sock;
	INIT_LIST_HEAD(&sf->node);
	pstripe_sf_attach(sf, owner, lsf);
	return sf;
}

/*
 * Received blocks kept by the PSOCK socket itself (the reorder queue and
 * the block being copied into it) are charged to its sk_rmem_alloc.  The
 * limit is sk_rcvbuf, never less than what a peer keeping to the window
 * can make us hold (PSTRIPE_RCV_WIN): past it the peer is broken, and
 * -EPROTO resets the connection.
 */
static struct pstripe_blk *pstripe_rblk_alloc(struct pstripe_sock *ps,
					      u32 len)
{
	struct sock *sk = ps_sk(ps);
	struct pstripe_blk *blk;
	size_t size = struct_size(blk, data, len);
	size_t limit = max_t(size_t, READ_ONCE(sk->sk_rcvbuf), PSTRIPE_RCV_WIN);

	if (atomic_read(&sk->sk_rmem_alloc) + size > limit)
		return ERR_PTR(-EPROTO);
	blk = kmalloc(size, GFP_KERNEL);
	if (!blk)
		return ERR_PTR(-ENOMEM);
	atomic_add(size, &sk->sk_rmem_alloc);
	blk->size = len;
	return blk;
}

static void pstripe_rblk_free(struct pstripe_sock *ps, struct pstripe_blk *blk)
{
	if (!blk)
		return;
	atomic_sub(struct_size(blk, data, blk->size), &ps_sk(ps)->sk_rmem_alloc);
	kfree(blk);
}

/* Drop the block @sf was copying into the reorder queue. */
static void pstripe_sf_drop_pull(struct pstripe_sock *ps,
				 struct pstripe_subflow *sf)
{
	pstripe_rblk_free(ps, sf->pull);
	sf->pull = NULL;
}

/* The subflow's @pull was dropped (pstripe_sf_drop_pull()) by its owner. */
static void pstripe_sf_free(struct pstripe_subflow *sf)
{
	WARN_ON_ONCE(sf->pull);
	pstripe_sf_detach(sf);
	sock_release(sf->sock);
	kfree(sf);
}

static int pstripe_sf_send(struct pstripe_subflow *sf, const void *buf,
			   size_t len, int flags)
{
	struct msghdr msg = { .msg_flags = flags | MSG_DONTWAIT | MSG_NOSIGNAL };
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };
	int r;

	r = kernel_sendmsg(sf->sock, &msg, &iov, 1, len);
	if (r > 0)
		sf->bytes_sent += r;
	return r;
}

static int pstripe_sf_recv(struct pstripe_subflow *sf, void *buf, size_t len,
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

static int pstripe_sf_state(const struct pstripe_subflow *sf)
{
	return inet_sk_state_load(sf->sock->sk);
}

/* Bytes TCP holds for us to read; lockless, as tcp_poll() reads it. */
static bool pstripe_sf_readable(const struct pstripe_subflow *sf)
{
	const struct sock *ssk = sf->sock->sk;
	const struct tcp_sock *tp = tcp_sk(ssk);

	return READ_ONCE(tp->rcv_nxt) != READ_ONCE(tp->copied_seq) ||
	       (READ_ONCE(ssk->sk_shutdown) & RCV_SHUTDOWN) ||
	       READ_ONCE(ssk->sk_err);
}

static bool pstripe_sf_readable_data(const struct pstripe_subflow *sf)
{
	const struct tcp_sock *tp = tcp_sk(sf->sock->sk);

	return READ_ONCE(tp->rcv_nxt) != READ_ONCE(tp->copied_seq);
}

static bool pstripe_sf_live(const struct pstripe_subflow *sf)
{
	return sf && !READ_ONCE(sf->dead);
}

/*
 * Can @sf take a new block of @payload bytes now?  It must be alive, have
 * no block or ack of its own in flight and room for the block (or half its
 * buffer, so a small SO_SNDBUF still makes progress).  When it cannot,
 * SOCK_NOSPACE asks TCP to call sk_write_space once room is made.
 */
static bool pstripe_sf_usable(struct pstripe_subflow *sf, size_t payload,
			      bool mark)
{
	struct sock *ssk;
	int need;

	/*
	 * Not after our FIN: a write would fail, and kill a healthy subflow
	 * (an ack resent after another subflow died would so take them all).
	 */
	if (!pstripe_sf_live(sf) || READ_ONCE(sf->busy) ||
	    READ_ONCE(sf->fin_sent))
		return false;
	ssk = sf->sock->sk;
	need = min_t(int, sizeof(struct pstripe_blkhdr) + payload,
		     READ_ONCE(ssk->sk_sndbuf) / 2);
	if (sk_stream_wspace(ssk) >= need && sk_stream_memory_free(ssk))
		return true;
	if (mark)
		set_bit(SOCK_NOSPACE, &ssk->sk_socket->flags);
	return false;
}

/*
 * Room for one more unacknowledged block of @payload bytes: the blocks
 * kept for resending are bounded by the socket's send buffer, or by what
 * the subflows' send buffers hold together plus the blocks the receiver
 * may not have acknowledged yet (PSTRIPE_ACK_EVERY) when that is more: a
 * send buffer below the bandwidth-delay product set with SO_SNDBUF reaches
 * each subflow, and n subflows so keep n of them in flight, as the psock
 * library's n TCP sockets do.  Never more than the receiver's window
 * (PSTRIPE_WIN_BLKS blocks, PSTRIPE_WIN_BYTES bytes).  Lockless (poll):
 * subflows are only freed by close().
 */
static bool pstripe_rtx_room(struct pstripe_sock *ps, size_t payload)
{
	struct sock *sk = ps_sk(ps);
	u32 limit, sum = PSTRIPE_ACK_EVERY * PSTRIPE_BLK_BUF;
	int i, n = READ_ONCE(ps->nsf);

	for (i = 0; i < n; i++) {
		struct pstripe_subflow *sf = READ_ONCE(ps->sf[i]);

		if (pstripe_sf_live(sf))
			sum += READ_ONCE(sf->sock->sk->sk_sndbuf);
	}
	limit = max_t(u32, READ_ONCE(sk->sk_sndbuf), sum);
	limit = min_t(u32, limit, PSTRIPE_WIN_BYTES);
	return READ_ONCE(ps->rtx_cnt) < PSTRIPE_WIN_BLKS - 1 &&
	       READ_ONCE(ps->rtx_bytes) + sizeof(struct pstripe_blkhdr) +
	       payload <= limit;
}

/* Bytes @sf's TCP holds not yet acknowledged: queued and in flight. */
static u32 pstripe_sf_unacked(const struct pstripe_subflow *sf)
{
	const struct tcp_sock *tp = tcp_sk(sf->sock->sk);

	return READ_ONCE(tp->write_seq) - READ_ONCE(tp->snd_una);
}

/*
 * The subflow that takes the next block: -1 when none can.  Round-robin:
 * the one in turn.  Poll-all: of those with room, the one whose TCP holds
 * the least not yet acknowledged (its path drains fastest), ties going to
 * the next one after the last used, as the psock library's poll loop
 * writes to every writable socket in turn: no path is left out when none
 * is full (a CPU-bound host).  Not the one with the most send-buffer
 * space: TCP grows the buffers of the fast path, which then took every
 * block whenever the CPU, not the links, was the limit.  Not the least
 * unsent either: a subflow whose last small write (an ack) waits for its
 * TCP acknowledgment holds a new block back (Nagle) for a delayed ACK.
 */
static int pstripe_pick(struct pstripe_sock *ps, size_t payload, bool any)
{
	int k, best = -1;
	u32 least = U32_MAX;

	if (!any && ps->neg_driver == PSOCK_DRIVER_ROUND_ROBIN)
		return pstripe_sf_usable(ps->sf[ps->rr_next], payload, true) ?
		       ps->rr_next : -1;
	for (k = 0; k < ps->nsf; k++) {
		int i = (ps->pa_next + k) % ps->nsf;
		u32 n;

		if (!pstripe_sf_usable(ps->sf[i], payload, true))
			continue;
		n = pstripe_sf_unacked(ps->sf[i]);
		if (best < 0 || n < least) {
			best = i;
			least = n;
		}
	}
	if (best >= 0)
		ps->pa_next = (best + 1) % ps->nsf;
	return best;
}

/*
 * The subflow for an acknowledgment: the next one after the last one used
 * that can take it.  Acknowledgments so go over every subflow in turn,
 * and an idle subflow whose path died gets one stuck in flight: the stale
 * check then sees it, while data still flows on the others.
 */
static int pstripe_pick_ack(struct pstripe_sock *ps)
{
	int k;

	for (k = 0; k < ps->nsf; k++) {
		int i = (ps->ack_next + k) % ps->nsf;

		if (pstripe_sf_usable(ps->sf[i], 0, true)) {
			ps->ack_next = (i + 1) % ps->nsf;
			return i;
		}
	}
	return -1;
}

/* Round-robin: the next live subflow after @i. */
static void pstripe_rr_advance(struct pstripe_sock *ps, int i)
{
	int k;

	for (k = 1; k <= ps->nsf; k++) {
		int j = (i + k) % ps->nsf;

		if (pstripe_sf_live(ps->sf[j])) {
			ps->rr_next = j;
			return;
		}
	}
}

/* Write what is left of @sf's ack and block; 0 when all of it is in TCP. */
static int pstripe_sf_push(struct pstripe_subflow *sf)
{
	int r;

	while (sf->aoff < sf->alen) {
		r = pstripe_sf_send(sf, sf->abuf + sf->aoff,
				    sf->alen - sf->aoff, 0);
		if (r <= 0)
			return r ? r : -EAGAIN;
		sf->aoff += r;
	}
	sf->alen = 0;
	sf->aoff = 0;
	while (sf->cur && sf->soff < sf->cur->size) {
		r = pstripe_sf_send(sf, sf->cur->data + sf->soff,
				    sf->cur->size - sf->soff, 0);
		if (r <= 0)
			return r ? r : -EAGAIN;
		sf->soff += r;
	}
	sf->cur = NULL;
	sf->soff = 0;
	WRITE_ONCE(sf->busy, false);
	return 0;
}

static void pstripe_sf_give(struct pstripe_sock *ps, int i,
			    struct pstripe_blk *blk)
{
	struct pstripe_subflow *sf = ps->sf[i];

	if (blk->sf < 0)
		WRITE_ONCE(ps->orphans, ps->orphans - 1);
	blk->sf = i;
	if (blk->copy == i)
		blk->copy = -1;
	/* Nothing of @sf's is unwritten (not busy): the block ends here. */
	blk->sf_end = READ_ONCE(tcp_sk(sf->sock->sk)->write_seq) + blk->size;
	sf->cur = blk;
	sf->soff = 0;
	WRITE_ONCE(sf->busy, true);
}

/* Free the acknowledged blocks at the head of @rtx that no subflow writes. */
static void pstripe_rtx_trim(struct pstripe_sock *ps)
{
	struct pstripe_blk *blk, *tmp;

	list_for_each_entry_safe(blk, tmp, &ps->rtx, node) {
		if ((s32)(blk->seq - ps->snd_una) >= 0)
			break;
		if (blk->sf >= 0 && ps->sf[blk->sf]->cur == blk)
			break;
		if (blk->copy >= 0 && ps->sf[blk->copy]->cur == blk)
			break;
		if (blk->sf < 0)
			WRITE_ONCE(ps->orphans, ps->orphans - 1);
		list_del(&blk->node);
		WRITE_ONCE(ps->rtx_bytes, ps->rtx_bytes - blk->size);
		WRITE_ONCE(ps->rtx_cnt, ps->rtx_cnt - 1);
		kfree(blk);
	}
}

/*
 * Subflow @i failed (reset, error, or no progress for stale_timeout_ms):
 * reset it and stop using it.  Blocks written to it and not acknowledged
 * wait for another subflow; the block being read from it is read again
 * from the copy the peer resends.  Its socket is released by close(), so
 * that lockless readers (poll) never see it freed.
 */
static void pstripe_sf_kill(struct pstripe_sock *ps, int i, int err)
{
	struct pstripe_subflow *sf = ps->sf[i];
	struct sock *sk = ps_sk(ps), *ssk;
	struct pstripe_blk *blk;

	if (!pstripe_sf_live(sf))
		return;
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
	if (!ps->nlive) {
		WRITE_ONCE(sk->sk_err, err < 0 ? -err : ECONNRESET);
		sk_error_report(sk);
	}
	pstripe_wake(sk);
}

/* A protocol error: reset every subflow; the socket reports @err. */
static void pstripe_abort(struct pstripe_sock *ps, int err)
{
	int i;

	for (i = 0; i < ps->nsf; i++)
		pstripe_sf_kill(ps, i, err);
	WRITE_ONCE(ps_sk(ps)->sk_err, -err);
}

/* The peer expects block @ack next: drop the blocks before it. */
static int pstripe_got_ack(struct pstripe_sock *ps, u32 ack)
{
	if ((s32)(ack - ps->snd_seq) > 0)
		return -EPROTO;		/* acknowledges a block never sent */
	if ((s32)(ack - ps->snd_una) <= 0)
		return 0;
	ps->snd_una = ack;
	pstripe_rtx_trim(ps);
	return 0;
}

/*
 * Microseconds until @sf's TCP has @bytes more of its stream acknowledged
 * at its present rate (a window per smoothed RTT); 0 when it has them.
 */
static u64 pstripe_sf_eta(const struct pstripe_subflow *sf, s32 bytes)
{
	const struct tcp_sock *tp = tcp_sk(sf->sock->sk);
	u64 rate = (u64)READ_ONCE(tp->snd_cwnd) * READ_ONCE(tp->mss_cache);

	if (bytes <= 0)
		return 0;
	return div64_u64((u64)bytes * (READ_ONCE(tp->srtt_us) >> 3),
			 max_t(u64, rate, 1));
}

/*
 * The unacknowledged block that its subflow would deliver last, if
 * subflow @j would deliver a copy sooner (after what it holds, and a
 * round trip more); NULL when there is none.
 */
static struct pstripe_blk *pstripe_tail_pick(struct pstripe_sock *ps, int j)
{
	const struct tcp_sock *tj = tcp_sk(ps->sf[j]->sock->sk);
	struct pstripe_blk *blk, *best = NULL;
	u64 eta_j, eta, best_eta = 0;
	u32 min_rtt = tcp_min_rtt(tj);

	if (!READ_ONCE(tj->srtt_us) || min_rtt == ~0U)
		return NULL;	/* nothing known of its path yet */
	eta_j = pstripe_sf_eta(ps->sf[j], pstripe_sf_unacked(ps->sf[j]) +
			       PSTRIPE_BLK_BUF) + min_rtt;
	list_for_each_entry(blk, &ps->rtx, node) {
		const struct tcp_sock *tp;

		if ((s32)(blk->seq - ps->snd_una) < 0 || blk->sf < 0 ||
		    blk->sf == j || blk->copy >= 0)
			continue;
		tp = tcp_sk(ps->sf[blk->sf]->sock->sk);
		eta = pstripe_sf_eta(ps->sf[blk->sf],
				     blk->sf_end - READ_ONCE(tp->snd_una));
		if (eta > eta_j && eta > best_eta) {
			best = blk;
			best_eta = eta;
		}
	}
	return best;
}

/*
 * The tail of the stream (poll-all, our end-of-stream block queued: no
 * new block comes): a subflow with room takes a copy of the block another
 * subflow would deliver last, when it would deliver it sooner.  A slow
 * path, its queue full, so stops holding up the end of the stream; the
 * receiver drops whichever copy comes second.  Only at the tail: the copy
 * left on the slow path must arrive within the window of the receiver's
 * next block (pstripe_sf_parse()), and no block is newer than our
 * end-of-stream block.  True when a copy waits for room.
 */
static bool pstripe_tail(struct pstripe_sock *ps)
{
	bool waiting = false;
	int j, r;

	if (!ps->fin_queued || ps->orphans ||
	    ps->neg_driver != PSOCK_DRIVER_POLL_ALL)
		return false;
	for (j = 0; j < ps->nsf; j++) {
		struct pstripe_subflow *sf = ps->sf[j];
		struct pstripe_blk *blk;

		while (pstripe_sf_live(sf) && !sf->busy && !sf->fin_sent) {
			blk = pstripe_tail_pick(ps, j);
			if (!blk)
				break;
			if (!pstripe_sf_usable(sf, blk->size, true)) {
				waiting = true;
				break;
			}
			blk->copy = j;
			sf->cur = blk;
			sf->soff = 0;
			WRITE_ONCE(sf->busy, true);
			pstripe_mib_inc(sock_net(ps_sk(ps)),
					PSTRIPE_MIB_BLOCKS_COPIED);
			r = pstripe_sf_push(sf);
			if (r == -EAGAIN)
				waiting = true;
			else if (r < 0)
				pstripe_sf_kill(ps, j, r);
		}
	}
	return waiting;
}

/*
 * Flush every subflow's unfinished ack and block, give the blocks that
 * wait for a subflow one, send the acknowledgment, and once both ends of
 * the stream are done, the subflows' FINs.  A subflow that fails is
 * killed.
 */
static void pstripe_push_all(struct pstripe_sock *ps)
{
	u32 ack_sent = ps->ack_sent;
	struct pstripe_blk *blk;
	bool pending = false;
	int i, r;

	if (ps->fallback)
		return;
	for (i = 0; i < ps->nsf; i++) {
		struct pstripe_subflow *sf = ps->sf[i];

		if (!pstripe_sf_live(sf))
			continue;
		r = pstripe_sf_push(sf);
		if (r == -EAGAIN)
			pending = true;
		else if (r < 0)
			pstripe_sf_kill(ps, i, r);
	}
	pstripe_rtx_trim(ps);

	/* Blocks of dead subflows, and the end-of-stream block. */
	if (ps->orphans) {
		list_for_each_entry(blk, &ps->rtx, node) {
			if (blk->sf >= 0)
				continue;
			i = pstripe_pick(ps, blk->size, true);
			if (i < 0) {
				pending = true;
				break;
			}
			pstripe_sf_give(ps, i, blk);
			r = pstripe_sf_push(ps->sf[i]);
			if (r == -EAGAIN)
				pending = true;
			else if (r < 0)
				pstripe_sf_kill(ps, i, r);
			if (!ps->orphans)
				break;
		}
	}

	if (ps->ack_pending && ps->nlive) {
		i = pstripe_pick_ack(ps);
		if (i >= 0) {
			struct pstripe_subflow *sf = ps->sf[i];
			struct pstripe_blkhdr *bh = (void *)sf->abuf;

			bh->seq = htonl(ps->rcv_seq);
			bh->len = htonl(PSTRIPE_LEN_ACK);
			sf->alen = sizeof(*bh);
			sf->aoff = 0;
			WRITE_ONCE(sf->busy, true);
			ps->ack_sent = ps->rcv_seq;
			ps->ack_pending = false;
			r = pstripe_sf_push(sf);
			if (r == -EAGAIN)
				pending = true;
			else if (r < 0)
				pstripe_sf_kill(ps, i, r);
		} else {
			pending = true;
		}
	}

	if (pstripe_tail(ps))
		pending = true;

	/*
	 * TCP FINs only when nothing can need a subflow any more: our
	 * end-of-stream block acknowledged, the peer's delivered and
	 * acknowledged.
	 */
	if (ps->snd_fin && ps->fin_queued && list_empty(&ps->rtx) &&
	    READ_ONCE(ps->rcv_eof) && !ps->ack_pending &&
	    ps->ack_sent == ps->rcv_seq) {
		for (i = 0; i < ps->nsf; i++) {
			struct pstripe_subflow *sf = ps->sf[i];

			if (!pstripe_sf_live(sf) || sf->fin_sent || sf->busy)
				continue;
			kernel_sock_shutdown(sf->sock, SHUT_WR);
			WRITE_ONCE(sf->fin_sent, true);
		}
	}
	WRITE_ONCE(ps->snd_pending, pending);
	/*
	 * An ack written to a subflow whose path is gone is lost with it:
	 * the stale check must watch that subflow even when we have no
	 * block of our own in flight (it runs while data is outstanding).
	 */
	if (ack_sent != ps->ack_sent && !ps->closing &&
	    !delayed_work_pending(&ps->work))
		queue_delayed_work(pstripe_wq, &ps->work,
				   max_t(unsigned long,
					 pstripe_stale_jiffies(ps_sk(ps)) / 4, 1));
}

/* Queue the end-of-stream block (shutdown(SHUT_WR), close()). */
static void pstripe_queue_fin(struct pstripe_sock *ps)
{
	struct pstripe_blkhdr *bh;
	struct pstripe_blk *blk;

	if (ps->fallback || ps->fin_queued)
		return;
	blk = kzalloc(struct_size(blk, data, sizeof(*bh)), GFP_KERNEL);
	if (!blk)
		return;		/* the subflows' FINs still end the stream */
	bh = (struct pstripe_blkhdr *)blk->data;
	blk->seq = ps->snd_seq++;
	blk->size = sizeof(*bh);
	blk->sf = -1;
	blk->copy = -1;
	bh->seq = htonl(blk->seq);
	bh->len = htonl(PSTRIPE_LEN_FIN);
	list_add_tail(&blk->node, &ps->rtx);
	WRITE_ONCE(ps->rtx_bytes, ps->rtx_bytes + blk->size);
	WRITE_ONCE(ps->rtx_cnt, ps->rtx_cnt + 1);
	WRITE_ONCE(ps->orphans, ps->orphans + 1);
	ps->fin_queued = true;
}

static void pstripe_release_subflows(struct pstripe_sock *ps)
{
	int i;

	for (i = 0; i < PSOCK_STREAM_CNT_LIMIT; i++) {
		if (ps->sf[i]) {
			pstripe_sf_drop_pull(ps, ps->sf[i]);
			pstripe_sf_free(ps->sf[i]);
			ps->sf[i] = NULL;
		}
	}
	ps->nsf = 0;
	ps->nlive = 0;
}

/* Blocks kept for the peer and blocks received ahead: gone with the socket. */
static void pstripe_free_blocks(struct pstripe_sock *ps)
{
	struct pstripe_blk *blk, *tmp;

	list_for_each_entry_safe(blk, tmp, &ps->rtx, node) {
		list_del(&blk->node);
		kfree(blk);
	}
	list_for_each_entry_safe(blk, tmp, &ps->ooo, node) {
		list_del(&blk->node);
		pstripe_rblk_free(ps, blk);
	}
	ps->rtx_bytes = 0;
	ps->rtx_cnt = 0;
	ps->orphans = 0;
	ps->ooo_cnt = 0;
}

/*
 * No progress for stale_timeout_ms while TCP has data to deliver: the path
 * is gone (link down, everything dropped).  TCP itself would retry for
 * many minutes.
 */
static void pstripe_check_subflows(struct pstripe_sock *ps)
{
	unsigned long stale = pstripe_stale_jiffies(ps_sk(ps));
	bool outstanding = false, waiting;
	int i;

	for (i = 0; i < ps->nsf; i++) {
		struct pstripe_subflow *sf = ps->sf[i];
		struct sock *ssk;
		struct tcp_sock *tp;
		u32 una;

		if (!pstripe_sf_live(sf))
			continue;
		ssk = sf->sock->sk;
		tp = tcp_sk(ssk);
		/* Reset: what it received is read first (parse kills it). */
		if (READ_ONCE(ssk->sk_err)) {
			if (!pstripe_sf_readable_data(sf))
				pstripe_sf_kill(ps, i, -READ_ONCE(ssk->sk_err));
			continue;
		}
		/*
		 * Stuck means data not acknowledged and no ack for it: in
		 * flight, or queued while the peer's window is open (a route
		 * gone with its link keeps TCP from sending anything), or
		 * behind a closed window whose probes go unanswered.  A peer
		 * that closed its window (not reading) answers the probes,
		 * and each answer clears icsk_probes_out: not stuck.  The
		 * clock starts when this check first sees such data: a
		 * subflow that was idle since the last check is not late.
		 */
		una = READ_ONCE(tp->snd_una);
		waiting = READ_ONCE(tp->packets_out) ||
			  (READ_ONCE(tp->write_seq) != una &&
			   (READ_ONCE(tp->snd_wnd) ||
			    READ_ONCE(inet_csk(ssk)->icsk_probes_out)));
		if (!waiting || una != sf->last_una || !sf->in_flight) {
			sf->last_una = una;
			sf->progress_at = jiffies;
			sf->in_flight = waiting;
			if (waiting)
				outstanding = true;
			continue;
		}
		if (time_after_eq(jiffies, sf->progress_at + stale)) {
			pstripe_sf_kill(ps, i, -ETIMEDOUT);
			continue;
		}
		outstanding = true;
	}
	if (outstanding || ps->rtx_cnt)
		queue_delayed_work(pstripe_wq, &ps->work,
				   max_t(unsigned long, stale / 4, 1));
}

/*
 * Read the header at the head of subflow @i unless one is known; acks
 * are taken on the way.  0 when a header is known or nothing more can be
 * read now (the subflow may have been killed); <0 a protocol error.
 */
static int pstripe_sf_parse(struct pstripe_sock *ps, int i)
{
	struct pstripe_subflow *sf = ps->sf[i];
	struct pstripe_blkhdr *bh;
	u32 seq, len;
	s32 d;
	int r;

	while (pstripe_sf_live(sf) && !sf->hdr_valid && !sf->eof) {
		r = pstripe_sf_recv(sf, sf->hdr + sf->hdr_got,
				    sizeof(sf->hdr) - sf->hdr_got, 0);
		if (r == -EAGAIN)
			return 0;
		if (r < 0) {
			pstripe_sf_kill(ps, i, r);
			return 0;
		}
		if (r == 0) {
			if (sf->hdr_got)
				return -EPROTO;
			WRITE_ONCE(sf->eof, true);
			return 0;
		}
		sf->hdr_got += r;
		if (sf->hdr_got < sizeof(sf->hdr))
			continue;
		sf->hdr_got = 0;
		bh = (struct pstripe_blkhdr *)sf->hdr;
		seq = ntohl(bh->seq);
		len = ntohl(bh->len);
		if (len == PSTRIPE_LEN_ACK) {
			r = pstripe_got_ack(ps, seq);
			if (r)
				return r;
			continue;
		}
		if (len != PSTRIPE_LEN_FIN && (!len || len > PSTRIPE_BLK_MAX))
			return -EPROTO;
		d = seq - ps->rcv_seq;
		if (d >= PSTRIPE_WIN_BLKS || d < -PSTRIPE_WIN_BLKS)
			return -EPROTO;		/* out of the window */
		sf->blk_seq = seq;
		sf->blk_fin = len == PSTRIPE_LEN_FIN;
		sf->blk_len = sf->blk_fin ? 0 : len;
		sf->blk_rem = sf->blk_len;
		sf->dup = d < 0;
		WRITE_ONCE(sf->hdr_valid, true);
		/* As BlocksSent: data blocks, not the end of the stream. */
		if (!sf->blk_fin)
			pstripe_mib_inc(sock_net(ps_sk(ps)),
					PSTRIPE_MIB_BLOCKS_RECEIVED);
	}
	return 0;
}

/* ---- handshake messages ---- */

static void pstripe_hello_fill(struct pstripe_sock *ps, struct pstripe_hello *h,
			       int type)
{
	memset(h, 0, sizeof(*h));
	h->magic = htonl(PSTRIPE_MAGIC);
	h->version = PSTRIPE_VERSION;
	h->type = type;
	h->rcmd = ps->rcmd_stream_cnt;
	h->max = ps->max_stream_cnt;
	h->driver = ps->driver;
}

/* Do the first @len bytes of @buf agree with a message of @type? */
static bool pstripe_hello_prefix(const u8 *buf, int len, int type)
{
	u8 want[6];
	__be32 magic = htonl(PSTRIPE_MAGIC);

	memcpy(want, &magic, 4);
	want[4] = PSTRIPE_VERSION;
	want[5] = type;
	return !memcmp(buf, want, min_t(int, len, sizeof(want)));
}

static bool pstripe_hello_sane(const struct pstripe_hello *h)
{
	return h->rcmd >= 1 && h->rcmd <= PSOCK_STREAM_CNT_LIMIT &&
	       h->max >= 1 && h->max <= PSOCK_STREAM_CNT_LIMIT &&
	       h->driver <= PSOCK_DRIVER_MAX;
}

/* The seed paper's rule; the driver is round-robin only if both ask. */
static void pstripe_negotiate(struct pstripe_sock *ps,
			      const struct pstripe_hello *peer)
{
	int n = max_t(int, ps->rcmd_stream_cnt, peer->rcmd);

	n = min_t(int, n, ps->max_stream_cnt);
	ps->stream_cnt = min_t(int, n, peer->max);
	ps->neg_driver = min_t(int, ps->driver, peer->driver);
}

/* ---- client ---- */

static void pstripe_connect_fail(struct pstripe_sock *ps, int err)
{
	struct sock *sk = ps_sk(ps);

	if (err == -EPROTO)
		pstripe_mib_inc(sock_net(sk), PSTRIPE_MIB_HANDSHAKE_FAILS);
	WRITE_ONCE(sk->sk_err, -err);
	pstripe_release_subflows(ps);
	pstripe_set_state(sk, TCP_CLOSE);
	pstripe_wake(sk);
}

static void pstripe_established(struct pstripe_sock *ps)
{
	struct sock *sk = ps_sk(ps);

	if (ps->fallback) {
		ps->stream_cnt = 1;
		ps->neg_driver = PSOCK_DRIVER_POLL_ALL;
		pstripe_mib_inc(sock_net(sk), PSTRIPE_MIB_FALLBACKS);
	}
	/* A child keeps the socket it was made with until accept(). */
	pstripe_mib_inc(sock_net(sk), ps->csock ? PSTRIPE_MIB_PASSIVE_OPENS :
						  PSTRIPE_MIB_ACTIVE_OPENS);
	ps->rcv_cur = -1;
	ps->nlive = ps->nsf;
	pstripe_set_state(sk, TCP_ESTABLISHED);
	pstripe_wake(sk);
}

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

/*
 * The addresses the data subflows connect to: dst[0] is the server's
 * (or the control peer's) and port of the server hello, then the
 * announced ones.  Returns how many, or an error.
 */
static int pstripe_data_addrs(struct pstripe_sock *ps,
			      const struct pstripe_hello *msgs,
			      struct sockaddr_storage *dst, int *dlen)
{
	const struct pstripe_hello *h = &msgs[0];
	struct sock *sk = ps_sk(ps);
	int len, i;

	len = kernel_getpeername(ps->sf[0]->sock, (struct sockaddr *)&dst[0]);
	if (len < 0)
		return len;
	*dlen = len;
	pstripe_addr_to_ss(sk, h->family, h->addr, h->port, &dst[0]);
	for (i = 1; i <= h->n; i++) {
		dst[i] = dst[0];
		pstripe_addr_to_ss(sk, msgs[i].family, msgs[i].addr,
				   msgs[i].port ? msgs[i].port : h->port,
				   &dst[i]);
	}
	return 1 + h->n;
}

/*
 * Data subflow i goes to dst[i % ndst]; from src[i % nsrc] when the client
 * added source addresses (src[0] is the control subflow's), from the
 * control subflow's address when it goes where the control subflow goes,
 * and otherwise from whatever address routing picks.
 */
static int pstripe_open_data_subflows(struct pstripe_sock *ps,
				      const struct pstripe_hello *msgs)
{
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
	nsrc = 1 + ps->nladdr;
	/* Source addresses: any port. */
	pstripe_addr_to_ss(sk, 0, NULL, 0, &src[0]);
	for (i = 1; i < nsrc; i++) {
		src[i] = src[0];
		pstripe_addr_to_ss(sk, ps->laddr[i - 1].family,
				   ps->laddr[i - 1].addr, 0, &src[i]);
	}

	for (i = 1; i < ps->stream_cnt; i++) {
		struct pstripe_subflow *sf = pstripe_sf_create(sk, i, &err);
		int d = i % ndst, s = i % nsrc;

		if (!sf)
			goto out;
		ps->sf[i] = sf;
		ps->nsf = i + 1;
		pstripe_mib_inc(sock_net(sk), PSTRIPE_MIB_SUBFLOWS_OPENED);
		err = 0;
		if (nsrc > 1)
			err = kernel_bind(sf->sock,
					  (struct sockaddr_unsized *)&src[s],
					  slen);
		else if (!d)
			err = kernel_bind(sf->sock,
					  (struct sockaddr_unsized *)&src[0],
					  slen);
		if (err)
			goto out;
		err = kernel_connect(sf->sock,
				     (struct sockaddr_unsized *)&dst[d], dlen,
				     O_NONBLOCK);
		if (err && err != -EINPROGRESS)
			goto out;
	}
	err = 0;
out:
	kfree(dst);
	return err;
}

/* An address message must name an address of the socket's family. */
static bool pstripe_addr_msg_sane(struct pstripe_sock *ps,
				  const struct pstripe_hello *m, int index)
{
	if (!pstripe_hello_prefix((const u8 *)m, sizeof(*m), PSTRIPE_MSG_ADDR) ||
	    m->index != index)
		return false;
	if (m->family == 4)
		return true;
	return m->family == 6 && ps_sk(ps)->sk_family == AF_INET6;
}

/*
 * The server hello and its @msgs[0].n address messages are all there:
 * consume them, answer, then open the data subflows.
 */
static int pstripe_client_hello(struct pstripe_sock *ps,
				struct pstripe_hello *msgs)
{
	struct pstripe_subflow *sf0 = ps->sf[0];
	struct pstripe_hello *h = &msgs[0], c;
	int r, i, len = (1 + h->n) * sizeof(*h);

	r = pstripe_sf_recv(sf0, msgs, len, 0);
	if (r != len)
		return r < 0 ? r : -EPROTO;
	if (!pstripe_hello_sane(h))
		return -EPROTO;
	for (i = 1; i <= h->n; i++)
		if (!pstripe_addr_msg_sane(ps, &msgs[i], i))
			return -EPROTO;
	pstripe_negotiate(ps, h);
	ps->token = be64_to_cpu(h->token);

	pstripe_hello_fill(ps, &c, PSTRIPE_MSG_CHELLO);
	c.n = ps->stream_cnt;
	c.token = h->token;
	r = pstripe_sf_send(sf0, &c, sizeof(c), 0);
	if (r != sizeof(c))
		return r < 0 ? r : -EPROTO;
	if (ps->stream_cnt == 1)
		return 0;
	ps->phase = PSTRIPE_PH_JOIN;
	return pstripe_open_data_subflows(ps, msgs);
}

static void pstripe_fallback(struct pstripe_sock *ps)
{
	ps->fallback = true;
	pstripe_established(ps);
}

/*
 * The hello timeout expired with nothing received: plain TCP, but if the
 * server speaks PSOCK its hello is on the way.  That hello is consumed
 * when it comes (pstripe_late_hello()), and the server learns of the
 * fallback, so that both ends agree.
 */
static void pstripe_fallback_late(struct pstripe_sock *ps)
{
	WRITE_ONCE(ps->late_hello, true);
	pstripe_fallback(ps);
}

static void pstripe_late_done(struct pstripe_sock *ps)
{
	WRITE_ONCE(ps->late_need, 0);
	WRITE_ONCE(ps->late_hello, false);
}

/*
 * After pstripe_fallback_late(), at the first bytes of the server: a whole
 * server hello (with its address messages) is consumed and, unless the
 * application has sent something already (the server then took the
 * connection for plain TCP at that data), answered with a client hello of
 * n = 0: "I fell back".  Anything else is the application's.  0: go on,
 * -EAGAIN: part of a hello is there, not all of it.
 */
static int pstripe_late_hello(struct pstripe_sock *ps)
{
	struct pstripe_hello msgs[1 + PSOCK_ADDR_MAX], c;
	struct pstripe_subflow *sf0 = ps->sf[0];
	int r, len = sizeof(msgs[0]);

	sock_owned_by_me(ps_sk(ps));
	if (!ps->late_hello)
		return 0;
	r = pstripe_sf_recv(sf0, msgs, sizeof(msgs), MSG_PEEK);
	if (r == -EAGAIN)
		return 0;
	if (r <= 0 ||
	    !pstripe_hello_prefix((u8 *)msgs, r, PSTRIPE_MSG_SHELLO) ||
	    (r >= len && msgs[0].n > PSOCK_ADDR_MAX))
		goto done;
	if (r >= len)
		len = (1 + msgs[0].n) * sizeof(msgs[0]);
	if (r < len) {
		WRITE_ONCE(ps->late_need, len);
		return -EAGAIN;
	}
	r = pstripe_sf_recv(sf0, msgs, len, 0);
	if (r != len)
		return r < 0 ? r : -EPROTO;
	if (!ps->plain_sent) {
		pstripe_hello_fill(ps, &c, PSTRIPE_MSG_CHELLO);
		c.n = 0;
		c.token = msgs[0].token;
		r = pstripe_sf_send(sf0, &c, sizeof(c), 0);
		if (r != sizeof(c))
			return r < 0 ? r : -EPROTO;
	}
done:
	pstripe_late_done(ps);
	return 0;
}

/* Lockless (poll, sk_wait_event): is all of a late hello seen in part there? */
static bool pstripe_late_ready(const struct pstripe_sock *ps)
{
	const struct sock *ssk = ps->sf[0]->sock->sk;
	const struct tcp_sock *tp = tcp_sk(ssk);
	u32 need = READ_ONCE(ps->late_need);

	return !need ||
	       READ_ONCE(tp->rcv_nxt) - READ_ONCE(tp->copied_seq) >= need ||
	       (READ_ONCE(ssk->sk_shutdown) & RCV_SHUTDOWN) ||
	       READ_ONCE(ssk->sk_err);
}

static void pstripe_connect_work(struct pstripe_sock *ps)
{
	struct pstripe_subflow *sf0 = ps->sf[0];
	struct sock *sk = ps_sk(ps);
	struct pstripe_hello h, msgs[1 + PSOCK_ADDR_MAX];
	u8 probe = PSTRIPE_PROBE;
	int st, r, i, done;

	switch (ps->phase) {
	case PSTRIPE_PH_TCP:
		st = pstripe_sf_state(sf0);
		if (st == TCP_SYN_SENT || st == TCP_SYN_RECV)
			return;
		if (st != TCP_ESTABLISHED && st != TCP_CLOSE_WAIT) {
			r = sock_error(sf0->sock->sk);
			pstripe_connect_fail(ps, r ? r : -ECONNREFUSED);
			return;
		}
		/*
		 * One urgent byte says "I speak PSOCK": a plain TCP server
		 * never sees it in its stream (unless it set SO_OOBINLINE).
		 */
		r = pstripe_sf_send(sf0, &probe, 1, MSG_OOB);
		if (r != 1) {
			pstripe_connect_fail(ps, r < 0 ? r : -EPROTO);
			return;
		}
		ps->phase = PSTRIPE_PH_SHELLO;
		ps->deadline = jiffies + pstripe_hello_jiffies(sk);
		fallthrough;
	case PSTRIPE_PH_SHELLO:
		r = pstripe_sf_recv(sf0, msgs, sizeof(msgs), MSG_PEEK);
		if (r == 0 || (r > 0 && !pstripe_hello_prefix((u8 *)msgs, r,
							      PSTRIPE_MSG_SHELLO))) {
			/* The server spoke first, or closed: plain TCP. */
			pstripe_fallback(ps);
			return;
		}
		if (r >= (int)sizeof(h) && msgs[0].n > PSOCK_ADDR_MAX) {
			pstripe_connect_fail(ps, -EPROTO);
			return;
		}
		if (r >= (int)sizeof(h) &&
		    r >= (1 + msgs[0].n) * (int)sizeof(h)) {
			r = pstripe_client_hello(ps, msgs);
			if (r) {
				pstripe_connect_fail(ps, r);
				return;
			}
			if (ps->stream_cnt == 1) {
				pstripe_established(ps);
				return;
			}
			break;
		}
		if (r < 0 && r != -EAGAIN) {
			pstripe_connect_fail(ps, r);
			return;
		}
		if (time_after_eq(jiffies, ps->deadline)) {
			pstripe_fallback_late(ps);
			return;
		}
		queue_delayed_work(pstripe_wq, &ps->work,
				   ps->deadline - jiffies);
		return;
	case PSTRIPE_PH_JOIN:
		break;
	}

	/* PSTRIPE_PH_JOIN: each data subflow sends its join once connected. */
	done = 0;
	for (i = 1; i < ps->nsf; i++) {
		struct pstripe_subflow *sf = ps->sf[i];

		if (sf->join_sent) {
			done++;
			continue;
		}
		st = pstripe_sf_state(sf);
		if (st == TCP_SYN_SENT)
			continue;
		if (st != TCP_ESTABLISHED) {
			r = sock_error(sf->sock->sk);
			pstripe_connect_fail(ps, r ? r : -ECONNRESET);
			return;
		}
		pstripe_hello_fill(ps, &h, PSTRIPE_MSG_JOIN);
		h.n = ps->stream_cnt;
		h.index = i;
		h.token = cpu_to_be64(ps->token);
		r = pstripe_sf_send(sf, &h, sizeof(h), 0);
		if (r != sizeof(h)) {
			pstripe_connect_fail(ps, r < 0 ? r : -EPROTO);
			return;
		}
		sf->join_sent = true;
		done++;
	}
	if (done == ps->stream_cnt - 1)
		pstripe_established(ps);
}

/* ---- listener ---- */

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
static void pstripe_child_ready(struct pstripe_sock *lps,
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
static struct pstripe_sock *pstripe_child_adopt(struct pstripe_sock *lps,
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

static void pstripe_pending_plain(struct pstripe_sock *lps,
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

static int pstripe_send_server_hello(struct pstripe_sock *lps,
				     struct pstripe_subflow *sf)
{
	struct pstripe_hello msgs[1 + PSOCK_ADDR_MAX], *h = &msgs[0];
	struct sockaddr_storage ss;
	int r, i, len;

	pstripe_hello_fill(lps, h, PSTRIPE_MSG_SHELLO);
	sf->token = get_random_u64();
	h->token = cpu_to_be64(sf->token);
	r = kernel_getsockname(lps->sf[0]->sock, (struct sockaddr *)&ss);
	if (r < 0)
		return r;
	if (ss.ss_family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

		h->port = sin->sin_port;
		if (sin->sin_addr.s_addr != htonl(INADDR_ANY)) {
			h->family = 4;
			memcpy(h->addr, &sin->sin_addr, 4);
		}
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

		h->port = sin6->sin6_port;
		if (!ipv6_addr_any(&sin6->sin6_addr)) {
			h->family = 6;
			memcpy(h->addr, &sin6->sin6_addr, 16);
		}
	}
	/* The announced addresses follow, one message each. */
	h->n = lps->nladdr;
	for (i = 1; i <= lps->nladdr; i++) {
		const struct pstripe_addr *a = &lps->laddr[i - 1];

		memset(&msgs[i], 0, sizeof(msgs[i]));
		msgs[i].magic = htonl(PSTRIPE_MAGIC);
		msgs[i].version = PSTRIPE_VERSION;
		msgs[i].type = PSTRIPE_MSG_ADDR;
		msgs[i].index = i;
		msgs[i].family = a->family;
		msgs[i].port = a->port ? a->port : h->port;
		memcpy(msgs[i].addr, a->addr, sizeof(a->addr));
	}
	len = (1 + lps->nladdr) * sizeof(*h);
	r = pstripe_sf_send(sf, msgs, len, 0);
	return r == len ? 0 : (r < 0 ? r : -EPROTO);
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

/* The client hello completes a PSOCK connection's control subflow. */
static void pstripe_pending_chello(struct pstripe_sock *lps,
				   struct pstripe_subflow *sf,
				   struct pstripe_reap *reap)
{
	struct pstripe_sock *child;
	struct pstripe_hello h;

	if (pstripe_sf_recv(sf, &h, sizeof(h), 0) != sizeof(h) ||
	    be64_to_cpu(h.token) != sf->token)
		goto refuse;
	if (!h.n) {
		/* The client fell back on its timeout, before our hello. */
		pstripe_pending_plain(lps, sf, reap);
		return;
	}
	if (!pstripe_hello_sane(&h))
		goto refuse;
	child = pstripe_child_adopt(lps, sf);
	if (!child)
		goto refuse;
	pstripe_negotiate(child, &h);
	child->token = sf->token;
	if (h.n != child->stream_cnt) {
		/* Both sides must compute the same count. */
		pstripe_mib_inc(sock_net(ps_sk(lps)),
				PSTRIPE_MIB_HANDSHAKE_FAILS);
		list_add(&child->lnode, &reap->children);
		return;
	}
	if (child->stream_cnt == 1) {
		pstripe_child_ready(lps, child);
		return;
	}
	sf->deadline = jiffies + pstripe_join_jiffies(ps_sk(lps));
	list_add_tail(&child->lnode, &lps->embryos);
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

static void pstripe_listen_work(struct pstripe_sock *lps,
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
		queue_delayed_work(pstripe_wq, &lps->work,
				   PSTRIPE_POLL_JIFFIES);
}

/* Release what a work run or close() collected; no lock held. */
static void pstripe_reap_all(struct pstripe_reap *reap)
{
	struct pstripe_subflow *sf, *tmp;
	struct pstripe_sock *child, *ctmp;

	list_for_each_entry_safe(sf, tmp, &reap->subflows, node) {
		list_del(&sf->node);
		pstripe_sf_free(sf);
	}
	list_for_each_entry_safe(child, ctmp, &reap->children, lnode) {
		list_del_init(&child->lnode);
		sock_release(child->csock);
	}
}

static void pstripe_reap_init(struct pstripe_reap *reap)
{
	INIT_LIST_HEAD(&reap->subflows);
	INIT_LIST_HEAD(&reap->children);
}

/* Children leaving a listener: their subflows must stop waking it. */
static void pstripe_reap_disown(struct pstripe_reap *reap)
{
	struct pstripe_sock *child;
	int i;

	list_for_each_entry(child, &reap->children, lnode) {
		for (i = 0; i < PSOCK_STREAM_CNT_LIMIT; i++)
			if (child->sf[i])
				pstripe_sf_set_owner(child->sf[i],
						     ps_sk(child));
	}
}

static int pstripe_sf_clear(struct pstripe_sock *ps, int i);

static void pstripe_work(struct work_struct *work)
{
	struct pstripe_sock *ps = container_of(to_delayed_work(work),
					       struct pstripe_sock, work);
	struct sock *sk = ps_sk(ps);
	struct pstripe_reap reap;
	int i;

	pstripe_reap_init(&reap);
	lock_sock(sk);
	if (ps->closing)
		goto out;
	pstripe_sync_opts(sk);
	switch (sk->sk_state) {
	case TCP_LISTEN:
		pstripe_listen_work(ps, &reap);
		pstripe_reap_disown(&reap);
		break;
	case TCP_SYN_SENT:
		pstripe_connect_work(ps);
		break;
	case TCP_ESTABLISHED:
		if (ps->fallback) {
			i = pstripe_late_hello(ps);
			if (i && i != -EAGAIN)
				pstripe_abort(ps, -EPROTO);
			break;
		}
		/*
		 * Acks at the subflows' heads (behind copies to drop); dead
		 * subflows; flush.
		 */
		for (i = 0; i < ps->nsf; i++) {
			if (pstripe_sf_clear(ps, i)) {
				pstripe_abort(ps, -EPROTO);
				break;
			}
		}
		pstripe_check_subflows(ps);
		pstripe_push_all(ps);
		pstripe_wake(sk);
		break;
	}
out:
	release_sock(sk);
	pstripe_reap_all(&reap);
}

/* ---- socket calls ---- */

void pstripe_sock_init(struct pstripe_sock *ps)
{
	struct sock *sk = ps_sk(ps);

	INIT_DELAYED_WORK(&ps->work, pstripe_work);
	INIT_LIST_HEAD(&ps->pending);
	INIT_LIST_HEAD(&ps->embryos);
	INIT_LIST_HEAD(&ps->accept_q);
	INIT_LIST_HEAD(&ps->lnode);
	INIT_LIST_HEAD(&ps->rtx);
	INIT_LIST_HEAD(&ps->ooo);
	ps->rcv_cur = -1;
	/*
	 * Blocks stay in the send buffer until the peer acknowledges them:
	 * as much room as TCP's largest send buffer (tcp_wmem[2]).
	 */
	sk->sk_sndbuf = max_t(int, sk->sk_sndbuf,
			      READ_ONCE(sock_net(sk)->ipv4.sysctl_tcp_wmem[2]));
	/* The reorder queue may hold a whole window (pstripe_rblk_alloc()). */
	sk->sk_rcvbuf = max_t(int, sk->sk_rcvbuf, PSTRIPE_RCV_WIN);
}

/* Subflow 0 exists once bind(), listen() or connect() ran. */
static int pstripe_first(struct sock *sk)
{
	struct pstripe_sock *ps = pstripe_sk(sk);
	int err = 0;

	if (ps->sf[0])
		return 0;
	ps->sf[0] = pstripe_sf_create(sk, 0, &err);
	if (!ps->sf[0])
		return err;
	ps->nsf = 1;
	return 0;
}

static int pstripe_bind(struct socket *sock, struct sockaddr_unsized *uaddr,
			int addr_len)
{
	struct sock *sk = sock->sk;
	struct pstripe_sock *ps = pstripe_sk(sk);
	int err;

	lock_sock(sk);
	err = -EINVAL;
	if (sk->sk_state != TCP_CLOSE || ps->sf[0])
		goto out;
	err = pstripe_first(sk);
	if (err)
		goto out;
	err = kernel_bind(ps->sf[0]->sock, uaddr, addr_len);
	if (err)
		pstripe_release_subflows(ps);
out:
	release_sock(sk);
	return err;
}

static int pstripe_listen(struct socket *sock, int backlog)
{
	struct sock *sk = sock->sk;
	struct pstripe_sock *ps = pstripe_sk(sk);
	int err;

	lock_sock(sk);
	err = -EINVAL;
	if (sock->state != SS_UNCONNECTED ||
	    (sk->sk_state != TCP_CLOSE && sk->sk_state != TCP_LISTEN))
		goto out;
	err = pstripe_first(sk);
	if (err)
		goto out;
	pstripe_sync_opts(sk);
	/*
	 * The TCP listener also takes the data subflows of connections in
	 * their handshake: room for a full set per connection.  @backlog
	 * itself bounds the connections waiting for accept().
	 */
	err = kernel_listen(ps->sf[0]->sock,
			    clamp_t(int, backlog, 1, 256) *
			    PSOCK_STREAM_CNT_LIMIT);
	if (err)
		goto out;
	WRITE_ONCE(sk->sk_max_ack_backlog, backlog);
	pstripe_set_state(sk, TCP_LISTEN);
	/* Connections that came in before the callbacks saw them. */
	pstripe_kick(ps);
out:
	release_sock(sk);
	return err;
}

static int pstripe_accept_sk(struct socket *sock, struct socket *newsock,
			     int flags)
{
	struct sock *sk = sock->sk;
	struct pstripe_sock *ps = pstripe_sk(sk), *child;
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct socket *csock;
	struct sock *csk;
	long timeo;
	int err = 0;

	lock_sock(sk);
	if (sk->sk_state != TCP_LISTEN) {
		err = -EINVAL;
		goto out;
	}
	pstripe_sync_opts(sk);
	timeo = sock_rcvtimeo(sk, flags & O_NONBLOCK);
	add_wait_queue(sk_sleep(sk), &wait);
	while (list_empty(&ps->accept_q)) {
		if (sk->sk_state != TCP_LISTEN) {
			err = -EINVAL;
			break;
		}
		if (!timeo) {
			err = -EAGAIN;
			break;
		}
		if (signal_pending(current)) {
			err = sock_intr_errno(timeo);
			break;
		}
		sk_wait_event(sk, &timeo, !list_empty(&ps->accept_q) ||
			      sk->sk_state != TCP_LISTEN, &wait);
	}
	remove_wait_queue(sk_sleep(sk), &wait);
	if (err)
		goto out;
	child = list_first_entry(&ps->accept_q, struct pstripe_sock, lnode);
	list_del_init(&child->lnode);
	WRITE_ONCE(ps->accept_len, ps->accept_len - 1);
	release_sock(sk);

	/* The child's struct sock moves to the socket accept() returns. */
	csk = ps_sk(child);
	csock = child->csock;
	lock_sock(csk);
	child->csock = NULL;
	sock_graft(csk, newsock);
	csock->sk = NULL;
	newsock->state = SS_CONNECTED;
	pstripe_sync_opts(csk);
	release_sock(csk);
	sock_release(csock);
	return 0;
out:
	release_sock(sk);
	return err;
}

/* proto_ops->accept: its arguments differ between kernels (compat.h). */
PSTRIPE_DEFINE_ACCEPT(pstripe_accept)

static int pstripe_connect(struct socket *sock, struct sockaddr_unsized *uaddr,
			   int addr_len, int flags)
{
	struct sock *sk = sock->sk;
	struct pstripe_sock *ps = pstripe_sk(sk);
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	long timeo;
	int err;

	lock_sock(sk);
	switch (sock->state) {
	case SS_CONNECTED:
		err = -EISCONN;
		goto out;
	case SS_CONNECTING:
		err = -EALREADY;
		break;
	default:
		err = -EISCONN;
		if (sk->sk_state != TCP_CLOSE)
			goto out;
		err = -EINVAL;
		if (addr_len < (int)sizeof(uaddr->sa_family))
			goto out;
		err = pstripe_first(sk);
		if (err)
			goto out;
		WRITE_ONCE(sk->sk_err, 0);
		err = kernel_connect(ps->sf[0]->sock, uaddr, addr_len,
				     O_NONBLOCK);
		if (err && err != -EINPROGRESS) {
			pstripe_release_subflows(ps);
			goto out;
		}
		ps->phase = PSTRIPE_PH_TCP;
		ps->fallback = false;
		pstripe_set_state(sk, TCP_SYN_SENT);
		sock->state = SS_CONNECTING;
		pstripe_kick(ps);
		err = -EINPROGRESS;
		break;
	}

	timeo = sock_sndtimeo(sk, flags & O_NONBLOCK);
	if (sk->sk_state == TCP_SYN_SENT) {
		if (!timeo)
			goto out;
		add_wait_queue(sk_sleep(sk), &wait);
		while (sk->sk_state == TCP_SYN_SENT && timeo) {
			if (signal_pending(current)) {
				err = sock_intr_errno(timeo);
				break;
			}
			sk_wait_event(sk, &timeo,
				      sk->sk_state != TCP_SYN_SENT, &wait);
		}
		remove_wait_queue(sk_sleep(sk), &wait);
		if (sk->sk_state == TCP_SYN_SENT)
			goto out;
	}
	if (sk->sk_state == TCP_CLOSE) {
		err = sock_error(sk);
		if (!err)
			err = -ECONNABORTED;
		sock->state = SS_UNCONNECTED;
		goto out;
	}
	sock->state = SS_CONNECTED;
	err = 0;
out:
	release_sock(sk);
	return err;
}

static int pstripe_getname(struct socket *sock, struct sockaddr *uaddr,
			   int peer)
{
	struct sock *sk = sock->sk;
	struct pstripe_sock *ps = pstripe_sk(sk);
	int err;

	lock_sock(sk);
	if (peer && sk->sk_state != TCP_ESTABLISHED) {
		err = -ENOTCONN;
	} else if (ps->sf[0]) {
		err = peer ? kernel_getpeername(ps->sf[0]->sock, uaddr) :
			     kernel_getsockname(ps->sf[0]->sock, uaddr);
	} else {
		release_sock(sk);
#if IS_ENABLED(CONFIG_IPV6)
		if (sk->sk_family == AF_INET6)
			return inet6_getname(sock, uaddr, peer);
#endif
		return inet_getname(sock, uaddr, peer);
	}
	release_sock(sk);
	return err;
}

/* Can recv() make progress?  Lockless for poll(); exact under the lock. */
static bool pstripe_rcv_ready(struct pstripe_sock *ps)
{
	struct sock *sk = ps_sk(ps);
	int i, cur;

	if ((READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN) ||
	    READ_ONCE(ps->rcv_eof))
		return true;
	if (ps->fallback)
		return pstripe_sf_readable(ps->sf[0]) && pstripe_late_ready(ps);
	cur = READ_ONCE(ps->rcv_cur);
	if (cur == PSTRIPE_CUR_OOO)
		return true;
	/*
	 * The current block's subflow, or another one: headers to read,
	 * later blocks to pull, copies to drop, a resent copy of the
	 * current block when its subflow went silent.
	 */
	for (i = 0; i < ps->nsf; i++) {
		if (pstripe_sf_live(ps->sf[i]) &&
		    !READ_ONCE(ps->sf[i]->eof) &&
		    pstripe_sf_readable(ps->sf[i]))
			return true;
	}
	return !READ_ONCE(ps->nlive);
}

static bool pstripe_snd_ready(struct pstripe_sock *ps, size_t payload,
			      bool mark)
{
	struct sock *ssk;
	bool ok = false;
	int i;

	if (ps->fallback) {
		ssk = ps->sf[0]->sock->sk;
		if (sk_stream_is_writeable(ssk))
			return true;
		if (mark)
			set_bit(SOCK_NOSPACE, &ssk->sk_socket->flags);
		return false;
	}
	if (!pstripe_rtx_room(ps, payload) || READ_ONCE(ps->orphans))
		return false;
	if (ps->neg_driver == PSOCK_DRIVER_ROUND_ROBIN)
		return pstripe_sf_usable(ps->sf[READ_ONCE(ps->rr_next)],
					 payload, mark);
	for (i = 0; i < ps->nsf; i++)
		ok |= pstripe_sf_usable(ps->sf[i], payload, mark);
	return ok;
}

/* Every subflow got the peer's FIN. */
static bool pstripe_peer_fin(struct pstripe_sock *ps)
{
	int i;

	if (READ_ONCE(ps->rcv_fin_known))
		return true;
	for (i = 0; i < ps->nsf; i++)
		if (pstripe_sf_live(ps->sf[i]) &&
		    !(READ_ONCE(ps->sf[i]->sock->sk->sk_shutdown) &
		      RCV_SHUTDOWN))
			return false;
	return ps->nsf > 0;
}

static __poll_t pstripe_poll(struct file *file, struct socket *sock,
			     poll_table *wait)
{
	struct sock *sk = sock->sk;
	struct pstripe_sock *ps = pstripe_sk(sk);
	__poll_t mask = 0;
	int state, shutdown;

	sock_poll_wait(file, sock, wait);
	state = inet_sk_state_load(sk);
	shutdown = READ_ONCE(sk->sk_shutdown);
	if (state == TCP_LISTEN)
		return READ_ONCE(ps->accept_len) ? EPOLLIN | EPOLLRDNORM : 0;
	if (READ_ONCE(sk->sk_err))
		mask |= EPOLLERR;
	if (state == TCP_SYN_SENT || state == TCP_SYN_RECV)
		return mask;
	if (state != TCP_ESTABLISHED)
		return mask | EPOLLHUP | EPOLLOUT | EPOLLWRNORM;

	/* As TCP: the peer's FIN counts as RCV_SHUTDOWN. */
	if (READ_ONCE(ps->rcv_eof) || pstripe_peer_fin(ps))
		shutdown |= RCV_SHUTDOWN;
	if (shutdown == SHUTDOWN_MASK)
		mask |= EPOLLHUP;
	if (pstripe_rcv_ready(ps))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (shutdown & RCV_SHUTDOWN)
		mask |= EPOLLIN | EPOLLRDNORM | EPOLLRDHUP;
	if ((shutdown & SEND_SHUTDOWN) ||
	    pstripe_snd_ready(ps, PSTRIPE_BLK_MAX, true))
		mask |= EPOLLOUT | EPOLLWRNORM;
	return mask;
}

/* ---- data ---- */

/* Copy one block of the caller's data to a subflow with room for it. */
static int pstripe_send_block(struct pstripe_sock *ps, struct msghdr *msg)
{
	size_t left = msg_data_left(msg), blen, got;
	struct pstripe_blkhdr *bh;
	struct pstripe_blk *blk;
	int best, err;

	pstripe_push_all(ps);
	if (!ps->nlive)
		return -ECONNRESET;
	blen = min_t(size_t, left, PSTRIPE_BLK_MAX);
	/* Resent blocks first; new ones within the send buffer. */
	if (ps->orphans || !pstripe_rtx_room(ps, blen))
		return -EAGAIN;
	best = pstripe_pick(ps, blen, false);
	if (best < 0)
		return -EAGAIN;
	blk = kmalloc(struct_size(blk, data, sizeof(*bh) + blen), GFP_KERNEL);
	if (!blk)
		return -ENOMEM;
	got = copy_from_iter(blk->data + sizeof(*bh), blen, &msg->msg_iter);
	if (!got) {
		kfree(blk);
		return -EFAULT;
	}
	bh = (struct pstripe_blkhdr *)blk->data;
	blk->seq = ps->snd_seq++;
	blk->size = sizeof(*bh) + got;
	blk->sf = best;
	blk->copy = -1;
	bh->seq = htonl(blk->seq);
	pstripe_mib_inc(sock_net(ps_sk(ps)), PSTRIPE_MIB_BLOCKS_SENT);
	bh->len = htonl(got);
	list_add_tail(&blk->node, &ps->rtx);
	WRITE_ONCE(ps->rtx_bytes, ps->rtx_bytes + blk->size);
	WRITE_ONCE(ps->rtx_cnt, ps->rtx_cnt + 1);
	pstripe_sf_give(ps, best, blk);
	if (ps->neg_driver == PSOCK_DRIVER_ROUND_ROBIN)
		pstripe_rr_advance(ps, best);
	err = pstripe_sf_push(ps->sf[best]);
	if (err == -EAGAIN)
		WRITE_ONCE(ps->snd_pending, true);
	else if (err)
		pstripe_sf_kill(ps, best, err);	/* the block waits for another */
	/* Stale checks run while blocks are unacknowledged. */
	if (!delayed_work_pending(&ps->work))
		pstripe_kick(ps);
	return got;
}

/* A blocking call during connect() waits for its end, as TCP's do. */
static void pstripe_wait_connected(struct sock *sk, long *timeo)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);

	sock_owned_by_me(sk);
	if (sk->sk_state != TCP_SYN_SENT || !*timeo)
		return;
	add_wait_queue(sk_sleep(sk), &wait);
	while (sk->sk_state == TCP_SYN_SENT && *timeo &&
	       !signal_pending(current))
		sk_wait_event(sk, timeo, sk->sk_state != TCP_SYN_SENT, &wait);
	remove_wait_queue(sk_sleep(sk), &wait);
}

static int pstripe_send_plain(struct pstripe_sock *ps, struct msghdr *msg)
{
	struct pstripe_subflow *sf = ps->sf[0];
	unsigned int flags = msg->msg_flags;
	int r;

	msg->msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL;
	r = sock_sendmsg(sf->sock, msg);
	msg->msg_flags = flags;
	if (r > 0) {
		sf->bytes_sent += r;
		ps->plain_sent = true;
	}
	return r ? r : -EAGAIN;
}

static int pstripe_sendmsg(struct socket *sock, struct msghdr *msg, size_t len)
{
	struct sock *sk = sock->sk;
	struct pstripe_sock *ps = pstripe_sk(sk);
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	int flags = msg->msg_flags;
	size_t copied = 0;
	long timeo;
	int err = 0, r;

	if (flags & MSG_OOB)
		return -EOPNOTSUPP;

	lock_sock(sk);
	pstripe_sync_opts(sk);
	timeo = sock_sndtimeo(sk, flags & MSG_DONTWAIT);
	pstripe_wait_connected(sk, &timeo);
	if (sk->sk_state != TCP_ESTABLISHED) {
		/* As TCP: EPIPE when not connected (or the connect error). */
		err = sk->sk_state == TCP_SYN_SENT ? -EAGAIN : -EPIPE;
		if (sk->sk_state == TCP_SYN_SENT && signal_pending(current))
			err = sock_intr_errno(timeo);
		if (sk->sk_state == TCP_CLOSE && sk->sk_err)
			err = sock_error(sk);
		goto out;
	}

	add_wait_queue(sk_sleep(sk), &wait);
	while (msg_data_left(msg)) {
		if (sk->sk_err) {
			err = sock_error(sk);
			break;
		}
		if (sk->sk_shutdown & SEND_SHUTDOWN) {
			err = -EPIPE;
			break;
		}
		r = ps->fallback ? pstripe_send_plain(ps, msg) :
				   pstripe_send_block(ps, msg);
		if (r > 0) {
			copied += r;
			continue;
		}
		if (r != -EAGAIN) {
			err = r;
			break;
		}
		if (!timeo) {
			err = -EAGAIN;
			break;
		}
		if (signal_pending(current)) {
			err = sock_intr_errno(timeo);
			break;
		}
		sk_wait_event(sk, &timeo,
			      pstripe_snd_ready(ps, msg_data_left(msg), true) ||
			      sk->sk_err ||
			      (sk->sk_shutdown & SEND_SHUTDOWN), &wait);
	}
	remove_wait_queue(sk_sleep(sk), &wait);
out:
	release_sock(sk);
	if (copied)
		return copied;
	if (err == -EPIPE && !(flags & MSG_NOSIGNAL))
		send_sig(SIGPIPE, current, 0);
	return err;
}

/* Drop @n bytes of subflow @i: 0 when done, -EAGAIN, or it was killed. */
static int pstripe_sf_drop(struct pstripe_sock *ps, int i, u32 n)
{
	struct pstripe_subflow *sf = ps->sf[i];
	u8 scratch[256];
	int r;

	while (n) {
		r = pstripe_sf_recv(sf, scratch, min_t(u32, n, sizeof(scratch)),
				    0);
		if (r == -EAGAIN)
			return r;
		if (r <= 0) {
			if (r == 0)
				return -EPROTO;	/* FIN inside a block */
			pstripe_sf_kill(ps, i, r);
			return 0;
		}
		n -= r;
		sf->blk_rem -= r;
	}
	return 0;
}

static bool pstripe_ooo_has(struct pstripe_sock *ps, u32 seq)
{
	struct pstripe_blk *blk;

	list_for_each_entry(blk, &ps->ooo, node)
		if (blk->seq == seq)
			return true;
	return false;
}

static int pstripe_sf_pull(struct pstripe_sock *ps, int i);

/*
 * Read the headers at the head of subflow @i, finish a block being copied
 * into the reorder queue and drop the copies of blocks already delivered
 * or kept that come first.  The work does it
 * too, not only the reader: acknowledgements queued behind such a copy
 * must be seen even when nobody reads (the whole stream was read, or the
 * application is busy writing).
 */
static int pstripe_sf_clear(struct pstripe_sock *ps, int i)
{
	struct pstripe_subflow *sf = ps->sf[i];
	int r;

	for (;;) {
		r = pstripe_sf_parse(ps, i);
		if (r || !pstripe_sf_live(sf) || !sf->hdr_valid)
			return r;
		/*
		 * A block half copied into the reorder queue: finish it (a
		 * copy of it may have been delivered meanwhile, and the reader
		 * may be done), it is what hides the rest.
		 */
		if (sf->pull) {
			r = pstripe_sf_pull(ps, i);
			if (r == -EAGAIN || (!r && sf->pull))
				return 0;
			if (r)
				return r;
			continue;
		}
		if (!sf->dup && (s32)(sf->blk_seq - ps->rcv_seq) >= 0 &&
		    !pstripe_ooo_has(ps, sf->blk_seq))
			return 0;
		r = pstripe_sf_drop(ps, i, sf->blk_rem);
		if (r == -EAGAIN)
			return 0;
		if (r || !pstripe_sf_live(sf))
			return r;
		WRITE_ONCE(sf->hdr_valid, false);
	}
}

/*
 * Keep @blk for later unless it is a copy of one delivered or kept, or of
 * the block the reader is taking from a subflow right now: kept, that copy
 * would make pstripe_sf_clear() drop the rest of the one being read, and
 * stay at the head of the queue once the reader has moved on, hiding every
 * later block.
 */
static void pstripe_ooo_add(struct pstripe_sock *ps, struct pstripe_blk *blk)
{
	struct pstripe_blk *pos;

	if ((s32)(blk->seq - ps->rcv_seq) < 0 ||
	    (blk->seq == ps->rcv_seq && ps->rcv_cur >= 0) ||
	    pstripe_ooo_has(ps, blk->seq)) {
		pstripe_rblk_free(ps, blk);
		return;
	}
	list_for_each_entry(pos, &ps->ooo, node) {
		if ((s32)(pos->seq - blk->seq) > 0)
			break;
	}
	list_add_tail(&blk->node, &pos->node);
	ps->ooo_cnt++;
}

/*
 * Block @rcv_seq is at the head of no subflow: copy the block at the head
 * of subflow @i (a later one) into the reorder queue, so that what is
 * behind it comes within reach.  0: progress, -EAGAIN: not now.
 */
static int pstripe_sf_pull(struct pstripe_sock *ps, int i)
{
	struct pstripe_subflow *sf = ps->sf[i];
	struct pstripe_blk *blk = sf->pull;
	bool got = false;
	int r;

	if (!blk) {
		blk = pstripe_rblk_alloc(ps, sf->blk_len);
		if (IS_ERR(blk))
			return PTR_ERR(blk);
		blk->seq = sf->blk_seq;
		blk->fin = sf->blk_fin;
		blk->sf = i;
		sf->pull = blk;
		sf->poff = 0;
	}
	while (sf->blk_rem) {
		r = pstripe_sf_recv(sf, blk->data + sf->poff, sf->blk_rem, 0);
		if (r == -EAGAIN)
			return got ? 0 : r;
		if (r == 0)
			return -EPROTO;		/* FIN inside a block */
		if (r < 0) {
			pstripe_sf_kill(ps, i, r);
			return 0;
		}
		sf->poff += r;
		sf->blk_rem -= r;
		got = true;
	}
	if (blk->fin) {
		ps->rcv_fin_seq = blk->seq;
		WRITE_ONCE(ps->rcv_fin_known, true);
	}
	sf->pull = NULL;
	WRITE_ONCE(sf->hdr_valid, false);
	pstripe_ooo_add(ps, blk);
	return 0;
}

static void pstripe_rcv_next(struct pstripe_sock *ps)
{
	ps->rcv_seq++;
	ps->rcv_off = 0;
	WRITE_ONCE(ps->rcv_cur, -1);
	if ((s32)(ps->rcv_seq - ps->ack_sent) >= PSTRIPE_ACK_EVERY)
		ps->ack_pending = true;
}

/* The end-of-stream block is the next one: the stream is complete. */
static void pstripe_rcv_fin(struct pstripe_sock *ps)
{
	ps->rcv_fin_seq = ps->rcv_seq;
	WRITE_ONCE(ps->rcv_fin_known, true);
	pstripe_rcv_next(ps);
	ps->ack_pending = true;
	WRITE_ONCE(ps->rcv_eof, true);
}

/*
 * Find block @rcv_seq: at the head of the reorder queue, or at the head of
 * a subflow (reading headers, dropping copies of delivered blocks, and
 * moving later blocks into the reorder queue until it shows up).  0: found
 * (or end of stream, @rcv_eof), -EAGAIN: not yet, other: an error.
 */
static int pstripe_rcv_find(struct pstripe_sock *ps)
{
	struct pstripe_blk *blk;
	int i, r, open, wait;
	bool progress;

	do {
		progress = false;
		open = 0;
		wait = -1;
		blk = list_first_entry_or_null(&ps->ooo, struct pstripe_blk,
					       node);
		if (blk && blk->seq == ps->rcv_seq) {
			if (blk->fin) {
				list_del(&blk->node);
				ps->ooo_cnt--;
				pstripe_rblk_free(ps, blk);
				pstripe_rcv_fin(ps);
				return 0;
			}
			WRITE_ONCE(ps->rcv_cur, PSTRIPE_CUR_OOO);
			return 0;
		}
		for (i = 0; i < ps->nsf; i++) {
			struct pstripe_subflow *sf = ps->sf[i];

			r = pstripe_sf_parse(ps, i);
			if (r)
				return r;
			if (!pstripe_sf_live(sf))
				continue;
			if (sf->hdr_valid && !sf->pull &&
			    (sf->dup ||
			     (s32)(sf->blk_seq - ps->rcv_seq) < 0 ||
			     pstripe_ooo_has(ps, sf->blk_seq))) {
				r = pstripe_sf_drop(ps, i, sf->blk_rem);
				if (r && r != -EAGAIN)
					return r;
				if (!r && pstripe_sf_live(sf)) {
					WRITE_ONCE(sf->hdr_valid, false);
					progress = true;
				}
				open++;
				continue;
			}
			if (sf->hdr_valid && !sf->pull &&
			    sf->blk_seq == ps->rcv_seq) {
				if (sf->blk_fin) {
					WRITE_ONCE(sf->hdr_valid, false);
					pstripe_rcv_fin(ps);
					return 0;
				}
				/*
				 * Its payload is not there yet (its path may
				 * be gone): look for a resent copy elsewhere,
				 * and keep the others moving meanwhile.
				 */
				if (pstripe_sf_readable_data(sf)) {
					WRITE_ONCE(ps->rcv_cur, i);
					return 0;
				}
				wait = i;
			}
			if (!sf->eof)
				open++;
		}
		if (progress)
			continue;
		for (i = 0; i < ps->nsf; i++) {
			struct pstripe_subflow *sf = ps->sf[i];

			if (!pstripe_sf_live(sf) || !sf->hdr_valid ||
			    (!sf->pull && sf->blk_seq == ps->rcv_seq))
				continue;
			r = pstripe_sf_pull(ps, i);
			if (!r)
				progress = true;
			else if (r != -EAGAIN)
				return r;
		}
	} while (progress);

	if (wait >= 0) {
		WRITE_ONCE(ps->rcv_cur, wait);
		return 0;
	}
	if (open)
		return -EAGAIN;
	if (!ps->nlive)
		return -ECONNRESET;
	if (ps->ooo_cnt)
		return -EPROTO;	/* a block is missing: the peer broke it */
	/* Every subflow ended without an end-of-stream block. */
	WRITE_ONCE(ps->rcv_eof, true);
	return 0;
}

/* One read step: >0 bytes copied, 0 end of stream, <0 error / -EAGAIN. */
static int pstripe_recv_step(struct pstripe_sock *ps, struct msghdr *msg,
			     int flags)
{
	struct pstripe_subflow *sf;
	struct pstripe_blk *blk;
	size_t count;
	int r, i;

	flags = (flags & MSG_PEEK) | MSG_DONTWAIT;
	if (ps->fallback) {
		r = pstripe_late_hello(ps);
		if (r)
			return r;
		sf = ps->sf[0];
		r = sock_recvmsg(sf->sock, msg, flags);
		if (r > 0 && !(flags & MSG_PEEK))
			sf->bytes_received += r;
		if (!r)
			WRITE_ONCE(ps->rcv_eof, true);
		return r;
	}
again:
	if (ps->rcv_eof)
		return 0;
	if (ps->rcv_cur < 0) {
		r = pstripe_rcv_find(ps);
		if (r)
			return r;
		if (ps->rcv_eof)
			return 0;
	}
	if (ps->rcv_cur == PSTRIPE_CUR_OOO) {
		blk = list_first_entry(&ps->ooo, struct pstripe_blk, node);
		r = copy_to_iter(blk->data + ps->rcv_off,
				 blk->size - ps->rcv_off, &msg->msg_iter);
		if (!r)
			return -EFAULT;
		if (flags & MSG_PEEK)
			return r;
		ps->rcv_off += r;
		if (ps->rcv_off == blk->size) {
			list_del(&blk->node);
			ps->ooo_cnt--;
			pstripe_rblk_free(ps, blk);
			pstripe_rcv_next(ps);
		}
		return r;
	}
	i = ps->rcv_cur;
	sf = ps->sf[i];
	/* A copy of a block partly delivered from a subflow that died. */
	if (sf->blk_len - sf->blk_rem < ps->rcv_off) {
		r = pstripe_sf_drop(ps, i, ps->rcv_off -
					   (sf->blk_len - sf->blk_rem));
		if (r)
			return r;
		if (!pstripe_sf_live(sf))
			goto again;
	}
	count = msg_data_left(msg);
	iov_iter_truncate(&msg->msg_iter, sf->blk_rem);
	r = sock_recvmsg(sf->sock, msg, flags);
	iov_iter_reexpand(&msg->msg_iter, count - (r > 0 ? r : 0));
	if (r == 0)
		return -EPROTO;		/* FIN inside a block */
	if (r < 0 && r != -EAGAIN) {
		pstripe_sf_kill(ps, i, r);
		goto again;
	}
	if (r == -EAGAIN) {
		/* Elsewhere: a resent copy of this block, later blocks. */
		WRITE_ONCE(ps->rcv_cur, -1);
		r = pstripe_rcv_find(ps);
		if (r)
			return r;
		if (ps->rcv_eof || ps->rcv_cur != i)
			goto again;
		return -EAGAIN;
	}
	if (r < 0 || (flags & MSG_PEEK))
		return r;
	sf->bytes_received += r;
	sf->blk_rem -= r;
	ps->rcv_off += r;
	if (!sf->blk_rem) {
		WRITE_ONCE(sf->hdr_valid, false);
		pstripe_rcv_next(ps);
	}
	return r;
}

/* Acknowledge what was delivered before the reader sleeps or returns. */
static void pstripe_ack_now(struct pstripe_sock *ps)
{
	if (ps->fallback || ps_sk(ps)->sk_state != TCP_ESTABLISHED)
		return;
	if (ps->rcv_seq != ps->ack_sent)
		ps->ack_pending = true;
	if (ps->ack_pending)
		pstripe_push_all(ps);
}

static int pstripe_recvmsg(struct socket *sock, struct msghdr *msg,
			   size_t len, int flags)
{
	struct sock *sk = sock->sk;
	struct pstripe_sock *ps = pstripe_sk(sk);
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	int copied = 0, err = 0, target, r;
	long timeo;

	if (flags & (MSG_OOB | MSG_ERRQUEUE))
		return -EOPNOTSUPP;

	lock_sock(sk);
	timeo = sock_rcvtimeo(sk, flags & MSG_DONTWAIT);
	pstripe_wait_connected(sk, &timeo);
	if (sk->sk_state != TCP_ESTABLISHED) {
		err = sk->sk_state == TCP_LISTEN || sk->sk_state == TCP_CLOSE ?
		      -ENOTCONN : -EAGAIN;
		if (sk->sk_state == TCP_SYN_SENT && signal_pending(current))
			err = sock_intr_errno(timeo);
		/* As TCP: a failed connect()'s error, once. */
		if (sk->sk_state == TCP_CLOSE && sk->sk_err)
			err = sock_error(sk);
		goto out;
	}
	pstripe_sync_opts(sk);
	target = sock_rcvlowat(sk, flags & MSG_WAITALL, len);

	add_wait_queue(sk_sleep(sk), &wait);
	while (msg_data_left(msg)) {
		r = pstripe_recv_step(ps, msg, flags);
		if (r > 0) {
			copied += r;
			if (flags & MSG_PEEK)
				break;
			continue;
		}
		if (r == 0)
			break;
		if (r != -EAGAIN) {
			err = r;
			/* Bad input from the peer: reset the connection. */
			if (r == -EPROTO)
				pstripe_abort(ps, r);
			else if (!ps->fallback && !ps->nlive)
				err = sock_error(sk) ? : r;
			break;
		}
		if (copied >= target || (sk->sk_shutdown & RCV_SHUTDOWN))
			break;
		if (!timeo) {
			err = -EAGAIN;
			break;
		}
		if (signal_pending(current)) {
			err = sock_intr_errno(timeo);
			break;
		}
		pstripe_ack_now(ps);
		sk_wait_event(sk, &timeo, pstripe_rcv_ready(ps), &wait);
	}
	remove_wait_queue(sk_sleep(sk), &wait);
	pstripe_ack_now(ps);
out:
	release_sock(sk);
	return copied ? copied : err;
}

static int pstripe_shutdown(struct socket *sock, int how)
{
	struct sock *sk = sock->sk;
	struct pstripe_sock *ps = pstripe_sk(sk);
	int err = 0;

	how++;	/* SHUT_RD (0) -> RCV_SHUTDOWN (1), ... */
	if (!how || (how & ~SHUTDOWN_MASK))
		return -EINVAL;

	lock_sock(sk);
	if (sk->sk_state != TCP_ESTABLISHED) {
		err = -ENOTCONN;
		goto out;
	}
	WRITE_ONCE(sk->sk_shutdown, sk->sk_shutdown | how);
	if (how & SEND_SHUTDOWN) {
		ps->snd_fin = true;
		if (ps->fallback) {
			kernel_sock_shutdown(ps->sf[0]->sock, SHUT_WR);
			ps->sf[0]->fin_sent = true;
		} else {
			pstripe_queue_fin(ps);
			pstripe_push_all(ps);
		}
	}
	pstripe_wake(sk);
out:
	release_sock(sk);
	return err;
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
 * PSTRIPE_GRAVE_SECS, then releases them.  Each holds a reference on its
 * network namespace meanwhile.
 */
#define PSTRIPE_GRAVE_SECS	60
#define PSTRIPE_GRAVE_POLL	(HZ / 10)

static LIST_HEAD(pstripe_graves);
static DEFINE_SPINLOCK(pstripe_graves_lock);
static void pstripe_grave_work(struct work_struct *work);
static DECLARE_DELAYED_WORK(pstripe_grave_dwork, pstripe_grave_work);

static void pstripe_grave_free(struct pstripe_subflow *sf)
{
	struct net *net = sock_net(sf->sock->sk);

	pstripe_sf_free(sf);
	put_net(net);
}

/* Drain one subflow: true once it can go. */
static bool pstripe_grave_drain(struct pstripe_subflow *sf)
{
	u8 scratch[256];
	int r;

	if (time_after_eq(jiffies, sf->deadline))
		return true;
	do {
		r = pstripe_sf_recv(sf, scratch, sizeof(scratch), 0);
	} while (r > 0);
	return r != -EAGAIN;
}

static void pstripe_grave_work(struct work_struct *work)
{
	struct pstripe_subflow *sf, *tmp;
	LIST_HEAD(todo);
	LIST_HEAD(done);

	spin_lock_bh(&pstripe_graves_lock);
	list_splice_init(&pstripe_graves, &todo);
	spin_unlock_bh(&pstripe_graves_lock);
	list_for_each_entry_safe(sf, tmp, &todo, node)
		if (pstripe_grave_drain(sf))
			list_move(&sf->node, &done);
	list_for_each_entry_safe(sf, tmp, &done, node) {
		list_del(&sf->node);
		pstripe_grave_free(sf);
	}
	spin_lock_bh(&pstripe_graves_lock);
	list_splice(&todo, &pstripe_graves);
	if (!list_empty(&pstripe_graves))
		queue_delayed_work(pstripe_wq, &pstripe_grave_dwork,
				   PSTRIPE_GRAVE_POLL);
	spin_unlock_bh(&pstripe_graves_lock);
}

/* Hand a closed connection's subflow to the graveyard. */
static void pstripe_grave_add(struct pstripe_subflow *sf)
{
	pstripe_sf_detach(sf);
	kernel_sock_shutdown(sf->sock, SHUT_WR);
	get_net(sock_net(sf->sock->sk));
	sf->deadline = jiffies + PSTRIPE_GRAVE_SECS * HZ;
	spin_lock_bh(&pstripe_graves_lock);
	list_add_tail(&sf->node, &pstripe_graves);
	queue_delayed_work(pstripe_wq, &pstripe_grave_dwork, PSTRIPE_GRAVE_POLL);
	spin_unlock_bh(&pstripe_graves_lock);
}

/* Module exit: nothing may stay. */
static void pstripe_grave_flush(void)
{
	struct pstripe_subflow *sf, *tmp;
	LIST_HEAD(todo);

	cancel_delayed_work_sync(&pstripe_grave_dwork);
	spin_lock_bh(&pstripe_graves_lock);
	list_splice_init(&pstripe_graves, &todo);
	spin_unlock_bh(&pstripe_graves_lock);
	list_for_each_entry_safe(sf, tmp, &todo, node) {
		list_del(&sf->node);
		pstripe_grave_free(sf);
	}
}

/* Bytes of @sf's block and ack not yet in TCP. */
static u32 pstripe_sf_unsent(const struct pstripe_subflow *sf)
{
	return (sf->cur ? sf->cur->size - sf->soff : 0) + sf->alen - sf->aoff;
}

/*
 * Last chance for what TCP had no room for: let TCP queue it beyond
 * SO_SNDBUF, as data already accepted by send() must reach the peer.
 * Blocks that wait for a subflow (of one that died, the end-of-stream
 * block) go to the first subflow alive.  Nothing is resent after close().
 */
static void pstripe_flush_final(struct pstripe_sock *ps)
{
	struct pstripe_blk *blk;
	int i, first = -1;
	u32 orphan_bytes = 0;

	list_for_each_entry(blk, &ps->rtx, node)
		if (blk->sf < 0)
			orphan_bytes += blk->size;
	for (i = 0; i < ps->nsf; i++) {
		struct pstripe_subflow *sf = ps->sf[i];
		struct sock *ssk;
		u32 more;

		if (!pstripe_sf_live(sf))
			continue;
		more = pstripe_sf_unsent(sf) + 4 * PSTRIPE_BLK_BUF;
		if (first < 0) {
			first = i;
			more += orphan_bytes;
		}
		ssk = sf->sock->sk;
		lock_sock(ssk);
		ssk->sk_userlocks |= SOCK_SNDBUF_LOCK;
		WRITE_ONCE(ssk->sk_sndbuf, ssk->sk_sndbuf + more);
		release_sock(ssk);
		if (pstripe_sf_push(sf))
			pr_debug("close: part of a block not queued\n");
	}
	if (first < 0)
		return;
	list_for_each_entry(blk, &ps->rtx, node) {
		if (blk->sf >= 0)
			continue;
		if (ps->sf[first]->busy)
			break;
		pstripe_sf_give(ps, first, blk);
		if (pstripe_sf_push(ps->sf[first]))
			break;
	}
}

/*
 * Did the application leave data unread?  Acks at the subflows' heads are
 * taken first: they are ours, not the application's.
 */
static bool pstripe_unread(struct pstripe_sock *ps)
{
	struct pstripe_blk *blk;
	int i;

	/*
	 * The whole stream was read: what is left (pieces of blocks from a
	 * subflow that went silent, resent copies) was delivered already.
	 */
	if (ps->rcv_eof)
		return false;

	list_for_each_entry(blk, &ps->ooo, node)
		if (!blk->fin)
			return true;
	for (i = 0; i < ps->nsf; i++) {
		struct pstripe_subflow *sf = ps->sf[i];

		if (!pstripe_sf_live(sf))
			continue;
		if (pstripe_sf_parse(ps, i))
			return true;
		/* The peer's end of stream is not data. */
		if (pstripe_sf_live(sf) && sf->hdr_valid && sf->blk_fin) {
			WRITE_ONCE(sf->hdr_valid, false);
			if (pstripe_sf_parse(ps, i))
				return true;
		}
		if (!pstripe_sf_live(sf))
			continue;
		if (sf->hdr_valid || sf->hdr_got ||
		    (!sf->eof && pstripe_sf_readable_data(sf)))
			return true;
	}
	return false;
}

/*
 * Every data block acknowledged: @rtx empty or holding only our
 * end-of-stream block, the last one queued (blocks leave @rtx in order; a
 * peer that closes without reading to the end never acknowledges it).
 * Lockless: sk_wait_event() evaluates it once after release_sock(), while
 * the work may trim and free the blocks of @rtx, so it reads the count and
 * never a block.
 */
static bool pstripe_data_acked(struct pstripe_sock *ps)
{
	u32 cnt = READ_ONCE(ps->rtx_cnt);

	return !cnt || (ps->fin_queued && cnt == 1);
}

/*
 * close() stays until the peer acknowledged every data block, so that the
 * blocks of a subflow that dies meanwhile are still resent: at most the
 * SO_LINGER time when set, else until no ack came for 4 * stale_timeout_ms
 * (a dead path is found after one or two, its blocks resent and
 * acknowledged after that; a slow transfer keeps making progress); at once
 * when every subflow is gone or a signal is pending.
 */
static void pstripe_close_wait(struct pstripe_sock *ps)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct sock *sk = ps_sk(ps);
	bool linger = sock_flag(sk, SOCK_LINGER);
	long budget, timeo;
	u32 una;

	budget = 4 * pstripe_stale_jiffies(sk);
	timeo = linger ? sk->sk_lingertime : budget;
	una = ps->snd_una;
	add_wait_queue(sk_sleep(sk), &wait);
	while (timeo && !pstripe_data_acked(ps) && ps->nlive &&
	       !signal_pending(current)) {
		sk_wait_event(sk, &timeo,
			      pstripe_data_acked(ps) || !ps->nlive ||
			      ps->snd_una != una, &wait);
		/* Acks still come: the peer is reading, keep waiting. */
		if (!linger && ps->snd_una != una) {
			una = ps->snd_una;
			timeo = budget;
		}
	}
	remove_wait_queue(sk_sleep(sk), &wait);
	/*
	 * Given up with subflows left (not SO_LINGER of 0, which asks for
	 * no wait): the peer went silent.
	 */
	if (!timeo && (!linger || sk->sk_lingertime) && ps->nlive &&
	    !pstripe_data_acked(ps))
		pstripe_mib_inc(sock_net(sk), PSTRIPE_MIB_CLOSE_TIMEOUTS);
}

void pstripe_close(struct sock *sk, long timeout)
{
	struct pstripe_sock *ps = pstripe_sk(sk);
	struct pstripe_sock *child;
	struct pstripe_reap reap;
	bool est;
	int i;

	pstripe_reap_init(&reap);
	lock_sock(sk);
	est = sk->sk_state == TCP_ESTABLISHED;
	if (est && !ps->fallback) {
		pstripe_queue_fin(ps);
		pstripe_push_all(ps);
		pstripe_close_wait(ps);
	}
	ps->closing = true;
	WRITE_ONCE(sk->sk_shutdown, SHUTDOWN_MASK);
	for (i = 0; i < PSOCK_STREAM_CNT_LIMIT; i++)
		if (ps->sf[i])
			pstripe_sf_detach(ps->sf[i]);
	list_splice_init(&ps->pending, &reap.subflows);
	list_splice_init(&ps->embryos, &reap.children);
	list_splice_init(&ps->accept_q, &reap.children);
	WRITE_ONCE(ps->accept_len, 0);
	list_for_each_entry(child, &reap.children, lnode) {
		for (i = 0; i < PSOCK_STREAM_CNT_LIMIT; i++)
			if (child->sf[i])
				pstripe_sf_set_owner(child->sf[i],
						     ps_sk(child));
	}
	pstripe_set_state(sk, TCP_CLOSE);
	release_sock(sk);

	/* Nothing queues the work now; wait for a run in progress. */
	cancel_delayed_work_sync(&ps->work);

	lock_sock(sk);
	if (est && !ps->fallback) {
		bool unread = pstripe_unread(ps);

		pstripe_flush_final(ps);
		/* As TCP: a reset when data was left unread. */
		for (i = 0; !unread && i < ps->nsf; i++) {
			if (pstripe_sf_live(ps->sf[i])) {
				pstripe_sf_drop_pull(ps, ps->sf[i]);
				pstripe_grave_add(ps->sf[i]);
				ps->sf[i] = NULL;
			}
		}
	}
	pstripe_release_subflows(ps);
	pstripe_free_blocks(ps);
	release_sock(sk);
	pstripe_reap_all(&reap);
	pstripe_wake(sk);
	sk_common_release(sk);
}

const struct proto_ops pstripe_stream_ops = {
	.family		= PF_INET,
	.owner		= THIS_MODULE,
	.release	= inet_release,
	.bind		= pstripe_bind,
	.connect	= pstripe_connect,
	.socketpair	= sock_no_socketpair,
	.accept		= pstripe_accept,
	.getname	= pstripe_getname,
	.poll		= pstripe_poll,
	.ioctl		= inet_ioctl,
	.listen		= pstripe_listen,
	.shutdown	= pstripe_shutdown,
	.setsockopt	= sock_common_setsockopt,
	.getsockopt	= sock_common_getsockopt,
	.sendmsg	= pstripe_sendmsg,
	.recvmsg	= pstripe_recvmsg,
	.mmap		= sock_no_mmap,
};

#if IS_ENABLED(CONFIG_IPV6)
const struct proto_ops pstripe6_stream_ops = {
	.family		= PF_INET6,
	.owner		= THIS_MODULE,
	.release	= inet6_release,
	.bind		= pstripe_bind,
	.connect	= pstripe_connect,
	.socketpair	= sock_no_socketpair,
	.accept		= pstripe_accept,
	.getname	= pstripe_getname,
	.poll		= pstripe_poll,
	.ioctl		= inet6_ioctl,
	.listen		= pstripe_listen,
	.shutdown	= pstripe_shutdown,
	.setsockopt	= sock_common_setsockopt,
	.getsockopt	= sock_common_getsockopt,
	.sendmsg	= pstripe_sendmsg,
	.recvmsg	= pstripe_recvmsg,
	.mmap		= sock_no_mmap,
};
#endif

int pstripe_stream_init(void)
{
	pstripe_wq = alloc_workqueue("psock", WQ_UNBOUND, 0);
	return pstripe_wq ? 0 : -ENOMEM;
}

void pstripe_stream_exit(void)
{
	pstripe_grave_flush();
	destroy_workqueue(pstripe_wq);
}

/*
 * Addresses come from the socket itself, not getpeername(): a subflow
 * that went through TIME_WAIT is in TCP_CLOSE, where getpeername() fails,
 * but it still names its ends.
 */
static void pstripe_sf_info(struct sock *sk, struct pstripe_subflow *sf,
			    struct psock_subflow_info *si)
{
	struct sock *ssk = sf->sock->sk;
	struct inet_sock *inet = inet_sk(ssk);
	struct tcp_sock *tp = tcp_sk(ssk);

	memset(si, 0, sizeof(*si));
	si->index = sf->index;
	si->bytes_sent = sf->bytes_sent;
	si->bytes_received = sf->bytes_received;
	si->family = sk->sk_family;
	lock_sock(ssk);
	si->state = ssk->sk_state;
	si->total_retrans = tp->total_retrans;
	si->snd_cwnd = tcp_snd_cwnd(tp);
	si->srtt_us = tp->srtt_us >> 3;
	si->snd_buf = READ_ONCE(ssk->sk_sndbuf);
	si->rcv_buf = READ_ONCE(ssk->sk_rcvbuf);
	si->mark = READ_ONCE(ssk->sk_mark);
	si->priority = READ_ONCE(ssk->sk_priority);
	si->nodelay = !!(tp->nonagle & TCP_NAGLE_OFF);
	si->local_port = ntohs(inet->inet_sport);
	si->remote_port = ntohs(inet->inet_dport);
	memcpy(si->local_addr, &inet->inet_rcv_saddr, 4);
	memcpy(si->remote_addr, &inet->inet_daddr, 4);
#if IS_ENABLED(CONFIG_IPV6)
	if (ssk->sk_family == AF_INET6) {
		memcpy(si->local_addr, &ssk->sk_v6_rcv_saddr, 16);
		memcpy(si->remote_addr, &ssk->sk_v6_daddr, 16);
	}
#endif
	release_sock(ssk);
}

int pstripe_get_info(struct sock *sk, char __user *optval,
		     int __user *optlen, int len)
{
	struct pstripe_sock *ps = pstripe_sk(sk);
	struct psock_subflow_info si;
	struct psock_info info;
	unsigned int copy;
	int i, filled = 0;

	if (len < (int)sizeof(info))
		return -EINVAL;
	if (copy_from_user(&info, optval, sizeof(info)))
		return -EFAULT;
	copy = min_t(unsigned int, info.size_user, sizeof(si));

	lock_sock(sk);
	pstripe_sync_opts(sk);
	info.num = 0;
	for (i = 0; sk->sk_state != TCP_LISTEN && i < ps->nsf; i++)
		info.num += pstripe_sf_live(ps->sf[i]);
	info.size_kernel = sizeof(si);
	info.size_user = copy;
	info.flags = 0;
	info.stream_cnt = 0;
	info.driver = ps->driver;
	if (sk->sk_state == TCP_ESTABLISHED) {
		info.flags |= PSOCK_INFO_ESTABLISHED;
		info.stream_cnt = ps->stream_cnt;
		info.driver = ps->neg_driver;
		if (ps->fallback)
			info.flags |= PSOCK_INFO_FALLBACK;
	}
	for (i = 0; copy && info.num && i < ps->nsf; i++) {
		int off = sizeof(info) + filled * info.size_user;

		/* Entries are size_user bytes apart, as the caller laid out. */
		if (len - off < (int)copy)
			break;
		if (!pstripe_sf_live(ps->sf[i]))
			continue;
		pstripe_sf_info(sk, ps->sf[i], &si);
		if (copy_to_user(optval + off, &si, copy)) {
			release_sock(sk);
			return -EFAULT;
		}
		filled++;
	}
	release_sock(sk);

	len = sizeof(info) + (filled ? (filled - 1) * info.size_user + copy : 0);
	if (copy_to_user(optval, &info, sizeof(info)) || put_user(len, optlen))
		return -EFAULT;
	return 0;
}
