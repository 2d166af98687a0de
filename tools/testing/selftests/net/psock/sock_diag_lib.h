/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One sock_diag exchange of the PSOCK tests: a request on a new
 * NETLINK_SOCK_DIAG socket, its answers handed to a callback.
 */
#ifndef _SOCK_DIAG_LIB_H
#define _SOCK_DIAG_LIB_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>

typedef void (*sock_diag_cb)(const struct nlmsghdr *h, void *arg);

/*
 * Send @req (@len bytes) and give each SOCK_DIAG_BY_FAMILY answer to @cb,
 * until NLMSG_DONE (with the error it carries), an NLMSG_ERROR (its error;
 * 0 for an acknowledgment) or, with @one, the first answer.  The number
 * of answers, or a negative errno.
 */
static inline int sock_diag_xchg(const void *req, size_t len, bool one,
				 sock_diag_cb cb, void *arg)
{
	static __thread uint64_t buf[8192];
	int fd, n = 0, err = 0;
	bool done = false;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		return -errno;
	if (send(fd, req, len, 0) < 0) {
		close(fd);
		return -errno;
	}
	while (!done && !err) {
		ssize_t r = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *h = (struct nlmsghdr *)buf;

		if (r <= 0) {
			err = r < 0 ? -errno : -EPROTO;
			break;
		}
		for (; NLMSG_OK(h, r); h = NLMSG_NEXT(h, r)) {
			if (h->nlmsg_type == NLMSG_DONE) {
				int e = 0;

				if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(e)))
					memcpy(&e, NLMSG_DATA(h), sizeof(e));
				err = e < 0 ? e : 0;
				done = true;
				break;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				err = ((struct nlmsgerr *)NLMSG_DATA(h))->error;
				done = true;
				break;
			}
			if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY) {
				err = -EPROTO;
				break;
			}
			cb(h, arg);
			n++;
			if (one) {
				done = true;
				break;
			}
		}
	}
	close(fd);
	return err ? err : n;
}

#endif /* _SOCK_DIAG_LIB_H */
