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

#include <asm/ioctls.h>
#include <linux/sockios.h>
#include <linux/tcp.h>
#include <linux/uaccess.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
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
	case PSOCK_OPTIMISTIC:
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
	case PSOCK_OPTIMISTIC:
		if (pstripe_opts_frozen(sk))
			err = -EISCONN;
		else if (val < 0 || val > 1)
			err = -EINVAL;
		else
			ps->optimistic = val;
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
	case PSOCK_OPTIMISTIC:
		if (len < (int)sizeof(int))
			return -EINVAL;
		lock_sock(sk);
		if (optname == PSOCK_RCMD_STREAM_CNT)
			val = ps->rcmd_stream_cnt;
		else if (optname == PSOCK_MAX_STREAM_CNT)
			val = ps->max_stream_cnt;
		else if (optname == PSOCK_OPTIMISTIC)
			val = ps->optimistic;
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

__pstripe_hot void pstripe_opts_snapshot(const struct sock *sk,
					 struct pstripe_sf_opts *o)
{
	memset(o, 0, sizeof(*o));	/* compared with memcmp() */
	o->sndbuf = READ_ONCE(sk->sk_sndbuf);
	o->rcvbuf = READ_ONCE(sk->sk_rcvbuf);
	o->mark = READ_ONCE(sk->sk_mark);
	o->priority = READ_ONCE(sk->sk_priority);
	o->userlocks = sk->sk_userlocks & (SOCK_SNDBUF_LOCK | SOCK_RCVBUF_LOCK);
	o->keepalive = sock_flag(sk, SOCK_KEEPOPEN);
	o->tos = READ_ONCE(inet_sk(sk)->tos) & ~INET_ECN_MASK;
#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6)
		o->tclass = READ_ONCE(inet6_sk(sk)->tclass) & ~INET_ECN_MASK;
#endif
}

/* An int option of subflow @ssk, through TCP's own option code. */
static int pstripe_sf_setopt(struct sock *ssk, int level, int optname,
			     int val)
{
	struct socket *sock = ssk->sk_socket;

	if (level == SOL_SOCKET)
		return sock_setsockopt(sock, level, optname,
				       KERNEL_SOCKPTR(&val), sizeof(val));
	return sock->ops->setsockopt(sock, level, optname,
				     KERNEL_SOCKPTR(&val), sizeof(val));
}

/* TCP_CONGESTION of @ssk; the caller holds no lock of @ssk. */
static int pstripe_sf_set_ca(struct sock *ssk, const char *name)
{
	struct socket *sock = ssk->sk_socket;

	return sock->ops->setsockopt(sock, SOL_TCP, TCP_CONGESTION,
				     KERNEL_SOCKPTR((void *)name),
				     strnlen(name, TCP_CA_NAME_MAX - 1));
}

/* TCP_NODELAY of one subflow. */
static void pstripe_sf_nodelay(struct sock *ssk, bool on)
{
	bool cur;

	lock_sock(ssk);
	cur = tcp_sk(ssk)->nonagle & TCP_NAGLE_OFF;
	release_sock(ssk);
	if (cur != on)
		pstripe_sf_setopt(ssk, SOL_TCP, TCP_NODELAY, on);
}

/*
 * The SOL_TCP options of @ps on its subflow @ssk, number @index: those
 * set (TCP's defaults stay otherwise), and only where they differ, so
 * that a connection's congestion control is not started again.  Values
 * were validated when set.
 */
void pstripe_sf_tcp_opts(struct pstripe_sock *ps, struct sock *ssk, int index)
{
	const struct pstripe_tcp_opts *t = &ps->tcp;
	struct inet_connection_sock *icsk = inet_csk(ssk);
	bool cork, ca;
	int uto;

	lock_sock(ssk);
	cork = tcp_sk(ssk)->nonagle & TCP_NAGLE_CORK;
	uto = icsk->icsk_user_timeout;
	ca = t->ca[0] && strcmp(icsk->icsk_ca_ops->name, t->ca);
	release_sock(ssk);

	pstripe_sf_nodelay(ssk, ps->nodelay);
	if (cork != t->cork)
		pstripe_sf_setopt(ssk, SOL_TCP, TCP_CORK, t->cork);
	if (t->keepidle)
		pstripe_sf_setopt(ssk, SOL_TCP, TCP_KEEPIDLE, t->keepidle);
	if (t->keepintvl)
		pstripe_sf_setopt(ssk, SOL_TCP, TCP_KEEPINTVL, t->keepintvl);
	if (t->keepcnt)
		pstripe_sf_setopt(ssk, SOL_TCP, TCP_KEEPCNT, t->keepcnt);
	if (uto != t->user_timeout)
		pstripe_sf_setopt(ssk, SOL_TCP, TCP_USER_TIMEOUT,
				  t->user_timeout);
	if (!index && t->defer_accept)
		pstripe_sf_setopt(ssk, SOL_TCP, TCP_DEFER_ACCEPT,
				  t->defer_accept);
	if (ca)
		pstripe_sf_set_ca(ssk, t->ca);
}

/* Copy @o to subflow socket @ssk, number @index of @ps. */
static void pstripe_sf_apply(struct pstripe_sock *ps, struct sock *ssk,
			     int index, const struct pstripe_sf_opts *o)
{
	bool keepalive;

	/* Before the priority: IP_TOS sets sk_priority too, as on @ps. */
	if ((READ_ONCE(inet_sk(ssk)->tos) & ~INET_ECN_MASK) != o->tos)
		ip_sock_set_tos(ssk, o->tos);
#if IS_ENABLED(CONFIG_IPV6)
	if (ssk->sk_family == AF_INET6 &&
	    (READ_ONCE(inet6_sk(ssk)->tclass) & ~INET_ECN_MASK) != o->tclass)
		pstripe_sf_setopt(ssk, SOL_IPV6, IPV6_TCLASS, o->tclass);
#endif
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
	keepalive = sock_flag(ssk, SOCK_KEEPOPEN);
	release_sock(ssk);
	if (keepalive != o->keepalive)
		pstripe_sf_setopt(ssk, SOL_SOCKET, SO_KEEPALIVE, o->keepalive);
	pstripe_sf_tcp_opts(ps, ssk, index);
}

/* A new subflow @ssk, number @index of @sk, takes the socket's options. */
void pstripe_sf_inherit(struct sock *sk, struct sock *ssk, int index)
{
	struct pstripe_sf_opts o;

	pstripe_opts_snapshot(sk, &o);
	pstripe_sf_apply(pstripe_sk(sk), ssk, index, &o);
}

/* Under lock_sock(@sk): bring the subflows up to the socket's options. */
__pstripe_hot void pstripe_sync_opts(struct sock *sk)
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

/*
 * SO_KEEPALIVE (struct proto's hook, under lock_sock(@sk)): every subflow
 * at once; sk_setsockopt() sets SOCK_KEEPOPEN after this returns.
 */
void pstripe_keepalive(struct sock *sk, int val)
{
	struct pstripe_sock *ps = pstripe_sk(sk);
	int i;

	for (i = 0; i < ps->nsf; i++)
		if (ps->sf[i])
			pstripe_sf_setopt(ps->sf[i]->sock->sk, SOL_SOCKET,
					  SO_KEEPALIVE, !!val);
}

/* ---- SOL_TCP ---- */

/*
 * The SOL_TCP options a PSOCK socket takes, with TCP's meaning (as
 * MPTCP's mptcp_supported_sockopt()); Documentation/psock.rst lists what
 * each does.  Every other one fails with EOPNOTSUPP.
 */
static bool pstripe_tcp_supported(int optname, bool set)
{
	switch (optname) {
	case TCP_NODELAY:
	case TCP_CORK:
	case TCP_KEEPIDLE:
	case TCP_KEEPINTVL:
	case TCP_KEEPCNT:
	case TCP_USER_TIMEOUT:
	case TCP_CONGESTION:
	case TCP_NOTSENT_LOWAT:
	case TCP_DEFER_ACCEPT:
	case TCP_FASTOPEN:
	case TCP_FASTOPEN_CONNECT:
		return true;
	case TCP_INFO:
		return !set;
	}
	return false;
}

/*
 * TCP_CONGESTION: the name is tried on a TCP socket of the namespace, with
 * the caller's rights (TCP's own checks and errno: ENOENT for an unknown
 * algorithm, EPERM for one not allowed), then set on every subflow.
 */
static int pstripe_set_congestion(struct sock *sk, sockptr_t optval,
				  unsigned int optlen)
{
	struct pstripe_sock *ps = pstripe_sk(sk);
	char name[TCP_CA_NAME_MAX];
	struct socket *tmp;
	long n;
	int err, i;

	if (optlen < 1)
		return -EINVAL;
	n = strncpy_from_sockptr(name, optval,
				 min_t(long, TCP_CA_NAME_MAX - 1, optlen));
	if (n < 0)
		return -EFAULT;
	name[n] = 0;

	err = sock_create_kern(sock_net(sk), sk->sk_family, SOCK_STREAM,
			       IPPROTO_TCP, &tmp);
	if (err)
		return err;
	err = pstripe_sf_set_ca(tmp->sk, name);
	if (!err)	/* TCP's own spelling of the name */
		strscpy(name, inet_csk(tmp->sk)->icsk_ca_ops->name,
			sizeof(name));
	sock_release(tmp);
	if (err)
		return err;

	lock_sock(sk);
	strscpy(ps->tcp.ca, name, sizeof(ps->tcp.ca));
	for (i = 0; i < ps->nsf; i++)
		if (ps->sf[i])
			pstripe_sf_set_ca(ps->sf[i]->sock->sk, name);
	release_sock(sk);
	return 0;
}

/* A SOL_TCP int option set on the PSOCK socket: check it as TCP does. */
static int pstripe_tcp_check(struct sock *sk, int optname, int *val)
{
	switch (optname) {
	case TCP_KEEPIDLE:
		return *val < 1 || *val > MAX_TCP_KEEPIDLE ? -EINVAL : 0;
	case TCP_KEEPINTVL:
		return *val < 1 || *val > MAX_TCP_KEEPINTVL ? -EINVAL : 0;
	case TCP_KEEPCNT:
		return *val < 1 || *val > MAX_TCP_KEEPCNT ? -EINVAL : 0;
	case TCP_USER_TIMEOUT:
		return *val < 0 ? -EINVAL : 0;
	case TCP_DEFER_ACCEPT:
		/* TCP takes a negative time for none. */
		*val = max(*val, 0);
		return 0;
	case TCP_FASTOPEN:
		/* As TCP: a queue length, before connect() or on a listener. */
		if (*val < 0 ||
		    !((1 << sk->sk_state) & (TCPF_CLOSE | TCPF_LISTEN)))
			return -EINVAL;
		return 0;
	case TCP_FASTOPEN_CONNECT:
		/* As TCP: 0 or 1, before connect(); PSOCK_OPTIMISTIC. */
		if (*val < 0 || *val > 1 || sk->sk_state != TCP_CLOSE)
			return -EINVAL;
		return 0;
	case TCP_NODELAY:
	case TCP_CORK:
		*val = !!*val;
		return 0;
	}
	return 0;	/* TCP_NOTSENT_LOWAT: any value, read as unsigned */
}

int pstripe_setsockopt_tcp(struct sock *sk, int optname, sockptr_t optval,
			   unsigned int optlen)
{
	struct pstripe_sock *ps = pstripe_sk(sk);
	struct pstripe_tcp_opts *t = &ps->tcp;
	int val, err, i;

	if (!pstripe_tcp_supported(optname, true))
		return -EOPNOTSUPP;
	if (optname == TCP_CONGESTION)
		return pstripe_set_congestion(sk, optval, optlen);
	err = pstripe_get_int(optval, optlen, &val);
	if (err)
		return err;

	lock_sock(sk);
	err = pstripe_tcp_check(sk, optname, &val);
	if (err)
		goto out;
	switch (optname) {
	case TCP_NODELAY:
		ps->nodelay = val;
		break;
	case TCP_CORK:
		t->cork = val;
		break;
	case TCP_KEEPIDLE:
		t->keepidle = val;
		break;
	case TCP_KEEPINTVL:
		t->keepintvl = val;
		break;
	case TCP_KEEPCNT:
		t->keepcnt = val;
		break;
	case TCP_USER_TIMEOUT:
		t->user_timeout = val;
		break;
	case TCP_DEFER_ACCEPT:
		t->defer_accept = val;
		break;
	case TCP_FASTOPEN:
		t->fastopen = val;
		goto out;
	case TCP_FASTOPEN_CONNECT:
		ps->optimistic = val;
		goto out;
	case TCP_NOTSENT_LOWAT:
		WRITE_ONCE(t->notsent_lowat, val);
		/* A higher mark may make the socket writable now. */
		pstripe_wake(sk);
		goto out;
	}
	for (i = 0; i < ps->nsf; i++) {
		struct sock *ssk;

		if (!ps->sf[i])
			continue;
		ssk = ps->sf[i]->sock->sk;
		if (optname == TCP_NODELAY)
			pstripe_sf_nodelay(ssk, val);
		else if (optname != TCP_DEFER_ACCEPT || !i)
			pstripe_sf_setopt(ssk, SOL_TCP, optname, val);
	}
out:
	release_sock(sk);
	return err;
}

/* TCP_CONGESTION's name: the one set, else a subflow's, else the default. */
static void pstripe_get_ca(struct sock *sk, char *name)
{
	struct pstripe_sock *ps = pstripe_sk(sk);
	const struct tcp_congestion_ops *ca;
	struct sock *ssk;

	if (ps->tcp.ca[0]) {
		strscpy(name, ps->tcp.ca, TCP_CA_NAME_MAX);
		return;
	}
	if (ps->sf[0]) {
		ssk = ps->sf[0]->sock->sk;
		lock_sock(ssk);
		strscpy(name, inet_csk(ssk)->icsk_ca_ops->name,
			TCP_CA_NAME_MAX);
		release_sock(ssk);
		return;
	}
	rcu_read_lock();
	ca = rcu_dereference(sock_net(sk)->ipv4.tcp_congestion_control);
	strscpy(name, ca ? ca->name : "reno", TCP_CA_NAME_MAX);
	rcu_read_unlock();
}

/* The TCP state of the connection's subflows as one: see psock.rst. */
static void pstripe_tcp_info(struct sock *sk, struct tcp_info *info)
{
	struct pstripe_sock *ps = pstripe_sk(sk);
	struct tcp_info si;
	int i, best = -1;
	u32 rtt = 0;

	memset(info, 0, sizeof(*info));
	if (sk->sk_state == TCP_LISTEN) {
		info->tcpi_state = TCP_LISTEN;
		info->tcpi_unacked = READ_ONCE(ps->accept_len);
		info->tcpi_sacked = READ_ONCE(sk->sk_max_ack_backlog);
		return;
	}
	/* The live established subflow of the shortest RTT is the "best". */
	for (i = 0; i < ps->nsf; i++) {
		struct sock *ssk;
		u32 srtt;

		if (!pstripe_sf_live(ps->sf[i]))
			continue;
		ssk = ps->sf[i]->sock->sk;
		srtt = READ_ONCE(tcp_sk(ssk)->srtt_us);
		if (inet_sk_state_load(ssk) != TCP_ESTABLISHED)
			continue;
		if (best < 0 || srtt < rtt) {
			best = i;
			rtt = srtt;
		}
	}
	if (best < 0 && ps->sf[0])
		best = 0;
	if (best >= 0)
		tcp_get_info(ps->sf[best]->sock->sk, info);
	info->tcpi_state = sk->sk_state;
	info->tcpi_bytes_acked = 0;
	info->tcpi_bytes_received = 0;
	info->tcpi_bytes_sent = 0;
	info->tcpi_bytes_retrans = 0;
	info->tcpi_total_retrans = 0;
	info->tcpi_segs_out = 0;
	info->tcpi_segs_in = 0;
	info->tcpi_data_segs_out = 0;
	info->tcpi_data_segs_in = 0;
	info->tcpi_unacked = 0;
	info->tcpi_lost = 0;
	info->tcpi_retrans = 0;
	info->tcpi_notsent_bytes = 0;
	info->tcpi_delivered = 0;
	info->tcpi_delivered_ce = 0;
	info->tcpi_dsack_dups = 0;
	for (i = 0; i < ps->nsf; i++) {
		if (!ps->sf[i])
			continue;
		tcp_get_info(ps->sf[i]->sock->sk, &si);
		info->tcpi_bytes_acked += si.tcpi_bytes_acked;
		info->tcpi_bytes_received += si.tcpi_bytes_received;
		info->tcpi_bytes_sent += si.tcpi_bytes_sent;
		info->tcpi_bytes_retrans += si.tcpi_bytes_retrans;
		info->tcpi_total_retrans += si.tcpi_total_retrans;
		info->tcpi_segs_out += si.tcpi_segs_out;
		info->tcpi_segs_in += si.tcpi_segs_in;
		info->tcpi_data_segs_out += si.tcpi_data_segs_out;
		info->tcpi_data_segs_in += si.tcpi_data_segs_in;
		info->tcpi_unacked += si.tcpi_unacked;
		info->tcpi_lost += si.tcpi_lost;
		info->tcpi_retrans += si.tcpi_retrans;
		info->tcpi_notsent_bytes += si.tcpi_notsent_bytes;
		info->tcpi_delivered += si.tcpi_delivered;
		info->tcpi_delivered_ce += si.tcpi_delivered_ce;
		info->tcpi_dsack_dups += si.tcpi_dsack_dups;
	}
}

static int pstripe_put_opt(char __user *optval, int __user *optlen,
			   const void *val, int len)
{
	if (put_user(len, optlen) || copy_to_user(optval, val, len))
		return -EFAULT;
	return 0;
}

int pstripe_getsockopt_tcp(struct sock *sk, int optname,
			   char __user *optval, int __user *optlen)
{
	struct pstripe_sock *ps = pstripe_sk(sk);
	const struct pstripe_tcp_opts *t = &ps->tcp;
	const struct net *net = sock_net(sk);
	char name[TCP_CA_NAME_MAX];
	struct tcp_info info;
	int len, val;

	if (!pstripe_tcp_supported(optname, false))
		return -EOPNOTSUPP;
	if (get_user(len, optlen))
		return -EFAULT;
	if (len < 0)
		return -EINVAL;

	switch (optname) {
	case TCP_INFO:
		lock_sock(sk);
		pstripe_tcp_info(sk, &info);
		release_sock(sk);
		return pstripe_put_opt(optval, optlen, &info,
				       min_t(unsigned int, len, sizeof(info)));
	case TCP_CONGESTION:
		lock_sock(sk);
		pstripe_get_ca(sk, name);
		release_sock(sk);
		return pstripe_put_opt(optval, optlen, name,
				       min_t(int, len, TCP_CA_NAME_MAX));
	}

	lock_sock(sk);
	switch (optname) {
	case TCP_NODELAY:
		val = ps->nodelay;
		break;
	case TCP_CORK:
		val = t->cork;
		break;
	/* Unset: the namespace's defaults, which the subflows use. */
	case TCP_KEEPIDLE:
		val = t->keepidle ?:
		      READ_ONCE(net->ipv4.sysctl_tcp_keepalive_time) / HZ;
		break;
	case TCP_KEEPINTVL:
		val = t->keepintvl ?:
		      READ_ONCE(net->ipv4.sysctl_tcp_keepalive_intvl) / HZ;
		break;
	case TCP_KEEPCNT:
		val = t->keepcnt ?:
		      READ_ONCE(net->ipv4.sysctl_tcp_keepalive_probes);
		break;
	case TCP_USER_TIMEOUT:
		val = t->user_timeout;
		break;
	case TCP_DEFER_ACCEPT:
		val = t->defer_accept;
		break;
	case TCP_FASTOPEN:
		val = t->fastopen;
		break;
	case TCP_FASTOPEN_CONNECT:
		val = ps->optimistic;
		break;
	default:	/* TCP_NOTSENT_LOWAT */
		val = t->notsent_lowat;
		break;
	}
	release_sock(sk);
	len = min_t(int, len, sizeof(int));
	return pstripe_put_opt(optval, optlen, &val, len);
}

/* ---- SOL_IP, SOL_IPV6 ---- */

/*
 * IP_TOS, and on an IPv6 socket IPV6_TCLASS and IPV6_V6ONLY: the core's
 * code sets them on the PSOCK socket, whose values sockopt.c copies to
 * the subflows (IPV6_V6ONLY when each is made: only before bind(),
 * connect() or listen(), as TCP).  Every other one: EOPNOTSUPP.
 */
static bool pstripe_ip_supported(struct sock *sk, int level, int optname)
{
	if (level == SOL_IP)
		return optname == IP_TOS;
	return sk->sk_family == AF_INET6 &&
	       (optname == IPV6_TCLASS || optname == IPV6_V6ONLY);
}

int pstripe_setsockopt_ip(struct sock *sk, int level, int optname,
			  sockptr_t optval, unsigned int optlen)
{
	int err;

	if (level == SOL_IPV6 && sk->sk_family != AF_INET6)
		return -ENOPROTOOPT;	/* as TCP over IPv4 */
	if (!pstripe_ip_supported(sk, level, optname))
		return -EOPNOTSUPP;
	if (level == SOL_IP)
		return ip_setsockopt(sk, level, optname, optval, optlen);
#if IS_ENABLED(CONFIG_IPV6)
	if (optname == IPV6_V6ONLY) {
		int val;

		/*
		 * The core looks at inet_num, which only the subflows have:
		 * once subflow 0 exists (bind(), connect(), listen()), it is
		 * too late, as for TCP.
		 */
		err = pstripe_get_int(optval, optlen, &val);
		if (err)
			return err;
		lock_sock(sk);
		if (pstripe_sk(sk)->sf[0])
			err = -EINVAL;
		else
			sk->sk_ipv6only = !!val;
		release_sock(sk);
		return err;
	}
	err = ipv6_setsockopt(sk, level, optname, optval, optlen);
#else
	err = -ENOPROTOOPT;
#endif
	return err;
}

int pstripe_getsockopt_ip(struct sock *sk, int level, int optname,
			  char __user *optval, int __user *optlen)
{
	if (level == SOL_IPV6 && sk->sk_family != AF_INET6)
		return -ENOPROTOOPT;
	if (!pstripe_ip_supported(sk, level, optname))
		return -EOPNOTSUPP;
	if (level == SOL_IP)
		return ip_getsockopt(sk, level, optname, optval, optlen);
#if IS_ENABLED(CONFIG_IPV6)
	return ipv6_getsockopt(sk, level, optname, optval, optlen);
#else
	return -ENOPROTOOPT;
#endif
}

/* ---- TCP_NOTSENT_LOWAT, SIOCINQ / SIOCOUTQ ---- */

/*
 * Bytes written to the subflows' TCP and not sent yet, block headers
 * included (TCP's tcpi_notsent_bytes, summed).  Lockless, for poll().
 */
u32 pstripe_notsent(struct pstripe_sock *ps)
{
	int i, n = READ_ONCE(ps->nsf);
	u32 sum = 0;

	for (i = 0; i < n; i++) {
		const struct pstripe_subflow *sf = READ_ONCE(ps->sf[i]);
		const struct tcp_sock *tp;
		s32 d;

		if (!pstripe_sf_live(sf))
			continue;
		tp = tcp_sk(sf->sock->sk);
		d = READ_ONCE(tp->write_seq) - READ_ONCE(tp->snd_nxt);
		if (d > 0)
			sum += d;
	}
	return sum;
}

/*
 * TCP_NOTSENT_LOWAT of the connection: below the mark, more may be
 * written.  As tcp_stream_memory_free(): poll() (@wake 1) asks for half.
 * Subflows holding unsent bytes are asked for a write_space call.
 */
__pstripe_hot bool pstripe_notsent_ok(struct pstripe_sock *ps, int wake)
{
	struct sock *sk = ps_sk(ps);
	u32 lowat = READ_ONCE(ps->tcp.notsent_lowat);
	int i, n;

	if (!lowat)
		lowat = READ_ONCE(sock_net(sk)->ipv4.sysctl_tcp_notsent_lowat);
	if (lowat == UINT_MAX)
		return true;
	if (((u64)pstripe_notsent(ps) << wake) < lowat)
		return true;
	n = READ_ONCE(ps->nsf);
	for (i = 0; i < n; i++) {
		const struct pstripe_subflow *sf = READ_ONCE(ps->sf[i]);

		if (pstripe_sf_live(sf))
			set_bit(SOCK_NOSPACE, &sf->sock->flags);
	}
	return false;
}

/*
 * SIOCINQ: payload bytes a read returns now in order (pstripe_inq());
 * SIOCOUTQ: payload bytes sent and not yet acknowledged by the peer's
 * PSOCK (its block acknowledgments, not TCP's); SIOCOUTQNSD: bytes the
 * subflows' TCP holds unsent (pstripe_notsent()).  After a fallback to
 * plain TCP: the one subflow's TCP answers.
 */
/*
 * SIOCINQ, SIOCOUTQ or SIOCOUTQNSD of a connection, under its lock (also
 * sock_diag's Recv-Q and Send-Q, diag.c).
 */
int pstripe_queue_len(struct pstripe_sock *ps, unsigned int cmd)
{
	const struct tcp_sock *tp;
	s64 n = 0;

	sock_owned_by_me(ps_sk(ps));
	if (ps->fallback && ps->sf[0] && cmd != SIOCINQ) {
		tp = tcp_sk(ps->sf[0]->sock->sk);
		n = READ_ONCE(tp->write_seq) -
		    (cmd == SIOCOUTQ ? READ_ONCE(tp->snd_una) :
				       READ_ONCE(tp->snd_nxt));
	} else if (cmd == SIOCINQ) {
		n = pstripe_inq(ps);
	} else if (cmd == SIOCOUTQ) {
		n = (s64)ps->rtx_bytes -
		    (s64)ps->rtx_cnt * sizeof(struct pstripe_blkhdr);
	} else {
		n = pstripe_notsent(ps);
	}
	return clamp_t(s64, n, 0, INT_MAX);
}

int pstripe_ioctl_q(struct sock *sk, unsigned int cmd, int *answ)
{
	lock_sock(sk);
	if (sk->sk_state == TCP_LISTEN) {
		release_sock(sk);
		return -EINVAL;
	}
	*answ = pstripe_queue_len(pstripe_sk(sk), cmd);
	release_sock(sk);
	return 0;
}

/*
 * Addresses come from the socket itself, not getpeername(): a subflow
 * that went through TIME_WAIT is in TCP_CLOSE, where getpeername() fails,
 * but it still names its ends.
 */
void pstripe_sf_info(struct sock *sk, struct pstripe_subflow *sf,
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
	si->keepalive = sock_flag(ssk, SOCK_KEEPOPEN);
	si->keepidle = keepalive_time_when(tp) / HZ;
	si->keepintvl = keepalive_intvl_when(tp) / HZ;
	si->keepcnt = keepalive_probes(tp);
	si->user_timeout = READ_ONCE(inet_csk(ssk)->icsk_user_timeout);
	si->cork = !!(tp->nonagle & TCP_NAGLE_CORK);
	si->tos = READ_ONCE(inet->tos) & ~INET_ECN_MASK;
	strscpy(si->congestion, inet_csk(ssk)->icsk_ca_ops->name,
		sizeof(si->congestion));
	si->local_port = ntohs(inet->inet_sport);
	si->remote_port = ntohs(inet->inet_dport);
	memcpy(si->local_addr, &inet->inet_rcv_saddr, 4);
	memcpy(si->remote_addr, &inet->inet_daddr, 4);
#if IS_ENABLED(CONFIG_IPV6)
	if (ssk->sk_family == AF_INET6) {
		memcpy(si->local_addr, &ssk->sk_v6_rcv_saddr, 16);
		memcpy(si->remote_addr, &ssk->sk_v6_daddr, 16);
		si->tclass = READ_ONCE(inet6_sk(ssk)->tclass) & ~INET_ECN_MASK;
	}
#endif
	release_sock(ssk);
}

/*
 * The header of PSOCK_INFO's answer (and of sock_diag's INET_DIAG_INFO,
 * diag.c), @size_user aside: the live subflows, the negotiated settings.
 */
void pstripe_info_head(struct sock *sk, struct psock_info *info)
{
	struct pstripe_sock *ps = pstripe_sk(sk);
	int i;

	sock_owned_by_me(sk);
	info->num = 0;
	for (i = 0; sk->sk_state != TCP_LISTEN && i < ps->nsf; i++)
		info->num += pstripe_sf_live(ps->sf[i]);
	info->size_kernel = sizeof(struct psock_subflow_info);
	info->flags = 0;
	info->stream_cnt = 0;
	info->driver = ps->driver;
	if (sk->sk_state == TCP_ESTABLISHED) {
		info->flags |= PSOCK_INFO_ESTABLISHED;
		info->stream_cnt = ps->stream_cnt;
		info->driver = ps->neg_driver;
		if (ps->fallback)
			info->flags |= PSOCK_INFO_FALLBACK;
		if (ps->opt)
			info->flags |= PSOCK_INFO_UNDECIDED;
	}
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
	pstripe_info_head(sk, &info);
	info.size_user = copy;
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
