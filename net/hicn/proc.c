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

static int hicn_stat_show(struct seq_file *seq, void *v)
{
	struct hicn_net *hn = hicn_pernet(seq_file_single_net(seq));
	struct hicn_stats *st = &hn->stats;
	u64 pit[5], cs[7];

	spin_lock_bh(&hn->pit_lock);
	pit[0] = hn->pit_entries;
	pit[1] = st->pit_aggregated;
	pit[2] = st->pit_drops;
	pit[3] = st->pit_expired;
	pit[4] = st->pit_user_drops;
	spin_unlock_bh(&hn->pit_lock);
	spin_lock_bh(&hn->cs_lock);
	cs[0] = hn->cs_entries;
	cs[1] = hn->cs_bytes;
	cs[2] = st->cs_hits;
	cs[3] = st->cs_misses;
	cs[4] = st->cs_evictions;
	cs[5] = st->cs_gc_runs;
	cs[6] = st->cs_gc_steps;
	spin_unlock_bh(&hn->cs_lock);

	seq_printf(seq, "pit_entries %llu\n", pit[0]);
	seq_printf(seq, "pit_max %d\n", READ_ONCE(hn->pit_max));
	seq_printf(seq, "pit_aggregated %llu\n", pit[1]);
	seq_printf(seq, "pit_drops %llu\n", pit[2]);
	seq_printf(seq, "pit_expired %llu\n", pit[3]);
	seq_printf(seq, "pit_user_max %d\n", READ_ONCE(hn->pit_user_max));
	seq_printf(seq, "pit_user_drops %llu\n", pit[4]);
	seq_printf(seq, "cs_entries %llu\n", cs[0]);
	seq_printf(seq, "cs_max_entries %d\n", READ_ONCE(hn->cs_max_entries));
	seq_printf(seq, "cs_bytes %llu\n", cs[1]);
	seq_printf(seq, "cs_mem_max %ld\n", READ_ONCE(hn->cs_mem_max));
	seq_printf(seq, "cs_hits %llu\n", cs[2]);
	seq_printf(seq, "cs_misses %llu\n", cs[3]);
	seq_printf(seq, "cs_evictions %llu\n", cs[4]);
	seq_printf(seq, "cs_gc_runs %llu\n", cs[5]);
	seq_printf(seq, "cs_gc_steps %llu\n", cs[6]);
	seq_printf(seq, "fib_entries %u\n", READ_ONCE(hn->fib_entries));
	seq_printf(seq, "faces %u\n", READ_ONCE(hn->nr_faces));
	seq_printf(seq, "no_route %lld\n", atomic64_read(&st->no_route));
	seq_printf(seq, "interests %lld\n", atomic64_read(&st->interests));
	seq_printf(seq, "data %lld\n", atomic64_read(&st->data));
	seq_printf(seq, "unsolicited %lld\n",
		   atomic64_read(&st->unsolicited));
	seq_printf(seq, "prod_mem %ld\n", atomic_long_read(&hn->prod_mem));
	seq_printf(seq, "prod_names %ld\n", atomic_long_read(&hn->prod_names));
	seq_printf(seq, "prod_held %ld\n", atomic_long_read(&hn->prod_held));
	seq_printf(seq, "prod_lookups %lld\n",
		   atomic64_read(&st->prod_lookups));
	seq_printf(seq, "prod_lookup_steps %lld\n",
		   atomic64_read(&st->prod_lookup_steps));
	seq_printf(seq, "prod_expiry_steps %lld\n",
		   atomic64_read(&st->prod_expiry_steps));
	seq_printf(seq, "cons_scan_steps %lld\n",
		   atomic64_read(&st->cons_scan_steps));
	seq_printf(seq, "prod_held_steps %lld\n",
		   atomic64_read(&st->prod_held_steps));
	return 0;
}

static int hicn_fib_show(struct seq_file *seq, void *v)
{
	struct hicn_net *hn = hicn_pernet(seq_file_single_net(seq));
	struct hicn_fib_entry *e;

	rcu_read_lock();
	list_for_each_entry_rcu(e, &hn->fib, node)
		seq_printf(seq, "%pI6c/%u %u\n", &e->prefix, e->plen,
			   e->face->id);
	rcu_read_unlock();
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
