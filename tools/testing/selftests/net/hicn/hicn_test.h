/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the AF_HICN data-path selftests (transfer, version,
 * pit_cs, errno, timeout, cycles): names, producer and consumer set-up,
 * /proc/net/hicn_stat and net.hicn.* sysctls, struct hicn_info, random
 * payloads, a clock, and a route to a UDP peer that never answers (a
 * stall without publishing a version again).
 *
 * Every test that publishes starts with hicn_enter_netns(): the harness
 * runs each test in its own child process, so each one gets a network
 * namespace of its own, with an empty PIT, CS and FIB, fresh counters and
 * the sysctl defaults, and cannot disturb the next test.
 */
#ifndef _HICN_TEST_H
#define _HICN_TEST_H

#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include "hcn.h"
#include "test_util.h"

/* The namespace every test publishes under, and names inside it. */
#define HT_NS		"b001:a:b:c::"
#define HT_NS_LEN	64
#define HT_NAME		"b001:a:b:c::1"
#define HT_NAME2	"b001:a:b:c::2"
#define HT_OUTSIDE	"b001:a:b:d::1"

#define HT_SYSCTL(x)	"/proc/sys/net/hicn/" x

/* A name: @addr/@plen, version @version. */
static inline struct sockaddr_hicn ht_name(const char *addr, int plen,
					   __u32 version)
{
	struct sockaddr_hicn a;

	memset(&a, 0, sizeof(a));
	a.sin_family = hcn_family();
	a.sin_prefix = plen;
	a.sin_suffix = version;
	if (hcn_pton(AF_HICN, addr, &a.sin_addr) != 1)
		a.sin_family = 0;
	return a;
}

/* A network namespace of our own (see the top of this file). */
static inline int ht_enter_netns(void)
{
	return unshare(CLONE_NEWNET);
}

/* A producer of @protocol bound to @prefix/@plen, or -1. */
static inline int ht_producer_of(int protocol, const char *prefix, int plen)
{
	struct sockaddr_hicn ns = ht_name(prefix, plen, 0);
	int fd = socket(hcn_family(), SOCK_PROD, protocol);

	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&ns, sizeof(ns))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* A producer of @protocol bound to HT_NS/HT_NS_LEN, or -1. */
static inline int ht_producer(int protocol)
{
	return ht_producer_of(protocol, HT_NS, HT_NS_LEN);
}

/* Publish @len bytes under @addr: sendto()'s return value. */
static inline ssize_t ht_publish(int fd, const char *addr, const void *buf,
				 size_t len, int flags)
{
	struct sockaddr_hicn n = ht_name(addr, 128, 0);

	return sendto(fd, buf, len, flags, (struct sockaddr *)&n, sizeof(n));
}

/*
 * A consumer of @protocol bound (seed style) to @addr version @version in
 * the namespace HT_NS/HT_NS_LEN, or -1.
 */
static inline int ht_consumer(int protocol, const char *addr, __u32 version)
{
	struct sockaddr_hicn n = ht_name(addr, HT_NS_LEN, version);
	int fd = socket(hcn_family(), SOCK_CONS, protocol);

	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&n, sizeof(n))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* connect() @fd to @addr version @version (stream mode). */
static inline int ht_connect(int fd, const char *addr, __u32 version)
{
	struct sockaddr_hicn n = ht_name(addr, 128, version);

	return connect(fd, (struct sockaddr *)&n, sizeof(n));
}

/*
 * Stream mode: recv() in chunks of @chunk bytes until it returns 0.
 * Stores up to @cap bytes in @buf; returns the total length of the object
 * (which may exceed @cap), or -1 with errno set.
 */
static inline ssize_t ht_read_stream(int fd, void *buf, size_t cap,
				     size_t chunk)
{
	static char scratch[65536];
	size_t total = 0;
	ssize_t n;

	if (chunk > sizeof(scratch))
		chunk = sizeof(scratch);
	for (;;) {
		char *dst = total < cap ? (char *)buf + total : scratch;
		size_t want = total < cap ? cap - total : chunk;

		if (want > chunk)
			want = chunk;
		n = recv(fd, dst, want, 0);
		if (n < 0)
			return -1;
		if (n == 0)
			return total;
		total += n;
	}
}

static inline int ht_setint(int fd, int opt, int val)
{
	return setsockopt(fd, SOL_HICN, opt, &val, sizeof(val));
}

/* An integer option's value, or -1 with errno set. */
static inline int ht_getint(int fd, int opt)
{
	socklen_t len = sizeof(int);
	int val = -1;

	if (getsockopt(fd, SOL_HICN, opt, &val, &len))
		return -1;
	return val;
}

static inline int ht_info(int fd, struct hicn_info *hi)
{
	socklen_t len = sizeof(*hi);

	memset(hi, 0, sizeof(*hi));
	return getsockopt(fd, SOL_HICN, HICN_INFO, hi, &len);
}

/* A line "@key value" of /proc/net/hicn_stat, or -1. */
static inline long long ht_stat(const char *key)
{
	char line[256], name[64];
	long long v, found = -1;
	FILE *f = fopen("/proc/net/hicn_stat", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %lld", name, &v) == 2 &&
		    !strcmp(name, key)) {
			found = v;
			break;
		}
	}
	fclose(f);
	return found;
}

/* Data segments of an object of @len bytes cut into @pkt-byte payloads. */
static inline unsigned long long ht_segments(size_t len, size_t pkt)
{
	return len ? (len + pkt - 1) / pkt : 1;
}

/* Fill @buf with a xorshift64 stream seeded by @seed. */
static inline void ht_fill(void *buf, size_t len, uint64_t seed)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 1;
	unsigned char *p = buf;
	size_t i;

	for (i = 0; i < len; i++) {
		if (!(i & 7)) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
		}
		p[i] = x >> ((i & 7) * 8);
	}
}

/* CLOCK_MONOTONIC in milliseconds. */
static inline double ht_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static inline void ht_sleep_ms(int ms)
{
	usleep(ms * 1000);
}

/*
 * Wait until the counter @key of /proc/net/hicn_stat is at least @want,
 * polling, for up to @timeout_ms: its last value (-1 if it is missing).
 * A test synchronises on the event it needs, never on a sleep.
 */
static inline long long ht_wait_stat(const char *key, long long want,
				     int timeout_ms)
{
	double end = ht_ms() + timeout_ms;
	long long v;

	for (;;) {
		v = ht_stat(key);
		if (v >= want || ht_ms() > end)
			return v;
		usleep(1000);
	}
}

/*
 * 1 once thread @tid of process @pid sleeps interruptibly (state S in
 * /proc/PID/task/TID/stat: blocked in a call such as recv(), not merely
 * descheduled), waiting up to @timeout_ms; else 0.
 */
static inline int ht_wait_task_sleeping(pid_t pid, pid_t tid, int timeout_ms)
{
	double end = ht_ms() + timeout_ms;
	char path[64], buf[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	for (;;) {
		f = fopen(path, "r");
		if (!f)
			return 0;
		p = fgets(buf, sizeof(buf), f);
		fclose(f);
		p = p ? strrchr(buf, ')') : NULL;
		if (p && p[1] == ' ' && p[2] == 'S')
			return 1;
		if (ht_ms() > end)
			return 0;
		sched_yield();
	}
}

/* ht_wait_task_sleeping() for thread @tid of this process. */
static inline int ht_wait_sleeping(pid_t tid, int timeout_ms)
{
	return ht_wait_task_sleeping(getpid(), tid, timeout_ms);
}

/* lo up, for 127.0.0.1 (a new network namespace has it down). */
static inline int ht_lo_up(void)
{
	struct ifreq ifr;
	int fd, err;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	err = ioctl(fd, SIOCGIFFLAGS, &ifr);
	if (!err) {
		ifr.ifr_flags |= IFF_UP;
		err = ioctl(fd, SIOCSIFFLAGS, &ifr);
	}
	close(fd);
	return err;
}

/* A route to a UDP peer that never answers (ht_silent_route()). */
struct ht_silent {
	int		peer;	/* the peer's socket, -1 before */
	__u32		face;	/* the face to it */
	struct in6_addr	prefix;
	int		plen;
};

/*
 * A UDP socket on 127.0.0.1 that never answers, a listener and a face to
 * it, and a route of @addr/@plen by that face: from here on, every
 * interest under @addr leaves for the silent peer (a route longer than a
 * producer's claim decides) and goes unanswered, the consumer resending
 * it at its RTO.  Nothing is published again: a name and version stay
 * one object.  0, or -1 (@s->peer then -1).
 */
static inline int ht_silent_route(struct ht_silent *s, const char *addr,
				  int plen)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sin);
	struct hcn_listener l = {};
	struct hcn_face f = {};
	__u32 lid = 0;

	s->peer = -1;
	s->plen = plen;
	if (ht_lo_up() || hcn_pton(AF_HICN, addr, &s->prefix) != 1)
		return -1;
	s->peer = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s->peer < 0)
		return -1;
	if (bind(s->peer, (struct sockaddr *)&sin, sizeof(sin)) ||
	    getsockname(s->peer, (struct sockaddr *)&sin, &len))
		goto fail;
	l.family = AF_INET;
	l.local.v4.s_addr = htonl(INADDR_LOOPBACK);
	l.attrs = HCN_ATTR(HICN_A_LISTENER_LOCAL);
	if (hcn_listener_add(&l, &lid))
		goto fail;
	f.listener_id = lid;
	f.family = AF_INET;
	f.remote.v4.s_addr = htonl(INADDR_LOOPBACK);
	f.remote_port = ntohs(sin.sin_port);
	f.attrs = HCN_ATTR(HICN_A_FACE_LISTENER_ID) |
		  HCN_ATTR(HICN_A_FACE_REMOTE) | HCN_ATTR(HICN_A_FACE_REMOTE_PORT);
	if (hcn_face_add(&f, &s->face) ||
	    hcn_route_add(&s->prefix, plen, s->face, 0))
		goto fail;
	return 0;
fail:
	close(s->peer);
	s->peer = -1;
	return -1;
}

/*
 * The silence ends: without the route, the interests (the consumers'
 * retransmissions) reach the producer again.  0 or -errno.
 */
static inline int ht_silent_end(struct ht_silent *s)
{
	return hcn_route_del(&s->prefix, s->plen, s->face);
}

/* Compare two buffers; the offset of the first difference, or -1. */
static inline long ht_diff(const void *a, const void *b, size_t len)
{
	const unsigned char *x = a, *y = b;
	size_t i;

	if (!memcmp(a, b, len))
		return -1;
	for (i = 0; i < len; i++)
		if (x[i] != y[i])
			return i;
	return -1;
}

#endif /* _HICN_TEST_H */
