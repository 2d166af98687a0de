/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/psock.yaml */
/* YNL-GEN kernel header */

#ifndef _LINUX_PSOCK_GEN_H
#define _LINUX_PSOCK_GEN_H

#include <net/netlink.h>
#include <net/genetlink.h>

#include <uapi/linux/psock_netlink.h>

extern const struct nla_policy psock_endpoint_add_nl_policy[PSOCK_A_ENDPOINT_FLAGS + 1];

extern const struct nla_policy psock_endpoint_del_nl_policy[PSOCK_A_ENDPOINT_ID + 1];

extern const struct nla_policy psock_endpoint_get_nl_policy[PSOCK_A_ENDPOINT_ID + 1];

extern const struct nla_policy psock_endpoint_flush_nl_policy[PSOCK_A_ENDPOINT_FAMILY + 1];

extern const struct nla_policy psock_limits_get_nl_policy[PSOCK_A_LIMITS_DRIVER + 1];

extern const struct nla_policy psock_limits_set_nl_policy[PSOCK_A_LIMITS_DRIVER + 1];

extern const struct nla_policy psock_counters_get_nl_policy[PSOCK_A_COUNTERS_ABORTS + 1];

/* Ops table for psock */
extern const struct genl_ops psock_nl_ops[7];

int psock_nl_endpoint_add_doit(struct sk_buff *skb, struct genl_info *info);
int psock_nl_endpoint_del_doit(struct sk_buff *skb, struct genl_info *info);
int psock_nl_endpoint_get_doit(struct sk_buff *skb, struct genl_info *info);
int psock_nl_endpoint_get_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb);
int psock_nl_endpoint_flush_doit(struct sk_buff *skb, struct genl_info *info);
int psock_nl_limits_get_doit(struct sk_buff *skb, struct genl_info *info);
int psock_nl_limits_set_doit(struct sk_buff *skb, struct genl_info *info);
int psock_nl_counters_get_doit(struct sk_buff *skb, struct genl_info *info);

#endif /* _LINUX_PSOCK_GEN_H */
