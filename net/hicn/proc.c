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

	seq_printf(seq, "%-8lu %-5u %-4s %-10s ", sock_i_ino(sk),
		   from_kuid_munged(seq_user_ns(seq), sock_i_uid(sk)),
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

int hicn_proc_init_net(struct net *net)
{
	if (!proc_create_net("hicn", 0444, net->proc_net, &hicn_seq_ops,
			     sizeof(struct seq_net_private)))
		return -ENOMEM;
	return 0;
}

void hicn_proc_exit_net(struct net *net)
{
	remove_proc_entry("hicn", net->proc_net);
}
