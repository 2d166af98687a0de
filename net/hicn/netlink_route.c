// SPDX-License-Identifier: GPL-2.0
/*
 * The "hicn" generic netlink family: faces, routes and strategies.
 *
 *   faces       hicn_net.faces, read under hicn_net.lock; a dump resumes
 *               after the last face id it sent (ids grow along the list)
 *   routes      the FIB (fib.c), read under RCU; a dump resumes at the
 *               bucket and position it stopped at (an entry replaced
 *               meanwhile may be sent twice or not at all, as with other
 *               netlink dumps of tables that change, documented)
 *   strategies  a property of a route
 *
 * Permissions and errors as in netlink.c: changes need
 * GENL_UNS_ADMIN_PERM (the op table), every error has an extack message.
 */

#include <linux/user_namespace.h>
#include <net/genetlink.h>
#include <net/ipv6.h>

#include "hicn.h"
#include "netlink.h"
#include "netlink_gen.h"

/* ---- faces ---- */

static int hicn_nl_face_fill(struct sk_buff *msg, struct net *net,
			     struct hicn_face *f)
{
	const struct hicn_face_stats *st = &f->stats;

	if (nla_put_u32(msg, HICN_A_FACE_ID, f->id) ||
	    nla_put_u8(msg, HICN_A_FACE_KIND, f->ops->kind) ||
	    nla_put_u32(msg, HICN_A_FACE_UID,
			from_kuid_munged(net->user_ns, f->uid)) ||
	    nla_put_u8(msg, HICN_A_FACE_UP, READ_ONCE(f->up)) ||
	    nla_put_u32(msg, HICN_A_FACE_OUT_PENDING,
			atomic_read(&f->out_pending)) ||
	    nla_put_u64_64bit(msg, HICN_A_FACE_INTERESTS_IN,
			      atomic64_read(&st->interests_in),
			      HICN_A_FACE_PAD) ||
	    nla_put_u64_64bit(msg, HICN_A_FACE_INTERESTS_OUT,
			      atomic64_read(&st->interests_out),
			      HICN_A_FACE_PAD) ||
	    nla_put_u64_64bit(msg, HICN_A_FACE_DATA_IN,
			      atomic64_read(&st->data_in), HICN_A_FACE_PAD) ||
	    nla_put_u64_64bit(msg, HICN_A_FACE_DATA_OUT,
			      atomic64_read(&st->data_out), HICN_A_FACE_PAD) ||
	    nla_put_u64_64bit(msg, HICN_A_FACE_UNSOLICITED,
			      atomic64_read(&st->unsolicited),
			      HICN_A_FACE_PAD) ||
	    nla_put_u64_64bit(msg, HICN_A_FACE_REFUSED,
			      atomic64_read(&st->refused), HICN_A_FACE_PAD))
		return -EMSGSIZE;
	return 0;
}

/* The face with id @id, with a reference, or NULL. */
static struct hicn_face *hicn_nl_face_find(struct hicn_net *hn, u32 id)
{
	struct hicn_face *f, *found = NULL;

	mutex_lock(&hn->lock);
	list_for_each_entry(f, &hn->faces, node) {
		if (f->id == id) {
			found = hicn_face_get(f);
			break;
		}
	}
	mutex_unlock(&hn->lock);
	return found;
}

/* The face a request's @attr names, or an ERR_PTR with the extack set. */
static struct hicn_face *hicn_nl_face_arg(struct hicn_net *hn,
					  struct genl_info *info, int attr)
{
	struct hicn_face *f;
	int err;

	err = hicn_nl_require(info->extack, info->attrs, attr,
			      "missing face id");
	if (err)
		return ERR_PTR(err);
	f = hicn_nl_face_find(hn, nla_get_u32(info->attrs[attr]));
	if (!f) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[attr],
				    "no face with this id");
		return ERR_PTR(-ENODEV);
	}
	return f;
}

int hicn_nl_face_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct hicn_face *f;
	struct sk_buff *msg;
	void *hdr;
	int err;

	f = hicn_nl_face_arg(hicn_pernet(net), info, HICN_A_FACE_ID);
	if (IS_ERR(f))
		return PTR_ERR(f) == -ENODEV ? -ENOENT : PTR_ERR(f);
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	err = -ENOMEM;
	if (!msg)
		goto out;
	hdr = genlmsg_put_reply(msg, info, &hicn_nl_family, 0,
				HICN_CMD_FACE_GET);
	err = hdr ? hicn_nl_face_fill(msg, net, f) : -EMSGSIZE;
	if (err) {
		nlmsg_free(msg);
		goto out;
	}
	genlmsg_end(msg, hdr);
	err = genlmsg_reply(msg, info);
out:
	hicn_face_put(f);
	return err;
}

/* cb->args[0]: the id of the last face sent. */
int hicn_nl_face_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct net *net = sock_net(skb->sk);
	struct hicn_net *hn = hicn_pernet(net);
	struct hicn_face *f;
	int err = 0;
	void *hdr;

	mutex_lock(&hn->lock);
	list_for_each_entry(f, &hn->faces, node) {
		if (f->id <= cb->args[0])
			continue;
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &hicn_nl_family,
				  NLM_F_MULTI, HICN_CMD_FACE_GET);
		err = hdr ? hicn_nl_face_fill(skb, net, f) : -EMSGSIZE;
		if (err) {
			if (hdr)
				genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
		cb->args[0] = f->id;
	}
	mutex_unlock(&hn->lock);
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ?: skb->len;
}

/* ---- routes ---- */

static int hicn_nl_route_fill(struct sk_buff *msg,
			      const struct hicn_fib_entry *e)
{
	struct nlattr *nest;
	unsigned int i;

	if (nla_put(msg, HICN_A_ROUTE_PREFIX, sizeof(e->prefix), &e->prefix) ||
	    nla_put_u8(msg, HICN_A_ROUTE_PREFIX_LEN, e->plen) ||
	    nla_put_u8(msg, HICN_A_ROUTE_STRATEGY, e->strategy))
		return -EMSGSIZE;
	for (i = 0; i < e->nnh; i++) {
		nest = nla_nest_start(msg, HICN_A_ROUTE_NEXTHOP);
		if (!nest ||
		    nla_put_u32(msg, HICN_A_NEXTHOP_FACE_ID,
				e->nh[i].face->id) ||
		    nla_put_u32(msg, HICN_A_NEXTHOP_COST, e->nh[i].cost))
			return -EMSGSIZE;
		nla_nest_end(msg, nest);
	}
	return 0;
}

static int hicn_nl_route_prefix(struct genl_info *info,
				struct in6_addr *prefix, unsigned int *plen)
{
	return hicn_nl_prefix(info->extack, info->attrs, HICN_A_ROUTE_PREFIX,
			      HICN_A_ROUTE_PREFIX_LEN, true, prefix, plen);
}

int hicn_nl_route_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct hicn_net *hn = hicn_pernet(genl_info_net(info));
	struct hicn_fib_entry *e;
	struct in6_addr prefix;
	struct sk_buff *msg;
	unsigned int plen;
	void *hdr;
	int err;

	err = hicn_nl_route_prefix(info, &prefix, &plen);
	if (err)
		return err;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &hicn_nl_family, 0,
				HICN_CMD_ROUTE_GET);
	err = -EMSGSIZE;
	if (hdr) {
		rcu_read_lock();
		e = hicn_fib_get_rcu(hn, &prefix, plen);
		err = e ? hicn_nl_route_fill(msg, e) : -ENOENT;
		rcu_read_unlock();
	}
	if (err == -ENOENT)
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[HICN_A_ROUTE_PREFIX],
				    "no route with this prefix");
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/* cb->args[0]: the bucket; cb->args[1]: entries of it already sent. */
int hicn_nl_route_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct hicn_net *hn = hicn_pernet(sock_net(skb->sk));
	struct hicn_fib_entry *e;
	int err = 0;
	long idx;
	void *hdr;

	rcu_read_lock();
	for (; cb->args[0] < ARRAY_SIZE(hn->fib); cb->args[0]++, cb->args[1] = 0) {
		idx = 0;
		hlist_for_each_entry_rcu(e, &hn->fib[cb->args[0]], node) {
			if (idx++ < cb->args[1])
				continue;
			hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
					  cb->nlh->nlmsg_seq, &hicn_nl_family,
					  NLM_F_MULTI, HICN_CMD_ROUTE_GET);
			err = hdr ? hicn_nl_route_fill(skb, e) : -EMSGSIZE;
			if (err) {
				if (hdr)
					genlmsg_cancel(skb, hdr);
				goto out;
			}
			genlmsg_end(skb, hdr);
			cb->args[1] = idx;
		}
	}
out:
	rcu_read_unlock();
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ?: skb->len;
}

int hicn_nl_route_add_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct hicn_net *hn = hicn_pernet(genl_info_net(info));
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr **attrs = info->attrs;
	struct in6_addr prefix;
	struct hicn_face *f;
	unsigned int plen;
	u32 cost = 0;
	int err;

	err = hicn_nl_route_prefix(info, &prefix, &plen);
	if (err)
		return err;
	f = hicn_nl_face_arg(hn, info, HICN_A_ROUTE_FACE_ID);
	if (IS_ERR(f))
		return PTR_ERR(f);
	if (attrs[HICN_A_ROUTE_COST])
		cost = nla_get_u32(attrs[HICN_A_ROUTE_COST]);
	if (f->ops->kind == HICN_FACE_KIND_CONSUMER) {
		NL_SET_ERR_MSG_ATTR(extack, attrs[HICN_A_ROUTE_FACE_ID],
				    "a consumer's face serves no interests");
		err = -EINVAL;
	} else if (!READ_ONCE(f->up)) {
		NL_SET_ERR_MSG_ATTR(extack, attrs[HICN_A_ROUTE_FACE_ID],
				    "the face is closing");
		err = -ENODEV;
	} else {
		err = hicn_fib_add(hn, &prefix, plen, f, cost);
		if (err == -EEXIST)
			NL_SET_ERR_MSG_ATTR(extack, attrs[HICN_A_ROUTE_FACE_ID],
					    "the face is a next hop of this prefix already");
		else if (err == -ENOSPC)
			NL_SET_ERR_MSG(extack,
				       "too many next hops or routes");
	}
	hicn_face_put(f);
	return err;
}

int hicn_nl_route_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct hicn_net *hn = hicn_pernet(genl_info_net(info));
	struct in6_addr prefix;
	struct hicn_face *f;
	unsigned int plen;
	int err;

	err = hicn_nl_route_prefix(info, &prefix, &plen);
	if (err)
		return err;
	f = hicn_nl_face_arg(hn, info, HICN_A_ROUTE_FACE_ID);
	if (IS_ERR(f))
		return PTR_ERR(f) == -ENODEV ? -ENOENT : PTR_ERR(f);
	err = hicn_fib_del(hn, &prefix, plen, f);
	if (err == -ENOENT)
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[HICN_A_ROUTE_FACE_ID],
				    "the face is not a next hop of this prefix");
	hicn_face_put(f);
	return err;
}

int hicn_nl_strategy_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct hicn_net *hn = hicn_pernet(genl_info_net(info));
	struct in6_addr prefix;
	unsigned int plen;
	int err;

	err = hicn_nl_route_prefix(info, &prefix, &plen);
	if (err)
		return err;
	err = hicn_nl_require(info->extack, info->attrs,
			      HICN_A_ROUTE_STRATEGY, "missing strategy");
	if (err)
		return err;
	err = hicn_fib_set_strategy(hn, &prefix, plen,
				    nla_get_u8(info->attrs[HICN_A_ROUTE_STRATEGY]));
	if (err == -ENOENT)
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[HICN_A_ROUTE_PREFIX],
				    "no route with this prefix");
	return err;
}
