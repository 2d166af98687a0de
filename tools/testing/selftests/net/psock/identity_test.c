// SPDX-License-Identifier: GPL-2.0
/*
 * Every subflow carries its PSOCK socket's identity, as MPTCP's subflows
 * carry their socket's (Documentation/psock.rst, "Subflows are the
 * application's"): the uid, the cgroup and the LSM label of the socket,
 * not those of the socket's work (a kworker: uid 0, the root cgroup) nor
 * those of whoever called bind(), listen() or connect(); sock_diag shows
 * each subflow with its socket's inode and owner.
 *
 *   diag:      client and listener made by other uids in cgroups of their
 *              own, set up from the root cgroup as uid 0, accepted as a
 *              third uid: each TCP subflow in sock_diag has its socket's
 *              inode and owner (the acceptor for accepted subflows, as
 *              for an accepted TCP socket), and its socket's cgroup (the
 *              listener's for accepted subflows, as TCP's clones).
 *   uid_rule:  a routing rule prohibits the server's port to every uid but
 *              the client's: all subflows join (before, the data subflows
 *              the work opened were uid 0's and were refused); a socket of
 *              uid 0 gets EACCES, which shows the rule works.
 *   rejoin:    a data subflow destroyed (SOCK_DESTROY) is opened again by
 *              the work under the same rule, and the new one, on both
 *              ends, has the same identity; the client's cgroup was
 *              removed before (the socket keeps it, and so does the new
 *              subflow: KASAN on the debug kernel).
 *   churn:     two processes make, connect and close sockets whose cgroups
 *              were removed right after socket(), for 3 s (60 s with
 *              LONG=1): the cgroup references the subflows take and drop
 *              balance (the debug kernel's detectors).
 *   memcg:     1 MiB the client has not read is socket memory ("sock" of
 *              memory.stat) of the memory cgroup the client's socket was
 *              made in, though it connected from the root cgroup.
 *
 * Each test runs in its own netns on loopback, with 4 subflows.
 */
#include <fcntl.h>
#include <poll.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <linux/inet_diag.h>

#include "psock_lib.h"
#include "sock_diag_lib.h"
#include "kselftest_harness.h"

#define NSF		4
#define CG_ROOT		"/sys/fs/cgroup"
#define UID_CLIENT	4321
#define UID_LISTENER	4322
#define UID_ACCEPTOR	4323

#ifndef INET_DIAG_CGROUP_ID
#define INET_DIAG_CGROUP_ID	21
#endif

/* One TCP socket as sock_diag shows it. */
struct tcp_rec {
	bool		found, has_cgroup;
	uint32_t	uid, inode;
	uint64_t	cgroup;
};

static void tcp_parse(const struct nlmsghdr *h, struct tcp_rec *r)
{
	const struct inet_diag_msg *m = NLMSG_DATA(h);
	int len = h->nlmsg_len - NLMSG_LENGTH(sizeof(*m));
	const struct nlattr *a = (const void *)(m + 1);

	r->found = true;
	r->uid = m->idiag_uid;
	r->inode = m->idiag_inode;
	while (len >= (int)sizeof(*a) && a->nla_len >= sizeof(*a) &&
	       a->nla_len <= len) {
		if ((a->nla_type & NLA_TYPE_MASK) == INET_DIAG_CGROUP_ID &&
		    a->nla_len >= NLA_HDRLEN + sizeof(uint64_t)) {
			memcpy(&r->cgroup, a + 1, sizeof(r->cgroup));
			r->has_cgroup = true;
		}
		len -= NLA_ALIGN(a->nla_len);
		a = (const void *)((const char *)a + NLA_ALIGN(a->nla_len));
	}
}

struct tcp_find {
	uint16_t	sport, dport;
	struct tcp_rec	*r;
};

static void tcp_match(const struct nlmsghdr *h, void *arg)
{
	const struct inet_diag_msg *m = NLMSG_DATA(h);
	struct tcp_find *f = arg;

	if (ntohs(m->id.idiag_sport) == f->sport &&
	    ntohs(m->id.idiag_dport) == f->dport)
		tcp_parse(h, f->r);
}

/*
 * The TCP socket of @family with local port @sport and remote port @dport
 * (a dump of the netns's TCP sockets), or with @destroy, SOCK_DESTROY of
 * it (its addresses @src, @dst, as PSOCK_INFO gives them); 0 or -errno.
 */
static int tcp_diag(int family, uint16_t sport, uint16_t dport,
		    const uint8_t *src, const uint8_t *dst, bool destroy,
		    struct tcp_rec *r)
{
	struct {
		struct nlmsghdr		nlh;
		struct inet_diag_req_v2	r;
	} req = {
		.nlh.nlmsg_len = sizeof(req),
		.nlh.nlmsg_type = destroy ? SOCK_DESTROY : SOCK_DIAG_BY_FAMILY,
		.nlh.nlmsg_flags = NLM_F_REQUEST |
				   (destroy ? NLM_F_ACK : NLM_F_DUMP),
		.r.sdiag_family = family,
		.r.sdiag_protocol = IPPROTO_TCP,
		.r.idiag_states = 0xfff,
		.r.id.idiag_sport = htons(sport),
		.r.id.idiag_dport = htons(dport),
		.r.id.idiag_cookie = { INET_DIAG_NOCOOKIE, INET_DIAG_NOCOOKIE },
	};
	struct tcp_find f = { .sport = sport, .dport = dport, .r = r };
	int n;

	if (destroy) {
		size_t alen = family == AF_INET ? 4 : 16;

		memcpy(req.r.id.idiag_src, src, alen);
		memcpy(req.r.id.idiag_dst, dst, alen);
	}
	memset(r, 0, sizeof(*r));
	n = sock_diag_xchg(&req, sizeof(req), false, tcp_match, &f);
	return n < 0 ? n : 0;
}

/* ---- cgroups and credentials ---- */

static int cg_write(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	int err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		err = -errno;
	close(fd);
	return err;
}

/* Move the caller into cgroup directory @dir. */
static int cg_enter(const char *dir)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	return cg_write(path, "0");
}

/* A cgroup's id, as sock_diag and cgroup-bpf give it: its inode number. */
static uint64_t cg_id(const char *dir)
{
	struct stat st;

	return stat(dir, &st) ? 0 : st.st_ino;
}

static uint32_t inode_of(int fd, uint32_t *uid)
{
	struct stat st;

	if (fstat(fd, &st))
		return 0;
	*uid = st.st_uid;
	return st.st_ino;
}

/* socket() made by @uid in cgroup @cg; the caller then back to the root. */
static int socket_as(int family, uid_t uid, const char *cg)
{
	int fd, err;

	if (cg_enter(cg))
		return -1;
	setfsuid(uid);
	fd = socket(family, SOCK_STREAM, IPPROTO_PSOCK);
	err = errno;
	setfsuid(0);
	if (cg_enter(CG_ROOT) && fd >= 0) {
		close(fd);
		return -1;
	}
	errno = err;
	return fd;
}

/* The subflows of @fd up and established: @n of them, within 15 s. */
static int wait_established(int fd, unsigned int n,
			    struct psock_info_buf *b)
{
	for (int t = 0; t < 300; t++) {
		unsigned int up = 0;

		if (psock_info(fd, b))
			return -1;
		for (unsigned int i = 0; i < b->h.num; i++)
			up += b->sf[i].state == 1;
		if (up == n && b->h.num == n)
			return 0;
		usleep(50000);
	}
	return -1;
}

FIXTURE(ident)
{
	char cg_cli[128], cg_lis[128];
	int lfd, port;
};

FIXTURE_VARIANT(ident)
{
	int family;
	const char *ip;
};

FIXTURE_VARIANT_ADD(ident, v4)
{
	.family = AF_INET,
	.ip = "ip -4",
};

FIXTURE_VARIANT_ADD(ident, v6)
{
	.family = AF_INET6,
	.ip = "ip -6",
};

FIXTURE_SETUP(ident)
{
	struct sockaddr_storage ss;
	socklen_t len;

	self->lfd = -1;
	if (access(CG_ROOT "/cgroup.procs", W_OK))
		SKIP(return, "no writable cgroup v2 at " CG_ROOT);
	ASSERT_EQ(0, netns_lo());
	/* The memory test's: before the cgroups are made. */
	cg_write(CG_ROOT "/cgroup.subtree_control", "+memory");
	snprintf(self->cg_cli, sizeof(self->cg_cli), CG_ROOT "/psock_cli_%d",
		 getpid());
	snprintf(self->cg_lis, sizeof(self->cg_lis), CG_ROOT "/psock_lis_%d",
		 getpid());
	ASSERT_EQ(0, mkdir(self->cg_cli, 0755));
	ASSERT_EQ(0, mkdir(self->cg_lis, 0755));

	/* Made by UID_LISTENER in its cgroup; bound and listening by root. */
	self->lfd = socket_as(variant->family, UID_LISTENER, self->cg_lis);
	ASSERT_LE(0, self->lfd);
	ASSERT_EQ(0, psock_opts(self->lfd, NSF, NSF, -1));
	len = lo_addr(variant->family, 0, &ss);
	ASSERT_EQ(0, bind(self->lfd, (struct sockaddr *)&ss, len));
	ASSERT_EQ(0, listen(self->lfd, 8));
	self->port = sock_port(self->lfd);
}

FIXTURE_TEARDOWN(ident)
{
	if (self->lfd >= 0)
		close(self->lfd);
	cg_enter(CG_ROOT);
	rmdir(self->cg_cli);
	rmdir(self->cg_lis);
}

/* A client of UID_CLIENT's in its cgroup, connected by root. */
static int client(struct __test_metadata *_metadata, const char *cg,
		  int family)
{
	int fd = socket_as(family, UID_CLIENT, cg);

	EXPECT_LE(0, fd);
	if (fd < 0)
		return -1;
	EXPECT_EQ(0, psock_opts(fd, NSF, NSF, -1));
	return fd;
}

/* accept() by UID_ACCEPTOR, and one byte each way. */
static int accept_as(struct __test_metadata *_metadata, int lfd, int fd)
{
	char b = 'x';
	int c;

	setfsuid(UID_ACCEPTOR);
	c = accept(lfd, NULL, NULL);
	setfsuid(0);
	EXPECT_LE(0, c);
	if (c < 0)
		return -1;
	EXPECT_EQ(1, send(fd, &b, 1, 0));
	EXPECT_EQ(1, recv(c, &b, 1, MSG_WAITALL));
	EXPECT_EQ(1, send(c, &b, 1, 0));
	EXPECT_EQ(1, recv(fd, &b, 1, MSG_WAITALL));
	return c;
}

/* Each subflow of @fd in sock_diag: @fd's inode and owner, cgroup @cg. */
static void check_subflows(struct __test_metadata *_metadata, int fd,
			   int family, uint64_t cg)
{
	struct psock_info_buf b;
	uint32_t ino, uid = 0;

	ino = inode_of(fd, &uid);
	ASSERT_NE(0, ino);
	ASSERT_EQ(0, wait_established(fd, NSF, &b));
	for (unsigned int i = 0; i < b.h.num; i++) {
		const struct psock_subflow_info *si = &b.sf[i];
		struct tcp_rec r;

		ASSERT_EQ(0, tcp_diag(family, si->local_port, si->remote_port,
				      NULL, NULL, false, &r));
		ASSERT_TRUE(r.found);
		TH_LOG("subflow %u (%u -> %u): uid %u inode %u cgroup %llu",
		       si->index, si->local_port, si->remote_port, r.uid,
		       r.inode, (unsigned long long)r.cgroup);
		EXPECT_EQ(uid, r.uid);
		EXPECT_EQ(ino, r.inode);
		/* Every target kernel has CONFIG_SOCK_CGROUP_DATA. */
		ASSERT_TRUE(r.has_cgroup);
		EXPECT_EQ(cg, r.cgroup);
	}
}

TEST_F_TIMEOUT(ident, diag, 120)
{
	int fd, c;

	fd = client(_metadata, self->cg_cli, variant->family);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, lo_connect(fd, variant->family, self->port));
	c = accept_as(_metadata, self->lfd, fd);
	ASSERT_LE(0, c);
	check_subflows(_metadata, fd, variant->family, cg_id(self->cg_cli));
	/* Accepted subflows are the listener's clones: its cgroup. */
	check_subflows(_metadata, c, variant->family, cg_id(self->cg_lis));
	close(c);
	close(fd);
}

/*
 * Only UID_CLIENT may route to the server's port: two rules before the
 * lookup of the local table, which comes first otherwise (this netns's
 * own rules; the loopback addresses are in the local table).
 */
static int uid_rule(const char *ip, int port)
{
	char prohibit[128], cmd[512];

	snprintf(prohibit, sizeof(prohibit), "prohibit ipproto tcp dport %d",
		 port);
	snprintf(cmd, sizeof(cmd),
		 "%s rule add pref 100 uidrange 0-%d %s && %s rule add pref 101 uidrange %d-%d %s && %s rule add pref 200 lookup local && %s rule del pref 0 lookup local",
		 ip, UID_CLIENT - 1, prohibit, ip, UID_CLIENT + 1, 1 << 30,
		 prohibit, ip, ip);
	return system(cmd);
}

TEST_F_TIMEOUT(ident, uid_rule, 120)
{
	struct psock_info_buf b;
	int fd, c;

	ASSERT_EQ(0, uid_rule(variant->ip, self->port));
	/* The rule bites: a socket of uid 0's cannot reach the port. */
	fd = socket(variant->family, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, lo_connect(fd, variant->family, self->port));
	EXPECT_EQ(EACCES, errno);
	close(fd);

	fd = client(_metadata, self->cg_cli, variant->family);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, lo_connect(fd, variant->family, self->port));
	c = accept_as(_metadata, self->lfd, fd);
	ASSERT_LE(0, c);
	EXPECT_EQ(0, wait_established(fd, NSF, &b));
	TH_LOG("%u subflows, %u negotiated", b.h.num, b.h.stream_cnt);
	EXPECT_EQ(NSF, b.h.stream_cnt);
	close(c);
	close(fd);
}

/* Subflow @index of @fd: its entry in @b, NULL if none. */
static const struct psock_subflow_info *
sf_entry(const struct psock_info_buf *b, unsigned int index)
{
	for (unsigned int i = 0; i < b->h.num; i++)
		if (b->sf[i].index == index)
			return &b->sf[i];
	return NULL;
}

TEST_F_TIMEOUT(ident, rejoin, 120)
{
	const struct psock_subflow_info *si;
	uint64_t cg_cli = cg_id(self->cg_cli);
	struct psock_info_buf b;
	uint16_t old_port;
	struct tcp_rec r;
	int fd, c, t;

	ASSERT_EQ(0, uid_rule(variant->ip, self->port));
	fd = client(_metadata, self->cg_cli, variant->family);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, lo_connect(fd, variant->family, self->port));
	c = accept_as(_metadata, self->lfd, fd);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, wait_established(fd, NSF, &b));
	/*
	 * The client's cgroup removed while its socket lives: the socket
	 * keeps it (offline), and so does the subflow opened again.
	 */
	ASSERT_EQ(0, rmdir(self->cg_cli));
	si = sf_entry(&b, 2);
	ASSERT_NE(NULL, si);
	old_port = si->local_port;
	ASSERT_EQ(0, tcp_diag(variant->family, si->local_port,
			      si->remote_port, si->local_addr,
			      si->remote_addr, true, &r));

	/* The work opens it again after 1 s (psock.rst, "Failover"). */
	for (t = 0; t < 300; t++) {
		ASSERT_EQ(0, psock_info(fd, &b));
		si = sf_entry(&b, 2);
		if (si && si->state == 1 && si->local_port != old_port)
			break;
		usleep(50000);
	}
	ASSERT_LT(t, 300);
	TH_LOG("subflow 2 again, port %u (was %u)", si->local_port, old_port);
	check_subflows(_metadata, fd, variant->family, cg_cli);
	check_subflows(_metadata, c, variant->family, cg_id(self->cg_lis));
	close(c);
	close(fd);
}

/* "sock" of memory.stat of cgroup @dir: bytes, -1 if none. */
static long long cg_sock(const char *dir)
{
	char path[300], key[64];
	long long v, found = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/memory.stat", dir);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fscanf(f, "%63s %lld", key, &v) == 2)
		if (!strcmp(key, "sock"))
			found = v;
	fclose(f);
	return found;
}

/*
 * What TCP keeps for the subflows is socket memory of the socket's memory
 * cgroup, as a TCP socket's is, whoever opened them.
 */
TEST_F_TIMEOUT(ident, memcg, 120)
{
	static char buf[1 << 20];
	long long sock = -1;
	ssize_t sent = 0;
	int fd, c, t;

	if (cg_sock(self->cg_cli) < 0)
		SKIP(return, "no memory controller");
	fd = client(_metadata, self->cg_cli, variant->family);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, lo_connect(fd, variant->family, self->port));
	c = accept_as(_metadata, self->lfd, fd);
	ASSERT_LE(0, c);
	EXPECT_EQ(0, cg_sock(self->cg_cli));
	/*
	 * Up to 1 MiB the client does not read, held by its subflows' TCP
	 * (and by its own queue: as much as the buffers take).
	 */
	memset(buf, 'm', sizeof(buf));
	while (sent < (ssize_t)sizeof(buf)) {
		struct pollfd p = { .fd = c, .events = POLLOUT };
		ssize_t n;

		if (poll(&p, 1, 2000) != 1)
			break;
		n = send(c, buf, sizeof(buf) - sent, MSG_DONTWAIT);
		if (n < 0 && errno != EAGAIN)
			break;
		if (n > 0)
			sent += n;
	}
	TH_LOG("%zd bytes sent", sent);
	EXPECT_LT(256 * 1024, sent);
	/* memory.stat is flushed every 2 s. */
	for (t = 0; t < 40 && sock <= 0; t++) {
		usleep(100000);
		sock = cg_sock(self->cg_cli);
	}
	TH_LOG("sock %lld bytes", sock);
	EXPECT_LT(64 * 1024, sock);
	close(c);
	close(fd);
}

/*
 * One process's churn for @secs: each round a new cgroup, a socket made
 * in it, the cgroup removed at once (the socket keeps it, offline), a
 * 4-subflow connection through a listener of its own, one byte each way,
 * both closed.  The number of rounds, or minus the step that failed.
 */
static int churn(int family, int secs, int id)
{
	time_t end = time(NULL) + secs;
	struct sockaddr_storage ss;
	socklen_t len = lo_addr(family, 0, &ss);
	char cg[128], b = 'c';
	int rounds = 0, lfd, port;

	lfd = socket(family, SOCK_STREAM, IPPROTO_PSOCK);
	if (lfd < 0 || psock_opts(lfd, NSF, NSF, -1) ||
	    bind(lfd, (struct sockaddr *)&ss, len) || listen(lfd, 8))
		return -1;
	port = sock_port(lfd);
	while (time(NULL) < end) {
		struct psock_info_buf ib;
		int fd, c, ok;

		snprintf(cg, sizeof(cg), CG_ROOT "/psock_churn_%d_%d_%d",
			 getpid(), id, rounds);
		if (mkdir(cg, 0755))
			return -2;
		fd = socket_as(family, UID_CLIENT + id, cg);
		if (fd < 0 || rmdir(cg))
			return -3;
		if (psock_opts(fd, NSF, NSF, -1) || lo_connect(fd, family, port))
			return -4;
		c = accept(lfd, NULL, NULL);
		ok = c >= 0 && send(fd, &b, 1, 0) == 1 &&
		     recv(c, &b, 1, MSG_WAITALL) == 1 &&
		     wait_established(fd, NSF, &ib) == 0;
		close(fd);
		if (c >= 0)
			close(c);
		if (!ok)
			return -5;
		rounds++;
	}
	close(lfd);
	return rounds;
}

/*
 * Sockets whose cgroups are gone, made and closed by two processes at
 * once, each of whose subflows takes and drops references on the
 * socket's cgroup and its bpf programs (3 s, 60 s with LONG=1: make
 * check-long).  The debug kernel reports a reference dropped twice (a
 * use after free, a percpu_ref underflow) or kept (kmemleak).
 */
TEST_F_TIMEOUT(ident, churn, 300)
{
	int secs = getenv("LONG") && *getenv("LONG") == '1' ? 60 : 3;
	pid_t pid[2];

	for (int i = 0; i < 2; i++) {
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (!pid[i]) {
			int n = churn(variant->family, secs, i);

			printf("# churn %d: %d (rounds, or minus the failed step)\n",
			       i, n);
			_exit(n > 0 ? 0 : 1);
		}
	}
	for (int i = 0; i < 2; i++) {
		int st;

		ASSERT_EQ(pid[i], waitpid(pid[i], &st, 0));
		EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
}

TEST_HARNESS_MAIN
