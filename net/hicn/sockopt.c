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

/*
 * New window bounds (lock_sock held): 1 to HICN_WINDOW_MAX, min <= max.
 * The ring of slots follows at the next fetch.
 */
static int hicn_set_window(struct hicn_cons *c, int min, int max)
{
	if (min < 1 || max > HICN_WINDOW_MAX || min > max)
		return -EINVAL;
	spin_lock_bh(&c->lock);
	hicn_cc_set_bounds(&c->cc, min, max);
	spin_unlock_bh(&c->lock);
	return 0;
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
		/* A fixed window: no congestion control of its size. */
		return hicn_set_window(c, val, val);
	case HICN_MIN_WINDOW_SIZE:
		return hicn_set_window(c, val, c->cc.max);
	case HICN_MAX_WINDOW_SIZE:
		return hicn_set_window(c, c->cc.min, val);
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
	return optname >= HICN_PACKET_SIZE && optname <= HICN_MAX_WINDOW_SIZE;
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
	if (hicn_is_prod(sk)) {
		info->hi_mem = READ_ONCE(sk->sk_wmem_queued);
		return;
	}
	info->hi_rmem = sk_rmem_alloc_get(sk);
	spin_lock_bh(&hs->cons.lock);
	hicn_cc_info(&hs->cons.cc, hs->cons.lifetime_ms, info);
	info->hi_in_flight = hs->cons.in_flight;
	spin_unlock_bh(&hs->cons.lock);
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
		case HICN_MAX_WINDOW_SIZE:
			val = hs->cons.cc.max;
			break;
		case HICN_MIN_WINDOW_SIZE:
			val = hs->cons.cc.min;
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
