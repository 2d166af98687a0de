// SPDX-License-Identifier: GPL-2.0
/*
 * Per-network-namespace AF_HICN state: the list of sockets, and the
 * /proc/net/hicn entry that shows it.  Later the namespace's forwarder
 * tables live here too.
 */

#include <linux/module.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "hicn.h"

static unsigned int hicn_net_id __read_mostly;

struct hicn_net *hicn_pernet(const struct net *net)
{
	return net_generic(net, hicn_net_id);
}

void hicn_pernet_link(struct hicn_sock *hs)
{
	struct hicn_net *hn = hicn_pernet(sock_net(&hs->sk));

	mutex_lock(&hn->lock);
	list_add_tail(&hs->node, &hn->sockets);
	hn->nr_sockets++;
	mutex_unlock(&hn->lock);
}

void hicn_pernet_unlink(struct hicn_sock *hs)
{
	struct hicn_net *hn = hicn_pernet(sock_net(&hs->sk));

	mutex_lock(&hn->lock);
	list_del_init(&hs->node);
	hn->nr_sockets--;
	mutex_unlock(&hn->lock);
}

/* Publish a socket's bound name to the readers of /proc/net/hicn. */
void hicn_pernet_set_name(struct hicn_sock *hs,
			  const struct sockaddr_hicn *name)
{
	struct hicn_net *hn = hicn_pernet(sock_net(&hs->sk));

	mutex_lock(&hn->lock);
	hs->name = *name;
	hs->bound = true;
	mutex_unlock(&hn->lock);
}

static int __net_init hicn_net_init(struct net *net)
{
	struct hicn_net *hn = hicn_pernet(net);

	mutex_init(&hn->lock);
	INIT_LIST_HEAD(&hn->sockets);
	hn->nr_sockets = 0;
	spin_lock_init(&hn->fib_lock);
	INIT_LIST_HEAD(&hn->fib);
	hn->fib_entries = 0;

	return hicn_proc_init_net(net);
}

static void __net_exit hicn_net_exit(struct net *net)
{
	struct hicn_net *hn = hicn_pernet(net);

	hicn_proc_exit_net(net);

	/* User sockets hold the namespace, so none can be left. */
	WARN_ONCE(!list_empty(&hn->sockets) || !list_empty(&hn->fib),
		  "hicn: %u sockets, %u FIB entries left in an exiting netns\n",
		  hn->nr_sockets, hn->fib_entries);
	mutex_destroy(&hn->lock);
}

static struct pernet_operations hicn_net_ops = {
	.init	= hicn_net_init,
	.exit	= hicn_net_exit,
	.id	= &hicn_net_id,
	.size	= sizeof(struct hicn_net),
};

int hicn_pernet_init(void)
{
	return register_pernet_subsys(&hicn_net_ops);
}

void hicn_pernet_exit(void)
{
	unregister_pernet_subsys(&hicn_net_ops);
}
