// SPDX-License-Identifier: GPL-2.0
/*
 * PSOCK drivers (the scheduler): which subflow gets the next block, the
 * next acknowledgment, and a second copy at the stream's tail.
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
 * Can @sf take a new block of @payload bytes now?  It must be alive, have
 * no block or ack of its own in flight and room for the block (or half its
 * buffer, so a small SO_SNDBUF still makes progress).  When it cannot,
 * SOCK_NOSPACE asks TCP to call sk_write_space once room is made.
 */
__pstripe_hot bool pstripe_sf_usable(struct pstripe_subflow *sf, size_t payload,
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
__pstripe_hot int pstripe_pick(struct pstripe_sock *ps, size_t payload,
			       bool any)
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
int pstripe_pick_ack(struct pstripe_sock *ps)
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
void pstripe_rr_advance(struct pstripe_sock *ps, int i)
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
struct pstripe_blk *pstripe_tail_pick(struct pstripe_sock *ps, int j)
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
