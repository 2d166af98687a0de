// SPDX-License-Identifier: GPL-2.0
/*
 * PSOCK path management: the addresses data subflows connect to (announced
 * by the server, or the control subflow's), opening the extra subflows,
 * and opening them again once they died.
 *
 * A path that comes back gets its subflows again (issue #581 of MPTCP's
 * tracker asks the same of its path manager).  The client remembers where
 * each subflow went (&pstripe_subflow.route).  A dead subflow's slot is
 * opened again PSTRIPE_REJOIN_FIRST after it died, then after twice as
 * long after each try that failed, up to PSTRIPE_REJOIN_MAX; one try at a
 * time, given the join wait (pstripe_join_wait_jiffies()) to connect.
 * The new subflow's first bytes are a rejoin that names the connection's
 * token and the slot (it takes the slot here once TCP acknowledged it in
 * time, as a join: pstripe_join_progress()); any listener of the server
 * finds the connection in the token table (token.c) and queues the
 * subflow on it (@rj_q); the
 * connection's work takes it into the slot under its own lock, in place
 * of the dead subflow (reset first if the server had not found it dead).
 * Nothing is lost: the dead subflow's blocks were resent already, and a
 * block the server was reading from it is read again from its resent copy.
 */

#include <linux/jiffies.h>
#include <linux/net.h>
#include <linux/poll.h>
#include <linux/random.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <net/inet_common.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <net/transp_v6.h>

#include "protocol.h"

/* Write @a (4 or 6, or @fam 0: leave the address) and @port into @ss. */
static void pstripe_addr_to_ss(struct sock *sk, int fam, const u8 *a,
			       __be16 port, struct sockaddr_storage *ss)
{
	if (sk->sk_family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		if (fam == 4)
			memcpy(&sin->sin_addr, a, 4);
		sin->sin_port = port;
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

		if (fam == 6)
			memcpy(&sin6->sin6_addr, a, 16);
		else if (fam == 4)
			ipv6_addr_set_v4mapped(*(__be32 *)a, &sin6->sin6_addr);
		sin6->sin6_port = port;
	}
}

/**
 * pstripe_local_addrs() - the addresses a socket uses besides the control
 *	subflow's
 * @ps: the socket, its lock held
 * @sf: the connection's control subflow, whose path gives the family of
 *	the endpoints
 * @flag: which endpoints stand in for addresses of its own:
 *	PSOCK_ENDPOINT_FLAGS_SIGNAL for a listener's announcements,
 *	PSOCK_ENDPOINT_FLAGS_SUBFLOW for a client's data subflows
 * @out: room for PSOCK_ADDR_MAX addresses
 * @ifindex: room for as many interfaces (0: any)
 *
 * The socket's own (PSOCK_ADD_LOCAL_ADDR) when it has any, else the
 * namespace's endpoints with @flag (netlink.c) of the family of @sf's
 * path, as a socket option overrides a namespace's configuration.  That
 * family is the socket's, but for an AF_INET6 socket whose control
 * subflow reached an IPv4 peer through a v4-mapped address (a dual-stack
 * listener's connection, as most servers listen on "::"; a client that
 * connected to ::ffff:a.b.c.d): its data subflows go to and come from
 * IPv4 addresses, so they use the IPv4 endpoints.
 *
 * Context: process context.
 * Return: how many.
 */
int pstripe_local_addrs(struct pstripe_sock *ps, struct pstripe_subflow *sf,
			u32 flag, struct pstripe_addr *out, int *ifindex)
{
	struct sock *sk = ps_sk(ps);
	int i, family = sk->sk_family;

	sock_owned_by_me(sk);
#if IS_ENABLED(CONFIG_IPV6)
	if (family == AF_INET6 &&
	    ipv6_addr_v4mapped(&sf->sock->sk->sk_v6_daddr))
		family = AF_INET;
#endif
	if (!ps->nladdr)
		return pstripe_nl_endpoints(sock_net(sk), family, flag,
					    out, ifindex);
	for (i = 0; i < ps->nladdr; i++) {
		out[i] = ps->laddr[i];
		ifindex[i] = 0;
	}
	return ps->nladdr;
}

/*
 * The addresses the data subflows connect to: dst[0] is the server's
 * (or the control peer's) and port of the server hello, then the
 * announced ones, as many as net.psock.add_addr_accepted lets a server
 * send us to (a server is not trusted to name other hosts).  Returns how
 * many, or an error.
 */
static int pstripe_data_addrs(struct pstripe_sock *ps,
			      const struct pstripe_hello *msgs,
			      struct sockaddr_storage *dst, int *dlen)
{
	const struct pstripe_hello *h = &msgs[0];
	struct sock *sk = ps_sk(ps);
	int len, i, n;

	n = min_t(int, h->n, READ_ONCE(pstripe_get_pernet(sock_net(sk))->
				       add_addr_accepted));
	len = kernel_getpeername(ps->sf[0]->sock, (struct sockaddr *)&dst[0]);
	if (len < 0)
		return len;
	*dlen = len;
	pstripe_addr_to_ss(sk, h->family, h->addr, h->port, &dst[0]);
	for (i = 1; i <= n; i++) {
		dst[i] = dst[0];
		pstripe_addr_to_ss(sk, msgs[i].family, msgs[i].addr,
				   msgs[i].port ? msgs[i].port : h->port,
				   &dst[i]);
	}
	return 1 + n;
}

/* Where subflow @sf goes: to @dst, from @src when @bind. */
static void pstripe_route_set(struct pstripe_subflow *sf,
			      const struct sockaddr_storage *dst,
			      const struct sockaddr_storage *src, int alen,
			      int ifindex, bool bind)
{
	struct pstripe_route *rt = &sf->route;

	if (alen <= 0 || alen > sizeof(rt->dst))
		return;
	memcpy(&rt->dst, dst, alen);
	memcpy(&rt->src, src, alen);
	rt->alen = alen;
	rt->ifindex = ifindex;
	rt->bind = bind;
}

/*
 * Client, established: the control subflow's route, from the address it
 * was connected from (any port) to the server's.
 */
void pstripe_route_control(struct pstripe_sock *ps)
{
	struct sockaddr_storage src, dst = { };
	int len;

	sock_owned_by_me(ps_sk(ps));
	len = kernel_getsockname(ps->sf[0]->sock, (struct sockaddr *)&src);
	if (len <= 0 || len != ps->peer_len)
		return;
	memcpy(&dst, &ps->peer, len);
	pstripe_addr_to_ss(ps_sk(ps), 0, NULL, 0, &src);
	pstripe_route_set(ps->sf[0], &dst, &src, len, 0, true);
}

/*
 * Data subflow i goes to dst[i % ndst]; from src[i % nsrc] when the client
 * added source addresses (src[0] is the control subflow's), from the
 * control subflow's address when it goes where the control subflow goes,
 * and otherwise from whatever address routing picks.
 */
int pstripe_open_data_subflows(struct pstripe_sock *ps,
			       const struct pstripe_hello *msgs)
{
	struct pstripe_addr laddr[PSOCK_ADDR_MAX];
	int ifindex[1 + PSOCK_ADDR_MAX] = { };
	struct sockaddr_storage *dst, *src;
	struct sock *sk = ps_sk(ps);
	int i, ndst, nsrc, dlen, slen, err;

	/* dst[1 + PSOCK_ADDR_MAX], then src[1 + PSOCK_ADDR_MAX] */
	dst = kcalloc(2 * (1 + PSOCK_ADDR_MAX), sizeof(*dst), GFP_KERNEL);
	if (!dst)
		return -ENOMEM;
	src = dst + 1 + PSOCK_ADDR_MAX;
	err = pstripe_data_addrs(ps, msgs, dst, &dlen);
	if (err < 0)
		goto out;
	ndst = err;
	err = kernel_getsockname(ps->sf[0]->sock, (struct sockaddr *)&src[0]);
	if (err < 0)
		goto out;
	slen = err;
	nsrc = 1 + pstripe_local_addrs(ps, ps->sf[0],
				       PSOCK_ENDPOINT_FLAGS_SUBFLOW,
				       laddr, &ifindex[1]);
	/* Source addresses: any port. */
	pstripe_addr_to_ss(sk, 0, NULL, 0, &src[0]);
	for (i = 1; i < nsrc; i++) {
		src[i] = src[0];
		pstripe_addr_to_ss(sk, laddr[i - 1].family, laddr[i - 1].addr,
				   0, &src[i]);
	}

	for (i = 1; i < ps->stream_cnt; i++) {
		struct pstripe_subflow *sf = pstripe_sf_create(sk, i, &err);
		int d = i % ndst, s = i % nsrc;

		if (!sf)
			goto out;
		ps->sf[i] = sf;
		ps->nsf = i + 1;
		pstripe_mib_inc(sock_net(sk), PSTRIPE_MIB_SUBFLOWS_OPENED);
		pstripe_route_set(sf, &dst[d], &src[s], dlen, ifindex[s],
				  nsrc > 1 || !d);
		/*
		 * A subflow that cannot be bound or connected stays closed:
		 * the join step abandons it, the others go on.
		 */
		err = 0;
		if (ifindex[s])
			err = sock_bindtoindex(sf->sock->sk, ifindex[s], true);
		/* s is 0 when the client has no addresses of its own. */
		if (!err && (nsrc > 1 || !d))
			err = kernel_bind(sf->sock,
					  (struct sockaddr_unsized *)&src[s],
					  slen);
		if (!err)
			kernel_connect(sf->sock,
				       (struct sockaddr_unsized *)&dst[d],
				       dlen, O_NONBLOCK);
	}
	err = 0;
out:
	kfree(dst);
	return err;
}

/* An address message must name an address of the socket's family. */
bool pstripe_addr_msg_sane(struct pstripe_sock *ps,
			   const struct pstripe_hello *m, int index)
{
	if (!pstripe_hello_prefix((const u8 *)m, sizeof(*m), PSTRIPE_MSG_ADDR) ||
	    m->index != index)
		return false;
	if (m->family == 4)
		return true;
	return m->family == 6 && ps_sk(ps)->sk_family == AF_INET6;
}

/* ---- opening dead subflows again (client) ---- */

/* Dead @sf's slot: its next try is armed; true when it is due. */
static bool pstripe_rejoin_due(struct pstripe_subflow *sf,
			       unsigned long *next)
{
	if (!sf->retry_armed) {
		sf->retry_at = jiffies +
			min_t(unsigned long,
			      PSTRIPE_REJOIN_FIRST << min_t(int, sf->retries, 6),
			      PSTRIPE_REJOIN_MAX);
		sf->retry_armed = true;
	}
	if (time_after_eq(jiffies, sf->retry_at))
		return true;
	if (!*next || time_before(sf->retry_at, *next))
		*next = sf->retry_at;
	return false;
}

static void pstripe_rejoin_failed(struct pstripe_subflow *dead)
{
	if (dead->retries < U8_MAX)
		dead->retries++;
	dead->retry_armed = false;
}

/* A new TCP connection along dead subflow @slot's route. */
static void pstripe_rejoin_start(struct pstripe_sock *ps, int slot)
{
	struct pstripe_subflow *dead = ps->sf[slot], *sf;
	const struct pstripe_route *rt = &dead->route;
	struct sock *sk = ps_sk(ps);
	int err;

	sf = pstripe_sf_create(sk, dead->index, &err);
	if (!sf) {
		pstripe_rejoin_failed(dead);
		return;
	}
	err = 0;
	if (rt->ifindex)
		err = sock_bindtoindex(sf->sock->sk, rt->ifindex, true);
	if (!err && rt->bind)
		err = kernel_bind(sf->sock, (struct sockaddr_unsized *)&rt->src,
				  rt->alen);
	if (!err)
		err = kernel_connect(sf->sock,
				     (struct sockaddr_unsized *)&rt->dst,
				     rt->alen, O_NONBLOCK);
	if (err && err != -EINPROGRESS) {
		pstripe_sf_free(sf);
		pstripe_rejoin_failed(dead);
		return;
	}
	pstripe_mib_inc(sock_net(sk), PSTRIPE_MIB_SUBFLOWS_OPENED);
	ps->rj_slot = slot;
	WRITE_ONCE(ps->rj_sf, sf);
	ps->rj_deadline = jiffies + pstripe_join_wait_jiffies(sk);
}

/*
 * The try in progress: connected, its rejoin sent and acknowledged in
 * time (pstripe_join_progress(), as a join's), into the slot; or not, and
 * reset (never closed with a FIN, which a server that saw nothing of it
 * yet would take for a plain client's end of stream).
 */
static void pstripe_rejoin_step(struct pstripe_sock *ps)
{
	struct pstripe_subflow *sf = ps->rj_sf, *dead = ps->sf[ps->rj_slot];
	struct pstripe_hello h;
	unsigned long by;

	pstripe_join_fill(ps, &h, PSTRIPE_MSG_REJOIN, ps->rj_slot);
	switch (pstripe_join_progress(sf, &h, ps->rj_deadline, &by)) {
	case PSTRIPE_JOIN_WAIT:
		pstripe_schedule_by(ps, time_after(by, jiffies) ?
				    by - jiffies : 1);
		return;
	case PSTRIPE_JOIN_DONE:
		WRITE_ONCE(ps->rj_sf, NULL);
		pstripe_sf_replace(ps, ps->rj_slot, sf);
		return;
	}
	WRITE_ONCE(ps->rj_sf, NULL);
	sock_no_linger(sf->sock->sk);
	pstripe_sf_free(sf);
	pstripe_rejoin_failed(dead);
}

/**
 * pstripe_pm_work() - open dead subflows again, one at a time
 * @ps: a client's established striped connection, its lock held
 *
 * Not once the connection failed (no subflow left, none awaited), nor
 * once our end of the stream is sent (shutdown(), close()): what is left
 * goes on the subflows there are.
 */
void pstripe_pm_work(struct pstripe_sock *ps)
{
	unsigned long next = 0;
	int i;

	sock_owned_by_me(ps_sk(ps));
	if (pstripe_failed(ps) || ps->snd_fin || ps->bg_close) {
		pstripe_pm_stop(ps);
		return;
	}
	if (ps->rj_sf) {
		pstripe_rejoin_step(ps);
		if (ps->rj_sf)
			return;
	}
	for (i = 0; i < ps->nsf; i++) {
		struct pstripe_subflow *sf = ps->sf[i];

		if (!sf || pstripe_sf_live(sf) || !sf->route.alen ||
		    !pstripe_rejoin_due(sf, &next))
			continue;
		pstripe_rejoin_start(ps, i);
		if (ps->rj_sf) {
			pstripe_schedule_by(ps, ps->rj_deadline - jiffies);
			return;
		}
		pstripe_rejoin_due(sf, &next);
	}
	if (next)
		pstripe_schedule_by(ps, next - jiffies);
}

/*
 * ---- crossing verdicts ----
 *
 * When opposite directions of different paths stall at once (our data
 * lost on one, the peer's on another), each end sees its own data stuck
 * on a subflow while another works, declares it dead and resets it; the
 * other end then loses the subflow it still used to that reset, and with
 * both verdicts, either end may lose its last one.  A reset is all the
 * peer says, so an end whose last subflow was reset by the peer within
 * two stale timeouts of a stale verdict of its own takes it for that
 * crossing: it waits two stale timeouts for a rejoin (the client opens
 * its dead slots again as after any failure, the server takes them)
 * before it fails with ECONNRESET.  A peer that aborted right after such
 * a verdict costs that wait.  Not when no rejoin can come: the client's
 * end of the stream is sent (it opens nothing more), or the server has
 * read it.
 */

/* Does the client open dead slots again (any remembered route)? */
static bool pstripe_pm_reopens(const struct pstripe_sock *ps)
{
	int i;

	for (i = 0; i < ps->nsf; i++)
		if (ps->sf[i] && ps->sf[i]->route.alen)
			return true;
	return false;
}

/**
 * pstripe_limbo_enter() - wait for a rejoin instead of failing?
 * @ps: an established striped connection, its lock held
 * @err: the error of its last live subflow, about to be reset
 *
 * Return: true when the connection waits (@rj_limbo set, the work
 *	scheduled for its end), false when it fails with the subflow.
 */
bool pstripe_limbo_enter(struct pstripe_sock *ps, int err)
{
	unsigned long wait = 2 * pstripe_stale_jiffies(ps_sk(ps));

	sock_owned_by_me(ps_sk(ps));
	if (err != -ECONNRESET || !ps->stale_kill_at ||
	    time_after(jiffies, ps->stale_kill_at + wait) || ps->closing ||
	    ps_sk(ps)->sk_state != TCP_ESTABLISHED || ps->fallback)
		return false;
	if (pstripe_pm_reopens(ps) ? ps->snd_fin || ps->bg_close :
				     ps->rcv_fin_known)
		return false;
	ps->rj_limbo_end = jiffies + wait;
	WRITE_ONCE(ps->rj_limbo, true);
	pstripe_schedule_by(ps, wait);
	return true;
}

/*
 * The work: a connection waiting for a rejoin (pstripe_limbo_enter())
 * that got none in time fails, as it would have with its last subflow.
 */
void pstripe_limbo_check(struct pstripe_sock *ps)
{
	sock_owned_by_me(ps_sk(ps));
	if (!ps->rj_limbo)
		return;
	if (ps->nlive) {
		WRITE_ONCE(ps->rj_limbo, false);
		return;
	}
	if (time_before(jiffies, ps->rj_limbo_end)) {
		pstripe_schedule_by(ps, ps->rj_limbo_end - jiffies);
		return;
	}
	WRITE_ONCE(ps->rj_limbo, false);
	pstripe_pm_stop(ps);
	pstripe_fail(ps, -ECONNRESET);
	pstripe_wake(ps_sk(ps));
}

/* ---- subflows that rejoin (server) ---- */

/**
 * pstripe_rejoin_queue() - hand a subflow that rejoined to its connection
 * @ps: the connection (a reference held), not locked
 * @sf: the subflow, its owner @ps already; @sf->index is the slot asked
 *
 * Context: a listener's work, under the listener's lock.
 * Return: true once queued, false if @ps is torn down or has as many
 *	waiting as it has slots (the caller resets @sf).
 */
bool pstripe_rejoin_queue(struct pstripe_sock *ps, struct pstripe_subflow *sf)
{
	bool ok;

	spin_lock_bh(&ps->rj_lock);
	ok = !ps->rj_closed && ps->rj_len < PSOCK_STREAM_CNT_LIMIT;
	if (ok) {
		list_add_tail(&sf->node, &ps->rj_q);
		ps->rj_len++;
	}
	spin_unlock_bh(&ps->rj_lock);
	if (ok)
		pstripe_kick(ps);
	return ok;
}

static void pstripe_rejoin_refuse(struct pstripe_sock *ps,
				  struct pstripe_subflow *sf)
{
	pstripe_mib_inc(sock_net(ps_sk(ps)), PSTRIPE_MIB_HANDSHAKE_FAILS);
	pstripe_mib_inc(sock_net(ps_sk(ps)), PSTRIPE_MIB_JOINS_REFUSED);
	sock_no_linger(sf->sock->sk);
	pstripe_sf_free(sf);
}

/*
 * Does the rejoin @sf name the subflow in its slot @old: the client port
 * it came from?  A client numbers its slots as the server does only if
 * both kept the same subflows at set-up; one that thinks a join made it
 * which the server gave up on numbers the rest differently, and its
 * rejoin must not reset a healthy subflow that has the position it names.
 * No port: a client that predates the check.
 */
static bool pstripe_rejoin_names(const struct pstripe_subflow *sf,
				 const struct pstripe_subflow *old)
{
	return !sf->ports[1] || sf->ports[1] == old->ports[1];
}

/*
 * Server, established: the subflows that rejoined take their slots.  A
 * slot out of range or held by a subflow of another client port, or a
 * connection that failed (nothing left to rejoin), gets a reset.
 */
void pstripe_rejoin_take(struct pstripe_sock *ps)
{
	struct pstripe_subflow *sf, *tmp;
	LIST_HEAD(q);

	sock_owned_by_me(ps_sk(ps));
	spin_lock_bh(&ps->rj_lock);
	list_splice_init(&ps->rj_q, &q);
	ps->rj_len = 0;
	spin_unlock_bh(&ps->rj_lock);
	list_for_each_entry_safe(sf, tmp, &q, node) {
		int i = sf->index;

		list_del_init(&sf->node);
		if (i >= ps->nsf || !ps->sf[i] || pstripe_failed(ps) ||
		    !pstripe_rejoin_names(sf, ps->sf[i]) ||
		    pstripe_sf_state(sf) != TCP_ESTABLISHED) {
			pstripe_rejoin_refuse(ps, sf);
			continue;
		}
		pstripe_sf_retire(ps, i);
		pstripe_sf_replace(ps, i, sf);
		pstripe_mib_inc(sock_net(ps_sk(ps)),
				PSTRIPE_MIB_SUBFLOWS_JOINED);
	}
}

/*
 * The connection is torn down (its lock held): the try in progress is
 * dropped, and so are the subflows that rejoined and wait; none comes
 * any more.
 */
void pstripe_pm_stop(struct pstripe_sock *ps)
{
	struct pstripe_subflow *sf, *tmp;
	LIST_HEAD(q);

	if (ps->rj_sf) {
		sock_no_linger(ps->rj_sf->sock->sk);
		pstripe_sf_free(ps->rj_sf);
		WRITE_ONCE(ps->rj_sf, NULL);
	}
	if (!ps->closing)
		return;
	pstripe_token_del(ps);
	spin_lock_bh(&ps->rj_lock);
	ps->rj_closed = true;
	list_splice_init(&ps->rj_q, &q);
	ps->rj_len = 0;
	spin_unlock_bh(&ps->rj_lock);
	list_for_each_entry_safe(sf, tmp, &q, node) {
		list_del_init(&sf->node);
		pstripe_rejoin_refuse(ps, sf);
	}
}
