// SPDX-License-Identifier: GPL-2.0
/*
 * The forwarding pipeline of a network namespace, as in NFD and hICN:
 *
 *   interest from a face:  CS (exact names) -> hit: data back to the face
 *                          -> PIT: aggregate, or record and forward
 *                          -> FIB: the face serving the name
 *   data from a face:      CS insert (exact names) -> PIT: every face
 *                          waiting for it
 *
 * No table lock is held while a face is called, so a producer face can
 * answer an interest from inside hicn_fwd_interest() (its content is in
 * the kernel) and the data travels back through hicn_fwd_data() in the
 * same call chain.  A face's data handler never calls back into the
 * forwarder, which bounds the depth at interest -> producer -> data ->
 * consumer.
 */

#include "hicn.h"

/**
 * hicn_fwd_interest() - an interest enters the forwarder
 * @face: the face it came from
 * @key: what it asks for
 * @lifetime: how long @face waits, in jiffies
 *
 * Return: 0 when the interest was answered, aggregated or forwarded;
 * -ENETUNREACH when no face serves the name (the interest is dropped and
 * the consumer times out); -ENOBUFS when the PIT is full; -ENOMEM.
 */
int hicn_fwd_interest(struct hicn_face *face, const struct hicn_key *key,
		      unsigned long lifetime)
{
	struct hicn_net *hn = hicn_pernet(face->net);
	struct hicn_face *out;
	struct hicn_data d;
	bool forward;
	int err;

	atomic64_inc(&hn->stats.interests);
	if (key->kind == HICN_I_EXACT && hicn_cs_lookup(hn, key, &d, false)) {
		d.flags |= HICN_DATA_FROM_CS;
		face->ops->data(face, &d);
		hicn_obj_put(d.obj);
		return 0;
	}

	out = hicn_fib_lookup(hn, &key->name);
	if (!out) {
		atomic64_inc(&hn->stats.no_route);
		return -ENETUNREACH;
	}
	err = hicn_pit_insert(hn, key, face, lifetime, &forward);
	/*
	 * The data may have passed between the CS lookup and the PIT
	 * insertion (cached, then handed to the entry that was there): the
	 * new entry would send a second interest for it to the producer.
	 * Data is cached before the PIT is searched, so a second look at
	 * the CS after the insertion finds it; it goes to every face the
	 * entry holds by now.
	 */
	if (!err && forward && key->kind == HICN_I_EXACT &&
	    hicn_cs_lookup(hn, key, &d, true)) {
		d.ikey = *key;
		d.flags |= HICN_DATA_FROM_CS;
		hicn_pit_satisfy(hn, &d);
		hicn_obj_put(d.obj);
		forward = false;
	}
	if (!err && forward)
		out->ops->interest(out, key, lifetime);
	hicn_face_put(out);
	return err;
}

/**
 * hicn_fwd_data() - data enters the forwarder
 * @face: the face it came from
 * @d: the data; the caller keeps its reference on d->obj
 */
void hicn_fwd_data(struct hicn_face *face, const struct hicn_data *d)
{
	struct hicn_net *hn = hicn_pernet(face->net);

	atomic64_inc(&hn->stats.data);
	if (d->obj && !(d->flags & (HICN_DATA_NACK | HICN_DATA_PROBE)))
		hicn_cs_insert(hn, d);
	hicn_pit_satisfy(hn, d);
}
