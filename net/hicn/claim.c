// SPDX-License-Identifier: GPL-2.0
/*
 * Producers' claims: who may serve a namespace.
 *
 * A producer's bind() claims a prefix.  Claims may not overlap (one prefix
 * containing the other), so a name has at most one local producer; routes
 * (fib.c) are another matter and may cover a claim.  A claim adds a FIB
 * next hop of cost 0 to the producer's application face, so local and
 * remote interests reach the producer through the same longest-prefix
 * match, and removes it when the claim ends.
 *
 * A claim's versions start above those of the claims that overlapped it
 * before (ver_floor.c): the highest version a producer gave out is
 * recorded when its claim ends, and the claim records its floor when it
 * is made, so that a name and version mean one object in the netns,
 * whichever producer published it.
 *
 * Lock order: hicn_net.claim_lock (a mutex: claims are made and released
 * in process context) -> hicn_net.fib_lock.
 */

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
 * hicn_claim() - claim a namespace for a producer socket
 * @hn: the namespace's AF_HICN state
 * @prefix: the prefix, host bits already cleared
 * @plen: its length in bits, 1..HICN_PREFIX_MAX
 * @face: the producer's face, which the claim and its FIB next hop hold
 *	a reference on
 *
 * The claim's @floor is the highest version given out under an
 * overlapping namespace released before: its producer numbers versions
 * above it (hicn_prod_claimed()).
 *
 * Return: the claim, or ERR_PTR(-EADDRINUSE) when another claim of the
 * namespace overlaps, ERR_PTR(-ENOSPC) when the FIB is full,
 * ERR_PTR(-ENOMEM).
 */
struct hicn_claim *hicn_claim(struct hicn_net *hn,
			      const struct in6_addr *prefix,
			      unsigned int plen, struct hicn_face *face)
{
	struct hicn_claim *c, *new;
	int err;

	new = kzalloc(sizeof(*new), GFP_KERNEL_ACCOUNT);
	if (!new)
		return ERR_PTR(-ENOMEM);
	new->prefix = *prefix;
	new->plen = plen;
	new->face = hicn_face_get(face);

	mutex_lock(&hn->claim_lock);
	list_for_each_entry(c, &hn->claims, node) {
		if (hicn_prefix_overlap(&c->prefix, c->plen, prefix, plen)) {
			err = -EADDRINUSE;
			goto fail;
		}
	}
	err = hicn_fib_add(hn, prefix, plen, face, 0);
	if (err)
		goto fail;
	new->floor = hicn_floor_of(hn, prefix, plen);
	list_add_tail(&new->node, &hn->claims);
	hn->nr_claims++;
	mutex_unlock(&hn->claim_lock);
	return new;

fail:
	mutex_unlock(&hn->claim_lock);
	hicn_face_put(new->face);
	kfree(new);
	/* An administrator's route through this very face cannot exist yet. */
	return ERR_PTR(err == -EEXIST ? -EADDRINUSE : err);
}

/**
 * hicn_claim_release() - end a claim made by hicn_claim()
 * @hn: the namespace's AF_HICN state
 * @c: the claim; freed
 * @top: the highest version the claim's producer gave out, which the
 *	claims that overlap it later start above
 */
void hicn_claim_release(struct hicn_net *hn, struct hicn_claim *c, u32 top)
{
	mutex_lock(&hn->claim_lock);
	list_del(&c->node);
	hn->nr_claims--;
	/* Nothing given out above @floor: the records it came from hold. */
	if (top > c->floor)
		hicn_floor_add(hn, &c->prefix, c->plen, top);
	/*
	 * Routes an administrator pointed at the face go too: the face
	 * serves nothing any more.
	 */
	hicn_fib_del_face(hn, c->face);
	mutex_unlock(&hn->claim_lock);
	hicn_face_put(c->face);
	kfree(c);
}
