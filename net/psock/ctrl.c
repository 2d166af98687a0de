// SPDX-License-Identifier: GPL-2.0
/*
 * Per-network-namespace settings of IPPROTO_PSOCK, as sysctls under
 * net.psock. (the shape of net/mptcp/ctrl.c):
 *
 *   enabled           0 makes socket(..., IPPROTO_PSOCK) fail with
 *                     ENOPROTOOPT in this namespace (default 1)
 *   rcmd_stream_cnt   default recommended stream count (4)
 *   max_stream_cnt    default maximum stream count (16)
 *   driver            default driver: 0 poll-all, 1 round-robin (0)
 *   stale_timeout_ms  a subflow that makes no progress this long while it
 *                     has data outstanding is declared dead (5000)
 *   hello_timeout_ms  how long a side waits for the peer's hello before
 *                     treating the connection as plain TCP (1000)
 *   add_addr_accepted how many of the addresses a server announces a
 *                     client opens data subflows to (PSOCK_ADDR_MAX, all;
 *                     0: only the server's own; read at each handshake)
 *   optimistic        1: new sockets start with PSOCK_OPTIMISTIC set (0)
 *
 * A new socket copies the values in force; changing a sysctl does not
 * touch existing sockets.
 */

#include <linux/slab.h>
#include <linux/sysctl.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "protocol.h"

static unsigned int pstripe_net_id __read_mostly;

static const int stream_cnt_limit = PSOCK_STREAM_CNT_LIMIT;
static const int driver_max = PSOCK_DRIVER_MAX;
static const int stale_min_ms = 100;
static const int stale_max_ms = 600000;
static const int hello_min_ms = 10;
static const int hello_max_ms = 60000;
static const int addr_max = PSOCK_ADDR_MAX;

__pstripe_hot struct pstripe_pernet *pstripe_get_pernet(const struct net *net)
{
	return net_generic(net, pstripe_net_id);
}

#define PSTRIPE_SYSCTLS	8

static struct ctl_table pstripe_sysctl_table[PSTRIPE_SYSCTLS + 1] = {
	{
		.procname	= "enabled",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
	{
		.procname	= "rcmd_stream_cnt",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ONE,
		.extra2		= (void *)&stream_cnt_limit,
	},
	{
		.procname	= "max_stream_cnt",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ONE,
		.extra2		= (void *)&stream_cnt_limit,
	},
	{
		.procname	= "driver",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= (void *)&driver_max,
	},
	{
		.procname	= "stale_timeout_ms",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= (void *)&stale_min_ms,
		.extra2		= (void *)&stale_max_ms,
	},
	{
		.procname	= "hello_timeout_ms",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= (void *)&hello_min_ms,
		.extra2		= (void *)&hello_max_ms,
	},
	{
		.procname	= "add_addr_accepted",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= (void *)&addr_max,
	},
	{
		.procname	= "optimistic",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
	{ }	/* sentinel: 6.1 walks the table up to it */
};

static int __net_init pstripe_net_init(struct net *net)
{
	struct pstripe_pernet *pn = pstripe_get_pernet(net);
	struct ctl_table *table;

	pn->enabled = 1;
	pn->rcmd_stream_cnt = 4;
	pn->max_stream_cnt = 16;
	pn->driver = PSOCK_DRIVER_POLL_ALL;
	pn->stale_timeout_ms = 5000;
	pn->hello_timeout_ms = 1000;
	pn->add_addr_accepted = PSOCK_ADDR_MAX;
	spin_lock_init(&pn->socks_lock);
	INIT_LIST_HEAD(&pn->socks);

	/* Every namespace owns its copy, pointing at its own values. */
	table = kmemdup(pstripe_sysctl_table, sizeof(pstripe_sysctl_table),
			GFP_KERNEL);
	if (!table)
		return -ENOMEM;
	table[0].data = &pn->enabled;
	table[1].data = &pn->rcmd_stream_cnt;
	table[2].data = &pn->max_stream_cnt;
	table[3].data = &pn->driver;
	table[4].data = &pn->stale_timeout_ms;
	table[5].data = &pn->hello_timeout_ms;
	table[6].data = &pn->add_addr_accepted;
	table[7].data = &pn->optimistic;

	pn->sysctl_hdr = register_net_sysctl_sz(net, "net/psock", table,
						PSTRIPE_SYSCTLS);
	if (!pn->sysctl_hdr) {
		kfree(table);
		return -ENOMEM;
	}
	if (pstripe_proc_init_net(net)) {
		unregister_net_sysctl_table(pn->sysctl_hdr);
		kfree(table);
		return -ENOMEM;
	}
	return 0;
}

static void __net_exit pstripe_net_exit(struct net *net)
{
	struct pstripe_pernet *pn = pstripe_get_pernet(net);
	const struct ctl_table *table = pn->sysctl_hdr->ctl_table_arg;

	/* Every socket holds its namespace: none is left at its exit. */
	WARN_ON_ONCE(!list_empty(&pn->socks));
	pstripe_proc_exit_net(net);
	unregister_net_sysctl_table(pn->sysctl_hdr);
	kfree(table);
}

static struct pernet_operations pstripe_net_ops = {
	.init	= pstripe_net_init,
	.exit	= pstripe_net_exit,
	.id	= &pstripe_net_id,
	.size	= sizeof(struct pstripe_pernet),
};

int pstripe_ctrl_init(void)
{
	return register_pernet_subsys(&pstripe_net_ops);
}

void pstripe_ctrl_exit(void)
{
	unregister_pernet_subsys(&pstripe_net_ops);
}
