// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/net/psock: per-namespace counters of PSOCK connections, subflows
 * and blocks, in the two-line layout of /proc/net/netstat (a line of names
 * after "PsockExt:", then a line of values), so that scripts that read
 * netstat read it too; then, in the same layout, "PsockMem:" (mem.c): the
 * pages all PSOCK sockets' blocks hold, net.psock.mem, and how many times
 * a block was left in its subflow for the pool being full.
 *
 * The counters are per-CPU (struct pstripe_mib, one per netns); they are
 * bumped with this_cpu_inc() from any context, and summed when read.
 * Nothing here takes a lock.
 */

#include <linux/percpu.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <net/net_namespace.h>

#include "protocol.h"

static const char *const pstripe_mib_names[PSTRIPE_MIB_MAX] = {
	[PSTRIPE_MIB_ACTIVE_OPENS]	= "ActiveOpens",
	[PSTRIPE_MIB_PASSIVE_OPENS]	= "PassiveOpens",
	[PSTRIPE_MIB_FALLBACKS]		= "Fallbacks",
	[PSTRIPE_MIB_HANDSHAKE_FAILS]	= "HandshakeFails",
	[PSTRIPE_MIB_SUBFLOWS_OPENED]	= "SubflowsOpened",
	[PSTRIPE_MIB_SUBFLOWS_JOINED]	= "SubflowsJoined",
	[PSTRIPE_MIB_BLOCKS_SENT]	= "BlocksSent",
	[PSTRIPE_MIB_BLOCKS_RECEIVED]	= "BlocksReceived",
	[PSTRIPE_MIB_BLOCKS_COPIED]	= "BlocksCopied",
	[PSTRIPE_MIB_CLOSE_TIMEOUTS]	= "CloseTimeouts",
	[PSTRIPE_MIB_LISTEN_OVERFLOWS]	= "ListenOverflows",
	[PSTRIPE_MIB_JOINS_MISSING]	= "JoinsMissing",
	[PSTRIPE_MIB_RESENDS]		= "Resends",
	[PSTRIPE_MIB_SUBFLOWS_LOST_TIMEOUT] = "SubflowsLostTimeout",
	[PSTRIPE_MIB_SUBFLOWS_LOST_ERROR] = "SubflowsLostError",
	[PSTRIPE_MIB_SUBFLOWS_REOPENED]	= "SubflowsReopened",
	[PSTRIPE_MIB_DUPS_DROPPED]	= "DupsDropped",
	[PSTRIPE_MIB_JOINS_REFUSED]	= "JoinsRefused",
	[PSTRIPE_MIB_ABORTS]		= "Aborts",
};

/* @net's counters, summed over the CPUs (also for netlink.c). */
void pstripe_mib_sum(const struct net *net, unsigned long sum[PSTRIPE_MIB_MAX])
{
	const struct pstripe_pernet *pn = pstripe_get_pernet(net);
	int i, cpu;

	for (i = 0; i < PSTRIPE_MIB_MAX; i++) {
		sum[i] = 0;
		for_each_possible_cpu(cpu)
			sum[i] += per_cpu_ptr(pn->mib, cpu)->v[i];
	}
}

static int pstripe_mib_show(struct seq_file *seq, void *v)
{
	unsigned long sum[PSTRIPE_MIB_MAX];
	int i;

	pstripe_mib_sum(seq_file_single_net(seq), sum);
	seq_puts(seq, "PsockExt:");
	for (i = 0; i < PSTRIPE_MIB_MAX; i++)
		seq_printf(seq, " %s", pstripe_mib_names[i]);
	seq_puts(seq, "\nPsockExt:");
	for (i = 0; i < PSTRIPE_MIB_MAX; i++)
		seq_printf(seq, " %lu", sum[i]);
	seq_putc(seq, '\n');
	pstripe_mem_show(seq);
	return 0;
}

int pstripe_proc_init_net(struct net *net)
{
	struct pstripe_pernet *pn = pstripe_get_pernet(net);

	pn->mib = alloc_percpu(struct pstripe_mib);
	if (!pn->mib)
		return -ENOMEM;
	if (!proc_create_net_single("psock", 0444, net->proc_net,
				    pstripe_mib_show, NULL)) {
		free_percpu(pn->mib);
		return -ENOMEM;
	}
	return 0;
}

void pstripe_proc_exit_net(struct net *net)
{
	remove_proc_entry("psock", net->proc_net);
	free_percpu(pstripe_get_pernet(net)->mib);
}
