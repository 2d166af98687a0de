// SPDX-License-Identifier: GPL-2.0
/*
 * Version floors of released namespaces.
 *
 * A name and version mean one object in a network namespace, for as long
 * as anyone may hold its segments: the content store, a relay, a consumer
 * still fetching, a subscriber that has seen the version.  A producer
 * socket numbers a name's versions above every version it gave out
 * (producer.c, @ver_floor), and so must the producers that claim the
 * namespace after it.  When a producer's claim ends (claim.c), the
 * highest version it gave out is recorded here with its prefix; a later
 * claim that overlaps that prefix (the same namespace, one inside it or
 * one around it) numbers the versions of every name above every record it
 * overlaps.
 *
 * Memory: a record is a few dozen bytes, charged to the memory cgroup of
 * the process that closed the producer, and a netns holds at most
 * HICN_FLOOR_MAX of them.  A released claim replaces the records of the
 * prefixes it contains (its versions started above theirs), so claiming
 * and releasing the same namespace keeps one record.  When the list is
 * full, or a record cannot be allocated, the oldest record (or the new
 * one) is folded into hicn_net.floor_all, which every later claim of the
 * netns starts above: versions then grow faster than they would, and
 * still never repeat.  hicn_stat fib_floors counts the records.  They go
 * with the netns.
 *
 * Locks: hicn_net.claim_lock (a mutex), with the claims they follow; a
 * lookup walks at most HICN_FLOOR_MAX records.
 */

#include <linux/slab.h>
#include <net/ipv6.h>

#include "hicn.h"

/**
 * struct hicn_floor - the versions a released namespace gave out
 * @node: in hicn_net.floors, oldest first, under hicn_net.claim_lock
 * @prefix: the namespace, host bits cleared
 * @plen: its length in bits
 * @top: the highest version given out under it
 */
struct hicn_floor {
	struct list_head	node;
	struct in6_addr		prefix;
	unsigned int		plen;
	u32			top;
};

/**
 * hicn_floor_of() - where versions start under a new claim
 * @hn: the namespace's AF_HICN state
 * @prefix: the claim, host bits cleared
 * @plen: its length in bits
 *
 * Context: hicn_net.claim_lock held.
 * Return: the highest version given out under a released namespace that
 * overlaps the claim, or folded into the netns's floor (0: none).
 */
u32 hicn_floor_of(struct hicn_net *hn, const struct in6_addr *prefix,
		  unsigned int plen)
{
	struct hicn_floor *f;
	u32 top = hn->floor_all;

	lockdep_assert_held(&hn->claim_lock);
	list_for_each_entry(f, &hn->floors, node)
		if (ipv6_prefix_equal(&f->prefix, prefix, min(f->plen, plen)))
			top = max(top, f->top);
	return top;
}

/* Drop @f, its version kept in the netns's floor (claim_lock held). */
static void hicn_floor_fold(struct hicn_net *hn, struct hicn_floor *f)
{
	lockdep_assert_held(&hn->claim_lock);
	hn->floor_all = max(hn->floor_all, f->top);
	list_del(&f->node);
	WRITE_ONCE(hn->nr_floors, hn->nr_floors - 1);
	kfree(f);
}

/**
 * hicn_floor_add() - record what a released claim gave out
 * @hn: the namespace's AF_HICN state
 * @prefix: the claim, host bits cleared
 * @plen: its length in bits
 * @top: the highest version it gave out, above every record that
 *	overlapped the claim when it was made
 *
 * Context: hicn_net.claim_lock held; may sleep.
 */
void hicn_floor_add(struct hicn_net *hn, const struct in6_addr *prefix,
		    unsigned int plen, u32 top)
{
	struct hicn_floor *f, *old, *tmp;

	lockdep_assert_held(&hn->claim_lock);
	f = kmalloc(sizeof(*f), GFP_KERNEL_ACCOUNT);
	if (!f) {
		hn->floor_all = max(hn->floor_all, top);
		return;
	}
	/* The claim started above the records of the prefixes inside it. */
	list_for_each_entry_safe(old, tmp, &hn->floors, node) {
		if (old->plen >= plen &&
		    ipv6_prefix_equal(&old->prefix, prefix, plen)) {
			top = max(top, old->top);
			list_del(&old->node);
			WRITE_ONCE(hn->nr_floors, hn->nr_floors - 1);
			kfree(old);
		}
	}
	f->prefix = *prefix;
	f->plen = plen;
	f->top = top;
	list_add_tail(&f->node, &hn->floors);
	WRITE_ONCE(hn->nr_floors, hn->nr_floors + 1);
	if (hn->nr_floors > HICN_FLOOR_MAX)
		hicn_floor_fold(hn, list_first_entry(&hn->floors,
						     struct hicn_floor, node));
}

/**
 * hicn_floor_flush() - free every record, at netns exit
 * @hn: the namespace's AF_HICN state
 */
void hicn_floor_flush(struct hicn_net *hn)
{
	struct hicn_floor *f, *tmp;

	mutex_lock(&hn->claim_lock);
	list_for_each_entry_safe(f, tmp, &hn->floors, node)
		hicn_floor_fold(hn, f);
	mutex_unlock(&hn->claim_lock);
}
