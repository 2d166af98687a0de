/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AF_HICN internal definitions shared by the files of hicn.ko.
 */
#ifndef _NET_HICN_HICN_H
#define _NET_HICN_HICN_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <net/sock.h>
#include <uapi/linux/hicn.h>

/**
 * struct hicn_net - AF_HICN state of one network namespace
 * @lock: protects @sockets and @nr_sockets
 * @sockets: every AF_HICN socket of the namespace (struct hicn_sock.node)
 * @nr_sockets: length of @sockets
 */
struct hicn_net {
	struct mutex		lock;		/* protects sockets */
	struct list_head	sockets;
	unsigned int		nr_sockets;
};

/**
 * struct hicn_sock - an AF_HICN socket
 * @sk: the generic socket; must stay first (hicn_sk() casts)
 * @node: entry in hicn_net.sockets, protected by hicn_net.lock
 * @name: the name or namespace given to bind(), valid when @bound
 * @bound: bind() succeeded
 */
struct hicn_sock {
	struct sock		sk;
	struct list_head	node;
	struct sockaddr_hicn	name;
	bool			bound;
};

static inline struct hicn_sock *hicn_sk(const struct sock *sk)
{
	return (struct hicn_sock *)sk;
}

/* af_hicn.c */
extern int hicn_family;
extern struct proto hicn_proto;

/* pernet.c */
struct hicn_net *hicn_pernet(const struct net *net);
void hicn_pernet_link(struct hicn_sock *hs);
void hicn_pernet_unlink(struct hicn_sock *hs);
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
