// SPDX-License-Identifier: GPL-2.0
/*
 * Memory of blocks: the blocks a connection keeps for resending (rtx) and
 * the ones it received ahead of their turn (ooo).
 *
 * A block is two allocations: its descriptor, from a cache of its own,
 * and its bytes, of exactly their size.  One allocation of both would be
 * 32 bytes over 16 KiB for a full block, which the page allocator serves
 * with 32 KiB: twice what the socket's counters (rtx_bytes,
 * sk_rmem_alloc) say.  A full block's bytes are 16 KiB, an order-2
 * allocation with nothing wasted.
 *
 * Both are charged to the memory cgroup of the socket's owner: the task
 * that created the socket, or for an accepted one the task that created
 * the listener (pstripe_memcg_init() runs in the socket's ->init, and the
 * listener's work creates its children with the listener's memory cgroup
 * active).  The work that allocates most blocks runs in a kworker, so
 * every allocation names that memory cgroup with set_active_memcg(), as
 * the kernel does for its own deferred allocations; the memory cgroup
 * limit so bounds what a peer can make a process's sockets hold, beside
 * SO_RCVBUF and SO_SNDBUF.
 *
 * All blocks of every PSOCK socket are counted in one pool, as TCP counts
 * its buffers in tcp_memory_allocated against tcp_mem: net.psock.mem
 * (pages, in the initial network namespace only, so that no user
 * namespace lifts it) is the level above which a socket takes blocks
 * ahead of their turn from its subflows only while it holds less than
 * PSTRIPE_RCV_SHARE of them itself.  The others stay in the subflows' TCP
 * receive queues, which TCP bounds (tcp_rmem, tcp_mem), until their turn
 * comes or the pool drains: 500 peers that never send their first block
 * make the kernel hold net.psock.mem plus 256 KiB each, not 500 windows.
 * A block the reader needs next is always taken.  /proc/net/psock shows
 * the pool (PsockMem).
 *
 * A connection of small messages would allocate and free a block for each
 * one (two allocations, two frees: bench/psock_rr.sh).  The last block
 * acknowledged is kept as the socket's spare, at most one per socket (the
 * newest replaces the one before), and serves the next block that fits
 * in it and whose bytes come from the same kmalloc size: memory use is
 * what a new block would make it.  The spare stays counted in the pool
 * (at its own size) and charged to the memory cgroup, and is freed with
 * the socket (pstripe_free_blocks()).
 *
 * Nothing here takes a lock; the caller holds the socket's lock.
 */

#include <linux/error-injection.h>
#include <linux/memcontrol.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/swap.h>
#include <linux/sysctl.h>
#include <net/net_namespace.h>

#include "protocol.h"

static struct kmem_cache *pstripe_blk_cache __read_mostly;

/* Bytes of every block of every PSOCK socket, descriptors included. */
static atomic_long_t pstripe_mem_allocated;
/* Blocks left in a subflow for the pool being over net.psock.mem. */
static atomic_long_t pstripe_mem_throttled;
/* net.psock.mem, pages. */
static unsigned long pstripe_mem_limit __read_mostly;
static const unsigned long pstripe_mem_limit_min = 1;
static const unsigned long pstripe_mem_limit_max = LONG_MAX >> PAGE_SHIFT;
static struct ctl_table_header *pstripe_mem_sysctl;

static struct ctl_table pstripe_mem_table[] = {
	{
		.procname	= "mem",
		.data		= &pstripe_mem_limit,
		.maxlen		= sizeof(pstripe_mem_limit),
		.mode		= 0644,
		.proc_handler	= proc_doulongvec_minmax,
		.extra1		= (void *)&pstripe_mem_limit_min,
		.extra2		= (void *)&pstripe_mem_limit_max,
	},
	{ }	/* sentinel: 6.1 walks the table up to it */
};

/*
 * May @ps take a block of @size bytes ahead of its turn?  Yes while the
 * pool is below net.psock.mem, or @ps holds less than its share.
 */
bool pstripe_mem_ahead_ok(struct pstripe_sock *ps, u32 size)
{
	long limit = READ_ONCE(pstripe_mem_limit) << PAGE_SHIFT;

	if (atomic_long_read(&pstripe_mem_allocated) + size <= limit ||
	    atomic_read(&ps_sk(ps)->sk_rmem_alloc) + size <= PSTRIPE_RCV_SHARE)
		return true;
	atomic_long_inc(&pstripe_mem_throttled);
	return false;
}

/* For /proc/net/psock: the pool in pages, its limit, blocks left behind. */
void pstripe_mem_show(struct seq_file *seq)
{
	seq_printf(seq, "PsockMem: Pages Limit Throttled\nPsockMem: %lu %lu %lu\n",
		   DIV_ROUND_UP(atomic_long_read(&pstripe_mem_allocated),
				PAGE_SIZE),
		   READ_ONCE(pstripe_mem_limit),
		   atomic_long_read(&pstripe_mem_throttled));
}

/* The memory cgroup of the task creating @ps (or the one made active). */
void pstripe_memcg_init(struct pstripe_sock *ps)
{
	ps->memcg = get_mem_cgroup_from_mm(NULL);
}

void pstripe_memcg_put(struct pstripe_sock *ps)
{
	mem_cgroup_put(ps->memcg);
	ps->memcg = NULL;
}

/* Make @ps's memory cgroup the one charged until pstripe_memcg_end(). */
struct mem_cgroup *pstripe_memcg_begin(const struct pstripe_sock *ps)
{
	return set_active_memcg(ps->memcg);
}

void pstripe_memcg_end(struct mem_cgroup *old)
{
	set_active_memcg(old);
}

/*
 * @ps's spare block if its bytes hold @size and are of @size's kmalloc
 * size, else NULL.  Never more than the spare's own @alloc, though its
 * kmalloc size has room: KASAN allows what was asked for, no more.
 */
static struct pstripe_blk *pstripe_blk_spare(struct pstripe_sock *ps,
					     u32 size)
{
	struct pstripe_blk *blk = ps->spare;
	u32 alloc;
	u8 *data;

	if (!blk || size > blk->alloc ||
	    kmalloc_size_roundup(blk->alloc) != kmalloc_size_roundup(size))
		return NULL;
	ps->spare = NULL;
	/* As new: the descriptor zeroed, the bytes counted as before. */
	alloc = blk->alloc;
	data = blk->data;
	memset(blk, 0, sizeof(*blk));
	blk->alloc = alloc;
	blk->data = data;
	return blk;
}

/*
 * A block of @size bytes, charged to @ps's memory cgroup; NULL if none.
 * fail_function can make it fail (tools/testing/selftests/net/psock/
 * fault_test.c): every block a connection sends, its end-of-stream block
 * and the blocks it takes ahead of their turn come from here.
 */
noinline __pstripe_hot
struct pstripe_blk *pstripe_blk_alloc(struct pstripe_sock *ps, u32 size)
{
	struct pstripe_blk *blk = pstripe_blk_spare(ps, size);
	struct mem_cgroup *old;

	if (blk)
		return blk;
	old = pstripe_memcg_begin(ps);
	blk = kmem_cache_zalloc(pstripe_blk_cache, GFP_KERNEL_ACCOUNT);
	if (blk) {
		blk->data = kmalloc(size, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
		if (!blk->data) {
			kmem_cache_free(pstripe_blk_cache, blk);
			blk = NULL;
		}
	}
	pstripe_memcg_end(old);
	if (blk) {
		blk->alloc = size;
		atomic_long_add(sizeof(*blk) + size, &pstripe_mem_allocated);
	}
	return blk;
}
ALLOW_ERROR_INJECTION(pstripe_blk_alloc, NULL);

void pstripe_blk_free(struct pstripe_blk *blk)
{
	atomic_long_sub(sizeof(*blk) + blk->alloc, &pstripe_mem_allocated);
	kfree(blk->data);
	kmem_cache_free(pstripe_blk_cache, blk);
}

/*
 * @blk, acknowledged: @ps's spare, in place of the one before (freed), so
 * that a spare of a size the connection no longer sends does not stay.
 */
__pstripe_hot void pstripe_blk_recycle(struct pstripe_sock *ps,
				       struct pstripe_blk *blk)
{
	if (ps->spare)
		pstripe_blk_free(ps->spare);
	ps->spare = blk;
}

int pstripe_mem_init(void)
{
	/* As tcp_mem[1]'s default: 1/16 of the pages buffers may use. */
	pstripe_mem_limit = max_t(unsigned long, nr_free_buffer_pages() / 16,
				  PSTRIPE_RCV_SHARE >> PAGE_SHIFT);
	pstripe_blk_cache = kmem_cache_create("psock_blk",
					      sizeof(struct pstripe_blk), 0,
					      SLAB_ACCOUNT, NULL);
	if (!pstripe_blk_cache)
		return -ENOMEM;
	pstripe_mem_sysctl = register_net_sysctl_sz(&init_net, "net/psock",
						    pstripe_mem_table, 1);
	if (!pstripe_mem_sysctl) {
		kmem_cache_destroy(pstripe_blk_cache);
		return -ENOMEM;
	}
	return 0;
}

void pstripe_mem_exit(void)
{
	unregister_net_sysctl_table(pstripe_mem_sysctl);
	WARN_ON_ONCE(atomic_long_read(&pstripe_mem_allocated));
	kmem_cache_destroy(pstripe_blk_cache);
}
