// SPDX-License-Identifier: GPL-2.0
/*
 * SOCK_PROD: publishing.
 *
 * sendto() copies the object once into a struct hicn_obj and files it as a
 * new version of its name in the producer's store.  The store is the
 * producer's output buffer: the socket's application face answers
 * interests from it in the kernel, so the application is never woken by
 * them.  Interests for content that does not exist yet (the newest version
 * of a name never published, a version above the newest, the next
 * version) wait in @held until a publication answers them or their
 * lifetime ends.
 *
 * Memory: every version is charged to the socket (sk_wmem_queued, bounded
 * by sk_sndbuf, by default a quarter of net.hicn.prod_mem_max) and to the
 * socket owner's producers in the netns (net.hicn.prod_user_mem_max) until
 * the store drops it, and to the netns (net.hicn.prod_mem_max) until its last
 * reference goes (a consumer or the CS may hold it longer).  A publication
 * that does not fit waits for versions to expire (or returns EAGAIN); one
 * that could never fit is EMSGSIZE.  The state of each name (struct
 * hicn_pname) is charged the same way, and goes when the name's last
 * version expires; a name published again later continues above every
 * version the socket gave out under a released name (@ver_floor), so a
 * name's versions only increase.  They also start above every version the
 * producers that claimed the namespace before gave out (ver_floor.c): a
 * name and version mean one object in the netns, whichever producer
 * published it.  PROD_REL keeps every version until it expires
 * (HICN_CONTENT_EXPIRY); PROD_UNREL keeps the newest version of a name
 * only.
 *
 * Lookups stay short however much the store holds: a hash of the names (an
 * rhashtable, which grows and shrinks with them) finds one in a few
 * comparisons, a tree of each name's versions by number finds a version
 * (EXACT) or the next one (NEXT) in O(log n), and a tree of the versions
 * that expire, soonest first, lets the expiry visit only what expires.
 * hicn_stat prod_lookup_steps and prod_expiry_steps count the steps.  A
 * list of the names serves close().  Held interests are in a list, oldest
 * first (eviction, expiry, matching a publication), and in a hash by their
 * whole key, so that a renewal finds its entry in a few comparisons
 * (prod_held_steps) rather than by walking up to HICN_HELD_MAX of them.
 *
 * Locks:
 *   lock_sock(producer) -> hicn_prod.lock (BH off)
 *   hicn_prod.lock is released before the forwarder is called, so data
 *   never travels with it held.  sk_wmem_queued changes under lock_sock.
 *   hicn_prod.lock covers the name hash, the name list, every name's
 *   versions, the held interests and their counts; the helpers below that
 *   touch them assert it.  The hash's own bucket locks nest inside it,
 *   and its resize work takes no lock of ours: an entry leaves its hash
 *   before it is freed.  Once release() has set @closing (under
 *   hicn_prod.lock) no lookup touches the hashes any more; release()
 *   destroys them, which stops a resize still walking their entries, and
 *   only then frees the names and held interests they held.
 */

#include <linux/hash.h>
#include <linux/rhashtable.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <net/ipv6.h>

#include "hicn.h"
#include "wire.h"

static struct hicn_net *hicn_prod_net(struct hicn_prod *p)
{
	return hicn_pernet(sock_net(&container_of(p, struct hicn_sock,
						  prod)->sk));
}

/* A lookup in @p's store compared @steps names or versions. */
static void hicn_prod_count(struct hicn_prod *p, unsigned int steps)
{
	struct hicn_stats *st = &hicn_prod_net(p)->stats;

	atomic64_inc(&st->prod_lookups);
	atomic64_add(steps, &st->prod_lookup_steps);
}

/* The hash compares a name it met with @arg's key (hicn_prod.lock held). */
static int hicn_pname_cmp(struct rhashtable_compare_arg *arg, const void *obj)
{
	struct hicn_prod *p = container_of(arg->ht, struct hicn_prod, names);
	const struct hicn_pname *pn = obj;

	lockdep_assert_held(&p->lock);
	p->steps++;
	return !ipv6_addr_equal(&pn->name, arg->key);
}

static const struct rhashtable_params hicn_pname_params = {
	.head_offset		= offsetof(struct hicn_pname, node),
	.key_offset		= offsetof(struct hicn_pname, name),
	.key_len		= sizeof(struct in6_addr),
	.obj_cmpfn		= hicn_pname_cmp,
	.automatic_shrinking	= true,
};

/* The hash of held interests compares one it met (hicn_prod.lock held). */
static int hicn_held_cmp(struct rhashtable_compare_arg *arg, const void *obj)
{
	struct hicn_prod *p = container_of(arg->ht, struct hicn_prod,
					   held_keys);
	const struct hicn_held *h = obj;

	lockdep_assert_held(&p->lock);
	atomic64_inc(&hicn_prod_net(p)->stats.prod_held_steps);
	return !hicn_key_equal(&h->key, arg->key);
}

static const struct rhashtable_params hicn_held_params = {
	.head_offset		= offsetof(struct hicn_held, knode),
	.key_offset		= offsetof(struct hicn_held, key),
	.key_len		= sizeof(struct hicn_key),
	.obj_cmpfn		= hicn_held_cmp,
	.automatic_shrinking	= true,
};

/* The state of @name, or NULL (hicn_prod.lock held). */
static struct hicn_pname *hicn_pname_find(struct hicn_prod *p,
					  const struct in6_addr *name)
{
	struct hicn_pname *pn;

	lockdep_assert_held(&p->lock);
	if (p->closing)
		return NULL;	/* release() destroys the hash */
	p->steps = 0;
	pn = rhashtable_lookup_fast(&p->names, name, hicn_pname_params);
	hicn_prod_count(p, p->steps);
	return pn;
}

/* Take @pn out of the hash and the list onto @names (hicn_prod.lock held). */
static void hicn_pname_unlink(struct hicn_prod *p, struct hicn_pname *pn,
			      struct list_head *names)
{
	lockdep_assert_held(&p->lock);
	p->ver_floor = max(p->ver_floor, pn->last_ver);
	rhashtable_remove_fast(&p->names, &pn->node, hicn_pname_params);
	list_move(&pn->all, names);
}

static bool hicn_obj_live(const struct hicn_obj *obj)
{
	return !obj->expires || !time_after(jiffies, obj->expires);
}

static struct hicn_obj *hicn_pname_newest(struct hicn_prod *p,
					  struct hicn_pname *pn)
{
	struct hicn_obj *obj, *found = NULL;
	unsigned int steps = 0;

	lockdep_assert_held(&p->lock);
	list_for_each_entry_reverse(obj, &pn->versions, node) {
		steps++;
		if (hicn_obj_live(obj)) {
			found = obj;
			break;
		}
	}
	hicn_prod_count(p, steps);
	return found;
}

/* The live version @ver of @pn, found in its tree (hicn_prod.lock held). */
static struct hicn_obj *hicn_pname_version(struct hicn_prod *p,
					   struct hicn_pname *pn, u32 ver)
{
	struct rb_node *n = pn->by_ver.rb_node;
	struct hicn_obj *obj, *found = NULL;
	unsigned int steps = 0;

	lockdep_assert_held(&p->lock);
	while (n) {
		steps++;
		obj = rb_entry(n, struct hicn_obj, ver_node);
		if (ver < obj->ver) {
			n = n->rb_left;
		} else if (ver > obj->ver) {
			n = n->rb_right;
		} else {
			found = hicn_obj_live(obj) ? obj : NULL;
			break;
		}
	}
	hicn_prod_count(p, steps);
	return found;
}

/* The oldest live version of @pn above @ver (hicn_prod.lock held). */
static struct hicn_obj *hicn_pname_next(struct hicn_prod *p,
					struct hicn_pname *pn, u32 ver)
{
	struct rb_node *n = pn->by_ver.rb_node;
	struct hicn_obj *obj, *found = NULL;
	unsigned int steps = 0;

	lockdep_assert_held(&p->lock);
	while (n) {
		steps++;
		obj = rb_entry(n, struct hicn_obj, ver_node);
		if (obj->ver > ver) {
			found = obj;
			n = n->rb_left;
		} else {
			n = n->rb_right;
		}
	}
	/* Expired ones not dropped yet: the expiry work is due. */
	while (found && !hicn_obj_live(found)) {
		steps++;
		n = rb_next(&found->ver_node);
		found = n ? rb_entry(n, struct hicn_obj, ver_node) : NULL;
	}
	hicn_prod_count(p, steps);
	return found;
}

static bool hicn_ver_less(struct rb_node *a, const struct rb_node *b)
{
	return rb_entry(a, struct hicn_obj, ver_node)->ver <
	       rb_entry(b, struct hicn_obj, ver_node)->ver;
}

static bool hicn_exp_less(struct rb_node *a, const struct rb_node *b)
{
	return time_before(rb_entry(a, struct hicn_obj, exp_node)->expires,
			   rb_entry(b, struct hicn_obj, exp_node)->expires);
}

/* File @obj as a version of @pn (hicn_prod.lock held). */
static void hicn_prod_link(struct hicn_prod *p, struct hicn_pname *pn,
			   struct hicn_obj *obj)
{
	lockdep_assert_held(&p->lock);
	obj->pn = pn;
	list_add_tail(&obj->node, &pn->versions);
	rb_add(&obj->ver_node, &pn->by_ver, hicn_ver_less);
	if (obj->expires)
		rb_add_cached(&obj->exp_node, &p->expiry, hicn_exp_less);
	p->nversions++;
}

/* Arm the store's work to run at @when (hicn_prod.lock held). */
static void hicn_prod_arm(struct hicn_prod *p, unsigned long when)
{
	long delay = (long)(when - jiffies);

	lockdep_assert_held(&p->lock);
	if (p->closing)
		return;
	if (p->armed && !time_before(when, p->next_run))
		return;
	p->armed = true;
	p->next_run = when;
	mod_delayed_work(system_wq, &p->work, delay > 0 ? delay : 0);
}

/* @n more (or fewer) held interests, counted in the netns too. */
static void hicn_prod_held_add(struct hicn_prod *p, int n)
{
	lockdep_assert_held(&p->lock);
	p->nheld += n;
	atomic_long_add(n, &hicn_prod_net(p)->prod_held);
}

/* Take @h out of the held interests (hicn_prod.lock held). */
static void hicn_held_unlink(struct hicn_prod *p, struct hicn_held *h)
{
	lockdep_assert_held(&p->lock);
	list_del(&h->node);
	rhashtable_remove_fast(&p->held_keys, &h->knode, hicn_held_params);
	hicn_prod_held_add(p, -1);
}

/* Keep @key until content answers it (hicn_prod.lock held). */
static void hicn_prod_hold(struct hicn_prod *p, const struct hicn_key *key,
			   unsigned long lifetime)
{
	/* A grace period lets the consumer renew it before it is dropped. */
	unsigned long expires = jiffies + lifetime + HZ;
	struct hicn_held *h;

	lockdep_assert_held(&p->lock);
	/* release() has emptied the list, or is about to. */
	if (p->closing)
		return;
	h = rhashtable_lookup_fast(&p->held_keys, key, hicn_held_params);
	if (h) {
		h->expires = expires;
		return;
	}
	if (p->nheld >= HICN_HELD_MAX) {
		h = list_first_entry(&p->held, struct hicn_held, node);
		hicn_held_unlink(p, h);
		kfree(h);
	}
	/* Charged to the memory cgroup of the consumer that asked. */
	h = kmalloc(sizeof(*h), GFP_ATOMIC | __GFP_ACCOUNT);
	if (!h)
		return;
	h->key = *key;
	h->expires = expires;
	if (rhashtable_insert_fast(&p->held_keys, &h->knode,
				   hicn_held_params)) {
		kfree(h);	/* the consumer's retransmission asks again */
		return;
	}
	list_add_tail(&h->node, &p->held);
	hicn_prod_held_add(p, 1);
	hicn_prod_arm(p, expires);
}

/*
 * Answer @key from the store into @d (hicn_prod.lock held).  Returns true
 * when @d is an answer (with a reference on d->obj if it has one), false
 * when the interest has to wait for a publication.
 */
static bool hicn_prod_lookup(struct hicn_prod *p, const struct hicn_key *key,
			     struct hicn_data *d)
{
	struct hicn_pname *pn = hicn_pname_find(p, &key->name);
	struct hicn_obj *obj = NULL;

	memset(d, 0, sizeof(*d));
	d->ikey = *key;
	switch (key->kind) {
	case HICN_I_PROBE:
		d->key = *key;
		d->key.ver = pn ? pn->last_ver : 0;
		d->flags = HICN_DATA_PROBE;
		return true;
	case HICN_I_LATEST:
		obj = pn ? hicn_pname_newest(p, pn) : NULL;
		break;
	case HICN_I_NEXT:
		obj = pn ? hicn_pname_next(p, pn, key->ver) : NULL;
		break;
	case HICN_I_EXACT:
		if (key->ver > (pn ? pn->last_ver : p->ver_floor))
			break;	/* not published yet: wait for it */
		obj = pn ? hicn_pname_version(p, pn, key->ver) : NULL;
		if (!obj || key->seg >= obj->nsegs) {
			d->key = *key;
			d->flags = HICN_DATA_NACK;
			return true;
		}
		hicn_obj_fill(obj, key->seg, d);
		d->ikey = *key;
		d->obj = hicn_obj_get(obj);
		return true;
	default:
		d->key = *key;
		d->flags = HICN_DATA_NACK;
		return true;
	}
	if (!obj)
		return false;
	hicn_obj_fill(obj, 0, d);
	d->ikey = *key;
	d->obj = hicn_obj_get(obj);
	return true;
}

/*
 * An interest off the wire names a wire version (HICN_KEY_WIRE): the
 * version it stands for is the newest one held or published with that
 * wire version.  Such an interest is answered or refused at once (a NACK
 * for a version not held), never held: a later publication could not be
 * matched to it.  The answer keeps the interest's key, which is the PIT
 * key it satisfies (hicn_prod.lock held).
 */
static bool hicn_prod_lookup_wire(struct hicn_prod *p,
				  const struct hicn_key *key,
				  struct hicn_data *d)
{
	struct hicn_pname *pn = hicn_pname_find(p, &key->name);
	struct hicn_key full = *key;

	full.kind &= ~HICN_KEY_WIRE;
	full.ver = hicn_wire_ver_expand(key->ver,
					pn ? pn->last_ver : p->ver_floor);
	if (!hicn_prod_lookup(p, &full, d) && full.kind == HICN_I_NEXT)
		memset(d, 0, sizeof(*d));	/* nothing newer: no answer */
	else if (!d->flags && !d->obj) {
		d->key = full;
		d->flags = HICN_DATA_NACK;
	}
	d->ikey = *key;
	if (full.kind == HICN_I_NEXT)
		d->asked_ver = full.ver;
	return d->obj || d->flags;
}

/*
 * Send @d back through @face: the face the interest came to (the
 * forwarder holds it), not hs->face, which release() clears.
 */
static void hicn_prod_answer(struct hicn_sock *hs, struct hicn_face *face,
			     struct hicn_data *d)
{
	/* Counted before the consumer can see it: HICN_INFO never lags. */
	if (d->obj)
		hicn_count(&hs->info.hi_segments, 1);
	hicn_fwd_data(face, d);
	if (d->obj)
		hicn_obj_put(d->obj);
}

/*
 * The forwarder hands the producer's face an interest.  It is answered
 * or held.  A closing producer's face refuses it: its namespace is
 * losing its producer, which the consumer hears as no route.  A name
 * that is not ours (a stock application's) is refused: no version, no
 * segment of ours can answer it.
 */
static int hicn_prod_face_interest(struct hicn_face *face,
				   const struct hicn_key *key,
				   unsigned long lifetime, u8 hops,
				   const struct hicn_isig *sig)
{
	struct hicn_sock *hs;
	struct hicn_data d;
	struct sock *sk;
	bool answer;

	if (key->kind == HICN_KEY_RAW)
		return -EPROTONOSUPPORT;	/* a name that is not ours */
	sk = hicn_face_sk(face);
	if (!sk)
		return -ENETUNREACH;
	hs = hicn_sk(sk);
	hicn_count(&hs->info.hi_interests_received, 1);

	spin_lock_bh(&hs->prod.lock);
	if (key->kind & HICN_KEY_WIRE) {
		answer = hicn_prod_lookup_wire(&hs->prod, key, &d);
	} else {
		answer = hicn_prod_lookup(&hs->prod, key, &d);
		if (!answer)
			hicn_prod_hold(&hs->prod, key, lifetime);
	}
	spin_unlock_bh(&hs->prod.lock);

	if (answer)
		hicn_prod_answer(hs, face, &d);
	sock_put(sk);
	return 0;
}

/* A producer sends no interests, so no data comes back to it. */
static void hicn_prod_face_data(struct hicn_face *face,
				const struct hicn_data *d)
{
}

const struct hicn_face_ops hicn_prod_face_ops = {
	.interest	= hicn_prod_face_interest,
	.data		= hicn_prod_face_data,
	.kind		= HICN_FACE_KIND_PRODUCER,
};

/* Take @obj out of the store (lock_sock and hicn_prod.lock held). */
static void hicn_prod_unlink(struct hicn_sock *hs, struct hicn_obj *obj,
			     struct list_head *dropped)
{
	struct hicn_prod *p = &hs->prod;

	lockdep_assert_held(&p->lock);
	list_move_tail(&obj->node, dropped);
	rb_erase(&obj->ver_node, &obj->pn->by_ver);
	RB_CLEAR_NODE(&obj->ver_node);
	if (!RB_EMPTY_NODE(&obj->exp_node)) {
		rb_erase_cached(&obj->exp_node, &p->expiry);
		RB_CLEAR_NODE(&obj->exp_node);
	}
	obj->pn = NULL;
	p->nversions--;
}

/*
 * POLLOUT: half the send buffer is free, as sock_writeable() has it, so
 * that an object of up to half of it less 8 KiB (its rounding to pages
 * and its header, see hicn_prod_init()) fits.
 */
static bool hicn_prod_writeable(const struct sock *sk)
{
	int sndbuf = READ_ONCE(sk->sk_sndbuf);

	return sndbuf - READ_ONCE(sk->sk_wmem_queued) >= sndbuf / 2;
}

/* A publication found no room: poll() and SIGIO wait for write space. */
static void hicn_prod_nospace(struct sock *sk)
{
	sk_set_bit(SOCKWQ_ASYNC_NOSPACE, sk);
	if (sk->sk_socket)
		set_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
}

/* Uncharge and release versions taken out of the store (lock_sock held). */
static void hicn_prod_free(struct hicn_sock *hs, struct list_head *dropped)
{
	struct hicn_obj *obj, *tmp;
	bool freed = false;

	/* The netns's charge goes with the last reference (hicn_obj_put()). */
	list_for_each_entry_safe(obj, tmp, dropped, node) {
		list_del_init(&obj->node);
		WRITE_ONCE(obj->dead, true);
		sk_wmem_queued_add(&hs->sk, -(int)obj->charge);
		atomic_long_sub(obj->charge, &hs->prod.user->mem);
		hicn_obj_put(obj);
		freed = true;
	}
	if (freed) {
		WRITE_ONCE(hs->info.hi_versions, hs->prod.nversions);
		hs->sk.sk_write_space(&hs->sk);
	}
}

/* Uncharge and free names taken out of the store (lock_sock held). */
static void hicn_prod_free_names(struct hicn_sock *hs, struct list_head *names)
{
	struct hicn_net *hn = hicn_pernet(sock_net(&hs->sk));
	struct hicn_pname *pn, *tmp;

	list_for_each_entry_safe(pn, tmp, names, all) {
		list_del(&pn->all);
		sk_wmem_queued_add(&hs->sk, -(int)HICN_PNAME_CHARGE);
		atomic_long_sub(HICN_PNAME_CHARGE, &hs->prod.user->mem);
		atomic_long_sub(HICN_PNAME_CHARGE, &hn->prod_mem);
		atomic_long_dec(&hn->prod_names);
		kfree(pn);
	}
}

/*
 * Drop the versions that expired, soonest first, and the names they were
 * the last version of, onto @dropped and @names; lower *@next to the next
 * expiry.  Visits what expires and one more (hicn_prod.lock held).
 */
static unsigned int hicn_prod_expire_versions(struct hicn_sock *hs,
					      struct list_head *dropped,
					      struct list_head *names,
					      unsigned long *next)
{
	struct hicn_prod *p = &hs->prod;
	unsigned int steps = 0;
	struct hicn_pname *pn;
	struct hicn_obj *obj;
	struct rb_node *n;

	lockdep_assert_held(&p->lock);
	while ((n = rb_first_cached(&p->expiry))) {
		steps++;
		obj = rb_entry(n, struct hicn_obj, exp_node);
		if (hicn_obj_live(obj)) {
			if (time_before(obj->expires, *next))
				*next = obj->expires;
			break;
		}
		pn = obj->pn;
		hicn_prod_unlink(hs, obj, dropped);
		/* Its last version went: so does the name. */
		if (list_empty(&pn->versions)) {
			steps++;
			hicn_pname_unlink(p, pn, names);
		}
	}
	return steps;
}

/* Drop held interests whose lifetime ended (hicn_prod.lock held). */
static void hicn_prod_expire_held(struct hicn_prod *p, unsigned long *next)
{
	struct hicn_held *h, *htmp;

	lockdep_assert_held(&p->lock);
	list_for_each_entry_safe(h, htmp, &p->held, node) {
		if (time_after(jiffies, h->expires)) {
			hicn_held_unlink(p, h);
			kfree(h);
		} else if (time_before(h->expires, *next)) {
			*next = h->expires;
		}
	}
}

/* Drop expired versions and held interests; re-arm (lock_sock held). */
static void hicn_prod_expire(struct hicn_sock *hs)
{
	unsigned long never = jiffies + 3600 * HZ, next = never;
	struct hicn_prod *p = &hs->prod;
	unsigned int steps;
	LIST_HEAD(names);
	LIST_HEAD(dropped);

	spin_lock_bh(&p->lock);
	p->armed = false;
	steps = hicn_prod_expire_versions(hs, &dropped, &names, &next);
	hicn_prod_expire_held(p, &next);
	if (next != never)
		hicn_prod_arm(p, next + 1);
	spin_unlock_bh(&p->lock);
	atomic64_add(steps, &hicn_prod_net(p)->stats.prod_expiry_steps);

	hicn_prod_free(hs, &dropped);
	hicn_prod_free_names(hs, &names);
}

static void hicn_prod_work(struct work_struct *work)
{
	struct hicn_prod *p = container_of(to_delayed_work(work),
					   struct hicn_prod, work);
	struct hicn_sock *hs = container_of(p, struct hicn_sock, prod);

	lock_sock(&hs->sk);
	hicn_prod_expire(hs);
	release_sock(&hs->sk);
}

static void hicn_prod_write_space(struct sock *sk)
{
	struct socket_wq *wq;

	rcu_read_lock();
	wq = rcu_dereference(sk->sk_wq);
	/* A blocked sendto() waits for the room of its own object. */
	if (skwq_has_sleeper(wq))
		wake_up_interruptible_sync_poll(&wq->wait, EPOLLOUT |
						EPOLLWRNORM | EPOLLWRBAND);
	rcu_read_unlock();
	if (hicn_prod_writeable(sk)) {
		if (sk->sk_socket)
			clear_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
		sk_wake_async(sk, SOCK_WAKE_SPACE, POLL_OUT);
	}
}

int hicn_prod_init(struct hicn_sock *hs)
{
	struct hicn_net *hn = hicn_pernet(sock_net(&hs->sk));
	struct hicn_prod *p = &hs->prod;
	int err;

	spin_lock_init(&p->lock);
	INIT_LIST_HEAD(&p->name_list);
	p->expiry = RB_ROOT_CACHED;
	INIT_LIST_HEAD(&p->held);
	p->seg_size = HICN_PACKET_SIZE_DEFAULT;
	p->expiry_ms = HICN_CONTENT_EXPIRY_DEFAULT;
	INIT_DELAYED_WORK(&p->work, hicn_prod_work);
	/* The documented POLLOUT threshold: SO_SNDBUF / 2 - 8 KiB. */
	BUILD_BUG_ON(PAGE_SIZE - 1 + sizeof(struct hicn_obj) > 8192);
	hs->sk.sk_sndbuf = HICN_PROD_SNDBUF;
	hs->sk.sk_write_space = hicn_prod_write_space;
	/* One socket alone cannot fill the netns's producer memory. */
	hs->sk.sk_sndbuf = clamp_t(long, READ_ONCE(hn->prod_mem_max) /
				   HICN_PROD_SNDBUF_SHARE, SOCK_MIN_SNDBUF,
				   hs->sk.sk_sndbuf);
	err = rhashtable_init(&p->names, &hicn_pname_params);
	if (err)
		return err;
	err = rhashtable_init(&p->held_keys, &hicn_held_params);
	if (err)
		rhashtable_destroy(&p->names);
	return err;
}

/*
 * The producer memory of @uid in the netns, with one more socket on it, or
 * NULL without memory.
 */
static struct hicn_prod_user *hicn_prod_user_get(struct hicn_net *hn,
						 kuid_t uid)
{
	struct hlist_head *head;
	struct hicn_prod_user *u;

	head = &hn->prod_users[hash_32(__kuid_val(uid), HICN_PROD_USER_BITS)];
	mutex_lock(&hn->lock);
	hlist_for_each_entry(u, head, node)
		if (uid_eq(u->uid, uid))
			goto found;
	u = kzalloc(sizeof(*u), GFP_KERNEL_ACCOUNT);
	if (!u)
		goto out;
	u->uid = uid;
	hlist_add_head(&u->node, head);
found:
	u->nsocks++;
out:
	mutex_unlock(&hn->lock);
	return u;
}

static void hicn_prod_user_put(struct hicn_net *hn, struct hicn_prod_user *u)
{
	mutex_lock(&hn->lock);
	if (!--u->nsocks) {
		WARN_ON_ONCE(atomic_long_read(&u->mem));
		hlist_del(&u->node);
		kfree(u);
	}
	mutex_unlock(&hn->lock);
}

/**
 * hicn_prod_claimed() - the producer's bind() claimed its namespace
 * @hs: the producer, lock_sock held
 * @floor: the highest version given out under the namespace by the
 *	producers that claimed it before (ver_floor.c)
 *
 * Every name's versions start above @floor, so a name and version never
 * mean two objects, whichever producer published them.  An interest that
 * reached the face between the claim's FIB next hop and this call, for a
 * version at or below @floor, is held rather than refused: nothing is
 * published before bind() returns, and it expires unanswered.
 */
void hicn_prod_claimed(struct hicn_sock *hs, u32 floor)
{
	struct hicn_prod *p = &hs->prod;

	sock_owned_by_me(&hs->sk);
	spin_lock_bh(&p->lock);
	p->ver_floor = max(p->ver_floor, floor);
	spin_unlock_bh(&p->lock);
}

/*
 * The socket is closing: stop the work, drop every version.  @ver_floor
 * ends as the highest version the socket gave out, which the claims of
 * its namespace after it start above (hicn_claim_release()).
 */
void hicn_prod_release(struct hicn_sock *hs)
{
	struct hicn_prod *p = &hs->prod;
	struct hicn_held *h, *htmp;
	struct hicn_obj *obj, *tmp;
	struct hicn_pname *pn;
	LIST_HEAD(names);
	LIST_HEAD(dropped);
	LIST_HEAD(held);

	spin_lock_bh(&p->lock);
	p->closing = true;
	spin_unlock_bh(&p->lock);
	cancel_delayed_work_sync(&p->work);

	lock_sock(&hs->sk);
	spin_lock_bh(&p->lock);
	/* No lookup uses the hash now (@closing): it goes whole below. */
	list_for_each_entry(pn, &p->name_list, all) {
		p->ver_floor = max(p->ver_floor, pn->last_ver);
		list_for_each_entry_safe(obj, tmp, &pn->versions, node)
			hicn_prod_unlink(hs, obj, &dropped);
	}
	list_splice_init(&p->name_list, &names);
	list_splice_init(&p->held, &held);
	hicn_prod_held_add(p, -(int)p->nheld);
	spin_unlock_bh(&p->lock);
	/*
	 * A resize of either hash may still be walking their entries: it is
	 * stopped here, and only then are the entries freed.
	 */
	rhashtable_destroy(&p->held_keys);
	rhashtable_destroy(&p->names);
	list_for_each_entry_safe(h, htmp, &held, node)
		kfree(h);
	hicn_prod_free(hs, &dropped);
	hicn_prod_free_names(hs, &names);
	if (p->user) {
		hicn_prod_user_put(hicn_pernet(sock_net(&hs->sk)), p->user);
		p->user = NULL;
	}
	release_sock(&hs->sk);
}

/* Wait for room for @charge bytes (lock_sock held, dropped while asleep). */
static int hicn_prod_wait_room(struct hicn_sock *hs, const struct in6_addr *name,
			       size_t charge, long *timeo)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct sock *sk = &hs->sk;
	int err = 0;

	add_wait_queue(sk_sleep(sk), &wait);
	for (;;) {
		size_t reclaim = 0;
		struct hicn_pname *pn;
		struct hicn_obj *obj;

		if (sk->sk_protocol == PROD_UNREL) {
			/* The new version replaces the ones held. */
			spin_lock_bh(&hs->prod.lock);
			pn = hicn_pname_find(&hs->prod, name);
			if (pn)
				list_for_each_entry(obj, &pn->versions, node)
					reclaim += obj->charge;
			spin_unlock_bh(&hs->prod.lock);
		}
		if ((size_t)sk->sk_wmem_queued - reclaim + charge <=
		    (size_t)READ_ONCE(sk->sk_sndbuf))
			break;
		if (sk->sk_shutdown & SEND_SHUTDOWN) {
			err = -EPIPE;
			break;
		}
		if (!*timeo) {
			hicn_prod_nospace(sk);
			err = -EAGAIN;
			break;
		}
		if (signal_pending(current)) {
			err = sock_intr_errno(*timeo);
			break;
		}
		sk_set_bit(SOCKWQ_ASYNC_NOSPACE, sk);
		sk_wait_event(sk, timeo,
			      (size_t)READ_ONCE(sk->sk_wmem_queued) - reclaim +
			      charge <= (size_t)READ_ONCE(sk->sk_sndbuf) ||
			      (READ_ONCE(sk->sk_shutdown) & SEND_SHUTDOWN),
			      &wait);
	}
	remove_wait_queue(sk_sleep(sk), &wait);
	return err;
}

/* Interests that @obj answers leave @p->held for @answers (lock held). */
static void hicn_prod_match_held(struct hicn_prod *p,
				 const struct hicn_obj *obj,
				 struct list_head *answers)
{
	struct hicn_held *h, *tmp;

	lockdep_assert_held(&p->lock);
	list_for_each_entry_safe(h, tmp, &p->held, node) {
		if (!ipv6_addr_equal(&h->key.name, &obj->name))
			continue;
		if (h->key.kind == HICN_I_LATEST ||
		    (h->key.kind == HICN_I_NEXT && h->key.ver < obj->ver) ||
		    (h->key.kind == HICN_I_EXACT && h->key.ver == obj->ver)) {
			hicn_held_unlink(p, h);
			list_add_tail(&h->node, answers);
		}
	}
}

/* File @obj as the next version of its name and answer waiting interests. */
static int hicn_prod_publish(struct hicn_sock *hs, struct hicn_obj *obj,
			     struct hicn_pname *spare)
{
	struct hicn_net *hn = hicn_pernet(sock_net(&hs->sk));
	struct hicn_prod *p = &hs->prod;
	struct hicn_held *h, *htmp;
	struct hicn_obj *old, *tmp;
	struct hicn_pname *pn;
	LIST_HEAD(dropped);
	LIST_HEAD(answers);
	struct hicn_data d;
	int err;

	spin_lock_bh(&p->lock);
	pn = hicn_pname_find(p, &obj->name);
	if (!pn) {
		if (p->ver_floor == U32_MAX) {
			spin_unlock_bh(&p->lock);
			kfree(spare);
			return -EOVERFLOW;
		}
		pn = spare;
		pn->name = obj->name;
		pn->last_ver = p->ver_floor;
		INIT_LIST_HEAD(&pn->versions);
		pn->by_ver = RB_ROOT;
		err = rhashtable_insert_fast(&p->names, &pn->node,
					     hicn_pname_params);
		if (err) {
			spin_unlock_bh(&p->lock);
			kfree(spare);
			return err == -EBUSY || err == -E2BIG ? -ENOBUFS :
			       -ENOMEM;
		}
		list_add_tail(&pn->all, &p->name_list);
	} else {
		kfree(spare);
		spare = NULL;
	}
	if (pn->last_ver == U32_MAX) {
		spin_unlock_bh(&p->lock);
		return -EOVERFLOW;
	}
	obj->ver = ++pn->last_ver;
	if (hs->sk.sk_protocol == PROD_UNREL)
		list_for_each_entry_safe(old, tmp, &pn->versions, node)
			hicn_prod_unlink(hs, old, &dropped);
	hicn_prod_link(p, pn, obj);
	if (obj->expires)
		hicn_prod_arm(p, obj->expires + 1);
	hicn_prod_match_held(p, obj, &answers);
	spin_unlock_bh(&p->lock);

	if (spare) {
		/* A new name: its state is charged like content. */
		sk_wmem_queued_add(&hs->sk, HICN_PNAME_CHARGE);
		atomic_long_add(HICN_PNAME_CHARGE, &p->user->mem);
		atomic_long_add(HICN_PNAME_CHARGE, &hn->prod_mem);
		atomic_long_inc(&hn->prod_names);
	}
	sk_wmem_queued_add(&hs->sk, obj->charge);
	hicn_prod_free(hs, &dropped);
	WRITE_ONCE(hs->info.hi_versions, p->nversions);

	list_for_each_entry_safe(h, htmp, &answers, node) {
		memset(&d, 0, sizeof(d));
		if (h->key.kind == HICN_I_EXACT && h->key.seg >= obj->nsegs) {
			d.key = h->key;
			d.flags = HICN_DATA_NACK;
		} else {
			hicn_obj_fill(obj, h->key.kind == HICN_I_EXACT ?
				      h->key.seg : 0, &d);
			d.obj = hicn_obj_get(obj);
		}
		d.ikey = h->key;
		hicn_prod_answer(hs, hs->face, &d);
		kfree(h);
	}
	return 0;
}

/* The name a publication goes to and its size, before lock_sock. */
static int hicn_prod_msg_check(struct sock *sk, const struct msghdr *msg,
			       size_t len, struct sockaddr_hicn *name)
{
	int err;

	/* MSG_BATCH: sendmmsg()'s, on each message but the last. */
	if (msg->msg_flags & ~(MSG_DONTWAIT | MSG_NOSIGNAL | MSG_EOR |
			       MSG_CMSG_COMPAT | MSG_BATCH))
		return -EOPNOTSUPP;
	if (!msg->msg_name || !msg->msg_namelen)
		return -EDESTADDRREQ;
	err = hicn_addr_check(sk, msg->msg_name, msg->msg_namelen, name);
	if (err)
		return err;
	if (name->sin_suffix)
		return -EINVAL;
	if (len > HICN_OBJECT_MAX)
		return -EMSGSIZE;
	return 0;
}

/*
 * May the socket publish @charge bytes under @name?  lock_sock held
 * (asserted with sock_owned_by_me()): the socket's shutdown, name and
 * send buffer stay as checked.
 */
static int hicn_prod_may_send(struct hicn_sock *hs,
			      const struct in6_addr *name, size_t charge)
{
	struct sock *sk = &hs->sk;

	sock_owned_by_me(sk);
	if (sk->sk_shutdown & SEND_SHUTDOWN)
		return -EPIPE;
	if (!hs->bound ||
	    !ipv6_prefix_equal(name, &hs->name.sin_addr, hs->name.sin_prefix))
		return -EADDRNOTAVAIL;
	if (charge > (size_t)READ_ONCE(sk->sk_sndbuf))
		return -EMSGSIZE;
	return 0;
}

/* Give back what hicn_prod_charge() charged. */
static void hicn_prod_uncharge(struct hicn_sock *hs, struct hicn_net *hn,
			       size_t charge)
{
	atomic_long_sub(charge, &hs->prod.user->mem);
	atomic_long_sub(charge, &hn->prod_mem);
}

/*
 * Charge @charge bytes to the netns and to the socket owner's producers,
 * neither beyond its limit.  lock_sock held (asserted with
 * sock_owned_by_me()): it sets hicn_prod.user.
 * Return: 0, -ENOBUFS, -ENOMEM.
 */
static int hicn_prod_charge(struct hicn_sock *hs, struct hicn_net *hn,
			    size_t charge)
{
	struct hicn_prod *p = &hs->prod;

	sock_owned_by_me(&hs->sk);
	if (!p->user) {
		p->user = hicn_prod_user_get(hn, sk_uid(&hs->sk));
		if (!p->user)
			return -ENOMEM;
	}
	/* Neither the netns nor the socket owner beyond their limits. */
	if (atomic_long_add_return(charge, &hn->prod_mem) >
	    READ_ONCE(hn->prod_mem_max)) {
		atomic_long_sub(charge, &hn->prod_mem);
		return -ENOBUFS;
	}
	if (atomic_long_add_return(charge, &p->user->mem) >
	    READ_ONCE(hn->prod_user_mem_max)) {
		hicn_prod_uncharge(hs, hn, charge);
		return -ENOBUFS;
	}
	return 0;
}

/*
 * Publish the @len bytes of @msg under @name, charged as @charge bytes
 * (the object's pages and header).  lock_sock held (asserted with
 * sock_owned_by_me()): hicn_prod_wait_room() releases it while it waits,
 * and sk_wmem_queued changes under it.
 */
static int hicn_prod_send(struct hicn_sock *hs, struct msghdr *msg,
			  const struct in6_addr *name, size_t len,
			  size_t charge)
{
	struct hicn_net *hn = hicn_pernet(sock_net(&hs->sk));
	struct hicn_pname *spare;
	struct hicn_obj *obj;
	long timeo;
	int err;

	sock_owned_by_me(&hs->sk);
	err = hicn_prod_may_send(hs, name, charge);
	if (err)
		return err;
	timeo = sock_sndtimeo(&hs->sk, msg->msg_flags & MSG_DONTWAIT);
	err = hicn_prod_wait_room(hs, name, charge, &timeo);
	if (err)
		return err;
	err = hicn_prod_charge(hs, hn, charge);
	if (err)
		return err;

	err = -ENOMEM;
	spare = kmalloc(sizeof(*spare), GFP_KERNEL_ACCOUNT);
	obj = hicn_obj_alloc(len, hs->prod.seg_size);
	if (!spare || !obj)
		goto out_uncharge;
	if (len && !copy_from_iter_full(obj->data, len, &msg->msg_iter)) {
		err = -EFAULT;
		goto out_uncharge;
	}
	obj->name = *name;
	/* 0 and any value from 2^31 on: kept until the socket closes. */
	if (hs->prod.expiry_ms && hs->prod.expiry_ms < BIT(31))
		obj->expires = (jiffies + msecs_to_jiffies(hs->prod.expiry_ms))
			       ?: 1;
	obj->charge = charge;
	err = hicn_prod_publish(hs, obj, spare);
	if (err) {
		spare = NULL;
		goto out_uncharge;
	}
	/* The store holds it until lock_sock is released at the earliest. */
	obj->mem = &hn->prod_mem;
	hicn_count(&hs->info.hi_objects, 1);
	hicn_count(&hs->info.hi_bytes, len);
	WRITE_ONCE(hs->info.hi_last_version, obj->ver);
	return 0;

out_uncharge:
	hicn_prod_uncharge(hs, hn, charge);
	kfree(spare);
	hicn_obj_put(obj);
	return err;
}

int hicn_prod_sendmsg(struct socket *sock, struct msghdr *msg, size_t len)
{
	struct sock *sk = sock->sk;
	struct sockaddr_hicn name;
	size_t charge;
	int err;

	err = hicn_prod_msg_check(sk, msg, len, &name);
	if (err)
		return err;
	charge = PAGE_ALIGN(len) + sizeof(struct hicn_obj);

	lock_sock(sk);
	err = hicn_prod_send(hicn_sk(sk), msg, &name.sin_addr, len, charge);
	release_sock(sk);
	if (err == -EPIPE && !(msg->msg_flags & MSG_NOSIGNAL))
		send_sig(SIGPIPE, current, 0);
	if (err)
		return err;
	return len;
}

__poll_t hicn_prod_poll(struct sock *sk)
{
	if (READ_ONCE(sk->sk_shutdown) & SEND_SHUTDOWN)
		return 0;
	if (!hicn_prod_writeable(sk)) {
		hicn_prod_nospace(sk);
		/* Versions dropped since are seen by this second look. */
		smp_mb__after_atomic();
		if (!hicn_prod_writeable(sk))
			return 0;
	}
	return EPOLLOUT | EPOLLWRNORM | EPOLLWRBAND;
}
