// SPDX-License-Identifier: GPL-2.0
/*
 * SOL_PSOCK socket options (see include/uapi/linux/psock.h).
 *
 * The stream counts and the driver are negotiated on the control subflow,
 * so they can only change before connect() or listen(): afterwards they
 * fail with EISCONN.  Per-subflow buffer sizes are kept by index and applied
 * to each subflow before it connects, as TCP requires for the receive
 * window.  All values live in struct pstripe_sock under lock_sock().
 */

#include <linux/uaccess.h>
#include <net/ipv6.h>
#include <net/sock.h>
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

static int pstripe_set_stream_int(struct pstripe_sock *ps, int optname,
				  sockptr_t optval, unsigned int optlen)
{
	struct pstream_int pi;

	if (optlen < sizeof(pi))
		return -EINVAL;
	if (copy_from_sockptr(&pi, optval, sizeof(pi)))
		return -EFAULT;
	if (pi.index < 0 || pi.index >= PSOCK_STREAM_CNT_LIMIT || pi.value < 0)
		return -EINVAL;
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
		err = pstripe_set_stream_int(ps, optname, optval, optlen);
		break;
	}
	release_sock(sk);
	return err;
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
	default:
		return -ENOPROTOOPT;
	}
}
