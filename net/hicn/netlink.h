/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the handler files of the "hicn" generic netlink family share
 * (netlink.c, netlink_route.c).
 */
#ifndef _NET_HICN_NETLINK_H
#define _NET_HICN_NETLINK_H

#include <net/genetlink.h>

extern struct genl_family hicn_nl_family;

/* The family's multicast groups (netlink.c). */
enum {
	HICN_NLGRP_EVENTS,
};

/*
 * An event for the listeners of @net's "events" group: NULL when it has
 * none (or without memory), else a message of @size bytes of attributes
 * with its header written, to fill and give to hicn_nl_event_send().
 */
struct sk_buff *hicn_nl_event_new(struct net *net, u8 cmd, size_t size,
				  gfp_t gfp, void **hdr);
void hicn_nl_event_send(struct net *net, struct sk_buff *msg, void *hdr,
			gfp_t gfp);

/*
 * EINVAL when the request lacks @attr, with @msg (a string literal, as
 * NL_SET_ERR_MSG() wants) and @attr reported as the missing one.
 */
#define hicn_nl_require(extack, attrs, attr, msg) ({			\
	struct netlink_ext_ack *__ext = (extack);			\
	int __attr = (attr);						\
	int __err = 0;							\
									\
	if (!(attrs)[__attr]) {						\
		NL_SET_ERR_MSG(__ext, msg);				\
		NL_SET_ERR_ATTR_MISS(__ext, NULL, __attr);		\
		__err = -EINVAL;					\
	}								\
	__err;								\
})

/**
 * hicn_nl_prefix() - a prefix and its length from a request
 * @extack: for the error
 * @attrs: the request's attributes
 * @a_prefix: the prefix attribute (16 bytes, the policy checked)
 * @a_len: the prefix length attribute (u8)
 * @required: both must be there; else neither means everything (length 0)
 * @prefix: the prefix, host bits cleared
 * @plen: its length
 */
int hicn_nl_prefix(struct netlink_ext_ack *extack, struct nlattr **attrs,
		   int a_prefix, int a_len, bool required,
		   struct in6_addr *prefix, unsigned int *plen);

struct hicn_net;
struct hicn_face *hicn_nl_face_arg(struct hicn_net *hn, struct genl_info *info,
				   int attr);

#endif /* _NET_HICN_NETLINK_H */
