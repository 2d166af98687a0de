// SPDX-License-Identifier: GPL-2.0
/*
 * AF_HICN transfers, producer -> consumer, verified byte for byte.
 *
 * Object sizes 0, 1, one segment, one segment + 1, 1 MiB and 16 MiB of
 * random data, with the default HICN_PACKET_SIZE (1500) and with non-default
 * ones (64, 9000, 65000), each fetched:
 *   - in datagram mode: the consumer bind()s the name, one recvfrom()
 *     returns the whole object and the name it came from (prefix 128,
 *     sin_suffix = version 1, sin_addr = the name);
 *   - in stream mode: connect() then recv() until it returns 0.
 * After each transfer the HICN_INFO counters of both sockets must match what
 * moved: segments = ceil(size / packet size) (1 for an empty object),
 * bytes, objects, last version, versions held and memory charged.
 * MSG_TRUNC: a short buffer gets the first bytes and MSG_TRUNC in
 * msg_flags; MSG_TRUNC in the flags returns the object's real length.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include "hicn_test.h"
#include "kselftest_harness.h"

#define MIB (1024U * 1024)

static size_t page_align(size_t len)
{
	long page = sysconf(_SC_PAGESIZE);

	return (len + page - 1) / page * page;
}

FIXTURE(xfer)
{
	int prod;
	int cons;
	unsigned char *src;
	unsigned char *dst;
	size_t cap;
};

FIXTURE_VARIANT(xfer)
{
	size_t size;
	int pkt;	/* HICN_PACKET_SIZE, 0 = leave the default */
};

FIXTURE_VARIANT_ADD(xfer, empty)	{ .size = 0 };
FIXTURE_VARIANT_ADD(xfer, one_byte)	{ .size = 1 };
FIXTURE_VARIANT_ADD(xfer, one_segment)	{ .size = 1500 };
FIXTURE_VARIANT_ADD(xfer, segment_plus_1) { .size = 1501 };
FIXTURE_VARIANT_ADD(xfer, one_mib)	{ .size = MIB };
FIXTURE_VARIANT_ADD(xfer, sixteen_mib)	{ .size = 16 * MIB };
FIXTURE_VARIANT_ADD(xfer, pkt9000_empty) { .size = 0, .pkt = 9000 };
FIXTURE_VARIANT_ADD(xfer, pkt9000_one_segment) { .size = 9000, .pkt = 9000 };
FIXTURE_VARIANT_ADD(xfer, pkt9000_segment_plus_1) { .size = 9001, .pkt = 9000 };
FIXTURE_VARIANT_ADD(xfer, pkt9000_one_mib) { .size = MIB, .pkt = 9000 };
FIXTURE_VARIANT_ADD(xfer, pkt64_min)	{ .size = 100000, .pkt = HICN_PACKET_SIZE_MIN };
FIXTURE_VARIANT_ADD(xfer, pkt65000_max)	{ .size = 3 * MIB + 7, .pkt = HICN_PACKET_SIZE_MAX };

FIXTURE_SETUP(xfer)
{
	ASSERT_EQ(0, ht_enter_netns());
	self->prod = ht_producer(PROD_REL);
	ASSERT_LE(0, self->prod);
	self->cons = socket(hcn_family(), SOCK_CONS, CONS_REL);
	ASSERT_LE(0, self->cons);
	self->cap = variant->size + 4096;
	self->src = malloc(variant->size + 1);
	self->dst = malloc(self->cap);
	ASSERT_NE(NULL, self->src);
	ASSERT_NE(NULL, self->dst);
	ht_fill(self->src, variant->size, variant->size + 17);
	memset(self->dst, 0xa5, self->cap);
	if (variant->pkt) {
		ASSERT_EQ(0, ht_setint(self->prod, HICN_PACKET_SIZE, variant->pkt));
		ASSERT_EQ(variant->pkt, ht_getint(self->prod, HICN_PACKET_SIZE));
	} else {
		ASSERT_EQ(HICN_PACKET_SIZE_DEFAULT,
			  ht_getint(self->prod, HICN_PACKET_SIZE));
	}
	ASSERT_EQ((ssize_t)variant->size,
		  ht_publish(self->prod, HT_NAME, self->src, variant->size, 0))
		TH_LOG("sendto: %s", strerror(errno));
}

FIXTURE_TEARDOWN(xfer)
{
	close(self->cons);
	close(self->prod);
	free(self->src);
	free(self->dst);
}

/* The counters of both sockets after one transfer of the object. */
static void check_info(struct __test_metadata *_metadata,
		       struct _test_data_xfer *self,
		       const struct _fixture_variant_xfer *variant)
{
	unsigned long long segs = ht_segments(variant->size,
					      variant->pkt ?: HICN_PACKET_SIZE_DEFAULT);
	struct hicn_info c, p;

	ASSERT_EQ(0, ht_info(self->cons, &c));
	ASSERT_EQ(0, ht_info(self->prod, &p));

	EXPECT_EQ(HICN_INFO_VERSION, c.hi_version);
	EXPECT_EQ(sizeof(c), c.hi_size);
	EXPECT_EQ(SOCK_CONS, c.hi_type);
	EXPECT_EQ(CONS_REL, c.hi_protocol);
	EXPECT_EQ(segs, c.hi_segments);
	EXPECT_EQ(variant->size, c.hi_bytes);
	EXPECT_EQ(1, c.hi_objects);
	EXPECT_EQ(1, c.hi_last_version);
	EXPECT_LE(segs, c.hi_interests_sent);
	EXPECT_GE(c.hi_interests_sent, c.hi_interests_retx);
	/* A fresh namespace: nothing can come from the content store. */
	EXPECT_EQ(0, c.hi_cache_hits);
	EXPECT_EQ(0, c.hi_lost);
	EXPECT_EQ(0, c.hi_interests_received);

	EXPECT_EQ(HICN_INFO_VERSION, p.hi_version);
	EXPECT_EQ(sizeof(p), p.hi_size);
	EXPECT_EQ(SOCK_PROD, p.hi_type);
	EXPECT_EQ(PROD_REL, p.hi_protocol);
	EXPECT_EQ(segs, p.hi_segments);
	EXPECT_EQ(variant->size, p.hi_bytes);
	EXPECT_EQ(1, p.hi_objects);
	EXPECT_EQ(1, p.hi_last_version);
	EXPECT_EQ(1, p.hi_versions);
	EXPECT_LE(segs, p.hi_interests_received);
	EXPECT_LE(page_align(variant->size), p.hi_mem);
	EXPECT_LT(0, p.hi_mem);
	EXPECT_EQ(0, p.hi_interests_sent);
	EXPECT_EQ(0, p.hi_cache_hits);
}

TEST_F_TIMEOUT(xfer, datagram, 240)
{
	struct sockaddr_hicn n = ht_name(HT_NAME, HT_NS_LEN, 0);
	struct sockaddr_hicn want = ht_name(HT_NAME, 128, 1), from;
	socklen_t fromlen = sizeof(from);
	ssize_t got;

	ASSERT_EQ(0, bind(self->cons, (struct sockaddr *)&n, sizeof(n)));
	memset(&from, 0xff, sizeof(from));
	got = recvfrom(self->cons, self->dst, self->cap, 0,
		       (struct sockaddr *)&from, &fromlen);
	ASSERT_EQ((ssize_t)variant->size, got) TH_LOG("recvfrom: %s", strerror(errno));
	EXPECT_EQ(-1, ht_diff(self->src, self->dst, variant->size));
	/* Nothing written beyond the object. */
	EXPECT_EQ(0xa5, self->dst[variant->size]);

	EXPECT_EQ(sizeof(from), fromlen);
	EXPECT_EQ(want.sin_family, from.sin_family);
	EXPECT_EQ(128, from.sin_prefix);
	EXPECT_EQ(0, from.sin_flags);
	EXPECT_EQ(1, from.sin_suffix);
	EXPECT_EQ(0, memcmp(&want.sin_addr, &from.sin_addr, sizeof(want.sin_addr)));

	check_info(_metadata, self, variant);
}

TEST_F_TIMEOUT(xfer, stream, 240)
{
	ssize_t got;

	ASSERT_EQ(0, ht_connect(self->cons, HT_NAME, 0));
	got = ht_read_stream(self->cons, self->dst, self->cap, 65536);
	ASSERT_EQ((ssize_t)variant->size, got) TH_LOG("recv: %s", strerror(errno));
	EXPECT_EQ(-1, ht_diff(self->src, self->dst, variant->size));
	check_info(_metadata, self, variant);
}

/* Stream mode with reads of odd sizes: the bytes still come in order. */
TEST_F_TIMEOUT(xfer, stream_odd_reads, 240)
{
	ssize_t got;

	ASSERT_EQ(0, ht_connect(self->cons, HT_NAME, 1));
	got = ht_read_stream(self->cons, self->dst, self->cap, 777);
	ASSERT_EQ((ssize_t)variant->size, got) TH_LOG("recv: %s", strerror(errno));
	EXPECT_EQ(-1, ht_diff(self->src, self->dst, variant->size));
}

FIXTURE(trunc)
{
	int prod;
	unsigned char src[10000];
};

FIXTURE_SETUP(trunc)
{
	ASSERT_EQ(0, ht_enter_netns());
	self->prod = ht_producer(PROD_REL);
	ASSERT_LE(0, self->prod);
	ht_fill(self->src, sizeof(self->src), 3);
	ASSERT_EQ((ssize_t)sizeof(self->src),
		  ht_publish(self->prod, HT_NAME, self->src, sizeof(self->src), 0));
}

FIXTURE_TEARDOWN(trunc)
{
	close(self->prod);
}

/* recvmsg() with a short buffer: the first bytes, MSG_TRUNC in msg_flags. */
TEST_F(trunc, short_buffer_sets_msg_trunc)
{
	int c = ht_consumer(CONS_REL, HT_NAME, 0);
	unsigned char buf[100];
	struct sockaddr_hicn from;
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr m = {
		.msg_name = &from, .msg_namelen = sizeof(from),
		.msg_iov = &iov, .msg_iovlen = 1,
	};

	ASSERT_LE(0, c);
	ASSERT_EQ((ssize_t)sizeof(buf), recvmsg(c, &m, 0))
		TH_LOG("recvmsg: %s", strerror(errno));
	EXPECT_TRUE(m.msg_flags & MSG_TRUNC);
	EXPECT_EQ(0, memcmp(buf, self->src, sizeof(buf)));
	EXPECT_EQ(1, from.sin_suffix);
	close(c);
}

/* MSG_TRUNC in the flags: the object's real length is returned. */
TEST_F(trunc, msg_trunc_flag_returns_real_length)
{
	int c = ht_consumer(CONS_REL, HT_NAME, 0);
	unsigned char buf[100];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };

	ASSERT_LE(0, c);
	ASSERT_EQ((ssize_t)sizeof(self->src), recvmsg(c, &m, MSG_TRUNC))
		TH_LOG("recvmsg: %s", strerror(errno));
	EXPECT_TRUE(m.msg_flags & MSG_TRUNC);
	EXPECT_EQ(0, memcmp(buf, self->src, sizeof(buf)));
	/* hi_bytes: the bytes delivered, not the length returned. */
	{
		struct hicn_info hi;

		ASSERT_EQ(0, ht_info(c, &hi));
		EXPECT_EQ(sizeof(buf), hi.hi_bytes);
	}
	close(c);

	/* recv() too. */
	c = ht_consumer(CONS_REL, HT_NAME, 0);
	ASSERT_LE(0, c);
	memset(buf, 0, sizeof(buf));
	EXPECT_EQ((ssize_t)sizeof(self->src), recv(c, buf, 10, MSG_TRUNC));
	EXPECT_EQ(0, memcmp(buf, self->src, 10));
	EXPECT_EQ(0, buf[10]);
	close(c);
}

/* A buffer of exactly the object's size: no MSG_TRUNC. */
TEST_F(trunc, exact_buffer_no_msg_trunc)
{
	int c = ht_consumer(CONS_REL, HT_NAME, 0);
	unsigned char buf[sizeof(self->src)];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };

	ASSERT_LE(0, c);
	ASSERT_EQ((ssize_t)sizeof(buf), recvmsg(c, &m, 0));
	EXPECT_FALSE(m.msg_flags & MSG_TRUNC);
	EXPECT_EQ(0, memcmp(buf, self->src, sizeof(buf)));
	close(c);
}

/* A scattered iovec receives the object across its pieces, in order. */
TEST_F(trunc, scattered_iovec)
{
	int c = ht_consumer(CONS_REL, HT_NAME, 0);
	unsigned char a[3000], b[7000];
	struct iovec iov[2] = {
		{ .iov_base = a, .iov_len = sizeof(a) },
		{ .iov_base = b, .iov_len = sizeof(b) },
	};
	struct msghdr m = { .msg_iov = iov, .msg_iovlen = 2 };

	ASSERT_LE(0, c);
	ASSERT_EQ((ssize_t)sizeof(self->src), recvmsg(c, &m, 0));
	EXPECT_EQ(0, memcmp(a, self->src, sizeof(a)));
	EXPECT_EQ(0, memcmp(b, self->src + sizeof(a), sizeof(b)));
	close(c);
}

/*
 * After EOF a stream consumer's recv() returns 0 again; connect() starts
 * a new fetch.
 */
TEST_F(trunc, stream_refetch_after_eof)
{
	int c = socket(hcn_family(), SOCK_CONS, CONS_REL);
	unsigned char buf[sizeof(self->src) + 16];
	struct hicn_info hi;

	ASSERT_LE(0, c);
	ASSERT_EQ(0, ht_connect(c, HT_NAME, 0));
	ASSERT_EQ((ssize_t)sizeof(self->src),
		  ht_read_stream(c, buf, sizeof(buf), 4096));
	ASSERT_EQ(0, memcmp(buf, self->src, sizeof(self->src)));
	EXPECT_EQ(0, recv(c, buf, sizeof(buf), MSG_DONTWAIT));
	memset(buf, 0, sizeof(buf));
	ASSERT_EQ(0, ht_connect(c, HT_NAME, 0));
	ASSERT_EQ((ssize_t)sizeof(self->src),
		  ht_read_stream(c, buf, sizeof(buf), 4096));
	EXPECT_EQ(0, memcmp(buf, self->src, sizeof(self->src)));
	ASSERT_EQ(0, ht_info(c, &hi));
	EXPECT_EQ(2, hi.hi_objects);
	EXPECT_EQ(2 * sizeof(self->src), hi.hi_bytes);
	close(c);
}

TEST_HARNESS_MAIN
