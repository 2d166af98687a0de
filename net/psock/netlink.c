// SPDX-License-Identifier: GPL-2.0
/*
 * The "psock" generic netlink family: the configuration plane of
 * IPPROTO_PSOCK.  Documentation/netlink/specs/psock.yaml describes it;
 * netlink_gen.c (policies, op table) and <uapi/linux/psock_netlink.h>
 * are generated from it with the kernel's tools/net/ynl/ynl-gen-c.py
 * (make netlink-gen).  This file holds the handlers.
 *
 * Objects, all per network namespace (genl_info_net() / sock_net()):
 *
 *   endpoints  local addresses connections may use for extra subflows:
 *              struct pstripe_endpoint on pstripe_nl_net.endpoints,
 *              sorted by id, at most PSOCK_ENDPOINTS_MAX
 *   limits     the default stream counts and driver: the same ints as
 *              the sysctls net.psock.{rcmd_stream_cnt,max_stream_cnt,
 *              driver} (struct pstripe_pernet, ctrl.c), with the same
 *              ranges and errno, so either interface sees what the other
 *              wrote
 *   counters   the sums of /proc/net/psock (mib.c)
 *   events     subflow established / closed, on the multicast group
 *              PSOCK_MCGRP_EVENTS of the connection's namespace: one
 *              "established" per subflow when its connection completes
 *              the handshake, and one "closed" for each of those when it
 *              fails or its connection closes (pstripe_subflow.nl_up
 *              pairs them)
 *
 * Permissions: the op table flags every request that changes state with
 * GENL_UNS_ADMIN_PERM (CAP_NET_ADMIN in the user namespace owning the
 * network namespace); reading needs nothing.
 *
 * Locking: the family has parallel_ops, so no genl_mutex.  Each namespace's
 * endpoints are under its pstripe_nl_net.lock, a mutex taken by the
 * request handlers (process context) with no other lock held, and by the
 * path manager (pstripe_nl_endpoints(), process context) under a PSOCK
 * socket's lock_sock(); it holds none inside: a leaf.  A dump holds it
 * while it fills one message.  The limits are single ints, read with
 * READ_ONCE() and written with WRITE_ONCE() (the sysctl handler writes
 * them with plain stores, as for every sysctl int).  The event helpers
 * run under a PSOCK socket's lock, maybe with bottom halves off: they take
 * no lock of ours and allocate with GFP_ATOMIC.
 *
 * Errors: every request a user gets wrong fails with an errno and an extack
 * message; when an attribute is at fault the message points at it, and a
 * missing attribute is reported as missing (NL_SET_ERR_ATTR_MISS).
 */

#include <linux/inet.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <linux/stringify.h>
#include <net/genetlink.h>
#include <net/ipv6.h>
#include <net/netns/generic.h>

#include "netlink_gen.h"
#include "protocol.h"

/* Endpoint ids are u8 attributes; 0 means "none". */
#define PSTRIPE_EP_ID_MAX	U8_MAX

/**
 * struct pstripe_endpoint - a local address for extra subflows
 * @list: in pstripe_nl_net.endpoints, protected by pstripe_nl_net.lock
 * @id: 1..PSTRIPE_EP_ID_MAX, unique in the namespace
 * @family: AF_INET or AF_INET6
 * @ifindex: interface of the address, 0 for any
 * @flags: enum psock_endpoint_flags bits
 * @addr: @family's address
 */
struct pstripe_endpoint {
	struct list_head	list;
	u8			id;
	u16			family;
	int			ifindex;
	u32			flags;
	union {
		__be32		a4;
		struct in6_addr	a6;
	} addr;
};

/**
 * struct pstripe_nl_net - netlink state of one network namespace
 * @lock: protects @endpoints, @count and @ids
 * @endpoints: struct pstripe_endpoint, sorted by id
 * @count: entries on @endpoints, at most PSOCK_ENDPOINTS_MAX
 * @ids: ids in use
 */
struct pstripe_nl_net {
	struct mutex		lock;		/* see above */
	struct list_head	endpoints;
	unsigned int		count;
	DECLARE_BITMAP(ids, PSTRIPE_EP_ID_MAX + 1);
};

static unsigned int pstripe_nl_net_id __read_mostly;
static struct genl_family pstripe_nl_family;

static struct pstripe_nl_net *pstripe_nl_net(const struct net *net)
{
	return net_generic(net, pstripe_nl_net_id);
}

/*
 * EINVAL when the request lacks @attr, with @msg (a string literal, as
 * NL_SET_ERR_MSG() wants) and @attr reported as the missing one.
 */
#define pstripe_nl_require(info, attr, msg) ({				\
	struct genl_info *__info = (info);				\
	int __attr = (attr);						\
	int __err = 0;							\
									\
	if (!__info->attrs[__attr]) {					\
		NL_SET_ERR_MSG(__info->extack, msg);			\
		NL_SET_ERR_ATTR_MISS(__info->extack, NULL, __attr);	\
		__err = -EINVAL;					\
	}								\
	__err;								\
})

/* ---- endpoints ---- */

static struct pstripe_endpoint *
__pstripe_ep_find_id(struct pstripe_nl_net *nn, u8 id)
{
	struct pstripe_endpoint *ep;

	lockdep_assert_held(&nn->lock);
	list_for_each_entry(ep, &nn->endpoints, list)
		if (ep->id == id)
			return ep;
	return NULL;
}

static bool __pstripe_ep_addr_used(struct pstripe_nl_net *nn,
				   const struct pstripe_endpoint *new)
{
	const struct pstripe_endpoint *ep;

	lockdep_assert_held(&nn->lock);
	list_for_each_entry(ep, &nn->endpoints, list) {
		if (ep->family != new->family)
			continue;
		if (ep->family == AF_INET ? ep->addr.a4 == new->addr.a4 :
		    ipv6_addr_equal(&ep->addr.a6, &new->addr.a6))
			return true;
	}
	return false;
}

/* Puts @ep on the list, keeping it sorted by id. */
static void __pstripe_ep_insert(struct pstripe_nl_net *nn,
				struct pstripe_endpoint *new)
{
	struct list_head *pos = &nn->endpoints;
	struct pstripe_endpoint *ep;

	lockdep_assert_held(&nn->lock);
	list_for_each_entry(ep, &nn->endpoints, list) {
		if (ep->id > new->id) {
			pos = &ep->list;
			break;
		}
	}
	list_add_tail(&new->list, pos);
	__set_bit(new->id, nn->ids);
	nn->count++;
}

static void __pstripe_ep_free(struct pstripe_nl_net *nn,
			      struct pstripe_endpoint *ep)
{
	lockdep_assert_held(&nn->lock);
	list_del(&ep->list);
	__clear_bit(ep->id, nn->ids);
	nn->count--;
	kfree(ep);
}

/* Fills @ep's address from the request: family and its one address. */
static int pstripe_ep_parse_addr(struct genl_info *info,
				 struct pstripe_endpoint *ep)
{
	struct nlattr **attrs = info->attrs;
	struct nlattr *a4 = attrs[PSOCK_A_ENDPOINT_ADDR4];
	struct nlattr *a6 = attrs[PSOCK_A_ENDPOINT_ADDR6];
	int err;

	err = pstripe_nl_require(info, PSOCK_A_ENDPOINT_FAMILY,
				 "missing address family");
	if (err)
		return err;
	ep->family = nla_get_u16(attrs[PSOCK_A_ENDPOINT_FAMILY]);

	switch (ep->family) {
	case AF_INET:
		if (a6) {
			NL_SET_ERR_MSG_ATTR(info->extack, a6,
					    "IPv6 address with family AF_INET");
			return -EINVAL;
		}
		err = pstripe_nl_require(info, PSOCK_A_ENDPOINT_ADDR4,
					 "missing IPv4 address");
		if (err)
			return err;
		ep->addr.a4 = nla_get_in_addr(a4);
		if (ipv4_is_zeronet(ep->addr.a4) ||
		    ipv4_is_multicast(ep->addr.a4) ||
		    ipv4_is_lbcast(ep->addr.a4)) {
			NL_SET_ERR_MSG_ATTR(info->extack, a4,
					    "not a unicast address");
			return -EINVAL;
		}
		return 0;
	case AF_INET6:
		if (!IS_ENABLED(CONFIG_IPV6)) {
			NL_SET_ERR_MSG_ATTR(info->extack,
					    attrs[PSOCK_A_ENDPOINT_FAMILY],
					    "IPv6 is not enabled");
			return -EAFNOSUPPORT;
		}
		if (a4) {
			NL_SET_ERR_MSG_ATTR(info->extack, a4,
					    "IPv4 address with family AF_INET6");
			return -EINVAL;
		}
		err = pstripe_nl_require(info, PSOCK_A_ENDPOINT_ADDR6,
					 "missing IPv6 address");
		if (err)
			return err;
		ep->addr.a6 = nla_get_in6_addr(a6);
		if (ipv6_addr_any(&ep->addr.a6) ||
		    ipv6_addr_is_multicast(&ep->addr.a6)) {
			NL_SET_ERR_MSG_ATTR(info->extack, a6,
					    "not a unicast address");
			return -EINVAL;
		}
		return 0;
	default:
		NL_SET_ERR_MSG_ATTR(info->extack,
				    attrs[PSOCK_A_ENDPOINT_FAMILY],
				    "family must be AF_INET or AF_INET6");
		return -EAFNOSUPPORT;
	}
}

/* Fills @ep's interface; it must exist in @net when given. */
static int pstripe_ep_parse_ifindex(struct net *net, struct genl_info *info,
				    struct pstripe_endpoint *ep)
{
	struct nlattr *attr = info->attrs[PSOCK_A_ENDPOINT_IFINDEX];
	bool found;

	if (!attr)
		return 0;
	ep->ifindex = nla_get_s32(attr);
	if (ep->ifindex < 0) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "interface index must not be negative");
		return -EINVAL;
	}
	if (!ep->ifindex)
		return 0;
	rcu_read_lock();
	found = dev_get_by_index_rcu(net, ep->ifindex);
	rcu_read_unlock();
	if (!found) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "no interface with this index");
		return -ENODEV;
	}
	return 0;
}

/**
 * pstripe_nl_endpoints() - the endpoints a socket without addresses of its
 *	own uses
 * @net: the socket's namespace
 * @family: the socket's family: endpoints of another family are left out
 * @flag: PSOCK_ENDPOINT_FLAGS_SIGNAL (a listener announces them) or
 *	PSOCK_ENDPOINT_FLAGS_SUBFLOW (a client's data subflows leave from
 *	them)
 * @out: room for PSOCK_ADDR_MAX addresses (port 0)
 * @ifindex: room for as many interfaces (0: any)
 *
 * Context: process context, no spinlock held: takes the namespace's
 * endpoint mutex, a leaf (a socket lock may be held).
 * Return: how many were written, in the order of their ids.
 */
int pstripe_nl_endpoints(struct net *net, int family, u32 flag,
			 struct pstripe_addr *out, int *ifindex)
{
	struct pstripe_nl_net *nn = pstripe_nl_net(net);
	const struct pstripe_endpoint *ep;
	int n = 0;

	might_sleep();
	mutex_lock(&nn->lock);
	list_for_each_entry(ep, &nn->endpoints, list) {
		if (n == PSOCK_ADDR_MAX)
			break;
		if (ep->family != family || !(ep->flags & flag))
			continue;
		memset(&out[n], 0, sizeof(out[n]));
		if (family == AF_INET) {
			out[n].family = 4;
			memcpy(out[n].addr, &ep->addr.a4, 4);
		} else {
			out[n].family = 6;
			memcpy(out[n].addr, &ep->addr.a6, 16);
		}
		ifindex[n++] = ep->ifindex;
	}
	mutex_unlock(&nn->lock);
	return n;
}

/*
 * May @ep join @nn's endpoints?  Gives it its id (the one asked for, or
 * the lowest free one).  0, or an errno with the extack message set.
 */
static int __pstripe_ep_admit(struct pstripe_nl_net *nn,
			      struct pstripe_endpoint *ep,
			      struct genl_info *info)
{
	struct nlattr *id_attr = info->attrs[PSOCK_A_ENDPOINT_ID];

	lockdep_assert_held(&nn->lock);
	/* As MPTCP's endpoints: a duplicate is EEXIST, even in a full table. */
	if (__pstripe_ep_addr_used(nn, ep)) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[ep->family == AF_INET ?
						PSOCK_A_ENDPOINT_ADDR4 :
						PSOCK_A_ENDPOINT_ADDR6],
				    "address is already an endpoint");
		return -EEXIST;
	}
	if (id_attr && test_bit(nla_get_u8(id_attr), nn->ids)) {
		NL_SET_ERR_MSG_ATTR(info->extack, id_attr,
				    "endpoint id is in use");
		return -EEXIST;
	}
	if (nn->count >= PSOCK_ENDPOINTS_MAX) {
		NL_SET_ERR_MSG(info->extack,
			       "at most " __stringify(PSOCK_ENDPOINTS_MAX)
			       " endpoints per namespace");
		return -ENOSPC;
	}
	/* Fewer endpoints than ids: without one asked for, one is free. */
	ep->id = id_attr ? nla_get_u8(id_attr) :
		 find_next_zero_bit(nn->ids, PSTRIPE_EP_ID_MAX + 1, 1);
	return 0;
}

int psock_nl_endpoint_add_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct pstripe_nl_net *nn = pstripe_nl_net(net);
	struct pstripe_endpoint *ep;
	struct sk_buff *msg;
	void *hdr;
	int err;

	ep = kzalloc(sizeof(*ep), GFP_KERNEL_ACCOUNT);
	if (!ep)
		return -ENOMEM;
	err = pstripe_ep_parse_addr(info, ep);
	if (err)
		goto err_free;
	err = pstripe_ep_parse_ifindex(net, info, ep);
	if (err)
		goto err_free;
	if (info->attrs[PSOCK_A_ENDPOINT_FLAGS])
		ep->flags = nla_get_u32(info->attrs[PSOCK_A_ENDPOINT_FLAGS]);

	/* The reply (the endpoint's id) is made before anything changes,
	 * so that a failure cannot leave an endpoint the caller was told
	 * nothing about.
	 */
	err = -ENOMEM;
	msg = genlmsg_new(nla_total_size(sizeof(u8)), GFP_KERNEL);
	if (!msg)
		goto err_free;
	err = -EMSGSIZE;
	hdr = genlmsg_put_reply(msg, info, &pstripe_nl_family, 0,
				PSOCK_CMD_ENDPOINT_ADD);
	if (!hdr)
		goto err_msg;

	mutex_lock(&nn->lock);
	err = __pstripe_ep_admit(nn, ep, info);
	if (!err)
		err = nla_put_u8(msg, PSOCK_A_ENDPOINT_ID, ep->id);
	if (err) {
		mutex_unlock(&nn->lock);
		goto err_msg;
	}
	__pstripe_ep_insert(nn, ep);
	mutex_unlock(&nn->lock);
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_msg:
	nlmsg_free(msg);
err_free:
	kfree(ep);
	return err;
}

int psock_nl_endpoint_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct pstripe_nl_net *nn = pstripe_nl_net(genl_info_net(info));
	struct nlattr *id_attr = info->attrs[PSOCK_A_ENDPOINT_ID];
	struct pstripe_endpoint *ep;
	int err;

	err = pstripe_nl_require(info, PSOCK_A_ENDPOINT_ID,
				 "missing endpoint id");
	if (err)
		return err;

	mutex_lock(&nn->lock);
	ep = __pstripe_ep_find_id(nn, nla_get_u8(id_attr));
	if (ep) {
		__pstripe_ep_free(nn, ep);
	} else {
		NL_SET_ERR_MSG_ATTR(info->extack, id_attr,
				    "no endpoint with this id");
		err = -ENOENT;
	}
	mutex_unlock(&nn->lock);
	return err;
}

int psock_nl_endpoint_flush_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct pstripe_nl_net *nn = pstripe_nl_net(genl_info_net(info));
	struct nlattr *fam_attr = info->attrs[PSOCK_A_ENDPOINT_FAMILY];
	struct pstripe_endpoint *ep, *tmp;
	u16 family = 0;

	if (fam_attr) {
		family = nla_get_u16(fam_attr);
		if (family != AF_INET && family != AF_INET6) {
			NL_SET_ERR_MSG_ATTR(info->extack, fam_attr,
					    "family must be AF_INET or AF_INET6");
			return -EAFNOSUPPORT;
		}
	}

	mutex_lock(&nn->lock);
	list_for_each_entry_safe(ep, tmp, &nn->endpoints, list)
		if (!family || ep->family == family)
			__pstripe_ep_free(nn, ep);
	mutex_unlock(&nn->lock);
	return 0;
}

/* Writes @ep's attributes; the caller holds the lock its list is under. */
static int pstripe_ep_fill(struct sk_buff *msg,
			   const struct pstripe_endpoint *ep)
{
	if (nla_put_u8(msg, PSOCK_A_ENDPOINT_ID, ep->id) ||
	    nla_put_u16(msg, PSOCK_A_ENDPOINT_FAMILY, ep->family) ||
	    nla_put_s32(msg, PSOCK_A_ENDPOINT_IFINDEX, ep->ifindex) ||
	    nla_put_u32(msg, PSOCK_A_ENDPOINT_FLAGS, ep->flags))
		return -EMSGSIZE;
	if (ep->family == AF_INET)
		return nla_put_in_addr(msg, PSOCK_A_ENDPOINT_ADDR4, ep->addr.a4);
	return nla_put_in6_addr(msg, PSOCK_A_ENDPOINT_ADDR6, &ep->addr.a6);
}

int psock_nl_endpoint_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct pstripe_nl_net *nn = pstripe_nl_net(genl_info_net(info));
	struct nlattr *id_attr = info->attrs[PSOCK_A_ENDPOINT_ID];
	struct pstripe_endpoint *ep;
	struct sk_buff *msg;
	void *hdr;
	int err;

	err = pstripe_nl_require(info, PSOCK_A_ENDPOINT_ID,
				 "missing endpoint id");
	if (err)
		return err;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &pstripe_nl_family, 0,
				PSOCK_CMD_ENDPOINT_GET);
	if (!hdr) {
		err = -EMSGSIZE;
		goto err_msg;
	}

	mutex_lock(&nn->lock);
	ep = __pstripe_ep_find_id(nn, nla_get_u8(id_attr));
	if (ep) {
		err = pstripe_ep_fill(msg, ep);
	} else {
		NL_SET_ERR_MSG_ATTR(info->extack, id_attr,
				    "no endpoint with this id");
		err = -ENOENT;
	}
	mutex_unlock(&nn->lock);
	if (err)
		goto err_msg;

	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_msg:
	nlmsg_free(msg);
	return err;
}

/*
 * One message per endpoint, in id order.  cb->args[0] is the id of the
 * last endpoint sent, where the next call resumes when the first did not
 * fit in one skb.
 */
int psock_nl_endpoint_get_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb)
{
	struct pstripe_nl_net *nn = pstripe_nl_net(sock_net(skb->sk));
	struct pstripe_endpoint *ep;
	int err = 0;
	void *hdr;

	mutex_lock(&nn->lock);
	list_for_each_entry(ep, &nn->endpoints, list) {
		if (ep->id <= cb->args[0])
			continue;
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &pstripe_nl_family,
				  NLM_F_MULTI, PSOCK_CMD_ENDPOINT_GET);
		if (!hdr) {
			err = -EMSGSIZE;
			break;
		}
		err = pstripe_ep_fill(skb, ep);
		if (err) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
		cb->args[0] = ep->id;
	}
	mutex_unlock(&nn->lock);

	/* A full skb ends this part; netlink calls again for the rest.  An
	 * endpoint that fits in no skb at all cannot happen (a few dozen
	 * bytes).
	 */
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ?: skb->len;
}

/* ---- limits ---- */

/*
 * Reads limit @attr into @val when the request has it: 1 if it does, 0 if
 * not, -EINVAL with @msg (a string literal) when out of @min..@max.
 */
#define pstripe_nl_limit(info, attr, min, max, msg, val) ({		\
	struct genl_info *__info = (info);				\
	struct nlattr *__a = __info->attrs[attr];			\
	int __ret = 0;							\
									\
	if (__a) {							\
		u32 __v = nla_get_u32(__a);				\
									\
		if (__v < (min) || __v > (max)) {			\
			NL_SET_ERR_MSG_ATTR(__info->extack, __a, msg);	\
			__ret = -EINVAL;				\
		} else {						\
			*(val) = __v;					\
			__ret = 1;					\
		}							\
	}								\
	__ret;								\
})

#define PSTRIPE_CNT_RANGE	"1 to " __stringify(PSOCK_STREAM_CNT_LIMIT)

int psock_nl_limits_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct pstripe_pernet *pn = pstripe_get_pernet(genl_info_net(info));
	int rcmd = 0, max = 0, driver = 0;
	int set_rcmd, set_max, set_driver;

	/* Every value is checked before any is written: a request that
	 * fails changes nothing.
	 */
	set_rcmd = pstripe_nl_limit(info, PSOCK_A_LIMITS_RCMD_STREAM_CNT, 1,
				    PSOCK_STREAM_CNT_LIMIT,
				    "recommended stream count must be "
				    PSTRIPE_CNT_RANGE, &rcmd);
	if (set_rcmd < 0)
		return set_rcmd;
	set_max = pstripe_nl_limit(info, PSOCK_A_LIMITS_MAX_STREAM_CNT, 1,
				   PSOCK_STREAM_CNT_LIMIT,
				   "maximum stream count must be "
				   PSTRIPE_CNT_RANGE, &max);
	if (set_max < 0)
		return set_max;
	set_driver = pstripe_nl_limit(info, PSOCK_A_LIMITS_DRIVER, 0,
				      PSOCK_DRIVER_MAX, "unknown driver",
				      &driver);
	if (set_driver < 0)
		return set_driver;
	if (!set_rcmd && !set_max && !set_driver) {
		NL_SET_ERR_MSG(info->extack, "no limit to set");
		return -EINVAL;
	}

	if (set_rcmd)
		WRITE_ONCE(pn->rcmd_stream_cnt, rcmd);
	if (set_max)
		WRITE_ONCE(pn->max_stream_cnt, max);
	if (set_driver)
		WRITE_ONCE(pn->driver, driver);
	return 0;
}

int psock_nl_limits_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct pstripe_pernet *pn = pstripe_get_pernet(genl_info_net(info));
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(3 * nla_total_size(sizeof(u32)), GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &pstripe_nl_family, 0,
				PSOCK_CMD_LIMITS_GET);
	if (!hdr ||
	    nla_put_u32(msg, PSOCK_A_LIMITS_RCMD_STREAM_CNT,
			READ_ONCE(pn->rcmd_stream_cnt)) ||
	    nla_put_u32(msg, PSOCK_A_LIMITS_MAX_STREAM_CNT,
			READ_ONCE(pn->max_stream_cnt)) ||
	    nla_put_u32(msg, PSOCK_A_LIMITS_DRIVER, READ_ONCE(pn->driver))) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/* ---- counters ---- */

static const u8 pstripe_nl_counter_attr[PSTRIPE_MIB_MAX] = {
	[PSTRIPE_MIB_ACTIVE_OPENS]	= PSOCK_A_COUNTERS_ACTIVE_OPENS,
	[PSTRIPE_MIB_PASSIVE_OPENS]	= PSOCK_A_COUNTERS_PASSIVE_OPENS,
	[PSTRIPE_MIB_FALLBACKS]		= PSOCK_A_COUNTERS_FALLBACKS,
	[PSTRIPE_MIB_HANDSHAKE_FAILS]	= PSOCK_A_COUNTERS_HANDSHAKE_FAILS,
	[PSTRIPE_MIB_SUBFLOWS_OPENED]	= PSOCK_A_COUNTERS_SUBFLOWS_OPENED,
	[PSTRIPE_MIB_SUBFLOWS_JOINED]	= PSOCK_A_COUNTERS_SUBFLOWS_JOINED,
	[PSTRIPE_MIB_BLOCKS_SENT]	= PSOCK_A_COUNTERS_BLOCKS_SENT,
	[PSTRIPE_MIB_BLOCKS_RECEIVED]	= PSOCK_A_COUNTERS_BLOCKS_RECEIVED,
	[PSTRIPE_MIB_BLOCKS_COPIED]	= PSOCK_A_COUNTERS_BLOCKS_COPIED,
	[PSTRIPE_MIB_CLOSE_TIMEOUTS]	= PSOCK_A_COUNTERS_CLOSE_TIMEOUTS,
	[PSTRIPE_MIB_LISTEN_OVERFLOWS]	= PSOCK_A_COUNTERS_LISTEN_OVERFLOWS,
	[PSTRIPE_MIB_JOINS_MISSING]	= PSOCK_A_COUNTERS_JOINS_MISSING,
	[PSTRIPE_MIB_RESENDS]		= PSOCK_A_COUNTERS_RESENDS,
	[PSTRIPE_MIB_SUBFLOWS_LOST_TIMEOUT] =
		PSOCK_A_COUNTERS_SUBFLOWS_LOST_TIMEOUT,
	[PSTRIPE_MIB_SUBFLOWS_LOST_ERROR] = PSOCK_A_COUNTERS_SUBFLOWS_LOST_ERROR,
	[PSTRIPE_MIB_SUBFLOWS_REOPENED]	= PSOCK_A_COUNTERS_SUBFLOWS_REOPENED,
	[PSTRIPE_MIB_DUPS_DROPPED]	= PSOCK_A_COUNTERS_DUPS_DROPPED,
	[PSTRIPE_MIB_JOINS_REFUSED]	= PSOCK_A_COUNTERS_JOINS_REFUSED,
	[PSTRIPE_MIB_ABORTS]		= PSOCK_A_COUNTERS_ABORTS,
};

int psock_nl_counters_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	unsigned long sum[PSTRIPE_MIB_MAX];
	struct sk_buff *msg;
	void *hdr;
	int i;

	/* Every counter has an attribute, and only one. */
	BUILD_BUG_ON(PSOCK_A_COUNTERS_MAX - PSOCK_A_COUNTERS_PAD !=
		     PSTRIPE_MIB_MAX);

	msg = genlmsg_new(PSTRIPE_MIB_MAX * nla_total_size_64bit(sizeof(u64)),
			  GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &pstripe_nl_family, 0,
				PSOCK_CMD_COUNTERS_GET);
	if (!hdr)
		goto err_msg;
	pstripe_mib_sum(genl_info_net(info), sum);
	for (i = 0; i < PSTRIPE_MIB_MAX; i++)
		if (nla_put_u64_64bit(msg, pstripe_nl_counter_attr[i], sum[i],
				      PSOCK_A_COUNTERS_PAD))
			goto err_msg;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_msg:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

/* ---- events ---- */

enum {
	PSTRIPE_NLGRP_EVENTS,
};

/*
 * Not in the spec: the generator writes a group table only with a family
 * struct, which it does not write for genetlink-legacy.
 */
static const struct genl_multicast_group pstripe_nl_mcgrps[] = {
	[PSTRIPE_NLGRP_EVENTS] = { .name = PSOCK_MCGRP_EVENTS, },
};

static int pstripe_nl_sf_fill(struct sk_buff *msg,
			      const struct pstripe_subflow *sf)
{
	const struct sock *ssk = sf->sock->sk;
	const struct inet_sock *inet = inet_sk(ssk);

	if (nla_put_u16(msg, PSOCK_A_SUBFLOW_EVENT_FAMILY, ssk->sk_family) ||
	    nla_put_be16(msg, PSOCK_A_SUBFLOW_EVENT_SPORT, inet->inet_sport) ||
	    nla_put_be16(msg, PSOCK_A_SUBFLOW_EVENT_DPORT, inet->inet_dport) ||
	    nla_put_u8(msg, PSOCK_A_SUBFLOW_EVENT_INDEX, sf->index))
		return -EMSGSIZE;
#if IS_ENABLED(CONFIG_IPV6)
	if (ssk->sk_family == AF_INET6)
		return nla_put_in6_addr(msg, PSOCK_A_SUBFLOW_EVENT_SADDR6,
					&ssk->sk_v6_rcv_saddr) ?:
		       nla_put_in6_addr(msg, PSOCK_A_SUBFLOW_EVENT_DADDR6,
					&ssk->sk_v6_daddr);
#endif
	return nla_put_in_addr(msg, PSOCK_A_SUBFLOW_EVENT_SADDR4,
			       inet->inet_saddr) ?:
	       nla_put_in_addr(msg, PSOCK_A_SUBFLOW_EVENT_DADDR4,
			       inet->inet_daddr);
}

/*
 * Tells the namespace's listeners about @sf.  Called under the owner's
 * socket lock, maybe with bottom halves off: nothing sleeps.  An event
 * that cannot be allocated is lost, as any netlink notification.
 */
static void pstripe_nl_sf_event(struct pstripe_subflow *sf, u8 cmd, int err)
{
	struct net *net = sock_net(sf->sock->sk);
	struct sk_buff *msg;
	void *hdr;

	if (!genl_has_listeners(&pstripe_nl_family, net, PSTRIPE_NLGRP_EVENTS))
		return;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_ATOMIC);
	if (!msg)
		return;
	hdr = genlmsg_put(msg, 0, 0, &pstripe_nl_family, 0, cmd);
	if (!hdr || pstripe_nl_sf_fill(msg, sf) ||
	    (cmd == PSOCK_CMD_SUBFLOW_CLOSED &&
	     nla_put_u32(msg, PSOCK_A_SUBFLOW_EVENT_ERROR, err < 0 ? -err : err))) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_end(msg, hdr);
	genlmsg_multicast_netns(&pstripe_nl_family, net, msg, 0,
				PSTRIPE_NLGRP_EVENTS, GFP_ATOMIC);
}

/* @sf is part of a connection that completed its handshake. */
void pstripe_nl_sf_established(struct pstripe_subflow *sf)
{
	if (!sf || sf->nl_up)
		return;
	sf->nl_up = true;
	pstripe_nl_sf_event(sf, PSOCK_CMD_SUBFLOW_ESTABLISHED, 0);
}

/*
 * @sf leaves its connection, failed with -@err or closed (0); only a
 * subflow announced as established is announced closed, once.
 */
void pstripe_nl_sf_closed(struct pstripe_subflow *sf, int err)
{
	if (!sf || !sf->nl_up)
		return;
	sf->nl_up = false;
	pstripe_nl_sf_event(sf, PSOCK_CMD_SUBFLOW_CLOSED, err);
}

/* ---- registration ---- */

static struct genl_family pstripe_nl_family __ro_after_init = {
	.name		= PSOCK_FAMILY_NAME,
	.version	= PSOCK_FAMILY_VERSION,
	.netnsok	= true,
	.parallel_ops	= true,
	.module		= THIS_MODULE,
	.ops		= psock_nl_ops,
	.n_ops		= ARRAY_SIZE(psock_nl_ops),
	.mcgrps		= pstripe_nl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(pstripe_nl_mcgrps),
};

static int __net_init pstripe_nl_init_net(struct net *net)
{
	struct pstripe_nl_net *nn = pstripe_nl_net(net);

	mutex_init(&nn->lock);
	INIT_LIST_HEAD(&nn->endpoints);
	return 0;
}

static void __net_exit pstripe_nl_exit_net(struct net *net)
{
	struct pstripe_nl_net *nn = pstripe_nl_net(net);
	struct pstripe_endpoint *ep, *tmp;

	/* No request can reach a namespace on its way out. */
	mutex_lock(&nn->lock);
	list_for_each_entry_safe(ep, tmp, &nn->endpoints, list)
		__pstripe_ep_free(nn, ep);
	mutex_unlock(&nn->lock);
	mutex_destroy(&nn->lock);
}

static struct pernet_operations pstripe_nl_net_ops = {
	.init	= pstripe_nl_init_net,
	.exit	= pstripe_nl_exit_net,
	.id	= &pstripe_nl_net_id,
	.size	= sizeof(struct pstripe_nl_net),
};

int __init pstripe_netlink_init(void)
{
	int err;

	err = register_pernet_subsys(&pstripe_nl_net_ops);
	if (err)
		return err;
	err = genl_register_family(&pstripe_nl_family);
	if (err)
		goto err_pernet;
	return 0;

err_pernet:
	unregister_pernet_subsys(&pstripe_nl_net_ops);
	return err;
}

void pstripe_netlink_exit(void)
{
	genl_unregister_family(&pstripe_nl_family);
	unregister_pernet_subsys(&pstripe_nl_net_ops);
}
