// SPDX-License-Identifier: GPL-2.0
/*
 * The forwarding pipeline of a network namespace, as in NFD and hICN:
 *
 *   interest from a face:  CS (exact names, and names that are not ours)
 *                          -> hit: data back to the face
 *                          -> FIB: longest prefix, the strategy's face
 *                          -> PIT: aggregate, or record in- and
 *                             out-record and forward to that face
 *   data from a face:      PIT: solicited (an out-record for that face)?
 *                          no: dropped and counted; yes: CS insert (the
 *                          names above), then every face waiting for it
 *
 *   a face goes down:      PIT entries whose interest went to it alone
 *                          leave again by the strategy's choice among
 *                          the next hops still up (hicn_pit_fail_faces())
 *
 * No table lock is held while a face is called, so a producer face can
 * answer an interest from inside hicn_fwd_interest() (its content is in
 * the kernel) and the data travels back through hicn_fwd_data() in the
 * same call chain.  A face's data handler never calls back into the
 * forwarder, which bounds the depth at interest -> producer -> data ->
 * consumer.
 */

#include "hicn.h"

/*
 * The data may have passed between the CS lookup and the PIT insertion
 * (cached, then handed to the entry that was there): the new entry would
 * send a second interest for it.  Data is cached before its PIT entry is
 * taken out, so a second look at the CS after the insertion finds it; it
 * goes to every face the entry holds by now.  Returns true when it did.
 */
static bool hicn_fwd_cs_again(struct hicn_net *hn, const struct hicn_key *key)
{
	struct hicn_data d;

	if (!hicn_key_cacheable(key) || !hicn_cs_lookup(hn, key, &d, true))
		return false;
	d.ikey = *key;
	d.flags |= HICN_DATA_FROM_CS;
	hicn_pit_satisfy(hn, &d, NULL);
	hicn_obj_put(d.obj);
	return true;
}

/*
 * Forward an interest that the CS did not answer: FIB, PIT, then the
 * face the strategy chose.  Returns what hicn_fwd_interest() does, with
 * -ENETDOWN when that face went down after the FIB chose it.
 */
static int hicn_fwd_route(struct hicn_net *hn, struct hicn_face *face,
			  const struct hicn_key *key, unsigned long lifetime,
			  u8 hops, bool *remote, const struct hicn_isig *sig)
{
	struct hicn_face *out;
	bool forward;
	int err;

	out = hicn_fib_lookup(hn, &key->name, face);
	if (!out) {
		atomic64_inc(&hn->stats.no_route);
		return -ENETUNREACH;
	}
	if (!hops && out->ops->kind == HICN_FACE_KIND_UDP) {
		hicn_face_put(out);
		return -ELOOP;
	}
	if (remote)
		*remote = out->ops->kind == HICN_FACE_KIND_UDP;
	err = hicn_pit_insert(hn, key, face, lifetime, out, hops, &forward);
	if (!err && forward && hicn_fwd_cs_again(hn, key))
		forward = false;
	if (!err && forward) {
		atomic64_inc(&out->stats.interests_out);
		err = out->ops->interest(out, key, lifetime, hops, sig);
		if (err) {
			/* The face refused it: nobody will answer. */
			atomic64_inc(&out->stats.refused);
			hicn_pit_cancel(hn, key, face);
		}
	}
	hicn_face_put(out);
	return err;
}

/**
 * hicn_fwd_in() - an interest enters the forwarder
 * @face: the face it came from
 * @key: what it asks for
 * @lifetime: how long @face waits, in jiffies
 * @hops: how many more hosts it may be forwarded to (HICN_HOP_LIMIT from
 *	an application, one less than it arrived with from another host)
 * @remote: if not NULL, set when the FIB's face for it leads to another
 *	host (it was sent there, or waits in a PIT entry that went there):
 *	only then can the network lose it; untouched when the CS answered
 * @sig: the signature it came with from another host, or NULL
 *
 * A face to another host that goes down between the FIB lookup and the
 * send refuses the interest with -ENETDOWN; the FIB is asked once more,
 * and now passes over that face: the interest leaves by another next hop
 * that is up, or fails with -ENETUNREACH like one that found none.
 *
 * Return: 0 when the interest was answered, aggregated or forwarded;
 * -ENETUNREACH when no face that is up serves the name (the interest is
 * dropped); -ELOOP when the FIB's face leads to another host and @hops
 * is 0 (the interest is dropped: a loop, or a path longer than any real
 * one); -ENOBUFS when the PIT is full; -ENOMEM; or the error of the face
 * the FIB chose when it refused the interest (-ENETUNREACH from a closing
 * producer).
 */
static int hicn_fwd_in(struct hicn_face *face, const struct hicn_key *key,
		       unsigned long lifetime, u8 hops, bool *remote,
		       const struct hicn_isig *sig)
{
	struct hicn_net *hn = hicn_pernet(face->net);
	struct hicn_data d;
	int err;

	atomic64_inc(&hn->stats.interests);
	atomic64_inc(&face->stats.interests_in);
	if (hicn_key_cacheable(key) && hicn_cs_lookup(hn, key, &d, false)) {
		d.ikey = *key;
		d.flags |= HICN_DATA_FROM_CS;
		atomic64_inc(&face->stats.data_out);
		face->ops->data(face, &d);
		hicn_obj_put(d.obj);
		return 0;
	}

	err = hicn_fwd_route(hn, face, key, lifetime, hops, remote, sig);
	if (err == -ENETDOWN)
		err = hicn_fwd_route(hn, face, key, lifetime, hops, remote,
				     sig);
	return err == -ENETDOWN ? -ENETUNREACH : err;
}

/* An interest of a local consumer, which may need to know the way. */
int hicn_fwd_interest_via(struct hicn_face *face, const struct hicn_key *key,
			  unsigned long lifetime, u8 hops, bool *remote)
{
	return hicn_fwd_in(face, key, lifetime, hops, remote, NULL);
}

/*
 * An interest from another host, which need not know the way: the face it
 * leaves by passes @sig on, the signature it came with (NULL: none).
 */
int hicn_fwd_interest(struct hicn_face *face, const struct hicn_key *key,
		      unsigned long lifetime, u8 hops,
		      const struct hicn_isig *sig)
{
	return hicn_fwd_in(face, key, lifetime, hops, NULL, sig);
}

/**
 * hicn_fwd_data() - data enters the forwarder
 * @face: the face it came from
 * @d: the data; the caller keeps its reference on d->obj
 *
 * Data that no interest sent to @face asked for is dropped and counted
 * (unsolicited), never cached.
 */
void hicn_fwd_data(struct hicn_face *face, const struct hicn_data *d)
{
	struct hicn_net *hn = hicn_pernet(face->net);

	atomic64_inc(&hn->stats.data);
	atomic64_inc(&face->stats.data_in);
	if (!hicn_pit_solicited(hn, &d->ikey, face)) {
		atomic64_inc(&hn->stats.unsolicited);
		atomic64_inc(&face->stats.unsolicited);
		return;
	}
	if (d->obj && !(d->flags & (HICN_DATA_NACK | HICN_DATA_PROBE)))
		hicn_cs_insert(hn, d);
	hicn_pit_satisfy(hn, d, face);
}
