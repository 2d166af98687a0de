/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the PSOCK data-path tests: loopback in a fresh netns, socket
 * set-up, PSOCK_INFO, and a reproducible byte stream checked on receipt.
 */
#ifndef _PSOCK_LIB_H
#define _PSOCK_LIB_H

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <linux/psock.h>

/* The PSOCK control message on the wire, for raw peers (Documentation/psock.rst). */
#define MAGIC		0x50534b54
#define T_SHELLO	1
#define T_CHELLO	2
#define T_JOIN		3
#define T_REJOIN	5

struct hello {
	uint32_t	magic;
	uint8_t		version, type, rcmd, max, driver, n, index, family;
	uint16_t	port, reserved;
	uint64_t	token;
	uint8_t		addr[16];
};

static_assert(sizeof(struct hello) == 40, "the wire layout");

/* A fresh network namespace with lo up; 0 or -1. */
static inline int netns_lo(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int fd, err;

	if (unshare(CLONE_NEWNET))
		return -1;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return -1;
	err = ioctl(fd, SIOCGIFFLAGS, &ifr);
	ifr.ifr_flags |= IFF_UP;
	if (!err)
		err = ioctl(fd, SIOCSIFFLAGS, &ifr);
	close(fd);
	return err;
}

static inline socklen_t lo_addr(int family, int port,
				struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		return sizeof(*sin);
	}
	((struct sockaddr_in6 *)ss)->sin6_family = AF_INET6;
	((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
	((struct sockaddr_in6 *)ss)->sin6_addr = in6addr_loopback;
	return sizeof(struct sockaddr_in6);
}

static inline int sock_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len))
		return -1;
	if (ss.ss_family == AF_INET)
		return ntohs(((struct sockaddr_in *)&ss)->sin_port);
	return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
}

/* PSOCK options; a value <= 0 (driver < 0) keeps the default. */
static inline int psock_opts(int fd, int rcmd, int max, int driver)
{
	if (rcmd > 0 && setsockopt(fd, SOL_PSOCK, PSOCK_RCMD_STREAM_CNT,
				   &rcmd, sizeof(rcmd)))
		return -1;
	if (max > 0 && setsockopt(fd, SOL_PSOCK, PSOCK_MAX_STREAM_CNT,
				  &max, sizeof(max)))
		return -1;
	if (driver >= 0 && setsockopt(fd, SOL_PSOCK, PSOCK_DRIVER,
				      &driver, sizeof(driver)))
		return -1;
	return 0;
}

/* A listener on loopback port @port (0: any), SO_REUSEADDR; -1 on error. */
static inline int lo_listen_at(int family, int proto, int port)
{
	struct sockaddr_storage ss;
	socklen_t len = lo_addr(family, port, &ss);
	int fd = socket(family, SOCK_STREAM, proto), one = 1;

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) || listen(fd, 64)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* A listener on loopback, any port (*port gets it); -1 on error. */
static inline int lo_listen(int family, int proto, int *port)
{
	int fd = lo_listen_at(family, proto, 0);

	if (fd >= 0)
		*port = sock_port(fd);
	return fd;
}

static inline int lo_connect(int fd, int family, int port)
{
	struct sockaddr_storage ss;
	socklen_t len = lo_addr(family, port, &ss);

	return connect(fd, (struct sockaddr *)&ss, len);
}

struct psock_info_buf {
	struct psock_info	h;
	struct psock_subflow_info sf[PSOCK_STREAM_CNT_LIMIT];
};

static inline int psock_info(int fd, struct psock_info_buf *b)
{
	socklen_t len = sizeof(*b);

	memset(b, 0, sizeof(*b));
	b->h.size_user = sizeof(b->sf[0]);
	return getsockopt(fd, SOL_PSOCK, PSOCK_INFO, b, &len);
}

/* ---- a reproducible stream: byte i of seed s ---- */

struct pattern {
	uint64_t	state;
	uint64_t	word;
	int		left;
};

static inline void pattern_init(struct pattern *p, uint64_t seed)
{
	p->state = seed * 0x9e3779b97f4a7c15ULL + 1;
	p->left = 0;
}

static inline uint8_t pattern_next(struct pattern *p)
{
	uint8_t b;

	if (!p->left) {
		p->state ^= p->state << 13;
		p->state ^= p->state >> 7;
		p->state ^= p->state << 17;
		p->word = p->state;
		p->left = 8;
	}
	b = p->word & 0xff;
	p->word >>= 8;
	p->left--;
	return b;
}

static inline void pattern_fill(struct pattern *p, uint8_t *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = pattern_next(p);
}

/*
 * Send @len bytes of pattern @seed in chunks of varying size, then
 * shutdown(SHUT_WR).  0 or an errno.
 */
static inline int send_pattern(int fd, uint64_t seed, size_t len)
{
	static const size_t chunks[] = { 1, 4095, 65536, 7, 16384, 100000 };
	uint8_t *buf = malloc(100000);
	struct pattern p;
	size_t done = 0, k = 0;
	int err = 0;

	if (!buf)
		return -1;
	pattern_init(&p, seed);
	while (done < len) {
		size_t n = chunks[k++ % 6], off = 0;

		if (n > len - done)
			n = len - done;
		pattern_fill(&p, buf, n);
		while (off < n) {
			ssize_t r = send(fd, buf + off, n - off, MSG_NOSIGNAL);

			if (r < 0) {
				err = errno;
				goto out;
			}
			off += r;
		}
		done += n;
	}
	if (shutdown(fd, SHUT_WR))
		err = errno;
out:
	free(buf);
	return err;
}

/*
 * Wrong data: where, and the 48 bytes read from there (a control
 * message delivered as data shows its magic, "PSKT" = 50 53 4b 54).
 */
static inline void recv_report(const uint8_t *buf, ssize_t r, ssize_t i,
			       size_t at)
{
	ssize_t k;

	fprintf(stderr, "# byte %zu differs (%zd read in that call):", at, r);
	for (k = i; k < r && k < i + 48; k++)
		fprintf(stderr, " %02x", buf[k]);
	fprintf(stderr, "\n");
}

/*
 * Receive until end of stream; check every byte against pattern @seed and
 * the total against @len.  0, an errno, or -1 for wrong data/length.
 */
static inline int recv_pattern(int fd, uint64_t seed, size_t len)
{
	uint8_t *buf = malloc(70000);
	struct pattern p;
	size_t got = 0;
	int err = 0;

	if (!buf)
		return -1;
	pattern_init(&p, seed);
	for (;;) {
		ssize_t r = recv(fd, buf, 70000, 0), i;

		if (r < 0) {
			err = errno;
			break;
		}
		if (!r)
			break;
		for (i = 0; i < r; i++) {
			if (buf[i] != pattern_next(&p)) {
				recv_report(buf, r, i, got + i);
				free(buf);
				return -1;
			}
		}
		got += r;
	}
	free(buf);
	if (!err && got != len) {
		fprintf(stderr, "# got %zu bytes, want %zu\n", got, len);
		return -1;
	}
	return err;
}

struct sender {
	pthread_t	thread;
	int		fd;
	uint64_t	seed;
	size_t		len;
	int		err;
};

static inline void *sender_main(void *arg)
{
	struct sender *s = arg;

	s->err = send_pattern(s->fd, s->seed, s->len);
	return NULL;
}

/* Both directions at once: 0 when both streams arrived intact. */
static inline int duplex(int fd, uint64_t tx_seed, size_t tx_len,
			 uint64_t rx_seed, size_t rx_len)
{
	struct sender s = { .fd = fd, .seed = tx_seed, .len = tx_len };
	int err;

	if (pthread_create(&s.thread, NULL, sender_main, &s))
		return -1;
	err = recv_pattern(fd, rx_seed, rx_len);
	pthread_join(s.thread, NULL);
	if (s.err)
		fprintf(stderr, "# send: %s\n", strerror(s.err));
	if (err > 0)
		fprintf(stderr, "# recv: %s\n", strerror(err));
	return err ? err : s.err;
}

/* A "@key: N kB" line of /proc/meminfo, in kB, or -1. */
static inline long meminfo_kb(const char *key)
{
	char line[256], name[64];
	long kb, found = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63[^:]: %ld kB", name, &kb) == 2 &&
		    !strcmp(name, key)) {
			found = kb;
			break;
		}
	fclose(f);
	return found;
}

/* One counter of /proc/net/psock (its PsockExt lines) by name; -1 when missing. */
static inline long psock_counter(const char *name)
{
	char hdr[1024], val[1024], *s1, *s2, *n, *x;
	FILE *f = fopen("/proc/net/psock", "r");
	int ok;

	if (!f)
		return -1;
	ok = fgets(hdr, sizeof(hdr), f) && fgets(val, sizeof(val), f);
	fclose(f);
	if (!ok)
		return -1;
	n = strtok_r(hdr, "\n ", &s1);
	x = strtok_r(val, "\n ", &s2);
	while (n && x) {
		if (!strcmp(n, name))
			return strtol(x, NULL, 10);
		n = strtok_r(NULL, "\n ", &s1);
		x = strtok_r(NULL, "\n ", &s2);
	}
	return -1;
}

#endif /* _PSOCK_LIB_H */
