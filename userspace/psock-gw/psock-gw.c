// SPDX-License-Identifier: GPL-2.0
/*
 * psock-gw: the TCP <-> PSOCK edge translator (psock-gw(8)).
 *
 *   client --TCP--> psock-gw ingress ==PSOCK==> psock-gw egress --TCP--> server
 *
 * One process, one thread, one level-triggered epoll set.  A flow is two
 * sockets: "a", the one accepted (TCP at the ingress, PSOCK at the
 * egress), and "b", the one connected (PSOCK at the ingress, TCP at the
 * egress), and two bounded buffers, a->b and b->a, of --buffer bytes
 * each: a socket is polled for reading only while the buffer it fills
 * has room, so a slow reader at one end stops the reads at the other
 * (backpressure: a flow never holds more than 2 x --buffer bytes here).
 * splice() would not save a copy on the PSOCK side: PSOCK has no
 * splice_read, the kernel copies through read_iter into the pipe.
 *
 * A read of 0 (FIN) is passed on as shutdown(SHUT_WR) once the buffer
 * of that direction is flushed; the flow ends when both directions are
 * shut.  An error on either socket (a reset, a failed connect) closes
 * the other with SO_LINGER {1, 0}: a reset where the peer is TCP.
 *
 * The ingress writes a struct psgw_hdr (psock-gw.h) first on every
 * PSOCK connection: the original destination in transparent mode
 * (TPROXY), none in static mode.  The egress reads it before it
 * connects anywhere, and connects only to its own --remote (static) or
 * to a destination inside an --allow prefix (transparent).
 *
 * Flows whose sockets are closed during one epoll_wait() batch are freed
 * after the batch (events later in the batch may still name them).
 *
 * A flow holds 2 descriptors, both taken when it is accepted (b's as a
 * reserved duplicate until b is made): RLIMIT_NOFILE is raised for
 * --max-flows at start, and out of descriptors the listener is left
 * alone (it is level-triggered) until a flow ends.
 */
#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/psock.h>

#include "psock-gw.h"

static_assert(sizeof(struct psgw_hdr) == PSGW_HDR_LEN, "psgw_hdr has padding");

#define BUF_DEFAULT	65536
#define BUF_MIN		4096
#define BUF_MAX		(16 << 20)
#define FLOWS_DEFAULT	1024
#define FLOWS_MAX	65536
#define ALLOW_MAX	64
#define VERBOSE_MAX	3
#define CONF_LINE_MAX	512	/* bytes of a configuration file line */
#define HDR_TIMEOUT	10	/* seconds the egress waits for a header */
#define FD_RESERVE	16	/* descriptors besides the flows' 2 each */

enum role { INGRESS, EGRESS };
enum fstate { F_HDR, F_CONNECTING, F_RELAY };
enum ekind { E_LISTEN, E_SIGNAL, E_SIDE };

struct ep {			/* what an epoll event names */
	enum ekind kind;
	int side;		/* E_SIDE: 0 = a, 1 = b */
	struct flow *f;
};

struct dir {			/* one direction: bytes [off, len) of buf */
	char *buf;
	size_t off, len;
	bool eof;		/* read 0 from the source */
	bool shut;		/* SHUT_WR sent to the destination */
	unsigned long long bytes;
};

struct flow {
	unsigned long id;
	enum fstate state;
	int fd[2];
	int rsv;		/* fd[1]'s descriptor, reserved until it is made */
	unsigned int ev[2];	/* the events registered for fd[] (-1: none) */
	bool hup[2];		/* fd[] reported EPOLLHUP */
	struct ep ep[2];
	struct dir d[2];	/* d[0]: a -> b, d[1]: b -> a */
	struct psgw_hdr hdr;	/* egress: the header, hdr_len bytes read */
	size_t hdr_len;
	time_t start;
	char peer[64];
	struct flow *prev, *next;
	bool dead;
	struct flow *next_dead;
};

struct allow {
	struct in6_addr addr;	/* IPv4 as ::ffff:a.b.c.d */
	int plen;		/* prefix length over the 128 bits */
	__u16 port;		/* 0: any */
};

static struct {
	enum role role;
	const char *name;
	struct sockaddr_storage listen, remote;
	bool has_listen, has_remote, transparent;
	bool has_role, cmd_role;	/* cmd_role: the mode on the command line */
	char conf_mode[8];		/* the configuration file's "mode" */
	struct allow allow[ALLOW_MAX];
	int nallow;
	int streams;
	size_t bufsz;
	unsigned int max_flows;
	int verbose;
} cfg = { .name = "-", .bufsz = BUF_DEFAULT, .max_flows = FLOWS_DEFAULT };

static int epfd, lfd;
static struct ep ep_listen = { .kind = E_LISTEN };
static struct ep ep_signal = { .kind = E_SIGNAL };
static struct flow *flows, *dead;
static unsigned int nflows;
static unsigned long next_id = 1;
static bool paused;
static time_t stalled;		/* paused for want of descriptors since then */

static void logmsg(int level, const char *fmt, ...)
{
	va_list ap;

	if (level > cfg.verbose)
		return;
	fprintf(stderr, "psock-gw %s: ", cfg.name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

#define err(...)	logmsg(0, __VA_ARGS__)
#define info(...)	logmsg(1, __VA_ARGS__)

/* ---- addresses ---- */

static void ntop(const struct sockaddr_storage *ss, char *s, size_t n)
{
	char a[INET6_ADDRSTRLEN];

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *sin = (const void *)ss;

		inet_ntop(AF_INET, &sin->sin_addr, a, sizeof(a));
		snprintf(s, n, "%s:%u", a, ntohs(sin->sin_port));
	} else {
		const struct sockaddr_in6 *sin6 = (const void *)ss;

		inet_ntop(AF_INET6, &sin6->sin6_addr, a, sizeof(a));
		snprintf(s, n, "[%s]:%u", a, ntohs(sin6->sin6_port));
	}
}

static socklen_t sslen(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET ? sizeof(struct sockaddr_in) :
					  sizeof(struct sockaddr_in6);
}

/* A decimal number, digits only (no sign, no blank, no 0x), in [min, max];
 * -1 otherwise.
 */
static long num(const char *s, long min, long max)
{
	char *end;
	long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (*end || errno || v < min || v > max)
		return -1;
	return v;
}

/*
 * "ADDR:PORT" or "[ADDR6]:PORT"; with plen (--allow), "ADDR/LEN:PORT",
 * "[ADDR6]/LEN:PORT" or "[ADDR6/LEN]:PORT", LEN at most 32 (IPv4) or 128
 * (IPv6), *plen 32 or 128 without one.  Brackets are for IPv6 only.
 */
static int parse_addr(const char *arg, struct sockaddr_storage *ss, int *plen)
{
	struct sockaddr_in6 *sin6 = (void *)ss;
	struct sockaddr_in *sin = (void *)ss;
	char host[INET6_ADDRSTRLEN + 8], *slash;
	const char *colon, *rb;
	bool br = arg[0] == '[';
	long p, len = -1, max;
	int n;

	if (br) {
		rb = strchr(++arg, ']');
		if (!rb)
			return -1;
		/* "]:PORT", or "]/LEN:PORT": LEN goes with the address */
		colon = rb[1] == '/' ? strchr(rb, ':') : rb + 1;
		if (!colon || *colon != ':')
			return -1;
		n = snprintf(host, sizeof(host), "%.*s%.*s", (int)(rb - arg),
			     arg, (int)(colon - rb - 1), rb + 1);
	} else {
		colon = strrchr(arg, ':');
		if (!colon)
			return -1;
		n = snprintf(host, sizeof(host), "%.*s", (int)(colon - arg), arg);
	}
	if (n <= 0 || n >= (int)sizeof(host))
		return -1;
	p = num(colon + 1, 0, 65535);
	if (p < 0)
		return -1;
	slash = strchr(host, '/');
	if (slash) {
		if (!plen)
			return -1;
		*slash = '\0';
		len = num(slash + 1, 0, 128);
		if (len < 0)
			return -1;
	}
	memset(ss, 0, sizeof(*ss));
	if (!br && inet_pton(AF_INET, host, &sin->sin_addr) == 1) {
		ss->ss_family = AF_INET;
		sin->sin_port = htons(p);
		max = 32;
	} else if (inet_pton(AF_INET6, host, &sin6->sin6_addr) == 1) {
		ss->ss_family = AF_INET6;
		sin6->sin6_port = htons(p);
		max = 128;
	} else {
		return -1;
	}
	if (len > max)
		return -1;
	if (plen)
		*plen = len < 0 ? max : len;
	return 0;
}

/* The address as 16 bytes (IPv4 v4-mapped) and the port. */
static void to_v6(const struct sockaddr_storage *ss, __u8 a[16], __u16 *port)
{
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *sin = (const void *)ss;

		memset(a, 0, 10);
		a[10] = 0xff;
		a[11] = 0xff;
		memcpy(a + 12, &sin->sin_addr, 4);
		*port = sin->sin_port;
	} else {
		const struct sockaddr_in6 *sin6 = (const void *)ss;

		memcpy(a, &sin6->sin6_addr, 16);
		*port = sin6->sin6_port;
	}
}

static void from_v6(const __u8 a[16], __u16 port, struct sockaddr_storage *ss)
{
	static const __u8 mapped[12] = { [10] = 0xff, [11] = 0xff };

	memset(ss, 0, sizeof(*ss));
	if (!memcmp(a, mapped, 12)) {
		struct sockaddr_in *sin = (void *)ss;

		sin->sin_family = AF_INET;
		memcpy(&sin->sin_addr, a + 12, 4);
		sin->sin_port = port;
	} else {
		struct sockaddr_in6 *sin6 = (void *)ss;

		sin6->sin6_family = AF_INET6;
		memcpy(&sin6->sin6_addr, a, 16);
		sin6->sin6_port = port;
	}
}

static bool allowed(const struct sockaddr_storage *dst)
{
	__u8 a[16];
	__u16 port;
	int i, b;

	to_v6(dst, a, &port);
	for (i = 0; i < cfg.nallow; i++) {
		const struct allow *al = &cfg.allow[i];
		const __u8 *p = al->addr.s6_addr;

		if (al->port && al->port != port)
			continue;
		for (b = 0; b < al->plen; b++)
			if ((a[b / 8] ^ p[b / 8]) & (0x80 >> (b % 8)))
				break;
		if (b == al->plen)
			return true;
	}
	return false;
}

/* ---- flows ---- */

static int ep_set(struct flow *f, int side, unsigned int events)
{
	struct epoll_event ev = { .events = events, .data.ptr = &f->ep[side] };
	int op = f->ev[side] == (unsigned int)-1 ? EPOLL_CTL_ADD : EPOLL_CTL_MOD;

	/* EPOLLHUP is reported whatever the mask: a hung-up socket that
	 * waits for nothing leaves the set until it waits again.
	 */
	if (!events && f->hup[side]) {
		op = EPOLL_CTL_DEL;
		events = -1;
	}
	if (f->ev[side] == events)
		return 0;
	if (epoll_ctl(epfd, op, f->fd[side], &ev) < 0)
		return -1;
	f->ev[side] = events;
	return 0;
}

/* Stop or resume watching the listener: clients wait in its backlog. */
static void listener_pause(bool pause)
{
	struct epoll_event ev = { .events = pause ? 0 : EPOLLIN,
				  .data.ptr = &ep_listen };

	if (!pause)
		stalled = 0;
	if (pause == paused)
		return;
	paused = pause;
	epoll_ctl(epfd, EPOLL_CTL_MOD, lfd, &ev);
}

/*
 * accept4() or the reservation of a flow's second descriptor failed for
 * want of descriptors (or memory): the listener, level-triggered, would
 * report the same connection again at once.  It is left alone until a
 * flow ends, or for a second (flows_expire()).
 */
static void accept_stall(int e)
{
	static bool logged;

	if (!logged)
		err("accept: %s with %u flows open: not accepting until one ends (logged once)",
		    strerror(e), nflows);
	logged = true;
	listener_pause(true);
	stalled = time(NULL);
}

static void abort_close(int fd)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };

	setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(fd);
}

/* Close both sockets (resetting them when rst) and free the flow after
 * the batch.
 */
static void flow_end(struct flow *f, bool rst, const char *why)
{
	int i;

	if (f->dead)
		return;
	if (rst)
		info("flow %lu (%s): reset (%s)", f->id, f->peer, why);
	else
		info("flow %lu (%s): %s, %llu bytes a->b, %llu b->a", f->id,
		     f->peer, why, f->d[0].bytes, f->d[1].bytes);
	for (i = 0; i < 2; i++) {
		if (f->fd[i] < 0)
			continue;
		if (rst)
			abort_close(f->fd[i]);
		else
			close(f->fd[i]);
		f->fd[i] = -1;
	}
	if (f->rsv >= 0)
		close(f->rsv);
	f->rsv = -1;
	f->dead = true;
	if (f->prev)
		f->prev->next = f->next;
	else
		flows = f->next;
	if (f->next)
		f->next->prev = f->prev;
	f->next_dead = dead;
	dead = f;
	nflows--;
	listener_pause(false);
}

static void flows_reap(void)
{
	while (dead) {
		struct flow *f = dead;

		dead = f->next_dead;
		free(f->d[0].buf);
		free(f->d[1].buf);
		free(f);
	}
}

static struct flow *flow_new(int afd, int rsv,
			     const struct sockaddr_storage *peer)
{
	struct flow *f = calloc(1, sizeof(*f));
	int i;

	if (!f)
		return NULL;
	f->d[0].buf = malloc(cfg.bufsz);
	f->d[1].buf = malloc(cfg.bufsz);
	if (!f->d[0].buf || !f->d[1].buf) {
		free(f->d[0].buf);
		free(f->d[1].buf);
		free(f);
		return NULL;
	}
	f->id = next_id++;
	f->fd[0] = afd;
	f->fd[1] = -1;
	f->rsv = rsv;
	for (i = 0; i < 2; i++) {
		f->ev[i] = -1;
		f->ep[i] = (struct ep){ .kind = E_SIDE, .side = i, .f = f };
	}
	f->start = time(NULL);
	ntop(peer, f->peer, sizeof(f->peer));
	f->next = flows;
	if (flows)
		flows->prev = f;
	flows = f;
	nflows++;
	return f;
}

static void nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, SOL_TCP, TCP_NODELAY, &one, sizeof(one));
}

static int sock_error(int fd)
{
	int e = 0;
	socklen_t len = sizeof(e);

	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len) < 0)
		return errno;
	return e;
}

/* The PSOCK socket of the ingress and listener of the egress. */
static int psock_opts(int fd)
{
	int n = cfg.streams;

	if (!n)
		return 0;
	if (setsockopt(fd, SOL_PSOCK, PSOCK_MAX_STREAM_CNT, &n, sizeof(n)) ||
	    setsockopt(fd, SOL_PSOCK, PSOCK_RCMD_STREAM_CNT, &n, sizeof(n))) {
		err("PSOCK stream count %d: %s", n, strerror(errno));
		return -1;
	}
	return 0;
}

/* Start the connection of side b to dst. */
static int flow_connect(struct flow *f, const struct sockaddr_storage *dst)
{
	int proto = cfg.role == INGRESS ? IPPROTO_PSOCK : IPPROTO_TCP;
	char s[64];
	int fd;

	/* The descriptor reserved for this socket */
	close(f->rsv);
	f->rsv = -1;
	fd = socket(dst->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    proto);
	if (fd < 0) {
		err("flow %lu: socket(%s): %s", f->id,
		    proto == IPPROTO_TCP ? "TCP" : "PSOCK", strerror(errno));
		return -1;
	}
	f->fd[1] = fd;
	nodelay(fd);
	if (proto != IPPROTO_TCP && psock_opts(fd))
		return -1;
	if (connect(fd, (const struct sockaddr *)dst, sslen(dst)) < 0 &&
	    errno != EINPROGRESS) {
		ntop(dst, s, sizeof(s));
		err("flow %lu: connect to %s: %s", f->id, s, strerror(errno));
		return -1;
	}
	f->state = F_CONNECTING;
	return 0;
}

/* Egress: the header is complete; pick and check the destination. */
static int flow_header(struct flow *f)
{
	struct sockaddr_storage dst;
	char s[64];

	if (ntohl(f->hdr.magic) != PSGW_MAGIC || f->hdr.version != PSGW_VERSION) {
		err("flow %lu (%s): not a psock-gw version %d header, refused",
		    f->id, f->peer, PSGW_VERSION);
		return -1;
	}
	if (f->hdr.type == PSGW_DST_STATIC) {
		if (!cfg.has_remote) {
			err("flow %lu (%s): static flow but no --remote, refused",
			    f->id, f->peer);
			return -1;
		}
		dst = cfg.remote;
	} else if (f->hdr.type == PSGW_DST_ADDR) {
		from_v6(f->hdr.addr, f->hdr.port, &dst);
		ntop(&dst, s, sizeof(s));
		if (!allowed(&dst)) {
			err("flow %lu (%s): destination %s not allowed, refused",
			    f->id, f->peer, s);
			return -1;
		}
		info("flow %lu (%s): destination %s", f->id, f->peer, s);
	} else {
		err("flow %lu (%s): header type %u unknown, refused", f->id,
		    f->peer, f->hdr.type);
		return -1;
	}
	return flow_connect(f, &dst);
}

/* ---- relaying ---- */

/* Move what can be moved in direction i (from fd[i] to fd[!i]): read
 * and write until both would block (or PUMP_ROUNDS rounds, to let the
 * other flows in), so that nothing depends on which event came.  fd[1]
 * is read and fd[!i] written only once connected.  Returns -1 on an
 * error of either socket.
 */
#define PUMP_ROUNDS	16

static int pump(struct flow *f, int i)
{
	bool rd = f->state == F_RELAY || i == 0;
	bool wr = f->state == F_RELAY;
	struct dir *d = &f->d[i];
	bool progress = true;
	int round;
	ssize_t n;

	for (round = 0; progress && round < PUMP_ROUNDS; round++) {
		progress = false;
		if (rd && !d->eof && d->len < cfg.bufsz) {
			n = recv(f->fd[i], d->buf + d->len, cfg.bufsz - d->len, 0);
			if (n < 0 && errno != EAGAIN && errno != EINTR)
				return -1;
			if (n > 0) {
				d->len += n;
				progress = true;
			} else if (n == 0) {
				d->eof = true;
			} else {
				rd = false;
			}
		}
		if (wr && d->off < d->len) {
			n = send(f->fd[!i], d->buf + d->off, d->len - d->off,
				 MSG_NOSIGNAL);
			if (n < 0 && errno != EAGAIN && errno != EINTR)
				return -1;
			if (n > 0) {
				d->off += n;
				d->bytes += n;
				progress = true;
			} else {
				wr = false;
			}
			if (d->off == d->len) {
				d->off = 0;
				d->len = 0;
			}
		}
	}
	if (d->eof && d->off == d->len && !d->shut && f->state == F_RELAY) {
		if (shutdown(f->fd[!i], SHUT_WR) < 0 && errno != ENOTCONN)
			return -1;
		d->shut = true;
		info("flow %lu (%s): end of stream %s passed on", f->id,
		     f->peer, i ? "b->a" : "a->b");
	}
	return 0;
}

/* The events each side waits for, from the state of the buffers. */
static int flow_arm(struct flow *f)
{
	unsigned int ev[2] = { 0, 0 };
	int i;

	if (f->state == F_HDR) {
		ev[0] = EPOLLIN;
	} else if (f->state == F_CONNECTING) {
		ev[1] = EPOLLOUT;
		if (!f->d[0].eof && f->d[0].len < cfg.bufsz)
			ev[0] = EPOLLIN;
	} else {
		for (i = 0; i < 2; i++) {
			if (!f->d[i].eof && f->d[i].len < cfg.bufsz)
				ev[i] |= EPOLLIN;
			if (f->d[i].off < f->d[i].len)
				ev[!i] |= EPOLLOUT;
		}
	}
	for (i = 0; i < 2; i++)
		if (f->fd[i] >= 0 && ep_set(f, i, ev[i]) < 0)
			return -1;
	return 0;
}

static int flow_hdr_read(struct flow *f)
{
	ssize_t n;

	n = recv(f->fd[0], (char *)&f->hdr + f->hdr_len,
		 PSGW_HDR_LEN - f->hdr_len, 0);
	if (n == 0) {
		err("flow %lu (%s): closed before its header", f->id, f->peer);
		return -1;
	}
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	f->hdr_len += n;
	if (f->hdr_len < PSGW_HDR_LEN)
		return 0;
	return flow_header(f);
}

static void flow_event(struct flow *f, int side, unsigned int events)
{
	const char *why = "error";
	int e, i;

	if (f->dead)
		return;
	if (events & EPOLLHUP)
		f->hup[side] = true;
	if (f->state == F_HDR) {
		if (flow_hdr_read(f) < 0) {
			why = "refused";
			goto reset;
		}
		goto arm;
	}
	if (f->state == F_CONNECTING && side == 1) {
		e = sock_error(f->fd[1]);
		if (e) {
			err("flow %lu (%s): connect: %s", f->id, f->peer, strerror(e));
			goto reset;
		}
		if (!(events & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
			goto arm;
		f->state = F_RELAY;
		info("flow %lu (%s): connected", f->id, f->peer);
	}
	if (events & EPOLLERR) {
		e = sock_error(f->fd[side]);
		if (e) {
			errno = e;
			goto error;
		}
	}
	for (i = 0; i < 2; i++)
		if (pump(f, i) < 0)
			goto error;
	if (f->d[0].shut && f->d[1].shut) {
		flow_end(f, false, "closed");
		return;
	}
arm:
	if (flow_arm(f) == 0)
		return;
error:
	err("flow %lu (%s): %s: %s", f->id, f->peer, side ? "b" : "a",
	    strerror(errno));
reset:
	flow_end(f, true, why);
}

static void accept_one(void)
{
	struct sockaddr_storage peer, dst;
	socklen_t len = sizeof(peer);
	struct psgw_hdr *h;
	struct flow *f;
	__u16 port;
	int fd, rsv, e;

	/* Each flow takes 2 descriptors: the second one is reserved (a
	 * duplicate, closed just before its socket is made) before the
	 * first is accepted, so that no accepted flow fails for want of it.
	 */
	rsv = fcntl(lfd, F_DUPFD_CLOEXEC, 0);
	if (rsv < 0) {
		accept_stall(errno);
		return;
	}
	fd = accept4(lfd, (struct sockaddr *)&peer, &len,
		     SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0) {
		e = errno;
		close(rsv);
		if (e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM)
			accept_stall(e);
		else if (e != EAGAIN && e != EINTR && e != ECONNABORTED)
			err("accept: %s", strerror(e));
		return;
	}
	nodelay(fd);
	f = flow_new(fd, rsv, &peer);
	if (!f) {
		err("accept: out of memory");
		abort_close(fd);
		close(rsv);
		return;
	}
	info("flow %lu (%s): accepted", f->id, f->peer);
	if (nflows >= cfg.max_flows) {
		listener_pause(true);
		err("%u flows: not accepting more until one ends", nflows);
	}
	if (cfg.role == EGRESS) {
		f->state = F_HDR;
		goto arm;
	}
	/* Ingress: the header goes first, through the a->b buffer. */
	h = (struct psgw_hdr *)f->d[0].buf;
	memset(h, 0, sizeof(*h));
	h->magic = htonl(PSGW_MAGIC);
	h->version = PSGW_VERSION;
	h->type = PSGW_DST_STATIC;
	if (cfg.transparent) {
		len = sizeof(dst);
		if (getsockname(fd, (struct sockaddr *)&dst, &len) < 0) {
			err("flow %lu: getsockname: %s", f->id, strerror(errno));
			goto reset;
		}
		h->type = PSGW_DST_ADDR;
		to_v6(&dst, h->addr, &port);
		h->port = port;
	}
	f->d[0].len = PSGW_HDR_LEN;
	if (flow_connect(f, &cfg.remote) < 0)
		goto reset;
arm:
	if (flow_arm(f) == 0)
		return;
	err("flow %lu: epoll: %s", f->id, strerror(errno));
reset:
	flow_end(f, true, "set-up failed");
}

static void flows_dump(void)
{
	static const char *const st[] = { "header", "connecting", "relaying" };
	struct flow *f;

	err("%u flows", nflows);
	for (f = flows; f; f = f->next)
		err("flow %lu (%s): %s %lds, a->b %llu, %zu buffered%s, b->a %llu, %zu buffered%s",
		    f->id, f->peer, st[f->state], (long)(time(NULL) - f->start),
		    f->d[0].bytes, f->d[0].len - f->d[0].off,
		    f->d[0].shut ? ", shut" : "", f->d[1].bytes,
		    f->d[1].len - f->d[1].off, f->d[1].shut ? ", shut" : "");
}

static void flows_expire(void)
{
	static time_t last;
	time_t now = time(NULL);
	struct flow *f, *next;

	if (now == last)
		return;
	last = now;
	for (f = flows; f; f = next) {
		next = f->next;
		if (f->state == F_HDR && now - f->start >= HDR_TIMEOUT) {
			err("flow %lu (%s): no header in time (%d s), refused",
			    f->id, f->peer, HDR_TIMEOUT);
			flow_end(f, true, "no header in time");
		}
	}
	/* Out of descriptors with no flow to end: try again. */
	if (stalled && now - stalled >= 1 && nflows < cfg.max_flows)
		listener_pause(false);
}

/* ---- set-up ---- */

static int listen_on(void)
{
	int one = 1, zero = 0, fd;
	int proto = cfg.role == EGRESS ? IPPROTO_PSOCK : IPPROTO_TCP;

	fd = socket(cfg.listen.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    proto);
	if (fd < 0) {
		err("socket(%s): %s%s", proto == IPPROTO_TCP ? "TCP" : "PSOCK",
		    strerror(errno),
		    proto == IPPROTO_TCP ? "" : " (is psock.ko loaded?)");
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (cfg.listen.ss_family == AF_INET6)
		setsockopt(fd, SOL_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	if (cfg.transparent &&
	    (setsockopt(fd, SOL_IP, IP_TRANSPARENT, &one, sizeof(one)) ||
	     (cfg.listen.ss_family == AF_INET6 &&
	      setsockopt(fd, SOL_IPV6, IPV6_TRANSPARENT, &one, sizeof(one))))) {
		err("IP_TRANSPARENT: %s", strerror(errno));
		goto err_close;
	}
	if (proto == IPPROTO_PSOCK && psock_opts(fd))
		goto err_close;
	if (bind(fd, (struct sockaddr *)&cfg.listen, sslen(&cfg.listen)) < 0 ||
	    listen(fd, 128) < 0) {
		err("listen: %s", strerror(errno));
		goto err_close;
	}
	return fd;
err_close:
	close(fd);
	return -1;
}

/*
 * Room for 2 descriptors per flow: the soft RLIMIT_NOFILE goes up to
 * 2 x --max-flows + FD_RESERVE, as far as the hard limit lets it, and
 * --max-flows down to what that holds.
 */
static void fd_limit(void)
{
	rlim_t need = 2 * (rlim_t)cfg.max_flows + FD_RESERVE;
	struct rlimit rl;
	unsigned int n;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= need)
		return;
	rl.rlim_cur = rl.rlim_max < need ? rl.rlim_max : need;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0 &&
	    getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return;
	if (rl.rlim_cur >= need)
		return;
	n = rl.rlim_cur >= FD_RESERVE + 2 ? (rl.rlim_cur - FD_RESERVE) / 2 : 1;
	err("%llu descriptors at most (RLIMIT_NOFILE): at most %u flows, not %u",
	    (unsigned long long)rl.rlim_cur, n, cfg.max_flows);
	cfg.max_flows = n;
}

/* The ingress: that PSOCK is there (the kernel loads psock.ko on the
 * first socket) before it accepts clients it could only reset.
 */
static int psock_probe(void)
{
	int fd = socket(cfg.remote.ss_family, SOCK_STREAM | SOCK_CLOEXEC,
			IPPROTO_PSOCK);

	if (fd < 0) {
		err("socket(PSOCK): %s (is psock.ko loaded?)", strerror(errno));
		return -1;
	}
	if (psock_opts(fd)) {
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* SIGHUP would not reload anything: say so, rather than die of it. */
static void sighup(void)
{
	err("SIGHUP: configuration is read at start only; restart to apply changes");
}

/* The signals waiting: true on SIGTERM or SIGINT. */
static bool signals(int sfd)
{
	struct signalfd_siginfo si;
	bool stop = false;

	while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGUSR1)
			flows_dump();
		else if (si.ssi_signo == SIGHUP)
			sighup();
		else
			stop = true;
	}
	return stop;
}

static int run(void)
{
	struct epoll_event ev[64];
	struct epoll_event lev = { .events = EPOLLIN, .data.ptr = &ep_listen };
	struct epoll_event sev = { .events = EPOLLIN, .data.ptr = &ep_signal };
	struct flow *f;
	bool stop = false;
	sigset_t mask;
	int sfd, n, i, rc = 0;
	char s[64];

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGUSR1);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (sfd < 0 || epfd < 0) {
		err("signalfd/epoll: %s", strerror(errno));
		return 1;
	}
	if (cfg.role == INGRESS && psock_probe() < 0)
		return 1;
	fd_limit();
	lfd = listen_on();
	if (lfd < 0)
		return 1;
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, lfd, &lev) < 0 ||
	    epoll_ctl(epfd, EPOLL_CTL_ADD, sfd, &sev) < 0) {
		err("epoll: %s", strerror(errno));
		return 1;
	}
	ntop(&cfg.listen, s, sizeof(s));
	err("listening on %s (%s%s), %zu bytes per direction, at most %u flows",
	    s, cfg.role == INGRESS ? "TCP" : "PSOCK",
	    cfg.transparent ? ", transparent" : "", cfg.bufsz, cfg.max_flows);

	while (!stop) {
		n = epoll_wait(epfd, ev, 64, 1000);
		if (n < 0 && errno != EINTR) {
			err("epoll_wait: %s", strerror(errno));
			rc = 1;
			break;
		}
		for (i = 0; i < n; i++) {
			struct ep *e = ev[i].data.ptr;

			if (e->kind == E_LISTEN)
				accept_one();
			else if (e->kind == E_SIDE)
				flow_event(e->f, e->side, ev[i].events);
			else
				stop |= signals(sfd);
		}
		flows_expire();
		flows_reap();
	}
	err("exiting: closing %u flows", nflows);
	while ((f = flows))
		flow_end(f, true, "daemon exiting");
	flows_reap();
	close(lfd);
	close(sfd);
	close(epfd);
	return rc;
}

static void usage(FILE *o)
{
	fprintf(o,
		"Usage: psock-gw ingress -l ADDR:PORT -r EGRESS:PORT [-t] [OPTIONS]\n"
		"       psock-gw egress -l ADDR:PORT [-r SERVER:PORT] [-a PREFIX:PORT]... [OPTIONS]\n"
		"       psock-gw [ingress|egress] -c FILE [OPTIONS]\n"
		"       psock-gw -V | -h\n"
		"  -c, --config FILE         read the settings from FILE (key = value, see\n"
		"                            psock-gw(8)); the options override it\n"
		"  -l, --listen ADDR:PORT    listen (TCP at the ingress, PSOCK at the egress)\n"
		"  -r, --remote ADDR:PORT    ingress: the egress translator (PSOCK);\n"
		"                            egress: the server of static flows (TCP)\n"
		"  -t, --transparent         ingress: TPROXY listener, the destination is\n"
		"                            the connection's original one\n"
		"  -a, --allow PREFIX:PORT   egress: a destination transparent flows may\n"
		"                            reach (ADDR[/LEN]:PORT, port 0 any; repeatable)\n"
		"  -n, --streams N           PSOCK stream count to ask for (1..%d)\n"
		"  -b, --buffer BYTES        buffer per flow and direction (%d..%d, %d)\n"
		"  -m, --max-flows N         flows at once (1..%d, %d)\n"
		"  -v, --verbose             log every flow's events\n"
		"  -V, --version             print the version\n"
		"ADDR is IPv4 or [IPv6].  SIGUSR1 logs every flow's state.\n",
		PSOCK_STREAM_CNT_LIMIT, BUF_MIN, BUF_MAX, BUF_DEFAULT,
		FLOWS_MAX, FLOWS_DEFAULT);
}

static int parse_allow(const char *arg)
{
	struct sockaddr_storage ss;
	struct allow *al;
	__u16 port;
	int plen;

	if (cfg.nallow == ALLOW_MAX || parse_addr(arg, &ss, &plen) < 0)
		return -1;
	al = &cfg.allow[cfg.nallow++];
	to_v6(&ss, al->addr.s6_addr, &port);
	al->port = port;
	al->plen = plen + (ss.ss_family == AF_INET ? 96 : 0);
	return 0;
}

/*
 * One setting, from an option (its short letter) or a configuration file
 * line (the key of the same letter); -1 on a bad value.
 */
static int set_opt(int c, const char *val, bool from_file)
{
	long v;

	switch (c) {
	case 'l':
		if (parse_addr(val, &cfg.listen, NULL) < 0)
			return -1;
		cfg.has_listen = true;
		return 0;
	case 'r':
		if (parse_addr(val, &cfg.remote, NULL) < 0)
			return -1;
		cfg.has_remote = true;
		return 0;
	case 't':
		if (!from_file || !strcmp(val, "yes"))
			cfg.transparent = true;
		else if (!strcmp(val, "no"))
			cfg.transparent = false;
		else
			return -1;
		return 0;
	case 'a':
		return parse_allow(val);
	case 'n':
		v = num(val, 1, PSOCK_STREAM_CNT_LIMIT);
		if (v < 0)
			return -1;
		cfg.streams = v;
		return 0;
	case 'b':
		v = num(val, BUF_MIN, BUF_MAX);
		if (v < 0)
			return -1;
		cfg.bufsz = v;
		return 0;
	case 'm':
		v = num(val, 1, FLOWS_MAX);
		if (v < 0)
			return -1;
		cfg.max_flows = v;
		return 0;
	case 'v':
		if (!from_file) {
			cfg.verbose++;
			return 0;
		}
		v = num(val, 0, VERBOSE_MAX);
		if (v < 0)
			return -1;
		cfg.verbose = v;
		return 0;
	}
	return -1;
}

static int set_role(const char *val)
{
	if (!strcmp(val, "ingress"))
		cfg.role = INGRESS;
	else if (!strcmp(val, "egress"))
		cfg.role = EGRESS;
	else
		return -1;
	cfg.name = val;
	cfg.has_role = true;
	return 0;
}

/* The keys of a configuration file: the long options, and "mode". */
static const struct {
	const char *key;
	int c;			/* the option's letter; 0: mode */
	bool repeat;		/* may appear more than once */
} conf_keys[] = {
	{ "mode", 0, false },
	{ "listen", 'l', false },
	{ "remote", 'r', false },
	{ "transparent", 't', false },
	{ "allow", 'a', true },
	{ "streams", 'n', false },
	{ "buffer", 'b', false },
	{ "max-flows", 'm', false },
	{ "verbose", 'v', false },
};

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define NKEYS		ARRAY_SIZE(conf_keys)

#define conf_err(file, line, fmt, ...) \
	fprintf(stderr, "psock-gw: %s:%u: " fmt "\n", file, line, ##__VA_ARGS__)

/* One line, without its newline: 0, or -1 with the reason printed. */
static int conf_line(const char *file, unsigned int ln, char *s,
		     unsigned int *seen)
{
	char *key, *val, *end;
	size_t i, klen;

	s += strspn(s, " \t");
	if (!*s || *s == '#')
		return 0;
	key = s;
	klen = strcspn(s, " \t=");
	s += klen;
	s += strspn(s, " \t");
	if (*s != '=') {
		conf_err(file, ln, "not \"key = value\"");
		return -1;
	}
	key[klen] = '\0';
	val = s + 1 + strspn(s + 1, " \t");
	end = val + strlen(val);
	while (end > val && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		*--end = '\0';
	for (i = 0; i < NKEYS; i++)
		if (!strcmp(key, conf_keys[i].key))
			break;
	if (i == NKEYS) {
		conf_err(file, ln, "unknown key \"%s\"", key);
		return -1;
	}
	if (!*val) {
		conf_err(file, ln, "\"%s\" has no value", key);
		return -1;
	}
	if (seen[i] && !conf_keys[i].repeat) {
		conf_err(file, ln, "duplicate \"%s\" (first on line %u)", key, seen[i]);
		return -1;
	}
	seen[i] = ln;
	if (conf_keys[i].c == 0) {
		if (snprintf(cfg.conf_mode, sizeof(cfg.conf_mode), "%s", val) >=
		    (int)sizeof(cfg.conf_mode))
			goto bad;
		if (strcmp(val, "ingress") && strcmp(val, "egress"))
			goto bad;
		/* The command line's mode overrides the file's. */
		if (!cfg.cmd_role)
			set_role(cfg.conf_mode);
		return 0;
	}
	if (conf_keys[i].c == 'a' && cfg.nallow == ALLOW_MAX) {
		conf_err(file, ln, "more than %d \"allow\"", ALLOW_MAX);
		return -1;
	}
	if (set_opt(conf_keys[i].c, val, true) == 0)
		return 0;
bad:
	conf_err(file, ln, "bad value for \"%s\": \"%s\"", key, val);
	return -1;
}

#define LINE_EOF	-1
#define LINE_LONG	-2
#define LINE_NUL	-3

/*
 * The next line of f in buf (CONF_LINE_MAX bytes and a NUL), without its
 * newline, the last one with or without: its length, LINE_EOF at the end
 * of the file or on an error, LINE_LONG for a line longer than
 * CONF_LINE_MAX bytes, LINE_NUL for one with a NUL byte.
 */
static int conf_getline(FILE *f, char *buf)
{
	int c, len = 0;

	while ((c = getc(f)) != EOF && c != '\n') {
		if (c == '\0')
			return LINE_NUL;
		if (len == CONF_LINE_MAX)
			return LINE_LONG;
		buf[len++] = c;
	}
	if (c == EOF && (!len || ferror(f)))
		return LINE_EOF;
	buf[len] = '\0';
	return len;
}

/* psock-gw -c FILE: the settings of the file, before the options. */
static int load_conf(const char *file)
{
	unsigned int seen[NKEYS] = { 0 }, ln = 0;
	char buf[CONF_LINE_MAX + 1];
	FILE *f;
	int len, ret = 0;

	f = fopen(file, "re");
	if (!f) {
		fprintf(stderr, "psock-gw: %s: %s\n", file, strerror(errno));
		return -1;
	}
	while (!ret && (len = conf_getline(f, buf)) != LINE_EOF) {
		ln++;
		if (len == LINE_LONG) {
			conf_err(file, ln, "line longer than %d bytes", CONF_LINE_MAX);
			ret = -1;
		} else if (len == LINE_NUL) {
			conf_err(file, ln, "NUL byte in the line");
			ret = -1;
		} else {
			ret = conf_line(file, ln, buf, seen);
		}
	}
	if (!ret && ferror(f)) {
		fprintf(stderr, "psock-gw: %s: %s\n", file, strerror(errno ? errno : EIO));
		ret = -1;
	}
	fclose(f);
	if (!ret && !seen[0] && !cfg.has_role) {
		conf_err(file, ln, "no \"mode\" (ingress or egress) %s",
			 "in the file or on the command line");
		ret = -1;
	}
	return ret;
}

static const struct option opts[] = {
	{ "config", required_argument, NULL, 'c' },
	{ "listen", required_argument, NULL, 'l' },
	{ "remote", required_argument, NULL, 'r' },
	{ "transparent", no_argument, NULL, 't' },
	{ "allow", required_argument, NULL, 'a' },
	{ "streams", required_argument, NULL, 'n' },
	{ "buffer", required_argument, NULL, 'b' },
	{ "max-flows", required_argument, NULL, 'm' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "version", no_argument, NULL, 'V' },
	{ "help", no_argument, NULL, 'h' },
	{}
};

#define OPTSTRING	"c:l:r:ta:n:b:m:vVh"

/* The first pass: only -c FILE, read before the other options. */
static int find_conf(int argc, char **argv, const char **file)
{
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, OPTSTRING, opts, NULL)) != -1) {
		if (c != 'c')
			continue;
		if (*file) {
			fprintf(stderr, "psock-gw: -c given twice\n");
			return -1;
		}
		*file = optarg;
	}
	opterr = 1;
	optind = 0;		/* glibc: start over, from scratch */
	return 0;
}

static int parse_args(int argc, char **argv)
{
	bool cmd_allow = false;
	int c;

	while ((c = getopt_long(argc, argv, OPTSTRING, opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			break;
		case 'a':
			/* The command line's --allow replace the file's. */
			if (!cmd_allow)
				cfg.nallow = 0;
			cmd_allow = true;
			if (set_opt(c, optarg, false) < 0)
				goto bad;
			break;
		case 'l': case 'r': case 't': case 'n': case 'b': case 'm': case 'v':
			if (set_opt(c, optarg, false) < 0)
				goto bad;
			break;
		case 'V':
			printf("psock-gw %s\n", HICN_PSOCK_VERSION);
			exit(0);
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind != argc) {
		err("unexpected argument \"%s\"", argv[optind]);
		return -1;
	}
	if (!cfg.has_listen) {
		err("--listen is required");
		return -1;
	}
	if (cfg.role == INGRESS && !cfg.has_remote) {
		err("--remote (the egress translator) is required");
		return -1;
	}
	if (cfg.role == INGRESS && cfg.nallow) {
		err("--allow is for the egress");
		return -1;
	}
	if (cfg.role == EGRESS && cfg.transparent) {
		err("--transparent is for the ingress");
		return -1;
	}
	if (cfg.role == EGRESS && !cfg.has_remote && !cfg.nallow) {
		err("--remote or --allow is required");
		return -1;
	}
	return 0;
bad:
	err("bad value for -%c: \"%s\"", c, optarg);
	return -1;
}

int main(int argc, char **argv)
{
	const char *conf = NULL;
	char **args = argv;
	int nargs = argc;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("psock-gw %s\n", HICN_PSOCK_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	/* The mode comes first, or from the configuration file's "mode". */
	if (argv[1][0] != '-') {
		if (set_role(argv[1]) < 0) {
			usage(stderr);
			return 2;
		}
		args = argv + 1;
		nargs = argc - 1;
	}
	if (find_conf(nargs, args, &conf) < 0)
		return 2;
	if (!conf && !cfg.has_role) {
		usage(stderr);
		return 2;
	}
	/* The command line's mode overrides the file's. */
	cfg.cmd_role = cfg.has_role;
	if (conf && load_conf(conf) < 0)
		return 2;
	if (parse_args(nargs, args) < 0)
		return 2;
	setvbuf(stderr, NULL, _IOLBF, 0);
	return run();
}
