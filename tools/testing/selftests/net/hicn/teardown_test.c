// SPDX-License-Identifier: GPL-2.0
/*
 * Teardown with the forwarder busy: a network namespace, or the module
 * itself, goes while timers and work are armed for it.
 *
 * The state each case builds (build_state()): a producer whose object
 * went through the content store (CS entries, swept by the collector), a
 * producer holding interests for names it has not published (PIT entries
 * with their lifetime timers), consumers waiting with those interests out
 * (their retransmission deadlines), and a thread asleep in recv().
 *
 *   netns_exit_busy: ROUNDS times a child builds that state in a network
 *   namespace of its own and exits with every socket open; the namespace
 *   goes by cleanup_net(), later, on a workqueue.  Afterwards the module
 *   holds no more references than before (no socket left anywhere).
 *   KASAN, kmemleak and lockdep on the debug kernel see what it gets wrong.
 *
 *   rmmod_busy: the state in the test's namespace, every socket closed
 *   (the CS entries and the held interests of closed consumers stay), and
 *   at once delete_module("hicn"); then the same with a child namespace
 *   exiting at the moment of the rmmod.  The module is loaded again from
 *   HICN_KO after each and must serve sockets.
 *
 * LONG=1 (make check-long) runs 20 times the rounds.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <netinet/in.h>

#include "hicn_test.h"
#include "kselftest_harness.h"

#define ROUNDS		50
#define NHELD		8
#define OBJ_LEN		(64 * 1024)
#define MAX_FDS		(NHELD + 4)

static int rounds(void)
{
	const char *long_run = getenv("LONG");

	return long_run && !strcmp(long_run, "1") ? 20 * ROUNDS : ROUNDS;
}

static void *sleep_in_recv(void *arg)
{
	char byte;

	recv(*(int *)arg, &byte, 1, 0);
	return NULL;
}

/*
 * The state described above, in the current namespace (the thread in
 * recv() with @reader: a close() by another thread would not end that
 * recv(), and the socket would stay until it does); its sockets in @fds
 * (*@n of them).  0, or -1 at the first step that failed.
 */
static int build_state(int *fds, int *n, bool reader)
{
	static char obj[OBJ_LEN], got[OBJ_LEN + 1];
	pthread_t thread;
	char name[64];
	int p, c, i;

	*n = 0;
	p = ht_producer(PROD_REL);
	if (p < 0)
		return -1;
	fds[(*n)++] = p;
	ht_fill(obj, sizeof(obj), *n);
	if (ht_publish(p, HT_NAME, obj, sizeof(obj), 0) != sizeof(obj))
		return -1;
	c = ht_consumer(CONS_REL, HT_NAME, 0);
	if (c < 0 || recv(c, got, sizeof(got), 0) != sizeof(obj))
		return -1;
	close(c);
	/* Names the producer has not published: it holds the interests. */
	for (i = 0; i < NHELD; i++) {
		c = socket(hcn_family(), SOCK_CONS | SOCK_NONBLOCK, CONS_REL);
		if (c < 0)
			return -1;
		fds[(*n)++] = c;
		snprintf(name, sizeof(name), "b001:a:b:c::f00:%x", i);
		if (ht_setint(c, HICN_INTEREST_LIFETIME, 60000) ||
		    ht_connect(c, name, 0))
			return -1;
	}
	if (!reader)
		goto held;
	c = socket(hcn_family(), SOCK_CONS, CONS_REL);
	if (c < 0)
		return -1;
	fds[(*n)++] = c;
	if (ht_setint(c, HICN_INTEREST_LIFETIME, 60000) ||
	    ht_connect(c, "b001:a:b:c::f01:0", 0) ||
	    pthread_create(&thread, NULL, sleep_in_recv, &fds[*n - 1]) ||
	    pthread_detach(thread))
		return -1;
held:
	i = NHELD + reader;
	return ht_wait_stat("prod_held", i, 10000) >= i ? 0 : -1;
}

/* A child that builds the state in a namespace of its own and exits. */
static pid_t busy_child(void)
{
	int fds[MAX_FDS], n;
	pid_t pid = fork();

	if (pid)
		return pid;
	if (ht_enter_netns() || build_state(fds, &n, true))
		_exit(1);
	_exit(0);	/* every socket still open */
}

static int module_refs(void)
{
	FILE *f = fopen("/sys/module/hicn/refcnt", "r");
	int refs = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &refs) != 1)
		refs = -1;
	fclose(f);
	return refs;
}

/* Wait up to @ms for the module's references to come down to @want. */
static int refs_settle(int want, int ms)
{
	int refs = module_refs();

	while (refs != want && ms > 0) {
		ht_sleep_ms(20);
		ms -= 20;
		refs = module_refs();
	}
	return refs;
}

/*
 * rmmod hicn, waiting up to 30 s for sockets whose release is still
 * queued (a namespace's cleanup) to let go of it; 0 or an errno.
 */
static int unload(void)
{
	double end = ht_ms() + 30000;

	while (syscall(__NR_delete_module, "hicn", O_NONBLOCK)) {
		if ((errno != EWOULDBLOCK && errno != EBUSY) || ht_ms() > end)
			return errno;
		ht_sleep_ms(20);
	}
	return 0;
}

static int load(const char *ko)
{
	int fd = open(ko, O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return errno;
	ret = syscall(__NR_finit_module, fd, "", 0) ? errno : 0;
	close(fd);
	return ret;
}

/* No state of its own: a fixture for the timeout LONG=1 needs. */
FIXTURE(teardown) {};
FIXTURE_SETUP(teardown) {}
FIXTURE_TEARDOWN(teardown) {}

/*
 * The harness's default of 30 s fits ROUNDS (2 s on 6.12, 7 s on the
 * debug kernel), not LONG=1's twenty times as many.
 */
TEST_F_TIMEOUT(teardown, netns_exit_busy, 1800)
{
	int refs0 = module_refs(), status, i, n = rounds();
	pid_t pid;

	ASSERT_LE(0, refs0);
	for (i = 0; i < n; i++) {
		pid = busy_child();
		ASSERT_LT(0, pid);
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		ASSERT_EQ(0, WEXITSTATUS(status)) TH_LOG("round %d", i);
	}
	/* Every namespace cleaned up: no socket holds the module. */
	EXPECT_EQ(refs0, refs_settle(refs0, 30000));
	TH_LOG("%d namespaces left busy", n);
}

TEST(rmmod_busy)
{
	const char *ko = getenv("HICN_KO");
	int fds[MAX_FDS], n, i, status, s;
	pid_t pid;

	ASSERT_NE(NULL, ko) TH_LOG("HICN_KO must point to hicn.ko");
	/* The test's own namespace: the sockets closed, their state not. */
	ASSERT_EQ(0, ht_enter_netns());
	ASSERT_EQ(0, build_state(fds, &n, false));
	EXPECT_LT(0, ht_stat("cs_entries"));
	for (i = 0; i < n; i++)
		close(fds[i]);
	ASSERT_EQ(0, unload());
	ASSERT_EQ(0, load(ko));

	/* A namespace exiting while the module goes. */
	pid = busy_child();
	ASSERT_LT(0, pid);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(0, unload());
	ASSERT_EQ(0, load(ko));

	/* And it serves. */
	s = socket(hcn_family(), SOCK_CONS, CONS_REL);
	EXPECT_LE(0, s) TH_LOG("%s", strerror(errno));
	close(s);
}

TEST_HARNESS_MAIN
