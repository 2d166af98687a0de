/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/hicn.yaml */
/* YNL-GEN kernel header */

#ifndef _LINUX_HICN_GEN_H
#define _LINUX_HICN_GEN_H

#include <net/netlink.h>
#include <net/genetlink.h>

#include <uapi/linux/hicn_netlink.h>

extern const struct nla_policy hicn_namespace_get_nl_policy[HICN_A_NAMESPACE_PREFIX_LEN + 1];

extern const struct nla_policy hicn_cs_get_nl_policy[HICN_A_CS_EVICTIONS + 1];

extern const struct nla_policy hicn_cs_set_nl_policy[HICN_A_CS_MEM_MAX + 1];

extern const struct nla_policy hicn_cs_flush_nl_policy[HICN_A_CS_PREFIX_LEN + 1];

extern const struct nla_policy hicn_cs_entry_get_nl_policy[HICN_A_CS_ENTRY_PREFIX_LEN + 1];

extern const struct nla_policy hicn_pit_get_nl_policy[HICN_A_PIT_USER_DROPS + 1];

extern const struct nla_policy hicn_limits_get_nl_policy[HICN_A_LIMITS_PROD_USER_MEM_MAX + 1];

extern const struct nla_policy hicn_limits_set_nl_policy[HICN_A_LIMITS_PROD_USER_MEM_MAX + 1];

extern const struct nla_policy hicn_counters_get_nl_policy[HICN_A_COUNTERS_DATA_ZEROCOPY + 1];

extern const struct nla_policy hicn_face_get_nl_policy[HICN_A_FACE_ID + 1];

extern const struct nla_policy hicn_route_get_nl_policy[HICN_A_ROUTE_PREFIX_LEN + 1];

extern const struct nla_policy hicn_route_add_nl_policy[HICN_A_ROUTE_COST + 1];

extern const struct nla_policy hicn_route_del_nl_policy[HICN_A_ROUTE_FACE_ID + 1];

extern const struct nla_policy hicn_strategy_set_nl_policy[HICN_A_ROUTE_STRATEGY + 1];

extern const struct nla_policy hicn_listener_get_nl_policy[HICN_A_LISTENER_ID + 1];

extern const struct nla_policy hicn_listener_add_nl_policy[HICN_A_LISTENER_AUTO_FACES + 1];

extern const struct nla_policy hicn_listener_del_nl_policy[HICN_A_LISTENER_ID + 1];

extern const struct nla_policy hicn_face_add_nl_policy[HICN_A_FACE_FORMAT + 1];

extern const struct nla_policy hicn_face_del_nl_policy[HICN_A_FACE_ID + 1];

/* Ops table for hicn */
extern const struct genl_ops hicn_nl_ops[19];

int hicn_nl_namespace_get_doit(struct sk_buff *skb, struct genl_info *info);
int hicn_nl_namespace_get_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb);
int hicn_nl_cs_get_doit(struct sk_buff *skb, struct genl_info *info);
int hicn_nl_cs_set_doit(struct sk_buff *skb, struct genl_info *info);
int hicn_nl_cs_flush_doit(struct sk_buff *skb, struct genl_info *info);
int hicn_nl_cs_entry_get_doit(struct sk_buff *skb, struct genl_info *info);
int hicn_nl_cs_entry_get_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb);
int hicn_nl_pit_get_doit(struct sk_buff *skb, struct genl_info *info);
int hicn_nl_limits_get_doit(struct sk_buff *skb, struct genl_info *info);
int hicn_nl_limits_set_doit(struct sk_buff *skb, struct genl_info *info);
int hicn_nl_counters_get_doit(struct sk_buff *skb, struct genl_info *info);
int hicn_nl_face_get_doit(struct sk_buff *skb, struct genl_info *info);
int hicn_nl_face_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int hicn_nl_route_get_doit(struct sk_buff *skb, struct genl_info *info);
int hicn_nl_route_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int hicn_nl_route_add_doit(struct sk_buff *skb, struct genl_info *info);
int hicn_nl_route_del_doit(struct sk_buff *skb, struct genl_info *info);
int hicn_nl_strategy_set_doit(struct sk_buff *skb, struct genl_info *info);
int hicn_nl_listener_get_doit(struct sk_buff *skb, struct genl_info *info);
int hicn_nl_listener_get_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb);
int hicn_nl_listener_add_doit(struct sk_buff *skb, struct genl_info *info);
int hicn_nl_listener_del_doit(struct sk_buff *skb, struct genl_info *info);
int hicn_nl_face_add_doit(struct sk_buff *skb, struct genl_info *info);
int hicn_nl_face_del_doit(struct sk_buff *skb, struct genl_info *info);

#endif /* _LINUX_HICN_GEN_H */
