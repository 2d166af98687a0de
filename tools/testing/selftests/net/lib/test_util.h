/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the C selftests.
 */
#ifndef _SELFTEST_TEST_UTIL_H
#define _SELFTEST_TEST_UTIL_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/*
 * The "sockets" column of /proc/net/protocols for @proto in the caller's
 * network namespace, or -1 when the protocol is not registered.
 */
static inline int proto_inuse(const char *proto)
{
	char line[512], name[64];
	int size, sockets, found = -1;
	FILE *f = fopen("/proc/net/protocols", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %d %d", name, &size, &sockets) == 3 &&
		    !strcmp(name, proto)) {
			found = sockets;
			break;
		}
	}
	fclose(f);
	return found;
}

/* Inode number of a socket descriptor, as listed in /proc/net files. */
static inline unsigned long sock_inode(int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		return 0;
	return st.st_ino;
}

/*
 * Copy the line of @path whose first column is @inode into @buf.
 * Returns 1 when found, 0 when not, -1 when the file cannot be read.
 */
static inline int proc_find_inode(const char *path, unsigned long inode,
				  char *buf, size_t len)
{
	char line[512], *end;
	int found = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strtoul(line, &end, 10) == inode && end != line) {
			snprintf(buf, len, "%s", line);
			found = 1;
			break;
		}
	}
	fclose(f);
	return found;
}

/* An integer from a /proc/sys file, or -1. */
static inline int sysctl_get(const char *path)
{
	FILE *f = fopen(path, "r");
	int v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* Write @val to a /proc/sys file: 0, or the errno of the write. */
static inline int sysctl_set(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");
	int err = 0;

	if (!f)
		return errno;
	if (fputs(val, f) < 0 || fflush(f))
		err = errno;
	if (fclose(f) && !err)
		err = errno;
	return err;
}

#endif /* _SELFTEST_TEST_UTIL_H */
