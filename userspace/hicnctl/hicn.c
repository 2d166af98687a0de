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
 *   listener add|del|show    UDP listeners (hicn_fwd.c)
 *   face add|del|show        faces: UDP faces to other hosts, and the
 *                            sockets' application faces
 *   route add|del|show       the FIB: prefixes, next hops, costs
 *   strategy set             a route's strategy
 *
 * Each is a command without "hicn" too ("hicnctl cs show"), but for
 * monitor: "hicnctl monitor" is both families' (monitor.c).
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <hcn.h>

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
	"hicnctl hicn listener add ADDRESS [ port PORT ] [ auto-faces { on | off } ]",
	"hicnctl hicn listener del ID",
	"hicnctl hicn listener show [ ID ]",
	"hicnctl hicn face add udp { listener ID | local ADDRESS [ port PORT ] }",
	"                          remote ADDRESS [ port PORT ] [ format FORMAT ]",
	"hicnctl hicn face del FACE",
	"hicnctl hicn face show [ FACE ]",
	"hicnctl hicn route add PREFIX via FACE [ cost N ]",
	"hicnctl hicn route del PREFIX via FACE",
	"hicnctl hicn route show [ PREFIX ]",
	"hicnctl hicn strategy set PREFIX STRATEGY",
	NULL,
	"PREFIX := ADDRESS/LENGTH (IPv6 format, LENGTH 0 to 128)",
	"ADDRESS := an IPv4 or IPv6 address (listener, face); PORT := 1 to 65535 (9695)",
	"ID, FACE := a listener's or a face's number, as show prints it",
	"FORMAT := { ipv6-tcp | compact }",
	"STRATEGY := { best-route | load-balance }",
	"LIMIT := { pit-max | cs-max-entries | cs-mem-max | prod-mem-max |",
	"           unprivileged-prefix-min | pit-user-max | prod-user-mem-max }",
	NULL,
};

void hicn_usage(void)
{
	print_grammar(stderr, hicn_grammar, "Usage: ", true);
}

/*
 * Parses "ADDRESS/LENGTH" into @p.  A length up to 255 is sent as it is:
 * the kernel judges it (and says so).
 */
void get_prefix(struct hicn_prefix *p, const char *arg)
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
	p->set = true;
	p->addr = a6;
	p->len = len;
}

/* The optional "prefix PREFIX" that ends a command. */
static void parse_prefix_arg(int argc, char **argv, struct hicn_prefix *p)
{
	while (argc > 0) {
		if (!strcmp(*argv, "prefix"))
			get_prefix(p, next_arg(&argc, &argv, "prefix"));
		else
			usage_error(HICN_UNKNOWN, *argv);
		argc--;
		argv++;
	}
}

/* An address (when @has_addr) and its length (when @len >= 0). */
void print_prefix(const char *key, const char *fmt, bool has_addr,
		  const struct in6_addr *a, int len)
{
	char addr[INET6_ADDRSTRLEN] = "?";
	char buf[INET6_ADDRSTRLEN + 8];

	if (has_addr)
		inet_ntop(AF_INET6, a, addr, sizeof(addr));
	if (len >= 0)
		snprintf(buf, sizeof(buf), "%s/%u", addr, len);
	else
		snprintf(buf, sizeof(buf), "%s", addr);
	print_string(key, fmt, buf);
}

/* Prints @val when attribute @a is in the mask @attrs. */
void print_attr(__u32 attrs, int a, const char *key, const char *fmt,
		__u64 val)
{
	if (attrs & HCN_ATTR(a))
		print_uint(key, fmt, val);
}

/* Ends a one-object reply or a list: a newline after JSON. */
int end_json(int err)
{
	if (json)
		putchar('\n');
	return err ? EXIT_KERNEL : 0;
}

/* ---- namespace ---- */

/* A claim's attributes; @fmt prints the prefix. */
static void namespace_fields(const struct hcn_namespace *ns, const char *fmt)
{
	__u32 a = ns->attrs;

	print_prefix("prefix", fmt, a & HCN_ATTR(HICN_A_NAMESPACE_PREFIX),
		     &ns->prefix, a & HCN_ATTR(HICN_A_NAMESPACE_PREFIX_LEN) ?
		     ns->prefix_len : -1);
	print_attr(a, HICN_A_NAMESPACE_UID, "uid", " uid %llu", ns->uid);
	print_attr(a, HICN_A_NAMESPACE_INODE, "inode", " inode %llu",
		   ns->inode);
	print_attr(a, HICN_A_NAMESPACE_FACE_ID, "face", " face %llu",
		   ns->face_id);
	print_attr(a, HICN_A_NAMESPACE_NAMES, "names", " names %llu",
		   ns->names);
	print_attr(a, HICN_A_NAMESPACE_VERSIONS, "versions",
		   " versions %llu", ns->versions);
	print_attr(a, HICN_A_NAMESPACE_MEM, "mem", " mem %llu", ns->mem);
}

static int namespace_print(const struct hcn_namespace *ns, void *arg)
{
	(void)arg;
	print_open_object(NULL);
	namespace_fields(ns, "%s");
	print_close_object();
	print_nl();
	return 0;
}

static int do_namespace(int argc, char **argv)
{
	struct hicn_prefix p = {};
	struct hcn_namespace ns;
	bool dump;
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
	dump = argc == 0;
	parse_prefix_arg(argc, argv, &p);
	print_open_array(NULL);
	if (dump) {
		err = hcn_namespace_dump(namespace_print, NULL);
	} else {
		err = hcn_namespace_get(&p.addr, p.len, &ns);
		if (!err)
			namespace_print(&ns, NULL);
	}
	err = kernel_error(err);
	print_close_array();
	return end_json(err);
}

/* ---- content store ---- */

/* The counters a collector adds to a show with -s. */
static void print_gc(__u64 runs, __u64 steps)
{
	print_uint("gc_runs", " gc-runs %llu", runs);
	print_uint("gc_steps", " gc-steps %llu", steps);
}

/* -s: the forwarder's counters, or NULL (error printed). */
static const struct hcn_counters *get_counters(void)
{
	static struct hcn_counters c;
	int n = hcn_counters_get(&c, sizeof(c));

	return kernel_error(n < 0 ? n : 0) ? NULL : &c;
}

static int cs_print(const struct hcn_cs *cs, const struct hcn_counters *c)
{
	__u32 a = cs->attrs;

	print_open_object(NULL);
	print_attr(a, HICN_A_CS_ENTRIES, "entries", "entries %llu",
		   cs->entries);
	print_attr(a, HICN_A_CS_BYTES, "bytes", " bytes %llu", cs->bytes);
	print_attr(a, HICN_A_CS_MAX_ENTRIES, "capacity", " capacity %llu",
		   cs->max_entries);
	print_attr(a, HICN_A_CS_MEM_MAX, "mem", " mem %llu", cs->mem_max);
	print_attr(a, HICN_A_CS_HITS, "hits", " hits %llu", cs->hits);
	print_attr(a, HICN_A_CS_MISSES, "misses", " misses %llu", cs->misses);
	print_attr(a, HICN_A_CS_EVICTIONS, "evictions", " evictions %llu",
		   cs->evictions);
	if (c)
		print_gc(c->cs_gc_runs, c->cs_gc_steps);
	print_close_object();
	print_nl();
	return 0;
}

static int cs_entry_print(const struct hcn_cs_entry *e, void *arg)
{
	__u32 a = e->attrs;

	(void)arg;
	print_open_object(NULL);
	print_prefix("name", "%s", a & HCN_ATTR(HICN_A_CS_ENTRY_NAME), &e->name,
		     -1);
	print_attr(a, HICN_A_CS_ENTRY_VERSION, "version", " version %llu",
		   e->version);
	print_attr(a, HICN_A_CS_ENTRY_SEGMENT, "segment", " segment %llu",
		   e->segment);
	print_attr(a, HICN_A_CS_ENTRY_FINAL_SEGMENT, "final", "/%llu",
		   e->final_segment);
	print_attr(a, HICN_A_CS_ENTRY_SIZE, "size", " size %llu", e->size);
	print_attr(a, HICN_A_CS_ENTRY_OBJECT_SIZE, "object_size",
		   " object %llu", e->object_size);
	print_attr(a, HICN_A_CS_ENTRY_EXPIRES_MS, "expires_ms",
		   " expires %llums", e->expires_ms);
	print_close_object();
	print_nl();
	return 0;
}

static int cs_set(int argc, char **argv)
{
	struct hcn_cs cs = {};

	for (; argc > 0; argc--, argv++) {
		if (!strcmp(*argv, "capacity")) {
			cs.max_entries = get_number(next_arg(&argc, &argv,
							     "capacity"),
						    "capacity");
			cs.attrs |= HCN_ATTR(HICN_A_CS_MAX_ENTRIES);
		} else if (!strcmp(*argv, "mem")) {
			cs.mem_max = get_u64(next_arg(&argc, &argv, "mem"),
					     "byte count");
			cs.attrs |= HCN_ATTR(HICN_A_CS_MEM_MAX);
		} else {
			usage_error(HICN_UNKNOWN, *argv);
		}
	}
	return kernel_error(hcn_cs_set(&cs)) ? EXIT_KERNEL : 0;
}

static int do_cs(int argc, char **argv)
{
	const struct hcn_counters *c = NULL;
	struct hicn_prefix p = {};
	struct hcn_cs cs;
	int err;

	if (argc < 1 || matches(*argv, "show")) {
		if (argc > 1)
			usage_error("\"%s\" is unexpected", argv[1]);
		err = kernel_error(hcn_cs_get(&cs));
		if (!err && show_stats) {
			c = get_counters();
			err = !c;
		}
		if (!err)
			cs_print(&cs, c);
		return end_json(err);
	}
	if (matches(*argv, "entries")) {
		parse_prefix_arg(argc - 1, argv + 1, &p);
		print_open_array(NULL);
		err = kernel_error(hcn_cs_entry_dump(p.set ? &p.addr : NULL,
						     p.len, cs_entry_print,
						     NULL));
		print_close_array();
		return end_json(err);
	}
	if (matches(*argv, "flush")) {
		parse_prefix_arg(argc - 1, argv + 1, &p);
		return kernel_error(hcn_cs_flush(p.set ? &p.addr : NULL,
						 p.len)) ? EXIT_KERNEL : 0;
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

static void pit_print(const struct hcn_pit *pit, const struct hcn_counters *c)
{
	__u32 a = pit->attrs;

	print_open_object(NULL);
	print_attr(a, HICN_A_PIT_ENTRIES, "entries", "entries %llu",
		   pit->entries);
	print_attr(a, HICN_A_PIT_ENTRIES_MAX, "max", " max %llu",
		   pit->entries_max);
	print_attr(a, HICN_A_PIT_AGGREGATED, "aggregated",
		   " aggregated %llu", pit->aggregated);
	print_attr(a, HICN_A_PIT_DROPS, "drops", " drops %llu", pit->drops);
	print_attr(a, HICN_A_PIT_EXPIRED, "expired", " expired %llu",
		   pit->expired);
	print_attr(a, HICN_A_PIT_USER_MAX, "user_max", " user-max %llu",
		   pit->user_max);
	print_attr(a, HICN_A_PIT_USER_DROPS, "user_drops",
		   " user-drops %llu", pit->user_drops);
	if (c)
		print_gc(c->pit_gc_runs, c->pit_gc_steps);
	print_close_object();
	print_nl();
}

static int do_pit(int argc, char **argv)
{
	const struct hcn_counters *c = NULL;
	struct hcn_pit pit;
	int err;

	if (argc > 0 && matches(*argv, "help")) {
		hicn_usage();
		return 0;
	}
	if (argc > 0 && !matches(*argv, "show"))
		usage_error("command \"%s\" is unknown, try \"hicnctl hicn help\"",
			    *argv);
	if (argc > 1)
		usage_error("\"%s\" is unexpected", argv[1]);
	err = kernel_error(hcn_pit_get(&pit));
	if (!err && show_stats) {
		c = get_counters();
		err = !c;
	}
	if (!err)
		pit_print(&pit, c);
	return end_json(err);
}

/* ---- limits ---- */

/* The limits by their sysctl's name (dashes), attribute and member. */
#define LIMIT(n, a, m, w) { n, a, w, offsetof(struct hcn_limits, m) }
static const struct {
	const char	*name;
	int		attr;
	bool		wide;
	size_t		off;
} limits[] = {
	LIMIT("pit-max", HICN_A_LIMITS_PIT_MAX, pit_max, false),
	LIMIT("cs-max-entries", HICN_A_LIMITS_CS_MAX_ENTRIES, cs_max_entries,
	      false),
	LIMIT("cs-mem-max", HICN_A_LIMITS_CS_MEM_MAX, cs_mem_max, true),
	LIMIT("prod-mem-max", HICN_A_LIMITS_PROD_MEM_MAX, prod_mem_max, true),
	LIMIT("unprivileged-prefix-min", HICN_A_LIMITS_UNPRIVILEGED_PREFIX_MIN,
	      unprivileged_prefix_min, false),
	LIMIT("pit-user-max", HICN_A_LIMITS_PIT_USER_MAX, pit_user_max, false),
	LIMIT("prod-user-mem-max", HICN_A_LIMITS_PROD_USER_MEM_MAX,
	      prod_user_mem_max, true),
};

static void limits_print(const struct hcn_limits *l)
{
	char fmt[48];
	size_t i;

	print_open_object(NULL);
	for (i = 0; i < ARRAY_SIZE(limits); i++) {
		const char *p = (const char *)l + limits[i].off;
		__u64 v = 0;
		__u32 v32;

		if (limits[i].wide) {
			memcpy(&v, p, sizeof(v));
		} else {
			memcpy(&v32, p, sizeof(v32));
			v = v32;
		}
		snprintf(fmt, sizeof(fmt), "%s%s %%llu", i ? " " : "",
			 limits[i].name);
		print_attr(l->attrs, limits[i].attr, limits[i].name, fmt, v);
	}
	print_close_object();
	print_nl();
}

static int do_limits(int argc, char **argv)
{
	struct hcn_limits l = {};
	size_t i;
	int err;

	if (argc < 1 || matches(*argv, "show")) {
		if (argc > 1)
			usage_error("\"%s\" is unexpected", argv[1]);
		err = kernel_error(hcn_limits_get(&l));
		if (!err)
			limits_print(&l);
		return end_json(err);
	}
	if (matches(*argv, "help")) {
		hicn_usage();
		return 0;
	}
	if (!matches(*argv, "set"))
		usage_error("command \"%s\" is unknown, try \"hicnctl hicn help\"",
			    *argv);

	for (argc--, argv++; argc > 0; argc--, argv++) {
		char *p;

		for (i = 0; i < ARRAY_SIZE(limits); i++)
			if (!strcmp(*argv, limits[i].name))
				break;
		if (i == ARRAY_SIZE(limits))
			usage_error(HICN_UNKNOWN, *argv);
		p = (char *)&l + limits[i].off;
		if (limits[i].wide) {
			__u64 v = get_u64(next_arg(&argc, &argv, limits[i].name),
					  limits[i].name);

			memcpy(p, &v, sizeof(v));
		} else {
			__u32 v = get_number(next_arg(&argc, &argv,
						      limits[i].name),
					     limits[i].name);

			memcpy(p, &v, sizeof(v));
		}
		l.attrs |= HCN_ATTR(limits[i].attr);
	}
	return kernel_error(hcn_limits_set(&l)) ? EXIT_KERNEL : 0;
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
	"pit_gc_runs", "pit_gc_steps", "fib_floors", "failover_reforwards",
	"data_zerocopy",
};

static int do_stats(int argc, char **argv)
{
	__u64 val[HCN_COUNTERS_NUM];
	char fmt[40];
	int i, n;

	if (argc > 0)
		usage_error("\"%s\" is unexpected", argv[0]);
	n = hcn_counters_get((struct hcn_counters *)val, sizeof(val));
	if (kernel_error(n < 0 ? n : 0))
		return end_json(n);
	print_open_object(NULL);
	for (i = 0; i < n && i < (int)ARRAY_SIZE(counter_names); i++) {
		snprintf(fmt, sizeof(fmt), "%s %%llu\n", counter_names[i]);
		print_uint(counter_names[i], fmt, val[i]);
	}
	print_close_object();
	return end_json(0);
}

/* ---- monitor ---- */

static const char *const event_names[] = {
	[HICN_CMD_NAMESPACE_CLAIMED]	= "namespace-claimed",
	[HICN_CMD_NAMESPACE_RELEASED]	= "namespace-released",
	[HICN_CMD_FACE_ADDED]		= "face-added",
	[HICN_CMD_FACE_DELETED]		= "face-deleted",
	[HICN_CMD_FACE_UP]		= "face-up",
	[HICN_CMD_FACE_DOWN]		= "face-down",
	[HICN_CMD_ROUTE_ADDED]		= "route-added",
	[HICN_CMD_ROUTE_DELETED]	= "route-deleted",
};

/* One line per event; an event of a later kernel is passed over. */
static int event_print(const struct hcn_event *ev, void *arg)
{
	(void)arg;
	if (ev->type < 0 || ev->type >= (int)ARRAY_SIZE(event_names) ||
	    !event_names[ev->type])
		return 0;
	event_open(event_names[ev->type]);
	switch (ev->type) {
	case HICN_CMD_NAMESPACE_CLAIMED:
	case HICN_CMD_NAMESPACE_RELEASED:
		namespace_fields(&ev->ns, " %s");
		break;
	case HICN_CMD_ROUTE_ADDED:
	case HICN_CMD_ROUTE_DELETED:
		route_event_fields(&ev->route);
		break;
	default:
		face_fields(&ev->face, " face %llu");
		break;
	}
	event_close();
	return 0;
}

/*
 * hicn's events until one cannot be read: libhcn's error.  Events lost
 * to an overrun are reported and the monitor starts again.
 */
int hicn_events(void)
{
	int err;

	for (;;) {
		err = hcn_monitor(event_print, NULL);
		if (!events_lost(HICN_FAMILY_NAME, err))
			return err;
	}
}

static int do_hicn_monitor(int argc, char **argv)
{
	if (argc > 0)
		usage_error("\"%s\" is unexpected", *argv);
	return monitor_error(HICN_FAMILY_NAME, hicn_events());
}

/*
 * The objects, in the order a prefix picks them ("l" is limits, "s"
 * stats).  hicnctl.c takes them without "hicn" too, but for monitor:
 * "hicnctl monitor" follows both families (monitor.c).
 */
static const struct {
	const char	*name;
	int		(*fn)(int argc, char **argv);
} objects[] = {
	{ "namespace",	do_namespace },
	{ "cs",		do_cs },
	{ "pit",	do_pit },
	{ "limits",	do_limits },
	{ "stats",	do_stats },
	{ "listener",	do_listener },
	{ "face",	do_face },
	{ "route",	do_route },
	{ "strategy",	do_strategy },
	{ "monitor",	do_hicn_monitor },
};

bool hicn_object(const char *arg)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(objects); i++)
		if (matches(arg, objects[i].name))
			return true;
	return false;
}

int do_hicn(int argc, char **argv)
{
	size_t i;

	if (argc < 1 || matches(*argv, "help")) {
		hicn_usage();
		return argc < 1 ? EXIT_USAGE : 0;
	}
	need_family(HICN_FAMILY_NAME);
	for (i = 0; i < ARRAY_SIZE(objects); i++)
		if (matches(*argv, objects[i].name))
			return objects[i].fn(argc - 1, argv + 1);
	usage_error("object \"hicn %s\" is unknown, try \"hicnctl hicn help\"", *argv);
}
