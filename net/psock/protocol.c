// SPDX-License-Identifier: GPL-2.0
/*
 * IPPROTO_PSOCK: one TCP-like byte stream striped over N kernel TCP subflows.
 *
 * Design
 * ------
 * socket(AF_INET or AF_INET6, SOCK_STREAM, IPPROTO_PSOCK) reaches this
 * module through inet_protosw / inet6_protosw entries, as MPTCP does.  The
 * socket the application holds (struct pstripe_sock) owns the TCP subflows
 * that carry its bytes; on the wire only TCP is seen, so IPPROTO_PSOCK never
 * leaves the host.  The module is autoloaded by socket() through the
 * net-pf-2/10-proto-259 aliases.
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
 * (PSTRIPE_WIN_BLKS, and the bytes the peer offered in its hello).
 * Received blocks the socket holds itself (reorder queue, blocks being
 * copied into it) are charged to its sk_rmem_alloc, bounded by sk_rcvbuf
 * (at least pstripe_rcv_win()); a peer that goes past it is reset.
 *
 * Lock order
 * ----------
 *   lock_sock(PSOCK socket)  ->  lock_sock(kernel TCP socket)
 *   lock_sock(PSOCK socket)  ->  pstripe_nl_net.lock (the namespace's
 *                                endpoints, a leaf mutex: netlink.c)
 *
 * A listener never locks a child while holding its own lock: children to
 * be released are collected and released after release_sock(), and
 * accept() drops the listener's lock before it locks the child.
 * A subflow's sk_callback_lock (write_lock_bh() to install, change or
 * restore the callbacks, read_lock_bh() in the callbacks) is taken under
 * the PSOCK socket's lock, never the other way round; under it the
 * callbacks take only leaf spinlocks: the listener's ready-list lock
 * (&pstripe_lstn.lock) and pstripe_graves_lock.  pstripe_graves_lock
 * (spin_lock_bh()) guards the graveyard's lists: close() takes it under
 * the PSOCK socket's lock, the graveyard work alone, a graveyard
 * subflow's events under its sk_callback_lock; nothing is taken under it.
 * Leaf spinlocks too: a namespace's list of sockets
 * (&pstripe_pernet.socks_lock, diag.c), the token table's (token.c) and a server
 * connection's &pstripe_sock.rj_lock (its queue of subflows that
 * rejoined, pm.c), taken under a listener's or the connection's own
 * lock; a listener hands a rejoin to a connection through that queue and
 * never locks the connection.  Likewise an SO_REUSEPORT listener hands a
 * join to the listener of its handshake through that one's
 * &pstripe_lstn.foreign, under the token table's lock (token.c), and
 * never locks the other listener.
 *
 * Teardown
 * --------
 * close() detaches every callback under the lock, its subflows' and the
 * unclassified connections' (so nothing queues the work any more; the
 * subflows left to the graveyard get its callbacks instead), sets
 * @closing, then cancels the work synchronously without the lock and
 * releases the TCP sockets.  Each queued run of the work holds a reference
 * on the socket (pstripe_schedule(), pstripe_kick()).
 *
 * References
 * ----------
 * Every socket holds this module through its struct proto (sk_alloc() takes
 * proto.owner) and ops table, so rmmod is refused while one is open.  The
 * per-netns socket count in /proc/net/protocols ("PSOCK", "PSOCKv6") goes up
 * in ->init and down in ->destroy.
 *
 * Files (the split of net/mptcp): protocol.c (registration, struct proto,
 * the socket calls, the work), subflow.c (subflow creation, callbacks,
 * teardown, the graveyard), sched.c (the drivers), output.c (the send path
 * and resends), input.c (block parsing, reordering, delivery), handshake.c
 * (hellos, the client's handshake), pm.c (addresses, extra subflows),
 * listener.c (the listener), token.c (established connections by token,
 * for rejoins), sockopt.c (SOL_PSOCK options, PSOCK_INFO),
 * ctrl.c (per-netns sysctls net.psock.*), mib.c (/proc/net/psock
 * counters), diag.c (sock_diag: every socket of a namespace for ss-like
 * tools), wire.h (on-wire structures), protocol.h (internal
 * declarations), compat.h (kernel differences).
 */

#include <asm/ioctls.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/poll.h>
#include <linux/random.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/sockios.h>
#include <linux/uio.h>
#include <net/inet_common.h>
#include <net/ipv6.h>
#include <net/protocol.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <net/transp_v6.h>

#include "protocol.h"

struct workqueue_struct *pstripe_wq;

void pstripe_set_state(struct sock *sk, int state)
{
	/* Pairs with inet_sk_state_load() in poll() and the callbacks. */
	smp_store_release(&sk->sk_state, state);
}

unsigned long pstripe_hello_jiffies(const struct sock *sk)
{
	const struct pstripe_pernet *pn = pstripe_get_pernet(sock_net(sk));

	return msecs_to_jiffies(READ_ONCE(pn->hello_timeout_ms));
}

/*
 * How long a client waits for its data subflows to connect, from its
 * client hello: twice the hello timeout, room for one retransmitted SYN
 * (TCP's first retransmission comes after 1 s) at the default of 1 s.
 */
unsigned long pstripe_join_wait_jiffies(const struct sock *sk)
{
	return 2 * pstripe_hello_jiffies(sk);
}

/*
 * How long a server waits for the joins: one hello timeout more than the
 * client waits, for a join sent at the client's deadline to arrive.
 */
unsigned long pstripe_join_jiffies(const struct sock *sk)
{
	return pstripe_join_wait_jiffies(sk) + pstripe_hello_jiffies(sk);
}

/*
 * How long a server waits for the client hello after its server hello:
 * the client may need SYN retransmissions on a loaded machine.
 */
unsigned long pstripe_chello_jiffies(const struct sock *sk)
{
	const struct pstripe_pernet *pn = pstripe_get_pernet(sock_net(sk));

	return pstripe_hello_jiffies(sk) +
	       2 * msecs_to_jiffies(READ_ONCE(pn->stale_timeout_ms));
}

/* Wake every waiter of a PSOCK socket: poll, epoll, blocked calls. */
__pstripe_hot void pstripe_wake(struct sock *sk)
{
	struct socket_wq *wq;

	rcu_read_lock();
	wq = rcu_dereference(sk->sk_wq);
	if (skwq_has_sleeper(wq))
		wake_up_interruptible_all(&wq->wait);
	rcu_read_unlock();
}

/*
 * Every queued run of the work holds a reference on the socket, dropped at
 * the end of the run (or by the close() that cancels it), as MPTCP's
 * worker does: a run never finds the socket freed.  The reference is taken
 * before queueing (the run may start and end at once) and given back when
 * nothing was queued; never the last one: the caller's socket is alive.
 */
__pstripe_hot void pstripe_schedule(struct pstripe_sock *ps,
				    unsigned long delay)
{
	/* Queued already: nothing to do (a send's check, once a message). */
	if (delayed_work_pending(&ps->work))
		return;
	sock_hold(ps_sk(ps));
	if (!queue_delayed_work(pstripe_wq, &ps->work, delay))
		__sock_put(ps_sk(ps));
}

/*
 * Run the work at once.  @kicked says so to a pstripe_schedule_by() that
 * may have moved this run to later meanwhile: it queues it again.
 */
void pstripe_kick(struct pstripe_sock *ps)
{
	WRITE_ONCE(ps->kicked, true);
	smp_mb();	/* @kicked, then the queueing; pstripe_schedule_by() */
	sock_hold(ps_sk(ps));
	/* mod_delayed_work() is false when it queued an idle work. */
	if (mod_delayed_work(pstripe_wq, &ps->work, 0))
		__sock_put(ps_sk(ps));
}

/*
 * Run the work within @delay: sooner than a run already queued for later
 * (mod_delayed_work()), else as queued.  Lockless, as pstripe_kick().
 * Never later than a run queued to start at once: that one has no timer
 * (its expiry is stale, and said later when a run ended with a wait of a
 * second, a join's), and an event that queued it during a run of the work
 * was then acted on only when that wait ran out (setup_test
 * event_during_work_run).  A pstripe_kick() between the look and the
 * mod_delayed_work() here is found in @kicked afterwards.
 */
__pstripe_hot void pstripe_schedule_by(struct pstripe_sock *ps,
				       unsigned long delay)
{
	if (!delay) {
		pstripe_kick(ps);
		return;
	}
	if (delayed_work_pending(&ps->work) &&
	    (!timer_pending(&ps->work.timer) ||
	     time_before_eq(READ_ONCE(ps->work.timer.expires),
			    jiffies + delay)))
		return;
	sock_hold(ps_sk(ps));
	/* mod_delayed_work() is false when it queued an idle work. */
	if (mod_delayed_work(pstripe_wq, &ps->work, delay))
		__sock_put(ps_sk(ps));
	smp_mb();	/* the queueing, then @kicked; pstripe_kick() */
	if (READ_ONCE(ps->kicked))
		pstripe_kick(ps);
}

__pstripe_hot unsigned long pstripe_stale_jiffies(const struct sock *sk)
{
	const struct pstripe_pernet *pn = pstripe_get_pernet(sock_net(sk));

	return msecs_to_jiffies(READ_ONCE(pn->stale_timeout_ms));
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

/*
 * A listener's connections, unclassified (their callbacks detached: they
 * must not wake the listener any more), in their handshake or not yet
 * accepted, to @reap.
 */
static void pstripe_listener_drain(struct pstripe_sock *ps,
				   struct pstripe_reap *reap)
{
	sock_owned_by_me(ps_sk(ps));
	pstripe_listen_drain(ps, reap);
	list_splice_init(&ps->accept_q, &reap->children);
	WRITE_ONCE(ps->accept_len, 0);
	pstripe_reap_disown(reap);
}

/*
 * shutdown(SHUT_RD) of a listener, as TCP's: it stops listening (the TCP
 * listener closes, connections not accepted yet are dropped) and wakes
 * accept(), which fails with EINVAL; listen() may start it again.
 */
static void pstripe_listen_stop(struct pstripe_sock *ps,
				struct pstripe_reap *reap)
{
	struct sock *sk = ps_sk(ps);

	pstripe_listener_drain(ps, reap);
	kernel_sock_shutdown(ps->sf[0]->sock, SHUT_RDWR);
	pstripe_set_state(sk, TCP_CLOSE);
	pstripe_wake(sk);
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
	if (!err)
		err = pstripe_lstn_init(ps);
	if (err)
		goto out;
	pstripe_sync_opts(sk);
	/* As TCP's: SO_REUSEPORT set after bind() counts from listen() on. */
	ps->sf[0]->sock->sk->sk_reuseport = sk->sk_reuseport;
	err = kernel_listen(ps->sf[0]->sock, pstripe_listen_backlog(backlog));
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
	int err = 0, i;

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
	pstripe_listen_accepted(ps);
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
	for (i = 0; i < child->nsf; i++)
		if (child->sf[i])
			pstripe_sf_show_owner(csk, child->sf[i]);
	release_sock(csk);
	sock_release(csock);
	return 0;
out:
	release_sock(sk);
	return err;
}

/* proto_ops->accept: its arguments differ between kernels (compat.h). */
PSTRIPE_DEFINE_ACCEPT(pstripe_accept)

/*
 * An optimistic connect() whose control subflow is no longer connecting:
 * it takes the next step itself (connected, or failed), not waiting for
 * the work to do it and wake it.  Under the socket lock; a subflow's
 * events wake connect() to look (pstripe_sf_event()).
 */
/*
 * An optimistic connect() leaves (a signal, its timeout) with its steps
 * not all taken: the work takes them on.
 */
static void pstripe_conn_unwait(struct pstripe_sock *ps)
{
	if (!ps->conn_waiting)
		return;
	WRITE_ONCE(ps->conn_waiting, false);
	pstripe_kick(ps);
}

static bool pstripe_opt_tcp_up(struct pstripe_sock *ps)
{
	struct pstripe_subflow *sf0 = ps->sf[0];
	int st;

	sock_owned_by_me(ps_sk(ps));
	if (!ps->optimistic || ps->phase != PSTRIPE_PH_TCP || !sf0)
		return false;
	st = pstripe_sf_state(sf0);
	return st != TCP_SYN_SENT && st != TCP_SYN_RECV;
}

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
		/*
		 * An optimistic connect() that waits takes the steps itself,
		 * from the first: TCP's handshake over loopback or a veth
		 * may be done before kernel_connect() returns.
		 */
		WRITE_ONCE(ps->conn_waiting,
			   ps->optimistic && !(flags & O_NONBLOCK));
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
		if (!ps->conn_waiting)
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
			if (pstripe_opt_tcp_up(ps)) {
				pstripe_connect_work(ps);
				continue;
			}
			sk_wait_event(sk, &timeo,
				      sk->sk_state != TCP_SYN_SENT, &wait);
		}
		remove_wait_queue(sk_sleep(sk), &wait);
		if (sk->sk_state == TCP_SYN_SENT) {
			pstripe_conn_unwait(ps);
			goto out;
		}
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
	WRITE_ONCE(ps->conn_waiting, false);
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
	if (peer) {
		/*
		 * As TCP: known from establishment until close(), also
		 * while an optimistic connection turns striped.
		 */
		err = -ENOTCONN;
		if (ps->peer_len && (sk->sk_state == TCP_ESTABLISHED ||
				     pstripe_switching(ps))) {
			memcpy(uaddr, &ps->peer, ps->peer_len);
			err = ps->peer_len;
		}
	} else if (ps->sf[0]) {
		err = kernel_getsockname(ps->sf[0]->sock, uaddr);
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

static bool pstripe_snd_ready(struct pstripe_sock *ps, size_t payload,
			      bool mark)
{
	struct sock *ssk;
	bool ok = false;
	int i;

	if (ps->fallback) {
		ssk = ps->sf[0]->sock->sk;
		if (!pstripe_opt_may_send(ps))
			return false;
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

/* Under rcu_read_lock(): a dead subflow replaced is freed after it. */
static __poll_t pstripe_poll_mask(struct sock *sk)
{
	struct pstripe_sock *ps = pstripe_sk(sk);
	__poll_t mask = 0;
	int state, shutdown;

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
	if (pstripe_rcv_ready(ps) && pstripe_rcv_lowat_met(ps))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (shutdown & RCV_SHUTDOWN)
		mask |= EPOLLIN | EPOLLRDNORM | EPOLLRDHUP;
	if ((shutdown & SEND_SHUTDOWN) ||
	    (pstripe_snd_ready(ps, PSTRIPE_BLK_MAX, true) &&
	     pstripe_notsent_ok(ps, 1)))
		mask |= EPOLLOUT | EPOLLWRNORM;
	return mask;
}

/*
 * EPOLLIN from the lockless look, on a striped connection: is it data, or
 * only the peer's acks at the heads of the subflows?  (Reading them here
 * does what the read would have done.)
 */
static bool pstripe_poll_confirm_in(struct pstripe_sock *ps)
{
	struct sock *sk = ps_sk(ps);
	bool data = true;

	lock_sock(sk);
	if (sk->sk_state == TCP_ESTABLISHED && !ps->fallback &&
	    !sk->sk_err && !(sk->sk_shutdown & RCV_SHUTDOWN))
		data = pstripe_rcv_data(ps);
	release_sock(sk);
	return data;
}

/* Polled for reading first: an optimistic client's probe goes alone. */
static void pstripe_poll_probe(struct pstripe_sock *ps)
{
	lock_sock(ps_sk(ps));
	pstripe_opt_probe(ps);
	release_sock(ps_sk(ps));
}

static __poll_t pstripe_poll(struct file *file, struct socket *sock,
			     poll_table *wait)
{
	__poll_t mask;

	sock_poll_wait(file, sock, wait);
	if (READ_ONCE(pstripe_sk(sock->sk)->opt_probe) &&
	    (poll_requested_events(wait) & (EPOLLIN | EPOLLRDNORM | EPOLLPRI)))
		pstripe_poll_probe(pstripe_sk(sock->sk));
	rcu_read_lock();
	mask = pstripe_poll_mask(sock->sk);
	rcu_read_unlock();
	if ((mask & EPOLLIN) && !(mask & (EPOLLRDHUP | EPOLLERR)) &&
	    !pstripe_poll_confirm_in(pstripe_sk(sock->sk)))
		mask &= ~(EPOLLIN | EPOLLRDNORM);
	return mask;
}

/* A blocking call during connect() waits for its end, as TCP's do. */
static __pstripe_hot void pstripe_wait_connected(struct sock *sk, long *timeo)
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

/*
 * A call's @wait goes on the socket's queue before its first sleep, not at
 * its start: a wake-up while the caller runs then finds nobody to wake.
 * On the queue, @wait took each one (the queue's lock, a try_to_wake_up()
 * of a running task) and was marked woken, so that the next wait returned
 * at once for one more look (bench/psock_rr.sh).  sk_wait_event() checks
 * its condition once more after @wait is on the queue: no event between
 * is missed.
 */
static void pstripe_wait_add(struct sock *sk, struct wait_queue_entry *wait)
{
	if (list_empty(&wait->entry))
		add_wait_queue(sk_sleep(sk), wait);
}

static void pstripe_wait_del(struct sock *sk, struct wait_queue_entry *wait)
{
	if (!list_empty(&wait->entry))
		remove_wait_queue(sk_sleep(sk), wait);
}

/*
 * In a call, an optimistic connection went back to TCP_SYN_SENT while its
 * data subflows join: wait for them as connect() would.  0 once
 * established again, else the error to return.
 */
static int pstripe_wait_switched(struct sock *sk, long *timeo)
{
	pstripe_wait_connected(sk, timeo);
	if (sk->sk_state == TCP_ESTABLISHED)
		return 0;
	if (sk->sk_state == TCP_SYN_SENT)
		return signal_pending(current) ? sock_intr_errno(*timeo) :
						 -EAGAIN;
	return sock_error(sk) ? : -ECONNRESET;
}

static __pstripe_hot int pstripe_sendmsg(struct socket *sock,
					 struct msghdr *msg, size_t len)
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

	while (msg_data_left(msg)) {
		if (sk->sk_err) {
			err = sock_error(sk);
			break;
		}
		if (sk->sk_shutdown & SEND_SHUTDOWN) {
			err = -EPIPE;
			break;
		}
		/* An optimistic connection turning striped (handshake.c). */
		if (sk->sk_state == TCP_SYN_SENT) {
			err = pstripe_wait_switched(sk, &timeo);
			if (err)
				break;
			continue;
		}
		if (!pstripe_notsent_ok(ps, 0))
			r = -EAGAIN;	/* TCP_NOTSENT_LOWAT */
		else
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
		pstripe_wait_add(sk, &wait);
		sk_wait_event(sk, &timeo,
			      (pstripe_snd_ready(ps, msg_data_left(msg), true) &&
			       pstripe_notsent_ok(ps, 0)) ||
			      sk->sk_err || sk->sk_state != TCP_ESTABLISHED ||
			      (sk->sk_shutdown & SEND_SHUTDOWN), &wait);
	}
	pstripe_wait_del(sk, &wait);
out:
	release_sock(sk);
	if (copied)
		return copied;
	if (err == -EPIPE && !(flags & MSG_NOSIGNAL))
		send_sig(SIGPIPE, current, 0);
	return err;
}

/*
 * A reader that slept for a late hello leaves: one that came after its
 * last look (its event did not kick the work) is the work's again.
 */
static void pstripe_rcv_unwait(struct pstripe_sock *ps)
{
	if (!ps->rcv_waiting)
		return;
	WRITE_ONCE(ps->rcv_waiting, false);
	smp_mb();	/* pairs with pstripe_sf_ev_work()'s */
	if (ps->late_hello && ps->sf[0] && pstripe_sf_readable(ps->sf[0]))
		pstripe_kick(ps);
}

static __pstripe_hot int pstripe_recvmsg(struct socket *sock,
					 struct msghdr *msg, size_t len,
					 int flags)
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
	pstripe_opt_probe(ps);	/* reading first: our probe goes alone */
	target = sock_rcvlowat(sk, flags & MSG_WAITALL, len);

	while (msg_data_left(msg)) {
		/* An optimistic connection turning striped (handshake.c). */
		if (sk->sk_state == TCP_SYN_SENT) {
			err = pstripe_wait_switched(sk, &timeo);
			if (err)
				break;
			continue;
		}
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
			else if (!ps->fallback && pstripe_failed(ps))
				err = sock_error(sk) ? : r;
			/*
			 * As TCP: an error (a reset) behind data read in
			 * this call is the next call's, never lost: after
			 * it the subflow reads as the end of the stream.
			 */
			else if (ps->fallback && copied && r != -EFAULT)
				WRITE_ONCE(sk->sk_err, -r);
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
		if (ps->late_hello)
			WRITE_ONCE(ps->rcv_waiting, true);
		pstripe_wait_add(sk, &wait);
		sk_wait_event(sk, &timeo, sk->sk_state != TCP_ESTABLISHED ||
			      pstripe_rcv_ready(ps), &wait);
	}
	pstripe_wait_del(sk, &wait);
	pstripe_rcv_unwait(ps);
	pstripe_ack_now(ps);
out:
	release_sock(sk);
	return copied ? copied : err;
}

static int pstripe_shutdown(struct socket *sock, int how)
{
	struct sock *sk = sock->sk;
	struct pstripe_sock *ps = pstripe_sk(sk);
	struct pstripe_reap reap;
	int err = 0;

	how++;	/* SHUT_RD (0) -> RCV_SHUTDOWN (1), ... */
	if (!how || (how & ~SHUTDOWN_MASK))
		return -EINVAL;

	pstripe_reap_init(&reap);
	lock_sock(sk);
	if (sk->sk_state == TCP_LISTEN) {
		/* As TCP: SHUT_RD stops the listener and wakes accept(). */
		if (how & RCV_SHUTDOWN)
			pstripe_listen_stop(ps, &reap);
		goto out;
	}
	if (pstripe_switching(ps)) {
		long timeo = sock_sndtimeo(sk, false);

		/* Connected already: the end comes after the switch. */
		pstripe_wait_connected(sk, &timeo);
		if (pstripe_switching(ps)) {
			err = signal_pending(current) ? sock_intr_errno(timeo) :
							 -EAGAIN;
			goto out;
		}
	}
	if (sk->sk_state != TCP_ESTABLISHED) {
		err = -ENOTCONN;
		goto out;
	}
	WRITE_ONCE(sk->sk_shutdown, sk->sk_shutdown | how);
	if (how & SEND_SHUTDOWN) {
		ps->snd_fin = true;
		if (ps->fallback) {
			/* No mark can follow our FIN: plain TCP for good. */
			pstripe_opt_plain(ps, "our FIN before a hello");
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
	pstripe_reap_all(&reap);
	return err;
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
 * Fallen back to TCP: is our FIN acknowledged (or the subflow closed)?
 * TCP's own test (sk_stream_closing()), lockless.
 */
static bool pstripe_plain_fin_acked(struct pstripe_sock *ps)
{
	int state = READ_ONCE(ps->sf[0]->sock->sk->sk_state);

	return !((1 << state) & (TCPF_FIN_WAIT1 | TCPF_CLOSING |
				 TCPF_LAST_ACK));
}

/* Nothing left for SO_LINGER's time to wait for. */
static bool pstripe_linger_done(struct pstripe_sock *ps)
{
	if (ps->fallback)
		return pstripe_plain_fin_acked(ps);
	return pstripe_data_acked(ps) || pstripe_failed(ps);
}

/*
 * SO_LINGER with a time: close() waits that long, as TCP's does.
 * @timeout is inet_release()'s: 0 when the process exits.
 */
static void pstripe_linger_wait(struct pstripe_sock *ps, long timeout)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct sock *sk = ps_sk(ps);

	add_wait_queue(sk_sleep(sk), &wait);
	while (timeout && !pstripe_linger_done(ps) && !signal_pending(current))
		sk_wait_event(sk, &timeout, pstripe_linger_done(ps), &wait);
	remove_wait_queue(sk_sleep(sk), &wait);
}

static unsigned long pstripe_bg_budget(const struct sock *sk)
{
	return 4 * pstripe_stale_jiffies(sk);
}

/*
 * Blocks still unacknowledged at close(): the socket is orphaned and its
 * work goes on (pstripe_bg_close_done()), unless the namespace has
 * PSTRIPE_BG_CLOSE_MAX such sockets already (then the subflows are reset,
 * as TCP does with too many orphans).  True when it goes on.
 */
static bool pstripe_close_bg(struct pstripe_sock *ps)
{
	struct sock *sk = ps_sk(ps);
	struct pstripe_pernet *pn = pstripe_get_pernet(sock_net(sk));

	sock_owned_by_me(sk);
	if (pstripe_data_acked(ps) || pstripe_failed(ps))
		return false;
	if (atomic_inc_return(&pn->bg_closes) > PSTRIPE_BG_CLOSE_MAX) {
		atomic_dec(&pn->bg_closes);
		pstripe_mib_inc(sock_net(sk), PSTRIPE_MIB_CLOSE_TIMEOUTS);
		ps->close_rst = true;
		return false;
	}
	WRITE_ONCE(ps->bg_close, true);
	ps->bg_una = ps->snd_una;
	ps->bg_deadline = jiffies + pstripe_bg_budget(sk);
	sock_orphan(sk);
	pstripe_schedule(ps, pstripe_bg_budget(sk));
	return true;
}

/*
 * close() of a striped connection, under the lock: unread data or SO_LINGER
 * {1, 0} reset it; else the end-of-stream block is queued, SO_LINGER's
 * time waited, and what is not acknowledged yet finishes in the
 * background.  True when it does.
 */
static bool pstripe_close_linger(struct pstripe_sock *ps, long timeout)
{
	struct sock *sk = ps_sk(ps);

	if (pstripe_unread(ps) ||
	    (sock_flag(sk, SOCK_LINGER) && !sk->sk_lingertime)) {
		ps->close_rst = true;
		return false;
	}
	pstripe_queue_fin(ps);
	pstripe_push_all(ps);
	if (sock_flag(sk, SOCK_LINGER))
		pstripe_linger_wait(ps, timeout);
	return pstripe_close_bg(ps);
}

/*
 * Bytes of the peer nobody read in fallen-back subflow @sf (its FIN, read
 * or not, is no data): tcp_close() resets the connection for them.
 */
static bool pstripe_plain_unread(const struct pstripe_subflow *sf)
{
	const struct sock *ssk = sf->sock->sk;
	const struct tcp_sock *tp = tcp_sk(ssk);
	u32 n = READ_ONCE(tp->rcv_nxt) - READ_ONCE(tp->copied_seq);

	return n > ((READ_ONCE(ssk->sk_shutdown) & RCV_SHUTDOWN) ? 1 : 0);
}

/*
 * close() of a connection that fell back to TCP, under the lock: what
 * tcp_close() does with its one subflow.  SO_LINGER {1, 0} resets it;
 * with a time, our FIN goes out and close() waits that long for its
 * acknowledgment (not with data left unread: the release resets it).
 * Else TCP finishes the close alone, after the release.
 */
static void pstripe_close_plain(struct pstripe_sock *ps, long timeout)
{
	struct pstripe_subflow *sf = ps->sf[0];
	struct sock *sk = ps_sk(ps);

	if (sock_flag(sk, SOCK_LINGER) && !sk->sk_lingertime) {
		ps->close_rst = true;
		return;
	}
	if (!timeout || !pstripe_sf_live(sf) || pstripe_plain_unread(sf))
		return;
	if (!sf->fin_sent) {
		kernel_sock_shutdown(sf->sock, SHUT_WR);
		sf->fin_sent = true;
	}
	pstripe_linger_wait(ps, timeout);
}

/*
 * The work of an orphaned connection: done once the peer acknowledged
 * every block or every subflow died; reset when the peer sends data
 * nobody will read, or sends no acknowledgment for 4 * stale_timeout_ms
 * (CloseTimeouts).
 */
static bool pstripe_bg_close_done(struct pstripe_sock *ps)
{
	struct sock *sk = ps_sk(ps);

	sock_owned_by_me(sk);
	if (ps->snd_una != ps->bg_una) {
		ps->bg_una = ps->snd_una;
		ps->bg_deadline = jiffies + pstripe_bg_budget(sk);
	}
	if (pstripe_failed(ps) || pstripe_data_acked(ps))
		return true;
	if (pstripe_unread(ps)) {
		ps->close_rst = true;
		return true;
	}
	if (time_after_eq(jiffies, ps->bg_deadline)) {
		pstripe_mib_inc(sock_net(sk), PSTRIPE_MIB_CLOSE_TIMEOUTS);
		ps->close_rst = true;
		return true;
	}
	pstripe_schedule(ps, ps->bg_deadline - jiffies);
	return false;
}

/*
 * The subflows of a closed connection: reset (close_rst), or handed to the
 * graveyard once what is queued was flushed; a subflow left inside a
 * block is reset, so that no FIN follows half a block, and so is a data
 * subflow of a connection still joining (released with linger 0).
 */
static void pstripe_close_subflows(struct pstripe_sock *ps)
{
	bool striped = ps_sk(ps)->sk_state == TCP_ESTABLISHED &&
		       !ps->fallback;
	int i;

	if (striped && !ps->close_rst) {
		pstripe_last_acks(ps);
		pstripe_flush_final(ps);
	}
	if (ps->close_rst && ps->nlive)
		pstripe_mib_inc(sock_net(ps_sk(ps)), PSTRIPE_MIB_ABORTS);
	for (i = 0; i < ps->nsf; i++) {
		struct pstripe_subflow *sf = ps->sf[i];

		if (!pstripe_sf_live(sf))
			continue;
		if (ps->close_rst || (striped && sf->busy)) {
			pstripe_sf_reset(ps, i, -ECONNRESET);
		} else if (i && ps_sk(ps)->sk_state == TCP_SYN_SENT) {
			/* Still joining: a FIN would look like a plain client. */
			sock_no_linger(sf->sock->sk);
		} else if (striped) {
			pstripe_nl_sf_closed(sf, 0);
			pstripe_sf_drop_pull(ps, sf);
			pstripe_grave_add(sf);
			ps->sf[i] = NULL;
		}
	}
}

/*
 * The end of a socket, under its lock: every callback detached (nothing
 * queues the work any more), the subflows closed, children and
 * unclassified connections moved to @reap for after release_sock().
 */
static void pstripe_teardown(struct pstripe_sock *ps,
			     struct pstripe_reap *reap)
{
	struct sock *sk = ps_sk(ps);
	int i;

	sock_owned_by_me(sk);
	ps->closing = true;
	pstripe_pm_stop(ps);
	WRITE_ONCE(sk->sk_shutdown, SHUTDOWN_MASK);
	for (i = 0; i < PSOCK_STREAM_CNT_LIMIT; i++)
		if (ps->sf[i])
			pstripe_sf_detach(ps->sf[i]);
	pstripe_listener_drain(ps, reap);
	pstripe_close_subflows(ps);
	pstripe_set_state(sk, TCP_CLOSE);
	pstripe_release_subflows(ps);
	pstripe_free_blocks(ps);
	if (ps->bg_close)
		atomic_dec(&pstripe_get_pernet(sock_net(sk))->bg_closes);
}

/*
 * close() returns at once, as TCP's: what the peer has not acknowledged
 * yet is resent by the orphaned socket's work (pstripe_close_linger()).
 */
void pstripe_close(struct sock *sk, long timeout)
{
	struct pstripe_sock *ps = pstripe_sk(sk);
	struct pstripe_reap reap;

	pstripe_reap_init(&reap);
	lock_sock(sk);
	if (sk->sk_state == TCP_ESTABLISHED) {
		if (ps->fallback)
			pstripe_close_plain(ps, timeout);
		else if (pstripe_close_linger(ps, timeout))
			goto orphaned;
	}
	pstripe_teardown(ps, &reap);
	release_sock(sk);

	/* Nothing queues the work now; wait for a run in progress. */
	if (cancel_delayed_work_sync(&ps->work))
		sock_put(sk);
	pstripe_reap_all(&reap);
	pstripe_wake(sk);
	sk_common_release(sk);
	return;
orphaned:
	release_sock(sk);
}

static void pstripe_work(struct work_struct *work)
{
	struct pstripe_sock *ps = container_of(to_delayed_work(work),
					       struct pstripe_sock, work);
	struct sock *sk = ps_sk(ps);
	struct pstripe_reap reap;
	bool release = false;
	int i;

	pstripe_reap_init(&reap);
	/* The kicks before this point are this run's. */
	WRITE_ONCE(ps->kicked, false);
	smp_mb();	/* @kicked, then what the run reads */
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
		/* A reader that found no memory tries again (input.c). */
		WRITE_ONCE(ps->rcv_nomem, false);
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
		pstripe_rejoin_take(ps);
		pstripe_pm_work(ps);
		pstripe_limbo_check(ps);
		pstripe_push_all(ps);
		pstripe_wake(sk);
		if (ps->bg_close && pstripe_bg_close_done(ps)) {
			pstripe_teardown(ps, &reap);
			release = true;
		}
		break;
	}
out:
	release_sock(sk);
	pstripe_reap_all(&reap);
	if (release)		/* close() left it to this run */
		sk_common_release(sk);
	sock_put(sk);		/* the reference of this run */
}

void pstripe_sock_init(struct pstripe_sock *ps)
{
	struct sock *sk = ps_sk(ps);

	INIT_DELAYED_WORK(&ps->work, pstripe_work);
	INIT_LIST_HEAD(&ps->pending);
	INIT_LIST_HEAD(&ps->embryos);
	INIT_LIST_HEAD(&ps->accept_q);
	INIT_LIST_HEAD(&ps->lnode);
	INIT_HLIST_NODE(&ps->tnode);
	INIT_LIST_HEAD(&ps->rtx);
	INIT_LIST_HEAD(&ps->ooo);
	spin_lock_init(&ps->rj_lock);
	INIT_LIST_HEAD(&ps->rj_q);
	INIT_HLIST_NODE(&ps->tok_node);
	ps->rcv_cur = -1;
	ps->snd_wnd = PSTRIPE_WIN_BYTES;
	ps->rcv_wnd = PSTRIPE_WIN_BYTES;
	/*
	 * Blocks stay in the send buffer until the peer acknowledges them:
	 * as much room as TCP's largest send buffer (tcp_wmem[2]).
	 */
	sk->sk_sndbuf = max_t(int, sk->sk_sndbuf,
			      READ_ONCE(sock_net(sk)->ipv4.sysctl_tcp_wmem[2]));
	/* The reorder queue may hold a whole window (pstripe_rblk_alloc()). */
	sk->sk_rcvbuf = max_t(int, sk->sk_rcvbuf, PSTRIPE_RCV_WIN);
}

/* SIOCINQ, SIOCOUTQ, SIOCOUTQNSD: sockopt.c; the rest: inet's. */
static int pstripe_ioctl_std(struct socket *sock, unsigned int cmd,
			     unsigned long arg)
{
	int answ, err;

	if (cmd != SIOCINQ && cmd != SIOCOUTQ && cmd != SIOCOUTQNSD)
		return -ENOIOCTLCMD;
	err = pstripe_ioctl_q(sock->sk, cmd, &answ);
	if (err)
		return err;
	return put_user(answ, (int __user *)arg);
}

static int pstripe_ioctl(struct socket *sock, unsigned int cmd,
			 unsigned long arg)
{
	int err = pstripe_ioctl_std(sock, cmd, arg);

	return err == -ENOIOCTLCMD ? inet_ioctl(sock, cmd, arg) : err;
}

#if IS_ENABLED(CONFIG_IPV6)
static int pstripe6_ioctl(struct socket *sock, unsigned int cmd,
			  unsigned long arg)
{
	int err = pstripe_ioctl_std(sock, cmd, arg);

	return err == -ENOIOCTLCMD ? inet6_ioctl(sock, cmd, arg) : err;
}
#endif

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
	.ioctl		= pstripe_ioctl,
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
	.ioctl		= pstripe6_ioctl,
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
	int err = pstripe_mem_init();

	if (err)
		return err;
	pstripe_wq = alloc_workqueue("psock", WQ_UNBOUND, 0);
	if (!pstripe_wq) {
		pstripe_mem_exit();
		return -ENOMEM;
	}
	return 0;
}

void pstripe_stream_exit(void)
{
	/* Subflows replaced by a rejoin: their frees on pstripe_wq, queued. */
	rcu_barrier();
	pstripe_grave_flush();
	destroy_workqueue(pstripe_wq);
	pstripe_mem_exit();
}

/*
 * net.psock.enabled = 0 refuses socket(2), as net.mptcp.enabled = 0 does
 * for MPTCP, but not the sockets an existing listener makes for the
 * connections it accepts (pstripe_child_create(), run by its work only):
 * a sysctl change does not touch existing sockets.
 */
static bool pstripe_may_create(const struct pstripe_pernet *pn)
{
	struct work_struct *w = current_work();

	return READ_ONCE(pn->enabled) || (w && w->func == pstripe_work);
}

static int pstripe_init_sock(struct sock *sk)
{
	const struct pstripe_pernet *pn = pstripe_get_pernet(sock_net(sk));
	struct pstripe_sock *ps = pstripe_sk(sk);

	if (!pstripe_may_create(pn))
		return -ENOPROTOOPT;

	ps->rcmd_stream_cnt = READ_ONCE(pn->rcmd_stream_cnt);
	ps->optimistic = READ_ONCE(pn->optimistic);
	ps->max_stream_cnt = READ_ONCE(pn->max_stream_cnt);
	ps->driver = READ_ONCE(pn->driver);
	pstripe_memcg_init(ps);
	pstripe_sock_init(ps);
	pstripe_opts_snapshot(sk, &ps->synced);

	sock_prot_inuse_add(sock_net(sk), sk->sk_prot, 1);
	ps->counted = true;
	pstripe_diag_link(ps);
	return 0;
}

/* Also called by sk_common_release() when ->init failed. */
static void pstripe_destroy(struct sock *sk)
{
	if (pstripe_sk(sk)->counted) {
		/* First: a dump finds no socket being torn down here. */
		pstripe_diag_unlink(pstripe_sk(sk));
		sock_prot_inuse_add(sock_net(sk), sk->sk_prot, -1);
	}
	pstripe_lstn_free(pstripe_sk(sk));
	pstripe_memcg_put(pstripe_sk(sk));
}

/*
 * The PSOCK socket itself is never in a lookup table: its subflows are the
 * TCP sockets the stack finds.  sk_common_release() still calls ->unhash.
 */
static int pstripe_hash(struct sock *sk)
{
	return 0;
}

static void pstripe_unhash(struct sock *sk)
{
}

/*
 * SOL_PSOCK, SOL_TCP, SOL_IP and SOL_IPV6 options live in sockopt.c;
 * SOL_SOCKET is the core's (sockopt.c copies what the subflows share).
 * Other levels are unknown.
 */
static int pstripe_setsockopt(struct sock *sk, int level, int optname,
			      sockptr_t optval, unsigned int optlen)
{
	if (level == SOL_PSOCK)
		return pstripe_setsockopt_psock(sk, optname, optval, optlen);
	if (level == SOL_TCP)
		return pstripe_setsockopt_tcp(sk, optname, optval, optlen);
	if (level == SOL_IP || level == SOL_IPV6)
		return pstripe_setsockopt_ip(sk, level, optname, optval,
					     optlen);
	return -ENOPROTOOPT;
}

static int pstripe_getsockopt(struct sock *sk, int level, int optname,
			      char __user *optval, int __user *optlen)
{
	if (level == SOL_PSOCK)
		return pstripe_getsockopt_psock(sk, optname, optval, optlen);
	if (level == SOL_TCP)
		return pstripe_getsockopt_tcp(sk, optname, optval, optlen);
	if (level == SOL_IP || level == SOL_IPV6)
		return pstripe_getsockopt_ip(sk, level, optname, optval,
					     optlen);
	return -ENOPROTOOPT;
}

static struct proto pstripe_prot = {
	.name		= "PSOCK",
	.owner		= THIS_MODULE,
	.init		= pstripe_init_sock,
	.destroy	= pstripe_destroy,
	.close		= pstripe_close,
	.hash		= pstripe_hash,
	.unhash		= pstripe_unhash,
	.setsockopt	= pstripe_setsockopt,
	.getsockopt	= pstripe_getsockopt,
	.keepalive	= pstripe_keepalive,
	.obj_size	= sizeof(struct pstripe_sock),
};

static struct inet_protosw pstripe_protosw = {
	.type		= SOCK_STREAM,
	.protocol	= IPPROTO_PSOCK,
	.prot		= &pstripe_prot,
	.ops		= &pstripe_stream_ops,
};

#if IS_ENABLED(CONFIG_IPV6)
/* A copy of pstripe_prot with the IPv6 object layout, made at init. */
static struct proto pstripe6_prot;

static struct inet_protosw pstripe6_protosw = {
	.type		= SOCK_STREAM,
	.protocol	= IPPROTO_PSOCK,
	.prot		= &pstripe6_prot,
	.ops		= &pstripe6_stream_ops,
};

static int __init pstripe6_init(void)
{
	int err;

	/* 6.1 finds ipv6_pinfo at the end of the object. */
	BUILD_BUG_ON(offsetof(struct pstripe6_sock, np) +
		     sizeof(struct ipv6_pinfo) != sizeof(struct pstripe6_sock));

	pstripe6_prot = pstripe_prot;
	strscpy(pstripe6_prot.name, "PSOCKv6", sizeof(pstripe6_prot.name));
	pstripe6_prot.obj_size = sizeof(struct pstripe6_sock);
	pstripe_set_ipv6_pinfo_offset(&pstripe6_prot,
				      offsetof(struct pstripe6_sock, np));

	err = proto_register(&pstripe6_prot, 1);
	if (err)
		return err;

	err = inet6_register_protosw(&pstripe6_protosw);
	if (err) {
		proto_unregister(&pstripe6_prot);
		return err;
	}
	return 0;
}

static void pstripe6_exit(void)
{
	inet6_unregister_protosw(&pstripe6_protosw);
	proto_unregister(&pstripe6_prot);
}
#else
static int __init pstripe6_init(void) { return 0; }
static void pstripe6_exit(void) { }
#endif

static int __init pstripe_init(void)
{
	int err;

	err = pstripe_stream_init();
	if (err)
		return err;

	err = pstripe_ctrl_init();
	if (err) {
		pr_err("pernet registration failed: %d\n", err);
		goto err_stream;
	}

	err = proto_register(&pstripe_prot, 1);
	if (err) {
		pr_err("proto_register failed: %d\n", err);
		goto err_ctrl;
	}
	inet_register_protosw(&pstripe_protosw);

	err = pstripe6_init();
	if (err) {
		pr_err("IPv6 registration failed: %d\n", err);
		goto err_inet;
	}

	err = pstripe_netlink_init();
	if (err) {
		pr_err("netlink family registration failed: %d\n", err);
		goto err_inet6;
	}

	/* Last: a dump may find sockets as soon as it is registered. */
	err = pstripe_diag_init();
	if (err) {
		pr_err("sock_diag registration failed: %d\n", err);
		goto err_netlink;
	}

	pr_info("registered IPPROTO_PSOCK (%d)\n", IPPROTO_PSOCK);
	return 0;

err_netlink:
	pstripe_netlink_exit();
err_inet6:
	pstripe6_exit();
err_inet:
	inet_unregister_protosw(&pstripe_protosw);
	proto_unregister(&pstripe_prot);
err_ctrl:
	pstripe_ctrl_exit();
err_stream:
	pstripe_stream_exit();
	return err;
}

static void __exit pstripe_exit(void)
{
	pstripe_diag_exit();
	pstripe_netlink_exit();
	pstripe6_exit();
	inet_unregister_protosw(&pstripe_protosw);
	proto_unregister(&pstripe_prot);
	pstripe_ctrl_exit();
	pstripe_stream_exit();
}

module_init(pstripe_init);
module_exit(pstripe_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("IPPROTO_PSOCK: one byte stream striped over TCP subflows");
MODULE_VERSION(HICN_PSOCK_VERSION);
/* inet_create() and inet6_create() ask for these; 1 is SOCK_STREAM. */
MODULE_ALIAS_NET_PF_PROTO_TYPE(PF_INET, IPPROTO_PSOCK, 1);
MODULE_ALIAS_NET_PF_PROTO_TYPE(PF_INET6, IPPROTO_PSOCK, 1);
MODULE_ALIAS_NET_PF_PROTO(PF_INET, IPPROTO_PSOCK);
MODULE_ALIAS_NET_PF_PROTO(PF_INET6, IPPROTO_PSOCK);
