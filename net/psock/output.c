// SPDX-License-Identifier: GPL-2.0
/*
 * PSOCK send path: writing blocks and acknowledgments to the subflows,
 * the resend list (@rtx), second copies at the tail, the end of the stream.
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
 * Room for one more unacknowledged block of @payload bytes: the blocks
 * kept for resending are bounded by the socket's send buffer, or by what
 * the subflows' send buffers hold together plus the blocks the receiver
 * may not have acknowledged yet (PSTRIPE_ACK_EVERY) when that is more: a
 * send buffer below the bandwidth-delay product set with SO_SNDBUF reaches
 * each subflow, and n subflows so keep n of them in flight, as the psock
 * library's n TCP sockets do.  Never more than the receiver's window
 * (PSTRIPE_WIN_BLKS blocks, @snd_wnd bytes).  Lockless (poll):
 * subflows are only freed by close().
 */
__pstripe_hot bool pstripe_rtx_room(struct pstripe_sock *ps, size_t payload)
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
	limit = min_t(u32, limit, READ_ONCE(ps->snd_wnd));
	return READ_ONCE(ps->rtx_cnt) < PSTRIPE_WIN_BLKS - 1 &&
	       READ_ONCE(ps->rtx_bytes) + sizeof(struct pstripe_blkhdr) +
	       payload <= limit;
}

/* Write what is left of @sf's ack and block; 0 when all of it is in TCP. */
static __pstripe_hot int pstripe_sf_push(struct pstripe_subflow *sf)
{
	struct kvec iov[2];
	size_t alen, blen;
	int n, r;

	/*
	 * An ack before a block leaves with it, in one segment and in one
	 * call to TCP (a call per piece cost small messages a lock and a
	 * tcp_sendmsg() more: bench/psock_rr.sh).
	 */
	for (;;) {
		alen = sf->alen - sf->aoff;
		blen = sf->cur ? sf->cur->size - sf->soff : 0;
		if (!alen && !blen)
			break;
		n = 0;
		if (alen)
			iov[n++] = (struct kvec){ sf->abuf + sf->aoff, alen };
		if (blen)
			iov[n++] = (struct kvec){ sf->cur->data + sf->soff, blen };
		r = pstripe_sf_sendv(sf, iov, n, alen + blen, 0);
		if (r <= 0)
			return r ? r : -EAGAIN;
		n = min_t(size_t, r, alen);
		sf->aoff += n;
		sf->soff += r - n;
	}
	sf->alen = 0;
	sf->aoff = 0;
	sf->cur = NULL;
	sf->soff = 0;
	WRITE_ONCE(sf->busy, false);
	return 0;
}

/*
 * Write an acknowledgment of the blocks before @seq to idle subflow @i and
 * push it: 0 once it is all in TCP, -EAGAIN while part of it waits for
 * room (@i stays busy); a subflow that fails is killed (-EPIPE then).
 */
static int pstripe_sf_ack(struct pstripe_sock *ps, int i, u32 seq)
{
	struct pstripe_subflow *sf = ps->sf[i];
	struct pstripe_blkhdr *bh = (void *)sf->abuf;
	int r;

	sock_owned_by_me(ps_sk(ps));
	bh->seq = htonl(seq);
	bh->len = htonl(PSTRIPE_LEN_ACK);
	sf->alen = sizeof(*bh);
	sf->aoff = 0;
	WRITE_ONCE(sf->busy, true);
	r = pstripe_sf_push(sf);
	if (r && r != -EAGAIN) {
		pstripe_sf_kill(ps, i, r);
		return -EPIPE;
	}
	return r;
}

static __pstripe_hot void pstripe_sf_give(struct pstripe_sock *ps, int i,
					  struct pstripe_blk *blk)
{
	struct pstripe_subflow *sf = ps->sf[i];

	if (blk->sf < 0) {
		WRITE_ONCE(ps->orphans, ps->orphans - 1);
		if (blk->sent)
			pstripe_mib_inc(sock_net(ps_sk(ps)),
					PSTRIPE_MIB_RESENDS);
	}
	blk->sent = true;
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
static __pstripe_hot void pstripe_rtx_trim(struct pstripe_sock *ps)
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
		pstripe_blk_recycle(ps, blk);
	}
}

/* The peer expects block @ack next: drop the blocks before it. */
__pstripe_hot int pstripe_got_ack(struct pstripe_sock *ps, u32 ack)
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
 * Before the subflows' FINs (and the graveyard's): our last acknowledgment
 * once on each idle subflow.  The one subflow that carried it may be on a
 * path that died unnoticed, and no later acknowledgment would follow: the
 * peer would wait for it in vain (its close() ending in CloseTimeouts).
 * The peer ignores the copies.  True when one waits for room.
 */
bool pstripe_last_acks(struct pstripe_sock *ps)
{
	bool waiting = false;
	int i;

	ps->ack_sent = ps->rcv_seq;
	ps->ack_pending = false;
	ps->ack_delayed = false;
	for (i = 0; i < ps->nsf; i++) {
		struct pstripe_subflow *sf = ps->sf[i];

		if (!pstripe_sf_live(sf) || sf->busy || sf->fin_sent ||
		    sf->last_ack_sent)
			continue;
		sf->last_ack_sent = true;
		if (pstripe_sf_ack(ps, i, ps->ack_sent) == -EAGAIN)
			waiting = true;
	}
	return waiting;
}

/* Flush every subflow's unfinished ack and block.  True when one waits. */
static bool pstripe_push_subflows(struct pstripe_sock *ps)
{
	bool pending = false;
	int i, r;

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
	return pending;
}

/*
 * Blocks of dead subflows, and the end-of-stream block: each to a live
 * subflow.  True when one waits for a subflow or for room.
 */
static bool pstripe_push_orphans(struct pstripe_sock *ps)
{
	struct pstripe_blk *blk;
	bool pending = false;
	int i, r;

	if (!ps->orphans)
		return false;
	list_for_each_entry(blk, &ps->rtx, node) {
		if (blk->sf >= 0)
			continue;
		i = pstripe_pick(ps, blk->size, true);
		if (i < 0)
			return true;
		pstripe_sf_give(ps, i, blk);
		r = pstripe_sf_push(ps->sf[i]);
		if (r == -EAGAIN)
			pending = true;
		else if (r < 0)
			pstripe_sf_kill(ps, i, r);
		if (!ps->orphans)
			break;
	}
	return pending;
}

/* The acknowledgment owed, when it is due.  True when it must wait. */
static bool pstripe_push_ack(struct pstripe_sock *ps, bool ack)
{
	int i;

	if (ps->ack_delayed && (time_after_eq(jiffies, ps->ack_due) ||
				ps->fin_queued))
		ps->ack_pending = true;
	if (!ack || !ps->ack_pending || !ps->nlive)
		return false;
	i = pstripe_pick_ack(ps);
	if (i < 0)
		return true;
	ps->ack_sent = ps->rcv_seq;
	ps->ack_pending = false;
	ps->ack_delayed = false;
	return pstripe_sf_ack(ps, i, ps->ack_sent) == -EAGAIN;
}

/*
 * TCP FINs only when nothing can need a subflow any more: our end-of-
 * stream block acknowledged, the peer's delivered and acknowledged.  True
 * when a last acknowledgment waits for room.
 */
static bool pstripe_push_fins(struct pstripe_sock *ps)
{
	bool pending;
	int i;

	if (!ps->snd_fin || !ps->fin_queued || !list_empty(&ps->rtx) ||
	    !READ_ONCE(ps->rcv_eof) || ps->ack_pending ||
	    ps->ack_sent != ps->rcv_seq)
		return false;
	pending = pstripe_last_acks(ps);
	for (i = 0; i < ps->nsf; i++) {
		struct pstripe_subflow *sf = ps->sf[i];

		if (!pstripe_sf_live(sf) || sf->fin_sent || sf->busy)
			continue;
		kernel_sock_shutdown(sf->sock, SHUT_WR);
		WRITE_ONCE(sf->fin_sent, true);
	}
	return pending;
}

/*
 * Flush every subflow's unfinished ack and block, give the blocks that
 * wait for a subflow one, send the acknowledgment, and once both ends of
 * the stream are done, the subflows' FINs.  A subflow that fails is
 * killed.
 */
static __pstripe_hot void pstripe_push(struct pstripe_sock *ps, bool ack)
{
	u32 ack_sent = ps->ack_sent;
	bool pending;

	if (ps->fallback)
		return;
	/* Our end-of-stream block, which found no memory before. */
	if (ps->fin_nomem && !ps->closing)
		pstripe_queue_fin(ps);
	pending = pstripe_push_subflows(ps);
	pstripe_rtx_trim(ps);
	pending |= pstripe_push_orphans(ps);
	pending |= pstripe_push_ack(ps, ack);
	pending |= pstripe_tail(ps);
	pending |= pstripe_push_fins(ps);
	WRITE_ONCE(ps->snd_pending, pending);
	/* A delayed acknowledgment not due yet: the work sends it then. */
	if (ps->ack_delayed && !ps->closing)
		pstripe_schedule_by(ps, time_after(ps->ack_due, jiffies) ?
					ps->ack_due - jiffies : 0);
	/*
	 * An ack written to a subflow whose path is gone is lost with it:
	 * the stale check must watch that subflow even when we have no
	 * block of our own in flight (it runs while data is outstanding).
	 */
	if (ack_sent != ps->ack_sent && !ps->closing &&
	    !delayed_work_pending(&ps->work))
		pstripe_schedule(ps, max_t(unsigned long,
					   pstripe_stale_jiffies(ps_sk(ps)) / 4,
					   1));
}

/* Everything, the acknowledgment owed included when it is due. */
void pstripe_push_all(struct pstripe_sock *ps)
{
	pstripe_push(ps, true);
}

/*
 * Make the peer's TCP answer on subflow @i, which has nothing to deliver:
 * our last acknowledgment again (one the peer has: it ignores it), so that
 * the stale check learns whether @i's path works.
 */
void pstripe_sf_probe(struct pstripe_sock *ps, int i)
{
	struct pstripe_subflow *sf = ps->sf[i];

	if (!sf->busy && !sf->fin_sent)
		pstripe_sf_ack(ps, i, ps->ack_sent);
}

/*
 * Queue the end-of-stream block (shutdown(SHUT_WR), close()).  Without
 * memory for it, the work tries again every PSTRIPE_NOMEM_RETRY
 * (pstripe_push()): the subflows' FINs wait for that block, so the peer
 * would otherwise never see the end of the stream after a shutdown().
 */
void pstripe_queue_fin(struct pstripe_sock *ps)
{
	struct pstripe_blkhdr *bh;
	struct pstripe_blk *blk;

	if (ps->fallback || ps->fin_queued)
		return;
	blk = pstripe_blk_alloc(ps, sizeof(*bh));
	if (!blk) {
		ps->fin_nomem = true;
		pstripe_schedule_by(ps, PSTRIPE_NOMEM_RETRY);
		return;
	}
	ps->fin_nomem = false;
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
	WRITE_ONCE(ps->fin_queued, true);
}

/* Blocks kept for the peer and blocks received ahead: gone with the socket. */
void pstripe_free_blocks(struct pstripe_sock *ps)
{
	struct pstripe_blk *blk, *tmp;

	list_for_each_entry_safe(blk, tmp, &ps->rtx, node) {
		list_del(&blk->node);
		pstripe_blk_free(blk);
	}
	list_for_each_entry_safe(blk, tmp, &ps->ooo, node) {
		list_del(&blk->node);
		pstripe_rblk_free(ps, blk);
	}
	if (ps->spare)
		pstripe_blk_free(ps->spare);
	ps->spare = NULL;
	ps->rtx_bytes = 0;
	ps->rtx_cnt = 0;
	ps->orphans = 0;
	ps->ooo_cnt = 0;
}

/*
 * An acknowledgment owed goes in front of block @blk just given to
 * subflow @i, in the same segment (pstripe_sf_push()): a standalone one,
 * still unacknowledged by TCP when the block follows, would make Nagle
 * hold the block for the peer's delayed ACK (bench/psock_rr.sh).
 */
static void pstripe_ack_ride(struct pstripe_sock *ps, int i,
			     struct pstripe_blk *blk)
{
	struct pstripe_subflow *sf = ps->sf[i];
	struct pstripe_blkhdr *bh = (void *)sf->abuf;

	if (!ps->ack_pending && !ps->ack_delayed)
		return;
	ps->ack_sent = ps->rcv_seq;
	ps->ack_pending = false;
	ps->ack_delayed = false;
	bh->seq = htonl(ps->ack_sent);
	bh->len = htonl(PSTRIPE_LEN_ACK);
	sf->alen = sizeof(*bh);
	sf->aoff = 0;
	blk->sf_end += sizeof(*bh);
}

/* Copy one block of the caller's data to a subflow with room for it. */
__pstripe_hot int pstripe_send_block(struct pstripe_sock *ps,
				     struct msghdr *msg)
{
	size_t left = msg_data_left(msg), blen, got;
	struct pstripe_blkhdr *bh;
	struct pstripe_blk *blk;
	int best, err;

	pstripe_push(ps, false);
	if (!ps->nlive)		/* waiting for a rejoin: pstripe_limbo_enter() */
		return pstripe_failed(ps) ? -ECONNRESET : -EAGAIN;
	/*
	 * The fewest blocks for the write, of equal size: a write of 16384
	 * bytes (nc's) is two of 8192, not 16376 and 8, which in round-robin
	 * gave every other subflow only the 8-byte ones.
	 */
	blen = DIV_ROUND_UP(left, DIV_ROUND_UP(left, PSTRIPE_BLK_MAX));
	/* Resent blocks first; new ones within the send buffer. */
	if (ps->orphans || !pstripe_rtx_room(ps, blen))
		return -EAGAIN;
	best = pstripe_pick(ps, blen, false);
	if (best < 0)
		return -EAGAIN;
	blk = pstripe_blk_alloc(ps, sizeof(*bh) + blen);
	if (!blk)
		return -ENOMEM;
	got = copy_from_iter(blk->data + sizeof(*bh), blen, &msg->msg_iter);
	if (!got) {
		pstripe_blk_free(blk);
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
	pstripe_ack_ride(ps, best, blk);
	if (ps->neg_driver == PSOCK_DRIVER_ROUND_ROBIN)
		pstripe_rr_advance(ps, best);
	err = pstripe_sf_push(ps->sf[best]);
	if (err == -EAGAIN)
		WRITE_ONCE(ps->snd_pending, true);
	else if (err)
		pstripe_sf_kill(ps, best, err);	/* the block waits for another */
	/*
	 * Stale checks run while blocks are unacknowledged, the first a
	 * quarter of a stale timeout from now: a work run per message would
	 * cost small messages a hop to a kworker and back (bench/psock_rr.sh).
	 */
	if (!delayed_work_pending(&ps->work))
		pstripe_schedule(ps, max_t(unsigned long,
					   pstripe_stale_jiffies(ps_sk(ps)) / 4,
					   1));
	return got;
}

/*
 * Must the work read the acknowledgments that came in now, or may they
 * wait for the reader or the next stale check?  Now when a writer may be
 * waiting for room (or poll() for POLLOUT), when the end of our stream is
 * queued (the subflows' FINs wait for its acknowledgment) and for an
 * orphaned socket; a reader that takes the data takes them on its way.
 * Lockless: from the subflows' data callback.
 */
__pstripe_hot bool pstripe_acks_urgent(struct pstripe_sock *ps)
{
	return READ_ONCE(ps->rtx_cnt) &&
	       (READ_ONCE(ps->fin_queued) || READ_ONCE(ps->bg_close) ||
		!pstripe_rtx_room(ps, PSTRIPE_BLK_MAX));
}

/*
 * An undecided optimistic client sends at most PSTRIPE_OPT_MAX plain bytes
 * before the hello timeout (handshake.c); 0: no more for now.
 */
static size_t pstripe_opt_room(const struct pstripe_sock *ps)
{
	if (!ps->opt || ps->opt_over)
		return SIZE_MAX;
	return PSTRIPE_OPT_MAX - min_t(u32, ps->opt_sent, PSTRIPE_OPT_MAX);
}

/* Lockless: may the application write now (pstripe_snd_ready())? */
bool pstripe_opt_may_send(const struct pstripe_sock *ps)
{
	return !READ_ONCE(ps->opt) || READ_ONCE(ps->opt_over) ||
	       READ_ONCE(ps->opt_sent) < PSTRIPE_OPT_MAX;
}

int pstripe_send_plain(struct pstripe_sock *ps, struct msghdr *msg)
{
	struct pstripe_subflow *sf = ps->sf[0];
	unsigned int flags = msg->msg_flags;
	size_t room = pstripe_opt_room(ps);
	size_t left = msg_data_left(msg);
	int r;

	if (!room)
		return -EAGAIN;
	if (left > room)
		iov_iter_truncate(&msg->msg_iter, room);
	msg->msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL;
	r = ps->opt_probe ? pstripe_opt_send_first(ps, msg) :
			    sock_sendmsg(sf->sock, msg);
	msg->msg_flags = flags;
	if (left > room)
		iov_iter_reexpand(&msg->msg_iter,
				  msg_data_left(msg) + left - room);
	if (r > 0) {
		sf->bytes_sent += r;
		ps->plain_sent = true;
		if (ps->opt) {
			WRITE_ONCE(ps->opt_sent,
				   ps->opt_sent + min_t(u32, r, U32_MAX -
							ps->opt_sent));
			/* Past the mark's reach: plain TCP for good. */
			if (ps->opt_sent > PSTRIPE_OPT_MAX)
				pstripe_opt_plain(ps, "plain bytes past the limit before a hello");
		}
	}
	return r ? r : -EAGAIN;
}

/*
 * Before the reader sleeps or returns: what was delivered is acknowledged
 * within PSTRIPE_ACK_DELAY, by the next block we send (pstripe_ack_ride())
 * or alone, as TCP delays its ACKs.  At once when it is due already: 8
 * blocks (PSTRIPE_ACK_EVERY, so a peer never waits for room), a subflow
 * lost, the end of the stream once our own end is queued
 * (pstripe_rcv_fin()).
 */
__pstripe_hot void pstripe_ack_now(struct pstripe_sock *ps)
{
	if (ps->fallback || ps_sk(ps)->sk_state != TCP_ESTABLISHED)
		return;
	pstripe_ack_delay(ps);
	if (ps->ack_pending)
		pstripe_push_all(ps);
}

/*
 * What was delivered and not acknowledged yet: acknowledged within
 * PSTRIPE_ACK_DELAY (by the work, pstripe_push_ack(), unless a block
 * carries it before).  Nothing to do when an acknowledgment is owed or
 * timed already, or the socket is torn down.
 */
void pstripe_ack_delay(struct pstripe_sock *ps)
{
	if (ps->rcv_seq == ps->ack_sent || ps->ack_pending ||
	    ps->ack_delayed || ps->closing)
		return;
	ps->ack_delayed = true;
	ps->ack_due = jiffies + PSTRIPE_ACK_DELAY;
	pstripe_schedule_by(ps, PSTRIPE_ACK_DELAY);
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
void pstripe_flush_final(struct pstripe_sock *ps)
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
