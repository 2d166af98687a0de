// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel memory AF_HICN keeps for a process is charged to its memory
 * cgroup (Documentation/hicn-api.rst, "Unprivileged users"), read from
 * memory.stat "slab" of a cgroup of the test's own under cgroup v2:
 *
 * - each published version's descriptor (struct hicn_obj), also for an
 *   empty object, where no payload is charged (GFP_KERNEL_ACCOUNT);
 * - each PIT entry and in-record a consumer's interest creates;
 * - each content-store entry a consumer's fetch fills;
 * - the segments a consumer holds for its reader, as socket memory
 *   (memory.stat "sock"), as a TCP socket's receive queue is, and in the
 *   protocol's memory (/proc/net/protocols).
 *
 * Memory cgroup statistics are flushed every 2 s at the latest: each
 * reading waits that long.  Skipped without cgroup v2's memory controller.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <netinet/in.h>

#include "cg_lib.h"
#include "hicn_test.h"
#include "kselftest_harness.h"

#define NVERSIONS	4096
#define NCONS		800

#ifndef SO_RESERVE_MEM
#define SO_RESERVE_MEM	73
#endif

/* Line @key of the cgroup @dir's memory.stat, after a stats flush. */
static long long cg_stat(const char *dir, const char *want)
{
	char path[256], key[64];
	long long v, found = -1;
	FILE *f;

	ht_sleep_ms(2500);
	snprintf(path, sizeof(path), "%s/memory.stat", dir);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fscanf(f, "%63s %lld", key, &v) == 2) {
		if (!strcmp(key, want)) {
			found = v;
			break;
		}
	}
	fclose(f);
	return found;
}

static long long cg_slab(const char *dir)
{
	return cg_stat(dir, "slab");
}

/*
 * Pages of protocol memory /proc/net/protocols shows for HICN_RCV (the
 * consumers' segments), or -2.
 */
static long long proto_memory(void)
{
	char line[512], name[32];
	long long v, found = -2;
	FILE *f = fopen("/proc/net/protocols", "r");

	if (!f)
		return -2;
	/* protocol size sockets memory press ... */
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%31s %*d %*d %lld", name, &v) == 2 &&
		    !strcmp(name, "HICN_RCV")) {
			found = v;
			break;
		}
	}
	fclose(f);
	return found;
}

/*
 * A consumer of a @len-byte object published by @prod, connected without
 * a read: the local producer answers at once, so the window fills the
 * receive buffer now.  Its fd, blocking; the bytes it holds in @rmem.
 */
static int cons_filled(int prod, char *buf, size_t len, long long *rmem)
{
	struct hicn_info hi;
	int c;

	ht_fill(buf, len, 77);
	if (ht_publish(prod, HT_NAME, buf, len, 0) != (ssize_t)len)
		return -1;
	c = socket(hcn_family(), SOCK_CONS | SOCK_NONBLOCK, CONS_REL);
	if (c < 0 || ht_connect(c, HT_NAME, 0) || ht_info(c, &hi) ||
	    fcntl(c, F_SETFL, 0))
		return -1;
	*rmem = hi.hi_rmem;
	return c;
}

/* The object read whole from @c: intact? */
static int cons_intact(int c, char *buf, size_t len)
{
	char *want = malloc(len);
	ssize_t n;
	int ok;

	if (!want)
		return 0;
	ht_fill(want, len, 77);
	n = ht_read_stream(c, buf, len, 65536);
	ok = n == (ssize_t)len && !memcmp(buf, want, len);
	free(want);
	return ok;
}

FIXTURE(cg)
{
	char dir[128];
	int joined;
};

/* A memory cgroup of our own, which this test process joins. */
FIXTURE_SETUP(cg)
{
	int r = cg_join("hicn_memcg", self->dir, sizeof(self->dir));

	if (r == 1)
		SKIP(return, "no cgroup v2 memory controller");
	ASSERT_EQ(0, r);
	self->joined = 1;
	ASSERT_EQ(0, ht_enter_netns());
}

FIXTURE_TEARDOWN(cg)
{
	if (self->joined)
		cg_leave(self->dir);
}

/* Empty versions: only their descriptors are charged. */
TEST_F(cg, versions_charged)
{
	long long before, after;
	int prod, i;

	prod = ht_producer(PROD_REL);
	ASSERT_LE(0, prod);
	ASSERT_EQ(0, ht_setint(prod, HICN_CONTENT_EXPIRY, 0));
	ASSERT_EQ(0, ht_publish(prod, HT_NAME, NULL, 0, 0));
	before = cg_slab(self->dir);
	ASSERT_LE(0, before);
	for (i = 1; i < NVERSIONS; i++)
		ASSERT_EQ(0, ht_publish(prod, HT_NAME, NULL, 0, 0));
	after = cg_slab(self->dir);
	TH_LOG("slab: %lld bytes per version", (after - before) / NVERSIONS);
	/* struct hicn_obj is about 100 bytes. */
	EXPECT_LE(64LL * NVERSIONS, after - before);
	close(prod);
}

/* Consumers waiting for unpublished names: their PIT state is charged. */
TEST_F(cg, pit_charged)
{
	long long before, after;
	int prod, c[NCONS], i;
	char name[64];

	prod = ht_producer(PROD_REL);
	ASSERT_LE(0, prod);
	for (i = 0; i < NCONS; i++) {
		c[i] = socket(hcn_family(), SOCK_CONS | SOCK_NONBLOCK,
			      CONS_UNREL);
		ASSERT_LE(0, c[i]);
		ASSERT_EQ(0, ht_setint(c[i], HICN_INTEREST_LIFETIME, 60000));
		ASSERT_EQ(0, ht_setint(c[i], HICN_WINDOW, 1));
	}
	before = cg_slab(self->dir);
	ASSERT_LE(0, before);
	for (i = 0; i < NCONS; i++) {
		snprintf(name, sizeof(name), "b001:a:b:c::%x", 0x100 + i);
		ASSERT_EQ(0, ht_connect(c[i], name, 0));
	}
	after = cg_slab(self->dir);
	EXPECT_EQ(NCONS, ht_stat("pit_entries"));
	TH_LOG("slab: %lld bytes per interest", (after - before) / NCONS);
	/* An entry (about 72 bytes) and an in-record (40) each. */
	EXPECT_LE(100LL * NCONS, after - before);
	for (i = 0; i < NCONS; i++)
		close(c[i]);
	close(prod);
}

/* A fetch fills the content store: its entries are charged. */
TEST_F(cg, cs_charged)
{
	size_t len = 1024 * 1024;
	char *buf = calloc(1, len + 1);
	long long before, after, entries;
	int prod, c;

	ASSERT_NE(NULL, buf);
	prod = ht_producer(PROD_REL);
	ASSERT_LE(0, prod);
	ASSERT_EQ((ssize_t)len, ht_publish(prod, HT_NAME, buf, len, 0));
	ASSERT_EQ(0, ht_stat("cs_entries"));
	before = cg_slab(self->dir);
	ASSERT_LE(0, before);
	c = ht_consumer(CONS_REL, HT_NAME, 0);
	ASSERT_LE(0, c);
	ASSERT_EQ((ssize_t)len, recv(c, buf, len + 1, 0));
	close(c);
	entries = ht_stat("cs_entries");
	ASSERT_LT(100, entries);
	after = cg_slab(self->dir);
	TH_LOG("slab: %lld bytes per CS entry", (after - before) / entries);
	/* An entry is about 150 bytes. */
	EXPECT_LE(64 * entries, after - before);
	close(prod);
	free(buf);
}

/*
 * Segments a consumer holds for its reader are socket memory of its
 * cgroup while they wait, and counted in the protocol's memory; reading
 * them and closing gives it all back.  Before: "sock" stayed 0 and the
 * protocol had no memory counter (-1).
 */
TEST_F(cg, rcvbuf_is_socket_memory)
{
	size_t len = 2 << 20;
	char *buf = malloc(len);
	long long rmem = 0, sock, pmem, after;
	int prod, c;

	ASSERT_NE(NULL, buf);
	prod = ht_producer(PROD_REL);
	ASSERT_LE(0, prod);
	c = cons_filled(prod, buf, len, &rmem);
	ASSERT_LE(0, c);
	pmem = proto_memory();
	sock = cg_stat(self->dir, "sock");
	TH_LOG("%lld bytes buffered: sock %lld, protocol memory %lld pages",
	       rmem, sock, pmem);
	EXPECT_LT(64 * 1024, rmem);
	EXPECT_LE(rmem, sock);
	EXPECT_LE(0, pmem);
	EXPECT_TRUE(cons_intact(c, buf, len));
	close(c);
	after = cg_stat(self->dir, "sock");
	TH_LOG("after the read and close(): sock %lld", after);
	EXPECT_EQ(0, after);
	close(prod);
	free(buf);
}

/*
 * Consumers closed while their window fills and the socket's work runs,
 * from several processes at once: every byte they held comes back to
 * the cgroup ("sock" 0 after them), nothing is left half-charged.
 * LONG=1 (make check-long): ten times as many.
 */
TEST_F(cg, closed_mid_fetch_gives_back)
{
	const char *long_run = getenv("LONG");
	int rounds = long_run && *long_run == '1' ? 500 : 50;
	size_t len = 1 << 20;
	char *buf = malloc(len);
	int prod, k, i, st, bad = 0;
	pid_t pid[4];

	ASSERT_NE(NULL, buf);
	prod = ht_producer(PROD_REL);
	ASSERT_LE(0, prod);
	ht_fill(buf, len, 78);
	ASSERT_EQ((ssize_t)len, ht_publish(prod, HT_NAME, buf, len, 0));
	for (k = 0; k < 4; k++) {
		pid[k] = fork();
		ASSERT_LE(0, pid[k]);
		if (pid[k])
			continue;
		close(prod);
		for (i = 0; i < rounds; i++) {
			int c = socket(hcn_family(), SOCK_CONS | SOCK_NONBLOCK,
				       CONS_REL);

			if (c < 0 || ht_connect(c, HT_NAME, 0))
				_exit(1);
			if (i % 2)
				recv(c, buf, 4096, MSG_DONTWAIT);
			if (i % 3 == 0)
				usleep(1000 * (i % 7));
			close(c);
		}
		_exit(0);
	}
	for (k = 0; k < 4; k++) {
		ASSERT_EQ(pid[k], waitpid(pid[k], &st, 0));
		bad += !WIFEXITED(st) || WEXITSTATUS(st);
	}
	EXPECT_EQ(0, bad);
	TH_LOG("%d consumers closed mid-fetch", 4 * rounds);
	EXPECT_EQ(0, cg_stat(self->dir, "sock"));
	close(prod);
	free(buf);
}

/*
 * SO_RESERVE_MEM is refused on AF_HICN sockets: the protocol memory of a
 * consumer is kept where no socket option reaches it.  (6.1 accepts the
 * option for any protocol that counts memory; 6.12 on for TCP only.)
 */
TEST_F(cg, reserve_mem_refused)
{
	int type[] = { SOCK_CONS, SOCK_PROD }, i, fd, val = 1 << 20;

	for (i = 0; i < 2; i++) {
		fd = socket(hcn_family(), type[i], 0);
		ASSERT_LE(0, fd);
		EXPECT_EQ(-1, setsockopt(fd, SOL_SOCKET, SO_RESERVE_MEM, &val,
					 sizeof(val)));
		EXPECT_EQ(EOPNOTSUPP, errno);
		close(fd);
	}
}

TEST_HARNESS_MAIN
