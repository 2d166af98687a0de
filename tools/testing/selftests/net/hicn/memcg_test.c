// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel memory AF_HICN keeps for a process is charged to its memory
 * cgroup (Documentation/hicn-api.rst, "Unprivileged users"), read from
 * memory.stat "slab" of a cgroup of the test's own under cgroup v2:
 *
 * - each published version's descriptor (struct hicn_obj), also for an
 *   empty object, where no payload is charged (GFP_KERNEL_ACCOUNT);
 * - each PIT entry and in-record a consumer's interest creates;
 * - each content-store entry a consumer's fetch fills.
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
#include <netinet/in.h>

#include "cg_lib.h"
#include "hicn_test.h"
#include "kselftest_harness.h"

#define NVERSIONS	4096
#define NCONS		800

/* Bytes of slab charged to the cgroup @dir, after a stats flush. */
static long long cg_slab(const char *dir)
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
		if (!strcmp(key, "slab")) {
			found = v;
			break;
		}
	}
	fclose(f);
	return found;
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

TEST_HARNESS_MAIN
