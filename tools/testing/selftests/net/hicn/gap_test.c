// SPDX-License-Identifier: GPL-2.0
/*
 * AF_HICN gaps: what a consumer gets when segments of the object it is
 * reading stop existing.
 *
 * A PROD_UNREL producer keeps only the newest version of a name, so
 * publishing version 2 while a consumer is in the middle of version 1
 * withdraws the segments it has not fetched yet.  The consumer reads
 * segment 0 first with a window of one interest and a short buffer, so
 * that the rest of version 1 is still to be asked for when version 2
 * replaces it.
 *
 * - CONS_UNREL: the missing segments read as zeros, the object keeps its
 *   length, recvmsg() carries SOL_HICN/HICN_CMSG_LOST with their count
 *   and hi_lost counts them.
 * - CONS_REL: the fetch fails with ENOENT (the version is gone for good).
 */

#include <sys/uio.h>

#include "hicn_test.h"
#include "kselftest_harness.h"

#define PKT	1000
#define SEGS	5
#define SIZE	(PKT * SEGS - 123)

FIXTURE(gap)
{
	int prod, cons;
	char src[SIZE];
	char dst[SIZE + 64];
};

FIXTURE_SETUP(gap)
{
	ASSERT_EQ(0, ht_enter_netns());
	self->prod = ht_producer(PROD_UNREL);
	ASSERT_LE(0, self->prod);
	ASSERT_EQ(0, ht_setint(self->prod, HICN_PACKET_SIZE, PKT));
	ht_fill(self->src, SIZE, 77);
	ASSERT_EQ(SIZE, ht_publish(self->prod, HT_NAME, self->src, SIZE, 0));
	self->cons = -1;
}

FIXTURE_TEARDOWN(gap)
{
	if (self->cons >= 0)
		close(self->cons);
	close(self->prod);
}

/*
 * Connect a consumer of @protocol with a window of one; read the first
 * 100 bytes into @dst.
 */
static int start_reading(char *dst, int protocol)
{
	int c = socket(hcn_family(), SOCK_CONS, protocol);

	if (c < 0)
		return -1;
	if (ht_setint(c, HICN_WINDOW, 1) || ht_connect(c, HT_NAME, 0)) {
		close(c);
		return -1;
	}
	if (recv(c, dst, 100, 0) != 100) {
		close(c);
		return -1;
	}
	return c;
}

TEST_F(gap, unrel_reads_zeros_and_counts_the_gap)
{
	char cbuf[CMSG_SPACE(sizeof(__u32))];
	size_t got = 100, i;
	struct hicn_info hi;
	struct cmsghdr *cm;
	__u32 lost = 0;
	ssize_t n;

	self->cons = start_reading(self->dst, CONS_UNREL);
	ASSERT_LE(0, self->cons);
	/* Version 2 withdraws what is left of version 1. */
	ASSERT_EQ(4, ht_publish(self->prod, HT_NAME, "new!", 4, 0));

	for (;;) {
		struct iovec iov = { self->dst + got, sizeof(self->dst) - got };
		struct msghdr msg = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
		};

		n = recvmsg(self->cons, &msg, 0);
		ASSERT_LE(0, n) TH_LOG("recvmsg: %s", strerror(errno));
		if (!n)
			break;
		got += n;
		for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
			ASSERT_EQ(SOL_HICN, cm->cmsg_level);
			ASSERT_EQ(HICN_CMSG_LOST, cm->cmsg_type);
			memcpy(&lost, CMSG_DATA(cm), sizeof(lost));
		}
	}
	/* The object keeps its length; segment 0 is intact, the rest zero. */
	ASSERT_EQ((size_t)SIZE, got);
	EXPECT_EQ(0, memcmp(self->dst, self->src, PKT));
	for (i = PKT; i < SIZE; i++)
		if (self->dst[i])
			break;
	EXPECT_EQ((size_t)SIZE, i) TH_LOG("byte %zu is not zero", i);
	EXPECT_EQ(SEGS - 1, lost);
	ASSERT_EQ(0, ht_info(self->cons, &hi));
	EXPECT_EQ(SEGS - 1, hi.hi_lost);
	EXPECT_EQ(0, hi.hi_interests_retx);
	EXPECT_EQ(1, hi.hi_objects);
}

TEST_F(gap, rel_fails_with_enoent)
{
	ssize_t n;

	self->cons = start_reading(self->dst, CONS_REL);
	ASSERT_LE(0, self->cons);
	ASSERT_EQ(4, ht_publish(self->prod, HT_NAME, "new!", 4, 0));

	/* The rest of segment 0 is there; then the version is gone. */
	n = recv(self->cons, self->dst + 100, sizeof(self->dst) - 100, 0);
	ASSERT_EQ(PKT - 100, n);
	EXPECT_EQ(0, memcmp(self->dst, self->src, PKT));
	EXPECT_EQ(-1, recv(self->cons, self->dst, sizeof(self->dst), 0));
	EXPECT_EQ(ENOENT, errno);
	/* The next fetch gets the newest version, whole. */
	n = recv(self->cons, self->dst, sizeof(self->dst), 0);
	ASSERT_EQ(4, n) TH_LOG("recv: %s", strerror(errno));
	EXPECT_EQ(0, memcmp(self->dst, "new!", 4));
}

TEST_HARNESS_MAIN
