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
 * Nothing here takes a lock; the caller holds the socket's lock.
 */

#include <linux/memcontrol.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>

#include "protocol.h"

static struct kmem_cache *pstripe_blk_cache __read_mostly;

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

/* A block of @size bytes, charged to @ps's memory cgroup; NULL if none. */
struct pstripe_blk *pstripe_blk_alloc(struct pstripe_sock *ps, u32 size)
{
	struct mem_cgroup *old = pstripe_memcg_begin(ps);
	struct pstripe_blk *blk;

	blk = kmem_cache_zalloc(pstripe_blk_cache, GFP_KERNEL_ACCOUNT);
	if (blk) {
		blk->data = kmalloc(size, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
		if (!blk->data) {
			kmem_cache_free(pstripe_blk_cache, blk);
			blk = NULL;
		}
	}
	pstripe_memcg_end(old);
	return blk;
}

void pstripe_blk_free(struct pstripe_blk *blk)
{
	kfree(blk->data);
	kmem_cache_free(pstripe_blk_cache, blk);
}

int pstripe_mem_init(void)
{
	pstripe_blk_cache = kmem_cache_create("psock_blk",
					      sizeof(struct pstripe_blk), 0,
					      SLAB_ACCOUNT, NULL);
	return pstripe_blk_cache ? 0 : -ENOMEM;
}

void pstripe_mem_exit(void)
{
	kmem_cache_destroy(pstripe_blk_cache);
}
