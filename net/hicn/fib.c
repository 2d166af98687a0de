// SPDX-License-Identifier: GPL-2.0
/*
 * The FIB of a network namespace: name prefixes and the face that serves
 * each.  A producer's bind() claims its namespace here; claims may not
 * overlap (one prefix containing the other), so a name has at most one
 * local producer.
 *
 * Entries are added and removed under hicn_net.fib_lock and read under RCU,
 * so the forwarding path can look names up from any context.
 */

#include <linux/rculist.h>
#include <linux/slab.h>
#include <net/ipv6.h>

#include "hicn.h"

/* Two prefixes overlap when the shorter one contains the longer one. */
static bool hicn_prefix_overlap(const struct in6_addr *a, unsigned int alen,
				const struct in6_addr *b, unsigned int blen)
{
	return ipv6_prefix_equal(a, b, min(alen, blen));
}

/**
 * hicn_fib_claim() - claim a namespace for a producer socket
 * @hn: the namespace's AF_HICN state
 * @prefix: the prefix, host bits already cleared
 * @plen: its length in bits, 1..HICN_PREFIX_MAX
 * @face: the producer's face, which the entry holds a reference on
 *
 * Return: the new entry, or ERR_PTR(-EADDRINUSE) when another claim of the
 * namespace overlaps, ERR_PTR(-ENOMEM).
 */
struct hicn_fib_entry *hicn_fib_claim(struct hicn_net *hn,
				      const struct in6_addr *prefix,
				      unsigned int plen,
				      struct hicn_face *face)
{
	struct hicn_fib_entry *e, *new;

	new = kzalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return ERR_PTR(-ENOMEM);
	new->prefix = *prefix;
	new->plen = plen;
	new->face = face;

	spin_lock_bh(&hn->fib_lock);
	list_for_each_entry(e, &hn->fib, node) {
		if (hicn_prefix_overlap(&e->prefix, e->plen, prefix, plen)) {
			spin_unlock_bh(&hn->fib_lock);
			kfree(new);
			return ERR_PTR(-EADDRINUSE);
		}
	}
	hicn_face_get(face);
	list_add_tail_rcu(&new->node, &hn->fib);
	hn->fib_entries++;
	spin_unlock_bh(&hn->fib_lock);
	return new;
}

/* Readers may still use e->face until the grace period ends. */
static void hicn_fib_free_rcu(struct rcu_head *head)
{
	struct hicn_fib_entry *e = container_of(head, struct hicn_fib_entry,
						rcu);

	hicn_face_put(e->face);
	kfree(e);
}

/**
 * hicn_fib_release() - end a claim made by hicn_fib_claim()
 * @hn: the namespace's AF_HICN state
 * @e: the entry; freed after an RCU grace period
 */
void hicn_fib_release(struct hicn_net *hn, struct hicn_fib_entry *e)
{
	spin_lock_bh(&hn->fib_lock);
	list_del_rcu(&e->node);
	hn->fib_entries--;
	spin_unlock_bh(&hn->fib_lock);
	call_rcu(&e->rcu, hicn_fib_free_rcu);
}

/**
 * hicn_fib_lookup() - the face serving @name
 * @hn: the namespace's AF_HICN state
 * @name: a content name
 *
 * Claims never overlap, so at most one entry matches and it is the
 * longest match.
 * Return: the face with a reference, or NULL when no entry matches.
 */
struct hicn_face *hicn_fib_lookup(struct hicn_net *hn,
				  const struct in6_addr *name)
{
	struct hicn_face *face = NULL;
	struct hicn_fib_entry *e;

	rcu_read_lock();
	list_for_each_entry_rcu(e, &hn->fib, node) {
		if (ipv6_prefix_equal(&e->prefix, name, e->plen)) {
			face = hicn_face_get(e->face);
			break;
		}
	}
	rcu_read_unlock();
	return face;
}
