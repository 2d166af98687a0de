// SPDX-License-Identifier: GPL-2.0
/*
 * hicnctl hicn: the "hicn" generic netlink family of hicn.ko
 * (<linux/hicn_netlink.h>, Documentation/netlink/specs/hicn.yaml).
 *
 *   namespace show           the producers' claims
 *   cs show|entries|flush|set
 *                            the content store: numbers, entries, flush,
 *                            capacity
 *   pit show                 the pending-interest table's numbers
 *   limits show|set          the net.hicn limits
 *   stats                    the counters of /proc/net/hicn_stat
 *   monitor                  namespace events, as they happen
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/hicn.h>
#include <linux/hicn_netlink.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "hicnctl.h"

const char *const hicn_grammar[] = {
	"hicnctl hicn namespace show [ prefix PREFIX ]",
	"hicnctl hicn cs show",
	"hicnctl hicn cs entries [ prefix PREFIX ]",
	"hicnctl hicn cs flush [ prefix PREFIX ]",
	"hicnctl hicn cs set [ capacity N ] [ mem BYTES ]",
	"hicnctl hicn pit show",
	"hicnctl hicn limits show",
	"hicnctl hicn limits set [ LIMIT VALUE ]...",
	"hicnctl hicn stats",
	"hicnctl hicn monitor",
	NULL,
	"PREFIX := ADDRESS/LENGTH (IPv6 format, LENGTH 0 to 128)",
	"LIMIT := { pit-max | cs-max-entries | cs-mem-max | prod-mem-max |",
	"           unprivileged-prefix-min | pit-user-max | prod-user-mem-max }",
	NULL,
};

static void hicn_usage(void)
{
	print_grammar(stderr, hicn_grammar, "Usage: ", true);
}

/* "unknown word" for the hicn object. */
#define HICN_UNKNOWN	"\"%s\" is unknown, try \"hicnctl hicn help\""

/*
 * Parses "ADDRESS/LENGTH" into @a_prefix and @a_len of @msg.  A length up
 * to 255 is sent as it is: the kernel judges it (and says so).
 */
static void put_prefix(struct nl_msg *msg, const char *arg, int a_prefix,
		       int a_len)
{
	char addr[INET6_ADDRSTRLEN];
	struct in6_addr a6;
	const char *slash = strchr(arg, '/');
	unsigned long len;

	if (!slash || (size_t)(slash - arg) >= sizeof(addr))
		usage_error("\"%s\" is not a prefix (ADDRESS/LENGTH)", arg);
	memcpy(addr, arg, slash - arg);
	addr[slash - arg] = '\0';
	if (inet_pton(AF_INET6, addr, &a6) != 1)
		usage_error("\"%s\" is not an IPv6-format address", addr);
	len = get_number(slash + 1, "prefix length");
	if (len > 255)
		usage_error("\"%s\" is not a valid prefix length", slash + 1);
	nla_put(msg, a_prefix, sizeof(a6), &a6);
	nla_put_u8(msg, a_len, len);
}

/* The optional "prefix PREFIX" that ends a command. */
static void parse_prefix_arg(int argc, char **argv, struct nl_msg *msg,
			     int a_prefix, int a_len)
{
	while (argc > 0) {
		if (!strcmp(*argv, "prefix"))
			put_prefix(msg, next_arg(&argc, &argv, "prefix"),
				   a_prefix, a_len);
		else
			usage_error(HICN_UNKNOWN, *argv);
		argc--;
		argv++;
	}
}

static void print_prefix(const char *key, const char *fmt, struct nlattr *a,
			 struct nlattr *len)
{
	char addr[INET6_ADDRSTRLEN] = "?";
	char buf[INET6_ADDRSTRLEN + 8];

	if (a && nla_len(a) == 16)
		inet_ntop(AF_INET6, nla_data(a), addr, sizeof(addr));
	if (len)
		snprintf(buf, sizeof(buf), "%s/%u", addr, nla_get_u8(len));
	else
		snprintf(buf, sizeof(buf), "%s", addr);
	print_string(key, fmt, buf);
}

/* Prints attribute @a of @tb, u32 or u64 by its length, if present. */
static void print_attr(struct nlattr **tb, int a, const char *key,
		       const char *fmt)
{
	if (!tb[a])
		return;
	print_uint(key, fmt, nla_len(tb[a]) == 8 ? nla_get_u64(tb[a]) :
			     nla_get_u32(tb[a]));
}

/* Ends a one-object reply or a list: a newline after JSON. */
static int end_json(int err)
{
	if (json)
		putchar('\n');
	return err ? EXIT_KERNEL : 0;
}

/* ---- namespace ---- */

/* A claim's attributes; @fmt prints the prefix. */
static void namespace_fields(struct nlattr **tb, const char *fmt)
{
	print_prefix("prefix", fmt, tb[HICN_A_NAMESPACE_PREFIX],
		     tb[HICN_A_NAMESPACE_PREFIX_LEN]);
	print_attr(tb, HICN_A_NAMESPACE_UID, "uid", " uid %llu");
	print_attr(tb, HICN_A_NAMESPACE_INODE, "inode", " inode %llu");
	print_attr(tb, HICN_A_NAMESPACE_FACE_ID, "face", " face %llu");
	print_attr(tb, HICN_A_NAMESPACE_NAMES, "names", " names %llu");
	print_attr(tb, HICN_A_NAMESPACE_VERSIONS, "versions",
		   " versions %llu");
	print_attr(tb, HICN_A_NAMESPACE_MEM, "mem", " mem %llu");
}

static int namespace_print(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[HICN_A_NAMESPACE_MAX + 1];

	(void)arg;
	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, HICN_A_NAMESPACE_MAX, NULL))
		return NL_SKIP;
	print_open_object(NULL);
	namespace_fields(tb, "%s");
	print_close_object();
	print_nl();
	return NL_OK;
}

static int do_namespace(int argc, char **argv)
{
	struct nl_msg *msg;
	int err;

	if (argc > 0 && matches(*argv, "help")) {
		hicn_usage();
		return 0;
	}
	if (argc > 0 && !matches(*argv, "show") && !matches(*argv, "list"))
		usage_error("command \"%s\" is unknown, try \"hicnctl hicn help\"",
			    *argv);
	if (argc > 0) {
		argc--;
		argv++;
	}
	msg = nl_request(HICN_CMD_NAMESPACE_GET, argc == 0);
	parse_prefix_arg(argc, argv, msg, HICN_A_NAMESPACE_PREFIX,
			 HICN_A_NAMESPACE_PREFIX_LEN);
	print_open_array(NULL);
	err = nl_transact(msg, namespace_print, NULL);
	print_close_array();
	return end_json(err);
}

/* ---- content store ---- */

static int cs_print(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[HICN_A_CS_MAX + 1];

	(void)arg;
	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, HICN_A_CS_MAX, NULL))
		return NL_SKIP;
	print_open_object(NULL);
	print_attr(tb, HICN_A_CS_ENTRIES, "entries", "entries %llu");
	print_attr(tb, HICN_A_CS_BYTES, "bytes", " bytes %llu");
	print_attr(tb, HICN_A_CS_MAX_ENTRIES, "capacity", " capacity %llu");
	print_attr(tb, HICN_A_CS_MEM_MAX, "mem", " mem %llu");
	print_attr(tb, HICN_A_CS_HITS, "hits", " hits %llu");
	print_attr(tb, HICN_A_CS_MISSES, "misses", " misses %llu");
	print_attr(tb, HICN_A_CS_EVICTIONS, "evictions", " evictions %llu");
	print_close_object();
	print_nl();
	return NL_OK;
}

static int cs_entry_print(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[HICN_A_CS_ENTRY_MAX + 1];

	(void)arg;
	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, HICN_A_CS_ENTRY_MAX, NULL))
		return NL_SKIP;
	print_open_object(NULL);
	print_prefix("name", "%s", tb[HICN_A_CS_ENTRY_NAME], NULL);
	print_attr(tb, HICN_A_CS_ENTRY_VERSION, "version", " version %llu");
	print_attr(tb, HICN_A_CS_ENTRY_SEGMENT, "segment", " segment %llu");
	print_attr(tb, HICN_A_CS_ENTRY_FINAL_SEGMENT, "final",
		   "/%llu");
	print_attr(tb, HICN_A_CS_ENTRY_SIZE, "size", " size %llu");
	print_attr(tb, HICN_A_CS_ENTRY_OBJECT_SIZE, "object_size",
		   " object %llu");
	if (tb[HICN_A_CS_ENTRY_EXPIRES_MS])
		print_attr(tb, HICN_A_CS_ENTRY_EXPIRES_MS, "expires_ms",
			   " expires %llums");
	print_close_object();
	print_nl();
	return NL_OK;
}

static int cs_set(int argc, char **argv)
{
	struct nl_msg *msg;

	msg = nl_request(HICN_CMD_CS_SET, false);
	for (; argc > 0; argc--, argv++) {
		if (!strcmp(*argv, "capacity"))
			nla_put_u32(msg, HICN_A_CS_MAX_ENTRIES,
				    get_number(next_arg(&argc, &argv, "capacity"),
					       "capacity"));
		else if (!strcmp(*argv, "mem"))
			nla_put_u64(msg, HICN_A_CS_MEM_MAX,
				    get_u64(next_arg(&argc, &argv, "mem"),
					    "byte count"));
		else
			usage_error(HICN_UNKNOWN, *argv);
	}
	return nl_transact(msg, NULL, NULL) ? EXIT_KERNEL : 0;
}

static int do_cs(int argc, char **argv)
{
	struct nl_msg *msg;
	int err;

	if (argc < 1 || matches(*argv, "show")) {
		if (argc > 1)
			usage_error("\"%s\" is unexpected", argv[1]);
		err = nl_transact(nl_request(HICN_CMD_CS_GET, false), cs_print,
				  NULL);
		return end_json(err);
	}
	if (matches(*argv, "entries")) {
		msg = nl_request(HICN_CMD_CS_ENTRY_GET, true);
		parse_prefix_arg(argc - 1, argv + 1, msg, HICN_A_CS_ENTRY_PREFIX,
				 HICN_A_CS_ENTRY_PREFIX_LEN);
		print_open_array(NULL);
		err = nl_transact(msg, cs_entry_print, NULL);
		print_close_array();
		return end_json(err);
	}
	if (matches(*argv, "flush")) {
		msg = nl_request(HICN_CMD_CS_FLUSH, false);
		parse_prefix_arg(argc - 1, argv + 1, msg, HICN_A_CS_PREFIX,
				 HICN_A_CS_PREFIX_LEN);
		return nl_transact(msg, NULL, NULL) ? EXIT_KERNEL : 0;
	}
	if (matches(*argv, "set"))
		return cs_set(argc - 1, argv + 1);
	if (matches(*argv, "help")) {
		hicn_usage();
		return 0;
	}
	usage_error("command \"%s\" is unknown, try \"hicnctl hicn help\"", *argv);
}

/* ---- PIT ---- */

static int pit_print(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[HICN_A_PIT_MAX + 1];

	(void)arg;
	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, HICN_A_PIT_MAX, NULL))
		return NL_SKIP;
	print_open_object(NULL);
	print_attr(tb, HICN_A_PIT_ENTRIES, "entries", "entries %llu");
	print_attr(tb, HICN_A_PIT_ENTRIES_MAX, "max", " max %llu");
	print_attr(tb, HICN_A_PIT_AGGREGATED, "aggregated",
		   " aggregated %llu");
	print_attr(tb, HICN_A_PIT_DROPS, "drops", " drops %llu");
	print_attr(tb, HICN_A_PIT_EXPIRED, "expired", " expired %llu");
	print_attr(tb, HICN_A_PIT_USER_MAX, "user_max", " user-max %llu");
	print_attr(tb, HICN_A_PIT_USER_DROPS, "user_drops",
		   " user-drops %llu");
	print_close_object();
	print_nl();
	return NL_OK;
}

static int do_pit(int argc, char **argv)
{
	if (argc > 0 && matches(*argv, "help")) {
		hicn_usage();
		return 0;
	}
	if (argc > 0 && !matches(*argv, "show"))
		usage_error("command \"%s\" is unknown, try \"hicnctl hicn help\"",
			    *argv);
	if (argc > 1)
		usage_error("\"%s\" is unexpected", argv[1]);
	return end_json(nl_transact(nl_request(HICN_CMD_PIT_GET, false),
				    pit_print, NULL));
}

/* ---- limits ---- */

/* The limits by their sysctl's name (dashes), attribute and width. */
static const struct {
	const char	*name;
	int		attr;
	bool		wide;
} limits[] = {
	{ "pit-max",			HICN_A_LIMITS_PIT_MAX,		false },
	{ "cs-max-entries",		HICN_A_LIMITS_CS_MAX_ENTRIES,	false },
	{ "cs-mem-max",			HICN_A_LIMITS_CS_MEM_MAX,	true },
	{ "prod-mem-max",		HICN_A_LIMITS_PROD_MEM_MAX,	true },
	{ "unprivileged-prefix-min",
		HICN_A_LIMITS_UNPRIVILEGED_PREFIX_MIN,			false },
	{ "pit-user-max",		HICN_A_LIMITS_PIT_USER_MAX,	false },
	{ "prod-user-mem-max",		HICN_A_LIMITS_PROD_USER_MEM_MAX, true },
};

static int limits_print(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[HICN_A_LIMITS_MAX + 1];
	char fmt[48];
	size_t i;

	(void)arg;
	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, HICN_A_LIMITS_MAX, NULL))
		return NL_SKIP;
	print_open_object(NULL);
	for (i = 0; i < ARRAY_SIZE(limits); i++) {
		snprintf(fmt, sizeof(fmt), "%s%s %%llu", i ? " " : "",
			 limits[i].name);
		print_attr(tb, limits[i].attr, limits[i].name, fmt);
	}
	print_close_object();
	print_nl();
	return NL_OK;
}

static int do_limits(int argc, char **argv)
{
	struct nl_msg *msg;
	size_t i;

	if (argc < 1 || matches(*argv, "show")) {
		if (argc > 1)
			usage_error("\"%s\" is unexpected", argv[1]);
		return end_json(nl_transact(nl_request(HICN_CMD_LIMITS_GET,
						       false),
					    limits_print, NULL));
	}
	if (matches(*argv, "help")) {
		hicn_usage();
		return 0;
	}
	if (!matches(*argv, "set"))
		usage_error("command \"%s\" is unknown, try \"hicnctl hicn help\"",
			    *argv);

	msg = nl_request(HICN_CMD_LIMITS_SET, false);
	for (argc--, argv++; argc > 0; argc--, argv++) {
		for (i = 0; i < ARRAY_SIZE(limits); i++)
			if (!strcmp(*argv, limits[i].name))
				break;
		if (i == ARRAY_SIZE(limits))
			usage_error(HICN_UNKNOWN, *argv);
		if (limits[i].wide)
			nla_put_u64(msg, limits[i].attr,
				    get_u64(next_arg(&argc, &argv, limits[i].name),
					    limits[i].name));
		else
			nla_put_u32(msg, limits[i].attr,
				    get_number(next_arg(&argc, &argv,
							limits[i].name),
					       limits[i].name));
	}
	return nl_transact(msg, NULL, NULL) ? EXIT_KERNEL : 0;
}

/* ---- stats ---- */

/* The names of /proc/net/hicn_stat, in attribute order. */
static const char *const counter_names[] = {
	"pit_entries", "pit_max", "pit_aggregated", "pit_drops",
	"pit_expired", "pit_user_max", "pit_user_drops", "cs_entries",
	"cs_max_entries", "cs_bytes", "cs_mem_max", "cs_hits", "cs_misses",
	"cs_evictions", "cs_gc_runs", "cs_gc_steps", "fib_entries", "faces",
	"no_route", "interests", "data", "unsolicited", "prod_mem",
	"prod_names", "prod_held", "prod_lookups", "prod_lookup_steps",
	"prod_expiry_steps", "cons_scan_steps", "prod_held_steps",
	"pit_gc_runs", "pit_gc_steps",
};

static int stats_print(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[HICN_A_COUNTERS_MAX + 1];
	char fmt[40];
	size_t i;

	(void)arg;
	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, HICN_A_COUNTERS_MAX, NULL))
		return NL_SKIP;
	print_open_object(NULL);
	for (i = 0; i < ARRAY_SIZE(counter_names); i++) {
		snprintf(fmt, sizeof(fmt), "%s %%llu\n", counter_names[i]);
		print_attr(tb, HICN_A_COUNTERS_PAD + 1 + i, counter_names[i],
			   fmt);
	}
	print_close_object();
	return NL_OK;
}

static int do_stats(int argc, char **argv)
{
	if (argc > 0)
		usage_error("\"%s\" is unexpected", argv[0]);
	return end_json(nl_transact(nl_request(HICN_CMD_COUNTERS_GET, false),
				    stats_print, NULL));
}

/* ---- monitor ---- */

static const char *const event_names[] = {
	[HICN_CMD_NAMESPACE_CLAIMED]	= "namespace-claimed",
	[HICN_CMD_NAMESPACE_RELEASED]	= "namespace-released",
};

static int event_print(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[HICN_A_NAMESPACE_MAX + 1];

	(void)arg;
	if (!event_open(msg, event_names, ARRAY_SIZE(event_names), tb,
			HICN_A_NAMESPACE_MAX))
		return NL_SKIP;
	namespace_fields(tb, " %s");
	event_close();
	return NL_OK;
}

int do_hicn(int argc, char **argv)
{
	if (argc < 1 || matches(*argv, "help")) {
		hicn_usage();
		return argc < 1 ? EXIT_USAGE : 0;
	}
	nl_open(HICN_FAMILY_NAME);
	if (matches(*argv, "namespace"))
		return do_namespace(argc - 1, argv + 1);
	if (matches(*argv, "cs"))
		return do_cs(argc - 1, argv + 1);
	if (matches(*argv, "pit"))
		return do_pit(argc - 1, argv + 1);
	if (matches(*argv, "limits"))
		return do_limits(argc - 1, argv + 1);
	if (matches(*argv, "stats"))
		return do_stats(argc - 1, argv + 1);
	if (matches(*argv, "monitor")) {
		if (argc > 1)
			usage_error("\"%s\" is unexpected", argv[1]);
		return nl_monitor(HICN_FAMILY_NAME, HICN_MCGRP_EVENTS,
				  event_print);
	}
	usage_error("object \"hicn %s\" is unknown, try \"hicnctl hicn help\"", *argv);
}
