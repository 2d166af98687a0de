// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/net/psock: the per-netns counters, in /proc/net/netstat's layout
 * ("PsockExt:" names, then "PsockExt:" values; then the machine's block
 * pool, "PsockMem:", in the same layout).  In a fresh netns they all
 * start at 0; a 4-subflow connection, a fallback against a plain TCP
 * server and a client hello with the wrong token move exactly the
 * counters they should; another netns still reads 0.  close() with
 * data unread resets the connection (Aborts), and the peer's subflows
 * are lost to the reset (SubflowsLostError).  nstat(8) reads the file
 * when told to (PROC_NET_NETSTAT), as Documentation/psock.rst says.
 */
#include <fcntl.h>

#include "psock_lib.h"
#include "kselftest_harness.h"

#define HELLO_SYSCTL	"/proc/sys/net/psock/hello_timeout_ms"

static const char *const names[] = {
	"ActiveOpens", "PassiveOpens", "Fallbacks", "HandshakeFails",
	"SubflowsOpened", "SubflowsJoined", "BlocksSent", "BlocksReceived",
	"BlocksCopied", "CloseTimeouts", "ListenOverflows", "JoinsMissing",
	"Resends", "SubflowsLostTimeout", "SubflowsLostError",
	"SubflowsReopened", "DupsDropped", "JoinsRefused", "Aborts",
};

#define NCOUNTERS	ARRAY_SIZE(names)

/* Read the counters into @v; 0, or -1 if the file is not as documented. */
static int read_counters(unsigned long *v)
{
	char hdr[512], val[512], mhdr[128], mval[128], *save1, *save2, *n, *x;
	unsigned long pages, limit, thr;
	unsigned int i = 0;
	FILE *f = fopen("/proc/net/psock", "r");
	int ok;

	if (!f)
		return -1;
	/* The counters, then the global block pool (PsockMem), and no more. */
	ok = fgets(hdr, sizeof(hdr), f) && fgets(val, sizeof(val), f) &&
	     fgets(mhdr, sizeof(mhdr), f) && fgets(mval, sizeof(mval), f) &&
	     !fgets(mval + strlen(mval), sizeof(mval) - strlen(mval), f);
	fclose(f);
	if (!ok || strcmp(mhdr, "PsockMem: Pages Limit Throttled\n") ||
	    sscanf(mval, "PsockMem: %lu %lu %lu", &pages, &limit, &thr) != 3 ||
	    !limit)
		return -1;
	n = strtok_r(hdr, "\n ", &save1);
	x = strtok_r(val, "\n ", &save2);
	if (!n || !x || strcmp(n, "PsockExt:") || strcmp(x, "PsockExt:"))
		return -1;
	for (;;) {
		n = strtok_r(NULL, "\n ", &save1);
		x = strtok_r(NULL, "\n ", &save2);
		if (!n || !x)
			break;
		if (i == NCOUNTERS || strcmp(n, names[i]))
			return -1;
		v[i++] = strtoul(x, NULL, 10);
	}
	return i == NCOUNTERS && !n && !x ? 0 : -1;
}

static int set_hello_timeout(const char *ms)
{
	int fd = open(HELLO_SYSCTL, O_WRONLY);
	int r;

	if (fd < 0)
		return -1;
	r = write(fd, ms, strlen(ms)) == (ssize_t)strlen(ms) ? 0 : -1;
	close(fd);
	return r;
}

TEST(counters_per_netns)
{
	unsigned long v[NCOUNTERS];
	static char buf[100000];
	int lfd, tfd, fd, c, port, tport, one = 1;
	unsigned int i;
	char b = 0xa5;
	struct hello h;

	ASSERT_EQ(0, netns_lo());
	ASSERT_EQ(0, set_hello_timeout("300"));
	ASSERT_EQ(0, read_counters(v));
	for (i = 0; i < NCOUNTERS; i++)
		EXPECT_EQ(0, v[i]);

	/* One PSOCK connection with 4 subflows; 100000 bytes one way. */
	lfd = lo_listen(AF_INET, IPPROTO_PSOCK, &port);
	ASSERT_LE(0, lfd);
	fd = socket(AF_INET, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, psock_opts(fd, 4, 4, -1));
	ASSERT_EQ(0, lo_connect(fd, AF_INET, port));
	c = accept(lfd, NULL, NULL);
	ASSERT_LE(0, c);
	memset(buf, 'p', sizeof(buf));
	ASSERT_EQ(sizeof(buf), send(fd, buf, sizeof(buf), 0));
	ASSERT_EQ(sizeof(buf), recv(c, buf, sizeof(buf), MSG_WAITALL));
	close(fd);
	close(c);

	/* A PSOCK client against a silent plain TCP server: fallback. */
	tfd = lo_listen(AF_INET, IPPROTO_TCP, &tport);
	ASSERT_LE(0, tfd);
	fd = socket(AF_INET, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, lo_connect(fd, AF_INET, tport));
	close(fd);
	close(tfd);

	/* A raw client whose client hello has the wrong token: refused. */
	fd = socket(AF_INET, SOCK_STREAM, IPPROTO_TCP);
	ASSERT_LE(0, fd);
	setsockopt(fd, IPPROTO_TCP, 1 /* TCP_NODELAY */, &one, sizeof(one));
	ASSERT_EQ(0, lo_connect(fd, AF_INET, port));
	ASSERT_EQ(1, send(fd, &b, 1, MSG_OOB));
	ASSERT_EQ(sizeof(h), recv(fd, &h, sizeof(h), MSG_WAITALL));
	ASSERT_EQ(T_SHELLO, h.type);
	h.type = T_CHELLO;
	h.n = 1;
	h.token ^= 1;
	ASSERT_EQ(sizeof(h), send(fd, &h, sizeof(h), 0));
	for (i = 0; i < 300; i++) {
		ASSERT_EQ(0, read_counters(v));
		if (v[3])
			break;
		usleep(100000);
	}
	close(fd);
	close(lfd);

	ASSERT_EQ(0, read_counters(v));
	EXPECT_EQ(2, v[0]);		/* ActiveOpens: PSOCK and fallback */
	EXPECT_EQ(1, v[1]);		/* PassiveOpens */
	EXPECT_EQ(1, v[2]);		/* Fallbacks */
	EXPECT_EQ(1, v[3]);		/* HandshakeFails */
	EXPECT_EQ(3, v[4]);		/* SubflowsOpened */
	EXPECT_EQ(3, v[5]);		/* SubflowsJoined */
	EXPECT_LE(sizeof(buf) / 16384 + 1, v[6]);	/* BlocksSent */
	EXPECT_EQ(v[6], v[7]);		/* BlocksReceived: every one */
	EXPECT_EQ(0, v[8]);		/* BlocksCopied: all read before close */
	EXPECT_EQ(0, v[9]);		/* CloseTimeouts: every block acked */
	/* Nothing lost, resent, copied twice, refused or reset. */
	for (i = 12; i < NCOUNTERS; i++)
		EXPECT_EQ(0, v[i]) TH_LOG("%s", names[i]);

	/* Another namespace has its own, untouched counters. */
	ASSERT_EQ(0, netns_lo());
	ASSERT_EQ(0, read_counters(v));
	for (i = 0; i < NCOUNTERS; i++)
		EXPECT_EQ(0, v[i]);
}

/* The value of @name in @v (names[]), -1 if there is none. */
static long counter(const unsigned long *v, const char *name)
{
	unsigned int i;

	for (i = 0; i < NCOUNTERS; i++)
		if (!strcmp(names[i], name))
			return v[i];
	return -1;
}

/*
 * close() with bytes unread resets a 2-subflow connection: one abort (the
 * server's); the client's two subflows are lost to the resets, and its
 * own close() after that resets nothing more.  The client's one block is
 * resent at most once: when the subflow that carried it sees its reset
 * first, the client cannot tell an abort from a lost path yet and resends
 * it on the other subflow, which its reset then ends too.
 */
TEST(aborts_on_close_with_unread_data)
{
	unsigned long v[NCOUNTERS];
	int lfd, fd, c, port, i;
	char b[10] = "unread";

	ASSERT_EQ(0, netns_lo());
	lfd = lo_listen(AF_INET, IPPROTO_PSOCK, &port);
	ASSERT_LE(0, lfd);
	fd = socket(AF_INET, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, psock_opts(fd, 2, 2, -1));
	ASSERT_EQ(0, lo_connect(fd, AF_INET, port));
	c = accept(lfd, NULL, NULL);
	ASSERT_LE(0, c);
	ASSERT_EQ(sizeof(b), send(fd, b, sizeof(b), 0));
	ASSERT_EQ(1, recv(c, b, 1, MSG_PEEK | MSG_WAITALL));
	close(c);
	ASSERT_EQ(0, read_counters(v));
	EXPECT_EQ(1, counter(v, "Aborts"));
	/* The client reads the reset once both its subflows saw theirs. */
	EXPECT_EQ(-1, recv(fd, b, sizeof(b), 0));
	EXPECT_EQ(ECONNRESET, errno);
	for (i = 0; i < 50; i++) {
		ASSERT_EQ(0, read_counters(v));
		if (counter(v, "SubflowsLostError") >= 2)
			break;
		usleep(100000);
	}
	close(fd);
	close(lfd);
	ASSERT_EQ(0, read_counters(v));
	EXPECT_EQ(1, counter(v, "Aborts"));
	EXPECT_EQ(2, counter(v, "SubflowsLostError"));
	EXPECT_EQ(0, counter(v, "SubflowsLostTimeout"));
	EXPECT_GE(1, counter(v, "Resends"));
}

/*
 * nstat(8) of iproute2 reads /proc/net/psock in place of /proc/net/netstat
 * (PROC_NET_NETSTAT), and names each counter PsockExt<Name>: every
 * counter, with its value, and the PsockMem lines do not upset it.
 */
TEST(nstat_reads_psock)
{
	unsigned long v[NCOUNTERS];
	char line[256], name[128];
	unsigned int i, seen = 0;
	unsigned long long val;
	int lfd, fd, c, port;
	FILE *p;

	if (system("command -v nstat >/dev/null 2>&1"))
		SKIP(return, "no nstat (iproute2) on this machine");
	ASSERT_EQ(0, netns_lo());
	lfd = lo_listen(AF_INET, IPPROTO_PSOCK, &port);
	ASSERT_LE(0, lfd);
	fd = socket(AF_INET, SOCK_STREAM, IPPROTO_PSOCK);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, lo_connect(fd, AF_INET, port));
	c = accept(lfd, NULL, NULL);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, read_counters(v));
	p = popen("PROC_NET_NETSTAT=/proc/net/psock nstat -asz 'Psock*'", "r");
	ASSERT_NE(NULL, p);
	while (fgets(line, sizeof(line), p)) {
		if (sscanf(line, "%127s %llu", name, &val) != 2)
			continue;
		for (i = 0; i < NCOUNTERS; i++) {
			if (strncmp(name, "PsockExt", 8) ||
			    strcmp(name + 8, names[i]))
				continue;
			EXPECT_EQ(v[i], val) TH_LOG("%s", name);
			seen++;
		}
	}
	EXPECT_EQ(0, pclose(p));
	EXPECT_EQ(NCOUNTERS, seen);
	EXPECT_EQ(1, v[0]);		/* ActiveOpens, so not all zeros */
	close(fd);
	close(c);
	close(lfd);
}

TEST_HARNESS_MAIN
