// SPDX-License-Identifier: GPL-2.0
/*
 * hicnctl monitor: the events of both families as they happen, hicn's
 * namespace events and psock's subflow events, as "hicnctl hicn monitor"
 * and "hicnctl psock monitor" print them (a line, or a JSON object a line
 * with -j).
 *
 * libhcn's monitors block: a child follows psock's events while hicnctl
 * follows hicn's.  stdout is line-buffered and every event is one line,
 * so the two processes' lines do not mix.  The child dies with hicnctl
 * (PR_SET_PDEATHSIG); a SIGINT, SIGTERM or SIGHUP to hicnctl ends the
 * child first, and when the child's monitor fails hicnctl ends with its
 * status.  A family whose module is not loaded is left out (a warning on
 * stderr); without either, hicnctl exits with EXIT_KERNEL.
 */

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hcn.h>

#include "hicnctl.h"

static pid_t child;

/* Whether @family is registered; a usage error without generic netlink. */
static bool have_family(const char *family)
{
	int id = hcn_genl_family(family);

	if (id == -EPROTONOSUPPORT)
		return false;
	if (id < 0)
		usage_error("cannot open a generic netlink socket");
	return true;
}

/* The child ended: its monitor failed (and said why); hicnctl ends too. */
static void child_ended(int sig)
{
	int status;

	(void)sig;
	if (waitpid(child, &status, WNOHANG) == child)
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_KERNEL);
}

/* hicnctl is stopped: the child first, then hicnctl by the same signal. */
static void stop(int sig)
{
	kill(child, sig);
	waitpid(child, NULL, 0);
	raise(sig);	/* SA_RESETHAND: the default action, on return */
}

static int monitor_both(void)
{
	static const int stops[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa = {};
	pid_t parent = getpid();
	sigset_t set, old;
	size_t i;
	int err;

	/* Until the handlers are in place: a child that dies at once. */
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	for (i = 0; i < ARRAY_SIZE(stops); i++)
		sigaddset(&set, stops[i]);
	sigprocmask(SIG_BLOCK, &set, &old);
	child = fork();
	if (child < 0) {
		fprintf(stderr, "Error: fork: %s.\n", strerror(errno));
		return EXIT_KERNEL;
	}
	if (!child) {
		/* The parent may have gone before the prctl(). */
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) || getppid() != parent)
			_exit(0);
		sigprocmask(SIG_SETMASK, &old, NULL);
		return monitor_error(PSOCK_FAMILY_NAME, psock_events());
	}

	sa.sa_handler = child_ended;
	sa.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
	sa.sa_handler = stop;
	sa.sa_flags = SA_RESETHAND;
	sigaddset(&sa.sa_mask, SIGCHLD);
	for (i = 0; i < ARRAY_SIZE(stops); i++)
		sigaction(stops[i], &sa, NULL);
	sigprocmask(SIG_SETMASK, &old, NULL);

	err = hicn_events();
	sigprocmask(SIG_BLOCK, &set, NULL);
	kill(child, SIGTERM);
	waitpid(child, NULL, 0);
	return monitor_error(HICN_FAMILY_NAME, err);
}

int do_monitor(int argc, char **argv)
{
	bool hicn, psock;

	if (argc > 0 && matches(*argv, "help")) {
		fprintf(stderr, "Usage: hicnctl monitor\n");
		return 0;
	}
	if (argc > 0)
		usage_error("\"%s\" is unexpected", *argv);
	hicn = have_family(HICN_FAMILY_NAME);
	psock = have_family(PSOCK_FAMILY_NAME);
	if (!hicn && !psock) {
		fprintf(stderr,
			"Error: netlink families \"%s\" and \"%s\" not found (are the modules loaded?).\n",
			HICN_FAMILY_NAME, PSOCK_FAMILY_NAME);
		return EXIT_KERNEL;
	}
	if (!hicn || !psock)
		fprintf(stderr,
			"Warning: netlink family \"%s\" not found (is the module loaded?): \"%s\" events only.\n",
			hicn ? PSOCK_FAMILY_NAME : HICN_FAMILY_NAME,
			hicn ? HICN_FAMILY_NAME : PSOCK_FAMILY_NAME);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!psock)
		return monitor_error(HICN_FAMILY_NAME, hicn_events());
	if (!hicn)
		return monitor_error(PSOCK_FAMILY_NAME, psock_events());
	return monitor_both();
}
