// SPDX-License-Identifier: GPL-2.0
/*
 * The content store of a network namespace: data segments that passed
 * through the forwarder, kept to answer later interests for the same
 * exact name (name, version, segment) without the producer.
 *
 * Only exact names are cached, and names that are not ours
 * (HICN_KEY_RAW: a stock application's segment, relayed), which only an
 * identical key matches.  Questions about versions ("the newest",
 * "the next one") always reach the producer, so a cache never answers
 * with a stale version.  An entry holds a reference on the segment's
 * object; it stops serving when the data expires or the producer has
 * dropped the object (hicn_obj.dead: expired or replaced), which keeps the
 * cache from resurrecting what a producer withdrew.
 *
 * Limits: net.hicn.cs_max_entries entries and net.hicn.cs_mem_max bytes
 * (payload plus entry); the least recently used entries go first.
 * cs_max_entries = 0 turns the store off and empties it.
 *
 * The collector (every 0.5 s while the store is not empty) examines at
 * most HICN_CS_GC_BATCH entries per run, from the least recently used
 * toward the most, and goes on where it stopped at the next run; a stale
 * entry is also dropped when a lookup meets it.  So no run holds cs_lock
 * for long however large the store is, and a sweep of the whole store
 * takes cs_entries / HICN_CS_GC_BATCH runs (hicn_stat cs_gc_runs and
 * cs_gc_steps count them).
 *
 * Lock order: hicn_net.cs_lock (BH off) is a leaf; every function below
 * that takes no lock itself expects it held.
 */

#include <linux/jhash.h>
#include <linux/slab.h>
#include <net/ipv6.h>

#include "hicn.h"
#include "wire.h"

/**
 * struct hicn_cs_entry - a cached segment
 * @node: entry in a hicn_net.cs bucket
 * @lru: entry in hicn_net.cs_lru
 * @d: the data, holding a reference on d.obj
 * @charge: bytes counted in hicn_net.cs_bytes
 */
struct hicn_cs_entry {
	struct hlist_node	node;
	struct list_head	lru;
	struct hicn_data	d;
	u32			charge;
};

/* Entries the collector examines per run at most. */
#define HICN_CS_GC_BATCH	1024

static struct kmem_cache *hicn_cs_cache __read_mostly;

/*
 * Entries hash by name, segment and wire version (wire.h), so that an
 * interest off the wire, which names only the wire version, finds the
 * bucket of the full-version entries it may match.
 */
static struct hlist_head *hicn_cs_bucket(struct hicn_net *hn,
					 const struct hicn_key *key)
{
	struct hicn_key k = *key;
	u32 h;

	k.kind = HICN_I_EXACT;
	k.ver = hicn_wire_ver(key->ver);
	h = jhash2((const u32 *)&k, sizeof(k) / sizeof(u32), 1);
	return &hn->cs[h >> (32 - HICN_CS_BITS)];
}

/*
 * Does entry @e answer @key?  An exact key (or one not ours) names one
 * version; a key off the wire (HICN_KEY_WIRE) any version with its wire
 * version, of which the caller keeps the newest.
 */
static bool hicn_cs_match(const struct hicn_cs_entry *e,
			  const struct hicn_key *key)
{
	if (!(key->kind & HICN_KEY_WIRE))
		return hicn_key_equal(&e->d.key, key);
	return e->d.key.kind == HICN_I_EXACT && e->d.key.seg == key->seg &&
	       hicn_wire_ver(e->d.key.ver) == key->ver &&
	       ipv6_addr_equal(&e->d.key.name, &key->name);
}

static bool hicn_cs_stale(const struct hicn_cs_entry *e)
{
	return READ_ONCE(e->d.obj->dead) ||
	       (e->d.expires && time_after(jiffies, e->d.expires));
}

/* @e leaves its place in the LRU: the collector's cursor steps over it. */
static void hicn_cs_cursor_skip(struct hicn_net *hn, struct hicn_cs_entry *e)
{
	lockdep_assert_held(&hn->cs_lock);
	if (hn->cs_gc_next == &e->lru)
		hn->cs_gc_next = e->lru.prev;
}

/* @e was used: to the head of the LRU (cs_lock held). */
static void hicn_cs_touch(struct hicn_net *hn, struct hicn_cs_entry *e)
{
	hicn_cs_cursor_skip(hn, e);
	list_move(&e->lru, &hn->cs_lru);
}

/* Unlink @e onto @list for freeing outside the lock (cs_lock held). */
static void hicn_cs_unlink(struct hicn_net *hn, struct hicn_cs_entry *e,
			   struct list_head *list)
{
	hicn_cs_cursor_skip(hn, e);
	hlist_del(&e->node);
	list_move(&e->lru, list);
	hn->cs_entries--;
	hn->cs_bytes -= e->charge;
}

static void hicn_cs_free(struct list_head *list)
{
	struct hicn_cs_entry *e, *tmp;

	list_for_each_entry_safe(e, tmp, list, lru) {
		hicn_obj_put(e->d.obj);
		kmem_cache_free(hicn_cs_cache, e);
	}
}

/**
 * hicn_cs_lookup() - find the segment @key names
 * @hn: the namespace's AF_HICN state
 * @key: an exact name, or one off the wire (HICN_KEY_WIRE: the newest
 *	valid version with that wire version)
 * @d: filled on a hit, with a reference on d->obj for the caller
 * @again: a second look for an interest already counted in cs_misses
 *
 * Return: true on a hit.
 */
bool hicn_cs_lookup(struct hicn_net *hn, const struct hicn_key *key,
		    struct hicn_data *d, bool again)
{
	struct hicn_cs_entry *e, *found = NULL;
	LIST_HEAD(list);

	spin_lock_bh(&hn->cs_lock);
	hlist_for_each_entry(e, hicn_cs_bucket(hn, key), node) {
		if (!hicn_cs_match(e, key) ||
		    (found && found->d.key.ver > e->d.key.ver))
			continue;
		found = e;
		if (!(key->kind & HICN_KEY_WIRE))
			break;
	}
	if (found && hicn_cs_stale(found)) {
		hicn_cs_unlink(hn, found, &list);
		found = NULL;
	}
	if (found) {
		hicn_cs_touch(hn, found);
		*d = found->d;
		hicn_obj_get(d->obj);
		hn->stats.cs_hits++;
	} else if (!again) {
		hn->stats.cs_misses++;
	}
	spin_unlock_bh(&hn->cs_lock);

	hicn_cs_free(&list);
	return found;
}

/**
 * hicn_cs_insert() - cache a data segment
 * @hn: the namespace's AF_HICN state
 * @d: exact-named data with a payload object; the store takes its own
 *	reference
 */
void hicn_cs_insert(struct hicn_net *hn, const struct hicn_data *d)
{
	u32 charge = d->len + sizeof(struct hicn_cs_entry);
	struct hicn_cs_entry *e, *new;
	struct hlist_head *bucket;
	LIST_HEAD(list);

	if (!READ_ONCE(hn->cs_max_entries) ||
	    charge > READ_ONCE(hn->cs_mem_max))
		return;

	new = kmem_cache_alloc(hicn_cs_cache, GFP_ATOMIC);
	if (!new)
		return;
	new->d = *d;
	new->d.ikey = d->key;
	new->d.flags = 0;
	new->charge = charge;
	hicn_obj_get(d->obj);

	bucket = hicn_cs_bucket(hn, &d->key);
	spin_lock_bh(&hn->cs_lock);
	hlist_for_each_entry(e, bucket, node) {
		if (hicn_key_equal(&e->d.key, &d->key)) {
			/* Already cached (two consumers raced): keep it. */
			hicn_cs_touch(hn, e);
			spin_unlock_bh(&hn->cs_lock);
			hicn_obj_put(new->d.obj);
			kmem_cache_free(hicn_cs_cache, new);
			return;
		}
	}
	while (hn->cs_entries &&
	       (hn->cs_entries >= READ_ONCE(hn->cs_max_entries) ||
		hn->cs_bytes + charge > READ_ONCE(hn->cs_mem_max))) {
		e = list_last_entry(&hn->cs_lru, struct hicn_cs_entry, lru);
		hicn_cs_unlink(hn, e, &list);
		hn->stats.cs_evictions++;
	}
	hlist_add_head(&new->node, bucket);
	list_add(&new->lru, &hn->cs_lru);
	hn->cs_entries++;
	hn->cs_bytes += charge;
	spin_unlock_bh(&hn->cs_lock);

	hicn_cs_free(&list);
	hicn_gc_kick(hn);
}

/* Evict the least recently used beyond the limits (cs_lock held). */
static void hicn_cs_trim(struct hicn_net *hn, struct list_head *list)
{
	struct hicn_cs_entry *e;

	lockdep_assert_held(&hn->cs_lock);
	while (hn->cs_entries &&
	       (hn->cs_entries > READ_ONCE(hn->cs_max_entries) ||
		hn->cs_bytes > READ_ONCE(hn->cs_mem_max))) {
		e = list_last_entry(&hn->cs_lru, struct hicn_cs_entry, lru);
		hicn_cs_unlink(hn, e, list);
		hn->stats.cs_evictions++;
	}
}

/*
 * Evict what the limits (which may have been lowered) no longer allow,
 * then drop the stale entries among the next HICN_CS_GC_BATCH of the
 * sweep.  Returns true while the store is not empty.
 */
bool hicn_cs_gc(struct hicn_net *hn)
{
	struct hicn_cs_entry *e;
	struct list_head *pos;
	unsigned int n = 0;
	LIST_HEAD(list);
	bool busy;

	spin_lock_bh(&hn->cs_lock);
	hicn_cs_trim(hn, &list);
	pos = hn->cs_gc_next;
	if (pos == &hn->cs_lru)
		pos = hn->cs_lru.prev;	/* a new sweep, oldest first */
	while (pos != &hn->cs_lru && n < HICN_CS_GC_BATCH) {
		e = list_entry(pos, struct hicn_cs_entry, lru);
		pos = pos->prev;
		n++;
		if (hicn_cs_stale(e))
			hicn_cs_unlink(hn, e, &list);
	}
	hn->cs_gc_next = pos;
	hn->stats.cs_gc_runs++;
	hn->stats.cs_gc_steps += n;
	busy = hn->cs_entries;
	spin_unlock_bh(&hn->cs_lock);

	hicn_cs_free(&list);
	return busy;
}

void hicn_cs_flush(struct hicn_net *hn)
{
	struct hicn_cs_entry *e, *tmp;
	LIST_HEAD(list);

	spin_lock_bh(&hn->cs_lock);
	list_for_each_entry_safe(e, tmp, &hn->cs_lru, lru)
		hicn_cs_unlink(hn, e, &list);
	spin_unlock_bh(&hn->cs_lock);

	hicn_cs_free(&list);
}

/**
 * hicn_cs_flush_prefix() - drop the entries whose names are in a prefix
 * @hn: the namespace's AF_HICN state
 * @prefix: the prefix
 * @plen: its length in bits, 0 (everything) to HICN_PREFIX_MAX
 *
 * Return: the number of entries dropped.
 */
unsigned int hicn_cs_flush_prefix(struct hicn_net *hn,
				  const struct in6_addr *prefix,
				  unsigned int plen)
{
	struct hicn_cs_entry *e, *tmp;
	unsigned int n = 0;
	LIST_HEAD(list);

	spin_lock_bh(&hn->cs_lock);
	list_for_each_entry_safe(e, tmp, &hn->cs_lru, lru) {
		if (!ipv6_prefix_equal(&e->d.key.name, prefix, plen))
			continue;
		hicn_cs_unlink(hn, e, &list);
		n++;
	}
	spin_unlock_bh(&hn->cs_lock);

	hicn_cs_free(&list);
	return n;
}

/**
 * hicn_cs_walk() - call @fn for the valid entries in a prefix, resumably
 * @hn: the namespace's AF_HICN state
 * @cursor: where to start, where the walk stopped: [0] a bucket of the
 *	hash, [1] the position in that bucket's chain; {0, 0} at first
 * @prefix: the names to walk
 * @plen: its length in bits, 0 (everything) to HICN_PREFIX_MAX
 * @fn: called under cs_lock (BH off): must not sleep nor take a lock
 *	that is not a leaf
 * @arg: for @fn
 *
 * The walk goes bucket by bucket; an entry @fn stops at is the first one
 * of the next call with the same @cursor.  Entries added or dropped
 * between two calls may be missed or met twice, as in any netlink dump
 * of a table that changes.  Stale entries are passed over.
 *
 * Return: 0 at the end of the store, or what @fn returned to stop.
 */
int hicn_cs_walk(struct hicn_net *hn, unsigned long cursor[2],
		 const struct in6_addr *prefix, unsigned int plen,
		 hicn_cs_walk_fn fn, void *arg)
{
	struct hicn_cs_entry *e;
	unsigned long pos;
	int ret = 0;

	spin_lock_bh(&hn->cs_lock);
	for (; cursor[0] < ARRAY_SIZE(hn->cs); cursor[0]++, cursor[1] = 0) {
		pos = 0;
		hlist_for_each_entry(e, &hn->cs[cursor[0]], node) {
			if (pos++ < cursor[1])
				continue;
			if (hicn_cs_stale(e) ||
			    !ipv6_prefix_equal(&e->d.key.name, prefix, plen))
				continue;
			ret = fn(&e->d, arg);
			if (ret < 0) {
				cursor[1] = pos - 1;
				goto out;
			}
		}
	}
	ret = 0;
out:
	spin_unlock_bh(&hn->cs_lock);
	return ret;
}

int hicn_cs_init(void)
{
	/* Charged to the cgroup of the task whose fetch brought the data. */
	hicn_cs_cache = KMEM_CACHE(hicn_cs_entry, SLAB_ACCOUNT);
	return hicn_cs_cache ? 0 : -ENOMEM;
}

void hicn_cs_exit(void)
{
	kmem_cache_destroy(hicn_cs_cache);
}
