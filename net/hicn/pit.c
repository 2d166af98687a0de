// SPDX-License-Identifier: GPL-2.0
/*
 * The pending-interest table of a network namespace.
 *
 * An entry is keyed by what the interest asks for (struct hicn_key) and
 * holds one in-record per face waiting for it and one out-record per face
 * the interest was forwarded to.  The first interest for a key is
 * forwarded; a second one from another face only adds an in-record
 * (aggregation: one request reaches the producer); the same face asking
 * again is a retransmission and is forwarded again, as NFD does.  Data is
 * accepted only from a face with an out-record (hicn_pit_solicited());
 * it takes the whole entry out and goes to every in-record's face.
 *
 * Entries live as long as their longest in-record; hicn_pit_gc() drops
 * expired ones, a slice of the table per run (hicn_stat pit_gc_runs and
 * pit_gc_steps count them).  The table holds at most net.hicn.pit_max
 * entries, and the in-records of one quota holder are at most
 * net.hicn.pit_user_max, so that one holder filling the table cannot make
 * every other consumer time out; an interest beyond either is dropped
 * and counted (pit_drops, and pit_user_drops for the second).  A quota
 * holder is a user (the owner of the sockets behind application faces)
 * or a face to another host on its own (hicn_face.quota_id): a flooding
 * peer spends its face's quota, never root's nor another peer's.
 *
 * Entries and in-records are charged to the memory cgroup of the task
 * that sent the interest (__GFP_ACCOUNT).
 *
 * Failover: when faces go down or away (hicn_pit_fail_faces()), an entry
 * whose interest went to them alone is taken out of the table, its
 * in-records and charges kept, and forwarded again at once through the
 * next hop the FIB's strategy gives now (the face that was chosen is down,
 * so best route gives the next lowest cost, load balance the least
 * loaded), with a fresh out-record: its waiting faces, local consumers
 * and other hosts alike, are served without waiting for a retransmission
 * (hicn_stat failover_reforwards).  An entry with no next hop left, or
 * whose new face refuses the interest, fails as before: it goes and its
 * faces are told (struct hicn_face_ops.fail).
 *
 * Lock order: hicn_net.pit_lock (BH off) is a leaf; faces are called with
 * it released (the failover calls them under hicn_net.lock, in process
 * context).
 */

#include <linux/error-injection.h>
#include <linux/hash.h>
#include <linux/jhash.h>
#include <linux/slab.h>

#include "hicn.h"

/* Entries one run of the collector examines at most (whole buckets). */
#define HICN_PIT_GC_BATCH	1024
/* Buckets hicn_pit_fail_faces() walks per hold of the lock. */
#define HICN_PIT_FAIL_BATCH	64

/**
 * struct hicn_pit_user - the in-records of one quota holder, freed with
 *	the last
 * @node: entry in hicn_net.pit_users
 * @uid: the user (application faces)
 * @face: the face to another host, 0 for a user's application faces
 * @n: in-records charged to the holder
 */
struct hicn_pit_user {
	struct hlist_node	node;
	kuid_t			uid;
	u32			face;
	unsigned int		n;
};

/**
 * struct hicn_pit_in - an in-record (a face waiting for a PIT entry's
 *	data) or an out-record (a face the interest went to)
 * @node: entry in hicn_pit_entry.in or .out
 * @face: the face (a reference); an out-record counts in its out_pending
 * @user: the user an in-record is charged to; NULL in an out-record
 * @expires: in-record: jiffies when this face stops waiting; out-record:
 *	jiffies the interest was last sent
 */
struct hicn_pit_in {
	struct list_head	node;
	struct hicn_face	*face;
	struct hicn_pit_user	*user;
	unsigned long		expires;
};

/**
 * struct hicn_pit_entry - an interest being served
 * @node: entry in a hicn_net.pit bucket (or in hicn_pit_fail_faces()'s
 *	list while it is out of the table)
 * @key: what it asks for
 * @expires: the latest expiry of its in-records
 * @in: in-records (struct hicn_pit_in)
 * @out: out-records (struct hicn_pit_in)
 * @hops: the hop limit the interest last left with (a failover sends it
 *	again with it)
 */
struct hicn_pit_entry {
	struct hlist_node	node;
	struct hicn_key		key;
	unsigned long		expires;
	struct list_head	in;
	struct list_head	out;
	u8			hops;
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

	lockdep_assert_held(&hn->pit_lock);
	hlist_for_each_entry(e, &hn->pit[hicn_key_hash(key, HICN_PIT_BITS)],
			     node)
		if (hicn_key_equal(&e->key, key))
			return e;
	return NULL;
}

/*
 * Charge a new in-record of @face to its quota holder (pit_lock held).
 * Return: 0, -ENOBUFS when the holder has net.hicn.pit_user_max already,
 * -ENOMEM.
 */
static int hicn_pit_user_charge(struct hicn_net *hn, struct hicn_face *face,
				struct hicn_pit_user **userp)
{
	struct hlist_head *head;
	struct hicn_pit_user *u;
	u32 h;

	lockdep_assert_held(&hn->pit_lock);
	h = hash_32(__kuid_val(face->uid) ^ face->quota_id, HICN_PIT_USER_BITS);
	head = &hn->pit_users[h];
	hlist_for_each_entry(u, head, node)
		if (uid_eq(u->uid, face->uid) && u->face == face->quota_id)
			goto found;
	u = kzalloc(sizeof(*u), GFP_ATOMIC | __GFP_ACCOUNT);
	if (!u)
		return -ENOMEM;
	u->uid = face->uid;
	u->face = face->quota_id;
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

/* Unlink @e; its in-records move to @list, then its out-records. */
static void hicn_pit_unlink(struct hicn_net *hn, struct hicn_pit_entry *e,
			    struct list_head *list)
{
	struct hicn_pit_in *in;

	lockdep_assert_held(&hn->pit_lock);
	hlist_del(&e->node);
	hn->pit_entries--;
	list_for_each_entry(in, &e->in, node)
		hicn_pit_user_uncharge(in->user);
	list_splice_tail_init(&e->in, list);
	list_splice_tail_init(&e->out, list);
}

/* Free records unlinked from their entry, with the lock released. */
static void hicn_pit_free_in(struct list_head *list)
{
	struct hicn_pit_in *in, *tmp;

	list_for_each_entry_safe(in, tmp, list, node) {
		if (!in->user)
			atomic_dec(&in->face->out_pending);
		hicn_face_put(in->face);
		kfree(in);
	}
}

/*
 * The interest of @e goes to @out: record it in @spare unless @out has an
 * out-record already (refreshed then).  Returns true when @spare was used.
 */
static bool hicn_pit_add_out(struct hicn_pit_entry *e, struct hicn_face *out,
			     struct hicn_pit_in *spare)
{
	struct hicn_pit_in *rec;

	list_for_each_entry(rec, &e->out, node) {
		if (rec->face == out) {
			rec->expires = jiffies;
			return false;
		}
	}
	spare->face = hicn_face_get(out);
	spare->user = NULL;
	spare->expires = jiffies;
	atomic_inc(&out->out_pending);
	list_add_tail(&spare->node, &e->out);
	return true;
}

/* @e waits until @expires at least (pit_lock held). */
static void hicn_pit_extend(struct hicn_net *hn, struct hicn_pit_entry *e,
			    unsigned long expires)
{
	lockdep_assert_held(&hn->pit_lock);
	if (time_after(expires, e->expires))
		e->expires = expires;
}

/*
 * The entry waiting for @key, or NULL.  One nobody waits for any more is
 * unlinked, its records moved to @stale, so that the interest starts
 * afresh.  The caller holds pit_lock.
 */
static struct hicn_pit_entry *hicn_pit_find_live(struct hicn_net *hn,
						 const struct hicn_key *key,
						 struct list_head *stale)
{
	struct hicn_pit_entry *e;

	lockdep_assert_held(&hn->pit_lock);
	e = hicn_pit_find(hn, key);
	if (e && time_after(jiffies, e->expires)) {
		hicn_pit_unlink(hn, e, stale);
		kfree(e);
		hn->stats.pit_expired++;
		e = NULL;
	}
	return e;
}

/*
 * @face sends the interest of @e again: its in-record waits until
 * @expires and the interest goes to @out again with @hops, recorded in
 * *@spare_out (set to NULL when used).  Returns false when @face has no
 * in-record in @e (not a retransmission).  The caller holds pit_lock.
 */
static bool hicn_pit_retransmit(struct hicn_net *hn, struct hicn_pit_entry *e,
				struct hicn_face *face, unsigned long expires,
				struct hicn_face *out, u8 hops,
				struct hicn_pit_in **spare_out)
{
	struct hicn_pit_in *in;

	lockdep_assert_held(&hn->pit_lock);
	list_for_each_entry(in, &e->in, node) {
		if (in->face != face)
			continue;
		in->expires = expires;
		hicn_pit_extend(hn, e, expires);
		if (hicn_pit_add_out(e, out, *spare_out))
			*spare_out = NULL;
		e->hops = hops;
		return true;
	}
	return false;
}

/*
 * A new entry for @key, expiring at @expires, linked into the table.  The
 * caller holds pit_lock.
 * Return: the entry, ERR_PTR(-ENOBUFS) when the table holds
 * net.hicn.pit_max entries, ERR_PTR(-ENOMEM).
 */
static struct hicn_pit_entry *hicn_pit_entry_add(struct hicn_net *hn,
						 const struct hicn_key *key,
						 unsigned long expires)
{
	struct hicn_pit_entry *e;

	lockdep_assert_held(&hn->pit_lock);
	if (hn->pit_entries >= READ_ONCE(hn->pit_max)) {
		hn->stats.pit_drops++;
		return ERR_PTR(-ENOBUFS);
	}
	e = kmalloc(sizeof(*e), GFP_ATOMIC | __GFP_ACCOUNT);
	if (!e)
		return ERR_PTR(-ENOMEM);
	e->key = *key;
	e->expires = expires;
	INIT_LIST_HEAD(&e->in);
	INIT_LIST_HEAD(&e->out);
	hlist_add_head(&e->node, &hn->pit[hicn_key_hash(key, HICN_PIT_BITS)]);
	hn->pit_entries++;
	return e;
}

/*
 * Record @rec as the in-record of @face in @e, charged to @user, waiting
 * until @expires.  The caller holds pit_lock.
 */
static void hicn_pit_add_in(struct hicn_net *hn, struct hicn_pit_entry *e,
			    struct hicn_pit_in *rec, struct hicn_face *face,
			    struct hicn_pit_user *user, unsigned long expires)
{
	lockdep_assert_held(&hn->pit_lock);
	rec->face = hicn_face_get(face);
	rec->user = user;
	rec->expires = expires;
	list_add_tail(&rec->node, &e->in);
}

/**
 * hicn_pit_insert() - record that @face waits for @key
 * @hn: the namespace's AF_HICN state
 * @key: what the interest asks for
 * @face: the face it came from
 * @lifetime: how long the face waits, in jiffies
 * @out: the face the FIB chose; recorded as an out-record when the
 *	interest is forwarded
 * @hops: the hop limit it is forwarded with
 * @forward: set when the interest must go on to @out
 *
 * Return: 0, -ENOBUFS when the table is full or the face's user holds
 * net.hicn.pit_user_max in-records, -ENOMEM.  A kernel with
 * CONFIG_FAIL_FUNCTION can make it fail (race_test's ENOMEM test).
 */
int hicn_pit_insert(struct hicn_net *hn, const struct hicn_key *key,
		    struct hicn_face *face, unsigned long lifetime,
		    struct hicn_face *out, u8 hops, bool *forward)
{
	unsigned long expires = jiffies + lifetime;
	struct hicn_pit_entry *e, *new_e = NULL;
	struct hicn_pit_in *new_in, *new_out;
	struct hicn_pit_user *user;
	LIST_HEAD(stale);
	int err;

	new_in = kmalloc(sizeof(*new_in), GFP_ATOMIC | __GFP_ACCOUNT);
	new_out = kmalloc(sizeof(*new_out), GFP_ATOMIC | __GFP_ACCOUNT);
	if (!new_in || !new_out) {
		kfree(new_in);
		kfree(new_out);
		return -ENOMEM;
	}

	spin_lock_bh(&hn->pit_lock);
	e = hicn_pit_find_live(hn, key, &stale);
	if (e && hicn_pit_retransmit(hn, e, face, expires, out, hops,
				     &new_out)) {
		/* A retransmission: forward it again. */
		*forward = true;
		err = 0;
		goto out;
	}
	/* A new in-record: within its user's quota, then the table's. */
	err = hicn_pit_user_charge(hn, face, &user);
	if (err)
		goto out;
	if (!e) {
		new_e = hicn_pit_entry_add(hn, key, expires);
		if (IS_ERR(new_e)) {
			err = PTR_ERR(new_e);
			new_e = NULL;
			hicn_pit_user_uncharge(user);
			goto out;
		}
		e = new_e;
		*forward = true;
		e->hops = hops;
		hicn_pit_add_out(e, out, new_out);
		new_out = NULL;
	} else {
		*forward = false;
		hn->stats.pit_aggregated++;
		hicn_pit_extend(hn, e, expires);
	}
	hicn_pit_add_in(hn, e, new_in, face, user, expires);
	new_in = NULL;
out:
	spin_unlock_bh(&hn->pit_lock);
	kfree(new_in);
	kfree(new_out);
	hicn_pit_free_in(&stale);
	if (new_e)
		hicn_gc_kick(hn);
	return err;
}
ALLOW_ERROR_INJECTION(hicn_pit_insert, ERRNO);

/* Did the interest of @e go to @from?  (pit_lock held) */
static bool hicn_pit_sent_to(struct hicn_pit_entry *e,
			     const struct hicn_face *from)
{
	struct hicn_pit_in *rec;

	list_for_each_entry(rec, &e->out, node)
		if (rec->face == from)
			return true;
	return false;
}

/**
 * hicn_pit_solicited() - may data for @key from @from be accepted?
 * @hn: the namespace's AF_HICN state
 * @key: the interest the data answers
 * @from: the face it came from, NULL for the content store
 *
 * Return: true when an entry waits for @key and its interest went to
 * @from (any entry, for the content store).
 */
bool hicn_pit_solicited(struct hicn_net *hn, const struct hicn_key *key,
			const struct hicn_face *from)
{
	struct hicn_pit_entry *e;
	bool ok;

	spin_lock_bh(&hn->pit_lock);
	e = hicn_pit_find(hn, key);
	ok = e && (!from || hicn_pit_sent_to(e, from));
	spin_unlock_bh(&hn->pit_lock);
	return ok;
}

/**
 * hicn_pit_satisfy() - hand @d to every face waiting for d->ikey
 * @hn: the namespace's AF_HICN state
 * @d: the data; the entry is removed
 * @from: the face @d came from, NULL for the content store; data from a
 *	face the interest did not go to leaves the entry alone
 */
void hicn_pit_satisfy(struct hicn_net *hn, const struct hicn_data *d,
		      const struct hicn_face *from)
{
	struct hicn_pit_entry *e;
	struct hicn_pit_in *in;
	LIST_HEAD(list);

	spin_lock_bh(&hn->pit_lock);
	e = hicn_pit_find(hn, &d->ikey);
	if (e && from && !hicn_pit_sent_to(e, from))
		e = NULL;
	if (e)
		hicn_pit_unlink(hn, e, &list);
	spin_unlock_bh(&hn->pit_lock);

	if (!e)
		return;
	kfree(e);
	list_for_each_entry(in, &list, node)
		if (in->user) {
			atomic64_inc(&in->face->stats.data_out);
			in->face->ops->data(in->face, d);
		}
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
	LIST_HEAD(outs);

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
			hicn_pit_unlink(hn, e, &outs);
			/* The last face gave up because the lifetime ran out. */
			if (!time_before(jiffies, e->expires))
				hn->stats.pit_expired++;
		} else {
			e = NULL;
		}
	}
	spin_unlock_bh(&hn->pit_lock);

	kfree(e);
	hicn_pit_free_in(&outs);
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

/*
 * The faces marked failing are gone or down (pit_lock held): their
 * in-records in @e go to @list.  When faces still wait for @e and its
 * interest went to failing faces alone, @e is taken out of the table for
 * hicn_pit_failover() with its records and charges (it still counts in
 * pit_entries), and true is returned.  Otherwise the failing faces'
 * out-records go to @list too; an entry nobody waits for any more goes,
 * its records to @list.
 */
static bool hicn_pit_fail_entry(struct hicn_net *hn, struct hicn_pit_entry *e,
				struct list_head *list)
{
	struct hicn_pit_in *rec, *tmp;
	bool all = !list_empty(&e->out);

	lockdep_assert_held(&hn->pit_lock);
	list_for_each_entry_safe(rec, tmp, &e->in, node) {
		if (!READ_ONCE(rec->face->failing))
			continue;
		list_del(&rec->node);
		hicn_pit_user_uncharge(rec->user);
		list_add_tail(&rec->node, list);
	}
	if (list_empty(&e->in)) {
		hicn_pit_unlink(hn, e, list);
		kfree(e);
		return false;
	}
	list_for_each_entry(rec, &e->out, node)
		all &= READ_ONCE(rec->face->failing);
	if (all) {
		hlist_del(&e->node);
		return true;
	}
	list_for_each_entry_safe(rec, tmp, &e->out, node)
		if (READ_ONCE(rec->face->failing))
			list_move_tail(&rec->node, list);
	return false;
}

/* @e, out of the table, fails: it stops counting (pit_lock held). */
static void hicn_pit_drop_failed(struct hicn_net *hn, struct hicn_pit_entry *e)
{
	struct hicn_pit_in *rec;

	lockdep_assert_held(&hn->pit_lock);
	hn->pit_entries--;
	list_for_each_entry(rec, &e->in, node)
		hicn_pit_user_uncharge(rec->user);
}

/* Tell the faces of a failed entry, then free it (no lock held). */
static void hicn_pit_fail_tell(struct hicn_pit_entry *e)
{
	struct hicn_pit_in *in;

	list_for_each_entry(in, &e->in, node)
		if (in->face->ops->fail)
			in->face->ops->fail(in->face, &e->key);
	hicn_pit_free_in(&e->in);
	hicn_pit_free_in(&e->out);
	kfree(e);
}

/*
 * The face @e (out of the table) goes to now, with a reference: the
 * FIB's choice for its name, passing over its first in-record's face;
 * NULL when there is none, when it is another face waiting for @e, when
 * it leads to another host and @e has no hop left, or when @e expired.
 */
static struct hicn_face *hicn_pit_next_hop(struct hicn_net *hn,
					   struct hicn_pit_entry *e)
{
	struct hicn_pit_in *in;
	struct hicn_face *out;

	if (!time_before(jiffies, e->expires))
		return NULL;
	in = list_first_entry(&e->in, struct hicn_pit_in, node);
	out = hicn_fib_lookup(hn, &e->key.name, in->face);
	if (!out)
		return NULL;
	if (!e->hops && out->ops->kind == HICN_FACE_KIND_UDP)
		goto none;
	list_for_each_entry(in, &e->in, node)
		if (in->face == out)
			goto none;
	return out;
none:
	hicn_face_put(out);
	return NULL;
}

/*
 * @out refused the interest a failover sent it: its out-record goes, and
 * the entry fails unless the interest went to another face meanwhile (a
 * retransmission).
 */
static void hicn_pit_refused(struct hicn_net *hn, const struct hicn_key *key,
			     struct hicn_face *out)
{
	struct hicn_pit_in *rec, *found = NULL;
	struct hicn_pit_entry *e;
	LIST_HEAD(list);

	spin_lock_bh(&hn->pit_lock);
	e = hicn_pit_find(hn, key);
	if (e) {
		list_for_each_entry(rec, &e->out, node) {
			if (rec->face == out) {
				found = rec;
				list_move(&rec->node, &list);
				break;
			}
		}
		if (found && list_empty(&e->out)) {
			hlist_del(&e->node);
			hicn_pit_drop_failed(hn, e);
		} else {
			e = NULL;
		}
	}
	spin_unlock_bh(&hn->pit_lock);

	hicn_pit_free_in(&list);
	if (e)
		hicn_pit_fail_tell(e);
}

/*
 * Forward @e again, taken out of the table by hicn_pit_fail_entry(): back
 * into the table with its in-records and a fresh out-record to the face
 * the FIB gives now, and the interest sent to it for what is left of its
 * lifetime.  @e fails instead when there is no such face, or when an
 * entry for its key was made meanwhile (a retransmission went out).
 * Process context, hicn_net.lock held (the face's ops are called under
 * it); the face torn down is down, so the FIB never gives it.
 */
static void hicn_pit_failover(struct hicn_net *hn, struct hicn_pit_entry *e)
{
	struct hicn_pit_in *rec;
	unsigned long life = 0;
	struct hicn_face *out;
	struct hicn_key key;
	LIST_HEAD(old);
	u8 hops = 0;

	list_splice_init(&e->out, &old);
	out = hicn_pit_next_hop(hn, e);
	if (out) {
		/* An old out-record becomes the new one: no allocation. */
		rec = list_first_entry(&old, struct hicn_pit_in, node);
		list_del(&rec->node);
		atomic_dec(&rec->face->out_pending);
		hicn_face_put(rec->face);
		rec->face = hicn_face_get(out);
		rec->expires = jiffies;
		atomic_inc(&out->out_pending);
		list_add(&rec->node, &e->out);
	}
	hicn_pit_free_in(&old);

	spin_lock_bh(&hn->pit_lock);
	if (out && time_before(jiffies, e->expires) &&
	    !hicn_pit_find(hn, &e->key)) {
		hlist_add_head(&e->node,
			       &hn->pit[hicn_key_hash(&e->key, HICN_PIT_BITS)]);
		key = e->key;
		hops = e->hops;
		life = e->expires - jiffies;
		e = NULL;
	} else {
		hicn_pit_drop_failed(hn, e);
	}
	spin_unlock_bh(&hn->pit_lock);

	if (e) {
		hicn_pit_fail_tell(e);
	} else {
		atomic64_inc(&out->stats.interests_out);
		/* The signature a first sending carried is not kept. */
		if (out->ops->interest(out, &key, life, hops, NULL)) {
			atomic64_inc(&out->stats.refused);
			hicn_pit_refused(hn, &key, out);
		} else {
			atomic64_inc(&hn->stats.failover_reforwards);
		}
	}
	if (out)
		hicn_face_put(out);
}

/**
 * hicn_pit_fail_faces() - faces went down or away: what waits on them
 *	goes elsewhere, or fails
 * @hn: the namespace's AF_HICN state
 *
 * The faces are those marked hicn_face.failing (down already, so that
 * nothing new goes to them), all at once in one walk of the table.  An
 * entry whose interest went to them and to no other face is forwarded
 * again at once through the up next hop the strategy chooses now,
 * keeping its in-records (hicn_pit_failover()); when there is none, it
 * is taken out and every face waiting for it is told (struct
 * hicn_face_ops.fail): a consumer then fails with ENETUNREACH instead of
 * waiting for its timeout.  Entries that went to other faces too keep
 * waiting for those.  The failing faces' own in-records go.  Process
 * context, hicn_net.lock held (it protects the marks); the table is
 * walked HICN_PIT_FAIL_BATCH buckets per hold of pit_lock, and the
 * entries of a batch are forwarded again or failed with it released.
 */
void hicn_pit_fail_faces(struct hicn_net *hn)
{
	struct hicn_pit_entry *e;
	struct hlist_node *tmp;
	HLIST_HEAD(failed);
	unsigned int b, i;
	LIST_HEAD(list);

	lockdep_assert_held(&hn->lock);
	might_sleep();
	for (b = 0; b < ARRAY_SIZE(hn->pit); b += HICN_PIT_FAIL_BATCH) {
		spin_lock_bh(&hn->pit_lock);
		for (i = b; i < b + HICN_PIT_FAIL_BATCH; i++)
			hlist_for_each_entry_safe(e, tmp, &hn->pit[i], node)
				if (hicn_pit_fail_entry(hn, e, &list))
					hlist_add_head(&e->node, &failed);
		spin_unlock_bh(&hn->pit_lock);

		hicn_pit_free_in(&list);
		INIT_LIST_HEAD(&list);
		hlist_for_each_entry_safe(e, tmp, &failed, node) {
			hlist_del(&e->node);
			hicn_pit_failover(hn, e);
			cond_resched();
		}
	}
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
