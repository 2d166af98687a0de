// SPDX-License-Identifier: GPL-2.0
/*
 * hicnctl psock: the "psock" generic netlink family of psock.ko
 * (<linux/psock_netlink.h>, Documentation/netlink/specs/psock.yaml).
 *
 *   endpoint add|delete|show|flush   local addresses for extra subflows
 *   limits show|set                  default stream counts and driver
 *   stats                            the namespace's counters
 *   monitor                          subflow events, as they happen
 */

#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/psock.h>
#include <linux/psock_netlink.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "hicnctl.h"

const char *const psock_grammar[] = {
	"hicnctl psock endpoint add ADDRESS [ id ID ] [ dev IFNAME ] [ FLAG ... ]",
	"hicnctl psock endpoint delete id ID",
	"hicnctl psock endpoint show [ id ID ]",
	"hicnctl psock endpoint flush [ inet | inet6 ]",
	"hicnctl psock limits show",
	"hicnctl psock limits set [ rcmd N ] [ max M ] [ driver DRIVER ]",
	"hicnctl psock stats",
	"hicnctl psock monitor",
	NULL,
	"FLAG := { signal | subflow }",
	"DRIVER := { poll-all | round-robin }",
	NULL,
};

static void psock_usage(void)
{
	print_grammar(stderr, psock_grammar, "Usage: ", true);
}

static const char *const driver_names[] = {
	[PSOCK_DRIVER_POLL_ALL]		= "poll-all",
	[PSOCK_DRIVER_ROUND_ROBIN]	= "round-robin",
};

static const struct {
	const char	*name;
	__u32	bit;
} endpoint_flags[] = {
	{ "signal",	PSOCK_ENDPOINT_FLAGS_SIGNAL },
	{ "subflow",	PSOCK_ENDPOINT_FLAGS_SUBFLOW },
};

/* ---- endpoint ---- */

static int endpoint_print(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[PSOCK_A_ENDPOINT_MAX + 1];
	char addr[INET6_ADDRSTRLEN] = "?", ifname[IF_NAMESIZE];
	__u32 flags = 0;
	size_t i;

	(void)arg;
	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, PSOCK_A_ENDPOINT_MAX, NULL))
		return NL_SKIP;
	if (tb[PSOCK_A_ENDPOINT_ADDR4])
		inet_ntop(AF_INET, nla_data(tb[PSOCK_A_ENDPOINT_ADDR4]), addr,
			  sizeof(addr));
	else if (tb[PSOCK_A_ENDPOINT_ADDR6])
		inet_ntop(AF_INET6, nla_data(tb[PSOCK_A_ENDPOINT_ADDR6]), addr,
			  sizeof(addr));

	print_open_object(NULL);
	print_string("address", "%s", addr);
	if (tb[PSOCK_A_ENDPOINT_ID])
		print_uint("id", " id %llu", nla_get_u8(tb[PSOCK_A_ENDPOINT_ID]));
	if (tb[PSOCK_A_ENDPOINT_FLAGS])
		flags = nla_get_u32(tb[PSOCK_A_ENDPOINT_FLAGS]);
	print_open_array("flags");
	for (i = 0; i < ARRAY_SIZE(endpoint_flags); i++)
		if (flags & endpoint_flags[i].bit)
			print_flag(endpoint_flags[i].name);
	print_close_array();
	if (tb[PSOCK_A_ENDPOINT_IFINDEX]) {
		__s32 ifindex = (__s32)nla_get_u32(tb[PSOCK_A_ENDPOINT_IFINDEX]);

		if (ifindex > 0 && if_indextoname(ifindex, ifname))
			print_string("dev", " dev %s", ifname);
		else if (ifindex > 0)
			print_uint("ifindex", " ifindex %llu", ifindex);
	}
	print_close_object();
	print_nl();
	return NL_OK;
}

static int endpoint_show(int argc, char **argv)
{
	struct nl_msg *msg;
	int err;

	msg = nl_request(PSOCK_CMD_ENDPOINT_GET, argc == 0);
	while (argc > 0) {
		if (matches(*argv, "id")) {
			char *v = next_arg(&argc, &argv, "id");

			nla_put_u8(msg, PSOCK_A_ENDPOINT_ID,
				   get_number(v, "endpoint id"));
		} else {
			usage_error("\"%s\" is unknown, try \"hicnctl psock help\"", *argv);
		}
		argc--;
		argv++;
	}
	print_open_array(NULL);
	err = nl_transact(msg, endpoint_print, NULL);
	print_close_array();
	if (json)
		putchar('\n');
	return err ? EXIT_KERNEL : 0;
}

static int endpoint_add(int argc, char **argv)
{
	struct in6_addr a6;
	struct in_addr a4;
	struct nl_msg *msg;
	__u32 flags = 0;
	bool have_addr = false;
	size_t i;

	msg = nl_request(PSOCK_CMD_ENDPOINT_ADD, false);
	while (argc > 0) {
		if (!strcmp(*argv, "id")) {
			char *v = next_arg(&argc, &argv, "id");
			unsigned long id = get_number(v, "endpoint id");

			if (id > 255)
				usage_error("\"%s\" is not a valid endpoint id", v);
			nla_put_u8(msg, PSOCK_A_ENDPOINT_ID, id);
		} else if (!strcmp(*argv, "dev")) {
			char *v = next_arg(&argc, &argv, "dev");
			unsigned int ifindex = if_nametoindex(v);

			if (!ifindex)
				usage_error("cannot find device \"%s\"", v);
			nla_put_u32(msg, PSOCK_A_ENDPOINT_IFINDEX, ifindex);
		} else if (!have_addr && inet_pton(AF_INET, *argv, &a4) == 1) {
			nla_put_u16(msg, PSOCK_A_ENDPOINT_FAMILY, AF_INET);
			nla_put(msg, PSOCK_A_ENDPOINT_ADDR4, 4, &a4);
			have_addr = true;
		} else if (!have_addr && inet_pton(AF_INET6, *argv, &a6) == 1) {
			nla_put_u16(msg, PSOCK_A_ENDPOINT_FAMILY, AF_INET6);
			nla_put(msg, PSOCK_A_ENDPOINT_ADDR6, 16, &a6);
			have_addr = true;
		} else {
			for (i = 0; i < ARRAY_SIZE(endpoint_flags); i++)
				if (!strcmp(*argv, endpoint_flags[i].name))
					break;
			if (i == ARRAY_SIZE(endpoint_flags))
				usage_error("\"%s\" is not an address, a flag or a keyword",
					    *argv);
			flags |= endpoint_flags[i].bit;
		}
		argc--;
		argv++;
	}
	if (!have_addr)
		usage_error("an endpoint needs an address");
	if (flags)
		nla_put_u32(msg, PSOCK_A_ENDPOINT_FLAGS, flags);
	return nl_transact(msg, NULL, NULL) ? EXIT_KERNEL : 0;
}

static int endpoint_delete(int argc, char **argv)
{
	struct nl_msg *msg;
	bool have_id = false;

	msg = nl_request(PSOCK_CMD_ENDPOINT_DEL, false);
	while (argc > 0) {
		if (!strcmp(*argv, "id")) {
			char *v = next_arg(&argc, &argv, "id");
			unsigned long id = get_number(v, "endpoint id");

			if (id > 255)
				usage_error("\"%s\" is not a valid endpoint id", v);
			nla_put_u8(msg, PSOCK_A_ENDPOINT_ID, id);
			have_id = true;
		} else {
			usage_error("\"%s\" is unknown, try \"hicnctl psock help\"", *argv);
		}
		argc--;
		argv++;
	}
	if (!have_id)
		usage_error("delete needs \"id ID\"");
	return nl_transact(msg, NULL, NULL) ? EXIT_KERNEL : 0;
}

static int endpoint_flush(int argc, char **argv)
{
	struct nl_msg *msg;

	msg = nl_request(PSOCK_CMD_ENDPOINT_FLUSH, false);
	if (argc > 0) {
		if (!strcmp(*argv, "inet"))
			nla_put_u16(msg, PSOCK_A_ENDPOINT_FAMILY, AF_INET);
		else if (!strcmp(*argv, "inet6"))
			nla_put_u16(msg, PSOCK_A_ENDPOINT_FAMILY, AF_INET6);
		else
			usage_error("\"%s\" is not inet or inet6", *argv);
		if (argc > 1)
			usage_error("\"%s\" is unexpected", argv[1]);
	}
	return nl_transact(msg, NULL, NULL) ? EXIT_KERNEL : 0;
}

static int do_endpoint(int argc, char **argv)
{
	if (argc < 1 || matches(*argv, "show") || matches(*argv, "list"))
		return endpoint_show(argc ? argc - 1 : 0, argv + 1);
	if (matches(*argv, "add"))
		return endpoint_add(argc - 1, argv + 1);
	if (matches(*argv, "delete"))
		return endpoint_delete(argc - 1, argv + 1);
	if (matches(*argv, "flush"))
		return endpoint_flush(argc - 1, argv + 1);
	if (matches(*argv, "help")) {
		psock_usage();
		return 0;
	}
	usage_error("command \"%s\" is unknown, try \"hicnctl psock help\"", *argv);
}

/* ---- limits ---- */

static int limits_print(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[PSOCK_A_LIMITS_MAX + 1];
	__u32 d;

	(void)arg;
	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, PSOCK_A_LIMITS_MAX, NULL))
		return NL_SKIP;
	print_open_object(NULL);
	if (tb[PSOCK_A_LIMITS_RCMD_STREAM_CNT])
		print_uint("rcmd", "rcmd %llu",
			   nla_get_u32(tb[PSOCK_A_LIMITS_RCMD_STREAM_CNT]));
	if (tb[PSOCK_A_LIMITS_MAX_STREAM_CNT])
		print_uint("max", " max %llu",
			   nla_get_u32(tb[PSOCK_A_LIMITS_MAX_STREAM_CNT]));
	if (tb[PSOCK_A_LIMITS_DRIVER]) {
		d = nla_get_u32(tb[PSOCK_A_LIMITS_DRIVER]);
		if (d < ARRAY_SIZE(driver_names))
			print_string("driver", " driver %s", driver_names[d]);
		else
			print_uint("driver", " driver %llu", d);
	}
	print_close_object();
	print_nl();
	return NL_OK;
}

static int do_limits(int argc, char **argv)
{
	struct nl_msg *msg;
	int err;

	if (argc < 1 || matches(*argv, "show")) {
		if (argc > 1)
			usage_error("\"%s\" is unexpected", argv[1]);
		msg = nl_request(PSOCK_CMD_LIMITS_GET, false);
		err = nl_transact(msg, limits_print, NULL);
		if (json)
			putchar('\n');
		return err ? EXIT_KERNEL : 0;
	}
	if (matches(*argv, "help")) {
		psock_usage();
		return 0;
	}
	if (!matches(*argv, "set"))
		usage_error("command \"%s\" is unknown, try \"hicnctl psock help\"", *argv);

	msg = nl_request(PSOCK_CMD_LIMITS_SET, false);
	for (argc--, argv++; argc > 0; argc--, argv++) {
		if (!strcmp(*argv, "rcmd")) {
			char *v = next_arg(&argc, &argv, "rcmd");

			nla_put_u32(msg, PSOCK_A_LIMITS_RCMD_STREAM_CNT,
				    get_number(v, "stream count"));
		} else if (!strcmp(*argv, "max")) {
			char *v = next_arg(&argc, &argv, "max");

			nla_put_u32(msg, PSOCK_A_LIMITS_MAX_STREAM_CNT,
				    get_number(v, "stream count"));
		} else if (!strcmp(*argv, "driver")) {
			char *v = next_arg(&argc, &argv, "driver");
			size_t d;

			for (d = 0; d < ARRAY_SIZE(driver_names); d++)
				if (!strcmp(v, driver_names[d]))
					break;
			nla_put_u32(msg, PSOCK_A_LIMITS_DRIVER,
				    d < ARRAY_SIZE(driver_names) ? d :
				    get_number(v, "driver"));
		} else {
			usage_error("\"%s\" is unknown, try \"hicnctl psock help\"", *argv);
		}
	}
	return nl_transact(msg, NULL, NULL) ? EXIT_KERNEL : 0;
}

/* ---- stats ---- */

/* The names of /proc/net/psock, by attribute. */
static const char *const counter_names[PSOCK_A_COUNTERS_MAX + 1] = {
	[PSOCK_A_COUNTERS_ACTIVE_OPENS]		= "ActiveOpens",
	[PSOCK_A_COUNTERS_PASSIVE_OPENS]	= "PassiveOpens",
	[PSOCK_A_COUNTERS_FALLBACKS]		= "Fallbacks",
	[PSOCK_A_COUNTERS_HANDSHAKE_FAILS]	= "HandshakeFails",
	[PSOCK_A_COUNTERS_SUBFLOWS_OPENED]	= "SubflowsOpened",
	[PSOCK_A_COUNTERS_SUBFLOWS_JOINED]	= "SubflowsJoined",
	[PSOCK_A_COUNTERS_BLOCKS_SENT]		= "BlocksSent",
	[PSOCK_A_COUNTERS_BLOCKS_RECEIVED]	= "BlocksReceived",
	[PSOCK_A_COUNTERS_BLOCKS_COPIED]	= "BlocksCopied",
	[PSOCK_A_COUNTERS_CLOSE_TIMEOUTS]	= "CloseTimeouts",
	[PSOCK_A_COUNTERS_LISTEN_OVERFLOWS]	= "ListenOverflows",
	[PSOCK_A_COUNTERS_JOINS_MISSING]	= "JoinsMissing",
};

static int stats_print(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[PSOCK_A_COUNTERS_MAX + 1];
	char fmt[32];
	int i;

	(void)arg;
	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, PSOCK_A_COUNTERS_MAX, NULL))
		return NL_SKIP;
	print_open_object(NULL);
	for (i = 0; i <= PSOCK_A_COUNTERS_MAX; i++) {
		if (!counter_names[i] || !tb[i])
			continue;
		snprintf(fmt, sizeof(fmt), "%-16s %%llu\n", counter_names[i]);
		print_uint(counter_names[i], fmt, nla_get_u64(tb[i]));
	}
	print_close_object();
	if (json)
		putchar('\n');
	return NL_OK;
}

static int do_stats(int argc, char **argv)
{
	if (argc > 0)
		usage_error("\"%s\" is unexpected", argv[0]);
	return nl_transact(nl_request(PSOCK_CMD_COUNTERS_GET, false),
			   stats_print, NULL) ? EXIT_KERNEL : 0;
}

/* ---- monitor ---- */

static void event_addr(struct nlattr **tb, int a4, int a6, int port,
		       const char *kaddr, const char *kport, const char *fmt)
{
	char addr[INET6_ADDRSTRLEN] = "?";

	if (tb[a4])
		inet_ntop(AF_INET, nla_data(tb[a4]), addr, sizeof(addr));
	else if (tb[a6])
		inet_ntop(AF_INET6, nla_data(tb[a6]), addr, sizeof(addr));
	print_string(kaddr, fmt, addr);
	if (tb[port])
		print_uint(kport, ":%llu", ntohs(nla_get_u16(tb[port])));
}

static const char *const event_names[] = {
	[PSOCK_CMD_SUBFLOW_ESTABLISHED]	= "subflow-established",
	[PSOCK_CMD_SUBFLOW_CLOSED]	= "subflow-closed",
};

static int event_print(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[PSOCK_A_SUBFLOW_EVENT_MAX + 1];

	(void)arg;
	if (!event_open(msg, event_names, ARRAY_SIZE(event_names), tb,
			PSOCK_A_SUBFLOW_EVENT_MAX))
		return NL_SKIP;
	if (tb[PSOCK_A_SUBFLOW_EVENT_INDEX])
		print_uint("index", " index %llu",
			   nla_get_u8(tb[PSOCK_A_SUBFLOW_EVENT_INDEX]));
	event_addr(tb, PSOCK_A_SUBFLOW_EVENT_SADDR4, PSOCK_A_SUBFLOW_EVENT_SADDR6,
		   PSOCK_A_SUBFLOW_EVENT_SPORT, "saddr", "sport", " %s");
	event_addr(tb, PSOCK_A_SUBFLOW_EVENT_DADDR4, PSOCK_A_SUBFLOW_EVENT_DADDR6,
		   PSOCK_A_SUBFLOW_EVENT_DPORT, "daddr", "dport", " -> %s");
	if (tb[PSOCK_A_SUBFLOW_EVENT_ERROR])
		print_uint("error", " error %llu",
			   nla_get_u32(tb[PSOCK_A_SUBFLOW_EVENT_ERROR]));
	event_close();
	return NL_OK;
}

int do_psock(int argc, char **argv)
{
	if (argc < 1 || matches(*argv, "help")) {
		psock_usage();
		return argc < 1 ? EXIT_USAGE : 0;
	}
	nl_open(PSOCK_FAMILY_NAME);
	if (matches(*argv, "endpoint"))
		return do_endpoint(argc - 1, argv + 1);
	if (matches(*argv, "limits"))
		return do_limits(argc - 1, argv + 1);
	if (matches(*argv, "stats"))
		return do_stats(argc - 1, argv + 1);
	if (matches(*argv, "monitor")) {
		if (argc > 1)
			usage_error("\"%s\" is unexpected", argv[1]);
		return nl_monitor(PSOCK_FAMILY_NAME, PSOCK_MCGRP_EVENTS,
				  event_print);
	}
	usage_error("object \"psock %s\" is unknown, try \"hicnctl psock help\"", *argv);
}
