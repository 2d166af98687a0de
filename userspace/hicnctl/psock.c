// SPDX-License-Identifier: GPL-2.0
/*
 * hicnctl psock: the "psock" generic netlink family of psock.ko
 * (<linux/psock_netlink.h>, Documentation/netlink/specs/psock.yaml).
 *
 *   endpoint add|delete|show|flush   local addresses for extra subflows
 *   limits show|set                  default stream counts and driver
 *   stats                            the namespace's counters
 *   monitor                          subflow events, as they happen
 *   show                             the sockets, as ss (psock_diag.c)
 */

#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/psock.h>
#include <hcn.h>

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
	"hicnctl psock show [ inet | inet6 ] [ all | listening ] [ sport PORT ] [ dport PORT ] [ subflows ]",
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

/* An endpoint id as the kernel's policy takes it: 1 to 255. */
static __u8 get_endpoint_id(const char *arg)
{
	unsigned long id = get_number(arg, "endpoint id");

	if (id < 1 || id > 255)
		usage_error("\"%s\" is not a valid endpoint id (1 to 255)", arg);
	return id;
}

static int endpoint_print(const struct hcn_psock_endpoint *ep, void *arg)
{
	char addr[INET6_ADDRSTRLEN] = "?", ifname[IF_NAMESIZE];
	__u32 a = ep->attrs;
	size_t i;

	(void)arg;
	if (a & HCN_ATTR(PSOCK_A_ENDPOINT_ADDR4))
		inet_ntop(AF_INET, &ep->addr.v4, addr, sizeof(addr));
	else if (a & HCN_ATTR(PSOCK_A_ENDPOINT_ADDR6))
		inet_ntop(AF_INET6, &ep->addr.v6, addr, sizeof(addr));

	print_open_object(NULL);
	print_string("address", "%s", addr);
	if (a & HCN_ATTR(PSOCK_A_ENDPOINT_ID))
		print_uint("id", " id %llu", ep->id);
	print_open_array("flags");
	for (i = 0; i < ARRAY_SIZE(endpoint_flags); i++)
		if (ep->flags & endpoint_flags[i].bit)
			print_flag(endpoint_flags[i].name);
	print_close_array();
	if (a & HCN_ATTR(PSOCK_A_ENDPOINT_IFINDEX)) {
		if (ep->ifindex > 0 && if_indextoname(ep->ifindex, ifname))
			print_string("dev", " dev %s", ifname);
		else if (ep->ifindex > 0)
			print_uint("ifindex", " ifindex %llu", ep->ifindex);
	}
	print_close_object();
	print_nl();
	return 0;
}

static int endpoint_show(int argc, char **argv)
{
	struct hcn_psock_endpoint ep;
	bool dump = argc == 0;
	__u8 id = 0;
	int err;

	while (argc > 0) {
		if (!strcmp(*argv, "id"))
			id = get_endpoint_id(next_arg(&argc, &argv, "id"));
		else
			usage_error("\"%s\" is unknown, try \"hicnctl psock help\"", *argv);
		argc--;
		argv++;
	}
	print_open_array(NULL);
	if (dump) {
		err = hcn_psock_endpoint_dump(endpoint_print, NULL);
	} else {
		err = hcn_psock_endpoint_get(id, &ep);
		if (!err)
			endpoint_print(&ep, NULL);
	}
	err = kernel_error(err);
	print_close_array();
	if (json)
		putchar('\n');
	return err ? EXIT_KERNEL : 0;
}

static int endpoint_add(int argc, char **argv)
{
	struct hcn_psock_endpoint ep = {};
	bool have_addr = false;
	size_t i;

	while (argc > 0) {
		if (!strcmp(*argv, "id")) {
			ep.id = get_endpoint_id(next_arg(&argc, &argv, "id"));
			ep.attrs |= HCN_ATTR(PSOCK_A_ENDPOINT_ID);
		} else if (!strcmp(*argv, "dev")) {
			char *v = next_arg(&argc, &argv, "dev");
			unsigned int ifindex = if_nametoindex(v);

			if (!ifindex)
				usage_error("cannot find device \"%s\"", v);
			ep.ifindex = ifindex;
			ep.attrs |= HCN_ATTR(PSOCK_A_ENDPOINT_IFINDEX);
		} else if (!have_addr &&
			   inet_pton(AF_INET, *argv, &ep.addr.v4) == 1) {
			ep.family = AF_INET;
			ep.attrs |= HCN_ATTR(PSOCK_A_ENDPOINT_FAMILY) |
				    HCN_ATTR(PSOCK_A_ENDPOINT_ADDR4);
			have_addr = true;
		} else if (!have_addr &&
			   inet_pton(AF_INET6, *argv, &ep.addr.v6) == 1) {
			ep.family = AF_INET6;
			ep.attrs |= HCN_ATTR(PSOCK_A_ENDPOINT_FAMILY) |
				    HCN_ATTR(PSOCK_A_ENDPOINT_ADDR6);
			have_addr = true;
		} else {
			for (i = 0; i < ARRAY_SIZE(endpoint_flags); i++)
				if (!strcmp(*argv, endpoint_flags[i].name))
					break;
			if (i == ARRAY_SIZE(endpoint_flags))
				usage_error("\"%s\" is not an address, a flag or a keyword",
					    *argv);
			ep.flags |= endpoint_flags[i].bit;
		}
		argc--;
		argv++;
	}
	if (!have_addr)
		usage_error("an endpoint needs an address");
	if (ep.flags)
		ep.attrs |= HCN_ATTR(PSOCK_A_ENDPOINT_FLAGS);
	return kernel_error(hcn_psock_endpoint_add(&ep, NULL)) ? EXIT_KERNEL : 0;
}

static int endpoint_delete(int argc, char **argv)
{
	bool have_id = false;
	__u8 id = 0;

	while (argc > 0) {
		if (!strcmp(*argv, "id")) {
			id = get_endpoint_id(next_arg(&argc, &argv, "id"));
			have_id = true;
		} else {
			usage_error("\"%s\" is unknown, try \"hicnctl psock help\"", *argv);
		}
		argc--;
		argv++;
	}
	if (!have_id)
		usage_error("delete needs \"id ID\"");
	return kernel_error(hcn_psock_endpoint_del(id)) ? EXIT_KERNEL : 0;
}

static int endpoint_flush(int argc, char **argv)
{
	int family = AF_UNSPEC;

	if (argc > 0) {
		if (!strcmp(*argv, "inet"))
			family = AF_INET;
		else if (!strcmp(*argv, "inet6"))
			family = AF_INET6;
		else
			usage_error("\"%s\" is not inet or inet6", *argv);
		if (argc > 1)
			usage_error("\"%s\" is unexpected", argv[1]);
	}
	return kernel_error(hcn_psock_endpoint_flush(family)) ? EXIT_KERNEL : 0;
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

static void limits_print(const struct hcn_psock_limits *l)
{
	__u32 a = l->attrs;

	print_open_object(NULL);
	if (a & HCN_ATTR(PSOCK_A_LIMITS_RCMD_STREAM_CNT))
		print_uint("rcmd", "rcmd %llu", l->rcmd_stream_cnt);
	if (a & HCN_ATTR(PSOCK_A_LIMITS_MAX_STREAM_CNT))
		print_uint("max", " max %llu", l->max_stream_cnt);
	if (a & HCN_ATTR(PSOCK_A_LIMITS_DRIVER)) {
		if (l->driver < ARRAY_SIZE(driver_names))
			print_string("driver", " driver %s",
				     driver_names[l->driver]);
		else
			print_uint("driver", " driver %llu", l->driver);
	}
	print_close_object();
	print_nl();
}

static int do_limits(int argc, char **argv)
{
	struct hcn_psock_limits l = {};
	int err;

	if (argc < 1 || matches(*argv, "show")) {
		if (argc > 1)
			usage_error("\"%s\" is unexpected", argv[1]);
		err = kernel_error(hcn_psock_limits_get(&l));
		if (!err)
			limits_print(&l);
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

	for (argc--, argv++; argc > 0; argc--, argv++) {
		if (!strcmp(*argv, "rcmd")) {
			char *v = next_arg(&argc, &argv, "rcmd");

			l.rcmd_stream_cnt = get_number(v, "stream count");
			l.attrs |= HCN_ATTR(PSOCK_A_LIMITS_RCMD_STREAM_CNT);
		} else if (!strcmp(*argv, "max")) {
			char *v = next_arg(&argc, &argv, "max");

			l.max_stream_cnt = get_number(v, "stream count");
			l.attrs |= HCN_ATTR(PSOCK_A_LIMITS_MAX_STREAM_CNT);
		} else if (!strcmp(*argv, "driver")) {
			char *v = next_arg(&argc, &argv, "driver");
			size_t d;

			for (d = 0; d < ARRAY_SIZE(driver_names); d++)
				if (!strcmp(v, driver_names[d]))
					break;
			l.driver = d < ARRAY_SIZE(driver_names) ? d :
				   get_number(v, "driver");
			l.attrs |= HCN_ATTR(PSOCK_A_LIMITS_DRIVER);
		} else {
			usage_error("\"%s\" is unknown, try \"hicnctl psock help\"", *argv);
		}
	}
	return kernel_error(hcn_psock_limits_set(&l)) ? EXIT_KERNEL : 0;
}

/* ---- stats ---- */

/* The names of /proc/net/psock, in attribute order. */
static const char *const counter_names[] = {
	"ActiveOpens", "PassiveOpens", "Fallbacks", "HandshakeFails",
	"SubflowsOpened", "SubflowsJoined", "BlocksSent", "BlocksReceived",
	"BlocksCopied", "CloseTimeouts", "ListenOverflows", "JoinsMissing",
	"Resends", "SubflowsLostTimeout", "SubflowsLostError",
	"SubflowsReopened", "DupsDropped", "JoinsRefused", "Aborts",
};

static int do_stats(int argc, char **argv)
{
	__u64 val[HCN_PSOCK_COUNTERS_NUM];
	char fmt[32];
	int i, n;

	if (argc > 0)
		usage_error("\"%s\" is unexpected", argv[0]);
	n = hcn_psock_counters_get((struct hcn_psock_counters *)val,
				   sizeof(val));
	if (kernel_error(n < 0 ? n : 0))
		return EXIT_KERNEL;
	print_open_object(NULL);
	for (i = 0; i < n && i < (int)ARRAY_SIZE(counter_names); i++) {
		snprintf(fmt, sizeof(fmt), "%-20s %%llu\n", counter_names[i]);
		print_uint(counter_names[i], fmt, val[i]);
	}
	print_close_object();
	if (json)
		putchar('\n');
	return 0;
}

/* ---- monitor ---- */

static void event_addr(const struct hcn_psock_event *ev, bool src,
		       const char *kaddr, const char *kport, const char *fmt)
{
	int a4 = src ? PSOCK_A_SUBFLOW_EVENT_SADDR4 : PSOCK_A_SUBFLOW_EVENT_DADDR4;
	int a6 = src ? PSOCK_A_SUBFLOW_EVENT_SADDR6 : PSOCK_A_SUBFLOW_EVENT_DADDR6;
	int port = src ? PSOCK_A_SUBFLOW_EVENT_SPORT : PSOCK_A_SUBFLOW_EVENT_DPORT;
	const void *v4 = src ? (const void *)&ev->saddr.v4 : &ev->daddr.v4;
	const void *v6 = src ? (const void *)&ev->saddr.v6 : &ev->daddr.v6;
	bool has_port = ev->attrs & HCN_ATTR(port);
	char addr[INET6_ADDRSTRLEN + 2] = "?";

	if (ev->attrs & HCN_ATTR(a4)) {
		inet_ntop(AF_INET, v4, addr, sizeof(addr));
	} else if (ev->attrs & HCN_ATTR(a6)) {
		/* Text: [addr]:port, as psock show and ss print it. */
		bool brackets = has_port && !json;

		inet_ntop(AF_INET6, v6, addr + brackets, INET6_ADDRSTRLEN);
		if (brackets) {
			addr[0] = '[';
			strcat(addr, "]");
		}
	}
	print_string(kaddr, fmt, addr);
	if (has_port)
		print_uint(kport, ":%llu", src ? ev->sport : ev->dport);
}

static int event_print(const struct hcn_psock_event *ev, void *arg)
{
	(void)arg;
	event_open(ev->type == PSOCK_CMD_SUBFLOW_ESTABLISHED ?
		   "subflow-established" : "subflow-closed");
	if (ev->attrs & HCN_ATTR(PSOCK_A_SUBFLOW_EVENT_INDEX))
		print_uint("index", " index %llu", ev->index);
	event_addr(ev, true, "saddr", "sport", " %s");
	event_addr(ev, false, "daddr", "dport", " -> %s");
	if (ev->attrs & HCN_ATTR(PSOCK_A_SUBFLOW_EVENT_ERROR))
		print_uint("error", " error %llu", ev->error);
	event_close();
	return 0;
}

/*
 * psock's events until one cannot be read: libhcn's error.  Events lost
 * to an overrun are reported and the monitor starts again.
 */
int psock_events(void)
{
	int err;

	for (;;) {
		err = hcn_psock_monitor(event_print, NULL);
		if (!events_lost(PSOCK_FAMILY_NAME, err))
			return err;
	}
}

int do_psock(int argc, char **argv)
{
	if (argc < 1 || matches(*argv, "help")) {
		psock_usage();
		return argc < 1 ? EXIT_USAGE : 0;
	}
	/* sock_diag, not the netlink family: inet_diag loads psock.ko. */
	if (matches(*argv, "show"))
		return psock_show(argc - 1, argv + 1);
	need_family(PSOCK_FAMILY_NAME);
	if (matches(*argv, "endpoint"))
		return do_endpoint(argc - 1, argv + 1);
	if (matches(*argv, "limits"))
		return do_limits(argc - 1, argv + 1);
	if (matches(*argv, "stats"))
		return do_stats(argc - 1, argv + 1);
	if (matches(*argv, "monitor")) {
		if (argc > 1)
			usage_error("\"%s\" is unexpected", argv[1]);
		return monitor_error(PSOCK_FAMILY_NAME, psock_events());
	}
	usage_error("object \"psock %s\" is unknown, try \"hicnctl psock help\"", *argv);
}
