// SPDX-License-Identifier: GPL-2.0
/*
 * Socket options of a PSOCK socket reach every subflow: SO_SNDBUF,
 * SO_RCVBUF, SO_MARK, SO_PRIORITY and TCP_NODELAY set before connect()
 * (the subflows are made with them), on the listener (accepted subflows
 * start with them), and after connect() (the next call on the socket
 * copies them); SO_BINDTODEVICE and SO_REUSEADDR set before bind() or
 * connect() (copied to each subflow when it is made).  PSOCK_INFO shows
 * each subflow's own values, read from its TCP socket.  A per-subflow
 * PSOCK_SNDBUF wins over SO_SNDBUF, and fails with EISCONN once the
 * connection has begun.  SO_KEEPALIVE, TCP_KEEPIDLE / TCP_KEEPINTVL /
 * TCP_KEEPCNT, TCP_USER_TIMEOUT, TCP_CONGESTION, TCP_CORK and IP_TOS /
 * IPV6_TCLASS reach every subflow the same ways; TCP_INFO and SIOCINQ /
 * SIOCOUTQ describe the connection as a whole.
 *
 * Each test runs in its own netns on loopback, with 4 subflows.
 */
#include <poll.h>
#include <sys/ioctl.h>
#include <linux/sockios.h>
#include <linux/tcp.h>	/* glibc's struct tcp_info lacks the byte counts */

#include "psock_lib.h"
#include "kselftest_harness.h"

#define NSF	4

#ifndef SOL_TCP
#define SOL_TCP		IPPROTO_TCP
#endif

/* include/net/tcp_states.h */
#define ST_ESTABLISHED	1
#define ST_LISTEN	10

FIXTURE(opts)
{
	int lfd, port;
};

FIXTURE_VARIANT(opts)
{
	int family;
};

FIXTURE_VARIANT_ADD(opts, v4)
{
	.family = AF_INET,
};

FIXTURE_VARIANT_ADD(opts, v6)
{
	.family = AF_INET6,
};

FIXTURE_SETUP(opts)
{
	ASSERT_EQ(0, netns_lo());
	self->lfd = socket(variant->family, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, self->lfd);
	ASSERT_EQ(0, psock_opts(self->lfd, NSF, NSF, -1));
}

FIXTURE_TEARDOWN(opts)
{
	close(self->lfd);
}

static int set_int(int fd, int level, int opt, int val)
{
	return setsockopt(fd, level, opt, &val, sizeof(val));
}

static int get_int(int fd, int level, int opt)
{
	socklen_t len = sizeof(int);
	int val = -1;

	if (getsockopt(fd, level, opt, &val, &len) || len != sizeof(int))
		return -1;
	return val;
}

static void do_listen(struct __test_metadata *_metadata, int fd, int family,
		      int *port)
{
	struct sockaddr_storage ss;
	socklen_t len = lo_addr(family, 0, &ss);

	ASSERT_EQ(0, bind(fd, (struct sockaddr *)&ss, len));
	ASSERT_EQ(0, listen(fd, 8));
	*port = sock_port(fd);
}

/* Connect @fd, accept its peer, and pass one byte each way. */
static int connect_pair(struct __test_metadata *_metadata, int fd, int lfd,
			int family, int port)
{
	char b = 'x';
	int c;

	EXPECT_EQ(0, lo_connect(fd, family, port));
	c = accept(lfd, NULL, NULL);
	EXPECT_LE(0, c);
	EXPECT_EQ(1, send(fd, &b, 1, 0));
	EXPECT_EQ(1, recv(c, &b, 1, MSG_WAITALL));
	EXPECT_EQ(1, send(c, &b, 1, 0));
	EXPECT_EQ(1, recv(fd, &b, 1, MSG_WAITALL));
	return c;
}

struct want {
	int snd_buf, rcv_buf, mark, priority, nodelay;	/* -1: any */
	int bound_dev_if, reuse;			/* -1: any */
};

/* Every subflow of @fd carries @w (subflow @skip excepted, if >= 0). */
static void check_subflows(struct __test_metadata *_metadata, int fd,
			   const struct want *w, int skip)
{
	struct psock_info_buf ib;
	unsigned int i;

	ASSERT_EQ(0, psock_info(fd, &ib));
	ASSERT_EQ(NSF, ib.h.num);
	ASSERT_EQ(sizeof(ib.sf[0]), ib.h.size_user);
	for (i = 0; i < ib.h.num; i++) {
		const struct psock_subflow_info *si = &ib.sf[i];

		if ((int)si->index == skip)
			continue;
		TH_LOG("subflow %u: sndbuf %u rcvbuf %u mark %u prio %u nodelay %u dev %u reuse %u",
		       si->index, si->snd_buf, si->rcv_buf, si->mark,
		       si->priority, si->nodelay, si->bound_dev_if, si->reuse);
		if (w->snd_buf >= 0)
			EXPECT_EQ(w->snd_buf, (int)si->snd_buf);
		if (w->rcv_buf >= 0)
			EXPECT_EQ(w->rcv_buf, (int)si->rcv_buf);
		if (w->mark >= 0)
			EXPECT_EQ(w->mark, (int)si->mark);
		if (w->priority >= 0)
			EXPECT_EQ(w->priority, (int)si->priority);
		if (w->nodelay >= 0)
			EXPECT_EQ(w->nodelay, (int)si->nodelay);
		if (w->bound_dev_if >= 0)
			EXPECT_EQ(w->bound_dev_if, (int)si->bound_dev_if);
		if (w->reuse >= 0)
			EXPECT_EQ(w->reuse, (int)si->reuse);
	}
}

/* Set before connect() and on the listener: subflows are born with them. */
TEST_F_TIMEOUT(opts, set_before_connect_and_on_listener, 120)
{
	struct want cw, sw;
	int fd, c;

	/* The listener's values reach the subflows it accepts. */
	ASSERT_EQ(0, set_int(self->lfd, SOL_SOCKET, SO_SNDBUF, 40000));
	ASSERT_EQ(0, set_int(self->lfd, SOL_SOCKET, SO_RCVBUF, 50000));
	ASSERT_EQ(0, set_int(self->lfd, SOL_SOCKET, SO_MARK, 7));
	ASSERT_EQ(0, set_int(self->lfd, SOL_SOCKET, SO_PRIORITY, 3));
	ASSERT_EQ(0, set_int(self->lfd, SOL_TCP, TCP_NODELAY, 1));
	EXPECT_EQ(1, get_int(self->lfd, SOL_TCP, TCP_NODELAY));
	do_listen(_metadata, self->lfd, variant->family, &self->port);
	sw = (struct want){
		.snd_buf = get_int(self->lfd, SOL_SOCKET, SO_SNDBUF),
		.rcv_buf = get_int(self->lfd, SOL_SOCKET, SO_RCVBUF),
		.mark = 7, .priority = 3, .nodelay = 1,
		.bound_dev_if = -1, .reuse = -1,
	};
	EXPECT_EQ(80000, sw.snd_buf);	/* doubled, as for TCP */

	fd = socket(variant->family, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, psock_opts(fd, NSF, NSF, -1));
	ASSERT_EQ(0, set_int(fd, SOL_SOCKET, SO_SNDBUF, 65536));
	ASSERT_EQ(0, set_int(fd, SOL_SOCKET, SO_RCVBUF, 100000));
	ASSERT_EQ(0, set_int(fd, SOL_SOCKET, SO_MARK, 42));
	ASSERT_EQ(0, set_int(fd, SOL_SOCKET, SO_PRIORITY, 5));
	ASSERT_EQ(0, set_int(fd, SOL_TCP, TCP_NODELAY, 1));
	cw = (struct want){
		.snd_buf = get_int(fd, SOL_SOCKET, SO_SNDBUF),
		.rcv_buf = get_int(fd, SOL_SOCKET, SO_RCVBUF),
		.mark = 42, .priority = 5, .nodelay = 1,
		.bound_dev_if = -1, .reuse = -1,
	};
	EXPECT_EQ(131072, cw.snd_buf);

	c = connect_pair(_metadata, fd, self->lfd, variant->family,
			 self->port);
	ASSERT_LE(0, c);
	check_subflows(_metadata, fd, &cw, -1);
	check_subflows(_metadata, c, &sw, -1);
	/* The accepted socket reports what its subflows have, as TCP. */
	EXPECT_EQ(7, get_int(c, SOL_SOCKET, SO_MARK));
	EXPECT_EQ(3, get_int(c, SOL_SOCKET, SO_PRIORITY));
	EXPECT_EQ(1, get_int(c, SOL_TCP, TCP_NODELAY));
	close(c);
	close(fd);
}

/* Set on a connected socket: the next call copies them to the subflows. */
TEST_F_TIMEOUT(opts, set_after_connect, 120)
{
	struct want w = { -1, -1, 0, 0, 0, -1, -1 };
	char b = 'y';
	int fd, c;

	do_listen(_metadata, self->lfd, variant->family, &self->port);
	fd = socket(variant->family, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, psock_opts(fd, NSF, NSF, -1));
	c = connect_pair(_metadata, fd, self->lfd, variant->family,
			 self->port);
	ASSERT_LE(0, c);
	EXPECT_EQ(0, get_int(fd, SOL_TCP, TCP_NODELAY));
	check_subflows(_metadata, fd, &w, -1);

	ASSERT_EQ(0, set_int(fd, SOL_SOCKET, SO_MARK, 9));
	ASSERT_EQ(0, set_int(fd, SOL_SOCKET, SO_PRIORITY, 6));
	ASSERT_EQ(0, set_int(fd, SOL_SOCKET, SO_SNDBUF, 100000));
	ASSERT_EQ(0, set_int(fd, SOL_TCP, TCP_NODELAY, 1));
	/* Data still flows both ways, then every subflow has them. */
	EXPECT_EQ(1, send(fd, &b, 1, 0));
	EXPECT_EQ(1, recv(c, &b, 1, MSG_WAITALL));
	w = (struct want){ 200000, -1, 9, 6, 1, -1, -1 };
	check_subflows(_metadata, fd, &w, -1);

	ASSERT_EQ(0, set_int(fd, SOL_TCP, TCP_NODELAY, 0));
	ASSERT_EQ(0, set_int(fd, SOL_SOCKET, SO_MARK, 0));
	w = (struct want){ 200000, -1, 0, 6, 0, -1, -1 };
	check_subflows(_metadata, fd, &w, -1);
	EXPECT_EQ(0, get_int(fd, SOL_TCP, TCP_NODELAY));
	close(c);
	close(fd);
}

/* PSOCK_SNDBUF for one subflow wins over SO_SNDBUF; EISCONN afterwards. */
TEST_F_TIMEOUT(opts, per_subflow_buffer_wins, 120)
{
	struct pstream_int pi = { .index = 1, .value = 30000 };
	struct want w = { -1, -1, -1, -1, -1, -1, -1 };
	struct psock_info_buf ib;
	int fd, c, one = 1;

	do_listen(_metadata, self->lfd, variant->family, &self->port);
	fd = socket(variant->family, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, psock_opts(fd, NSF, NSF, -1));
	ASSERT_EQ(0, setsockopt(fd, SOL_PSOCK, PSOCK_SNDBUF, &pi, sizeof(pi)));
	ASSERT_EQ(0, set_int(fd, SOL_SOCKET, SO_SNDBUF, 70000));
	w.snd_buf = 140000;
	c = connect_pair(_metadata, fd, self->lfd, variant->family,
			 self->port);
	ASSERT_LE(0, c);
	check_subflows(_metadata, fd, &w, 1);
	ASSERT_EQ(0, psock_info(fd, &ib));
	EXPECT_EQ(60000, (int)ib.sf[1].snd_buf);

	/* The subflows exist: their buffers are fixed per index now. */
	EXPECT_EQ(-1, setsockopt(fd, SOL_PSOCK, PSOCK_SNDBUF, &pi, sizeof(pi)));
	EXPECT_EQ(EISCONN, errno);
	EXPECT_EQ(-1, setsockopt(fd, SOL_PSOCK, PSOCK_RCVBUF, &pi, sizeof(pi)));
	EXPECT_EQ(EISCONN, errno);
	EXPECT_EQ(-1, setsockopt(self->lfd, SOL_PSOCK, PSOCK_SNDBUF, &pi,
				 sizeof(pi)));
	EXPECT_EQ(EISCONN, errno);

	/* A short value is refused; unsupported SOL_TCP options too. */
	EXPECT_EQ(-1, setsockopt(fd, SOL_TCP, TCP_NODELAY, &one, 2));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, setsockopt(fd, SOL_TCP, TCP_MAXSEG, &one, sizeof(one)));
	EXPECT_EQ(EOPNOTSUPP, errno);
	close(c);
	close(fd);
}

/*
 * The listener's PSOCK_SNDBUF / PSOCK_RCVBUF reach the accepted subflow of
 * each index (they are clones of the listener's TCP socket, index 0's);
 * an index without one keeps TCP's autotuned buffer, not index 0's.
 */
TEST_F_TIMEOUT(opts, per_subflow_buffer_on_listener, 120)
{
	struct pstream_int pi;
	struct psock_info_buf ib;
	unsigned int i;
	int fd, c;

	pi = (struct pstream_int){ .index = 0, .value = 50000 };
	ASSERT_EQ(0, setsockopt(self->lfd, SOL_PSOCK, PSOCK_SNDBUF, &pi,
				sizeof(pi)));
	pi = (struct pstream_int){ .index = 1, .value = 30000 };
	ASSERT_EQ(0, setsockopt(self->lfd, SOL_PSOCK, PSOCK_SNDBUF, &pi,
				sizeof(pi)));
	pi = (struct pstream_int){ .index = 2, .value = 40000 };
	ASSERT_EQ(0, setsockopt(self->lfd, SOL_PSOCK, PSOCK_RCVBUF, &pi,
				sizeof(pi)));
	do_listen(_metadata, self->lfd, variant->family, &self->port);
	fd = socket(variant->family, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, psock_opts(fd, NSF, NSF, -1));
	c = connect_pair(_metadata, fd, self->lfd, variant->family,
			 self->port);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, psock_info(c, &ib));
	ASSERT_EQ(NSF, ib.h.num);
	for (i = 0; i < ib.h.num; i++) {
		const struct psock_subflow_info *si = &ib.sf[i];

		TH_LOG("accepted subflow %u: sndbuf %u rcvbuf %u", si->index,
		       si->snd_buf, si->rcv_buf);
		switch (si->index) {
		case 0:
			EXPECT_EQ(100000, (int)si->snd_buf);
			break;
		case 1:
			EXPECT_EQ(60000, (int)si->snd_buf);
			break;
		case 2:
			EXPECT_EQ(80000, (int)si->rcv_buf);
			EXPECT_NE(100000, (int)si->snd_buf);
			break;
		default:
			EXPECT_NE(100000, (int)si->snd_buf);
			break;
		}
	}
	close(c);
	close(fd);
}

/*
 * accept() returns a socket with its listener's SOL_PSOCK options,
 * PSOCK_OPTIMISTIC included; and net.psock.enabled = 0 refuses new
 * sockets only: the listener that was there goes on accepting.
 */
TEST_F_TIMEOUT(opts, listener_keeps_options_and_works_disabled, 120)
{
	int one = 1, fd, c, v;
	socklen_t len = sizeof(v);
	FILE *f;

	ASSERT_EQ(0, setsockopt(self->lfd, SOL_PSOCK, PSOCK_OPTIMISTIC, &one,
				sizeof(one)));
	do_listen(_metadata, self->lfd, variant->family, &self->port);
	fd = socket(variant->family, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, psock_opts(fd, NSF, NSF, -1));
	f = fopen("/proc/sys/net/psock/enabled", "w");
	ASSERT_NE(NULL, f);
	fputs("0", f);
	ASSERT_EQ(0, fclose(f));
	EXPECT_EQ(-1, socket(variant->family, SOCK_STREAM, IPPROTO_PSOCK));
	EXPECT_EQ(ENOPROTOOPT, errno);
	c = connect_pair(_metadata, fd, self->lfd, variant->family,
			 self->port);
	f = fopen("/proc/sys/net/psock/enabled", "w");
	ASSERT_NE(NULL, f);
	fputs("1", f);
	ASSERT_EQ(0, fclose(f));
	ASSERT_LE(0, c);
	ASSERT_EQ(0, getsockopt(c, SOL_PSOCK, PSOCK_OPTIMISTIC, &v, &len));
	EXPECT_EQ(1, v);
	close(c);
	close(fd);
}

/*
 * SO_BINDTODEVICE and SO_REUSEADDR set before bind() or connect() are
 * copied to every subflow when it is made (Documentation/psock.rst,
 * "Socket calls"): the client's control and data subflows, and those the
 * listener accepts.  A connection without them has subflows without them.
 */
TEST_F_TIMEOUT(opts, bindtodevice_and_reuseaddr, 120)
{
	struct want w = { -1, -1, -1, -1, -1, 0, 0 };
	int fd, c, plain, pc, lo = if_nametoindex("lo");

	ASSERT_LT(0, lo);
	ASSERT_EQ(0, set_int(self->lfd, SOL_SOCKET, SO_REUSEADDR, 1));
	ASSERT_EQ(0, setsockopt(self->lfd, SOL_SOCKET, SO_BINDTODEVICE, "lo",
				sizeof("lo")));
	do_listen(_metadata, self->lfd, variant->family, &self->port);

	/* Neither option on the client: only the accepted side has them. */
	plain = socket(variant->family, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, plain);
	ASSERT_EQ(0, psock_opts(plain, NSF, NSF, -1));
	pc = connect_pair(_metadata, plain, self->lfd, variant->family,
			  self->port);
	ASSERT_LE(0, pc);
	check_subflows(_metadata, plain, &w, -1);
	w.bound_dev_if = lo;
	w.reuse = 1;
	check_subflows(_metadata, pc, &w, -1);
	close(pc);
	close(plain);

	fd = socket(variant->family, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, psock_opts(fd, NSF, NSF, -1));
	ASSERT_EQ(0, set_int(fd, SOL_SOCKET, SO_REUSEADDR, 1));
	ASSERT_EQ(0, setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, "lo",
				sizeof("lo")));
	c = connect_pair(_metadata, fd, self->lfd, variant->family,
			 self->port);
	ASSERT_LE(0, c);
	check_subflows(_metadata, fd, &w, -1);
	check_subflows(_metadata, c, &w, -1);
	close(c);
	close(fd);
}

struct tcp_want {
	int keepalive, keepidle, keepintvl, keepcnt, user_timeout, cork;
	int tos, tclass;
	const char *ca;
};

/* Every subflow of @fd carries the SOL_TCP / IP values of @w. */
static void check_tcp_subflows(struct __test_metadata *_metadata, int fd,
			       const struct tcp_want *w)
{
	struct psock_info_buf ib;
	unsigned int i;

	ASSERT_EQ(0, psock_info(fd, &ib));
	ASSERT_EQ(NSF, ib.h.num);
	ASSERT_EQ(sizeof(ib.sf[0]), ib.h.size_kernel);
	for (i = 0; i < ib.h.num; i++) {
		const struct psock_subflow_info *si = &ib.sf[i];

		TH_LOG("sf %u: ka %u idle %u intvl %u cnt %u uto %u cork %u tos %#x tc %#x %s",
		       si->index, si->keepalive, si->keepidle, si->keepintvl,
		       si->keepcnt, si->user_timeout, si->cork, si->tos,
		       si->tclass, si->congestion);
		EXPECT_EQ(w->keepalive, (int)si->keepalive);
		EXPECT_EQ(w->keepidle, (int)si->keepidle);
		EXPECT_EQ(w->keepintvl, (int)si->keepintvl);
		EXPECT_EQ(w->keepcnt, (int)si->keepcnt);
		EXPECT_EQ(w->user_timeout, (int)si->user_timeout);
		EXPECT_EQ(w->cork, (int)si->cork);
		EXPECT_EQ(w->tos, (int)si->tos);
		EXPECT_EQ(w->tclass, (int)si->tclass);
		EXPECT_STREQ(w->ca, si->congestion);
	}
}

/* The options of a connection, set on @fd. */
static void set_tcp_opts(struct __test_metadata *_metadata, int fd,
			 int family, const struct tcp_want *w)
{
	int ret;

	ASSERT_EQ(0, set_int(fd, SOL_SOCKET, SO_KEEPALIVE, w->keepalive));
	ASSERT_EQ(0, set_int(fd, SOL_TCP, TCP_KEEPIDLE, w->keepidle));
	ASSERT_EQ(0, set_int(fd, SOL_TCP, TCP_KEEPINTVL, w->keepintvl));
	ASSERT_EQ(0, set_int(fd, SOL_TCP, TCP_KEEPCNT, w->keepcnt));
	ASSERT_EQ(0, set_int(fd, SOL_TCP, TCP_USER_TIMEOUT, w->user_timeout));
	ASSERT_EQ(0, set_int(fd, SOL_TCP, TCP_CORK, w->cork));
	ASSERT_EQ(0, setsockopt(fd, SOL_TCP, TCP_CONGESTION, w->ca,
				strlen(w->ca)));
	if (family == AF_INET)
		ret = set_int(fd, SOL_IP, IP_TOS, w->tos);
	else
		ret = set_int(fd, SOL_IPV6, IPV6_TCLASS, w->tclass);
	ASSERT_EQ(0, ret);
}

/*
 * SOL_TCP and IP options set before connect() reach the data subflows made
 * later, those set on the listener reach every accepted subflow, and those
 * set on a connected socket reach every subflow at once.
 */
TEST_F_TIMEOUT(opts, tcp_options_reach_subflows, 120)
{
	struct tcp_want sw = { 1, 77, 11, 5, 12345, 0, 0, 0, "reno" };
	struct tcp_want cw = { 1, 33, 7, 4, 5000, 0, 0, 0, "reno" };
	char ca[16] = "";
	socklen_t len = sizeof(ca);
	int fd, c;

	if (variant->family == AF_INET) {
		sw.tos = 0x20;
		cw.tos = 0x48;
	} else {
		sw.tclass = 0x28;
		cw.tclass = 0x60;
	}
	set_tcp_opts(_metadata, self->lfd, variant->family, &sw);
	do_listen(_metadata, self->lfd, variant->family, &self->port);

	fd = socket(variant->family, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, psock_opts(fd, NSF, NSF, -1));
	set_tcp_opts(_metadata, fd, variant->family, &cw);
	c = connect_pair(_metadata, fd, self->lfd, variant->family,
			 self->port);
	ASSERT_LE(0, c);
	check_tcp_subflows(_metadata, fd, &cw);
	check_tcp_subflows(_metadata, c, &sw);
	/* The accepted socket answers what its subflows have. */
	EXPECT_EQ(77, get_int(c, SOL_TCP, TCP_KEEPIDLE));
	EXPECT_EQ(1, get_int(c, SOL_SOCKET, SO_KEEPALIVE));
	ASSERT_EQ(0, getsockopt(c, SOL_TCP, TCP_CONGESTION, ca, &len));
	EXPECT_STREQ("reno", ca);

	/* Changed on the connected socket: every subflow follows. */
	cw = (struct tcp_want){ 0, 44, 9, 3, 0, 1, cw.tos, cw.tclass, "cubic" };
	set_tcp_opts(_metadata, fd, variant->family, &cw);
	check_tcp_subflows(_metadata, fd, &cw);
	EXPECT_EQ(1, get_int(fd, SOL_TCP, TCP_CORK));
	EXPECT_EQ(0, get_int(fd, SOL_SOCKET, SO_KEEPALIVE));
	/* Uncorked: what the cork held goes out. */
	ASSERT_EQ(0, set_int(fd, SOL_TCP, TCP_CORK, 0));
	cw.cork = 0;
	check_tcp_subflows(_metadata, fd, &cw);
	close(c);
	close(fd);
}

/*
 * TCP_INFO describes the whole connection (bytes summed over the
 * subflows, RTT and cwnd of the best one); SIOCINQ counts the bytes a
 * read returns, SIOCOUTQ those the peer has not acknowledged.
 */
TEST_F_TIMEOUT(opts, tcp_info_and_queues, 120)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);
	static char buf[100000];
	int fd, c, n, got;

	do_listen(_metadata, self->lfd, variant->family, &self->port);
	memset(&ti, 0, sizeof(ti));
	ASSERT_EQ(0, getsockopt(self->lfd, SOL_TCP, TCP_INFO, &ti, &len));
	EXPECT_EQ(ST_LISTEN, ti.tcpi_state);
	EXPECT_EQ(-1, ioctl(self->lfd, SIOCINQ, &n));
	EXPECT_EQ(EINVAL, errno);

	fd = socket(variant->family, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, psock_opts(fd, NSF, NSF, -1));
	c = connect_pair(_metadata, fd, self->lfd, variant->family,
			 self->port);
	ASSERT_LE(0, c);

	memset(buf, 'a', sizeof(buf));
	ASSERT_EQ((ssize_t)sizeof(buf), send(fd, buf, sizeof(buf), 0));
	/* Every byte arrives: the reader sees them all in order. */
	for (n = 0; n < 200; n++) {
		ASSERT_EQ(0, ioctl(c, SIOCINQ, &got));
		if (got == (int)sizeof(buf))
			break;
		usleep(20000);
	}
	TH_LOG("SIOCINQ %d after %d looks", got, n);
	EXPECT_EQ((int)sizeof(buf), got);
	ASSERT_EQ((ssize_t)sizeof(buf), recv(c, buf, sizeof(buf), MSG_WAITALL));
	ASSERT_EQ(0, ioctl(c, SIOCINQ, &got));
	EXPECT_EQ(0, got);
	/* The reader acknowledged them: nothing left to the sender. */
	for (n = 0; n < 200; n++) {
		ASSERT_EQ(0, ioctl(fd, SIOCOUTQ, &got));
		if (!got)
			break;
		usleep(20000);
	}
	EXPECT_EQ(0, got);

	len = sizeof(ti);
	memset(&ti, 0, sizeof(ti));
	ASSERT_EQ(0, getsockopt(fd, SOL_TCP, TCP_INFO, &ti, &len));
	EXPECT_EQ(sizeof(ti), len);
	TH_LOG("state %u rtt %u cwnd %u acked %llu received %llu retrans %u",
	       ti.tcpi_state, ti.tcpi_rtt, ti.tcpi_snd_cwnd,
	       (unsigned long long)ti.tcpi_bytes_acked,
	       (unsigned long long)ti.tcpi_bytes_received,
	       ti.tcpi_total_retrans);
	EXPECT_EQ(ST_ESTABLISHED, ti.tcpi_state);
	EXPECT_LT(0, ti.tcpi_rtt);
	EXPECT_LT(0, ti.tcpi_snd_cwnd);
	/* Headers and the handshake make the subflows carry a bit more. */
	EXPECT_LE(sizeof(buf), ti.tcpi_bytes_acked);
	EXPECT_GT(sizeof(buf) * 2, ti.tcpi_bytes_acked);

	len = sizeof(ti);
	memset(&ti, 0, sizeof(ti));
	ASSERT_EQ(0, getsockopt(c, SOL_TCP, TCP_INFO, &ti, &len));
	EXPECT_EQ(ST_ESTABLISHED, ti.tcpi_state);
	EXPECT_LE(sizeof(buf), ti.tcpi_bytes_received);
	EXPECT_GT(sizeof(buf) * 2, ti.tcpi_bytes_received);

	/* A short buffer gets the start of it, as from TCP. */
	len = 8;
	ASSERT_EQ(0, getsockopt(c, SOL_TCP, TCP_INFO, &ti, &len));
	EXPECT_EQ(8, len);
	close(c);
	close(fd);
}

/*
 * TCP_NOTSENT_LOWAT is the connection's: bytes the subflows hold unsent
 * (here by TCP_CORK, SIOCOUTQNSD counts them) at or above the mark stop
 * send() and poll()'s EPOLLOUT, until they leave.
 */
TEST_F_TIMEOUT(opts, notsent_lowat_holds_writes, 120)
{
	struct pollfd pfd = { .events = POLLOUT };
	int fd, c, n, nsd = -1, lowat = 1000;
	static char buf[2000], rbuf[4000];

	do_listen(_metadata, self->lfd, variant->family, &self->port);
	fd = socket(variant->family, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, psock_opts(fd, NSF, NSF, -1));
	c = connect_pair(_metadata, fd, self->lfd, variant->family,
			 self->port);
	ASSERT_LE(0, c);
	pfd.fd = fd;
	ASSERT_EQ(0, set_int(fd, SOL_TCP, TCP_NOTSENT_LOWAT, lowat));
	EXPECT_EQ(lowat, get_int(fd, SOL_TCP, TCP_NOTSENT_LOWAT));
	EXPECT_EQ(1, poll(&pfd, 1, 0));

	/* Corked, less than a segment stays in a subflow. */
	ASSERT_EQ(0, set_int(fd, SOL_TCP, TCP_CORK, 1));
	ASSERT_EQ((ssize_t)sizeof(buf), send(fd, buf, sizeof(buf), 0));
	ASSERT_EQ(0, ioctl(fd, SIOCOUTQNSD, &nsd));
	TH_LOG("%d bytes unsent in the subflows", nsd);
	EXPECT_LE((int)sizeof(buf), nsd);
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	EXPECT_EQ(-1, send(fd, buf, sizeof(buf), MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);

	/* Uncorked, they leave, and the socket is writable again. */
	ASSERT_EQ(0, set_int(fd, SOL_TCP, TCP_CORK, 0));
	EXPECT_EQ(1, poll(&pfd, 1, 5000));
	for (n = 0; n < 100; n++) {
		ASSERT_EQ(0, ioctl(fd, SIOCOUTQNSD, &nsd));
		if (!nsd)
			break;
		usleep(20000);
	}
	EXPECT_EQ(0, nsd);
	EXPECT_EQ((ssize_t)sizeof(buf), send(fd, buf, sizeof(buf),
					     MSG_DONTWAIT));
	EXPECT_EQ((ssize_t)sizeof(rbuf),
		  recv(c, rbuf, sizeof(rbuf), MSG_WAITALL));
	close(c);
	close(fd);
}

TEST_HARNESS_MAIN
