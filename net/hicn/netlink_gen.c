// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/hicn.yaml */
/* YNL-GEN kernel source */

#include <net/netlink.h>
#include <net/genetlink.h>

#include "netlink_gen.h"

#include <uapi/linux/hicn_netlink.h>

/* HICN_CMD_NAMESPACE_GET - do */
const struct nla_policy hicn_namespace_get_nl_policy[HICN_A_NAMESPACE_PREFIX_LEN + 1] = {
	[HICN_A_NAMESPACE_PREFIX] = NLA_POLICY_EXACT_LEN(16),
	[HICN_A_NAMESPACE_PREFIX_LEN] = { .type = NLA_U8, },
};

/* HICN_CMD_CS_GET - do */
const struct nla_policy hicn_cs_get_nl_policy[HICN_A_CS_EVICTIONS + 1] = {
	[HICN_A_CS_ENTRIES] = { .type = NLA_U32, },
	[HICN_A_CS_BYTES] = { .type = NLA_U64, },
	[HICN_A_CS_MAX_ENTRIES] = { .type = NLA_U32, },
	[HICN_A_CS_MEM_MAX] = { .type = NLA_U64, },
	[HICN_A_CS_HITS] = { .type = NLA_U64, },
	[HICN_A_CS_MISSES] = { .type = NLA_U64, },
	[HICN_A_CS_EVICTIONS] = { .type = NLA_U64, },
};

/* HICN_CMD_CS_SET - do */
const struct nla_policy hicn_cs_set_nl_policy[HICN_A_CS_MEM_MAX + 1] = {
	[HICN_A_CS_MAX_ENTRIES] = { .type = NLA_U32, },
	[HICN_A_CS_MEM_MAX] = { .type = NLA_U64, },
};

/* HICN_CMD_CS_FLUSH - do */
const struct nla_policy hicn_cs_flush_nl_policy[HICN_A_CS_PREFIX_LEN + 1] = {
	[HICN_A_CS_PREFIX] = NLA_POLICY_EXACT_LEN(16),
	[HICN_A_CS_PREFIX_LEN] = { .type = NLA_U8, },
};

/* HICN_CMD_CS_ENTRY_GET - do */
const struct nla_policy hicn_cs_entry_get_nl_policy[HICN_A_CS_ENTRY_PREFIX_LEN + 1] = {
	[HICN_A_CS_ENTRY_NAME] = NLA_POLICY_EXACT_LEN(16),
	[HICN_A_CS_ENTRY_VERSION] = { .type = NLA_U32, },
	[HICN_A_CS_ENTRY_SEGMENT] = { .type = NLA_U32, },
	[HICN_A_CS_ENTRY_PREFIX] = NLA_POLICY_EXACT_LEN(16),
	[HICN_A_CS_ENTRY_PREFIX_LEN] = { .type = NLA_U8, },
};

/* HICN_CMD_PIT_GET - do */
const struct nla_policy hicn_pit_get_nl_policy[HICN_A_PIT_USER_DROPS + 1] = {
	[HICN_A_PIT_ENTRIES] = { .type = NLA_U32, },
	[HICN_A_PIT_ENTRIES_MAX] = { .type = NLA_U32, },
	[HICN_A_PIT_AGGREGATED] = { .type = NLA_U64, },
	[HICN_A_PIT_DROPS] = { .type = NLA_U64, },
	[HICN_A_PIT_EXPIRED] = { .type = NLA_U64, },
	[HICN_A_PIT_USER_MAX] = { .type = NLA_U32, },
	[HICN_A_PIT_USER_DROPS] = { .type = NLA_U64, },
};

/* HICN_CMD_LIMITS_GET - do */
const struct nla_policy hicn_limits_get_nl_policy[HICN_A_LIMITS_PROD_USER_MEM_MAX + 1] = {
	[HICN_A_LIMITS_PIT_MAX] = { .type = NLA_U32, },
	[HICN_A_LIMITS_CS_MAX_ENTRIES] = { .type = NLA_U32, },
	[HICN_A_LIMITS_CS_MEM_MAX] = { .type = NLA_U64, },
	[HICN_A_LIMITS_PROD_MEM_MAX] = { .type = NLA_U64, },
	[HICN_A_LIMITS_UNPRIVILEGED_PREFIX_MIN] = { .type = NLA_U32, },
	[HICN_A_LIMITS_PIT_USER_MAX] = { .type = NLA_U32, },
	[HICN_A_LIMITS_PROD_USER_MEM_MAX] = { .type = NLA_U64, },
};

/* HICN_CMD_LIMITS_SET - do */
const struct nla_policy hicn_limits_set_nl_policy[HICN_A_LIMITS_PROD_USER_MEM_MAX + 1] = {
	[HICN_A_LIMITS_PIT_MAX] = { .type = NLA_U32, },
	[HICN_A_LIMITS_CS_MAX_ENTRIES] = { .type = NLA_U32, },
	[HICN_A_LIMITS_CS_MEM_MAX] = { .type = NLA_U64, },
	[HICN_A_LIMITS_PROD_MEM_MAX] = { .type = NLA_U64, },
	[HICN_A_LIMITS_UNPRIVILEGED_PREFIX_MIN] = { .type = NLA_U32, },
	[HICN_A_LIMITS_PIT_USER_MAX] = { .type = NLA_U32, },
	[HICN_A_LIMITS_PROD_USER_MEM_MAX] = { .type = NLA_U64, },
};

/* HICN_CMD_COUNTERS_GET - do */
const struct nla_policy hicn_counters_get_nl_policy[HICN_A_COUNTERS_DATA_ZEROCOPY + 1] = {
	[HICN_A_COUNTERS_PIT_ENTRIES] = { .type = NLA_U64, },
	[HICN_A_COUNTERS_PIT_MAX] = { .type = NLA_U64, },
	[HICN_A_COUNTERS_PIT_AGGREGATED] = { .type = NLA_U64, },
	[HICN_A_COUNTERS_PIT_DROPS] = { .type = NLA_U64, },
	[HICN_A_COUNTERS_PIT_EXPIRED] = { .type = NLA_U64, },
	[HICN_A_COUNTERS_PIT_USER_MAX] = { .type = NLA_U64, },
	[HICN_A_COUNTERS_PIT_USER_DROPS] = { .type = NLA_U64, },
	[HICN_A_COUNTERS_CS_ENTRIES] = { .type = NLA_U64, },
	[HICN_A_COUNTERS_CS_MAX_ENTRIES] = { .type = NLA_U64, },
	[HICN_A_COUNTERS_CS_BYTES] = { .type = NLA_U64, },
	[HICN_A_COUNTERS_CS_MEM_MAX] = { .type = NLA_U64, },
	[HICN_A_COUNTERS_CS_HITS] = { .type = NLA_U64, },
	[HICN_A_COUNTERS_CS_MISSES] = { .type = NLA_U64, },
	[HICN_A_COUNTERS_CS_EVICTIONS] = { .type = NLA_U64, },
	[HICN_A_COUNTERS_CS_GC_RUNS] = { .type = NLA_U64, },
	[HICN_A_COUNTERS_CS_GC_STEPS] = { .type = NLA_U64, },
	[HICN_A_COUNTERS_FIB_ENTRIES] = { .type = NLA_U64, },
	[HICN_A_COUNTERS_FACES] = { .type = NLA_U64, },
	[HICN_A_COUNTERS_NO_ROUTE] = { .type = NLA_U64, },
	[HICN_A_COUNTERS_INTERESTS] = { .type = NLA_U64, },
	[HICN_A_COUNTERS_DATA] = { .type = NLA_U64, },
	[HICN_A_COUNTERS_UNSOLICITED] = { .type = NLA_U64, },
	[HICN_A_COUNTERS_PROD_MEM] = { .type = NLA_U64, },
	[HICN_A_COUNTERS_PROD_NAMES] = { .type = NLA_U64, },
	[HICN_A_COUNTERS_PROD_HELD] = { .type = NLA_U64, },
	[HICN_A_COUNTERS_PROD_LOOKUPS] = { .type = NLA_U64, },
	[HICN_A_COUNTERS_PROD_LOOKUP_STEPS] = { .type = NLA_U64, },
	[HICN_A_COUNTERS_PROD_EXPIRY_STEPS] = { .type = NLA_U64, },
	[HICN_A_COUNTERS_CONS_SCAN_STEPS] = { .type = NLA_U64, },
	[HICN_A_COUNTERS_PROD_HELD_STEPS] = { .type = NLA_U64, },
	[HICN_A_COUNTERS_PIT_GC_RUNS] = { .type = NLA_U64, },
	[HICN_A_COUNTERS_PIT_GC_STEPS] = { .type = NLA_U64, },
	[HICN_A_COUNTERS_FIB_FLOORS] = { .type = NLA_U64, },
	[HICN_A_COUNTERS_FAILOVER_REFORWARDS] = { .type = NLA_U64, },
	[HICN_A_COUNTERS_DATA_ZEROCOPY] = { .type = NLA_U64, },
};

/* HICN_CMD_FACE_GET - do */
const struct nla_policy hicn_face_get_nl_policy[HICN_A_FACE_ID + 1] = {
	[HICN_A_FACE_ID] = { .type = NLA_U32, },
};

/* HICN_CMD_ROUTE_GET - do */
const struct nla_policy hicn_route_get_nl_policy[HICN_A_ROUTE_PREFIX_LEN + 1] = {
	[HICN_A_ROUTE_PREFIX] = NLA_POLICY_EXACT_LEN(16),
	[HICN_A_ROUTE_PREFIX_LEN] = { .type = NLA_U8, },
};

/* HICN_CMD_ROUTE_ADD - do */
const struct nla_policy hicn_route_add_nl_policy[HICN_A_ROUTE_COST + 1] = {
	[HICN_A_ROUTE_PREFIX] = NLA_POLICY_EXACT_LEN(16),
	[HICN_A_ROUTE_PREFIX_LEN] = { .type = NLA_U8, },
	[HICN_A_ROUTE_FACE_ID] = { .type = NLA_U32, },
	[HICN_A_ROUTE_COST] = { .type = NLA_U32, },
};

/* HICN_CMD_ROUTE_DEL - do */
const struct nla_policy hicn_route_del_nl_policy[HICN_A_ROUTE_FACE_ID + 1] = {
	[HICN_A_ROUTE_PREFIX] = NLA_POLICY_EXACT_LEN(16),
	[HICN_A_ROUTE_PREFIX_LEN] = { .type = NLA_U8, },
	[HICN_A_ROUTE_FACE_ID] = { .type = NLA_U32, },
};

/* HICN_CMD_STRATEGY_SET - do */
const struct nla_policy hicn_strategy_set_nl_policy[HICN_A_ROUTE_STRATEGY + 1] = {
	[HICN_A_ROUTE_PREFIX] = NLA_POLICY_EXACT_LEN(16),
	[HICN_A_ROUTE_PREFIX_LEN] = { .type = NLA_U8, },
	[HICN_A_ROUTE_STRATEGY] = NLA_POLICY_MAX(NLA_U8, 1),
};

/* HICN_CMD_LISTENER_GET - do */
const struct nla_policy hicn_listener_get_nl_policy[HICN_A_LISTENER_ID + 1] = {
	[HICN_A_LISTENER_ID] = { .type = NLA_U32, },
};

/* HICN_CMD_LISTENER_ADD - do */
const struct nla_policy hicn_listener_add_nl_policy[HICN_A_LISTENER_AUTO_FACES + 1] = {
	[HICN_A_LISTENER_LOCAL] = { .type = NLA_BINARY, },
	[HICN_A_LISTENER_PORT] = { .type = NLA_U16, },
	[HICN_A_LISTENER_AUTO_FACES] = { .type = NLA_U8, },
};

/* HICN_CMD_LISTENER_DEL - do */
const struct nla_policy hicn_listener_del_nl_policy[HICN_A_LISTENER_ID + 1] = {
	[HICN_A_LISTENER_ID] = { .type = NLA_U32, },
};

/* HICN_CMD_FACE_ADD - do */
const struct nla_policy hicn_face_add_nl_policy[HICN_A_FACE_FORMAT + 1] = {
	[HICN_A_FACE_LISTENER_ID] = { .type = NLA_U32, },
	[HICN_A_FACE_REMOTE] = { .type = NLA_BINARY, },
	[HICN_A_FACE_REMOTE_PORT] = { .type = NLA_U16, },
	[HICN_A_FACE_FORMAT] = NLA_POLICY_MAX(NLA_U8, 2),
};

/* HICN_CMD_FACE_DEL - do */
const struct nla_policy hicn_face_del_nl_policy[HICN_A_FACE_ID + 1] = {
	[HICN_A_FACE_ID] = { .type = NLA_U32, },
};

/* Ops table for hicn */
const struct genl_ops hicn_nl_ops[19] = {
	{
		.cmd		= HICN_CMD_NAMESPACE_GET,
		.doit		= hicn_nl_namespace_get_doit,
		.dumpit		= hicn_nl_namespace_get_dumpit,
		.policy		= hicn_namespace_get_nl_policy,
		.maxattr	= HICN_A_NAMESPACE_PREFIX_LEN,
	},
	{
		.cmd		= HICN_CMD_CS_GET,
		.doit		= hicn_nl_cs_get_doit,
		.policy		= hicn_cs_get_nl_policy,
		.maxattr	= HICN_A_CS_EVICTIONS,
	},
	{
		.cmd		= HICN_CMD_CS_SET,
		.doit		= hicn_nl_cs_set_doit,
		.policy		= hicn_cs_set_nl_policy,
		.maxattr	= HICN_A_CS_MEM_MAX,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= HICN_CMD_CS_FLUSH,
		.doit		= hicn_nl_cs_flush_doit,
		.policy		= hicn_cs_flush_nl_policy,
		.maxattr	= HICN_A_CS_PREFIX_LEN,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= HICN_CMD_CS_ENTRY_GET,
		.doit		= hicn_nl_cs_entry_get_doit,
		.dumpit		= hicn_nl_cs_entry_get_dumpit,
		.policy		= hicn_cs_entry_get_nl_policy,
		.maxattr	= HICN_A_CS_ENTRY_PREFIX_LEN,
	},
	{
		.cmd		= HICN_CMD_PIT_GET,
		.doit		= hicn_nl_pit_get_doit,
		.policy		= hicn_pit_get_nl_policy,
		.maxattr	= HICN_A_PIT_USER_DROPS,
	},
	{
		.cmd		= HICN_CMD_LIMITS_GET,
		.doit		= hicn_nl_limits_get_doit,
		.policy		= hicn_limits_get_nl_policy,
		.maxattr	= HICN_A_LIMITS_PROD_USER_MEM_MAX,
	},
	{
		.cmd		= HICN_CMD_LIMITS_SET,
		.doit		= hicn_nl_limits_set_doit,
		.policy		= hicn_limits_set_nl_policy,
		.maxattr	= HICN_A_LIMITS_PROD_USER_MEM_MAX,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= HICN_CMD_COUNTERS_GET,
		.doit		= hicn_nl_counters_get_doit,
		.policy		= hicn_counters_get_nl_policy,
		.maxattr	= HICN_A_COUNTERS_DATA_ZEROCOPY,
	},
	{
		.cmd		= HICN_CMD_FACE_GET,
		.doit		= hicn_nl_face_get_doit,
		.dumpit		= hicn_nl_face_get_dumpit,
		.policy		= hicn_face_get_nl_policy,
		.maxattr	= HICN_A_FACE_ID,
	},
	{
		.cmd		= HICN_CMD_ROUTE_GET,
		.doit		= hicn_nl_route_get_doit,
		.dumpit		= hicn_nl_route_get_dumpit,
		.policy		= hicn_route_get_nl_policy,
		.maxattr	= HICN_A_ROUTE_PREFIX_LEN,
	},
	{
		.cmd		= HICN_CMD_ROUTE_ADD,
		.doit		= hicn_nl_route_add_doit,
		.policy		= hicn_route_add_nl_policy,
		.maxattr	= HICN_A_ROUTE_COST,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= HICN_CMD_ROUTE_DEL,
		.doit		= hicn_nl_route_del_doit,
		.policy		= hicn_route_del_nl_policy,
		.maxattr	= HICN_A_ROUTE_FACE_ID,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= HICN_CMD_STRATEGY_SET,
		.doit		= hicn_nl_strategy_set_doit,
		.policy		= hicn_strategy_set_nl_policy,
		.maxattr	= HICN_A_ROUTE_STRATEGY,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= HICN_CMD_LISTENER_GET,
		.doit		= hicn_nl_listener_get_doit,
		.dumpit		= hicn_nl_listener_get_dumpit,
		.policy		= hicn_listener_get_nl_policy,
		.maxattr	= HICN_A_LISTENER_ID,
	},
	{
		.cmd		= HICN_CMD_LISTENER_ADD,
		.doit		= hicn_nl_listener_add_doit,
		.policy		= hicn_listener_add_nl_policy,
		.maxattr	= HICN_A_LISTENER_AUTO_FACES,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= HICN_CMD_LISTENER_DEL,
		.doit		= hicn_nl_listener_del_doit,
		.policy		= hicn_listener_del_nl_policy,
		.maxattr	= HICN_A_LISTENER_ID,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= HICN_CMD_FACE_ADD,
		.doit		= hicn_nl_face_add_doit,
		.policy		= hicn_face_add_nl_policy,
		.maxattr	= HICN_A_FACE_FORMAT,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= HICN_CMD_FACE_DEL,
		.doit		= hicn_nl_face_del_doit,
		.policy		= hicn_face_del_nl_policy,
		.maxattr	= HICN_A_FACE_ID,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
};
