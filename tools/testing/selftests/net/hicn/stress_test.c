// SPDX-License-Identifier: GPL-2.0
/*
 * Everything at once: publishers, datagram and stream consumers and
 * subscribers, threads closing the sockets other threads are blocked in,
 * a producer that claims and releases the namespace in a loop, and
 * unprivileged users making and destroying network namespaces of their
 * own with interests and content still in them.  STRESS_S seconds (300
 * with LONG=1, make check-long), on the debug kernel where KASAN,
 * kmemleak and lockdep see what a plain kernel hides.
 *
 * What must hold: every call ends in data or a documented errno; every
 * object a consumer gets whole is the one a producer published (objects
 * describe themselves: a header with their length and the seed of their
 * bytes); a subscriber never gets an older version than one it got; and
 * once all sockets are closed, the namespace's PIT, held interests and
 * producer memory drain to zero.  The harness checks the kernel log and
 * kmemleak after the run.
 *
 * Each claim of the namespace publishes names of its own (the producer
 * socket's inode in them): a producer that claims the namespace after
 * another numbers its versions from 1 again, and a fetch that straddles
 * the change can get segments of two objects of one name and version
 * (hicn(7), BUGS; issue 12).  That is not what this test looks for.
 */
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "hicn_test.h"
#include "kselftest_harness.h"

#define STRESS_S	15
#define STRESS_LONG_S	300
#define NNAMES		4
#define NSLOTS		6
#define OBJ_MAX		(192 * 1024)
#define OBJ_MAGIC	0x48494f42u	/* "HIOB" */

struct obj_hdr {
	uint32_t magic;
	uint32_t len;
	uint64_t seed;
};

/*
 * A socket one thread uses and another closes under it.  The closer does
 * not free the descriptor's number (another thread's next socket would
 * get it, and two threads would read one socket): it puts /dev/null in
 * its place with dup2(), which closes the socket as close() does, and
 * the owner frees the number when it is done.  @closed_gen names the
 * generation of the socket the closer closed, for the reader to know.
 */
struct slot {
	pthread_mutex_t lock;
	int fd;				/* protected by @lock */
	uint32_t gen;			/* the owner's, of its socket */
	uint32_t closed_gen;
};

struct stress {
	int stop;
	int prod;				/* the producer of the moment */
	struct slot cons[NSLOTS];		/* consumers, closable */
	unsigned long published, fetched, streamed, subscribed;
	unsigned long closed, claims, netns_rounds, lost;
	unsigned long prod_ino;			/* the claim's, for its names */
	int netns_status;			/* a netns user's exit code */
	pthread_mutex_t lock;
	char why[256];				/* the first failure */
};

/* Name @i (of NNAMES) of the claim by the producer socket of inode @ino. */
static void name_of(char *buf, size_t len, unsigned long ino, int i)
{
	snprintf(buf, len, "b001:a:b:c:%lx:%lx::%x", (ino >> 16) & 0xffff,
		 ino & 0xffff, i + 1);
}

static int stopped(struct stress *st)
{
	return __atomic_load_n(&st->stop, __ATOMIC_RELAXED);
}

static void count(unsigned long *c)
{
	__atomic_add_fetch(c, 1, __ATOMIC_RELAXED);
}

static void fail(struct stress *st, const char *fmt, const char *what, int e)
{
	pthread_mutex_lock(&st->lock);
	if (!st->why[0])
		snprintf(st->why, sizeof(st->why), fmt, what, e, strerror(e));
	pthread_mutex_unlock(&st->lock);
}

/*
 * Is @e one of the errnos the documentation gives the call @what?  EBADF
 * and ENOTSOCK too: another thread may have closed the descriptor (the
 * producer's) or put /dev/null in its place (a consumer's).
 */
static int documented(const char *what, int e)
{
	static const int recv_ok[] = {
		ENOTCONN, ETIMEDOUT, ENOENT, ENETUNREACH, ENOBUFS, ENOMEM,
		EAGAIN, EINTR, EOPNOTSUPP, EBADF, ENOTSOCK, 0 };
	static const int send_ok[] = {
		EDESTADDRREQ, EADDRNOTAVAIL, EMSGSIZE, EAGAIN, EINTR, ENOBUFS,
		EPIPE, EOPNOTSUPP, EBADF, ENOTSOCK, 0 };
	const int *ok = !strcmp(what, "sendto") ? send_ok : recv_ok;

	for (; *ok; ok++)
		if (*ok == e)
			return 1;
	return 0;
}

static size_t obj_make(char *buf, unsigned int *rnd)
{
	struct obj_hdr *h = (struct obj_hdr *)buf;
	size_t len = sizeof(*h) + rand_r(rnd) % (rand_r(rnd) % 8 ?
						 8192 : OBJ_MAX - sizeof(*h));

	h->magic = OBJ_MAGIC;
	h->len = len;
	h->seed = ((uint64_t)rand_r(rnd) << 32) | rand_r(rnd);
	ht_fill(buf + sizeof(*h), len - sizeof(*h), h->seed);
	return len;
}

/* 0 when @buf holds a whole object as a producer made it. */
static int obj_check(const char *buf, size_t len, char *scratch)
{
	const struct obj_hdr *h = (const struct obj_hdr *)buf;

	if (len < sizeof(*h) || h->magic != OBJ_MAGIC || h->len != len)
		return -1;
	ht_fill(scratch, len - sizeof(*h), h->seed);
	return memcmp(buf + sizeof(*h), scratch, len - sizeof(*h)) ? -1 : 0;
}

/* Claims the namespace, lets the publishers use it, releases it. */
static void *producer_cycler(void *arg)
{
	struct stress *st = arg;
	unsigned int rnd = 1;
	struct stat sb;
	int p;

	while (!stopped(st)) {
		p = ht_producer(rand_r(&rnd) % 2 ? PROD_REL : PROD_UNREL);
		if (p < 0)
			continue;	/* the last claim is not released yet */
		ht_setint(p, HICN_CONTENT_EXPIRY, 50 + rand_r(&rnd) % 500);
		if (!fstat(p, &sb))
			__atomic_store_n(&st->prod_ino, sb.st_ino,
					 __ATOMIC_RELEASE);
		count(&st->claims);
		__atomic_store_n(&st->prod, p, __ATOMIC_RELEASE);
		usleep(rand_r(&rnd) % 200000);
		__atomic_store_n(&st->prod, -1, __ATOMIC_RELEASE);
		close(p);
	}
	return NULL;
}

static void *publisher(void *arg)
{
	struct stress *st = arg;
	unsigned int rnd = (unsigned int)pthread_self();
	char *buf = malloc(OBJ_MAX);
	char name[64];
	struct stat sb;
	ssize_t n;
	size_t len;
	int fd;

	while (buf && !stopped(st)) {
		fd = __atomic_load_n(&st->prod, __ATOMIC_ACQUIRE);
		if (fd < 0 || fstat(fd, &sb)) {
			sched_yield();
			continue;
		}
		/* The names of the socket behind @fd, whoever's it is now. */
		name_of(name, sizeof(name), sb.st_ino, rand_r(&rnd) % NNAMES);
		len = obj_make(buf, &rnd);
		n = ht_publish(fd, name, buf, len, MSG_DONTWAIT);
		if (n == (ssize_t)len)
			count(&st->published);
		else if (n >= 0)
			fail(st, "%s: short publication (%d) %s", "sendto", 0);
		else if (!documented("sendto", errno))
			fail(st, "%s: errno %d (%s)", "sendto", errno);
	}
	free(buf);
	return NULL;
}

/* A consumer in slot @s: datagram, stream or subscriber, chosen by @kind. */
static int consumer_open(struct stress *st, int s, int kind,
			 unsigned int *rnd)
{
	struct timeval tv = { .tv_usec = 300000 };
	char name[64];
	int fd;

	name_of(name, sizeof(name),
		__atomic_load_n(&st->prod_ino, __ATOMIC_ACQUIRE),
		rand_r(rnd) % NNAMES);
	fd = kind == 1 ? socket(hcn_family(), SOCK_CONS, CONS_REL) :
	     ht_consumer(rand_r(rnd) % 2 ? CONS_REL : CONS_UNREL, name, 0);
	if (fd < 0)
		return -1;
	if (kind == 1 && ht_connect(fd, name, 0)) {
		close(fd);
		return -1;
	}
	if (kind == 2)
		ht_setint(fd, HICN_SUBSCRIBE, 1);
	ht_setint(fd, HICN_INTEREST_LIFETIME, 20 + rand_r(rnd) % 200);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	pthread_mutex_lock(&st->cons[s].lock);
	st->cons[s].gen++;
	st->cons[s].fd = fd;
	pthread_mutex_unlock(&st->cons[s].lock);
	return fd;
}

/* One fetch on @fd (kind 0/2: datagram, 1: stream to EOF). */
static void consumer_fetch(struct stress *st, int s, int fd, int kind,
			   char *buf, char *scratch, __u32 *last)
{
	struct hicn_info hi;
	ssize_t n;
	int trunc = 0;

	if (kind == 1) {
		n = ht_read_stream(fd, buf, OBJ_MAX, 4096 + s * 1000);
	} else {
		struct iovec iov = { .iov_base = buf, .iov_len = OBJ_MAX };
		char cbuf[CMSG_SPACE(sizeof(__u32))];
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
				    .msg_control = cbuf,
				    .msg_controllen = sizeof(cbuf) };
		struct cmsghdr *cm;

		n = recvmsg(fd, &m, 0);
		trunc = m.msg_flags & MSG_TRUNC;
		/* CONS_UNREL: segments lost (the version expired) read as 0. */
		for (cm = CMSG_FIRSTHDR(&m); n > 0 && cm;
		     cm = CMSG_NXTHDR(&m, cm))
			if (cm->cmsg_level == SOL_HICN &&
			    cm->cmsg_type == HICN_CMSG_LOST) {
				count(&st->lost);
				return;
			}
	}
	if (n < 0) {
		if (!documented("recv", errno))
			fail(st, "%s: errno %d (%s)", "recv", errno);
		return;
	}
	/* Another thread closed the socket: the bytes may be anyone's. */
	if (__atomic_load_n(&st->cons[s].closed_gen, __ATOMIC_ACQUIRE) ==
	    st->cons[s].gen)
		return;
	if (trunc || obj_check(buf, n, scratch)) {
		fail(st, "%s: a fetch returned %d bytes that are no object",
		     kind == 1 ? "stream" : "datagram", (int)n);
		return;
	}
	count(kind == 0 ? &st->fetched : kind == 1 ? &st->streamed :
	      &st->subscribed);
	if (kind == 2 && !ht_info(fd, &hi)) {
		if (hi.hi_last_version <= *last && *last)
			fail(st, "%s: version went back (%d)", "subscriber",
			     (int)hi.hi_last_version);
		*last = hi.hi_last_version;
	}
}

static void *consumer(void *arg)
{
	struct stress *st = ((void **)arg)[0];
	int s = (int)(long)((void **)arg)[1], kind = s % 3, fd, i;
	unsigned int rnd = s + 7;
	char *buf = malloc(OBJ_MAX), *scratch = malloc(OBJ_MAX);
	__u32 last;

	while (buf && scratch && !stopped(st)) {
		fd = consumer_open(st, s, kind, &rnd);
		if (fd < 0)
			continue;
		last = 0;
		/* A stream is one object; read() after its end stays 0. */
		for (i = 0; i < (kind == 1 ? 1 : 4) && !stopped(st); i++)
			consumer_fetch(st, s, fd, kind, buf, scratch, &last);
		pthread_mutex_lock(&st->cons[s].lock);
		st->cons[s].fd = -1;
		pthread_mutex_unlock(&st->cons[s].lock);
		close(fd);
	}
	free(buf);
	free(scratch);
	return NULL;
}

/* Closes consumers under the threads that are blocked in them. */
static void *closer(void *arg)
{
	struct stress *st = arg;
	int null = open("/dev/null", O_RDONLY);
	unsigned int rnd = 3;
	struct slot *sl;

	while (null >= 0 && !stopped(st)) {
		usleep(rand_r(&rnd) % 20000);
		sl = &st->cons[rand_r(&rnd) % NSLOTS];
		pthread_mutex_lock(&sl->lock);
		if (sl->fd >= 0) {
			__atomic_store_n(&sl->closed_gen, sl->gen,
					 __ATOMIC_RELEASE);
			if (dup2(null, sl->fd) == sl->fd)
				count(&st->closed);
		}
		pthread_mutex_unlock(&sl->lock);
	}
	if (null >= 0)
		close(null);
	return NULL;
}

/*
 * An unprivileged user (nobody) makes a network namespace of its own,
 * publishes and fetches there, and leaves interests waiting, held by its
 * producer and in the PIT, when the process and with it the namespace
 * go away.
 */
static int nobody_in_own_netns(unsigned int seed)
{
	struct sockaddr_hicn ns = ht_name("b002::", 16, 0);
	char buf[4096], map[32];
	int fd, p, c, i;

	if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534))
		return 1;
	/* A changed uid made us undumpable: /proc/self would be root's. */
	if (prctl(PR_SET_DUMPABLE, 1))
		return 10;
	if (unshare(CLONE_NEWUSER))
		return 2;
	fd = open("/proc/self/uid_map", O_WRONLY);
	snprintf(map, sizeof(map), "0 65534 1\n");
	if (fd < 0 || write(fd, map, strlen(map)) < 0)
		return 3;
	close(fd);
	if (unshare(CLONE_NEWNET))
		return 9;
	p = socket(hcn_family(), SOCK_PROD, PROD_REL);
	if (p < 0 || bind(p, (struct sockaddr *)&ns, sizeof(ns)))
		return 4;
	ht_fill(buf, sizeof(buf), seed);
	for (i = 0; i < 8; i++)
		if (ht_publish(p, "b002::1", buf, sizeof(buf), 0) !=
		    sizeof(buf))
			return 5;
	c = socket(hcn_family(), SOCK_CONS, CONS_REL);
	if (c < 0 || ht_connect(c, "b002::1", 0) ||
	    ht_read_stream(c, buf, sizeof(buf), 1000) != sizeof(buf))
		return 6;
	/* Versions not published yet: held by the producer, in the PIT. */
	for (i = 0; i < 8; i++) {
		c = socket(hcn_family(), SOCK_CONS, CONS_REL);
		if (c < 0)
			return 7;
		ht_setint(c, HICN_INTEREST_LIFETIME, 60000);
		if (ht_connect(c, "b002::1", 100 + i) ||
		    recv(c, buf, 1, MSG_DONTWAIT) != -1 || errno != EAGAIN)
			return 8;
	}
	return 0;		/* exit with all of it in place */
}

static void *netns_users(void *arg)
{
	struct stress *st = arg;
	int status;
	pid_t pid;

	while (!stopped(st)) {
		pid = fork();
		if (pid < 0)
			break;
		if (!pid)
			_exit(nobody_in_own_netns(getpid()));
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			st->netns_status = WIFEXITED(status) ?
					   WEXITSTATUS(status) : -1;
			break;
		}
		count(&st->netns_rounds);
	}
	return NULL;
}

static int write_sysctl(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(val, f);
	return fclose(f);
}

/* Wait up to @ms for the counter @key to fall to 0; its last value. */
static long long wait_zero(const char *key, int ms)
{
	double end = ht_ms() + ms;
	long long v;

	while ((v = ht_stat(key)) > 0 && ht_ms() < end)
		usleep(10000);
	return v;
}

FIXTURE(stress)
{
	int unused;
};

FIXTURE_SETUP(stress)
{
	self->unused = 0;
}

FIXTURE_TEARDOWN(stress)
{
}

TEST_F_TIMEOUT(stress, mixed, STRESS_LONG_S + 180)
{
	const char *long_run = getenv("LONG");
	int secs = long_run && *long_run == '1' ? STRESS_LONG_S : STRESS_S;
	pthread_t th[NSLOTS + 6];
	void *args[NSLOTS][2];
	struct stress *st;
	int i, n = 0;

	ASSERT_EQ(0, ht_enter_netns());
	st = calloc(1, sizeof(*st));
	ASSERT_NE(NULL, st);
	pthread_mutex_init(&st->lock, NULL);
	st->prod = -1;
	for (i = 0; i < NSLOTS; i++) {
		pthread_mutex_init(&st->cons[i].lock, NULL);
		st->cons[i].fd = -1;
	}
	ASSERT_EQ(0, pthread_create(&th[n++], NULL, producer_cycler, st));
	ASSERT_EQ(0, pthread_create(&th[n++], NULL, publisher, st));
	ASSERT_EQ(0, pthread_create(&th[n++], NULL, publisher, st));
	ASSERT_EQ(0, pthread_create(&th[n++], NULL, closer, st));
	ASSERT_EQ(0, pthread_create(&th[n++], NULL, netns_users, st));
	for (i = 0; i < NSLOTS; i++) {
		args[i][0] = st;
		args[i][1] = (void *)(long)i;
		ASSERT_EQ(0, pthread_create(&th[n++], NULL, consumer, args[i]));
	}
	sleep(secs);	/* the duration of the run, not a synchronisation */
	__atomic_store_n(&st->stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	TH_LOG("%d s: %lu claims, %lu published; fetches: %lu datagram, %lu stream, %lu subscribed",
	       secs, st->claims, st->published, st->fetched, st->streamed,
	       st->subscribed);
	TH_LOG("%lu closed under a reader, %lu with segments lost, %lu user netns",
	       st->closed, st->lost, st->netns_rounds);
	EXPECT_STREQ("", st->why);
	EXPECT_LT(0, st->published);
	EXPECT_LT(0, st->fetched + st->streamed);
	EXPECT_EQ(0, st->netns_status);
	EXPECT_LT(0, st->netns_rounds);
	/*
	 * Every socket is closed: nothing may stay behind once the content
	 * store, which holds references to objects, is flushed.
	 */
	ASSERT_EQ(0, write_sysctl(HT_SYSCTL("cs_max_entries"), "0"));
	EXPECT_EQ(0, wait_zero("prod_mem", 10000));
	EXPECT_EQ(0, wait_zero("prod_names", 10000));
	EXPECT_EQ(0, wait_zero("prod_held", 10000));
	EXPECT_EQ(0, wait_zero("pit_entries", 30000));
	free(st);
}

TEST_HARNESS_MAIN
