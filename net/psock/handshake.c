// SPDX-License-Identifier: GPL-2.0
/*
 * PSOCK handshake: the hello messages, the client's handshake and its
 * fallback to plain TCP, the server hello and the client hello on the
 * server side.
 *
 * Optimistic connect (PSOCK_OPTIMISTIC)
 * ------------------
 * connect() returns once TCP's handshake is done (connect() takes that
 * step itself, no work runs between): the connection is plain TCP on
 * subflow 0 (@fallback) but undecided (@opt).  The client's probe is
 * PSTRIPE_PROBE_OPT, urgent as ever, and rides in front of the
 * application's first bytes, in their segment (pstripe_opt_send_first():
 * a separate probe costs a segment, a wake-up of the server and, under
 * Nagle, a round trip).  It goes alone when the application reads or
 * polls for reading first, or PSTRIPE_PROBE_DELAY after connect() (a
 * client that connects ahead).  The application's bytes go out plain at
 * once, at most PSTRIPE_OPT_MAX of them while undecided (more once the
 * hello timeout passed, @opt_over).  The server's first bytes decide:
 *
 * - a server hello, with at most PSTRIPE_OPT_MAX plain bytes sent and our
 *   end of the stream not sent: we send PSTRIPE_PROBE_OPT as urgent data
 *   again (the mark: the plain bytes end there), our client hello, and
 *   turn striped (@opt_switched; the socket is in TCP_SYN_SENT again while
 *   the data subflows join, so calls wait as during connect()).  Our
 *   blocks start at 1: the plain bytes are the server's block 0;
 * - a server hello after more than PSTRIPE_OPT_MAX plain bytes or our
 *   FIN: consumed, and plain TCP for good (the server saw that many
 *   plain bytes, or our FIN, without a mark: plain TCP too);
 * - anything else, or the end of the stream: plain TCP.
 *
 * The server (listener.c, PSTRIPE_SF_OPT_*) answers the probe with its
 * hello and leaves the plain bytes in TCP's queue until the mark comes:
 * then it reads them into a block (pstripe_opt_mark()), which becomes
 * block 0 of the child (pstripe_opt_adopt()).  More than PSTRIPE_OPT_MAX
 * plain bytes, or the end of the stream, before a mark: plain TCP.  A
 * plain TCP server never sends a hello, so the client never marks, and
 * sees the probe (urgent, out of band) nowhere in its stream.
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

/*
 * The receive window @sk offers: its receive buffer when SO_RCVBUF was
 * set, else the largest TCP's autotuning would reach (tcp_rmem[2]);
 * within PSTRIPE_WIN_BYTES..PSTRIPE_WIN_MAX, in whole PSTRIPE_WIN_UNIT.
 */
static u32 pstripe_win_offer(const struct sock *sk)
{
	u32 want;

	if (sk->sk_userlocks & SOCK_RCVBUF_LOCK)
		want = READ_ONCE(sk->sk_rcvbuf);
	else
		want = READ_ONCE(sock_net(sk)->ipv4.sysctl_tcp_rmem[2]);
	want = clamp_t(u32, want, PSTRIPE_WIN_BYTES, PSTRIPE_WIN_MAX);
	return rounddown(want, PSTRIPE_WIN_UNIT);
}

/* The window a peer's hello offers (none: what version 1 had). */
static u32 pstripe_win_peer(const struct pstripe_hello *h)
{
	u32 units = ntohs(h->window);

	if (!units)
		return PSTRIPE_WIN_BYTES;
	return min_t(u32, units * PSTRIPE_WIN_UNIT, PSTRIPE_WIN_MAX);
}

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
	if (type == PSTRIPE_MSG_SHELLO || type == PSTRIPE_MSG_CHELLO) {
		ps->rcv_wnd = pstripe_win_offer(ps_sk(ps));
		h->window = htons(ps->rcv_wnd / PSTRIPE_WIN_UNIT);
	}
}

/* Do the first @len bytes of @buf agree with a message of @type? */
bool pstripe_hello_prefix(const u8 *buf, int len, int type)
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
	WRITE_ONCE(ps->snd_wnd, pstripe_win_peer(peer));
}

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

void pstripe_established(struct pstripe_sock *ps)
{
	struct sock *sk = ps_sk(ps);
	int i;

	if (ps->fallback) {
		ps->stream_cnt = 1;
		ps->neg_driver = PSOCK_DRIVER_POLL_ALL;
		/* Optimistic: counted once it is decided (pstripe_opt_plain()). */
		if (!ps->opt)
			pstripe_mib_inc(sock_net(sk), PSTRIPE_MIB_FALLBACKS);
	}
	/* A child keeps the socket it was made with until accept(). */
	if (!ps->opt_switched)
		pstripe_mib_inc(sock_net(sk),
				ps->csock ? PSTRIPE_MIB_PASSIVE_OPENS :
					    PSTRIPE_MIB_ACTIVE_OPENS);
	ps->rcv_cur = -1;
	/* Block 0 of an optimistic client, kept (pstripe_opt_adopt()). */
	if (!list_empty(&ps->ooo) &&
	    list_first_entry(&ps->ooo, struct pstripe_blk, node)->seq ==
	    ps->rcv_seq)
		ps->rcv_cur = PSTRIPE_CUR_OOO;
	ps->nlive = ps->nsf;
	/* The connection's peer is the control subflow's, for good. */
	if (ps->sf[0]) {
		int len = kernel_getpeername(ps->sf[0]->sock,
					     (struct sockaddr *)&ps->peer);

		ps->peer_len = len > 0 ? len : 0;
	}
	for (i = 0; i < ps->nsf; i++) {
		pstripe_sf_note_ports(ps->sf[i]);
		/* Subflow 0 of a switched connection was announced already. */
		if (i || !ps->opt_switched)
			pstripe_nl_sf_established(ps->sf[i]);
	}
	/* A client opens dead subflows again: the control one's route. */
	if (!ps->csock && !ps->fallback && ps->stream_cnt > 1)
		pstripe_route_control(ps);
	pstripe_set_state(sk, TCP_ESTABLISHED);
	pstripe_wake(sk);
}

/*
 * Client: the join message of the data subflow at @slot; or (@type
 * PSTRIPE_MSG_REJOIN) the message of a new subflow that asks to take the
 * place of dead subflow @slot of the established connection (pm.c),
 * named by its position and its local port: the server takes the slot
 * only if its subflow there came from that port.
 */
void pstripe_join_fill(struct pstripe_sock *ps, struct pstripe_hello *h,
		       int type, int slot)
{
	pstripe_hello_fill(ps, h, type);
	h->n = ps->stream_cnt;
	h->index = slot;
	if (type == PSTRIPE_MSG_REJOIN)
		h->port = ps->sf[slot]->ports[0];
	h->token = cpu_to_be64(ps->token);
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

	if (ps->opt_switched) {
		u8 mark = PSTRIPE_PROBE_OPT;

		/* The end of our plain bytes; our blocks start after them. */
		r = pstripe_sf_send(sf0, &mark, 1, MSG_OOB);
		if (r != 1)
			return r < 0 ? r : -EPROTO;
		ps->snd_seq = ps->opt_sent ? 1 : 0;
		ps->snd_una = ps->snd_seq;
	}
	pstripe_hello_fill(ps, &c, PSTRIPE_MSG_CHELLO);
	c.n = ps->stream_cnt;
	c.token = h->token;
	r = pstripe_sf_send(sf0, &c, sizeof(c), 0);
	if (r != sizeof(c))
		return r < 0 ? r : -EPROTO;
	if (ps->stream_cnt == 1)
		return 0;
	ps->phase = PSTRIPE_PH_JOIN;
	ps->deadline = jiffies + pstripe_join_wait_jiffies(ps_sk(ps));
	return pstripe_open_data_subflows(ps, msgs);
}

/*
 * Why a connection became plain TCP, for whoever turns on this module's
 * debug messages (dynamic debug): a fallback is no error, but one between
 * two PSOCK hosts says a timeout ran out.  A peer chooses how often this
 * happens, so the messages are rate-limited, as mainline's are for what
 * a peer can cause.
 */
void pstripe_fallback_dbg(const struct pstripe_subflow *sf, const char *who,
			  const char *why)
{
	const struct inet_sock *inet = inet_sk(sf->sock->sk);

	net_dbg_ratelimited("%s port %u -> %u: plain TCP: %s\n", who,
			    ntohs(inet->inet_sport), ntohs(inet->inet_dport),
			    why);
}

static void pstripe_fallback(struct pstripe_sock *ps, const char *why)
{
	if (why)
		pstripe_fallback_dbg(ps->sf[0], "client", why);
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
	pstripe_fallback(ps, "no server hello within the hello timeout");
}

static void pstripe_late_done(struct pstripe_sock *ps)
{
	WRITE_ONCE(ps->late_need, 0);
	WRITE_ONCE(ps->late_hello, false);
}

/*
 * Optimistic client, decided: plain TCP for good.  A server hello that
 * still comes first is consumed without an answer (pstripe_late_hello()).
 */
void pstripe_opt_plain(struct pstripe_sock *ps, const char *why)
{
	sock_owned_by_me(ps_sk(ps));
	if (!ps->opt)
		return;
	pstripe_fallback_dbg(ps->sf[0], "optimistic client", why);
	ps->opt = 0;
	ps->opt_probe = false;
	ps->plain_sent = true;
	pstripe_mib_inc(sock_net(ps_sk(ps)), PSTRIPE_MIB_FALLBACKS);
	pstripe_wake(ps_sk(ps));
}

/*
 * The server's first bytes, peeked: -EAGAIN without a look into TCP when
 * nothing is there (the common case at connect() and at a read).
 */
static int pstripe_peek_first(struct pstripe_subflow *sf, void *buf,
			      size_t len)
{
	if (!pstripe_sf_readable(sf))
		return -EAGAIN;
	return pstripe_sf_recv(sf, buf, len, MSG_PEEK);
}

/*
 * Optimistic client: the probe alone, due now.  If it cannot go, the
 * server never learns we speak PSOCK: plain TCP (an error of the subflow
 * is the application's next call's).
 */
__pstripe_hot void pstripe_opt_probe(struct pstripe_sock *ps)
{
	u8 probe = PSTRIPE_PROBE_OPT;

	sock_owned_by_me(ps_sk(ps));
	if (!ps->opt_probe || ps_sk(ps)->sk_state != TCP_ESTABLISHED)
		return;
	ps->opt_probe = false;
	if (pstripe_sf_send(ps->sf[0], &probe, 1, MSG_OOB) != 1)
		pstripe_opt_plain(ps, "the probe could not be sent");
}

/*
 * Optimistic client, the application's first bytes: the probe in front
 * of them, in one segment.  MSG_OOB would make the last byte urgent, and
 * TCP never holds urgent data back, so the probe is queued corked
 * (MSG_MORE), made urgent by hand (@snd_up one past it, as MSG_OOB sets
 * it), and the bytes appended and pushed with it.  Returns what
 * tcp_sendmsg_locked() returns for @msg.
 */
int pstripe_opt_send_first(struct pstripe_sock *ps, struct msghdr *msg)
{
	struct msghdr pm = { .msg_flags = MSG_MORE | MSG_DONTWAIT |
					  MSG_NOSIGNAL };
	struct sock *ssk = ps->sf[0]->sock->sk;
	u8 probe = PSTRIPE_PROBE_OPT;
	struct kvec iov = { .iov_base = &probe, .iov_len = 1 };
	bool queued, push = false;
	int r;

	sock_owned_by_me(ps_sk(ps));
	ps->opt_probe = false;
	iov_iter_kvec(&pm.msg_iter, ITER_SOURCE, &iov, 1, 1);
	lock_sock(ssk);
	r = tcp_sendmsg_locked(ssk, &pm, 1);
	queued = r == 1;
	if (queued) {
		tcp_sk(ssk)->snd_up = tcp_sk(ssk)->write_seq;
		r = tcp_sendmsg_locked(ssk, msg, msg_data_left(msg));
		/* No bytes came (a fault): the probe goes alone. */
		push = r <= 0 && !(tcp_sk(ssk)->nonagle & TCP_NAGLE_CORK);
	}
	release_sock(ssk);
	if (!queued) {
		/* The server never hears of us. */
		pstripe_opt_plain(ps, "the probe could not be queued");
		return r ? r : -EAGAIN;
	}
	ps->sf[0]->bytes_sent++;
	if (push) {
		tcp_sock_set_cork(ssk, true);
		tcp_sock_set_cork(ssk, false);
	}
	return r;
}

/* Optimistic client, a whole server hello first: turn striped. */
static int pstripe_opt_switch(struct pstripe_sock *ps,
			      struct pstripe_hello *msgs)
{
	struct sock *sk = ps_sk(ps);
	int r;

	pstripe_late_done(ps);
	ps->opt = 0;
	ps->fallback = false;
	ps->opt_switched = true;
	ps->phase = PSTRIPE_PH_SHELLO;
	r = pstripe_client_hello(ps, msgs);
	if (r)
		return r;
	if (ps->stream_cnt == 1) {
		pstripe_established(ps);
		return 0;
	}
	/* Calls wait for the joins as they would in connect(). */
	pstripe_set_state(sk, TCP_SYN_SENT);
	pstripe_kick(ps);
	return 0;
}

/*
 * Optimistic client, undecided: the server's first bytes decide (see
 * "Optimistic connect" above).  0: go on (decided or not), -EAGAIN: part
 * of a hello is there, <0 a bad hello.
 */
static int pstripe_opt_hello(struct pstripe_sock *ps)
{
	struct pstripe_hello msgs[1 + PSOCK_ADDR_MAX];
	struct sock *sk = ps_sk(ps);
	int r, len = sizeof(msgs[0]);

	r = pstripe_peek_first(ps->sf[0], msgs, sizeof(msgs));
	if (r == -EAGAIN) {
		if (ps->opt_probe && time_after_eq(jiffies, ps->probe_at))
			pstripe_opt_probe(ps);
		if (ps->opt_probe) {
			pstripe_schedule_by(ps, ps->probe_at - jiffies);
			return 0;
		}
		if (ps->opt_over || !ps->opt)
			return 0;
		if (time_after_eq(jiffies, ps->deadline)) {
			ps->opt_over = true;
			pstripe_wake(sk);
		} else {
			pstripe_schedule(ps, ps->deadline - jiffies);
		}
		return 0;
	}
	if (r <= 0 || !pstripe_hello_prefix((u8 *)msgs, r, PSTRIPE_MSG_SHELLO)) {
		pstripe_opt_plain(ps, r > 0 ? "no hello in the server's first bytes" :
				      "end of stream or error before a hello");
		return pstripe_late_hello(ps);
	}
	if (r >= len && msgs[0].n > PSOCK_ADDR_MAX)
		return -EPROTO;
	if (r >= len)
		len = (1 + msgs[0].n) * sizeof(msgs[0]);
	if (r < len) {
		WRITE_ONCE(ps->late_need, len);
		return -EAGAIN;
	}
	if (ps->opt_sent > PSTRIPE_OPT_MAX ||
	    (sk->sk_shutdown & SEND_SHUTDOWN)) {
		pstripe_opt_plain(ps, "server hello after our FIN or our limit");
		return pstripe_late_hello(ps);
	}
	return pstripe_opt_switch(ps, msgs);
}

/*
 * After pstripe_fallback_late(), at the first bytes of the server: a whole
 * server hello (with its address messages) is consumed and, unless the
 * application has sent something already (the server then took the
 * connection for plain TCP at that data), answered with a client hello of
 * n = 0: "I fell back".  Anything else is the application's.  0: go on,
 * -EAGAIN: part of a hello is there, not all of it.
 */
int pstripe_late_hello(struct pstripe_sock *ps)
{
	struct pstripe_hello msgs[1 + PSOCK_ADDR_MAX], c;
	struct pstripe_subflow *sf0 = ps->sf[0];
	int r, len = sizeof(msgs[0]);

	sock_owned_by_me(ps_sk(ps));
	if (!ps->late_hello)
		return 0;
	if (ps->opt)
		return pstripe_opt_hello(ps);
	r = pstripe_peek_first(sf0, msgs, sizeof(msgs));
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
bool pstripe_late_ready(const struct pstripe_sock *ps)
{
	const struct sock *ssk = ps->sf[0]->sock->sk;
	const struct tcp_sock *tp = tcp_sk(ssk);
	u32 need = READ_ONCE(ps->late_need);

	return !need ||
	       READ_ONCE(tp->rcv_nxt) - READ_ONCE(tp->copied_seq) >= need ||
	       (READ_ONCE(ssk->sk_shutdown) & RCV_SHUTDOWN) ||
	       READ_ONCE(ssk->sk_err);
}

/*
 * A join (or rejoin) must be in the server's TCP before the server could
 * have taken its connection for a plain TCP client that says nothing: a
 * server waits the hello timeout from the moment it took the connection
 * from TCP's queue, which is after the client's TCP saw the SYN-ACK
 * (@est_at).  So the client counts the subflow only once TCP acknowledged
 * the message within the hello timeout of @est_at, less two jiffies for
 * the clocks of two hosts; past that the subflow is reset, and the server
 * never hands accept() a connection whose first bytes are a join.  On a
 * loaded machine a join can take that long (its segment dropped under
 * tcp_mem pressure and retransmitted, the client's work late).
 */
#define PSTRIPE_JOIN_MARGIN	2

/*
 * Has TCP acknowledged @sf's join, sent or about to be (@join_end)?
 * Lockless.  Not "all that was written": an event between our request
 * for a call (SOCK_NOSPACE) and the send, a segment that acknowledged
 * nothing new, found nothing unacknowledged yet, took the request and
 * left none for the join's ack (setup_test event_during_work_run).
 */
bool pstripe_join_acked(const struct pstripe_subflow *sf)
{
	const struct sock *ssk = sf->sock->sk;
	const struct tcp_sock *tp = tcp_sk(ssk);

	return READ_ONCE(ssk->sk_state) == TCP_ESTABLISHED &&
	       !before(READ_ONCE(tp->snd_una), READ_ONCE(sf->join_end));
}

/* When @sf's join, not acknowledged, is given up (its @est_at seen). */
static unsigned long pstripe_join_ack_by(const struct pstripe_subflow *sf)
{
	unsigned long h = pstripe_hello_jiffies(sf->sock->sk);

	return sf->est_at + max_t(unsigned long, h, PSTRIPE_JOIN_MARGIN + 1) -
	       PSTRIPE_JOIN_MARGIN;
}

/*
 * Is @sf (TCP state @st) still connecting, as far as its join goes: in
 * SYN_SENT, or established with its state callback not seen yet?
 */
static bool pstripe_join_connecting(const struct pstripe_subflow *sf, int st)
{
	if (st == TCP_SYN_SENT)
		return true;
	/* Pairs with the state callback's store: @est_at is set after. */
	return st == TCP_ESTABLISHED && !smp_load_acquire(&sf->est_seen);
}

/* Too late to send @sf's join, or to wait for its acknowledgment? */
static bool pstripe_join_due(const struct pstripe_subflow *sf)
{
	/* Pairs with the state callback's store: @est_at is set after. */
	return !smp_load_acquire(&sf->est_seen) ||
	       time_after_eq(jiffies, pstripe_join_ack_by(sf));
}

/*
 * Send @sf's join or rejoin message (@h), asking TCP to call back once it
 * is acknowledged: SOCK_NOSPACE makes TCP's next ack call write_space,
 * whose event runs the work (set before the send, so that no ack is
 * missed).  TCP calls write_space as it sends the message too
 * (tcp_event_new_data_sent()), and that call clears the bit: while
 * @join_wait is set, the subflow's event sets it again until the
 * acknowledgment of the join (@join_end) came (pstripe_sf_event()).  0
 * once sent.
 */
static int pstripe_join_send(struct pstripe_subflow *sf,
			     const struct pstripe_hello *h)
{
	int r;

	/* Nothing else is sent on it before the join: we are its writer. */
	WRITE_ONCE(sf->join_end,
		   READ_ONCE(tcp_sk(sf->sock->sk)->write_seq) + sizeof(*h));
	/* @join_end, then @join_wait: pstripe_sf_event() reads them so. */
	smp_store_release(&sf->join_wait, true);
	smp_mb__before_atomic();	/* both, then the request */
	set_bit(SOCK_NOSPACE, &sf->sock->flags);
	r = pstripe_sf_send(sf, h, sizeof(*h), 0);
	if (r != sizeof(*h))
		return r < 0 ? r : -EAGAIN;
	sf->join_sent = true;
	return 0;
}

/**
 * pstripe_join_progress() - one look at a subflow's join or rejoin
 * @sf: the subflow
 * @h: its message (pstripe_join_fill()), sent once it is connected
 * @deadline: until when it may still be connecting
 * @by: with PSTRIPE_JOIN_WAIT, when to look again (the work also runs
 *	when the subflow connects and when TCP acknowledges the message)
 *
 * Return: PSTRIPE_JOIN_DONE once TCP acknowledged the message in time;
 * PSTRIPE_JOIN_WAIT while it connects before @deadline, or while the
 * acknowledgment may still come in time; PSTRIPE_JOIN_FAILED otherwise,
 * and the caller resets the subflow.
 */
int pstripe_join_progress(struct pstripe_subflow *sf,
			  const struct pstripe_hello *h,
			  unsigned long deadline, unsigned long *by)
{
	int st = pstripe_sf_state(sf);

	if (sf->join_sent && pstripe_join_acked(sf))
		goto done;
	if (time_before(jiffies, deadline) && pstripe_join_connecting(sf, st)) {
		*by = deadline;
		return PSTRIPE_JOIN_WAIT;
	}
	if (st != TCP_ESTABLISHED || pstripe_join_due(sf))
		return PSTRIPE_JOIN_FAILED;
	if (!sf->join_sent) {
		if (pstripe_join_send(sf, h))
			return PSTRIPE_JOIN_FAILED;
		if (pstripe_join_acked(sf))
			goto done;
	}
	*by = pstripe_join_ack_by(sf);
	return PSTRIPE_JOIN_WAIT;
done:
	/* No more calls for TCP's acks (pstripe_sf_event()). */
	WRITE_ONCE(sf->join_wait, false);
	return PSTRIPE_JOIN_DONE;
}

/*
 * Data subflow @i could not join in time (refused, unreachable, no answer
 * or no acknowledgment of its join before its deadline): the connection
 * goes without it.  Reset, never closed with a FIN, which a server that
 * saw nothing of it yet would take for a plain client's end of stream.
 */
static void pstripe_join_abandon(struct pstripe_sock *ps, int i)
{
	struct pstripe_subflow *sf = ps->sf[i];

	pstripe_mib_inc(sock_net(ps_sk(ps)), PSTRIPE_MIB_JOINS_MISSING);
	ps->sf[i] = NULL;
	sock_no_linger(sf->sock->sk);
	pstripe_sf_free(sf);
}

/*
 * Close the gaps missing subflows left in ps->sf[]: nsf counts the rest.
 * Before establishment only, by the one that owns @ps then: the client
 * under its socket lock, or the listener (under its own) for a child that
 * nobody else sees yet.
 */
void pstripe_sf_compact(struct pstripe_sock *ps)
{
	int i, n = 0;

	for (i = 0; i < ps->nsf; i++) {
		if (!ps->sf[i])
			continue;
		ps->sf[n] = ps->sf[i];
		if (n++ != i)
			ps->sf[i] = NULL;
	}
	ps->nsf = n;
}

/*
 * PSTRIPE_PH_JOIN: each data subflow sends its join once connected, and
 * counts once TCP acknowledged it (pstripe_join_ack_by()).  One that
 * fails, is not connected when the join deadline comes
 * (pstripe_join_wait_jiffies() after the client hello), or whose join is
 * not acknowledged in time, is abandoned; the connection is established
 * with the rest, down to the control subflow alone.  The server, which
 * waits longer for the joins, takes the same set, and resets a join that
 * still comes after it gave up: the client then loses that subflow as it
 * would lose any other (its blocks are resent).
 */
static bool pstripe_join_one(struct pstripe_sock *ps, int i,
			     unsigned long *next)
{
	struct pstripe_hello h;
	unsigned long by;

	pstripe_join_fill(ps, &h, PSTRIPE_MSG_JOIN, i);
	switch (pstripe_join_progress(ps->sf[i], &h, ps->deadline, &by)) {
	case PSTRIPE_JOIN_WAIT:
		if (time_before(by, *next))
			*next = by;
		return true;
	case PSTRIPE_JOIN_FAILED:
		pstripe_join_abandon(ps, i);
		return false;
	}
	return false;
}

static void pstripe_join_step(struct pstripe_sock *ps)
{
	unsigned long next = jiffies + MAX_JIFFY_OFFSET / 2;
	int i, waiting = 0;

	sock_owned_by_me(ps_sk(ps));
	for (i = 1; i < ps->nsf; i++)
		if (ps->sf[i] && pstripe_join_one(ps, i, &next))
			waiting++;
	if (waiting) {
		pstripe_schedule_by(ps, time_after(next, jiffies) ?
				    next - jiffies : 1);
		return;
	}
	pstripe_sf_compact(ps);
	pstripe_established(ps);
}

/* Optimistic: connected as plain TCP, undecided, at once. */
static void pstripe_opt_start(struct pstripe_sock *ps)
{
	int r;

	ps->opt = PSTRIPE_OPT_WAIT;
	ps->opt_sent = 0;
	ps->opt_probe = true;
	ps->probe_at = jiffies + min(pstripe_hello_jiffies(ps_sk(ps)) / 4,
				     PSTRIPE_PROBE_DELAY);
	WRITE_ONCE(ps->late_hello, true);
	pstripe_fallback(ps, NULL);	/* undecided: opt_plain() says why */
	/* A hello already there, or the timeout to watch. */
	r = pstripe_late_hello(ps);
	if (r && r != -EAGAIN)
		pstripe_abort(ps, -EPROTO);
}

void pstripe_connect_work(struct pstripe_sock *ps)
{
	struct pstripe_subflow *sf0 = ps->sf[0];
	struct sock *sk = ps_sk(ps);
	struct pstripe_hello h, msgs[1 + PSOCK_ADDR_MAX];
	u8 probe = PSTRIPE_PROBE;
	int st, r;

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
		ps->phase = PSTRIPE_PH_SHELLO;
		ps->deadline = jiffies + pstripe_hello_jiffies(sk);
		if (ps->optimistic) {
			pstripe_opt_start(ps);	/* the probe comes later */
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
		fallthrough;
	case PSTRIPE_PH_SHELLO:
		r = pstripe_sf_recv(sf0, msgs, sizeof(msgs), MSG_PEEK);
		if (r == 0 || (r > 0 && !pstripe_hello_prefix((u8 *)msgs, r,
							      PSTRIPE_MSG_SHELLO))) {
			/* The server spoke first, or closed: plain TCP. */
			pstripe_fallback(ps, r ? "the server spoke first" :
						 "the server closed before a hello");
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
		pstripe_schedule(ps, ps->deadline - jiffies);
		return;
	case PSTRIPE_PH_JOIN:
		break;
	}

	pstripe_join_step(ps);
}

int pstripe_send_server_hello(struct pstripe_sock *lps,
			      struct pstripe_subflow *sf)
{
	struct pstripe_hello msgs[1 + PSOCK_ADDR_MAX], *h = &msgs[0];
	struct pstripe_addr addrs[PSOCK_ADDR_MAX];
	int ifindex[PSOCK_ADDR_MAX];
	struct sockaddr_storage ss;
	int r, i, n, len;

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
	n = pstripe_local_addrs(lps, sf, PSOCK_ENDPOINT_FLAGS_SIGNAL, addrs,
				ifindex);
	h->n = n;
	for (i = 1; i <= n; i++) {
		const struct pstripe_addr *a = &addrs[i - 1];

		memset(&msgs[i], 0, sizeof(msgs[i]));
		msgs[i].magic = htonl(PSTRIPE_MAGIC);
		msgs[i].version = PSTRIPE_VERSION;
		msgs[i].type = PSTRIPE_MSG_ADDR;
		msgs[i].index = i;
		msgs[i].family = a->family;
		msgs[i].port = a->port ? a->port : h->port;
		memcpy(msgs[i].addr, a->addr, sizeof(a->addr));
	}
	len = (1 + n) * sizeof(*h);
	r = pstripe_sf_send(sf, msgs, len, 0);
	return r == len ? 0 : (r < 0 ? r : -EPROTO);
}

/*
 * Server, an optimistic client's probe just read: its plain bytes start
 * after it.  Its urgent pointer is the probe's until the client marks.
 */
void pstripe_opt_probed(struct pstripe_subflow *sf)
{
	struct sock *ssk = sf->sock->sk;

	lock_sock(ssk);
	sf->opt = PSTRIPE_SF_OPT_RAW;
	sf->opt_seq = tcp_sk(ssk)->urg_seq + 1;
	release_sock(ssk);
}

/* Where is the client's mark?  Under the subflow's socket lock. */
struct pstripe_opt_look {
	u32	raw;	/* plain bytes before the mark, or queued if none */
	bool	known;	/* the mark's urgent pointer came */
	bool	valid;	/* ... and its byte */
	bool	done;	/* no mark can come: end of stream, error */
};

static void pstripe_opt_look(struct pstripe_subflow *sf,
			     struct pstripe_opt_look *l)
{
	struct sock *ssk = sf->sock->sk;
	const struct tcp_sock *tp = tcp_sk(ssk);

	lock_sock(ssk);
	l->known = (tp->urg_data & (TCP_URG_NOTYET | TCP_URG_VALID)) &&
		   !before(tp->urg_seq, sf->opt_seq);
	l->valid = l->known && (tp->urg_data & TCP_URG_VALID);
	l->raw = (l->known ? tp->urg_seq : tp->rcv_nxt) - sf->opt_seq;
	l->done = (ssk->sk_shutdown & RCV_SHUTDOWN) || ssk->sk_err ||
		  ssk->sk_state != TCP_ESTABLISHED;
	release_sock(ssk);
}

/*
 * Server, an optimistic client after our hello: its plain bytes up to its
 * mark are read into @sf->opt_blk and the mark consumed; the client hello
 * follows.  0 once marked, 1 plain TCP (more plain bytes than a client
 * may send before its mark, or the end of the stream before it), -EAGAIN
 * not yet, other <0 refuse.
 */
int pstripe_opt_mark(struct pstripe_sock *lps, struct pstripe_subflow *sf)
{
	struct pstripe_opt_look l;
	struct pstripe_blk *blk = NULL;
	u8 mark;

	if (sf->opt == PSTRIPE_SF_OPT_MARKED)
		return 0;
	pstripe_opt_look(sf, &l);
	if (!l.known)
		return l.raw > PSTRIPE_OPT_MAX || l.done ? 1 : -EAGAIN;
	if (l.raw > PSTRIPE_OPT_MAX)
		return -EPROTO;
	if (!l.valid)
		return l.done ? -EPROTO : -EAGAIN;
	if (l.raw) {
		blk = pstripe_blk_alloc(lps, l.raw);
		if (!blk)
			return -ENOMEM;
		blk->size = l.raw;
		if (pstripe_sf_recv(sf, blk->data, l.raw, 0) != l.raw)
			goto bad;
	}
	if (pstripe_sf_recv(sf, &mark, 1, MSG_OOB) != 1 ||
	    mark != PSTRIPE_PROBE_OPT)
		goto bad;
	sf->opt_blk = blk;
	sf->opt = PSTRIPE_SF_OPT_MARKED;
	return 0;
bad:
	if (blk)
		pstripe_blk_free(blk);
	return -EPROTO;
}

/*
 * The client's plain bytes become block 0 of @child, which takes over
 * their memory; the client's blocks start at 1.
 */
void pstripe_opt_adopt(struct pstripe_sock *child, struct pstripe_subflow *sf)
{
	struct pstripe_blk *blk = sf->opt_blk;

	sf->opt = 0;
	if (!blk)
		return;
	sf->opt_blk = NULL;
	blk->seq = 0;
	blk->sf = -1;
	atomic_add(sizeof(*blk) + blk->size, &ps_sk(child)->sk_rmem_alloc);
	list_add_tail(&blk->node, &child->ooo);
	WRITE_ONCE(child->ooo_cnt, child->ooo_cnt + 1);
}

/* The client hello completes a PSOCK connection's control subflow. */
void pstripe_pending_chello(struct pstripe_sock *lps,
			    struct pstripe_subflow *sf,
			    struct pstripe_reap *reap)
{
	struct pstripe_sock *child;
	struct pstripe_hello h;

	if (pstripe_sf_recv(sf, &h, sizeof(h), 0) != sizeof(h) ||
	    be64_to_cpu(h.token) != sf->token)
		goto refuse;
	/*
	 * Its ACK at once: TCP would delay it (a hello went each way, the
	 * subflow is interactive), and the client's first block, small,
	 * would wait behind its unacknowledged hello under Nagle for that
	 * delayed ACK, 40 ms (stream_test: first_exchange_no_delayed_ack).
	 */
	tcp_sock_set_quickack(sf->sock->sk, 1);
	if (!h.n && !sf->opt) {
		/* The client fell back on its timeout, before our hello. */
		pstripe_pending_plain(lps, sf, reap,
				      "the client fell back before our hello");
		return;
	}
	if (!pstripe_hello_sane(&h) || !h.n)
		goto refuse;
	child = pstripe_child_adopt(lps, sf);
	if (!child)
		goto refuse;
	pstripe_opt_adopt(child, sf);
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
	pstripe_embryo_add(lps, child);
	return;
refuse:
	pstripe_mib_inc(sock_net(ps_sk(lps)), PSTRIPE_MIB_HANDSHAKE_FAILS);
	sock_no_linger(sf->sock->sk);
	pstripe_pend_reap(lps, sf, reap);
}
