// SPDX-License-Identifier: GPL-2.0
/*
 * The "hicn" generic netlink family: the configuration plane of AF_HICN.
 * Documentation/netlink/specs/hicn.yaml describes it; netlink_gen.c
 * (policies, op table) and <uapi/linux/hicn_netlink.h> are generated from
 * it with the kernel's tools/net/ynl/ynl-gen-c.py (make netlink-gen).
 * This file holds the handlers.
 *
 * Objects, all per network namespace (genl_info_net() / sock_net()):
 *
 *   namespaces  the producers' claims: the bound producer sockets on
 *               hicn_net.sockets, read under hicn_net.lock as
 *               /proc/net/hicn reads them
 *   cs          the content store: its numbers (hicn_stat_read()), its
 *               capacity (the sysctls cs_max_entries and cs_mem_max), a
 *               flush, and its entries (hicn_cs_walk())
 *   pit         the PIT's numbers
 *   limits      the net.hicn sysctls: the same ints and longs, with the
 *               same ranges, errno and ceiling (pernet.c)
 *   counters    the lines of /proc/net/hicn_stat
 *   faces, routes, strategies: netlink_route.c
 *   events      on the multicast group HICN_MCGRP_EVENTS of the
 *               object's namespace: namespace claimed / released (here),
 *               UDP face added / deleted / up / down (netlink_face.c),
 *               route next hop added / deleted (netlink_route.c); built
 *               only when the group has a listener
 *
 * Permissions: the op table flags every request that changes state with
 * GENL_UNS_ADMIN_PERM (CAP_NET_ADMIN in the user namespace owning the
 * network namespace); reading needs nothing.  Uids are given in the user
 * namespace that owns the network namespace.
 *
 * Locking: the family has parallel_ops, so no genl_mutex.  The handlers
 * take hicn_net.lock (a mutex, namespaces) or the tables' own locks
 * through the functions of cs.c and proc.c; none is held across a call
 * into netlink that may sleep.  The limits are single ints and longs,
 * read with READ_ONCE() and written with WRITE_ONCE(), as the sysctl
 * handler does.  The namespace events are sent from bind() and close()
 * (process context, under the socket's lock) and allocate with
 * GFP_KERNEL; the face events are sent under hicn_net.lock (process
 * context: netlink requests, the rx work, the link work), GFP_KERNEL;
 * the route events under hicn_net.fib_lock (BH off), GFP_ATOMIC, so that
 * they leave in the order the FIB changed.
 *
 * Errors: every request a user gets wrong fails with an errno and an
 * extack message; when an attribute is at fault the message points at it,
 * and a missing attribute is reported as missing (NL_SET_ERR_ATTR_MISS).
 */

#include <linux/jiffies.h>
#include <linux/limits.h>
#include <linux/user_namespace.h>
#include <net/genetlink.h>
#include <net/ipv6.h>

#include "hicn.h"
#include "netlink.h"
#include "netlink_gen.h"

/*
 * The prefix of a request: see netlink.h.  Return: 0, or -EINVAL: one of
 * the two without the other, a length over HICN_PREFIX_LEN_MAX.
 */
int hicn_nl_prefix(struct netlink_ext_ack *extack, struct nlattr **attrs,
		   int a_prefix, int a_len, bool required,
		   struct in6_addr *prefix, unsigned int *plen)
{
	int err;

	*plen = 0;
	memset(prefix, 0, sizeof(*prefix));
	if (!required && !attrs[a_prefix] && !attrs[a_len])
		return 0;
	err = hicn_nl_require(extack, attrs, a_prefix, "missing prefix");
	if (err)
		return err;
	err = hicn_nl_require(extack, attrs, a_len, "missing prefix length");
	if (err)
		return err;
	*plen = nla_get_u8(attrs[a_len]);
	if (*plen > HICN_PREFIX_LEN_MAX) {
		NL_SET_ERR_MSG_ATTR(extack, attrs[a_len],
				    "prefix length over 128");
		return -EINVAL;
	}
	ipv6_addr_prefix(prefix, nla_data(attrs[a_prefix]), *plen);
	return 0;
}

/* ---- namespaces ---- */

/*
 * A producer's claim, for @hs on hicn_net.sockets under hicn_net.lock (or
 * its own socket lock): bound, so its claim and name are set.
 */
static bool hicn_nl_is_claim(const struct hicn_sock *hs)
{
	return hs->sk.sk_type == SOCK_PROD && hs->bound && hs->claim;
}

/* The attributes of an event and of a dump: who claimed what. */
static int hicn_nl_ns_fill_id(struct sk_buff *msg, struct hicn_sock *hs)
{
	struct sock *sk = &hs->sk;

	if (nla_put_in6_addr(msg, HICN_A_NAMESPACE_PREFIX, &hs->name.sin_addr) ||
	    nla_put_u8(msg, HICN_A_NAMESPACE_PREFIX_LEN, hs->name.sin_prefix) ||
	    nla_put_u32(msg, HICN_A_NAMESPACE_UID,
			from_kuid_munged(sock_net(sk)->user_ns, sk_uid(sk))) ||
	    nla_put_u64_64bit(msg, HICN_A_NAMESPACE_INODE, (u64)sock_i_ino(sk),
			      HICN_A_NAMESPACE_PAD) ||
	    nla_put_u32(msg, HICN_A_NAMESPACE_FACE_ID, hs->face->id))
		return -EMSGSIZE;
	return 0;
}

/* A claim and what its producer holds (hicn_net.lock held). */
static int hicn_nl_ns_fill(struct sk_buff *msg, struct hicn_sock *hs)
{
	if (hicn_nl_ns_fill_id(msg, hs) ||
	    nla_put_u32(msg, HICN_A_NAMESPACE_NAMES,
			atomic_read(&hs->prod.names.nelems)) ||
	    nla_put_u32(msg, HICN_A_NAMESPACE_VERSIONS,
			READ_ONCE(hs->prod.nversions)) ||
	    nla_put_u64_64bit(msg, HICN_A_NAMESPACE_MEM,
			      READ_ONCE(hs->sk.sk_wmem_queued),
			      HICN_A_NAMESPACE_PAD))
		return -EMSGSIZE;
	return 0;
}

int hicn_nl_namespace_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct hicn_net *hn = hicn_pernet(genl_info_net(info));
	struct hicn_sock *hs, *found = NULL;
	struct in6_addr prefix;
	struct sk_buff *msg;
	unsigned int plen;
	void *hdr;
	int err;

	err = hicn_nl_prefix(info->extack, info->attrs,
			     HICN_A_NAMESPACE_PREFIX,
			     HICN_A_NAMESPACE_PREFIX_LEN, true, &prefix, &plen);
	if (err)
		return err;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &hicn_nl_family, 0,
				HICN_CMD_NAMESPACE_GET);
	if (!hdr) {
		err = -EMSGSIZE;
		goto err_msg;
	}

	mutex_lock(&hn->lock);
	list_for_each_entry(hs, &hn->sockets, node) {
		if (hicn_nl_is_claim(hs) && hs->name.sin_prefix == plen &&
		    ipv6_addr_equal(&hs->name.sin_addr, &prefix)) {
			found = hs;
			break;
		}
	}
	if (found) {
		err = hicn_nl_ns_fill(msg, found);
	} else {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[HICN_A_NAMESPACE_PREFIX],
				    "no namespace claimed with this prefix");
		err = -ENOENT;
	}
	mutex_unlock(&hn->lock);
	if (err)
		goto err_msg;

	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_msg:
	nlmsg_free(msg);
	return err;
}

/*
 * One message per claim, in the order of the namespace's socket list.
 * cb->args[0] is the number of claims already sent, where the next call
 * resumes.
 */
int hicn_nl_namespace_get_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb)
{
	struct hicn_net *hn = hicn_pernet(sock_net(skb->sk));
	struct hicn_sock *hs;
	long idx = 0;
	int err = 0;
	void *hdr;

	mutex_lock(&hn->lock);
	list_for_each_entry(hs, &hn->sockets, node) {
		if (!hicn_nl_is_claim(hs))
			continue;
		if (idx++ < cb->args[0])
			continue;
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &hicn_nl_family,
				  NLM_F_MULTI, HICN_CMD_NAMESPACE_GET);
		if (!hdr) {
			err = -EMSGSIZE;
			break;
		}
		err = hicn_nl_ns_fill(skb, hs);
		if (err) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
		cb->args[0] = idx;
	}
	mutex_unlock(&hn->lock);

	/* A full skb ends this part; netlink calls again for the rest. */
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ?: skb->len;
}

/* ---- events ---- */

/*
 * Not in the spec: the generator writes a group table only with a family
 * struct, which it does not write for genetlink-legacy.
 */
static const struct genl_multicast_group hicn_nl_mcgrps[] = {
	[HICN_NLGRP_EVENTS] = { .name = HICN_MCGRP_EVENTS, },
};

/**
 * hicn_nl_event_new() - a message for the events group, if anyone listens
 * @net: the namespace whose listeners get it
 * @cmd: HICN_CMD_* of the event
 * @size: room for its attributes (NLMSG_GOODSIZE when unsure)
 * @gfp: GFP_KERNEL, or GFP_ATOMIC in atomic context
 * @hdr: where the generic netlink header goes
 *
 * Return: the message, or NULL when the group has no listener in @net or
 * without memory: an event that cannot be allocated is lost, as any
 * netlink notification.
 */
struct sk_buff *hicn_nl_event_new(struct net *net, u8 cmd, size_t size,
				  gfp_t gfp, void **hdr)
{
	struct sk_buff *msg;

	if (!genl_has_listeners(&hicn_nl_family, net, HICN_NLGRP_EVENTS))
		return NULL;
	msg = genlmsg_new(size, gfp);
	if (!msg)
		return NULL;
	*hdr = genlmsg_put(msg, 0, 0, &hicn_nl_family, 0, cmd);
	if (!*hdr) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/**
 * hicn_nl_event_send() - end an event and send it to @net's listeners
 * @net: the namespace
 * @msg: from hicn_nl_event_new(), filled
 * @hdr: its header
 * @gfp: as for hicn_nl_event_new()
 */
void hicn_nl_event_send(struct net *net, struct sk_buff *msg, void *hdr,
			gfp_t gfp)
{
	genlmsg_end(msg, hdr);
	genlmsg_multicast_netns(&hicn_nl_family, net, msg, 0,
				HICN_NLGRP_EVENTS, gfp);
}

/**
 * hicn_nl_ns_event() - tell the namespace's listeners about a claim
 * @hs: a producer socket whose claim was just made, or is about to end
 *	(its socket lock held; process context)
 * @claimed: claimed (bind()) or released (close())
 */
void hicn_nl_ns_event(struct hicn_sock *hs, bool claimed)
{
	struct net *net = sock_net(&hs->sk);
	struct sk_buff *msg;
	void *hdr;

	msg = hicn_nl_event_new(net, claimed ? HICN_CMD_NAMESPACE_CLAIMED :
					       HICN_CMD_NAMESPACE_RELEASED,
				NLMSG_GOODSIZE, GFP_KERNEL, &hdr);
	if (!msg)
		return;
	if (hicn_nl_ns_fill_id(msg, hs)) {
		nlmsg_free(msg);
		return;
	}
	hicn_nl_event_send(net, msg, hdr, GFP_KERNEL);
}

/* ---- limits (and the content store's capacity) ---- */

/*
 * Reads limit @attr (a u32 or u64 attribute, @type its value type: int
 * or long) into @val when the request has it: 1 if it does, 0 if not.
 * Out of @min..the type's maximum it is -EINVAL; above *@ceil when @ceil
 * is not NULL it is -EPERM, with @rmsg or @cmsg (string literals) naming
 * the attribute.  These are hicn_limit_sysctl()'s ranges and errno.
 */
#define hicn_nl_limit(info, attr, type, min, ceil, rmsg, cmsg, val) ({ \
	struct genl_info *__info = (info);				\
	struct nlattr *__a = __info->attrs[attr];			\
	const type *__ceil = (ceil);					\
	u64 __v;							\
	int __ret = 0;							\
									\
	if (__a) {							\
		__v = sizeof(type) == sizeof(int) ?			\
			nla_get_u32(__a) : nla_get_u64(__a);		\
		if (__v < (min) ||					\
		    __v > (sizeof(type) == sizeof(int) ?		\
			   (u64)INT_MAX : (u64)LONG_MAX)) {		\
			NL_SET_ERR_MSG_ATTR(__info->extack, __a,	\
					    rmsg);			\
			__ret = -EINVAL;				\
		} else if (__ceil && __v > (u64)READ_ONCE(*__ceil)) {	\
			NL_SET_ERR_MSG_ATTR(__info->extack, __a, cmsg);	\
			__ret = -EPERM;					\
		} else {						\
			*(val) = __v;					\
			__ret = 1;					\
		}							\
	}								\
	__ret;								\
})

/*
 * The ceiling of a netns-wide limit: in a namespace owned by a non-initial
 * user namespace, the initial namespace's value when it was made
 * (hicn_net.ceil, pernet.c); none otherwise.
 */
#define hicn_nl_ceil(net, hn, field)					\
	((net)->user_ns != &init_user_ns ? &(hn)->ceil.field : NULL)

/*
 * The limits a request sets: each value (the type of its hicn_net field),
 * and set_<value> when the request has it.
 */
struct hicn_nl_limits {
	int	pit_max, cs_max_entries, prefix_min, pit_user_max;
	long	cs_mem_max, prod_mem_max, prod_user_mem_max;
	bool	set_pit_max, set_cs_max_entries, set_prefix_min;
	bool	set_pit_user_max, set_cs_mem_max, set_prod_mem_max;
	bool	set_prod_user_mem_max;
};

/* Checks every value of a cs-set request; writes nothing. */
static int hicn_nl_parse_cs(struct genl_info *info, struct hicn_nl_limits *l)
{
	struct net *net = genl_info_net(info);
	struct hicn_net *hn = hicn_pernet(net);
	int ret;

	ret = hicn_nl_limit(info, HICN_A_CS_MAX_ENTRIES, int, 0,
			    hicn_nl_ceil(net, hn, cs_max_entries),
			    "max-entries out of range",
			    "max-entries above the initial namespace's limit",
			    &l->cs_max_entries);
	if (ret < 0)
		return ret;
	l->set_cs_max_entries = ret;
	ret = hicn_nl_limit(info, HICN_A_CS_MEM_MAX, long, 0,
			    hicn_nl_ceil(net, hn, cs_mem_max),
			    "mem-max out of range",
			    "mem-max above the initial namespace's limit",
			    &l->cs_mem_max);
	if (ret < 0)
		return ret;
	l->set_cs_mem_max = ret;
	return 0;
}

/* Checks every value of a limits-set request; writes nothing. */
static int hicn_nl_parse_limits(struct genl_info *info,
				struct hicn_nl_limits *l)
{
	struct net *net = genl_info_net(info);
	struct hicn_net *hn = hicn_pernet(net);
	int ret;

	ret = hicn_nl_limit(info, HICN_A_LIMITS_PIT_MAX, int, 0,
			    hicn_nl_ceil(net, hn, pit_max),
			    "pit-max out of range",
			    "pit-max above the initial namespace's limit",
			    &l->pit_max);
	if (ret < 0)
		return ret;
	l->set_pit_max = ret;
	ret = hicn_nl_limit(info, HICN_A_LIMITS_CS_MAX_ENTRIES, int, 0,
			    hicn_nl_ceil(net, hn, cs_max_entries),
			    "cs-max-entries out of range",
			    "cs-max-entries above the initial namespace's limit",
			    &l->cs_max_entries);
	if (ret < 0)
		return ret;
	l->set_cs_max_entries = ret;
	ret = hicn_nl_limit(info, HICN_A_LIMITS_CS_MEM_MAX, long, 0,
			    hicn_nl_ceil(net, hn, cs_mem_max),
			    "cs-mem-max out of range",
			    "cs-mem-max above the initial namespace's limit",
			    &l->cs_mem_max);
	if (ret < 0)
		return ret;
	l->set_cs_mem_max = ret;
	ret = hicn_nl_limit(info, HICN_A_LIMITS_PROD_MEM_MAX, long, 0,
			    hicn_nl_ceil(net, hn, prod_mem_max),
			    "prod-mem-max out of range",
			    "prod-mem-max above the initial namespace's limit",
			    &l->prod_mem_max);
	if (ret < 0)
		return ret;
	l->set_prod_mem_max = ret;
	/* Not a netns-wide memory limit: no ceiling, as for the sysctl. */
	ret = hicn_nl_limit(info, HICN_A_LIMITS_UNPRIVILEGED_PREFIX_MIN, int, 0,
			    (const int *)NULL,
			    "unprivileged-prefix-min out of range",
			    "unprivileged-prefix-min has no ceiling",
			    &l->prefix_min);
	if (ret < 0)
		return ret;
	if (ret && l->prefix_min > HICN_PREFIX_MAX) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[HICN_A_LIMITS_UNPRIVILEGED_PREFIX_MIN],
				    "unprivileged-prefix-min out of range");
		return -EINVAL;
	}
	l->set_prefix_min = ret;
	ret = hicn_nl_limit(info, HICN_A_LIMITS_PIT_USER_MAX, int, 1,
			    hicn_nl_ceil(net, hn, pit_user_max),
			    "pit-user-max out of range",
			    "pit-user-max above the initial namespace's limit",
			    &l->pit_user_max);
	if (ret < 0)
		return ret;
	l->set_pit_user_max = ret;
	ret = hicn_nl_limit(info, HICN_A_LIMITS_PROD_USER_MEM_MAX, long, 0,
			    hicn_nl_ceil(net, hn, prod_user_mem_max),
			    "prod-user-mem-max out of range",
			    "prod-user-mem-max above the initial namespace's limit",
			    &l->prod_user_mem_max);
	if (ret < 0)
		return ret;
	l->set_prod_user_mem_max = ret;
	return 0;
}

/* Writes what @l sets, then applies a new CS capacity as the sysctl does. */
static void hicn_nl_write_limits(struct hicn_net *hn,
				 const struct hicn_nl_limits *l)
{
	if (l->set_pit_max)
		WRITE_ONCE(hn->pit_max, l->pit_max);
	if (l->set_cs_max_entries)
		WRITE_ONCE(hn->cs_max_entries, l->cs_max_entries);
	if (l->set_cs_mem_max)
		WRITE_ONCE(hn->cs_mem_max, l->cs_mem_max);
	if (l->set_prod_mem_max)
		WRITE_ONCE(hn->prod_mem_max, l->prod_mem_max);
	if (l->set_prefix_min)
		WRITE_ONCE(hn->unprivileged_prefix_min, l->prefix_min);
	if (l->set_pit_user_max)
		WRITE_ONCE(hn->pit_user_max, l->pit_user_max);
	if (l->set_prod_user_mem_max)
		WRITE_ONCE(hn->prod_user_mem_max, l->prod_user_mem_max);
	if (l->set_cs_max_entries || l->set_cs_mem_max)
		hicn_cs_limits_changed(hn);
}

int hicn_nl_limits_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct hicn_nl_limits l = {};
	int err;

	/* Every value is checked before any is written. */
	err = hicn_nl_parse_limits(info, &l);
	if (err)
		return err;
	if (!l.set_pit_max && !l.set_cs_max_entries && !l.set_cs_mem_max &&
	    !l.set_prod_mem_max && !l.set_prefix_min && !l.set_pit_user_max &&
	    !l.set_prod_user_mem_max) {
		NL_SET_ERR_MSG(info->extack, "no limit to set");
		return -EINVAL;
	}
	hicn_nl_write_limits(hicn_pernet(genl_info_net(info)), &l);
	return 0;
}

int hicn_nl_limits_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct hicn_net *hn = hicn_pernet(genl_info_net(info));
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &hicn_nl_family, 0,
				HICN_CMD_LIMITS_GET);
	if (!hdr ||
	    nla_put_u32(msg, HICN_A_LIMITS_PIT_MAX, READ_ONCE(hn->pit_max)) ||
	    nla_put_u32(msg, HICN_A_LIMITS_CS_MAX_ENTRIES,
			READ_ONCE(hn->cs_max_entries)) ||
	    nla_put_u64_64bit(msg, HICN_A_LIMITS_CS_MEM_MAX,
			      READ_ONCE(hn->cs_mem_max), HICN_A_LIMITS_PAD) ||
	    nla_put_u64_64bit(msg, HICN_A_LIMITS_PROD_MEM_MAX,
			      READ_ONCE(hn->prod_mem_max), HICN_A_LIMITS_PAD) ||
	    nla_put_u32(msg, HICN_A_LIMITS_UNPRIVILEGED_PREFIX_MIN,
			READ_ONCE(hn->unprivileged_prefix_min)) ||
	    nla_put_u32(msg, HICN_A_LIMITS_PIT_USER_MAX,
			READ_ONCE(hn->pit_user_max)) ||
	    nla_put_u64_64bit(msg, HICN_A_LIMITS_PROD_USER_MEM_MAX,
			      READ_ONCE(hn->prod_user_mem_max),
			      HICN_A_LIMITS_PAD)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/* ---- counters, PIT and CS numbers ---- */

/*
 * Replies to @info with @cmd carrying @n of the hicn_stat values: value
 * @items[i] as attribute @attrs[i], u64 when @wide[i] (padded with @pad),
 * u32 otherwise.  NULL @attrs: every value, attribute @pad + 1 + i.
 */
static int hicn_nl_stat_reply(struct genl_info *info, u8 cmd, int pad,
			      const u8 *items, const u8 *attrs,
			      const bool *wide, int n)
{
	u64 val[HICN_STAT_NUM];
	struct sk_buff *msg;
	void *hdr;
	int i, err = 0;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &hicn_nl_family, 0, cmd);
	if (!hdr)
		goto err_msg;
	hicn_stat_read(hicn_pernet(genl_info_net(info)), val);
	for (i = 0; i < n && !err; i++) {
		if (!attrs)
			err = nla_put_u64_64bit(msg, pad + 1 + i, val[i], pad);
		else if (wide[i])
			err = nla_put_u64_64bit(msg, attrs[i], val[items[i]],
						pad);
		else
			err = nla_put_u32(msg, attrs[i], val[items[i]]);
	}
	if (err)
		goto err_msg;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_msg:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

int hicn_nl_counters_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	/* Every line of hicn_stat has an attribute, in the same order. */
	BUILD_BUG_ON(HICN_A_COUNTERS_MAX - HICN_A_COUNTERS_PAD !=
		     HICN_STAT_NUM);

	return hicn_nl_stat_reply(info, HICN_CMD_COUNTERS_GET,
				  HICN_A_COUNTERS_PAD, NULL, NULL, NULL,
				  HICN_STAT_NUM);
}

int hicn_nl_pit_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	static const u8 items[] = {
		HICN_STAT_PIT_ENTRIES, HICN_STAT_PIT_MAX,
		HICN_STAT_PIT_AGGREGATED, HICN_STAT_PIT_DROPS,
		HICN_STAT_PIT_EXPIRED, HICN_STAT_PIT_USER_MAX,
		HICN_STAT_PIT_USER_DROPS,
	};
	static const u8 attrs[] = {
		HICN_A_PIT_ENTRIES, HICN_A_PIT_ENTRIES_MAX,
		HICN_A_PIT_AGGREGATED, HICN_A_PIT_DROPS,
		HICN_A_PIT_EXPIRED, HICN_A_PIT_USER_MAX,
		HICN_A_PIT_USER_DROPS,
	};
	static const bool wide[] = {
		false, false, true, true, true, false, true,
	};

	BUILD_BUG_ON(ARRAY_SIZE(items) != ARRAY_SIZE(attrs) ||
		     ARRAY_SIZE(items) != ARRAY_SIZE(wide));
	return hicn_nl_stat_reply(info, HICN_CMD_PIT_GET, HICN_A_PIT_PAD,
				  items, attrs, wide, ARRAY_SIZE(items));
}

int hicn_nl_cs_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	static const u8 items[] = {
		HICN_STAT_CS_ENTRIES, HICN_STAT_CS_BYTES,
		HICN_STAT_CS_MAX_ENTRIES, HICN_STAT_CS_MEM_MAX,
		HICN_STAT_CS_HITS, HICN_STAT_CS_MISSES,
		HICN_STAT_CS_EVICTIONS,
	};
	static const u8 attrs[] = {
		HICN_A_CS_ENTRIES, HICN_A_CS_BYTES,
		HICN_A_CS_MAX_ENTRIES, HICN_A_CS_MEM_MAX,
		HICN_A_CS_HITS, HICN_A_CS_MISSES,
		HICN_A_CS_EVICTIONS,
	};
	static const bool wide[] = {
		false, true, false, true, true, true, true,
	};

	BUILD_BUG_ON(ARRAY_SIZE(items) != ARRAY_SIZE(attrs) ||
		     ARRAY_SIZE(items) != ARRAY_SIZE(wide));
	return hicn_nl_stat_reply(info, HICN_CMD_CS_GET, HICN_A_CS_PAD,
				  items, attrs, wide, ARRAY_SIZE(items));
}

/* ---- the content store ---- */

int hicn_nl_cs_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct hicn_nl_limits l = {};
	int err;

	err = hicn_nl_parse_cs(info, &l);
	if (err)
		return err;
	if (!l.set_cs_max_entries && !l.set_cs_mem_max) {
		NL_SET_ERR_MSG(info->extack, "no capacity to set");
		return -EINVAL;
	}
	hicn_nl_write_limits(hicn_pernet(genl_info_net(info)), &l);
	return 0;
}

int hicn_nl_cs_flush_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct in6_addr prefix;
	unsigned int plen;
	int err;

	err = hicn_nl_prefix(info->extack, info->attrs, HICN_A_CS_PREFIX,
			     HICN_A_CS_PREFIX_LEN, false, &prefix, &plen);
	if (err)
		return err;
	hicn_cs_flush_prefix(hicn_pernet(genl_info_net(info)), &prefix, plen);
	return 0;
}

/* Writes a CS entry's attributes (under cs_lock: nothing sleeps). */
static int hicn_nl_cs_entry_fill(struct sk_buff *msg,
				 const struct hicn_data *d)
{
	unsigned long now = jiffies;

	if (nla_put_in6_addr(msg, HICN_A_CS_ENTRY_NAME, &d->key.name) ||
	    nla_put_u32(msg, HICN_A_CS_ENTRY_VERSION, d->key.ver) ||
	    nla_put_u32(msg, HICN_A_CS_ENTRY_SEGMENT, d->key.seg) ||
	    nla_put_u32(msg, HICN_A_CS_ENTRY_FINAL_SEGMENT, d->final_seg) ||
	    nla_put_u32(msg, HICN_A_CS_ENTRY_SIZE, d->len) ||
	    nla_put_u64_64bit(msg, HICN_A_CS_ENTRY_OBJECT_SIZE, d->obj_len,
			      HICN_A_CS_ENTRY_PAD))
		return -EMSGSIZE;
	if (d->expires &&
	    nla_put_u32(msg, HICN_A_CS_ENTRY_EXPIRES_MS,
			time_after(d->expires, now) ?
			jiffies_to_msecs(d->expires - now) : 0))
		return -EMSGSIZE;
	return 0;
}

/**
 * struct hicn_nl_cs_walk - what the walk over the CS fills
 * @msg: the message (do) or the dump's skb
 * @cb: the dump, NULL for a do
 * @key: for a do, the exact name asked for
 * @found: for a do, the entry was met and written
 */
struct hicn_nl_cs_walk {
	struct sk_buff			*msg;
	struct netlink_callback		*cb;
	const struct hicn_key		*key;
	bool				found;
};

/* hicn_cs_walk_fn of cs-entry-get, do and dump. */
static int hicn_nl_cs_walk_one(const struct hicn_data *d, void *arg)
{
	struct hicn_nl_cs_walk *w = arg;
	struct netlink_callback *cb = w->cb;
	void *hdr;

	if (!cb) {
		if (d->key.ver != w->key->ver || d->key.seg != w->key->seg)
			return 1;
		w->found = true;
		return hicn_nl_cs_entry_fill(w->msg, d) ?: -ENOENT;
	}
	hdr = genlmsg_put(w->msg, NETLINK_CB(cb->skb).portid,
			  cb->nlh->nlmsg_seq, &hicn_nl_family, NLM_F_MULTI,
			  HICN_CMD_CS_ENTRY_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (hicn_nl_cs_entry_fill(w->msg, d)) {
		genlmsg_cancel(w->msg, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(w->msg, hdr);
	return 0;
}

int hicn_nl_cs_entry_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct hicn_net *hn = hicn_pernet(genl_info_net(info));
	struct nlattr **attrs = info->attrs;
	unsigned long cursor[2] = { 0, 0 };
	struct hicn_nl_cs_walk w = {};
	struct hicn_key key = {};
	void *hdr;
	int err;

	err = hicn_nl_require(info->extack, attrs, HICN_A_CS_ENTRY_NAME,
			      "missing name") ?:
	      hicn_nl_require(info->extack, attrs, HICN_A_CS_ENTRY_VERSION,
			      "missing version") ?:
	      hicn_nl_require(info->extack, attrs, HICN_A_CS_ENTRY_SEGMENT,
			      "missing segment");
	if (err)
		return err;
	key.name = nla_get_in6_addr(attrs[HICN_A_CS_ENTRY_NAME]);
	key.ver = nla_get_u32(attrs[HICN_A_CS_ENTRY_VERSION]);
	key.seg = nla_get_u32(attrs[HICN_A_CS_ENTRY_SEGMENT]);

	w.key = &key;
	w.msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!w.msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(w.msg, info, &hicn_nl_family, 0,
				HICN_CMD_CS_ENTRY_GET);
	if (!hdr) {
		err = -EMSGSIZE;
		goto err_msg;
	}
	err = hicn_cs_walk(hn, cursor, &key.name, HICN_PREFIX_MAX,
			   hicn_nl_cs_walk_one, &w);
	if (!w.found) {
		NL_SET_ERR_MSG_ATTR(info->extack, attrs[HICN_A_CS_ENTRY_NAME],
				    "no such entry in the content store");
		err = -ENOENT;
		goto err_msg;
	}
	if (err != -ENOENT)	/* -ENOENT: found, the walk stopped there */
		goto err_msg;
	genlmsg_end(w.msg, hdr);
	return genlmsg_reply(w.msg, info);

err_msg:
	nlmsg_free(w.msg);
	return err;
}

/*
 * One message per valid entry, bucket by bucket; cb->args[0] and [1] are
 * hicn_cs_walk()'s cursor: the bucket, and the position in its chain of
 * the entry the next call starts with.  The prefix of the request is
 * read again at each call (legacy dumps keep their parsed attributes).
 */
int hicn_nl_cs_entry_get_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb)
{
	struct hicn_net *hn = hicn_pernet(sock_net(skb->sk));
	struct hicn_nl_cs_walk w = { .msg = skb, .cb = cb };
	unsigned long cursor[2];
	struct in6_addr prefix;
	unsigned int plen;
	int err;

	err = hicn_nl_prefix(cb->extack, hicn_nl_dump_attrs(cb),
			     HICN_A_CS_ENTRY_PREFIX, HICN_A_CS_ENTRY_PREFIX_LEN,
			     false, &prefix, &plen);
	if (err)
		return err;

	cursor[0] = cb->args[0];
	cursor[1] = cb->args[1];
	err = hicn_cs_walk(hn, cursor, &prefix, plen, hicn_nl_cs_walk_one,
			   &w);
	cb->args[0] = cursor[0];
	cb->args[1] = cursor[1];

	/* A full skb ends this part; netlink calls again for the rest. */
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ?: skb->len;
}

/* ---- registration ---- */

struct genl_family hicn_nl_family __ro_after_init = {
	.name		= HICN_FAMILY_NAME,
	.version	= HICN_FAMILY_VERSION,
	.netnsok	= true,
	.parallel_ops	= true,
	.module		= THIS_MODULE,
	.ops		= hicn_nl_ops,
	.n_ops		= ARRAY_SIZE(hicn_nl_ops),
	.mcgrps		= hicn_nl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(hicn_nl_mcgrps),
};

int __init hicn_netlink_init(void)
{
	return genl_register_family(&hicn_nl_family);
}

void hicn_netlink_exit(void)
{
	genl_unregister_family(&hicn_nl_family);
}
