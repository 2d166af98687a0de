// SPDX-License-Identifier: GPL-2.0
/*
 * The API example of Documentation/hicn-api.rst (api_example.c, included
 * here as it is) compiled and run: its producer publishes, its datagram
 * and stream consumers must get the string back.  Also checks the example's
 * pieces one by one, so a failure says which one broke.
 */
#define EXAMPLE_NO_MAIN
#include "api_example.c"

#include "hicn_test.h"
#include "kselftest_harness.h"

static const char msg[] = "This string will be published in the hicn socket";

FIXTURE(ex)
{
	int prod;
};

FIXTURE_SETUP(ex)
{
	ASSERT_EQ(0, ht_enter_netns());
	self->prod = -1;
}

FIXTURE_TEARDOWN(ex)
{
	if (self->prod >= 0)
		close(self->prod);
}

TEST_F(ex, whole_example)
{
	EXPECT_EQ(0, example_main());
	EXPECT_EQ(0, proto_inuse("HICN"));
}

TEST_F(ex, pieces)
{
	char buf[BUF_SIZE];

	self->prod = example_producer(msg);
	ASSERT_LE(0, self->prod);
	memset(buf, 0, sizeof(buf));
	ASSERT_EQ((ssize_t)strlen(msg), example_consumer(buf, sizeof(buf)));
	EXPECT_STREQ(msg, buf);
	memset(buf, 0, sizeof(buf));
	ASSERT_EQ((ssize_t)strlen(msg), example_stream_consumer(buf, sizeof(buf)));
	EXPECT_STREQ(msg, buf);
}

TEST_HARNESS_MAIN
