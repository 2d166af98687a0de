/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AF_HICN internal definitions shared by the files of hicn.ko.
 */
#ifndef _NET_HICN_HICN_H
#define _NET_HICN_HICN_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <net/sock.h>
#include <uapi/linux/hicn.h>

/**
 * struct hicn_net - AF_HICN state of one network namespace
 * @lock: protects @sockets, @nr_sockets and the bound names of the sockets
 * @sockets: every AF_HICN socket of the namespace (struct hicn_sock.node)
 * @nr_sockets: length of @sockets
 * @fib_lock: protects changes to @fib and @fib_entries
 * @fib: claimed namespaces (struct hicn_fib_entry.node), RCU readers
 * @fib_entries: length of @fib
 */
struct hicn_net {
	struct mutex		lock;		/* protects sockets */
	struct list_head	sockets;
	unsigned int		nr_sockets;

	spinlock_t		fib_lock;	/* protects fib changes */
	struct list_head	fib;
	unsigned int		fib_entries;
};

struct hicn_sock;

/**
 * struct hicn_fib_entry - a claimed namespace
 * @node: entry in hicn_net.fib
 * @prefix: the namespace, host bits cleared
 * @plen: prefix length in bits
 * @owner: the producer socket that claimed it
 * @rcu: frees the entry after readers are done
 */
struct hicn_fib_entry {
	struct list_head	node;
	struct in6_addr		prefix;
	unsigned int		plen;
	struct hicn_sock	*owner;
	struct rcu_head		rcu;
};

/**
 * struct hicn_sock - an AF_HICN socket
 * @sk: the generic socket; must stay first (hicn_sk() casts)
 * @node: entry in hicn_net.sockets, protected by hicn_net.lock
 * @name: the name or namespace given to bind(), valid when @bound;
 *	written under lock_sock() and hicn_net.lock
 * @bound: bind() succeeded
 * @claim: a producer's FIB entry for @name, NULL otherwise
 */
struct hicn_sock {
	struct sock		sk;
	struct list_head	node;
	struct sockaddr_hicn	name;
	bool			bound;
	struct hicn_fib_entry	*claim;
};

static inline struct hicn_sock *hicn_sk(const struct sock *sk)
{
	return (struct hicn_sock *)sk;
}

/* af_hicn.c */
extern int hicn_family;
extern struct proto hicn_proto;

/* fib.c */
struct hicn_fib_entry *hicn_fib_claim(struct hicn_net *hn,
				      const struct in6_addr *prefix,
				      unsigned int plen, struct hicn_sock *hs);
void hicn_fib_release(struct hicn_net *hn, struct hicn_fib_entry *e);

/* pernet.c */
struct hicn_net *hicn_pernet(const struct net *net);
void hicn_pernet_link(struct hicn_sock *hs);
void hicn_pernet_unlink(struct hicn_sock *hs);
void hicn_pernet_set_name(struct hicn_sock *hs,
			  const struct sockaddr_hicn *name);
int hicn_pernet_init(void);
void hicn_pernet_exit(void);

/* fault.c: deliberate bugs for the harness self-test (HICN_FAULT=...) */
#ifdef HICN_FAULT_INJECT
void hicn_fault_inject(void);
#else
static inline void hicn_fault_inject(void)
{
}
#endif

/* proc.c */
int hicn_proc_init_net(struct net *net);
void hicn_proc_exit_net(struct net *net);

#endif /* _NET_HICN_HICN_H */
