// SPDX-License-Identifier: GPL-2.0
/*
 * PSOCK receive path: parsing block headers on the subflows, the reorder
 * queue, and delivering the stream to recvmsg() in order.
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
 * Received blocks kept by the PSOCK socket itself (the reorder queue and
 * the block being copied into it) are charged to its sk_rmem_alloc.  The
 * limit is sk_rcvbuf, never less than what a peer keeping to the window
 * we offered can make us hold (pstripe_rcv_win()): past it the peer is
 * broken, and -EPROTO resets the connection.  Below it, the pool of every
 * socket's blocks may be full (pstripe_mem_ahead_ok()): -ENOBUFS leaves
 * the block in its subflow for now.  -ENOMEM, no memory for it: it stays
 * in its subflow too.  Either way pstripe_rcv_find() tries again after
 * the work has run (PSTRIPE_NOMEM_RETRY), not at once: the block is still
 * there, and a reader that tried again at once would spin.
 */
struct pstripe_blk *pstripe_rblk_alloc(struct pstripe_sock *ps,
				       u32 len)
{
	struct sock *sk = ps_sk(ps);
	struct pstripe_blk *blk;
	size_t size = sizeof(*blk) + len;
	size_t limit = max_t(size_t, READ_ONCE(sk->sk_rcvbuf),
			     pstripe_rcv_win(ps));

	if (atomic_read(&sk->sk_rmem_alloc) + size > limit)
		return ERR_PTR(-EPROTO);
	if (!pstripe_mem_ahead_ok(ps, size))
		return ERR_PTR(-ENOBUFS);
	blk = pstripe_blk_alloc(ps, len);
	if (!blk)
		return ERR_PTR(-ENOMEM);
	atomic_add(size, &sk->sk_rmem_alloc);
	blk->size = len;
	return blk;
}

void pstripe_rblk_free(struct pstripe_sock *ps, struct pstripe_blk *blk)
{
	if (!blk)
		return;
	atomic_sub(sizeof(*blk) + blk->size, &ps_sk(ps)->sk_rmem_alloc);
	pstripe_blk_free(blk);
}

/* Drop the block @sf was copying into the reorder queue. */
void pstripe_sf_drop_pull(struct pstripe_sock *ps,
			  struct pstripe_subflow *sf)
{
	pstripe_rblk_free(ps, sf->pull);
	sf->pull = NULL;
}

/*
 * Subflow @sf's header is complete in @hdr: take it.  An ack is taken at
 * once (0, the next header follows); a block's header makes @hdr_valid
 * (0).  <0 a protocol error.
 */
static __pstripe_hot int pstripe_sf_hdr_done(struct pstripe_sock *ps,
					     struct pstripe_subflow *sf)
{
	struct pstripe_blkhdr *bh = (struct pstripe_blkhdr *)sf->hdr;
	u32 seq = ntohl(bh->seq), len = ntohl(bh->len);
	s32 d;

	sf->hdr_got = 0;
	if (len == PSTRIPE_LEN_ACK)
		return pstripe_got_ack(ps, seq);
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
	return 0;
}

/* One pass over a subflow's TCP queue (pstripe_sf_actor()). */
struct pstripe_sf_rd {
	struct pstripe_sock	*ps;
	int			i;
	struct msghdr		*msg;	/* the reader's, or NULL */
	int			copied;	/* bytes copied to @msg */
	int			err;
	bool			done;	/* a block was completed for @msg */
};

static bool pstripe_ooo_has(struct pstripe_sock *ps, u32 seq);
static void pstripe_rcv_next(struct pstripe_sock *ps);

/*
 * May the payload of the block whose header subflow @sf holds go straight
 * to the reader?  When it is the next block of the stream, no copy of it
 * was queued or partly delivered elsewhere, and the reader reads it from
 * no other place.  Yes makes it the reader's current block (@rcv_cur).
 */
static bool pstripe_sf_direct(struct pstripe_sf_rd *rd,
			      struct pstripe_subflow *sf)
{
	struct pstripe_sock *ps = rd->ps;

	if (!rd->msg || !msg_data_left(rd->msg) || sf->blk_fin || sf->dup ||
	    sf->pull || sf->blk_seq != ps->rcv_seq)
		return false;
	if (ps->rcv_cur == rd->i)
		return ps->rcv_off == sf->blk_len - sf->blk_rem;
	if (ps->rcv_cur >= 0 || ps->rcv_off || pstripe_ooo_has(ps, sf->blk_seq))
		return false;
	WRITE_ONCE(ps->rcv_cur, rd->i);
	return true;
}

/* Payload of @sf's current block from @skb to the reader; bytes or <0. */
static int pstripe_sf_deliver(struct pstripe_sf_rd *rd,
			      struct pstripe_subflow *sf, struct sk_buff *skb,
			      unsigned int off, size_t len)
{
	size_t n = min3(len, (size_t)sf->blk_rem, msg_data_left(rd->msg));

	if (skb_copy_datagram_iter(skb, off, &rd->msg->msg_iter, n))
		return -EFAULT;
	rd->copied += n;
	sf->blk_rem -= n;
	rd->ps->rcv_off += n;
	if (!sf->blk_rem) {
		WRITE_ONCE(sf->hdr_valid, false);
		pstripe_rcv_next(rd->ps);
		rd->done = true;
	}
	return n;
}

/*
 * tcp_read_sock()'s actor: take headers from @skb (acks on the way) and,
 * for a reader, the payload of the block that is next in the stream; stop
 * at the payload of any other block, at a bad header, or once the
 * reader's block is complete (an error in the headers after it is the
 * next read's, as it would be without this pass).  Bytes taken.
 */
static __pstripe_hot int pstripe_sf_actor(read_descriptor_t *desc,
					  struct sk_buff *skb, unsigned int off,
					  size_t len)
{
	struct pstripe_sf_rd *rd = desc->arg.data;
	struct pstripe_subflow *sf = rd->ps->sf[rd->i];
	size_t used = 0, n;
	int r;

	while (used < len && !rd->err && !rd->done) {
		if (sf->hdr_valid) {
			if (!pstripe_sf_direct(rd, sf))
				break;
			r = pstripe_sf_deliver(rd, sf, skb, off + used,
					       len - used);
			if (r < 0)
				rd->err = r;
			else
				used += r;
			continue;
		}
		n = min_t(size_t, len - used, sizeof(sf->hdr) - sf->hdr_got);
		if (skb_copy_bits(skb, off + used, sf->hdr + sf->hdr_got, n)) {
			rd->err = -EFAULT;
			break;
		}
		used += n;
		sf->hdr_got += n;
		if (sf->hdr_got == sizeof(sf->hdr))
			rd->err = pstripe_sf_hdr_done(rd->ps, sf);
	}
	sf->bytes_received += used;
	return used;
}

/*
 * What subflow @i's TCP holds, taken in one pass under its lock: headers
 * (an ack in front of a block costs no read of its own) and, with @msg,
 * the payload of the next block of the stream, straight to the reader
 * (bench/psock_rr.sh).  >=0 bytes copied to @msg, @*took the bytes taken
 * from TCP (0: nothing there, or what is there needs a read: urgent data,
 * the end of the stream, an error); <0 a protocol error or -EFAULT.
 */
static __pstripe_hot int pstripe_sf_read(struct pstripe_sock *ps, int i,
					 struct msghdr *msg, int *took)
{
	struct pstripe_sf_rd rd = { .ps = ps, .i = i, .msg = msg };
	read_descriptor_t desc = { .arg.data = &rd, .count = 1 };
	struct sock *ssk = ps->sf[i]->sock->sk;
	int r;

	sock_owned_by_me(ps_sk(ps));
	lock_sock(ssk);
	r = tcp_read_sock(ssk, &desc, pstripe_sf_actor);
	release_sock(ssk);
	*took = max(r, 0);
	if (rd.err == -EFAULT && (!msg || rd.copied))
		rd.err = 0;	/* not the reader's: a read says (or again) */
	return rd.err ? rd.err : rd.copied;
}

/*
 * Read the header at the head of subflow @i unless one is known; acks
 * are taken on the way.  0 when a header is known or nothing more can be
 * read now (the subflow may have been killed); <0 a protocol error.
 */
static __pstripe_hot int pstripe_sf_parse(struct pstripe_sock *ps, int i)
{
	struct pstripe_subflow *sf = ps->sf[i];
	int r, took;

	while (pstripe_sf_live(sf) && !sf->hdr_valid && !sf->eof) {
		/* Lockless, as poll(): an empty subflow costs no lock. */
		if (!pstripe_sf_readable(sf))
			return 0;
		r = pstripe_sf_read(ps, i, NULL, &took);
		if (r < 0)
			return r;
		if (took)
			continue;
		/* What a pass cannot take: a read says what it is. */
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
		r = pstripe_sf_hdr_done(ps, sf);
		if (r)
			return r;
	}
	return 0;
}

/*
 * SO_RCVLOWAT for poll(): are that many bytes there?  Lockless: the bytes
 * the subflows' TCP holds and the blocks the socket keeps are counted,
 * headers and blocks still out of order included, so this may say yes a
 * little early (a read then waits, or returns less); never too late.
 */
bool pstripe_rcv_lowat_met(struct pstripe_sock *ps)
{
	struct sock *sk = ps_sk(ps);
	int low = READ_ONCE(sk->sk_rcvlowat), i;
	s64 bytes;

	if (low <= 1 || READ_ONCE(ps->rcv_eof) ||
	    (READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN) ||
	    pstripe_failed(ps))
		return true;
	bytes = atomic_read(&sk->sk_rmem_alloc);
	for (i = 0; i < READ_ONCE(ps->nsf) && bytes < low; i++) {
		const struct pstripe_subflow *sf = READ_ONCE(ps->sf[i]);
		const struct tcp_sock *tp;

		if (!pstripe_sf_live(sf))
			continue;
		tp = tcp_sk(sf->sock->sk);
		bytes += (u32)(READ_ONCE(tp->rcv_nxt) -
			       READ_ONCE(tp->copied_seq));
	}
	return bytes >= low;
}

/*
 * Can subflow @sf move without a block of the pool?  A header to read, a
 * block half copied, a copy to drop or the next block can; a later block
 * at its head cannot.  Lockless (poll).
 */
static bool pstripe_sf_needs_no_pool(const struct pstripe_sock *ps,
				     const struct pstripe_subflow *sf)
{
	return !READ_ONCE(sf->hdr_valid) || READ_ONCE(sf->pull) ||
	       READ_ONCE(sf->dup) ||
	       (s32)(READ_ONCE(sf->blk_seq) - READ_ONCE(ps->rcv_seq)) <= 0;
}

/*
 * Is the header at @sf's head, read already, the end of the stream and
 * the next block?  The work reads headers too (pstripe_sf_clear()), and
 * that block has no payload: TCP holds nothing more for a reader to see.
 * Lockless (poll).
 */
static bool pstripe_sf_end_next(const struct pstripe_sock *ps,
				const struct pstripe_subflow *sf)
{
	return READ_ONCE(sf->hdr_valid) && READ_ONCE(sf->blk_fin) &&
	       READ_ONCE(sf->blk_seq) == READ_ONCE(ps->rcv_seq);
}

/* Can recv() make progress?  Lockless for poll(); exact under the lock. */
__pstripe_hot bool pstripe_rcv_ready(struct pstripe_sock *ps)
{
	struct sock *sk = ps_sk(ps);
	bool nomem;
	int i, cur;

	if ((READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN) ||
	    READ_ONCE(ps->rcv_eof))
		return true;
	if (ps->fallback)
		return pstripe_sf_readable(ps->sf[0]) && pstripe_late_ready(ps);
	cur = READ_ONCE(ps->rcv_cur);
	if (cur == PSTRIPE_CUR_OOO)
		return true;
	nomem = READ_ONCE(ps->rcv_nomem);
	/*
	 * The current block's subflow, or another one: headers to read,
	 * later blocks to pull, copies to drop, a resent copy of the
	 * current block when its subflow went silent.  A later block that
	 * found no memory (@rcv_nomem) is not worth a look before the work
	 * has run: what waits behind it is not (the reader would spin).
	 */
	for (i = 0; i < ps->nsf; i++) {
		const struct pstripe_subflow *sf = ps->sf[i];

		if (pstripe_sf_live(sf) && !READ_ONCE(sf->eof) &&
		    ((pstripe_sf_readable(sf) &&
		      (!nomem || pstripe_sf_needs_no_pool(ps, sf))) ||
		     pstripe_sf_end_next(ps, sf)))
			return true;
	}
	return pstripe_failed(ps);
}

/*
 * The peer's stream is complete, read or not (as TCP's RCV_SHUTDOWN):
 * every block up to its end-of-stream block arrived, in the reorder
 * queue or being read from a subflow, or that block is the next one and
 * its header was read; or every subflow got the peer's FIN.  An
 * end-of-stream block that came ahead of earlier blocks is not the end
 * yet.  Lockless for poll().
 */
bool pstripe_peer_fin(struct pstripe_sock *ps)
{
	int i, cur;

	if (READ_ONCE(ps->rcv_fin_known)) {
		cur = READ_ONCE(ps->rcv_cur);
		return READ_ONCE(ps->ooo_cnt) +
		       (cur >= 0 && cur != PSTRIPE_CUR_OOO) >=
		       READ_ONCE(ps->rcv_fin_seq) - READ_ONCE(ps->rcv_seq) + 1;
	}
	for (i = 0; i < ps->nsf; i++)
		if (pstripe_sf_live(ps->sf[i]) &&
		    pstripe_sf_end_next(ps, ps->sf[i]))
			return true;
	for (i = 0; i < ps->nsf; i++)
		if (pstripe_sf_live(ps->sf[i]) &&
		    !(READ_ONCE(ps->sf[i]->sock->sk->sk_shutdown) &
		      RCV_SHUTDOWN))
			return false;
	return ps->nsf > 0;
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

/*
 * Drop the rest of the block at the head of subflow @i, a copy of one
 * delivered or kept already (DupsDropped): 0 when done, -EAGAIN, <0 an
 * error, or it was killed.
 */
static int pstripe_sf_drop_dup(struct pstripe_sock *ps, int i)
{
	struct pstripe_subflow *sf = ps->sf[i];
	int r;

	r = pstripe_sf_drop(ps, i, sf->blk_rem);
	if (r || !pstripe_sf_live(sf))
		return r;
	WRITE_ONCE(sf->hdr_valid, false);
	/* As BlocksReceived: data blocks, not the end of the stream. */
	if (!sf->blk_fin)
		pstripe_mib_inc(sock_net(ps_sk(ps)), PSTRIPE_MIB_DUPS_DROPPED);
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
int pstripe_sf_clear(struct pstripe_sock *ps, int i)
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
		r = pstripe_sf_drop_dup(ps, i);
		if (r == -EAGAIN)
			return 0;
		if (r || !pstripe_sf_live(sf))
			return r;
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
		if (!blk->fin)
			pstripe_mib_inc(sock_net(ps_sk(ps)),
					PSTRIPE_MIB_DUPS_DROPPED);
		pstripe_rblk_free(ps, blk);
		return;
	}
	list_for_each_entry(pos, &ps->ooo, node) {
		if ((s32)(pos->seq - blk->seq) > 0)
			break;
	}
	list_add_tail(&blk->node, &pos->node);
	WRITE_ONCE(ps->ooo_cnt, ps->ooo_cnt + 1);
	/* The block the reader needs next: poll() says so (rcv_ready). */
	if (blk->seq == ps->rcv_seq && !blk->fin)
		WRITE_ONCE(ps->rcv_cur, PSTRIPE_CUR_OOO);
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
		WRITE_ONCE(ps->rcv_fin_seq, blk->seq);
		WRITE_ONCE(ps->rcv_fin_known, true);
	}
	sf->pull = NULL;
	WRITE_ONCE(sf->hdr_valid, false);
	pstripe_ooo_add(ps, blk);
	return 0;
}

/*
 * The next block.  When it waits at the head of the reorder queue, it is
 * the current one at once: poll() (pstripe_rcv_ready()) looks at
 * @rcv_cur, never at the queue, and the subflows may have nothing more.
 */
static void pstripe_rcv_next(struct pstripe_sock *ps)
{
	struct pstripe_blk *blk;

	WRITE_ONCE(ps->rcv_seq, ps->rcv_seq + 1);
	ps->rcv_off = 0;
	blk = list_first_entry_or_null(&ps->ooo, struct pstripe_blk, node);
	WRITE_ONCE(ps->rcv_cur, blk && blk->seq == ps->rcv_seq && !blk->fin ?
				PSTRIPE_CUR_OOO : -1);
	if ((s32)(ps->rcv_seq - ps->ack_sent) >= PSTRIPE_ACK_EVERY)
		ps->ack_pending = true;
}

/*
 * The end-of-stream block is the next one: the stream is complete.  Its
 * acknowledgment goes at once only when our own end is queued already;
 * else it waits PSTRIPE_ACK_DELAY for an answer to ride (the peer's
 * request ended by shutdown()), as TCP delays the ACK of a FIN that moves
 * it to CLOSE_WAIT (tcp_fin(): pingpong mode).  Alone, unacknowledged by
 * TCP when the answer followed, it made Nagle hold a small answer on the
 * same subflow for the peer's delayed ACK (bench/psock_rr.sh).
 */
static void pstripe_rcv_fin(struct pstripe_sock *ps)
{
	WRITE_ONCE(ps->rcv_fin_seq, ps->rcv_seq);
	WRITE_ONCE(ps->rcv_fin_known, true);
	pstripe_rcv_next(ps);
	if (ps->fin_queued)
		ps->ack_pending = true;
	else
		pstripe_ack_delay(ps);
	WRITE_ONCE(ps->rcv_eof, true);
}

/*
 * Block @rcv_seq at the head of the reorder queue?  True when it is (the
 * reader takes it from there) or it was the end of stream.
 */
static bool pstripe_rcv_ooo_head(struct pstripe_sock *ps)
{
	struct pstripe_blk *blk;

	blk = list_first_entry_or_null(&ps->ooo, struct pstripe_blk, node);
	if (!blk || blk->seq != ps->rcv_seq)
		return false;
	if (blk->fin) {
		list_del(&blk->node);
		WRITE_ONCE(ps->ooo_cnt, ps->ooo_cnt - 1);
		pstripe_rblk_free(ps, blk);
		pstripe_rcv_fin(ps);
		return true;
	}
	WRITE_ONCE(ps->rcv_cur, PSTRIPE_CUR_OOO);
	return true;
}

/* What one look at the subflows found (pstripe_rcv_scan()). */
struct pstripe_rcv_look {
	int open;	/* subflows that may still bring blocks */
	int wait;	/* subflow whose header is @rcv_seq's, payload to come */
	bool progress;	/* a copy was dropped: look again */
};

/*
 * Subflow @i's header is read: drop a copy of a block delivered or queued
 * already.  1: it was one, 0: it was not, <0: an error.
 */
static int pstripe_rcv_drop_copy(struct pstripe_sock *ps, int i,
				 struct pstripe_rcv_look *look)
{
	struct pstripe_subflow *sf = ps->sf[i];
	int r;

	if (!sf->hdr_valid || sf->pull ||
	    (!sf->dup && (s32)(sf->blk_seq - ps->rcv_seq) >= 0 &&
	     !pstripe_ooo_has(ps, sf->blk_seq)))
		return 0;
	r = pstripe_sf_drop_dup(ps, i);
	if (r && r != -EAGAIN)
		return r;
	if (!r && pstripe_sf_live(sf))
		look->progress = true;
	look->open++;
	return 1;
}

/*
 * Read the header at the head of every subflow, dropping copies.  1: block
 * @rcv_seq found (@rcv_cur) or end of stream, 0: not there, <0: an error.
 */
static int pstripe_rcv_scan(struct pstripe_sock *ps,
			    struct pstripe_rcv_look *look)
{
	int i, r;

	for (i = 0; i < ps->nsf; i++) {
		struct pstripe_subflow *sf = ps->sf[i];

		r = pstripe_sf_parse(ps, i);
		if (r)
			return r;
		if (!pstripe_sf_live(sf))
			continue;
		r = pstripe_rcv_drop_copy(ps, i, look);
		if (r < 0)
			return r;
		if (r)
			continue;
		if (sf->hdr_valid && !sf->pull &&
		    sf->blk_seq == ps->rcv_seq) {
			if (sf->blk_fin) {
				WRITE_ONCE(sf->hdr_valid, false);
				pstripe_rcv_fin(ps);
				return 1;
			}
			/*
			 * Its payload is not there yet (its path may be
			 * gone): look for a resent copy elsewhere, and keep
			 * the others moving meanwhile.
			 */
			if (pstripe_sf_readable_data(sf)) {
				WRITE_ONCE(ps->rcv_cur, i);
				return 1;
			}
			look->wait = i;
		}
		if (!sf->eof)
			look->open++;
	}
	return 0;
}

/*
 * Move the later blocks at the head of the subflows into the reorder
 * queue.  0 or an error; @progress and @nomem say what happened.
 */
static int pstripe_rcv_pull_all(struct pstripe_sock *ps, bool *progress,
				bool *nomem)
{
	int i, r;

	for (i = 0; i < ps->nsf; i++) {
		struct pstripe_subflow *sf = ps->sf[i];

		if (!pstripe_sf_live(sf) || !sf->hdr_valid ||
		    (!sf->pull && sf->blk_seq == ps->rcv_seq))
			continue;
		r = pstripe_sf_pull(ps, i);
		if (!r)
			*progress = true;
		else if (r == -ENOMEM || r == -ENOBUFS)
			*nomem = true;
		else if (r != -EAGAIN)
			return r;
	}
	return 0;
}

/* Block @rcv_seq is nowhere yet: wait, or say why it never will come. */
static int pstripe_rcv_missing(struct pstripe_sock *ps,
			       const struct pstripe_rcv_look *look, bool nomem)
{
	if (look->wait >= 0) {
		WRITE_ONCE(ps->rcv_cur, look->wait);
		return 0;
	}
	/*
	 * Our memory, not the peer's fault (no memory, or the pool over
	 * net.psock.mem): the block stays in its subflow (whose TCP window
	 * closes if it must) and is taken again once the work has run, as
	 * TCP's receiver drops a segment it has no memory for and waits for
	 * it again.  Meanwhile recv() and poll() wait, unless a subflow
	 * brings something that needs no memory (pstripe_rcv_ready()).
	 */
	if (nomem) {
		WRITE_ONCE(ps->rcv_nomem, true);
		pstripe_schedule_by(ps, PSTRIPE_NOMEM_RETRY);
		return -EAGAIN;
	}
	if (look->open)
		return -EAGAIN;
	if (!ps->nlive)
		return pstripe_failed(ps) ? -ECONNRESET : -EAGAIN;
	if (ps->ooo_cnt)
		return -EPROTO;	/* a block is missing: the peer broke it */
	/* Every subflow ended without an end-of-stream block. */
	WRITE_ONCE(ps->rcv_eof, true);
	return 0;
}

/*
 * Find block @rcv_seq: at the head of the reorder queue, or at the head of
 * a subflow (reading headers, dropping copies of delivered blocks, and
 * moving later blocks into the reorder queue until it shows up).  0: found
 * (or end of stream, @rcv_eof), -EAGAIN: not yet, other: an error.
 */
static __pstripe_hot int pstripe_rcv_find(struct pstripe_sock *ps)
{
	struct pstripe_rcv_look look;
	bool nomem = false;
	int r;

	WRITE_ONCE(ps->rcv_nomem, false);
	do {
		look = (struct pstripe_rcv_look){ .wait = -1 };
		if (pstripe_rcv_ooo_head(ps))
			return 0;
		r = pstripe_rcv_scan(ps, &look);
		if (r)
			return r > 0 ? 0 : r;
		if (look.progress)
			continue;
		r = pstripe_rcv_pull_all(ps, &look.progress, &nomem);
		if (r)
			return r;
	} while (look.progress);
	return pstripe_rcv_missing(ps, &look, nomem);
}

/*
 * Is there application data to read, or an end or error to report?
 * pstripe_rcv_ready() says only that a subflow holds bytes: they may be
 * nothing but the peer's acks.  Under the socket lock this looks as a
 * read would (taking the acks on the way), so that poll() does not report
 * EPOLLIN for a read that would block.
 */
bool pstripe_rcv_data(struct pstripe_sock *ps)
{
	int r;

	sock_owned_by_me(ps_sk(ps));
	if (ps->rcv_eof)
		return true;
	if (ps->rcv_cur < 0) {
		r = pstripe_rcv_find(ps);
		if (r)
			return r != -EAGAIN;
		if (ps->rcv_eof)
			return true;
	}
	if (ps->rcv_cur == PSTRIPE_CUR_OOO)
		return true;
	return pstripe_sf_readable_data(ps->sf[ps->rcv_cur]);
}

/* A connection that fell back to plain TCP reads its one subflow. */
static int pstripe_recv_plain(struct pstripe_sock *ps, struct msghdr *msg,
			      int flags)
{
	struct pstripe_subflow *sf;
	int r;

	r = pstripe_late_hello(ps);
	if (r)
		return r;
	/* An optimistic connection that turned striped: read it so. */
	if (!ps->fallback)
		return -EAGAIN;
	/*
	 * The server's first bytes, which say whether they are a hello,
	 * were not there when pstripe_late_hello() looked: reading now
	 * would take a hello that came since as data.  Wait for them.
	 */
	if (ps->late_hello)
		return -EAGAIN;
	/* An error a read that returned data left (pstripe_recvmsg()). */
	if (READ_ONCE(ps_sk(ps)->sk_err))
		return sock_error(ps_sk(ps));
	sf = ps->sf[0];
	r = sock_recvmsg(sf->sock, msg, flags);
	if (r > 0 && !(flags & MSG_PEEK))
		sf->bytes_received += r;
	if (!r)
		WRITE_ONCE(ps->rcv_eof, true);
	return r;
}

/* Copy from block @rcv_seq at the head of the reorder queue. */
static int pstripe_recv_ooo(struct pstripe_sock *ps, struct msghdr *msg,
			    int flags)
{
	struct pstripe_blk *blk;
	int r;

	blk = list_first_entry(&ps->ooo, struct pstripe_blk, node);
	r = copy_to_iter(blk->data + ps->rcv_off, blk->size - ps->rcv_off,
			 &msg->msg_iter);
	if (!r)
		return -EFAULT;
	if (flags & MSG_PEEK)
		return r;
	ps->rcv_off += r;
	if (ps->rcv_off == blk->size) {
		list_del(&blk->node);
		WRITE_ONCE(ps->ooo_cnt, ps->ooo_cnt - 1);
		pstripe_rblk_free(ps, blk);
		pstripe_rcv_next(ps);
	}
	return r;
}

/*
 * The next block of the stream straight from the subflow that holds it,
 * read in one pass with its headers.  >0 bytes copied, 0 none this way
 * (pstripe_rcv_find() looks everywhere, or says why not), <0 an error.
 */
static int pstripe_recv_direct(struct pstripe_sock *ps, struct msghdr *msg)
{
	int i, r, took;

	for (i = 0; i < ps->nsf; i++) {
		struct pstripe_subflow *sf = ps->sf[i];

		/* The reader's block is elsewhere, or in the reorder queue. */
		if (ps->rcv_cur >= 0 && ps->rcv_cur != i)
			continue;
		if (!pstripe_sf_live(sf) || sf->eof || sf->pull ||
		    (sf->hdr_valid && sf->blk_seq != ps->rcv_seq) ||
		    !pstripe_sf_readable(sf))
			continue;
		r = pstripe_sf_read(ps, i, msg, &took);
		if (r)
			return r;
	}
	return 0;
}

/* One read step: >0 bytes copied, 0 end of stream, <0 error / -EAGAIN. */
__pstripe_hot int pstripe_recv_step(struct pstripe_sock *ps, struct msghdr *msg,
				    int flags)
{
	struct pstripe_subflow *sf;
	size_t count;
	int r, i;

	flags = (flags & MSG_PEEK) | MSG_DONTWAIT;
	if (ps->fallback)
		return pstripe_recv_plain(ps, msg, flags);
again:
	if (ps->rcv_eof)
		return 0;
	if (!(flags & MSG_PEEK)) {
		r = pstripe_recv_direct(ps, msg);
		if (r)
			return r;
	}
	if (ps->rcv_cur < 0) {
		r = pstripe_rcv_find(ps);
		if (r)
			return r;
		if (ps->rcv_eof)
			return 0;
	}
	if (ps->rcv_cur == PSTRIPE_CUR_OOO)
		return pstripe_recv_ooo(ps, msg, flags);
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

/*
 * Data of the application's at the head of subflow @i?  Acks, copies of
 * blocks delivered already (pstripe_sf_clear() drops them) and the peer's
 * end of stream are not; bytes that arrive while we look (an ack the peer
 * sent meanwhile) are looked at too, and half a header or the rest of a
 * copy still to come is not taken for data yet.
 */
static bool pstripe_sf_unread(struct pstripe_sock *ps, int i)
{
	struct pstripe_subflow *sf = ps->sf[i];

	while (pstripe_sf_live(sf)) {
		if (pstripe_sf_clear(ps, i) || sf->pull)
			return true;
		if (!pstripe_sf_live(sf))
			break;
		if (sf->hdr_valid) {
			if (sf->dup)
				break;
			if (!sf->blk_fin)
				return true;
			WRITE_ONCE(sf->hdr_valid, false);
			continue;
		}
		if (sf->hdr_got || sf->eof || !pstripe_sf_readable_data(sf))
			break;
	}
	return false;
}

/*
 * Did the application leave data unread?  Acks at the subflows' heads are
 * taken first: they are ours, not the application's.
 */
bool pstripe_unread(struct pstripe_sock *ps)
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
	for (i = 0; i < ps->nsf; i++)
		if (pstripe_sf_unread(ps, i))
			return true;
	return false;
}

/*
 * Copy @len bytes found @off bytes past what was read of subflow @ssk's
 * receive queue, without reading them.  Only this socket's owner reads
 * its subflows (under its lock); lock_sock() keeps the softirq away.
 */
static bool pstripe_sf_peek(struct sock *ssk, u32 off, void *buf, u32 len)
{
	struct sk_buff *skb;
	bool ok = false;
	u32 seq;

	lock_sock(ssk);
	seq = tcp_sk(ssk)->copied_seq + off;
	skb_queue_walk(&ssk->sk_receive_queue, skb) {
		u32 start = TCP_SKB_CB(skb)->seq, o, n;

		if ((s32)(seq - start) < 0)
			break;
		o = seq - start;
		if (o >= skb->len)
			continue;
		n = min(len, skb->len - o);
		if (skb_copy_bits(skb, o, buf, n))
			break;
		buf += n;
		len -= n;
		seq += n;
		if (!len) {
			ok = true;
			break;
		}
	}
	release_sock(ssk);
	return ok;
}

/* Where pstripe_inq() is in one subflow's receive queue. */
struct pstripe_inq_cur {
	u32	off;	/* bytes of the queue before the payload of @seq */
	u32	avail;	/* bytes in the queue */
	u32	seq;	/* the block at the cursor */
	u32	len;	/* its payload bytes in the queue (from @off) */
	u32	have;	/* its payload bytes taken out of the queue already */
	bool	end;	/* nothing more known: no header, a FIN, junk */
};

/* Move @c to the next block header of subflow @ssk at @c->off. */
static void pstripe_inq_next(struct sock *ssk, struct pstripe_inq_cur *c,
			     const u8 *got, u32 ngot)
{
	struct pstripe_blkhdr bh;
	u32 len;

	for (;;) {
		if (ngot)
			memcpy(&bh, got, ngot);
		if (c->avail - c->off < sizeof(bh) - ngot ||
		    !pstripe_sf_peek(ssk, c->off, (u8 *)&bh + ngot,
				     sizeof(bh) - ngot)) {
			c->end = true;
			return;
		}
		c->off += sizeof(bh) - ngot;
		ngot = 0;
		len = ntohl(bh.len);
		if (len == PSTRIPE_LEN_ACK)
			continue;
		if (!len || len > PSTRIPE_BLK_MAX) {
			c->end = true;	/* the end of the stream, or junk */
			return;
		}
		c->seq = ntohl(bh.seq);
		c->len = len;
		c->have = 0;
		return;
	}
}

/* The cursor of live subflow @sf: the block it is in, or the next. */
static void pstripe_inq_start(struct pstripe_subflow *sf,
			      struct pstripe_inq_cur *c)
{
	struct sock *ssk = sf->sock->sk;
	const struct tcp_sock *tp = tcp_sk(ssk);

	memset(c, 0, sizeof(*c));
	lock_sock(ssk);
	c->avail = tp->rcv_nxt - tp->copied_seq;
	/* The peer's FIN takes a sequence number, not a byte. */
	if (c->avail && sock_flag(ssk, SOCK_DONE))
		c->avail--;
	release_sock(ssk);
	if (sf->eof) {
		c->end = true;
	} else if (sf->hdr_valid) {
		c->seq = sf->blk_seq;
		c->len = sf->blk_rem;
		c->have = sf->pull ? sf->poff : sf->blk_len - sf->blk_rem;
		c->end = sf->blk_fin;
	} else {
		pstripe_inq_next(ssk, c, sf->hdr, sf->hdr_got);
	}
}

/*
 * SIOCINQ: payload bytes a read returns now, in order, from block
 * @rcv_seq on: in the reorder queue, or arrived whole in a subflow's TCP
 * (whose queue is looked at, not read), until the first block that has
 * not arrived whole.  Under the lock.
 */
int pstripe_inq(struct pstripe_sock *ps)
{
	struct pstripe_blk *o = NULL;
	struct pstripe_inq_cur *cur;
	u32 seq = ps->rcv_seq, off = ps->rcv_off, got;
	int i, steps, nsf = ps->nsf;
	s64 n = 0;

	if (ps->fallback) {
		const struct tcp_sock *tp;

		if (!ps->sf[0])
			return 0;
		tp = tcp_sk(ps->sf[0]->sock->sk);
		n = (s32)(READ_ONCE(tp->rcv_nxt) - READ_ONCE(tp->copied_seq));
		if (n > 0 && sock_flag(ps->sf[0]->sock->sk, SOCK_DONE))
			n--;
		return clamp_t(s64, n, 0, INT_MAX);
	}
	if (ps->rcv_eof || !nsf)
		return 0;
	cur = kcalloc(nsf, sizeof(*cur), GFP_KERNEL);
	if (!cur)
		return 0;
	for (i = 0; i < nsf; i++) {
		if (pstripe_sf_live(ps->sf[i]))
			pstripe_inq_start(ps->sf[i], &cur[i]);
		else
			cur[i].end = true;
	}
	o = list_first_entry_or_null(&ps->ooo, struct pstripe_blk, node);
	for (steps = 0; steps < PSTRIPE_WIN_BLKS; steps++, seq++, off = 0) {
		/* The reorder queue, in sequence order. */
		while (o && (s32)(o->seq - seq) < 0)
			o = list_is_last(&o->node, &ps->ooo) ? NULL :
			    list_next_entry(o, node);
		if (o && o->seq == seq) {
			if (o->fin)
				break;
			n += o->size - off;
			continue;
		}
		for (i = 0; i < nsf; i++) {
			struct pstripe_inq_cur *c = &cur[i];
			struct sock *ssk;

			if (c->end)
				continue;
			ssk = ps->sf[i]->sock->sk;
			/* Copies of blocks delivered already. */
			while (!c->end && (s32)(c->seq - seq) < 0) {
				if (c->avail - c->off < c->len) {
					c->end = true;
					break;
				}
				c->off += c->len;
				pstripe_inq_next(ssk, c, NULL, 0);
			}
			if (!c->end && c->seq == seq)
				break;
		}
		if (i == nsf)
			break;		/* not arrived yet */
		got = cur[i].have + min(cur[i].len, cur[i].avail - cur[i].off);
		if (got > off)
			n += got - off;
		if (got < cur[i].have + cur[i].len)
			break;		/* arrived in part */
		cur[i].off += cur[i].len;
		pstripe_inq_next(ps->sf[i]->sock->sk, &cur[i], NULL, 0);
	}
	kfree(cur);
	return clamp_t(s64, n, 0, INT_MAX);
}
