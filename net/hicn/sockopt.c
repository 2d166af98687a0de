// SPDX-License-Identifier: GPL-2.0
/*
 * SOL_HICN socket options (see include/uapi/linux/hicn.h for the list,
 * ranges and defaults).  Producer options on a consumer and the other way
 * round are ENOPROTOOPT; a short optlen or a value out of range is EINVAL.
 * Everything is read and written under lock_sock().
 */

#include <linux/uaccess.h>

#include "hicn.h"

static bool hicn_is_prod(const struct sock *sk)
{
	return sk->sk_type == SOCK_PROD;
}

static int hicn_set_cons(struct hicn_sock *hs, int optname, int val)
{
	struct hicn_cons *c = &hs->cons;

	switch (optname) {
	case HICN_INTEREST_LIFETIME:
		if (val < 1 || val > HICN_LIFETIME_MAX)
			return -EINVAL;
		c->lifetime_ms = val;
		c->lifetime = msecs_to_jiffies(val) ?: 1;
		return 0;
	case HICN_RETX_LIMIT:
		if (val < 0 || val > HICN_RETX_LIMIT_MAX)
			return -EINVAL;
		c->retx_limit = val;
		return 0;
	case HICN_WINDOW:
		if (val < 1 || val > HICN_WINDOW_MAX)
			return -EINVAL;
		c->window = val;	/* the ring follows at the next fetch */
		return 0;
	case HICN_SUBSCRIBE:
		if (val != 0 && val != 1)
			return -EINVAL;
		if (c->subscribe == !!val)
			return 0;
		c->subscribe = val;
		/* The subscription starts now, from the newest version. */
		c->after_known = false;
		if (c->named && c->state != HICN_F_DATA)
			hicn_cons_start(hs);
		return 0;
	default:
		return -ENOPROTOOPT;
	}
}

static int hicn_set_prod(struct hicn_sock *hs, int optname, int val)
{
	switch (optname) {
	case HICN_PACKET_SIZE:
		if (val < HICN_PACKET_SIZE_MIN || val > HICN_PACKET_SIZE_MAX)
			return -EINVAL;
		hs->prod.seg_size = val;
		return 0;
	case HICN_CONTENT_EXPIRY:
		/* A __u32: every value is valid, 0 keeps until close. */
		hs->prod.expiry_ms = (u32)val;
		return 0;
	default:
		return -ENOPROTOOPT;
	}
}

static bool hicn_opt_known(int optname)
{
	return optname >= HICN_PACKET_SIZE && optname <= HICN_INFO;
}

int hicn_setsockopt(struct socket *sock, int level, int optname,
		    sockptr_t optval, unsigned int optlen)
{
	struct sock *sk = sock->sk;
	struct hicn_sock *hs = hicn_sk(sk);
	int val, err;

	if (level != SOL_HICN || !hicn_opt_known(optname) ||
	    optname == HICN_INFO)
		return -ENOPROTOOPT;
	if (optlen < sizeof(int))
		return -EINVAL;
	if (copy_from_sockptr(&val, optval, sizeof(val)))
		return -EFAULT;

	lock_sock(sk);
	if (hicn_is_prod(sk))
		err = hicn_set_prod(hs, optname, val);
	else
		err = hicn_set_cons(hs, optname, val);
	if (!err && !hicn_is_prod(sk))
		hicn_cons_kick(hs);
	release_sock(sk);
	return err;
}

static void hicn_fill_info(struct hicn_sock *hs, struct hicn_info *info)
{
	struct sock *sk = &hs->sk;

	*info = hs->info;
	info->hi_version = HICN_INFO_VERSION;
	info->hi_size = sizeof(*info);
	info->hi_type = sk->sk_type;
	info->hi_protocol = sk->sk_protocol;
	if (hicn_is_prod(sk))
		info->hi_mem = READ_ONCE(sk->sk_wmem_queued);
	else
		info->hi_rmem = sk_rmem_alloc_get(sk);
}

int hicn_getsockopt(struct socket *sock, int level, int optname,
		    char __user *optval, int __user *optlen)
{
	struct sock *sk = sock->sk;
	struct hicn_sock *hs = hicn_sk(sk);
	struct hicn_info info;
	int len, val, err = 0;

	if (level != SOL_HICN || !hicn_opt_known(optname))
		return -ENOPROTOOPT;
	if (get_user(len, optlen))
		return -EFAULT;
	if (len < 0)
		return -EINVAL;

	lock_sock(sk);
	if (optname == HICN_INFO) {
		release_sock(sk);
		if (len < 2 * (int)sizeof(__u32))
			return -EINVAL;
		hicn_fill_info(hs, &info);
		len = min_t(int, len, sizeof(info));
		if (copy_to_user(optval, &info, len) ||
		    put_user(len, optlen))
			return -EFAULT;
		return 0;
	}
	if (hicn_is_prod(sk)) {
		switch (optname) {
		case HICN_PACKET_SIZE:
			val = hs->prod.seg_size;
			break;
		case HICN_CONTENT_EXPIRY:
			val = hs->prod.expiry_ms;
			break;
		default:
			err = -ENOPROTOOPT;
		}
	} else {
		switch (optname) {
		case HICN_INTEREST_LIFETIME:
			val = hs->cons.lifetime_ms;
			break;
		case HICN_RETX_LIMIT:
			val = hs->cons.retx_limit;
			break;
		case HICN_WINDOW:
			val = hs->cons.window;
			break;
		case HICN_SUBSCRIBE:
			val = hs->cons.subscribe;
			break;
		default:
			err = -ENOPROTOOPT;
		}
	}
	release_sock(sk);
	if (err)
		return err;
	if (len < (int)sizeof(int))
		return -EINVAL;
	len = sizeof(int);
	if (put_user(len, optlen) || copy_to_user(optval, &val, len))
		return -EFAULT;
	return 0;
}
