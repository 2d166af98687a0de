// SPDX-License-Identifier: GPL-2.0
/*
 * hicnctl hicn: the forwarder's listeners, faces, routes and strategies
 * (the listener-*, face-*, route-* and strategy-set operations of the
 * "hicn" generic netlink family, through libhcn).
 *
 *   listener add|del|show    UDP sockets of the forwarder
 *   face add|del|show        UDP faces to other hosts; show lists the
 *                            sockets' application faces too
 *   route add|del|show       next hops of prefixes, with costs
 *   strategy set             best route or load balance, per route
 *
 * "hicnctl face ...", "hicnctl route ...", "hicnctl listener ..." and
 * "hicnctl strategy ..." are the same commands without "hicn".
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <hcn.h>

#include "hicnctl.h"

#define HICN_PORT	9695

static const char *const kind_names[] = {
	[HICN_FACE_KIND_CONSUMER]	= "consumer",
	[HICN_FACE_KIND_PRODUCER]	= "producer",
	[HICN_FACE_KIND_UDP]		= "udp",
};

static const char *const format_names[] = {
	[HICN_FORMAT_IPV6_TCP]	= "ipv6-tcp",
	[HICN_FORMAT_IPV4_TCP]	= "ipv4-tcp",
	[HICN_FORMAT_COMPACT]	= "compact",
};

static const char *const strategy_names[] = {
	[HICN_STRATEGY_BEST_ROUTE]	= "best-route",
	[HICN_STRATEGY_LOAD_BALANCE]	= "load-balance",
};

/* @names[@v], or @v as a number when it has no name. */
static void print_enum(const char *key, const char *fmt, const char *nfmt,
		       const char *const *names, size_t n, unsigned int v)
{
	if (v < n && names[v])
		print_string(key, fmt, names[v]);
	else
		print_uint(key, nfmt, v);
}

/* The index of @arg in @names, or -1. */
static int find_name(const char *arg, const char *const *names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (names[i] && !strcmp(arg, names[i]))
			return i;
	return -1;
}

/* An IPv4 or IPv6 address: its family, into @v4 or @v6. */
static __u16 get_addr(const char *arg, struct in_addr *v4,
		      struct in6_addr *v6)
{
	if (inet_pton(AF_INET, arg, v4) == 1)
		return AF_INET;
	if (inet_pton(AF_INET6, arg, v6) == 1)
		return AF_INET6;
	usage_error("\"%s\" is not an IPv4 or IPv6 address", arg);
}

static __u16 get_port(const char *arg)
{
	unsigned long p = get_number(arg, "port");

	if (p > 65535)
		usage_error("\"%s\" is not a valid port", arg);
	return p;
}

static __u32 get_id(const char *arg, const char *what)
{
	return get_number(arg, what);
}

/* An address of @family at @v4 / @v6, as text. */
static void print_addr(const char *key, const char *fmt, __u16 family,
		       const void *v4, const void *v6)
{
	char buf[INET6_ADDRSTRLEN] = "?";

	if (family == AF_INET)
		inet_ntop(AF_INET, v4, buf, sizeof(buf));
	else if (family == AF_INET6)
		inet_ntop(AF_INET6, v6, buf, sizeof(buf));
	print_string(key, fmt, buf);
}

/*
 * Ends an add: "KIND ID", or {"id":ID}, on success.  (Call the add first:
 * the order in which arguments are evaluated is unspecified.)
 */
static int print_new_id(int err, const char *kind, __u32 id)
{
	char fmt[32];

	if (kernel_error(err))
		return EXIT_KERNEL;
	snprintf(fmt, sizeof(fmt), "%s %%llu", kind);
	print_open_object(NULL);
	print_uint("id", fmt, id);
	print_close_object();
	putchar('\n');
	return 0;
}

/* Nothing may follow the arguments of a command. */
static void no_more(int argc, char **argv)
{
	if (argc > 0)
		usage_error("\"%s\" is unexpected", *argv);
}

/* ---- listeners ---- */

static int listener_print(const struct hcn_listener *l, void *arg)
{
	__u32 a = l->attrs;

	(void)arg;
	print_open_object(NULL);
	print_uint("id", "listener %llu", l->id);
	if (a & HCN_ATTR(HICN_A_LISTENER_LOCAL))
		print_addr("local", " local %s", l->family, &l->local.v4,
			   &l->local.v6);
	print_attr(a, HICN_A_LISTENER_PORT, "port", " port %llu", l->port);
	if (a & HCN_ATTR(HICN_A_LISTENER_AUTO_FACES)) {
		if (json)
			print_uint("auto_faces", "", l->auto_faces);
		else
			printf(" auto-faces %s", l->auto_faces ? "on" : "off");
	}
	print_attr(a, HICN_A_LISTENER_FACES, "faces", " faces %llu", l->faces);
	if (show_stats)
		print_attr(a, HICN_A_LISTENER_NO_FACE, "no_face",
			   " no-face %llu", l->no_face);
	print_close_object();
	print_nl();
	return 0;
}

static int listener_show(int argc, char **argv)
{
	struct hcn_listener l;
	int err;

	if (argc > 1)
		usage_error("\"%s\" is unexpected", argv[1]);
	print_open_array(NULL);
	if (argc == 0) {
		err = hcn_listener_dump(listener_print, NULL);
	} else {
		err = hcn_listener_get(get_id(*argv, "listener id"), &l);
		if (!err)
			listener_print(&l, NULL);
	}
	err = kernel_error(err);
	print_close_array();
	return end_json(err);
}

static int listener_add(int argc, char **argv)
{
	struct hcn_listener l = {};
	__u32 id = 0;
	int err;

	if (argc < 1)
		usage_error("listener add needs an ADDRESS");
	l.family = get_addr(*argv, &l.local.v4, &l.local.v6);
	l.attrs = HCN_ATTR(HICN_A_LISTENER_LOCAL);
	for (argc--, argv++; argc > 0; argc--, argv++) {
		if (!strcmp(*argv, "port")) {
			l.port = get_port(next_arg(&argc, &argv, "port"));
			l.attrs |= HCN_ATTR(HICN_A_LISTENER_PORT);
		} else if (!strcmp(*argv, "auto-faces")) {
			const char *v = next_arg(&argc, &argv, "auto-faces");

			if (strcmp(v, "on") && strcmp(v, "off"))
				usage_error("\"%s\" is not on or off", v);
			l.auto_faces = !strcmp(v, "on");
			l.attrs |= HCN_ATTR(HICN_A_LISTENER_AUTO_FACES);
		} else {
			usage_error(HICN_UNKNOWN, *argv);
		}
	}
	err = hcn_listener_add(&l, &id);
	return print_new_id(err, "listener", id);
}

int do_listener(int argc, char **argv)
{
	if (argc < 1 || matches(*argv, "show") || matches(*argv, "list"))
		return listener_show(argc ? argc - 1 : 0, argv + 1);
	if (matches(*argv, "add"))
		return listener_add(argc - 1, argv + 1);
	if (matches(*argv, "delete")) {
		if (argc < 2)
			usage_error("listener del needs an ID");
		no_more(argc - 2, argv + 2);
		return kernel_error(hcn_listener_del(get_id(argv[1],
							     "listener id"))) ?
		       EXIT_KERNEL : 0;
	}
	if (matches(*argv, "help")) {
		hicn_usage();
		return 0;
	}
	usage_error("command \"%s\" is unknown, try \"hicnctl hicn help\"", *argv);
}

/* ---- faces ---- */

/* -s: a UDP face's drops by reason, as the YAML spec names them. */
static void face_drops(__u32 id)
{
	static const char * const names[] = {
		"truncated", "version", "next-header", "length", "oversized",
		"header", "flags", "lifetime", "control", "ah", "transport",
		"name", "no-route", "pit-full", "nomem",
	};
	struct hcn_face_drops d;
	const __u64 *v = (const __u64 *)&d;
	char key[32], fmt[40];
	int i, n;

	n = hcn_face_drops_get(id, &d, sizeof(d));
	for (i = 0; i < n && i < (int)ARRAY_SIZE(names); i++) {
		snprintf(key, sizeof(key), "drop_%s", names[i]);
		for (char *p = key; *p; p++)
			if (*p == '-')
				*p = '_';
		snprintf(fmt, sizeof(fmt), " %s %%llu", names[i]);
		print_uint(key, fmt, v[i]);
	}
}

void face_fields(const struct hcn_face *f, const char *fmt)
{
	__u32 a = f->attrs;
	bool udp = a & HCN_ATTR(HICN_A_FACE_LISTENER_ID);

	print_uint("id", fmt, f->id);
	if (a & HCN_ATTR(HICN_A_FACE_KIND))
		print_enum("kind", " %s", " kind %llu", kind_names,
			   ARRAY_SIZE(kind_names), f->kind);
	if (a & HCN_ATTR(HICN_A_FACE_UP))
		print_string("state", " %s", f->up ? "up" : "down");
	print_attr(a, HICN_A_FACE_UID, "uid", " uid %llu", f->uid);
	print_attr(a, HICN_A_FACE_OUT_PENDING, "pending", " pending %llu",
		   f->out_pending);
	if (udp) {
		print_uint("listener", " listener %llu", f->listener_id);
		if (a & HCN_ATTR(HICN_A_FACE_REMOTE))
			print_addr("remote", " remote %s", f->family,
				   &f->remote.v4, &f->remote.v6);
		print_attr(a, HICN_A_FACE_REMOTE_PORT, "port", " port %llu",
			   f->remote_port);
		if (a & HCN_ATTR(HICN_A_FACE_FORMAT))
			print_enum("format", " format %s", " format %llu",
				   format_names, ARRAY_SIZE(format_names),
				   f->format);
		if (json)
			print_attr(a, HICN_A_FACE_AUTO, "auto", "", f->auto_made);
		else if (f->auto_made)
			printf(" auto");
	}
	if (show_stats) {
		print_attr(a, HICN_A_FACE_INTERESTS_IN, "interests_in",
			   " interests-in %llu", f->interests_in);
		print_attr(a, HICN_A_FACE_INTERESTS_OUT, "interests_out",
			   " interests-out %llu", f->interests_out);
		print_attr(a, HICN_A_FACE_DATA_IN, "data_in", " data-in %llu",
			   f->data_in);
		print_attr(a, HICN_A_FACE_DATA_OUT, "data_out",
			   " data-out %llu", f->data_out);
		print_attr(a, HICN_A_FACE_UNSOLICITED, "unsolicited",
			   " unsolicited %llu", f->unsolicited);
		print_attr(a, HICN_A_FACE_REFUSED, "refused", " refused %llu",
			   f->refused);
		print_attr(a, HICN_A_FACE_MALFORMED, "malformed",
			   " malformed %llu", f->malformed);
		print_attr(a, HICN_A_FACE_TX_DROPS, "tx_drops",
			   " tx-drops %llu", f->tx_drops);
		print_attr(a, HICN_A_FACE_HOP_DROPS, "hop_drops",
			   " hop-drops %llu", f->hop_drops);
		if (udp)
			face_drops(f->id);
	}
}

static int face_print(const struct hcn_face *f, void *arg)
{
	(void)arg;
	print_open_object(NULL);
	face_fields(f, "face %llu");
	print_close_object();
	print_nl();
	return 0;
}

static int face_show(int argc, char **argv)
{
	struct hcn_face f;
	int err;

	if (argc > 1)
		usage_error("\"%s\" is unexpected", argv[1]);
	print_open_array(NULL);
	if (argc == 0) {
		err = hcn_face_dump(face_print, NULL);
	} else {
		err = hcn_face_get(get_id(*argv, "face id"), &f);
		if (!err)
			face_print(&f, NULL);
	}
	err = kernel_error(err);
	print_close_array();
	return end_json(err);
}

/* The listener with this address and port, for "face add udp local". */
struct listener_match {
	const struct hcn_listener	*want;
	__u32				id;
};

static int listener_find(const struct hcn_listener *l, void *arg)
{
	struct listener_match *m = arg;
	size_t n = m->want->family == AF_INET ? 4 : 16;

	if (l->family != m->want->family || l->port != m->want->port ||
	    memcmp(&l->local, &m->want->local, n))
		return 0;
	m->id = l->id;
	return 1;
}

/*
 * "face add udp local ADDRESS [port PORT]": the listener on that address
 * and port, made (auto-faces off) when there is none; *@made says so.
 * Returns 0 or a kernel error (printed).
 */
static int local_listener(struct hcn_listener *l, __u32 *id, bool *made)
{
	struct listener_match m = { .want = l };
	int err;

	if (!(l->attrs & HCN_ATTR(HICN_A_LISTENER_PORT)) || !l->port)
		l->port = HICN_PORT;
	l->attrs |= HCN_ATTR(HICN_A_LISTENER_PORT);
	err = hcn_listener_dump(listener_find, &m);
	if (err == 1) {
		*id = m.id;
		return 0;
	}
	if (err)
		return kernel_error(err);
	*made = true;
	return kernel_error(hcn_listener_add(l, id));
}

static int face_add(int argc, char **argv)
{
	struct hcn_listener local = {};
	struct hcn_face f = {};
	bool made = false;
	__u16 *port = NULL;
	__u32 id = 0;
	int err, fmt;

	if (argc < 1 || strcmp(*argv, "udp"))
		usage_error("\"%s\" is not a kind of face, try \"udp\"",
			    argc < 1 ? "" : *argv);
	for (argc--, argv++; argc > 0; argc--, argv++) {
		if (!strcmp(*argv, "listener")) {
			if (local.attrs)
				usage_error("\"listener\" and \"local\" exclude each other");
			f.listener_id = get_id(next_arg(&argc, &argv, "listener"),
					       "listener id");
			f.attrs |= HCN_ATTR(HICN_A_FACE_LISTENER_ID);
			port = NULL;
		} else if (!strcmp(*argv, "local")) {
			if (f.attrs & HCN_ATTR(HICN_A_FACE_LISTENER_ID))
				usage_error("\"listener\" and \"local\" exclude each other");
			local.family = get_addr(next_arg(&argc, &argv, "local"),
						&local.local.v4, &local.local.v6);
			local.attrs |= HCN_ATTR(HICN_A_LISTENER_LOCAL);
			port = &local.port;
		} else if (!strcmp(*argv, "remote")) {
			f.family = get_addr(next_arg(&argc, &argv, "remote"),
					    &f.remote.v4, &f.remote.v6);
			f.attrs |= HCN_ATTR(HICN_A_FACE_REMOTE);
			port = &f.remote_port;
		} else if (!strcmp(*argv, "port")) {
			const char *v = next_arg(&argc, &argv, "port");

			if (!port)
				usage_error("\"port\" must follow a local or remote ADDRESS");
			*port = get_port(v);
			if (port == &local.port)
				local.attrs |= HCN_ATTR(HICN_A_LISTENER_PORT);
			else
				f.attrs |= HCN_ATTR(HICN_A_FACE_REMOTE_PORT);
			port = NULL;
		} else if (!strcmp(*argv, "format")) {
			const char *v = next_arg(&argc, &argv, "format");

			/* ipv4-tcp too: the kernel says why not. */
			fmt = find_name(v, format_names, ARRAY_SIZE(format_names));
			if (fmt < 0)
				usage_error("\"%s\" is not a format (ipv6-tcp or compact)",
					    v);
			f.format = fmt;
			f.attrs |= HCN_ATTR(HICN_A_FACE_FORMAT);
			port = NULL;
		} else {
			usage_error(HICN_UNKNOWN, *argv);
		}
	}
	if (!(f.attrs & HCN_ATTR(HICN_A_FACE_LISTENER_ID)) && !local.attrs)
		usage_error("face add needs \"listener ID\" or \"local ADDRESS\"");
	if (!(f.attrs & HCN_ATTR(HICN_A_FACE_REMOTE)))
		usage_error("face add needs \"remote ADDRESS\"");
	if (local.attrs) {
		if (local_listener(&local, &f.listener_id, &made))
			return EXIT_KERNEL;
		f.attrs |= HCN_ATTR(HICN_A_FACE_LISTENER_ID);
	}
	err = hcn_face_add(&f, &id);
	if (err && made) {
		/* The listener made for this face goes with it. */
		kernel_error(err);
		hcn_listener_del(f.listener_id);
		return EXIT_KERNEL;
	}
	return print_new_id(err, "face", id);
}

int do_face(int argc, char **argv)
{
	if (argc < 1 || matches(*argv, "show") || matches(*argv, "list"))
		return face_show(argc ? argc - 1 : 0, argv + 1);
	if (matches(*argv, "add"))
		return face_add(argc - 1, argv + 1);
	if (matches(*argv, "delete")) {
		if (argc < 2)
			usage_error("face del needs a FACE");
		no_more(argc - 2, argv + 2);
		return kernel_error(hcn_face_del(get_id(argv[1], "face id"))) ?
		       EXIT_KERNEL : 0;
	}
	if (matches(*argv, "help")) {
		hicn_usage();
		return 0;
	}
	usage_error("command \"%s\" is unknown, try \"hicnctl hicn help\"", *argv);
}

/* ---- routes and strategies ---- */

static int route_print(const struct hcn_route *r, void *arg)
{
	unsigned int i;

	(void)arg;
	print_open_object(NULL);
	print_prefix("prefix", "%s", r->attrs & HCN_ATTR(HICN_A_ROUTE_PREFIX),
		     &r->prefix, r->attrs & HCN_ATTR(HICN_A_ROUTE_PREFIX_LEN) ?
		     r->prefix_len : -1);
	print_open_array("nexthops");
	for (i = 0; i < r->nexthops; i++) {
		print_open_object(NULL);
		print_uint("face", " via %llu", r->nexthop[i].face_id);
		print_uint("cost", " cost %llu", r->nexthop[i].cost);
		print_close_object();
	}
	print_close_array();
	if (r->attrs & HCN_ATTR(HICN_A_ROUTE_STRATEGY))
		print_enum("strategy", " strategy %s", " strategy %llu",
			   strategy_names, ARRAY_SIZE(strategy_names),
			   r->strategy);
	print_close_object();
	print_nl();
	return 0;
}

void route_event_fields(const struct hcn_route_event *re)
{
	__u32 a = re->attrs;

	print_prefix("prefix", " %s", a & HCN_ATTR(HICN_A_ROUTE_PREFIX),
		     &re->prefix, a & HCN_ATTR(HICN_A_ROUTE_PREFIX_LEN) ?
		     re->prefix_len : -1);
	print_attr(a, HICN_A_ROUTE_FACE_ID, "face", " via %llu",
		   re->nexthop.face_id);
	print_attr(a, HICN_A_ROUTE_COST, "cost", " cost %llu",
		   re->nexthop.cost);
}

static int route_show(int argc, char **argv)
{
	struct hicn_prefix p = {};
	struct hcn_route r;
	int err;

	if (argc > 1)
		usage_error("\"%s\" is unexpected", argv[1]);
	if (argc == 1)
		get_prefix(&p, *argv);
	print_open_array(NULL);
	if (!p.set) {
		err = hcn_route_dump(route_print, NULL);
	} else {
		err = hcn_route_get(&p.addr, p.len, &r);
		if (!err)
			route_print(&r, NULL);
	}
	err = kernel_error(err);
	print_close_array();
	return end_json(err);
}

/* route add|del PREFIX via FACE [cost N] (cost: add only). */
static int route_change(int argc, char **argv, bool add)
{
	const char *cmd = add ? "add" : "del";
	struct hicn_prefix p = {};
	bool have_face = false;
	__u32 face = 0, cost = 0;
	int err;

	if (argc < 1)
		usage_error("route %s needs a PREFIX", cmd);
	get_prefix(&p, *argv);
	for (argc--, argv++; argc > 0; argc--, argv++) {
		if (!strcmp(*argv, "via")) {
			face = get_id(next_arg(&argc, &argv, "via"), "face id");
			have_face = true;
		} else if (add && !strcmp(*argv, "cost")) {
			cost = get_number(next_arg(&argc, &argv, "cost"), "cost");
		} else {
			usage_error(HICN_UNKNOWN, *argv);
		}
	}
	if (!have_face)
		usage_error("route %s needs \"via FACE\"", cmd);
	if (add)
		err = hcn_route_add(&p.addr, p.len, face, cost);
	else
		err = hcn_route_del(&p.addr, p.len, face);
	return kernel_error(err) ? EXIT_KERNEL : 0;
}

int do_route(int argc, char **argv)
{
	if (argc < 1 || matches(*argv, "show") || matches(*argv, "list"))
		return route_show(argc ? argc - 1 : 0, argv + 1);
	if (matches(*argv, "add"))
		return route_change(argc - 1, argv + 1, true);
	if (matches(*argv, "delete"))
		return route_change(argc - 1, argv + 1, false);
	if (matches(*argv, "help")) {
		hicn_usage();
		return 0;
	}
	usage_error("command \"%s\" is unknown, try \"hicnctl hicn help\"", *argv);
}

int do_strategy(int argc, char **argv)
{
	struct hicn_prefix p = {};
	int s;

	if (argc > 0 && matches(*argv, "help")) {
		hicn_usage();
		return 0;
	}
	if (argc < 1)
		usage_error("strategy needs a command: set");
	if (!matches(*argv, "set"))
		usage_error("command \"%s\" is unknown, try \"hicnctl hicn help\"",
			    *argv);
	if (argc < 3)
		usage_error("strategy set needs a PREFIX and a STRATEGY");
	no_more(argc - 3, argv + 3);
	get_prefix(&p, argv[1]);
	s = find_name(argv[2], strategy_names, ARRAY_SIZE(strategy_names));
	if (s < 0)
		usage_error("\"%s\" is not a strategy (best-route or load-balance)",
			    argv[2]);
	return kernel_error(hcn_strategy_set(&p.addr, p.len, s)) ?
	       EXIT_KERNEL : 0;
}
