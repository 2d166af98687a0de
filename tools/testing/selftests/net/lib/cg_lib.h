/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A memory cgroup of a test's own, under cgroup v2: made, joined, read
 * and left.  What the kernel charges to it shows in memory.current at
 * once and in memory.stat after a stats flush (2 s at the latest).
 */
#ifndef _SELFTEST_CG_LIB_H
#define _SELFTEST_CG_LIB_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#define CG_ROOT		"/sys/fs/cgroup"

/* Write @s to the file @path: 0 or an errno. */
static inline int cg_write(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	int err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, s, strlen(s)) < 0)
		err = errno;
	close(fd);
	return err;
}

/*
 * Make the cgroup CG_ROOT/@name_<pid> (its path in @dir) and move the
 * caller into it: 0, 1 when cgroup v2 has no memory controller here, -1
 * on an error.
 */
static inline int cg_join(const char *name, char *dir, size_t len)
{
	char buf[256] = "";
	FILE *f = fopen(CG_ROOT "/cgroup.controllers", "r");
	int ok;

	ok = f && fgets(buf, sizeof(buf), f) && strstr(buf, "memory");
	if (f)
		fclose(f);
	if (!ok)
		return 1;
	cg_write(CG_ROOT "/cgroup.subtree_control", "+memory");
	snprintf(dir, len, CG_ROOT "/%s_%d", name, getpid());
	if (mkdir(dir, 0755))
		return -1;
	snprintf(buf, sizeof(buf), "%s/cgroup.procs", dir);
	return cg_write(buf, "0") ? -1 : 0;
}

/* Back to the root cgroup, and the test's own removed. */
static inline void cg_leave(const char *dir)
{
	cg_write(CG_ROOT "/cgroup.procs", "0");
	rmdir(dir);
}

/* memory.current of cgroup @dir, in bytes; -1 when unreadable. */
static inline long long cg_current(const char *dir)
{
	char path[256];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/memory.current", dir);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

#endif /* _SELFTEST_CG_LIB_H */
