// SPDX-License-Identifier: GPL-2.0
/*
 * libhcn: the configuration functions (hcn_namespace_dump(), hcn_cs_get(),
 * hcn_face_add(), hcn_route_add(), hcn_psock_endpoint_add(), ...) over the
 * "hicn" and "psock" generic netlink families
 * (Documentation/netlink/specs/hicn.yaml, psock.yaml).
 *
 * A small netlink implementation of its own rather than libnl-genl-3: the
 * requests are a handful of fixed attributes, the library stays free of
 * dependencies (a program linking libhcn.a needs nothing else), and the
 * kernel's extended ack is read straight from the answer.  Every call
 * opens its own socket, so it acts on the network namespace the calling
 * thread is in at the time of the call, and calls from several threads do
 * not share state but the thread's last extack message.
 */
#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <arpa/inet.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/psock.h>

#include "hcn.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#ifndef SOL_NETLINK
#define SOL_NETLINK	270
#endif

/* The thread's last error message: the kernel's extack, or the library's. */
static __thread char hcn_emsg[256];

const char *hcn_extack_msg(void)
{
	return hcn_emsg;
}

/* A local error: -@err with @msg as its message. */
static int hcn_local_err(int err, const char *msg)
{
	snprintf(hcn_emsg, sizeof(hcn_emsg), "%s", msg);
	return -err;
}

/* ---- attributes ---- */

#define NLA_DATA(a)	((void *)((char *)(a) + NLA_HDRLEN))
#define NLA_PAYLOAD(a)	((int)(a)->nla_len - NLA_HDRLEN)

/* Fills @tb[0..@max] with the attributes in @len bytes at @data. */
static void hcn_parse(const void *data, int len, const struct nlattr **tb,
		      int max)
{
	const struct nlattr *a = data;

	memset(tb, 0, (max + 1) * sizeof(*tb));
	while (len >= (int)NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
	       a->nla_len <= len) {
		int type = a->nla_type & NLA_TYPE_MASK;

		if (type <= max)
			tb[type] = a;
		len -= NLA_ALIGN(a->nla_len);
		a = (const struct nlattr *)((const char *)a + NLA_ALIGN(a->nla_len));
	}
}

/* Attribute values, or 0 when absent or short. */
static __u8 get_u8(const struct nlattr *a)
{
	return a && NLA_PAYLOAD(a) >= 1 ? *(__u8 *)NLA_DATA(a) : 0;
}

static __u16 get_u16(const struct nlattr *a)
{
	__u16 v = 0;

	if (a && NLA_PAYLOAD(a) >= 2)
		memcpy(&v, NLA_DATA(a), 2);
	return v;
}

static __u32 get_u32(const struct nlattr *a)
{
	__u32 v = 0;

	if (a && NLA_PAYLOAD(a) >= 4)
		memcpy(&v, NLA_DATA(a), 4);
	return v;
}

/* A u64, or a u32 (the kernel's width is the spec's: read by length). */
static __u64 get_u64(const struct nlattr *a)
{
	__u64 v = 0;

	if (a && NLA_PAYLOAD(a) >= 8)
		memcpy(&v, NLA_DATA(a), 8);
	else
		v = get_u32(a);
	return v;
}

static void get_bin(const struct nlattr *a, void *dst, size_t n)
{
	if (a && NLA_PAYLOAD(a) >= (int)n)
		memcpy(dst, NLA_DATA(a), n);
}

/* The presence mask of @tb[1..@max] (attribute numbers below 32). */
static __u32 present(const struct nlattr **tb, int max)
{
	__u32 mask = 0;
	int i;

	for (i = 1; i <= max && i < 32; i++)
		if (tb[i])
			mask |= 1U << i;
	return mask;
}

/* ---- requests ---- */

struct hcn_req {
	struct nlmsghdr		nlh;
	struct genlmsghdr	g;
	char			attrs[512];
};

static void req_init(struct hcn_req *r, __u8 cmd, int dump)
{
	memset(r, 0, sizeof(*r));
	r->nlh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r->nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | (dump ? NLM_F_DUMP : 0);
	r->g.cmd = cmd;
	r->g.version = 1;
}

/* The requests are a few small attributes: attrs[] always has room. */
static void put(struct hcn_req *r, int type, const void *data, size_t len)
{
	struct nlattr *a = (struct nlattr *)((char *)r + NLMSG_ALIGN(r->nlh.nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy(NLA_DATA(a), data, len);
	memset((char *)NLA_DATA(a) + len, 0, NLA_ALIGN(a->nla_len) - a->nla_len);
	r->nlh.nlmsg_len = NLMSG_ALIGN(r->nlh.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

static void put_u8(struct hcn_req *r, int type, __u8 v)
{
	put(r, type, &v, 1);
}

static void put_u16(struct hcn_req *r, int type, __u16 v)
{
	put(r, type, &v, 2);
}

static void put_u32(struct hcn_req *r, int type, __u32 v)
{
	put(r, type, &v, 4);
}

static void put_u64(struct hcn_req *r, int type, __u64 v)
{
	put(r, type, &v, 8);
}

/* An optional prefix: address and length; -EINVAL past 255 bits. */
static int put_prefix(struct hcn_req *r, int a_prefix, int a_len,
		      const struct in6_addr *prefix, unsigned int len)
{
	if (!prefix)
		return 0;
	if (len > 255)
		return hcn_local_err(EINVAL, "prefix length over 255");
	put(r, a_prefix, prefix, sizeof(*prefix));
	put_u8(r, a_len, len);
	return 0;
}

/* ---- the socket ---- */

struct hcn_sock {
	int		fd;
	__u32	seq;
	__u16	family;		/* the family's id */
	__u32	group;		/* hcn_open()'s @group's id, or 0 */
};

/*
 * Called for each answer of a request with its command and attributes;
 * returns 0 to go on, anything else to ignore the rest of the answers
 * (a dump is still read to its end) and make the request return it.
 */
typedef int (*hcn_answer_fn)(__u8 cmd, const void *attrs, int len,
			     void *arg);

/* The extack message of the TLVs at @a (@len bytes), into hcn_emsg. */
static void hcn_extack(const void *a, int len)
{
	const struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	const struct nlattr *m;

	hcn_parse(a, len, tb, NLMSGERR_ATTR_MAX);
	m = tb[NLMSGERR_ATTR_MSG];
	if (m && NLA_PAYLOAD(m) > 0)
		snprintf(hcn_emsg, sizeof(hcn_emsg), "%.*s", NLA_PAYLOAD(m),
			 (char *)NLA_DATA(m));
}

/* Bytes a request reads its answers into. */
#define HCN_RECV_LEN	65536

/* hcn_transact() with its receive buffer, HCN_RECV_LEN bytes. */
static int hcn_transact_buf(struct hcn_sock *s, struct hcn_req *r,
			    hcn_answer_fn fn, void *arg, char *buf)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	int ret = 0, done = 0;
	ssize_t n;

	r->nlh.nlmsg_type = s->family;
	r->nlh.nlmsg_seq = ++s->seq;
	if (sendto(s->fd, r, r->nlh.nlmsg_len, 0, (struct sockaddr *)&kernel,
		   sizeof(kernel)) < 0)
		return -errno;
	while (!done) {
		struct nlmsghdr *nlh = (struct nlmsghdr *)buf;

		n = recv(s->fd, buf, HCN_RECV_LEN, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (; !done && NLMSG_OK(nlh, (size_t)n); nlh = NLMSG_NEXT(nlh, n)) {
			if (nlh->nlmsg_seq != s->seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(nlh);
				size_t off = sizeof(*e);

				done = 1;
				if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
					return -EPROTO;
				if (!e->error)
					break;
				ret = e->error;
				if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
					break;
				if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
					off += e->msg.nlmsg_len - NLMSG_HDRLEN;
				if (NLMSG_LENGTH(off) <= nlh->nlmsg_len)
					hcn_extack((char *)e + off,
						   nlh->nlmsg_len - NLMSG_LENGTH(off));
			} else if (nlh->nlmsg_type == NLMSG_DONE) {
				size_t off = NLMSG_ALIGN(sizeof(int));
				int err = 0;

				done = 1;
				if (nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(int)))
					memcpy(&err, NLMSG_DATA(nlh), sizeof(err));
				if (err >= 0)
					break;
				ret = err;
				if ((nlh->nlmsg_flags & NLM_F_ACK_TLVS) &&
				    NLMSG_LENGTH(off) <= nlh->nlmsg_len)
					hcn_extack((char *)NLMSG_DATA(nlh) + off,
						   nlh->nlmsg_len - NLMSG_LENGTH(off));
			} else if (nlh->nlmsg_type == s->family && !ret && fn &&
				   nlh->nlmsg_len >= NLMSG_LENGTH(GENL_HDRLEN)) {
				struct genlmsghdr *g = NLMSG_DATA(nlh);

				ret = fn(g->cmd, (char *)g + GENL_HDRLEN,
					 nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN),
					 arg);
				/* A do request ends with its ack. */
			}
		}
	}
	return ret;
}

/*
 * Sends @r as a request of family @s->family and reads its answers: each
 * reply to @fn, then the ack, the end of the dump or the error.  Returns 0
 * or -errno (then hcn_emsg holds the kernel's message, if any).  Each
 * request has a buffer of its own: @fn may make requests too (hicnctl -s
 * asks each UDP face's drops while it reads the dump of the faces).
 */
static int hcn_transact(struct hcn_sock *s, struct hcn_req *r,
			hcn_answer_fn fn, void *arg)
{
	char *buf = malloc(HCN_RECV_LEN);
	int ret;

	if (!buf)
		return -ENOMEM;
	ret = hcn_transact_buf(s, r, fn, arg, buf);
	free(buf);
	return ret;
}

struct hcn_family_arg {
	struct hcn_sock	*s;
	const char	*group;
};

static int hcn_family_answer(__u8 cmd, const void *attrs, int len,
			     void *arg)
{
	const struct nlattr *tb[CTRL_ATTR_MAX + 1], *g[CTRL_ATTR_MCAST_GRP_MAX + 1];
	struct hcn_family_arg *fa = arg;
	const struct nlattr *grp;
	int rest;

	(void)cmd;
	hcn_parse(attrs, len, tb, CTRL_ATTR_MAX);
	fa->s->family = get_u16(tb[CTRL_ATTR_FAMILY_ID]);
	if (!fa->group || !tb[CTRL_ATTR_MCAST_GROUPS])
		return 0;
	grp = NLA_DATA(tb[CTRL_ATTR_MCAST_GROUPS]);
	rest = NLA_PAYLOAD(tb[CTRL_ATTR_MCAST_GROUPS]);
	while (rest >= (int)NLA_HDRLEN && grp->nla_len >= NLA_HDRLEN &&
	       grp->nla_len <= rest) {
		const struct nlattr *name;

		hcn_parse(NLA_DATA(grp), NLA_PAYLOAD(grp), g,
			  CTRL_ATTR_MCAST_GRP_MAX);
		name = g[CTRL_ATTR_MCAST_GRP_NAME];
		if (name && NLA_PAYLOAD(name) > 0 &&
		    !strncmp(NLA_DATA(name), fa->group, NLA_PAYLOAD(name)) &&
		    strlen(fa->group) < (size_t)NLA_PAYLOAD(name))
			fa->s->group = get_u32(g[CTRL_ATTR_MCAST_GRP_ID]);
		rest -= NLA_ALIGN(grp->nla_len);
		grp = (const struct nlattr *)((const char *)grp + NLA_ALIGN(grp->nla_len));
	}
	return 0;
}

/*
 * Opens a generic netlink socket and finds family @name (and, if @group,
 * its multicast group of that name).  -EPROTONOSUPPORT when the family is
 * not registered (the module is not loaded), -ENOENT for a missing group.
 */
static int hcn_open(struct hcn_sock *s, const char *name, const char *group)
{
	struct hcn_family_arg fa = { .s = s, .group = group };
	struct hcn_req r;
	int one = 1, err;

	hcn_emsg[0] = '\0';
	memset(s, 0, sizeof(*s));
	s->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (s->fd < 0)
		return -errno;
	setsockopt(s->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(s->fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));

	req_init(&r, CTRL_CMD_GETFAMILY, 0);
	put(&r, CTRL_ATTR_FAMILY_NAME, name, strlen(name) + 1);
	s->family = GENL_ID_CTRL;
	err = hcn_transact(s, &r, hcn_family_answer, &fa);
	if (!err && s->family == GENL_ID_CTRL)
		err = -EPROTO;
	if (err == -ENOENT)
		err = -EPROTONOSUPPORT;
	if (!err && group && !s->group)
		err = -ENOENT;
	if (err) {
		close(s->fd);
		s->fd = -1;
		/* The controller's message is about it, not the caller. */
		hcn_emsg[0] = '\0';
	}
	return err;
}

int hcn_genl_family(const char *name)
{
	struct hcn_sock s;
	int err;

	if (!name)
		return -EINVAL;
	err = hcn_open(&s, name, NULL);
	if (err)
		return err;
	close(s.fd);
	return s.family;
}

/* One request to family @name: open, transact, close. */
static int hcn_call(const char *name, struct hcn_req *r, hcn_answer_fn fn,
		    void *arg)
{
	struct hcn_sock s;
	int err;

	err = hcn_open(&s, name, NULL);
	if (err)
		return err;
	err = hcn_transact(&s, r, fn, arg);
	close(s.fd);
	return err;
}

/* The receive buffer a monitor asks for: room for bursts of events. */
#define HCN_MONITOR_RCVBUF	(1024 * 1024)

/*
 * Joins multicast @group of family @name and calls @fn for each
 * notification until it returns non-zero (returned) or an error:
 * -ENOBUFS when the socket's receive buffer overran and events were
 * lost.  The buffer is HCN_MONITOR_RCVBUF: SO_RCVBUFFORCE, past
 * net.core.rmem_max, with CAP_NET_ADMIN; otherwise SO_RCVBUF, which
 * rmem_max caps.
 */
static int hcn_listen(const char *name, const char *group, hcn_answer_fn fn,
		      void *arg)
{
	static __thread char buf[16384];
	int rcvbuf = HCN_MONITOR_RCVBUF;
	struct hcn_sock s;
	int err;

	err = hcn_open(&s, name, group);
	if (err)
		return err;
	if (setsockopt(s.fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
		       sizeof(rcvbuf)))
		setsockopt(s.fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (setsockopt(s.fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &s.group,
		       sizeof(s.group))) {
		err = -errno;
		close(s.fd);
		return err;
	}
	while (!err) {
		struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
		ssize_t n = recv(s.fd, buf, sizeof(buf), 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		for (; !err && NLMSG_OK(nlh, (size_t)n); nlh = NLMSG_NEXT(nlh, n)) {
			struct genlmsghdr *g = NLMSG_DATA(nlh);

			if (nlh->nlmsg_type != s.family ||
			    nlh->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
				continue;
			err = fn(g->cmd, (char *)g + GENL_HDRLEN,
				 nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN), arg);
		}
	}
	close(s.fd);
	return err;
}

/* ---- hicn: namespaces ---- */

static void ns_fill(const void *attrs, int len, struct hcn_namespace *ns)
{
	const struct nlattr *tb[HICN_A_NAMESPACE_MAX + 1];

	hcn_parse(attrs, len, tb, HICN_A_NAMESPACE_MAX);
	memset(ns, 0, sizeof(*ns));
	ns->attrs = present(tb, HICN_A_NAMESPACE_MAX);
	get_bin(tb[HICN_A_NAMESPACE_PREFIX], &ns->prefix, sizeof(ns->prefix));
	ns->prefix_len = get_u8(tb[HICN_A_NAMESPACE_PREFIX_LEN]);
	ns->uid = get_u32(tb[HICN_A_NAMESPACE_UID]);
	ns->inode = get_u64(tb[HICN_A_NAMESPACE_INODE]);
	ns->face_id = get_u32(tb[HICN_A_NAMESPACE_FACE_ID]);
	ns->names = get_u32(tb[HICN_A_NAMESPACE_NAMES]);
	ns->versions = get_u32(tb[HICN_A_NAMESPACE_VERSIONS]);
	ns->mem = get_u64(tb[HICN_A_NAMESPACE_MEM]);
}

static int ns_one(__u8 cmd, const void *attrs, int len, void *arg)
{
	(void)cmd;
	ns_fill(attrs, len, arg);
	return 0;
}

int hcn_namespace_get(const struct in6_addr *prefix, unsigned int prefix_len,
		      struct hcn_namespace *ns)
{
	struct hcn_namespace tmp;
	struct hcn_req r;
	int err;

	hcn_emsg[0] = '\0';
	req_init(&r, HICN_CMD_NAMESPACE_GET, 0);
	err = put_prefix(&r, HICN_A_NAMESPACE_PREFIX, HICN_A_NAMESPACE_PREFIX_LEN,
			 prefix, prefix_len);
	if (err)
		return err;
	memset(&tmp, 0, sizeof(tmp));
	err = hcn_call(HICN_FAMILY_NAME, &r, ns_one, &tmp);
	if (!err && ns)
		*ns = tmp;
	return err;
}

struct hcn_dump_arg {
	void	*cb;
	void	*arg;
};

static int ns_each(__u8 cmd, const void *attrs, int len, void *arg)
{
	struct hcn_dump_arg *d = arg;
	struct hcn_namespace ns;

	(void)cmd;
	ns_fill(attrs, len, &ns);
	return ((hcn_namespace_cb)d->cb)(&ns, d->arg);
}

int hcn_namespace_dump(hcn_namespace_cb cb, void *arg)
{
	struct hcn_dump_arg d = { .cb = (void *)cb, .arg = arg };
	struct hcn_req r;

	hcn_emsg[0] = '\0';
	if (!cb)
		return hcn_local_err(EINVAL, "no callback");
	req_init(&r, HICN_CMD_NAMESPACE_GET, 1);
	return hcn_call(HICN_FAMILY_NAME, &r, ns_each, &d);
}

/* ---- hicn: content store ---- */

static int cs_one(__u8 cmd, const void *attrs, int len, void *arg)
{
	const struct nlattr *tb[HICN_A_CS_MAX + 1];
	struct hcn_cs *cs = arg;

	(void)cmd;
	hcn_parse(attrs, len, tb, HICN_A_CS_MAX);
	cs->attrs = present(tb, HICN_A_CS_MAX);
	cs->entries = get_u32(tb[HICN_A_CS_ENTRIES]);
	cs->bytes = get_u64(tb[HICN_A_CS_BYTES]);
	cs->max_entries = get_u32(tb[HICN_A_CS_MAX_ENTRIES]);
	cs->mem_max = get_u64(tb[HICN_A_CS_MEM_MAX]);
	cs->hits = get_u64(tb[HICN_A_CS_HITS]);
	cs->misses = get_u64(tb[HICN_A_CS_MISSES]);
	cs->evictions = get_u64(tb[HICN_A_CS_EVICTIONS]);
	return 0;
}

int hcn_cs_get(struct hcn_cs *cs)
{
	struct hcn_cs tmp;
	struct hcn_req r;
	int err;

	hcn_emsg[0] = '\0';
	memset(&tmp, 0, sizeof(tmp));
	req_init(&r, HICN_CMD_CS_GET, 0);
	err = hcn_call(HICN_FAMILY_NAME, &r, cs_one, &tmp);
	if (!err && cs)
		*cs = tmp;
	return err;
}

int hcn_cs_set(const struct hcn_cs *cs)
{
	struct hcn_req r;

	hcn_emsg[0] = '\0';
	if (!cs)
		return hcn_local_err(EINVAL, "no values");
	req_init(&r, HICN_CMD_CS_SET, 0);
	if (cs->attrs & HCN_ATTR(HICN_A_CS_MAX_ENTRIES))
		put_u32(&r, HICN_A_CS_MAX_ENTRIES, cs->max_entries);
	if (cs->attrs & HCN_ATTR(HICN_A_CS_MEM_MAX))
		put_u64(&r, HICN_A_CS_MEM_MAX, cs->mem_max);
	return hcn_call(HICN_FAMILY_NAME, &r, NULL, NULL);
}

int hcn_cs_flush(const struct in6_addr *prefix, unsigned int prefix_len)
{
	struct hcn_req r;
	int err;

	hcn_emsg[0] = '\0';
	req_init(&r, HICN_CMD_CS_FLUSH, 0);
	err = put_prefix(&r, HICN_A_CS_PREFIX, HICN_A_CS_PREFIX_LEN, prefix,
			 prefix_len);
	if (err)
		return err;
	return hcn_call(HICN_FAMILY_NAME, &r, NULL, NULL);
}

static void cs_entry_fill(const void *attrs, int len, struct hcn_cs_entry *e)
{
	const struct nlattr *tb[HICN_A_CS_ENTRY_MAX + 1];

	hcn_parse(attrs, len, tb, HICN_A_CS_ENTRY_MAX);
	memset(e, 0, sizeof(*e));
	e->attrs = present(tb, HICN_A_CS_ENTRY_MAX);
	get_bin(tb[HICN_A_CS_ENTRY_NAME], &e->name, sizeof(e->name));
	e->version = get_u32(tb[HICN_A_CS_ENTRY_VERSION]);
	e->segment = get_u32(tb[HICN_A_CS_ENTRY_SEGMENT]);
	e->final_segment = get_u32(tb[HICN_A_CS_ENTRY_FINAL_SEGMENT]);
	e->size = get_u32(tb[HICN_A_CS_ENTRY_SIZE]);
	e->object_size = get_u64(tb[HICN_A_CS_ENTRY_OBJECT_SIZE]);
	e->expires_ms = get_u32(tb[HICN_A_CS_ENTRY_EXPIRES_MS]);
}

static int cs_entry_one(__u8 cmd, const void *attrs, int len, void *arg)
{
	(void)cmd;
	cs_entry_fill(attrs, len, arg);
	return 0;
}

int hcn_cs_entry_get(const struct in6_addr *name, __u32 version,
		     __u32 segment, struct hcn_cs_entry *e)
{
	struct hcn_cs_entry tmp;
	struct hcn_req r;
	int err;

	hcn_emsg[0] = '\0';
	req_init(&r, HICN_CMD_CS_ENTRY_GET, 0);
	if (name)
		put(&r, HICN_A_CS_ENTRY_NAME, name, sizeof(*name));
	put_u32(&r, HICN_A_CS_ENTRY_VERSION, version);
	put_u32(&r, HICN_A_CS_ENTRY_SEGMENT, segment);
	memset(&tmp, 0, sizeof(tmp));
	err = hcn_call(HICN_FAMILY_NAME, &r, cs_entry_one, &tmp);
	if (!err && e)
		*e = tmp;
	return err;
}

static int cs_entry_each(__u8 cmd, const void *attrs, int len, void *arg)
{
	struct hcn_dump_arg *d = arg;
	struct hcn_cs_entry e;

	(void)cmd;
	cs_entry_fill(attrs, len, &e);
	return ((hcn_cs_entry_cb)d->cb)(&e, d->arg);
}

int hcn_cs_entry_dump(const struct in6_addr *prefix, unsigned int prefix_len,
		      hcn_cs_entry_cb cb, void *arg)
{
	struct hcn_dump_arg d = { .cb = (void *)cb, .arg = arg };
	struct hcn_req r;
	int err;

	hcn_emsg[0] = '\0';
	if (!cb)
		return hcn_local_err(EINVAL, "no callback");
	req_init(&r, HICN_CMD_CS_ENTRY_GET, 1);
	err = put_prefix(&r, HICN_A_CS_ENTRY_PREFIX, HICN_A_CS_ENTRY_PREFIX_LEN,
			 prefix, prefix_len);
	if (err)
		return err;
	return hcn_call(HICN_FAMILY_NAME, &r, cs_entry_each, &d);
}

/* ---- hicn: PIT, limits, counters ---- */

static int pit_one(__u8 cmd, const void *attrs, int len, void *arg)
{
	const struct nlattr *tb[HICN_A_PIT_MAX + 1];
	struct hcn_pit *p = arg;

	(void)cmd;
	hcn_parse(attrs, len, tb, HICN_A_PIT_MAX);
	p->attrs = present(tb, HICN_A_PIT_MAX);
	p->entries = get_u32(tb[HICN_A_PIT_ENTRIES]);
	p->entries_max = get_u32(tb[HICN_A_PIT_ENTRIES_MAX]);
	p->aggregated = get_u64(tb[HICN_A_PIT_AGGREGATED]);
	p->drops = get_u64(tb[HICN_A_PIT_DROPS]);
	p->expired = get_u64(tb[HICN_A_PIT_EXPIRED]);
	p->user_max = get_u32(tb[HICN_A_PIT_USER_MAX]);
	p->user_drops = get_u64(tb[HICN_A_PIT_USER_DROPS]);
	return 0;
}

int hcn_pit_get(struct hcn_pit *pit)
{
	struct hcn_pit tmp;
	struct hcn_req r;
	int err;

	hcn_emsg[0] = '\0';
	memset(&tmp, 0, sizeof(tmp));
	req_init(&r, HICN_CMD_PIT_GET, 0);
	err = hcn_call(HICN_FAMILY_NAME, &r, pit_one, &tmp);
	if (!err && pit)
		*pit = tmp;
	return err;
}

/* The limits: attribute, offset in struct hcn_limits, width. */
static const struct {
	__u8	attr;
	__u8	wide;
	size_t	off;
} limit_fields[] = {
	{ HICN_A_LIMITS_PIT_MAX, 0, offsetof(struct hcn_limits, pit_max) },
	{ HICN_A_LIMITS_CS_MAX_ENTRIES, 0,
		offsetof(struct hcn_limits, cs_max_entries) },
	{ HICN_A_LIMITS_CS_MEM_MAX, 1, offsetof(struct hcn_limits, cs_mem_max) },
	{ HICN_A_LIMITS_PROD_MEM_MAX, 1,
		offsetof(struct hcn_limits, prod_mem_max) },
	{ HICN_A_LIMITS_UNPRIVILEGED_PREFIX_MIN, 0,
		offsetof(struct hcn_limits, unprivileged_prefix_min) },
	{ HICN_A_LIMITS_PIT_USER_MAX, 0,
		offsetof(struct hcn_limits, pit_user_max) },
	{ HICN_A_LIMITS_PROD_USER_MEM_MAX, 1,
		offsetof(struct hcn_limits, prod_user_mem_max) },
};

static int limits_one(__u8 cmd, const void *attrs, int len, void *arg)
{
	const struct nlattr *tb[HICN_A_LIMITS_MAX + 1];
	struct hcn_limits *l = arg;
	size_t i;

	(void)cmd;
	hcn_parse(attrs, len, tb, HICN_A_LIMITS_MAX);
	l->attrs = present(tb, HICN_A_LIMITS_MAX);
	for (i = 0; i < ARRAY_SIZE(limit_fields); i++) {
		char *p = (char *)l + limit_fields[i].off;
		__u64 v = get_u64(tb[limit_fields[i].attr]);
		__u32 v32 = v;

		if (limit_fields[i].wide)
			memcpy(p, &v, sizeof(v));
		else
			memcpy(p, &v32, sizeof(v32));
	}
	return 0;
}

int hcn_limits_get(struct hcn_limits *l)
{
	struct hcn_limits tmp;
	struct hcn_req r;
	int err;

	hcn_emsg[0] = '\0';
	memset(&tmp, 0, sizeof(tmp));
	req_init(&r, HICN_CMD_LIMITS_GET, 0);
	err = hcn_call(HICN_FAMILY_NAME, &r, limits_one, &tmp);
	if (!err && l)
		*l = tmp;
	return err;
}

int hcn_limits_set(const struct hcn_limits *l)
{
	struct hcn_req r;
	size_t i;

	hcn_emsg[0] = '\0';
	if (!l)
		return hcn_local_err(EINVAL, "no values");
	req_init(&r, HICN_CMD_LIMITS_SET, 0);
	for (i = 0; i < ARRAY_SIZE(limit_fields); i++) {
		const char *p = (const char *)l + limit_fields[i].off;
		__u64 v;
		__u32 v32;

		if (!(l->attrs & HCN_ATTR(limit_fields[i].attr)))
			continue;
		if (limit_fields[i].wide) {
			memcpy(&v, p, sizeof(v));
			put_u64(&r, limit_fields[i].attr, v);
		} else {
			memcpy(&v32, p, sizeof(v32));
			put_u32(&r, limit_fields[i].attr, v32);
		}
	}
	return hcn_call(HICN_FAMILY_NAME, &r, NULL, NULL);
}

/*
 * Counters: attribute @first + i is value i of an array of u64 (the
 * structs are made of __u64 only, in attribute order); the answer
 * says how many were there.
 */
struct hcn_counters_arg {
	__u64	*val;
	size_t		n;	/* room, in values */
	int		first;	/* attribute of value 0 */
	int		max;	/* the last attribute */
	int		got;	/* values the kernel sent */
};

static int counters_one(__u8 cmd, const void *attrs, int len, void *arg)
{
	const struct nlattr *tb[64];
	struct hcn_counters_arg *c = arg;
	size_t i;

	(void)cmd;
	hcn_parse(attrs, len, tb, c->max);
	for (i = 0; i < c->n && c->first + (int)i <= c->max; i++) {
		if (!tb[c->first + i])
			break;
		c->val[i] = get_u64(tb[c->first + i]);
		c->got = i + 1;
	}
	return 0;
}

static int counters_get(const char *family, __u8 cmd, void *val,
			size_t size, int first, int max)
{
	struct hcn_counters_arg c = {
		.val = val, .n = size / sizeof(__u64), .first = first,
		.max = max,
	};
	struct hcn_req r;
	int err;

	hcn_emsg[0] = '\0';
	if (!val)
		return hcn_local_err(EINVAL, "no buffer");
	memset(val, 0, size);
	req_init(&r, cmd, 0);
	err = hcn_call(family, &r, counters_one, &c);
	return err ? err : c.got;
}

int hcn_counters_get(struct hcn_counters *c, size_t size)
{
	static_assert(sizeof(struct hcn_counters) ==
		       HCN_COUNTERS_NUM * sizeof(__u64), "no holes");
	static_assert(HICN_A_COUNTERS_MAX < 64, "tb[] of counters_one()");
	return counters_get(HICN_FAMILY_NAME, HICN_CMD_COUNTERS_GET, c, size,
			    HICN_A_COUNTERS_PAD + 1, HICN_A_COUNTERS_MAX);
}

/* ---- hicn: faces ---- */

/*
 * An address attribute of 4 or 16 bytes into @family and the union at
 * @v4 / @v6 (the same storage).
 */
static void get_addr(const struct nlattr *a, __u16 *family, void *v4,
		     void *v6)
{
	if (!a)
		return;
	if (NLA_PAYLOAD(a) == 4) {
		*family = AF_INET;
		get_bin(a, v4, 4);
	} else if (NLA_PAYLOAD(a) == 16) {
		*family = AF_INET6;
		get_bin(a, v6, 16);
	}
}

/* The address of @family at @v4 / @v6 as attribute @type. */
static int put_addr(struct hcn_req *r, int type, int family, const void *v4,
		    const void *v6)
{
	if (family == AF_INET)
		put(r, type, v4, 4);
	else if (family == AF_INET6)
		put(r, type, v6, 16);
	else
		return hcn_local_err(EAFNOSUPPORT,
				     "the address family is not AF_INET or AF_INET6");
	return 0;
}

static void face_fill(const void *attrs, int len, struct hcn_face *f)
{
	const struct nlattr *tb[HICN_A_FACE_MAX + 1];

	hcn_parse(attrs, len, tb, HICN_A_FACE_MAX);
	memset(f, 0, sizeof(*f));
	f->attrs = present(tb, HICN_A_FACE_MAX);
	f->id = get_u32(tb[HICN_A_FACE_ID]);
	f->kind = get_u8(tb[HICN_A_FACE_KIND]);
	f->up = get_u8(tb[HICN_A_FACE_UP]);
	f->uid = get_u32(tb[HICN_A_FACE_UID]);
	f->out_pending = get_u32(tb[HICN_A_FACE_OUT_PENDING]);
	f->interests_in = get_u64(tb[HICN_A_FACE_INTERESTS_IN]);
	f->interests_out = get_u64(tb[HICN_A_FACE_INTERESTS_OUT]);
	f->data_in = get_u64(tb[HICN_A_FACE_DATA_IN]);
	f->data_out = get_u64(tb[HICN_A_FACE_DATA_OUT]);
	f->unsolicited = get_u64(tb[HICN_A_FACE_UNSOLICITED]);
	f->refused = get_u64(tb[HICN_A_FACE_REFUSED]);
	f->listener_id = get_u32(tb[HICN_A_FACE_LISTENER_ID]);
	get_addr(tb[HICN_A_FACE_REMOTE], &f->family, &f->remote.v4,
		 &f->remote.v6);
	f->remote_port = get_u16(tb[HICN_A_FACE_REMOTE_PORT]);
	f->format = get_u8(tb[HICN_A_FACE_FORMAT]);
	f->auto_made = get_u8(tb[HICN_A_FACE_AUTO]);
	f->malformed = get_u64(tb[HICN_A_FACE_MALFORMED]);
	f->tx_drops = get_u64(tb[HICN_A_FACE_TX_DROPS]);
	f->hop_drops = get_u64(tb[HICN_A_FACE_HOP_DROPS]);
}

static int face_one(__u8 cmd, const void *attrs, int len, void *arg)
{
	(void)cmd;
	face_fill(attrs, len, arg);
	return 0;
}

int hcn_face_get(__u32 id, struct hcn_face *f)
{
	struct hcn_face tmp;
	struct hcn_req r;
	int err;

	hcn_emsg[0] = '\0';
	req_init(&r, HICN_CMD_FACE_GET, 0);
	put_u32(&r, HICN_A_FACE_ID, id);
	memset(&tmp, 0, sizeof(tmp));
	err = hcn_call(HICN_FAMILY_NAME, &r, face_one, &tmp);
	if (!err && f)
		*f = tmp;
	return err;
}

/* The face-drops nest of a face-get reply into the counters of @arg. */
static int face_drops_one(__u8 cmd, const void *attrs, int len, void *arg)
{
	const struct nlattr *tb[HICN_A_FACE_MAX + 1];

	hcn_parse(attrs, len, tb, HICN_A_FACE_MAX);
	if (!tb[HICN_A_FACE_DROPS])
		return 0;
	return counters_one(cmd, NLA_DATA(tb[HICN_A_FACE_DROPS]),
			    NLA_PAYLOAD(tb[HICN_A_FACE_DROPS]), arg);
}

int hcn_face_drops_get(__u32 id, struct hcn_face_drops *d, size_t size)
{
	struct hcn_counters_arg c = {
		.val = (void *)d, .n = size / sizeof(__u64),
		.first = HICN_A_FACE_DROPS_TRUNCATED,
		.max = HICN_A_FACE_DROPS_MAX,
	};
	struct hcn_req r;
	int err;

	static_assert(sizeof(struct hcn_face_drops) ==
		      (HICN_A_FACE_DROPS_MAX - HICN_A_FACE_DROPS_TRUNCATED + 1) *
		      sizeof(__u64), "one member per reason");
	hcn_emsg[0] = '\0';
	if (!d)
		return hcn_local_err(EINVAL, "no buffer");
	memset(d, 0, size);
	req_init(&r, HICN_CMD_FACE_GET, 0);
	put_u32(&r, HICN_A_FACE_ID, id);
	err = hcn_call(HICN_FAMILY_NAME, &r, face_drops_one, &c);
	return err ? err : c.got;
}

static int face_each(__u8 cmd, const void *attrs, int len, void *arg)
{
	struct hcn_dump_arg *d = arg;
	struct hcn_face f;

	(void)cmd;
	face_fill(attrs, len, &f);
	return ((hcn_face_cb)d->cb)(&f, d->arg);
}

int hcn_face_dump(hcn_face_cb cb, void *arg)
{
	struct hcn_dump_arg d = { .cb = (void *)cb, .arg = arg };
	struct hcn_req r;

	hcn_emsg[0] = '\0';
	if (!cb)
		return hcn_local_err(EINVAL, "no callback");
	req_init(&r, HICN_CMD_FACE_GET, 1);
	return hcn_call(HICN_FAMILY_NAME, &r, face_each, &d);
}

/* The id of an add's reply (face-add, listener-add: attribute @type). */
struct hcn_id_arg {
	int	type;
	__u32	id;
};

static int id_one(__u8 cmd, const void *attrs, int len, void *arg)
{
	const struct nlattr *tb[32];
	struct hcn_id_arg *a = arg;

	(void)cmd;
	hcn_parse(attrs, len, tb, 31);
	a->id = get_u32(tb[a->type]);
	return 0;
}

int hcn_face_add(const struct hcn_face *f, __u32 *id)
{
	struct hcn_id_arg got = { .type = HICN_A_FACE_ID };
	struct hcn_req r;
	int err;

	hcn_emsg[0] = '\0';
	if (!f)
		return hcn_local_err(EINVAL, "no face");
	req_init(&r, HICN_CMD_FACE_ADD, 0);
	if (f->attrs & HCN_ATTR(HICN_A_FACE_LISTENER_ID))
		put_u32(&r, HICN_A_FACE_LISTENER_ID, f->listener_id);
	if (f->attrs & HCN_ATTR(HICN_A_FACE_REMOTE)) {
		err = put_addr(&r, HICN_A_FACE_REMOTE, f->family,
			       &f->remote.v4, &f->remote.v6);
		if (err)
			return err;
	}
	if (f->attrs & HCN_ATTR(HICN_A_FACE_REMOTE_PORT))
		put_u16(&r, HICN_A_FACE_REMOTE_PORT, f->remote_port);
	if (f->attrs & HCN_ATTR(HICN_A_FACE_FORMAT))
		put_u8(&r, HICN_A_FACE_FORMAT, f->format);
	err = hcn_call(HICN_FAMILY_NAME, &r, id_one, &got);
	if (!err && id)
		*id = got.id;
	return err;
}

int hcn_face_del(__u32 id)
{
	struct hcn_req r;

	hcn_emsg[0] = '\0';
	req_init(&r, HICN_CMD_FACE_DEL, 0);
	put_u32(&r, HICN_A_FACE_ID, id);
	return hcn_call(HICN_FAMILY_NAME, &r, NULL, NULL);
}

/* ---- hicn: listeners ---- */

static void listener_fill(const void *attrs, int len, struct hcn_listener *l)
{
	const struct nlattr *tb[HICN_A_LISTENER_MAX + 1];

	hcn_parse(attrs, len, tb, HICN_A_LISTENER_MAX);
	memset(l, 0, sizeof(*l));
	l->attrs = present(tb, HICN_A_LISTENER_MAX);
	l->id = get_u32(tb[HICN_A_LISTENER_ID]);
	get_addr(tb[HICN_A_LISTENER_LOCAL], &l->family, &l->local.v4,
		 &l->local.v6);
	l->port = get_u16(tb[HICN_A_LISTENER_PORT]);
	l->auto_faces = get_u8(tb[HICN_A_LISTENER_AUTO_FACES]);
	l->faces = get_u32(tb[HICN_A_LISTENER_FACES]);
	l->no_face = get_u64(tb[HICN_A_LISTENER_NO_FACE]);
}

static int listener_one(__u8 cmd, const void *attrs, int len, void *arg)
{
	(void)cmd;
	listener_fill(attrs, len, arg);
	return 0;
}

int hcn_listener_get(__u32 id, struct hcn_listener *l)
{
	struct hcn_listener tmp;
	struct hcn_req r;
	int err;

	hcn_emsg[0] = '\0';
	req_init(&r, HICN_CMD_LISTENER_GET, 0);
	put_u32(&r, HICN_A_LISTENER_ID, id);
	memset(&tmp, 0, sizeof(tmp));
	err = hcn_call(HICN_FAMILY_NAME, &r, listener_one, &tmp);
	if (!err && l)
		*l = tmp;
	return err;
}

static int listener_each(__u8 cmd, const void *attrs, int len, void *arg)
{
	struct hcn_dump_arg *d = arg;
	struct hcn_listener l;

	(void)cmd;
	listener_fill(attrs, len, &l);
	return ((hcn_listener_cb)d->cb)(&l, d->arg);
}

int hcn_listener_dump(hcn_listener_cb cb, void *arg)
{
	struct hcn_dump_arg d = { .cb = (void *)cb, .arg = arg };
	struct hcn_req r;

	hcn_emsg[0] = '\0';
	if (!cb)
		return hcn_local_err(EINVAL, "no callback");
	req_init(&r, HICN_CMD_LISTENER_GET, 1);
	return hcn_call(HICN_FAMILY_NAME, &r, listener_each, &d);
}

int hcn_listener_add(const struct hcn_listener *l, __u32 *id)
{
	struct hcn_id_arg got = { .type = HICN_A_LISTENER_ID };
	struct hcn_req r;
	int err;

	hcn_emsg[0] = '\0';
	if (!l)
		return hcn_local_err(EINVAL, "no listener");
	req_init(&r, HICN_CMD_LISTENER_ADD, 0);
	if (l->attrs & HCN_ATTR(HICN_A_LISTENER_LOCAL)) {
		err = put_addr(&r, HICN_A_LISTENER_LOCAL, l->family,
			       &l->local.v4, &l->local.v6);
		if (err)
			return err;
	}
	if (l->attrs & HCN_ATTR(HICN_A_LISTENER_PORT))
		put_u16(&r, HICN_A_LISTENER_PORT, l->port);
	if (l->attrs & HCN_ATTR(HICN_A_LISTENER_AUTO_FACES))
		put_u8(&r, HICN_A_LISTENER_AUTO_FACES, l->auto_faces);
	err = hcn_call(HICN_FAMILY_NAME, &r, id_one, &got);
	if (!err && id)
		*id = got.id;
	return err;
}

int hcn_listener_del(__u32 id)
{
	struct hcn_req r;

	hcn_emsg[0] = '\0';
	req_init(&r, HICN_CMD_LISTENER_DEL, 0);
	put_u32(&r, HICN_A_LISTENER_ID, id);
	return hcn_call(HICN_FAMILY_NAME, &r, NULL, NULL);
}

/* ---- hicn: routes and strategies ---- */

static void route_fill(const void *attrs, int len, struct hcn_route *rt)
{
	const struct nlattr *tb[HICN_A_ROUTE_MAX + 1];
	const struct nlattr *a = attrs;

	hcn_parse(attrs, len, tb, HICN_A_ROUTE_MAX);
	memset(rt, 0, sizeof(*rt));
	rt->attrs = present(tb, HICN_A_ROUTE_MAX);
	get_bin(tb[HICN_A_ROUTE_PREFIX], &rt->prefix, sizeof(rt->prefix));
	rt->prefix_len = get_u8(tb[HICN_A_ROUTE_PREFIX_LEN]);
	rt->strategy = get_u8(tb[HICN_A_ROUTE_STRATEGY]);
	/* The next hops are a multi-attr: every one, in order. */
	while (len >= (int)NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
	       a->nla_len <= len) {
		if ((a->nla_type & NLA_TYPE_MASK) == HICN_A_ROUTE_NEXTHOP) {
			const struct nlattr *nh[HICN_A_NEXTHOP_MAX + 1];

			if (rt->nexthops < HCN_ROUTE_NEXTHOPS_MAX) {
				struct hcn_nexthop *n = &rt->nexthop[rt->nexthops++];

				hcn_parse(NLA_DATA(a), NLA_PAYLOAD(a), nh,
					  HICN_A_NEXTHOP_MAX);
				n->face_id = get_u32(nh[HICN_A_NEXTHOP_FACE_ID]);
				n->cost = get_u32(nh[HICN_A_NEXTHOP_COST]);
			}
			rt->nexthops_total++;
		}
		len -= NLA_ALIGN(a->nla_len);
		a = (const struct nlattr *)((const char *)a + NLA_ALIGN(a->nla_len));
	}
}

static int route_one(__u8 cmd, const void *attrs, int len, void *arg)
{
	(void)cmd;
	route_fill(attrs, len, arg);
	return 0;
}

int hcn_route_get(const struct in6_addr *prefix, unsigned int prefix_len,
		  struct hcn_route *rt)
{
	struct hcn_route tmp;
	struct hcn_req r;
	int err;

	hcn_emsg[0] = '\0';
	req_init(&r, HICN_CMD_ROUTE_GET, 0);
	err = put_prefix(&r, HICN_A_ROUTE_PREFIX, HICN_A_ROUTE_PREFIX_LEN,
			 prefix, prefix_len);
	if (err)
		return err;
	memset(&tmp, 0, sizeof(tmp));
	err = hcn_call(HICN_FAMILY_NAME, &r, route_one, &tmp);
	if (!err && rt)
		*rt = tmp;
	return err;
}

static int route_each(__u8 cmd, const void *attrs, int len, void *arg)
{
	struct hcn_dump_arg *d = arg;
	struct hcn_route rt;

	(void)cmd;
	route_fill(attrs, len, &rt);
	return ((hcn_route_cb)d->cb)(&rt, d->arg);
}

int hcn_route_dump(hcn_route_cb cb, void *arg)
{
	struct hcn_dump_arg d = { .cb = (void *)cb, .arg = arg };
	struct hcn_req r;

	hcn_emsg[0] = '\0';
	if (!cb)
		return hcn_local_err(EINVAL, "no callback");
	req_init(&r, HICN_CMD_ROUTE_GET, 1);
	return hcn_call(HICN_FAMILY_NAME, &r, route_each, &d);
}

int hcn_route_add(const struct in6_addr *prefix, unsigned int prefix_len,
		  __u32 face_id, __u32 cost)
{
	struct hcn_req r;
	int err;

	hcn_emsg[0] = '\0';
	req_init(&r, HICN_CMD_ROUTE_ADD, 0);
	err = put_prefix(&r, HICN_A_ROUTE_PREFIX, HICN_A_ROUTE_PREFIX_LEN,
			 prefix, prefix_len);
	if (err)
		return err;
	put_u32(&r, HICN_A_ROUTE_FACE_ID, face_id);
	put_u32(&r, HICN_A_ROUTE_COST, cost);
	return hcn_call(HICN_FAMILY_NAME, &r, NULL, NULL);
}

int hcn_route_del(const struct in6_addr *prefix, unsigned int prefix_len,
		  __u32 face_id)
{
	struct hcn_req r;
	int err;

	hcn_emsg[0] = '\0';
	req_init(&r, HICN_CMD_ROUTE_DEL, 0);
	err = put_prefix(&r, HICN_A_ROUTE_PREFIX, HICN_A_ROUTE_PREFIX_LEN,
			 prefix, prefix_len);
	if (err)
		return err;
	put_u32(&r, HICN_A_ROUTE_FACE_ID, face_id);
	return hcn_call(HICN_FAMILY_NAME, &r, NULL, NULL);
}

int hcn_strategy_set(const struct in6_addr *prefix, unsigned int prefix_len,
		     unsigned int strategy)
{
	struct hcn_req r;
	int err;

	hcn_emsg[0] = '\0';
	if (strategy > 255)
		return hcn_local_err(ERANGE, "strategy over 255");
	req_init(&r, HICN_CMD_STRATEGY_SET, 0);
	err = put_prefix(&r, HICN_A_ROUTE_PREFIX, HICN_A_ROUTE_PREFIX_LEN,
			 prefix, prefix_len);
	if (err)
		return err;
	put_u8(&r, HICN_A_ROUTE_STRATEGY, strategy);
	return hcn_call(HICN_FAMILY_NAME, &r, NULL, NULL);
}

/* ---- hicn: events ---- */

/* The next hop a route event names. */
static void route_event_fill(const void *attrs, int len,
			     struct hcn_route_event *re)
{
	const struct nlattr *tb[HICN_A_ROUTE_MAX + 1];

	hcn_parse(attrs, len, tb, HICN_A_ROUTE_MAX);
	memset(re, 0, sizeof(*re));
	re->attrs = present(tb, HICN_A_ROUTE_MAX);
	get_bin(tb[HICN_A_ROUTE_PREFIX], &re->prefix, sizeof(re->prefix));
	re->prefix_len = get_u8(tb[HICN_A_ROUTE_PREFIX_LEN]);
	re->nexthop.face_id = get_u32(tb[HICN_A_ROUTE_FACE_ID]);
	re->nexthop.cost = get_u32(tb[HICN_A_ROUTE_COST]);
}

struct hcn_monitor_arg {
	hcn_event_cb	cb;
	void		*arg;
	bool		all;	/* HCN_1.3: not only the namespace events */
};

static int hicn_event_one(__u8 cmd, const void *attrs, int len, void *arg)
{
	struct hcn_monitor_arg *m = arg;
	struct hcn_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = cmd;
	switch (cmd) {
	case HICN_CMD_NAMESPACE_CLAIMED:
	case HICN_CMD_NAMESPACE_RELEASED:
		ns_fill(attrs, len, &ev.ns);
		break;
	case HICN_CMD_FACE_ADDED:
	case HICN_CMD_FACE_DELETED:
	case HICN_CMD_FACE_UP:
	case HICN_CMD_FACE_DOWN:
		if (!m->all)
			return 0;
		face_fill(attrs, len, &ev.face);
		break;
	case HICN_CMD_ROUTE_ADDED:
	case HICN_CMD_ROUTE_DELETED:
		if (!m->all)
			return 0;
		route_event_fill(attrs, len, &ev.route);
		break;
	default:	/* an event of a later kernel */
		return 0;
	}
	return m->cb(&ev, m->arg);
}

static int monitor(hcn_event_cb cb, void *arg, bool all)
{
	struct hcn_monitor_arg m = { .cb = cb, .arg = arg, .all = all };

	hcn_emsg[0] = '\0';
	if (!cb)
		return hcn_local_err(EINVAL, "no callback");
	return hcn_listen(HICN_FAMILY_NAME, HICN_MCGRP_EVENTS, hicn_event_one, &m);
}

/*
 * hcn_monitor() has two versions (hcn.map): HCN_1.1's, which programs
 * linked with libhcn 1.1 and 1.2 bind, gives the namespace events only,
 * the only ones their callbacks know; HCN_1.3's, the default, gives
 * every event, the face and route events too (struct hcn_event grew at
 * its end for them).
 */
__asm__(".symver hcn_monitor_v1_1, hcn_monitor@HCN_1.1");
__asm__(".symver hcn_monitor_v1_3, hcn_monitor@@HCN_1.3");

int hcn_monitor_v1_1(hcn_event_cb cb, void *arg)
{
	return monitor(cb, arg, false);
}

int hcn_monitor_v1_3(hcn_event_cb cb, void *arg)
{
	return monitor(cb, arg, true);
}

/* ---- psock: endpoints ---- */

static void endpoint_fill(const void *attrs, int len,
			  struct hcn_psock_endpoint *ep)
{
	const struct nlattr *tb[PSOCK_A_ENDPOINT_MAX + 1];

	hcn_parse(attrs, len, tb, PSOCK_A_ENDPOINT_MAX);
	memset(ep, 0, sizeof(*ep));
	ep->attrs = present(tb, PSOCK_A_ENDPOINT_MAX);
	ep->id = get_u8(tb[PSOCK_A_ENDPOINT_ID]);
	ep->family = get_u16(tb[PSOCK_A_ENDPOINT_FAMILY]);
	if (tb[PSOCK_A_ENDPOINT_ADDR4])
		get_bin(tb[PSOCK_A_ENDPOINT_ADDR4], &ep->addr.v4,
			sizeof(ep->addr.v4));
	else
		get_bin(tb[PSOCK_A_ENDPOINT_ADDR6], &ep->addr.v6,
			sizeof(ep->addr.v6));
	ep->ifindex = (__s32)get_u32(tb[PSOCK_A_ENDPOINT_IFINDEX]);
	ep->flags = get_u32(tb[PSOCK_A_ENDPOINT_FLAGS]);
}

static int endpoint_one(__u8 cmd, const void *attrs, int len, void *arg)
{
	(void)cmd;
	endpoint_fill(attrs, len, arg);
	return 0;
}

int hcn_psock_endpoint_add(const struct hcn_psock_endpoint *ep,
			   __u8 *id)
{
	struct hcn_psock_endpoint got;
	struct hcn_req r;
	int err;

	hcn_emsg[0] = '\0';
	if (!ep)
		return hcn_local_err(EINVAL, "no endpoint");
	req_init(&r, PSOCK_CMD_ENDPOINT_ADD, 0);
	if (ep->attrs & HCN_ATTR(PSOCK_A_ENDPOINT_ID))
		put_u8(&r, PSOCK_A_ENDPOINT_ID, ep->id);
	if (ep->attrs & HCN_ATTR(PSOCK_A_ENDPOINT_FAMILY))
		put_u16(&r, PSOCK_A_ENDPOINT_FAMILY, ep->family);
	if (ep->attrs & HCN_ATTR(PSOCK_A_ENDPOINT_ADDR4))
		put(&r, PSOCK_A_ENDPOINT_ADDR4, &ep->addr.v4, sizeof(ep->addr.v4));
	if (ep->attrs & HCN_ATTR(PSOCK_A_ENDPOINT_ADDR6))
		put(&r, PSOCK_A_ENDPOINT_ADDR6, &ep->addr.v6, sizeof(ep->addr.v6));
	if (ep->attrs & HCN_ATTR(PSOCK_A_ENDPOINT_IFINDEX))
		put_u32(&r, PSOCK_A_ENDPOINT_IFINDEX, (__u32)ep->ifindex);
	if (ep->attrs & HCN_ATTR(PSOCK_A_ENDPOINT_FLAGS))
		put_u32(&r, PSOCK_A_ENDPOINT_FLAGS, ep->flags);
	memset(&got, 0, sizeof(got));
	err = hcn_call(PSOCK_FAMILY_NAME, &r, endpoint_one, &got);
	if (!err && id)
		*id = got.id;
	return err;
}

int hcn_psock_endpoint_del(__u8 id)
{
	struct hcn_req r;

	hcn_emsg[0] = '\0';
	req_init(&r, PSOCK_CMD_ENDPOINT_DEL, 0);
	put_u8(&r, PSOCK_A_ENDPOINT_ID, id);
	return hcn_call(PSOCK_FAMILY_NAME, &r, NULL, NULL);
}

int hcn_psock_endpoint_get(__u8 id, struct hcn_psock_endpoint *ep)
{
	struct hcn_psock_endpoint tmp;
	struct hcn_req r;
	int err;

	hcn_emsg[0] = '\0';
	req_init(&r, PSOCK_CMD_ENDPOINT_GET, 0);
	put_u8(&r, PSOCK_A_ENDPOINT_ID, id);
	memset(&tmp, 0, sizeof(tmp));
	err = hcn_call(PSOCK_FAMILY_NAME, &r, endpoint_one, &tmp);
	if (!err && ep)
		*ep = tmp;
	return err;
}

static int endpoint_each(__u8 cmd, const void *attrs, int len, void *arg)
{
	struct hcn_dump_arg *d = arg;
	struct hcn_psock_endpoint ep;

	(void)cmd;
	endpoint_fill(attrs, len, &ep);
	return ((hcn_psock_endpoint_cb)d->cb)(&ep, d->arg);
}

int hcn_psock_endpoint_dump(hcn_psock_endpoint_cb cb, void *arg)
{
	struct hcn_dump_arg d = { .cb = (void *)cb, .arg = arg };
	struct hcn_req r;

	hcn_emsg[0] = '\0';
	if (!cb)
		return hcn_local_err(EINVAL, "no callback");
	req_init(&r, PSOCK_CMD_ENDPOINT_GET, 1);
	return hcn_call(PSOCK_FAMILY_NAME, &r, endpoint_each, &d);
}

int hcn_psock_endpoint_flush(int family)
{
	struct hcn_req r;

	hcn_emsg[0] = '\0';
	req_init(&r, PSOCK_CMD_ENDPOINT_FLUSH, 0);
	if (family != AF_UNSPEC)
		put_u16(&r, PSOCK_A_ENDPOINT_FAMILY, family);
	return hcn_call(PSOCK_FAMILY_NAME, &r, NULL, NULL);
}

/* ---- psock: limits, counters, events ---- */

static int psock_limits_one(__u8 cmd, const void *attrs, int len,
			    void *arg)
{
	const struct nlattr *tb[PSOCK_A_LIMITS_MAX + 1];
	struct hcn_psock_limits *l = arg;

	(void)cmd;
	hcn_parse(attrs, len, tb, PSOCK_A_LIMITS_MAX);
	l->attrs = present(tb, PSOCK_A_LIMITS_MAX);
	l->rcmd_stream_cnt = get_u32(tb[PSOCK_A_LIMITS_RCMD_STREAM_CNT]);
	l->max_stream_cnt = get_u32(tb[PSOCK_A_LIMITS_MAX_STREAM_CNT]);
	l->driver = get_u32(tb[PSOCK_A_LIMITS_DRIVER]);
	return 0;
}

int hcn_psock_limits_get(struct hcn_psock_limits *l)
{
	struct hcn_psock_limits tmp;
	struct hcn_req r;
	int err;

	hcn_emsg[0] = '\0';
	memset(&tmp, 0, sizeof(tmp));
	req_init(&r, PSOCK_CMD_LIMITS_GET, 0);
	err = hcn_call(PSOCK_FAMILY_NAME, &r, psock_limits_one, &tmp);
	if (!err && l)
		*l = tmp;
	return err;
}

int hcn_psock_limits_set(const struct hcn_psock_limits *l)
{
	struct hcn_req r;

	hcn_emsg[0] = '\0';
	if (!l)
		return hcn_local_err(EINVAL, "no values");
	req_init(&r, PSOCK_CMD_LIMITS_SET, 0);
	if (l->attrs & HCN_ATTR(PSOCK_A_LIMITS_RCMD_STREAM_CNT))
		put_u32(&r, PSOCK_A_LIMITS_RCMD_STREAM_CNT, l->rcmd_stream_cnt);
	if (l->attrs & HCN_ATTR(PSOCK_A_LIMITS_MAX_STREAM_CNT))
		put_u32(&r, PSOCK_A_LIMITS_MAX_STREAM_CNT, l->max_stream_cnt);
	if (l->attrs & HCN_ATTR(PSOCK_A_LIMITS_DRIVER))
		put_u32(&r, PSOCK_A_LIMITS_DRIVER, l->driver);
	return hcn_call(PSOCK_FAMILY_NAME, &r, NULL, NULL);
}

int hcn_psock_counters_get(struct hcn_psock_counters *c, size_t size)
{
	static_assert(sizeof(struct hcn_psock_counters) ==
		       HCN_PSOCK_COUNTERS_NUM * sizeof(__u64), "no holes");
	return counters_get(PSOCK_FAMILY_NAME, PSOCK_CMD_COUNTERS_GET, c, size,
			    PSOCK_A_COUNTERS_PAD + 1, PSOCK_A_COUNTERS_MAX);
}

static int psock_event_one(__u8 cmd, const void *attrs, int len, void *arg)
{
	const struct nlattr *tb[PSOCK_A_SUBFLOW_EVENT_MAX + 1];
	struct hcn_dump_arg *d = arg;
	struct hcn_psock_event ev;

	if (cmd != PSOCK_CMD_SUBFLOW_ESTABLISHED && cmd != PSOCK_CMD_SUBFLOW_CLOSED)
		return 0;
	hcn_parse(attrs, len, tb, PSOCK_A_SUBFLOW_EVENT_MAX);
	memset(&ev, 0, sizeof(ev));
	ev.type = cmd;
	ev.attrs = present(tb, PSOCK_A_SUBFLOW_EVENT_MAX);
	ev.family = get_u16(tb[PSOCK_A_SUBFLOW_EVENT_FAMILY]);
	if (tb[PSOCK_A_SUBFLOW_EVENT_SADDR4])
		get_bin(tb[PSOCK_A_SUBFLOW_EVENT_SADDR4], &ev.saddr.v4, 4);
	else
		get_bin(tb[PSOCK_A_SUBFLOW_EVENT_SADDR6], &ev.saddr.v6, 16);
	if (tb[PSOCK_A_SUBFLOW_EVENT_DADDR4])
		get_bin(tb[PSOCK_A_SUBFLOW_EVENT_DADDR4], &ev.daddr.v4, 4);
	else
		get_bin(tb[PSOCK_A_SUBFLOW_EVENT_DADDR6], &ev.daddr.v6, 16);
	ev.sport = ntohs(get_u16(tb[PSOCK_A_SUBFLOW_EVENT_SPORT]));
	ev.dport = ntohs(get_u16(tb[PSOCK_A_SUBFLOW_EVENT_DPORT]));
	ev.index = get_u8(tb[PSOCK_A_SUBFLOW_EVENT_INDEX]);
	ev.error = get_u32(tb[PSOCK_A_SUBFLOW_EVENT_ERROR]);
	return ((hcn_psock_event_cb)d->cb)(&ev, d->arg);
}

int hcn_psock_monitor(hcn_psock_event_cb cb, void *arg)
{
	struct hcn_dump_arg d = { .cb = (void *)cb, .arg = arg };

	hcn_emsg[0] = '\0';
	if (!cb)
		return hcn_local_err(EINVAL, "no callback");
	return hcn_listen(PSOCK_FAMILY_NAME, PSOCK_MCGRP_EVENTS, psock_event_one,
			  &d);
}
