// SPDX-License-Identifier: GPL-2.0
/*
 * Link state of the faces to other hosts.
 *
 * A UDP face is up while its peer is reachable: the route to the peer's
 * address leaves by a device that is up and has carrier.  Devices going
 * up or down, gaining or losing carrier, or gaining or losing addresses
 * (netdev and address events) queue the netns's link work at once; while
 * a face is down the work also runs every HICN_LINK_RECHECK, since a
 * route added by hand sends no event this file listens to.  The work
 * looks the route of every UDP face up again and marks it up or down
 * (hicn_udp_link_update()).
 *
 * What a face going down changes: the strategies pass over it, so best
 * route fails over to the up next hop of lowest cost and load balance
 * shares among the others; an interest sent to it is refused with
 * -ENETDOWN (hicn_fwd_interest() then asks the FIB again, which passes
 * over it) and data for it is dropped.  The PIT entries whose interests
 * went to it alone leave again at once by the next hop the strategy
 * chooses among those still up, keeping their in-records, so local
 * consumers and a relay's downstream hosts are served without a
 * retransmission (hicn_pit_fail_faces()); with no next hop up any more
 * they fail, and a consumer fails with ENETUNREACH then.
 *
 * Lock order: RTNL (the notifiers; the work, so that it sees the routes
 * that the same event changes) -> hicn_net.lock; hicn_net.link_lock (BH
 * off) is a leaf.
 */

#include <linux/inetdevice.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <net/ip6_route.h>
#include <net/route.h>

#include "hicn.h"

#define HICN_LINK_RECHECK	HZ

/*
 * Queue the link work of @net unless the netns is going away: at once
 * (@now, an event), or in HICN_LINK_RECHECK unless it is queued already.
 */
static void hicn_link_kick(struct net *net, bool now)
{
	struct hicn_net *hn = hicn_pernet(net);

	if (!READ_ONCE(hn->nr_udp_faces))
		return;
	spin_lock_bh(&hn->link_lock);
	if (!hn->link_dead && now)
		mod_delayed_work(system_unbound_wq, &hn->link_work, 0);
	else if (!hn->link_dead)
		queue_delayed_work(system_unbound_wq, &hn->link_work,
				   HICN_LINK_RECHECK);
	spin_unlock_bh(&hn->link_lock);
}

/* A face was made down: look at it again in HICN_LINK_RECHECK. */
void hicn_link_recheck(struct net *net)
{
	hicn_link_kick(net, false);
}

/**
 * hicn_link_reachable() - does a route to @remote leave by a working device?
 * @net: the netns
 * @remote: the peer's address (AF_INET or AF_INET6)
 *
 * Return: true when a route exists and its device is up with carrier.
 */
bool hicn_link_reachable(struct net *net, const struct sockaddr_storage *remote)
{
	const struct sockaddr_in6 *s6 = (const void *)remote;
	const struct sockaddr_in *s4 = (const void *)remote;
	struct dst_entry *dst;
	struct net_device *dev;
	bool ok;

	if (remote->ss_family == AF_INET) {
		struct flowi4 fl4 = { .daddr = s4->sin_addr.s_addr };
		struct rtable *rt = ip_route_output_key(net, &fl4);

		if (IS_ERR(rt))
			return false;
		dst = &rt->dst;
	} else {
		struct flowi6 fl6 = { .daddr = s6->sin6_addr };

		dst = ip6_route_output(net, NULL, &fl6);
		if (dst->error) {
			dst_release(dst);
			return false;
		}
	}
	dev = dst->dev;
	ok = dev && netif_running(dev) && netif_carrier_ok(dev);
	dst_release(dst);
	return ok;
}

static void hicn_link_work(struct work_struct *work)
{
	struct hicn_net *hn = container_of(to_delayed_work(work),
					   struct hicn_net, link_work);
	bool down;

	rtnl_lock();
	mutex_lock(&hn->lock);
	down = hicn_udp_link_update(hn);
	mutex_unlock(&hn->lock);
	rtnl_unlock();
	if (!down)
		return;
	spin_lock_bh(&hn->link_lock);
	if (!hn->link_dead)
		queue_delayed_work(system_unbound_wq, &hn->link_work,
				   HICN_LINK_RECHECK);
	spin_unlock_bh(&hn->link_lock);
}

static int hicn_link_netdev_event(struct notifier_block *nb,
				  unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);

	switch (event) {
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
	case NETDEV_UNREGISTER:
		hicn_link_kick(dev_net(dev), true);
		break;
	}
	return NOTIFY_DONE;
}

static int hicn_link_inetaddr_event(struct notifier_block *nb,
				    unsigned long event, void *ptr)
{
	const struct in_ifaddr *ifa = ptr;

	hicn_link_kick(dev_net(ifa->ifa_dev->dev), true);
	return NOTIFY_DONE;
}

/* Called in atomic context: it only queues the work. */
static int hicn_link_inet6addr_event(struct notifier_block *nb,
				     unsigned long event, void *ptr)
{
	const struct inet6_ifaddr *ifa = ptr;

	hicn_link_kick(dev_net(ifa->idev->dev), true);
	return NOTIFY_DONE;
}

static struct notifier_block hicn_link_netdev_nb = {
	.notifier_call = hicn_link_netdev_event,
};

static struct notifier_block hicn_link_inetaddr_nb = {
	.notifier_call = hicn_link_inetaddr_event,
};

static struct notifier_block hicn_link_inet6addr_nb = {
	.notifier_call = hicn_link_inet6addr_event,
};

void hicn_link_net_init(struct hicn_net *hn)
{
	spin_lock_init(&hn->link_lock);
	INIT_DELAYED_WORK(&hn->link_work, hicn_link_work);
}

/* The netns is going away: no link work from now on. */
void hicn_link_net_exit(struct hicn_net *hn)
{
	spin_lock_bh(&hn->link_lock);
	hn->link_dead = true;
	spin_unlock_bh(&hn->link_lock);
	cancel_delayed_work_sync(&hn->link_work);
}

/* After the pernet registration: the notifiers reach every netns's state. */
int hicn_link_init(void)
{
	int err;

	err = register_netdevice_notifier(&hicn_link_netdev_nb);
	if (err)
		return err;
	err = register_inetaddr_notifier(&hicn_link_inetaddr_nb);
	if (err)
		goto err_netdev;
	err = register_inet6addr_notifier(&hicn_link_inet6addr_nb);
	if (err)
		goto err_inet;
	return 0;

err_inet:
	unregister_inetaddr_notifier(&hicn_link_inetaddr_nb);
err_netdev:
	unregister_netdevice_notifier(&hicn_link_netdev_nb);
	return err;
}

void hicn_link_exit(void)
{
	unregister_inet6addr_notifier(&hicn_link_inet6addr_nb);
	unregister_inetaddr_notifier(&hicn_link_inetaddr_nb);
	unregister_netdevice_notifier(&hicn_link_netdev_nb);
}
