// SPDX-License-Identifier: GPL-2.0
/*
 * The FIB of a network namespace: name prefixes -> next hops.
 *
 * An entry is a prefix with up to HICN_FIB_NH_MAX next hops (a face and a
 * cost each) and a forwarding strategy.  Names are matched by longest
 * prefix: the table is one hash of (prefix, length) and a count of the
 * entries of each length, so a lookup probes only the lengths in use,
 * longest first (at most HICN_PREFIX_MAX + 1 probes, whatever the number
 * of routes).  As in NFD, the longest matching entry decides: when none of
 * its next hops can take the interest, the name has no route, even if a
 * shorter entry would have one.
 *
 * Producers' claims (claim.c) add a next hop of cost 0 to their
 * application face; routes (netlink) add next hops to any face.
 *
 * Strategies choose among the entry's next hops that are up and are not
 * the face the interest came from:
 *   best route     the lowest cost (the first added among equals); when
 *                  that face goes down the next one takes over
 *   load balance   the fewest interests outstanding (PIT out-records),
 *                  then the lowest cost
 *
 * Entries are copied on change and replaced under RCU, so the forwarding
 * path reads them locklessly from any context; an entry holds a reference
 * on each next hop's face and drops them after a grace period.
 *
 * Each next hop added or removed is a netlink event (route-added,
 * route-deleted: hicn_nl_route_event()), sent under fib_lock so that
 * listeners see the changes in their order; hicn_fib_flush() (the netns
 * going away, no listener left) sends none.
 *
 * Lock order: hicn_net.fib_lock (BH off) -> netlink's broadcast (no lock
 * of ours).
 */

#include <linux/jhash.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <net/ipv6.h>

#include "hicn.h"

static u32 hicn_fib_hash(const struct in6_addr *prefix, unsigned int plen)
{
	return jhash2((const u32 *)prefix->s6_addr32, 4, plen) >>
	       (32 - HICN_FIB_BITS);
}

static struct hicn_fib_entry *hicn_fib_find(struct hicn_net *hn,
					    const struct in6_addr *prefix,
					    unsigned int plen)
{
	struct hicn_fib_entry *e;

	hlist_for_each_entry_rcu(e, &hn->fib[hicn_fib_hash(prefix, plen)],
				 node, lockdep_is_held(&hn->fib_lock))
		if (e->plen == plen && ipv6_addr_equal(&e->prefix, prefix))
			return e;
	return NULL;
}

/**
 * hicn_fib_get_rcu() - the entry of exactly @prefix/@plen
 * @hn: the namespace's AF_HICN state
 * @prefix: the prefix, host bits cleared
 * @plen: its length
 *
 * Context: rcu_read_lock() held; the entry is valid until it is dropped.
 * Return: the entry, or NULL.
 */
struct hicn_fib_entry *hicn_fib_get_rcu(struct hicn_net *hn,
					const struct in6_addr *prefix,
					unsigned int plen)
{
	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "FIB lookup without RCU");
	return hicn_fib_find(hn, prefix, plen);
}

static void hicn_fib_free_rcu(struct rcu_head *head)
{
	struct hicn_fib_entry *e = container_of(head, struct hicn_fib_entry,
						rcu);
	unsigned int i;

	for (i = 0; i < e->nnh; i++)
		hicn_face_put(e->nh[i].face);
	kfree(e);
}

/* A copy of @old (or a new entry) that holds its own face references. */
static struct hicn_fib_entry *hicn_fib_copy(const struct hicn_fib_entry *old)
{
	struct hicn_fib_entry *e;
	unsigned int i;

	e = kzalloc(sizeof(*e), GFP_ATOMIC | __GFP_ACCOUNT);
	if (!e || !old)
		return e;
	e->prefix = old->prefix;
	e->plen = old->plen;
	e->strategy = old->strategy;
	e->nnh = old->nnh;
	for (i = 0; i < old->nnh; i++) {
		e->nh[i] = old->nh[i];
		hicn_face_get(e->nh[i].face);
	}
	return e;
}

/* Put @new in the place of @old (either may be NULL); fib_lock held. */
static void hicn_fib_replace(struct hicn_net *hn, struct hicn_fib_entry *old,
			     struct hicn_fib_entry *new)
{
	lockdep_assert_held(&hn->fib_lock);
	if (old && new) {
		hlist_replace_rcu(&old->node, &new->node);
	} else if (new) {
		hlist_add_head_rcu(&new->node,
				   &hn->fib[hicn_fib_hash(&new->prefix,
							  new->plen)]);
		WRITE_ONCE(hn->fib_plen_count[new->plen],
			   hn->fib_plen_count[new->plen] + 1);
		WRITE_ONCE(hn->fib_entries, hn->fib_entries + 1);
	} else if (old) {
		hlist_del_rcu(&old->node);
		WRITE_ONCE(hn->fib_plen_count[old->plen],
			   hn->fib_plen_count[old->plen] - 1);
		WRITE_ONCE(hn->fib_entries, hn->fib_entries - 1);
	}
	if (old)
		call_rcu(&old->rcu, hicn_fib_free_rcu);
}

static int hicn_fib_nh_index(const struct hicn_fib_entry *e,
			     const struct hicn_face *face)
{
	unsigned int i;

	for (i = 0; e && i < e->nnh; i++)
		if (e->nh[i].face == face)
			return i;
	return -1;
}

/**
 * hicn_fib_add() - add a next hop to a prefix
 * @hn: the namespace's AF_HICN state
 * @prefix: the prefix, host bits cleared
 * @plen: its length in bits, 0..HICN_PREFIX_MAX
 * @face: the next hop (the entry takes a reference)
 * @cost: its cost; best route prefers the lowest
 *
 * Return: 0; -EEXIST when @face is a next hop of the prefix already;
 * -ENOSPC when the prefix has HICN_FIB_NH_MAX next hops or the table
 * HICN_FIB_MAX entries; -ENOMEM.
 */
int hicn_fib_add(struct hicn_net *hn, const struct in6_addr *prefix,
		 unsigned int plen, struct hicn_face *face, u32 cost)
{
	struct hicn_fib_entry *old, *e;
	int err = 0;

	spin_lock_bh(&hn->fib_lock);
	old = hicn_fib_find(hn, prefix, plen);
	if (hicn_fib_nh_index(old, face) >= 0) {
		err = -EEXIST;
	} else if ((old && old->nnh >= HICN_FIB_NH_MAX) ||
		   (!old && hn->fib_entries >= HICN_FIB_MAX)) {
		err = -ENOSPC;
	} else {
		e = hicn_fib_copy(old);
		if (!e) {
			err = -ENOMEM;
		} else {
			e->prefix = *prefix;
			e->plen = plen;
			e->nh[e->nnh].face = hicn_face_get(face);
			e->nh[e->nnh].cost = cost;
			e->nnh++;
			hicn_fib_replace(hn, old, e);
			hicn_nl_route_event(e, e->nnh - 1, true);
		}
	}
	spin_unlock_bh(&hn->fib_lock);
	return err;
}

/* Remove next hop @i of @old (fib_lock held); the entry goes with the last. */
static int hicn_fib_del_nh(struct hicn_net *hn, struct hicn_fib_entry *old,
			   unsigned int i)
{
	struct hicn_fib_entry *e = NULL;

	if (old->nnh > 1) {
		e = hicn_fib_copy(old);
		if (!e)
			return -ENOMEM;
		hicn_face_put(e->nh[i].face);
		e->nnh--;
		memmove(&e->nh[i], &e->nh[i + 1],
			(e->nnh - i) * sizeof(e->nh[0]));
	}
	hicn_nl_route_event(old, i, false);
	hicn_fib_replace(hn, old, e);
	return 0;
}

/* Take @e out whole (fib_lock held), each next hop an event. */
static void hicn_fib_del_entry(struct hicn_net *hn, struct hicn_fib_entry *e)
{
	unsigned int i;

	for (i = 0; i < e->nnh; i++)
		hicn_nl_route_event(e, i, false);
	hicn_fib_replace(hn, e, NULL);
}

/**
 * hicn_fib_del() - remove a next hop from a prefix
 * @hn: the namespace's AF_HICN state
 * @prefix: the prefix, host bits cleared
 * @plen: its length in bits
 * @face: the next hop
 *
 * Interests already forwarded to @face stay in the PIT until they are
 * answered or expire.
 * Return: 0, -ENOENT when @face is not a next hop of the prefix, -ENOMEM.
 */
int hicn_fib_del(struct hicn_net *hn, const struct in6_addr *prefix,
		 unsigned int plen, struct hicn_face *face)
{
	struct hicn_fib_entry *old;
	int i, err = -ENOENT;

	spin_lock_bh(&hn->fib_lock);
	old = hicn_fib_find(hn, prefix, plen);
	i = hicn_fib_nh_index(old, face);
	if (i >= 0)
		err = hicn_fib_del_nh(hn, old, i);
	spin_unlock_bh(&hn->fib_lock);
	return err;
}

/**
 * hicn_fib_set_strategy() - choose how a prefix's next hops are used
 * @hn: the namespace's AF_HICN state
 * @prefix: the prefix, host bits cleared
 * @plen: its length in bits
 * @strategy: enum hicn_strategy
 *
 * Return: 0, -ENOENT when the prefix has no entry, -ENOMEM.
 */
int hicn_fib_set_strategy(struct hicn_net *hn, const struct in6_addr *prefix,
			  unsigned int plen, unsigned int strategy)
{
	struct hicn_fib_entry *old, *e;
	int err = -ENOENT;

	spin_lock_bh(&hn->fib_lock);
	old = hicn_fib_find(hn, prefix, plen);
	if (old) {
		e = hicn_fib_copy(old);
		err = e ? 0 : -ENOMEM;
		if (e) {
			e->strategy = strategy;
			hicn_fib_replace(hn, old, e);
		}
	}
	spin_unlock_bh(&hn->fib_lock);
	return err;
}

/* Is @a a better next hop than @b for @e's strategy? */
static bool hicn_fib_better(const struct hicn_fib_entry *e,
			    const struct hicn_fib_nh *a,
			    const struct hicn_fib_nh *b)
{
	int pa, pb;

	if (e->strategy == HICN_STRATEGY_LOAD_BALANCE) {
		pa = atomic_read(&a->face->out_pending);
		pb = atomic_read(&b->face->out_pending);
		if (pa != pb)
			return pa < pb;
	}
	return a->cost < b->cost;
}

static struct hicn_face *hicn_fib_choose(const struct hicn_fib_entry *e,
					 const struct hicn_face *in)
{
	const struct hicn_fib_nh *best = NULL;
	unsigned int i;

	for (i = 0; i < e->nnh; i++) {
		const struct hicn_fib_nh *nh = &e->nh[i];

		if (nh->face == in || !READ_ONCE(nh->face->up))
			continue;
		if (!best || hicn_fib_better(e, nh, best))
			best = nh;
	}
	return best ? hicn_face_get(best->face) : NULL;
}

/**
 * hicn_fib_lookup() - the face an interest for @name leaves by
 * @hn: the namespace's AF_HICN state
 * @name: a content name
 * @in: the face the interest came from; never chosen
 *
 * Return: the face the longest matching entry's strategy chose, with a
 * reference; NULL when no entry matches or none of its next hops can take
 * the interest.
 */
struct hicn_face *hicn_fib_lookup(struct hicn_net *hn,
				  const struct in6_addr *name,
				  const struct hicn_face *in)
{
	struct hicn_face *face = NULL;
	struct hicn_fib_entry *e;
	struct in6_addr prefix;
	int plen;

	rcu_read_lock();
	for (plen = HICN_PREFIX_MAX; plen >= 0; plen--) {
		if (!READ_ONCE(hn->fib_plen_count[plen]))
			continue;
		ipv6_addr_prefix(&prefix, name, plen);
		e = hicn_fib_find(hn, &prefix, plen);
		if (e) {
			face = hicn_fib_choose(e, in);
			break;
		}
	}
	rcu_read_unlock();
	return face;
}

/**
 * hicn_fib_del_face() - remove every next hop to @face
 * @hn: the namespace's AF_HICN state
 * @face: a face going away
 */
void hicn_fib_del_face(struct hicn_net *hn, struct hicn_face *face)
{
	struct hicn_fib_entry *e;
	struct hlist_node *tmp;
	unsigned int b;
	int i;

	spin_lock_bh(&hn->fib_lock);
	for (b = 0; b < ARRAY_SIZE(hn->fib); b++) {
		hlist_for_each_entry_safe(e, tmp, &hn->fib[b], node) {
			i = hicn_fib_nh_index(e, face);
			/* Without memory, take the whole entry out. */
			if (i >= 0 && hicn_fib_del_nh(hn, e, i))
				hicn_fib_del_entry(hn, e);
		}
	}
	spin_unlock_bh(&hn->fib_lock);
}

/* The namespace is going away: drop every entry. */
void hicn_fib_flush(struct hicn_net *hn)
{
	struct hicn_fib_entry *e;
	struct hlist_node *tmp;
	unsigned int b;

	spin_lock_bh(&hn->fib_lock);
	for (b = 0; b < ARRAY_SIZE(hn->fib); b++)
		hlist_for_each_entry_safe(e, tmp, &hn->fib[b], node)
			hicn_fib_replace(hn, e, NULL);
	spin_unlock_bh(&hn->fib_lock);
}

/**
 * hicn_fib_walk() - call @fn for each next hop, under RCU
 * @hn: the namespace's AF_HICN state
 * @fn: called with the entry and the index of the next hop
 * @arg: passed to @fn
 */
void hicn_fib_walk(struct hicn_net *hn,
		   void (*fn)(const struct hicn_fib_entry *e, unsigned int i,
			      void *arg),
		   void *arg)
{
	struct hicn_fib_entry *e;
	unsigned int b, i;

	rcu_read_lock();
	for (b = 0; b < ARRAY_SIZE(hn->fib); b++)
		hlist_for_each_entry_rcu(e, &hn->fib[b], node)
			for (i = 0; i < e->nnh; i++)
				fn(e, i, arg);
	rcu_read_unlock();
}
