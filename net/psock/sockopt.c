// SPDX-License-Identifier: GPL-2.0
/*
 * SOL_PSOCK socket options (see include/uapi/linux/psock.h).
 *
 * The stream counts and the driver are negotiated on the control subflow,
 * so they can only change before connect() or listen(): afterwards they
 * fail with EISCONN.  Per-subflow buffer sizes are kept by index and applied
 * to each subflow before it connects, as TCP requires for the receive
 * window, so they too fail with EISCONN once the connection has begun.
 * All values live in struct pstripe_sock under lock_sock().
 *
 * Options the subflows share with the PSOCK socket: SO_SNDBUF, SO_RCVBUF,
 * SO_MARK and SO_PRIORITY are handled by the core (sock_setsockopt()) on
 * the PSOCK socket itself; 6.1 gives a protocol no hook on SOL_SOCKET, so
 * they are copied to a subflow when it is created (pstripe_sf_inherit())
 * and to the existing ones at the next call on the socket that takes its
 * lock, or run of its work (pstripe_sync_opts()).  TCP_NODELAY is handled
 * here and reaches every subflow at once.  A per-subflow PSOCK_SNDBUF /
 * PSOCK_RCVBUF wins over SO_SNDBUF / SO_RCVBUF for its subflow.  Accepted
 * subflows are clones of the TCP listener, which is the listening PSOCK
 * socket's subflow 0: they start with its values.
 *
 * Lock order: see the note at the top of protocol.c.
 */

#include <linux/tcp.h>
#include <linux/uaccess.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <net/tcp_states.h>

#include "protocol.h"

/* The connection has begun: negotiated values are fixed. */
static bool pstripe_opts_frozen(const struct sock *sk)
{
	return sk->sk_state != TCP_CLOSE || sk->sk_socket->state != SS_UNCONNECTED;
}

static int pstripe_get_int(sockptr_t optval, unsigned int optlen, int *val)
{
	if (optlen < sizeof(int))
		return -EINVAL;
	if (copy_from_sockptr(val, optval, sizeof(int)))
		return -EFAULT;
	return 0;
}

static int pstripe_set_stream_int(struct sock *sk, int optname,
				  sockptr_t optval, unsigned int optlen)
{
	struct pstripe_sock *ps = pstripe_sk(sk);
	struct pstream_int pi;

	if (optlen < sizeof(pi))
		return -EINVAL;
	if (copy_from_sockptr(&pi, optval, sizeof(pi)))
		return -EFAULT;
	if (pi.index < 0 || pi.index >= PSOCK_STREAM_CNT_LIMIT || pi.value < 0)
		return -EINVAL;
	if (pstripe_opts_frozen(sk))
		return -EISCONN;
	if (optname == PSOCK_SNDBUF)
		ps->sndbuf[pi.index] = pi.value;
	else
		ps->rcvbuf[pi.index] = pi.value;
	return 0;
}

/*
 * PSOCK_ADD_LOCAL_ADDR: a listener announces the address (at any time: it
 * applies to server hellos sent afterwards); a client uses it as a source
 * address of its data subflows (before connect()).
 */
static int pstripe_add_addr(struct sock *sk, sockptr_t optval,
			    unsigned int optlen)
{
	struct pstripe_sock *ps = pstripe_sk(sk);
	struct sockaddr_storage ss = { };
	struct pstripe_addr a = { };
	int i, err;

	if (optlen < sizeof(sa_family_t) || optlen > sizeof(ss))
		return -EINVAL;
	if (copy_from_sockptr(&ss, optval, optlen))
		return -EFAULT;
	if (ss.ss_family == AF_INET && sk->sk_family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

		if (optlen < sizeof(*sin) ||
		    sin->sin_addr.s_addr == htonl(INADDR_ANY))
			return -EINVAL;
		a.family = 4;
		a.port = sin->sin_port;
		memcpy(a.addr, &sin->sin_addr, 4);
	} else if (ss.ss_family == AF_INET6 && sk->sk_family == AF_INET6) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

		if (optlen < sizeof(*sin6) || ipv6_addr_any(&sin6->sin6_addr))
			return -EINVAL;
		a.family = 6;
		a.port = sin6->sin6_port;
		memcpy(a.addr, &sin6->sin6_addr, 16);
	} else {
		return -EAFNOSUPPORT;
	}

	lock_sock(sk);
	err = -EISCONN;
	if (sk->sk_state != TCP_LISTEN && pstripe_opts_frozen(sk))
		goto out;
	err = -EEXIST;
	for (i = 0; i < ps->nladdr; i++)
		if (!memcmp(&ps->laddr[i], &a, sizeof(a)))
			goto out;
	err = -ENOSPC;
	if (ps->nladdr == PSOCK_ADDR_MAX)
		goto out;
	ps->laddr[ps->nladdr++] = a;
	err = 0;
out:
	release_sock(sk);
	return err;
}

int pstripe_setsockopt_psock(struct sock *sk, int optname, sockptr_t optval,
			     unsigned int optlen)
{
	struct pstripe_sock *ps = pstripe_sk(sk);
	int val = 0, err;

	switch (optname) {
	case PSOCK_RCMD_STREAM_CNT:
	case PSOCK_MAX_STREAM_CNT:
	case PSOCK_DRIVER:
		err = pstripe_get_int(optval, optlen, &val);
		if (err)
			return err;
		break;
	case PSOCK_SNDBUF:
	case PSOCK_RCVBUF:
		break;
	case PSOCK_ADD_LOCAL_ADDR:
		return pstripe_add_addr(sk, optval, optlen);
	default:
		return -ENOPROTOOPT;
	}

	lock_sock(sk);
	switch (optname) {
	case PSOCK_RCMD_STREAM_CNT:
	case PSOCK_MAX_STREAM_CNT:
		if (pstripe_opts_frozen(sk)) {
			err = -EISCONN;
		} else if (val < 1 || val > PSOCK_STREAM_CNT_LIMIT) {
			err = -EINVAL;
		} else {
			if (optname == PSOCK_RCMD_STREAM_CNT)
				ps->rcmd_stream_cnt = val;
			else
				ps->max_stream_cnt = val;
			err = 0;
		}
		break;
	case PSOCK_DRIVER:
		if (pstripe_opts_frozen(sk))
			err = -EISCONN;
		else if (val < 0 || val > PSOCK_DRIVER_MAX)
			err = -EINVAL;
		else
			ps->driver = val;
		break;
	default:
		err = pstripe_set_stream_int(sk, optname, optval, optlen);
		break;
	}
	release_sock(sk);
	return err;
}

static int pstripe_get_window(struct sock *sk, char __user *optval,
			      int __user *optlen, int len)
{
	struct pstripe_sock *ps = pstripe_sk(sk);
	struct psock_window w;

	if (len < (int)sizeof(w))
		return -EINVAL;
	lock_sock(sk);
	w.snd_wnd = ps->snd_wnd;
	w.rcv_wnd = ps->rcv_wnd;
	release_sock(sk);
	len = sizeof(w);
	if (put_user(len, optlen) || copy_to_user(optval, &w, len))
		return -EFAULT;
	return 0;
}

int pstripe_getsockopt_psock(struct sock *sk, int optname,
			     char __user *optval, int __user *optlen)
{
	struct pstripe_sock *ps = pstripe_sk(sk);
	struct pstream_int pi;
	int len, val;

	if (get_user(len, optlen))
		return -EFAULT;
	if (len < 0)
		return -EINVAL;

	switch (optname) {
	case PSOCK_RCMD_STREAM_CNT:
	case PSOCK_MAX_STREAM_CNT:
	case PSOCK_DRIVER:
		if (len < (int)sizeof(int))
			return -EINVAL;
		lock_sock(sk);
		if (optname == PSOCK_RCMD_STREAM_CNT)
			val = ps->rcmd_stream_cnt;
		else if (optname == PSOCK_MAX_STREAM_CNT)
			val = ps->max_stream_cnt;
		else
			val = ps->driver;
		release_sock(sk);
		len = sizeof(int);
		if (put_user(len, optlen) || copy_to_user(optval, &val, len))
			return -EFAULT;
		return 0;
	case PSOCK_SNDBUF:
	case PSOCK_RCVBUF:
		if (len < (int)sizeof(pi))
			return -EINVAL;
		if (copy_from_user(&pi, optval, sizeof(pi)))
			return -EFAULT;
		if (pi.index < 0 || pi.index >= PSOCK_STREAM_CNT_LIMIT)
			return -EINVAL;
		lock_sock(sk);
		pi.value = optname == PSOCK_SNDBUF ? ps->sndbuf[pi.index] :
						     ps->rcvbuf[pi.index];
		release_sock(sk);
		len = sizeof(pi);
		if (put_user(len, optlen) || copy_to_user(optval, &pi, len))
			return -EFAULT;
		return 0;
	case PSOCK_INFO:
		return pstripe_get_info(sk, optval, optlen, len);
	case PSOCK_WINDOW:
		return pstripe_get_window(sk, optval, optlen, len);
	default:
		return -ENOPROTOOPT;
	}
}

/* ---- options the subflows share ---- */

void pstripe_opts_snapshot(const struct sock *sk, struct pstripe_sf_opts *o)
{
	memset(o, 0, sizeof(*o));	/* compared with memcmp() */
	o->sndbuf = READ_ONCE(sk->sk_sndbuf);
	o->rcvbuf = READ_ONCE(sk->sk_rcvbuf);
	o->mark = READ_ONCE(sk->sk_mark);
	o->priority = READ_ONCE(sk->sk_priority);
	o->userlocks = sk->sk_userlocks & (SOCK_SNDBUF_LOCK | SOCK_RCVBUF_LOCK);
}

/* TCP_NODELAY of one subflow, through TCP's own option code. */
static void pstripe_sf_nodelay(struct sock *ssk, bool on)
{
	int val = on;
	bool cur;

	lock_sock(ssk);
	cur = tcp_sk(ssk)->nonagle & TCP_NAGLE_OFF;
	release_sock(ssk);
	if (cur == on)
		return;
	ssk->sk_socket->ops->setsockopt(ssk->sk_socket, SOL_TCP, TCP_NODELAY,
					KERNEL_SOCKPTR(&val), sizeof(val));
}

/* Copy @o to subflow socket @ssk, number @index of @ps. */
static void pstripe_sf_apply(struct pstripe_sock *ps, struct sock *ssk,
			     int index, const struct pstripe_sf_opts *o)
{
	lock_sock(ssk);
	if ((o->userlocks & SOCK_SNDBUF_LOCK) && !ps->sndbuf[index]) {
		ssk->sk_userlocks |= SOCK_SNDBUF_LOCK;
		WRITE_ONCE(ssk->sk_sndbuf, o->sndbuf);
		ssk->sk_write_space(ssk);
	}
	if ((o->userlocks & SOCK_RCVBUF_LOCK) && !ps->rcvbuf[index]) {
		ssk->sk_userlocks |= SOCK_RCVBUF_LOCK;
		WRITE_ONCE(ssk->sk_rcvbuf, o->rcvbuf);
	}
	if (READ_ONCE(ssk->sk_mark) != o->mark) {
		WRITE_ONCE(ssk->sk_mark, o->mark);
		sk_dst_reset(ssk);
	}
	WRITE_ONCE(ssk->sk_priority, o->priority);
	release_sock(ssk);
	pstripe_sf_nodelay(ssk, ps->nodelay);
}

/* A new subflow @ssk, number @index of @sk, takes the socket's options. */
void pstripe_sf_inherit(struct sock *sk, struct sock *ssk, int index)
{
	struct pstripe_sf_opts o;

	pstripe_opts_snapshot(sk, &o);
	pstripe_sf_apply(pstripe_sk(sk), ssk, index, &o);
}

/* Under lock_sock(@sk): bring the subflows up to the socket's options. */
void pstripe_sync_opts(struct sock *sk)
{
	struct pstripe_sock *ps = pstripe_sk(sk);
	struct pstripe_sf_opts o;
	int i;

	pstripe_opts_snapshot(sk, &o);
	if (!memcmp(&o, &ps->synced, sizeof(o)))
		return;
	ps->synced = o;
	for (i = 0; i < ps->nsf; i++)
		if (ps->sf[i])
			pstripe_sf_apply(ps, ps->sf[i]->sock->sk, i, &o);
}

/* SOL_TCP: TCP_NODELAY is the PSOCK socket's, for all its subflows. */
int pstripe_setsockopt_tcp(struct sock *sk, int optname, sockptr_t optval,
			   unsigned int optlen)
{
	struct pstripe_sock *ps = pstripe_sk(sk);
	int val, err, i;

	if (optname != TCP_NODELAY)
		return -ENOPROTOOPT;
	err = pstripe_get_int(optval, optlen, &val);
	if (err)
		return err;
	lock_sock(sk);
	ps->nodelay = !!val;
	for (i = 0; i < ps->nsf; i++)
		if (ps->sf[i])
			pstripe_sf_nodelay(ps->sf[i]->sock->sk, ps->nodelay);
	release_sock(sk);
	return 0;
}

int pstripe_getsockopt_tcp(struct sock *sk, int optname,
			   char __user *optval, int __user *optlen)
{
	int len, val;

	if (optname != TCP_NODELAY)
		return -ENOPROTOOPT;
	if (get_user(len, optlen))
		return -EFAULT;
	if (len < 0)
		return -EINVAL;
	len = min_t(int, len, sizeof(int));
	val = READ_ONCE(pstripe_sk(sk)->nodelay);
	if (put_user(len, optlen) || copy_to_user(optval, &val, len))
		return -EFAULT;
	return 0;
}

/*
 * Addresses come from the socket itself, not getpeername(): a subflow
 * that went through TIME_WAIT is in TCP_CLOSE, where getpeername() fails,
 * but it still names its ends.
 */
static void pstripe_sf_info(struct sock *sk, struct pstripe_subflow *sf,
			    struct psock_subflow_info *si)
{
	struct sock *ssk = sf->sock->sk;
	struct inet_sock *inet = inet_sk(ssk);
	struct tcp_sock *tp = tcp_sk(ssk);

	memset(si, 0, sizeof(*si));
	si->index = sf->index;
	si->bytes_sent = sf->bytes_sent;
	si->bytes_received = sf->bytes_received;
	si->family = sk->sk_family;
	lock_sock(ssk);
	si->state = ssk->sk_state;
	si->total_retrans = tp->total_retrans;
	si->snd_cwnd = tcp_snd_cwnd(tp);
	si->srtt_us = tp->srtt_us >> 3;
	si->snd_buf = READ_ONCE(ssk->sk_sndbuf);
	si->rcv_buf = READ_ONCE(ssk->sk_rcvbuf);
	si->mark = READ_ONCE(ssk->sk_mark);
	si->priority = READ_ONCE(ssk->sk_priority);
	si->nodelay = !!(tp->nonagle & TCP_NAGLE_OFF);
	si->bound_dev_if = READ_ONCE(ssk->sk_bound_dev_if);
	si->reuse = ssk->sk_reuse;
	si->local_port = ntohs(inet->inet_sport);
	si->remote_port = ntohs(inet->inet_dport);
	memcpy(si->local_addr, &inet->inet_rcv_saddr, 4);
	memcpy(si->remote_addr, &inet->inet_daddr, 4);
#if IS_ENABLED(CONFIG_IPV6)
	if (ssk->sk_family == AF_INET6) {
		memcpy(si->local_addr, &ssk->sk_v6_rcv_saddr, 16);
		memcpy(si->remote_addr, &ssk->sk_v6_daddr, 16);
	}
#endif
	release_sock(ssk);
}

int pstripe_get_info(struct sock *sk, char __user *optval,
		     int __user *optlen, int len)
{
	struct pstripe_sock *ps = pstripe_sk(sk);
	struct psock_subflow_info si;
	struct psock_info info;
	unsigned int copy;
	int i, filled = 0;

	if (len < (int)sizeof(info))
		return -EINVAL;
	if (copy_from_user(&info, optval, sizeof(info)))
		return -EFAULT;
	copy = min_t(unsigned int, info.size_user, sizeof(si));

	lock_sock(sk);
	pstripe_sync_opts(sk);
	info.num = 0;
	for (i = 0; sk->sk_state != TCP_LISTEN && i < ps->nsf; i++)
		info.num += pstripe_sf_live(ps->sf[i]);
	info.size_kernel = sizeof(si);
	info.size_user = copy;
	info.flags = 0;
	info.stream_cnt = 0;
	info.driver = ps->driver;
	if (sk->sk_state == TCP_ESTABLISHED) {
		info.flags |= PSOCK_INFO_ESTABLISHED;
		info.stream_cnt = ps->stream_cnt;
		info.driver = ps->neg_driver;
		if (ps->fallback)
			info.flags |= PSOCK_INFO_FALLBACK;
	}
	for (i = 0; copy && info.num && i < ps->nsf; i++) {
		int off = sizeof(info) + filled * info.size_user;

		/* Entries are size_user bytes apart, as the caller laid out. */
		if (len - off < (int)copy)
			break;
		if (!pstripe_sf_live(ps->sf[i]))
			continue;
		pstripe_sf_info(sk, ps->sf[i], &si);
		if (copy_to_user(optval + off, &si, copy)) {
			release_sock(sk);
			return -EFAULT;
		}
		filled++;
	}
	release_sock(sk);

	len = sizeof(info) + (filled ? (filled - 1) * info.size_user + copy : 0);
	if (copy_to_user(optval, &info, sizeof(info)) || put_user(len, optlen))
		return -EFAULT;
	return 0;
}
