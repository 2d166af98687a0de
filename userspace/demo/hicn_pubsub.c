// SPDX-License-Identifier: GPL-2.0
/*
 * Demo: publish a file with an AF_HICN producer and fetch it with a
 * consumer in another process, then send the same bytes over TCP on the
 * loopback for comparison.
 *
 * The consumer process connect()s to the name first (its request waits at
 * the producer), the producer publishes the file with one sendto(), and
 * the consumer reads the object until recv() returns 0.  Both sides compute
 * a 64-bit FNV-1a checksum; the demo prints the size, both checksums, the
 * producer's and consumer's HICN_INFO counters and the throughput against
 * TCP loopback (time from the start of the publication / first send to the
 * last byte received, CLOCK_MONOTONIC).
 *
 * Two more modes split the same into two processes that may run in
 * different network namespaces (hicn_relay.sh runs them on three hosts):
 * "publish" claims NAMESPACE, publishes FILE as NAME in 1360-byte segments
 * (one fits a 1500-byte link in a UDP face's datagram), prints the
 * version and waits, serving it, until SIGTERM or SIGINT; "fetch" fetches
 * the newest version of NAME (or NAME#VERSION) into OUT and prints the
 * version, the segments, the interests sent and the throughput.
 *
 * Usage: hicn_pubsub [FILE]     (no FILE: a generated 4 MiB file)
 *        hicn_pubsub publish NAMESPACE NAME FILE
 *        hicn_pubsub fetch NAME[#VERSION] OUT [MAX_WINDOW]
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <netinet/in.h>

#include "hcn.h"

#define NAME	"b001:a:b:c::f11e"
#define CHUNK	(64 * 1024)
/*
 * A segment in one UDP face's datagram on a 1500-byte link, unfragmented:
 * 1500 - 40 (IPv6) - 8 (UDP) - 60 (hICN's IPv6 + TCP-shaped header) - 32
 * (our transport header) = 1360.
 */
#define UDP_SEGMENT	1360
#define UDP_LIFETIME	2000	/* ms: a relay's hop under TCG */

struct result {
	__u64 bytes;
	__u64 fnv;
	__u64 segments;
	__u64 cache_hits;
	__u32 version;
	int err;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static __u64 fnv1a(__u64 h, const unsigned char *p, size_t len)
{
	while (len--) {
		h ^= *p++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

#define FNV_INIT 0xcbf29ce484222325ULL

static struct sockaddr_hicn hname(const char *addr, int plen)
{
	struct sockaddr_hicn a = { .sin_family = hcn_family(), .sin_prefix = plen };

	hcn_pton(AF_HICN, addr, &a.sin_addr);
	return a;
}

static unsigned char *load(const char *path, size_t *len)
{
	unsigned char *buf;
	struct stat st;
	ssize_t n;
	size_t i;
	int fd;

	if (!path) {
		*len = 4 << 20;
		buf = malloc(*len);
		for (i = 0; buf && i < *len; i++)
			buf[i] = (i * 2654435761u) >> 11;
		return buf;
	}
	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		perror(path);
		return NULL;
	}
	*len = st.st_size;
	buf = malloc(*len + 1);
	for (i = 0; buf && i < *len; i += n) {
		n = read(fd, buf + i, *len - i);
		if (n <= 0) {
			perror(path);
			free(buf);
			buf = NULL;
		}
	}
	close(fd);
	return buf;
}

/* Read @fd until EOF, checksumming; fills @r. */
static void drain(int fd, struct result *r)
{
	static unsigned char buf[CHUNK];
	ssize_t n;

	r->fnv = FNV_INIT;
	while ((n = recv(fd, buf, sizeof(buf), 0)) > 0) {
		r->fnv = fnv1a(r->fnv, buf, n);
		r->bytes += n;
	}
	if (n < 0)
		r->err = errno;
}

/* The consumer process: connect, tell the parent, read, report. */
static void consumer(int ready, int report)
{
	struct sockaddr_hicn n = hname(NAME, 128);
	struct result r = { 0 };
	struct hicn_info hi;
	socklen_t len = sizeof(hi);
	int c = socket(hcn_family(), SOCK_CONS, CONS_REL);

	if (c < 0 || connect(c, (struct sockaddr *)&n, sizeof(n)))
		r.err = errno;
	/* The request is out (or failed): the producer may publish. */
	if (write(ready, "r", 1) != 1)
		_exit(1);
	if (!r.err) {
		drain(c, &r);
		if (!getsockopt(c, SOL_HICN, HICN_INFO, &hi, &len)) {
			r.segments = hi.hi_segments;
			r.cache_hits = hi.hi_cache_hits;
			r.version = hi.hi_last_version;
		}
	}
	if (write(report, &r, sizeof(r)) != sizeof(r))
		_exit(1);
	_exit(0);
}

/* AF_HICN: seconds from publication to the consumer's last byte, or -1. */
static double hicn_transfer(const unsigned char *buf, size_t len,
			    struct result *r)
{
	struct sockaddr_hicn ns = hname("b001:a:b:c::", 64);
	struct sockaddr_hicn n = hname(NAME, 128);
	int p, ready[2], report[2], status;
	struct hicn_info hi;
	socklen_t hlen = sizeof(hi);
	double t0, t = -1;
	char c;
	pid_t pid;

	p = socket(hcn_family(), SOCK_PROD, PROD_REL);
	if (p < 0 || bind(p, (struct sockaddr *)&ns, sizeof(ns))) {
		perror("producer");
		return -1;
	}
	if (pipe(ready) || pipe(report)) {
		perror("pipe");
		return -1;
	}
	pid = fork();
	if (pid == 0)
		consumer(ready[1], report[1]);
	if (read(ready[0], &c, 1) != 1)
		goto out;
	t0 = now();
	if (sendto(p, buf, len, 0, (struct sockaddr *)&n, sizeof(n)) != (ssize_t)len) {
		perror("sendto");
		goto out;
	}
	if (read(report[0], r, sizeof(*r)) == sizeof(*r))
		t = now() - t0;
	if (!getsockopt(p, SOL_HICN, HICN_INFO, &hi, &hlen))
		printf("  producer: %llu bytes, version %u, %llu segments, %llu interests\n",
		       (unsigned long long)hi.hi_bytes, hi.hi_last_version,
		       (unsigned long long)hi.hi_segments,
		       (unsigned long long)hi.hi_interests_received);
out:
	waitpid(pid, &status, 0);
	close(p);
	close(ready[0]);
	close(ready[1]);
	close(report[0]);
	close(report[1]);
	return t;
}

/* TCP over 127.0.0.1, the reader in another process; seconds, or -1. */
static double tcp_transfer(const unsigned char *buf, size_t len,
			   struct result *r)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	int l, w, report[2], status;
	double t0, t = -1;
	size_t off;
	ssize_t n;
	pid_t pid;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&a, &alen) || pipe(report)) {
		perror("TCP listener");
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		struct result res = { 0 };
		int s = accept(l, NULL, NULL);

		if (s < 0)
			res.err = errno;
		else
			drain(s, &res);
		if (write(report[1], &res, sizeof(res)) != sizeof(res))
			_exit(1);
		_exit(0);
	}
	w = socket(AF_INET, SOCK_STREAM, 0);
	if (w < 0 || connect(w, (struct sockaddr *)&a, sizeof(a))) {
		perror("TCP connect");
		goto out;
	}
	t0 = now();
	for (off = 0; off < len; off += n) {
		n = send(w, buf + off, len - off < CHUNK ? len - off : CHUNK, 0);
		if (n < 0) {
			perror("send");
			goto out;
		}
	}
	shutdown(w, SHUT_WR);
	if (read(report[0], r, sizeof(*r)) == sizeof(*r))
		t = now() - t0;
out:
	if (w >= 0)
		close(w);
	close(l);
	waitpid(pid, &status, 0);
	close(report[0]);
	close(report[1]);
	return t;
}

static int set_int(int fd, int opt, int val)
{
	if (setsockopt(fd, SOL_HICN, opt, &val, sizeof(val))) {
		perror("setsockopt");
		return -1;
	}
	return 0;
}

static int get_info(int fd, struct hicn_info *hi)
{
	socklen_t len = sizeof(*hi);

	memset(hi, 0, sizeof(*hi));
	if (getsockopt(fd, SOL_HICN, HICN_INFO, hi, &len)) {
		perror("HICN_INFO");
		return -1;
	}
	return 0;
}

static int parse_name(const char *text, struct sockaddr_hicn *a)
{
	if (hcn_name_pton(text, a)) {
		fprintf(stderr, "\"%s\" is not a name (ADDRESS[/LENGTH][#VERSION])\n",
			text);
		return -1;
	}
	return 0;
}

/*
 * publish NAMESPACE NAME FILE: publish and serve until SIGTERM or SIGINT,
 * then print what the producer sent.
 */
static int publish(const char *ns_text, const char *name_text,
		   const char *path)
{
	struct sockaddr_hicn ns, name;
	char text[HCN_NAMESTRLEN];
	struct hicn_info hi;
	unsigned char *buf;
	sigset_t stop;
	size_t len;
	int p, sig;

	if (parse_name(ns_text, &ns) || parse_name(name_text, &name))
		return 2;
	buf = load(path, &len);
	if (!buf)
		return 1;
	/* Blocked from the start, the stop signal waits for sigwait(). */
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	if (sigprocmask(SIG_BLOCK, &stop, NULL)) {
		perror("sigprocmask");
		return 1;
	}
	p = socket(hcn_family(), SOCK_PROD, PROD_REL);
	if (p < 0) {
		perror("producer");
		return 1;
	}
	if (set_int(p, HICN_PACKET_SIZE, UDP_SEGMENT) ||
	    set_int(p, HICN_CONTENT_EXPIRY, 0))
		return 1;
	if (bind(p, (struct sockaddr *)&ns, sizeof(ns))) {
		perror(ns_text);
		return 1;
	}
	if (sendto(p, buf, len, 0, (struct sockaddr *)&name,
		   sizeof(name)) != (ssize_t)len) {
		perror("sendto");
		return 1;
	}
	free(buf);
	if (get_info(p, &hi))
		return 1;
	name.sin_suffix = hi.hi_last_version;
	hcn_name_ntop(&name, text, sizeof(text));
	printf("published %s: %zu bytes, %zu segments of %d bytes\n", text,
	       len, (len + UDP_SEGMENT - 1) / UDP_SEGMENT, UDP_SEGMENT);
	fflush(stdout);

	if (sigwait(&stop, &sig))
		return 1;
	if (get_info(p, &hi))
		return 1;
	printf("producer: %llu interests reached the socket, %llu segments sent\n",
	       (unsigned long long)hi.hi_interests_received,
	       (unsigned long long)hi.hi_segments);
	close(p);
	return 0;
}

/* Write all of @buf to @fd. */
static int write_all(int fd, const unsigned char *buf, size_t len)
{
	ssize_t n;

	for (; len; buf += n, len -= n) {
		n = write(fd, buf, len);
		if (n < 0)
			return -1;
	}
	return 0;
}

/*
 * fetch NAME[#VERSION] OUT [MAX_WINDOW]: the object into OUT, with what it
 * took; MAX_WINDOW sets HICN_MAX_WINDOW_SIZE.
 */
static int fetch_object(const char *name_text, const char *path,
			const char *max_text)
{
	static unsigned char buf[CHUNK];
	char text[HCN_NAMESTRLEN];
	struct sockaddr_hicn name;
	struct hicn_info hi;
	__u64 bytes = 0;
	int c, out;
	double t0, t;
	ssize_t n;

	if (parse_name(name_text, &name))
		return 2;
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0) {
		perror(path);
		return 1;
	}
	c = socket(hcn_family(), SOCK_CONS, CONS_REL);
	if (c < 0) {
		perror("consumer");
		return 1;
	}
	if (set_int(c, HICN_INTEREST_LIFETIME, UDP_LIFETIME))
		return 1;
	if (max_text && set_int(c, HICN_MAX_WINDOW_SIZE, atoi(max_text)))
		return 1;
	t0 = now();
	if (connect(c, (struct sockaddr *)&name, sizeof(name))) {
		perror(name_text);
		return 1;
	}
	while ((n = recv(c, buf, sizeof(buf), 0)) > 0) {
		if (write_all(out, buf, n)) {
			perror(path);
			return 1;
		}
		bytes += n;
	}
	t = now() - t0;
	if (n < 0) {
		fprintf(stderr, "%s: %s after %llu bytes\n", name_text,
			strerror(errno), (unsigned long long)bytes);
		return 1;
	}
	if (close(out)) {
		perror(path);
		return 1;
	}
	if (get_info(c, &hi))
		return 1;
	name.sin_suffix = hi.hi_last_version;
	hcn_name_ntop(&name, text, sizeof(text));
	printf("fetched %s: %llu bytes, %llu segments, ", text,
	       (unsigned long long)bytes, (unsigned long long)hi.hi_segments);
	printf("%llu interests (%llu resent), %.2f s, %.1f Mbit/s\n",
	       (unsigned long long)hi.hi_interests_sent,
	       (unsigned long long)hi.hi_interests_retx, t,
	       t > 0 ? bytes * 8 / t / 1e6 : 0);
	/* The consumer's congestion state, on stderr: for the logs. */
	fprintf(stderr, "window %u (max %u, ssthresh %u, %llu cuts), ",
		hi.hi_window, hi.hi_window_max, hi.hi_ssthresh,
		(unsigned long long)hi.hi_window_cuts);
	fprintf(stderr, "srtt %u us, min rtt %u us, rto %u us, ",
		hi.hi_srtt_us, hi.hi_min_rtt_us, hi.hi_rto_us);
	fprintf(stderr, "early %llu, spurious %llu\n",
		(unsigned long long)hi.hi_early_retx,
		(unsigned long long)hi.hi_spurious_retx);
	close(c);
	return 0;
}

static int print_usage(void)
{
	fprintf(stderr,
		"usage: hicn_pubsub [FILE]\n"
		"       hicn_pubsub publish NAMESPACE NAME FILE\n"
		"       hicn_pubsub fetch NAME[#VERSION] OUT [MAX_WINDOW]\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : NULL;
	struct result h = { 0 }, t = { 0 };
	double th, tt;
	__u64 fnv;
	unsigned char *buf;
	size_t len;
	int ok;

	if (path && !strcmp(path, "publish"))
		return argc == 5 ? publish(argv[2], argv[3], argv[4]) : print_usage();
	if (path && !strcmp(path, "fetch"))
		return argc == 4 || argc == 5 ?
			fetch_object(argv[2], argv[3], argv[4]) : print_usage();
	if (argc > 2)
		return print_usage();
	buf = load(path, &len);
	if (!buf)
		return 1;
	fnv = fnv1a(FNV_INIT, buf, len);
	printf("publishing %s (%zu bytes, FNV-1a %016llx) as %s\n",
	       path ?: "a generated 4 MiB file", len, (unsigned long long)fnv, NAME);

	th = hicn_transfer(buf, len, &h);
	if (th < 0 || h.err) {
		printf("  AF_HICN transfer failed: %s\n", strerror(h.err ?: EIO));
		return 1;
	}
	printf("  consumer: %llu bytes, version %u, %llu segments (%llu cached)\n",
	       (unsigned long long)h.bytes, h.version,
	       (unsigned long long)h.segments, (unsigned long long)h.cache_hits);
	printf("  consumer FNV-1a %016llx\n", (unsigned long long)h.fnv);
	ok = h.bytes == len && h.fnv == fnv;
	printf("  checksum %s\n", ok ? "matches" : "DIFFERS");

	tt = tcp_transfer(buf, len, &t);
	if (tt < 0 || t.err || t.bytes != len || t.fnv != fnv) {
		printf("  TCP transfer failed\n");
		return 1;
	}
	printf("  AF_HICN %.1f MB/s, TCP loopback %.1f MB/s, ratio AF_HICN/TCP %.2f\n",
	       len / th / 1e6, len / tt / 1e6, tt / th);
	free(buf);
	return ok ? 0 : 1;
}
