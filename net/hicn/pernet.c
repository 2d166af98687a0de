// SPDX-License-Identifier: GPL-2.0
/*
 * Per-network-namespace AF_HICN state: the list of sockets and faces, the
 * forwarder's tables (FIB, PIT, CS: see fib.c, pit.c, cs.c), their
 * garbage collector and the net.hicn sysctls:
 *
 *   pit_max         PIT entries at most (default 65536)
 *   cs_max_entries  CS entries at most (default 65536; 0 turns it off)
 *   cs_mem_max      CS bytes at most (default 64 MiB)
 *   prod_mem_max    bytes of published content in the netns (512 MiB)
 *   pit_user_max    PIT in-records of one user at most (default 16384)
 *   prod_user_mem_max
 *                   bytes the producers of one user hold (256 MiB)
 *   unprivileged_prefix_min
 *                   shortest prefix a producer without CAP_NET_ADMIN in
 *                   the netns's user namespace may claim (default 64)
 *
 * The first six are limits on memory the whole netns makes the kernel
 * hold.  In a netns made inside a non-initial user namespace (unshare -Urn)
 * they start at the initial netns's values and can only be lowered: a
 * write above that value is EPERM, as nf_conntrack_max cannot be raised
 * there either.
 */

#include <linux/module.h>
#include <net/net_namespace.h>
#include <linux/hashtable.h>
#include <linux/slab.h>
#include <linux/sysctl.h>
#include <linux/user_namespace.h>
#include <net/netns/generic.h>

#include "hicn.h"

static unsigned int hicn_net_id __read_mostly;
static const long hicn_long_zero;

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

/*
 * Garbage collection: expired PIT entries and stale CS entries go while
 * either table is not empty; the work stops when both are.
 */
#define HICN_GC_PERIOD	(HZ / 2)

static void hicn_gc_work(struct work_struct *work)
{
	struct hicn_net *hn = container_of(to_delayed_work(work),
					   struct hicn_net, gc);
	bool busy;

	busy = hicn_pit_gc(hn);
	busy |= hicn_cs_gc(hn);
	if (busy)
		queue_delayed_work(system_power_efficient_wq, &hn->gc,
				   HICN_GC_PERIOD);
}

/* A table got an entry: make sure the collector runs. */
void hicn_gc_kick(struct hicn_net *hn)
{
	if (!delayed_work_pending(&hn->gc))
		queue_delayed_work(system_power_efficient_wq, &hn->gc,
				   HICN_GC_PERIOD);
}

static int hicn_cs_sysctl(HICN_CTL_CONST struct ctl_table *table, int write,
			  void *buffer, size_t *lenp, loff_t *ppos);
static int hicn_limit_sysctl(HICN_CTL_CONST struct ctl_table *table,
			     int write, void *buffer, size_t *lenp,
			     loff_t *ppos);

static const long hicn_long_max = LONG_MAX;
static const int hicn_prefix_max = HICN_PREFIX_MAX;

static struct ctl_table hicn_sysctl_table[] = {
	{
		.procname	= "pit_max",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= hicn_limit_sysctl,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_INT_MAX,
	},
	{
		.procname	= "cs_max_entries",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= hicn_cs_sysctl,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_INT_MAX,
	},
	{
		.procname	= "cs_mem_max",
		.maxlen		= sizeof(long),
		.mode		= 0644,
		.proc_handler	= hicn_cs_sysctl,
		.extra1		= (void *)&hicn_long_zero,
		.extra2		= (void *)&hicn_long_max,
	},
	{
		.procname	= "prod_mem_max",
		.maxlen		= sizeof(long),
		.mode		= 0644,
		.proc_handler	= hicn_limit_sysctl,
		.extra1		= (void *)&hicn_long_zero,
		.extra2		= (void *)&hicn_long_max,
	},
	{
		.procname	= "unprivileged_prefix_min",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= (void *)&hicn_prefix_max,
	},
	{
		.procname	= "pit_user_max",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= hicn_limit_sysctl,
		.extra1		= SYSCTL_ONE,
		.extra2		= SYSCTL_INT_MAX,
	},
	{
		.procname	= "prod_user_mem_max",
		.maxlen		= sizeof(long),
		.mode		= 0644,
		.proc_handler	= hicn_limit_sysctl,
		.extra1		= (void *)&hicn_long_zero,
		.extra2		= (void *)&hicn_long_max,
	},
	{ }	/* sentinel: 6.1 walks the table up to it */
};

#define HICN_SYSCTLS	(ARRAY_SIZE(hicn_sysctl_table) - 1)

/*
 * A netns-wide limit.  Its table entry's extra2 is the most it may be set
 * to: the type's maximum in a netns of the initial user namespace, else
 * the initial netns's value when this netns was made (hicn_net.ceil).  A
 * value above the type's range is EINVAL, above the ceiling EPERM.
 */
static int hicn_limit_sysctl(HICN_CTL_CONST struct ctl_table *table,
			     int write, void *buffer, size_t *lenp,
			     loff_t *ppos)
{
	struct ctl_table tmp = *table;
	long lval;
	int ival;
	int err;

	if (table->maxlen == sizeof(int)) {
		if (!write)
			return proc_dointvec(table, write, buffer, lenp, ppos);
		ival = READ_ONCE(*(int *)table->data);
		tmp.data = &ival;
		tmp.extra2 = SYSCTL_INT_MAX;
		err = proc_dointvec_minmax(&tmp, write, buffer, lenp, ppos);
		if (!err && ival > *(const int *)table->extra2)
			err = -EPERM;
		if (!err)
			WRITE_ONCE(*(int *)table->data, ival);
		return err;
	}
	if (!write)
		return proc_doulongvec_minmax(table, write, buffer, lenp, ppos);
	lval = READ_ONCE(*(long *)table->data);
	tmp.data = &lval;
	tmp.extra2 = (void *)&hicn_long_max;
	err = proc_doulongvec_minmax(&tmp, write, buffer, lenp, ppos);
	if (!err && lval > *(const long *)table->extra2)
		err = -EPERM;
	if (!err)
		WRITE_ONCE(*(long *)table->data, lval);
	return err;
}

/* Lowering a CS limit (0 entries: off) empties the store at once. */
static int hicn_cs_sysctl(HICN_CTL_CONST struct ctl_table *table, int write,
			  void *buffer, size_t *lenp, loff_t *ppos)
{
	struct hicn_net *hn = table->extra1 == SYSCTL_ZERO ?
		container_of(table->data, struct hicn_net, cs_max_entries) :
		container_of(table->data, struct hicn_net, cs_mem_max);
	int err;

	err = hicn_limit_sysctl(table, write, buffer, lenp, ppos);
	if (!err && write)
		hicn_cs_limits_changed(hn);
	return err;
}

/* A CS limit was written (sysctl or netlink): apply it at once. */
void hicn_cs_limits_changed(struct hicn_net *hn)
{
	if (!READ_ONCE(hn->cs_max_entries))
		hicn_cs_flush(hn);
	else
		hicn_cs_gc(hn);
}

static int hicn_sysctl_init(struct net *net, struct hicn_net *hn)
{
	struct ctl_table *table;

	hn->pit_max = 65536;
	hn->cs_max_entries = 65536;
	hn->cs_mem_max = 64L << 20;
	hn->prod_mem_max = 512L << 20;
	hn->unprivileged_prefix_min = 64;
	hn->pit_user_max = 16384;
	hn->prod_user_mem_max = 256L << 20;

	table = kmemdup(hicn_sysctl_table, sizeof(hicn_sysctl_table),
			GFP_KERNEL);
	if (!table)
		return -ENOMEM;
	table[0].data = &hn->pit_max;
	table[1].data = &hn->cs_max_entries;
	table[2].data = &hn->cs_mem_max;
	table[3].data = &hn->prod_mem_max;
	table[4].data = &hn->unprivileged_prefix_min;
	table[5].data = &hn->pit_user_max;
	table[6].data = &hn->prod_user_mem_max;

	/* unshare -Urn inherits the limits in force and cannot raise them. */
	if (net->user_ns != &init_user_ns) {
		const struct hicn_net *init = hicn_pernet(&init_net);

		hn->ceil.pit_max = READ_ONCE(init->pit_max);
		hn->ceil.cs_max_entries = READ_ONCE(init->cs_max_entries);
		hn->ceil.cs_mem_max = READ_ONCE(init->cs_mem_max);
		hn->ceil.prod_mem_max = READ_ONCE(init->prod_mem_max);
		hn->ceil.pit_user_max = READ_ONCE(init->pit_user_max);
		hn->ceil.prod_user_mem_max =
			READ_ONCE(init->prod_user_mem_max);
		hn->pit_max = hn->ceil.pit_max;
		hn->cs_max_entries = hn->ceil.cs_max_entries;
		hn->cs_mem_max = hn->ceil.cs_mem_max;
		hn->prod_mem_max = hn->ceil.prod_mem_max;
		hn->pit_user_max = hn->ceil.pit_user_max;
		hn->prod_user_mem_max = hn->ceil.prod_user_mem_max;
		table[0].extra2 = &hn->ceil.pit_max;
		table[1].extra2 = &hn->ceil.cs_max_entries;
		table[2].extra2 = &hn->ceil.cs_mem_max;
		table[3].extra2 = &hn->ceil.prod_mem_max;
		table[5].extra2 = &hn->ceil.pit_user_max;
		table[6].extra2 = &hn->ceil.prod_user_mem_max;
	}
	hn->sysctl_hdr = register_net_sysctl_sz(net, "net/hicn", table,
						HICN_SYSCTLS);
	if (!hn->sysctl_hdr) {
		kfree(table);
		return -ENOMEM;
	}
	return 0;
}

static void hicn_sysctl_exit(struct hicn_net *hn)
{
	const struct ctl_table *table = hn->sysctl_hdr->ctl_table_arg;

	unregister_net_sysctl_table(hn->sysctl_hdr);
	kfree(table);
}

static int __net_init hicn_net_init(struct net *net)
{
	struct hicn_net *hn = hicn_pernet(net);
	int err;

	mutex_init(&hn->lock);
	INIT_LIST_HEAD(&hn->sockets);
	INIT_LIST_HEAD(&hn->faces);
	spin_lock_init(&hn->fib_lock);
	hash_init(hn->fib);
	INIT_LIST_HEAD(&hn->udp_listeners);
	hicn_link_net_init(hn);
	mutex_init(&hn->claim_lock);
	INIT_LIST_HEAD(&hn->claims);
	INIT_LIST_HEAD(&hn->floors);
	spin_lock_init(&hn->pit_lock);
	hash_init(hn->pit);
	hash_init(hn->pit_users);
	hash_init(hn->prod_users);
	spin_lock_init(&hn->cs_lock);
	hash_init(hn->cs);
	INIT_LIST_HEAD(&hn->cs_lru);
	hn->cs_gc_next = &hn->cs_lru;
	INIT_DELAYED_WORK(&hn->gc, hicn_gc_work);

	err = hicn_sysctl_init(net, hn);
	if (err)
		return err;
	err = hicn_proc_init_net(net);
	if (err)
		hicn_sysctl_exit(hn);
	return err;
}

static void __net_exit hicn_net_exit(struct net *net)
{
	struct hicn_net *hn = hicn_pernet(net);

	hicn_proc_exit_net(net);
	hicn_sysctl_exit(hn);

	/* User sockets hold the namespace, so none can be left. */
	WARN_ONCE(!list_empty(&hn->sockets) || !list_empty(&hn->claims),
		  "hicn: %u sockets, %u claims left in an exiting netns\n",
		  hn->nr_sockets, hn->nr_claims);
	hicn_link_net_exit(hn);
	hicn_udp_net_exit(hn);
	hicn_fib_flush(hn);
	hicn_floor_flush(hn);
	hicn_pit_flush(hn);
	hicn_cs_flush(hn);
	cancel_delayed_work_sync(&hn->gc);
	mutex_destroy(&hn->claim_lock);
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
