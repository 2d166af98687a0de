// SPDX-License-Identifier: GPL-2.0
/*
 * The pending-interest table of a network namespace.
 *
 * An entry is keyed by what the interest asks for (struct hicn_key) and
 * holds one in-record per face waiting for it.  The first interest for a
 * key is forwarded; a second one from another face only adds an in-record
 * (aggregation: one request reaches the producer); the same face asking
 * again is a retransmission and is forwarded again, as NFD does.  Data
 * takes the whole entry out and goes to every in-record's face.
 *
 * Entries live as long as their longest in-record; hicn_pit_gc() drops
 * expired ones, a slice of the table per run (hicn_stat pit_gc_runs and
 * pit_gc_steps count them).  The table holds at most net.hicn.pit_max entries, and the
 * in-records of the faces of one user (the sockets' owner) are at most
 * net.hicn.pit_user_max, so that one user filling the table cannot make
 * every other consumer time out; an interest beyond either is dropped
 * and counted (pit_drops, and pit_user_drops for the second).
 *
 * Entries and in-records are charged to the memory cgroup of the task
 * that sent the interest (__GFP_ACCOUNT).
 *
 * Lock order: hicn_net.pit_lock (BH off) is a leaf; faces are called with
 * it released.
 */

#include <linux/error-injection.h>
#include <linux/hash.h>
#include <linux/jhash.h>
#include <linux/slab.h>

#include "hicn.h"

/* Entries one run of the collector examines at most (whole buckets). */
#define HICN_PIT_GC_BATCH	1024

/**
 * struct hicn_pit_user - the in-records of one user, freed with the last
 * @node: entry in hicn_net.pit_users
 * @uid: the user
 * @n: in-records charged to the user
 */
struct hicn_pit_user {
	struct hlist_node	node;
	kuid_t			uid;
	unsigned int		n;
};

/**
 * struct hicn_pit_in - a face waiting for a PIT entry's data
 * @node: entry in hicn_pit_entry.in
 * @face: the face (a reference)
 * @user: the user it is charged to
 * @expires: jiffies when this face stops waiting
 */
struct hicn_pit_in {
	struct list_head	node;
	struct hicn_face	*face;
	struct hicn_pit_user	*user;
	unsigned long		expires;
};

/**
 * struct hicn_pit_entry - an interest being served
 * @node: entry in a hicn_net.pit bucket
 * @key: what it asks for
 * @expires: the latest expiry of its in-records
 * @in: struct hicn_pit_in
 */
struct hicn_pit_entry {
	struct hlist_node	node;
	struct hicn_key		key;
	unsigned long		expires;
	struct list_head	in;
};

static u32 hicn_key_hash(const struct hicn_key *key, unsigned int bits)
{
	return jhash2((const u32 *)key, sizeof(*key) / sizeof(u32), 0) >>
	       (32 - bits);
}

static struct hicn_pit_entry *hicn_pit_find(struct hicn_net *hn,
					    const struct hicn_key *key)
{
	struct hicn_pit_entry *e;

	hlist_for_each_entry(e, &hn->pit[hicn_key_hash(key, HICN_PIT_BITS)],
			     node)
		if (hicn_key_equal(&e->key, key))
			return e;
	return NULL;
}

/*
 * Charge a new in-record of @face to its user (pit_lock held).  Return: 0,
 * -ENOBUFS when the user holds net.hicn.pit_user_max already, -ENOMEM.
 */
static int hicn_pit_user_charge(struct hicn_net *hn, struct hicn_face *face,
				struct hicn_pit_user **userp)
{
	struct hlist_head *head;
	struct hicn_pit_user *u;

	head = &hn->pit_users[hash_32(__kuid_val(face->uid),
				      HICN_PIT_USER_BITS)];
	hlist_for_each_entry(u, head, node)
		if (uid_eq(u->uid, face->uid))
			goto found;
	u = kzalloc(sizeof(*u), GFP_ATOMIC | __GFP_ACCOUNT);
	if (!u)
		return -ENOMEM;
	u->uid = face->uid;
	hlist_add_head(&u->node, head);
found:
	if (u->n >= READ_ONCE(hn->pit_user_max)) {
		hn->stats.pit_drops++;
		hn->stats.pit_user_drops++;
		return -ENOBUFS;
	}
	u->n++;
	*userp = u;
	return 0;
}

/* An in-record leaves the table (pit_lock held). */
static void hicn_pit_user_uncharge(struct hicn_pit_user *u)
{
	if (!--u->n) {
		hlist_del(&u->node);
		kfree(u);
	}
}

/* Unlink @e; its in-records move to @list (pit_lock held). */
static void hicn_pit_unlink(struct hicn_net *hn, struct hicn_pit_entry *e,
			    struct list_head *list)
{
	struct hicn_pit_in *in;

	hlist_del(&e->node);
	hn->pit_entries--;
	list_for_each_entry(in, &e->in, node)
		hicn_pit_user_uncharge(in->user);
	list_splice_init(&e->in, list);
}

static void hicn_pit_free_in(struct list_head *list)
{
	struct hicn_pit_in *in, *tmp;

	list_for_each_entry_safe(in, tmp, list, node) {
		hicn_face_put(in->face);
		kfree(in);
	}
}

/**
 * hicn_pit_insert() - record that @face waits for @key
 * @hn: the namespace's AF_HICN state
 * @key: what the interest asks for
 * @face: the face it came from
 * @lifetime: how long the face waits, in jiffies
 * @forward: set when the interest must go on to the FIB's face
 *
 * Return: 0, -ENOBUFS when the table is full or the face's user holds
 * net.hicn.pit_user_max in-records, -ENOMEM.  A kernel with
 * CONFIG_FAIL_FUNCTION can make it fail (race_test's ENOMEM test).
 */
int hicn_pit_insert(struct hicn_net *hn, const struct hicn_key *key,
		    struct hicn_face *face, unsigned long lifetime,
		    bool *forward)
{
	unsigned long expires = jiffies + lifetime;
	struct hicn_pit_entry *e, *new_e = NULL;
	struct hicn_pit_in *in, *new_in;
	struct hicn_pit_user *user;
	LIST_HEAD(stale);
	int err;

	new_in = kmalloc(sizeof(*new_in), GFP_ATOMIC | __GFP_ACCOUNT);
	if (!new_in)
		return -ENOMEM;

	spin_lock_bh(&hn->pit_lock);
	e = hicn_pit_find(hn, key);
	if (e && time_after(jiffies, e->expires)) {
		/* Nobody waits any more: start afresh. */
		hicn_pit_unlink(hn, e, &stale);
		kfree(e);
		hn->stats.pit_expired++;
		e = NULL;
	}
	if (e) {
		list_for_each_entry(in, &e->in, node) {
			if (in->face == face) {
				/* A retransmission: forward it again. */
				in->expires = expires;
				if (time_after(expires, e->expires))
					e->expires = expires;
				*forward = true;
				err = 0;
				goto out;
			}
		}
	}
	/* A new in-record: within its user's quota, then the table's. */
	err = hicn_pit_user_charge(hn, face, &user);
	if (err)
		goto out;
	if (!e) {
		if (hn->pit_entries >= READ_ONCE(hn->pit_max)) {
			hn->stats.pit_drops++;
			err = -ENOBUFS;
			goto out_uncharge;
		}
		new_e = kmalloc(sizeof(*new_e), GFP_ATOMIC | __GFP_ACCOUNT);
		if (!new_e) {
			err = -ENOMEM;
			goto out_uncharge;
		}
		e = new_e;
		e->key = *key;
		e->expires = expires;
		INIT_LIST_HEAD(&e->in);
		hlist_add_head(&e->node,
			       &hn->pit[hicn_key_hash(key, HICN_PIT_BITS)]);
		hn->pit_entries++;
		*forward = true;
	} else {
		*forward = false;
		hn->stats.pit_aggregated++;
		if (time_after(expires, e->expires))
			e->expires = expires;
	}
	new_in->face = hicn_face_get(face);
	new_in->user = user;
	new_in->expires = expires;
	list_add_tail(&new_in->node, &e->in);
	new_in = NULL;
	goto out;

out_uncharge:
	hicn_pit_user_uncharge(user);
out:
	spin_unlock_bh(&hn->pit_lock);
	kfree(new_in);
	hicn_pit_free_in(&stale);
	if (new_e)
		hicn_gc_kick(hn);
	return err;
}
ALLOW_ERROR_INJECTION(hicn_pit_insert, ERRNO);

/**
 * hicn_pit_satisfy() - hand @d to every face waiting for d->ikey
 * @hn: the namespace's AF_HICN state
 * @d: the data; the entry is removed
 */
void hicn_pit_satisfy(struct hicn_net *hn, const struct hicn_data *d)
{
	struct hicn_pit_entry *e;
	struct hicn_pit_in *in;
	LIST_HEAD(list);

	spin_lock_bh(&hn->pit_lock);
	e = hicn_pit_find(hn, &d->ikey);
	if (e)
		hicn_pit_unlink(hn, e, &list);
	spin_unlock_bh(&hn->pit_lock);

	if (!e) {
		atomic64_inc(&hn->stats.unsolicited);
		return;
	}
	kfree(e);
	list_for_each_entry(in, &list, node)
		in->face->ops->data(in->face, d);
	hicn_pit_free_in(&list);
}

/**
 * hicn_pit_cancel() - @face no longer waits for @key
 * @hn: the namespace's AF_HICN state
 * @key: the interest
 * @face: the face that sent it
 */
void hicn_pit_cancel(struct hicn_net *hn, const struct hicn_key *key,
		     struct hicn_face *face)
{
	struct hicn_pit_in *in, *found = NULL;
	struct hicn_pit_entry *e;

	spin_lock_bh(&hn->pit_lock);
	e = hicn_pit_find(hn, key);
	if (e) {
		list_for_each_entry(in, &e->in, node) {
			if (in->face == face) {
				found = in;
				list_del(&in->node);
				hicn_pit_user_uncharge(in->user);
				break;
			}
		}
		if (list_empty(&e->in)) {
			hlist_del(&e->node);
			hn->pit_entries--;
			/* The last face gave up because the lifetime ran out. */
			if (!time_before(jiffies, e->expires))
				hn->stats.pit_expired++;
		} else {
			e = NULL;
		}
	}
	spin_unlock_bh(&hn->pit_lock);

	kfree(e);
	if (found) {
		hicn_face_put(found->face);
		kfree(found);
	}
}

/*
 * Drop expired entries among the buckets that follow the last run's, whole
 * buckets until HICN_PIT_GC_BATCH entries were examined (or every bucket
 * once), so that a run holds the lock with bottom halves off for a bounded
 * time whatever the table holds; a full table (pit_max, 65536 by default)
 * is swept in pit_max / HICN_PIT_GC_BATCH runs.  Returns true while the
 * table is not empty.
 */
bool hicn_pit_gc(struct hicn_net *hn)
{
	unsigned int i, b, n = 0;
	struct hicn_pit_entry *e;
	struct hlist_node *tmp;
	LIST_HEAD(list);
	bool busy;

	spin_lock_bh(&hn->pit_lock);
	for (i = 0; i < ARRAY_SIZE(hn->pit) && n < HICN_PIT_GC_BATCH; i++) {
		if (!hn->pit_entries)
			break;
		b = hn->pit_gc_next;
		hn->pit_gc_next = (b + 1) % ARRAY_SIZE(hn->pit);
		hlist_for_each_entry_safe(e, tmp, &hn->pit[b], node) {
			n++;
			if (time_after(jiffies, e->expires)) {
				hicn_pit_unlink(hn, e, &list);
				hn->stats.pit_expired++;
				kfree(e);
			}
		}
	}
	hn->stats.pit_gc_runs++;
	hn->stats.pit_gc_steps += n;
	busy = hn->pit_entries;
	spin_unlock_bh(&hn->pit_lock);

	hicn_pit_free_in(&list);
	return busy;
}

/* The namespace is going away: drop everything. */
void hicn_pit_flush(struct hicn_net *hn)
{
	struct hicn_pit_entry *e;
	struct hlist_node *tmp;
	LIST_HEAD(list);
	int i;

	spin_lock_bh(&hn->pit_lock);
	for (i = 0; i < ARRAY_SIZE(hn->pit); i++) {
		hlist_for_each_entry_safe(e, tmp, &hn->pit[i], node) {
			hicn_pit_unlink(hn, e, &list);
			kfree(e);
		}
	}
	spin_unlock_bh(&hn->pit_lock);

	hicn_pit_free_in(&list);
}
