// SPDX-License-Identifier: GPL-2.0
/*
 * AF_HICN life cycles: CYCLES rounds of open producer / bind / publish /
 * open consumer / fetch (alternately datagram and stream mode) / close
 * both, each round under a name of its own and checked byte for byte.
 * Afterwards the network namespace must hold no AF_HICN socket
 * (/proc/net/protocols "HICN" inuse 0), no PIT entry, no FIB entry, and,
 * once net.hicn.cs_max_entries=0 flushed it, no CS entry either.
 *
 * CYCLES is 10000 (-DCYCLES=N to change it), or as many as CYCLES_S
 * seconds allow, at least CYCLES_MIN: the debug kernel, under TCG, does
 * about 60 a second.  Measured under TCG emulation (Debian 6.12, 2 vCPUs,
 * make check): 10000 cycles in 3.0 to 11 s; the run prints "# N cycles
 * in S s".  With LONG=1 (make check-long) all CYCLES run, however long.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include "hicn_test.h"
#include "kselftest_harness.h"

#ifndef CYCLES
#define CYCLES	10000
#endif
#define CYCLES_S	45
#define CYCLES_MIN	1000

static int one_cycle(int i)
{
	unsigned char src[300], dst[400];
	char addr[64];
	size_t len = 1 + i % 300;
	int p, c, ret = -1;
	ssize_t n;

	snprintf(addr, sizeof(addr), "b001:a:b:c::%x:%x", i >> 16, i & 0xffff);
	ht_fill(src, len, i);
	p = ht_producer(i & 2 ? PROD_UNREL : PROD_REL);
	if (p < 0)
		return -1;
	if (ht_publish(p, addr, src, len, 0) != (ssize_t)len)
		goto close_p;
	if (i & 1) {
		c = socket(hcn_family(), SOCK_CONS, i & 4 ? CONS_UNREL : CONS_REL);
		if (c < 0)
			goto close_p;
		if (ht_connect(c, addr, 0))
			goto close_c;
		n = ht_read_stream(c, dst, sizeof(dst), sizeof(dst));
	} else {
		c = ht_consumer(i & 4 ? CONS_UNREL : CONS_REL, addr, 0);
		if (c < 0)
			goto close_p;
		n = recv(c, dst, sizeof(dst), 0);
	}
	if (n == (ssize_t)len && !memcmp(src, dst, len))
		ret = 0;
	else if (n >= 0)
		errno = EBADMSG;
close_c:
	close(c);
close_p:
	close(p);
	return ret;
}

FIXTURE(netns)
{
};

FIXTURE_SETUP(netns)
{
	ASSERT_EQ(0, ht_enter_netns());
}

FIXTURE_TEARDOWN(netns)
{
}

TEST_F_TIMEOUT(netns, cycles, 590)
{
	const char *long_run = getenv("LONG");
	bool all = long_run && !strcmp(long_run, "1");
	double t0, dt;
	int i = 0;

	ASSERT_EQ(0, proto_inuse("HICN"));
	t0 = ht_ms();
	/* Braces: ASSERT_*()'s bail-out must stay inside the loop. */
	while (i < CYCLES) {
		int err = one_cycle(i);

		ASSERT_EQ(0, err) TH_LOG("cycle %d: %s", i, strerror(errno));
		i++;
		if (!all && i >= CYCLES_MIN && ht_ms() - t0 > CYCLES_S * 1000)
			break;
	}
	dt = (ht_ms() - t0) / 1000;
	ksft_print_msg("%d cycles in %.1f s (%.2f ms each)\n", i, dt,
		       dt * 1000 / i);
	EXPECT_LE(CYCLES_MIN, i);

	EXPECT_EQ(0, proto_inuse("HICN"));
	EXPECT_EQ(0, ht_stat("pit_entries"));
	EXPECT_EQ(0, ht_stat("fib_entries"));
	ASSERT_EQ(0, sysctl_set(HT_SYSCTL("cs_max_entries"), "0"));
	EXPECT_EQ(0, ht_stat("cs_entries"));
	EXPECT_EQ(0, ht_stat("cs_bytes"));
}

TEST_HARNESS_MAIN
