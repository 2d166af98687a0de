// SPDX-License-Identifier: GPL-2.0
/*
 * SOCK_CONS: the consumer transport.
 *
 * A fetch asks for segment 0 first (the newest version, the next one for a
 * subscription, or an explicit version); its answer carries the version,
 * the object length and the number of the final segment.  The consumer
 * then keeps a window of interests outstanding for the following segments
 * and hands the bytes to the reader in order.  How many: the congestion
 * window of cc.c (loss-based AIMD with slow start, between
 * HICN_MIN_WINDOW_SIZE and HICN_MAX_WINDOW_SIZE; HICN_WINDOW fixes it),
 * which grows with each segment received and is cut on a loss.
 *
 * Segments land in a ring of HICN_MAX_WINDOW_SIZE slots (segment s in
 * slot s % ring_size) as references on the producer's object: nothing is
 * copied until the reader's copy_to_iter().  The slots between the
 * reader's position and the last segment asked for hold segments received
 * and not yet read, and interests outstanding (at most the congestion
 * window of them).  CONS_REL resends an interest whose data did not come
 * within the retransmission timeout (RTO, from the RTT measured on the
 * segments, cc.c), or sooner when the data of an interest sent after it
 * came and its own did not within SRTT and a reordering window (RACK,
 * cc.c), up to HICN_RETX_LIMIT times; the last try waits for its
 * whole lifetime, then the fetch fails with ETIMEDOUT.  Data that comes
 * after its interest was resent fills the slot once (a slot that is no
 * longer PENDING ignores it) and gives no RTT sample (Karn).  CONS_UNREL
 * never retransmits: a segment whose lifetime ran out reads as zeros and
 * is counted (HICN_CMSG_LOST, hi_lost).
 *
 * Memory: the segments received and not yet read are charged to the
 * receive buffer (sk_rmem_alloc, HICN_INFO hi_rmem, SO_MEMINFO), and the
 * window sends an interest only while the segments asked for and not yet
 * read fit in SO_RCVBUF (always at least one), so a consumer makes the
 * kernel hold at most about SO_RCVBUF of objects however large HICN_WINDOW
 * and HICN_PACKET_SIZE are.  The buffer starts at net.core.rmem_default
 * and, unless the application sets SO_RCVBUF, grows as TCP's does when
 * it is what holds the window back: to four windows of segments, at most
 * net.ipv4.tcp_rmem's maximum (hicn_cons_rcvbuf_grow()).  Like the bytes
 * in a TCP socket's receive queue, they are also counted in the
 * protocol's memory (hicn_rcv_proto, limited by the "mem" parameter)
 * and charged to the consumer's memory cgroup as socket memory until
 * read, whoever delivers them (hicn_cons_rmem_schedule()).  The pages
 * themselves stay charged where they were allocated: a local producer's
 * to its memory cgroup (they are references, not copies), a UDP face's
 * to its rx work, as the content store keeps them after the read; the
 * ring is charged to the consumer's memory cgroup.
 *
 * Who drives it: the reader (recvmsg) runs the pump itself; when no reader
 * is there (non-blocking use, poll, a subscription waiting), a delayed
 * work runs it at the next deadline or when data arrives asynchronously.
 * Data from a local producer usually arrives synchronously, inside
 * hicn_fwd_interest() called by the pump; the data handler then only fills
 * the slot and never sends interests itself, which bounds the recursion.
 *
 * A subscription first asks the producer which version is the newest
 * (PROBE), then for the next version after it (NEXT), re-expressing that
 * interest every lifetime until a publication answers it.  It never goes
 * back: the next version is after the newest one the socket received of
 * that name too (@seen), whatever the PROBE answered (a producer that
 * claimed the namespace anew numbers from 1) and when it went unanswered.
 *
 * Lock order:
 *   lock_sock(consumer) -> hicn_cons.lock (BH off) -> hicn_net.pit_lock
 *   hicn_cons.lock is never held while the forwarder is entered.  The
 *   fetch state is changed by the lock_sock() owner (pump, reader) and
 *   by arriving data, both under hicn_cons.lock.
 */

#include <linux/ktime.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>

#include "hicn.h"

/* Windows of segments a receive buffer grows to (hicn_cons_rcvbuf_grow()). */
#define HICN_RCVBUF_WINDOWS	4

static struct hicn_net *hicn_cons_net(struct hicn_sock *hs)
{
	return hicn_pernet(sock_net(&hs->sk));
}

static void hicn_cons_exact(const struct hicn_cons *c, u32 seg,
			    struct hicn_key *key)
{
	memset(key, 0, sizeof(*key));
	key->name = c->first.name;
	key->ver = c->ver;
	key->seg = seg;
	key->kind = HICN_I_EXACT;
}

/* Length of segment @seg of the object being fetched. */
static u32 hicn_cons_seg_len(const struct hicn_cons *c, u32 seg)
{
	u64 off = (u64)seg * c->seg_size;

	if (c->nsegs <= 1)
		return c->obj_len;
	return min_t(u64, c->seg_size, c->obj_len - off);
}

/* Run the work at @when (hicn_cons.lock held). */
static void hicn_cons_arm(struct hicn_cons *c, unsigned long when)
{
	long delay = (long)(when - jiffies);

	lockdep_assert_held(&c->lock);
	if (c->closing)
		return;
	if (c->armed && !time_before(when, c->next_run))
		return;
	c->armed = true;
	c->next_run = when;
	mod_delayed_work(system_wq, &c->work, delay > 0 ? delay : 0);
}

/*
 * A segment is queued for the reader: its bytes are charged to the receive
 * buffer until the reader has them or the fetch is dropped (lock held).
 */
/*
 * @slot leaves hicn_cons.pending or .expiring if it is on one: its
 * interest is no longer outstanding (hicn_cons.lock held).
 */
static void hicn_cons_unpend(struct hicn_cons *c, struct hicn_slot *slot)
{
	lockdep_assert_held(&c->lock);
	if (slot->pending.next && !list_empty(&slot->pending)) {
		list_del_init(&slot->pending);
		c->in_flight--;
	}
}

/* Nothing of the window is outstanding any more (hicn_cons.lock held). */
static void hicn_cons_unpend_all(struct hicn_cons *c)
{
	INIT_LIST_HEAD(&c->pending);
	INIT_LIST_HEAD(&c->expiring);
	c->in_flight = 0;
}

/* The interest of @slot goes out now (hicn_cons.lock held). */
static void hicn_cons_sent(struct hicn_slot *slot, unsigned long now)
{
	slot->sent = now;
	slot->sent_ns = ktime_get_ns();
}

static void hicn_cons_slot_fill(struct hicn_sock *hs, struct hicn_slot *slot,
				const struct hicn_data *d)
{
	lockdep_assert_held(&hs->cons.lock);
	hicn_cons_unpend(&hs->cons, slot);
	slot->obj = hicn_obj_get(d->obj);
	slot->off = d->off;
	slot->len = d->len;
	slot->state = HICN_SLOT_READY;
	atomic_add(slot->len, &hs->sk.sk_rmem_alloc);
	atomic_add(slot->len, &hs->cons.rcv->sk_rmem_alloc);
	sk_mem_charge(hs->cons.rcv, slot->len);
}

/*
 * May the consumer hold @d's bytes for its reader?  As a UDP or TCP
 * socket's receive queue: they are counted in the protocol's memory
 * (hicn_rcv_proto, the "mem" module parameter) and charged to the memory
 * cgroup of the socket's creator (hicn_cons.rcv's sk_memcg), whichever
 * context delivers them.  Refused past the protocol's hard limit: the
 * data is dropped (sk_drops) and its interest sent again, as a packet
 * TCP drops is.  The caller holds hicn_cons.lock, with BH off: the cgroup
 * is charged without reclaim, as TCP's receive path charges it.
 */
static bool hicn_cons_rmem_schedule(struct hicn_sock *hs,
				    const struct hicn_data *d)
{
	struct sock *rcv = hs->cons.rcv;
	int len = d->len;

	lockdep_assert_held(&hs->cons.lock);
	if (len <= rcv->sk_forward_alloc ||
	    __sk_mem_schedule(rcv, len, SK_MEM_RECV))
		return true;
	atomic_inc(&hs->sk.sk_drops);
	return false;
}

/* Empty @slot, uncharging what it held (hicn_cons.lock held). */
static void hicn_cons_slot_clear(struct hicn_sock *hs, struct hicn_slot *slot)
{
	lockdep_assert_held(&hs->cons.lock);
	if (slot->state == HICN_SLOT_READY) {
		atomic_sub(slot->len, &hs->sk.sk_rmem_alloc);
		atomic_sub(slot->len, &hs->cons.rcv->sk_rmem_alloc);
		sk_mem_uncharge(hs->cons.rcv, slot->len);
		hicn_obj_put(slot->obj);
	}
	hicn_cons_unpend(&hs->cons, slot);
	memset(slot, 0, sizeof(*slot));
}

/*
 * Room for one more segment in flight (hicn_cons.lock held): the segments
 * asked for and not yet read, at most a full segment each, stay within
 * SO_RCVBUF; one is always allowed, so that a fetch makes progress.
 */
static bool hicn_cons_room(struct hicn_sock *hs)
{
	struct hicn_cons *c = &hs->cons;
	u64 out = c->next_req - c->base;

	lockdep_assert_held(&c->lock);
	return !out || (out + 1) * c->seg_size <=
		       (u64)READ_ONCE(hs->sk.sk_rcvbuf);
}

/*
 * The most a receive buffer grows to: the netns's tcp_rmem maximum, and
 * never more than the initial netns's (the owner of a netns made in a
 * user namespace may raise its tcp_rmem, not what AF_HICN holds).
 */
static int hicn_cons_rmem_max(const struct net *net)
{
	return min(READ_ONCE(net->ipv4.sysctl_tcp_rmem[2]),
		   READ_ONCE(init_net.ipv4.sysctl_tcp_rmem[2]));
}

/*
 * The receive buffer is what holds the window back: grow it, as TCP's
 * receive buffer grows, unless the application set SO_RCVBUF (lock_sock
 * and hicn_cons.lock held).  To HICN_RCVBUF_WINDOWS windows of segments:
 * one in flight, and those that arrive behind a lost one while it is
 * found and resent (about three round trips, RACK), at most the netns's
 * net.ipv4.tcp_rmem maximum (hicn_cons_rmem_max()).  It never shrinks.
 * Returns whether there is room now.
 */
static bool hicn_cons_rcvbuf_grow(struct hicn_sock *hs)
{
	struct hicn_cons *c = &hs->cons;
	struct sock *sk = &hs->sk;
	u64 want;

	lockdep_assert_held(&c->lock);
	sock_owned_by_me(sk);
	if (sk->sk_userlocks & SOCK_RCVBUF_LOCK)
		return false;
	want = min_t(u64, (u64)HICN_RCVBUF_WINDOWS * c->cc.cwnd * c->seg_size,
		     hicn_cons_rmem_max(sock_net(sk)));
	if (want <= (u64)sk->sk_rcvbuf)
		return false;
	WRITE_ONCE(sk->sk_rcvbuf, want);
	return hicn_cons_room(hs);
}

/* Give up the fetch in progress (hicn_cons.lock held). */
static void hicn_cons_abort(struct hicn_sock *hs)
{
	struct hicn_net *hn = hicn_cons_net(hs);
	struct hicn_cons *c = &hs->cons;
	struct hicn_slot *slot;
	struct hicn_key key;
	u32 seg;

	lockdep_assert_held(&c->lock);
	if (c->state == HICN_F_FIRST && c->first_slot.state == HICN_SLOT_PENDING)
		hicn_pit_cancel(hn, &c->first, hs->face);
	if (c->state == HICN_F_DATA) {
		for (seg = c->base; seg < c->next_req; seg++) {
			slot = &c->ring[seg % c->ring_size];
			if (slot->state == HICN_SLOT_PENDING) {
				hicn_cons_exact(c, seg, &key);
				hicn_pit_cancel(hn, &key, hs->face);
			}
			hicn_cons_slot_clear(hs, slot);
		}
	}
	memset(&c->first_slot, 0, sizeof(c->first_slot));
	hicn_cons_unpend_all(c);
	c->state = HICN_F_IDLE;
	c->gen++;
	c->fetch++;
}

/* Fail the fetch with @err, reported by recv() and SO_ERROR (lock held). */
static void hicn_cons_fail(struct hicn_sock *hs, int err)
{
	hicn_cons_abort(hs);
	WRITE_ONCE(hs->sk.sk_err, err);
	sk_error_report(&hs->sk);
}

/* Start a fetch of the target (hicn_cons.lock held, ring allocated). */
static void hicn_cons_begin(struct hicn_sock *hs)
{
	struct hicn_cons *c = &hs->cons;
	struct hicn_key *k = &c->first;

	lockdep_assert_held(&c->lock);
	memset(k, 0, sizeof(*k));
	k->name = c->target.sin_addr;
	if (c->subscribe) {
		k->kind = c->after_known ? HICN_I_NEXT : HICN_I_PROBE;
		k->ver = c->after_known ? c->after : 0;
	} else if (c->target.sin_suffix) {
		k->kind = HICN_I_EXACT;
		k->ver = c->target.sin_suffix;
	} else {
		k->kind = HICN_I_LATEST;
	}
	memset(&c->first_slot, 0, sizeof(c->first_slot));
	c->state = HICN_F_FIRST;
	c->ver = 0;
	c->nsegs = 0;
	c->obj_len = 0;
	c->seg_size = 0;
	c->base = 0;
	c->base_off = 0;
	c->next_req = 0;
	c->lost = 0;
	c->gen++;
	c->fetch++;
}

/*
 * Make sure the ring has HICN_MAX_WINDOW_SIZE slots before a fetch starts
 * (lock_sock held, no fetch in progress).
 */
static int hicn_cons_ring(struct hicn_sock *hs)
{
	struct hicn_cons *c = &hs->cons;
	struct hicn_slot *ring, *old;

	u32 size = c->cc.max;

	sock_owned_by_me(&hs->sk);
	if (c->ring && c->ring_size == size)
		return 0;
	ring = kvcalloc(size, sizeof(*ring), GFP_KERNEL_ACCOUNT);
	if (!ring)
		return -ENOMEM;
	spin_lock_bh(&c->lock);
	old = c->ring;
	c->ring = ring;
	c->ring_size = size;
	hicn_cons_unpend_all(c);	/* no fetch: nothing was pending */
	spin_unlock_bh(&c->lock);
	kvfree(old);
	return 0;
}

/**
 * hicn_cons_set_target() - the name to fetch (lock_sock held)
 * @hs: a consumer
 * @name: the name; its sin_suffix is the version
 *
 * The versions of another name received before say nothing of this one's.
 */
void hicn_cons_set_target(struct hicn_sock *hs,
			  const struct sockaddr_hicn *name)
{
	struct hicn_cons *c = &hs->cons;

	sock_owned_by_me(&hs->sk);
	spin_lock_bh(&c->lock);
	if (!ipv6_addr_equal(&c->target.sin_addr, &name->sin_addr))
		c->seen = 0;
	c->target = *name;
	spin_unlock_bh(&c->lock);
}

/**
 * hicn_cons_start() - (re)start fetching the target (lock_sock held)
 * @hs: a consumer with a target
 *
 * Used by connect(), bind() and HICN_SUBSCRIBE; a fetch in progress is
 * abandoned.
 */
void hicn_cons_start(struct hicn_sock *hs)
{
	struct hicn_cons *c = &hs->cons;

	sock_owned_by_me(&hs->sk);
	spin_lock_bh(&c->lock);
	hicn_cons_abort(hs);
	spin_unlock_bh(&c->lock);
	if (hicn_cons_ring(hs))
		return;	/* the next recv() retries and reports ENOMEM */
	spin_lock_bh(&c->lock);
	hicn_cons_begin(hs);
	spin_unlock_bh(&c->lock);
}

/*
 * @slot takes @d, which answers the interest recorded in @sent; @sample:
 * its round trip is an RTT sample.  The caller holds hicn_cons.lock.
 */
static void hicn_cons_data_fill(struct hicn_sock *hs, struct hicn_slot *slot,
				const struct hicn_slot *sent, bool sample,
				const struct hicn_data *d)
{
	struct hicn_cons *c = &hs->cons;

	lockdep_assert_held(&c->lock);
	/* Before the fill: @sent may be @slot, whose times it keeps. */
	hicn_cc_data(&c->cc, sent->sent_ns, sample);
	hicn_cons_slot_fill(hs, slot, d);
	c->gen++;
	hicn_count(&hs->info.hi_segments, 1);
	if (d->flags & HICN_DATA_FROM_CS)
		hicn_count(&hs->info.hi_cache_hits, 1);
	if (!c->pumping)
		hicn_cons_arm(c, jiffies);
}

/* Does @d answer the first interest of the fetch?  (hicn_cons.lock held) */
static bool hicn_cons_data_is_first(const struct hicn_cons *c,
				    const struct hicn_data *d)
{
	lockdep_assert_held(&c->lock);
	return c->state == HICN_F_FIRST &&
	       c->first_slot.state == HICN_SLOT_PENDING &&
	       hicn_key_equal(&d->ikey, &c->first);
}

/*
 * Does @d answer an interest of the window, a segment of the version being
 * fetched asked for and not yet read?  (hicn_cons.lock held)
 */
static bool hicn_cons_data_is_seg(const struct hicn_cons *c,
				  const struct hicn_data *d)
{
	lockdep_assert_held(&c->lock);
	return c->state == HICN_F_DATA && d->key.kind == HICN_I_EXACT &&
	       d->key.ver == c->ver && d->key.seg >= c->base &&
	       d->key.seg < c->next_req &&
	       ipv6_addr_equal(&d->key.name, &c->first.name);
}

/*
 * After a PROBE, answered with version @ver or not (0): the subscription
 * waits for the version after @ver and after every version the socket
 * received of the name, never one older (hicn_cons.lock held).
 */
static void hicn_cons_wait_after(struct hicn_cons *c, u32 ver)
{
	lockdep_assert_held(&c->lock);
	c->after = max(ver, c->seen);
	c->after_known = true;
	c->first.kind = HICN_I_NEXT;
	c->first.ver = c->after;
}

/*
 * A PROBE answered @d, the newest version: the subscription waits for a
 * version after it, and after every version it has received.  The caller
 * holds hicn_cons.lock.
 */
static void hicn_cons_data_probe(struct hicn_cons *c,
				 const struct hicn_data *d)
{
	lockdep_assert_held(&c->lock);
	hicn_cons_wait_after(c, d->key.ver);
	memset(&c->first_slot, 0, sizeof(c->first_slot));
	c->gen++;
	if (!c->pumping)
		hicn_cons_arm(c, jiffies);
}

/*
 * @d answers the first interest of the fetch: it names the version and its
 * segments, and is segment 0.  The caller holds hicn_cons.lock.
 * Return: true when the reader is to be woken.
 */
static bool hicn_cons_data_first(struct hicn_sock *hs,
				 const struct hicn_data *d)
{
	struct hicn_cons *c = &hs->cons;
	bool sample;

	lockdep_assert_held(&c->lock);
	if (d->flags & HICN_DATA_PROBE) {
		hicn_cons_data_probe(c, d);
		return false;
	}
	if (d->flags & HICN_DATA_NACK || !d->obj) {
		hicn_cons_fail(hs, ENOENT);
		return true;
	}
	if (!hicn_cons_rmem_schedule(hs, d))
		return false;
	c->ver = d->key.ver;
	c->nsegs = d->final_seg + 1;
	c->obj_len = d->obj_len;
	c->seg_size = d->len;
	c->state = HICN_F_DATA;
	c->base = 0;
	c->base_off = 0;
	c->next_req = 1;
	/* A subscription's interest waited for the publication: no RTT. */
	sample = !c->first_slot.tries && c->first.kind != HICN_I_NEXT;
	hicn_cons_data_fill(hs, &c->ring[0], &c->first_slot, sample, d);
	return true;
}

/*
 * @d answers the interest of a window slot (hicn_cons_data_is_seg()).  The
 * caller holds hicn_cons.lock.
 * Return: true when the reader is to be woken.
 */
static bool hicn_cons_data_seg(struct hicn_sock *hs, const struct hicn_data *d)
{
	struct hicn_cons *c = &hs->cons;
	struct hicn_slot *slot = &c->ring[d->key.seg % c->ring_size];

	lockdep_assert_held(&c->lock);
	if (slot->state != HICN_SLOT_PENDING)
		return false;	/* A second copy, or a segment given up on. */
	if (d->flags & HICN_DATA_NACK || !d->obj) {
		/* The producer dropped the version under us. */
		if (hs->sk.sk_protocol == CONS_UNREL) {
			hicn_cons_unpend(c, slot);
			slot->state = HICN_SLOT_LOST;
			c->lost++;
			hicn_count(&hs->info.hi_lost, 1);
			c->gen++;
		} else {
			hicn_cons_fail(hs, ENOENT);
		}
		return true;
	}
	if (!hicn_cons_rmem_schedule(hs, d))
		return false;
	if (slot->early && hicn_cc_spurious(&c->cc, slot->sent_ns))
		hicn_count(&hs->info.hi_spurious_retx, 1);
	hicn_cons_data_fill(hs, slot, slot, !slot->tries, d);
	return true;
}

/* Data for an interest this consumer sent. */
static void hicn_cons_face_data(struct hicn_face *face,
				const struct hicn_data *d)
{
	struct sock *sk = hicn_face_sk(face);
	struct hicn_sock *hs;
	struct hicn_cons *c;
	bool wake = false;

	if (!sk)
		return;
	hs = hicn_sk(sk);
	c = &hs->cons;

	spin_lock_bh(&c->lock);
	if (hicn_cons_data_is_first(c, d))
		wake = hicn_cons_data_first(hs, d);
	else if (hicn_cons_data_is_seg(c, d))
		wake = hicn_cons_data_seg(hs, d);
	/* Inside the pump the data is ours; the pump wakes readers once. */
	if (c->pumping)
		wake = false;
	spin_unlock_bh(&c->lock);

	if (wake)
		sk->sk_data_ready(sk);
	sock_put(sk);
}

/*
 * Every face an interest of ours went to is down or gone (pit.c): when
 * the FIB has no next hop that is up for it either, the fetch fails with
 * ENETUNREACH now, as a retransmission would at its timeout; otherwise
 * that retransmission takes the face the FIB gives then.
 */
static void hicn_cons_face_fail(struct hicn_face *face,
				const struct hicn_key *key)
{
	struct hicn_net *hn = hicn_pernet(face->net);
	struct hicn_data d = { .key = *key, .ikey = *key };
	struct hicn_face *out;
	struct hicn_sock *hs;
	struct hicn_cons *c;
	struct sock *sk;
	bool wake = false;

	out = hicn_fib_lookup(hn, &key->name, face);
	if (out) {
		hicn_face_put(out);
		return;
	}
	sk = hicn_face_sk(face);
	if (!sk)
		return;
	hs = hicn_sk(sk);
	c = &hs->cons;

	spin_lock_bh(&c->lock);
	if (hicn_cons_data_is_first(c, &d) ||
	    (hicn_cons_data_is_seg(c, &d) &&
	     c->ring[key->seg % c->ring_size].state == HICN_SLOT_PENDING)) {
		hicn_cons_fail(hs, ENETUNREACH);
		wake = !c->pumping;
	}
	spin_unlock_bh(&c->lock);

	if (wake)
		sk->sk_data_ready(sk);
	sock_put(sk);
}

/* A consumer serves no interests (no FIB next hop names its face). */
static int hicn_cons_face_interest(struct hicn_face *face,
				   const struct hicn_key *key,
				   unsigned long lifetime, u8 hops,
				   const struct hicn_isig *sig)
{
	return -EOPNOTSUPP;
}

const struct hicn_face_ops hicn_cons_face_ops = {
	.interest	= hicn_cons_face_interest,
	.data		= hicn_cons_face_data,
	.fail		= hicn_cons_face_fail,
	.kind		= HICN_FACE_KIND_CONSUMER,
};

/* The segment a PENDING window slot holds (hicn_cons.lock held). */
static u32 hicn_cons_slot_seg(const struct hicn_cons *c,
			      const struct hicn_slot *slot)
{
	u32 idx = slot - c->ring;

	return c->base + (idx + c->ring_size - c->base % c->ring_size) %
			 c->ring_size;
}

/*
 * When the head of hicn_cons.pending is due: at its RTO, or sooner when
 * an interest sent after it was answered (RACK, cc.c), with *@early set.
 * hicn_cons.lock held.
 */
static unsigned long hicn_cons_pending_due(struct hicn_cons *c,
					   const struct hicn_slot *slot,
					   bool *early)
{
	unsigned long due, wait;

	lockdep_assert_held(&c->lock);
	due = slot->sent + hicn_cc_rto(&c->cc, c->lifetime_ms);
	wait = slot->remote ? hicn_cc_rack_wait(&c->cc, slot->sent_ns) : 0;
	*early = wait && time_before(slot->sent + wait, due);
	return *early ? slot->sent + wait : due;
}

/*
 * The window slot whose timer runs out first: the head of
 * hicn_cons.pending (due at its RTO, or sooner: hicn_cons_pending_due())
 * or of hicn_cons.expiring (due at its lifetime), whichever is sooner.
 * Returns it when it is due at @now, with *@early when found lost before
 * its RTO; otherwise NULL, with *@next its deadline when there is one
 * (*@any).  hicn_cons.lock held.
 */
static struct hicn_slot *hicn_cons_due(struct hicn_cons *c,
				       unsigned long now, unsigned long *next,
				       bool *any, bool *early)
{
	struct hicn_slot *slot = NULL, *s;
	unsigned long due = 0, d;

	lockdep_assert_held(&c->lock);
	*early = false;
	if (!list_empty(&c->pending)) {
		slot = list_first_entry(&c->pending, struct hicn_slot, pending);
		due = hicn_cons_pending_due(c, slot, early);
	}
	if (!list_empty(&c->expiring)) {
		s = list_first_entry(&c->expiring, struct hicn_slot, pending);
		d = s->sent + c->lifetime;
		if (!slot || time_before(d, due)) {
			slot = s;
			due = d;
			*early = false;
		}
	}
	*any = slot;
	*next = due;
	if (!slot || time_before(now, due))
		return NULL;
	return slot;
}

/*
 * The window's timeouts (hicn_cons.lock held): true with @key when a slot
 * is to be resent.  hicn_cons.pending and .expiring hold the slots in the
 * order their interests were sent, and all the slots of a list share a
 * timeout, so a call looks at the due ones only and stops at the first
 * that is not (hicn_stat cons_scan_steps): a round of retransmissions
 * costs a look per slot however its sends were spread in time, not a walk
 * of the window each time some come due.
 */
static bool hicn_cons_scan(struct hicn_sock *hs, struct hicn_key *key,
			   bool *retx, bool *wake)
{
	struct hicn_cons *c = &hs->cons;
	bool rel = hs->sk.sk_protocol == CONS_REL;
	unsigned long now = jiffies, next;
	bool send = false, any, early;
	struct hicn_slot *slot;
	u32 steps = 0;

	lockdep_assert_held(&c->lock);
	while ((slot = hicn_cons_due(c, now, &next, &any, &early))) {
		steps++;
		/* A loss: the window halves, once per loss event. */
		slot->early = early;
		if (early) {
			hicn_count(&hs->info.hi_early_retx, 1);
			hicn_cc_loss(&c->cc, slot->sent_ns);
		} else {
			hicn_count(&hs->info.hi_timeouts, 1);
			hicn_cc_timeout(&c->cc, slot->sent_ns);
		}
		hicn_cons_exact(c, hicn_cons_slot_seg(c, slot), key);
		if (rel && slot->tries < c->retx_limit) {
			slot->tries++;
			hicn_cons_sent(slot, now);
			/* The last try waits for its whole lifetime. */
			list_move_tail(&slot->pending,
				       slot->tries < c->retx_limit ?
				       &c->pending : &c->expiring);
			*retx = true;
			send = true;
			break;
		}
		if (rel) {
			hicn_cons_fail(hs, ETIMEDOUT);
			*wake = true;
			break;
		}
		hicn_pit_cancel(hicn_cons_net(hs), key, hs->face);
		hicn_cons_unpend(c, slot);
		slot->state = HICN_SLOT_LOST;
		c->lost++;
		hicn_count(&hs->info.hi_lost, 1);
		c->gen++;
		*wake = true;
	}
	if (steps)
		atomic64_add(steps, &hicn_cons_net(hs)->stats.cons_scan_steps);
	return send;
}

/*
 * When the interest for segment 0 times out (hicn_cons.lock held): a
 * CONS_REL interest for content that exists (LATEST, EXACT) at its RTO
 * but on its last try; a subscription's (NEXT) and a probe's, which wait
 * for a publication, and CONS_UNREL's at their lifetime.
 */
static unsigned long hicn_cons_first_due(struct hicn_sock *hs)
{
	struct hicn_cons *c = &hs->cons;
	const struct hicn_slot *slot = &c->first_slot;

	lockdep_assert_held(&c->lock);
	if (c->first.kind == HICN_I_NEXT || c->first.kind == HICN_I_PROBE ||
	    hs->sk.sk_protocol != CONS_REL || slot->tries >= c->retx_limit)
		return slot->sent + c->lifetime;
	return slot->sent + hicn_cc_rto(&c->cc, c->lifetime_ms);
}

/*
 * Pick the next interest to send (hicn_cons.lock held): a first segment
 * not sent yet or timed out, a window segment timed out, or the next
 * segment of the window.  Returns true with @key and @retx set.
 */
static bool hicn_cons_next(struct hicn_sock *hs, struct hicn_key *key,
			   bool *retx, bool *wake)
{
	struct hicn_cons *c = &hs->cons;
	bool rel = hs->sk.sk_protocol == CONS_REL;
	unsigned long now = jiffies;
	struct hicn_slot *slot;
	u32 seg;

	lockdep_assert_held(&c->lock);
	*retx = false;
	if (c->state == HICN_F_FIRST) {
		slot = &c->first_slot;
		if (slot->state == HICN_SLOT_FREE) {
			slot->state = HICN_SLOT_PENDING;
			hicn_cons_sent(slot, now);
			*key = c->first;
			return true;
		}
		if (time_before(now, hicn_cons_first_due(hs)))
			return false;
		hicn_count(&hs->info.hi_timeouts, 1);
		/* Content that exists did not come: a loss. */
		if (c->first.kind == HICN_I_LATEST ||
		    c->first.kind == HICN_I_EXACT)
			hicn_cc_timeout(&c->cc, slot->sent_ns);
		if (c->first.kind == HICN_I_PROBE) {
			/*
			 * Nobody answered: any version will do, but none
			 * older than those received.
			 */
			hicn_pit_cancel(hicn_cons_net(hs), &c->first, hs->face);
			hicn_cons_wait_after(c, 0);
		} else if (c->first.kind == HICN_I_NEXT) {
			*retx = true;	/* a subscription waits forever */
		} else if (rel && slot->tries < c->retx_limit) {
			slot->tries++;
			*retx = true;
		} else {
			hicn_cons_fail(hs, ETIMEDOUT);
			*wake = true;
			return false;
		}
		hicn_cons_sent(slot, now);
		*key = c->first;
		return true;
	}
	if (c->state != HICN_F_DATA)
		return false;

	if (hicn_cons_scan(hs, key, retx, wake))
		return true;
	if (c->state != HICN_F_DATA)
		return false;	/* the scan failed the fetch */
	if (c->next_req < c->nsegs && c->next_req - c->base < c->ring_size &&
	    c->in_flight < c->cc.cwnd &&
	    (hicn_cons_room(hs) || hicn_cons_rcvbuf_grow(hs))) {
		seg = c->next_req++;
		slot = &c->ring[seg % c->ring_size];
		memset(slot, 0, sizeof(*slot));
		slot->state = HICN_SLOT_PENDING;
		hicn_cons_sent(slot, now);
		list_add_tail(&slot->pending,
			      rel && c->retx_limit ? &c->pending :
						     &c->expiring);
		c->in_flight++;
		hicn_cons_exact(c, seg, key);
		return true;
	}
	return false;
}

/*
 * The interest for @key went toward another host (@remote) or not: the
 * window slot it was sent for keeps that for RACK (hicn_cons.lock held).
 */
static void hicn_cons_sent_via(struct hicn_cons *c,
			       const struct hicn_key *key, bool remote)
{
	struct hicn_slot *slot;

	lockdep_assert_held(&c->lock);
	if (c->state != HICN_F_DATA || key->kind != HICN_I_EXACT ||
	    key->ver != c->ver || key->seg < c->base ||
	    key->seg >= c->next_req)
		return;
	slot = &c->ring[key->seg % c->ring_size];
	if (slot->state == HICN_SLOT_PENDING)
		slot->remote = remote;
}

/* When the pump must run again for a timeout (hicn_cons.lock held). */
static void hicn_cons_arm_deadline(struct hicn_sock *hs)
{
	struct hicn_cons *c = &hs->cons;
	unsigned long next;
	bool any, early;

	lockdep_assert_held(&c->lock);
	if (c->state == HICN_F_FIRST &&
	    c->first_slot.state == HICN_SLOT_PENDING)
		hicn_cons_arm(c, hicn_cons_first_due(hs));
	else if (c->state == HICN_F_DATA) {
		hicn_cons_due(c, jiffies, &next, &any, &early);
		if (any)
			hicn_cons_arm(c, next);
	}
}

/*
 * Send what the window allows and handle timeouts (lock_sock held).
 *
 * hicn_cons.pumping tells arriving data that the pump will see it: data
 * that lands before the pump's last look (made under the lock that also
 * clears the flag) is acted on by the pump; data after it arms the work
 * and wakes readers itself.  Readers are woken once per pump.
 */
static void hicn_cons_pump(struct hicn_sock *hs)
{
	struct hicn_cons *c = &hs->cons;
	bool wake = false, send, retx, remote;
	struct hicn_key key;
	u32 gen, fetch;
	int err;

	sock_owned_by_me(&hs->sk);
	spin_lock_bh(&c->lock);
	c->pumping = true;
	gen = c->gen;
	for (;;) {
		send = hicn_cons_next(hs, &key, &retx, &wake);
		if (!send)
			break;
		fetch = c->fetch;
		spin_unlock_bh(&c->lock);
		hicn_count(&hs->info.hi_interests_sent, 1);
		if (retx)
			hicn_count(&hs->info.hi_interests_retx, 1);
		remote = false;
		err = hicn_fwd_interest_via(hs->face, &key, c->lifetime,
					    HICN_HOP_LIMIT, &remote);
		spin_lock_bh(&c->lock);
		if (!err && c->fetch == fetch)
			hicn_cons_sent_via(c, &key, remote);
		/*
		 * Refused here (no route, PIT full, no memory): the caller
		 * hears why at once, not as ETIMEDOUT after the retries.
		 */
		if (err && c->fetch == fetch) {
			hicn_cons_fail(hs, -err);
			wake = true;
		}
	}
	hicn_cons_arm_deadline(hs);
	c->pumping = false;
	if (c->gen != gen)
		wake = true;
	spin_unlock_bh(&c->lock);
	if (wake)
		hs->sk.sk_data_ready(&hs->sk);
}

static void hicn_cons_work(struct work_struct *work)
{
	struct hicn_cons *c = container_of(to_delayed_work(work),
					   struct hicn_cons, work);
	struct hicn_sock *hs = container_of(c, struct hicn_sock, cons);
	bool closing;

	lock_sock(&hs->sk);
	spin_lock_bh(&c->lock);
	c->armed = false;
	closing = c->closing;
	spin_unlock_bh(&c->lock);
	if (!closing)
		hicn_cons_pump(hs);
	release_sock(&hs->sk);
}

int hicn_cons_init(struct hicn_sock *hs)
{
	struct hicn_cons *c = &hs->cons;

	/* In the creator's context: the memory cgroup is the creator's. */
	c->rcv = sk_alloc(sock_net(&hs->sk), hs->sk.sk_family, GFP_KERNEL,
			  &hicn_rcv_proto, 1);
	if (!c->rcv)
		return -ENOMEM;
	spin_lock_init(&c->lock);
	hicn_cons_unpend_all(c);
	c->lifetime_ms = HICN_LIFETIME_DEFAULT;
	c->lifetime = msecs_to_jiffies(c->lifetime_ms);
	c->retx_limit = HICN_RETX_LIMIT_DEFAULT;
	hicn_cc_init(&c->cc);
	c->state = HICN_F_IDLE;
	INIT_DELAYED_WORK(&c->work, hicn_cons_work);
	return 0;
}

/* The socket is closing: drop the fetch and its PIT entries. */
void hicn_cons_release(struct hicn_sock *hs)
{
	struct hicn_cons *c = &hs->cons;
	struct hicn_slot *ring;

	spin_lock_bh(&c->lock);
	c->closing = true;
	hicn_cons_abort(hs);
	spin_unlock_bh(&c->lock);
	cancel_delayed_work_sync(&c->work);

	spin_lock_bh(&c->lock);
	ring = c->ring;
	c->ring = NULL;
	/* Every slot is empty: the protocol and the cgroup get it all back. */
	sk_mem_reclaim_final(c->rcv);
	WARN_ON_ONCE(c->rcv->sk_forward_alloc ||
		     atomic_read(&c->rcv->sk_rmem_alloc));
	spin_unlock_bh(&c->lock);
	kvfree(ring);
	sk_free(c->rcv);
	c->rcv = NULL;
}

/* An option changed: send what may be sent now (lock_sock held). */
void hicn_cons_kick(struct hicn_sock *hs)
{
	sock_owned_by_me(&hs->sk);
	if (hs->cons.state == HICN_F_FIRST || hs->cons.state == HICN_F_DATA)
		hicn_cons_pump(hs);
}

/* shutdown(SHUT_RD): drop the fetch, wake readers (lock_sock held). */
void hicn_cons_shutdown(struct hicn_sock *hs)
{
	spin_lock_bh(&hs->cons.lock);
	hicn_cons_abort(hs);
	spin_unlock_bh(&hs->cons.lock);
}

int hicn_cons_connect(struct socket *sock, struct sockaddr_unsized *uaddr,
		      int len, int flags)
{
	struct sock *sk = sock->sk;
	struct hicn_sock *hs = hicn_sk(sk);
	struct hicn_cons *c = &hs->cons;
	struct sockaddr_hicn name;
	int err;

	if (len >= (int)sizeof(sa_family_t) && uaddr->sa_family == AF_UNSPEC) {
		lock_sock(sk);
		spin_lock_bh(&c->lock);
		hicn_cons_abort(hs);
		spin_unlock_bh(&c->lock);
		WRITE_ONCE(c->connected, false);
		c->named = hs->bound;
		if (hs->bound)
			hicn_cons_set_target(hs, &hs->name);
		sock->state = SS_UNCONNECTED;
		/* A reader blocked in recv() learns that its fetch is gone. */
		sk->sk_state_change(sk);
		release_sock(sk);
		return 0;
	}
	err = hicn_addr_check(sk, uaddr, len, &name);
	if (err)
		return err;

	lock_sock(sk);
	if (hs->bound && !ipv6_prefix_equal(&name.sin_addr, &hs->name.sin_addr,
					    hs->name.sin_prefix)) {
		err = -EADDRNOTAVAIL;
		goto out;
	}
	hicn_cons_set_target(hs, &name);
	c->named = true;
	WRITE_ONCE(c->connected, true);
	c->after_known = false;
	sock->state = SS_CONNECTED;
	hicn_cons_start(hs);
	hicn_cons_pump(hs);
	sk->sk_state_change(sk);
out:
	release_sock(sk);
	return err;
}

/*
 * Datagram mode, for a read that cannot wait: may it go ahead?  Yes when
 * the part of the object a read of @len bytes takes is all in (each of its
 * segments READY or LOST), so that it is delivered whole, or when nothing
 * is being fetched yet (the read reports what there is); yes too when the
 * fetch cannot get further without the reader (no segment pending: the
 * window or SO_RCVBUF holds the rest back), where only a read can make
 * progress.  No while segments of that part are on their way.  Before, a
 * read that found the first segments in copied them, could not wait for
 * the rest and threw the fetch away, and the next one started it again:
 * without a cache to help, never done.  c->lock held.
 */
static bool hicn_cons_dgram_ready(const struct hicn_cons *c, size_t len)
{
	u32 end = c->nsegs, s, lim = c->base + c->ring_size;
	bool missing, pending = false;

	lockdep_assert_held(&c->lock);
	if (c->state != HICN_F_DATA || c->base >= c->nsegs)
		return true;
	if (c->nsegs > 1 && len < c->obj_len)
		end = min_t(u64, end, max_t(u64, DIV_ROUND_UP(len, c->seg_size),
					    1));
	missing = c->next_req < end;
	for (s = c->base; s < c->next_req && s < lim; s++) {
		u8 st = c->ring[s % c->ring_size].state;

		if (st == HICN_SLOT_PENDING)
			pending = true;
		if (s < end && st != HICN_SLOT_READY && st != HICN_SLOT_LOST)
			missing = true;
	}
	return !missing || !pending;
}

static bool hicn_cons_readable(struct hicn_cons *c)
{
	struct hicn_slot *slot;

	if (c->state == HICN_F_EOF)
		return true;
	if (c->state != HICN_F_DATA)
		return false;
	/* Datagram mode: a whole object, or a fetch that waits for a read. */
	if (!READ_ONCE(c->connected))
		return hicn_cons_dgram_ready(c, SIZE_MAX);
	if (c->base >= c->nsegs)
		return true;
	slot = &c->ring[c->base % c->ring_size];
	return slot->state == HICN_SLOT_READY || slot->state == HICN_SLOT_LOST;
}

__poll_t hicn_cons_poll(struct sock *sk)
{
	struct hicn_cons *c = &hicn_sk(sk)->cons;
	bool readable;

	spin_lock_bh(&c->lock);
	readable = hicn_cons_readable(c);
	spin_unlock_bh(&c->lock);
	return readable ? EPOLLIN | EPOLLRDNORM : 0;
}

/*
 * Copy in-order segments to the reader (lock_sock held).  Returns the
 * bytes copied or -EFAULT; sets *full when the reader's buffer is full
 * before the object ends.
 */
static int hicn_cons_copy(struct hicn_sock *hs, struct msghdr *msg,
			  bool *full)
{
	struct hicn_cons *c = &hs->cons;
	struct hicn_slot *slot;
	struct hicn_obj *obj;
	size_t room, n, avail;
	int copied = 0;
	u64 off;
	u32 seglen;

	sock_owned_by_me(&hs->sk);
	*full = false;
	for (;;) {
		spin_lock_bh(&c->lock);
		if (c->state != HICN_F_DATA || c->base >= c->nsegs) {
			spin_unlock_bh(&c->lock);
			break;
		}
		slot = &c->ring[c->base % c->ring_size];
		if (slot->state == HICN_SLOT_READY) {
			obj = hicn_obj_get(slot->obj);
			seglen = slot->len;
			off = slot->off + c->base_off;
		} else if (slot->state == HICN_SLOT_LOST) {
			obj = NULL;
			seglen = hicn_cons_seg_len(c, c->base);
			off = 0;
		} else {
			spin_unlock_bh(&c->lock);
			break;
		}
		avail = seglen - c->base_off;
		spin_unlock_bh(&c->lock);

		room = msg_data_left(msg);
		if (avail && !room) {
			hicn_obj_put(obj);
			*full = true;
			break;
		}
		n = min(avail, room);
		if (obj) {
			if (n && copy_to_iter(obj->data + off, n,
					      &msg->msg_iter) != n) {
				hicn_obj_put(obj);
				return -EFAULT;
			}
			hicn_obj_put(obj);
		} else if (n) {
			iov_iter_zero(n, &msg->msg_iter);
		}
		copied += n;

		spin_lock_bh(&c->lock);
		c->base_off += n;
		if (c->base_off == seglen) {
			hicn_cons_slot_clear(hs, slot);
			c->base++;
			c->base_off = 0;
		}
		spin_unlock_bh(&c->lock);
	}
	return copied;
}

static void hicn_cons_name_out(struct hicn_sock *hs, struct msghdr *msg)
{
	struct sockaddr_hicn *addr = msg->msg_name;

	if (!addr)
		return;
	memset(addr, 0, sizeof(*addr));
	addr->sin_family = hs->sk.sk_family;
	addr->sin_prefix = HICN_PREFIX_MAX;
	addr->sin_suffix = hs->cons.ver;
	addr->sin_addr = hs->cons.first.name;
	msg->msg_namelen = sizeof(*addr);
}

/* The object is complete (lock_sock held). */
static void hicn_cons_done(struct hicn_sock *hs, struct msghdr *msg,
			   bool stream)
{
	struct hicn_cons *c = &hs->cons;
	u32 lost = c->lost;

	hicn_count(&hs->info.hi_objects, 1);
	WRITE_ONCE(hs->info.hi_last_version, c->ver);
	if (lost)
		put_cmsg(msg, SOL_HICN, HICN_CMSG_LOST, sizeof(lost), &lost);
	spin_lock_bh(&c->lock);
	c->seen = max(c->seen, c->ver);
	if (c->subscribe) {
		c->after = c->ver;
		c->after_known = true;
	}
	c->state = stream ? HICN_F_EOF : HICN_F_IDLE;
	c->gen++;
	/* A subscriber's next version is asked for at once, for poll(). */
	if (c->subscribe && !stream)
		hicn_cons_begin(hs);
	spin_unlock_bh(&c->lock);
}

/*
 * Take the read side (lock_sock held, dropped while waiting): one
 * recvmsg() at a time reads the fetch, so that an object goes whole to
 * one reader.  0, or -EAGAIN / -EINTR as for a fetch.
 */
static int hicn_cons_reader_get(struct sock *sk, long *timeo)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct hicn_cons *c = &hicn_sk(sk)->cons;
	int err = 0;

	sock_owned_by_me(sk);
	if (!c->reading)
		goto out;
	add_wait_queue(sk_sleep(sk), &wait);
	while (c->reading) {
		if (!*timeo) {
			err = -EAGAIN;
			break;
		}
		if (signal_pending(current)) {
			err = sock_intr_errno(*timeo);
			break;
		}
		sk_wait_event(sk, timeo, !READ_ONCE(c->reading), &wait);
	}
	remove_wait_queue(sk_sleep(sk), &wait);
out:
	if (!err)
		c->reading = true;
	return err;
}

/* Hand the read side to a reader waiting for it (lock_sock held). */
static void hicn_cons_reader_put(struct sock *sk)
{
	struct hicn_cons *c = &hicn_sk(sk)->cons;

	sock_owned_by_me(sk);
	c->reading = false;
	/* Waiters queue under lock_sock, which we hold. */
	if (waitqueue_active(sk_sleep(sk)))
		wake_up_interruptible_all(sk_sleep(sk));
}

/*
 * Start a read (lock_sock held): 0 with a fetch to read, 1 when there is
 * nothing more to read (shutdown, or the end of the object in stream mode,
 * which stays the end until connect() names an object again), or an
 * errno.
 */
static int hicn_cons_recv_begin(struct hicn_sock *hs)
{
	struct hicn_cons *c = &hs->cons;
	struct sock *sk = &hs->sk;
	int err;

	err = sock_error(sk);
	if (err)
		return err;
	if (sk->sk_shutdown & RCV_SHUTDOWN)
		return 1;
	if (!c->named)
		return -ENOTCONN;
	if (c->state == HICN_F_EOF)
		return 1;
	if (c->state == HICN_F_IDLE) {
		err = hicn_cons_ring(hs);
		if (err)
			return err;
		spin_lock_bh(&c->lock);
		hicn_cons_begin(hs);
		spin_unlock_bh(&c->lock);
	}
	return 0;
}

/*
 * Whether a reader of fetch @fetch stops (lock_sock held): 0 to go on, 1
 * to return what it has, or an errno.  @keep leaves a pending error to
 * the next call (a stream reader that has bytes to return).
 */
static int hicn_cons_stop(struct hicn_sock *hs, u32 fetch, bool keep)
{
	struct sock *sk = &hs->sk;

	if (READ_ONCE(sk->sk_err))
		return keep ? 1 : sock_error(sk);
	if (sk->sk_shutdown & RCV_SHUTDOWN)
		return 1;
	/* connect(), connect(AF_UNSPEC) or HICN_SUBSCRIBE dropped it. */
	if (READ_ONCE(hs->cons.fetch) != fetch)
		return -ENOTCONN;
	return 0;
}

/*
 * Nothing to copy: wait for the fetch to change (lock_sock held, dropped
 * while asleep).  0 to look again; -EAGAIN when the receive timeout has
 * run out or the call does not wait, whatever was copied before; -EINTR
 * or -ERESTARTSYS on a signal.
 */
static int hicn_cons_wait(struct sock *sk, long *timeo, u32 gen,
			  struct wait_queue_entry *wait)
{
	struct hicn_cons *c = &hicn_sk(sk)->cons;

	if (!*timeo)
		return -EAGAIN;
	if (signal_pending(current))
		return sock_intr_errno(*timeo);
	sk_wait_event(sk, timeo, READ_ONCE(c->gen) != gen ||
		      READ_ONCE(sk->sk_err) ||
		      (READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN), wait);
	return 0;
}

/*
 * Pump, then copy what is in order (lock_sock held): the bytes copied or
 * -EFAULT (the fetch is dropped); *@complete when the object is all read,
 * *@gen the generation to wait on.
 */
static int hicn_cons_step(struct hicn_sock *hs, struct msghdr *msg,
			  bool *full, bool *complete, u32 *gen)
{
	struct hicn_cons *c = &hs->cons;
	int n;

	hicn_cons_pump(hs);
	n = hicn_cons_copy(hs, msg, full);
	spin_lock_bh(&c->lock);
	if (n < 0)
		hicn_cons_abort(hs);
	*complete = c->state == HICN_F_DATA && c->base >= c->nsegs;
	*gen = c->gen;
	spin_unlock_bh(&c->lock);
	return n;
}

/*
 * Datagram mode, a read that cannot wait (lock_sock held): 0 when it may
 * go ahead (hicn_cons_dgram_ready()), else -EAGAIN, the fetch going on.
 */
static int hicn_cons_dgram_nowait(struct hicn_sock *hs, size_t len)
{
	struct hicn_cons *c = &hs->cons;
	bool ready;

	hicn_cons_pump(hs);
	spin_lock_bh(&c->lock);
	ready = hicn_cons_dgram_ready(c, len);
	spin_unlock_bh(&c->lock);
	return ready ? 0 : -EAGAIN;
}

/*
 * Datagram mode (lock_sock held): one whole object, or its first @len
 * bytes and MSG_TRUNC; on a failure nothing, and the next call fetches
 * the object again.
 */
static int hicn_cons_recv_dgram(struct hicn_sock *hs, struct msghdr *msg,
				int flags, long *timeo, u32 fetch)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct hicn_cons *c = &hs->cons;
	struct sock *sk = &hs->sk;
	bool full = false, complete;
	int copied = 0, err, n;
	u64 obj_len;
	u32 gen;

	add_wait_queue(sk_sleep(sk), &wait);
	for (;;) {
		err = hicn_cons_stop(hs, fetch, false);
		if (err)
			break;
		if (!copied && !*timeo) {
			err = hicn_cons_dgram_nowait(hs, msg_data_left(msg));
			if (err)
				break;
		}
		n = hicn_cons_step(hs, msg, &full, &complete, &gen);
		if (n < 0) {
			err = n;
			break;
		}
		copied += n;
		if (complete || full)
			break;
		/* Slots went back to the window: the pump may send more. */
		if (n)
			continue;
		err = hicn_cons_wait(sk, timeo, gen, &wait);
		if (err)
			break;
	}
	remove_wait_queue(sk_sleep(sk), &wait);

	if (err) {
		/* Whole or not at all: what was copied is lost. */
		spin_lock_bh(&c->lock);
		if (c->fetch == fetch && c->state == HICN_F_DATA && c->base)
			hicn_cons_abort(hs);
		spin_unlock_bh(&c->lock);
		return err < 0 ? err : 0;
	}
	obj_len = c->obj_len;
	hicn_cons_name_out(hs, msg);
	if (complete) {
		hicn_cons_done(hs, msg, false);
	} else {
		/* The rest is discarded. */
		msg->msg_flags |= MSG_TRUNC;
		spin_lock_bh(&c->lock);
		hicn_cons_abort(hs);
		spin_unlock_bh(&c->lock);
	}
	/* Bytes delivered: what was copied, not what MSG_TRUNC reports. */
	hicn_count(&hs->info.hi_bytes, min_t(u64, copied, obj_len));
	if (flags & MSG_TRUNC)
		copied = obj_len;
	return copied;
}

/*
 * Stream mode (lock_sock held): the object's bytes in order, at least
 * SO_RCVLOWAT of them (all @len with MSG_WAITALL) unless the object ends
 * or the wait does; then 0 for ever at its end.
 */
static int hicn_cons_recv_stream(struct hicn_sock *hs, struct msghdr *msg,
				 size_t len, int flags, long *timeo, u32 fetch)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct sock *sk = &hs->sk;
	int copied = 0, target, err, n;
	bool full, complete;
	u32 gen;

	target = sock_rcvlowat(sk, flags & MSG_WAITALL, len);
	add_wait_queue(sk_sleep(sk), &wait);
	for (;;) {
		err = hicn_cons_stop(hs, fetch, copied);
		if (err)
			break;
		n = hicn_cons_step(hs, msg, &full, &complete, &gen);
		if (n < 0) {
			err = n;
			break;
		}
		copied += n;
		if (complete) {
			hicn_cons_name_out(hs, msg);
			hicn_cons_done(hs, msg, true);
			break;
		}
		if (full || copied >= target)
			break;
		if (n)
			continue;
		err = hicn_cons_wait(sk, timeo, gen, &wait);
		if (err)
			break;
	}
	remove_wait_queue(sk_sleep(sk), &wait);

	if (copied) {
		hicn_count(&hs->info.hi_bytes, copied);
		return copied;
	}
	return err < 0 ? err : 0;
}

int hicn_cons_recvmsg(struct socket *sock, struct msghdr *msg, size_t len,
		      int flags)
{
	struct sock *sk = sock->sk;
	struct hicn_sock *hs = hicn_sk(sk);
	struct hicn_cons *c = &hs->cons;
	long timeo;
	int ret;

	if (flags & (MSG_OOB | MSG_PEEK | MSG_ERRQUEUE))
		return -EOPNOTSUPP;

	lock_sock(sk);
	timeo = sock_rcvtimeo(sk, flags & MSG_DONTWAIT);
	ret = hicn_cons_reader_get(sk, &timeo);
	if (ret)
		goto out;
	ret = hicn_cons_recv_begin(hs);
	if (ret > 0)
		ret = 0;
	else if (!ret && c->connected)
		ret = hicn_cons_recv_stream(hs, msg, len, flags, &timeo,
					    READ_ONCE(c->fetch));
	else if (!ret)
		ret = hicn_cons_recv_dgram(hs, msg, flags, &timeo,
					   READ_ONCE(c->fetch));
	hicn_cons_reader_put(sk);
	/*
	 * Keep the window full for the next read or a poller, and send a
	 * subscriber's interest for its next version now.
	 */
	hicn_cons_kick(hs);
out:
	release_sock(sk);
	return ret;
}
