// SPDX-License-Identifier: GPL-2.0
/*
 * sock_diag for IPPROTO_PSOCK (net/psock/diag.c), the request ss(8) makes
 * for MPTCP with INET_DIAG_REQ_PROTOCOL = IPPROTO_PSOCK:
 *
 *   dump: a listener and a 4-subflow connection (both ends) show with
 *         their states, ports, inodes and the subflows in INET_DIAG_INFO;
 *         the family, state and port filters work; one socket is found
 *         by its cookie; closed sockets go away.
 *   unprivileged: a user without CAP_NET_ADMIN sees the same sockets, the
 *         subflows' marks hidden as inet_diag hides TCP's.
 *   close_while_dumping: threads dump while others connect and close
 *         (a use after free shows on the debug kernel); DIAG_SECONDS long.
 */
#include <sys/stat.h>
#include <sys/wait.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>

#include "psock_lib.h"
#include "sock_diag_lib.h"
#include "kselftest_harness.h"

#define ST_ALL		0xfffU
#define ST_ESTAB	0x2U	/* 1 << TCP_ESTABLISHED */
#define ST_LISTEN	0x400U	/* 1 << TCP_LISTEN */
#define MAX_REC		256

struct rec {
	int		family, state;
	uint16_t	sport, dport;	/* host order */
	uint32_t	cookie[2], inode, uid;
	bool		has_info, has_mark;
	struct psock_info info;
	int		nsf;		/* entries that came */
	struct psock_subflow_info sf[PSOCK_STREAM_CNT_LIMIT];
};

static void parse(const struct nlmsghdr *h, struct rec *r)
{
	const struct inet_diag_msg *m = NLMSG_DATA(h);
	int len = h->nlmsg_len - NLMSG_LENGTH(sizeof(*m));
	const struct nlattr *a = (const void *)(m + 1);

	memset(r, 0, sizeof(*r));
	r->family = m->idiag_family;
	r->state = m->idiag_state;
	r->sport = ntohs(m->id.idiag_sport);
	r->dport = ntohs(m->id.idiag_dport);
	memcpy(r->cookie, m->id.idiag_cookie, sizeof(r->cookie));
	r->inode = m->idiag_inode;
	r->uid = m->idiag_uid;
	while (len >= (int)sizeof(*a) && a->nla_len >= sizeof(*a) &&
	       a->nla_len <= len) {
		size_t plen = a->nla_len - sizeof(*a);
		int type = a->nla_type & NLA_TYPE_MASK;

		if (type == INET_DIAG_MARK)
			r->has_mark = true;
		if (type == INET_DIAG_INFO && plen >= sizeof(r->info)) {
			r->has_info = true;
			memcpy(&r->info, a + 1, sizeof(r->info));
			if (r->info.size_user == sizeof(r->sf[0]))
				r->nsf = (plen - sizeof(r->info)) /
					 sizeof(r->sf[0]);
			if (r->nsf > PSOCK_STREAM_CNT_LIMIT)
				r->nsf = PSOCK_STREAM_CNT_LIMIT;
			memcpy(r->sf, (const char *)(a + 1) + sizeof(r->info),
			       r->nsf * sizeof(r->sf[0]));
		}
		len -= NLA_ALIGN(a->nla_len);
		a = (const void *)((const char *)a + NLA_ALIGN(a->nla_len));
	}
}

struct parse_out {
	struct rec	*out;
	int		n, max;
};

static void parse_one(const struct nlmsghdr *h, void *arg)
{
	struct parse_out *o = arg;

	if (o->n < o->max)
		parse(h, &o->out[o->n]);
	o->n++;
}

/*
 * A request for @family's PSOCK sockets in @states (a dump), or for the
 * one of @cookie (when not NULL); the records in @out.  The number of
 * records, or a negative errno.
 */
static int diag(int family, uint32_t states, uint16_t sport,
		const uint32_t *cookie, struct rec *out, int max)
{
	struct {
		struct nlmsghdr		nlh;
		struct inet_diag_req_v2	r;
		struct nlattr		ahdr;
		uint32_t		proto;
	} req = {
		.nlh.nlmsg_len = sizeof(req),
		.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY,
		.nlh.nlmsg_flags = NLM_F_REQUEST | (cookie ? 0 : NLM_F_DUMP),
		.r.sdiag_family = family,
		.r.sdiag_protocol = IPPROTO_RAW,
		.r.idiag_ext = 1 << (INET_DIAG_INFO - 1),
		.r.idiag_states = states,
		.r.id.idiag_sport = htons(sport),
		.ahdr.nla_len = NLA_HDRLEN + sizeof(uint32_t),
		.ahdr.nla_type = INET_DIAG_REQ_PROTOCOL,
		.proto = IPPROTO_PSOCK,
	};
	struct parse_out o = { .out = out, .max = max };
	int n;

	if (cookie)
		memcpy(req.r.id.idiag_cookie, cookie, 8);
	n = sock_diag_xchg(&req, sizeof(req), !!cookie, parse_one, &o);
	/* A lookup answers with a socket or an error, never an ack. */
	return cookie && !n ? -EPROTO : n;
}

static ino_t inode_of(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? 0 : st.st_ino;
}

static struct rec *find_inode(struct rec *r, int n, ino_t ino)
{
	for (int i = 0; i < n; i++)
		if (r[i].inode == ino)
			return &r[i];
	return NULL;
}

/* Both ends of @fd's connection have @n subflows up, within 10 s. */
static int wait_subflows(int fd, int c, unsigned int n)
{
	struct psock_info_buf b;

	for (int i = 0; i < 200; i++) {
		unsigned int x, y;

		if (psock_info(fd, &b))
			return -1;
		x = b.h.num;
		if (psock_info(c, &b))
			return -1;
		y = b.h.num;
		if (x == n && y == n)
			return 0;
		usleep(50000);
	}
	return -1;
}

/* A 4-subflow connection to a new listener on loopback. */
struct conn {
	int	lfd, fd, c, port;
};

static int conn_open(struct conn *k, int family, int nsf)
{
	char b[1000];

	memset(b, 'd', sizeof(b));
	k->lfd = lo_listen(family, IPPROTO_PSOCK, &k->port);
	if (k->lfd < 0)
		return -1;
	k->fd = socket(family, SOCK_STREAM, IPPROTO_PSOCK);
	if (k->fd < 0 || psock_opts(k->fd, nsf, nsf, -1) ||
	    lo_connect(k->fd, family, k->port))
		return -1;
	k->c = accept(k->lfd, NULL, NULL);
	if (k->c < 0)
		return -1;
	if (send(k->fd, b, sizeof(b), 0) != sizeof(b) ||
	    recv(k->c, b, sizeof(b), MSG_WAITALL) != sizeof(b))
		return -1;
	return wait_subflows(k->fd, k->c, nsf);
}

static struct rec recs[MAX_REC];

TEST(dump)
{
	struct rec one, *l, *cl, *sv;
	struct conn k;
	int n, l6, p6, i;

	ASSERT_EQ(0, netns_lo());
	ASSERT_EQ(0, conn_open(&k, AF_INET, 4));

	n = diag(AF_INET, ST_ALL, 0, NULL, recs, MAX_REC);
	ASSERT_EQ(3, n);
	l = find_inode(recs, n, inode_of(k.lfd));
	cl = find_inode(recs, n, inode_of(k.fd));
	sv = find_inode(recs, n, inode_of(k.c));
	ASSERT_TRUE(l && cl && sv);
	EXPECT_EQ(10, l->state);
	EXPECT_EQ(k.port, l->sport);
	EXPECT_EQ(0, l->dport);
	EXPECT_EQ(1, cl->state);
	EXPECT_EQ(k.port, cl->dport);
	EXPECT_EQ(sock_port(k.fd), cl->sport);
	EXPECT_EQ(1, sv->state);
	EXPECT_EQ(k.port, sv->sport);
	EXPECT_EQ(sock_port(k.fd), sv->dport);
	EXPECT_EQ(AF_INET, cl->family);
	EXPECT_EQ(getuid(), cl->uid);

	/* INET_DIAG_INFO: PSOCK_INFO's answer, every subflow's entry. */
	ASSERT_TRUE(cl->has_info && sv->has_info);
	EXPECT_EQ(4, cl->info.num);
	EXPECT_EQ(4, cl->info.stream_cnt);
	EXPECT_TRUE(cl->info.flags & PSOCK_INFO_ESTABLISHED);
	ASSERT_EQ(4, cl->nsf);
	ASSERT_EQ(4, sv->nsf);
	EXPECT_EQ(0, l->info.num);
	EXPECT_EQ(0, cl->sf[0].index);
	EXPECT_EQ(sock_port(k.fd), cl->sf[0].local_port);
	for (i = 0; i < 4; i++) {
		EXPECT_EQ(1, cl->sf[i].state);
		EXPECT_EQ(AF_INET, cl->sf[i].family);
		EXPECT_EQ(k.port, cl->sf[i].remote_port);
		EXPECT_EQ(k.port, sv->sf[i].local_port);
	}
	EXPECT_LT(1000, cl->sf[0].bytes_sent + cl->sf[1].bytes_sent +
			cl->sf[2].bytes_sent + cl->sf[3].bytes_sent);

	/* Filters: family, states, source port. */
	EXPECT_EQ(0, diag(AF_INET6, ST_ALL, 0, NULL, recs, MAX_REC));
	n = diag(AF_INET, ST_LISTEN, 0, NULL, recs, MAX_REC);
	ASSERT_EQ(1, n);
	EXPECT_EQ(inode_of(k.lfd), recs[0].inode);
	EXPECT_EQ(2, diag(AF_INET, ST_ESTAB, 0, NULL, recs, MAX_REC));
	EXPECT_EQ(2, diag(AF_INET, ST_ALL, k.port, NULL, recs, MAX_REC));
	l6 = lo_listen(AF_INET6, IPPROTO_PSOCK, &p6);
	ASSERT_LE(0, l6);
	n = diag(AF_INET6, ST_ALL, 0, NULL, recs, MAX_REC);
	ASSERT_EQ(1, n);
	EXPECT_EQ(AF_INET6, recs[0].family);
	EXPECT_EQ(p6, recs[0].sport);
	EXPECT_EQ(3, diag(AF_INET, ST_ALL, 0, NULL, recs, MAX_REC));

	/* One socket by its cookie; none for a wrong one or no cookie. */
	n = diag(AF_INET, ST_ALL, 0, NULL, recs, MAX_REC);
	cl = find_inode(recs, n, inode_of(k.fd));
	ASSERT_TRUE(cl);
	ASSERT_EQ(1, diag(AF_INET, ST_ALL, 0, cl->cookie, &one, 1));
	EXPECT_EQ(inode_of(k.fd), one.inode);
	EXPECT_EQ(4, one.nsf);
	cl->cookie[0] ^= 0x5a5a;
	EXPECT_EQ(-ENOENT, diag(AF_INET, ST_ALL, 0, cl->cookie, &one, 1));
	cl->cookie[0] = INET_DIAG_NOCOOKIE;
	cl->cookie[1] = INET_DIAG_NOCOOKIE;
	EXPECT_EQ(-EINVAL, diag(AF_INET, ST_ALL, 0, cl->cookie, &one, 1));

	/* Closed: gone once finished (their blocks were all acknowledged). */
	close(k.fd);
	close(k.c);
	close(k.lfd);
	for (i = 0; i < 100; i++) {
		n = diag(AF_INET, ST_ALL, 0, NULL, recs, MAX_REC);
		if (n == 0)
			break;
		usleep(50000);
	}
	EXPECT_EQ(0, n);
	EXPECT_EQ(1, diag(AF_INET6, ST_ALL, 0, NULL, recs, MAX_REC));
	close(l6);
	EXPECT_EQ(0, diag(AF_INET6, ST_ALL, 0, NULL, recs, MAX_REC));
}

TEST(unprivileged)
{
	struct conn k;
	int mark = 42, status, n;
	struct rec *cl;
	pid_t pid;

	ASSERT_EQ(0, netns_lo());
	ASSERT_EQ(0, conn_open(&k, AF_INET, 2));
	ASSERT_EQ(0, setsockopt(k.fd, SOL_SOCKET, SO_MARK, &mark,
				sizeof(mark)));
	/* The mark reaches the subflows with the next call that syncs. */
	ASSERT_EQ(1, send(k.fd, "x", 1, 0));

	n = diag(AF_INET, ST_ALL, 0, NULL, recs, MAX_REC);
	ASSERT_EQ(3, n);
	cl = find_inode(recs, n, inode_of(k.fd));
	ASSERT_TRUE(cl);
	EXPECT_TRUE(cl->has_mark);
	ASSERT_EQ(2, cl->nsf);
	EXPECT_EQ(42, cl->sf[0].mark);

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* nobody: no capability left, the same namespace. */
		if (setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(10);
		n = diag(AF_INET, ST_ALL, 0, NULL, recs, MAX_REC);
		if (n != 3)
			_exit(11);
		cl = find_inode(recs, n, inode_of(k.fd));
		if (!cl || cl->nsf != 2)
			_exit(12);
		if (cl->has_mark || cl->sf[0].mark || cl->sf[1].mark)
			_exit(13);
		if (cl->sf[0].remote_port != k.port)
			_exit(14);
		n = diag(AF_INET, ST_ALL, 0, cl->cookie, recs, 1);
		if (n != 1 || recs[0].sf[0].mark)
			_exit(15);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	close(k.fd);
	close(k.c);
	close(k.lfd);
}

/* ---- close while dumping ---- */

static int stop;	/* __atomic: set by the main thread */
static int churn_port;

static void *dumper(void *arg)
{
	struct rec *r = malloc(16 * sizeof(*r));
	long bad = 0;

	(void)arg;
	while (r && !__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		int n = diag(AF_INET, ST_ALL, 0, NULL, r, 16);

		if (n < 0)
			bad++;
		/* The last one may be gone already: ENOENT is fine. */
		if (n > 0)
			diag(AF_INET, ST_ALL, 0, r[(n > 16 ? 16 : n) - 1].cookie,
			     r, 1);
	}
	free(r);
	return (void *)(r ? bad : 1);
}

static void *churner(void *arg)
{
	long bad = 0;

	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		int fd = socket(AF_INET, SOCK_STREAM, IPPROTO_PSOCK);

		if (fd < 0 || psock_opts(fd, 2, 2, -1) ||
		    lo_connect(fd, AF_INET, churn_port))
			bad++;
		if (fd >= 0)
			close(fd);
	}
	return (void *)bad;
}

static void *acceptor(void *arg)
{
	int lfd = *(int *)arg;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		int c = accept(lfd, NULL, NULL);

		if (c >= 0)
			close(c);
	}
	return NULL;
}

TEST(close_while_dumping)
{
	const char *s = getenv("DIAG_SECONDS");
	pthread_t d[2], ch[2], ac;
	int lfd, secs = s ? atoi(s) : 3;
	void *ret;
	long bad = 0;

	ASSERT_EQ(0, netns_lo());
	lfd = lo_listen(AF_INET, IPPROTO_PSOCK, &churn_port);
	ASSERT_LE(0, lfd);
	ASSERT_EQ(0, pthread_create(&ac, NULL, acceptor, &lfd));
	for (int i = 0; i < 2; i++) {
		ASSERT_EQ(0, pthread_create(&d[i], NULL, dumper, NULL));
		ASSERT_EQ(0, pthread_create(&ch[i], NULL, churner, NULL));
	}
	sleep(secs);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < 2; i++) {
		pthread_join(d[i], &ret);
		EXPECT_EQ(0, (long)ret);
		pthread_join(ch[i], &ret);
		bad += (long)ret;
	}
	/* Wake the acceptor: one more connection. */
	{
		int fd = socket(AF_INET, SOCK_STREAM, IPPROTO_TCP);

		lo_connect(fd, AF_INET, churn_port);
		pthread_join(ac, NULL);
		close(fd);
	}
	EXPECT_EQ(0, bad);
	close(lfd);
	/* Everything goes away: no socket left behind by the dumps. */
	for (int i = 0; i < 200; i++) {
		if (diag(AF_INET, ST_ALL, 0, NULL, recs, MAX_REC) == 0)
			break;
		usleep(50000);
	}
	EXPECT_EQ(0, diag(AF_INET, ST_ALL, 0, NULL, recs, MAX_REC));
}

TEST_HARNESS_MAIN
