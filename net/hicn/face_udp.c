// SPDX-License-Identifier: GPL-2.0
/*
 * UDP faces: the forwarder's faces to other hosts, in hICN's wire format
 * (wire.c) as the raw UDP payload, as FD.io's hicn-light does.
 *
 * A listener is a kernel UDP socket bound to a local address and port
 * (9695 by default) in the netns.  A face is a listener and a remote
 * address and port; its packets leave from the listener's socket.  A
 * datagram from a peer without a face creates one when the listener
 * allows it (auto-faces, and only for an interest: data nobody asked for
 * never makes a face), within HICN_UDP_AUTO_MAX such faces per netns.
 *
 * Receive: the socket (whose buffer, HICN_UDP_RCVBUF, holds what comes
 * before the work runs) queues the listener's rx work, which reads up to
 * HICN_UDP_RX_BUDGET datagrams with kernel_recvmsg() into the listener's
 * buffer and hands each to the forwarder in process context: parsed and
 * validated (wire.c) before anything in it is used, dropped and counted
 * per face and per reason (HICN_A_FACE_DROPS_*, unsolicited, hop-drops)
 * when it is malformed, unsolicited, or refused by the forwarder: each
 * drop counts once.  A data payload is copied into an object of its own
 * only once the PIT said an interest sent to that face waits for it, so
 * a peer cannot make the host hold data it did not ask for.
 *
 * Send: the face ops (any context) build the packet into an skb and queue
 * it on the face (at most HICN_UDP_TXQ_MAX; beyond that an interest is
 * refused with -ENOBUFS and data is dropped and counted); the face's tx
 * work sends the queue with kernel_sendmsg().  A queued tx work holds a
 * reference on its face.  A data segment of HICN_UDP_ZC_MIN bytes or more
 * is not copied: its skb holds the headers and a reference on the object
 * (struct hicn_udp_zc), and the tx work hands the socket the headers with
 * MSG_MORE and then the segment's bytes as references to the object's
 * pages (hicn_send_pages(), compat.h), which the datagram's fragments
 * point at until it is sent (hicn-wire.rst, "Sending without a copy";
 * /proc/net/hicn_stat data_zerocopy counts them).
 *
 * Lifetimes: a face holds a reference on its listener; the listener's
 * socket goes when the listener is deleted (after its faces), under
 * sock_lock so that no tx work is using it; the listener's memory goes
 * with the last face.  Faces are freed after an RCU grace period
 * (face.c), so the rx path looks them up under RCU.
 *
 * A face deleted (face-del, listener-del) or marked down (face_link.c)
 * hands the PIT entries whose interests went to it alone to another next
 * hop, or fails them when there is none, in process context under
 * hicn_net.lock, once it takes no interest any more
 * (hicn_pit_fail_faces()): their consumers hear at once.  Data from the
 * face racing with it finds no out-record and counts as unsolicited.
 *
 * Lock order: (RTNL, link work) -> hicn_net.lock (mutex: listener and
 * face lists) -> hicn_udp_listener.lock (spinlock, BH off: the face
 * hash); hicn_net.lock -> hicn_cons.lock -> hicn_net.pit_lock (failing
 * PIT entries tells their consumers); hicn_net.lock -> the faces'
 * interest ops and what they take (hicn_prod.lock, then the data path:
 * failover sends the PIT entries of a face that went again);
 * hicn_udp_listener.sock_lock (mutex) is a leaf.
 */

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/jhash.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <net/inet_common.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "hicn.h"
#include "wire.h"

#define HICN_UDP_RX_BUDGET	64
#define HICN_UDP_TXQ_MAX	1024
/*
 * Data segments of this many bytes or more leave from their object's
 * pages (struct hicn_udp_zc); smaller ones are copied, which costs less
 * than a second call into the socket.  A segment spans at most
 * HICN_UDP_ZC_PAGES pages (HICN_PACKET_SIZE_MAX, 65000, does), one
 * datagram fragment each.
 */
#define HICN_UDP_ZC_MIN		256
#define HICN_UDP_ZC_PAGES	(DIV_ROUND_UP(HICN_PACKET_SIZE_MAX, PAGE_SIZE) + 1)
/*
 * A listener's socket buffers.  Receive: the datagrams that come while
 * the rx work has not run yet (rmem_default, 208 KiB, held about 200
 * interests or 90 data packets: a window of data arriving at once lost
 * the rest before any face saw them, as UdpRcvbufErrors).  Send: what
 * the tx work passes to the socket while earlier packets still wait in
 * a qdisc; at least the face queue's HICN_UDP_TXQ_MAX packets, so that
 * what the face queue took is not dropped by the socket.  Both count
 * toward udp_mem, the kernel's bound on all UDP memory.
 */
#define HICN_UDP_RCVBUF		(4 << 20)
#define HICN_UDP_SNDBUF		(4 << 20)
#define HICN_UDP_HASH_BITS	6

static struct workqueue_struct *hicn_udp_wq;

/**
 * struct hicn_udp_listener - a kernel UDP socket faces send and receive on
 * @node: entry in hicn_net.udp_listeners, under hicn_net.lock
 * @ref: the listener list and each face
 * @id: number unique in the netns
 * @net: the netns (the listener is deleted before it goes)
 * @local: the bound address and port
 * @auto_faces: a datagram from an unknown peer makes a face
 * @dead: deleted: no face may be added any more (under hicn_net.lock)
 * @sock_lock: protects @sock against deletion while a tx work sends
 * @sock: the socket, NULL once deleted
 * @rx_work: reads the socket
 * @rxbuf: HICN_WIRE_MAX_LEN bytes the rx work reads into
 * @lock: protects @faces changes (readers under RCU)
 * @faces: struct hicn_udp_face by remote address
 * @nr_faces: faces of the listener
 * @no_face: datagrams from peers without a face that made none
 * @rcu: frees the listener
 */
struct hicn_udp_listener {
	struct list_head	node;
	refcount_t		ref;
	u32			id;
	struct net		*net;
	struct sockaddr_storage	local;
	bool			auto_faces;
	bool			dead;
	struct mutex		sock_lock;	/* protects sock */
	struct socket		*sock;
	struct work_struct	rx_work;
	u8			*rxbuf;
	spinlock_t		lock;		/* protects faces */
	struct hlist_head	faces[1 << HICN_UDP_HASH_BITS];
	unsigned int		nr_faces;
	atomic64_t		no_face;
	struct rcu_head		rcu;
};

/**
 * struct hicn_udp_face - a UDP face's own state (hicn_face.priv)
 * @face: the face
 * @l: its listener (a reference)
 * @remote: the peer's address and port
 * @format: enum hicn_wire_format of what the face sends
 * @auto_created: made by a datagram, not by netlink
 * @hashed: in @l's hash (under the listener's lock)
 * @hnode: entry in the listener's hash
 * @txq: packets to send
 * @tx_work: sends @txq
 * @drops: what the face dropped on receipt, by HICN_A_FACE_DROPS_*
 *	reason (the malformed ones: TRUNCATED to NAME)
 * @tx_drops: packets dropped because @txq was full or sending failed
 * @hop_drops: interests from the peer dropped because their hop limit
 *	left no hop to another host
 * @rcu: frees this after the face
 */
struct hicn_udp_face {
	struct hicn_face	*face;
	struct hicn_udp_listener *l;
	struct sockaddr_storage	remote;
	u8			format;
	bool			auto_created;
	bool			hashed;
	struct hlist_node	hnode;
	struct sk_buff_head	txq;
	struct work_struct	tx_work;
	atomic64_t		drops[HICN_A_FACE_DROPS_MAX + 1];
	atomic64_t		tx_drops;
	atomic64_t		hop_drops;
	struct rcu_head		rcu;
};

static void hicn_udp_listener_put(struct hicn_udp_listener *l)
{
	if (refcount_dec_and_test(&l->ref)) {
		kvfree(l->rxbuf);
		kfree_rcu(l, rcu);
	}
}

/* @uf dropped what its peer sent, for @why (HICN_A_FACE_DROPS_*). */
static void hicn_udp_drop(struct hicn_udp_face *uf, unsigned int why)
{
	atomic64_inc(&uf->drops[why]);
}

/* The drop reason of a datagram hicn_wire_parse() refused. */
static unsigned int hicn_udp_wire_drop(const struct hicn_wire_pkt *p)
{
	/* The attributes follow enum hicn_wire_drop, from TRUNCATED. */
	BUILD_BUG_ON(HICN_A_FACE_DROPS_AH - HICN_A_FACE_DROPS_TRUNCATED !=
		     HICN_WIRE_DROP_AH - HICN_WIRE_DROP_TRUNCATED);
	BUILD_BUG_ON(HICN_WIRE_DROP_AH + 1 != HICN_WIRE_DROP_MAX);
	if (p->drop < HICN_WIRE_DROP_TRUNCATED || p->drop >= HICN_WIRE_DROP_MAX)
		return HICN_A_FACE_DROPS_HEADER;
	return HICN_A_FACE_DROPS_TRUNCATED + p->drop - HICN_WIRE_DROP_TRUNCATED;
}

/* ---- addresses ---- */

static u32 hicn_udp_hash(const struct sockaddr_storage *ss)
{
	const struct sockaddr_in6 *s6 = (const void *)ss;
	const struct sockaddr_in *s4 = (const void *)ss;
	u32 h;

	if (ss->ss_family == AF_INET)
		h = jhash_2words((__force u32)s4->sin_addr.s_addr,
				 (__force u16)s4->sin_port, 0);
	else
		h = jhash_3words(ipv6_addr_hash(&s6->sin6_addr),
				 (__force u16)s6->sin6_port, AF_INET6, 0);
	return h >> (32 - HICN_UDP_HASH_BITS);
}

static bool hicn_udp_addr_equal(const struct sockaddr_storage *a,
				const struct sockaddr_storage *b)
{
	const struct sockaddr_in6 *a6 = (const void *)a, *b6 = (const void *)b;
	const struct sockaddr_in *a4 = (const void *)a, *b4 = (const void *)b;

	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return a4->sin_addr.s_addr == b4->sin_addr.s_addr &&
		       a4->sin_port == b4->sin_port;
	return ipv6_addr_equal(&a6->sin6_addr, &b6->sin6_addr) &&
	       a6->sin6_port == b6->sin6_port;
}

static int hicn_udp_addr_len(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET ? sizeof(struct sockaddr_in) :
					  sizeof(struct sockaddr_in6);
}

/* An address as the wire format writes it (IPv4: 12 zero bytes first). */
static void hicn_udp_wire_addr(const struct sockaddr_storage *ss,
			       struct in6_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (ss->ss_family == AF_INET)
		a->s6_addr32[3] = ((const struct sockaddr_in *)ss)->sin_addr.s_addr;
	else
		*a = ((const struct sockaddr_in6 *)ss)->sin6_addr;
}

/* ---- send ---- */

/*
 * A queued data packet whose last @len bytes are bytes @off on of @obj,
 * left where they are: the skb (in its cb) holds a reference on @obj,
 * which its destructor gives back, whether it was sent or not.
 */
struct hicn_udp_zc {
	struct hicn_obj	*obj;
	u32		off;
	u32		len;
};

static struct hicn_udp_zc *hicn_udp_zc(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct hicn_udp_zc) > sizeof(skb->cb));
	return (struct hicn_udp_zc *)skb->cb;
}

static void hicn_udp_zc_destructor(struct sk_buff *skb)
{
	hicn_obj_put(hicn_udp_zc(skb)->obj);
}

/* @skb's last @len bytes are @obj's from @off: it takes a reference. */
static void hicn_udp_zc_set(struct sk_buff *skb, struct hicn_obj *obj,
			    u32 off, u32 len)
{
	struct hicn_udp_zc *zc = hicn_udp_zc(skb);

	zc->obj = hicn_obj_get(obj);
	zc->off = off;
	zc->len = len;
	skb->destructor = hicn_udp_zc_destructor;
}

static bool hicn_udp_is_zc(const struct sk_buff *skb)
{
	return skb->destructor == hicn_udp_zc_destructor;
}

/*
 * The segment bytes of @zc as pages, appended to the datagram @sock has
 * corked: 0, or <0 with the datagram still corked.
 */
static int hicn_udp_send_zc(struct socket *sock, const struct hicn_udp_zc *zc)
{
	struct bio_vec bv[HICN_UDP_ZC_PAGES];
	u32 off = zc->off, left = zc->len;
	int n = 0, r;

	while (left) {
		u32 in = offset_in_page((const u8 *)zc->obj->data + off);
		u32 take = min_t(u32, left, PAGE_SIZE - in);

		if (n == HICN_UDP_ZC_PAGES)
			return -EMSGSIZE;
		bvec_set_page(&bv[n++], hicn_obj_page(zc->obj, off), take, in);
		off += take;
		left -= take;
	}
	r = hicn_send_pages(sock, bv, n, zc->len,
			    MSG_DONTWAIT | MSG_NOSIGNAL);
	return r < 0 ? r : 0;
}

/*
 * Send @skb (sock_lock held): its bytes, and for a packet left in its
 * object the headers with MSG_MORE and then the object's pages.  A send
 * that fails half way ends the corked datagram (a send of nothing
 * without MSG_MORE: the peer finds it truncated and drops it), so that
 * the next packet starts a datagram of its own.
 */
static int hicn_udp_send(struct hicn_udp_face *uf, struct socket *sock,
			 struct sk_buff *skb)
{
	bool zc = hicn_udp_is_zc(skb);
	struct kvec iov = { skb->data, skb->len };
	struct msghdr msg = {
		.msg_name	= &uf->remote,
		.msg_namelen	= hicn_udp_addr_len(&uf->remote),
		.msg_flags	= MSG_DONTWAIT | MSG_NOSIGNAL |
				  (zc ? MSG_MORE : 0),
	};
	int r;

	lockdep_assert_held(&uf->l->sock_lock);
	r = kernel_sendmsg(sock, &msg, &iov, 1, skb->len);
	if (r < 0 || !zc)
		return r;
	r = hicn_udp_send_zc(sock, hicn_udp_zc(skb));
	if (r < 0) {
		memset(&msg, 0, sizeof(msg));
		msg.msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL;
		kernel_sendmsg(sock, &msg, NULL, 0, 0);
		return r;
	}
	atomic64_inc(&hicn_pernet(uf->l->net)->stats.data_zerocopy);
	return 0;
}

static void hicn_udp_tx_work(struct work_struct *work)
{
	struct hicn_udp_face *uf = container_of(work, struct hicn_udp_face,
						tx_work);
	struct hicn_udp_listener *l = uf->l;
	struct sk_buff *skb;

	while ((skb = skb_dequeue(&uf->txq))) {
		mutex_lock(&l->sock_lock);
		if (!l->sock || hicn_udp_send(uf, l->sock, skb) < 0)
			atomic64_inc(&uf->tx_drops);
		mutex_unlock(&l->sock_lock);
		kfree_skb(skb);
	}
	hicn_face_put(uf->face);
}

/* Queue a built packet; false when the queue is full (it is freed). */
static bool hicn_udp_queue(struct hicn_udp_face *uf, struct sk_buff *skb)
{
	if (skb_queue_len(&uf->txq) >= HICN_UDP_TXQ_MAX) {
		atomic64_inc(&uf->tx_drops);
		kfree_skb(skb);
		return false;
	}
	skb_queue_tail(&uf->txq, skb);
	if (queue_work(hicn_udp_wq, &uf->tx_work))
		hicn_face_get(uf->face);
	return true;
}

/* An skb for the bytes of @p but its tail (p->tail_len, left elsewhere). */
static struct sk_buff *hicn_udp_alloc(const struct hicn_wire_pkt *p)
{
	int hlen = hicn_wire_hlen(p);
	struct sk_buff *skb;
	u32 len;

	if (hlen < 0)
		return NULL;
	len = hlen + p->ah_len + p->payload_len - p->tail_len;
	skb = alloc_skb(len, GFP_ATOMIC | __GFP_NOWARN);
	if (skb)
		skb_put(skb, len);
	return skb;
}

/*
 * Leave the @len bytes of @d's object that end the packet where they
 * are, when they are worth it (HICN_UDP_ZC_MIN) and fit the pages one
 * send takes: @p's tail.
 */
static bool hicn_udp_zc_tail(const struct hicn_data *d, u32 len,
			     struct hicn_wire_pkt *p)
{
	if (!d->obj || len < HICN_UDP_ZC_MIN ||
	    DIV_ROUND_UP(offset_in_page((const u8 *)d->obj->data + d->off) +
			 len, PAGE_SIZE) > HICN_UDP_ZC_PAGES)
		return false;
	p->tail = (const u8 *)d->obj->data + d->off;
	p->tail_len = len;
	return true;
}

static void hicn_udp_pkt_init(struct hicn_udp_face *uf,
			      struct hicn_wire_pkt *p, const struct in6_addr *name,
			      u32 suffix)
{
	memset(p, 0, sizeof(*p));
	p->format = uf->format;
	p->hop_limit = HICN_WIRE_HOP_LIMIT;
	p->name = *name;
	p->suffix = suffix;
}

/* The suffix of @key on the wire: a name not ours goes as it came. */
static int hicn_udp_suffix(const struct hicn_key *key, u32 *suffix)
{
	if (key->kind == HICN_KEY_RAW) {
		*suffix = key->seg;
		return 0;
	}
	return hicn_wire_key_to_suffix(key->kind & ~HICN_KEY_WIRE, key->ver,
				       key->seg, suffix);
}

/*
 * A signed interest leaves with its AH, signature and payload as they
 * came, and its lifetime, in the format it came in: its signature covers
 * none of the fields a hop writes there (locator, hop limit; hicn-wire.rst
 * "Signatures").  In another format it leaves unsigned, as before.
 */
static bool hicn_udp_isig(const struct hicn_udp_face *uf,
			  const struct hicn_isig *sig, struct hicn_wire_pkt *p)
{
	if (!sig || sig->format != uf->format || sig->ah_len > sig->len)
		return false;
	p->flags = HICN_WIRE_F_SIG;
	p->ah_len = sig->ah_len;
	p->payload_len = sig->len - sig->ah_len;
	p->lifetime = sig->lifetime_ms;
	return true;
}

static int hicn_udp_face_interest(struct hicn_face *face,
				  const struct hicn_key *key,
				  unsigned long lifetime, u8 hops,
				  const struct hicn_isig *sig)
{
	struct hicn_udp_face *uf = face->priv;
	struct hicn_wire_pkt p;
	struct sk_buff *skb;
	bool sign;
	u32 suffix, ms;

	if (!READ_ONCE(face->up))
		return -ENETDOWN;
	if (hicn_udp_suffix(key, &suffix))
		return -EMSGSIZE;	/* a segment the wire cannot name */
	hicn_udp_pkt_init(uf, &p, &key->name, suffix);
	p.is_interest = true;
	if (p.format != HICN_WIRE_COMPACT)
		p.hop_limit = hops;
	hicn_udp_wire_addr(&uf->l->local, &p.locator);
	ms = jiffies_to_msecs(lifetime);
	p.lifetime = clamp_t(u32, ms, 1, HICN_WIRE_LIFETIME_MAX);
	sign = hicn_udp_isig(uf, sig, &p);
	skb = hicn_udp_alloc(&p);
	if (!skb)
		return -ENOMEM;
	if (sign)
		memcpy(skb->data + skb->len - sig->len, sig->buf, sig->len);
	if (hicn_wire_build(skb->data, skb->len, &p) < 0) {
		kfree_skb(skb);
		return -EINVAL;
	}
	return hicn_udp_queue(uf, skb) ? 0 : -ENOBUFS;
}

/* How long the data may be cached, in ms (0: not at all). */
static u32 hicn_udp_data_lifetime(const struct hicn_data *d)
{
	long left;

	if (!hicn_key_cacheable(&d->ikey) ||
	    d->flags & (HICN_DATA_NACK | HICN_DATA_PROBE))
		return 0;
	if (!d->expires)
		return HICN_WIRE_LIFETIME_MAX;
	left = (long)(d->expires - jiffies);
	return left > 0 ? min_t(u32, jiffies_to_msecs(left),
				HICN_WIRE_LIFETIME_MAX) : 0;
}

/*
 * Data of a name that is not ours leaves as it came: its AH and
 * signature, payload, flags and lifetime untouched, under its own
 * suffix.  The signature stays valid: it covers none of the fields a hop
 * writes (locator, hop limit, path label, checksum; hicn-wire.rst), and
 * the lifetime, which the compact format's covers, is the one it came
 * with.
 */
static void hicn_udp_face_data_raw(struct hicn_udp_face *uf,
				   const struct hicn_data *d)
{
	struct hicn_wire_pkt p;
	struct sk_buff *skb;
	bool zc;

	if (!READ_ONCE(uf->face->up) || d->raw_ah_len > d->len)
		goto drop;
	hicn_udp_pkt_init(uf, &p, &d->ikey.name, d->ikey.seg);
	hicn_udp_wire_addr(&uf->remote, &p.locator);
	p.lifetime = d->raw_lifetime;
	p.flags = d->raw_flags;
	p.ah_len = d->raw_ah_len;
	p.payload_len = d->len - d->raw_ah_len;
	zc = hicn_udp_zc_tail(d, d->len, &p);
	skb = hicn_udp_alloc(&p);
	if (!skb)
		goto drop;
	if (zc)
		hicn_udp_zc_set(skb, d->obj, d->off, d->len);
	else if (d->len)
		memcpy(skb->data + skb->len - d->len, d->obj->data + d->off,
		       d->len);
	if (hicn_wire_build(skb->data, skb->len, &p) < 0) {
		kfree_skb(skb);
		goto drop;
	}
	hicn_udp_queue(uf, skb);
	return;

drop:
	atomic64_inc(&uf->tx_drops);
}

static void hicn_udp_face_data(struct hicn_face *face,
			       const struct hicn_data *d)
{
	struct hicn_udp_face *uf = face->priv;
	u32 kind = d->ikey.kind & ~HICN_KEY_WIRE;
	struct hicn_wire_thdr th = {};
	struct hicn_wire_pkt p;
	struct sk_buff *skb;
	u32 suffix, len;
	int hlen;
	bool zc;

	if (d->ikey.kind == HICN_KEY_RAW) {
		hicn_udp_face_data_raw(uf, d);
		return;
	}
	len = d->obj ? d->len : 0;
	if (!READ_ONCE(face->up) ||
	    hicn_wire_key_to_suffix(kind, d->ikey.ver, d->ikey.seg, &suffix))
		goto drop;
	hicn_udp_pkt_init(uf, &p, &d->ikey.name, suffix);
	hicn_udp_wire_addr(&uf->remote, &p.locator);
	p.lifetime = hicn_udp_data_lifetime(d);
	p.payload_len = HICN_WIRE_THDR_LEN + len;
	zc = hicn_udp_zc_tail(d, len, &p);
	skb = hicn_udp_alloc(&p);
	if (!skb)
		goto drop;
	hlen = skb->len + p.tail_len - p.payload_len;

	th.kind = kind;
	th.flags = (d->flags & HICN_DATA_NACK ? HICN_WIRE_TF_NACK : 0) |
		   (d->flags & HICN_DATA_PROBE ? HICN_WIRE_TF_PROBE : 0);
	th.ver = d->key.ver;
	th.seg = d->key.seg;
	th.final_seg = d->final_seg;
	th.seg_size = d->obj ? d->obj->seg_size : 0;
	th.asked_ver = kind == HICN_I_NEXT ? (d->asked_ver ?: d->ikey.ver) : 0;
	th.obj_len = d->obj_len;
	th.len = len;
	if (hicn_wire_thdr_build(skb->data + hlen, skb->len - hlen, &th) < 0)
		goto drop_skb;
	if (zc)
		hicn_udp_zc_set(skb, d->obj, d->off, len);
	else if (len)
		memcpy(skb->data + hlen + HICN_WIRE_THDR_LEN,
		       d->obj->data + d->off, len);
	if (hicn_wire_build(skb->data, skb->len, &p) < 0)
		goto drop_skb;
	hicn_udp_queue(uf, skb);
	return;

drop_skb:
	kfree_skb(skb);
drop:
	atomic64_inc(&uf->tx_drops);
}

static void hicn_udp_face_destroy(struct hicn_face *face)
{
	struct hicn_udp_face *uf = face->priv;

	skb_queue_purge(&uf->txq);
	hicn_udp_listener_put(uf->l);
	kfree_rcu(uf, rcu);
}

static const struct hicn_face_ops hicn_udp_face_ops = {
	.interest	= hicn_udp_face_interest,
	.data		= hicn_udp_face_data,
	.destroy	= hicn_udp_face_destroy,
	.kind		= HICN_FACE_KIND_UDP,
};

/* ---- faces ---- */

static struct hicn_udp_face *
hicn_udp_face_find(struct hicn_udp_listener *l,
		   const struct sockaddr_storage *remote)
{
	struct hicn_udp_face *uf;

	hlist_for_each_entry_rcu(uf, &l->faces[hicn_udp_hash(remote)], hnode,
				 lockdep_is_held(&l->lock))
		if (hicn_udp_addr_equal(&uf->remote, remote))
			return uf;
	return NULL;
}

/* A new face of @l to @remote (hicn_net.lock held). */
static struct hicn_udp_face *
hicn_udp_face_new(struct hicn_net *hn, struct hicn_udp_listener *l,
		  const struct sockaddr_storage *remote, u8 format, bool auto_created)
{
	struct hicn_udp_face *uf;
	struct hicn_face *face;

	lockdep_assert_held(&hn->lock);
	if (l->dead)
		return ERR_PTR(-ENODEV);
	if (hn->nr_udp_faces >= HICN_UDP_FACES_MAX ||
	    (auto_created && hn->nr_udp_auto >= HICN_UDP_AUTO_MAX))
		return ERR_PTR(-ENOSPC);
	spin_lock_bh(&l->lock);
	uf = hicn_udp_face_find(l, remote);
	spin_unlock_bh(&l->lock);
	if (uf)
		return ERR_PTR(-EEXIST);

	uf = kzalloc(sizeof(*uf), GFP_KERNEL_ACCOUNT);
	if (!uf)
		return ERR_PTR(-ENOMEM);
	face = hicn_face_create_locked(l->net, &hicn_udp_face_ops, NULL, uf);
	if (!face) {
		kfree(uf);
		return ERR_PTR(-ENOMEM);
	}
	uf->face = face;
	refcount_inc(&l->ref);
	uf->l = l;
	uf->remote = *remote;
	uf->format = format;
	uf->auto_created = auto_created;
	WRITE_ONCE(face->up, hicn_link_reachable(l->net, remote));
	skb_queue_head_init(&uf->txq);
	INIT_WORK(&uf->tx_work, hicn_udp_tx_work);

	spin_lock_bh(&l->lock);
	hlist_add_head_rcu(&uf->hnode, &l->faces[hicn_udp_hash(remote)]);
	uf->hashed = true;
	l->nr_faces++;
	spin_unlock_bh(&l->lock);
	hn->nr_udp_faces++;
	if (auto_created)
		hn->nr_udp_auto++;
	if (!READ_ONCE(face->up))
		hicn_link_recheck(l->net);
	hicn_nl_face_event(face, HICN_CMD_FACE_ADDED);
	return uf;
}

/*
 * Take a face out (hicn_net.lock held): no datagram reaches it, no route
 * leads to it, it takes no interest; it is freed when the PIT records
 * and queued packets that hold it let go.  It is marked failing for
 * good: the caller's hicn_pit_fail_faces() sends what waits on it to
 * another next hop, or fails it.
 */
static void hicn_udp_face_remove(struct hicn_net *hn, struct hicn_udp_face *uf)
{
	struct hicn_udp_listener *l = uf->l;

	lockdep_assert_held(&hn->lock);
	spin_lock_bh(&l->lock);
	hlist_del_rcu(&uf->hnode);
	uf->hashed = false;
	l->nr_faces--;
	spin_unlock_bh(&l->lock);
	hn->nr_udp_faces--;
	if (uf->auto_created)
		hn->nr_udp_auto--;
	WRITE_ONCE(uf->face->failing, true);
	hicn_face_detach_locked(uf->face);
	hicn_fib_del_face(hn, uf->face);
	hicn_nl_face_event(uf->face, HICN_CMD_FACE_DELETED);
	skb_queue_purge(&uf->txq);
	hicn_face_put(uf->face);
}

/**
 * hicn_udp_link_update() - mark each UDP face up or down by whether its
 *	peer is reachable (face_link.c; hicn_net.lock held)
 * @hn: the netns's AF_HICN state
 *
 * A face that changes is an event (face-up, face-down).  Once every face
 * is marked, the PIT entries waiting on the faces that went down go to
 * another next hop or fail (hicn_pit_fail_faces()): after the marking,
 * so that neither the failover nor a consumer picks a face that went
 * down.
 *
 * Return: true when a face is down.
 */
bool hicn_udp_link_update(struct hicn_net *hn)
{
	struct hicn_udp_listener *l;
	struct hicn_udp_face *uf;
	bool any_down = false, failing = false;
	unsigned int b;
	bool up;

	lockdep_assert_held(&hn->lock);
	/* Faces join and leave a listener's hash under hicn_net.lock too. */
	list_for_each_entry(l, &hn->udp_listeners, node) {
		for (b = 0; b < ARRAY_SIZE(l->faces); b++) {
			hlist_for_each_entry(uf, &l->faces[b], hnode) {
				up = hicn_link_reachable(l->net, &uf->remote);
				any_down |= !up;
				if (up == READ_ONCE(uf->face->up))
					continue;
				WRITE_ONCE(uf->face->up, up);
				WRITE_ONCE(uf->face->failing, !up);
				failing |= !up;
				hicn_nl_face_event(uf->face, up ?
						   HICN_CMD_FACE_UP :
						   HICN_CMD_FACE_DOWN);
			}
		}
	}
	if (failing)
		hicn_pit_fail_faces(hn);
	list_for_each_entry(l, &hn->udp_listeners, node)
		for (b = 0; b < ARRAY_SIZE(l->faces); b++)
			hlist_for_each_entry(uf, &l->faces[b], hnode)
				WRITE_ONCE(uf->face->failing, false);
	return any_down;
}

/* ---- receive ---- */

/* The key a suffix names: ours, or one that is not (HICN_KEY_RAW). */
static void hicn_udp_key(const struct in6_addr *name, u32 suffix,
			 struct hicn_key *key)
{
	u32 kind, wver, seg;

	memset(key, 0, sizeof(*key));
	key->name = *name;
	if (hicn_wire_suffix_to_key(suffix, &kind, &wver, &seg)) {
		key->seg = suffix;
		key->kind = HICN_KEY_RAW;
		return;
	}
	key->ver = wver;
	key->seg = seg;
	/* A version off the wire is reduced: whoever holds it expands it. */
	key->kind = kind | (wver ? HICN_KEY_WIRE : 0);
}

/* Data from @face that no interest sent to it asked for: counted. */
static void hicn_udp_unsolicited(struct hicn_net *hn, struct hicn_face *face)
{
	atomic64_inc(&face->stats.data_in);
	atomic64_inc(&face->stats.unsolicited);
	atomic64_inc(&hn->stats.unsolicited);
}

/*
 * Data of a name that is not ours (a stock producer's, relayed): it
 * carries no transport header of ours; its AH, signature and payload go
 * on as one block, cached like any segment (hicn-wire.rst, "Names that
 * are not ours").
 */
static void hicn_udp_rx_raw_data(struct hicn_udp_face *uf,
				 const struct hicn_wire_pkt *p,
				 const struct hicn_key *key, const u8 *buf)
{
	struct hicn_net *hn = hicn_pernet(uf->l->net);
	u32 len = p->ah_len + p->payload_len;
	struct hicn_data d = {};
	struct hicn_obj *obj;

	/* Nothing is allocated for data no interest sent here asked for. */
	if (!hicn_pit_solicited(hn, key, uf->face)) {
		hicn_udp_unsolicited(hn, uf->face);
		return;
	}
	/* An empty one too: it is an answer, and the CS keeps objects. */
	obj = hicn_obj_alloc(len, len ?: 1);
	if (!obj) {
		hicn_udp_drop(uf, HICN_A_FACE_DROPS_NOMEM);
		return;
	}
	/* The AH, when there is one, sits right before the payload. */
	if (len)
		memcpy(obj->data, buf + p->payload_off - p->ah_len, len);
	obj->name = p->name;
	d.key = *key;
	d.ikey = *key;
	d.obj_len = len;
	d.len = len;
	d.obj = obj;
	d.raw_ah_len = p->ah_len;
	d.raw_flags = p->flags;
	d.raw_lifetime = p->lifetime;
	if (p->lifetime < HICN_WIRE_LIFETIME_MAX)
		d.expires = jiffies + msecs_to_jiffies(p->lifetime) ?: 1;
	hicn_fwd_data(uf->face, &d);
	hicn_obj_put(obj);
}

/* The PIT key a data packet answers, from its suffix and our header. */
static int hicn_udp_data_key(const struct hicn_wire_pkt *p,
			     const struct hicn_wire_thdr *th,
			     struct hicn_key *ikey)
{
	u32 suffix;

	memset(ikey, 0, sizeof(*ikey));
	ikey->name = p->name;
	ikey->kind = th->kind;
	if (th->kind == HICN_I_EXACT) {
		ikey->ver = th->ver;
		ikey->seg = th->seg;
	} else if (th->kind == HICN_I_NEXT) {
		ikey->ver = th->asked_ver;
	}
	/* The header must describe the very name the packet carries. */
	if (hicn_wire_key_to_suffix(th->kind, ikey->ver, ikey->seg, &suffix) ||
	    suffix != p->suffix ||
	    hicn_wire_thdr_match(th, th->kind, ikey->ver, ikey->seg))
		return -EPROTO;
	return 0;
}

/*
 * Which PIT keys the data answers (up to two: a local consumer's full
 * version, and, on a relay, the wire version an interest from another
 * face named); 0 when no interest forwarded to @face waits for it.
 */
static int hicn_udp_data_keys(struct hicn_net *hn, struct hicn_face *face,
			      const struct hicn_key *full,
			      struct hicn_key keys[2])
{
	int n = 0;

	if (hicn_pit_solicited(hn, full, face))
		keys[n++] = *full;
	if (full->kind == HICN_I_EXACT || full->kind == HICN_I_NEXT) {
		keys[n] = *full;
		keys[n].kind |= HICN_KEY_WIRE;
		keys[n].ver = hicn_wire_ver(full->ver);
		if (hicn_pit_solicited(hn, &keys[n], face))
			n++;
	}
	return n;
}

static void hicn_udp_rx_data(struct hicn_udp_face *uf,
			     const struct hicn_wire_pkt *p, const u8 *buf)
{
	struct hicn_net *hn = hicn_pernet(uf->l->net);
	struct hicn_face *face = uf->face;
	struct hicn_key full, keys[2];
	struct hicn_wire_thdr th;
	struct hicn_data d = {};
	struct hicn_obj *obj = NULL;
	int i, n;

	hicn_udp_key(&p->name, p->suffix, &full);
	if (full.kind == HICN_KEY_RAW) {
		hicn_udp_rx_raw_data(uf, p, &full, buf);
		return;
	}
	if (hicn_wire_thdr_parse(buf + p->payload_off, p->payload_len, &th) ||
	    hicn_udp_data_key(p, &th, &full)) {
		hicn_udp_drop(uf, HICN_A_FACE_DROPS_TRANSPORT);
		return;
	}
	/* Nothing is allocated for data no interest sent here asked for. */
	n = hicn_udp_data_keys(hn, face, &full, keys);
	if (!n) {
		hicn_udp_unsolicited(hn, face);
		return;
	}
	if (th.len) {
		/* The object's segment size, which a relay passes on. */
		obj = hicn_obj_alloc(th.len, th.seg_size);
		if (!obj) {
			hicn_udp_drop(uf, HICN_A_FACE_DROPS_NOMEM);
			return;
		}
		memcpy(obj->data, buf + p->payload_off + HICN_WIRE_THDR_LEN,
		       th.len);
		obj->name = p->name;
		obj->ver = th.ver;
	}
	d.key.name = p->name;
	d.key.ver = th.ver;
	d.key.seg = th.seg;
	d.key.kind = HICN_I_EXACT;
	d.final_seg = th.final_seg;
	d.obj_len = th.obj_len;
	d.len = th.len;
	d.obj = obj;
	d.flags = (th.flags & HICN_WIRE_TF_NACK ? HICN_DATA_NACK : 0) |
		  (th.flags & HICN_WIRE_TF_PROBE ? HICN_DATA_PROBE : 0);
	if (!obj && !(d.flags & HICN_DATA_PROBE))
		d.flags |= HICN_DATA_NACK;
	if (p->lifetime < HICN_WIRE_LIFETIME_MAX)
		d.expires = jiffies + msecs_to_jiffies(p->lifetime) ?: 1;
	if (full.kind == HICN_I_NEXT)
		d.asked_ver = th.asked_ver;
	for (i = 0; i < n; i++) {
		d.ikey = keys[i];
		hicn_fwd_data(face, &d);
	}
	hicn_obj_put(obj);
}

/* One name an interest asks for enters the forwarder. */
static void hicn_udp_rx_one(struct hicn_udp_face *uf,
			    const struct in6_addr *name, u32 suffix,
			    unsigned long lifetime, u8 hops,
			    const struct hicn_isig *sig)
{
	struct hicn_key key;

	hicn_udp_key(name, suffix, &key);
	switch (hicn_fwd_interest(uf->face, &key, lifetime, hops, sig)) {
	case 0:
		break;
	case -ELOOP:
		atomic64_inc(&uf->hop_drops);
		break;
	case -ENETUNREACH:
		hicn_udp_drop(uf, HICN_A_FACE_DROPS_NO_ROUTE);
		break;
	case -ENOBUFS:
		hicn_udp_drop(uf, HICN_A_FACE_DROPS_PIT_FULL);
		break;
	case -ENOMEM:
		hicn_udp_drop(uf, HICN_A_FACE_DROPS_NOMEM);
		break;
	case -EPROTONOSUPPORT:
		/* A name not ours that leads to a local producer. */
		hicn_udp_drop(uf, HICN_A_FACE_DROPS_NAME);
		break;
	default:
		/* The producer's face refused it (it is closing). */
		hicn_udp_drop(uf, HICN_A_FACE_DROPS_NO_ROUTE);
	}
}

/*
 * An interest manifest (a stock consumer's) asks for every suffix its
 * bitmap requests: each enters the forwarder as an interest of its own,
 * so each has its PIT entry and its answer.  The manifest itself, and
 * the signature of a signed one, are not passed on.
 */
static void hicn_udp_rx_manifest(struct hicn_udp_face *uf,
				 const struct hicn_wire_pkt *p, const u8 *buf,
				 unsigned long lifetime, u8 hops)
{
	const u8 *man = buf + p->payload_off;
	int i, n;

	n = hicn_wire_imanifest_parse(man, p->payload_len);
	if (n < 0) {
		hicn_udp_drop(uf, HICN_A_FACE_DROPS_NAME);
		return;
	}
	for (i = 0; i < n; i++)
		if (hicn_wire_imanifest_requested(man, i))
			hicn_udp_rx_one(uf, &p->name,
					hicn_wire_imanifest_suffix(man, i),
					lifetime, hops, NULL);
}

static void hicn_udp_rx_interest(struct hicn_udp_face *uf,
				 const struct hicn_wire_pkt *p, const u8 *buf)
{
	struct hicn_isig sig, *signed_by = NULL;
	unsigned long lifetime;
	u8 hops;

	lifetime = msecs_to_jiffies(min_t(u32, p->lifetime,
					  HICN_LIFETIME_MAX));
	/* The compact format has no hop limit: PIT aggregation breaks loops. */
	hops = p->format == HICN_WIRE_COMPACT ? HICN_HOP_LIMIT :
	       p->hop_limit;
	hops = hops ? hops - 1 : 0;
	if (p->flags & HICN_WIRE_F_MAN) {
		hicn_udp_rx_manifest(uf, p, buf, lifetime, hops);
		return;
	}
	if (p->flags & HICN_WIRE_F_SIG) {
		sig.buf = buf + p->ah_off;
		sig.ah_len = p->ah_len;
		sig.len = p->ah_len + p->payload_len;
		sig.lifetime_ms = p->lifetime;
		sig.format = p->format;
		signed_by = &sig;
	}
	hicn_udp_rx_one(uf, &p->name, p->suffix, lifetime, hops, signed_by);
}

/* The face of @remote, made if the listener allows it and @make. */
static struct hicn_udp_face *hicn_udp_rx_face(struct hicn_udp_listener *l,
					      const struct sockaddr_storage *remote,
					      bool make)
{
	struct hicn_net *hn = hicn_pernet(l->net);
	struct hicn_udp_face *uf;

	rcu_read_lock();
	uf = hicn_udp_face_find(l, remote);
	if (uf && !refcount_inc_not_zero(&uf->face->ref))
		uf = NULL;
	rcu_read_unlock();
	if (uf || !make || !READ_ONCE(l->auto_faces))
		return uf;

	mutex_lock(&hn->lock);
	uf = hicn_udp_face_new(hn, l, remote, HICN_WIRE_IPV6_TCP, true);
	if (!IS_ERR(uf))
		hicn_face_get(uf->face);
	mutex_unlock(&hn->lock);
	return IS_ERR(uf) ? NULL : uf;
}

static void hicn_udp_input(struct hicn_udp_listener *l,
			   const struct sockaddr_storage *remote,
			   const u8 *buf, size_t len)
{
	struct hicn_udp_face *uf;
	struct hicn_wire_pkt p;
	int err;

	err = hicn_wire_parse(buf, len, &p);
	uf = hicn_udp_rx_face(l, remote, !err && p.is_interest);
	if (!uf) {
		atomic64_inc(&l->no_face);
		return;
	}
	if (err)
		hicn_udp_drop(uf, hicn_udp_wire_drop(&p));
	else if (p.is_interest)
		hicn_udp_rx_interest(uf, &p, buf);
	else
		hicn_udp_rx_data(uf, &p, buf);
	hicn_face_put(uf->face);
}

static void hicn_udp_rx_work(struct work_struct *work)
{
	struct hicn_udp_listener *l = container_of(work,
						   struct hicn_udp_listener,
						   rx_work);
	struct sockaddr_storage remote;
	struct msghdr msg;
	struct kvec iov;
	int n, len;

	for (n = 0; n < HICN_UDP_RX_BUDGET; n++) {
		memset(&msg, 0, sizeof(msg));
		memset(&remote, 0, sizeof(remote));
		msg.msg_name = &remote;
		msg.msg_namelen = sizeof(remote);
		iov.iov_base = l->rxbuf;
		iov.iov_len = HICN_WIRE_MAX_LEN;
		len = kernel_recvmsg(l->sock, &msg, &iov, 1, iov.iov_len,
				     MSG_DONTWAIT);
		if (len < 0)
			return;
		if (msg.msg_flags & MSG_TRUNC) {
			atomic64_inc(&l->no_face);
			continue;
		}
		hicn_udp_input(l, &remote, l->rxbuf, len);
		cond_resched();
	}
	queue_work(hicn_udp_wq, &l->rx_work);
}

static void hicn_udp_data_ready(struct sock *sk)
{
	struct hicn_udp_listener *l;

	rcu_read_lock();
	l = rcu_dereference_sk_user_data(sk);
	if (l)
		queue_work(hicn_udp_wq, &l->rx_work);
	rcu_read_unlock();
}

/* ---- listeners ---- */

/* The socket buffers, set as SO_RCVBUF and SO_SNDBUF would (locked). */
static void hicn_udp_sock_bufs(struct sock *sk)
{
	lock_sock(sk);
	sk->sk_userlocks |= SOCK_RCVBUF_LOCK | SOCK_SNDBUF_LOCK;
	WRITE_ONCE(sk->sk_rcvbuf, HICN_UDP_RCVBUF);
	WRITE_ONCE(sk->sk_sndbuf, HICN_UDP_SNDBUF);
	release_sock(sk);
}

static int hicn_udp_sock_open(struct hicn_udp_listener *l)
{
	struct socket *sock;
	int err;

	err = sock_create_kern(l->net, l->local.ss_family, SOCK_DGRAM,
			       IPPROTO_UDP, &sock);
	if (err)
		return err;
	if (l->local.ss_family == AF_INET6)
		ip6_sock_set_v6only(sock->sk);
	hicn_udp_sock_bufs(sock->sk);
	err = kernel_bind(sock, (struct sockaddr_unsized *)&l->local,
			  hicn_udp_addr_len(&l->local));
	if (err) {
		sock_release(sock);
		return err;
	}
	write_lock_bh(&sock->sk->sk_callback_lock);
	rcu_assign_sk_user_data(sock->sk, l);
	sock->sk->sk_data_ready = hicn_udp_data_ready;
	write_unlock_bh(&sock->sk->sk_callback_lock);
	l->sock = sock;
	return 0;
}

/**
 * hicn_udp_listener_add() - open a listener
 * @net: the netns
 * @local: address and port to bind (port 0: HICN_UDP_PORT)
 * @auto_faces: datagrams from unknown peers make faces
 * @id: the new listener's id
 *
 * Return: 0, -EADDRINUSE (the address is taken), -EADDRNOTAVAIL (not an
 * address of the netns), -ENOSPC beyond HICN_UDP_LISTENERS_MAX, -ENOMEM.
 */
int hicn_udp_listener_add(struct net *net, const struct sockaddr_storage *local,
			  bool auto_faces, u32 *id)
{
	struct hicn_net *hn = hicn_pernet(net);
	struct hicn_udp_listener *l;
	int err;

	l = kzalloc(sizeof(*l), GFP_KERNEL_ACCOUNT);
	if (!l)
		return -ENOMEM;
	l->rxbuf = kvmalloc(HICN_WIRE_MAX_LEN, GFP_KERNEL_ACCOUNT);
	if (!l->rxbuf) {
		kfree(l);
		return -ENOMEM;
	}
	refcount_set(&l->ref, 1);
	l->net = net;
	l->local = *local;
	l->auto_faces = auto_faces;
	mutex_init(&l->sock_lock);
	spin_lock_init(&l->lock);
	INIT_WORK(&l->rx_work, hicn_udp_rx_work);
	atomic64_set(&l->no_face, 0);

	mutex_lock(&hn->lock);
	err = -ENOSPC;
	if (hn->nr_udp_listeners < HICN_UDP_LISTENERS_MAX)
		err = hicn_udp_sock_open(l);
	if (!err) {
		l->id = ++hn->next_listener_id;
		list_add_tail(&l->node, &hn->udp_listeners);
		hn->nr_udp_listeners++;
		*id = l->id;
	}
	mutex_unlock(&hn->lock);
	if (err) {
		kvfree(l->rxbuf);
		kfree(l);
	}
	return err;
}

/*
 * Take a listener out (hicn_net.lock held): off the list, its faces
 * removed, no new face; hicn_udp_listener_free() does the rest without
 * the lock, which the rx work may be waiting for.
 */
static void hicn_udp_listener_unlink(struct hicn_net *hn,
				     struct hicn_udp_listener *l)
{
	struct hicn_udp_face *uf;
	struct hlist_node *tmp;
	unsigned int b;

	lockdep_assert_held(&hn->lock);
	list_del(&l->node);
	hn->nr_udp_listeners--;
	l->dead = true;
	for (b = 0; b < ARRAY_SIZE(l->faces); b++)
		hlist_for_each_entry_safe(uf, tmp, &l->faces[b], hnode)
			hicn_udp_face_remove(hn, uf);
	hicn_pit_fail_faces(hn);
}

/* Stop the socket's callbacks and work, close it, drop the list's ref. */
static void hicn_udp_listener_free(struct hicn_udp_listener *l)
{
	struct socket *sock = l->sock;

	write_lock_bh(&sock->sk->sk_callback_lock);
	rcu_assign_sk_user_data(sock->sk, NULL);
	write_unlock_bh(&sock->sk->sk_callback_lock);
	synchronize_rcu();	/* no data_ready queues the work any more */
	cancel_work_sync(&l->rx_work);

	mutex_lock(&l->sock_lock);
	l->sock = NULL;
	mutex_unlock(&l->sock_lock);
	kernel_sock_shutdown(sock, SHUT_RDWR);
	sock_release(sock);
	hicn_udp_listener_put(l);
}

static struct hicn_udp_listener *hicn_udp_listener_find(struct hicn_net *hn,
							u32 id)
{
	struct hicn_udp_listener *l;

	lockdep_assert_held(&hn->lock);
	list_for_each_entry(l, &hn->udp_listeners, node)
		if (l->id == id)
			return l;
	return NULL;
}

/**
 * hicn_udp_listener_del() - close a listener and its faces
 * @net: the netns
 * @id: the listener
 *
 * Return: 0, -ENOENT.
 */
int hicn_udp_listener_del(struct net *net, u32 id)
{
	struct hicn_net *hn = hicn_pernet(net);
	struct hicn_udp_listener *l;

	mutex_lock(&hn->lock);
	l = hicn_udp_listener_find(hn, id);
	if (l)
		hicn_udp_listener_unlink(hn, l);
	mutex_unlock(&hn->lock);
	if (!l)
		return -ENOENT;
	hicn_udp_listener_free(l);
	return 0;
}

/**
 * hicn_udp_face_add() - a face of a listener to a remote peer
 * @net: the netns
 * @listener: the listener's id
 * @remote: the peer's address and port (port 0: HICN_UDP_PORT), of the
 *	listener's family
 * @format: enum hicn_wire_format the face sends
 * @face_id: the new face's id
 *
 * Return: 0, -ENODEV (no such listener), -EAFNOSUPPORT (another family
 * than the listener's), -EEXIST (the listener has a face to @remote),
 * -ENOSPC beyond HICN_UDP_FACES_MAX, -ENOMEM.
 */
int hicn_udp_face_add(struct net *net, u32 listener,
		      const struct sockaddr_storage *remote, u8 format,
		      u32 *face_id)
{
	struct hicn_net *hn = hicn_pernet(net);
	struct hicn_udp_listener *l;
	struct hicn_udp_face *uf;

	mutex_lock(&hn->lock);
	l = hicn_udp_listener_find(hn, listener);
	if (!l)
		uf = ERR_PTR(-ENODEV);
	else if (l->local.ss_family != remote->ss_family)
		uf = ERR_PTR(-EAFNOSUPPORT);
	else
		uf = hicn_udp_face_new(hn, l, remote, format, false);
	if (!IS_ERR(uf))
		*face_id = uf->face->id;
	mutex_unlock(&hn->lock);
	return PTR_ERR_OR_ZERO(uf);
}

/**
 * hicn_udp_face_del() - delete a UDP face
 * @net: the netns
 * @face_id: the face
 *
 * Routes lose their next hops to it; the PIT entries whose interests
 * went to it alone go to another next hop, or fail
 * (hicn_pit_fail_faces()).
 * Return: 0, -ENOENT (no face with the id), -EOPNOTSUPP (not a UDP face:
 * an application face goes with its socket).
 */
int hicn_udp_face_del(struct net *net, u32 face_id)
{
	struct hicn_net *hn = hicn_pernet(net);
	struct hicn_face *face;
	int err = -ENOENT;

	mutex_lock(&hn->lock);
	list_for_each_entry(face, &hn->faces, node) {
		if (face->id != face_id)
			continue;
		err = -EOPNOTSUPP;
		if (face->ops == &hicn_udp_face_ops) {
			hicn_udp_face_remove(hn, face->priv);
			hicn_pit_fail_faces(hn);
			err = 0;
		}
		break;
	}
	mutex_unlock(&hn->lock);
	return err;
}

/**
 * hicn_udp_face_info() - what netlink shows of a UDP face
 * @face: a face
 * @info: filled when @face is a UDP face
 *
 * Return: true for a UDP face.
 */
bool hicn_udp_face_info(const struct hicn_face *face,
			struct hicn_udp_face_info *info)
{
	const struct hicn_udp_face *uf = face->priv;
	unsigned int i;

	if (face->ops != &hicn_udp_face_ops)
		return false;
	info->listener = uf->l->id;
	info->remote = uf->remote;
	info->format = uf->format;
	info->auto_created = uf->auto_created;
	info->malformed = 0;
	for (i = HICN_A_FACE_DROPS_TRUNCATED; i <= HICN_A_FACE_DROPS_MAX; i++) {
		info->drops[i] = atomic64_read(&uf->drops[i]);
		if (i <= HICN_FACE_DROPS_MALFORMED_LAST)
			info->malformed += info->drops[i];
	}
	info->tx_drops = atomic64_read(&uf->tx_drops);
	info->hop_drops = atomic64_read(&uf->hop_drops);
	return true;
}

/**
 * hicn_udp_listener_walk() - call @fn for each listener (hicn_net.lock held)
 * @hn: the netns's AF_HICN state
 * @after: only listeners with a greater id
 * @fn: returns non-zero to stop
 * @arg: for @fn
 *
 * Return: what @fn returned last.
 */
int hicn_udp_listener_walk(struct hicn_net *hn, u32 after,
			   int (*fn)(const struct hicn_udp_listener_info *li,
				     void *arg),
			   void *arg)
{
	struct hicn_udp_listener_info li;
	struct hicn_udp_listener *l;
	int err = 0;

	lockdep_assert_held(&hn->lock);
	list_for_each_entry(l, &hn->udp_listeners, node) {
		if (l->id <= after)
			continue;
		li.id = l->id;
		li.local = l->local;
		li.auto_faces = READ_ONCE(l->auto_faces);
		li.faces = l->nr_faces;
		li.no_face = atomic64_read(&l->no_face);
		err = fn(&li, arg);
		if (err)
			break;
	}
	return err;
}

/* The netns is going away: every listener and its faces. */
void hicn_udp_net_exit(struct hicn_net *hn)
{
	struct hicn_udp_listener *l;

	for (;;) {
		mutex_lock(&hn->lock);
		l = list_first_entry_or_null(&hn->udp_listeners,
					     struct hicn_udp_listener, node);
		if (l)
			hicn_udp_listener_unlink(hn, l);
		mutex_unlock(&hn->lock);
		if (!l)
			return;
		hicn_udp_listener_free(l);
	}
}

int hicn_udp_init(void)
{
	/* netlink gives formats by the wire code's numbers */
	BUILD_BUG_ON((int)HICN_FORMAT_IPV6_TCP - (int)HICN_WIRE_IPV6_TCP);
	BUILD_BUG_ON((int)HICN_FORMAT_IPV4_TCP - (int)HICN_WIRE_IPV4_TCP);
	BUILD_BUG_ON((int)HICN_FORMAT_COMPACT - (int)HICN_WIRE_COMPACT);
	BUILD_BUG_ON(HICN_I_EXACT - HICN_WIRE_KIND_EXACT);
	BUILD_BUG_ON(HICN_I_LATEST - HICN_WIRE_KIND_LATEST);
	BUILD_BUG_ON(HICN_I_NEXT - HICN_WIRE_KIND_NEXT);
	BUILD_BUG_ON(HICN_I_PROBE - HICN_WIRE_KIND_PROBE);
	hicn_udp_wq = alloc_workqueue("hicn_udp", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	return hicn_udp_wq ? 0 : -ENOMEM;
}

void hicn_udp_exit(void)
{
	destroy_workqueue(hicn_udp_wq);
}
