/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * IPPROTO_PSOCK: one TCP-like byte stream striped over N kernel TCP
 * subflows.  An application opens it with
 *
 *	socket(AF_INET or AF_INET6, SOCK_STREAM, IPPROTO_PSOCK);
 *
 * and otherwise uses it as a TCP socket.  On the wire every subflow is a
 * plain TCP connection: IPPROTO_PSOCK never appears in a packet.
 *
 * See Documentation/abi.rst for why the numbers below are safe.
 */
#ifndef _UAPI_LINUX_PSOCK_H
#define _UAPI_LINUX_PSOCK_H

#include <linux/types.h>

/*
 * Protocol number for socket().  inet_create() accepts protocols below
 * IPPROTO_MAX (263).  Above 255 the kernel uses 256 (IPPROTO_SMC, 6.12) and
 * 262 (IPPROTO_MPTCP); newer kernels add 257 and 261.  259 is free on every
 * kernel we support, and, being above 255, can never be confused with an IP
 * header's protocol byte.
 */
#define IPPROTO_PSOCK		259

/*
 * Socket option level.  Options at any other level (SOL_SOCKET, SOL_TCP,
 * SOL_IP, SOL_IPV6) keep their TCP meaning.  Kept away from the kernel's
 * SOL_* numbers (up to 287 in 6.12).
 */
#define SOL_PSOCK		301

/*
 * Hard limit on the number of data subflows of one connection (MPTCP stops
 * at 8).  PSOCK_RCMD_STREAM_CNT and PSOCK_MAX_STREAM_CNT take 1..this.
 */
#define PSOCK_STREAM_CNT_LIMIT	32

/*
 * SOL_PSOCK options.  Both peers announce a recommended (rcmd) and a
 * maximum (max) stream count; the connection uses
 * n = min(max(rcmd1, rcmd2), max1, max2) subflows.  Defaults come from the
 * sysctls net.psock.rcmd_stream_cnt and net.psock.max_stream_cnt.
 */
#define PSOCK_RCMD_STREAM_CNT	1	/* int, 1..PSOCK_STREAM_CNT_LIMIT */
#define PSOCK_MAX_STREAM_CNT	2	/* int, 1..PSOCK_STREAM_CNT_LIMIT */
#define PSOCK_DRIVER		3	/* int, enum psock_driver */
#define PSOCK_SNDBUF		4	/* struct pstream_int: SO_SNDBUF of one subflow */
#define PSOCK_RCVBUF		5	/* struct pstream_int: SO_RCVBUF of one subflow */
#define PSOCK_INFO		6	/* struct psock_info + entries, read only */
#define PSOCK_ADD_LOCAL_ADDR	7	/* struct sockaddr_in / sockaddr_in6,
					 * write only: see below
					 */
#define PSOCK_WINDOW		8	/* struct psock_window, read only */
#define PSOCK_OPTIMISTIC	9	/* int, 0 or 1, before connect(): see below */

/*
 * PSOCK_OPTIMISTIC 1: connect() returns once the control subflow's TCP
 * connection is up, without waiting for the server's hello; what the
 * application sends before the hello goes out as plain TCP (at most
 * PSOCK_OPTIMISTIC_MAX bytes until the hello or the hello timeout), so a
 * plain TCP server that waits for its client costs no round trip.  Against
 * a PSOCK server the connection turns striped once the hello comes.
 * TCP_FASTOPEN_CONNECT at SOL_TCP sets the same flag.
 */
#define PSOCK_OPTIMISTIC_MAX	16376

/*
 * PSOCK_ADD_LOCAL_ADDR adds one address of this host, of the socket's
 * family (sin_port / sin6_port 0: the listener's port).  On a listener the
 * address is announced to every client after the server hello, and the
 * client spreads its data subflows over the listener's address and the
 * announced ones.  On a client (before connect()) it lists further source
 * addresses for the data subflows.  At most PSOCK_ADDR_MAX per socket.
 */
#define PSOCK_ADDR_MAX		8

/**
 * enum psock_driver - how data is spread over the subflows
 * @PSOCK_DRIVER_POLL_ALL: each block goes to a subflow with send-buffer
 *	space, so unequal paths are all used (default)
 * @PSOCK_DRIVER_ROUND_ROBIN: fixed-size blocks in strict rotation
 */
enum psock_driver {
	PSOCK_DRIVER_POLL_ALL		= 0,
	PSOCK_DRIVER_ROUND_ROBIN	= 1,
};

#define PSOCK_DRIVER_MAX	PSOCK_DRIVER_ROUND_ROBIN

/**
 * struct pstream_int - an integer option of one subflow (the psock
 *	library's name and layout)
 * @index: subflow index, 0..PSOCK_STREAM_CNT_LIMIT - 1
 * @value: the value; for PSOCK_SNDBUF / PSOCK_RCVBUF a buffer size in
 *	bytes as SO_SNDBUF / SO_RCVBUF take it, 0 for the default.  On
 *	getsockopt() the caller fills @index and reads @value.
 */
struct pstream_int {
	__s32	index;
	__s32	value;
};

/* struct psock_info.flags */
#define PSOCK_INFO_FALLBACK	(1U << 0)	/* the peer does not speak PSOCK:
						 * a plain TCP stream on subflow 0
						 */
#define PSOCK_INFO_ESTABLISHED	(1U << 1)	/* handshake complete */
#define PSOCK_INFO_UNDECIDED	(1U << 2)	/* with FALLBACK: optimistic
						 * (PSOCK_OPTIMISTIC), plain
						 * TCP until the server's
						 * first bytes: it may still
						 * turn striped
						 */

/**
 * struct psock_subflow_info - one subflow in the answer to PSOCK_INFO
 * @index: subflow index; 0 is the control subflow
 * @state: TCP state of the subflow (TCP_ESTABLISHED = 1, ...)
 * @bytes_sent: bytes written to the subflow, block headers included
 * @bytes_received: bytes read from it, block headers included
 * @total_retrans: segments retransmitted (tcpi_total_retrans)
 * @snd_cwnd: congestion window, in segments
 * @srtt_us: smoothed round-trip time, microseconds
 * @family: AF_INET or AF_INET6: the layout of the addresses
 * @local_port: local port, host byte order
 * @remote_port: remote port, host byte order
 * @local_addr: local address: 4 bytes (AF_INET) or 16 (AF_INET6)
 * @remote_addr: remote address, as @local_addr
 * @snd_buf: the subflow's send buffer, bytes (SO_SNDBUF's reading)
 * @rcv_buf: the subflow's receive buffer, bytes (SO_RCVBUF's reading)
 * @mark: the subflow's SO_MARK
 * @priority: the subflow's SO_PRIORITY
 * @nodelay: 1 when TCP_NODELAY is set on the subflow
 * @bound_dev_if: the interface the subflow is bound to (SO_BINDTODEVICE's
 *	ifindex), 0 for none
 * @reuse: the subflow's SO_REUSEADDR (0 or 1)
 * @keepalive: the subflow's SO_KEEPALIVE (0 or 1)
 * @keepidle: its TCP_KEEPIDLE in effect, seconds (the namespace's
 *	default unless set)
 * @keepintvl: its TCP_KEEPINTVL in effect, seconds
 * @keepcnt: its TCP_KEEPCNT in effect
 * @user_timeout: its TCP_USER_TIMEOUT, milliseconds
 * @cork: 1 when TCP_CORK is set on the subflow
 * @tos: its IP_TOS (ECN bits cleared)
 * @tclass: its IPV6_TCLASS (ECN bits cleared; 0 for AF_INET)
 * @congestion: its TCP_CONGESTION, NUL-terminated
 *
 * New fields are only ever added at the end.
 */
struct psock_subflow_info {
	__u32	index;
	__u32	state;
	__u64	bytes_sent;
	__u64	bytes_received;
	__u32	total_retrans;
	__u32	snd_cwnd;
	__u32	srtt_us;
	__u16	family;
	__u16	local_port;
	__u16	remote_port;
	__u16	reserved;
	__u8	local_addr[16];
	__u8	remote_addr[16];
	__u32	snd_buf;
	__u32	rcv_buf;
	__u32	mark;
	__u32	priority;
	__u32	nodelay;
	__u32	bound_dev_if;
	__u32	reuse;
	__u32	keepalive;
	__u32	keepidle;
	__u32	keepintvl;
	__u32	keepcnt;
	__u32	user_timeout;
	__u32	cork;
	__u32	tos;
	__u32	tclass;
	char	congestion[16];
};

/**
 * struct psock_info - header of the answer to getsockopt(PSOCK_INFO)
 * @num: out: the connection's subflows (may exceed the entries copied)
 * @size_kernel: out: sizeof(struct psock_subflow_info) of the kernel
 * @size_user: in: the entry size the caller uses (0: header only);
 *	out: bytes filled in each entry, min(in, @size_kernel)
 * @stream_cnt: out: negotiated stream count (0 before the handshake)
 * @driver: out: negotiated driver, enum psock_driver
 * @flags: out: PSOCK_INFO_*
 *
 * Entries follow the header, each @size_user bytes apart; optlen comes
 * back as the header plus the entries filled.  As MPTCP_SUBFLOW_ADDRS,
 * old binaries keep working when entries grow.
 */
struct psock_info {
	__u32	num;
	__u32	size_kernel;
	__u32	size_user;
	__u32	stream_cnt;
	__u32	driver;
	__u32	flags;
};

/*
 * sock_diag (what ss(8) shows of TCP): a SOCK_DIAG_BY_FAMILY request for
 * AF_INET or AF_INET6 with sdiag_protocol IPPROTO_RAW and the attribute
 * INET_DIAG_REQ_PROTOCOL (__u32) IPPROTO_PSOCK, as for IPPROTO_MPTCP,
 * dumps the PSOCK sockets of that family in the caller's network
 * namespace (its idiag_states and ports filter them, as TCP's): one
 * struct inet_diag_msg each, with the state in TCP's
 * numbering, the control subflow's addresses and ports, and the PSOCK
 * socket's own uid, inode and cookie (a request with NLM_F_DUMP unset
 * finds one socket of its family by that cookie).  Asked for (idiag_ext bit
 * INET_DIAG_INFO - 1), INET_DIAG_INFO holds a struct psock_info and its
 * live subflows' struct psock_subflow_info, @size_user bytes apart: the
 * layout of getsockopt(PSOCK_INFO) with @size_user = @size_kernel.  The
 * entries are those that fit in the message (the attribute's length says
 * how many); @num counts them all.  Without CAP_NET_ADMIN in the
 * namespace's user namespace, @mark and @priority read 0, as inet_diag
 * hides marks.  hicnctl psock show is such a reader.
 */

/**
 * struct psock_window - the answer to getsockopt(PSOCK_WINDOW): the
 *	connection's windows, in bytes of blocks (headers included)
 * @snd_wnd: what this end may have sent and not had acknowledged: the
 *	window the peer offered in its hello (4 MiB when it offered none)
 * @rcv_wnd: the window this end offered: what the peer may send ahead
 *	of what the application read
 *
 * Both are 4 MiB until the handshake; see Documentation/psock.rst,
 * "Window".
 */
struct psock_window {
	__u32	snd_wnd;
	__u32	rcv_wnd;
};

/*
 * Configuration: the generic netlink family PSOCK_FAMILY_NAME ("psock"),
 * whose commands and attributes <linux/psock_netlink.h> enumerates
 * (generated from Documentation/netlink/specs/psock.yaml).  Its multicast
 * group for subflow events (PSOCK_CMD_SUBFLOW_ESTABLISHED, _CLOSED):
 */
#define PSOCK_MCGRP_EVENTS	"events"

#endif /* _UAPI_LINUX_PSOCK_H */
