// SPDX-License-Identifier: GPL-2.0
/*
 * The "hicn" generic netlink family: faces and UDP listeners.
 *
 *   faces       hicn_net.faces, read under hicn_net.lock; a dump resumes
 *               after the last face id it sent (ids grow along the
 *               list).  UDP faces are added and deleted here; an
 *               application face comes and goes with its socket.
 *               A UDP face added, deleted, going up or down is an event
 *               (hicn_nl_face_event(), from face_udp.c).
 *   listeners   hicn_net.udp_listeners (face_udp.c), under hicn_net.lock;
 *               a dump resumes after the last id sent.
 *
 * Addresses are 4 (IPv4) or 16 (IPv6) bytes of binary attribute; ports are
 * u16 in host byte order, 0 meaning HICN_UDP_PORT (9695).
 * Permissions and errors as in netlink.c.
 */

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/user_namespace.h>
#include <net/genetlink.h>
#include <net/ipv6.h>

#include "hicn.h"
#include "netlink.h"
#include "netlink_gen.h"
#include "wire.h"

/* ---- faces ---- */

/* An address and port as netlink carries them. */
static int hicn_nl_put_addr(struct sk_buff *msg, int a_addr, int a_port,
			    const struct sockaddr_storage *ss)
{
	const struct sockaddr_in6 *s6 = (const void *)ss;
	const struct sockaddr_in *s4 = (const void *)ss;

	if (ss->ss_family == AF_INET)
		return nla_put_in_addr(msg, a_addr, s4->sin_addr.s_addr) ||
		       nla_put_u16(msg, a_port, ntohs(s4->sin_port));
	return nla_put_in6_addr(msg, a_addr, &s6->sin6_addr) ||
	       nla_put_u16(msg, a_port, ntohs(s6->sin6_port));
}

/* A UDP face's drops by reason, nested. */
static int hicn_nl_face_fill_drops(struct sk_buff *msg,
				   const struct hicn_udp_face_info *ui)
{
	struct nlattr *nest;
	unsigned int i;

	nest = nla_nest_start(msg, HICN_A_FACE_DROPS);
	if (!nest)
		return -EMSGSIZE;
	for (i = HICN_A_FACE_DROPS_TRUNCATED; i <= HICN_A_FACE_DROPS_MAX; i++) {
		if (nla_put_u64_64bit(msg, i, ui->drops[i],
				      HICN_A_FACE_DROPS_PAD)) {
			nla_nest_cancel(msg, nest);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(msg, nest);
	return 0;
}

/* A UDP face's listener and peer, and its counters when @counters. */
static int hicn_nl_face_fill_udp(struct sk_buff *msg, struct hicn_face *f,
				 bool counters)
{
	struct hicn_udp_face_info ui;

	if (!hicn_udp_face_info(f, &ui))
		return 0;
	if (nla_put_u32(msg, HICN_A_FACE_LISTENER_ID, ui.listener) ||
	    hicn_nl_put_addr(msg, HICN_A_FACE_REMOTE, HICN_A_FACE_REMOTE_PORT,
			     &ui.remote) ||
	    nla_put_u8(msg, HICN_A_FACE_FORMAT, ui.format) ||
	    nla_put_u8(msg, HICN_A_FACE_AUTO, ui.auto_created))
		return -EMSGSIZE;
	if (!counters)
		return 0;
	if (nla_put_u64_64bit(msg, HICN_A_FACE_MALFORMED, ui.malformed,
			      HICN_A_FACE_PAD) ||
	    nla_put_u64_64bit(msg, HICN_A_FACE_TX_DROPS, ui.tx_drops,
			      HICN_A_FACE_PAD) ||
	    nla_put_u64_64bit(msg, HICN_A_FACE_HOP_DROPS, ui.hop_drops,
			      HICN_A_FACE_PAD))
		return -EMSGSIZE;
	return hicn_nl_face_fill_drops(msg, &ui);
}

/* What a face is, for the events and the replies. */
static int hicn_nl_face_fill_id(struct sk_buff *msg, struct net *net,
				struct hicn_face *f)
{
	if (nla_put_u32(msg, HICN_A_FACE_ID, f->id) ||
	    nla_put_u8(msg, HICN_A_FACE_KIND, f->ops->kind) ||
	    nla_put_u32(msg, HICN_A_FACE_UID,
			from_kuid_munged(net->user_ns, f->uid)) ||
	    nla_put_u8(msg, HICN_A_FACE_UP, READ_ONCE(f->up)))
		return -EMSGSIZE;
	return 0;
}

static int hicn_nl_face_fill(struct sk_buff *msg, struct net *net,
			     struct hicn_face *f)
{
	const struct hicn_face_stats *st = &f->stats;

	if (hicn_nl_face_fill_id(msg, net, f) ||
	    nla_put_u32(msg, HICN_A_FACE_OUT_PENDING,
			atomic_read(&f->out_pending)) ||
	    nla_put_u64_64bit(msg, HICN_A_FACE_INTERESTS_IN,
			      atomic64_read(&st->interests_in),
			      HICN_A_FACE_PAD) ||
	    nla_put_u64_64bit(msg, HICN_A_FACE_INTERESTS_OUT,
			      atomic64_read(&st->interests_out),
			      HICN_A_FACE_PAD) ||
	    nla_put_u64_64bit(msg, HICN_A_FACE_DATA_IN,
			      atomic64_read(&st->data_in), HICN_A_FACE_PAD) ||
	    nla_put_u64_64bit(msg, HICN_A_FACE_DATA_OUT,
			      atomic64_read(&st->data_out), HICN_A_FACE_PAD) ||
	    nla_put_u64_64bit(msg, HICN_A_FACE_UNSOLICITED,
			      atomic64_read(&st->unsolicited),
			      HICN_A_FACE_PAD) ||
	    nla_put_u64_64bit(msg, HICN_A_FACE_REFUSED,
			      atomic64_read(&st->refused), HICN_A_FACE_PAD))
		return -EMSGSIZE;
	return hicn_nl_face_fill_udp(msg, f, true);
}

/**
 * hicn_nl_face_event() - tell the namespace's listeners about a UDP face
 * @face: the face, as it is now (a deleted face is down)
 * @cmd: HICN_CMD_FACE_ADDED, _DELETED, _UP or _DOWN
 *
 * Context: process (face_udp.c, under hicn_net.lock: a netlink request,
 * the rx work making a face for a new peer, the link work).
 */
void hicn_nl_face_event(struct hicn_face *face, u8 cmd)
{
	struct sk_buff *msg;
	void *hdr;

	might_sleep();
	msg = hicn_nl_event_new(face->net, cmd, NLMSG_GOODSIZE, GFP_KERNEL,
				&hdr);
	if (!msg)
		return;
	if (hicn_nl_face_fill_id(msg, face->net, face) ||
	    hicn_nl_face_fill_udp(msg, face, false)) {
		nlmsg_free(msg);
		return;
	}
	hicn_nl_event_send(face->net, msg, hdr, GFP_KERNEL);
}

/* The face with id @id, with a reference, or NULL. */
static struct hicn_face *hicn_nl_face_find(struct hicn_net *hn, u32 id)
{
	struct hicn_face *f, *found = NULL;

	mutex_lock(&hn->lock);
	list_for_each_entry(f, &hn->faces, node) {
		if (f->id == id) {
			found = hicn_face_get(f);
			break;
		}
	}
	mutex_unlock(&hn->lock);
	return found;
}

/* The face a request's @attr names, or an ERR_PTR with the extack set. */
struct hicn_face *hicn_nl_face_arg(struct hicn_net *hn, struct genl_info *info,
				   int attr)
{
	struct hicn_face *f;
	int err;

	err = hicn_nl_require(info->extack, info->attrs, attr,
			      "missing face id");
	if (err)
		return ERR_PTR(err);
	f = hicn_nl_face_find(hn, nla_get_u32(info->attrs[attr]));
	if (!f) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[attr],
				    "no face with this id");
		return ERR_PTR(-ENODEV);
	}
	return f;
}

int hicn_nl_face_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct hicn_face *f;
	struct sk_buff *msg;
	void *hdr;
	int err;

	f = hicn_nl_face_arg(hicn_pernet(net), info, HICN_A_FACE_ID);
	if (IS_ERR(f))
		return PTR_ERR(f) == -ENODEV ? -ENOENT : PTR_ERR(f);
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	err = -ENOMEM;
	if (!msg)
		goto out;
	hdr = genlmsg_put_reply(msg, info, &hicn_nl_family, 0,
				HICN_CMD_FACE_GET);
	err = hdr ? hicn_nl_face_fill(msg, net, f) : -EMSGSIZE;
	if (err) {
		nlmsg_free(msg);
		goto out;
	}
	genlmsg_end(msg, hdr);
	err = genlmsg_reply(msg, info);
out:
	hicn_face_put(f);
	return err;
}

/* cb->args[0]: the id of the last face sent. */
int hicn_nl_face_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct net *net = sock_net(skb->sk);
	struct hicn_net *hn = hicn_pernet(net);
	struct hicn_face *f;
	int err = 0;
	void *hdr;

	mutex_lock(&hn->lock);
	list_for_each_entry(f, &hn->faces, node) {
		if (f->id <= cb->args[0])
			continue;
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &hicn_nl_family,
				  NLM_F_MULTI, HICN_CMD_FACE_GET);
		err = hdr ? hicn_nl_face_fill(skb, net, f) : -EMSGSIZE;
		if (err) {
			if (hdr)
				genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
		cb->args[0] = f->id;
	}
	mutex_unlock(&hn->lock);
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ?: skb->len;
}

/*
 * An address attribute (4 or 16 bytes) and a port attribute (0 or absent:
 * HICN_UDP_PORT) as a socket address; -EINVAL with the extack set.
 */
static int hicn_nl_get_addr(struct genl_info *info, int a_addr, int a_port,
			    struct sockaddr_storage *ss)
{
	struct nlattr *a = info->attrs[a_addr];
	u16 port = HICN_UDP_PORT;
	int err;

	err = hicn_nl_require(info->extack, info->attrs, a_addr,
			      "missing address");
	if (err)
		return err;
	if (info->attrs[a_port] && nla_get_u16(info->attrs[a_port]))
		port = nla_get_u16(info->attrs[a_port]);
	memset(ss, 0, sizeof(*ss));
	if (nla_len(a) == 4) {
		struct sockaddr_in *s4 = (void *)ss;

		s4->sin_family = AF_INET;
		s4->sin_addr.s_addr = nla_get_in_addr(a);
		s4->sin_port = htons(port);
	} else if (nla_len(a) == 16) {
		struct sockaddr_in6 *s6 = (void *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_addr = nla_get_in6_addr(a);
		s6->sin6_port = htons(port);
	} else {
		NL_SET_ERR_MSG_ATTR(info->extack, a,
				    "an address is 4 or 16 bytes");
		return -EINVAL;
	}
	return 0;
}

int hicn_nl_face_add_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr **attrs = info->attrs;
	u8 format = HICN_WIRE_IPV6_TCP;
	struct sockaddr_storage remote;
	struct sk_buff *msg;
	u32 id, listener;
	void *hdr;
	int err;

	err = hicn_nl_require(extack, attrs, HICN_A_FACE_LISTENER_ID,
			      "missing listener id");
	if (err)
		return err;
	listener = nla_get_u32(attrs[HICN_A_FACE_LISTENER_ID]);
	err = hicn_nl_get_addr(info, HICN_A_FACE_REMOTE,
			       HICN_A_FACE_REMOTE_PORT, &remote);
	if (err)
		return err;
	if (attrs[HICN_A_FACE_FORMAT])
		format = nla_get_u8(attrs[HICN_A_FACE_FORMAT]);
	if (format == HICN_WIRE_IPV4_TCP) {
		NL_SET_ERR_MSG_ATTR(extack, attrs[HICN_A_FACE_FORMAT],
				    "AF_HICN names need the ipv6-tcp or compact format");
		return -EINVAL;
	}
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	err = hicn_udp_face_add(genl_info_net(info), listener, &remote,
				format, &id);
	if (err == -ENODEV)
		NL_SET_ERR_MSG_ATTR(extack, attrs[HICN_A_FACE_LISTENER_ID],
				    "no listener with this id");
	else if (err == -EAFNOSUPPORT)
		NL_SET_ERR_MSG_ATTR(extack, attrs[HICN_A_FACE_REMOTE],
				    "not the listener's address family");
	else if (err == -EEXIST)
		NL_SET_ERR_MSG_ATTR(extack, attrs[HICN_A_FACE_REMOTE],
				    "the listener has a face to this peer");
	else if (err == -ENOSPC)
		NL_SET_ERR_MSG(extack, "too many UDP faces");
	if (err)
		goto err_msg;
	hdr = genlmsg_put_reply(msg, info, &hicn_nl_family, 0,
				HICN_CMD_FACE_ADD);
	if (!hdr || nla_put_u32(msg, HICN_A_FACE_ID, id)) {
		err = -EMSGSIZE;
		goto err_msg;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_msg:
	nlmsg_free(msg);
	return err;
}

int hicn_nl_face_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	int err;

	err = hicn_nl_require(info->extack, info->attrs, HICN_A_FACE_ID,
			      "missing face id");
	if (err)
		return err;
	err = hicn_udp_face_del(genl_info_net(info),
				nla_get_u32(info->attrs[HICN_A_FACE_ID]));
	if (err == -ENOENT)
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[HICN_A_FACE_ID],
				    "no face with this id");
	else if (err == -EOPNOTSUPP)
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[HICN_A_FACE_ID],
				    "an application face goes with its socket");
	return err;
}

/* ---- listeners ---- */

static int hicn_nl_listener_fill(const struct hicn_udp_listener_info *li,
				 void *msg)
{
	if (nla_put_u32(msg, HICN_A_LISTENER_ID, li->id) ||
	    hicn_nl_put_addr(msg, HICN_A_LISTENER_LOCAL, HICN_A_LISTENER_PORT,
			     &li->local) ||
	    nla_put_u8(msg, HICN_A_LISTENER_AUTO_FACES, li->auto_faces) ||
	    nla_put_u32(msg, HICN_A_LISTENER_FACES, li->faces) ||
	    nla_put_u64_64bit(msg, HICN_A_LISTENER_NO_FACE, li->no_face,
			      HICN_A_LISTENER_PAD))
		return -EMSGSIZE;
	return 0;
}

struct hicn_nl_listener_one {
	struct sk_buff	*msg;
	u32		id;
	bool		found;
};

static int hicn_nl_listener_one(const struct hicn_udp_listener_info *li,
				void *arg)
{
	struct hicn_nl_listener_one *one = arg;

	if (li->id != one->id)
		return 0;
	one->found = true;
	return hicn_nl_listener_fill(li, one->msg) ?: 1;
}

int hicn_nl_listener_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct hicn_net *hn = hicn_pernet(genl_info_net(info));
	struct hicn_nl_listener_one one = {};
	void *hdr;
	int err;

	err = hicn_nl_require(info->extack, info->attrs, HICN_A_LISTENER_ID,
			      "missing listener id");
	if (err)
		return err;
	one.id = nla_get_u32(info->attrs[HICN_A_LISTENER_ID]);
	one.msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!one.msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(one.msg, info, &hicn_nl_family, 0,
				HICN_CMD_LISTENER_GET);
	err = -EMSGSIZE;
	if (hdr) {
		mutex_lock(&hn->lock);
		err = hicn_udp_listener_walk(hn, 0, hicn_nl_listener_one, &one);
		mutex_unlock(&hn->lock);
	}
	if (err >= 0 && !one.found) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[HICN_A_LISTENER_ID],
				    "no listener with this id");
		err = -ENOENT;
	}
	if (err < 0) {
		nlmsg_free(one.msg);
		return err;
	}
	genlmsg_end(one.msg, hdr);
	return genlmsg_reply(one.msg, info);
}

struct hicn_nl_listener_dump {
	struct sk_buff			*skb;
	struct netlink_callback		*cb;
};

static int hicn_nl_listener_dump_one(const struct hicn_udp_listener_info *li,
				     void *arg)
{
	struct hicn_nl_listener_dump *dd = arg;
	void *hdr;

	hdr = genlmsg_put(dd->skb, NETLINK_CB(dd->cb->skb).portid,
			  dd->cb->nlh->nlmsg_seq, &hicn_nl_family,
			  NLM_F_MULTI, HICN_CMD_LISTENER_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (hicn_nl_listener_fill(li, dd->skb)) {
		genlmsg_cancel(dd->skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(dd->skb, hdr);
	dd->cb->args[0] = li->id;
	return 0;
}

/* cb->args[0]: the id of the last listener sent. */
int hicn_nl_listener_get_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb)
{
	struct hicn_net *hn = hicn_pernet(sock_net(skb->sk));
	struct hicn_nl_listener_dump dd = { .skb = skb, .cb = cb };
	int err;

	mutex_lock(&hn->lock);
	err = hicn_udp_listener_walk(hn, cb->args[0],
				     hicn_nl_listener_dump_one, &dd);
	mutex_unlock(&hn->lock);
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ?: skb->len;
}

int hicn_nl_listener_add_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **attrs = info->attrs;
	struct sockaddr_storage local;
	bool auto_faces = false;
	struct sk_buff *msg;
	void *hdr;
	u32 id;
	int err;

	err = hicn_nl_get_addr(info, HICN_A_LISTENER_LOCAL,
			       HICN_A_LISTENER_PORT, &local);
	if (err)
		return err;
	if (attrs[HICN_A_LISTENER_AUTO_FACES])
		auto_faces = nla_get_u8(attrs[HICN_A_LISTENER_AUTO_FACES]);
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	err = hicn_udp_listener_add(genl_info_net(info), &local, auto_faces,
				    &id);
	if (err == -EADDRINUSE)
		NL_SET_ERR_MSG_ATTR(info->extack, attrs[HICN_A_LISTENER_LOCAL],
				    "the address and port are in use");
	else if (err == -EADDRNOTAVAIL)
		NL_SET_ERR_MSG_ATTR(info->extack, attrs[HICN_A_LISTENER_LOCAL],
				    "not an address of this network namespace");
	else if (err == -ENOSPC)
		NL_SET_ERR_MSG(info->extack, "too many listeners");
	if (err)
		goto err_msg;
	hdr = genlmsg_put_reply(msg, info, &hicn_nl_family, 0,
				HICN_CMD_LISTENER_ADD);
	if (!hdr || nla_put_u32(msg, HICN_A_LISTENER_ID, id)) {
		err = -EMSGSIZE;
		goto err_msg;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_msg:
	nlmsg_free(msg);
	return err;
}

int hicn_nl_listener_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	int err;

	err = hicn_nl_require(info->extack, info->attrs, HICN_A_LISTENER_ID,
			      "missing listener id");
	if (err)
		return err;
	err = hicn_udp_listener_del(genl_info_net(info),
				    nla_get_u32(info->attrs[HICN_A_LISTENER_ID]));
	if (err == -ENOENT)
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[HICN_A_LISTENER_ID],
				    "no listener with this id");
	return err;
}
