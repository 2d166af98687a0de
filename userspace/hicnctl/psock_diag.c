// SPDX-License-Identifier: GPL-2.0
/*
 * hicnctl psock show: the PSOCK sockets of the namespace, as ss(8) shows
 * TCP's, through sock_diag (psock.ko's net/psock/diag.c).  iproute2's ss
 * has no option for a protocol it does not know: the request is the one
 * ss makes for MPTCP (INET_DIAG_REQ_PROTOCOL, the protocol being above
 * 255), and INET_DIAG_INFO is read as <linux/psock.h> describes it.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/psock.h>
#include <linux/sock_diag.h>

#include "hicnctl.h"

/* TCP's states, as ss names them; index: the state's number. */
static const char *const state_names[] = {
	"UNKNOWN", "ESTAB", "SYN-SENT", "SYN-RECV", "FIN-WAIT-1",
	"FIN-WAIT-2", "TIME-WAIT", "UNCONN", "CLOSE-WAIT", "LAST-ACK",
	"LISTEN", "CLOSING", "NEW-SYN-RECV",
};

#define ST_LISTEN	10
#define ST_ALL		0xfffU

static const char *state_name(unsigned int s)
{
	return s < ARRAY_SIZE(state_names) ? state_names[s] : "UNKNOWN";
}

struct show_opts {
	int		families[2];
	int		nfamilies;
	__u32		states;
	__u16		sport;	/* network order, 0: any */
	__u16		dport;
	bool		subflows;
};

static void addr_port(char *buf, size_t len, int family, const void *addr,
		      unsigned int port)
{
	char a[INET6_ADDRSTRLEN] = "?";

	inet_ntop(family, addr, a, sizeof(a));
	snprintf(buf, len, family == AF_INET6 ? "[%s]:%u" : "%s:%u", a, port);
}

static void print_subflow(const struct psock_subflow_info *si)
{
	char l[INET6_ADDRSTRLEN + 8], p[INET6_ADDRSTRLEN + 8];

	addr_port(l, sizeof(l), si->family, si->local_addr, si->local_port);
	addr_port(p, sizeof(p), si->family, si->remote_addr, si->remote_port);
	print_open_object(NULL);
	print_uint("index", "\tsubflow %llu", si->index);
	print_string("state", " %s", state_name(si->state));
	print_string("local", " %s", l);
	print_string("peer", " %s", p);
	print_uint("bytes_sent", " sent %llu", si->bytes_sent);
	print_uint("bytes_received", " received %llu", si->bytes_received);
	print_uint("retrans", " retrans %llu", si->total_retrans);
	print_uint("rtt_us", " rtt_us %llu", si->srtt_us);
	/* 0 unless set, and for a reader without CAP_NET_ADMIN. */
	if (si->mark)
		print_uint("mark", " mark 0x%llx", si->mark);
	print_close_object();
	print_nl();
}

/* INET_DIAG_INFO's header: struct psock_info. */
static void print_info(const void *data, size_t len)
{
	struct psock_info info;

	if (len < sizeof(info))
		return;
	memcpy(&info, data, sizeof(info));
	print_uint("subflows", " subflows %llu", info.num);
	print_uint("streams", " streams %llu", info.stream_cnt);
	if (info.flags & PSOCK_INFO_UNDECIDED)
		print_string("mode", " %s", "undecided");
	else if (info.flags & PSOCK_INFO_FALLBACK)
		print_string("mode", " %s", "fallback");
}

/* ... and the entries that came with it, a line each. */
static void print_entries(const void *data, size_t len)
{
	struct psock_subflow_info si;
	struct psock_info info;
	size_t i, n;

	if (len < sizeof(info))
		return;
	memcpy(&info, data, sizeof(info));
	if (!info.size_user)
		return;
	n = (len - sizeof(info)) / info.size_user;
	print_open_array("subflow_list");
	for (i = 0; i < n; i++) {
		memset(&si, 0, sizeof(si));
		memcpy(&si, (const char *)data + sizeof(info) + i * info.size_user,
		       info.size_user < sizeof(si) ? info.size_user : sizeof(si));
		print_subflow(&si);
	}
	print_close_array();
}

/* One socket's message: a line, then its subflows' with @subflows. */
static void print_sock(const struct nlmsghdr *nlh, bool subflows)
{
	const struct inet_diag_msg *r = NLMSG_DATA(nlh);
	int len = nlh->nlmsg_len - NLMSG_LENGTH(sizeof(*r));
	const struct nlattr *a = (const void *)(r + 1);
	char l[INET6_ADDRSTRLEN + 8], p[INET6_ADDRSTRLEN + 8];
	const void *info = NULL;
	size_t info_len = 0;

	if (len < 0)
		return;
	while (len >= (int)sizeof(*a) && a->nla_len >= sizeof(*a) &&
	       a->nla_len <= len) {
		if ((a->nla_type & NLA_TYPE_MASK) == INET_DIAG_INFO) {
			info = a + 1;
			info_len = a->nla_len - sizeof(*a);
		}
		len -= NLA_ALIGN(a->nla_len);
		a = (const void *)((const char *)a + NLA_ALIGN(a->nla_len));
	}
	addr_port(l, sizeof(l), r->idiag_family, r->id.idiag_src,
		  ntohs(r->id.idiag_sport));
	addr_port(p, sizeof(p), r->idiag_family, r->id.idiag_dst,
		  ntohs(r->id.idiag_dport));
	print_open_object(NULL);
	print_string("state", "%-11s", state_name(r->idiag_state));
	print_uint("recv_q", " %-6llu", r->idiag_rqueue);
	print_uint("send_q", " %-6llu", r->idiag_wqueue);
	print_string("local", " %-24s", l);
	print_string("peer", " %-24s", p);
	print_uint("uid", " uid:%llu", r->idiag_uid);
	print_uint("ino", " ino:%llu", r->idiag_inode);
	print_uint("cookie", " sk:%llx", (__u64)r->id.idiag_cookie[1] << 32 |
					  r->id.idiag_cookie[0]);
	if (info)
		print_info(info, info_len);
	print_nl();
	if (info && subflows)
		print_entries(info, info_len);
	print_close_object();
}

/* A dump of one family's sockets; 0 or a negative errno. */
static int show_family(int fd, int family, const struct show_opts *o)
{
	struct {
		struct nlmsghdr		nlh;
		struct inet_diag_req_v2	r;
		struct nlattr		proto_hdr;
		__u32			proto;
	} req = {
		.nlh.nlmsg_len = sizeof(req),
		.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY,
		.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
		.nlh.nlmsg_seq = (__u32)family,
		.r.sdiag_family = (__u8)family,
		/* Not 259 & 0xff: the attribute says which protocol. */
		.r.sdiag_protocol = IPPROTO_RAW,
		.r.idiag_ext = 1 << (INET_DIAG_INFO - 1),
		.r.idiag_states = o->states,
		.r.id.idiag_sport = o->sport,
		.r.id.idiag_dport = o->dport,
		.proto_hdr.nla_len = NLA_HDRLEN + sizeof(__u32),
		.proto_hdr.nla_type = INET_DIAG_REQ_PROTOCOL,
		.proto = IPPROTO_PSOCK,
	};
	static __u64 buf[8192];

	if (send(fd, &req, sizeof(req), 0) < 0)
		return -errno;
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *h = (struct nlmsghdr *)buf;

		if (n < 0)
			return -errno;
		for (; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			/* Its payload, when there is one: the dump's error. */
			if (h->nlmsg_type == NLMSG_DONE) {
				int e = 0;

				if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(e)))
					memcpy(&e, NLMSG_DATA(h), sizeof(e));
				return e < 0 ? e : 0;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				return e->error;
			}
			if (h->nlmsg_type == SOCK_DIAG_BY_FAMILY)
				print_sock(h, o->subflows);
		}
		if (n == 0)
			return 0;
	}
}

static __u16 get_port(int *argc, char ***argv, const char *what)
{
	unsigned long v = get_number(next_arg(argc, argv, what), what);

	if (v > 65535)
		usage_error("\"%lu\" is not a port", v);
	return htons((__u16)v);
}

static void show_args(int argc, char **argv, struct show_opts *o)
{
	for (; argc > 0; argc--, argv++) {
		if (!strcmp(*argv, "inet")) {
			o->families[0] = AF_INET;
			o->nfamilies = 1;
		} else if (!strcmp(*argv, "inet6")) {
			o->families[0] = AF_INET6;
			o->nfamilies = 1;
		} else if (matches(*argv, "all")) {
			o->states = ST_ALL;
		} else if (matches(*argv, "listening")) {
			o->states = 1U << ST_LISTEN;
		} else if (matches(*argv, "subflows")) {
			o->subflows = true;
		} else if (!strcmp(*argv, "sport")) {
			o->sport = get_port(&argc, &argv, "sport");
		} else if (!strcmp(*argv, "dport")) {
			o->dport = get_port(&argc, &argv, "dport");
		} else {
			usage_error("\"%s\" is unknown, try \"hicnctl psock help\"",
				    *argv);
		}
	}
}

/*
 * hicnctl psock show [ inet | inet6 ] [ all | listening ]
 *	[ sport PORT ] [ dport PORT ] [ subflows ]
 */
int psock_show(int argc, char **argv)
{
	struct show_opts o = {
		.families = { AF_INET, AF_INET6 },
		.nfamilies = 2,
		/* As ss: connections; "all" adds listeners and closed ones. */
		.states = ST_ALL & ~(1U << ST_LISTEN) & ~(1U << 7),
	};
	int fd, i, err = 0;

	show_args(argc, argv, &o);
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		return kernel_error(-errno) ? EXIT_KERNEL : 0;
	if (!json)
		printf("%-11s %-6s %-6s %-24s %-24s\n", "State", "Recv-Q",
		       "Send-Q", "Local Address:Port", "Peer Address:Port");
	print_open_array(NULL);
	for (i = 0; i < o.nfamilies && !err; i++)
		err = show_family(fd, o.families[i], &o);
	print_close_array();
	close(fd);
	if (err)
		kernel_error(err);
	return end_json(err);
}
