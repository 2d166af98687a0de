// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/net/hicn: the AF_HICN sockets of the reader's network namespace,
 * one line each.  Columns:
 *
 *   Inode   socket inode number (as in /proc/PID/fd)
 *   Uid     owner
 *   Type    CONS or PROD
 *   Proto   CONS_REL, CONS_UNREL, PROD_REL or PROD_UNREL
 *   Name    bound name as prefix/length, "-" when unbound
 *
 * /proc/net/hicn_stat: the forwarder's table sizes and counters, one
 * "name value" line each.
 *
 * /proc/net/hicn_fib: the FIB, one "prefix/length face-id" line per
 * claimed namespace.
 */

#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <net/net_namespace.h>

#include "hicn.h"

static const char *const hicn_proto_names[] = {
	[CONS_REL]	= "CONS_REL",
	[CONS_UNREL]	= "CONS_UNREL",
	[PROD_REL]	= "PROD_REL",
	[PROD_UNREL]	= "PROD_UNREL",
};

static void *hicn_seq_start(struct seq_file *seq, loff_t *pos)
{
	struct hicn_net *hn = hicn_pernet(seq_file_net(seq));

	mutex_lock(&hn->lock);
	return seq_list_start_head(&hn->sockets, *pos);
}

static void *hicn_seq_next(struct seq_file *seq, void *v, loff_t *pos)
{
	struct hicn_net *hn = hicn_pernet(seq_file_net(seq));

	return seq_list_next(v, &hn->sockets, pos);
}

static void hicn_seq_stop(struct seq_file *seq, void *v)
{
	struct hicn_net *hn = hicn_pernet(seq_file_net(seq));

	mutex_unlock(&hn->lock);
}

static int hicn_seq_show(struct seq_file *seq, void *v)
{
	struct hicn_net *hn = hicn_pernet(seq_file_net(seq));
	struct hicn_sock *hs;
	struct sock *sk;
	const char *proto = "?";

	if (v == &hn->sockets) {
		seq_puts(seq, "Inode    Uid   Type Proto      Name\n");
		return 0;
	}

	hs = list_entry(v, struct hicn_sock, node);
	sk = &hs->sk;
	if (sk->sk_protocol > 0 && sk->sk_protocol <= HICN_PROTO_MAX)
		proto = hicn_proto_names[sk->sk_protocol];

	seq_printf(seq, "%-8llu %-5u %-4s %-10s ", (u64)sock_i_ino(sk),
		   from_kuid_munged(seq_user_ns(seq), sk_uid(sk)),
		   sk->sk_type == SOCK_PROD ? "PROD" : "CONS", proto);
	if (hs->bound)
		seq_printf(seq, "%pI6c/%u\n", &hs->name.sin_addr,
			   hs->name.sin_prefix);
	else
		seq_puts(seq, "-\n");
	return 0;
}

static const struct seq_operations hicn_seq_ops = {
	.start	= hicn_seq_start,
	.next	= hicn_seq_next,
	.stop	= hicn_seq_stop,
	.show	= hicn_seq_show,
};

/* The lines of /proc/net/hicn_stat, in enum hicn_stat_item order. */
static const char *const hicn_stat_names[HICN_STAT_NUM] = {
	[HICN_STAT_PIT_ENTRIES]		= "pit_entries",
	[HICN_STAT_PIT_MAX]		= "pit_max",
	[HICN_STAT_PIT_AGGREGATED]	= "pit_aggregated",
	[HICN_STAT_PIT_DROPS]		= "pit_drops",
	[HICN_STAT_PIT_EXPIRED]		= "pit_expired",
	[HICN_STAT_PIT_USER_MAX]	= "pit_user_max",
	[HICN_STAT_PIT_USER_DROPS]	= "pit_user_drops",
	[HICN_STAT_CS_ENTRIES]		= "cs_entries",
	[HICN_STAT_CS_MAX_ENTRIES]	= "cs_max_entries",
	[HICN_STAT_CS_BYTES]		= "cs_bytes",
	[HICN_STAT_CS_MEM_MAX]		= "cs_mem_max",
	[HICN_STAT_CS_HITS]		= "cs_hits",
	[HICN_STAT_CS_MISSES]		= "cs_misses",
	[HICN_STAT_CS_EVICTIONS]	= "cs_evictions",
	[HICN_STAT_CS_GC_RUNS]		= "cs_gc_runs",
	[HICN_STAT_CS_GC_STEPS]		= "cs_gc_steps",
	[HICN_STAT_FIB_ENTRIES]		= "fib_entries",
	[HICN_STAT_FACES]		= "faces",
	[HICN_STAT_NO_ROUTE]		= "no_route",
	[HICN_STAT_INTERESTS]		= "interests",
	[HICN_STAT_DATA]		= "data",
	[HICN_STAT_UNSOLICITED]		= "unsolicited",
	[HICN_STAT_PROD_MEM]		= "prod_mem",
	[HICN_STAT_PROD_NAMES]		= "prod_names",
	[HICN_STAT_PROD_HELD]		= "prod_held",
	[HICN_STAT_PROD_LOOKUPS]	= "prod_lookups",
	[HICN_STAT_PROD_LOOKUP_STEPS]	= "prod_lookup_steps",
	[HICN_STAT_PROD_EXPIRY_STEPS]	= "prod_expiry_steps",
	[HICN_STAT_CONS_SCAN_STEPS]	= "cons_scan_steps",
	[HICN_STAT_PROD_HELD_STEPS]	= "prod_held_steps",
	[HICN_STAT_PIT_GC_RUNS]		= "pit_gc_runs",
	[HICN_STAT_PIT_GC_STEPS]	= "pit_gc_steps",
	[HICN_STAT_FIB_FLOORS]		= "fib_floors",
	[HICN_STAT_FAILOVER_REFORWARDS]	= "failover_reforwards",
	[HICN_STAT_DATA_ZEROCOPY]	= "data_zerocopy",
};

/**
 * hicn_stat_read() - the forwarder's table sizes and counters
 * @hn: the namespace's AF_HICN state
 * @val: filled in enum hicn_stat_item order; each table's numbers are read
 *	together under its lock
 *
 * /proc/net/hicn_stat prints them, the netlink family sends them
 * (counters-get, pit-get, cs-get).  None is negative.
 */
void hicn_stat_read(struct hicn_net *hn, u64 val[HICN_STAT_NUM])
{
	struct hicn_stats *st = &hn->stats;

	spin_lock_bh(&hn->pit_lock);
	val[HICN_STAT_PIT_ENTRIES] = hn->pit_entries;
	val[HICN_STAT_PIT_AGGREGATED] = st->pit_aggregated;
	val[HICN_STAT_PIT_DROPS] = st->pit_drops;
	val[HICN_STAT_PIT_EXPIRED] = st->pit_expired;
	val[HICN_STAT_PIT_USER_DROPS] = st->pit_user_drops;
	val[HICN_STAT_PIT_GC_RUNS] = st->pit_gc_runs;
	val[HICN_STAT_PIT_GC_STEPS] = st->pit_gc_steps;
	spin_unlock_bh(&hn->pit_lock);
	spin_lock_bh(&hn->cs_lock);
	val[HICN_STAT_CS_ENTRIES] = hn->cs_entries;
	val[HICN_STAT_CS_BYTES] = hn->cs_bytes;
	val[HICN_STAT_CS_HITS] = st->cs_hits;
	val[HICN_STAT_CS_MISSES] = st->cs_misses;
	val[HICN_STAT_CS_EVICTIONS] = st->cs_evictions;
	val[HICN_STAT_CS_GC_RUNS] = st->cs_gc_runs;
	val[HICN_STAT_CS_GC_STEPS] = st->cs_gc_steps;
	spin_unlock_bh(&hn->cs_lock);

	val[HICN_STAT_PIT_MAX] = READ_ONCE(hn->pit_max);
	val[HICN_STAT_PIT_USER_MAX] = READ_ONCE(hn->pit_user_max);
	val[HICN_STAT_CS_MAX_ENTRIES] = READ_ONCE(hn->cs_max_entries);
	val[HICN_STAT_CS_MEM_MAX] = READ_ONCE(hn->cs_mem_max);
	val[HICN_STAT_FIB_ENTRIES] = READ_ONCE(hn->fib_entries);
	val[HICN_STAT_FIB_FLOORS] = READ_ONCE(hn->nr_floors);
	val[HICN_STAT_FACES] = READ_ONCE(hn->nr_faces);
	val[HICN_STAT_NO_ROUTE] = atomic64_read(&st->no_route);
	val[HICN_STAT_INTERESTS] = atomic64_read(&st->interests);
	val[HICN_STAT_DATA] = atomic64_read(&st->data);
	val[HICN_STAT_UNSOLICITED] = atomic64_read(&st->unsolicited);
	val[HICN_STAT_FAILOVER_REFORWARDS] =
		atomic64_read(&st->failover_reforwards);
	val[HICN_STAT_DATA_ZEROCOPY] = atomic64_read(&st->data_zerocopy);
	val[HICN_STAT_PROD_MEM] = atomic_long_read(&hn->prod_mem);
	val[HICN_STAT_PROD_NAMES] = atomic_long_read(&hn->prod_names);
	val[HICN_STAT_PROD_HELD] = atomic_long_read(&hn->prod_held);
	val[HICN_STAT_PROD_LOOKUPS] = atomic64_read(&st->prod_lookups);
	val[HICN_STAT_PROD_LOOKUP_STEPS] =
		atomic64_read(&st->prod_lookup_steps);
	val[HICN_STAT_PROD_EXPIRY_STEPS] =
		atomic64_read(&st->prod_expiry_steps);
	val[HICN_STAT_CONS_SCAN_STEPS] = atomic64_read(&st->cons_scan_steps);
	val[HICN_STAT_PROD_HELD_STEPS] = atomic64_read(&st->prod_held_steps);
}

static int hicn_stat_show(struct seq_file *seq, void *v)
{
	struct hicn_net *hn = hicn_pernet(seq_file_single_net(seq));
	u64 val[HICN_STAT_NUM];
	int i;

	hicn_stat_read(hn, val);
	for (i = 0; i < HICN_STAT_NUM; i++)
		seq_printf(seq, "%s %llu\n", hicn_stat_names[i], val[i]);
	return 0;
}

static void hicn_fib_show_nh(const struct hicn_fib_entry *e, unsigned int i,
			     void *seq)
{
	seq_printf(seq, "%pI6c/%u %u %u\n", &e->prefix, e->plen,
		   e->nh[i].face->id, e->nh[i].cost);
}

/* One line per next hop: prefix/len face-id cost. */
static int hicn_fib_show(struct seq_file *seq, void *v)
{
	hicn_fib_walk(hicn_pernet(seq_file_single_net(seq)), hicn_fib_show_nh,
		      seq);
	return 0;
}

int hicn_proc_init_net(struct net *net)
{
	if (!proc_create_net("hicn", 0444, net->proc_net, &hicn_seq_ops,
			     sizeof(struct seq_net_private)))
		return -ENOMEM;
	if (!proc_create_net_single("hicn_stat", 0444, net->proc_net,
				    hicn_stat_show, NULL))
		goto err_stat;
	if (!proc_create_net_single("hicn_fib", 0444, net->proc_net,
				    hicn_fib_show, NULL))
		goto err_fib;
	return 0;

err_fib:
	remove_proc_entry("hicn_stat", net->proc_net);
err_stat:
	remove_proc_entry("hicn", net->proc_net);
	return -ENOMEM;
}

void hicn_proc_exit_net(struct net *net)
{
	remove_proc_entry("hicn_fib", net->proc_net);
	remove_proc_entry("hicn_stat", net->proc_net);
	remove_proc_entry("hicn", net->proc_net);
}
