// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/psock.yaml */
/* YNL-GEN kernel source */

#include <net/netlink.h>
#include <net/genetlink.h>

#include "netlink_gen.h"

#include <uapi/linux/psock_netlink.h>

/* PSOCK_CMD_ENDPOINT_ADD - do */
const struct nla_policy psock_endpoint_add_nl_policy[PSOCK_A_ENDPOINT_FLAGS + 1] = {
	[PSOCK_A_ENDPOINT_ID] = NLA_POLICY_MIN(NLA_U8, 1),
	[PSOCK_A_ENDPOINT_FAMILY] = { .type = NLA_U16, },
	[PSOCK_A_ENDPOINT_ADDR4] = { .type = NLA_U32, },
	[PSOCK_A_ENDPOINT_ADDR6] = NLA_POLICY_EXACT_LEN(16),
	[PSOCK_A_ENDPOINT_IFINDEX] = { .type = NLA_S32, },
	[PSOCK_A_ENDPOINT_FLAGS] = NLA_POLICY_MASK(NLA_U32, 0x3),
};

/* PSOCK_CMD_ENDPOINT_DEL - do */
const struct nla_policy psock_endpoint_del_nl_policy[PSOCK_A_ENDPOINT_ID + 1] = {
	[PSOCK_A_ENDPOINT_ID] = NLA_POLICY_MIN(NLA_U8, 1),
};

/* PSOCK_CMD_ENDPOINT_GET - do */
const struct nla_policy psock_endpoint_get_nl_policy[PSOCK_A_ENDPOINT_ID + 1] = {
	[PSOCK_A_ENDPOINT_ID] = NLA_POLICY_MIN(NLA_U8, 1),
};

/* PSOCK_CMD_ENDPOINT_FLUSH - do */
const struct nla_policy psock_endpoint_flush_nl_policy[PSOCK_A_ENDPOINT_FAMILY + 1] = {
	[PSOCK_A_ENDPOINT_FAMILY] = { .type = NLA_U16, },
};

/* PSOCK_CMD_LIMITS_GET - do */
const struct nla_policy psock_limits_get_nl_policy[PSOCK_A_LIMITS_DRIVER + 1] = {
	[PSOCK_A_LIMITS_RCMD_STREAM_CNT] = { .type = NLA_U32, },
	[PSOCK_A_LIMITS_MAX_STREAM_CNT] = { .type = NLA_U32, },
	[PSOCK_A_LIMITS_DRIVER] = { .type = NLA_U32, },
};

/* PSOCK_CMD_LIMITS_SET - do */
const struct nla_policy psock_limits_set_nl_policy[PSOCK_A_LIMITS_DRIVER + 1] = {
	[PSOCK_A_LIMITS_RCMD_STREAM_CNT] = { .type = NLA_U32, },
	[PSOCK_A_LIMITS_MAX_STREAM_CNT] = { .type = NLA_U32, },
	[PSOCK_A_LIMITS_DRIVER] = { .type = NLA_U32, },
};

/* PSOCK_CMD_COUNTERS_GET - do */
const struct nla_policy psock_counters_get_nl_policy[PSOCK_A_COUNTERS_ABORTS + 1] = {
	[PSOCK_A_COUNTERS_ACTIVE_OPENS] = { .type = NLA_U64, },
	[PSOCK_A_COUNTERS_PASSIVE_OPENS] = { .type = NLA_U64, },
	[PSOCK_A_COUNTERS_FALLBACKS] = { .type = NLA_U64, },
	[PSOCK_A_COUNTERS_HANDSHAKE_FAILS] = { .type = NLA_U64, },
	[PSOCK_A_COUNTERS_SUBFLOWS_OPENED] = { .type = NLA_U64, },
	[PSOCK_A_COUNTERS_SUBFLOWS_JOINED] = { .type = NLA_U64, },
	[PSOCK_A_COUNTERS_BLOCKS_SENT] = { .type = NLA_U64, },
	[PSOCK_A_COUNTERS_BLOCKS_RECEIVED] = { .type = NLA_U64, },
	[PSOCK_A_COUNTERS_BLOCKS_COPIED] = { .type = NLA_U64, },
	[PSOCK_A_COUNTERS_CLOSE_TIMEOUTS] = { .type = NLA_U64, },
	[PSOCK_A_COUNTERS_LISTEN_OVERFLOWS] = { .type = NLA_U64, },
	[PSOCK_A_COUNTERS_JOINS_MISSING] = { .type = NLA_U64, },
	[PSOCK_A_COUNTERS_RESENDS] = { .type = NLA_U64, },
	[PSOCK_A_COUNTERS_SUBFLOWS_LOST_TIMEOUT] = { .type = NLA_U64, },
	[PSOCK_A_COUNTERS_SUBFLOWS_LOST_ERROR] = { .type = NLA_U64, },
	[PSOCK_A_COUNTERS_SUBFLOWS_REOPENED] = { .type = NLA_U64, },
	[PSOCK_A_COUNTERS_DUPS_DROPPED] = { .type = NLA_U64, },
	[PSOCK_A_COUNTERS_JOINS_REFUSED] = { .type = NLA_U64, },
	[PSOCK_A_COUNTERS_ABORTS] = { .type = NLA_U64, },
};

/* Ops table for psock */
const struct genl_ops psock_nl_ops[7] = {
	{
		.cmd		= PSOCK_CMD_ENDPOINT_ADD,
		.doit		= psock_nl_endpoint_add_doit,
		.policy		= psock_endpoint_add_nl_policy,
		.maxattr	= PSOCK_A_ENDPOINT_FLAGS,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= PSOCK_CMD_ENDPOINT_DEL,
		.doit		= psock_nl_endpoint_del_doit,
		.policy		= psock_endpoint_del_nl_policy,
		.maxattr	= PSOCK_A_ENDPOINT_ID,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= PSOCK_CMD_ENDPOINT_GET,
		.doit		= psock_nl_endpoint_get_doit,
		.dumpit		= psock_nl_endpoint_get_dumpit,
		.policy		= psock_endpoint_get_nl_policy,
		.maxattr	= PSOCK_A_ENDPOINT_ID,
	},
	{
		.cmd		= PSOCK_CMD_ENDPOINT_FLUSH,
		.doit		= psock_nl_endpoint_flush_doit,
		.policy		= psock_endpoint_flush_nl_policy,
		.maxattr	= PSOCK_A_ENDPOINT_FAMILY,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= PSOCK_CMD_LIMITS_GET,
		.doit		= psock_nl_limits_get_doit,
		.policy		= psock_limits_get_nl_policy,
		.maxattr	= PSOCK_A_LIMITS_DRIVER,
	},
	{
		.cmd		= PSOCK_CMD_LIMITS_SET,
		.doit		= psock_nl_limits_set_doit,
		.policy		= psock_limits_set_nl_policy,
		.maxattr	= PSOCK_A_LIMITS_DRIVER,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= PSOCK_CMD_COUNTERS_GET,
		.doit		= psock_nl_counters_get_doit,
		.policy		= psock_counters_get_nl_policy,
		.maxattr	= PSOCK_A_COUNTERS_ABORTS,
	},
};
