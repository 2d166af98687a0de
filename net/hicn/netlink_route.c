// SPDX-License-Identifier: GPL-2.0
/*
 * The "hicn" generic netlink family: routes and strategies (faces and
 * listeners are in netlink_face.c).
 *
 *   routes      the FIB (fib.c), read under RCU; a dump resumes at the
 *               bucket and position it stopped at (an entry replaced
 *               meanwhile may be sent twice or not at all, as with other
 *               netlink dumps of tables that change, documented)
 *   strategies  a property of a route
 *   events      a next hop added to or removed from a route
 *               (hicn_nl_route_event(), from fib.c)
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

/**
 * hicn_nl_route_event() - tell the namespace's listeners about a next hop
 * @e: the entry the next hop was added to, or is removed from
 * @i: the next hop's index in @e
 * @added: added (route-added) or removed (route-deleted)
 *
 * Context: hicn_net.fib_lock held (BH off), so that the events leave in
 * the order of the changes: GFP_ATOMIC, and a message of the size the
 * attributes take.
 */
void hicn_nl_route_event(const struct hicn_fib_entry *e, unsigned int i,
			 bool added)
{
	const struct hicn_fib_nh *nh = &e->nh[i];
	struct net *net = nh->face->net;
	struct sk_buff *msg;
	void *hdr;

	msg = hicn_nl_event_new(net, added ? HICN_CMD_ROUTE_ADDED :
					     HICN_CMD_ROUTE_DELETED,
				nla_total_size(sizeof(e->prefix)) +
				nla_total_size(sizeof(u8)) +
				2 * nla_total_size(sizeof(u32)),
				GFP_ATOMIC, &hdr);
	if (!msg)
		return;
	if (nla_put(msg, HICN_A_ROUTE_PREFIX, sizeof(e->prefix), &e->prefix) ||
	    nla_put_u8(msg, HICN_A_ROUTE_PREFIX_LEN, e->plen) ||
	    nla_put_u32(msg, HICN_A_ROUTE_FACE_ID, nh->face->id) ||
	    nla_put_u32(msg, HICN_A_ROUTE_COST, nh->cost)) {
		nlmsg_free(msg);
		return;
	}
	hicn_nl_event_send(net, msg, hdr, GFP_ATOMIC);
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
	} else if (READ_ONCE(f->detached)) {
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
