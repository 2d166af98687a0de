// SPDX-License-Identifier: GPL-2.0
/*
 * Faces: the forwarder's attachment points.  Every AF_HICN socket owns an
 * application face; the UDP faces to other hosts will be faces too, with
 * other ops, and the forwarder will not know the difference.
 *
 * A face is reference counted: its owner, each FIB next hop and claim
 * naming it and each PIT in- and out-record hold one.  A face is up while
 * it takes interests; the strategies pass over a face that is down.  An
 * application face points at its socket until the socket closes
 * (hicn_face_detach(): down, and detached); from then on data and
 * interests sent to it are dropped, and the face is freed when the last
 * PIT record or FIB entry lets go, after its destroy op.
 *
 * Lock order: face.lock is a leaf.
 */

#include <linux/slab.h>

#include "hicn.h"

/**
 * hicn_face_create_locked() - a new face, up (hicn_net.lock held)
 * @net: its netns
 * @ops: its handlers
 * @sk: an application face's socket, else NULL
 * @priv: the face type's state (hicn_face.priv)
 *
 * Return: the face with one reference (its owner's), NULL without memory.
 */
struct hicn_face *hicn_face_create_locked(struct net *net,
					  const struct hicn_face_ops *ops,
					  struct sock *sk, void *priv)
{
	struct hicn_net *hn = hicn_pernet(net);
	struct hicn_face *face;

	lockdep_assert_held(&hn->lock);
	face = kzalloc(sizeof(*face), GFP_KERNEL_ACCOUNT);
	if (!face)
		return NULL;
	refcount_set(&face->ref, 1);
	face->net = net;
	face->ops = ops;
	face->uid = sk ? sk_uid(sk) : GLOBAL_ROOT_UID;
	spin_lock_init(&face->lock);
	face->sk = sk;
	face->priv = priv;
	face->up = true;
	face->id = ++hn->next_face_id;
	face->quota_id = sk ? 0 : face->id;
	list_add_tail(&face->node, &hn->faces);
	hn->nr_faces++;
	return face;
}

struct hicn_face *hicn_face_create(struct net *net,
				   const struct hicn_face_ops *ops,
				   struct sock *sk)
{
	struct hicn_net *hn = hicn_pernet(net);
	struct hicn_face *face;

	mutex_lock(&hn->lock);
	face = hicn_face_create_locked(net, ops, sk, NULL);
	mutex_unlock(&hn->lock);
	return face;
}

/*
 * The face's owner lets it go (hicn_net.lock held): down, no socket, out
 * of the netns's list.
 */
void hicn_face_detach_locked(struct hicn_face *face)
{
	lockdep_assert_held(&hicn_pernet(face->net)->lock);
	WRITE_ONCE(face->up, false);
	WRITE_ONCE(face->detached, true);
	spin_lock_bh(&face->lock);
	face->sk = NULL;
	spin_unlock_bh(&face->lock);
	list_del_init(&face->node);
	hicn_pernet(face->net)->nr_faces--;
}

/* The socket is closing: nothing reaches it through the face any more. */
void hicn_face_detach(struct hicn_face *face)
{
	struct hicn_net *hn = hicn_pernet(face->net);

	mutex_lock(&hn->lock);
	hicn_face_detach_locked(face);
	mutex_unlock(&hn->lock);
}

/* The face's socket with a reference, or NULL once detached. */
struct sock *hicn_face_sk(struct hicn_face *face)
{
	struct sock *sk;

	spin_lock_bh(&face->lock);
	sk = face->sk;
	if (sk)
		sock_hold(sk);
	spin_unlock_bh(&face->lock);
	return sk;
}

/* Any context: FIB entries drop their references from RCU callbacks. */
void hicn_face_put(struct hicn_face *face)
{
	if (!refcount_dec_and_test(&face->ref))
		return;
	WARN_ON_ONCE(atomic_read(&face->out_pending));
	if (face->ops->destroy)
		face->ops->destroy(face);
	kfree_rcu(face, rcu);
}
